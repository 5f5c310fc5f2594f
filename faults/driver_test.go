package faults

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// budgets are cairn's own budgets per event (claudecode.Events); a run may take
// longer than its budget by process start and exit, so only a run over
// budget + overrunSlack is an overrun.
var budgets = map[string]time.Duration{
	"SessionStart":     8 * time.Second,
	"UserPromptSubmit": 4 * time.Second,
	"PostToolUse":      2 * time.Second,
	"PreCompact":       20 * time.Second,
	"PostCompact":      4 * time.Second,
	"SessionEnd":       1200 * time.Millisecond,
}

const overrunSlack = 2 * time.Second

// clientTimeouts are the timeouts `cairn install` gives Claude Code
// (claudecode.Events, which internal/install wires): the client kills a hook still running then
// and ignores its output.
var clientTimeouts = map[string]time.Duration{
	"SessionStart":     20 * time.Second,
	"UserPromptSubmit": 10 * time.Second,
	"PostToolUse":      10 * time.Second,
	"PreCompact":       60 * time.Second,
	"PostCompact":      10 * time.Second,
	"SessionEnd":       5 * time.Second,
}

// event is one hook invocation as Claude Code makes it.
type event struct {
	Name    string
	Payload map[string]any
	// Compaction is, for PreCompact, the compaction it announces.
	Compaction int
}

// target names what a fault is applied to: the event, with
// SessionStart(compact), which restores, apart from the other sources.
func (e event) target() string {
	if e.Name == "SessionStart" && e.Payload["source"] == "compact" {
		return "SessionStart(compact)"
	}
	return e.Name
}

// targets are the event targets every fault is applied to in turn.
var targets = []string{"SessionStart", "UserPromptSubmit", "PostToolUse", "PreCompact", "SessionStart(compact)", "PostCompact", "SessionEnd"}

// run is what one hook process did.
type run struct {
	Seq    int // order of start in the sequence
	Group  int // the hook call it belongs to (a duplicated event makes two runs)
	Event  event
	Window int // the latest compaction whose SessionStart(compact) had begun
	Fault  string
	// Killed: ended by SIGKILL (the fault's or the client's timeout);
	// TimedOut: the client's timeout did it.
	Killed, TimedOut bool
	StdoutClosed     bool
	Exit             int    // -1 when ended by a signal
	Signal           string // the signal, when one ended it
	Stdout, Stderr   string
	Took             time.Duration
	// Logs are the log lines that appeared during the run's group (a
	// duplicate pair shares them).
	Logs    []string
	MustLog string // why the run had to leave a log line, "" when not
}

// delivered reports whether Claude Code would use the run's output.
func (r *run) delivered() bool {
	return !r.Killed && !r.TimedOut && !r.StdoutClosed && r.Exit == 0
}

// world is one machine for one sequence: a home, XDG directories, a
// temporary directory, a project and a transcript, all under root.
type world struct {
	t    *testing.T
	root string
	// Under root: HOME, XDG_STATE_HOME, XDG_DATA_HOME, TMPDIR, the
	// project (CLAUDE_PROJECT_DIR and cwd).
	home, stateHome, dataHome, tmp, project string

	transcript string
	sid        string
	rng        *rand.Rand

	fault  *fault
	target string // the event target the fault is applied to
	// corrupted: the corrupt-* fault has replaced the database.
	corrupted bool
	// fallbackKilled: compactions whose first prompt the kill fault
	// killed.
	fallbackKilled map[int]bool
	// attachments are transcript lines for hook answers the client used,
	// not written yet; steered the PreCompact answers it used.
	attachments []map[string]any
	steered     []string

	mu     sync.Mutex
	runs   []*run
	seq    int
	group  int
	window int
	// injected counts the faults injected.
	injected int

	// transcript writing
	lastUUID string
	msgN     int
	toolN    int
	promptID string
}

