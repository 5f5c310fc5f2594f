//go:build unix

package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/e2e/fakeapi"
	"github.com/cairn-agent/cairn/internal/loop"
)

const loopPlan = "# Plan\n\n- [ ] Parse the CSV header\n- [ ] Write the totals row\n- [ ] Round half to even\n"

// loopTick is the fake model ticking an item of the plan, as an agent does.
func loopTick(id, item string) fakeapi.ToolUse {
	return fakeapi.ToolUse{ID: id, Name: "Bash", Input: map[string]any{
		"command": "sed -i 's/- \\[ \\] " + item + "/- [x] " + item + "/' fix_plan.md", "description": "Tick the item"}}
}

func loopUsage(tokens int) fakeapi.Usage {
	return fakeapi.Usage{InputTokens: 10, CacheReadInputTokens: tokens - 30, OutputTokens: 20}
}

// startLoop runs `cairn loop` in the bench's project with the real client.
func startLoop(t *testing.T, b *bench, bin string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(built.bin, append([]string{"loop"}, args...)...)
	cmd.Dir = b.s.ProjectDir
	cmd.Env = append(b.s.Environ(), "CAIRN_LOOP_AGENT="+bin)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &out
}

func waitLoop(t *testing.T, cmd *exec.Cmd, out *bytes.Buffer) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(4 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("cairn loop did not end:\n%s", out)
	}
	return nil
}

