package checkpoint

import (
	"slices"
	"strings"
	"unicode"

	"github.com/cairn-agent/cairn/internal/ledger"
	"github.com/cairn-agent/cairn/internal/text"
	"github.com/cairn-agent/cairn/internal/transcript"
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
// m keeps what it parses (memo.go).
func superseded[T any](plans []T, text func(T) string, line func(T) int, later []lined, m *Memo) []T {
	var out []T
	for i, p := range plans {
		gone := false
		for j := i + 1; j < len(plans) && !gone; j++ {
			gone = line(plans[j]) > line(p) && m.longer(text(plans[j])) && m.overrule(text(plans[j]), text(p))
		}
		for _, l := range later {
			if gone {
				break
			}
			gone = l.line > line(p) && m.overrule(l.text, text(p))
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

// A user who overrules the agent's choice tersely answers it with the
// value they want instead: "no. 14." after "I'll go with a cutoff of 21
// days", "nah, 500ms", "make it 3 retries", or the bare "14 days". The
// refusal names nothing the choice said, so overrules does not see it;
// left as it was, the agent's choice reads as the one in force.

// userCall is the value of a prompt that overrules the choice before it
// tersely, "" when the prompt does not. bare says the prompt was the
// value alone, with no refusal: only a figure counts then.
func userCall(prompt string) (value string, bare bool) {
	ss := callSentences(prompt)
	if len(ss) == 0 {
		return "", false
	}
	first := ss[0]
	ws := strings.Fields(strings.ToLower(first))
	lead := strings.Trim(ws[0], ",.!;:")
	switch {
	case refusal(lead) && len(ws) == 1 && len(ss) > 1 && valueLike(ss[1]):
		return ss[1], false // "no. 14. ops can only act ..."
	case refusal(lead) && len(ws) > 1:
		rest := strings.TrimSpace(first[strings.Index(strings.ToLower(first), ws[0])+len(ws[0]):])
		rest = strings.TrimSpace(strings.TrimLeft(rest, ",.;:—- "))
		rest = withoutCallVerb(rest)
		if valueLike(rest) {
			return rest, false // "no, 14", "nah, make it 500ms"
		}
	case len(ws) > 2 && (ws[0] == "make" && ws[1] == "it" || ws[0] == "let's" && (ws[1] == "do" || ws[1] == "use") || ws[0] == "go" && ws[1] == "with"):
		if v := withoutCallVerb(first); valueLike(v) {
			return v, false // "make it 3 retries"
		}
	case valueLike(first) && strings.ContainsAny(first, "0123456789"):
		return first, true // "14 days."
	}
	return "", false
}

// callSentences splits a prompt into its sentences, without their end
// marks: "no. 14. ops ..." gives "no", "14", "ops ...".
func callSentences(s string) []string {
	var out []string
	for _, sn := range strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '!' || r == '?' || r == ';' }) {
		for _, part := range strings.Split(sn, ". ") {
			if part = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(part), ".")); part != "" {
				out = append(out, part)
			}
		}
	}
	return out
}

// refusal: the word a terse reply turns the choice down with.
func refusal(w string) bool {
	switch w {
	case "not", "actually", "instead":
		return true
	}
	return ledger.FlatNo(w)
}

// withoutCallVerb drops the words that only ask for the value ("make
// it", "use", "go with", "let's do"): what is left is the value.
func withoutCallVerb(s string) string {
	low := strings.ToLower(s)
	for _, p := range []string{"make it ", "let's do ", "let's use ", "let's go with ", "go with ", "use ", "do ", "rather ", "instead "} {
		if strings.HasPrefix(low, p) {
			return strings.TrimSpace(s[len(p):])
		}
	}
	return s
}

// valueLike: a value, not a sentence: at most three words ("14", "14
// days", "exponential backoff").
func valueLike(s string) bool {
	n := len(strings.Fields(s))
	return n >= 1 && n <= 3 && !strings.ContainsAny(s, "?")
}

