package outcome

import "strings"

// A simple command of a shell command line, as far as this package needs
// to know it: its words with quotes removed and redirections dropped, and
// the operator that follows it.
type simple struct {
	words []string
	op    string // "|", "&&", "||", ";" (also a newline), "&", or "" at the end
}

// splitShell cuts a command line into simple commands. It is a lexer, not
// a shell: it knows quotes, escapes, comments, heredocs, redirections and
// the list and pipe operators, keeps command substitutions ($(...),
// backticks) inside the word they belong to, and flattens groupings
// ((...), {...}) into the list around them, which is enough to find the
// programs and the pipe that decides the exit status. It never fails: an
// unterminated quote ends at the end of the line.
func splitShell(s string) []simple {
	var (
		out      []simple
		words    []string
		word     strings.Builder
		inWord   bool
		redirect bool     // the next word is a redirection's target
		heredocs []string // delimiters waiting for the next newline
	)
	endWord := func() {
		if !inWord {
			return
		}
		w := word.String()
		word.Reset()
		inWord = false
		if redirect {
			redirect = false
			return
		}
		words = append(words, w)
	}
	endCommand := func(op string) {
		endWord()
		redirect = false
		if len(words) == 0 {
			// "a && (b)" leaves an empty command at "(": attach the
			// operator to the one before, so that the list keeps its shape.
			if n := len(out); n > 0 && op != "" {
				out[n-1].op = op
			}
			return
		}
		out = append(out, simple{words: words, op: op})
		words = nil
	}
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r':
			endWord()
			i++
		case c == '\n':
			endWord()
			i++
			if len(heredocs) > 0 {
				i = skipHeredocs(s, i, heredocs)
				heredocs = nil
			}
			if len(words) > 0 {
				endCommand(";")
			}
		case c == '#' && !inWord:
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == '\\':
			if i+1 < len(s) && s[i+1] == '\n' { // line continuation
				i += 2
				continue
			}
			if i+1 < len(s) {
				word.WriteByte(s[i+1])
				inWord = true
				i += 2
				continue
			}
			i++
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				j = len(s) - i - 1
			}
			word.WriteString(s[i+1 : i+1+j])
			inWord = true
			i += j + 2
		case c == '"':
			i = doubleQuoted(s, i+1, &word)
			inWord = true
		case c == '$' && i+1 < len(s) && (s[i+1] == '(' || s[i+1] == '{'):
			j := skipBalanced(s, i+1)
			word.WriteString(s[i:j])
			inWord = true
			i = j
		case c == '$' && i+1 < len(s) && s[i+1] == '\'':
			j := i + 2
			for j < len(s) && s[j] != '\'' {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			word.WriteString(s[i+2 : min(j, len(s))])
			inWord = true
			i = j + 1
		case c == '`':
			j := i + 1
			for j < len(s) && s[j] != '`' {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			word.WriteString(s[i:min(j+1, len(s))])
			inWord = true
			i = j + 1
		case c == '(' || c == ')' || (c == '{' || c == '}') && !inWord && (i+1 == len(s) || s[i+1] == ' ' || s[i+1] == '\n' || s[i+1] == ';'):
			// Groupings flatten into the list: "(cd x && make) | tail" is
			// read as "cd x && make | tail", which has the same exit status.
			endWord()
			i++
		case c == '|':
			if i+1 < len(s) && s[i+1] == '|' {
				endCommand("||")
				i += 2
			} else {
				endCommand("|")
				i++
				if i < len(s) && s[i] == '&' { // |& pipes stderr too
					i++
				}
			}
		case c == '&':
			switch {
			case i+1 < len(s) && s[i+1] == '&':
				endCommand("&&")
				i += 2
			case i+1 < len(s) && s[i+1] == '>': // &> file, &>> file
				endWord()
				i += 2
				if i < len(s) && s[i] == '>' {
					i++
				}
				redirect = true
			default:
				endCommand("&")
				i++
			}
		case c == ';':
			endCommand(";")
			i++
			for i < len(s) && s[i] == ';' {
				i++
			}
		case c == '>' || c == '<':
			// A word of digits glued to the operator is a file descriptor.
			if inWord && isDigits(word.String()) {
				word.Reset()
				inWord = false
			} else {
				endWord()
			}
			j := i + 1
			if c == '<' && j < len(s) && s[j] == '<' {
				j++
				if j < len(s) && s[j] == '<' { // <<< word: a here-string
					redirect = true
					i = j + 1
					continue
				}
				if j < len(s) && s[j] == '-' {
					j++
				}
				d, k := heredocDelimiter(s, j)
				if d != "" {
					heredocs = append(heredocs, d)
				}
				i = k
				continue
			}
			for j < len(s) && (s[j] == '>' || s[j] == '|') {
				j++
			}
			if j < len(s) && s[j] == '&' { // 2>&1, >&2
				j++
				for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '-') {
					j++
				}
				i = j
				continue
			}
			redirect = true
			i = j
		default:
			word.WriteByte(c)
			inWord = true
			i++
		}
	}
	endCommand("")
	return out
}

