package mcpserver_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-agent/cairn/internal/checkpoint"
	"github.com/cairn-agent/cairn/internal/continuity"
	"github.com/cairn-agent/cairn/internal/fixtures"
	"github.com/cairn-agent/cairn/internal/mcpserver"
	"github.com/cairn-agent/cairn/internal/mcpserver/mcptest"
	"github.com/cairn-agent/cairn/internal/state"
)

// serveEnv makes the test binary a server on its own stdin and stdout,
// for the tests that start it as a process.
const serveEnv = "CAIRN_MCPSERVER_TEST_SERVE"

func TestMain(m *testing.M) {
	if dir := os.Getenv(serveEnv); dir != "" {
		os.Exit(serveMain(dir))
	}
	code := m.Run()
	fixtures.Remove()
	os.Exit(code)
}

// serveMain serves the context tools and an empty memory over the
// process's stdio, with the project, Claude Code and cairn directories of
// a test under dir: what `cairn mcp` does.
func serveMain(dir string) int {
	k := &continuity.Keeper{State: state.Store{Dir: filepath.Join(dir, "state")}, DBPath: filepath.Join(dir, "data", "cairn.db"),
		Now: time.Now, Warn: func(err error) { os.Stderr.WriteString("cairn: warning: " + err.Error() + "\n") }}
	defer k.Close()
	err := mcpserver.Serve(context.Background(), os.Stdin, os.Stdout, mcpserver.Options{
		Memory: mcptest.NewStore(), Keeper: k, ConfigDir: filepath.Join(dir, "claude"), Dir: filepath.Join(dir, "project"),
		Log: os.Stderr, Version: "test"})
	if err != nil {
		os.Stderr.WriteString("serve: " + err.Error() + "\n")
		return 1
	}
	return 0
}

func TestMemoryTools(t *testing.T) {
	mcptest.MemoryCases(t, func(*testing.T) mcpserver.Memory { return mcptest.NewStore() })
}

var toolNames = []string{"check_compaction_status", "forget", "get_observations", "preserve_critical_context", "remember",
	"restore_compacted_context", "search", "timeline"}

