package git

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

func sh(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@e", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@e")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func TestRead(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed: ", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	dir := t.TempDir()
	sh(t, dir, "init", "-q", "-b", "feat/BILL-482")
	st, err := Read(ctx, dir)
	if err != nil || st.Branch != "feat/BILL-482" || st.Head != "" || st.Dirty() {
		t.Fatalf("empty repo: %+v %v", st, err)
	}
	os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.go"), []byte("package b\n"), 0o644)
	sh(t, dir, "add", ".")
	sh(t, dir, "commit", "-qm", "init")
	os.WriteFile(filepath.Join(dir, "a.go"), []byte("package a\n\nvar x = 1\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "new file.txt"), []byte("hi\n"), 0o644)
	sh(t, dir, "mv", "b.go", "c.go")

	st, err = Read(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	if st.Branch != "feat/BILL-482" || len(st.Head) != 12 {
		t.Errorf("branch %q head %q", st.Branch, st.Head)
	}
	want := map[string]string{"a.go": ".M", "c.go": "R.", "new file.txt": "??"}
	if len(st.Changes) != len(want) {
		t.Errorf("changes %+v, want %v", st.Changes, want)
	}
	for _, c := range st.Changes {
		if want[c.Path] != c.Code {
			t.Errorf("change %+v, want code %q", c, want[c.Path])
		}
	}
	if st.DiffStat == "" {
		t.Error("no diff stat")
	}
	sh(t, dir, "checkout", "-q", "--detach")
	if st, _ := Read(ctx, dir); st.Branch != "" {
		t.Errorf("detached: branch %q", st.Branch)
	}
}

func TestNotRepo(t *testing.T) {
	_, err := Read(context.Background(), t.TempDir())
	if !errors.Is(err, ErrNotRepo) {
		t.Errorf("err = %v, want ErrNotRepo", err)
	}
}

func TestTimeout(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Read(ctx, t.TempDir()); err == nil {
		t.Error("no error with a cancelled context")
	}
}

func TestIgnoredTracked(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	dir := t.TempDir()
	sh(t, dir, "init", "-q")
	const local = ".claude/settings.local.json"
	if ign, err := Ignored(ctx, dir, local); err != nil || ign {
		t.Errorf("fresh repository: ignored %v, %v", ign, err)
	}
	// The user's global excludes file, where Claude Code puts its rule.
	os.MkdirAll(filepath.Join(home, ".config", "git"), 0o755)
	os.WriteFile(filepath.Join(home, ".config", "git", "ignore"), []byte("**/.claude/settings.local.json\n"), 0o644)
	if ign, err := Ignored(ctx, dir, filepath.Join(dir, local)); err != nil || !ign {
		t.Errorf("globally excluded: ignored %v, %v", ign, err)
	}
	os.Remove(filepath.Join(home, ".config", "git", "ignore"))
	os.WriteFile(filepath.Join(dir, ".gitignore"), []byte(".claude/settings.local.json\n"), 0o644)
	if ign, err := Ignored(ctx, dir, local); err != nil || !ign {
		t.Errorf(".gitignore: ignored %v, %v", ign, err)
	}
	// A tracked file is not ignored, whatever the rules say.
	os.MkdirAll(filepath.Join(dir, ".claude"), 0o755)
	os.WriteFile(filepath.Join(dir, local), []byte("{}"), 0o644)
	if tr, err := Tracked(ctx, dir, local); err != nil || tr {
		t.Errorf("before git add: tracked %v, %v", tr, err)
	}
	sh(t, dir, "add", "-f", local)
	if tr, err := Tracked(ctx, dir, filepath.Join(dir, local)); err != nil || !tr {
		t.Errorf("after git add: tracked %v, %v", tr, err)
	}
	if ign, err := Ignored(ctx, dir, local); err != nil || ign {
		t.Errorf("tracked: ignored %v, %v", ign, err)
	}
	if _, err := Tracked(ctx, t.TempDir(), local); !errors.Is(err, ErrNotRepo) {
		t.Errorf("outside a repository: %v, want ErrNotRepo", err)
	}
	if _, err := Ignored(ctx, t.TempDir(), local); !errors.Is(err, ErrNotRepo) {
		t.Errorf("outside a repository: %v, want ErrNotRepo", err)
	}
}
