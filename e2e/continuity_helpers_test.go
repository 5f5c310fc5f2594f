package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/e2e/claudecode"
	"github.com/cairn-agent/cairn/e2e/fakeapi"
	"github.com/cairn-agent/cairn/e2e/jobdirs"
)

// The continuity bench plants facts in a scripted session (a ticket, the
// user's constraints, files edited, a command that failed and was fixed, a
// decision and its reason, next steps, todos), lets the real client compact
// the conversation with a deliberately poor summary, and looks for the facts
// in the first request the client sends the model after the compaction.
// The same code serves the tests and the recall report (recall_test.go).

// poorSummary is the fake's compaction summary: it keeps none of the
// planted facts, as a summariser having a bad day would.
const poorSummary = "<analysis>x</analysis>\n<summary>1. Primary Request: working on some code.</summary>"

// restoreHeader starts the text cairn injects after a compaction, and
// restoreEnd ends it (see checkpoint.Restore).
const (
	restoreHeader = "# Restored working state (cairn)"
	restoreEnd    = "Continue with the task above."
	// steerHeader starts cairn's steering text (checkpoint.Steer).
	steerHeader = "When you write the summary, keep these specifics from the conversation"
)

// maxRestoreTokens is the ceiling on what cairn adds, by cairn's
// own estimate (checkpoint.Tokens).
const maxRestoreTokens = 1500

// autoWindow makes the client compact at 67,000 tokens of context (see
// README), so a reply reporting fullUsage makes the next turn compact.
const autoWindow = "CLAUDE_CODE_AUTO_COMPACT_WINDOW=100000"

var fullUsage = fakeapi.Usage{InputTokens: 99000, OutputTokens: 200}

// turn is one prompt and the replies the fake model gives to it, in order
// (a reply with tool calls makes the client come back for the next one).
type turn struct {
	Prompt  string
	Replies []fakeapi.Reply
}

// fact is one planted fact: present when every pattern of Want matches the
// text of the request's messages and none of Not does.
type fact struct {
	Name string
	Want []*regexp.Regexp
	// Not are claims that contradict the fact. A request that makes one
	// has lost the fact, whatever else it says: a restore that reports a
	// piped test run which printed failures as "exit 0" tells the model
	// the opposite of what happened.
	Not []*regexp.Regexp
	// From is the compaction (1-based) the fact is planted before: it is
	// checked in the first request after that compaction and after each
	// later one, up to Until (0: to the last). Zero means the first.
	From, Until int
}

// lit is a fact whose evidence is literal substrings.
func lit(name string, subs ...string) fact {
	f := fact{Name: name}
	for _, s := range subs {
		f.Want = append(f.Want, regexp.MustCompile(regexp.QuoteMeta(s)))
	}
	return f
}

// rx is a fact whose evidence is regular expressions.
func rx(name string, patterns ...string) fact {
	f := fact{Name: name}
	for _, p := range patterns {
		f.Want = append(f.Want, regexp.MustCompile(p))
	}
	return f
}

// notRx adds claims that contradict the fact (see fact.Not).
func (f fact) notRx(patterns ...string) fact {
	f.Not = slices.Clone(f.Not)
	for _, p := range patterns {
		f.Not = append(f.Not, regexp.MustCompile(p))
	}
	return f
}

// from and until set the compactions after which the fact is checked.
func (f fact) from(n int) fact  { f.From = n; return f }
func (f fact) until(n int) fact { f.Until = n; return f }

// checkedAt says whether the fact is checked after compaction n (1-based).
func (f fact) checkedAt(n int) bool {
	return n >= max(f.From, 1) && (f.Until == 0 || n <= f.Until)
}

func (f fact) in(text string) bool {
	for _, re := range f.Want {
		if !re.MatchString(text) {
			return false
		}
	}
	return !f.contradicted(text)
}

// contradicted says whether text makes a claim of f.Not.
func (f fact) contradicted(text string) bool {
	for _, re := range f.Not {
		if re.MatchString(text) {
			return true
		}
	}
	return false
}

