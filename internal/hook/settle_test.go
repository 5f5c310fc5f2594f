package hook

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
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

// A job's lines, its warnings and its configuration's errors included,
// read "<time> job <kind> session=<id>: ...": the session is the
// transcript's name (the log's readers, and the faults harness, match it).
func TestJobLogLines(t *testing.T) {
	w := newWorld(t)
	project := filepath.Join(w.dir, "proj")
	os.MkdirAll(filepath.Join(project, ".claude"), 0o755)
	os.WriteFile(filepath.Join(project, config.File), []byte("no such setting = 1\n"), 0o644)
	r := w.runner(&bytes.Buffer{}, &bytes.Buffer{})
	r.Settle(context.Background(), continuity.Job{Kind: continuity.JobSessionEnd, Project: project, Path: filepath.Join(w.dir, "0123-abcd.jsonl")})
	r.Warner("job " + continuity.JobSessionEnd)(errors.New("could not save state"))
	log := w.log()
	if !strings.Contains(log, " job "+continuity.JobSessionEnd+" session=0123-abcd: config: ") {
		t.Errorf("the configuration's error is not the job's line:\n%s", log)
	}
	if !strings.Contains(log, " job "+continuity.JobSessionEnd+" session=0123-abcd: could not save state") {
		t.Errorf("the warning is not the job's line:\n%s", log)
	}
	if strings.Contains(log, "hook job") || strings.Contains(log, "session=-") {
		t.Errorf("a job's line reads as a hook's or has no session:\n%s", log)
	}
}
