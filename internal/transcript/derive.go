package transcript

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cairn-agent/cairn/internal/jsonscan"
	"github.com/cairn-agent/cairn/internal/outcome"
	"github.com/cairn-agent/cairn/internal/text"
)

// The derivation: what each thing a client records does to a Session. A
// decoder (claude.go, codex.go, gemini.go) reads its client's lines and
// calls these; nothing here knows a client's format. Tool names are the
// Session's vocabulary, which is Claude Code's: a decoder names a shell
// command "Bash", a whole-file write "Write", a replacement "Edit".
//
// Text arrives in two forms. Whole texts (prompts, replies, summaries)
// arrive unescaped. Tool inputs and results arrive raw, as they stand in
// the line, still JSON-escaped: a result can be a whole file, of which
// only a few hundred bytes are kept, and unescaping it all would cost
// more than reading the line did.

// seen notes a record's RFC 3339 timestamp (raw) and returns it, zero when
// there is none or it does not parse.
func (s *Session) seen(raw []byte) time.Time {
	ts := parseTime(raw)
	s.saw(ts)
	return ts
}

// parseTime is an RFC 3339 timestamp (raw), zero when there is none or it
// does not parse.
func parseTime(raw []byte) time.Time {
	if len(raw) == 0 {
		return time.Time{}
	}
	ts, _ := time.Parse(time.RFC3339Nano, string(raw))
	return ts
}

// saw notes a record's time, unless it is zero.
func (s *Session) saw(ts time.Time) {
	if ts.IsZero() {
		return
	}
	if s.FirstTime.IsZero() {
		s.FirstTime = ts
	}
	if ts.After(s.LastTime) {
		s.LastTime = ts
	}
}

// setStr sets dst to the unescaped raw string when there is one.
func setStr(dst *string, raw []byte) {
	if len(raw) > 0 && string(raw) != *dst {
		*dst = jsonscan.Unescape(raw)
	}
}

// reply records one API response's usage as a turn. id names the
// response: a later record of the same response (a reply split over
// lines, a record written again with its tool calls) updates its usage.
func (s *Session) reply(id []byte, ts time.Time, line int, u Usage) {
	if n := len(s.Turns); n > 0 && len(id) > 0 && s.Turns[n-1].MessageID == string(id) {
		// The next line of the latest response (a turn's id is its
		// own): the usual case, without the index.
		s.Turns[n-1].Usage = u
		return
	}
	x := s.index()
	if len(id) > 0 {
		if i, ok := x.turnByMsg[string(id)]; ok {
			// Later lines of a split response may carry the final counts.
			s.Turns[i].Usage = u
			return
		}
		x.turnByMsg[string(id)] = len(s.Turns)
		s.Turns = append(s.Turns, Turn{MessageID: string(id), Time: ts, Usage: u, Line: line})
		return
	}
	if n := len(s.Turns); n == 0 || s.Turns[n-1].MessageID != "" || s.Turns[n-1].Usage != u {
		// No message id (older clients, exported or cleaned sessions):
		// each reply is measured as it comes. The lines of one split
		// reply repeat its usage, which two replies never share (the
		// cache grows), so a repeat is the same reply.
		s.Turns = append(s.Turns, Turn{Time: ts, Usage: u, Line: line})
	}
}

// prompt records something the user typed, already told apart from what
// the client wrote in the user's name.
func (s *Session) prompt(typed string, ts time.Time, line int, full bool) {
	typed = clean(typed)
	s.Prompts = append(s.Prompts, Prompt{Time: ts, Text: promptKept(typed, maxPromptBytes), Line: line})
	if full {
		s.Ledger.User(s.NumTurns(), line, ts, typed)
	}
}

// promptKept is what is kept of a prompt, at most n bytes: the user's own
// words. A long prompt often pastes a log or a config in a fenced block
// and says what matters after it ("don't bump it", "under 300 KB"): the
// blocks give way to a mark of how long they were, then, if it is still
// too long, the middle goes, so that both its head and its end stay.
func promptKept(p string, n int) string {
	if len(p) <= n {
		return p
	}
	p = withoutPastes(p)
	if len(p) <= n {
		return p
	}
	const gap = " … "
	head := text.Truncate(p, (n-len(gap))/3)
	from := len(p) - (n - len(gap) - len(head))
	for from < len(p) && !utf8.RuneStart(p[from]) {
		from++
	}
	return head + gap + p[from:]
}

