// Package handoff writes handoff documents: a Markdown file in the project,
// under .claude/handoffs/, that tells the next session (or a person) what
// the last one was doing, why it stopped, what it changed, what it decided,
// what comes next, what to re-read and how much context was left. It is
// rendered from a checkpoint, in the format of seed 003's "Handoff Document
// Enhancement": YAML front matter, then fixed sections.
//
// Unlike a checkpoint, which lives in cairn's database, a handoff is a file
// the user can read, edit, commit or paste. The package also points a
// session at the newest handoff it has not been shown, and provides the
// /handoff and /checkpoint slash commands (commands.go).
package handoff

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/cairn-agent/cairn/internal/checkpoint"
	"github.com/cairn-agent/cairn/internal/git"
	"github.com/cairn-agent/cairn/internal/meter"
	"github.com/cairn-agent/cairn/internal/pressure"
	"github.com/cairn-agent/cairn/internal/redact"
	"github.com/cairn-agent/cairn/internal/text"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// Dir is where handoffs live, relative to the project.
const Dir = ".claude/handoffs"

// Input is what a handoff needs besides the checkpoint.
type Input struct {
	// Reason is why the handoff is written, in the user's words; empty to
	// explain the checkpoint's trigger instead. It is redacted here.
	Reason string
	// Project is the project's directory, where CLAUDE.md is looked for;
	// empty means the checkpoint's project.
	Project string
	// Now is the clock; nil means time.Now. The handoff is dated by it.
	Now func() time.Time
	// Loc is the time zone of the date, the time and the file name; nil
	// means time.Local.
	Loc *time.Location
	// Level is the pressure level (1-3) whose crossing wrote the handoff,
	// 0 when none did. When 0, a trigger ending in L1, L2 or L3
	// ("pressure-L2") names the level.
	Level int
	// Pressure is what the levels' percentages are of; the zero value
	// means pressure.Default().
	Pressure pressure.Config
	// Ticket is the ticket's state as its tracker last told it (seed
	// 003's HND-003), "" when unknown.
	Ticket string
}

func (in Input) now() time.Time {
	t := time.Now()
	if in.Now != nil {
		t = in.Now()
	}
	loc := in.Loc
	if loc == nil {
		loc = time.Local
	}
	return t.In(loc)
}

func (in Input) project(c checkpoint.Checkpoint) string {
	if in.Project != "" {
		return in.Project
	}
	return c.Project
}

// Limits that keep a handoff readable in one screenful or two.
const (
	maxCommands  = 10
	maxHeadings  = 30
	maxSpecs     = 12
	maxLastReply = 600
	// claudeMDLimit bounds how much of CLAUDE.md is scanned for headings.
	claudeMDLimit = 256 << 10
)

