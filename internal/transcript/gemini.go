package transcript

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cairn-agent/cairn/internal/jsonscan"
)

// geminiDecoder reads Gemini CLI chat files
// ($GEMINI_CLI_HOME/.gemini/tmp/<project>/chats/session-*.jsonl, observed
// on 0.61.0). A line is one of:
//
//   - a header {sessionId, projectHash, startTime, lastUpdated, kind},
//     written again on each resume;
//   - a message record {id, timestamp, type: user|gemini|info|...,
//     content, displayContent?, tokens?, model?, toolCalls?}; a record
//     with the id of an earlier one replaces it (a reply is written
//     again once its tool calls have results);
//   - a patch {"$set": {...}}. $set.messages replaces the whole history:
//     on resume with the same messages, on compression with a
//     <state_snapshot> summary, a "Got it" reply and the part of the
//     history kept.
//
// Usage is on gemini records: tokens.input is the prompt's token count,
// the context Gemini CLI compares with its compression threshold. The
// history a $set carries was read already, record by record, and is not
// read again; only a <state_snapshot> not seen before is news, a
// compression.
type geminiDecoder struct {
	full  bool
	texts bool // the latest texts are kept (not Parser.NoTexts)
	sc    jsonscan.Scanner
	sub   jsonscan.Scanner
	r     geminiRecord
}

// geminiRecord is the part of one chat line cairn reads. Byte slices point
// into the line (raw, JSON-escaped) and die with it.
type geminiRecord struct {
	header               bool // has projectHash
	set                  bool
	sessionID, startTime []byte
	id, timestamp, typ   []byte
	model                []byte
	content              []byte // content as a plain string
	texts, display       [][]byte
	hasDisplay           bool
	hasTokens            bool
	tokens               geminiTokens
	calls                []geminiCall
	snapshot, snapshotID []byte // a <state_snapshot> message in $set.messages
	sessionContext       []byte // the <session_context> message there
	snapshotTime         []byte
	historyChars         int
}

type geminiTokens struct{ input, cached, output int64 }

type geminiCall struct {
	id, name, status []byte
	args             []byte // the args object
	output, err      []byte
}

func (d *geminiDecoder) feed(s *Session, line []byte, lineNo int, off int64) {
	feedRecord(s, line, lineNo, off, d.scan, d.apply)
}

func (d *geminiDecoder) scan(line []byte) bool {
	sc := &d.sc
	sc.Reset(line)
	r := &d.r
	texts, display, calls := r.texts[:0], r.display[:0], r.calls[:0]
	*r = geminiRecord{texts: texts, display: display, calls: calls}
	if !sc.Object() {
		return false
	}
	for k := sc.Key(); k != nil; k = sc.Key() {
		switch string(k) {
		case "projectHash":
			r.header = true
			sc.Skip()
		case "sessionId":
			r.sessionID = rawStr(sc)
		case "startTime":
			r.startTime = rawStr(sc)
		case "id":
			r.id = rawStr(sc)
		case "timestamp":
			r.timestamp = rawStr(sc)
		case "type":
			r.typ = rawStr(sc)
		case "model":
			r.model = rawStr(sc)
		case "content":
			if sc.IsString() {
				r.content = sc.RawString()
			} else {
				r.texts = d.parts(r.texts)
			}
		case "displayContent":
			r.hasDisplay = true
			if sc.IsString() {
				r.display = append(r.display, sc.RawString())
			} else {
				r.display = d.parts(r.display)
			}
		case "tokens":
			r.hasTokens = sc.Peek() == '{'
			d.object(func(k []byte) {
				switch string(k) {
				case "input":
					r.tokens.input = sc.Int()
				case "cached":
					r.tokens.cached = sc.Int()
				case "output":
					r.tokens.output = sc.Int()
				default:
					sc.Skip()
				}
			})
		case "toolCalls":
			if sc.Peek() != '[' {
				sc.Skip()
				continue
			}
			for sc.Array(); sc.More(); {
				d.toolCall()
			}
		case "$set":
			r.set = true
			d.object(func(k []byte) {
				if string(k) == "messages" && sc.Peek() == '[' {
					d.history()
				} else {
					sc.Skip()
				}
			})
		default:
			sc.Skip()
		}
	}
	sc.End()
	return !sc.Failed()
}

