package ledger

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/fixtures"
)

// fixturePath is the path of a real transcript, extracted once per test
// binary.
func fixturePath(t testing.TB, name string) string {
	t.Helper()
	p, err := fixtures.Path(name)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestMain(m *testing.M) {
	code := m.Run()
	fixtures.Remove()
	os.Exit(code)
}

// event is one thing the feeder hands the ledger, in transcript order.
type event struct {
	kind    string // "assistant", "user", "file", "command", "todo", "compact"
	turn    int
	line    int
	time    time.Time
	text    string
	ok      bool
	queued  bool // a prompt typed while the assistant worked (queue-operation)
	summary bool
}

// line is the part of a transcript line the feeder reads, decoded with
// encoding/json: independent of the transcript engine's own walker.
type line struct {
	Type             string          `json:"type"`
	Subtype          string          `json:"subtype"`
	Operation        string          `json:"operation"`
	Content          json.RawMessage `json:"content"`
	IsSidechain      bool            `json:"isSidechain"`
	IsMeta           bool            `json:"isMeta"`
	IsCompactSummary bool            `json:"isCompactSummary"`
	VisibleOnly      bool            `json:"isVisibleInTranscriptOnly"`
	Timestamp        time.Time       `json:"timestamp"`
	Message          struct {
		ID      string          `json:"id"`
		Model   string          `json:"model"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	IsError   bool            `json:"is_error"`
}

type toolInput struct {
	FilePath     string `json:"file_path"`
	NotebookPath string `json:"notebook_path"`
	Command      string `json:"command"`
	Todos        []struct {
		Content string `json:"content"`
		Status  string `json:"status"`
	} `json:"todos"`
	Subject string `json:"subject"`
	Status  string `json:"status"`
}

// notTyped: user text the user did not type.
func notTyped(s string) bool {
	t := strings.TrimSpace(s)
	for _, p := range []string{"<command-", "<local-command", "<task-notification", "<system-reminder", "[Request interrupted", "Caveat:", "<bash-", "<user-memory"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return t == ""
}

// readEvents decodes a transcript into the ledger's events: assistant text
// blocks; user prompts (not tool results, meta lines, compaction summaries,
// command wrappers, notifications or reminders), including prompts queued
// while the assistant worked; Write/Edit/MultiEdit/NotebookEdit paths and
// Bash commands when their result arrives; todos marked completed; and the
// compaction boundaries.
func readEvents(t testing.TB, path string) []event {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	var out []event
	turns := map[string]bool{}
	calls := map[string]struct {
		name string
		in   toolInput
	}{}
	doneTodos := map[string]bool{}
	n := 0
	for sc.Scan() {
		n++
		var l line
		if json.Unmarshal(sc.Bytes(), &l) != nil {
			continue
		}
		turn := len(turns)
		switch l.Type {
		case "system":
			if l.Subtype == "compact_boundary" {
				out = append(out, event{kind: "compact", line: n, turn: turn})
			}
		case "queue-operation":
			var s string
			if l.Operation == "enqueue" && json.Unmarshal(l.Content, &s) == nil && !notTyped(s) {
				out = append(out, event{kind: "user", line: n, turn: turn, time: l.Timestamp, text: s, queued: true})
			}
		case "assistant":
			if l.IsSidechain || l.Message.Model == "<synthetic>" {
				continue
			}
			if l.Message.ID != "" {
				turns[l.Message.ID] = true
				turn = len(turns)
			}
			var blocks []block
			json.Unmarshal(l.Message.Content, &blocks)
			for _, b := range blocks {
				switch b.Type {
				case "text":
					out = append(out, event{kind: "assistant", line: n, turn: turn, time: l.Timestamp, text: b.Text})
				case "tool_use":
					var in toolInput
					json.Unmarshal(b.Input, &in)
					calls[b.ID] = struct {
						name string
						in   toolInput
					}{b.Name, in}
					if b.Name == "TodoWrite" {
						for _, td := range in.Todos {
							if td.Status == "completed" && !doneTodos[td.Content] {
								doneTodos[td.Content] = true
								out = append(out, event{kind: "todo", line: n, turn: turn, text: td.Content})
							}
						}
					}
					if b.Name == "TaskUpdate" && in.Status == "completed" && in.Subject != "" {
						out = append(out, event{kind: "todo", line: n, turn: turn, text: in.Subject})
					}
				}
			}
		case "user":
			if l.IsSidechain {
				continue
			}
			var s string
			if json.Unmarshal(l.Message.Content, &s) == nil {
				if !l.IsMeta && !l.IsCompactSummary && !l.VisibleOnly && !notTyped(s) {
					out = append(out, event{kind: "user", line: n, turn: turn, time: l.Timestamp, text: s})
				}
				continue
			}
			var blocks []block
			json.Unmarshal(l.Message.Content, &blocks)
			var text []string
			for _, b := range blocks {
				switch b.Type {
				case "tool_result":
					c, ok := calls[b.ToolUseID]
					if !ok {
						continue
					}
					switch c.name {
					case "Write", "Edit", "MultiEdit", "NotebookEdit":
						p := c.in.FilePath
						if p == "" {
							p = c.in.NotebookPath
						}
						if !b.IsError && p != "" {
							out = append(out, event{kind: "file", line: n, turn: turn, text: p})
						}
					case "Bash":
						out = append(out, event{kind: "command", line: n, turn: turn, text: c.in.Command, ok: !b.IsError})
					}
				case "text":
					if !notTyped(b.Text) {
						text = append(text, b.Text)
					}
				}
			}
			if len(text) > 0 && !l.IsMeta && !l.IsCompactSummary && !l.VisibleOnly {
				out = append(out, event{kind: "user", line: n, turn: turn, time: l.Timestamp, text: strings.Join(text, "\n")})
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// feed hands events to the ledger, up to (not including) the first
// compaction when untilCompact is set.
func feed(l *Ledger, evs []event, untilCompact bool) {
	for _, e := range evs {
		switch e.kind {
		case "compact":
			if untilCompact {
				return
			}
		case "assistant":
			l.Assistant(e.turn, e.line, e.time, e.text)
		case "user":
			l.User(e.turn, e.line, e.time, e.text)
		case "file":
			l.FileChanged(e.turn, e.line, e.text)
		case "command":
			l.CommandEnded(e.turn, e.line, e.text, e.ok)
		case "todo":
			l.TodoCompleted(e.turn, e.line, e.text)
		}
	}
}
