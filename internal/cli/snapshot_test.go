package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-agent/cairn/internal/git"
)

// snapRepo makes the test app's project a git repository with one commit,
// with the machine's git configuration out of the way.
func snapRepo(t *testing.T, a *App) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed: ", err)
	}
	for k, v := range map[string]string{
		"GIT_CONFIG_GLOBAL": os.DevNull, "GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@e",
	} {
		t.Setenv(k, v)
	}
	dir, _ := a.Getwd()
	// A temporary directory inside someone's repository must not count.
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(dir))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	snapGit(t, dir, "init", "-q", "-b", "main")
	snapWrite(t, dir, "main.go", "package main\n")
	snapWrite(t, dir, "old.txt", "old\n")
	snapWrite(t, dir, ".gitignore", "*.log\n")
	snapGit(t, dir, "add", ".")
	snapGit(t, dir, "commit", "-qm", "init")
	return dir
}

func snapGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func snapWrite(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// snapCall runs a command function and returns its output and error.
func snapCall(t *testing.T, a *App, out *bytes.Buffer, run func(context.Context, *App, []string) error, args ...string) (string, error) {
	t.Helper()
	out.Reset()
	err := run(context.Background(), a, args)
	return out.String(), err
}

func TestSnapshotCommands(t *testing.T) {
	a, out, _ := testApp(t, "short", "tool_heavy")
	dir := snapRepo(t, a)

	got, err := snapCall(t, a, out, runCmd("snapshot"))
	if err != nil || got != "nothing to snapshot: "+dir+" has no uncommitted changes\n" {
		t.Errorf("clean: %q %v", got, err)
	}
	if got, err := snapCall(t, a, out, runCmd("snapshot"), "--json"); err != nil || got != "null\n" {
		t.Errorf("clean --json: %q %v", got, err)
	}

	snapWrite(t, dir, "main.go", "package main\n\nfunc main() {}\n")
	snapWrite(t, dir, "new file.txt", "new\n")
	snapWrite(t, dir, "debug.log", "ignored\n")
	got, err = snapCall(t, a, out, runCmd("snapshot"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(got, "snapshot 1 of session short saved as refs/cairn/wip/short/1: 2 files changed, 3 insertions(+)\n") ||
		!strings.Contains(got, "cairn snapshot show 1 · put it back with: cairn snapshot restore 1") {
		t.Errorf("first snapshot:\n%s", got)
	}
	os.Remove(filepath.Join(dir, "old.txt"))
	got, err = snapCall(t, a, out, runCmd("snapshot"), "-m", "before the refactor")
	if err != nil || !strings.HasPrefix(got, "snapshot 2 of session short") {
		t.Fatalf("second snapshot: %q %v", got, err)
	}
	got, err = snapCall(t, a, out, runCmd("snapshot"), "--session", "tool_he", "--json")
	var s git.Snap
	if err != nil || json.Unmarshal([]byte(got), &s) != nil || s.Ref != "refs/cairn/wip/tool_heavy/1" {
		t.Fatalf("--session --json: %q %v", got, err)
	}
	want := snapFiles(t, dir)

	// The list of the latest session, newest first.
	got, err = snapCall(t, a, out, runCmd("snapshots"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(got), "\n")
	if len(lines) != 5 || lines[0] != "session short" ||
		!strings.HasPrefix(lines[2], "2 ") || !strings.Contains(lines[2], "3 files +3 -1") || !strings.HasSuffix(lines[2], "before the refactor") ||
		!strings.HasPrefix(lines[3], "1 ") || !strings.HasSuffix(lines[3], "cairn snapshot (manual)") {
		t.Errorf("snapshots:\n%s", got)
	}
	got, err = snapCall(t, a, out, runCmd("snapshots"), "--all", "--json")
	var all []git.Snap
	if err != nil || json.Unmarshal([]byte(got), &all) != nil || len(all) != 3 {
		t.Fatalf("--all --json: %v\n%s", err, got)
	}
	got, err = snapCall(t, a, out, runCmd("snapshots"), "--all")
	if err != nil || !strings.Contains(got, "\nshort/2 ") || !strings.Contains(got, "\ntool_hea/1 ") || !strings.Contains(got, "show SESSION/N") {
		t.Errorf("--all: %v\n%s", err, got)
	}
	if got, err := snapCall(t, a, out, runCmd("snapshots"), "--session", "tool_heavy"); err != nil || !strings.Contains(got, "session tool_heavy\n") {
		t.Errorf("--session: %v\n%s", err, got)
	}

	// show by number, SESSION/N and ref.
	for _, which := range []string{"1", "short/1", "sh/1", "refs/cairn/wip/short/1"} {
		got, err = snapCall(t, a, out, runCmd("snapshot"), "show", which)
		if err != nil || !strings.HasPrefix(got, "snapshot 1 of session short · refs/cairn/wip/short/1\n") ||
			!strings.Contains(got, "+func main() {}") || !strings.Contains(got, "+++ b/new file.txt") || strings.Contains(got, "debug.log") {
			t.Errorf("show %s: %v\n%s", which, err, got)
		}
	}
	if got, err := snapCall(t, a, out, runCmd("snapshot"), "show", "1", "--json"); err != nil || !strings.Contains(got, `"diff": "diff --git`) {
		t.Errorf("show --json: %v\n%s", err, got)
	}
	for _, which := range []string{"9", "short/9", "nope/1", "refs/cairn/wip/short/9"} {
		if _, err := snapCall(t, a, out, runCmd("snapshot"), "show", which); err == nil || !strings.Contains(err.Error(), "no snapshot") {
			t.Errorf("show %s: err = %v", which, err)
		}
	}

	// restore into a clean checkout, then again over its own result.
	snapGit(t, dir, "reset", "-q", "--hard")
	snapGit(t, dir, "clean", "-qf")
	got, err = snapCall(t, a, out, runCmd("snapshot"), "restore", "2")
	if err != nil || !strings.HasPrefix(got, "restored snapshot 2 of session short: 3 files changed") {
		t.Fatalf("restore: %v\n%s", err, got)
	}
	if diff := snapDiff(want, snapFiles(t, dir)); diff != "" {
		t.Errorf("restored files: %s", diff)
	}
	status := snapGit(t, dir, "status", "--porcelain")
	_, err = snapCall(t, a, out, runCmd("snapshot"), "restore", "2")
	var ce *git.ConflictError
	if !errors.As(err, &ce) {
		t.Fatalf("restore over local changes: err = %v, want a conflict", err)
	}
	var buf bytes.Buffer
	printError(&buf, err)
	if !strings.Contains(buf.String(), "cairn: error: restoring would overwrite uncommitted changes to main.go, new file.txt, old.txt\ncairn: hint: nothing was changed;") {
		t.Errorf("conflict message:\n%s", buf.String())
	}
	if snapGit(t, dir, "status", "--porcelain") != status {
		t.Error("a refused restore changed the work tree")
	}
}

func snapDiff(want, got map[string]string) string {
	var b strings.Builder
	for k, v := range want {
		if got[k] != v {
			b.WriteString("\n" + k + ": want " + v + " got " + got[k])
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			b.WriteString("\nextra " + k)
		}
	}
	return b.String()
}

func snapFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		m[e.Name()] = string(b)
	}
	return m
}

func TestSnapshotNotRepo(t *testing.T) {
	a, out, _ := testApp(t, "short")
	dir, _ := a.Getwd()
	t.Setenv("GIT_CEILING_DIRECTORIES", filepath.Dir(dir))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		run  func(context.Context, *App, []string) error
		args []string
	}{
		{runCmd("snapshot"), nil}, {runCmd("snapshot"), []string{"show", "1"}}, {runCmd("snapshot"), []string{"restore", "1"}},
		{runCmd("snapshots"), nil}, {runCmd("snapshots"), []string{"--all"}},
	} {
		_, err := snapCall(t, a, out, tt.run, tt.args...)
		var buf bytes.Buffer
		printError(&buf, err)
		want := "cairn: error: " + dir + " is not a git repository\ncairn: hint: snapshots keep uncommitted work in git: run cairn inside a git work tree (git init makes one)\n"
		if buf.String() != want {
			t.Errorf("%v: got\n%s", tt.args, buf.String())
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("files appeared in %s", dir)
	}
}

func TestSnapshotUsage(t *testing.T) {
	a, out, _ := testApp(t, "short")
	snapRepo(t, a)
	for _, args := range [][]string{
		{"show"}, {"restore", "1", "2"}, {"bogus"}, {"show", "x"}, {"show", "0"},
		{"--session", "a", "--transcript", "b"}, {"show", "short/1", "--session", "short"},
	} {
		_, err := snapCall(t, a, out, runCmd("snapshot"), args...)
		if !isUsage(err) {
			t.Errorf("%v: err = %v, want a usage error", args, err)
		}
	}
	if _, err := snapCall(t, a, out, runCmd("snapshots"), "--all", "--session", "x"); !isUsage(err) {
		t.Errorf("--all --session: err = %v", err)
	}
}

func TestSnapshotsNoSession(t *testing.T) {
	a, out, _ := testApp(t)
	snapRepo(t, a)
	_, err := snapCall(t, a, out, runCmd("snapshots"))
	var buf bytes.Buffer
	printError(&buf, err)
	if !strings.Contains(buf.String(), "cairn: error: no session of Claude Code, Codex CLI or Gemini CLI found") || !strings.Contains(buf.String(), "cairn snapshots --all lists every session's snapshots") {
		t.Errorf("got\n%s", buf.String())
	}
	if got, err := snapCall(t, a, out, runCmd("snapshots"), "--all"); err != nil || !strings.HasPrefix(got, "no snapshots yet in ") {
		t.Errorf("--all: %q %v", got, err)
	}
}
