// Package settings adds and removes cairn's wiring in Claude Code's JSON
// files, and gives back exactly what was there before: its hooks, its
// status line and the approval of its MCP server in the settings files
// (settings.json, settings.local.json), and the MCP server itself where
// Claude Code reads servers (a project's .mcp.json, the user's
// ~/.claude.json; see mcp.go).
//
// People write these files by hand, so an edit changes only what it must:
// every other key, value, number spelling, string escape, the order, and
// the layout (indentation, line endings, a one-line file, a final newline
// or none) stay as they were, byte for byte, and what is added is written
// in the file's own layout (print.go). An edit that changes nothing
// returns the input itself, so callers leave the file alone. An empty
// document counts as {}.
//
// Uninstall after Install gives back the very bytes Install started from,
// given the document as it was before (Before). The file functions keep
// that outside the project (Journal); see Uninstall for what happens
// without it, and when the user edited the file in between.
//
// Documents that are not JSON, that have a key twice in one object (which
// JSON.parse, and so Claude Code, reads as the last one alone), or whose
// parts the wiring edits ("hooks", "statusLine", "mcpServers",
// "enabledMcpjsonServers") are not shaped the way Claude Code reads them,
// are refused with the line and column of the problem rather than
// rewritten.
package settings

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Hook is one command hook cairn wants under an event.
type Hook struct {
	Event   string // "PostToolUse", "SessionStart", ...
	Matcher string // "" matches everything
	Command string
	Timeout int // seconds; 0 leaves Claude Code's default
}

// Wiring is what cairn puts into a settings file and how it recognises
// its own.
type Wiring struct {
	Hooks []Hook
	// IsOurs recognises cairn's hook commands, whatever binary they run.
	// Every hook entry it recognises is cairn's wiring, whoever wrote it:
	// Install updates it, Uninstall removes it.
	IsOurs func(command string) bool

	// StatusLine is cairn's status line command, chaining nothing; ""
	// leaves the status line alone.
	StatusLine string
	// StatusOurs recognises cairn's status line commands, chained or not.
	// It is needed with StatusLine, and for Uninstall to take cairn's
	// status line out; nil leaves the status line alone.
	StatusOurs func(command string) bool
	// StatusCurrent says whether a status line command of cairn's that is
	// already there does the job, so Install leaves it alone; nil accepts
	// StatusLine itself, chaining something or not.
	StatusCurrent func(command string) bool
	// Inherited is the status line command Claude Code runs when this file
	// has none: the one from a settings file it reads with less precedence
	// ("" for none). A file without a status line of its own gets cairn's
	// chaining it, or none when it is cairn's already.
	Inherited string

	// MCP is cairn's MCP server, registered under "mcpServers"; nil
	// leaves mcpServers alone.
	MCP *MCPServer
	// Approve is the name of a server of the project's .mcp.json that
	// "enabledMcpjsonServers" approves, so that Claude Code starts it
	// without asking; "" leaves the approvals alone.
	Approve string
}

// Error says where a settings document is not what Claude Code reads.
type Error struct {
	Path         string // set by the file functions
	Line, Column int    // 1-based; the column counts characters
	Msg          string
}

func (e *Error) Error() string {
	if e.Path == "" {
		return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, e.Msg)
	}
	// path:line:col lets editors and terminals jump to the spot.
	return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Line, e.Column, e.Msg)
}

// validate checks the wiring itself, so that Install never writes a hook
// or status line that Uninstall could not take out again.
func (w Wiring) validate() error {
	for _, h := range w.Hooks {
		switch {
		case h.Event == "":
			return fmt.Errorf("hook %q has no event", h.Command)
		case h.Command == "":
			return fmt.Errorf("%s hook has no command", h.Event)
		case h.Timeout < 0:
			return fmt.Errorf("%s hook %q has a negative timeout", h.Event, h.Command)
		case w.IsOurs == nil || !w.IsOurs(h.Command):
			return fmt.Errorf("%s hook %q is not one IsOurs recognises", h.Event, h.Command)
		}
	}
	if w.StatusLine != "" {
		if w.StatusOurs == nil || !w.StatusOurs(w.StatusLine) {
			return fmt.Errorf("status line %q is not one StatusOurs recognises", w.StatusLine)
		}
		if _, chains := Chained(w.StatusLine); chains {
			return fmt.Errorf("status line %q chains a command already: give the command alone", w.StatusLine)
		}
	}
	if m := w.MCP; m != nil {
		switch {
		case m.Name == "" || m.Command == "":
			return fmt.Errorf("MCP server %q %q: a name and a command are needed", m.Name, m.Command)
		case m.Ours == nil || !m.Ours(m.Command, m.Args):
			return fmt.Errorf("MCP server %q is not one Ours recognises", m.Command)
		}
	}
	return nil
}

