package memory

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/cairn-agent/cairn/internal/redact"
	"github.com/cairn-agent/cairn/internal/text"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// Edits are remembered because much of what a session made is said only
// in them: the helper a question describes ("which helper computes the
// CSS classes of a row") is named in the edit that defined it and in the
// sentence the assistant wrote just before, and nowhere else. The derived
// session keeps where each edit is (its line), not its text, so the text
// is read back from the transcript's end.

// maxEditScan is how much of the transcript's end is read back for the
// edits' text: the edits since the previous checkpoint are in it (a
// checkpoint is taken at each pressure level and each compaction, so
// between two there is at most about a context's worth of transcript),
// and a very long session does not make every checkpoint read it all.
const maxEditScan = 8 << 20

// editExcerpt is how much of an edit's new text its observation keeps:
// the values a question may ask about (a default, a config setting) are
// in it, the rest is in the file.
const editExcerpt = 300

// maxNameScan is how much of an edit's old and new text is read for names.
const maxNameScan = 16 << 10

// maxNames is how many names one edit's observation lists.
const maxNames = 24

// editTool says whether a tool changes a file with text in its input:
// Claude Code's, Gemini CLI's write_file and replace (which the session
// names Write and Edit), Codex's apply_patch. A switch, not a map built
// at every process's start.
func editTool(name string) bool {
	switch name {
	case "Edit", "Write", "MultiEdit", "apply_patch":
		return true
	}
	return false
}

// sessionEdits are the session's edits, one observation each: the file,
// the names the edit defined or brought in, the assistant's sentence just
// before it, and the start of its new text. Edits beyond the last
// maxEditScan bytes of the transcript, failed ones and subagents' are left
// out.
func sessionEdits(base Observation, s *transcript.Session) []Observation {
	return sessionEditsWithin(base, s, maxEditScan)
}

// sessionEditsWithin is sessionEdits reading at most limit bytes.
func sessionEditsWithin(base Observation, s *transcript.Session, limit int64) []Observation {
	return editsIn(base, s, tailOf(s, limit))
}

// tailOf is a session's transcript's last lines (at most limit bytes of
// them) by number, read on first use and once: the edits' text and the
// assistant's words before each prompt are read back from them. A line
// out of reach, or a transcript that moved or changed, is nil.
func tailOf(s *transcript.Session, limit int64) func(n int) []byte {
	read := sync.OnceValues(func() ([][]byte, int) {
		if s.Path == "" || s.Offset <= 0 {
			return nil, 0
		}
		lines, first, err := tailLines(s.Path, s.Offset, s.Lines, limit)
		if err != nil {
			return nil, 0 // what is read back is not essential
		}
		return lines, first
	})
	return func(n int) []byte {
		lines, first := read()
		if n < first || n-first >= len(lines) {
			return nil
		}
		return lines[n-first]
	}
}

// editsIn are the session's edits, their text read with at.
func editsIn(base Observation, s *transcript.Session, at func(int) []byte) []Observation {
	var calls []transcript.ToolCall
	for _, tc := range s.ToolCalls {
		if editTool(tc.Name) && tc.Done && !tc.IsError && !tc.Sidechain && tc.FilePath != "" && tc.Line > 0 {
			calls = append(calls, tc)
		}
	}
	if len(calls) == 0 {
		return nil
	}
	var out []Observation
	for _, tc := range calls {
		if tc.Name == "apply_patch" {
			out = append(out, patchEdits(base, tc, at(tc.Line), at(tc.Line-1))...)
			continue
		}
		e, ok := decodeEdit(at(tc.Line), tc.ID)
		if !ok {
			e, ok = decodeGeminiEdit(at(tc.Line), tc.ID)
		}
		if !ok {
			continue
		}
		if e.said == "" {
			// Claude Code writes each block of a reply on its own line: the
			// sentence that says what the edit is for is on one of the
			// lines just before.
			for n := tc.Line - 1; n >= tc.Line-2 && e.said == ""; n-- {
				e.said = assistantText(at(n))
			}
		}
		out = append(out, editObservation(base, tc, e))
	}
	return out
}

