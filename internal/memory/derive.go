package memory

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/cairn-agent/cairn/internal/capture"
	"github.com/cairn-agent/cairn/internal/checkpoint"
	"github.com/cairn-agent/cairn/internal/learn"
	"github.com/cairn-agent/cairn/internal/meter"
	"github.com/cairn-agent/cairn/internal/outcome"
	"github.com/cairn-agent/cairn/internal/pressure"
	"github.com/cairn-agent/cairn/internal/text"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// FromCheckpoint derives the observations of a checkpoint: the checkpoint
// itself (its level in the title), and each decision, error and its fix,
// open and closed item, finding, answer, constraint, build or test
// command and subagent report in it. s is the session the checkpoint was
// built from, or nil: with it, errors come with what fixed them
// (checkpoint.Fixes) and decisions and findings with the time they were
// made; without it, everything is dated at the checkpoint.
//
// The same decision or fix derived again from the session's next
// checkpoint is the same observation, stored once; an error fixed since
// the last checkpoint replaces its unfixed record.
func FromCheckpoint(c checkpoint.Checkpoint, s *transcript.Session) []Observation {
	base := Observation{Project: c.Project, SessionID: c.SessionID, Time: c.CreatedAt}
	if c.ID != 0 {
		base.Source = fmt.Sprintf("checkpoint %d", c.ID)
	}
	at := func(kind, title, body string, files []string) Observation {
		o := base
		o.Kind, o.Title, o.Body, o.Files = kind, title, body, files
		return o
	}
	var noteTimes map[string]time.Time
	branch := ""
	if c.Git != nil {
		branch = c.Git.Branch
	}
	if s != nil {
		noteTimes = make(map[string]time.Time, len(s.Decisions)+len(s.Findings))
		for _, n := range append(append([]transcript.Note(nil), s.Decisions...), s.Findings...) {
			noteTimes[strings.TrimSpace(n.Text)] = n.Time
		}
		if branch == "" {
			branch = s.GitBranch
		}
	}
	timed := func(o Observation, said string) Observation {
		if t, ok := noteTimes[strings.TrimSpace(said)]; ok && !t.IsZero() {
			o.Time = t
		}
		return o
	}
	changed := make([]string, 0, len(c.Files))
	for _, f := range c.Files {
		changed = append(changed, f.Path)
	}

	cp := at(KindCheckpoint, checkpointTitle(c), checkpointBody(c, branch), changed)
	cp.key = checkpointKey(c)
	out := []Observation{cp}

	decisions, findings := c.Decisions, c.Findings
	if s != nil {
		// The session keeps more of them than a checkpoint shows.
		decisions, findings = noteTexts(s.Decisions), noteTexts(s.Findings)
	}
	for _, d := range decisions {
		out = append(out, timed(at(KindDecision, d, d, pathsIn(d, changed)), d))
	}
	if s != nil {
		for _, f := range checkpoint.Fixes(s, nil) {
			out = append(out, fixObservation(base, f))
		}
	} else {
		for _, e := range c.Errors {
			out = append(out, fixObservation(base, checkpoint.Fix{Error: e}))
		}
	}
	for _, it := range c.Open {
		o := at(KindOpenItem, it.Label()+": "+it.Text, it.Text, pathsIn(it.Text, changed))
		o.key = "open " + it.Kind + " " + it.Text
		out = append(out, o)
	}
	for _, it := range c.Closed {
		body := it.Text
		if it.Evidence != "" {
			body += "\nClosed by " + it.ClosedBy + ": " + it.Evidence
		}
		o := at(KindClosedItem, "Closed: "+it.Text, body, pathsIn(body, changed))
		o.key = "closed " + it.Kind + " " + it.Text
		out = append(out, o)
	}
	for _, f := range findings {
		out = append(out, timed(at(KindFinding, f, f, pathsIn(f, changed)), f))
	}
	for _, a := range c.Answers {
		body := "Question: " + a.Question + "\nAnswer: " + a.Answer
		// Who answered, and the answer, in the title: the answer is what is
		// asked after ("which tools did the user choose"). By "user" is a
		// question of the user's that the agent answered.
		who := "The user answered: "
		if a.By == "user" {
			who = "Answered the user: "
		}
		out = append(out, at(KindAnswer, who+text.ClipLine(a.Question, 90)+" "+text.ClipLine(a.Answer, 60), body, pathsIn(body, changed)))
	}
	for _, k := range c.Constraints {
		out = append(out, at(KindConstraint, k, k, nil))
	}
	if s != nil {
		out = append(out, sessionCommands(base, s)...)
		tail := tailOf(s, maxEditScan)
		out = append(out, sessionCounts(base, s, tail)...)
		out = append(out, editsIn(base, s, tail)...)
		out = append(out, sessionPrompts(base, s, tail)...)
		out = append(out, userCommands(base, s, tail)...)
		outs := sessionOutputs(base, s, tail)
		out = append(out, outs...)
		// A run whose output is kept has the agent's words before it
		// there already.
		told := make(map[string]bool, len(outs))
		for _, o := range outs {
			if id, ok := strings.CutPrefix(o.key, "output "); ok {
				told[id] = true
			}
		}
		decided := make(map[string]bool, len(decisions))
		for _, d := range decisions {
			decided[strings.TrimSpace(d)] = true
		}
		out = append(out, sessionReasons(base, s, tail, decided, told)...)
	} else {
		for _, cmd := range c.Commands {
			if o, ok := commandObservation(base, cmd); ok {
				out = append(out, o)
			}
		}
	}
	replies := c.LastReplies
	if s != nil {
		replies = nil
		for _, n := range s.LastTexts {
			if len(strings.TrimSpace(n.Text)) >= minReply {
				replies = append(replies, n.Text)
			}
		}
	}
	said := make(map[string]bool, len(decisions)+len(findings))
	for _, x := range append(append([]string(nil), decisions...), findings...) {
		said[strings.TrimSpace(x)] = true
	}
	for _, r := range replies {
		if said[strings.TrimSpace(r)] {
			continue // a one-sentence reply kept as a decision or a finding already
		}
		o := at(KindReply, r, r, pathsIn(r, changed))
		if s != nil {
			o = timedReply(o, s, r)
		}
		out = append(out, o)
	}
	for _, sub := range c.Subagents {
		asked, said, _ := strings.Cut(sub, ": ")
		out = append(out, at(KindSubagent, "Subagent: "+asked, said, pathsIn(said, changed)))
	}
	return out
}

