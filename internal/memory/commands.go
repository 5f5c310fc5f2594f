package memory

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	"github.com/cairn-agent/cairn/internal/redact"
	"github.com/cairn-agent/cairn/internal/text"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// What the user typed after a slash ("/compact and continue with the
// remaining tasks", a skill with its arguments, "/model") is not a prompt
// to the session, so it is not among its prompts, yet it says what the
// user wanted as much as one; and what such a command printed ("Kept
// model as Default") is said nowhere else. Each is kept as a prompt.

// stdoutWithin is how many lines after a slash command its output is
// looked for in.
const stdoutWithin = 6

// userCommands are the slash commands the user typed in the session,
// with their arguments and what they printed, one observation each,
// read back with at from the transcript's lines (those out of reach are
// left out).
func userCommands(base Observation, s *transcript.Session, at func(int) []byte) []Observation {
	var out []Observation
	for n := 1; n <= s.Lines; n++ {
		line := at(n)
		if !bytes.Contains(line, []byte("<command-name>")) {
			continue
		}
		c, ok := commandLine(line)
		if !ok || c.name == "" {
			continue
		}
		name, args := tagged(c.text, "command-name"), tagged(c.text, "command-args")
		printed := tagged(c.text, "local-command-stdout")
		for m := n + 1; m <= n+stdoutWithin && printed == ""; m++ {
			next := at(m)
			if bytes.Contains(next, []byte("<command-name>")) {
				break
			}
			if bytes.Contains(next, []byte("<local-command-stdout>")) {
				if d, ok := commandLine(next); ok {
					printed = tagged(d.text, "local-command-stdout")
				}
			}
		}
		printed = strings.Join(outputLines(printed), " ")
		if name == "" || args == "" && printed == "" {
			continue // a bare /clear says nothing
		}
		o := base
		o.Kind = KindPrompt
		if !c.time.IsZero() {
			o.Time = c.time
		}
		o.Title = "The user ran " + name
		if args != "" {
			o.Title += " " + text.ClipLine(args, 120)
		}
		if printed != "" {
			o.Title += ": " + text.ClipLine(printed, 80)
		}
		o.Body = "Command: " + name
		if args != "" {
			o.Body += "\nArguments: " + text.Clip(args, 600)
		}
		if printed != "" {
			o.Body += "\nIt printed: " + text.Clip(printed, 400)
		}
		if before := agentBefore(at, n); before != "" {
			o.Body += "\nAfter the agent said: " + text.Clip(before, 300)
		}
		o.Files = pathsIn(args, nil)
		o.key = "slash " + c.time.UTC().Format(time.RFC3339Nano) + " " + name + " " + args
		out = append(out, o)
	}
	return out
}

// slashLine is a transcript line that holds a slash command or its
// output: its text (a user message's or a system line's) and time.
type slashLine struct {
	name, text string
	time       time.Time
}

// commandLine reads a user line (its content a string) or a system line
// (Claude Code writes a local command's output as one).
func commandLine(line []byte) (slashLine, bool) {
	var m struct {
		Type      string    `json:"type"`
		Timestamp time.Time `json:"timestamp"`
		Sidechain bool      `json:"isSidechain"`
		Content   string    `json:"content"`
		Message   struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal(line, &m) != nil || m.Sidechain {
		return slashLine{}, false
	}
	t := m.Content
	if m.Type == "user" {
		if json.Unmarshal(m.Message.Content, &t) != nil {
			return slashLine{}, false
		}
	}
	t = redact.String(stripEscapes(t))
	return slashLine{name: tagged(t, "command-name"), text: t, time: m.Timestamp}, t != ""
}

// tagged is the trimmed text between <tag> and </tag> in s, "" when s has
// none.
func tagged(s, tag string) string {
	_, rest, ok := strings.Cut(s, "<"+tag+">")
	if !ok {
		return ""
	}
	in, _, _ := strings.Cut(rest, "</"+tag+">")
	return strings.TrimSpace(in)
}
