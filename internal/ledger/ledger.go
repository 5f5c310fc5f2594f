// Package ledger keeps the open thread of a session: what the assistant
// said is left to do, the questions it asked and the user has not answered,
// the problems it said are not fixed, what it put off for later, and what
// the user asked for. It covers the whole transcript, not only the last
// reply, so that what was said many turns before a compaction (or before an
// earlier compaction) still reaches the restore after it.
//
// A Ledger is fed in transcript order: assistant texts, user prompts, file
// changes, finished commands and completed todos. It reads the structure of
// a text first (headed lists, checkboxes, "Label: content" lines, questions,
// code blocks and quotations, which it skips) and the modality of its
// sentences (not yet, still, later, next) rather than phrases collected
// from example sessions; cues.go lists the word classes it uses.
//
// Items close only on evidence that names them: a file the item names was
// written or edited afterwards, a command it names (or whose text carries
// most of its words, like a commit message) succeeded, the assistant said
// it is done or a todo with the same words was completed, or, for a
// question, the user answered (the answer is kept). Restatements of an item
// update it instead of adding another. The ledger is plain data, bounded,
// and serialisable as JSON, so that it can live in a saved transcript
// session and be fed line by line across processes.
package ledger

import (
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/cairn-agent/cairn/internal/text"
)

// Kind is what sort of open item it is.
type Kind string

const (
	Task     Kind = "task"     // work the assistant said is still to do
	Question Kind = "question" // a question waiting for an answer
	Problem  Kind = "problem"  // something the assistant said is still broken or blocked
	Deferred Kind = "deferred" // work put off for later
	Request  Kind = "request"  // something the user asked for
)

// Who stated an item.
const (
	ByAssistant = "assistant"
	ByUser      = "user"
)

// How an item was closed.
const (
	ClosedByFile    = "file"    // a file it names was written or edited
	ClosedByCommand = "command" // a command it names succeeded
	ClosedBySaid    = "said"    // the assistant (or the user) said it is done
	ClosedByTodo    = "todo"    // a todo with its words was completed
	ClosedByAnswer  = "answer"  // the user answered the assistant's question
	ClosedByReply   = "reply"   // the assistant answered the user's question
)

// Limits.
const (
	// MaxItems bounds the ledger: past it the oldest closed items go
	// first, then the oldest open ones.
	MaxItems        = 48
	maxEvidence     = 200
	maxAnswer       = 300
	maxPromptAsItem = 300 // a prompt this short is one item, whole
)

// Ledger is the open-items ledger of one session.
type Ledger struct {
	Items []Item `json:"items"`
	// Prompt is the line of the user's latest prompt: a question asked
	// before it and answered after it was left open across a turn.
	Prompt int `json:"prompt,omitempty"`
	// Changed is the line of the latest file change: work done since an
	// item was stated.
	Changed int `json:"changed,omitempty"`
	// Replied is the assistant's latest text with substance since the
	// latest prompt: the reply to it. "" before one.
	Replied string `json:"replied,omitempty"`

	r *reader // reused from text to text; never saved
	// repliedDirty marks a Replied that came in since the last Clean.
	repliedDirty bool
}

func (l *Ledger) reader() *reader {
	if l.r == nil {
		l.r = new(reader)
	}
	return l.r
}

// Item is one open (or closed) item.
type Item struct {
	// Text is the item as stated, one line, clipped.
	Text string `json:"text"`
	Kind Kind   `json:"kind"`
	// By is who stated it: ByAssistant or ByUser.
	By string `json:"by"`
	// Turn and Line are where it was last stated (the transcript's line,
	// 1-based); FirstLine is where it was first stated, when it was
	// restated since.
	Turn      int       `json:"turn"`
	Line      int       `json:"line"`
	Time      time.Time `json:"time,omitzero"`
	FirstLine int       `json:"first_line,omitempty"`
	Restated  int       `json:"restated,omitempty"`
	// Reopened marks a question the assistant said was still open after
	// a reply had closed it: only a reply that speaks of it, or a bare
	// value, answers it now.
	Reopened bool `json:"reopened,omitempty"`
	// Explicit marks an item stated as such (in a headed list, after a
	// label, with a checkbox): an explicit question stays open when the
	// assistant goes on working; one asked in passing does not.
	Explicit bool `json:"explicit,omitempty"`
	// Ends marks a user's question that ends its prompt: what the prompt
	// asks, which the reply to the prompt answers.
	Ends bool `json:"ends,omitempty"`
	// Listed marks an assistant's question asked in a list with others
	// ("1. Version the site with mike? 2. Which alias...?"): a short
	// reply answers one of them, not all.
	Listed bool `json:"listed,omitempty"`
	// Pointed is the line where the assistant asked again for this listed
	// question by its number ("Drift it is. And 2?"): the user's next
	// reply answers it.
	Pointed int `json:"pointed,omitempty"`
	// Elsewhere marks an assistant's question put to someone other than
	// the user ("Open question for Dana: ..."): no prompt answers it.
	Elsewhere bool `json:"elsewhere,omitempty"`
	// Closed is set once evidence closed the item.
	Closed *Closure `json:"closed,omitempty"`

	t *terms // cache of the text's terms, never saved
	// dirty marks text or evidence that came in since the last Clean.
	dirty bool
}

// Closure is the evidence that closed an item.
type Closure struct {
	Turn int    `json:"turn"`
	Line int    `json:"line"`
	By   string `json:"by"` // ClosedByFile, ClosedByCommand...
	// Evidence is the file, the command, the sentence, the todo, or for a
	// question the answer (its resolution).
	Evidence string `json:"evidence"`
	// Later marks a user's question answered after a later prompt: left
	// open across a turn, it is what a summary loses.
	Later bool `json:"later,omitempty"`
	// Gloss is how the assistant took a short answer, in the first
	// sentence of its reply to it ("Got it: a bundle with any physical
	// item ships as physical."): a bare "no" says little on its own once
	// the question's context is gone.
	Gloss string `json:"gloss,omitempty"`
}

// Clean passes the text and the evidence that came in since the last call
// through f. The ledger reads raw text, to understand what was said; cairn
// cleans what it keeps of it (secrets, <private> spans) with f before
// anything else sees it.
func (l *Ledger) Clean(f func(string) string) {
	if l.repliedDirty {
		l.Replied, l.repliedDirty = f(l.Replied), false
	}
	for i := range l.Items {
		it := &l.Items[i]
		if !it.dirty {
			continue
		}
		if t := f(it.Text); t != it.Text {
			it.Text, it.t = t, nil
		}
		if it.Closed != nil {
			it.Closed.Evidence = f(it.Closed.Evidence)
			it.Closed.Gloss = f(it.Closed.Gloss)
		}
		it.dirty = false
	}
}

func (it *Item) terms() *terms {
	if it.t == nil {
		it.t = textTerms(it.Text)
	}
	return it.t
}

// Assistant reads one assistant text block.
func (l *Ledger) Assistant(turn, line int, t time.Time, text string) {
	if strings.TrimSpace(text) == "" {
		return
	}
	l.activity(line)
	// "Drift it is. And 2?": the listed questions asked for again by
	// number, too short for a question of their own.
	if l.hasListed() && strings.Contains(text, "?") {
		for _, sentence := range strings.Split(sentenceBreaks.Replace(text), "\n") {
			if q := strings.TrimSpace(sentence); strings.HasSuffix(q, "?") && len(q) <= 24 {
				l.pointAt(line, q)
			}
		}
	}
	l.glossAnswers(line, text)
	l.replyToUser(turn, line, text)
	if substantive(text) {
		l.Replied, l.repliedDirty = evidenceOf(text), true
	}
	if open, done := gate(text, &l.reader().an.it); !open && !(done && l.closable(line)) && !startsWorkItem(firstSentence(text)) {
		return
	}
	for _, st := range l.reader().extract(text, false) {
		if st.universal {
			l.closeAll(turn, line, st.text)
			continue
		}
		if st.done {
			if l.closable(line) {
				l.close(turn, line, textTerms(st.text), ClosedBySaid, st.text)
			}
			continue
		}
		if l.reopen(turn, line, st) {
			continue
		}
		l.add(Item{Text: st.text, Kind: st.kind, By: ByAssistant, Turn: turn, Line: line, Time: t, Explicit: st.sticky, Listed: st.listed && st.kind == Question, Elsewhere: st.elsewhere})
	}
}

