package claudecode

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cairn-agent/cairn/internal/capture"
	"github.com/cairn-agent/cairn/internal/shell"
	"github.com/cairn-agent/cairn/internal/state"
)

// CommandsDir is where Claude Code reads a project's slash commands,
// relative to the project: <name>.md is /<name>.
const CommandsDir = ".claude/commands"

// marker is the line that says cairn wrote a command file. It is a YAML
// comment inside the front matter, so the model never sees it.
const marker = "# cairn: generated; cairn uninstall removes it (delete this line to keep the file as yours)"

// Program is how the slash commands call cairn: by name, found on PATH.
// The command files are project files, which teams commit, so they hold
// nothing of one machine: no absolute path to one user's binary. Where
// cairn is not on PATH, Claude Code stops the command and shows
// "cairn: command not found"; cairn install and doctor say so beforehand.
const Program = "cairn"

// SlashCommands are the command files cairn installs, by file name:
//
//   - /handoff [reason] runs `cairn handoff` for this session. The reason
//     reaches cairn through a quoted here-document on stdin, because Claude
//     Code splices $ARGUMENTS into the shell text as typed: in quotes, a
//     quote or a $ in the reason would break the command or be expanded.
//   - /checkpoint [--status | --estimate FILE | --defer [N]] runs `cairn
//     slash checkpoint`, which runs cairn checkpoint, status, estimate or
//     defer for this session. cairn chooses, not the shell: Claude Code refuses to run a
//     shell `case` from a command ("can't be checked before it runs").
//   - /reload runs `cairn run reload`, which has the cairn run the client
//     runs under restart it into this session (seed 000's hot reload).
//   - /review-compact and /compound: see capture and learn.
//
// Both run before the prompt reaches the model (Claude Code's !`command`
// and ```! blocks), with allowed-tools letting exactly that command run
// without asking. ${CLAUDE_SESSION_ID} is the session's id; a client that
// does not fill it in leaves it to the shell, which makes it empty, and
// cairn then takes the project's latest session.
func SlashCommands() map[string]string {
	return slashCommands(Program)
}

// slashCommands are the command files calling cairn as exe.
func slashCommands(exe string) map[string]string {
	q := shell.Quote(exe)
	return map[string]string{
		"review-compact.md": reviewCompact(exe),
		"compound.md":       compound(exe),
		"handoff.md": "---\n" + marker + "\n" +
			"description: Write a handoff document for the next session, from cairn's checkpoint of this one\n" +
			"argument-hint: [reason]\n" +
			"allowed-tools: Bash(" + q + " handoff:*)\n" +
			"---\n" +
			"```!\n" +
			q + " handoff --session \"${CLAUDE_SESSION_ID}\" --reason - <<'CAIRN_REASON'\n" +
			"$ARGUMENTS\n" +
			"CAIRN_REASON\n" +
			"```\n\n" +
			"cairn wrote the handoff document named above from this session's working state. " +
			"Tell the user its path in one sentence. If you know something the next session will need that the " +
			"document lacks (a finding, a dead end, a decision half made), append it briefly under " +
			"\"## Notes from the session\" at the end of that file. Do not start other work.\n",
		"reload.md": "---\n" + marker + "\n" +
			"description: Restart Claude Code into this session under cairn run, so that settings, CLAUDE.md, agents and skills are read again; the working state comes back once\n" +
			"allowed-tools: Bash(" + q + " run reload:*)\n" +
			"---\n" +
			"!`" + q + " run reload`\n\n" +
			"cairn is restarting the client into this session. Reply with one short sentence saying so; do not start other work.\n",
		"checkpoint.md": "---\n" + marker + "\n" +
			"description: Save cairn's checkpoint of this session now; --status shows the context, --estimate FILE what a file would cost, --defer [N] snoozes cairn's advisories for N turns\n" +
			"argument-hint: [--status | --estimate FILE | --defer [N]]\n" +
			"allowed-tools: Bash(" + q + " slash checkpoint:*)\n" +
			"---\n" +
			"!`" + q + " slash checkpoint --session \"${CLAUDE_SESSION_ID}\" $ARGUMENTS`\n\n" +
			"Relay cairn's answer above to the user in a sentence or two. Do not start other work.\n",
	}
}

