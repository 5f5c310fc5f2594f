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
// json.Valid accepts, and what it writes back is the same document.
func FuzzParse(f *testing.F) {
	addFiles(f)
	for _, s := range []string{`[1,2]`, `"\u00e9\ud83c\udf89"`, `-0.0e+00`, `{"a":{"a":1,"a":2}}`, "\"\xff\"", `{"a":1,}`} {
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
				func() error { _, _, err := Install(data, cairnHooks, isCairn); return err }(),
				func() error { _, _, err := Uninstall(data, isCairn); return err }(),
				func() error { _, err := Installed(data, isCairn); return err }(),
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

// checkEdits holds Install and Uninstall to their promises on a document
// load accepts:
//   - Install adds cairnHooks, each once, leaves cairn hooks under other
//     events alone, and a second Install changes nothing;
//   - Uninstall then leaves no cairn hook, and a second Uninstall changes nothing;
//   - with no cairn hook in data to begin with, Uninstall after Install gives
//     back the same document (the same tokens in the same order), and the same
//     bytes when data was laid out as encode does;
//   - the one exception: a "hooks" object, or an event array cairn installs
//     into, that the user left empty cannot be told from one Install made, so
//     Uninstall removes it.
func checkEdits(t *testing.T, data []byte) {
	t.Helper()
	_, hadOurs, err := Uninstall(data, isCairn)
	if err != nil {
		t.Fatal(err)
	}
	installed, _, err := Install(data, cairnHooks, isCairn)
	if err != nil {
		t.Fatalf("Install: %v on\n%s", err, data)
	}
	again, changed, err := Install(installed, cairnHooks, isCairn)
	if err != nil || changed || !bytes.Equal(again, installed) {
		t.Fatalf("second Install: changed %v, err %v, on\n%s", changed, err, installed)
	}
	// Cairn hooks under events Install does not touch stay as they were.
	want := slices.Clone(cairnHooks)
	before, _ := Installed(data, isCairn)
	for _, h := range before {
		if !slices.ContainsFunc(cairnHooks, func(c Hook) bool { return c.Event == h.Event }) {
			want = append(want, h)
		}
	}
	got, err := Installed(installed, isCairn)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got, cmpHooks); diff != "" {
		t.Fatalf("Installed (-want +got):\n%s\nin\n%s", diff, installed)
	}
	uninstalled, _, err := Uninstall(installed, isCairn)
	if err != nil {
		t.Fatal(err)
	}
	if again, changed, _ := Uninstall(uninstalled, isCairn); changed || !bytes.Equal(again, uninstalled) {
		t.Fatalf("second Uninstall changed\n%s", uninstalled)
	}
	if hadOurs || leftEmpty(data) {
		return
	}
	if diff := cmp.Diff(tokens(t, data), tokens(t, uninstalled)); diff != "" {
		t.Fatalf("Uninstall after Install changed the document (-before +after):\n%s\nbefore:\n%s\nafter:\n%s", diff, data, uninstalled)
	}
	if canonical(data) && !bytes.Equal(data, uninstalled) {
		t.Fatalf("Uninstall after Install changed the bytes:\n%s", cmp.Diff(string(data), string(uninstalled)))
	}
}

// leftEmpty reports the exception checkEdits describes.
func leftEmpty(data []byte) bool {
	root, err := load(data)
	if err != nil {
		return false
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
	root := &node{kind: object}
	for range r.IntN(6) {
		k := pick(r, "model", "env", "permissions", "statusLine", "hooks", "hooks", "x-unknown", "ünï", `a"b`, "cleanupPeriodDays")
		var v *node
		if k == "hooks" {
			v = g.hooks()
		} else {
			v = g.value(3)
		}
		root.members = append(root.members, member{rawKey: g.key(k), key: k, val: v})
	}
	return g.layout(root)
}

type generator struct{ r *rand.Rand }

func pick[T any](r *rand.Rand, xs ...T) T { return xs[r.IntN(len(xs))] }

// key spells k in one of the ways JSON allows.
func (g *generator) key(k string) []byte {
	if k == "hooks" && g.r.IntN(10) == 0 {
		return []byte(`"hook\u0073"`)
	}
	return quote(k)
}

func (g *generator) obj(kv ...any) *node {
	n := &node{kind: object}
	for i := 0; i < len(kv); i += 2 {
		k := kv[i].(string)
		n.members = append(n.members, member{rawKey: g.key(k), key: k, val: kv[i+1].(*node)})
	}
	return n
}

func (g *generator) hooks() *node {
	n := &node{kind: object}
	for range g.r.IntN(5) {
		ev := pick(g.r, "PostToolUse", "Stop", "SessionStart", "PreCompact", "PreToolUse", "Notification", "SessionEnd", "Unknown Event")
		arr := &node{kind: array}
		for range g.r.IntN(4) {
			arr.elems = append(arr.elems, g.group())
		}
		n.members = append(n.members, member{rawKey: g.key(ev), key: ev, val: arr})
	}
	return n
}

func (g *generator) group() *node {
	n := &node{kind: object}
	if g.r.IntN(4) > 0 {
		n.members = append(n.members, member{rawKey: quote("matcher"), key: "matcher", val: stringNode(pick(g.r, "", "Bash", "Write|Edit", "*"))})
	}
	if g.r.IntN(8) > 0 {
		arr := &node{kind: array}
		for range g.r.IntN(4) {
			arr.elems = append(arr.elems, g.entry())
		}
		n.members = append(n.members, member{rawKey: quote("hooks"), key: "hooks", val: arr})
	}
	if g.r.IntN(8) == 0 {
		n.members = append(n.members, member{rawKey: quote("x"), key: "x", val: g.value(2)})
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
		e.members = append(e.members, member{rawKey: quote("timeout"), key: "timeout", val: g.number()})
	}
	return e
}

func (g *generator) number() *node {
	return &node{kind: scalar, raw: []byte(pick(g.r, "0", "10", "-1", "1e3", "10.50", "-0.0", "2E-7", "123456789012345678901234567890"))}
}

func (g *generator) value(depth int) *node {
	switch k := g.r.IntN(8); {
	case k == 0 && depth > 0:
		n := &node{kind: object}
		for range g.r.IntN(4) {
			key := pick(g.r, "a", "b", "a", "é", "", "\u2028", "hooks")
			n.members = append(n.members, member{rawKey: g.key(key), key: key, val: g.value(depth - 1)})
		}
		return n
	case k == 1 && depth > 0:
		n := &node{kind: array}
		for range g.r.IntN(4) {
			n.elems = append(n.elems, g.value(depth-1))
		}
		return n
	case k == 2:
		return g.number()
	case k == 3:
		return &node{kind: scalar, raw: []byte(pick(g.r, "true", "false", "null"))}
	case k == 4:
		return &node{kind: scalar, raw: []byte(pick(g.r, `"caf\u00e9"`, `"\/path\/"`, `"<&>"`, `"\"q\"\n"`, `"🎉 日本"`, `"\ud83c\udf89"`))}
	}
	return stringNode(pick(g.r, "", "x", "Bash(npm run test:*)", "~/.claude/statusline.sh"))
}

// layout writes n as encode does, or compactly, or with random whitespace.
func (g *generator) layout(n *node) []byte {
	switch g.r.IntN(3) {
	case 0:
		return encode(n)
	case 1:
		b, _ := json.Marshal(json.RawMessage(encode(n))) // compacts, keeps the tokens
		return b
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
