package state

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-agent/cairn/internal/ledger"
	"github.com/cairn-agent/cairn/internal/transcript"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// The hot path on Codex and Gemini CLI transcripts: the head written after
// every line and loaded by the next "process" keeps what their decoders
// carry between lines (the client, which response the next usage reports,
// the latest snapshot, the reply ids), so the light session ends where a
// cold read does.
func TestHeadKeepsWhatDecodersCarry(t *testing.T) {
	for _, sample := range []string{
		"../transcript/testdata/codex/auto-compaction.jsonl",
		"../transcript/testdata/codex/tools-compactions.jsonl",
		"../transcript/testdata/gemini/compress.jsonl",
		"../transcript/testdata/gemini/tools-compress.jsonl",
	} {
		t.Run(filepath.Base(sample), func(t *testing.T) {
			src, err := os.ReadFile(sample)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			st := Store{Dir: filepath.Join(dir, "state")}
			path := filepath.Join(dir, "t.jsonl")
			os.WriteFile(path, nil, 0o600)
			f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o600)
			defer f.Close()
			var h *transcript.Session
			for _, l := range bytes.SplitAfter(src, []byte("\n")) {
				f.Write(l)
				if h, err = st.Session(path, false); err != nil {
					t.Fatal(err)
				}
				if err := st.SaveHead(h); err != nil {
					t.Fatal(err)
				}
			}
			cold := transcript.New(path)
			var p transcript.Parser
			if _, err := cold.Update(&p); err != nil {
				t.Fatal(err)
			}
			want := Lite(cold)
			got := Lite(h)
			want.Prompts, got.Prompts = nil, nil // the header keeps the first one's text only
			if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(transcript.Session{}, ledger.Ledger{}), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("light session after a line at a time differs from a cold read (-want +got):\n%s", diff)
			}
		})
	}
}
