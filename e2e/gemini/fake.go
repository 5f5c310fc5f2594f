package gemini

// A fake of the Gemini API on loopback, as much as Gemini CLI 0.61.0 needs
// to run a session offline (shared/agents-codex-gemini.md, a Go port of
// shared/gemini-cli/fake_gemini.py): POST
// /v1beta/models/<model>:streamGenerateContent?alt=sse for turns,
// answered as one SSE event with the usage the test chose; POST
// :generateContent for the compression's two calls (their system prompt
// asks for a <state_snapshot>), answered with a summary, and for side
// calls (JSON ones such as next-speaker checks, a session title), and
// :countTokens. It keeps every request's body.

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
)

// Request is one POST the fake received.
type Request struct {
	N    int
	Kind string // turn, compress, side
	// Mark is the fake's mark when the request came (SetMark): the
	// bench's turn number.
	Mark int
	Path string
	Body map[string]any
}

// Content is one entry of a request's contents: its role and its text
// parts joined (a functionResponse's output counts as text).
type Content struct {
	Role, Text string
}

// Contents are the request's contents, in order.
func (r Request) Contents() []Content {
	var out []Content
	items, _ := r.Body["contents"].([]any)
	for _, it := range items {
		m, _ := it.(map[string]any)
		if m == nil {
			continue
		}
		var texts []string
		parts, _ := m["parts"].([]any)
		for _, p := range parts {
			pm, _ := p.(map[string]any)
			if s, ok := pm["text"].(string); ok {
				texts = append(texts, s)
			}
			if fr, ok := pm["functionResponse"].(map[string]any); ok {
				b, _ := json.Marshal(fr)
				texts = append(texts, string(b))
			}
		}
		role, _ := m["role"].(string)
		out = append(out, Content{Role: role, Text: strings.Join(texts, "\n")})
	}
	return out
}

// Text is all the request's contents' text, joined.
func (r Request) Text() string {
	var b strings.Builder
	for _, c := range r.Contents() {
		b.WriteString(c.Text)
		b.WriteByte('\n')
	}
	return b.String()
}

// Reply is what the fake answers a turn's requests with: a text, or first
// a run_shell_command call (made once per Script; the request after its
// result gets the text).
type Reply struct {
	Text    string
	Command string
	// PromptTokens is the usage the reply reports (promptTokenCount, the
	// context Gemini CLI compares with its threshold); 1000 when 0. With
	// a Command, CallTokens is what the call's answer reports (PromptTokens
	// when 0): a call reporting a context over the threshold makes Gemini
	// CLI compress before the request after the tool.
	PromptTokens, CallTokens int
	// Call and Args make a queued reply (Queue) a call of another tool
	// (write_file, replace, read_file, write_todos), after Text if any.
	Call string
	Args map[string]any
}

// Fake is the server. Script sets the reply to turn requests.
type Fake struct {
	URL string // GOOGLE_GEMINI_BASE_URL: http://127.0.0.1:PORT

	mu       sync.Mutex
	reply    Reply
	called   bool
	queue    []Reply
	queued   bool
	mark     int
	extra    int
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
	f := &Fake{URL: "http://" + ln.Addr().String(), reply: Reply{Text: "OK"}}
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

// Queue sets the replies to the next turn requests, one each in order:
// a reply with a Command or a Call is a tool call (after its Text, if
// any), one without is the turn's last text. Once the queue is empty,
// turn requests get "OK" and are counted (Unscripted).
func (f *Fake) Queue(rs ...Reply) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queue = append(f.queue, rs...)
	f.queued = true
}

// Queued is how many queued replies no request has taken yet.
func (f *Fake) Queued() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.queue)
}

// Unscripted is how many turn requests came with the queue empty.
func (f *Fake) Unscripted() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.extra
}

// SetMark sets the mark recorded on the next requests.
func (f *Fake) SetMark(n int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.mark = n
}

// Requests are the POSTs so far.
func (f *Fake) Requests() []Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Request(nil), f.requests...)
}

