package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cairn-agent/cairn/e2e/claudecode"
	"github.com/cairn-agent/cairn/e2e/fakeapi"
	"github.com/cairn-agent/cairn/internal/checkpoint"
	"github.com/google/go-cmp/cmp"
)

// checkRestored checks what the model got in the first request after the
// compaction: cairn's restore, once, with every planted fact, within the
// token ceiling; and that the next request did not get it again.
func checkRestored(t *testing.T, p *play, o outcome) {
	t.Helper()
	if o.FirstCopies != 1 {
		where := "no later request carried it either"
		if o.ArrivedAt > 0 {
			where = fmt.Sprintf("it arrived only in request %d after the compaction, as %s hook context", o.ArrivedAt, o.ArrivedVia)
		}
		t.Errorf("%s: the first request after the compaction (#%d) carries %d copies of cairn's restore, want 1; %s",
			p.sc.Name, o.First.Seq, o.FirstCopies, where)
	}
	var missing []string
	for _, f := range p.sc.Facts {
		if !o.Present[f.Name] {
			missing = append(missing, f.Name)
		}
	}
	if len(missing) > 0 {
		t.Errorf("%s: the first request after the compaction lacks %d of %d planted facts: %s",
			p.sc.Name, len(missing), len(p.sc.Facts), strings.Join(missing, "; "))
	}
	// Issue 9: a prompt above the auto-compact point runs its hook before
	// the client compacts; an advisory from it ("wrap up now") would sit
	// beside the restore, about a context that is gone.
	if i := strings.Index(o.FirstText, "cairn · context L"); i >= 0 {
		t.Errorf("%s: the first request after the compaction carries a pressure advisory beside the restore: %q",
			p.sc.Name, o.FirstText[i:min(len(o.FirstText), i+200)])
	}
	if !strings.Contains(o.Restore, "cairn show checkpoint") {
		t.Errorf("%s: the first request after the compaction does not point at `cairn show checkpoint`", p.sc.Name)
	}
	if n := checkpoint.Tokens(o.CairnText()); n > maxRestoreTokens {
		t.Errorf("%s: cairn's text in the first request after the compaction is %d tokens (restore %d, steering %d), want at most %d",
			p.sc.Name, n, checkpoint.Tokens(o.Restore), checkpoint.Tokens(o.Steer), maxRestoreTokens)
	}
	if !o.HasSecond {
		t.Errorf("%s: no second request after the compaction to check the restore is not repeated", p.sc.Name)
	} else if o.SecondCopies > 1 || (o.FirstCopies == 1 && o.SecondCopies != 1) {
		// The client keeps hook context in the conversation: the second
		// request repeats the first one's copy, and must not add another.
		t.Errorf("%s: the second request after the compaction (#%d) carries %d copies of the restore (the first carried %d); restored more than once",
			p.sc.Name, o.Second.Seq, o.SecondCopies, o.FirstCopies)
	}
	if o.Restore != "" {
		t.Logf("%s: restore in request #%d, %d tokens (cairn's estimate), steering echoed: %d tokens:\n%s",
			p.sc.Name, o.First.Seq, checkpoint.Tokens(o.Restore), checkpoint.Tokens(o.Steer), o.Restore)
	}
}

// checkBoundary checks the client really compacted the way the scenario
// meant, so a restore is not credited to the wrong path.
func checkBoundary(t *testing.T, p *play) {
	t.Helper()
	bs := boundaries(readTranscript(t, p.s.MustTranscript(t)))
	want := p.sc.triggers()
	var got []string
	for _, b := range bs {
		tr := "?"
		if b.CompactMetadata != nil {
			tr = b.CompactMetadata.Trigger
		}
		got = append(got, tr)
	}
	ok := len(got) == len(want)
	for i := 0; ok && i < len(want); i++ {
		// A compaction inside a turn is an automatic one to the client.
		ok = got[i] == strings.Replace(want[i], "in-turn", "auto", 1)
	}
	if !ok {
		t.Fatalf("%s: transcript has compact_boundary lines with triggers %v, want %v", p.sc.Name, got, want)
	}
	for i, tr := range want {
		if tr == "in-turn" {
			checkInTurn(t, p, i+1)
		}
	}
}