// Generated reports whether the command file at path is one cairn wrote.
func Generated(path string) bool {
	data, err := os.ReadFile(path)
	return err == nil && generated(data)
}

func generated(data []byte) bool {
	for line := range bytes.Lines(data) {
		l := strings.TrimSpace(string(line))
		if strings.HasPrefix(l, "# cairn: generated") || strings.HasPrefix(l, "<!-- cairn: generated") {
			return true
		}
	}
	return false
}

// InstallCommands writes cairn's slash commands into the project's
// .claude/commands. A file of the same name that cairn did not write is
// the user's and is left alone; one that cairn wrote (an older one, say,
// that called cairn by its absolute path) is brought up to date. written
// lists the files created or changed. The directory must exist: the
// caller creates it, and records that it did, so that uninstall can
// remove it again.
func InstallCommands(project string) (written []string, err error) {
	dir := filepath.Join(project, filepath.FromSlash(CommandsDir))
	cmds := SlashCommands()
	for _, name := range sortedKeys(cmds) {
		path := filepath.Join(dir, name)
		old, err := os.ReadFile(path)
		switch {
		case err == nil && !generated(old):
			continue // the user's own
		case err == nil && string(old) == cmds[name]:
			continue
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return written, fmt.Errorf("install slash commands: %w", err)
		}
		if err := state.WriteFile(path, []byte(cmds[name]), 0o644, false); err != nil {
			return written, fmt.Errorf("install slash commands: %w", err)
		}
		written = append(written, path)
	}
	return written, nil
}

// UninstallCommands removes the slash commands cairn wrote into the
// project's .claude/commands, and nothing else.
func UninstallCommands(project string) (removed []string, err error) {
	dir := filepath.Join(project, filepath.FromSlash(CommandsDir))
	for _, name := range sortedKeys(SlashCommands()) {
		path := filepath.Join(dir, name)
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) || (err == nil && !generated(data)) {
			continue
		}
		if err == nil {
			err = os.Remove(path)
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, fmt.Errorf("uninstall slash commands: %w", err)
		}
		removed = append(removed, path)
	}
	return removed, nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// reviewCompact is the /review-compact [path] command for the cairn binary
// at exe. `cairn review` runs before the prompt reaches the model and
// prints the capture, a digest of its session and the command that
// records the review; the model writes the memory and runs that command,
// which allowed-tools lets run without asking. The memory goes through a
// quoted here-document, so no quote or $ in it reaches the shell.
func reviewCompact(exe string) string {
	q := shell.Quote(exe)
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
		"```\n" + capture.RecordCommand(exe, "PATH") + "\n...\nCAIRN_MEMORY\n```\n\n" +
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

// compound is the /compound command file (compound.md) for the cairn
// binary at exe. It lists the unpromoted entries before the prompt reaches
// the model, and has the model ask the user which to promote: cairn
// compound --promote runs only with the numbers the user names.
func compound(exe string) string {
	q := shell.Quote(exe)
	return "---\n" + marker + "\n" +
		"description: Review progress.md's entries and promote the ones you approve into learnings (Flow to Stock)\n" +
		"allowed-tools: Bash(" + q + " compound:*)\n" +
		"---\n" +
		"!`" + q + " compound --session \"${CLAUDE_SESSION_ID}\"`\n\n" +
		"Above are the progress.md entries not yet promoted to learnings, numbered. If there are none, say so in a sentence and stop. " +
		"Otherwise show the user the numbered list, with one line each on what the learning would be, and ask which to promote " +
		"(for example \"1,3\", or \"none\"). Promote nothing before the user answers. Then run\n\n" +
		q + " compound --session \"${CLAUDE_SESSION_ID}\" --promote N,M\n\n" +
		"with exactly the numbers the user named (--promote none when they want none), and relay cairn's answer. Do not start other work.\n"
}
