package settings

import (
	"bytes"
	"fmt"
	"github.com/cairn-agent/cairn/internal/golden"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// isCairnStatus is the tests' isOurs for status lines: a command whose first
// word is a program named cairn and whose second word is "statusline".
func isCairnStatus(command string) bool {
	f := strings.Fields(command)
	return len(f) >= 2 && filepath.Base(f[0]) == "cairn" && f[1] == "statusline"
}

const statusBase = "cairn statusline"

// statusCommand is the command a caller installs: cairn's, chaining
// whatever PreviousStatusLine finds.
func statusCommand(t testing.TB, data []byte) string {
	t.Helper()
	prev, ok, err := PreviousStatusLine(data, isCairnStatus)
	if err != nil {
		t.Fatal(err)
	}
	if ok {
		return ChainedCommand(statusBase, prev)
	}
	return statusBase
}

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
			if _, _, err := PreviousStatusLine(data, isCairnStatus); err != nil {
				golden.Check(t, filepath.Join("testdata", "golden", name+".err"), []byte(err.Error()+"\n"))
				_, _, ierr := InstallStatusLine(data, statusBase, isCairnStatus)
				_, _, uerr := UninstallStatusLine(data, isCairnStatus)
				for _, got := range []error{ierr, uerr} {
					if got == nil || got.Error() != err.Error() {
						t.Errorf("got %v, want %v", got, err)
					}
				}
				return
			}
			installed := checkStatusLineEdits(t, data)
			golden.Check(t, filepath.Join("testdata", "golden", name+".install.json"), installed)
			uninstalled, _, err := UninstallStatusLine(installed, isCairnStatus)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "golden", name+".uninstall.json"), uninstalled)
		})
	}
}