// checkInTurn checks, from the requests the fake logged, that compaction
// n happened inside a turn: the reply before it called tools (and reported
// a context over the threshold), and the first request after the
// compaction is the one that carries their results back. (Observed: the
// client runs the tools, then compacts; the compaction request sometimes
// includes the call and its result and sometimes stops at the exchange
// before, but the call and its result are always kept verbatim after the
// summary.)
func checkInTurn(t *testing.T, p *play, n int) {
	t.Helper()
	c := p.fake.OfKind(fakeapi.Compaction)[n-1]
	var prev, next fakeapi.Request
	for _, r := range p.fake.OfKind(fakeapi.Main) {
		if r.Seq < c.Seq {
			prev = r
		} else if next.Seq == 0 {
			next = r
		}
	}
	if len(prev.Answer.Tools) == 0 || prev.Answer.Usage != fullUsage {
		t.Fatalf("%s: the reply before compaction %d (#%d) made %d tool calls with usage %+v: not a compaction inside a turn",
			p.sc.Name, n, prev.Seq, len(prev.Answer.Tools), prev.Answer.Usage)
	}
	results := map[string]bool{}
	for _, tr := range fakeapi.ToolResults(next.Body) {
		results[tr.ToolUseID] = true
	}
	for _, tu := range prev.Answer.Tools {
		if next.Seq == 0 || !results[tu.ID] {
			t.Fatalf("%s: the first request after compaction %d (#%d) does not carry the result of %s, called in #%d: the compaction was not inside the turn",
				p.sc.Name, n, next.Seq, tu.ID, prev.Seq)
		}
	}
}

// TestRestoreAfterAutoCompaction plants facts, lets the client compact on
// its own, and checks the first request after the compaction restores
// them, once, within 1,500 tokens.
func TestRestoreAfterAutoCompaction(t *testing.T) {
	t.Parallel()
	sc := billingScenario("BILL-482", "auto")
	s := newProject(t, sc.Files)
	installCairn(t, s)
	p := newPlay(t, sc, s)
	p.mustRun(t)
	checkBoundary(t, p)
	checkRestored(t, p, p.outcome(t))
	checkCaptures(t, s.ProjectDir, 1, "BILL-482") // the ticket is in the first prompt
}

// checkCaptures checks seed 004's capture files: one pending capture per
// auto-compaction, carrying a piece of the session's first message, none
// for a manual one.
func checkCaptures(t *testing.T, project string, want int, firstMessage string) {
	t.Helper()
	got, _ := filepath.Glob(filepath.Join(project, ".project", "compacts", "*-autocompact.md"))
	if len(got) != want {
		t.Fatalf("%d capture files in .project/compacts (%v), want %d", len(got), got, want)
	}
	for _, f := range got {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		head := firstMessage
		if len(head) > 60 {
			head = head[:60]
		}
		if !strings.Contains(string(data), "pending") || !strings.Contains(string(data), head) {
			t.Errorf("capture %s lacks its status or the first message %q:\n%s", f, head, data)
		}
	}
}

// TestRestoreAfterManualCompaction is the same through /compact.
func TestRestoreAfterManualCompaction(t *testing.T) {
	t.Parallel()
	sc := ratesScenario("PAY-1193", "manual")
	s := newProject(t, sc.Files)
	installCairn(t, s)
	p := newPlay(t, sc, s)
	p.mustRun(t)
	checkBoundary(t, p)
	checkRestored(t, p, p.outcome(t))
	checkCaptures(t, s.ProjectDir, 0, "")
}

// TestCompactionSteering checks that the compaction request itself asks
// the summariser, under "Additional Instructions:", to keep the ticket and
// the user's constraints, after an automatic compaction and after /compact
// with the user's own instructions (which must survive beside cairn's).
func TestCompactionSteering(t *testing.T) {
	t.Parallel()
	for _, sc := range []scenario{billingScenario("BILL-903", "auto"), ratesScenario("PAY-2024", "manual")} {
		if sc.Trigger == "manual" {
			sc.CompactArgs = "keep the test names"
		}
		t.Run(sc.Name, func(t *testing.T) {
			t.Parallel()
			s := newProject(t, sc.Files)
			installCairn(t, s)
			p := newPlay(t, sc, s)
			p.mustRun(t)
			o := p.outcome(t)
			txt := lastUser(o.Compaction)
			_, instr, ok := strings.Cut(txt, "Additional Instructions:\n")
			if !ok {
				t.Fatalf("the compaction request has no Additional Instructions; its last user message ends:\n%s", tailString(txt, 600))
			}
			if sc.CompactArgs != "" && !strings.Contains(instr, sc.CompactArgs) {
				t.Errorf("the user's /compact instructions %q are gone from the Additional Instructions:\n%s", sc.CompactArgs, instr)
			}
			steer := findSteer(instr)
			if steer == "" {
				t.Fatalf("no cairn steering under Additional Instructions:\n%s", instr)
			}
			for _, f := range sc.Facts {
				if strings.HasPrefix(f.Name, "ticket") || strings.HasPrefix(f.Name, "constraint") {
					if !f.in(steer) {
						t.Errorf("cairn's steering lacks the %s:\n%s", f.Name, steer)
					}
				}
			}
			if n := checkpoint.Tokens(steer); n > checkpoint.SteerBudget {
				t.Errorf("steering is %d tokens, over its budget of %d", n, checkpoint.SteerBudget)
			}
			t.Logf("steering (%d tokens):\n%s", checkpoint.Tokens(steer), steer)
		})
	}
}

