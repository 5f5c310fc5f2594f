package checkpoint

import (
	"bytes"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/cairn-agent/cairn/internal/meter"
	"github.com/cairn-agent/cairn/internal/outcome"
	"github.com/cairn-agent/cairn/internal/text"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// Tokens estimates the tokens a text costs the model. Paths, code and
// numbers tokenize denser than prose; 3.5 bytes a token errs on the side of
// counting too many, so a budget holds.
func Tokens(s string) int { return tokens(len(s)) }

// tokens is Tokens of a text of n bytes.
func tokens(n int) int { return int(math.Ceil(float64(n) / 3.5)) }

// section is a titled list whose items can be dropped to fit a budget.
type section struct {
	title string
	items []string
	// min is how many items the section keeps while others can still
	// shrink; dropFront drops the oldest (first) items first.
	min       int
	dropFront bool
	// prose renders the items as lines rather than a bulleted list.
	prose bool
	// repeats says the items are sentences or quotes that may repeat
	// what a section above already shows: such an item is left out.
	repeats bool
	// byNews drops first the item that tells least that the rest of the
	// text does not (see news), the oldest of equals: for statements whose
	// value does not follow their age.
	byNews bool
}

// dedupe leaves out of the sections that may repeat (repeats) each item
// whose text a section above it, or an earlier item, already shows: the
// user's answer quoted under what was settled and again among what the
// user said, a constraint that is a sentence of a quoted prompt, a
// finding that is the open item above it. A budget spent twice on one
// sentence is a budget that drops another.
//
// full, when not nil, holds the items before fit clipped them: an item
// is a repeat when the text above shows it whole, or shows its clip.
func dedupe(head string, secs []section, full [][]string) {
	var shown strings.Builder
	shown.WriteString(sameText(head))
	unquote := strings.NewReplacer("“", "", "”", "", "…", "")
	for i := range secs {
		kept := secs[i].items[:0]
		for j, it := range secs[i].items {
			c := core(it, unquote)
			repeat := len(c) >= minRepeat && strings.Contains(shown.String(), c)
			if !repeat && full != nil {
				w := core(full[i][j], unquote)
				repeat = len(w) >= minRepeat && strings.Contains(shown.String(), w)
			}
			if secs[i].repeats && repeat {
				continue
			}
			kept = append(kept, it)
			shown.WriteString("\n" + c)
		}
		secs[i].items = kept
	}
}

// leastNews is the index of the item of secs[i] that tells least beyond
// the rest of the text (the head, the other sections, the section's other
// items): a finding whose numbers the command lines above already give, a
// recap of open items, an acknowledgement, rather than the measurement or
// the cause found once and said nowhere else. The oldest of equals.
//
// The rest of the text holds a word of item j when any text but j holds
// it, so each text's words are counted once, and the counts kept as fit
// drops items (dropped): a word j shares with another text is counted
// more than once. A set of the rest's words for each item cost a fit on a
// long session most of a PreCompact hook.
func (x *newsIndex) leastNews(head string, secs []section, i int) int {
	if x.count == nil {
		x.count = make(map[string]int)
		for _, w := range x.ws.of(head).words {
			x.count[w]++
		}
		for _, s := range secs {
			for _, it := range s.items {
				for _, w := range x.ws.of(it).words {
					x.count[w]++
				}
			}
		}
	}
	best, low := 0, math.Inf(1)
	for j, it := range secs[i].items {
		if n := news(x.ws.of(it), func(w string) bool { return x.count[w] > 1 }); n < low {
			best, low = j, n
		}
	}
	return best
}

// newsIndex is what leastNews keeps between its calls in one fit: each
// text's words, and how many of the texts (the head, the items) hold
// each word, counted at the first call. The texts must not change after
// it but by the items dropped, which fit tells it of.
type newsIndex struct {
	ws    wordSets
	count map[string]int
}

// dropped takes an item that was left out off the counts.
func (x *newsIndex) dropped(it string) {
	if x.count == nil {
		return
	}
	for _, w := range x.ws.of(it).words {
		x.count[w]--
	}
}

// wordSets keeps what news reads of each text.
type wordSets map[string]*textWords

// textWords is what news reads of a text: its words (see words), as a
// list, and whether it denies something (negates).
type textWords struct {
	words   []string
	negates bool
}

func (ws wordSets) of(s string) *textWords {
	if t, ok := ws[s]; ok {
		return t
	}
	t := &textWords{words: slices.Collect(maps.Keys(words(s))), negates: negates(s)}
	ws[s] = t
	return t
}

// news says how much a text tells that known does not: first the numbers
// it alone gives (a measurement, a count, a version: what cannot be got
// back without redoing the work), then whether it says that something
// does not hold (what contradicts an expectation is what the model would
// otherwise assume), then the share of its other words that known does
// not hold.
func news(t *textWords, known func(string) bool) float64 {
	var all, unknown, numbers float64
	for _, w := range t.words {
		switch {
		case known(w):
		case len(w) >= 2 && numeric(w):
			numbers++
		default:
			unknown++
		}
		all++
	}
	if all == 0 {
		return 0
	}
	n := numbers + unknown/all
	if t.negates {
		n++
	}
	return n
}

// numeric says whether a word is a number or mostly one: "48,213",
// "9.4.8", "v0.7.0", "CRM-2318", "10442"; not a name that has digits in it
// ("0014_customer_first_last_name.py", "test_v2.py"), which says no more
// than the other words of its text.
func numeric(w string) bool {
	digits, letters := 0, 0
	for _, r := range w {
		switch {
		case unicode.IsDigit(r):
			digits++
		case unicode.IsLetter(r):
			letters++
		}
	}
	return digits > 0 && digits >= letters
}

// negates says whether a text denies something: "not", "no longer",
// "never", "doesn't", "without".
func negates(s string) bool {
	for _, w := range strings.Fields(strings.ToLower(s)) {
		w = strings.Trim(w, ".,;:()`\"'“”")
		switch {
		case w == "not" || w == "no" || w == "never" || w == "without" || w == "none" || w == "nothing" || w == "neither" || w == "nor" || w == "cannot":
			return true
		case strings.HasSuffix(w, "n't") || strings.HasSuffix(w, "n’t"):
			return true
		}
	}
	return false
}

// wordsOf is words without the numbers: what a text is about.
func wordsOf(s string) map[string]bool {
	out := words(s)
	for w := range out {
		if numeric(w) {
			delete(out, w)
		}
	}
	return out
}

// words are the distinct words of a text, lower case, that can carry
// content: four letters or more, or a digit (short function words say
// nothing about news).
func words(s string) map[string]bool {
	out := make(map[string]bool)
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '.' && r != '_' && r != '-' && r != '/' && r != ','
	}) {
		w = strings.Trim(w, ".,-/")
		if len(w) >= 4 || (w != "" && strings.ContainsAny(w, "0123456789")) {
			out[w] = true
		}
	}
	return out
}

