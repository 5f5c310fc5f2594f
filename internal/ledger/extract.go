package ledger

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-agent/cairn/internal/text"
)

// statement is one thing a text says about work: an open item, or a
// completion that is evidence against open items.
type statement struct {
	text string
	kind Kind
	// done marks a completion ("X is fixed now", a ✅ list item, a list
	// under "Done"): evidence, not an item.
	done bool
	// sticky marks an item stated explicitly (a headed list, a label, a
	// checkbox, a question under "Open questions"): kept even when the
	// text goes on to something else.
	sticky bool
	// question marks a question asked in prose, kept only when it ends
	// the text (see reader.flush).
	question bool
	// universal marks a completion said of everything ("All done").
	universal bool
	// listed marks a statement read from a list item: questions listed
	// one under another are answered one at a time.
	listed bool
	// elsewhere marks a question put to someone other than the user
	// ("Open question for Dana: ..."): the user's next prompt does not
	// answer it.
	elsewhere bool
	para      int
}

// Limits that keep one text from flooding the ledger.
const (
	maxStatements = 24  // per text
	maxItemBytes  = 240 // an item's text
	maxWords      = 64  // words read of one sentence
)

// reader walks the lines of one text and emits its statements.
type reader struct {
	user bool
	out  []statement

	sec      headingKind // the list context: a heading or an intro line
	secKind  Kind
	secFirst bool // nothing read under the heading yet
	secList  bool // a list has started under it
	blank    bool // a blank line was seen since the last line
	para     int  // paragraph number: blank lines and headings separate them
	inCode   bool
	acts     []int // indices in out of the open prose statements of this paragraph
	// named is the index in out of the one problem the paragraph's last
	// label stated ("The bug: ..."), which an action on "it" right after
	// takes up ("Fixing it ..."); -1 when there is none.
	named int

	intro pendingIntro

	listing bool // reading a list item: what it states is listed

	// Scratch analyses, reused from sentence to sentence: an for prose,
	// aux and aux2 for intros and list items.
	an, aux, aux2 analysis
}

// extract returns the statements of a text: an assistant's (user false) or
// a user's prompt.
func extract(text string, user bool) []statement {
	return new(reader).extract(text, user)
}

// extract reads one text with r, reusing r's buffers.
func (r *reader) extract(text string, user bool) []statement {
	*r = reader{user: user, out: r.out[:0], acts: r.acts[:0], named: -1}
	for len(text) > 0 && len(r.out) < maxStatements*2 {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		r.line(line)
	}
	r.introAsProse()
	return r.flush()
}

// pendingIntro is a line ending with a colon, waiting to see whether a
// list follows it.
type pendingIntro struct {
	last, line string
	under      section // the heading's section it sits under
	headed     bool    // right under an open heading
	set        bool
}

// introAsProse: no list followed the intro; its last sentence is prose.
func (r *reader) introAsProse() {
	if r.intro.set {
		r.intro.set = false
		r.prose(r.intro.last)
	}
}

// gate is the cheap look at a text before any sentence is split: one pass
// over its words. A text with no word of an open class (unfinished work,
// persistence, negation, deferral, problems and plans beside a list), no
// question mark and no open checkbox states nothing open; one with no
// completion word and no ✅ closes nothing. About half of an assistant's
// texts ("Let me read the file.") pass neither and cost one pass.
func gate(text string, it *wordIter) (open, done bool) {
	var c cue
	it.reset(text)
	for w, _, _, more := it.next(); more; w, _, _, more = it.next() {
		if len(w) >= 2 && len(w) <= 14 {
			c |= wordCue(w)
		}
	}
	const openWords = cOpen | cStill | cYet | cLeft | cNext | cLater | cDefer | cAttempt | cExcept | cScope | cNeg
	const listWords = cModal | cPlan | cProblem | cQuestion | cKnown
	open = c&openWords != 0 || strings.IndexByte(text, '?') >= 0 ||
		(c&listWords != 0 && (hasList(text) || strings.IndexByte(text, ':') >= 0)) ||
		strings.Contains(text, "[ ]") || strings.Contains(text, "⏳") || strings.Contains(text, "❌") || strings.Contains(text, "☐")
	done = c&(cDone|cAll) != 0 || strings.Contains(text, "✅") || strings.Contains(text, "✓") || strings.Contains(text, "✔")
	return open, done
}