// Render is the handoff document for c.
func Render(c checkpoint.Checkpoint, in Input) string {
	now := in.now()
	project := in.project(c)
	var b strings.Builder

	level := in.Level
	if level == 0 {
		level = triggerLevel(c.Trigger)
	}
	pc := in.Pressure
	if pc.Base == "" {
		pc = pressure.Default()
	}
	reading := meter.Reading{Tokens: c.Context.Tokens, Window: c.Context.Window, Threshold: c.Context.Threshold}

	// Front matter.
	b.WriteString("---\n")
	field := func(k, v string) { fmt.Fprintf(&b, "%s: %s\n", k, yamlScalar(v)) }
	field("session_date", now.Format("2006-01-02"))
	field("session_time", now.Format("15:04"))
	field("session_id", c.SessionID)
	if c.Client != "" {
		field("client", c.Client)
	}
	branch := ""
	if c.Git != nil {
		branch = c.Git.Branch
	}
	field("branch", branch)
	field("issues", strings.Join(c.Task.Tickets, ", "))
	if c.ID > 0 {
		fmt.Fprintf(&b, "checkpoint: %d\n", c.ID)
	}
	field("checkpoint_trigger", triggerField(c.Trigger, level, pc, reading))
	field("context_at_checkpoint", contextField(c.Context))
	b.WriteString("---\n\n")

	title := "Session Handoff"
	if s := taskTitle(c.Task); s != "" {
		title += ": " + s
	}
	fmt.Fprintf(&b, "# %s\n", title)

	section := func(name string) { fmt.Fprintf(&b, "\n## %s\n", name) }

	section("Checkpoint Reason")
	why := explainTrigger(c.Trigger, c.Client, level, pc, reading)
	if r := strings.TrimSpace(redact.String(in.Reason)); r != "" {
		b.WriteString(r + "\n\n" + why + "\n")
	} else {
		b.WriteString(why + "\n")
	}

	section("Current Task")
	if len(c.Task.Tickets) > 0 {
		fmt.Fprintf(&b, "- **Ticket**: %s\n", strings.Join(c.Task.Tickets, ", "))
	}
	if t := strings.TrimSpace(redact.String(in.Ticket)); t != "" {
		fmt.Fprintf(&b, "- **Tracker**: %s\n", t)
	}
	if c.Task.First != "" {
		fmt.Fprintf(&b, "- **Asked first**: %s\n", quote(c.Task.First))
	}
	for i, p := range c.Task.Latest {
		label := "Then"
		if i == len(c.Task.Latest)-1 {
			label = "Latest request"
		}
		fmt.Fprintf(&b, "- **%s**: %s\n", label, quote(p))
	}
	if len(c.Constraints) > 0 {
		b.WriteString("- **Constraints the user set**:\n")
		for _, s := range c.Constraints {
			fmt.Fprintf(&b, "  - %s\n", quote(s))
		}
	}
	if len(c.Open) > 0 {
		b.WriteString("- **Left open**:\n")
		for _, o := range c.Open {
			fmt.Fprintf(&b, "  - (%s) %s\n", o.Label(), text.ClipLine(o.Text, 300))
		}
	}
	if c.Task.First == "" && len(c.Task.Latest) == 0 {
		b.WriteString("No request was recorded.\n")
	}

	section("Progress and Todos")
	if len(c.Todos) == 0 {
		b.WriteString("No todo list was kept.\n")
	}
	for _, t := range c.Todos {
		switch t.Status {
		case "completed":
			fmt.Fprintf(&b, "- [x] %s\n", text.ClipLine(t.Content, 300))
		case "pending", "":
			fmt.Fprintf(&b, "- [ ] %s\n", text.ClipLine(t.Content, 300))
		default:
			fmt.Fprintf(&b, "- [ ] %s (%s)\n", text.ClipLine(t.Content, 300), strings.ReplaceAll(t.Status, "_", " "))
		}
	}
	if len(c.Commands) > 0 {
		b.WriteString("\nLast commands:\n")
		cmds := c.Commands
		if len(cmds) > maxCommands {
			fmt.Fprintf(&b, "- (%d earlier)\n", len(cmds)-maxCommands)
			cmds = cmds[len(cmds)-maxCommands:]
		}
		for _, cm := range cmds {
			fmt.Fprintf(&b, "- %s\n", commandLine(cm))
		}
	}
	if c.LastReply != "" {
		fmt.Fprintf(&b, "\nWhere things stood (the session's last message): %s\n", quote(text.Clip(text.ClipLine(c.LastReply, maxLastReply), maxLastReply)))
	}

	section("Files Modified")
	files := modified(c)
	if len(files) == 0 {
		b.WriteString("None.\n")
	}
	for _, f := range files {
		fmt.Fprintf(&b, "- %s\n", f)
	}
	if c.Git != nil {
		b.WriteString("\n" + gitLine(c.Git) + "\n")
	} else if c.GitError != "" {
		fmt.Fprintf(&b, "\nGit was not read: %s\n", c.GitError)
	}

	section("Decisions")
	if len(c.Decisions) == 0 {
		b.WriteString("None stated.\n")
	}
	for _, d := range c.Decisions {
		fmt.Fprintf(&b, "- %s\n", text.ClipLine(d, 400))
	}

	section("Errors and Resolutions")
	if len(c.Errors) == 0 {
		b.WriteString("No tool call failed.\n")
	}
	for _, e := range c.Errors {
		fmt.Fprintf(&b, "- %s\n", errorLine(e))
	}

	section("Next Steps")
	switch {
	case len(c.NextSteps) > 0:
		for i, s := range c.NextSteps {
			fmt.Fprintf(&b, "%d. %s\n", i+1, text.ClipLine(s, 400))
		}
	case len(c.OpenTodos()) > 0:
		b.WriteString("None were stated; the open todos above are the work left.\n")
	case c.Task.First == "" && len(c.Task.Latest) == 0:
		b.WriteString("None were stated.\n")
	default:
		b.WriteString("None were stated; continue from the latest request above.\n")
	}

	section("Context to Reload")
	reload := reloadLines(project, c)
	for _, l := range reload {
		b.WriteString(l + "\n")
	}
	if c.ID > 0 {
		fmt.Fprintf(&b, "- **Full checkpoint**: `cairn show checkpoint %d`\n", c.ID)
	}
	if len(reload) == 0 && c.ID <= 0 {
		b.WriteString("Nothing found to re-read: no CLAUDE.md, and no spec, plan or design document was read.\n")
	}

	section("Remaining Context Budget")
	b.WriteString(budgetLine(c.Context) + "\n")
	return b.String()
}

