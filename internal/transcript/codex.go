package transcript

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-agent/cairn/internal/jsonscan"
)

// codexDecoder reads Codex CLI rollout files
// ($CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl, observed on 0.169.0):
// one {"timestamp","ordinal","type","payload"} record a line.
//
//   - session_meta: the thread's id, cwd, cli_version; turn_context: the
//     model and the cwd of each turn.
//   - response_item: what the model saw and said: messages (user,
//     developer, assistant), function_call and custom_tool_call (the
//     freeform apply_patch) with their outputs.
//   - event_msg: task_started and token_count (usage and the context
//     window), item_completed (a ContextCompaction ends a compaction).
//   - token_usage_record names the response whose token_count follows.
//   - compacted: the compaction's summary (payload.message).
//
// Usage has two traps. The compaction call's own usage is logged as a
// normal token_count; the assistant message before it is marked
// metadata.compaction_output, and the compacted record names the response
// (compaction_response_id). Right after a compaction a token_count has
// last_token_usage all 0 but total_tokens, Codex's estimate of the new
// context: that is the compaction's PostTokens, not a turn. Codex also
// repeats the latest token_count at the start of a turn; a repeat has the
// same thread total and is no new response.
type codexDecoder struct {
	full  bool
	texts bool // the latest texts are kept (not Parser.NoTexts)
	sc    jsonscan.Scanner
	sub   jsonscan.Scanner
	r     codexRecord
}

// codexRecord is the part of one rollout line cairn reads. Byte slices
// point into the line (raw, JSON-escaped) and die with it.
type codexRecord struct {
	typ, timestamp []byte
	compactionOut  bool // metadata.compaction_output
	payload        []byte

	// Payload fields, whichever the payload's type.
	ptype, id, role, name    []byte
	cwd, cliVersion, model   []byte
	branch                   []byte
	arguments, callID, input []byte
	output, message          []byte
	compactionResponse       []byte
	responseID, itemType     []byte
	window                   int64
	texts                    [][]byte
	hasInfo                  bool
	cumulative               int64
	last                     codexUsage
	infoWindow               int64
}

type codexUsage struct {
	input, cached, cacheWrite, output, total int64
}

func (d *codexDecoder) feed(s *Session, line []byte, lineNo int, off int64) {
	feedRecord(s, line, lineNo, off, d.scan, d.apply)
}

// scan walks the line, then its payload, into d.r.
func (d *codexDecoder) scan(line []byte) bool {
	sc := &d.sc
	sc.Reset(line)
	texts := d.r.texts[:0]
	d.r = codexRecord{texts: texts}
	r := &d.r
	if !sc.Object() {
		return false
	}
	for k := sc.Key(); k != nil; k = sc.Key() {
		switch string(k) {
		case "type":
			r.typ = rawStr(sc)
		case "timestamp":
			r.timestamp = rawStr(sc)
		case "payload":
			start := sc.Pos()
			sc.Skip()
			r.payload = line[start:sc.Pos()]
		case "metadata":
			if sc.Peek() != '{' {
				sc.Skip()
				continue
			}
			sc.Object()
			for k := sc.Key(); k != nil; k = sc.Key() {
				if string(k) == "compaction_output" {
					r.compactionOut = sc.Bool()
				} else {
					sc.Skip()
				}
			}
		default:
			sc.Skip()
		}
	}
	sc.End()
	if sc.Failed() {
		return false
	}
	if bytes.HasPrefix(bytes.TrimSpace(r.payload), []byte("{")) {
		d.payload(r.payload)
	}
	return !d.sc.Failed()
}

