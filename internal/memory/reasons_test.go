package memory

import (
	"context"
	"strings"
	"testing"
)

// What the agent said just before a change, when it gives a reason, is a
// decision with what was then done: the file or command names what the
// choice is about. A text without a reason, one before a look, one whose
// run's output keeps it, and a sentence kept as a decision already are
// not stored again.
func TestSessionReasons(t *testing.T) {
	s := session(t, t.TempDir(), []step{
		{user: "Clean up the migrations."},
		{text: "The generator wrote its own migration. I should remove my manual one and use the generated one instead."},
		{tool: "Bash", input: map[string]any{"command": "rm priv/repo/migrations/20260212_add_unique_index.exs"}},
		{result: ""},
		{text: "Let me look at the config."},
		{tool: "Bash", input: map[string]any{"command": "git mv scripts/tail.sh priv/scripts/tail.sh"}},
		{result: ""},
		{text: "Checking the tree since it may have moved."},
		{tool: "Bash", input: map[string]any{"command": "ls priv"}},
		{result: "scripts"},
		{text: "Now delete the ignore file since we no longer need it."},
		{tool: "Bash", input: map[string]any{"command": "git rm .dialyzerignore"}},
		{result: "rm '.dialyzerignore'"},
		{text: "Rotating the key since it leaked: sk-ant-api03-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA <private>ops-vault-7</private>"},
		{tool: "Bash", input: map[string]any{"command": "rm config/keys.old"}},
		{result: ""},
		{text: "I'll pin the version because the newer one breaks the build."},
		{tool: "Bash", input: map[string]any{"command": "rm mix.lock"}},
		{result: ""},
	})
	base := Observation{Project: "/work/shop", SessionID: "sess-1"}
	told := map[string]bool{}
	for _, o := range sessionOutputs(base, s, tailOf(s, maxEditScan)) {
		if id, ok := strings.CutPrefix(o.key, "output "); ok {
			told[id] = true
		}
	}
	decided := map[string]bool{"I'll pin the version because the newer one breaks the build.": true}
	obs := sessionReasons(base, s, tailOf(s, maxEditScan), decided, told)
	tests := []struct {
		name, title string
		body        []string
		files       []string
	}{
		{"a removal and its reason", "20260212_add_unique_index.exs: I should remove my manual one and use the generated one instead.",
			[]string{"The generator wrote its own migration.", "Then ran `rm priv/repo/migrations/20260212_add_unique_index.exs`"},
			[]string{"priv/repo/migrations/20260212_add_unique_index.exs"}},
		{"secrets and private spans out", "keys.old: Rotating the key since it leaked: [REDACTED:anthropic-key]", []string{"Then ran `rm config/keys.old`"}, []string{"config/keys.old"}},
	}
	if len(obs) != len(tests) {
		t.Fatalf("%d observations, want %d:\n%s", len(obs), len(tests), render(obs))
	}
	// As stored: cleaned of secrets and private spans.
	st, _ := openStore(t)
	ctx := context.Background()
	ids, err := st.Add(ctx, obs...)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := st.Get(ctx, ids...)
	if err != nil || len(stored) != len(tests) {
		t.Fatalf("%d stored of %d: %v", len(stored), len(tests), err)
	}
	for _, o := range stored {
		if all := o.Title + o.Body; strings.Contains(all, "AAAAAAAAAAAAAAAA") || strings.Contains(all, "ops-vault-7") {
			t.Errorf("a secret or private span stored: %q", all)
		}
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := stored[i]
			if o.Kind != KindDecision || o.Title != tt.title || o.Time.IsZero() {
				t.Errorf("%s %q at %v, want decision %q", o.Kind, o.Title, o.Time, tt.title)
			}
			for _, b := range tt.body {
				if !strings.Contains(o.Body, b) {
					t.Errorf("no %q in %q", b, o.Body)
				}
			}
			if strings.Join(o.Files, " ") != strings.Join(tt.files, " ") {
				t.Errorf("files %q, want %q", o.Files, tt.files)
			}
		})
	}
}

// reasons keeps the sentences that give a reason or set a course against
// another, and only those.
func TestReasons(t *testing.T) {
	tests := []struct{ text, want string }{
		{"Let me put it in priv/scripts/ instead since that's what apps package.", "Let me put it in priv/scripts/ instead since that's what apps package."},
		{"All green. Now remove the file since we no longer need it:", "Now remove the file since we no longer need it:"},
		{"The handler is redundant. Removing it.", "The handler is redundant."},
		{"Let me run the tests.", ""},
		{"Now commit.", ""},
	}
	for _, tt := range tests {
		if got := reasons(tt.text, nil); got != tt.want {
			t.Errorf("reasons(%q) = %q, want %q", tt.text, got, tt.want)
		}
	}
}