// tailLines reads the complete lines of the file that end at offset (the
// last of them numbered last), at most limit bytes of them, and returns
// them with the number of the first.
func tailLines(name string, offset int64, last int, limit int64) ([][]byte, int, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	start := max(0, offset-limit)
	buf := make([]byte, offset-start)
	if n, err := f.ReadAt(buf, start); n < len(buf) || buf[len(buf)-1] != '\n' {
		// Shorter than what was read, or no longer a line's end there:
		// not the transcript the session was derived from.
		return nil, 0, errors.Join(err, errChanged)
	}
	if start > 0 {
		// The first line is cut: it starts before the window.
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			return nil, 0, nil
		}
		buf = buf[i+1:]
	}
	buf = bytes.TrimSuffix(buf, []byte("\n"))
	lines := bytes.Split(buf, []byte("\n"))
	return lines, last - len(lines) + 1, nil
}

var errChanged = errors.New("the transcript changed since it was read")

// edit is what an edit's tool_use says.
type edit struct {
	write    bool
	old, new string
	said     string // the assistant's text in the same line, before the call
}

// block is a content block of a Claude Code message line.
type block struct {
	Type  string `json:"type"`
	ID    string `json:"id"`
	Text  string `json:"text"`
	Input struct {
		OldString string `json:"old_string"`
		NewString string `json:"new_string"`
		Content   string `json:"content"`
		Edits     []struct {
			OldString string `json:"old_string"`
			NewString string `json:"new_string"`
		} `json:"edits"`
	} `json:"input"`
}

