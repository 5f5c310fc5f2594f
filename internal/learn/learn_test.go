package learn

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/golden"

	"github.com/cairn-agent/cairn/internal/statusline"
	"github.com/google/go-cmp/cmp"
)

var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

const progress = `# Progress

Notes on the work, newest last.

## 2026-02-28 09:10 — implement: Retry the fetch on 503
The API returns 503 under load; one retry with jitter is enough.

## [debug] Flaky test was a shared temp dir
` + "```" + `
## not a heading: inside a fence
` + "```" + `
t.TempDir per test fixed it.

## Decided to keep SQLite
- Phase: design
WAL mode covers the concurrency we need.

## Decided to keep SQLite
A second entry under the same heading.
`

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestReadFlow(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, Progress), progress)
	got, err := ReadFlow(filepath.Join(dir, Progress))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ heading, title, phase, bodyStart string }{
		{"2026-02-28 09:10 — implement: Retry the fetch on 503", "Retry the fetch on 503", "implement", "The API returns 503"},
		{"[debug] Flaky test was a shared temp dir", "Flaky test was a shared temp dir", "debug", "```\n## not a heading"},
		{"Decided to keep SQLite", "Decided to keep SQLite", "design", "- Phase: design"},
		{"Decided to keep SQLite", "Decided to keep SQLite", "", "A second entry"},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d entries, want %d: %+v", len(got), len(want), got)
	}
	ids := map[string]bool{}
	for i, w := range want {
		g := got[i]
		if g.Heading != w.heading || g.Title != w.title || g.Phase != w.phase || !strings.HasPrefix(g.Body, w.bodyStart) {
			t.Errorf("entry %d = %+v, want %+v", i, g, w)
		}
		if len(g.ID) != 8 || ids[g.ID] {
			t.Errorf("entry %d: id %q is not 8 hex digits or repeats", i, g.ID)
		}
		ids[g.ID] = true
	}
	// Ids are stable across reads.
	again, _ := ReadFlow(filepath.Join(dir, Progress))
	if again[0].ID != got[0].ID {
		t.Error("ids change between reads")
	}
}

func TestReadFlowTolerant(t *testing.T) {
	dir := t.TempDir()
	if got, err := ReadFlow(filepath.Join(dir, "missing.md")); err != nil || got != nil {
		t.Errorf("missing file: %v, %v; want nothing", got, err)
	}
	for name, text := range map[string]string{
		"empty":        "",
		"no headings":  "just prose\n# a title\n### deeper\n",
		"no newline":   "## only heading",
		"binary":       "\x00\xff## x\n",
		"crlf":         "## a\r\nbody\r\n## b\r\n",
		"open fence":   "## a\n```\n## b\n",
		"heading only": "##\n## \n",
	} {
		t.Run(name, func(t *testing.T) {
			es := entries("progress.md", text)
			for _, e := range es {
				if e.ID == "" {
					t.Errorf("entry without id: %+v", e)
				}
			}
		})
	}
	if es := entries("p.md", "## a\r\nbody\r\n## b\r\n"); len(es) != 2 || es[0].Heading != "a" {
		t.Errorf("crlf entries = %+v", es)
	}
	if es := entries("p.md", "## a\n```\n## b\n"); len(es) != 1 {
		t.Errorf("an unclosed fence hides the headings after it; got %+v", es)
	}
}

func TestPromoteAndUnpromoted(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, Progress), progress)
	write(t, filepath.Join(dir, TaskPlan), "# Plan\n\n## Phase 1\n- [ ] do it\n")
	un, err := Unpromoted(dir, dir)
	if err != nil || len(un) != 4 {
		t.Fatalf("Unpromoted = %d entries, %v; want the 4 of progress.md (not task_plan.md)", len(un), err)
	}
	var paths []string
	for _, e := range []Entry{un[0], un[2], un[3]} {
		p, err := Promote(dir, e, now)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, filepath.Base(p))
	}
	if diff := cmp.Diff([]string{"learnings-implement.md", "learnings-design.md", "learnings-general.md"}, paths); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	golden.Check(t, filepath.Join("testdata", "learnings-implement.md.golden"), read(t, filepath.Join(dir, "learnings-implement.md")))
	golden.Check(t, filepath.Join("testdata", "learnings-design.md.golden"), read(t, filepath.Join(dir, "learnings-design.md")))

	left, _ := Unpromoted(dir, dir)
	if len(left) != 1 || left[0].ID != un[1].ID {
		t.Errorf("after promoting 1, 3 and 4, Unpromoted = %+v; want entry 2", left)
	}
	// Promoting again writes nothing twice.
	before := read(t, filepath.Join(dir, "learnings-implement.md"))
	if _, err := Promote(dir, un[0], now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if read(t, filepath.Join(dir, "learnings-implement.md")) != before {
		t.Error("a second Promote of the same entry changed the file")
	}
	// Trimming progress.md does not make promoted entries unpromoted, and
	// Stock entries carry their metadata.
	stock, _ := ReadStock(dir)
	for _, s := range stock {
		if s.Meta.Confirmed != 1 || !s.Meta.LastConfirmed.Equal(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)) || !strings.HasPrefix(s.Meta.Source, "progress.md#") {
			t.Errorf("stock entry %q: meta %+v", s.Heading, s.Meta)
		}
	}
}

