package ledger

import (
	"strings"
)

// terms is what a text is about, reduced to what can be compared with other
// texts: the names it uses (identifiers, file names, commands) and its
// content words. Items are matched with evidence and with their own
// restatements through terms, never through the wording around them.
type terms struct {
	// names are identifiers in lower case with their separators removed,
	// so that SessionLive, session_live and session-live.ex's stem meet:
	// "sessionlive". A name that ends in a file extension keeps it after a
	// dot ("sessionlive.ex"), and the file's stem is in stems.
	names []string
	// stems are the extension-less forms of file names ("sessionlive").
	stems []string
	// words are stemmed content words: no function words, no words that
	// only say what kind of work it is (add, fix, update, run...).
	words []string
	// first is the first content word: the subject of a short statement
	// ("Dialyzer is still complaining", "Dialyzer passes").
	first string
	// code: some name is a name in code (not only a ticket id).
	code bool
}

// shares says two texts' terms have a word or a name in common.
func (t *terms) shares(o *terms) bool {
	return sharedWords(t.words, o.words) > 0 || sharedWords(t.names, o.names) > 0
}

func (t *terms) addName(n string) {
	if n != "" && !has(t.names, n) && len(t.names) < 16 {
		t.names = append(t.names, n)
	}
}

func (t *terms) addStem(n string) {
	if n != "" && !has(t.stems, n) && len(t.stems) < 16 {
		t.stems = append(t.stems, n)
	}
}

func (t *terms) addWord(w string) {
	if t.first == "" {
		t.first = w
	}
	if !has(t.words, w) && len(t.words) < 40 {
		t.words = append(t.words, w)
	}
}

func has(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// textTerms reads the terms of prose: names are the tokens that look like
// code (see isName) and every backquoted span; words are the rest.
func textTerms(s string) *terms {
	t := &terms{}
	tokens(s, func(tok string, code bool) bool {
		token(t, tok, code)
		return true
	})
	return t
}

// tokens calls f with each token of prose and whether it is in backquotes;
// a backquoted span of up to 80 bytes is also given whole, as one token
// ("go test ./...": a command named in the text). It stops when f returns
// false.
func tokens(s string, f func(tok string, code bool) bool) {
	for i := 0; i < len(s); {
		if s[i] == '`' {
			end := strings.IndexByte(s[i+1:], '`')
			if end >= 0 {
				span := s[i+1 : i+1+end]
				if len(span) <= 80 && strings.IndexByte(span, ' ') >= 0 && !f(span, true) {
					return
				}
				if !splitTokens(span, true, f) {
					return
				}
				i += end + 2
				continue
			}
		}
		j := i + 1
		for j < len(s) && s[j] != '`' {
			j++
		}
		if !splitTokens(s[i:j], false, f) {
			return
		}
		i = j
	}
}

// splitTokens splits s at spaces and punctuation that cannot be part of an
// identifier.
func splitTokens(s string, code bool, f func(tok string, code bool) bool) bool {
	start := -1
	for i := 0; i <= len(s); i++ {
		if i < len(s) && isTokenByte(s[i]) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			// A word called ("Encode()") is a name in code.
			call := i+1 < len(s) && s[i] == '(' && s[i+1] == ')'
			if tok := strings.Trim(s[start:i], ".-/'_"); tok != "" && !f(tok, code || call) {
				return false
			}
			start = -1
		}
	}
	return true
}

// pathTerms reads the terms of a file path: its name (with and without the
// extension) and the words of the file's name and of its folder. Folders
// further up are left out: they name the project or the worktree, which
// every item of the session shares.
func pathTerms(p string) *terms {
	t := &terms{}
	p = strings.TrimRight(p, "/")
	base := p
	dir := ""
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		base = p[i+1:]
		dir = p[:i]
		if j := strings.LastIndexByte(dir, '/'); j >= 0 {
			dir = dir[j+1:]
		}
	}
	full, stem := fileName(base)
	t.addName(full)
	t.addStem(stem)
	if stem == "" {
		t.addStem(full)
	}
	t.code = true
	wordsOf(t, base)
	wordsOf(t, dir)
	return t
}

