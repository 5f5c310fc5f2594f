// Package mcpserver serves cairn to the agent over the Model Context
// Protocol on stdio (`cairn mcp`, which Claude Code starts in the project's
// directory). It offers two sets of tools: memory over past sessions
// (search, timeline, get_observations, remember, forget), on any store
// that satisfies Memory; and the session's own context (seed 002's
// check_compaction_status, preserve_critical_context and
// restore_compacted_context), read from the transcript with cairn's exact
// meter and kept with internal/continuity's checkpoints.
//
// Every tool definition is sent with every request the client makes, so
// descriptions and schemas are kept short (tools_test.go measures them).
// Stdout carries nothing but the protocol; logs go to Options.Log.
package mcpserver

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"path/filepath"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-agent/cairn/internal/continuity"
)

// Options are what the server needs from the process that runs it. The
// server reads no environment of its own: the command fills these in.
type Options struct {
	// Memory is the observation store behind the memory tools; nil leaves
	// those tools out.
	Memory Memory
	// Keeper loads sessions and takes and reads checkpoints for the
	// context tools; nil leaves those tools out. The server serialises
	// its use of it and does not close it.
	Keeper *continuity.Keeper
	// ConfigDir is Claude Code's configuration directory
	// (claudecode.ConfigDir), where its transcripts are.
	ConfigDir string
	// Dir is the directory the server runs in: the project's, or one
	// inside it (Claude Code starts servers in the project's directory and
	// also gives it as $CLAUDE_PROJECT_DIR, the hooks' project). Relative
	// to the working directory when not absolute.
	Dir string
	// SessionID is $CLAUDE_CODE_SESSION_ID, which Claude Code gives the
	// servers it starts: the session's id at start-up. "" when unknown.
	SessionID string
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Loc is the time zone of the times shown; nil means time.Local.
	Loc *time.Location
	// Log receives the server's log lines (never stdout); nil discards
	// them.
	Log io.Writer
	// Version is cairn's version, given to the client at initialisation.
	Version string
}

// New returns the MCP server with its tools.
func New(o Options) *mcp.Server {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Loc == nil {
		o.Loc = time.Local
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if o.Version == "" {
		o.Version = "dev"
	}
	if abs, err := filepath.Abs(o.Dir); err == nil {
		o.Dir = abs // Claude Code names a project's folder after its absolute path
	}
	logger := slog.New(slog.NewTextHandler(o.Log, &slog.HandlerOptions{Level: slog.LevelWarn}))
	s := mcp.NewServer(&mcp.Implementation{Name: "cairn", Version: o.Version}, &mcp.ServerOptions{
		Logger: logger,
		// Only tools: no logging capability to advertise.
		Capabilities: &mcp.ServerCapabilities{},
	})
	l := &locator{configDir: o.ConfigDir, dir: o.Dir, sessionID: o.SessionID}
	if o.Memory != nil {
		addMemoryTools(s, &memoryTools{mem: o.Memory, loc: l, now: o.Now, zone: o.Loc})
	}
	if o.Keeper != nil {
		addContextTools(s, newContextTools(o.Keeper, l, o.Now, o.Loc, logger))
	}
	return s
}

// Serve runs the server over in and out (stdin and stdout for `cairn mcp`)
// until in ends or ctx is cancelled. The end of in is a normal end.
func Serve(ctx context.Context, in io.Reader, out io.Writer, o Options) error {
	t := &mcp.IOTransport{Reader: readCloser{in}, Writer: writeCloser{out}}
	err := New(o).Run(ctx, t)
	if errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil
	}
	return err
}

// readCloser and writeCloser leave the streams open: they belong to the
// caller (the process's stdin and stdout).
type readCloser struct{ io.Reader }

func (readCloser) Close() error { return nil }

type writeCloser struct{ io.Writer }

func (writeCloser) Close() error { return nil }

// textResult is a tool's answer as one text block: what the model reads.
func textResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// schema is the input schema of In with the values some properties may
// take. A list is an array, not "array or null": the definitions go with
// every request, and the model has no use for the null.
func schema[In any](enums map[string][]string) *jsonschema.Schema {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		panic(err) // a static type: fails at start-up in every test
	}
	for _, p := range s.Properties {
		if len(p.Types) == 2 && p.Types[0] == "null" {
			p.Type, p.Types = p.Types[1], nil
		}
	}
	for name, values := range enums {
		for _, v := range values {
			s.Properties[name].Enum = append(s.Properties[name].Enum, v)
		}
	}
	return s
}
