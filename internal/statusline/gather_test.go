package statusline

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/meter"
	"github.com/cairn-agent/cairn/internal/pressure"
	"github.com/cairn-agent/cairn/internal/state"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// turn is one main-chain reply using tokens of context, with text of its
// own size.
func turn(n int, tokens int64, text string) string {
	b, _ := json.Marshal(map[string]any{
		"type": "assistant", "isSidechain": false, "sessionId": "sess-1", "cwd": "/home/user/proj",
		"timestamp": time.Date(2026, 3, 1, 11, 0, n, 0, time.UTC).Format(time.RFC3339),
		"message": map[string]any{"id": fmt.Sprintf("msg_%d", n), "model": "claude-opus-4-6", "role": "assistant",
			"content": []any{map[string]any{"type": "text", "text": text}},
			"usage":   map[string]any{"input_tokens": 10, "cache_read_input_tokens": tokens - 10, "output_tokens": 5}},
	})
	return string(b) + "\n"
}

const compaction = `{"type":"system","subtype":"compact_boundary","content":"Conversation compacted","isSidechain":false,"compactMetadata":{"trigger":"manual","preTokens":120000,"postTokens":9100},"timestamp":"2026-03-01T11:30:00Z"}
`

// world is a state directory and a transcript whose head the hooks saved.
type world struct {
	t     *testing.T
	dir   string
	path  string
	store state.Store
}

func newWorld(t *testing.T, lines ...string) *world {
	t.Helper()
	dir := t.TempDir()
	w := &world{t: t, dir: filepath.Join(dir, "state"), path: filepath.Join(dir, "sess-1.jsonl")}
	w.store = state.Store{Dir: w.dir}
	w.write(os.O_CREATE|os.O_TRUNC, lines...)
	return w
}

func (w *world) write(flag int, lines ...string) {
	f, err := os.OpenFile(w.path, flag|os.O_WRONLY, 0o600)
	if err != nil {
		w.t.Fatal(err)
	}
	f.WriteString(strings.Join(lines, ""))
	f.Close()
}

func (w *world) append(lines ...string) { w.write(os.O_APPEND, lines...) }

// saveHead does what a hook does: bring the session up to date and save it.
func (w *world) saveHead() {
	s := transcript.New(w.path)
	var p transcript.Parser
	if _, err := s.Update(&p); err != nil {
		w.t.Fatal(err)
	}
	if err := w.store.Save(s); err != nil {
		w.t.Fatal(err)
	}
}

