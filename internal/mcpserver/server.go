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
// descriptions and schemas are kept short (TestToolsCost measures them).
// Stdout carries nothing but the protocol; logs go to Options.Log.
//
// The protocol itself, JSON-RPC 2.0 on stdio (protocol.go) and the tools'
// input schemas (schema.go), is written here rather than taken from the
// official Go SDK, whose packages cost every cairn process, hooks
// included, to link (protocol.go says how much). The SDK's client checks
// the server in the tests.
package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

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

// Serve runs the server over in and out (stdin and stdout for `cairn mcp`)
// until in ends or ctx is cancelled. The end of in is a normal end: the
// calls still running are cancelled, and Serve returns nil once they have
// returned.
func Serve(ctx context.Context, in io.Reader, out io.Writer, o Options) error {
	s := newServer(o)
	return (&conn{srv: s, out: out}).serve(ctx, in)
}

// server is what every session of the server shares: its tools, and what
// tools/list says of them.
type server struct {
	version string
	log     *logger
	tools   []*tool
	// list is the answer to tools/list, made once.
	list json.RawMessage
}

// tool is a tool as tools/list shows it, with its handler.
type tool struct {
	Name        string       `json:"name"`
	Description string       `json:"description"`
	InputSchema *inputSchema `json:"inputSchema"`
	// call runs the tool on a call's arguments.
	call func(ctx context.Context, c call, args json.RawMessage) result
}

// call is what a tool knows of the call besides its arguments.
type call struct {
	// toolUseID is the id of the tool_use block that made the call, which
	// Claude Code gives in the call's _meta ("claudecode/toolUseId"); ""
	// from another client.
	toolUseID string
}

// result is a tool's answer. A failure is one too, with isError: the
// model reads it and can correct the call.
type result struct {
	Content           []textContent   `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
}

type textContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// textResult is a tool's answer as one text block: what the model reads.
func textResult(s string) result {
	return result{Content: []textContent{{Type: "text", Text: s}}}
}

func newServer(o Options) *server {
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
	s := &server{version: o.Version, log: &logger{w: o.Log}}
	l := &locator{configDir: o.ConfigDir, dir: o.Dir, sessionID: o.SessionID}
	if o.Memory != nil {
		addMemoryTools(s, &memoryTools{mem: o.Memory, loc: l, now: o.Now, zone: o.Loc})
	}
	if o.Keeper != nil {
		addContextTools(s, newContextTools(o.Keeper, l, o.Now, o.Loc, s.log))
	}
	slices.SortFunc(s.tools, func(a, b *tool) int { return strings.Compare(a.Name, b.Name) })
	list, err := json.Marshal(struct {
		Tools []*tool `json:"tools"`
	}{s.tools})
	if err != nil {
		panic(err) // static definitions: fails in every test
	}
	s.list = list
	return s
}

// addTool adds a tool whose arguments are In (see schemaFor), with the
// values some of its properties may take.
func addTool[In any](s *server, name, description string, enums map[string][]string, h func(context.Context, call, In) (result, error)) {
	schema := schemaFor[In](enums)
	s.tools = append(s.tools, &tool{Name: name, Description: description, InputSchema: schema,
		call: func(ctx context.Context, c call, args json.RawMessage) result {
			var in In
			if err := schema.decode(args, &in); err != nil {
				return errorResult(fmt.Errorf("validating \"arguments\": %w", err))
			}
			res, err := h(ctx, c, in)
			if err != nil {
				return errorResult(err)
			}
			if res.Content == nil {
				res.Content = []textContent{}
			}
			return res
		}})
}

func errorResult(err error) result {
	res := textResult(err.Error())
	res.IsError = true
	return res
}

// method is the handler of a request other than initialize and ping; nil
// for a method the server does not have.
func (s *server) method(name string) func(ctx context.Context, params json.RawMessage) (any, error) {
	switch name {
	case "tools/list":
		return s.listTools
	case "tools/call":
		return s.callTool
	}
	return nil
}

func (s *server) listTools(_ context.Context, params json.RawMessage) (any, error) {
	var p struct {
		Cursor *string `json:"cursor"`
	}
	if len(params) > 0 && valueType(params) != typeNull {
		if err := json.Unmarshal(params, &p); err != nil || valueType(params) != typeObject {
			return nil, errorf(codeInvalidParams, "invalid params: want an object")
		}
	}
	if p.Cursor != nil && *p.Cursor != "" {
		// The list is one page: no cursor was given to come back with.
		return nil, errorf(codeInvalidParams, "invalid params: unknown cursor %q", *p.Cursor)
	}
	return s.list, nil
}

func (s *server) callTool(ctx context.Context, params json.RawMessage) (any, error) {
	var p struct {
		Name      string                     `json:"name"`
		Arguments json.RawMessage            `json:"arguments"`
		Meta      map[string]json.RawMessage `json:"_meta"`
	}
	if err := json.Unmarshal(params, &p); err != nil || valueType(params) != typeObject {
		return nil, errorf(codeInvalidParams, "invalid params: want an object with the tool's name and arguments")
	}
	i := slices.IndexFunc(s.tools, func(t *tool) bool { return t.Name == p.Name })
	if i < 0 {
		return nil, errorf(codeInvalidParams, "unknown tool %q", p.Name)
	}
	var c call
	if id := p.Meta["claudecode/toolUseId"]; valueType(id) == typeString {
		json.Unmarshal(id, &c.toolUseID)
	}
	return s.tools[i].call(ctx, c, p.Arguments), nil
}

// logger writes the server's warnings, one line each, to Options.Log:
// never stdout, which is the protocol's.
type logger struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *logger) warn(format string, args ...any) {
	line := "cairn: warning: " + fmt.Sprintf(format, args...) + "\n"
	l.mu.Lock()
	defer l.mu.Unlock()
	io.WriteString(l.w, line)
}
