package capture

import "github.com/cairn-agent/cairn/internal/shell"

// RecordCommand is the shell command that records the review of the
// capture at path with cairn at exe, the memory following on standard
// input up to the CAIRN_MEMORY line.
func RecordCommand(exe, path string) string {
	return shell.Quote(exe) + " review record " + shell.Quote(path) + " --memory - <<'CAIRN_MEMORY'"
}