// Write renders the handoff and writes it to
// <project>/.claude/handoffs/YYYY-MM-DD-HHMM.md, adding -2, -3... when
// that name is taken. It never replaces an existing file: the complete
// document is written to a temporary file and then linked (or, where the
// file system has no hard links, renamed) to a free name.
func Write(project string, c checkpoint.Checkpoint, in Input) (string, error) {
	if in.Project == "" {
		in.Project = project
	}
	dir := filepath.Join(project, filepath.FromSlash(Dir))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("write handoff: %w", err)
	}
	text := Render(c, in)
	tmp, err := os.CreateTemp(dir, ".handoff-*.tmp")
	if err != nil {
		return "", fmt.Errorf("write handoff: %w", err)
	}
	name := tmp.Name()
	defer os.Remove(name)
	_, err = tmp.WriteString(text)
	if err == nil {
		err = tmp.Chmod(0o644)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("write handoff: %w", err)
	}
	base := in.now().Format("2006-01-02-1504")
	for n := 1; n <= 1000; n++ {
		path := filepath.Join(dir, fileName(base, n))
		err := os.Link(name, path)
		if err == nil {
			return path, nil
		}
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		// No hard links here: a rename cannot refuse to replace, so look
		// first; two writers in the same second may still collide.
		if _, serr := os.Lstat(path); !errors.Is(serr, fs.ErrNotExist) {
			continue
		}
		if err := os.Rename(name, path); err != nil {
			return "", fmt.Errorf("write handoff: %w", err)
		}
		return path, nil
	}
	return "", fmt.Errorf("write handoff: every name from %s is taken", fileName(base, 1))
}

func fileName(base string, n int) string {
	if n <= 1 {
		return base + ".md"
	}
	return fmt.Sprintf("%s-%d.md", base, n)
}

