package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/cairn-agent/cairn/internal/claudecode"
	"github.com/cairn-agent/cairn/internal/claudecode/settings"
	codexcfg "github.com/cairn-agent/cairn/internal/codex"
	"github.com/cairn-agent/cairn/internal/config"
	"github.com/cairn-agent/cairn/internal/continuity"
	geminicfg "github.com/cairn-agent/cairn/internal/gemini"
	"github.com/cairn-agent/cairn/internal/hook"
	"github.com/cairn-agent/cairn/internal/install"
	"github.com/cairn-agent/cairn/internal/state"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// installCmd is `cairn install [--agent NAME] [--user] [--no-mcp] [--trust]`.
func installCmd() command {
	return command{
		args:    "[--agent NAME] [--user] [--no-mcp] [--trust]",
		summary: "wire cairn's hooks, status line, slash commands and MCP server into this project, or with --user into every project",
		details: `The hooks and the status line call this cairn by its absolute path, so for a
project they go into .claude/settings.local.json, this machine's own file; the
slash commands go into .claude/commands/. cairn's MCP server (cairn mcp) goes
into the project's .mcp.json, which teams commit, as cairn from PATH, and is
approved in settings.local.json so that Claude Code starts it without asking;
with --user, into ~/.claude.json ($CLAUDE_CONFIG_DIR/.claude.json), by this
cairn's path. A server of yours named cairn stays as it is. What a file held
before is recorded in $XDG_DATA_HOME/cairn/install/, so that uninstall gives
it back.

With --agent codex, cairn's hooks go into Codex CLI's .codex/hooks.json in the
project (with --user, $CODEX_HOME/hooks.json), and nothing else: Codex runs
them once you trust them in its /hooks screen, or with --trust, which writes
the trust entries into $CODEX_HOME/config.toml for you.

With --agent gemini, cairn's hooks go into Gemini CLI's .gemini/settings.json
in the project (with --user, $GEMINI_CLI_HOME/.gemini/settings.json or
~/.gemini/settings.json), and nothing else. A settings.json with comments is
left alone: Gemini CLI reads them, but cairn could not give them back.`,
		setup: func(fs *flag.FlagSet) runFunc {
			agent := agentFlag(fs)
			user := userFlag(fs)
			noMCP := fs.Bool("no-mcp", false, "leave cairn's MCP server out")
			trust := fs.Bool("trust", false, "with --agent codex: trust the hooks in $CODEX_HOME/config.toml, as Codex's /hooks screen would, so that it runs them without showing them to you first")
			return func(_ context.Context, a *App, args []string) error {
				if err := noArgs(args); err != nil {
					return err
				}
				name, err := agentNamed(*agent)
				if err != nil {
					return err
				}
				if *trust && name != "codex" {
					return usageErrorf("--trust is for --agent codex: %s has no trust to give", clientName(name))
				}
				return a.withSetup(func(s install.Setup, _ *env) error {
					switch name {
					case "codex":
						return setupError(s.InstallCodex(*user, *trust))
					case "gemini":
						return setupError(s.InstallGemini(*user))
					}
					return setupError(s.Install(*user, !*noMCP))
				})
			}
		},
	}
}

// uninstallCmd is `cairn uninstall [--agent NAME] [--user]`.
func uninstallCmd() command {
	return command{
		args:    "[--agent NAME] [--user]",
		summary: "take out exactly what install put in, giving each file back as it was",
		setup: func(fs *flag.FlagSet) runFunc {
			agent := agentFlag(fs)
			user := userFlag(fs)
			return func(_ context.Context, a *App, args []string) error {
				if err := noArgs(args); err != nil {
					return err
				}
				name, err := agentNamed(*agent)
				if err != nil {
					return err
				}
				return a.withSetup(func(s install.Setup, _ *env) error {
					switch name {
					case "codex":
						return setupError(s.UninstallCodex(*user))
					case "gemini":
						return setupError(s.UninstallGemini(*user))
					}
					return setupError(s.Uninstall(*user))
				})
			}
		},
	}
}

func agentFlag(fs *flag.FlagSet) *string {
	return fs.String("agent", "claude-code", "the client to wire cairn into, `NAME`: "+strings.Join(hook.AgentNames(), ", "))
}

// agentNamed checks the --agent word, refusing one that names no client.
func agentNamed(name string) (string, error) {
	if _, ok := hook.AgentNamed(name); !ok {
		return "", unknownWord("agent", name, hook.AgentNames())
	}
	return name, nil
}

// clientName is the client an --agent word names, for messages.
func clientName(name string) string {
	switch name {
	case "gemini":
		return "Gemini CLI"
	case "codex":
		return "Codex CLI"
	}
	return "Claude Code"
}

func userFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("user", false, "the user's settings ($CLAUDE_CONFIG_DIR/settings.json or ~/.claude/settings.json) and MCP servers (~/.claude.json), for every project, instead of this project's")
}

