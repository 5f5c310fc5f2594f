package web

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/cairn-agent/cairn/internal/capture"
	"github.com/cairn-agent/cairn/internal/checkpoint"
	"github.com/cairn-agent/cairn/internal/claudecode"
	"github.com/cairn-agent/cairn/internal/config"
	"github.com/cairn-agent/cairn/internal/continuity"
	"github.com/cairn-agent/cairn/internal/git"
	"github.com/cairn-agent/cairn/internal/hook"
	"github.com/cairn-agent/cairn/internal/learn"
	"github.com/cairn-agent/cairn/internal/memory"
	"github.com/cairn-agent/cairn/internal/meter"
	"github.com/cairn-agent/cairn/internal/pressure"
	"github.com/cairn-agent/cairn/internal/redact"
	"github.com/cairn-agent/cairn/internal/sqlite"
	"github.com/cairn-agent/cairn/internal/text"
	"github.com/cairn-agent/cairn/internal/transcript"
)

func (s *Server) projectsDir() string { return filepath.Join(s.ConfigDir, "projects") }

// when prints a time as the commands do, "-" when unknown.
func (s *Server) when(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.In(s.Loc).Format("2006-01-02 15:04")
}

// sessionFile is one session's transcript in a project's listing.
type sessionFile struct {
	// client is the --agent word of the client that wrote it.
	client, id, path string
	// root is the project directory, when the client's files say it
	// (Claude Code's folder names it lossily).
	root string
	mod  time.Time
}

// claudeCode is Claude Code's --agent word, the client of the projects/
// folders.
const claudeCode = "claude-code"

// others are the other clients' sessions (Codex CLI's, Gemini CLI's), by
// the key of the project folder Claude Code would keep for their project
// directory, so that a project's sessions of every client share a page.
func (s *Server) others() (map[string][]sessionFile, error) {
	if s.Projects == nil || s.Sessions == nil {
		return nil, nil
	}
	roots, err := s.Projects()
	out := map[string][]sessionFile{}
	seen := map[string]bool{}
	for _, root := range roots {
		fs, ferr := s.Sessions(root)
		err = errors.Join(err, ferr)
		key := claudecode.ProjectKey(root)
		for _, f := range fs {
			// A Codex session of a directory inside root is root's too, as
			// `cairn sessions` run there lists it; once per project.
			if f.Agent == claudeCode || seen[key+"\x00"+f.Path] {
				continue
			}
			seen[key+"\x00"+f.Path] = true
			out[key] = append(out[key], sessionFile{client: f.Agent, id: f.ID, path: f.Path, root: root, mod: f.ModTime})
		}
	}
	return out, err
}

