package estimate

import (
	"math"
	"strings"
	"unicode/utf8"
)

// Split is a proposed division of a task into shards, each of consecutive
// parts of the spec.
type Split struct {
	// By is what the spec was divided along: "headings", "list items" or
	// "paragraphs" ("" when it could not be divided). Parts still too big
	// are divided again along their own structure.
	By     string  `json:"by"`
	Shards []Shard `json:"shards"`
	// Reason says why the spec could not be divided.
	Reason string `json:"reason,omitempty"`
}

// Shard is one piece of work sized for a fresh session.
type Shard struct {
	// Parts are the titles of the spec's parts in this shard, in order.
	Parts      []string `json:"parts"`
	SpecTokens int64    `json:"spec_tokens"`
	Tokens     int64    `json:"tokens"`
	// Over marks a shard still over the limit: one part the spec gives no
	// structure to divide further.
	Over bool `json:"over,omitempty"`
}

// part is a piece of the spec with a title.
type part struct {
	title string
	lines []line
}

func (p part) bytes() int {
	n := 0
	for _, l := range p.lines {
		n += len(l.text) + 1
	}
	return n
}

// line is a line of the spec and what it is.
type line struct {
	text    string
	heading int  // 1-6 for an ATX heading, else 0
	item    bool // a top-level list item
	fenced  bool // inside (or opening or closing) a fenced code block
	opens   bool // opens a fenced code block
}

// parse marks the lines of a Markdown text. Nothing inside a fenced code
// block is a heading or a list item.
func parse(text string) []line {
	raw := strings.Split(text, "\n")
	if n := len(raw); n > 0 && raw[n-1] == "" {
		raw = raw[:n-1]
	}
	ls := make([]line, len(raw))
	fence := ""
	for i, t := range raw {
		ls[i].text = t
		t = strings.TrimSuffix(t, "\r") // CRLF files: the \r still counts in the size
		trimmed := strings.TrimLeft(t, " ")
		if fence != "" {
			ls[i].fenced = true
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]+" \t") == "" {
				fence = ""
			}
			continue
		}
		if f := fenceOpen(trimmed); f != "" && len(t)-len(trimmed) < 4 {
			fence, ls[i].fenced, ls[i].opens = f, true, true
			continue
		}
		ls[i].heading = headingLevel(t)
		ls[i].item = listMarker(t) > 0
	}
	return ls
}

// fenceOpen returns the fence a line opens (``` or ~~~, or longer), or "".
func fenceOpen(s string) string {
	for _, c := range []byte{'`', '~'} {
		n := 0
		for n < len(s) && s[n] == c {
			n++
		}
		if n >= 3 {
			return s[:n]
		}
	}
	return ""
}

