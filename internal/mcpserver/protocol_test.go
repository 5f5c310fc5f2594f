package mcpserver_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/mcpserver"
	"github.com/cairn-agent/cairn/internal/mcpserver/mcptest"
)

// wire is a client that speaks the protocol by hand, over pipes: for
// what the SDK's client never sends.
type wire struct {
	t      *testing.T
	in     *io.PipeWriter
	lines  chan []byte
	served chan error
	mu     sync.Mutex
	all    bytes.Buffer
}

// dial serves o until ctx ends or the client closes its end.
func dial(t *testing.T, ctx context.Context, o mcpserver.Options) *wire {
	t.Helper()
	stdin, toServer := io.Pipe()
	fromServer, stdout := io.Pipe()
	w := &wire{t: t, in: toServer, lines: make(chan []byte, 100), served: make(chan error, 1)}
	go func() {
		err := mcpserver.Serve(ctx, stdin, stdout, o)
		stdout.Close()
		w.served <- err
	}()
	go func() {
		defer close(w.lines)
		sc := bufio.NewScanner(fromServer)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			w.mu.Lock()
			w.all.Write(append(sc.Bytes(), '\n'))
			w.mu.Unlock()
			w.lines <- bytes.Clone(sc.Bytes())
		}
	}()
	t.Cleanup(func() {
		toServer.Close()
		w.mu.Lock()
		defer w.mu.Unlock()
		for _, l := range mcptest.NotProtocol(w.all.Bytes()) {
			t.Errorf("not JSON-RPC on stdout: %.300q", l)
		}
	})
	return w
}

func (w *wire) send(lines ...string) {
	w.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(w.in, l+"\n"); err != nil {
			w.t.Fatalf("send %s: %v", l, err)
		}
	}
}

// next is the next line the server writes.
func (w *wire) next() []byte {
	w.t.Helper()
	select {
	case l, ok := <-w.lines:
		if !ok {
			w.t.Fatal("the server's output ended")
		}
		return l
	case <-time.After(10 * time.Second):
		w.t.Fatal("no answer in 10s")
	}
	return nil
}

// answer is one message the server wrote, decoded and as written.
type answer struct {
	m   map[string]any
	raw string
}

// answers reads n answers and returns them by id (as JSON).
func (w *wire) answers(n int) map[string]answer {
	w.t.Helper()
	by := map[string]answer{}
	for range n {
		l := w.next()
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			w.t.Fatalf("answer %s: %v", l, err)
		}
		id, _ := json.Marshal(m["id"])
		if _, dup := by[string(id)]; dup {
			w.t.Fatalf("two answers to id %s: %s", id, l)
		}
		by[string(id)] = answer{m, string(l)}
	}
	return by
}

// end closes the client's end, as Claude Code does to stop a server, and
// returns what Serve returned and what the server wrote after the answers
// read.
func (w *wire) end() (error, []string) {
	w.t.Helper()
	w.in.Close()
	var rest []string
	for l := range w.lines {
		rest = append(rest, string(l))
	}
	select {
	case err := <-w.served:
		return err, rest
	case <-time.After(10 * time.Second):
		w.t.Fatal("Serve did not return in 10s after the end of its input")
	}
	return nil, nil
}

const initialize = `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`

// An answer wanted: a result (code 0) or a protocol error's code, and
// text it holds.
type want struct {
	code int
	has  string
}

