package install

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/sqlite"
	"github.com/google/go-cmp/cmp"
)

// testSetup is a project, a user and a cairn in a temporary directory;
// out collects what install says, warnings included.
func testSetup(t *testing.T) (Setup, *bytes.Buffer) {
	t.Helper()
	dir := t.TempDir()
	var out bytes.Buffer
	s := Setup{
		Root:       filepath.Join(dir, "proj"),
		ConfigDir:  filepath.Join(dir, "home", ".claude"),
		UserConfig: filepath.Join(dir, "home", ".claude.json"),
		DataDir:    filepath.Join(dir, "data"),
		Exe:        filepath.Join(dir, "bin", "cairn"),
		Out:        &out,
	}
	for _, d := range []string{s.Root, filepath.Dir(s.UserConfig)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return s, &out
}

// files reads every file under dir, to compare before and after.
func files(t *testing.T, dir string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if d.IsDir() {
			m[rel+"/"] = ""
			return nil
		}
		b, err := os.ReadFile(p)
		m[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestInstallProjectMCP: install registers the server in the project's
// .mcp.json beside the team's servers, in the file's own layout, as cairn
// from PATH, and approves it in settings.local.json beside the user's
// approvals; uninstall gives both files back byte for byte.
func TestInstallProjectMCP(t *testing.T) {
	s, out := testSetup(t)
	mcp := filepath.Join(s.Root, ".mcp.json")
	local := filepath.Join(s.Root, ".claude", "settings.local.json")
	write(t, mcp, "{\r\n\t\"mcpServers\": {\r\n\t\t\"db\": {\"command\": \"/opt/db\", \"args\": []}\r\n\t}\r\n}")
	write(t, local, "{\n    \"enabledMcpjsonServers\": [\"db\"],\n    \"permissions\": {\"allow\": [\"Read\"]}\n}\n")
	before := files(t, s.Root)

	if err := s.Install(false, true); err != nil {
		t.Fatal(err)
	}
	if got, want := readString(t, mcp), "{\r\n\t\"mcpServers\": {\r\n\t\t\"db\": {\"command\": \"/opt/db\", \"args\": []},\r\n\t\t\"cairn\": {\r\n\t\t\t\"command\": \"cairn\",\r\n\t\t\t\"args\": [\r\n\t\t\t\t\"mcp\"\r\n\t\t\t]\r\n\t\t}\r\n\t}\r\n}"; got != want {
		t.Errorf(".mcp.json:\n%q\nwant\n%q", got, want)
	}
	if got := readString(t, local); !strings.Contains(got, `"enabledMcpjsonServers": ["db", "cairn"],`) {
		t.Errorf("settings.local.json does not approve cairn beside db:\n%s", got)
	}
	for _, want := range []string{"registered cairn's MCP server in " + mcp + ", the file teams commit: cairn mcp", "approved cairn's MCP server of .mcp.json in " + local} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("install did not say %q:\n%s", want, out)
		}
	}
	out.Reset()
	if err := s.Install(false, true); err != nil || !strings.Contains(out.String(), "nothing changed") {
		t.Errorf("second install: %v\n%s", err, out)
	}
	if err := s.Uninstall(false); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, files(t, s.Root)); diff != "" {
		t.Errorf("the project after install and uninstall (-before +after):\n%s", diff)
	}
}

// TestInstallNoMCP: --no-mcp wires the rest and leaves .mcp.json and the
// approvals alone; a later install without it adds them, and one
// uninstall takes everything out.
func TestInstallNoMCP(t *testing.T) {
	s, out := testSetup(t)
	if err := s.Install(false, false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(s.Root, ".mcp.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf(".mcp.json with --no-mcp: %v", err)
	}
	if got := readString(t, filepath.Join(s.Root, ".claude", "settings.local.json")); strings.Contains(got, "enabledMcpjsonServers") {
		t.Errorf("an approval with --no-mcp:\n%s", got)
	}
	if strings.Contains(out.String(), "MCP server") {
		t.Errorf("install with --no-mcp speaks of MCP:\n%s", out)
	}
	out.Reset()
	if err := s.Install(false, true); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "wired cairn into") || !strings.Contains(out.String(), "registered cairn's MCP server") {
		t.Errorf("install after --no-mcp says:\n%s", out)
	}
	if err := s.Uninstall(false); err != nil {
		t.Fatal(err)
	}
	if got := files(t, s.Root); len(got) != 1 {
		t.Errorf("left in the project: %v", got)
	}
}

