package web

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/capture"
	"github.com/cairn-agent/cairn/internal/checkpoint"
	"github.com/cairn-agent/cairn/internal/claudecode"
	"github.com/cairn-agent/cairn/internal/fixtures"
	"github.com/cairn-agent/cairn/internal/git"
	"github.com/cairn-agent/cairn/internal/golden"
	"github.com/cairn-agent/cairn/internal/learn"
	"github.com/cairn-agent/cairn/internal/memory"
	"github.com/cairn-agent/cairn/internal/sqlite"
	"github.com/cairn-agent/cairn/internal/state"
	"github.com/cairn-agent/cairn/internal/transcript"
)

func TestMain(m *testing.M) {
	code := m.Run()
	fixtures.Remove()
	os.Exit(code)
}

// The fixture the viewer's tests read: a real session with one automatic
// compaction at 167,094 tokens after turn 102 of 152.
const (
	fixtureID = "258c7280-ae70-4798-800f-63464d01a85d"
	// fixtureCWD is where the fixture's session ran: the project folder
	// is named after it, so that the viewer finds the project's records.
	fixtureCWD = "/home/USER/projects/spotter-worktrees/spotter-gqc"
	testToken  = "0123456789abcdef0123456789abcdef"
)

// restoreText is what the test's restore line gave the model.
const restoreText = transcript.RestoreHeader + "\n\nThis session was just compacted (auto, 167,094 → 9,120 tokens).\n\n## Task\n- Ticket: spotter-gqc\n- Latest request: “ship the <annotations> & refs”"

// testSite is a viewer over one project holding the fixture session,
// a restore line appended to it, and a checkpoint in the database.
type testSite struct {
	t     *testing.T
	s     *Server
	base  string
	key   string
	path  string // the session's transcript
	cpID  int64
	dir   string // the temporary folder it all lives in
	close func()
}