// triggerLevel reads a pressure level from a trigger such as "pressure-L2".
func triggerLevel(trigger string) int {
	n := len(trigger)
	if n < 2 || (trigger[n-2] != 'L' && trigger[n-2] != 'l') || trigger[n-1] < '1' || trigger[n-1] > '3' {
		return 0
	}
	if n > 2 && isAlnum(trigger[n-3]) {
		return 0
	}
	return int(trigger[n-1] - '0')
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func baseName(b pressure.Base) string {
	if b == pressure.OfWindow {
		return "of the window"
	}
	return "of the auto-compact threshold"
}

func triggerField(trigger string, level int, pc pressure.Config, r meter.Reading) string {
	if level > 0 {
		return fmt.Sprintf("%s (context at %.0f%% %s)", pressure.Name(level), pc.Percent(r), baseName(pc.Base))
	}
	if trigger == "" {
		return "unknown"
	}
	return trigger
}

func explainTrigger(trigger, client string, level int, pc pressure.Config, r meter.Reading) string {
	if level > 0 {
		what := map[int]string{1: "time to finish the current task", 2: "time to write a handoff", 3: "the emergency level just before auto-compaction"}[level]
		return fmt.Sprintf("Context reached %.1f%% %s, pressure level %s (%s), so cairn wrote this handoff.", pc.Percent(r), baseName(pc.Base), pressure.Name(level), what)
	}
	switch trigger {
	case "handoff":
		return "Requested with `cairn handoff` or /handoff."
	case "manual":
		return "Taken with `cairn checkpoint`."
	case "precompact-auto":
		who := "The client"
		if client != "" {
			who = transcript.ClientTitle(client)
		}
		return who + " was about to compact the context automatically."
	case "precompact-manual":
		return "The context was about to be compacted on request (/compact)."
	case "session-end":
		return "The session ended."
	case "":
		return "No reason was recorded."
	}
	return fmt.Sprintf("Checkpoint trigger: %s.", trigger)
}

func contextField(x checkpoint.Context) string {
	if x.Window <= 0 {
		return "not measured"
	}
	s := fmt.Sprintf("%s tokens (%.1f%% of the %s window", meter.Thousands(x.Tokens), x.Percent, meter.Thousands(x.Window))
	if x.Threshold > 0 {
		s += fmt.Sprintf(", %.1f%% of auto-compact at %s", pct(x.Tokens, x.Threshold), meter.Thousands(x.Threshold))
	}
	return s + ")"
}

func budgetLine(x checkpoint.Context) string {
	switch {
	case x.Window <= 0:
		return "Not measured: the session had no usage figures yet."
	case x.Threshold > 0:
		left := max(x.Threshold-x.Tokens, 0)
		used := pct(x.Tokens, x.Threshold)
		return fmt.Sprintf("About %.1f%% (~%s tokens) remained before auto-compaction at %s tokens; %.1f%% was used (%.1f%% of the %s-token window).",
			max(100-used, 0), meter.Thousands(left), meter.Thousands(x.Threshold), used, x.Percent, meter.Thousands(x.Window))
	default:
		left := max(x.Window-x.Tokens, 0)
		return fmt.Sprintf("Auto-compaction is off: about %.1f%% (~%s tokens) of the %s-token window remained; %.1f%% was used.",
			max(100-x.Percent, 0), meter.Thousands(left), meter.Thousands(x.Window), x.Percent)
	}
}

// taskTitle names the task for the heading: the first sentence of the
// first request, after its ticket when the sentence does not name it.
func taskTitle(t checkpoint.Task) string {
	s := t.First
	if s == "" && len(t.Latest) > 0 {
		s = t.Latest[len(t.Latest)-1]
	}
	s = text.ClipLine(s, 1000)
	for i := 0; i+1 < len(s); i++ {
		if (s[i] == '.' || s[i] == '?' || s[i] == '!') && s[i+1] == ' ' {
			s = s[:i]
			break
		}
	}
	s = strings.TrimRight(s, ".!? ")
	if n := len(t.Tickets); n > 0 && !strings.Contains(s, t.Tickets[n-1]) {
		s = strings.TrimSuffix(t.Tickets[n-1]+": "+s, ": ")
	}
	return text.Clip(s, 100)
}

func pct(n, of int64) float64 {
	if of <= 0 {
		return 0
	}
	return float64(int64(1000*float64(n)/float64(of)+0.5)) / 10
}

// modified lists the files the session changed, with what git says of
// them, then the other paths git reports changed.
func modified(c checkpoint.Checkpoint) []string {
	codes := map[string]string{}
	var gitOrder []string
	if c.Git != nil {
		for _, ch := range c.Git.Changes {
			if _, ok := codes[ch.Path]; !ok {
				gitOrder = append(gitOrder, ch.Path)
			}
			codes[ch.Path] = ch.Code
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, f := range c.Files {
		seen[f.Path] = true
		line := code(f.Path) + ": " + sessionNote(f) + " this session"
		if code, ok := codes[f.Path]; ok {
			line += "; git: " + describeCode(code)
		} else if c.Git != nil {
			line += "; git: no change against HEAD"
		}
		out = append(out, line)
	}
	for _, p := range gitOrder {
		if !seen[p] {
			out = append(out, code(p)+": git: "+describeCode(codes[p]))
		}
	}
	return out
}

func sessionNote(f checkpoint.File) string {
	if notes := f.Notes(); len(notes) > 0 {
		return strings.Join(notes, ", ")
	}
	return "changed"
}

// describeCode words git status's XY code.
func describeCode(code string) string {
	switch code {
	case "??":
		return "untracked"
	case "!!":
		return "ignored"
	}
	if len(code) != 2 {
		return code
	}
	word := func(c byte) string {
		switch c {
		case 'M':
			return "modified"
		case 'T':
			return "type changed"
		case 'A':
			return "added"
		case 'D':
			return "deleted"
		case 'R':
			return "renamed"
		case 'C':
			return "copied"
		case 'U':
			return "unmerged"
		}
		return ""
	}
	x, y := code[0], code[1]
	switch {
	case x == 'U' || y == 'U' || (x == 'A' && y == 'A') || (x == 'D' && y == 'D'):
		return "unmerged"
	case x != '.' && x != ' ' && (y == '.' || y == ' '):
		return word(x) + " (staged)"
	case (x == '.' || x == ' ') && y != '.' && y != ' ':
		return word(y) + " (not staged)"
	case x == y:
		return word(x) + " (partly staged)"
	default:
		return word(x) + " (staged), then " + word(y)
	}
}

func gitLine(g *git.Status) string {
	s := "Git: branch " + orDefault(g.Branch, "(detached)")
	if g.Head != "" {
		s += " at " + g.Head
	}
	if g.Ahead > 0 || g.Behind > 0 {
		s += fmt.Sprintf(" (%d ahead, %d behind %s)", g.Ahead, g.Behind, orDefault(g.Upstream, "upstream"))
	}
	switch {
	case g.DiffStat != "":
		s += "; " + g.DiffStat
	case len(g.Changes) == 0:
		s += "; working tree clean"
	}
	return s + "."
}

func commandLine(c checkpoint.Command) string {
	return code(text.ClipMiddle(c.Command, 160)) + " → " + c.History()
}

func errorLine(e checkpoint.Error) string {
	state := "**unresolved**"
	if e.Resolved {
		state = "resolved later"
	}
	subject := e.Subject
	if e.Tool == "Bash" {
		subject = code(text.ClipLine(subject, 120))
	}
	return fmt.Sprintf("%s (%s %s): %s", state, e.Tool, subject, text.ClipLine(e.Message, 300))
}

// reloadLines lists what the next session should read again: CLAUDE.md's
// sections and the spec-like documents the session read or changed.
func reloadLines(project string, c checkpoint.Checkpoint) []string {
	var out []string
	if project != "" {
		for _, name := range []string{"CLAUDE.md", filepath.Join(".claude", "CLAUDE.md")} {
			hs, ok := headings(filepath.Join(project, name))
			if !ok {
				continue
			}
			if len(hs) == 0 {
				out = append(out, fmt.Sprintf("- **%s**: the whole file (it has no sections)", filepath.ToSlash(name)))
				continue
			}
			out = append(out, fmt.Sprintf("- **%s**, sections:", filepath.ToSlash(name)))
			top := false
			for _, h := range hs {
				top = top || h.level == 1
			}
			for i, h := range hs {
				if i == maxHeadings {
					out = append(out, fmt.Sprintf("  - (and %d more)", len(hs)-maxHeadings))
					break
				}
				indent := "  "
				if h.level == 2 && top {
					indent = "    "
				}
				out = append(out, indent+"- "+h.text)
			}
		}
	}
	for _, s := range specs(c) {
		out = append(out, "- **Spec**: "+s)
	}
	return out
}

type heading struct {
	level int
	text  string
}

// headings reads the # and ## headings of a Markdown file, outside code
// fences; ok is false when the file cannot be read.
func headings(path string) ([]heading, bool) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	var out []heading
	sc := bufio.NewScanner(io.LimitReader(f, claudeMDLimit))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	fence := ""
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), " \t\r")
		trimmed := strings.TrimLeft(line, " ")
		if len(line)-len(trimmed) <= 3 {
			if f := fenceOf(trimmed); f != "" {
				switch {
				case fence == "":
					fence = f
				case strings.HasPrefix(f, fence) && strings.TrimLeft(trimmed, fence[:1]) == "":
					fence = ""
				}
				continue
			}
		}
		if fence != "" || line != trimmed {
			continue
		}
		level := 0
		for level < len(line) && line[level] == '#' {
			level++
		}
		if level < 1 || level > 2 || (len(line) > level && line[level] != ' ' && line[level] != '\t') {
			continue
		}
		title := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(line[level:]), "#"))
		if title == "" {
			continue
		}
		out = append(out, heading{level: level, text: redact.String(text.ClipLine(title, 120))})
	}
	return out, true
}

