package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/golden"

	"github.com/cairn-agent/cairn/internal/claudecode"
	"github.com/cairn-agent/cairn/internal/statusline"
)

// statusPayload is Claude Code 2.1.328's status line input, with its
// transcript and project moved to the test's and current_usage set to
// usage (nil: null, as before the first reply and after /compact).
func statusPayload(t *testing.T, transcript, project string, usage map[string]int64) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "statusline", "testdata", "statusline-after-reply.json"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(data)
	s = strings.ReplaceAll(s, "/home/user/.claude/projects/-home-user-proj/b7c4de97-7eb5-4fb8-b0f6-8f4063e14d73.jsonl", transcript)
	s = strings.ReplaceAll(s, "/home/user/proj", project)
	cu := "null"
	if usage != nil {
		cu = fmt.Sprintf(`{"input_tokens":%d,"output_tokens":10,"cache_creation_input_tokens":%d,"cache_read_input_tokens":%d}`,
			usage["input"], usage["creation"], usage["read"])
	}
	s = strings.Replace(s, `"current_usage":{"input_tokens":450000,"output_tokens":10,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}`, `"current_usage":`+cu, 1)
	return []byte(s)
}

func TestStatusline(t *testing.T) {
	const session = "4d5611e5-241a-462a-8d15-5122611a9569"
	ctx := context.Background()
	a, out, errb := testApp(t, session)
	project, _ := a.Getwd()
	transcript := filepath.Join(a.Getenv("CLAUDE_CONFIG_DIR"), "projects", claudecode.ProjectKey(project), session+".jsonl")
	stateDir := filepath.Join(a.Getenv("XDG_STATE_HOME"), "cairn")
	getenv := a.Getenv
	noColor := func(k string) string {
		if k == "NO_COLOR" {
			return "1"
		}
		return getenv(k)
	}
	if code := Run(ctx, []string{"status", "--transcript", transcript}, a); code != 0 {
		t.Fatalf("status: %s", errb)
	}
	if err := statusline.RecordCheckpoint(stateDir, project, 12, "BILL-482", a.Now().Add(-3*time.Minute)); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		args  []string
		stdin []byte
		color bool
	}{
		{name: "after a reply", stdin: statusPayload(t, transcript, project, map[string]int64{"input": 900, "creation": 2000, "read": 447100})},
		{name: "after a reply, coloured", color: true, stdin: statusPayload(t, transcript, project, map[string]int64{"input": 900, "creation": 2000, "read": 447100})},
		{name: "no usage: from the hooks' head", stdin: statusPayload(t, transcript, project, nil)},
		{name: "chained", args: []string{"--chain", `printf '%s\n' "theirs" "second line"`}, stdin: statusPayload(t, transcript, project, nil)},
		{name: "chained, reading stdin", args: []string{"--chain", `grep -o '"version":"[^"]*"'`}, stdin: statusPayload(t, transcript, project, nil)},
		{name: "chained command fails", args: []string{"--chain", "echo broken; exit 1"}, stdin: statusPayload(t, transcript, project, nil)},
		{name: "chained command too slow", args: []string{"--chain", "sleep 5; echo late", "--chain-timeout", "100ms"}, stdin: statusPayload(t, transcript, project, nil)},
		{name: "bad JSON", stdin: []byte(`{"session_id": `)},
		{name: "no input", stdin: nil},
		{name: "bad JSON, chained", args: []string{"--chain", "echo theirs"}, stdin: []byte("not json")},
		{name: "unknown flag", args: []string{"--colour"}, stdin: statusPayload(t, transcript, project, nil)},
		{name: "an argument", args: []string{"extra"}, stdin: statusPayload(t, transcript, project, nil)},
	}
	var got bytes.Buffer
	for _, tt := range tests {
		out.Reset()
		errb.Reset()
		a.Stdin = bytes.NewReader(tt.stdin)
		a.Getenv = noColor
		if tt.color {
			a.Getenv = getenv
		}
		start := time.Now()
		if err := runCmd("statusline")(ctx, a, tt.args); err != nil {
			t.Errorf("%s: %v", tt.name, err)
		}
		if took := time.Since(start); took > 2*time.Second {
			t.Errorf("%s: took %v", tt.name, took)
		}
		if n := strings.Count(out.String(), "\n"); n != 1 || !strings.HasSuffix(out.String(), "\n") {
			t.Errorf("%s: %q is not one line", tt.name, out)
		}
		if errb.Len() > 0 {
			t.Errorf("%s: stderr %q", tt.name, errb)
		}
		line := strings.TrimSuffix(out.String(), "\n")
		if tt.color {
			line = fmt.Sprintf("%q", line)
		}
		fmt.Fprintf(&got, "%-34s %s\n", tt.name+":", line)
	}
	golden.Check(t, filepath.Join("testdata", "golden", "statusline.txt"), got.Bytes())

	// The pressure marker of the last figures shown.
	marker, err := os.ReadFile(filepath.Join(stateDir, "sessions", "b7c4de97-7eb5-4fb8-b0f6-8f4063e14d73.pressure"))
	if err != nil {
		t.Fatal(err)
	}
	if p, ok := statusline.ReadPressure(stateDir, "b7c4de97-7eb5-4fb8-b0f6-8f4063e14d73"); !ok || p.String() != string(marker) {
		t.Errorf("pressure marker %q: %+v %v", marker, p, ok)
	}
}

// TestStatuslineNoState: without HOME or XDG_STATE_HOME there is no state
// directory, and the payload's own figures still make a line.
func TestStatuslineNoState(t *testing.T) {
	var out, errb bytes.Buffer
	a := &App{
		Stdin:  bytes.NewReader(statusPayload(t, "/nonexistent/s.jsonl", "/nonexistent", map[string]int64{"input": 100000})),
		Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string {
			if k == "NO_COLOR" {
				return "1"
			}
			return ""
		},
		Getwd: func() (string, error) { return "/", nil },
		Now:   time.Now, Loc: time.UTC,
	}
	if err := runCmd("statusline")(context.Background(), a, nil); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "CTX █░░░░░░░░░ 10% L0\n"; got != want {
		t.Errorf("got %q, want %q (stderr %q)", got, want, errb.String())
	}
}

// TestStatuslineChainEnv: the user's chained command runs without the
// GOMAXPROCS=1 install puts on cairn's status line command (it was meant
// for cairn alone), and with the rest of the environment.
func TestStatuslineChainEnv(t *testing.T) {
	var out, errb bytes.Buffer
	a := &App{
		Stdin:  bytes.NewReader(statusPayload(t, "/nonexistent/s.jsonl", "/nonexistent", map[string]int64{"input": 100000})),
		Stdout: &out, Stderr: &errb,
		Getenv: func(k string) string {
			if k == "NO_COLOR" {
				return "1"
			}
			return ""
		},
		Environ: func() []string { return []string{"PATH=" + os.Getenv("PATH"), "GOMAXPROCS=1", "CAIRN_CHAIN_TEST=kept"} },
		Getwd:   func() (string, error) { return "/", nil },
		Now:     time.Now, Loc: time.UTC,
	}
	chain := `echo "${GOMAXPROCS-unset} $CAIRN_CHAIN_TEST"`
	if err := runCmd("statusline")(context.Background(), a, []string{"--chain", chain}); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "CTX █░░░░░░░░░ 10% L0"+statusline.Separator+"unset kept\n"; got != want {
		t.Errorf("got %q, want %q (stderr %q)", got, want, errb.String())
	}
}
