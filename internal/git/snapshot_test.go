package git

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// hermetic makes the git processes, the package's own included, ignore the
// machine's configuration and commit as a fixed identity.
func hermetic(t *testing.T) context.Context {
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
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// out runs git in dir and returns its standard output.
func out(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"--no-optional-locks"}, args...)...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, stderr.String())
	}
	return string(b)
}

func write(t *testing.T, dir, name string, data []byte) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// files reads every file of the work tree outside .git.
func files(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Name() == ".git" {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			m[filepath.ToSlash(rel)] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// repoState is everything a snapshot must leave alone.
type repoState struct {
	Files      map[string]string
	Status     string
	Cached     string
	Index      string // hash and modification time of .git/index
	Head       string
	HeadLog    string
	Stash      string
	OtherRefs  string
	GitEntries string // the names at the top of .git, less objects and refs
}

func stateOf(t *testing.T, dir string) repoState {
	t.Helper()
	s := repoState{
		Files:  files(t, dir),
		Status: out(t, dir, "status", "--porcelain", "--untracked-files=all"),
		Cached: out(t, dir, "diff", "--cached", "--binary"),
		Stash:  out(t, dir, "stash", "list"),
		Head:   out(t, dir, "symbolic-ref", "HEAD") + strings.TrimSpace(tryOut(dir, "rev-parse", "-q", "--verify", "HEAD")),
	}
	refs := out(t, dir, "for-each-ref", "--format=%(refname) %(objectname)")
	for _, l := range strings.Split(refs, "\n") {
		if !strings.HasPrefix(l, RefPrefix) {
			s.OtherRefs += l + "\n"
		}
	}
	if b, err := os.ReadFile(filepath.Join(dir, ".git", "index")); err == nil {
		fi, _ := os.Stat(filepath.Join(dir, ".git", "index"))
		s.Index = fmt.Sprintf("%x %v", sha256.Sum256(b), fi.ModTime().UnixNano())
	}
	if b, err := os.ReadFile(filepath.Join(dir, ".git", "logs", "HEAD")); err == nil {
		s.HeadLog = string(b)
	}
	ents, _ := os.ReadDir(filepath.Join(dir, ".git"))
	for _, e := range ents {
		if e.Name() != "objects" && e.Name() != "refs" {
			s.GitEntries += e.Name() + " "
		}
	}
	return s
}

func tryOut(dir string, args ...string) string {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	b, _ := cmd.Output()
	return string(b)
}

var binary = func() []byte {
	b := make([]byte, 512)
	for i := range b {
		b[i] = byte(i * 7)
	}
	return b
}()

// fixture is a repository with one commit, then modified, deleted,
// untracked, ignored, oddly named and binary files.
func fixture(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	sh(t, dir, "init", "-q", "-b", "main")
	write(t, dir, "a.go", []byte("package a\n"))
	write(t, dir, "gone.txt", []byte("to be deleted\n"))
	write(t, dir, "keep.txt", []byte("unchanged\n"))
	write(t, dir, "img.bin", binary[:100])
	write(t, dir, ".gitignore", []byte("*.log\nbuild/\n"))
	sh(t, dir, "add", ".")
	sh(t, dir, "commit", "-qm", "init")

	write(t, dir, "a.go", []byte("package a\n\nvar x = 1\n"))
	os.Remove(filepath.Join(dir, "gone.txt"))
	write(t, dir, "img.bin", binary)
	write(t, dir, "new.txt", []byte("untracked\n"))
	write(t, dir, "dir with space/naïve файл ✓.txt", []byte("unicode\n"))
	write(t, dir, "raw.dat", binary[3:])
	write(t, dir, "debug.log", []byte("ignored\n"))
	write(t, dir, "build/out.o", []byte("ignored too\n"))
	// Something staged too: the index must keep it staged.
	write(t, dir, "staged.txt", []byte("staged\n"))
	sh(t, dir, "add", "staged.txt")
	return dir
}

func TestSnapshot(t *testing.T) {
	ctx := hermetic(t)
	dir := fixture(t)
	before := stateOf(t, dir)

	s, err := Snapshot(ctx, dir, "ae4a77f8-aedd", "cairn snapshot at L2")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, stateOf(t, dir)); diff != "" {
		t.Errorf("the snapshot changed the repository (-before +after):\n%s", diff)
	}
	head := strings.TrimSpace(out(t, dir, "rev-parse", "HEAD"))
	if s.Ref != "refs/cairn/wip/ae4a77f8-aedd/1" || s.Number != 1 || s.Session != "ae4a77f8-aedd" ||
		s.Parent != head || s.Message != "cairn snapshot at L2" || len(s.Commit) != 40 || s.Time.IsZero() {
		t.Errorf("snap = %+v", s)
	}
	if !strings.Contains(s.DiffStat, "7 files changed") {
		t.Errorf("diff stat %q, want 7 files", s.DiffStat)
	}
	if got := strings.TrimSpace(out(t, dir, "rev-parse", s.Ref)); got != s.Commit {
		t.Errorf("ref at %s, want %s", got, s.Commit)
	}
	if got := strings.TrimSpace(out(t, dir, "rev-parse", s.Ref+"^")); got != head {
		t.Errorf("parent %s, want HEAD %s", got, head)
	}
	tree := strings.Split(strings.TrimRight(out(t, dir, "-c", "core.quotePath=false", "ls-tree", "-r", "--name-only", s.Ref), "\n"), "\n")
	want := []string{".gitignore", "a.go", "dir with space/naïve файл ✓.txt", "img.bin", "keep.txt", "new.txt", "raw.dat", "staged.txt"}
	if diff := cmp.Diff(want, tree); diff != "" {
		t.Errorf("snapshot tree (-want +got):\n%s", diff)
	}
	for _, name := range want {
		if got := out(t, dir, "cat-file", "blob", s.Ref+":"+name); got != before.Files[name] {
			t.Errorf("%s in the snapshot differs from the work tree", name)
		}
	}
	if out(t, dir, "stash", "list") != "" {
		t.Error("a stash entry appeared")
	}
}

func TestSnapshotNumbering(t *testing.T) {
	ctx := hermetic(t)
	dir := fixture(t)
	for i := 1; i <= 3; i++ {
		write(t, dir, "a.go", fmt.Appendf(nil, "package a\n\nvar x = %d\n", i))
		s, err := Snapshot(ctx, dir, "one", fmt.Sprint("take ", i))
		if err != nil {
			t.Fatal(err)
		}
		if s.Number != i || s.Ref != fmt.Sprintf("refs/cairn/wip/one/%d", i) {
			t.Errorf("snapshot %d: %+v", i, s)
		}
	}
	if s, err := Snapshot(ctx, dir, "two", "other"); err != nil || s.Number != 1 {
		t.Fatalf("second session: %+v %v", s, err)
	}
	one, err := Snapshots(ctx, dir, "one")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range one {
		got = append(got, fmt.Sprintf("%s/%d %s", s.Session, s.Number, s.Message))
		if s.DiffStat == "" {
			t.Errorf("%s: no diff stat", s.Ref)
		}
	}
	if diff := cmp.Diff([]string{"one/3 take 3", "one/2 take 2", "one/1 take 1"}, got); diff != "" {
		t.Errorf("Snapshots(one), newest first (-want +got):\n%s", diff)
	}
	all, err := Snapshots(ctx, dir, "")
	if err != nil || len(all) != 4 {
		t.Fatalf("all sessions: %d snapshots, %v", len(all), err)
	}
	if none, err := Snapshots(ctx, dir, "three"); err != nil || len(none) != 0 {
		t.Errorf("unknown session: %v %v", none, err)
	}
}

func TestSnapshotSanitisesSession(t *testing.T) {
	ctx := hermetic(t)
	dir := fixture(t)
	for _, session := range []string{"../../x y.lock", "", "a~b^c:d?e*f[g\\h@{i}"} {
		s, err := Snapshot(ctx, dir, session, "m")
		if err != nil {
			t.Fatalf("%q: %v", session, err)
		}
		if _, err := exec.Command("git", "check-ref-format", s.Ref).Output(); err != nil {
			t.Errorf("%q gave the invalid ref %q", session, s.Ref)
		}
		if session == "" {
			continue // Snapshots(ctx, dir, "") lists every session
		}
		if ss, err := Snapshots(ctx, dir, session); err != nil || len(ss) == 0 || ss[0].Ref != s.Ref {
			t.Errorf("%q: Snapshots finds %v, %v; want %s", session, ss, err, s.Ref)
		}
	}
}

func TestSnapshotClean(t *testing.T) {
	ctx := hermetic(t)
	dir := t.TempDir()
	sh(t, dir, "init", "-q", "-b", "main")
	if _, err := Snapshot(ctx, dir, "s", "m"); !errors.Is(err, ErrClean) {
		t.Errorf("empty repository: err = %v, want ErrClean", err)
	}
	write(t, dir, "a.txt", []byte("a\n"))
	write(t, dir, ".gitignore", []byte("*.log\n"))
	sh(t, dir, "add", ".")
	sh(t, dir, "commit", "-qm", "init")
	write(t, dir, "only.log", []byte("ignored\n"))
	if _, err := Snapshot(ctx, dir, "s", "m"); !errors.Is(err, ErrClean) {
		t.Errorf("clean tree: err = %v, want ErrClean", err)
	}
	// Staged and then undone in the work tree: still nothing to record.
	write(t, dir, "a.txt", []byte("b\n"))
	sh(t, dir, "add", "a.txt")
	write(t, dir, "a.txt", []byte("a\n"))
	if _, err := Snapshot(ctx, dir, "s", "m"); !errors.Is(err, ErrClean) {
		t.Errorf("work tree as HEAD: err = %v, want ErrClean", err)
	}
	if refs := out(t, dir, "for-each-ref", "refs/cairn"); refs != "" {
		t.Errorf("refs created: %s", refs)
	}
}

func TestSnapshotWithoutCommits(t *testing.T) {
	ctx := hermetic(t)
	dir := t.TempDir()
	sh(t, dir, "init", "-q", "-b", "main")
	write(t, dir, "a.txt", []byte("first\n"))
	write(t, dir, "x.log", []byte("ignored\n"))
	write(t, dir, ".gitignore", []byte("*.log\n"))
	before := stateOf(t, dir)
	s, err := Snapshot(ctx, dir, "s", "m")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, stateOf(t, dir)); diff != "" {
		t.Errorf("the snapshot changed the repository (-before +after):\n%s", diff)
	}
	if s.Parent != "" || s.Number != 1 || !strings.Contains(s.DiffStat, "2 files changed") {
		t.Errorf("snap = %+v", s)
	}
	d, err := ShowSnapshot(ctx, dir, s.Ref)
	if err != nil || !strings.Contains(d, "+++ b/a.txt") || strings.Contains(d, "x.log") {
		t.Errorf("show: %v\n%s", err, d)
	}
	os.Remove(filepath.Join(dir, "a.txt"))
	os.Remove(filepath.Join(dir, ".gitignore"))
	if err := RestoreSnapshot(ctx, dir, s.Ref); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before.Files, files(t, dir)); diff != "" {
		t.Errorf("restored files (-want +got):\n%s", diff)
	}
}

