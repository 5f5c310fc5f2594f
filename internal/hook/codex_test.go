package hook

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCodexCompactionCycle replays a real Codex 0.169.0 rollout around an
// auto compaction, in the order Codex fires its hooks: PreCompact takes
// the checkpoint and prints nothing (Codex would show the model none of
// it), PostCompact prints nothing, SessionStart(resume) no restore,
// SessionStart(compact) the restore as additionalContext, and the prompt
// after it no second one.
func TestCodexCompactionCycle(t *testing.T) {
	lines := readLines(t, "testdata/codex-rollout-auto-compaction.jsonl")
	w := newWorld(t)
	project := filepath.Join(w.dir, "proj")
	os.MkdirAll(project, 0o755)
	path := filepath.Join(w.dir, "rollout.jsonl")
	write := func(upto int) {
		os.WriteFile(path, []byte(strings.Join(lines[:upto], "\n")+"\n"), 0o600)
	}
	payload := func(event string, extra map[string]any) []byte {
		p := map[string]any{"session_id": "01a20c9d-f649-7071-a73a-d6745c8c97c0", "transcript_path": path, "cwd": project,
			"hook_event_name": event, "model": "gpt-5.1-codex"}
		for k, v := range extra {
			p[k] = v
		}
		return mustJSON(p)
	}
	run := func(event string, extra map[string]any) string {
		t.Helper()
		var out bytes.Buffer
		r := w.runner(bytes.NewReader(payload(event, extra)), &out)
		r.Agent = Codex()
		r.Run(context.Background(), event)
		return out.String()
	}
	write(31) // the turn that starts over the limit, before the compaction request
	if out := run("PreCompact", map[string]any{"trigger": "auto"}); out != "" {
		t.Errorf("PreCompact printed %q: Codex shows it to no model", out)
	}
	write(40) // the compacted record and the ContextCompaction item
	if out := run("PostCompact", map[string]any{"trigger": "auto"}); out != "" {
		t.Errorf("PostCompact printed %q", out)
	}
	if out := run("SessionStart", map[string]any{"source": "resume"}); strings.Contains(out, "compact") {
		t.Errorf("SessionStart(resume) restored: %q", out)
	}
	out := run("SessionStart", map[string]any{"source": "compact"})
	text := restored(t, out)
	if !strings.Contains(out, `"hookEventName":"SessionStart"`) || !strings.Contains(text, "Turn two, big usage") {
		t.Fatalf("SessionStart(compact) gave no restore of the turns before the compaction:\n%s\nlog: %s", out, w.log())
	}
	write(45)
	if out := run("UserPromptSubmit", map[string]any{"prompt": "Turn three after compaction"}); strings.Contains(out, "Turn two, big usage") {
		t.Errorf("the prompt got the restore again: %q", out)
	}
	if l := w.log(); l != "" {
		t.Errorf("log: %s", l)
	}
}

// TestCodexRestoreAtPrompt: when SessionStart(compact) did not deliver
// (it failed, or ran out of time), the next prompt does.
func TestCodexRestoreAtPrompt(t *testing.T) {
	lines := readLines(t, "testdata/codex-rollout-auto-compaction.jsonl")
	w := newWorld(t)
	project := filepath.Join(w.dir, "proj")
	os.MkdirAll(project, 0o755)
	path := filepath.Join(w.dir, "rollout.jsonl")
	os.WriteFile(path, []byte(strings.Join(lines[:45], "\n")+"\n"), 0o600)
	var out bytes.Buffer
	p := mustJSON(map[string]any{"session_id": "s", "transcript_path": path, "cwd": project, "hook_event_name": "UserPromptSubmit", "prompt": "go on"})
	r := w.runner(bytes.NewReader(p), &out)
	r.Agent = Codex()
	r.Run(context.Background(), "UserPromptSubmit")
	var v struct {
		HookSpecificOutput struct{ HookEventName, AdditionalContext string }
	}
	if err := json.Unmarshal(out.Bytes(), &v); err != nil || v.HookSpecificOutput.HookEventName != "UserPromptSubmit" ||
		!strings.Contains(v.HookSpecificOutput.AdditionalContext, "Turn two, big usage") {
		t.Fatalf("no restore at the prompt: %v\n%s\nlog: %s", err, out.String(), w.log())
	}
}