func newWorld(t *testing.T, rng *rand.Rand, f *fault) *world {
	t.Helper()
	root := t.TempDir()
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	w := &world{t: t, root: root, rng: rng, fault: f, fallbackKilled: map[int]bool{},
		home: filepath.Join(root, "home"), tmp: filepath.Join(root, "tmp"), project: filepath.Join(root, "proj")}
	w.stateHome = filepath.Join(root, "xdg", "state")
	w.dataHome = filepath.Join(root, "xdg", "data")
	w.sid = uuid(rng)
	key := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, w.project)
	w.transcript = filepath.Join(w.home, ".claude", "projects", key, w.sid+".jsonl")
	for _, d := range []string{w.home, w.tmp, w.project, filepath.Join(root, "xdg"), filepath.Dir(w.transcript)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The hooks leave jobs behind (a checkpoint's copy in the database,
	// observations) that hold a shared lock beside the database while
	// they run: the world is removed only once they are done.
	t.Cleanup(func() { waitJobs(filepath.Join(w.dataHome, "cairn", "cairn.db.settling")) })
	return w
}

func uuid(rng *rand.Rand) string {
	b := make([]byte, 16)
	for i := range b {
		b[i] = byte(rng.IntN(256))
	}
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// The places cairn keeps things for this world.
func (w *world) stateDir() string { return filepath.Join(w.stateHome, "cairn") }
func (w *world) dataDir() string  { return filepath.Join(w.dataHome, "cairn") }
func (w *world) dbPath() string   { return filepath.Join(w.dataDir(), "cairn.db") }
func (w *world) stateLog() string { return filepath.Join(w.stateDir(), "cairn.log") }
func (w *world) fallbackLog() string {
	return filepath.Join(w.tmp, fmt.Sprintf("cairn-%d", os.Getuid()), "cairn.log")
}

func (w *world) env() []string {
	return []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + w.home, "TMPDIR=" + w.tmp,
		"XDG_STATE_HOME=" + w.stateHome, "XDG_DATA_HOME=" + w.dataHome,
		"CLAUDE_PROJECT_DIR=" + w.project,
	}
}

// payload is the stdin of a hook, with the fields every event carries.
func (w *world) payload(name string, extra map[string]any) map[string]any {
	p := map[string]any{"session_id": w.sid, "transcript_path": w.transcript, "cwd": w.project, "hook_event_name": name}
	if w.promptID != "" && name != "SessionStart" {
		p["prompt_id"] = w.promptID
	}
	for k, v := range extra {
		p[k] = v
	}
	return p
}

// hook runs one event as Claude Code would, under the world's fault when
// it targets the event, and records what happened.
func (w *world) hook(e event) []*run {
	w.t.Helper()
	before := w.logSizes()
	var runs []*run
	if w.fault != nil && w.fault.applies(w, e) {
		runs = w.fault.around(w, e)
	} else {
		runs = []*run{w.exec(e, execOpts{})}
	}
	// What a hook's detached job logs belongs to the hook's run: wait for
	// the jobs (untimed: the hook has returned) before reading the log.
	waitJobs(filepath.Join(w.dataHome, "cairn", "cairn.db.settling"))
	lines := w.newLogLines(before)
	w.mu.Lock()
	w.group++
	for _, r := range runs {
		r.Logs, r.Group = lines, w.group
	}
	w.mu.Unlock()
	for _, r := range runs {
		w.noteDelivered(r)
	}
	return runs
}

// noteDelivered queues the transcript lines Claude Code writes for a
// hook answer it used: for additionalContext a hook_additional_context
// attachment (after a hook_success one for SessionStart), as 2.1.328
// writes them. They reach the file at the next flushAttachments.
func (w *world) noteDelivered(r *run) {
	if !r.delivered() {
		return
	}
	if r.Event.Name == "PreCompact" {
		w.steered = append(w.steered, r.Stdout)
		return
	}
	text := additionalContext(r.Stdout)
	if text == "" {
		return
	}
	name := r.Event.Name
	if name == "SessionStart" {
		w.attachments = append(w.attachments, map[string]any{"type": "attachment", "attachment": map[string]any{
			"type": "hook_success", "hookName": "SessionStart:" + fmt.Sprint(r.Event.Payload["source"]), "toolUseID": uuid(w.rng),
			"hookEvent": name, "content": "", "stdout": r.Stdout, "stderr": r.Stderr, "exitCode": 0,
			"command": cairnBin + " hook " + name, "durationMs": r.Took.Milliseconds()}})
	}
	w.attachments = append(w.attachments, map[string]any{"type": "attachment",
		"attachment": map[string]any{"type": "hook_additional_context", "content": []any{text}, "hookName": name,
			"toolUseID": "hook-" + uuid(w.rng), "hookEvent": name},
		"rendered":     []any{map[string]any{"content": "<system-reminder>\n" + name + " hook additional context: " + text + "\n</system-reminder>"}},
		"renderedRole": "system"})
}

// flushAttachments writes the queued attachment lines.
func (w *world) flushAttachments() {
	for _, a := range w.attachments {
		w.appendLine(a)
	}
	w.attachments = nil
}

// execOpts are the ways a fault changes one run.
type execOpts struct {
	fault       string
	killAfter   time.Duration // SIGKILL after this long (0: never)
	kill        bool
	closeStdout bool
}

// proc is a started hook process.
type proc struct {
	r      *run
	cmd    *exec.Cmd
	stdout bytes.Buffer
	stderr bytes.Buffer
	start  time.Time
	done   chan struct{}
}

// exec runs one hook process to its end.
func (w *world) exec(e event, o execOpts) *run {
	w.t.Helper()
	return w.start(e, o).wait(w)
}

func (w *world) start(e event, o execOpts) *proc {
	w.t.Helper()
	if buildErr != nil {
		w.t.Fatal(buildErr)
	}
	data := marshal(e.Payload)
	w.mu.Lock()
	w.seq++
	r := &run{Seq: w.seq, Event: e, Window: w.window, Fault: o.fault, StdoutClosed: o.closeStdout}
	w.mu.Unlock()
	p := &proc{r: r, done: make(chan struct{})}
	cmd := exec.Command(cairnBin, "hook", e.Name)
	cmd.Dir = w.project
	cmd.Env = w.env()
	cmd.Stdin = bytes.NewReader(data)
	cmd.Stderr = &p.stderr
	var closeAfterStart *os.File
	if o.closeStdout {
		pr, pw, err := os.Pipe()
		if err != nil {
			w.t.Fatal(err)
		}
		pr.Close() // nobody reads: a write gets EPIPE
		cmd.Stdout = pw
		closeAfterStart = pw
	} else {
		cmd.Stdout = &p.stdout
	}
	p.cmd = cmd
	p.start = time.Now()
	if err := cmd.Start(); err != nil {
		w.t.Fatalf("start cairn hook %s: %v", e.Name, err)
	}
	if closeAfterStart != nil {
		closeAfterStart.Close()
	}
	timeout := clientTimeouts[e.Name]
	go func() {
		var killAt <-chan time.Time
		if o.kill {
			t := time.NewTimer(o.killAfter)
			defer t.Stop()
			killAt = t.C
		}
		client := time.NewTimer(timeout)
		defer client.Stop()
		select {
		case <-p.done:
		case <-killAt:
			cmd.Process.Signal(syscall.SIGKILL)
		case <-client.C:
			w.mu.Lock()
			r.TimedOut = true
			w.mu.Unlock()
			cmd.Process.Signal(syscall.SIGKILL)
		}
	}()
	return p
}

func (p *proc) wait(w *world) *run {
	err := p.cmd.Wait()
	took := time.Since(p.start)
	close(p.done)
	w.mu.Lock()
	defer w.mu.Unlock()
	r := p.r
	r.Took = took
	r.Stdout, r.Stderr = p.stdout.String(), p.stderr.String()
	if ws, ok := p.cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		r.Exit, r.Signal = -1, ws.Signal().String()
		r.Killed = ws.Signal() == syscall.SIGKILL
	} else if err != nil {
		r.Exit = p.cmd.ProcessState.ExitCode()
	}
	w.runs = append(w.runs, r)
	return r
}

