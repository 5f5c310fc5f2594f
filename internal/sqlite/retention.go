package sqlite

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"
)

// Prune says which old rows to remove: checkpoints created before
// Before, except the latest Keep of each session (at least one: a
// session's latest checkpoint is what its resume and its restore's
// fallback read) and those in Except (the ones a pending restore names).
// Claims stay: a few bytes each, they are the record of a restore made
// that outlives the state directory's, and without them a session resumed
// after its state went could be given an old restore again. Observations
// are never pruned here: they are the user's knowledge, which forget
// removes on request.
type Prune struct {
	Before time.Time
	Keep   int
	Except []int64
	// Bytes, when above zero, also removes checkpoints younger than
	// Before, oldest first and with the same exceptions, until the bodies
	// removed add up to Bytes.
	Bytes int64
	// DryRun counts what would go and removes nothing.
	DryRun bool
}

// Pruned is what a Prune removed, or would remove.
type Pruned struct {
	Checkpoints int
	// Bytes is the size of the checkpoints' bodies and tasks removed,
	// about what the database's pages hold of them.
	Bytes int64
}

// Usage is what the database holds.
type Usage struct {
	Checkpoints, Observations int
	// Size is the database's file with its write-ahead log.
	Size int64
}

// Usage counts the database's rows and measures its files.
func (db *DB) Usage(ctx context.Context) (Usage, error) {
	conn, err := db.conn(ctx)
	if err != nil {
		return Usage{}, fmt.Errorf("usage: %w", err)
	}
	defer conn.Close()
	var u Usage
	if err := conn.QueryRowContext(ctx, "SELECT (SELECT count(*) FROM checkpoints), (SELECT count(*) FROM observations)").
		Scan(&u.Checkpoints, &u.Observations); err != nil {
		return Usage{}, fmt.Errorf("usage: %w", err)
	}
	u.Size = fileSize(db.path) + fileSize(db.path+"-wal")
	return u, nil
}

// Prune removes (or, dry, counts) the rows p says, in one transaction.
func (db *DB) Prune(ctx context.Context, p Prune) (Pruned, error) {
	keep := max(p.Keep, 1)
	conn, err := db.conn(ctx)
	if err != nil {
		return Pruned{}, fmt.Errorf("prune: %w", err)
	}
	defer conn.Close()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return Pruned{}, fmt.Errorf("prune: %w", err)
	}
	defer tx.Rollback()
	// The candidates, oldest first: every checkpoint but the latest keep
	// of its session and the excepted ones. The window runs over the
	// index on (project, session_id, created_at, id).
	args := []any{keep}
	except := ""
	if len(p.Except) > 0 {
		except = " AND id NOT IN (" + placeholders(len(p.Except)) + ")"
		for _, id := range p.Except {
			args = append(args, id)
		}
	}
	// The window reads only the index on (project, session_id,
	// created_at, id); a candidate's row is read for its size alone.
	// Scanning the table instead reads every checkpoint's page: with
	// nothing left to remove among 2,161 checkpoints of 5 KB, 25-29 ms a
	// dry run against 7-14 (BenchmarkPruneDryRun, a loaded machine).
	rows, err := tx.QueryContext(ctx, `SELECT c.id, c.created_at, length(c.body) + length(c.task) FROM (
		SELECT id, row_number() OVER (PARTITION BY project, session_id ORDER BY created_at DESC, id DESC) AS n
		FROM checkpoints INDEXED BY checkpoints_project_session_created) w
		JOIN checkpoints c ON c.id = w.id
		WHERE w.n > ?`+strings.ReplaceAll(except, "id NOT IN", "c.id NOT IN")+` ORDER BY c.created_at, c.id`, args...)
	if err != nil {
		return Pruned{}, fmt.Errorf("prune: %w", err)
	}
	var ids []int64
	var r Pruned
	before := millis(p.Before)
	for rows.Next() {
		var id, created, size int64
		if err := rows.Scan(&id, &created, &size); err != nil {
			rows.Close()
			return Pruned{}, fmt.Errorf("prune: %w", err)
		}
		if created >= before && r.Bytes >= p.Bytes {
			break // young, and the size limit is met
		}
		ids = append(ids, id)
		r.Bytes += size
	}
	if err := rows.Close(); err != nil {
		return Pruned{}, fmt.Errorf("prune: %w", err)
	}
	r.Checkpoints = len(ids)
	if p.DryRun {
		return r, nil
	}
	// SQLite takes at most 32,766 parameters: delete in batches.
	for len(ids) > 0 {
		n := min(len(ids), 1000)
		batch := make([]any, n)
		for i, id := range ids[:n] {
			batch[i] = id
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM checkpoints WHERE id IN ("+placeholders(n)+")", batch...); err != nil {
			return Pruned{}, fmt.Errorf("prune: %w", err)
		}
		ids = ids[n:]
	}
	if err := tx.Commit(); err != nil {
		return Pruned{}, fmt.Errorf("prune: %w", err)
	}
	return r, nil
}

// Vacuum gives the pages that deleted rows freed back to the file system.
// It rewrites the whole database: a command's work, not a hook's.
func (db *DB) Vacuum(ctx context.Context) error {
	conn, err := db.conn(ctx)
	if err != nil {
		return fmt.Errorf("vacuum: %w", err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "VACUUM"); err != nil {
		return fmt.Errorf("vacuum: %w", err)
	}
	if _, err := conn.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		return fmt.Errorf("vacuum: %w", err)
	}
	return nil
}

// fileSize is the size of the file at path, 0 when there is none.
func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}
