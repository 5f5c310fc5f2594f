// Package claudecode provides the real Claude Code client to the end-to-end
// bench: it installs the pinned npm release into a cache outside the
// repository and runs headless sessions of it against a fake API on
// loopback, with every setting and transcript in temporary directories.
package claudecode

import (
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

	"github.com/cairn-agent/cairn/e2e/npmpin"
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

// pin is the pinned release, installed by npmpin.
var pin = npmpin.Pin{Package: Package, Version: Version, CacheEnv: "CAIRN_E2E_CACHE", Name: "claude-code",
	What: "Claude Code", Tag: "claudecode", Find: Find, Timeout: InstallTimeout}

// CacheDir is where the pinned client is installed: $CAIRN_E2E_CACHE if set,
// else ${XDG_CACHE_HOME:-$HOME/.cache}/cairn-e2e/claude-code-VERSION.
func CacheDir(getenv func(string) string) (string, error) { return pin.CacheDir(getenv) }

// Install returns the path of a working Claude Code VERSION binary in dir,
// running npm install first if dir has none, under a lock beside dir.
func Install(ctx context.Context, dir string) (string, error) { return pin.Install(ctx, dir) }

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

// Require returns the path of the pinned client, installing it if needed:
// a failure when CI=true and it cannot be had, a skip otherwise.
func Require(t testing.TB) string {
	t.Helper()
	return pin.Require(t)
}

func tail(s string, n int) string { return npmpin.Tail(s, n) }
