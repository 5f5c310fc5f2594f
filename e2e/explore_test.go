package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExplore(t *testing.T) {
	if os.Getenv("EXPLORE") == "" {
		t.Skip()
	}
	sc := billingScenario("BILL-482")
	if os.Getenv("EXPLORE") == "manual" {
		sc = manualScenario("PAY-1193")
	}
	s := newProject(t, sc.Files)
	if os.Getenv("NOCAIRN") == "" {
		installCairn(t, s)
	}
	log := filepath.Join(filepath.Dir(s.ProjectDir), "hooks.log")
	hooks := map[string]any{}
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PreCompact", "PostCompact", "SessionEnd"} {
		cmd := `{ date +%T.%N; echo ` + ev + `; cat; echo; echo TAIL; tail -n 4 $(ls -t ` + s.ConfigDir + `/projects/*/*.jsonl | head -1) | jq -c '[.type,.subtype,.timestamp]' || true; } >> ` + log
		if ev == "SessionStart" && os.Getenv("DEBUGCTX") != "" {
			cmd = `p=$(cat); printf '%s\n' "$p" | { date +%T.%N; echo SessionStart; cat; echo; } >> ` + log + `; printf '%s' "$p" | jq -e '.source=="compact"' >/dev/null && echo '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"DEBUG-SESSIONSTART-COMPACT"}}'; true`
		}
		hooks[ev] = []any{map[string]any{"hooks": []any{map[string]any{"type": "command", "command": cmd}}}}
	}
	dbg, _ := json.Marshal(map[string]any{"hooks": hooks})
	os.MkdirAll(filepath.Join(s.ProjectDir, ".claude"), 0o755)
	os.WriteFile(filepath.Join(s.ProjectDir, ".claude", "settings.local.json"), dbg, 0o644)
	p := newPlay(t, sc, s)
	p.mustRun(t)
	o := p.outcome(t)
	t.Logf("present %v", o.Present)
	t.Logf("copies %d %d; debug ctx in first: %v", o.FirstCopies, o.SecondCopies, strings.Contains(o.FirstText, "DEBUG-SESSIONSTART-COMPACT"))
	t.Logf("restore (%d tokens):\n%s", restoreTokens(o.Restore), o.Restore)
	t.Logf("compaction last user:\n%s", tailString(lastUser(o.Compaction), 1500))
	out, err := runCairn(s, "doctor")
	t.Logf("doctor %v\n%s", err, out)
	os.RemoveAll("/tmp/explore-state")
	os.RemoveAll("/tmp/explore-config")
	os.CopyFS("/tmp/explore-state", os.DirFS(stateDir(s)))
	os.CopyFS("/tmp/explore-config", os.DirFS(s.ConfigDir))
	b, _ := os.ReadFile(log)
	os.WriteFile("/tmp/explore-hooks.log", b, 0o644)
}