// fenceOf returns the fence a line opens or closes (``` or ~~~, or longer).
func fenceOf(line string) string {
	for _, c := range []byte{'`', '~'} {
		n := 0
		for n < len(line) && line[n] == c {
			n++
		}
		if n >= 3 {
			return line[:n]
		}
	}
	return ""
}

// specs are the documents the session read or changed whose place or name
// says they are a spec, a plan, a design or an RFC.
func specs(c checkpoint.Checkpoint) []string {
	var out []string
	seen := map[string]bool{}
	add := func(p, how string) {
		if seen[p] || !isSpec(p) || len(out) >= maxSpecs {
			return
		}
		seen[p] = true
		out = append(out, p+" ("+how+")")
	}
	for _, p := range c.KeyReads {
		add(p, "read")
	}
	for _, f := range c.Files {
		if !f.Deleted {
			add(f.Path, "changed this session")
		}
	}
	return out
}

// docExt says whether ext is a document's. (Switches, not package-level
// maps: Go builds those in every process at start, the hooks' included.)
func docExt(ext string) bool {
	switch ext {
	case ".md", ".markdown", ".mdx", ".txt", ".rst", ".adoc", ".org":
		return true
	}
	return false
}

// specDir says whether a folder named dir holds specs and plans.
func specDir(dir string) bool {
	switch dir {
	case "docs", "doc", "specs", "spec", "plans", "plan", "design", "designs", "rfcs", "rfc", "adr", "adrs":
		return true
	}
	return false
}