func TestGather(t *testing.T) {
	big := strings.Repeat("x", maxFold)
	tests := []struct {
		name    string
		setup   func(w *world)
		payload func(w *world) Payload
		set     meter.Settings
		want    string // the rendered line
		source  string
	}{
		{
			name:    "the payload's usage and window",
			payload: func(w *world) Payload { return Payload{TranscriptPath: w.path, Window: 1000000, Tokens: 450000} },
			want:    "CTX ████░░░░░░ 46% L0", source: "statusline",
		},
		{
			name:    "an override wins over the payload's window",
			payload: func(w *world) Payload { return Payload{Window: 1000000, Tokens: 450000} },
			set:     meter.Settings{Window: 500000},
			want:    "CTX █████████░ 96% L3", source: "statusline",
		},
		{
			name:    "auto-compaction lowered by the environment",
			payload: func(w *world) Payload { return Payload{Window: 200000, Tokens: 100000} },
			set:     meter.Settings{PctOverride: 70},
			want:    "CTX ███████░░░ 79% L1", source: "statusline", // 70% of 180,000
		},
		{
			name:    "no usage: the head, with the payload's window",
			setup:   func(w *world) { w.append(turn(1, 50000, "a"), turn(2, 100000, "b")); w.saveHead() },
			payload: func(w *world) Payload { return Payload{TranscriptPath: w.path, Window: 1000000} },
			want:    "CTX █░░░░░░░░░ 10% L0", source: "usage",
		},
		{
			name:    "no usage, no window: the model's",
			setup:   func(w *world) { w.append(turn(1, 100000, "b")); w.saveHead() },
			payload: func(w *world) Payload { return Payload{TranscriptPath: w.path} },
			want:    "CTX █████░░░░░ 59% L0", source: "usage",
		},
		{
			name: "after /compact: the boundary appended since the head",
			setup: func(w *world) {
				w.append(turn(1, 120000, "b"))
				w.saveHead()
				w.append(compaction)
			},
			payload: func(w *world) Payload { return Payload{TranscriptPath: w.path, Window: 200000} },
			want:    "CTX ░░░░░░░░░░ 5% L0", source: "compact_boundary",
		},
		{
			name: "too much appended since the head: the head's reading",
			setup: func(w *world) {
				w.append(turn(1, 120000, "b"))
				w.saveHead()
				w.append(turn(2, 150000, big))
			},
			payload: func(w *world) Payload { return Payload{TranscriptPath: w.path} },
			want:    "CTX ███████░░░ 71% L1", source: "usage",
		},
		{
			name:    "no head, a small transcript: read whole",
			setup:   func(w *world) { w.append(turn(1, 150000, "b")) },
			payload: func(w *world) Payload { return Payload{TranscriptPath: w.path} },
			want:    "CTX ████████░░ 89% L2", source: "usage",
		},
		{
			name:    "no head, a large transcript: unknown",
			setup:   func(w *world) { w.append(turn(1, 150000, big)) },
			payload: func(w *world) Payload { return Payload{TranscriptPath: w.path} },
			want:    "CTX ?", source: "none",
		},
		{
			name: "the transcript was replaced: the head is not used",
			setup: func(w *world) {
				w.append(turn(1, 50000, "a"), turn(2, 60000, "b"))
				w.saveHead()
				w.write(os.O_TRUNC, turn(1, 150000, "c"), turn(2, 150000, "d"))
			},
			payload: func(w *world) Payload { return Payload{TranscriptPath: w.path} },
			want:    "CTX ████████░░ 89% L2", source: "usage",
		},
		{
			name:    "no transcript yet",
			payload: func(w *world) Payload { return Payload{TranscriptPath: w.path + ".missing", Window: 200000} },
			want:    "CTX ?", source: "none",
		},
		{
			name:    "no reply yet",
			payload: func(w *world) Payload { return Payload{TranscriptPath: w.path, Window: 200000} },
			want:    "CTX ?", source: "none",
		},
		{
			name:    "no transcript path",
			payload: func(w *world) Payload { return Payload{} },
			want:    "CTX ?", source: "none",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			if tt.setup != nil {
				tt.setup(w)
			}
			head, _ := os.ReadFile(w.store.File(w.path) + ".head")
			in := Gather(tt.payload(w), "/home/user/proj", Sources{StateDir: w.dir, Settings: tt.set, Pressure: pressure.Default(), Now: now})
			if got := Render(in); got != tt.want {
				t.Errorf("line %q, want %q", got, tt.want)
			}
			if in.Reading.Source != tt.source {
				t.Errorf("source %q, want %q", in.Reading.Source, tt.source)
			}
			// The status line never writes the hooks' state.
			if after, _ := os.ReadFile(w.store.File(w.path) + ".head"); string(after) != string(head) {
				t.Error("the head was written")
			}
		})
	}
}

func TestGatherCheckpoint(t *testing.T) {
	w := newWorld(t)
	project := "/home/user/proj"
	if err := RecordCheckpoint(w.dir, project, 3, "BILL-482", now.Add(-3*time.Minute)); err != nil {
		t.Fatal(err)
	}
	p := Payload{TranscriptPath: w.path, Window: 200000, Tokens: 137000}
	src := Sources{StateDir: w.dir, Pressure: pressure.Default(), Now: now}
	if got, want := Render(Gather(p, project, src)), "CTX ████████░░ 82% L1 · BILL-482 · ckpt 3m ago"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := Render(Gather(p, "/home/user/other", src)), "CTX ████████░░ 82% L1"; got != want {
		t.Errorf("another project: got %q, want %q", got, want)
	}
	src.StateDir = "" // no state directory: the payload's figures alone
	if got, want := Render(Gather(p, project, src)), "CTX ████████░░ 82% L1"; got != want {
		t.Errorf("no state: got %q, want %q", got, want)
	}
}
