package memory

import (
	"context"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/cairn-agent/cairn/internal/sqlite"
)

// Query is what Search looks for. Every filter left zero selects all.
type Query struct {
	// Text is what to look for, in words, as a person asks ("which file
	// fixed the lazy_html error"): no query syntax is needed, and none is
	// read. Empty, the filters alone select, newest first.
	Text      string
	Project   string
	SessionID string
	Kinds     []string
	// Files keeps observations that name one of these paths, or a path
	// ending in "/" and one of them.
	Files []string
	Since time.Time
	// Limit is at most how many hits come back; <= 0 means 10.
	Limit int
}

// Search finds observations, best first: the full-text index ranks the
// candidates by BM25 over title, body and files (any of the words may
// match, rarer ones count more), then the kinds the question asks about
// (a "fix" question, a "decided" one) go first among near equals, as do
// hits in a project the question names, for a question asking for a
// number hits with numbers beside its words, and for one asking for a
// command hits whose command line holds its words; a decision said after
// an edit of the same file goes above that edit. Without words it lists
// the newest that pass the filters.
func (s *Store) Search(ctx context.Context, q Query) ([]Hit, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = 10
	}
	sq := sqlite.ObservationQuery{Project: q.Project, SessionID: q.SessionID, Kinds: q.Kinds, Files: q.Files,
		Since: q.Since, Limit: limit}
	ts := terms(q.Text)
	if strings.TrimSpace(q.Text) != "" {
		if len(ts) == 0 {
			return nil, nil // only words too common to look for
		}
		match, err := s.match(ctx, ts)
		if err != nil || match == "" {
			return nil, err
		}
		sq.Match = match
		// Candidates beyond the limit, for the reranking to choose from.
		sq.Limit = max(limit*4, candidates)
	}
	recs, err := s.db.SearchObservations(ctx, sq)
	if err != nil {
		return nil, err
	}
	hits := make([]Hit, len(recs))
	for i, r := range recs {
		hits[i] = Hit{ID: r.ID, Time: r.CreatedAt, Kind: r.Kind, Title: r.Title, Snippet: r.Snippet, Score: r.Score,
			Project: r.Project, SessionID: r.SessionID, Files: r.Files}
	}
	if sq.Match == "" {
		return hits, nil
	}
	texts, err := s.texts(ctx, hits)
	if err != nil {
		return nil, err
	}
	if !s.plainRanking {
		value := asksValue(q.Text)
		qw := words(q.Text)
		asksCommand := slices.Contains(qw, "command") || slices.Contains(qw, "commands")
		for i := range hits {
			ws := words(texts[hits[i].ID])
			hits[i].Score *= math.Pow(coverage(ws, ts), coverageExp) * (1 + proximity(ws, ts)) *
				(1 + namedWeight*named(texts[hits[i].ID], ts)) * (1 + projectWeight*inProject(hits[i].Project, ts))
			if value {
				hits[i].Score *= 1 + valueWeight*valueBeside(ws, ts)
			}
			if asksCommand {
				hits[i].Score *= 1 + commandWeight*inCommand(texts[hits[i].ID], ts)
			}
		}
		rerank(hits, intents(q.Text))
		hits = distinct(hits, texts)
		hits = laterWord(hits)
		hits = ranOnce(hits)
	}
	hits = hits[:min(limit, len(hits))]
	for i := range hits {
		hits[i].Snippet = snippet(texts[hits[i].ID], ts, snippetWords)
	}
	return hits, nil
}

// distinct drops a hit that says exactly what a better one says (the same
// finding or edit stored from two checkpoints' sources), so the repeat
// does not take a place among the first results.
func distinct(hits []Hit, texts map[int64]string) []Hit {
	seen := make(map[string]bool, len(hits))
	out := hits[:0]
	for _, h := range hits {
		if seen[texts[h.ID]] {
			continue
		}
		seen[texts[h.ID]] = true
		out = append(out, h)
	}
	return out
}

// ranOnce drops a command's hit when a better hit says what the same run
// printed or how it ended (its output, a count, an error and its fix: of
// the same session, at the same second, each naming the command in
// full), so that one run does not take two places among the first
// results.
func ranOnce(hits []Hit) []Hit {
	type moment struct {
		session string
		at      int64
	}
	said := make(map[moment]bool)
	out := hits[:0]
	for _, h := range hits {
		m := moment{h.SessionID, h.Time.Unix()}
		switch h.Kind {
		case KindCommand:
			if said[m] {
				continue
			}
		case KindOutput, KindCount, KindErrorFix:
			said[m] = true
		}
		out = append(out, h)
	}
	return out
}

