// Package jsonscan is a minimal, allocation-free JSON walker for lines that
// are mostly large strings nobody needs: it jumps over string bodies with
// bytes.IndexByte and lets the caller pick the few fields it keeps,
// decoding only those.
//
// What it walks it checks as encoding/json does, with one exception: a
// string's contents. Structure, literals, numbers and nesting (at most
// 10,000 deep, as encoding/json) are checked exactly; a string is checked
// only to end, at the first quote that no backslash escapes. A raw control
// character, or a backslash before a character JSON does not define as an
// escape, passes, and so does invalid UTF-8 (as in encoding/json). The
// bodies are most of a transcript's bytes, and IndexByte passes over them:
// checking each of them (eight bytes at a time for control characters,
// from backslash to backslash for escapes) doubled the walker's CPU time
// and added 8-20% to the transcript engine's cold parse (issue 10,
// docs/architecture.md). The package jsonscantest states the exception
// for tests.
package jsonscan

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/cairn-agent/cairn/internal/text"
)

// Scanner is a minimal, allocation-free JSON walker. Transcript lines are
// mostly huge strings (file contents, tool output) that cairn never needs, so
// instead of building a DOM it walks the line once, checking what it walks
// (the package comment says how far) and jumping over string bodies with
// bytes.IndexByte, and lets the caller pick the few fields it keeps. Once an
// error is seen the scanner stays failed and every call returns zero values,
// so callers can check Failed once at the end.
type Scanner struct {
	b     []byte
	i     int
	bad   bool
	stack []bool // per open container: no member seen yet
}

func (s *Scanner) Reset(b []byte) {
	s.b, s.i, s.bad, s.stack = b, 0, false, s.stack[:0]
}

func (s *Scanner) fail() { s.bad = true; s.i = len(s.b) }

func (s *Scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek returns the next non-space byte, or 0 at the end.
func (s *Scanner) Peek() byte {
	// Claude Code writes compact JSON: the byte at hand is nearly always
	// the next token, and no byte above the space is white space.
	if s.i < len(s.b) && s.b[s.i] > ' ' {
		return s.b[s.i]
	}
	s.ws()
	if s.i >= len(s.b) {
		return 0
	}
	return s.b[s.i]
}

// RawString consumes a string and returns its body without the quotes and
// with escapes left as they are. The body ends at the first quote an even
// run of backslashes precedes; what it holds is not checked (see the
// package comment).
func (s *Scanner) RawString() []byte {
	if s.Peek() != '"' {
		s.fail()
		return nil
	}
	start := s.i + 1
	j := start
	for {
		k := bytes.IndexByte(s.b[j:], '"')
		if k < 0 {
			s.fail()
			return nil
		}
		j += k
		if s.b[j-1] != '\\' { // j >= start, and b[start-1] is the opening quote
			s.i = j + 1
			return s.b[start:j]
		}
		// An odd run of backslashes before the quote escapes it.
		n := 0
		for p := j - 1; p >= start && s.b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			s.i = j + 1
			return s.b[start:j]
		}
		j++
	}
}

// str consumes a string and returns it decoded. It allocates: use it only for
// values that are kept.
func (s *Scanner) Str() string {
	raw := s.RawString()
	if s.bad {
		return ""
	}
	return Unescape(raw)
}

// strPrefix decodes at most max bytes of a string value.
func (s *Scanner) StrPrefix(max int) string {
	raw := s.RawString()
	if s.bad {
		return ""
	}
	if len(raw) > max*2 {
		raw = raw[:max*2]
		// Do not cut an escape in half.
		for k := len(raw) - 1; k >= len(raw)-6 && k >= 0; k-- {
			if raw[k] == '\\' {
				raw = raw[:k]
				break
			}
		}
	}
	return text.Truncate(Unescape(raw), max)
}

// isString reports whether the next value is a string.
func (s *Scanner) IsString() bool { return s.Peek() == '"' }

// boolean consumes a value and reports whether it was the literal true; any
// other valid value counts as false.
func (s *Scanner) Bool() bool {
	if s.Peek() == 't' {
		return s.literal("true")
	}
	s.Skip()
	return false
}

func (s *Scanner) literal(lit string) bool {
	if len(s.b)-s.i < len(lit) || string(s.b[s.i:s.i+len(lit)]) != lit {
		s.fail()
		return false
	}
	s.i += len(lit)
	return true
}

// integer consumes a number and returns it as int64; non-integers give 0.
func (s *Scanner) Int() int64 {
	c := s.Peek()
	if c != '-' && (c < '0' || c > '9') {
		s.Skip()
		return 0
	}
	start := s.i
	s.number()
	if s.bad {
		return 0
	}
	n, err := strconv.ParseInt(string(s.b[start:s.i]), 10, 64)
	if err != nil {
		f, ferr := strconv.ParseFloat(string(s.b[start:s.i]), 64)
		if ferr != nil {
			return 0
		}
		return int64(f)
	}
	return n
}

