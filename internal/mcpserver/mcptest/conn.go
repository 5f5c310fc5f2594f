package mcptest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-agent/cairn/internal/mcpserver"
)

// Conn is an SDK client session with mcpserver.Serve over two pipes, as
// stdin and stdout connect them in `cairn mcp`.
type Conn struct {
	*mcp.ClientSession
	mu   sync.Mutex
	wire bytes.Buffer
}

// Wire is everything the server wrote to its stdout so far.
func (c *Conn) Wire() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.wire.Bytes())
}

// NotProtocol returns the lines of out that are not JSON-RPC 2.0
// messages (or batches of them): on stdout, anything else breaks the
// client.
func NotProtocol(out []byte) []string {
	if len(out) == 0 {
		return nil
	}
	var bad []string
	for _, line := range bytes.Split(bytes.TrimSuffix(out, []byte("\n")), []byte("\n")) {
		if !isMessage(line) && !isBatch(line) {
			bad = append(bad, string(line))
		}
	}
	return bad
}

func isMessage(data []byte) bool {
	var m struct {
		Version string `json:"jsonrpc"`
	}
	return json.Unmarshal(data, &m) == nil && m.Version == "2.0"
}

func isBatch(data []byte) bool {
	var ms []json.RawMessage
	if json.Unmarshal(data, &ms) != nil || len(ms) == 0 {
		return false
	}
	for _, m := range ms {
		if !isMessage(m) {
			return false
		}
	}
	return true
}

type recorder struct {
	c *Conn
	w io.Writer
}

func (r recorder) Write(p []byte) (int, error) {
	r.c.mu.Lock()
	r.c.wire.Write(p)
	r.c.mu.Unlock()
	return r.w.Write(p)
}

// Connect serves o over pipes and connects an SDK client to it with the
// protocol version given ("" for the SDK's latest). When the test ends
// the client closes its end, as Claude Code does: Serve must return nil,
// and everything it wrote must have been JSON-RPC.
func Connect(t testing.TB, o mcpserver.Options, version string) *Conn {
	t.Helper()
	toServer, fromClient := io.Pipe()
	toClient, fromServer := io.Pipe()
	c := &Conn{}
	done := make(chan error, 1)
	go func() {
		done <- mcpserver.Serve(context.Background(), toServer, recorder{c, fromServer}, o)
		fromServer.Close()
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "cairn-test", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.IOTransport{Reader: toClient, Writer: fromClient}, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		fromClient.Close()
		t.Fatalf("connect: %v", err)
	}
	c.ClientSession = cs
	t.Cleanup(func() {
		cs.Close()
		if err := <-done; err != nil {
			t.Errorf("Serve returned %v at the end of its input", err)
		}
		for _, l := range NotProtocol(c.Wire()) {
			t.Errorf("not JSON-RPC on stdout: %.300q", l)
		}
	})
	return c
}

// Text is the text of a tool result's content.
func Text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// Call calls a tool and returns its text and whether the result is an
// error; a protocol error fails the test.
func (c *Conn) Call(t testing.TB, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := c.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s %v: %v", name, args, err)
	}
	return Text(res), res.IsError
}
