package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-agent/cairn/internal/transcript"
)

// geminiRun replays a real Gemini CLI 0.61.0 chat file
// (testdata/gemini-tools-compress.jsonl: five -p turns, tools, and a
// compression mid-turn at a reported 90,000 prompt tokens with
// model.compressionThreshold 0.075) line by line, running Gemini's hooks
// with GEMINI_CLI_HOME holding settings.json.
type geminiRun struct {
	t       *testing.T
	w       *world
	lines   []string
	path    string
	project string
	home    string
}

func newGeminiRun(t *testing.T, settings string) *geminiRun {
	g := &geminiRun{t: t, w: newWorld(t), lines: readLines(t, "testdata/gemini-tools-compress.jsonl")}
	g.project = filepath.Join(g.w.dir, "proj")
	g.home = filepath.Join(g.w.dir, "home")
	g.path = filepath.Join(g.w.dir, "session.jsonl")
	os.MkdirAll(g.project, 0o755)
	os.MkdirAll(filepath.Join(g.home, ".gemini"), 0o755)
	os.WriteFile(filepath.Join(g.home, ".gemini", "settings.json"), []byte(settings), 0o600)
	return g
}

// upto writes the chat file's first n lines.
func (g *geminiRun) upto(n int) {
	os.WriteFile(g.path, []byte(strings.Join(g.lines[:n], "\n")+"\n"), 0o600)
}

func (g *geminiRun) run(event string, extra map[string]any) string {
	g.t.Helper()
	p := map[string]any{"session_id": "ses-g", "transcript_path": g.path, "cwd": g.project, "hook_event_name": event,
		"timestamp": "2026-11-24T08:22:25.391Z"}
	for k, v := range extra {
		p[k] = v
	}
	var out bytes.Buffer
	r := g.w.runner(bytes.NewReader(mustJSON(p)), &out)
	r.Agent = Gemini()
	r.Getenv = func(k string) string {
		if k == "GEMINI_CLI_HOME" {
			return g.home
		}
		return ""
	}
	r.Run(context.Background(), event)
	return out.String()
}

// pending is what PreCompress announced, "" for nothing.
func (g *geminiRun) pending() string {
	files, _ := filepath.Glob(filepath.Join(g.w.stateDir(), "sessions", "*.pending"))
	if len(files) == 0 {
		return ""
	}
	data, _ := os.ReadFile(files[0])
	return string(data)
}

// TestGeminiCompressionCycle: PreCompress, which Gemini CLI runs before
// every request, takes the checkpoint only before the request it
// compresses for and prints nothing; AfterTool after the compression does
// not restore (the transcript would not show it delivered); the next
// BeforeAgent restores, from the checkpoint PreCompress took, as its
// additionalContext; the BeforeAgent after it does not again.
func TestGeminiCompressionCycle(t *testing.T) {
	g := newGeminiRun(t, `{"model":{"compressionThreshold":0.075}}`)
	g.upto(43) // the big turn's prompt; the last reply reported 3,500
	if out := g.run("PreCompress", map[string]any{"trigger": "auto"}); out != "" || g.pending() != "" {
		t.Fatalf("PreCompress under the threshold: out %q, pending %q", out, g.pending())
	}
	g.upto(47) // the reply that reported 90,000, and its tool call's result
	if out := g.run("PreCompress", map[string]any{"trigger": "auto"}); out != "" {
		t.Errorf("PreCompress printed %q: Gemini CLI shows the model none of it", out)
	}
	announced := g.pending()
	if !strings.Contains(announced, `"key":"c1"`) || !strings.Contains(announced, "Big turn") {
		t.Fatalf("PreCompress over the threshold announced %q\nlog: %s", announced, g.w.log())
	}
	if out := g.run("PreCompress", map[string]any{"trigger": "auto"}); out != "" || g.pending() != announced {
		t.Errorf("a second PreCompress at the same turn took another checkpoint")
	}
	g.upto(48) // the compression's $set
	if out := g.run("AfterTool", map[string]any{"tool_name": "run_shell_command"}); strings.Contains(out, transcript.RestoreHeader) {
		t.Errorf("AfterTool restored: %q", out)
	}
	if out := g.run("PreCompress", map[string]any{"trigger": "auto"}); out != "" || g.pending() != announced {
		t.Errorf("PreCompress after the compression took a checkpoint: the context fell")
	}
	g.upto(56) // the next -p process resumed
	out := g.run("BeforeAgent", map[string]any{"prompt": "After compression, what is WORD?"})
	text := restored(t, out)
	if !strings.Contains(out, `"hookEventName":"BeforeAgent"`) || !strings.HasPrefix(text, transcript.RestoreHeader) ||
		!strings.Contains(text, "notes.txt") {
		t.Fatalf("BeforeAgent after the compression gave no restore of the work before it:\n%s\nlog: %s", out, g.w.log())
	}
	// Gemini CLI records the context in the prompt's record, as a part of
	// its own: the transcript shows the restore delivered.
	g.lines[56] = strings.Replace(g.lines[56], `"content":[{"text":"After compression, what is WORD?"}]`,
		`"content":[{"text":"After compression, what is WORD?"},{"text":`+jsString("<hook_context>"+text+"</hook_context>")+`}]`, 1)
	if !strings.Contains(g.lines[56], "hook_context") {
		t.Fatal("the prompt's record is not the one the test expects")
	}
	g.upto(60)
	if out := g.run("BeforeAgent", map[string]any{"prompt": "and then?"}); strings.Contains(out, transcript.RestoreHeader) {
		t.Errorf("the next prompt got the restore again: %q", out)
	}
	if l := g.w.log(); l != "" {
		t.Errorf("log: %s", l)
	}
}

