package cli

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"strconv"

	"github.com/cairn-agent/cairn/internal/continuity"
	"github.com/cairn-agent/cairn/internal/hook"
	"github.com/cairn-agent/cairn/internal/state"
)

// settleName is the hidden command a hook starts for the work it leaves
// for later (continuity.Job); no one else runs it, and help does not list
// it.
const settleName = "_settle"

// hidden are the commands help and the completion leave out.
func hidden() []entry { return []entry{{settleName, settleCmd}} }

func settleCmd() command {
	return command{
		args:    "--agent NAME --state DIR --db FILE --project DIR --transcript FILE [--after N] [--locked] KIND",
		summary: "settle what a hook left for later (started by the hooks)",
		setup: func(fs *flag.FlagSet) runFunc {
			agentName := fs.String("agent", "claude-code", "the client whose hook started the job")
			stateDir := fs.String("state", "", "the hook's state directory")
			db := fs.String("db", "", "the hook's database")
			project := fs.String("project", "", "the project")
			transcript := fs.String("transcript", "", "the session's transcript")
			after := fs.Int64("after", 0, "the transcript's size when the hook ran (a keep job's)")
			locked := fs.Bool("locked", false, "the job holds the session's keep lock (fd 4)")
			return func(ctx context.Context, a *App, args []string) error {
				if len(args) != 1 || *stateDir == "" || *db == "" || *transcript == "" {
					return usageErrorf("started by the hooks only")
				}
				ag, ok := hook.AgentNamed(*agentName)
				if !ok {
					return unknownWord("agent", *agentName, hook.AgentNames())
				}
				k, err := a.newKeeper()
				if err != nil {
					k = &continuity.Keeper{Now: a.Now}
				}
				k.State = state.Store{Dir: *stateDir}
				k.DBPath = *db
				r := &hook.Runner{Keeper: k, Stderr: a.Stderr, Getenv: a.Getenv, Now: a.Now, Dir: *stateDir, Agent: ag}
				k.Warn = r.Warner("job " + args[0])
				k.State.Warn = k.Warn
				k.Stored = storedFor(*stateDir, k.Warn)
				if args[0] == continuity.JobKeep {
					releaseSettling(*db)
				}
				r.Settle(ctx, continuity.Job{Kind: args[0], Project: *project, Path: *transcript, After: *after, Locked: *locked})
				return nil
			}
		},
	}
}

// detacher starts a job as a process of its own, in a session of its own
// (the agent's end or a signal to its group does not end it), with no
// standard streams, holding the settling lock it inherits, with env as
// its environment (nil: this process's). The process is cairn itself:
// exe, named "cairn" (a test binary standing in for cairn dispatches on
// that name).
func detacher(executable func() (string, error), agent string, k *continuity.Keeper, env []string) func(continuity.Job) error {
	return func(j continuity.Job) error {
		exe, err := executable()
		if err != nil {
			return err
		}
		lock, err := continuity.HoldSettling(k.DBPath)
		if err != nil {
			return err
		}
		defer lock.Close() // the job holds it now
		args := []string{"cairn", settleName, "--agent", agent, "--state", k.State.Dir, "--db", k.DBPath, "--project", j.Project, "--transcript", j.Path}
		if j.After > 0 {
			args = append(args, "--after", strconv.FormatInt(j.After, 10))
		}
		extra := []*os.File{lock}
		if j.Lock != nil {
			// fd 4: the session's keep lock, the job's to hold.
			extra = append(extra, j.Lock)
			args = append(args, "--locked")
		}
		cmd := &exec.Cmd{Path: exe, Args: append(args, j.Kind), Env: env}
		cmd.ExtraFiles = extra
		cmd.SysProcAttr = detached()
		if err := cmd.Start(); err != nil {
			return err
		}
		return cmd.Process.Release()
	}
}

// releaseSettling closes the settling lock a job inherits as fd 3, when fd
// 3 is that file: a keep job touches no database, and may wait for the
// session's next tool results for seconds, which hooks opening the
// database must not wait for.
func releaseSettling(db string) {
	f := os.NewFile(3, "settling")
	if f == nil {
		return
	}
	held, err := f.Stat()
	if err != nil {
		return
	}
	if want, err := os.Stat(continuity.SettlingFile(db)); err == nil && os.SameFile(held, want) {
		f.Close()
	}
}
