package bench

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/claudecode"
	_ "github.com/ncruces/go-sqlite3/driver"
)

// olderCheckpoints adds n checkpoints to the database of the hooks run
// with XDG_DATA_HOME=dir/data, older than any the hooks stored: half of
// them of the benchmark's own session, half of 500 other sessions of the
// same project, bodies of 5 KB (checkpoints weigh 1 to 15 KB). One
// transaction: AddCheckpoint's one each would take minutes.
func olderCheckpoints(b *testing.B, dir, project string, n int) {
	db, err := sql.Open("sqlite3", "file:"+filepath.Join(dir, "data", "cairn", "cairn.db")+"?_pragma=busy_timeout(10000)")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	stmt, err := tx.PrepareContext(ctx, `INSERT INTO checkpoints (project, session_id, created_at, trigger, context_tokens, task, body) VALUES (?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		b.Fatal(err)
	}
	body := []byte(`{"task":"` + strings.Repeat("x", 5<<10) + `"}`)
	start := time.Now().Add(-30 * 24 * time.Hour)
	for i := range n {
		session := "bench"
		if i%2 == 1 {
			session = fmt.Sprintf("other-%d", i%1000)
		}
		if _, err := stmt.ExecContext(ctx, project, session, start.Add(time.Duration(i)*time.Second).UnixMilli(), "precompact-auto", 150_000, "older work", body); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkHookSessionEndCheckpoints is BenchmarkHookSessionEnd with 0
// and 10,000 older checkpoints in the database: the hook alone, and the
// hook with the job it starts (the timed part waits for the job: the
// session's latest checkpoint looked up, the new one stored, its
// observations, the daily gc).
func BenchmarkHookSessionEndCheckpoints(b *testing.B) {
	for _, n := range []int{0, 10_000} {
		for _, job := range []bool{false, true} {
			name := fmt.Sprintf("checkpoints=%d/hook", n)
			if job {
				name = fmt.Sprintf("checkpoints=%d/with-job", n)
			}
			b.Run(name, func(b *testing.B) {
				h := newHookBench(b)
				h.settled()
				olderCheckpoints(b, h.dir, h.project, n)
				stamp, id := regexp.MustCompile(`"timestamp":"[^"]*"`), regexp.MustCompile(`"(msg|req)_[0-9A-Za-z]+"`)
				i := 0
				interleaved(b, h.dir, func() {
					i++
					turn := stamp.ReplaceAll(work.turn, []byte(`"timestamp":"`+time.Now().UTC().Format(time.RFC3339Nano)+`"`))
					h.appendLines(id.ReplaceAll(turn, fmt.Appendf(nil, `"${1}_bench%d"`, i)))
				}, func() {
					h.run("SessionEnd", map[string]any{"reason": "other"})
					if job {
						h.settled()
					}
				})
			})
		}
	}
}

// BenchmarkProcessSessions runs `cairn sessions` (the latest 20) in a
// project with 1, 20 and 1,000 Claude Code sessions whose state is saved,
// beside hello-world.
func BenchmarkProcessSessions(b *testing.B) {
	buildBinaries(b)
	src, err := os.ReadFile(filepath.Join(work.dir, "fixtures", "tool_heavy.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range []int{1, 20, 1000} {
		b.Run(fmt.Sprintf("sessions=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			project := filepath.Join(dir, "proj")
			os.MkdirAll(project, 0o755)
			claude := filepath.Join(dir, "claude")
			pd := filepath.Join(claude, "projects", claudecode.ProjectKey(project))
			os.MkdirAll(pd, 0o755)
			at := time.Now().Add(-time.Hour)
			for i := range n {
				p := filepath.Join(pd, fmt.Sprintf("%08d-0000-4000-8000-000000000000.jsonl", i))
				if err := os.WriteFile(p, src, 0o600); err != nil {
					b.Fatal(err)
				}
				os.Chtimes(p, at.Add(time.Duration(i)*time.Second), at.Add(time.Duration(i)*time.Second))
			}
			// The folder was last changed when its newest session began,
			// as a real one was (cairn trusts its saved listing of a
			// folder only while the folder's mtime is the one it saw).
			last := at.Add(time.Duration(n-1) * time.Second)
			os.Chtimes(pd, last, last)
			env := append(os.Environ(), "HOME="+filepath.Join(dir, "home"), "XDG_STATE_HOME="+filepath.Join(dir, "state"),
				"XDG_DATA_HOME="+filepath.Join(dir, "data"), "CLAUDE_CONFIG_DIR="+claude, "CODEX_HOME="+filepath.Join(dir, "codex"),
				"GEMINI_CLI_HOME="+filepath.Join(dir, "gemini"))
			run := func() {
				cmd := exec.Command(work.cairn, "sessions")
				cmd.Env, cmd.Dir = env, project
				out, err := cmd.Output()
				if err != nil || bytes.Count(out, []byte("\n")) != min(n, 20)+1 {
					b.Fatalf("cairn sessions: %v\n%s", err, out)
				}
			}
			run() // saves the state of the latest 20
			interleaved(b, "", nil, run)
		})
	}
}
