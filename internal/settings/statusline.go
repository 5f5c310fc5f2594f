package settings

import (
	"fmt"
	"strings"
)

// The status line. Claude Code runs one statusLine command per settings
// file,
//
//	"statusLine": {"type": "command", "command": "...", "padding": 0}
//
// so cairn's can only go in by taking the place of the user's own. It keeps
// the user's command running, and remembers it, by chaining it: cairn's
// command carries the user's as its --chain argument (ChainedCommand), runs
// it, and shows its line after cairn's. The rest of the user's statusLine
// object (padding, keys Claude Code may add later) never leaves the file:
// Install replaces only the "command" member, in place. So Uninstall puts
// the chained command back into "command" and the object is the user's
// again, member for member; without a chained command (there was no
// statusLine before) it removes the statusLine key.
//
// The byte-for-byte promise of Install then Uninstall holds as for hooks,
// with these exceptions:
//   - the user's command comes back with the same value, spelled as
//     JSON.stringify writes it (a "\u0041" in it comes back as "A");
//   - a statusLine object without "type" gets "type": "command", which
//     Claude Code needs to run any command, and keeps it;
//   - a statusLine object without "command" has nothing to chain: it is
//     removed with cairn's.
//
// The statusLine Claude Code reads, the last one, must be an object whose
// "type", if present, is "command" and whose "command", if present, is a
// string; anything else is refused with its position rather than replaced.

// chainFlag is cairn statusline's flag for the chained command.
const chainFlag = "--chain"

// ChainedCommand is command running previous as its chained status line:
// command --chain 'previous', quoted for sh, the way Chained reads it back.
func ChainedCommand(command, previous string) string {
	return command + " " + chainFlag + " " + shellQuote(previous)
}

// Chained extracts the chained command from one of cairn's status line
// commands: the argument of its first --chain flag (also -chain, and the
// =value forms, as Go's flag package reads them). ok is false when there
// is none.
func Chained(command string) (previous string, ok bool) {
	words, ok := shellWords(command)
	if !ok {
		return "", false
	}
	for i, w := range words {
		if w == chainFlag || w == chainFlag[1:] {
			if i+1 < len(words) {
				return words[i+1], true
			}
			return "", false
		}
		for _, f := range []string{chainFlag + "=", chainFlag[1:] + "="} {
			if v, found := strings.CutPrefix(w, f); found {
				return v, true
			}
		}
	}
	return "", false
}

// PreviousStatusLine is the command cairn's status line must chain: the
// user's own command, or the one cairn's current command already chains.
// ok is false when there is none.
func PreviousStatusLine(data []byte, isOurs func(command string) bool) (cmd string, ok bool, err error) {
	root, err := loadStatusLine(data)
	if err != nil {
		return "", false, err
	}
	cmd, ok = previous(root.get("statusLine"), isOurs)
	return cmd, ok, nil
}

func previous(sl *node, isOurs func(string) bool) (string, bool) {
	if sl == nil {
		return "", false
	}
	cur, ok := command(sl)
	if !ok {
		return "", false
	}
	return unwrap(cur, isOurs)
}

// unwrap follows cairn's commands down their chains to the first command
// that is not cairn's; ok is false when the chain ends in cairn's.
// Each step is shorter than the last, so it ends.
func unwrap(cur string, isOurs func(string) bool) (string, bool) {
	for isOurs(cur) {
		prev, ok := Chained(cur)
		if !ok {
			return "", false
		}
		cur = prev
	}
	return cur, true
}

// InstallFileWithStatusLine is InstallFile that also, in the same edit,
// makes statusCommand the status line, chaining whatever status line is
// there (PreviousStatusLine, ChainedCommand), so that the one backup holds
// the file as it was before both. An empty statusCommand leaves the status
// line alone; no hooks leave the hooks alone.
func InstallFileWithStatusLine(path string, hooks []Hook, isOurs func(command string) bool, statusCommand string, statusOurs func(command string) bool) (changed bool, err error) {
	return edit(path, func(data []byte) ([]byte, bool, error) {
		data, changed, err := Install(data, hooks, isOurs)
		if err != nil || statusCommand == "" {
			return data, changed, err
		}
		prev, ok, err := PreviousStatusLine(data, statusOurs)
		if err != nil {
			return nil, false, err
		}
		cmd := statusCommand
		if ok {
			cmd = ChainedCommand(statusCommand, prev)
		}
		data, slChanged, err := InstallStatusLine(data, cmd, statusOurs)
		return data, changed || slChanged, err
	})
}

// UninstallFileWithStatusLine is UninstallFile that also, in the same edit,
// takes cairn's status line out (UninstallStatusLine).
func UninstallFileWithStatusLine(path string, isOurs, statusOurs func(command string) bool) (changed bool, err error) {
	return edit(path, func(data []byte) ([]byte, bool, error) {
		data, changed, err := Uninstall(data, isOurs)
		if err != nil {
			return nil, false, err
		}
		data, slChanged, err := UninstallStatusLine(data, statusOurs)
		return data, changed || slChanged, err
	})
}

