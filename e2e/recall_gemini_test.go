//go:build unix

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/e2e/gemini"
	"github.com/cairn-agent/cairn/internal/checkpoint"
)

// The recall bench on Gemini CLI (bench/recall-gemini.sh): scripted
// sessions on the real client against the fake Gemini API, facts planted
// before each compression and counted after it, with cairn installed
// (`cairn install --agent gemini`) and with the client alone, measured as
// the Claude Code and Codex benches measure (the same fact checks, token
// estimate and secret scan).
//
// What differs is the client's. Gemini CLI compresses before a model
// request when the last reported prompt count has reached
// model.compressionThreshold: it replaces the older part of the history
// (about 70% by characters) with the summary (the fake's is deliberately
// poor) and keeps the rest. No hook runs after a compression, so cairn's
// restore comes with the next prompt (BeforeAgent, as <hook_context> in
// the prompt's text): the request counted is the first model request of
// the first prompt sent after the compression, with cairn and without.
// A manual /compress needs the TUI (`gemini -p` would send it to the
// model as text): it runs in tmux.

// gmThreshold is model.compressionThreshold in the bench's sessions
// (0.075 of 1,048,576 tokens, 78,643); a reply reporting gmFull makes the
// next request compress.
const (
	gmThreshold = 0.075
	gmFull      = 99000
)

// gmTurn is one prompt and the replies the fake gives its requests, in
// order. Compress runs /compress before the prompt (the scenario then
// runs in the TUI).
type gmTurn struct {
	Compress bool
	Prompt   string
	Replies  []gemini.Reply
}

// gmScenario is a scripted Gemini CLI session with planted facts.
type gmScenario struct {
	Name, Shape string
	// Compressions are the scenario's compressions in order: "auto" (at a
	// turn's start, after a turn's last reply reported gmFull), "in-turn"
	// (after a tool call's reply reporting gmFull) or "manual" (a
	// Compress turn).
	Compressions []string
	// Files are written into the project first. Bins are stand-in
	// executables put first on PATH.
	Files, Bins map[string]string
	// Script gives the turns for a project at dir.
	Script  func(dir string) []gmTurn
	Facts   []fact
	Secrets []secret
}

func (sc gmScenario) asScenario() scenario {
	return scenario{Name: sc.Name, Facts: sc.Facts, Compactions: sc.Compressions}
}

// gmPlay is one run of a scenario.
type gmPlay struct {
	sc        gmScenario
	installed bool
	fake      *gemini.Fake
	s         *gemini.Session
	bin       string
	turns     []gmTurn
}

