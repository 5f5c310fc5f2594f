package checkpoint

import (
	"slices"
	"strings"
	"unicode"

	"github.com/cairn-agent/cairn/internal/ledger"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// A constraint is a clause in which the user binds the work: a negation
// or an obligation about it ("don't bump it", "we can't add anything to
// Package.swift", "it has to stay called exactly that", "no new deps",
// "keep everything python 3.9 compatible", "leave that test failing",
// "pnpm only"). It is kept with the clauses after it, where its reason
// usually is ("..., because the security review takes weeks"), and on
// its own: the prompt it was said in is quoted from its head, and a
// constraint said deep in a long first prompt was cut with the rest.

// constraints lists the user's constraints, each once, the latest
// saying of each last, and the rules a later sentence lifted, or that
// held only for a while ("don't write code yet") and the agent has since
// done, after another prompt of the user's (calls: the session's tool
// calls).
func constraints(prompts []transcript.Prompt, calls []transcript.ToolCall) (out, lifted []string) {
	for pi, p := range prompts {
		for _, sent := range transcript.Sentences(p.Text) {
			if ws := lifts(sent); ws != nil {
				// "macOS doesn't matter anymore": the rule it names goes,
				// and the lifting stands in its place.
				changed := false
				kept := out[:0]
				for _, c := range out {
					if !namesAny(c, ws) {
						kept = append(kept, c)
						continue
					}
					changed = true
					rest, gone := liftFrom(c, ws)
					lifted = append(lifted, gone...)
					if rest != "" {
						kept = append(kept, rest)
					}
				}
				out = kept
				if changed {
					out = append(out, clip(sent))
				}
				continue
			}
			for _, c := range constraintsIn(sent) {
				if pi+1 < len(prompts) && forNow(c) && doneAfter(c, calls, prompts[pi+1].Line) {
					lifted = append(lifted, c)
					continue
				}
				c = clip(c)
				if i := slices.Index(out, c); i >= 0 {
					out = slices.Delete(out, i, i+1)
				}
				out = append(out, c)
			}
		}
	}
	return last(out, maxConstraints), lifted
}

// forNow says a rule holds only until a step the user has yet to allow:
// "don't write code yet", "not yet", "hold off on pushing until I say
// so", "no commits before I've seen the plan".
func forNow(c string) bool {
	ws := clauseWords(c)
	neg := false
	for i, w := range ws {
		switch w {
		case "don't", "dont", "do", "not", "no", "never", "hold", "wait":
			neg = neg || w != "do" || i+1 < len(ws) && ws[i+1] == "not"
		case "yet":
			if neg {
				return true
			}
		case "until", "before", "till":
			if neg && i+1 < len(ws) && (ws[i+1] == "i" || ws[i+1] == "i've" || ws[i+1] == "we" || ws[i+1] == "you've") {
				return true
			}
		}
	}
	return false
}

// doneAfter says the agent did what a for-now rule held back in a call
// at or after line (the user's next prompt): a file changed when the rule
// was about code or edits in general, or a command holding one of the rule's
// words ("push", "commit", "deploy").
func doneAfter(c string, calls []transcript.ToolCall, line int) bool {
	ws := clauseWords(c)
	aboutCode := slices.ContainsFunc(ws, func(w string) bool {
		switch w {
		// Code in general, not one thing of it: "don't change the API
		// yet" is not lifted by an edit elsewhere.
		case "code", "coding", "implement", "implementing", "edit", "edits", "editing":
			return true
		}
		return false
	})
	for _, tc := range calls {
		if tc.Line < line {
			continue
		}
		if aboutCode && tc.FilePath != "" && (tc.Name == "Edit" || tc.Name == "Write" || tc.Name == "MultiEdit" || tc.Name == "NotebookEdit" || tc.Name == "apply_patch") {
			return true
		}
		if tc.Command == "" {
			continue
		}
		if aboutCode {
			continue
		}
		cmd := clauseWords(tc.Command)
		for _, w := range ws {
			switch w {
			case "yet", "until", "till", "before", "don't", "dont", "not", "hold", "wait", "the", "and", "any", "off", "for", "you", "say", "it's":
				continue
			}
			if len(w) >= 3 && slices.Contains(cmd, w) {
				return true
			}
		}
	}
	return false
}

// liftFrom takes out of a constraint the clauses that name a lifted rule's
// words: what is left, when a clause of it still binds the work ("never
// force-push without asking me, and keep the public API as is" without
// its first rule), and the clauses taken out.
func liftFrom(c string, ws []string) (rest string, gone []string) {
	var left []string
	binds, prevGone := false, false
	for _, sp := range userClauses(c) {
		cl := c[sp.from:sp.to]
		if namesAny(cl, ws) || prevGone && follows(cl) {
			// "it has to build on Windows too, so no symlinks": what
			// follows from the lifted rule goes with it.
			gone, prevGone = append(gone, strings.TrimSpace(cl)), true
			continue
		}
		prevGone = false
		left = append(left, strings.TrimSpace(cl))
		binds = binds || bindsWork(cl) || isConstraint(cl)
	}
	if !binds {
		return "", []string{c}
	}
	return strings.Join(left, " "), gone
}

// follows says a clause follows from the one before it: its consequence
// or its reason ("so no symlinks", "because the review takes weeks").
func follows(clause string) bool {
	ws := clauseWords(clause)
	if len(ws) == 0 {
		return false
	}
	switch ws[0] {
	case "so", "because", "since", "hence", "therefore", "which", "as", "cause", "cuz":
		return true
	}
	return false
}

// withoutLifted is a prompt quoted as the task with the rules since
// lifted taken out of it, a mark in their place: the quote would tell the
// agent a rule the user dropped ("don't run `dune promote` without asking
// me first", then "promote is fine from now on").
func withoutLifted(prompt string, lifted []string) string {
	for _, l := range lifted {
		core := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "-*•"))
		core = strings.TrimRight(strings.TrimSuffix(core, "…"), ".;, ")
		if len(core) < 12 {
			continue
		}
		if i := strings.Index(prompt, core); i >= 0 {
			prompt = prompt[:i] + "[a rule since lifted]" + prompt[i+len(core):]
		}
	}
	return prompt
}

