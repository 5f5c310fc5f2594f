// Package gemini drives the real Gemini CLI for the end-to-end bench: it
// installs the pinned npm release into a cache outside the repository
// (npmpin, as for Claude Code and Codex), serves a scripted fake of the
// Gemini API on loopback (fake.go, a Go port of
// shared/gemini-cli/fake_gemini.py), and runs `gemini -p` turns in an
// isolated GEMINI_CLI_HOME (session.go).
package gemini

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

// Version is the pinned Gemini CLI release.
const Version = "0.61.0"

// Package is the npm package that ships the client.
const Package = "@google/gemini-cli"

// InstallTimeout bounds npm install plus the wait for another process's
// install to finish (a pure JS bundle of a few tens of MB).
const InstallTimeout = 10 * time.Minute

// pin is the pinned release, installed by npmpin.
var pin = npmpin.Pin{Package: Package, Version: Version, CacheEnv: "CAIRN_E2E_GEMINI_CACHE", Name: "gemini-cli",
	What: "Gemini CLI", Tag: "gemini", Find: Find, Timeout: InstallTimeout}

// CacheDir is where the pinned client is installed: $CAIRN_E2E_GEMINI_CACHE
// if set, else ${XDG_CACHE_HOME:-$HOME/.cache}/cairn-e2e/gemini-cli-VERSION.
func CacheDir(getenv func(string) string) (string, error) { return pin.CacheDir(getenv) }

// Install returns the path of a working Gemini CLI VERSION under dir,
// running npm install first if dir has none, under a lock beside dir.
func Install(ctx context.Context, dir string) (string, error) { return pin.Install(ctx, dir) }

// Find returns the gemini launcher installed under dir, checking that it
// runs (node is needed) and reports Version.
func Find(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "node_modules", ".bin", "gemini")
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("no gemini under %s: %w", dir, err)
	}
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	home, err := os.MkdirTemp("", "gemini-version-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(home)
	cmd := exec.CommandContext(ctx, bin, "--version")
	cmd.WaitDelay = 2 * time.Second
	// Not the developer's configuration, nor the network.
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "GEMINI_CLI_HOME=" + home, "NO_COLOR=1"}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s --version: %w: %s%s", bin, errors.Join(err, ctx.Err()), tail(out.String(), 1000), tail(errb.String(), 1000))
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if v := strings.TrimSpace(lines[len(lines)-1]); v != Version {
		return "", fmt.Errorf("%s --version: %q, want %s", bin, v, Version)
	}
	return bin, nil
}

// Require returns the path of the pinned client, installing it if needed:
// a failure when CI=true and it cannot be had, a skip otherwise.
func Require(t testing.TB) string {
	t.Helper()
	return pin.Require(t)
}

func tail(s string, n int) string { return npmpin.Tail(s, n) }
