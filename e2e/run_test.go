//go:build linux

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/e2e/claudecode"
	"github.com/cairn-agent/cairn/e2e/fakeapi"
)

// reloadMark is the first line of the working state cairn's SessionStart
// hook gives a session cairn run restarted.
const reloadMark = "restarted (cairn run)"

// TestRunSupervisor runs the real client under `cairn run --watch` in tmux:
// a turn; /reload, which must restart it into the same session with its
// working state injected once; a turn with no restart (nothing injected
// again); a change to .claude/settings.json, picked up by a restart (the
// next request asks for the model the settings name); Ctrl+C then r; and
// the client's own exit, after which the terminal must be as it was.
func TestRunSupervisor(t *testing.T) {
	t.Parallel()
	s, tmux, fake := runProject(t)

	home := filepath.Dir(s.ProjectDir)
	before, after := filepath.Join(home, "stty-before.txt"), filepath.Join(home, "stty-after.txt")
	script := fmt.Sprintf("stty -a > %s; %s run --watch -- %s; echo \"exit $?\" > %s; stty -a >> %s; echo RUN-DONE; sleep 60",
		before, built.bin, s.Bin, after, after)
	pane := startTmux(t, tmux, s.ProjectDir, s.Environ(), paneWidth, paneHeight, exitClient, "sh", "-c", script)
	t.Cleanup(func() {
		if t.Failed() {
			h, err := pane.History()
			t.Logf("the pane, history and screen (err %v):\n%s", err, h)
		}
	})
	ib := &interactive{t: t, s: s, fake: fake, pane: pane}
	ib.waitReady()

	turn := func(n int, prompt string) fakeapi.Request {
		t.Helper()
		fake.Enqueue(fakeapi.Reply{Text: replyText(n), Usage: fakeapi.Usage{InputTokens: 20000 + 1000*n, OutputTokens: 50}})
		ib.send(prompt)
		ib.waitFor(fmt.Sprintf("turn %d's request", n), func() bool { return len(fake.OfKind(fakeapi.Main)) >= n })
		screen, err := pane.WaitScreen(stepTimeout, fmt.Sprintf("turn %d's reply", n), func(sc string) bool {
			return strings.Contains(sc, replyText(n))
		})
		if err != nil {
			ib.fail(err, screen)
		}
		return fake.OfKind(fakeapi.Main)[n-1]
	}
	// The client is cairn run's child; a restart is a new one, resuming
	// the session. (The resumed client clears the screen and its
	// scrollback, cairn's notice with them, so the process tells.)
	st, err := pane.State()
	if err != nil {
		t.Fatal(err)
	}
	client := func() (pid int, args string) { return supervisedClient(st.PID, s.Bin) }
	last, _ := client()
	if last == 0 {
		t.Fatal("no client under cairn run")
	}
	restarted := func(why string) {
		t.Helper()
		began := time.Now()
		deadline := time.Now().Add(startTimeout)
		for {
			pid, args := client()
			if pid != 0 && pid != last {
				if !strings.Contains(args, "--resume "+s.ID) {
					t.Fatalf("after %s the client runs as %q; want it resuming %s", why, args, s.ID)
				}
				last = pid
				break
			}
			if time.Now().After(deadline) {
				screen, _ := pane.Screen()
				ib.fail(fmt.Errorf("%s: no restart after %s", why, startTimeout), screen)
			}
			time.Sleep(100 * time.Millisecond)
		}
		screen, err := pane.WaitScreen(startTimeout, "the restarted client's prompt", func(sc string) bool {
			return strings.Contains(sc, "❯") && strings.Contains(sc, "CTX ")
		})
		if err != nil {
			ib.fail(err, screen)
		}
		t.Logf("restarted (%s): the client's prompt back after %s", why, time.Since(began).Round(time.Millisecond))
	}

	r1 := turn(1, "Fix BILL-482 in the invoice export. Never push to main.")
	if !ib.findTranscript() {
		t.Fatal("no transcript after the first turn")
	}
	if n := occurrences(r1, reloadMark); n != 0 {
		t.Errorf("the first request carries %d reload restores", n)
	}

	// /reload: the slash command signals the supervisor and never gets to
	// the model.
	ib.send("/reload")
	restarted("/reload")
	r2 := turn(2, "Where were we?")
	if n := occurrences(r2, reloadMark); n != 1 {
		t.Errorf("the first request after /reload carries %d reload restores, want 1:\n%s", n, newBlock(r2.Body))
	}
	for _, want := range []string{"BILL-482", "Never push to main", replyText(1)} {
		if occurrences(r2, want) == 0 {
			t.Errorf("the first request after /reload lacks %q (the resumed session and its state)", want)
		}
	}
	if len(fake.OfKind(fakeapi.Main)) != 2 {
		t.Errorf("the fake got %d conversation requests by turn 2; /reload must not reach the model", len(fake.OfKind(fakeapi.Main)))
	}
	r3 := turn(3, "Carry on.")
	if n := occurrences(r3, reloadMark); n != 1 {
		t.Errorf("the next request carries %d reload restores, want the one in its history", n)
	}

	// A settings change: --watch restarts the client, which reads it: a
	// UserPromptSubmit hook the settings add speaks in the next request.
	const mark = "SETTINGS-MARK-7"
	hook := `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo ` + mark + `"}]}]}}` + "\n"
	if err := os.WriteFile(filepath.Join(s.ProjectDir, ".claude", "settings.json"), []byte(hook), 0o644); err != nil {
		t.Fatal(err)
	}
	restarted("configuration changed")
	r4 := turn(4, "Anything new?")
	if occurrences(r3, mark) != 0 || occurrences(r4, mark) == 0 {
		t.Errorf("the new settings' hook: %d times in the request before the change, %d after; want 0 and some", occurrences(r3, mark), occurrences(r4, mark))
	}
	if n := occurrences(r4, reloadMark); n != 2 {
		t.Errorf("the request after the second restart carries %d reload restores, want 2 (one new)", n)
	}

	// Ctrl+C then r.
	if err := pane.Keys("C-c"); err != nil {
		t.Fatal(err)
	}
	if err := pane.Type("r"); err != nil {
		t.Fatal(err)
	}
	restarted("Ctrl+C r")

	// The client's own exit ends cairn run, and the terminal is as it was.
	exitClient(pane)
	screen, err := pane.WaitScreen(stepTimeout, "cairn run's end", func(sc string) bool { return strings.Contains(sc, "RUN-DONE") })
	if err != nil {
		ib.fail(err, screen)
	}
	sameTerminal(t, before, after, "exit 0")
	if n := fake.Pending(); n != 0 {
		t.Errorf("%d scripted replies unused", n)
	}
}