// minReply is the length from which an assistant's reply says something
// worth keeping: "Done." and "Pushed." are not.
const minReply = 80

// noteTexts are the texts of notes, cleaned and cut as a checkpoint cuts
// its items.
func noteTexts(ns []transcript.Note) []string {
	out := make([]string, 0, len(ns))
	for _, n := range ns {
		if t := strings.TrimSpace(n.Text); t != "" {
			out = append(out, text.Clip(t, 600))
		}
	}
	return out
}

// timedReply dates a reply at the time the session wrote it.
func timedReply(o Observation, s *transcript.Session, r string) Observation {
	for _, n := range s.LastTexts {
		if n.Text == r && !n.Time.IsZero() {
			o.Time = n.Time
		}
	}
	return o
}

// checkpointKey makes a stored checkpoint one observation however often it
// is derived; an unstored one (no ID) is its session, trigger and time.
func checkpointKey(c checkpoint.Checkpoint) string {
	if c.ID != 0 {
		return fmt.Sprintf("checkpoint %d", c.ID)
	}
	return "checkpoint " + c.SessionID + " " + c.Trigger + " " + c.CreatedAt.UTC().Format(time.RFC3339Nano)
}

// checkpointTitle names the level and the trigger, as seed 003's MEM-002
// asks ("Checkpoint L2 at 87% (pressure-L2) · ABC-123: the task"), so that
// a search for "checkpoint L2" finds them.
func checkpointTitle(c checkpoint.Checkpoint) string {
	r := meter.Reading{Tokens: c.Context.Tokens, Window: c.Context.Window, Threshold: c.Context.Threshold}
	pc := pressure.Default()
	pct := pc.Percent(r)
	level := pc.Level(r)
	if n := len(c.Trigger); n >= 2 && c.Trigger[n-2] == 'L' && c.Trigger[n-1] >= '1' && c.Trigger[n-1] <= '3' {
		level = int(c.Trigger[n-1] - '0')
	}
	title := fmt.Sprintf("Checkpoint L%d", level)
	if pct > 0 {
		title += fmt.Sprintf(" at %.0f%%", pct)
	}
	if c.Trigger != "" {
		title += " (" + c.Trigger + ")"
	}
	if c.Project != "" {
		// The project's name: "what was I doing in cairn" finds it.
		title += " in " + path.Base(c.Project)
	}
	return title + " · " + c.Summary()
}