// clipStatement is how long a statement stays when the budget is short.
const clipStatement = 240

// clipTight is how long any item stays when even the sections' minimums
// do not fit, before whole items go.
const clipTight = 160

// answered joins a question the agent asked and the user's answer into one
// item; clipItem shortens the question, not the answer.
const answered = " → the user: "

// clipItem clips an item to about n bytes. An answered question loses
// its question's tail first: what was settled is the answer ("no, leave
// it, Priya owns it"), while the agent's question ("Do you want me to
// look into it?", after a paragraph of its reasons) is its context, and
// clipped from the end it took the answer with it.
func clipItem(it string, n int) string {
	// "Asked first: “…”" keeps its label: the quote loses words.
	if i := strings.Index(it, ": “"); i > 0 && i < 24 && len(it) > n && !strings.Contains(it, answered) {
		return it[:i+2] + gist(it[i+2:], max(n-i-2, 40))
	}
	sep := answered
	q, a, ok := strings.Cut(it, sep)
	if !ok {
		sep = found
		q, a, ok = strings.Cut(it, sep)
	}
	if !ok || len(it) <= n {
		return gist(it, n)
	}
	a = gist(a, max(n*2/3, n-len(sep)-len(q)))
	return gist(q, max(n/4, n-len(sep)-len(a))) + sep + a
}

// found joins a question the user asked and what the agent found.
const found = " → you found: "

// minRepeat is the shortest text dedupe takes for a repeat: a path or a
// word found inside a longer text is not the same statement.
const minRepeat = 24

// core is an item's text as compared for repeats: without the label an
// open item starts with, quotation marks and a clip's ellipsis (what
// unquote takes out).
func core(it string, unquote *strings.Replacer) string {
	if strings.HasPrefix(it, "(") {
		if i := strings.Index(it, ") "); i > 0 && i < 40 {
			it = it[i+2:]
		}
	}
	it = unquote.Replace(it)
	return sameText(it)
}

// fit renders head, the sections and tail within budget tokens: the
// lowest-priority sections (last) shrink first, down to their minimum,
// then lose their minimum too, and as a last resort long items are cut.
//
// seen is what the model reads besides this text (the steering echoed
// after a /compact): what it tells is no news.
func fit(head string, secs []section, tail string, budget int, render renderer, seen string) string {
	whole := make([][]string, len(secs))
	for i := range secs {
		whole[i] = slices.Clone(secs[i].items)
	}
	dedupe(head, secs, nil)
	// Each step renders the text into the same buffer, to weigh it: a
	// long session's fit takes many steps, and a new string for each was
	// most of what its hook allocated.
	var buf bytes.Buffer
	over := func() bool {
		buf.Reset()
		render(&buf, head, secs, tail)
		return tokens(buf.Len()) > budget
	}
	news := newsIndex{ws: make(wordSets)}
	shrink := func(floor func(section) int) bool {
		for i := len(secs) - 1; i >= 0; i-- {
			if n := len(secs[i].items); n > floor(secs[i]) {
				if secs[i].byNews {
					j := news.leastNews(seen+"\n"+head, secs, i)
					news.dropped(secs[i].items[j])
					secs[i].items = slices.Delete(secs[i].items, j, j+1)
				} else if secs[i].dropFront {
					news.dropped(secs[i].items[0])
					secs[i].items = secs[i].items[1:]
				} else {
					news.dropped(secs[i].items[n-1])
					secs[i].items = secs[i].items[:n-1]
				}
				return true
			}
		}
		return false
	}
	// Over budget, the long statements (quoted answers, findings,
	// decisions) lose their tails before whole items go: the point of a
	// sentence is rarely in its last third.
	//
	// What dedupe left out as a repeat is weighed again against the
	// clipped text: a constraint said at the end of a long prompt was a
	// repeat of the prompt's quote, and is not once the clip cut it off.
	if over() {
		for i := range secs {
			secs[i].items = slices.Clone(whole[i])
			if secs[i].repeats {
				for j := range secs[i].items {
					secs[i].items[j] = clipItem(secs[i].items[j], clipStatement)
				}
			}
		}
		dedupe(head, secs, whole)
	}
	// Then the long items are capped, one at a time until the text fits:
	// the quotes first (the first ask, what the user also said, the last
	// messages), then the other sections from the lowest priority up. A
	// quote's words go before a decision or a finding does.
	capItems := func(n int) {
		for _, quotes := range []bool{true, false} {
			for i := len(secs) - 1; i >= 0; i-- {
				if quoted(secs[i].title) != quotes || n < clipStatement && secs[i].title == "Settled with the user" {
					// What the user settled was cut to its gist when
					// it was built; cut again, the answer goes.
					continue
				}
				for j, it := range secs[i].items {
					if len(it) <= n {
						continue
					}
					secs[i].items[j] = clipItem(it, n)
					if !over() {
						return
					}
				}
			}
		}
	}
	if over() {
		capItems(clipStatement)
	}
	for over() && shrink(func(s section) int { return s.min }) {
	}
	// Short of room with every section at its minimum: the long items
	// lose words before the sections lose their last items.
	if over() {
		capItems(clipTight)
	}
	for over() && shrink(func(section) int { return 0 }) {
	}
	for n := 200; over() && n >= 40; n /= 2 {
		for i := range secs {
			for j := range secs[i].items {
				secs[i].items[j] = clipItem(secs[i].items[j], n)
			}
		}
		head = text.Clip(head, n*2)
	}
	return buf.String()
}

