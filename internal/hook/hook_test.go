package hook

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/checkpoint"
	"github.com/cairn-agent/cairn/internal/claudecode"
	"github.com/cairn-agent/cairn/internal/continuity"
	"github.com/cairn-agent/cairn/internal/pressure"
	"github.com/cairn-agent/cairn/internal/state"
	_ "github.com/ncruces/go-sqlite3/driver"
)

// world is one machine: a state dir, a database, projects and transcripts.
type world struct {
	t    *testing.T
	dir  string
	now  time.Time
	logs *bytes.Buffer
	env  map[string]string // the hook's environment
	// detach, when set, is the hooks' way to start a job (Keeper.Detach).
	detach func(continuity.Job) error
}

func newWorld(t *testing.T) *world {
	return &world{t: t, dir: t.TempDir(), now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), logs: &bytes.Buffer{}}
}

func (w *world) stateDir() string { return filepath.Join(w.dir, "state") }
func (w *world) dbPath() string   { return filepath.Join(w.dir, "data", "cairn.db") }

// run runs one hook process's worth of work and returns its stdout.
func (w *world) run(event string, payload any) string {
	w.t.Helper()
	data, ok := payload.([]byte)
	if !ok {
		data, _ = json.Marshal(payload)
	}
	var out bytes.Buffer
	r := w.runner(bytes.NewReader(data), &out)
	if code := r.Run(context.Background(), event); code != 0 {
		w.t.Fatalf("exit %d", code)
	}
	return out.String()
}

func (w *world) runner(stdin io.Reader, stdout io.Writer) *Runner {
	k := &continuity.Keeper{State: state.Store{Dir: w.stateDir()}, DBPath: w.dbPath(),
		RestoreBudget: checkpoint.DefaultRestoreBudget, Now: func() time.Time { return w.now }, Detach: w.detach}
	return &Runner{Keeper: k, Stdin: stdin, Stdout: stdout, Getenv: func(k string) string { return w.env[k] },
		Now: func() time.Time { return w.now }, Dir: w.stateDir()}
}

func (w *world) log() string {
	data, _ := os.ReadFile(filepath.Join(w.stateDir(), "cairn.log"))
	return string(data)
}

// transcript writes a session's lines; each call appends.
type session struct {
	w       *world
	id      string
	path    string
	project string
	n       int
}

func (w *world) session(id string) *session {
	project := filepath.Join(w.dir, "proj")
	os.MkdirAll(project, 0o755)
	return &session{w: w, id: id, path: filepath.Join(w.dir, id+".jsonl"), project: project}
}

func (s *session) add(v map[string]any) {
	s.n++
	v["sessionId"] = s.id
	v["cwd"] = s.project
	v["timestamp"] = time.Date(2026, 3, 1, 11, 0, s.n, 0, time.UTC).Format(time.RFC3339Nano)
	if _, ok := v["isSidechain"]; !ok {
		v["isSidechain"] = false
	}
	b, _ := json.Marshal(v)
	f, err := os.OpenFile(s.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		s.w.t.Fatal(err)
	}
	f.Write(append(b, '\n'))
	f.Close()
}

func (s *session) prompt(text string) {
	s.add(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": text}})
}

func (s *session) reply(text string, tokens int) {
	s.add(map[string]any{"type": "assistant", "message": map[string]any{"id": fmt.Sprintf("m%d", s.n), "model": "claude-opus-4-6",
		"role": "assistant", "content": []any{map[string]any{"type": "text", "text": text}},
		"usage": map[string]any{"input_tokens": tokens}}})
}

func (s *session) boundary(trigger string, pre, post int) {
	s.add(map[string]any{"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted",
		"compactMetadata": map[string]any{"trigger": trigger, "preTokens": pre, "postTokens": post}})
	s.add(map[string]any{"type": "user", "isCompactSummary": true, "message": map[string]any{"role": "user",
		"content": "This session is being continued from a previous conversation that ran out of context. FAKE SUMMARY"}})
}

func (s *session) payload(event string, extra map[string]any) map[string]any {
	p := map[string]any{"session_id": s.id, "transcript_path": s.path, "cwd": s.project, "hook_event_name": event}
	for k, v := range extra {
		p[k] = v
	}
	return p
}

func restored(t *testing.T, out string) string {
	t.Helper()
	if out == "" {
		return ""
	}
	var v struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("stdout is not hook JSON: %v\n%s", err, out)
	}
	return v.HookSpecificOutput.AdditionalContext
}