// overruledByUser rewrites each decision that the user's next prompt
// overrules tersely as the user's call. A decision is the agent's
// just-stated choice when the prompt is the first after it and the agent
// asked nothing in between (asked: the lines of the agent's questions):
// a bare "1e-4" after "Want me to change the learning rate?" answers the
// question, not the batch size chosen before it.
func overruledByUser(decisions []transcript.Note, prompts []lined, asked questions) []transcript.Note {
	out := slices.Clone(decisions)
	for i, d := range out {
		next := -1
		for k, p := range prompts {
			if p.line > d.Line {
				next = k
				break
			}
		}
		if next < 0 {
			continue
		}
		// The choice just stated: no later decision before the prompt,
		// and no question of the agent's that the prompt answers.
		if i+1 < len(out) && out[i+1].Line < prompts[next].line {
			continue
		}
		if asked.between(d.Line, prompts[next].line) || asked.answeredBefore(prompts[next].line, d.Line) {
			continue
		}
		v, bare := userCall(prompts[next].text)
		if v == "" {
			continue
		}
		if t, ok := asUserCall(d.Text, v, prompts[next].text, bare); ok {
			out[i].Text = t
		}
	}
	return out
}

// questions are the agent's questions to the user, answered since or
// not.
type questions []ledger.Item

func agentAsked(items []ledger.Item) questions {
	var qs questions
	for _, it := range items {
		if it.Kind == ledger.Question && it.By == ledger.ByAssistant && !it.Elsewhere {
			qs = append(qs, it)
		}
	}
	return qs
}

// between says the agent asked something after line from and before
// line to.
func (qs questions) between(from, to int) bool {
	return slices.ContainsFunc(qs, func(q ledger.Item) bool {
		return q.Line > from && q.Line < to || q.FirstLine > from && q.FirstLine < to
	})
}

// leanOn says the agent asked, in the text at line, a question that
// leans on what it said before it: one that names next to nothing of
// its own ("Which one is right?", "OK to go ahead?"), so the sentences
// before it are its premise ("the docs say it returns a NamedTuple, the
// code builds a struct"), not a report of the work done.
func (qs questions) leanOn(line int) bool {
	return slices.ContainsFunc(qs, func(q ledger.Item) bool {
		if q.Line != line && q.FirstLine != line {
			return false
		}
		own := 0
		for _, w := range fields(q.Text) {
			if content(w) && !asking(w) {
				own++
			}
		}
		return own <= 1 && !strings.ContainsAny(q.Text, "`_/0123456789")
	})
}

// askedOnlyAt says every question the agent asked from line to before
// line to, and every one the prompt at to answered, was asked at line:
// in the text that stated what is judged ("..., I could run them in
// parallel. Shall I?").
func (qs questions) askedOnlyAt(line, to int) bool {
	for _, q := range qs {
		asked := q.Line >= line && q.Line < to || q.FirstLine >= line && q.FirstLine < to
		answered := q.Closed != nil && q.Closed.By == ledger.ClosedByAnswer && q.Closed.Line == to
		if (asked || answered) && q.Line != line && q.FirstLine != line {
			return false
		}
	}
	return true
}

// namesIn says said shares a content word (or its stem) with s.
func namesIn(said, s string) bool {
	ws := fields(s)
	for _, w := range fields(said) {
		if !content(w) {
			continue
		}
		for _, x := range ws {
			if content(x) && sameStem(w, x) {
				return true
			}
		}
	}
	return false
}

// leadSentence is a prompt's first sentence (to ". ", "? ", "! " or a
// line's end): where a flat no names what it refuses.
func leadSentence(p string) string {
	p = strings.TrimSpace(p)
	end := len(p)
	for _, b := range []string{". ", "? ", "! ", "\n"} {
		if i := strings.Index(p, b); i >= 0 && i < end {
			end = i
		}
	}
	return p[:end]
}

// asking: a word that only makes a question of a sentence.
func asking(w string) bool {
	switch w {
	case "where", "whose", "whom", "shall", "might", "okay", "fine", "ahead", "instead", "rather", "prefer", "either":
		return true
	}
	return false
}

// answeredAt says the prompt at line answered a question of the agent's.
func (qs questions) answeredAt(line int) bool {
	return slices.ContainsFunc(qs, func(q ledger.Item) bool {
		return q.Closed != nil && q.Closed.By == ledger.ClosedByAnswer && q.Closed.Line == line
	})
}