func TestPromoteAppendsToUsersFile(t *testing.T) {
	dir := t.TempDir()
	own := "# My implement learnings\n\n## Old learning\nkept as written\n<!-- a note -->" // no final newline
	write(t, filepath.Join(dir, "learnings-implement.md"), own)
	es := entries(Progress, progress)
	if _, err := Promote(dir, es[0], now); err != nil {
		t.Fatal(err)
	}
	got := read(t, filepath.Join(dir, "learnings-implement.md"))
	if !strings.HasPrefix(got, own+"\n\n## Retry the fetch on 503\n") {
		t.Errorf("the user's text was not kept as it was:\n%s", got)
	}
}

func TestConfirm(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "learnings-debug.md")
	write(t, file, `# Debug learnings

## Check the temp dir first
- **Confirmed**: 2 times | Last confirmed: 2026-01-05 | Phase: /debug | Seen-in: ci
Shared temp dirs make tests flaky.

## No metadata yet
An older learning.
`)
	stock, _ := ReadStock(dir)
	if len(stock) != 2 {
		t.Fatalf("stock = %+v", stock)
	}
	m := stock[0].Meta
	if m.Confirmed != 2 || m.Phase != "debug" || m.LastConfirmed.Format(dateLayout) != "2026-01-05" || len(m.Extra) != 1 {
		t.Errorf("tolerant meta = %+v", m)
	}
	if err := Confirm(dir, stock[0].ID, now); err != nil {
		t.Fatal(err)
	}
	if err := Confirm(dir, stock[1].ID[:4], now); err != nil {
		t.Fatal(err)
	}
	want := `# Debug learnings

## Check the temp dir first
- Confirmed: 3 | Last confirmed: 2026-03-01 | Phase: debug | Seen-in: ci
Shared temp dirs make tests flaky.

## No metadata yet
- Confirmed: 1 | Last confirmed: 2026-03-01
An older learning.
`
	if diff := cmp.Diff(want, read(t, file)); diff != "" {
		t.Errorf("after Confirm (-want +got):\n%s", diff)
	}
	if err := Confirm(dir, "zzzzzzzz", now); err == nil {
		t.Error("Confirm of an unknown id succeeded")
	}
	if err := Confirm(dir, "", now); err == nil {
		t.Error("Confirm of an empty id succeeded")
	}
}

func TestSummary(t *testing.T) {
	dir := t.TempDir()
	if s := Summary(dir); s != (ConfidenceSummary{}) {
		t.Errorf("empty = %+v", s)
	}
	write(t, filepath.Join(dir, "learnings-a.md"), "## a\n- Confirmed: 1\n## b\n- Confirmed: 2\n## c\nno meta\n")
	write(t, filepath.Join(dir, "learnings-b.md"), "## d\n- Confirmed: 5 | Last confirmed: 2026-02-01\n")
	write(t, filepath.Join(dir, "notes.md"), "## not stock\n- Confirmed: 9\n")
	got := Summary(dir)
	want := ConfidenceSummary{Entries: 4, AvgConfirmations: 2, Unverified: 2, Confirmed: 1, Established: 1}
	if got != want {
		t.Errorf("Summary = %+v, want %+v", got, want)
	}
}

