package transcript

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"testing"
	"unicode/utf8"
)

// seedLines adds each line of the samples (short enough to mutate well)
// to the corpus.
func seedLines(f *testing.F, paths ...string) {
	for _, path := range paths {
		file, err := os.Open(path)
		if err != nil {
			f.Fatal(err)
		}
		sc := bufio.NewScanner(file)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			if len(sc.Bytes()) < 8192 {
				f.Add(append([]byte(nil), sc.Bytes()...))
			}
		}
		file.Close()
	}
}

// fuzzDecoder: no line panics the client's decoder, a line that is a
// valid JSON object in UTF-8 is never called bad, the state serialises, and what a
// decoder carries between lines survives the JSON round trip a new
// process makes (feeding a line twice in one process or across two gives
// the same state).
func fuzzDecoder(t *testing.T, client string, line []byte) {
	var p Parser
	one := NewFor("fuzz", client)
	p.Feed(one, line, 1, 0)
	object := json.Valid(line) && bytes.HasPrefix(bytes.TrimSpace(line), []byte("{"))
	if object && utf8.Valid(line) && one.BadCount != 0 {
		t.Fatalf("valid line called bad: %+v", one.BadLines)
	}
	data, err := json.Marshal(one)
	if err != nil {
		t.Fatalf("state does not serialise: %v", err)
	}
	p.Feed(one, line, 2, int64(len(line)))

	two := new(Session)
	if err := json.Unmarshal(data, two); err != nil {
		t.Fatal(err)
	}
	var q Parser
	q.Feed(two, line, 2, int64(len(line)))
	a, _ := json.Marshal(one)
	b, _ := json.Marshal(two)
	if string(a) != string(b) {
		t.Fatalf("state differs across a save:\n%s\n%s", a, b)
	}
}

func FuzzCodexFeed(f *testing.F) {
	seedLines(f, codexAuto, codexTools)
	f.Add([]byte(`{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"total_tokens":5},"last_token_usage":{"input_tokens":0,"total_tokens":99999999999999999999}}}}`))
	f.Add([]byte(`{"type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\"]}","call_id":"c"}}`))
	f.Add([]byte(`{"type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":[{"type":"input_text","text":"Exit code: -"}]}}`))
	f.Add([]byte(`{"payload":{"type":"compacted"},"type":"compacted"}`))
	f.Fuzz(func(t *testing.T, line []byte) { fuzzDecoder(t, Codex, line) })
}

func FuzzGeminiFeed(f *testing.F) {
	seedLines(f, geminiComp, geminiTools)
	f.Add([]byte(`{"$set":{"messages":[{"type":"user","content":"<state_snapshot>"}]}}`))
	f.Add([]byte(`{"id":"a","type":"gemini","toolCalls":[{"id":"t","name":"run_shell_command","args":"x","status":"success","result":[{"functionResponse":{"response":{"output":"Output: \\nExit Code: 9999999999999999999999"}}}]}]}`))
	f.Add([]byte(`{"id":"u","type":"user","content":[{"text":"<hook_context>"}],"displayContent":"x"}`))
	f.Fuzz(func(t *testing.T, line []byte) { fuzzDecoder(t, Gemini, line) })
}
