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
//
// A tee that copies a running program's output ("pytest 2>&1 | tee
// run.log | tail") writes a log as a by-product of the run, not work on
// the project: it is left out. A tee fed text the command line itself
// writes ("echo x | tee conf", "cat <<EOF | sudo tee f") writes a file.
func bashFileOps(cmd string) []bashOp {
	var ops []bashOp
	head := "" // the first program of the current pipeline
	for _, part := range splitCommands(cmd) {
		words, ok := shell.Words(part.text)
		if !ok {
			continue // an unterminated quote: not guessed at
		}
		if !part.piped {
			head = ""
			if len(words) > 0 {
				head = words[0]
			}
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
		if name == "sudo" && len(rest) > 0 {
			name, rest = rest[0], rest[1:]
		}
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
			if name == "tee" && part.piped && !writesText(head) {
				continue // a copy of a run's output: a log, not a change
			}
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

// writesText: a program whose output is text the command line itself
// holds, so what a tee after it writes is meant to be a file.
func writesText(program string) bool {
	switch program {
	case "echo", "printf", "cat", "envsubst", "sed", "jq", "yq", "sort", "base64":
		return true
	}
	return false
}

// commandPart is one simple command of a command line; piped says it
// reads the output of the one before it (after a single "|").
type commandPart struct {
	text  string
	piped bool
}

// splitCommands splits on ;, &&, || and | outside quotes, and on newlines.
func splitCommands(cmd string) []commandPart {
	var parts []commandPart
	piped := false
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
			parts = append(parts, commandPart{cmd[start:i], piped})
			piped = c == '|'
			if (c == '&' || c == '|') && i+1 < len(cmd) && cmd[i+1] == c {
				piped = false
				i++
			}
			start = i + 1
		}
	}
	return append(parts, commandPart{cmd[start:], piped})
}
