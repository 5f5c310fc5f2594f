package transcript

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// folded is the full session of the transcript data, as JSON, without what
// an inert line may change (InertTail): the counters, the times, the
// file's identity and the identity fields the caller compares.
func folded(t *testing.T, path string, data []byte) string {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	s := New(path)
	if _, err := s.Update(&Parser{}); err != nil {
		t.Fatal(err)
	}
	s.Offset, s.Lines, s.TailSum, s.TailLen, s.Head, s.Skipped = 0, 0, nil, 0, nil, 0
	s.FirstTime, s.LastTime = time.Time{}, time.Time{}
	s.SessionID, s.CWD, s.GitBranch, s.ClientVersion = "", "", "", ""
	out, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// A line InertTail takes as inert changes nothing of the session a fold
// gives but what it leaves to its caller, after any of a real session's
// lines.
func FuzzInertTail(f *testing.F) {
	base, err := os.ReadFile(fixturePath(f, "short"))
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{
		`{"type":"progress","data":{"type":"hook_progress"},"timestamp":"2026-03-01T12:00:00Z"}`,
		`{"type":"system","subtype":"turn_duration","durationMs":5,"timestamp":"2026-03-01T12:00:00Z"}`,
		`{"type":"system","subtype":"stop_hook_summary","cwd":"/elsewhere","timestamp":"2026-03-01T12:00:00Z"}`,
		`{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"auto","preTokens":5},"timestamp":"2026-03-01T12:00:00Z"}`,
		`{"type":"attachment","attachment":{"type":"hook_additional_context","content":["# Restored working state (cairn)"]}}`,
		`{"attachment":{"type":"hook_additional_context","content":["x"]},"type":"attachment"}`,
		`{"type":"user","message":{"role":"user","content":"go on"},"timestamp":"2026-03-01T12:00:00Z"}`,
		`{"type":"file-history-snapshot","messageId":"m","snapshot":{}}`,
		`{"parentUuid":"x","type":"progress"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if bytes.IndexByte(line, '\n') >= 0 {
			return // one line
		}
		tail := append(bytes.Clone(line), '\n')
		if !inertLines(tail) {
			return
		}
		path := filepath.Join(t.TempDir(), "s.jsonl")
		before := folded(t, path, base)
		after := folded(t, path, append(bytes.Clone(base), tail...))
		if before != after {
			t.Errorf("inert line %q changed the session:\n%s\n%s", line, before, after)
		}
	})
}
