package git

// Snapshots keep uncommitted work in git without touching it: the work
// tree's content is written as a commit object through a temporary index
// and kept under refs/cairn/wip/<session>/<n>. Nothing the user sees moves:
// not the work tree, the index, HEAD, a branch or the stash list. Only new
// objects and the ref are written.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// ErrClean is returned when the work tree has nothing to record: no
// change against HEAD, or nothing at all in a repository without commits.
var ErrClean = errors.New("nothing to snapshot: the work tree matches HEAD")

// ErrNoSnapshot is returned for a ref that names no snapshot.
var ErrNoSnapshot = errors.New("no such snapshot")

// RefPrefix is where snapshots are kept. Refs outside refs/heads, tags and
// remotes are neither pushed nor fetched by default, nor shown by git log
// --all's usual callers, so they stay the user's own.
const RefPrefix = "refs/cairn/wip/"

// Snap is one snapshot.
type Snap struct {
	Ref     string `json:"ref"`
	Session string `json:"session"` // the sanitised session component of Ref
	Number  int    `json:"number"`
	Commit  string `json:"commit"`
	// Parent is the commit that was HEAD when the snapshot was taken;
	// empty in a repository that had no commit yet.
	Parent string    `json:"parent,omitempty"`
	Time   time.Time `json:"time"`
	// Message is the first line of the snapshot's commit message.
	Message string `json:"message"`
	// DiffStat is git's one-line summary of the snapshot against Parent.
	DiffStat string `json:"diff_stat,omitempty"`
}

// ConflictError is RestoreSnapshot's refusal: paths the snapshot changes
// that also have uncommitted changes (or exist untracked) in the work tree.
type ConflictError struct {
	Paths []string
}

func (e *ConflictError) Error() string {
	const show = 5
	p := e.Paths
	more := ""
	if len(p) > show {
		more = fmt.Sprintf(" and %d more", len(p)-show)
		p = p[:show]
	}
	return fmt.Sprintf("restoring would overwrite uncommitted changes to %s%s", strings.Join(p, ", "), more)
}

// Snapshot records the work tree of the repository containing dir — tracked
// changes, deletions, and untracked files that .gitignore does not exclude —
// as a commit whose parent is HEAD, and keeps it as the next
// refs/cairn/wip/<session>/<n>. The work tree, the index, HEAD and the stash
// are left as they were. message is the commit message.
//
// The plumbing: a copy of the index (keeping its stat cache, so unchanged
// files are not read again, and its skip-worktree bits) in a temporary
// directory named by GIT_INDEX_FILE; `git add -A` into it; `git write-tree`;
// `git commit-tree -p HEAD`; `git update-ref <ref> <commit> ""`, which
// creates the ref only if it does not exist yet.
func Snapshot(ctx context.Context, dir, session, message string) (Snap, error) {
	top, index, err := repo(ctx, dir)
	if err != nil {
		return Snap{}, err
	}
	head, err := headCommit(ctx, top)
	if err != nil {
		return Snap{}, err
	}
	tmp, err := os.MkdirTemp("", "cairn-snapshot-")
	if err != nil {
		return Snap{}, fmt.Errorf("snapshot: %w", err)
	}
	defer os.RemoveAll(tmp)
	// The temporary directory doubles as an empty hooks directory: the
	// index writes must not run the user's post-index-change hook. A split
	// index would write its shared part into .git.
	g := gitCall{dir: top, env: []string{"GIT_INDEX_FILE=" + filepath.Join(tmp, "index")},
		config: []string{"core.hooksPath=" + tmp, "core.splitIndex=false"}}
	copied, err := copyIndex(index, filepath.Join(tmp, "index"))
	if err != nil {
		return Snap{}, fmt.Errorf("snapshot: copy the index: %w", err)
	}
	if !copied && head != "" {
		if _, err := g.run(ctx, "read-tree", head); err != nil {
			return Snap{}, err
		}
	}
	if _, err := g.run(ctx, "add", "-A"); err != nil {
		return Snap{}, err
	}
	out, err := g.run(ctx, "write-tree")
	if err != nil {
		return Snap{}, err
	}
	tree := strings.TrimSpace(string(out))
	base := ""
	if head != "" {
		out, err := g.run(ctx, "rev-parse", head+"^{tree}")
		if err != nil {
			return Snap{}, err
		}
		base = strings.TrimSpace(string(out))
	}
	if tree == base || (head == "" && isEmptyTree(tree)) {
		return Snap{}, ErrClean
	}
	if message == "" {
		message = "cairn snapshot"
	}
	args := []string{"commit-tree", "--no-gpg-sign", "-m", message}
	if head != "" {
		args = append(args, "-p", head)
	}
	out, err = g.run(ctx, append(args, tree)...)
	var ge *gitError
	if errors.As(err, &ge) && strings.Contains(ge.stderr, "ident") {
		// No user.name/email configured: a snapshot is private, so an
		// identity of cairn's own is better than no snapshot.
		g.env = append(g.env, "GIT_AUTHOR_NAME=cairn", "GIT_AUTHOR_EMAIL=cairn@localhost",
			"GIT_COMMITTER_NAME=cairn", "GIT_COMMITTER_EMAIL=cairn@localhost")
		out, err = g.run(ctx, append(args, tree)...)
	}
	if err != nil {
		return Snap{}, err
	}
	commit := strings.TrimSpace(string(out))
	ref, err := claimRef(ctx, top, RefSession(session), commit)
	if err != nil {
		return Snap{}, err
	}
	snaps, err := list(ctx, top, ref)
	if err != nil || len(snaps) != 1 {
		// The snapshot is taken; only reading back its time and diff
		// stat failed, which is no reason to report a failure.
		n, _ := strconv.Atoi(ref[strings.LastIndexByte(ref, '/')+1:])
		return Snap{Ref: ref, Session: RefSession(session), Number: n, Commit: commit, Parent: head, Message: firstLine(message)}, nil
	}
	return snaps[0], nil
}

