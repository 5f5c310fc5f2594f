package continuity

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/config"
	"github.com/cairn-agent/cairn/internal/sqlite"
)

// gcFixture is a state directory with sessions of several ages and a
// database with their checkpoints.
type gcFixture struct {
	f   *fixture
	now time.Time
	ids map[string][]int64 // checkpoints by session, oldest first
}

const day = 24 * time.Hour

func newGCFixture(t *testing.T) *gcFixture {
	f := newFixture(t)
	g := &gcFixture{f: f, now: f.k.Now(), ids: map[string][]int64{}}
	ctx := context.Background()
	dir := filepath.Join(f.k.State.Dir, "sessions")
	os.MkdirAll(dir, 0o700)
	write := func(name string, age time.Duration, data string) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
		at := g.now.Add(-age)
		os.Chtimes(p, at, at)
	}
	db, err := f.k.DB(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Checkpoints: "old" has 12, 200 to 189 days old; "live" 3, from
	// 100 days to 1 day old; "held" one, 300 days old.
	add := func(session string, age time.Duration) int64 {
		id, err := db.AddCheckpoint(ctx, sqlite.Checkpoint{Project: f.project, SessionID: session, CreatedAt: g.now.Add(-age), Body: make([]byte, 1000)})
		if err != nil {
			t.Fatal(err)
		}
		g.ids[session] = append(g.ids[session], id)
		return id
	}
	for i := range 12 {
		add("old", time.Duration(200-i)*day)
	}
	add("live", 100*day)
	add("live", 99*day)
	add("live", day)
	add("restoring", 300*day)
	add("restoring", 299*day)
	// The state: "old" untouched for 120 days; "live" touched an hour ago
	// (its body is older); "held" 200 days old but its announcement's
	// checkpoint is not stored; "restoring" 95 days old, its
	// announcement naming its first checkpoint.
	write("old-aaaa.head", 120*day, "h")
	write("old-aaaa.body", 121*day, "bbbbbbbbbb")
	write("old-aaaa.restored", 120*day, "r")
	write("live-bbbb.head", time.Hour, "h")
	write("live-bbbb.body", 100*day, "bbbbbbbbbb")
	write("held-cccc.head", 200*day, "h")
	write("held-cccc.pending", 200*day, `{"key":"k","checkpoint":{"id":0}}`)
	write("restoring-dddd.pending", 95*day, fmt.Sprintf(`{"key":"k","checkpoint":{"id":%d}}`, g.ids["restoring"][0]))
	write(".old-aaaa.head.tmp1", 300*day, "t") // Tidy's
	write("old-session.pressure", 100*day, "L2")
	// Tracker records: one sent 40 days ago, one yesterday.
	done := filepath.Join(f.k.State.Dir, "tracker", "done")
	os.MkdirAll(done, 0o700)
	for name, age := range map[string]time.Duration{"a": 40 * day, "b": day} {
		p := filepath.Join(done, name)
		os.WriteFile(p, []byte("2026"), 0o600)
		os.Chtimes(p, g.now.Add(-age), g.now.Add(-age))
	}
	if _, err := db.AddObservations(ctx, []sqlite.Observation{{Project: f.project, SessionID: "old", CreatedAt: g.now.Add(-300 * day), Kind: "note", Title: "t", Body: "kept"}}); err != nil {
		t.Fatal(err)
	}
	return g
}