// lifts returns the words of a sentence that lifts a rule the user set
// ("actually, macOS doesn't matter anymore", "GNU stuff is fine now",
// "the one-file rule no longer applies"), nil for any other sentence.
func lifts(sent string) []string {
	low := strings.ToLower(sent)
	lifted := grants(clauseWords(low))
	for _, p := range []string{"doesn't matter anymore", "doesn't matter any more", "does not matter anymore", "no longer matters",
		"no longer applies", "no longer needed", "no longer a requirement", "not a requirement anymore", "isn't a concern anymore",
		"is fine now", "are fine now", "is okay now", "is ok now", "are ok now", "don't care about", "no need to worry about"} {
		if strings.Contains(low, p) {
			lifted = true
			break
		}
	}
	if !lifted {
		return nil
	}
	var ws []string
	if label, rest, ok := strings.Cut(low, ":"); ok && len(strings.Fields(label)) <= 2 {
		low = rest // "update: ...": a label, not what is lifted
	}
	if i := strings.IndexAny(low, ",;"); i > 0 && grants(clauseWords(low[:i])) {
		low = low[:i] // "promote is fine from now on, no need to ask each time": the first clause names it
	}
	for _, w := range clauseWords(low) {
		if len(w) >= 3 && !slices.Contains([]string{"actually", "anymore", "matter", "matters", "doesn't", "does", "not", "longer",
			"applies", "needed", "requirement", "concern", "isn't", "fine", "now", "okay", "stuff", "the", "and", "btw", "any", "more",
			"don't", "care", "about", "need", "worry", "are", "rule", "that", "this", "those", "all", "too", "also",
			"from", "each", "time", "ask", "again", "allowed", "permitted", "since"}, w) {
			ws = append(ws, strings.FieldsFunc(w, func(r rune) bool { return r == '-' || r == '/' })...)
		}
	}
	return ws
}

// grants says words allow from now on what a rule kept from being done:
// a word of permission ("fine", "ok", "allowed") with one of time ("now",
// "anymore", "again": "promote is fine from now on", "force-push is
// allowed again"), or no need to ask any more ("no need to ask each
// time").
func grants(ws []string) bool {
	permit := -1
	for i, w := range ws {
		switch w {
		case "fine", "ok", "okay", "allowed", "permitted":
			// A predicate ("promote is fine"), not an interjection
			// ("ok so ...").
			if i > 0 {
				switch ws[i-1] {
				case "is", "are", "be", "it's", "that's", "totally", "perfectly", "also", "all":
					permit = i
				}
			}
		case "now", "anymore", "again":
			if permit >= 0 && i > permit {
				return true
			}
		case "no":
			if i+3 < len(ws) && ws[i+1] == "need" && ws[i+2] == "to" && (ws[i+3] == "ask" || ws[i+3] == "check") {
				return true
			}
		}
	}
	return false
}

