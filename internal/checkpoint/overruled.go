package checkpoint

import (
	"slices"
	"strings"
	"unicode"
)

// A plan said earlier stops being the plan when a later statement turns
// down what it proposed: the assistant's "rejects levels above 23 instead
// of clamping" after its "I'll clamp levels above 23", the user's "no
// enum." after the assistant's "to do: a RefundReason enum". Listed as
// current, the overruled plan reads as the one to follow.

// refusers are the words after which a statement names what it turns
// down: those that replace one thing by another, then, for a user's
// short reply, those that only refuse. refusers ends with replacers,
// written out: the linker lays out a literal, where an append would run
// at every process's start.
var (
	replacers = [][]string{{"instead", "of"}, {"rather", "than"}, {"no", "longer"}}
	refusers  = [][]string{{"no"}, {"not"}, {"never"}, {"don't"}, {"dont"}, {"without"}, {"instead", "of"}, {"rather", "than"}, {"no", "longer"}}
)

// refused lists the words a statement turns down: the first content word
// after each refuser ("instead of clamping" gives "clamping"); a reply
// (short) may refuse with a bare "no" or "not".
func refused(s string, short bool) []string {
	ws := fields(s)
	rs := replacers
	if short {
		rs = refusers
	}
	var out []string
	for i := 0; i < len(ws); i++ {
		for _, r := range rs {
			if i+len(r) > len(ws) || !hasRun(ws[i:], r) {
				continue
			}
			for k := i + len(r); k < len(ws) && k < i+len(r)+3; k++ {
				if content(ws[k]) {
					w := ws[k]
					if p := i + len(r); preposition(ws[p]) {
						// "rather than in the backfill" turns down a
						// place or a time, not a thing: it refuses a plan
						// that put it there ("in the backfill"), not one
						// that merely names it ("until the backfill").
						w = ws[p] + " " + w
					}
					out = append(out, w)
					break
				}
			}
			i += len(r) - 1
			break
		}
	}
	return out
}

// overrules says whether later turns down what earlier proposed: a word
// it refuses is one of earlier's (by its first five letters: "clamping"
// and "clamp"), and, unless later is a short reply that only refuses
// ("no enum."), the two share another content word: they speak of the
// same thing.
func overrules(later, earlier string) bool {
	for _, sn := range strings.FieldsFunc(later, func(r rune) bool { return r == '.' || r == '!' || r == '?' || r == ';' || r == '\n' }) {
		if overrulesIn(sn, later, earlier) {
			return true
		}
	}
	return false
}

// overrulesIn: one sentence of later refuses what earlier proposed. A
// sentence of a few words ("no enum.") refuses outright.
func overrulesIn(sentence, later, earlier string) bool {
	ew := fields(earlier)
	short := len(fields(sentence)) <= maxReply
	for _, r := range refused(sentence, short) {
		hit := false
		prep, word, phrase := strings.Cut(r, " ")
		if phrase {
			r = word
		}
		for k, w := range ew {
			if content(w) && sameStem(w, r) && (!phrase || slices.Contains(ew[max(0, k-3):k], prep)) {
				hit = true
				break
			}
		}
		if !hit {
			continue
		}
		if short {
			return true
		}
		if !chosen(objectOf(sentence, r), earlier) {
			continue
		}
		for _, w := range fields(later) {
			if content(w) && !sameStem(w, r) && len(w) >= 5 && containsStem(ew, w) {
				return true
			}
		}
	}
	return false
}

// objectOf is what a sentence turns down after the replacer whose first
// content word is r, as far as the clause goes: "rather than annotating
// every nullable field, since ..." gives annotating, nullable, field.
func objectOf(sentence, r string) []string {
	low := strings.ToLower(sentence)
	for _, rp := range replacers {
		lead := strings.Join(rp, " ") + " "
		for from := 0; ; {
			i := strings.Index(low[from:], lead)
			if i < 0 {
				break
			}
			rest := low[from+i+len(lead):]
			from += i + len(lead)
			if end := clauseEnd(rest); end >= 0 {
				rest = rest[:end]
			}
			var obj []string
			for _, w := range fields(rest) {
				if content(w) && !quantifier(w) {
					obj = append(obj, w)
				}
			}
			if len(obj) > 0 && slices.ContainsFunc(obj, func(w string) bool { return sameStem(w, r) }) {
				return obj[:min(len(obj), 4)]
			}
		}
	}
	return nil
}