// logSizes notes how long both log files are, to find the lines a run
// added.
func (w *world) logSizes() [2]int64 {
	var s [2]int64
	for i, f := range []string{w.stateLog(), w.fallbackLog()} {
		if fi, err := os.Stat(f); err == nil {
			s[i] = fi.Size()
		}
	}
	return s
}

func (w *world) newLogLines(before [2]int64) []string {
	var lines []string
	for i, f := range []string{w.stateLog(), w.fallbackLog()} {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		from := before[i]
		if int64(len(data)) < from { // rotated
			from = 0
		}
		sc := bufio.NewScanner(bytes.NewReader(data[from:]))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if l := sc.Text(); l != "" {
				lines = append(lines, l)
			}
		}
	}
	return lines
}

// marshal encodes as Claude Code does (JSON.stringify does not escape
// <, > and &).
func marshal(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// The transcript, written in Claude Code 2.1.328's shape: each line has
// the common fields, user and assistant lines chain by parentUuid,
// assistant lines carry message.id and usage.

func (w *world) appendLine(v map[string]any) {
	w.t.Helper()
	id := uuid(w.rng)
	common := map[string]any{
		"isSidechain": false, "userType": "external", "cwd": w.project, "sessionId": w.sid,
		"version": "2.1.328", "gitBranch": "main", "uuid": id,
		"timestamp": time.Now().UTC().Format("2006-01-02T15:04:05.000Z"),
	}
	if _, ok := v["parentUuid"]; !ok {
		if w.lastUUID == "" {
			common["parentUuid"] = nil
		} else {
			common["parentUuid"] = w.lastUUID
		}
	}
	for k, val := range common {
		if _, ok := v[k]; !ok {
			v[k] = val
		}
	}
	w.lastUUID = id
	f, err := os.OpenFile(w.transcript, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		w.t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(append(marshal(v), '\n')); err != nil {
		w.t.Fatal(err)
	}
}

// usage is an assistant line's usage with context tokens in all: most in
// the cache, as in real sessions.
func usage(context int) map[string]any {
	return map[string]any{
		"input_tokens": 3, "cache_creation_input_tokens": 1200, "cache_read_input_tokens": context - 1203,
		"output_tokens": 180, "service_tier": "standard",
	}
}

func (w *world) userPrompt(text string) {
	w.promptID = uuid(w.rng)
	w.appendLine(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": text},
		"promptId": w.promptID, "permissionMode": "acceptEdits"})
	w.appendLine(map[string]any{"type": "file-history-snapshot", "messageId": w.lastUUID,
		"snapshot":         map[string]any{"messageId": w.lastUUID, "trackedFileBackups": map[string]any{}, "timestamp": time.Now().UTC().Format(time.RFC3339)},
		"isSnapshotUpdate": false, "parentUuid": w.lastUUID})
	w.flushAttachments()
}

func (w *world) assistant(content []any, context int) {
	w.msgN++
	w.appendLine(map[string]any{"type": "assistant", "requestId": fmt.Sprintf("req_fault_%04d", w.msgN),
		"message": map[string]any{"model": "claude-opus-4-6", "id": fmt.Sprintf("msg_fault_%04d", w.msgN), "type": "message",
			"role": "assistant", "content": content, "stop_reason": nil, "stop_sequence": nil, "usage": usage(context)}})
}

func (w *world) assistantText(text string, context int) {
	w.assistant([]any{map[string]any{"type": "text", "text": text}}, context)
}

// tool is one tool call: the assistant's tool_use, the PostToolUse hook,
// then the user line with the result.
type tool struct {
	Name   string
	Input  map[string]any
	Result string // tool_result content
	Error  bool
	// Response is PostToolUse's tool_response and the line's toolUseResult.
	Response any
}

func (w *world) toolCall(tc tool, context int) {
	w.toolN++
	id := fmt.Sprintf("toolu_fault_%04d", w.toolN)
	w.assistant([]any{map[string]any{"type": "tool_use", "id": id, "name": tc.Name, "input": tc.Input, "caller": map[string]any{"type": "direct"}}}, context)
	w.hook(event{Name: "PostToolUse", Payload: w.payload("PostToolUse", map[string]any{
		"permission_mode": "acceptEdits", "effort": map[string]any{"level": "medium"},
		"tool_name": tc.Name, "tool_input": tc.Input, "tool_response": tc.Response, "tool_use_id": id, "duration_ms": 12})})
	result := map[string]any{"tool_use_id": id, "type": "tool_result", "content": tc.Result}
	if tc.Error {
		result["is_error"] = true
	}
	w.appendLine(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{result}},
		"toolUseResult": tc.Response, "sourceToolAssistantUUID": w.lastUUID})
	w.flushAttachments()
}

