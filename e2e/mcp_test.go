package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-agent/cairn/e2e/fakeapi"
)

// mcpServer is the MCP server the client starts: the cairn binary the
// tests built, run as `cairn mcp`.
func mcpServer(t *testing.T) string {
	t.Helper()
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

// withMCP registers the server in the project's .mcp.json, which the
// client loads in headless runs without asking, and keeps cairn's state
// with the test.
func withMCP(t *testing.T, b *bench, bin string) {
	t.Helper()
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"cairn": map[string]any{"command": bin, "args": []string{"mcp"}}}})
	if err := os.WriteFile(filepath.Join(b.s.ProjectDir, ".mcp.json"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	b.s.Env = append(b.s.Env, "XDG_STATE_HOME="+filepath.Join(b.s.HomeDir, "state"), "XDG_DATA_HOME="+filepath.Join(b.s.HomeDir, "data"))
}

// toolResult is the result of the tool_use id in the requests the fake
// received.
func toolResult(t *testing.T, fake *fakeapi.Server, id string) fakeapi.ToolResult {
	t.Helper()
	for _, r := range fake.OfKind(fakeapi.Main) {
		for _, tr := range fakeapi.ToolResults(r.Body) {
			if tr.ToolUseID == id {
				return tr
			}
		}
	}
	t.Fatalf("no result of %s reached the model", id)
	return fakeapi.ToolResult{}
}

// After a /compact the model asks cairn's MCP server how things stand and
// for the working state; the answers reach the next request. The client
// writes the reply that made a call shortly after calling, and the status
// counts it.
func TestMCPContextTools(t *testing.T) {
	t.Parallel()
	bin := mcpServer(t)
	b := newBench(t, fakeapi.Options{CompactionSummary: benchSummary, CompactionUsage: fakeapi.Usage{InputTokens: 11000, OutputTokens: 300}})
	withMCP(t, b, bin)
	b.fake.Enqueue(fakeapi.Reply{Text: "Decided to use pnpm, not npm, because the lockfile is pnpm's.", Usage: fakeapi.Usage{InputTokens: 90000, OutputTokens: 5}})
	b.s.MustTurn(t, "Implement MCP-7: the CSV export. Never touch the migrations folder.")
	b.s.MustTurn(t, "/compact")
	b.fake.Enqueue(
		fakeapi.Reply{Tools: []fakeapi.ToolUse{{ID: "toolu_status", Name: "mcp__cairn__check_compaction_status", Input: map[string]any{}}}, Usage: fakeapi.Usage{InputTokens: 12000, OutputTokens: 5}},
		fakeapi.Reply{Tools: []fakeapi.ToolUse{{ID: "toolu_restore", Name: "mcp__cairn__restore_compacted_context", Input: map[string]any{}}}, Usage: fakeapi.Usage{InputTokens: 12500, OutputTokens: 5}},
		fakeapi.Reply{Tools: []fakeapi.ToolUse{{ID: "toolu_bad", Name: "mcp__cairn__preserve_critical_context", Input: map[string]any{"level": "everything"}}}, Usage: fakeapi.Usage{InputTokens: 13000, OutputTokens: 5}},
		fakeapi.Reply{Tools: []fakeapi.ToolUse{{ID: "toolu_keep", Name: "mcp__cairn__preserve_critical_context", Input: map[string]any{"level": "critical"}}}, Usage: fakeapi.Usage{InputTokens: 13500, OutputTokens: 5}},
		fakeapi.Reply{Text: "Back on MCP-7.", Usage: fakeapi.Usage{InputTokens: 14000, OutputTokens: 5}},
	)
	b.s.AllowedTools = []string{"mcp__cairn__check_compaction_status", "mcp__cairn__restore_compacted_context", "mcp__cairn__preserve_critical_context"}
	b.s.MustTurn(t, "where were we?")
	b.checkScriptUsed(t)

	st := toolResult(t, b.fake, "toolu_status")
	var v struct {
		Tokens int64  `json:"tokens_used"`
		Risk   string `json:"compaction_risk"`
		Last   struct {
			Trigger string `json:"trigger"`
		} `json:"last_compaction"`
	}
	if err := json.Unmarshal([]byte(st.Text), &v); err != nil || st.IsError {
		t.Fatalf("check_compaction_status: %q (%v)", st.Text, err)
	}
	if v.Tokens != 12000 || v.Risk != "occurred" || v.Last.Trigger != "manual" {
		t.Errorf("check_compaction_status %s: want the calling reply's 12000 tokens, risk occurred after the manual compaction", st.Text)
	}
	rs := toolResult(t, b.fake, "toolu_restore")
	for _, want := range []string{"# Restored working state (cairn)", "MCP-7", "Never touch the migrations folder.", "Decided to use pnpm, not npm"} {
		if rs.IsError || !strings.Contains(rs.Text, want) {
			t.Errorf("restore_compacted_context lacks %q:\n%s", want, rs.Text)
		}
	}
	if bad := toolResult(t, b.fake, "toolu_bad"); !bad.IsError || !strings.Contains(bad.Text, "level") {
		t.Errorf("a bad level: %q (error %v)", bad.Text, bad.IsError)
	}
	if keep := toolResult(t, b.fake, "toolu_keep"); keep.IsError || !strings.HasPrefix(keep.Text, "Saved checkpoint 2") {
		t.Errorf("preserve_critical_context: %q", keep.Text)
	}
}

// What the server adds to every request: Claude Code 2.1.328 defers MCP
// tools, naming them in a reminder until ToolSearch loads a schema. The
// test compares the first request of a session with and without it.
func TestMCPRequestCost(t *testing.T) {
	t.Parallel()
	bin := mcpServer(t)
	sizes := map[bool]int{}
	for _, with := range []bool{false, true} {
		b := newBench(t, fakeapi.Options{})
		if with {
			withMCP(t, b, bin)
		}
		b.fake.Enqueue(fakeapi.Reply{Text: "hi", Usage: fakeapi.Usage{InputTokens: 100, OutputTokens: 5}})
		b.s.MustTurn(t, "hello")
		reqs := b.fake.OfKind(fakeapi.Main)
		if len(reqs) != 1 {
			t.Fatalf("%d main requests, want 1", len(reqs))
		}
		sizes[with] = reqs[0].Size
		body, _ := json.Marshal(reqs[0].Body)
		names := strings.Count(string(body), "mcp__cairn__")
		if want := map[bool]int{false: 0, true: 8}[with]; names != want {
			t.Errorf("with the server %v: %d mentions of its tools, want %d", with, names, want)
		}
	}
	added := sizes[true] - sizes[false]
	t.Logf("the server adds %d bytes to a request (%d without it)", added, sizes[false])
	if added <= 0 || added > 600 {
		t.Errorf("the server adds %d bytes to a request: want its eight tool names, no schemas", added)
	}
}

// A decision one session made reaches a later session of the project
// through memory: the hooks store the first session's observations, and
// the model of the second calls the search tool, whose result (with the
// decision and its reason) is in the next request.
func TestMCPMemoryAcrossSessions(t *testing.T) {
	t.Parallel()
	if built.err != nil {
		t.Fatal(built.err)
	}
	fake := fakeapi.New(fakeapi.Options{})
	defer fake.Close()
	s := newProject(t, nil)
	s.BaseURL = fake.URL
	installCairn(t, s)
	cfg, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"cairn": map[string]any{"command": built.bin, "args": []string{"mcp"}}}})
	if err := os.WriteFile(filepath.Join(s.ProjectDir, ".mcp.json"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	fake.Enqueue(fakeapi.Reply{Text: "I decided to keep the sessions in Redis rather than Postgres, because Redis expires keys natively.",
		Usage: fakeapi.Usage{InputTokens: 20000, OutputTokens: 30}})
	s.MustTurn(t, "Plan the session store for ticket AUTH-12.")

	first := s.ID
	s.ID = "" // a new session of the same project
	fake.Enqueue(
		fakeapi.Reply{Tools: []fakeapi.ToolUse{{ID: "toolu_search", Name: "mcp__cairn__search", Input: map[string]any{"query": "where do sessions live"}}},
			Usage: fakeapi.Usage{InputTokens: 9000, OutputTokens: 5}},
		fakeapi.Reply{Text: "Redis, as decided.", Usage: fakeapi.Usage{InputTokens: 9500, OutputTokens: 5}},
	)
	s.AllowedTools = []string{"mcp__cairn__search"}
	s.MustTurn(t, "Where did we decide to keep the sessions?")
	if s.ID == first {
		t.Fatal("the second turn resumed the first session")
	}
	res := toolResult(t, fake, "toolu_search")
	if res.IsError || !strings.Contains(res.Text, "Redis") || !strings.Contains(res.Text, "Postgres") {
		t.Errorf("the search did not bring the first session's decision:\n%s", res.Text)
	}
}
