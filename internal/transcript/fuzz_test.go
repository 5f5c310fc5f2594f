package transcript

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cairn-agent/cairn/internal/fixtures"
)

// FuzzFeed: no input panics the line parser; a line that is a JSON object
// encoding/json accepts, in valid UTF-8, is never counted bad (the parser
// stops early on some lines, so a bad line can pass: the converse does not
// hold); and the state always serialises. FuzzWalk holds the walker itself
// to encoding/json.
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
		var obj map[string]json.RawMessage
		if json.Unmarshal(line, &obj) == nil && utf8.Valid(line) && s.BadCount > 0 {
			t.Fatalf("valid line %q counted bad: %+v", line, s.BadLines)
		}
		if _, err := json.Marshal(s); err != nil {
			t.Fatalf("state does not serialise: %v", err)
		}
	})
}

// FuzzFormAnswers: any result text reads without a panic, and every pair
// read is text of the result's, in order.
func FuzzFormAnswers(f *testing.F) {
	f.Add(`User has answered your questions: "Which rig?"="No rig", "Tools?"="Credo". You can now continue.`)
	f.Add(`User has answered your questions: "a"="b`)
	f.Add(`User has answered your questions: ""=""`)
	f.Fuzz(func(t *testing.T, res string) {
		rest := res
		for _, qa := range formAnswers(res) {
			for _, s := range qa {
				i := strings.Index(rest, s)
				if i < 0 {
					t.Fatalf("%q not in what is left of %q", s, res)
				}
				rest = rest[i+len(s):]
			}
		}
	})
}
