package settings

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzParse holds the parser to encoding/json: it accepts exactly what
// json.Valid accepts; a document printed back untouched is the very
// bytes; and the tree is the same document encode lays out anew.
func FuzzParse(f *testing.F) {
	addFiles(f)
	for _, s := range []string{`[1,2]`, `"\u00e9\ud83c\udf89"`, `-0.0e+00`, `{"a":{"a":1,"a":2}}`, "\"\xff\"", `{"a":1,}`, "{\r\n\t\"a\" : [ 1 ,2 ] }"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := parse(data)
		if (err == nil) != json.Valid(data) {
			t.Fatalf("parse error %v, but json.Valid says %v", err, json.Valid(data))
		}
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error %T, want *Error", err)
			}
			return
		}
		if n.kind != scalar {
			if out := document(data, n); !bytes.Equal(out, data) {
				t.Fatalf("printed back untouched, the document changed:\n%s", cmp.Diff(string(data), string(out)))
			}
		}
		out := encode(n)
		if diff := cmp.Diff(tokens(t, data), tokens(t, out)); diff != "" {
			t.Fatalf("encode changed the document (-in +out):\n%s", diff)
		}
		if !canonical(out) {
			t.Fatalf("encode is not stable on\n%s", out)
		}
	})
}

// FuzzEdit runs the edits on arbitrary bytes: they never panic, refuse a
// document all alike, and otherwise keep the promises checkEdits lists.
func FuzzEdit(f *testing.F) {
	addFiles(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := load(data); err != nil {
			for _, e := range []error{
				func() error { _, _, err := hooksOnly.Install(data); return err }(),
				func() error { _, _, err := hooksOnly.Uninstall(data, nil); return err }(),
				func() error { _, err := hooksOnly.Installed(data); return err }(),
				func() error { _, err := hooksOnly.Before(data); return err }(),
			} {
				if e == nil || e.Error() != err.Error() {
					t.Fatalf("got %v, want %v", e, err)
				}
			}
			return
		}
		checkEdits(t, data)
	})
}

// FuzzRandom checks the edits on random well-formed settings, laid out in
// random ways: most fuzzed bytes are not JSON, these always are.
func FuzzRandom(f *testing.F) {
	for i := range uint64(20) {
		f.Add(i, i*7919)
	}
	f.Fuzz(func(t *testing.T, s1, s2 uint64) {
		checkEdits(t, randomSettings(rand.New(rand.NewPCG(s1, s2))))
	})
}

func TestRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		data := randomSettings(r)
		t.Run(fmt.Sprint(i), func(t *testing.T) { checkEdits(t, data) })
	}
}

