package cli

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-agent/cairn/internal/claudecode"
	"github.com/cairn-agent/cairn/internal/continuity"
	"github.com/cairn-agent/cairn/internal/hook"
	"github.com/cairn-agent/cairn/internal/hookevent"
	"github.com/cairn-agent/cairn/internal/state"
	"github.com/cairn-agent/cairn/internal/tracker"
)

// hookCmd is `cairn hook [--agent NAME] EVENT`, which the client (Claude
// Code, or Codex or Gemini CLI with --agent codex or gemini) runs with the event's JSON payload on
// stdin. Once the command line is right it always exits
// 0: a failure is logged, never shown to the agent.
func hookCmd() command {
	return command{
		args:    "[--agent NAME] EVENT",
		summary: "handle a hook event of Claude Code (or Codex CLI, Gemini CLI with --agent codex, gemini), its JSON payload on stdin (run by the client, as cairn install wires it)",
		details: `A hook never breaks the agent: whatever goes wrong, it logs one line in
cairn.log in the state directory (cairn doctor says where) and exits 0.`,
		words:    claudecode.Events.Names(),
		wordsAre: "events",
		setup: func(fs *flag.FlagSet) runFunc {
			agentName := fs.String("agent", "claude-code", "the client that runs the hook, `NAME`: "+strings.Join(hook.AgentNames(), ", "))
			return func(ctx context.Context, a *App, args []string) error {
				if len(args) != 1 {
					return usageErrorf("give the hook event, as cairn install wires it")
				}
				ag, ok := hook.AgentNamed(*agentName)
				if !ok {
					return unknownWord("agent", *agentName, hook.AgentNames())
				}
				// Claude Code pipes the payload in. A person who typed this
				// would wait on a read, then leave a failed run in the log.
				if a.StdinTerminal != nil && a.StdinTerminal() {
					err := usageErrorf("cairn hook reads the event's JSON payload from standard input, as Claude Code sends it")
					if _, ok := ag.Events.Lookup(args[0]); !ok {
						err = unknownWord("hook event", args[0], ag.Events.Names())
					}
					return err
				}
				a.hook(ctx, ag, args[0])
				return nil
			}
		},
	}
}

// hook runs the hook for event: the state directory or, when that cannot
// be written, the fallback in the temporary directory, and the log.
func (a *App) hook(ctx context.Context, ag hook.Agent, event string) {
	ignoreBrokenPipe() // a closed stdout is an error to log, not a death
	fallback := state.FallbackDir(a.Getenv)
	k, kerr := a.newKeeper()
	if kerr != nil {
		// No home to keep state in: keep it, and say why, in the fallback.
		k = &continuity.Keeper{State: state.Store{Dir: fallback}, DBPath: filepath.Join(fallback, "cairn.db"), Now: a.Now}
	}
	env := a.jobEnv(ag, event)
	r := &hook.Runner{Keeper: k, Stdin: a.Stdin, Stdout: a.Stdout, Stderr: a.Stderr, Getenv: a.Getenv, Now: a.Now,
		Dir: k.State.Dir, Fallback: fallback, Agent: ag,
		StartDrainer: func() error {
			exe, err := os.Executable()
			if err != nil {
				return err
			}
			return tracker.StartDrainer(exe, env)
		}}
	if kerr == nil && k.State.Dir != fallback {
		k.OtherStateDirs = []string{fallback}
		if err := state.Usable(k.State.Dir); err != nil && state.UsableFallback(fallback) == nil {
			kerr = fmt.Errorf("state directory %s cannot be written (%v); using %s", k.State.Dir, err, fallback)
			k.OtherStateDirs = []string{k.State.Dir}
			k.State.Dir, r.Dir = fallback, fallback
		}
	}
	r.FallbackReason = kerr
	// A hook's stderr is not read by anyone: warnings go to the log.
	k.Warn = r.Warner(event)
	k.State.Warn = k.Warn
	k.Stored = storedFor(k.State.Dir, k.Warn)
	if a.Executable != nil {
		k.Detach = detacher(a.Executable, ag.Name, k, env)
	}
	r.Run(ctx, event)
}

// jobEnv is the environment of the processes a hook for event starts (its
// jobs, the tracker's drainer): nil, this process's, but for a OneCPU
// event's hook started as its command line starts it, whose OneCPUEnv was
// meant for the hook alone. A job may read a whole transcript, which it
// does in parallel.
func (a *App) jobEnv(ag hook.Agent, event string) []string {
	ev, ok := ag.Events.Lookup(event)
	if !ok || !ev.OneCPU || a.Environ == nil {
		return nil
	}
	return hookevent.WithoutOneCPU(a.Environ())
}
