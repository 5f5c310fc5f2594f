package settings

import "strings"

// PluginEnabled says what data's "enabledPlugins" says of the plugin
// name, from whichever marketplace (its keys are "plugin@marketplace"):
// mentioned is false when it names the plugin nowhere, enabled true when
// it turns it on, which only the value true does (Claude Code 2.1.328
// reads a list of versions as off). Claude Code reads the settings files
// user < project < local: the last that mentions a plugin decides.
func PluginEnabled(data []byte, name string) (enabled, mentioned bool, err error) {
	root, err := parseDocument(data)
	if err != nil {
		return false, false, err
	}
	all := root.get("enabledPlugins")
	if all == nil || all.kind != object {
		return false, false, nil
	}
	for _, m := range all.members {
		if p, _, ok := strings.Cut(m.key, "@"); ok && p == name {
			mentioned = true
			if m.val.kind == scalar && string(m.val.raw) == "true" {
				enabled = true
			}
		}
	}
	return enabled, mentioned, nil
}

// MCPApproval says what a settings file says of starting the server name
// of a project's .mcp.json: approved when "enabledMcpjsonServers" names it
// or "enableAllProjectMcpServers" is true, rejected when
// "disabledMcpjsonServers" names it (which Claude Code reads first).
func MCPApproval(data []byte, name string) (approved, rejected bool, err error) {
	root, err := parseDocument(data)
	if err != nil {
		return false, false, err
	}
	names := func(key string) bool {
		arr := root.get(key)
		if arr == nil || arr.kind != array {
			return false
		}
		for _, e := range arr.elems {
			if s, ok := e.text(); ok && s == name {
				return true
			}
		}
		return false
	}
	all := root.get("enableAllProjectMcpServers")
	approved = names("enabledMcpjsonServers") || all != nil && string(all.raw) == "true"
	return approved, names("disabledMcpjsonServers"), nil
}
