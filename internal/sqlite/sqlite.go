// Package sqlite is cairn's durable store: checkpoints of an agent's working
// state, the claims that make a restore or a resume pointer happen once,
// and observations (what was extracted from sessions, with a full-text
// index) that internal/memory searches.
// (Hook runs are recorded in small files instead: the hottest hooks never
// open the database.) It wraps github.com/ncruces/go-sqlite3 (SQLite compiled
// to Go, no cgo), whose package initialisation costs nothing measurable,
// where modernc.org/sqlite's cost every cairn process 0.7 ms at start-up.
//
// The store is opened by many short-lived processes at once (every hook is a
// fresh process), so the database is in WAL mode, writers take the write lock
// up front (BEGIN IMMEDIATE) and wait for each other through SQLite's busy
// timeout, and exactly-once claims rest on primary keys rather than on reads
// followed by writes. Callers pass and get plain data; a checkpoint's body is
// an opaque JSON document this package stores and returns unchanged.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/driver"
	"github.com/ncruces/go-sqlite3/ext/fts5"
)

// ErrNotFound is returned (wrapped) when a looked-up row does not exist.
var ErrNotFound = errors.New("not found")

// busyTimeout is how long a call waits for another process's write lock when
// its context has no earlier deadline. 200 concurrent writer processes lost
// nothing with it (shared/DEPENDENCIES.md).
const busyTimeout = 10 * time.Second

// params configures every connection the pool opens. Foreign keys are a
// per-connection setting, so they belong here and not in a migration.
// secure_delete zeroes what a delete, a page split or a full-text index
// merge leaves behind, on every connection: a forgotten observation must
// not survive in a page freed before it was forgotten (TestForget*). A
// 20 MB page cache (taken as pages are read) spares a search over a large
// index a fifth of its CPU time in re-reading pages (BenchmarkSearch).
const params = "_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)" +
	"&_pragma=foreign_keys(1)&_pragma=secure_delete(1)&_pragma=cache_size(-20000)&_txlock=immediate"

//go:embed migrations/*.sql
var migrations embed.FS

// DB is an open store. It is safe for concurrent use.
type DB struct {
	// Now is the clock for times the caller leaves zero. Open sets it to time.Now.
	Now func() time.Time

	db   *sql.DB
	path string
}