// texts are the hits' titles, bodies and files, by ID.
func (s *Store) texts(ctx context.Context, hits []Hit) (map[int64]string, error) {
	ids := make([]int64, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	recs, err := s.db.Observations(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make(map[int64]string, len(recs))
	for _, r := range recs {
		out[r.ID] = r.Title + "\n" + r.Body + "\n" + strings.Join(r.Files, " ")
	}
	return out, nil
}

// snippetWords is how many words a hit's snippet shows.
const snippetWords = 24

// snippet is the run of n words of text that holds the most of the terms
// (the first such run), with an ellipsis where it was cut.
func snippet(text string, ts []string, n int) string {
	fs := strings.Fields(text)
	hit := make([]int, len(fs)+1) // hit[i]: terms among fs[:i]
	for i, f := range fs {
		hit[i+1] = hit[i]
		for _, w := range words(f) {
			if slices.ContainsFunc(ts, func(t string) bool { return sameWord(w, t) }) {
				hit[i+1]++
				break
			}
		}
	}
	best := 0
	for i := 0; i+n <= len(fs); i++ {
		if hit[i+n]-hit[i] > hit[best+n]-hit[best] {
			best = i
		}
	}
	end := min(best+n, len(fs))
	s := strings.Join(fs[best:end], " ")
	if best > 0 {
		s = "…" + s
	}
	if end < len(fs) {
		s += "…"
	}
	return s
}

// common is how many observations a term may match before it stops
// choosing the candidates: scoring every observation a common term is in
// is what a search over many costs (over 100,000 observations, 170 ms of
// CPU a question instead of 38; BenchmarkSearch). The common terms still
// score the candidates the rarer ones chose, and the reranking reads them.
const common = 2000

// match is the FTS5 query for the terms: the observations with any of
// the terms that are not common, scored by all of them; when every term
// is common, the observations with all of them.
func (s *Store) match(ctx context.Context, ts []string) (string, error) {
	quoted := make([]string, len(ts))
	for i, t := range ts {
		quoted[i] = orQuery([]string{t})
	}
	counts, err := s.db.MatchCounts(ctx, quoted, common)
	if err != nil {
		return "", err
	}
	var rare, found []string
	for i, t := range ts {
		switch {
		case counts[i] == 0:
		case counts[i] < common:
			rare = append(rare, t)
			found = append(found, t)
		default:
			found = append(found, t)
		}
	}
	if len(rare) > 0 && len(rare) < len(found) {
		// The rare terms choose the candidates; all of them score them,
		// the common ones sought in their lists at the candidates only.
		return "(" + orQuery(rare) + ") AND (" + orQuery(found) + ")", nil
	}
	if len(rare) > 0 {
		return orQuery(rare), nil
	}
	return joinQuoted(found, " AND "), nil
}

// coverageExp is how steeply a hit that holds fewer of the terms falls
// behind one that holds them all. Under 1, a text that answers in its own
// words (the question names the problem, the answer a fix or a value it
// does not share) keeps more of its score; fitted on half the labelled
// sets (docs/benchmarks.md, "Retrieval, seventh round").
const coverageExp = 0.75

// coverage is the share of the terms found among the words, at least one
// term's worth: the index matched the hit on one, by its own stemming.
func coverage(ws, ts []string) float64 {
	found := 0
	for _, t := range ts {
		for _, w := range ws {
			if sameWord(w, t) {
				found++
				break
			}
		}
	}
	return float64(max(found, 1)) / float64(len(ts))
}

// sameWord says whether w and t are forms of one word, roughly as the
// index's Porter stemmer has them: "fix" and "fixed", "tests" and
// "testing"; either may be the longer.
func sameWord(w, t string) bool {
	return w == t || hasStem(w, t) || hasStem(t, w)
}

// hasStem says whether w starts with t's stem: t without its last two
// letters when it is longer than five, four letters at least.
func hasStem(w, t string) bool {
	stem := t
	if len(t) > 5 {
		stem = t[:len(t)-2]
	}
	return len(stem) >= 4 && strings.HasPrefix(w, stem)
}

// proximity is the share of the question's neighbouring terms that stand
// next to each other in the text too ("response header", "trace id"): a
// text that says the thing asked about, not merely its words apart.
func proximity(ws, ts []string) float64 {
	if len(ts) < 2 {
		return 0
	}
	found := 0
	for i := 1; i < len(ts); i++ {
		for j := 1; j < len(ws); j++ {
			if sameWord(ws[j-1], ts[i-1]) && sameWord(ws[j], ts[i]) {
				found++
				break
			}
		}
	}
	return float64(found) / float64(len(ts)-1)
}

// namedWeight is how much a text whose names hold every term counts more
// than one that only says them. (The dev questions score the same from
// 0 to 1; 0.5 is the middle of that.)
const namedWeight = 0.5

// named is the share of the terms that are parts of a name in the text
// (compute_expand_groups, TranscriptTailSupervisor, debug-grid): a
// question that describes a thing by what its name says ("which function
// works out the expand groups") is answered by the name.
func named(text string, ts []string) float64 {
	parts := make(map[string]bool)
	for _, w := range identifiers(text) {
		w = strings.Trim(w, ".:-?!@")
		if !compound(w) {
			continue
		}
		for _, p := range strings.FieldsFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			for _, c := range camelParts(p) {
				parts[strings.ToLower(c)] = true
			}
		}
	}
	found := 0
	for _, t := range ts {
		if parts[t] {
			found++
			continue
		}
		for p := range parts {
			if sameWord(p, t) {
				found++
				break
			}
		}
	}
	return float64(found) / float64(len(ts))
}

// camelParts splits a word where a lower-case letter or a digit meets an
// upper-case one, and before the last capital of a run followed by a
// lower-case letter ("HTTPServer": HTTP, Server).
func camelParts(w string) []string {
	rs := []rune(w)
	var out []string
	start := 0
	for i := 1; i < len(rs); i++ {
		up := unicode.IsUpper(rs[i])
		if up && (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1])) ||
			up && unicode.IsUpper(rs[i-1]) && i+1 < len(rs) && unicode.IsLower(rs[i+1]) {
			out = append(out, string(rs[start:i]))
			start = i
		}
	}
	return append(out, string(rs[start:]))
}