// Install makes sure each hook is present exactly once and, with a
// StatusLine, that the status line Claude Code runs is cairn's.
//
// Hooks: under an event it installs into, cairn's existing hooks are
// reused in place, first one with the same matcher and command, then one
// with the same matcher, and get the wanted command and timeout; cairn
// hooks left over there are removed, since two copies would both run.
// Missing hooks are appended, in a group of their own for their matcher,
// so that the user's groups stay as they were.
//
// Status line: a status line of cairn's that StatusCurrent accepts is left
// alone, whoever put it there; one that it does not is pointed at
// StatusLine, keeping what it chains. Any other command becomes the one
// cairn's chains (ChainedCommand), in place, so the rest of the user's
// statusLine object stays. A file without a statusLine gets one (chaining
// Inherited), unless Inherited is cairn's already.
//
// It returns the new document and whether anything changed; when nothing
// did, the result is data itself.
func (w Wiring) Install(data []byte) ([]byte, bool, error) {
	if err := w.validate(); err != nil {
		return nil, false, err
	}
	root, err := w.load(data)
	if err != nil {
		return nil, false, err
	}
	changed := w.installHooks(root)
	if w.StatusLine != "" && w.installStatusLine(root) {
		changed = true
	}
	if w.MCP != nil && w.installServer(root) {
		changed = true
	}
	if w.Approve != "" && w.installApproval(root) {
		changed = true
	}
	if !changed {
		return data, false, nil
	}
	return document(data, root), true, nil
}

func (w Wiring) installHooks(root *node) bool {
	var events []string
	byEvent := map[string][]Hook{}
	for _, h := range w.Hooks {
		if _, ok := byEvent[h.Event]; !ok {
			events = append(events, h.Event)
		}
		byEvent[h.Event] = append(byEvent[h.Event], h)
	}
	changed := false
	for _, ev := range events {
		all := root.get("hooks")
		if all == nil {
			all = objectNode()
			root.set("hooks", all)
			changed = true
		}
		groups := all.get(ev)
		if groups == nil {
			groups = arrayNode()
			all.set(ev, groups)
			changed = true
		}
		if installEvent(groups, byEvent[ev], w.IsOurs) {
			changed = true
		}
	}
	return changed
}

// found is one of cairn's hook entries in an event's array of groups.
type found struct {
	group, entry int // indexes into the groups and the group's hooks
	matcher      string
	command      string
	claimed      bool
}

func installEvent(groups *node, want []Hook, isOurs func(string) bool) bool {
	var ours []found
	for gi, g := range groups.elems {
		entries := g.get("hooks")
		if entries == nil {
			continue
		}
		for ei, e := range entries.elems {
			if c, ok := command(e); ok && isOurs(c) {
				ours = append(ours, found{group: gi, entry: ei, matcher: matcher(g), command: c})
			}
		}
	}
	// Pair each wanted hook with an existing one: the same command under the
	// same matcher first, so that reordering the wanted list moves nothing.
	pair := make([]int, len(want))
	for i := range pair {
		pair[i] = -1
	}
	for _, sameCommand := range []bool{true, false} {
		for wi, w := range want {
			if pair[wi] >= 0 {
				continue
			}
			for fi := range ours {
				f := &ours[fi]
				if !f.claimed && f.matcher == w.Matcher && (!sameCommand || f.command == w.Command) {
					f.claimed = true
					pair[wi] = fi
					break
				}
			}
		}
	}
	changed := false
	for wi, w := range want {
		if fi := pair[wi]; fi >= 0 {
			f := ours[fi]
			if retarget(groups.elems[f.group].get("hooks").elems[f.entry], w) {
				changed = true
			}
		}
	}
	drop := map[*node]bool{}
	for _, f := range ours {
		if !f.claimed {
			drop[groups.elems[f.group].get("hooks").elems[f.entry]] = true
		}
	}
	if len(drop) > 0 {
		changed = true
		var kept []*node
		for _, g := range groups.elems {
			if !removeEntries(g, func(e *node) bool { return drop[e] }) || !emptyGroup(g) {
				kept = append(kept, g)
			}
		}
		groups.elems = kept
	}
	for wi, w := range want {
		if pair[wi] >= 0 {
			continue
		}
		changed = true
		entry := objectNode()
		entry.set("type", stringNode("command"))
		entry.set("command", stringNode(w.Command))
		if w.Timeout > 0 {
			entry.set("timeout", numberNode(w.Timeout))
		}
		// Join a group this install made for this matcher, so that
		// several hooks with one matcher share a group; never a group
		// from the document, so that Uninstall leaves those as they were.
		var target *node
		for i := len(groups.elems) - 1; i >= 0 && target == nil; i-- {
			if g := groups.elems[i]; !g.orig && matcher(g) == w.Matcher {
				target = g
			}
		}
		if target == nil {
			target = objectNode()
			target.set("matcher", stringNode(w.Matcher))
			target.set("hooks", arrayNode())
			groups.elems = append(groups.elems, target)
		}
		entries := target.get("hooks")
		entries.elems = append(entries.elems, entry)
	}
	return changed
}