// checkpointBody is what the checkpoint says in short: enough to know
// what the session was doing; the checkpoint itself has the rest.
func checkpointBody(c checkpoint.Checkpoint, branch string) string {
	var b strings.Builder
	line := func(label, s string) {
		if s = strings.TrimSpace(s); s != "" {
			b.WriteString(label + ": " + s + "\n")
		}
	}
	line("Project", c.Project)
	line("Task", text.ClipLine(c.Task.First, 400))
	if n := len(c.Task.Latest); n > 0 {
		line("Latest request", text.ClipLine(c.Task.Latest[n-1], 300))
	}
	line("Tickets", strings.Join(c.Task.Tickets, ", "))
	line("Branch", branch)
	var files []string
	for _, f := range c.Files {
		files = append(files, f.Path)
	}
	line("Files changed", strings.Join(last(files, 20), ", "))
	var cmds []string
	for _, cmd := range last(c.Commands, 5) {
		cmds = append(cmds, "`"+text.ClipLine(cmd.Command, 120)+"` "+commandEnd(cmd))
	}
	line("Commands", strings.Join(cmds, "; "))
	var todos []string
	for _, t := range c.OpenTodos() {
		todos = append(todos, t.Content)
	}
	line("Open todos", strings.Join(todos, "; "))
	line("Next steps", strings.Join(c.NextSteps, "; "))
	if n := len(c.LastReplies); n > 0 {
		line("Last reply", text.ClipLine(c.LastReplies[n-1], 300))
	}
	return b.String()
}

func last[T any](xs []T, n int) []T {
	if len(xs) > n {
		return xs[len(xs)-n:]
	}
	return xs
}

// commandEnd says how a command last ended, in words.
func commandEnd(c checkpoint.Command) string {
	o := c.Outcome
	switch {
	case o != nil && o.Status != outcome.Unknown:
		s := o.Status.String()
		if o.Counts != "" {
			s += " (" + o.Counts + ")"
		}
		return s
	case o != nil && o.Hidden != "" && outcome.StatusHidden(c.Command):
		return "status hidden by " + map[string]string{outcome.HiddenPipe: "a pipe", outcome.HiddenList: "a later command", outcome.HiddenOr: "||"}[o.Hidden]
	case c.ExitCode != nil:
		return fmt.Sprintf("exit %d", *c.ExitCode)
	}
	return "ended without a verdict"
}

// commandObservation keeps the commands that build, test or check (those
// outcome recognises a tool in), which answer "how are the tests run
// here"; git, ls and the like are not worth remembering.
func commandObservation(base Observation, c checkpoint.Command) (Observation, bool) {
	if c.Outcome == nil || c.Outcome.Tool == "" {
		return Observation{}, false
	}
	return commandOf(base, c), true
}

// commandOf is a command and how it ended. One per command line and
// outcome: the latest run replaces the earlier ones (its counts).
func commandOf(base Observation, c checkpoint.Command) Observation {
	o := base
	o.Kind = KindCommand
	end := commandEnd(c)
	what := "Command"
	if c.Outcome != nil && c.Outcome.Tool != "" {
		what = c.Outcome.Tool
	}
	if c.Description != "" {
		what = c.Description
	}
	o.Title = what + ": `" + text.ClipLine(c.Command, 100) + "` " + end
	o.Body = "`" + c.Command + "`"
	if c.Description != "" {
		o.Body += " (" + c.Description + ")"
	}
	o.Body += " " + end
	if c.Runs > 1 {
		o.Body += fmt.Sprintf(", run %d times", c.Runs)
	}
	o.Files = pathsIn(c.Command, nil)
	status := "unknown"
	if c.Outcome != nil {
		status = c.Outcome.Status.String()
	}
	o.key = "command " + status + " " + c.Command
	o.replace = true
	return o
}

