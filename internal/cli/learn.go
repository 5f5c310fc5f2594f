package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/cairn-agent/cairn/internal/claudecode"
	"github.com/cairn-agent/cairn/internal/learn"
)

// learnCmd is `cairn learn list` and `cairn learn confirm ID`.
func learnCmd() command {
	subs := []string{"list", "confirm"}
	return command{
		args:     "list | confirm ID",
		summary:  "list the learnings with their confirmations and when last confirmed, or confirm one again",
		words:    subs,
		wordsAre: "subcommands",
		setup: func(*flag.FlagSet) runFunc {
			return func(_ context.Context, a *App, args []string) error {
				if len(args) == 0 {
					return usageErrorf("give list or confirm ID")
				}
				sub, rest := args[0], args[1:]
				switch {
				case sub == "list" && len(rest) == 0:
				case sub == "confirm" && len(rest) == 1:
				case sub == "confirm":
					return usageErrorf("give one learnings entry id: cairn learn confirm ID")
				case sub == "list":
					return usageErrorf("unexpected argument %q", rest[0])
				default:
					return unknownWord("subcommand", sub, subs)
				}
				return a.learn(sub, rest)
			}
		},
	}
}

func (a *App) learn(sub string, rest []string) error {
	cwd, err := a.Getwd()
	if err != nil {
		return fmt.Errorf("find the working directory: %w", err)
	}
	cfg, err := claudecode.ConfigDir(a.Getenv)
	if err != nil {
		return err
	}
	_, root, _ := claudecode.ProjectDir(cfg, cwd)
	dir := flowDir(root)
	if sub == "confirm" {
		err := learn.Confirm(dir, rest[0], a.Now())
		if errors.Is(err, learn.ErrNoEntry) {
			return withHint(err, "cairn learn list shows the ids")
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(a.Stdout, "confirmed %s\n", rest[0])
		return nil
	}
	stock, err := learn.ReadStock(dir)
	if err != nil {
		return err
	}
	if len(stock) == 0 {
		fmt.Fprintf(a.Stdout, "no learnings in %s\n", dir)
		return nil
	}
	for _, x := range stock {
		last := "-"
		if !x.Meta.LastConfirmed.IsZero() {
			last = x.Meta.LastConfirmed.Format("2006-01-02")
		}
		phase := x.Meta.Phase
		if phase == "" {
			phase = "-"
		}
		fmt.Fprintf(a.Stdout, "%s  %dx  %s  %-10s %s: %s\n", x.ID, x.Meta.Confirmed, last, phase, x.File, x.Heading)
	}
	s := learn.Summary(dir)
	fmt.Fprintf(a.Stdout, "%s, %.2f confirmations on average: %d unverified, %d confirmed, %d established\n",
		nEntries(s.Entries), s.AvgConfirmations, s.Unverified, s.Confirmed, s.Established)
	return nil
}