// TestInstallServerTaken: a server of the user's named cairn is left
// alone, with a warning, and not approved in cairn's name; uninstall
// leaves it and the user's own approval of it.
func TestInstallServerTaken(t *testing.T) {
	s, out := testSetup(t)
	var warnings bytes.Buffer
	s.Err = &warnings
	mcp := filepath.Join(s.Root, ".mcp.json")
	theirs := `{"mcpServers": {"cairn": {"command": "npx", "args": ["-y", "cairn-notes-mcp"]}}}`
	write(t, mcp, theirs)
	if err := s.Install(false, true); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, mcp); got != theirs {
		t.Errorf("install changed someone else's server:\n%s", got)
	}
	if !strings.Contains(warnings.String(), "cairn: warning: "+mcp+" has an MCP server named cairn that is not cairn's: cairn left it alone") {
		t.Errorf("no warning: %q", warnings.String())
	}
	local := filepath.Join(s.Root, ".claude", "settings.local.json")
	if got := readString(t, local); strings.Contains(got, "enabledMcpjsonServers") {
		t.Errorf("approved someone else's server in cairn's name:\n%s", got)
	}
	// The user approves theirs; uninstall leaves that too.
	write(t, local, strings.Replace(readString(t, local), "{", `{"enabledMcpjsonServers": ["cairn"],`, 1))
	warnings.Reset()
	if err := s.Uninstall(false); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, mcp); got != theirs {
		t.Errorf("uninstall changed someone else's server:\n%s", got)
	}
	if got := readString(t, local); got != `{"enabledMcpjsonServers": ["cairn"]`+"\n}\n" {
		t.Errorf("settings.local.json after uninstall: %q", got)
	}
	if !strings.Contains(warnings.String(), "left the MCP server named cairn in "+mcp+" alone") {
		t.Errorf("uninstall did not warn: %q\n%s", warnings.String(), out)
	}
}

// TestInstallUserMCP: --user registers the server in ~/.claude.json, the
// client's own state, by this cairn's path; the rest of the file stays
// byte for byte, an older install's path is pointed here, and uninstall
// gives the file back as the client left it.
func TestInstallUserMCP(t *testing.T) {
	s, out := testSetup(t)
	state := "{\n  \"numStartups\": 4,\n  \"projects\": {\n    \"/w\": {\n      \"mcpServers\": {}\n    }\n  },\n  \"mcpServers\": {\n    \"x\": {\n      \"type\": \"stdio\",\n      \"command\": \"/bin/true\",\n      \"args\": [],\n      \"env\": {}\n    }\n  }\n}"
	write(t, s.UserConfig, state)
	if err := s.Install(true, true); err != nil {
		t.Fatal(err)
	}
	got := readString(t, s.UserConfig)
	want := strings.Replace(state, "      \"env\": {}\n    }\n", "      \"env\": {}\n    },\n    \"cairn\": {\n      \"command\": \""+s.Exe+"\",\n      \"args\": [\n        \"mcp\"\n      ]\n    }\n", 1)
	if got != want {
		t.Errorf("~/.claude.json:\n%s\nwant\n%s", got, want)
	}
	if !strings.Contains(out.String(), "registered cairn's MCP server in "+s.UserConfig+", for every project: "+s.Exe+" mcp") {
		t.Errorf("install said:\n%s", out)
	}
	if _, err := os.Stat(s.UserConfig + ".lock"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the lock stays: %v", err)
	}
	// The client bumps its counter meanwhile, and a cairn that moved
	// installs again.
	now := strings.Replace(got, `"numStartups": 4`, `"numStartups": 5`, 1)
	write(t, s.UserConfig, now)
	moved := s
	moved.Exe = filepath.Join(filepath.Dir(s.Exe), "new", "cairn")
	if err := moved.Install(true, true); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, s.UserConfig); got != strings.Replace(now, s.Exe, moved.Exe, 1) {
		t.Errorf("after the second install:\n%s", got)
	}
	out.Reset()
	if err := moved.Uninstall(true); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, s.UserConfig); got != strings.Replace(state, `"numStartups": 4`, `"numStartups": 5`, 1) {
		t.Errorf("after uninstall:\n%s", got)
	}
	if !strings.Contains(out.String(), "took cairn's MCP server out of "+s.UserConfig) {
		t.Errorf("uninstall said:\n%s", out)
	}
}