func TestCompactionCycle(t *testing.T) {
	w := newWorld(t)
	s := w.session("sess-a")
	s.prompt("Fix BILL-482. Never push to main.")
	s.reply("I'll use a feature branch because main is protected.", 150000)

	steer := w.run("PreCompact", s.payload("PreCompact", map[string]any{"trigger": "auto"}))
	if !strings.Contains(steer, "BILL-482") || !strings.Contains(steer, "Never push to main") || strings.HasPrefix(steer, "{") {
		t.Errorf("PreCompact printed %q; want plain steering text", steer)
	}
	// Claude Code 2.1.328 runs SessionStart(compact) before it writes the
	// boundary: the restore comes from what PreCompact announced.
	text := restored(t, w.run("SessionStart", s.payload("SessionStart", map[string]any{"source": "compact"})))
	s.boundary("auto", 167500, 9000)
	for _, want := range []string{"auto, 150,000 tokens", "BILL-482", "Never push to main", "feature branch because main is protected", "cairn show checkpoint 1"} {
		if !strings.Contains(text, want) {
			t.Errorf("restore lacks %q:\n%s", want, text)
		}
	}
	if checkpoint.Tokens(text) > checkpoint.DefaultRestoreBudget {
		t.Errorf("restore is %d tokens", checkpoint.Tokens(text))
	}
	// Never twice: not at the next prompt, not at another SessionStart.
	s.prompt("go on")
	if out := w.run("UserPromptSubmit", s.payload("UserPromptSubmit", nil)); out != "" {
		t.Errorf("restored again at the prompt: %s", out)
	}
	if l := w.log(); l != "" {
		t.Errorf("log: %s", l)
	}
}

// A manual /compact with instructions ("focus on X, drop Y"): the
// steering and the restore leave out what they drop and do not repeat
// the words, which the client gives the summariser and the model itself;
// the full checkpoint records them; a later compaction without
// instructions has none.
func TestCompactInstructions(t *testing.T) {
	w := newWorld(t)
	s := w.session("sess-ci")
	s.prompt("Fix BILL-482. Never push to main.")
	s.reply("Remaining: the telescope extension, then the :PinpointClear command.", 150000)
	p := s.payload("PreCompact", map[string]any{"trigger": "manual", "custom_instructions": "focus on what's left, drop the telescope part"})
	steer := w.run("PreCompact", p)
	text := restored(t, w.run("SessionStart", s.payload("SessionStart", map[string]any{"source": "compact"})))
	s.boundary("manual", 150500, 9000)
	for name, got := range map[string]string{"steering": steer, "restore": text} {
		if strings.Contains(got, "At /compact the user asked") {
			t.Errorf("%s repeats the user's instructions, which the client carries:\n%s", name, got)
		}
		if strings.Contains(got, "telescope extension") {
			t.Errorf("%s keeps what the user dropped:\n%s", name, got)
		}
		if !strings.Contains(got, "BILL-482") {
			t.Errorf("%s lost the task:\n%s", name, got)
		}
	}
	// The restore leaves to the steering what it shows whole.
	if !strings.Contains(steer, "PinpointClear") {
		t.Errorf("steering lost what the user did not drop:\n%s", steer)
	}
	s.prompt("go on")
	s.reply("Working on :PinpointClear.", 160000)
	steer = w.run("PreCompact", s.payload("PreCompact", map[string]any{"trigger": "auto", "custom_instructions": nil}))
	if strings.Contains(steer, "At /compact") {
		t.Errorf("an automatic compaction keeps the last /compact's instructions:\n%s", steer)
	}
}

// A client that writes the boundary before SessionStart(compact), or a
// SessionStart repeated with nothing new: one restore, from the boundary.
func TestBoundaryBeforeSessionStart(t *testing.T) {
	w := newWorld(t)
	s := w.session("sess-bb")
	s.prompt("Fix BILL-9.")
	s.reply("ok", 150000)
	s.boundary("manual", 150500, 7000)
	text := restored(t, w.run("SessionStart", s.payload("SessionStart", map[string]any{"source": "compact"})))
	if !strings.Contains(text, "manual, 150,500 → 7,000") || !strings.Contains(text, "BILL-9") {
		t.Errorf("restore:\n%s", text)
	}
	for _, ev := range []string{"SessionStart", "UserPromptSubmit"} {
		if out := w.run(ev, s.payload(ev, map[string]any{"source": "compact"})); out != "" {
			t.Errorf("restored again at %s: %s", ev, out)
		}
	}
}

