package hook

import (
	"context"
	"fmt"
	"runtime/debug"
	"time"

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
		r.configure(event, "", j.Project)
		return k.Settle(ctx, j)
	}()
	if err != nil {
		r.log(fmt.Sprintf("%s %s transcript=%s: %s\n", r.Now().UTC().Format(time.RFC3339), event, j.Path, oneLine(err.Error())))
	}
}
