package transcript

import (
	"slices"
	"strings"
	"time"

	"github.com/cairn-agent/cairn/internal/text"
)

// assistantText keeps the latest texts and, with full, the decisions and
// findings in them and what they say of the open thread. In full, the
// text is cleaned of secrets as a whole first, so that nothing taken out
// of it (a line of a PEM block, a sentence after "Authorization:") can
// escape the redactor's view of its context. The light path keeps only
// the latest texts, in memory (the head does not save them), cleaned at
// the end of the update that brought them (cleanTexts).
func (s *Session) assistantText(body string, ts time.Time, line int, full bool) {
	if full {
		s.said(analyse(body), ts, line)
		return
	}
	body = strings.TrimSpace(body)
	if body == "" {
		return
	}
	s.lastText(body, ts, line)
	s.rawTexts = true
}

// saying is what a full read takes from an assistant's text before it
// folds it into the session: the text cleaned, its decisions and
// findings. Working it out needs nothing of the session, so the parallel
// read does it on its workers (parallel.go).
type saying struct {
	body      string // cleaned and trimmed; "" for a text with nothing in it
	decisions []string
	findings  []string
}

// analyse works out what an assistant's text (unescaped) says.
func analyse(body string) saying {
	body = strings.TrimSpace(clean(body))
	if body == "" {
		return saying{}
	}
	d := Decisions(body)
	return saying{body: body, decisions: d, findings: findings(body, d)}
}

// said folds an analysed assistant text into the session (full).
func (s *Session) said(a saying, ts time.Time, line int) {
	if a.body == "" {
		return
	}
	s.lastText(a.body, ts, line)
	s.Ledger.Assistant(s.NumTurns(), line, ts, a.body)
	for _, d := range a.decisions {
		s.Decisions = append(s.Decisions, Note{Time: ts, Line: line, Text: d})
	}
	if len(s.Decisions) > maxDecisions {
		s.Decisions = append(s.Decisions[:0], s.Decisions[len(s.Decisions)-maxDecisions:]...)
	}
	for _, f := range a.findings {
		s.Findings = append(s.Findings, Note{Time: ts, Line: line, Text: f})
	}
	if len(s.Findings) > maxFindings {
		s.Findings = append(s.Findings[:0], s.Findings[len(s.Findings)-maxFindings:]...)
	}
}

// lastText keeps body as the latest text.
func (s *Session) lastText(body string, ts time.Time, line int) {
	s.LastTexts = append(s.LastTexts, Note{Time: ts, Line: line, Text: text.Truncate(body, maxTextBytes)})
	if len(s.LastTexts) > maxLastTexts {
		s.LastTexts = append(s.LastTexts[:0], s.LastTexts[len(s.LastTexts)-maxLastTexts:]...)
	}
}