// sessionCommands are the session's shell commands worth remembering:
// the builds, tests and checks, and the other commands that changed
// something (an install, a commit, a migration), each once with how it
// last ended. Commands that only look (ls, cat, git status, grep) are
// left out.
func sessionCommands(base Observation, s *transcript.Session) []Observation {
	var out []Observation
	for _, tc := range s.ToolCalls {
		if tc.Name != "Bash" || tc.Command == "" || !tc.Done || tc.Sidechain || onlyLooks(tc.Command) {
			continue
		}
		c := checkpoint.Command{Command: tc.Command, Description: tc.Description, ExitCode: tc.ExitCode, Runs: 1, Outcome: tc.Outcome}
		o := commandOf(base, c)
		if !tc.Time.IsZero() {
			o.Time = tc.Time
		}
		// The latest run of a command stands for it (its counts): an
		// earlier one in the same list would replace it back each time.
		if i := slices.IndexFunc(out, func(p Observation) bool { return p.key == o.key }); i >= 0 {
			out = slices.Delete(out, i, i+1)
		}
		out = append(out, o)
	}
	return out
}

// countContext is how many of the calls that changed something before a
// counted run, and after it, its observation names: what the run came
// after ("once gqc.7 was done") is said by the calls around it, not by it.
const countBefore, countAfter = 5, 3

// sessionCounts are the session's runs that reported counts (tests passed
// and failed, issues found), one observation each: a command's own
// observation keeps only its latest counts, and a question asks for the
// count at a moment ("how many tests passed after the badges were
// added"). Each names the calls that changed something around it (their
// descriptions, the files edited) for the moment it was taken at.
func sessionCounts(base Observation, s *transcript.Session, at func(int) []byte) []Observation {
	var out []Observation
	for i, tc := range s.ToolCalls {
		if tc.Name != "Bash" || !tc.Done || tc.Sidechain || tc.Outcome == nil ||
			!strings.ContainsAny(tc.Outcome.Counts, "0123456789") {
			continue // "no issues" is the command's own observation
		}
		o := base
		o.Kind = KindCount
		if !tc.Time.IsZero() {
			o.Time = tc.Time
		}
		c := checkpoint.Command{Command: tc.Command, ExitCode: tc.ExitCode, Outcome: tc.Outcome}
		o.Title = tc.Outcome.Counts + ": `" + text.ClipLine(tc.Command, 80) + "` " + commandEnd(c)
		var b strings.Builder
		b.WriteString("`" + tc.Command + "`")
		if tc.Description != "" {
			b.WriteString(" (" + tc.Description + ")")
		}
		b.WriteString(" " + commandEnd(c) + "\n")
		// What the agent said just before the run and just after it names
		// the moment in the session's own words ("all regression tests
		// added", "309 tests (was 297)"), which the calls around it do not.
		if said := agentBefore(at, tc.Line); said != "" {
			b.WriteString("Before, the agent said: " + text.Clip(said, 300) + "\n")
		}
		if said := agentAfter(at, tc.Line); said != "" {
			b.WriteString("After, the agent said: " + text.Clip(said, 300) + "\n")
		}
		before, after := callsAround(s.ToolCalls, i)
		if len(before) > 0 {
			b.WriteString("After: " + strings.Join(before, "; ") + "\n")
		}
		if len(after) > 0 {
			b.WriteString("Then: " + strings.Join(after, "; ") + "\n")
		}
		o.Body = b.String()
		o.Files = pathsIn(tc.Command, nil)
		o.key = "count " + tc.Command + " " + tc.Time.UTC().Format(time.RFC3339Nano)
		// A later checkpoint sees the calls after the run that an earlier
		// one could not.
		o.replace = len(after) < countAfter
		out = append(out, o)
	}
	return out
}

