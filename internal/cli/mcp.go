package cli

import (
	"context"
	"flag"
	"fmt"

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
				// Without the database the context tools still work: the
				// memory tools are left out, and the log says why.
				var mem mcpserver.Memory
				if m, err := e.keeper.Memory(ctx); err != nil {
					fmt.Fprintf(a.Stderr, "cairn: warning: mcp: no memory tools: %v\n", err)
				} else {
					mem = mcpserver.Store{M: m}
				}
				return mcpserver.Serve(ctx, a.Stdin, a.Stdout, mcpserver.Options{
					Memory: mem, Keeper: e.keeper, ConfigDir: e.configDir, Dir: dir,
					SessionID: a.Getenv("CLAUDE_CODE_SESSION_ID"),
					Now:       a.Now, Loc: a.Loc, Log: a.Stderr, Version: Version,
				})
			}
		},
	}
}