func readLoopState(t *testing.T, dir string) loop.State {
	t.Helper()
	s, err := loop.Load(filepath.Join(dir, loop.StateFile))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestLoopOnTheRealClient: three iterations of Claude Code 2.1.328; the
// second reaches L2 (150,000 of the 167,000 auto-compact point), ends with
// a checkpoint and a handoff, and the third starts from them (its first
// request carries the resume section) and finishes the plan.
func TestLoopOnTheRealClient(t *testing.T) {
	t.Parallel()
	b := newBench(t, fakeapi.Options{})
	// The fake's model has a 1M window; the client and cairn both take
	// this one, whose auto-compact point is 167,000.
	b.s.Env = append(b.s.Env, "CLAUDE_CODE_AUTO_COMPACT_WINDOW=200000")
	bin := b.s.Bin
	dir := b.s.ProjectDir
	os.WriteFile(filepath.Join(dir, loop.PromptFile), []byte("# Task\n\nExport the invoices as CSV.\n"), 0o644)
	os.WriteFile(filepath.Join(dir, loop.PlanFile), []byte(loopPlan), 0o644)

	b.fake.Enqueue(
		fakeapi.Reply{For: "Parse the CSV header", Tools: []fakeapi.ToolUse{loopTick("toolu_i1", "Parse the CSV header")}, Usage: loopUsage(30000)},
		fakeapi.Reply{Text: "The header is parsed.", Usage: loopUsage(31000)},
		// The second iteration's context grows past L2; the agent ends its
		// turn without ticking the item.
		fakeapi.Reply{For: "Write the totals row", Tools: []fakeapi.ToolUse{{ID: "toolu_i2", Name: "Bash",
			Input: map[string]any{"command": "echo totals half written", "description": "Work"}}}, Usage: loopUsage(150000)},
		fakeapi.Reply{Text: "The totals row is half written.", Usage: loopUsage(151000)},
		fakeapi.Reply{For: "CONTEXT CHECKPOINT RESUME", Tools: []fakeapi.ToolUse{
			loopTick("toolu_i3a", "Write the totals row"), loopTick("toolu_i3b", "Round half to even")}, Usage: loopUsage(40000)},
		fakeapi.Reply{Text: "Everything is done. " + loop.DefaultMarker, Usage: loopUsage(41000)},
	)
	cmd, out := startLoop(t, b, bin, "--grace", "20s", "--", "--allowedTools", "Bash(sed:*)", "Bash(echo:*)")
	if err := waitLoop(t, cmd, out); err != nil {
		t.Fatalf("cairn loop: %v\n%s", err, out)
	}
	t.Logf("cairn loop:\n%s", out)
	b.checkScriptUsed(t)
	if m := b.fake.Mismatched(); len(m) > 0 {
		t.Errorf("%d requests went to the wrong iteration (the third must carry the resume context)", len(m))
	}
	s := readLoopState(t, dir)
	if s.Status != "done" || s.Iteration != 3 {
		t.Fatalf("loop %s (%s) after %d iterations", s.Status, s.StopReason, s.Iteration)
	}
	var got []string
	for _, h := range s.ContextHistory {
		got = append(got, h.Outcome)
		if h.SessionID == "" {
			t.Errorf("iteration %d has no session", h.Iteration)
		}
	}
	if strings.Join(got, ",") != "completed,checkpoint,completed" {
		t.Errorf("outcomes %v", got)
	}
	h2 := s.ContextHistory[1]
	if !h2.Checkpoint || h2.PeakPercent != 90 && h2.PeakPercent != 89 {
		t.Errorf("iteration 2: %+v", h2)
	}
	plan, _ := os.ReadFile(filepath.Join(dir, loop.PlanFile))
	if strings.Contains(string(plan), "- [ ]") {
		t.Errorf("plan not done:\n%s", plan)
	}
	// The handoff the second iteration ended with, named in the third's
	// first request.
	handoffs, _ := filepath.Glob(filepath.Join(dir, ".claude", "handoffs", "*.md"))
	if len(handoffs) != 1 {
		t.Fatalf("handoffs: %v", handoffs)
	}
	third := ""
	for _, r := range b.fake.OfKind(fakeapi.Main) {
		if txt := fakeapi.FirstUserText(r.Body); strings.Contains(txt, "CONTEXT CHECKPOINT RESUME") {
			third = txt
			break
		}
	}
	for _, want := range []string{filepath.Base(handoffs[0]), "Item**: Write the totals row", "Export the invoices as CSV."} {
		if !strings.Contains(third, want) {
			t.Errorf("the third iteration's prompt lacks %q:\n%s", want, third)
		}
	}
	// The state file is seed 003's shape (RLP-001, RLP-005).
	var raw map[string]any
	data, _ := os.ReadFile(filepath.Join(dir, loop.StateFile))
	json.Unmarshal(data, &raw)
	if _, ok := raw["context_checkpoint"].(map[string]any); !ok {
		t.Errorf("no context_checkpoint object: %s", data)
	}
	if hist, _ := raw["context_history"].([]any); len(hist) != 3 {
		t.Errorf("context_history: %s", data)
	}
	// cairn loop status (RLP-007).
	st, err := runCairnWith(b.s, nil, "loop", "status")
	if err != nil || !strings.Contains(string(st), "loop      done") || !strings.Contains(string(st), "#2 checkpoint · peak") {
		t.Errorf("loop status: %v\n%s", err, st)
	}
}

// TestLoopKilledMidIteration: the loop is killed (SIGKILL) while an
// iteration's agent is running a command; the next cairn loop stops that
// orphaned agent, checkpoints its session, and resumes from it.
func TestLoopKilledMidIteration(t *testing.T) {
	t.Parallel()
	b := newBench(t, fakeapi.Options{})
	dir := b.s.ProjectDir
	os.WriteFile(filepath.Join(dir, loop.PromptFile), []byte("# Task\n\nExport the invoices as CSV.\n"), 0o644)
	os.WriteFile(filepath.Join(dir, loop.PlanFile), []byte(loopPlan), 0o644)
	b.fake.Enqueue(
		fakeapi.Reply{For: "Parse the CSV header", Tools: []fakeapi.ToolUse{{ID: "toolu_slow", Name: "Bash",
			Input: map[string]any{"command": "python3 -c 'import time; time.sleep(90)'", "description": "A long build"}}}, Usage: loopUsage(50000)},
	)
	cmd, out := startLoop(t, b, b.s.Bin, "--", "--allowedTools", "Bash(python3:*)", "Bash(sed:*)")
	deadline := time.Now().Add(2 * time.Minute)
	for {
		s := readLoopState(t, dir)
		if s.Current != nil && s.Current.SessionID != "" && len(b.fake.OfKind(fakeapi.Main)) > 0 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the first iteration never started:\n%s", out)
		}
		time.Sleep(200 * time.Millisecond)
	}
	// The agent is in its long command.
	for !processRuns("time.sleep(90)") {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the agent never ran its command:\n%s", out)
		}
		time.Sleep(200 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	killed := readLoopState(t, dir)
	if killed.Current == nil || killed.Current.AgentPID == 0 {
		t.Fatalf("the killed loop left no iteration in progress: %+v", killed)
	}

	// The next loop: the orphaned agent is stopped, its session
	// checkpointed, and iteration 2 resumes from it and finishes.
	b.fake.Enqueue(
		fakeapi.Reply{For: "CONTEXT CHECKPOINT RESUME", Tools: []fakeapi.ToolUse{loopTick("toolu_r1", "Parse the CSV header"),
			loopTick("toolu_r2", "Write the totals row"), loopTick("toolu_r3", "Round half to even")}, Usage: loopUsage(20000)},
		fakeapi.Reply{Text: "Done. " + loop.DefaultMarker, Usage: loopUsage(21000)},
	)
	cmd, out = startLoop(t, b, b.s.Bin, "--", "--allowedTools", "Bash(sed:*)")
	if err := waitLoop(t, cmd, out); err != nil {
		t.Fatalf("the resumed loop: %v\n%s", err, out)
	}
	t.Logf("resumed:\n%s", out)
	if syscall.Kill(killed.Current.AgentPID, 0) == nil {
		t.Errorf("the orphaned agent %d still runs", killed.Current.AgentPID)
	}
	s := readLoopState(t, dir)
	if s.Status != "done" || len(s.ContextHistory) != 2 || s.ContextHistory[0].Outcome != "interrupted" || !s.ContextHistory[0].Checkpoint {
		t.Errorf("after the resume: %s (%s), history %+v", s.Status, s.StopReason, s.ContextHistory)
	}
	if m := b.fake.Mismatched(); len(m) > 0 {
		t.Errorf("%d requests went to the wrong iteration", len(m))
	}

}

// processRuns says whether a process whose command line holds s runs.
func processRuns(s string) bool {
	dirs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, d := range dirs {
		if b, err := os.ReadFile(d); err == nil && bytes.Contains(b, []byte(s)) {
			return true
		}
	}
	return false
}