// hasList: a line that starts a list item.
func hasList(text string) bool {
	for len(text) > 0 {
		line := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		if _, _, ok := listItem(strings.TrimSpace(line)); ok {
			return true
		}
	}
	return false
}

// flush applies the rule that needs the whole text: a question in prose
// counts only in the last paragraph (one asked earlier was answered by the
// text itself or was the assistant thinking aloud).
func (r *reader) flush() []statement {
	out := r.out[:0]
	for _, st := range r.out {
		if st.question && st.para != r.para {
			continue
		}
		out = append(out, st)
		if len(out) == maxStatements {
			break
		}
	}
	return out
}

// line reads one line of the text: a code fence, a quotation or a table
// row (skipped), a heading, a list item, an intro ending with a colon, or
// prose.
func (r *reader) line(raw string) {
	t := strings.TrimSpace(raw)
	if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
		r.introAsProse()
		r.inCode = !r.inCode
		r.endParagraph()
		return
	}
	if r.inCode {
		return
	}
	if t == "" {
		r.blank = true
		return
	}
	switch t[0] {
	case '>': // a quotation: someone else's words, not a statement
		return
	case '|': // a table row
		return
	case '<':
		if strings.HasSuffix(t, ">") { // a tag line: markup, not prose
			return
		}
	}
	if r.user && isIndentedCode(raw) && !r.secList {
		return
	}
	if r.intro.set {
		if _, _, ok := listItem(t); ok {
			h := r.classifyIntro(r.intro.last, r.intro.line)
			if h.kind == headingNeutral && r.intro.headed {
				h = r.intro.under // "## Next steps" then "These remain:"
			}
			if h.kind == headingNeutral {
				r.prose(r.intro.last)
			}
			if h.kind == headingDone {
				r.universalIntro(r.intro.last)
			}
			r.intro.set = false
			r.setSection(h)
		} else {
			r.introAsProse()
		}
	}
	if h, ok := heading(t); ok {
		r.endParagraph()
		if h.kind == headingDone {
			// "## Beads created", "### ✅ Task 1: OTEL bootstrap": the
			// heading itself says what is finished.
			r.add(statement{text: strings.Trim(t, "#*_ :"), done: true})
		}
		r.setSection(h)
		r.secFirst = true
		r.blank = false
		return
	}
	if item, mark, ok := listItem(t); ok {
		r.blank = false
		r.secList = true
		r.secFirst = false
		r.listing = true
		r.listItem(item, mark)
		r.listing = false
		return
	}
	// A prose line.
	if r.blank {
		r.endParagraph()
		if !r.secFirst {
			r.sec = headingNeutral
		}
	}
	r.blank = false
	if strings.HasSuffix(t, ":") || strings.HasSuffix(t, ":**") {
		// An intro: "The remaining tasks are:", "I need:". It may say
		// something itself before the colon ("Done with A. Next:").
		body := strings.TrimRight(t, ":* ")
		last := body
		if i := lastSentenceStart(body); i > 0 {
			r.prose(body[:i])
			last = body[i:]
		}
		// What the intro opens is decided when a list follows; most
		// intros end a text before a tool call, and are read as prose.
		r.intro = pendingIntro{last: last, line: body, under: section{r.sec, r.secKind}, headed: r.sec != headingNeutral && r.secFirst, set: true}
		r.sec, r.secFirst, r.secList = headingNeutral, false, false
		return
	}
	if r.sec == headingOpen && r.secFirst {
		// The first paragraph under an open heading is the item itself:
		// "## Next step\nRun the migration on staging."
		r.emitPieces(t, r.secKind, true)
		r.secFirst = false
		return
	}
	r.secFirst = false
	r.prose(t)
}

func (r *reader) endParagraph() {
	r.para++
	r.acts = r.acts[:0]
}

// section is the context a heading or an intro line sets for the list
// under it.
type section struct {
	kind headingKind
	item Kind
}

func (r *reader) setSection(s section) {
	r.sec, r.secKind = s.kind, s.item
	r.secList = false
}