// claimRef points the next free refs/cairn/wip/<session>/<n> at commit. A
// concurrent snapshot of the same session can take a number first, so a
// few following numbers are tried.
func claimRef(ctx context.Context, top, session, commit string) (string, error) {
	existing, err := list(ctx, top, RefPrefix+session+"/")
	if err != nil {
		return "", err
	}
	n := 1
	for _, s := range existing {
		n = max(n, s.Number+1)
	}
	var last error
	for try := 0; try < 5; try++ {
		ref := fmt.Sprintf("%s%s/%d", RefPrefix, session, n+try)
		// The empty old value makes update-ref refuse a ref that exists.
		if _, err := (gitCall{dir: top}).run(ctx, "update-ref", "-m", "cairn snapshot", ref, commit, ""); err != nil {
			if ctx.Err() != nil {
				return "", err
			}
			last = err
			continue
		}
		return ref, nil
	}
	return "", last
}

// Snapshots lists the snapshots of session (all sessions when it is
// empty), newest first.
func Snapshots(ctx context.Context, dir, session string) ([]Snap, error) {
	top, _, err := repo(ctx, dir)
	if err != nil {
		return nil, err
	}
	pattern := RefPrefix
	if session != "" {
		pattern += RefSession(session) + "/"
	}
	return list(ctx, top, pattern)
}

// ShowSnapshot is the snapshot's change against its parent as a patch,
// new files included.
func ShowSnapshot(ctx context.Context, dir, ref string) (string, error) {
	top, _, err := repo(ctx, dir)
	if err != nil {
		return "", err
	}
	s, err := find(ctx, top, ref)
	if err != nil {
		return "", err
	}
	out, err := (gitCall{dir: top}).run(ctx, "diff-tree", "-p", "--root", "--no-commit-id", s.Commit)
	return string(out), err
}

// RestoreSnapshot applies the snapshot's change (from its parent to it) to
// the work tree, as `git diff-tree --binary <snapshot> | git apply` would:
// modified files are patched, deleted ones removed, new ones created. The
// index and HEAD are not touched, so the restored work shows as unstaged
// changes and untracked files, ready to review and commit.
//
// It refuses, changing nothing, when a path the snapshot changes has
// uncommitted changes of its own (staged or not) or exists untracked: that
// is a *ConflictError. Otherwise git apply checks every hunk against the
// work tree before writing any file, so a patch that does not fit (HEAD
// has moved on and changed those lines) is an error that also changes
// nothing.
func RestoreSnapshot(ctx context.Context, dir, ref string) error {
	top, _, err := repo(ctx, dir)
	if err != nil {
		return err
	}
	s, err := find(ctx, top, ref)
	if err != nil {
		return err
	}
	g := gitCall{dir: top}
	out, err := g.run(ctx, "diff-tree", "-r", "-z", "--name-only", "--no-renames", "--root", "--no-commit-id", s.Commit)
	if err != nil {
		return err
	}
	touched := map[string]bool{}
	for _, p := range splitZ(out) {
		touched[p] = true
	}
	out, err = g.run(ctx, "status", "--porcelain", "-z", "--no-renames", "--untracked-files=all", "--ignore-submodules=none")
	if err != nil {
		return err
	}
	var clash []string
	for _, f := range splitZ(out) {
		if len(f) > 3 && touched[f[3:]] {
			clash = append(clash, f[3:])
		}
	}
	if len(clash) > 0 {
		sort.Strings(clash)
		return &ConflictError{Paths: clash}
	}
	patch, err := g.run(ctx, "diff-tree", "-p", "--binary", "--full-index", "--no-renames", "--root", "--no-commit-id", s.Commit)
	if err != nil {
		return err
	}
	g.stdin = patch
	if _, err := g.run(ctx, "apply", "--whitespace=nowarn", "-"); err != nil {
		return fmt.Errorf("restore %s: %w", s.Ref, err)
	}
	return nil
}

