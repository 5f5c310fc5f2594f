package supervisor

import (
	"crypto/rand"
	"fmt"
	"slices"
	"strings"
)

// Claude Code's options that take a value, as `claude --help` gives them
// in 2.1.328 (and the few it leaves out there: --system-prompt-file,
// --append-system-prompt-file, --permission-prompt-tool, --max-turns).
// Slices, not maps: a map would be built in every process, hooks too, at
// start-up. Knowing them is what tells a positional prompt from an option's value:
// in `claude --model opus "fix the bug"`, "opus" is not a prompt.
var (
	// claudeValue take one value, always.
	claudeValue = []string{"--agent", "--agents", "--append-system-prompt", "--append-system-prompt-file", "--autocompact",
		"--debug-file", "--effort", "--environment", "--fallback-model", "--input-format", "--json-schema",
		"--max-budget-usd", "--max-turns", "--model", "-n", "--name", "--output-format", "--permission-mode",
		"--permission-prompt-tool", "--permission-prompts", "--plugin-dir", "--plugin-url",
		"--remote-control-session-name-prefix", "--session-id", "--setting-sources", "--settings", "--system-prompt",
		"--system-prompt-file", "--system-prompt-snapshot"}
	// claudeValues take one value or more: every argument up to the next
	// option (commander's variadic options).
	claudeValues = []string{"--add-dir", "--allowedTools", "--allowed-tools", "--betas", "--disallowedTools",
		"--disallowed-tools", "--file", "--mcp-config", "--tools"}
	// claudeMaybe take a value when the next argument is not an option.
	claudeMaybe = []string{"--cloud", "-d", "--debug", "--from-pr", "--prompt-suggestions", "--remote-control", "-r",
		"--resume", "--teleport", "-w", "--worktree"}
)

// claudeArg is one of Claude Code's arguments: an option with its values
// (Name set), or a positional argument, the prompt (Name empty).
type claudeArg struct {
	Name   string
	Tokens []string
}

// value is the option's value, "" for none.
func (a claudeArg) value() string {
	if _, v, ok := strings.Cut(a.Tokens[0], "="); ok && strings.HasPrefix(a.Tokens[0], "--") {
		return v
	}
	if len(a.Tokens) > 1 {
		return a.Tokens[1]
	}
	return ""
}

// parseClaude reads Claude Code's arguments. An option it does not know
// is taken to take no value.
func parseClaude(args []string) []claudeArg {
	var out []claudeArg
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			for _, p := range args[i+1:] {
				out = append(out, claudeArg{Tokens: []string{p}})
			}
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			out = append(out, claudeArg{Tokens: []string{a}})
			continue
		}
		name, _, inline := strings.Cut(a, "=")
		arg := claudeArg{Name: name, Tokens: []string{a}}
		if !inline {
			switch {
			case slices.Contains(claudeValue, name) && i+1 < len(args):
				i++
				arg.Tokens = append(arg.Tokens, args[i])
			case slices.Contains(claudeValues, name):
				for i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
					i++
					arg.Tokens = append(arg.Tokens, args[i])
				}
			case slices.Contains(claudeMaybe, name) && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-"):
				i++
				arg.Tokens = append(arg.Tokens, args[i])
			}
		}
		out = append(out, arg)
	}
	return out
}

// ClaudePrints says whether the arguments run Claude Code headless
// (-p, --print): not a client to supervise.
func ClaudePrints(args []string) bool {
	for _, a := range parseClaude(args) {
		if a.Name == "-p" || a.Name == "--print" {
			return true
		}
	}
	return false
}

// ClaudePin pins the session the client starts: the arguments to start it
// with, and the session's id ("" when it cannot be known before it runs).
// The user's --session-id is the session; so is --resume ID (unless
// --fork-session makes a copy, which is then given the id: 2.1.328 takes
// --session-id with --resume only with --fork-session); --continue, or
// --resume with a name or without a value, leave it to the client. Otherwise the session is given
// an id, newID's, with --session-id: with several sessions in one project,
// the newest transcript is not necessarily this client's.
func ClaudePin(args []string, newID func() string) ([]string, string) {
	var given, resume string
	chooses, continues, fork := false, false, false
	for _, a := range parseClaude(args) {
		switch a.Name {
		case "--session-id":
			given = a.value()
		case "--resume", "-r":
			resume, chooses = a.value(), true
		case "--continue", "-c":
			continues = true
		case "--fork-session":
			fork = true
		}
	}
	switch {
	case given != "":
		return args, given
	case continues:
		// 2.1.328 refuses --session-id with --continue (with or
		// without --fork-session, by its messages).
		return args, ""
	case chooses && !fork && isUUID(resume):
		return args, resume
	case chooses && !fork:
		return args, ""
	}
	id := newID()
	return append([]string{"--session-id", id}, args...), id
}

// ClaudeResumeArgs are Claude Code's arguments to resume session id: the
// user's own with any choice of session taken out (--resume, --continue,
// --session-id, --fork-session) and the prompt too (it was the session's
// first, not one to send again), and --resume id added.
func ClaudeResumeArgs(args []string, id string) []string {
	return append([]string{"--resume", id}, restartArgs(args)...)
}

// ClaudeNewArgs are Claude Code's arguments to restart in a new session,
// pinned to id: the user's own without their choice of session or their
// prompt.
func ClaudeNewArgs(args []string, id string) []string {
	return append([]string{"--session-id", id}, restartArgs(args)...)
}

// ClaudeFreshArgs are Claude Code's arguments to start a new session with
// prime as its first prompt: the user's own without any choice of session
// or prompt of theirs.
func ClaudeFreshArgs(args []string, prime string) []string {
	out := restartArgs(args)
	if prime == "" {
		return out
	}
	return append(out, prime)
}

// restartArgs is args without the options that choose a session and
// without the prompt.
func restartArgs(args []string) []string {
	out := make([]string, 0, len(args))
	for _, a := range parseClaude(args) {
		switch a.Name {
		case "", "--continue", "-c", "--fork-session", "--resume", "-r", "--session-id":
			continue
		}
		out = append(out, a.Tokens...)
	}
	return out
}

// NewSessionID is a random (version 4) UUID, as --session-id takes.
func NewSessionID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// isUUID says whether s is a UUID in its usual text form (a session id,
// not a session's name).
func isUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i, r := range s {
		switch {
		case i == 8 || i == 13 || i == 18 || i == 23:
			if r != '-' {
				return false
			}
		case !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F'):
			return false
		}
	}
	return true
}
