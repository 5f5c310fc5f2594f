package cli

import (
	"slices"
	"testing"

	"github.com/cairn-agent/cairn/internal/hook"
)

// TestJobEnv: the jobs of a hook of every turn, started with GOMAXPROCS=1
// by its command line, run without it; any other hook's jobs, and jobs
// whose GOMAXPROCS is another, inherit the environment as it is (nil).
func TestJobEnv(t *testing.T) {
	tests := []struct {
		name  string
		event string
		env   []string
		want  []string
	}{
		{"turn hook, one CPU", "UserPromptSubmit", []string{"HOME=/h", "GOMAXPROCS=1", "PATH=/bin"}, []string{"HOME=/h", "PATH=/bin"}},
		{"tool hook, one CPU", "PostToolUse", []string{"GOMAXPROCS=1"}, []string{}},
		{"turn hook, no GOMAXPROCS", "UserPromptSubmit", []string{"HOME=/h"}, nil},
		{"turn hook, the user's GOMAXPROCS", "PostToolUse", []string{"GOMAXPROCS=4"}, nil},
		{"compaction hook", "PreCompact", []string{"GOMAXPROCS=1"}, nil},
		{"unknown event", "Frobnicate", []string{"GOMAXPROCS=1"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := slices.Clone(tt.env)
			a := &App{Environ: func() []string { return env }}
			got := a.jobEnv(hook.ClaudeCode(), tt.event)
			if (got == nil) != (tt.want == nil) || !slices.Equal(got, tt.want) {
				t.Errorf("jobEnv = %q, want %q", got, tt.want)
			}
			if !slices.Equal(env, tt.env) {
				t.Errorf("jobEnv changed the environment it read: %q", env)
			}
		})
	}
}