// quoted says a section's items are mostly quotes of what was said, which
// the budget cuts words of first.
func quoted(title string) bool {
	switch title {
	case "Task", "The user also said (oldest first)", "Where things stood (your last messages, oldest first)":
		return true
	}
	return false
}

// A renderer writes head, the sections and tail as one text.
type renderer func(b *bytes.Buffer, head string, secs []section, tail string)

func renderMarkdownSections(b *bytes.Buffer, head string, secs []section, tail string) {
	b.WriteString(head)
	for _, s := range secs {
		if len(s.items) == 0 {
			continue
		}
		b.WriteString("\n\n## ")
		b.WriteString(s.title)
		b.WriteByte('\n')
		for i, it := range s.items {
			if i > 0 {
				b.WriteByte('\n')
			}
			if !s.prose {
				b.WriteString("- ")
			}
			b.WriteString(it)
		}
	}
	if tail != "" {
		b.WriteString("\n\n")
		b.WriteString(tail)
	}
	b.WriteByte('\n')
}

func renderSteerLines(b *bytes.Buffer, head string, secs []section, tail string) {
	b.WriteString(head)
	for _, s := range secs {
		if len(s.items) == 0 {
			continue
		}
		b.WriteString("\n- ")
		b.WriteString(s.title)
		b.WriteString(": ")
		for i, it := range s.items {
			if i > 0 {
				b.WriteString("; ")
			}
			b.WriteString(it)
		}
	}
	if tail != "" {
		b.WriteString("\n")
		b.WriteString(tail)
	}
	b.WriteByte('\n')
}

// Compaction describes the compaction a restore follows.
type Compaction struct {
	Trigger    string
	PreTokens  int64
	PostTokens int64
	// Steered says the client shows the model, after this compaction,
	// the steering (Steer) printed for it from this checkpoint: Claude
	// Code echoes PreCompact's output after a /compact. What that text
	// shows whole the restore does not repeat.
	Steered bool
}

// DefaultRestoreBudget is the restore's size in tokens unless configured.
const DefaultRestoreBudget = 1500

// Restore is the text injected into the first request after a compaction:
// what happened, then the working state by priority (task, constraints,
// open todos, files changed, last commands and errors, decisions, git,
// next steps), then where the full checkpoint is, within budget tokens.
func (c *Checkpoint) Restore(comp Compaction, budget int) string {
	if budget <= 0 {
		budget = DefaultRestoreBudget
	}
	what := fmt.Sprintf("This session was just compacted (%s", orDefault(comp.Trigger, "compaction"))
	if comp.PreTokens > 0 {
		what += fmt.Sprintf(", %s", meter.Thousands(comp.PreTokens))
		if comp.PostTokens > 0 {
			what += " → " + meter.Thousands(comp.PostTokens)
		}
		what += " tokens"
	}
	what += "). The summary above may have dropped specifics; this is the working state cairn saved just before it. Treat it as your own notes."
	secs := withoutInstructions(c.sections(true))
	seen := ""
	if comp.Steered {
		var steered []section
		if seen, steered = c.steer(); withoutSteered(secs, steered) {
			what += " Statements the /compact output above lists are not repeated here."
		}
	}
	head := "# Restored working state (cairn)\n\n" + what
	tail := fmt.Sprintf("Full checkpoint: `cairn show checkpoint %s`. Continue with the task above.", c.ref())
	return fit(head, secs, tail, budget, renderMarkdownSections, seen)
}

// withoutSteered leaves out of the restore's statements (open items,
// answers, decisions, findings, next steps) each one the steering shows
// whole, and says whether it left one out. After a /compact the model
// reads the steering too: the same decisions twice would cost the
// restore what it drops to fit (a finding, how an error was fixed). The
// working state proper (task, constraints, todos, files, commands,
// errors) stays whatever the steering shows: the restore must hold it on
// its own, since the steering may not have reached the model (a
// PreCompact killed after its announcement, a client that shows it not).
func withoutSteered(secs []section, steer []section) bool {
	steered := make(map[string]bool)
	for _, s := range steer {
		for _, it := range s.items {
			steered[sameText(it)] = true
		}
	}
	left := false
	for i := range secs {
		if !leansOnSteering(secs[i].title) {
			continue
		}
		kept := secs[i].items[:0]
		for _, it := range secs[i].items {
			if steered[sameText(it)] {
				left = true
				continue
			}
			kept = append(kept, it)
		}
		secs[i].items = kept
	}
	return left
}

// leansOnSteering reports whether the restore leaves the section's items
// to the steering echoed after a /compact when it shows them whole. A
// switch, not a map: a map literal is built at every process's start.
func leansOnSteering(title string) bool {
	switch title {
	case "Open items", "Settled with the user", "Decisions", "Figures worked out", "Findings (oldest first)", "Next steps", "Files read":
		return true
	}
	return false
}

