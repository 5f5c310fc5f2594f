package checkpoint

import (
	"strings"
	"unicode/utf8"
)

// Hand-written matchers for the few shapes a checkpoint looks for. They
// replace regular expressions: linking package regexp makes every cairn
// process initialise Unicode's tables at start-up, a quarter of a
// millisecond on each hook.

// issueKeys finds ABC-123 style keys: an upper-case letter, 1 to 9 more
// upper-case letters or digits, a dash and 1 to 6 digits, as a whole word.
func issueKeys(text string) []string {
	var out []string
	for i := 0; i < len(text); i++ {
		if text[i] != '-' {
			continue
		}
		start := i
		for start > 0 && (isUpper(text[start-1]) || isDigit(text[start-1])) {
			start--
		}
		for start < i && !isUpper(text[start]) { // must begin with a letter
			start++
		}
		end := i + 1
		for end < len(text) && isDigit(text[end]) {
			end++
		}
		prefix, digits := i-start, end-i-1
		if prefix < 2 || prefix > 10 || digits < 1 || digits > 6 {
			continue
		}
		if (start > 0 && isWord(text[start-1])) || (end < len(text) && isWord(text[end])) {
			continue
		}
		out = append(out, text[start:end])
	}
	return out
}

// beadID reports whether w has the shape of a bd (beads) id:
// lower-case letter, letters or digits, a dash, letters or digits, then
// optional .N parts ("spotter-4te", "gt-jixim.2").
func beadID(w string) bool {
	dash := strings.IndexByte(w, '-')
	if dash < 1 || !isLower(w[0]) {
		return false
	}
	for i := 1; i < dash; i++ {
		if !isLower(w[i]) && !isDigit(w[i]) {
			return false
		}
	}
	rest := w[dash+1:]
	main, parts, dotted := strings.Cut(rest, ".")
	if main == "" || (dotted && parts == "") {
		return false
	}
	for i := 0; i < len(main); i++ {
		if !isLower(main[i]) && !isDigit(main[i]) {
			return false
		}
	}
	for _, p := range strings.Split(parts, ".") {
		if parts == "" {
			break
		}
		if p == "" || strings.Trim(p, "0123456789") != "" {
			return false
		}
	}
	return true
}

// bdSubcommand says whether a bd subcommand names a bead after it.
func bdSubcommand(w string) bool {
	switch w {
	case "show", "update", "close", "start", "reopen", "comment", "comments":
		return true
	}
	return false
}

// beadsInCommand finds the ids a `bd show|update|close… ID` command names.
func beadsInCommand(cmd string) []string {
	var out []string
	w := strings.Fields(cmd)
	for i := 0; i+2 < len(w); i++ {
		if w[i] != "bd" {
			continue
		}
		j := i + 1
		if w[j] == "dep" && j+1 < len(w) && w[j+1] == "add" {
			j++
		} else if !bdSubcommand(w[j]) {
			continue
		}
		if j+1 < len(w) {
			if id := strings.TrimRight(w[j+1], ".,;:)\"'"); beadID(id) {
				out = append(out, id)
			}
		}
	}
	return out
}

// beadsInProse finds "bead ID" and "beads ID" in a prompt.
func beadsInProse(text string) []string {
	var out []string
	w := strings.Fields(text)
	for i := 0; i+1 < len(w); i++ {
		if l := strings.ToLower(w[i]); l == "bead" || l == "beads" {
			if id := strings.Trim(w[i+1], ".,;:()`\"'"); beadID(id) {
				out = append(out, id)
			}
		}
	}
	return out
}

// containsWord reports whether phrase occurs in text (both lower case) with
// word boundaries on both sides.
func containsWord(text, phrase string) bool {
	for off := 0; ; {
		i := strings.Index(text[off:], phrase)
		if i < 0 {
			return false
		}
		i += off
		end := i + len(phrase)
		if (i == 0 || !isWordRune(lastRune(text[:i]))) && (end == len(text) || !isWordRune(firstRune(text[end:]))) {
			return true
		}
		off = i + 1
	}
}