func TestShowSnapshot(t *testing.T) {
	ctx := hermetic(t)
	dir := fixture(t)
	s, err := Snapshot(ctx, dir, "s", "m")
	if err != nil {
		t.Fatal(err)
	}
	d, err := ShowSnapshot(ctx, dir, s.Ref)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"+var x = 1", "deleted file mode", "+++ b/new.txt", "Binary files", "b/raw.dat"} {
		if !strings.Contains(d, want) {
			t.Errorf("diff lacks %q:\n%s", want, d)
		}
	}
	if strings.Contains(d, "debug.log") || strings.Contains(d, "build/") {
		t.Errorf("diff shows ignored files:\n%s", d)
	}
	for _, ref := range []string{"refs/cairn/wip/s/9", "refs/heads/main", "HEAD", "s/1"} {
		if _, err := ShowSnapshot(ctx, dir, ref); !errors.Is(err, ErrNoSnapshot) {
			t.Errorf("%s: err = %v, want ErrNoSnapshot", ref, err)
		}
	}
}

func TestRestoreSnapshot(t *testing.T) {
	ctx := hermetic(t)
	dir := fixture(t)
	want := files(t, dir)
	s, err := Snapshot(ctx, dir, "s", "m")
	if err != nil {
		t.Fatal(err)
	}
	// Back to a clean checkout; ignored files stay, as they would.
	sh(t, dir, "reset", "-q", "--hard")
	sh(t, dir, "clean", "-qfd")
	if _, err := os.Stat(filepath.Join(dir, "new.txt")); err == nil {
		t.Fatal("clean left new.txt")
	}
	before := stateOf(t, dir)
	if err := RestoreSnapshot(ctx, dir, s.Ref); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, files(t, dir)); diff != "" {
		t.Errorf("restored work tree (-want +got):\n%s", diff)
	}
	after := stateOf(t, dir)
	if after.Cached != before.Cached || after.Index != before.Index || after.Head != before.Head || after.Stash != before.Stash {
		t.Errorf("restore touched the index, HEAD or the stash")
	}
	// The restored work is unstaged: staged.txt comes back untracked.
	if !strings.Contains(after.Status, "?? staged.txt") || !strings.Contains(after.Status, " D gone.txt") {
		t.Errorf("status after restore:\n%s", after.Status)
	}
}