func newGmPlay(t *testing.T, sc gmScenario, installed bool) *gmPlay {
	t.Helper()
	bin := gemini.Require(t)
	if built.err != nil {
		t.Fatal(built.err)
	}
	fake := startGeminiFake(t)
	s := gemini.NewSession(t, bin, fake.URL, gmThreshold)
	for name, content := range sc.Files {
		p := filepath.Join(s.Project, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if len(sc.Bins) > 0 {
		dir := filepath.Join(filepath.Dir(s.Project), "bin")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, script := range sc.Bins {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		// The last PATH of the environment wins (os/exec keeps the last).
		s.Env = append(s.Env, "PATH="+dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	if installed {
		if _, err := runCairnGemini(s, "install", "--agent", "gemini"); err != nil {
			t.Fatal(err)
		}
	}
	return &gmPlay{sc: sc, installed: installed, fake: fake, s: s, bin: bin, turns: sc.Script(s.Project)}
}

// run plays every turn; each must take exactly its scripted replies. The
// fake marks requests with the turn's number (2i+1, and 2i+2 for the
// prompt typed after a /compress). A scenario with a manual compression
// runs whole in one TUI under tmux: resumed there, Gemini CLI 0.61.0
// starts a new chat file and finds "Nothing to compress".
func (p *gmPlay) run(t *testing.T) {
	t.Helper()
	if slices.ContainsFunc(p.turns, func(tn gmTurn) bool { return tn.Compress }) {
		if err := p.runTUI(t); err != nil {
			t.Fatalf("%s: %v\ncairn.log:\n%s", p.sc.Name, err, geminiLog(p.s))
		}
	} else {
		ctx := context.Background()
		for i, tn := range p.turns {
			p.fake.SetMark(2*i + 1)
			p.fake.Queue(tn.Replies...)
			if _, err := p.s.Turn(ctx, tn.Prompt); err != nil {
				t.Fatalf("%s, turn %d: %v\ncairn.log:\n%s", p.sc.Name, i+1, err, geminiLog(p.s))
			}
			if err := p.used(i, tn); err != nil {
				t.Fatal(err)
			}
		}
	}
	if l := geminiLog(p.s); l != "" {
		t.Errorf("%s: cairn.log:\n%s", p.sc.Name, l)
	}
}

// used says whether turn i took its scripted replies, no more, no fewer.
func (p *gmPlay) used(i int, tn gmTurn) error {
	if n, x := p.fake.Queued(), p.fake.Unscripted(); n != 0 || x != 0 {
		return fmt.Errorf("%s, turn %d (%q): %d scripted replies left unused, %d requests unscripted; requests: %v", p.sc.Name, i+1, tn.Prompt, n, x, geminiKinds(p.fake.Requests()))
	}
	return nil
}

// runTUI plays the turns in the interactive client under tmux: each
// prompt typed and submitted, its last reply awaited on the screen; a
// Compress turn types /compress first and waits for it.
func (p *gmPlay) runTUI(t *testing.T) error {
	t.Helper()
	tmux := requireTmux(t)
	pane := startTmux(t, tmux, p.s.Project, p.s.Environ(), 120, 40, nil, p.bin, "-m", "gemini-2.5-pro", "-y")
	defer pane.kill(t)
	wait := func(what string, timeout time.Duration) error {
		if screen, err := pane.WaitScreen(timeout, what, func(sc string) bool { return strings.Contains(sc, what) }); err != nil {
			return fmt.Errorf("%w\nscreen:\n%s", err, screen)
		}
		return nil
	}
	// On a loaded machine the client can take the Enter for part of a
	// paste and keep the text in the box: Enter is pressed again until
	// the text shows as submitted ("> text").
	say := func(text string) error {
		if err := pane.Type(text); err != nil {
			return err
		}
		head := text[:min(len(text), 40)]
		if err := wait(head, 30*time.Second); err != nil {
			return err
		}
		for try := 0; ; try++ {
			time.Sleep(500 * time.Millisecond)
			if err := pane.Keys("Enter"); err != nil {
				return err
			}
			if _, err := pane.WaitScreen(5*time.Second, "submitted", func(sc string) bool { return strings.Contains(sc, "> "+head) }); err == nil {
				return nil
			} else if try == 3 {
				return fmt.Errorf("%q not submitted: %w", head, err)
			}
		}
	}
	if err := wait("Type your message", 90*time.Second); err != nil {
		return err
	}
	for i, tn := range p.turns {
		p.fake.SetMark(2*i + 1)
		if tn.Compress {
			if err := say("/compress"); err != nil {
				return err
			}
			if err := wait("Chat history compressed", 90*time.Second); err != nil {
				return err
			}
			p.fake.SetMark(2*i + 2)
		}
		p.fake.Queue(tn.Replies...)
		if err := say(tn.Prompt); err != nil {
			return err
		}
		last := firstLine(tn.Replies[len(tn.Replies)-1].Text)
		if err := wait(last[:min(len(last), 40)], 120*time.Second); err != nil {
			return fmt.Errorf("turn %d: %w", i+1, err)
		}
		if err := p.used(i, tn); err != nil {
			return err
		}
	}
	p.s.Turns = len(p.turns)
	return nil
}

// gmOutcome is what reached the model after one compression.
type gmOutcome struct {
	N       int
	Trigger string
	First   gemini.Request
	// Text is every string the model reads in First: its contents'
	// texts, tool calls' arguments and results (the system instruction
	// aside).
	Text string
	// Restore is cairn's restore in First and Copies how many it
	// carries; Other is the rest of cairn's hook context in its prompt.
	Restore               string
	Copies                int
	Other                 string
	Present, Contradicted map[string]bool
}

func (o gmOutcome) CairnText() string { return o.Restore + o.Other }

// gmHookContext is how Gemini CLI wraps a hook's additionalContext in the
// prompt.
var gmHookContext = regexp.MustCompile(`(?s)<hook_context>(.*?)</hook_context>`)

// gmTexts are the strings of each content of a request: text parts, tool
// calls (name and arguments) and tool results.
func gmTexts(r gemini.Request) []string {
	var out []string
	items, _ := r.Body["contents"].([]any)
	for _, it := range items {
		m, _ := it.(map[string]any)
		parts, _ := m["parts"].([]any)
		var texts []string
		for _, pt := range parts {
			pm, _ := pt.(map[string]any)
			if s, ok := pm["text"].(string); ok {
				texts = append(texts, s)
			}
			for _, k := range []string{"functionCall", "functionResponse"} {
				if v, ok := pm[k]; ok {
					b, _ := json.Marshal(v)
					texts = append(texts, string(b))
				}
			}
		}
		out = append(out, strings.Join(texts, "\n"))
	}
	return out
}

// gmCairnTexts are the hook contexts of a request's last content (the
// prompt): the restore, and the rest (cairn is the only hook).
func gmCairnTexts(r gemini.Request) (restore, other []string) {
	texts := gmTexts(r)
	if len(texts) == 0 {
		return nil, nil
	}
	for _, m := range gmHookContext.FindAllStringSubmatch(texts[len(texts)-1], -1) {
		if strings.Contains(m[1], restoreHeader) {
			restore = append(restore, m[1])
		} else {
			other = append(other, m[1])
		}
	}
	return restore, other
}

// outcomes finds each compression (one or more compress requests in a
// row) and the first model request of the first prompt sent after it.
func (p *gmPlay) outcomes(t *testing.T) []gmOutcome {
	t.Helper()
	reqs := p.fake.Requests()
	var comps []int
	for i, r := range reqs {
		if r.Kind == "compress" && (i == 0 || reqs[i-1].Kind != "compress") {
			comps = append(comps, i)
		}
	}
	if len(comps) != len(p.sc.Compressions) {
		t.Fatalf("%s: the fake saw %d compressions, want %d (%v): %v", p.sc.Name, len(comps), len(p.sc.Compressions), p.sc.Compressions, geminiKinds(reqs))
	}
	sc := p.sc.asScenario()
	var out []gmOutcome
	for n, i := range comps {
		j := slices.IndexFunc(reqs[i:], func(r gemini.Request) bool { return r.Kind == "turn" && r.Mark > reqs[i].Mark })
		if j < 0 {
			t.Fatalf("%s: no prompt after compression %d: %v", p.sc.Name, n+1, geminiKinds(reqs))
		}
		o := gmOutcome{N: n + 1, Trigger: p.sc.Compressions[n], First: reqs[i+j]}
		o.Text = strings.Join(gmTexts(o.First), "\n")
		restores, other := gmCairnTexts(o.First)
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

func (o gmOutcome) size() int { return len(o.Text) }

// leaks finds the planted secrets in cairn's files (HOME, which holds its
// XDG state and data dirs, and Gemini CLI's own; the project but for the
// files the test or the agent wrote), in cairn's hook context in any
// request, and in the rest of the requests after the first compression
// (the client's).
func (p *gmPlay) leaks() (leaks, error) {
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
			if fp, ok := r.Args["file_path"].(string); ok {
				if rel, err := filepath.Rel(p.s.Project, fp); err == nil {
					skip[filepath.ToSlash(rel)] = true
				}
			}
		}
	}
	// Gemini CLI's own chat files hold the conversation: the client's.
	files, err := scanFiles(filepath.Dir(p.s.Project), []string{filepath.Join(p.s.Home, ".local"), filepath.Join(p.s.Home, ".cache")}, p.s.Project, skip, p.sc.Secrets)
	if err != nil {
		return l, err
	}
	l.Files = files
	compressed := false
	for _, r := range p.fake.Requests() {
		if r.Kind == "compress" {
			compressed = true
			continue
		}
		if r.Kind != "turn" {
			continue
		}
		var cairn []string
		rest := strings.Join(gmTexts(r), "\n")
		for _, m := range gmHookContext.FindAllStringSubmatch(rest, -1) {
			cairn = append(cairn, m[1])
		}
		ctext := strings.Join(cairn, "\n")
		for _, sec := range p.sc.Secrets {
			where := fmt.Sprintf("#%d", r.N)
			if strings.Contains(ctext, sec.Value) {
				l.Cairn[sec.Value] = appendOnce(l.Cairn[sec.Value], where)
			}
			if compressed && strings.Count(rest, sec.Value) > strings.Count(ctext, sec.Value) {
				l.Client[sec.Value] = appendOnce(l.Client[sec.Value], where)
			}
		}
	}
	return l, nil
}

type gmRun struct {
	outcomes []gmOutcome
	leaks    leaks
	took     time.Duration
}

func (r gmRun) worst(sc scenario) (gmOutcome, float64) {
	var w gmOutcome
	share := 2.0
	for _, o := range r.outcomes {
		if s := ratio(count(sc, o.Present), len(o.Present)); s < share {
			w, share = o, s
		}
	}
	return w, share
}

func playGeminiRecall(t *testing.T, sc gmScenario, installed bool) gmRun {
	t.Helper()
	began := time.Now()
	p := newGmPlay(t, sc, installed)
	p.run(t)
	r := gmRun{outcomes: p.outcomes(t)}
	for _, o := range r.outcomes {
		if installed && o.Copies != 1 {
			t.Errorf("%s: the first request after compression %d carries %d restores, want 1", sc.Name, o.N, o.Copies)
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
		dumpGemini(filepath.Join(dir, sc.Name+map[bool]string{true: "-with", false: "-without"}[installed]), p, r)
	}
	r.took = time.Since(began)
	return r
}

// dumpGemini writes the first request after each compression, as text,
// and the chat file, for reading what reached the model.
func dumpGemini(dir string, p *gmPlay, r gmRun) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return
	}
	for _, o := range r.outcomes {
		var b strings.Builder
		for _, name := range slices.Sorted(maps.Keys(o.Present)) {
			fmt.Fprintf(&b, "%v\t%s\n", o.Present[name], name)
		}
		fmt.Fprintf(&b, "\nrequest #%d\n", o.First.N)
		for _, c := range gmTexts(o.First) {
			fmt.Fprintf(&b, "----\n%s\n", c)
		}
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("after-compression-%d.txt", o.N)), []byte(b.String()), 0o644)
	}
	os.WriteFile(filepath.Join(dir, "requests.txt"), []byte(strings.Join(geminiKinds(p.fake.Requests()), "\n")+"\n"), 0o644)
	for i, c := range p.s.Chats() {
		data, _ := os.ReadFile(c)
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("chat-%d.jsonl", i)), data, 0o644)
	}
}

