package ledger

import (
	"strings"
	"unicode/utf8"
)

// wordAt is one word of a sentence: where it is and its cue.
type wordAt struct {
	start, end int32
	c          cue
}

// analysis is a sentence read word by word. Words inside `code` and inside
// double quotes are left out: code is not prose, and a quotation is
// someone else's words ("you asked to “fix the remaining tests”").
type analysis struct {
	s        string
	n        int
	w        [maxWords]wordAt
	question bool // ends with a question mark outside code
	doneMark bool // ✅, ✔ or ✓
	it       wordIter
	cls      [8]clause
}

// wordIter walks the words of a text: lowered, with where each starts and
// ends, outside `code` and "quotes". ASCII, nearly all of an agent's
// text, takes a fast path; there is no callback, so the loop stays tight.
type wordIter struct {
	text            string
	i               int
	inCode, inQuote bool
	buf             [32]byte
}

func (it *wordIter) reset(text string) {
	it.text, it.i, it.inCode, it.inQuote = text, 0, false, false
}

// next returns the next word, or ok false at the end. w is nil for a word
// longer than the buffer, and only valid until the next call.
func (it *wordIter) next() (w []byte, start, end int, ok bool) {
	text := it.text
	for it.i < len(text) {
		i := it.i
		c := text[i]
		if c < 0x80 {
			switch {
			case c == '`':
				it.inCode = !it.inCode
				it.i++
				continue
			case c == '"':
				it.inQuote = !it.inQuote
				it.i++
				continue
			case !isAlnum(c):
				it.i++
				continue
			}
		} else {
			if c == 0xE2 && strings.HasPrefix(text[i:], "“") {
				it.inQuote = true
				it.i += len("“")
				continue
			}
			if c == 0xE2 && strings.HasPrefix(text[i:], "”") {
				it.inQuote = false
				it.i += len("”")
				continue
			}
			if !wordByte(text, i) {
				_, n := utf8.DecodeRuneInString(text[i:])
				it.i += n
				continue
			}
		}
		j, n := i, 0
	scan:
		for j < len(text) {
			b := text[j]
			if b < 0x80 {
				switch {
				case isUpper(b):
					b += 'a' - 'A'
				case isLower(b) || isDigit(b):
				case (b == '\'' || b == '-' || b == '_') && j > i && j+1 < len(text) && isAlnum(text[j+1]):
				default:
					break scan
				}
				if n < len(it.buf) {
					it.buf[n] = b
				}
				n++
				j++
				continue
			}
			if b == 0xE2 && strings.HasPrefix(text[j:], "’") {
				if j+3 >= len(text) || !isAlnum(text[j+3]) {
					break
				}
				if n < len(it.buf) {
					it.buf[n] = '\''
				}
				n++
				j += 3
				continue
			}
			if !wordByte(text, j) {
				break
			}
			_, sz := utf8.DecodeRuneInString(text[j:])
			for k := 0; k < sz; k++ {
				if n < len(it.buf) {
					it.buf[n] = text[j+k]
				}
				n++
			}
			j += sz
		}
		if j == i {
			// a byte that may continue a word but cannot start one (’)
			_, sz := utf8.DecodeRuneInString(text[i:])
			it.i = i + sz
			continue
		}
		it.i = j
		if it.inCode || it.inQuote {
			continue
		}
		if n > len(it.buf) {
			return nil, i, j, true
		}
		return it.buf[:n], i, j, true
	}
	return nil, 0, 0, false
}