var specWords = []string{"spec", "plan", "design", "rfc", "adr", "prd", "requirement", "proposal"}

// isSpec reports whether path looks like a document to re-read: a
// document under docs/, specs/, plans/ and the like, or one whose name has
// a word starting with spec, plan, design, rfc... Code is never a spec,
// so api.spec.ts (a test) and planner.go are not.
func isSpec(path string) bool {
	p := filepath.ToSlash(path)
	base := p[strings.LastIndexByte(p, '/')+1:]
	ext := strings.ToLower(filepath.Ext(base))
	if !docExt(ext) || strings.EqualFold(base, "CLAUDE.md") {
		return false
	}
	dirs := strings.Split(p, "/")
	for _, d := range dirs[:len(dirs)-1] {
		if specDir(strings.ToLower(d)) {
			return true
		}
	}
	for _, w := range words(strings.TrimSuffix(base, filepath.Ext(base))) {
		for _, s := range specWords {
			if strings.HasPrefix(w, s) {
				return true
			}
		}
	}
	return false
}

// words splits a file name at punctuation and case changes, lower-cased:
// "SPEC-ANV-123" → spec anv 123, "designDoc" → design doc.
func words(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	var prev rune
	for _, r := range s {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && unicode.IsLower(prev):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
		prev = r
	}
	flush()
	return out
}

// yamlScalar writes v as a YAML scalar: plain when that reads back as the
// same string, double-quoted otherwise.
func yamlScalar(v string) string {
	if v == "" {
		return `""`
	}
	plain := true
	switch v[0] {
	case '-', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`', ' ':
		plain = false
	}
	// A colon anywhere: "11:45" is a number in YAML 1.1.
	if strings.ContainsAny(v, ":#\"\\\n\r\t") || strings.HasSuffix(v, " ") {
		plain = false
	}
	for _, r := range v {
		if r < 0x20 || r == 0x7f || !unicode.IsPrint(r) && r != ' ' {
			plain = false
		}
	}
	switch strings.ToLower(v) {
	case "true", "false", "yes", "no", "on", "off", "null", "~", "y", "n":
		plain = false
	}
	if _, err := strconv.ParseFloat(v, 64); err == nil {
		plain = false
	}
	if plain {
		return v
	}
	return strconv.Quote(v)
}

// code is s as a Markdown code span, which a backtick inside it must not
// end.
func code(s string) string {
	if !strings.Contains(s, "`") {
		return "`" + s + "`"
	}
	fence := "``"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	return fence + " " + s + " " + fence
}

func quote(s string) string { return "“" + text.ClipLine(s, 400) + "”" }

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}
