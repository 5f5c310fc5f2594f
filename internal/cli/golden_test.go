package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/golden"

	"github.com/cairn-agent/cairn/internal/claudecode"
	"github.com/cairn-agent/cairn/internal/fixtures"
)

// testApp runs commands in-process with a fixed clock, time zone and
// environment, inside a project that holds the given fixture sessions.
func testApp(t *testing.T, sessions ...string) (*App, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	work := t.TempDir()
	fx, err := fixtures.Extract(filepath.Join(work, "fixtures"))
	if err != nil {
		t.Fatal(err)
	}
	project := filepath.Join(work, "proj")
	envv := map[string]string{
		"HOME":              filepath.Join(work, "home"),
		"CLAUDE_CONFIG_DIR": filepath.Join(work, "claude"),
		"XDG_STATE_HOME":    filepath.Join(work, "state"),
		"FIXTURES":          fx,
	}
	dir := filepath.Join(envv["CLAUDE_CONFIG_DIR"], "projects", claudecode.ProjectKey(project))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, name := range sessions {
		data, err := os.ReadFile(filepath.Join(fx, name+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, name+".jsonl")
		os.WriteFile(dst, data, 0o644)
		when := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC).Add(-time.Duration(i) * time.Hour)
		os.Chtimes(dst, when, when)
		if _, err := os.Stat(filepath.Join(fx, name)); err == nil {
			os.CopyFS(filepath.Join(dir, name), os.DirFS(filepath.Join(fx, name)))
		}
	}
	var out, errb bytes.Buffer
	return &App{
		Stdin: bytes.NewReader(nil), Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string { return envv[k] },
		Getwd:  func() (string, error) { return project, nil },
		Now:    func() time.Time { return time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC) },
		Loc:    time.UTC,
	}, &out, &errb
}

func TestGolden(t *testing.T) {
	tests := []struct {
		name     string
		sessions []string
		args     []string
	}{
		{"status-manual.txt", []string{"ae4a77f8-aedd-4bc1-888f-c94edc91af04"}, []string{"status"}},
		{"status-auto.txt", []string{"4d5611e5-241a-462a-8d15-5122611a9569"}, []string{"status"}},
		{"status-short.txt", []string{"short"}, []string{"status"}},
		{"status-1m-window.txt", []string{"short"}, []string{"status", "--window", "1000000"}},
		{"report-auto.txt", []string{"fa812bfe-b295-4cca-9c2f-fdf01028cb46"}, []string{"report", "fa812bfe"}},
		{"report-tool-heavy.txt", []string{"tool_heavy"}, []string{"report", "tool_heavy"}},
		{"sessions.txt", []string{"258c7280-ae70-4798-800f-63464d01a85d", "8463c716-a2ea-4c14-9efa-87158ebd9f20", "subagent"}, []string{"sessions"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, out, errb := testApp(t, tt.sessions...)
			if code := Run(context.Background(), tt.args, a); code != 0 {
				t.Fatalf("exit %d: %s", code, errb)
			}
			if errb.Len() > 0 {
				t.Errorf("stderr: %s", errb)
			}
			golden.Check(t, filepath.Join("testdata", "golden", tt.name), out.Bytes())
			// A second run answers from saved state and must say the same.
			out.Reset()
			Run(context.Background(), tt.args, a)
			golden.Check(t, filepath.Join("testdata", "golden", tt.name), out.Bytes())
		})
	}
}

// runCmd is the command name as cairn runs it, its flags parsed and its
// usage errors ending with its usage.
func runCmd(name string) func(context.Context, *App, []string) error {
	return func(ctx context.Context, a *App, args []string) error {
		return a.run(ctx, append([]string{name}, args...))
	}
}