// TestGeminiRecallReport is the recall bench on Gemini CLI
// (bench/recall-gemini.sh): every scenario of geminiRecallScenarios, with
// cairn installed and without, and a Markdown report written to
// $CAIRN_RECALL_GEMINI_REPORT. It runs only when that is set; it fails
// when a run breaks, not when the goal is missed (the report says so).
func TestGeminiRecallReport(t *testing.T) {
	out := os.Getenv("CAIRN_RECALL_GEMINI_REPORT")
	if out == "" {
		t.Skip("set CAIRN_RECALL_GEMINI_REPORT=FILE to run the Gemini recall bench (bench/recall-gemini.sh)")
	}
	scs := geminiRecallScenarios()
	if only := os.Getenv("CAIRN_RECALL_GEMINI_ONLY"); only != "" {
		scs = slices.DeleteFunc(scs, func(sc gmScenario) bool { return !slices.Contains(strings.Split(only, ","), sc.Name) })
	}
	start := time.Now()
	with, without := playWithAndWithout(t, scs, func(sc gmScenario) string { return sc.Name }, playGeminiRecall)
	report := geminiRecallMarkdown(scs, with, without, time.Since(start))
	if err := os.WriteFile(out, []byte(report), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("Gemini recall report written to %s:\n%s", out, report)
}

// geminiRecallMarkdown renders the report.
func geminiRecallMarkdown(scs []gmScenario, with, without []gmRun, took time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# cairn recall benchmark on Gemini CLI\n\n")
	if c := os.Getenv("CAIRN_RECALL_COMMIT"); c != "" {
		fmt.Fprintf(&b, "Produced by `bench/recall-gemini.sh` on commit %s.\n\n", c)
	}
	fmt.Fprintf(&b, "Real Gemini CLI %s (`gemini -p`, resumed turn by turn, and the TUI under tmux for /compress) against the\n", gemini.Version)
	fmt.Fprintf(&b, "scripted fake Gemini API (e2e/gemini), compressing at model.compressionThreshold = %g (a reply reporting\n", gmThreshold)
	fmt.Fprintf(&b, "%d prompt tokens makes the next request compress); the compression summary is deliberately poor:\n", gmFull)
	fmt.Fprintf(&b, "`SUMMARY-N: the user asked things.`. Gemini CLI keeps the newest part of the history (about 30%% by characters)\n")
	fmt.Fprintf(&b, "and replaces the rest with the summary. No hook runs after a compression: cairn's restore comes with the next\n")
	fmt.Fprintf(&b, "prompt (BeforeAgent), so facts are counted, with cairn and without, in the first model request of the first\n")
	fmt.Fprintf(&b, "prompt sent after each compression (its contents: texts, tool calls and results; the system instruction\n")
	fmt.Fprintf(&b, "excluded). Each scenario runs twice, with cairn installed (`cairn install --agent gemini`) and without.\n")
	fmt.Fprintf(&b, "\"cairn's text\" is the hook context cairn's BeforeAgent added to that prompt (the restore, and other: advisories),\n")
	fmt.Fprintf(&b, "the largest over the scenario's compressions, ceil(bytes / 3.5) (checkpoint.Tokens). Secrets are counted once each:\n")
	fmt.Fprintf(&b, "in cairn's files (its state and data dirs, and the project but for the files the test or the agent wrote), in\n")
	fmt.Fprintf(&b, "cairn's hook context in any request, and carried by the client itself after the compression.\n\n")
	cases := make([]agentRecallCase, len(scs))
	for k, sc := range scs {
		cases[k] = agentRecallCase{sc.Name, sc.Shape, sc.Facts, sc.Secrets, sc.asScenario()}
	}
	writeAgentRecallTable(&b, "compression", "Gemini alone", cases, gmViews(with), gmViews(without), took)
	return b.String()
}

// gmViews are the runs as the shared table reads them.
func gmViews(runs []gmRun) []agentRun {
	out := make([]agentRun, len(runs))
	for k, r := range runs {
		out[k] = agentRun{leaks: r.leaks, took: r.took}
		for _, o := range r.outcomes {
			out[k].outcomes = append(out[k].outcomes, agentOutcome{o.N, o.Trigger, o.Restore, o.Other, o.size(), o.Present, o.Contradicted})
		}
	}
	return out
}

// TestGeminiRecallShapes runs the Gemini bench's scenarios as tests, with
// cairn installed, so that a change in cairn or in the client that breaks
// them shows in CI and not only in bench/recall-gemini.sh: after every
// compression the first request of the next prompt carries one restore
// within the token ceiling and every fact but the known losses (the
// ratchet of TestRecallShapes: the lists may only shrink), every planted
// secret reached the client's chat file, and none reached cairn's files
// or text.
func TestGeminiRecallShapes(t *testing.T) {
	for _, c := range []struct {
		sc        gmScenario
		knownLost []string
	}{
		{sc: gmInvoiceInTurn()},
		{sc: gmRetryAuto()},
		{sc: gmHelmManual()},
		{sc: gmWorkerSecrets()},
	} {
		t.Run(c.sc.Name, func(t *testing.T) {
			t.Parallel()
			p := newGmPlay(t, c.sc, true)
			p.run(t)
			lost := map[string]bool{}
			for _, o := range p.outcomes(t) {
				if o.Copies != 1 {
					t.Errorf("the first request after compression %d (#%d) carries %d restores, want 1", o.N, o.First.N, o.Copies)
				}
				if n := checkpoint.Tokens(o.CairnText()); n > maxRestoreTokens {
					t.Errorf("cairn added %d tokens to the first request after compression %d, want at most %d", n, o.N, maxRestoreTokens)
				}
				for name, ok := range o.Present {
					if !ok {
						lost[name] = true
						t.Logf("lost after compression %d: %s (contradicted: %v)", o.N, name, o.Contradicted[name])
					}
				}
			}
			ratchet(t, c.sc.Name, "facts lost", "knownLost", lost, c.knownLost)
			if len(c.sc.Secrets) == 0 {
				return
			}
			var chats strings.Builder
			for _, path := range p.s.Chats() {
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				chats.Write(data)
			}
			l, err := p.leaks()
			if err != nil {
				t.Fatal(err)
			}
			for _, sec := range c.sc.Secrets {
				if !strings.Contains(chats.String(), sec.Value) {
					t.Errorf("the %s was never in the session's chat file: the bench did not plant it", sec.Family)
				}
				if fs, rs := l.Files[sec.Value], l.Cairn[sec.Value]; len(fs)+len(rs) > 0 {
					t.Errorf("the %s leaked to cairn's files %v and cairn's text in requests %v", sec.Family, fs, rs)
				}
			}
		})
	}
}

// TestGeminiRecallChecks checks the Gemini bench's reading of a request
// on a made-up one: the text the model reads (tool calls and results
// included, the system instruction not), and which hook context of the
// prompt is cairn's restore.
func TestGeminiRecallChecks(t *testing.T) {
	restore := restoreHeader + "\n\n## Task\n- Ticket: X-1\n\n" + restoreEnd
	advisory := "cairn · context L1: 80,000 of 1,048,576 tokens."
	text := func(role string, parts ...any) map[string]any { return map[string]any{"role": role, "parts": parts} }
	r := gemini.Request{N: 9, Kind: "turn", Body: map[string]any{
		"systemInstruction": map[string]any{"parts": []any{map[string]any{"text": "You are an interactive CLI agent."}}},
		"contents": []any{
			text("user", map[string]any{"text": "<hook_context>" + restoreHeader + " (old)</hook_context>fix INV-7"}),
			text("model", map[string]any{"functionCall": map[string]any{"name": "run_shell_command", "args": map[string]any{"command": "go test ./..."}}}),
			text("user", map[string]any{"functionResponse": map[string]any{"name": "run_shell_command", "response": map[string]any{"output": "Exit Code: 1"}}}),
			text("user", map[string]any{"text": "go on"}, map[string]any{"text": "<hook_context>" + restore + "</hook_context>"}, map[string]any{"text": "<hook_context>" + advisory + "</hook_context>"}),
		},
	}}
	all := strings.Join(gmTexts(r), "\n")
	for _, want := range []string{"fix INV-7", `"command":"go test ./..."`, "Exit Code: 1", restore, advisory} {
		if !strings.Contains(all, want) {
			t.Errorf("the request's text lacks %q", want)
		}
	}
	if strings.Contains(all, "interactive CLI agent") {
		t.Errorf("the request's text carries the system instruction")
	}
	gotRestore, gotOther := gmCairnTexts(r)
	if !slices.Equal(gotRestore, []string{restore}) || !slices.Equal(gotOther, []string{advisory}) {
		t.Errorf("cairn's texts in the prompt: restore %q, other %q; want %q, %q", gotRestore, gotOther, restore, advisory)
	}
}
