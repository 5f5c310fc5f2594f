package settings

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"
)

// encode writes n the way JSON.stringify(value, null, 2) does, plus a
// final newline: the layout the tests write their documents in, and the
// one Claude Code writes.
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

// canonical reports whether data is already in encode's layout.
func canonical(data []byte) bool {
	n, err := parse(data)
	return err == nil && bytes.Equal(encode(n), data)
}

// doc writes a compact document the way the tests below read best, in
// encode's layout.
func doc(t *testing.T, s string) string {
	t.Helper()
	n, err := parse([]byte(s))
	if err != nil {
		t.Fatalf("bad test document %s: %v", s, err)
	}
	return string(encode(n))
}

// tokens is the document as encoding/json reads it, in order, duplicates
// and number spellings included: what "the same document" means here.
func tokens(t testing.TB, data []byte) []any {
	t.Helper()
	if isSpace(data) {
		data = []byte("{}")
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var out []any
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("tokens: %v in\n%s", err, data)
		}
		out = append(out, tok)
	}
}

// TestNewDocumentLayout: what cairn writes into an empty file is laid out
// as JSON.stringify(value, null, 2) lays it out, as Claude Code writes
// settings.
func TestNewDocumentLayout(t *testing.T) {
	w := Wiring{Hooks: cairnHooks, IsOurs: isCairn, StatusLine: statusBase, StatusOurs: isCairnStatus}
	out, _, err := w.Install(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !canonical(out) {
		t.Errorf("not in JSON.stringify's layout:\n%s", out)
	}
}