// reopen takes back the answer a question of the assistant's was given
// when the assistant says, later, that the question is still open ("The
// port question is still open, I kept 8080 for now"): the reply that
// closed it was about something else, and the question waits for the
// user's next word on it. The statement names the question with a noun of
// an open question and shares a word or a name with it; of several, the
// one sharing the most, the latest on a tie. It says whether one was
// reopened.
func (l *Ledger) reopen(turn, line int, st statement) bool {
	if st.question || strings.HasSuffix(strings.TrimSpace(st.text), "?") {
		return false
	}
	a := analyse(st.text)
	named := false
	for k := 0; k < a.n; k++ {
		if a.w[k].c&cQuestion != 0 {
			named = true
		}
	}
	if !named {
		return false
	}
	said := textTerms(st.text)
	best, score := -1, 0
	for i := range l.Items {
		it := &l.Items[i]
		if it.Kind != Question || it.By != ByAssistant || it.Closed == nil || it.Closed.By != ClosedByAnswer || it.Line >= line {
			continue
		}
		n := 2 * sharedWords(said.names, it.terms().names)
		for _, w := range said.words {
			if has(it.terms().words, w) && wordCue([]byte(w)) == 0 {
				n++
			}
		}
		if n > 0 && n >= score {
			best, score = i, n
		}
	}
	if best < 0 {
		return false
	}
	it := &l.Items[best]
	if it.FirstLine == 0 {
		it.FirstLine = it.Line
	}
	it.Closed, it.Turn, it.Line, it.Explicit, it.Reopened, it.dirty = nil, turn, line, true, true, true
	it.Restated++
	return true
}

// User reads one user prompt. The caller leaves out what the user did not
// type: tool results, meta lines, compaction summaries, command wrappers
// and system reminders.
func (l *Ledger) User(turn, line int, t time.Time, text string) {
	text = strings.TrimSpace(text)
	if text == "" {
		return
	}
	l.movedOn(turn, line)
	l.takeBack(turn, line, text) // before the answer closes the reply's question
	l.declines(turn, line, text)
	l.answer(turn, line, t, text)
	l.Prompt, l.Replied = line, ""
	if acknowledgement(text) {
		return
	}
	sts := userStatements(l.reader(), text)
	for k, st := range sts {
		if !hasTerms(st.text) && st.kind != Question && !(st.kind == Request && wholeWork(st.text)) {
			continue // "go on": no content to track
		}
		if st.done {
			l.close(turn, line, textTerms(st.text), ClosedBySaid, st.text)
			continue
		}
		ends := k == len(sts)-1 && st.kind == Question && strings.HasSuffix(text, "?")
		l.add(Item{Text: st.text, Kind: st.kind, By: ByUser, Turn: turn, Line: line, Time: t, Explicit: true, Ends: ends})
	}
}

// takeBack closes what the user asked for in the previous prompt when
// this one takes back what was done for it ("also drop the old column"
// then "wait no. take that out"): the request is withdrawn, not open. A
// prompt that answers a question the reply asked is an answer, not a
// taking back.
func (l *Ledger) takeBack(turn, line int, text string) {
	if l.Prompt == 0 || strings.HasSuffix(strings.TrimSpace(l.Replied), "?") || TakenBack(text) == "" {
		return
	}
	for _, it := range l.Items {
		if it.Closed == nil && it.Kind == Question && it.By == ByAssistant && it.Line > l.Prompt {
			return
		}
	}
	for i := range l.Items {
		it := &l.Items[i]
		if it.Closed == nil && it.By == ByUser && it.Kind == Request && it.Line == l.Prompt {
			it.Closed = &Closure{Turn: turn, Line: line, By: ClosedBySaid, Evidence: evidenceOf(text)}
			it.dirty = true
		}
	}
}

// declines closes what the assistant proposed to do in its reply when a
// clause of the user's next prompt refuses that thing by name: "the
// timeout thing no way, keep it at 600" for "Belt and braces: set the
// timeout to -1 in that config". The clause negates ("no", "not",
// "don't", "never"; not "don't forget") and shares a name or a content
// word with the proposal, and with no other proposal of the reply more.
// The proposal is then no work left open: the user said no to it.
func (l *Ledger) declines(turn, line int, said string) {
	if l.Prompt == 0 {
		return
	}
	for _, sentence := range sentences(promptProse(said)) {
		cs := dismissClauses(sentence)
		for k, clause := range cs {
			if !refuses(clause) {
				continue
			}
			ct := textTerms(clause)
			if len(ct.words) == 0 && len(ct.names) == 0 && k > 0 {
				// "the memory limit, nope": the thing is named just
				// before the no.
				clause = cs[k-1] + ", " + clause
				ct = textTerms(clause)
			}
			best, most, tie := -1, 0, false
			for i := range l.Items {
				it := &l.Items[i]
				if it.Closed != nil || it.By != ByAssistant || it.Kind != Task || it.Line <= l.Prompt || it.Line >= line {
					continue
				}
				n := sharedWords(it.terms().words, ct.words) + 2*sharedWords(it.terms().names, ct.names)
				switch {
				case n > most:
					best, most, tie = i, n, false
				case n == most && n > 0:
					tie = true
				}
			}
			if best >= 0 && !tie {
				it := &l.Items[best]
				it.Closed, it.dirty = &Closure{Turn: turn, Line: line, By: ClosedByAnswer, Evidence: text.ClipLine(strings.TrimSpace(clause), maxEvidence)}, true
			}
		}
	}
}

// refuses says a clause of a prompt says no to something: a negation that
// is not a reminder ("don't forget"), a postponement ("not yet", "not
// now") or a politeness ("no worries"), and no question.
func refuses(clause string) bool {
	if strings.Contains(clause, "?") {
		return false
	}
	ws := words(clause)
	for i, w := range ws {
		if !FlatNo(w) && !negates(w) {
			continue
		}
		if i+1 < len(ws) {
			switch ws[i+1] {
			case "forget", "worries", "problem", "yet", "now", "sure", "idea", "rush", "bad", "doubt", "only", "just":
				return false
			}
		}
		return true
	}
	return false
}

// negates: a word that negates the verb or the thing it goes with.
func negates(w string) bool {
	switch w {
	case "not", "don't", "dont", "never", "kein", "keine", "pas":
		return true
	}
	return false
}

// FlatNo says a word is a flat "no", in English or in the language of a
// user who mixes in their own ("non", "nein", "não"...).
func FlatNo(w string) bool {
	switch w {
	case "no", "nope", "nah", "non", "nein", "não", "nao", "nee", "nie", "nej", "niet", "нет":
		return true
	}
	return false
}

// movedOn closes the question that ended the user's previous prompt when
// the assistant replied to it with substance and the user now speaks
// again: the reply to a prompt that asks one thing is its answer, in
// whatever words (a question about "what's eating" the flash answered
// with the sizes of the biggest symbols). A question in the middle of a
// long prompt waits for a reply that names it (replyToUser).
func (l *Ledger) movedOn(turn, line int) {
	if l.Replied == "" {
		return
	}
	// "could you dig in?", "can you take a look?": a request to find out
	// that names nothing of its own was done by the reply with substance
	// to its prompt, which the user has now read.
	for i := range l.Items {
		it := &l.Items[i]
		if it.Closed == nil && it.Line == l.Prompt && !l.hasOpenQuestion() {
			if q := inquiry(*it); q != "" && namesNothing(q) {
				it.Closed, it.dirty = &Closure{Turn: turn, Line: line, By: ClosedByReply, Evidence: text.ClipLine(l.Replied, maxEvidence)}, true
			}
		}
	}
	for i := range l.Items {
		it := &l.Items[i]
		if it.Closed == nil && it.Kind == Question && it.By == ByUser && it.Ends && it.Line == l.Prompt {
			it.Closed, it.dirty = &Closure{Turn: turn, Line: line, By: ClosedByReply, Evidence: text.ClipLine(l.Replied, maxEvidence)}, true
		}
	}
}

