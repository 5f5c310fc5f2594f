package claudecode

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestProjectKey(t *testing.T) {
	tests := map[string]string{
		"/home/user/proj":         "-home-user-proj",
		"/home/u/my_app.v2":       "-home-u-my-app-v2",
		"/tmp/Täst dir":           "-tmp-T-st-dir",
		"/tmp/😀":                  "-tmp---",
		"/home/USER/projects/x-y": "-home-USER-projects-x-y",
	}
	for in, want := range tests {
		if got := ProjectKey(in); got != want {
			t.Errorf("ProjectKey(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestProjectDirWalksUp(t *testing.T) {
	cfg := t.TempDir()
	root := filepath.Join(cfg, "projects", ProjectKey("/work/repo"))
	os.MkdirAll(root, 0o755)
	if got, dir, ok := ProjectDir(cfg, "/work/repo/internal/pkg"); !ok || got != root || dir != "/work/repo" {
		t.Errorf("from a subdirectory: %q %q %v", got, dir, ok)
	}
	if got, dir, ok := ProjectDir(cfg, "/elsewhere"); ok || got != filepath.Join(cfg, "projects", "-elsewhere") || dir != "/elsewhere" {
		t.Errorf("no project: %q %q %v", got, dir, ok)
	}
}

func TestProjectDirLongPath(t *testing.T) {
	cfg := t.TempDir()
	long := "/work/" + strings.Repeat("very-long-directory-name/", 10)
	key := ProjectKey(long)
	dir := filepath.Join(cfg, "projects", key[:maxKey]+"-1a2b3c")
	os.MkdirAll(dir, 0o755)
	if got, _, ok := ProjectDir(cfg, long); !ok || got != dir {
		t.Errorf("long path: %q %v, want %q", got, ok, dir)
	}
}

func TestSessionsAndFind(t *testing.T) {
	cfg := t.TempDir()
	a := filepath.Join(cfg, "projects", "-a")
	b := filepath.Join(cfg, "projects", "-b")
	os.MkdirAll(a, 0o755)
	os.MkdirAll(b, 0o755)
	now := time.Now()
	write := func(dir, id string, age time.Duration) {
		p := filepath.Join(dir, id+".jsonl")
		os.WriteFile(p, []byte("{}\n"), 0o644)
		os.Chtimes(p, now.Add(-age), now.Add(-age))
	}
	write(a, "1111-old", 2*time.Hour)
	write(a, "1112-new", time.Minute)
	write(b, "2222-other", time.Second)
	os.MkdirAll(filepath.Join(a, "1111-old", "subagents"), 0o755)
	os.WriteFile(filepath.Join(a, "notes.txt"), nil, 0o644)

	ss, err := Sessions(a)
	if err != nil || len(ss) != 2 || ss[0].ID != "1112-new" || ss[1].ID != "1111-old" {
		t.Fatalf("Sessions = %+v, %v", ss, err)
	}
	if s, err := FindSession(cfg, a, "1111-old"); err != nil || s.ID != "1111-old" {
		t.Errorf("exact: %+v %v", s, err)
	}
	if _, err := FindSession(cfg, a, "111"); !errors.Is(err, ErrAmbiguous) {
		t.Errorf("ambiguous prefix: %v", err)
	}
	if s, err := FindSession(cfg, a, "2222"); err != nil || s.ID != "2222-other" {
		t.Errorf("other project: %+v %v", s, err)
	}
	for _, bad := range []string{"", "../x", "nope"} {
		if _, err := FindSession(cfg, a, bad); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("FindSession(%q) = %v", bad, err)
		}
	}
}

func TestConfigDir(t *testing.T) {
	get := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if d, _ := ConfigDir(get(map[string]string{"CLAUDE_CONFIG_DIR": "/c", "HOME": "/h"})); d != "/c" {
		t.Errorf("got %s", d)
	}
	if d, _ := ConfigDir(get(map[string]string{"HOME": "/h"})); d != "/h/.claude" {
		t.Errorf("got %s", d)
	}
	if _, err := ConfigDir(get(nil)); err == nil {
		t.Error("no error without HOME")
	}
}

// TestUserConfig: where `claude mcp add --scope user` writes (probed with
// 2.1.328): beside the configuration directory when CLAUDE_CONFIG_DIR
// names one, else in the home directory, not in ~/.claude.
func TestUserConfig(t *testing.T) {
	for _, tt := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"HOME": "/home/u"}, "/home/u/.claude.json"},
		{map[string]string{"HOME": "/home/u", "CLAUDE_CONFIG_DIR": "/cfg"}, "/cfg/.claude.json"},
		{map[string]string{}, ""},
	} {
		got, err := UserConfig(func(k string) string { return tt.env[k] })
		if got != tt.want || (err != nil) != (tt.want == "") {
			t.Errorf("UserConfig(%v) = %q, %v; want %q", tt.env, got, err, tt.want)
		}
	}
}