func headingLevel(s string) int {
	n := 0
	for n < len(s) && s[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || n < len(s) && s[n] != ' ' && s[n] != '\t' {
		return 0
	}
	return n
}

// listMarker is the length of a top-level list item's marker and the space
// after it ("- ", "* ", "+ ", "12. ", "3) "), or 0.
func listMarker(s string) int {
	if len(s) >= 2 && strings.IndexByte("-*+", s[0]) >= 0 && s[1] == ' ' {
		if s[0] != '-' && s[0] != '*' || strings.Trim(s, string(s[0])+" ") != "" { // not a rule
			return 2
		}
		return 0
	}
	n := 0
	for n < len(s) && n < 9 && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	if n > 0 && n+1 < len(s) && (s[n] == '.' || s[n] == ')') && s[n+1] == ' ' {
		return n + 2
	}
	return 0
}

// SplitSpec proposes shards of spec whose estimates stay under limit
// tokens. It divides the spec along the shallowest level of headings that
// gives two parts or more, else along its top-level list items, else its
// paragraphs, and divides any part still over the limit along its own
// structure the same way. It then groups consecutive parts into as few
// shards as fit, as evenly as it can.
func SplitSpec(spec string, m Model, limit int64) Split {
	ls := parse(spec)
	parts, by := divide(ls, "")
	if len(parts) < 2 {
		s := Split{Reason: "it has no headings, list items or paragraphs to divide along"}
		p := part{title: firstWords(ls), lines: ls}
		s.Shards = []Shard{shardOf([]part{p}, m, limit)}
		return s
	}
	parts = refine(parts, m, limit)
	sp := Split{By: by}
	for _, g := range group(parts, m, limit) {
		sp.Shards = append(sp.Shards, shardOf(g, m, limit))
	}
	return sp
}

// refine divides again the parts whose estimate is over limit.
func refine(parts []part, m Model, limit int64) []part {
	var out []part
	for _, p := range parts {
		if estimateOf(p.bytes(), m) <= limit || len(p.lines) < 2 {
			out = append(out, p)
			continue
		}
		// The part's own heading, if any, stays with its first piece.
		body, head := p.lines, []line(nil)
		if body[0].heading > 0 {
			head, body = body[:1], body[1:]
		}
		sub, _ := divide(body, p.title)
		if len(sub) < 2 {
			out = append(out, p)
			continue
		}
		sub[0].lines = append(append([]line(nil), head...), sub[0].lines...)
		out = append(out, refine(sub, m, limit)...)
	}
	return out
}

// divide splits lines along their structure and says along what. Within
// a part, parent is the part's title: it names the text before the first
// subpart, and prefixes the others'.
func divide(ls []line, parent string) ([]part, string) {
	title := func(t string) string {
		if parent == "" {
			return t
		}
		return parent + " › " + t
	}
	pre := parent
	if pre == "" {
		pre = preambleTitle(ls)
	}
	// The shallowest heading level that divides the text in two or more.
	for lvl := 1; lvl <= 6; lvl++ {
		if ps := cut(ls, func(l line) bool { return l.heading == lvl }, func(l line) string {
			return title(strings.TrimSpace(strings.TrimRight(strings.TrimLeft(l.text, "#"), "# \t\r")))
		}, pre); len(ps) >= 2 {
			return ps, "headings"
		}
	}
	if ps := cut(ls, func(l line) bool { return l.item }, func(l line) string {
		t := l.text[listMarker(l.text):]
		for _, box := range []string{"[ ] ", "[x] ", "[X] "} {
			t = strings.TrimPrefix(t, box)
		}
		return title(short(t))
	}, pre); len(ps) >= 2 {
		return ps, "list items"
	}
	// Paragraphs: a blank line outside a code block ends one. Blank lines
	// before the first go with it; those after the last with the last.
	var paras []part
	var cur []line
	flush := func() {
		t := title(short(firstText(cur)))
		if len(paras) == 0 && parent != "" {
			t = parent
		}
		paras = append(paras, part{title: t, lines: cur})
		cur = nil
	}
	for _, l := range ls {
		cur = append(cur, l)
		if strings.TrimSpace(l.text) == "" && !l.fenced && !blank(cur) {
			flush()
		}
	}
	if !blank(cur) {
		flush()
	} else if n := len(paras); n > 0 {
		paras[n-1].lines = append(paras[n-1].lines, cur...)
	}
	if len(paras) >= 2 {
		return paras, "paragraphs"
	}
	return nil, ""
}

// cut starts a new part at every line where starts holds. What comes
// before the first is a preamble part, when it holds any text.
func cut(ls []line, starts func(line) bool, name func(line) string, preamble string) []part {
	var parts []part
	pre := part{title: preamble}
	cur := &pre
	for _, l := range ls {
		if starts(l) {
			parts = append(parts, *cur)
			cur = &part{title: name(l)}
		}
		cur.lines = append(cur.lines, l)
	}
	parts = append(parts, *cur)
	if blank(parts[0].lines) {
		if len(parts) > 1 {
			// Blank lines before the first part still belong to the spec.
			parts[1].lines = append(parts[0].lines, parts[1].lines...)
		}
		parts = parts[1:]
	}
	return parts
}

// preambleTitle names the text before the first part: its top heading,
// else "Introduction".
func preambleTitle(ls []line) string {
	for _, l := range ls {
		if l.heading == 1 {
			return strings.TrimSpace(strings.TrimRight(strings.TrimLeft(l.text, "#"), "# \t\r")) + " (introduction)"
		}
		if l.heading > 0 || l.item {
			break
		}
	}
	return "Introduction"
}

func blank(ls []line) bool {
	for _, l := range ls {
		if strings.TrimSpace(l.text) != "" {
			return false
		}
	}
	return true
}

func firstWords(ls []line) string {
	if t := strings.TrimLeft(firstText(ls), "# "); t != "" {
		return short(t)
	}
	return "(empty)"
}

// firstText is the first line with any text, trimmed.
func firstText(ls []line) string {
	for _, l := range ls {
		if t := strings.TrimSpace(l.text); t != "" {
			return t
		}
	}
	return ""
}

// short cuts a title to 60 characters.
func short(s string) string {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) <= 60 {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:59])) + "…"
}

