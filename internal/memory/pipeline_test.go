package memory

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-agent/cairn/internal/checkpoint"
	"github.com/cairn-agent/cairn/internal/fixtures"
	"github.com/cairn-agent/cairn/internal/meter"
	"github.com/cairn-agent/cairn/internal/pressure"
	"github.com/cairn-agent/cairn/internal/redact"
	"github.com/cairn-agent/cairn/internal/sqlite"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// fixtureNames are the real transcripts the retrieval set is about.
func fixtureNames() []string {
	var names []string
	for _, c := range fixtures.Compactions {
		names = append(names, c.Session)
	}
	return append(names, fixtures.Small...)
}

// replay feeds a real transcript to the engine line by line, as Claude Code
// writes it, and stores observations where the hooks would: a checkpoint
// at each pressure level crossed (pressure-L1..L3, the default levels), one
// just before each compaction (precompact-auto or -manual) with the
// compaction and its summary after it, and one at the end (session-end).
// Checkpoints go into the store first, so they have IDs, as in the hooks.
// It returns how many checkpoints it stored.
func replay(t testing.TB, db *sqlite.DB, st *Store, src, work string) int {
	t.Helper()
	ctx := context.Background()
	name := filepath.Base(src)
	dst := filepath.Join(work, name)
	// Subagent transcripts sit beside the session's, where the engine
	// looks for them; they are copied whole.
	sub := filepath.Join(filepath.Dir(src), name[:len(name)-len(".jsonl")], "subagents")
	if entries, err := os.ReadDir(sub); err == nil {
		to := filepath.Join(work, name[:len(name)-len(".jsonl")], "subagents")
		if err := os.MkdirAll(to, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			data, err := os.ReadFile(filepath.Join(sub, e.Name()))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(to, e.Name()), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(dst)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()

	s := transcript.New(dst)
	var p transcript.Parser
	update := func() {
		if _, err := s.Update(&p); err != nil {
			t.Fatal(err)
		}
	}
	stored := 0
	take := func(trigger string) {
		if s.Offset == 0 || len(s.Prompts) == 0 && s.NumTurns() == 0 {
			return
		}
		reading, _ := meter.Measure(s, meter.Settings{})
		c := checkpoint.Build(s, checkpoint.Input{Project: s.CWD, Trigger: trigger, Now: s.LastTime, Reading: reading,
			Redact: redact.String})
		body, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		id, err := db.AddCheckpoint(ctx, sqlite.Checkpoint{Project: c.Project, SessionID: c.SessionID, CreatedAt: c.CreatedAt,
			Trigger: c.Trigger, ContextTokens: c.Context.Tokens, Task: c.Summary(), Body: body})
		if err != nil {
			t.Fatal(err)
		}
		c.ID = id
		if _, err := st.Add(ctx, FromCheckpoint(c, s)...); err != nil {
			t.Fatal(err)
		}
		stored++
	}
	pc := pressure.Default()
	level := 0
	compactions := 0
	// The whole summary of each compaction, as PostCompact hands it to
	// the hooks (the session keeps only an excerpt).
	var summaries []string
	r := bufio.NewReaderSize(in, 1<<20)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			if bytes.Contains(line, []byte(`"subtype":"compact_boundary"`)) {
				update()
				trigger := "precompact-auto"
				if bytes.Contains(line, []byte(`"trigger":"manual"`)) {
					trigger = "precompact-manual"
				}
				take(trigger)
			}
			if bytes.Contains(line, []byte(`"isCompactSummary":true`)) {
				summaries = append(summaries, compactSummary(t, line))
			}
			if _, err := out.Write(line); err != nil {
				t.Fatal(err)
			}
			update()
			if n := len(s.Compactions); n > compactions {
				compactions, level = n, 0 // the levels rearm after a compaction
			}
			reading, _ := meter.Measure(s, meter.Settings{})
			if l := pc.Level(reading); l > level {
				level = l
				take("pressure-" + pressure.Name(l))
			}
		}
		if err != nil {
			break
		}
	}
	update()
	take("session-end")
	for i, c := range s.Compactions {
		if i < len(summaries) && summaries[i] != "" {
			c.Summary = redact.String(summaries[i])
		}
		if _, err := st.Add(ctx, FromCompaction(s.CWD, s.SessionID, c)...); err != nil {
			t.Fatal(err)
		}
	}
	return stored
}