// instructionsLead starts the task's line that quotes a /compact's
// instructions.
const instructionsLead = "At /compact the user asked: "

// withoutInstructions drops the /compact's instructions from the task:
// the steering and the restore would repeat what the client already gives
// the summariser and the model (the command's arguments), at the cost of
// what only cairn keeps.
func withoutInstructions(secs []section) []section {
	for i := range secs {
		if secs[i].title != "Task" {
			continue
		}
		items := slices.DeleteFunc(slices.Clone(secs[i].items), func(s string) bool { return strings.HasPrefix(s, instructionsLead) })
		secs[i].items, secs[i].min = items, min(secs[i].min, len(items))
	}
	return secs
}

// SteerBudget is the size of the steering text in tokens.
const SteerBudget = 400

// Steer is the text printed at PreCompact, which Claude Code appends to the
// summariser's instructions: the specifics the summary must keep.
func (c *Checkpoint) Steer() string {
	text, _ := c.steer()
	return text
}

// steer is Steer and its sections as fitted.
func (c *Checkpoint) steer() (string, []section) {
	head := "When you write the summary, keep these specifics from the conversation, verbatim where quoted (cairn):"
	if c.From > 0 {
		// The summariser has the whole conversation; these are from its
		// latest part only.
		head = "When you write the summary, keep these specifics from the latest part of the conversation, verbatim where quoted (cairn read only that part this time):"
	}
	secs := withoutInstructions(c.sections(false))
	// The summariser has the conversation: names and short quotes suffice.
	keep := map[string]bool{"Task": true, "Open items": true, "Settled with the user": true, "Findings (oldest first)": true, "Figures worked out": true, "User constraints": true, "Open todos": true, "Files changed": true,
		"Unresolved errors": true, "Decisions": true, "Next steps": true, "Files read": true}
	var steer []section
	for _, s := range secs {
		if keep[s.title] {
			for i := range s.items {
				s.items[i] = clipItem(s.items[i], 160)
			}
			steer = append(steer, s)
		}
	}
	empty := true
	for _, s := range steer {
		empty = empty && len(s.items) == 0
	}
	if empty {
		return "", nil // nothing worth steering towards
	}
	return fit(head, steer, "", SteerBudget, renderSteerLines, ""), steer
}

// ref names the checkpoint for `cairn show checkpoint`.
func (c *Checkpoint) ref() string {
	if c.ID > 0 {
		return fmt.Sprint(c.ID)
	}
	return "--session " + c.SessionID
}

