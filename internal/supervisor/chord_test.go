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
		// The prompt was the session's first: a restart must not send it
		// again. An option's value is not a prompt.
		{"prompt dropped", []string{"fix the bug"}, []string{"--resume", "S"}},
		{"prompt after options dropped", []string{"--model", "opus", "fix the bug", "--verbose"},
			[]string{"--resume", "S", "--model", "opus", "--verbose"}},
		{"prompt after --", []string{"--verbose", "--", "-x is broken"}, []string{"--resume", "S", "--verbose"}},
		{"variadic values kept", []string{"--allowedTools", "Bash(git:*)", "Edit", "--add-dir", "../lib"},
			[]string{"--resume", "S", "--allowedTools", "Bash(git:*)", "Edit", "--add-dir", "../lib"}},
		{"value that looks like a flag", []string{"--append-system-prompt", "-be terse", "go"},
			[]string{"--resume", "S", "--append-system-prompt", "-be terse"}},
		{"optional value", []string{"--debug", "hooks", "--model=opus", "go"}, []string{"--resume", "S", "--debug", "hooks", "--model=opus"}},
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

func TestClaudePin(t *testing.T) {
	const id = "0b8f3c1e-5d6a-4f7b-9c2d-3e4f5a6b7c8d"
	newID := func() string { return "NEW" }
	tests := []struct {
		name     string
		args     []string
		wantArgs []string
		wantID   string
	}{
		{"nothing given: pinned", []string{"fix the bug"}, []string{"--session-id", "NEW", "fix the bug"}, "NEW"},
		{"pinned before a variadic option", []string{"--allowedTools", "Edit"}, []string{"--session-id", "NEW", "--allowedTools", "Edit"}, "NEW"},
		{"the user's session id", []string{"--session-id", id}, []string{"--session-id", id}, id},
		{"the user's session id=", []string{"--session-id=" + id}, []string{"--session-id=" + id}, id},
		{"resume ID", []string{"--resume", id, "go on"}, []string{"--resume", id, "go on"}, id},
		{"-r ID", []string{"-r", id}, []string{"-r", id}, id},
		{"resume by name: the client's choice", []string{"--resume", "invoices"}, []string{"--resume", "invoices"}, ""},
		{"resume picker", []string{"--resume"}, []string{"--resume"}, ""},
		{"continue", []string{"-c"}, []string{"-c"}, ""},
		{"continue forked: still the client's", []string{"--continue", "--fork-session"}, []string{"--continue", "--fork-session"}, ""},
		{"fork: a new id", []string{"--resume", id, "--fork-session"}, []string{"--session-id", "NEW", "--resume", id, "--fork-session"}, "NEW"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args, got := ClaudePin(tt.args, newID)
			if !slices.Equal(args, tt.wantArgs) || got != tt.wantID {
				t.Errorf("ClaudePin(%q) = %q, %q; want %q, %q", tt.args, args, got, tt.wantArgs, tt.wantID)
			}
		})
	}
	if s := NewSessionID(); !isUUID(s) || s[14] != '4' || s == NewSessionID() {
		t.Errorf("NewSessionID() = %q", s)
	}
}

func TestClaudePrints(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want bool
	}{
		{[]string{"-p", "hi"}, true},
		{[]string{"--model", "opus", "--print"}, true},
		{[]string{"--append-system-prompt", "-p"}, false}, // a value
		{[]string{"--", "-p"}, false},                     // a prompt
		{[]string{"--verbose"}, false},
	} {
		if got := ClaudePrints(tt.args); got != tt.want {
			t.Errorf("ClaudePrints(%q) = %v", tt.args, got)
		}
	}
}
