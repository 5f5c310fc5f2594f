package sqlite

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Observation is one searchable thing cairn extracted from a session or
// was told: a checkpoint, a decision, an error and its fix, a note...
// (internal/memory gives them their meaning; this package stores them).
type Observation struct {
	ID        int64
	Project   string // absolute project directory
	SessionID string // "" when no session made it
	CreatedAt time.Time
	Kind      string
	Title     string
	Body      string
	Files     []string
	// Source says where it came from: "checkpoint 12", a handoff's path...
	Source string
	// Key is what makes two observations of one project and kind the same
	// for AddObservations; "" means their title, body and files. Only its
	// hash is stored.
	Key string
	// Replace makes AddObservations replace the title, body, files, source
	// and time of the same observation stored before (an error that was
	// fixed since) instead of leaving this one out.
	Replace bool
}

// hash is the content hash that the unique index and the forgotten table
// hold: 128 bits of SHA-256, plenty to tell a project's observations apart.
func (o *Observation) hash() []byte {
	h := sha256.New()
	h.Write([]byte(o.Kind))
	h.Write([]byte{0})
	if o.Key != "" {
		h.Write([]byte(o.Key))
	} else {
		h.Write([]byte(o.Title))
		h.Write([]byte{0})
		h.Write([]byte(o.Body))
		h.Write([]byte{0})
		h.Write([]byte(strings.Join(o.Files, "\n")))
	}
	return h.Sum(nil)[:16]
}

// frameFiles stores a list of paths as one text, each path between
// newlines, so that a path is found with instr(files, '\n'||p||'\n') and a
// path's last components with instr(files, '/'||p||'\n'). The full-text
// index reads the same text.
func frameFiles(files []string) string {
	var b strings.Builder
	for _, f := range files {
		f = strings.TrimSpace(f)
		if f == "" || strings.ContainsRune(f, '\n') {
			continue
		}
		if b.Len() == 0 {
			b.WriteByte('\n')
		}
		b.WriteString(f)
		b.WriteByte('\n')
	}
	return b.String()
}