// When SessionStart did not restore (older clients did not run it after a
// compaction), the next prompt does.
func TestRestoreAtPrompt(t *testing.T) {
	w := newWorld(t)
	s := w.session("sess-b")
	s.prompt("Port the parser to Go. Always keep the fuzz target green.")
	s.reply("Porting.", 120000)
	s.boundary("manual", 120500, 8000)
	s.prompt("continue")
	text := restored(t, w.run("UserPromptSubmit", s.payload("UserPromptSubmit", nil)))
	if !strings.Contains(text, "manual, 120,500 → 8,000") || !strings.Contains(text, "Always keep the fuzz target green") {
		t.Errorf("restore at prompt:\n%s", text)
	}
	if out := w.run("UserPromptSubmit", s.payload("UserPromptSubmit", nil)); out != "" {
		t.Errorf("restored twice: %s", out)
	}
}

// A compaction that left no boundary is seen as a sharp drop of the
// context between two prompts.
func TestDropFallback(t *testing.T) {
	w := newWorld(t)
	s := w.session("sess-c")
	s.prompt("Write the migration for ORD-77.")
	s.reply("Working on it.", 150000)
	if out := restored(t, w.run("UserPromptSubmit", s.payload("UserPromptSubmit", nil))); strings.Contains(out, "Restored working state") {
		t.Fatalf("restore without a compaction: %s", out)
	}
	s.prompt("next")
	s.reply("Continuing.", 30000)
	s.prompt("and?")
	text := restored(t, w.run("UserPromptSubmit", s.payload("UserPromptSubmit", nil)))
	if !strings.Contains(text, "ORD-77") || !strings.Contains(text, "compacted (detected") {
		t.Errorf("no fallback restore:\n%s", text)
	}
	s.prompt("more")
	if out := w.run("UserPromptSubmit", s.payload("UserPromptSubmit", nil)); out != "" {
		t.Errorf("fallback restored twice: %s", out)
	}
}

func TestPointerForAnotherSession(t *testing.T) {
	w := newWorld(t)
	a := w.session("sess-old")
	a.prompt("Implement rate limiting for API-9.")
	a.reply("Done with the middleware.", 50000)
	w.run("SessionEnd", a.payload("SessionEnd", map[string]any{"reason": "other"}))

	b := w.session("sess-new")
	b.prompt("hi")
	text := restored(t, w.run("SessionStart", b.payload("SessionStart", map[string]any{"source": "startup"})))
	if !strings.Contains(text, "API-9") || !strings.Contains(text, "cairn resume") {
		t.Errorf("pointer:\n%s", text)
	}
	if out := w.run("SessionStart", b.payload("SessionStart", map[string]any{"source": "resume"})); out != "" {
		t.Errorf("pointer shown twice: %s", out)
	}
	// The session that wrote the checkpoint is not pointed at itself.
	if out := w.run("SessionStart", a.payload("SessionStart", map[string]any{"source": "resume"})); out != "" {
		t.Errorf("pointer to itself: %s", out)
	}
}