// callsAround says what the calls that changed something just before the
// i-th call and just after it did, in order: a command's description (or
// the command), an edited file's name.
func callsAround(calls []transcript.ToolCall, i int) (before, after []string) {
	say := func(tc transcript.ToolCall) string {
		switch {
		case tc.Sidechain || !tc.Done || tc.IsError:
		case tc.Name == "Bash" && tc.Command != "" && !onlyLooks(tc.Command):
			if tc.Description != "" {
				return tc.Description + ": `" + text.ClipLine(tc.Command, 160) + "`"
			}
			return "`" + text.ClipLine(tc.Command, 160) + "`"
		case editTool(tc.Name) && tc.FilePath != "":
			return "edited " + path.Base(tc.FilePath)
		}
		return ""
	}
	for j := i - 1; j >= 0 && len(before) < countBefore; j-- {
		if w := say(calls[j]); w != "" && !slices.Contains(before, w) {
			before = append(before, w)
		}
	}
	slices.Reverse(before)
	for j := i + 1; j < len(calls) && len(after) < countAfter; j++ {
		if w := say(calls[j]); w != "" && !slices.Contains(after, w) {
			after = append(after, w)
		}
	}
	return before, after
}

// looking are the programs (and git and bd subcommands) that only read.
var looking = wordSet(`ls cat head tail grep egrep rg find pwd wc which file stat tree du df ps echo printf
	sleep date env printenv jq sort uniq cut awk less more true false test
	git-status git-diff git-log git-show git-branch git-ls-files git-rev-parse git-remote git-blame
	bd-show bd-list bd-ready bd-prime bd-stats`)

// onlyLooks says whether every simple command of a line only reads.
func onlyLooks(cmd string) bool {
	works := outcome.Works(cmd)
	if len(works) == 0 {
		return true
	}
	for _, w := range works {
		if !looking()[strings.ReplaceAll(w, " ", "-")] && !looking()[strings.Fields(w)[0]] {
			return false
		}
	}
	return true
}

// fixObservation is an error and what fixed it. Its key is the failure
// (tool, subject, message, time), so that the unfixed record a checkpoint
// made is replaced by the fixed one of a later checkpoint.
func fixObservation(base Observation, f checkpoint.Fix) Observation {
	o := base
	o.Kind = KindErrorFix
	if !f.Time.IsZero() {
		o.Time = f.Time
	}
	e := f.Error
	first := text.ClipLine(e.Message, 120)
	switch {
	case e.Resolved && len(f.Files) > 0:
		o.Title = "Fixed in " + strings.Join(shortPaths(f.Files, 3), ", ") + ": " + first
	case e.Resolved, len(f.Files) > 0:
		o.Title = "Fixed: " + first
	default:
		o.Title = "Not fixed: " + first
	}
	var b strings.Builder
	what := e.Tool
	if e.Subject != "" {
		what += " `" + e.Subject + "`"
	}
	fmt.Fprintf(&b, "%s failed", what)
	if e.Times > 0 {
		fmt.Fprintf(&b, " (%d times)", e.Times+1)
	}
	b.WriteString(": " + e.Message + "\n")
	if len(f.Files) > 0 {
		b.WriteString("Fixed by changing " + strings.Join(f.Files, ", ") + ".\n")
	}
	switch {
	case f.Passed != "":
		b.WriteString("Then `" + f.Passed + "` succeeded.\n")
	case e.Resolved:
		b.WriteString("A later attempt succeeded.\n")
	case len(f.Files) == 0:
		b.WriteString("Not fixed when the checkpoint was taken.\n")
	}
	o.Body = b.String()
	o.Files = f.Files
	if e.Tool != "Bash" && e.Subject != "" {
		o.Files = append([]string{e.Subject}, o.Files...)
	}
	stamp := ""
	if !f.Time.IsZero() {
		stamp = f.Time.UTC().Format(time.RFC3339Nano)
	}
	o.key = "error " + e.Tool + " " + e.Subject + " " + e.Message + " " + stamp
	o.replace = true
	return o
}

// shortPaths are the base names of at most n paths.
func shortPaths(ps []string, n int) []string {
	var out []string
	for _, p := range ps[:min(n, len(ps))] {
		out = append(out, path.Base(p))
	}
	if len(ps) > n {
		out = append(out, fmt.Sprintf("%d more", len(ps)-n))
	}
	return out
}