func TestRestoreRefuses(t *testing.T) {
	ctx := hermetic(t)
	dir := fixture(t)
	s, err := Snapshot(ctx, dir, "s", "m")
	if err != nil {
		t.Fatal(err)
	}
	sh(t, dir, "reset", "-q", "--hard")
	sh(t, dir, "clean", "-qfd")
	write(t, dir, "a.go", []byte("package a // local edit\n"))          // modified locally
	write(t, dir, "new.txt", []byte("a local file of the same name\n")) // untracked locally
	write(t, dir, "other.txt", []byte("unrelated\n"))                   // no clash
	before := stateOf(t, dir)
	err = RestoreSnapshot(ctx, dir, s.Ref)
	var ce *ConflictError
	if !errors.As(err, &ce) {
		t.Fatalf("err = %v, want a ConflictError", err)
	}
	if diff := cmp.Diff([]string{"a.go", "new.txt"}, ce.Paths); diff != "" {
		t.Errorf("conflicting paths (-want +got):\n%s", diff)
	}
	if !strings.Contains(err.Error(), "a.go, new.txt") {
		t.Errorf("message %q", err)
	}
	if diff := cmp.Diff(before, stateOf(t, dir)); diff != "" {
		t.Errorf("a refused restore changed the repository (-before +after):\n%s", diff)
	}

	// Changes elsewhere do not stop a restore.
	os.Remove(filepath.Join(dir, "new.txt"))
	sh(t, dir, "checkout", "-q", "--", "a.go")
	if err := RestoreSnapshot(ctx, dir, s.Ref); err != nil {
		t.Fatalf("with unrelated local changes: %v", err)
	}
	if got := files(t, dir)["other.txt"]; got != "unrelated\n" {
		t.Errorf("other.txt = %q", got)
	}
}