// The tools a sequence uses.

func writeTool(path, content string) tool {
	return tool{Name: "Write", Input: map[string]any{"file_path": path, "content": content},
		Result:   "File created successfully at: " + path,
		Response: map[string]any{"type": "create", "filePath": path, "content": content, "structuredPatch": []any{}, "originalFile": nil, "userModified": false}}
}

func bashTool(command, output string, exit int) tool {
	if exit == 0 {
		return tool{Name: "Bash", Input: map[string]any{"command": command, "description": "run"}, Result: output,
			Response: map[string]any{"stdout": output, "stderr": "", "interrupted": false, "isImage": false, "noOutputExpected": false}}
	}
	text := "Exit code " + strconv.Itoa(exit) + "\n" + output
	return tool{Name: "Bash", Input: map[string]any{"command": command, "description": "run"}, Result: text, Error: true, Response: "Error: " + text}
}

type todo struct{ Content, Status string }

func todoTool(todos []todo) tool {
	var list []any
	for _, t := range todos {
		list = append(list, map[string]any{"content": t.Content, "status": t.Status, "activeForm": t.Content})
	}
	return tool{Name: "TodoWrite", Input: map[string]any{"todos": list},
		Result:   "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress.",
		Response: map[string]any{"oldTodos": []any{}, "newTodos": list}}
}
