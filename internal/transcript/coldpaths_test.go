package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-agent/cairn/internal/fixtures"
)

// oddLines are lines a cold read must count, skip or read as the line by
// line read does, put between repeats of a real transcript: a line that
// is not JSON, one in invalid UTF-8 (in what is walked, and past it on a
// skipped line), replies without message.id (split over two lines with
// the same usage, then another), skipped lines whose shared members
// differ from the lines around them (the memo's misses), one cut after
// its type, a sidechain reply, and a compaction whose summary is given
// in blocks, with isCompactSummary after the message (a head read decodes
// the blocks it deferred).
var oddLines = []string{
	`{not json`,
	``,
	`{"parentUuid":"x","isSidechain":false,"type":"user","timestamp":"2030-01-01T00:00:00Z","message":{"role":"user","content":"bad ` + "\xff" + `"}}`,
	`{"parentUuid":"x","isSidechain":false,"type":"progress","data":"` + "\xff" + `"}`,
	`{"parentUuid":"x","isSidechain":false,"cwd":"/elsewhere","type":"progress","data":{}}`,
	`{"parentUuid":"x","isSidechain":false,"cwd":"/elsewhere","type":"progress",`,
	`{"parentUuid":"x","isSidechain":false,"type":"assistant","timestamp":"2030-01-01T00:00:01Z","message":{"model":"claude-opus-4-6","role":"assistant","content":[{"type":"text","text":"no id"}],"usage":{"input_tokens":5,"cache_read_input_tokens":1000,"output_tokens":7}}}`,
	`{"parentUuid":"x","isSidechain":false,"type":"assistant","timestamp":"2030-01-01T00:00:01Z","message":{"model":"claude-opus-4-6","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}],"usage":{"input_tokens":5,"cache_read_input_tokens":1000,"output_tokens":7}}}`,
	`{"parentUuid":"x","isSidechain":false,"type":"assistant","timestamp":"2030-01-01T00:00:02Z","message":{"model":"claude-opus-4-6","role":"assistant","content":[{"type":"text","text":"no id again"}],"usage":{"input_tokens":5,"cache_read_input_tokens":2000,"output_tokens":9}}}`,
	`{"parentUuid":"x","isSidechain":true,"type":"assistant","timestamp":"2030-01-01T00:00:03Z","message":{"id":"side","model":"claude-opus-4-6","role":"assistant","content":[],"usage":{"input_tokens":1}}}`,
	`{"parentUuid":"x","isSidechain":false,"type":"system","subtype":"compact_boundary","timestamp":"2030-01-01T00:00:04Z","compactMetadata":{"trigger":"manual","preTokens":90000}}`,
	`{"parentUuid":"x","isSidechain":false,"type":"user","timestamp":"2030-01-01T00:00:05Z","message":{"role":"user","content":[{"type":"text","text":"This session is being continued from a previous conversation. Summary in blocks, \"quoted\"."},{"type":"text","text":"More of it."}]},"isCompactSummary":true}`,
}

// oddTranscript writes the fixture name repeated past the size from which
// cold reads are parallel, with oddLines after each repeat, and ending
// with a half-written line.
func oddTranscript(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(fixturePath(t, name))
	if err != nil {
		t.Fatal(err)
	}
	odd := []byte(fmt.Sprintln(bytes.Join(func() [][]byte {
		var b [][]byte
		for _, l := range oddLines {
			b = append(b, []byte(l))
		}
		return b
	}(), []byte("\n"))))
	var buf bytes.Buffer
	for buf.Len() < parallelMin+(1<<20) {
		buf.Write(data)
		buf.Write(odd)
	}
	buf.WriteString(`{"parentUuid":"x","type":"assistant","message":{"id":"half`)
	path := filepath.Join(t.TempDir(), name+".jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// Every way a large transcript is read cold (pread line by line; mapped,
// on one goroutine and in parallel, which is what the machine chooses
// between) derives the same session, for a full read and for the head, on each real
// transcript with oddLines among its repeats: the line by line read is
// the reference the others are held to (TestHeadOnlyEqualsFull* in
// internal/state then hold the head read to the full one).
func TestColdReadsEqualLineByLine(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 33 MB transcripts")
	}
	names := append([]string(nil), fixtures.Small...)
	for _, c := range fixtures.Compactions {
		names = append(names, c.Session)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			path := oddTranscript(t, name)
			for _, head := range []bool{false, true} {
				ref := New(path)
				ref.Client = ClaudeCode
				f, err := os.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := ref.read(f, &Parser{Head: head}); err != nil {
					t.Fatal(err)
				}
				f.Close()
				ref.cleanTexts()
				if ref.BadCount == 0 || ref.NumTurns() == 0 {
					t.Fatalf("the reference read found %d bad lines and %d turns", ref.BadCount, ref.NumTurns())
				}
				want, _ := json.Marshal(ref)
				// The head without the latest texts (a cold `cairn
				// status`) is the head but for them.
				texts := ref.LastTexts
				ref.LastTexts = nil
				wantBare, _ := json.Marshal(ref)
				ref.LastTexts = texts
				for _, workers := range []int{1, 2} {
					for _, noTexts := range []bool{false, true} {
						if noTexts && !head {
							continue // a full read keeps the texts
						}
						s := New(path)
						p := Parser{Head: head, NoTexts: noTexts}
						p.claude.workers = workers
						if _, err := s.Update(&p); err != nil {
							t.Fatal(err)
						}
						want := want
						if noTexts {
							if len(texts) == 0 {
								t.Fatal("the head read kept no texts: NoTexts is not tested")
							}
							want = wantBare
						}
						if got, _ := json.Marshal(s); !bytes.Equal(got, want) {
							t.Errorf("head=%v noTexts=%v workers=%d: the cold read differs from the line by line read (%d against %d bytes of state; offset %d/%d, bad %d/%d, turns %d/%d)",
								head, noTexts, workers, len(got), len(want), s.Offset, ref.Offset, s.BadCount, ref.BadCount, s.NumTurns(), ref.NumTurns())
						}
					}
				}
			}
		})
	}
}
