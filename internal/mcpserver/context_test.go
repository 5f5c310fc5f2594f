package mcpserver_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-agent/cairn/internal/checkpoint"
	"github.com/cairn-agent/cairn/internal/continuity"
	"github.com/cairn-agent/cairn/internal/fixtures"
	"github.com/cairn-agent/cairn/internal/git"
	"github.com/cairn-agent/cairn/internal/golden"
	"github.com/cairn-agent/cairn/internal/mcpserver/mcptest"
	"github.com/cairn-agent/cairn/internal/meter"
)

// statusOf calls check_compaction_status and decodes its answer, checking
// that the text and the structured content say the same.
func statusOf(t *testing.T, c *mcptest.Conn) (map[string]any, string) {
	t.Helper()
	res, err := c.CallTool(t.Context(), toolCall("check_compaction_status", nil))
	if err != nil {
		t.Fatal(err)
	}
	out := mcptest.Text(res)
	if res.IsError {
		t.Fatalf("check_compaction_status: %s", out)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("status %q: %v", out, err)
	}
	structured, _ := json.Marshal(res.StructuredContent)
	var sv map[string]any
	if err := json.Unmarshal(structured, &sv); err != nil || len(sv) != len(v) {
		t.Errorf("structured content %s differs from the text %s", structured, out)
	}
	return v, out
}

// The status of the real fixtures: the tokens the meter reads, the
// compaction the transcript records, and the risk that follows.
func TestStatusFixtures(t *testing.T) {
	for _, c := range []struct {
		name, risk, level string
		compacted         bool
	}{
		{fixtures.Compactions[0].Session, "occurred", "L0", true}, // 46% of the threshold after its compaction
		{fixtures.Compactions[2].Session, "medium", "L1", true},   // 79%: grown back past L1
		{"short", "low", "L0", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t)
			p := w.session(t, c.name)
			conn := mcptest.Connect(t, w.options(), "")
			v, out := statusOf(t, conn)
			s, err := w.keeper.Load(p, false)
			if err != nil {
				t.Fatal(err)
			}
			r, _ := meter.Measure(s, meter.Settings{})
			if v["tokens_used"] != float64(r.Tokens) || v["window"] != float64(r.Window) || v["auto_compact_at"] != float64(r.Threshold) || v["session"] != s.SessionID {
				t.Errorf("status %s: want the meter's %d of %d, threshold %d, session %s", out, r.Tokens, r.Window, r.Threshold, s.SessionID)
			}
			if v["compaction_risk"] != c.risk || v["level"] != c.level || v["preserved_anchors"] != 0.0 {
				t.Errorf("status %s: want risk %s at %s, no anchors", out, c.risk, c.level)
			}
			if c.compacted {
				last, _ := v["last_compaction"].(map[string]any)
				var want fixtures.Compaction
				for _, f := range fixtures.Compactions {
					if f.Session == c.name {
						want = f
					}
				}
				if v["compactions"] != 1.0 || last["pre_tokens"] != float64(want.PreTokens) || last["trigger"] != want.Trigger {
					t.Errorf("status %s: want the boundary's %s compaction at %d tokens", out, want.Trigger, want.PreTokens)
				}
			}
			golden.Check(t, filepath.Join("testdata", "status-"+c.name+".json"), out+"\n")
		})
	}
}

// The risk at each pressure level of the default configuration, and after
// a compaction.
func TestStatusRisk(t *testing.T) {
	for _, c := range []struct {
		name   string
		tokens []int // the context of each reply
		compac bool  // a compaction after all but the last
		risk   string
		level  string
	}{
		{"below L1", []int{100000}, false, "low", "L0"},
		{"L1", []int{120000}, false, "medium", "L1"},
		{"L2", []int{150000}, false, "high", "L2"},
		{"past the threshold", []int{170000}, false, "high", "L3"},
		{"just compacted", []int{150000, 10000}, true, "occurred", "L0"},
		{"grown back", []int{150000, 125000}, true, "medium", "L1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t)
			s := &synthetic{id: "sess-risk", cwd: w.project}
			for i, n := range c.tokens {
				s.prompt("step " + string(rune('a'+i)))
				if c.compac && i == len(c.tokens)-1 {
					s.boundary(c.tokens[i-1], 9000)
				}
				s.reply("done", n)
			}
			w.write(t, s.id, s.lines)
			v, out := statusOf(t, mcptest.Connect(t, w.options(), ""))
			if v["compaction_risk"] != c.risk || v["level"] != c.level || v["tokens_used"] != float64(c.tokens[len(c.tokens)-1]) {
				t.Errorf("status %s: want risk %s at %s", out, c.risk, c.level)
			}
			if c.compac {
				if last, _ := v["last_compaction"].(map[string]any); last["turns_ago"] != 1.0 || last["pre_tokens"] != float64(c.tokens[0]) {
					t.Errorf("last compaction %v: want 1 turn ago, at %d", last, c.tokens[0])
				}
			}
		})
	}
}