// scenario is a scripted session with planted facts around its
// compactions.
type scenario struct {
	Name string
	// Shape says in a few words what kind of session it is, for the report.
	Shape string
	// Trigger is "auto" (the first After turn compacts: the Before turns
	// end with a reply reporting fullUsage) or "manual" (/compact runs
	// between Before and After), for a scenario with one compaction.
	Trigger string
	// CompactArgs follow /compact in a manual scenario.
	CompactArgs string
	// Compactions, when set, are the compactions the scenario makes, in
	// order: "auto", "manual", or "in-turn" (automatic, between a tool's
	// result and the next request, see checkInTurn). Its Script lays them
	// out itself in Before: a "/compact ..." turn for a manual one, a reply
	// reporting fullUsage before an automatic one. Trigger is not used then.
	Compactions []string
	// Files are written into the project and committed before the session;
	// those starting with "#!" are made executable.
	Files map[string]string
	// Bins are executables (name to shell script) put first on the
	// client's PATH: toolchains the machine may lack (pytest, mix, cargo,
	// terraform), printing what the scenario needs, so that the agent runs
	// the commands a real one would.
	Bins           map[string]string
	Env            []string
	AllowedTools   []string
	PermissionMode string
	// Interactive runs the client in a tmux pane, as a user would, rather
	// than one `claude -p` per turn.
	Interactive bool
	// Script gives the turns before the compaction and after it for a
	// project at dir (tool inputs need absolute paths).
	Script func(dir string) (before, after []turn)
	// Facts are what the first request after each compaction should carry
	// (see fact.From).
	Facts []fact
	// Secrets are planted in the session (prompts, command output, files
	// read, the agent's text, <private> spans): none may reach cairn's
	// files or the text cairn adds to requests (leaks_test.go).
	Secrets []secret
}

// triggers are the scenario's compactions in order.
func (sc scenario) triggers() []string {
	if len(sc.Compactions) > 0 {
		return sc.Compactions
	}
	return []string{sc.Trigger}
}

// compactsAuto says whether any of the scenario's compactions is automatic.
func (sc scenario) compactsAuto() bool {
	for _, tr := range sc.triggers() {
		if tr != "manual" {
			return true
		}
	}
	return false
}

// play is one run of a scenario: its fake API and its client session.
type play struct {
	sc   scenario
	fake *fakeapi.Server
	s    *claudecode.Session
	// before are the turns before the compaction, after those once it is
	// done (manual) or due (auto).
	before, after []turn
	// send runs one turn in the client: headless, one `claude -p` per
	// turn, or typed into an interactive client (see startInteractivePlay).
	send func(prompt string) error
	// done ends the client when the last turn has run (interactive: it
	// exits, so its SessionEnd hooks have run when the test looks).
	done func() error
	// testWrote are project files the test wrote besides the scenario's
	// (slash-separated, relative).
	testWrote []string
}