// compactSummary is the text of a compaction's summary line.
func compactSummary(t testing.TB, line []byte) string {
	t.Helper()
	var m struct {
		Message struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if err := json.Unmarshal(line, &m); err != nil {
		t.Fatal(err)
	}
	var s string
	if json.Unmarshal(m.Message.Content, &s) == nil {
		return s
	}
	var bs []struct {
		Text string `json:"text"`
	}
	if err := json.Unmarshal(m.Message.Content, &bs); err != nil {
		t.Fatal(err)
	}
	for _, b := range bs {
		s += b.Text
	}
	return s
}

// fixtureMemory replays every fixture transcript into a new database.
func fixtureMemory(t testing.TB) (*Store, string) {
	return fixtureMemoryIn(t, filepath.Join(t.TempDir(), "cairn.db"))
}

// fixtureMemoryIn replays every fixture transcript into the database at
// path.
func fixtureMemoryIn(t testing.TB, path string) (*Store, string) {
	t.Helper()
	fx, err := fixtures.Extract(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	db, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	st := New(db)
	work := t.TempDir()
	for _, name := range fixtureNames() {
		replay(t, db, st, filepath.Join(fx, name+".jsonl"), work)
	}
	return st, fx
}

// The real sessions replayed as the hooks would see them: a checkpoint
// before each compaction, the compaction with its summary, fixes found in
// real output. (MEMORY_DUMP=file writes every observation as JSON lines.)
func TestReplayFixtures(t *testing.T) {
	st, _ := fixtureMemory(t)
	ctx := context.Background()
	hits, err := st.db.SearchObservations(ctx, sqlite.ObservationQuery{Limit: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]int64, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	all, err := st.Get(ctx, ids...)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	precompact := map[string]bool{}
	lazyFix := false
	compactions, pieces := 0, map[string]int{}
	for _, o := range all {
		counts[o.Kind]++
		switch o.Kind {
		case KindCompaction:
			if !strings.HasPrefix(o.Title, "Compaction (") || strings.Contains(o.Title, " analysis: ") {
				pieces[o.SessionID]++ // an item of the summary
				continue
			}
			compactions++
			if !strings.Contains(o.Body, "Primary Request") {
				t.Errorf("compaction of %s without what its summary says the session was for: %q", o.SessionID, o.Body)
			}
		case KindCheckpoint:
			if strings.Contains(o.Title, "(precompact-") {
				precompact[o.SessionID] = true
				if !strings.HasPrefix(o.Title, "Checkpoint L") {
					t.Errorf("checkpoint title %q", o.Title)
				}
			}
		case KindErrorFix:
			if strings.Contains(o.Body, "lazy_html") && slices.Contains(o.Files, "mix.exs") && strings.Contains(o.Body, "succeeded") {
				lazyFix = true
			}
		}
	}
	t.Logf("%d observations: %v", len(all), counts)
	if compactions != len(fixtures.Compactions) {
		t.Errorf("%d compactions, want %d", compactions, len(fixtures.Compactions))
	}
	for _, c := range fixtures.Compactions {
		// A whole summary has a few dozen items: files, errors, the
		// user's messages, the analysis's steps.
		if pieces[c.Session] < 20 {
			t.Errorf("%s: %d items of its compaction's summary", c.Session, pieces[c.Session])
		}
		if !precompact[c.Session] {
			t.Errorf("%s: no checkpoint before its compaction", c.Session)
		}
	}
	if !lazyFix {
		t.Error("the lazy_html failure of 258c7280 is not recorded as fixed by mix.exs")
	}
	if path := os.Getenv("MEMORY_DUMP"); path != "" {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		for _, o := range all {
			enc.Encode(o)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}