func TestNoSession(t *testing.T) {
	w := newWorld(t)
	c := mcptest.Connect(t, w.options(), "")
	for _, tool := range []string{"check_compaction_status", "preserve_critical_context", "restore_compacted_context"} {
		if out, isErr := c.Call(t, tool, nil); !isErr || !strings.Contains(out, "no Claude Code session found for "+w.project) {
			t.Errorf("%s with no session: %q", tool, out)
		}
	}
}

func gitRun(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t",
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// Each level saves more: a checkpoint; with a handoff document; with a
// snapshot of the uncommitted work that leaves the work tree alone.
func TestPreserve(t *testing.T) {
	w := newWorld(t)
	w.session(t, fixtures.Compactions[0].Session)
	gitRun(t, w.project, "init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(w.project, "main.go"), []byte("package main\n"), 0o644)
	// Handoffs are not work: a project that ignores them has nothing to
	// snapshot until a file changes.
	os.WriteFile(filepath.Join(w.project, ".gitignore"), []byte(".claude/\n"), 0o644)
	gitRun(t, w.project, "add", ".")
	gitRun(t, w.project, "commit", "-q", "-m", "first")
	c := mcptest.Connect(t, w.options(), "")

	out, isErr := c.Call(t, "preserve_critical_context", map[string]any{"level": "full"})
	if isErr || !strings.Contains(out, "No snapshot: no uncommitted work.") || !strings.Contains(out, "Handoff: .claude/handoffs/") {
		t.Errorf("full, clean work tree: %q", out)
	}
	os.WriteFile(filepath.Join(w.project, "main.go"), []byte("package main\n\nfunc main() {}\n"), 0o644)
	statusBefore := gitRun(t, w.project, "status", "--porcelain")

	for i, c2 := range []struct {
		args    map[string]any
		want    []string
		handoff bool
	}{
		{map[string]any{}, []string{"Saved checkpoint 2 (77,334 tokens in context)"}, false},
		{map[string]any{"level": "critical"}, []string{"Saved checkpoint 3"}, false},
		{map[string]any{"level": "extended"}, []string{"Saved checkpoint 4", "Handoff: .claude/handoffs/"}, true},
		{map[string]any{"level": "full"}, []string{"Saved checkpoint 5", "Handoff: .claude/handoffs/", "Snapshot 1 of the uncommitted work: refs/cairn/wip/"}, true},
	} {
		out, isErr := c.Call(t, "preserve_critical_context", c2.args)
		for _, want := range c2.want {
			if isErr || !strings.Contains(out, want) {
				t.Errorf("preserve %v = %q, want %q", c2.args, out, want)
			}
		}
		if !c2.handoff && strings.Contains(out, "Handoff") {
			t.Errorf("preserve %v wrote a handoff: %q", c2.args, out)
		}
		v, _ := statusOf(t, c)
		if a, _ := v["latest_anchor"].(map[string]any); v["preserved_anchors"] != float64(i+2) || a["id"] != float64(i+2) {
			t.Errorf("after preserve %v: anchors %v, latest %v", c2.args, v["preserved_anchors"], a)
		}
	}
	snaps, err := git.Snapshots(context.Background(), w.project, "")
	if err != nil || len(snaps) != 1 {
		t.Fatalf("snapshots %v, %v", snaps, err)
	}
	if show := gitRun(t, w.project, "show", snaps[0].Ref+":main.go"); !strings.Contains(show, "func main()") {
		t.Errorf("the snapshot holds %q", show)
	}
	if after := gitRun(t, w.project, "status", "--porcelain"); after != statusBefore {
		t.Errorf("the work tree changed: %q, was %q", after, statusBefore)
	}
	hs, _ := filepath.Glob(filepath.Join(w.project, ".claude", "handoffs", "*.md"))
	if len(hs) != 3 {
		t.Errorf("handoffs %v, want 3", hs)
	}
	mcptest.BadArguments(t, c, []mcptest.BadCall{
		{Tool: "preserve_critical_context", Args: map[string]any{"level": "everything"}, Want: "level"},
		{Tool: "preserve_critical_context", Args: map[string]any{"level": 2}, Want: "level"},
		{Tool: "check_compaction_status", Args: map[string]any{"verbose": true}, Want: "verbose"},
	})
}

func TestPreserveNothing(t *testing.T) {
	w := newWorld(t)
	w.write(t, "empty", nil)
	out, isErr := mcptest.Connect(t, w.options(), "").Call(t, "preserve_critical_context", nil)
	if !isErr || !strings.Contains(out, "nothing to save yet") {
		t.Errorf("preserve with no conversation: %q", out)
	}
}

// stored is the checkpoint with this id as the database has it.
func (w *world) stored(t *testing.T, id int64) checkpoint.Checkpoint {
	t.Helper()
	db, err := w.keeper.DB(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	rec, err := db.Checkpoint(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	c, err := continuity.FromRecord(rec)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A compacted fixture with no checkpoint: the restore is built from the
// transcript and kept; once a checkpoint covers the compaction, that one
// is shown, at each depth.
func TestRestoreFixture(t *testing.T) {
	w := newWorld(t)
	f := fixtures.Compactions[0]
	w.session(t, f.Session)
	c := mcptest.Connect(t, w.options(), "")

	out, isErr := c.Call(t, "restore_compacted_context", nil)
	if isErr || !strings.HasPrefix(out, "# Restored working state (cairn)\n\nThis session was just compacted (auto, 167,094 tokens).") ||
		!strings.Contains(out, "cairn show checkpoint 1") || !strings.Contains(out, "built now from the transcript") {
		t.Fatalf("restore with no checkpoint: %q", out)
	}
	if n := checkpoint.Tokens(out); n > checkpoint.DefaultRestoreBudget+50 {
		t.Errorf("restore of %d tokens, over the budget of %d", n, checkpoint.DefaultRestoreBudget)
	}
	if got := w.stored(t, 1); got.Trigger != "restore" || got.SessionID != f.Session {
		t.Errorf("checkpoint 1 is %s of %s", got.Trigger, got.SessionID)
	}
	if out, _ := c.Call(t, "preserve_critical_context", nil); !strings.HasPrefix(out, "Saved checkpoint 2") {
		t.Fatalf("preserve: %q", out)
	}
	cp, first := w.stored(t, 2), w.stored(t, 1)
	// The fixture's boundary (Claude Code 2.1.39) has no postTokens.
	comp := checkpoint.Compaction{Trigger: f.Trigger, PreTokens: f.PreTokens}
	for _, d := range []struct {
		depth string
		want  string
	}{
		{"recent", cp.Restore(comp, checkpoint.DefaultRestoreBudget)},
		{"session", cp.Restore(comp, continuity.ResumeBudget) +
			"\nEarlier checkpoints of this session (`cairn show checkpoint ID`):\n- 1 · 2026-03-02 09:00 · restore · 77,334 tokens · " + first.Summary() + "\n"},
		{"full", cp.Markdown() +
			"\nEarlier checkpoints of this session (`cairn show checkpoint ID`):\n- 1 · 2026-03-02 09:00 · restore · 77,334 tokens · " + first.Summary() + "\n"},
	} {
		t.Run(d.depth, func(t *testing.T) {
			out, isErr := c.Call(t, "restore_compacted_context", map[string]any{"depth": d.depth})
			if isErr || out != d.want {
				t.Errorf("restore %s:\n%s\nwant:\n%s", d.depth, out, d.want)
			}
		})
	}
	mcptest.BadArguments(t, c, []mcptest.BadCall{
		{Tool: "restore_compacted_context", Args: map[string]any{"depth": "everything"}, Want: "depth"},
	})
}

// A checkpoint older than the work before the last compaction is never
// restored: the restore is built from the transcript, which still holds
// that work. One taken just before the compaction is restored as it is.
func TestRestoreNeverStale(t *testing.T) {
	for _, c := range []struct {
		name  string
		fresh bool
	}{
		{"taken before the last work", true},
		{"taken at the compaction", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t)
			s := &synthetic{id: "sess-stale", cwd: w.project}
			s.prompt("Fix STALE-1 in the parser.")
			s.reply("Fixed the parser.", 5000)
			if c.fresh {
				p := w.write(t, s.id, s.lines)
				if _, err := w.keeper.Capture(t.Context(), w.project, p, "manual"); err != nil {
					t.Fatal(err)
				}
			}
			s.prompt("Now do STALE-2: the lexer must keep comments.")
			s.reply("Working on the lexer.", 150000)
			p := w.write(t, s.id, s.lines)
			if !c.fresh {
				if _, err := w.keeper.Capture(t.Context(), w.project, p, "precompact-auto"); err != nil {
					t.Fatal(err)
				}
			}
			s.boundary(150000, 9000)
			s.reply("Continuing.", 10000)
			w.write(t, s.id, s.lines)

			out, isErr := mcptest.Connect(t, w.options(), "").Call(t, "restore_compacted_context", nil)
			if isErr || !strings.Contains(out, "STALE-2") {
				t.Fatalf("restore %q: want the work before the compaction", out)
			}
			if fresh := strings.Contains(out, "built now from the transcript"); fresh != c.fresh {
				t.Errorf("restore built now: %v, want %v:\n%s", fresh, c.fresh, out)
			}
		})
	}
}

// With no compaction, the restore is the resume text.
func TestRestoreUncompacted(t *testing.T) {
	w := newWorld(t)
	w.session(t, "short")
	out, isErr := mcptest.Connect(t, w.options(), "").Call(t, "restore_compacted_context", nil)
	if isErr || !strings.HasPrefix(out, "# Resuming earlier work (cairn)") {
		t.Errorf("restore with no compaction: %q", out)
	}
}

// BenchmarkCall is one call to a running server, as Claude Code makes
// them after start-up: the session's state saved and the database open.
func BenchmarkCall(b *testing.B) {
	for _, tool := range []string{"check_compaction_status", "restore_compacted_context"} {
		b.Run(tool, func(b *testing.B) {
			w := newWorld(b)
			src, _ := fixtures.Path(fixtures.Compactions[0].Session)
			data, _ := os.ReadFile(src)
			os.WriteFile(filepath.Join(w.folder, fixtures.Compactions[0].Session+".jsonl"), data, 0o600)
			c := mcptest.Connect(b, w.options(), "")
			c.Call(b, tool, nil)
			for b.Loop() {
				if out, isErr := c.Call(b, tool, nil); isErr {
					b.Fatal(out)
				}
			}
		})
	}
}

// Claude Code writes the reply that made a call to the transcript shortly
// after it calls the tool: the status waits for it, and its usage is the
// context.
func TestStatusWaitsForTheCall(t *testing.T) {
	w := newWorld(t)
	s := &synthetic{id: "sess-wait", cwd: w.project}
	s.prompt("How full is the context?")
	s.reply("Looking.", 100000)
	p := w.write(t, s.id, s.lines)
	s.lines = nil
	s.toolUse("toolu_wait", 140000)
	go func() {
		time.Sleep(100 * time.Millisecond)
		f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		if err == nil {
			f.Write(s.lines)
			f.Close()
		}
	}()
	o := w.options()
	o.SessionID = s.id
	c := mcptest.Connect(t, o, "")
	res, err := c.CallTool(t.Context(), &mcp.CallToolParams{Name: "check_compaction_status",
		Meta: mcp.Meta{"claudecode/toolUseId": "toolu_wait"}})
	if err != nil {
		t.Fatal(err)
	}
	if out := mcptest.Text(res); res.IsError || !strings.Contains(out, `"tokens_used":140000`) {
		t.Errorf("status %s: want the calling reply's 140,000 tokens", out)
	}
}