// payload reads the payload object's fields.
func (d *codexDecoder) payload(b []byte) {
	sc := &d.sc
	sc.Reset(b)
	r := &d.r
	sc.Object()
	for k := sc.Key(); k != nil; k = sc.Key() {
		switch string(k) {
		case "type":
			r.ptype = rawStr(sc)
		case "id":
			r.id = rawStr(sc)
		case "role":
			r.role = rawStr(sc)
		case "name":
			r.name = rawStr(sc)
		case "cwd":
			r.cwd = rawStr(sc)
		case "cli_version":
			r.cliVersion = rawStr(sc)
		case "model":
			r.model = rawStr(sc)
		case "git":
			d.object(func(k []byte) {
				if string(k) == "branch" {
					r.branch = rawStr(sc)
				} else {
					sc.Skip()
				}
			})
		case "arguments":
			r.arguments = rawStr(sc)
		case "call_id":
			r.callID = rawStr(sc)
		case "input":
			r.input = rawStr(sc)
		case "output":
			switch sc.Peek() {
			case '"':
				r.output = sc.RawString()
			case '[':
				// Content items (text and images): the first text.
				for sc.Array(); sc.More(); {
					d.object(func(k []byte) {
						if string(k) == "text" && r.output == nil {
							r.output = rawStr(sc)
						} else {
							sc.Skip()
						}
					})
				}
			default:
				sc.Skip()
			}
		case "message":
			r.message = rawStr(sc)
		case "compaction_response_id":
			r.compactionResponse = rawStr(sc)
		case "response_id":
			r.responseID = rawStr(sc)
		case "model_context_window":
			r.window = sc.Int()
		case "item":
			d.object(func(k []byte) {
				if string(k) == "type" {
					r.itemType = rawStr(sc)
				} else {
					sc.Skip()
				}
			})
		case "content":
			if sc.Peek() != '[' {
				sc.Skip()
				continue
			}
			for sc.Array(); sc.More(); {
				d.object(func(k []byte) {
					if string(k) == "text" {
						if t := rawStr(sc); t != nil {
							r.texts = append(r.texts, t)
						}
					} else {
						sc.Skip()
					}
				})
			}
		case "info":
			if sc.Peek() != '{' {
				sc.Skip()
				continue
			}
			r.hasInfo = true
			d.object(func(k []byte) {
				switch string(k) {
				case "total_token_usage":
					var u codexUsage
					d.usage(&u)
					r.cumulative = u.total
				case "last_token_usage":
					d.usage(&r.last)
				case "model_context_window":
					r.infoWindow = sc.Int()
				default:
					sc.Skip()
				}
			})
		default:
			sc.Skip()
		}
	}
	sc.End()
}

// object walks an object's members with f, which must consume each value;
// anything else is skipped.
func (d *codexDecoder) object(f func(k []byte)) {
	sc := &d.sc
	if sc.Peek() != '{' {
		sc.Skip()
		return
	}
	sc.Object()
	for k := sc.Key(); k != nil; k = sc.Key() {
		f(k)
	}
}

func (d *codexDecoder) usage(u *codexUsage) {
	sc := &d.sc
	d.object(func(k []byte) {
		switch string(k) {
		case "input_tokens":
			u.input = sc.Int()
		case "cached_input_tokens":
			u.cached = sc.Int()
		case "cache_write_input_tokens":
			u.cacheWrite = sc.Int()
		case "output_tokens":
			u.output = sc.Int()
		case "total_tokens":
			u.total = sc.Int()
		default:
			sc.Skip()
		}
	})
}

// rawStr reads a string value, or skips a value of another kind.
func rawStr(sc *jsonscan.Scanner) []byte {
	if !sc.IsString() {
		sc.Skip()
		return nil
	}
	return sc.RawString()
}

func (d *codexDecoder) apply(s *Session, lineNo int) {
	r := &d.r
	ts := s.seen(r.timestamp)
	switch string(r.typ) {
	case "session_meta":
		// Codex writes every hook's context it uses into the history, as
		// a developer message before the request it goes with.
		s.HookAnswers = true
		setStr(&s.SessionID, r.id)
		setStr(&s.CWD, r.cwd)
		setStr(&s.ClientVersion, r.cliVersion)
		setStr(&s.GitBranch, r.branch)
	case "turn_context":
		setStr(&s.Model, r.model)
		setStr(&s.CWD, r.cwd)
	case "token_usage_record":
		s.Carry.Response = jsonscan.Unescape(r.responseID)
	case "response_item":
		d.item(s, ts, lineNo)
	case "event_msg":
		d.event(s, ts, lineNo)
	case "compacted":
		d.compacted(s, ts, lineNo)
	default:
		// world_state and types newer clients add.
		s.Skipped++
	}
}

