package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-agent/cairn/internal/tracker"
)

// TestCrossingTellsTheTicket: with a tracker configured, the L2 crossing
// queues the checkpoint's updates for the bound ticket and starts a
// drainer, and waits on nothing; the handoff shows the ticket's state as
// the tracker last told it (HND-003). Without a tracker, nothing is
// queued.
func TestCrossingTellsTheTicket(t *testing.T) {
	for _, configured := range []bool{true, false} {
		w := newWorld(t)
		s := w.session("sess-t")
		os.MkdirAll(filepath.Join(s.project, ".claude"), 0o755)
		if configured {
			os.WriteFile(filepath.Join(s.project, ".claude", "cairn.conf"), []byte("tracker = linear\n"), 0o644)
		}
		q := tracker.Queue{Dir: filepath.Join(w.stateDir(), "tracker")}
		if err := q.Bind(s.project, "ENG-42"); err != nil {
			t.Fatal(err)
		}
		if err := q.SaveIssue("linear", tracker.Issue{ID: "ENG-42", Title: "Export invoices as CSV", State: "In Progress"}); err != nil {
			t.Fatal(err)
		}
		s.prompt("Add the CSV export.")
		s.reply("ok", 50000)
		started := 0
		run := func() string {
			var out bytes.Buffer
			data, _ := json.Marshal(s.payload("UserPromptSubmit", nil))
			r := w.runner(bytes.NewReader(data), &out)
			r.StartDrainer = func() error { started++; return nil }
			if code := r.Run(context.Background(), "UserPromptSubmit"); code != 0 {
				t.Fatalf("exit %d", code)
			}
			return out.String()
		}
		run()
		s.reply("much more", 145000) // L2
		out := run()
		pending, errs := q.List("pending")
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		if !configured {
			if len(pending) != 0 || started != 0 {
				t.Errorf("no tracker configured, yet %d updates queued and %d drainers started", len(pending), started)
			}
			continue
		}
		if started != 1 {
			t.Errorf("drainers started: %d, want 1", started)
		}
		var kinds []string
		for _, u := range pending {
			kinds = append(kinds, string(u.Kind))
			if u.Issue != "ENG-42" || u.Tracker != "linear" || u.Project != s.project {
				t.Errorf("update %+v", u)
			}
		}
		if strings.Join(kinds, ",") != "status,comment,label" {
			t.Errorf("updates %v, want status, comment, label", kinds)
		}
		if !strings.Contains(out, "ENG-42 told (3 updates queued)") {
			t.Errorf("the advisory does not say the ticket was told: %q", out)
		}
		handoffs, _ := filepath.Glob(filepath.Join(s.project, ".claude", "handoffs", "*.md"))
		if len(handoffs) != 1 {
			t.Fatalf("handoffs: %v", handoffs)
		}
		doc, _ := os.ReadFile(handoffs[0])
		if !strings.Contains(string(doc), "- **Tracker**: ENG-42 (linear): In Progress · Export invoices as CSV") {
			t.Errorf("the handoff does not carry the ticket's state:\n%s", doc)
		}
		for _, u := range pending {
			if u.Kind == tracker.Comment && !strings.Contains(u.Body, filepath.Base(handoffs[0])) {
				t.Errorf("the comment does not name the handoff: %q", u.Body)
			}
		}
	}
}
