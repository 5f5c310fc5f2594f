package transcript

import (
	"bytes"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cairn-agent/cairn/internal/jsonscan"
	"github.com/cairn-agent/cairn/internal/outcome"
	"github.com/cairn-agent/cairn/internal/text"
)

// Parser turns transcript lines into updates of a Session. It reuses its
// buffers between lines, so one Parser serves one goroutine.
type Parser struct {
	// Light skips what only a checkpoint needs (the open-items ledger,
	// command outcomes): the hooks that run on every prompt and tool
	// call work on the light session, which keeps neither.
	Light bool

	sc     jsonscan.Scanner
	sub    jsonscan.Scanner
	e      entry
	walked int // how much of the last line scan looked at
}

// entry is the part of one line cairn looks at. Byte slices point into the
// line and die with it.
type entry struct {
	typ, subtype        []byte
	sidechain, meta     bool
	compactSummary      bool
	visibleOnly         bool
	timestamp           []byte
	cwd, branch, sessID []byte
	version             []byte
	hasMsg              bool
	msg                 message
	hasCompact          bool
	trigger             []byte
	pre, post           int64
	// attach is what an attachment line says of a hook's answer.
	attach attachment
}

// attachment is the part of an "attachment" line cairn reads: Claude Code
// writes one for each hook answer it used, which is how cairn knows that
// a restore reached the model.
type attachment struct {
	hook    bool // a hook's answer (hook_success, hook_additional_context...)
	restore bool // additional context that is cairn's restore
}

type message struct {
	id, model, role []byte
	usage           Usage
	hasUsage        bool
	contentStr      []byte // content given as a plain string
	isStr           bool
	blocks          []block
}

type block struct {
	typ       []byte
	text      []byte // text blocks
	id, name  []byte // tool_use
	in        toolInput
	toolUseID []byte // tool_result
	isError   bool
	result    []byte // first text of a tool_result
}

type toolInput struct {
	filePath, notebookPath, path, command []byte
	taskID, subject, status, activeForm   []byte
	description                           []byte
	todos                                 []byte // raw array, parsed for TodoWrite only
}

// Feed reads one complete line (without its newline) into s. lineNo is
// 1-based; offset is where the line starts in the file.
func (p *Parser) Feed(s *Session, line []byte, lineNo int, offset int64) {
	switch reason, ok := p.walk(line); {
	case !ok && reason == "":
	case !ok:
		s.bad(lineNo, offset, reason)
	default:
		p.apply(s, lineNo)
	}
}

// walk scans one line into p.e. It returns false with a reason for a line
// that cannot be read, and false with no reason for a blank line.
func (p *Parser) walk(line []byte) (string, bool) {
	line = bytes.TrimRight(line, "\r")
	if len(bytes.TrimSpace(line)) == 0 {
		return "", false
	}
	if !p.scan(line) {
		return "invalid JSON", false
	}
	// Only what was walked is checked: the part of the line cairn reads.
	if !utf8.Valid(line[:p.walked]) {
		return "invalid UTF-8", false
	}
	return "", true
}

func (s *Session) bad(line int, off int64, reason string) {
	s.BadCount++
	if len(s.BadLines) < maxBadLines {
		s.BadLines = append(s.BadLines, BadLine{Line: line, Offset: off, Reason: reason})
	}
}

