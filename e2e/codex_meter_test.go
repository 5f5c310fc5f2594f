package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/cairn-agent/cairn/e2e/codex"
)

// TestCodexMeterTurnByTurn drives the real Codex CLI through turns whose
// usage the fake chooses (cached input included), an automatic
// compaction at a turn's start and one in the middle of a turn, and
// checks after every turn that cairn's meter (`cairn status --json` on
// the rollout) reads exactly the usage the fake reported for the latest
// turn response, never the compaction call's, with Codex's window (95%
// of model_context_window) and its model_auto_compact_token_limit; and
// that `cairn report --json` has one timeline entry per turn response,
// in order, with the fake's figures.
func TestCodexMeterTurnByTurn(t *testing.T) {
	bin := codex.Require(t)
	if built.err != nil {
		t.Fatal(built.err)
	}
	const limit = 50000
	fake := startFake(t)
	s := codex.NewSession(t, bin, fake.URL, limit)
	if _, err := runCairnCodex(s, "install", "--agent", "codex", "--trust"); err != nil {
		t.Fatal(err)
	}
	turns := []struct {
		prompt      string
		replies     []codex.Reply
		compactions int // the compactions so far, after this turn
	}{
		{"read the project", []codex.Reply{{Text: "reading", InputTokens: 3000, OutputTokens: 50}}, 0},
		{"list the files", []codex.Reply{
			{Text: "listing", Command: "ls", InputTokens: 8000, CachedTokens: 3000, OutputTokens: 30},
			{Text: "two files", InputTokens: 9000, CachedTokens: 8000, OutputTokens: 25},
		}, 0},
		// A cache miss: the context shrinks on paper; the meter reads the
		// latest response, not the largest.
		{"one more thing", []codex.Reply{{Text: "done", InputTokens: 5000, OutputTokens: 7}}, 0},
		// 80% of the limit: the next prompt's advisory names the hooks'
		// reading and Codex's limit.
		{"keep going", []codex.Reply{{Text: "going", InputTokens: 40000, CachedTokens: 4000, OutputTokens: 40}}, 0},
		{"fill the context", []codex.Reply{{Text: "full", InputTokens: 61000, CachedTokens: 5000, OutputTokens: 90}}, 0},
		// The next turn compacts first: the compaction call's usage (1000)
		// and the zeroed usage after it are no turn.
		{"after the compaction", []codex.Reply{{Text: "compacted", InputTokens: 7000, CachedTokens: 1000, OutputTokens: 40}}, 1},
		// A tool call's reply over the limit: Codex compacts after the
		// call's result, in the middle of the turn.
		{"run echo", []codex.Reply{
			{Text: "running", Command: "echo hi", InputTokens: 58000, CachedTokens: 7000, OutputTokens: 30},
			{Text: "it said hi", InputTokens: 6500, OutputTokens: 15},
		}, 2},
		{"last", []codex.Reply{{Text: "bye", InputTokens: 8200, CachedTokens: 6000, OutputTokens: 11}}, 2},
	}
	ctx := context.Background()
	var sent []codex.Answer
	for i, tn := range turns {
		fake.Queue(tn.replies...)
		if _, err := s.Turn(ctx, tn.prompt, false); err != nil {
			t.Fatal(err)
		}
		if n := fake.Queued(); n != 0 {
			t.Fatalf("turn %d: %d replies unused: %v", i+1, n, kinds(fake.Requests()))
		}
		var answers []codex.Answer
		compactions := 0
		for _, a := range fake.Answers() {
			if a.Compact {
				compactions++
			} else {
				answers = append(answers, a)
			}
		}
		if compactions != tn.compactions {
			t.Fatalf("after turn %d: the fake saw %d compactions, want %d: %v", i+1, compactions, tn.compactions, kinds(fake.Requests()))
		}
		sent = answers
		path, err := s.Rollout()
		if err != nil {
			t.Fatal(err)
		}
		var st statusJSON
		out, err := runCairnCodex(s, "status", "--json", "--transcript", path)
		if err != nil {
			t.Fatal(err)
		}
		if !decodeCairn(t, out, statusKeys, &st) {
			continue
		}
		latest := answers[len(answers)-1]
		want := latest.Input + latest.Output
		c := st.Context
		t.Logf("turn %d: the fake reported %d (input %d, cached %d, output %d); cairn reads %d (%s), window %d, threshold %d, %d turns, %d compactions",
			i+1, want, latest.Input, latest.Cached, latest.Output, c.Tokens, c.Source, c.Window, c.Threshold, st.Turns, len(st.Compactions))
		if c.Tokens != want || c.Source != "usage" {
			t.Errorf("after turn %d: cairn reads %d tokens (%s), the fake reported %d for its latest turn response", i+1, c.Tokens, c.Source, want)
		}
		// Codex's rules: 95% of model_context_window (200,000) and
		// model_auto_compact_token_limit.
		if c.Window != 190000 || c.Threshold != 50000 {
			t.Errorf("after turn %d: cairn status measures with window %d and threshold %d, want Codex's 190,000 and 50,000", i+1, c.Window, c.Threshold)
		}
		if st.Turns != len(answers) {
			t.Errorf("after turn %d: cairn counts %d turns, the fake answered %d turn requests", i+1, st.Turns, len(answers))
		}
		if len(st.Compactions) != compactions {
			t.Errorf("after turn %d: cairn counts %d compactions, want %d", i+1, len(st.Compactions), compactions)
		}
	}
	// The hooks meter with Codex's rules too: the advisory after the turn at 40,040 tokens names that reading and
	// model_auto_compact_token_limit.
	advised := false
	for _, r := range fake.Requests() {
		for _, m := range r.Messages() {
			if m.Role == "developer" && strings.HasPrefix(m.Text, "cairn · context") {
				t.Logf("request %d: %s", r.N, m.Text)
				advised = advised || strings.Contains(m.Text, "40,040 of 50,000 tokens")
			}
		}
	}
	if !advised {
		t.Errorf("no advisory names the reading 40,040 of 50,000 tokens\ncairn.log:\n%s", cairnLog(s))
	}
	// Each compaction's pre-compaction figure is the usage of the turn
	// response before it.
	path, _ := s.Rollout()
	var r reportJSON
	out, err := runCairnCodex(s, "report", "--json", path)
	if err != nil {
		t.Fatal(err)
	}
	if !decodeCairn(t, out, reportKeys, &r) {
		return
	}
	if len(r.Timeline) != len(sent) {
		t.Fatalf("report timeline has %d entries, the fake answered %d turn requests", len(r.Timeline), len(sent))
	}
	for i, e := range r.Timeline {
		a := sent[i]
		if e.Turn != i+1 || e.Tokens != a.Input+a.Output || e.InputTokens != a.Input-a.Cached || e.CacheReadInputTokens != a.Cached || e.OutputTokens != a.Output {
			t.Errorf("timeline[%d] = %+v; the fake reported %+v", i, e, a)
		}
	}
	wantPre := []int{61090, 58030}
	for i, c := range r.Compactions {
		if i < len(wantPre) && c.PreTokens != wantPre[i] {
			t.Errorf("compaction %d: pre_tokens %d, want %d (the turn response before it)", i+1, c.PreTokens, wantPre[i])
		}
		if c.PostTokens <= 0 {
			t.Errorf("compaction %d: post_tokens %d, want Codex's estimate of the context left", i+1, c.PostTokens)
		}
	}
}