// Open opens the database at path, creating it and its parent directory if
// needed, and brings its schema up to date.
//
// The directory is created 0700 and the file 0600. The file is created here
// rather than by SQLite because SQLite gives the -wal and -shm files the mode
// of the database file, whatever the umask: they stay private too.
func Open(ctx context.Context, path string) (*DB, error) {
	path, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	if err := createFile(path); err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	// A file: URI with the path escaped, so that a '?', '#' or '%' in the
	// path is not read as the start of the parameters.
	// modeof gives the -wal file the database file's mode (0600), as
	// SQLite's own VFS does; the -shm file is set after opening.
	dsn := "file:" + (&url.URL{Path: filepath.ToSlash(path)}).EscapedPath() + "?" + params +
		"&modeof=" + uriEscape(path)
	// Every connection gets FTS5, which this driver leaves out of its
	// default build: the observations' index needs it, and registering it
	// costs a process about 0.3 ms (docs/benchmarks.md).
	sqldb, err := driver.Open(dsn, fts5.Register)
	if err != nil {
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	db := &DB{Now: time.Now, db: sqldb, path: path}
	err = db.migrateRetrying(ctx)
	for _, side := range []string{"-wal", "-shm"} {
		if fi, serr := os.Stat(path + side); serr == nil && fi.Mode().Perm() != 0o600 {
			os.Chmod(path+side, 0o600)
		}
	}
	if err != nil {
		sqldb.Close()
		if code(err) == sqlite3.NOTADB {
			return nil, fmt.Errorf("open database %s: the file is not a SQLite database; move it aside and cairn will create a new one", path)
		}
		return nil, fmt.Errorf("open database %s: %w", path, err)
	}
	return db, nil
}

func createFile(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Chmod(0o600) // the umask may have taken bits away
}

// Close closes the database. The last connection to close folds the WAL back
// into the database file.
func (db *DB) Close() error {
	return db.db.Close()
}

// conn takes a connection from the pool for one call and shortens its busy
// timeout to ctx's deadline. SQLite's busy wait does not notice a cancelled
// context: without this a call on a locked database would wait the full
// busyTimeout whatever ctx says. The caller closes the connection.
func (db *DB) conn(ctx context.Context) (*sql.Conn, error) {
	c, err := db.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	ms := busyTimeout.Milliseconds()
	if d, ok := ctx.Deadline(); ok {
		ms = max(0, min(ms, time.Until(d).Milliseconds()+1))
	}
	if _, err := c.ExecContext(ctx, "PRAGMA busy_timeout = "+strconv.FormatInt(ms, 10)); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// migrateRetrying runs migrate until it is not refused with SQLITE_BUSY or
// ctx ends. When processes open a new database at the same moment, the
// switch to WAL mode and the first read can meet another connection's lock
// without SQLite's busy handler waiting for it.
func (db *DB) migrateRetrying(ctx context.Context) error {
	wait := 5 * time.Millisecond
	for {
		err := db.migrate(ctx)
		if code(err) != sqlite3.BUSY && code(err) != sqlite3.LOCKED {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(wait):
		}
		wait = min(2*wait, 100*time.Millisecond)
	}
}

// migrate applies the embedded migrations not yet recorded in schema_version,
// all in one transaction. Migration files are named NNNN_what.sql; NNNN is
// the version.
func (db *DB) migrate(ctx context.Context) error {
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return err
	}
	latest, err := migrationVersion(names[len(names)-1])
	if err != nil {
		return err
	}
	c, err := db.conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()

	// Every hook process opens the database: when the schema is current, as it
	// nearly always is, a read settles it without taking the write lock. Any
	// error here (no table yet) is left to the transaction below.
	var have int
	err = c.QueryRowContext(ctx, "SELECT coalesce(max(version), 0) FROM schema_version").Scan(&have)
	if err == nil && have >= latest {
		return nil
	}

	// BEGIN IMMEDIATE: of processes opening a new database together, one
	// migrates and the others wait, then find nothing left to do.
	tx, err := c.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_version (
		version    INTEGER PRIMARY KEY,
		applied_at INTEGER NOT NULL
	)`); err != nil {
		return err
	}
	if err := tx.QueryRowContext(ctx, "SELECT coalesce(max(version), 0) FROM schema_version").Scan(&have); err != nil {
		return err
	}
	for _, name := range names {
		v, err := migrationVersion(name)
		if err != nil {
			return err
		}
		if v <= have {
			continue
		}
		stmts, err := migrations.ReadFile(name)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, string(stmts)); err != nil {
			return fmt.Errorf("migration %s: %w", path.Base(name), err)
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO schema_version (version, applied_at) VALUES (?, ?)",
			v, millis(db.Now())); err != nil {
			return err
		}
	}
	return tx.Commit()
}

func migrationVersion(name string) (int, error) {
	num, _, _ := strings.Cut(path.Base(name), "_")
	v, err := strconv.Atoi(num)
	if err != nil {
		return 0, fmt.Errorf("migration %s: name does not start with a version number", name)
	}
	return v, nil
}

// uriEscape percent-encodes every byte of s but letters, digits and
// "/._-~", as SQLite's URI parameters want (it does not read '+' as a space).
func uriEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("/._-~", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// code returns the primary SQLite result code in err, or 0. The driver
// returns *sqlite3.Error, or a bare code, depending on where it failed.
func code(err error) sqlite3.ErrorCode {
	var e *sqlite3.Error
	if errors.As(err, &e) {
		return e.Code()
	}
	var c sqlite3.ErrorCode
	if errors.As(err, &c) {
		return c
	}
	var x sqlite3.ExtendedErrorCode
	if errors.As(err, &x) {
		return sqlite3.ErrorCode(x)
	}
	return 0
}

// Times are stored as Unix milliseconds: precise enough for ordering
// checkpoints (ties fall back to the id) and readable in the sqlite3 shell
// with datetime(x/1000, 'unixepoch').
func millis(t time.Time) int64 { return t.UnixMilli() }

func fromMillis(ms int64) time.Time { return time.UnixMilli(ms).UTC() }
