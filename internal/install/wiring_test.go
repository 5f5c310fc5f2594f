package install

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/claudecode"
	"github.com/cairn-agent/cairn/internal/shell"
	"github.com/cairn-agent/cairn/internal/sqlite"
	"github.com/google/go-cmp/cmp"
)

func TestIsOurs(t *testing.T) {
	tests := map[string]bool{
		"/usr/local/bin/cairn hook PreCompact":                 true,
		shell.Quote("/home/me/my tools/cairn") + " hook Stop":  true,
		shell.Quote("/it's/cairn") + " hook SessionEnd":        true,
		"cairn hook UserPromptSubmit":                          true,
		"/bin/cairn hook Frobnicate":                           false,
		"/bin/cairn status":                                    false,
		"/bin/other hook PreCompact":                           false,
		"/bin/cairn hook PreCompact && rm -rf /":               false,
		"":                                                     false,
		"'unterminated/cairn hook PreCompact":                  false,
		"GOMAXPROCS=1 /usr/local/bin/cairn hook PostToolUse":   true,
		"GOMAXPROCS=1 cairn hook PreCompact":                   true,
		"GOMAXPROCS=1 /bin/other hook PostToolUse":             false,
		"GOMAXPROCS=1 /bin/cairn hook PostToolUse && rm -rf /": false,
		"GOMAXPROCS=2 /bin/cairn hook PostToolUse":             false,
	}
	for cmd, want := range tests {
		if got := isOurs(cmd); got != want {
			t.Errorf("isOurs(%q) = %v, want %v", cmd, got, want)
		}
	}
	for _, h := range wanted("/opt/my tools/cairn") {
		if !isOurs(h.Command) {
			t.Errorf("our own command %q is not recognised", h.Command)
		}
	}
}

// TestWiredEvents: install wires every event cairn handles, once, with
// the table's timeout (the table's own test checks the timeouts leave
// headroom over the budgets).
func TestWiredEvents(t *testing.T) {
	hs := wanted("/usr/local/bin/cairn")
	if len(hs) != len(claudecode.Events) {
		t.Fatalf("install wires %d events, cairn handles %d", len(hs), len(claudecode.Events))
	}
	for i, h := range hs {
		if ev := claudecode.Events[i]; h.Event != ev.Name || h.Timeout != ev.Timeout || h.Command != ev.Env()+"/usr/local/bin/cairn hook "+ev.Name {
			t.Errorf("wired %+v for %+v", h, ev)
		}
	}
	// The hooks of every turn run with one CPU, the others as the
	// runtime chooses (PreCompact's first run reads in parallel).
	for _, name := range []string{"UserPromptSubmit", "PostToolUse"} {
		if ev, _ := claudecode.Events.Lookup(name); !ev.OneCPU {
			t.Errorf("%s does not run with one CPU", name)
		}
	}
	for _, name := range []string{"PreCompact", "SessionStart"} {
		if ev, _ := claudecode.Events.Lookup(name); ev.OneCPU {
			t.Errorf("%s runs with one CPU", name)
		}
	}
}

