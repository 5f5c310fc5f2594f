package install

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-agent/cairn/internal/claudecode"
	"github.com/cairn-agent/cairn/internal/shell"
)

func TestIsOurs(t *testing.T) {
	tests := map[string]bool{
		"/usr/local/bin/cairn hook PreCompact":                true,
		shell.Quote("/home/me/my tools/cairn") + " hook Stop": true,
		shell.Quote("/it's/cairn") + " hook SessionEnd":       true,
		"cairn hook UserPromptSubmit":                         true,
		"/bin/cairn hook Frobnicate":                          false,
		"/bin/cairn status":                                   false,
		"/bin/other hook PreCompact":                          false,
		"/bin/cairn hook PreCompact && rm -rf /":              false,
		"":                                                    false,
		"'unterminated/cairn hook PreCompact":                 false,
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
		if ev := claudecode.Events[i]; h.Event != ev.Name || h.Timeout != ev.Timeout || h.Command != "/usr/local/bin/cairn hook "+ev.Name {
			t.Errorf("wired %+v for %+v", h, ev)
		}
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