// namesAny says a constraint names one of the words.
func namesAny(c string, ws []string) bool {
	cw := strings.FieldsFunc(strings.ToLower(c), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' })
	return slices.ContainsFunc(ws, func(w string) bool {
		return slices.ContainsFunc(cw, func(x string) bool { return x == w || sameStem(x, w) })
	})
}

// constraintsIn is the constraints a sentence states: the sentence
// itself when it is short enough to be an item, else each run of
// clauses from a clause that binds the work, with the clause before it
// when that one is short (its object: "include/pkt.h is ABI — don't
// touch") and the clauses after it that fit (its reason).
func constraintsIn(sent string) []string {
	cs := userClauses(sent)
	var at []int
	question := strings.HasSuffix(strings.TrimSpace(sent), "?")
	if isConstraint(sent) {
		for i, c := range cs {
			if isConstraint(sent[c.from:c.to]) {
				at = append(at, i)
			}
		}
		if len(at) == 0 {
			at = append(at, 0) // a cue split over two clauses
		}
	}
	if !question {
		for i, c := range cs {
			if quotation(sent[c.from:c.to]) {
				continue // "No such payment_intent": what something said
			}
			if bindsWork(sent[c.from:c.to]) && !slices.Contains(at, i) {
				at = append(at, i)
			}
		}
	}
	if len(at) == 0 && ledger.Waives(sent) {
		// "Rename is a nit, skip it": the thing named is not to be done.
		at = append(at, len(cs)-1)
	}
	if len(at) == 0 {
		return nil
	}
	if len(sent) <= maxItem {
		return []string{sent}
	}
	slices.Sort(at)
	var out []string
	covered := -1
	for _, i := range at {
		if i <= covered {
			continue
		}
		from := i
		if i > 0 && cs[i].to-cs[i].from < 30 && cs[i].to-cs[i-1].from <= maxItem/2 {
			from = i - 1
		}
		to := i
		for to+1 < len(cs) && cs[to+1].to-cs[from].from <= maxItem-2*len("…") {
			to++
		}
		covered = to
		s := strings.TrimSpace(sent[cs[from].from:cs[to].to])
		if cs[to].to-cs[from].from > maxItem-2*len("…") {
			s = clip(s) // one clause longer than an item
		}
		if from > 0 {
			s = "… " + s
		}
		if to < len(cs)-1 {
			s += " …"
		}
		out = append(out, s)
	}
	return out
}

// span is a clause's place in its sentence.
type span struct{ from, to int }

// userClauses splits a sentence into clauses after ",", ";" or ":"
// followed by a space, and around dashes set apart by spaces and
// parentheses. Each clause's span keeps its punctuation.
func userClauses(s string) []span {
	var out []span
	start := 0
	cut := func(end, next int) {
		if strings.TrimSpace(s[start:end]) != "" {
			out = append(out, span{start, end})
		}
		start = next
	}
	code := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '`' {
			code = !code
		}
		if code {
			continue
		}
		switch {
		case (c == ',' || c == ';' || c == ':') && i+1 < len(s) && s[i+1] == ' ':
			cut(i+1, i+1)
		case c == '(' && i > 0 && s[i-1] == ' ':
			cut(i, i)
		case c == ')' && (i+1 == len(s) || s[i+1] == ' ' || s[i+1] == ',' || s[i+1] == '.'):
			cut(i+1, i+1)
		case strings.HasPrefix(s[i:], " — "), strings.HasPrefix(s[i:], " – "), strings.HasPrefix(s[i:], " - "):
			cut(i, i+1)
		}
	}
	cut(len(s), len(s))
	return out
}

// quotation says a clause opens with a quotation mark: it gives what a
// program or someone said (an error's "No such payment_intent"), not the
// user's rule.
func quotation(clause string) bool {
	c := strings.TrimSpace(clause)
	return strings.HasPrefix(c, "\"") || strings.HasPrefix(c, "“") || strings.HasPrefix(c, "'") || strings.HasPrefix(c, "`")
}

// bindsWork reports whether a clause binds the work in the shapes the
// cue words of isConstraint do not catch: "we can't …", "it has to …",
// and a clause that opens with "no …", "keep …", "leave …" or "only …",
// or has "only" right after its first word ("pnpm only", "prod only
// after CAB approval"). Questions are not asked here.
func bindsWork(clause string) bool {
	ws := clauseWords(clause)
	for i, w := range ws {
		switch w {
		case "can't", "cannot", "mustn't", "shan't":
			if i > 0 && (ws[i-1] == "we" || ws[i-1] == "you") {
				return true
			}
		case "can", "may":
			if i > 0 && (ws[i-1] == "we" || ws[i-1] == "you") && i+1 < len(ws) && (ws[i+1] == "not" || ws[i+1] == "never") {
				return true
			}
		case "has", "have":
			// An obligation on the work, not on the speaker: "it has
			// to stay", "every migration has to be reversible".
			if i+1 < len(ws) && ws[i+1] == "to" && i > 0 && ws[i-1] != "i" && i+2 < len(ws) {
				return true
			}
		case "needs":
			if i+1 < len(ws) && ws[i+1] == "to" && i > 0 && i+2 < len(ws) {
				return true
			}
		case "stay", "stays", "remain", "remains":
			// A bound on what the work measures: "the gzipped .wasm
			// stays under 300 KB", "p99 has to remain below 200ms".
			if i > 0 && bound(ws[i+1:]) {
				return true
			}
		}
	}
	ws = withoutOpeners(ws)
	if len(ws) < 2 {
		return false
	}
	switch ws[0] {
	case "no":
		return !notBinding(ws[1])
	case "keep":
		return ws[1] != "going" && ws[1] != "up" && ws[1] != "on"
	case "leave":
		return !putsOff(ws[1:])
	case "only":
		return true
	}
	if ws[1] == "only" && !copula(ws[0]) {
		return true
	}
	return ws[len(ws)-1] == "only" && len(ws) <= 6
}