// glossAnswers keeps the first sentence of the assistant's first text
// after a short answer to its question, when it says something, as the
// answer's gloss.
func (l *Ledger) glossAnswers(line int, said string) {
	if l.Replied != "" {
		return // not the first text with substance since the prompt
	}
	first := strings.TrimSpace(strings.SplitN(strings.TrimSpace(said), "\n", 2)[0])
	if ss := sentences(first); len(ss) > 0 {
		first = ss[0]
	}
	// "Keeping both commits as they are." says how; "mike it is.", "Let
	// me check the config." and a question back do not.
	if len(first) < 20 || len(strings.Fields(first)) < 4 || strings.HasSuffix(first, "?") || analyse(first).immediate() {
		return
	}
	answered := 0
	for _, it := range l.Items {
		if c := it.Closed; c != nil && c.By == ClosedByAnswer && c.Line == l.Prompt {
			answered++
		}
	}
	if answered > 1 {
		return // one reply to several answers glosses none of them
	}
	for i := range l.Items {
		it := &l.Items[i]
		c := it.Closed
		if c == nil || c.By != ClosedByAnswer || c.Line != l.Prompt || c.Gloss != "" || c.Line >= line || len(strings.Fields(c.Evidence)) > maxGlossed && !hedged(c.Evidence) {
			continue
		}
		if ft := textTerms(first); !ft.shares(textTerms(it.Text + "\n" + c.Evidence)) {
			// "fixed." to "fixed window or sliding log?", then "throttle
			// tests pass now but ... gets 429": a reply about something
			// else says nothing of how the answer was taken.
			continue
		}
		c.Gloss, it.dirty = text.ClipLine(first, maxEvidence), true
	}
}

// maxGlossed is the most words of an answer that gets a gloss, unless
// it hedges.
const maxGlossed = 3

// hedged says an answer leaves its reading to the assistant: it asks
// back or hedges ("keep both I think?", "probably the second"), so how
// the assistant took it is the answer that holds.
func hedged(answer string) bool {
	low := " " + strings.ToLower(answer) + " "
	if strings.Contains(low, "?") {
		return true
	}
	for _, h := range []string{" i think ", " i guess ", " maybe ", " probably ", " i suppose "} {
		if strings.Contains(low, h) {
			return true
		}
	}
	return false
}

// evidenceOf is a text as an item's evidence keeps it: one line, clipped.
func evidenceOf(s string) string { return text.ClipLine(s, maxEvidence) }

// substantive says an assistant's text says something rather than
// announcing what it will look at first ("Let me check the map file.").
func substantive(said string) bool {
	first := said
	if ss := sentences(strings.TrimSpace(strings.SplitN(said, "\n", 2)[0])); len(ss) > 0 {
		first = ss[0]
	}
	return len(strings.TrimSpace(said)) >= 40 && !announces(said, first)
}

// announces says a short text only announces what the assistant does
// next ("Let me check the map file.", "I'll run the suite."), with first
// its first sentence. A choice is no announcement: "I'll go with a
// cutoff of 21 days since it maximises Youden's J" and "I'll use
// HALF_EVEN rather than HALF_UP: …" answer.
func announces(said, first string) bool {
	if len(said) >= 200 || !analyse(first).immediate() {
		return false
	}
	low := strings.ToLower(first)
	for _, c := range []string{" go with ", " going with ", " stick with ", " settle on ", " opt for ", " rather than ", " instead of "} {
		if strings.Contains(low, c) {
			return false
		}
	}
	return true
}

// FileChanged records a write or edit of path.
func (l *Ledger) FileChanged(turn, line int, path string) {
	if path == "" {
		return
	}
	l.activity(line)
	l.Changed = line
	if l.closable(line) {
		l.close(turn, line, pathTerms(path), ClosedByFile, path)
	}
}

// CommandEnded records a finished command. ok says it succeeded, by its
// exit code and its output. A failed command and a command that only
// reads (ls, cat, grep, git status...) close nothing.
func (l *Ledger) CommandEnded(turn, line int, command string, ok bool) {
	if command == "" {
		return
	}
	l.activity(line)
	if len(command) > 4*maxCommandRead {
		command = command[:4*maxCommandRead]
	}
	if !ok || !l.closable(line) || readOnly(command) || startsWork(command) {
		return
	}
	l.close(turn, line, commandTerms(command), ClosedByCommand, text.ClipLine(command, maxEvidence))
}

// TodoCompleted records a todo marked completed.
func (l *Ledger) TodoCompleted(turn, line int, content string) {
	if strings.TrimSpace(content) == "" {
		return
	}
	l.activity(line)
	l.close(turn, line, textTerms(content), ClosedByTodo, text.ClipLine(content, maxEvidence))
}

// Open returns the open items in the order they were (last) stated, oldest
// first: the order of the conversation, so that a renderer with a budget
// keeps the tail, the most recent.
func (l *Ledger) Open() []Item {
	var out []Item
	for _, it := range l.Items {
		if it.Closed == nil {
			out = append(out, it)
		}
	}
	slices.SortStableFunc(out, func(a, b Item) int { return a.Line - b.Line })
	return out
}

// Closed returns the closed items kept, in the order they were closed,
// most recent last.
func (l *Ledger) Closed() []Item {
	var out []Item
	for _, it := range l.Items {
		if it.Closed != nil {
			out = append(out, it)
		}
	}
	slices.SortStableFunc(out, func(a, b Item) int { return a.Closed.Line - b.Closed.Line })
	return out
}

// activity: the assistant went on working at line. A question it asked in
// passing before that line was not left to the user (it was thinking
// aloud, or answered itself), so it goes; explicit questions stay.
func (l *Ledger) activity(line int) {
	l.Items = slices.DeleteFunc(l.Items, func(it Item) bool {
		// Questions numbered in a list are put to the user on purpose,
		// answered a prompt at a time: they stay like explicit ones.
		return it.Closed == nil && it.Kind == Question && it.By == ByAssistant && !it.Explicit && !it.Listed && it.Line < line
	})
}

