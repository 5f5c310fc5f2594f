package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
)

// The protocol is MCP's stdio transport: JSON-RPC 2.0 messages, one a
// line, requests from the client on stdin and the answers on stdout. It is
// written here rather than taken from the official Go SDK, which the
// server was first built on: the SDK links net/http, encoding/gob and a
// JSON Schema library whose package initialisation cost every cairn
// process, hooks included, about 1.6 ms (inittrace, 0.63 ms before it and
// 2.21 ms after). The SDK's client still checks this server in the tests.

// JSON-RPC 2.0 error codes.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternalError  = -32603
)

// latestVersion is the newest protocol version the server speaks; the
// others it answers in are those of supported. 2026-07-28 is not one:
// its clients open with server/discover, which the server refuses with
// codeMethodNotFound, and then initialize with an older version.
const latestVersion = "2025-11-25"

func supported(version string) bool {
	switch version {
	case latestVersion, "2025-06-18", "2025-03-26", "2024-11-05":
		return true
	}
	return false
}

// message is a JSON-RPC message from the client: a request (with an id),
// a notification (without), or a response to a request of the server's,
// which sends none.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   json.RawMessage `json:"error"`
}

type response struct {
	JSONRPC version2        `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// version2 is the jsonrpc member of every message the server writes.
type version2 struct{}

func (version2) MarshalJSON() ([]byte, error) { return []byte(`"2.0"`), nil }

// rpcError is a protocol error: what a request gets instead of a result.
// A tool's own failure is not one: it is a result with isError, which the
// model reads.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return e.Message }

func errorf(code int, format string, args ...any) *rpcError {
	return &rpcError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// nullID is the id of an answer to a message whose id could not be read.
var nullID = json.RawMessage("null")

// conn is the server's side of one client's connection. Requests run
// concurrently, each in its own goroutine (a slow tool does not hold up a
// ping or another call), except initialize, which comes first; the
// notifications are handled in order as they are read, so a cancellation
// reaches a request read before it.
type conn struct {
	srv    *server
	out    io.Writer
	cancel context.CancelFunc

	// wmu keeps each message whole on the stream.
	wmu  sync.Mutex
	werr error
	// over is set when serve returns: out is the caller's again.
	over bool

	mu          sync.Mutex
	ctx         context.Context
	initialized bool
	// closed is set at the end of the input: nothing more is started.
	closed bool
	// running are the requests being handled, by id (key), each with the
	// cancellation of its context.
	running map[string]context.CancelFunc
	wg      sync.WaitGroup
}

// serve reads and answers messages until the end of in, the end of ctx,
// or a failed write. Requests still running then are cancelled, and serve
// returns when their handlers have.
func (s *conn) serve(ctx context.Context, in io.Reader) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.ctx, s.cancel, s.running = ctx, cancel, map[string]context.CancelFunc{}
	read := make(chan error, 1)
	go func() { read <- s.read(in) }()
	var err error
	select {
	case err = <-read:
	case <-ctx.Done():
		// The read goroutine may stay blocked on in: what it reads is
		// dropped.
	}
	s.mu.Lock()
	s.closed = true
	for _, stop := range s.running {
		stop()
	}
	s.mu.Unlock()
	s.wg.Wait()
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.over = true
	switch {
	case s.werr != nil:
		return fmt.Errorf("write: %w", s.werr)
	case err != nil:
		return err
	}
	return ctx.Err()
}

// read handles the lines of in until its end, which is a normal end.
func (s *conn) read(in io.Reader) error {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, err := r.ReadBytes('\n')
		if line = bytes.TrimSpace(line); len(line) > 0 {
			s.receive(line)
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read: %w", err)
		}
	}
}

// receive handles one line: a message, or a batch of them (JSON-RPC
// batches, which the 2025-03-26 version of the protocol allows).
func (s *conn) receive(line []byte) {
	if line[0] != '[' {
		var m message
		if err := json.Unmarshal(line, &m); err != nil {
			s.srv.log.warn("mcp: a line that is not a JSON-RPC message: %v: %s", err, show(line))
			s.write(response{ID: nullID, Error: errorf(codeParseError, "parse error: %v", err)})
			return
		}
		s.dispatch(m, func(r *response) {
			if r != nil {
				s.write(r)
			}
		})
		return
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(line, &elems); err != nil {
		s.write(response{ID: nullID, Error: errorf(codeParseError, "parse error: %v", err)})
		return
	}
	if len(elems) == 0 {
		s.write(response{ID: nullID, Error: errorf(codeInvalidRequest, "invalid request: an empty batch")})
		return
	}
	var (
		mu      sync.Mutex
		answers []*response
		pending sync.WaitGroup
	)
	collect := func(r *response) {
		if r != nil {
			mu.Lock()
			answers = append(answers, r)
			mu.Unlock()
		}
		pending.Done()
	}
	for _, e := range elems {
		pending.Add(1)
		var m message
		if err := json.Unmarshal(e, &m); err != nil {
			collect(&response{ID: nullID, Error: errorf(codeInvalidRequest, "invalid request: %v", err)})
			continue
		}
		s.dispatch(m, collect)
	}
	s.start(func() {
		pending.Wait()
		if len(answers) > 0 {
			s.write(answers)
		}
	})
}

// dispatch handles a message and calls reply once, with its answer or nil
// (a notification's, or a cancelled request's).
func (s *conn) dispatch(m message, reply func(*response)) {
	key, idErr := requestKey(m.ID)
	id := m.ID
	if idErr != nil {
		id = nullID
	}
	switch {
	case m.Method == "" && m.ID != nil && (m.Result != nil || m.Error != nil):
		reply(nil) // an answer to a request the server never sends
		return
	case m.JSONRPC != "2.0":
		reply(&response{ID: id, Error: errorf(codeInvalidRequest, "invalid request: jsonrpc is %q, want \"2.0\"", m.JSONRPC)})
		return
	case idErr != nil:
		reply(&response{ID: id, Error: errorf(codeInvalidRequest, "invalid request: %v", idErr)})
		return
	case m.Method == "":
		reply(&response{ID: id, Error: errorf(codeInvalidRequest, "invalid request: no method")})
		return
	case m.ID == nil:
		s.notification(m)
		reply(nil)
		return
	}
	answer := func(result any, err error) {
		r := &response{ID: id}
		if err == nil {
			r.Result, err = json.Marshal(result)
		}
		if err != nil {
			r.Result = nil
			if !errors.As(err, &r.Error) {
				r.Error = &rpcError{Code: codeInternalError, Message: err.Error()}
			}
		}
		reply(r)
	}
	switch m.Method {
	case "initialize":
		// Answered before the next message is read: what follows it is
		// in the session it opens.
		answer(s.initialize(m.Params))
		return
	case "ping":
		answer(struct{}{}, nil)
		return
	}
	handle := s.srv.method(m.Method)
	if handle == nil {
		answer(nil, errorf(codeMethodNotFound, "method not found: %q", m.Method))
		return
	}
	// The request is registered before the next message is read, so that
	// a cancellation that follows it finds it.
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		reply(nil) // the session is over: out is no longer the server's
		return
	case !s.initialized:
		answer(nil, errorf(codeInvalidRequest, "invalid request: %s before initialize", m.Method))
		return
	case s.running[key] != nil:
		answer(nil, errorf(codeInvalidRequest, "invalid request: id %s is already in use", m.ID))
		return
	}
	ctx, cancel := context.WithCancel(s.ctx)
	s.running[key] = cancel
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer cancel()
		result, err := handle(ctx, m.Params)
		s.mu.Lock()
		delete(s.running, key)
		s.mu.Unlock()
		if ctx.Err() != nil {
			// Cancelled by the client, or at the end of the session:
			// no answer is wanted.
			reply(nil)
			return
		}
		answer(result, err)
	}()
}

// start runs f in a goroutine that serve waits for, unless the session
// is over.
func (s *conn) start(f func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		f()
	}()
}

// notification handles a notification: a cancellation cancels the
// request it names; the others need nothing.
func (s *conn) notification(m message) {
	if m.Method != "notifications/cancelled" {
		return
	}
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(m.Params, &p) != nil {
		return
	}
	key, err := requestKey(p.RequestID)
	if err != nil {
		return
	}
	s.mu.Lock()
	if stop := s.running[key]; stop != nil {
		stop()
	}
	s.mu.Unlock()
}

// requestKey names a request by its id, a string or a number: the same
// key for ids that are equal (1 and 1.0).
func requestKey(id json.RawMessage) (string, error) {
	if id == nil {
		return "", nil
	}
	switch valueType(id) {
	case typeString:
		var s string
		if err := json.Unmarshal(id, &s); err != nil {
			return "", err
		}
		return "s" + s, nil
	case typeInteger, typeNumber:
		f, err := strconv.ParseFloat(string(id), 64)
		if err != nil {
			return "", fmt.Errorf("id %s: %w", id, err)
		}
		return "n" + strconv.FormatFloat(f, 'g', -1, 64), nil
	}
	return "", fmt.Errorf("id %s: want a string or a number", show(id))
}

// initialize opens the session: the version both sides speak (the
// client's when the server speaks it, else the server's latest, which the
// client may refuse), the server's name and what it offers.
func (s *conn) initialize(params json.RawMessage) (any, error) {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(params, &p); err != nil || valueType(params) != typeObject {
		return nil, errorf(codeInvalidParams, "invalid params: want an object with protocolVersion")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.initialized {
		return nil, errorf(codeInvalidRequest, "invalid request: initialize received twice")
	}
	s.initialized = true
	version := p.ProtocolVersion
	if !supported(version) {
		version = latestVersion
	}
	type implementation struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	return struct {
		ProtocolVersion string `json:"protocolVersion"`
		// Only tools, which do not change: nothing to notify.
		Capabilities struct {
			Tools struct{} `json:"tools"`
		} `json:"capabilities"`
		ServerInfo implementation `json:"serverInfo"`
	}{ProtocolVersion: version, ServerInfo: implementation{Name: "cairn", Version: s.srv.version}}, nil
}

// write sends one message, or a batch's answers, on a line of its own. A
// failed write ends the session: the client can no longer hear it.
func (s *conn) write(v any) {
	data, err := json.Marshal(v)
	if err != nil {
		s.srv.log.warn("mcp: encode an answer: %v", err)
		return
	}
	data = append(data, '\n')
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.werr != nil || s.over {
		return
	}
	if _, err := s.out.Write(data); err != nil {
		s.srv.log.warn("mcp: the client no longer reads: %v", err)
		s.werr = err
		s.cancel()
	}
}
