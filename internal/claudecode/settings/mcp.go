package settings

import (
	"fmt"
	"io/fs"
	"slices"
)

// cairn's MCP server. Claude Code reads stdio MCP servers by name from an
// "mcpServers" object,
//
//	"mcpServers": {"cairn": {"command": "cairn", "args": ["mcp"]}}
//
// in a project's .mcp.json (project scope: a file teams commit) and at the
// top level of ~/.claude.json (user scope: the client's own state, which
// it rewrites whole under a lock, see Lock). The servers of a project's
// .mcp.json run in an interactive session once the user approved them, in
// a dialog or by naming them in "enabledMcpjsonServers" in a settings
// file; Claude Code 2.1.328 takes that from settings.local.json too
// (probed), and asks nothing in headless (-p) runs.
//
// The name is the user's as much as cairn's: an entry under it that
// MCPServer.Ours does not recognise is someone else's server. Install and
// Uninstall leave it alone, and Server tells the caller, who tells the
// user. Of the file only "mcpServers" and that entry are read; the rest
// (other servers, the client's state) is copied byte for byte, whatever
// it holds.

// MCPServer is the stdio MCP server a Wiring registers.
type MCPServer struct {
	// Name is its key in "mcpServers".
	Name    string
	Command string
	Args    []string
	// Ours recognises cairn's server by its command and arguments,
	// whatever binary it runs.
	Ours func(command string, args []string) bool
	// Current says whether a server of cairn's already there does the
	// job, so that Install leaves it alone; nil accepts Command alone.
	// One it does not is pointed at Command, the rest of its entry kept.
	Current func(command string) bool
	// FileMode is the mode of a file Install creates for it: 0600 for
	// ~/.claude.json, which holds the user's account; 0 is 0644.
	FileMode fs.FileMode
}

// ServerState is what a document has under the server's name.
type ServerState uint8

const (
	NoServer    ServerState = iota // nothing
	OurServer                      // cairn's server
	OtherServer                    // someone else's server, which cairn leaves alone
)

// Server is what data has under w.MCP's name in "mcpServers", and for
// cairn's server the command it runs.
func (w Wiring) Server(data []byte) (ServerState, string, error) {
	root, err := w.load(data)
	if err != nil {
		return NoServer, "", err
	}
	_, st, cmd := w.entry(root)
	return st, cmd, nil
}

// Approved reports whether data's "enabledMcpjsonServers" approves
// w.Approve.
func (w Wiring) Approved(data []byte) (bool, error) {
	root, err := w.load(data)
	if err != nil {
		return false, err
	}
	return w.approved(root), nil
}

func (w Wiring) server(root *node) ServerState {
	_, st, _ := w.entry(root)
	return st
}

// entry finds the server under w.MCP's name.
func (w Wiring) entry(root *node) (*node, ServerState, string) {
	if w.MCP == nil {
		return nil, NoServer, ""
	}
	e := root.get("mcpServers").get(w.MCP.Name)
	if e == nil {
		return nil, NoServer, ""
	}
	cmd, args, ok := stdio(e)
	if !ok || !w.MCP.Ours(cmd, args) {
		return e, OtherServer, ""
	}
	return e, OurServer, cmd
}

// stdio reads a stdio server's entry: an object whose "type", if any, is
// "stdio", with a string "command" and an array of strings "args", if
// any. ok is false for anything else.
func stdio(e *node) (cmd string, args []string, ok bool) {
	if e.kind != object {
		return "", nil, false
	}
	if t := e.get("type"); t != nil {
		if s, ok := t.text(); !ok || s != "stdio" {
			return "", nil, false
		}
	}
	if cmd, ok = command(e); !ok {
		return "", nil, false
	}
	if a := e.get("args"); a != nil {
		if a.kind != array {
			return "", nil, false
		}
		for _, el := range a.elems {
			s, ok := el.text()
			if !ok {
				return "", nil, false
			}
			args = append(args, s)
		}
	}
	return cmd, args, true
}

func (w Wiring) currentServer(cmd string) bool {
	if w.MCP.Current != nil {
		return w.MCP.Current(cmd)
	}
	return cmd == w.MCP.Command
}

// installServer puts cairn's server under its name, unless someone
// else's is there.
func (w Wiring) installServer(root *node) bool {
	e, st, cmd := w.entry(root)
	switch {
	case st == OtherServer:
		return false
	case st == OurServer && w.currentServer(cmd):
		return false
	case st == OurServer:
		e.set("command", stringNode(w.MCP.Command))
		return true
	}
	all := root.get("mcpServers")
	if all == nil {
		all = objectNode()
		root.set("mcpServers", all)
	}
	e = objectNode()
	e.set("command", stringNode(w.MCP.Command))
	args := arrayNode()
	for _, a := range w.MCP.Args {
		args.elems = append(args.elems, stringNode(a))
	}
	e.set("args", args)
	all.set(w.MCP.Name, e)
	return true
}