// InstallStatusLine makes cmd the status line. With no statusLine it adds
// {"type": "command", "command": cmd, "padding": 0}; otherwise it sets the
// "command" of the statusLine Claude Code reads, keeping every other
// member. cmd must satisfy isOurs, and it must chain (see
// ChainedCommand) exactly what PreviousStatusLine returns, or nothing when
// that is nothing: otherwise the user's command would be lost, and
// Uninstall could not put it back.
//
// It returns the new document and whether anything changed; when nothing
// did, the result is data itself.
func InstallStatusLine(data []byte, cmd string, isOurs func(command string) bool) ([]byte, bool, error) {
	if cmd == "" {
		return nil, false, fmt.Errorf("status line has no command")
	}
	if !isOurs(cmd) {
		return nil, false, fmt.Errorf("status line %q is not one isOurs recognises", cmd)
	}
	root, err := loadStatusLine(data)
	if err != nil {
		return nil, false, err
	}
	sl := root.get("statusLine")
	prev, hasPrev := previous(sl, isOurs)
	chained, chains := Chained(cmd)
	switch {
	case hasPrev && !chains:
		return nil, false, fmt.Errorf("status line %q does not chain the one already there, %q: build it with ChainedCommand", cmd, prev)
	case hasPrev && chained != prev:
		return nil, false, fmt.Errorf("status line %q chains %q, not the one already there, %q", cmd, chained, prev)
	case !hasPrev && chains:
		return nil, false, fmt.Errorf("status line %q chains %q, but there is no other status line to chain", cmd, chained)
	}
	if sl == nil {
		sl = &node{kind: object}
		sl.set("type", stringNode("command"))
		sl.set("command", stringNode(cmd))
		sl.set("padding", numberNode(0))
		root.set("statusLine", sl)
		return encode(root), true, nil
	}
	changed := false
	if sl.lastIndex("type") < 0 {
		sl.members = append([]member{{rawKey: quote("type"), key: "type", val: stringNode("command")}}, sl.members...)
		changed = true
	}
	if cur, _ := command(sl); cur != cmd {
		sl.set("command", stringNode(cmd))
		changed = true
	}
	if !changed {
		return data, false, nil
	}
	return encode(root), true, nil
}

// UninstallStatusLine takes cairn's status line out of every statusLine
// key whose command isOurs recognises: a command that chains another gives
// that one back its place; one that chains nothing goes with its key.
// Nothing else changes. When nothing was removed the result is data itself.
func UninstallStatusLine(data []byte, isOurs func(command string) bool) ([]byte, bool, error) {
	root, err := loadStatusLine(data)
	if err != nil {
		return nil, false, err
	}
	changed := false
	var kept []member
	for _, m := range root.members {
		if m.key == "statusLine" && m.val.kind == object {
			if cur, ok := command(m.val); ok && isOurs(cur) {
				changed = true
				prev, ok := unwrap(cur, isOurs)
				if !ok {
					continue
				}
				m.val.set("command", stringNode(prev))
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

// loadStatusLine loads a settings document and checks the statusLine
// Claude Code reads.
func loadStatusLine(data []byte) (*node, error) {
	root, err := load(data)
	if err != nil {
		return nil, err
	}
	sl := root.get("statusLine")
	if sl == nil {
		return root, nil
	}
	wrong := func(n *node, where, want string) error {
		return errorAt(data, n.off, fmt.Sprintf("%s is %s, want %s", where, describe(n), want))
	}
	if sl.kind != object {
		return nil, wrong(sl, `"statusLine"`, `an object with "type" and "command"`)
	}
	for _, m := range sl.members {
		switch m.key {
		case "type":
			if t, ok := m.val.text(); !ok {
				return nil, wrong(m.val, "statusLine.type", `"command"`)
			} else if t != "command" {
				return nil, errorAt(data, m.val.off, fmt.Sprintf("statusLine.type is %q, want \"command\": cairn runs only command status lines", t))
			}
		case "command":
			if _, ok := m.val.text(); !ok {
				return nil, wrong(m.val, "statusLine.command", "a string")
			}
		}
	}
	return root, nil
}

// shellQuote quotes s as one word for sh: as it is when nothing in it is
// special, else in single quotes.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n\r'\"\\$`!*?[](){}<>|&;#~=%^,") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shellWords splits a command into words as sh reads them, as far as quotes
// and backslashes go: '...', "..." with its backslash escapes, and
// backslashes outside quotes. Expansions and operators are not interpreted.
// ok is false for an unterminated quote.
func shellWords(s string) (words []string, ok bool) {
	var b strings.Builder
	in := false // inside a word
	end := func() {
		if in {
			words = append(words, b.String())
			b.Reset()
			in = false
		}
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case ' ', '\t', '\n':
			end()
		case '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, false
			}
			b.WriteString(s[i+1 : i+1+j])
			i += j + 1
			in = true
		case '"':
			in = true
			for i++; ; i++ {
				if i >= len(s) {
					return nil, false
				}
				if s[i] == '"' {
					break
				}
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
					i++
					if s[i] == '\n' {
						continue // a line continuation
					}
				}
				b.WriteByte(s[i])
			}
		case '\\':
			if i+1 < len(s) {
				i++
				if s[i] == '\n' {
					continue // a line continuation
				}
				b.WriteByte(s[i])
			}
			in = true
		default:
			b.WriteByte(c)
			in = true
		}
	}
	end()
	return words, true
}