// TestInstallRefusesMalformed: a file cairn cannot edit is refused with
// where and why, before any file is changed.
func TestInstallRefusesMalformed(t *testing.T) {
	for _, tt := range []struct {
		name, file, content, want string
		user                      bool
	}{
		{"duplicate server", ".mcp.json", "{\"mcpServers\": {\n  \"a\": {},\n  \"a\": {}\n}}", `.mcp.json:3:3: duplicate key "a" (also at line 2, column 3)`, false},
		{"servers not an object", ".mcp.json", `{"mcpServers": []}`, `.mcp.json:1:16: "mcpServers" is an array, want an object whose keys are server names`, false},
		{"approvals not an array", ".claude/settings.local.json", `{"enabledMcpjsonServers": "cairn"}`, `settings.local.json:1:27: "enabledMcpjsonServers" is a string, want an array of server names`, false},
		{"client state cut short", "~/.claude.json", "{\"numStartups\": 1,\n\"mcpServers\": {", `.claude.json:2:16: unexpected end of file: the object opened at line 2, column 15 is not closed`, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := testSetup(t)
			path := filepath.Join(s.Root, tt.file)
			if tt.file == "~/.claude.json" {
				path = s.UserConfig
			}
			write(t, path, tt.content)
			root, home := files(t, s.Root), files(t, filepath.Dir(s.UserConfig))
			err := s.Install(tt.user, true)
			if err == nil || !errors.Is(err, ErrSettings) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want %q", err, tt.want)
			}
			if diff := cmp.Diff(root, files(t, s.Root)); diff != "" {
				t.Errorf("the project changed (-before +after):\n%s", diff)
			}
			if diff := cmp.Diff(home, files(t, filepath.Dir(s.UserConfig))); diff != "" {
				t.Errorf("the home changed (-before +after):\n%s", diff)
			}
		})
	}
}