// withoutPastes replaces each fenced block of more than a few lines with
// a mark: "[pasted: 45 lines]".
func withoutPastes(p string) string {
	var b strings.Builder
	lines := strings.SplitAfter(p, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if !strings.HasPrefix(strings.TrimSpace(l), "```") {
			b.WriteString(l)
			continue
		}
		end := -1
		for j := i + 1; j < len(lines); j++ {
			if strings.HasPrefix(strings.TrimSpace(lines[j]), "```") {
				end = j
				break
			}
		}
		if end < 0 || end-i-1 <= 3 {
			b.WriteString(l)
			continue
		}
		b.WriteString("[pasted: " + strconv.Itoa(end-i-1) + " lines]")
		if strings.HasSuffix(lines[end], "\n") {
			b.WriteString("\n")
		}
		i = end
	}
	return b.String()
}

// call is the tool call with id (raw), nil when there is none.
func (s *Session) call(id []byte) *ToolCall {
	i, ok := s.index().callByID[string(id)]
	if !ok {
		return nil
	}
	return &s.ToolCalls[i]
}

// toolCall records a call, with what its input does to files and todos,
// and returns it. A call already recorded is left as it was.
func (s *Session) toolCall(c ToolCall, in *toolInput, cwd string, sub *jsonscan.Scanner, full bool) *ToolCall {
	x := s.index()
	if i, ok := x.callByID[c.ID]; ok {
		return &s.ToolCalls[i]
	}
	if in != nil {
		s.toolUse(&c, in, cwd, sub, c.Line, full)
	}
	x.callByID[c.ID] = len(s.ToolCalls)
	s.ToolCalls = append(s.ToolCalls, c)
	return &s.ToolCalls[len(s.ToolCalls)-1]
}

// result is what a tool's result says.
type result struct {
	isError bool
	// raw is the result's text (or its first text) as it stands in the
	// line, JSON-escaped.
	raw []byte
	// exit is a command's exit code where the client records one, nil
	// where it does not (rejected, interrupted, still running).
	exit *int
	// judged is how the command ended, judged ahead (the parallel read),
	// nil when it was not.
	judged *judgement
}

// judgement is a Bash result judged on the parallel read's workers, as
// toolResult would judge it: the costliest part of applying a result,
// and it needs of the session only the command, which the worker took
// from the call in the same chunk. It stands if the session's call has
// that command.
type judgement struct {
	block   int // the result's block in its message
	command string
	exit    *int
	outcome outcome.Outcome
}

// judge is how a Bash command ended, judged from its exit code and its
// output (raw, JSON-escaped), with what it keeps cleaned and cut.
func judge(command string, raw []byte, exit *int) outcome.Outcome {
	out := bashOutput(raw)
	o := outcome.Judge(command, out, exit)
	if len(o.Errors) > 0 {
		// Error lines are kept: take them from the output cleaned
		// as a whole, where a secret's context is still there.
		o = outcome.Judge(command, clean(out), exit)
	}
	o.Tool, o.Counts = keep(o.Tool, maxNoteBytes), keep(o.Counts, maxNoteBytes)
	for i := range o.Errors {
		o.Errors[i] = keep(o.Errors[i], outcome.MaxErrorBytes)
	}
	return o
}

// changesFiles says whether a call of this name changes the files it
// names when it succeeds.
func changesFiles(name string) bool {
	switch name {
	case "Write", "Edit", "MultiEdit", "NotebookEdit", "apply_patch":
		return true
	}
	return false
}