// answer closes the assistant's open questions with the user's prompt as
// their resolution. A yes to an offer ("Should I also update the docs?")
// becomes the user's request.
func (l *Ledger) answer(turn, line int, t time.Time, said string) {
	if l.answerByNumber(turn, line, t, said) {
		return
	}
	if asksBack(said) {
		// "how big is that index going to be roughly": the user asks
		// first; the questions wait for a later prompt's answer, kept
		// while the assistant replies to the user's.
		for i := range l.Items {
			if it := &l.Items[i]; it.Closed == nil && it.Kind == Question && it.By == ByAssistant && !it.Elsewhere && it.Line < line {
				it.Explicit, it.dirty = true, true
			}
		}
		return
	}
	var agreed []string
	later := putsOff(said)
	one := -1
	var several []int
	asked := 0
	for _, it := range l.Items {
		if it.Closed == nil && it.Kind == Question && it.By == ByAssistant && !it.Elsewhere && it.Line < line {
			asked++
		}
	}
	// A yes or a no to one question answers it, whatever it asked; to
	// several, the ones that ask yes or no.
	yn := short(said) && yesOrNo(said) && asked > 1
	if bareAnswer(said) {
		one = l.answers(said, line)
	} else if short(said) && !toAll(said) {
		// "yes" to three listed questions answers the first; the next
		// prompt answers the next.
		one = l.answersListed(said, line, yn)
	} else if p := l.pointed(line); len(p) > 0 && !yesOrNo(said) {
		// The assistant asked for listed questions again by number
		// ("Drift it is. And 2?", "4 and 5?"): a sentence answers those,
		// not every question still open ("keep both I think?" is an
		// answer, not "yes to both").
		several = p
	}
	// A sentence that answers several questions at once gives each the
	// part that speaks of it ("24 now, we bumped it in march. photos
	// no, photos are phase 2" for "API level: still 23?" and "Do
	// photos need to work offline?").
	parts := l.shareOut(said, several)
	if parts == nil && several == nil && one < 0 && byTopic(said) {
		// "For the rounding: stay with AwayFromZero. And the branch:
		// only main": each open question gets the part on its topic.
		var open []int
		for i, it := range l.Items {
			if it.Closed == nil && it.Kind == Question && it.By == ByAssistant && !it.Elsewhere && it.Line < line {
				open = append(open, i)
			}
		}
		parts = l.shareOut(said, open)
	}
	// A reply that takes up questions by topic ("For the backfill:
	// neither, Priya runs migrations"), gives no figure and says no yes
	// or no leaves a question asking "what" or "which" whose topic it
	// does not take up open: it does not say which max-age.
	namedOne := false
	if one < 0 && several == nil && !short(said) && !yesOrNo(said) && !strings.ContainsAny(said, "0123456789") && byTopic(said) {
		for i := range l.Items {
			if it := &l.Items[i]; it.Closed == nil && it.Kind == Question && it.By == ByAssistant && !it.Elsewhere && it.Line < line && l.names(said, i) {
				namedOne = true
				break
			}
		}
	}
	// "ok" after a reply that asked nothing takes note of that reply; it
	// answers only a question asked in it.
	noted := noteTaking(said) && !strings.HasSuffix(strings.TrimSpace(l.Replied), "?")
	for i := range l.Items {
		it := &l.Items[i]
		if it.Closed != nil || it.Kind != Question || it.By != ByAssistant || it.Elsewhere || it.Line >= line {
			continue
		}
		if noted && it.Line < l.Prompt {
			continue
		}
		if one >= 0 && i != one || several != nil && !slices.Contains(several, i) {
			continue
		}
		if one < 0 && yn && !polar(it.Text) {
			continue // a "yes" does not answer "which alias?"
		}
		if strings.Contains(it.Text, " → the user: ") && !l.names(said, i) {
			// What the user put off ("3 later") is answered by a reply
			// that speaks of it, not by the next "k" or another matter.
			continue
		}
		if namedOne && !polar(it.Text) && !l.names(said, i) {
			continue
		}
		if it.Reopened && len(strings.Fields(said)) > 2 && !l.names(said, i) {
			// "Your first question is still open: ...", then the user
			// speaks of another matter the same reply raised ("crlf is
			// #57, not this pr") or asks for the next step ("run the
			// whole thing"): a value ("three") or words of the question
			// answer it.
			continue
		}
		if later {
			// "park it, I'll ask Joanna tomorrow": the question stays
			// open, with what the user said of it.
			if !strings.Contains(it.Text, " → the user: ") {
				it.Text, it.dirty = text.ClipLine(it.Text+" → the user: "+said, maxItemBytes), true
			}
			// The user took it up: it is not a question asked in
			// passing, and stays open while the assistant works on.
			it.Explicit = true
			continue
		}
		ev := said
		if part, ok := parts[i]; ok {
			ev = part
		}
		it.Closed, it.dirty = &Closure{Turn: turn, Line: line, By: ClosedByAnswer, Evidence: text.ClipLine(ev, maxAnswer)}, true
		if affirmative(said) {
			agreed = append(agreed, it.Text)
		}
	}
	for _, q := range agreed {
		l.add(Item{Text: text.ClipLine(q+" → "+said, maxItemBytes), Kind: Request, By: ByUser, Turn: turn, Line: line, Time: t, Explicit: true})
	}
}

// names says a reply shares a word or a name with item i's text.
func (l *Ledger) names(said string, i int) bool {
	return textTerms(said).shares(l.Items[i].terms())
}

// latestList is the line of the latest list of questions the assistant
// asked before line (the last line with listed questions), -1 for none.
func (l *Ledger) latestList(line int) int {
	last := -1
	for _, it := range l.Items {
		if it.Listed && it.Kind == Question && it.By == ByAssistant && it.Line < line {
			last = max(last, it.Line)
		}
	}
	return last
}

// answerByNumber answers the latest list of questions from a reply in
// numbered parts ("1 yes 2 no, keep v1 3 later 4 staging only", "1) yes
// 2) no", one per line): each part answers the question of its number,
// and says no more of the others ("later" in the third part puts off the
// third only). It says whether the reply was one.
func (l *Ledger) answerByNumber(turn, line int, t time.Time, said string) bool {
	parts := numberedParts(said)
	if len(parts) < 2 {
		return false
	}
	last := l.latestList(line)
	if last < 0 {
		return false
	}
	var idx []int
	for i, it := range l.Items {
		if it.Listed && it.Line == last && it.Kind == Question && it.By == ByAssistant {
			idx = append(idx, i)
		}
	}
	if len(parts) > len(idx) {
		return false // more answers than questions: the numbers are something else
	}
	var agreed []string
	for n, part := range parts {
		it := &l.Items[idx[n]]
		if it.Closed != nil {
			continue
		}
		if putsOff(part) {
			it.Text, it.dirty = text.ClipLine(it.Text+" → the user: "+part, maxItemBytes), true
			it.Explicit = true
			continue
		}
		it.Closed, it.dirty = &Closure{Turn: turn, Line: line, By: ClosedByAnswer, Evidence: text.ClipLine(part, maxAnswer)}, true
		if affirmative(part) {
			agreed = append(agreed, it.Text+" → "+part)
		}
	}
	for _, q := range agreed {
		l.add(Item{Text: text.ClipLine(q, maxItemBytes), Kind: Request, By: ByUser, Turn: turn, Line: line, Time: t, Explicit: true})
	}
	return true
}

// numberedParts splits a reply that answers by number, "1 yes 2 no, keep
// v1 3 later", "1) yes 2) no", "1. yes\n2. no", into its parts in order
// (the first for 1): it must open with 1, and its numbers must follow one
// another, each before some words. nil for any other reply.
func numberedParts(said string) []string {
	ws := strings.Fields(said)
	var parts []string
	var cur []string
	want := 1
	for _, w := range ws {
		if n, ok := partNumber(w); ok && n == want && (want == 1 || len(cur) > 0) {
			if want > 1 {
				parts = append(parts, strings.TrimRight(strings.Join(cur, " "), ",;"))
			}
			cur, want = cur[:0], want+1
			continue
		}
		if want == 1 {
			return nil // it does not open with 1
		}
		cur = append(cur, w)
	}
	if want <= 2 || len(cur) == 0 {
		return nil
	}
	return append(parts, strings.TrimRight(strings.Join(cur, " "), ",;"))
}

// partNumber reads a part's number: "2", "2.", "2)", "2:", "(2)".
func partNumber(w string) (int, bool) {
	w = strings.TrimPrefix(w, "(")
	w = strings.TrimRight(w, ".):")
	if len(w) == 0 || len(w) > 2 {
		return 0, false
	}
	n, err := strconv.Atoi(w)
	return n, err == nil && n > 0
}

// shareOut splits a reply among the questions qs it answers together:
// each clause goes to the question it names a word of, a clause that
// names none to the question of the clause before it (the first to the
// first question no clause names). Only when every question gets a part
// is the reply split; nil otherwise.
func (l *Ledger) shareOut(said string, qs []int) map[int]string {
	if len(qs) < 2 {
		return nil
	}
	clauses := answerClauses(said)
	owner := make([]int, len(clauses))
	named := make(map[int]bool)
	for c, cl := range clauses {
		owner[c] = -1
		ct := textTerms(cl)
		for _, q := range qs {
			qt := l.Items[q].terms()
			if ct.shares(qt) {
				owner[c] = q
				named[q] = true
				break
			}
		}
	}
	for c := range clauses {
		switch {
		case owner[c] >= 0:
		case c > 0:
			owner[c] = owner[c-1]
		default:
			for _, q := range qs {
				if !named[q] {
					owner[c] = q
					break
				}
			}
		}
	}
	out := make(map[int]string)
	for c, cl := range clauses {
		cl = strings.TrimSpace(cl)
		for _, w := range []string{"and ", "but ", "so ", "also "} {
			cl = strings.TrimPrefix(cl, w)
		}
		if owner[c] < 0 || cl == "" {
			return nil
		}
		if out[owner[c]] != "" {
			cl = out[owner[c]] + ", " + cl
		}
		out[owner[c]] = cl
	}
	for _, q := range qs {
		if out[q] == "" {
			return nil
		}
	}
	return out
}

// answerClauses splits a reply at commas, semicolons, line ends, "!" and
// a full stop that ends a sentence (not the one in "release/2.3").
func answerClauses(said string) []string {
	var out []string
	start := 0
	for i := 0; i < len(said); i++ {
		c := said[i]
		if c == ',' || c == ';' || c == '\n' || c == '!' || c == '.' && (i+1 == len(said) || said[i+1] == ' ' || said[i+1] == '\n') {
			if i > start {
				out = append(out, said[start:i])
			}
			start = i + 1
		}
	}
	if start < len(said) {
		out = append(out, said[start:])
	}
	return out
}