// pathsIn finds the file paths a sentence names: the changed files it
// mentions (by path or base name), and words shaped like a path (a slash,
// or a name with a known extension).
func pathsIn(s string, changed []string) []string {
	var out []string
	add := func(p string) {
		for _, q := range out {
			if q == p {
				return
			}
		}
		if len(out) < 8 {
			out = append(out, p)
		}
	}
	for _, w := range strings.Fields(s) {
		w = strings.Trim(w, "`'\"()[]{}<>,;:!?*")
		if strings.HasSuffix(w, "...") {
			continue // a Go package pattern (./internal/...), not a file
		}
		w = strings.TrimSuffix(w, ".")
		if w == "" || strings.Contains(w, "://") || strings.HasPrefix(w, "-") {
			continue
		}
		matched := false
		for _, c := range changed {
			if w == c || w == path.Base(c) || strings.HasSuffix(c, "/"+w) {
				add(c)
				matched = true
				break
			}
		}
		if !matched && pathShaped(w) {
			add(w)
		}
	}
	return out
}

// knownExtension says whether ext (without its dot) is a source or
// document file's. (A switch, not a package-level map: Go builds those in
// every process at start, the hooks' included.)
func knownExtension(ext string) bool {
	switch ext {
	case "go", "ex", "exs", "heex", "eex", "js", "jsx", "ts", "tsx", "mjs", "py", "rb", "rs", "java", "kt", "c",
		"h", "cc", "cpp", "hpp", "cs", "swift", "php", "sh", "sql", "md", "json", "yaml", "yml", "toml", "lock",
		"css", "scss", "html", "vue", "svelte", "proto", "txt", "conf", "ini", "mod", "sum", "jsonl", "tf",
		"gradle", "xml", "env":
		return true
	}
	return false
}

// pathShaped says whether a word reads as a file path: dir/name, or a
// name with an extension cairn knows. "e.g" and "v1.2" are not.
func pathShaped(w string) bool {
	if len(w) < 3 || len(w) > 200 {
		return false
	}
	for _, r := range w {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-~@+", r)) {
			return false
		}
	}
	ext := ""
	if i := strings.LastIndexByte(w, '.'); i > 0 && i < len(w)-1 {
		ext = strings.ToLower(w[i+1:])
	}
	if knownExtension(ext) {
		return true
	}
	return strings.Contains(strings.Trim(w, "/"), "/") && strings.IndexFunc(w, func(r rune) bool { return r >= 'a' && r <= 'z' }) >= 0
}

// FromCompaction is a compaction of the context with the summary Claude
// Code wrote for it (the session's excerpt, or the whole summary the
// PostCompact hook kept): the compaction itself, then the summary in
// pieces, one observation for each item of each numbered section ("Errors
// and fixes: ...", "All user messages: ...", a file of "Files and Code
// Sections") and of the analysis before them. A whole summary runs to 15
// KB and more, past what one observation keeps, and as one text it
// matches every question about its session; an item answers a question
// about its subject, and the section's heading says what it is (an error
// and its fix, the user's own words).
func FromCompaction(project, sessionID string, c transcript.Compaction) []Observation {
	title := fmt.Sprintf("Compaction (%s", orDefault(c.Trigger, "unknown trigger"))
	if c.PreTokens > 0 {
		title += ", " + meter.Thousands(c.PreTokens)
		if c.PostTokens > 0 {
			title += " → " + meter.Thousands(c.PostTokens)
		}
		title += " tokens"
	}
	title += ")"
	body := c.Summary
	if strings.TrimSpace(body) == "" {
		body = "No summary was kept."
	}
	key := "compaction " + sessionID + " " + c.Time.UTC().Format(time.RFC3339Nano)
	head, sections := summarySections(body)
	o := Observation{Project: project, SessionID: sessionID, Time: c.Time, Kind: KindCompaction, Title: title, Body: head}
	o.key = key
	o.replace = true // a whole summary replaces the excerpt
	if len(sections) == 0 {
		return []Observation{o}
	}
	// The compaction itself says what the session was for; the analysis's
	// steps and the sections' items follow.
	lead, steps := listItems(head)
	// The first section (Claude Code's "Primary Request and Intent") says
	// what the session was for: the compaction's own body.
	first := sections[0]
	o.Body = strings.TrimSpace(lead + "\n" + first.heading + ": " + strings.TrimSpace(first.text))
	out := []Observation{o}
	piece := func(heading, n string, i int, item string) {
		first, _, _ := strings.Cut(item, "\n")
		if _, t, ok := listMark(first); ok {
			first = t
		}
		po := o
		po.Title = heading + ": " + strings.TrimSpace(first)
		po.Body = item
		po.Files = pathsIn(item, nil)
		// Numbered as the summary has them: an item the excerpt cut is
		// replaced by the whole summary's.
		po.key = fmt.Sprintf("%s %s item %d", key, n, i)
		out = append(out, po)
	}
	for i, st := range steps {
		piece(title+" analysis", "analysis", i, st)
	}
	for _, sec := range sections[1:] {
		secLead, items := listItems(sec.text)
		if secLead != "" {
			items = append([]string{secLead}, items...)
		}
		for i, it := range items {
			piece(sec.heading, "section "+sec.number, i, it)
		}
	}
	return out
}