func addFiles(f *testing.F) {
	ins, _ := filepath.Glob(filepath.Join("testdata", "in", "*.json"))
	for _, in := range ins {
		b, err := os.ReadFile(in)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
}

// full is cairn's whole wiring, as the file functions install it.
var full = Wiring{Hooks: cairnHooks, IsOurs: isCairn, StatusLine: statusBase, StatusOurs: isCairnStatus}

// checkEdits holds Install and Uninstall to their promises on a document
// load accepts:
//   - Install adds cairnHooks, each once, leaves cairn hooks under other
//     events alone, and a second Install changes nothing;
//   - Uninstall then leaves no cairn hook, and a second Uninstall changes
//     nothing;
//   - with Before, Uninstall after Install gives back Before byte for
//     byte, which is data itself when data had none of cairn's hooks: for
//     every document Install accepts, whatever its layout;
//   - without Before, it gives back the same bytes too, but for the one
//     thing it cannot know: an object or array the user left empty. A
//     "hooks" object or event array cannot be told from one Install made,
//     and goes; the document itself comes back as {}, whatever white
//     space (or none) it held. The status line: checkStatusLineEdits.
func checkEdits(t *testing.T, data []byte) {
	t.Helper()
	hadOurs, err := hooksOnly.Installed(data)
	if err != nil {
		t.Fatal(err)
	}
	wirings := []Wiring{hooksOnly}
	if _, _, err := StatusLine(data); err == nil {
		wirings = append(wirings, full) // else FuzzStatusLineEdit has it
	}
	for _, w := range wirings {
		installed, _, err := w.Install(data)
		if err != nil {
			t.Fatalf("Install: %v on\n%s", err, data)
		}
		again, changed, err := w.Install(installed)
		if err != nil || changed || !bytes.Equal(again, installed) {
			t.Fatalf("second Install: changed %v, err %v, on\n%s", changed, err, installed)
		}
		if !json.Valid(installed) {
			t.Fatalf("Install wrote invalid JSON:\n%s", installed)
		}
		// Cairn hooks under events Install does not touch stay as they were.
		want := slices.Clone(cairnHooks)
		for _, h := range hadOurs {
			if !slices.ContainsFunc(cairnHooks, func(c Hook) bool { return c.Event == h.Event }) {
				want = append(want, h)
			}
		}
		got, err := w.Installed(installed)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got, cmpHooks); diff != "" {
			t.Fatalf("Installed (-want +got):\n%s\nin\n%s", diff, installed)
		}

		before, err := w.Before(data)
		if err != nil {
			t.Fatal(err)
		}
		if len(hadOurs) == 0 && !bytes.Equal(before, data) {
			t.Fatalf("Before changed a document without cairn's hooks:\n%s", cmp.Diff(string(data), string(before)))
		}
		back, _, err := w.Uninstall(installed, before)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(back, before) {
			t.Fatalf("Uninstall after Install changed the bytes:\n%s\ninstalled:\n%s", cmp.Diff(string(before), string(back)), installed)
		}
		if again, changed, _ := w.Uninstall(back, before); len(hadOurs) == 0 && (changed || !bytes.Equal(again, back)) {
			t.Fatalf("second Uninstall changed\n%s", back)
		}
	}

	blind, _, err := hooksOnly.Uninstall(hooksOnlyInstall(t, data), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := hooksOnly.Installed(blind); len(got) > 0 {
		t.Fatalf("left after Uninstall: %v", got)
	}
	if again, changed, _ := hooksOnly.Uninstall(blind, nil); changed || !bytes.Equal(again, blind) {
		t.Fatalf("second Uninstall changed\n%s", blind)
	}
	if len(hadOurs) > 0 || leftEmpty(data) {
		return
	}
	if !bytes.Equal(data, blind) {
		t.Fatalf("Uninstall after Install changed the bytes, without a record:\n%s", cmp.Diff(string(data), string(blind)))
	}
}

func hooksOnlyInstall(t *testing.T, data []byte) []byte {
	t.Helper()
	out, _, err := hooksOnly.Install(data)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// leftEmpty reports the exception checkEdits describes.
func leftEmpty(data []byte) bool {
	root, err := load(data)
	if err != nil {
		return false
	}
	if len(root.members) == 0 {
		return true // the white space in it, or the file
	}
	all := root.get("hooks")
	if all == nil {
		return false
	}
	if len(all.members) == 0 {
		return true
	}
	for _, h := range cairnHooks {
		if ev := all.get(h.Event); ev != nil && len(ev.elems) == 0 {
			return true
		}
	}
	return false
}

// randomSettings writes a settings document with the parts Claude Code and
// users put there, hooks included, none of them cairn's.
func randomSettings(r *rand.Rand) []byte {
	g := &generator{r: r}
	root := objectNode()
	for range r.IntN(6) {
		k := pick(r, "model", "env", "permissions", "statusLine", "hooks", "hooks", "x-unknown", "ünï", `a"b`, "cleanupPeriodDays")
		var v *node
		if k == "hooks" {
			v = g.hooks()
		} else {
			v = g.value(3)
		}
		g.add(root, k, v)
	}
	return g.layout(root)
}

type generator struct{ r *rand.Rand }

func pick[T any](r *rand.Rand, xs ...T) T { return xs[r.IntN(len(xs))] }

// add gives object n the member k, unless it has one: settings with a key
// twice are refused, and FuzzEdit has those.
func (g *generator) add(n *node, k string, v *node) {
	if n.index(k) < 0 {
		n.members = append(n.members, member{rawKey: g.key(k), key: k, val: v})
	}
}

// key spells k in one of the ways JSON allows.
func (g *generator) key(k string) []byte {
	if k == "hooks" && g.r.IntN(10) == 0 {
		return []byte(`"hook\u0073"`)
	}
	return quote(k)
}

func (g *generator) obj(kv ...any) *node {
	n := objectNode()
	for i := 0; i < len(kv); i += 2 {
		g.add(n, kv[i].(string), kv[i+1].(*node))
	}
	return n
}

func (g *generator) hooks() *node {
	n := objectNode()
	for range g.r.IntN(5) {
		ev := pick(g.r, "PostToolUse", "Stop", "SessionStart", "PreCompact", "PreToolUse", "Notification", "SessionEnd", "Unknown Event")
		arr := arrayNode()
		for range g.r.IntN(4) {
			arr.elems = append(arr.elems, g.group())
		}
		g.add(n, ev, arr)
	}
	return n
}

func (g *generator) group() *node {
	n := objectNode()
	if g.r.IntN(4) > 0 {
		g.add(n, "matcher", stringNode(pick(g.r, "", "Bash", "Write|Edit", "*")))
	}
	if g.r.IntN(8) > 0 {
		arr := arrayNode()
		for range g.r.IntN(4) {
			arr.elems = append(arr.elems, g.entry())
		}
		g.add(n, "hooks", arr)
	}
	if g.r.IntN(8) == 0 {
		g.add(n, "x", g.value(2))
	}
	return n
}

func (g *generator) entry() *node {
	if g.r.IntN(6) == 0 {
		return g.obj("type", stringNode("prompt"), "prompt", stringNode("cairn hook stop"))
	}
	// Commands that look like cairn's without being its hooks.
	c := pick(g.r, "echo hi", "cairn status", "cairnd hook stop", "/bin/cairn-x hook", "echo cairn hook", "cairn", `notify-send "done"`)
	e := g.obj("type", stringNode("command"), "command", stringNode(c))
	if g.r.IntN(2) == 0 {
		g.add(e, "timeout", g.number())
	}
	return e
}

func (g *generator) number() *node {
	return rawNode([]byte(pick(g.r, "0", "10", "-1", "1e3", "10.50", "-0.0", "2E-7", "123456789012345678901234567890")))
}

func (g *generator) value(depth int) *node {
	switch k := g.r.IntN(8); {
	case k == 0 && depth > 0:
		n := objectNode()
		for range g.r.IntN(4) {
			g.add(n, pick(g.r, "a", "b", "é", "", "\u2028", "hooks"), g.value(depth-1))
		}
		return n
	case k == 1 && depth > 0:
		n := arrayNode()
		for range g.r.IntN(4) {
			n.elems = append(n.elems, g.value(depth-1))
		}
		return n
	case k == 2:
		return g.number()
	case k == 3:
		return rawNode([]byte(pick(g.r, "true", "false", "null")))
	case k == 4:
		return rawNode([]byte(pick(g.r, `"caf\u00e9"`, `"\/path\/"`, `"<&>"`, `"\"q\"\n"`, `"🎉 日本"`, `"\ud83c\udf89"`)))
	}
	return stringNode(pick(g.r, "", "x", "Bash(npm run test:*)", "~/.claude/statusline.sh"))
}

// layout writes n in one of the layouts people write settings in, or
// with random white space.
func (g *generator) layout(n *node) []byte {
	switch g.r.IntN(6) {
	case 0:
		return encode(n)
	case 1:
		b, _ := json.Marshal(json.RawMessage(encode(n))) // compacts, keeps the tokens
		return b
	case 2:
		return bytes.ReplaceAll(encode(n), []byte("  "), []byte("\t"))
	case 3:
		b := bytes.ReplaceAll(encode(n), []byte("\n"), []byte("\r\n"))
		if g.r.IntN(2) == 0 {
			b = bytes.TrimSuffix(b, []byte("\r\n"))
		}
		return b
	case 4:
		var b bytes.Buffer
		json.Indent(&b, encode(n), pick(g.r, "", " "), pick(g.r, "    ", "\t", " "))
		return b.Bytes()
	}
	var b bytes.Buffer
	ws := func() { b.WriteString(pick(g.r, "", "", " ", "\n", "\t", "\r\n    ")) }
	var walk func(n *node)
	walk = func(n *node) {
		ws()
		switch n.kind {
		case scalar:
			b.Write(n.raw)
		case object:
			b.WriteByte('{')
			for i, m := range n.members {
				if i > 0 {
					b.WriteByte(',')
				}
				ws()
				b.Write(m.rawKey)
				ws()
				b.WriteByte(':')
				walk(m.val)
			}
			ws()
			b.WriteByte('}')
		case array:
			b.WriteByte('[')
			for i, e := range n.elems {
				if i > 0 {
					b.WriteByte(',')
				}
				walk(e)
			}
			ws()
			b.WriteByte(']')
		}
		ws()
	}
	walk(n)
	return b.Bytes()
}
