package e2e

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-agent/cairn/e2e/fakeapi"
)

// summaryMarker is put in the fake's compaction summary so the bench can
// see the summary arrive in the first request after a compaction.
const summaryMarker = "BENCH-SUMMARY-7f3a"

const benchSummary = "<analysis>the bench is compacting</analysis>\n<summary>1. Primary Request and Intent: " + summaryMarker + " keep the tests green.</summary>"

// TestManualCompaction runs /compact with instructions and checks the
// compaction cairn reports against the boundary line 2.1.328 writes, and
// the context right after it (the boundary's postTokens) and after the next
// reply (usage again).
func TestManualCompaction(t *testing.T) {
	t.Parallel()
	b := newBench(t, fakeapi.Options{CompactionSummary: benchSummary, CompactionUsage: fakeapi.Usage{InputTokens: 11000, OutputTokens: 300}})
	before := fakeapi.Usage{InputTokens: 300, CacheCreationInputTokens: 1200, CacheReadInputTokens: 10000, OutputTokens: 90}
	after := fakeapi.Usage{InputTokens: 2500, OutputTokens: 30}
	b.fake.Enqueue(
		fakeapi.Reply{Text: "looked", Usage: fakeapi.Usage{InputTokens: 8000, CacheCreationInputTokens: 2000, OutputTokens: 60}},
		fakeapi.Reply{Text: "planned", Usage: before},
	)
	b.s.MustTurn(t, "look at the tests")
	b.s.MustTurn(t, "plan the refactor")
	b.s.MustTurn(t, "/compact keep the test names")
	path := b.s.MustTranscript(t)

	comps := b.fake.OfKind(fakeapi.Compaction)
	if len(comps) != 1 {
		t.Fatalf("the fake saw %d compaction requests, want 1", len(comps))
	}
	if txt := fakeapi.LastUserText(comps[0].Body); !strings.Contains(txt, "Additional Instructions:\nkeep the test names") {
		t.Errorf("compaction request does not carry the /compact instructions; its last user message ends:\n%s", tailString(txt, 400))
	}
	lines := readTranscript(t, path)
	bs := boundaries(lines)
	if len(bs) != 1 || bs[0].CompactMetadata == nil {
		t.Fatalf("transcript has %d compact_boundary lines with metadata %v, want 1", len(bs), bs)
	}
	meta := bs[0].CompactMetadata
	// 2.1.328 writes as preTokens of a manual compaction the last reply's
	// input + cache_creation + cache_read + output tokens.
	if wantPre := before.Context() + before.OutputTokens; meta.Trigger != "manual" || meta.PreTokens != wantPre || meta.PostTokens <= 0 {
		t.Errorf("boundary metadata %+v; want trigger manual, preTokens %d, postTokens > 0", *meta, wantPre)
	}
	if !hasCompactSummary(lines) {
		t.Error("no isCompactSummary user line in the transcript")
	}

	if st, ok := status(t, b.s, path); ok {
		checkStatusHeader(t, st, b.s, path)
		if len(st.Compactions) != 1 {
			t.Errorf("status compactions %+v, want 1", st.Compactions)
		} else {
			c := st.Compactions[0]
			if c.Trigger != "manual" || c.PreTokens != meta.PreTokens || c.PostTokens != meta.PostTokens || !sameInstant(c.Time, bs[0].Timestamp) || c.SummaryChars <= 0 {
				t.Errorf("status compaction %+v; want manual, pre %d, post %d, time %s, summary_chars > 0", c, meta.PreTokens, meta.PostTokens, bs[0].Timestamp)
			}
		}
		if st.Context.Source != "compact_boundary" || st.Context.Tokens != meta.PostTokens || st.Turns != 2 {
			t.Errorf("status right after /compact: context %d (%s), turns %d; want %d (compact_boundary), 2",
				st.Context.Tokens, st.Context.Source, st.Turns, meta.PostTokens)
		}
	}

	b.fake.Enqueue(fakeapi.Reply{Text: "continuing", Usage: after})
	b.s.MustTurn(t, "go on")
	b.checkScriptUsed(t)

	// The first turn after a compaction is what later issues assert on:
	// check the fake finds it and that it carries the summary.
	next, ok := b.fake.After(comps[0].Seq, fakeapi.Main)
	if !ok {
		t.Fatal("no conversation request after the compaction")
	}
	if js, _ := json.Marshal(next.Body["messages"]); !strings.Contains(string(js), summaryMarker) {
		t.Errorf("the first request after the compaction (#%d) does not carry the summary", next.Seq)
	}
	checkRawReplies(t, path, answers(b.fake))

	if st, ok := status(t, b.s, path); ok {
		if st.Context.Source != "usage" || st.Context.Tokens != after.Context() || st.Turns != 3 || len(st.Compactions) != 1 {
			t.Errorf("status after the next reply: context %d (%s), turns %d, %d compactions; want %d (usage), 3, 1",
				st.Context.Tokens, st.Context.Source, st.Turns, len(st.Compactions), after.Context())
		}
	}
	if r, ok := report(t, b.s, path); ok {
		if len(r.Timeline) != 3 || r.Timeline[2].Tokens != after.Context() {
			t.Errorf("report timeline %+v, want 3 entries ending at %d", r.Timeline, after.Context())
		}
		if len(r.Compactions) != 1 || r.Compactions[0].PreTokens != meta.PreTokens {
			t.Errorf("report compactions %+v, want one with pre_tokens %d", r.Compactions, meta.PreTokens)
		}
	}
}