// commandTerms reads the terms of a shell command: the names in it (paths
// by their file names, dotted or underscored identifiers), the program
// and subcommand of each simple command joined as a name ("mixtest",
// "gotest"), and its words, including those of a commit message.
//
// Of git, only a commit speaks about the work, through its message: the
// branch a push, a checkout or a merge names is usually the ticket's own
// id, which every item of the session shares.
//
// A segment that only reads (cd, cat, grep, git status...) says nothing:
// "cd ~/worktrees/spotter-fum" names the worktree, not the work. Text in
// quotes (a commit message, a --reason) is prose: its words count, and so
// do the code names in it, but not the ticket ids it mentions in passing
// ("feat: add tracing (spotter-4te)" is one step of spotter-4te, not all
// of it).
func commandTerms(cmd string) *terms {
	if len(cmd) > maxCommandRead {
		// what a command is about is at its start; a heredoc or an
		// inline script can run to kilobytes
		cmd = cmd[:maxCommandRead]
	}
	t := &terms{}
	forSegments(cmd, func(seg []string) {
		if readOnlySegment(seg) {
			return
		}
		if len(seg) >= 2 {
			t.addName(joined(seg[0] + seg[1]))
		}
		if seg[0] == "git" && (len(seg) < 2 || seg[1] != "commit") {
			wordsOf(t, seg[0])
			if len(seg) > 1 {
				wordsOf(t, seg[1])
			}
			return
		}
		if len(seg) >= 3 && !strings.HasPrefix(seg[2], "-") && !strings.ContainsAny(seg[2], "\"'") {
			t.addName(joined(seg[0] + seg[1] + seg[2]))
		}
		rest := strings.Join(seg, " ")
		if seg[0] == "git" {
			// the message: the command may go on past the words forSegments keeps
			if i := strings.Index(cmd, "commit"); i >= 0 {
				rest = cmd[i:]
			}
		}
		argTerms(t, rest)
	})
	return t
}

// argTerms reads a command's arguments: outside quotes as names and words,
// inside quotes as prose (see commandTerms).
func argTerms(t *terms, s string) {
	for len(s) > 0 {
		q := strings.IndexAny(s, "\"'")
		if q < 0 {
			plainArgs(t, s)
			return
		}
		plainArgs(t, s[:q])
		end := strings.IndexByte(s[q+1:], s[q])
		if end < 0 {
			end = len(s) - q - 1
		}
		splitTokens(s[q+1:q+1+end], false, func(tok string, _ bool) bool {
			switch {
			case refName(tok):
			case isName(tok):
				token(t, tok, false)
			default:
				wordsOf(t, tok)
			}
			return true
		})
		s = s[min(len(s), q+2+end):]
	}
}

// plainArgs reads unquoted arguments. The value of an --option=value is
// metadata (bd create --parent=spotter-fum files a new issue under the
// epic, it does not finish it): its words count, not its names.
func plainArgs(t *terms, s string) {
	for _, f := range strings.Fields(s) {
		if strings.HasPrefix(f, "-") {
			if i := strings.IndexByte(f, '='); i >= 0 {
				wordsOf(t, f[:i])
				splitTokens(f[i+1:], false, func(tok string, _ bool) bool {
					if !refName(tok) {
						wordsOf(t, tok)
					}
					return true
				})
				continue
			}
		}
		tokenTerms(t, f, false)
	}
}

// refName: an identifier made only of letters, digits, hyphens and dots,
// with a digit, and no file extension: a ticket id or a version
// (spotter-4te, ABC-12, gqc.6, v1.2), as opposed to a name in code
// (SessionLive, transcript_dir, app.js). Its parts are not words: "ABC" of
// ABC-12 says nothing. (A hyphenated word without digits, "follow-up" or
// "spotter-gqc", cannot be told from an id and counts as both.)
func refName(tok string) bool {
	digit := false
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		switch {
		case isDigit(c):
			digit = true
		case isLower(c), c == '-', c == '.':
		case isUpper(c) && (i == 0 || !isLower(tok[i-1])):
		default:
			return false
		}
	}
	if !digit {
		return false
	}
	_, stem := fileName(tok)
	return stem == ""
}