// TestCodexNoStop: Stop is not Codex's: a run for it is logged, answers
// nothing.
func TestCodexNoStop(t *testing.T) {
	w := newWorld(t)
	var out bytes.Buffer
	r := w.runner(strings.NewReader(`{}`), &out)
	r.Agent = Codex()
	r.Run(context.Background(), "Stop")
	if out.Len() != 0 || !strings.Contains(w.log(), `unknown hook event "Stop"`) {
		t.Errorf("out %q, log %q", out.String(), w.log())
	}
}

func readLines(t *testing.T, file string) []string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines
}

// TestCodexAdvisoryByItsRules: the pressure levels are measured by Codex's
// rules, with model_auto_compact_token_limit from $CODEX_HOME/config.toml:
// 61,020 tokens is L1 of an 80,000 limit, and nothing of the 190,000
// window Codex works with when no limit is set (171,000 then).
func TestCodexAdvisoryByItsRules(t *testing.T) {
	lines := readLines(t, "testdata/codex-rollout-auto-compaction.jsonl")
	for _, tt := range []struct {
		name, config string
		want         bool
	}{
		{"limit 80000", "model_context_window = 200000\nmodel_auto_compact_token_limit = 80_000\n", true},
		{"no limit", "model_context_window = 200000\n", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			project := filepath.Join(w.dir, "proj")
			home := filepath.Join(w.dir, "codexhome")
			os.MkdirAll(project, 0o755)
			os.MkdirAll(home, 0o755)
			os.WriteFile(filepath.Join(home, "config.toml"), []byte(tt.config), 0o600)
			path := filepath.Join(w.dir, "rollout.jsonl")
			os.WriteFile(path, []byte(strings.Join(lines[:28], "\n")+"\n"), 0o600) // the turn that reported 61,020
			var out bytes.Buffer
			p := mustJSON(map[string]any{"session_id": "s", "transcript_path": path, "cwd": project, "hook_event_name": "PostToolUse", "tool_name": "Bash"})
			r := w.runner(bytes.NewReader(p), &out)
			r.Agent = Codex()
			r.Getenv = func(k string) string {
				if k == "CODEX_HOME" {
					return home
				}
				return ""
			}
			r.Run(context.Background(), "PostToolUse")
			text := restored(t, out.String())
			if got := strings.Contains(text, "context L1"); got != tt.want {
				t.Errorf("advisory %q, want one: %v\nlog: %s", text, tt.want, w.log())
			}
			if tt.want && !strings.Contains(out.String(), `"hookEventName":"PostToolUse"`) {
				t.Errorf("answer %q is not PostToolUse's additionalContext", out.String())
			}
		})
	}
}

// TestCodexPointerOnStartup: a Codex session's SessionEnd checkpoint is
// pointed at when the next Codex session of the project starts.
func TestCodexPointerOnStartup(t *testing.T) {
	lines := readLines(t, "testdata/codex-rollout-auto-compaction.jsonl")
	w := newWorld(t)
	project := filepath.Join(w.dir, "proj")
	os.MkdirAll(project, 0o755)
	old := filepath.Join(w.dir, "old.jsonl")
	os.WriteFile(old, []byte(strings.Join(lines[:28], "\n")+"\n"), 0o600)
	run := func(event, session, path string, extra map[string]any) string {
		p := map[string]any{"session_id": session, "transcript_path": path, "cwd": project, "hook_event_name": event}
		for k, v := range extra {
			p[k] = v
		}
		var out bytes.Buffer
		r := w.runner(bytes.NewReader(mustJSON(p)), &out)
		r.Agent = Codex()
		r.Run(context.Background(), event)
		return out.String()
	}
	run("SessionEnd", "01a20c9d-f649-7071-a73a-d6745c8c97c0", old, map[string]any{"reason": "other"})
	fresh := filepath.Join(w.dir, "new.jsonl")
	os.WriteFile(fresh, []byte(strings.Join(lines[:7], "\n")+"\n"), 0o600)
	text := restored(t, run("SessionStart", "new-thread", fresh, map[string]any{"source": "startup"}))
	if !strings.Contains(text, "Turn two, big usage") || !strings.Contains(text, "cairn resume") {
		t.Errorf("pointer:\n%s\nlog: %s", text, w.log())
	}
}
