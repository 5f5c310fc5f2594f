package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/claudecode"
	"github.com/cairn-agent/cairn/internal/hookevent"
)

// hookBench is one project with a copy of the 100 MB transcript whose state
// is saved, as a long session looks to its hooks.
type hookBench struct {
	b       *testing.B
	dir     string
	path    string
	project string
	env     []string
}

func newHookBench(b *testing.B) *hookBench {
	buildBinaries(b)
	dir := b.TempDir()
	h := &hookBench{b: b, dir: dir, path: filepath.Join(dir, "session.jsonl"), project: filepath.Join(dir, "proj")}
	data, err := os.ReadFile(work.bigPath)
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(h.path, data, 0o600); err != nil {
		b.Fatal(err)
	}
	os.MkdirAll(h.project, 0o755)
	git := exec.Command("git", "init", "-q", h.project)
	if out, err := git.CombinedOutput(); err != nil {
		b.Fatalf("git init: %v %s", err, out)
	}
	h.env = append(os.Environ(), "HOME="+filepath.Join(dir, "home"), "XDG_STATE_HOME="+filepath.Join(dir, "state"),
		"XDG_DATA_HOME="+filepath.Join(dir, "data"), "CLAUDE_PROJECT_DIR="+h.project)
	// The last job must end before the directory is removed.
	b.Cleanup(h.settled)
	// Saved state, every compaction in the file already restored, a
	// PreCompact checkpoint in the database: a hook's steady state. Each
	// step's jobs end before the next, as a session's seconds between
	// hooks let them: on a loaded machine a job still writing would make
	// the next hook's bounded wait for the database run out (and log).
	h.run("PreCompact", map[string]any{"trigger": "auto"})
	h.settled()
	h.run("SessionStart", map[string]any{"source": "compact"})
	h.settled()
	h.run("UserPromptSubmit", nil)
	h.settled()
	return h
}

// run runs one hook process and returns its stdout.
func (h *hookBench) run(event string, extra map[string]any) []byte {
	p := map[string]any{"session_id": "bench", "transcript_path": h.path, "cwd": h.project, "hook_event_name": event}
	for k, v := range extra {
		p[k] = v
	}
	payload, _ := json.Marshal(p)
	cmd := exec.Command(work.cairn, "hook", event)
	cmd.Env = hookEnv(h.env, event)
	cmd.Stdin = bytes.NewReader(payload)
	out, err := cmd.Output()
	if err != nil {
		h.b.Fatalf("cairn hook %s: %v", event, err)
	}
	if log, _ := os.ReadFile(filepath.Join(h.dir, "state", "cairn", "cairn.log")); len(log) > 0 {
		h.b.Fatalf("cairn hook %s logged: %s", event, log)
	}
	return out
}

// hookEnv is env with what the event's command line sets, as cairn
// install wires it (hookevent.Event.Env: GOMAXPROCS=1 for the hooks of
// every turn). With CAIRN_BENCH_BARE_HOOKS=1 in the benchmark's
// environment it is env alone, as installs before perf/hot9 wired every
// hook: the same binary measured both ways.
func hookEnv(env []string, event string) []string {
	if ev, ok := claudecode.Events.Lookup(event); ok && ev.OneCPU && os.Getenv("CAIRN_BENCH_BARE_HOOKS") != "1" {
		return append(slices.Clip(env), hookevent.OneCPUEnv)
	}
	return env
}

// settled waits for the jobs the hooks started (the checkpoint's copy in
// the database, the observations) to end: the way the next hook would
// find them after a compaction's seconds, and no load of theirs on the
// next measurement.
func (h *hookBench) settled() { settled(h.b, h.dir) }

// settled waits for the jobs of the hooks run with XDG_DATA_HOME=dir/data.
func settled(b *testing.B, dir string) {
	f, err := os.Open(filepath.Join(dir, "data", "cairn", "cairn.db.settling"))
	if err != nil {
		return // no job yet
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		b.Fatal(err)
	}
}

