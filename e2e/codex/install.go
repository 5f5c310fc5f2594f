// Package codex drives the real Codex CLI for the end-to-end bench: it
// installs the pinned npm release into a cache outside the repository
// (under a lock, as package claudecode does for Claude Code), serves a
// scripted fake of the OpenAI Responses API on loopback (fake.go, a Go
// port of shared/codex/fake_responses.py), and runs `codex exec` turns
// in an isolated CODEX_HOME (session.go).
package codex

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"
)

// Version is the pinned Codex CLI release.
const Version = "0.169.0"

// Package is the npm package that ships the client.
const Package = "@openai/codex"

// InstallTimeout bounds npm install plus the wait for another process's
// install to finish (the binary is about 294 MB).
const InstallTimeout = 15 * time.Minute

// CacheDir is where the pinned client is installed: $CAIRN_E2E_CODEX_CACHE
// if set, else ${XDG_CACHE_HOME:-$HOME/.cache}/cairn-e2e/codex-VERSION.
func CacheDir(getenv func(string) string) (string, error) {
	if d := getenv("CAIRN_E2E_CODEX_CACHE"); d != "" {
		return filepath.Abs(d)
	}
	base := getenv("XDG_CACHE_HOME")
	if base == "" {
		home := getenv("HOME")
		if home == "" {
			return "", errors.New("neither CAIRN_E2E_CODEX_CACHE, XDG_CACHE_HOME nor HOME is set")
		}
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "cairn-e2e", "codex-"+Version), nil
}

// Install returns the path of a working Codex VERSION binary in dir,
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
	if bin, err := Find(ctx, dir); err == nil {
		return bin, nil
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", fmt.Errorf("npm is needed to install %s@%s: %w", Package, Version, err)
	}
	// --ignore-scripts: Find runs the platform package's binary directly.
	cmd := exec.CommandContext(ctx, npm, "install", "--prefix", dir,
		"--no-save", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error",
		Package+"@"+Version)
	cmd.Dir = dir
	cmd.WaitDelay = 5 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("npm install %s@%s into %s: %w\n%s", Package, Version, dir, errors.Join(err, ctx.Err()), tail(out.String(), 4000))
	}
	bin, err := Find(ctx, dir)
	if err != nil {
		return "", fmt.Errorf("after npm install: %w\nnpm said:\n%s", err, tail(out.String(), 4000))
	}
	return bin, nil
}

// Find returns the Codex binary installed under dir, checking that it
// runs and reports Version. The native binary lives in the platform
// package (@openai/codex-linux-x64, ...); the JS launcher of the main
// package is the last resort.
func Find(ctx context.Context, dir string) (string, error) {
	candidates, _ := filepath.Glob(filepath.Join(dir, "node_modules", "@openai", "codex-*", "vendor", "*", "bin", "codex"))
	candidates = append(candidates, filepath.Join(dir, "node_modules", ".bin", "codex"))
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
		if v != "codex-cli "+Version {
			errs = append(errs, fmt.Errorf("%s --version: %q, want codex-cli %s", c, v, Version))
			continue
		}
		return c, nil
	}
	return "", fmt.Errorf("no working codex %s under %s: %w", Version, dir, errors.Join(errs...))
}

func version(ctx context.Context, bin string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--version")
	cmd.WaitDelay = 2 * time.Second
	home, err := os.MkdirTemp("", "codex-version-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(home)
	// Not the developer's configuration, nor the network.
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "CODEX_HOME=" + home}
	// The version is stdout's last line: Codex may warn first, about a
	// CODEX_HOME under the temporary directory.
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s --version: %w: %s%s", bin, errors.Join(err, ctx.Err()), tail(out.String(), 1000), tail(errb.String(), 1000))
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	return strings.TrimSpace(lines[len(lines)-1]), nil
}

// Require returns the path of the pinned client, installing it if needed.
// When it cannot be had, the test fails if CI=true (CI must never pass by
// skipping the bench) and is skipped otherwise; `go test -short` skips it
// outside CI without trying to install.
func Require(t testing.TB) string {
	t.Helper()
	ci := os.Getenv("CI") == "true"
	fail := t.Skipf
	if ci {
		fail = t.Fatalf
	}
	if testing.Short() && !ci {
		t.Skip("codex: -short: not running the real Codex client")
	}
	dir, err := CacheDir(os.Getenv)
	if err != nil {
		fail("codex: no cache directory for Codex %s: %v", Version, err)
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), InstallTimeout)
	defer cancel()
	bin, err := Install(ctx, dir)
	if err != nil {
		fail("codex: Codex %s is not available: %v", Version, err)
		return ""
	}
	return bin
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
