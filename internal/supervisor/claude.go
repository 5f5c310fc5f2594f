package supervisor

import (
	"slices"
	"strings"
)

// ClaudeResumeArgs are Claude Code's arguments to resume session id: the
// user's own with any choice of session taken out (--resume, --continue,
// --session-id, --fork-session), and --resume id added.
func ClaudeResumeArgs(args []string, id string) []string {
	return append([]string{"--resume", id}, withoutSession(args)...)
}

// ClaudeFreshArgs are Claude Code's arguments to start a new session with
// prime as its first prompt: the user's own without any choice of session.
func ClaudeFreshArgs(args []string, prime string) []string {
	out := withoutSession(args)
	if prime == "" {
		return out
	}
	if i := slices.Index(out, "--"); i >= 0 {
		out = out[:i] // a prompt the user gave is the old session's
	}
	return append(out, prime)
}

// withoutSession is args without the options that choose a session.
func withoutSession(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, _, hasValue := strings.Cut(a, "=")
		switch name {
		case "--continue", "-c", "--fork-session":
			continue
		case "--resume", "-r", "--session-id":
			// The value is optional for --resume: a next argument that
			// is not a flag is taken as it.
			if !hasValue && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
				i++
			}
			continue
		case "--":
			out = append(out, args[i:]...)
			i = len(args)
			continue
		}
		out = append(out, a)
	}
	return out
}
