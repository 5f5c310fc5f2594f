package settings

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/cairn-agent/cairn/internal/shell"
)

// The status line. Claude Code runs one statusLine command per settings
// file,
//
//	"statusLine": {"type": "command", "command": "...", "padding": 0}
//
// the one from the file read with the most precedence, so cairn's can only
// go in by taking the place of the user's own. It keeps the user's command
// running, and remembers it, by chaining it: cairn's command carries the
// user's as its --chain argument (ChainedCommand), runs it, and shows its
// line after cairn's. The rest of the user's statusLine object (padding,
// keys Claude Code may add later) never leaves the file: Install replaces
// only the "command" member, in place, and Uninstall puts back what was
// there (see Wiring.Uninstall).
//
// A status line that runs cairn's already is the user's choice, not an
// install: Install leaves it alone when StatusCurrent accepts it, and
// Uninstall, knowing it was there before, leaves it too.
//
// The statusLine Claude Code reads must be an object whose "type", if
// present, is "command" and whose "command", if present, is a string;
// anything else is refused with its position rather than replaced.

// chainFlag is cairn statusline's flag for the chained command.
const chainFlag = "--chain"

// ChainedCommand is command running previous as its chained status line:
// command --chain 'previous', quoted for sh, the way Chained reads it back.
func ChainedCommand(command, previous string) string {
	return command + " " + chainFlag + " " + shell.Quote(previous)
}

// Chained extracts the chained command from one of cairn's status line
// commands: the argument of its first --chain flag (also -chain, and the
// =value forms, as Go's flag package reads them). ok is false when there
// is none.
func Chained(command string) (previous string, ok bool) {
	words, ok := shell.Words(command)
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

// StatusLine is the status line command data sets; ok is false when it
// sets none.
func StatusLine(data []byte) (cmd string, ok bool, err error) {
	root, err := load(data)
	if err != nil {
		return "", false, err
	}
	if err := checkStatusLine(data, root); err != nil {
		return "", false, err
	}
	cmd, ok = command(root.get("statusLine"))
	return cmd, ok, nil
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

// current is StatusCurrent or its default.
func (w Wiring) current(cmd string) bool {
	if w.StatusCurrent != nil {
		return w.StatusCurrent(cmd)
	}
	base, _, _ := strings.Cut(cmd, " "+chainFlag)
	return base == w.StatusLine
}

// chain is cairn's command chaining prev, if there is one.
func (w Wiring) chain(prev string, ok bool) string {
	if ok {
		return ChainedCommand(w.StatusLine, prev)
	}
	return w.StatusLine
}

func (w Wiring) installStatusLine(root *node) bool {
	sl := root.get("statusLine")
	if sl == nil {
		if w.Inherited != "" && w.StatusOurs(w.Inherited) {
			return false // cairn's shows already, from another file
		}
		sl = objectNode()
		sl.set("type", stringNode("command"))
		sl.set("command", stringNode(w.chain(w.Inherited, w.Inherited != "")))
		sl.set("padding", numberNode(0))
		root.set("statusLine", sl)
		return true
	}
	cur, ok := command(sl)
	var cmd string
	switch {
	case ok && w.StatusOurs(cur) && w.current(cur):
		return false
	case ok && w.StatusOurs(cur):
		cmd = w.chain(unwrap(cur, w.StatusOurs))
	case ok:
		cmd = ChainedCommand(w.StatusLine, cur)
	default:
		cmd = w.StatusLine
	}
	if sl.index("type") < 0 {
		sl.members = append([]member{{rawKey: quote("type"), key: "type", val: stringNode("command"), sep: -1}}, sl.members...)
	}
	sl.set("command", stringNode(cmd))
	return true
}

func (w Wiring) uninstallStatusLine(root, b *node, before []byte) bool {
	sl := root.get("statusLine")
	cur, ok := command(sl)
	if !ok || !w.StatusOurs(cur) {
		return false
	}
	prev, chains := unwrap(cur, w.StatusOurs)
	if b == nil {
		if !chains {
			root.remove("statusLine")
		} else {
			sl.set("command", stringNode(prev))
		}
		return true
	}
	bsl := b.get("statusLine")
	if bsl == nil {
		root.remove("statusLine") // install added it, chaining what another file has
		return true
	}
	bc := bsl.get("command")
	switch was, wasOK := bc.text(); {
	case wasOK && bytes.Equal(bc.raw, sl.get("command").raw):
		return false // as it was: the user's own, cairn's or not
	case wasOK && (w.StatusOurs(was) || !chains || prev == was):
		sl.set("command", rawNode(bc.raw))
	case chains:
		sl.set("command", stringNode(prev)) // the user changed the chain since
	default:
		sl.remove("command")
	}
	if bsl.index("type") < 0 {
		sl.remove("type")
	}
	if len(sl.members) == 0 {
		sl.emptyInner = inner(before, bsl)
	}
	return true
}

// checkStatusLine checks the statusLine Claude Code reads.
func checkStatusLine(data []byte, root *node) error {
	sl := root.get("statusLine")
	if sl == nil {
		return nil
	}
	wrong := func(n *node, where, want string) error {
		return errorAt(data, n.off, fmt.Sprintf("%s is %s, want %s", where, describe(n), want))
	}
	if sl.kind != object {
		return wrong(sl, `"statusLine"`, `an object with "type" and "command"`)
	}
	if t := sl.get("type"); t != nil {
		if s, ok := t.text(); !ok {
			return wrong(t, "statusLine.type", `"command"`)
		} else if s != "command" {
			return errorAt(data, t.off, fmt.Sprintf("statusLine.type is %q, want \"command\": cairn runs only command status lines", s))
		}
	}
	if c := sl.get("command"); c != nil {
		if _, ok := c.text(); !ok {
			return wrong(c, "statusLine.command", "a string")
		}
	}
	return nil
}