// listItem reads a list item in the context of its heading or intro.
func (r *reader) listItem(item string, mark listMark) {
	switch {
	case mark == markDone:
		r.add(statement{text: item, done: true})
		return
	case mark == markOpen:
		k := r.secKind
		if r.sec != headingOpen {
			k = Task
		}
		r.emitPieces(item, k, true)
		return
	}
	// An item that ends with a colon heads the items below it.
	if strings.HasSuffix(item, ":") || strings.HasSuffix(item, ":**") {
		body := strings.TrimRight(item, ":* ")
		h := r.classifyIntro(body, body)
		if h.kind != headingNeutral {
			r.setSection(h)
			r.secList = true
			return
		}
	}
	asks := !r.user && strings.HasSuffix(strings.TrimSpace(item), "?") && !strings.Contains(strings.TrimSuffix(strings.TrimSpace(item), "?"), "?")
	switch r.sec {
	case headingOpen:
		// A list item under an open heading is open unless it says it
		// is finished ("- spotter-4te.1 ✅", "- tests: done"); one the
		// assistant ends with a question mark is put to the user ("Two
		// things I need from you: 1. Which branch: main only?").
		if st, ok := r.classifyOne(item); ok && st.done {
			r.add(st)
			return
		}
		if asks && r.secKind == Task {
			r.add(statement{text: item, kind: Question, question: true, sticky: true})
			return
		}
		r.emitPieces(item, r.secKind, true)
	case headingDone:
		r.add(statement{text: item, done: true})
	default:
		if asks {
			// An item of a list the assistant ends with a question mark
			// is put to the user, however terse: "2. include
			// soft-deleted orders?" asks as "how should I compare...?"
			// does.
			r.add(statement{text: item, kind: Question, question: true})
			return
		}
		r.prose(item)
	}
}

// emitPieces adds the items of an open context. "Remaining: A, then B"
// holds two; so does "A; B".
func (r *reader) emitPieces(s string, k Kind, sticky bool) {
	for _, p := range pieces(s) {
		if p = cleanItem(p); p != "" {
			r.add(statement{text: p, kind: k, sticky: sticky})
		}
	}
}

func (r *reader) add(st statement) {
	if len(r.out) >= maxStatements*2 {
		return
	}
	st.text = cleanItem(st.text)
	if st.text == "" || (!hasTerms(st.text) && !st.universal && (st.done || st.kind != Question) && !(r.user && st.kind == Request && wholeWork(st.text))) {
		// "Remaining: none", "Next steps:" with nothing after, "check
		// again": nothing to tell items apart by, nothing to close them.
		return
	}
	st.text = text.ClipLine(st.text, maxItemBytes)
	st.para = r.para
	st.listed = st.listed || r.listing
	r.out = append(r.out, st)
}

// asksAfterLead says a question put after a lead ending in a colon is
// put to the user: "Before I derive @digital from the product: do
// bundles that contain a physical item count as digital?". The lead says
// what the answer is for; what follows asks yes or no, or which.
func (r *reader) asksAfterLead(s string) bool {
	i := strings.LastIndex(s, ": ")
	if i < 0 {
		return false
	}
	var a analysis // rare: a question with a lead; r's scratch may be in use
	a.reset(s[i+2:])
	return a.addressed() || a.is(0, "do", "does", "did", "is", "are", "was", "should", "shall", "can", "could", "would", "will", "may", "must", "which", "what", "how", "when", "where")
}

