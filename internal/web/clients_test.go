package web

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/claudecode"
	"github.com/cairn-agent/cairn/internal/codex"
	"github.com/cairn-agent/cairn/internal/fixtures"
	"github.com/cairn-agent/cairn/internal/hook"
	"github.com/cairn-agent/cairn/internal/meter"
	"github.com/cairn-agent/cairn/internal/state"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// clientsSite is a viewer over one project with a session of each client
// (Claude Code's fixture "short", a real Codex CLI rollout, a real Gemini
// CLI chat), and a second project with a Codex session alone; the other
// clients' sessions come through the table of clients, as `cairn web`
// wires it.
type clientsSite struct {
	*testSite
	root, other string
	env         map[string]string
	codexID     string
	geminiID    string
}

func newClientsSite(t *testing.T, configure ...func(*Server)) *clientsSite {
	t.Helper()
	dir := t.TempDir()
	cs := &clientsSite{root: filepath.Join(dir, "proj"), other: filepath.Join(dir, "other"),
		env: map[string]string{"HOME": dir, "CODEX_HOME": filepath.Join(dir, "codex"), "GEMINI_CLI_HOME": filepath.Join(dir, "gem")}}
	getenv := func(k string) string { return cs.env[k] }
	now := time.Now()
	write := func(path string, data []byte, age time.Duration) {
		t.Helper()
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(path, now.Add(-age), now.Add(-age))
	}
	read := func(path string) []byte {
		t.Helper()
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return data
	}

	// Claude Code's session, two hours old.
	src, err := fixtures.Path("short")
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.ReplaceAll(read(src), []byte(`"cwd":"/home/marco/projects/spotter"`), []byte(`"cwd":"`+cs.root+`"`))
	write(filepath.Join(dir, "claude", "projects", claudecode.ProjectKey(cs.root), "55604662-cf2a-4331-851a-ec234028f8ca.jsonl"), data, 2*time.Hour)

	// Codex CLI's rollouts, moved to the projects as the CLI's script
	// tests' `rollout` does.
	rollout := func(name, project string, age time.Duration) string {
		data := read(filepath.Join("..", "transcript", "testdata", "codex", name+".jsonl"))
		first, _, _ := bytes.Cut(data, []byte("\n"))
		id, cwd, ok := codex.ParseMeta(first)
		if !ok {
			t.Fatalf("%s: no session_meta", name)
		}
		data = bytes.ReplaceAll(data, []byte(strconv.Quote(cwd)), []byte(strconv.Quote(project)))
		write(filepath.Join(cs.env["CODEX_HOME"], "sessions", "2026", "11", "24", "rollout-2026-11-24T08-13-28-"+id+".jsonl"), data, age)
		return id
	}
	cs.codexID = rollout("tools-compactions", cs.root, time.Hour)
	rollout("auto-compaction", cs.other, 3*time.Hour)

	// Gemini CLI's chat, where Gemini keeps it for the project, with the
	// project's own compression threshold in its settings.
	gem := filepath.Join(cs.env["GEMINI_CLI_HOME"], ".gemini")
	chat := read(filepath.Join("..", "transcript", "testdata", "gemini", "tools-compress.jsonl"))
	cs.geminiID = "f4240f47-aa1e-4d14-a779-e89b5838b8e7"
	write(filepath.Join(gem, "tmp", "proj", "chats", "session-2026-11-24T14-38-f4240f47.jsonl"), chat, 30*time.Minute)
	write(filepath.Join(gem, "projects.json"), []byte(`{"projects":{`+strconv.Quote(cs.root)+`:"proj"}}`), 0)
	write(filepath.Join(cs.root, ".gemini", "settings.json"), []byte(`{"model":{"compressionThreshold":0.3}}`), 0)

	s := &Server{
		ConfigDir: filepath.Join(dir, "claude"), State: state.Store{Dir: filepath.Join(dir, "state")},
		Projects: func() ([]string, error) { return hook.AllProjects(getenv) },
		Sessions: func(root string) ([]hook.SessionFile, error) { return hook.AllSessions(getenv, root) },
		Rules: func(client, project string) meter.Rules {
			if ag, ok := hook.AgentNamed(client); ok {
				return ag.Rules(getenv, project, 0)
			}
			return nil
		},
		Token: testToken, Loc: time.UTC, Poll: 20 * time.Millisecond,
	}
	for _, c := range configure {
		c(s)
	}
	ln, err := Listen(0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	cs.testSite = &testSite{t: t, s: s, base: "http://" + ln.Addr().String(), key: claudecode.ProjectKey(cs.root), dir: dir}
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return cs
}

// pctThreshold is the meter's figure for the transcript at path by rules,
// as the sessions page prints it.
func pctThreshold(t *testing.T, path string, rules meter.Rules) string {
	t.Helper()
	sess := transcript.New(path)
	if _, err := sess.Update(&transcript.Parser{}); err != nil {
		t.Fatal(err)
	}
	r, _ := meter.Measure(sess, rules)
	return fmt.Sprintf("%.1f%%", r.PctThreshold)
}

// The viewer lists Codex CLI's and Gemini CLI's sessions beside Claude
// Code's, as `cairn sessions` does, each measured by its own client's
// rules for its own project, and shows their session pages.
func TestOtherClients(t *testing.T) {
	cs := newClientsSite(t)
	getenv := func(k string) string { return cs.env[k] }
	otherKey := claudecode.ProjectKey(cs.other)

	t.Run("projects", func(t *testing.T) {
		status, body := cs.get("/")
		if status != 200 {
			t.Fatalf("status %d: %s", status, body)
		}
		want := fmt.Sprintf(`<a href="/project/%s">%s</a></td><td class="n">3</td><td>Claude Code, Codex CLI, Gemini CLI</td>`, cs.key, cs.key)
		if !strings.Contains(body, want) {
			t.Errorf("the project of three clients is not listed as %s:\n%s", want, body)
		}
		if !strings.Contains(body, fmt.Sprintf(`<a href="/project/%s">%s</a></td><td class="n">1</td><td>Codex CLI</td>`, otherKey, otherKey)) {
			t.Errorf("the Codex-only project is missing:\n%s", body)
		}
	})

	t.Run("sessions", func(t *testing.T) {
		status, body := cs.get("/project/" + cs.key)
		if status != 200 {
			t.Fatalf("status %d: %s", status, body)
		}
		rows := regexp.MustCompile(`<tr class="client-([a-z-]+)"><td><a href="[^"]+">([^<]+)</a></td><td>([^<]+)</td><td>[^<]+</td><td class="n">([^<]+)</td><td class="n">(\d+)</td><td class="n">(\d+)</td>`).FindAllStringSubmatch(body, -1)
		if len(rows) != 3 {
			t.Fatalf("%d session rows, want 3:\n%s", len(rows), body)
		}
		files, err := hook.AllSessions(getenv, cs.root)
		if err != nil {
			t.Fatal(err)
		}
		codexPath, geminiPath := "", ""
		for _, f := range files {
			switch f.Agent {
			case "codex":
				codexPath = f.Path
			case "gemini":
				geminiPath = f.Path
			}
		}
		gemRules, _ := hook.AgentNamed("gemini")
		codexRules, _ := hook.AgentNamed("codex")
		geminiPct := pctThreshold(t, geminiPath, gemRules.Rules(getenv, cs.root, 0))
		if userPct := pctThreshold(t, geminiPath, gemRules.Rules(getenv, "", 0)); userPct == geminiPct {
			t.Fatalf("the project's threshold changes nothing (%s): the test cannot tell whose rules measured", userPct)
		}
		want := [][]string{
			// newest first: Gemini 30 min ago, Codex an hour, Claude Code two.
			{"gemini", short(cs.geminiID), "Gemini CLI", geminiPct},
			// `cairn sessions` prints 4.2% of the window for this rollout;
			// the page gives the share of the compaction point.
			{"codex", short(cs.codexID), "Codex CLI", pctThreshold(t, codexPath, codexRules.Rules(getenv, cs.root, 0)), "11", "2"},
			{"claude-code", "55604662", "Claude Code"},
		}
		for i, w := range want {
			for j, cell := range w {
				if rows[i][j+1] != cell {
					t.Errorf("row %d, cell %d: %q, want %q (row %q)", i, j, rows[i][j+1], cell, rows[i][0])
				}
			}
		}
	})

	t.Run("session pages", func(t *testing.T) {
		for _, tt := range []struct {
			name, id, want string
		}{
			{"Codex CLI", cs.codexID, "<h2>Compactions (2)</h2>"},
			{"Gemini CLI", cs.geminiID, "<h2>Compactions (1)</h2>"},
		} {
			t.Run(tt.name, func(t *testing.T) {
				status, body := cs.get("/session/" + cs.key + "/" + tt.id)
				if status != 200 {
					t.Fatalf("status %d: %s", status, body)
				}
				if !strings.Contains(body, tt.want) {
					t.Errorf("no %q:\n%s", tt.want, body)
				}
				if n := strings.Count(body, `class="turn"`); n == 0 {
					t.Errorf("the chart has no turn")
				}
			})
		}
		if status, _ := cs.get("/session/" + otherKey + "/" + cs.codexID); status != 404 {
			t.Errorf("a session under another project's key: status %d, want 404", status)
		}
	})
}

// A session's page closed gives its session back once Idle has passed;
// one a live stream follows stays however long, and its idle time starts
// when the stream ends.
func TestIdleSessions(t *testing.T) {
	var now atomic.Int64
	now.Store(time.Date(2026, 11, 24, 20, 0, 0, 0, time.UTC).UnixNano())
	advance := func(d time.Duration) { now.Add(int64(d)) }
	cs := newClientsSite(t, func(s *Server) {
		s.Now = func() time.Time { return time.Unix(0, now.Load()) }
		s.Idle = time.Hour // the sweeper's own tick stays out of the test
	})
	page := func(id string) {
		t.Helper()
		if status, body := cs.get("/session/" + cs.key + "/" + id); status != 200 {
			t.Fatalf("status %d: %s", status, body)
		}
	}
	page(cs.codexID)
	if n := cs.s.held(); n != 1 {
		t.Fatalf("%d sessions held after one page, want 1", n)
	}
	req, _ := http.NewRequest("GET", cs.base+"/session/"+cs.key+"/"+cs.codexID+"/events", nil)
	req.AddCookie(&http.Cookie{Name: cookieName, Value: testToken})
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	advance(2 * time.Hour)
	page(cs.geminiID)
	if n := cs.s.held(); n != 2 {
		t.Fatalf("%d sessions held, want 2: the followed one stays", n)
	}
	advance(2 * time.Hour)
	resp.Body.Close()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		cs.s.mu.Lock()
		streams := 0
		for _, l := range cs.s.sessions {
			streams += l.streams
		}
		cs.s.mu.Unlock()
		if streams == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the stream did not end when its client went")
		}
	}
	page(cs.geminiID)
	if n := cs.s.held(); n != 2 {
		t.Fatalf("%d sessions held, want 2: the Codex stream has just ended, its idle time starts now", n)
	}
	advance(2 * time.Hour)
	page(cs.geminiID)
	if n := cs.s.held(); n != 1 {
		t.Fatalf("%d sessions held two hours after the stream ended, want 1 (the page just asked for)", n)
	}
	cs.s.mu.Lock()
	_, codexHeld := cs.s.sessions[filepath.Join(cs.env["CODEX_HOME"], "sessions", "2026", "11", "24", "rollout-2026-11-24T08-13-28-"+cs.codexID+".jsonl")]
	cs.s.mu.Unlock()
	if codexHeld {
		t.Error("the Codex session is still held two hours after its stream ended")
	}
}