// answeredBefore says the prompt at line answered a question the agent
// asked before line before: "no. 1.4 is frozen" answers "cherry-pick it
// onto release/1.4?", not the choice of 60 ticks stated after it.
func (qs questions) answeredBefore(line, before int) bool {
	return slices.ContainsFunc(qs, func(q ledger.Item) bool {
		return q.Closed != nil && q.Closed.By == ledger.ClosedByAnswer && q.Closed.Line == line && q.Line < before
	})
}

// asUserCall writes the choice as the user's: the figure the agent chose
// replaced by the user's ("A cutoff of 14 days — the user's call (“no.
// 14. ops …”), not 21."). A value that is no figure, or a choice with
// none to replace, is told as the user's words over the agent's choice.
// A bare figure overrules only a choice that has a figure.
func asUserCall(choice, value, prompt string, bare bool) (string, bool) {
	main := withoutLead(choice)
	low := strings.ToLower(main)
	for _, b := range []string{" since ", " because ", ": ", ", so ", " — ", "; ", " as it ", ", which "} {
		if i := strings.Index(low, b); i > 0 {
			main, low = main[:i], low[:i]
		}
	}
	main = strings.TrimRight(main, ".,")
	said := "“" + text.ClipLine(prompt, 200) + "”"
	newFig, oldFig := firstFigure(value), -1
	for k, w := range strings.Fields(main) {
		if firstFigure(w) != "" {
			oldFig = k
			break
		}
	}
	if newFig != "" && oldFig >= 0 {
		ws := strings.Fields(main)
		old := firstFigure(ws[oldFig])
		if old == newFig {
			return "", false // the user said the same figure
		}
		var was string
		ws[oldFig], was = withFigure(ws[oldFig], old, figureWord(value, newFig))
		return capitalise(withoutChooser(strings.Join(ws, " "))) + " — the user's call (" + said + "), not " + was + ".", true
	}
	if bare {
		return "", false
	}
	return "The user's call: " + said + ", over your choice: “" + text.ClipLine(main, 120) + "”.", true
}

// withoutLead drops a short label that heads a plan ("My plan: backfill
// in batches of 5,000", "Decision: keep it"): what follows it is the
// choice, where the label's colon would otherwise end it.
func withoutLead(s string) string {
	head, rest, ok := strings.Cut(s, ": ")
	if !ok || len(strings.Fields(head)) > 2 || strings.ContainsAny(head, "0123456789`") {
		return s
	}
	return rest
}

// overruledPlans rewrites each finding that proposes a plan ("My plan:
// backfill in batches of 5,000") and that the user's next prompt
// overrules tersely ("nah, 500.") as the user's call, as overruledByUser
// does for decisions: listed as it was, the overruled figure reads as
// the plan in force.
func overruledPlans(findings []transcript.Note, said []lined, asked questions) []transcript.Note {
	var at []int
	var plans []transcript.Note
	for i, f := range findings {
		if proposes(f.Text) {
			at, plans = append(at, i), append(plans, f)
		}
	}
	if len(plans) == 0 {
		return findings
	}
	out := slices.Clone(findings)
	for k, p := range overruledByUser(plans, said, asked) {
		out[at[k]] = p
	}
	return out
}

// firstFigure is the first number written in s ("21" of "21-day",
// "0.5" of "0.5s"), "" when there is none.
func firstFigure(s string) string {
	for i := 0; i < len(s); i++ {
		if !isDigitByte(s[i]) {
			continue
		}
		j := i
		for j < len(s) && (isDigitByte(s[j]) || (s[j] == '.' || s[j] == ',') && j+1 < len(s) && isDigitByte(s[j+1])) {
			j++
		}
		return s[i:j]
	}
	return ""
}

// figureWord is the word of value that carries its figure, with its
// unit ("500ms"), or the bare figure.
func figureWord(value, fig string) string {
	for _, w := range strings.Fields(value) {
		if strings.Contains(w, fig) {
			return strings.Trim(w, ".,;:()")
		}
	}
	return fig
}

// withFigure puts the user's figure in place of the agent's in a word:
// a bare figure keeps the word's unit ("21-day" → "14-day"); one with a
// unit of its own replaces the agent's unit too ("2s" → "500ms"). It
// returns the word and what it replaced.
func withFigure(word, old, fig string) (string, string) {
	i := strings.Index(word, old)
	end := i + len(old)
	if fig != firstFigure(fig) {
		for end < len(word) && unicode.IsLetter(rune(word[end])) {
			end++
		}
	}
	return word[:i] + fig + word[end:], word[i:end]
}