func (g *gcFixture) files() []string {
	ents, _ := os.ReadDir(filepath.Join(g.f.k.State.Dir, "sessions"))
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func (g *gcFixture) left(session string) []int64 {
	db, _ := g.f.k.DB(context.Background())
	cs, err := db.Checkpoints(context.Background(), g.f.project, 0)
	if err != nil {
		g.f.t.Fatal(err)
	}
	var ids []int64
	for _, c := range cs {
		if c.SessionID == session {
			ids = append(ids, c.ID)
		}
	}
	slices.Sort(ids)
	return ids
}

func TestGC(t *testing.T) {
	ctx := context.Background()
	g := newGCFixture(t)
	r := config.Retention{OlderThan: 90 * day, Keep: 2, Tracker: 30 * day}
	before := g.files()
	dry, err := g.f.k.GC(ctx, r, true)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(g.files(), before) || len(g.left("old")) != 12 {
		t.Fatalf("a dry run removed something: %v", g.files())
	}
	got, err := g.f.k.GC(ctx, r, false)
	if err != nil {
		t.Fatal(err)
	}
	if got != dry {
		t.Errorf("removed %+v, the dry run said %+v", got, dry)
	}
	// Sessions "old" (3 files) and its marker went; "held" and "live"
	// stay whatever their files' age, "restoring" (95 days) went but its
	// checkpoint is named by nothing now.
	want := []string{".old-aaaa.head.tmp1", "held-cccc.head", "held-cccc.pending", "live-bbbb.body", "live-bbbb.head"}
	if !slices.Equal(g.files(), want) {
		t.Errorf("files left %v, want %v", g.files(), want)
	}
	if got.States != 3 || got.StateBytes != 1+10+1+2+int64(len(fmt.Sprintf(`{"key":"k","checkpoint":{"id":%d}}`, g.ids["restoring"][0]))) {
		t.Errorf("states %d, %d bytes", got.States, got.StateBytes)
	}
	for session, want := range map[string][]int64{
		"old":       g.ids["old"][10:],  // the latest 2
		"live":      g.ids["live"][1:],  // the 100-day one beyond the latest 2
		"restoring": g.ids["restoring"], // both within the latest 2
	} {
		if got := g.left(session); !slices.Equal(got, want) {
			t.Errorf("%s: checkpoints left %v, want %v", session, got, want)
		}
	}
	if got.Checkpoints != 11 || got.Pruned.Bytes != 11*1000 {
		t.Errorf("checkpoints %d (%d bytes), want 11", got.Checkpoints, got.Pruned.Bytes)
	}
	if got.Tracker != 1 {
		t.Errorf("tracker records %d, want 1", got.Tracker)
	}
	sp, err := g.f.k.Space(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if sp.DB.Observations != 1 || sp.DB.Checkpoints != 6 || sp.Sessions != 2 || sp.State == 0 {
		t.Errorf("space %+v", sp)
	}
}

// A pending restore's checkpoint stays, even when older than the latest
// ones kept.
func TestGCKeepsAPendingRestore(t *testing.T) {
	g := newGCFixture(t)
	os.Chtimes(filepath.Join(g.f.k.State.Dir, "sessions", "restoring-dddd.pending"), g.now.Add(-time.Hour), g.now.Add(-time.Hour))
	if _, err := g.f.k.GC(context.Background(), config.Retention{OlderThan: 90 * day, Keep: 1}, false); err != nil {
		t.Fatal(err)
	}
	if got, want := g.left("restoring"), g.ids["restoring"]; !slices.Equal(got, want) {
		t.Errorf("checkpoints left %v, want %v (the restore's and the latest)", got, want)
	}
}

// The size limit takes more state, least recently touched first but never
// a session touched within a day, then checkpoints, oldest first.
func TestGCMaxSize(t *testing.T) {
	g := newGCFixture(t)
	got, err := g.f.k.GC(context.Background(), config.Retention{Keep: 1, MaxSize: 1}, false)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{".old-aaaa.head.tmp1", "held-cccc.head", "held-cccc.pending", "live-bbbb.body", "live-bbbb.head"}
	if !slices.Equal(g.files(), want) {
		t.Errorf("files left %v, want %v", g.files(), want)
	}
	if got.Checkpoints != 14 {
		t.Errorf("removed %d checkpoints, want all but the latest of each session (14)", got.Checkpoints)
	}
}

func TestAutoGCDaily(t *testing.T) {
	g := newGCFixture(t)
	r := config.DefaultRetention()
	ctx := context.Background()
	if _, ran, err := g.f.k.AutoGC(ctx, r); !ran || err != nil {
		t.Fatalf("first: ran %v, %v", ran, err)
	}
	if _, ran, _ := g.f.k.AutoGC(ctx, r); ran {
		t.Errorf("ran twice within a day")
	}
	later := g.now.Add(25 * time.Hour)
	g.f.k.Now = func() time.Time { return later }
	if _, ran, _ := g.f.k.AutoGC(ctx, r); !ran {
		t.Errorf("did not run a day later")
	}
}