func (d *geminiDecoder) object(f func(k []byte)) {
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

// parts appends the raw texts of a content array (parts that are not
// thoughts); a string is one text.
func (d *geminiDecoder) parts(texts [][]byte) [][]byte {
	sc := &d.sc
	switch sc.Peek() {
	case '"':
		return append(texts, sc.RawString())
	case '[':
	default:
		sc.Skip()
		return texts
	}
	for sc.Array(); sc.More(); {
		var t []byte
		thought := false
		d.object(func(k []byte) {
			switch string(k) {
			case "text":
				t = rawStr(sc)
			case "thought":
				thought = sc.Bool()
			default:
				sc.Skip()
			}
		})
		if t != nil && !thought {
			texts = append(texts, t)
		}
	}
	return texts
}

func (d *geminiDecoder) toolCall() {
	sc := &d.sc
	r := &d.r
	var c geminiCall
	d.object(func(k []byte) {
		switch string(k) {
		case "id":
			c.id = rawStr(sc)
		case "name":
			c.name = rawStr(sc)
		case "status":
			c.status = rawStr(sc)
		case "args":
			start := sc.Pos()
			sc.Skip()
			c.args = sc.Input()[start:sc.Pos()]
		case "result":
			// [{functionResponse: {id, name, response: {output | error}}}]
			if sc.Peek() != '[' {
				sc.Skip()
				return
			}
			for sc.Array(); sc.More(); {
				d.object(func(k []byte) {
					if string(k) != "functionResponse" {
						sc.Skip()
						return
					}
					d.object(func(k []byte) {
						if string(k) != "response" {
							sc.Skip()
							return
						}
						d.object(func(k []byte) {
							switch string(k) {
							case "output":
								if c.output == nil {
									c.output = rawStr(sc)
								} else {
									sc.Skip()
								}
							case "error":
								if c.err == nil {
									c.err = rawStr(sc)
								} else {
									sc.Skip()
								}
							default:
								sc.Skip()
							}
						})
					})
				})
			}
		default:
			sc.Skip()
		}
	})
	if len(c.id) > 0 {
		r.calls = append(r.calls, c)
	}
}

// stateSnapshot opens the summary Gemini CLI's compression puts in the
// history; sessionContext the first message, which says where the
// session works.
var (
	stateSnapshot  = []byte("<state_snapshot>")
	sessionContext = []byte("<session_context>")
)

// workspaceList heads the list of workspace directories in the
// <session_context> message.
const workspaceList = "- **Workspace Directories:**\n"

// workspace is the first workspace directory a <session_context> names:
// the chat file records no cwd of its own.
func workspace(ctx string) string {
	i := strings.Index(ctx, workspaceList)
	if i < 0 {
		return ""
	}
	line, _, _ := strings.Cut(ctx[i+len(workspaceList):], "\n")
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "- ") {
		return ""
	}
	return strings.TrimSpace(line[2:])
}

// history walks a $set.messages list: the size of its texts, and the
// <state_snapshot> message if it holds one.
func (d *geminiDecoder) history() {
	sc := &d.sc
	r := &d.r
	for sc.Array(); sc.More(); {
		var id, typ, ts []byte
		var first []byte
		d.object(func(k []byte) {
			switch string(k) {
			case "id":
				id = rawStr(sc)
			case "type":
				typ = rawStr(sc)
			case "timestamp":
				ts = rawStr(sc)
			case "content":
				if sc.IsString() {
					t := sc.RawString()
					r.historyChars += utf8.RuneCount(t)
					first = t
					return
				}
				if sc.Peek() != '[' {
					sc.Skip()
					return
				}
				for sc.Array(); sc.More(); {
					start := sc.Pos()
					var t []byte
					d.object(func(k []byte) {
						if string(k) == "text" {
							t = rawStr(sc)
						} else {
							sc.Skip()
						}
					})
					if t != nil {
						// Gemini CLI's own estimate counts a text's
						// characters, any other part's JSON.
						r.historyChars += utf8.RuneCount(t)
						if first == nil {
							first = t
						}
					} else {
						r.historyChars += sc.Pos() - start
					}
				}
			default:
				sc.Skip()
			}
		})
		switch {
		case string(typ) != "user":
		case bytes.HasPrefix(bytes.TrimSpace(first), stateSnapshot):
			r.snapshot, r.snapshotID, r.snapshotTime = first, id, ts
		case bytes.HasPrefix(first, sessionContext):
			r.sessionContext = first
		}
	}
}