// projectsPage lists the projects with sessions of any client: Claude
// Code's folders, and the directories the others' files name.
func (s *Server) projectsPage(*request) ([]byte, error) {
	ents, err := os.ReadDir(s.projectsDir())
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("list projects: %w", err)
	}
	type project struct {
		key      string
		sessions int
		last     time.Time
		clients  []string
	}
	byKey := map[string]*project{}
	var ps []*project
	add := func(key, client string, n int, last time.Time) {
		p := byKey[key]
		if p == nil {
			p = &project{key: key}
			byKey[key] = p
			ps = append(ps, p)
		}
		p.sessions += n
		if last.After(p.last) {
			p.last = last
		}
		if !slices.Contains(p.clients, client) {
			p.clients = append(p.clients, client)
		}
	}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		files, _ := claudecode.Sessions(filepath.Join(s.projectsDir(), e.Name()))
		if len(files) == 0 {
			continue
		}
		add(e.Name(), claudeCode, len(files), files[0].ModTime)
	}
	others, err := s.others()
	if err != nil {
		fmt.Fprintf(s.Log, "cairn web: %v\n", err)
	}
	for key, fs := range others {
		for _, f := range fs {
			add(key, f.client, 1, f.mod)
		}
	}
	slices.SortStableFunc(ps, func(a, b *project) int {
		if c := b.last.Compare(a.last); c != 0 {
			return c
		}
		return strings.Compare(a.key, b.key)
	})
	var h html
	h.open("cairn: projects", "")
	h.raw("<h1>Projects</h1>\n")
	if len(ps) == 0 {
		h.f("<p>No sessions yet: none of Claude Code under %s, nor of Codex CLI or Gemini CLI.</p>\n", s.projectsDir())
	} else {
		h.raw("<table>\n<thead><tr><th>project</th><th>sessions</th><th>clients</th><th>last activity</th></tr></thead>\n<tbody>\n")
		order := hook.AgentNames()
		for _, p := range ps {
			slices.SortFunc(p.clients, func(a, b string) int { return slices.Index(order, a) - slices.Index(order, b) })
			var titles []string
			for _, c := range p.clients {
				titles = append(titles, transcript.ClientTitle(c))
			}
			h.f("<tr><td><a href=\"/project/%s\">%s</a></td><td class=\"n\">%d</td><td>%s</td><td>%s</td></tr>\n", seg(p.key), p.key, p.sessions, strings.Join(titles, ", "), s.when(p.last))
		}
		h.raw("</tbody>\n</table>\n")
	}
	h.close()
	return h.bytes(), nil
}

