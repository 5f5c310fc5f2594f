package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/capture"
	"github.com/cairn-agent/cairn/internal/checkpoint"
	"github.com/cairn-agent/cairn/internal/golden"
	"github.com/cairn-agent/cairn/internal/learn"
	"github.com/cairn-agent/cairn/internal/meter"
	"github.com/cairn-agent/cairn/internal/redact"
	"github.com/cairn-agent/cairn/internal/sqlite"
	"github.com/cairn-agent/cairn/internal/transcript"
)

var t0 = time.Date(2026, 3, 1, 11, 0, 0, 0, time.UTC)

// openStore opens a store on a new database with the clock at t0.
func openStore(t testing.TB) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cairn.db")
	db, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	st := New(db)
	st.Now = func() time.Time { return t0 }
	return st, path
}

// step is one line of a made-up transcript.
type step struct {
	user    string
	text    string
	tool    string
	input   map[string]any
	result  string
	isError bool
}

// session writes steps as a Claude Code transcript in dir and reads it.
func session(t *testing.T, dir string, steps []step) *transcript.Session {
	t.Helper()
	var b bytes.Buffer
	ts := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	lastID := ""
	for i, s := range steps {
		v := map[string]any{"timestamp": ts.Add(time.Duration(i) * time.Minute).Format(time.RFC3339Nano),
			"cwd": "/work/shop", "sessionId": "sess-1", "gitBranch": "feat/BILL-482-export", "isSidechain": false}
		usage := map[string]any{"input_tokens": 10, "cache_read_input_tokens": 1000 + 500*i}
		assistant := func(block map[string]any) {
			v["type"] = "assistant"
			v["message"] = map[string]any{"id": fmt.Sprintf("m%d", i), "model": "claude-opus-4-6", "role": "assistant",
				"content": []any{block}, "usage": usage}
		}
		switch {
		case s.user != "":
			v["type"], v["message"] = "user", map[string]any{"role": "user", "content": s.user}
		case s.text != "":
			assistant(map[string]any{"type": "text", "text": s.text})
		case s.tool != "":
			lastID = fmt.Sprintf("toolu_%d", i)
			assistant(map[string]any{"type": "tool_use", "id": lastID, "name": s.tool, "input": s.input})
		default:
			v["type"], v["message"] = "user", map[string]any{"role": "user", "content": []any{
				map[string]any{"type": "tool_result", "tool_use_id": lastID, "content": s.result, "is_error": s.isError}}}
		}
		line, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	path := filepath.Join(dir, "sess-1.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	s := transcript.New(path)
	var p transcript.Parser
	if _, err := s.Update(&p); err != nil {
		t.Fatal(err)
	}
	return s
}

// work is a session with a decision, a finding, a failure fixed by an
// edit, a failure not fixed, a build command and a secret.
func work(fixed bool) []step {
	steps := []step{
		{user: "Implement the CSV export for BILL-482. Never touch the migrations folder."},
		{tool: "Write", input: map[string]any{"file_path": "/work/shop/internal/export/csv.go", "content": "package export"}},
		{result: "File created successfully"},
		{text: "I'll use encoding/csv rather than hand-written quoting because it handles embedded newlines."},
		{tool: "Bash", input: map[string]any{"command": "go test ./internal/export/...", "description": "Run export tests"}},
		{result: "Exit code 1\n--- FAIL: TestCSVQuotes\n    csv_test.go:31: got \"a,b\" want \"\\\"a,b\\\"\"\nFAIL\tshop/internal/export\t0.01s", isError: true},
		{tool: "Edit", input: map[string]any{"file_path": "/work/shop/internal/export/csv.go", "old_string": "a", "new_string": "b"}},
		{result: "The file has been updated"},
		{text: "The export of 10,000 rows takes 42 ms with encoding/csv, measured with go test -bench."},
		{user: "The staging key is sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA, do not print it."},
	}
	if fixed {
		steps = append(steps,
			step{tool: "Bash", input: map[string]any{"command": "go test ./internal/export/...", "description": "Run export tests"}},
			step{result: "ok  \tshop/internal/export\t0.01s"})
	}
	return steps
}

func build(s *transcript.Session, trigger string, id int64, at time.Time) checkpoint.Checkpoint {
	c := checkpoint.Build(s, checkpoint.Input{Project: "/work/shop", Trigger: trigger, Now: at,
		Reading: meter.Reading{Tokens: 145000, Window: 200000, Threshold: 167000}, Redact: redact.String})
	c.ID = id
	return c
}

// render is observations as text, for the golden file.
func render(obs []Observation) string {
	var b strings.Builder
	for _, o := range obs {
		fmt.Fprintf(&b, "## %s · %s · %s\n%s\n", o.Kind, o.Time.UTC().Format(time.RFC3339), o.Title, o.Body)
		if len(o.Files) > 0 {
			fmt.Fprintf(&b, "files: %s\n", strings.Join(o.Files, ", "))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// The observations of a checkpoint: its level and trigger in its title
// (MEM-001, MEM-002), the fix with its files and command, everything
// redacted; golden.
func TestFromCheckpoint(t *testing.T) {
	s := session(t, t.TempDir(), work(true))
	c := build(s, "pressure-L2", 7, t0)
	obs := FromCheckpoint(c, s)
	for i := range obs {
		obs[i] = clean(obs[i]) // what Add stores
	}
	got := render(obs)
	golden.Check(t, filepath.Join("testdata", "from-checkpoint.md"), got)
	for _, want := range []string{"## checkpoint · 2026-03-01T11:00:00Z · Checkpoint L2 at 87% (pressure-L2) in shop · BILL-482",
		"Fixed in csv.go", "Fixed by changing internal/export/csv.go.", "Then `go test ./internal/export/...` succeeded.",
		"## decision", "encoding/csv rather than", "[REDACTED:anthropic-key]"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in:\n%s", want, got)
		}
	}
	if strings.Contains(got, "sk-ant-api03") {
		t.Error("a secret was kept")
	}
	// Without the session: the checkpoint's own errors, undated fixes.
	bare := render(FromCheckpoint(c, nil))
	if !strings.Contains(bare, "## error_fix") || strings.Contains(bare, "Fixed by changing") {
		t.Errorf("without the session:\n%s", bare)
	}
}

// Each new checkpoint of a session derives the same decisions again: they
// are stored once; an error that was not fixed at one checkpoint and is
// at the next has its record replaced.
func TestCheckpointsAddOnce(t *testing.T) {
	ctx := context.Background()
	st, _ := openStore(t)
	dir := t.TempDir()
	s1 := session(t, dir, work(false))
	ids1, err := st.Add(ctx, FromCheckpoint(build(s1, "pressure-L1", 1, t0), s1)...)
	if err != nil {
		t.Fatal(err)
	}
	s2 := session(t, dir, work(true))
	ids2, err := st.Add(ctx, FromCheckpoint(build(s2, "pressure-L2", 2, t0.Add(time.Hour)), s2)...)
	if err != nil {
		t.Fatal(err)
	}
	count := func(kind string) []Hit {
		hits, err := st.Search(ctx, Query{Kinds: []string{kind}, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		return hits
	}
	if n := len(count(KindCheckpoint)); n != 2 {
		t.Errorf("%d checkpoints, want 2", n)
	}
	if n := len(count(KindDecision)); n != 1 {
		t.Errorf("%d decisions, want the one stored once", n)
	}
	fixes := count(KindErrorFix)
	if len(fixes) != 1 || !strings.HasPrefix(fixes[0].Title, "Fixed in csv.go") {
		t.Errorf("error records: %+v", fixes)
	}
	if !slices.Contains(ids1, fixes[0].ID) || !slices.Contains(ids2, fixes[0].ID) {
		t.Errorf("the fixed error is not the unfixed one's row replaced: %d not in %v and %v", fixes[0].ID, ids1, ids2)
	}
	if hits, _ := st.Search(ctx, Query{Text: "not fixed csv quotes"}); len(hits) > 0 && strings.HasPrefix(hits[0].Title, "Not fixed") {
		t.Errorf("the unfixed record is still found: %+v", hits[0])
	}
}

func TestRemember(t *testing.T) {
	ctx := context.Background()
	st, path := openStore(t)
	o, err := st.Remember(ctx, "/work/shop", "sess-1",
		"Deploys go through the blue cluster first.\nThe password is password=hunter2hunter2 <private>the vault is at vault.internal</private>")
	if err != nil {
		t.Fatal(err)
	}
	if o.ID == 0 || o.Kind != KindNote || o.Title != "Deploys go through the blue cluster first." || !o.Time.Equal(t0) {
		t.Errorf("note %+v", o)
	}
	got, err := st.Get(ctx, o.ID)
	if err != nil || len(got) != 1 {
		t.Fatalf("get: %v %v", got, err)
	}
	if b := got[0].Body; strings.Contains(b, "hunter2") || strings.Contains(b, "vault") || !strings.Contains(b, "[REDACTED") {
		t.Errorf("body %q", b)
	}
	if _, err := st.Remember(ctx, "/work/shop", "", "  <private>only this</private> "); !errors.Is(err, ErrEmpty) {
		t.Errorf("a private note: %v", err)
	}
	if _, err := st.Remember(ctx, "/work/shop", "sess-2", "Deploys go through the blue cluster first.\nThe password is password=hunter2hunter2"); err == nil {
		t.Error("the same note twice: no error")
	}
	for _, f := range []string{path, path + "-wal"} {
		data, _ := os.ReadFile(f)
		for _, w := range []string{"hunter2", "vault.internal"} {
			if bytes.Contains(data, []byte(w)) {
				t.Errorf("%q written to %s", w, filepath.Base(f))
			}
		}
	}
}

// A word planted in a note and a checkpoint's observations is forgotten
// by query: then it is in neither the database file nor its WAL, and the
// next checkpoint of the same session does not bring it back.
func TestForgetPlantedWord(t *testing.T) {
	ctx := context.Background()
	st, path := openStore(t)
	const word = "xylophonequartz"
	if _, err := st.Remember(ctx, "/work/shop", "", "The "+word+" flag is on in staging."); err != nil {
		t.Fatal(err)
	}
	s := session(t, t.TempDir(), append(work(true), step{text: "The " + word + " service answers in 12 ms at the p99."}))
	obs := FromCheckpoint(build(s, "session-end", 3, t0), s)
	if _, err := st.Add(ctx, obs...); err != nil {
		t.Fatal(err)
	}
	// Enough rows after them that the index merges segments and pages
	// split: copies of the word move, and the pages they leave are freed.
	for i := range 300 {
		if _, err := st.Remember(ctx, "/work/shop", "", fmt.Sprintf("filler note %d about exports and tests", i)); err != nil {
			t.Fatal(err)
		}
	}
	files := []string{path, path + "-wal"}
	has := func() bool {
		for _, f := range files {
			data, _ := os.ReadFile(f)
			if bytes.Contains(asciiLower(data), []byte(word)) {
				return true
			}
		}
		return false
	}
	if !has() {
		t.Fatal("the planted word is in neither file: the test could not fail")
	}
	res, err := st.Forget(ctx, Forget{Query: word})
	if err != nil {
		t.Fatal(err)
	}
	if res.Observations < 2 {
		t.Errorf("forgot %+v, want the note and the finding at least", res)
	}
	if has() {
		for _, f := range files {
			data, _ := os.ReadFile(f)
			if i := bytes.Index(asciiLower(data), []byte(word)); i >= 0 {
				t.Logf("%s at %d: %q", f, i, data[max(0, i-100):min(len(data), i+60)])
			}
		}
		t.Error("the forgotten word is still in the database or its WAL")
		all, _ := st.db.SearchObservations(ctx, sqlite.ObservationQuery{Limit: 1000})
		for _, h := range all {
			o, _ := st.Get(ctx, h.ID)
			if strings.Contains(strings.ToLower(observationText(o[0])), word) {
				t.Logf("left: %+v", o[0])
			}
		}
	}
	if hits, err := st.Search(ctx, Query{Text: word}); err != nil || len(hits) != 0 {
		t.Errorf("still found: %v %v", hits, err)
	}
	// The same checkpoint derived again: the forgotten stay forgotten.
	if _, err := st.Add(ctx, obs...); err != nil {
		t.Fatal(err)
	}
	if hits, _ := st.Search(ctx, Query{Text: word}); len(hits) != 0 {
		t.Errorf("brought back: %+v", hits)
	}
	if _, err := st.Forget(ctx, Forget{Query: "the of"}); err == nil {
		t.Error("a query with no word to look for forgot without complaint")
	}
}

func TestSearchAndTimeline(t *testing.T) {
	ctx := context.Background()
	st, _ := openStore(t)
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	obs := []Observation{
		{Project: "/a", SessionID: "s1", Time: at(0), Kind: KindDecision, Title: "Use pnpm", Body: "Use pnpm, not npm: the lock file is pnpm's."},
		{Project: "/a", SessionID: "s1", Time: at(1), Kind: KindErrorFix, Title: "Fixed in mix.exs: lazy_html missing",
			Body: "mix test failed: Phoenix LiveView requires lazy_html.\nFixed by changing mix.exs.", Files: []string{"mix.exs"}},
		{Project: "/a", SessionID: "s1", Time: at(2), Kind: KindFinding, Title: "The fix takes 12 ms", Body: "The fix takes 12 ms."},
		{Project: "/b", SessionID: "s2", Time: at(3), Kind: KindDecision, Title: "Decided on yarn", Body: "We decided on yarn for the monorepo."},
	}
	ids, err := st.Add(ctx, obs...)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		q     Query
		first int64   // the best hit, for a question
		all   []int64 // every hit, in order, for filters alone
	}{
		{name: "words as asked", q: Query{Text: "which file fixed the lazy_html error?"}, first: ids[1]},
		{name: "the kind asked about first", q: Query{Text: "what was decided about the fix?"}, first: ids[3]},
		{name: "filter by project", q: Query{Text: "decided yarn", Project: "/a"}, all: []int64{}},
		{name: "filter by kind", q: Query{Text: "pnpm yarn fix", Kinds: []string{KindDecision}}, first: ids[0]},
		{name: "filter by file", q: Query{Files: []string{"mix.exs"}}, all: []int64{ids[1]}},
		{name: "since, newest first", q: Query{Since: at(2)}, all: []int64{ids[3], ids[2]}},
		{name: "only common words", q: Query{Text: "what was it?"}, all: []int64{}},
		{name: "syntax is words", q: Query{Text: `"unbalanced AND (NEAR OR title:x*`}, all: []int64{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hits, err := st.Search(ctx, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			got := []int64{}
			for _, h := range hits {
				got = append(got, h.ID)
				if len(tc.q.Kinds) > 0 && !slices.Contains(tc.q.Kinds, h.Kind) || tc.q.Project != "" && h.Project != tc.q.Project {
					t.Errorf("hit %+v passes no filter", h)
				}
			}
			if tc.all != nil && !slices.Equal(got, tc.all) || tc.first != 0 && (len(got) == 0 || got[0] != tc.first) {
				t.Errorf("got %v, want %v first, all %v (%+v)", got, tc.first, tc.all, hits)
			}
			for i := 1; i < len(hits); i++ {
				if tc.q.Text != "" && hits[i].Score > hits[i-1].Score {
					t.Errorf("hit %d scores above the one before: %+v", i, hits)
				}
			}
		})
	}
	hits, err := st.Search(ctx, Query{Text: "lazy_html"})
	if err != nil || len(hits) != 1 || hits[0].Snippet == "" || hits[0].Score <= 0 || !hits[0].Time.Equal(at(1)) {
		t.Errorf("hit %+v %v", hits, err)
	}
	tl, err := st.Timeline(ctx, ids[1], 5, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(tl) != 3 || tl[0].ID != ids[0] || tl[2].ID != ids[2] || tl[1].Body == "" {
		t.Errorf("timeline %+v", tl)
	}
}

func TestIndex(t *testing.T) {
	ctx := context.Background()
	st, _ := openStore(t)
	if ix, err := st.Index(ctx, "/a", "", 0); err != nil || ix != "" {
		t.Errorf("empty project: %q %v", ix, err)
	}
	var obs []Observation
	for i := range 30 {
		kind := []string{KindDecision, KindErrorFix, KindNote, KindOpenItem, KindFinding}[i%5]
		session := "old"
		if i >= 25 {
			session = "now"
		}
		obs = append(obs, Observation{Project: "/a", SessionID: session, Time: t0.Add(time.Duration(i) * time.Hour), Kind: kind,
			Title: fmt.Sprintf("%s number %d with a title long enough to take some room in the index", kind, i), Body: "x"})
	}
	if _, err := st.Add(ctx, obs...); err != nil {
		t.Fatal(err)
	}
	ix, err := st.Index(ctx, "/a", "now", 150)
	if err != nil {
		t.Fatal(err)
	}
	if checkpoint.Tokens(ix) > 150 {
		t.Errorf("index of %d tokens over a budget of 150:\n%s", checkpoint.Tokens(ix), ix)
	}
	// Findings are not in the index, nor the current session's.
	if !strings.Contains(ix, "more not shown") || strings.Contains(ix, "finding") || strings.Contains(ix, "number 2 ") {
		t.Errorf("index:\n%s", ix)
	}
	for i := 25; i < 30; i++ {
		if strings.Contains(ix, fmt.Sprintf("number %d ", i)) {
			t.Errorf("the current session's number %d is shown:\n%s", i, ix)
		}
	}
	lines := strings.Split(ix, "\n")
	if len(lines) < 4 || !strings.HasPrefix(lines[1], "- #") || !strings.Contains(lines[1], "number 23 ") {
		t.Errorf("not newest first:\n%s", ix)
	}
	full, err := st.Index(ctx, "/a", "", 5000)
	if err != nil || strings.Contains(full, "more not shown") || !strings.Contains(full, "number 28 ") {
		t.Errorf("whole index:\n%s", full)
	}
}

// No text makes Search fail: whatever is typed is words, never FTS5
// syntax.
func FuzzSearch(f *testing.F) {
	for _, s := range []string{"which file fixed error X", `"`, "AND OR NOT", "title:x", "a*", "NEAR(a b)", "-x", "^x", "(", "ü ß 日本",
		"\x00", "col:(a OR b)"} {
		f.Add(s)
	}
	st, _ := openStore(f)
	ctx := context.Background()
	if _, err := st.Add(ctx, Observation{Project: "/a", Kind: KindNote, Title: "a note", Body: "about AND and NEAR"}); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, q string) {
		if _, err := st.Search(ctx, Query{Text: q}); err != nil {
			t.Errorf("%q: %v", q, err)
		}
		if _, err := st.Forget(ctx, Forget{Query: q + " zzzqqq"}); err != nil {
			t.Errorf("forget %q: %v", q, err)
		}
	})
}

// asciiLower lowers ASCII letters only: bytes.ToLower would read the
// database's binary pages as UTF-8 and shift every offset.
func asciiLower(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}

// What a handoff, a learning, a reviewed capture and a compaction become,
// and that a later version of each replaces the earlier one.
func TestFromDocuments(t *testing.T) {
	ctx := context.Background()
	st, _ := openStore(t)
	doc := "---\nsession_id: sess-1\n---\n# Session Handoff: CSV export for BILL-482\n\nNext: write the empty-export test in internal/export/csv_test.go.\n"
	entry := learn.Entry{ID: "a1b2c3d4", File: "learnings-implementation.md", Heading: "2026-03-01 — implementation: quote with encoding/csv",
		Title: "quote with encoding/csv", Phase: "implementation", Body: "Hand-written quoting broke on embedded newlines; see internal/export/csv.go."}
	capt := capture.Capture{Path: "/work/shop/.project/compacts/20260301_110000-autocompact.md", SessionID: "sess-1", Time: t0}
	mem := capture.Memory{Title: "CSV export", Goal: "Export invoices as CSV.", Learnings: []string{"The header row is always written."},
		OpenQuestions: []string{"Should empty exports have a BOM?"}, Confidence: "High - tests pass", KeyFiles: []string{"internal/export/csv.go"},
		Summary: "Built the CSV export."}
	comp := transcript.Compaction{Trigger: "auto", PreTokens: 167094, PostTokens: 9120, Time: t0, Summary: "The user asked for a CSV export..."}
	for _, tc := range []struct {
		o            Observation
		kind, title  string
		inBody, file string
	}{
		{o: FromHandoff("/work/shop", "sess-1", "/work/shop/.claude/handoffs/2026-03-01-1100.md", doc, t0), kind: KindHandoff,
			title: "Handoff: CSV export for BILL-482", inBody: "empty-export test", file: "internal/export/csv_test.go"},
		{o: FromLearning("/work/shop", entry, t0), kind: KindLearning, title: "quote with encoding/csv", inBody: "Phase: implementation",
			file: "internal/export/csv.go"},
		{o: FromCapture("/work/shop", capt, mem), kind: KindCapture, title: "Capture: CSV export", inBody: "Open question: Should empty exports have a BOM?",
			file: "internal/export/csv.go"},
		{o: FromCompaction("/work/shop", "sess-1", comp)[0], kind: KindCompaction, title: "Compaction (auto, 167,094 → 9,120 tokens)",
			inBody: "CSV export"},
	} {
		t.Run(tc.kind, func(t *testing.T) {
			o := tc.o
			if o.Kind != tc.kind || o.Title != tc.title || !strings.Contains(o.Body, tc.inBody) || tc.file != "" && !slices.Contains(o.Files, tc.file) {
				t.Errorf("%+v", o)
			}
			ids, err := st.Add(ctx, o)
			if err != nil || ids[0] == 0 {
				t.Fatalf("add: %v %v", ids, err)
			}
			// The same document, edited since: the same observation, replaced.
			o.Body += "\nEdited later."
			again, err := st.Add(ctx, o)
			if err != nil || again[0] != ids[0] {
				t.Errorf("edited: %v (first %v) %v", again, ids, err)
			}
			got, _ := st.Get(ctx, ids[0])
			if len(got) != 1 || !strings.HasSuffix(got[0].Body, "Edited later.") {
				t.Errorf("not replaced: %+v", got)
			}
		})
	}
}

// A compaction's summary becomes the compaction (what the session was
// for) and one observation for each item of the analysis and of each
// numbered section after the first, titled by the section; a summary
// without sections stays whole.
func TestFromCompactionSections(t *testing.T) {
	transcriptForm := "This session is being continued from a previous conversation.\n\nAnalysis:\nLet me go through it:\n" +
		"1. User asked for a CSV export.\n2. I ran the tests:\n   - 3 failed\n\nSummary:\n" +
		"1. Primary Request and Intent:\n   Build the CSV export for BILL-482.\n\n" +
		"2. Errors and fixes:\n   Two of them:\n   - **ENOENT on the export dir**: fixed by creating it.\n" +
		"   - **Header written twice**: fixed in internal/export/csv.go.\n     (a nested line)\n\n" +
		"3. All user messages:\n   - \"build the csv export\"\n   - \"no BOM please\"\n\n" +
		"4. Optional Next Step:\n   Write the empty-export test."
	tests := []struct {
		name, summary string
		titles        []string
		firstBody     string
		bodies        map[int]string // more of an observation's body, by index
		files         map[int]string
	}{
		{"transcript", transcriptForm,
			[]string{"Compaction (auto, 167,094 → 9,120 tokens)",
				"Compaction (auto, 167,094 → 9,120 tokens) analysis: User asked for a CSV export.",
				"Compaction (auto, 167,094 → 9,120 tokens) analysis: I ran the tests:",
				"Errors and fixes: Two of them:",
				"Errors and fixes: **ENOENT on the export dir**: fixed by creating it.",
				"Errors and fixes: **Header written twice**: fixed in internal/export/csv.go.",
				"All user messages: \"build the csv export\"",
				"All user messages: \"no BOM please\"",
				"Optional Next Step: Write the empty-export test."},
			"This session is being continued from a previous conversation.\n\nAnalysis:\nLet me go through it:\nPrimary Request and Intent: Build the CSV export for BILL-482.",
			map[int]string{2: "- 3 failed", 5: "(a nested line)"},
			map[int]string{5: "internal/export/csv.go"}},
		{"PostCompact", "<analysis>\nfake\n</analysis>\n<summary>1. Primary Request: FAKE SUMMARY of the conversation.</summary>",
			[]string{"Compaction (auto, 167,094 → 9,120 tokens)"}, "fake\nPrimary Request: FAKE SUMMARY of the conversation.", nil, nil},
		{"no sections", "The user asked for a CSV export.\n1. It was built.\n2. Tested.",
			[]string{"Compaction (auto, 167,094 → 9,120 tokens)"}, "The user asked for a CSV export.\n1. It was built.\n2. Tested.", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := transcript.Compaction{Trigger: "auto", PreTokens: 167094, PostTokens: 9120, Time: t0, Summary: tt.summary}
			obs := FromCompaction("/work/shop", "sess-1", c)
			var titles []string
			keys := map[string]bool{}
			for _, o := range obs {
				titles = append(titles, o.Title)
				if o.Kind != KindCompaction || !o.replace || keys[o.key] || o.SessionID != "sess-1" || !o.Time.Equal(t0) {
					t.Errorf("%q: kind %s, replace %v, key %q (seen %v)", o.Title, o.Kind, o.replace, o.key, keys[o.key])
				}
				keys[o.key] = true
			}
			if !slices.Equal(titles, tt.titles) {
				t.Fatalf("titles\n%q\nwant\n%q", titles, tt.titles)
			}
			if obs[0].Body != tt.firstBody {
				t.Errorf("the compaction's body %q, want %q", obs[0].Body, tt.firstBody)
			}
			for i, b := range tt.bodies {
				if !strings.Contains(obs[i].Body, b) {
					t.Errorf("%q: no %q in %q", obs[i].Title, b, obs[i].Body)
				}
			}
			for i, f := range tt.files {
				if !slices.Contains(obs[i].Files, f) {
					t.Errorf("%q: files %q, want %q among them", obs[i].Title, obs[i].Files, f)
				}
			}
			// The session's excerpt, stored first, is the same compaction:
			// the whole summary replaces it.
			excerpt := FromCompaction("/work/shop", "sess-1", transcript.Compaction{Trigger: "auto", Time: t0, Summary: tt.summary[:30]})
			if len(excerpt) != 1 || excerpt[0].key != obs[0].key {
				t.Errorf("the excerpt's key %q, the whole summary's %q", excerpt[0].key, obs[0].key)
			}
		})
	}
}
