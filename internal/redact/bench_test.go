package redact

import (
	"strings"
	"testing"
	"time"
)

// benchBlocks are realistic pieces of checkpoint text: code, shell output and
// transcript JSON, with a few secrets among them.
var benchBlocks = []string{
	`package server

import (
	"context"
	"fmt"
	"net/http"
	"os"
)

// Config holds what the server needs at start.
type Config struct {
	Addr     string ` + "`json:\"addr\"`" + `
	Password string ` + "`json:\"password,omitempty\"`" + `
	Token    string ` + "`json:\"token\"`" + `
}

func (s *Server) authorize(r *http.Request) error {
	token := r.Header.Get("Authorization")
	if token == "" {
		return fmt.Errorf("missing token: %w", errUnauthorized)
	}
	req.Header.Set("Authorization", "Bearer "+s.cfg.Token)
	password := os.Getenv("DB_PASSWORD")
	return s.db.Ping(context.Background(), password)
}
`,
	`$ go test ./...
ok  	github.com/cairn-agent/cairn/internal/meter	0.012s
--- FAIL: TestPasswordHash (0.00s)
    hash_test.go:41: got 3f786850e387550fdab836ed7e6dc881de23001b, want 89e6c98d92887913cadf06b2adb97f26cde4849b
FAIL	github.com/cairn-agent/cairn/internal/auth	0.021s
$ git log --oneline -3
48df5a9 Meter: list only the 1M-window model observed on the real client
976710f CI: the README's test command runs last
564b2e0 README: what the test suite needs
$ ls -la
drwxr-xr-x  5 user user  4096 Nov 21 10:02 .
-rw-r--r--  1 user user   812 Nov 21 10:01 go.mod
-rw-------  1 user user   233 Nov 21 10:01 .env
`,
	`{"parentUuid":"ae4a77f8-aedd-4bc1-888f-c94edc91af04","isSidechain":false,"cwd":"/work/main","sessionId":"5b1c0d2e-3f4a-4b5c-8d6e-7f8091a2b3c4","type":"assistant","message":{"model":"claude-opus-4-6","id":"msg_01XyZ","role":"assistant","content":[{"type":"tool_use","id":"toolu_01AbC","name":"Bash","input":{"command":"cat .env && curl -s https://api.example.com/v1/items?page=2","description":"Show env"}}],"usage":{"input_tokens":3,"cache_creation_input_tokens":1843,"cache_read_input_tokens":40213,"output_tokens":118}},"timestamp":"2026-02-10T21:12:01.117Z"}
`,
	`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01AbC","content":"DB_HOST=localhost\nDB_USER=app\nDB_PASSWORD=pg-Secret-42\nREDIS_URL=redis://:r3dis-pass@cache:6379/0\nGITHUB_TOKEN=` + "gh" + `p_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5\nLOG_LEVEL=debug\n","is_error":false}]},"timestamp":"2026-02-10T21:12:03.001Z"}
`,
	`HTTP/1.1 200 OK
Content-Type: application/json
Authorization: Bearer eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJlLXNpZ25hdHVyZQ
X-Request-Id: 7d3f9a1c-2b4e-4f6a-9c8d-1e2f3a4b5c6d

{"items":[{"id":1,"name":"alpha","sha":"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"},{"id":2,"name":"beta","thumbnail":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="}],"next_page_token":"CAESBggBEAEYAQ","total":2}
`,
	`def connect(settings):
    """Open the database; the password comes from the environment."""
    password = settings.get("password") or os.environ["DB_PASSWORD"]
    if not password:
        raise ValueError("no password configured")
    return psycopg2.connect(host=settings.host, user=settings.user, password=password)

class TokenCache:
    def __init__(self, max_tokens: int = 4096) -> None:
        self.max_tokens = max_tokens
        self.tokens: list[str] = []
`,
	`The build failed because the linter found 3 issues in internal/transcript/parse.go.
I will fix the unused variable first, then rerun go vet. The token budget for this
session is fine; the context is at 51% of the window. Files touched: cmd/cairn/main.go,
internal/cli/status.go, docs/benchmarks.md (see https://github.com/cairn-agent/cairn/pull/42).
`,
}

// benchText is about 50 KB of benchBlocks.
func benchText() string {
	var b strings.Builder
	for i := 0; b.Len() < 50<<10; i++ {
		b.WriteString(benchBlocks[i%len(benchBlocks)])
	}
	return b.String()
}

// BenchmarkString redacts 50 KB of mixed checkpoint text. It reports the
// time against strings.ToLower of the same text, measured in the same run,
// as "x-lower": one pass that allocates a copy, the least a redaction costs.
func BenchmarkString(b *testing.B) {
	text := benchText()
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	start := time.Now()
	for b.Loop() {
		String(text)
	}
	took := time.Since(start)
	n := b.N
	start = time.Now()
	for range n {
		strings.ToLower(text)
	}
	base := time.Since(start)
	b.ReportMetric(float64(took)/float64(base), "x-lower")
}

// BenchmarkStringClean is BenchmarkString on text with no secret, the common
// case, where nothing is copied.
func BenchmarkStringClean(b *testing.B) {
	text := String(benchText())
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		String(text)
	}
}

func TestBenchTextRedacted(t *testing.T) {
	out := String(benchText())
	for _, leak := range []string{"pg-Secret-42", "r3dis-pass", "aB3dE5fG7hJ9", "c2lnbmF0dXJl"} {
		if strings.Contains(out, leak) {
			t.Errorf("%s survived", leak)
		}
	}
}
