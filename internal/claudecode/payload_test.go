package claudecode

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cairn-agent/cairn/internal/jsonscan/jsonscantest"
)

func mustJSON(v any) []byte { b, _ := json.Marshal(v); return b }

// realPayloads are the hook payloads Claude Code 2.1.328 sent, one per
// event it fires (shared/claude-code/payloads-2.1.328; the status line's
// are internal/statusline's).
func realPayloads(t testing.TB) []string {
	files, _ := filepath.Glob(filepath.Join("testdata", "payloads-2.1.328", "[0-9][0-9]-*.json"))
	if len(files) == 0 {
		t.Fatal("no payloads in testdata/payloads-2.1.328")
	}
	return files
}

func TestDecodePayload(t *testing.T) {
	for _, f := range realPayloads(t) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := DecodePayload(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		want, _, err := referencePayload(t, data, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got != want || got.SessionID == "" || got.Event == "" {
			t.Errorf("%s: got %+v, encoding/json says %+v", f, got, want)
		}
		// PostToolUse's payload is read up to its fourth field; the
		// other events' whole.
		head, ok := DecodePayloadHead(data, got.Event)
		if ok != (got.Event == "PostToolUse") || ok && (head.SessionID != got.SessionID || head.CWD != got.CWD) || !ok && head != (Payload{}) {
			t.Errorf("%s: head decoded %+v, %v", f, head, ok)
		}
	}
	// Every field of Payload, so that one DecodePayload forgets fails here
	// and not only when the fuzzer happens on its key.
	all := map[string]string{}
	for name := range payloadFields(t) {
		all[name] = "value of " + name
	}
	data := mustJSON(all)
	got, err := DecodePayload(data)
	want, _, werr := referencePayload(t, data, nil)
	if err != nil || werr != nil || got != want {
		t.Errorf("every field: got %+v (%v), want %+v (%v)", got, err, want, werr)
	}
	for _, bad := range []string{"", "[]", `{"session_id": 1`, `{"a":1} x`, "null", `{"cwd":01}`} {
		if _, err := DecodePayload([]byte(bad)); err == nil {
			t.Errorf("%q decoded", bad)
		}
	}
}

// payloadFields maps each of Payload's JSON names to its field: the
// reference decodes exactly these, so a field added to Payload is held to
// encoding/json at once.
func payloadFields(t testing.TB) map[string]int {
	t.Helper()
	typ := reflect.TypeFor[Payload]()
	fields := map[string]int{}
	for i := range typ.NumField() {
		f := typ.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Type.Kind() != reflect.String || name == "" || name == "-" {
			t.Fatalf("Payload.%s: the reference decodes strings named by a json tag; teach it this field", f.Name)
		}
		fields[name] = i
	}
	return fields
}

// referencePayload decodes data with encoding/json the way decodePayload
// reads it: member by member; the fields by their exact names, as strings
// (a value of another kind clears the field), the last of duplicates;
// stopping after the member that makes enough true, if it is not nil.
func referencePayload(t testing.TB, data []byte, enough func(*Payload) bool) (p Payload, early bool, err error) {
	fields := payloadFields(t)
	v := reflect.ValueOf(&p).Elem()
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return Payload{}, false, fmt.Errorf("not an object: %v, %v", tok, err)
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return Payload{}, false, err
		}
		if tok == json.Delim('}') {
			break
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return Payload{}, false, err
		}
		if i, ok := fields[tok.(string)]; ok {
			var s string
			json.Unmarshal(raw, &s)
			v.Field(i).SetString(s)
		}
		if enough != nil && enough(&p) {
			return p, true, nil
		}
	}
	if tok, err := dec.Token(); err != io.EOF {
		return Payload{}, false, fmt.Errorf("after the object: %v, %v", tok, err)
	}
	return p, false, nil
}

// substituted is p with U+FFFD for each byte of its strings that is not
// valid UTF-8, as encoding/json decodes them (jsonscan keeps the bytes).
func substituted(p Payload) Payload {
	v := reflect.ValueOf(&p).Elem()
	for i := range v.NumField() {
		v.Field(i).SetString(string([]rune(v.Field(i).String())))
	}
	return p
}

// FuzzDecodePayload holds DecodePayload to encoding/json (referencePayload)
// both ways: it accepts exactly the objects encoding/json accepts, and
// decodes the same values. Where it is more lenient is where jsonscan is
// (string contents, see its package comment): there the input is made
// strict first (jsonscantest.Strict) and only the verdict compared. The
// PostToolUse decode that stops once it has what the event needs
// (DecodePayloadHead) stops exactly where the reference does, so only ever
// after a valid start, with the same values; when it does not stop, it is
// DecodePayload.
func FuzzDecodePayload(f *testing.F) {
	for _, file := range realPayloads(f) {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"session_id":"s","transcript_path":"/t.jsonl","hook_event_name":"PreCompact","trigger":"auto","custom_instructions":null}`))
	f.Add([]byte(`{"session_id":"s","transcript_path":"/t","cwd":"/p","hook_event_name":"PostToolUse","tool_response":{"x":[1,2` + "\x01"))
	f.Add([]byte(`{"prompt":"p","last_assistant_message":"m","reason":1,"cwd":null,"\u0063wd":"c"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		strict := jsonscantest.Strict(data)
		lenient := !bytes.Equal(strict, data)
		got, err := DecodePayload(data)
		want, _, werr := referencePayload(t, strict, nil)
		if (err == nil) != (werr == nil) {
			t.Fatalf("DecodePayload: %v; encoding/json: %v", err, werr)
		}
		if err == nil && !lenient && substituted(got) != want {
			t.Fatalf("got %+v, want %+v", got, want)
		}
		enough := enoughFor("PostToolUse")
		q, early, qerr := decodePayload(data, enough)
		wq, wearly, _ := referencePayload(t, strict, enough)
		switch {
		case early != wearly:
			t.Fatalf("stopped early: %v, encoding/json: %v (%+v)", early, wearly, wq)
		case early && (qerr != nil || !lenient && substituted(q) != wq):
			t.Fatalf("stopped early with %+v (%v), want %+v", q, qerr, wq)
		case !early && (q != got || (qerr == nil) != (err == nil)):
			t.Fatalf("did not stop: %+v (%v), DecodePayload %+v (%v)", q, qerr, got, err)
		}
		if h, ok := DecodePayloadHead(data, "PostToolUse"); ok != early || ok && h != q || !ok && h != (Payload{}) {
			t.Fatalf("DecodePayloadHead: %+v, %v; stopped early: %v", h, ok, early)
		}
		if h, ok := DecodePayloadHead(data, "Stop"); ok || h != (Payload{}) {
			t.Fatalf("a Stop payload decoded from its head: %+v", h)
		}
	})
}