// Turns are the turn requests (streamGenerateContent) so far.
func (f *Fake) Turns() []Request {
	var out []Request
	for _, r := range f.Requests() {
		if r.Kind == "turn" {
			out = append(out, r)
		}
	}
	return out
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
	if r.Method != http.MethodPost {
		writeJSON(w, map[string]any{})
		return
	}
	raw, err := io.ReadAll(r.Body)
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
	if strings.Contains(r.URL.Path, ":countTokens") {
		writeJSON(w, map[string]any{"totalTokens": 100})
		return
	}
	req := Request{Path: r.URL.Path, Body: body}
	gc, _ := body["generationConfig"].(map[string]any)
	sys, _ := json.Marshal(body["systemInstruction"])
	contents := req.Contents()
	last := ""
	if len(contents) > 0 {
		last = contents[len(contents)-1].Text
	}
	stream := strings.Contains(r.URL.Path, ":streamGenerateContent")
	switch {
	case gc["responseMimeType"] == "application/json" || gc["responseSchema"] != nil || gc["responseJsonSchema"] != nil:
		req.Kind = "side"
	case strings.Contains(string(sys), "state_snapshot") || strings.Contains(last, "state_snapshot"):
		req.Kind = "compress"
	case stream:
		req.Kind = "turn"
	default:
		req.Kind = "side"
	}

	f.mu.Lock()
	req.N = len(f.requests) + 1
	req.Mark = f.mark
	f.requests = append(f.requests, req)
	reply := f.reply
	var call bool
	if f.queued {
		if req.Kind == "turn" {
			if len(f.queue) == 0 {
				reply = Reply{Text: "OK"}
				f.extra++
			} else {
				reply, f.queue = f.queue[0], f.queue[1:]
			}
			call = reply.Command != "" || reply.Call != ""
			if call && reply.CallTokens == 0 {
				reply.CallTokens = reply.PromptTokens
			}
		}
	} else {
		afterResult := lastHasResult(body)
		call = req.Kind == "turn" && reply.Command != "" && !f.called && !afterResult
		if call {
			f.called = true
		}
	}
	f.mu.Unlock()

	pt := reply.PromptTokens
	var part map[string]any
	switch {
	case req.Kind == "side":
		b, _ := json.Marshal(map[string]any{"reasoning": "fake", "next_speaker": "user", "model_choice": "flash",
			"complexity_reasoning": "fake", "complexity_score": 10})
		part, pt = map[string]any{"text": string(b)}, 100
	case req.Kind == "compress":
		part = map[string]any{"text": fmt.Sprintf("<state_snapshot>SUMMARY-%d: the user asked things.</state_snapshot>", req.N)}
		pt = 900
	case call:
		name, args := reply.Call, reply.Args
		if reply.Command != "" {
			name, args = "run_shell_command", map[string]any{"command": reply.Command, "description": "run it"}
		}
		part = map[string]any{"functionCall": map[string]any{"name": name, "args": args}}
		if reply.CallTokens > 0 {
			pt = reply.CallTokens
		}
	default:
		part = map[string]any{"text": reply.Text}
	}
	parts := []any{part}
	if call && f.isQueued() && reply.Text != "" {
		parts = []any{map[string]any{"text": reply.Text}, part}
	}
	if pt == 0 {
		pt = 1000
	}
	resp := map[string]any{
		"candidates": []any{map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}},
		"usageMetadata": map[string]any{"promptTokenCount": pt, "candidatesTokenCount": 20, "totalTokenCount": pt + 20,
			"cachedContentTokenCount": 0},
		"modelVersion": "gemini-2.5-pro", "responseId": fmt.Sprintf("r%d", req.N),
	}
	if !stream {
		writeJSON(w, resp)
		return
	}
	b, _ := json.Marshal(resp)
	w.Header().Set("content-type", "text/event-stream")
	w.Header().Set("connection", "close")
	fmt.Fprintf(w, "data: %s\r\n\r\n", b)
}

func (f *Fake) isQueued() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.queued
}

// lastHasResult says the last content carries a functionResponse: the
// request after a tool ran.
func lastHasResult(body map[string]any) bool {
	items, _ := body["contents"].([]any)
	if len(items) == 0 {
		return false
	}
	m, _ := items[len(items)-1].(map[string]any)
	parts, _ := m["parts"].([]any)
	for _, p := range parts {
		if pm, ok := p.(map[string]any); ok && pm["functionResponse"] != nil {
			return true
		}
	}
	return false
}

func writeJSON(w http.ResponseWriter, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("content-type", "application/json")
	w.Write(b)
}
