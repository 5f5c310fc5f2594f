package supervisor

import (
	"slices"
	"testing"
	"time"
)

func TestChord(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 20, 0, 0, 0, time.UTC)
	type step struct {
		after   time.Duration
		in      string
		out     string
		restart bool
	}
	tests := []struct {
		name  string
		steps []step
	}{
		{"plain typing passes", []step{{0, "hello r", "hello r", false}}},
		{"ctrl+c then r at once", []step{{0, "\x03r", "\x03", true}}},
		{"ctrl+c then r within the window", []step{{0, "\x03", "\x03", false}, {time.Second, "r", "", true}}},
		{"ctrl+c then r too late", []step{{0, "\x03", "\x03", false}, {2 * time.Second, "r", "r", false}}},
		{"another key in between", []step{{0, "\x03x", "\x03x", false}, {0, "r", "r", false}}},
		{"what follows the r passes", []step{{0, "\x03rab", "\x03ab", true}}},
		{"ctrl+c twice then r", []step{{0, "\x03\x03r", "\x03\x03", true}}},
		{"one chord, one restart", []step{{0, "\x03r", "\x03", true}, {0, "r", "r", false}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := chord{window: 1500 * time.Millisecond}
			now := t0
			for i, s := range tt.steps {
				now = now.Add(s.after)
				out, restart := c.filter(now, []byte(s.in))
				if string(out) != s.out || restart != s.restart {
					t.Errorf("step %d: filter(%q) = %q, %v; want %q, %v", i, s.in, out, restart, s.out, s.restart)
				}
			}
		})
	}
}

func TestClaudeFreshArgs(t *testing.T) {
	tests := []struct {
		name  string
		args  []string
		prime string
		want  []string
	}{
		{"prime added", []string{"--model", "opus"}, "go on", []string{"--model", "opus", "go on"}},
		{"session dropped", []string{"--resume", "old", "-c"}, "go on", []string{"go on"}},
		{"the old prompt dropped", []string{"--verbose", "--", "old prompt"}, "go on", []string{"--verbose", "go on"}},
		{"no prime", []string{"--verbose"}, "", []string{"--verbose"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ClaudeFreshArgs(tt.args, tt.prime); !slices.Equal(got, tt.want) {
				t.Errorf("ClaudeFreshArgs(%q, %q) = %q; want %q", tt.args, tt.prime, got, tt.want)
			}
		})
	}
}

func TestClaudeResumeArgs(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"none", nil, []string{"--resume", "S"}},
		{"flags kept", []string{"--model", "opus", "--permission-mode", "acceptEdits"},
			[]string{"--resume", "S", "--model", "opus", "--permission-mode", "acceptEdits"}},
		{"continue dropped", []string{"-c", "--verbose"}, []string{"--resume", "S", "--verbose"}},
		{"resume with id dropped", []string{"--resume", "old", "--verbose"}, []string{"--resume", "S", "--verbose"}},
		{"resume without id dropped", []string{"-r", "--verbose"}, []string{"--resume", "S", "--verbose"}},
		{"resume= dropped", []string{"--resume=old"}, []string{"--resume", "S"}},
		{"session id dropped", []string{"--session-id", "x", "--fork-session"}, []string{"--resume", "S"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ClaudeResumeArgs(tt.args, "S")
			if len(got) != len(tt.want) {
				t.Fatalf("ClaudeResumeArgs(%q) = %q; want %q", tt.args, got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Fatalf("ClaudeResumeArgs(%q) = %q; want %q", tt.args, got, tt.want)
				}
			}
		})
	}
}