// sections lists the checkpoint's content by priority. With forRestore,
// errors are split from commands as the restore shows them.
func (c *Checkpoint) sections(forRestore bool) []section {
	var secs []section
	var task []string
	if len(c.Task.Tickets) > 0 {
		task = append(task, "Ticket: "+strings.Join(c.Task.Tickets, ", "))
	}
	if c.Task.First != "" {
		task = append(task, "Asked first: "+quoteHead(c.Task.First))
	}
	// The user's words in between: answers, corrections, decisions made
	// in a sentence. Under a short budget the oldest go first, the
	// latest request never.
	var then []string
	for i, p := range c.Task.Latest {
		if i == len(c.Task.Latest)-1 {
			task = append(task, "Latest request: "+quote(p))
		} else {
			then = append(then, quote(p))
		}
	}
	if c.Instructions != "" {
		// The user's words, as the summariser got them. The full
		// checkpoint and a later session's resume show them; the
		// steering and the restore do not (withoutInstructions): the
		// client hands them to the summariser and puts them in the
		// first request after the compaction itself.
		task = append(task, instructionsLead+quote(c.Instructions))
	}
	secs = append(secs, section{title: "Task", items: task, min: len(task), prose: false})
	var open []string
	shown := make(map[string]bool)
	settled := make(map[string]bool)
	for _, a := range c.Answers {
		settled[sameText(a.Question)] = true
	}
	for _, o := range c.Open {
		// An offer the user agreed to is listed with its answer below.
		if q, _, ok := strings.Cut(o.Text, " → "); ok && o.By == "user" && settled[sameText(q)] {
			continue
		}
		// The user's requests are their prompts, quoted below, unless
		// the quote is cut before them: a request or a question in the
		// middle of a long prompt.
		if o.By == "user" && o.Kind == "request" && !strings.Contains(o.Text, "→") && c.quoteShows(o.Text) {
			continue
		}
		// The latest request is the question the model answers next, not
		// one left open: "back! where were we?" right after the break.
		if o.By == "user" && o.Kind == "question" && len(c.Task.Latest) > 0 &&
			strings.Contains(sameText(quote(c.Task.Latest[len(c.Task.Latest)-1])), sameText(o.Text)) {
			continue
		}
		open = append(open, "("+o.Label()+") "+o.Text)
		shown[sameText(o.Text)] = true
	}
	// Right after the task: what was left open, said turns before the
	// compaction, is what a summary drops first. The oldest go first when
	// the budget is short.
	secs = append(secs, section{title: "Open items", items: open, min: min(len(open), 4), dropFront: true, repeats: true})
	var answers []string
	plain := map[string]int{} // a plain answer's text: its item
	for _, a := range c.Answers {
		if a.By == "user" {
			// What was found is the point; the question only says
			// which: both fit the length a statement keeps.
			answers = append(answers, "the user asked “"+text.Gist(text.OneLine(a.Question), 80)+"”"+found+"“"+text.Gist(text.OneLine(a.Answer), clipStatement-120)+"”")
			continue
		}
		if a.Revised != "" {
			// The answer stood until the user took it back: the later
			// words hold.
			answers = append(answers, quote(a.Question)+" → the user first: "+quote(a.Answer)+", then took it back: "+quote(a.Revised))
			continue
		}
		if a.Gloss != "" {
			// A bare "no" reads as the question's context made it:
			// the agent's reply says how.
			answers = append(answers, quote(a.Question)+answered+quote(a.Answer)+" (you took it as: "+quote(a.Gloss)+")")
			continue
		}
		// One reply that answered several questions (or the parts of one
		// asked as alternatives) is quoted once, after all of them; a
		// long reply that is the latest request is pointed to, not
		// quoted again (a short one reads best beside its question).
		key := sameText(a.Answer)
		if i, ok := plain[key]; ok {
			answers[i] = strings.Replace(answers[i], answered, "; "+quote(a.Question)+answered, 1)
			continue
		}
		ans := quote(a.Answer)
		if n := len(c.Task.Latest); n > 0 && len(key) >= 80 && sameText(c.Task.Latest[n-1]) == key {
			ans = "the latest request, above"
		}
		plain[key] = len(answers)
		answers = append(answers, quote(a.Question)+answered+ans)
	}
	secs = append(secs, section{title: "Settled with the user", items: answers, min: min(len(answers), 3), dropFront: true, repeats: true})
	secs = append(secs, section{title: "The user also said (oldest first)", items: then, min: min(len(then), 2), dropFront: true, repeats: true, byNews: true})
	secs = append(secs, section{title: "User constraints", items: quoteAll(c.Constraints), min: len(c.Constraints), dropFront: true, repeats: true})
	var todos []string
	for _, t := range c.OpenTodos() {
		todos = append(todos, fmt.Sprintf("[%s] %s", t.Status, t.Content))
	}
	secs = append(secs, section{title: "Open todos", items: todos, min: min(len(todos), 5), repeats: true})
	var files []string
	for _, f := range c.Files {
		files = append(files, fileLine(f))
	}
	secs = append(secs, section{title: "Files changed", items: files, min: min(len(files), 8), dropFront: true})
	// Errors a later call fixed are history: the restore shows them
	// after those still failing, before the decisions.
	var errs, fixed []string
	fixes := make(map[string]bool)
	for _, e := range c.Errors {
		switch {
		case !e.Resolved:
			errs = append(errs, errorLine(e))
		case forRestore:
			fixed = append(fixed, errorLine(e))
			if e.Fix != "" {
				fixes[sameText(e.Fix)] = true
			}
		}
	}
	// A finding that says how an error was fixed is shown with it: apart,
	// the budget weighed the error against the finding and kept one.
	findings := c.Findings
	if len(fixes) > 0 {
		findings = slices.DeleteFunc(slices.Clone(findings), func(f string) bool { return fixes[sameText(f)] })
	}
	if forRestore {
		var cmds []string
		for _, cm := range c.Commands {
			cmds = append(cmds, commandLine(cm))
		}
		secs = append(secs, section{title: "Last commands", items: cmds, min: min(len(cmds), 3), dropFront: true})
		secs = append(secs, section{title: "Errors", items: errs, min: min(len(errs), 2), dropFront: true})
		// What failed and how it was fixed, in a line each: the outcome
		// of a command and where its fix went are what a summary gets
		// wrong, and cheaper than the prose of findings and decisions.
		secs = append(secs, section{title: "Fixed along the way", items: fixed, min: min(len(fixed), 2), dropFront: true})
	} else {
		secs = append(secs, section{title: "Unresolved errors", items: errs, min: min(len(errs), 1), dropFront: true})
	}
	// A finding that works figures out ("3 × 8.33 = 24.99, so one cent
	// is never taken off the card") is what the model would have to work
	// out again, and a summary rounds away: it is weighed before the
	// decisions, not with the prose findings the budget cuts first.
	// The last two move; earlier ones stay among the findings.
	var figures []string
	findings = slices.Clone(findings)
	for i := len(findings) - 1; i >= 0 && len(figures) < 2; i-- {
		if computed(findings[i]) {
			figures = append([]string{findings[i]}, figures...)
			findings = slices.Delete(findings, i, i+1)
		}
	}
	secs = append(secs, section{title: "Figures worked out", items: figures, min: len(figures), dropFront: true, repeats: true})
	secs = append(secs, section{title: "Decisions", items: c.Decisions, min: min(len(c.Decisions), 3), dropFront: true, repeats: true})
	secs = append(secs, section{title: "Findings (oldest first)", items: findings, min: min(len(findings), 3), dropFront: true, repeats: true, byNews: true})
	if forRestore {
		secs = append(secs, section{title: "Subagents reported", items: c.Subagents, min: min(len(c.Subagents), 1), dropFront: true, repeats: true})
	}
	if forRestore && c.Git != nil {
		secs = append(secs, section{title: "Git", items: gitLines(c), min: 1, prose: true})
	}
	var next []string
	for _, n := range c.NextSteps {
		if !shown[sameText(n)] {
			next = append(next, n)
		}
	}
	secs = append(secs, section{title: "Next steps", items: next, min: min(len(next), 3), repeats: true})
	// The files the agent read and worked from without changing them
	// (parsers, tests, configs): the real summaries name them, and they
	// cost a few tokens each.
	secs = append(secs, section{title: "Files read", items: c.KeyReads, min: min(len(c.KeyReads), 3)})
	if forRestore && len(c.LastReplies) > 0 {
		var last []string
		for _, r := range c.LastReplies {
			last = append(last, text.ClipLine(r, 400))
		}
		secs = append(secs, section{title: "Where things stood (your last messages, oldest first)", items: last, min: 1, dropFront: true})
	} else if forRestore && c.LastReply != "" {
		secs = append(secs, section{title: "Where things stood (your last message)", items: []string{text.ClipLine(c.LastReply, 400)}, prose: true})
	}
	// Copy the item slices: fit shrinks them in place.
	for i := range secs {
		secs[i].items = append([]string(nil), secs[i].items...)
	}
	if drop := dropped(c.Instructions); len(drop) > 0 {
		for i := range secs {
			switch secs[i].title {
			case "Task", "User constraints", "Git":
				continue // the task and the user's rules hold whatever the summary drops
			}
			secs[i].items = slices.DeleteFunc(secs[i].items, func(it string) bool { return names(it, drop) })
			secs[i].min = min(secs[i].min, len(secs[i].items))
		}
	}
	return secs
}

