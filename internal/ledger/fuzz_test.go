package ledger

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/fixtures"
)

// FuzzExtract: no text panics the extractor or the ledger, what comes out
// is bounded (statements per text, bytes per item, items per ledger), and
// the ledger stays serialisable.
func FuzzExtract(f *testing.F) {
	for _, s := range []string{
		"Remaining: run the migration, then deploy to staging.",
		"## Next steps\n1. Add the header test\n- [ ] docs\n- [x] parser ✅",
		"```\nwhat? still failing\n```\nStill open: `x`?",
		"I left \"the remaining\" work for later; it still fails, except on arm64.",
		"All done. Everything is finished.",
		"“quoted” ’ — … \u00a0 \xff\xfe",
		"**a** and **b**:\n\n* c:\n  - d",
		strings.Repeat("next: a; ", 200),
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	n := 0
	for _, e := range readEvents(f, fixturePath(f, fixtures.Compactions[0].Session)) {
		if e.kind == "assistant" && len(e.text) < 2000 && n < 60 {
			f.Add(e.text, false)
			n++
		}
	}
	f.Fuzz(func(t *testing.T, text string, user bool) {
		// A loop that never ends would only stall the fuzzer: make it a
		// crash, which records the input.
		hang := time.AfterFunc(10*time.Second, func() { panic(fmt.Sprintf("no progress on %q", text)) })
		defer hang.Stop()
		sts := extract(text, user)
		if len(sts) > maxStatements {
			t.Fatalf("%d statements", len(sts))
		}
		for _, st := range sts {
			if len(st.text) > maxItemBytes+len("…") || strings.ContainsAny(st.text, "\n\r") {
				t.Fatalf("statement not one clipped line: %q", st.text)
			}
		}
		// Every entry point, twice (the second time against the items
		// of the first); TestBounded covers the cap with many texts.
		var l Ledger
		for i := 0; i < 2; i++ {
			l.Assistant(i, 4*i+1, time.Time{}, text)
			l.User(i, 4*i+2, time.Time{}, text)
			l.FileChanged(i, 4*i+3, text)
			l.CommandEnded(i, 4*i+4, text, true)
			l.TodoCompleted(i, 4*i+4, text)
		}
		if len(l.Items) > MaxItems {
			t.Fatalf("%d items", len(l.Items))
		}
		data, err := json.Marshal(&l)
		if err != nil {
			t.Fatal(err)
		}
		var back Ledger
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatal(err)
		}
		_ = l.Open()
		_ = l.Closed()
	})
}
