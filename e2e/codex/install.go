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

	"github.com/cairn-agent/cairn/e2e/npmpin"
)

// Version is the pinned Codex CLI release.
const Version = "0.169.0"

// Package is the npm package that ships the client.
const Package = "@openai/codex"

// InstallTimeout bounds npm install plus the wait for another process's
// install to finish (the binary is about 294 MB).
const InstallTimeout = 15 * time.Minute

// pin is the pinned release, installed by npmpin.
var pin = npmpin.Pin{Package: Package, Version: Version, CacheEnv: "CAIRN_E2E_CODEX_CACHE", Name: "codex",
	What: "Codex", Tag: "codex", Find: Find, Timeout: InstallTimeout}

// CacheDir is where the pinned client is installed: $CAIRN_E2E_CODEX_CACHE
// if set, else ${XDG_CACHE_HOME:-$HOME/.cache}/cairn-e2e/codex-VERSION.
func CacheDir(getenv func(string) string) (string, error) { return pin.CacheDir(getenv) }

// Install returns the path of a working Codex VERSION binary in dir,
// running npm install first if dir has none, under a lock beside dir.
func Install(ctx context.Context, dir string) (string, error) { return pin.Install(ctx, dir) }

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

// Require returns the path of the pinned client, installing it if needed:
// a failure when CI=true and it cannot be had, a skip otherwise.
func Require(t testing.TB) string {
	t.Helper()
	return pin.Require(t)
}

func tail(s string, n int) string { return npmpin.Tail(s, n) }