func (d *codexDecoder) item(s *Session, ts time.Time, lineNo int) {
	r := &d.r
	switch string(r.ptype) {
	case "message":
		switch string(r.role) {
		case "user":
			if typed, ok := codexPrompt(d.text()); ok {
				s.prompt(typed, ts, lineNo, d.full)
			}
		case "assistant":
			if r.compactionOut {
				// The summary, which the compacted record repeats: the
				// usage that follows is the compaction call's.
				s.Carry.Compacting = true
				return
			}
			for _, t := range r.texts {
				if d.texts {
					s.assistantText(jsonscan.Unescape(t), ts, lineNo, d.full)
				}
			}
		case "developer":
			// The client's instructions and the hooks' context: of
			// these, cairn reads only whether a restore reached the
			// model.
			for _, t := range r.texts {
				if bytes.HasPrefix(t, []byte(RestoreHeader)) {
					s.restoreSeen(lineNo)
					break
				}
			}
		}
	case "function_call", "custom_tool_call":
		d.call(s, ts, lineNo)
	case "function_call_output", "custom_tool_call_output":
		d.result(s, lineNo)
	default:
		// reasoning, web searches and item types newer clients add.
		s.Skipped++
	}
}

// text is a message's texts, joined by newlines.
func (d *codexDecoder) text() string {
	var sb strings.Builder
	for i, t := range d.r.texts {
		if i > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString(jsonscan.Unescape(t))
	}
	return sb.String()
}

// codexPrompt decides whether a user message is something the user typed:
// Codex writes the environment, the project's instructions and the
// compaction's summary as user messages too.
func codexPrompt(text string) (string, bool) {
	t := strings.TrimSpace(text)
	if t == "" {
		return "", false
	}
	for _, p := range codexNotTyped {
		if strings.HasPrefix(t, p) {
			return "", false
		}
	}
	return t, true
}

var codexNotTyped = []string{
	"<environment_context>", "<user_instructions>", "<INSTRUCTIONS>", "# AGENTS.md instructions",
	"<user_shell_command>", "<turn_aborted>", "<skills_instructions>",
	"Another language model started to solve this problem",
	"You are performing a CONTEXT CHECKPOINT COMPACTION",
}

// call records a function_call or custom_tool_call under the Session's
// tool names: a shell command is Bash, a plan update TodoWrite.
func (d *codexDecoder) call(s *Session, ts time.Time, lineNo int) {
	r := &d.r
	if len(r.callID) == 0 || s.call(r.callID) != nil {
		return
	}
	name := jsonscan.Unescape(r.name)
	c := ToolCall{ID: string(r.callID), Name: name, Time: ts, Line: lineNo}
	cwd := s.CWD
	var in toolInput
	var args []byte // the arguments object, unescaped; in's slices point into it
	if len(r.arguments) > 0 {
		args = []byte(jsonscan.Unescape(r.arguments))
	}
	switch name {
	case "exec_command", "shell", "shell_command", "container.exec", "local_shell":
		c.Name = "Bash"
		cmd, workdir := d.commandArgs(args)
		in.command = cmd
		if workdir != "" {
			cwd = absPath(cwd, workdir)
		}
	case "update_plan":
		c.Name = "TodoWrite"
		in.todos = d.member(args, "plan")
	case "apply_patch":
		patch := r.input
		if len(patch) == 0 {
			patch = d.member(args, "input")
		}
		d.patch(s, &c, jsonscan.Unescape(patch), cwd)
		s.toolCall(c, nil, cwd, &d.sub, d.full)
		return
	}
	s.toolCall(c, &in, cwd, &d.sub, d.full)
}

// commandArgs is a shell call's command (raw, for the derivation) and
// workdir: exec_command's cmd, shell_command's command string, or the
// older shell tool's argv, whose script ["bash", "-lc", script] is the
// command.
func (d *codexDecoder) commandArgs(args []byte) (cmd []byte, workdir string) {
	sc := &d.sub
	sc.Reset(args)
	if sc.Peek() != '{' {
		return nil, ""
	}
	sc.Object()
	for k := sc.Key(); k != nil; k = sc.Key() {
		switch string(k) {
		case "cmd":
			cmd = rawStr(sc)
		case "command":
			if sc.IsString() {
				cmd = sc.RawString()
				continue
			}
			var argv []string
			if sc.Peek() == '[' {
				for sc.Array(); sc.More(); {
					if sc.IsString() {
						argv = append(argv, sc.Str())
					} else {
						sc.Skip()
					}
				}
			} else {
				sc.Skip()
			}
			cmd = argvCommand(argv)
		case "workdir":
			if sc.IsString() {
				workdir = sc.Str()
			} else {
				sc.Skip()
			}
		default:
			sc.Skip()
		}
	}
	return cmd, workdir
}

// argvCommand is an argv as one command line, JSON-escaped.
func argvCommand(argv []string) []byte {
	line := strings.Join(argv, " ")
	if len(argv) == 3 && (argv[1] == "-lc" || argv[1] == "-c") {
		line = argv[2]
	}
	b, _ := json.Marshal(line)
	return b[1 : len(b)-1]
}