// TestConcurrentSessions runs two sessions at once in one project, each
// with its own ticket and its own fake API (the fake's script is one
// queue), sharing the project, Claude Code's config and cairn's state and
// database. Both compact automatically; each must get its own working
// state back and nothing of the other's.
func TestConcurrentSessions(t *testing.T) {
	t.Parallel()
	scA := billingScenario("BILL-482", "auto")
	scB := ratesScenario("PAY-1193", "auto")
	files := map[string]string{}
	for _, sc := range []scenario{scA, scB} {
		for k, v := range sc.Files {
			files[k] = v
		}
	}
	sa := newProject(t, files)
	installCairn(t, sa)
	sb := *sa
	sb.Env = append([]string(nil), sa.Env...)
	pa, pb := newPlay(t, scA, sa), newPlay(t, scB, &sb)

	// In lockstep: both sessions' turn i run at once, then turn i+1, so
	// both compact at the same time, each while the other has left
	// checkpoints of its own.
	stepsA, stepsB := pa.steps(), pb.steps()
	if len(stepsA) != len(stepsB) {
		t.Fatalf("the scenarios have %d and %d steps", len(stepsA), len(stepsB))
	}
	for i := range stepsA {
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for j, st := range []struct {
			p  *play
			tn turn
		}{{pa, stepsA[i]}, {pb, stepsB[i]}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[j] = st.p.step(st.tn)
			}()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
	}
	if pa.s.ID == pb.s.ID {
		t.Fatalf("both plays ran session %s", pa.s.ID)
	}
	for _, c := range []struct {
		p            *play
		mine, theirs string
	}{{pa, "BILL-482", "PAY-1193"}, {pb, "PAY-1193", "BILL-482"}} {
		checkBoundary(t, c.p)
		o := c.p.outcome(t)
		checkRestored(t, c.p, o)
		if !strings.Contains(o.FirstText, c.mine) {
			t.Errorf("%s: its first request after the compaction lacks its own ticket %s", c.p.sc.Name, c.mine)
		}
		if i := strings.Index(o.FirstText, c.theirs); i >= 0 {
			how := ""
			if strings.Contains(o.FirstText[max(0, i-200):i], "session in this project (") {
				how = " by cairn's pointer to another session (SessionStart with source resume)"
			}
			t.Errorf("%s: its first request after the compaction (#%d) carries the other session's ticket %s%s: …%s…",
				c.p.sc.Name, o.First.Seq, c.theirs, how, oneLineString(o.FirstText[max(0, i-250):min(len(o.FirstText), i+150)]))
		}
		// Wherever the restore arrived, it must be this session's.
		for _, r := range c.p.fake.OfKind(fakeapi.Main) {
			if rs := findRestore(messagesText(r.Body)); rs != "" && (!strings.Contains(rs, c.mine) || strings.Contains(rs, c.theirs)) {
				t.Errorf("%s: the restore in request #%d is not this session's (want %s, not %s):\n%s", c.p.sc.Name, r.Seq, c.mine, c.theirs, rs)
			}
		}
	}
}

