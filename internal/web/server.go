// Package web is `cairn web`: a local, read-only viewer of the sessions
// cairn reads, served on the loopback interface to whoever holds the
// token it prints. Its pages (projects, a project's sessions, a session's
// timeline with its context chart, checkpoints, open items, the review
// queue, search) are rendered on the server, charts included as SVG, and
// work without JavaScript; the one script, embedded like the style sheet,
// follows a live session through server-sent events fed by the
// incremental transcript engine.
//
// It changes nothing: sessions are read from their saved state, which it
// never writes, and brought up to date in memory; the database is opened
// only when it exists. Everything it shows was redacted when the engine
// read it, and text it reads from files itself is redacted again.
package web

import (
	"bufio"
	"context"
	"crypto/rand"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cairn-agent/cairn/internal/hook"
	"github.com/cairn-agent/cairn/internal/meter"
	"github.com/cairn-agent/cairn/internal/sqlite"
	"github.com/cairn-agent/cairn/internal/state"
	"github.com/cairn-agent/cairn/internal/transcript"
)

//go:embed static
var static embed.FS

// Server is the viewer. Its fields are set before Serve.
type Server struct {
	// ConfigDir is Claude Code's directory, whose projects/ holds the
	// transcripts.
	ConfigDir string
	// State is read for saved sessions (never written).
	State state.Store
	// DBPath is cairn's database; absent, the pages say so.
	DBPath string
	// Projects and Sessions, when set, bring the other clients' sessions
	// (Codex CLI's, Gemini CLI's) beside Claude Code's folders: the
	// project directories they have sessions of, and every client's
	// sessions of one (the command line's table of clients, in
	// internal/hook, gives both).
	Projects func() ([]string, error)
	Sessions func(root string) ([]hook.SessionFile, error)
	// Settings are Claude Code's meter rules; Rules, when set, gives
	// another client's for a project directory ("" when unknown): the
	// command line's table of clients knows them.
	Settings meter.Settings
	Rules    func(client, project string) meter.Rules
	// Token is required on every request: as ?token= (which also sets a
	// cookie, so links need not carry it) or as the cookie.
	Token string
	// Loc is where times are shown.
	Loc *time.Location
	// Poll is how often a live page's transcript is looked at.
	Poll time.Duration
	// Log gets one line per failure the pages show.
	Log io.Writer
	// Idle is how long a session stays in memory once no page has asked
	// for it and no live stream follows it (default 5 minutes): a page
	// closed gives its session back.
	Idle time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time

	mu       sync.Mutex
	sessions map[string]*live
	db       *sqlite.DB
}

// NewToken returns a random access token.
func NewToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// Serve answers requests on ln until ctx ends.
func (s *Server) Serve(ctx context.Context, ln *Listener) error {
	if s.Loc == nil {
		s.Loc = time.Local
	}
	if s.Poll <= 0 {
		s.Poll = 500 * time.Millisecond
	}
	if s.Log == nil {
		s.Log = io.Discard
	}
	if s.Idle <= 0 {
		s.Idle = 5 * time.Minute
	}
	if s.Now == nil {
		s.Now = time.Now
	}
	defer s.close()
	go s.sweep(ctx)
	return serve(ctx, ln, s.handle)
}

// sweep gives back, until ctx ends, the sessions left idle.
func (s *Server) sweep(ctx context.Context) {
	tick := time.NewTicker(s.Idle / 2)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			s.mu.Lock()
			s.evict()
			s.mu.Unlock()
		}
	}
}

// evict drops the sessions no stream follows and no page has asked for
// within Idle; the caller holds s.mu. A page that asks again reads the
// saved state and what was appended since, as the first time.
func (s *Server) evict() {
	now := s.Now()
	for p, l := range s.sessions {
		if l.streams == 0 && now.Sub(l.used) > s.Idle {
			delete(s.sessions, p)
		}
	}
}

// follow counts a live stream on l until the returned function is
// called, when the session's idle time starts.
func (s *Server) follow(l *live) (done func()) {
	s.mu.Lock()
	l.streams++
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		l.streams--
		l.used = s.Now()
		s.mu.Unlock()
	}
}

// held is the number of sessions in memory.
func (s *Server) held() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sessions)
}

func (s *Server) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db != nil {
		s.db.Close()
		s.db = nil
	}
}

// handle checks the method and the token, then routes.
func (s *Server) handle(r *request) (*response, func(*bufio.Writer) error) {
	if r.method != "GET" && r.method != "HEAD" {
		return &response{status: 405, header: [][2]string{{"Allow", "GET, HEAD"}}, body: []byte("read-only: GET and HEAD only\n")}, nil
	}
	fromQuery := r.query.Get("token")
	if !tokenOK(fromQuery, s.Token) && !tokenOK(r.cookie(cookieName), s.Token) {
		return &response{status: 403, body: []byte("forbidden: open the address cairn web printed, with its token\n")}, nil
	}
	if fromQuery != "" && r.method == "GET" && !strings.HasSuffix(r.path, "/events") {
		// Trade the token in the address for a cookie, so that it leaves
		// the address bar and the history: a redirect to the same page
		// without it.
		q := r.query
		q.Del("token")
		loc := r.path
		if e := q.Encode(); e != "" {
			loc += "?" + e
		}
		return &response{status: 303, header: [][2]string{
			{"Location", loc},
			{"Set-Cookie", cookieName + "=" + s.Token + "; Path=/; HttpOnly; SameSite=Strict"},
		}}, nil
	}
	return s.route(r)
}