// Decisions picks the sentences of an assistant's text that state a choice
// and its reason ("I'll use X because Y", "X rather than Y", "Decision:
// ..."). It is a heuristic on wording: it prefers missing a decision to
// filling a checkpoint with chatter.
func Decisions(body string) []string {
	// Every decision needs a reason, an alternative or the word itself:
	// most texts have none and are not split into sentences at all. The
	// gate is case-sensitive on purpose (cheap, and the words are nearly
	// always written in lower case or capitalised).
	if !decisionGate().in(body) { // gateCues and refusalGate, in one pass
		return nil
	}
	var out []string
	sents := Sentences(body)
	// listed is set after a lead-in that announces decisions ("Two
	// decisions in it:"): the list items after it are those decisions.
	listed := false
	for i, sent := range sents {
		l := strings.ToLower(sent)
		item, isItem := listItem(sent)
		if listed && isItem {
			out = append(out, text.Truncate(item, maxNoteBytes))
			continue
		}
		listed = strings.HasSuffix(l, ":") && containsAny(l, []string{"decision", "decided", " chose", "choices"})
		if isItem {
			sent, l = item, strings.ToLower(item)
		}
		explicit := strings.HasPrefix(strings.TrimLeft(l, "*#-> "), "decision")
		chose := containsAny(l, decisionCues) || containsAny(" "+l, chooserCues) || imperative(l)
		// "X rather than Y" is a choice when someone chose: "so I would
		// stop here rather than chase the last megabytes", not "a thunk
		// leak rather than data that must be kept".
		alt := containsAny(l, alternativeCues) && chose
		switch {
		case explicit || alt || ((containsAny(l, decisionCues) || commits(l)) && containsAny(l, reasonCues)):
			out = append(out, text.Truncate(sent, maxNoteBytes))
		case containsAny(l, decisionCues) && i+1 < len(sents) && givesReason(sents[i+1]):
			// The reason in the next sentence: "The smaller change is to
			// switch to Data.Map.Strict. That keeps the interface as is."
			out = append(out, text.Truncate(sent+" "+sents[i+1], maxNoteBytes))
		case setsAside(l):
			// A course taken over the one named after it, with its
			// reason: "I'm putting it back as a required field, not an
			// optional one: optional would force a fallback into 11 call
			// sites".
			out = append(out, text.Truncate(sent, maxNoteBytes))
		case refuses(l) && (containsAny(l, reasonCues) || strings.Contains(l, ": ")):
			// A course the speaker did not take, with its reason: "I did
			// not go to 20.x: from 20.0 the chart ships ...".
			out = append(out, text.Truncate(sent, maxNoteBytes))
		case weighed(l) && strings.Contains(l, ", but "):
			// An option weighed and turned down, with its reason: "I
			// thought of a cache, but the data changes every second."
			out = append(out, text.Truncate(sent, maxNoteBytes))
		case weighed(l) && i+1 < len(sents) && turnsDown(sents[i+1]):
			// The same over two sentences: "I did consider rewriting it
			// as a stream. But the dashboard imports it, so ..."
			out = append(out, text.Truncate(sent+" "+sents[i+1], maxNoteBytes))
		}
	}
	return out
}

// listItem returns a bulleted sentence without its bullet ("- x" → "x").
func listItem(sent string) (string, bool) {
	for _, b := range []string{"- ", "* ", "• "} {
		if rest, ok := strings.CutPrefix(sent, b); ok {
			return strings.TrimSpace(rest), true
		}
	}
	return sent, false
}

// refuses says whether a sentence (lower case) opens with the speaker
// not taking a course: "i did not go to 20.x", "we won't add a cache",
// "i'm leaving the hint out".
func refuses(l string) bool {
	t := strings.TrimLeft(l, "*#->0123456789.) ")
	for _, who := range []string{"i'm ", "i’m ", "i am ", "we're ", "we’re ", "we are "} {
		if rest, ok := strings.CutPrefix(t, who); ok && leavesOut(rest) {
			return true
		}
	}
	for _, who := range []string{"i ", "we "} {
		if rest, ok := strings.CutPrefix(t, who); ok {
			return hasPrefixAny(rest, []string{"did not ", "didn't ", "won't ", "will not ", "chose not ", "decided not ",
				"decided against ", "am not going ", "are not going ", "kept away ", "stayed away ", "avoided "})
		}
	}
	return false
}

// leavesOut says whether what follows "I'm" leaves something out:
// "leaving the hint out of the query", "skipping the arm64 job", "not
// adding a cache". "leaving it for later" puts work off; "not seeing
// it" reports.
func leavesOut(rest string) bool {
	w, after, _ := strings.Cut(rest, " ")
	switch w {
	case "leaving", "keeping":
		ws := strings.Fields(after)
		for _, x := range ws[:min(len(ws), 5)] {
			if strings.Trim(x, ".,;:") == "out" {
				return true
			}
		}
	case "skipping", "omitting":
		return true
	case "not":
		v, _, _ := strings.Cut(after, " ")
		return len(v) > 5 && strings.HasSuffix(v, "ing") && v != "seeing" && v != "getting" && v != "finding" && v != "sure"
	}
	return false
}

