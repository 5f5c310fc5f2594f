package redact

import "strings"

const (
	openTag  = "<private>"
	closeTag = "</private>"
)

// Private removes the text between <private> and </private>, tags included.
// The tags are case-insensitive. Blocks may nest or repeat, and all of them
// go; a <private> that is never closed removes everything after it. A stray
// </private> is left alone.
//
// Removing a block can join the text around it into a new <private> tag
// ("<priv<private>x</private>ate>"); that tag opens a block too, so that
// Private(Private(s)) == Private(s).
func Private(s string) string {
	if indexFold(s, openTag, 0) < 0 {
		return s
	}
	out := make([]byte, 0, len(s))
	pos := 0
	for {
		next := indexFold(s, openTag, pos)
		if next < 0 {
			return string(append(out, s[pos:]...))
		}
		out = append(out, s[pos:next]...)
		pos = next + len(openTag)
		for {
			var closed bool
			if pos, closed = skipBlock(s, pos); !closed {
				return string(out)
			}
			m := joinedTag(out, s[pos:])
			if m == 0 {
				break
			}
			out = out[:len(out)-m]
			pos += len(openTag) - m
		}
	}
}

// skipBlock returns the index just past the tag that closes the block open
// at s[pos], counting nested blocks, and false when it is never closed.
func skipBlock(s string, pos int) (int, bool) {
	depth := 1
	c := indexFold(s, closeTag, pos)
	for {
		if c < 0 {
			return len(s), false
		}
		if o := indexFold(s[:c], openTag, pos); o >= 0 {
			depth++
			pos = o + len(openTag)
			continue
		}
		pos = c + len(closeTag)
		if depth--; depth == 0 {
			return pos, true
		}
		c = indexFold(s, closeTag, pos)
	}
}

// joinedTag returns m > 0 when the last m bytes of out and the first
// len(openTag)-m bytes of rest spell an opening tag.
func joinedTag(out []byte, rest string) int {
	for m := min(len(openTag)-1, len(out)); m > 0; m-- {
		if equalFoldASCII(string(out[len(out)-m:]), openTag[:m]) && hasPrefixFold(rest, openTag[m:]) {
			return m
		}
	}
	return 0
}

// indexFold returns the index of the first ASCII-case-insensitive match of
// pat (lower case, starting with '<') in s at or after from, or -1.
func indexFold(s, pat string, from int) int {
	for i := from; i <= len(s)-len(pat); {
		j := strings.IndexByte(s[i:len(s)-len(pat)+1], pat[0])
		if j < 0 {
			return -1
		}
		i += j
		if equalFoldASCII(s[i:i+len(pat)], pat) {
			return i
		}
		i++
	}
	return -1
}

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && equalFoldASCII(s[:len(prefix)], prefix)
}

// equalFoldASCII compares a with b, which is in lower case, ignoring the
// case of ASCII letters. Unicode folding adds nothing for these tags: no
// non-ASCII rune folds to a letter of "private".
func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		c := a[i]
		if isUpper(c) {
			c += 'a' - 'A'
		}
		if c != b[i] {
			return false
		}
	}
	return true
}
