package settings

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// encoding/json cannot do this job: decoding into maps loses key order and
// duplicate keys, and re-encoding rewrites numbers (10.50, 1e3) and string
// escapes (\u00e9, \/). So documents are parsed into a tree that keeps every
// scalar as the bytes it was written with.

type kind uint8

const (
	scalar kind = iota // string, number, true, false or null
	object
	array
)

type node struct {
	kind    kind
	raw     []byte   // scalar: the text as written, quotes included
	members []member // object: in file order, duplicate keys kept
	elems   []*node  // array
	off     int      // where the value starts, for error positions
}

type member struct {
	rawKey []byte // as written, quotes included
	key    string // decoded, for lookups
	val    *node
}

// maxDepth is encoding/json's limit, so both accept the same documents.
const maxDepth = 10000

// parse reads one JSON value and nothing after it but whitespace.
func parse(data []byte) (*node, error) {
	p := &parser{data: data}
	p.space()
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	p.space()
	if p.pos < len(p.data) {
		return nil, p.unexpected("the end of the file after the top-level value")
	}
	return v, nil
}

type parser struct {
	data  []byte
	pos   int
	depth int
}

func (p *parser) space() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) value() (*node, error) {
	if p.pos >= len(p.data) {
		return nil, p.unexpected("a value")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		off := p.pos
		raw, err := p.str()
		return &node{kind: scalar, raw: raw, off: off}, err
	case c == '-' || '0' <= c && c <= '9':
		return p.number()
	case c == 't':
		return p.literal("true")
	case c == 'f':
		return p.literal("false")
	case c == 'n':
		return p.literal("null")
	}
	return nil, p.unexpected("a value")
}

func (p *parser) object() (*node, error) {
	n := &node{kind: object, off: p.pos}
	if err := p.enter(); err != nil {
		return nil, err
	}
	p.pos++
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		p.depth--
		return n, nil
	}
	for {
		if p.pos >= len(p.data) {
			return nil, p.unclosed(n, "object")
		}
		if p.data[p.pos] != '"' {
			return nil, p.unexpected("a string key")
		}
		raw, err := p.str()
		if err != nil {
			return nil, err
		}
		p.space()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.unexpected("':' after the key")
		}
		p.pos++
		p.space()
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.members = append(n.members, member{rawKey: raw, key: unquote(raw), val: v})
		p.space()
		if p.pos >= len(p.data) {
			return nil, p.unclosed(n, "object")
		}
		switch p.data[p.pos] {
		case '}':
			p.pos++
			p.depth--
			return n, nil
		case ',':
			comma := p.pos
			p.pos++
			p.space()
			if p.pos < len(p.data) && p.data[p.pos] == '}' {
				return nil, p.fail(comma, "a comma before '}': JSON allows no trailing comma")
			}
		default:
			return nil, p.unexpected("',' or '}' after the value")
		}
	}
}

func (p *parser) array() (*node, error) {
	n := &node{kind: array, off: p.pos}
	if err := p.enter(); err != nil {
		return nil, err
	}
	p.pos++
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		p.depth--
		return n, nil
	}
	for {
		if p.pos >= len(p.data) {
			return nil, p.unclosed(n, "array")
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.elems = append(n.elems, v)
		p.space()
		if p.pos >= len(p.data) {
			return nil, p.unclosed(n, "array")
		}
		switch p.data[p.pos] {
		case ']':
			p.pos++
			p.depth--
			return n, nil
		case ',':
			comma := p.pos
			p.pos++
			p.space()
			if p.pos < len(p.data) && p.data[p.pos] == ']' {
				return nil, p.fail(comma, "a comma before ']': JSON allows no trailing comma")
			}
		default:
			return nil, p.unexpected("',' or ']' after the value")
		}
	}
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > maxDepth {
		return p.fail(p.pos, "values nested more than %d deep", maxDepth)
	}
	return nil
}

// str scans the string at p.pos and returns it as written. Invalid UTF-8 is
// let through, as encoding/json and JSON.parse do, and kept byte for byte.
func (p *parser) str() ([]byte, error) {
	start := p.pos
	i := p.pos + 1
	for i < len(p.data) {
		c := p.data[i]
		switch {
		case c == '"':
			p.pos = i + 1
			return p.data[start:p.pos], nil
		case c == '\\':
			if i+1 >= len(p.data) {
				i++
				continue
			}
			switch p.data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				for j := i + 2; j < i+6; j++ {
					if j >= len(p.data) || !isHex(p.data[j]) {
						return nil, p.fail(i, `a \u escape needs four hex digits`)
					}
				}
				i += 6
			default:
				return nil, p.fail(i, "invalid escape %s in a string", p.found(i, 2))
			}
		case c < 0x20:
			return nil, p.fail(i, `control character %s in a string: write line breaks as \n and tabs as \t`, p.found(i, 1))
		default:
			i++
		}
	}
	return nil, p.fail(len(p.data), "unexpected end of file in the string that starts at %s", p.where(start))
}

func (p *parser) number() (*node, error) {
	start := p.pos
	if p.data[p.pos] == '-' {
		p.pos++
	}
	switch {
	case p.pos >= len(p.data) || !isDigit(p.data[p.pos]):
		return nil, p.unexpected("a digit")
	case p.data[p.pos] == '0':
		p.pos++
		if p.pos < len(p.data) && isDigit(p.data[p.pos]) {
			return nil, p.fail(start, "a number cannot start with 0")
		}
	default:
		p.digits()
	}
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		if p.pos >= len(p.data) || !isDigit(p.data[p.pos]) {
			return nil, p.unexpected("a digit after '.'")
		}
		p.digits()
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if p.pos >= len(p.data) || !isDigit(p.data[p.pos]) {
			return nil, p.unexpected("a digit in the exponent")
		}
		p.digits()
	}
	return &node{kind: scalar, raw: p.data[start:p.pos], off: start}, nil
}