// toolResult records a call's result; with full, also how a command ended
// judged from its output, and what the result closes in the ledger.
func (s *Session) toolResult(c *ToolCall, r *result, lineNo int, full bool) {
	c.Done = true
	c.IsError = r.isError
	if r.isError {
		c.ErrorText = unescapePrefix(r.raw, maxErrorBytes)
	}
	if c.Name == "Bash" {
		c.ExitCode = r.exit
		if full {
			var o outcome.Outcome
			if r.judged != nil && r.judged.command == c.Command {
				o = r.judged.outcome
			} else {
				o = judge(c.Command, r.raw, c.ExitCode)
			}
			c.Outcome = &o
			s.Ledger.CommandEnded(s.NumTurns(), lineNo, c.Command, o.Status == outcome.Passed)
		}
	}
	if full && !r.isError && changesFiles(c.Name) {
		s.Ledger.FileChanged(s.NumTurns(), lineNo, c.FilePath)
		for _, p := range c.Paths {
			s.Ledger.FileChanged(s.NumTurns(), lineNo, p)
		}
	}
	if (c.Name == "Task" || c.Name == "Agent") && !r.isError {
		report := subagentReport(jsonscan.Unescape(r.raw))
		c.Result = keep(report, maxResultBytes)
		if full {
			// A subagent's report is findings, the main session's own.
			report := clean(report)
			for _, f := range Findings(report) {
				s.Findings = append(s.Findings, Note{Time: c.Time, Line: lineNo, Text: f})
			}
			if len(s.Findings) > maxFindings {
				s.Findings = append(s.Findings[:0], s.Findings[len(s.Findings)-maxFindings:]...)
			}
		}
	}
	if c.Name == "AskUserQuestion" && !r.isError && full {
		// The user's choices are in the result only: "User has answered
		// your questions: "Q"="A", .... You can now continue ...".
		for _, qa := range formAnswers(jsonscan.Unescape(r.raw)) {
			s.Ledger.Answered(s.NumTurns(), lineNo, c.Time, qa[0], qa[1])
		}
	}
	if c.Todo != nil {
		s.applyTodo(c, r.isError, r.raw, lineNo, full)
	}
}

// restoreSeen notes a line that records cairn's restore reaching the
// model (the client's record of a hook's context that starts with
// RestoreHeader).
func (s *Session) restoreSeen(line int) {
	s.RestoreLines = append(s.RestoreLines, line)
	if len(s.RestoreLines) > maxRestoreLines {
		s.RestoreLines = s.RestoreLines[len(s.RestoreLines)-maxRestoreLines:]
	}
}

// compacted records a compaction; c's TurnsBefore is filled in.
func (s *Session) compacted(c Compaction) {
	c.TurnsBefore = s.NumTurns()
	s.Compactions = append(s.Compactions, c)
}

// compactSummary gives the latest compaction its summary, unless it has
// one.
func (s *Session) compactSummary(summary string) {
	n := len(s.Compactions)
	if n == 0 || s.Compactions[n-1].Summary != "" {
		return
	}
	s.Compactions[n-1].SummaryChars = utf8.RuneCountInString(summary)
	s.Compactions[n-1].Summary = keep(summary, maxSummaryBytes)
}

// lastTurnLine is the line of the latest turn, 0 before any.
func (s *Session) lastTurnLine() int {
	if n := len(s.Turns); n > 0 {
		return s.Turns[n-1].Line
	}
	return 0
}

// dropTurn forgets the turn of response id when it is the latest: a
// response a decoder learns, after the fact, was not a turn.
func (s *Session) dropTurn(id string) bool {
	n := len(s.Turns)
	if id == "" || n == 0 || s.Turns[n-1].MessageID != id {
		return false
	}
	s.Turns = slices.Delete(s.Turns, n-1, n)
	delete(s.index().turnByMsg, id)
	return true
}

// handBack is how Claude Code 2.1.x frames a subagent's report in the
// tool result it hands back: a paragraph of its own, then the report with
// every line indented.
const handBack = "[Subagent hand-back]"