// prose reads a line of prose sentence by sentence.
func (r *reader) prose(line string) {
	prev := ""
	for _, s := range sentences(line) {
		if label, rest, ok := splitLabel(s); ok {
			h := classifyHeading(label)
			switch h.kind {
			case headingOpen:
				if strings.TrimSpace(rest) == "" {
					r.setSection(h)
					continue
				}
				if h.item != Question && !r.user && strings.HasSuffix(strings.TrimSpace(rest), "?") {
					// "Next: ship windows/arm64?" asks; the user's yes
					// or no answers it.
					r.add(statement{text: rest, kind: Question, sticky: true})
					continue
				}
				if h.item == Question && putTo(label) {
					// Kept whole, with whom it is for.
					r.add(statement{text: label + ": " + rest, kind: Question, sticky: true, elsewhere: true})
					continue
				}
				if reportsProblem(label) {
					// "It does not match: numdiff finds 14 differences,
					// max error 3.2e-09": a sentence about what is
					// wrong, and its explanation, not a list of work.
					r.add(statement{text: label + ": " + rest, kind: Problem, sticky: true})
					continue
				}
				n := len(r.out)
				r.emitPieces(rest, h.item, true)
				r.named = -1
				if h.item == Problem && len(r.out) == n+1 {
					r.named = n
				}
				continue
			case headingDone:
				r.add(statement{text: rest, done: true})
				continue
			}
		}
		c := &r.an
		c.reset(s)
		if r.user && isRequest(c) {
			// "can you check why the build is red?" asks for work.
			r.add(statement{text: s, kind: Request, sticky: true})
			prev = s
			continue
		}
		if c.question {
			if r.user || c.addressed() || r.asksAfterLead(s) {
				q := s
				if !hasTerms(q) && prev != "" {
					q = prev + " " + q // "Want me to go on with it?"
				}
				st := statement{text: q, kind: Question, question: !r.user, sticky: r.user}
				if !r.user && (askedOf(leadOf(s)) || askedOf(prev)) {
					// "That's for Priya. I'll keep it as an open
					// question for her: should ...?": no prompt of the
					// user's answers it.
					st.elsewhere, st.sticky = true, true
					if prev != "" && q == s && pointsAtSomeone(leadOf(s)) && len(prev) <= 160 {
						st.text = prev + " " + s // who "her" is
					}
				}
				r.add(st)
			}
			prev = s
			continue
		}
		before := prev
		prev = s
		if !r.user && startsWorkItem(s) {
			// "Now the final task — spotter-a0y.4.": a unit of work
			// begun, open until a command or a statement closes it.
			r.dropActedOn(r.acts)
			r.acts = r.acts[:0]
			r.add(statement{text: s, kind: Task})
			continue
		}
		if c.immediate() {
			// "X isn't used yet. Let me update the template.": what the
			// paragraph just said was unfinished is being done now, and
			// the action itself ("Let me apply the remaining changes")
			// is neither an open item nor a completion.
			if r.named >= 0 && r.named < len(r.out) && r.out[r.named].para == r.para && actsOnIt(c) {
				// "The bug: X. Fixing it the way ...": the labelled
				// problem is what "it" is.
				r.out = slices.Delete(r.out, r.named, r.named+1)
				acts := r.acts[:0]
				for _, j := range r.acts {
					switch {
					case j > r.named:
						acts = append(acts, j-1)
					case j < r.named:
						acts = append(acts, j)
					}
				}
				r.acts = acts
			}
			r.named = -1
			r.dropActedOn(r.acts)
			r.acts = r.acts[:0]
			continue
		}
		prevDone := false
		for _, cl := range c.clauses() {
			if cl.except && prevDone {
				// "All tests pass, except the flaky one": the exception
				// to a completion is what is still wrong.
				n := len(r.out)
				r.add(statement{text: cl.text(), kind: Problem})
				if len(r.out) > n {
					r.acts = append(r.acts, n)
				}
				prevDone = false
				continue
			}
			st, ok := cl.classify()
			if !ok || (cl.except && !st.done) {
				prevDone = false
				continue
			}
			prevDone = st.done
			if !st.done && before != "" && anaphoric(st.text) {
				// "This is a real bug in X. But this is not something I
				// should fix here.": the item is what "this" points to.
				st.text = before + " " + st.text
			}
			n := len(r.out)
			r.add(st)
			if !st.done && len(r.out) > n {
				r.acts = append(r.acts, len(r.out)-1)
			}
		}
	}
}

// anaphoric: a statement whose subject points back ("this", "that",
// "it"...) to the sentence before.
func anaphoric(s string) bool {
	f := strings.Fields(s)
	if len(f) == 0 {
		return false
	}
	switch strings.ToLower(strings.Trim(f[0], ",.;:")) {
	case "this", "that", "it", "these", "those", "they", "it's", "that's", "this's":
		return true
	}
	return false
}

// hasTerms reports whether s has a name or a content word: something an
// item can be told apart and closed by. It allocates nothing.
func hasTerms(s string) bool {
	found := false
	tokens(s, func(tok string, code bool) bool {
		if code || isName(tok) {
			found = true
		} else {
			parts(tok, func(p string) {
				if !found && contentWord(p) {
					found = true
				}
			})
		}
		return !found
	})
	return found
}

// dropActedOn removes the open prose statements of the paragraph that an
// immediate action follows. Explicit items (lists, labels) and work put
// off for later stay.
func (r *reader) dropActedOn(idx []int) {
	if len(idx) == 0 {
		return
	}
	keep := r.out[:0]
	for i, st := range r.out {
		drop := false
		for _, j := range idx {
			if j == i && !st.sticky && !st.done && st.kind != Deferred && st.para == r.para {
				drop = true
			}
		}
		if !drop {
			keep = append(keep, st)
		}
	}
	r.out = keep
}

