package statusline

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cairn-agent/cairn/internal/jsonscan/jsonscantest"
)

func TestDecodePayload(t *testing.T) {
	tests := []struct {
		name string
		data string
		want Payload
		bad  bool
	}{
		{name: "after a reply (Claude Code 2.1.328)", data: "@statusline-after-reply.json", want: Payload{
			SessionID: "b7c4de97-7eb5-4fb8-b0f6-8f4063e14d73", TranscriptPath: "/home/user/.claude/projects/-home-user-proj/b7c4de97-7eb5-4fb8-b0f6-8f4063e14d73.jsonl",
			CWD: "/home/user/proj", ProjectDir: "/home/user/proj", Model: "claude-opus-5-5", Window: 1000000, Tokens: 450000,
		}},
		{name: "before the first reply: current_usage null", data: "@statusline-before-first-reply.json", want: Payload{
			SessionID: "c929225f-44a2-4785-ac3e-9ca00e9fb9c2", TranscriptPath: "/home/user/.claude/projects/-home-user-proj/c929225f-44a2-4785-ac3e-9ca00e9fb9c2.jsonl",
			CWD: "/home/user/proj", ProjectDir: "/home/user/proj", Model: "claude-opus-5-5", Window: 1000000,
		}},
		{name: "usage sums input and both caches", data: `{"context_window":{"current_usage":{"input_tokens":10,"output_tokens":999,"cache_creation_input_tokens":200,"cache_read_input_tokens":3000}}}`, want: Payload{Tokens: 3210}},
		{name: "the last duplicate wins whole", data: `{"model":{"id":"a"},"model":{},"context_window":{"current_usage":{"input_tokens":5,"input_tokens":7}}}`, want: Payload{Tokens: 7}},
		{name: "wrong types are missing", data: `{"session_id":7,"model":"claude","workspace":[],"context_window":{"context_window_size":"big","current_usage":{"input_tokens":-5,"cache_read_input_tokens":1.5e3}}}`, want: Payload{Tokens: 1500}},
		{name: "context_window null", data: `{"context_window":null,"cwd":"/p"}`, want: Payload{CWD: "/p"}},
		{name: "empty object", data: `{}`},
		{name: "escapes", data: `{"cwd":"/home/caf\u00e9/\"q\""}`, want: Payload{CWD: `/home/café/"q"`}},
		{name: "empty input", data: "", bad: true},
		{name: "not JSON", data: "hello", bad: true},
		{name: "an array", data: `[{"cwd":"/p"}]`, bad: true},
		{name: "cut short", data: `{"cwd":"/p","context_window":{"current_usage":{"input_tokens":`, bad: true},
		{name: "trailing garbage", data: `{"cwd":"/p"} x`, bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte(tt.data)
			if len(tt.data) > 0 && tt.data[0] == '@' {
				var err error
				if data, err = os.ReadFile(filepath.Join("testdata", tt.data[1:])); err != nil {
					t.Fatal(err)
				}
			}
			got, err := DecodePayload(data)
			if (err != nil) != tt.bad {
				t.Fatalf("error %v, want an error: %v", err, tt.bad)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzDecodePayload holds the walk to encoding/json both ways: it accepts
// exactly the objects encoding/json accepts, once the string contents
// jsonscan lets pass are made strict (jsonscantest.Strict: the only
// leniency), and decodes the same fields: the last of duplicate keys,
// numbers cut to whole ones, invalid UTF-8 substituted as encoding/json
// does.
func FuzzDecodePayload(f *testing.F) {
	for _, name := range []string{"statusline-after-reply.json", "statusline-before-first-reply.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"model":{"id":"a"},"model":{},"context_window":{"current_usage":{"input_tokens":5,"input_tokens":7}}}`))
	f.Add([]byte(`{"cwd":"a\tb","\u0063wd":"\u00e9\xff","context_window":{"context_window_size":01}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := DecodePayload(data)
		strict := jsonscantest.Strict(data)
		object := json.Valid(strict) && bytes.TrimLeft(strict, " \t\r\n")[0] == '{'
		if (err == nil) != object {
			t.Fatalf("DecodePayload error %v, but a valid JSON object: %v (made strict: %q)", err, object, strict)
		}
		var raw map[string]json.RawMessage
		if err != nil || !bytes.Equal(strict, data) || json.Unmarshal(data, &raw) != nil {
			return
		}
		str := func(m map[string]json.RawMessage, k string) string {
			var v string
			json.Unmarshal(m[k], &v)
			return v
		}
		obj := func(m map[string]json.RawMessage, k string) map[string]json.RawMessage {
			var v map[string]json.RawMessage
			json.Unmarshal(m[k], &v)
			return v
		}
		num := func(m map[string]json.RawMessage, k string) int64 {
			d := json.NewDecoder(bytes.NewReader(m[k]))
			d.UseNumber()
			var n json.Number
			if d.Decode(&n) != nil {
				return 0
			}
			if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
				return max(0, i)
			}
			fl, err := strconv.ParseFloat(string(n), 64)
			if err != nil {
				return 0
			}
			return max(0, int64(fl))
		}
		cw := obj(raw, "context_window")
		use := obj(cw, "current_usage")
		want := Payload{
			SessionID: str(raw, "session_id"), TranscriptPath: str(raw, "transcript_path"), CWD: str(raw, "cwd"),
			ProjectDir: str(obj(raw, "workspace"), "project_dir"), Model: str(obj(raw, "model"), "id"),
			Window: num(cw, "context_window_size"),
			Tokens: num(use, "input_tokens") + num(use, "cache_creation_input_tokens") + num(use, "cache_read_input_tokens"),
		}
		for _, s := range []*string{&got.SessionID, &got.TranscriptPath, &got.CWD, &got.ProjectDir, &got.Model} {
			*s = string([]rune(*s)) // U+FFFD for each invalid byte, as encoding/json
		}
		if got != want {
			t.Fatalf("got %+v, want %+v", got, want)
		}
	})
}