// The files where Uninstall after Install must give the input back byte
// for byte, and the ones that are exceptions.
func TestStatusLineExact(t *testing.T) {
	for name, want := range map[string]bool{
		"none": true, "user": true, "duplicate": true,
		"compact":         false, // not in encode's layout
		"no-type":         false, // gains "type"
		"no-command":      false, // nothing to chain: removed
		"escaped-command": false, // the command's escapes are rewritten
		"ours":            false, // cairn's already
	} {
		data, err := os.ReadFile(filepath.Join("testdata", "statusline", name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if got := exactStatusLine(data); got != want {
			t.Errorf("%s: exact %v, want %v", name, got, want)
		}
		installed, _, err := InstallStatusLine(data, statusCommand(t, data), isCairnStatus)
		if err != nil {
			t.Fatal(err)
		}
		uninstalled, _, _ := UninstallStatusLine(installed, isCairnStatus)
		if same := bytes.Equal(uninstalled, data); same != want {
			t.Errorf("%s: round trip gives the same bytes: %v, want %v:\n%s", name, same, want, cmp.Diff(string(data), string(uninstalled)))
		}
	}
}

func TestInstallStatusLineRefuses(t *testing.T) {
	user := []byte(`{"statusLine": {"type": "command", "command": "~/sl.sh"}}`)
	tests := []struct {
		name, data, cmd, want string
	}{
		{"not ours", `{}`, "echo hi", `status line "echo hi" is not one isOurs recognises`},
		{"empty", `{}`, "", "status line has no command"},
		{"drops the user's", string(user), statusBase, `status line "cairn statusline" does not chain the one already there, "~/sl.sh": build it with ChainedCommand`},
		{"chains another", string(user), ChainedCommand(statusBase, "~/other.sh"), `status line "cairn statusline --chain '~/other.sh'" chains "~/other.sh", not the one already there, "~/sl.sh"`},
		{"chains nothing there", `{}`, ChainedCommand(statusBase, "x"), `status line "cairn statusline --chain x" chains "x", but there is no other status line to chain`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := InstallStatusLine([]byte(tt.data), tt.cmd, isCairnStatus)
			if err == nil || err.Error() != tt.want {
				t.Errorf("got %v\nwant %s", err, tt.want)
			}
		})
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
		out, err := exec.Command("sh", "-c", `printf '%s' `+shellQuote(s)).Output()
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
		if _, err := loadStatusLine(data); err != nil {
			for _, e := range []error{
				func() error { _, _, err := PreviousStatusLine(data, isCairnStatus); return err }(),
				func() error { _, _, err := InstallStatusLine(data, statusBase, isCairnStatus); return err }(),
				func() error { _, _, err := UninstallStatusLine(data, isCairnStatus); return err }(),
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
//   - Install makes cairn's command the status line Claude Code reads,
//     chaining the previous one, and a second Install changes nothing;
//   - the chain survives: PreviousStatusLine says the same before and after;
//   - Uninstall leaves no cairn status line, and a second one changes nothing;
//   - the hooks are none of its business: Installed says the same throughout;
//   - without a cairn status line to begin with, Uninstall after Install gives
//     back the same document (the same tokens in the same order), and the
//     same bytes when exactStatusLine says so, except as the package
//     documents.
func checkStatusLineEdits(t *testing.T, data []byte) []byte {
	t.Helper()
	prev, hadPrev, err := PreviousStatusLine(data, isCairnStatus)
	if err != nil {
		t.Fatal(err)
	}
	hooksBefore, err := Installed(data, isCairn)
	if err != nil {
		t.Fatal(err)
	}
	cmd := statusCommand(t, data)
	installed, _, err := InstallStatusLine(data, cmd, isCairnStatus)
	if err != nil {
		t.Fatalf("InstallStatusLine: %v on\n%s", err, data)
	}
	if got := statusLineCommand(t, installed); got != cmd {
		t.Fatalf("status line runs %q, want %q, in\n%s", got, cmd, installed)
	}
	again, changed, err := InstallStatusLine(installed, cmd, isCairnStatus)
	if err != nil || changed || !bytes.Equal(again, installed) {
		t.Fatalf("second InstallStatusLine: changed %v, err %v, on\n%s", changed, err, installed)
	}
	if p, ok, _ := PreviousStatusLine(installed, isCairnStatus); p != prev || ok != hadPrev {
		t.Fatalf("PreviousStatusLine after Install = %q, %v; before %q, %v", p, ok, prev, hadPrev)
	}
	uninstalled, _, err := UninstallStatusLine(installed, isCairnStatus)
	if err != nil {
		t.Fatal(err)
	}
	if got := statusLineCommands(t, uninstalled); strings.Contains(got, "\x00ours") {
		t.Fatalf("cairn's status line left after Uninstall:\n%s", uninstalled)
	}
	again, changed, err = UninstallStatusLine(uninstalled, isCairnStatus)
	switch {
	case err != nil && !tokenExactStatusLine(data):
		// Removing a statusLine key can leave an earlier duplicate of
		// any kind as the one Claude Code reads.
	case err != nil || changed || !bytes.Equal(again, uninstalled):
		t.Fatalf("second UninstallStatusLine: changed %v, err %v, on\n%s", changed, err, uninstalled)
	}
	for _, d := range [][]byte{installed, uninstalled} {
		if hooks, _ := Installed(d, isCairn); !cmp.Equal(hooks, hooksBefore, cmpHooks) {
			t.Fatalf("the hooks changed:\n%s", cmp.Diff(hooksBefore, hooks, cmpHooks))
		}
	}
	if p, ok, _ := PreviousStatusLine(uninstalled, isCairnStatus); hadPrev && (p != prev || !ok) {
		t.Fatalf("after Uninstall the status line is %q, %v; want %q", p, ok, prev)
	}
	if !tokenExactStatusLine(data) {
		return installed
	}
	if diff := cmp.Diff(tokens(t, data), tokens(t, uninstalled)); diff != "" {
		t.Fatalf("Uninstall after Install changed the document (-before +after):\n%s\nbefore:\n%s\nafter:\n%s", diff, data, uninstalled)
	}
	if exactStatusLine(data) && !bytes.Equal(data, uninstalled) {
		t.Fatalf("Uninstall after Install changed the bytes:\n%s", cmp.Diff(string(data), string(uninstalled)))
	}
	return installed
}

// tokenExactStatusLine reports whether Uninstall after Install must give
// back data's tokens: no cairn status line in it, and the status line Claude
// Code reads either missing or with both "type" and "command".
func tokenExactStatusLine(data []byte) bool {
	root, err := loadStatusLine(data)
	if err != nil {
		return false
	}
	for _, m := range root.members {
		if m.key != "statusLine" || m.val.kind != object {
			continue
		}
		if c, ok := command(m.val); ok && isCairnStatus(c) {
			return false
		}
	}
	sl := root.get("statusLine")
	return sl == nil || sl.lastIndex("type") >= 0 && sl.lastIndex("command") >= 0
}

// exactStatusLine reports whether Uninstall after Install must give back
// data byte for byte: the tokens come back, data is laid out as encode
// does, and the command Install replaces is spelled as quote spells it.
func exactStatusLine(data []byte) bool {
	if !tokenExactStatusLine(data) || !canonical(data) {
		return false
	}
	root, _ := loadStatusLine(data)
	sl := root.get("statusLine")
	if sl == nil {
		return true
	}
	c := sl.get("command")
	s, _ := c.text()
	return bytes.Equal(c.raw, quote(s))
}

// statusLineCommand is the command of the status line Claude Code reads.
func statusLineCommand(t *testing.T, data []byte) string {
	t.Helper()
	root, err := loadStatusLine(data)
	if err != nil {
		t.Fatal(err)
	}
	c, _ := command(root.get("statusLine"))
	return c
}

// statusLineCommands lists the commands of every statusLine key, with
// cairn's marked "\x00ours".
func statusLineCommands(t *testing.T, data []byte) string {
	t.Helper()
	root, err := load(data)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, m := range root.members {
		if m.key != "statusLine" || m.val.kind != object {
			continue
		}
		if c, ok := command(m.val); ok {
			b.WriteString(c)
			if isCairnStatus(c) {
				b.WriteString("\x00ours")
			}
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// randomStatusSettings writes a settings document with random other keys
// and, mostly, a status line of the shapes Claude Code accepts, now and
// then cairn's own.
func randomStatusSettings(r *rand.Rand) []byte {
	g := &generator{r: r}
	root := &node{kind: object}
	for range r.IntN(4) {
		k := pick(r, "model", "env", "hooks", "x-unknown", "ünï")
		v := g.value(2)
		if k == "hooks" {
			v = g.hooks()
		}
		root.members = append(root.members, member{rawKey: g.key(k), key: k, val: v})
	}
	n := r.IntN(3)
	for i := range n {
		sl := g.statusLine(i == n-1)
		at := r.IntN(len(root.members) + 1)
		if i == n-1 {
			at = max(at, root.lastIndex("statusLine")+1)
		}
		root.members = append(root.members[:at], append([]member{{rawKey: quote("statusLine"), key: "statusLine", val: sl}}, root.members[at:]...)...)
	}
	return g.layout(root)
}

// statusLine makes a statusLine value: an object of the shape Claude Code
// reads when last, since others are refused, and anything now and then
// when an earlier duplicate.
func (g *generator) statusLine(last bool) *node {
	if !last && g.r.IntN(4) == 0 {
		return g.value(1)
	}
	n := &node{kind: object}
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
			c = "/old/cairn statusline"
		}
		cmd := stringNode(c)
		if g.r.IntN(5) == 0 {
			cmd = &node{kind: scalar, raw: []byte(pick(g.r, `"echo \u0041"`, `"\/bin\/sl"`, `"a\tb"`))}
		}
		add("command", cmd)
	}
	for range g.r.IntN(3) {
		add(pick(g.r, "padding", "x-extra", "padding"), g.value(2))
	}
	return n
}

func TestStatusLineFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".claude", "settings.json")
	if changed, err := UninstallFileWithStatusLine(path, isCairn, isCairnStatus); changed || err != nil {
		t.Fatalf("uninstall from no file: %v %v", changed, err)
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
		changed, err := InstallFileWithStatusLine(path, cairnHooks, isCairn, statusBase, isCairnStatus)
		if err != nil || changed != (i == 0) {
			t.Fatalf("install %d: changed %v, %v", i, changed, err)
		}
	}
	got, _ := os.ReadFile(path)
	if cmd := statusLineCommand(t, got); cmd != "cairn statusline --chain '~/sl.sh'" {
		t.Errorf("status line %q", cmd)
	}
	if hooks, _ := Installed(got, isCairn); len(hooks) != len(cairnHooks) {
		t.Errorf("hooks %v", hooks)
	}
	// One edit, one backup: the file as it was before both.
	if bak, _ := os.ReadFile(path + BackupSuffix); !bytes.Equal(bak, user) {
		t.Errorf("backup %q", bak)
	}
	// The status line alone, then the hooks alone.
	if changed, err := InstallFileWithStatusLine(path, nil, isCairn, "/opt/cairn statusline", isCairnStatus); !changed || err != nil {
		t.Fatalf("status line alone: %v %v", changed, err)
	}
	got, _ = os.ReadFile(path)
	if cmd := statusLineCommand(t, got); cmd != "/opt/cairn statusline --chain '~/sl.sh'" {
		t.Errorf("status line %q", cmd)
	}
	if changed, err := InstallFileWithStatusLine(path, cairnHooks, isCairn, "", isCairnStatus); changed || err != nil {
		t.Fatalf("hooks alone: %v %v", changed, err)
	}
	if changed, err := UninstallFileWithStatusLine(path, isCairn, isCairnStatus); !changed || err != nil {
		t.Fatalf("uninstall: %v %v", changed, err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, user) {
		t.Errorf("after uninstall:\n%s", got)
	}
}