func estimateOf(bytes int, m Model) int64 {
	return scale(tokensOfBytes(bytes), m.Ratio)
}

// tokensOfBytes is Tokens for a text of n bytes.
func tokensOfBytes(n int) int64 { return int64(math.Ceil(float64(n) / 3.5)) }

func shardOf(ps []part, m Model, limit int64) Shard {
	var s Shard
	n := 0
	for _, p := range ps {
		s.Parts = append(s.Parts, p.title)
		n += p.bytes()
	}
	s.SpecTokens = tokensOfBytes(n)
	s.Tokens = scale(s.SpecTokens, m.Ratio)
	s.Over = s.Tokens > limit
	return s
}

// group puts consecutive parts into shards: a part over the limit alone,
// and the runs between such parts into as few shards as fit the limit,
// balanced so that the largest is as small as it can be.
func group(parts []part, m Model, limit int64) [][]part {
	var out [][]part
	var run []part
	flush := func() {
		if len(run) > 0 {
			out = append(out, balance(run, m, limit)...)
			run = nil
		}
	}
	for _, p := range parts {
		if estimateOf(p.bytes(), m) > limit {
			flush()
			out = append(out, []part{p})
			continue
		}
		run = append(run, p)
	}
	flush()
	return out
}

// maxBalanced bounds the parts balance evens out, at a cost of k·n²; a
// spec with more parts than that gets the greedy division.
const maxBalanced = 200

// balance divides parts, each within limit, into the fewest consecutive
// groups within limit (the greedy count is the fewest), then among those
// divisions picks one whose largest group is smallest.
func balance(parts []part, m Model, limit int64) [][]part {
	n := len(parts)
	sizes := make([]int, n+1) // prefix sums of bytes
	for i, p := range parts {
		sizes[i+1] = sizes[i] + p.bytes()
	}
	cost := func(i, j int) int64 { return estimateOf(sizes[j]-sizes[i], m) }
	var greedy [][]part
	acc := 0
	for i := range parts {
		if acc < i && cost(acc, i+1) > limit {
			greedy, acc = append(greedy, parts[acc:i]), i
		}
	}
	greedy = append(greedy, parts[acc:])
	k := len(greedy)
	if n > maxBalanced {
		return greedy
	}
	// best[g][j]: the smallest largest group dividing parts[:j] into g
	// groups; cutAt remembers where the last group starts.
	const inf = int64(1) << 62
	best := make([][]int64, k+1)
	cutAt := make([][]int, k+1)
	for g := range best {
		best[g] = make([]int64, n+1)
		cutAt[g] = make([]int, n+1)
		for j := range best[g] {
			best[g][j] = inf
		}
	}
	best[0][0] = 0
	for g := 1; g <= k; g++ {
		for j := g; j <= n; j++ {
			for i := g - 1; i < j; i++ {
				if best[g-1][i] == inf {
					continue
				}
				if c := max(best[g-1][i], cost(i, j)); c < best[g][j] {
					best[g][j], cutAt[g][j] = c, i
				}
			}
		}
	}
	groups := make([][]part, k)
	for g, j := k, n; g > 0; g-- {
		i := cutAt[g][j]
		groups[g-1] = parts[i:j]
		j = i
	}
	return groups
}