// count is how many times text occurs in the request's body.
func occurrences(r fakeapi.Request, text string) int {
	b, _ := json.Marshal(r.Body)
	var s string
	// The body's JSON escapes quotes and such; the texts counted have none.
	s = string(b)
	return strings.Count(s, text)
}

// children are the pids of pid's child processes. Each thread lists the
// ones it started, and a Go program starts them from any of its threads.
func children(pid int) []int {
	files, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	var out []int
	for _, file := range files {
		data, _ := os.ReadFile(file)
		for _, f := range strings.Fields(string(data)) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

// TestRunFreshAt runs the real client under `cairn run --fresh-at L2`: a
// turn that takes the context to 86% (L2 with a 100,000-token
// auto-compact window) must end the session with a checkpoint and a
// handoff, and the client must start a new session whose first request
// is primed with the handoff; the old session is not resumed.
func TestRunFreshAt(t *testing.T) {
	t.Parallel()
	s, tmux, fake := runProject(t, autoWindow)
	home := filepath.Dir(s.ProjectDir)
	before, after := filepath.Join(home, "stty-before.txt"), filepath.Join(home, "stty-after.txt")
	script := fmt.Sprintf("stty -a > %s; %s run --fresh-at L2 -- %s; echo \"exit $?\" > %s; stty -a >> %s; echo RUN-DONE; sleep 60",
		before, built.bin, s.Bin, after, after)
	pane := startTmux(t, tmux, s.ProjectDir, s.Environ(), paneWidth, paneHeight, exitClient, "sh", "-c", script)
	t.Cleanup(func() {
		if t.Failed() {
			h, err := pane.History()
			t.Logf("the pane, history and screen (err %v):\n%s", err, h)
		}
	})
	ib := &interactive{t: t, s: s, fake: fake, pane: pane}
	ib.waitReady()

	fake.Enqueue(fakeapi.Reply{Text: replyText(1), Usage: fakeapi.Usage{InputTokens: 58000, OutputTokens: 50}})
	ib.send("Fix BILL-482 in the invoice export. Never push to main.")
	ib.waitFor("turn 1's request", func() bool { return len(fake.OfKind(fakeapi.Main)) >= 1 })
	if !ib.findTranscript() {
		ib.waitFor("the first transcript", ib.findTranscript)
	}
	first := s.ID
	// The fresh session's first turn: the priming prompt.
	fake.Enqueue(fakeapi.Reply{Text: "Read the handoff; carrying on.", Usage: fakeapi.Usage{InputTokens: 9000, OutputTokens: 50}})
	ib.waitFor("the fresh session's first request", func() bool { return len(fake.OfKind(fakeapi.Main)) >= 2 })
	r2 := fake.OfKind(fakeapi.Main)[1]
	for _, want := range []string{"reached L2 and was ended with a checkpoint", ".claude/handoffs/", first} {
		if occurrences(r2, want) == 0 {
			t.Errorf("the fresh session's first request lacks %q:\n%s", want, newBlock(r2.Body))
		}
	}
	if occurrences(r2, replyText(1)) != 0 {
		t.Errorf("the fresh session's first request carries the old conversation: it was resumed")
	}
	handoffs := handoffFiles(s)
	if len(handoffs) == 0 {
		t.Fatal("no handoff written at L2")
	}
	data, err := os.ReadFile(handoffs[len(handoffs)-1])
	if err != nil || !strings.Contains(string(data), "BILL-482") {
		t.Errorf("the handoff lacks the task (%v):\n%s", err, data)
	}
	if n := fake.Pending(); n != 0 {
		t.Errorf("%d scripted replies unused", n)
	}

	// cairn run killed (SIGTERM): the client ends, and the terminal is
	// as it was.
	st, err := pane.State()
	if err != nil {
		t.Fatal(err)
	}
	sups := children(st.PID)
	if len(sups) != 1 {
		t.Fatalf("the pane's shell has %d children, want cairn run alone", len(sups))
	}
	if err := syscall.Kill(sups[0], syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	screen, err := pane.WaitScreen(stepTimeout, "cairn run's end", func(sc string) bool { return strings.Contains(sc, "RUN-DONE") })
	if err != nil {
		ib.fail(err, screen)
	}
	// The client ends on the SIGTERM cairn passes on, with 128+15, and
	// cairn run exits with its status.
	sameTerminal(t, before, after, "exit 143")
}

// sameTerminal checks the terminal settings after cairn run are those
// before it, and how cairn run ended.
func sameTerminal(t *testing.T, before, after, exit string) {
	t.Helper()
	b, _ := os.ReadFile(before)
	a, _ := os.ReadFile(after)
	got, stty, _ := strings.Cut(string(a), "\n")
	if got != exit {
		t.Errorf("cairn run ended with %q, want %q", got, exit)
	}
	if len(b) == 0 || stty != string(b) {
		t.Errorf("stty -a after cairn run differs from before:\nbefore:\n%s\nafter:\n%s", b, stty)
	}
}

// TestRunPinnedSession runs `cairn run -- claude PROMPT` under tmux with
// the real client, in a project where another session runs too. The
// client is started pinned to a session (--session-id, a UUID cairn
// made); the prompt on the command line is sent once; a headless session
// in the same project then writes a newer transcript; /reload must resume
// the pinned session, not the newest one, and must not send the prompt
// again.
func TestRunPinnedSession(t *testing.T) {
	t.Parallel()
	s, tmux, fake := runProject(t)

	const prompt = "Fix BILL-482 in the invoice export. Never push to main."
	fake.Enqueue(fakeapi.Reply{Text: replyText(1), Usage: fakeapi.Usage{InputTokens: 21000, OutputTokens: 50}})
	script := fmt.Sprintf("%s run -- %s '%s'; echo RUN-DONE; sleep 60", built.bin, s.Bin, prompt)
	pane := startTmux(t, tmux, s.ProjectDir, s.Environ(), paneWidth, paneHeight, exitClient, "sh", "-c", script)
	t.Cleanup(func() {
		if t.Failed() {
			h, err := pane.History()
			t.Logf("the pane, history and screen (err %v):\n%s", err, h)
		}
	})
	ib := &interactive{t: t, s: s, fake: fake, pane: pane}
	ib.waitFor("the command line's prompt's request", func() bool { return len(fake.OfKind(fakeapi.Main)) >= 1 })
	if got := fakeapi.LastUserText(fake.OfKind(fakeapi.Main)[0].Body); !strings.Contains(got, prompt) {
		t.Fatalf("the first request's prompt is %q, want the command line's", got)
	}
	if screen, err := pane.WaitScreen(stepTimeout, "turn 1's reply", func(sc string) bool { return strings.Contains(sc, replyText(1)) }); err != nil {
		ib.fail(err, screen)
	}

	st, err := pane.State()
	if err != nil {
		t.Fatal(err)
	}
	client := func() (pid int, args string) { return supervisedClient(st.PID, s.Bin) }
	first, args := client()
	_, pinned, ok := strings.Cut(args, "--session-id ")
	pinned, _, _ = strings.Cut(pinned, " ")
	if first == 0 || !ok || len(pinned) != 36 {
		t.Fatalf("the client runs as %q; want it pinned with --session-id UUID", args)
	}
	key, err := claudecode.ProjectKey(s.ProjectDir)
	if err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(s.ConfigDir, "projects", key)
	ib.waitFor("the pinned session's transcript", func() bool {
		_, err := os.Stat(filepath.Join(folder, pinned+".jsonl"))
		return err == nil
	})

	// Another session in the same project, later: its transcript is the
	// newest.
	fake.Enqueue(fakeapi.Reply{Text: "The CSV writer looks fine.", Usage: fakeapi.Usage{InputTokens: 9000, OutputTokens: 40}})
	other := exec.Command(s.Bin, "-p", "Review the CSV writer.")
	other.Dir, other.Env = s.ProjectDir, s.Environ()
	if out, err := other.CombinedOutput(); err != nil {
		t.Fatalf("the other session: %v\n%s", err, out)
	}
	found, _ := filepath.Glob(filepath.Join(folder, "*.jsonl"))
	newest, newestAt := "", time.Time{}
	for _, f := range found {
		if fi, err := os.Stat(f); err == nil && fi.ModTime().After(newestAt) {
			newest, newestAt = strings.TrimSuffix(filepath.Base(f), ".jsonl"), fi.ModTime()
		}
	}
	if len(found) != 2 || newest == pinned {
		t.Fatalf("transcripts %v, newest %s: want two, the other session's newest", found, newest)
	}
	before := len(fake.OfKind(fakeapi.Main))

	ib.send("/reload")
	deadline := time.Now().Add(startTimeout)
	for {
		pid, args := client()
		if pid != 0 && pid != first {
			if !strings.Contains(args, "--resume "+pinned) || strings.Contains(args, "BILL-482") {
				t.Fatalf("after /reload the client runs as %q; want it resuming %s (not %s, the newest), without the prompt", args, pinned, newest)
			}
			break
		}
		if time.Now().After(deadline) {
			screen, _ := pane.Screen()
			ib.fail(fmt.Errorf("no restart after %s", startTimeout), screen)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if screen, err := pane.WaitScreen(startTimeout, "the restarted client's prompt", func(sc string) bool {
		return strings.Contains(sc, "❯") && strings.Contains(sc, "CTX ")
	}); err != nil {
		ib.fail(err, screen)
	}
	fake.Enqueue(fakeapi.Reply{Text: replyText(2), Usage: fakeapi.Usage{InputTokens: 22000, OutputTokens: 50}})
	ib.send("Where were we?")
	ib.waitFor("turn 2's request", func() bool { return len(fake.OfKind(fakeapi.Main)) > before })
	if screen, err := pane.WaitScreen(stepTimeout, "turn 2's reply", func(sc string) bool { return strings.Contains(sc, replyText(2)) }); err != nil {
		ib.fail(err, screen)
	}
	after := fake.OfKind(fakeapi.Main)[before:]
	if len(after) != 1 || fakeapi.LastUserText(after[0].Body) != "Where were we?" {
		var lasts []string
		for _, r := range after {
			lasts = append(lasts, fakeapi.LastUserText(r.Body))
		}
		t.Fatalf("after /reload the client sent %d requests, with the prompts %q; want the one typed (the command line's prompt not sent again)", len(after), lasts)
	}
	r2 := after[0]
	if occurrences(r2, replyText(1)) == 0 || occurrences(r2, "The CSV writer looks fine.") != 0 {
		t.Errorf("the resumed conversation is not the pinned session's: turn 1's reply %d times, the other session's %d",
			occurrences(r2, replyText(1)), occurrences(r2, "The CSV writer looks fine."))
	}
	// The first Ctrl+C may only end the turn, still finishing after its
	// reply is shown: then the client takes two more.
	done := func(sc string) bool { return strings.Contains(sc, "RUN-DONE") }
	exitClient(pane)
	if _, err := pane.WaitScreen(5*time.Second, "cairn run's end", done); err != nil {
		exitClient(pane)
	}
	if screen, err := pane.WaitScreen(stepTimeout, "cairn run's end", done); err != nil {
		ib.fail(err, screen)
	}
	if n := fake.Pending(); n != 0 {
		t.Errorf("%d scripted replies unused", n)
	}
}

// supervisedClient is the client cairn run started under the pane's shell
// (pid shell): its pid and command line, 0 and "" when there is none.
func supervisedClient(shell int, bin string) (pid int, args string) {
	for _, sup := range children(shell) {
		for _, c := range children(sup) {
			cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", c))
			if args := strings.ReplaceAll(string(cmdline), "\x00", " "); strings.HasPrefix(args, bin) {
				return c, args
			}
		}
	}
	return 0, ""
}

// runProject is a trusted project with cairn installed for a test of cairn
// run under tmux: the /reload command runs cairn from PATH, as a user has
// it, and the client talks to a fake API; env is added to the client's.
func runProject(t *testing.T, env ...string) (*claudecode.Session, string, *fakeapi.Server) {
	t.Helper()
	s := newProject(t, map[string]string{"invoice.go": "package invoice\n"})
	tmux := requireTmux(t)
	installCairn(t, s)
	s.Env = append(s.Env, "PATH="+filepath.Dir(built.bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	s.Env = append(s.Env, env...)
	fake := fakeapi.New(fakeapi.Options{})
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("requests the fake API received:\n%s", fake.Summary())
		}
		fake.Close()
	})
	s.BaseURL = fake.URL
	trustProject(t, s)
	return s, tmux, fake
}
