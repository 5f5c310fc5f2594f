//go:build unix

package hook

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/state"
)

// slowGit is git as the hooks run it, except for one call, which stops
// there: it copies the state directory (what a hook process killed at that
// moment leaves behind), tells the test through a FIFO, and waits to be
// killed. Every call is noted in a file, one line each.
const slowGit = `#!/bin/sh
echo "$*" >> "$CAIRN_TEST_CALLS"
case " $* " in
*" $CAIRN_TEST_HANG "*)
	if mkdir "$CAIRN_TEST_SNAP.taken" 2>/dev/null; then
		cp -R "$CAIRN_TEST_STATE" "$CAIRN_TEST_SNAP"
		echo stopped > "$CAIRN_TEST_FIFO"
		exec sleep 600
	fi
	;;
esac
exec "$CAIRN_TEST_GIT" "$@"
`

// A PostToolUse hook that crosses a level does its work (the checkpoint
// reads git and opens the database; at L2 a handoff and a snapshot follow)
// within a 2 s budget, and a hook process ends when its budget does. The
// budget running out at any point of it must not leave the crossing to be
// worked on again at the next tool call, and the next after that: with a
// slow repository every tool call would spend its whole budget on it. The
// advisory the hook could not give comes at the next call instead.
func TestCrossingOutOfBudget(t *testing.T) {
	realGit, err := exec.LookPath("git")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		tokens int
		level  string
		hang   string // the git call the budget runs out in
	}{
		{"in the checkpoint's git status at L1", 120000, "L1", "status --porcelain=v2"},
		{"in the snapshot at L2, after the checkpoint and the handoff", 145000, "L2", "add -A"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			s := w.session("sess-slow")
			gitIn(t, realGit, s.project, "init", "-q", "-b", "main")
			os.WriteFile(filepath.Join(s.project, "a.txt"), []byte("one\n"), 0o644)
			gitIn(t, realGit, s.project, "add", ".")
			gitIn(t, realGit, s.project, "commit", "-qm", "init")
			os.WriteFile(filepath.Join(s.project, "a.txt"), []byte("two\n"), 0o644)

			bin, calls, snap, fifo := t.TempDir(), filepath.Join(w.dir, "git-calls"), filepath.Join(w.dir, "state-at-kill"), filepath.Join(w.dir, "stopped")
			if err := os.WriteFile(filepath.Join(bin, "git"), []byte(slowGit), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := mkfifo(fifo); err != nil {
				t.Fatal(err)
			}
			for k, v := range map[string]string{"CAIRN_TEST_CALLS": calls, "CAIRN_TEST_HANG": tt.hang, "CAIRN_TEST_SNAP": snap,
				"CAIRN_TEST_STATE": w.stateDir(), "CAIRN_TEST_FIFO": fifo, "CAIRN_TEST_GIT": realGit} {
				t.Setenv(k, v)
			}
			t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))

			s.prompt("Migrate the ledger for SLOW-1.")
			s.reply("ok", tt.tokens)
			// The budget runs out, by the test's hand, while git works.
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var out bytes.Buffer
			r := w.runner(bytes.NewReader(mustJSON(s.payload("PostToolUse", nil))), &out)
			r.Budget = time.Hour // only the test ends it
			ran := make(chan struct{})
			go func() { r.Run(ctx, "PostToolUse"); close(ran) }()
			stopped := make(chan error, 1)
			go func() { _, err := os.ReadFile(fifo); stopped <- err }()
			select {
			case err := <-stopped:
				if err != nil {
					t.Fatal(err)
				}
			case <-ran:
				os.WriteFile(fifo, nil, 0o600) // free the reader
				t.Fatalf("the hook ended without running git %s; it ran:\n%s", tt.hang, read(calls))
			}
			cancel()
			<-ran
			r.Wait()
			if out.Len() != 0 {
				t.Errorf("answered after its budget ran out: %q", out.String())
			}
			// The process ends here: the state is what it was at the
			// kill, whatever the handler did after.
			os.RemoveAll(w.stateDir())
			if err := os.Rename(snap, w.stateDir()); err != nil {
				t.Fatal(err)
			}
			if m := (state.Store{Dir: w.stateDir()}).Marks(s.path); m.Captured == 0 {
				t.Errorf("the crossing was not yet recorded as acted on when the budget ran out: %+v", m)
			}
			gitCalls, checkpoints := read(calls), w.checkpoints()
			handoffs, _ := filepath.Glob(filepath.Join(s.project, ".claude", "handoffs", "*.md"))

			text := restored(t, w.run("PostToolUse", s.payload("PostToolUse", nil)))
			if again := strings.TrimPrefix(read(calls), gitCalls); again != "" {
				t.Errorf("the next tool call worked on the crossing again, running git:\n%s", again)
			}
			if n := w.checkpoints(); n != checkpoints {
				t.Errorf("the next tool call stored %d checkpoints more", n-checkpoints)
			}
			if h, _ := filepath.Glob(filepath.Join(s.project, ".claude", "handoffs", "*.md")); len(h) != len(handoffs) {
				t.Errorf("handoffs %v, then %v", handoffs, h)
			}
			if !strings.Contains(text, "context "+tt.level) {
				t.Errorf("the %s advisory the first call could not give is lost: %q", tt.level, text)
			}
			if out := w.run("PostToolUse", s.payload("PostToolUse", nil)); out != "" {
				t.Errorf("the crossing announced twice: %q", out)
			}
		})
	}
}

func gitIn(t *testing.T, git, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command(git, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@e", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@e")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v %s", args, err, out)
	}
}

func read(file string) string {
	data, _ := os.ReadFile(file)
	return string(data)
}