func unframeFiles(s string) []string {
	s = strings.Trim(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// AddObservations stores, in one transaction, the observations that are
// neither stored already (the same project, kind and content: see Key) nor
// forgotten, and replaces those stored already that have Replace set. It
// returns their IDs in order, 0 for those it left out. A zero CreatedAt
// means now.
func (db *DB) AddObservations(ctx context.Context, obs []Observation) ([]int64, error) {
	ids := make([]int64, len(obs))
	if len(obs) == 0 {
		return ids, nil
	}
	conn, err := db.conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("add observations: %w", err)
	}
	defer conn.Close()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("add observations: %w", err)
	}
	defer tx.Rollback()
	// Many rows to one statement: FTS5 writes what it holds in memory to
	// disk at the end of every statement, and a statement per row wrote
	// a segment per row, then merged them (about twice the time for a
	// checkpoint's observations, BenchmarkWriteCheckpoint). Those that replace and those that do not go in
	// separate statements, as their conflict clauses differ.
	type row struct {
		i    int
		hash []byte
	}
	now := db.Now()
	for _, replace := range []bool{false, true} {
		var rows []row
		var args []any
		for i, o := range obs {
			if o.Replace != replace {
				continue
			}
			if o.CreatedAt.IsZero() {
				o.CreatedAt = now
			}
			h := o.hash()
			rows = append(rows, row{i, h})
			args = append(args, o.Project, o.SessionID, millis(o.CreatedAt), o.Kind, o.Title, o.Body, frameFiles(o.Files), o.Source, h)
		}
		for len(rows) > 0 {
			n := min(len(rows), rowsPerInsert)
			got, err := insertRows(ctx, tx, n, args[:n*insertColumns], replace)
			if err != nil {
				return nil, fmt.Errorf("add observations: %w", err)
			}
			for _, r := range rows[:n] {
				key := obs[r.i].Project + "\x00" + obs[r.i].Kind + "\x00" + string(r.hash)
				if id, ok := got[key]; ok {
					ids[r.i] = id
					delete(got, key) // a duplicate later in the batch is left out
				}
			}
			rows, args = rows[n:], args[n*insertColumns:]
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("add observations: %w", err)
	}
	return ids, nil
}

// insertColumns is how many values a row of insertRows takes, and
// rowsPerInsert how many rows one statement takes at most (SQLite allows
// 32766 values).
const (
	insertColumns = 9
	rowsPerInsert = 500
)

// insertRows inserts n rows of values in one statement, those neither
// forgotten nor stored already (or, with replace, stored with another
// content), and returns the IDs of those it added or replaced by project,
// kind and hash. RETURNING gives nothing for a row left out.
func insertRows(ctx context.Context, tx *sql.Tx, n int, args []any, replace bool) (map[string]int64, error) {
	var q strings.Builder
	q.WriteString("WITH v (project, session_id, created_at, kind, title, body, files, source, hash) AS (VALUES ")
	for i := range n {
		if i > 0 {
			q.WriteString(", ")
		}
		q.WriteString("(" + placeholders(insertColumns) + ")")
	}
	q.WriteString(`)
		INSERT INTO observations (project, session_id, created_at, kind, title, body, files, source, hash)
		SELECT * FROM v WHERE NOT EXISTS
			(SELECT 1 FROM forgotten f WHERE f.project = v.project AND f.kind = v.kind AND f.hash = v.hash)
		ON CONFLICT (project, kind, hash) DO `)
	if replace {
		q.WriteString(`UPDATE SET
			session_id = excluded.session_id, created_at = excluded.created_at, title = excluded.title,
			body = excluded.body, files = excluded.files, source = excluded.source
			WHERE (title, body, files) IS NOT (excluded.title, excluded.body, excluded.files)`)
	} else {
		q.WriteString("NOTHING")
	}
	q.WriteString(" RETURNING id, project, kind, hash")
	rs, err := tx.QueryContext(ctx, q.String(), args...)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	got := make(map[string]int64, n)
	for rs.Next() {
		var id int64
		var project, kind string
		var hash []byte
		if err := rs.Scan(&id, &project, &kind, &hash); err != nil {
			return nil, err
		}
		got[project+"\x00"+kind+"\x00"+string(hash)] = id
	}
	return got, rs.Err()
}

// ObservationQuery selects observations. Every filter left zero selects
// all.
type ObservationQuery struct {
	// Match is an FTS5 query over the title, body and files; "" selects by
	// the filters alone, newest first.
	Match     string
	Project   string
	SessionID string
	Kinds     []string
	// Files keeps observations that name one of these paths, or a path
	// ending in "/" and one of them ("cli.go" finds "internal/cli/cli.go").
	Files []string
	// Since and Until bound the creation time: Since <= t < Until.
	Since, Until time.Time
	// Limit is at most how many come back; <= 0 means 20.
	Limit int
}

// ObservationHit is an observation found, without its body.
type ObservationHit struct {
	Observation
	// Snippet is the start of the body without a query, "" with one.
	Snippet string
	// Score is FTS5's BM25 rank negated: higher is better; 0 without a
	// query.
	Score float64
}

// Column weights for BM25, equal. Most observations (a decision, a
// finding, a command) have a title that is their body or its start, so a
// heavier title counts their words twice over and lifts a short note that
// merely names the question's words above the one that answers it; and a
// file is a path the body names already. (Title 3, files 2 measured
// worse on the held-out questions of memory's TestRetrieval: hit@1 14 of
// 37 against 16; docs/benchmarks.md, "Memory".)
const rankExpr = "bm25(observations_fts, 1.0, 1.0, 1.0)"

const hitColumns = "o.id, o.project, o.session_id, o.created_at, o.kind, o.title, o.files, o.source"

// SearchObservations finds observations, best first with a query, newest
// first without one.
func (db *DB) SearchObservations(ctx context.Context, q ObservationQuery) ([]ObservationHit, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = 20
	}
	where, args := q.filters()
	var query string
	if q.Match != "" {
		query = "SELECT " + hitColumns + ", '', " + rankExpr +
			" FROM observations_fts JOIN observations o ON o.id = observations_fts.rowid" +
			" WHERE observations_fts MATCH ?" + where + " ORDER BY 10 LIMIT ?"
		args = append([]any{q.Match}, args...)
	} else {
		query = "SELECT " + hitColumns + ", substr(o.body, 1, 160), 0.0 FROM observations o WHERE 1" + where +
			" ORDER BY o.created_at DESC, o.id DESC LIMIT ?"
	}
	args = append(args, limit)
	conn, err := db.conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("search observations: %w", err)
	}
	defer conn.Close()
	rows, err := conn.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("search observations: %w", err)
	}
	defer rows.Close()
	var hits []ObservationHit
	for rows.Next() {
		var h ObservationHit
		var created int64
		var files string
		if err := rows.Scan(&h.ID, &h.Project, &h.SessionID, &created, &h.Kind, &h.Title, &files, &h.Source,
			&h.Snippet, &h.Score); err != nil {
			return nil, fmt.Errorf("search observations: %w", err)
		}
		h.CreatedAt, h.Files, h.Score = fromMillis(created), unframeFiles(files), -h.Score
		hits = append(hits, h)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("search observations: %w", err)
	}
	return hits, nil
}