func TestRestoreDoesNotFit(t *testing.T) {
	ctx := hermetic(t)
	dir := fixture(t)
	s, err := Snapshot(ctx, dir, "s", "m")
	if err != nil {
		t.Fatal(err)
	}
	sh(t, dir, "reset", "-q", "--hard")
	sh(t, dir, "clean", "-qfd")
	// HEAD moves on and rewrites the line the snapshot changed.
	write(t, dir, "a.go", []byte("package b\n"))
	sh(t, dir, "commit", "-qam", "rename package")
	before := stateOf(t, dir)
	err = RestoreSnapshot(ctx, dir, s.Ref)
	if err == nil || !strings.Contains(err.Error(), "a.go") {
		t.Errorf("err = %v, want git apply's complaint about a.go", err)
	}
	if diff := cmp.Diff(before, stateOf(t, dir)); diff != "" {
		t.Errorf("a failed restore changed the repository (-before +after):\n%s", diff)
	}
}

func TestWIPCommit(t *testing.T) {
	ctx := hermetic(t)
	dir := fixture(t)
	sha, err := WIPCommit(ctx, dir, "ANV-123")
	if err != nil {
		t.Fatal(err)
	}
	if head := strings.TrimSpace(out(t, dir, "rev-parse", "HEAD")); head != sha {
		t.Errorf("sha %s, HEAD %s", sha, head)
	}
	if msg := out(t, dir, "log", "-1", "--format=%B"); strings.TrimSpace(msg) != "[WIP] ANV-123 - checkpoint" {
		t.Errorf("message %q", msg)
	}
	if st := out(t, dir, "status", "--porcelain"); st != "" {
		t.Errorf("not clean after the commit:\n%s", st)
	}
	if tree := out(t, dir, "ls-tree", "-r", "--name-only", "HEAD"); strings.Contains(tree, ".log") || strings.Contains(tree, "build/") {
		t.Errorf("ignored files committed:\n%s", tree)
	}
	if _, err := WIPCommit(ctx, dir, "ANV-123"); !errors.Is(err, ErrClean) {
		t.Errorf("clean: err = %v, want ErrClean", err)
	}

	write(t, dir, "b.txt", []byte("b\n"))
	if _, err := WIPCommit(ctx, dir, " "); err != nil {
		t.Fatal(err)
	}
	if msg := out(t, dir, "log", "-1", "--format=%s"); strings.TrimSpace(msg) != "[WIP] checkpoint" {
		t.Errorf("message without a ticket %q", msg)
	}

	// The hooks run: a pre-commit hook can refuse.
	write(t, dir, ".git/hooks/pre-commit", []byte("#!/bin/sh\necho no WIP here >&2\nexit 1\n"))
	os.Chmod(filepath.Join(dir, ".git/hooks/pre-commit"), 0o755)
	head := out(t, dir, "rev-parse", "HEAD")
	write(t, dir, "c.txt", []byte("c\n"))
	if _, err := WIPCommit(ctx, dir, ""); err == nil || !strings.Contains(err.Error(), "no WIP here") {
		t.Errorf("err = %v, want the hook's refusal", err)
	}
	if out(t, dir, "rev-parse", "HEAD") != head {
		t.Error("committed despite the hook")
	}
}

