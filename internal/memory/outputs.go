package memory

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-agent/cairn/internal/outcome"
	"github.com/cairn-agent/cairn/internal/redact"
	"github.com/cairn-agent/cairn/internal/text"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// Much of what a session learned is said only by its tools: the commit
// hash git printed, the bead a dependency was added to, the error line of
// a server's log, the URL fetched, the tasks `bd ready` or `gh issue
// list` showed and nobody took up. So each command's output is kept in
// short (its lines that carry something), each item of a list a command
// printed is kept on its own, with whether anything later named it, and
// each page fetched and web search made is kept with what it was asked,
// and each file read with the lines of it that set or describe something
// (reads.go).

// Bounds that keep tool output a memory of what it said, not a copy.
const (
	// outputHead and outputTail are how much of an output's start and end
	// an observation keeps (a log's last lines say how it ended).
	outputHead, outputTail = 900, 300
	// outputLine is how long one line of output may be.
	outputLine = 200
	// maxItems is how many items of one list are kept; maxSessionItems
	// and maxSessionOutputs how many of each a session keeps (its last).
	maxItems          = 25
	maxSessionItems   = 200
	maxSessionOutputs = 300
)

// sessionOutputs are the observations of what the session's tools said:
// a command's output, the items of a list it printed (those no later
// call or prompt named are left open), a page fetched, a web search, a
// file read.
// Subagents' calls and calls whose result is out of reach are left out.
func sessionOutputs(base Observation, s *transcript.Session, at func(int) []byte) []Observation {
	var outs, items []Observation
	listed := map[string]int{} // an item's id: its index in items
	var reads readsByFile
	results := resultLines(s, at)
	said := saidAt(at)
	for i, tc := range s.ToolCalls {
		if tc.Sidechain || !tc.Done || tc.Line <= 0 {
			continue
		}
		switch tc.Name {
		case "Bash", "BashOutput", "TaskOutput", "WebFetch", "WebSearch", "Read":
		default:
			continue
		}
		res, ok := toolResult(at(results[tc.ID]), tc.ID)
		if !ok {
			continue
		}
		if tc.Name == "Read" {
			reads.add(base, tc, res)
			continue
		}
		res = boundOutput(res)
		o := base
		o.Kind = KindOutput
		if !tc.Time.IsZero() {
			o.Time = tc.Time
		}
		switch tc.Name {
		case "WebFetch":
			in := toolInput(at(tc.Line), tc.ID)
			if in.URL == "" {
				continue
			}
			o.Title = "Fetched " + text.ClipLine(in.URL, 120)
			if in.Prompt != "" {
				o.Title += ": " + text.ClipLine(in.Prompt, 100)
			}
			o.Body = "URL: " + in.URL + "\nAsked: " + in.Prompt + "\n" + outputExcerpt(outputLines(res))
			o.key = "fetch " + tc.ID
			outs = append(outs, o)
			continue
		case "WebSearch":
			in := toolInput(at(tc.Line), tc.ID)
			if in.Query == "" {
				continue
			}
			o.Title = "Searched the web: " + text.ClipLine(in.Query, 140)
			o.Body = "Query: " + in.Query + "\n" + outputExcerpt(searchResults(res))
			o.key = "search " + tc.ID
			outs = append(outs, o)
			continue
		}
		if outcome.ReadsSecret(tc.Command) {
			continue // its output is the secret
		}
		lines := outputLines(res)
		if len(lines) == 0 {
			continue
		}
		cmd := tc.Command
		if cmd == "" {
			cmd = tc.Name
		}
		first := lines[0]
		if strings.HasPrefix(first, "Exit code ") && len(lines) > 1 {
			first = lines[1] // Claude Code's line, not the command's
		}
		o.Title = "`" + text.ClipLine(cmd, 80) + "` printed: " + text.ClipLine(first, 100)
		if tc.Description != "" {
			// What the command was for says what its output is about
			// ("Check Phoenix startup output"), as a command's title does.
			o.Title = text.ClipLine(tc.Description, 60) + ": " + o.Title
		}
		var b strings.Builder
		b.WriteString("`" + text.ClipLine(cmd, 300) + "`")
		if tc.Description != "" {
			b.WriteString(" (" + tc.Description + ")")
		}
		b.WriteString("\n" + outputExcerpt(lines))
		// And the agent's words before the call, what it was looking for
		// ("now the dependency between the two tasks").
		for n := tc.Line - 1; n > 0 && n >= tc.Line-promptBefore; n-- {
			if t := said(n); t != "" {
				b.WriteString("\nBefore, the agent said: " + text.Clip(t, 300))
				break
			}
		}
		o.Body = b.String()
		o.Files = pathsIn(tc.Command, nil)
		o.key = "output " + tc.ID
		outs = append(outs, o)

		for _, li := range listOf(lines) {
			it, heading := li.text, li.heading
			id := itemID(it)
			if id == "" {
				continue
			}
			lo := base
			lo.Time = o.Time
			lo.Kind = KindOutput
			lo.Files = pathsIn(it, nil)
			lo.Title = "Listed by `" + text.ClipLine(cmd, 60) + "`: " + text.ClipLine(it, 120)
			lo.Body = it + "\nListed under: " + heading
			// One observation per item and session, from its latest
			// listing.
			lo.key = "listed " + base.SessionID + " " + id
			lo.replace = true
			if openList(cmd, heading) {
				// Work to do: whether it was taken up is judged from its
				// latest listing on, and a later checkpoint that sees it
				// taken up replaces what an earlier one said.
				lo.Kind = KindOpenItem
				if later, by := namedAfter(s, i, id); later {
					lo.Title = "Listed by `" + text.ClipLine(cmd, 60) + "`, then taken up: " + text.ClipLine(it, 120)
					lo.Body += "\nNamed later by: " + text.ClipLine(by, 200)
				} else {
					lo.Title = "Left open, listed by `" + text.ClipLine(cmd, 60) + "` and not taken up: " + text.ClipLine(it, 120)
					lo.Body += "\nNo later command, edit or prompt of the session named " + id + "."
				}
			}
			if j, ok := listed[id]; ok {
				items[j] = Observation{} // the latest listing stands for it
			}
			listed[id] = len(items)
			items = append(items, lo)
		}
	}
	items = slices.DeleteFunc(items, func(o Observation) bool { return o.Title == "" })
	outs = outs[max(0, len(outs)-maxSessionOutputs):]
	items = items[max(0, len(items)-maxSessionItems):]
	return append(append(outs, items...), reads.observations()...)
}