// doubleQuoted reads a "..." string from s[i:] (after the opening quote)
// into w and returns the index after the closing quote.
func doubleQuoted(s string, i int, w *strings.Builder) int {
	for i < len(s) {
		switch c := s[i]; {
		case c == '"':
			return i + 1
		case c == '\\' && i+1 < len(s):
			if n := s[i+1]; n == '"' || n == '\\' || n == '$' || n == '`' {
				w.WriteByte(n)
			} else if n != '\n' {
				w.WriteByte('\\')
				w.WriteByte(n)
			}
			i += 2
		case c == '$' && i+1 < len(s) && (s[i+1] == '(' || s[i+1] == '{'):
			j := skipBalanced(s, i+1)
			w.WriteString(s[i:j])
			i = j
		default:
			w.WriteByte(c)
			i++
		}
	}
	return i
}

// skipBalanced returns the index after the bracket that closes the one at
// s[i] ('(' or '{'), minding quotes; or len(s).
func skipBalanced(s string, i int) int {
	open := s[i]
	close := byte(')')
	if open == '{' {
		close = '}'
	}
	depth := 0
	for i < len(s) {
		switch s[i] {
		case open:
			depth++
		case close:
			depth--
			if depth == 0 {
				return i + 1
			}
		case '\\':
			i++
		case '\'':
			if j := strings.IndexByte(s[i+1:], '\''); j >= 0 {
				i += j + 1
			} else {
				return len(s)
			}
		case '"':
			var discard strings.Builder
			i = doubleQuoted(s, i+1, &discard) - 1
		case '<':
			// A heredoc inside $(cat <<'EOF' ... EOF) may hold unbalanced
			// brackets: skip its body.
			if i+1 < len(s) && s[i+1] == '<' && (i+2 >= len(s) || s[i+2] != '<') {
				j := i + 2
				if j < len(s) && s[j] == '-' {
					j++
				}
				d, k := heredocDelimiter(s, j)
				if d != "" {
					if nl := strings.IndexByte(s[k:], '\n'); nl >= 0 {
						i = skipHeredocs(s, k+nl+1, []string{d}) - 1
						break
					}
				}
				i = k - 1
			}
		}
		i++
	}
	return len(s)
}

// heredocDelimiter reads the word after << at s[i:] and returns it
// unquoted, with the index after it.
func heredocDelimiter(s string, i int) (string, int) {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	var d strings.Builder
	for i < len(s) {
		c := s[i]
		if c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '|' || c == '&' || c == ')' || c == '<' || c == '>' {
			break
		}
		if c != '\'' && c != '"' && c != '\\' {
			d.WriteByte(c)
		}
		i++
	}
	return d.String(), i
}

// skipHeredocs skips the bodies of the heredocs, in order, from the start
// of the line at s[i:], and returns the index after the last delimiter
// line (or len(s)).
func skipHeredocs(s string, i int, delims []string) int {
	for _, d := range delims {
		for i < len(s) {
			end := strings.IndexByte(s[i:], '\n')
			line := s[i:]
			if end >= 0 {
				line = s[i : i+end]
			}
			if end < 0 {
				i = len(s)
			} else {
				i += end + 1
			}
			if strings.TrimLeft(line, "\t") == d {
				break
			}
		}
	}
	return i
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