// TestAutoCompaction fills the context past the threshold of a 100,000-token
// window and checks that the next turn compacts automatically and cairn
// reports it.
func TestAutoCompaction(t *testing.T) {
	t.Parallel()
	b := newBench(t, fakeapi.Options{CompactionSummary: benchSummary})
	b.s.Env = append(b.s.Env, "CLAUDE_CODE_AUTO_COMPACT_WINDOW=100000")
	full := fakeapi.Usage{InputTokens: 99000, OutputTokens: 200}
	after := fakeapi.Usage{InputTokens: 4000, CacheReadInputTokens: 1000, OutputTokens: 20}
	b.fake.Enqueue(
		fakeapi.Reply{Text: "small", Usage: fakeapi.Usage{InputTokens: 20000, OutputTokens: 100}},
		fakeapi.Reply{Text: "big", Usage: full},
	)
	b.s.MustTurn(t, "start")
	b.s.MustTurn(t, "fill the context")
	path := b.s.MustTranscript(t)
	if n := len(b.fake.OfKind(fakeapi.Compaction)); n != 0 {
		t.Fatalf("compacted before the context was full (%d compaction requests)", n)
	}
	if st, ok := status(t, b.s, path); ok {
		if st.Context.Tokens != full.Context() || st.Context.Source != "usage" || len(st.Compactions) != 0 {
			t.Errorf("status before the compaction: context %d (%s), %d compactions; want %d (usage), 0",
				st.Context.Tokens, st.Context.Source, len(st.Compactions), full.Context())
		}
	}

	// 400 characters: the client adds its estimate of the new prompt
	// (about a quarter of its length) to preTokens.
	prompt := strings.Repeat("next step please. ", 22) + "go on now."
	b.fake.Enqueue(fakeapi.Reply{Text: "after", Usage: after})
	b.s.MustTurn(t, prompt)
	b.checkScriptUsed(t)

	var kinds []fakeapi.Kind
	for _, r := range b.fake.Requests() {
		if r.Kind == fakeapi.Main || r.Kind == fakeapi.Compaction {
			kinds = append(kinds, r.Kind)
		}
	}
	if want := []fakeapi.Kind{fakeapi.Main, fakeapi.Main, fakeapi.Compaction, fakeapi.Main}; !slices.Equal(kinds, want) {
		t.Fatalf("request kinds %v, want %v", kinds, want)
	}
	checkRawReplies(t, path, answers(b.fake))
	bs := boundaries(readTranscript(t, path))
	if len(bs) != 1 || bs[0].CompactMetadata == nil {
		t.Fatalf("transcript has %d compact_boundary lines, want 1", len(bs))
	}
	meta := bs[0].CompactMetadata
	// Observed: preTokens = last reply's input + cache + output tokens +
	// round(len(prompt) / 4).
	lo := full.Context() + full.OutputTokens
	hi := lo + len(prompt)/4 + 1
	if meta.Trigger != "auto" || meta.PreTokens < lo || meta.PreTokens > hi || meta.PostTokens <= 0 {
		t.Errorf("boundary metadata %+v; want trigger auto, preTokens in [%d, %d], postTokens > 0", *meta, lo, hi)
	}
	t.Logf("auto compaction: preTokens %d (last usage total %d), postTokens %d", meta.PreTokens, lo, meta.PostTokens)

	if st, ok := status(t, b.s, path); ok {
		checkStatusHeader(t, st, b.s, path)
		if len(st.Compactions) != 1 {
			t.Errorf("status compactions %+v, want 1", st.Compactions)
		} else if c := st.Compactions[0]; c.Trigger != "auto" || c.PreTokens != meta.PreTokens || c.PostTokens != meta.PostTokens || !sameInstant(c.Time, bs[0].Timestamp) {
			t.Errorf("status compaction %+v; want auto, pre %d, post %d, time %s", c, meta.PreTokens, meta.PostTokens, bs[0].Timestamp)
		}
		if st.Context.Source != "usage" || st.Context.Tokens != after.Context() || st.Turns != 3 {
			t.Errorf("status after the compacted turn: context %d (%s), turns %d; want %d (usage), 3",
				st.Context.Tokens, st.Context.Source, st.Turns, after.Context())
		}
	}
}

func hasCompactSummary(lines []transcriptLine) bool {
	for _, l := range lines {
		if l.Type == "user" && l.IsCompactSummary {
			return true
		}
	}
	return false
}

func tailString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "..." + s[len(s)-n:]
}
