package state

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/cairn-agent/cairn/internal/fixtures"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// headOf is the head a session saves: what a read for the head only must
// derive exactly.
func headOf(s *transcript.Session) string { return string(encodeHeader(Lite(s))) }

// readWith reads the transcript at path cold with p, in parallel where it
// is large enough, or line by line with serial.
func readWith(t testing.TB, path string, p transcript.Parser, serial bool) *transcript.Session {
	t.Helper()
	s := transcript.New(path)
	var err error
	if serial {
		s.Client = transcript.ClaudeCode
		err = s.ReadSerial(&p)
	} else {
		_, err = s.Update(&p)
	}
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A read for the head only derives the head a full read does, on every
// real transcript, a subagent's included.
func TestHeadOnlyEqualsFullOnFixtures(t *testing.T) {
	fx, err := fixtures.Extract(filepath.Join(t.TempDir(), "fixtures"))
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	err = filepath.Walk(fx, func(path string, fi os.FileInfo, err error) error {
		if err == nil && strings.HasSuffix(path, ".jsonl") {
			paths = append(paths, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) < len(fixtures.Compactions)+len(fixtures.Small) {
		t.Fatalf("found %d transcripts in the fixtures", len(paths))
	}
	for _, path := range paths {
		rel, _ := filepath.Rel(fx, path)
		t.Run(rel, func(t *testing.T) {
			full := readWith(t, path, transcript.Parser{}, false)
			if full.NumTurns() == 0 && len(full.Compactions) == 0 && strings.Count(rel, "/") == 0 {
				t.Fatalf("nothing read from %s", rel)
			}
			for _, sub := range []bool{false, true} {
				head := transcript.New(path)
				head.IsSubagent = sub
				p := transcript.Parser{Head: true}
				if _, err := head.Update(&p); err != nil {
					t.Fatal(err)
				}
				want := transcript.New(path)
				want.IsSubagent = sub
				var fp transcript.Parser
				if _, err := want.Update(&fp); err != nil {
					t.Fatal(err)
				}
				if got, want := headOf(head), headOf(want); got != want {
					t.Errorf("subagent=%v: head-only read differs from the full read:\n got %s\nwant %s", sub, got, want)
				}
				if !p.HeadOnly(head) {
					t.Errorf("HeadOnly is false on a Claude Code transcript")
				}
			}
		})
	}
}

// bigTranscript writes the fixture sessions repeated past the size from
// which reads are parallel and a cold light load reads the head only,
// with a line that is not JSON, a line in invalid UTF-8, a prompt after
// them and a half-written last line.
func bigTranscript(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	fx, err := fixtures.Extract(filepath.Join(dir, "fixtures"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "big.jsonl")
	if _, err := fixtures.Big(fx, path, headOnlyMin+8<<20); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString("{not json\n\n")
	f.WriteString(`{"type":"user","timestamp":"2030-01-01T00:00:00Z","message":{"role":"user","content":"bad ` + "\xff" + `"}}` + "\n")
	f.WriteString(`{"type":"user","timestamp":"2030-01-01T00:00:01Z","message":{"role":"user","content":"after the garbage"}}` + "\n")
	f.WriteString(`{"type":"assistant","message":{"id":"half`)
	return path
}

// On a transcript large enough to be read in parallel, the head-only
// read derives the head the full read does, in parallel and line by
// line.
func TestHeadOnlyEqualsFullOnBigTranscript(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 40 MB transcript")
	}
	path := bigTranscript(t)
	want := headOf(readWith(t, path, transcript.Parser{}, false))
	if serial := headOf(readWith(t, path, transcript.Parser{}, true)); serial != want {
		t.Fatalf("the full reads differ, parallel and serial")
	}
	for _, serial := range []bool{false, true} {
		got := readWith(t, path, transcript.Parser{Head: true}, serial)
		if got.BadCount != 2 {
			t.Errorf("serial=%v: %d bad lines, want 2", serial, got.BadCount)
		}
		if h := headOf(got); h != want {
			t.Errorf("serial=%v: head-only read differs from the full read:\n got %.2000s\nwant %.2000s", serial, h, want)
		}
	}
}

// With ColdHead, a light load of a large transcript without state reads
// it for the head only: it saves the head the full read saves and no
// body, answers as a later light load does, and a full load afterwards
// reads it all and saves what it would have saved without it. Without
// ColdHead it reads and saves the whole session, as before.
func TestColdLightLoadSavesHeadOnly(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 40 MB transcript")
	}
	path := bigTranscript(t)
	dir := t.TempDir()
	old := Store{Dir: filepath.Join(dir, "old")}
	full := readWith(t, path, transcript.Parser{}, false)
	if err := old.Save(full); err != nil {
		t.Fatal(err)
	}

	plain := Store{Dir: filepath.Join(dir, "plain")}
	if _, err := plain.Session(path, false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(plain.bodyFile(path)); err != nil {
		t.Errorf("without ColdHead no body was saved: %v", err)
	}

	st := Store{Dir: filepath.Join(dir, "new"), Warn: func(err error) { t.Error(err) }, ColdHead: true}
	s, err := st.Session(path, false)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(st.bodyFile(path)); err == nil {
		t.Errorf("a cold light load saved a body")
	}
	wantHead, _ := os.ReadFile(old.headFile(path))
	gotHead, err := os.ReadFile(st.headFile(path))
	if err != nil || !bytes.Equal(gotHead, wantHead) {
		t.Fatalf("saved head differs from the full read's (%v):\n got %.1000s\nwant %.1000s", err, gotHead, wantHead)
	}
	if headOf(s) != headOf(full) {
		t.Errorf("the light session returned differs from the full read's head")
	}
	light := readWith(t, path, transcript.Parser{Light: true}, false)
	if len(s.LastTexts) == 0 || !reflect.DeepEqual(s.LastTexts, light.LastTexts) {
		t.Errorf("latest texts %+v, the light read's %+v", s.LastTexts, light.LastTexts)
	}
	again, err := st.Session(path, false)
	if err != nil {
		t.Fatal(err)
	}
	if headOf(again) != headOf(s) {
		t.Errorf("the next light load answers otherwise than the cold one")
	}

	// Bare (what `cairn status` loads first) saves the same head and
	// answers the same but for the latest texts.
	bare := Store{Dir: filepath.Join(dir, "bare"), Warn: func(err error) { t.Error(err) }, ColdHead: true}
	bs, err := bare.Bare(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(bare.headFile(path)); err != nil || !bytes.Equal(got, wantHead) {
		t.Errorf("the bare cold load saved another head (%v)", err)
	}
	if _, err := os.Stat(bare.bodyFile(path)); err == nil {
		t.Errorf("a bare cold load saved a body")
	}
	if headOf(bs) != headOf(s) || len(bs.LastTexts) != 0 {
		t.Errorf("the bare cold load answers otherwise than the cold one, or with %d texts", len(bs.LastTexts))
	}

	whole, err := st.Session(path, true)
	if err != nil {
		t.Fatal(err)
	}
	oldWhole, err := old.Session(path, true)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := encodeBody(whole)
	b, _ := encodeBody(oldWhole)
	if !bytes.Equal(a, b) {
		t.Errorf("the full load after a head-only one differs from the full read (%d against %d bytes)", len(a), len(b))
	}
}

// Below the size, a cold light load reads and saves the whole session
// even with ColdHead: the body it saves lets the first checkpoint go on
// from it.
func TestColdLightLoadOfSmallTranscriptSavesBody(t *testing.T) {
	fx, err := fixtures.Extract(filepath.Join(t.TempDir(), "fixtures"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(fx, fixtures.Small[2]+".jsonl")
	st := Store{Dir: t.TempDir(), ColdHead: true}
	if _, err := st.Session(path, false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(st.bodyFile(path)); err != nil {
		t.Errorf("no body saved: %v", err)
	}
}

// FuzzHeadOnlyEqualsFull: whatever the lines, a read for the head only
// derives the head a full read does.
func FuzzHeadOnlyEqualsFull(f *testing.F) {
	fx, err := fixtures.Extract(filepath.Join(f.TempDir(), "fixtures"))
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range append([]string{fixtures.Compactions[0].Session}, fixtures.Small...) {
		data, err := os.ReadFile(filepath.Join(fx, name+".jsonl"))
		if err != nil {
			f.Fatal(err)
		}
		lines := bytes.SplitAfter(data, []byte("\n"))
		for i := 0; i+3 <= len(lines) && i < 300; i += 3 {
			if seed := bytes.Join(lines[i:i+3], nil); len(seed) < 8192 {
				f.Add(seed, false)
			}
		}
	}
	f.Add([]byte(`{"type":"system","subtype":"compact_boundary","compactMetadata":{"trigger":"auto","preTokens":1e3,"postTokens":-1}}`+"\n"+
		`{"type":"user","isCompactSummary":true,"message":{"content":[{"type":"text","text":""}]}}`+"\n"+
		`{"type":"user","isCompactSummary":true,"message":{"content":"again"}}`), false)
	f.Add([]byte(`{"type":"assistant","isSidechain":true,"message":{"id":"s","model":"m","usage":{"input_tokens":5}}}`), false)
	f.Add([]byte(`{"type":"assistant","isSidechain":true,"message":{"id":"m","model":"<synthetic>","usage":{"input_tokens":3}}}`+"\n"+
		`{"type":"attachment","attachment":{"type":"hook_additional_context","content":["# Restored working state (cairn)"]}}`), true)
	f.Fuzz(func(t *testing.T, data []byte, sub bool) {
		full, head := transcript.New("fuzz"), transcript.New("fuzz")
		full.IsSubagent, head.IsSubagent = sub, sub
		fp, hp := transcript.Parser{}, transcript.Parser{Head: true}
		var off int64
		for i, line := range bytes.Split(data, []byte("\n")) {
			fp.Feed(full, line, i+1, off)
			hp.Feed(head, line, i+1, off)
			off += int64(len(line)) + 1
		}
		if !hp.HeadOnly(head) {
			// Another client's lines: read in full either way.
			return
		}
		if got, want := headOf(head), headOf(full); got != want {
			t.Fatalf("head-only read differs:\n got %s\nwant %s", got, want)
		}
	})
}