// retarget makes one existing entry run w, keeping any other keys the entry has.
func retarget(e *node, w Hook) bool {
	changed := false
	if t, ok := e.get("type").text(); !ok || t != "command" {
		if e.index("type") < 0 {
			e.members = append([]member{{rawKey: quote("type"), key: "type", sep: -1}}, e.members...)
		}
		e.set("type", stringNode("command"))
		changed = true
	}
	if c, _ := command(e); c != w.Command {
		e.set("command", stringNode(w.Command))
		changed = true
	}
	if w.Timeout == 0 {
		if e.remove("timeout") {
			changed = true
		}
	} else if t := e.get("timeout"); t == nil || !isNumber(t, w.Timeout) {
		e.set("timeout", numberNode(w.Timeout))
		changed = true
	}
	return changed
}

// isNumber reports whether n is a number equal to i however it is spelled
// (10, 10.0, 1e1), so that a hand-written spelling is not rewritten.
func isNumber(n *node, i int) bool {
	if n.kind != scalar || describe(n) != "a number" {
		return false
	}
	f, err := strconv.ParseFloat(string(n.raw), 64)
	return err == nil && f == float64(i)
}

// Uninstall takes cairn's wiring out of data: every hook entry IsOurs
// recognises, and (with StatusOurs) cairn's status line.
//
// before is the document as it was before cairn's first install (Before),
// or nil when that is not known. With it, Uninstall gives back what the
// user had: Uninstall(Install(x), Before(x)) is Before(x) byte for byte,
// for every x Install accepts, and Before(x) is x itself unless cairn's
// hooks were in x already. In detail:
//   - a "hooks" object or event array that was in before stays, even when
//     removing cairn's hooks empties it, with the white space it held;
//     others go when that empties them;
//   - a status line that was in before comes back as it was written there,
//     whoever's it was, cairn's own included; one that was not goes;
//   - a document that was only white space comes back as it was.
//
// Without before, hooks containers go only when removing cairn's hooks
// empties them (ones the user left empty stay), and cairn's status line
// gives its place back to the command it chains, or goes with its key
// when it chains nothing.
//
// This works on what is in the file now, not on a copy of what Install
// wrote: the user (or Claude Code, which rewrites settings.local.json when
// a permission is accepted) may have changed the file since, and those
// changes stay.
func (w Wiring) Uninstall(data, before []byte) ([]byte, bool, error) {
	root, err := w.load(data)
	if err != nil {
		return nil, false, err
	}
	var b *node
	if before != nil {
		if b, err = w.load(before); err != nil {
			b = nil // a record cairn wrote that no longer loads is no help
		}
	}
	changed := w.uninstallHooks(root, b, before)
	if w.StatusOurs != nil && w.uninstallStatusLine(root, b, before) {
		changed = true
	}
	if w.MCP != nil && w.uninstallServer(root, b, before) {
		changed = true
	}
	if w.Approve != "" && w.uninstallApproval(root, b, before) {
		changed = true
	}
	if !changed {
		return data, false, nil
	}
	if b != nil && !b.orig && len(root.members) == 0 {
		return before, true, nil // it was only white space
	}
	if b != nil && len(root.members) == 0 {
		root.emptyInner = inner(before, b)
	}
	return document(data, root), true, nil
}