// clauseEnd is where the clause that starts s ends: a comma, a
// semicolon, a colon, an aside in parentheses ("instead of clamping (a
// clamped request would ...)"), or a word that gives a reason or adds
// another clause. -1 when it runs to the end.
func clauseEnd(s string) int {
	end := -1
	for _, b := range []string{",", ";", ":", "(", " — ", " because ", " since ", " so ", " as ", " which ", " and ", " but ", " while ", " until "} {
		if i := strings.Index(s, b); i >= 0 && (end < 0 || i < end) {
			end = i
		}
	}
	return end
}

// quantifier: a word that says how many, not what.
func quantifier(w string) bool {
	switch w {
	case "every", "each", "all", "both", "either", "many", "several", "other", "another":
		return true
	}
	return false
}

// chosen says earlier chose what obj names: every word of obj is in what
// earlier proposed, before its own "rather than" or its reason. A later
// "rather than annotating every nullable field" does not overrule an
// earlier "annotate the field with @Serializable(...) rather than ...":
// it turns down another annotating than the one chosen.
func chosen(obj []string, earlier string) bool {
	if len(obj) == 0 {
		return true // nothing to compare: the refused word decides
	}
	low := strings.ToLower(earlier)
	for _, b := range []string{" rather than ", " instead of ", " because ", " since ", ", so "} {
		if i := strings.Index(low, b); i >= 0 {
			low = low[:i]
		}
	}
	ew := fields(low)
	for _, w := range obj {
		if !containsStem(ew, w) {
			return false
		}
	}
	return true
}

// superseded drops the plans a later statement overrules: plans[i] goes
// when a plan after it, or one of the user's short replies after it,
// overrules it.
func superseded[T any](plans []T, text func(T) string, line func(T) int, later []lined) []T {
	var out []T
	for i, p := range plans {
		gone := false
		for j := i + 1; j < len(plans) && !gone; j++ {
			gone = line(plans[j]) > line(p) && len(fields(text(plans[j]))) > maxReply && overrules(text(plans[j]), text(p))
		}
		for _, l := range later {
			if gone {
				break
			}
			gone = l.line > line(p) && overrules(l.text, text(p))
		}
		if !gone {
			out = append(out, p)
		}
	}
	return out
}

// maxReply is the most words of a sentence that refuses outright.
const maxReply = 6

// lined is a user's prompt with its transcript line.
type lined struct {
	text string
	line int
}

func fields(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' && r != '’' && r != '_'
	})
}

// preposition: a word that makes what follows a place, a time or a
// means.
func preposition(w string) bool {
	switch w {
	case "in", "on", "at", "for", "with", "from", "to", "into", "during", "before", "after", "via", "by", "inside", "within":
		return true
	}
	return false
}

func hasRun(ws, run []string) bool {
	for k, r := range run {
		if ws[k] != r {
			return false
		}
	}
	return true
}

// content: a word that can name a thing: four letters or more, not one
// of the words every sentence has.
func content(w string) bool {
	if len(w) < 4 {
		return false
	}
	switch w {
	case "that", "this", "with", "from", "have", "just", "will", "would", "should", "could", "there", "their", "them",
		"then", "than", "when", "what", "which", "into", "also", "only", "some", "more", "need", "needs", "want", "keep",
		"make", "sure", "yet", "now", "here", "being", "been", "were", "does", "done", "your", "anything", "anyone", "every":
		return false
	}
	return true
}

func sameStem(a, b string) bool {
	n := min(5, len(a), len(b))
	return n >= 4 && a[:n] == b[:n]
}

func containsStem(ws []string, w string) bool {
	for _, x := range ws {
		if content(x) && sameStem(x, w) {
			return true
		}
	}
	return false
}
