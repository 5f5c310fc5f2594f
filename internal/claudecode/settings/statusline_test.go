package settings

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-agent/cairn/internal/golden"
	"github.com/cairn-agent/cairn/internal/shell"
	"github.com/google/go-cmp/cmp"
)

// isCairnStatus is the tests' StatusOurs: a command whose first word is a
// program named cairn and whose second word is "statusline".
func isCairnStatus(command string) bool {
	f := strings.Fields(command)
	return len(f) >= 2 && filepath.Base(f[0]) == "cairn" && f[1] == "statusline"
}

const statusBase = "cairn statusline"

// statusOnly is cairn's status line and none of its hooks.
var statusOnly = Wiring{StatusLine: statusBase, StatusOurs: isCairnStatus}

// TestStatusLineGolden installs cairn's status line into each file in
// testdata/statusline and uninstalls it again. Refused files have their
// error as golden output.
func TestStatusLineGolden(t *testing.T) {
	ins, err := filepath.Glob(filepath.Join("testdata", "statusline", "*.json"))
	if err != nil || len(ins) == 0 {
		t.Fatal("no inputs", err)
	}
	for _, in := range ins {
		name := "statusline-" + strings.TrimSuffix(filepath.Base(in), ".json")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := StatusLine(data); err != nil {
				golden.Check(t, filepath.Join("testdata", "golden", name+".err"), []byte(err.Error()+"\n"))
				_, _, ierr := statusOnly.Install(data)
				_, _, uerr := statusOnly.Uninstall(data, nil)
				for _, got := range []error{ierr, uerr} {
					if got == nil || got.Error() != err.Error() {
						t.Errorf("got %v, want %v", got, err)
					}
				}
				return
			}
			installed := checkStatusLineEdits(t, data)
			golden.Check(t, filepath.Join("testdata", "golden", name+".install.json"), installed)
			uninstalled, _, err := statusOnly.Uninstall(installed, nil)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "golden", name+".uninstall.json"), uninstalled)
		})
	}
}

// TestStatusLineOwn: a status line that runs cairn's before install is
// the user's own; install leaves it, and uninstall gives it back as it
// was. Without the record, uninstall cannot tell it from an install and
// takes it out.
func TestStatusLineOwn(t *testing.T) {
	w := Wiring{Hooks: cairnHooks[:1], IsOurs: isCairn, StatusLine: "/opt/cairn statusline", StatusOurs: isCairnStatus,
		StatusCurrent: func(c string) bool { return !strings.HasPrefix(c, "/") || strings.HasPrefix(c, "/opt/cairn ") }}
	for _, tt := range []struct {
		name, in   string
		installed  string // the status line's command after install
		noRecordTo string // after uninstall without the record; "" removed
	}{
		{"bare", `{"statusLine":{"type":"command","command":"cairn statusline"}}`, "cairn statusline", ""},
		{"chained", `{"statusLine":{"type":"command","command":"cairn statusline --chain ~/bin/status.sh","padding":1}}`, "cairn statusline --chain ~/bin/status.sh", "~/bin/status.sh"},
		{"another binary", `{"statusLine":{"command":"/usr/local/bin/cairn statusline --chain 'echo \u0041'"}}`, "/opt/cairn statusline --chain 'echo A'", "echo A"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := []byte(doc(t, tt.in))
			out, _, err := w.Install(in)
			if err != nil {
				t.Fatal(err)
			}
			if got := statusLineCommand(t, out); got != tt.installed {
				t.Errorf("after install the status line runs %q, want %q", got, tt.installed)
			}
			before, _ := w.Before(in)
			back, _, err := w.Uninstall(out, before)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(back, in) {
				t.Errorf("round trip:\n%s", cmp.Diff(string(in), string(back)))
			}
			blind, _, _ := w.Uninstall(out, nil)
			if got := statusLineCommand(t, blind); got != tt.noRecordTo {
				t.Errorf("without the record the status line runs %q, want %q", got, tt.noRecordTo)
			}
		})
	}
}