// Each request gets its answer, protocol errors with JSON-RPC's codes, and
// the server goes on serving; notifications, and responses the client
// sends, get none.
func TestProtocolAnswers(t *testing.T) {
	w0 := newWorld(t)
	for _, c := range []struct {
		name string
		// bare skips the initialize the other cases start with.
		bare bool
		send []string
		want map[string]want
	}{
		{"Claude Code's server/discover first", true, []string{
			`{"jsonrpc":"2.0","id":"server-discover-probe-1","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
			`{"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true}},"clientInfo":{"name":"claude-code","version":"2.1.328"}},"jsonrpc":"2.0","id":0}`,
			`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
			`{"method":"tools/list","jsonrpc":"2.0","id":1}`,
		}, map[string]want{
			`"server-discover-probe-1"`: {-32601, `server/discover`},
			`0`:                         {0, `"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"cairn","version":"test"}`},
			`1`:                         {0, `"name":"restore_compacted_context"`},
		}},
		{"before initialize", true, []string{
			`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":{"query":"x"}}}`,
			`{"jsonrpc":"2.0","id":3,"method":"ping"}`,
		}, map[string]want{`1`: {-32600, "tools/list before initialize"}, `2`: {-32600, "before initialize"}, `3`: {0, `"result":{}`}}},
		{"initialize twice", false, []string{initialize[:len(initialize)-1] + `,"x":1}`}, map[string]want{
			`"init"`: {-32600, "initialize received twice"},
		}},
		{"parse error", false, []string{
			`not json`,
			`{"jsonrpc":"2.0","id":4,"method":"ping"}`,
		}, map[string]want{`null`: {-32700, "parse error: invalid character"}, `4`: {0, `"result":{}`}}},
		{"cut message", false, []string{
			`{"jsonrpc":"2.0","id":3,"method":"ping"`,
			`{"jsonrpc":"2.0","id":4,"method":"ping"}`,
		}, map[string]want{`null`: {-32700, "parse error: unexpected end of JSON input"}, `4`: {0, `"result":{}`}}},
		{"invalid requests", false, []string{
			`{"jsonrpc":"1.0","id":1,"method":"ping"}`,
			`{"id":2,"method":"ping"}`,
			`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`,
			`{"jsonrpc":"2.0","id":5}`,
		}, map[string]want{`1`: {-32600, `jsonrpc is \"1.0\"`}, `2`: {-32600, `jsonrpc is \"\"`}, `null`: {-32600, "want a string or a number"}, `5`: {-32600, "no method"}}},
		{"null id", false, []string{`{"jsonrpc":"2.0","id":null,"method":"ping"}`}, map[string]want{`null`: {-32600, "invalid request"}}},
		{"unknown methods", false, []string{
			`{"jsonrpc":"2.0","id":1,"method":"resources/list"}`,
			`{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":"info"}}`,
			`{"jsonrpc":"2.0","method":"notifications/no/such"}`,
			`{"jsonrpc":"2.0","id":3,"method":"ping"}`,
		}, map[string]want{`1`: {-32601, `method not found: \"resources/list\"`}, `2`: {-32601, "logging/setLevel"}, `3`: {0, `"result":{}`}}},
		{"a response from the client", false, []string{
			`{"jsonrpc":"2.0","id":1,"result":{}}`,
			`{"jsonrpc":"2.0","id":2,"error":{"code":-1,"message":"no"}}`,
			`{"jsonrpc":"2.0","id":3,"method":"ping"}`,
		}, map[string]want{`3`: {0, `"result":{}`}}},
		{"tools/list", false, []string{
			`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"next"}}`,
			`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":null}`,
			`{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"progressToken":1}}}`,
			`{"jsonrpc":"2.0","id":4,"method":"tools/list","params":[]}`,
		}, map[string]want{`1`: {-32602, `unknown cursor \"next\"`}, `2`: {0, `"name":"search"`}, `3`: {0, `"name":"search"`}, `4`: {-32602, "invalid params"}}},
		{"tools/call", false, []string{
			`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`,
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":"search"}`,
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}`,
			`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"search","arguments":{"query":1}}}`,
			`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"remember","arguments":{"text":"kept"},"_meta":{"claudecode/toolUseId":"toolu_1","progressToken":2}}}`,
			`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"remember","arguments":{"text":"kept"},"_meta":{"claudecode/toolUseId":7}}}`,
		}, map[string]want{`1`: {-32602, "invalid params"}, `2`: {-32602, "invalid params"}, `3`: {-32602, `unknown tool \"no_such_tool\"`},
			`4`: {0, `"isError":true`}, `5`: {0, `Remembered #`}, `6`: {0, `Remembered #`}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := w0.options()
			w := dial(t, t.Context(), o)
			n := len(c.want)
			if !c.bare {
				w.send(initialize)
				if got := w.answers(1)[`"init"`]; got.m["result"] == nil {
					t.Fatalf("initialize: %s", got.raw)
				}
			}
			w.send(c.send...)
			got := w.answers(n)
			for id, wt := range c.want {
				a, ok := got[id]
				if !ok {
					t.Errorf("no answer to id %s; answers %v", id, got)
					continue
				}
				m, line := a.m, a.raw
				e, _ := m["error"].(map[string]any)
				switch {
				case wt.code == 0 && (m["result"] == nil || e != nil):
					t.Errorf("id %s: %s, want a result", id, line)
				case wt.code != 0 && (e == nil || e["code"] != float64(wt.code)):
					t.Errorf("id %s: %s, want error %d", id, line, wt.code)
				case !strings.Contains(line, wt.has):
					t.Errorf("id %s: %s, want %q in it", id, line, wt.has)
				}
			}
			err, rest := w.end()
			if err != nil || len(rest) > 0 {
				t.Errorf("at the end of the input: Serve returned %v, and wrote %q", err, rest)
			}
		})
	}
}

