package cli

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/cairn-agent/cairn/internal/handoff"
)

// maxReason bounds a reason read from standard input.
const maxReason = 64 << 10

// runHandoff is `cairn handoff [--reason TEXT|-]`: capture a checkpoint
// now and write it as a handoff document under .claude/handoffs/.
func runHandoff(ctx context.Context, a *App, args []string) error {
	fs := newFlags("handoff")
	reason := fs.String("reason", "", "why the handoff is written (- reads it from standard input)")
	id := fs.String("session", "", "session id (or a unique prefix)")
	path := fs.String("transcript", "", "transcript path")
	if err := parseNone(fs, args); err != nil {
		return err
	}
	if *id != "" && *path != "" {
		return usageError{"give --session or --transcript, not both"}
	}
	text := *reason
	if text == "-" {
		// The /handoff command passes the user's words through a quoted
		// here-document, so that no quote or $ in them reaches the shell.
		data, err := io.ReadAll(io.LimitReader(a.Stdin, maxReason))
		if err != nil {
			return fmt.Errorf("read the reason from standard input: %w", err)
		}
		text = string(data)
	}
	text = strings.TrimSpace(text)
	if text == "$ARGUMENTS" {
		text = "" // a client that did not fill in the slash command's arguments
	}
	e, err := a.env()
	if err != nil {
		return err
	}
	defer e.keeper.Close()
	p, err := e.locate(*id, *path)
	if err != nil {
		return err
	}
	c, err := e.keeper.Capture(ctx, e.root, p, "handoff")
	if err != nil {
		return dbError(err)
	}
	out, err := handoff.Write(e.root, c, handoff.Input{Reason: text, Project: e.root, Now: a.Now, Loc: a.Loc})
	if err != nil {
		return withHint(err, "the checkpoint was saved: cairn show checkpoint %d prints it", c.ID)
	}
	fmt.Fprintf(a.Stdout, "handoff written: %s\n", out)
	fmt.Fprintf(a.Stdout, "from checkpoint %d: %s\n", c.ID, c.Summary())
	return nil
}

// runSlash is `cairn slash checkpoint [--session ID] [--status | --estimate
// FILE | --defer [N]]`, which the /checkpoint slash command runs: it picks
// the cairn command, because Claude Code will not run a shell `case` from
// a slash command.
func runSlash(ctx context.Context, a *App, args []string) error {
	if len(args) == 0 || args[0] != "checkpoint" {
		return usageError{"give the slash command: checkpoint (cairn install writes the command files that run this)"}
	}
	fs := newFlags("slash")
	session := fs.String("session", "", "session id (or a unique prefix)")
	status := fs.Bool("status", false, "show the context: cairn status")
	estimate := fs.String("estimate", "", "what FILE's task would cost: cairn estimate FILE")
	snooze := fs.Bool("defer", false, "snooze the advisories for N turns: cairn defer [N]")
	rest, err := parse(fs, args[1:])
	if err != nil {
		return err
	}
	modes := 0
	for _, on := range []bool{*status, *estimate != "", *snooze} {
		if on {
			modes++
		}
	}
	if modes > 1 {
		return usageError{"give one of --status, --estimate FILE and --defer [N]"}
	}
	var sub []string
	switch {
	case *status:
		sub = []string{"status"}
	case *estimate != "":
		sub = []string{"estimate", *estimate}
	case *snooze:
		if len(rest) > 1 {
			return usageError{fmt.Sprintf("unexpected argument %q", rest[1])}
		}
		sub = append([]string{"defer"}, rest...)
		rest = nil
	default:
		sub = []string{"checkpoint"}
	}
	if len(rest) > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", rest[0])}
	}
	if *session != "" {
		sub = append([]string{sub[0], "--session", *session}, sub[1:]...)
	}
	for _, c := range commands() {
		if c.name == sub[0] {
			return c.run(ctx, a, sub[1:])
		}
	}
	return withHint(fmt.Errorf("this cairn has no %s command", sub[0]), "update cairn, then run cairn install again")
}