// TestStatusLineInherited: a file without a status line gets cairn's
// chaining the one Claude Code would otherwise run, from a file it reads
// with less precedence, and none when that one is cairn's already.
func TestStatusLineInherited(t *testing.T) {
	for _, tt := range []struct{ inherited, want string }{
		{"", statusBase},
		{"~/bin/status.sh", ChainedCommand(statusBase, "~/bin/status.sh")},
		{"cairn statusline", ""},
		{"/old/cairn statusline --chain x", ""},
	} {
		w := statusOnly
		w.Inherited = tt.inherited
		out, changed, err := w.Install([]byte("{}\n"))
		if err != nil {
			t.Fatal(err)
		}
		if got := statusLineCommand(t, out); got != tt.want || changed != (tt.want != "") {
			t.Errorf("inherited %q: status line %q (changed %v), want %q", tt.inherited, got, changed, tt.want)
		}
		before, _ := w.Before([]byte("{}\n"))
		if back, _, _ := w.Uninstall(out, before); string(back) != "{}\n" {
			t.Errorf("inherited %q: round trip gave %q", tt.inherited, back)
		}
	}
}

func TestChained(t *testing.T) {
	tests := []struct {
		command, want string
		ok            bool
	}{
		{"cairn statusline", "", false},
		{"cairn statusline --chain", "", false},
		{"cairn statusline --chain ~/sl.sh", "~/sl.sh", true},
		{"cairn statusline --chain=~/sl.sh", "~/sl.sh", true},
		{"cairn statusline -chain '~/sl.sh'", "~/sl.sh", true},
		{"cairn statusline -chain=''", "", true},
		{`'/my apps/cairn' statusline --chain 'bash -c '\''echo "$HOME"'\'''`, `bash -c 'echo "$HOME"'`, true},
		{`cairn statusline --chain "say \"hi\" \$USER \\ \n"`, `say "hi" $USER \ \n`, true},
		{`cairn statusline --chain a\ b\'c`, `a b'c`, true},
		{"cairn statusline --chain 'a\nb' --chain second", "a\nb", true},
		{"cairn statusline --chain 'unterminated", "", false},
		{`cairn statusline --chain "unterminated`, "", false},
		{"cairn\tstatusline\n--chain\tx", "x", true},
	}
	for _, tt := range tests {
		got, ok := Chained(tt.command)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Chained(%q) = %q, %v; want %q, %v", tt.command, got, ok, tt.want, tt.ok)
		}
	}
}

// chainCases are commands people have as status lines, and strings that
// test the quoting.
var chainCases = []string{
	"", "~/.claude/statusline.sh", "npx -y ccusage statusline", `bash -c 'echo "$(whoami)"'`,
	"a'b", "'", "''", `\`, `"`, "$HOME `id` $(id)", "line\nbreak\r\n", "tab\there", "日本 🎉", "--chain x",
	"a=b", "#not a comment", "!x", "~", "*",
}

// TestChainedCommandShell checks the quoting with a real shell: sh reads
// back the very string that was quoted.
func TestChainedCommandShell(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	for _, s := range chainCases {
		out, err := exec.Command("sh", "-c", `printf '%s' `+shell.Quote(s)).Output()
		if err != nil || string(out) != s {
			t.Errorf("sh read %q back as %q (%v)", s, out, err)
		}
		if got, ok := Chained(ChainedCommand(statusBase, s)); !ok || got != s {
			t.Errorf("Chained(ChainedCommand(%q)) = %q, %v", s, got, ok)
		}
	}
}

// FuzzChained: any previous command comes back out of the chain, and no
// command makes Chained panic.
func FuzzChained(f *testing.F) {
	for _, s := range chainCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, ok := Chained(ChainedCommand(statusBase, s)); !ok || got != s {
			t.Fatalf("Chained(ChainedCommand(%q)) = %q, %v", s, got, ok)
		}
		Chained(s)
	})
}

// FuzzStatusLineEdit runs the status line edits on arbitrary bytes: they
// never panic, refuse a document all alike, and otherwise keep the
// promises checkStatusLineEdits lists.
func FuzzStatusLineEdit(f *testing.F) {
	addFiles(f)
	ins, _ := filepath.Glob(filepath.Join("testdata", "statusline", "*.json"))
	for _, in := range ins {
		b, _ := os.ReadFile(in)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, _, err := StatusLine(data); err != nil {
			for _, e := range []error{
				func() error { _, _, err := statusOnly.Install(data); return err }(),
				func() error { _, _, err := statusOnly.Uninstall(data, nil); return err }(),
				func() error { _, err := statusOnly.Before(data); return err }(),
			} {
				if e == nil || e.Error() != err.Error() {
					t.Fatalf("got %v, want %v", e, err)
				}
			}
			return
		}
		checkStatusLineEdits(t, data)
	})
}