// withoutChooser drops the agent's "I'll go with" from a choice it no
// longer makes: what stays is what was chosen.
func withoutChooser(s string) string {
	low := strings.ToLower(s)
	for _, p := range []string{"i'll go with ", "i will go with ", "we'll go with ", "going with ", "i'll use ", "we'll use ", "i'll pick ", "i'll keep ", "i'll stick with ", "let's go with ", "let's use "} {
		if strings.HasPrefix(low, p) {
			return s[len(p):]
		}
	}
	return s
}

func capitalise(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

// A proposal the user turned down in a longer prompt ("do the policy
// change, that's approved. not the maxmemory bump though, the box only
// has 16G") is neither refused outright nor replaced: listed as it was,
// it reads as the plan. turnedDown finds the user's refusal that names
// what a proposal proposed, so the proposal is shown with it.

// proposes says a statement proposes a course rather than reports one.
func proposes(s string) bool {
	l := " " + strings.ToLower(s)
	for _, c := range []string{"proposal", " i'll ", " i will ", " we could ", " i could ", " i suggest", " i'd ", " let's ", " plan:", " i propose", " we should ", " i can "} {
		if strings.Contains(l, c) {
			return true
		}
	}
	return false
}

// turnedDown is the clause of a prompt after line that refuses what the
// proposal s names ("not the maxmemory bump though", "don't ship the
// timeout bump"), "" when none does.
func turnedDown(s string, line int, said []lined) string {
	if !proposes(s) {
		return ""
	}
	parts := proposalParts(s)
	for _, p := range said {
		if p.line <= line {
			continue
		}
		for _, sn := range callSentences(p.text) {
			for _, cl := range strings.Split(sn, ",") {
				ws := fields(cl)
				for len(ws) > 0 && (ws[0] == "but" || ws[0] == "and" || ws[0] == "hold" || ws[0] == "on" || ws[0] == "oh") {
					ws = ws[1:]
				}
				if len(ws) < 2 || !(ws[0] == "not" || ws[0] == "don't" || ws[0] == "dont" || ws[0] == "no" || ws[0] == "never") {
					continue
				}
				for _, w := range ws[1:] {
					if len(w) >= 5 && content(w) && parts[w] {
						return strings.TrimSpace(cl)
					}
				}
			}
		}
	}
	return ""
}

// proposalParts are the words of a proposal and the parts of its
// compound names ("proxy_read_timeout" gives timeout too).
func proposalParts(s string) map[string]bool {
	out := make(map[string]bool)
	for _, w := range fields(s) {
		out[w] = true
		for _, p := range strings.FieldsFunc(w, func(r rune) bool { return r == '_' || r == '-' || r == '.' }) {
			out[p] = true
		}
	}
	return out
}

// withRefusal shows a proposal with the user's refusal of it.
func withRefusal(s, refusal string) string {
	return strings.TrimRight(s, " ") + " (the user turned this down: “" + text.ClipLine(refusal, 120) + "”)"
}

// withUserRefusal shows a statement (shown as s, said as said at line)
// with what the user said against it after: the refusal that names what
// it proposed, or the next prompt's taking back of what it reports done
// or planned.
func withUserRefusal(s, said string, line int, prompts []lined) string {
	if r := turnedDown(said, line, prompts); r != "" {
		return withRefusal(s, r)
	}
	if r := takenBack(said, line, prompts); r != "" {
		return strings.TrimRight(s, " ") + " (the user took this back: “" + text.ClipLine(r, 120) + "”)"
	}
	return s
}

// takenBack is the prompt right after line when it takes back ("wait
// no. take that out, ...") what s reports the agent did or plans to do
// ("Added `ALTER TABLE ... DROP COLUMN` as the last step"), "" otherwise.
// Listed as it was, the step reads as part of the work.
func takenBack(s string, line int, prompts []lined) string {
	if !proposes(s) && !ownDoing(s) {
		return ""
	}
	for _, p := range prompts {
		if p.line > line {
			return ledger.TakenBack(p.text)
		}
	}
	return ""
}

// ownDoing says a statement reports what the speaker did, by its first
// verb: "Added the index.", "I've removed the retry.", "Moved X to Y".
func ownDoing(s string) bool {
	ws := fields(withoutLead(s))
	if len(ws) > 1 && (ws[0] == "i" || ws[0] == "i've" || ws[0] == "we" || ws[0] == "we've") {
		ws = ws[1:]
	}
	if len(ws) < 2 {
		return false
	}
	switch w := ws[0]; w {
	case "set", "put", "made", "wrote", "took", "cut", "split", "rewrote", "reset":
		return true
	default:
		return len(w) > 4 && strings.HasSuffix(w, "ed") && !strings.HasSuffix(w, "eed")
	}
}

// A theory or a plan the user answers with a flat "no" ("no. the
// deadline isn't the bug, the unsubscribe path is") names nothing the
// refusals above look for: no value to put in its place, no word it
// turns down. Listed as it was, the rejected guess reads as what was
// found.

// rejected is the user's next prompt after line when it opens with a
// flat no and s is a guess or a plan the agent put forward there,
// asking nothing with it ("no" would answer the question); "" otherwise.
func rejected(s string, line int, prompts []lined, asked questions) string {
	if !proposes(s) && !guesses(s) {
		return ""
	}
	for _, p := range prompts {
		if p.line <= line {
			continue
		}
		if !saysNo(p.text) {
			return ""
		}
		if asked.between(line-1, p.line) || asked.answeredAt(p.line) {
			// "no. 1.4 is frozen" answers "cherry-pick it onto 1.4?",
			// unless the question was asked with the proposal ("..., I
			// could run them in parallel. Shall I?") and the sentence
			// of the no names the proposal ("no, not in parallel").
			if !proposes(s) || !asked.askedOnlyAt(line, p.line) || !namesIn(leadSentence(p.text), s) {
				return ""
			}
		}
		return p.text
	}
	return ""
}

// guesses says a statement puts forward what the speaker believes
// rather than what was shown: "My guess is the deadline is too tight",
// "it looks timing-related", "probably a stale cache".
func guesses(s string) bool {
	l := " " + strings.ToLower(strings.ReplaceAll(s, "’", "'")) + " "
	for _, c := range []string{" my guess", " i guess ", " i think ", " i suspect ", " i believe ", " my theory", " my bet ",
		" probably ", " likely ", " looks like ", " seems ", " might be ", " must be ", " presumably "} {
		if strings.Contains(l, c) {
			return true
		}
	}
	return false
}

// saysNo says a prompt opens with a flat refusal: its first clause is
// "no", "nope", "wrong", "not quite", "that's not it"...
func saysNo(prompt string) bool {
	first := strings.ToLower(strings.ReplaceAll(strings.TrimSpace(prompt), "’", "'"))
	if i := strings.IndexAny(first, ".,;:!—\n"); i >= 0 {
		first = first[:i]
	}
	switch strings.TrimSpace(first) {
	case "wrong", "incorrect", "not quite", "not really", "that's wrong", "that's not it", "not it":
		return true
	}
	// "no", or the same word of users who mix in their own language
	// ("non, pas de -Parallel", "Nein, kein alpine").
	return ledger.FlatNo(strings.TrimSpace(first))
}

// withRejection shows a statement with the flat no the user answered it
// with. A guess the user said no to is not restated: it was wrong, and
// the no says what it was about ("no. not org. reporter is on 27.2"); a
// plan is kept, with its no, so that it is not proposed again.
func withRejection(s, no string, guess bool) string {
	if guess {
		return "A guess of yours the user ruled out: “" + text.ClipLine(no, 200) + "”"
	}
	return strings.TrimRight(s, " ") + " (the user said no to this: “" + text.ClipLine(no, 160) + "”)"
}

// guessOnly says a statement puts forward a cause it believes and
// proposes nothing: "my guess is", "I suspect", "probably". "I think the
// cleanest is a separate module" recommends: it is a plan.
func guessOnly(s string) bool {
	if proposes(s) {
		return false
	}
	l := " " + strings.ToLower(strings.ReplaceAll(s, "’", "'")) + " "
	for _, c := range []string{" my guess", " i suspect ", " my theory", " my bet ", " probably ", " presumably ", " might be ", " must be "} {
		if strings.Contains(l, c) {
			return true
		}
	}
	return false
}
