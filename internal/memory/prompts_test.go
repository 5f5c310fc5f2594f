package memory

import (
	"context"
	"strings"
	"testing"
)

// Each prompt becomes an observation with the agent's words just before
// it; a private span in it is never stored, and the same prompt derived
// again (the next checkpoint) is stored once.
func TestSessionPrompts(t *testing.T) {
	s := session(t, t.TempDir(), []step{
		{user: "Export the invoices as CSV."},
		{tool: "Bash", input: map[string]any{"command": "go test ./..."}},
		{result: "ok"},
		{text: "The CSV export epic is finished and committed."},
		{tool: "Bash", input: map[string]any{"command": "git status"}},
		{result: "clean"},
		{user: "did you push? the deploy key is <private>hunter2-deploy</private>"},
	})
	base := Observation{Project: "/work/shop", SessionID: "sess-1"}
	obs := sessionPrompts(base, s, tailOf(s, maxEditScan))
	tests := []struct {
		name, title string
		body, notIn []string
	}{
		{"first", "The user said: Export the invoices as CSV.", []string{"Export the invoices as CSV."}, []string{"After the agent said"}},
		{"after the agent's report", "The user said: did you push?", []string{"did you push?", "\nAfter the agent said: The CSV export epic is finished and committed."},
			[]string{"hunter2"}},
	}
	if len(obs) != len(tests) {
		t.Fatalf("%d prompt observations, want %d:\n%s", len(obs), len(tests), render(obs))
	}
	st, _ := openStore(t)
	ctx := context.Background()
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ids, err := st.Add(ctx, obs[i])
			if err != nil || ids[0] == 0 {
				t.Fatalf("add: %v %v", ids, err)
			}
			got, err := st.Get(ctx, ids[0])
			if err != nil {
				t.Fatal(err)
			}
			o := got[0]
			if o.Kind != KindPrompt || !strings.HasPrefix(o.Title, tt.title) || o.Time.IsZero() {
				t.Errorf("%s %q at %v, want prompt %q", o.Kind, o.Title, o.Time, tt.title)
			}
			for _, b := range tt.body {
				if !strings.Contains(o.Body, b) {
					t.Errorf("no %q in %q", b, o.Body)
				}
			}
			for _, b := range tt.notIn {
				if strings.Contains(o.Title+o.Body, b) {
					t.Errorf("%q in %q", b, o.Title+"\n"+o.Body)
				}
			}
			if again, err := st.Add(ctx, sessionPrompts(base, s, tailOf(s, maxEditScan))[i]); err != nil || again[0] != 0 {
				t.Errorf("the same prompt again: %v %v", again, err)
			}
		})
	}
	// Without the transcript's text, the prompts stay, without the agent's words.
	if got := sessionPrompts(base, s, func(int) []byte { return nil }); len(got) != 2 || strings.Contains(got[1].Body, "After") {
		t.Errorf("without the transcript: %s", render(got))
	}
}
