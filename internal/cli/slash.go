package cli

import (
	"context"
	"flag"
)

// slashCmd is `cairn slash checkpoint [--session ID] [--status |
// --estimate FILE | --defer [N]]`, which the /checkpoint slash command
// runs: it picks the cairn command, because Claude Code will not run a
// shell `case` from a slash command.
func slashCmd() command {
	return command{
		args:     "checkpoint [--session ID] [--status | --estimate FILE | --defer [N]]",
		summary:  "run what the /checkpoint slash command asks: a checkpoint, or the status, an estimate or a snooze (run by Claude Code)",
		words:    []string{"checkpoint"},
		wordsAre: "slash commands",
		setup: func(fs *flag.FlagSet) runFunc {
			session := fs.String("session", "", "the session's `ID` (or a unique prefix)")
			status := fs.Bool("status", false, "show the context: cairn status")
			estimate := fs.String("estimate", "", "what the task of `FILE` would cost: cairn estimate FILE")
			snooze := fs.Bool("defer", false, "snooze the advisories for N turns: cairn defer [N]")
			return func(ctx context.Context, a *App, args []string) error {
				switch {
				case len(args) == 0:
					return usageErrorf("give the slash command: checkpoint (cairn install writes the command files that run this)")
				case args[0] != "checkpoint":
					return unknownWord("slash command", args[0], []string{"checkpoint"})
				}
				rest := args[1:]
				modes := 0
				for _, on := range []bool{*status, *estimate != "", *snooze} {
					if on {
						modes++
					}
				}
				if modes > 1 {
					return usageErrorf("give one of --status, --estimate FILE and --defer [N]")
				}
				var sub []string
				switch {
				case *status:
					sub = []string{"status"}
				case *estimate != "":
					sub = []string{"estimate", *estimate}
				case *snooze:
					if len(rest) > 1 {
						return usageErrorf("unexpected argument %q", rest[1])
					}
					sub = append([]string{"defer"}, rest...)
					rest = nil
				default:
					sub = []string{"checkpoint"}
				}
				if len(rest) > 0 {
					return usageErrorf("unexpected argument %q", rest[0])
				}
				if *session != "" {
					sub = append([]string{sub[0], "--session", *session}, sub[1:]...)
				}
				return a.run(ctx, sub)
			}
		},
	}
}
