// Package fakeapi is a scriptable stand-in for the Anthropic Messages API,
// served on loopback, that the real Claude Code client can be pointed at with
// ANTHROPIC_BASE_URL.
//
// A test queues the replies the "model" gives, including the usage numbers
// the client will record in its transcript, so the test knows exactly which
// context figures cairn must report. Requests that are not turns of the
// conversation (compaction summaries, side requests, token counting) are
// answered without touching the queue, so a script stays in step with the
// turns whatever housekeeping the client does.
package fakeapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Usage is the token accounting the fake reports for one reply. Claude Code
// copies it verbatim into the transcript's message.usage.
type Usage struct {
	InputTokens              int `json:"input_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	OutputTokens             int `json:"output_tokens"`
}

// Context is the context in use after a reply with this usage, as Claude Code
// and cairn define it: every input token, cached or not.
func (u Usage) Context() int {
	return u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens
}

// ToolUse is a tool call the fake model makes. An empty ID is filled with a
// unique one. Input is marshalled to JSON as the tool's arguments.
type ToolUse struct {
	ID    string
	Name  string
	Input any
}

// Reply is one scripted answer: text and/or tool calls, and the usage to
// report. A reply with tool calls ends with stop_reason "tool_use", so the
// client runs the tools and comes back for the next reply in the queue.
type Reply struct {
	Text  string
	Tools []ToolUse
	Usage Usage

	// For, when set, says which conversation the reply is meant for: the
	// request's first user message must contain it (a subagent's first user
	// message is the prompt its Agent call gave it; the main chain's holds
	// the session's first prompt until a compaction replaces it). A
	// subagent and the main loop draw from one queue, so this is how a
	// script notices a reply served to the wrong one.
	For string
	// ToolResultFor, when set, is the id of a tool call whose result the
	// request's last user message must carry: the reply answers that
	// result (after a compaction inside a turn, the result reaches the
	// model only in the first request after the compaction).
	ToolResultFor string
}

// Kind says how the fake classified a request.
type Kind string

const (
	// Main is a turn of the conversation (or of a subagent's): it consumes
	// the next scripted reply.
	Main Kind = "main"
	// Compaction is the request that asks the model to summarise the
	// conversation (manual /compact or auto-compaction).
	Compaction Kind = "compaction"
	// Side is a Messages request that is not a conversation turn: no tools
	// offered, or a small model such as haiku (titles, topic detection, quota
	// probes, permission helpers).
	Side Kind = "side"
	// CountTokens is POST /v1/messages/count_tokens.
	CountTokens Kind = "count_tokens"
	// Other is anything else (GET, HEAD, unknown paths); answered with {}.
	Other Kind = "other"
)

// Request is one request the fake received, in arrival order.
type Request struct {
	Seq    int // 1-based arrival order across all kinds
	Time   time.Time
	Method string
	Path   string // URL path without the query
	Query  string
	Kind   Kind
	// Body is the parsed JSON body, nil when the body was empty or not JSON.
	// Copies of a Request share it: treat it as read-only.
	Body map[string]any
	// Size is the length of the raw body in bytes.
	Size int
	// Model and Stream are copied out of Body for convenience.
	Model  string
	Stream bool
	// Answer is what a Messages request was answered with, MessageID its
	// message id and RequestID the request-id header sent with it (the
	// transcript's requestId).
	Answer    Reply
	MessageID string
	RequestID string
	// Unscripted is set on a Main request that found the queue empty and got
	// the default answer.
	Unscripted bool
	// Mismatch says how a Main request failed its scripted reply's For or
	// ToolResultFor; it was answered with that reply all the same, so the
	// script stays in step and the test can report the mismatch.
	Mismatch string
}

// Options configure a Server. Zero values get the defaults described on
// each field.
type Options struct {
	// CompactionSummary answers compaction requests. Default: a short
	// <analysis> block followed by a <summary> block.
	CompactionSummary string
	// CompactionUsage is the usage reported on compaction answers. Default:
	// 2000 input tokens, 100 output tokens.
	CompactionUsage Usage
	// SideText answers side requests. Default "ok".
	SideText string
	// SideUsage is the usage reported on side answers. Default: 100 input
	// tokens, 5 output tokens.
	SideUsage Usage
	// DefaultUsage is reported when the queue is empty. Default: 1000 input
	// tokens, 5 output tokens.
	DefaultUsage Usage
	// CountTokens is the answer to count_tokens. Default 1000.
	CountTokens int
}

// DefaultCompactionSummary is what compaction requests get unless Options
// says otherwise.
const DefaultCompactionSummary = "<analysis>fake analysis</analysis>\n<summary>1. Primary Request and Intent: FAKE SUMMARY of the conversation.</summary>"

func (o Options) withDefaults() Options {
	if o.CompactionSummary == "" {
		o.CompactionSummary = DefaultCompactionSummary
	}
	if o.CompactionUsage == (Usage{}) {
		o.CompactionUsage = Usage{InputTokens: 2000, OutputTokens: 100}
	}
	if o.SideText == "" {
		o.SideText = "ok"
	}
	if o.SideUsage == (Usage{}) {
		o.SideUsage = Usage{InputTokens: 100, OutputTokens: 5}
	}
	if o.DefaultUsage == (Usage{}) {
		o.DefaultUsage = Usage{InputTokens: 1000, OutputTokens: 5}
	}
	if o.CountTokens == 0 {
		o.CountTokens = 1000
	}
	return o
}

// Server is a running fake API. All methods are safe for concurrent use.
type Server struct {
	// URL is the base URL to put in ANTHROPIC_BASE_URL (http://127.0.0.1:PORT).
	URL string

	srv *httptest.Server

	mu     sync.Mutex
	opts   Options
	queue  []Reply
	reqs   []Request
	nextID int
}

// New starts a fake API on a free port of 127.0.0.1. Close it when done.
func New(opts Options) *Server {
	s := &Server{opts: opts.withDefaults()}
	// httptest.NewServer listens on 127.0.0.1 (or [::1]) only, which is all
	// the bench may ever talk to.
	s.srv = httptest.NewServer(http.HandlerFunc(s.serveHTTP))
	s.URL = s.srv.URL
	return s
}

// Close stops the server and waits for requests in flight.
func (s *Server) Close() { s.srv.Close() }

// Enqueue appends scripted replies for Main requests, answered in order.
func (s *Server) Enqueue(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, replies...)
}

// Pending is the number of scripted replies not yet consumed.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// SetCompaction changes the summary text and usage of later compaction
// answers.
func (s *Server) SetCompaction(summary string, usage Usage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opts.CompactionSummary = summary
	s.opts.CompactionUsage = usage
}

// Requests returns a copy of every request received so far, in arrival
// order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// OfKind returns the requests of one kind, in arrival order.
func (s *Server) OfKind(k Kind) []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Kind == k {
			out = append(out, r)
		}
	}
	return out
}

// After returns the first request of kind k that arrived after the request
// numbered seq. With a compaction request c, After(c.Seq, Main) is the first
// conversation turn the client sent after compacting.
func (s *Server) After(seq int, k Kind) (Request, bool) {
	for _, r := range s.Requests() {
		if r.Seq > seq && r.Kind == k {
			return r, true
		}
	}
	return Request{}, false
}

// Unscripted returns the Main requests that found the queue empty. A test
// whose script should cover every turn fails when this is not empty.
func (s *Server) Unscripted() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Unscripted {
			out = append(out, r)
		}
	}
	return out
}

// Mismatched returns the Main requests that did not meet their scripted
// reply's For or ToolResultFor.
func (s *Server) Mismatched() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.Mismatch != "" {
			out = append(out, r)
		}
	}
	return out
}

// Summary describes the requests received, one per line, for failure
// messages.
func (s *Server) Summary() string {
	var b strings.Builder
	for _, r := range s.Requests() {
		fmt.Fprintf(&b, "#%d %s %s kind=%s model=%s stream=%v", r.Seq, r.Method, r.Path, r.Kind, r.Model, r.Stream)
		if r.MessageID != "" {
			fmt.Fprintf(&b, " id=%s usage=%+v tools=%d", r.MessageID, r.Answer.Usage, len(r.Answer.Tools))
		}
		if r.Unscripted {
			b.WriteString(" UNSCRIPTED")
		}
		if r.Mismatch != "" {
			fmt.Fprintf(&b, " MISMATCH(%s)", r.Mismatch)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	req := Request{
		Time:   time.Now(),
		Method: r.Method,
		Path:   r.URL.Path,
		Query:  r.URL.RawQuery,
		Size:   len(raw),
	}
	if len(bytes.TrimSpace(raw)) > 0 {
		var body map[string]any
		if json.Unmarshal(raw, &body) == nil {
			req.Body = body
			req.Model, _ = body["model"].(string)
			req.Stream, _ = body["stream"].(bool)
		}
	}
	req.Kind = Classify(r.Method, r.URL.Path, req.Body)

	// Choosing the answer and recording the request happen under one lock so
	// that arrival order, queue order and message ids agree.
	s.mu.Lock()
	var answer Reply
	switch req.Kind {
	case Main:
		if len(s.queue) > 0 {
			answer = s.queue[0]
			s.queue = s.queue[1:]
			req.Mismatch = mismatch(answer, req.Body)
		} else {
			answer = Reply{Text: "ok", Usage: s.opts.DefaultUsage}
			req.Unscripted = true
		}
	case Compaction:
		answer = Reply{Text: s.opts.CompactionSummary, Usage: s.opts.CompactionUsage}
	case Side:
		answer = Reply{Text: s.opts.SideText, Usage: s.opts.SideUsage}
	}
	isMessage := req.Kind == Main || req.Kind == Compaction || req.Kind == Side
	if isMessage {
		s.nextID++
		req.MessageID = fmt.Sprintf("msg_fake_%04d", s.nextID)
		req.RequestID = fmt.Sprintf("req_fake_%04d", s.nextID)
		answer.Tools = append([]ToolUse(nil), answer.Tools...)
		for i := range answer.Tools {
			if answer.Tools[i].ID == "" {
				answer.Tools[i].ID = fmt.Sprintf("toolu_fake_%04d_%d", s.nextID, i)
			}
		}
		req.Answer = answer
	}
	req.Seq = len(s.reqs) + 1
	s.reqs = append(s.reqs, req)
	countTokens := s.opts.CountTokens
	s.mu.Unlock()

	if isMessage {
		// The real API names each response; the client records it as the
		// transcript's requestId.
		w.Header().Set("request-id", req.RequestID)
	}
	switch {
	case req.Kind == CountTokens:
		writeJSON(w, map[string]any{"input_tokens": countTokens})
	case !isMessage:
		writeJSON(w, map[string]any{})
	case req.Stream:
		model := req.Model
		if model == "" {
			model = "claude-fake"
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		_ = WriteSSE(w, req.MessageID, model, answer)
	default:
		writeJSON(w, Message(req.MessageID, req.Model, answer))
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// compactionMarker is the sentence Claude Code 2.1.328 puts in the last user
// message of every compaction request, manual or automatic.
const compactionMarker = "an <analysis> block followed by a <summary> block"

// Classify decides how a request is answered. It is exported so its rules
// can be tested on captured bodies.
func Classify(method, path string, body map[string]any) Kind {
	if method != http.MethodPost {
		return Other
	}
	switch strings.TrimSuffix(path, "/") {
	case "/v1/messages/count_tokens":
		return CountTokens
	case "/v1/messages":
	default:
		return Other
	}
	if body == nil {
		return Other
	}
	if strings.Contains(LastUserText(body), compactionMarker) {
		return Compaction
	}
	// Conversation turns always offer tools (the compaction request does too,
	// which is why it is recognised first); helper calls do not, or go to a
	// small model.
	tools, _ := body["tools"].([]any)
	model, _ := body["model"].(string)
	if len(tools) == 0 || strings.Contains(strings.ToLower(model), "haiku") {
		return Side
	}
	return Main
}

// mismatch says how body fails r's For and ToolResultFor, "" when it
// does not.
func mismatch(r Reply, body map[string]any) string {
	var why []string
	if r.For != "" && !strings.Contains(FirstUserText(body), r.For) {
		why = append(why, fmt.Sprintf("first user message lacks %q", r.For))
	}
	if r.ToolResultFor != "" {
		found := false
		for _, tr := range ToolResults(body) {
			found = found || tr.ToolUseID == r.ToolResultFor
		}
		if !found {
			why = append(why, fmt.Sprintf("last user message carries no result for %s", r.ToolResultFor))
		}
	}
	return strings.Join(why, "; ")
}

// FirstUserText is the text of the first user message of a Messages
// request body, like LastUserText.
func FirstUserText(body map[string]any) string {
	msgs, _ := body["messages"].([]any)
	for _, m := range msgs {
		mm, _ := m.(map[string]any)
		if role, _ := mm["role"].(string); role == "user" {
			return contentText(mm["content"])
		}
	}
	return ""
}

// LastUserText is the concatenated text of the last user message of a
// Messages request body: a string content, or its text blocks.
func LastUserText(body map[string]any) string {
	msgs, _ := body["messages"].([]any)
	for i := len(msgs) - 1; i >= 0; i-- {
		m, _ := msgs[i].(map[string]any)
		if role, _ := m["role"].(string); role != "user" {
			continue
		}
		return contentText(m["content"])
	}
	return ""
}

func contentText(c any) string {
	switch c := c.(type) {
	case string:
		return c
	case []any:
		var parts []string
		for _, b := range c {
			bm, _ := b.(map[string]any)
			if t, _ := bm["type"].(string); t == "text" {
				s, _ := bm["text"].(string)
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}

// ToolResult is a tool_result block found in a request, as the client
// reports a tool's outcome back to the model.
type ToolResult struct {
	ToolUseID string
	IsError   bool
	Text      string
}

// ToolResults returns the tool_result blocks of the last user message of a
// Messages request body.
func ToolResults(body map[string]any) []ToolResult {
	msgs, _ := body["messages"].([]any)
	for i := len(msgs) - 1; i >= 0; i-- {
		m, _ := msgs[i].(map[string]any)
		if role, _ := m["role"].(string); role != "user" {
			continue
		}
		blocks, _ := m["content"].([]any)
		var out []ToolResult
		for _, b := range blocks {
			bm, _ := b.(map[string]any)
			if t, _ := bm["type"].(string); t != "tool_result" {
				continue
			}
			r := ToolResult{}
			r.ToolUseID, _ = bm["tool_use_id"].(string)
			r.IsError, _ = bm["is_error"].(bool)
			r.Text = contentText(bm["content"])
			out = append(out, r)
		}
		return out
	}
	return nil
}

func stopReason(r Reply) string {
	if len(r.Tools) > 0 {
		return "tool_use"
	}
	return "end_turn"
}

func toolInputJSON(t ToolUse) (string, error) {
	if t.Input == nil {
		return "{}", nil
	}
	b, err := json.Marshal(t.Input)
	if err != nil {
		return "", fmt.Errorf("tool %s input: %w", t.Name, err)
	}
	return string(b), nil
}

// Message is the non-streaming answer: a complete Messages API message.
func Message(id, model string, r Reply) map[string]any {
	var content []any
	if r.Text != "" || len(r.Tools) == 0 {
		content = append(content, map[string]any{"type": "text", "text": r.Text})
	}
	for _, t := range r.Tools {
		in := json.RawMessage("{}")
		if js, err := toolInputJSON(t); err == nil {
			in = json.RawMessage(js)
		}
		content = append(content, map[string]any{"type": "tool_use", "id": t.ID, "name": t.Name, "input": in})
	}
	return map[string]any{
		"id":            id,
		"type":          "message",
		"role":          "assistant",
		"model":         model,
		"content":       content,
		"stop_reason":   stopReason(r),
		"stop_sequence": nil,
		"usage":         r.Usage,
	}
}

// WriteSSE writes a streamed Messages answer: message_start carrying the
// whole usage, one start/delta/stop triple per content block, message_delta
// with the stop reason and output tokens, message_stop.
func WriteSSE(w io.Writer, id, model string, r Reply) error {
	flush := func() {
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	var err error
	event := func(name string, data any) {
		if err != nil {
			return
		}
		var b []byte
		b, err = json.Marshal(data)
		if err != nil {
			return
		}
		_, err = fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	}
	msg := Message(id, model, r)
	msg["content"] = []any{}
	msg["stop_reason"] = nil
	event("message_start", map[string]any{"type": "message_start", "message": msg})
	flush()
	index := 0
	if r.Text != "" || len(r.Tools) == 0 {
		event("content_block_start", map[string]any{"type": "content_block_start", "index": index,
			"content_block": map[string]any{"type": "text", "text": ""}})
		event("content_block_delta", map[string]any{"type": "content_block_delta", "index": index,
			"delta": map[string]any{"type": "text_delta", "text": r.Text}})
		event("content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
		index++
	}
	for _, t := range r.Tools {
		js, jerr := toolInputJSON(t)
		if jerr != nil {
			return jerr
		}
		event("content_block_start", map[string]any{"type": "content_block_start", "index": index,
			"content_block": map[string]any{"type": "tool_use", "id": t.ID, "name": t.Name, "input": map[string]any{}}})
		// Split the arguments in two deltas, as the real API streams them in
		// pieces: the client must concatenate partial_json.
		half := len(js) / 2
		for half < len(js) && !utf8.RuneStart(js[half]) {
			half++
		}
		for _, part := range []string{js[:half], js[half:]} {
			event("content_block_delta", map[string]any{"type": "content_block_delta", "index": index,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": part}})
		}
		event("content_block_stop", map[string]any{"type": "content_block_stop", "index": index})
		index++
	}
	event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stopReason(r), "stop_sequence": nil},
		"usage": map[string]any{"output_tokens": r.Usage.OutputTokens}})
	event("message_stop", map[string]any{"type": "message_stop"})
	flush()
	return err
}
