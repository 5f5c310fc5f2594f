package fakeapi

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// mainBody is a request body shaped like a Claude Code conversation turn.
func mainBody(prompt string) map[string]any {
	return map[string]any{
		"model":  "claude-opus-5-5",
		"stream": true,
		"tools":  []any{map[string]any{"name": "Bash"}},
		"messages": []any{
			map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "text", "text": "<system-reminder>context</system-reminder>"},
				map[string]any{"type": "text", "text": prompt},
			}},
		},
	}
}

// compactionBody is shaped like 2.1.328's compaction request: the same
// tools as a turn, and the instructions as the last user message.
func compactionBody() map[string]any {
	b := mainBody("hello")
	b["messages"] = append(b["messages"].([]any),
		map[string]any{"role": "assistant", "content": "ok"},
		map[string]any{"role": "user", "content": "CRITICAL: Respond with TEXT ONLY.\n- Your entire response must be plain text: an <analysis> block followed by a <summary> block.\n"},
	)
	return b
}

func post(t *testing.T, url string, body map[string]any) *http.Response {
	t.Helper()
	js, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(url, "application/json", bytes.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: status %d", url, resp.StatusCode)
	}
	return resp
}

// streamed is a Messages answer rebuilt from SSE events the way a client
// does it.
type streamed struct {
	Events     []string
	ID         string
	Usage      Usage
	Text       string
	Tools      []ToolUse
	StopReason string
}

// parseSSE reads an SSE stream strictly: every event is "event: NAME" then
// "data: JSON" then a blank line, and the data's type matches the name.
func parseSSE(t *testing.T, r io.Reader) streamed {
	t.Helper()
	var out streamed
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var inputs []strings.Builder
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		name, ok := strings.CutPrefix(line, "event: ")
		if !ok {
			t.Fatalf("want an event line, got %q", line)
		}
		if !sc.Scan() {
			t.Fatalf("event %s without data", name)
		}
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			t.Fatalf("event %s: want a data line, got %q", name, sc.Text())
		}
		if sc.Scan() && sc.Text() != "" {
			t.Fatalf("event %s: want a blank line after data, got %q", name, sc.Text())
		}
		var ev struct {
			Type    string `json:"type"`
			Index   int    `json:"index"`
			Message struct {
				ID    string `json:"id"`
				Usage Usage  `json:"usage"`
			} `json:"message"`
			ContentBlock struct {
				Type string `json:"type"`
				ID   string `json:"id"`
				Name string `json:"name"`
			} `json:"content_block"`
			Delta struct {
				Type        string `json:"type"`
				Text        string `json:"text"`
				PartialJSON string `json:"partial_json"`
				StopReason  string `json:"stop_reason"`
			} `json:"delta"`
			Usage struct {
				OutputTokens int `json:"output_tokens"`
			} `json:"usage"`
		}
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatalf("event %s: data is not JSON: %v", name, err)
		}
		if ev.Type != name {
			t.Fatalf("event %s carries type %q", name, ev.Type)
		}
		out.Events = append(out.Events, name)
		switch name {
		case "message_start":
			out.ID, out.Usage = ev.Message.ID, ev.Message.Usage
		case "content_block_start":
			if ev.ContentBlock.Type == "tool_use" {
				out.Tools = append(out.Tools, ToolUse{ID: ev.ContentBlock.ID, Name: ev.ContentBlock.Name})
				inputs = append(inputs, strings.Builder{})
			}
		case "content_block_delta":
			switch ev.Delta.Type {
			case "text_delta":
				out.Text += ev.Delta.Text
			case "input_json_delta":
				inputs[len(inputs)-1].WriteString(ev.Delta.PartialJSON)
			default:
				t.Fatalf("unknown delta type %q", ev.Delta.Type)
			}
		case "message_delta":
			out.StopReason = ev.Delta.StopReason
			if ev.Usage.OutputTokens != out.Usage.OutputTokens {
				t.Errorf("message_delta output_tokens %d, message_start said %d", ev.Usage.OutputTokens, out.Usage.OutputTokens)
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for i := range out.Tools {
		var in any
		if err := json.Unmarshal([]byte(inputs[i].String()), &in); err != nil {
			t.Fatalf("tool %d: concatenated partial_json is not JSON: %v", i, err)
		}
		out.Tools[i].Input = in
	}
	return out
}

func TestSSEFraming(t *testing.T) {
	tests := []struct {
		name       string
		reply      Reply
		wantEvents []string
		wantStop   string
	}{
		{
			name:  "text",
			reply: Reply{Text: "hello", Usage: Usage{InputTokens: 10, CacheCreationInputTokens: 20, CacheReadInputTokens: 30, OutputTokens: 4}},
			wantEvents: []string{"message_start", "content_block_start", "content_block_delta", "content_block_stop",
				"message_delta", "message_stop"},
			wantStop: "end_turn",
		},
		{
			name: "text and two tools",
			reply: Reply{Text: "working", Usage: Usage{InputTokens: 1, OutputTokens: 2}, Tools: []ToolUse{
				{ID: "toolu_a", Name: "Write", Input: map[string]any{"file_path": "/p/é.txt", "content": "ünïcode\n"}},
				{ID: "toolu_b", Name: "Bash", Input: map[string]any{"command": "echo hi"}},
			}},
			wantEvents: []string{"message_start",
				"content_block_start", "content_block_delta", "content_block_stop",
				"content_block_start", "content_block_delta", "content_block_delta", "content_block_stop",
				"content_block_start", "content_block_delta", "content_block_delta", "content_block_stop",
				"message_delta", "message_stop"},
			wantStop: "tool_use",
		},
		{
			name:  "tool only, nil input",
			reply: Reply{Tools: []ToolUse{{ID: "toolu_c", Name: "TaskList"}}},
			wantEvents: []string{"message_start",
				"content_block_start", "content_block_delta", "content_block_delta", "content_block_stop",
				"message_delta", "message_stop"},
			wantStop: "tool_use",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := WriteSSE(&buf, "msg_1", "m", tt.reply); err != nil {
				t.Fatal(err)
			}
			got := parseSSE(t, &buf)
			if diff := cmp.Diff(tt.wantEvents, got.Events); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			if got.ID != "msg_1" || got.Usage != tt.reply.Usage || got.Text != tt.reply.Text || got.StopReason != tt.wantStop {
				t.Errorf("got id %q usage %+v text %q stop %q", got.ID, got.Usage, got.Text, got.StopReason)
			}
			// Inputs round-trip through JSON, so compare them as JSON.
			var wantTools []ToolUse
			for _, tu := range tt.reply.Tools {
				js, _ := json.Marshal(tu.Input)
				if tu.Input == nil {
					js = []byte("{}")
				}
				var in any
				_ = json.Unmarshal(js, &in)
				wantTools = append(wantTools, ToolUse{ID: tu.ID, Name: tu.Name, Input: in})
			}
			if diff := cmp.Diff(wantTools, got.Tools); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}
		})
	}
}