// wordByte: letters, digits, inner apostrophes, hyphens and underscores
// (a snake_case name is one word: NEXT_PUBLIC_KEY is no "next"), and the bytes
// of non-ASCII runes other than punctuation.
func wordByte(s string, i int) bool {
	c := s[i]
	switch {
	case isAlnum(c):
		return true
	case c == '\'' || c == '-' || c == '_':
		return i > 0 && i+1 < len(s) && isAlnum(s[i-1]) && isAlnum(s[i+1])
	case c < 0x80:
		return false
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	if r == '’' {
		return i > 0 && isAlnum(s[i-1])
	}
	if r == utf8.RuneError {
		return false
	}
	// Punctuation and symbols of other scripts and typography.
	switch {
	case r >= 0x2000 && r <= 0x2BFF, r >= 0x3000 && r <= 0x303F, r >= 0xFE00 && r <= 0xFE6F, r >= 0x1F000:
		return false
	}
	return true
}

func analyse(s string) *analysis {
	a := new(analysis)
	a.reset(s)
	return a
}

// reset reads s into a, reusing it.
func (a *analysis) reset(s string) {
	a.s, a.n = s, 0
	t := strings.TrimRight(s, " )*_\"'”")
	a.question = strings.HasSuffix(t, "?") && strings.Count(s, "`")%2 == 0
	a.doneMark = strings.IndexByte(s, 0xE2) >= 0 && (strings.Contains(s, "✅") || strings.Contains(s, "✔") || strings.Contains(s, "✓"))
	a.it.reset(s)
	for a.n < maxWords {
		w, start, end, ok := a.it.next()
		if !ok {
			break
		}
		a.w[a.n] = wordAt{start: int32(start), end: int32(end), c: wordCue(w)}
		a.n++
	}
}

func (a *analysis) hasDone() bool {
	for k := 0; k < a.n; k++ {
		if a.w[k].c&cDone != 0 {
			return true
		}
	}
	return false
}

// word returns the k-th word as written.
func (a *analysis) word(k int) string { return a.s[a.w[k].start:a.w[k].end] }

// is reports whether the k-th word is one of ws (lower case).
func (a *analysis) is(k int, ws ...string) bool {
	if k < 0 || k >= a.n {
		return false
	}
	w := a.word(k)
	for _, x := range ws {
		if strings.EqualFold(w, x) {
			return true
		}
	}
	return false
}

// immediate: a sentence in which the assistant acts at once ("Let me
// update the template.", "Now I'll add it.", "I'll fix that now.").
func (a *analysis) immediate() bool {
	if a.n == 0 || a.question {
		return false
	}
	k := 0
	for k < a.n && a.is(k, "now", "so", "ok", "okay", "first", "then", "good") {
		k++
	}
	switch {
	case a.is(k, "let") && a.is(k+1, "me", "us"):
		return true
	case k > 0 && a.is(k-1, "now") && imperative(strings.ToLower(a.word(k))):
		return true // "Now update SubagentLive to pass the new attrs."
	case k == 0 && doingNow(strings.ToLower(a.word(0))) && a.is(1, "it", "this", "that", "the", "them", "its", "those", "these", "a", "an", "my", "our"):
		// "Fixing it the way the subagent suggests: ...", unless the
		// phrase is a subject: "Renaming the package is out of scope".
		for j := 2; j < a.n; j++ {
			if a.is(j, "is", "are", "was", "were", "isn't", "wasn't", "would", "should", "will", "won't", "can", "could", "might", "may", "must", "needs", "has", "seems", "takes", "broke", "breaks", "fails", "failed") {
				return false
			}
		}
		return true
	case a.is(k, "i'll", "ill", "we'll") || (a.is(k, "i", "we") && (a.is(k+1, "will", "must") || a.is(k+1, "need", "have") && a.is(k+2, "to"))):
		for j := k; j < a.n; j++ {
			if a.w[j].c&(cLater|cDefer|cNext) != 0 {
				return false // "I'll do that later" puts it off
			}
		}
		return true
	}
	return false
}

// doingNow says w is a verb's -ing form that, opening a sentence before
// what it acts on, says the writer is doing it now ("Fixing it",
// "Correcting its expectation", "Adding a test"), and not a word that
// names a state ("Missing the header", "Remaining: the tests") or leads a
// phrase ("Following the docs", "During the run").
func doingNow(w string) bool {
	if len(w) < 6 || !strings.HasSuffix(w, "ing") {
		return false
	}
	switch w {
	case "nothing", "something", "everything", "anything", "during", "according", "regarding", "including",
		"following", "pending", "missing", "remaining", "failing", "being", "outstanding", "existing", "breaking",
		"blocking", "concerning", "considering", "assuming", "starting", "beginning", "morning", "evening":
		return false
	}
	return true
}

// addressed: a question put to the reader rather than asked of oneself: it
// says "you", or asks leave ("Should I...", "Shall we...", "Want me
// to...", "Do we..."), or asks for a choice ("Which...", "... or ...?").
func (a *analysis) addressed() bool {
	for k := 0; k < a.n; k++ {
		if a.w[k].c&cYou != 0 || (a.is(k, "me") && a.is(k-1, "want", "like")) {
			return true
		}
	}
	k := 0
	for k < a.n && a.is(k, "so", "and", "also", "then", "ok", "okay") {
		k++
	}
	if a.is(k, "should", "shall", "can", "may", "could", "do", "does", "is", "are", "would", "will") &&
		a.is(k+1, "i", "we", "this", "that", "it", "these", "those") {
		return true
	}
	if a.is(k, "which", "any", "ok", "okay", "alright", "agree", "proceed", "continue") {
		return true
	}
	for j := 0; j < a.n; j++ {
		if a.is(j, "or", "prefer", "rather") {
			return true
		}
	}
	return false
}

// clause is a run of words of a sentence between clause boundaries ("but",
// "however", a semicolon, "except").
type clause struct {
	a        *analysis
	from, to int
	except   bool // introduced by "except" ("apart from", "besides")
}

func (a *analysis) clauses() []clause {
	out := a.cls[:0]
	from := 0
	for k := 0; k <= a.n; k++ {
		boundary := k == a.n
		if !boundary && k > from {
			if a.w[k].c&(cBut|cExcept) != 0 {
				boundary = true
			} else if strings.IndexByte(a.s[a.w[k-1].end:a.w[k].start], ';') >= 0 {
				boundary = true
			}
		}
		if !boundary {
			continue
		}
		if k > from {
			cl := clause{a: a, from: from, to: k}
			if a.w[from].c&cBut != 0 {
				cl.from++
			}
			if a.w[from].c&cExcept != 0 {
				cl.except = true
			}
			if cl.from < cl.to && len(out) < len(a.cls) {
				out = append(out, cl)
			}
		}
		from = k
	}
	return out
}

// text is the clause as written, from its first word to the next clause.
func (cl clause) text() string {
	a := cl.a
	start := 0
	if cl.from > 0 {
		start = int(a.w[cl.from].start)
	}
	end := len(a.s)
	if cl.to < a.n {
		end = int(a.w[cl.to].start)
	}
	return strings.Trim(a.s[start:end], " ,;:()—–-")
}

func (cl clause) hasWord(w string) bool {
	for k := cl.from; k < cl.to; k++ {
		if cl.a.is(k, w) {
			return true
		}
	}
	return false
}

func (cl clause) has(c cue) bool {
	for k := cl.from; k < cl.to; k++ {
		if cl.a.w[k].c&c != 0 {
			return true
		}
	}
	return false
}

// noneBefore: a negated quantity shortly before word k ("no remaining
// issues", "nothing left", "without any failures").
func (cl clause) noneBefore(k int) bool {
	for j := max(cl.from, k-3); j < k; j++ {
		if cl.a.w[j].c&cNone != 0 {
			return true
		}
	}
	return false
}

func (cl clause) negBefore(k int) bool {
	for j := cl.from; j < k; j++ {
		if cl.a.w[j].c&cNeg != 0 {
			return true
		}
	}
	return false
}

// choosesNot says the negation before k is the agent's choice not to do
// something for now, "I'm not enabling AMP yet" (a decision, often with
// its reason after it), not work left undone ("I haven't enabled it
// yet", "it's not done yet").
func (cl clause) choosesNot(k int) bool {
	a := cl.a
	for j := cl.from; j < k; j++ {
		if a.w[j].c&cNeg == 0 {
			continue
		}
		chooser := a.is(j-1, "i'm", "we're", "im") || a.is(j-1, "am", "are") && a.is(j-2, "i", "we")
		next := ""
		if j+1 < k {
			next = strings.ToLower(a.word(j + 1))
		}
		return chooser && strings.HasSuffix(next, "ing") && len(next) > 4 && next != "going" && next != "seeing" && next != "getting"
	}
	return false
}

// declines says the clause opens with the speaker's choice to leave
// something out ("I'm leaving the retry flag out of the script: ...",
// "we're skipping the ARM job because ..."): what follows is the
// choice's reason, and a negation in it ("a runner that doesn't have
// it yet") is no work left undone. "I'm leaving it for later" puts
// work off, and says so with its own words.
func (cl clause) declines() bool {
	a := cl.a
	k := cl.from
	switch {
	case a.is(k, "i'm", "we're", "im"):
		k++
	case a.is(k, "i", "we") && a.is(k+1, "am", "are"):
		k += 2
	default:
		return false
	}
	if a.is(k, "leaving", "keeping") {
		for j := k + 1; j < min(k+6, cl.to); j++ {
			if a.is(j, "out") {
				return true
			}
		}
		return false
	}
	return a.is(k, "skipping", "omitting")
}

// classify says whether the clause states something open (and of which
// kind) or a completion.
func (cl clause) classify() (statement, bool) {
	a := cl.a
	open, deferred, problem := false, false, false
	modal := false
	for k := cl.from; k < cl.to; k++ {
		c := a.w[k].c
		if c&cModal != 0 && (c&cAux == 0 || a.is(k+1, "to")) {
			modal = true
		}
	}
	for k := cl.from; k < cl.to; k++ {
		c := a.w[k].c
		switch {
		case c&cOpen != 0:
			if !cl.noneBefore(k) {
				open = true
			}
		case c&cStill != 0:
			for j := k + 1; j < min(k+5, cl.to); j++ {
				cj := a.w[j].c
				if cj&cNone != 0 || a.is(j, "longer") {
					break
				}
				if cj&(cProblem|cNeg|cOpen|cModal|cTo) != 0 || a.is(j, "open", "there", "present", "around", "here", "waiting", "todo") {
					open = true
					break
				}
			}
		case c&cYet != 0:
			if (cl.negBefore(k) && !cl.choosesNot(k) && !cl.declines()) || (k+1 < cl.to && a.w[k+1].c&cTo != 0) {
				open = true
			}
		case c&cLeft != 0:
			if cl.noneBefore(k) {
				break
			}
			next := k + 1
			if (next < cl.to && (a.w[next].c&(cTo|cFor) != 0 || a.is(next, "open", "over", "undone", "unfinished", "unanswered", "out"))) ||
				(k > cl.from && (a.w[k-1].c&cAux != 0 || a.is(k-1, "what's", "whats", "still"))) {
				open = true
				if a.is(next, "out") {
					deferred = true
				}
			}
		case c&cLater != 0:
			if modal || a.is(k-1, "for", "until", "till") || cl.has(cLeft|cDefer) {
				open, deferred = true, true
			}
		case c&cDefer != 0:
			if !cl.noneBefore(k) {
				open, deferred = true, true
			}
		case c&cNext != 0:
			if a.is(k+1, "time") {
				open, deferred = true, true
				break
			}
			atStart := k == cl.from || (k == cl.from+1 && a.is(cl.from, "and", "then", "so", "ok", "okay", "the"))
			if a.is(k+1, "let", "let's") || a.is(k+1, "to") {
				break // "Next, let me check", "next to"
			}
			if atStart || a.is(k+1, "step", "steps", "up") {
				open = true
			}
		case c&cAttempt != 0:
			if fixVerbWithin(cl, k+1, 3) {
				open, problem = true, true
			}
		case c&cScope != 0:
			if a.is(k-1, "of") && a.is(k-2, "out") || (a.is(k-1, "in") && cl.negBefore(k)) {
				open, deferred = true, true
			}
		case c&cFor != 0:
			if a.is(k+1, "now") && (cl.has(cNeg) || skipVerbIn(cl)) {
				open, deferred = true, true
			}
		case c&cNeg != 0 && (cl.reasonBefore(k) || cl.declines()):
			// a negation in a reason is a fact, not a problem: "outside
			// a transaction, since CONCURRENTLY can't run inside one";
			// so is one in what follows a choice to leave something out
		case c&cNeg != 0:
			// present negation of working: "doesn't work", "won't compile"
			if !a.is(k, "didn't", "didnt", "not", "never", "cannot", "wasn't", "weren't", "hadn't") || a.is(k, "not") && a.is(k-1, "is", "are", "does", "do") {
				if workVerbWithin(cl, k+1, 3) { // "doesn't seem to start"
					open, problem = true, true
				}
			}
			// a fix declined for now: "not something I should fix in
			// this task", "won't fix here"
			for j := k; j < min(k+5, cl.to); j++ {
				if (j > k && a.is(j, "should", "will", "going", "shall")) || a.is(j, "won't", "wont", "shouldn't", "shouldnt") {
					// The assistant declines: "I", "we" before the modal
					// ("the hook won't let me commit" is an obstacle).
					if a.w[max(j-1, 0)].c&cSubject != 0 && fixVerbWithin(cl, j+1, 3) {
						open, deferred = true, true
					}
					break
				}
			}
		}
		if a.is(k, "failed") && a.is(k+1, "to") && fixVerbWithin(cl, k+2, 2) {
			open, problem = true, true
		}
	}
	text := cl.text()
	if cl.has(cDismiss) || cl.negatedProblem() {
		// "The only remaining change is .mcp.json, which is unrelated",
		// "that's not a problem": noticed and set aside.
		return statement{}, false
	}
	if cl.universal() {
		return statement{text: text, done: true, universal: true}, true
	}
	if open {
		kind := Task
		for k := cl.from; k < cl.to; k++ {
			if a.w[k].c&cProblem != 0 && !cl.noneBefore(k) {
				problem = true
			}
		}
		switch {
		case deferred:
			kind = Deferred // "I left the flaky test for later"
		case problem:
			kind = Problem
		}
		if cl.has(cDone) && !cl.has(cNeg|cStill|cYet|cModal|cLater|cDefer) {
			// "Fixed the remaining lint warnings": finished work.
			return statement{text: text, done: true}, true
		}
		return statement{text: text, kind: kind}, true
	}
	if a.question {
		return statement{}, false
	}
	done := a.doneMark
	for k := cl.from; k < cl.to && !done; k++ {
		if a.w[k].c&cDone != 0 && !a.is(k-1, "to") { // "to pass the new attrs": an infinitive
			done = true
		}
		// A participle after an auxiliary and "now": "is now
		// documented", "has been refactored now".
		if k > cl.from && a.w[k-1].c&(cAux|cImmediate) != 0 && strings.HasSuffix(strings.ToLower(a.word(k)), "ed") && cl.hasWord("now") {
			done = true
		}
	}
	if done && !cl.has(cNeg|cModal|cAttempt) && !cl.except {
		return statement{text: text, done: true}, true
	}
	return statement{}, false
}

// reasonBefore: a word that opens a reason comes before the k-th word in
// the clause ("since", "because", "as", "given").
func (cl clause) reasonBefore(k int) bool {
	for j := cl.from; j < k; j++ {
		if cl.a.is(j, "since", "because", "as", "given", "cause") {
			return true
		}
	}
	return false
}

// negatedProblem: "not a problem", "isn't an issue", "no blocker".
func (cl clause) negatedProblem() bool {
	a := cl.a
	for k := cl.from; k < cl.to; k++ {
		if a.w[k].c&cProblem == 0 {
			continue
		}
		// "not a problem", "isn't an issue", "no blocker", "never a bug"
		if k > cl.from && a.w[k-1].c&(cNeg|cNone) != 0 {
			return true
		}
		if k > cl.from+1 && a.w[k-2].c&cNeg != 0 && a.is(k-1, "a", "an") {
			return true
		}
	}
	return false
}

// universal: a completion said of everything ("All done", "Everything
// is finished", "All 7 tasks are closed"), not of one thing ("All done
// with the parser", "All tests pass").
func (cl clause) universal() bool {
	a := cl.a
	for k := cl.from; k < cl.to; k++ {
		if a.w[k].c&cAll == 0 {
			continue
		}
		for j := k + 1; j < cl.to; j++ {
			if a.is(j, "done", "complete", "completed", "finished", "closed") || (j == k+1 && a.is(j, "set")) {
				for m := j + 1; m < cl.to; m++ {
					if a.w[m].c&cDone == 0 && hasTerms(a.word(m)) {
						return false // done with something in particular
					}
				}
				return true
			}
			if hasTerms(a.word(j)) {
				break // "all tests ...": a particular thing
			}
		}
	}
	return false
}

// fixVerbWithin: a verb of making something work within n words of k
// ("couldn't fix", "unable to get it to compile").
func fixVerbWithin(cl clause, k, n int) bool {
	for j := k; j < min(k+n, cl.to); j++ {
		if cl.a.is(j, "fix", "resolve", "solve", "get", "make", "reproduce", "figure", "work", "pass",
			"build", "compile", "install", "run", "start", "connect", "load", "silence", "suppress", "satisfy", "commit", "push",
			"address", "handle", "touch", "change", "tackle", "implement") {
			return true
		}
	}
	return false
}

func workVerbWithin(cl clause, k, n int) bool {
	for j := k; j < min(k+n, cl.to); j++ {
		if cl.a.is(j, "work", "working", "compile", "compiling", "build", "building", "pass", "passing",
			"start", "starting", "load", "loading", "run", "running", "connect", "render", "rendering") {
			return true
		}
	}
	return false
}

// skipVerbIn: work put aside ("skipped X for now", "hardcoded for now").
func skipVerbIn(cl clause) bool {
	for k := cl.from; k < cl.to; k++ {
		if cl.a.is(k, "skip", "skipped", "skipping", "leave", "leaving", "ignore", "ignored", "ignoring",
			"stub", "stubbed", "hardcode", "hardcoded", "hard-coded", "workaround", "disabled", "disable",
			"commented", "mocked", "temporary", "temporarily", "parked", "punt", "punted") {
			return true
		}
	}
	return false
}