// inner is what held empty container b had between its brackets in
// before; nothing when it was not empty.
func inner(before []byte, b *node) []byte {
	if b == nil || !b.orig || b.first >= 0 {
		return nil
	}
	return before[b.off+1 : b.end-1]
}

func (w Wiring) uninstallHooks(root, b *node, before []byte) bool {
	all := root.get("hooks")
	if all == nil || w.IsOurs == nil {
		return false
	}
	ours := func(e *node) bool {
		c, ok := command(e)
		return ok && w.IsOurs(c)
	}
	bAll := b.get("hooks")
	removed, emptied := false, false
	var events []member
	for _, ev := range all.members {
		droppedGroup := false
		var groups []*node
		for _, g := range ev.val.elems {
			if removeEntries(g, ours) {
				removed = true
				if emptyGroup(g) {
					droppedGroup = true
					continue
				}
			}
			groups = append(groups, g)
		}
		ev.val.elems = groups
		if droppedGroup && len(groups) == 0 {
			if bev := bAll.get(ev.key); bev != nil {
				ev.val.emptyInner = inner(before, bev)
			} else {
				emptied = true
				continue
			}
		}
		events = append(events, ev)
	}
	all.members = events
	if emptied && len(events) == 0 {
		if bAll != nil {
			all.emptyInner = inner(before, bAll)
		} else {
			root.remove("hooks")
		}
	}
	return removed
}

// removeEntries drops the entries of group g that match, and says whether
// it dropped any.
func removeEntries(g *node, drop func(*node) bool) bool {
	entries := g.get("hooks")
	if entries == nil {
		return false
	}
	removed := false
	var kept []*node
	for _, e := range entries.elems {
		if drop(e) {
			removed = true
			continue
		}
		kept = append(kept, e)
	}
	entries.elems = kept
	return removed
}

// emptyGroup reports whether a group runs nothing any more.
func emptyGroup(g *node) bool {
	entries := g.get("hooks")
	return entries == nil || len(entries.elems) == 0
}

// Installed lists the hooks IsOurs recognises.
func (w Wiring) Installed(data []byte) ([]Hook, error) {
	root, err := w.load(data)
	if err != nil {
		return nil, err
	}
	return w.installed(root), nil
}

func (w Wiring) installed(root *node) []Hook {
	all := root.get("hooks")
	if all == nil || w.IsOurs == nil {
		return nil
	}
	var hooks []Hook
	for _, ev := range all.members {
		for _, g := range ev.val.elems {
			entries := g.get("hooks")
			if entries == nil {
				continue
			}
			for _, e := range entries.elems {
				if c, ok := command(e); ok && w.IsOurs(c) {
					hooks = append(hooks, Hook{Event: ev.key, Matcher: matcher(g), Command: c, Timeout: timeout(e)})
				}
			}
		}
	}
	return hooks
}

// Before is what Uninstall needs to give back a document Install is about
// to change: data itself, unless cairn's hooks or its MCP server are in it
// already (an install by an older cairn, or by hand, which Uninstall
// removes in any case). Then it is data with cairn's wiring taken out,
// status line included, since it came with the hooks; but for an
// approval of cairn's server, which the user may have given Claude Code
// before any install, and which then stays.
func (w Wiring) Before(data []byte) ([]byte, error) {
	root, err := w.load(data)
	if err != nil {
		return nil, err
	}
	if len(w.installed(root)) == 0 && w.server(root) != OurServer {
		return data, nil
	}
	w.Approve = ""
	out, _, err := w.Uninstall(data, nil)
	return out, err
}

func command(entry *node) (string, bool) { return entry.get("command").text() }

func matcher(group *node) string {
	m, _ := group.get("matcher").text()
	return m
}

func timeout(entry *node) int {
	t := entry.get("timeout")
	if t == nil || describe(t) != "a number" {
		return 0
	}
	f, err := strconv.ParseFloat(string(t.raw), 64)
	if err != nil || f < 0 || f > 1<<31 {
		return 0
	}
	return int(f)
}