// MatchCounts returns how many observations each FTS5 query matches, each
// count stopped at most: enough to tell a rare term from a common one
// without reading the whole list of a common one.
func (db *DB) MatchCounts(ctx context.Context, matches []string, most int) ([]int, error) {
	conn, err := db.conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("match counts: %w", err)
	}
	defer conn.Close()
	out := make([]int, len(matches))
	for i, m := range matches {
		err := conn.QueryRowContext(ctx, "SELECT count(*) FROM (SELECT 1 FROM observations_fts WHERE observations_fts MATCH ? LIMIT ?)",
			m, most).Scan(&out[i])
		if err != nil {
			return nil, fmt.Errorf("match counts: %w", err)
		}
	}
	return out, nil
}

// filters is the query's WHERE clauses after the first, each starting
// with " AND", and their arguments.
func (q ObservationQuery) filters() (string, []any) {
	var b strings.Builder
	var args []any
	if q.Project != "" {
		b.WriteString(" AND o.project = ?")
		args = append(args, q.Project)
	}
	if q.SessionID != "" {
		b.WriteString(" AND o.session_id = ?")
		args = append(args, q.SessionID)
	}
	if len(q.Kinds) > 0 {
		b.WriteString(" AND o.kind IN (" + placeholders(len(q.Kinds)) + ")")
		for _, k := range q.Kinds {
			args = append(args, k)
		}
	}
	if len(q.Files) > 0 {
		b.WriteString(" AND (")
		for i, f := range q.Files {
			if i > 0 {
				b.WriteString(" OR ")
			}
			b.WriteString("instr(o.files, ?) > 0 OR instr(o.files, ?) > 0")
			args = append(args, "\n"+f+"\n", "/"+strings.TrimPrefix(f, "/")+"\n")
		}
		b.WriteString(")")
	}
	if !q.Since.IsZero() {
		b.WriteString(" AND o.created_at >= ?")
		args = append(args, millis(q.Since))
	}
	if !q.Until.IsZero() {
		b.WriteString(" AND o.created_at < ?")
		args = append(args, millis(q.Until))
	}
	return b.String(), args
}

func placeholders(n int) string {
	return strings.TrimSuffix(strings.Repeat("?, ", n), ", ")
}

// idsPerQuery is how many IDs one query asks for: SQLite takes at most
// 32766 values in a statement.
const idsPerQuery = 1000

const fullColumns = "o.id, o.project, o.session_id, o.created_at, o.kind, o.title, o.body, o.files, o.source"

