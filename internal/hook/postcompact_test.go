package hook

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/state"
)

// PostCompact keeps the summary Claude Code wrote, redacted, beside the
// session's state, and answers nothing: its additionalContext never
// reaches the model (shared/claude-code/PROTOCOL.md), so a restore
// delivered there would be lost, and it is left for the next prompt.
func TestPostCompact(t *testing.T) {
	secret := "ghp_" + strings.Repeat("k3Y9", 9)
	tests := []struct {
		name     string
		payloads []map[string]any // PostCompact's extra fields, one run each
		want     []map[string]string
	}{
		{
			name:     "a summary",
			payloads: []map[string]any{{"trigger": "auto", "compact_summary": "<summary>1. Primary Request: ship BILL-9 with token " + secret + "</summary>"}},
			want:     []map[string]string{{"trigger": "auto", "summary": "<summary>1. Primary Request: ship BILL-9 with token [REDACTED"}},
		},
		{
			name:     "no summary",
			payloads: []map[string]any{{"trigger": "manual"}, {"trigger": "manual", "compact_summary": " \n "}, {"trigger": "auto", "compact_summary": nil}},
		},
		{
			name: "the last 20",
			payloads: func() []map[string]any {
				var p []map[string]any
				for i := range 22 {
					p = append(p, map[string]any{"trigger": "manual", "compact_summary": fmt.Sprintf("summary %d", i)})
				}
				return p
			}(),
			want: func() []map[string]string {
				var w []map[string]string
				for i := 2; i < 22; i++ {
					w = append(w, map[string]string{"trigger": "manual", "summary": fmt.Sprintf("summary %d", i)})
				}
				return w
			}(),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			s := w.session("sess-pc")
			s.prompt("Ship BILL-9.")
			s.reply("ok", 150000)
			w.run("PreCompact", s.payload("PreCompact", map[string]any{"trigger": "auto"}))
			s.boundary("auto", 150500, 9000) // SessionStart(compact) did not run
			for _, p := range tt.payloads {
				if out := w.run("PostCompact", s.payload("PostCompact", p)); out != "" {
					t.Fatalf("PostCompact answered %q", out)
				}
			}
			file := state.Store{Dir: w.stateDir()}.File(s.path) + ".summaries"
			data, err := os.ReadFile(file)
			switch {
			case tt.want == nil && !os.IsNotExist(err):
				t.Errorf("kept %q, %v; want nothing", data, err)
			case tt.want != nil && err != nil:
				t.Fatal(err)
			case tt.want != nil:
				var kept []map[string]string
				if err := json.Unmarshal(data, &kept); err != nil {
					t.Fatalf("%s: %v", data, err)
				}
				if len(kept) != len(tt.want) {
					t.Fatalf("kept %d summaries, want %d: %s", len(kept), len(tt.want), data)
				}
				for i, k := range kept {
					if k["trigger"] != tt.want[i]["trigger"] || !strings.HasPrefix(k["summary"], tt.want[i]["summary"]) || k["time"] != w.now.Format(time.RFC3339) {
						t.Errorf("summary %d: %v, want %v at %s", i, k, tt.want[i], w.now.Format(time.RFC3339))
					}
				}
				if strings.Contains(string(data), secret) {
					t.Errorf("the secret is kept: %s", data)
				}
			}
			if l := w.log(); l != "" {
				t.Errorf("log: %s", l)
			}
			if run, ok := LastRun(w.stateDir(), "PostCompact"); !ok || run.Err != "" {
				t.Errorf("run record %+v, %v", run, ok)
			}
			text := restored(t, w.run("UserPromptSubmit", s.payload("UserPromptSubmit", nil)))
			if !strings.Contains(text, "Restored working state") || !strings.Contains(text, "BILL-9") {
				t.Errorf("no restore at the prompt after PostCompact:\n%s", text)
			}
		})
	}
}
