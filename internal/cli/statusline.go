package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/cairn-agent/cairn/internal/config"
	"github.com/cairn-agent/cairn/internal/hookevent"
	"github.com/cairn-agent/cairn/internal/meter"
	"github.com/cairn-agent/cairn/internal/state"
	"github.com/cairn-agent/cairn/internal/statusline"
)

// maxStatusInput bounds what is read of the status line's stdin, a JSON
// object of about 1.5 KB.
const maxStatusInput = 1 << 20

// statuslineCmd is `cairn statusline [--chain CMD]`, which Claude Code
// runs as its status line with a JSON payload on stdin. Like a hook it
// never fails: whatever goes wrong, it prints a line (at worst "CTX ?", or
// what is wrong with its arguments) and exits 0, since an empty status
// line tells the user nothing.
func statuslineCmd() command {
	return command{
		args:    "[--chain CMD] [--chain-timeout D]",
		summary: "print the status line from Claude Code's JSON payload on stdin (run by Claude Code, as cairn install wires it)",
		// It parses its own flags: a wrong one still makes a line.
		raw: true,
		setup: func(fs *flag.FlagSet) runFunc {
			chain := fs.String("chain", "", "the user's own status line command, `CMD`: it gets the same input, and its first line follows cairn's")
			timeout := fs.Duration("chain-timeout", statusline.ChainTimeout, "how long the chained command may take, as a duration `D` (500ms)")
			return func(ctx context.Context, a *App, args []string) error {
				rest, err := parse(fs, args)
				if err == nil {
					err = noArgs(rest)
				}
				if err != nil {
					if errors.Is(err, flag.ErrHelp) {
						return err
					}
					fmt.Fprintf(a.Stdout, "%s · cairn statusline: %v\n", statusline.Unknown, err)
					return nil
				}
				return a.statusline(ctx, *chain, *timeout)
			}
		},
	}
}

func (a *App) statusline(ctx context.Context, chain string, timeout time.Duration) error {
	data, rerr := io.ReadAll(io.LimitReader(a.Stdin, maxStatusInput))
	var chained *statusline.Chained
	if chain != "" {
		// It runs while cairn's own line is worked out, without the
		// GOMAXPROCS=1 install puts on cairn's command line
		// (hookevent.WithoutOneCPU): that was for cairn alone.
		var env []string
		if a.Environ != nil {
			env = hookevent.WithoutOneCPU(a.Environ())
		}
		chained = statusline.StartChain(ctx, chain, env, data, timeout)
	}
	line := statusline.Unknown
	if rerr == nil {
		line = a.statusLine(data)
	}
	if chained != nil {
		if other := chained.Line(); other != "" {
			line += statusline.Separator + other
		}
	}
	fmt.Fprintln(a.Stdout, line)
	return nil
}

// statusLine works out cairn's part of the line; a panic costs the figures,
// not the line.
func (a *App) statusLine(data []byte) (line string) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(a.Stderr, "cairn statusline: panic: %v\n", p)
			line = statusline.Unknown
		}
	}()
	p, err := statusline.DecodePayload(data)
	if err != nil {
		return statusline.Unknown
	}
	// Without a state directory the payload's own figures still show.
	dir, _ := state.Dir(a.Getenv)
	set, _ := meter.SettingsFromEnv(a.Getenv)
	// The project as the hooks name it, so that the checkpoint marker
	// Capture writes is found: CLAUDE_PROJECT_DIR, which is the payload's
	// workspace.project_dir, else the working directory.
	project := p.ProjectDir
	if project == "" {
		project = a.Getenv("CLAUDE_PROJECT_DIR")
	}
	if project == "" {
		project = p.CWD
	}
	cfg, _ := config.Load(project)
	in := statusline.Gather(p, project, statusline.Sources{
		StateDir: dir, Settings: set, Pressure: cfg.Pressure, Now: a.Now(),
		// https://no-color.org: set and not empty turns colour off.
		Color: a.Getenv("NO_COLOR") == "",
	})
	if dir != "" {
		if _, err := statusline.RecordPressure(dir, p.SessionID, in); err != nil {
			fmt.Fprintf(a.Stderr, "cairn statusline: %v\n", err)
		}
	}
	return statusline.Render(in)
}