// classifyOne classifies a short piece of text as a whole.
func (r *reader) classifyOne(s string) (statement, bool) {
	c := &r.aux
	c.reset(s)
	for _, cl := range c.clauses() {
		if st, ok := cl.classify(); ok {
			return st, true
		}
	}
	return statement{}, false
}

func isIndentedCode(raw string) bool {
	return strings.HasPrefix(raw, "    ") || strings.HasPrefix(raw, "\t")
}

// heading recognises a Markdown heading ("## Next steps"), a line in bold
// alone ("**Remaining work**") and returns the section it opens.
func heading(t string) (section, bool) {
	var text string
	switch {
	case strings.HasPrefix(t, "#"):
		text = strings.TrimLeft(t, "# ")
		if len(t) > 1 && t[1] != '#' && t[1] != ' ' {
			return section{}, false // #hashtag, #123
		}
	case strings.HasPrefix(t, "**") && (strings.HasSuffix(t, "**") || strings.HasSuffix(t, "**:") || strings.HasSuffix(t, ":**")) && len(t) > 4:
		inner := strings.Trim(t, "*: ")
		if strings.Contains(inner, "**") {
			return section{}, false // "**a** and **b**": bold words in prose
		}
		text = inner
	case strings.HasPrefix(t, "__") && strings.HasSuffix(t, "__") && len(t) > 4:
		text = strings.Trim(t, "_: ")
	default:
		return section{}, false
	}
	return classifyHeading(text), true
}

// classifyHeading reads the words of a heading or a label.
func classifyHeading(text string) section {
	var strongOpen, weakOpen, done, neg bool
	var strongK, weakK Kind
	if strings.Contains(text, "✅") || strings.Contains(text, "✔") || strings.Contains(text, "☑") {
		done = true
	}
	var it wordIter
	it.reset(text)
	for w, _, _, more := it.next(); more; w, _, _, more = it.next() {
		if hk, strong, ok := headingOpenKind(w); ok {
			if strong {
				if !strongOpen || strongK == Task {
					strongK = hk
				}
				strongOpen = true
			} else {
				if !weakOpen || weakK == Task {
					weakK = hk
				}
				weakOpen = true
			}
		}
		if headingDoneWord(w) {
			done = true
		}
		if s := string(w); s == "no" || s == "none" || s == "nothing" {
			neg = true
		}
	}
	switch {
	case neg && !done: // "No open questions", "Nothing left"
		return section{headingDone, ""}
	case strongOpen && !(done && !hasStrongOverDone(text)):
		if weakOpen && weakK != Task && strongK == Task {
			return section{headingOpen, weakK} // "Open questions", "Known issues"
		}
		return section{headingOpen, strongK}
	case done:
		return section{headingDone, ""}
	case weakOpen:
		return section{headingOpen, weakK}
	}
	return section{headingNeutral, ""}
}

// hasStrongOverDone: in a heading with both kinds of words, negation and
// "still" make it open ("Not done", "Still not fixed"); otherwise the
// completion word wins ("Done so far, next to none").
func hasStrongOverDone(text string) bool {
	var it wordIter
	it.reset(text)
	for w, _, _, more := it.next(); more; w, _, _, more = it.next() {
		switch string(w) {
		case "not", "still", "remaining", "pending", "todo", "unfinished", "incomplete", "outstanding", "open", "next", "left":
			return true
		}
	}
	return false
}

// classifyIntro reads the line before a list, which ends with a colon
// (last is its last sentence): an intro that looks forward ("The key
// changes needed are:", "I'll update:", "Now I'll rewrite it. The key
// changes:") opens the list; one that looks back ("Here's what I
// changed:") makes it a list of finished work.
func (r *reader) classifyIntro(last, line string) section {
	la := &r.aux
	la.reset(last)
	forward := la.looksForward()
	forwardLine := forward
	if line != last {
		lb := &r.aux2
		lb.reset(line)
		forwardLine = forward || lb.looksForward()
	}
	if h := classifyHeading(last); h.kind != headingNeutral {
		if h.kind == headingOpen || !forwardLine {
			return h
		}
	}
	if forward || (forwardLine && !la.hasDone()) {
		return section{headingOpen, Task}
	}
	return section{headingNeutral, ""}
}