// newPlay prepares a scenario in s's project (see newProject, which
// writes the scenario's files) against a fake of its own, which answers
// this session only. s's project, config and XDG dirs may be shared with
// another play.
func newPlay(t *testing.T, sc scenario, s *claudecode.Session) *play {
	t.Helper()
	fake := fakeapi.New(fakeapi.Options{CompactionSummary: poorSummary})
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%s: requests the fake API received:\n%s", sc.Name, fake.Summary())
		}
		dumpRequests(t, sc.Name, fake)
		dumpTranscripts(t, sc.Name, s.ConfigDir)
		fake.Close()
	})
	s.BaseURL = fake.URL
	s.Env = append(slices.Clone(s.Env), sc.Env...)
	if sc.compactsAuto() {
		s.Env = append(s.Env, autoWindow)
	}
	if len(sc.Bins) > 0 {
		s.Env = append(s.Env, "PATH="+writeBins(t, s, sc.Bins)+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	s.AllowedTools = sc.AllowedTools
	s.PermissionMode = sc.PermissionMode
	p := &play{sc: sc, fake: fake, s: s}
	p.before, p.after = sc.Script(s.ProjectDir)
	p.send = func(prompt string) error {
		res, err := p.s.Turn(context.Background(), prompt)
		if err != nil {
			return fmt.Errorf("%w\n%s", err, res)
		}
		return nil
	}
	p.done = func() error { return nil }
	if sc.Interactive {
		startInteractivePlay(t, p)
	}
	return p
}

// writeBins writes a scenario's stand-in executables into a directory of
// their own beside the project (outside it: they are the test's files, not
// the project's) and returns it.
func writeBins(t *testing.T, s *claudecode.Session, bins map[string]string) string {
	t.Helper()
	dir := filepath.Join(filepath.Dir(s.ProjectDir), "bin")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, script := range bins {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// newProject is a session in a fresh project whose client (and so the
// hooks it runs) keeps cairn's state and data in dirs of the test's own.
func newProject(t *testing.T, files map[string]string) *claudecode.Session {
	t.Helper()
	bin := claudecode.Require(t)
	s := claudecode.NewSession(t, bin, "")
	root := filepath.Dir(s.ProjectDir)
	s.Env = append(s.Env, "XDG_STATE_HOME="+filepath.Join(root, "state"), "XDG_DATA_HOME="+filepath.Join(root, "data"))
	// The session's whole directory: cairn's jobs write into its state,
	// its data and the project.
	jobdirs.RemoveWhenQuiet(t, root)
	// A git identity, as a user's machine has one: an agent's `git commit`
	// must not fail for want of it.
	s.Env = append(s.Env, "GIT_AUTHOR_NAME=Bench User", "GIT_AUTHOR_EMAIL=user@example.invalid",
		"GIT_COMMITTER_NAME=Bench User", "GIT_COMMITTER_EMAIL=user@example.invalid")
	writeProject(t, s, files)
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		// cairn's own account of what went wrong, first thing to read.
		if data, err := os.ReadFile(filepath.Join(stateDir(s), "cairn.log")); err == nil {
			t.Logf("cairn.log:\n%s", data)
		}
	})
	return s
}

// stateDir and dataDir are where cairn keeps things for a newProject.
func stateDir(s *claudecode.Session) string {
	return filepath.Join(filepath.Dir(s.ProjectDir), "state", "cairn")
}
func dataDir(s *claudecode.Session) string {
	return filepath.Join(filepath.Dir(s.ProjectDir), "data", "cairn")
}

// writeProject writes files into the project and commits them.
func writeProject(t *testing.T, s *claudecode.Session, files map[string]string) {
	t.Helper()
	if len(files) == 0 {
		return
	}
	var names []string
	for name, content := range files {
		p := filepath.Join(s.ProjectDir, name)
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
		names = append(names, name)
	}
	git(t, s, append([]string{"add", "--"}, names...)...)
	git(t, s, "commit", "-q", "-m", "project files")
}

func git(t *testing.T, s *claudecode.Session, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = s.ProjectDir
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + s.HomeDir, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Cairn Bench", "GIT_AUTHOR_EMAIL=bench@example.invalid",
		"GIT_COMMITTER_NAME=Cairn Bench", "GIT_COMMITTER_EMAIL=bench@example.invalid",
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// installCairn runs `cairn install --no-mcp` in the project, as a user
// who wants the hooks alone would. The tests that use it measure the
// hooks: without the MCP server
// their requests stay as they were measured, and an interactive client
// has no server to start (not on the bench's PATH). The server's install
// has tests of its own (TestInstallUninstall, TestInstallMCPInteractive).
func installCairn(t *testing.T, s *claudecode.Session) string {
	t.Helper()
	return installCairnWith(t, s, "--no-mcp")
}

// installCairnWith runs `cairn install` with args.
func installCairnWith(t *testing.T, s *claudecode.Session, args ...string) string {
	t.Helper()
	out, err := runCairn(s, append([]string{"install"}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(s.ProjectDir, ".claude", "settings.local.json")); err != nil {
		t.Fatalf("cairn install wrote no .claude/settings.local.json: %v\n%s", err, out)
	}
	return string(out)
}

// steps are the client invocations of the scenario in order: the turns
// before the compaction, /compact for a manual one, the turns after.
func (p *play) steps() []turn {
	steps := append([]turn(nil), p.before...)
	if p.sc.Trigger == "manual" && len(p.sc.Compactions) == 0 {
		steps = append(steps, turn{Prompt: strings.TrimSpace("/compact " + p.sc.CompactArgs)})
	}
	return append(steps, p.after...)
}

// step runs one client invocation with its scripted replies. It returns
// an error rather than failing the test so that it can run in a goroutine.
func (p *play) step(tn turn) error {
	p.fake.Enqueue(tn.Replies...)
	if err := p.send(tn.Prompt); err != nil {
		return fmt.Errorf("%s: turn %q: %w", p.sc.Name, tn.Prompt, err)
	}
	if n := p.fake.Pending(); n > 0 {
		return fmt.Errorf("%s: turn %q left %d scripted replies unasked for", p.sc.Name, tn.Prompt, n)
	}
	if un := p.fake.Unscripted(); len(un) > 0 {
		return fmt.Errorf("%s: turn %q: %d conversation requests found the script empty (first: #%d)", p.sc.Name, tn.Prompt, len(un), un[0].Seq)
	}
	if mm := p.fake.Mismatched(); len(mm) > 0 {
		return fmt.Errorf("%s: turn %q: request #%d got a reply scripted for another: %s", p.sc.Name, tn.Prompt, mm[0].Seq, mm[0].Mismatch)
	}
	return nil
}

// run sends every step, the compaction's included, and ends the client.
func (p *play) run() error {
	for _, tn := range p.steps() {
		if err := p.step(tn); err != nil {
			return err
		}
	}
	if err := p.done(); err != nil {
		return fmt.Errorf("%s: %w", p.sc.Name, err)
	}
	return nil
}

func (p *play) mustRun(t *testing.T) {
	t.Helper()
	if err := p.run(); err != nil {
		t.Fatal(err)
	}
}

// outcome is what the model was sent around one compaction.
type outcome struct {
	// N is the compaction's rank in the session (1-based) and Trigger the
	// scenario's name for it.
	N          int
	Trigger    string
	Compaction fakeapi.Request
	// First and Second are the first two conversation requests after the
	// compaction (before the next one); HasSecond says whether there was
	// a second.
	First, Second fakeapi.Request
	HasSecond     bool
	// FirstText is every string of First's messages, one per line.
	FirstText string
	// Restore is cairn's restore text as First carries it ("" if not);
	// FirstCopies and SecondCopies count its header in First and Second.
	Restore                   string
	FirstCopies, SecondCopies int
	// Steer is cairn's steering text where First carries it (after a
	// manual compaction the client shows the PreCompact hook's output as
	// the /compact command's output).
	Steer string
	// Hooks is the rest of what cairn's hooks added to First (hook
	// context other than the restore, such as a note after it).
	Hooks string
	// Present says, for each fact checked after this compaction, whether
	// First carries it; Contradicted names those First contradicts.
	Present      map[string]bool
	Contradicted map[string]bool

	// Where the restore arrived if not in First: ArrivedAt is its rank
	// among the conversation requests after the compaction (1 = First, 0 =
	// never), ArrivedVia the hook event the client names before it, and
	// ArrivedPresent the facts that request carries, ArrivedRestore the
	// restore it carries.
	ArrivedAt      int
	ArrivedVia     string
	ArrivedPresent map[string]bool
	ArrivedRestore string
}

// CairnText is what cairn added to First: the restore, any steering, and
// the rest of its hooks' context.
func (o outcome) CairnText() string { return o.Restore + o.Steer + o.Hooks }

// count is how many facts present holds (present has the facts checked
// after one compaction; sc names the scenario they belong to).
func count(sc scenario, present map[string]bool) int {
	n := 0
	for _, f := range sc.Facts {
		if present[f.Name] {
			n++
		}
	}
	return n
}

// outcome finds the single compaction and the requests after it.
func (p *play) outcome(t *testing.T) outcome {
	t.Helper()
	all := p.outcomes(t)
	if len(all) != 1 {
		t.Fatalf("%s: the fake saw %d compaction requests, want 1", p.sc.Name, len(all))
	}
	return all[0]
}

// outcomes finds each of the scenario's compactions and the conversation
// requests after it, up to the next one.
func (p *play) outcomes(t *testing.T) []outcome {
	t.Helper()
	comps := p.fake.OfKind(fakeapi.Compaction)
	triggers := p.sc.triggers()
	if len(comps) != len(triggers) {
		t.Fatalf("%s: the fake saw %d compaction requests, want %d (%v)", p.sc.Name, len(comps), len(triggers), triggers)
	}
	mains := p.fake.OfKind(fakeapi.Main)
	var out []outcome
	for i, c := range comps {
		o := outcome{N: i + 1, Trigger: triggers[i], Compaction: c}
		var after []fakeapi.Request
		for _, r := range mains {
			if r.Seq > c.Seq && (i+1 == len(comps) || r.Seq < comps[i+1].Seq) {
				after = append(after, r)
			}
		}
		if len(after) == 0 {
			t.Fatalf("%s: no conversation request after compaction %d", p.sc.Name, o.N)
		}
		o.First = after[0]
		if o.HasSecond = len(after) > 1; o.HasSecond {
			o.Second = after[1]
			o.SecondCopies = strings.Count(messagesText(o.Second.Body), restoreHeader)
		}
		o.FirstText = messagesText(o.First.Body)
		o.FirstCopies = strings.Count(o.FirstText, restoreHeader)
		o.Restore = findRestore(o.FirstText)
		o.Steer = findSteer(o.FirstText)
		o.Hooks = strings.Join(otherHookText(o.First.Body), "\n")
		o.Present, o.Contradicted = p.sc.present(o.FirstText, o.N)
		for rank, r := range after {
			text := messagesText(r.Body)
			at := strings.Index(text, restoreHeader)
			if at < 0 {
				continue
			}
			o.ArrivedAt, o.ArrivedVia = rank+1, "?"
			if m := hookContext.FindStringSubmatch(text[:at]); m != nil {
				o.ArrivedVia = m[1]
			}
			o.ArrivedPresent, _ = p.sc.present(text, o.N)
			o.ArrivedRestore = findRestore(text)
			break
		}
		out = append(out, o)
	}
	return out
}

// hookContext is how the client introduces a hook's additionalContext.
var hookContext = regexp.MustCompile(`(\w+) hook additional context: $`)

// present says which of the facts checked after compaction n text
// carries, and which it contradicts.
func (sc scenario) present(text string, n int) (present, contradicted map[string]bool) {
	present, contradicted = map[string]bool{}, map[string]bool{}
	for _, f := range sc.Facts {
		if f.checkedAt(n) {
			present[f.Name] = f.in(text)
			if f.contradicted(text) {
				contradicted[f.Name] = true
			}
		}
	}
	return present, contradicted
}

// checkedAt are the facts checked after compaction n.
func (sc scenario) checkedAt(n int) []fact {
	var out []fact
	for _, f := range sc.Facts {
		if f.checkedAt(n) {
			out = append(out, f)
		}
	}
	return out
}

// messagesText is every string in a request's messages (texts, tool
// inputs and results, hook contexts), one per line: what the model reads
// of the conversation, without the system prompt (whose git status lists
// changed files whatever cairn does).
func messagesText(body map[string]any) string {
	return strings.Join(messageStrings(body), "\n")
}

// findRestore returns cairn's restore text as a request's text carries
// it: from its header to its closing sentence.
func findRestore(text string) string {
	i := strings.Index(text, restoreHeader)
	if i < 0 {
		return ""
	}
	rest := text[i:]
	if j := strings.Index(rest, restoreEnd); j >= 0 {
		return rest[:j+len(restoreEnd)]
	}
	return rest
}

// findSteer returns cairn's steering text if the request's text carries
// it: its header line and the "- " lines after it.
func findSteer(text string) string {
	i := strings.Index(text, steerHeader)
	if i < 0 {
		return ""
	}
	lines := strings.Split(text[i:], "\n")
	n := 1
	for n < len(lines) && strings.HasPrefix(lines[n], "- ") {
		n++
	}
	return strings.Join(lines[:n], "\n")
}

// dumpRequests writes every request body the fake received under
// $CAIRN_E2E_DUMP/<test>/<scenario>/, for looking at what reached the model.
func dumpRequests(t *testing.T, name string, fake *fakeapi.Server) {
	root := os.Getenv("CAIRN_E2E_DUMP")
	if root == "" {
		return
	}
	dir := filepath.Join(root, strings.ReplaceAll(t.Name(), "/", "_"), name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Log(err)
		return
	}
	for _, r := range fake.Requests() {
		if r.Body == nil {
			continue
		}
		b, _ := json.MarshalIndent(r.Body, "", "  ")
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("%03d-%s.json", r.Seq, r.Kind)), b, 0o644)
	}
}

// dumpTranscripts copies the client's transcripts (with their subagents')
// under $CAIRN_E2E_DUMP/<test>/<scenario>/transcripts/, to replay a session
// through cairn's engine without the client.
func dumpTranscripts(t *testing.T, name, configDir string) {
	root := os.Getenv("CAIRN_E2E_DUMP")
	if root == "" {
		return
	}
	src := filepath.Join(configDir, "projects")
	dst := filepath.Join(root, strings.ReplaceAll(t.Name(), "/", "_"), name, "transcripts")
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dst, rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Log(err)
	}
}

func lastUser(r fakeapi.Request) string { return fakeapi.LastUserText(r.Body) }
