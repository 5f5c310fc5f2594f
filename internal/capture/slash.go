package capture

import "strings"

// CommandFile is the slash command's file name under .claude/commands.
const CommandFile = "review-compact.md"

// marker is handoff's line saying cairn wrote a command file, so that
// cairn install updates and cairn uninstall removes this one too.
const marker = "# cairn: generated; cairn uninstall removes it (delete this line to keep the file as yours)"

// SlashCommand is the /review-compact [path] command for the cairn binary
// at exe. `cairn review` runs before the prompt reaches the model and
// prints the capture, a digest of its session and the command that
// records the review; the model writes the memory and runs that command,
// which allowed-tools lets run without asking. The memory goes through a
// quoted here-document, so no quote or $ in it reaches the shell.
func SlashCommand(exe string) string {
	q := shellQuote(exe)
	return "---\n" + marker + "\n" +
		"description: Review the latest pending autocompact capture (or the one at PATH) and write its memory file\n" +
		"argument-hint: [path]\n" +
		"allowed-tools: Bash(" + q + " review:*)\n" +
		"---\n" +
		"!`" + q + " review $ARGUMENTS`\n\n" +
		"If cairn says above that there is nothing to review, or reports an error, tell the user so in one sentence and stop.\n\n" +
		"Otherwise cairn printed an autocompact capture of an earlier conversation and a digest of that session. " +
		"From them (read the transcript or a file only if the digest leaves the goal unclear), write the memory: " +
		"what the user was trying to accomplish, the key learnings worth keeping for future sessions, " +
		"the questions and issues left unresolved, your confidence (High, Medium or Low, and why) and the key files. " +
		"Then record it with one Bash call, PATH being the capture's path printed above and the Markdown below between the here-document lines:\n\n" +
		"```\n" + RecordCommand(exe, "PATH") + "\n...\nCAIRN_MEMORY\n```\n\n" +
		"```markdown\n" +
		"# Memory: Brief Title\n\n" +
		"## Summary\nOne or two sentences on what the conversation was about.\n\n" +
		"## Goal\nWhat was the user trying to accomplish?\n\n" +
		"## Learnings\n- Key insight\n\n" +
		"## Open Questions / Issues\n- Unresolved item\n\n" +
		"## Confidence Level\nHigh/Medium/Low — brief explanation\n\n" +
		"## Key Files\n- path/to/file\n" +
		"```\n\n" +
		"Tell the user the memory file's path in one sentence. Do not start other work.\n"
}

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