// maxCommandRead bounds how much of a command is read for its terms.
const maxCommandRead = 600

// forSegments calls f with the words of each simple command of cmd, split
// at pipes, && , || and ;, leaving out leading VAR=value assignments.
func forSegments(cmd string, f func([]string)) {
	var seg []string
	flush := func() {
		for len(seg) > 0 && strings.Contains(seg[0], "=") {
			seg = seg[1:]
		}
		if len(seg) > 0 {
			f(seg)
		}
		seg = seg[:0]
	}
	for _, w := range strings.Fields(cmd) {
		switch w {
		case "|", "||", "&&", ";", "&":
			flush()
			continue
		}
		if strings.HasSuffix(w, ";") {
			seg = append(seg, strings.TrimSuffix(w, ";"))
			flush()
			continue
		}
		seg = append(seg, w)
	}
	flush()
}

// tokenTerms files each token of s as a name or as words.
func tokenTerms(t *terms, s string, code bool) {
	splitTokens(s, code, func(tok string, code bool) bool {
		token(t, tok, code)
		return true
	})
}

// isTokenByte: letters, digits and the separators identifiers and paths
// use. Bytes of multi-byte runes count, so words of other scripts stay
// whole.
func isTokenByte(c byte) bool {
	return c >= 0x80 || isAlnum(c) || c == '_' || c == '-' || c == '.' || c == '/' || c == '\''
}

func token(t *terms, tok string, code bool) {
	if len(tok) > 120 || strings.Contains(tok, "://") {
		return
	}
	if code && strings.IndexByte(tok, ' ') >= 0 {
		// a whole backquoted span: "go test ./..." is the name "gotest..."
		if n := joined(tok); len(n) > 1 {
			t.addName(n)
		}
		return
	}
	if code || isName(tok) {
		if refName(tok) {
			full, _ := fileName(tok)
			t.addName(full)
			return
		}
		t.code = true
		if strings.Contains(tok, "/") {
			base := tok[strings.LastIndexByte(tok, '/')+1:]
			full, stem := fileName(base)
			t.addName(full)
			t.addStem(stem)
			wordsOf(t, base)
			return
		}
		full, stem := fileName(tok)
		t.addName(full)
		t.addStem(stem)
		if modulePath(tok) {
			// Spotter.Services.TailF, pkg.Func: each part may be a
			// file's name (tail_f.ex).
			for _, p := range strings.Split(tok, ".") {
				if len(p) > 2 {
					t.addName(joined(p))
				}
			}
		}
	}
	wordsOf(t, tok)
}

// isName reports whether a token is an identifier rather than a word: it
// has an underscore, a slash, a hyphen, a dot between letters (app.js, ecto.migrate),
// letters and digits mixed (a0y, v2, 4te), or a lower-case letter followed
// by an upper-case one (SessionLive, toggleDebug). Abbreviations like
// "e.g." are words.
func isName(tok string) bool {
	letters, digits, longPart := 0, 0, false
	part := 0
	special := false
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		switch {
		case isLetter(c):
			letters++
			part++
		case isDigit(c):
			digits++
			part++
		case c == '_' || c == '/' || c == '.' || c == '-':
			// kebab-case too: ticket ids (spotter-dov), branches, CSS
			// classes, flags; a hyphenated English word becomes a name
			// as well, which costs nothing (see matches).
			special = true
			part = 0
		default:
			part = 0
		}
		if part > 1 {
			longPart = true
		}
		if i > 0 && isUpper(c) && isLower(tok[i-1]) {
			return true
		}
	}
	if letters == 0 || !longPart {
		return false
	}
	return special || digits > 0
}

