package faults

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	_ "github.com/ncruces/go-sqlite3/driver"
)

// cairnBin is the binary TestMain built, or buildErr why it could not.
// Set before any test runs and only read afterwards.
var (
	cairnBin string
	buildErr error
)

// lockerEnv makes the test binary a database locker instead (lock.go):
// the value is the database to lock.
const lockerEnv = "CAIRN_FAULTS_LOCKER"

func TestMain(m *testing.M) {
	if db := os.Getenv(lockerEnv); db != "" {
		os.Exit(runLocker(db, os.Stdin, os.Stdout))
	}
	if bin := os.Getenv("CAIRN_FAULTS_BIN"); bin != "" {
		// A binary built elsewhere (a release, or for a run as another
		// user without the Go toolchain).
		cairnBin = bin
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "cairn-faults-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "faults:", err)
		os.Exit(2)
	}
	cairnBin, buildErr = buildCairn(dir)
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// buildCairn builds cmd/cairn as the README installs it.
func buildCairn(dir string) (string, error) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("go tool not found: %w", err)
	}
	bin := filepath.Join(dir, "cairn")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goTool, "build", "-o", bin, "github.com/cairn-agent/cairn/cmd/cairn")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build cmd/cairn: %w\n%s", err, out)
	}
	return bin, nil
}

// runLocker holds an exclusive write lock on the database at path, with
// the driver cairn uses, from when it prints "locked" until its stdin
// closes. It is its own process, as another cairn (or a sqlite3 shell)
// holding the lock would be.
func runLocker(path string, stdin io.Reader, stdout io.Writer) int {
	fail := func(err error) int {
		fmt.Fprintln(stdout, "error:", err)
		return 1
	}
	db, err := sql.Open("sqlite3", "file:"+path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)")
	if err != nil {
		return fail(err)
	}
	defer db.Close()
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		return fail(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN EXCLUSIVE"); err != nil {
		return fail(err)
	}
	fmt.Fprintln(stdout, "locked")
	io.Copy(io.Discard, bufio.NewReader(stdin))
	conn.ExecContext(ctx, "ROLLBACK")
	return 0
}