// FuzzRandomStatusLine checks the edits on random settings with random
// status lines, laid out in random ways.
func FuzzRandomStatusLine(f *testing.F) {
	for i := range uint64(20) {
		f.Add(i, i*7919)
	}
	f.Fuzz(func(t *testing.T, s1, s2 uint64) {
		checkStatusLineEdits(t, randomStatusSettings(rand.New(rand.NewPCG(s1, s2))))
	})
}

func TestRandomStatusLine(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 2000 {
		data := randomStatusSettings(r)
		t.Run(fmt.Sprint(i), func(t *testing.T) { checkStatusLineEdits(t, data) })
	}
}

// checkStatusLineEdits holds the status line edits to their promises on a
// document they accept, and returns the installed document:
//   - after Install the status line Claude Code runs is cairn's, chaining
//     the one that was there (or the one that was there, cairn's
//     already), and a second Install changes nothing;
//   - Uninstall with Before gives back the very bytes;
//   - Uninstall without it leaves no cairn status line, puts back the
//     command cairn's chained, and a second one changes nothing;
//   - the hooks are none of its business: Installed says the same throughout.
func checkStatusLineEdits(t *testing.T, data []byte) []byte {
	t.Helper()
	prev, hadPrev, err := StatusLine(data)
	if err != nil {
		t.Fatal(err)
	}
	hooksBefore, err := hooksOnly.Installed(data)
	if err != nil {
		t.Fatal(err)
	}
	installed, _, err := statusOnly.Install(data)
	if err != nil {
		t.Fatalf("Install: %v on\n%s", err, data)
	}
	want := statusBase
	switch {
	case hadPrev && isCairnStatus(prev) && statusOnly.current(prev):
		want = prev
	case hadPrev && isCairnStatus(prev):
		if p, ok := unwrap(prev, isCairnStatus); ok {
			want = ChainedCommand(statusBase, p)
		}
	case hadPrev:
		want = ChainedCommand(statusBase, prev)
	}
	if got := statusLineCommand(t, installed); got != want {
		t.Fatalf("status line runs %q, want %q, in\n%s", got, want, installed)
	}
	again, changed, err := statusOnly.Install(installed)
	if err != nil || changed || !bytes.Equal(again, installed) {
		t.Fatalf("second Install: changed %v, err %v, on\n%s", changed, err, installed)
	}
	before, err := statusOnly.Before(data)
	if err != nil {
		t.Fatal(err)
	}
	back, _, err := statusOnly.Uninstall(installed, before)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back, data) {
		t.Fatalf("Uninstall after Install changed the bytes:\n%s", cmp.Diff(string(data), string(back)))
	}
	blind, _, err := statusOnly.Uninstall(installed, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := statusLineCommand(t, blind); isCairnStatus(got) {
		t.Fatalf("cairn's status line left after Uninstall:\n%s", blind)
	}
	if p, ok := unwrap(want, isCairnStatus); ok && statusLineCommand(t, blind) != p {
		t.Fatalf("after Uninstall the status line is %q; want %q", statusLineCommand(t, blind), p)
	}
	if again, changed, err := statusOnly.Uninstall(blind, nil); err != nil || changed || !bytes.Equal(again, blind) {
		t.Fatalf("second Uninstall: changed %v, err %v, on\n%s", changed, err, blind)
	}
	for _, d := range [][]byte{installed, blind} {
		if hooks, _ := hooksOnly.Installed(d); !cmp.Equal(hooks, hooksBefore, cmpHooks) {
			t.Fatalf("the hooks changed:\n%s", cmp.Diff(hooksBefore, hooks, cmpHooks))
		}
	}
	return installed
}

