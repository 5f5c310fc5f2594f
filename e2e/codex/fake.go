package codex

// A fake of the OpenAI Responses API on loopback, as much as Codex 0.169.0
// needs to run a session offline (shared/agents-codex-gemini.md): POST
// /v1/responses answered as SSE (response.created, output_item.added,
// output_text.delta, output_item.done, response.completed with the usage
// the test chose), GETs answered with empty lists. It tells a compaction
// request by x-codex-turn-metadata's request_kind or by the compaction
// prompt, answers it with a summary, and keeps every request's body.

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"strings"
	"sync"
)

// Request is one /v1/responses request the fake received.
type Request struct {
	N       int
	Kind    string // x-codex-turn-metadata's request_kind: turn, compaction
	Body    map[string]any
	Compact bool
}

// Message is a message item of a request's input.
type Message struct {
	Role, Text string
}

// Messages are the message items of the request's input, in order, each
// with its text parts joined.
func (r Request) Messages() []Message {
	var out []Message
	items, _ := r.Body["input"].([]any)
	for _, it := range items {
		m, _ := it.(map[string]any)
		if m == nil || (m["type"] != nil && m["type"] != "message") {
			continue
		}
		var parts []string
		content, _ := m["content"].([]any)
		for _, c := range content {
			if cm, ok := c.(map[string]any); ok {
				if s, ok := cm["text"].(string); ok {
					parts = append(parts, s)
				}
			}
		}
		role, _ := m["role"].(string)
		out = append(out, Message{Role: role, Text: strings.Join(parts, "\n")})
	}
	return out
}

// Reply is what the fake answers a turn's request with: a text, a tool
// call, or a text then a call. A Script reply's call is made once per
// Script, then the reply is its text alone: after a mid-turn compaction
// the call's output is gone from the history, and a fake that asked again
// would loop. Queued replies (Queue) are each answered once, in order.
type Reply struct {
	Text string
	// Command is an exec_command call, Patch an apply_patch call (the
	// freeform tool: a custom_tool_call whose input is the patch), Plan
	// an update_plan call (step and status pairs). At most one is set.
	Command string
	Patch   string
	Plan    [][2]string
	// InputTokens is the usage the reply reports; 1000 when 0.
	InputTokens int
	// CachedTokens is the part of InputTokens the reply reports cached.
	CachedTokens int
	// OutputTokens is the output usage it reports; 20 when 0.
	OutputTokens int
}

// call says whether the reply makes a tool call.
func (r Reply) call() bool { return r.Command != "" || r.Patch != "" || len(r.Plan) > 0 }

// Fake is the server. Script sets the reply to turn requests.
type Fake struct {
	URL string // the base URL for config.toml: http://127.0.0.1:PORT/v1

	mu       sync.Mutex
	reply    Reply
	called   bool // the reply's tool call was made
	queue    []Reply
	answered []Answer
	requests []Request
	srv      *http.Server
	errs     []error
}

// Start serves the fake on a free loopback port until Close.
func Start() (*Fake, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	f := &Fake{URL: "http://" + ln.Addr().String() + "/v1", reply: Reply{Text: "OK"}}
	f.srv = &http.Server{Handler: http.HandlerFunc(f.serve)}
	go f.srv.Serve(ln)
	return f, nil
}

// Close stops the fake.
func (f *Fake) Close() error { return f.srv.Close() }

// Script sets the reply to the next turn requests.
func (f *Fake) Script(r Reply) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reply = r
	f.called = false
}

// Queue adds replies that the next turn requests take, one each, before
// the Script reply is used again.
func (f *Fake) Queue(r ...Reply) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queue = append(f.queue, r...)
}

// Queued is how many queued replies no request has taken yet.
func (f *Fake) Queued() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.queue)
}

// Answer is what the fake answered one request with: the request's rank
// (Request.N), the response id and the usage it reported.
type Answer struct {
	N                                    int
	ResponseID                           string
	Compact                              bool
	Input, Cached, Output, TotalReported int
}

// Answers are the fake's answers so far, in order.
func (f *Fake) Answers() []Answer {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Answer(nil), f.answered...)
}

// Requests are the /v1/responses requests so far.
func (f *Fake) Requests() []Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Request(nil), f.requests...)
}

// Errs are the requests the fake could not read.
func (f *Fake) Errs() []error {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]error(nil), f.errs...)
}

func (f *Fake) fail(err error) {
	f.mu.Lock()
	f.errs = append(f.errs, err)
	f.mu.Unlock()
}

