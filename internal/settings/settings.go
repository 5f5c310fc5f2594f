// Package settings adds and removes cairn's hooks in Claude Code settings
// files (settings.json, settings.local.json) without losing anything the
// user wrote there.
//
// People write these files by hand, so an edit keeps every other key, value,
// number spelling, string escape and duplicate key as it was, in its order;
// only the layout is normalised, to the 2-space style Claude Code itself
// writes. A document already in that style, with no cairn hooks in it, comes
// back byte for byte from Uninstall after Install, unless it held an empty
// "hooks" object or event array Install then filled: Uninstall cannot tell
// those from ones Install made, and removes them. An edit that changes
// nothing returns the input untouched, so callers leave the file alone. An
// empty document counts as {}. Documents that are not JSON, or
// whose "hooks" are not shaped the way Claude Code reads them, are refused
// with the line and column of the problem rather than rewritten.
//
// When a key appears twice, Claude Code (JSON.parse) uses the last one, so
// Install edits and Installed reports the last one; Uninstall cleans all.
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

// Error says where a settings document is not what Claude Code reads.
type Error struct {
	Path         string // set by InstallFile and UninstallFile
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

// Install makes sure each hook is present exactly once. Under an event it
// installs into, cairn's existing hooks (those isOurs recognises) are reused
// in place, first one with the same matcher and command, then one with the
// same matcher, and have their command and timeout updated; cairn hooks left
// over there are removed, since two copies would both run. Missing hooks are
// appended, in a group of their own for their matcher. Everything else keeps
// its content and order. Every hook's command must satisfy isOurs, or
// Uninstall could never take it out again.
//
// It returns the new document and whether anything changed; when nothing
// did, the result is data itself.
func Install(data []byte, hooks []Hook, isOurs func(command string) bool) ([]byte, bool, error) {
	for _, h := range hooks {
		switch {
		case h.Event == "":
			return nil, false, fmt.Errorf("hook %q has no event", h.Command)
		case h.Command == "":
			return nil, false, fmt.Errorf("%s hook has no command", h.Event)
		case h.Timeout < 0:
			return nil, false, fmt.Errorf("%s hook %q has a negative timeout", h.Event, h.Command)
		case !isOurs(h.Command):
			return nil, false, fmt.Errorf("%s hook %q is not one isOurs recognises", h.Event, h.Command)
		}
	}
	root, err := load(data)
	if err != nil {
		return nil, false, err
	}
	var events []string
	byEvent := map[string][]Hook{}
	for _, h := range hooks {
		if _, ok := byEvent[h.Event]; !ok {
			events = append(events, h.Event)
		}
		byEvent[h.Event] = append(byEvent[h.Event], h)
	}
	changed := false
	for _, ev := range events {
		all := root.get("hooks")
		if all == nil {
			all = &node{kind: object}
			root.set("hooks", all)
			changed = true
		}
		groups := all.get(ev)
		if groups == nil {
			groups = &node{kind: array}
			all.set(ev, groups)
			changed = true
		}
		if installEvent(groups, byEvent[ev], isOurs) {
			changed = true
		}
	}
	if !changed {
		return data, false, nil
	}
	return encode(root), true, nil
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
		entry := &node{kind: object}
		entry.set("type", stringNode("command"))
		entry.set("command", stringNode(w.Command))
		if w.Timeout > 0 {
			entry.set("timeout", numberNode(w.Timeout))
		}
		// Join a group that holds only cairn hooks for this matcher, so that
		// several hooks with one matcher share a group; never a user's group,
		// so that Uninstall leaves the user's groups as they were.
		var target *node
		for i := len(groups.elems) - 1; i >= 0 && target == nil; i-- {
			if g := groups.elems[i]; matcher(g) == w.Matcher && onlyOurs(g, isOurs) {
				target = g
			}
		}
		if target == nil {
			target = &node{kind: object}
			target.set("matcher", stringNode(w.Matcher))
			target.set("hooks", &node{kind: array})
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
		if e.lastIndex("type") < 0 {
			e.members = append([]member{{rawKey: quote("type"), key: "type"}}, e.members...)
		}
		e.set("type", stringNode("command"))
		changed = true
	}
	if c, _ := command(e); c != w.Command {
		e.set("command", stringNode(w.Command))
		changed = true
	}
	if w.Timeout == 0 {
		// Every copy goes: removing only the last would revive an earlier one.
		var kept []member
		for _, m := range e.members {
			if m.key != "timeout" {
				kept = append(kept, m)
			}
		}
		if len(kept) != len(e.members) {
			e.members = kept
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

// Uninstall removes every hook entry for which isOurs holds, wherever it is.
// A matcher group, an event and the "hooks" object are removed only when
// that removal left them empty: ones the user left empty stay. Nothing else
// changes. When nothing was removed the result is data itself.
func Uninstall(data []byte, isOurs func(command string) bool) ([]byte, bool, error) {
	root, err := load(data)
	if err != nil {
		return nil, false, err
	}
	changed := false
	var kept []member
	for _, m := range root.members {
		if m.key == "hooks" {
			removed, empty := uninstallAll(m.val, isOurs)
			changed = changed || removed
			if empty {
				continue
			}
		}
		kept = append(kept, m)
	}
	if !changed {
		return data, false, nil
	}
	root.members = kept
	return encode(root), true, nil
}

// uninstallAll cleans one "hooks" object and says whether it removed
// anything and whether that left the object empty.
func uninstallAll(all *node, isOurs func(string) bool) (removed, empty bool) {
	ours := func(e *node) bool {
		c, ok := command(e)
		return ok && isOurs(c)
	}
	droppedEvent := false
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
			droppedEvent = true
			continue
		}
		events = append(events, ev)
	}
	all.members = events
	return removed, droppedEvent && len(events) == 0
}

// removeEntries drops the entries of group g that match, from every "hooks"
// key g has, and says whether it dropped any.
func removeEntries(g *node, drop func(*node) bool) bool {
	removed := false
	for _, m := range g.members {
		if m.key != "hooks" {
			continue
		}
		var kept []*node
		for _, e := range m.val.elems {
			if drop(e) {
				removed = true
				continue
			}
			kept = append(kept, e)
		}
		m.val.elems = kept
	}
	return removed
}

// emptyGroup reports whether a group runs nothing any more, counting the
// hooks under a duplicate "hooks" key too, since removing the group would
// lose them.
func emptyGroup(g *node) bool {
	for _, m := range g.members {
		if m.key == "hooks" && len(m.val.elems) > 0 {
			return false
		}
	}
	return true
}

func onlyOurs(g *node, isOurs func(string) bool) bool {
	entries := g.get("hooks")
	if entries == nil || len(entries.elems) == 0 {
		return false
	}
	for _, e := range entries.elems {
		if c, ok := command(e); !ok || !isOurs(c) {
			return false
		}
	}
	return true
}

// Installed lists the hooks for which isOurs holds, as Claude Code sees them:
// under duplicate keys only the last counts.
func Installed(data []byte, isOurs func(command string) bool) ([]Hook, error) {
	root, err := load(data)
	if err != nil {
		return nil, err
	}
	all := root.get("hooks")
	if all == nil {
		return nil, nil
	}
	var hooks []Hook
	for i, ev := range all.members {
		if all.lastIndex(ev.key) != i {
			continue
		}
		for _, g := range ev.val.elems {
			entries := g.get("hooks")
			if entries == nil {
				continue
			}
			for _, e := range entries.elems {
				if c, ok := command(e); ok && isOurs(c) {
					hooks = append(hooks, Hook{Event: ev.key, Matcher: matcher(g), Command: c, Timeout: timeout(e)})
				}
			}
		}
	}
	return hooks, nil
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

// load parses a settings document and checks the parts this package walks.
// An empty document is an empty object, like a missing file.
func load(data []byte) (*node, error) {
	if isSpace(data) {
		return &node{kind: object}, nil
	}
	root, err := parse(data)
	if err != nil {
		return nil, err
	}
	if err := check(data, root); err != nil {
		return nil, err
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
	for _, m := range root.members {
		if m.key != "hooks" {
			continue
		}
		if m.val.kind != object {
			return wrong(m.val, `"hooks"`, "an object whose keys are event names")
		}
		for _, ev := range m.val.members {
			where := "hooks." + name(ev.key)
			if ev.val.kind != array {
				return wrong(ev.val, where, "an array of matcher groups")
			}
			for gi, g := range ev.val.elems {
				where := fmt.Sprintf("%s[%d]", where, gi)
				if g.kind != object {
					return wrong(g, where, `an object with "matcher" and "hooks"`)
				}
				for _, gm := range g.members {
					switch gm.key {
					case "matcher":
						if _, ok := gm.val.text(); !ok {
							return wrong(gm.val, where+".matcher", "a string")
						}
					case "hooks":
						if gm.val.kind != array {
							return wrong(gm.val, where+".hooks", "an array of hooks")
						}
						for ei, e := range gm.val.elems {
							where := fmt.Sprintf("%s.hooks[%d]", where, ei)
							if e.kind != object {
								return wrong(e, where, `an object with "type" and "command"`)
							}
							for _, em := range e.members {
								if em.key != "command" {
									continue
								}
								if _, ok := em.val.text(); !ok {
									return wrong(em.val, where+".command", "a string")
								}
							}
						}
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
