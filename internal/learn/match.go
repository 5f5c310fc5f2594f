package learn

import (
	"strings"
	"unicode/utf8"
)

// The headings and lines learn recognises are matched by hand, each the
// exact equivalent of a regular expression (match_test.go checks them
// against it): with regexp linked, its parser's Unicode tables are built
// at start-up in every cairn process, every hook included, for five
// patterns (docs/benchmarks.md, issue 15).

// datedHeading is `^\d{4}-\d{2}-\d{2}[^—–-]*\s[—–-]+\s*([A-Za-z][\w/-]*):\s*(.+)$`:
// "2026-03-01 10:00 — implement: title", "2026-03-01 - debug: title".
func datedHeading(h string) (phase, title string, ok bool) {
	if len(h) < 10 || !digits(h[0:4]) || h[4] != '-' || !digits(h[5:7]) || h[7] != '-' || !digits(h[8:10]) {
		return "", "", false
	}
	rest := h[10:]
	// What comes before the first dash must end in a space, and the
	// dashes start there: no dash can be left to [^—–-]*.
	d := firstDash(rest)
	if d < 1 || !isSpace(rest[d-1]) {
		return "", "", false
	}
	rest = rest[d:]
	for {
		n := dashAt(rest)
		if n == 0 {
			break
		}
		rest = rest[n:]
	}
	rest = trimSpace(rest)
	n := word(rest, "/-", false)
	if n == 0 || n == len(rest) || rest[n] != ':' {
		return "", "", false
	}
	if title, ok = lineRest(rest[n+1:]); !ok {
		return "", "", false
	}
	return rest[:n], title, true
}

// bracketHeading is `^\[([A-Za-z][\w/-]*)\]\s*(.+)$`: "[implement] title".
func bracketHeading(h string) (phase, title string, ok bool) {
	if !strings.HasPrefix(h, "[") {
		return "", "", false
	}
	n := word(h[1:], "/-", false)
	if n == 0 || 1+n == len(h) || h[1+n] != ']' {
		return "", "", false
	}
	if title, ok = lineRest(h[2+n:]); !ok {
		return "", "", false
	}
	return h[1 : 1+n], title, true
}

// phaseLine is the first match in body of
// `(?im)^\s*(?:[-*]\s*)?(?:\*\*)?phase(?:\*\*)?\s*:\s*(?:\*\*)?\s*/?([A-Za-z][\w-]*)`:
// "Phase: implement", "- **phase**: /debug".
func phaseLine(body string) (string, bool) {
	for i := 0; ; {
		if p, ok := phaseAt(body[i:]); ok {
			return p, true
		}
		j := strings.IndexByte(body[i:], '\n')
		if j < 0 {
			return "", false
		}
		i += j + 1
	}
}

// phaseAt is phaseLine's pattern at the start of s. Whichever way its
// optional bullet and stars are read, "phase" must start at the first
// character that is none of them, so the group does not depend on it.
func phaseAt(s string) (string, bool) {
	s = trimSpace(s)
	var starts []string
	if s != "" && (s[0] == '-' || s[0] == '*') {
		t := trimSpace(s[1:])
		starts = append(starts, cutStars(t), t)
	}
	starts = append(starts, cutStars(s), s)
	for _, t := range starts {
		rest, ok := foldPrefix(t, "phase")
		if !ok {
			continue
		}
		rest = trimSpace(strings.TrimPrefix(rest, "**"))
		if rest == "" || rest[0] != ':' {
			continue
		}
		rest = trimSpace(rest[1:])
		if strings.HasPrefix(rest, "**") {
			rest = trimSpace(rest[2:])
		}
		rest = strings.TrimPrefix(rest, "/")
		if n := word(rest, "-", true); n > 0 {
			return rest[:n], true
		}
	}
	return "", false
}

// metaLine is `(?i)^\s*[-*]\s*(\*\*)?confirmed(\*\*)?\s*:`, the start of
// an entry's metadata line.
func metaLine(l string) bool {
	s := trimSpace(l)
	if s == "" || (s[0] != '-' && s[0] != '*') {
		return false
	}
	rest, ok := foldPrefix(strings.TrimPrefix(trimSpace(s[1:]), "**"), "confirmed")
	if !ok {
		return false
	}
	rest = trimSpace(strings.TrimPrefix(rest, "**"))
	return rest != "" && rest[0] == ':'
}

// lineRest is `\s*(.+)$` with `.` not matching a newline: what follows
// the longest run of spaces that leaves at least one character, and no
// newline, to the end.
func lineRest(s string) (string, bool) {
	if s == "" {
		return "", false
	}
	k := min(len(s)-len(trimSpace(s)), len(s)-1)
	if strings.LastIndexByte(s, '\n') >= k {
		return "", false
	}
	return s[k:], true
}

// kelvin (K) and longS (ſ) fold to k and s: (?i) matches them as those.
const (
	kelvin = '\u212a'
	longS  = '\u017f'
)

// word is the length of `[A-Za-z][\w<extra>]*` at the start of s, 0 for
// none. folded is (?i): then the Kelvin sign and the long s are letters
// too, as Unicode case folding makes them.
func word(s, extra string, folded bool) int {
	n := 0
	for n < len(s) {
		c := s[n]
		switch {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z':
			n++
			continue
		case n > 0 && ('0' <= c && c <= '9' || c == '_' || strings.IndexByte(extra, c) >= 0):
			n++
			continue
		case folded && c >= utf8.RuneSelf:
			if r, size := utf8.DecodeRuneInString(s[n:]); r == kelvin || r == longS {
				n += size
				continue
			}
		}
		return n
	}
	return n
}

// foldPrefix cuts word, lower-case ASCII letters, from the start of s,
// case-insensitively as (?i) matches.
func foldPrefix(s, word string) (string, bool) {
	for i := 0; i < len(word); i++ {
		c := word[i]
		switch {
		case s != "" && (s[0] == c || s[0] == c-'a'+'A'):
			s = s[1:]
		case c == 'k' && strings.HasPrefix(s, string(kelvin)):
			s = s[len(string(kelvin)):]
		case c == 's' && strings.HasPrefix(s, string(longS)):
			s = s[len(string(longS)):]
		default:
			return "", false
		}
	}
	return s, true
}

// cutStars cuts a leading "**" from s.
func cutStars(s string) string { return strings.TrimPrefix(s, "**") }

// firstDash is where the first -, – or — in s starts, -1 for none.
func firstDash(s string) int {
	d := strings.IndexByte(s, '-')
	for _, dash := range []string{"–", "—"} {
		if i := strings.Index(s, dash); i >= 0 && (d < 0 || i < d) {
			d = i
		}
	}
	return d
}

// dashAt is the length of the -, – or — s starts with, 0 for none.
func dashAt(s string) int {
	for _, dash := range []string{"-", "–", "—"} {
		if strings.HasPrefix(s, dash) {
			return len(dash)
		}
	}
	return 0
}

// isSpace is \s: ASCII white space, not \v.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// trimSpace trims \s from the start of s.
func trimSpace(s string) string {
	for s != "" && isSpace(s[0]) {
		s = s[1:]
	}
	return s
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
