package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
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
