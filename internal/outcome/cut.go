package outcome

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// How much of an output Judge reads: the head shows what ran and the
// first errors (a compiler stops at the first), the tail shows the
// verdict (every test runner ends with its summary). Callers that keep
// outputs for Judge keep Cut(output), at most HeadBytes+TailBytes plus a
// line between them.
const (
	HeadBytes = 4 << 10
	TailBytes = 16 << 10
)

// Cut returns s when it is at most HeadBytes+TailBytes (and a little) long,
// and otherwise
// its first HeadBytes and last TailBytes, each cut back to whole lines
// where a line ends near the edge, with a line between them saying how
// much is gone:
//
//	... [123456 bytes cut] ...
//
// Judge reads such a line, or Claude Code's own "[N characters
// truncated]", as a sign that it does not see the whole output. Cut of a
// cut output is the same output.
func Cut(s string) string {
	// The slack holds the line Cut adds, so that a cut output is not cut
	// again.
	const slack = 64
	if len(s) <= HeadBytes+TailBytes+slack {
		return s
	}
	head := s[:HeadBytes]
	if i := strings.LastIndexByte(head, '\n'); i >= HeadBytes/2 {
		head = head[:i+1]
	} else {
		for len(head) > 0 && !utf8.RuneStart(s[len(head)]) {
			head = head[:len(head)-1]
		}
	}
	tail := s[len(s)-TailBytes:]
	if i := strings.IndexByte(tail, '\n'); i >= 0 && i < TailBytes/2 {
		tail = tail[i+1:]
	} else {
		for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
			tail = tail[1:]
		}
	}
	gone := len(s) - len(head) - len(tail)
	var b strings.Builder
	b.Grow(len(head) + len(tail) + 40)
	b.WriteString(head)
	if !strings.HasSuffix(head, "\n") {
		b.WriteByte('\n')
	}
	b.WriteString("... [")
	b.WriteString(strconv.Itoa(gone))
	b.WriteString(" bytes cut] ...\n")
	b.WriteString(tail)
	return b.String()
}