// A session cairn run restarted gets its working state at SessionStart
// (resume), once per restart: not again for the same restart, and not when
// the client was not restarted by cairn run.
func TestReloadRestore(t *testing.T) {
	w := newWorld(t)
	s := w.session("sess-r")
	s.prompt("Fix BILL-482. Never push to main.")
	s.reply("I'll use a feature branch because main is protected.", 50000)
	resume := s.payload("SessionStart", map[string]any{"source": "resume"})
	if out := w.run("SessionStart", resume); out != "" {
		t.Errorf("a plain resume got %s", out)
	}
	w.env = map[string]string{EnvReload: "t1"}
	if out := w.run("SessionStart", resume); out != "" {
		t.Errorf("a restart with no checkpoint got %s", out)
	}
	w.run("SessionEnd", s.payload("SessionEnd", map[string]any{"reason": "other"})) // the checkpoint cairn run takes
	text := restored(t, w.run("SessionStart", resume))
	for _, want := range []string{"restarted (cairn run)", "BILL-482", "Never push to main", "feature branch"} {
		if !strings.Contains(text, want) {
			t.Errorf("reload restore lacks %q:\n%s", want, text)
		}
	}
	if checkpoint.Tokens(text) > checkpoint.DefaultRestoreBudget+100 {
		t.Errorf("reload restore is %d tokens", checkpoint.Tokens(text))
	}
	if out := w.run("SessionStart", resume); strings.Contains(out, "restarted (cairn run)") {
		t.Errorf("the same restart restored twice: %s", out)
	}
	if out := w.run("SessionStart", s.payload("SessionStart", map[string]any{"source": "startup"})); strings.Contains(out, "restarted (cairn run)") {
		t.Errorf("a new session got the reload restore: %s", out)
	}
	w.env[EnvReload] = "t2"
	if text := restored(t, w.run("SessionStart", resume)); !strings.Contains(text, "BILL-482") {
		t.Errorf("the next restart got no restore:\n%s", text)
	}
	if l := w.log(); l != "" {
		t.Errorf("log: %s", l)
	}
}

// Two sessions in one project at once never mix their state.
func TestConcurrentSessions(t *testing.T) {
	w := newWorld(t)
	var wg sync.WaitGroup
	outs := make([]string, 2)
	for i, ticket := range []string{"ALPHA-1", "BETA-2"} {
		s := w.session(fmt.Sprintf("sess-%d", i))
		s.prompt("Work on " + ticket + ".")
		s.reply("ok", 160000)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 5; j++ {
				w.run("UserPromptSubmit", s.payload("UserPromptSubmit", nil))
				w.run("PostToolUse", s.payload("PostToolUse", map[string]any{"tool_name": "Bash"}))
			}
			w.run("PreCompact", s.payload("PreCompact", map[string]any{"trigger": "auto"}))
			s.boundary("auto", 167100, 9000)
			outs[i] = restored(t, w.run("SessionStart", s.payload("SessionStart", map[string]any{"source": "compact"})))
		}()
	}
	wg.Wait()
	if !strings.Contains(outs[0], "ALPHA-1") || strings.Contains(outs[0], "BETA-2") ||
		!strings.Contains(outs[1], "BETA-2") || strings.Contains(outs[1], "ALPHA-1") {
		t.Errorf("restores mixed:\n--- 0\n%s\n--- 1\n%s", outs[0], outs[1])
	}
	if l := w.log(); l != "" {
		t.Errorf("log: %s", l)
	}
}

func TestFailuresExitZeroAndLog(t *testing.T) {
	w := newWorld(t)
	s := w.session("sess-f")
	s.prompt("something")
	cases := []struct {
		name    string
		event   string
		payload any
		log     string
	}{
		{"not json", "UserPromptSubmit", []byte("{half"), "payload is not the JSON object"},
		{"no transcript path", "UserPromptSubmit", map[string]any{"session_id": "x"}, "no transcript_path"},
		{"unreadable transcript", "PreCompact", map[string]any{"session_id": "x", "transcript_path": w.dir, "cwd": w.dir}, "is not a regular file"},
		{"unknown event", "Frobnicate", s.payload("Frobnicate", nil), "unknown hook event"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if out := w.run(tc.event, tc.payload); out != "" {
				t.Errorf("stdout %q", out)
			}
			if !strings.Contains(w.log(), tc.log) {
				t.Errorf("log lacks %q:\n%s", tc.log, w.log())
			}
			if run, ok := LastRun(w.stateDir(), tc.event); !ok || !strings.Contains(run.Err, tc.log) {
				t.Errorf("run record %+v", run)
			}
		})
	}
}

