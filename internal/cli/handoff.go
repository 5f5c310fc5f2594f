package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/cairn-agent/cairn/internal/handoff"
	"github.com/cairn-agent/cairn/internal/memory"
)

// maxReason bounds a reason read from standard input.
const maxReason = 64 << 10

// handoffCmd is `cairn handoff [--reason TEXT|-]`: capture a checkpoint
// now and write it as a handoff document under .claude/handoffs/.
func handoffCmd() command {
	return command{
		args:    "[--reason TEXT|-] [--session ID | --transcript PATH]",
		summary: "capture the working state and write it as a handoff document under .claude/handoffs/",
		setup: func(fs *flag.FlagSet) runFunc {
			reason := fs.String("reason", "", "why the handoff is written: `TEXT`, or - to read it from standard input")
			sf := addSessionFlags(fs)
			return func(ctx context.Context, a *App, args []string) error {
				if err := noArgs(args); err != nil {
					return err
				}
				if err := sf.check(); err != nil {
					return err
				}
				text, err := a.reason(*reason)
				if err != nil {
					return err
				}
				e, p, err := a.locateSession(sf)
				if err != nil {
					return err
				}
				defer e.keeper.Close()
				c, err := e.keeper.Capture(ctx, e.root, p, "handoff")
				if err != nil {
					return dbError(err)
				}
				out, err := handoff.Write(e.root, c, handoff.Input{Reason: text, Project: e.root, Now: a.Now, Loc: a.Loc})
				if err != nil {
					return withHint(err, "the checkpoint was saved: cairn show checkpoint %d prints it", c.ID)
				}
				if doc, err := os.ReadFile(out); err == nil {
					e.keeper.Observe(ctx, memory.FromHandoff(e.root, c.SessionID, out, string(doc), a.Now()))
				}
				fmt.Fprintf(a.Stdout, "handoff written: %s\n", out)
				fmt.Fprintf(a.Stdout, "from checkpoint %d: %s\n", c.ID, c.Summary())
				return nil
			}
		},
	}
}

// reason is --reason's text, read from stdin for "-".
func (a *App) reason(arg string) (string, error) {
	text := arg
	if text == "-" {
		// The /handoff command passes the user's words through a quoted
		// here-document, so that no quote or $ in them reaches the shell.
		data, err := io.ReadAll(io.LimitReader(a.Stdin, maxReason))
		if err != nil {
			return "", fmt.Errorf("read the reason from standard input: %w", err)
		}
		text = string(data)
	}
	text = strings.TrimSpace(text)
	if text == "$ARGUMENTS" {
		text = "" // a client that did not fill in the slash command's arguments
	}
	return text, nil
}