func TestTrimProgress(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, Progress)
	var b strings.Builder
	b.WriteString("# Progress\n\nheader text\n\n")
	for i := 1; i <= 13; i++ {
		b.WriteString("## entry " + string(rune('a'+i-1)) + "\nbody\n\n")
	}
	write(t, path, b.String())
	os.Chmod(path, 0o600)
	if err := TrimProgress(path, DefaultKeep); err != nil {
		t.Fatal(err)
	}
	got := read(t, path)
	es := entries(Progress, got)
	if !strings.HasPrefix(got, "# Progress\n\nheader text\n\n## entry d\n") || len(es) != 10 || es[9].Heading != "entry m" {
		t.Errorf("trimmed:\n%s", got)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the file's own 0600", fi.Mode().Perm())
	}
	// Nothing to trim leaves the file alone; a missing file is no error.
	if err := TrimProgress(path, DefaultKeep); err != nil || read(t, path) != got {
		t.Errorf("second trim changed the file or failed: %v", err)
	}
	if err := TrimProgress(filepath.Join(dir, "none.md"), DefaultKeep); err != nil {
		t.Error(err)
	}
	noTemps(t, dir)
}

// noTemps checks that the atomic writes left no temporary files.
func noTemps(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".") && d.Name() != "." {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
}

func TestAtomicWriteFailsCleanly(t *testing.T) {
	dir := t.TempDir()
	// A directory where the marker should be: the rename fails, and the
	// temporary file goes.
	if err := os.MkdirAll(filepath.Join(dir, CompoundFile, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := RecordCompound(dir, now, 1); err == nil {
		t.Error("RecordCompound over a directory succeeded")
	}
	noTemps(t, dir)
}

func TestMarkersGolden(t *testing.T) {
	flow := t.TempDir()
	ctx := ContextDir(flow)
	write(t, filepath.Join(flow, Progress), progress)
	write(t, filepath.Join(flow, "learnings-debug.md"), "## a\n- Confirmed: 1\n## b\n- Confirmed: 4\n")
	if err := RecordCompound(ctx, now.Add(-2*time.Hour), 2); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "compound-last-run.json.golden"), read(t, filepath.Join(ctx, CompoundFile)))
	if at, ok := LastCompound(ctx); !ok || !at.Equal(now.Add(-2*time.Hour)) {
		t.Errorf("LastCompound = %v, %v", at, ok)
	}
	in := Gather(ctx, flow, flow, "auto", now)
	if !in.CompoundRan {
		t.Error("compound ran and no compaction before: compound_ran should be true")
	}
	in.CompoundRan = false // the golden shows the branch that says more
	if err := RecordCompact(ctx, in); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "last-compact.json.golden"), read(t, filepath.Join(ctx, CompactFile)))
	golden.Check(t, filepath.Join("testdata", "guidance-not-run.txt"), Guidance(ctx))
	in.CompoundRan = true
	RecordCompact(ctx, in)
	golden.Check(t, filepath.Join("testdata", "guidance-ran.txt"), Guidance(ctx))
	// Issue 9: with nothing unpromoted, no note to run /compound.
	in.CompoundRan, in.UnpromotedEntries = false, 0
	RecordCompact(ctx, in)
	if g := Guidance(ctx); g != "" {
		t.Errorf("guidance with nothing to promote: %q", g)
	}
	noTemps(t, flow)
}

// Seed 001: /compound counts as run when it ran after the last compaction.
func TestGatherCompoundRan(t *testing.T) {
	tests := []struct {
		name            string
		compound, prior time.Duration // before now; 0: none
		want            bool
	}{
		{"never ran", 0, 0, false},
		{"never ran, earlier compaction", 0, time.Hour, false},
		{"ran, no compaction before", time.Hour, 0, true},
		{"ran after the last compaction", time.Hour, 2 * time.Hour, true},
		{"ran before the last compaction", 2 * time.Hour, time.Hour, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			flow := t.TempDir()
			ctx := ContextDir(flow)
			if tt.compound > 0 {
				RecordCompound(ctx, now.Add(-tt.compound), 1)
			}
			if tt.prior > 0 {
				RecordCompact(ctx, CompactInfo{Timestamp: now.Add(-tt.prior), Trigger: "manual"})
			}
			if got := Gather(ctx, flow, flow, "auto", now).CompoundRan; got != tt.want {
				t.Errorf("compound_ran = %v, want %v", got, tt.want)
			}
		})
	}
}