// modulePath: dotted parts that each begin with a capital letter
// (Spotter.Services.TailF).
func modulePath(tok string) bool {
	if !strings.Contains(tok, ".") {
		return false
	}
	for _, p := range strings.Split(tok, ".") {
		if p == "" || !isUpper(p[0]) {
			return false
		}
	}
	return true
}

// fileName returns the name form of a token and, when it ends in a file
// extension (a dot and one to five characters with a letter), the stem:
// "session_live.ex" gives "sessionlive.ex" and "sessionlive".
func fileName(tok string) (full, stem string) {
	if dot := strings.LastIndexByte(tok, '.'); dot > 0 && dot < len(tok)-1 {
		ext := tok[dot+1:]
		if len(ext) <= 5 && hasLetter(ext) && isAlnumString(ext) {
			stem = joined(tok[:dot])
			if stem != "" {
				return stem + "." + strings.ToLower(ext), stem
			}
		}
	}
	return joined(tok), ""
}

// joined lowers s and drops everything but letters and digits.
func joined(s string) string {
	plain := true
	for i := 0; i < len(s) && plain; i++ {
		plain = isLower(s[i]) || isDigit(s[i])
	}
	if plain {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isUpper(c):
			b.WriteByte(c + 'a' - 'A')
		case isLower(c) || isDigit(c) || c >= 0x80:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// wordsOf adds the content words of a token: its parts split at separators
// and at lower-to-upper case changes, lowered and stemmed.
func wordsOf(t *terms, tok string) {
	parts(tok, func(p string) {
		if contentWord(p) {
			t.addWord(stem(lower(cutApostrophe(p))))
		}
	})
}

// parts calls f with the parts of a token, split at separators and at
// lower-to-upper case changes (session_live, SessionLive: session, live).
func parts(tok string, f func(p string)) {
	start := 0
	for i := 0; i < len(tok); i++ {
		c := tok[i]
		switch {
		case c == '_' || c == '-' || c == '.' || c == '/':
			f(tok[start:i])
			start = i + 1
		case i > start && isUpper(c) && isLower(tok[i-1]):
			f(tok[start:i])
			start = i
		}
	}
	f(tok[start:])
}

func cutApostrophe(p string) string {
	if k := strings.IndexByte(p, '\''); k >= 0 {
		return p[:k] // don't, user's
	}
	return p
}

// contentWord: a part of three letters or more, not only digits, not a
// stop word.
func contentWord(p string) bool {
	p = cutApostrophe(p)
	if len(p) < 3 || len(p) > 40 || allDigits(p) {
		return false
	}
	var buf [40]byte
	for i := 0; i < len(p); i++ {
		c := p[i]
		if isUpper(c) {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	return !stopword(string(buf[:len(p)]))
}

// stem strips common English inflections, then the suffixes that turn a
// verb into a noun (-ation, -ion, -ate), so that "migration", "migrate"
// and "migrated" meet, as do "tests" and "testing", "implementation" and
// "implement". It is crude on purpose: both sides of every comparison go
// through it.
func stem(w string) string {
	if w[len(w)-1] >= 0x80 || len(w) < 4 {
		return strings.TrimSuffix(w, "s")
	}
	cut := func(suf string) bool {
		if strings.HasSuffix(w, suf) && len(w)-len(suf) >= 3 {
			w = w[:len(w)-len(suf)]
			return true
		}
		return false
	}
	switch {
	case cut("ies"), cut("ied"):
		w += "y"
	case strings.HasSuffix(w, "sses"):
		w = w[:len(w)-2]
	case cut("ing"), cut("ed"):
		if n := len(w); n >= 4 && w[n-1] == w[n-2] && !strings.ContainsRune("lsz", rune(w[n-1])) {
			w = w[:n-1] // formatting, committed, running
		}
	case strings.HasSuffix(w, "xes") || strings.HasSuffix(w, "ches") || strings.HasSuffix(w, "shes"):
		w = w[:len(w)-2]
	case strings.HasSuffix(w, "ss") || strings.HasSuffix(w, "us") || strings.HasSuffix(w, "is"):
	default:
		cut("s")
	}
	_ = cut("ation") || cut("ion")
	_ = cut("ate") || cut("at")
	if len(w) > 3 {
		w = strings.TrimSuffix(w, "e")
	}
	return w
}

// stopword reports the words that say nothing about which work an item
// is: function words, and the verbs and nouns of any work (add, fix, run,
// task, file...). Matching on them would tie every item to every change.
func stopword(w string) bool {
	switch w {
	case "the", "and", "for", "with", "from", "into", "onto", "over", "under", "about", "after", "before",
		"out", "off", "via", "per", "than", "too", "very", "only", "own", "its", "this", "that", "these",
		"those", "there", "here", "which", "what", "when", "where", "how", "why", "who", "whom", "whose",
		"will", "would", "should", "could", "can", "may", "might", "must", "shall", "have", "has", "had",
		"having", "are", "was", "were", "been", "being", "not", "nor", "but", "our", "you", "your",
		"they", "them", "their", "she", "his", "her", "him", "also", "then", "just", "still", "yet", "now",
		"all", "some", "any", "each", "both", "more", "most", "other", "same", "such", "again", "already",
		"once", "while", "until", "since", "because", "though", "although", "whether", "either", "neither",
		"does", "did", "doing", "done", "don", "didn", "isn", "aren", "wasn", "hasn", "haven", "won",
		"let", "lets", "need", "needs", "needed", "want", "wants", "make", "makes", "made", "sure", "get",
		"gets", "got", "put", "set", "use", "uses", "used", "using", "see", "look", "looks", "know", "think",
		"going", "goes", "went", "come", "keep", "next", "first", "last", "new", "one", "two", "three",
		"add", "adds", "added", "adding", "update", "updates", "updated", "updating", "fix", "fixes",
		"fixed", "fixing", "implement", "implements", "implemented", "implementing", "implementation",
		"create", "creates", "created", "creating", "write", "writes", "wrote", "written", "writing",
		"run", "runs", "ran", "running", "change", "changes", "changed", "changing", "check", "checks",
		"checked", "checking", "ensure", "handle", "handled", "work", "works", "worked", "working",
		"try", "tried", "trying", "remove", "removed", "removing", "task", "tasks", "item", "items",
		"step", "steps", "thing", "things", "way", "part", "remaining", "remain", "remains", "left",
		"later", "pending", "open", "todo", "follow", "file", "files", "please", "pls", "okay", "yes",
		"good", "great", "perfect", "well", "like", "currently", "current", "properly", "correctly",
		"actually", "really", "probably", "maybe", "something", "anything", "everything", "nothing",
		"able", "unable", "okey", "plz", "thanks", "thank", "now's", "it's", "let's", "i'll",
		"we'll", "i've", "i'm", "don't", "can't", "won't", "isn't", "aren't", "hasn't", "haven't",
		"doesn't", "didn't", "done's", "yet's", "start", "started", "continue", "completed", "complete",
		"finish", "finished", "pass", "passes", "passed", "passing", "close", "closed", "question",
		"questions", "issue", "issues", "problem", "problems", "below", "above", "following", "ready",
		"except", "known", "expected", "none", "nope", "n/a", "subtask", "subtasks", "todos", "every", "unrelated":
		return true
	}
	return false
}

func lower(s string) string {
	for i := 0; i < len(s); i++ {
		if isUpper(s[i]) {
			return strings.ToLower(s)
		}
	}
	return s
}

func isUpper(c byte) bool  { return c >= 'A' && c <= 'Z' }
func isLower(c byte) bool  { return c >= 'a' && c <= 'z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isLetter(c byte) bool { return isUpper(c) || isLower(c) }
func isAlnum(c byte) bool  { return isLetter(c) || isDigit(c) }

func hasLetter(s string) bool {
	for i := 0; i < len(s); i++ {
		if isLetter(s[i]) {
			return true
		}
	}
	return false
}

func isAlnumString(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isAlnum(s[i]) {
			return false
		}
	}
	return true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}