// member is the raw text of one member of an object (an array or
// object), nil when there is none.
func (d *codexDecoder) member(obj []byte, name string) []byte {
	sc := &d.sub
	sc.Reset(obj)
	if sc.Peek() != '{' {
		return nil
	}
	sc.Object()
	for k := sc.Key(); k != nil; k = sc.Key() {
		start := sc.Pos()
		sc.Skip()
		if string(k) == name {
			v := bytes.TrimSpace(obj[start:sc.Pos()])
			if len(v) > 1 && v[0] == '"' {
				return v[1 : len(v)-1]
			}
			return v
		}
	}
	return nil
}

// patch records the files an apply_patch patch adds, updates, moves or
// deletes, relative to cwd.
func (d *codexDecoder) patch(s *Session, c *ToolCall, patch, cwd string) {
	var paths []string
	note := func(p string, k opKind) {
		p = absPath(cwd, strings.TrimSpace(p))
		if p == "" {
			return
		}
		s.fileOp(p, k)
		for _, q := range paths {
			if q == p {
				return
			}
		}
		paths = append(paths, p)
	}
	for _, l := range strings.Split(patch, "\n") {
		switch {
		case strings.HasPrefix(l, "*** Add File: "):
			note(l[len("*** Add File: "):], opWrite)
		case strings.HasPrefix(l, "*** Update File: "):
			note(l[len("*** Update File: "):], opEdit)
		case strings.HasPrefix(l, "*** Delete File: "):
			note(l[len("*** Delete File: "):], opDelete)
		case strings.HasPrefix(l, "*** Move to: "):
			note(l[len("*** Move to: "):], opWrite)
		}
	}
	if len(paths) > 0 {
		c.FilePath = paths[0]
		c.Paths = paths[1:]
	}
	if len(c.Paths) == 0 {
		c.Paths = nil
	}
}

// result records a call's output. Codex writes a command's as a header
// and its output: "...\nProcess exited with code N\n...\nOutput:\n..."
// (exec_command), "Exit code: N\nWall time: ...\nOutput:\n..." (apply_patch
// and the older shell); one still running says "Process running with
// session ID N" and has no exit code yet.
func (d *codexDecoder) result(s *Session, lineNo int) {
	r := &d.r
	c := s.call(r.callID)
	if c == nil || c.Done {
		return
	}
	raw := r.output
	res := result{raw: raw}
	if c.Name == "Bash" || c.Name == "apply_patch" {
		if bytes.HasPrefix(raw, codexJSONOutput) {
			res.exit, res.raw = d.jsonOutput(raw)
		} else {
			res.exit, res.raw = codexExit(raw)
		}
		res.isError = res.exit != nil && *res.exit != 0
	}
	s.toolResult(c, &res, lineNo, d.full)
}

// codexJSONOutput opens a command's output as older clients wrote it: a
// JSON object in the string, {"output": ..., "metadata": {"exit_code": N,
// ...}}.
var codexJSONOutput = []byte(`{\"output\":`)

// jsonOutput reads an older client's command output (raw): the exit code
// from its metadata and the output, raw within the unescaped object.
func (d *codexDecoder) jsonOutput(raw []byte) (*int, []byte) {
	obj := []byte(jsonscan.Unescape(raw))
	sc := &d.sub
	sc.Reset(obj)
	var out []byte
	var exit *int
	sc.Object()
	for k := sc.Key(); k != nil; k = sc.Key() {
		switch string(k) {
		case "output":
			out = rawStr(sc)
		case "metadata":
			if sc.Peek() != '{' {
				sc.Skip()
				continue
			}
			sc.Object()
			for k := sc.Key(); k != nil; k = sc.Key() {
				if string(k) == "exit_code" && sc.Peek() != 'n' {
					code := int(sc.Int())
					exit = &code
				} else {
					sc.Skip()
				}
			}
		default:
			sc.Skip()
		}
	}
	if sc.Failed() {
		return nil, raw
	}
	return exit, out
}

// Markers of Codex's command output header, as they stand JSON-escaped.
var (
	codexExited  = []byte(`Process exited with code `)
	codexExit1   = []byte(`Exit code: `)
	codexOutput  = []byte(`Output:\n`)
	codexRunning = []byte(`Process running with session ID`)
)

