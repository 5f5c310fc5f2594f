package settings

import (
	"bytes"
)

// Writing an edited document back.
//
// What the edit did not touch is copied from the original text, white
// space included, so a file comes back in its own layout: tabs stay tabs,
// CRLF stays CRLF, a one-line file stays on one line, a missing final
// newline stays missing. What the edit added is written in the layout of
// its neighbours: a new item copies the separator its container's items
// already use, and a new object or array is indented with the file's own
// unit and line ending.
//
// This is also what makes an insertion exactly undoable. Install only
// appends items (or replaces a value in place), and an appended item is
// written as ",", the container's separator, and the item, before the
// white space that closed the container. Uninstall, which drops an item
// together with the separator before it, removes exactly those bytes.

// style is a document's layout, for what an edit adds.
type style struct {
	nl     string // line ending
	unit   string // one level of indentation
	colon  string // between a key and its value: ": ", ":", " : "
	space  string // after a comma between items on one line: " " or ""
	inline bool   // the document is on one line: added values are too
}

// defaultStyle is JSON.stringify(value, null, 2), which is how Claude
// Code writes settings.
var defaultStyle = style{nl: "\n", unit: "  ", colon: ": ", space: " "}

// styleOf reads a parsed document's layout.
func styleOf(data []byte, root *node) style {
	st := defaultStyle
	if bytes.Contains(data, []byte("\r\n")) {
		st.nl = "\r\n"
	}
	if root == nil || !root.orig || root.kind == scalar {
		return st
	}
	st.inline = root.first >= 0 && bytes.IndexByte(data[root.off:root.end], '\n') < 0
	var unit, colon, space []byte
	found := false
	walk(root, func(n *node) bool {
		if n.kind == scalar || !n.orig || n.first < 0 {
			return true
		}
		for _, m := range n.members {
			if colon != nil || !m.orig {
				continue
			}
			if c := data[m.off+len(m.rawKey) : m.valOff]; bytes.IndexByte(c, '\n') < 0 {
				colon = c
			}
		}
		if ws := n.sepWS; space == nil && ws != nil && len(ws) <= 1 {
			space = ws
		}
		for _, ws := range [][]byte{data[n.off+1 : n.first], n.sepWS} {
			nl := bytes.LastIndexByte(ws, '\n')
			if nl >= 0 && unit == nil {
				ind, line := ws[nl+1:], lineIndent(data, n.off)
				if len(ind) > len(line) && bytes.HasPrefix(ind, line) {
					unit = ind[len(line):]
				}
			}
		}
		found = unit != nil && colon != nil && space != nil
		return !found
	})
	if unit != nil {
		st.unit = string(unit)
	}
	if colon != nil {
		st.colon = string(colon)
	}
	switch {
	case space != nil:
		st.space = string(space)
	case colon != nil && !bytes.HasSuffix(colon, []byte(" ")):
		st.space = ""
	}
	return st
}

// walk calls f on n and its descendants in document order while f says
// to go on.
func walk(n *node, f func(*node) bool) bool {
	if !f(n) {
		return false
	}
	for _, m := range n.members {
		if !walk(m.val, f) {
			return false
		}
	}
	for _, e := range n.elems {
		if !walk(e, f) {
			return false
		}
	}
	return true
}

// lineIndent is the white space that starts the line holding off.
func lineIndent(data []byte, off int) []byte {
	start := bytes.LastIndexByte(data[:off], '\n') + 1
	end := start
	for end < off && (data[end] == ' ' || data[end] == '\t') {
		end++
	}
	return data[start:end]
}

// printer writes a document back.
type printer struct {
	data []byte
	st   style
	b    bytes.Buffer
	// colon and space are the style's, or those of the nearest parsed
	// object or array around what is being written: a file can write its
	// "hooks" one way and the rest another.
	colon, space string
}

// document writes the whole document with root as its value. A document
// that had no value (an empty file) gets one, and a final line ending.
func document(data []byte, root *node) []byte {
	p := &printer{data: data, st: styleOf(data, root)}
	p.colon, p.space = p.st.colon, p.st.space
	if !root.orig {
		p.value(root, "", false)
		p.b.WriteString(p.st.nl)
		return p.b.Bytes()
	}
	p.b.Write(data[:root.off])
	p.value(root, string(lineIndent(data, root.off)), p.st.inline)
	p.b.Write(data[root.end:])
	return p.b.Bytes()
}