// projectWeight is how much more a hit counts when the question names its
// project ("in the dov work" of .../spotter-dov): the words of a
// repository's or worktree's directory are in few observations' text, so
// BM25 alone does not prefer what was done there.
const projectWeight = 0.2

// inProject is 1 when one of the terms is a word of the project's
// directory or of the directory that holds it (spotter-worktrees/
// spotter-fum/assets: "fum" and "assets"), 0 otherwise.
func inProject(project string, ts []string) float64 {
	if project == "" {
		return 0
	}
	ws := words(filepath.Base(filepath.Dir(project)) + " " + filepath.Base(project))
	for _, t := range ts {
		if slices.Contains(ws, t) {
			return 1
		}
	}
	return 0
}

// valueWeight is how much more a hit counts, for a question asking for a
// number, when its numbers stand beside the question's words ("how many
// checks over how many files": "69 checks on 49 files"), not merely
// somewhere in it.
const valueWeight = 0.6

// asksValue says whether a question asks for a number: a count, a size,
// a version, a total.
func asksValue(q string) bool {
	for _, w := range words(q) {
		switch w {
		case "many", "much", "long", "version", "size", "big", "number", "numbers", "count", "total":
			return true
		}
	}
	return false
}

// valueBeside is the share of the terms (numbers aside) that the words
// hold with a number right before or after ("69 checks", "lazy_html
// 0.1.10", the tokenizer's "lazy html 0 1 10").
func valueBeside(ws, ts []string) float64 {
	found := 0
	for _, t := range ts {
		if digits(t) {
			continue
		}
		for j, w := range ws {
			if sameWord(w, t) && (j > 0 && digits(ws[j-1]) || j+1 < len(ws) && digits(ws[j+1])) {
				found++
				break
			}
		}
	}
	return float64(found) / float64(len(ts))
}

// commandWeight is how much more a hit counts, for a question that asks
// for a command by that word, when its command line holds the question's
// words ("command that installed syntax highlighting": `npm install
// highlight.js`), not merely what was said or written around the run.
const commandWeight = 0.3