// putsOff says the words after "leave" put the thing off rather than
// bind it: an object and a time, with nothing said of the state it is
// to be left in ("leave it for now", "leave the docs question until
// Monday"), where "leave that test failing for now", "leave it alone
// for now" or "leave it out for now" say how it is to stay.
func putsOff(ws []string) bool {
	for i, w := range ws {
		if i > 4 {
			return false
		}
		switch w {
		case "until", "till", "til":
			return i > 0
		case "for":
			if i > 0 && i+1 < len(ws) {
				switch ws[i+1] {
				case "now", "later", "the", "a", "another", "tomorrow", "today", "next", "monday", "after":
					return true
				}
			}
			return false
		case "alone", "as", "out", "off", "on", "in", "be", "untouched", "unchanged", "there", "failing", "broken", "red",
			"disabled", "enabled", "open", "closed", "commented", "skipped", "pinned", "empty", "blank":
			return false
		}
	}
	return false
}

// bound says words open with a limit: a comparison and a number
// ("under 300 KB", "below 200ms", "at most 3 retries").
func bound(ws []string) bool {
	if len(ws) < 2 {
		return false
	}
	k := 1
	switch ws[0] {
	case "under", "below", "within", "above", "over":
	case "at", "less", "no":
		if ws[1] != "most" && ws[1] != "least" && ws[1] != "than" && ws[1] != "more" && ws[1] != "bigger" && ws[1] != "larger" {
			return false
		}
		k = 2
		if k < len(ws) && ws[k] == "than" {
			k++
		}
	default:
		return false
	}
	return k < len(ws) && ws[k] != "" && ws[k][0] >= '0' && ws[k][0] <= '9'
}

// notBinding reports the words after which "no" opens no constraint: an
// answer ("no, the other one"), an idiom ("no rush", "no need to").
func notBinding(w string) bool {
	switch w {
	case "need", "rush", "idea", "worries", "worry", "problem", "problems", "thanks", "luck", "way",
		"longer", "doubt", "matter", "answer", "reply", "news", "one", "i", "it", "it's", "that", "this",
		"the", "we", "you", "they", "not", "but", "just", "wait", "sorry", "actually", "worse", "better",
		"big", "hurry", "pressure", "clue", "offence", "offense", "biggie", "kidding":
		return true
	}
	return false
}

// copula reports the words before "only" that make it a fact, not a rule:
// "it's only a one-off", "leak is only in the harness", "I only changed
// the tests".
func copula(w string) bool {
	switch w {
	case "it's", "is", "are", "was", "were", "has", "have", "had", "that's", "i", "we", "you", "he",
		"she", "they", "it", "this", "that", "there":
		return true
	}
	return false
}

// openers reports the words a clause may open with before what binds the
// work: "and please keep …", "oh, and no new deps", "Rule: no changes".
func openers(w string) bool {
	switch w {
	case "and", "but", "so", "also", "oh", "ok", "okay", "hmm", "please", "just", "still", "actually",
		"then", "btw", "plus", "rule", "important", "ah", "well", "do", "again", "hm", "pls", "plz",
		"again,":
		return true
	}
	return false
}

func withoutOpeners(ws []string) []string {
	for len(ws) > 0 && openers(ws[0]) {
		ws = ws[1:]
	}
	return ws
}

// clauseWords is a clause's words in lower case, without the marks
// around them; a typographic apostrophe reads as a straight one.
func clauseWords(clause string) []string {
	var ws []string
	for _, f := range strings.Fields(strings.ToLower(strings.ReplaceAll(clause, "’", "'"))) {
		if t := strings.Trim(f, ".,;:!?\"“”()[]*_-—–"); t != "" {
			ws = append(ws, t)
		}
	}
	return ws
}
