package transcript

import (
	"bytes"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cairn-agent/cairn/internal/jsonscan"
)

// claudeDecoder reads Claude Code's transcript lines: one JSON object a
// line, of type user, assistant, system, attachment and more. It walks
// each line once with jsonscan, keeping byte slices into the line, and
// hands what it found to the derivation (derive.go). It reuses its
// buffers between lines, so one decoder serves one goroutine.
type claudeDecoder struct {
	full  bool // !Parser.Light
	head  bool // Parser.Head
	texts bool // the latest texts are kept (not Parser.NoTexts)
	// workers is how many goroutines a large cold read uses; 0 decides by
	// the machine (readParallel). Tests set it.
	workers int
	sc      jsonscan.Scanner
	sub     jsonscan.Scanner
	later   jsonscan.Scanner // contentBlocks'
	e       entry
	walked  int // how much of the last line scan looked at
	// skip is what took the last line of a type cairn does not read
	// from the end of its first member to its type (see scan).
	skip skipMemo
	// sayings are the entry's texts analysed ahead (full, parallel
	// read), one for each text block with text: assistant uses them
	// instead of working them out.
	sayings []saying
	// judged are the entry's Bash results judged ahead (full, parallel
	// read).
	judged []judgement
}

// judgedAt is the judgement ahead of the result in block i, nil when
// there is none.
func (p *claudeDecoder) judgedAt(i int) *judgement {
	for k := range p.judged {
		if p.judged[k].block == i {
			return &p.judged[k]
		}
	}
	return nil
}

// judgeAhead judges the entry's results of Bash calls whose commands are
// in cmds (by raw id), as toolResult would for a full read, and notes the
// commands of the entry's own Bash calls in cmds.
func (p *claudeDecoder) judgeAhead(cmds map[string]string, out []judgement) []judgement {
	e := &p.e
	switch string(e.typ) {
	case "assistant":
		for i := range e.msg.blocks {
			b := &e.msg.blocks[i]
			if string(b.typ) == "tool_use" && len(b.id) > 0 && string(b.name) == "Bash" {
				cmds[string(b.id)] = keep(jsonscan.Unescape(b.in.command), maxCommandBytes)
			}
		}
	case "user":
		for i := range e.msg.blocks {
			b := &e.msg.blocks[i]
			if string(b.typ) != "tool_result" {
				continue
			}
			if cmd, ok := cmds[string(b.toolUseID)]; ok {
				exit := claudeExit(b)
				out = append(out, judgement{block: i, command: cmd, exit: exit, outcome: judge(cmd, b.result, exit)})
			}
		}
	}
	return out
}