// scan walks the line, validating it, and fills p.e. It stops early where
// the rest of a line is known to hold nothing cairn keeps.
func (p *Parser) scan(line []byte) bool {
	p.walked = len(line)
	sc := &p.sc
	sc.Reset(line)
	e := &p.e
	blocks := e.msg.blocks[:0]
	*e = entry{}
	e.msg.blocks = blocks
	if !sc.Object() {
		return false
	}
	for k := sc.Key(); k != nil; k = sc.Key() {
		switch string(k) {
		case "type":
			e.typ = p.rawStr()
			if !interesting(e) {
				// Lines of other types (progress, snapshots, queue
				// operations...) are a third of a transcript's bytes and
				// nothing cairn keeps: stop here, trusting the line's end.
				p.walked = sc.Pos()
				return !sc.Failed()
			}
		case "subtype":
			e.subtype = p.rawStr()
		case "isSidechain":
			e.sidechain = sc.Bool()
		case "isMeta":
			e.meta = sc.Bool()
		case "isCompactSummary":
			e.compactSummary = sc.Bool()
		case "isVisibleInTranscriptOnly":
			e.visibleOnly = sc.Bool()
		case "timestamp":
			e.timestamp = p.rawStr()
		case "cwd":
			e.cwd = p.rawStr()
		case "gitBranch":
			e.branch = p.rawStr()
		case "sessionId":
			e.sessID = p.rawStr()
		case "version":
			e.version = p.rawStr()
		case "message":
			if sc.Peek() == '{' {
				e.hasMsg = true
				p.message(&e.msg)
			} else {
				sc.Skip()
			}
		case "toolUseResult":
			if len(e.typ) > 0 && e.hasMsg {
				// A structured copy of the tool result already read from
				// the message, often the largest part of the line (whole
				// file contents); Claude Code writes it after every field
				// cairn reads.
				p.walked = sc.Pos()
				return !sc.Failed()
			}
			sc.Skip()
		case "attachment":
			if sc.Peek() == '{' {
				p.attachment()
			} else {
				sc.Skip()
			}
		case "compactMetadata":
			if sc.Peek() == '{' {
				e.hasCompact = true
				p.compactMeta()
			} else {
				sc.Skip()
			}
		default:
			sc.Skip()
		}
	}
	sc.End()
	return !sc.Failed()
}

func interesting(e *entry) bool {
	switch string(e.typ) {
	case "assistant", "user", "system":
		return true
	case "attachment":
		return e.attach.hook
	}
	return false
}

// RestoreHeader starts every restore cairn delivers: the transcript's
// record of a hook's additional context that starts with it is a restore
// the model received.
const RestoreHeader = "# Restored working state (cairn)"

// attachment reads an attachment object: its type, and for a hook's
// additional context whether it is a restore.
func (p *Parser) attachment() {
	sc := &p.sc
	a := &p.e.attach
	var context, restore bool
	sc.Object()
	for k := sc.Key(); k != nil; k = sc.Key() {
		switch string(k) {
		case "type":
			typ := p.rawStr()
			a.hook = bytes.HasPrefix(typ, []byte("hook_"))
			context = string(typ) == "hook_additional_context"
		case "content":
			if sc.Peek() != '[' {
				sc.Skip()
				continue
			}
			for sc.Array(); sc.More(); {
				if !sc.IsString() {
					sc.Skip()
				} else if bytes.HasPrefix(sc.RawString(), []byte(RestoreHeader)) {
					restore = true
				}
			}
		default:
			sc.Skip()
		}
	}
	a.restore = context && restore
}

// rawStr reads a string value, or skips a value of another kind.
func (p *Parser) rawStr() []byte {
	if !p.sc.IsString() {
		p.sc.Skip()
		return nil
	}
	return p.sc.RawString()
}

func (p *Parser) compactMeta() {
	sc := &p.sc
	sc.Object()
	for k := sc.Key(); k != nil; k = sc.Key() {
		switch string(k) {
		case "trigger":
			p.e.trigger = p.rawStr()
		case "preTokens":
			p.e.pre = sc.Int()
		case "postTokens":
			p.e.post = sc.Int()
		default:
			sc.Skip()
		}
	}
}

