package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-agent/cairn/internal/config"
	"github.com/cairn-agent/cairn/internal/tracker"
)

// drainTime bounds one drain: the updates not sent by then wait for the
// next.
const drainTime = 2 * time.Minute

func (a *App) trackerQueue(e *env) tracker.Queue {
	return tracker.Queue{Dir: filepath.Join(e.stateDir, "tracker"), Now: a.Now}
}

// bindCmd is `cairn bind`: seed 000's bead binding, for every tracker.
func bindCmd() command {
	return command{
		args:    "[TICKET] [--clear]",
		summary: "bind this project to a ticket (ENG-42, #12): checkpoints tell it where the work stands; without TICKET, show the binding",
		details: `The ticket's tracker is the project's: tracker = linear or github in .claude/cairn.conf.
Without a binding, a checkpoint's updates go to the latest ticket the session named
(its branch, its prompts).`,
		setup: func(fs *flag.FlagSet) runFunc {
			clear := fs.Bool("clear", false, "unbind the project")
			return func(_ context.Context, a *App, args []string) error {
				if len(args) > 1 {
					return usageErrorf("give one ticket")
				}
				e, err := a.env()
				if err != nil {
					return err
				}
				defer e.keeper.Close()
				q := a.trackerQueue(e)
				conf, _ := config.Load(e.root)
				switch {
				case *clear && len(args) > 0:
					return usageErrorf("give a ticket or --clear, not both")
				case *clear:
					if err := q.Bind(e.root, ""); err != nil {
						return err
					}
					fmt.Fprintf(a.Stdout, "%s is bound to no ticket\n", e.root)
				case len(args) == 1:
					t := strings.TrimSpace(args[0])
					if t == "" || strings.ContainsAny(t, "\n\r") {
						return usageErrorf("%q is not a ticket", args[0])
					}
					if err := q.Bind(e.root, t); err != nil {
						return err
					}
					fmt.Fprintf(a.Stdout, "%s is bound to %s\n", e.root, t)
				default:
					if t := q.Bound(e.root); t != "" {
						fmt.Fprintf(a.Stdout, "%s is bound to %s\n", e.root, t)
					} else {
						fmt.Fprintf(a.Stdout, "%s is bound to no ticket: checkpoints tell the latest ticket the session names\n", e.root)
					}
				}
				if conf.Tracker == "" {
					fmt.Fprintf(a.Stdout, "no tracker is configured: add `tracker = linear` or `tracker = github` to %s\n", filepath.Join(e.root, config.File))
				}
				return nil
			}
		},
	}
}

// trackerCmd is `cairn tracker`: the queue of updates to the trackers.
func trackerCmd() command {
	return command{
		args:     "[status | drain | retry [KEY...]] [--quiet]",
		summary:  "the updates queued for the issue tracker: list them, send them now, or retry the ones refused",
		words:    []string{"status", "drain", "retry"},
		wordsAre: "subcommands",
		details: `Checkpoints that write a handoff queue updates for the ticket (a status, a comment with
the handoff, a label) and start a drainer in the background; a hook never waits on the
network. An update the tracker cannot take now (offline, rate limited, down) is retried
with backoff from 30 s to 1 h; one it refuses (a bad key, no such issue) is kept aside
until retry. Linear needs LINEAR_API_KEY and curl; GitHub needs gh, logged in.`,
		setup: func(fs *flag.FlagSet) runFunc {
			quiet := fs.Bool("quiet", false, "print nothing (as the hooks start the drainer)")
			return func(ctx context.Context, a *App, args []string) error {
				verb := "status"
				if len(args) > 0 {
					verb = args[0]
				}
				if verb != "retry" && len(args) > 1 || verb != "status" && verb != "drain" && verb != "retry" {
					err := usageErrorf("unexpected argument %q: use status, drain or retry", strings.Join(args, " "))
					if s := suggest(verb, []string{"status", "drain", "retry"}); s != "" {
						err = addHint(err, fmt.Sprintf("did you mean %q?", s))
					}
					return err
				}
				e, err := a.env()
				if err != nil {
					return err
				}
				defer e.keeper.Close()
				q := a.trackerQueue(e)
				switch verb {
				case "retry":
					n, err := q.Retry(args[1:]...)
					if err != nil {
						return err
					}
					fmt.Fprintf(a.Stdout, "%d updates queued again\n", n)
					return a.drain(ctx, q, *quiet)
				case "drain":
					return a.drain(ctx, q, *quiet)
				}
				return a.trackerStatus(q)
			}
		},
	}
}

// drain sends what is due and refreshes what the trackers say of the
// tickets sent to, for the handoffs.
func (a *App) drain(ctx context.Context, q tracker.Queue, quiet bool) error {
	ctx, cancel := context.WithTimeout(ctx, drainTime)
	defer cancel()
	touched := map[string]tracker.Update{}
	open := func(u tracker.Update) (tracker.Tracker, error) {
		conf, _ := config.Load(u.Project)
		s := tracker.Settings{Tracker: u.Tracker, Repo: u.Repo}
		if conf.Tracker == u.Tracker && s.Repo == "" {
			s.Repo = conf.TrackerRepo
		}
		t, err := tracker.Open(s, u.Project, a.Getenv)
		if err == nil {
			touched[u.Tracker+"\x00"+u.Issue] = u
		}
		return t, err
	}
	r, err := q.Drain(ctx, open)
	if errors.Is(err, tracker.ErrBusy) {
		if !quiet {
			fmt.Fprintln(a.Stdout, "another drainer is sending the queue")
		}
		return nil
	}
	if err != nil {
		return err
	}
	for _, u := range touched {
		t, err := open(u)
		if err != nil {
			continue
		}
		if is, err := t.Issue(ctx, u.Issue); err == nil {
			if is.ID == "" {
				is.ID = u.Issue
			}
			_ = q.SaveIssue(u.Tracker, is)
			if is.ID != u.Issue {
				is.ID = u.Issue
				_ = q.SaveIssue(u.Tracker, is)
			}
		}
	}
	if quiet {
		return nil
	}
	fmt.Fprintf(a.Stdout, "sent %d, to retry %d, refused %d, waiting %d\n", r.Sent, r.Retry, r.Failed, r.Waiting)
	for _, e := range r.Errors {
		fmt.Fprintln(a.Stdout, "  "+e)
	}
	return nil
}

func (a *App) trackerStatus(q tracker.Queue) error {
	pending, perrs := q.List("pending")
	failed, ferrs := q.List("failed")
	if len(pending) == 0 && len(failed) == 0 {
		fmt.Fprintln(a.Stdout, "no updates queued")
	}
	for _, u := range pending {
		line := fmt.Sprintf("queued   %s %s %s %s", u.Key, u.Tracker, u.Issue, u.Kind)
		if u.Attempts > 0 {
			line += fmt.Sprintf(" · %d attempts, next %s · %s", u.Attempts, u.NextAt.In(a.Loc).Format("15:04:05"), u.LastError)
		}
		fmt.Fprintln(a.Stdout, line)
	}
	for _, u := range failed {
		fmt.Fprintf(a.Stdout, "refused  %s %s %s %s · %s (cairn tracker retry %s)\n", u.Key, u.Tracker, u.Issue, u.Kind, u.LastError, u.Key)
	}
	for _, err := range append(perrs, ferrs...) {
		fmt.Fprintf(a.Stderr, "cairn: warning: %v\n", err)
	}
	return nil
}