// looksForward: a modal or future auxiliary ("will", "I'll", "need",
// "should", "going to"), or a word for a plan.
func (c *analysis) looksForward() bool {
	for i := 0; i < c.n; i++ {
		if c.w[i].c&cModal != 0 && c.w[i].c&cAux == 0 {
			return true
		}
		if c.w[i].c&cPlan != 0 {
			return true
		}
		if c.w[i].c&cAux != 0 && c.w[i].c&cModal != 0 && i+1 < c.n && c.w[i+1].c&cTo != 0 {
			return true // "have to", "has to"
		}
	}
	return false
}

// listMark is what a list item's own marker says about it.
type listMark int

const (
	markNone listMark = iota
	markOpen          // "[ ]", ☐, ⏳, ❌
	markDone          // "[x]", ✅, ✔, ~~struck~~
)

// listItem returns the text of a "- item", "* item", "• item", "1. item",
// "1) item" or "a) item" line, and what its checkbox or emoji says.
func listItem(t string) (string, listMark, bool) {
	switch {
	case strings.HasPrefix(t, "- "), strings.HasPrefix(t, "* "), strings.HasPrefix(t, "+ "):
		t = t[2:]
	case strings.HasPrefix(t, "• "), strings.HasPrefix(t, "· "), strings.HasPrefix(t, "– "):
		_, n := firstRuneLen(t)
		t = t[n+1:]
	default:
		n := 0
		for n < len(t) && n < 3 && isDigit(t[n]) {
			n++
		}
		if n == 0 && len(t) > 2 && isLower(t[0]) && t[1] == ')' {
			n = 1 // a) b) c)
		}
		if n == 0 || n+1 >= len(t) || (t[n] != '.' && t[n] != ')') || (t[n+1] != ' ' && t[n+1] != '\t') {
			return "", markNone, false
		}
		t = t[n+2:]
	}
	t = strings.TrimSpace(t)
	mark := markNone
	switch {
	case strings.HasPrefix(t, "[ ]"), strings.HasPrefix(t, "[]"):
		mark, t = markOpen, strings.TrimLeft(t[strings.IndexByte(t, ']')+1:], " ")
	case strings.HasPrefix(t, "[x]"), strings.HasPrefix(t, "[X]"):
		mark, t = markDone, strings.TrimSpace(t[3:])
	}
	for _, m := range [...]string{"✅", "✔️", "✔", "✓", "☑️", "☑"} {
		if strings.Contains(t, m) {
			mark = markDone
		}
	}
	for _, m := range [...]string{"☐", "⏳", "❌", "🔲", "⬜", "🚧"} {
		if strings.HasPrefix(t, m) {
			mark = markOpen
			t = strings.TrimSpace(t[len(m):])
		}
	}
	if strings.HasPrefix(t, "~~") && strings.Contains(t[2:], "~~") {
		mark = markDone
	}
	return t, mark, t != ""
}

func firstRuneLen(s string) (rune, int) {
	for i, r := range s {
		if i > 0 {
			return r, i
		}
	}
	return 0, len(s)
}

// splitLabel splits "Label: rest" where the label is one to four words at
// the start of a sentence ("Next:", "Still open:", "**Remaining:**").
func splitLabel(s string) (label, rest string, ok bool) {
	t := strings.TrimLeft(s, "*_ ")
	i := strings.IndexByte(t, ':')
	if i <= 0 || i > 40 {
		return "", "", false
	}
	label = strings.Trim(t[:i], "*_ ")
	if strings.ContainsAny(label, "`()[]/.") || len(strings.Fields(label)) > 4 || label == "" {
		return "", "", false
	}
	return label, strings.TrimLeft(t[i+1:], "*_ "), true
}

// reportsProblem says a label is a clause reporting what is wrong, with a
// subject pointing back and a negated or failing verb ("It does not
// match", "This still fails", "That doesn't build"), rather than a
// heading over items ("Not done", "Still open").
func reportsProblem(label string) bool {
	ws := strings.Fields(strings.ToLower(label))
	if len(ws) < 2 {
		return false
	}
	switch ws[0] {
	case "it", "this", "that", "they", "these", "those", "he", "she", "there":
	default:
		return false
	}
	for _, w := range ws[1:] {
		if wordCue([]byte(strings.Trim(w, ",.;")))&(cNeg|cProblem) != 0 {
			return true
		}
	}
	return false
}