func (p *Parser) message(m *message) {
	sc := &p.sc
	sc.Object()
	for k := sc.Key(); k != nil; k = sc.Key() {
		switch string(k) {
		case "id":
			m.id = p.rawStr()
		case "model":
			m.model = p.rawStr()
		case "role":
			m.role = p.rawStr()
		case "usage":
			if sc.Peek() != '{' {
				sc.Skip()
				continue
			}
			m.hasUsage = true
			sc.Object()
			for k := sc.Key(); k != nil; k = sc.Key() {
				switch string(k) {
				case "input_tokens":
					m.usage.Input = sc.Int()
				case "cache_creation_input_tokens":
					m.usage.CacheCreation = sc.Int()
				case "cache_read_input_tokens":
					m.usage.CacheRead = sc.Int()
				case "output_tokens":
					m.usage.Output = sc.Int()
				default:
					sc.Skip()
				}
			}
		case "content":
			switch sc.Peek() {
			case '"':
				m.isStr = true
				m.contentStr = sc.RawString()
			case '[':
				for sc.Array(); sc.More(); {
					if sc.Peek() != '{' {
						sc.Skip()
						continue
					}
					m.blocks = append(m.blocks, block{})
					p.block(&m.blocks[len(m.blocks)-1])
				}
			default:
				sc.Skip()
			}
		default:
			sc.Skip()
		}
	}
}

func (p *Parser) block(b *block) {
	sc := &p.sc
	sc.Object()
	for k := sc.Key(); k != nil; k = sc.Key() {
		switch string(k) {
		case "type":
			b.typ = p.rawStr()
		case "text":
			b.text = p.rawStr()
		case "id":
			b.id = p.rawStr()
		case "name":
			b.name = p.rawStr()
		case "tool_use_id":
			b.toolUseID = p.rawStr()
		case "is_error":
			b.isError = sc.Bool()
		case "input":
			if sc.Peek() == '{' {
				p.input(&b.in)
			} else {
				sc.Skip()
			}
		case "content":
			// tool_result content: a string, or blocks of which the first
			// text is kept.
			switch sc.Peek() {
			case '"':
				b.result = sc.RawString()
			case '[':
				for sc.Array(); sc.More(); {
					if sc.Peek() != '{' {
						sc.Skip()
						continue
					}
					sc.Object()
					for k := sc.Key(); k != nil; k = sc.Key() {
						if string(k) == "text" && b.result == nil && sc.IsString() {
							b.result = sc.RawString()
						} else {
							sc.Skip()
						}
					}
				}
			default:
				sc.Skip()
			}
		default:
			sc.Skip()
		}
	}
}

func (p *Parser) input(in *toolInput) {
	sc := &p.sc
	sc.Object()
	for k := sc.Key(); k != nil; k = sc.Key() {
		switch string(k) {
		case "file_path":
			in.filePath = p.rawStr()
		case "notebook_path":
			in.notebookPath = p.rawStr()
		case "path":
			in.path = p.rawStr()
		case "command":
			in.command = p.rawStr()
		case "taskId", "task_id":
			if sc.IsString() {
				in.taskID = sc.RawString()
			} else {
				start := sc.Pos()
				sc.Skip()
				in.taskID = bytes.TrimSpace(sc.Input()[start:sc.Pos()])
			}
		case "subject":
			in.subject = p.rawStr()
		case "status":
			in.status = p.rawStr()
		case "activeForm":
			in.activeForm = p.rawStr()
		case "description":
			in.description = p.rawStr()
		case "todos":
			start := sc.Pos()
			sc.Skip()
			in.todos = sc.Input()[start:sc.Pos()]
		default:
			sc.Skip()
		}
	}
}