func (f *Fake) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || !strings.HasSuffix(strings.TrimRight(r.URL.Path, "/"), "/responses") {
		w.Header().Set("content-type", "application/json")
		if strings.Contains(r.URL.Path, "/models") {
			io.WriteString(w, `{"object":"list","data":[],"models":[]}`)
			return
		}
		io.WriteString(w, "{}")
		return
	}
	raw, err := readBody(r)
	if err != nil {
		f.fail(err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var body map[string]any
	if err := json.Unmarshal(raw, &body); err != nil {
		f.fail(fmt.Errorf("request body: %w", err))
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var meta struct {
		RequestKind string `json:"request_kind"`
	}
	json.Unmarshal([]byte(r.Header.Get("x-codex-turn-metadata")), &meta)

	f.mu.Lock()
	n := len(f.requests) + 1
	req := Request{N: n, Kind: meta.RequestKind, Body: body}
	req.Compact = meta.RequestKind == "compaction" || isCompaction(req)
	f.requests = append(f.requests, req)
	reply := f.reply
	var call bool
	switch {
	case req.Compact:
	case len(f.queue) > 0:
		reply, f.queue = f.queue[0], f.queue[1:]
		call = reply.call()
	default:
		call = reply.call() && !f.called
		f.called = f.called || call
	}
	in, cached, out := reply.InputTokens, reply.CachedTokens, reply.OutputTokens
	if in == 0 || req.Compact {
		in, cached = 1000, 0
	}
	if out == 0 {
		out = 20
	}
	id := fmt.Sprintf("resp_%d", n)
	f.answered = append(f.answered, Answer{N: n, ResponseID: id, Compact: req.Compact, Input: in, Cached: cached, Output: out, TotalReported: in + out})
	f.mu.Unlock()

	var items []map[string]any
	switch {
	case req.Compact:
		items = append(items, message(n, fmt.Sprintf("SUMMARY-%d: the user asked things.", n)))
	case call:
		if reply.Text != "" {
			items = append(items, message(n, reply.Text))
		}
		items = append(items, toolCall(n, reply))
	default:
		items = append(items, message(n, reply.Text))
	}
	usage := map[string]any{"input_tokens": in, "input_tokens_details": map[string]any{"cached_tokens": cached},
		"output_tokens": out, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": in + out}
	w.Header().Set("content-type", "text/event-stream")
	w.Header().Set("cache-control", "no-cache")
	w.Header().Set("connection", "close")
	ev := func(v map[string]any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", v["type"], b)
		if fl, ok := w.(http.Flusher); ok {
			fl.Flush()
		}
	}
	ev(map[string]any{"type": "response.created", "response": map[string]any{"id": id, "status": "in_progress"}})
	output := make([]any, len(items))
	for i, item := range items {
		output[i] = item
		ev(map[string]any{"type": "response.output_item.added", "output_index": i, "item": item})
		if item["type"] == "message" {
			text := item["content"].([]any)[0].(map[string]any)["text"]
			ev(map[string]any{"type": "response.output_text.delta", "output_index": i, "item_id": item["id"], "content_index": 0, "delta": text})
		}
		ev(map[string]any{"type": "response.output_item.done", "output_index": i, "item": item})
	}
	ev(map[string]any{"type": "response.completed", "response": map[string]any{"id": id, "status": "completed", "output": output, "usage": usage}})
}

// toolCall is the output item of a reply's call.
func toolCall(n int, r Reply) map[string]any {
	callID := fmt.Sprintf("call_%d", n)
	switch {
	case r.Patch != "":
		return map[string]any{"type": "custom_tool_call", "id": fmt.Sprintf("ctc_%d", n), "call_id": callID, "name": "apply_patch", "input": r.Patch}
	case len(r.Plan) > 0:
		var plan []map[string]string
		for _, p := range r.Plan {
			plan = append(plan, map[string]string{"step": p[0], "status": p[1]})
		}
		args, _ := json.Marshal(map[string]any{"plan": plan})
		return map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%d", n), "call_id": callID, "name": "update_plan", "arguments": string(args)}
	default:
		args, _ := json.Marshal(map[string]string{"cmd": r.Command})
		return map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%d", n), "call_id": callID, "name": "exec_command", "arguments": string(args)}
	}
}

func message(n int, text string) map[string]any {
	return map[string]any{"type": "message", "role": "assistant", "id": fmt.Sprintf("msg_%d", n),
		"content": []any{map[string]any{"type": "output_text", "text": text}}}
}

// isCompaction tells a compaction request by its prompt, when the
// metadata header is missing.
func isCompaction(r Request) bool {
	ms := r.Messages()
	return len(ms) > 0 && strings.Contains(ms[len(ms)-1].Text, "CONTEXT CHECKPOINT COMPACTION")
}

// readBody reads a request body, undoing gzip or zstd (with the zstd
// program: the module takes no compression dependency for a test).
func readBody(r *http.Request) ([]byte, error) {
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, err
	}
	switch enc := r.Header.Get("content-encoding"); enc {
	case "":
		return raw, nil
	case "gzip":
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return nil, err
		}
		return io.ReadAll(zr)
	case "zstd":
		cmd := exec.Command("zstd", "-d", "-c")
		cmd.Stdin = bytes.NewReader(raw)
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("zstd -d (a zstd program is needed for Codex's compressed requests): %w", err)
		}
		return out, nil
	default:
		return nil, fmt.Errorf("content-encoding %q", enc)
	}
}
