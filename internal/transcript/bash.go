package transcript

import (
	"strings"

	"github.com/cairn-agent/cairn/internal/shell"
)

type bashOp struct {
	path string
	kind opKind
}

// bashFileOps finds the files a shell command obviously writes or deletes:
// redirections, and the targets of rm, mv, cp, touch, tee and sed -i. It
// does not try to be a shell; anything unusual (variables, globs,
// substitutions) is left out rather than guessed.
func bashFileOps(cmd string) []bashOp {
	var ops []bashOp
	for _, part := range splitCommands(cmd) {
		words, ok := shell.Words(part)
		if !ok {
			continue // an unterminated quote: not guessed at
		}
		// Redirections anywhere in the simple command.
		var args []string
		for i := 0; i < len(words); i++ {
			w := words[i]
			switch {
			case w == ">" || w == ">>" || w == "1>" || w == "1>>" || w == "&>":
				if i+1 < len(words) {
					ops = addPath(ops, words[i+1], opWrite)
					i++
				}
			case strings.HasPrefix(w, ">>") && len(w) > 2:
				ops = addPath(ops, w[2:], opWrite)
			case strings.HasPrefix(w, ">") && len(w) > 1 && w[1] != '&':
				ops = addPath(ops, w[1:], opWrite)
			case strings.HasPrefix(w, "2>") || strings.HasPrefix(w, "<"):
				if (w == "2>" || w == "2>>" || w == "<") && i+1 < len(words) {
					i++
				}
			default:
				args = append(args, w)
			}
		}
		if len(args) == 0 {
			continue
		}
		name, rest := args[0], args[1:]
		operands := rest[:0:0]
		inPlace := false
		for _, a := range rest {
			if strings.HasPrefix(a, "-") {
				if name == "sed" && (a == "-i" || strings.HasPrefix(a, "-i")) {
					inPlace = true
				}
				continue
			}
			operands = append(operands, a)
		}
		switch name {
		case "rm":
			for _, a := range operands {
				ops = addPath(ops, a, opDelete)
			}
		case "touch", "tee":
			for _, a := range operands {
				ops = addPath(ops, a, opWrite)
			}
		case "cp":
			if len(operands) >= 2 {
				ops = addPath(ops, operands[len(operands)-1], opWrite)
			}
		case "mv":
			if len(operands) == 2 {
				ops = addPath(ops, operands[0], opDelete)
				ops = addPath(ops, operands[1], opWrite)
			}
		case "sed":
			if inPlace && len(operands) >= 2 {
				for _, a := range operands[1:] {
					ops = addPath(ops, a, opEdit)
				}
			}
		}
	}
	return ops
}

func addPath(ops []bashOp, p string, k opKind) []bashOp {
	if p == "" || p == "/dev/null" || strings.HasPrefix(p, "/dev/") || strings.HasPrefix(p, "&") ||
		strings.ContainsAny(p, "$`*?{}()<>|;") {
		return ops
	}
	return append(ops, bashOp{path: p, kind: k})
}

// splitCommands splits on ;, &&, || and | outside quotes, and on newlines.
func splitCommands(cmd string) []string {
	var parts []string
	var q byte
	start := 0
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case q != 0:
			if c == q {
				q = 0
			} else if c == '\\' && q == '"' {
				i++
			}
		case c == '\'' || c == '"':
			q = c
		case c == '\\':
			i++
		case c == ';' || c == '\n' || c == '|' || (c == '&' && i+1 < len(cmd) && cmd[i+1] == '&'):
			parts = append(parts, cmd[start:i])
			if (c == '&' || c == '|') && i+1 < len(cmd) && cmd[i+1] == c {
				i++
			}
			start = i + 1
		}
	}
	return append(parts, cmd[start:])
}