// number consumes a number as JSON spells it: an optional minus, an
// integer part without leading zeros, then an optional fraction and
// exponent, each with at least one digit.
func (s *Scanner) number() {
	b, i := s.b, s.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		i = digits(b, i+1)
	default:
		s.fail()
		return
	}
	if i < len(b) && b[i] == '.' {
		if j := digits(b, i+1); j > i+1 {
			i = j
		} else {
			s.fail()
			return
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if j := digits(b, i); j > i {
			i = j
		} else {
			s.fail()
			return
		}
	}
	s.i = i
}

// digits returns the index of the first byte from b[i] on that is not a
// decimal digit.
func digits(b []byte, i int) int {
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	return i
}

// skip consumes one value of any kind, checking its structure.
func (s *Scanner) Skip() {
	switch s.Peek() {
	case '"':
		s.RawString()
	case '{', '[':
		s.skipNested()
	case 't':
		s.literal("true")
	case 'f':
		s.literal("false")
	case 'n':
		s.literal("null")
	default:
		s.number()
	}
}

// skipNested consumes the object or array at s.i, checking it as Object,
// Key, Array, More and Skip would, to the same end and failing on the same
// inputs. It is one loop with a stack of its own instead of a call per
// token: a skipped value (a tool's input, a tool result's blocks) is
// mostly short keys and values, where the calls cost more than the bytes
// (docs/benchmarks.md, issue 15, perf/hot9).
func (s *Scanner) skipNested() {
	b, i := s.b, s.i
	// obj is the open containers innermost last, true for an object;
	// most values nest a few deep, within the array.
	var inline [32]bool
	obj := inline[:0]
	outer := len(s.stack)
	for {
		// A value starts at b[i] (after white space).
		i = skipSpace(b, i)
		if i >= len(b) {
			s.fail()
			return
		}
		switch c := b[i]; c {
		case '{', '[':
			if outer+len(obj) >= maxDepth {
				s.fail()
				return
			}
			isObj := c == '{'
			obj = append(obj, isObj)
			i = skipSpace(b, i+1)
			if i < len(b) && (isObj && b[i] == '}' || !isObj && b[i] == ']') {
				obj = obj[:len(obj)-1]
				i++
				break
			}
			if isObj {
				if i = memberKey(b, i); i < 0 {
					s.fail()
					return
				}
			}
			continue
		case '"':
			if i = stringEnd(b, i+1); i < 0 {
				s.fail()
				return
			}
		case 't', 'f', 'n':
			lit := "null"
			if c == 't' {
				lit = "true"
			} else if c == 'f' {
				lit = "false"
			}
			if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
				s.fail()
				return
			}
			i += len(lit)
		default:
			s.i = i
			s.number()
			if s.bad {
				return
			}
			i = s.i
		}
		// A value ended: a separator or the closing of its container
		// follows, and of the containers that close with it.
		for {
			if len(obj) == 0 {
				s.i = i
				return
			}
			i = skipSpace(b, i)
			if i >= len(b) {
				s.fail()
				return
			}
			top := obj[len(obj)-1]
			if c := b[i]; c == ',' {
				i++
				if top {
					if i = memberKey(b, i); i < 0 {
						s.fail()
						return
					}
				}
				break
			} else if top && c == '}' || !top && c == ']' {
				obj = obj[:len(obj)-1]
				i++
				continue
			}
			s.fail()
			return
		}
	}
}

// skipSpace returns the index of the first byte from b[i] on that is not
// JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && b[i] <= ' ' && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// memberKey consumes a member's key and its colon from b[i] on (white space
// first) and returns the index past the colon, or -1.
func memberKey(b []byte, i int) int {
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	if i = stringEnd(b, i+1); i < 0 {
		return -1
	}
	i = skipSpace(b, i)
	if i >= len(b) || b[i] != ':' {
		return -1
	}
	return i + 1
}

// stringEnd returns the index past the quote that ends the string whose
// body starts at b[j] (the first quote an even run of backslashes
// precedes, as RawString finds it), or -1 when none does.
func stringEnd(b []byte, j int) int {
	start := j
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		j += k
		n := 0
		for p := j - 1; p >= start && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return j + 1
		}
		j++
	}
}

// object starts an object; iterate its members with key.
func (s *Scanner) Object() bool {
	if s.Peek() != '{' {
		s.fail()
		return false
	}
	s.i++
	s.depthIn()
	return !s.bad
}

// Key returns the next member's key, or nil at the closing brace. The key
// is decoded, so that callers compare it with the name it means however it
// is spelt (Claude Code never escapes a key, but JSON may); it is a view of
// the input unless it holds an escape, and only then allocates. The caller
// must consume the member's value before calling Key again.
func (s *Scanner) Key() []byte {
	c := s.Peek()
	if s.bad {
		return nil
	}
	if c == '}' {
		s.i++
		s.depthOut()
		return nil
	}
	if c == ',' {
		if s.first() {
			s.fail()
			return nil
		}
		s.i++
	} else if !s.first() {
		s.fail()
		return nil
	}
	s.setFirst(false)
	k := s.RawString()
	if s.Peek() != ':' {
		s.fail()
		return nil
	}
	s.i++
	if bytes.IndexByte(k, '\\') >= 0 {
		return []byte(Unescape(k))
	}
	if k == nil {
		return []byte{}
	}
	return k
}