// value writes n. ind is the indentation of the line n starts on and
// inline whether a value the edit made goes on one line; both matter only
// for those.
func (p *printer) value(n *node, ind string, inline bool) {
	switch {
	case n.kind == scalar:
		p.b.Write(n.raw)
	case n.orig:
		p.parsed(n)
	default:
		p.made(n, ind, inline)
	}
}

// item is one member or element of a container, for writing.
type item struct {
	orig       bool
	start, end int // parsed: the item's text, key included
	sep        int // parsed: where the separator before it started, or -1
	m          *member
	e          *node
}

func items(n *node) []item {
	var its []item
	for i := range n.members {
		m := &n.members[i]
		it := item{orig: m.orig, m: m}
		if m.orig {
			it.start, it.sep = m.off, m.sep
			if m.val.orig {
				it.end = m.val.end
			}
		}
		its = append(its, it)
	}
	for _, e := range n.elems {
		its = append(its, item{orig: e.orig, start: e.off, end: e.end, sep: e.sep, e: e})
	}
	return its
}

// write writes one item; ind and inline are for what the edit made.
func (p *printer) write(it item, ind string, inline bool) {
	if it.e != nil {
		p.value(it.e, ind, inline)
		return
	}
	m := it.m
	if m.orig {
		p.b.Write(p.data[m.off:m.valOff])
		// A replaced value of a parsed member starts on the member's line.
		p.value(m.val, string(lineIndent(p.data, m.off)), p.st.inline)
		return
	}
	p.b.Write(m.rawKey)
	p.b.WriteString(p.colon)
	p.value(m.val, ind, inline)
}

func brackets(n *node) (open, close byte) {
	if n.kind == object {
		return '{', '}'
	}
	return '[', ']'
}

// parsed writes a container from the document: its parsed items with the
// text around them, new items after a copy of its separator.
func (p *printer) parsed(n *node) {
	open, close := brackets(n)
	its := items(n)
	line := string(lineIndent(p.data, n.off))
	colon, space := p.colon, p.space
	defer func() { p.colon, p.space = colon, space }()
	for _, m := range n.members {
		if m.orig {
			if c := p.data[m.off+len(m.rawKey) : m.valOff]; bytes.IndexByte(c, '\n') < 0 {
				p.colon = string(c)
			}
			break
		}
	}
	if n.sepWS != nil && bytes.IndexByte(n.sepWS, '\n') < 0 {
		p.space = string(n.sepWS)
	}
	switch {
	case n.first < 0 && len(its) == 0:
		p.b.Write(p.data[n.off:n.end])
		return
	case n.first < 0:
		// Filling an empty container: lay it out as the file would.
		p.b.WriteByte(open)
		p.items(its, line, p.st.inline)
		p.b.WriteByte(close)
		return
	case len(its) == 0:
		p.b.WriteByte(open)
		p.b.Write(n.emptyInner)
		p.b.WriteByte(close)
		return
	}
	// New items go after a copy of the separator, indented as it says.
	sep, sepInd, sepInline := n.sepWS, line+p.st.unit, true
	if sep == nil {
		sep = []byte(p.space)
	}
	if nl := bytes.LastIndexByte(sep, '\n'); nl >= 0 {
		sepInd, sepInline = string(sep[nl+1:]), false
	}
	for k, it := range its {
		switch {
		case k == 0:
			p.b.Write(p.data[n.off:n.first])
		case it.orig && it.sep >= 0:
			p.b.Write(p.data[it.sep:it.start])
		default:
			p.b.WriteByte(',')
			p.b.Write(sep)
		}
		p.write(it, sepInd, sepInline)
	}
	if last := its[len(its)-1]; last.orig && last.end == n.last {
		p.b.Write(p.data[last.end:n.end])
		return
	}
	p.b.Write(p.data[n.last:n.end])
}

// made writes a container an edit made.
func (p *printer) made(n *node, ind string, inline bool) {
	open, close := brackets(n)
	its := items(n)
	p.b.WriteByte(open)
	if len(its) > 0 {
		p.items(its, ind, inline)
	}
	p.b.WriteByte(close)
}

// items writes the items of a container whose line is indented by ind,
// between its brackets, each on a line of its own one level deeper, or all
// on one line.
func (p *printer) items(its []item, ind string, inline bool) {
	inner := ind + p.st.unit
	for k, it := range its {
		if k > 0 {
			p.b.WriteByte(',')
			if inline {
				p.b.WriteString(p.space)
			}
		}
		if !inline {
			p.b.WriteString(p.st.nl)
			p.b.WriteString(inner)
		}
		p.write(it, inner, inline)
	}
	if !inline {
		p.b.WriteString(p.st.nl)
		p.b.WriteString(ind)
	}
}