// codexExit reads a command output's header (raw): the exit code, nil
// when it gives none, and the output after the header.
func codexExit(raw []byte) (*int, []byte) {
	head := raw
	out := raw
	if i := bytes.Index(raw, codexOutput); i >= 0 {
		head, out = raw[:i], raw[i+len(codexOutput):]
	}
	if bytes.Contains(head, codexRunning) {
		return nil, out
	}
	for _, m := range [][]byte{codexExited, codexExit1} {
		i := bytes.Index(head, m)
		if i < 0 {
			continue
		}
		rest := head[i+len(m):]
		n := 0
		if n < len(rest) && rest[n] == '-' {
			n++
		}
		for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
			n++
		}
		if code, err := strconv.Atoi(string(rest[:n])); err == nil {
			return &code, out
		}
	}
	return nil, out
}

func (d *codexDecoder) event(s *Session, ts time.Time, lineNo int) {
	r := &d.r
	switch string(r.ptype) {
	case "task_started":
		if r.window > 0 {
			s.ContextWindow = r.window
		}
	case "token_count":
		d.tokenCount(s, ts, lineNo)
	case "item_completed":
		if string(r.itemType) == "ContextCompaction" {
			d.compactionDone(s, ts, lineNo)
		}
	case "context_compacted":
		d.compactionDone(s, ts, lineNo)
	default:
		s.Skipped++
	}
}

func (d *codexDecoder) tokenCount(s *Session, ts time.Time, lineNo int) {
	r := &d.r
	if !r.hasInfo {
		return
	}
	if r.infoWindow > 0 {
		s.ContextWindow = r.infoWindow
	}
	u, k := r.last, &s.Carry
	if u.input == 0 && u.cached == 0 && u.output == 0 && u.total > 0 {
		// Codex's estimate of the context a compaction left.
		if n := len(s.Compactions); n > 0 && s.Compactions[n-1].Line > s.lastTurnLine() && s.Compactions[n-1].PostTokens == 0 {
			s.Compactions[n-1].PostTokens = u.total
		}
		k.Cumulative, k.LastTotal = r.cumulative, u.total
		return
	}
	if r.cumulative == k.Cumulative && u.total == k.LastTotal {
		return // the latest count again, at a turn's start
	}
	k.Cumulative, k.LastTotal = r.cumulative, u.total
	id := k.Response
	k.Response = ""
	if k.Compacting {
		k.Compacting = false
		return
	}
	if id == "" {
		// Before token_usage_record (older clients): the line names it.
		id = "line-" + strconv.Itoa(lineNo)
	}
	total := u.total
	if total == 0 {
		total = u.input + u.output
	}
	s.reply([]byte(id), ts, lineNo, Usage{
		Input:         max(0, u.input-u.cached-u.cacheWrite),
		CacheRead:     u.cached,
		CacheCreation: u.cacheWrite,
		Output:        u.output,
		Total:         total,
	})
}

// compactionSummaryIntro is what Codex puts before a compaction's summary
// when it hands it to the model.
const compactionSummaryIntro = "use the information in this summary to assist with your own analysis:\n"

func (d *codexDecoder) compacted(s *Session, ts time.Time, lineNo int) {
	r := &d.r
	k := &s.Carry
	if !k.Compacting {
		// No compaction_output mark: the response the record names was
		// the compaction call, already counted as a turn.
		s.dropTurn(jsonscan.Unescape(r.compactionResponse))
	}
	k.Compacting, k.Compacted = false, true
	var pre int64
	if n := len(s.Turns); n > 0 {
		pre = s.Turns[n-1].Usage.Context()
	}
	s.compacted(Compaction{PreTokens: pre, Time: ts, Line: lineNo})
	summary := jsonscan.Unescape(r.message)
	if i := strings.Index(summary, compactionSummaryIntro); i >= 0 {
		summary = summary[i+len(compactionSummaryIntro):]
	}
	s.compactSummary(strings.TrimSpace(summary))
}

// compactionDone reads the event that ends a compaction: the end of the
// one a compacted record began, or one that had none.
func (d *codexDecoder) compactionDone(s *Session, ts time.Time, lineNo int) {
	if s.Carry.Compacted {
		s.Carry.Compacted = false
		return
	}
	var pre int64
	if n := len(s.Turns); n > 0 {
		pre = s.Turns[n-1].Usage.Context()
	}
	s.Carry.Compacting = false
	s.compacted(Compaction{PreTokens: pre, Time: ts, Line: lineNo})
}