// constraintWords mark sentences in which the user tells the agent how to
// work.
var constraintWords = []string{
	"never", "always", "don't", "dont", "do not", "must", "mustn't", "must not", "shouldn't", "should not",
	"make sure", "ensure", "only use", "avoid", "prefer", "instead of", "rather than", "not allowed",
	"no more than", "at most", "at least", "without",
}

func isConstraint(sentence string) bool {
	l := strings.ToLower(strings.ReplaceAll(sentence, "’", "'"))
	for _, w := range constraintWords {
		if containsWord(l, w) {
			return true
		}
	}
	// "use X, not Y"
	if i := wordIndex(l, "use"); i >= 0 {
		rest := l[i:]
		if dot := strings.IndexByte(rest, '.'); dot >= 0 {
			rest = rest[:dot]
		}
		return containsWord(rest, "not")
	}
	return false
}

func wordIndex(text, word string) int {
	for off := 0; ; {
		i := strings.Index(text[off:], word)
		if i < 0 {
			return -1
		}
		i += off
		end := i + len(word)
		if (i == 0 || !isWordRune(lastRune(text[:i]))) && (end == len(text) || !isWordRune(firstRune(text[end:]))) {
			return i
		}
		off = i + 1
	}
}

// isNextHeader recognises a line that heads a list of next steps:
// "Next steps:", "## Remaining work", "**To do**".
func isNextHeader(line string) bool {
	l := strings.ToLower(strings.TrimSpace(line))
	l = strings.TrimLeft(l, "#* \t")
	l = strings.TrimRightFunc(l, func(r rune) bool { return !(r >= 'a' && r <= 'z') })
	switch l {
	case "next step", "next steps", "next up", "remaining", "remaining work", "remaining tasks", "still to do",
		"to do", "todo", "what's left", "plan":
		return true
	}
	return false
}

var nextOpenings = []string{
	"next, i'll", "next i'll", "next, i will", "next i will", "next, we'll", "next we'll", "next, we will",
	"next we will", "next, let me", "next let me", "then i'll", "then i will", "then we'll",
	"after that, i'll", "after that i'll", "after that, i will", "after that i will",
	"the next step is", "i'll now", "i'll next",
}

func isNextSentence(s string) bool {
	l := strings.ToLower(strings.ReplaceAll(s, "’", "'"))
	for _, p := range nextOpenings {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// listItem returns the text of a "- item", "* item", "• item", "1. item"
// or "1) item" line.
func listItem(line string) (string, bool) {
	t := strings.TrimLeft(line, " \t")
	switch {
	case strings.HasPrefix(t, "- "), strings.HasPrefix(t, "* "):
		t = t[2:]
	case strings.HasPrefix(t, "• "):
		t = t[len("• "):]
	default:
		n := 0
		for n < len(t) && isDigit(t[n]) {
			n++
		}
		if n == 0 || n+1 >= len(t) || (t[n] != '.' && t[n] != ')') || (t[n+1] != ' ' && t[n+1] != '\t') {
			return "", false
		}
		t = t[n+2:]
	}
	t = strings.TrimSpace(t)
	return t, t != ""
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLower(c byte) bool { return c >= 'a' && c <= 'z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isWord(c byte) bool  { return isUpper(c) || isLower(c) || isDigit(c) || c == '_' }

// isWordRune counts letters of any script as word characters, so that a
// cue inside a longer non-ASCII word does not match.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return isWord(byte(r))
	}
	return r != utf8.RuneError && r != '’' && r != '“' && r != '”' && r != '—' && r != '–' && r != '…' && r != '\u00a0'
}

func firstRune(s string) rune { r, _ := utf8.DecodeRuneInString(s); return r }
func lastRune(s string) rune  { r, _ := utf8.DecodeLastRuneInString(s); return r }