func oneLineString(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestInstallUninstall installs cairn into projects as users have them,
// runs a session that must really go through cairn's hooks (and the
// user's own) and list cairn's MCP tools to the model, then uninstalls:
// the project must be exactly as before, byte for byte, with nothing left
// behind, and the next session must neither run cairn nor list its tools.
//
// cairn wires a project in .claude/settings.local.json, the file Claude
// Code reads for the project on this machine alone, because the hooks
// call this machine's binary by its absolute path; the settings.json
// teams commit is left alone. Its MCP server goes into the project's
// .mcp.json, beside the team's servers, as cairn from PATH.
func TestInstallUninstall(t *testing.T) {
	t.Parallel()
	t.Run("hand-written settings", func(t *testing.T) {
		t.Parallel()
		// The team's file, in the layout Claude Code writes, and this
		// machine's own, hand-written with tabs and without a final newline.
		log := filepath.Join(t.TempDir(), "user-hook.log")
		installRoundTrip(t, map[string]string{
			".claude/settings.json": `{
  "$schema": "https://json.schemastore.org/claude-code-settings.json",
  "permissions": {
    "allow": [
      "Bash(echo:*)"
    ]
  },
  "hooks": {
    "PostToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "echo ran >> '` + log + `'",
            "timeout": 7
          }
        ]
      }
    ]
  },
  "x-team": {
    "owner": "billing",
    "ratio": 1.50,
    "note": "caf\u00e9 \"quoted\""
  },
  "spinnerTipsEnabled": false
}
`,
			".claude/settings.local.json": "{\n\t\"permissions\": {\n\t\t\"allow\": [\n\t\t\t\"Bash(echo hello)\"\n\t\t]\n\t}\n}",
			// The team's server, which exits at once: the client carries on
			// without it.
			".mcp.json": "{\n    \"mcpServers\": {\n        \"notes\": {\"command\": \"true\", \"args\": []}\n    }\n}\n",
		}, log)
	})
	t.Run("no .claude", func(t *testing.T) {
		t.Parallel()
		installRoundTrip(t, nil, "")
	})
}

// installRoundTrip runs install, a session and uninstall in a project
// holding files (committed), whose user hook, if any, appends to
// userLog.
func installRoundTrip(t *testing.T, files map[string]string, userLog string) {
	s := newProject(t, files)
	// The MCP server of .mcp.json is cairn from PATH, as a user has it.
	s.Env = append(s.Env, "PATH="+filepath.Dir(built.bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	before := projectTree(t, s.ProjectDir)
	out := installCairnWith(t, s)
	t.Logf("cairn install:\n%s", out)
	mcp, err := os.ReadFile(filepath.Join(s.ProjectDir, ".mcp.json"))
	if err != nil || !bytes.Contains(mcp, []byte(`"cairn": {`)) || !bytes.Contains(mcp, []byte(`"command": "cairn"`)) {
		t.Errorf("install registered no MCP server in .mcp.json (%v):\n%s", err, mcp)
	}
	if team, ok := files[".mcp.json"]; ok && !bytes.HasPrefix(mcp, []byte(strings.TrimSuffix(team, "\n    }\n}\n"))) {
		t.Errorf("install changed the team's lines of .mcp.json:\n%s", mcp)
	}
	local := filepath.Join(s.ProjectDir, ".claude", "settings.local.json")
	installed, err := os.ReadFile(local)
	if err != nil {
		t.Fatal(err)
	}
	// The hooks of every turn and the status line run with one CPU
	// (hookevent.Event.OneCPU, install.statusLine),
	// through the shell Claude Code runs a hook's command with.
	for _, want := range []string{built.bin + " hook PreCompact", built.bin + " hook SessionStart", "GOMAXPROCS=1 " + built.bin + " statusline", "GOMAXPROCS=1 " + built.bin + " hook UserPromptSubmit", "GOMAXPROCS=1 " + built.bin + " hook PostToolUse"} {
		if !bytes.Contains(installed, []byte(want)) {
			t.Errorf("installed settings.local.json lacks %q:\n%s", want, installed)
		}
	}
	if shared, ok := files[".claude/settings.json"]; ok {
		if got, _ := os.ReadFile(filepath.Join(s.ProjectDir, ".claude", "settings.json")); string(got) != shared {
			t.Errorf("install changed the settings.json teams commit:\n%s", got)
		}
	}
	if original, ok := files[".claude/settings.local.json"]; ok {
		if !bytes.Contains(installed, []byte("\n\t\"hooks\": {\n\t\t\"SessionStart\": [")) || !bytes.HasSuffix(installed, []byte("\n}")) {
			t.Errorf("install did not write in the file's own layout (tabs, no final newline):\n%s", installed)
		}
		if !strings.Contains(string(installed), strings.TrimSuffix(original, "\n\t}\n}")) {
			t.Errorf("install changed the user's own lines:\n%s", installed)
		}
	}
	// The slash commands are project files: nothing of this machine in them.
	for _, name := range []string{"checkpoint.md", "handoff.md"} {
		data, err := os.ReadFile(filepath.Join(s.ProjectDir, ".claude", "commands", name))
		if err != nil {
			t.Errorf("no slash command %s: %v", name, err)
		} else if bytes.Contains(data, []byte(built.bin)) {
			t.Errorf("%s holds this machine's path to cairn:\n%s", name, data)
		}
	}

	fake := fakeapi.New(fakeapi.Options{})
	t.Cleanup(fake.Close)
	s.BaseURL = fake.URL
	fake.Enqueue(
		fakeapi.Reply{Tools: []fakeapi.ToolUse{bash("toolu_echo", "echo hello", "Say hello")}, Usage: usageAt(3000)},
		fakeapi.Reply{Text: "Said hello.", Usage: usageAt(3100)},
		fakeapi.Reply{Text: "Still here.", Usage: usageAt(3200)},
	)
	s.AllowedTools = []string{"Bash(echo:*)"}
	s.MustTurn(t, "Say hello for TEST-12.")
	s.MustTurn(t, "Again?")
	if n := fake.Pending(); n > 0 {
		t.Errorf("%d scripted replies unused", n)
	}
	// The client started cairn's server and lists its tools, deferred, to
	// the model from the first request on.
	if first := fake.OfKind(fakeapi.Main); len(first) == 0 {
		t.Fatal("no request reached the fake")
	} else if tools := cairnTools(first[0]); len(tools) == 0 {
		t.Errorf("the first request lists none of cairn's MCP tools after cairn install:\n%s", requestJSON(first[0]))
	} else {
		t.Logf("cairn's MCP tools in the first request: %s", strings.Join(tools, ", "))
	}
	if userLog != "" {
		if _, err := os.Stat(userLog); err != nil {
			t.Errorf("the user's own PostToolUse hook did not run beside cairn's: %v", err)
		}
	}

	// The hooks wired in settings.local.json ran: cairn keeps a record
	// per event and the session's state where the client's environment
	// told it to.
	ran := map[string]bool{}
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PostToolUse", "Stop", "SessionEnd"} {
		if _, err := os.Stat(filepath.Join(stateDir(s), "hooks", ev)); err != nil {
			t.Errorf("cairn's %s hook did not run (no record under %s): %v", ev, stateDir(s), err)
		}
		ran[ev] = true
	}
	if heads, _ := filepath.Glob(filepath.Join(stateDir(s), "sessions", s.ID+"*.head")); len(heads) == 0 {
		t.Errorf("no session state for %s under %s", s.ID, stateDir(s))
	}
	if _, err := os.Stat(filepath.Join(dataDir(s), "cairn.db")); err != nil {
		t.Errorf("no database under %s (the SessionEnd checkpoint): %v", dataDir(s), err)
	}
	if out, err := runCairn(s, "doctor"); err != nil {
		t.Errorf("cairn doctor after a session with cairn installed: %v", err)
	} else {
		doc := string(out)
		if !strings.Contains(doc, "settings.local.json: wired to "+built.bin) {
			t.Errorf("cairn doctor does not say settings.local.json is wired:\n%s", doc)
		}
		if !strings.Contains(doc, ".mcp.json: cairn's MCP server registered for this project: cairn mcp") {
			t.Errorf("cairn doctor does not say .mcp.json registers the MCP server:\n%s", doc)
		}
		for ev := range ran {
			if !strings.Contains(doc, ev+": last ran") {
				t.Errorf("cairn doctor does not show %s ran:\n%s", ev, doc)
			}
		}
		if strings.Contains(doc, "last error") {
			t.Errorf("cairn doctor reports a hook error after an ordinary session:\n%s", doc)
		}
		t.Logf("cairn doctor:\n%s", doc)
	}
	if out, err := runCairn(s, "checkpoints", "--json"); err != nil || !bytes.Contains(out, []byte("TEST-12")) {
		t.Errorf("cairn checkpoints after the session: %v\n%s", err, out)
	}
	// Headless, the client leaves the user's global git excludes alone
	// (interactively it adds settings.local.json there: see
	// TestInteractivePressure), so a file cairn wrote stays visible to git
	// until then, which is why install says so.
	if ig, err := os.ReadFile(filepath.Join(s.HomeDir, ".config", "git", "ignore")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a headless client wrote the global git excludes: %q, %v", ig, err)
	}

	if out, err := runCairn(s, "uninstall"); err != nil {
		t.Fatal(err)
	} else {
		t.Logf("cairn uninstall:\n%s", out)
	}
	if diff := cmp.Diff(before, projectTree(t, s.ProjectDir)); diff != "" {
		t.Errorf("the project after install, a session and uninstall differs from before (-before +after):\n%s", diff)
	}

	// Uninstalled: another turn runs no cairn hook, and a new session's
	// first request lists no tool of cairn's (a resumed one still has the
	// reminder that listed them in its history).
	records := hookRecords(t, s)
	fake.Enqueue(fakeapi.Reply{Text: "Bye.", Usage: usageAt(3300)})
	s.MustTurn(t, "Bye.")
	if got := hookRecords(t, s); got != records {
		t.Errorf("cairn's hooks ran after cairn uninstall:\nbefore:\n%s\nafter:\n%s", records, got)
	}
	s.ID = ""
	fake.Enqueue(fakeapi.Reply{Text: "Hello again.", Usage: usageAt(1000)})
	s.MustTurn(t, "Hello?")
	reqs := fake.OfKind(fakeapi.Main)
	if tools := cairnTools(reqs[len(reqs)-1]); len(tools) > 0 {
		t.Errorf("a new session's first request after cairn uninstall lists cairn's MCP tools %v", tools)
	}
	if diff := cmp.Diff(before, projectTree(t, s.ProjectDir)); diff != "" {
		t.Errorf("sessions after uninstall changed the project (-before +after):\n%s", diff)
	}
}

// cairnToolRe is the name of one of cairn's MCP tools, as the client
// gives it to the model.
var cairnToolRe = regexp.MustCompile(`mcp__cairn__[a-z_]+`)

// cairnTools are the names of cairn's MCP tools a request mentions (Claude
// Code 2.1.328 lists deferred MCP tools by name, in a reminder in the
// first message), once each, in order.
func cairnTools(r fakeapi.Request) []string {
	var names []string
	for _, n := range cairnToolRe.FindAllString(requestJSON(r), -1) {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names
}

func requestJSON(r fakeapi.Request) string {
	b, _ := json.Marshal(r.Body)
	return string(b)
}

// projectTree is every file and directory of the project but .git, with
// the files' content: what a round trip must leave as it was.
func projectTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	tree := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		switch {
		case d.IsDir() && rel == ".git":
			return filepath.SkipDir
		case d.IsDir():
			tree[rel+"/"] = ""
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			tree[rel] = string(data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// hookRecords is the content of cairn's hook run records.
func hookRecords(t *testing.T, s *claudecode.Session) string {
	t.Helper()
	var b strings.Builder
	files, _ := filepath.Glob(filepath.Join(stateDir(s), "hooks", "*"))
	for _, f := range files {
		data, _ := os.ReadFile(f)
		b.WriteString(filepath.Base(f) + ": " + string(data))
	}
	return b.String()
}

// TestWithoutCairn runs the auto-compaction scenario with no cairn
// installed, for comparison: the bench must be one that loses facts (the
// fake's summary is poor), or the tests above would prove nothing.
func TestWithoutCairn(t *testing.T) {
	t.Parallel()
	sc := billingScenario("BILL-482", "auto")
	s := newProject(t, sc.Files)
	p := newPlay(t, sc, s)
	p.mustRun(t)
	checkBoundary(t, p)
	o := p.outcome(t)
	n := count(sc, o.Present)
	share := float64(n) / float64(len(sc.Facts))
	var kept, lost []string
	for _, f := range sc.Facts {
		if o.Present[f.Name] {
			kept = append(kept, f.Name)
		} else {
			lost = append(lost, f.Name)
		}
	}
	t.Logf("without cairn the first request after the compaction (#%d, %d bytes) carries %d of %d planted facts (%.0f%%); kept by the client: %s; lost: %s",
		o.First.Seq, o.First.Size, n, len(sc.Facts), 100*share, strings.Join(kept, ", "), strings.Join(lost, ", "))
	if o.FirstCopies > 0 || o.ArrivedAt > 0 {
		t.Errorf("a cairn restore reached the model with cairn not installed")
	}
	if _, err := os.Stat(stateDir(s)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("cairn state exists with cairn not installed: %v", err)
	}
	if share >= 0.95 {
		t.Errorf("without cairn %.0f%% of the facts survive the compaction: the bench does not test recall", 100*share)
	}
	if o.Present["ticket"] || o.Present["constraint: pnpm"] {
		t.Errorf("the poor summary should lose the ticket and the constraints; present: %v", o.Present)
	}
}
