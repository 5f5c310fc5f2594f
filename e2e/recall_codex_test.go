//go:build unix

package e2e

import (
	"context"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/e2e/codex"
	"github.com/cairn-agent/cairn/internal/checkpoint"
)

// The recall bench on Codex CLI (bench/recall-codex.sh): scripted sessions
// on the real client against the fake Responses API, facts planted before
// each compaction and counted in the first request after it, with cairn
// installed (`cairn install --agent codex --trust`) and with the client
// alone, measured as the Claude Code bench measures (recall_test.go): the
// same facts and checks (fact, lit, rx), the same token estimate, the same
// secret scan of cairn's files.
//
// What differs is the client's. Its compaction keeps the user's messages
// and replaces the rest with the summary (the fake's is deliberately
// poor, as the Claude Code bench's is), so "the client alone" keeps what
// the user typed. Its hook context reaches the model as developer
// messages, unlabelled: cairn's are told by their text (the restore's
// header, "cairn" at the start of an advisory). A manual compaction needs
// the TUI (`codex exec` sends "/compact" as text): it runs in tmux.

// cxLimit is model_auto_compact_token_limit in the bench's sessions; a
// reply reporting cxFull makes the next request compact.
const (
	cxLimit = 60000
	cxFull  = 70000
)

// cxModel is the model of the bench's sessions.
const cxModel = "gpt-5.5"

// cxTurn is one prompt and the replies the fake gives its requests, in
// order. Compact runs /compact in the TUI before the prompt, which is
// then typed there too.
type cxTurn struct {
	Compact bool
	Prompt  string
	Replies []codex.Reply
}

// cxScenario is a scripted Codex session with planted facts.
type cxScenario struct {
	Name, Shape string
	// Compactions are the scenario's compactions in order: "auto" (at a
	// turn's start, after a reply reporting cxFull), "in-turn" (after a
	// tool call's reply reporting cxFull) or "manual" (a Compact turn).
	Compactions []string
	// Files are written into the project and committed first; "#!" makes
	// them executable. Bins are stand-in executables put first on PATH.
	Files, Bins map[string]string
	// Script gives the turns for a project at dir.
	Script  func(dir string) []cxTurn
	Facts   []fact
	Secrets []secret
}

// asScenario is the scenario as the Claude Code bench's fact checks take
// it (scenario.present, scenario.checkedAt).
func (sc cxScenario) asScenario() scenario {
	return scenario{Name: sc.Name, Facts: sc.Facts, Compactions: sc.Compactions}
}

// cxPlay is one run of a scenario.
type cxPlay struct {
	sc        cxScenario
	installed bool
	fake      *codex.Fake
	s         *codex.Session
	bin       string
	turns     []cxTurn
}

