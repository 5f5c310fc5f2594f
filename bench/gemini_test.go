package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The Gemini CLI hooks on a long session: a chat file of about 100 MB made
// of the real 0.61.0 chat's turns (internal/hook/testdata), as long as the
// Claude Code hooks' transcript, run through `cairn hook --agent gemini`.
// PreCompress is the hottest: Gemini CLI awaits it before every model
// request.

const geminiChat = "../internal/hook/testdata/gemini-tools-compress.jsonl"

// geminiParts splits the real chat: its head (header and session
// context), one turn with a tool call, and the mid-turn compression with
// the rest of its turn.
func geminiParts(b *testing.B) (head, turn, compression string) {
	data, err := os.ReadFile(geminiChat)
	if err != nil {
		b.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	return strings.Join(lines[:2], ""), strings.Join(lines[15:24], ""), strings.Join(lines[41:52], "")
}

// geminiIDs are the record ids in a chat's lines: a copy of a turn gets
// ids of its own, since Gemini CLI reads a record with an earlier id as
// a rewrite of it, and a <state_snapshot> with an earlier id as no news.
var geminiIDs = regexp.MustCompile(`"id":"([^"]+)"`)

type geminiBench struct {
	*hookBench
	turn, compression string
	n                 int
}

// fresh is part with ids no copy had before.
func (g *geminiBench) fresh(part string) []byte {
	g.n++
	return []byte(geminiIDs.ReplaceAllString(part, fmt.Sprintf(`"id":"${1}-%d"`, g.n)))
}

func newGeminiBench(b *testing.B) *geminiBench {
	buildBinaries(b)
	head, turn, compression := geminiParts(b)
	dir := b.TempDir()
	h := &hookBench{b: b, dir: dir, path: filepath.Join(dir, "chat.jsonl"), project: filepath.Join(dir, "proj")}
	b.Cleanup(h.settled) // the last job ends before the directory is removed
	g := &geminiBench{hookBench: h, turn: turn, compression: compression}
	var big bytes.Buffer
	big.WriteString(head)
	for big.Len() < bigSize {
		big.Write(g.fresh(turn))
	}
	if err := os.WriteFile(h.path, big.Bytes(), 0o600); err != nil {
		b.Fatal(err)
	}
	os.MkdirAll(h.project, 0o755)
	if out, err := exec.Command("git", "init", "-q", h.project).CombinedOutput(); err != nil {
		b.Fatalf("git init: %v %s", err, out)
	}
	home := filepath.Join(dir, "home")
	os.MkdirAll(filepath.Join(home, ".gemini"), 0o755)
	// 0.075 of 1,048,576: the compression's 90,000 is over it, a turn's
	// 2,000 to 2,500 is not.
	os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(`{"model":{"compressionThreshold":0.075}}`), 0o600)
	h.env = append(os.Environ(), "HOME="+home, "GEMINI_CLI_HOME="+home, "XDG_STATE_HOME="+filepath.Join(dir, "state"),
		"XDG_DATA_HOME="+filepath.Join(dir, "data"))
	// The first read of the whole chat, with the longest budget (as the
	// Codex bench warms up with PreCompact): the state it saves is what a
	// long session's hooks start from.
	g.run("PreCompress", map[string]any{"trigger": "manual"})
	settled(b, dir)
	g.run("BeforeAgent", map[string]any{"prompt": "go on"})
	settled(b, dir)
	return g
}

// run runs one Gemini hook process and returns its stdout.
func (g *geminiBench) run(event string, extra map[string]any) []byte {
	p := map[string]any{"session_id": "bench", "transcript_path": g.path, "cwd": g.project, "hook_event_name": event,
		"timestamp": "2026-11-24T08:22:25.391Z"}
	for k, v := range extra {
		p[k] = v
	}
	payload, _ := json.Marshal(p)
	cmd := exec.Command(work.cairn, "hook", "--agent", "gemini", event)
	cmd.Env = g.env
	cmd.Stdin = bytes.NewReader(payload)
	out, err := cmd.Output()
	if err != nil {
		g.b.Fatalf("cairn hook --agent gemini %s: %v", event, err)
	}
	if log, _ := os.ReadFile(filepath.Join(g.dir, "state", "cairn", "cairn.log")); len(log) > 0 {
		g.b.Fatalf("cairn hook --agent gemini %s logged: %s", event, log)
	}
	return out
}

// BenchmarkHookGeminiPreCompress: one more turn appended since the last
// hook, under the threshold: what every model request waits for.
func BenchmarkHookGeminiPreCompress(b *testing.B) {
	g := newGeminiBench(b)
	interleaved(b, g.dir, func() { g.appendLines(g.fresh(g.turn)) }, func() {
		if out := g.run("PreCompress", map[string]any{"trigger": "auto"}); len(out) != 0 {
			b.Fatalf("unexpected output %s", out)
		}
	})
}

// BenchmarkHookGeminiBeforeAgent: one more turn appended since the last
// hook; no compression to restore.
func BenchmarkHookGeminiBeforeAgent(b *testing.B) {
	g := newGeminiBench(b)
	interleaved(b, g.dir, func() { g.appendLines(g.fresh(g.turn)) }, func() {
		if out := g.run("BeforeAgent", map[string]any{"prompt": "go on"}); len(out) != 0 {
			b.Fatalf("unexpected output %s", out)
		}
	})
}

// BenchmarkHookGeminiAfterTool: one more turn appended since the last
// hook.
func BenchmarkHookGeminiAfterTool(b *testing.B) {
	g := newGeminiBench(b)
	interleaved(b, g.dir, func() { g.appendLines(g.fresh(g.turn)) }, func() {
		g.run("AfterTool", map[string]any{"tool_name": "run_shell_command", "tool_input": map[string]any{"command": "ls"},
			"tool_response": map[string]any{"llmContent": "ok", "returnDisplay": "ok"}})
	})
}

// BenchmarkHookGeminiBeforeAgentRestore: a new compression each time,
// its checkpoint taken by PreCompress (not timed) before it is written,
// then restored by the next BeforeAgent.
func BenchmarkHookGeminiBeforeAgentRestore(b *testing.B) {
	g := newGeminiBench(b)
	interleaved(b, g.dir, func() {
		c := g.fresh(g.compression)
		i := bytes.Index(c, []byte(`{"$set":{"messages"`))
		g.appendLines(c[:i]) // the 90,000-token reply and its tool call
		g.run("PreCompress", map[string]any{"trigger": "auto"})
		g.appendLines(c[i:])
	}, func() {
		if out := g.run("BeforeAgent", map[string]any{"prompt": "go on"}); !bytes.Contains(out, []byte("Restored working state")) {
			b.Fatalf("no restore: %s", out)
		}
	})
}
