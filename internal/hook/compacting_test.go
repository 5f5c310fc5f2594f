package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/continuity"
	"github.com/cairn-agent/cairn/internal/learn"
)

// Seed 004's capture and seed 001's last-compact.json are the compaction
// job's to write, first thing, from what PreCompact saw (its time, its
// trigger, the transcript before the compaction); a restore that runs
// before the job writes them itself, and whatever writes them does it
// once. Without a job (none can start) PreCompact writes them, as before.
func TestCompactionJobKeeps(t *testing.T) {
	for _, tc := range []struct {
		name string
		// startFails makes the job's start fail: PreCompact does its
		// work itself.
		startFails bool
		// restoreFirst runs SessionStart(compact) before the job.
		restoreFirst bool
	}{
		{name: "the job writes them"},
		{name: "the restore before the job writes them", restoreFirst: true},
		{name: "no job can start", startFails: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			var jobs []continuity.Job
			w.detach = func(j continuity.Job) error {
				if tc.startFails {
					return errors.New("no process")
				}
				jobs = append(jobs, j)
				return nil
			}
			s := w.session("sess-keep")
			flow := filepath.Join(s.project, ".claude")
			os.MkdirAll(flow, 0o755)
			os.WriteFile(filepath.Join(flow, "progress.md"), []byte("# Progress\n\n## 2026-03-01 — build: CSV quoting\nencoding/csv handles embedded newlines.\n"), 0o644)
			s.prompt("Export the invoices as CSV.")
			s.reply("ok", 150000)
			captures := filepath.Join(s.project, ".project", "compacts")
			marker := filepath.Join(flow, "context", learn.CompactFile)
			at := w.now

			w.run("PreCompact", s.payload("PreCompact", map[string]any{"trigger": "auto"}))
			kept := func() bool {
				got, _ := filepath.Glob(filepath.Join(captures, "*-autocompact.md"))
				_, err := os.Stat(marker)
				return len(got) > 0 || err == nil
			}
			if tc.startFails != kept() {
				t.Fatalf("after PreCompact, capture or marker written: %v, want %v (log: %s)", kept(), tc.startFails, w.log())
			}
			if !tc.startFails && len(jobs) != 1 {
				t.Fatalf("jobs started: %+v", jobs)
			}
			// The compaction: Claude Code appends its boundary and summary;
			// the job and the next hook run later.
			s.boundary("auto", 150000, 9000)
			w.now = at.Add(time.Minute)
			if tc.restoreFirst {
				text := restored(t, w.run("SessionStart", s.payload("SessionStart", map[string]any{"source": "compact"})))
				if !strings.Contains(text, "Restored working state") || !strings.Contains(text, "CSV quoting") {
					t.Errorf("the restore before the job lacks seed 001's guidance:\n%s", text)
				}
			}
			for _, j := range jobs {
				// Twice: a job started again after a restore does no harm.
				w.runner(&bytes.Buffer{}, &bytes.Buffer{}).Settle(context.Background(), j)
				w.runner(&bytes.Buffer{}, &bytes.Buffer{}).Settle(context.Background(), j)
			}

			got, _ := filepath.Glob(filepath.Join(captures, "*-autocompact.md"))
			if len(got) != 1 {
				t.Fatalf("captures: %v (log: %s)", got, w.log())
			}
			if want := at.Format("20060102_150405") + "-autocompact.md"; filepath.Base(got[0]) != want {
				t.Errorf("capture %s, want %s: stamped with PreCompact's time", filepath.Base(got[0]), want)
			}
			data, _ := os.ReadFile(got[0])
			for _, want := range []string{"**Timestamp:** " + at.Format(time.RFC3339), "sess-keep", s.path, "> Export the invoices as CSV."} {
				if !strings.Contains(string(data), want) {
					t.Errorf("capture lacks %q:\n%s", want, data)
				}
			}
			var m learn.CompactInfo
			if data, err := os.ReadFile(marker); err != nil || json.Unmarshal(data, &m) != nil {
				t.Fatalf("marker: %v: %s", err, data)
			}
			if !m.Timestamp.Equal(at) || m.Trigger != "auto" || m.UnpromotedEntries != 1 {
				t.Errorf("marker %+v, want PreCompact's time %v, trigger auto, 1 entry", m, at)
			}
			if l := w.log(); l != "" {
				t.Errorf("log: %s", l)
			}
		})
	}
}

// With flow.trim on, the compaction's job trims progress.md: the Stop
// hook's suggestion, which counts its entries, waits for the job or does
// its work first.
func TestStopAfterCompactionTrims(t *testing.T) {
	w := newWorld(t)
	var jobs []continuity.Job
	w.detach = func(j continuity.Job) error { jobs = append(jobs, j); return nil }
	s := w.session("sess-trim")
	flow := filepath.Join(s.project, ".claude")
	os.MkdirAll(flow, 0o755)
	os.WriteFile(filepath.Join(flow, "cairn.conf"), []byte("flow.trim = on\n"), 0o644)
	var progress strings.Builder
	progress.WriteString("# Progress\n")
	for i := range learn.DefaultKeep + 2 {
		fmt.Fprintf(&progress, "\n## 2026-03-01 — build: step %d\nDone.\n", i+1)
	}
	os.WriteFile(filepath.Join(flow, learn.Progress), []byte(progress.String()), 0o644)
	s.prompt("Export the invoices as CSV.")
	s.reply("ok", 150000)
	w.run("PreCompact", s.payload("PreCompact", map[string]any{"trigger": "auto"}))
	if len(jobs) != 1 {
		t.Fatalf("jobs: %+v", jobs)
	}
	s.boundary("auto", 150000, 9000)
	s.prompt("Go on.")
	s.reply("done", 9000)
	out := w.run("Stop", s.payload("Stop", nil))
	if want := fmt.Sprintf("progress.md has %d entries", learn.DefaultKeep); !strings.Contains(out, want) {
		t.Errorf("Stop before the job: %q, want %q", out, want)
	}
	if l := w.log(); l != "" {
		t.Errorf("log: %s", l)
	}
}
