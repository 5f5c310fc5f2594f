// Package npmpin installs a pinned npm release of a real client (Claude
// Code, Codex CLI) for the end-to-end bench: into a cache outside the
// repository, so that a few hundred megabytes of binary are never
// committed and survive clean checkouts, under a lock beside it, so that
// parallel test processes do not install over each other.
package npmpin

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/gofrs/flock"
)

// Pin is one client's pinned release.
type Pin struct {
	// Package and Version are what npm installs.
	Package, Version string
	// CacheEnv names the variable that sets the cache directory outright.
	CacheEnv string
	// Name is the cache directory's name before "-VERSION", under
	// ${XDG_CACHE_HOME:-$HOME/.cache}/cairn-e2e.
	Name string
	// What names the client in messages ("Claude Code"), and Tag the
	// package that asks ("claudecode").
	What, Tag string
	// Find returns the client's binary under dir, checking it runs and
	// reports Version.
	Find func(ctx context.Context, dir string) (string, error)
	// Timeout bounds npm install plus the wait for another process's.
	Timeout time.Duration
}

// CacheDir is where the pinned client is installed: $CacheEnv if set,
// else ${XDG_CACHE_HOME:-$HOME/.cache}/cairn-e2e/NAME-VERSION.
func (p Pin) CacheDir(getenv func(string) string) (string, error) {
	if d := getenv(p.CacheEnv); d != "" {
		return filepath.Abs(d)
	}
	base := getenv("XDG_CACHE_HOME")
	if base == "" {
		home := getenv("HOME")
		if home == "" {
			return "", fmt.Errorf("neither %s, XDG_CACHE_HOME nor HOME is set", p.CacheEnv)
		}
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "cairn-e2e", p.Name+"-"+p.Version), nil
}

// Install returns the path of a working binary in dir, running npm
// install first if dir has none.
func (p Pin) Install(ctx context.Context, dir string) (string, error) {
	if bin, err := p.Find(ctx, dir); err == nil {
		return bin, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("create cache: %w", err)
	}
	lock := flock.New(dir + ".lock")
	locked, err := lock.TryLockContext(ctx, 500*time.Millisecond)
	if err != nil || !locked {
		return "", fmt.Errorf("lock %s: %v", lock.Path(), errors.Join(err, ctx.Err()))
	}
	defer lock.Unlock()

	// Another process may have finished the install while we waited.
	if bin, err := p.Find(ctx, dir); err == nil {
		return bin, nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", fmt.Errorf("npm is needed to install %s@%s: %w", p.Package, p.Version, err)
	}
	// --ignore-scripts: the postinstall scripts only link the platform
	// binary from its optional-dependency package, and Find looks there
	// directly, so no package code runs at install time.
	cmd := exec.CommandContext(ctx, npm, "install", "--prefix", dir,
		"--no-save", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error",
		p.Package+"@"+p.Version)
	cmd.Dir = dir
	cmd.WaitDelay = 5 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("npm install %s@%s into %s: %w\n%s", p.Package, p.Version, dir, errors.Join(err, ctx.Err()), Tail(out.String(), 4000))
	}
	bin, err := p.Find(ctx, dir)
	if err != nil {
		return "", fmt.Errorf("after npm install: %w\nnpm said:\n%s", err, Tail(out.String(), 4000))
	}
	return bin, nil
}

// Require returns the path of the pinned client, installing it if needed.
// When it cannot be had, the test fails if CI=true (CI must never pass by
// skipping the bench) and is skipped otherwise; `go test -short` skips it
// outside CI without trying to install.
func (p Pin) Require(t testing.TB) string {
	t.Helper()
	ci := os.Getenv("CI") == "true"
	fail := t.Skipf
	if ci {
		fail = t.Fatalf
	}
	if testing.Short() && !ci {
		t.Skipf("%s: -short: not running the real %s client", p.Tag, p.What)
	}
	dir, err := p.CacheDir(os.Getenv)
	if err != nil {
		fail("%s: no cache directory for %s %s: %v", p.Tag, p.What, p.Version, err)
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), p.Timeout)
	defer cancel()
	bin, err := p.Install(ctx, dir)
	if err != nil {
		fail("%s: %s %s is not available: %v", p.Tag, p.What, p.Version, err)
		return ""
	}
	return bin
}

// Tail is the last n bytes of s, marked as cut when they are not all of it.
func Tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}