func (d *geminiDecoder) apply(s *Session, lineNo int) {
	r := &d.r
	switch {
	case r.header:
		// Gemini CLI writes the hooks' context it uses into the user's
		// record, in <hook_context> tags, before the request.
		s.HookAnswers = true
		setStr(&s.SessionID, r.sessionID)
		s.seen(r.startTime)
	case r.set:
		if s.CWD == "" && r.sessionContext != nil {
			s.CWD = workspace(jsonscan.Unescape(r.sessionContext))
		}
		if r.snapshot != nil {
			d.compression(s, lineNo)
		}
	default:
		ts := s.seen(r.timestamp)
		switch string(r.typ) {
		case "user":
			d.user(s, ts, lineNo)
		case "gemini":
			d.gemini(s, ts, lineNo)
		default:
			// info, error and warning records: what the user was shown.
			s.Skipped++
		}
	}
}

// geminiNotTyped open the user records that Gemini CLI writes for itself.
var geminiNotTyped = []string{"<session_context>", "<state_snapshot>"}

// hookRestore opens a hook's context that is cairn's restore, as Gemini
// CLI records it (JSON-escaped, as it stands in the line).
var hookRestore = []byte("<hook_context>" + RestoreHeader)

func (d *geminiDecoder) user(s *Session, ts time.Time, lineNo int) {
	r := &d.r
	for _, t := range r.texts {
		if bytes.Contains(t, hookRestore) {
			s.restoreSeen(lineNo)
			break
		}
	}
	texts := r.texts
	if r.hasDisplay {
		// What the user was shown of the prompt: without the context a
		// BeforeAgent hook added as a part of its own.
		texts = r.display
	}
	var sb strings.Builder
	for _, t := range texts {
		if sb.Len() > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString(jsonscan.Unescape(t))
	}
	// Hook context is prepended or appended in <hook_context> tags.
	typed := strings.TrimSpace(stripTagged(sb.String(), "hook_context"))
	if typed == "" {
		return
	}
	for _, p := range geminiNotTyped {
		if strings.HasPrefix(typed, p) {
			return
		}
	}
	s.prompt(typed, ts, lineNo, d.full)
}

func (d *geminiDecoder) gemini(s *Session, ts time.Time, lineNo int) {
	r := &d.r
	// A record written again (with its tool calls' results) repeats the
	// reply: its text counts once.
	_, again := s.index().turnByMsg[string(r.id)]
	again = again && len(r.id) > 0
	if r.hasTokens {
		s.reply(r.id, ts, lineNo, Usage{
			Input:     max(0, r.tokens.input-r.tokens.cached),
			CacheRead: r.tokens.cached,
			Output:    r.tokens.output,
		})
		setStr(&s.Model, r.model)
	}
	if !again && d.texts {
		if len(r.content) > 0 {
			s.assistantText(jsonscan.Unescape(r.content), ts, lineNo, d.full)
		}
		for _, t := range r.texts {
			s.assistantText(jsonscan.Unescape(t), ts, lineNo, d.full)
		}
	}
	for i := range r.calls {
		d.call(s, &r.calls[i], ts, lineNo)
	}
}

// call records a tool call and, once it has one, its result, under the
// Session's tool names.
func (d *geminiDecoder) call(s *Session, gc *geminiCall, ts time.Time, lineNo int) {
	c := s.call(gc.id)
	if c == nil {
		name := jsonscan.Unescape(gc.name)
		nc := ToolCall{ID: string(gc.id), Name: name, Time: ts, Line: lineNo}
		var in toolInput
		cwd := s.CWD
		switch name {
		case "run_shell_command":
			nc.Name = "Bash"
			in.command = d.member(gc.args, "command")
			in.description = d.member(gc.args, "description")
			if dir := d.member(gc.args, "dir_path"); len(dir) > 0 {
				cwd = absPath(cwd, jsonscan.Unescape(dir))
			}
		case "write_file":
			nc.Name = "Write"
			in.filePath = d.member(gc.args, "file_path")
		case "replace":
			nc.Name = "Edit"
			in.filePath = d.member(gc.args, "file_path")
		case "read_file":
			nc.Name = "Read"
			in.filePath = d.member(gc.args, "file_path")
			if len(in.filePath) == 0 {
				in.filePath = d.member(gc.args, "absolute_path")
			}
		case "write_todos":
			nc.Name = "TodoWrite"
			in.todos = d.member(gc.args, "todos")
		}
		c = s.toolCall(nc, &in, cwd, &d.sub, d.full)
	}
	status := string(gc.status)
	if c.Done || (status != "success" && status != "error" && status != "cancelled") {
		return
	}
	res := result{raw: gc.output, isError: status != "success"}
	if res.isError && len(gc.err) > 0 {
		res.raw = gc.err
	}
	if c.Name == "Bash" && !res.isError {
		res.exit, res.raw = geminiShell(gc.output)
		res.isError = res.exit != nil && *res.exit != 0
	}
	s.toolResult(c, &res, lineNo, d.full)
}

