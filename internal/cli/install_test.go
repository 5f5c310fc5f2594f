package cli

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/hook"
)

func TestIsOurs(t *testing.T) {
	tests := map[string]bool{
		"/usr/local/bin/cairn hook PreCompact":               true,
		shellQuote("/home/me/my tools/cairn") + " hook Stop": true,
		shellQuote("/it's/cairn") + " hook SessionEnd":       true,
		"cairn hook UserPromptSubmit":                        true,
		"/bin/cairn hook Frobnicate":                         false,
		"/bin/cairn status":                                  false,
		"/bin/other hook PreCompact":                         false,
		"/bin/cairn hook PreCompact && rm -rf /":             false,
		"":                                                   false,
		"'unterminated/cairn hook PreCompact":                false,
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

// TestHookTimeouts: Claude Code's timeout for each hook cairn installs
// leaves clear headroom over cairn's own budget for the handler, so that a
// slow machine or a large payload still gets cairn's answer rather than a
// killed hook; and every event cairn handles is installed, and only those.
func TestHookTimeouts(t *testing.T) {
	for ev, budget := range hook.Events {
		secs, ok := hookTimeouts[ev]
		if !ok {
			t.Errorf("%s: cairn handles it but install does not wire it", ev)
			continue
		}
		timeout := time.Duration(secs) * time.Second
		if timeout < 2*budget || timeout < budget+3*time.Second {
			t.Errorf("%s: installed timeout %v, handler budget %v: want at least twice the budget and at least 3 s more", ev, timeout, budget)
		}
		if !slices.Contains(installOrder, ev) {
			t.Errorf("%s: missing from installOrder", ev)
		}
	}
	for ev := range hookTimeouts {
		if _, ok := hook.Events[ev]; !ok {
			t.Errorf("%s: install wires it but cairn has no handler", ev)
		}
	}
	for _, ev := range installOrder {
		if _, ok := hook.Events[ev]; !ok {
			t.Errorf("%s: in installOrder but cairn has no handler", ev)
		}
	}
	var events []string
	for _, h := range wanted("/usr/local/bin/cairn") {
		events = append(events, h.Event)
		if want := hookTimeouts[h.Event]; h.Timeout != want {
			t.Errorf("%s: wanted with timeout %d, the table says %d", h.Event, h.Timeout, want)
		}
	}
	if len(events) != len(hook.Events) {
		t.Errorf("install wires %v, cairn handles %d events", events, len(hook.Events))
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