func TestQueueOrderAndRecording(t *testing.T) {
	s := New(Options{DefaultUsage: Usage{InputTokens: 7, OutputTokens: 1}})
	defer s.Close()
	s.Enqueue(
		Reply{Text: "first", Usage: Usage{InputTokens: 100}},
		Reply{Tools: []ToolUse{{Name: "Bash", Input: map[string]any{"command": "echo hi"}}}, Usage: Usage{InputTokens: 200}},
	)
	s.Enqueue(Reply{Text: "third", Usage: Usage{CacheReadInputTokens: 300}})

	var got []streamed
	var requestIDs []string
	for i := 0; i < 4; i++ {
		resp := post(t, s.URL+"/v1/messages?beta=true", mainBody(fmt.Sprint("turn ", i)))
		requestIDs = append(requestIDs, resp.Header.Get("request-id"))
		got = append(got, parseSSE(t, resp.Body))
	}
	wantText := []string{"first", "", "third", "ok"}
	wantInput := []int{100, 200, 300, 7}
	for i, g := range got {
		if g.Text != wantText[i] || g.Usage.Context() != wantInput[i] {
			t.Errorf("answer %d: text %q context %d, want %q %d", i, g.Text, g.Usage.Context(), wantText[i], wantInput[i])
		}
	}
	if len(got[1].Tools) != 1 || !strings.HasPrefix(got[1].Tools[0].ID, "toolu_") {
		t.Errorf("tool call got no generated id: %+v", got[1].Tools)
	}
	if s.Pending() != 0 {
		t.Errorf("Pending = %d, want 0", s.Pending())
	}
	reqs := s.Requests()
	if len(reqs) != 4 {
		t.Fatalf("recorded %d requests, want 4", len(reqs))
	}
	for i, r := range reqs {
		if r.Seq != i+1 || r.Kind != Main || r.Path != "/v1/messages" || r.Query != "beta=true" || !r.Stream || r.Model != "claude-opus-5-5" {
			t.Errorf("request %d recorded as %+v", i, r)
		}
		if r.MessageID != got[i].ID || r.RequestID == "" || r.RequestID != requestIDs[i] {
			t.Errorf("request %d: recorded ids %s %s, answered %s %s", i, r.MessageID, r.RequestID, got[i].ID, requestIDs[i])
		}
		if want := fmt.Sprint("turn ", i); !strings.HasSuffix(LastUserText(r.Body), want) {
			t.Errorf("request %d: last user text %q", i, LastUserText(r.Body))
		}
	}
	un := s.Unscripted()
	if len(un) != 1 || un[0].Seq != 4 {
		t.Errorf("Unscripted = %+v, want request 4 only", un)
	}
}