// resultLines are the numbers of the lines that hold the results of the
// session's calls, by call id: each line is looked at once (a result may
// be tens of kilobytes, and a session has hundreds of calls).
func resultLines(s *transcript.Session, at func(int) []byte) map[string]int {
	out := make(map[string]int)
	first := s.Lines + 1
	for _, tc := range s.ToolCalls {
		if tc.Line > 0 && tc.Line < first {
			first = tc.Line
		}
	}
	mark := []byte(`"tool_use_id":"`)
	for n := first; n <= s.Lines; n++ {
		// Claude Code writes a result's id, or its type, before its
		// content, in the line's first few hundred bytes: the rest (the
		// output twice, the message's and toolUseResult's) is searched
		// only when the type comes first.
		line := at(n)
		switch head := line[:min(len(line), resultIDWithin)]; {
		case bytes.Contains(head, mark):
			line = head
		case !bytes.Contains(head, []byte(`"tool_result"`)):
			continue
		}
		for i := bytes.Index(line, mark); i >= 0; {
			rest := line[i+len(mark):]
			end := bytes.IndexByte(rest, '"')
			if end < 0 {
				break
			}
			if id := string(rest[:end]); out[id] == 0 {
				out[id] = n
			}
			line = rest[end:]
			i = bytes.Index(line, mark)
		}
	}
	return out
}

// resultIDWithin is how far into a line a result's call id is looked for.
const resultIDWithin = 4 << 10

// saidAt is assistantText over the lines read with at, each line decoded
// once: what the agent said before each of many calls is looked for in
// the same lines.
func saidAt(at func(int) []byte) func(int) string {
	memo := make(map[int]string)
	return func(n int) string {
		t, ok := memo[n]
		if !ok {
			t = assistantText(at(n))
			memo[n] = t
		}
		return t
	}
}

// outputScan and outputScanTail are how much of an output's start and
// end is read: what an observation keeps of it is in them, and redacting
// a test run's hundred kilobytes for that would cost more than the rest.
const outputScan, outputScanTail = 16 << 10, 4 << 10

// boundOutput is an output's first outputScan bytes and its last
// outputScanTail, each cut at a line's end, so that no secret is cut
// where redaction would no longer recognise it.
func boundOutput(s string) string {
	if len(s) <= outputScan+outputScanTail {
		return s
	}
	head := cutAtSpace(s, outputScan)
	tail := s[len(s)-outputScanTail:]
	if i := strings.IndexByte(tail, '\n'); i >= 0 {
		return head + "\n" + tail[i+1:]
	}
	return head
}

// toolResult is the text of the result of call id in line.
func toolResult(line []byte, id string) (string, bool) {
	if line == nil || !bytes.Contains(line, []byte(`"tool_result"`)) {
		return "", false
	}
	content, ok := messageContent(line)
	if !ok {
		return "", false
	}
	var bs []struct {
		Type      string          `json:"type"`
		ToolUseID string          `json:"tool_use_id"`
		Content   json.RawMessage `json:"content"`
	}
	if json.Unmarshal(content, &bs) != nil {
		return "", false
	}
	for _, b := range bs {
		if b.Type == "tool_result" && b.ToolUseID == id {
			return resultText(b.Content), true
		}
	}
	return "", false
}

