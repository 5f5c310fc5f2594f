package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Checkpoint is a saved working state of one agent session.
type Checkpoint struct {
	ID            int64
	Project       string // absolute project directory
	SessionID     string
	CreatedAt     time.Time // stored to the millisecond; returned in UTC
	Trigger       string    // "precompact-auto", "precompact-manual", "session-end", "manual", "pressure-L1", ...
	ContextTokens int64
	Task          string // one line, for listings
	Body          []byte // JSON owned by the caller; nil in listings
}

// AddCheckpoint stores c and returns its new ID. A zero CreatedAt means now.
func (db *DB) AddCheckpoint(ctx context.Context, c Checkpoint) (int64, error) {
	if c.CreatedAt.IsZero() {
		c.CreatedAt = db.Now()
	}
	if c.Body == nil {
		c.Body = []byte{}
	}
	conn, err := db.conn(ctx)
	if err != nil {
		return 0, fmt.Errorf("add checkpoint: %w", err)
	}
	defer conn.Close()
	res, err := conn.ExecContext(ctx, `INSERT INTO checkpoints
		(project, session_id, created_at, trigger, context_tokens, task, body)
		VALUES (?, ?, ?, ?, ?, ?, ?)`,
		c.Project, c.SessionID, millis(c.CreatedAt), c.Trigger, c.ContextTokens, c.Task, c.Body)
	if err != nil {
		return 0, fmt.Errorf("add checkpoint: %w", err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, fmt.Errorf("add checkpoint: %w", err)
	}
	return id, nil
}

const (
	listColumns = "id, project, session_id, created_at, trigger, context_tokens, task"
	newestFirst = " ORDER BY created_at DESC, id DESC"
)

// Checkpoint returns the checkpoint with the given ID.
func (db *DB) Checkpoint(ctx context.Context, id int64) (Checkpoint, error) {
	c, err := db.checkpoint(ctx, "WHERE id = ?", id)
	if err != nil {
		return Checkpoint{}, fmt.Errorf("checkpoint %d: %w", id, err)
	}
	return c, nil
}

// LatestCheckpoint returns the newest checkpoint of the project, from the
// given session, or from any session if sessionID is "".
func (db *DB) LatestCheckpoint(ctx context.Context, project, sessionID string) (Checkpoint, error) {
	where, args := "WHERE project = ?"+newestFirst, []any{project}
	if sessionID != "" {
		// Two plain terms, so that checkpoints_project_session_created
		// finds it at once.
		where, args = "WHERE project = ? AND session_id = ?"+newestFirst, []any{project, sessionID}
	}
	c, err := db.checkpoint(ctx, where, args...)
	if err != nil {
		return Checkpoint{}, fmt.Errorf("latest checkpoint: %w", err)
	}
	return c, nil
}

// LatestFromOtherSession returns the newest checkpoint of the project made by
// a session other than sessionID at or after since.
func (db *DB) LatestFromOtherSession(ctx context.Context, project, sessionID string, since time.Time) (Checkpoint, error) {
	c, err := db.checkpoint(ctx, "WHERE project = ? AND session_id <> ? AND created_at >= ?"+newestFirst,
		project, sessionID, millis(since))
	if err != nil {
		return Checkpoint{}, fmt.Errorf("latest checkpoint of another session: %w", err)
	}
	return c, nil
}

// checkpoint returns the first checkpoint, body included, that the query
// from where on selects.
func (db *DB) checkpoint(ctx context.Context, where string, args ...any) (Checkpoint, error) {
	conn, err := db.conn(ctx)
	if err != nil {
		return Checkpoint{}, err
	}
	defer conn.Close()
	var c Checkpoint
	var created int64
	err = conn.QueryRowContext(ctx, "SELECT "+listColumns+", body FROM checkpoints "+where+" LIMIT 1", args...).
		Scan(&c.ID, &c.Project, &c.SessionID, &created, &c.Trigger, &c.ContextTokens, &c.Task, &c.Body)
	if errors.Is(err, sql.ErrNoRows) {
		return Checkpoint{}, ErrNotFound
	}
	if err != nil {
		return Checkpoint{}, err
	}
	c.CreatedAt = fromMillis(created)
	if len(c.Body) == 0 {
		c.Body = nil // stored empty for a nil body
	}
	return c, nil
}

// Checkpoints lists the project's checkpoints newest first, at most limit of
// them (all if limit <= 0), without their bodies.
func (db *DB) Checkpoints(ctx context.Context, project string, limit int) ([]Checkpoint, error) {
	if limit <= 0 {
		limit = -1 // no limit, to SQLite
	}
	conn, err := db.conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("list checkpoints: %w", err)
	}
	defer conn.Close()
	rows, err := conn.QueryContext(ctx, "SELECT "+listColumns+" FROM checkpoints WHERE project = ?"+newestFirst+" LIMIT ?",
		project, limit)
	if err != nil {
		return nil, fmt.Errorf("list checkpoints: %w", err)
	}
	defer rows.Close()
	var list []Checkpoint
	for rows.Next() {
		var c Checkpoint
		var created int64
		if err := rows.Scan(&c.ID, &c.Project, &c.SessionID, &created, &c.Trigger, &c.ContextTokens, &c.Task); err != nil {
			return nil, fmt.Errorf("list checkpoints: %w", err)
		}
		c.CreatedAt = fromMillis(created)
		list = append(list, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list checkpoints: %w", err)
	}
	return list, nil
}

// Claim records that key happened for the session (a compaction restored,
// a pointer shown) and reports whether this call was the first to record
// it, across all processes.
func (db *DB) Claim(ctx context.Context, sessionID, key string) (first bool, err error) {
	first, err = db.claim(ctx, "INSERT INTO claims (session_id, key, claimed_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
		sessionID, key, millis(db.Now()))
	if err != nil {
		return false, fmt.Errorf("claim %s: %w", key, err)
	}
	return first, nil
}

// Claimed reports whether key was claimed for the session.
func (db *DB) Claimed(ctx context.Context, sessionID, key string) (bool, error) {
	conn, err := db.conn(ctx)
	if err != nil {
		return false, fmt.Errorf("claimed %s: %w", key, err)
	}
	defer conn.Close()
	var n int
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM claims WHERE session_id = ? AND key = ?", sessionID, key).Scan(&n); err != nil {
		return false, fmt.Errorf("claimed %s: %w", key, err)
	}
	return n > 0, nil
}

// claim runs an insert that does nothing on a duplicate key: the one call
// whose insert added the row is the first, however many processes race.
func (db *DB) claim(ctx context.Context, insert string, args ...any) (bool, error) {
	conn, err := db.conn(ctx)
	if err != nil {
		return false, err
	}
	defer conn.Close()
	res, err := conn.ExecContext(ctx, insert, args...)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}