// analyseAhead works out what the entry's texts say, as assistant would
// for a full read, when the entry is a reply whose texts it reads.
// Whether it is on the main chain is decided in order, with the session:
// a sidechain reply's texts are analysed too and not used.
func (p *claudeDecoder) analyseAhead(out []saying) []saying {
	e := &p.e
	if string(e.typ) != "assistant" || string(e.msg.model) == "<synthetic>" {
		return out
	}
	for i := range e.msg.blocks {
		if b := &e.msg.blocks[i]; string(b.typ) == "text" && len(b.text) > 0 {
			out = append(out, analyse(jsonscan.Unescape(b.text)))
		}
	}
	return out
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
	// deferred is the content array a head read has walked but not
	// decoded into blocks (contentBlocks does, when asked).
	deferred []byte
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

func (p *claudeDecoder) feed(s *Session, line []byte, lineNo int, offset int64) {
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
func (p *claudeDecoder) walk(line []byte) (string, bool) {
	line = bytes.TrimRight(line, "\r")
	if len(bytes.TrimSpace(line)) == 0 {
		return "", false
	}
	if !p.scan(line) {
		return "invalid JSON", false
	}
	// Only what was walked is checked: the part of the line cairn reads.
	// The memo's bytes were checked on the line they were kept from.
	checked := p.walked
	if p.skip.hit > 0 {
		checked = p.skip.hit
	}
	if !utf8.Valid(line[:checked]) {
		return "invalid UTF-8", false
	}
	p.skip.keep(line)
	return "", true
}

// skipMemo lets the walk of a line of a type cairn does not read skip the
// members it has just walked on the line before. Claude Code starts every
// line with the same members (parentUuid, then isSidechain, userType, cwd,
// sessionId, version, gitBranch, type), which differ between lines only
// in parentUuid's value: for a progress line, two thirds of a
// transcript's lines, they are everything the walk reads, and walking
// them was a third of a cold read's walk.
//
// Why a hit is exact: after a first member named parentUuid, which the
// walk skips, the scanner is inside the top-level object with one member
// seen and the entry holds nothing. From there the walk is a function of
// the bytes alone, and it ends on the type's string value without
// looking past its closing quote. A line whose bytes from that point
// start with the bytes a line walked from the same point up to a type
// cairn does not read (and found valid, UTF-8 included) is walked the
// same way to the same end: the same type, and nothing else kept.
type skipMemo struct {
	tail     []byte // the bytes from after parentUuid's value to the type's closing quote
	typ, end int    // where the type's value starts and ends in tail
	// Set by scan for the line being walked: where the bytes after
	// parentUuid's value start (from), where tail matched (hit, 0 for
	// none) or else where the walk stopped after a type it does not read
	// (stop, 0 for none).
	from, hit, stop int
	typLen          int // the length of the type's value, when stop is set
}

// keep remembers the walk of line, when it stopped at a type cairn does
// not read, for the next line.
func (m *skipMemo) keep(line []byte) {
	if m.stop == 0 || m.hit > 0 {
		return
	}
	tail := line[m.from:m.stop]
	if !bytes.Equal(tail, m.tail) {
		m.tail = append(m.tail[:0], tail...)
	}
	m.end = len(tail) - 1 // the closing quote
	m.typ = m.end - m.typLen
}

func (s *Session) bad(line int, off int64, reason string) {
	s.BadCount++
	if len(s.BadLines) < maxBadLines {
		s.BadLines = append(s.BadLines, BadLine{Line: line, Offset: off, Reason: reason})
	}
}

// scan walks the line, validating it, and fills p.e. It stops early where
// the rest of a line is known to hold nothing cairn keeps.
func (p *claudeDecoder) scan(line []byte) bool {
	p.walked = len(line)
	sc := &p.sc
	sc.Reset(line)
	e := &p.e
	blocks := e.msg.blocks[:0]
	*e = entry{}
	e.msg.blocks = blocks
	m := &p.skip
	m.from, m.hit, m.stop = 0, 0, 0
	if !sc.Object() {
		return false
	}
	k := sc.Key()
	if string(k) == "parentUuid" {
		// Claude Code's first member, which the walk below would skip
		// (its value is the one that differs between lines).
		sc.Skip()
		m.from = sc.Pos()
		if len(m.tail) > 0 && !sc.Failed() && bytes.HasPrefix(line[m.from:], m.tail) {
			e.typ = line[m.from+m.typ : m.from+m.end]
			m.hit = m.from
			p.walked = m.from + len(m.tail)
			return true
		}
		k = sc.Key()
	}
	for ; k != nil; k = sc.Key() {
		switch string(k) {
		case "type":
			e.typ = p.rawStr()
			if !interesting(e) {
				// Lines of other types (progress, snapshots, queue
				// operations...) are a third of a transcript's bytes and
				// nothing cairn keeps: stop here, trusting the line's end.
				p.walked = sc.Pos()
				if m.from > 0 && e.typ != nil && !sc.Failed() {
					m.stop, m.typLen = p.walked, len(e.typ)
				}
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
func (p *claudeDecoder) attachment() {
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
func (p *claudeDecoder) rawStr() []byte { return rawStr(&p.sc) }

func (p *claudeDecoder) compactMeta() {
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

func (p *claudeDecoder) message(m *message) {
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
				if p.head && (!p.texts || string(m.role) != "assistant") {
					// What a head read keeps of a message needs its
					// blocks only now and then (a compaction's summary,
					// the first prompt, the latest texts): they are
					// checked here as the walk below would check them
					// and decoded when asked for (contentBlocks).
					start := sc.Pos()
					sc.Skip()
					m.deferred = sc.Input()[start:sc.Pos()]
					continue
				}
				p.blocks(sc, m)
			default:
				sc.Skip()
			}
		default:
			sc.Skip()
		}
	}
}

// blocks decodes the content array at sc into m.blocks.
func (p *claudeDecoder) blocks(sc *jsonscan.Scanner, m *message) {
	for sc.Array(); sc.More(); {
		if sc.Peek() != '{' {
			sc.Skip()
			continue
		}
		m.blocks = append(m.blocks, block{})
		p.block(sc, &m.blocks[len(m.blocks)-1])
	}
}

// contentBlocks decodes the blocks a head read left in m.deferred, which
// the walk has already checked: the same blocks the walk would have
// decoded.
func (p *claudeDecoder) contentBlocks(m *message) {
	if m.deferred == nil {
		return
	}
	sc := &p.later
	sc.Reset(m.deferred)
	m.deferred = nil
	p.blocks(sc, m)
}

func (p *claudeDecoder) block(sc *jsonscan.Scanner, b *block) {
	sc.Object()
	for k := sc.Key(); k != nil; k = sc.Key() {
		switch string(k) {
		case "type":
			b.typ = rawStr(sc)
		case "text":
			b.text = rawStr(sc)
		case "id":
			b.id = rawStr(sc)
		case "name":
			b.name = rawStr(sc)
		case "tool_use_id":
			b.toolUseID = rawStr(sc)
		case "is_error":
			b.isError = sc.Bool()
		case "input":
			if sc.Peek() == '{' {
				p.input(sc, &b.in)
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

func (p *claudeDecoder) input(sc *jsonscan.Scanner, in *toolInput) {
	sc.Object()
	for k := sc.Key(); k != nil; k = sc.Key() {
		switch string(k) {
		case "file_path":
			in.filePath = rawStr(sc)
		case "notebook_path":
			in.notebookPath = rawStr(sc)
		case "path":
			in.path = rawStr(sc)
		case "command":
			in.command = rawStr(sc)
		case "taskId", "task_id":
			if sc.IsString() {
				in.taskID = sc.RawString()
			} else {
				start := sc.Pos()
				sc.Skip()
				in.taskID = bytes.TrimSpace(sc.Input()[start:sc.Pos()])
			}
		case "subject":
			in.subject = rawStr(sc)
		case "status":
			in.status = rawStr(sc)
		case "activeForm":
			in.activeForm = rawStr(sc)
		case "description":
			in.description = rawStr(sc)
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
func (p *claudeDecoder) apply(s *Session, lineNo int) {
	var ts time.Time
	if mainLine(&p.e) {
		ts = parseTime(p.e.timestamp)
	}
	p.applyAt(s, lineNo, ts)
}

// mainLine says whether the entry is a line of the conversation, whose
// time counts.
func mainLine(e *entry) bool {
	switch string(e.typ) {
	case "assistant", "user", "system":
		return true
	}
	return false
}

// applyAt is apply with the entry's time already parsed (parseTime of its
// timestamp): the parallel read parses it on the workers.
func (p *claudeDecoder) applyAt(s *Session, lineNo int, ts time.Time) {
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
			s.restoreSeen(lineNo)
		}
		return
	default:
		s.Skipped++
		return
	}
	s.saw(ts)
	p.applyMain(s, ts, lineNo)
}

// applyMain is apply for a line of the conversation (assistant, user,
// system) whose time was seen.
func (p *claudeDecoder) applyMain(s *Session, ts time.Time, lineNo int) {
	e := &p.e
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
		if p.head {
			p.assistantHead(s, ts, lineNo)
		} else {
			p.assistant(s, ts, lineNo)
		}
	case "user":
		if p.head {
			p.userHead(s, ts, lineNo)
		} else {
			p.user(s, ts, lineNo)
		}
	case "system":
		if string(e.subtype) == "compact_boundary" {
			s.compacted(Compaction{
				Trigger:    jsonscan.Unescape(e.trigger),
				PreTokens:  e.pre,
				PostTokens: e.post,
				Time:       ts,
				Line:       lineNo,
			})
		}
	}
}

func (p *claudeDecoder) assistant(s *Session, ts time.Time, lineNo int) {
	e := &p.e
	m := &e.msg
	// Synthetic replies (API errors, interruptions) carry no real usage.
	synthetic := string(m.model) == "<synthetic>"
	if !e.sidechain && !synthetic && m.hasUsage {
		s.reply(m.id, ts, lineNo, m.usage)
		setStr(&s.Model, m.model)
	}
	if !e.sidechain && !synthetic {
		k := 0
		for i := range m.blocks {
			if b := &m.blocks[i]; string(b.typ) == "text" && len(b.text) > 0 {
				if k < len(p.sayings) {
					s.said(p.sayings[k], ts, lineNo)
				} else if p.texts {
					s.assistantText(jsonscan.Unescape(b.text), ts, lineNo, p.full)
				}
				k++
			}
		}
	}
	for i := range m.blocks {
		b := &m.blocks[i]
		if string(b.typ) != "tool_use" || len(b.id) == 0 || s.call(b.id) != nil {
			continue
		}
		c := ToolCall{ID: string(b.id), Name: jsonscan.Unescape(b.name), Time: ts, Line: lineNo, Sidechain: e.sidechain}
		s.toolCall(c, &b.in, jsonscan.Unescape(e.cwd), &p.sub, p.full)
	}
}

// assistantHead is assistant for the head: the reply's usage and model,
// and its texts as the light read keeps them (the latest few, which the
// head does not save but the Stop hook looks for its reply in), unless
// Parser.NoTexts: unescaping every reply's texts of a large transcript
// was a twentieth of a cold read's CPU.
func (p *claudeDecoder) assistantHead(s *Session, ts time.Time, lineNo int) {
	e := &p.e
	m := &e.msg
	if e.sidechain || string(m.model) == "<synthetic>" {
		return
	}
	if m.hasUsage {
		s.reply(m.id, ts, lineNo, m.usage)
		setStr(&s.Model, m.model)
	}
	if !p.texts {
		return
	}
	p.contentBlocks(m)
	for i := range m.blocks {
		if b := &m.blocks[i]; string(b.typ) == "text" && len(b.text) > 0 {
			s.assistantText(jsonscan.Unescape(b.text), ts, lineNo, false)
		}
	}
}

// userHead is user for the head: a compaction's summary, and the first
// prompt (the head keeps no other; deciding what is a prompt strips and
// cleans the text, so once one is found the rest are not looked at).
func (p *claudeDecoder) userHead(s *Session, ts time.Time, lineNo int) {
	e := &p.e
	if e.compactSummary {
		p.contentBlocks(&e.msg)
		s.compactSummary(p.text())
		return
	}
	if len(s.Prompts) > 0 || e.sidechain || e.meta || e.visibleOnly {
		return
	}
	p.contentBlocks(&e.msg)
	if typed, ok := promptText(p.text(), &e.msg); ok {
		s.prompt(typed, ts, lineNo, false)
	}
}

func (p *claudeDecoder) user(s *Session, ts time.Time, lineNo int) {
	e := &p.e
	m := &e.msg
	for i := range m.blocks {
		b := &m.blocks[i]
		if string(b.typ) != "tool_result" {
			continue
		}
		c := s.call(b.toolUseID)
		if c == nil {
			continue
		}
		r := result{isError: b.isError, raw: b.result}
		if c.Name == "Bash" {
			if j := p.judgedAt(i); j != nil {
				r.exit, r.judged = j.exit, j
			} else {
				r.exit = claudeExit(b)
			}
		}
		s.toolResult(c, &r, lineNo, p.full)
	}
	if e.compactSummary {
		s.compactSummary(p.text())
		return
	}
	if e.sidechain || e.meta || e.visibleOnly {
		return
	}
	if typed, ok := promptText(p.text(), m); ok {
		s.prompt(typed, ts, lineNo, p.full)
	}
}

// text returns the message's text: the content string or its text blocks.
func (p *claudeDecoder) text() string {
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

// claudeExit is a Bash result's exit code: 0 when it is not an error, N
// from "Exit code N", nil when an error result does not say (rejected,
// interrupted).
func claudeExit(b *block) *int {
	if !b.isError {
		return new(int)
	}
	if !bytes.HasPrefix(b.result, []byte(exitCodePrefix)) {
		return nil
	}
	rest := b.result[len(exitCodePrefix):]
	n := 0
	for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	code, err := strconv.Atoi(string(rest[:n]))
	if err != nil {
		return nil
	}
	return &code
}

// promptText decides whether a user message is something the user typed and
// returns its text without system reminders.
func promptText(text string, m *message) (string, bool) {
	for i := range m.blocks {
		if string(m.blocks[i].typ) == "tool_result" {
			return "", false
		}
	}
	text = stripTagged(text, "system-reminder")
	t := strings.TrimSpace(text)
	if t == "" {
		return "", false
	}
	for _, p := range nonPromptPrefixes {
		if strings.HasPrefix(t, p) {
			return "", false
		}
	}
	return t, true
}

// Lines Claude Code writes as "user" that the user did not type.
var nonPromptPrefixes = []string{
	"<command-name>", "<command-message>", "<command-args>",
	"<local-command-stdout>", "<local-command-stderr>", "<local-command-caveat>",
	"<bash-input>", "<bash-stdout>", "<bash-stderr>",
	"<task-notification>", "<user-prompt-submit-hook>",
	"[Request interrupted",
	"Caveat: The messages below were generated",
	"This session is being continued from a previous conversation",
}