// apply folds the scanned entry into the session.
func (p *Parser) apply(s *Session, lineNo int) {
	e := &p.e
	switch string(e.typ) {
	case "assistant", "user", "system":
	case "attachment":
		if !e.attach.hook {
			s.Skipped++
			return
		}
		s.HookAnswers = true
		if e.attach.restore {
			s.RestoreLines = append(s.RestoreLines, lineNo)
			if len(s.RestoreLines) > maxRestoreLines {
				s.RestoreLines = s.RestoreLines[len(s.RestoreLines)-maxRestoreLines:]
			}
		}
		return
	default:
		s.Skipped++
		return
	}
	var ts time.Time
	if len(e.timestamp) > 0 {
		ts, _ = time.Parse(time.RFC3339Nano, string(e.timestamp))
		if !ts.IsZero() {
			if s.FirstTime.IsZero() {
				s.FirstTime = ts
			}
			if ts.After(s.LastTime) {
				s.LastTime = ts
			}
		}
	}
	setStr(&s.SessionID, e.sessID)
	if s.IsSubagent {
		e.sidechain = false
	}
	if !e.sidechain {
		setStr(&s.CWD, e.cwd)
		setStr(&s.GitBranch, e.branch)
		setStr(&s.ClientVersion, e.version)
	}
	switch string(e.typ) {
	case "assistant":
		p.assistant(s, ts, lineNo)
	case "user":
		p.user(s, ts, lineNo)
	case "system":
		if string(e.subtype) == "compact_boundary" {
			s.Compactions = append(s.Compactions, Compaction{
				Trigger:     jsonscan.Unescape(e.trigger),
				PreTokens:   e.pre,
				PostTokens:  e.post,
				Time:        ts,
				Line:        lineNo,
				TurnsBefore: s.NumTurns(),
			})
		}
	}
}

func setStr(dst *string, raw []byte) {
	if len(raw) > 0 && string(raw) != *dst {
		*dst = jsonscan.Unescape(raw)
	}
}

func (p *Parser) assistant(s *Session, ts time.Time, lineNo int) {
	e := &p.e
	m := &e.msg
	x := s.index()
	// Synthetic replies (API errors, interruptions) carry no real usage.
	synthetic := string(m.model) == "<synthetic>"
	if !e.sidechain && !synthetic && m.hasUsage {
		if len(m.id) > 0 {
			if i, ok := x.turnByMsg[string(m.id)]; ok {
				// Later lines of a split response may carry the final counts.
				s.Turns[i].Usage = m.usage
			} else {
				x.turnByMsg[string(m.id)] = len(s.Turns)
				s.Turns = append(s.Turns, Turn{MessageID: string(m.id), Time: ts, Usage: m.usage, Line: lineNo})
			}
		} else if n := len(s.Turns); n == 0 || s.Turns[n-1].MessageID != "" || s.Turns[n-1].Usage != m.usage {
			// No message id (older clients, exported or cleaned
			// sessions): each reply is measured as it comes. The lines of
			// one split reply repeat its usage, which two replies never
			// share (the cache grows), so a repeat is the same reply.
			s.Turns = append(s.Turns, Turn{Time: ts, Usage: m.usage, Line: lineNo})
		}
		setStr(&s.Model, m.model)
	}
	if !e.sidechain && !synthetic {
		for i := range m.blocks {
			if b := &m.blocks[i]; string(b.typ) == "text" && len(b.text) > 0 {
				s.assistantText(jsonscan.Unescape(b.text), ts, lineNo, !p.Light)
			}
		}
	}
	for i := range m.blocks {
		b := &m.blocks[i]
		if string(b.typ) != "tool_use" || len(b.id) == 0 {
			continue
		}
		id := string(b.id)
		if _, ok := x.callByID[id]; ok {
			continue
		}
		c := ToolCall{ID: id, Name: jsonscan.Unescape(b.name), Time: ts, Line: lineNo, Sidechain: e.sidechain}
		s.toolUse(&c, &b.in, jsonscan.Unescape(e.cwd), &p.sub, lineNo, !p.Light)
		x.callByID[id] = len(s.ToolCalls)
		s.ToolCalls = append(s.ToolCalls, c)
	}
}

