package continuity

import (
	"path/filepath"
	"testing"

	"github.com/cairn-agent/cairn/internal/state"
	"github.com/cairn-agent/cairn/internal/transcript"
	"github.com/google/go-cmp/cmp"
)

func turn(line int, tokens int64) transcript.Turn {
	return transcript.Turn{Line: line, Usage: transcript.Usage{Input: tokens}}
}

func TestDetect(t *testing.T) {
	boundary := transcript.Compaction{Trigger: "auto", PreTokens: 167000, PostTokens: 9000, Line: 3}
	tests := []struct {
		name string
		s    transcript.Session
		m    marks
		at   string
		want string // key, "" for none
	}{
		{"nothing", transcript.Session{Turns: []transcript.Turn{turn(1, 1000), turn(2, 2000)}}, marks{}, AtPrompt, ""},
		{"boundary at prompt", transcript.Session{Turns: []transcript.Turn{turn(1, 160000), turn(4, 9000)}, Compactions: []transcript.Compaction{boundary}}, marks{}, AtPrompt, "c1"},
		{"boundary restored", transcript.Session{Turns: []transcript.Turn{turn(1, 160000), turn(4, 9000)}, Compactions: []transcript.Compaction{boundary}}, marks{restored: []string{"c1"}}, AtPrompt, ""},
		{"drop without boundary", transcript.Session{Turns: []transcript.Turn{turn(1, 150000), turn(2, 30000)}}, marks{}, AtPrompt, "d2"},
		{"drop restored", transcript.Session{Turns: []transcript.Turn{turn(1, 150000), turn(2, 30000)}}, marks{restored: []string{"d2"}}, AtPrompt, ""},
		{"small drop", transcript.Session{Turns: []transcript.Turn{turn(1, 15000), turn(2, 3000)}}, marks{}, AtPrompt, ""},
		{"drops are not looked for at SessionStart", transcript.Session{Offset: 10, Turns: []transcript.Turn{turn(1, 150000), turn(2, 30000)}}, marks{started: 10}, AtSessionStart, ""},
		{"announced by PreCompact", transcript.Session{Offset: 10}, marks{pending: Detected{Key: "c1", Trigger: "manual"}}, AtSessionStart, "c1"},
		{"boundary not written yet", transcript.Session{Offset: 10, Compactions: []transcript.Compaction{boundary}}, marks{restored: []string{"c1"}}, AtSessionStart, "c2"},
		{"boundary already written", transcript.Session{Offset: 10, Compactions: []transcript.Compaction{boundary}}, marks{}, AtSessionStart, "c1"},
		{"repeated SessionStart", transcript.Session{Offset: 10, Compactions: []transcript.Compaction{boundary}}, marks{restored: []string{"c1"}, started: 10}, AtSessionStart, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, ok := detect(&tt.s, tt.m, tt.at)
			if got := map[bool]string{true: d.Key, false: ""}[ok]; got != tt.want {
				t.Errorf("detect = %q (%v), want %q", d.Key, ok, tt.want)
			}
		})
	}
}

func TestMarksRoundTrip(t *testing.T) {
	k := &Keeper{State: state.Store{Dir: t.TempDir()}}
	path := filepath.Join(t.TempDir(), "s.jsonl")
	want := marks{restored: []string{"c1", "d7"}, pending: Detected{Key: "c2", Trigger: "auto", PreTokens: 99000}, started: 12345}
	if err := k.saveMarks(path, want); err != nil {
		t.Fatal(err)
	}
	got := k.loadMarks(path)
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(marks{})); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if m := k.loadMarks(filepath.Join(t.TempDir(), "none.jsonl")); len(m.restored) != 0 || m.pending.Key != "" {
		t.Errorf("missing marks: %+v", m)
	}
}