// WIPCommit is the opt-in real checkpoint commit: `git add -A` and `git
// commit -m "[WIP] <ticket> - checkpoint"` ("[WIP] checkpoint" without a
// ticket), with the repository's hooks run as for any commit. It returns
// the new HEAD, or ErrClean when there is nothing to commit. When the
// commit fails (a pre-commit hook refuses, say) the changes stay staged.
func WIPCommit(ctx context.Context, dir, ticket string) (string, error) {
	top, _, err := repo(ctx, dir)
	if err != nil {
		return "", err
	}
	g := gitCall{dir: top}
	if _, err := g.run(ctx, "add", "-A"); err != nil {
		return "", err
	}
	// Exit status 1 means the index differs from HEAD (or, before the
	// first commit, is not empty).
	if _, err := g.run(ctx, "diff", "--cached", "--quiet", "--ignore-submodules=none"); err == nil {
		return "", ErrClean
	} else if exitCode(err) != 1 {
		return "", err
	}
	msg := "[WIP] checkpoint"
	if t := strings.Join(strings.Fields(ticket), " "); t != "" {
		msg = "[WIP] " + t + " - checkpoint"
	}
	if _, err := g.run(ctx, "commit", "-q", "-m", msg); err != nil {
		return "", err
	}
	out, err := g.run(ctx, "rev-parse", "HEAD")
	return strings.TrimSpace(string(out)), err
}

// Root is the top directory of the work tree containing dir.
func Root(ctx context.Context, dir string) (string, error) {
	top, _, err := repo(ctx, dir)
	return top, err
}

