package e2e

import (
	"context"
	"encoding/json"
	"fmt"
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

// fact is one planted fact: present when every pattern matches the text of
// the request's messages.
type fact struct {
	Name string
	Want []*regexp.Regexp
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

func (f fact) in(text string) bool {
	for _, re := range f.Want {
		if !re.MatchString(text) {
			return false
		}
	}
	return true
}

// scenario is a scripted session with planted facts around one compaction.
type scenario struct {
	Name string
	// Trigger is "auto" (the first After turn compacts: the Before turns
	// end with a reply reporting fullUsage) or "manual" (/compact runs
	// between Before and After).
	Trigger string
	// CompactArgs follow /compact in a manual scenario.
	CompactArgs string
	// Files are written into the project and committed before the session.
	Files          map[string]string
	Env            []string
	AllowedTools   []string
	PermissionMode string
	// Script gives the turns before the compaction and after it for a
	// project at dir (tool inputs need absolute paths).
	Script func(dir string) (before, after []turn)
	// Facts are what the first request after the compaction should carry.
	Facts []fact
}

// play is one run of a scenario: its fake API and its client session.
type play struct {
	sc   scenario
	fake *fakeapi.Server
	s    *claudecode.Session
	// before are the turns before the compaction, after those once it is
	// done (manual) or due (auto).
	before, after []turn
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
		fake.Close()
	})
	s.BaseURL = fake.URL
	s.Env = append(slices.Clone(s.Env), sc.Env...)
	if sc.Trigger == "auto" {
		s.Env = append(s.Env, autoWindow)
	}
	s.AllowedTools = sc.AllowedTools
	s.PermissionMode = sc.PermissionMode
	p := &play{sc: sc, fake: fake, s: s}
	p.before, p.after = sc.Script(s.ProjectDir)
	return p
}

// newProject is a session in a fresh project whose client (and so the
// hooks it runs) keeps cairn's state and data in dirs of the test's own.
func newProject(t *testing.T, files map[string]string) *claudecode.Session {
	t.Helper()
	bin := claudecode.Require(t)
	s := claudecode.NewSession(t, bin, "")
	root := filepath.Dir(s.ProjectDir)
	s.Env = append(s.Env, "XDG_STATE_HOME="+filepath.Join(root, "state"), "XDG_DATA_HOME="+filepath.Join(root, "data"))
	writeProject(t, s, files)
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
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
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

// installCairn runs `cairn install` in the project, as a user would.
func installCairn(t *testing.T, s *claudecode.Session) string {
	t.Helper()
	out, err := runCairn(s, "install")
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
	if p.sc.Trigger == "manual" {
		steps = append(steps, turn{Prompt: strings.TrimSpace("/compact " + p.sc.CompactArgs)})
	}
	return append(steps, p.after...)
}

// step runs one client invocation with its scripted replies. It returns
// an error rather than failing the test so that it can run in a goroutine.
func (p *play) step(tn turn) error {
	p.fake.Enqueue(tn.Replies...)
	res, err := p.s.Turn(context.Background(), tn.Prompt)
	if err != nil {
		return fmt.Errorf("%s: turn %q: %w\n%s", p.sc.Name, tn.Prompt, err, res)
	}
	if n := p.fake.Pending(); n > 0 {
		return fmt.Errorf("%s: turn %q left %d scripted replies unasked for\n%s", p.sc.Name, tn.Prompt, n, res)
	}
	if un := p.fake.Unscripted(); len(un) > 0 {
		return fmt.Errorf("%s: turn %q: %d conversation requests found the script empty (first: #%d)", p.sc.Name, tn.Prompt, len(un), un[0].Seq)
	}
	return nil
}

// run sends every step, the compaction's included.
func (p *play) run() error {
	for _, tn := range p.steps() {
		if err := p.step(tn); err != nil {
			return err
		}
	}
	return nil
}

func (p *play) mustRun(t *testing.T) {
	t.Helper()
	if err := p.run(); err != nil {
		t.Fatal(err)
	}
}

// outcome is what the model was sent around the compaction.
type outcome struct {
	Compaction fakeapi.Request
	// First and Second are the first two conversation requests after the
	// compaction; HasSecond says whether there was a second.
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
	// Present says, fact by fact, whether First carries it.
	Present map[string]bool

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

// CairnText is what cairn added to First: the restore and any steering.
func (o outcome) CairnText() string { return o.Restore + o.Steer }

// count is how many of the scenario's facts present holds.
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
	comps := p.fake.OfKind(fakeapi.Compaction)
	if len(comps) != 1 {
		t.Fatalf("%s: the fake saw %d compaction requests, want 1", p.sc.Name, len(comps))
	}
	o := outcome{Compaction: comps[0]}
	var after []fakeapi.Request
	for _, r := range p.fake.OfKind(fakeapi.Main) {
		if r.Seq > o.Compaction.Seq {
			after = append(after, r)
		}
	}
	if len(after) == 0 {
		t.Fatalf("%s: no conversation request after the compaction", p.sc.Name)
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
	o.Present = p.sc.present(o.FirstText)
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
		o.ArrivedPresent = p.sc.present(text)
		o.ArrivedRestore = findRestore(text)
		break
	}
	return o
}

// hookContext is how the client introduces a hook's additionalContext.
var hookContext = regexp.MustCompile(`(\w+) hook additional context: $`)

func (sc scenario) present(text string) map[string]bool {
	m := map[string]bool{}
	for _, f := range sc.Facts {
		m[f.Name] = f.in(text)
	}
	return m
}

// messagesText is every string in a request's messages (texts, tool
// inputs and results, hook contexts), one per line: what the model reads
// of the conversation, without the system prompt (whose git status lists
// changed files whatever cairn does).
func messagesText(body map[string]any) string {
	var parts []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			parts = append(parts, v)
		case []any:
			for _, x := range v {
				walk(x)
			}
		case map[string]any:
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				walk(v[k])
			}
		}
	}
	walk(body["messages"])
	return strings.Join(parts, "\n")
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

func lastUser(r fakeapi.Request) string { return fakeapi.LastUserText(r.Body) }