// commits says whether a sentence (lower case) is the speaker committing
// to a course ("I'll dedupe with a key per message", "We will pin it",
// "Use X"): with a reason it is a decision, whatever its verb.
func commits(l string) bool {
	t := strings.TrimLeft(l, "*#->0123456789.) ")
	return hasPrefixAny(t, []string{"i'll ", "i will ", "we'll ", "we will ", "let's "}) || imperative(l)
}

// setsAside says whether a sentence (lower case) takes a course in the
// first person over another it names after ", not a", and gives its
// reason after that: "I'm making it required, not an optional one:
// optional would ...". "It is a parser bug, not a config issue" takes
// no course.
func setsAside(l string) bool {
	t := strings.TrimLeft(l, "*#->0123456789.) ")
	if !hasPrefixAny(t, []string{"i'm ", "i am ", "we're ", "we are "}) && !commits(l) {
		return false
	}
	for _, c := range setAsideCues {
		if i := strings.Index(l, c); i > 0 {
			rest := l[i+len(c):]
			return strings.Contains(rest, ": ") || containsAny(rest, reasonCues)
		}
	}
	return false
}

// imperative says whether a sentence (lower case) starts with one of the
// verbs a plan is written with, or its -ing form: "Store times as UTC
// rather than local time.", "Switching the reader to X instead of Y".
func imperative(l string) bool {
	l = strings.TrimLeft(l, "*#->0123456789.) ")
	w, _, _ := strings.Cut(l, " ")
	if base, ok := strings.CutSuffix(w, "ing"); ok && len(base) >= 2 {
		// using → use, switching → switch, dropping → drop.
		n := len(base)
		return planVerb(base) || planVerb(base+"e") || (n >= 3 && base[n-1] == base[n-2] && planVerb(base[:n-1]))
	}
	return planVerb(w)
}

// planVerb says whether w is one of the verbs a plan is written with.
func planVerb(w string) bool {
	switch w {
	case "use", "store", "keep", "switch", "go", "pick", "prefer", "make", "put", "write", "return", "cache", "move",
		"add", "leave", "run", "call", "treat", "parse", "read", "send", "split", "merge", "drop", "skip", "stick", "replace":
		return true
	}
	return false
}

// weighed says whether a sentence (lower case) is the speaker weighing an
// option: "I considered ...", "we thought about ...", "one alternative
// would be ...". What follows it says whether the option was taken.
func weighed(l string) bool {
	return containsAny(" "+l, chooserCues) && containsAny(l, weighCues)
}

// turnsDown says whether a sentence opens by setting the option before it
// aside: "But that changes the type...", "However, it would break...".
func turnsDown(sent string) bool {
	l := strings.ToLower(strings.TrimLeft(sent, "*-> "))
	return hasPrefixAny(l, []string{"but ", "however", "that said", "yet ", "still, "})
}

// givesReason says whether a sentence gives the reason for the one before:
// it points back at it and says what it does for the work.
func givesReason(sent string) bool {
	l := strings.ToLower(sent)
	if !strings.HasPrefix(l, "that ") && !strings.HasPrefix(l, "this ") && !strings.HasPrefix(l, "it ") {
		return false
	}
	return containsAny(l, reasonCues) || containsAny(l, []string{" keeps ", " avoids ", " means ", " lets ", " saves ",
		" prevents ", " makes ", " is cheaper", " is safer", " is simpler", " is faster", " needs no ", " stays "})
}