// byTopic says a reply takes up matters by topic: a sentence that opens
// "For the backfill:", "As for the cache,", "About the branch:".
func byTopic(said string) bool {
	for _, sent := range strings.FieldsFunc(said, func(r rune) bool { return r == '.' || r == '!' || r == '?' || r == '\n' }) {
		t := strings.ToLower(strings.TrimSpace(sent))
		t = strings.TrimPrefix(strings.TrimPrefix(t, "and "), "also ")
		for _, p := range []string{"for the ", "as for ", "about the ", "regarding ", "re the "} {
			if !strings.HasPrefix(t, p) {
				continue
			}
			if i := strings.IndexAny(t, ":,"); i > len(p) && i <= len(p)+40 {
				return true
			}
		}
	}
	return false
}

// bareAnswer says a prompt is one short answer ("postgres", "500ms",
// "the second one"): a line of a few words, no list, no yes or no (which
// may agree to all the offers at once).
func bareAnswer(said string) bool {
	said = strings.TrimSpace(said)
	return said != "" && !strings.ContainsAny(said, "\n,;") && len(strings.Fields(said)) <= 4 && !affirmative(said) && !putsOff(said)
}

// short says a prompt is one line of a few words: one answer.
func short(said string) bool {
	said = strings.TrimSpace(said)
	return said != "" && !strings.ContainsAny(said, "\n,;") && len(strings.Fields(said)) <= 4
}

// toAll says a short reply answers every question at once ("yes to
// all", "both", "all three").
func toAll(said string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(said), func(r rune) bool { return !unicode.IsLetter(r) }) {
		switch w {
		case "all", "both", "each", "every", "everything":
			return true
		}
	}
	return false
}

// answersListed is the index of the listed question a short reply
// answers when the assistant asked two or more in one list (the one
// the reply names, else the first open one; for a yes or a no, the
// first that asks yes or no), -1 otherwise: a one-word "yes" does not
// answer "which alias?".
func (l *Ledger) answersListed(said string, line int, yn bool) int {
	qline, n, first := -1, 0, -1
	for i, it := range l.Items {
		if it.Closed != nil || it.Kind != Question || it.By != ByAssistant || it.Elsewhere || it.Line >= line {
			continue
		}
		if !it.Listed {
			return -1 // an offer in prose may be agreed to with the rest
		}
		switch {
		case qline < 0:
			qline = it.Line
		case it.Line != qline:
			return -1 // asked in different texts: not one list
		}
		n++
		if first < 0 && (!yn || polar(it.Text)) {
			first = i
		}
	}
	if n < 2 {
		return -1
	}
	if yn {
		return first
	}
	return l.answers(said, line)
}

// sentenceBreaks puts each sentence on a line of its own, not splitting
// "v1.2?".
var sentenceBreaks = strings.NewReplacer(". ", "\n", "! ", "\n", ": ", "\n")

// pointAt marks the open listed questions that a question giving only
// their numbers asks again ("And 2?", "3?", "4 and 5?"), and reports
// whether q was one.
func (l *Ledger) pointAt(line int, q string) bool {
	var nums []int
	for _, w := range strings.FieldsFunc(strings.ToLower(q), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		switch w {
		case "and", "then", "now", "next", "also", "or", "what", "about", "number", "no", "question", "questions":
			continue
		}
		n, err := strconv.Atoi(w)
		if err != nil || n < 1 || n > 20 {
			return false
		}
		nums = append(nums, n)
	}
	if len(nums) == 0 {
		return false
	}
	last := l.latestList(line)
	if last < 0 {
		return false
	}
	pos, found := 0, false
	for i := range l.Items {
		it := &l.Items[i]
		if !it.Listed || it.Line != last || it.Kind != Question || it.By != ByAssistant {
			continue
		}
		pos++
		if slices.Contains(nums, pos) && it.Closed == nil {
			it.Pointed, it.dirty, found = line, true, true
		}
	}
	return found
}

// hasListed says some listed question of the assistant's is open: only
// then can a reply's "And 2?" point at one.
func (l *Ledger) hasListed() bool {
	for _, it := range l.Items {
		if it.Listed && it.Closed == nil {
			return true
		}
	}
	return false
}

// pointed lists the open listed questions the assistant asked for again
// last, after the user's latest prompt.
func (l *Ledger) pointed(line int) []int {
	last := 0
	for _, it := range l.Items {
		if it.Closed == nil && it.Pointed > l.Prompt && it.Pointed < line {
			last = max(last, it.Pointed)
		}
	}
	var out []int
	for i, it := range l.Items {
		if last > 0 && it.Closed == nil && it.Pointed == last {
			out = append(out, i)
		}
	}
	return out
}

// yesOrNo says a short reply opens with a yes or a no.
func yesOrNo(said string) bool {
	ws := strings.Fields(strings.ToLower(said))
	if len(ws) == 0 {
		return false
	}
	switch strings.Trim(ws[0], ".,!") {
	case "yes", "y", "yep", "yeah", "sure", "ok", "okay", "k", "kk", "no", "nope", "nah", "n":
		return true
	}
	return false
}

