package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/e2e/claudecode"
	"github.com/cairn-agent/cairn/e2e/fakeapi"
)

// model is the model id Claude Code 2.1.328 requests by default; the fake
// echoes it back, so it is the model the transcript records.
const model = "claude-opus-5-5"

// bench is one test's fake API and client session.
type bench struct {
	fake *fakeapi.Server
	s    *claudecode.Session
}

// newBench starts a fake API and prepares a session against it. The fake's
// request log is printed if the test fails, since it is the first thing to
// look at when the client did something unexpected.
func newBench(t *testing.T, opts fakeapi.Options) *bench {
	t.Helper()
	bin := claudecode.Require(t)
	fake := fakeapi.New(opts)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("requests the fake API received:\n%s", fake.Summary())
		}
		fake.Close()
	})
	return &bench{fake: fake, s: claudecode.NewSession(t, bin, fake.URL)}
}

// checkScriptUsed fails the test if the client asked for more conversation
// turns than were scripted, or fewer.
func (b *bench) checkScriptUsed(t *testing.T) {
	t.Helper()
	if un := b.fake.Unscripted(); len(un) > 0 {
		t.Errorf("%d conversation requests found the script empty (first: #%d)", len(un), un[0].Seq)
	}
	if n := b.fake.Pending(); n > 0 {
		t.Errorf("%d scripted replies were never asked for", n)
	}
}