// The first prompt's hook runs before Claude Code writes the transcript:
// nothing to do, nothing to log. A compaction of nothing stores nothing
// (issue 8: an empty checkpoint pointed the next session at "."), and
// says so in the log.
func TestTranscriptNotYetWritten(t *testing.T) {
	w := newWorld(t)
	p := map[string]any{"session_id": "new", "transcript_path": filepath.Join(w.dir, "new.jsonl"), "cwd": w.dir}
	for _, ev := range []string{"UserPromptSubmit", "SessionEnd", "PostToolUse"} {
		if out := w.run(ev, p); out != "" {
			t.Errorf("%s printed %q", ev, out)
		}
	}
	if l := w.log(); l != "" {
		t.Errorf("log: %s", l)
	}
	if out := w.run("PreCompact", p); out != "" {
		t.Errorf("PreCompact printed %q", out)
	}
	if l := w.log(); !strings.Contains(l, "nothing to checkpoint") || strings.Count(l, "\n") != 1 {
		t.Errorf("log: %s", l)
	}
	if n := w.checkpoints(); n != 0 {
		t.Errorf("%d checkpoints stored from nothing", n)
	}
	// Nor from a FIFO, which must not hang the hook either.
	fifo := filepath.Join(w.dir, "fifo.jsonl")
	if err := mkfifo(fifo); err != nil {
		t.Skip(err)
	}
	p["transcript_path"] = fifo
	for _, ev := range []string{"PreCompact", "UserPromptSubmit", "SessionStart"} {
		if out := w.run(ev, p); out != "" {
			t.Errorf("%s printed %q", ev, out)
		}
	}
	if n := w.checkpoints(); n != 0 {
		t.Errorf("%d checkpoints stored from a FIFO", n)
	}
}

// A stdin that never ends: the hook answers within its budget anyway.
func TestBudget(t *testing.T) {
	w := newWorld(t)
	pr, pw := io.Pipe()
	defer pw.Close()
	var out bytes.Buffer
	r := w.runner(pr, &out)
	r.Budget = 200 * time.Millisecond
	start := time.Now()
	if code := r.Run(context.Background(), "UserPromptSubmit"); code != 0 || out.Len() != 0 {
		t.Fatalf("exit %d, stdout %q", code, out.String())
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("took %v with a 200ms budget", took)
	}
	if !strings.Contains(w.log(), "budget") {
		t.Errorf("log: %s", w.log())
	}
	pw.Close()
	r.Wait()
}

// A database another process holds locked: the hook gives up within its
// budget, prints nothing and logs why.
func TestLockedDatabase(t *testing.T) {
	w := newWorld(t)
	s := w.session("sess-l")
	s.prompt("Fix LOCK-1.")
	s.reply("ok", 1000)
	w.run("SessionEnd", s.payload("SessionEnd", nil)) // creates the database
	db, err := sql.Open("sqlite3", w.dbPath())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(context.Background(), "BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(context.Background(), "ROLLBACK")
	var out bytes.Buffer
	r := w.runner(bytes.NewReader(mustJSON(s.payload("PreCompact", map[string]any{"trigger": "auto"}))), &out)
	r.Budget = time.Second
	start := time.Now()
	r.Run(context.Background(), "PreCompact")
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("took %v", took)
	}
	r.Wait()
	if w.log() == "" {
		t.Error("nothing logged")
	}
}

func TestSecretsNeverLeave(t *testing.T) {
	w := newWorld(t)
	s := w.session("sess-s")
	secret := "ghp_" + strings.Repeat("a1B2", 9)
	s.prompt("Deploy with GITHUB_TOKEN=" + secret + " and never log it. <private>my home address is 1 Main St</private>")
	s.reply("ok", 150000)
	steer := w.run("PreCompact", s.payload("PreCompact", map[string]any{"trigger": "manual"}))
	s.boundary("manual", 150000, 8000)
	text := restored(t, w.run("SessionStart", s.payload("SessionStart", map[string]any{"source": "compact"})))
	for name, out := range map[string]string{"steer": steer, "restore": text} {
		if strings.Contains(out, secret) || strings.Contains(out, "1 Main St") {
			t.Errorf("%s leaks:\n%s", name, out)
		}
	}
	raw, _ := os.ReadFile(w.dbPath())
	if bytes.Contains(raw, []byte(secret)) || bytes.Contains(raw, []byte("1 Main St")) {
		t.Error("the database holds the secret")
	}
}

func mustJSON(v any) []byte { b, _ := json.Marshal(v); return b }