// dropped lists what a /compact's instructions tell the summary to leave
// out ("drop the telescope part", "skip the CI history", "forget the
// uuid v7 idea"), each as its content words.
func dropped(instructions string) [][]string {
	var out [][]string
	for _, cl := range strings.FieldsFunc(strings.ToLower(instructions), func(r rune) bool { return r == ',' || r == ';' || r == '.' || r == '\n' }) {
		for _, ws := range leaveOutClauses(cl) {
			n := leaveOut(ws)
			if n == 0 {
				continue
			}
			var obj []string
			for _, w := range ws[n:] {
				if namesThing(w) {
					obj = append(obj, w)
				}
			}
			if len(obj) > 0 && len(obj) <= 4 {
				out = append(out, obj)
			}
		}
	}
	return out
}

// leaveOutClauses splits a clause of instructions at each "and" that
// opens a clause of its own ("drop the uuid idea and skip the flaky
// test"), as words without the leading fillers. An "and" before one more
// word stays inside what is left out: "skip the back and forth" leaves out
// the back and forth, not whatever says "back"; before more, it leaves out
// another thing: "drop the X part and the Y notes".
func leaveOutClauses(cl string) [][]string {
	var out [][]string
	for _, part := range strings.Split(" "+cl+" ", " and ") {
		ws := fields(part)
		for len(ws) > 0 && (ws[0] == "but" || ws[0] == "please" || ws[0] == "also" || ws[0] == "then" || ws[0] == "just" || ws[0] == "you" || ws[0] == "can") {
			ws = ws[1:]
		}
		if n := len(out); n > 0 && leaveOut(ws) == 0 {
			if verb := leaveOut(out[n-1]); verb > 0 {
				if contentWords(ws) <= 1 {
					out[n-1] = append(out[n-1], ws...) // "back and forth"
					continue
				}
				ws = append(slices.Clone(out[n-1][:verb]), ws...) // "drop X and the Y notes"
			}
		}
		out = append(out, ws)
	}
	return out
}

// namesThing says a word of an instruction can name what is left out.
func namesThing(w string) bool { return content(w) && !quantifier(w) && !vague(w) }

// contentWords counts the words of ws that can name what is left out.
func contentWords(ws []string) int {
	n := 0
	for _, w := range ws {
		if namesThing(w) {
			n++
		}
	}
	return n
}

// leaveOut is how many words open a clause that leaves something out
// ("drop", "leave out", "don't keep"), 0 when it does not.
func leaveOut(ws []string) int {
	if len(ws) < 2 {
		return 0
	}
	switch ws[0] {
	case "drop", "skip", "ignore", "forget", "omit", "exclude", "without":
		return 1
	case "leave":
		if ws[1] == "out" {
			return 2
		}
	case "don't", "dont", "do":
		k := 1
		if ws[0] == "do" {
			if ws[1] != "not" {
				return 0
			}
			k = 2
		}
		if k < len(ws) {
			switch ws[k] {
			case "keep", "include", "mention", "carry", "need":
				return k + 1
			}
		}
	case "no":
		if ws[1] == "need" && len(ws) > 2 && ws[2] == "for" {
			return 3
		}
	case "nothing":
		if ws[1] == "about" || ws[1] == "on" {
			return 2
		}
	}
	return 0
}

// vague: a word that says what kind of thing, not which ("the telescope
// stuff", "the CI part").
func vague(w string) bool {
	switch w {
	case "stuff", "thing", "things", "part", "parts", "bits", "details", "about", "history", "discussion", "idea", "ideas":
		return true
	}
	return false
}

// names says an item speaks of all the words of one of drop's entries.
func names(item string, drop [][]string) bool {
	ws := fields(item)
	for _, d := range drop {
		all := true
		for _, w := range d {
			all = all && containsStem(ws, w)
		}
		if all {
			return true
		}
	}
	return false
}