// uninstallServer takes cairn's server out. "mcpServers" goes with it
// when that empties it, unless it was in before, where it stays with the
// white space it held.
func (w Wiring) uninstallServer(root, b *node, before []byte) bool {
	if w.server(root) != OurServer {
		return false
	}
	all := root.get("mcpServers")
	all.remove(w.MCP.Name)
	if len(all.members) == 0 {
		if ball := b.get("mcpServers"); ball != nil {
			all.emptyInner = inner(before, ball)
		} else {
			root.remove("mcpServers")
		}
	}
	return true
}

func (w Wiring) approved(root *node) bool {
	if w.Approve == "" {
		return false
	}
	arr := root.get("enabledMcpjsonServers")
	if arr == nil || arr.kind != array {
		return false
	}
	return slices.ContainsFunc(arr.elems, func(e *node) bool {
		s, ok := e.text()
		return ok && s == w.Approve
	})
}

// installApproval adds w.Approve to "enabledMcpjsonServers".
func (w Wiring) installApproval(root *node) bool {
	if w.approved(root) {
		return false
	}
	arr := root.get("enabledMcpjsonServers")
	if arr == nil {
		arr = arrayNode()
		root.set("enabledMcpjsonServers", arr)
	}
	arr.elems = append(arr.elems, stringNode(w.Approve))
	return true
}

// uninstallApproval takes w.Approve out of "enabledMcpjsonServers",
// unless it was there before: then it is the user's own. The array goes
// when that empties it, unless it was in before.
func (w Wiring) uninstallApproval(root, b *node, before []byte) bool {
	if !w.approved(root) || b != nil && w.approved(b) {
		return false
	}
	arr := root.get("enabledMcpjsonServers")
	arr.elems = slices.DeleteFunc(arr.elems, func(e *node) bool {
		s, ok := e.text()
		return ok && s == w.Approve
	})
	if len(arr.elems) == 0 {
		if barr := b.get("enabledMcpjsonServers"); barr != nil {
			arr.emptyInner = inner(before, barr)
		} else {
			root.remove("enabledMcpjsonServers")
		}
	}
	return true
}

// checkServers refuses an "mcpServers" cairn could not add its server to.
func checkServers(data []byte, root *node) error {
	if all := root.get("mcpServers"); all != nil && all.kind != object {
		return errorAt(data, all.off, fmt.Sprintf(`"mcpServers" is %s, want an object whose keys are server names`, describe(all)))
	}
	return nil
}

// checkApprovals refuses an "enabledMcpjsonServers" that is not the
// array of names Claude Code reads.
func checkApprovals(data []byte, root *node) error {
	arr := root.get("enabledMcpjsonServers")
	if arr == nil {
		return nil
	}
	if arr.kind != array {
		return errorAt(data, arr.off, fmt.Sprintf(`"enabledMcpjsonServers" is %s, want an array of server names`, describe(arr)))
	}
	for i, e := range arr.elems {
		if _, ok := e.text(); !ok {
			return errorAt(data, e.off, fmt.Sprintf("enabledMcpjsonServers[%d] is %s, want a server name", i, describe(e)))
		}
	}
	return nil
}

// serverOnly reports whether w registers the MCP server and does nothing
// else: a wiring for .mcp.json or ~/.claude.json.
func (w Wiring) serverOnly() bool {
	return w.MCP != nil && len(w.Hooks) == 0 && w.IsOurs == nil && w.StatusLine == "" && w.StatusOurs == nil && w.Approve == ""
}

// record is what the journal keeps of before, the document before
// install, so that Uninstall can give it back. For a wiring of the server
// alone that is only what Uninstall reads of it: whether "mcpServers" was
// there, the white space in it when it was empty, and the document itself
// when it held nothing. ~/.claude.json is the client's whole state,
// megabytes for some users, with their account and other servers'
// secrets (in their "env"): the journal needs no copy of those.
func (w Wiring) record(before []byte) []byte {
	if !w.serverOnly() {
		return before
	}
	root, err := parseDocument(before)
	if err != nil || !root.orig || len(root.members) == 0 {
		return before
	}
	all := root.get("mcpServers")
	switch {
	case all == nil:
		return []byte("{}")
	case all.orig && all.first < 0:
		return fmt.Appendf(nil, `{"mcpServers":%s}`, before[all.off:all.end])
	}
	return []byte(`{"mcpServers":{}}`)
}
