package claudecode

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"
)

// PluginName is the plugin's name, and so the prefix of its slash commands
// (/cairn:handoff).
const PluginName = "cairn"

// MCPServerName is the name cairn's MCP server is registered under, in a
// project's .mcp.json and in the plugin: its tools reach the model as
// mcp__cairn__<tool>.
const MCPServerName = "cairn"

// MCPServer is the MCP server entry: cairn found on PATH, as the hooks of
// the plugin and the slash commands call it, so that the files hold
// nothing of one machine.
func MCPServer() map[string]any {
	return map[string]any{"command": Program, "args": MCPArgs()}
}

// MCPArgs are the arguments that make cairn the MCP server.
func MCPArgs() []string { return []string{"mcp"} }

// Plugin returns the files of cairn's Claude Code plugin, by path relative
// to the plugin's root: the manifest, the hooks (every event of Events, with
// its installed timeout), the slash commands and the MCP server. A
// marketplace install gets what `cairn install` wires into a project, with
// cairn called from PATH. version is the plugin's version.
func Plugin(version string) map[string][]byte {
	files := map[string][]byte{
		".claude-plugin/plugin.json": pluginJSON(map[string]any{
			"name":        PluginName,
			"version":     version,
			"description": "Keeps the agent's working state through context compaction: measures the context, steers the summary, restores the state once after it, and serves past sessions' memory over MCP.",
			"author":      map[string]any{"name": "cairn"},
			"homepage":    "https://github.com/cairn-agent/cairn",
			"repository":  "https://github.com/cairn-agent/cairn",
			"license":     "MIT",
			"keywords":    []string{"context", "compaction", "memory", "checkpoint", "handoff"},
			// cairn reaches no host: its hooks, commands and server read
			// and write local files only.
			"network": map[string]any{"hosts": []string{}},
		}),
		"hooks/hooks.json": pluginJSON(map[string]any{"hooks": pluginHooks()}),
		".mcp.json":        pluginJSON(map[string]any{"mcpServers": map[string]any{MCPServerName: MCPServer()}}),
	}
	cmds := SlashCommands()
	for _, name := range slices.Sorted(maps.Keys(cmds)) {
		files["commands/"+name] = []byte(withoutMarker(cmds[name]))
	}
	return files
}

// pluginHooks is the hooks file's "hooks" object: one command hook per
// event. Only SessionStart is matched; the others take every source.
func pluginHooks() map[string]any {
	hooks := map[string]any{}
	for _, e := range Events {
		hooks[e.Name] = []any{map[string]any{
			"hooks": []any{map[string]any{
				"type":    "command",
				"command": e.Env() + Program + " hook " + e.Name,
				"timeout": e.Timeout,
			}},
		}}
	}
	return hooks
}

// withoutMarker drops the line that marks a command file as cairn's in a
// project: a plugin's files are the plugin's, and uninstalling the plugin
// removes them.
func withoutMarker(s string) string {
	var b strings.Builder
	for line := range strings.Lines(s) {
		if strings.HasPrefix(line, marker) {
			continue
		}
		b.WriteString(line)
	}
	return b.String()
}

// pluginJSON renders v as the plugin's files are written: two-space indent,
// keys sorted, a final newline.
func pluginJSON(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		panic("claudecode: plugin file: " + err.Error()) // only maps, strings and ints: cannot fail
	}
	return b.Bytes()
}

// Marketplace is the marketplace manifest that lists the plugin at
// source (a path relative to the marketplace's root), so that
// `/plugin marketplace add` on the repository offers it.
func Marketplace(source, version string) []byte {
	return pluginJSON(map[string]any{
		"name":        "cairn",
		"owner":       map[string]any{"name": "cairn"},
		"description": "cairn, the Claude Code plugin that keeps an agent's working state through context compaction.",
		"plugins": []any{map[string]any{
			"name":        PluginName,
			"source":      source,
			"version":     version,
			"description": "Working state kept through context compaction, and memory across sessions.",
		}},
	})
}

// PluginVersion is the version of the plugin the repository ships. Raise
// it with a change to the plugin's files: Claude Code updates an installed
// plugin only when its version changes.
const PluginVersion = "0.2.1"