// statusLineCommand is the command of the status line Claude Code reads.
func statusLineCommand(t *testing.T, data []byte) string {
	t.Helper()
	c, _, err := StatusLine(data)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// randomStatusSettings writes a settings document with random other keys
// and, mostly, a status line of the shapes Claude Code accepts, now and
// then cairn's own.
func randomStatusSettings(r *rand.Rand) []byte {
	g := &generator{r: r}
	root := objectNode()
	for range r.IntN(4) {
		k := pick(r, "model", "env", "hooks", "x-unknown", "ünï")
		v := g.value(2)
		if k == "hooks" {
			v = g.hooks()
		}
		g.add(root, k, v)
	}
	if r.IntN(6) > 0 {
		at := r.IntN(len(root.members) + 1)
		root.members = append(root.members[:at], append([]member{{rawKey: quote("statusLine"), key: "statusLine", val: g.statusLine()}}, root.members[at:]...)...)
	}
	return g.layout(root)
}

// statusLine makes a statusLine value of the shape Claude Code reads.
func (g *generator) statusLine() *node {
	n := objectNode()
	add := func(k string, v *node) {
		at := g.r.IntN(len(n.members) + 1)
		n.members = append(n.members[:at], append([]member{{rawKey: quote(k), key: k, val: v}}, n.members[at:]...)...)
	}
	if g.r.IntN(8) > 0 {
		add("type", stringNode("command"))
	}
	if g.r.IntN(10) > 0 {
		c := pick(g.r, chainCases...)
		switch g.r.IntN(6) {
		case 0:
			c = ChainedCommand("/opt/cairn", c)
		case 1:
			c = pick(g.r, "/old/cairn statusline", statusBase, ChainedCommand(statusBase, c))
		}
		cmd := stringNode(c)
		if g.r.IntN(5) == 0 {
			cmd = rawNode([]byte(pick(g.r, `"echo \u0041"`, `"\/bin\/sl"`, `"a\tb"`, `"cairn statusline --chain \"\\u0041\""`)))
		}
		add("command", cmd)
	}
	if g.r.IntN(2) == 0 {
		add("padding", g.value(1))
	}
	if g.r.IntN(4) == 0 {
		add("x-extra", g.value(2))
	}
	return n
}

func TestStatusLineFile(t *testing.T) {
	dir := t.TempDir()
	j := Journal{Dir: filepath.Join(dir, "journal")}
	path := filepath.Join(dir, "proj", ".claude", "settings.json")
	w := Wiring{Hooks: cairnHooks, IsOurs: isCairn, StatusLine: statusBase, StatusOurs: isCairnStatus}
	if res, err := w.UninstallFile(path, j); res.Changed || err != nil {
		t.Fatalf("uninstall from no file: %+v %v", res, err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatal("uninstall created the file")
	}
	user := []byte("{\n  \"statusLine\": {\n    \"type\": \"command\",\n    \"command\": \"~/sl.sh\",\n    \"padding\": 2\n  }\n}\n")
	os.MkdirAll(filepath.Dir(path), 0o755)
	if err := os.WriteFile(path, user, 0o600); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		res, err := w.InstallFile(path, j)
		if err != nil || res.Changed != (i == 0) {
			t.Fatalf("install %d: %+v, %v", i, res, err)
		}
	}
	got, _ := os.ReadFile(path)
	if cmd := statusLineCommand(t, got); cmd != "cairn statusline --chain '~/sl.sh'" {
		t.Errorf("status line %q", cmd)
	}
	if hooks, _ := w.Installed(got); len(hooks) != len(cairnHooks) {
		t.Errorf("hooks %v", hooks)
	}
	// The status line alone, pointed at another binary, then the hooks alone.
	sl := Wiring{StatusLine: "/opt/cairn statusline", StatusOurs: isCairnStatus}
	if res, err := sl.InstallFile(path, j); !res.Changed || err != nil {
		t.Fatalf("status line alone: %+v %v", res, err)
	}
	got, _ = os.ReadFile(path)
	if cmd := statusLineCommand(t, got); cmd != "/opt/cairn statusline --chain '~/sl.sh'" {
		t.Errorf("status line %q", cmd)
	}
	if res, err := hooksOnly.InstallFile(path, j); res.Changed || err != nil {
		t.Fatalf("hooks alone: %+v %v", res, err)
	}
	if res, err := w.UninstallFile(path, j); !res.Changed || err != nil {
		t.Fatalf("uninstall: %+v %v", res, err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, user) {
		t.Errorf("after uninstall:\n%s", got)
	}
}
