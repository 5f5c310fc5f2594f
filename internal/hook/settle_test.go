package hook

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/config"
	"github.com/cairn-agent/cairn/internal/continuity"
)

// A session's end job collects old state, at most daily, unless the
// project's configuration says gc.auto = off.
func TestSessionEndJobCollects(t *testing.T) {
	for _, tc := range []struct {
		name string
		conf string
		gone bool
	}{
		{"on by default", "", true},
		{"off", "gc.auto = off\n", false},
		{"older than the configured age", "gc.older-than = 200d\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			project := filepath.Join(w.dir, "proj")
			os.MkdirAll(filepath.Join(project, ".claude"), 0o755)
			if tc.conf != "" {
				os.WriteFile(filepath.Join(project, config.File), []byte(tc.conf), 0o644)
			}
			old := filepath.Join(w.stateDir(), "sessions", "gone-0123.head")
			os.MkdirAll(filepath.Dir(old), 0o700)
			os.WriteFile(old, []byte("h"), 0o600)
			at := w.now.Add(-100 * 24 * time.Hour)
			os.Chtimes(old, at, at)
			r := w.runner(&bytes.Buffer{}, &bytes.Buffer{})
			r.Settle(context.Background(), continuity.Job{Kind: continuity.JobSessionEnd, Project: project, Path: filepath.Join(w.dir, "none.jsonl")})
			if _, err := os.Stat(old); os.IsNotExist(err) != tc.gone {
				t.Errorf("old state removed: %v, want %v (log: %s)", os.IsNotExist(err), tc.gone, w.log())
			}
		})
	}
}
