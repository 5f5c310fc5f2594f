package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/cairn-agent/cairn/internal/hook"
	"github.com/cairn-agent/cairn/internal/meter"
	"github.com/cairn-agent/cairn/internal/web"
)

// webCmd is `cairn web [--port N]`: the local viewer, on 127.0.0.1, until
// interrupted. It prints the address with its token and opens nothing.
func webCmd() command {
	return command{
		args:    "[--port N]",
		summary: "serve a local, read-only web viewer of the sessions on 127.0.0.1 (prints its address)",
		details: "The address carries a random token, required on every request; open it in a browser.\n" +
			"Pages: projects, sessions, a session's timeline (live while it grows), checkpoints,\n" +
			"open items, the review queue and learnings, search. Ctrl-C stops it.",
		setup: func(fs *flag.FlagSet) runFunc {
			port := fs.Int("port", 0, "listen on port `N` (default: a free port)")
			return func(ctx context.Context, a *App, args []string) error {
				if err := noArgs(args); err != nil {
					return err
				}
				if *port < 0 || *port > 65535 {
					return usageErrorf("--port %d: give a port from 1 to 65535, or 0 for a free one", *port)
				}
				return a.web(ctx, *port)
			}
		},
	}
}

func (a *App) web(ctx context.Context, port int) error {
	e, err := a.env()
	if err != nil {
		return err
	}
	defer e.keeper.Close()
	token, err := web.NewToken()
	if err != nil {
		return fmt.Errorf("make a token: %w", err)
	}
	ln, err := web.Listen(port)
	if errors.Is(err, syscall.EADDRINUSE) {
		return withHint(fmt.Errorf("port %d on 127.0.0.1 is taken", port), "give another with --port N, or leave --port out for a free one")
	}
	if err != nil {
		return withHint(fmt.Errorf("listen on 127.0.0.1: %w", err), "give another port with --port N")
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	fmt.Fprintf(a.Stdout, "cairn web: http://%s/?token=%s\n", ln.Addr(), token)
	fmt.Fprintln(a.Stdout, "read-only; Ctrl-C stops it")
	s := &web.Server{
		ConfigDir: e.configDir, State: e.store, DBPath: e.keeper.DBPath, Settings: e.settings,
		Projects: func() ([]string, error) { return hook.AllProjects(e.getenv) },
		Sessions: func(root string) ([]hook.SessionFile, error) { return hook.AllSessions(e.getenv, root) },
		// Each session by its own client's rules, for its own project.
		Rules: func(client, project string) meter.Rules {
			if ag, ok := hook.AgentNamed(client); ok && project != "" {
				if r := ag.Rules(e.getenv, project, e.settings.Window); r != nil {
					return r
				}
			}
			return e.rules(client, 0)
		},
		Token: token, Loc: a.Loc, Log: a.Stderr,
	}
	return s.Serve(ctx, ln)
}