func newSite(t *testing.T) *testSite {
	t.Helper()
	src, err := fixtures.Path(fixtureID)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	key := claudecode.ProjectKey(fixtureCWD)
	folder := filepath.Join(dir, "claude", "projects", key)
	if err := os.MkdirAll(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	data = append(data, restoreLine(restoreText)...)
	path := filepath.Join(folder, fixtureID+".jsonl")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	stamp := time.Date(2026, 2, 11, 21, 46, 30, 0, time.UTC)
	os.Chtimes(path, stamp, stamp)

	dbPath := filepath.Join(dir, "data", "cairn.db")
	os.MkdirAll(filepath.Dir(dbPath), 0o700)
	ctx := context.Background()
	db, err := sqlite.Open(ctx, dbPath)
	if err != nil {
		t.Fatal(err)
	}
	cp := checkpoint.Checkpoint{Project: fixtureCWD, SessionID: fixtureID, Trigger: "precompact-auto"}
	cp.Task.Tickets = []string{"spotter-gqc"}
	body, _ := json.Marshal(cp)
	id, err := db.AddCheckpoint(ctx, sqlite.Checkpoint{Project: fixtureCWD, SessionID: fixtureID,
		CreatedAt: time.Date(2026, 2, 11, 21, 17, 0, 0, time.UTC), Trigger: "precompact-auto", ContextTokens: 167094,
		Task: "Implement spotter-gqc", Body: body})
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.New(db)
	mem.Now = func() time.Time { return time.Date(2026, 2, 11, 21, 40, 0, 0, time.UTC) }
	if _, err := mem.Remember(ctx, fixtureCWD, fixtureID, "Annotations keep a <message ref> by message id, not uuid"); err != nil {
		t.Fatal(err)
	}
	db.Close()

	reviewProject(t, dir, stamp)

	s := &Server{
		ConfigDir: filepath.Join(dir, "claude"), State: state.Store{Dir: filepath.Join(dir, "state")}, DBPath: dbPath,
		Token: testToken, Loc: time.UTC, Poll: 20 * time.Millisecond,
	}
	ln, err := Listen(0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	site := &testSite{t: t, s: s, base: "http://" + ln.Addr().String(), key: key, path: path, cpID: id, dir: dir}
	site.close = func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	}
	t.Cleanup(site.close)
	return site
}

// reviewProject adds a second project, at dir/proj, whose files hold a
// compaction capture, working notes and a learning: the fixture "short"
// moved there.
func reviewProject(t *testing.T, dir string, now time.Time) {
	t.Helper()
	root := filepath.Join(dir, "proj")
	os.MkdirAll(root, 0o755)
	src, err := fixtures.Path("short")
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.ReplaceAll(data, []byte(`"cwd":"/home/marco/projects/spotter"`), []byte(`"cwd":"`+root+`"`))
	folder := filepath.Join(dir, "claude", "projects", claudecode.ProjectKey(root))
	os.MkdirAll(folder, 0o755)
	path := filepath.Join(folder, "55604662-cf2a-4331-851a-ec234028f8ca.jsonl")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(path, now.Add(-time.Hour), now.Add(-time.Hour))
	// A WIP snapshot of the session, in the project's repository.
	for _, args := range [][]string{{"init", "-q"}, {"add", "."}} {
		if out, err := exec.Command("git", append([]string{"-C", root}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	os.WriteFile(filepath.Join(root, "login.go"), []byte("package login\n"), 0o644)
	t.Setenv("GIT_AUTHOR_DATE", "2026-02-11T21:30:00Z")
	t.Setenv("GIT_COMMITTER_DATE", "2026-02-11T21:30:00Z")
	if _, err := git.Snapshot(context.Background(), root, "55604662-cf2a-4331-851a-ec234028f8ca", "cairn: L2 snapshot"); err != nil {
		t.Fatal(err)
	}
	if _, err := capture.Write(filepath.Join(root, capture.Dir), capture.Input{Now: now, SessionID: "55604662-cf2a-4331-851a-ec234028f8ca",
		Transcript: path, FirstMessage: "Fix the <login> bug"}); err != nil {
		t.Fatal(err)
	}
	flow := filepath.Join(root, ".claude")
	os.MkdirAll(flow, 0o755)
	progress := "# Progress\n\n## 2026-02-11 — implement: Login redirects keep the return path\nThe <next> parameter survives the OAuth round trip.\n\n" +
		"## 2026-02-11 — debug: Flaky test was a shared temp dir\nEach test gets its own t.TempDir now.\n"
	if err := os.WriteFile(filepath.Join(flow, learn.Progress), []byte(progress), 0o644); err != nil {
		t.Fatal(err)
	}
	entries, err := learn.Unpromoted(flow, flow)
	if err != nil || len(entries) != 2 {
		t.Fatalf("progress entries: %v %v", entries, err)
	}
	if _, err := learn.Promote(flow, entries[0], now); err != nil {
		t.Fatal(err)
	}
}

// restoreLine is the line Claude Code 2.1.x writes for a hook's
// additional context that the model received.
func restoreLine(text string) []byte {
	line, _ := json.Marshal(map[string]any{"type": "attachment", "uuid": "restore-1", "timestamp": "2026-02-11T21:18:30.000Z",
		"sessionId": fixtureID, "isSidechain": false,
		"attachment": map[string]any{"type": "hook_additional_context", "content": []any{text}, "hookName": "SessionStart",
			"toolUseID": "hook-1", "hookEvent": "SessionStart"}})
	return append(line, '\n')
}

// turnLine is an assistant reply of the fixture's shape with context
// tokens in its usage.
func turnLine(n int, context int64) []byte {
	line, _ := json.Marshal(map[string]any{"type": "assistant", "uuid": fmt.Sprintf("live-%d", n), "parentUuid": nil,
		"timestamp": time.Date(2026, 2, 11, 22, n, 0, 0, time.UTC).Format(time.RFC3339Nano), "sessionId": fixtureID,
		"isSidechain": false, "cwd": fixtureCWD,
		"message": map[string]any{"model": "claude-opus-4-6", "id": fmt.Sprintf("msg_live_%d", n), "type": "message", "role": "assistant",
			"content": []any{map[string]any{"type": "text", "text": fmt.Sprintf("live reply %d", n)}},
			"usage":   map[string]any{"input_tokens": 3, "cache_creation_input_tokens": 0, "cache_read_input_tokens": context - 3, "output_tokens": 10}}})
	return append(line, '\n')
}

func (site *testSite) appendLines(lines ...[]byte) {
	f, err := os.OpenFile(site.path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		site.t.Fatal(err)
	}
	defer f.Close()
	for _, l := range lines {
		if _, err := f.Write(l); err != nil {
			site.t.Fatal(err)
		}
	}
}

func (site *testSite) sessionURL() string { return "/session/" + site.key + "/" + fixtureID }

// get fetches path with the token cookie and returns status and body.
func (site *testSite) get(path string) (int, string) {
	site.t.Helper()
	req, _ := http.NewRequest("GET", site.base+path, nil)
	req.AddCookie(&http.Cookie{Name: cookieName, Value: testToken})
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		site.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

func TestToken(t *testing.T) {
	site := newSite(t)
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	tests := []struct {
		name   string
		method string
		path   string
		cookie string
		want   int
	}{
		{"no token", "GET", "/", "", 403},
		{"no token, a session", "GET", site.sessionURL(), "", 403},
		{"no token, the stream", "GET", site.sessionURL() + "/events", "", 403},
		{"no token, a style sheet", "GET", "/static/style.css", "", 403},
		{"wrong token", "GET", "/?token=" + strings.Repeat("0", 32), "", 403},
		{"wrong cookie", "GET", "/", "nope", 403},
		{"an empty token", "GET", "/?token=", "", 403},
		{"token in the address: traded for a cookie", "GET", "/?token=" + testToken, "", 303},
		{"cookie", "GET", "/", testToken, 200},
		{"cookie, HEAD", "HEAD", "/", testToken, 200},
		{"read-only: POST", "POST", "/", testToken, 405},
		{"read-only: DELETE", "DELETE", "/checkpoint/1", testToken, 405},
		{"unknown page", "GET", "/nope", testToken, 404},
		{"another project's session", "GET", "/session/-x/" + fixtureID, testToken, 404},
		{"a path out of the projects", "GET", "/project/..", testToken, 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(tt.method, site.base+tt.path, nil)
			if tt.cookie != "" {
				req.AddCookie(&http.Cookie{Name: cookieName, Value: tt.cookie})
			}
			resp, err := noRedirect.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.want {
				t.Fatalf("status %d, want %d", resp.StatusCode, tt.want)
			}
			if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
				t.Errorf("Content-Security-Policy %q", csp)
			}
			if tt.want == 303 {
				if c := resp.Header.Get("Set-Cookie"); !strings.HasPrefix(c, cookieName+"="+testToken+";") || !strings.Contains(c, "HttpOnly") {
					t.Errorf("Set-Cookie %q", c)
				}
				if loc := resp.Header.Get("Location"); loc != "/" {
					t.Errorf("Location %q: the token should leave the address", loc)
				}
			}
		})
	}
}

// The session page shows the fixture's compaction where it is, one point
// per turn, and the restore text the model got.
func TestSessionPage(t *testing.T) {
	site := newSite(t)
	status, body := site.get(site.sessionURL())
	if status != 200 {
		t.Fatalf("status %d: %s", status, body)
	}
	if n := strings.Count(body, `<circle class="turn"`); n != 152 {
		t.Errorf("%d points in the chart, want one per turn: 152", n)
	}
	for _, want := range []string{
		`<tr class="compaction"><td>1</td><td>auto</td><td>2026-02-11 21:18 UTC</td><td class="n">102</td><td class="n">167,094</td>`,
		`data-compaction="1"`,
		`class="autocompact"`,
		"L3 at turn 87",
		"# Restored working state (cairn)",
		"ship the &lt;annotations&gt; &amp; refs", // escaped, never markup
		`<a href="/checkpoint/1">1</a>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	status, body = site.get(fmt.Sprintf("/checkpoint/%d", site.cpID))
	if status != 200 || !strings.Contains(body, "spotter-gqc") {
		t.Errorf("checkpoint page: %d %s", status, body)
	}
}

// Golden pages, with the SVG chart in them. Regenerate with -update.
func TestGolden(t *testing.T) {
	site := newSite(t)
	for _, tt := range []struct{ name, path string }{
		{"projects", "/"},
		{"sessions", "/project/" + site.key},
		{"session", site.sessionURL()},
		{"checkpoint", fmt.Sprintf("/checkpoint/%d", site.cpID)},
		{"open", "/project/" + site.key + "/open"},
		{"review", "/project/" + site.key + "/review"},
		{"review-queue", "/project/" + claudecode.ProjectKey(filepath.Join(site.dir, "proj")) + "/review"},
		{"session-snapshots", "/session/" + claudecode.ProjectKey(filepath.Join(site.dir, "proj")) + "/55604662-cf2a-4331-851a-ec234028f8ca"},
		{"search", "/search?q=annotation"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			status, body := site.get(tt.path)
			if status != 200 {
				t.Fatalf("status %d: %s", status, body)
			}
			// The temporary folder is named differently each run.
			body = strings.ReplaceAll(body, claudecode.ProjectKey(site.dir), "$TMPKEY")
			body = strings.ReplaceAll(body, site.dir, "$TMP")
			golden.Check(t, filepath.Join("testdata", tt.name+".html"), body)
		})
	}
	t.Run("chart", func(t *testing.T) {
		_, body := site.get(site.sessionURL())
		svg := regexp.MustCompile(`(?s)<svg .*?</svg>\n`).FindString(body)
		golden.Check(t, filepath.Join("testdata", "chart.svg"), svg)
	})
}

// A live page's stream sends the appended turns, read incrementally.
func TestEvents(t *testing.T) {
	site := newSite(t)
	req, _ := http.NewRequest("GET", site.base+site.sessionURL()+"/events", nil)
	req.AddCookie(&http.Cookie{Name: cookieName, Value: testToken})
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/event-stream") {
		t.Fatalf("Content-Type %q", ct)
	}
	site.appendLines(turnLine(1, 90_000), turnLine(2, 95_000))
	br := bufio.NewReader(resp.Body)
	deadline := time.AfterFunc(10*time.Second, func() { resp.Body.Close() })
	defer deadline.Stop()
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("stream ended before an update: %v", err)
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Turns int               `json:"turns"`
			Parts map[string]string `json:"parts"`
		}
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatal(err)
		}
		if ev.Turns != 154 {
			t.Fatalf("%d turns, want 152 + 2", ev.Turns)
		}
		if n := strings.Count(ev.Parts["timeline"], `<circle class="turn"`); n != 154 {
			t.Errorf("%d points in the updated chart, want 154", n)
		}
		return
	}
}

// The saved state is read, never written: the viewer changes nothing.
func TestReadOnly(t *testing.T) {
	site := newSite(t)
	for _, p := range []string{"/", "/project/" + site.key, site.sessionURL(), "/project/" + site.key + "/open"} {
		site.get(p)
	}
	if _, err := os.Stat(site.s.State.Dir); !os.IsNotExist(err) {
		t.Errorf("the viewer wrote state: %v", err)
	}
}

func TestRequests(t *testing.T) {
	site := newSite(t)
	tests := []struct {
		name string
		raw  string
		want string
	}{
		{"keep-alive: two requests on one connection", "GET /static/style.css HTTP/1.1\r\nCookie: cairn_token=" + testToken + "\r\n\r\nGET /nope HTTP/1.1\r\nCookie: cairn_token=" + testToken + "\r\nConnection: close\r\n\r\n", "HTTP/1.1 200 OK|HTTP/1.1 404 Not Found"},
		{"malformed request line", "GARBAGE\r\n\r\n", "HTTP/1.1 400 Bad Request"},
		{"a body is refused", "GET / HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello", "HTTP/1.1 405"},
		{"header too large", "GET / HTTP/1.1\r\nX: " + strings.Repeat("a", 20<<10) + "\r\n\r\n", "HTTP/1.1 431"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := net.Dial("tcp", strings.TrimPrefix(site.base, "http://"))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(5 * time.Second))
			io.WriteString(c, tt.raw)
			got, _ := io.ReadAll(c)
			for _, w := range strings.Split(tt.want, "|") {
				if !strings.Contains(string(got), w) {
					t.Errorf("answer lacks %q:\n%.400s", w, got)
				}
			}
		})
	}
}

func FuzzReadRequest(f *testing.F) {
	f.Add("GET /session/a/b?x=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: a=b; cairn_token=c\r\n\r\n")
	f.Add("HEAD / HTTP/1.0\r\n\r\n")
	f.Add("GET http://x/ HTTP/1.1\r\n\r\n")
	f.Fuzz(func(t *testing.T, raw string) {
		r, err := readRequest(bufio.NewReader(strings.NewReader(raw)))
		if err != nil {
			return
		}
		if !strings.HasPrefix(r.path, "/") || r.query == nil {
			t.Fatalf("accepted %q as path %q", raw, r.path)
		}
	})
}

// Restore texts are read from their lines whatever the lines around them
// hold, lines longer than the reader's buffer included.
func TestReadRestores(t *testing.T) {
	long := strings.Repeat("x", 3<<20)
	bigRestore := restoreText + "\n" + long
	tests := []struct {
		name  string
		lines [][]byte
		want  []int
		texts []string
	}{
		{"after a long line", [][]byte{[]byte(`{"type":"user","text":"` + long + `"}` + "\n"), restoreLine(restoreText)}, []int{2}, []string{restoreText}},
		{"a long restore", [][]byte{[]byte("{}\n"), restoreLine(bigRestore), []byte("{}\n")}, []int{2}, []string{bigRestore}},
		{"another hook's context is not a restore", [][]byte{restoreLine("advice")}, []int{1}, nil},
		{"the line asked for is past the end", [][]byte{[]byte("{}\n")}, []int{5}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "t.jsonl")
			os.WriteFile(path, bytes.Join(tt.lines, nil), 0o600)
			got := readRestores(path, tt.want)
			if len(got) != len(tt.texts) {
				t.Fatalf("%d restores, want %d", len(got), len(tt.texts))
			}
			for i, r := range got {
				if r.line != tt.want[i] || r.text != tt.texts[i] {
					t.Errorf("restore %d: line %d, %.80q", i, r.line, r.text)
				}
			}
		})
	}
}
