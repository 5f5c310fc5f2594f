package state

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/cairn-agent/cairn/internal/fixtures"
	"github.com/cairn-agent/cairn/internal/ledger"
	"github.com/cairn-agent/cairn/internal/transcript"
)

func session(t testing.TB, dir string, turns int) *transcript.Session {
	t.Helper()
	path := filepath.Join(dir, "abc.jsonl")
	var b strings.Builder
	for i := 0; i < turns; i++ {
		b.WriteString(`{"type":"assistant","message":{"id":"m` + string(rune('a'+i%26)) + strings.Repeat("x", i/26) + `","model":"m","usage":{"input_tokens":1,"cache_read_input_tokens":` + "100" + `}},"timestamp":"2026-01-01T00:00:00Z"}` + "\n")
	}
	b.WriteString(`{"type":"user","message":{"role":"user","content":"first prompt"}}` + "\n")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	s := transcript.New(path)
	var p transcript.Parser
	if _, err := s.Update(&p); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	st := Store{Dir: filepath.Join(dir, "state")}
	s := session(t, dir, 50)
	if err := st.Save(s); err != nil {
		t.Fatal(err)
	}
	full := st.LoadBody(s.Path)
	if full == nil || len(full.Turns) != 50 || full.Offset != s.Offset || !full.UpToDate() {
		t.Fatalf("full = %+v", full)
	}
	h := st.LoadHeader(s.Path)
	if h == nil || len(h.Turns) != recentTurns || h.NumTurns() != 50 || h.Offset != s.Offset || !h.UpToDate() {
		t.Fatalf("header turns=%d total=%d", len(h.Turns), h.NumTurns())
	}
	if len(h.Prompts) != 1 || h.Prompts[0].Text != "first prompt" {
		t.Errorf("header prompts = %+v", h.Prompts)
	}
	for _, f := range []string{st.headFile(s.Path), st.bodyFile(s.Path)} {
		fi, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s mode = %v, want 0600", f, fi.Mode().Perm())
		}
	}
	di, _ := os.Stat(filepath.Dir(st.File(s.Path)))
	if di.Mode().Perm() != 0o700 {
		t.Errorf("state dir mode = %v, want 0700", di.Mode().Perm())
	}
}

func TestUntrustedStateIsDiscarded(t *testing.T) {
	dir := t.TempDir()
	st := Store{Dir: dir}
	s := session(t, dir, 3)
	if err := st.Save(s); err != nil {
		t.Fatal(err)
	}
	head, body := st.headFile(s.Path), st.bodyFile(s.Path)
	goodHead, _ := os.ReadFile(head)
	goodBody, _ := os.ReadFile(body)
	other := *s
	other.Version = 999
	otherBody, err := encodeBody(&other)
	if err != nil {
		t.Fatal(err)
	}
	shape, _ := bodyShape()
	cases := []struct {
		name       string
		head, body string
	}{
		{"garbage", "not a header\n", "not json"},
		{"empty", "", ""},
		{"half written", string(goodHead[:len(goodHead)/2]), string(goodBody[:len(goodBody)/2])},
		{"other version", strings.Replace(string(goodHead), fmt.Sprintf("%s %d ", headerMagic, transcript.StateVersion), headerMagic+" 999 ", 1),
			string(otherBody)},
		{"other types", "", strings.Replace(string(goodBody), shape, strings.Repeat("0", len(shape)), 1)},
		{"trailing bytes", "", string(goodBody) + "x"},
		{"other path", strings.ReplaceAll(string(goodHead), "abc.jsonl", "zzz.jsonl"), strings.ReplaceAll(string(goodBody), "abc.jsonl", "zzz.jsonl")},
		{"other kind", strings.ReplaceAll(string(goodHead), headerMagic, "something-else"), strings.ReplaceAll(string(goodBody), bodyKind, "something-else")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			os.WriteFile(head, []byte(tc.head), 0o600)
			os.WriteFile(body, []byte(tc.body), 0o600)
			if h := st.LoadHeader(s.Path); h != nil {
				t.Errorf("header trusted: %+v", h)
			}
			if f := st.LoadBody(s.Path); f != nil {
				t.Errorf("body trusted: %+v", f)
			}
		})
	}
}

// The body is read back as it was saved, and a body saved as JSON by an
// earlier cairn still reads.
func TestBodyRoundTrip(t *testing.T) {
	dir := t.TempDir()
	st := Store{Dir: dir}
	fx, err := fixtures.Extract(filepath.Join(dir, "fixtures"))
	if err != nil {
		t.Fatal(err)
	}
	paths, _ := filepath.Glob(filepath.Join(fx, "*.jsonl"))
	if len(paths) == 0 {
		t.Fatal("no fixtures")
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			s := transcript.New(path)
			var p transcript.Parser
			if _, err := s.Update(&p); err != nil {
				t.Fatal(err)
			}
			if err := s.UpdateSubagents(&p); err != nil {
				t.Fatal(err)
			}
			want, _ := json.Marshal(s)
			if err := st.Save(s); err != nil {
				t.Fatal(err)
			}
			got := st.LoadBody(path)
			if got == nil {
				t.Fatal("the body saved does not load")
			}
			if g, _ := json.Marshal(got); !bytes.Equal(g, want) {
				t.Errorf("the body read back differs:\n got %.300s\nwant %.300s", g, want)
			}
			old, _ := json.Marshal(body{Kind: bodyKind, Session: s})
			os.WriteFile(st.bodyFile(path), old, 0o600)
			if g, _ := json.Marshal(st.LoadBody(path)); !bytes.Equal(g, want) {
				t.Errorf("a JSON body reads back as %.300s", g)
			}
		})
	}
}

