// Package git reads the state of a working tree through the git command:
// branch, HEAD, changed files and the size of the change. The CLI is used
// rather than a Go implementation because it is an order of magnitude
// faster on large trees and honours the user's own configuration.
package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
)

// ErrNotRepo is returned for a directory outside any git work tree.
var ErrNotRepo = errors.New("not a git repository")

// Status is a snapshot of a work tree.
type Status struct {
	Branch   string   `json:"branch"` // empty when detached
	Head     string   `json:"head"`   // abbreviated commit, empty before the first commit
	Upstream string   `json:"upstream,omitempty"`
	Ahead    int      `json:"ahead,omitempty"`
	Behind   int      `json:"behind,omitempty"`
	Changes  []Change `json:"changes"`
	// DiffStat is git's one-line summary of the change against HEAD, such
	// as "3 files changed, 40 insertions(+), 2 deletions(-)".
	DiffStat string `json:"diff_stat,omitempty"`
}

// Change is one path that differs from HEAD.
type Change struct {
	Path string `json:"path"`
	// Code is the two-letter XY of git status --porcelain: "M." staged
	// modification, ".M" unstaged, "??" untracked, "A." added...
	Code string `json:"code"`
}

// Dirty reports whether anything differs from HEAD.
func (s Status) Dirty() bool { return len(s.Changes) > 0 }

// maxChanges bounds the changed paths kept: a generated tree can have
// thousands.
const maxChanges = 200

// Read takes the status of the work tree containing dir. The context bounds
// the time the git processes may take.
func Read(ctx context.Context, dir string) (Status, error) {
	// The two commands run at once: a hook waits for the slower only. The
	// diff of a repository with no commit yet fails, and is left out.
	type result struct {
		out []byte
		err error
	}
	diff := make(chan result, 1)
	go func() {
		out, err := run(ctx, dir, "diff", "--shortstat", "HEAD")
		diff <- result{out, err}
	}()
	out, err := run(ctx, dir, "status", "--porcelain=v2", "--branch", "-z", "--untracked-files=normal")
	d := <-diff
	if err != nil {
		return Status{}, err
	}
	st := parseStatus(out)
	if st.Head != "" && d.err == nil {
		st.DiffStat = strings.TrimSpace(string(d.out))
	}
	return st, nil
}

func run(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir, "--no-optional-locks"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if strings.Contains(msg, "not a git repository") {
			return nil, ErrNotRepo
		}
		if ctx.Err() != nil {
			return nil, fmt.Errorf("git %s: %w", args[0], ctx.Err())
		}
		if msg != "" {
			return nil, fmt.Errorf("git %s: %s", args[0], firstLine(msg))
		}
		return nil, fmt.Errorf("git %s: %w", args[0], err)
	}
	return out, nil
}

// parseStatus reads `git status --porcelain=v2 --branch -z`.
func parseStatus(out []byte) Status {
	var st Status
	st.Changes = []Change{}
	fields := bytes.Split(out, []byte{0})
	for i := 0; i < len(fields); i++ {
		f := string(fields[i])
		switch {
		case strings.HasPrefix(f, "# branch.oid "):
			if oid := strings.TrimPrefix(f, "# branch.oid "); oid != "(initial)" {
				st.Head = oid[:min(12, len(oid))]
			}
		case strings.HasPrefix(f, "# branch.head "):
			if b := strings.TrimPrefix(f, "# branch.head "); b != "(detached)" {
				st.Branch = b
			}
		case strings.HasPrefix(f, "# branch.upstream "):
			st.Upstream = strings.TrimPrefix(f, "# branch.upstream ")
		case strings.HasPrefix(f, "# branch.ab "):
			ab := strings.Fields(strings.TrimPrefix(f, "# branch.ab "))
			if len(ab) == 2 {
				st.Ahead, _ = strconv.Atoi(strings.TrimPrefix(ab[0], "+"))
				st.Behind, _ = strconv.Atoi(strings.TrimPrefix(ab[1], "-"))
			}
		case strings.HasPrefix(f, "1 "):
			// 1 XY sub mH mI mW hH hI path
			if p := strings.SplitN(f, " ", 9); len(p) == 9 {
				st.add(p[8], p[1])
			}
		case strings.HasPrefix(f, "2 "):
			// 2 XY sub mH mI mW hH hI Xscore path, then the original path
			if p := strings.SplitN(f, " ", 10); len(p) == 10 {
				st.add(p[9], p[1])
			}
			i++ // the original path follows as its own field
		case strings.HasPrefix(f, "u "):
			if p := strings.SplitN(f, " ", 11); len(p) == 11 {
				st.add(p[10], p[1])
			}
		case strings.HasPrefix(f, "? "):
			st.add(strings.TrimPrefix(f, "? "), "??")
		}
	}
	return st
}

func (st *Status) add(path, code string) {
	if len(st.Changes) < maxChanges {
		st.Changes = append(st.Changes, Change{Path: path, Code: code})
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// Ignored reports whether git keeps path (absolute, or relative to dir)
// out of the work tree containing dir: ignored by a .gitignore, the
// repository's info/exclude or the user's global excludes file, and not
// tracked. It returns ErrNotRepo outside a work tree.
func Ignored(ctx context.Context, dir, path string) (bool, error) {
	cmd := exec.CommandContext(ctx, "git", "-C", dir, "check-ignore", "-q", "--", path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return true, nil
	case errors.As(err, &exit) && exit.ExitCode() == 1:
		return false, nil
	case strings.Contains(stderr.String(), "not a git repository"):
		return false, ErrNotRepo
	case ctx.Err() != nil:
		return false, fmt.Errorf("git check-ignore: %w", ctx.Err())
	}
	if msg := strings.TrimSpace(stderr.String()); msg != "" {
		return false, fmt.Errorf("git check-ignore: %s", firstLine(msg))
	}
	return false, fmt.Errorf("git check-ignore: %w", err)
}

// Tracked reports whether path (absolute, or relative to dir) is in the
// index of the work tree containing dir. It returns ErrNotRepo outside a
// work tree.
func Tracked(ctx context.Context, dir, path string) (bool, error) {
	out, err := run(ctx, dir, "ls-files", "-z", "--", path)
	if err != nil {
		return false, err
	}
	return len(out) > 0, nil
}
