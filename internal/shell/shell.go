// Package shell quotes and splits words the way a POSIX shell reads them.
// cairn writes commands into settings files and slash commands (its own
// path, a user's status line to chain), and reads commands back from
// settings and transcripts; one set of rules for both keeps what it writes
// what it reads.
//
// It knows quoting, not the shell's grammar: operators, expansions and
// here-documents are internal/outcome's concern, which reads command lines
// for what they run.
package shell

import "strings"

// special are the bytes that make a word need quotes for sh.
const special = " \t\n\r'\"\\$`!*?[](){}<>|&;#~=%^,"

// Quote quotes s as one word for sh: as it is when nothing in it is
// special, else in single quotes.
func Quote(s string) string {
	if s != "" && !strings.ContainsAny(s, special) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Words splits a command into words as sh reads them, as far as quotes
// and backslashes go: '...', "..." with its backslash escapes, and
// backslashes outside quotes. Expansions and operators are not interpreted.
// ok is false for an unterminated quote.
func Words(s string) (words []string, ok bool) {
	var b strings.Builder
	in := false // inside a word
	end := func() {
		if in {
			words = append(words, b.String())
			b.Reset()
			in = false
		}
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ' ', '\t', '\n':
			end()
		case '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, false
			}
			b.WriteString(s[i+1 : i+1+j])
			i += j + 1
			in = true
		case '"':
			in = true
			for i++; ; i++ {
				if i >= len(s) {
					return nil, false
				}
				if s[i] == '"' {
					break
				}
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
					i++
					if s[i] == '\n' {
						continue // a line continuation
					}
				}
				b.WriteByte(s[i])
			}
		case '\\':
			if i+1 < len(s) {
				i++
				if s[i] == '\n' {
					continue // a line continuation
				}
				b.WriteByte(s[i])
			}
			in = true
		default:
			b.WriteByte(c)
			in = true
		}
	}
	end()
	return words, true
}

// FirstWord splits off the first word of a command as sh reads it, for the
// quoting Quote produces; rest starts at the blank after it. word is ""
// for an unterminated quote.
func FirstWord(s string) (word, rest string) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == ' ' || c == '\t':
			return b.String(), s[i:]
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return "", ""
			}
			b.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case c == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), ""
}