// Observations returns the observations with these IDs, in the order
// given; IDs that do not exist are left out.
func (db *DB) Observations(ctx context.Context, ids []int64) ([]Observation, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	byID := make(map[int64]Observation, len(ids))
	for start := 0; start < len(ids); start += idsPerQuery {
		chunk := ids[start:min(start+idsPerQuery, len(ids))]
		args := make([]any, len(chunk))
		for i, id := range chunk {
			args[i] = id
		}
		got, err := db.observations(ctx, "WHERE o.id IN ("+placeholders(len(chunk))+")", args...)
		if err != nil {
			return nil, fmt.Errorf("get observations: %w", err)
		}
		for _, o := range got {
			byID[o.ID] = o
		}
	}
	out := make([]Observation, 0, len(byID))
	for _, id := range ids {
		if o, ok := byID[id]; ok {
			out = append(out, o)
			delete(byID, id) // an ID asked twice comes once
		}
	}
	return out, nil
}

// ObservationTimeline returns the observation with the given ID and up to
// before observations made just before it and after just after it, oldest
// first: those of its session, or of its project when it has no session
// or wholeProject is set.
func (db *DB) ObservationTimeline(ctx context.Context, id int64, before, after int, wholeProject bool) ([]Observation, error) {
	mid, err := db.observations(ctx, "WHERE o.id = ?", id)
	if err != nil {
		return nil, fmt.Errorf("timeline %d: %w", id, err)
	}
	if len(mid) == 0 {
		return nil, fmt.Errorf("timeline %d: %w", id, ErrNotFound)
	}
	o := mid[0]
	scope, key := "o.session_id = ?", o.SessionID
	if o.SessionID == "" || wholeProject {
		scope, key = "o.project = ?", o.Project
	}
	at := millis(o.CreatedAt)
	var earlier, later []Observation
	if before > 0 {
		earlier, err = db.observations(ctx, "WHERE "+scope+" AND (o.created_at, o.id) < (?, ?) ORDER BY o.created_at DESC, o.id DESC LIMIT ?",
			key, at, o.ID, before)
		if err != nil {
			return nil, fmt.Errorf("timeline %d: %w", id, err)
		}
	}
	if after > 0 {
		later, err = db.observations(ctx, "WHERE "+scope+" AND (o.created_at, o.id) > (?, ?) ORDER BY o.created_at, o.id LIMIT ?",
			key, at, o.ID, after)
		if err != nil {
			return nil, fmt.Errorf("timeline %d: %w", id, err)
		}
	}
	out := make([]Observation, 0, len(earlier)+1+len(later))
	for i := len(earlier) - 1; i >= 0; i-- {
		out = append(out, earlier[i])
	}
	out = append(out, o)
	return append(out, later...), nil
}