// messageContent is the content of a transcript line's message. It is
// decoded up to the message only: Claude Code writes the result's text a
// second time after it (toolUseResult), and a file read's is the file.
func messageContent(line []byte) (json.RawMessage, bool) {
	dec := json.NewDecoder(bytes.NewReader(line))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil, false
		}
		if key != "message" {
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return nil, false
			}
			continue
		}
		var m struct {
			Content json.RawMessage `json:"content"`
		}
		if dec.Decode(&m) != nil {
			return nil, false
		}
		return m.Content, true
	}
	return nil, false
}

// resultText is a tool result's content: a string, or text blocks.
func resultText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var bs []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &bs) != nil {
		return ""
	}
	var parts []string
	for _, b := range bs {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// callInput is what a fetch or a web search was given.
type callInput struct {
	URL    string `json:"url"`
	Prompt string `json:"prompt"`
	Query  string `json:"query"`
}

// toolInput is the input of the tool_use id in an assistant line.
func toolInput(line []byte, id string) callInput {
	if !bytes.Contains(line, []byte(id)) {
		return callInput{}
	}
	var m struct {
		Message struct {
			Content json.RawMessage `json:"content"`
		} `json:"message"`
	}
	if json.Unmarshal(line, &m) != nil {
		return callInput{}
	}
	var bs []struct {
		Type  string    `json:"type"`
		ID    string    `json:"id"`
		Input callInput `json:"input"`
	}
	if json.Unmarshal(m.Message.Content, &bs) != nil {
		return callInput{}
	}
	for _, b := range bs {
		if b.Type == "tool_use" && b.ID == id {
			return b.Input
		}
	}
	return callInput{}
}

// outputLines are an output's lines that say something: trimmed, without
// terminal escapes, empty lines and lines of only punctuation or box
// drawing, each cut to outputLine, secrets redacted before anything is
// cut from them.
func outputLines(s string) []string {
	// Output that held JSON or a hook's message may carry its line breaks
	// escaped.
	s = strings.ReplaceAll(redact.String(stripEscapes(s)), `\n`, "\n")
	var out []string
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if !strings.ContainsFunc(l, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
			continue
		}
		l = text.ClipLine(l, outputLine)
		if len(out) > 0 && out[len(out)-1] == l {
			continue
		}
		out = append(out, l)
	}
	return out
}

