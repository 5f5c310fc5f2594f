package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-agent/cairn/internal/redact"
	"github.com/cairn-agent/cairn/internal/text"
)

// Memory is what the memory tools need of the observation store. Its
// methods may be called concurrently, and must return promptly once ctx is
// done (a client's notifications/cancelled cancels it).
type Memory interface {
	// Search returns the observations that match query and the filter,
	// best first, at most f.Limit of them.
	Search(ctx context.Context, query string, f Filter) ([]Hit, error)
	// Timeline returns the observation id with up to before observations
	// of its project that came before it and up to after that came after,
	// oldest first. An unknown id gives ErrNotFound.
	Timeline(ctx context.Context, id int64, before, after int) ([]Hit, error)
	// Get returns the observations with these ids, in the order asked,
	// leaving out those that do not exist.
	Get(ctx context.Context, ids []int64) ([]Observation, error)
	// Remember stores a note and returns it as stored, with its id.
	Remember(ctx context.Context, n Note) (Observation, error)
	// Forget removes for good what the selection names and returns how
	// many observations it removed.
	Forget(ctx context.Context, s Selection) (int, error)
}

// ErrNotFound is what Memory returns for an observation that does not
// exist.
var ErrNotFound = errors.New("no such observation")

// Filter narrows a search. Zero values do not narrow.
type Filter struct {
	// Project is the project's directory; "" means every project.
	Project string
	Kinds   []string
	// Files keeps observations about a file whose path contains one of
	// these.
	Files []string
	Since time.Time
	Limit int
}

// Hit is an observation in a listing: enough to choose which to read.
type Hit struct {
	ID      int64
	Time    time.Time
	Project string
	Session string
	Kind    string
	Title   string
	// Snippet is the text around the match; "" when there is none.
	Snippet string
}

// Observation is a whole entry.
type Observation struct {
	ID      int64
	Time    time.Time
	Project string
	Session string
	Kind    string
	Title   string
	Body    string
	Files   []string
}

// Note is what the agent asks to remember. It is redacted before the store
// sees it.
type Note struct {
	Time    time.Time
	Project string
	Session string
	Kind    string
	Title   string
	Body    string
	Files   []string
}

// Selection names what to forget: the observations with IDs, or those of
// Session, or those matching Query; Session and Query only within
// Project. Exactly one of IDs, Session and Query is set.
type Selection struct {
	IDs     []int64
	Session string
	Query   string
	Project string
}

// Bounds on what one call asks for or returns.
const (
	defaultLimit  = 10
	maxLimit      = 50
	defaultAround = 5
	maxAround     = 20
	maxIDs        = 20
	maxNote       = 32 << 10
	maxBody       = 8000
)

// memoryTools answers the memory tools.
type memoryTools struct {
	mem  Memory
	loc  *locator
	now  func() time.Time
	zone *time.Location
}

type searchIn struct {
	Query       string `json:"query"`
	Kind        string `json:"kind,omitempty" jsonschema:"e.g. decision, error"`
	File        string `json:"file,omitempty" jsonschema:"path or part of one"`
	Since       string `json:"since,omitempty" jsonschema:"7d, 12h or 2026-01-31"`
	Limit       int    `json:"limit,omitempty"`
	AllProjects bool   `json:"all_projects,omitempty"`
}

type timelineIn struct {
	ID     int64  `json:"id,omitempty"`
	Query  string `json:"query,omitempty"`
	Before int    `json:"before,omitempty"`
	After  int    `json:"after,omitempty"`
}

type getIn struct {
	IDs []int64 `json:"ids"`
}

type rememberIn struct {
	Text  string   `json:"text"`
	Title string   `json:"title,omitempty"`
	Kind  string   `json:"kind,omitempty"`
	Files []string `json:"files,omitempty"`
}

type forgetIn struct {
	IDs     []int64 `json:"ids,omitempty"`
	Session string  `json:"session,omitempty"`
	Query   string  `json:"query,omitempty"`
}

func addMemoryTools(s *server, m *memoryTools) {
	addTool(s, "search",
		"Search memory of this project's past sessions: decisions, errors and fixes, checkpoints, notes. Gives an index for get_observations.",
		nil, m.search)
	addTool(s, "timeline", "Observations around one (by id, or the best match of query).", nil, m.timeline)
	addTool(s, "get_observations", "Full observations by id.", nil, m.get)
	addTool(s, "remember", "Keep a note for future sessions.", nil, m.remember)
	addTool(s, "forget", "Delete observations for good: by ids, session id, or query (this project).", nil, m.forget)
}

func (m *memoryTools) project() string {
	_, root, err := m.loc.project()
	if err != nil {
		return m.loc.dir
	}
	return root
}

