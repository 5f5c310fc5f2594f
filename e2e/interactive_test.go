//go:build unix

package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/e2e/claudecode"
	"github.com/cairn-agent/cairn/e2e/fakeapi"
)

// The interactive bench runs the real client in a tmux pane, as a user
// would, with cairn installed: the status line only runs there. The fake
// API reports a context that rises turn by turn through cairn's pressure
// levels, and the test reads the pane (status line, Stop suggestions) and
// the fake's requests (advisories) after every turn.

const (
	paneWidth, paneHeight = 200, 50
	// autoThreshold is the auto-compact point with autoWindow (README).
	autoThreshold = 67000
	// Bounds on the waits: the client's start, and each step of a turn.
	startTimeout = 90 * time.Second
	stepTimeout  = 60 * time.Second
)

// pressureStep is one prompt and the context the fake's reply reports.
type pressureStep struct {
	Prompt string
	// Tokens is the reply's input tokens: the context after it.
	Tokens int
	// Pct and Level are what cairn's status line shows after the reply:
	// floor(100 * Tokens / 67,000), and L1/L2/L3 from 70/85/95%.
	Pct, Level int
	// Announces is the level whose advisory this turn's request carries
	// for the first time (the level the previous reply reached), 0 none.
	Announces int
}

// pressureSteps climb through the levels: L1 at 46,900 tokens, L2 at
// 56,950, L3 at 63,650. The third turn stays at L1, so that a turn passes
// after a checkpoint with a level reached: the Stop hook suggests
// something then, even judging a turn late (see README). The last reply
// stays under the auto-compact point.
var pressureSteps = []pressureStep{
	{Prompt: "Start on the CSV export of invoices.", Tokens: 20000, Pct: 29, Level: 0},
	{Prompt: "Add the header row.", Tokens: 48000, Pct: 71, Level: 1},
	{Prompt: "Quote fields that contain commas.", Tokens: 50000, Pct: 74, Level: 1, Announces: 1},
	{Prompt: "Handle an empty invoice list.", Tokens: 58000, Pct: 86, Level: 2},
	{Prompt: "Write the tests for the export.", Tokens: 64000, Pct: 95, Level: 3, Announces: 2},
	{Prompt: "Run the tests.", Tokens: 64500, Pct: 96, Level: 3, Announces: 3},
}

func replyText(turn int) string { return fmt.Sprintf("Reply %d: noted, carrying on.", turn) }

var (
	// statusRe is cairn's status line: bar, percentage, level, and
	// optionally ticket and checkpoint age.
	statusRe = regexp.MustCompile(`(?m)^\s*CTX ([█░]{10}) (\d+)% (L[0-3])(.*)$`)
	// advisoryRe is one advisory as the model gets it (one string).
	advisoryRe = regexp.MustCompile(`cairn · context L([0-3])[^\n]*`)
	// suggestionRe is the Stop hook's systemMessage as the pane shows it
	// once whitespace is collapsed: "⎿  Stop says: cairn: context at ...".
	suggestionRe = regexp.MustCompile(`Stop says: (cairn: context at L([0-3]) \((\d+)%\), (\d+) turns? since the last checkpoint\.)`)
	unknownRe    = regexp.MustCompile(`(?m)^\s*CTX \?`)
	ckptRe       = regexp.MustCompile(`· ckpt \d+[smhd] ago`)
)