// Seed 001 checklist: a marker that cannot be read makes its step skip.
func TestMarkersDegrade(t *testing.T) {
	for name, content := range map[string]string{
		"missing":   "",
		"garbage":   "{not json",
		"wrong":     `{"timestamp": 5}`,
		"no time":   `{"trigger": "auto"}`,
		"directory": "dir",
	} {
		t.Run(name, func(t *testing.T) {
			flow := t.TempDir()
			ctx := ContextDir(flow)
			os.MkdirAll(ctx, 0o755)
			for _, f := range []string{CompactFile, CompoundFile} {
				switch content {
				case "":
				case "dir":
					os.MkdirAll(filepath.Join(ctx, f), 0o755)
				default:
					write(t, filepath.Join(ctx, f), content)
				}
			}
			if g := Guidance(ctx); g != "" {
				t.Errorf("Guidance = %q, want quiet", g)
			}
			if _, ok := LastCompound(ctx); ok {
				t.Error("LastCompound read a broken marker")
			}
			write(t, filepath.Join(flow, Progress), progress)
			in := Gather(ctx, flow, flow, "manual", now)
			if in.CompoundRan || in.UnpromotedEntries != 4 || len(in.RecentHeadings) != 3 {
				t.Errorf("Gather = %+v", in)
			}
		})
	}
	// Unreadable Flow and Stock: Stop says nothing, Summary is zero.
	if s := StopSuggestion("/nonexistent/flow", "/nonexistent/stock"); s != "" {
		t.Errorf("StopSuggestion = %q", s)
	}
}

func TestStopSuggestion(t *testing.T) {
	flow := t.TempDir()
	if s := StopSuggestion(flow, flow); s != "" {
		t.Errorf("no progress.md: %q", s)
	}
	write(t, filepath.Join(flow, Progress), progress)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(filepath.Join(flow, Progress), old, old)
	s := StopSuggestion(flow, flow)
	golden.Check(t, filepath.Join("testdata", "stop.txt"), s)
	// Advisory text only: nothing that reads as a block decision.
	if strings.Contains(strings.ToLower(s), "block") || !strings.Contains(s, "/compound") {
		t.Errorf("suggestion %q", s)
	}
	// The user reviewed after progress.md last changed: quiet.
	RecordCompound(ContextDir(flow), time.Now(), 0)
	if s := StopSuggestion(flow, flow); s != "" {
		t.Errorf("after a compound run: %q", s)
	}
	// Everything promoted: quiet, whatever the marker says.
	os.Remove(filepath.Join(ContextDir(flow), CompoundFile))
	for _, e := range entries(Progress, progress) {
		Promote(flow, e, now)
	}
	if s := StopSuggestion(flow, flow); s != "" {
		t.Errorf("all promoted: %q", s)
	}
}

func TestResetPressure(t *testing.T) {
	state := t.TempDir()
	file := filepath.Join(state, "sessions", "abc-123.pressure")
	write(t, file, "82 L2 threshold\n")
	if _, ok := statusline.ReadPressure(state, "abc-123"); !ok {
		t.Fatal("the test marker does not read as statusline's")
	}
	if err := ResetPressure(state, "abc-123"); err != nil {
		t.Fatal(err)
	}
	if _, ok := statusline.ReadPressure(state, "abc-123"); ok {
		t.Error("marker still there")
	}
	for _, s := range []string{"abc-123", "", "../x", ".hidden"} {
		if err := ResetPressure(state, s); err != nil {
			t.Errorf("ResetPressure(%q) = %v", s, err)
		}
	}
}

func FuzzEntries(f *testing.F) {
	f.Add(progress)
	f.Add("## a\n- Confirmed: 3 | Last confirmed: 2026-01-01 | Phase: x | Source: progress.md#00\n")
	f.Add("```\n## x\n```\n## y\n")
	f.Fuzz(func(t *testing.T, text string) {
		es := entries(Progress, text)
		header, secs := split(text)
		if len(es) != len(secs) {
			t.Fatalf("%d entries, %d sections", len(es), len(secs))
		}
		// Splitting loses nothing but missing final newlines.
		var b strings.Builder
		b.WriteString(header)
		for _, s := range secs {
			b.WriteString(strings.Join(s.lines, ""))
		}
		if strings.ReplaceAll(b.String(), "\n", "") != strings.ReplaceAll(text, "\n", "") {
			t.Fatalf("split lost text")
		}
	})
}