// computed says a statement works figures out: a number, an operator, a
// number, then "=" and a result ("3 × 8.33 = 24.99", "12 * 40ms = 480ms").
func computed(s string) bool {
	for i := strings.IndexByte(s, '='); i >= 0; {
		after := strings.TrimLeft(s[i+1:], " ")
		if after != "" && isDigitByte(after[0]) && operands(s[:i]) {
			return true
		}
		j := strings.IndexByte(s[i+1:], '=')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return false
}

// operands says the text before an "=" ends with number, operator,
// number: "3 × 8.33 ".
func operands(s string) bool {
	ws := strings.Fields(strings.TrimSpace(s))
	if len(ws) >= 3 {
		a, op, b := ws[len(ws)-3], ws[len(ws)-2], ws[len(ws)-1]
		switch op {
		case "×", "x", "*", "+", "-", "−", "/", "÷", "·":
			return number(a) && number(b)
		}
	}
	if len(ws) >= 1 {
		// "3*8.33=24.99", "0.1+0.2 = 0.30000000000000004"
		w := ws[len(ws)-1]
		for k := 1; k < len(w)-1; k++ {
			if strings.ContainsRune("×*+/÷", rune(w[k])) && isDigitByte(w[k-1]) && isDigitByte(w[k+1]) {
				return true
			}
		}
	}
	return false
}

func isDigitByte(c byte) bool { return c >= '0' && c <= '9' }

// number says a word opens with a figure, maybe after a currency sign.
func number(w string) bool {
	w = strings.TrimLeft(w, "(€$£")
	return w != "" && isDigitByte(w[0])
}

// quotesPrompt reports whether the Task section quotes text already (the
// first prompt or one of the latest).
func (c *Checkpoint) quotesPrompt(text string) bool {
	t := sameText(text)
	for _, p := range append([]string{c.Task.First}, c.Task.Latest...) {
		if p != "" && (sameText(p) == t || strings.HasPrefix(sameText(p), t) || strings.HasPrefix(t, sameText(p))) {
			return true
		}
	}
	return false
}

// quoteShows reports whether the Task section's quote of a prompt (the
// first or one of the latest, as quote cuts them) shows text whole.
func (c *Checkpoint) quoteShows(text string) bool {
	t := sameText(text)
	if c.Task.First != "" && strings.Contains(sameText(quoteHead(c.Task.First)), t) {
		return true
	}
	for _, p := range c.Task.Latest {
		if strings.Contains(sameText(quote(p)), t) {
			return true
		}
	}
	return false
}

// sameText is text as compared for repeats: one line, lower case, without
// the final punctuation or an ellipsis a clip added.
func sameText(s string) string {
	return strings.TrimRight(strings.ToLower(strings.Join(strings.Fields(s), " ")), ".!?…:; ")
}

func fileLine(f File) string {
	notes := f.Notes()
	if len(notes) == 0 {
		return f.Path
	}
	return f.Path + " (" + strings.Join(notes, ", ") + ")"
}

// Notes says what the session did to the file: "created", "3 edits"...
func (f File) Notes() []string {
	var notes []string
	switch {
	case f.Deleted && f.Created:
		notes = append(notes, "created, then deleted")
	case f.Deleted:
		notes = append(notes, "deleted")
	case f.Created:
		notes = append(notes, "created")
	}
	if f.Edits > 0 {
		notes = append(notes, plural(f.Edits, "edit"))
	}
	if f.Writes > 1 || (f.Writes == 1 && !f.Created) {
		notes = append(notes, plural(f.Writes, "write"))
	}
	return notes
}

func commandLine(c Command) string {
	line := "`" + text.ClipMiddle(c.Command, 160) + "` → " + c.History()
	if c.Others > 0 {
		line += " (" + plural(c.Others, "earlier run") + " with other quoted arguments, ended the same)"
	}
	return line
}

// History says how the command's runs ended, oldest first, the last in full
// (Ended), repeats counted: "exit 1, then exit 0 (2 runs)", "exit 1 (2
// runs), then exit 0; 31 passed", or "exit 0 (3 runs)" when every run
// ended the same way: the last exit code alone hides a failure the runs
// before it had.
func (c Command) History() string {
	type group struct {
		end string
		n   int
	}
	var gs []group
	for _, e := range append(slices.Clone(c.Earlier), c.short()) {
		if len(gs) > 0 && gs[len(gs)-1].end == e {
			gs[len(gs)-1].n++
			continue
		}
		gs = append(gs, group{e, 1})
	}
	gs[len(gs)-1].end = c.Ended()
	// The runs before those remembered are counted with the first group.
	if unknown := c.Runs - len(c.Earlier) - 1; unknown > 0 {
		gs[0].n += unknown
	}
	parts := make([]string, 0, len(gs))
	for _, g := range gs {
		s := g.end
		if g.n > 1 {
			s += fmt.Sprintf(" (%d runs)", g.n)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", then ")
}

// Ended says how the command's last run ended: for a build or test, or
// anything that failed, by its output too ("exit status hidden by the
// pipe; output says 297 tests, 11 failures"); else by its exit code, unless
// a pipe or a "|| true" hid it.
func (c Command) Ended() string {
	switch o := c.Outcome; {
	case o != nil && (o.Tool != "" || o.Status == outcome.Failed || o.Source == outcome.SourceBackground || o.Hidden != "" && len(o.Errors) > 0):
		return o.Line()
	case o != nil && o.Hidden != "" && o.Status == outcome.Unknown && outcome.StatusHidden(c.Command):
		// The exit code shown is the filter's or the fallback's ("| tail",
		// "|| true"), not that of the script, tool or program it hid
		// ("numdiff a b | tail -2"), which no one knows. (That of "ls |
		// head" is as good as ls's.)
		return strings.TrimSuffix(o.Line(), "; output does not say")
	case c.ExitCode == nil:
		return "no exit code (stopped or refused)"
	}
	return fmt.Sprintf("exit %d", *c.ExitCode)
}

func errorLine(e Error) string {
	state := "unresolved"
	switch {
	case e.Resolved:
		state = "fixed later"
	case absent(e):
		// Not a failure of the work to fix: the tool or the target is
		// not there ("make: *** No rule to make target", exit 127), and
		// the agent went another way or has yet to.
		state = "not available"
	}
	subject := e.Subject
	if strings.HasPrefix(e.Tool, "Bash") {
		subject = "`" + text.ClipMiddle(subject, 120) + "`"
	}
	times := ""
	if e.Times > 0 {
		times = fmt.Sprintf(", %d times", e.Times+1)
	}
	// Where the fix went comes after what failed: "fixed later (Bash
	// `make`, fixed in a.go)" reads as the run that failed, then the fix.
	where := ""
	if e.Resolved && len(e.FixedIn) > 0 {
		where = "; fixed in " + strings.Join(e.FixedIn, ", ")
	}
	line := fmt.Sprintf("%s (%s %s%s%s): %s", state, e.Tool, subject, times, where, text.ClipLine(e.Message, 240))
	if e.Resolved && e.Fix != "" {
		line += "; then: " + text.ClipLine(e.Fix, clipStatement)
	}
	return line
}

func gitLines(c *Checkpoint) []string {
	g := c.Git
	s := "branch " + orDefault(g.Branch, "(detached)")
	if g.Head != "" {
		s += " at " + g.Head
	}
	if g.DiffStat != "" {
		s += "; " + g.DiffStat
	}
	lines := []string{s}
	if len(g.Changes) > 0 {
		// The files the session changed are listed above: name the others.
		changed := make(map[string]bool)
		for _, f := range c.Files {
			changed[f.Path] = true
		}
		var ps []string
		known := 0
		for _, ch := range g.Changes {
			if changed[ch.Path] {
				known++
			} else {
				ps = append(ps, ch.Path)
			}
		}
		more := ""
		if len(ps) > 12 {
			more = fmt.Sprintf(" and %d more", len(ps)-12)
			ps = ps[:12]
		}
		s := "uncommitted: "
		switch {
		case known > 0 && len(ps) == 0:
			s += "the files changed above"
		case known > 0:
			s += "the files changed above, and " + strings.Join(ps, ", ") + more
		default:
			s += strings.Join(ps, ", ") + more
		}
		lines = append(lines, s)
	} else {
		lines = append(lines, "working tree clean")
	}
	return lines
}

// quote quotes the user's words, cut to their gist when long: a
// constraint or a question at the end of a long prompt is what the quote
// is for.
func quote(s string) string {
	return "“" + withTraceError(s, 400, func(s string, n int) string { return text.Gist(text.OneLine(s), n) }) + "”"
}

// quoteHead quotes the first prompt from its head: how the user put the
// task is in its first sentences; what the cut leaves out is listed as
// open items and constraints.
func quoteHead(s string) string { return "“" + withTraceError(s, 400, text.ClipLine) + "”" }

// withTraceError cuts a prompt to n bytes with cut, its pasted stack
// traces without their frames (outcome.Pasted), and keeps the error the
// trace reports: a cut inside the trace would keep the frames a Python
// traceback prints first and lose the line that says what went wrong.
func withTraceError(s string, n int, cut func(string, int) string) string {
	short, errs := outcome.Pasted(s)
	q := cut(short, n)
	if len(errs) == 0 {
		return q
	}
	e := text.ClipLine(errs[0], 160)
	if strings.Contains(q, text.Truncate(text.OneLine(errs[0]), 60)) {
		return q
	}
	return cut(short, n-len(e)-len(" … ")) + " … " + e
}

// gist cuts an item to n bytes around what it carries most (text.Gist),
// the quotation marks of a quote kept.
func gist(it string, n int) string {
	if len(it) <= n {
		return it
	}
	// An aside in parentheses goes first: "rejects levels above 23 …
	// instead of clamping (a clamped request would get the wrong tile
	// …)" keeps what was done, which a clause-by-clause cut would drop
	// with the aside inside it.
	if short := withoutAsides(it); len(short) < len(it) {
		if len(short) <= n {
			return short
		}
		it = short
	}
	if inner, ok := strings.CutPrefix(it, "“"); ok {
		if inner, ok := strings.CutSuffix(inner, "”"); ok {
			return "“" + text.Gist(inner, n-len("“”")) + "”"
		}
	}
	return text.Gist(it, n)
}

// withoutAsides drops the long parenthesised asides of s that carry no
// figure ("(a clamped request would get the wrong tile without anyone
// noticing)"); short ones and figures ("(52.3 ns at level 23)") stay.
func withoutAsides(s string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, " (")
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i:], ')')
		if j < 0 {
			break
		}
		aside := s[i : i+j+1]
		b.WriteString(s[:i])
		if len(aside) < minAside || strings.ContainsAny(aside, "0123456789`") {
			b.WriteString(aside)
		}
		s = s[i+j+1:]
	}
	b.WriteString(s)
	return b.String()
}