// The version: the client's when the server speaks it, else the latest.
func TestProtocolVersions(t *testing.T) {
	for asked, answered := range map[string]string{
		"2025-11-25": "2025-11-25", "2025-06-18": "2025-06-18", "2025-03-26": "2025-03-26", "2024-11-05": "2024-11-05",
		"2026-07-28": "2025-11-25", "1999-01-01": "2025-11-25", "": "2025-11-25",
	} {
		t.Run(asked, func(t *testing.T) {
			w := dial(t, t.Context(), mcpserver.Options{Version: "test"})
			w.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`, asked))
			res, _ := w.answers(1)["1"].m["result"].(map[string]any)
			if res["protocolVersion"] != answered {
				t.Errorf("asked %q: answered %v, want %q", asked, res, answered)
			}
			w.end()
		})
	}
	t.Run("no params", func(t *testing.T) {
		w := dial(t, t.Context(), mcpserver.Options{})
		w.send(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
		got := w.answers(2)
		if e, _ := got["1"].m["error"].(map[string]any); e["code"] != float64(-32602) {
			t.Errorf("initialize without params: %s", got["1"].raw)
		}
		if got["2"].m["error"] == nil {
			t.Errorf("tools/list after a failed initialize: %s", got["2"].raw)
		}
		w.end()
	})
}

// Batches (2025-03-26 allows them): one line of answers, the
// notifications' left out.
func TestProtocolBatch(t *testing.T) {
	w := dial(t, t.Context(), newWorld(t).options())
	w.send(`[` + initialize + `,{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":2,"method":"tools/list"},7]`)
	var answers []map[string]any
	if l := w.next(); json.Unmarshal(l, &answers) != nil || len(answers) != 3 {
		t.Fatalf("batch answers: %s, want an array of 3", l)
	}
	for _, a := range answers {
		id, _ := json.Marshal(a["id"])
		e, _ := a["error"].(map[string]any)
		switch string(id) {
		case `"init"`, `2`:
			if a["result"] == nil {
				t.Errorf("batch answer %v: want a result", a)
			}
		case `null`:
			if e["code"] != float64(-32600) {
				t.Errorf("batch answer %v: want an invalid request", a)
			}
		default:
			t.Errorf("batch answer %v", a)
		}
	}
	w.send(`[]`, `[1,`)
	got := []string{string(w.next()), string(w.next())}
	if !strings.Contains(got[0], "-32600") || !strings.Contains(got[1], "-32700") {
		t.Errorf("an empty batch and a broken one: %q", got)
	}
	if err, rest := w.end(); err != nil || len(rest) > 0 {
		t.Errorf("end: %v, %q", err, rest)
	}
}

// A call that blocks until cancelled.
func blockingWire(t *testing.T, ctx context.Context) (*wire, *blocking) {
	t.Helper()
	mem := &blocking{Store: mcptest.NewStore(), started: make(chan struct{}), ended: make(chan error, 1)}
	o := newWorld(t).options()
	o.Memory = mem
	w := dial(t, ctx, o)
	w.send(initialize)
	w.answers(1)
	w.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search","arguments":{"query":"slow"}}}`)
	select {
	case <-mem.started:
	case <-time.After(10 * time.Second):
		t.Fatal("the call did not start")
	}
	return w, mem
}

func ended(t *testing.T, mem *blocking) {
	t.Helper()
	select {
	case err := <-mem.ended:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("the handler's context ended with %v, want canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the handler's context was not cancelled")
	}
}

// notifications/cancelled cancels the call it names, which then gets no
// answer; an id in use is refused, 7.0 being 7.
func TestProtocolCancel(t *testing.T) {
	w, mem := blockingWire(t, t.Context())
	w.send(`{"jsonrpc":"2.0","id":7.0,"method":"tools/call","params":{"name":"search","arguments":{"query":"again"}}}`)
	if a := w.answers(1)["7"]; !strings.Contains(a.raw, `"code":-32600`) || !strings.Contains(a.raw, "in use") {
		t.Errorf("a second request with id 7: %s", a.raw)
	}
	// "7" is another id than 7; ping's answer comes after the
	// notification is handled.
	w.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"7"}}`, `{"jsonrpc":"2.0","id":8,"method":"ping"}`)
	w.answers(1)
	select {
	case err := <-mem.ended:
		t.Fatalf("the call ended (%v) when another id was cancelled", err)
	default:
	}
	w.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"the user stopped"}}`)
	ended(t, mem)
	w.send(`{"jsonrpc":"2.0","id":9,"method":"ping"}`)
	if a := w.answers(1); a["9"].m == nil {
		t.Errorf("after the cancellation: %v", a)
	}
	if err, rest := w.end(); err != nil || len(rest) > 0 {
		t.Errorf("end: Serve returned %v and wrote %q; want no answer to the cancelled call", err, rest)
	}
}

// The end of the input cancels the calls still running: Serve returns nil
// once they have returned, with no answer to them.
func TestProtocolEndCancels(t *testing.T) {
	w, mem := blockingWire(t, t.Context())
	err, rest := w.end()
	ended(t, mem)
	if err != nil || len(rest) > 0 {
		t.Errorf("end: Serve returned %v and wrote %q", err, rest)
	}
}

// The end of Serve's context ends it while the input is still open.
func TestProtocolContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	w, mem := blockingWire(t, ctx)
	cancel()
	ended(t, mem)
	select {
	case err := <-w.served:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Serve returned %v, want canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return when its context ended")
	}
}

type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

// A client that no longer reads ends the session.
func TestProtocolWriteFails(t *testing.T) {
	in, toServer := io.Pipe()
	defer toServer.Close()
	served := make(chan error, 1)
	go func() { served <- mcpserver.Serve(t.Context(), in, failing{}, mcpserver.Options{}) }()
	io.WriteString(toServer, initialize+"\n")
	select {
	case err := <-served:
		if err == nil || !strings.Contains(err.Error(), "write: broken pipe") {
			t.Errorf("Serve returned %v, want the write's error", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return when its output failed")
	}
}

// FuzzProtocol: whatever the client sends after initializing, the server
// writes only JSON-RPC and ends cleanly at the end of its input.
func FuzzProtocol(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"search","arguments":{"query":"x","limit":2.0}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"remember","arguments":{"text":"t"},"_meta":{"claudecode/toolUseId":"toolu_1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"x"}]`,
		"not json\n\n{}\n[]\n[1]\nnull\n\"x\"\n",
		`{"jsonrpc":"2.0","id":3,"method":"initialize","params":{}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"check_compaction_status","arguments":null}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		dir := t.TempDir()
		o := mcpserver.Options{Memory: mcptest.NewStore(), ConfigDir: dir, Dir: dir, Version: "test"}
		var out bytes.Buffer
		in := io.MultiReader(strings.NewReader(initialize+"\n"), bytes.NewReader(input))
		if err := mcpserver.Serve(t.Context(), in, &out, o); err != nil {
			t.Fatalf("Serve: %v", err)
		}
		for _, l := range mcptest.NotProtocol(out.Bytes()) {
			t.Fatalf("not JSON-RPC on stdout: %.300q", l)
		}
	})
}