// TestDoctorMCP: doctor says where the server is registered, whether an
// interactive client starts it without asking, and when cairn's plugin
// doubles install's wiring.
func TestDoctorMCP(t *testing.T) {
	s, _ := testSetup(t)
	d := Doctor{
		Setup: s, StateDir: filepath.Join(filepath.Dir(s.Root), "state"), Fallback: filepath.Join(filepath.Dir(s.Root), "tmp"),
		DBPath: filepath.Join(s.DataDir, "cairn.db"),
		DB:     func(context.Context) (*sqlite.DB, error) { return nil, errors.New("no database here") },
		Now:    time.Now, Loc: time.UTC,
	}
	texts := func(r Report) string {
		var b strings.Builder
		for _, f := range r.Findings {
			if f.Section == Wiring {
				b.WriteString(f.Status + ": " + f.Text + "\n")
			}
		}
		return b.String()
	}
	check := func(r Report, want ...string) {
		t.Helper()
		got := texts(r)
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("doctor lacks %q:\n%s", w, got)
			}
		}
	}
	mcp := filepath.Join(s.Root, ".mcp.json")
	local := filepath.Join(s.Root, ".claude", "settings.local.json")

	if err := s.Install(false, true); err != nil {
		t.Fatal(err)
	}
	r := d.Check(context.Background())
	check(r, "ok: "+mcp+": cairn's MCP server registered for this project: cairn mcp",
		"ok: cairn's MCP server of .mcp.json is approved in "+local,
		"info: "+s.UserConfig+": cairn's MCP server not registered")
	if want := []MCPServer{{"project", mcp, "cairn"}}; !cmp.Equal(r.MCPServers, want) {
		t.Errorf("MCPServers = %v, want %v", r.MCPServers, want)
	}

	// The user rejects it.
	write(t, filepath.Join(s.ConfigDir, "settings.json"), `{"disabledMcpjsonServers": ["cairn"]}`)
	check(d.Check(context.Background()), "problem: "+filepath.Join(s.ConfigDir, "settings.json")+" rejects cairn's MCP server")

	// The plugin too: the hooks run twice; the server of .mcp.json is the
	// plugin's own, which the client starts once.
	write(t, filepath.Join(s.ConfigDir, "settings.json"), `{"enabledPlugins": {"cairn@cairn": true}}`)
	r = d.Check(context.Background())
	check(r, "problem: cairn's plugin is enabled in "+filepath.Join(s.ConfigDir, "settings.json")+", and cairn is wired into "+local+" too: Claude Code runs every hook twice",
		"info: "+mcp+" runs the plugin's MCP server as it is (cairn mcp): Claude Code starts one of them")

	// With --user, by this cairn's path: that one is started twice.
	if err := s.Install(true, true); err != nil {
		t.Fatal(err)
	}
	r = d.Check(context.Background())
	check(r, "ok: "+s.UserConfig+": cairn's MCP server registered for every project: "+s.Exe+" mcp",
		"problem: cairn's plugin and "+s.UserConfig+" both register cairn's MCP server, with other commands (cairn and "+s.Exe+"): Claude Code starts it twice")

	// The plugin alone is a way to run cairn.
	if err := s.Uninstall(true); err != nil {
		t.Fatal(err)
	}
	if err := s.Uninstall(false); err != nil {
		t.Fatal(err)
	}
	r = d.Check(context.Background())
	check(r, "ok: cairn runs from its Claude Code plugin, enabled in "+filepath.Join(s.ConfigDir, "settings.json"),
		"info: "+mcp+": cairn's MCP server not registered")
	if strings.Contains(texts(r), "problem") {
		t.Errorf("problems with the plugin alone:\n%s", texts(r))
	}

	// Another program's server under the name, and an older cairn's in
	// ~/.claude.json.
	write(t, mcp, `{"mcpServers": {"cairn": {"command": "npx", "args": ["x"]}}}`)
	write(t, s.UserConfig, `{"mcpServers": {"cairn": {"command": "/old/cairn", "args": ["mcp"]}}}`)
	r = d.Check(context.Background())
	check(r, "note: "+mcp+": the MCP server named cairn there is not cairn's",
		"problem: "+s.UserConfig+": cairn's MCP server runs /old/cairn, not this cairn ("+s.Exe+")")
}

// TestUninstallLeavesTeamServer: a .mcp.json the team committed with
// cairn's server in it (a teammate ran install) is the project's: install
// here only approves the server, and uninstall takes the approval out and
// leaves the team's file as it is.
func TestUninstallLeavesTeamServer(t *testing.T) {
	s, out := testSetup(t)
	mcp := filepath.Join(s.Root, ".mcp.json")
	team := "{\n  \"mcpServers\": {\n    \"cairn\": {\n      \"command\": \"cairn\",\n      \"args\": [\n        \"mcp\"\n      ]\n    }\n  }\n}\n"
	write(t, mcp, team)
	before := files(t, s.Root)
	if err := s.Install(false, true); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, mcp); got != team {
		t.Errorf("install changed the team's .mcp.json:\n%s", got)
	}
	if !strings.Contains(out.String(), "approved cairn's MCP server of .mcp.json") || strings.Contains(out.String(), "registered cairn's MCP server") {
		t.Errorf("install said:\n%s", out)
	}
	out.Reset()
	if err := s.Uninstall(false); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, files(t, s.Root)); diff != "" {
		t.Errorf("the project after install and uninstall (-before +after):\n%s", diff)
	}
	if !strings.Contains(out.String(), "left cairn's MCP server in "+mcp+": no cairn install on this machine put it there") {
		t.Errorf("uninstall said:\n%s", out)
	}
}
