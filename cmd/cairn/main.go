// Command cairn keeps an AI coding agent's working state intact through
// context compaction and across sessions.
package main

import (
	"os"

	"github.com/cairn-agent/cairn/internal/cli"
)

func main() { os.Exit(cli.Main()) }
