package gemini

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDecodePayloadReal: every payload Gemini CLI 0.61.0 sent decodes to
// what encoding/json reads of the same fields.
func TestDecodePayloadReal(t *testing.T) {
	files, _ := filepath.Glob("testdata/payloads/*.json")
	if len(files) == 0 {
		t.Fatal("no payloads in testdata/payloads")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			got, err := DecodePayload(data)
			if err != nil {
				t.Fatal(err)
			}
			var want Payload
			if err := json.Unmarshal(data, &want); err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("DecodePayload = %+v\nencoding/json = %+v", got, want)
			}
			if got.SessionID == "" || got.TranscriptPath == "" || got.Event == "" {
				t.Errorf("common fields missing: %+v", got)
			}
		})
	}
}

func TestDecodePayloadHead(t *testing.T) {
	data, err := os.ReadFile("testdata/payloads/016-AfterTool.json")
	if err != nil {
		t.Fatal(err)
	}
	// Cut inside tool_response: the fields before it are enough.
	cut := data[:strings.Index(string(data), `"tool_response"`)+20]
	p, ok := DecodePayloadHead(cut, "AfterTool")
	if !ok || p.SessionID == "" || p.TranscriptPath == "" || p.CWD == "" || p.Event != "AfterTool" {
		t.Errorf("DecodePayloadHead = %+v, %v", p, ok)
	}
	if _, ok := DecodePayloadHead(cut, "BeforeAgent"); ok {
		t.Error("DecodePayloadHead read a BeforeAgent head")
	}
	if _, err := DecodePayload([]byte(`["not an object"]`)); err == nil {
		t.Error("DecodePayload took an array")
	}
	if _, err := DecodePayload([]byte(`{"session_id":`)); err == nil {
		t.Error("DecodePayload took a cut payload")
	}
}

func TestAdditionalContext(t *testing.T) {
	tests := []struct{ event, text, want string }{
		{"BeforeAgent", "restore", `{"hookSpecificOutput":{"additionalContext":"restore","hookEventName":"BeforeAgent"}}` + "\n"},
		{"AfterTool", "a", `{"hookSpecificOutput":{"additionalContext":"a","hookEventName":"AfterTool"}}` + "\n"},
		{"BeforeAgent", "", ""},
		{"SessionStart", "pointer", ""}, // --resume would drop the prompt with it
		{"PreCompress", "steer", ""},    // shown to the user only
		{"SessionEnd", "x", ""},
	}
	for _, tt := range tests {
		t.Run(tt.event, func(t *testing.T) {
			if got := AdditionalContext(tt.event, tt.text); got != tt.want {
				t.Errorf("AdditionalContext(%q, %q) = %q, want %q", tt.event, tt.text, got, tt.want)
			}
		})
	}
}

func TestThreshold(t *testing.T) {
	tests := []struct {
		name, doc string
		want      float64
		ok        bool
	}{
		{"set", `{"model":{"compressionThreshold":0.075}}`, 0.075, true},
		{"unset", `{"model":{"name":"gemini-2.5-pro"}}`, 0, false},
		{"comments", "{\n // the threshold\n \"model\": { /* low */ \"compressionThreshold\": 0.2 }\n}", 0.2, true},
		{"slashes in a string", `{"a":"http://x/*y*/","model":{"compressionThreshold":0.3}}`, 0.3, true},
		{"escaped quote in a string", `{"a":"\"//","model":{"compressionThreshold":0.4}}`, 0.4, true},
		{"over one", `{"model":{"compressionThreshold":1.5}}`, 0, false},
		{"zero", `{"model":{"compressionThreshold":0}}`, 0, false},
		{"not a number", `{"model":{"compressionThreshold":"0.5"}}`, 0, false},
		{"not JSON", `{"model":`, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Threshold([]byte(tt.doc))
			if got != tt.want || ok != tt.ok {
				t.Errorf("Threshold = %v, %v; want %v, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestStripCommentsKeepsPositions(t *testing.T) {
	doc := "{\r\n// a\r\n\"k\": 1 /* b\nc */}\n"
	got := string(StripComments([]byte(doc)))
	want := "{\r\n    \r\n\"k\": 1     \n    }\n"
	if got != want {
		t.Errorf("StripComments = %q, want %q", got, want)
	}
}

// TestRules: the project's settings.json overrides the user's, under
// $GEMINI_CLI_HOME/.gemini.
func TestRules(t *testing.T) {
	dir := t.TempDir()
	home, project := filepath.Join(dir, "home"), filepath.Join(dir, "proj")
	os.MkdirAll(filepath.Join(home, ".gemini"), 0o755)
	os.MkdirAll(filepath.Join(project, ".gemini"), 0o755)
	getenv := func(k string) string {
		if k == "GEMINI_CLI_HOME" {
			return home
		}
		return ""
	}
	os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(`{"model":{"compressionThreshold":0.2}}`), 0o600)
	if r := Rules(getenv, project, 0); r.Threshold != 0.2 {
		t.Errorf("user's threshold: %+v", r)
	}
	os.WriteFile(ProjectSettings(project), []byte("// mine\n{\"model\":{\"compressionThreshold\":0.075}}"), 0o600)
	r := Rules(getenv, project, 5000)
	if r.Threshold != 0.075 || r.Window != 5000 {
		t.Errorf("project's threshold: %+v", r)
	}
	if got := r.CompactAt(1_048_576); got != 78_644 {
		t.Errorf("CompactAt = %d, want 78,644", got)
	}
	if h, _ := Home(func(k string) string {
		if k == "HOME" {
			return "/h"
		}
		return ""
	}); h != "/h/.gemini" {
		t.Errorf("Home = %q", h)
	}
}

func TestEvents(t *testing.T) {
	for _, e := range Events {
		if ms := e.Budget.Milliseconds(); int64(TimeoutMillis(e)) < 2*ms {
			t.Errorf("%s: timeout %d ms is not twice the %v budget", e.Name, TimeoutMillis(e), e.Budget)
		}
	}
	if _, ok := Events.Lookup("SessionStart"); ok {
		t.Error("SessionStart is handled")
	}
}