// projectFiles lists a project's transcripts of every client, newest
// first; key must name a project (a Claude Code folder, or the key of a
// directory another client ran in).
func (s *Server) projectFiles(key string) ([]sessionFile, error) {
	if key == "" || key == "." || key == ".." || strings.ContainsAny(key, `/\`) {
		return nil, errNotFound{"project"}
	}
	cc, err := claudecode.Sessions(filepath.Join(s.projectsDir(), key))
	folder := err == nil
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	var out []sessionFile
	for _, f := range cc {
		out = append(out, sessionFile{client: claudeCode, id: f.ID, path: f.Path, mod: f.ModTime})
	}
	others, err := s.others()
	if err != nil {
		fmt.Fprintf(s.Log, "cairn web: %v\n", err)
	}
	if !folder && len(others[key]) == 0 {
		return nil, errNotFound{"project " + key}
	}
	out = append(out, others[key]...)
	slices.SortStableFunc(out, func(a, b sessionFile) int { return b.mod.Compare(a.mod) })
	return out, nil
}

// sessionFile finds a session's transcript among a project's.
func (s *Server) sessionFile(key, id string) (sessionFile, error) {
	files, err := s.projectFiles(key)
	if err != nil {
		return sessionFile{}, err
	}
	for _, f := range files {
		if f.id == id {
			return f, nil
		}
	}
	return sessionFile{}, errNotFound{"session " + id}
}

// root is the project directory a project folder is named after, from a
// session's working directory (the folder's name alone is ambiguous:
// Claude Code turns every "/" and "." into "-").
func (s *Server) root(key, cwd string) string {
	if cwd == "" {
		return ""
	}
	for dir := filepath.Clean(cwd); ; dir = filepath.Dir(dir) {
		if claudecode.ProjectKey(dir) == key {
			return dir
		}
		if filepath.Dir(dir) == dir {
			return ""
		}
	}
}

// projectRoot finds the project directory of a folder from its newest
// session that says where it ran.
func (s *Server) projectRoot(key string, files []sessionFile) string {
	for _, f := range files {
		if f.root != "" {
			return f.root
		}
		if sess := s.light(f.path); sess != nil {
			if r := s.root(key, sess.CWD); r != "" {
				return r
			}
		}
	}
	return ""
}

// light reads a session for a listing: a live one as it is, else the
// saved head brought up to date in memory.
func (s *Server) light(path string) *transcript.Session {
	s.mu.Lock()
	l := s.sessions[path]
	s.mu.Unlock()
	if l != nil {
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.s != nil {
			l.update()
			return l.s
		}
	}
	sess := s.State.LoadHeader(path)
	if sess == nil {
		sess = transcript.New(path)
	}
	p := transcript.Parser{Light: true}
	if _, err := sess.Update(&p); err != nil {
		return nil
	}
	return sess
}

// sessionsPage lists a project's sessions.
func (s *Server) sessionsPage(_ *request, key string) ([]byte, error) {
	files, err := s.projectFiles(key)
	if err != nil {
		return nil, err
	}
	var h html
	h.open("cairn: "+key, "")
	h.f("<h1>%s</h1>\n", key)
	h.f("<p><a href=\"/project/%s/open\">open items</a> · <a href=\"/project/%s/review\">review queue and learnings</a></p>\n", seg(key), seg(key))
	h.raw("<table class=\"sessions\">\n<thead><tr><th>session</th><th>client</th><th>last activity</th><th>context</th><th>turns</th><th>compactions</th><th>ticket</th><th>first prompt</th></tr></thead>\n<tbody>\n")
	for _, f := range files {
		sess := s.light(f.path)
		if sess == nil {
			h.f("<tr><td><a href=\"/session/%s/%s\">%s</a></td><td>%s</td><td colspan=\"6\">unreadable</td></tr>\n", seg(key), seg(f.id), short(f.id), transcript.ClientTitle(f.client))
			continue
		}
		r, _ := meter.Measure(sess, s.rules(sess, s.rootOf(key, f, sess)))
		ticket := ""
		if ts := checkpoint.Tickets(sess, nil); len(ts) > 0 {
			ticket = ts[len(ts)-1]
		}
		first := ""
		if len(sess.Prompts) > 0 {
			first = sess.Prompts[0].Text
		}
		h.f("<tr class=\"client-%s\"><td><a href=\"/session/%s/%s\">%s</a></td><td>%s</td><td>%s</td><td class=\"n\">%.1f%%</td><td class=\"n\">%d</td><td class=\"n\">%d</td><td>%s</td><td>%s</td></tr>\n",
			f.client, seg(key), seg(f.id), short(f.id), transcript.ClientTitle(sess.Client), s.when(sess.LastTime), r.PctThreshold, sess.NumTurns(), len(sess.Compactions), ticket, text.ClipLine(first, 80))
	}
	h.raw("</tbody>\n</table>\n")
	h.close()
	return h.bytes(), nil
}

func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// rootOf is a session's project directory: where it ran, else where its
// client's files say.
func (s *Server) rootOf(key string, f sessionFile, sess *transcript.Session) string {
	if r := s.root(key, sess.CWD); r != "" {
		return r
	}
	return f.root
}

// rules are the meter's rules for the client that wrote sess, in the
// project at root ("" when unknown).
func (s *Server) rules(sess *transcript.Session, root string) meter.Rules {
	if s.Rules != nil {
		if r := s.Rules(sess.Client, root); r != nil {
			return r
		}
	}
	return s.Settings
}

// sessionView is what a session page shows, worked out under the
// session's lock and rendered by parts, which the live stream sends again.
type sessionView struct {
	key, id  string
	root     string
	sess     *transcript.Session
	reading  meter.Reading
	trend    meter.Trend
	levels   pressure.Config
	restores []restore
}

// sessionPage is a session's timeline.
func (s *Server) sessionPage(r *request, key, id string) ([]byte, error) {
	f, err := s.sessionFile(key, id)
	if err != nil {
		return nil, err
	}
	l, err := s.session(f.path)
	if err != nil {
		return nil, err
	}
	l.mu.Lock()
	v := s.view(l, key, f)
	parts := v.parts()
	sess := l.s
	root := v.root
	model, branch, cwd := sess.Model, sess.GitBranch, sess.CWD
	first := ""
	if len(sess.Prompts) > 0 {
		first = sess.Prompts[0].Text
	}
	l.mu.Unlock()

	var h html
	h.open("cairn: session "+short(id), "/session/"+seg(key)+"/"+seg(id)+"/events")
	h.f("<p class=\"crumbs\"><a href=\"/project/%s\">%s</a></p>\n", seg(key), key)
	h.f("<h1>Session %s</h1>\n", id)
	h.f("<p class=\"meta\">model %s · branch %s · %s</p>\n", orDash(model), orDash(branch), orDash(cwd))
	if first != "" {
		h.f("<p class=\"first\">Asked first: “%s”</p>\n", text.ClipLine(first, 300))
	}
	for _, p := range parts {
		h.f("<section id=\"%s\">\n%s</section>\n", p[0], trusted(p[1]))
	}
	s.sessionRecords(r.ctx, &h, root, id)
	h.close()
	return h.bytes(), nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// view works out a session page's figures; the caller holds l.mu.
func (s *Server) view(l *live, key string, f sessionFile) *sessionView {
	root := s.rootOf(key, f, l.s)
	v := &sessionView{key: key, id: f.id, root: root, sess: l.s, levels: levels(root)}
	v.reading, v.trend = meter.Measure(l.s, s.rules(l.s, root))
	v.restores = l.restores()
	return v
}

// levels are the pressure levels the project configures (its
// .claude/cairn.conf), the defaults when it has none or is not here.
func levels(root string) pressure.Config {
	if root == "" {
		return pressure.Default()
	}
	conf, _ := config.Load(root)
	return conf.Pressure
}

// parts are the session page's sections that change as the session
// grows, by element id.
func (v *sessionView) parts() [][2]string {
	return [][2]string{
		{"meter", v.meterPart()},
		{"timeline", v.chartPart()},
		{"compactions", v.compactionsPart()},
		{"restores", v.restoresPart()},
		{"open", v.openPart()},
	}
}

func (v *sessionView) meterPart() string {
	var h html
	r, sess := v.reading, v.sess
	level := v.levels.Level(r)
	h.f("<h2>Context</h2>\n<p class=\"meter level-%d\"><strong>%s</strong> / %s tokens · %.1f%% of the window · <strong>%.1f%%</strong> of auto-compact (%s) · <span class=\"level\">%s</span></p>\n",
		level, num(r.Tokens), num(r.Window), r.PctWindow, r.PctThreshold, num(r.Threshold), pressure.Name(level))
	h.f("<p>turns <span id=\"turn-count\">%d</span> · compactions %d · last activity %s</p>\n", sess.NumTurns(), len(sess.Compactions), sess.LastTime.UTC().Format("2006-01-02 15:04 UTC"))
	if v.trend.Samples > 1 {
		h.f("<p>trend %+.0f tokens/turn", v.trend.PerTurn)
		if v.trend.TurnsToCompact != nil {
			h.f(" · compacts in about %.0f turns", *v.trend.TurnsToCompact)
		}
		if v.trend.MinutesToCompact != nil {
			h.f(" · %.0f min at this rate", *v.trend.MinutesToCompact)
		}
		h.raw("</p>\n")
	}
	return h.b.String()
}

func (v *sessionView) chartPart() string {
	var h html
	h.raw("<h2>Context per turn</h2>\n")
	h.raw(chart(v.sess, v.reading, v.levels))
	cs := crossings(v.sess, v.reading, v.levels)
	if len(cs) > 0 {
		h.raw("<h3>Levels crossed</h3>\n<ul class=\"crossings\">\n")
		for _, c := range cs {
			h.f("<li>%s at turn %d (%s tokens)</li>\n", pressure.Name(c.Level), c.Turn, num(c.Tokens))
		}
		h.raw("</ul>\n")
	}
	return h.b.String()
}

func (v *sessionView) compactionsPart() string {
	var h html
	h.f("<h2>Compactions (%d)</h2>\n", len(v.sess.Compactions))
	if len(v.sess.Compactions) == 0 {
		h.raw("<p>None yet.</p>\n")
		return h.b.String()
	}
	h.raw("<table class=\"compactions\">\n<thead><tr><th>#</th><th>trigger</th><th>when</th><th>after turn</th><th>tokens before</th><th>after</th></tr></thead>\n<tbody>\n")
	for i, c := range v.sess.Compactions {
		h.f("<tr class=\"compaction\"><td>%d</td><td>%s</td><td>%s</td><td class=\"n\">%d</td><td class=\"n\">%s</td><td class=\"n\">%s</td></tr>\n",
			i+1, c.Trigger, c.Time.UTC().Format("2006-01-02 15:04 UTC"), c.TurnsBefore, num(c.PreTokens), postTokens(c))
		if c.Summary != "" {
			h.f("<tr><td></td><td colspan=\"5\"><details><summary>the summary (%s characters; its start)</summary><pre>%s</pre></details></td></tr>\n", num(int64(c.SummaryChars)), c.Summary)
		}
	}
	h.raw("</tbody>\n</table>\n")
	return h.b.String()
}

func (v *sessionView) restoresPart() string {
	var h html
	h.raw("<h2>What was restored</h2>\n")
	if len(v.restores) == 0 {
		if len(v.sess.Compactions) > 0 {
			h.raw("<p>The transcript records no restore from cairn after these compactions (cairn was not installed, or the client keeps no record of hook answers).</p>\n")
		} else {
			h.raw("<p>Nothing yet: a restore follows a compaction.</p>\n")
		}
		return h.b.String()
	}
	for _, r := range v.restores {
		h.f("<article class=\"restore\"><h3>line %d</h3><pre>%s</pre></article>\n", r.line, r.text)
	}
	return h.b.String()
}

func (v *sessionView) openPart() string {
	var h html
	open := v.sess.Ledger.Open()
	h.f("<h2>Open items (%d)</h2>\n", len(open))
	if len(open) > 0 {
		h.raw("<ul class=\"open\">\n")
		for _, it := range open {
			h.f("<li><span class=\"kind\">%s</span> %s <span class=\"where\">(turn %d)</span></li>\n", string(it.Kind), it.Text, it.Turn)
		}
		h.raw("</ul>\n")
	}
	return h.b.String()
}

// restore is the text a restore line of the transcript gave the model.
type restore struct {
	line int
	text string
}

// restores reads the restore lines the session notes, once each; the
// caller holds l.mu.
func (l *live) restores() []restore {
	var want []int
	for _, n := range l.s.RestoreLines {
		if !slices.ContainsFunc(l.restored, func(r restore) bool { return r.line == n }) {
			want = append(want, n)
		}
	}
	if len(want) > 0 {
		l.restored = append(l.restored, readRestores(l.s.Path, want)...)
		slices.SortFunc(l.restored, func(a, b restore) int { return a.line - b.line })
	}
	return l.restored
}

// readRestores reads the restore texts on the given lines (1-based) of the
// transcript: the client's record of the hook's additional context.
func readRestores(path string, lines []int) []restore {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<20)
	var out []restore
	last := slices.Max(lines)
	for n := 1; n <= last; n++ {
		want := slices.Contains(lines, n)
		line, err := br.ReadSlice('\n')
		if want {
			line = bytes.Clone(line) // the next read reuses the buffer
		}
		for errors.Is(err, bufio.ErrBufferFull) { // a line longer than the buffer
			var more []byte
			more, err = br.ReadSlice('\n')
			if want {
				line = append(line, more...)
			}
		}
		if err != nil && len(line) == 0 {
			break
		}
		if !want {
			continue
		}
		var rec any
		if json.Unmarshal(line, &rec) != nil {
			continue
		}
		for _, c := range restoreTexts(rec, nil) {
			out = append(out, restore{line: n, text: redact.String(c)})
		}
	}
	return out
}

// restoreTexts are the restores in a transcript record of any client,
// appended to out: Claude Code keeps the hook's context as a string of
// an attachment's content, Codex CLI as the text of a developer message,
// Gemini CLI inside <hook_context> in a part of the prompt.
func restoreTexts(v any, out []string) []string {
	switch v := v.(type) {
	case string:
		if strings.HasPrefix(v, transcript.RestoreHeader) {
			return append(out, v)
		}
		if _, after, ok := strings.Cut(v, "<hook_context>"+transcript.RestoreHeader); ok {
			body, _, _ := strings.Cut(after, "</hook_context>")
			return append(out, transcript.RestoreHeader+body)
		}
	case []any:
		for _, e := range v {
			out = restoreTexts(e, out)
		}
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys) // the same order on every read
		for _, k := range keys {
			out = restoreTexts(v[k], out)
		}
	}
	return out
}

// sessionRecords are the session's checkpoints (from the database) and
// handoffs (from the project's files).
func (s *Server) sessionRecords(ctx context.Context, h *html, root, id string) {
	h.raw("<section id=\"checkpoints\">\n<h2>Checkpoints</h2>\n")
	cps, err := s.checkpoints(ctx, root)
	switch {
	case err != nil:
		h.f("<p>%s</p>\n", err.Error())
	default:
		var mine []sqlite.Checkpoint
		for _, c := range cps {
			if c.SessionID == id {
				mine = append(mine, c)
			}
		}
		if len(mine) == 0 {
			h.raw("<p>None for this session.</p>\n")
			break
		}
		h.raw("<table>\n<thead><tr><th>#</th><th>when</th><th>trigger</th><th>context</th><th>task</th></tr></thead>\n<tbody>\n")
		for _, c := range mine {
			h.f("<tr><td><a href=\"/checkpoint/%d\">%d</a></td><td>%s</td><td>%s</td><td class=\"n\">%s</td><td>%s</td></tr>\n",
				c.ID, c.ID, s.when(c.CreatedAt), c.Trigger, num(c.ContextTokens), text.ClipLine(c.Task, 100))
		}
		h.raw("</tbody>\n</table>\n")
	}
	h.raw("</section>\n<section id=\"snapshots\">\n<h2>Snapshots of the work in progress</h2>\n")
	s.snapshots(ctx, h, root, id)
	h.raw("</section>\n<section id=\"handoffs\">\n<h2>Handoffs</h2>\n")
	docs := handoffs(root, id)
	if len(docs) == 0 {
		h.raw("<p>None for this session.</p>\n")
	}
	for _, d := range docs {
		h.f("<details><summary>%s</summary><pre>%s</pre></details>\n", filepath.Base(d[0]), d[1])
	}
	h.raw("</section>\n")
}

// snapshots lists the session's WIP snapshots (git refs under
// refs/cairn/wip; listing them changes nothing).
func (s *Server) snapshots(ctx context.Context, h *html, root, id string) {
	if fi, err := os.Stat(root); root == "" || err != nil || !fi.IsDir() {
		h.raw("<p>The project's folder is not on this machine.</p>\n")
		return
	}
	snaps, err := git.Snapshots(ctx, root, id)
	if err != nil {
		h.f("<p>None: %s</p>\n", text.ClipLine(err.Error(), 200))
		return
	}
	if len(snaps) == 0 {
		h.raw("<p>None for this session.</p>\n")
		return
	}
	h.raw("<table>\n<thead><tr><th>#</th><th>taken</th><th>changes</th><th>message</th></tr></thead>\n<tbody>\n")
	for _, sn := range snaps {
		h.f("<tr><td>%d</td><td>%s</td><td>%s</td><td>%s</td></tr>\n", sn.Number, s.when(sn.Time), sn.DiffStat, redact.String(sn.Message))
	}
	h.raw("</tbody>\n</table>\n<p>See one with <code>cairn snapshot show N</code>.</p>\n")
}

// checkpoints lists a project's checkpoints, newest first.
func (s *Server) checkpoints(ctx context.Context, root string) ([]sqlite.Checkpoint, error) {
	if root == "" {
		return nil, nil
	}
	db, err := s.database(ctx)
	if err != nil {
		return nil, err
	}
	return db.Checkpoints(ctx, root, 200)
}

// handoffs are the handoff documents in root/.claude/handoffs written for
// the session id: path and text, redacted again.
func handoffs(root, id string) [][2]string {
	if root == "" {
		return nil
	}
	paths, _ := filepath.Glob(filepath.Join(root, ".claude", "handoffs", "*.md"))
	var out [][2]string
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(data, []byte("session_id: "+id+"\n")) {
			continue
		}
		out = append(out, [2]string{p, redact.String(string(data))})
	}
	return out
}

// checkpointPage prints one checkpoint in full.
func (s *Server) checkpointPage(r *request, id int64) ([]byte, error) {
	db, err := s.database(r.ctx)
	if err != nil {
		return nil, err
	}
	rec, err := db.Checkpoint(r.ctx, id)
	if err != nil {
		return nil, errNotFound{fmt.Sprintf("checkpoint %d", id)}
	}
	c, err := continuity.FromRecord(rec)
	if err != nil {
		return nil, err
	}
	var h html
	h.open(fmt.Sprintf("cairn: checkpoint %d", id), "")
	key := claudecode.ProjectKey(rec.Project)
	h.f("<p class=\"crumbs\"><a href=\"/project/%s\">%s</a> · <a href=\"/session/%s/%s\">session %s</a></p>\n", seg(key), key, seg(key), seg(rec.SessionID), short(rec.SessionID))
	h.f("<h1>Checkpoint %d</h1>\n<p class=\"meta\">%s · %s · %s tokens</p>\n", id, s.when(rec.CreatedAt), rec.Trigger, num(rec.ContextTokens))
	h.pre(redact.String(c.Markdown()))
	h.close()
	return h.bytes(), nil
}

// openPage lists the open items of the project's latest sessions.
func (s *Server) openPage(_ *request, key string) ([]byte, error) {
	files, err := s.projectFiles(key)
	if err != nil {
		return nil, err
	}
	var h html
	h.open("cairn: open items", "")
	h.f("<p class=\"crumbs\"><a href=\"/project/%s\">%s</a></p>\n<h1>Open items</h1>\n", seg(key), key)
	const latest = 5
	if len(files) > latest {
		files = files[:latest]
	}
	for _, f := range files {
		l, err := s.session(f.path)
		if err != nil {
			h.f("<h2>%s</h2><p>%s</p>\n", short(f.id), err.Error())
			continue
		}
		l.mu.Lock()
		open := l.s.Ledger.Open()
		l.mu.Unlock()
		h.f("<h2><a href=\"/session/%s/%s\">%s</a> (%d)</h2>\n", seg(key), seg(f.id), short(f.id), len(open))
		if len(open) == 0 {
			continue
		}
		h.raw("<ul class=\"open\">\n")
		for _, it := range open {
			h.f("<li><span class=\"kind\">%s</span> %s <span class=\"where\">(turn %d)</span></li>\n", string(it.Kind), it.Text, it.Turn)
		}
		h.raw("</ul>\n")
	}
	h.close()
	return h.bytes(), nil
}

// reviewPage is the project's review queue: the compaction captures, and
// the learnings with the working notes not yet promoted.
func (s *Server) reviewPage(_ *request, key string) ([]byte, error) {
	files, err := s.projectFiles(key)
	if err != nil {
		return nil, err
	}
	root := s.projectRoot(key, files)
	var h html
	h.open("cairn: review queue", "")
	h.f("<p class=\"crumbs\"><a href=\"/project/%s\">%s</a></p>\n<h1>Review queue</h1>\n", seg(key), key)
	if root == "" {
		h.raw("<p>No session says where this project is, so its files cannot be found.</p>\n")
		h.close()
		return h.bytes(), nil
	}
	conf, _ := config.Load(root)
	dirOf := func(d, def string) string {
		if d == "" {
			d = def
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(root, filepath.FromSlash(d))
		}
		return d
	}
	captures, _ := capture.List(dirOf(conf.CaptureDir, capture.Dir))
	h.f("<h2>Compaction captures (%d)</h2>\n", len(captures))
	if len(captures) == 0 {
		h.f("<p>None in %s.</p>\n", dirOf(conf.CaptureDir, capture.Dir))
	}
	for _, c := range captures {
		h.f("<details class=\"capture %s\"><summary>%s · <strong>%s</strong> · session %s</summary><pre>%s</pre></details>\n",
			strings.ToLower(c.Status), s.when(c.Time), c.Status, short(c.SessionID), redact.String(c.Raw))
	}
	flow := dirOf(conf.FlowDir, config.Default().FlowDir)
	unpromoted, _ := learn.Unpromoted(flow, flow)
	h.f("<h2>Working notes not yet learnings (%d)</h2>\n", len(unpromoted))
	if len(unpromoted) > 0 {
		h.raw("<ul>\n")
		for _, e := range unpromoted {
			h.f("<li><strong>%s</strong> <span class=\"where\">(%s, %s)</span></li>\n", e.Heading, e.File, e.ID)
		}
		h.raw("</ul>\n<p>Promote them with <code>cairn compound</code>.</p>\n")
	}
	stock, _ := learn.ReadStock(flow)
	h.f("<h2>Learnings (%d)</h2>\n", len(stock))
	if len(stock) > 0 {
		h.raw("<table>\n<thead><tr><th>id</th><th>learning</th><th>confirmed</th><th>last</th></tr></thead>\n<tbody>\n")
		for _, e := range stock {
			last := "-"
			if !e.Meta.LastConfirmed.IsZero() {
				last = e.Meta.LastConfirmed.Format("2006-01-02")
			}
			h.f("<tr><td>%s</td><td>%s</td><td class=\"n\">%d</td><td>%s</td></tr>\n", e.ID, e.Title, e.Meta.Confirmed, last)
		}
		h.raw("</tbody>\n</table>\n")
	}
	h.close()
	return h.bytes(), nil
}

// searchPage searches the memory (internal/memory): a form that works
// without JavaScript.
func (s *Server) searchPage(r *request) ([]byte, error) {
	q := strings.TrimSpace(r.query.Get("q"))
	var h html
	h.open("cairn: search", "")
	h.f("<h1>Search the memory</h1>\n<form method=\"get\" action=\"/search\"><input type=\"search\" name=\"q\" value=\"%s\" placeholder=\"what was decided about …\"> <button>search</button></form>\n", q)
	if q != "" {
		db, err := s.database(r.ctx)
		if err != nil {
			h.f("<p>%s</p>\n", err.Error())
		} else {
			hits, err := memory.New(db).Search(r.ctx, memory.Query{Text: q, Limit: 30})
			if err != nil {
				return nil, fmt.Errorf("search: %w", err)
			}
			h.f("<p>%d found.</p>\n<ol class=\"hits\">\n", len(hits))
			for _, hit := range hits {
				key := claudecode.ProjectKey(hit.Project)
				h.f("<li><span class=\"kind\">%s</span> <strong>%s</strong> <span class=\"where\">#%d · %s", hit.Kind, hit.Title, hit.ID, s.when(hit.Time))
				if hit.SessionID != "" {
					h.f(" · <a href=\"/session/%s/%s\">session %s</a>", seg(key), seg(hit.SessionID), short(hit.SessionID))
				}
				h.raw("</span>")
				if hit.Snippet != "" {
					h.f("<br><span class=\"snippet\">%s</span>", hit.Snippet)
				}
				h.raw("</li>\n")
			}
			h.raw("</ol>\n")
		}
	}
	h.close()
	return h.bytes(), nil
}