// TestInstallUpgradesOneCPU: an install made before the hooks of every
// turn ran with one CPU is brought to the new commands in place (the
// same entries, none added), oursFor recognises both forms for the
// running binary, and uninstall still gives the files back byte for byte
// as they were before the first install.
func TestInstallUpgradesOneCPU(t *testing.T) {
	s, out := testSetup(t)
	local := filepath.Join(s.Root, ".claude", "settings.local.json")
	write(t, local, "{\n\t\"permissions\": {\"allow\": [\"Read\"]}\n}")
	before := files(t, s.Root)

	events := claudecode.Events
	t.Cleanup(func() { claudecode.Events = events })
	old := slices.Clone(events)
	for i := range old {
		old[i].OneCPU = false
	}
	claudecode.Events = old
	if err := s.Install(false, false); err != nil {
		t.Fatal(err)
	}
	installedOld := readString(t, local)
	claudecode.Events = events
	// (The status line, which the old table does not set, is in its
	// current form already: TestInstallUpgradesStatusLine upgrades it.)
	if strings.Contains(installedOld, "GOMAXPROCS=1 "+shell.Quote(s.Exe)+" hook") {
		t.Fatalf("the old install has the new commands:\n%s", installedOld)
	}
	// cairn doctor tells the user to run install again.
	d := Doctor{Setup: s, StateDir: filepath.Join(s.DataDir, "state"), Fallback: filepath.Join(s.DataDir, "tmp"), DBPath: filepath.Join(s.DataDir, "cairn.db"),
		DB:  func(context.Context) (*sqlite.DB, error) { return nil, os.ErrNotExist },
		Now: time.Now, Loc: time.UTC}
	wiringFinding := func(status string) string {
		var b strings.Builder
		for _, f := range d.Check(context.Background()).Findings {
			if f.Agent == "claude-code" && f.Section == Wiring && f.Status == status && strings.Contains(f.Text, local) {
				b.WriteString(f.Text + "\n")
			}
		}
		return b.String()
	}
	if p := wiringFinding(Problem); !strings.Contains(p, "UserPromptSubmit runs") || !strings.Contains(p, "PostToolUse runs") || strings.Contains(p, "PreCompact runs") {
		t.Errorf("doctor on the old install:\n%s", p)
	}

	out.Reset()
	if err := s.Install(false, false); err != nil {
		t.Fatal(err)
	}
	upgraded := readString(t, local)
	for _, ev := range events {
		cmd := strconv.Quote(ev.Env() + shell.Quote(s.Exe) + " hook " + ev.Name)
		if n := strings.Count(upgraded, cmd); n != 1 {
			t.Errorf("%s: %d entries run %s:\n%s", ev.Name, n, cmd, upgraded)
		}
	}
	// In place: the file is the old one with the hot hooks' commands
	// prefixed, and nothing else changed.
	want := installedOld
	for _, name := range []string{"UserPromptSubmit", "PostToolUse"} {
		cmd := shell.Quote(s.Exe) + " hook " + name
		want = strings.Replace(want, strconv.Quote(cmd), strconv.Quote("GOMAXPROCS=1 "+cmd), 1)
	}
	if upgraded != want {
		t.Errorf("the upgrade did more than prefix the commands:\n%s\nwant\n%s", upgraded, want)
	}
	ours := oursFor(s.Exe)
	for _, c := range []string{shell.Quote(s.Exe) + " hook PostToolUse", "GOMAXPROCS=1 " + shell.Quote(s.Exe) + " hook PostToolUse"} {
		if !ours(c) {
			t.Errorf("oursFor(%q) does not recognise %q", s.Exe, c)
		}
	}

	if ok := wiringFinding(OK); !strings.Contains(ok, "wired to "+s.Exe) {
		t.Errorf("doctor on the upgraded install: %q, problems %q", ok, wiringFinding(Problem))
	}
	out.Reset()
	if err := s.Install(false, false); err != nil || !strings.Contains(out.String(), "nothing changed") {
		t.Errorf("a second install after the upgrade: %v\n%s", err, out)
	}
	if err := s.Uninstall(false); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, files(t, s.Root)); diff != "" {
		t.Errorf("the project after install, upgrade and uninstall (-before +after):\n%s", diff)
	}
}