// listMark reads a list item's mark at a line's start ("- ", "* ",
// "12. "): the indentation before it, and the text after it.
func listMark(l string) (indent int, rest string, ok bool) {
	t := strings.TrimLeft(l, " \t")
	indent = len(l) - len(t)
	if r, ok := strings.CutPrefix(t, "- "); ok {
		return indent, r, true
	}
	if r, ok := strings.CutPrefix(t, "* "); ok {
		return indent, r, true
	}
	if i := strings.Index(t, ". "); i >= 1 && i <= 3 && strings.IndexFunc(t[:i], func(r rune) bool { return r < '0' || r > '9' }) < 0 {
		return indent, t[i+2:], true
	}
	return indent, "", false
}

// listItems splits text at its outermost list items ("- ", "* ", "12. "
// at the least indentation any of them has): what comes before the first,
// and the items, each with its nested lines. Text with fewer than two
// items is all lead.
func listItems(s string) (string, []string) {
	lines := strings.Split(s, "\n")
	indent := -1
	n := 0
	for _, l := range lines {
		if d, _, ok := listMark(l); ok && (indent < 0 || d < indent) {
			indent = d
		}
	}
	if indent < 0 {
		return strings.TrimSpace(s), nil
	}
	var lead []string
	var items []string
	var cur []string
	flush := func() {
		if t := strings.TrimSpace(strings.Join(cur, "\n")); t != "" {
			items = append(items, t)
		}
		cur = nil
	}
	for _, l := range lines {
		if d, _, ok := listMark(l); ok && d == indent {
			flush()
			n++
		}
		if n == 0 {
			lead = append(lead, l)
		} else {
			cur = append(cur, l)
		}
	}
	flush()
	if len(items) < 2 {
		return strings.TrimSpace(s), nil
	}
	return strings.TrimSpace(strings.Join(lead, "\n")), items
}

// summarySection is one numbered section of a compaction summary.
type summarySection struct {
	number, heading, text string
}

// summarySections splits a compaction summary into what comes before its
// numbered sections (Claude Code's analysis) and the sections: "1. Primary
// Request and Intent:", "4. Errors and fixes:", each heading at the start
// of a line after the summary's own start ("Summary:" or "<summary>"), so
// that the analysis's numbered steps are not taken for sections. A
// summary without that shape is all head.
func summarySections(s string) (string, []summarySection) {
	at := -1
	for _, mark := range []string{"\n<summary>", "\nSummary:"} {
		if i := strings.Index(s, mark); i >= 0 && (at < 0 || i < at) {
			at = i
		}
	}
	if strings.HasPrefix(s, "<summary>") || strings.HasPrefix(s, "Summary:") {
		at = 0
	}
	if at < 0 {
		return s, nil
	}
	head := strings.TrimSpace(strings.NewReplacer("<analysis>", "", "</analysis>", "").Replace(s[:at]))
	var out []summarySection
	var cur *summarySection
	var text []string
	flush := func() {
		if cur != nil {
			// Blank lines go, not the first line's indentation: it is
			// what tells a list's items from their nested lines.
			cur.text = strings.TrimRight(strings.TrimLeft(strings.Join(text, "\n"), "\n"), " \t\n")
			if cur.text != "" {
				out = append(out, *cur)
			}
		}
		text = nil
	}
	for _, l := range strings.Split(s[at:], "\n") {
		// PostCompact's summary opens and closes on its sections' lines.
		l = strings.TrimSuffix(strings.TrimPrefix(l, "<summary>"), "</summary>")
		if n, h, rest, ok := sectionHeading(l); ok {
			flush()
			cur = &summarySection{number: n, heading: h}
			if rest != "" {
				text = append(text, rest)
			}
			continue
		}
		if cur != nil {
			text = append(text, l)
		}
	}
	flush()
	if len(out) == 0 {
		return s, nil
	}
	return head, out
}