// transcriptLine holds the fields of a transcript entry the bench checks.
type transcriptLine struct {
	Type             string `json:"type"`
	Subtype          string `json:"subtype"`
	IsSidechain      bool   `json:"isSidechain"`
	IsCompactSummary bool   `json:"isCompactSummary"`
	Timestamp        string `json:"timestamp"`
	AgentID          string `json:"agentId"`
	RequestID        string `json:"requestId"`
	Message          struct {
		ID      string          `json:"id"`
		Model   string          `json:"model"`
		Usage   *fakeapi.Usage  `json:"usage"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
	CompactMetadata *struct {
		Trigger    string `json:"trigger"`
		PreTokens  int    `json:"preTokens"`
		PostTokens int    `json:"postTokens"`
	} `json:"compactMetadata"`
}

// readTranscript parses every line of a transcript. The client has exited
// when the bench reads, so a line that does not parse is a failure.
func readTranscript(t *testing.T, path string) []transcriptLine {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []transcriptLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		var l transcriptLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		lines = append(lines, l)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

// rawReply is one API response as recorded in a transcript.
type rawReply struct {
	ID        string
	RequestID string
	Usage     fakeapi.Usage
	Lines     int // how many transcript lines carried it
}

// mainReplies returns the main-chain assistant replies, deduplicated by
// message id (the client writes one line per content block).
func mainReplies(lines []transcriptLine) []rawReply {
	var out []rawReply
	index := map[string]int{}
	for _, l := range lines {
		if l.Type != "assistant" || l.IsSidechain || l.Message.ID == "" || l.Message.Usage == nil {
			continue
		}
		if i, ok := index[l.Message.ID]; ok {
			out[i].Lines++
			continue
		}
		index[l.Message.ID] = len(out)
		out = append(out, rawReply{ID: l.Message.ID, RequestID: l.RequestID, Usage: *l.Message.Usage, Lines: 1})
	}
	return out
}

// boundaries returns the compact_boundary entries of a transcript.
func boundaries(lines []transcriptLine) []transcriptLine {
	var out []transcriptLine
	for _, l := range lines {
		if l.Type == "system" && l.Subtype == "compact_boundary" {
			out = append(out, l)
		}
	}
	return out
}

// answers returns the fake's Main answers in order: what the transcript's
// main chain must hold when no subagent ran.
func answers(fake *fakeapi.Server) []fakeapi.Request {
	return fake.OfKind(fakeapi.Main)
}

// checkRawReplies checks that the transcript's main chain holds exactly the
// replies the fake gave, with the usage it reported.
func checkRawReplies(t *testing.T, path string, want []fakeapi.Request) []rawReply {
	t.Helper()
	got := mainReplies(readTranscript(t, path))
	if len(got) != len(want) {
		t.Fatalf("transcript has %d main-chain replies, the fake gave %d", len(got), len(want))
	}
	for i := range got {
		if got[i].ID != want[i].MessageID || got[i].RequestID != want[i].RequestID || got[i].Usage != want[i].Answer.Usage {
			t.Errorf("reply %d: transcript has %s (request %s) %+v, the fake sent %s (request %s) %+v",
				i+1, got[i].ID, got[i].RequestID, got[i].Usage, want[i].MessageID, want[i].RequestID, want[i].Answer.Usage)
		}
	}
	return got
}

// The JSON cairn prints. Nullable numbers are pointers.
type (
	statusJSON struct {
		SessionID  string `json:"session_id"`
		Transcript string `json:"transcript"`
		Model      string `json:"model"`
		Cwd        string `json:"cwd"`
		GitBranch  string `json:"git_branch"`
		Turns      int    `json:"turns"`
		Context    struct {
			Tokens             int     `json:"tokens"`
			Source             string  `json:"source"`
			Window             int     `json:"window"`
			Threshold          int     `json:"threshold"`
			AutoCompact        bool    `json:"auto_compact"`
			PercentOfWindow    float64 `json:"percent_of_window"`
			PercentOfThreshold float64 `json:"percent_of_threshold"`
		} `json:"context"`
		Trend struct {
			PerTurn          float64  `json:"per_turn"`
			PerMinute        float64  `json:"per_minute"`
			TurnsToCompact   *float64 `json:"turns_to_compact"`
			MinutesToCompact *float64 `json:"minutes_to_compact"`
		} `json:"trend"`
		Compactions []struct {
			Trigger      string `json:"trigger"`
			PreTokens    int    `json:"pre_tokens"`
			PostTokens   int    `json:"post_tokens"`
			Time         string `json:"time"`
			SummaryChars int    `json:"summary_chars"`
		} `json:"compactions"`
	}
	reportJSON struct {
		statusJSON
		Timeline []struct {
			Turn                     int    `json:"turn"`
			Time                     string `json:"time"`
			Tokens                   int    `json:"tokens"`
			InputTokens              int    `json:"input_tokens"`
			CacheCreationInputTokens int    `json:"cache_creation_input_tokens"`
			CacheReadInputTokens     int    `json:"cache_read_input_tokens"`
			OutputTokens             int    `json:"output_tokens"`
			MessageID                string `json:"message_id"`
		} `json:"timeline"`
		Tools     map[string]int `json:"tools"`
		ToolCalls []toolCallJSON `json:"tool_calls"`
		Files     []struct {
			Path  string `json:"path"`
			Read  int    `json:"read"`
			Write int    `json:"write"`
			Edit  int    `json:"edit"`
		} `json:"files"`
		Commands []struct {
			Command  string `json:"command"`
			ExitCode *int   `json:"exit_code"`
			IsError  bool   `json:"is_error"`
		} `json:"commands"`
		Errors []struct {
			Tool      string `json:"tool"`
			ToolUseID string `json:"tool_use_id"`
			Message   string `json:"message"`
		} `json:"errors"`
		Prompts []string `json:"prompts"`
		Todos   []struct {
			Content string `json:"content"`
			Status  string `json:"status"`
		} `json:"todos"`
		Subagents []struct {
			ID        string `json:"id"`
			Path      string `json:"path"`
			Turns     int    `json:"turns"`
			ToolCalls int    `json:"tool_calls"`
		} `json:"subagents"`
	}
	toolCallJSON struct {
		ID        string `json:"id"`
		Name      string `json:"name"`
		IsError   bool   `json:"is_error"`
		Sidechain bool   `json:"sidechain"`
		FilePath  string `json:"file_path"`
		Command   string `json:"command"`
		ExitCode  *int   `json:"exit_code"`
	}
)

// Keys cairn must print, so that a misspelt key is reported as missing
// rather than read as a zero.
var (
	statusKeys = []string{
		"session_id", "transcript", "model", "cwd", "git_branch", "turns",
		"context", "context.tokens", "context.source", "context.window", "context.threshold",
		"context.auto_compact", "context.percent_of_window", "context.percent_of_threshold",
		"trend", "trend.per_turn", "trend.per_minute", "trend.turns_to_compact", "trend.minutes_to_compact",
		"compactions",
	}
	reportKeys = append(append([]string(nil), statusKeys...),
		"timeline", "tools", "tool_calls", "files", "commands", "errors", "prompts", "todos", "subagents")
)

// runCairn runs the cairn binary as a user would, with the session's home
// and config directory, and returns its stdout.
func runCairn(s *claudecode.Session, args ...string) ([]byte, error) {
	return runCairnWith(s, nil, args...)
}

// runCairnWith is runCairn with extra KEY=VALUE pairs in cairn's
// environment, for example the CLAUDE_CODE_AUTO_COMPACT_WINDOW the user's
// shell would have when the client was started from it.
func runCairnWith(s *claudecode.Session, extra []string, args ...string) ([]byte, error) {
	if built.err != nil {
		return nil, fmt.Errorf("cairn did not build: %w", built.err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, built.bin, args...)
	cmd.Dir = s.ProjectDir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + s.HomeDir, "CLAUDE_CONFIG_DIR=" + s.ConfigDir, "TMPDIR=" + s.TempDir}
	// cairn's own settings given to the client (state and data dirs,
	// CAIRN_*) apply to the commands a test runs as well as to the hooks.
	for _, kv := range s.Env {
		if strings.HasPrefix(kv, "XDG_") || strings.HasPrefix(kv, "CAIRN_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, extra...)
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("cairn %s: %w\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), errors.Join(err, ctx.Err()), stdout.Bytes(), stderr.Bytes())
	}
	return stdout.Bytes(), nil
}

// decodeCairn parses cairn's JSON into v after checking every key in keys
// is present. It reports a failure with t.Errorf and returns false, so the
// caller skips its cairn checks but the session (and its raw checks) go on.
func decodeCairn(t *testing.T, out []byte, keys []string, v any) bool {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Errorf("cairn printed no JSON object: %v\n%s", err, out)
		return false
	}
	var missing []string
	for _, k := range keys {
		var cur any = m
		for _, part := range strings.Split(k, ".") {
			obj, _ := cur.(map[string]any)
			var ok bool
			if cur, ok = obj[part]; !ok {
				missing = append(missing, k)
				break
			}
		}
	}
	if len(missing) > 0 {
		t.Errorf("cairn JSON lacks keys %v:\n%s", missing, out)
		return false
	}
	if err := json.Unmarshal(out, v); err != nil {
		t.Errorf("cairn JSON does not match the schema: %v\n%s", err, out)
		return false
	}
	return true
}

// status runs `cairn status --json --transcript PATH`.
func status(t *testing.T, s *claudecode.Session, path string) (statusJSON, bool) {
	t.Helper()
	var st statusJSON
	out, err := runCairn(s, "status", "--json", "--transcript", path)
	if err != nil {
		t.Error(err)
		return st, false
	}
	return st, decodeCairn(t, out, statusKeys, &st)
}

// report runs `cairn report --json PATH`.
func report(t *testing.T, s *claudecode.Session, path string) (reportJSON, bool) {
	t.Helper()
	var r reportJSON
	out, err := runCairn(s, "report", "--json", path)
	if err != nil {
		t.Error(err)
		return r, false
	}
	return r, decodeCairn(t, out, reportKeys, &r)
}

// percentTolerance lets cairn round percentages to one decimal.
const percentTolerance = 0.051

// checkStatusHeader checks the fields every status must get right whatever
// the session did.
func checkStatusHeader(t *testing.T, st statusJSON, s *claudecode.Session, path string) {
	t.Helper()
	if st.SessionID != s.ID || st.Transcript != path || st.Cwd != s.ProjectDir || st.GitBranch != "main" || st.Model != model {
		t.Errorf("status header: session %q transcript %q cwd %q branch %q model %q; want %q %q %q %q %q",
			st.SessionID, st.Transcript, st.Cwd, st.GitBranch, st.Model, s.ID, path, s.ProjectDir, "main", model)
	}
	c := st.Context
	if c.Window <= 0 || c.Threshold <= 0 || c.Threshold > c.Window {
		t.Errorf("context window %d, threshold %d: want 0 < threshold <= window", c.Window, c.Threshold)
		return
	}
	if want := 100 * float64(c.Tokens) / float64(c.Window); math.Abs(c.PercentOfWindow-want) > percentTolerance {
		t.Errorf("percent_of_window %.4f, want %.4f (100 * %d / %d)", c.PercentOfWindow, want, c.Tokens, c.Window)
	}
	if want := 100 * float64(c.Tokens) / float64(c.Threshold); math.Abs(c.PercentOfThreshold-want) > percentTolerance {
		t.Errorf("percent_of_threshold %.4f, want %.4f (100 * %d / %d)", c.PercentOfThreshold, want, c.Tokens, c.Threshold)
	}
}

// sameInstant reports whether two RFC 3339 timestamps name the same
// instant to the second (cairn may print another zone or precision than the
// transcript's milliseconds).
func sameInstant(a, b string) bool {
	ta, err1 := time.Parse(time.RFC3339Nano, a)
	tb, err2 := time.Parse(time.RFC3339Nano, b)
	d := ta.Sub(tb)
	return err1 == nil && err2 == nil && d < time.Second && d > -time.Second
}