// inCommand is the share of the terms found in the text's first span
// between backquotes: the command line, in a command's, an output's or a
// count's observation.
func inCommand(text string, ts []string) float64 {
	_, rest, ok := strings.Cut(text, "`")
	if !ok {
		return 0
	}
	line, _, _ := strings.Cut(rest, "`")
	ws := words(line)
	found := 0
	for _, t := range ts {
		if slices.ContainsFunc(ws, func(w string) bool { return sameWord(w, t) }) {
			found++
		}
	}
	return float64(found) / float64(len(ts))
}

// digits says whether w is a run of ASCII digits.
func digits(w string) bool {
	if w == "" {
		return false
	}
	for _, r := range w {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// candidates is how many hits the index ranks for the reranking at least.
const candidates = 40

// intentBoost multiplies the score of a hit whose kind the question asks
// about: enough to lift it over a near equal, not over a clearly better
// match of another kind. (1.5 until the seventh round; 1.35 was fitted
// with the priors below.)
const intentBoost = 1.35

// rerank puts the hits of the kinds asked about first among near equals,
// stably, so the index's order stays where nothing is asked; a kind not
// asked about is weighed by its prior.
func rerank(hits []Hit, kinds []string) {
	for i := range hits {
		switch {
		case slices.Contains(kinds, hits[i].Kind):
			hits[i].Score *= intentBoost
		default:
			hits[i].Score *= prior(hits[i].Kind)
		}
	}
	slices.SortStableFunc(hits, func(a, b Hit) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return 0
	})
}

// Priors multiply the score of a kind the question does not ask about.
const (
	// countPrior: a count names many commands and files around its run,
	// so it matches questions about any of them; it is worth reading
	// first only when a count is asked for.
	countPrior = 0.5
	// findingPrior: a finding is one short sentence the agent said while
	// looking into a thing, often the problem in the words a question
	// about it uses ("Credo reports nesting too deep in …"), and BM25
	// favours it for being short; what was done about it is elsewhere.
	findingPrior = 0.8
	// accountPrior: a reply, a tool's output and a fix are where what
	// happened is said in full (the value printed, the reason given, the
	// file changed), beside the shorter observations that name the same
	// things.
	accountPrior = 1.1
	// commandPrior: a command's line names the files and names a question
	// is about without saying what came of it; its output, which says,
	// is a separate observation.
	commandPrior = 0.9
	// checkpointPrior: a checkpoint says what the session was doing in
	// many words, so BM25 ranks it under the short observations that share
	// one of them; a search for a project's or a task's name wants it
	// among the first.
	checkpointPrior = 1.2
)

// prior is the weight of a kind not asked about (docs/benchmarks.md,
// "Retrieval, sixth round" and "seventh round": the seventh's were fitted
// on the dev set, blind 3 and blind 5 together and then read on the other
// three).
func prior(kind string) float64 {
	switch kind {
	case KindCount:
		return countPrior
	case KindFinding:
		return findingPrior
	case KindReply, KindOutput, KindErrorFix:
		return accountPrior
	case KindCommand:
		return commandPrior
	case KindCheckpoint:
		return checkpointPrior
	}
	return 1
}

// cues are words of a question that say which kind of observation
// answers it. They are matched on the words as written, lower-cased.
var cues = []struct {
	kind  string
	words []string
}{
	// A reason is asked for: the agent's findings say why as often as
	// its decisions do ("X auto-generates the handler", "fails because").
	{KindFinding, []string{"why"}},
	{KindDecision, []string{"decide", "decided", "decision", "decisions", "chose", "choose", "chosen", "choice", "why", "approach", "instead", "prefer", "preferred", "rationale"}},
	{KindErrorFix, []string{"fix", "fixed", "fixes", "fixing", "error", "errors", "fail", "failed", "failing", "failure", "failures", "broke", "broken", "crash", "crashed", "bug", "exception", "resolve", "resolved", "solved"}},
	{KindCommand, []string{"command", "commands", "run", "runs", "running", "invoke", "script"}},
	{KindCount, []string{"many", "much", "count", "counts", "number", "total"}},
	{KindCheckpoint, []string{"doing", "working", "worked", "task", "session", "progress", "status", "checkpoint", "checkpoints"}},
	{KindOpenItem, []string{"todo", "todos", "left", "remaining", "open", "pending", "unfinished", "outstanding"}},
	{KindConstraint, []string{"must", "never", "always", "rule", "rules", "constraint", "constraints", "allowed"}},
	{KindCompaction, []string{"compaction", "compacted", "summary", "summarised", "summarized"}},
	{KindNote, []string{"remember", "remembered", "note", "noted"}},
	// A name asked for by what it is or does: an edit defined it.
	{KindEdit, []string{"function", "functions", "helper", "helpers", "module", "modules", "define", "defined", "defines", "named",
		"called", "class", "component", "variable", "field"}},
}

// speech are verbs of saying: with the user (or "I") in the question, what
// the user said is asked for, and the user's answer to a question of the
// agent's is where it is said with what it answered.
var speech = []string{"say", "said", "tell", "told", "answer", "answered", "reply", "replied", "type", "typed",
	"ask", "asked", "want", "wanted"}

// intents are the kinds a question's cue words ask about.
func intents(q string) []string {
	var out []string
	ws := words(q)
	for _, w := range ws {
		for _, c := range cues {
			if slices.Contains(c.words, w) && !slices.Contains(out, c.kind) {
				out = append(out, c.kind)
			}
		}
	}
	if (slices.Contains(ws, "user") || slices.Contains(ws, "i")) && !slices.Contains(out, KindAnswer) &&
		slices.ContainsFunc(ws, func(w string) bool { return slices.Contains(speech, w) }) {
		out = append(out, KindAnswer)
	}
	slices.Sort(out)
	return out
}

// words splits text as the index's tokenizer does (unicode61: letters and
// digits; anything else separates), lower-cased.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// terms are the words worth looking for: without the words every
// question has ("which", "the", "did"), each once.
func terms(s string) []string {
	var out []string
	for _, w := range words(s) {
		if stopwords()[w] || slices.Contains(out, w) {
			continue
		}
		out = append(out, w)
	}
	return out
}

// orQuery is an FTS5 query matching any of the terms. Each is quoted, so
// no word is read as an operator (AND, NOT, NEAR) or a column filter.
func orQuery(ts []string) string {
	return joinQuoted(ts, " OR ")
}

// matchAll is an FTS5 query matching every word of s that is worth
// looking for; "" when none is.
func matchAll(s string) string {
	return joinQuoted(terms(s), " AND ")
}

func joinQuoted(ts []string, op string) string {
	q := make([]string, len(ts))
	for i, t := range ts {
		q[i] = `"` + strings.ReplaceAll(t, `"`, `""`) + `"`
	}
	return strings.Join(q, op)
}

// stopwords are English function words and the words of a question: they
// are in most observations, so they rank nothing. Question words that say
// what is asked (why, doing, must) are dropped from the terms but still
// read by intents.
var stopwords = wordSet(`a an the and or but if then else of to in on at by for with from into onto
	about as is are was were be been being am do does did done doing have has had having it its this that
	these those there here what which who whom whose when where why how i me my we us our you your he she they
	them their his her so not no nor can could would should will shall may might must just also too very
	any some all each every other such than up down out over under again once only own same both few more most
	s t d ll m re ve y get got let lets didn doesn wasn weren`)

// wordSet is the set of s's words, built on first use: a package-level
// map is built in every cairn process at start, the hooks' included.
func wordSet(s string) func() map[string]bool {
	return sync.OnceValue(func() map[string]bool {
		m := make(map[string]bool)
		for _, w := range strings.Fields(s) {
			m[w] = true
		}
		return m
	})
}

// laterWord puts a decision just above a better edit of the same session
// that it came after and shares a file with: what was decided about a
// file later (removed, moved, replaced) says what became of the edit.
func laterWord(hits []Hit) []Hit {
	for i := 1; i < len(hits); i++ {
		d := hits[i]
		if d.Kind != KindDecision || len(d.Files) == 0 {
			continue
		}
		for j := 0; j < i; j++ {
			e := hits[j]
			if e.Kind == KindEdit && e.SessionID == d.SessionID && d.Time.After(e.Time) &&
				slices.ContainsFunc(e.Files, func(f string) bool { return slices.Contains(d.Files, f) }) {
				copy(hits[j+1:i+1], hits[j:i])
				hits[j] = d
				break
			}
		}
	}
	return hits
}