func (h *hookBench) appendLines(data []byte) {
	f, err := os.OpenFile(h.path, os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		h.b.Fatal(err)
	}
	f.Write(data)
	f.Close()
}

// interleaved runs the hello-world baseline and the hook in turn, each
// iteration, and reports the median of each and their ratio: a baseline
// measured in the same moments as what it is compared with.
//
// With dir set, it first waits for the jobs of the hooks run with
// XDG_DATA_HOME=dir/data (untimed).
//
// It also reports the median CPU time of each process (user and system,
// with what the process waited for, such as git; not the detached jobs):
// on a loaded machine the wall times move with the load, the CPU times
// much less.
func interleaved(b *testing.B, dir string, before func(), hook func()) {
	var hello, hooks, helloCPU, hookCPU []time.Duration
	for b.Loop() {
		b.StopTimer()
		if before != nil {
			before()
		}
		if dir != "" {
			settled(b, dir)
		}
		// The baseline is run the way the hook is: a payload on stdin,
		// stdout collected.
		t, c := time.Now(), childrenCPU(b)
		cmd := exec.Command(work.hello)
		cmd.Stdin = bytes.NewReader(helloPayload)
		if _, err := cmd.Output(); err != nil {
			b.Fatal(err)
		}
		hello, helloCPU = append(hello, time.Since(t)), append(helloCPU, childrenCPU(b)-c)
		b.StartTimer()
		t, c = time.Now(), childrenCPU(b)
		hook()
		hooks, hookCPU = append(hooks, time.Since(t)), append(hookCPU, childrenCPU(b)-c)
	}
	h, k := median(hello), median(hooks)
	b.ReportMetric(float64(h.Microseconds()), "hello-µs")
	b.ReportMetric(float64(k.Microseconds()), "hook-µs")
	b.ReportMetric(float64(k)/float64(h), "x-hello")
	hc, kc := median(helloCPU), median(hookCPU)
	b.ReportMetric(float64(hc.Microseconds()), "hello-cpu-µs")
	b.ReportMetric(float64(kc.Microseconds()), "hook-cpu-µs")
	if hc > 0 {
		b.ReportMetric(float64(kc)/float64(hc), "cpu-x-hello")
	}
}

// childrenCPU is the CPU time of the benchmark's children that ended and
// were waited for, so far.
func childrenCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime))
}

// helloPayload is as long as a UserPromptSubmit payload.
var helloPayload = bytes.Repeat([]byte("x"), 256)

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// BenchmarkHookUserPromptSubmit: one more turn was appended since the last
// hook; no compaction to restore.
func BenchmarkHookUserPromptSubmit(b *testing.B) {
	h := newHookBench(b)
	interleaved(b, h.dir, func() { h.appendLines(work.turn) }, func() {
		if out := h.run("UserPromptSubmit", map[string]any{"prompt": "go on"}); len(out) != 0 {
			b.Fatalf("unexpected output %s", out)
		}
	})
}

// BenchmarkHookPostToolUse: one more turn appended since the last hook.
func BenchmarkHookPostToolUse(b *testing.B) {
	h := newHookBench(b)
	interleaved(b, h.dir, func() { h.appendLines(work.turn) }, func() {
		h.run("PostToolUse", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "ls"}})
	})
}

// BenchmarkHookPreCompact: PreCompact again with nothing appended since
// the last one: the checkpoint kept from that one's build (the whole 100
// MB session's), the steering text, the announcement and the job.
func BenchmarkHookPreCompact(b *testing.B) {
	h := newHookBench(b)
	interleaved(b, h.dir, nil, func() {
		if out := h.run("PreCompact", map[string]any{"trigger": "auto"}); !bytes.Contains(out, []byte("keep these specifics")) {
			b.Fatalf("no steering text: %s", out)
		}
	})
}

