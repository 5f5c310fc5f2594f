package cli

import (
	"context"
	"flag"
	"fmt"
	"strconv"

	"github.com/cairn-agent/cairn/internal/pressure"
)

// deferCmd is `cairn defer [N]`: snooze the L1 and L2 advisories of the
// session for N turns.
func deferCmd() command {
	return command{
		args:    "[N] [--session ID | --transcript PATH]",
		summary: fmt.Sprintf("snooze the L1 and L2 advisories for N turns (default %d); L3 still comes", pressure.DefaultDefer),
		setup: func(fs *flag.FlagSet) runFunc {
			sf := addSessionFlags(fs)
			return func(_ context.Context, a *App, args []string) error {
				n := pressure.DefaultDefer
				if len(args) > 1 {
					return usageErrorf("unexpected argument %q", args[1])
				}
				if len(args) == 1 {
					var err error
					if n, err = strconv.Atoi(args[0]); err != nil || n < 1 {
						return usageErrorf("%q is not a number of turns", args[0])
					}
				}
				e, s, err := a.readSession(sf, false)
				if err != nil {
					return err
				}
				defer e.keeper.Close()
				adv := pressure.Advisor{State: e.store}
				until, err := adv.Defer(s.Path, s.NumTurns(), n)
				if err != nil {
					return err
				}
				fmt.Fprintf(a.Stdout, "L1 and L2 advisories snoozed for %d turns (until turn %d); L3 still comes\n", n, until)
				return nil
			}
		},
	}
}