func TestCompactionDoesNotConsumeQueue(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	s.Enqueue(Reply{Text: "scripted", Usage: Usage{InputTokens: 5}})
	s.SetCompaction("<analysis>a</analysis>\n<summary>custom</summary>", Usage{InputTokens: 42, OutputTokens: 3})

	c := parseSSE(t, post(t, s.URL+"/v1/messages?beta=true", compactionBody()).Body)
	if c.Text != "<analysis>a</analysis>\n<summary>custom</summary>" || c.Usage.InputTokens != 42 {
		t.Errorf("compaction answered %q usage %+v", c.Text, c.Usage)
	}
	if s.Pending() != 1 {
		t.Fatalf("compaction consumed the queue: Pending = %d", s.Pending())
	}
	m := parseSSE(t, post(t, s.URL+"/v1/messages", mainBody("after")).Body)
	if m.Text != "scripted" {
		t.Errorf("turn after compaction answered %q, want the scripted reply", m.Text)
	}
	comps := s.OfKind(Compaction)
	if len(comps) != 1 {
		t.Fatalf("OfKind(Compaction) = %d requests", len(comps))
	}
	next, ok := s.After(comps[0].Seq, Main)
	if !ok || !strings.HasSuffix(LastUserText(next.Body), "after") {
		t.Errorf("After(compaction, Main) = %+v, %v", next, ok)
	}
	if _, ok := s.After(next.Seq, Main); ok {
		t.Error("After the last request found one")
	}
}

