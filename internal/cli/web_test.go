package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/codex"
)

// lockedBuffer is a stdout that the test reads while the command writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// cairn web prints its address with the token, serves the project's
// sessions to whoever has it, and stops when its context ends.
func TestWebServes(t *testing.T) {
	a, _, errb := testApp(t, "258c7280-ae70-4798-800f-63464d01a85d")
	// A Codex CLI session of the same project, where Codex keeps it
	// ($HOME/.codex), found through the table of clients.
	project, _ := a.Getwd()
	rollout, err := os.ReadFile(filepath.Join("..", "transcript", "testdata", "codex", "tools-compactions.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := bytes.Cut(rollout, []byte("\n"))
	codexID, cwd, _ := codex.ParseMeta(first)
	rollout = bytes.ReplaceAll(rollout, []byte(strconv.Quote(cwd)), []byte(strconv.Quote(project)))
	day := filepath.Join(a.Getenv("HOME"), ".codex", "sessions", "2026", "11", "24")
	os.MkdirAll(day, 0o755)
	if err := os.WriteFile(filepath.Join(day, "rollout-2026-11-24T08-13-28-"+codexID+".jsonl"), rollout, 0o644); err != nil {
		t.Fatal(err)
	}
	var out lockedBuffer
	a.Stdout = &out
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan ExitCode, 1)
	go func() { done <- Run(ctx, []string{"web"}, a) }()
	addr := regexp.MustCompile(`^cairn web: (http://127\.0\.0\.1:\d+/)\?token=([0-9a-f]{32})\n`)
	var m []string
	for deadline := time.Now().Add(10 * time.Second); m == nil; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("no address printed: %q %q", out.String(), errb.String())
		}
		m = addr.FindStringSubmatch(out.String())
	}
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar}
	get := func(url string) (int, string) {
		resp, err := client.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(body)
	}
	if status, _ := get(m[1]); status != 403 {
		t.Errorf("without the token: %d, want 403", status)
	}
	status, body := get(m[1] + "?token=" + m[2])
	if status != 200 || !strings.Contains(body, "<h1>Projects</h1>") {
		t.Errorf("with the token: %d %s", status, body)
	}
	key := regexp.MustCompile(`href="/project/([^"]+)"`).FindStringSubmatch(body)
	if key == nil || !strings.Contains(body, "<td>Claude Code, Codex CLI</td>") {
		t.Fatalf("the project of both clients is not listed: %s", body)
	}
	status, body = get(m[1] + "session/" + key[1] + "/258c7280-ae70-4798-800f-63464d01a85d")
	if status != 200 || strings.Count(body, `<circle class="turn"`) != 152 {
		t.Errorf("the session page: %d, %d points", status, strings.Count(body, `<circle class="turn"`))
	}
	status, body = get(m[1] + "session/" + key[1] + "/" + codexID)
	if status != 200 || !strings.Contains(body, "<h2>Compactions (2)</h2>") {
		t.Errorf("the Codex session's page: %d %.500s", status, body)
	}
	cancel()
	select {
	case code := <-done:
		if code != ExitOK {
			t.Errorf("exit %d: %s", code, errb.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("cairn web did not stop with its context")
	}
}

func TestWebPortRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	taken := ln.Addr().(*net.TCPAddr).Port
	tests := []struct {
		name   string
		args   []string
		code   ExitCode
		stderr []string
	}{
		{"taken", []string{"web", "--port", fmt.Sprint(taken)}, ExitError, []string{
			fmt.Sprintf("cairn: error: port %d on 127.0.0.1 is taken\n", taken),
			"cairn: hint: give another with --port N, or leave --port out for a free one\n",
		}},
		{"out of range", []string{"web", "--port", "70000"}, ExitUsage, []string{"cairn: error: --port 70000: give a port from 1 to 65535, or 0 for a free one\n"}},
		{"an argument", []string{"web", "now"}, ExitUsage, []string{`cairn: error: unexpected argument "now"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, out, errb := testApp(t)
			if code := Run(context.Background(), tt.args, a); code != tt.code {
				t.Errorf("exit %d, want %d", code, tt.code)
			}
			for _, want := range tt.stderr {
				if !strings.Contains(errb.String(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, errb)
				}
			}
			if out.Len() != 0 {
				t.Errorf("stdout: %q", out)
			}
		})
	}
}