func TestPressureAdvisories(t *testing.T) {
	w := newWorld(t)
	s := w.session("sess-p")
	s.prompt("Refactor the billing module for BILL-7.")
	s.reply("ok", 50000) // 30% of the auto-compact point (167,000)
	prompt := func() string { return restored(t, w.run("UserPromptSubmit", s.payload("UserPromptSubmit", nil))) }
	tool := func() string { return restored(t, w.run("PostToolUse", s.payload("PostToolUse", nil))) }
	stop := func() string {
		out := w.run("Stop", s.payload("Stop", nil))
		if out == "" {
			return ""
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(out), &v); err != nil || len(v) != 1 || v["systemMessage"] == nil {
			t.Fatalf("Stop printed %q: only a systemMessage may come out", out)
		}
		return v["systemMessage"].(string)
	}
	if out := prompt(); out != "" {
		t.Errorf("advisory at L0: %s", out)
	}
	if out := stop(); out != "" {
		t.Errorf("Stop suggestion at L0: %s", out)
	}
	s.reply("more", 120000) // 71.9%: L1
	out := tool()
	if !strings.Contains(out, "context L1") || !strings.Contains(out, "Finish the current task") || !strings.Contains(out, "checkpoint 1") {
		t.Errorf("L1 advisory: %q", out)
	}
	if out := prompt(); out != "" {
		t.Errorf("L1 announced twice: %s", out)
	}
	if out := stop(); out != "" {
		t.Errorf("Stop right after the L1 checkpoint: %s", out)
	}
	s.reply("even more", 125000) // still L1, work since the checkpoint
	if out := stop(); !strings.Contains(out, "L1") || !strings.Contains(out, "1 turn since the last checkpoint") {
		t.Errorf("Stop suggestion: %q", out)
	}
	if out := stop(); out != "" {
		t.Errorf("Stop repeated at once: %s", out)
	}
	s.reply("much more", 145000) // 86.8%: L2
	if out := prompt(); !strings.Contains(out, "context L2") || !strings.Contains(out, "checkpoint 2") || !strings.Contains(out, "handoff .claude/handoffs/") {
		t.Errorf("L2 advisory: %q", out)
	}
	handoffs, _ := filepath.Glob(filepath.Join(s.project, ".claude", "handoffs", "*.md"))
	if len(handoffs) != 1 {
		t.Fatalf("handoffs written at L2: %v", handoffs)
	}
	// A new session in the project is pointed to it, once.
	n := w.session("sess-next")
	n.prompt("hello")
	pointer := restored(t, w.run("SessionStart", n.payload("SessionStart", map[string]any{"source": "startup"})))
	if !strings.Contains(pointer, filepath.Base(handoffs[0])) {
		t.Errorf("no pointer to the handoff: %q", pointer)
	}
	if again := w.run("SessionStart", n.payload("SessionStart", map[string]any{"source": "clear"})); strings.Contains(again, filepath.Base(handoffs[0])) {
		t.Errorf("pointed to the same handoff twice: %s", again)
	}
	// A compaction: the context falls, the levels re-arm, then L1 again.
	s.boundary("auto", 167100, 9000)
	s.reply("after", 9000)
	prompt() // the restore
	s.reply("grows again", 120000)
	if out := tool(); !strings.Contains(out, "context L1") {
		t.Errorf("no advisory after re-arming: %q", out)
	}
	if l := w.log(); l != "" {
		t.Errorf("log: %s", l)
	}
}

func TestDeferAndAdvisoriesOff(t *testing.T) {
	w := newWorld(t)
	s := w.session("sess-d")
	s.prompt("Write docs.")
	s.reply("ok", 50000)
	adv := pressure.Advisor{State: state.Store{Dir: w.stateDir()}}
	deferFor := func(n int) {
		sess, err := adv.State.Session(s.path, false)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := adv.Defer(s.path, sess.NumTurns(), n); err != nil {
			t.Fatal(err)
		}
	}
	deferFor(3)
	s.reply("grow", 120000) // L1, deferred
	if out := restored(t, w.run("UserPromptSubmit", s.payload("UserPromptSubmit", nil))); out != "" {
		t.Errorf("deferred L1 announced: %s", out)
	}
	s.reply("grow", 121000)
	s.reply("grow", 122000) // the deferral ran out
	if out := restored(t, w.run("UserPromptSubmit", s.payload("UserPromptSubmit", nil))); !strings.Contains(out, "context L1") {
		t.Errorf("L1 after the deferral: %q", out)
	}
	s.reply("grow", 160000) // L3 cannot be deferred
	deferFor(100)
	if out := restored(t, w.run("PostToolUse", s.payload("PostToolUse", nil))); !strings.Contains(out, "L3 (emergency)") || !strings.Contains(out, "Wrap up now") {
		t.Errorf("L3: %q", out)
	}

	// advisories = off: checkpoints still, nothing in the model's context.
	os.MkdirAll(filepath.Join(s.project, ".claude"), 0o755)
	os.WriteFile(filepath.Join(s.project, ".claude", "cairn.conf"), []byte("advisories = off\nlevels.preset = advisory\n"), 0o644)
	o := w.session("sess-off")
	o.prompt("Other work.")
	o.reply("ok", 110000) // 65.9%: L1 with the advisory preset
	if out := w.run("UserPromptSubmit", o.payload("UserPromptSubmit", nil)); out != "" {
		t.Errorf("advisory with advisories off: %s", out)
	}
}