// member is one member of an object: a string's raw body, or the raw
// text of any other value; nil when there is none.
func (d *geminiDecoder) member(obj []byte, name string) []byte {
	sc := &d.sub
	sc.Reset(obj)
	if sc.Peek() != '{' {
		return nil
	}
	sc.Object()
	for k := sc.Key(); k != nil; k = sc.Key() {
		if string(k) == name && sc.IsString() {
			return sc.RawString()
		}
		start := sc.Pos()
		sc.Skip()
		if string(k) == name {
			return bytes.TrimSpace(obj[start:sc.Pos()])
		}
	}
	return nil
}

// Markers of run_shell_command's result, as they stand JSON-escaped:
// "Output: ...\nExit Code: N\nProcess Group PGID: ..." (older clients
// also write "Command:", "Directory:", "Error:", "Signal:" lines, and
// "(none)" for an empty field).
var (
	geminiOutput = []byte(`Output: `)
	geminiExit   = []byte(`\nExit Code: `)
	geminiEnds   = [][]byte{[]byte(`\nExit Code: `), []byte(`\nError: `), []byte(`\nSignal: `),
		[]byte(`\nBackground PIDs: `), []byte(`\nProcess Group PGID: `), []byte(`\n</untrusted_context>`)}
)

// geminiShell reads a shell result (raw): the exit code, 0 when it gives
// none (Gemini CLI writes the line only for a failure), nil after a
// signal; and the output.
func geminiShell(raw []byte) (*int, []byte) {
	out := raw
	if i := bytes.Index(raw, geminiOutput); i >= 0 {
		out = raw[i+len(geminiOutput):]
		end := len(out)
		for _, m := range geminiEnds {
			if j := bytes.Index(out, m); j >= 0 && j < end {
				end = j
			}
		}
		out = out[:end]
	}
	if bytes.Contains(raw, []byte(`\nSignal: `)) && !bytes.Contains(raw, []byte(`\nSignal: (none)`)) {
		return nil, out
	}
	code := 0
	if i := bytes.Index(raw, geminiExit); i >= 0 {
		rest := raw[i+len(geminiExit):]
		n := 0
		if n < len(rest) && rest[n] == '-' {
			n++
		}
		for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
			n++
		}
		if v, err := strconv.Atoi(string(rest[:n])); err == nil {
			code = v
		}
	}
	return &code, out
}

// compression records a compression the first time its <state_snapshot>
// is seen: a resumed history repeats it.
func (d *geminiDecoder) compression(s *Session, lineNo int) {
	r := &d.r
	name := string(r.snapshotID)
	if name == "" {
		sum := sha256.Sum256(r.snapshot)
		name = "sha256:" + hex.EncodeToString(sum[:8])
	}
	if name == s.Carry.Snapshot {
		return
	}
	s.Carry.Snapshot = name
	var pre int64
	if n := len(s.Turns); n > 0 {
		pre = s.Turns[n-1].Usage.Context()
	}
	ts := s.seen(r.snapshotTime)
	s.compacted(Compaction{PreTokens: pre, Time: ts, Line: lineNo, ContextChars: r.historyChars})
	summary := strings.TrimSpace(jsonscan.Unescape(r.snapshot))
	summary = strings.TrimSuffix(strings.TrimPrefix(summary, string(stateSnapshot)), "</state_snapshot>")
	s.compactSummary(strings.TrimSpace(summary))
}