var (
	decisionCues = []string{
		"decided", "decide to", "decision", "i'll use", "i will use", "we'll use", "we will use",
		"i'll go with", "going with", "go with", "went with", "chose ", "choosing", "opted", "switch to", "switching to",
		"switched to", "picked", "pick ", "settled on", "settle on", "prefer", "let's use", "i'll keep", "we'll keep",
		"i'll stick", "sticking with", "i'd ", "we'd ", "i would ", "we would ", "recommend", "suggest",
	}
	// chooserCues are the words of someone choosing, which make an
	// alternative a decision.
	chooserCues = []string{" i ", " i'", " we ", " we'", " let's ", " use ", " keep ", " go ", " should ", " would ", " will "}
	// ", so " after a course gives what it is for: "Keeping the span
	// outermost, so the trace shows the wait".
	reasonCues = []string{"because", "since ", "so that", ", so ", "to avoid", "due to", "given that", "which means", "otherwise"}
	// weighCues are the words of an option weighed rather than taken.
	weighCues       = []string{"consider", "thought about", "thought of", "tempted", "alternative", "option"}
	alternativeCues = []string{" instead of ", " rather than "}
	// setAsideCues name the course not taken after the one taken.
	setAsideCues = []string{", not a ", ", not an ", ", not the "}
	// refusalGate lets through the texts in which the speaker may turn a
	// course down (refuses).
	refusalGate = []string{"I did", "I didn", "We did", "We didn", "I won", "We won", "I will not", "We will not",
		"I chose", "We chose", "I decided", "We decided", "I am not", "We are not", "I kept", "We kept", "I stayed", "We stayed", "I avoided", "We avoided",
		"I'm leaving", "I'm keeping", "I'm skipping", "I'm omitting", "I'm not", "I’m leaving", "I’m keeping", "I’m skipping",
		"I’m omitting", "I’m not", "We're leaving", "We're keeping", "We're skipping", "We're omitting", "We're not", "We’re leaving",
		"We’re keeping", "We’re skipping", "We’re omitting", "We’re not", "I am leaving", "I am keeping", "I am skipping",
		"I am omitting", "We are leaving", "We are keeping", "We are skipping", "We are omitting"}
	// gateCues are lists, not one list appended together: that would be
	// built in every cairn process at start, the hooks' included.
	gateCues = [][]string{{"ecision", "Because", "Since ", "Rather than", "Instead of", "I'd ", "We'd ", "onsider", "Alternative", "Option"},
		reasonCues, alternativeCues, decisionCues, weighCues, setAsideCues}
)

// Findings picks the sentences of an assistant's text that state a
// concrete fact the session established: a measurement, what a file or a
// command showed, what was changed. They are declarative sentences that
// carry a datum (a number, a `code` span, a path), not intentions ("Let
// me run `go test`"), not questions. Numbers and names are what a summary
// rounds away and what the agent cannot get back without redoing the work.
//
// Two shapes count without a datum: a thing said not to do or be what one
// would expect ("The staging disk does not point at the staging bucket",
// "the formatter never reads the locale"), and a result that contradicts
// an expectation ("it turns out the cache is shared").
func Findings(body string) []string { return findings(body, nil) }

// findings is Findings without the sentences in decided, which are
// decisions: a finding is not joined to one.
func findings(body string, decided []string) []string {
	if !strings.ContainsAny(body, "0123456789`/") && !identifier(body) && !findingGate().in(strings.ToLower(body)) { // shapeGate
		return nil
	}
	var out []string
	for _, sent := range Sentences(body) {
		sent, _ = listItem(sent) // the restore gives it its own bullet
		if slices.Contains(decided, sent) {
			continue
		}
		if len(sent) < 24 || len(sent) > 500 || strings.HasSuffix(sent, "?") {
			continue
		}
		l := strings.ToLower(strings.TrimLeft(withoutLabel(sent), "*#->0123456789.) "))
		if hasPrefixAny(l, intentions) {
			continue
		}
		if !hasDatum(sent) && (strings.HasPrefix(sent, ">") || !denial(l) && !containsAny(l, contraryCues) && !namedFailure(sent, l)) {
			continue // a quotation states nothing found
		}
		// A short finding that leads into the next one on its line
		// ("Here is the snapshot: 48,213 customers. 45,990 have ...")
		// is its subject: apart, the budget would keep one without the
		// other.
		if n := len(out); n > 0 && len(out[n-1]) < shortFinding && len(out[n-1])+1+len(sent) <= maxNoteBytes &&
			strings.Contains(body, out[n-1]+" "+sent) {
			out[n-1] += " " + sent
			continue
		}
		out = append(out, text.Truncate(sent, maxNoteBytes))
	}
	return out
}