// At L2 in a git project, the uncommitted work is snapshotted under
// refs/cairn/wip without touching the work tree.
func TestSnapshotAtL2(t *testing.T) {
	w := newWorld(t)
	s := w.session("sess-git")
	gitRun := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = s.project
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@e", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@e")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
		return string(out)
	}
	gitRun("init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(s.project, "a.txt"), []byte("one\n"), 0o644)
	gitRun("add", ".")
	gitRun("commit", "-qm", "init")
	os.WriteFile(filepath.Join(s.project, "a.txt"), []byte("two\n"), 0o644)
	before := gitRun("status", "--porcelain")

	s.prompt("Work on SNAP-1.")
	s.reply("ok", 145000) // L2 at once
	out := restored(t, w.run("UserPromptSubmit", s.payload("UserPromptSubmit", nil)))
	if !strings.Contains(out, "snapshot 1 of the uncommitted work") {
		t.Errorf("L2 advisory: %q", out)
	}
	if refs := gitRun("for-each-ref", "refs/cairn/wip/"); !strings.Contains(refs, "refs/cairn/wip/sess-git/1") {
		t.Errorf("refs: %q", refs)
	}
	// The handoff written at L2 lands in .claude/handoffs: that is the
	// only new file.
	if after := strings.Replace(gitRun("status", "--porcelain"), "?? .claude/\n", "", 1); after != before {
		t.Errorf("work tree changed: %q → %q", before, after)
	}
}

// Claude Code runs Stop hooks before it writes the turn: the hook waits for
// the reply the payload names.
func TestStopWaitsForTheTurn(t *testing.T) {
	w := newWorld(t)
	s := w.session("sess-late")
	s.prompt("Migrate the store.")
	s.reply("first", 50000)
	w.run("UserPromptSubmit", s.payload("UserPromptSubmit", nil))
	go func() {
		time.Sleep(150 * time.Millisecond)
		s.reply("the reply that crossed L1", 120000)
	}()
	out := w.run("Stop", s.payload("Stop", map[string]any{"last_assistant_message": "the reply that crossed L1"}))
	if !strings.Contains(out, "context at L1 (71%)") {
		t.Errorf("Stop judged the turn before: %q", out)
	}
}

// Seed 004: an auto-compaction writes a pending capture; a manual one
// writes none unless configured.
func TestCompactionCaptures(t *testing.T) {
	w := newWorld(t)
	s := w.session("sess-cap")
	s.prompt("Investigate the flaky CAP-7 test; the token is ghp_" + strings.Repeat("x1Y2", 9))
	s.reply("ok", 150000)
	w.run("PreCompact", s.payload("PreCompact", map[string]any{"trigger": "manual"}))
	dir := filepath.Join(s.project, ".project", "compacts")
	if got, _ := filepath.Glob(filepath.Join(dir, "*-autocompact.md")); len(got) != 0 {
		t.Errorf("a manual compaction wrote captures: %v", got)
	}
	w.run("PreCompact", s.payload("PreCompact", map[string]any{"trigger": "auto"}))
	got, _ := filepath.Glob(filepath.Join(dir, "*-autocompact.md"))
	if len(got) != 1 {
		t.Fatalf("captures after an auto compaction: %v", got)
	}
	data, _ := os.ReadFile(got[0])
	for _, want := range []string{"pending", "sess-cap", s.path, "Investigate the flaky CAP-7 test"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("capture lacks %q:\n%s", want, data)
		}
	}
	if strings.Contains(string(data), "ghp_") {
		t.Errorf("the capture holds the secret:\n%s", data)
	}
	// capture.manual = on: a manual one writes a capture too.
	os.MkdirAll(filepath.Join(s.project, ".claude"), 0o755)
	os.WriteFile(filepath.Join(s.project, ".claude", "cairn.conf"), []byte("capture.manual = on\n"), 0o644)
	w.now = w.now.Add(time.Minute)
	w.run("PreCompact", s.payload("PreCompact", map[string]any{"trigger": "manual"}))
	if got, _ := filepath.Glob(filepath.Join(dir, "*-autocompact.md")); len(got) != 2 {
		t.Errorf("captures with capture.manual on: %v", got)
	}
}