// withSetup runs do with where install, uninstall and doctor wire cairn:
// this project, the user's settings and this cairn.
func (a *App) withSetup(do func(install.Setup, *env) error) error {
	e, err := a.env()
	if err != nil {
		return err
	}
	defer e.keeper.Close()
	exe, err := install.Executable()
	if err != nil {
		return err
	}
	userConfig, err := claudecode.UserConfig(a.Getenv)
	if err != nil {
		return err
	}
	codexHome, _ := codexcfg.Home(a.Getenv)   // "" without a home: install --agent codex says so
	geminiHome, _ := geminicfg.Home(a.Getenv) // and install --agent gemini --user
	return do(install.Setup{
		Root: e.root, ConfigDir: e.configDir, UserConfig: userConfig, CodexHome: codexHome, GeminiHome: geminiHome, DataDir: filepath.Dir(e.keeper.DBPath),
		Exe: exe, PATH: a.Getenv("PATH"), Out: a.Stdout, Err: a.Stderr,
	}, e)
}

// setupError gives install's and uninstall's failures their hint.
func setupError(err error) error {
	var se *settings.Error
	switch {
	case err == nil:
		return nil
	case errors.As(err, &se):
		return withHint(err, "fix the file as the message says (or move it aside), then run the command again; cairn changed nothing")
	case errors.Is(err, install.ErrSettings):
		return withHint(err, "cairn left the settings files as they were")
	}
	return err
}

// doctorCmd is `cairn doctor`: is the wiring present and current, where
// does state live, when did each hook last run and how did it end.
func doctorCmd() command {
	return command{
		args:    "[--json]",
		summary: "check the wiring of every client (Claude Code's hooks, status line, MCP server; Codex CLI's hooks and their trust; Gemini CLI's hooks), where state lives, the space it takes, and how each hook last ran",
		details: `It exits 1 when it finds a problem, each with the fix to apply.

--json prints the findings as one object with these fields, which stay:
  findings   what it found, in order: {"section", "agent", "status", "text",
             "fix"}
             section: wiring, storage or hooks
             agent: the client it is about (claude-code, codex), left out
             for storage
             status: ok, problem (with the fix, when there is one), info or note
  hooks      per client and event: {"agent", "event", "last_ran", "took_ms",
             "last_error", "last_error_at"}; last_ran is null when it
             never ran
  mcp_servers
             where cairn's MCP server is registered: {"scope" (project or
             user), "path", "command"}
  problems   how many findings are problems`,
		setup: func(fs *flag.FlagSet) runFunc {
			asJSON := fs.Bool("json", false, "print the findings as JSON")
			return func(ctx context.Context, a *App, args []string) error {
				if err := noArgs(args); err != nil {
					return err
				}
				return a.doctor(ctx, *asJSON)
			}
		},
	}
}

func (a *App) doctor(ctx context.Context, asJSON bool) error {
	return a.withSetup(func(s install.Setup, e *env) error {
		d := install.Doctor{
			Setup: s, StateDir: e.stateDir, Fallback: state.FallbackDir(a.Getenv),
			DBPath: e.keeper.DBPath, DB: e.keeper.DB, Now: a.Now, Loc: a.Loc, Space: e.keeper.Space,
			Collectable: func(ctx context.Context) (continuity.Collected, error) {
				conf, _ := config.Load(e.root)
				return e.keeper.GC(ctx, conf.Retention, true)
			},
		}
		r := d.Check(ctx)
		if asJSON {
			if err := writeJSON(a.Stdout, r); err != nil {
				return err
			}
		} else {
			renderDoctor(a.Stdout, r)
		}
		if r.Problems > 0 {
			return withHint(fmt.Errorf("%d problem(s) found", r.Problems), "apply the fixes above, then run cairn doctor again")
		}
		return nil
	})
}

// renderDoctor prints the findings under their sections, and each
// client's under its own heading ("wiring · Codex CLI"): ✓ for what is
// right, ✗ and the fix for a problem, - for the rest.
func renderDoctor(w io.Writer, r install.Report) {
	heading := ""
	for _, f := range r.Findings {
		h := f.Section
		if f.Agent != "" {
			h += " · " + transcript.ClientTitle(f.Agent)
		}
		if h != heading {
			heading = h
			fmt.Fprintln(w, heading)
		}
		switch f.Status {
		case install.OK:
			fmt.Fprintf(w, "  ✓ %s\n", f.Text)
		case install.Problem:
			fmt.Fprintf(w, "  ✗ %s\n", f.Text)
			if f.Fix != "" {
				fmt.Fprintf(w, "    fix: %s\n", f.Fix)
			}
		case install.Note:
			fmt.Fprintf(w, "  - note: %s\n", f.Text)
		default:
			fmt.Fprintf(w, "  - %s\n", f.Text)
		}
	}
	if r.Problems == 0 {
		fmt.Fprintln(w, "all good")
	}
}