// trustProject writes what the interactive client needs to start straight
// at its prompt: onboarding done, the project's folder trusted, and the
// bench's API key approved (the client asks "Detected a custom API key in
// your environment ... Do you want to use this API key?" otherwise, and
// remembers the answer as the key's last 20 characters).
func trustProject(t *testing.T, s *claudecode.Session) {
	t.Helper()
	key := ""
	for _, kv := range s.Environ() {
		if v, ok := strings.CutPrefix(kv, "ANTHROPIC_API_KEY="); ok {
			key = strings.TrimSpace(v)
		}
	}
	if len(key) > 20 {
		key = key[len(key)-20:]
	}
	cfg := map[string]any{
		"hasCompletedOnboarding": true,
		"projects":               map[string]any{s.ProjectDir: map[string]any{"hasTrustDialogAccepted": true}},
		"customApiKeyResponses":  map[string]any{"approved": []string{key}, "rejected": []string{}},
	}
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.ConfigDir, ".claude.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// exitClient ends the client as a user would (Ctrl-C twice), so that its
// SessionEnd hooks run and finish before the test's directories go.
func exitClient(p *tmuxPane) {
	for i := 0; i < 2; i++ {
		if p.Keys("C-c") != nil {
			return
		}
		time.Sleep(300 * time.Millisecond)
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if st, err := p.State(); err != nil || st.Dead {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// interactive is one interactive session: the project, the fake, the pane.
type interactive struct {
	t    *testing.T
	s    *claudecode.Session
	fake *fakeapi.Server
	pane *tmuxPane
	// transcript is the session's transcript, known after the first turn.
	transcript string
}

// fail reports a failed wait with the screen it last saw and stops the test.
func (ib *interactive) fail(err error, screen string) {
	ib.t.Helper()
	ib.t.Fatalf("%v\nscreen:\n%s", err, screen)
}

// waitReady waits for the client's first screen: cairn's status line
// before any reply ("CTX ?") under the input prompt.
func (ib *interactive) waitReady() string {
	ib.t.Helper()
	screen, err := ib.pane.WaitScreen(startTimeout, "the client's prompt and cairn's status line", func(s string) bool {
		return strings.Contains(s, "❯") && unknownRe.MatchString(s)
	})
	if err != nil {
		ib.fail(err, screen)
	}
	return screen
}

// send types a prompt, waits until the input box shows it, and presses
// Enter. Typing and Enter are separate: keys that arrive together are
// taken for a paste, whose newline does not submit.
func (ib *interactive) send(prompt string) {
	ib.t.Helper()
	if err := ib.pane.Type(prompt); err != nil {
		ib.t.Fatal(err)
	}
	screen, err := ib.pane.WaitScreen(stepTimeout, fmt.Sprintf("the prompt %q in the input box", prompt), func(s string) bool {
		return inputLine(s) == prompt
	})
	if err != nil {
		ib.fail(err, screen)
	}
	if err := ib.pane.Keys("Enter"); err != nil {
		ib.t.Fatal(err)
	}
}

// inputLine is what the input box holds: the text after its "❯" (which
// the client follows with a no-break space) on the last such row.
func inputLine(screen string) string {
	in := ""
	for _, r := range strings.Split(screen, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(r), "❯"); ok {
			in = strings.TrimSpace(rest)
		}
	}
	return in
}

// waitFor polls cond until it holds or stepTimeout passes.
func (ib *interactive) waitFor(what string, cond func() bool) {
	ib.t.Helper()
	deadline := time.Now().Add(stepTimeout)
	for !cond() {
		if st, err := ib.pane.State(); err == nil && st.Dead {
			screen, _ := ib.pane.Screen()
			ib.fail(fmt.Errorf("waiting for %s: the client exited (status %s)", what, st.Status), screen)
		}
		if time.Now().After(deadline) {
			screen, _ := ib.pane.Screen()
			ib.fail(fmt.Errorf("waiting for %s: not after %s", what, stepTimeout), screen)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// findTranscript sets ib.transcript and the session id from the one
// transcript the client wrote for the project.
func (ib *interactive) findTranscript() bool {
	key, err := claudecode.ProjectKey(ib.s.ProjectDir)
	if err != nil {
		ib.t.Fatal(err)
	}
	found, _ := filepath.Glob(filepath.Join(ib.s.ConfigDir, "projects", key, "*.jsonl"))
	if len(found) > 1 {
		ib.t.Fatalf("the client wrote %d transcripts for one interactive session: %v", len(found), found)
	}
	if len(found) == 1 {
		ib.transcript = found[0]
		ib.s.ID = strings.TrimSuffix(filepath.Base(found[0]), ".jsonl")
	}
	return len(found) == 1
}

// stopsDone counts the Stop hook runs the transcript records. The client
// writes the transcript a little after the fact, so a count of n means
// turn n's Stop hooks are over and what they showed is on the screen.
func (ib *interactive) stopsDone() int {
	if ib.transcript == "" && !ib.findTranscript() {
		return 0
	}
	data, err := os.ReadFile(ib.transcript)
	if err != nil {
		return 0
	}
	return bytes.Count(data, []byte(`"subtype":"stop_hook_summary"`))
}

// statusLine finds cairn's status line on the screen and checks it sits
// under the input box (the prompt line, then a rule), as Claude Code lays
// out a status line.
func statusLine(screen string) (line string, m []string, err error) {
	rows := strings.Split(screen, "\n")
	prompt, status := -1, -1
	for i, r := range rows {
		if strings.HasPrefix(strings.TrimSpace(r), "❯") {
			prompt = i
		}
		if statusRe.MatchString(r) || unknownRe.MatchString(r) {
			if status >= 0 {
				return "", nil, fmt.Errorf("two status lines on the screen, rows %d and %d", status+1, i+1)
			}
			status = i
		}
	}
	switch {
	case status < 0:
		return "", nil, fmt.Errorf("no status line on the screen")
	case prompt < 0 || status <= prompt+1:
		return rows[status], nil, fmt.Errorf("the status line (row %d) is not under the input box (prompt row %d)", status+1, prompt+1)
	case strings.Trim(rows[status-1], "─ ") != "":
		return rows[status], nil, fmt.Errorf("the row above the status line is not the input box's rule: %q", rows[status-1])
	}
	return rows[status], statusRe.FindStringSubmatch(rows[status]), nil
}

// suggestions are the Stop hook's messages the pane has shown so far.
func (ib *interactive) suggestions() [][]string {
	ib.t.Helper()
	h, err := ib.pane.History()
	if err != nil {
		ib.t.Fatal(err)
	}
	return suggestionRe.FindAllStringSubmatch(strings.Join(strings.Fields(h), " "), -1)
}

// newBlock is the text of the messages a request adds after the
// conversation so far: everything after its last assistant message (the
// prompt, and the hook context the client sends as a system message
// beside it).
func newBlock(body map[string]any) string {
	msgs, _ := body["messages"].([]any)
	start := 0
	for i, m := range msgs {
		if mm, _ := m.(map[string]any); mm["role"] == "assistant" {
			start = i + 1
		}
	}
	return messagesText(map[string]any{"messages": msgs[start:]})
}

// gitState is what a snapshot must leave alone.
type gitState struct {
	Porcelain, Head, Index, Stash string
}

func readGitState(t *testing.T, s *claudecode.Session) gitState {
	t.Helper()
	var keep []string
	for _, l := range strings.Split(git(t, s, "status", "--porcelain", "--untracked-files=all"), "\n") {
		// cairn's own files (settings, commands, handoffs) are expected.
		if l != "" && !strings.Contains(l, ".claude/") {
			keep = append(keep, l)
		}
	}
	return gitState{
		Porcelain: strings.Join(keep, "\n"),
		Head:      strings.TrimSpace(git(t, s, "rev-parse", "HEAD")),
		Index:     git(t, s, "diff", "--cached", "--name-status"),
		Stash:     git(t, s, "stash", "list"),
	}
}

func wipRefs(t *testing.T, s *claudecode.Session) []string {
	t.Helper()
	return strings.Fields(git(t, s, "for-each-ref", "--format=%(refname)", "refs/cairn/wip/"))
}

func handoffFiles(s *claudecode.Session) []string {
	found, _ := filepath.Glob(filepath.Join(s.ProjectDir, ".claude", "handoffs", "*.md"))
	return found
}

// spyStop adds a Stop hook of the user's own, in .claude/settings.local.json,
// where cairn install then adds its own beside it: it appends the size of
// the transcript, as the hook finds it, to a file whose path it returns.
func spyStop(t *testing.T, s *claudecode.Session) string {
	t.Helper()
	out := filepath.Join(filepath.Dir(s.ProjectDir), "stop-sizes")
	cmd := `p=$(sed -n 's/.*"transcript_path":"\([^"]*\)".*/\1/p'); wc -c < "$p" >> '` + out + `'`
	settings := map[string]any{"hooks": map[string]any{"Stop": []any{map[string]any{"matcher": "",
		"hooks": []any{map[string]any{"type": "command", "command": cmd, "timeout": 5}}}}}}
	b, _ := json.MarshalIndent(settings, "", "  ")
	if err := os.MkdirAll(filepath.Join(s.ProjectDir, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.ProjectDir, ".claude", "settings.local.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// unwrittenAtStop returns the turns whose reply was not yet in the
// transcript when the Stop hooks started, by the sizes spyStop recorded.
func unwrittenAtStop(t *testing.T, s *claudecode.Session, spy string, reqs []fakeapi.Request) []int {
	t.Helper()
	data, err := os.ReadFile(spy)
	if err != nil {
		t.Errorf("the user's Stop hook left no record: %v", err)
		return nil
	}
	sizes := strings.Fields(string(data))
	tr, err := os.ReadFile(s.MustTranscript(t))
	if err != nil {
		t.Fatal(err)
	}
	var late []int
	for i, r := range reqs {
		if i >= len(sizes) {
			t.Errorf("the user's Stop hook ran %d times for %d turns", len(sizes), len(reqs))
			break
		}
		size, _ := strconv.Atoi(sizes[i])
		at := bytes.Index(tr, []byte(`"id":"`+r.MessageID+`"`))
		if at < 0 || at >= size {
			late = append(late, i+1)
			t.Logf("turn %d: the Stop hooks started with %d bytes of transcript; reply %s is at byte %d", i+1, size, r.MessageID, at)
		}
	}
	return late
}

// TestInteractivePressure drives the interactive client through cairn's
// pressure levels: the status line's bar and level after every turn, each
// level's advisory reaching the model once, the Stop hook's suggestion
// reaching the user and never the model, a handoff and a WIP snapshot at
// L2 that leave the user's work tree alone, and `cairn estimate` on the
// session at the end.
func TestInteractivePressure(t *testing.T) {
	t.Parallel()
	start := time.Now()
	s := newProject(t, map[string]string{"invoice.go": "package invoice\n"})
	tmux := requireTmux(t)
	spy := spyStop(t, s)
	installCairn(t, s)

	// The user's uncommitted work: a tracked file changed, one staged, one
	// untracked. The snapshot must record it and leave it as it is.
	const readme = "# bench project\n\nCSV export: in progress.\n"
	for name, content := range map[string]string{"README.md": readme, "staged.go": "package invoice // staged\n", "notes.txt": "export: quote fields\n"} {
		if err := os.WriteFile(filepath.Join(s.ProjectDir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git(t, s, "add", "staged.go")
	before := readGitState(t, s)

	fake := fakeapi.New(fakeapi.Options{})
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("requests the fake API received:\n%s", fake.Summary())
			for i, r := range fake.OfKind(fakeapi.Main) {
				t.Logf("request %d (#%d) adds:\n%s", i+1, r.Seq, newBlock(r.Body))
			}
		}
		dumpRequests(t, "interactive", fake)
		fake.Close()
	})
	s.BaseURL = fake.URL
	s.Env = append(s.Env, autoWindow)
	trustProject(t, s)

	pane := startTmux(t, tmux, s.ProjectDir, s.Environ(), paneWidth, paneHeight, exitClient, s.Bin)
	t.Cleanup(func() {
		if t.Failed() {
			h, err := pane.History()
			t.Logf("the pane (%dx%d), history and screen (err %v):\n%s", paneWidth, paneHeight, err, h)
		}
	})
	ib := &interactive{t: t, s: s, fake: fake, pane: pane}
	first := ib.waitReady()
	if _, _, err := statusLine(first); err != nil {
		t.Errorf("before the first reply: %v\n%s", err, first)
	}
	t.Logf("client ready after %s", time.Since(start).Round(time.Millisecond))

	// shown[i] are the Stop suggestions turn i+1 added to the pane.
	shown := make([][][]string, len(pressureSteps))
	seen := 0
	for i, st := range pressureSteps {
		n := i + 1
		turnStart := time.Now()
		fake.Enqueue(fakeapi.Reply{Text: replyText(n), Usage: fakeapi.Usage{InputTokens: st.Tokens, OutputTokens: 50}})
		ib.send(st.Prompt)
		ib.waitFor(fmt.Sprintf("turn %d's request", n), func() bool { return len(fake.OfKind(fakeapi.Main)) >= n })
		ib.waitFor(fmt.Sprintf("turn %d's Stop hooks in the transcript", n), func() bool { return ib.stopsDone() >= n })
		want := fmt.Sprintf("%d%% L%d", st.Pct, st.Level)
		screen, err := pane.WaitScreen(stepTimeout, fmt.Sprintf("turn %d: the status line at %s", n, want), func(sc string) bool {
			_, m, err := statusLine(sc)
			return err == nil && m != nil && m[2]+"% "+m[3] == want && strings.Contains(sc, replyText(n))
		})
		if err != nil {
			ib.fail(err, screen)
		}
		line, m, _ := statusLine(screen)
		t.Logf("turn %d (%s): %d tokens, status line %q", n, time.Since(turnStart).Round(time.Millisecond), st.Tokens, strings.TrimSpace(line))
		if fill := strings.Count(m[1], "█"); fill != st.Pct/10 {
			t.Errorf("turn %d: the bar has %d full cells of 10 at %d%%", n, fill, st.Pct)
		}
		// The first checkpoint is taken when the L1 advisory is given.
		if hasCkpt := ckptRe.MatchString(m[4]); hasCkpt != (n >= 3) {
			t.Errorf("turn %d: status line %q: checkpoint age shown %v, want %v", n, line, hasCkpt, n >= 3)
		}
		all := ib.suggestions()
		shown[i] = all[min(seen, len(all)):]
		seen = len(all)
		for _, sg := range shown[i] {
			t.Logf("turn %d: the pane shows the Stop hook's suggestion %q", n, sg[1])
		}

		// Handoffs and snapshots come with the L2 advisory (turn 5) and
		// again with L3's (turn 6), not before.
		wantSaved := max(0, n-4)
		if h, r := handoffFiles(s), wipRefs(t, s); len(h) != wantSaved || len(r) != wantSaved {
			t.Errorf("after turn %d: %d handoff documents %v and %d WIP snapshots %v, want %d of each", n, len(h), h, len(r), r, wantSaved)
		}
	}

	reqs := fake.OfKind(fakeapi.Main)
	if len(reqs) != len(pressureSteps) || len(fake.Requests()) != len(reqs) {
		t.Errorf("the fake got %d requests, %d of them conversation turns; want %d turns and nothing else", len(fake.Requests()), len(reqs), len(pressureSteps))
	}
	if un := fake.Unscripted(); len(un) > 0 || fake.Pending() > 0 {
		t.Errorf("%d requests found the script empty, %d replies were never asked for", len(un), fake.Pending())
	}
	if len(reqs) < len(pressureSteps) {
		t.FailNow()
	}

	// Advisories: each level's reaches the model once, in the request of
	// the turn after the reply that crossed it, and stays in the
	// conversation after that as one copy (the client resends hook context
	// with the history) without a second, different one.
	distinct := map[string]map[string]bool{}
	announcedAt := map[string]int{}
	for i, r := range reqs {
		n := i + 1
		perLevel := map[string]int{}
		for _, m := range advisoryRe.FindAllStringSubmatch(messagesText(r.Body), -1) {
			perLevel[m[1]]++
			if distinct[m[1]] == nil {
				distinct[m[1]] = map[string]bool{}
			}
			distinct[m[1]][m[0]] = true
		}
		var fresh []string
		for _, m := range advisoryRe.FindAllStringSubmatch(newBlock(r.Body), -1) {
			fresh = append(fresh, m[1])
			announcedAt[m[1]] = n
		}
		wantFresh := []string{}
		if a := pressureSteps[i].Announces; a > 0 {
			wantFresh = append(wantFresh, strconv.Itoa(a))
		}
		if !slices.Equal(fresh, wantFresh) {
			t.Errorf("request %d adds advisories for levels %v, want %v:\n%s", n, fresh, wantFresh, newBlock(r.Body))
		}
		for lvl := 1; lvl <= 3; lvl++ {
			want := 0
			for j := 0; j <= i; j++ {
				if pressureSteps[j].Announces == lvl {
					want = 1
				}
			}
			if got := perLevel[strconv.Itoa(lvl)]; got != want {
				t.Errorf("request %d carries %d L%d advisories, want %d", n, got, lvl, want)
			}
		}
	}
	for lvl := 1; lvl <= 3; lvl++ {
		texts := distinct[strconv.Itoa(lvl)]
		if len(texts) != 1 {
			t.Errorf("the model was given %d different L%d advisories, want 1: %v", len(texts), lvl, slices.Sorted(maps.Keys(texts)))
			continue
		}
		for text := range texts {
			t.Logf("L%d advisory, first in request %d: %s", lvl, announcedAt[strconv.Itoa(lvl)], text)
			if lvl >= 2 && (!strings.Contains(text, "handoff .claude/handoffs/") || !strings.Contains(text, "refs/cairn/wip/")) {
				t.Errorf("the L%d advisory does not say where the handoff and the snapshot are: %s", lvl, text)
			}
		}
	}

	// The Stop hook's suggestion: shown to the user, never sent to the
	// model, and only about a level the context had reached.
	var suggested []string
	firstAt := 0
	for i, sgs := range shown {
		for _, sg := range sgs {
			suggested = append(suggested, sg[1])
			if firstAt == 0 {
				firstAt = i + 1
			}
			lvl, _ := strconv.Atoi(sg[2])
			if lvl < 1 || lvl > pressureSteps[i].Level {
				t.Errorf("turn %d: the Stop hook suggests about L%d with the context at L%d: %s", i+1, lvl, pressureSteps[i].Level, sg[1])
			}
		}
	}
	if len(suggested) == 0 {
		t.Errorf("no Stop hook suggestion (systemMessage) was shown in the pane in %d turns", len(pressureSteps))
	}
	for _, r := range fake.Requests() {
		raw, _ := json.Marshal(r.Body)
		for _, bad := range append([]string{"since the last checkpoint", "Stop says"}, suggested...) {
			if bytes.Contains(raw, []byte(bad)) {
				t.Errorf("request #%d carries the Stop hook's suggestion to the user (%q)", r.Seq, bad)
			}
		}
	}
	// The first reply at a level (turn 2, L1, no checkpoint yet) is when
	// a suggestion is first due. The Stop hooks run before the client
	// writes the turn's reply to the transcript (the user's own Stop hook,
	// spyStop, shows it): cairn waits for the reply the payload names.
	late := unwrittenAtStop(t, s, spy, reqs)
	if firstAt != 2 {
		t.Errorf("the first Stop suggestion came after turn %d, not after turn 2 where L1 was first reached; turns whose reply was not yet in the transcript when the Stop hooks started: %v", firstAt, late)
	}

	// The snapshots recorded the user's work and moved nothing.
	after := readGitState(t, s)
	if after != before {
		t.Errorf("the work tree, index, HEAD or stash changed (cairn's .claude/ files aside):\nbefore %+v\nafter  %+v", before, after)
	}
	if refs := wipRefs(t, s); len(refs) > 0 {
		if got := git(t, s, "show", refs[0]+":README.md"); got != readme {
			t.Errorf("snapshot %s has README.md %q, want the user's uncommitted %q", refs[0], got, readme)
		}
		git(t, s, "cat-file", "-e", refs[0]+":notes.txt")
		git(t, s, "cat-file", "-e", refs[0]+":staged.go")
	}

	// The status line leaves the session's pressure for other tools.
	if data, err := os.ReadFile(filepath.Join(stateDir(s), "sessions", s.ID+".pressure")); err != nil {
		t.Errorf("no pressure marker from the status line: %v", err)
	} else if last := pressureSteps[len(pressureSteps)-1]; !strings.HasPrefix(string(data), fmt.Sprintf("%d L%d ", last.Pct, last.Level)) {
		t.Errorf("pressure marker %q, want %d L%d", data, last.Pct, last.Level)
	}

	checkEstimate(t, s, pressureSteps[len(pressureSteps)-1].Tokens)
	// What cairn install tells users rests on this: at the first prompt
	// of an interactive session in a project with a settings.local.json
	// (cairn's, here) the client adds it to the user's global git
	// excludes; headless runs do not (TestInstallUninstall).
	if ig, err := os.ReadFile(filepath.Join(s.HomeDir, ".config", "git", "ignore")); err != nil || !strings.Contains(string(ig), "**/.claude/settings.local.json\n") {
		t.Errorf("the client did not add settings.local.json to the global git excludes: %q, %v", ig, err)
	}
	t.Logf("interactive session of %d turns done in %s", len(pressureSteps), time.Since(start).Round(time.Millisecond))
}

// checkEstimate runs `cairn estimate internal/estimate/testdata/sample-spec.md
// --json` in the project, as the user would with the client's
// CLAUDE_CODE_AUTO_COMPACT_WINDOW in their shell: with the context at
// tokens of 67,000, the spec (about 60,000 tokens of work) does not fit and
// must be sharded first.
func checkEstimate(t *testing.T, s *claudecode.Session, tokens int) {
	t.Helper()
	const spec = "internal/estimate/testdata/sample-spec.md"
	data, err := os.ReadFile(filepath.Join("..", spec))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(s.ProjectDir, filepath.Dir(spec)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(s.ProjectDir, spec), data, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runCairnWith(s, []string{autoWindow}, "estimate", spec, "--json")
	if err != nil {
		t.Error(err)
		return
	}
	var v struct {
		SessionID string `json:"session_id"`
		Fresh     bool   `json:"fresh_session_assumed"`
		Context   struct {
			Tokens    int `json:"tokens"`
			Threshold int `json:"threshold"`
		} `json:"context"`
		Advice struct {
			Tokens    int    `json:"tokens"`
			Remaining int    `json:"remaining"`
			Action    string `json:"action"`
			Fits      bool   `json:"fits"`
			Split     *struct {
				Shards []json.RawMessage `json:"shards"`
			} `json:"split"`
		} `json:"advice"`
	}
	if !decodeCairn(t, out, []string{"session_id", "context", "advice", "advice.action", "advice.remaining", "advice.tokens"}, &v) {
		return
	}
	a := v.Advice
	t.Logf("cairn estimate: %d tokens of work, %d remaining: %s", a.Tokens, a.Remaining, a.Action)
	if v.SessionID != s.ID || v.Fresh || v.Context.Tokens != tokens || v.Context.Threshold != autoThreshold {
		t.Errorf("cairn estimate read session %q (fresh %v) at %d of %d tokens, want %s at %d of %d", v.SessionID, v.Fresh, v.Context.Tokens, v.Context.Threshold, s.ID, tokens, autoThreshold)
	}
	if a.Remaining != autoThreshold-tokens || a.Tokens <= a.Remaining || a.Fits || a.Action != "shard_first" || a.Split == nil || len(a.Split.Shards) < 2 {
		t.Errorf("cairn estimate advises %+v (remaining %d), want shard_first with a split: the spec does not fit in what is left\n%s", a, a.Remaining, out)
	}
}
