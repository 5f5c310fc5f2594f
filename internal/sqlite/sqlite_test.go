package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestMain doubles as the writer process of TestConcurrentProcesses: the test
// re-executes its own binary with writerEnv set to a database path.
func TestMain(m *testing.M) {
	if path := os.Getenv(writerEnv); path != "" {
		os.Exit(writer(path))
	}
	os.Exit(m.Run())
}

const (
	writerEnv      = "CAIRN_SQLITE_TEST_WRITER"
	writerIDEnv    = "CAIRN_SQLITE_TEST_WRITER_ID"
	writerStartEnv = "CAIRN_SQLITE_TEST_WRITER_START"
	writerAdds     = 25
)

// writer waits for the common start time, so that all writers open the new
// database and claim together, then claims the shared restore and adds its
// checkpoints.
func writer(path string) int {
	start, _ := strconv.ParseInt(os.Getenv(writerStartEnv), 10, 64)
	time.Sleep(time.Until(time.UnixMilli(start)))
	ctx := context.Background()
	db, err := Open(ctx, path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer db.Close()
	first, err := db.Claim(ctx, "shared-session", "compaction-1")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for i := range writerAdds {
		if _, err := db.AddCheckpoint(ctx, Checkpoint{
			Project: "/p", SessionID: "proc-" + os.Getenv(writerIDEnv), Task: strconv.Itoa(i), Body: []byte(`{}`),
		}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	fmt.Printf("first=%t\n", first)
	return 0
}

var t0 = time.Date(2026, 3, 4, 5, 6, 7, 8_000_000, time.UTC)

// openTest opens a new database in a temporary directory, with a clock fixed at t0.
func openTest(t testing.TB) *DB {
	t.Helper()
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "cairn.db"))
	if err != nil {
		t.Fatal(err)
	}
	db.Now = func() time.Time { return t0 }
	t.Cleanup(func() { db.Close() })
	return db
}

func TestOpenTwice(t *testing.T) {
	ctx := context.Background()
	// A new directory, and characters that would break a file: URI unescaped.
	path := filepath.Join(t.TempDir(), "new dir?#%41", "cairn.db")
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	id, err := db.AddCheckpoint(ctx, Checkpoint{Project: "/p", SessionID: "s", Body: []byte(`{"a":1}`)})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db, err = Open(ctx, path)
	if err != nil {
		t.Fatalf("second open: %v", err)
	}
	defer db.Close()
	if _, err := db.Checkpoint(ctx, id); err != nil {
		t.Errorf("checkpoint written before reopening: %v", err)
	}
	if head, _ := os.ReadFile(path); !bytes.HasPrefix(head, []byte("SQLite format 3\x00")) {
		t.Errorf("no database at the path given, %s", path)
	}
	var versions int
	if err := db.db.QueryRow("SELECT count(*) FROM schema_version").Scan(&versions); err != nil {
		t.Fatal(err)
	}
	if names, _ := migrations.ReadDir("migrations"); versions != len(names) {
		t.Errorf("schema_version has %d rows, want one per migration (%d)", versions, len(names))
	}
}

func TestOpenSettings(t *testing.T) {
	db := openTest(t)
	for pragma, want := range map[string]string{
		"journal_mode":  "wal",
		"foreign_keys":  "1",
		"synchronous":   "1", // NORMAL
		"busy_timeout":  "10000",
		"secure_delete": "1",
	} {
		var got string
		if err := db.db.QueryRow("PRAGMA " + pragma).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("PRAGMA %s = %s, want %s", pragma, got, want)
		}
	}
}

