// Package claudecode provides the real Claude Code client to the end-to-end
// bench: it installs the pinned npm release into a cache outside the
// repository and runs headless sessions of it against a fake API on
// loopback, with every setting and transcript in temporary directories.
package claudecode

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"
)

// Version is the Claude Code release the bench is pinned to. The transcript
// format is internal to Claude Code, so the bench tests one known release
// rather than whatever is newest.
const Version = "2.1.328"

// Package is the npm package that ships the client.
const Package = "@anthropic-ai/claude-code"

// InstallTimeout bounds npm install plus the wait for another process's
// install to finish (the package is about 370 MB).
const InstallTimeout = 15 * time.Minute

// CacheDir is where the pinned client is installed: $CAIRN_E2E_CACHE if set,
// else ${XDG_CACHE_HOME:-$HOME/.cache}/cairn-e2e/claude-code-VERSION. It is
// outside the repository so that the 370 MB binary is never committed and
// survives clean checkouts.
func CacheDir(getenv func(string) string) (string, error) {
	if d := getenv("CAIRN_E2E_CACHE"); d != "" {
		return filepath.Abs(d)
	}
	base := getenv("XDG_CACHE_HOME")
	if base == "" {
		home := getenv("HOME")
		if home == "" {
			return "", errors.New("neither CAIRN_E2E_CACHE, XDG_CACHE_HOME nor HOME is set")
		}
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "cairn-e2e", "claude-code-"+Version), nil
}

// Install returns the path of a working Claude Code VERSION binary in dir,
// running npm install first if dir has none. A lock file beside dir keeps
// parallel test processes from installing over each other.
func Install(ctx context.Context, dir string) (string, error) {
	if bin, err := Find(ctx, dir); err == nil {
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
	if bin, err := Find(ctx, dir); err == nil {
		return bin, nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", fmt.Errorf("npm is needed to install %s@%s: %w", Package, Version, err)
	}
	// --ignore-scripts: the postinstall script only links the platform
	// binary from its optional-dependency package into bin/, and Find looks
	// there directly, so no package code runs at install time.
	cmd := exec.CommandContext(ctx, npm, "install", "--prefix", dir,
		"--no-save", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error",
		Package+"@"+Version)
	cmd.Dir = dir
	cmd.WaitDelay = 5 * time.Second
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("npm install %s@%s into %s: %w\n%s", Package, Version, dir, errors.Join(err, ctx.Err()), tail(out.String(), 4000))
	}
	bin, err := Find(ctx, dir)
	if err != nil {
		return "", fmt.Errorf("after npm install: %w\nnpm said:\n%s", err, tail(out.String(), 4000))
	}
	return bin, nil
}

// Find returns the Claude Code binary installed under dir, checking that it
// runs and reports Version.
func Find(ctx context.Context, dir string) (string, error) {
	exe := "claude"
	if runtime.GOOS == "windows" {
		exe = "claude.exe"
	}
	// The native binary lives in the platform package
	// (@anthropic-ai/claude-code-linux-x64, -linux-x64-musl, -darwin-arm64,
	// ...). bin/claude.exe of the main package is only a stub until its
	// postinstall script replaces it, so it is the last resort.
	candidates, _ := filepath.Glob(filepath.Join(dir, "node_modules", "@anthropic-ai", "claude-code-*", exe))
	candidates = append(candidates, filepath.Join(dir, "node_modules", ".bin", "claude"))
	var errs []error
	for _, c := range candidates {
		if _, err := os.Stat(c); err != nil {
			errs = append(errs, err)
			continue
		}
		v, err := version(ctx, c)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !strings.HasPrefix(v, Version+" ") && v != Version {
			errs = append(errs, fmt.Errorf("%s --version: %q, want %s", c, v, Version))
			continue
		}
		return c, nil
	}
	return "", fmt.Errorf("no working claude %s under %s: %w", Version, dir, errors.Join(errs...))
}

func version(ctx context.Context, bin string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--version")
	cmd.WaitDelay = 2 * time.Second
	// The version check must not read the developer's settings or reach the
	// network either.
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.TempDir(),
		"DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s --version: %w: %s", bin, errors.Join(err, ctx.Err()), tail(string(out), 1000))
	}
	return strings.TrimSpace(string(out)), nil
}

// Require returns the path of the pinned client, installing it if needed.
// When it cannot be had, the test fails if CI=true (CI must never pass by
// skipping the bench) and is skipped otherwise. `go test -short` skips the
// bench outside CI without trying to install.
func Require(t testing.TB) string {
	t.Helper()
	ci := os.Getenv("CI") == "true"
	fail := t.Skipf
	if ci {
		fail = t.Fatalf
	}
	if testing.Short() && !ci {
		t.Skip("claudecode: -short: not running the real Claude Code client")
	}
	dir, err := CacheDir(os.Getenv)
	if err != nil {
		fail("claudecode: no cache directory for Claude Code %s: %v", Version, err)
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), InstallTimeout)
	defer cancel()
	bin, err := Install(ctx, dir)
	if err != nil {
		fail("claudecode: Claude Code %s is not available: %v", Version, err)
		return ""
	}
	return bin
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}
