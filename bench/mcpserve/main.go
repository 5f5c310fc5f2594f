// Command mcpserve serves cairn's MCP context tools on stdio, wired as
// `cairn mcp` wires them (the Keeper on cairn's state and data
// directories, Claude Code's configuration directory, the working
// directory), for BenchmarkProcessMCP's whole-process timings until the
// command exists. It leaves out the memory store.
package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/cairn-agent/cairn/internal/claudecode"
	"github.com/cairn-agent/cairn/internal/continuity"
	"github.com/cairn-agent/cairn/internal/mcpserver"
	"github.com/cairn-agent/cairn/internal/meter"
	"github.com/cairn-agent/cairn/internal/state"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "mcpserve:", err)
		os.Exit(1)
	}
}

func run() error {
	sd, err := state.Dir(os.Getenv)
	if err != nil {
		return err
	}
	data, err := continuity.DataDir(os.Getenv)
	if err != nil {
		return err
	}
	cfg, err := claudecode.ConfigDir(os.Getenv)
	if err != nil {
		return err
	}
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	set, _ := meter.SettingsFromEnv(os.Getenv)
	warn := func(err error) { fmt.Fprintln(os.Stderr, "cairn: warning:", err) }
	k := &continuity.Keeper{State: state.Store{Dir: sd, Warn: warn}, DBPath: filepath.Join(data, "cairn.db"), Settings: set, Now: time.Now, Warn: warn}
	defer k.Close()
	return mcpserver.Serve(context.Background(), os.Stdin, os.Stdout, mcpserver.Options{Keeper: k, ConfigDir: cfg, Dir: cwd,
		SessionID: os.Getenv("CLAUDE_CODE_SESSION_ID"), Log: os.Stderr, Version: "bench"})
}