func TestWIPCommitWithoutCommits(t *testing.T) {
	ctx := hermetic(t)
	dir := t.TempDir()
	sh(t, dir, "init", "-q", "-b", "main")
	if _, err := WIPCommit(ctx, dir, ""); !errors.Is(err, ErrClean) {
		t.Errorf("empty: err = %v, want ErrClean", err)
	}
	write(t, dir, "a.txt", []byte("a\n"))
	if _, err := WIPCommit(ctx, dir, "X-1"); err != nil {
		t.Fatal(err)
	}
}

func TestSnapshotOutsideRepo(t *testing.T) {
	ctx := hermetic(t)
	dir := t.TempDir()
	write(t, dir, "a.txt", []byte("a\n"))
	_, err1 := Snapshot(ctx, dir, "s", "m")
	_, err2 := Snapshots(ctx, dir, "")
	_, err3 := ShowSnapshot(ctx, dir, "refs/cairn/wip/s/1")
	err4 := RestoreSnapshot(ctx, dir, "refs/cairn/wip/s/1")
	_, err5 := WIPCommit(ctx, dir, "")
	_, err6 := Root(ctx, dir)
	for i, err := range []error{err1, err2, err3, err4, err5, err6} {
		if !errors.Is(err, ErrNotRepo) {
			t.Errorf("call %d: err = %v, want ErrNotRepo", i+1, err)
		}
	}
	if diff := cmp.Diff(map[string]string{"a.txt": "a\n"}, files(t, dir)); diff != "" {
		t.Errorf("files changed:\n%s", diff)
	}
}

func TestSnapshotSubdirAndCancel(t *testing.T) {
	ctx := hermetic(t)
	dir := fixture(t)
	s, err := Snapshot(ctx, filepath.Join(dir, "dir with space"), "s", "m")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s.DiffStat, "7 files changed") {
		t.Errorf("from a subdirectory: %q, want the whole work tree", s.DiffStat)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Snapshot(cancelled, dir, "s", "m"); err == nil {
		t.Error("no error with a cancelled context")
	}
	if ss, _ := Snapshots(ctx, dir, "s"); len(ss) != 1 {
		t.Errorf("%d snapshots after a cancelled one, want 1", len(ss))
	}
}

func TestSnapshotWithoutIdentity(t *testing.T) {
	ctx := hermetic(t)
	dir := fixture(t)
	for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL"} {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	sh(t, dir, "config", "user.useConfigOnly", "true")
	s, err := Snapshot(ctx, dir, "s", "m")
	if err != nil {
		t.Fatal(err)
	}
	if who := out(t, dir, "log", "-1", "--format=%an <%ae>", s.Ref); strings.TrimSpace(who) != "cairn <cairn@localhost>" {
		t.Errorf("author %q", who)
	}
}

func TestWIPCommitOutOfTime(t *testing.T) {
	ctx := hermetic(t)
	dir := fixture(t)
	write(t, dir, ".git/hooks/pre-commit", []byte("#!/bin/sh\nsleep 5\n"))
	os.Chmod(filepath.Join(dir, ".git/hooks/pre-commit"), 0o755)
	head := out(t, dir, "rev-parse", "HEAD")
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := WIPCommit(short, dir, ""); err == nil {
		t.Fatal("no error out of time")
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("took %v", d)
	}
	// The user's next git command must not meet a stale lock.
	if _, err := os.Stat(filepath.Join(dir, ".git", "index.lock")); err == nil {
		t.Error(".git/index.lock left behind")
	}
	if out(t, dir, "rev-parse", "HEAD") != head {
		t.Error("committed out of time")
	}
}