// polar says a question asks yes or no: it opens with no question word
// and offers no alternatives ("Version the site with mike?", not "Which
// alias should be the default?" nor "Flyway or Liquibase?").
func polar(q string) bool {
	if i := strings.LastIndexByte(strings.TrimRight(q, "?"), '?'); i >= 0 {
		q = q[i+1:] // the last question of several
	}
	if i := strings.LastIndex(q, ": "); i >= 0 {
		q = q[i+2:] // after its lead
	}
	ws := strings.FieldsFunc(strings.ToLower(q), func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' })
	for len(ws) > 0 && (ws[0] == "and" || ws[0] == "so" || ws[0] == "also" || ws[0] == "then" || ws[0] == "one" || ws[0] == "last") {
		ws = ws[1:]
	}
	if len(ws) == 0 {
		return false
	}
	switch ws[0] {
	case "which", "what", "what's", "how", "when", "where", "who", "whom", "whose", "why":
		return false
	}
	return !slices.Contains(ws, "or")
}

// answers is the index of the one open question of the assistant's that a
// bare answer answers, when it asked several: the one that names what the
// answer says ("Flyway or Liquibase?" for "flyway"), else the oldest. A
// user who answers questions one prompt at a time answers them in order.
// -1 when fewer than two are open.
func (l *Ledger) answers(said string, line int) int {
	first, n := -1, 0
	var ws []string
	for _, w := range strings.Fields(strings.ToLower(said)) {
		if w = strings.Trim(w, ".!?\"'()"); len(w) >= 3 {
			ws = append(ws, w)
		}
	}
	named := -1
	for i, it := range l.Items {
		if it.Closed != nil || it.Kind != Question || it.By != ByAssistant || it.Elsewhere || it.Line >= line {
			continue
		}
		n++
		if first < 0 {
			first = i
		}
		if named >= 0 {
			continue
		}
		q := strings.FieldsFunc(strings.ToLower(it.Text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' })
		for _, w := range ws {
			if slices.Contains(q, w) {
				named = i
				break
			}
		}
	}
	switch {
	case n < 2:
		return -1
	case named >= 0:
		return named
	}
	return first
}

// asksBack says a prompt only asks the assistant something back: each
// sentence of it is a question (one that opens with a question word, or
// ends with "?" and asks with one: "and the $lookup, is that slow
// too?") or an acknowledgement ("hm ok."). Such a prompt answers none of
// the assistant's questions. A sentence that only ends with "?" ("keep
// both I think?", "rolling?") is an answer put tentatively.
func asksBack(said string) bool {
	asked := false
	for _, s := range strings.FieldsFunc(strings.ToLower(said), func(r rune) bool { return r == '.' || r == '!' || r == '\n' }) {
		for _, q := range strings.SplitAfter(s, "?") {
			ws := strings.FieldsFunc(q, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' && r != '?' && !unicode.IsDigit(r) })
			ws = withoutLeadIn(ws)
			switch {
			case len(ws) > 0 && replyWord(strings.Trim(ws[0], "?")):
				return false // "yes, and can you also ...?"
			case len(ws) == 0:
				continue // an acknowledgement, or nothing
			case interrogative(ws, strings.HasSuffix(strings.TrimSpace(q), "?")):
				asked = true
			default:
				return false
			}
		}
	}
	return asked
}

// noteTaking says a prompt only takes note ("ok", "k", "cool", "thanks"):
// no yes, no no.
func noteTaking(said string) bool {
	switch strings.ToLower(strings.Trim(strings.TrimSpace(said), ".!")) {
	case "ok", "okay", "k", "kk", "cool", "thanks", "thank you", "thx", "nice", "great", "good", "got it", "i see", "noted":
		return true
	}
	return false
}

// replyWord says a word opens a reply rather than a question: a yes, a
// no, a go-ahead.
func replyWord(w string) bool {
	switch w {
	case "yes", "yeah", "yep", "yup", "no", "nope", "nah", "sure", "ok", "okay", "k", "go", "please", "both", "neither", "either", "fine", "agreed":
		return true
	}
	return false
}

// withoutLeadIn drops the words that lead into a sentence ("and", "so",
// "hm"): "ok" alone may be a yes, so it goes only after a musing "hm".
func withoutLeadIn(ws []string) []string {
	musing := false
	for len(ws) > 0 {
		w := strings.Trim(ws[0], "?")
		switch {
		case slices.Contains([]string{"hm", "hmm", "oh", "ah", "huh"}, w):
			musing = true
		case musing && (w == "ok" || w == "okay"):
		case slices.Contains([]string{"and", "so", "but", "also", "btw", "wait", "cool", "thanks", "thx", "right", "nice", "great", "perfect", "awesome"}, w):
		default:
			return ws
		}
		ws = ws[1:]
	}
	return ws
}

// interrogative says words open a question, or, with a question mark,
// hold one: a question word, or an auxiliary before its subject ("is
// that", "would it", "can we").
func interrogative(ws []string, mark bool) bool {
	for i, w := range ws {
		w = strings.Trim(w, "?")
		switch w {
		case "how", "what", "why", "when", "where", "who", "whom", "whose", "which", "what's", "how's", "where's", "who's", "whats", "hows":
			if i == 0 || mark {
				return true
			}
		case "is", "are", "was", "were", "does", "do", "did", "can", "could", "would", "will", "should", "has", "have", "isn't", "doesn't", "won't", "wouldn't", "can't", "couldn't":
			if i+1 < len(ws) && (i == 0 || mark) {
				switch strings.Trim(ws[i+1], "?") {
				case "that", "this", "it", "there", "we", "you", "i", "they", "he", "she", "the", "a", "an", "those", "these":
					return true
				}
			}
		}
		if !mark && i > 0 {
			return false
		}
	}
	return false
}

// putsOff says a reply puts the question off rather than answers it: a
// short reply (a sentence or two) with a clause of putting off ("park
// it", "let's decide later", "I'll ask her tomorrow").
func putsOff(said string) bool {
	if len(said) > 300 {
		return false
	}
	for _, cl := range analyse(said).clauses() {
		if cl.has(cDefer) || cl.has(cLater) {
			return true
		}
	}
	return consults(said)
}

// consults says a reply leaves the choice to someone else first: the user
// will check with, ask or wait on a third person ("A probably, but let me
// check with Priya first", "I'll ask the DBA", "waiting on ops"). What
// it says is a leaning, not the answer.
func consults(said string) bool {
	ws := strings.FieldsFunc(strings.ToLower(said), func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' })
	for i, w := range ws {
		next := ""
		if i+1 < len(ws) {
			next = ws[i+1]
		}
		switch w {
		case "check", "checking", "confirm", "confirming", "clear", "sync", "talk", "talking", "speak", "discuss":
			if next == "with" || w == "talk" && next == "to" || w == "speak" && next == "to" {
				return i > 0 && speaker(ws[:i])
			}
		case "ask", "asking":
			if next != "" && next != "you" && next != "for" && next != "about" {
				return i > 0 && speaker(ws[:i])
			}
		case "waiting", "wait":
			if (next == "on" || next == "for") && i+2 < len(ws) && ws[i+2] != "you" && ws[i+2] != "the" && ws[i+2] != "it" {
				return true
			}
		case "hear":
			if next == "back" {
				return true
			}
		}
	}
	return false
}

// speaker says the words before a verb make the user its subject: "let
// me", "I'll", "I need to", "we should".
func speaker(before []string) bool {
	for _, w := range before[max(0, len(before)-4):] {
		switch w {
		case "me", "i", "i'll", "i'm", "we", "we'll", "i'd", "lemme", "gotta":
			return true
		}
	}
	return false
}

// Answered records a question the assistant put to the user through the
// client's own form (Claude Code's AskUserQuestion) with the choice the
// user made: a question closed by its answer at once, kept like one
// answered in a prompt. The form's answer is not a prompt, so nothing
// else reads it.
func (l *Ledger) Answered(turn, line int, t time.Time, question, answer string) {
	question, answer = text.ClipLine(question, maxItemBytes), text.ClipLine(answer, maxAnswer)
	if question == "" || answer == "" {
		return
	}
	l.add(Item{Text: question, Kind: Question, By: ByAssistant, Turn: turn, Line: line, Time: t, Explicit: true})
	for i := range l.Items {
		if it := &l.Items[i]; it.Kind == Question && it.Line == line && it.Text == question {
			it.Closed, it.dirty = &Closure{Turn: turn, Line: line, By: ClosedByAnswer, Evidence: answer}, true
		}
	}
}

// replyToUser closes the user's open questions with the assistant's text,
// unless the text only announces what it will look at first.
func (l *Ledger) replyToUser(turn, line int, said string) {
	asked := false
	for _, it := range l.Items {
		asked = asked || (it.Closed == nil && it.By == ByUser && (it.Kind == Question || inquiry(it) != ""))
	}
	if !asked {
		return
	}
	first := said
	if ss := sentences(strings.TrimSpace(strings.SplitN(said, "\n", 2)[0])); len(ss) > 0 {
		first = ss[0]
	}
	if announces(said, first) {
		return
	}
	reply := joined(said)
	for i := range l.Items {
		it := &l.Items[i]
		if it.Closed != nil || it.By != ByUser || it.Line >= line {
			continue
		}
		if q := inquiry(*it); q != "" && namesAll(reply, textTerms(q)) {
			// "Can you figure out the root cause?" is done when the
			// reply says what the root cause is.
			it.Closed, it.dirty = &Closure{Turn: turn, Line: line, By: ClosedByReply, Evidence: text.ClipLine(answerTo(said, it.terms()), maxEvidence),
				Later: it.Line < l.Prompt}, true
			continue
		}
		if it.Kind == Question && addresses(reply, it.terms()) {
			it.Closed, it.dirty = &Closure{Turn: turn, Line: line, By: ClosedByReply, Evidence: text.ClipLine(answerTo(said, it.terms()), maxEvidence),
				Later: it.Line < l.Prompt}, true
		}
	}
}

// inquiry is the sentence of a user's request that asks to find
// something out, when that is all the request asks ("can you figure out
// the root cause?", "check why the build is red"): its answer is a
// reply, not a change. "" for other requests.
func inquiry(it Item) string {
	if it.Kind != Request || it.By != ByUser {
		return ""
	}
	asks := ""
	for _, sn := range sentences(it.Text) {
		l := " " + strings.ToLower(sn) + " "
		for _, v := range []string{" figure out ", " find out ", " work out ", " explain ", " investigate ", " diagnose ", " look into ", " tell me ", " why ", " root cause",
			" dig in", " dig into ", " look at ", " a look ", " hunt ", " track down ", " see what ", " check what ", " check whether ", " check if "} {
			if asks == "" && strings.Contains(l, v) {
				asks = sn
			}
		}
		for _, v := range []string{" fix", " add ", " implement", " change ", " update ", " write ", " make ", " remove ", " refactor", " migrate ", " rename ", " then "} {
			if strings.Contains(l, v) && !strings.HasPrefix(strings.TrimSpace(l), "don't") {
				return "" // it asks for work too
			}
		}
	}
	return asks
}

// namesNothing says an inquiry names nothing to find in a reply: only
// the verbs of finding out and words that point back ("could you dig
// in?", "can you hunt it down?").
func namesNothing(q string) bool {
	t := textTerms(q)
	if len(t.names) > 0 {
		return false
	}
	for _, w := range t.words {
		if len(w) >= 3 && !findingVerb(w) {
			return false
		}
	}
	return true
}

// findingVerb: a word of asking to find out, not of what to find.
func findingVerb(w string) bool {
	switch w {
	case "figur", "figure", "find", "work", "explain", "investig", "investigate", "diagnos", "diagnose", "look", "tell", "why", "can", "could",
		"dig", "hunt", "track", "check", "see", "take", "have", "down", "into", "you", "please", "pls":
		return true
	}
	return false
}

// hasOpenQuestion says the assistant asked something since the latest
// prompt that is still open: the user's next words answer it rather than
// move on.
func (l *Ledger) hasOpenQuestion() bool {
	for _, it := range l.Items {
		if it.Closed == nil && it.Kind == Question && it.By == ByAssistant && it.Line > l.Prompt {
			return true
		}
	}
	return false
}

// namesAll says a reply names what an inquiry asks about: a name it
// uses, or all of its content words but the verbs of finding out.
func namesAll(reply string, q *terms) bool {
	for _, n := range q.names {
		if len(n) >= 3 && strings.Contains(reply, n) {
			return true
		}
	}
	n := 0
	for _, w := range q.words {
		if findingVerb(w) {
			continue
		}
		if len(w) >= 3 && !strings.Contains(reply, w) {
			return false
		}
		n++
	}
	return n > 0
}

// answerTo is the part of a reply that answers a question: from the
// first sentence that names what the question names (or shares a word
// with it) to the end. A reply that answers two things ("41.7 ns per
// call. While I'm at it, your first question: only legacy_routes.cc
// calls EncodeLegacy()") keeps, for each, the sentences about it.
func answerTo(said string, q *terms) string {
	said = strings.Join(strings.Fields(said), " ")
	ss := sentences(said)
	for i, sn := range ss {
		if i > 0 && addresses(joined(sn), q) {
			if j := strings.Index(said, sn); j > 0 {
				return said[j:]
			}
		}
	}
	return said
}

// addresses says whether a reply (joined: lower case, letters and digits
// only) speaks of what a question asks about: a name the question uses,
// or else one of its content words. A question among others in a long
// prompt ("also, at some point: does anything still call EncodeLegacy()?")
// is not answered by the reply to the first ("Starting with the build.").
// A question with nothing to look for ("what do you think?") is answered
// by any reply.
func addresses(reply string, q *terms) bool {
	if len(q.names) == 0 && len(q.words) == 0 {
		return true
	}
	named := false
	for _, n := range q.names {
		if versionName(n) {
			// "cutting v1.4.0 today, can you go through the review?" is
			// not answered by any reply that names the release.
			continue
		}
		named = true
		if i := strings.LastIndexByte(n, '.'); i > 0 {
			n = n[:i]
		}
		if len(n) >= 3 && strings.Contains(reply, n) {
			return true
		}
	}
	if named {
		return false // a question about code names it
	}
	for _, w := range q.words {
		if len(w) >= 3 && strings.Contains(reply, w) {
			return true
		}
	}
	return false
}

// versionName says a name is a version number as terms keep it ("v140"
// of v1.4.0, "2024"): what a whole session's replies name, not what one
// question asks about.
func versionName(n string) bool {
	n = strings.TrimPrefix(n, "v")
	return n != "" && allDigits(n)
}

// closable: some item stated before line could be closed by evidence.
func (l *Ledger) closable(line int) bool {
	for i := range l.Items {
		if it := &l.Items[i]; it.Closed == nil && it.Line < line && it.Kind != Question {
			return true
		}
	}
	return false
}

// close closes the open items stated before line that the evidence names.
// Questions close only by an answer.
func (l *Ledger) close(turn, line int, ev *terms, by, evidence string) {
	for i := range l.Items {
		it := &l.Items[i]
		if it.Closed != nil || it.Line >= line || it.Kind == Question {
			continue
		}
		if ref := workItem(it.Text); ref != "" && it.By == ByAssistant && (by == ClosedByFile || by == ClosedByCommand) {
			// A unit of work touches many files and runs many
			// commands; one that shares its words ("close project
			// review session", project_review_live_test.exs) is a
			// step of it, not its end: a command that names it is
			// (bd close spotter-gqc.6, a commit).
			if by == ClosedByCommand && namesRef(ev, ref) {
				it.Closed, it.dirty = &Closure{Turn: turn, Line: line, By: by, Evidence: text.ClipLine(evidence, maxEvidence)}, true
			}
			continue
		}
		if matches(it.terms(), ev, by == ClosedByFile) || (by == ClosedBySaid && (sameSubject(it.terms(), ev) || l.workedOn(it, ev, line))) {
			it.Closed, it.dirty = &Closure{Turn: turn, Line: line, By: by, Evidence: text.ClipLine(evidence, maxEvidence)}, true
		}
	}
}

// workedOn says a statement of completion at line speaks of a long item
// the session worked on since it was stated: a file changed in between,
// and the statement shares three of the item's content words. A plan
// ("pass an idempotency key derived from the subscription id ... to
// Stripe, rather than ...") is done when it is reported done in other
// words ("the retry reuses the same idempotency key, so Stripe returns
// ..."), and is too long to share half its words with the report.
func (l *Ledger) workedOn(it *Item, ev *terms, line int) bool {
	return it.Line < l.Changed && l.Changed < line && sharedWords(it.terms().words, ev.words) >= 3
}

// closeAll takes the assistant at its word when it says everything is
// done ("All done."): the tasks and requests stated before close. Problems
// and deferred items stay: "all done" speaks of the work in hand, not of
// what was found broken or put off.
func (l *Ledger) closeAll(turn, line int, said string) {
	for i := range l.Items {
		it := &l.Items[i]
		if it.Closed == nil && it.Line < line && (it.Kind == Task || it.Kind == Request) {
			it.Closed, it.dirty = &Closure{Turn: turn, Line: line, By: ClosedBySaid, Evidence: text.ClipLine(said, maxEvidence)}, true
		}
	}
}

// add adds an item, or updates the item it restates: the same speaker,
// about the same thing (see same). A restatement of a closed item opens
// it again: it was said to be open after the evidence.
func (l *Ledger) add(it Item) {
	it.t = textTerms(it.Text)
	for i := len(l.Items) - 1; i >= 0; i-- {
		old := &l.Items[i]
		if old.By != it.By || old.Line == it.Line || (old.Kind == Question) != (it.Kind == Question) || !same(old.terms(), it.t) {
			// Items of one text are distinct by construction: a list
			// names different things even when they share words.
			continue
		}
		if old.FirstLine == 0 {
			old.FirstLine = old.Line
		}
		old.Text, old.Kind, old.Turn, old.Line, old.Time, old.t = it.Text, it.Kind, it.Turn, it.Line, it.Time, it.t
		old.Explicit = old.Explicit || it.Explicit
		old.Restated++
		old.Closed = nil
		old.dirty = true
		return
	}
	it.dirty = true
	l.Items = append(l.Items, it)
	l.trim()
}

// trim keeps at most MaxItems: the oldest closed items go first, those
// that settle a question (the user's answer) last of them, since the
// restore carries what the user answered however long ago; then the
// oldest open ones.
func (l *Ledger) trim() {
	for len(l.Items) > MaxItems {
		victim := -1
		for i, it := range l.Items {
			if it.Closed == nil {
				continue
			}
			if victim < 0 {
				victim = i
				continue
			}
			v := l.Items[victim]
			if a, b := settles(it), settles(v); a != b {
				if !a {
					victim = i
				}
				continue
			}
			if it.Closed.Line < v.Closed.Line {
				victim = i
			}
		}
		if victim < 0 {
			for i, it := range l.Items {
				if victim < 0 || it.Line < l.Items[victim].Line {
					victim = i
				}
			}
		}
		l.Items = slices.Delete(l.Items, victim, victim+1)
	}
}

// settles says a closed item is a question and its answer.
func settles(it Item) bool {
	return it.Kind == Question && it.Closed != nil && (it.Closed.By == ClosedByAnswer || it.Closed.By == ClosedByReply && it.Closed.Later)
}

// userStatements reads a prompt. A short prompt that asks for something is
// one item, whole, because its parts make sense together; from a longer one
// the first few requests, questions and open statements are kept.
func userStatements(r *reader, text string) []statement {
	sts := r.extract(text, true)
	var open, done []statement
	for _, st := range sts {
		switch {
		case st.done:
			done = append(done, st)
		case waives(st.text):
			// "Rename is a nit, skip it": the user waives the thing it
			// names; the checkpoint's constraints keep the sentence.
		case !forbids(st.text):
			// "whatever you do, don't run alembic downgrade" is a rule
			// the user sets (the checkpoint's constraints), not work
			// left open.
			open = append(open, st)
		}
	}
	if len(open) == 0 {
		return done
	}
	if clean := promptProse(text); len(clean) <= maxPromptAsItem {
		k := open[0].kind
		for _, st := range open {
			if st.kind == Request {
				k = Request
			}
		}
		return append(done, statement{text: clean, kind: k, sticky: true})
	}
	if len(open) > 4 {
		open = open[:4]
	}
	return append(done, open...)
}

// forbids says a sentence of the user's only forbids something ("Oh and
// whatever you do, don't run alembic downgrade against anything, ...");
// "don't forget the docs" asks for work.
func forbids(s string) bool {
	l := strings.ToLower(strings.TrimSpace(s))
	for {
		cut := false
		for _, f := range []string{"oh", "and", "also", "btw", "but", "please", "whatever you do", "one more thing", "just", "so"} {
			if rest, ok := strings.CutPrefix(l, f); ok && (rest == "" || rest[0] == ' ' || rest[0] == ',') {
				l, cut = strings.TrimLeft(rest, " ,"), true
			}
		}
		if !cut {
			break
		}
	}
	for _, p := range []string{"don't ", "dont ", "do not ", "never "} {
		if strings.HasPrefix(l, p) {
			return !strings.HasPrefix(l[len(p):], "forget")
		}
	}
	return false
}

// promptProse returns a prompt's prose on one line: no code blocks, no
// quotations, no tag lines.
func promptProse(text string) string {
	var b strings.Builder
	inCode := false
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inCode = !inCode
			continue
		}
		if inCode || t == "" || t[0] == '>' || (t[0] == '<' && strings.HasSuffix(t, ">")) {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t)
	}
	return b.String()
}

// startsWork reports a command that marks work as started in a tracker
// ("bd update X --status in_progress", a label "in-progress"): a start, not
// an end.
func startsWork(cmd string) bool {
	l := strings.ToLower(cmd)
	return strings.Contains(l, "in_progress") || strings.Contains(l, "in-progress") || strings.Contains(l, "in progress")
}

// readOnly reports a command whose every part only reads: it is not
// evidence that any work was done.
func readOnly(cmd string) bool {
	ro := true
	forSegments(cmd, func(seg []string) {
		ro = ro && readOnlySegment(seg)
	})
	return ro
}

// readOnlySegment reports a simple command that only reads or moves
// around: viewers, searches, cd, git's and the issue tracker's queries.
func readOnlySegment(seg []string) bool {
	prog := seg[0]
	if i := strings.LastIndexByte(prog, '/'); i >= 0 {
		prog = prog[i+1:]
	}
	sub := ""
	if len(seg) > 1 {
		sub = seg[1]
	}
	switch prog {
	case "cat", "ls", "ll", "grep", "rg", "ag", "find", "fd", "head", "tail", "less", "more", "echo",
		"printf", "pwd", "wc", "which", "type", "file", "stat", "du", "df", "tree", "jq", "yq", "date",
		"env", "printenv", "ps", "sleep", "true", "false", "diff", "cd", "pushd", "popd", "test", "[",
		"sort", "uniq", "cut", "tr", "column", "nl", "basename", "dirname", "realpath", "readlink",
		"whoami", "id", "uname", "hostname", "man", "history", "awk", "sed", "xargs", "time", "watch":
		return !(prog == "sed" && strings.Contains(strings.Join(seg, " "), " -i"))
	case "git":
		switch sub {
		case "status", "log", "diff", "show", "branch", "remote", "fetch", "ls-files", "rev-parse",
			"blame", "add", "stash", "reflog", "describe", "config", "grep", "shortlog", "worktree":
			return true
		}
	case "bd":
		switch sub {
		case "show", "list", "ready", "sync", "prime", "stats", "search", "blocked", "dep":
			return true
		}
	}
	return false
}

// matches reports whether evidence is about an item. Evidence that uses
// one of the names the item uses (identifiers, files, commands) matches.
// Evidence that names a sibling of one of them (spotter-gqc.5 for an item
// about spotter-gqc.6, or a child: spotter-gqc.1 for spotter-gqc) does
// not, however many words they share. Otherwise the evidence must carry at
// least half of the item's content words, and two of them when it has two
// or more.
//
// A file is named by its name: an item that names things in code
// (`TranscriptTailSupervisor`) is not closed by another file whose folder
// happens to share its words (transcript_tail_adapter/tail_f.ex).
func matches(it, ev *terms, file bool) bool {
	if shareName(it, ev) {
		return true
	}
	if siblings(it.names, ev.names) || (file && it.code) {
		return false
	}
	return wordsMatch(it.words, ev.words)
}

func shareName(it, ev *terms) bool {
	for _, n := range it.names {
		if has(ev.names, n) || (!strings.Contains(n, ".") && has(ev.stems, n)) {
			return true
		}
	}
	return false
}

// siblings: two different names that are the same once trailing digits
// are dropped (spottergqc6 and spottergqc5, spottergqc and spottergqc1).
func siblings(a, b []string) bool {
	for _, x := range a {
		tx := strings.TrimRight(x, "0123456789")
		if len(tx) < 3 {
			continue
		}
		for _, y := range b {
			if x != y && tx == strings.TrimRight(y, "0123456789") {
				return true
			}
		}
	}
	return false
}

// sameSubject: a short statement of completion about what the item's
// statement was about ("Dialyzer is still complaining" ... "Dialyzer
// passes", "The race isn't fixed yet" ... "The race is fixed now"): the
// same first content word, the subject of both.
func sameSubject(it, ev *terms) bool {
	if len(it.names) > 0 && len(ev.names) > 0 && !shareName(it, ev) {
		return false // "spotter-4te.3 is committed" is not about spotter-4te.4
	}
	return ev.first != "" && ev.first == it.first && len(ev.words) <= 6
}

func wordsMatch(k, e []string) bool {
	if len(k) == 0 {
		return false
	}
	shared := 0
	for _, w := range k {
		if has(e, w) {
			shared++
		}
	}
	return shared >= min(2, len(k)) && 2*shared >= len(k)
}

// same reports whether two statements are about the same thing: when both
// name things, at least half of their names are shared (Jaccard) and, when
// both have several words, a third of the longer one's words; otherwise
// they share at least two content words and half of the longer one's.
func same(a, b *terms) bool {
	if len(a.names) > 0 && len(b.names) > 0 {
		n := sharedWords(a.names, b.names)
		if 2*n < len(a.names)+len(b.names)-n {
			return false
		}
		if len(a.words) <= 1 || len(b.words) <= 1 {
			return true
		}
		return 3*sharedWords(a.words, b.words) >= max(len(a.words), len(b.words))
	}
	n := sharedWords(a.words, b.words)
	return n >= min(2, len(a.words), len(b.words)) && n > 0 && 2*n >= max(len(a.words), len(b.words))
}

func sharedWords(a, b []string) int {
	n := 0
	for _, w := range a {
		if has(b, w) {
			n++
		}
	}
	return n
}

// namesRef: the terms name the id ref (gqc.6 in "bd close spotter-gqc.6",
// in a commit's message).
func namesRef(ev *terms, ref string) bool {
	r := strings.Map(func(c rune) rune {
		if c < 128 && (isLetter(byte(c)) || isDigit(byte(c))) {
			return c
		}
		return -1
	}, ref)
	for _, n := range ev.names {
		if strings.Contains(n, r) {
			return true
		}
	}
	return false
}

// wholeWork: a request that covers all the work ("continue until all are
// done", "do the rest", "finish everything"): it names nothing, and stands
// until the assistant says it is all done (closeAll).
func wholeWork(s string) bool {
	for _, w := range strings.Fields(strings.ToLower(s)) {
		switch strings.Trim(w, ".,;:!?") {
		case "all", "everything", "rest", "remaining":
			return true
		}
	}
	return false
}
