package codex

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cairn-agent/cairn/internal/meter"
)

// TestDecodePayloadReal: every payload Codex 0.169.0 sent decodes to what
// encoding/json reads of the same fields.
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
	data, err := os.ReadFile("testdata/payloads/036-PostToolUse.json")
	if err != nil {
		t.Fatal(err)
	}
	// Cut inside tool_response: the fields before it are enough.
	cut := data[:strings.Index(string(data), `"tool_response"`)+20]
	p, ok := DecodePayloadHead(cut, "PostToolUse")
	if !ok || p.SessionID == "" || p.TranscriptPath == "" || p.CWD == "" || p.Event != "PostToolUse" {
		t.Errorf("DecodePayloadHead = %+v, %v", p, ok)
	}
	if _, ok := DecodePayloadHead(cut, "SessionStart"); ok {
		t.Error("DecodePayloadHead read a SessionStart head")
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
		{"SessionStart", "restore", `{"hookSpecificOutput":{"additionalContext":"restore","hookEventName":"SessionStart"}}` + "\n"},
		{"UserPromptSubmit", "a", `{"hookSpecificOutput":{"additionalContext":"a","hookEventName":"UserPromptSubmit"}}` + "\n"},
		{"PostToolUse", "b", `{"hookSpecificOutput":{"additionalContext":"b","hookEventName":"PostToolUse"}}` + "\n"},
		{"SessionStart", "", ""},
		{"PreCompact", "steer", ""}, // Codex shows the model nothing of it
		{"PostCompact", "x", ""},
	}
	for _, tt := range tests {
		t.Run(tt.event, func(t *testing.T) {
			if got := AdditionalContext(tt.event, tt.text); got != tt.want {
				t.Errorf("AdditionalContext(%q, %q) = %q, want %q", tt.event, tt.text, got, tt.want)
			}
		})
	}
}

func TestEvents(t *testing.T) {
	for _, e := range Events {
		if e.Timeout*1000 < 2*int(e.Budget.Milliseconds()) {
			t.Errorf("%s: timeout %d s is less than twice the budget %v", e.Name, e.Timeout, e.Budget)
		}
	}
	if ev, _ := Events.Lookup("SessionEnd"); ev.Timeout > 3 {
		t.Errorf("SessionEnd timeout %d: Codex clamps it to 3 s", ev.Timeout)
	}
	if _, ok := Events.Lookup("Stop"); ok {
		t.Error("Stop is handled: Codex rejects cairn's answer to it")
	}
}

func TestTopLevelInt(t *testing.T) {
	tests := []struct {
		name, doc string
		want      int64
		ok        bool
	}{
		{"plain", "model_auto_compact_token_limit = 50000\n", 50000, true},
		{"underscores", "model_auto_compact_token_limit = 50_000 # low\n", 50000, true},
		{"quoted key", `"model_auto_compact_token_limit" = 7` + "\n", 7, true},
		{"in a table", "[profiles.x]\nmodel_auto_compact_token_limit = 5\n", 0, false},
		{"before a table", "model_auto_compact_token_limit = 9\n[a]\nmodel_auto_compact_token_limit = 5\n", 9, true},
		{"a string", `model_auto_compact_token_limit = "9"` + "\n", 0, false},
		{"bad underscore", "model_auto_compact_token_limit = 5__0\n", 0, false},
		{"other key", "model_context_window = 200000\n", 0, false},
		{"prefix key", "model_auto_compact_token_limit_x = 3\n", 0, false},
		{"negative", "model_auto_compact_token_limit = -3\n", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := TopLevelInt([]byte(tt.doc), "model_auto_compact_token_limit")
			if got != tt.want || ok != tt.ok {
				t.Errorf("TopLevelInt = %d, %v; want %d, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func FuzzTopLevelInt(f *testing.F) {
	f.Add([]byte("model_context_window = 200_000\n[x]\n"))
	f.Fuzz(func(t *testing.T, doc []byte) {
		if n, ok := TopLevelInt(doc, "model_context_window"); ok && n <= 0 {
			t.Errorf("TopLevelInt = %d, true", n)
		}
	})
}

func TestRules(t *testing.T) {
	home, project := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(home, "config.toml"), []byte("model_context_window = 200000\nmodel_auto_compact_token_limit = 50000\n[model_providers.fake]\nname = \"fake\"\n"), 0o600)
	env := func(k string) string {
		if k == "CODEX_HOME" {
			return home
		}
		return ""
	}
	got := Rules(env, project, 0)
	want := meter.CodexRules{ConfigWindow: 200000, AutoCompactLimit: 50000}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Rules = %+v, want %+v", got, want)
	}
	// The project's layer overrides the home's.
	os.MkdirAll(filepath.Join(project, ".codex"), 0o700)
	os.WriteFile(filepath.Join(project, ".codex", "config.toml"), []byte("model_auto_compact_token_limit = 30000\n"), 0o600)
	if got := Rules(env, project, 123); got.AutoCompactLimit != 30000 || got.ConfigWindow != 200000 || got.Window != 123 {
		t.Errorf("Rules with the project's layer = %+v", got)
	}
	if got := Rules(func(string) string { return "" }, "", 0); got != (meter.CodexRules{}) {
		t.Errorf("Rules with no home = %+v", got)
	}
}

// FuzzDecodePayload: DecodePayload never panics, and on plain valid JSON
// objects it reads what encoding/json reads of the same string fields
// (fields of other types are as good as missing).
func FuzzDecodePayload(f *testing.F) {
	files, _ := filepath.Glob("testdata/payloads/*.json")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"session_id":"s","transcript_path":"/t","cwd":"/p","hook_event_name":"PostToolUse","tool_response":"x`))
	f.Add([]byte(`{"prompt":1,"source":null,"model":"m","model":"n"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := DecodePayload(data)
		DecodePayloadHead(data, "PostToolUse")
		if !json.Valid(data) || !utf8.Valid(data) || bytes.Contains(data, []byte(`\u`)) {
			return
		}
		var m map[string]any
		if json.Unmarshal(data, &m) != nil {
			if err == nil {
				t.Fatalf("DecodePayload took %q, which is no JSON object", data)
			}
			return
		}
		if err != nil {
			t.Fatalf("DecodePayload(%q): %v", data, err)
		}
		var want Payload
		rv := reflect.ValueOf(&want).Elem()
		for i := range rv.NumField() {
			if s, ok := m[rv.Type().Field(i).Tag.Get("json")].(string); ok {
				rv.Field(i).SetString(s)
			}
		}
		if got != want {
			t.Fatalf("DecodePayload(%q) = %+v, want %+v", data, got, want)
		}
	})
}