func (p *parser) digits() {
	for p.pos < len(p.data) && isDigit(p.data[p.pos]) {
		p.pos++
	}
}

func (p *parser) literal(lit string) (*node, error) {
	if !bytes.HasPrefix(p.data[p.pos:], []byte(lit)) {
		return nil, p.unexpected("a value")
	}
	n := &node{kind: scalar, raw: p.data[p.pos : p.pos+len(lit)], off: p.pos}
	p.pos += len(lit)
	return n, nil
}

// unexpected reports what is at p.pos, with a hint for the mistakes people
// make when they write JSON by hand.
func (p *parser) unexpected(want string) error {
	rest := p.data[p.pos:]
	switch {
	case len(rest) == 0:
		return p.fail(p.pos, "unexpected end of file, want %s", want)
	case p.pos == 0 && bytes.HasPrefix(rest, []byte("\uFEFF")):
		return p.fail(p.pos, "the file starts with a byte order mark, which JSON does not allow: save it as UTF-8 without one")
	case bytes.HasPrefix(rest, []byte("//")) || bytes.HasPrefix(rest, []byte("/*")):
		return p.fail(p.pos, "comments are not allowed in JSON")
	case rest[0] == '\'':
		return p.fail(p.pos, "unexpected \"'\", want %s: JSON strings use double quotes", want)
	case rest[0] == '"' || rest[0] == '{' || rest[0] == '[':
		return p.fail(p.pos, "unexpected %s, want %s (a comma missing before it?)", p.found(p.pos, 1), want)
	}
	return p.fail(p.pos, "unexpected %s, want %s", p.found(p.pos, 1), want)
}

func (p *parser) unclosed(n *node, what string) error {
	return p.fail(p.pos, "unexpected end of file: the %s opened at %s is not closed", what, p.where(n.off))
}

// found quotes up to n characters at off for a message.
func (p *parser) found(off, n int) string {
	var s []byte
	for i := 0; i < n && off < len(p.data); i++ {
		r, size := utf8.DecodeRune(p.data[off:])
		if r == utf8.RuneError && size <= 1 {
			if i == 0 {
				return fmt.Sprintf("byte 0x%02x", p.data[off])
			}
			break
		}
		s = append(s, p.data[off:off+size]...)
		off += size
	}
	if utf8.RuneCount(s) == 1 {
		r, _ := utf8.DecodeRune(s)
		return fmt.Sprintf("%q", r)
	}
	return fmt.Sprintf("%q", s)
}

func (p *parser) where(off int) string {
	line, col := position(p.data, off)
	return fmt.Sprintf("line %d, column %d", line, col)
}

func (p *parser) fail(off int, format string, args ...any) error {
	return errorAt(p.data, off, fmt.Sprintf(format, args...))
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isHex(c byte) bool { return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// unquote decodes a string token the parser accepted.
func unquote(raw []byte) string {
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		panic("settings: parser accepted a string encoding/json rejects: " + err.Error())
	}
	return s
}

// quote encodes s the way JSON.stringify would: no \u003c for '<', so that
// commands stay readable in the file.
func quote(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s) // cannot fail for a string
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// encode writes n the way JSON.stringify(value, null, 2) does, which is also
// how Claude Code writes settings, plus a final newline.
func encode(n *node) []byte {
	var b bytes.Buffer
	write(&b, n, 0)
	b.WriteByte('\n')
	return b.Bytes()
}

func write(b *bytes.Buffer, n *node, depth int) {
	switch n.kind {
	case scalar:
		b.Write(n.raw)
	case object:
		if len(n.members) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		for i, m := range n.members {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(b, depth+1)
			b.Write(m.rawKey)
			b.WriteString(": ")
			write(b, m.val, depth+1)
		}
		newline(b, depth)
		b.WriteByte('}')
	case array:
		if len(n.elems) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i, e := range n.elems {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(b, depth+1)
			write(b, e, depth+1)
		}
		newline(b, depth)
		b.WriteByte(']')
	}
}

func newline(b *bytes.Buffer, depth int) {
	b.WriteByte('\n')
	for range depth {
		b.WriteString("  ")
	}
}

// lastIndex finds the member JSON.parse would keep: with duplicate keys the
// last one wins.
func (n *node) lastIndex(key string) int {
	for i := len(n.members) - 1; i >= 0; i-- {
		if n.members[i].key == key {
			return i
		}
	}
	return -1
}

func (n *node) get(key string) *node {
	if i := n.lastIndex(key); i >= 0 {
		return n.members[i].val
	}
	return nil
}

func (n *node) set(key string, v *node) {
	if i := n.lastIndex(key); i >= 0 {
		n.members[i].val = v
		return
	}
	n.members = append(n.members, member{rawKey: quote(key), key: key, val: v})
}

// text is the value of a string node; ok is false for anything else.
func (n *node) text() (s string, ok bool) {
	if n == nil || n.kind != scalar || n.raw[0] != '"' {
		return "", false
	}
	return unquote(n.raw), true
}

func stringNode(s string) *node { return &node{kind: scalar, raw: quote(s)} }

func numberNode(i int) *node { return &node{kind: scalar, raw: fmt.Appendf(nil, "%d", i)} }

// describe names the type of n for an error message.
func describe(n *node) string {
	switch n.kind {
	case object:
		return "an object"
	case array:
		return "an array"
	}
	switch n.raw[0] {
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}