func (db *DB) observations(ctx context.Context, rest string, args ...any) ([]Observation, error) {
	conn, err := db.conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	rows, err := conn.QueryContext(ctx, "SELECT "+fullColumns+" FROM observations o "+rest, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Observation
	for rows.Next() {
		var o Observation
		var created int64
		var files string
		if err := rows.Scan(&o.ID, &o.Project, &o.SessionID, &created, &o.Kind, &o.Title, &o.Body, &files, &o.Source); err != nil {
			return nil, err
		}
		o.CreatedAt, o.Files = fromMillis(created), unframeFiles(files)
		out = append(out, o)
	}
	return out, rows.Err()
}

// Forget says which observations to remove for good. The fields combine
// (all must hold); at least one of IDs, Project, SessionID and Match must
// be set.
type Forget struct {
	IDs       []int64
	Project   string
	SessionID string
	// Match is an FTS5 query: the observations it finds go.
	Match string
	// Checkpoints also removes the checkpoints of the session (SessionID)
	// or of the project (Project), which hold the same text the
	// observations were made from. Only with SessionID or Project, and
	// neither IDs nor Match.
	Checkpoints bool
}

// Forgotten is what ForgetObservations removed.
type Forgotten struct {
	Observations int
	Checkpoints  int
}

// ErrWALBusy is returned (wrapped) when the rows are gone but another
// connection was reading an older state of the database, so that the
// write-ahead log could not be emptied: the forgotten text may remain in
// the -wal file until the next time it is.
var ErrWALBusy = errors.New("the write-ahead log is in use by another process")

// ForgetObservations removes observations for good: the rows, their terms
// in the full-text index (which is in secure-delete mode), the pages that
// held them (zeroed: every connection has PRAGMA secure_delete on, so the
// copies that page splits and index merges left before are zeroed too),
// and the write-ahead log that still held the old pages (checkpointed and
// truncated). Their content
// hashes are kept in the forgotten table so that the same content is not
// added again from a later checkpoint.
func (db *DB) ForgetObservations(ctx context.Context, f Forget) (Forgotten, error) {
	var out Forgotten
	where, args, err := f.filters()
	if err != nil {
		return out, fmt.Errorf("forget: %w", err)
	}
	conn, err := db.conn(ctx)
	if err != nil {
		return out, fmt.Errorf("forget: %w", err)
	}
	defer conn.Close()
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return out, fmt.Errorf("forget: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "INSERT OR IGNORE INTO forgotten (project, kind, hash) SELECT o.project, o.kind, o.hash FROM observations o "+where, args...); err != nil {
		return out, fmt.Errorf("forget: %w", err)
	}
	res, err := tx.ExecContext(ctx, "DELETE FROM observations WHERE id IN (SELECT o.id FROM observations o "+where+")", args...)
	if err != nil {
		return out, fmt.Errorf("forget: %w", err)
	}
	n, _ := res.RowsAffected()
	out.Observations = int(n)
	if f.Checkpoints {
		res, err := tx.ExecContext(ctx, "DELETE FROM checkpoints WHERE (?1 = '' OR project = ?1) AND (?2 = '' OR session_id = ?2)",
			f.Project, f.SessionID)
		if err != nil {
			return out, fmt.Errorf("forget: %w", err)
		}
		n, _ := res.RowsAffected()
		out.Checkpoints = int(n)
	}
	if err := tx.Commit(); err != nil {
		return Forgotten{}, fmt.Errorf("forget: %w", err)
	}
	if err := truncateWAL(ctx, conn); err != nil {
		return out, fmt.Errorf("forget: %w", err)
	}
	return out, nil
}

func (f Forget) filters() (string, []any, error) {
	if len(f.IDs) == 0 && f.Project == "" && f.SessionID == "" && f.Match == "" {
		return "", nil, errors.New("nothing says what to forget")
	}
	if f.Checkpoints && (len(f.IDs) > 0 || f.Match != "" || f.Project == "" && f.SessionID == "") {
		return "", nil, errors.New("checkpoints are forgotten by session or project only")
	}
	q := ObservationQuery{Project: f.Project, SessionID: f.SessionID}
	where, args := q.filters()
	if len(f.IDs) > 0 {
		where += " AND o.id IN (" + placeholders(len(f.IDs)) + ")"
		for _, id := range f.IDs {
			args = append(args, id)
		}
	}
	if f.Match != "" {
		where += " AND o.id IN (SELECT rowid FROM observations_fts WHERE observations_fts MATCH ?)"
		args = append(args, f.Match)
	}
	return "WHERE 1" + where, args, nil
}

// walWait bounds the wait for readers that keep the write-ahead log from
// being emptied: they are other cairn processes, done in milliseconds.
const walWait = 2 * time.Second

// truncateWAL copies the write-ahead log into the database and empties
// the file. A reader of an older state keeps the log from being reset:
// it waits for the readers up to walWait, then gives up with ErrWALBusy.
func truncateWAL(ctx context.Context, conn *sql.Conn) error {
	ctx, cancel := context.WithTimeout(ctx, walWait)
	defer cancel()
	wait := 5 * time.Millisecond
	for {
		var busy, logFrames, done int
		if err := conn.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logFrames, &done); err != nil {
			return err
		}
		if busy == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return ErrWALBusy
		case <-time.After(wait):
		}
		wait = min(2*wait, 100*time.Millisecond)
	}
}