func (p *Parser) user(s *Session, ts time.Time, lineNo int) {
	e := &p.e
	m := &e.msg
	x := s.index()
	for i := range m.blocks {
		b := &m.blocks[i]
		if string(b.typ) != "tool_result" {
			continue
		}
		ci, ok := x.callByID[string(b.toolUseID)]
		if !ok {
			continue
		}
		s.toolResult(&s.ToolCalls[ci], b, lineNo, !p.Light)
	}
	if e.compactSummary {
		if n := len(s.Compactions); n > 0 && s.Compactions[n-1].Summary == "" {
			text := p.text()
			s.Compactions[n-1].SummaryChars = utf8.RuneCountInString(text)
			s.Compactions[n-1].Summary = keep(text, maxSummaryBytes)
		}
		return
	}
	if e.sidechain || e.meta || e.visibleOnly {
		return
	}
	if typed, ok := promptText(p.text(), m); ok {
		typed = clean(typed)
		s.Prompts = append(s.Prompts, Prompt{Time: ts, Text: text.Truncate(typed, maxPromptBytes), Line: lineNo})
		if !p.Light {
			s.Ledger.User(s.NumTurns(), lineNo, ts, typed)
		}
	}
}

// text returns the message's text: the content string or its text blocks.
func (p *Parser) text() string {
	m := &p.e.msg
	if m.isStr {
		return jsonscan.Unescape(m.contentStr)
	}
	var sb strings.Builder
	for i := range m.blocks {
		if string(m.blocks[i].typ) == "text" {
			if sb.Len() > 0 {
				sb.WriteByte('\n')
			}
			sb.WriteString(jsonscan.Unescape(m.blocks[i].text))
		}
	}
	return sb.String()
}

// exitCodePrefix is how Claude Code reports a failed Bash command.
const exitCodePrefix = "Exit code "

// toolResult records a call's result; with full, also how a command ended
// judged from its output, and what the result closes in the ledger.
func (s *Session) toolResult(c *ToolCall, b *block, lineNo int, full bool) {
	c.Done = true
	c.IsError = b.isError
	if b.isError {
		c.ErrorText = unescapePrefix(b.result, maxErrorBytes)
	}
	if c.Name == "Bash" {
		switch {
		case !b.isError:
			c.ExitCode = new(int)
		case bytes.HasPrefix(b.result, []byte(exitCodePrefix)):
			rest := b.result[len(exitCodePrefix):]
			n := 0
			for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
				n++
			}
			if code, err := strconv.Atoi(string(rest[:n])); err == nil {
				c.ExitCode = &code
			}
		}
		if full {
			out := bashOutput(b.result)
			o := outcome.Judge(c.Command, out, c.ExitCode)
			if len(o.Errors) > 0 {
				// Error lines are kept: take them from the output cleaned
				// as a whole, where a secret's context is still there.
				o = outcome.Judge(c.Command, clean(out), c.ExitCode)
			}
			o.Tool, o.Counts = keep(o.Tool, maxNoteBytes), keep(o.Counts, maxNoteBytes)
			for i := range o.Errors {
				o.Errors[i] = keep(o.Errors[i], outcome.MaxErrorBytes)
			}
			c.Outcome = &o
			s.Ledger.CommandEnded(s.NumTurns(), lineNo, c.Command, o.Status == outcome.Passed)
		}
	}
	if full && !b.isError {
		switch c.Name {
		case "Write", "Edit", "MultiEdit", "NotebookEdit":
			s.Ledger.FileChanged(s.NumTurns(), lineNo, c.FilePath)
		}
	}
	if (c.Name == "Task" || c.Name == "Agent") && !b.isError {
		report := subagentReport(jsonscan.Unescape(b.result))
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
	if c.Name == "TaskCreate" && !b.isError {
		// The id is assigned by the tool: "Task #3 created successfully: ...".
		res := unescapePrefix(b.result, 200)
		if i := strings.Index(res, "#"); i >= 0 {
			j := i + 1
			for j < len(res) && res[j] >= '0' && res[j] <= '9' {
				j++
			}
			if j > i+1 {
				s.assignTaskID(c.ID, res[i+1:j])
			}
		}
	}
}

// handBack is how Claude Code 2.1.x frames a subagent's report in the
// tool result it hands back: a paragraph of its own, then the report with
// every line indented.
const handBack = "[Subagent hand-back]"

// subagentReport is the report in a subagent's tool result, without the
// client's frame around it (tools used, the hand-back notice) and with its
// lines unindented.
func subagentReport(s string) string {
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