// load parses a settings document and checks the parts the wiring walks.
// An empty document is an empty object, like a missing file.
func (w Wiring) load(data []byte) (*node, error) {
	root, err := parseDocument(data)
	if err != nil {
		return nil, err
	}
	// A wiring of the MCP server alone edits files that are not settings
	// (.mcp.json, ~/.claude.json): what they hold under "hooks" is none of
	// its business.
	checks := []func([]byte, *node) error{}
	if len(w.Hooks) > 0 || w.IsOurs != nil || w.StatusLine != "" || w.StatusOurs != nil || w.Approve != "" {
		checks = append(checks, check)
	}
	if w.StatusLine != "" || w.StatusOurs != nil {
		checks = append(checks, checkStatusLine)
	}
	if w.MCP != nil {
		checks = append(checks, checkServers)
	}
	if w.Approve != "" {
		checks = append(checks, checkApprovals)
	}
	for _, c := range checks {
		if err := c(data, root); err != nil {
			return nil, err
		}
	}
	return root, nil
}

// load parses a settings document and checks its hooks.
func load(data []byte) (*node, error) {
	root, err := parseDocument(data)
	if err != nil {
		return nil, err
	}
	if err := check(data, root); err != nil {
		return nil, err
	}
	return root, nil
}

// parseDocument parses a document whose top level is an object, with no
// key twice in any object.
func parseDocument(data []byte) (*node, error) {
	if isSpace(data) {
		return objectNode(), nil
	}
	root, err := parse(data)
	if err != nil {
		return nil, err
	}
	if err := duplicateKey(data, root); err != nil {
		return nil, err
	}
	if root.kind != object {
		return nil, errorAt(data, root.off, fmt.Sprintf("the top level is %s, want an object", describe(root)))
	}
	return root, nil
}

func isSpace(data []byte) bool {
	for _, c := range data {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return false
		}
	}
	return true
}

// check refuses shapes Claude Code would not read as hooks, so that no edit
// ever has to guess what the user meant.
func check(data []byte, root *node) error {
	wrong := func(n *node, where, want string) error {
		return errorAt(data, n.off, fmt.Sprintf("%s is %s, want %s", where, describe(n), want))
	}
	if root.kind != object {
		return wrong(root, "the top level", "an object")
	}
	all := root.get("hooks")
	if all == nil {
		return nil
	}
	if all.kind != object {
		return wrong(all, `"hooks"`, "an object whose keys are event names")
	}
	for _, ev := range all.members {
		where := "hooks." + name(ev.key)
		if ev.val.kind != array {
			return wrong(ev.val, where, "an array of matcher groups")
		}
		for gi, g := range ev.val.elems {
			where := fmt.Sprintf("%s[%d]", where, gi)
			if g.kind != object {
				return wrong(g, where, `an object with "matcher" and "hooks"`)
			}
			if m := g.get("matcher"); m != nil {
				if _, ok := m.text(); !ok {
					return wrong(m, where+".matcher", "a string")
				}
			}
			entries := g.get("hooks")
			if entries == nil {
				continue
			}
			if entries.kind != array {
				return wrong(entries, where+".hooks", "an array of hooks")
			}
			for ei, e := range entries.elems {
				where := fmt.Sprintf("%s.hooks[%d]", where, ei)
				if e.kind != object {
					return wrong(e, where, `an object with "type" and "command"`)
				}
				if c := e.get("command"); c != nil {
					if _, ok := c.text(); !ok {
						return wrong(c, where+".command", "a string")
					}
				}
			}
		}
	}
	return nil
}

// name writes an event name as a path element, quoted when it would be
// ambiguous bare.
func name(key string) string {
	for _, r := range key {
		if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_') {
			return strconv.Quote(key)
		}
	}
	if key == "" {
		return `""`
	}
	return key
}

func errorAt(data []byte, off int, msg string) *Error {
	line, col := position(data, off)
	return &Error{Line: line, Column: col, Msg: msg}
}

// position turns a byte offset into a 1-based line and character column.
func position(data []byte, off int) (line, col int) {
	off = min(off, len(data))
	line, start := 1, 0
	for i, c := range data[:off] {
		if c == '\n' {
			line++
			start = i + 1
		}
	}
	return line, utf8.RuneCount(data[start:off]) + 1
}