// BenchmarkHookPreCompactAfterTurn: PreCompact with one more turn
// appended since the last: the checkpoint kept from the last build
// (continuity/kept.go) is a turn behind, and it is built again. Beside
// BenchmarkHookPreCompact, where nothing was appended and the kept one
// serves.
func BenchmarkHookPreCompactAfterTurn(b *testing.B) {
	h := newHookBench(b)
	interleaved(b, h.dir, func() { h.appendLines(work.turn) }, func() {
		if out := h.run("PreCompact", map[string]any{"trigger": "auto"}); !bytes.Contains(out, []byte("keep these specifics")) {
			b.Fatalf("no steering text: %s", out)
		}
	})
}

// nearTurn is work.turn with its replies' context near the compaction
// point (160,000 tokens of a 167,000 threshold): the hooks build the
// checkpoint ahead (continuity/ahead.go). It is split where Claude Code
// runs PostToolUse: before the last tool's result, which it writes after.
func nearTurn(b *testing.B) (beforeResult, result, rest []byte) {
	turn := regexp.MustCompile(`"cache_read_input_tokens":\d+`).ReplaceAll(work.turn, []byte(`"cache_read_input_tokens":160000`))
	lines := bytes.SplitAfter(turn, []byte("\n"))
	last := -1
	for i, l := range lines {
		if bytes.Contains(l, []byte(`"tool_result"`)) {
			last = i
		}
	}
	if last < 0 {
		b.Fatal("no tool result in the turn")
	}
	return bytes.Join(lines[:last], nil), lines[last], bytes.Join(lines[last+1:], nil)
}

// BenchmarkHookPreCompactAfterTool: Claude Code compacts on its own in the
// middle of a turn, right after a tool's result (4 of the fixtures' 5
// compactions): the PostToolUse hook before it, near the compaction point,
// started the job that builds the checkpoint ahead; the result is written
// after the hook, and PreCompact runs right after (here, after the
// hello-world baseline), the job possibly still at work.
func BenchmarkHookPreCompactAfterTool(b *testing.B) {
	h := newHookBench(b)
	before, result, rest := nearTurn(b)
	interleaved(b, "", func() {
		h.settled()
		h.appendLines(rest) // the last turn's end
		h.appendLines(before)
		h.run("PostToolUse", map[string]any{"tool_name": "Bash"})
		h.appendLines(result)
	}, func() {
		if out := h.run("PreCompact", map[string]any{"trigger": "auto"}); !bytes.Contains(out, []byte("keep these specifics")) {
			b.Fatalf("no steering text: %s", out)
		}
	})
}

// stopLines are what Claude Code writes after the Stop hooks ran, their
// summary and the turn's duration, in the session of the turn (its cwd,
// id, version and branch).
func stopLines(turn []byte) []byte {
	lines := stopTemplate
	for _, f := range []string{"cwd", "sessionId", "version", "gitBranch"} {
		field := regexp.MustCompile(`"` + f + `":"[^"]*"`)
		found := field.FindAll(turn, -1)
		if len(found) > 0 {
			lines = field.ReplaceAll(lines, found[len(found)-1])
		}
	}
	return lines
}

var stopTemplate = []byte(`{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/bench","sessionId":"bench","version":"2.1.39","gitBranch":"main","type":"system","subtype":"stop_hook_summary","hookCount":1,"hookInfos":[{"command":"cairn hook Stop"}],"hookErrors":[],"preventedContinuation":false,"stopReason":"","hasOutput":false,"level":"suggestion","timestamp":"2026-03-01T12:00:00Z","uuid":"b1"}
{"parentUuid":"b1","isSidechain":false,"userType":"external","cwd":"/bench","sessionId":"bench","version":"2.1.39","gitBranch":"main","type":"system","subtype":"turn_duration","durationMs":5000,"timestamp":"2026-03-01T12:00:00Z","uuid":"b2","isMeta":false}
`)