// Seed 001's recovery chain: PreCompact records last-compact.json,
// SessionStart(compact) adds the guidance, Stop suggests /compound while
// progress.md has entries not promoted.
func TestFlowAroundCompaction(t *testing.T) {
	w := newWorld(t)
	s := w.session("sess-flow")
	flow := filepath.Join(s.project, ".claude")
	os.MkdirAll(flow, 0o755)
	os.WriteFile(filepath.Join(flow, "progress.md"), []byte("# Progress\n\n## 2026-03-01 — build: CSV quoting\nencoding/csv handles embedded newlines.\n\n## 2026-03-01 — test: empty exports\nThe header row must be written.\n"), 0o644)
	s.prompt("Export invoices.")
	s.reply("ok", 1000)
	stop := w.run("Stop", s.payload("Stop", nil))
	if !strings.Contains(stop, "/compound") || !strings.Contains(stop, "systemMessage") {
		t.Errorf("Stop: %q", stop)
	}
	w.run("PreCompact", s.payload("PreCompact", map[string]any{"trigger": "auto"}))
	if _, err := os.Stat(filepath.Join(flow, "context", "last-compact.json")); err != nil {
		t.Errorf("last-compact.json: %v", err)
	}
	text := restored(t, w.run("SessionStart", s.payload("SessionStart", map[string]any{"source": "compact"})))
	if !strings.Contains(text, "Restored working state") || !strings.Contains(text, "progress.md") {
		t.Errorf("SessionStart(compact) without the guidance:\n%s", text)
	}
	if l := w.log(); l != "" {
		t.Errorf("log: %s", l)
	}
}

// checkpoints counts the checkpoints stored, 0 when there is no database.
func (w *world) checkpoints() int {
	if _, err := os.Stat(w.dbPath()); err != nil {
		return 0
	}
	db, err := sql.Open("sqlite3", w.dbPath())
	if err != nil {
		w.t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow("SELECT count(*) FROM checkpoints").Scan(&n); err != nil {
		return 0
	}
	return n
}

// TestHookMarksItsTranscript: every Claude Code hook marks its transcript
// for the saved listing of its folder (claudecode.Listing), which then
// orders the session again without stating every transcript.
func TestHookMarksItsTranscript(t *testing.T) {
	w := newWorld(t)
	folder := filepath.Join(w.dir, "projects", "-proj")
	os.MkdirAll(folder, 0o700)
	a, b := w.session("a"), w.session("b")
	a.path, b.path = filepath.Join(folder, "a.jsonl"), filepath.Join(folder, "b.jsonl")
	a.prompt("first")
	b.prompt("second")
	old := time.Now().Add(-time.Hour)
	os.Chtimes(a.path, old, old)
	os.Chtimes(b.path, old.Add(time.Minute), old.Add(time.Minute))
	os.Chtimes(folder, old, old)
	l := claudecode.Listing{Dir: claudecode.ListingDir(w.stateDir()), Now: time.Now}
	if fs, err := l.Sessions(folder); err != nil || len(fs) != 2 || fs[0].ID != "b" {
		t.Fatalf("first listing: %v %v", fs, err)
	}
	a.prompt("more") // a's transcript grows now: its mtime is the newest
	w.run("UserPromptSubmit", a.payload("UserPromptSubmit", map[string]any{"prompt": "more"}))
	if fs, err := l.Sessions(folder); err != nil || len(fs) != 2 || fs[0].ID != "a" {
		t.Errorf("after a's hook, a is not first: %v %v", fs, err)
	}
	if log := w.log(); log != "" {
		t.Errorf("logged: %s", log)
	}
}
