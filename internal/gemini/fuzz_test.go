package gemini

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"unicode/utf8"
)

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
	f.Add([]byte(`{"session_id":"s","transcript_path":"/t","cwd":"/p","hook_event_name":"AfterTool","tool_response":{"llmContent":"x`))
	f.Add([]byte(`{"prompt":1,"source":null,"trigger":"auto","trigger":"manual"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := DecodePayload(data)
		DecodePayloadHead(data, "AfterTool")
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

// FuzzStripComments: the result is as long as the input, keeps its line
// breaks where they were, and a document with no comment comes back as
// it was; what JSON it holds after stripping parses as it does in
// strip-json-comments: the comment bytes become spaces.
func FuzzStripComments(f *testing.F) {
	f.Add([]byte("{\n // c\n \"a\": \"//x\", /* y */ \"b\": 1}"))
	f.Add([]byte(`{"a":"\"/*"}`))
	f.Add([]byte("/* open"))
	f.Fuzz(func(t *testing.T, doc []byte) {
		out := StripComments(doc)
		if len(out) != len(doc) {
			t.Fatalf("length %d, want %d", len(out), len(doc))
		}
		for i := range doc {
			if (doc[i] == '\n') != (out[i] == '\n') {
				t.Fatalf("line break moved at %d: %q → %q", i, doc, out)
			}
			if out[i] != doc[i] && out[i] != ' ' {
				t.Fatalf("byte %d became %q, not a space", i, out[i])
			}
		}
		if !bytes.Contains(doc, []byte("/")) && !bytes.Equal(out, doc) {
			t.Fatalf("a document with no slash changed: %q → %q", doc, out)
		}
		if json.Valid(doc) && !bytes.Equal(out, doc) && !json.Valid(out) {
			t.Fatalf("valid JSON %q became invalid %q", doc, out)
		}
	})
}
