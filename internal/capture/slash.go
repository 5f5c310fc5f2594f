package capture

import "strings"

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`!*?[](){}<>|&;#~,") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// RecordCommand is the shell command that records the review of the
// capture at path with cairn at exe, the memory following on standard
// input up to the CAIRN_MEMORY line.
func RecordCommand(exe, path string) string {
	return shellQuote(exe) + " review record " + shellQuote(path) + " --memory - <<'CAIRN_MEMORY'"
}