// minAside is the length from which an aside in parentheses is cut
// before the clauses around it.
const minAside = 40

func quoteAll(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = quote(x)
	}
	return out
}

func plural(n int, w string) string {
	if n == 1 {
		return "1 " + w
	}
	return fmt.Sprintf("%d %ss", n, w)
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// Resume is the text `cairn resume` prints: the working state of an
// earlier session, to continue it in a new one.
func (c *Checkpoint) Resume(budget int) string {
	session := c.SessionID
	if c.Client != "" {
		session += " (" + transcript.ClientTitle(c.Client) + ")"
	}
	head := fmt.Sprintf("# Resuming earlier work (cairn)\n\nSession %s left this working state (checkpoint %d, %s, %s).",
		session, c.ID, c.CreatedAt.Format("2006-01-02 15:04 MST"), c.Trigger)
	tail := fmt.Sprintf("Full checkpoint: `cairn show checkpoint %s`. Check the git state above against the work tree, then continue with the task.", c.ref())
	return fit(head, c.sections(true), tail, budget, renderMarkdownSections, "")
}

// absent says a command failed because what it runs is not there: the
// shell found no such program (exit 127, "command not found"), or make
// no such target.
func absent(e Error) bool {
	if !strings.HasPrefix(e.Tool, "Bash") {
		return false
	}
	m := e.Message
	return strings.HasPrefix(m, "exit 127") || strings.Contains(m, "command not found") || strings.Contains(m, "No rule to make target")
}