const cookieName = "cairn_token"

// route maps a path to its page.
func (s *Server) route(r *request) (*response, func(*bufio.Writer) error) {
	parts := strings.Split(strings.Trim(r.path, "/"), "/")
	switch {
	case r.path == "/":
		return s.page(s.projectsPage(r))
	case parts[0] == "static" && len(parts) == 2:
		return s.asset(parts[1]), nil
	case parts[0] == "search" && len(parts) == 1:
		return s.page(s.searchPage(r))
	case parts[0] == "checkpoint" && len(parts) == 2:
		id, err := strconv.ParseInt(parts[1], 10, 64)
		if err != nil {
			return notFound(), nil
		}
		return s.page(s.checkpointPage(r, id))
	case parts[0] == "project" && len(parts) == 2:
		return s.page(s.sessionsPage(r, parts[1]))
	case parts[0] == "project" && len(parts) == 3 && parts[2] == "open":
		return s.page(s.openPage(r, parts[1]))
	case parts[0] == "project" && len(parts) == 3 && parts[2] == "review":
		return s.page(s.reviewPage(r, parts[1]))
	case parts[0] == "session" && len(parts) == 3:
		return s.page(s.sessionPage(r, parts[1], parts[2]))
	case parts[0] == "session" && len(parts) == 4 && parts[3] == "events":
		return s.events(r, parts[1], parts[2])
	}
	return notFound(), nil
}

func notFound() *response {
	return &response{status: 404, body: []byte("not found\n")}
}

// page turns a rendered page, or the error that stopped it, into a response.
func (s *Server) page(body []byte, err error) (*response, func(*bufio.Writer) error) {
	if err != nil {
		var nf errNotFound
		status := 500
		if errors.As(err, &nf) {
			status = 404
		} else {
			fmt.Fprintf(s.Log, "cairn web: %v\n", err)
		}
		var h html
		h.open("cairn: error", "")
		h.f("<h1>%s</h1>\n<p class=\"error\">%s</p>\n", statusText(status), err.Error())
		h.close()
		return &response{status: status, header: htmlType, body: h.bytes()}, nil
	}
	return &response{status: 200, header: htmlType, body: body}, nil
}

var htmlType = [][2]string{{"Content-Type", "text/html; charset=utf-8"}}

type errNotFound struct{ what string }

func (e errNotFound) Error() string { return e.what + " not found" }

// asset serves an embedded file.
func (s *Server) asset(name string) *response {
	data, err := static.ReadFile("static/" + name)
	if err != nil {
		return notFound()
	}
	typ := "text/plain; charset=utf-8"
	switch path.Ext(name) {
	case ".css":
		typ = "text/css; charset=utf-8"
	case ".js":
		typ = "text/javascript; charset=utf-8"
	case ".svg":
		typ = "image/svg+xml"
	}
	return &response{status: 200, header: [][2]string{{"Content-Type", typ}}, body: data}
}

// database opens cairn's database once, when it exists: the viewer never
// creates it.
func (s *Server) database(ctx context.Context) (*sqlite.DB, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.db != nil {
		return s.db, nil
	}
	if s.DBPath == "" {
		return nil, errNoDB
	}
	if _, err := os.Stat(s.DBPath); err != nil {
		return nil, errNoDB
	}
	db, err := sqlite.Open(ctx, s.DBPath)
	if err != nil {
		return nil, fmt.Errorf("open database: %w", err)
	}
	s.db = db
	return db, nil
}

var errNoDB = errors.New("no database yet: cairn stores checkpoints and memory once its hooks have run")

// live is a session held in memory and brought up to date by the
// incremental engine: a page reads it, a live page's stream follows it.
type live struct {
	mu     sync.Mutex
	s      *transcript.Session
	parser transcript.Parser
	// restored are the restore texts read from the transcript so far.
	restored []restore
	// streams are the live streams following it, used when a page last
	// asked for it or a stream ended; both under the Server's mu.
	streams int
	used    time.Time
}

// session returns the session of the transcript at path, up to date. The
// first time, it starts from the saved state when there is one (read,
// never written), else from the transcript.
func (s *Server) session(path string) (*live, error) {
	s.mu.Lock()
	if s.sessions == nil {
		s.sessions = map[string]*live{}
	}
	s.evict()
	l, ok := s.sessions[path]
	if !ok {
		l = &live{}
		s.sessions[path] = l
	}
	l.used = s.Now()
	s.mu.Unlock()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.s == nil {
		if l.s = s.State.LoadBody(path); l.s == nil {
			l.s = transcript.New(path)
		}
	}
	if _, err := l.update(); err != nil {
		return nil, err
	}
	return l, nil
}

// update reads what was appended since the last read; it reports whether
// anything was. The caller holds l.mu.
func (l *live) update() (bool, error) {
	res, err := l.s.Update(&l.parser)
	if err != nil {
		return false, fmt.Errorf("read transcript: %w", err)
	}
	return res.Read > 0 || res.Rebuilt, nil
}