func TestOpenNotADatabase(t *testing.T) {
	for _, tc := range []struct {
		name    string
		content []byte
	}{
		{"text", bytes.Repeat([]byte("this is not a database\n"), 200)},
		{"short", []byte("hello")},
		{"binary", bytes.Repeat([]byte{0xde, 0xad, 0xbe, 0xef}, 1024)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "cairn.db")
			if err := os.WriteFile(path, tc.content, 0o600); err != nil {
				t.Fatal(err)
			}
			db, err := Open(context.Background(), path)
			if err == nil {
				db.Close()
				t.Fatal("Open succeeded on a file that is not a database")
			}
			if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "not a SQLite database") {
				t.Errorf("error %q does not say that %s is not a SQLite database", err, path)
			}
			if got, _ := os.ReadFile(path); !bytes.Equal(got, tc.content) {
				t.Error("Open changed the file")
			}
		})
	}
}

func TestConcurrentGoroutines(t *testing.T) {
	const goroutines, adds = 20, 10
	ctx := context.Background()
	db := openTest(t)
	target, err := db.AddCheckpoint(ctx, Checkpoint{Project: "/other", SessionID: "s"})
	if err != nil {
		t.Fatal(err)
	}

	var wg sync.WaitGroup
	var mu sync.Mutex
	restores, pointers := 0, 0
	for g := range goroutines {
		wg.Go(func() {
			first, err := db.Claim(ctx, "shared", "compaction-1")
			if err != nil {
				t.Error(err)
				return
			}
			firstPointer, err := db.Claim(ctx, "shared", fmt.Sprintf("pointer:%d", target))
			if err != nil {
				t.Error(err)
				return
			}
			for i := range adds {
				if _, err := db.AddCheckpoint(ctx, Checkpoint{Project: "/p", SessionID: fmt.Sprintf("g%d", g), Task: strconv.Itoa(i)}); err != nil {
					t.Error(err)
					return
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if first {
				restores++
			}
			if firstPointer {
				pointers++
			}
		})
	}
	wg.Wait()

	if restores != 1 || pointers != 1 {
		t.Errorf("%d restore claims and %d pointer claims came first, want 1 each", restores, pointers)
	}
	list, err := db.Checkpoints(ctx, "/p", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != goroutines*adds {
		t.Errorf("%d checkpoints stored, want %d", len(list), goroutines*adds)
	}
}

// TestConcurrentProcesses is the case hooks create: separate processes,
// each with its own connections, opening a new database at the same moment.
func TestConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	const procs = 8
	path := filepath.Join(t.TempDir(), "cairn.db")
	start := time.Now().Add(time.Second).UnixMilli()
	cmds := make([]*exec.Cmd, procs)
	outs := make([]*bytes.Buffer, procs)
	for i := range cmds {
		outs[i] = new(bytes.Buffer)
		cmds[i] = exec.Command(os.Args[0], "-test.run=^$")
		cmds[i].Env = append(os.Environ(), writerEnv+"="+path, writerIDEnv+"="+strconv.Itoa(i),
			writerStartEnv+"="+strconv.FormatInt(start, 10))
		cmds[i].Stdout, cmds[i].Stderr = outs[i], outs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	firsts := 0
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("writer %d: %v\n%s", i, err, outs[i])
			continue
		}
		switch out := strings.TrimSpace(outs[i].String()); out {
		case "first=true":
			firsts++
		case "first=false":
		default:
			t.Errorf("writer %d printed %q", i, out)
		}
	}
	if firsts != 1 {
		t.Errorf("%d processes claimed the restore first, want exactly 1", firsts)
	}

	db, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	list, err := db.Checkpoints(context.Background(), "/p", 0)
	if err != nil {
		t.Fatal(err)
	}
	perSession := map[string]int{}
	for _, c := range list {
		perSession[c.SessionID]++
	}
	if len(list) != procs*writerAdds || len(perSession) != procs {
		t.Errorf("%d checkpoints from %d sessions stored, want %d from %d: %v",
			len(list), len(perSession), procs*writerAdds, procs, perSession)
	}
}

// TestLocked checks that a call on a database another connection keeps
// locked fails when its context expires, not after the 10 s busy timeout,
// and that reads still go through (WAL).
func TestLocked(t *testing.T) {
	const timeout = 200 * time.Millisecond
	ctx := context.Background()
	db := openTest(t)
	id, err := db.AddCheckpoint(ctx, Checkpoint{Project: "/p", SessionID: "s", Body: []byte(`{}`)})
	if err != nil {
		t.Fatal(err)
	}

	writes := []struct {
		name string
		call func(context.Context) error
	}{
		{"AddCheckpoint", func(ctx context.Context) error {
			_, err := db.AddCheckpoint(ctx, Checkpoint{Project: "/p", SessionID: "s"})
			return err
		}},
		{"Claim", func(ctx context.Context) error {
			_, err := db.Claim(ctx, "s", "k")
			return err
		}},
	}
	for _, lock := range []string{"IMMEDIATE", "EXCLUSIVE"} {
		t.Run(lock, func(t *testing.T) {
			other, err := sql.Open("sqlite3", db.path)
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close()
			conn, err := other.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := conn.ExecContext(ctx, "BEGIN "+lock); err != nil {
				t.Fatal(err)
			}
			defer conn.ExecContext(ctx, "ROLLBACK")

			for _, w := range writes {
				ctx, cancel := context.WithTimeout(ctx, timeout)
				began := time.Now()
				err := w.call(ctx)
				took := time.Since(began)
				cancel()
				if err == nil {
					t.Errorf("%s succeeded on a locked database", w.name)
				}
				if took > timeout+time.Second {
					t.Errorf("%s took %v with a %v deadline", w.name, took, timeout)
				}
			}

			ctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			if _, err := db.Checkpoint(ctx, id); err != nil {
				t.Errorf("read while locked: %v", err)
			}
		})
	}
}

// The benchmarks open the store afresh each iteration, as a hook process
// does; the database already exists and is migrated.

func benchDB(b *testing.B, checkpoints int) string {
	ctx := context.Background()
	path := filepath.Join(b.TempDir(), "cairn.db")
	db, err := Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	for i := range checkpoints {
		if _, err := db.AddCheckpoint(ctx, Checkpoint{
			Project: fmt.Sprintf("/project/%d", i%10), SessionID: fmt.Sprintf("s%d", i%50), Body: benchBody,
		}); err != nil {
			b.Fatal(err)
		}
	}
	return path
}

var benchBody = []byte(`{"task":"` + strings.Repeat("x", 4000) + `"}`)

func BenchmarkOpenClose(b *testing.B) {
	ctx := context.Background()
	path := benchDB(b, 1000)
	for b.Loop() {
		db, err := Open(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		if err := db.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkOpenAddClose(b *testing.B) {
	ctx := context.Background()
	path := benchDB(b, 1000)
	for b.Loop() {
		db, err := Open(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := db.AddCheckpoint(ctx, Checkpoint{Project: "/project/3", SessionID: "s3", Body: benchBody}); err != nil {
			b.Fatal(err)
		}
		if err := db.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkOpenLatestClose(b *testing.B) {
	ctx := context.Background()
	path := benchDB(b, 1000)
	for b.Loop() {
		db, err := Open(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := db.LatestCheckpoint(ctx, "/project/3", "s3"); err != nil {
			b.Fatal(err)
		}
		if err := db.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// Hooks of several sessions can be the first to open a database at the
// same moment: none of them may fail on the other's lock.
func TestConcurrentFirstOpen(t *testing.T) {
	for round := 0; round < 5; round++ {
		path := filepath.Join(t.TempDir(), "fresh.db")
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for i := 0; i < 8; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				defer cancel()
				db, err := Open(ctx, path)
				if err != nil {
					errs <- err
					return
				}
				defer db.Close()
				if _, err := db.AddCheckpoint(ctx, Checkpoint{Project: "/p", SessionID: "s", Trigger: "t"}); err != nil {
					errs <- err
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Errorf("round %d: %v", round, err)
		}
	}
}