type messageLine struct {
	Type    string `json:"type"`
	Message struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

func blocks(line []byte) (string, []block) {
	if len(line) == 0 {
		return "", nil
	}
	var m messageLine
	if json.Unmarshal(line, &m) != nil || len(m.Message.Content) == 0 || m.Message.Content[0] != '[' {
		return m.Type, nil
	}
	var bs []block
	if json.Unmarshal(m.Message.Content, &bs) != nil {
		return m.Type, nil
	}
	return m.Type, bs
}

// decodeEdit finds the tool_use id in a transcript line.
func decodeEdit(line []byte, id string) (edit, bool) {
	if !bytes.Contains(line, []byte(id)) {
		return edit{}, false
	}
	typ, bs := blocks(line)
	if typ != "assistant" {
		return edit{}, false
	}
	var e edit
	for _, b := range bs {
		switch {
		case b.Type == "text":
			e.said = b.Text
		case b.Type == "tool_use" && b.ID == id:
			in := b.Input
			switch {
			case in.Content != "":
				e.write, e.new = true, in.Content
			case len(in.Edits) > 0:
				var o, n []string
				for _, x := range in.Edits {
					o, n = append(o, x.OldString), append(n, x.NewString)
				}
				e.old, e.new = strings.Join(o, "\n"), strings.Join(n, "\n")
			default:
				e.old, e.new = in.OldString, in.NewString
			}
			return e, true
		}
	}
	return edit{}, false
}

// geminiLine is a Gemini CLI chat record: a reply says its text and
// calls its tools in one.
type geminiLine struct {
	Type      string          `json:"type"`
	Content   json.RawMessage `json:"content"`
	ToolCalls []struct {
		ID   string `json:"id"`
		Name string `json:"name"`
		Args struct {
			Content   string `json:"content"`
			OldString string `json:"old_string"`
			NewString string `json:"new_string"`
			// Instruction is what replace was asked to do, in words.
			Instruction string `json:"instruction"`
		} `json:"args"`
	} `json:"toolCalls"`
}

// decodeGeminiEdit finds the write_file or replace call id in a Gemini
// CLI chat line.
func decodeGeminiEdit(line []byte, id string) (edit, bool) {
	if !bytes.Contains(line, []byte(id)) {
		return edit{}, false
	}
	var g geminiLine
	if json.Unmarshal(line, &g) != nil || g.Type != "gemini" {
		return edit{}, false
	}
	var e edit
	_ = json.Unmarshal(g.Content, &e.said) // a string when the reply says something
	for _, c := range g.ToolCalls {
		if c.ID != id {
			continue
		}
		switch c.Name {
		case "write_file":
			e.write, e.new = true, c.Args.Content
		case "replace":
			e.old, e.new = c.Args.OldString, c.Args.NewString
			if strings.TrimSpace(e.said) == "" {
				e.said = c.Args.Instruction
			}
		default:
			return edit{}, false
		}
		return e, true
	}
	return edit{}, false
}

// codexLine is a Codex rollout line: an apply_patch call (freeform, its
// patch in input; or a function call, in its arguments' input), or an
// assistant message.
type codexLine struct {
	Type    string `json:"type"`
	Payload struct {
		Type      string `json:"type"`
		Role      string `json:"role"`
		CallID    string `json:"call_id"`
		Input     string `json:"input"`
		Arguments string `json:"arguments"`
		Content   []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	} `json:"payload"`
}

// patchEdits are the edits of a Codex apply_patch call, one per file it
// adds or updates: its + lines the new text, its - lines the old. prev
// is the line before the call, where the assistant's message that says
// what the patch is for would be.
func patchEdits(base Observation, tc transcript.ToolCall, line, prev []byte) []Observation {
	if !bytes.Contains(line, []byte(tc.ID)) {
		return nil
	}
	var c codexLine
	if json.Unmarshal(line, &c) != nil || c.Payload.CallID != tc.ID {
		return nil
	}
	patch := c.Payload.Input
	if patch == "" && c.Payload.Arguments != "" {
		var args struct {
			Input string `json:"input"`
		}
		if json.Unmarshal([]byte(c.Payload.Arguments), &args) != nil {
			return nil
		}
		patch = args.Input
	}
	said := ""
	var p codexLine
	if json.Unmarshal(prev, &p) == nil && p.Payload.Type == "message" && p.Payload.Role == "assistant" {
		for _, b := range p.Payload.Content {
			said = strings.TrimSpace(said + " " + b.Text)
		}
	}
	files := append([]string{tc.FilePath}, tc.Paths...)
	var out []Observation
	for _, f := range patchFiles(patch) {
		// The session has the patch's paths made absolute, in its order.
		i := slices.IndexFunc(files, func(p string) bool { return p == f.path || strings.HasSuffix(p, "/"+f.path) })
		if i < 0 {
			continue
		}
		one := tc
		one.FilePath = files[i]
		f.edit.said = said
		o := editObservation(base, one, f.edit)
		o.key = "edit " + tc.ID + " " + files[i]
		out = append(out, o)
	}
	return out
}

// patchFile is one file's part of an apply_patch patch.
type patchFile struct {
	path string
	edit edit
}

// patchFiles reads the files a patch adds and updates ("*** Add File:",
// "*** Update File:"), each with its added and removed lines; a deleted
// file has no new text and is left out.
func patchFiles(patch string) []patchFile {
	var out []patchFile
	var old, new []string
	cur := -1
	flush := func() {
		if cur >= 0 {
			out[cur].edit.old, out[cur].edit.new = strings.Join(old, "\n"), strings.Join(new, "\n")
		}
		old, new = nil, nil
	}
	for _, l := range strings.Split(patch, "\n") {
		switch {
		case strings.HasPrefix(l, "*** Add File: "), strings.HasPrefix(l, "*** Update File: "):
			flush()
			add := strings.HasPrefix(l, "*** Add File: ")
			_, p, _ := strings.Cut(l, ": ")
			out = append(out, patchFile{path: strings.TrimSpace(p), edit: edit{write: add}})
			cur = len(out) - 1
		case strings.HasPrefix(l, "*** Delete File: "), strings.HasPrefix(l, "*** End Patch"):
			flush()
			cur = -1
		case cur < 0:
		case strings.HasPrefix(l, "+"):
			new = append(new, l[1:])
		case strings.HasPrefix(l, "-"):
			old = append(old, l[1:])
		}
	}
	flush()
	return slices.DeleteFunc(out, func(f patchFile) bool { return f.edit.new == "" })
}

// assistantText is the text an assistant line says, "" for any other.
func assistantText(line []byte) string {
	// Most lines around an edit are tool results, often long: a line
	// without these bytes is not an assistant's text, and is not decoded.
	// (Inside a JSON string the quotes would be escaped.)
	if !bytes.Contains(line, []byte(`"type":"text"`)) || !bytes.Contains(line, []byte(`"role":"assistant"`)) {
		return ""
	}
	typ, bs := blocks(line)
	if typ != "assistant" {
		return ""
	}
	var parts []string
	for _, b := range bs {
		if b.Type == "text" && strings.TrimSpace(b.Text) != "" {
			parts = append(parts, strings.TrimSpace(b.Text))
		}
	}
	return strings.Join(parts, " ")
}

// editObservation is one edit: "Edited session_live.ex: transcript_row_classes, …".
func editObservation(base Observation, tc transcript.ToolCall, e edit) Observation {
	o := base
	o.Kind = KindEdit
	if !tc.Time.IsZero() {
		o.Time = tc.Time
	}
	// A whole file written: its names are in its first part, most of the
	// time, and reading all of a long one for them costs too much here.
	// Secrets go before the text is cut or picked from, so that no cut
	// leaves the start of one that redaction would no longer recognise
	// (clean redacts again what is kept; redaction is idempotent).
	old, new := redact.String(cutAtSpace(e.old, maxNameScan)), redact.String(cutAtSpace(e.new, maxNameScan))
	names := editNames(old, new)
	verb := "Edited "
	if e.write {
		verb = "Wrote "
	}
	o.Title = verb + path.Base(tc.FilePath)
	if len(names) > 0 {
		o.Title += ": " + strings.Join(names, ", ")
	}
	var b strings.Builder
	if said := strings.TrimSpace(e.said); said != "" {
		b.WriteString(text.Clip(redact.String(said), 400) + "\n")
	}
	if len(names) > 0 {
		b.WriteString("Names: " + strings.Join(names, ", ") + "\n")
	}
	if editExcerpt > 0 {
		b.WriteString("New text: " + text.Clip(strings.Join(strings.Fields(new), " "), editExcerpt) + "\n")
	}
	o.Body = b.String()
	o.Files = []string{tc.FilePath}
	o.key = "edit " + tc.ID
	return o
}

// cutAtSpace cuts s to at most n bytes at the last line break, else the
// last space, before n: a secret does not span either.
func cutAtSpace(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	if i := strings.LastIndexByte(s, '\n'); i > 0 {
		return s[:i]
	}
	if i := strings.LastIndexAny(s, " \t"); i > 0 {
		return s[:i]
	}
	return ""
}

// defining are the words that start a definition in the common
// languages: Elixir, Python and Ruby's def/defp/defmodule, Go's func and
// type, JavaScript's function, class, const, let, var, Rust's fn, struct,
// enum, trait, impl; modifiers are the words that may come before them.
var (
	defining = wordSet(`defmodule defprotocol defimpl defmacro defmacrop def defp defstruct defdelegate defguard defguardp
		func function class type struct interface enum trait impl const let var fn module`)
	modifiers = wordSet(`export pub pub(crate) async static public private protected default abstract final`)
)

// defined is the name a line of code defines, "" for none: the word after
// a defining word (and after a Go method's receiver).
func defined(line string) string {
	fs := strings.Fields(line)
	i := 0
	for i < len(fs) && modifiers()[fs[i]] {
		i++
	}
	if i+1 >= len(fs) || !defining()[fs[i]] {
		return ""
	}
	i++
	if strings.HasPrefix(fs[i], "(") { // func (s *Store) Search(...)
		for i < len(fs) && !strings.Contains(fs[i], ")") {
			i++
		}
		i++
		if i >= len(fs) {
			return ""
		}
	}
	w := fs[i]
	end := strings.IndexFunc(w, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '.' || r == '?' || r == '!')
	})
	if end >= 0 {
		w = w[:end]
	}
	if w == "" || !unicode.IsLetter(rune(w[0])) && w[0] != '_' {
		return ""
	}
	return w
}