// shortFinding is the length under which a finding is joined to the next
// on its line.
const shortFinding = 64

var (
	// contraryCues mark a result against an expectation.
	contraryCues = []string{"turns out", "turned out", "it seems that", "contrary to", "unexpectedly", "surprisingly", "in fact,"}
	// denials are the verbs of "X does not Y": a negated auxiliary, or
	// "no longer"/"never" after a subject.
	denials = []string{" does not ", " doesn't ", " do not ", " don't ", " is not ", " isn't ", " are not ", " aren't ", " was not ", " wasn't ", " were not ", " weren't ", " cannot ", " can't ", " will not ", " won't ", " did not ", " didn't ", " has not ", " hasn't ", " have not ", " haven't ", " no longer ", " never "}
	// failureCues are the verbs of a report that something failed.
	failureCues = []string{" fails", " failed", " failing", " breaks", " broke ", " crashes", " panics", " errors out", " times out"}
	shapeGate   = [][]string{{"n't ", " not ", " never ", " no longer "}, contraryCues, denials, failureCues}
)

// namedFailure says whether a sentence (and l, its lower case) reports
// that something named in quotes failed: "\"pins follow the git branch\"
// fails: HEAD is detached in the test repo". A test's or a check's name
// is as exact as a number, and the sentence says what the output's
// summary does not: which one, and why.
func namedFailure(sent, l string) bool {
	if !containsAny(l, failureCues) {
		return false
	}
	switch first, _, _ := strings.Cut(l, " "); first {
	case "i", "i'm", "i've", "we", "we're", "you", "if", "when", "please", "let's":
		return false // the speaker's doing, a condition or a request
	}
	for _, q := range [][2]string{{"\"", "\""}, {"“", "”"}} {
		i := strings.Index(sent, q[0])
		if i < 0 {
			continue
		}
		j := strings.Index(sent[i+len(q[0]):], q[1])
		if j >= 3 && strings.Contains(strings.TrimSpace(sent[i+len(q[0]):i+len(q[0])+j]), " ") {
			return true
		}
	}
	return false
}

// denial says whether a sentence (lower case) says of a thing that it
// does not do or be something: the subject is not the speaker nor the
// listener ("I have not changed anything" is a report of one's own
// doing, not a fact found), and the sentence is not a request.
func denial(l string) bool {
	l = strings.ReplaceAll(l, "’", "'")
	i := -1
	for _, d := range denials {
		if j := strings.Index(" "+l, d); j >= 0 && (i < 0 || j < i) {
			i = j
		}
	}
	if i <= 0 {
		return false // no denial, or nothing before it to deny it of
	}
	subject := strings.Fields(l[:i])
	for len(subject) > 0 && (subject[0] == "so" || subject[0] == "and" || subject[0] == "but" || subject[0] == "now" || subject[0] == "then") {
		subject = subject[1:] // a connective: the subject is next
	}
	if len(subject) == 0 {
		return false
	}
	switch strings.Trim(subject[0], ",;:") {
	case "i", "i'm", "i've", "we", "we're", "we've", "you", "you're", "please", "let's", "if", "when", "maybe", "perhaps":
		return false
	}
	return true
}

// intentions open sentences about what the assistant is about to do,
// which the next text reports on.
var intentions = []string{
	"let me", "let's", "i'll", "i will", "i'm going", "i am going", "now i", "now let", "next,", "next i",
	"first,", "first i", "running", "checking", "looking", "reading", "i need to", "i should", "we need to",
	"i want to", "to do that", "now running", "time to",
}

