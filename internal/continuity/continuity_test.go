package continuity

import (
	"testing"

	"github.com/cairn-agent/cairn/internal/transcript"
)

func turn(line int, tokens int64) transcript.Turn {
	return transcript.Turn{Line: line, Usage: transcript.Usage{Input: tokens}}
}

func TestLatest(t *testing.T) {
	boundary := transcript.Compaction{Trigger: "auto", PreTokens: 167000, PostTokens: 9000, Line: 3, TurnsBefore: 1}
	second := transcript.Compaction{Trigger: "manual", PreTokens: 120000, PostTokens: 8000, Line: 6, TurnsBefore: 2}
	tests := []struct {
		name string
		s    transcript.Session
		want string // key, "" for none
	}{
		{"nothing", transcript.Session{Turns: []transcript.Turn{turn(1, 1000), turn(2, 2000)}}, ""},
		{"boundary", transcript.Session{Turns: []transcript.Turn{turn(1, 160000), turn(4, 9000)}, Compactions: []transcript.Compaction{boundary}}, "c1"},
		// Issue 8: an older compaction the session never had restored is
		// superseded by the newer one.
		{"the latest of two", transcript.Session{Turns: []transcript.Turn{turn(1, 160000), turn(4, 9000), turn(7, 5000)}, Compactions: []transcript.Compaction{boundary, second}}, "c2"},
		{"drop without boundary", transcript.Session{Turns: []transcript.Turn{turn(1, 150000), turn(2, 30000)}}, "d2"},
		{"drop before the boundary", transcript.Session{Turns: []transcript.Turn{turn(1, 150000), turn(2, 30000), turn(4, 9000)}, Compactions: []transcript.Compaction{{Line: 3, TurnsBefore: 2}}}, "c1"},
		{"drop after the boundary", transcript.Session{Turns: []transcript.Turn{turn(1, 150000), turn(4, 90000), turn(5, 9000)}, Compactions: []transcript.Compaction{{Line: 3, TurnsBefore: 1}}}, "d3"},
		{"small drop", transcript.Session{Turns: []transcript.Turn{turn(1, 15000), turn(2, 3000)}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, ok := latest(&tt.s)
			if got := map[bool]string{true: d.Key, false: ""}[ok]; got != tt.want {
				t.Errorf("latest = %q (%v), want %q", d.Key, ok, tt.want)
			}
		})
	}
}

// What reached the model: the transcript's word where the client writes
// it, the record's otherwise; never a third time.
func TestReached(t *testing.T) {
	comp := []transcript.Compaction{{Line: 10, TurnsBefore: 3}}
	turns := func(n int) []transcript.Turn { return make([]transcript.Turn, n) }
	tests := []struct {
		name   string
		s      transcript.Session
		record []sent
		at     string
		want   bool
	}{
		{"nothing", transcript.Session{Compactions: comp, Turns: turns(4)}, nil, AtPrompt, false},
		{"recorded, client writes no answers", transcript.Session{Compactions: comp, Turns: turns(6)}, []sent{{"c1", 3}}, AtPrompt, true},
		{"confirmed by the transcript", transcript.Session{Compactions: comp, Turns: turns(6), HookAnswers: true, RestoreLines: []int{12}}, nil, AtPrompt, true},
		{"a restore line before the boundary is not this one", transcript.Session{Compactions: comp, Turns: turns(6), HookAnswers: true, RestoreLines: []int{8}}, []sent{{"c1", 3}}, AtPrompt, false},
		{"recorded, no reply since: in flight", transcript.Session{Compactions: comp, Turns: turns(3), HookAnswers: true}, []sent{{"c1", 3}}, AtTool, true},
		{"recorded, a reply since, not in the transcript: thrown away", transcript.Session{Compactions: comp, Turns: turns(4), HookAnswers: true}, []sent{{"c1", 3}}, AtPrompt, false},
		{"delivered twice already", transcript.Session{Compactions: comp, Turns: turns(9), HookAnswers: true}, []sent{{"c1", 3}, {"c1", 5}}, AtPrompt, true},
		{"at SessionStart the record decides", transcript.Session{Compactions: comp, Turns: turns(9), HookAnswers: true}, []sent{{"c1", 3}}, AtSessionStart, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := reached(&tt.s, tt.record, "c1", tt.at); got != tt.want {
				t.Errorf("reached = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestUnderWay(t *testing.T) {
	boundary := transcript.Compaction{Trigger: "auto", PreTokens: 167000, PostTokens: 9000, Line: 3, TurnsBefore: 1}
	two := []transcript.Turn{turn(1, 160000), turn(4, 9000)}
	tests := []struct {
		name string
		s    transcript.Session
		p    *pending
		want string
	}{
		{"first, boundary not written yet", transcript.Session{Turns: two[:1]}, nil, "c1"},
		{"announced by PreCompact", transcript.Session{Turns: two[:1]}, &pending{Key: "c1", Turns: 1}, "c1"},
		{"boundary already written", transcript.Session{Turns: two[:1], Compactions: []transcript.Compaction{boundary}}, nil, "c1"},
		{"second, boundary not written yet", transcript.Session{Turns: two, Compactions: []transcript.Compaction{boundary}}, nil, "c2"},
		// Two compactions with no turn between: only the announcement
		// tells the second from the first.
		{"two in a row", transcript.Session{Turns: two[:1], Compactions: []transcript.Compaction{boundary}}, &pending{Key: "c2", Turns: 1}, "c2"},
		// An announcement from before later turns is not this compaction's.
		{"stale announcement", transcript.Session{Turns: two, Compactions: []transcript.Compaction{boundary}}, &pending{Key: "c1", Turns: 1}, "c2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := underWay(&tt.s, tt.p).Key; got != tt.want {
				t.Errorf("underWay = %q, want %q", got, tt.want)
			}
		})
	}
}
