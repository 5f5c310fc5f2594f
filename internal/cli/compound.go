package cli

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cairn-agent/cairn/internal/claudecode"
	"github.com/cairn-agent/cairn/internal/config"
	"github.com/cairn-agent/cairn/internal/learn"
	"github.com/cairn-agent/cairn/internal/memory"
)

// flowDir is the project's Flow directory (config flow.dir), where
// progress.md, task_plan.md and the learnings files are.
func flowDir(root string) string {
	conf, _ := config.Load(root) // env() has reported its problems already
	dir := conf.FlowDir
	if dir == "" {
		dir = config.Default().FlowDir
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(root, dir)
	}
	return dir
}

// compoundCmd is `cairn compound [--promote N,M|none] [--session ID]`,
// which /compound runs: without --promote it lists progress.md's entries
// not yet in learnings, numbered; with it, it promotes exactly the entries
// named (numbers from that list, or ids), records the run in
// compound-last-run.json and resets the session's pressure marker. It
// never promotes an entry nobody named.
func compoundCmd() command {
	return command{
		args:    "[--promote N,M|none] [--session ID]",
		summary: "list the progress.md entries not yet in the learnings; promote the ones named",
		setup: func(fs *flag.FlagSet) runFunc {
			promote := fs.String("promote", "", "promote these entries: `N,M`, numbers from the list or ids, comma-separated (none: promote nothing, record the review)")
			session := fs.String("session", "", "the session whose pressure marker to reset: its `ID` (default: the project's latest)")
			return func(_ context.Context, a *App, args []string) error {
				if err := noArgs(args); err != nil {
					return err
				}
				return a.compound(*promote, *session)
			}
		},
	}
}

func (a *App) compound(promote, session string) error {
	e, err := a.env()
	if err != nil {
		return err
	}
	defer e.keeper.Close()
	// The last compaction's job writes its marker and trims progress.md.
	e.keeper.WaitJobs(context.Background())
	dir := flowDir(e.root)
	un, err := learn.Unpromoted(dir, dir)
	if err != nil {
		return withHint(err, "check %s", filepath.Join(dir, learn.Progress))
	}
	if promote == "" {
		if len(un) == 0 {
			fmt.Fprintf(a.Stdout, "nothing to promote: every entry of %s is in learnings\n", filepath.Join(dir, learn.Progress))
			return nil
		}
		fmt.Fprintf(a.Stdout, "%s of %s not yet in learnings:\n", nEntries(len(un)), filepath.Join(dir, learn.Progress))
		for i, x := range un {
			phase := x.Phase
			if phase == "" {
				phase = "general"
			}
			fmt.Fprintf(a.Stdout, "%2d. [%s] %s  (-> %s)\n", i+1, x.ID, x.Heading, learn.StockFile(phase))
		}
		fmt.Fprintln(a.Stdout, "promote with: cairn compound --promote N,M (or --promote none)")
		return nil
	}
	picked, err := pick(un, promote)
	if err != nil {
		return err
	}
	now := a.Now()
	for _, x := range picked {
		path, err := learn.Promote(dir, x, now)
		if err != nil {
			return err
		}
		e.keeper.Observe(context.Background(), memory.FromLearning(e.root, x, now))
		fmt.Fprintf(a.Stdout, "promoted [%s] %s -> %s\n", x.ID, x.Heading, path)
	}
	if err := learn.RecordCompound(learn.ContextDir(dir), now, len(picked)); err != nil {
		return err
	}
	id := session
	if id == "" || id == "${CLAUDE_SESSION_ID}" {
		if ss, err := claudecode.Sessions(e.projectDir); err == nil && len(ss) > 0 {
			id = ss[0].ID
		}
	}
	if err := learn.ResetPressure(e.stateDir, id); err != nil {
		fmt.Fprintf(a.Stderr, "cairn: warning: %v\n", err)
	}
	fmt.Fprintf(a.Stdout, "compound recorded: %d promoted, %d left in %s\n", len(picked), len(un)-len(picked), learn.Progress)
	return nil
}

// pick resolves --promote: list numbers (1-based) or entry ids, each at
// most once; "none" picks nothing.
func pick(un []learn.Entry, spec string) ([]learn.Entry, error) {
	if strings.EqualFold(strings.TrimSpace(spec), "none") {
		return nil, nil
	}
	var out []learn.Entry
	seen := map[int]bool{}
	for f := range strings.SplitSeq(spec, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		i := -1
		if n, err := strconv.Atoi(f); err == nil && len(f) < 8 {
			if n < 1 || n > len(un) {
				return nil, usageErrorf("no entry %d: the list has %d (run cairn compound to see it)", n, len(un))
			}
			i = n - 1
		} else {
			for j, x := range un {
				if x.ID == strings.ToLower(f) {
					i = j
				}
			}
			if i < 0 {
				return nil, usageErrorf("no unpromoted entry %q (run cairn compound to see the list)", f)
			}
		}
		if !seen[i] {
			seen[i] = true
			out = append(out, un[i])
		}
	}
	if len(out) == 0 {
		return nil, usageErrorf("give the entries to promote, e.g. --promote 1,3, or --promote none")
	}
	return out, nil
}

func nEntries(n int) string {
	if n == 1 {
		return "1 entry"
	}
	return strconv.Itoa(n) + " entries"
}
