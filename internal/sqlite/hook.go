package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// HookRun is one run of a hook, as the hook reports it.
type HookRun struct {
	Event     string
	SessionID string
	At        time.Time // zero means now
	Duration  time.Duration
	Err       string // "" if the run succeeded
}

// HookStatus is what is kept of an event's runs: the last one, and the last
// one that failed.
type HookStatus struct {
	Event        string
	LastRun      time.Time
	LastDuration time.Duration
	LastErr      string    // "" if no run has failed
	LastErrAt    time.Time // zero if no run has failed
}

// RecordHookRun overwrites the event's last run with r, and its last error
// too if r failed. Nothing else is kept: the table does not grow with use.
func (db *DB) RecordHookRun(ctx context.Context, r HookRun) error {
	if r.At.IsZero() {
		r.At = db.Now()
	}
	var errAt sql.NullInt64
	if r.Err != "" {
		errAt = sql.NullInt64{Int64: millis(r.At), Valid: true}
	}
	conn, err := db.conn(ctx)
	if err != nil {
		return fmt.Errorf("record hook run: %w", err)
	}
	defer conn.Close()
	_, err = conn.ExecContext(ctx, `INSERT INTO hook_runs (event, session_id, last_run, last_duration, last_err, last_err_at)
		VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (event) DO UPDATE SET
			session_id = excluded.session_id,
			last_run = excluded.last_run,
			last_duration = excluded.last_duration,
			last_err = iif(excluded.last_err = '', last_err, excluded.last_err),
			last_err_at = iif(excluded.last_err = '', last_err_at, excluded.last_err_at)`,
		r.Event, r.SessionID, millis(r.At), int64(r.Duration), r.Err, errAt)
	if err != nil {
		return fmt.Errorf("record hook run: %w", err)
	}
	return nil
}

// HookStatuses returns the status of every event that has run, by event name.
func (db *DB) HookStatuses(ctx context.Context) ([]HookStatus, error) {
	conn, err := db.conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("hook statuses: %w", err)
	}
	defer conn.Close()
	rows, err := conn.QueryContext(ctx, `SELECT event, last_run, last_duration, last_err, last_err_at
		FROM hook_runs ORDER BY event`)
	if err != nil {
		return nil, fmt.Errorf("hook statuses: %w", err)
	}
	defer rows.Close()
	var list []HookStatus
	for rows.Next() {
		var s HookStatus
		var run, dur int64
		var errAt sql.NullInt64
		if err := rows.Scan(&s.Event, &run, &dur, &s.LastErr, &errAt); err != nil {
			return nil, fmt.Errorf("hook statuses: %w", err)
		}
		s.LastRun, s.LastDuration = fromMillis(run), time.Duration(dur)
		if errAt.Valid {
			s.LastErrAt = fromMillis(errAt.Int64)
		}
		list = append(list, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("hook statuses: %w", err)
	}
	return list, nil
}
