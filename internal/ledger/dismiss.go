package ledger

import "strings"

// A user dismisses a thing by pointing back at it: "skip it", "take that
// out", "scratch that", "never mind". What "it" is depends on where the
// dismissal stands: after the thing in the same sentence ("Rename is a
// nit, skip it") it waives that thing, which is then no work left open;
// opening its sentence ("wait no. take that out, keep the column") it
// takes back what was just done or said, the reply before the prompt.

// dismissal reports a clause that dismisses what it points back at: a
// verb of dropping or undoing with "it", "that", "this", "those" or
// "them" as its object, or "never mind" / "forget it". The verbs are
// the everyday ones of the class, not phrases from any session.
func dismissal(clause string) bool { return dismisses(clause, false) }

// undoing reports a dismissal that undoes ("take that out", "scratch
// that", "revert it", "never mind"), not one that declines an offer or a
// suggestion ("skip it", "leave it", "ignore that"): only an undoing takes
// back what was just done.
func undoing(clause string) bool { return dismisses(clause, true) }

func dismisses(clause string, undo bool) bool {
	ws := words(clause)
	for len(ws) > 0 && dismissOpener(ws[0]) {
		ws = ws[1:]
	}
	switch {
	case len(ws) == 0:
		return false
	case len(ws) >= 2 && (ws[0] == "never" || ws[0] == "nvm") && ws[1] == "mind", ws[0] == "nevermind", ws[0] == "nvm":
		return true
	case len(ws) < 2 || !pointsBack(ws[1]):
		return false
	}
	if undo {
		switch ws[0] {
		case "skip", "ignore", "leave", "forget":
			return false
		}
	}
	switch ws[0] {
	case "skip", "ignore", "scratch", "undo", "revert", "remove", "drop", "forget", "cancel", "ditch", "lose", "kill", "nix":
		return len(ws) <= 4 || ws[2] == "out" || ws[2] == "back" || ws[2] == "for" || ws[2] == "from" || ws[2] == "again" || ws[2] == "entirely" || ws[2] == "too"
	case "take", "back", "roll", "rip", "leave":
		// "take that out", "roll it back", "back it out", "leave it",
		// "leave that as is"; "take it from there" asks for work.
		return len(ws) == 2 && ws[0] == "leave" || len(ws) >= 3 && (ws[2] == "out" || ws[2] == "back" || ws[2] == "as" || ws[2] == "alone")
	}
	return false
}

// dismissOpener: the words a dismissal may open with ("wait no, take
// that out", "actually, scratch that", "ok just skip it").
func dismissOpener(w string) bool {
	switch w {
	case "wait", "no", "nah", "nope", "actually", "hmm", "hm", "oh", "ok", "okay", "but", "and", "so", "just",
		"please", "pls", "then", "hold", "on", "sorry", "oops", "ah", "yeah", "yes", "let's", "lets", "you", "can",
		"i", "think", "we", "should", "could":
		return true
	}
	return false
}

func onlyOpeners(clause string) bool {
	for _, w := range words(clause) {
		if !dismissOpener(w) {
			return false
		}
	}
	return true
}

func pointsBack(w string) bool {
	switch w {
	case "it", "that", "this", "those", "these", "them", "both":
		return true
	}
	return false
}

// words is a text's words in lower case, without the marks around them.
func words(s string) []string {
	var ws []string
	for _, f := range strings.Fields(strings.ToLower(strings.ReplaceAll(s, "’", "'"))) {
		if t := strings.Trim(f, ".,;:!?\"“”()[]*_—–"); t != "" {
			ws = append(ws, t)
		}
	}
	return ws
}

// dismissClauses splits a sentence into its clauses at ",", ";", ":" and
// dashes set apart by spaces.
func dismissClauses(s string) []string {
	return strings.FieldsFunc(strings.ReplaceAll(strings.ReplaceAll(s, " — ", ";"), " - ", ";"), func(r rune) bool {
		return r == ',' || r == ';' || r == ':'
	})
}

// waives reports a sentence that names a thing and then dismisses it
// ("Rename is a nit, skip it", "the lag metric — leave it"): no work is
// asked for. A clause before the dismissal that itself asks for work
// ("fix the header, skip the footer") keeps the sentence a request.
func waives(sentence string) bool {
	cs := dismissClauses(strings.TrimRight(strings.TrimSpace(sentence), ".!"))
	if len(cs) < 2 || !dismissal(cs[len(cs)-1]) {
		return false
	}
	for _, c := range cs[:len(cs)-1] {
		if describes(words(c)) {
			continue // "Rename is a nit": it names the thing
		}
		if isRequest(analyse(c)) {
			return false
		}
	}
	return true
}

// Waives is waives for the checkpoint's constraints: a thing the user
// waived is a thing not to do.
func Waives(sentence string) bool { return waives(sentence) }

// describes says a clause says what a thing is ("Rename is a nit",
// "Refactor of parse.go is a matter of taste"), though its first word
// may be a verb: a copula comes within its first words, and the word after
// the first is no object of a verb ("fix what is broken").
func describes(ws []string) bool {
	if len(ws) < 2 {
		return false
	}
	switch ws[1] {
	case "the", "a", "an", "it", "that", "this", "what", "sure", "them", "all", "any", "everything", "whatever":
		return false
	}
	for _, w := range ws[1:min(len(ws), 5)] {
		if copula(w) {
			return true
		}
	}
	return false
}

func copula(w string) bool {
	switch w {
	case "is", "are", "was", "were", "'s", "isn't", "aren't", "seems", "looks", "feels", "sounds":
		return true
	}
	return false
}

// TakenBack is the part of a prompt that takes back what came just
// before it ("wait no. take that out, keep shipping_addr until finance
// signs off"): a dismissal that opens one of the prompt's first
// sentences, with what follows it in that sentence; "" when the prompt
// takes nothing back.
func TakenBack(prompt string) string {
	sents := strings.FieldsFunc(prompt, func(r rune) bool { return r == '.' || r == '!' || r == '?' || r == '\n' })
	for i, sn := range sents {
		if i >= 3 {
			break
		}
		cs := dismissClauses(sn)
		for len(cs) > 1 && onlyOpeners(cs[0]) {
			cs = cs[1:] // "oh wait, take those out"
		}
		if len(cs) > 0 && undoing(cs[0]) {
			return strings.TrimSpace(prompt)
		}
	}
	return ""
}
