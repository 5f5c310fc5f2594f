package sqlite

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"
)

func TestPrune(t *testing.T) {
	ctx := context.Background()
	day := 24 * time.Hour
	// Session a: five checkpoints 100..96 days old; session b: one 200
	// days old (its latest, so kept); session c: two young ones.
	type row struct {
		session string
		age     time.Duration
	}
	rows := []row{{"a", 100 * day}, {"a", 99 * day}, {"a", 98 * day}, {"a", 97 * day}, {"a", 96 * day},
		{"b", 200 * day}, {"c", 2 * day}, {"c", day}}
	for _, tc := range []struct {
		name  string
		prune func(ids []int64) Prune
		want  []int // indexes into rows that remain
	}{
		{"age keeps the latest of each session", func([]int64) Prune { return Prune{Before: t0.Add(-90 * day), Keep: 1} },
			[]int{4, 5, 6, 7}},
		{"keep N", func([]int64) Prune { return Prune{Before: t0.Add(-90 * day), Keep: 3} }, []int{2, 3, 4, 5, 6, 7}},
		{"keep 0 is keep 1", func([]int64) Prune { return Prune{Before: t0.Add(-90 * day)} }, []int{4, 5, 6, 7}},
		{"except a pending restore's", func(ids []int64) Prune { return Prune{Before: t0.Add(-90 * day), Keep: 1, Except: ids[1:2]} },
			[]int{1, 4, 5, 6, 7}},
		{"size removes young ones oldest first", func([]int64) Prune { return Prune{Before: t0.Add(-1000 * day), Keep: 1, Bytes: 25} },
			[]int{3, 4, 5, 6, 7}},
		{"dry run removes nothing", func([]int64) Prune { return Prune{Before: t0.Add(-90 * day), Keep: 1, DryRun: true} },
			[]int{0, 1, 2, 3, 4, 5, 6, 7}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := openTest(t)
			var ids []int64
			for _, r := range rows {
				id, err := db.AddCheckpoint(ctx, Checkpoint{Project: "/p", SessionID: r.session, CreatedAt: t0.Add(-r.age), Body: []byte("0123456789")})
				if err != nil {
					t.Fatal(err)
				}
				ids = append(ids, id)
			}
			db.Now = func() time.Time { return t0.Add(-100 * day) }
			if _, err := db.Claim(ctx, "a", "k"); err != nil {
				t.Fatal(err)
			}
			db.Now = func() time.Time { return t0 }
			if _, err := db.Claim(ctx, "c", "k"); err != nil {
				t.Fatal(err)
			}
			p := tc.prune(ids)
			got, err := db.Prune(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			if got.Checkpoints != len(rows)-len(tc.want) && !p.DryRun {
				t.Errorf("removed %d checkpoints, want %d", got.Checkpoints, len(rows)-len(tc.want))
			}
			if claimed, _ := db.Claimed(ctx, "a", "k"); !claimed {
				t.Errorf("a 100-day-old claim was pruned")
			}
			if got.Bytes != int64(got.Checkpoints)*10 {
				t.Errorf("bytes %d for %d checkpoints of 10", got.Bytes, got.Checkpoints)
			}
			list, err := db.Checkpoints(ctx, "/p", 0)
			if err != nil {
				t.Fatal(err)
			}
			var left []int
			for _, c := range list {
				left = append(left, slices.Index(ids, c.ID))
			}
			slices.Sort(left)
			if !slices.Equal(left, tc.want) {
				t.Errorf("left %v, want %v", left, tc.want)
			}
			u, err := db.Usage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if u.Checkpoints != len(tc.want) || u.Size == 0 {
				t.Errorf("usage %+v, want %d checkpoints and a size", u, len(tc.want))
			}
		})
	}
}

// BenchmarkPruneDryRun is what cairn doctor and a dry cairn gc ask of a
// database of 10,000 checkpoints of 5 KB, 100 sessions, one an hour: with
// 7,839 of them old enough to go, and after they went.
func BenchmarkPruneDryRun(b *testing.B) {
	ctx := context.Background()
	db := openTest(b)
	conn, err := db.conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	body := make([]byte, 5<<10)
	for i := range 10_000 {
		if _, err := tx.ExecContext(ctx, `INSERT INTO checkpoints (project, session_id, created_at, trigger, context_tokens, task, body) VALUES (?, ?, ?, '', 0, '', ?)`,
			"/p", fmt.Sprint(i%100), millis(t0.Add(-time.Duration(i)*time.Hour)), body); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	conn.Close()
	p := Prune{Before: t0.Add(-90 * 24 * time.Hour), Keep: 10}
	for _, tc := range []struct {
		name string
		want int
	}{{"to-remove", 7_839}, {"after", 0}} {
		b.Run(tc.name, func(b *testing.B) {
			if tc.want == 0 {
				if _, err := db.Prune(ctx, p); err != nil {
					b.Fatal(err)
				}
			}
			for b.Loop() {
				dry := p
				dry.DryRun = true
				r, err := db.Prune(ctx, dry)
				if err != nil || r.Checkpoints != tc.want {
					b.Fatalf("%+v %v, want %d", r, err, tc.want)
				}
			}
		})
	}
}
