//go:debug updatemaxprocs=0

// Command cairn keeps an AI coding agent's working state intact through
// context compaction and across sessions.
package main

import (
	"os"

	"github.com/cairn-agent/cairn/internal/cli"
)

// The go:debug line above: by default the runtime starts a goroutine in
// every process that follows changes of its cgroup's CPU limit to set
// GOMAXPROCS again. A hook lives a few milliseconds, and the commands that
// run long (web, ui, run) need no more than the limit they start with
// (docs/benchmarks.md, "process start").
func main() { os.Exit(cli.Main()) }
