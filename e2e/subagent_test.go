package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-agent/cairn/e2e/fakeapi"
)

// TestSubagent delegates to a foreground subagent that runs a command, and
// checks that the subagent's replies never count as the session's context
// while its tool calls and transcript are reported as a subagent's.
func TestSubagent(t *testing.T) {
	t.Parallel()
	b := newBench(t, fakeapi.Options{})
	b.s.AllowedTools = []string{"Bash(echo:*)"}
	mainAfter := fakeapi.Usage{InputTokens: 6000, CacheCreationInputTokens: 500, OutputTokens: 9}
	// Agents run in the background by default and the main loop would race
	// the subagent for scripted replies; run_in_background false makes the
	// main loop wait, so the queue order is the request order.
	b.fake.Enqueue(
		fakeapi.Reply{Tools: []fakeapi.ToolUse{{ID: "toolu_agent", Name: "Agent", Input: map[string]any{
			"description": "Count files", "prompt": "count the files", "subagent_type": "general-purpose", "run_in_background": false}}},
			Usage: fakeapi.Usage{InputTokens: 5000, OutputTokens: 30}},
		fakeapi.Reply{Tools: []fakeapi.ToolUse{{ID: "toolu_sub_echo", Name: "Bash", Input: map[string]any{"command": "echo sub", "description": "Echo"}}},
			Usage: fakeapi.Usage{InputTokens: 1111, OutputTokens: 7}},
		fakeapi.Reply{Text: "one file", Usage: fakeapi.Usage{InputTokens: 1222, OutputTokens: 8}},
		fakeapi.Reply{Text: "the subagent counted one file", Usage: mainAfter},
	)
	b.s.MustTurn(t, "delegate the counting")
	b.checkScriptUsed(t)
	path := b.s.MustTranscript(t)

	sent := answers(b.fake)
	if len(sent) != 4 {
		t.Fatalf("the fake answered %d conversation requests, want 4", len(sent))
	}
	mainSent := []fakeapi.Request{sent[0], sent[3]}
	checkRawReplies(t, path, mainSent)
	subs, _ := filepath.Glob(filepath.Join(strings.TrimSuffix(path, ".jsonl"), "subagents", "agent-*.jsonl"))
	if len(subs) != 1 {
		t.Fatalf("subagent transcripts %v, want 1", subs)
	}
	subLines := readTranscript(t, subs[0])
	var agentID string
	subReplies := map[string]bool{}
	for _, l := range subLines {
		if l.Type == "assistant" {
			if !l.IsSidechain {
				t.Errorf("subagent transcript line not marked isSidechain: %s", l.Message.ID)
			}
			agentID = l.AgentID
			subReplies[l.Message.ID] = true
		}
	}
	if len(subReplies) != 2 || !subReplies[sent[1].MessageID] || !subReplies[sent[2].MessageID] || agentID == "" {
		t.Errorf("subagent transcript replies %v (agent %q), want %s and %s", subReplies, agentID, sent[1].MessageID, sent[2].MessageID)
	}

	if st, ok := status(t, b.s, path); ok {
		checkStatusHeader(t, st, b.s, path)
		if st.Turns != 2 || st.Context.Tokens != mainAfter.Context() || st.Context.Source != "usage" {
			t.Errorf("status: turns %d, context %d (%s); want 2, %d (usage): the subagent's replies are not the session's context",
				st.Turns, st.Context.Tokens, st.Context.Source, mainAfter.Context())
		}
	}
	r, ok := report(t, b.s, path)
	if !ok {
		return
	}
	if len(r.Timeline) != 2 || r.Timeline[0].MessageID != sent[0].MessageID || r.Timeline[1].MessageID != sent[3].MessageID {
		t.Errorf("report timeline %+v, want the two main-chain replies only", r.Timeline)
	}
	if len(r.Subagents) != 1 {
		t.Fatalf("report subagents %+v, want 1", r.Subagents)
	}
	sa := r.Subagents[0]
	if (sa.ID != agentID && sa.ID != "agent-"+agentID) || sa.Path != subs[0] || sa.Turns != 2 || sa.ToolCalls != 1 {
		t.Errorf("report subagent %+v; want id %s, path %s, 2 turns, 1 tool call", sa, agentID, subs[0])
	}
	calls := map[string]toolCallJSON{}
	for _, c := range r.ToolCalls {
		calls[c.ID] = c
	}
	if c, ok := calls["toolu_agent"]; !ok || c.Name != "Agent" || c.Sidechain {
		t.Errorf("tool_call toolu_agent = %+v (found %v), want Agent on the main chain", c, ok)
	}
	if c, ok := calls["toolu_sub_echo"]; !ok || c.Name != "Bash" || !c.Sidechain || c.Command != "echo sub" || c.ExitCode == nil || *c.ExitCode != 0 {
		t.Errorf("tool_call toolu_sub_echo = %+v (found %v), want Bash echo sub on a sidechain, exit 0", c, ok)
	}
}