// BenchmarkHookPreCompactAfterStop: a compaction after a turn (a manual
// one, or Claude Code's own at the next prompt): the Stop hook, near the
// compaction point, started the job that builds the checkpoint ahead, and
// the lines Claude Code writes after it are inert. The job is done by
// then (a prompt or /compact is typed seconds later).
func BenchmarkHookPreCompactAfterStop(b *testing.B) {
	h := newHookBench(b)
	before, result, rest := nearTurn(b)
	after := stopLines(work.turn)
	interleaved(b, h.dir, func() {
		h.appendLines(before)
		h.appendLines(result)
		h.appendLines(rest)
		h.run("Stop", nil)
		h.settled()
		h.appendLines(after)
	}, func() {
		if out := h.run("PreCompact", map[string]any{"trigger": "manual"}); !bytes.Contains(out, []byte("keep these specifics")) {
			b.Fatalf("no steering text: %s", out)
		}
	})
}

// BenchmarkHookSessionEnd: the session ends after one more turn, which
// its last checkpoint does not have (the turn is dated now, and its
// message ids are new: an older one would be older than that checkpoint,
// and a known message id the same turn again).
func BenchmarkHookSessionEnd(b *testing.B) {
	h := newHookBench(b)
	stamp, id := regexp.MustCompile(`"timestamp":"[^"]*"`), regexp.MustCompile(`"(msg|req)_[0-9A-Za-z]+"`)
	n := 0
	interleaved(b, h.dir, func() {
		n++
		turn := stamp.ReplaceAll(work.turn, []byte(`"timestamp":"`+time.Now().UTC().Format(time.RFC3339Nano)+`"`))
		h.appendLines(id.ReplaceAll(turn, fmt.Appendf(nil, `"${1}_bench%d"`, n)))
	}, func() {
		h.run("SessionEnd", map[string]any{"reason": "other"})
	})
}

// BenchmarkHookFirstRun: the hook is the first cairn process to see the
// 100 MB session, and the first at all (no state, no database): cairn
// installed in the middle of a long session. (With the database kept, the
// restore of the compaction an earlier run announced is claimed there,
// and a SessionStart would have nothing to deliver.)
func BenchmarkHookFirstRun(b *testing.B) {
	for _, tc := range []struct {
		event string
		extra map[string]any
		want  string
	}{
		{"PreCompact", map[string]any{"trigger": "auto"}, "keep these specifics"},
		// The restore of the transcript's latest part (continuity/window.go;
		// an older cairn restores the whole).
		{"SessionStart", map[string]any{"source": "compact"}, "orking state"},
		{"SessionEnd", map[string]any{"reason": "other"}, ""},
	} {
		b.Run(tc.event, func(b *testing.B) {
			h := newHookBench(b)
			interleaved(b, h.dir, func() {
				h.settled()
				os.RemoveAll(filepath.Join(h.dir, "state"))
				os.RemoveAll(filepath.Join(h.dir, "data"))
			}, func() {
				if out := h.run(tc.event, tc.extra); !bytes.Contains(out, []byte(tc.want)) {
					b.Fatalf("%s wrote %.200s", tc.event, out)
				}
			})
		})
	}
}

// boundary is a compaction as Claude Code writes it.
var boundary = []byte(`{"type":"system","subtype":"compact_boundary","content":"Conversation compacted","isSidechain":false,"compactMetadata":{"trigger":"auto","preTokens":167200,"postTokens":9100},"timestamp":"2026-03-01T12:00:00Z"}
{"type":"user","isSidechain":false,"isCompactSummary":true,"message":{"role":"user","content":"This session is being continued from a previous conversation that ran out of context. Summary."},"timestamp":"2026-03-01T12:00:01Z"}
`)

// BenchmarkHookSessionStartCompact: a new compaction each time, announced
// by PreCompact (not timed) and restored from its checkpoint, as Claude
// Code 2.1.328 orders them: PreCompact, SessionStart, then the boundary.
func BenchmarkHookSessionStartCompact(b *testing.B) {
	h := newHookBench(b)
	interleaved(b, h.dir, func() {
		h.appendLines(boundary)
		h.run("PreCompact", map[string]any{"trigger": "auto"})
	}, func() {
		if out := h.run("SessionStart", map[string]any{"source": "compact"}); !bytes.Contains(out, []byte("Restored working state")) {
			b.Fatalf("no restore: %s", out)
		}
	})
}