// stripEscapes removes ANSI escape sequences (colours, cursor moves).
func stripEscapes(s string) string {
	if !strings.Contains(s, "\x1b[") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// outputExcerpt is an output's first lines and its last ones, within
// outputHead and outputTail bytes.
func outputExcerpt(lines []string) string {
	var head, tail []string
	n := 0
	i := 0
	for ; i < len(lines) && n+len(lines[i]) <= outputHead; i++ {
		head = append(head, lines[i])
		n += len(lines[i]) + 1
	}
	n = 0
	for j := len(lines) - 1; j >= i && n+len(lines[j]) <= outputTail; j-- {
		tail = append(tail, lines[j])
		n += len(lines[j]) + 1
	}
	slices.Reverse(tail)
	out := strings.Join(head, "\n")
	if len(head)+len(tail) < len(lines) {
		out += "\n…"
	}
	if len(tail) > 0 {
		out += "\n" + strings.Join(tail, "\n")
	}
	return out
}

// searchResults are a web search result's titles and URLs, one a line,
// and its text after them: Claude Code gives the links as JSON.
func searchResults(s string) []string {
	var out []string
	rest := s
	for {
		i := strings.Index(rest, "Links: [")
		if i < 0 {
			break
		}
		var links []struct {
			Title string `json:"title"`
			URL   string `json:"url"`
		}
		dec := json.NewDecoder(strings.NewReader(rest[i+len("Links: "):]))
		if dec.Decode(&links) != nil {
			break
		}
		for _, l := range links {
			out = append(out, l.Title+" "+l.URL)
		}
		rest = rest[i+len("Links: ")+int(dec.InputOffset()):]
	}
	return append(out, outputLines(rest)...)
}

// listItem is an item of a list a command printed, and the line that
// says what its part of the list is.
type listItem struct{ text, heading string }

// listOf finds the list in an output: the lines that are its items (at
// least three, half of its lines at least, each led by a list mark, a
// status mark or an identifier with a digit: `bd ready`'s "1. [P1]
// proj-obz: …", `bd list`'s "○ proj-obz …", `git log --oneline`'s
// "64f1b9a feat: …", an issue list's "#12 OPEN …"), at most maxItems of
// them, each with the nearest line before it that is not an item, which
// says what its part of the list is ("Ready work (5 issues):").
func listOf(lines []string) []listItem {
	var items []listItem
	heading, n := "", 0
	for _, l := range lines {
		if !itemLine(l) {
			heading = l
			continue
		}
		if n++; len(items) < maxItems {
			items = append(items, listItem{l, heading})
		}
	}
	if n < 3 || 2*n < len(lines) {
		// A few bullets in a description or a log are not a list printed.
		return nil
	}
	return items
}

// itemLine says whether a line of output is led like a list's item.
func itemLine(l string) bool {
	if strings.HasSuffix(l, ":") {
		return false // a heading, whatever leads it ("📋 Ready work (5 issues):")
	}
	fs := strings.Fields(l)
	if len(fs) < 2 {
		return false // one word alone: a file name, a status
	}
	f := fs[0]
	r, size := utf8.DecodeRuneInString(f)
	switch {
	case size == len(f) && (unicode.IsSymbol(r) || r == '•'):
		return true // "○ item", "✓ item" (not "- " and "* ": prose uses them)
	case strings.TrimRight(f, ".)") != f && isDigits(strings.TrimRight(f, ".)")):
		return true // "1. item", "2) item"
	case strings.HasPrefix(f, "#") && isDigits(f[1:]):
		return true // "#12 OPEN …"
	}
	f = strings.Trim(f, "[]():,")
	return idShaped(f) && strings.ContainsAny(f, "0123456789") // "64f1b9a …", "proj-0p7.1 …"
}

// itemID is what names an item of a list: the longest of its first words
// shaped like an identifier with a digit or a hyphen ("proj-obz",
// "proj-0p7.1", "64f1b9a", "#12"; not "highlight.js").
func itemID(it string) string {
	best := ""
	for i, w := range strings.Fields(it) {
		if i >= 6 {
			break
		}
		w = strings.Trim(w, "[]():,;")
		if (idShaped(w) && strings.ContainsAny(w, "-0123456789") || strings.HasPrefix(w, "#") && isDigits(w[1:])) && len(w) > len(best) {
			best = w
		}
	}
	return best
}

// idShaped says whether a word is shaped like an identifier: letters with
// digits or inner hyphens, dots or underscores, five characters at least
// ("P2" and "ok" are not; "proj-obz", "a0y.3" and "64f1b9a" are).
func idShaped(w string) bool {
	if len(w) < 5 {
		return false
	}
	letters, digits, joins := 0, 0, 0
	for i, r := range w {
		switch {
		case unicode.IsLetter(r):
			letters++
		case unicode.IsDigit(r):
			digits++
		case strings.ContainsRune("-._", r) && i > 0 && i < len(w)-1:
			joins++
		default:
			return false
		}
	}
	return letters > 0 && (digits > 0 || joins > 0)
}

func isDigits(s string) bool {
	return s != "" && strings.IndexFunc(s, func(r rune) bool { return !unicode.IsDigit(r) }) < 0
}

// openStatus are the words by which a list's command, heading or item
// says it lists work still to do (`bd ready`, `bd list --status=open`,
// an issue list of open ones, a todo list).
var openStatus = wordSet(`open opened ready todo pending progress backlog blocked waiting unassigned unstarted`)

// openList says whether a list's items are work still to do, by what its
// command (one that only looks) or its heading says (not its items: a
// commit's subject may say "open").
func openList(cmd, heading string) bool {
	if !onlyLooks(cmd) {
		cmd = "" // a command that changes things says what to, not what is
	}
	for _, w := range words(cmd + " " + heading) {
		if openStatus()[w] {
			return true
		}
	}
	return false
}

// namedAfter says whether a call after the i-th (its command, file or
// description) or a prompt after it names id, and which.
func namedAfter(s *transcript.Session, i int, id string) (bool, string) {
	after := time.Time{}
	if i < len(s.ToolCalls) {
		after = s.ToolCalls[i].Time
	}
	for _, tc := range s.ToolCalls[i+1:] {
		if tc.Sidechain {
			continue
		}
		for _, said := range []string{tc.Command, tc.FilePath, tc.Description} {
			if said != "" && containsWord(said, id) {
				return true, said
			}
		}
	}
	for _, p := range s.Prompts {
		if p.Time.After(after) && containsWord(p.Text, id) {
			return true, "the user: " + p.Text
		}
	}
	return false, ""
}

// containsWord says whether s holds w not as part of a longer identifier
// ("proj-obz" is not in "proj-obz.1").
func containsWord(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(w)
		before := j == 0 || !idRune(rune(s[j-1]))
		after := end == len(s) || !idRune(rune(s[end])) || (s[end] == '.' && (end+1 == len(s) || !idRune(rune(s[end+1]))))
		if before && after {
			return true
		}
		i = j + 1
	}
}

func idRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("-._", r)
}