func (m *memoryTools) search(ctx context.Context, _ call, in searchIn) (result, error) {
	q := strings.TrimSpace(in.Query)
	if q == "" {
		return result{}, errors.New("query is empty: give words to find")
	}
	f, err := m.filter(in)
	if err != nil {
		return result{}, err
	}
	hits, err := m.mem.Search(ctx, q, f)
	if err != nil {
		return result{}, fmt.Errorf("search: %w", err)
	}
	if len(hits) == 0 {
		where := "in this project"
		if in.AllProjects {
			where = "in any project"
		}
		msg := fmt.Sprintf("No observations match %q %s.", q, where)
		if !in.AllProjects {
			msg += " all_projects: true searches every project."
		}
		return textResult(msg), nil
	}
	var b strings.Builder
	for _, h := range hits {
		m.line(&b, h, in.AllProjects, false)
	}
	b.WriteString("get_observations gives entries; timeline what came around one.")
	return textResult(b.String()), nil
}

func (m *memoryTools) filter(in searchIn) (Filter, error) {
	f := Filter{Limit: in.Limit}
	switch {
	case in.Limit < 0:
		return f, fmt.Errorf("limit %d: give 1 to %d", in.Limit, maxLimit)
	case in.Limit == 0:
		f.Limit = defaultLimit
	case in.Limit > maxLimit:
		f.Limit = maxLimit
	}
	if !in.AllProjects {
		f.Project = m.project()
	}
	if k := strings.TrimSpace(in.Kind); k != "" {
		f.Kinds = []string{k}
	}
	if p := strings.TrimSpace(in.File); p != "" {
		f.Files = []string{p}
	}
	if in.Since != "" {
		t, err := parseSince(in.Since, m.now())
		if err != nil {
			return f, err
		}
		f.Since = t
	}
	return f, nil
}