// TestLookPath: the slash commands call cairn from PATH; install and
// doctor find which one that is, as the shell would.
func TestLookPath(t *testing.T) {
	dir := t.TempDir()
	noexec, bin, link := filepath.Join(dir, "noexec"), filepath.Join(dir, "bin"), filepath.Join(dir, "link")
	for _, d := range []string{noexec, bin, link} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(filepath.Join(noexec, "cairn"), []byte("#!/bin/sh\n"), 0o644)
	os.WriteFile(filepath.Join(bin, "cairn"), []byte("#!/bin/sh\n"), 0o755)
	if err := os.Symlink(filepath.Join(bin, "cairn"), filepath.Join(link, "cairn")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	sep := string(filepath.ListSeparator)
	for _, tt := range []struct{ path, want string }{
		{"", ""},
		{noexec, ""},
		{"relative" + sep + noexec + sep + bin, filepath.Join(bin, "cairn")},
		{link + sep + bin, filepath.Join(bin, "cairn")},
		{filepath.Join(dir, "missing"), ""},
	} {
		if got := lookPath(tt.path, "cairn"); got != tt.want {
			t.Errorf("lookPath(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
}

// TestInstallUpgradesStatusLine: the status line runs with one CPU, as
// the hooks of every turn do. An older install's status line (without the
// variable, or of a binary that has moved) is brought to statusLine in
// place, the user's command it chains kept; one the user chose by hand
// (cairn from PATH) or the current one is left alone; a second install
// changes nothing; uninstall gives the file back byte for byte.
func TestInstallUpgradesStatusLine(t *testing.T) {
	tests := []struct {
		name, was string
		want      func(exe string) string
	}{
		{"old install, chaining the user's", "EXE statusline --chain 'echo mine'",
			func(exe string) string { return "GOMAXPROCS=1 " + exe + " statusline --chain 'echo mine'" }},
		{"old install", "EXE statusline",
			func(exe string) string { return "GOMAXPROCS=1 " + exe + " statusline" }},
		{"moved binary, current form", "GOMAXPROCS=1 /old/bin/cairn statusline --chain 'echo mine'",
			func(exe string) string { return "GOMAXPROCS=1 " + exe + " statusline --chain 'echo mine'" }},
		{"current", "GOMAXPROCS=1 EXE statusline --chain 'echo mine'",
			func(exe string) string { return "GOMAXPROCS=1 " + exe + " statusline --chain 'echo mine'" }},
		{"by hand, from PATH", "cairn statusline",
			func(string) string { return "cairn statusline" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, out := testSetup(t)
			exe := shell.Quote(s.Exe)
			local := filepath.Join(s.Root, ".claude", "settings.local.json")
			was := strings.ReplaceAll(tt.was, "EXE", exe)
			write(t, local, "{\n  \"statusLine\": {\"type\": \"command\", \"command\": "+strconv.Quote(was)+", \"padding\": 1}\n}\n")
			before := files(t, s.Root)
			if err := s.Install(false, false); err != nil {
				t.Fatal(err)
			}
			got, err := statusLineOf(local)
			if want := tt.want(exe); err != nil || got != want {
				t.Errorf("status line after install: %q (%v), want %q", got, err, want)
			}
			if !strings.Contains(readString(t, local), `"padding": 1`) {
				t.Errorf("install changed the rest of the statusLine object:\n%s", readString(t, local))
			}
			out.Reset()
			if err := s.Install(false, false); err != nil || !strings.Contains(out.String(), "nothing changed") {
				t.Errorf("a second install: %v\n%s", err, out)
			}
			if err := s.Uninstall(false); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(before, files(t, s.Root)); diff != "" {
				t.Errorf("the project after install and uninstall (-before +after):\n%s", diff)
			}
		})
	}
	ours := statusLineOurs("/bin/cairn")
	for c, want := range map[string]bool{
		"/bin/cairn statusline":                     true,
		"GOMAXPROCS=1 /bin/cairn statusline":        true,
		"GOMAXPROCS=1 cairn statusline --chain 'x'": true,
		"GOMAXPROCS=1 /bin/other statusline":        false,
		"GOMAXPROCS=1 /bin/cairn status":            false,
		"GOMAXPROCS=1":                              false,
	} {
		if got := ours(c); got != want {
			t.Errorf("statusLineOurs(%q) = %v, want %v", c, got, want)
		}
	}
}