// identifiers are the words of code: letters, digits and _ . - ? ! @ :
// together.
func identifiers(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("_.-?!@:", r))
	})
}

// editNames are the names an edit defines (by the shapes of definition)
// and the compound names it brings in (snake_case, camelCase, dotted,
// hyphenated, not in its old text), definitions first, each once.
func editNames(old, new string) []string {
	var out []string
	add := func(n string) {
		// A sentence's or a selector's dots and colons go; a custom
		// property's or a flag's leading dashes stay.
		n = strings.TrimLeft(strings.TrimRight(n, ".:-"), ".:")
		if len(n) >= 3 && !slices.Contains(out, n) && len(out) < maxNames {
			out = append(out, n)
		}
	}
	for _, l := range strings.Split(new, "\n") {
		add(defined(l))
	}
	before := make(map[string]bool)
	for _, w := range identifiers(old) {
		before[w] = true
	}
	for _, w := range identifiers(new) {
		if !before[w] && compound(strings.Trim(w, ".:-?!@")) {
			add(w)
		}
	}
	return out
}

// compound says whether a word is a name made of words (snake_case,
// camelCase, Dotted.Module, kebab-case): those carry what a question
// would describe in words; plain words are everywhere.
func compound(w string) bool {
	if len(w) < 4 || strings.Contains(w, "..") {
		return false
	}
	letters := 0
	for i, r := range w {
		switch {
		case unicode.IsLetter(r):
			letters++
			if i > 0 && unicode.IsUpper(r) && unicode.IsLower(rune(w[i-1])) {
				return letters >= 3
			}
		case r == '_' || r == '-' || r == '.':
			if i > 0 && i < len(w)-1 {
				return letters >= 2
			}
		}
	}
	return false
}
