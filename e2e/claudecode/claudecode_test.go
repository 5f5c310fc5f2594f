package claudecode

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCacheDir(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"explicit", map[string]string{"CAIRN_E2E_CACHE": "/c", "XDG_CACHE_HOME": "/x", "HOME": "/h"}, "/c"},
		{"xdg", map[string]string{"XDG_CACHE_HOME": "/x", "HOME": "/h"}, "/x/cairn-e2e/claude-code-" + Version},
		{"home", map[string]string{"HOME": "/h"}, "/h/.cache/cairn-e2e/claude-code-" + Version},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CacheDir(func(k string) string { return tt.env[k] })
			if err != nil || got != filepath.FromSlash(tt.want) {
				t.Errorf("CacheDir = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	if _, err := CacheDir(func(string) string { return "" }); err == nil {
		t.Error("CacheDir with no environment: want an error")
	}
}

func TestProjectKey(t *testing.T) {
	tests := []struct {
		cwd, want string
	}{
		{"/home/user/proj", "-home-user-proj"},
		{"/tmp/TestX123/001/my proj.v2_x", "-tmp-TestX123-001-my-proj-v2-x"},
		{"/a/é", "-a--"},  // one UTF-16 code unit, two bytes
		{"/a/😀", "-a---"}, // a surrogate pair: two code units
		{"C:\\Users\\me", "C--Users-me"},
	}
	for _, tt := range tests {
		t.Run(tt.cwd, func(t *testing.T) {
			got, err := ProjectKey(tt.cwd)
			if err != nil || got != tt.want {
				t.Errorf("ProjectKey(%q) = %q, %v; want %q", tt.cwd, got, err, tt.want)
			}
		})
	}
	if _, err := ProjectKey("/" + strings.Repeat("a", 200)); err == nil {
		t.Error("ProjectKey of a 201-character path: want an error")
	}
}

func TestInstallWithoutNPM(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := Install(ctx, filepath.Join(t.TempDir(), "cache"))
	if err == nil || !strings.Contains(err.Error(), "npm") {
		t.Fatalf("Install with no npm: err = %v, want one naming npm", err)
	}
}

// TestTranscriptPath checks ProjectKey against what the real client writes,
// on a project name with spaces, dots, underscores and non-ASCII letters.
func TestTranscriptPath(t *testing.T) {
	bin := Require(t)
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/v1/messages") {
			w.Header().Set("Content-Type", "text/event-stream")
			for _, ev := range []string{
				`event: message_start` + "\n" + `data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":1}}}`,
				`event: content_block_start` + "\n" + `data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
				`event: content_block_delta` + "\n" + `data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"ok"}}`,
				`event: content_block_stop` + "\n" + `data: {"type":"content_block_stop","index":0}`,
				`event: message_delta` + "\n" + `data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":1}}`,
				`event: message_stop` + "\n" + `data: {"type":"message_stop"}`,
			} {
				w.Write([]byte(ev + "\n\n"))
			}
			return
		}
		w.Write([]byte("{}"))
	}))
	defer srv.Close()

	s := NewSessionAt(t, bin, srv.URL, "my proj.v2_é")
	s.MustTurn(t, "hello")
	want, err := s.TranscriptPath()
	if err != nil {
		t.Fatal(err)
	}
	found, _ := filepath.Glob(filepath.Join(s.ConfigDir, "projects", "*", "*.jsonl"))
	if len(found) != 1 || found[0] != want {
		t.Fatalf("client wrote %v, TranscriptPath says %s", found, want)
	}
	b, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"cwd":"`+s.ProjectDir+`"`) {
		t.Errorf("transcript does not record cwd %q", s.ProjectDir)
	}
}

// TestTurnTimeout checks that a client stuck on an API that never answers
// is killed at the session's timeout instead of hanging the test.
func TestTurnTimeout(t *testing.T) {
	bin := Require(t)
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Write([]byte("{}"))
			return
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	// Unblock handlers before Close waits for them.
	defer srv.Close()
	defer close(release)

	s := NewSession(t, bin, srv.URL)
	s.Timeout = 3 * time.Second
	start := time.Now()
	res, err := s.Turn(context.Background(), "hello")
	if err == nil || !strings.Contains(err.Error(), "timed out") {
		t.Fatalf("Turn against a hung API: err = %v\n%s", err, res)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("Turn returned after %s, want about %s", d, s.Timeout)
	}
}
