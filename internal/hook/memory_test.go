package hook

import (
	"context"
	"strings"
	"testing"

	"github.com/cairn-agent/cairn/internal/memory"
	"github.com/cairn-agent/cairn/internal/sqlite"
)

// The hooks that store a checkpoint store what memory derives from it,
// PostCompact keeps the compaction with its summary, and the next session
// of the project starts with an index of them; a resumed or compacted one
// does not get it again.
func TestMemoryThroughTheHooks(t *testing.T) {
	w := newWorld(t)
	secret := "ghp_" + strings.Repeat("k3Y9", 9)
	a := w.session("sess-a")
	a.prompt("Implement rate limiting for API-9. The staging token is " + secret + " <private>the vault pin is 4471</private>")
	a.reply("Decided to use a token bucket, because bursts must pass.", 150000)
	w.run("PreCompact", a.payload("PreCompact", map[string]any{"trigger": "auto"}))
	a.boundary("auto", 150500, 9000)
	w.run("PostCompact", a.payload("PostCompact", map[string]any{"trigger": "auto",
		"compact_summary": "<summary>Primary request: rate limiting for API-9 (token bucket).</summary>"}))

	db, err := sqlite.Open(context.Background(), w.dbPath())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	m := memory.New(db)
	for _, q := range []struct{ text, kind string }{
		{"token bucket", memory.KindDecision},
		{"rate limiting API-9 summary", memory.KindCompaction},
	} {
		hits, err := m.Search(context.Background(), memory.Query{Text: q.text, Kinds: []string{q.kind}})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) == 0 {
			t.Errorf("no %s observation found for %q", q.kind, q.text)
		}
	}
	all, err := m.Search(context.Background(), memory.Query{Text: "API-9", Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	ids := []int64{}
	for _, h := range all {
		ids = append(ids, h.ID)
	}
	obs, err := m.Get(context.Background(), ids...)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range obs {
		if text := o.Title + o.Body; strings.Contains(text, secret) || strings.Contains(text, "4471") {
			t.Errorf("observation %d keeps a secret or private text: %s", o.ID, text)
		}
	}

	b := w.session("sess-b")
	b.prompt("hi")
	text := restored(t, w.run("SessionStart", b.payload("SessionStart", map[string]any{"source": "startup"})))
	if !strings.Contains(text, "Memory of this project") || !strings.Contains(text, "API-9") {
		t.Errorf("no index of the project's memory at start-up:\n%s", text)
	}
	if strings.Contains(text, "sess-b") {
		t.Errorf("the index lists the starting session itself:\n%s", text)
	}
	if out := w.run("SessionStart", b.payload("SessionStart", map[string]any{"source": "resume"})); strings.Contains(out, "Memory of this project") {
		t.Errorf("the index again on resume: %s", out)
	}
}