// The head can move on alone, and the body catches up later from its own
// offset.
func TestHeadAheadOfBody(t *testing.T) {
	dir := t.TempDir()
	st := Store{Dir: filepath.Join(dir, "state")}
	s := session(t, dir, 3)
	if err := st.Save(s); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(s.Path, os.O_APPEND|os.O_WRONLY, 0o600)
	f.WriteString(`{"type":"assistant","message":{"id":"late","model":"m","usage":{"input_tokens":7}}}` + "\n")
	f.Close()

	h := st.LoadHeader(s.Path)
	var p transcript.Parser
	if r, err := h.Update(&p); err != nil || r.Read == 0 || r.Rebuilt {
		t.Fatalf("light update: %+v %v", r, err)
	}
	if err := st.SaveHead(h); err != nil {
		t.Fatal(err)
	}
	if h2 := st.LoadHeader(s.Path); h2 == nil || !h2.UpToDate() || h2.NumTurns() != 4 {
		t.Fatalf("head after light update: %+v", h2)
	}
	full := st.LoadBody(s.Path)
	if full == nil || full.UpToDate() || full.NumTurns() != 3 {
		t.Fatalf("body should lag: %+v", full)
	}
	if _, err := full.Update(&p); err != nil || full.NumTurns() != 4 || !full.UpToDate() {
		t.Fatalf("body catching up: turns %d err %v", full.NumTurns(), err)
	}
}

func TestFilePerTranscriptPath(t *testing.T) {
	st := Store{Dir: "/s"}
	a, b := st.File("/x/abc.jsonl"), st.File("/y/abc.jsonl")
	if a == b || !strings.HasPrefix(filepath.Base(a), "abc-") {
		t.Errorf("files %s %s", a, b)
	}
}

func TestDir(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"XDG_STATE_HOME": "/x", "HOME": "/h"}, "/x/cairn"},
		{map[string]string{"XDG_STATE_HOME": "relative", "HOME": "/h"}, "/h/.local/state/cairn"},
		{map[string]string{"HOME": "/h"}, "/h/.local/state/cairn"},
	}
	for _, tt := range tests {
		if got, err := Dir(env(tt.env)); err != nil || got != tt.want {
			t.Errorf("Dir(%v) = %q, %v; want %q", tt.env, got, err, tt.want)
		}
	}
	if _, err := Dir(env(nil)); err == nil {
		t.Error("no error without HOME")
	}
}

func TestSaveFailsCleanly(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "state")
	os.WriteFile(blocker, []byte("a file where the directory should be"), 0o600)
	st := Store{Dir: blocker}
	s := session(t, dir, 2)
	if err := st.Save(s); err == nil {
		t.Fatal("save into a file succeeded")
	}
	if data, _ := os.ReadFile(blocker); string(data) != "a file where the directory should be" {
		t.Error("blocker changed")
	}
}

func TestHeaderRoundTrip(t *testing.T) {
	dir := t.TempDir()
	s := session(t, dir, 20)
	s.Compactions = []transcript.Compaction{{Trigger: "auto", PreTokens: 167094, PostTokens: 9000, Time: time.Date(2026, 2, 11, 21, 18, 41, 543e6, time.UTC), Line: 7, TurnsBefore: 5, SummaryChars: 1234}}
	s.Model, s.CWD, s.GitBranch, s.SessionID = "claude \"opus\" 4", "/home/u/my proj", "feat/ünï", "abc"
	s.HookAnswers, s.RestoreLines = true, []int{77, 120}
	s.Prompts[0].Text = "line one\nline \"two\" \x00 end"
	s.Client, s.ContextWindow = transcript.Codex, 190000
	s.Carry = transcript.Carry{Response: "resp_9", Cumulative: 67080, LastTotal: 3020, Compacting: true, Compacted: true, Snapshot: "sha256:00ff"}
	s.Turns[0].Usage.Total = 3020
	s.Compactions[0].ContextChars = 891
	want := Lite(s)
	got, err := decodeHeader(string(encodeHeader(want)))
	if err != nil {
		t.Fatal(err)
	}
	// What the header does not carry.
	want.Prompts = []transcript.Prompt{{Text: want.Prompts[0].Text}}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreUnexported(transcript.Session{}, ledger.Ledger{}), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("header round trip (-want +got):\n%s", diff)
	}
}

