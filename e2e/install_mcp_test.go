//go:build unix

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cairn-agent/cairn/e2e/fakeapi"
)

// connectedRe is cairn's server in the list /mcp shows, connected.
var connectedRe = regexp.MustCompile(`✔ cairn\b`)

// askRe is the dialog an interactive client opens before it starts a
// server of a project's .mcp.json that no settings file approves.
var askRe = regexp.MustCompile(`New MCP server found in this project: cairn`)

// TestInstallMCPInteractive is what install's approval is for: an
// interactive client asks before it starts a server of the project's
// .mcp.json, unless a settings file approves it by name. After cairn
// install it starts cairn's at once, and /mcp lists it connected; with
// the approval taken out of settings.local.json it asks (which shows the
// check can fail).
func TestInstallMCPInteractive(t *testing.T) {
	t.Parallel()
	for _, approved := range []bool{true, false} {
		name := map[bool]string{true: "approved", false: "approval taken out"}[approved]
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tmux := requireTmux(t)
			s := newProject(t, nil)
			s.Env = append(s.Env, "PATH="+filepath.Dir(built.bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
			installCairnWith(t, s)
			if !approved {
				unapprove(t, filepath.Join(s.ProjectDir, ".claude", "settings.local.json"))
			}
			fake := fakeapi.New(fakeapi.Options{})
			t.Cleanup(fake.Close)
			s.BaseURL = fake.URL
			trustProject(t, s)

			pane := startTmux(t, tmux, s.ProjectDir, s.Environ(), paneWidth, paneHeight, exitClient, s.Bin)
			screen, err := pane.WaitScreen(startTimeout, "the client's prompt, or its question about the server", func(sc string) bool {
				return askRe.MatchString(sc) || strings.Contains(sc, "❯") && unknownRe.MatchString(sc)
			})
			if err != nil {
				t.Fatalf("%v\nscreen:\n%s", err, screen)
			}
			if asked := askRe.MatchString(screen); asked == approved {
				t.Fatalf("approved %v, the client asked about cairn's server: %v\nscreen:\n%s", approved, asked, screen)
			}
			if !approved {
				return
			}
			if err := pane.Type("/mcp"); err != nil {
				t.Fatal(err)
			}
			if screen, err := pane.WaitScreen(stepTimeout, "/mcp typed", func(sc string) bool { return inputLine(sc) == "/mcp" }); err != nil {
				t.Fatalf("%v\nscreen:\n%s", err, screen)
			}
			if err := pane.Keys("Enter"); err != nil {
				t.Fatal(err)
			}
			screen, err = pane.WaitScreen(stepTimeout, "cairn's server connected in /mcp", connectedRe.MatchString)
			if err != nil {
				t.Fatalf("%v\nscreen:\n%s", err, screen)
			}
			t.Logf("/mcp:\n%s", screen)
			pane.Keys("Escape")
		})
	}
}

// unapprove takes every approval out of a settings file, as a user who
// never ran cairn install would have it.
func unapprove(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	if _, ok := v["enabledMcpjsonServers"]; !ok {
		t.Fatalf("cairn install approved nothing in %s:\n%s", path, data)
	}
	delete(v, "enabledMcpjsonServers")
	out, _ := json.MarshalIndent(v, "", "  ")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
}