// putTo says a label puts its question to someone other than the
// reader: "Open question for Dana", "Question to the DBA", "Open
// question for the search team"; not "Open question for later", nor
// "Question for you".
func putTo(label string) bool {
	ws := strings.Fields(label)
	for i := 0; i+1 < len(ws); i++ {
		if w := strings.ToLower(ws[i]); w != "for" && w != "to" {
			continue
		}
		return someoneElse(ws[i+1:])
	}
	return false
}

// someoneElse says words open by naming a person or a group other than
// the user and the speaker: a name ("Dana"), "her", "him", "them", or
// "the" and a noun ("the DBA", "the search team"), not "the user".
func someoneElse(ws []string) bool {
	if len(ws) == 0 {
		return false
	}
	who := strings.Trim(ws[0], ".,;:?!")
	switch strings.ToLower(who) {
	case "her", "him", "them":
		return true
	case "the":
		return len(ws) > 1 && !strings.EqualFold(strings.Trim(ws[1], ".,;:?!"), "user")
	}
	r, _ := utf8.DecodeRuneInString(who)
	return unicode.IsUpper(r) && who != "I" && !strings.EqualFold(who, "you")
}

// pointsAtSomeone says a lead names whom the question is for only by a
// pronoun ("a question for her"): the sentence before says who.
func pointsAtSomeone(lead string) bool {
	for _, w := range strings.Fields(strings.ToLower(lead)) {
		switch strings.Trim(w, ".,;:") {
		case "her", "him", "them":
			return true
		}
	}
	return false
}

// leadOf is what comes before a question's colon ("I'll keep it as an
// open question for her: should ...?"), "" when it has none.
func leadOf(s string) string {
	if i := strings.Index(s, ": "); i > 0 {
		return s[:i]
	}
	return ""
}

// askedOf says a text puts a question to someone other than the user:
// "a question for her", "questions to the DBA", "ask Priya", "check with
// the search team", "that's for Priya to decide".
func askedOf(text string) bool {
	ws := strings.Fields(text)
	for i := 0; i+1 < len(ws); i++ {
		w := strings.ToLower(strings.Trim(ws[i], ".,;:"))
		switch {
		case (w == "question" || w == "questions") && i+2 < len(ws):
			if p := strings.ToLower(ws[i+1]); (p == "for" || p == "to") && someoneElse(ws[i+2:]) {
				return true
			}
		case w == "ask" || w == "asking":
			if someoneElse(ws[i+1:]) {
				return true
			}
		case w == "check" && strings.EqualFold(ws[i+1], "with") && i+2 < len(ws):
			if someoneElse(ws[i+2:]) {
				return true
			}
		case w == "for" && i+2 < len(ws) && strings.EqualFold(ws[i+2], "to"):
			// "for Priya to decide"
			if someoneElse(ws[i+1:]) {
				return true
			}
		}
	}
	return false
}

// pieces splits an open item's text where it holds more than one: at
// semicolons and at ", then" / " then " / " and then ". A comma list of
// short parts ("tests, docs and the changelog") is split too.
func pieces(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ";") {
		for _, sep := range [...]string{", and then ", " and then ", ", then ", " then "} {
			part = strings.ReplaceAll(part, sep, "\x00")
		}
		for _, p := range strings.Split(part, "\x00") {
			out = append(out, splitShortCommaList(p)...)
		}
	}
	return out
}

func splitShortCommaList(p string) []string {
	if !strings.Contains(p, ", ") || strings.ContainsAny(p, "`(") {
		return []string{p}
	}
	parts := strings.Split(strings.ReplaceAll(p, ", and ", ", "), ", ")
	if last := parts[len(parts)-1]; strings.Contains(last, " and ") {
		parts = append(parts[:len(parts)-1], strings.Split(last, " and ")...)
	}
	for _, q := range parts {
		if len(strings.Fields(q)) > 4 {
			return []string{p}
		}
	}
	return parts
}

// cleanItem strips Markdown from an item's text and leaves one line.
func cleanItem(s string) string {
	s = strings.TrimSpace(s)
	s = strings.ReplaceAll(s, "**", "")
	s = strings.ReplaceAll(s, "__", "")
	for _, m := range [...]string{"✅", "✔️", "✔", "✓", "☑️", "☑", "☐", "⏳", "❌", "🔲", "⬜", "🚧", "~~"} {
		s = strings.ReplaceAll(s, m, "")
	}
	s = strings.Trim(s, " \t-–—:;,.")
	return strings.TrimSpace(s)
}