func TestOtherRoutes(t *testing.T) {
	s := New(Options{CountTokens: 1234})
	defer s.Close()
	s.Enqueue(Reply{Text: "scripted"})

	side := mainBody("title please")
	delete(side, "tools")
	if got := parseSSE(t, post(t, s.URL+"/v1/messages", side).Body); got.Text != "ok" {
		t.Errorf("side request answered %q", got.Text)
	}

	resp := post(t, s.URL+"/v1/messages/count_tokens?beta=true", mainBody("count"))
	var ct map[string]int
	if err := json.NewDecoder(resp.Body).Decode(&ct); err != nil || ct["input_tokens"] != 1234 {
		t.Errorf("count_tokens = %v, %v", ct, err)
	}

	get, err := http.Get(s.URL + "/api/hello")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(get.Body)
	get.Body.Close()
	if get.StatusCode != 200 || strings.TrimSpace(string(b)) != "{}" {
		t.Errorf("GET answered %d %q", get.StatusCode, b)
	}

	nonStream := mainBody("plain")
	nonStream["stream"] = false
	var msg struct {
		Type       string `json:"type"`
		StopReason string `json:"stop_reason"`
		Content    []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.NewDecoder(post(t, s.URL+"/v1/messages", nonStream).Body).Decode(&msg); err != nil {
		t.Fatal(err)
	}
	if msg.Type != "message" || msg.StopReason != "end_turn" || len(msg.Content) != 1 || msg.Content[0].Text != "scripted" {
		t.Errorf("non-streaming answer %+v", msg)
	}

	var kinds []Kind
	for _, r := range s.Requests() {
		kinds = append(kinds, r.Kind)
	}
	if diff := cmp.Diff([]Kind{Side, CountTokens, Other, Main}, kinds); diff != "" {
		t.Errorf("kinds (-want +got):\n%s", diff)
	}
}

func TestClassify(t *testing.T) {
	haiku := mainBody("x")
	haiku["model"] = "claude-haiku-4-5"
	noTools := mainBody("x")
	noTools["tools"] = []any{}
	tests := []struct {
		name   string
		method string
		path   string
		body   map[string]any
		want   Kind
	}{
		{"turn", "POST", "/v1/messages", mainBody("hello"), Main},
		{"compaction", "POST", "/v1/messages", compactionBody(), Compaction},
		{"marker in an earlier message only", "POST", "/v1/messages", func() map[string]any {
			b := compactionBody()
			b["messages"] = append(b["messages"].([]any), map[string]any{"role": "user", "content": "next"})
			return b
		}(), Main},
		{"haiku helper", "POST", "/v1/messages", haiku, Side},
		{"no tools", "POST", "/v1/messages", noTools, Side},
		{"count tokens", "POST", "/v1/messages/count_tokens", mainBody("x"), CountTokens},
		{"not JSON", "POST", "/v1/messages", nil, Other},
		{"get", "GET", "/v1/messages", nil, Other},
		{"head", "HEAD", "/api/hello", nil, Other},
		{"unknown path", "POST", "/v1/other", mainBody("x"), Other},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Classify(tt.method, tt.path, tt.body); got != tt.want {
				t.Errorf("Classify = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestConcurrentRequests(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	const n = 20
	for i := 0; i < n; i++ {
		s.Enqueue(Reply{Text: fmt.Sprint(i), Usage: Usage{InputTokens: i + 1}})
	}
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			js, _ := json.Marshal(mainBody("x"))
			resp, err := http.Post(s.URL+"/v1/messages", "application/json", bytes.NewReader(js))
			if err != nil {
				t.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}()
	}
	wg.Wait()
	seen := map[int]bool{}
	for i, r := range s.Requests() {
		if r.Seq != i+1 {
			t.Errorf("request %d has Seq %d", i, r.Seq)
		}
		// Queue order follows arrival order.
		if r.Answer.Usage.InputTokens != i+1 {
			t.Errorf("request %d answered with reply %d", r.Seq, r.Answer.Usage.InputTokens)
		}
		seen[r.Answer.Usage.InputTokens] = true
	}
	if len(seen) != n || s.Pending() != 0 {
		t.Errorf("%d distinct replies, %d pending", len(seen), s.Pending())
	}
}

// withToolResult is a turn whose last user message returns a tool's result.
func withToolResult(prompt, toolUseID string) map[string]any {
	b := mainBody(prompt)
	b["messages"] = append(b["messages"].([]any),
		map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": toolUseID, "name": "Bash", "input": map[string]any{}}}},
		map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": toolUseID, "content": "done"}}},
	)
	return b
}

func TestReplyExpectations(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reply Reply
		body  map[string]any
		want  string // the recorded Mismatch
	}{
		{"no expectations", Reply{Text: "a"}, mainBody("anything"), ""},
		{"for the right conversation", Reply{For: "count the files"}, mainBody("please count the files"), ""},
		{"for another conversation", Reply{For: "count the files"}, mainBody("fix the bug"), `first user message lacks "count the files"`},
		{"answers the tool result", Reply{ToolResultFor: "toolu_1"}, withToolResult("go", "toolu_1"), ""},
		{"another tool's result", Reply{ToolResultFor: "toolu_1"}, withToolResult("go", "toolu_2"), "last user message carries no result for toolu_1"},
		{"no tool result at all", Reply{ToolResultFor: "toolu_1"}, mainBody("go"), "last user message carries no result for toolu_1"},
		{"both fail", Reply{For: "x-y-z", ToolResultFor: "toolu_1"}, mainBody("go"), `first user message lacks "x-y-z"; last user message carries no result for toolu_1`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := New(Options{})
			defer s.Close()
			tc.reply.Text = "scripted"
			s.Enqueue(tc.reply)
			// A mismatched request is still answered with its reply, so
			// the rest of the script stays in step.
			if got := parseSSE(t, post(t, s.URL+"/v1/messages", tc.body).Body); got.Text != "scripted" {
				t.Errorf("answered %q, want the scripted reply", got.Text)
			}
			reqs := s.Requests()
			if len(reqs) != 1 || reqs[0].Mismatch != tc.want {
				t.Fatalf("recorded %+v, want one request with Mismatch %q", reqs, tc.want)
			}
			if mm := s.Mismatched(); (len(mm) == 1) != (tc.want != "") {
				t.Errorf("Mismatched() = %d requests, want %v", len(mm), tc.want != "")
			}
			if tc.want != "" && !strings.Contains(s.Summary(), "MISMATCH") {
				t.Errorf("Summary does not show the mismatch:\n%s", s.Summary())
			}
		})
	}
}

func TestFirstUserText(t *testing.T) {
	b := withToolResult("the first prompt", "toolu_1")
	if got := FirstUserText(b); !strings.Contains(got, "the first prompt") {
		t.Errorf("FirstUserText = %q", got)
	}
	if got := FirstUserText(map[string]any{}); got != "" {
		t.Errorf("FirstUserText of no messages = %q", got)
	}
}