// Claude Code 2.1.328 asks for 2026-07-28 (server/discover) first, then
// initialises with 2025-11-25; both must work, and the older ones.
func TestInitialize(t *testing.T) {
	for _, v := range []string{"", "2025-11-25", "2025-06-18", "2024-11-05"} {
		t.Run("version "+v, func(t *testing.T) {
			w := newWorld(t)
			c := mcptest.Connect(t, w.options(), v)
			res := c.InitializeResult()
			if res == nil || res.ServerInfo == nil || res.ServerInfo.Name != "cairn" || res.ServerInfo.Version != "test" {
				t.Fatalf("initialize result %+v", res)
			}
			if v != "" && res.ProtocolVersion != v {
				t.Errorf("protocol version %q, asked %q", res.ProtocolVersion, v)
			}
			if res.Capabilities == nil || res.Capabilities.Tools == nil || res.Capabilities.Logging != nil {
				t.Errorf("capabilities %+v: want tools only", res.Capabilities)
			}
			lt, err := c.ListTools(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := names(lt.Tools); !slices.Equal(got, toolNames) {
				t.Errorf("tools %v, want %v", got, toolNames)
			}
		})
	}
}

func names(tools []*mcp.Tool) []string {
	var out []string
	for _, tl := range tools {
		out = append(out, tl.Name)
	}
	slices.Sort(out)
	return out
}

// A server without a store or a keeper offers only what it has.
func TestToolSets(t *testing.T) {
	w := newWorld(t)
	for _, c := range []struct {
		name string
		o    mcpserver.Options
		want []string
	}{
		{"memory only", mcpserver.Options{Memory: mcptest.NewStore(), ConfigDir: w.config, Dir: w.project},
			[]string{"forget", "get_observations", "remember", "search", "timeline"}},
		{"context only", mcpserver.Options{Keeper: w.keeper, ConfigDir: w.config, Dir: w.project},
			[]string{"check_compaction_status", "preserve_critical_context", "restore_compacted_context"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			lt, err := mcptest.Connect(t, c.o, "").ListTools(t.Context(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := names(lt.Tools); !slices.Equal(got, c.want) {
				t.Errorf("tools %v, want %v", got, c.want)
			}
		})
	}
}

// The schemas: what each tool takes, what is required, and the values an
// enum allows.
func TestSchemas(t *testing.T) {
	w := newWorld(t)
	lt, err := mcptest.Connect(t, w.options(), "").ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	type prop struct {
		Type any      `json:"type"`
		Enum []string `json:"enum"`
	}
	type schema struct {
		Type                 string          `json:"type"`
		Properties           map[string]prop `json:"properties"`
		Required             []string        `json:"required"`
		AdditionalProperties *bool           `json:"additionalProperties"`
	}
	want := map[string]struct {
		props, required []string
		enum            map[string][]string
	}{
		"search":                    {[]string{"all_projects", "file", "kind", "limit", "query", "since"}, []string{"query"}, nil},
		"timeline":                  {[]string{"after", "before", "id", "query"}, nil, nil},
		"get_observations":          {[]string{"ids"}, []string{"ids"}, nil},
		"remember":                  {[]string{"files", "kind", "text", "title"}, []string{"text"}, nil},
		"forget":                    {[]string{"ids", "query", "session"}, nil, nil},
		"check_compaction_status":   {nil, nil, nil},
		"preserve_critical_context": {[]string{"level"}, nil, map[string][]string{"level": {"critical", "extended", "full"}}},
		"restore_compacted_context": {[]string{"depth"}, nil, map[string][]string{"depth": {"recent", "session", "full"}}},
	}
	for _, tl := range lt.Tools {
		t.Run(tl.Name, func(t *testing.T) {
			data, _ := json.Marshal(tl.InputSchema)
			var s schema
			if err := json.Unmarshal(data, &s); err != nil {
				t.Fatal(err)
			}
			w := want[tl.Name]
			var props []string
			for p := range s.Properties {
				props = append(props, p)
			}
			slices.Sort(props)
			slices.Sort(s.Required)
			if s.Type != "object" || !slices.Equal(props, w.props) || !slices.Equal(s.Required, w.required) {
				t.Errorf("schema %s: want properties %v, required %v", data, w.props, w.required)
			}
			if s.AdditionalProperties == nil || *s.AdditionalProperties {
				t.Errorf("schema %s: unknown arguments must be refused", data)
			}
			for p, pr := range s.Properties {
				if _, one := pr.Type.(string); !one {
					t.Errorf("%s: type %v, want one type", p, pr.Type)
				}
			}
			for p, values := range w.enum {
				if !slices.Equal(s.Properties[p].Enum, values) {
					t.Errorf("%s: enum %v, want %v", p, s.Properties[p].Enum, values)
				}
			}
			if tl.Description == "" || len(tl.Description) > 160 {
				t.Errorf("description %q: want one short sentence", tl.Description)
			}
			if tl.OutputSchema != nil {
				t.Errorf("output schema %v: the model reads the text; a schema only costs context", tl.OutputSchema)
			}
		})
	}
}

// maxToolsBytes bounds what the tool definitions add to every request the
// client makes: about 740 tokens at cairn's 3.5 bytes a token.
const maxToolsBytes = 2600

// TestToolsCost measures the tool definitions as tools/list sends them
// (-v prints the figures) and keeps them under maxToolsBytes.
func TestToolsCost(t *testing.T) {
	w := newWorld(t)
	lt, err := mcptest.Connect(t, w.options(), "2025-11-25").ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	all, err := json.Marshal(lt.Tools)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range lt.Tools {
		one, _ := json.Marshal(tl)
		t.Logf("%-26s %4d bytes ~%3d tokens", tl.Name, len(one), checkpoint.Tokens(string(one)))
	}
	t.Logf("all %d tools: %d bytes ~%d tokens", len(lt.Tools), len(all), checkpoint.Tokens(string(all)))
	if len(all) > maxToolsBytes {
		t.Errorf("the tool definitions take %d bytes, over %d: shorten descriptions or schemas", len(all), maxToolsBytes)
	}
}

// blocking is a store whose search waits for its context to end.
type blocking struct {
	*mcptest.Store
	started chan struct{}
	ended   chan error
}

func (b *blocking) Search(ctx context.Context, q string, f mcpserver.Filter) ([]mcpserver.Hit, error) {
	close(b.started)
	<-ctx.Done()
	b.ended <- ctx.Err()
	return nil, ctx.Err()
}

// A client's cancellation (notifications/cancelled) ends a running call,
// and the server goes on serving.
func TestCancel(t *testing.T) {
	w := newWorld(t)
	mem := &blocking{Store: mcptest.NewStore(), started: make(chan struct{}), ended: make(chan error, 1)}
	o := w.options()
	o.Memory = mem
	c := mcptest.Connect(t, o, "")
	ctx, cancel := context.WithCancel(t.Context())
	called := make(chan error, 1)
	go func() {
		_, err := c.CallTool(ctx, &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "slow"}})
		called <- err
	}()
	<-mem.started
	cancel()
	if err := <-mem.ended; !errors.Is(err, context.Canceled) {
		t.Errorf("the handler's context ended with %v, want canceled", err)
	}
	if err := <-called; !errors.Is(err, context.Canceled) {
		t.Errorf("the call returned %v, want canceled", err)
	}
	out, isErr := c.Call(t, "remember", map[string]any{"text": "still serving"})
	if isErr || !strings.HasPrefix(out, "Remembered #1") {
		t.Errorf("after the cancellation: %q", out)
	}
}

// jsonrpcLines checks that every line of out is a JSON-RPC 2.0 message
// and returns them.
func jsonrpcLines(t *testing.T, out []byte) []map[string]any {
	t.Helper()
	for _, l := range mcptest.NotProtocol(out) {
		t.Errorf("stdout line is not JSON-RPC 2.0: %.300q", l)
	}
	var msgs []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			msgs = append(msgs, m)
		}
	}
	return msgs
}

