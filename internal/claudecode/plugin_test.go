package claudecode

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-agent/cairn/internal/golden"
)

// pluginDir is the plugin as the repository ships it, for a marketplace
// install; it must be what Plugin generates (go test -update rewrites it).
const pluginDir = "../../plugin"

func TestPluginFilesAreGenerated(t *testing.T) {
	files := Plugin(PluginVersion)
	for name, data := range files {
		golden.Check(t, filepath.Join(pluginDir, filepath.FromSlash(name)), data)
	}
	golden.Check(t, "../../.claude-plugin/marketplace.json", Marketplace("./plugin", PluginVersion))
	// No file in the shipped plugin that Plugin no longer makes.
	err := filepath.WalkDir(pluginDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(pluginDir, path)
		if _, ok := files[filepath.ToSlash(rel)]; !ok {
			if golden.Updating() {
				return os.Remove(path)
			}
			t.Errorf("%s is in the plugin but not generated (go test -update removes it)", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestPluginHooksMatchEvents(t *testing.T) {
	var hooks struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type    string `json:"type"`
				Command string `json:"command"`
				Timeout int    `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(Plugin("1")["hooks/hooks.json"], &hooks); err != nil {
		t.Fatal(err)
	}
	for _, e := range Events {
		groups := hooks.Hooks[e.Name]
		if len(groups) != 1 || len(groups[0].Hooks) != 1 {
			t.Fatalf("%s: %d groups, want one with one hook", e.Name, len(groups))
		}
		h := groups[0].Hooks[0]
		want := e.Env() + "cairn hook " + e.Name
		if h.Type != "command" || h.Command != want || h.Timeout != e.Timeout {
			t.Errorf("%s: %+v, want command %q timeout %d", e.Name, h, want, e.Timeout)
		}
	}
	if len(hooks.Hooks) != len(Events) {
		t.Errorf("%d events hooked, want %d", len(hooks.Hooks), len(Events))
	}
}

func TestPluginCommandsUnmarked(t *testing.T) {
	files := Plugin("1")
	var names []string
	for name, data := range files {
		if !strings.HasPrefix(name, "commands/") {
			continue
		}
		names = append(names, strings.TrimPrefix(name, "commands/"))
		if generated(data) {
			t.Errorf("%s keeps the project-install marker", name)
		}
		if !strings.HasPrefix(string(data), "---\n") {
			t.Errorf("%s lost its front matter", name)
		}
	}
	slices.Sort(names)
	want := sortedKeys(SlashCommands())
	if !slices.Equal(names, want) {
		t.Errorf("plugin commands %v, want %v", names, want)
	}
}
