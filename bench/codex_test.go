package bench

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The Codex CLI hooks on a long session: a rollout of about 100 MB made
// of the real 0.169.0 rollout's turns (internal/hook/testdata), as long
// as the Claude Code hooks' transcript, run through `cairn hook --agent
// codex`.

const codexRollout = "../internal/hook/testdata/codex-rollout-auto-compaction.jsonl"

// codexParts splits the real rollout: its head (session_meta to the
// first turn), one turn, and the auto compaction with the turn that
// follows it.
func codexParts(b *testing.B) (head, turn, compaction []byte) {
	data, err := os.ReadFile(codexRollout)
	if err != nil {
		b.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	return []byte(strings.Join(lines[:7], "")), []byte(strings.Join(lines[17:28], "")), []byte(strings.Join(lines[28:45], ""))
}

type codexBench struct {
	*hookBench
	turn, compaction []byte
}

func newCodexBench(b *testing.B) *codexBench {
	buildBinaries(b)
	head, turn, compaction := codexParts(b)
	dir := b.TempDir()
	h := &hookBench{b: b, dir: dir, path: filepath.Join(dir, "rollout.jsonl"), project: filepath.Join(dir, "proj")}
	b.Cleanup(h.settled) // the last job ends before the directory is removed
	var big bytes.Buffer
	big.Write(head)
	for big.Len() < bigSize {
		big.Write(turn)
	}
	if err := os.WriteFile(h.path, big.Bytes(), 0o600); err != nil {
		b.Fatal(err)
	}
	os.MkdirAll(h.project, 0o755)
	if out, err := exec.Command("git", "init", "-q", h.project).CombinedOutput(); err != nil {
		b.Fatalf("git init: %v %s", err, out)
	}
	codexHome := filepath.Join(dir, "codexhome")
	os.MkdirAll(codexHome, 0o755)
	os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte("model_context_window = 200000\nmodel_auto_compact_token_limit = 50000\n"), 0o600)
	h.env = append(os.Environ(), "HOME="+filepath.Join(dir, "home"), "XDG_STATE_HOME="+filepath.Join(dir, "state"),
		"XDG_DATA_HOME="+filepath.Join(dir, "data"), "CODEX_HOME="+codexHome)
	c := &codexBench{hookBench: h, turn: turn, compaction: compaction}
	// Each step's jobs end before the next (newHookBench says why).
	c.run("PreCompact", map[string]any{"trigger": "auto"})
	c.settled()
	c.run("SessionStart", map[string]any{"source": "startup"})
	c.settled()
	c.run("UserPromptSubmit", map[string]any{"prompt": "go on"})
	c.settled()
	return c
}

// run runs one Codex hook process and returns its stdout.
func (c *codexBench) run(event string, extra map[string]any) []byte {
	p := map[string]any{"session_id": "bench", "transcript_path": c.path, "cwd": c.project, "hook_event_name": event, "model": "gpt-5.1-codex"}
	for k, v := range extra {
		p[k] = v
	}
	payload, _ := json.Marshal(p)
	cmd := exec.Command(work.cairn, "hook", "--agent", "codex", event)
	cmd.Env = c.env
	cmd.Stdin = bytes.NewReader(payload)
	out, err := cmd.Output()
	if err != nil {
		c.b.Fatalf("cairn hook --agent codex %s: %v", event, err)
	}
	if log, _ := os.ReadFile(filepath.Join(c.dir, "state", "cairn", "cairn.log")); len(log) > 0 {
		c.b.Fatalf("cairn hook --agent codex %s logged: %s", event, log)
	}
	return out
}

// BenchmarkHookCodexUserPromptSubmit: one more turn appended since the
// last hook; no compaction to restore.
func BenchmarkHookCodexUserPromptSubmit(b *testing.B) {
	c := newCodexBench(b)
	interleaved(b, c.dir, func() { c.appendLines(c.turn) }, func() {
		if out := c.run("UserPromptSubmit", map[string]any{"prompt": "go on"}); len(out) != 0 {
			b.Fatalf("unexpected output %s", out)
		}
	})
}

// BenchmarkHookCodexPostToolUse: one more turn appended since the last
// hook.
func BenchmarkHookCodexPostToolUse(b *testing.B) {
	c := newCodexBench(b)
	interleaved(b, c.dir, func() { c.appendLines(c.turn) }, func() {
		c.run("PostToolUse", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "ls"}, "tool_response": "ok\n"})
	})
}

// BenchmarkHookCodexSessionStartCompact: a new compaction each time,
// announced by PreCompact (not timed), written to the rollout, then
// restored at SessionStart(compact), in Codex's order.
func BenchmarkHookCodexSessionStartCompact(b *testing.B) {
	c := newCodexBench(b)
	interleaved(b, c.dir, func() {
		c.appendLines(c.turn)
		c.run("PreCompact", map[string]any{"trigger": "auto"})
		c.appendLines(c.compaction)
		c.run("PostCompact", map[string]any{"trigger": "auto"})
	}, func() {
		if out := c.run("SessionStart", map[string]any{"source": "compact"}); !bytes.Contains(out, []byte("Restored working state")) {
			b.Fatalf("no restore: %s", out)
		}
	})
}
