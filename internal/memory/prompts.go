package memory

import (
	"strings"
	"time"

	"github.com/cairn-agent/cairn/internal/text"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// The user's own words are what a session was for and what it was told
// ("did you push?", "create the beads", "no BOM please"), and nothing the
// agent said keeps them. A prompt alone rarely shares a word with a
// question about it, though: "what did the user ask once the epic was
// finished" is answered by "did you push?" only beside the agent's report
// that the epic was finished. So each prompt is kept with what the agent
// had just said.

// promptBefore is how many transcript lines before a prompt are read for
// the agent's last words: tool results and hook lines sit between them.
const promptBefore = 40

// sessionPrompts are the session's prompts, one observation each, with
// the agent's text just before (read with at; none when out of reach).
func sessionPrompts(base Observation, s *transcript.Session, at func(int) []byte) []Observation {
	var out []Observation
	for _, p := range s.Prompts {
		said := strings.TrimSpace(p.Text)
		if said == "" {
			continue
		}
		o := base
		o.Kind = KindPrompt
		if !p.Time.IsZero() {
			o.Time = p.Time
		}
		o.Title = "The user said: " + text.ClipLine(said, 140)
		o.Body = said
		if before := agentBefore(at, p.Line); before != "" {
			o.Body += "\nAfter the agent said: " + text.Clip(before, 400)
		}
		o.Files = pathsIn(said, nil)
		o.key = "prompt " + p.Time.UTC().Format(time.RFC3339Nano) + " " + said
		// A later checkpoint reads the same transcript lines: the same
		// observation, stored once.
		out = append(out, o)
	}
	return out
}

// agentBefore is the assistant's text on the nearest line before line n
// that has some, "" when none is within promptBefore lines.
func agentBefore(at func(int) []byte, n int) string {
	for i := n - 1; i > 0 && i >= n-promptBefore; i-- {
		if t := assistantText(at(i)); t != "" {
			return t
		}
	}
	return ""
}

// agentAfter is the assistant's text on the nearest line after line n
// that has some, "" when none is within promptBefore lines.
func agentAfter(at func(int) []byte, n int) string {
	for i := n + 1; i <= n+promptBefore; i++ {
		if t := assistantText(at(i)); t != "" {
			return t
		}
	}
	return ""
}
