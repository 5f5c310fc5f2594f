package install

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/golden"
	"github.com/cairn-agent/cairn/internal/sqlite"
)

// TestReportJSON: cairn doctor --json is this Report, whose field names
// cairn help doctor documents as stable: the golden file holds them.
func TestReportJSON(t *testing.T) {
	dir := t.TempDir()
	s := Setup{
		Root:       filepath.Join(dir, "proj"),
		ConfigDir:  filepath.Join(dir, "claude"),
		UserConfig: filepath.Join(dir, "home", ".claude.json"),
		DataDir:    filepath.Join(dir, "data"),
		Exe:        filepath.Join(dir, "bin", "cairn"),
		CodexHome:  filepath.Join(dir, "codex"),
		GeminiHome: filepath.Join(dir, "gemini", ".gemini"),
		Out:        io.Discard,
	}
	for _, d := range []string{s.Root, s.ConfigDir, s.DataDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	var db *sqlite.DB
	t.Cleanup(func() {
		if db != nil {
			db.Close()
		}
	})
	d := Doctor{
		Setup: s, StateDir: filepath.Join(dir, "state"), Fallback: filepath.Join(dir, "tmp"),
		DBPath: filepath.Join(s.DataDir, "cairn.db"),
		DB: func(ctx context.Context) (*sqlite.DB, error) {
			var err error
			if db == nil {
				db, err = sqlite.Open(ctx, filepath.Join(s.DataDir, "cairn.db"))
			}
			return db, err
		},
		Now: func() time.Time { return time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC) },
		Loc: time.UTC,
	}
	before := d.Check(ctx)
	if err := s.Install(false, true); err != nil {
		t.Fatal(err)
	}
	after := d.Check(ctx)
	if before.Problems == 0 || after.Problems != 0 {
		t.Errorf("problems: %d before install, %d after; want some, then none", before.Problems, after.Problems)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	for _, r := range []Report{before, after} {
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	golden.Check(t, "testdata/report.json", strings.ReplaceAll(b.String(), dir, "$DIR"))
}

// TestDoctorCodex: the doctor checks Codex CLI's wiring as it checks
// Claude Code's: hooks wired but not trusted, or in a project Codex does
// not trust, are problems with their fix; trusted, they are not.
func TestDoctorCodex(t *testing.T) {
	dir := t.TempDir()
	s := Setup{
		Root: filepath.Join(dir, "proj"), ConfigDir: filepath.Join(dir, "claude"), UserConfig: filepath.Join(dir, "home", ".claude.json"),
		DataDir: filepath.Join(dir, "data"), Exe: filepath.Join(dir, "bin", "cairn"), CodexHome: filepath.Join(dir, "codex"), Out: io.Discard,
	}
	for _, d := range []string{s.Root, s.ConfigDir, s.DataDir, s.CodexHome} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	d := Doctor{Setup: s, StateDir: filepath.Join(dir, "state"), Fallback: filepath.Join(dir, "tmp"), DBPath: filepath.Join(dir, "data", "cairn.db"),
		DB:  func(ctx context.Context) (*sqlite.DB, error) { return nil, os.ErrNotExist },
		Now: func() time.Time { return time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC) }, Loc: time.UTC}
	codexFindings := func(r Report) (problems, oks []string) {
		for _, f := range r.Findings {
			if f.Agent != "codex" {
				continue
			}
			switch f.Status {
			case Problem:
				problems = append(problems, f.Text+" | fix: "+f.Fix)
			case OK:
				oks = append(oks, f.Text)
			}
		}
		return problems, oks
	}
	hooksJSON := filepath.Join(s.Root, ".codex", "hooks.json")
	config := filepath.Join(s.CodexHome, "config.toml")
	steps := []struct {
		name         string
		do           func() error
		wantProblems []string
		wantOK       []string
	}{
		{"nothing wired", func() error { return nil }, nil, nil},
		{"wired, not trusted", func() error { return s.InstallCodex(false, false) },
			[]string{hooksJSON + ": 6 of cairn's 6 hooks are not trusted in " + config + " (session_start, user_prompt_submit, post_tool_use, pre_compact, post_compact, session_end)",
				config + " does not trust " + s.Root + ": Codex does not read " + hooksJSON},
			[]string{hooksJSON + ": wired to " + s.Exe + " for 6 events, for this project"}},
		{"hooks trusted", func() error { return s.InstallCodex(false, true) },
			[]string{config + " does not trust " + s.Root},
			[]string{hooksJSON + ": cairn's hooks are trusted in " + config}},
		{"project trusted", func() error {
			f, err := os.OpenFile(config, os.O_APPEND|os.O_WRONLY, 0o600)
			if err != nil {
				return err
			}
			defer f.Close()
			_, err = f.WriteString("\n[projects." + strconv.Quote(s.Root) + "]\ntrust_level = \"trusted\"\n")
			return err
		}, nil, []string{config + " trusts " + s.Root + ": Codex reads " + hooksJSON}},
	}
	for _, st := range steps {
		t.Run(st.name, func(t *testing.T) {
			if err := st.do(); err != nil {
				t.Fatal(err)
			}
			r := d.Check(context.Background())
			problems, oks := codexFindings(r)
			if len(problems) != len(st.wantProblems) {
				t.Errorf("problems:\n%s\nwant %d", strings.Join(problems, "\n"), len(st.wantProblems))
			}
			for _, w := range st.wantProblems {
				if !slices.ContainsFunc(problems, func(p string) bool { return strings.HasPrefix(p, w) }) {
					t.Errorf("no problem %q in\n%s", w, strings.Join(problems, "\n"))
				}
			}
			for _, w := range st.wantOK {
				if !slices.Contains(oks, w) {
					t.Errorf("no ok %q in\n%s", w, strings.Join(oks, "\n"))
				}
			}
			// Codex wired is cairn wired: Claude Code's absence is no
			// problem then.
			wiredNowhere := slices.ContainsFunc(r.Findings, func(f Finding) bool { return f.Text == "cairn is wired into no client" })
			if wiredNowhere != (st.name == "nothing wired") {
				t.Errorf("\"wired into no client\" reported: %v", wiredNowhere)
			}
			var codexHooks int
			for _, h := range r.Hooks {
				if h.Agent == "codex" {
					codexHooks++
				}
			}
			if codexHooks != 6 {
				t.Errorf("%d Codex hook runs reported, want 6", codexHooks)
			}
		})
	}
}

// TestDoctorGemini: the doctor sees cairn's hooks in Gemini CLI's
// settings.json once install --agent gemini wired them, and still when
// the user has since put comments in the file (Gemini CLI reads them).
func TestDoctorGemini(t *testing.T) {
	dir := t.TempDir()
	s := Setup{Root: filepath.Join(dir, "proj"), ConfigDir: filepath.Join(dir, "claude"), DataDir: filepath.Join(dir, "data"),
		Exe: filepath.Join(dir, "bin", "cairn"), GeminiHome: filepath.Join(dir, "home", ".gemini"), Out: io.Discard}
	os.MkdirAll(s.Root, 0o755)
	d := Doctor{Setup: s, StateDir: filepath.Join(dir, "state"), Fallback: filepath.Join(dir, "tmp"), DBPath: filepath.Join(dir, "data", "cairn.db"),
		DB:  func(ctx context.Context) (*sqlite.DB, error) { return nil, os.ErrNotExist },
		Now: func() time.Time { return time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC) }, Loc: time.UTC}
	findings := func(status string) []string {
		var out []string
		for _, f := range d.Check(context.Background()).Findings {
			if f.Agent == "gemini" && f.Section == Wiring && f.Status == status {
				out = append(out, f.Text)
			}
		}
		return out
	}
	if ok := findings(OK); len(ok) != 0 {
		t.Errorf("wired before install: %q", ok)
	}
	if err := s.InstallGemini(false); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(s.Root, ".gemini", "settings.json")
	if ok := findings(OK); len(ok) != 1 || !strings.Contains(ok[0], path+": wired to "+s.Exe+" for 4 events") {
		t.Errorf("after install: %q, problems %q", ok, findings(Problem))
	}
	data, _ := os.ReadFile(path)
	os.WriteFile(path, append([]byte("// mine\n"), data...), 0o600)
	if ok := findings(OK); len(ok) != 1 {
		t.Errorf("with a comment: %q, problems %q", ok, findings(Problem))
	}
	os.WriteFile(path, []byte(strings.Replace(string(data), `"timeout": 60000`, `"timeout": 60`, 1)), 0o600)
	if p := findings(Problem); len(p) != 1 || !strings.Contains(p[0], "not with its timeouts") {
		t.Errorf("a timeout in seconds: %q", p)
	}
	os.WriteFile(path, []byte(`{"hooks": {"SessionStart": [`), 0o600)
	if p := findings(Problem); len(p) != 1 || !strings.Contains(p[0], path) {
		t.Errorf("a half-written file: %q", p)
	}
	os.WriteFile(path, []byte(`{"theme": "dark"}`), 0o600)
	if p, ok := findings(Problem), findings(OK); len(p) != 0 || len(ok) != 0 {
		t.Errorf("cairn not wired: problems %q, ok %q", p, ok)
	}
}
