package hook

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/cairn-agent/cairn/internal/continuity"
)

// Settle does a job a hook left for later (continuity.Job), in a process
// of its own that nothing waits for, within continuity.JobTimeout. Like a
// hook it never fails: what went wrong is a line in the log, as the
// hook's own would have been.
func (r *Runner) Settle(ctx context.Context, j continuity.Job) {
	if r.Agent.Name == "" {
		r.Agent = ClaudeCode()
	}
	event := "job " + j.Kind
	// The session is the transcript's name (a Claude Code session's id),
	// for the job's own line and its warnings' (Warner).
	sid := strings.TrimSuffix(filepath.Base(j.Path), ".jsonl")
	r.mu.Lock()
	r.session = sid
	r.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, continuity.JobTimeout)
	defer cancel()
	k := r.Keeper
	k.Settling = true
	defer k.Close()
	err := func() (err error) {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("panic: %v: %s", p, firstFrames(debug.Stack()))
			}
		}()
		cfg := r.configure(event, sid, j.Project)
		k.AtCompaction = knowledge{cfg: cfg, project: j.Project, now: r.Now()}.atCompaction(k)
		if err := k.Settle(ctx, j); err != nil {
			return err
		}
		// A session's end is when old state is collected: nothing
		// waits on its job, and it comes often enough. At most daily.
		if j.Kind == continuity.JobSessionEnd && cfg.GCAuto {
			if _, _, err := k.AutoGC(ctx, cfg.Retention); err != nil {
				return fmt.Errorf("gc: %w", err)
			}
		}
		return nil
	}()
	if err != nil {
		r.logLine(r.Now(), event, sid, oneLine(err.Error())+" (transcript "+j.Path+")")
	}
}