func hasPrefixAny(s string, ps []string) bool {
	for _, p := range ps {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// hasDatum: a digit, a `code` span, a path-like word (a/b, a.go), or an
// identifier written as code is (order_outbox, kafkaTemplate,
// PaymentListener): a name the agent found, as exact as a number.
func hasDatum(s string) bool {
	if strings.ContainsAny(s, "0123456789") || strings.Count(s, "`") >= 2 {
		return true
	}
	if identifier(s) && !strings.HasSuffix(s, ":") {
		// A name in a line that leads into code or a list ("Now update
		// hooks.json in ReviewLive:") names what comes next, not a find.
		return true
	}
	for _, w := range strings.Fields(s) {
		w = strings.Trim(w, ".,;:()\"'")
		if i := strings.IndexByte(w, '/'); i > 0 && i < len(w)-1 && !strings.Contains(w, "://") {
			return true
		}
	}
	return false
}

// identifier says whether s holds a word written as code names are:
// letters joined by an underscore (snake_case), or a capital after a
// small letter (camelCase, PascalCase). A capitalised word, an acronym or
// a hyphenated word is prose.
func identifier(w string) bool {
	for i := 1; i+1 < len(w); i++ {
		if w[i] == '_' && isAlnum(w[i-1]) && isAlnum(w[i+1]) {
			return true
		}
	}
	for i := 1; i < len(w); i++ {
		if w[i] >= 'A' && w[i] <= 'Z' && w[i-1] >= 'a' && w[i-1] <= 'z' {
			return true
		}
	}
	return false
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// Sentences splits text into trimmed sentences and lines, leaving out code
// blocks, which hold no sentences worth keeping.
func Sentences(text string) []string {
	var out []string
	inCode := false
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") {
			inCode = !inCode
			continue
		}
		if inCode || t == "" {
			continue
		}
		start := 0
		span := false // inside a `code` span, whose "..." ends no sentence
		for i := 0; i < len(t); i++ {
			c := t[i]
			if c == '`' && (span || strings.IndexByte(t[i+1:], '`') >= 0) {
				span = !span // a stray backtick opens nothing
			}
			if !span && (c == '.' || c == '!' || c == '?') && (i+1 == len(t) || t[i+1] == ' ') && !elision(t, i) && !(start == 0 && c == '.' && optionLabel(t[:i])) {
				// Not after a single letter or a number ("e.g.", "v1.2").
				if sent := strings.TrimSpace(t[start : i+1]); len(sent) > 3 {
					out = append(out, sent)
				}
				start = i + 1
			}
		}
		if sent := strings.TrimSpace(t[start:]); len(sent) > 3 {
			out = append(out, sent)
		}
	}
	return out
}

// optionLabel says a line opens with the letter of an option ("A. Stay
// record-at-a-time", "**B.** Write the batch"): the label stays with its
// sentence, since "B" is how the user names the option they chose. A
// numbered list's "1." is left out as before: its items are more often
// steps done than options offered, and "Option 2:" keeps its label.
func optionLabel(head string) bool {
	l := strings.Trim(head, "*_ ")
	return len(l) == 1 && l[0] >= 'A' && l[0] <= 'H'
}

// withoutLabel is a sentence without the option label it opens with.
func withoutLabel(sent string) string {
	if i := strings.Index(sent, ". "); i > 0 && optionLabel(sent[:i]) {
		return sent[i+2:]
	}
	return sent
}

// elision says whether the "." at t[i] ends an ellipsis that stands
// between words ("SELECT ... FOR UPDATE", "from ... to"): something left
// out inside a sentence. An ellipsis that ends a sentence trails its word
// ("it hangs... Then"), and one at the end of the line ends it anyway.
func elision(t string, i int) bool {
	return i >= 3 && i+1 < len(t) && t[i-2:i+1] == "..." && t[i-3] == ' '
}

// cleanTexts cleans the latest texts that came in raw: no caller ever sees
// a Session with them uncleaned.
func (s *Session) cleanTexts() {
	if s.rawTexts {
		for i := range s.LastTexts {
			s.LastTexts[i].Text = keep(s.LastTexts[i].Text, maxTextBytes)
		}
		s.rawTexts = false
	}
	s.Ledger.Clean(func(t string) string { return keep(t, maxNoteBytes) })
}