// subagentReport is the report in a subagent's tool result, without the
// client's frame around it (tools used, the hand-back notice) and with its
// lines unindented.
func subagentReport(s string) string {
	s = withoutAgentTrailer(s)
	if i := strings.Index(s, "</tools-used-before-summary>"); i >= 0 && strings.HasPrefix(strings.TrimSpace(s), "<tools-used-before-summary>") {
		s = s[i+len("</tools-used-before-summary>"):]
	}
	i := strings.Index(s, handBack)
	if i < 0 {
		return strings.TrimSpace(s)
	}
	s = s[i:]
	if j := strings.Index(s, "The report follows:"); j >= 0 {
		s = s[j+len("The report follows:"):]
	} else if j := strings.Index(s, "\n"); j >= 0 {
		s = s[j+1:]
	}
	lines := strings.Split(s, "\n")
	for k, l := range lines {
		lines[k] = strings.TrimPrefix(l, "  ")
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// withoutAgentTrailer is s without what Claude Code 2.x appends to a
// subagent's report for the main agent's bookkeeping: "agentId: ID (use
// SendMessage … to continue this agent)" and a "<usage>subagent_tokens:
// …</usage>" block. Neither is the subagent's finding.
func withoutAgentTrailer(s string) string {
	t := strings.TrimRight(s, " \n\t\"]}")
	if strings.HasSuffix(t, "</usage>") {
		if i := strings.LastIndex(t, "<usage>"); i >= 0 {
			t = strings.TrimRight(t[:i], " \n\t")
			s = t
		}
	}
	if i := strings.LastIndex(s, "agentId: "); i >= 0 && (i == 0 || s[i-1] == '\n' || s[i-1] == '"') && !strings.Contains(s[i:], "\n") {
		s = strings.TrimRight(s[:i], " \n\t")
	}
	return s
}

// bashOutput is the part of a Bash result outcome.Judge reads: its head
// and tail. Claude Code keeps about 30,000 characters of an output, so the
// whole raw text is unescaped; a longer one (a client that keeps more) is
// cut first, at escapes' edges.
func bashOutput(raw []byte) string {
	const most = 4 * (outcome.HeadBytes + outcome.TailBytes)
	if len(raw) <= most {
		return jsonscan.Unescape(raw)
	}
	head := raw[:2*outcome.HeadBytes]
	if k := bytes.LastIndexByte(head, '\\'); k >= len(head)-6 {
		head = head[:k]
	}
	tail := raw[len(raw)-2*outcome.TailBytes:]
	// Start the tail after a newline escape: never inside an escape.
	if k := bytes.Index(tail, []byte(`\n`)); k >= 0 {
		tail = tail[k:]
	}
	return outcome.Cut(jsonscan.Unescape(head) + "\n" + jsonscan.Unescape(tail))
}

func unescapePrefix(raw []byte, max int) string {
	if len(raw) > max*2 {
		raw = raw[:max*2]
		if k := bytes.LastIndexByte(raw, '\\'); k >= len(raw)-6 {
			raw = raw[:k]
		}
	}
	return keep(jsonscan.Unescape(raw), max)
}

// feedRecord is how the Codex and Gemini CLI decoders take a line: blank
// lines are nothing, a line that does not walk or is not UTF-8 is counted
// bad, and the rest is applied.
func feedRecord(s *Session, line []byte, lineNo int, off int64, scan func([]byte) bool, apply func(*Session, int)) {
	line = bytes.TrimRight(line, "\r")
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	if !scan(line) {
		s.bad(lineNo, off, "invalid JSON")
		return
	}
	if !utf8.Valid(line) {
		s.bad(lineNo, off, "invalid UTF-8")
		return
	}
	apply(s, lineNo)
}

// formAnswersPrefix opens Claude Code's result of an AskUserQuestion call.
const formAnswersPrefix = "User has answered your questions: "

// formAnswers reads the question and answer pairs of an AskUserQuestion
// result: "Q1"="A1", "Q2"="A2". You can now continue .... A quote inside
// a question or an answer is not escaped, so a pair ends where the next
// one starts (`", "` before another `"="`) or at the closing `". `.
func formAnswers(res string) [][2]string {
	rest, ok := strings.CutPrefix(res, formAnswersPrefix)
	if !ok {
		return nil
	}
	var out [][2]string
	for strings.HasPrefix(rest, `"`) {
		q, after, ok := strings.Cut(rest[1:], `"="`)
		if !ok {
			break
		}
		end := -1
		for i := 0; ; {
			j := strings.Index(after[i:], `", "`)
			if j < 0 {
				break
			}
			if strings.Contains(after[i+j:], `"="`) {
				end = i + j
				break
			}
			i += j + 1
		}
		next := ""
		if end >= 0 {
			next = after[end+3:]
		} else if end = strings.LastIndex(after, `". `); end < 0 {
			end = strings.LastIndex(after, `"`)
		}
		if end < 0 {
			break
		}
		out = append(out, [2]string{q, after[:end]})
		rest = next
	}
	return out
}
