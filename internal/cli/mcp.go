package cli

import (
	"context"
	"flag"

	"github.com/cairn-agent/cairn/internal/mcpserver"
)

// mcpCmd is `cairn mcp`: cairn's MCP server on stdin and stdout, as
// Claude Code starts it from .mcp.json or the plugin. It serves until
// stdin ends.
func mcpCmd() command {
	return command{
		args:    "",
		summary: "serve cairn's tools over MCP on stdin/stdout (Claude Code starts it; cairn install registers it)",
		details: "Tools: search, timeline, get_observations, remember, forget (memory of past sessions),\n" +
			"check_compaction_status, preserve_critical_context, restore_compacted_context (this session).\n" +
			"Log lines go to stderr; stdout carries only the protocol.",
		setup: func(fs *flag.FlagSet) runFunc {
			return func(ctx context.Context, a *App, args []string) error {
				if len(args) > 0 {
					return usageErrorf("unexpected argument %q", args[0])
				}
				e, err := a.env()
				if err != nil {
					return err
				}
				defer e.keeper.Close()
				dir := a.Getenv("CLAUDE_PROJECT_DIR")
				if dir == "" {
					dir = e.cwd
				}
				return mcpserver.Serve(ctx, a.Stdin, a.Stdout, mcpserver.Options{
					Keeper: e.keeper, ConfigDir: e.configDir, Dir: dir,
					SessionID: a.Getenv("CLAUDE_CODE_SESSION_ID"),
					Now:       a.Now, Loc: a.Loc, Log: a.Stderr, Version: Version,
				})
			}
		},
	}
}