// sentences splits a line into sentences at ". ", "! " and "? " (keeping
// the mark), not inside `code` and not after abbreviations or single
// letters ("e.g. ", "v2. ").
func sentences(line string) []string {
	var out []string
	start, inCode := 0, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		if c == '`' {
			inCode = !inCode
			continue
		}
		if inCode || (c != '.' && c != '!' && c != '?') {
			continue
		}
		if i+1 < len(line) && line[i+1] != ' ' {
			continue
		}
		if c == '.' && abbreviation(line[start:i]) {
			continue
		}
		if i >= 3 && line[i-2:i+1] == "..." && line[i-3] == ' ' {
			// An ellipsis between words ("SELECT ... FOR UPDATE") leaves
			// something out inside the sentence; one that ends a sentence
			// trails its word ("it hangs... Then").
			continue
		}
		if s := strings.TrimSpace(line[start : i+1]); len(s) > 1 {
			out = append(out, s)
		}
		start = i + 1
	}
	if s := strings.TrimSpace(line[start:]); len(s) > 1 {
		out = append(out, s)
	}
	return out
}

// lastSentenceStart returns where the last sentence of s begins.
func lastSentenceStart(s string) int {
	ss := sentences(s)
	if len(ss) < 2 {
		return 0
	}
	return strings.LastIndex(s, ss[len(ss)-1])
}

func abbreviation(before string) bool {
	i := len(before)
	for i > 0 && before[i-1] != ' ' {
		i--
	}
	w := strings.ToLower(before[i:])
	switch w {
	case "e.g", "i.e", "etc", "vs", "cf", "approx", "no", "dr", "mr", "mrs":
		return true
	}
	return len(w) == 1 || (len(w) > 0 && isDigit(w[len(w)-1]) && len(w) <= 2)
}

// startsWorkItem: a short sentence of the assistant that turns to a unit
// of work named by its id, "Now gqc.6 — close project review session.",
// "Next up: ABC-12.", "Moving on to spotter-a0y.4": begun, not done. A
// step of work ("Now let me read the file") names no id; a version
// ("Now v1.2") is not a unit of work.
func startsWorkItem(s string) bool { return workItem(s) != "" }

// workItem is the id of the unit of work a sentence turns to
// (startsWorkItem), lower case, or "".
func workItem(s string) string {
	f := strings.Fields(strings.ToLower(s))
	if len(f) == 0 || len(f) > 16 {
		return ""
	}
	k := 0
	switch strings.Trim(f[0], "*_:,—–-") {
	case "now", "next":
		k = 1
	case "moving", "on", "starting", "onto":
		k = 1
	default:
		return ""
	}
	for i := k; i < len(f) && i < k+5; i++ {
		w := strings.Trim(f[i], "*_`:,.;—–()")
		if workRef(w) {
			return w
		}
	}
	return ""
}

// workRef: a ticket's or a bead's id (spotter-a0y.4, gqc.6, ABC-12, lower
// cased), not a version (v1.2, 1.22) nor a file (app.js).
func workRef(w string) bool {
	if len(w) < 3 || !refName(w) || !strings.ContainsAny(w, "-.") {
		return false
	}
	letters := 0
	for i := 0; i < len(w); i++ {
		if isLetter(w[i]) {
			letters++
		}
	}
	if letters < 2 || w[0] == 'v' && len(w) > 1 && isDigit(w[1]) {
		return false
	}
	return isDigit(w[len(w)-1])
}

// firstSentence is the first sentence of a text's first line.
func firstSentence(text string) string {
	line := strings.TrimSpace(strings.SplitN(strings.TrimSpace(text), "\n", 2)[0])
	if ss := sentences(line); len(ss) > 0 {
		return ss[0]
	}
	return line
}

// universalIntro: an intro to a list of what is finished that says it of
// everything ("All 4 subtasks done and pushed:") is the completion of the
// whole work, as it is in prose, besides the list's own items.
func (r *reader) universalIntro(intro string) {
	c := &r.aux2
	c.reset(intro)
	for _, cl := range c.clauses() {
		if cl.universal() {
			r.add(statement{text: intro, done: true, universal: true})
			return
		}
	}
}

// actsOnIt says an action names its object by a pronoun: "Fixing it",
// "Let me fix that", "I'll patch this now".
func actsOnIt(a *analysis) bool {
	for k := 1; k < a.n && k < 5; k++ {
		if a.is(k, "it", "this", "that") {
			return true
		}
	}
	return false
}
