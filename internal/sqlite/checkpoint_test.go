package sqlite

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestAddCheckpoint(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		in   Checkpoint
		want Checkpoint // without ID
	}{
		{
			name: "all fields",
			in: Checkpoint{Project: "/home/u/proj", SessionID: "s1", CreatedAt: t0.Add(time.Hour).In(time.FixedZone("X", 3600)),
				Trigger: "precompact-auto", ContextTokens: 151_234, Task: "fix the flaky test", Body: []byte(`{"files":["a.go"]}`)},
			want: Checkpoint{Project: "/home/u/proj", SessionID: "s1", CreatedAt: t0.Add(time.Hour),
				Trigger: "precompact-auto", ContextTokens: 151_234, Task: "fix the flaky test", Body: []byte(`{"files":["a.go"]}`)},
		},
		{
			name: "zero time is now",
			in:   Checkpoint{Project: "/p", SessionID: "s", Trigger: "manual", Body: []byte(`{}`)},
			want: Checkpoint{Project: "/p", SessionID: "s", CreatedAt: t0, Trigger: "manual", Body: []byte(`{}`)},
		},
		{
			name: "stored to the millisecond",
			in:   Checkpoint{Project: "/p", CreatedAt: t0.Add(999 * time.Microsecond)},
			want: Checkpoint{Project: "/p", CreatedAt: t0},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := openTest(t)
			id, err := db.AddCheckpoint(ctx, tc.in)
			if err != nil {
				t.Fatal(err)
			}
			got, err := db.Checkpoint(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			tc.want.ID = id
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Checkpoint(%d) (-want +got):\n%s", id, diff)
			}
		})
	}
}

func TestCheckpointNotFound(t *testing.T) {
	db := openTest(t)
	if _, err := db.Checkpoint(context.Background(), 42); !errors.Is(err, ErrNotFound) {
		t.Errorf("Checkpoint of a missing ID: %v, want ErrNotFound", err)
	}
}

// fill adds these checkpoints, IDs 1 to 5. 3 and 5 were made at the same time.
func fill(t *testing.T) *DB {
	t.Helper()
	db := openTest(t)
	for _, c := range []Checkpoint{
		{Project: "/a", SessionID: "s1", CreatedAt: t0.Add(1 * time.Second), Body: []byte(`1`)},
		{Project: "/a", SessionID: "s2", CreatedAt: t0.Add(2 * time.Second), Body: []byte(`2`)},
		{Project: "/a", SessionID: "s1", CreatedAt: t0.Add(3 * time.Second), Body: []byte(`3`)},
		{Project: "/b", SessionID: "s1", CreatedAt: t0.Add(4 * time.Second), Body: []byte(`4`)},
		{Project: "/a", SessionID: "s2", CreatedAt: t0.Add(3 * time.Second), Body: []byte(`5`)},
	} {
		if _, err := db.AddCheckpoint(context.Background(), c); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// checkLatest checks that a lookup found checkpoint want, body included, or
// ErrNotFound if want is 0.
func checkLatest(t *testing.T, c Checkpoint, err error, want int64) {
	t.Helper()
	switch {
	case want == 0 && !errors.Is(err, ErrNotFound):
		t.Errorf("got checkpoint %d, %v; want ErrNotFound", c.ID, err)
	case want == 0:
	case err != nil:
		t.Errorf("got %v, want checkpoint %d", err, want)
	case c.ID != want || string(c.Body) != string(rune('0'+want)):
		t.Errorf("got checkpoint %d with body %q, want %d", c.ID, c.Body, want)
	}
}

func TestLatestCheckpoint(t *testing.T) {
	db := fill(t)
	for _, tc := range []struct {
		project, session string
		want             int64
	}{
		{"/a", "", 5}, // the later ID breaks the tie with 3
		{"/a", "s1", 3},
		{"/a", "s2", 5},
		{"/b", "", 4},
		{"/b", "s2", 0},
		{"/c", "", 0},
	} {
		t.Run(tc.project+"/"+tc.session, func(t *testing.T) {
			c, err := db.LatestCheckpoint(context.Background(), tc.project, tc.session)
			checkLatest(t, c, err, tc.want)
		})
	}
}

// A session's latest checkpoint is a seek in its index, not a walk
// through the project's other sessions' checkpoints.
func TestLatestCheckpointUsesTheSessionIndex(t *testing.T) {
	db := fill(t)
	rows, err := db.db.Query("EXPLAIN QUERY PLAN SELECT id FROM checkpoints WHERE project = ? AND session_id = ?"+newestFirst+" LIMIT 1", "/a", "s1")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if got := strings.Join(plan, "; "); !strings.Contains(got, "checkpoints_project_session_created") || strings.Contains(got, "TEMP B-TREE") {
		t.Errorf("query plan: %s", got)
	}
}

func TestLatestFromOtherSession(t *testing.T) {
	db := fill(t)
	for _, tc := range []struct {
		name, project, session string
		since                  time.Time
		want                   int64
	}{
		{"newest of s2", "/a", "s1", t0, 5},
		{"newest of s1", "/a", "s2", t0, 3},
		{"any other session", "/a", "s3", t0, 5},
		{"since is inclusive", "/a", "s2", t0.Add(3 * time.Second), 3},
		{"too old", "/a", "s2", t0.Add(3*time.Second + time.Millisecond), 0},
		{"only own session", "/b", "s1", t0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := db.LatestFromOtherSession(context.Background(), tc.project, tc.session, tc.since)
			checkLatest(t, c, err, tc.want)
		})
	}
}

func TestCheckpoints(t *testing.T) {
	db := fill(t)
	for _, tc := range []struct {
		project string
		limit   int
		want    []int64
	}{
		{"/a", 0, []int64{5, 3, 2, 1}},
		{"/a", -1, []int64{5, 3, 2, 1}},
		{"/a", 2, []int64{5, 3}},
		{"/b", 10, []int64{4}},
		{"/c", 10, nil},
	} {
		t.Run(tc.project, func(t *testing.T) {
			list, err := db.Checkpoints(context.Background(), tc.project, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			var ids []int64
			for _, c := range list {
				ids = append(ids, c.ID)
				if c.Body != nil || c.Project != tc.project || c.CreatedAt.IsZero() {
					t.Errorf("listed %+v, want its project and time but no body", c)
				}
			}
			if diff := cmp.Diff(tc.want, ids); diff != "" {
				t.Errorf("Checkpoints(%q, %d) IDs (-want +got):\n%s", tc.project, tc.limit, diff)
			}
		})
	}
}

func TestClaim(t *testing.T) {
	db := openTest(t)
	for i, tc := range []struct {
		session, key string
		first        bool
	}{
		{"s1", "c1", true},
		{"s1", "c1", false},
		{"s1", "c2", true},
		{"s2", "c1", true},
		{"s1", "c2", false},
	} {
		first, err := db.Claim(context.Background(), tc.session, tc.key)
		if err != nil || first != tc.first {
			t.Errorf("claim %d Claim(%q, %q) = %t, %v; want %t", i, tc.session, tc.key, first, err, tc.first)
		}
	}
}
