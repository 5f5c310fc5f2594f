package settings

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// encoding/json cannot do this job: decoding into maps loses key order and
// duplicate keys, and re-encoding rewrites numbers (10.50, 1e3), string
// escapes (\u00e9, \/) and the layout. So documents are parsed into a tree
// that remembers where every value was in the text, and an edit writes the
// text back from those pieces (see print.go): what it did not change comes
// out as the very bytes it came in as.

type kind uint8

const (
	scalar kind = iota // string, number, true, false or null
	object
	array
)

type node struct {
	kind    kind
	raw     []byte   // scalar: the text as written, quotes included
	members []member // object: in file order
	elems   []*node  // array
	off     int      // where the value starts, for error positions

	// For a node parsed from the document, orig is set and data[off:end]
	// is the value's text. A node an edit made has neither.
	orig bool
	end  int
	// sep, for a parsed array element, is where the separator before it
	// starts (the end of the element before); -1 for the first.
	sep int
	// A parsed container's items spanned data[first:last] when it was
	// parsed; first is -1 when it was empty. sepWS is the white space
	// its items were separated with after the comma (the white space
	// before the first item when there was only one, on a line of its
	// own), which new items copy; nil when the items did not say.
	first, last int
	sepWS       []byte
	// emptyInner is what an edit that empties a parsed container writes
	// between its brackets (the text that was there before cairn, when
	// Uninstall knows it).
	emptyInner []byte
}

type member struct {
	rawKey []byte // as written, quotes included
	key    string // decoded, for lookups
	val    *node
	// For a parsed member: where the key starts, where its value started
	// (so that the key, the colon and the white space around it are
	// copied even when an edit replaces the value), and where the
	// separator before it starts (-1 for the first).
	orig        bool
	off, valOff int
	sep         int
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
		return &node{kind: scalar, raw: raw, off: off, orig: true, end: p.pos, sep: -1}, err
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

// container starts a parsed object or array at p.pos.
func (p *parser) container(k kind) (*node, error) {
	n := &node{kind: k, off: p.pos, orig: true, sep: -1, first: -1}
	if err := p.enter(); err != nil {
		return nil, err
	}
	p.pos++
	p.space()
	return n, nil
}

// close ends container n at p.pos, its closing bracket.
func (p *parser) close(n *node, items int, lastSep int) {
	p.pos++
	p.depth--
	n.end = p.pos
	switch {
	case items == 1:
		// One item on a line of its own says how the next would go; one
		// on the bracket's line says nothing about the space after a
		// comma, which is then the file's.
		if lead := p.data[n.off+1 : n.first]; bytes.IndexByte(lead, '\n') >= 0 {
			n.sepWS = lead
		}
	case items > 1:
		// After the comma of the last separator.
		s := p.data[lastSep:]
		s = s[bytes.IndexByte(s, ',')+1:]
		n.sepWS = s[:len(s)-len(bytes.TrimLeft(s, " \t\r\n"))]
	}
}

func (p *parser) object() (*node, error) {
	n, err := p.container(object)
	if err != nil {
		return nil, err
	}
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.close(n, 0, -1)
		return n, nil
	}
	sep := -1
	for {
		if p.pos >= len(p.data) {
			return nil, p.unclosed(n, "object")
		}
		if p.data[p.pos] != '"' {
			return nil, p.unexpected("a string key")
		}
		off := p.pos
		if n.first < 0 {
			n.first = off
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
		valOff := p.pos
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.members = append(n.members, member{rawKey: raw, key: unquote(raw), val: v, orig: true, off: off, valOff: valOff, sep: sep})
		n.last = p.pos
		p.space()
		if p.pos >= len(p.data) {
			return nil, p.unclosed(n, "object")
		}
		switch p.data[p.pos] {
		case '}':
			p.close(n, len(n.members), sep)
			return n, nil
		case ',':
			sep = n.last
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
	n, err := p.container(array)
	if err != nil {
		return nil, err
	}
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.close(n, 0, -1)
		return n, nil
	}
	sep := -1
	for {
		if p.pos >= len(p.data) {
			return nil, p.unclosed(n, "array")
		}
		if n.first < 0 {
			n.first = p.pos
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		v.sep = sep
		n.elems = append(n.elems, v)
		n.last = p.pos
		p.space()
		if p.pos >= len(p.data) {
			return nil, p.unclosed(n, "array")
		}
		switch p.data[p.pos] {
		case ']':
			p.close(n, len(n.elems), sep)
			return n, nil
		case ',':
			sep = n.last
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
	return &node{kind: scalar, raw: p.data[start:p.pos], off: start, orig: true, end: p.pos, sep: -1}, nil
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
	n := &node{kind: scalar, raw: p.data[p.pos : p.pos+len(lit)], off: p.pos, orig: true, end: p.pos + len(lit), sep: -1}
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

func (p *parser) where(off int) string { return where(p.data, off) }

func where(data []byte, off int) string {
	line, col := position(data, off)
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

// duplicateKey finds the first object, anywhere in the document, with a
// key written twice, and reports the second occurrence. JSON.parse, and so
// Claude Code, keeps the last value of a duplicated key and drops the
// others without a word; an edit would then either change which one is
// read or have to guess which one the user meant. cairn asks the user to
// merge them instead.
func duplicateKey(data []byte, root *node) error {
	stack := []*node{root}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n.kind == array {
			stack = append(stack, n.elems...)
			continue
		}
		if n.kind != object {
			continue
		}
		var seen map[string]int
		if len(n.members) > 1 {
			seen = make(map[string]int, len(n.members))
		}
		for _, m := range n.members {
			if seen != nil {
				if first, dup := seen[m.key]; dup {
					return errorAt(data, m.off, fmt.Sprintf("duplicate key %s (also at %s): Claude Code reads only the last one and ignores the other, so cairn will not edit this file; merge the two into one", quote(m.key), where(data, first)))
				}
				seen[m.key] = m.off
			}
			stack = append(stack, m.val)
		}
	}
	return nil
}

func (n *node) index(key string) int {
	for i := range n.members {
		if n.members[i].key == key {
			return i
		}
	}
	return -1
}

func (n *node) get(key string) *node {
	if n == nil {
		return nil
	}
	if i := n.index(key); i >= 0 {
		return n.members[i].val
	}
	return nil
}

// set gives key the value v, in place when the key is there (the member
// keeps its place and spelling), else as a new last member.
func (n *node) set(key string, v *node) {
	if i := n.index(key); i >= 0 {
		n.members[i].val = v
		return
	}
	n.members = append(n.members, member{rawKey: quote(key), key: key, val: v, sep: -1})
}

// remove drops key's member; it reports whether there was one.
func (n *node) remove(key string) bool {
	if i := n.index(key); i >= 0 {
		n.members = append(n.members[:i:i], n.members[i+1:]...)
		return true
	}
	return false
}

// text is the value of a string node; ok is false for anything else.
func (n *node) text() (s string, ok bool) {
	if n == nil || n.kind != scalar || n.raw[0] != '"' {
		return "", false
	}
	return unquote(n.raw), true
}

func stringNode(s string) *node { return &node{kind: scalar, raw: quote(s), sep: -1} }

func rawNode(raw []byte) *node { return &node{kind: scalar, raw: raw, sep: -1} }

func numberNode(i int) *node { return &node{kind: scalar, raw: fmt.Appendf(nil, "%d", i), sep: -1} }

func objectNode() *node { return &node{kind: object, sep: -1, first: -1} }

func arrayNode() *node { return &node{kind: array, sep: -1, first: -1} }

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
