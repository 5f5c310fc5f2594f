package transcript

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"

	"github.com/cairn-agent/cairn/internal/jsonscan"

	"github.com/cairn-agent/cairn/internal/fixtures"
)

// FuzzFeed: no input panics the line parser, and the JSON walker never
// rejects a line that encoding/json accepts.
func FuzzFeed(f *testing.F) {
	for _, name := range append([]string{fixtures.Compactions[0].Session}, fixtures.Small...) {
		file, err := os.Open(fixturePath(f, name))
		if err != nil {
			f.Fatal(err)
		}
		sc := bufio.NewScanner(file)
		sc.Buffer(nil, 16<<20)
		n := 0
		for sc.Scan() && n < 200 {
			if len(sc.Bytes()) < 4096 {
				f.Add(append([]byte(nil), sc.Bytes()...))
				n++
			}
		}
		file.Close()
	}
	f.Add([]byte(`{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"auto","preTokens":1e3,"postTokens":-1}}`))
	f.Add([]byte(`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"x","is_error":true,"content":[{"type":"text","text":"Exit code 99999999999999999999"}]}]}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		s := New("fuzz")
		var p Parser
		p.Feed(s, line, 1, 0)
		p.Feed(s, line, 2, int64(len(line)))
		if json.Valid(line) {
			var sc jsonscan.Scanner
			sc.Reset(line)
			sc.Skip()
			sc.End()
			if sc.Failed() {
				t.Fatalf("walker rejects valid JSON %q", line)
			}
		}
		if _, err := json.Marshal(s); err != nil {
			t.Fatalf("state does not serialise: %v", err)
		}
	})
}