// jsString is s as JSON.stringify writes it: < and > as they are.
func jsString(s string) string {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	e.Encode(s)
	return strings.TrimSpace(b.String())
}

// TestGeminiPreCompressByItsThreshold: at the default threshold (half of
// 1,048,576) a reported 90,000 is no compression, and PreCompress takes
// no checkpoint; a manual /compress always does.
func TestGeminiPreCompressByItsThreshold(t *testing.T) {
	for _, tt := range []struct {
		name, settings, trigger string
		want                    bool
	}{
		{"default threshold", `{}`, "auto", false},
		{"low threshold", "// low\n{\"model\":{\"compressionThreshold\":0.075}}", "auto", true},
		{"manual", `{}`, "manual", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g := newGeminiRun(t, tt.settings)
			g.upto(47)
			g.run("PreCompress", map[string]any{"trigger": tt.trigger})
			if got := g.pending() != ""; got != tt.want {
				t.Errorf("checkpoint taken: %v, want %v\nlog: %s", got, tt.want, g.w.log())
			}
		})
	}
}

// TestGeminiAdvisoryAfterTool: an advisory after a tool, by Gemini CLI's
// threshold, as AfterTool's additionalContext.
func TestGeminiAdvisoryAfterTool(t *testing.T) {
	g := newGeminiRun(t, `{"model":{"compressionThreshold":0.1}}`) // 104,858: 90,000 is over L1
	g.upto(47)
	out := g.run("AfterTool", map[string]any{"tool_name": "run_shell_command"})
	if text := restored(t, out); !strings.Contains(text, "context L") || !strings.Contains(out, `"hookEventName":"AfterTool"`) {
		t.Errorf("no advisory after the tool: %q\nlog: %s", out, g.w.log())
	}
}

// TestGeminiNoSessionStart: SessionStart is not wired for Gemini CLI
// (its context costs the prompt on --resume): a run for it is logged and
// answers nothing.
func TestGeminiNoSessionStart(t *testing.T) {
	g := newGeminiRun(t, `{}`)
	if out := g.run("SessionStart", map[string]any{"source": "startup"}); out != "" || !strings.Contains(g.w.log(), `unknown hook event "SessionStart"`) {
		t.Errorf("out %q, log %q", out, g.w.log())
	}
}

// TestGeminiPointerAtFirstPrompt: a Gemini session's SessionEnd
// checkpoint is pointed at by the first prompt of the project's next
// session (BeforeAgent, since SessionStart is not wired), and only there.
func TestGeminiPointerAtFirstPrompt(t *testing.T) {
	g := newGeminiRun(t, `{}`)
	g.upto(24) // two turns
	g.run("SessionEnd", map[string]any{"reason": "exit"})
	old := g.path
	g.path = filepath.Join(g.w.dir, "new.jsonl")
	run := func(n int, session string) string {
		os.WriteFile(g.path, []byte(strings.Join(g.lines[:n], "\n")+"\n"), 0o600)
		var out bytes.Buffer
		p := map[string]any{"session_id": session, "transcript_path": g.path, "cwd": g.project, "hook_event_name": "BeforeAgent", "prompt": "hi"}
		r := g.w.runner(bytes.NewReader(mustJSON(p)), &out)
		r.Agent = Gemini()
		r.Run(context.Background(), "BeforeAgent")
		return restored(t, out.String())
	}
	text := run(2, "new-session") // the header and the session context: no prompt yet
	if !strings.Contains(text, "cairn resume") || !strings.Contains(text, "notes.txt") {
		t.Errorf("no pointer at the first prompt:\n%s\nlog: %s", text, g.w.log())
	}
	if text := run(11, "new-session"); strings.Contains(text, "cairn resume") {
		t.Errorf("a later prompt got the pointer: %q", text)
	}
	if old == g.path {
		t.Fatal("the old session is the new one")
	}
	if l := g.w.log(); l != "" {
		t.Errorf("log: %s", l)
	}
}