// parseSince reads "7d", "12h", "30m", "2026-01-31" or an RFC 3339 time.
func parseSince(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if n := len(s); n > 1 {
		// Up to a thousand years of minutes: far beyond any memory,
		// short of a time.Duration's overflow.
		if v, err := strconv.Atoi(s[:n-1]); err == nil && v >= 0 && v <= 500_000_000 {
			switch s[n-1] {
			case 'd':
				return now.Add(-time.Duration(v) * 24 * time.Hour), nil
			case 'h':
				return now.Add(-time.Duration(v) * time.Hour), nil
			case 'm':
				return now.Add(-time.Duration(v) * time.Minute), nil
			}
		}
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if t, err := time.ParseInLocation(time.DateOnly, s, now.Location()); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("since %q: give an age (7d, 12h, 30m) or a date (2026-01-31)", s)
}

// line writes one observation of a listing.
func (m *memoryTools) line(b *strings.Builder, h Hit, project, anchor bool) {
	if anchor {
		b.WriteString("→ ")
	}
	fmt.Fprintf(b, "#%d %s %s", h.ID, h.Time.In(m.zone).Format("2006-01-02 15:04"), orDash(h.Kind))
	if project && h.Project != "" {
		fmt.Fprintf(b, " [%s]", filepath.Base(h.Project))
	}
	fmt.Fprintf(b, " %s", text.ClipLine(h.Title, 120))
	if sn := text.ClipLine(h.Snippet, 200); sn != "" {
		fmt.Fprintf(b, " — %s", sn)
	}
	b.WriteByte('\n')
}

func (m *memoryTools) timeline(ctx context.Context, _ call, in timelineIn) (result, error) {
	before, err := around("before", in.Before)
	if err != nil {
		return result{}, err
	}
	after, err := around("after", in.After)
	if err != nil {
		return result{}, err
	}
	id := in.ID
	switch q := strings.TrimSpace(in.Query); {
	case id != 0 && q != "":
		return result{}, errors.New("give id or query, not both")
	case id < 0:
		return result{}, fmt.Errorf("id %d: observation ids are positive", id)
	case id == 0 && q == "":
		return result{}, errors.New("give the id of an observation (from search) or a query")
	case id == 0:
		hits, err := m.mem.Search(ctx, q, Filter{Project: m.project(), Limit: 1})
		if err != nil {
			return result{}, fmt.Errorf("search: %w", err)
		}
		if len(hits) == 0 {
			return textResult(fmt.Sprintf("No observations match %q in this project.", q)), nil
		}
		id = hits[0].ID
	}
	hits, err := m.mem.Timeline(ctx, id, before, after)
	if errors.Is(err, ErrNotFound) {
		return result{}, fmt.Errorf("no observation #%d (search lists them)", id)
	}
	if err != nil {
		return result{}, fmt.Errorf("timeline: %w", err)
	}
	var b strings.Builder
	for _, h := range hits {
		m.line(&b, h, false, h.ID == id)
	}
	return textResult(b.String()), nil
}

func around(name string, n int) (int, error) {
	switch {
	case n < 0:
		return 0, fmt.Errorf("%s %d: give 0 to %d", name, n, maxAround)
	case n == 0:
		return defaultAround, nil
	}
	return min(n, maxAround), nil
}

func (m *memoryTools) get(ctx context.Context, _ call, in getIn) (result, error) {
	if len(in.IDs) == 0 {
		return result{}, errors.New("ids is empty: give the ids search or timeline listed")
	}
	if len(in.IDs) > maxIDs {
		return result{}, fmt.Errorf("%d ids: ask for at most %d at a time", len(in.IDs), maxIDs)
	}
	obs, err := m.mem.Get(ctx, in.IDs)
	if err != nil {
		return result{}, fmt.Errorf("get: %w", err)
	}
	found := map[int64]bool{}
	var b strings.Builder
	for _, o := range obs {
		found[o.ID] = true
		fmt.Fprintf(&b, "## #%d %s · %s", o.ID, orDash(o.Kind), o.Time.In(m.zone).Format("2006-01-02 15:04"))
		if o.Session != "" {
			fmt.Fprintf(&b, " · session %s", o.Session)
		}
		fmt.Fprintf(&b, "\n%s\n", text.ClipLine(o.Title, 300))
		if len(o.Files) > 0 {
			fmt.Fprintf(&b, "Files: %s\n", strings.Join(o.Files, ", "))
		}
		if body := strings.TrimSpace(o.Body); body != "" {
			if len(body) > maxBody {
				body = text.Clip(body, maxBody) + fmt.Sprintf("\n(cut at %d of %d bytes)", maxBody, len(o.Body))
			}
			b.WriteString(body)
			b.WriteByte('\n')
		}
		b.WriteByte('\n')
	}
	var missing []string
	for _, id := range in.IDs {
		if !found[id] {
			missing = append(missing, "#"+strconv.FormatInt(id, 10))
		}
	}
	if len(missing) > 0 {
		fmt.Fprintf(&b, "Not found: %s\n", strings.Join(missing, ", "))
	}
	return textResult(strings.TrimRight(b.String(), "\n")), nil
}

func (m *memoryTools) remember(ctx context.Context, c call, in rememberIn) (result, error) {
	if len(in.Text) > maxNote {
		return result{}, fmt.Errorf("text is %d bytes: keep a note under %d", len(in.Text), maxNote)
	}
	// What is stored is redacted like everything cairn keeps: a secret or
	// a <private> span never reaches the store.
	body := strings.TrimSpace(redact.String(in.Text))
	if body == "" {
		return result{}, errors.New("text is empty (or only private): give what to remember")
	}
	title := strings.TrimSpace(redact.String(in.Title))
	if title == "" {
		title = text.ClipLine(body, 80)
	}
	kind := strings.TrimSpace(in.Kind)
	if kind == "" {
		kind = "note"
	}
	n := Note{Time: m.now(), Project: m.project(), Kind: kind, Title: title, Body: body}
	for _, f := range in.Files {
		if f = strings.TrimSpace(redact.String(f)); f != "" {
			n.Files = append(n.Files, f)
		}
	}
	// The session, when it can be told without waiting: a note is worth
	// keeping without one.
	quick := *m.loc
	quick.wait = -1
	if t, err := quick.find(ctx, c.toolUseID); err == nil {
		n.Session = t.id
	}
	o, err := m.mem.Remember(ctx, n)
	if err != nil {
		return result{}, fmt.Errorf("remember: %w", err)
	}
	return textResult(fmt.Sprintf("Remembered #%d (%s): %s", o.ID, orDash(o.Kind), text.ClipLine(o.Title, 120))), nil
}

func (m *memoryTools) forget(ctx context.Context, _ call, in forgetIn) (result, error) {
	sel := Selection{IDs: in.IDs, Session: strings.TrimSpace(in.Session), Query: strings.TrimSpace(in.Query)}
	given := 0
	for _, set := range []bool{len(sel.IDs) > 0, sel.Session != "", sel.Query != ""} {
		if set {
			given++
		}
	}
	if given != 1 {
		return result{}, errors.New("give exactly one of ids, session and query")
	}
	for _, id := range sel.IDs {
		if id <= 0 {
			return result{}, fmt.Errorf("id %d: observation ids are positive", id)
		}
	}
	if sel.IDs == nil {
		sel.Project = m.project()
	}
	n, err := m.mem.Forget(ctx, sel)
	if err != nil {
		return result{}, fmt.Errorf("forget: %w", err)
	}
	if n == 0 {
		return textResult("Nothing matched; nothing forgotten."), nil
	}
	return textResult(fmt.Sprintf("Forgot %d observation%s for good.", n, plural(n))), nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
