package sqlite

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func addObs(t *testing.T, db *DB, obs ...Observation) []int64 {
	t.Helper()
	ids, err := db.AddObservations(context.Background(), obs)
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

func TestAddObservationsOnce(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	d := Observation{Project: "/p", SessionID: "s1", Kind: "decision", Title: "Use pnpm", Body: "Use pnpm, not npm: the lock file is pnpm's."}
	ids := addObs(t, db, d, d)
	if ids[0] == 0 || ids[1] != 0 {
		t.Fatalf("ids = %v, want the first added and the second left out", ids)
	}
	// The same decision from a later checkpoint, another session: kept once.
	later := d
	later.SessionID, later.CreatedAt = "s2", t0.Add(time.Hour)
	if ids := addObs(t, db, later); ids[0] != 0 {
		t.Errorf("the same content was added again: %v", ids)
	}
	// Another project, or another kind, is another observation.
	other := d
	other.Project = "/q"
	note := d
	note.Kind = "note"
	if ids := addObs(t, db, other, note); ids[0] == 0 || ids[1] == 0 {
		t.Errorf("ids = %v, want both added", ids)
	}
	// A key decides sameness when given.
	k1 := Observation{Project: "/p", Kind: "checkpoint", Title: "Checkpoint L1", Body: "a", Key: "checkpoint 7"}
	k2 := Observation{Project: "/p", Kind: "checkpoint", Title: "Checkpoint L1", Body: "b", Key: "checkpoint 7"}
	if ids := addObs(t, db, k1, k2); ids[0] == 0 || ids[1] != 0 {
		t.Errorf("ids = %v, want the second left out by its key", ids)
	}
	got, err := db.Observations(ctx, []int64{ids[0]})
	if err != nil || len(got) != 1 {
		t.Fatalf("get: %v %v", got, err)
	}
	if got[0].CreatedAt != t0.Truncate(time.Millisecond) || got[0].Body != d.Body {
		t.Errorf("got %+v", got[0])
	}
}

func TestSearchObservations(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	at := func(h int) time.Time { return t0.Add(time.Duration(h) * time.Hour) }
	ids := addObs(t, db,
		Observation{Project: "/p", SessionID: "s1", CreatedAt: at(0), Kind: "error_fix", Title: "mix test failed: lazy_html missing",
			Body: "Phoenix LiveView requires lazy_html as a test dependency. Fixed by adding it to mix.exs.", Files: []string{"mix.exs"}},
		Observation{Project: "/p", SessionID: "s1", CreatedAt: at(1), Kind: "decision", Title: "Keep tokens in ETS",
			Body: "Use an ETS-backed GenServer for one-time review tokens, because they expire.", Files: []string{"lib/spotter/services/review_token_store.ex"}},
		Observation{Project: "/p", SessionID: "s2", CreatedAt: at(2), Kind: "note", Title: "Tests",
			Body: "Run the whole test suite with mix test before pushing."},
		Observation{Project: "/q", SessionID: "s3", CreatedAt: at(3), Kind: "decision", Title: "Tests in another project",
			Body: "The test suite runs with go test ./..."},
	)
	titles := func(hs []ObservationHit) []string {
		var out []string
		for _, h := range hs {
			out = append(out, h.Title)
		}
		return out
	}
	for _, tc := range []struct {
		name string
		q    ObservationQuery
		want []string
	}{
		{"stemmed", ObservationQuery{Match: "fixing"}, []string{"mix test failed: lazy_html missing"}},
		{"ranked", ObservationQuery{Match: "test OR suite"}, []string{"Tests", "Tests in another project", "mix test failed: lazy_html missing"}},
		{"project", ObservationQuery{Match: "test OR suite", Project: "/p"}, []string{"Tests", "mix test failed: lazy_html missing"}},
		{"session", ObservationQuery{Match: "test", SessionID: "s1"}, []string{"mix test failed: lazy_html missing"}},
		{"kinds", ObservationQuery{Match: "suite OR tokens", Kinds: []string{"decision"}}, []string{"Keep tokens in ETS", "Tests in another project"}},
		{"file exact", ObservationQuery{Files: []string{"mix.exs"}}, []string{"mix test failed: lazy_html missing"}},
		{"file suffix", ObservationQuery{Files: []string{"review_token_store.ex"}}, []string{"Keep tokens in ETS"}},
		{"file part is not a name", ObservationQuery{Files: []string{"token_store.ex"}}, nil},
		{"since", ObservationQuery{Since: at(2)}, []string{"Tests in another project", "Tests"}},
		{"until", ObservationQuery{Until: at(1)}, []string{"mix test failed: lazy_html missing"}},
		{"limit", ObservationQuery{Limit: 1}, []string{"Tests in another project"}},
		{"no match", ObservationQuery{Match: "kubernetes"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hits, err := db.SearchObservations(ctx, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			if got := titles(hits); !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			for i := 1; i < len(hits); i++ {
				if tc.q.Match != "" && hits[i].Score > hits[i-1].Score {
					t.Errorf("hit %d scores %g above hit %d's %g", i, hits[i].Score, i-1, hits[i-1].Score)
				}
			}
		})
	}
	hits, err := db.SearchObservations(ctx, ObservationQuery{Match: "lazy_html"})
	if err != nil || len(hits) != 1 {
		t.Fatalf("%v %v", hits, err)
	}
	if h := hits[0]; h.ID != ids[0] || h.Score <= 0 || !slices.Equal(h.Files, []string{"mix.exs"}) || h.SessionID != "s1" || h.Kind != "error_fix" {
		t.Errorf("hit = %+v", h)
	}
	counts, err := db.MatchCounts(ctx, []string{"test", "tokens", "kubernetes"}, 2)
	if err != nil || !slices.Equal(counts, []int{2, 1, 0}) {
		t.Errorf("match counts %v %v, want 2 (stopped), 1, 0", counts, err)
	}
	if _, err := db.SearchObservations(ctx, ObservationQuery{Match: `"unbalanced`}); err == nil {
		t.Error("a malformed FTS5 query gave no error")
	}
}

func TestObservationsGetAndTimeline(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	var obs []Observation
	for i := range 10 {
		session := "a"
		if i%2 == 1 {
			session = "b"
		}
		// Two at each time: the id breaks the tie.
		obs = append(obs, Observation{Project: "/p", SessionID: session, CreatedAt: t0.Add(time.Duration(i/2) * time.Minute),
			Kind: "note", Title: fmt.Sprint("n", i), Body: "x"})
	}
	obs = append(obs, Observation{Project: "/p", CreatedAt: t0.Add(3 * time.Minute), Kind: "note", Title: "no session", Body: "y"})
	ids := addObs(t, db, obs...)

	got, err := db.Observations(ctx, []int64{ids[3], 9999, ids[1], ids[3]})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != ids[3] || got[1].ID != ids[1] {
		t.Errorf("get = %+v, want n3 then n1", got)
	}
	// More IDs than SQLite takes values in one statement.
	many := make([]int64, 40000)
	for i := range many {
		many[i] = int64(i)
	}
	if got, err := db.Observations(ctx, many); err != nil || len(got) != len(ids) || got[0].ID != ids[0] || got[len(got)-1].ID != ids[len(ids)-1] {
		t.Errorf("40,000 IDs: %d observations, %v", len(got), err)
	}

	names := func(os []Observation) []string {
		var out []string
		for _, o := range os {
			out = append(out, o.Title)
		}
		return out
	}
	for _, tc := range []struct {
		name          string
		id            int64
		before, after int
		project       bool
		want          []string
	}{
		{"session", ids[4], 1, 2, false, []string{"n2", "n4", "n6", "n8"}},
		{"at the start", ids[0], 3, 1, false, []string{"n0", "n2"}},
		{"project", ids[4], 2, 2, true, []string{"n2", "n3", "n4", "n5", "n6"}},
		{"no session: the project", ids[10], 1, 1, false, []string{"n7", "no session", "n8"}},
		{"alone", ids[9], 0, 0, false, []string{"n9"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := db.ObservationTimeline(ctx, tc.id, tc.before, tc.after, tc.project)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(names(got), tc.want) {
				t.Errorf("got %q, want %q", names(got), tc.want)
			}
		})
	}
	if _, err := db.ObservationTimeline(ctx, 9999, 1, 1, false); !errors.Is(err, ErrNotFound) {
		t.Errorf("timeline of a missing id: %v", err)
	}
}

func TestForgetObservations(t *testing.T) {
	ctx := context.Background()
	seed := func(t *testing.T) (*DB, []int64) {
		db := openTest(t)
		ids := addObs(t, db,
			Observation{Project: "/p", SessionID: "s1", Kind: "decision", Title: "alpha", Body: "one"},
			Observation{Project: "/p", SessionID: "s1", Kind: "note", Title: "beta", Body: "two"},
			Observation{Project: "/p", SessionID: "s2", Kind: "note", Title: "gamma", Body: "three"},
			Observation{Project: "/q", SessionID: "s3", Kind: "note", Title: "delta", Body: "two"},
		)
		for _, s := range []string{"s1", "s2", "s3"} {
			project := "/p"
			if s == "s3" {
				project = "/q"
			}
			if _, err := db.AddCheckpoint(ctx, Checkpoint{Project: project, SessionID: s}); err != nil {
				t.Fatal(err)
			}
		}
		return db, ids
	}
	left := func(t *testing.T, db *DB) []string {
		hits, err := db.SearchObservations(ctx, ObservationQuery{})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, h := range hits {
			out = append(out, h.Title)
		}
		slices.Sort(out)
		return out
	}
	for _, tc := range []struct {
		name        string
		f           func(ids []int64) Forget
		want        []string
		checkpoints int
	}{
		{"one", func(ids []int64) Forget { return Forget{IDs: ids[1:2]} }, []string{"alpha", "delta", "gamma"}, 0},
		{"session", func([]int64) Forget { return Forget{SessionID: "s1"} }, []string{"delta", "gamma"}, 0},
		{"session and its checkpoints", func([]int64) Forget { return Forget{SessionID: "s1", Checkpoints: true} }, []string{"delta", "gamma"}, 1},
		{"project", func([]int64) Forget { return Forget{Project: "/p", Checkpoints: true} }, []string{"delta"}, 2},
		{"query", func([]int64) Forget { return Forget{Match: "two"} }, []string{"alpha", "gamma"}, 0},
		{"query in a project", func([]int64) Forget { return Forget{Match: "two", Project: "/q"} }, []string{"alpha", "beta", "gamma"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, ids := seed(t)
			f := tc.f(ids)
			res, err := db.ForgetObservations(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			if got := left(t, db); !slices.Equal(got, tc.want) {
				t.Errorf("left %q, want %q", got, tc.want)
			}
			if res.Observations != 4-len(tc.want) || res.Checkpoints != tc.checkpoints {
				t.Errorf("forgot %+v", res)
			}
			// Nothing forgotten is found by the index, and nothing comes
			// back when the same content is added again.
			for _, w := range []string{"one", "two", "three"} {
				hits, err := db.SearchObservations(ctx, ObservationQuery{Match: w})
				if err != nil {
					t.Fatal(err)
				}
				for _, h := range hits {
					if !slices.Contains(tc.want, h.Title) {
						t.Errorf("%q still finds forgotten %q", w, h.Title)
					}
				}
			}
			again := addObs(t, db,
				Observation{Project: "/p", SessionID: "s9", Kind: "decision", Title: "alpha", Body: "one"},
				Observation{Project: "/p", SessionID: "s9", Kind: "note", Title: "beta", Body: "two"})
			// Kept, they are duplicates; forgotten, the forgotten table
			// keeps them out.
			if again[0] != 0 || again[1] != 0 {
				t.Errorf("added again: %v", again)
			}
			var integrity string
			if err := db.db.QueryRow("INSERT INTO observations_fts (observations_fts) VALUES ('integrity-check')").Err(); err != nil {
				t.Errorf("index integrity: %v", err)
			}
			if err := db.db.QueryRow("PRAGMA integrity_check").Scan(&integrity); err != nil || integrity != "ok" {
				t.Errorf("integrity: %q %v", integrity, err)
			}
		})
	}
	db, _ := seed(t)
	for _, f := range []Forget{{}, {IDs: []int64{1}, Checkpoints: true}, {Match: "x", Checkpoints: true}} {
		if _, err := db.ForgetObservations(ctx, f); err == nil {
			t.Errorf("%+v: no error", f)
		}
	}
}

// A forgotten word is nowhere in the database's files: not in the table's
// pages, not in the full-text index's, not in the write-ahead log, not in
// pages freed before or by the forget. The word is planted among enough
// other observations that the index merges segments and the tables split
// pages, and it is first seen in the files, so the test can fail.
func TestForgetLeavesNoBytes(t *testing.T) {
	db := openTest(t)
	ctx := context.Background()
	const word = "zqxplantedword"
	var obs []Observation
	for i := range 400 {
		obs = append(obs, Observation{Project: "/p", SessionID: "s", Kind: "note", Title: fmt.Sprint("filler ", i),
			Body: fmt.Sprintf("filler text number %d about tests, builds, files and errors %d", i, i*7)})
	}
	addObs(t, db, obs[:200]...)
	planted := addObs(t, db, Observation{Project: "/p", SessionID: "s", Kind: "note", Title: "the " + word,
		Body: "remember " + word + " and " + word + "s", Files: []string{"dir/" + word + ".go"}})
	// Writes in small transactions after it: the index's automerge and
	// page splits move and copy what holds the word.
	for i := 200; i < 400; i += 10 {
		addObs(t, db, obs[i:i+10]...)
	}
	files := []string{db.path, db.path + "-wal"}
	if !contains(t, files, word) {
		t.Fatal("the planted word is in neither file: the test could not fail")
	}
	res, err := db.ForgetObservations(ctx, Forget{IDs: planted})
	if err != nil || res.Observations != 1 {
		t.Fatalf("forget: %+v %v", res, err)
	}
	if contains(t, files, word) {
		t.Error("the forgotten word is still in the database's files")
	}
	if hits, err := db.SearchObservations(ctx, ObservationQuery{Match: "filler"}); err != nil || len(hits) == 0 {
		t.Errorf("the rest is gone too: %v %v", hits, err)
	}
}

func contains(t *testing.T, files []string, word string) bool {
	t.Helper()
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if i := bytes.Index(data, []byte(word)); i >= 0 {
			t.Logf("%s at %d: %q", filepath.Base(f), i, data[max(0, i-120):min(len(data), i+40)])
			return true
		}
	}
	return false
}