func FuzzHeader(f *testing.F) {
	s := &transcript.Session{Version: 1, Path: "/p/a.jsonl", Offset: 10, TailSum: []byte("x"), TailLen: 1,
		Turns:       []transcript.Turn{{Line: 1, Usage: transcript.Usage{Input: 5}}},
		Compactions: []transcript.Compaction{{Trigger: "manual", PreTokens: 3}}}
	f.Add(string(encodeHeader(s)))
	f.Add(headerMagic + " 1 2 3 - - 0 0 0 0 0 \"\" \"\" \"\" \"\" \"\" \"\" \"\" \"\" 0 \"\" 0 0 0 0 \"\" 99999999999 0\n")
	f.Fuzz(func(t *testing.T, line string) {
		got, err := decodeHeader(line)
		if err != nil {
			return
		}
		// Whatever decodes encodes back to something that decodes the same.
		again, err := decodeHeader(string(encodeHeader(got)))
		if err != nil {
			t.Fatalf("re-encoded header does not decode: %v", err)
		}
		if diff := cmp.Diff(got, again, cmpopts.IgnoreUnexported(transcript.Session{}, ledger.Ledger{}), cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("unstable: %s", diff)
		}
	})
}

// A write killed between creating its temporary file and renaming it
// leaves the file; CleanTemps removes such files once they are old.
func TestCleanTemps(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	if err := WriteAtomic(filepath.Join(dir, "kept"), []byte("x"), false); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(dir, ".kept"+tempMark+"123")
	young := filepath.Join(dir, ".kept"+tempMark+"456")
	for _, f := range []string{old, young} {
		os.WriteFile(f, []byte("partial"), 0o600)
	}
	os.Chtimes(old, now.Add(-time.Hour), now.Add(-time.Hour))
	n, err := CleanTemps(dir, 10*time.Minute, now)
	if err != nil || n != 1 {
		t.Fatalf("removed %d, %v", n, err)
	}
	for f, want := range map[string]bool{old: false, young: true, filepath.Join(dir, "kept"): true} {
		if _, err := os.Stat(f); (err == nil) != want {
			t.Errorf("%s exists: %v, want %v", f, err == nil, want)
		}
	}
}

func TestMarksRoundTrip(t *testing.T) {
	st := Store{Dir: t.TempDir()}
	path := filepath.Join(t.TempDir(), "s.jsonl")
	want := Marks{Announced: 2, Captured: 3, DeferUntil: 40, CheckpointTurns: 12, SuggestedTurns: 15, SuggestedLevel: 2}
	if err := st.SaveMarks(path, want); err != nil {
		t.Fatal(err)
	}
	if got := st.Marks(path); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if m := st.Marks(filepath.Join(t.TempDir(), "none.jsonl")); m != (Marks{}) {
		t.Errorf("missing marks: %+v", m)
	}
}

// FuzzDecodeBody: whatever a body file holds, reading it returns a
// session or an error, never a panic.
func FuzzDecodeBody(f *testing.F) {
	dir := f.TempDir()
	s := session(f, dir, 3)
	s.ToolCalls = append(s.ToolCalls, transcript.ToolCall{ID: "t1", Name: "Bash", Command: "go test ./...", Paths: []string{"a", "b"}})
	s.Subagents = append(s.Subagents, transcript.Subagent{ID: "a1", Session: &transcript.Session{Model: "m"}})
	good, err := encodeBody(s)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(bytes.TrimPrefix(good, []byte(bodyKind+" ")))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		decodeBody(data)
	})
}

// Bare is the light load less the latest texts: after a saved head, on
// the same appended turn, the same session and the same head saved.
func TestBareIsLightLessTexts(t *testing.T) {
	dir := t.TempDir()
	s := session(t, dir, 3)
	light, bare := Store{Dir: filepath.Join(dir, "light")}, Store{Dir: filepath.Join(dir, "bare")}
	for _, st := range []Store{light, bare} {
		if err := st.Save(s); err != nil {
			t.Fatal(err)
		}
	}
	f, _ := os.OpenFile(s.Path, os.O_APPEND|os.O_WRONLY, 0o600)
	// Enough to save the head again, with a text at the end.
	f.WriteString(`{"type":"assistant","message":{"id":"late","model":"m","usage":{"input_tokens":7},"content":[{"type":"text","text":"` +
		strings.Repeat("x", headSaveEvery) + `"}]},"timestamp":"2026-01-01T00:01:00Z"}` + "\n")
	f.Close()
	want, err := light.Session(s.Path, false)
	if err != nil {
		t.Fatal(err)
	}
	got, err := bare.Bare(s.Path)
	if err != nil {
		t.Fatal(err)
	}
	if len(want.LastTexts) != 1 || len(got.LastTexts) != 0 {
		t.Fatalf("latest texts: light %d, bare %d; want 1 and 0", len(want.LastTexts), len(got.LastTexts))
	}
	want.LastTexts = nil
	a, _ := json.Marshal(want)
	b, _ := json.Marshal(got)
	if d := cmp.Diff(string(a), string(b)); d != "" {
		t.Errorf("bare session differs from the light one:\n%s", d)
	}
	a, _ = os.ReadFile(light.headFile(s.Path))
	b, _ = os.ReadFile(bare.headFile(s.Path))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Errorf("saved heads differ (%d and %d bytes)", len(a), len(b))
	}
}
