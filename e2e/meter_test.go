package e2e

import (
	"testing"
	"time"

	"github.com/cairn-agent/cairn/e2e/fakeapi"
)

// TestMeterTurnByTurn checks that after every turn cairn's context figure is
// exactly the usage the fake reported for the latest main-chain reply, and
// that turns count replies (one per API response, however many transcript
// lines the client split it into).
func TestMeterTurnByTurn(t *testing.T) {
	t.Parallel()
	b := newBench(t, fakeapi.Options{})
	b.s.AllowedTools = []string{"Bash(echo:*)"}

	type turn struct {
		prompt  string
		replies []fakeapi.Reply
	}
	turns := []turn{
		{"read the project", []fakeapi.Reply{
			{Text: "reading", Usage: fakeapi.Usage{InputTokens: 3000, CacheCreationInputTokens: 12000, OutputTokens: 50}},
		}},
		{"summarise it", []fakeapi.Reply{
			{Text: "summary", Usage: fakeapi.Usage{InputTokens: 200, CacheCreationInputTokens: 1500, CacheReadInputTokens: 15000, OutputTokens: 80}},
		}},
		// A reply with text and a tool call is written as two transcript
		// lines sharing one message id, and the turn takes two replies.
		{"say hi in the shell", []fakeapi.Reply{
			{Text: "running echo", Tools: []fakeapi.ToolUse{{Name: "Bash", Input: map[string]any{"command": "echo hi", "description": "Say hi"}}},
				Usage: fakeapi.Usage{InputTokens: 150, CacheCreationInputTokens: 900, CacheReadInputTokens: 16700, OutputTokens: 40}},
			{Text: "it said hi", Usage: fakeapi.Usage{InputTokens: 10, CacheCreationInputTokens: 400, CacheReadInputTokens: 17750, OutputTokens: 25}},
		}},
		// A cache miss: the context shrinks on paper. cairn must report the
		// latest reply, not the largest.
		{"one more thing", []fakeapi.Reply{
			{Text: "done", Usage: fakeapi.Usage{InputTokens: 5000, OutputTokens: 7}},
		}},
	}

	var prompts []string
	replies := 0
	for i, tt := range turns {
		b.fake.Enqueue(tt.replies...)
		b.s.MustTurn(t, tt.prompt)
		prompts = append(prompts, tt.prompt)
		replies += len(tt.replies)
		path := b.s.MustTranscript(t)

		sent := answers(b.fake)
		if len(sent) != replies {
			t.Fatalf("turn %d: the fake answered %d conversation requests, want %d", i+1, len(sent), replies)
		}
		raw := checkRawReplies(t, path, sent)
		if i == 2 && raw[2].Lines < 2 {
			t.Errorf("the text+tool reply took %d transcript line(s); the bench expects the client to split it", raw[2].Lines)
		}
		latest := tt.replies[len(tt.replies)-1].Usage

		st, ok := status(t, b.s, path)
		if !ok {
			continue
		}
		checkStatusHeader(t, st, b.s, path)
		if st.Context.Tokens != latest.Context() || st.Context.Source != "usage" || st.Turns != replies || len(st.Compactions) != 0 {
			t.Errorf("after turn %d: status context %d (%s), turns %d, %d compactions; want %d (usage), %d, 0",
				i+1, st.Context.Tokens, st.Context.Source, st.Turns, len(st.Compactions), latest.Context(), replies)
		}
	}
	b.checkScriptUsed(t)

	path := b.s.MustTranscript(t)
	r, ok := report(t, b.s, path)
	if !ok {
		return
	}
	sent := answers(b.fake)
	if len(r.Timeline) != len(sent) {
		t.Fatalf("report timeline has %d entries, want %d", len(r.Timeline), len(sent))
	}
	var last time.Time
	for i, e := range r.Timeline {
		u := sent[i].Answer.Usage
		if e.Turn != i+1 || e.MessageID != sent[i].MessageID || e.Tokens != u.Context() ||
			e.InputTokens != u.InputTokens || e.CacheCreationInputTokens != u.CacheCreationInputTokens ||
			e.CacheReadInputTokens != u.CacheReadInputTokens || e.OutputTokens != u.OutputTokens {
			t.Errorf("timeline[%d] = %+v; want turn %d, %s, usage %+v (tokens %d)", i, e, i+1, sent[i].MessageID, u, u.Context())
		}
		at, err := time.Parse(time.RFC3339Nano, e.Time)
		if err != nil || at.Before(last) {
			t.Errorf("timeline[%d].time %q: not RFC 3339 or before the previous entry", i, e.Time)
		}
		last = at
	}
	if len(r.Prompts) != len(prompts) {
		t.Errorf("report prompts %q, want %q", r.Prompts, prompts)
	} else {
		for i := range prompts {
			if r.Prompts[i] != prompts[i] {
				t.Errorf("report prompts %q, want %q", r.Prompts, prompts)
				break
			}
		}
	}
	if r.Tools["Bash"] != 1 || len(r.Tools) != 1 {
		t.Errorf("report tools %v, want Bash: 1", r.Tools)
	}
	if len(r.Commands) != 1 || r.Commands[0].Command != "echo hi" || r.Commands[0].ExitCode == nil || *r.Commands[0].ExitCode != 0 || r.Commands[0].IsError {
		t.Errorf("report commands %+v, want echo hi with exit code 0", r.Commands)
	}
}
