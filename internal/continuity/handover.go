package continuity

// The project's latest work as a new session gets it, in whichever client
// it runs: handoffs and checkpoints are the project's, not a client's
// (every client's hooks write them to the same places), so a handoff
// written in Claude Code resumes in Codex CLI and the other way round.
// What differs by client is only the framing: which client the work came
// from, which one reads it, and the names cairn gives tools.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cairn-agent/cairn/internal/checkpoint"
	"github.com/cairn-agent/cairn/internal/handoff"
	"github.com/cairn-agent/cairn/internal/sqlite"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// ErrNoWork says the project has neither a checkpoint nor a handoff.
var ErrNoWork = errors.New("no checkpoint or handoff")

// Handover is the project's newest handoff and latest checkpoint, each
// with the session and client it came from. Either may be missing, not
// both.
type Handover struct {
	// HandoffPath is the newest handoff's file, "" when there is none.
	HandoffPath string `json:"handoff_path"`
	Handoff     string `json:"handoff"`
	// HandoffSession and HandoffClient are the session that wrote it and
	// the client it ran in; the client is "" when the handoff does not
	// say (one written before cairn recorded it) and no one could tell.
	HandoffSession string `json:"handoff_session,omitempty"`
	HandoffClient  string `json:"handoff_client,omitempty"`
	// Checkpoint is the project's latest, nil when there is none; its
	// Client says where it ran. CheckpointText is its resume text.
	Checkpoint     *checkpoint.Checkpoint `json:"checkpoint,omitempty"`
	CheckpointText string                 `json:"text,omitempty"`
}

// Handover finds the project's newest handoff and latest checkpoint,
// whichever client's sessions wrote them. ErrNoWork when there is
// neither.
func (k *Keeper) Handover(ctx context.Context, project string) (Handover, error) {
	var h Handover
	c, text, err := k.Resume(ctx, project)
	switch {
	case err == nil:
		if c.Client == "" {
			c.Client = clientOf(c.Transcript)
		}
		h.Checkpoint, h.CheckpointText = &c, text
	case !errors.Is(err, sqlite.ErrNotFound):
		return h, err
	}
	if p, ok := handoff.Newest(project); ok {
		data, err := os.ReadFile(p)
		if err != nil {
			return h, fmt.Errorf("read handoff: %w", err)
		}
		h.HandoffPath, h.Handoff = p, string(data)
		h.HandoffClient, h.HandoffSession = handoff.Origin(p)
		if h.HandoffClient == "" && h.Checkpoint != nil && h.HandoffSession == h.Checkpoint.SessionID {
			h.HandoffClient = h.Checkpoint.Client
		}
	}
	if h.Checkpoint == nil && h.HandoffPath == "" {
		return h, ErrNoWork
	}
	return h, nil
}

// clientOf tells the client that wrote the transcript at path from its
// first line, "" when it cannot be read.
func clientOf(path string) string {
	if path == "" {
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	buf := make([]byte, 4096)
	n, _ := f.Read(buf)
	line, _, _ := strings.Cut(string(buf[:n]), "\n")
	if strings.TrimSpace(line) == "" {
		return ""
	}
	return transcript.Sniff([]byte(line))
}

// Text is the handover as a session of the reader client gets it
// (transcript.Session's Client: claude-code, codex): a header that says
// where the work came from and where it is read, the handoff, then the
// checkpoint's resume text.
func (h Handover) Text(reader string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Resuming earlier work in %s (cairn)\n\n", title(reader))
	var from []string
	if h.HandoffPath != "" {
		from = append(from, fmt.Sprintf("the newest handoff, %s, written by %s", relTo(h.HandoffPath), origin(h.HandoffSession, h.HandoffClient)))
	}
	if c := h.Checkpoint; c != nil {
		from = append(from, fmt.Sprintf("the latest checkpoint, %d, of %s", c.ID, origin(c.SessionID, c.Client)))
	}
	fmt.Fprintf(&b, "This is the project's latest work: %s.", strings.Join(from, "; then "))
	if other := h.otherClients(reader); len(other) > 0 {
		fmt.Fprintf(&b, " That work ran in %s, not in %s: the files, commands and todos are this project's all the same, so continue it here.", strings.Join(other, " and "), title(reader))
	}
	if reader != transcript.ClaudeCode {
		// The Session's vocabulary is Claude Code's, whatever client the
		// transcript came from (see internal/transcript).
		b.WriteString(" cairn names tools as Claude Code does: Bash is a shell command, Write and Edit are file writes and edits, TodoWrite is the todo list.")
	}
	b.WriteString("\n")
	if h.HandoffPath != "" {
		fmt.Fprintf(&b, "\n<!-- %s -->\n%s", h.HandoffPath, h.Handoff)
		if !strings.HasSuffix(h.Handoff, "\n") {
			b.WriteString("\n")
		}
	}
	if h.Checkpoint != nil {
		if h.HandoffPath != "" {
			b.WriteString("\n---\n")
		}
		b.WriteString("\n")
		b.WriteString(h.CheckpointText)
	}
	return b.String()
}

// otherClients are the clients the work came from that are not the
// reader's, as people name them.
func (h Handover) otherClients(reader string) []string {
	var out []string
	for _, c := range []string{h.HandoffClient, h.checkpointClient()} {
		if c != "" && c != reader && !slices.Contains(out, title(c)) {
			out = append(out, title(c))
		}
	}
	return out
}

func (h Handover) checkpointClient() string {
	if h.Checkpoint == nil {
		return ""
	}
	return h.Checkpoint.Client
}

func title(client string) string {
	if client == "" {
		return "this client"
	}
	return transcript.ClientTitle(client)
}

// origin names a session and its client: "Claude Code session sess-1".
func origin(session, client string) string {
	s := "session " + session
	if session == "" {
		s = "a session"
	}
	if client == "" {
		return s + " (client not recorded)"
	}
	return transcript.ClientTitle(client) + " " + s
}

// relTo shortens a handoff's path to the project's .claude/handoffs/...
func relTo(path string) string {
	dir := filepath.Dir(path)
	if filepath.ToSlash(filepath.Join(filepath.Base(filepath.Dir(dir)), filepath.Base(dir))) == handoff.Dir {
		return handoff.Dir + "/" + filepath.Base(path)
	}
	return path
}