func newCxPlay(t *testing.T, sc cxScenario, installed bool) *cxPlay {
	t.Helper()
	bin := codex.Require(t)
	if built.err != nil {
		t.Fatal(built.err)
	}
	fake := startFake(t)
	s := codex.NewSession(t, bin, fake.URL, cxLimit)
	// A model the client knows, so that it offers the model the tools an
	// agent uses (apply_patch, update_plan); an unknown slug gets
	// exec_command alone.
	cfgPath := filepath.Join(s.CodexDir, "config.toml")
	cfg, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	cfg = []byte(strings.Replace(string(cfg), `model = "gpt-5.1-codex"`, `model = "`+cxModel+`"`, 1) + "\n[tools.update_plan]\nenabled = true\n")
	if err := os.WriteFile(cfgPath, cfg, 0o600); err != nil {
		t.Fatal(err)
	}
	s.Env = append(s.Env, "GIT_AUTHOR_NAME=Bench User", "GIT_AUTHOR_EMAIL=user@example.invalid",
		"GIT_COMMITTER_NAME=Bench User", "GIT_COMMITTER_EMAIL=user@example.invalid")
	for name, content := range sc.Files {
		p := filepath.Join(s.Project, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		mode := os.FileMode(0o644)
		if strings.HasPrefix(content, "#!") {
			mode = 0o755
		}
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
	if len(sc.Bins) > 0 {
		s.BinDir = filepath.Join(filepath.Dir(s.Project), "bin")
		if err := os.MkdirAll(s.BinDir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, script := range sc.Bins {
			if err := os.WriteFile(filepath.Join(s.BinDir, name), []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		// Codex runs commands in a login shell, whose /etc/profile resets
		// PATH: the user's profile puts the toolchains back, as a
		// developer's does.
		profile := fmt.Sprintf("export PATH=%q:\"$PATH\"\n", s.BinDir)
		if err := os.WriteFile(filepath.Join(s.Home, ".profile"), []byte(profile), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "--allow-empty", "-m", "start"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = s.Project
		cmd.Env = s.Environ()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if installed {
		if _, err := runCairnCodex(s, "install", "--agent", "codex", "--trust"); err != nil {
			t.Fatal(err)
		}
	}
	return &cxPlay{sc: sc, installed: installed, fake: fake, s: s, bin: bin, turns: sc.Script(s.Project)}
}

// run plays every turn; each must take exactly its scripted replies.
func (p *cxPlay) run(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	for i, tn := range p.turns {
		p.fake.Queue(tn.Replies...)
		var err error
		if tn.Compact {
			err = p.compactInTUI(t, tn)
		} else {
			_, err = p.s.Turn(ctx, tn.Prompt, false)
		}
		if err != nil {
			t.Fatalf("%s, turn %d: %v\ncairn.log:\n%s", p.sc.Name, i+1, err, cairnLog(p.s))
		}
		if n := p.fake.Queued(); n != 0 {
			t.Fatalf("%s, turn %d (%q): %d scripted replies left unused; requests: %v", p.sc.Name, i+1, tn.Prompt, n, kinds(p.fake.Requests()))
		}
	}
	if l := cairnLog(p.s); l != "" {
		t.Errorf("%s: cairn.log:\n%s", p.sc.Name, l)
	}
}

// compactInTUI resumes the thread in the TUI under tmux, types /compact,
// waits for the compaction, then types the turn's prompt and waits for
// its replies, and quits.
func (p *cxPlay) compactInTUI(t *testing.T, tn cxTurn) error {
	t.Helper()
	tmux := requireTmux(t)
	argv := []string{p.bin, "--no-alt-screen", "--dangerously-bypass-approvals-and-sandbox", "--disable", "daemon_auto_start", "resume", p.s.Thread}
	pane := startTmux(t, tmux, p.s.Project, p.s.Environ(), 120, 40, nil, argv...)
	defer pane.kill(t)
	// The client may first offer a newer model, a moment after it shows
	// its composer, unless config.toml marks the offer seen (codex.Config
	// does for the models the tests use): keep the session's.
	if _, err := pane.WaitScreen(time.Minute, "the composer", func(s string) bool {
		return strings.Contains(s, "Ask Codex to do anything") || strings.Contains(s, "Use existing model")
	}); err != nil {
		return p.tuiErr(pane, err)
	}
	time.Sleep(3 * time.Second)
	if screen, _ := pane.Screen(); strings.Contains(screen, "Use existing model") {
		pane.Keys("Down")
		if _, err := pane.WaitScreen(10*time.Second, "the existing model chosen", func(s string) bool { return strings.Contains(s, "› 2. Use existing model") }); err != nil {
			return p.tuiErr(pane, err)
		}
		pane.Keys("Enter")
	}
	if _, err := pane.WaitScreen(time.Minute, "the composer", func(s string) bool {
		return strings.Contains(s, "Ask Codex to do anything") && !strings.Contains(s, "Use existing model")
	}); err != nil {
		return p.tuiErr(pane, err)
	}
	time.Sleep(time.Second)
	before := len(p.fake.Requests())
	if err := pane.Type("/compact"); err != nil {
		return err
	}
	if _, err := pane.WaitScreen(10*time.Second, "the command popup", func(s string) bool { return strings.Count(s, "/compact") >= 2 }); err != nil {
		return p.tuiErr(pane, err)
	}
	time.Sleep(500 * time.Millisecond)
	if err := pane.Keys("Enter"); err != nil {
		return err
	}
	if err := p.waitRequests(func(reqs []codex.Request) bool {
		for _, r := range reqs[before:] {
			if r.Compact {
				return true
			}
		}
		return false
	}); err != nil {
		return p.tuiErr(pane, fmt.Errorf("no compaction request after /compact: %w", err))
	}
	// The hooks after the compaction (PostCompact, SessionStart compact)
	// run before the TUI takes input again.
	if _, err := pane.WaitScreen(time.Minute, "the compaction's end", func(s string) bool {
		return strings.Contains(strings.ToLower(s), "compact") && strings.Contains(s, "›")
	}); err != nil {
		return p.tuiErr(pane, err)
	}
	time.Sleep(2 * time.Second)
	before = len(p.fake.Requests())
	if err := pane.Type(tn.Prompt); err != nil {
		return err
	}
	time.Sleep(300 * time.Millisecond)
	if err := pane.Keys("Enter"); err != nil {
		return err
	}
	if err := p.waitRequests(func(reqs []codex.Request) bool { return len(reqs)-before >= len(tn.Replies) }); err != nil {
		return p.tuiErr(pane, fmt.Errorf("the prompt after /compact: %w", err))
	}
	last := tn.Replies[len(tn.Replies)-1].Text
	if _, err := pane.WaitScreen(time.Minute, "the last reply", func(s string) bool { return strings.Contains(s, firstLine(last)) }); err != nil {
		return p.tuiErr(pane, err)
	}
	// Stop hooks and the rollout's last lines, then quit.
	time.Sleep(2 * time.Second)
	pane.Type("/quit")
	time.Sleep(300 * time.Millisecond)
	pane.Keys("Enter")
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if st, err := pane.State(); err != nil || st.Dead {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	return nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

func (p *cxPlay) tuiErr(pane *tmuxPane, err error) error {
	screen, _ := pane.History()
	return fmt.Errorf("%w\nscreen:\n%s", err, screen)
}

// waitRequests polls the fake's requests until ok accepts them.
func (p *cxPlay) waitRequests(ok func([]codex.Request) bool) error {
	deadline := time.Now().Add(45 * time.Second)
	for time.Now().Before(deadline) {
		if ok(p.fake.Requests()) {
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("not there after 45s: %v", kinds(p.fake.Requests()))
}

// cxOutcome is what the model was sent around one compaction.
type cxOutcome struct {
	N          int
	Trigger    string
	Compaction codex.Request
	First      codex.Request
	// Text is every string the model reads in First: its input items'
	// texts, tool calls' arguments and outputs (the instructions aside).
	Text string
	// Restore is cairn's restore in First and Copies how many First
	// carries; Other is the rest of cairn's hook context there.
	Restore               string
	Copies                int
	Other                 string
	Present, Contradicted map[string]bool
}

// CairnText is what cairn added to First.
func (o cxOutcome) CairnText() string { return o.Restore + o.Other }

// cxInputTexts are the strings of a request's input items: message
// texts, tool call arguments and inputs, tool outputs.
func cxInputTexts(r codex.Request) []string {
	var out []string
	items, _ := r.Body["input"].([]any)
	for _, it := range items {
		m, _ := it.(map[string]any)
		for _, k := range []string{"arguments", "input", "output"} {
			if s, ok := m[k].(string); ok {
				out = append(out, s)
			}
		}
		content, _ := m["content"].([]any)
		for _, c := range content {
			if cm, ok := c.(map[string]any); ok {
				if s, ok := cm["text"].(string); ok {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// cxCairnTexts are the developer messages of a request that cairn's
// hooks wrote: the restore, and advisories (they start "cairn").
func cxCairnTexts(r codex.Request) (restore []string, other []string) {
	for _, m := range r.Messages() {
		if m.Role != "developer" {
			continue
		}
		switch {
		case strings.Contains(m.Text, restoreHeader):
			restore = append(restore, m.Text)
		case strings.HasPrefix(strings.TrimSpace(m.Text), "cairn"):
			other = append(other, m.Text)
		}
	}
	return restore, other
}

// outcomes finds each compaction and the first turn request after it.
func (p *cxPlay) outcomes(t *testing.T) []cxOutcome {
	t.Helper()
	reqs := p.fake.Requests()
	var comps []int
	for i, r := range reqs {
		if r.Compact {
			comps = append(comps, i)
		}
	}
	if len(comps) != len(p.sc.Compactions) {
		t.Fatalf("%s: the fake saw %d compaction requests, want %d (%v): %v", p.sc.Name, len(comps), len(p.sc.Compactions), p.sc.Compactions, kinds(reqs))
	}
	sc := p.sc.asScenario()
	var out []cxOutcome
	for n, i := range comps {
		if i+1 >= len(reqs) || reqs[i+1].Compact {
			t.Fatalf("%s: no turn request after compaction %d: %v", p.sc.Name, n+1, kinds(reqs))
		}
		o := cxOutcome{N: n + 1, Trigger: p.sc.Compactions[n], Compaction: reqs[i], First: reqs[i+1]}
		o.Text = strings.Join(cxInputTexts(o.First), "\n")
		restores, other := cxCairnTexts(o.First)
		o.Copies = len(restores)
		if len(restores) > 0 {
			o.Restore = restores[0]
		}
		o.Other = strings.Join(other, "\n")
		o.Present, o.Contradicted = sc.present(o.Text, o.N)
		out = append(out, o)
	}
	return out
}

// size is the bytes of text the model reads in a request.
func (o cxOutcome) size() int { return len(o.Text) }

// leaks finds the planted secrets in cairn's files (HOME, which holds its
// XDG state and data dirs, and the project but for .git and the files the
// test or the agent wrote), in cairn's text in any request, and in the
// rest of the requests after the first compaction (the client's).
func (p *cxPlay) leaks() (leaks, error) {
	l := leaks{Cairn: map[string][]string{}, Client: map[string][]string{}}
	if len(p.sc.Secrets) == 0 {
		return l, nil
	}
	skip := map[string]bool{}
	for name := range p.sc.Files {
		skip[name] = true
	}
	for _, tn := range p.turns {
		for _, r := range tn.Replies {
			for _, line := range strings.Split(r.Patch, "\n") {
				for _, pre := range []string{"*** Add File: ", "*** Update File: ", "*** Move to: "} {
					if rest, ok := strings.CutPrefix(line, pre); ok {
						skip[filepath.ToSlash(strings.TrimSpace(rest))] = true
					}
				}
			}
		}
	}
	files, err := scanFiles(filepath.Dir(p.s.Project), []string{p.s.Home}, p.s.Project, skip, p.sc.Secrets)
	if err != nil {
		return l, err
	}
	l.Files = files
	compacted := false
	for _, r := range p.fake.Requests() {
		if r.Compact {
			compacted = true
			continue
		}
		restore, other := cxCairnTexts(r)
		cairn := strings.Join(append(restore, other...), "\n")
		rest := strings.Join(cxInputTexts(r), "\n")
		for _, sec := range p.sc.Secrets {
			where := fmt.Sprintf("#%d", r.N)
			if strings.Contains(cairn, sec.Value) {
				l.Cairn[sec.Value] = appendOnce(l.Cairn[sec.Value], where)
			}
			if compacted && strings.Count(rest, sec.Value) > strings.Count(cairn, sec.Value) {
				l.Client[sec.Value] = appendOnce(l.Client[sec.Value], where)
			}
		}
	}
	return l, nil
}

// cxRun is one run of a scenario for the report.
type cxRun struct {
	outcomes []cxOutcome
	leaks    leaks
	took     time.Duration
}

func (r cxRun) worst(sc scenario) (cxOutcome, float64) {
	var w cxOutcome
	share := 2.0
	for _, o := range r.outcomes {
		if s := ratio(count(sc, o.Present), len(o.Present)); s < share {
			w, share = o, s
		}
	}
	return w, share
}

func playCodexRecall(t *testing.T, sc cxScenario, installed bool) cxRun {
	t.Helper()
	began := time.Now()
	p := newCxPlay(t, sc, installed)
	p.run(t)
	r := cxRun{outcomes: p.outcomes(t)}
	for _, o := range r.outcomes {
		if installed && o.Copies != 1 {
			t.Errorf("%s: the first request after compaction %d carries %d restores, want 1", sc.Name, o.N, o.Copies)
		}
		if !installed && o.Copies != 0 {
			t.Errorf("%s: a restore without cairn", sc.Name)
		}
	}
	if installed {
		l, err := p.leaks()
		if err != nil {
			t.Fatal(err)
		}
		r.leaks = l
	}
	if dir := os.Getenv("CAIRN_E2E_DUMP"); dir != "" {
		dumpCodex(t, filepath.Join(dir, sc.Name+map[bool]string{true: "-with", false: "-without"}[installed]), p, r)
	}
	r.took = time.Since(began)
	return r
}

// dumpCodex writes the first request after each compaction, as text, for
// reading what reached the model.
func dumpCodex(t *testing.T, dir string, p *cxPlay, r cxRun) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Log(err)
		return
	}
	for _, o := range r.outcomes {
		var b strings.Builder
		for _, name := range slices.Sorted(maps.Keys(o.Present)) {
			fmt.Fprintf(&b, "%v\t%s\n", o.Present[name], name)
		}
		b.WriteString("\n")
		for _, m := range o.First.Messages() {
			fmt.Fprintf(&b, "---- %s\n%s\n", m.Role, m.Text)
		}
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("after-compaction-%d.txt", o.N)), []byte(b.String()), 0o644)
	}
	if reqs := p.fake.Requests(); len(reqs) > 0 {
		var names []string
		tools, _ := reqs[0].Body["tools"].([]any)
		for _, tl := range tools {
			m, _ := tl.(map[string]any)
			names = append(names, fmt.Sprintf("%v:%v", m["type"], m["name"]))
		}
		os.WriteFile(filepath.Join(dir, "tools.txt"), []byte(strings.Join(names, "\n")+"\n"), 0o644)
	}
	if path, err := p.s.Rollout(); err == nil {
		data, _ := os.ReadFile(path)
		os.WriteFile(filepath.Join(dir, "rollout.jsonl"), data, 0o644)
	}
}

// TestCodexRecallReport is the recall bench on Codex CLI
// (bench/recall-codex.sh): every scenario of codexRecallScenarios, with
// cairn installed and without, and a Markdown report written to
// $CAIRN_RECALL_CODEX_REPORT. It runs only when that is set; it fails when
// a run breaks, not when the goal is missed (the report says so).
func TestCodexRecallReport(t *testing.T) {
	out := os.Getenv("CAIRN_RECALL_CODEX_REPORT")
	if out == "" {
		t.Skip("set CAIRN_RECALL_CODEX_REPORT=FILE to run the Codex recall bench (bench/recall-codex.sh)")
	}
	scs := codexRecallScenarios()
	if only := os.Getenv("CAIRN_RECALL_CODEX_ONLY"); only != "" {
		scs = slices.DeleteFunc(scs, func(sc cxScenario) bool { return !slices.Contains(strings.Split(only, ","), sc.Name) })
	}
	start := time.Now()
	with, without := playWithAndWithout(t, scs, func(sc cxScenario) string { return sc.Name }, playCodexRecall)
	report := codexRecallMarkdown(scs, with, without, time.Since(start))
	if err := os.WriteFile(out, []byte(report), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("Codex recall report written to %s:\n%s", out, report)
}

// codexRecallMarkdown renders the report.
func codexRecallMarkdown(scs []cxScenario, with, without []cxRun, took time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# cairn recall benchmark on Codex CLI\n\n")
	if c := os.Getenv("CAIRN_RECALL_COMMIT"); c != "" {
		fmt.Fprintf(&b, "Produced by `bench/recall-codex.sh` on commit %s.\n\n", c)
	}
	fmt.Fprintf(&b, "Real Codex CLI %s (`codex exec`, and the TUI under tmux for /compact) against the scripted fake Responses API\n", codex.Version)
	fmt.Fprintf(&b, "(e2e/codex), compacting at model_auto_compact_token_limit = %d; the compaction summary is deliberately poor:\n", cxLimit)
	fmt.Fprintf(&b, "`SUMMARY-N: the user asked things.`. Codex keeps the user's messages through a compaction and replaces the rest\n")
	fmt.Fprintf(&b, "with the summary, so the client alone keeps what the user typed. Each scenario runs twice, with cairn installed\n")
	fmt.Fprintf(&b, "(`cairn install --agent codex --trust`) and without. Facts are counted as in the Claude Code bench, in the text of\n")
	fmt.Fprintf(&b, "the first request after each compaction (its input items: messages, tool calls and outputs; the instructions\n")
	fmt.Fprintf(&b, "excluded). \"cairn's text\" is the developer messages cairn's hooks added to that request (the restore, and other:\n")
	fmt.Fprintf(&b, "advisories), the largest over the scenario's compactions, ceil(bytes / 3.5) (checkpoint.Tokens). Secrets are counted\n")
	fmt.Fprintf(&b, "once each: in cairn's files (HOME, which holds its state and data dirs, and the project but for .git and the files\n")
	fmt.Fprintf(&b, "the test or the agent wrote), in cairn's text in any request, and carried by the client itself after the\n")
	fmt.Fprintf(&b, "compaction (the user's messages it keeps).\n\n")
	cases := make([]agentRecallCase, len(scs))
	for k, sc := range scs {
		cases[k] = agentRecallCase{sc.Name, sc.Shape, sc.Facts, sc.Secrets, sc.asScenario()}
	}
	writeAgentRecallTable(&b, "compaction", "Codex alone", cases, cxViews(with), cxViews(without), took)
	return b.String()
}

// cxViews are the runs as the shared table reads them.
func cxViews(runs []cxRun) []agentRun {
	out := make([]agentRun, len(runs))
	for k, r := range runs {
		out[k] = agentRun{leaks: r.leaks, took: r.took}
		for _, o := range r.outcomes {
			out[k].outcomes = append(out[k].outcomes, agentOutcome{o.N, o.Trigger, o.Restore, o.Other, o.size(), o.Present, o.Contradicted})
		}
	}
	return out
}

// TestCodexRecallChecks checks the Codex bench's reading of a request on
// a made-up one: the text the model reads (tool calls and outputs
// included, the instructions not), and which developer messages are
// cairn's.
func TestCodexRecallChecks(t *testing.T) {
	restore := restoreHeader + "\n\n## Task\n- Ticket: X-1\n\n" + restoreEnd
	advisory := "cairn · context L1: 40,040 of 50,000 tokens, 80% of the auto-compact point."
	msg := func(role, text string) map[string]any {
		return map[string]any{"type": "message", "role": role, "content": []any{map[string]any{"type": "input_text", "text": text}}}
	}
	r := codex.Request{N: 4, Body: map[string]any{
		"instructions": "You are a coding agent running in the Codex CLI.",
		"input": []any{
			msg("developer", "<permissions instructions>never</permissions instructions>"),
			msg("user", "fix INV-7"),
			map[string]any{"type": "function_call", "name": "exec_command", "arguments": `{"cmd":"go test ./..."}`, "call_id": "c1"},
			map[string]any{"type": "function_call_output", "call_id": "c1", "output": "Process exited with code 1\nOutput:\nFAIL"},
			map[string]any{"type": "custom_tool_call", "name": "apply_patch", "input": "*** Begin Patch\n*** Add File: a.go\n*** End Patch", "call_id": "c2"},
			msg("developer", restore),
			msg("developer", advisory),
		},
	}}
	text := strings.Join(cxInputTexts(r), "\n")
	for _, want := range []string{"fix INV-7", `"cmd":"go test ./..."`, "Process exited with code 1", "*** Add File: a.go", restore, advisory} {
		if !strings.Contains(text, want) {
			t.Errorf("the request's text lacks %q", want)
		}
	}
	if strings.Contains(text, "You are a coding agent") {
		t.Errorf("the request's text carries the instructions")
	}
	gotRestore, gotOther := cxCairnTexts(r)
	if !slices.Equal(gotRestore, []string{restore}) || !slices.Equal(gotOther, []string{advisory}) {
		t.Errorf("cairn's texts: restore %q, other %q; want %q, %q", gotRestore, gotOther, restore, advisory)
	}
}

// TestCodexRecallShapes runs the Codex bench's scenarios as tests, with
// cairn installed, so that a change in cairn or in the client that breaks
// them shows in CI and not only in bench/recall-codex.sh: after every
// compaction the first request carries one restore within the token
// ceiling and every fact but the known losses (the ratchet of
// TestRecallShapes: the lists may only shrink), every planted secret
// reached the client's rollout, and none reached cairn's files or text.
func TestCodexRecallShapes(t *testing.T) {
	for _, c := range []struct {
		sc        cxScenario
		knownLost []string
	}{
		{sc: cxLedgerAuto()},
		{sc: cxQuoteInTurn()},
		{sc: cxHelmManual()},
		{sc: cxCargoTwice()},
		{sc: cxNpmLongSecrets()},
	} {
		t.Run(c.sc.Name, func(t *testing.T) {
			t.Parallel()
			p := newCxPlay(t, c.sc, true)
			p.run(t)
			lost := map[string]bool{}
			for _, o := range p.outcomes(t) {
				if o.Copies != 1 {
					t.Errorf("the first request after compaction %d (#%d) carries %d restores, want 1", o.N, o.First.N, o.Copies)
				}
				if n := checkpoint.Tokens(o.CairnText()); n > maxRestoreTokens {
					t.Errorf("cairn added %d tokens to the first request after compaction %d, want at most %d", n, o.N, maxRestoreTokens)
				}
				for name, ok := range o.Present {
					if !ok {
						lost[name] = true
						t.Logf("lost after compaction %d: %s (contradicted: %v)", o.N, name, o.Contradicted[name])
					}
				}
			}
			ratchet(t, c.sc.Name, "facts lost", "knownLost", lost, c.knownLost)
			if len(c.sc.Secrets) == 0 {
				return
			}
			path, err := p.s.Rollout()
			if err != nil {
				t.Fatal(err)
			}
			rollout, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			l, err := p.leaks()
			if err != nil {
				t.Fatal(err)
			}
			for _, sec := range c.sc.Secrets {
				if !strings.Contains(string(rollout), sec.Value) {
					t.Errorf("the %s was never in the session's rollout: the bench did not plant it", sec.Family)
				}
				if fs, rs := l.Files[sec.Value], l.Cairn[sec.Value]; len(fs)+len(rs) > 0 {
					t.Errorf("the %s leaked to cairn's files %v and cairn's text in requests %v", sec.Family, fs, rs)
				}
			}
		})
	}
}