// sectionHeading reads "4. Errors and fixes:" (and text after the colon)
// at a line's start: a number, a heading of a few words, a colon.
func sectionHeading(l string) (number, heading, rest string, ok bool) {
	dot := strings.Index(l, ". ")
	if dot < 1 || dot > 2 || strings.IndexFunc(l[:dot], func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
		return "", "", "", false
	}
	h, rest, found := strings.Cut(l[dot+2:], ":")
	h = strings.TrimSpace(h)
	if !found || h == "" || len(strings.Fields(h)) > 6 || strings.ContainsAny(h, "*`\"'") || h[0] < 'A' || h[0] > 'Z' {
		return "", "", "", false
	}
	return l[:dot], h, strings.TrimSpace(rest), true
}

// FromHandoff is a handoff document (internal/handoff) written at path.
// Its title is the document's first heading, else its file name.
func FromHandoff(project, sessionID, docPath, doc string, at time.Time) Observation {
	title := ""
	for _, l := range strings.Split(doc, "\n") {
		if h, ok := strings.CutPrefix(strings.TrimSpace(l), "# "); ok {
			// internal/handoff's heading is "Session Handoff: the task".
			h = strings.TrimPrefix(strings.TrimPrefix(h, "Session "), "Handoff")
			title = strings.TrimSpace(strings.TrimPrefix(h, ":"))
			break
		}
	}
	if title == "" {
		title = path.Base(docPath)
	}
	o := Observation{Project: project, SessionID: sessionID, Time: at, Kind: KindHandoff, Title: "Handoff: " + title,
		Body: doc, Source: docPath, Files: pathsIn(doc, nil)}
	o.key = "handoff " + docPath
	o.replace = true
	return o
}

// FromLearning is an entry of seed 001's Stock: what outlived a session.
func FromLearning(project string, e learn.Entry, at time.Time) Observation {
	title := e.Title
	if title == "" {
		title = e.Heading
	}
	body := e.Body
	if e.Phase != "" {
		body = "Phase: " + e.Phase + "\n" + body
	}
	o := Observation{Project: project, Time: at, Kind: KindLearning, Title: title, Body: body, Source: e.File + "#" + e.ID,
		Files: pathsIn(e.Body, nil)}
	o.key = "learning " + e.File + " " + e.ID
	o.replace = true
	return o
}

// FromCapture is a reviewed compaction capture (seed 004): the memory its
// review wrote, for the capture's session.
func FromCapture(project string, c capture.Capture, m capture.Memory) Observation {
	var b strings.Builder
	line := func(label, s string) {
		if s = strings.TrimSpace(s); s != "" {
			b.WriteString(label + ": " + s + "\n")
		}
	}
	line("Summary", m.Summary)
	line("Goal", m.Goal)
	for _, l := range m.Learnings {
		line("Learning", l)
	}
	for _, q := range m.OpenQuestions {
		line("Open question", q)
	}
	line("Confidence", m.Confidence)
	title := m.Title
	if title == "" {
		title = m.Goal
	}
	at := c.Time
	o := Observation{Project: project, SessionID: c.SessionID, Time: at, Kind: KindCapture, Title: "Capture: " + title,
		Body: b.String(), Files: m.KeyFiles, Source: c.Path}
	o.key = "capture " + c.Path
	o.replace = true
	return o
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
