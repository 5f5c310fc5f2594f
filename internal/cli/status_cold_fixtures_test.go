package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-agent/cairn/internal/fixtures"
	"github.com/cairn-agent/cairn/internal/state"
)

// oddStatusLines go after each repeat of a fixture in
// TestStatusColdEqualsFullOnFixtures: replies without message.id (one
// split over two lines with the same usage, then another), a line that is
// not JSON, one in invalid UTF-8, and a sidechain reply.
var oddStatusLines = []string{
	`{not json`,
	`{"parentUuid":"x","isSidechain":false,"type":"user","timestamp":"2030-01-01T00:00:00Z","message":{"role":"user","content":"bad ` + "\xff" + `"}}`,
	`{"parentUuid":"x","isSidechain":false,"type":"assistant","timestamp":"2030-01-01T00:00:01Z","message":{"model":"claude-opus-4-6","role":"assistant","content":[{"type":"text","text":"no id"}],"usage":{"input_tokens":5,"cache_read_input_tokens":1000,"output_tokens":7}}}`,
	`{"parentUuid":"x","isSidechain":false,"type":"assistant","timestamp":"2030-01-01T00:00:01Z","message":{"model":"claude-opus-4-6","role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}],"usage":{"input_tokens":5,"cache_read_input_tokens":1000,"output_tokens":7}}}`,
	`{"parentUuid":"x","isSidechain":false,"type":"assistant","timestamp":"2030-01-01T00:00:02Z","message":{"model":"claude-opus-4-6","role":"assistant","content":[{"type":"text","text":"no id again"}],"usage":{"input_tokens":5,"cache_read_input_tokens":2000,"output_tokens":9}}}`,
	`{"parentUuid":"x","isSidechain":true,"type":"assistant","timestamp":"2030-01-01T00:00:03Z","message":{"id":"side","model":"claude-opus-4-6","role":"assistant","content":[],"usage":{"input_tokens":1}}}`,
}

// A cold `cairn status` of a large transcript (the head read without the
// latest texts, state.Store.ColdHead) prints what status prints after a
// full read of it, text and JSON, on every real transcript repeated past
// the size from which it reads for the head only, with oddStatusLines
// after each repeat, then half the transcript and a half-written reply.
func TestStatusColdEqualsFullOnFixtures(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 33 MB transcripts")
	}
	ctx := context.Background()
	a, out, errb := testApp(t)
	names := append([]string(nil), fixtures.Small...)
	for _, c := range fixtures.Compactions {
		names = append(names, c.Session)
	}
	var odd []byte
	for _, l := range oddStatusLines {
		odd = append(append(odd, l...), '\n')
	}
	getenv := a.Getenv
	stateHome := func(dir string) {
		a.Getenv = func(k string) string {
			if k == "XDG_STATE_HOME" {
				return dir
			}
			return getenv(k)
		}
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(a.Getenv("FIXTURES"), name+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			for buf.Len() < 33<<20 {
				buf.Write(data)
				buf.Write(odd)
			}
			// The last repeat cut in the middle of a line, then a
			// half-written reply.
			cut := bytes.LastIndexByte(data[:len(data)/2], '\n') + 1
			buf.Write(data[:cut])
			buf.WriteString(`{"parentUuid":"x","type":"assistant","message":{"id":"half`)
			path := filepath.Join(t.TempDir(), name+".jsonl")
			if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
				t.Fatal(err)
			}
			status := func(args ...string) string {
				t.Helper()
				out.Reset()
				errb.Reset()
				if code := Run(ctx, append([]string{"status", "--transcript", path}, args...), a); code != 0 {
					t.Fatalf("status: %s", errb)
				}
				return out.String()
			}
			var cold [2]string
			for i, args := range [][]string{{"--json"}, nil} {
				stateHome(t.TempDir())
				cold[i] = status(args...)
				st := state.Store{Dir: mustStateDir(t, a.Getenv)}
				if st.HasBody(path) {
					t.Fatal("a cold status read the whole session: the head read is not tested")
				}
			}
			stateHome(t.TempDir())
			s, err := (state.Store{Dir: mustStateDir(t, a.Getenv)}).Session(path, false)
			if err != nil {
				t.Fatal(err)
			}
			if s.BadCount == 0 || s.NumTurns() == 0 {
				t.Fatalf("the full read found %d bad lines and %d turns", s.BadCount, s.NumTurns())
			}
			for i, args := range [][]string{{"--json"}, nil} {
				if got := status(args...); got != cold[i] {
					t.Errorf("status %v after a full read:\n%s\ncold:\n%s", args, got, cold[i])
				}
			}
		})
	}
}