// repo finds the work tree's top directory and its index file.
func repo(ctx context.Context, dir string) (top, index string, err error) {
	out, err := (gitCall{dir: dir}).run(ctx, "rev-parse", "--show-toplevel", "--git-path", "index")
	if err != nil {
		return "", "", err
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if len(lines) != 2 || lines[0] == "" {
		return "", "", fmt.Errorf("git rev-parse: unexpected answer %q", out)
	}
	top, index = lines[0], lines[1]
	if !filepath.IsAbs(index) {
		index = filepath.Join(dir, index) // relative to where git ran
	}
	return top, index, nil
}

// headCommit is HEAD's commit, empty before the first commit.
func headCommit(ctx context.Context, top string) (string, error) {
	out, err := (gitCall{dir: top}).run(ctx, "rev-parse", "-q", "--verify", "HEAD^{commit}")
	if exitCode(err) == 1 && ctx.Err() == nil {
		return "", nil
	}
	return strings.TrimSpace(string(out)), err
}

// copyIndex copies the index file with its modification time: git trusts
// an entry's cached stat data only when the entry is older than the index
// file, and a copy stamped now would hide a file changed in the same
// instant as the index was last written. It reports false when there is no
// index yet.
func copyIndex(src, dst string) (bool, error) {
	in, err := os.Open(src)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer in.Close()
	fi, err := in.Stat()
	if err != nil {
		return false, err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return false, err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return false, err
	}
	if err := out.Close(); err != nil {
		return false, err
	}
	return true, os.Chtimes(dst, fi.ModTime(), fi.ModTime())
}

// isEmptyTree reports whether tree is the empty tree, in SHA-1 or SHA-256
// repositories.
func isEmptyTree(tree string) bool {
	return tree == "4b825dc642cb6eb9a060e54bf8d69288fbee4904" ||
		tree == "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321"
}

// RefSession is the ref name component a session id becomes, as in
// Snap.Session: letters, digits, '-' and '_' are kept, anything else
// becomes '-'. Claude Code's session ids (UUIDs) pass unchanged.
func RefSession(session string) string {
	var b strings.Builder
	for _, r := range session {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
		if b.Len() >= 100 {
			break
		}
	}
	if b.Len() == 0 {
		return "unnamed"
	}
	return b.String()
}

// find is the snapshot at ref, which must be a full refs/cairn/wip/ name.
func find(ctx context.Context, top, ref string) (Snap, error) {
	if _, _, ok := parseRef(ref); !ok {
		return Snap{}, fmt.Errorf("%q: %w (snapshot refs are %s<session>/<n>)", ref, ErrNoSnapshot, RefPrefix)
	}
	ss, err := list(ctx, top, ref)
	if err != nil {
		return Snap{}, err
	}
	for _, s := range ss {
		if s.Ref == ref {
			return s, nil
		}
	}
	return Snap{}, fmt.Errorf("%s: %w", ref, ErrNoSnapshot)
}

// list reads the snapshots under pattern (a prefix ending in '/', or one
// ref), newest first, with their diff stats.
func list(ctx context.Context, top, pattern string) ([]Snap, error) {
	g := gitCall{dir: top}
	out, err := g.run(ctx, "for-each-ref", "--format=%(refname)%00%(objectname)%00%(parent)%00%(committerdate:unix)%00%(subject)", pattern)
	if err != nil {
		return nil, err
	}
	snaps := []Snap{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Split(line, "\x00")
		if len(f) != 5 {
			continue
		}
		session, n, ok := parseRef(f[0])
		if !ok {
			continue
		}
		sec, _ := strconv.ParseInt(f[3], 10, 64)
		parent, _, _ := strings.Cut(f[2], " ")
		snaps = append(snaps, Snap{Ref: f[0], Session: session, Number: n, Commit: f[1], Parent: parent,
			Time: time.Unix(sec, 0).UTC(), Message: f[4]})
	}
	sort.Slice(snaps, func(i, j int) bool {
		a, b := snaps[i], snaps[j]
		if !a.Time.Equal(b.Time) {
			return a.Time.After(b.Time)
		}
		if a.Session != b.Session {
			return a.Session < b.Session
		}
		return a.Number > b.Number
	})
	if len(snaps) == 0 {
		return snaps, nil
	}
	// One git log for every diff stat; --root gives the first commit's.
	args := []string{"log", "--no-walk=unsorted", "--root", "--no-show-signature", "--no-color", "--format=%x00%H", "--shortstat"}
	seen := map[string]bool{}
	for _, s := range snaps {
		if !seen[s.Commit] {
			seen[s.Commit] = true
			args = append(args, s.Commit)
		}
	}
	out, err = g.run(ctx, append(args, "--")...)
	if err != nil {
		return snaps, err
	}
	stats := map[string]string{}
	for _, rec := range strings.Split(string(out), "\x00") {
		commit, stat, _ := strings.Cut(rec, "\n")
		stats[commit] = strings.TrimSpace(stat)
	}
	for i := range snaps {
		snaps[i].DiffStat = stats[snaps[i].Commit]
	}
	return snaps, nil
}

// parseRef splits refs/cairn/wip/<session>/<n>.
func parseRef(ref string) (session string, n int, ok bool) {
	rest, ok := strings.CutPrefix(ref, RefPrefix)
	if !ok {
		return "", 0, false
	}
	session, num, ok := strings.Cut(rest, "/")
	if !ok || session == "" || strings.Contains(num, "/") {
		return "", 0, false
	}
	n, err := strconv.Atoi(num)
	if err != nil || n < 1 {
		return "", 0, false
	}
	return session, n, true
}

func splitZ(b []byte) []string {
	var out []string
	for _, f := range bytes.Split(b, []byte{0}) {
		if len(f) > 0 {
			out = append(out, string(f))
		}
	}
	return out
}

// gitCall is one git process with what run does not give: extra
// environment, configuration and standard input.
type gitCall struct {
	dir    string
	env    []string
	config []string
	stdin  []byte
}

func (c gitCall) run(ctx context.Context, args ...string) ([]byte, error) {
	full := []string{"-C", c.dir, "--no-optional-locks"}
	for _, kv := range c.config {
		full = append(full, "-c", kv)
	}
	cmd := exec.CommandContext(ctx, "git", append(full, args...)...)
	// Out of time, git is interrupted rather than killed, so that it
	// removes its lock files (a stale .git/index.lock would stop the
	// user's next git command), and killed only if it lingers.
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = time.Second
	if len(c.env) > 0 {
		cmd.Env = append(cmd.Environ(), c.env...)
	}
	if c.stdin != nil {
		cmd.Stdin = bytes.NewReader(c.stdin)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err == nil {
		return out, nil
	}
	msg := strings.TrimSpace(stderr.String())
	switch {
	case strings.Contains(msg, "not a git repository"):
		return nil, ErrNotRepo
	case ctx.Err() != nil:
		return nil, fmt.Errorf("git %s: %w", args[0], ctx.Err())
	}
	return out, &gitError{cmd: args[0], stderr: msg, err: err}
}

// gitError keeps git's whole message and its exit status; it shows the
// message's first line.
type gitError struct {
	cmd, stderr string
	err         error
}

func (e *gitError) Error() string {
	if e.stderr == "" {
		return "git " + e.cmd + ": " + e.err.Error()
	}
	return "git " + e.cmd + ": " + firstLine(e.stderr)
}

func (e *gitError) Unwrap() error { return e.err }

// exitCode is a failed git's exit status, or -1.
func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}