// array starts an array; iterate its elements with more.
func (s *Scanner) Array() bool {
	if s.Peek() != '[' {
		s.fail()
		return false
	}
	s.i++
	s.depthIn()
	return !s.bad
}

// more reports whether another element follows, consuming the separator or
// the closing bracket.
func (s *Scanner) More() bool {
	c := s.Peek()
	if s.bad {
		return false
	}
	if c == ']' {
		s.i++
		s.depthOut()
		return false
	}
	if c == ',' {
		if s.first() {
			s.fail()
			return false
		}
		s.i++
	} else if !s.first() {
		s.fail()
		return false
	}
	s.setFirst(false)
	return true
}

// maxDepth bounds nesting so that no line can exhaust the stack.
const maxDepth = 10000

func (s *Scanner) depthIn() {
	if len(s.stack) >= maxDepth {
		s.fail()
		return
	}
	s.stack = append(s.stack, true)
}
func (s *Scanner) depthOut() { s.stack = s.stack[:len(s.stack)-1] }
func (s *Scanner) first() bool {
	if len(s.stack) == 0 {
		s.fail()
		return false
	}
	return s.stack[len(s.stack)-1]
}
func (s *Scanner) setFirst(v bool) {
	if len(s.stack) > 0 {
		s.stack[len(s.stack)-1] = v
	}
}

// end checks that nothing but white space follows the top-level value.
func (s *Scanner) End() {
	s.ws()
	if s.i != len(s.b) || len(s.stack) != 0 {
		s.fail()
	}
}

// Unescape decodes a JSON string body. It never fails: an escape JSON does
// not define, or one cut short (StrPrefix, callers that keep the head of a
// long value), is kept verbatim. Invalid UTF-8 is kept as it is too, where
// encoding/json substitutes U+FFFD for each bad byte.
func Unescape(raw []byte) string {
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw)
	}
	out := make([]byte, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c != '\\' || i+1 >= len(raw) {
			out = append(out, c)
			continue
		}
		i++
		switch raw[i] {
		case '"', '\\', '/':
			out = append(out, raw[i])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, n := hexRune(raw[i+1:])
			if n == 0 {
				out = append(out, '\\', 'u')
				continue
			}
			i += n
			if utf16.IsSurrogate(r) && i+2 < len(raw) && raw[i+1] == '\\' && raw[i+2] == 'u' {
				if r2, n2 := hexRune(raw[i+3:]); n2 > 0 {
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						r = d
						i += 2 + n2
					}
				}
			}
			out = utf8.AppendRune(out, r)
		default:
			out = append(out, '\\', raw[i])
		}
	}
	return string(out)
}

func hexRune(b []byte) (rune, int) {
	if len(b) < 4 {
		return 0, 0
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, 0
		}
	}
	return r, 4
}

// Failed reports whether the walk met invalid JSON; once it has, every call
// returns zero values.
func (s *Scanner) Failed() bool { return s.bad }

// Pos is how many bytes of the input have been walked.
func (s *Scanner) Pos() int { return s.i }

// Input is what Reset was given.
func (s *Scanner) Input() []byte { return s.b }

// ErrNotObject is StringMembers' error for a document that does not start
// with an object.
var ErrNotObject = errors.New("not a JSON object")

// HookPayload reads a hook's payload, the JSON object client sends, with
// StringMembers into the fields of *p that fields names; enough (when not
// nil) ends the walk early once *p has all the event needs. Its errors say
// the payload is not the object client sends.
func HookPayload[P any](data []byte, p *P, fields map[string]*string, enough func(*P) bool, client string) (early bool, err error) {
	var done func() bool
	if enough != nil {
		done = func() bool { return enough(p) }
	}
	early, err = StringMembers(data, fields, done)
	switch {
	case errors.Is(err, ErrNotObject):
		return false, fmt.Errorf("payload is not the JSON object %s sends", client)
	case err != nil:
		return false, fmt.Errorf("payload is not the JSON object %s sends (%v)", client, err)
	}
	return early, nil
}

// StringMembers walks the JSON object in data and sets each member that
// fields names to its string value: "" for null or any value that is not
// a string, as good as missing. Other members are skipped unread. After
// each member, done (when not nil) may end the walk: early is then true,
// and data need only have been the start of the object. It returns
// ErrNotObject, or an error giving the byte where the JSON went wrong.
func StringMembers(data []byte, fields map[string]*string, done func() bool) (early bool, err error) {
	var sc Scanner
	sc.Reset(data)
	if sc.Peek() != '{' {
		return false, ErrNotObject
	}
	sc.Object()
	for k := sc.Key(); k != nil; k = sc.Key() {
		dst, ok := fields[string(k)]
		switch {
		case ok && sc.IsString():
			*dst = sc.Str()
		case ok:
			*dst = ""
			sc.Skip()
		default:
			sc.Skip()
		}
		if !sc.Failed() && done != nil && done() {
			return true, nil
		}
	}
	sc.End()
	if sc.Failed() {
		return false, fmt.Errorf("invalid JSON near byte %d", sc.Pos())
	}
	return false, nil
}
