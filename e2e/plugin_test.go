package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/e2e/claudecode"
	"github.com/cairn-agent/cairn/e2e/fakeapi"
)

// repoRoot is the repository's top directory: the marketplace is there and
// the plugin in plugin/.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestPluginValidates checks the plugin and the marketplace the repository
// ships with the pinned client's own validator, warnings counted as errors.
func TestPluginValidates(t *testing.T) {
	t.Parallel()
	bin := claudecode.Require(t)
	s := claudecode.NewSession(t, bin, "")
	for _, dir := range []string{filepath.Join(repoRoot(t), "plugin"), repoRoot(t)} {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		cmd := exec.CommandContext(ctx, bin, "plugin", "validate", "--strict", dir)
		cmd.Env = s.Environ()
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Errorf("claude plugin validate --strict %s: %v\n%s", dir, err, out)
		} else if !strings.Contains(string(out), "Validation passed") {
			t.Errorf("claude plugin validate --strict %s said:\n%s", dir, out)
		}
	}
}

// TestPluginRunsHooks loads the shipped plugin for a session with cairn on
// PATH, as a marketplace install leaves it, and checks that the client ran
// cairn's hooks from it: each records its run in cairn's state directory.
func TestPluginRunsHooks(t *testing.T) {
	t.Parallel()
	if built.err != nil {
		t.Fatal(built.err)
	}
	fake := fakeapi.New(fakeapi.Options{})
	defer fake.Close()
	s := newProject(t, nil)
	s.BaseURL = fake.URL
	s.Env = append(s.Env, "PATH="+filepath.Dir(built.bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	s.Args = []string{"--plugin-dir", filepath.Join(repoRoot(t), "plugin")}
	fake.Enqueue(fakeapi.Reply{Text: "hello", Usage: fakeapi.Usage{InputTokens: 1200, OutputTokens: 5}})
	s.MustTurn(t, "say hello")

	hooks := filepath.Join(stateDir(s), "hooks")
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "Stop"} {
		if _, err := os.Stat(filepath.Join(hooks, ev)); err != nil {
			t.Errorf("the plugin's %s hook did not run cairn: %v", ev, err)
		}
		if data, err := os.ReadFile(filepath.Join(hooks, ev+".error")); err == nil {
			t.Errorf("the plugin's %s hook failed: %s", ev, data)
		}
	}
	out, err := runCairn(s, "status", "--session", s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "1,2") {
		t.Errorf("cairn status after a plugin session does not show its 1,205 tokens:\n%s", out)
	}
}

// TestInstallMCPWithPlugin: a user with cairn's plugin who also ran cairn
// install. Claude Code 2.1.328 drops a plugin's MCP server when a
// configured one runs the same command with the same arguments: the
// server of the project's .mcp.json is the plugin's own entry (cairn from
// PATH), so the model gets cairn's tools once, under the configured name.
// The one install --user registers runs this cairn by its path, which the
// client takes for another server: the tools come twice, as cairn doctor
// says.
func TestInstallMCPWithPlugin(t *testing.T) {
	t.Parallel()
	for _, user := range []bool{false, true} {
		name := map[bool]string{false: "project", true: "user"}[user]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if built.err != nil {
				t.Fatal(built.err)
			}
			fake := fakeapi.New(fakeapi.Options{})
			t.Cleanup(fake.Close)
			s := newProject(t, nil)
			s.BaseURL = fake.URL
			s.Env = append(s.Env, "PATH="+filepath.Dir(built.bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
			s.Args = []string{"--plugin-dir", filepath.Join(repoRoot(t), "plugin")}
			if user {
				installCairnUser(t, s)
			} else {
				installCairnWith(t, s)
			}
			fake.Enqueue(fakeapi.Reply{Text: "hello", Usage: fakeapi.Usage{InputTokens: 1200, OutputTokens: 5}})
			s.MustTurn(t, "say hello")
			reqs := fake.OfKind(fakeapi.Main)
			if len(reqs) == 0 {
				t.Fatal("no request")
			}
			body := requestJSON(reqs[0])
			configured, plugin := len(cairnTools(reqs[0])), len(regexp.MustCompile(`mcp__plugin_cairn_cairn__[a-z_]+`).FindAllString(body, -1))
			t.Logf("tools named mcp__cairn__: %d, mcp__plugin_cairn_cairn__: %d", configured, plugin)
			if configured == 0 {
				t.Errorf("the configured server's tools are not listed")
			}
			if doubled := plugin > 0; doubled != user {
				t.Errorf("with install's server in %s, the plugin's server started too: %v, want %v", name, doubled, user)
			}
			// Doctor knows a plugin enabled in the settings, as a
			// marketplace install leaves it (not --plugin-dir).
			enablePlugin(t, s)
			// It exits 1: the hooks run twice, the plugin's and install's.
			_, err := runCairn(s, "doctor")
			if err == nil {
				t.Fatal("cairn doctor finds no problem with the plugin and install's wiring both")
			}
			for _, want := range []string{"Claude Code runs every hook twice", map[bool]string{false: "runs the plugin's MCP server as it is", true: "Claude Code starts it twice"}[user]} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("cairn doctor does not say %q:\n%v", want, err)
				}
			}
		})
	}
}

// installCairnUser runs `cairn install --user` for the session's config
// directory.
func installCairnUser(t *testing.T, s *claudecode.Session) {
	t.Helper()
	if out, err := runCairn(s, "install", "--user"); err != nil {
		t.Fatal(err)
	} else if _, err := os.Stat(filepath.Join(s.ConfigDir, ".claude.json")); err != nil {
		t.Fatalf("cairn install --user wrote no .claude.json: %v\n%s", err, out)
	}
}

// enablePlugin enables cairn's plugin in the user's settings, as
// `/plugin install cairn@cairn` does.
func enablePlugin(t *testing.T, s *claudecode.Session) {
	t.Helper()
	path := filepath.Join(s.ConfigDir, "settings.json")
	v := map[string]any{}
	if data, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatal(err)
		}
	}
	v["enabledPlugins"] = map[string]any{"cairn@cairn": true}
	data, _ := json.MarshalIndent(v, "", "  ")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