// The server started as a process, as Claude Code starts `cairn mcp`:
// the SDK's client over the process's stdin and stdout, every tool
// called, nothing but the protocol on stdout, and a clean exit when
// stdin closes.
func TestProcess(t *testing.T) {
	w := newWorld(t)
	w.session(t, fixtures.Compactions[0].Session)
	var wire, errs bytes.Buffer
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Dir = w.project
	cmd.Env = append(os.Environ(), serveEnv+"="+w.dir)
	cmd.Stderr = &errs
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "cairn-test", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.IOTransport{Reader: io.NopCloser(io.TeeReader(stdout, &wire)), Writer: stdin}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connect: %v (stderr %s)", err, errs.String())
	}
	calls := []struct {
		tool string
		args map[string]any
		want string
	}{
		{"check_compaction_status", nil, `"compaction_risk":"occurred"`},
		{"preserve_critical_context", map[string]any{"level": "critical"}, "Saved checkpoint 1"},
		{"restore_compacted_context", map[string]any{}, "# Restored working state (cairn)"},
		{"remember", map[string]any{"text": "The fixture's session was compacted once."}, "Remembered #1"},
		{"search", map[string]any{"query": "compacted"}, "#1 "},
		{"timeline", map[string]any{"id": 1}, "→ #1 "},
		{"get_observations", map[string]any{"ids": []int{1}}, "## #1 note"},
		{"forget", map[string]any{"ids": []int{1}}, "Forgot 1 observation"},
	}
	for _, c := range calls {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		if err != nil {
			t.Fatalf("%s: %v", c.tool, err)
		}
		if out := mcptest.Text(res); res.IsError || !strings.Contains(out, c.want) {
			t.Errorf("%s = %.400q (error %v), want %q", c.tool, out, res.IsError, c.want)
		}
	}
	// Claude Code ends a server by closing its stdin.
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("the server exited with %v: %s", err, errs.String())
	}
	cs.Close()
	msgs := jsonrpcLines(t, wire.Bytes())
	if len(msgs) != len(calls)+1 {
		t.Errorf("%d messages on stdout, want %d: the initialize result and each call's", len(msgs), len(calls)+1)
	}
}

func toolCall(name string, args map[string]any) *mcp.CallToolParams {
	return &mcp.CallToolParams{Name: name, Arguments: args}
}

// The protocol by hand, as a client that errs would speak it: each
// request gets an answer (a protocol error for an unknown method or tool,
// a tool error for arguments that are not an object), the server keeps
// serving, and stdout holds nothing but JSON-RPC. Stdin stays open until
// the answers are in, as a client keeps it: at its end the server stops.
func TestRawProtocol(t *testing.T) {
	w := newWorld(t)
	w.session(t, "short")
	lines := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"no/such/method"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"search","arguments":[1,2]}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"check_compaction_status"}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}`,
		`{"jsonrpc":"2.0","id":6,"method":"tools/list"}`,
	}
	stdin, toServer := io.Pipe()
	fromServer, stdout := io.Pipe()
	var log bytes.Buffer
	o := w.options()
	o.Log = &log
	served := make(chan error, 1)
	go func() { served <- mcpserver.Serve(t.Context(), stdin, stdout, o); stdout.Close() }()
	go func() {
		for _, l := range lines {
			io.WriteString(toServer, l+"\n")
		}
	}()
	var wire bytes.Buffer
	byID := map[float64]map[string]any{}
	sc := bufio.NewScanner(fromServer)
	sc.Buffer(nil, 16<<20)
	for len(byID) < 6 && sc.Scan() {
		wire.Write(append(sc.Bytes(), '\n'))
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			if id, ok := m["id"].(float64); ok {
				byID[id] = m
			}
		}
	}
	toServer.Close()
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
	jsonrpcLines(t, wire.Bytes())
	for id, want := range map[float64]string{1: "result", 2: "error", 3: "error", 4: "result", 5: "result", 6: "result"} {
		m, ok := byID[id]
		if !ok {
			t.Errorf("no answer to request %v; stdout:\n%s", id, wire.String())
			continue
		}
		if _, has := m[want]; !has {
			t.Errorf("request %v: %v, want a %s", id, m, want)
		}
	}
	isErr := func(id float64) bool { res, _ := byID[id]["result"].(map[string]any); return res["isError"] == true }
	if !isErr(4) || !strings.Contains(fmt.Sprint(byID[4]), "validating") {
		t.Errorf("arguments that are not an object: %v", byID[4])
	}
	if isErr(5) {
		t.Errorf("check_compaction_status with no arguments: %v", byID[5])
	}
}
