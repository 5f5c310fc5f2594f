package memory

import (
	"path"
	"slices"
	"strings"
	"unicode"

	"github.com/cairn-agent/cairn/internal/redact"
	"github.com/cairn-agent/cairn/internal/text"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// What a file the agent read says is often asked after and said nowhere
// else in the session: a limit set in a module attribute, an option of a
// config file, what a module is for. A file's whole text is not a memory,
// so a read keeps the lines that set or describe something: a setting
// with its value, the first lines of a doc, a declaration.

// Bounds of what reads keep.
const (
	// readBody is how many bytes of a file's lines its observation keeps.
	readBody = 1200
	// maxSessionReads is how many files' reads a session keeps (its last).
	maxSessionReads = 150
	// docLines is how many lines of a doc block are kept.
	docLines = 3
)

// readsByFile are a session's reads, one observation per file, from its
// latest read that kept something.
type readsByFile struct {
	obs    []Observation
	byPath map[string]int // a file: its index in obs
}

// add keeps what call tc, a Read, returned as the file's observation.
func (r *readsByFile) add(base Observation, tc transcript.ToolCall, res string) {
	if tc.IsError || tc.FilePath == "" {
		return
	}
	// Secrets are redacted before a line is cut, where they would no
	// longer be recognised.
	kept := settingLines(redact.String(boundOutput(res)), readBody)
	if len(kept) == 0 {
		return
	}
	o := base
	o.Kind = KindRead
	if !tc.Time.IsZero() {
		o.Time = tc.Time
	}
	o.Title = "Read " + path.Base(tc.FilePath) + ": " + text.ClipLine(kept[0], 120)
	o.Body = "Read " + tc.FilePath + "\n" + strings.Join(kept, "\n")
	o.Files = []string{tc.FilePath}
	// A later checkpoint's latest read of the file stands for it.
	o.key = "read " + base.SessionID + " " + tc.FilePath
	o.replace = true
	if r.byPath == nil {
		r.byPath = make(map[string]int)
	}
	if i, ok := r.byPath[tc.FilePath]; ok {
		r.obs[i] = Observation{}
	}
	r.byPath[tc.FilePath] = len(r.obs)
	r.obs = append(r.obs, o)
}

// observations are the files' observations, the last maxSessionReads.
func (r *readsByFile) observations() []Observation {
	out := slices.DeleteFunc(r.obs, func(o Observation) bool { return o.Title == "" })
	return out[max(0, len(out)-maxSessionReads):]
}

// withoutNumber is a line of Read's result without the number Read puts
// before it ("    12→").
func withoutNumber(l string) string {
	t := strings.TrimLeft(l, " \t")
	n := len(t) - len(strings.TrimLeft(t, "0123456789"))
	if n > 0 && strings.HasPrefix(t[n:], "→") {
		return t[n+len("→"):]
	}
	return l
}

// identEnd is where the name at the start of l ends: a letter or "_",
// then letters, digits and "_" (and "." and "-" when dotted); 0 when l
// does not start with one.
func identEnd(l string, dotted bool) int {
	for i, r := range l {
		switch {
		case unicode.IsLetter(r) || r == '_':
		case i > 0 && (unicode.IsDigit(r) || dotted && (r == '.' || r == '-')):
		default:
			return i
		}
	}
	return len(l)
}

// isAttribute says whether l sets an attribute to a value: "@ttl 30".
func isAttribute(l string) bool {
	if !strings.HasPrefix(l, "@") {
		return false
	}
	n := identEnd(l[1:], false)
	rest := l[1+n:]
	return n > 0 && strings.HasPrefix(rest, " ") && strings.TrimSpace(rest) != ""
}

// isSetting says whether l is a name (quoted or not) set to a value with
// ":", "=", "=>" or ":=": "scrollback: 10000", "port = 4000".
func isSetting(l string) bool {
	l = strings.TrimLeft(l, `@"'`)
	n := identEnd(l, true)
	if n == 0 {
		return false
	}
	rest := strings.TrimLeft(strings.TrimLeft(l[n:], `"'`), " \t")
	for _, op := range []string{":=", "=>", ":", "="} {
		if v, ok := strings.CutPrefix(rest, op); ok {
			v = strings.TrimLeft(v, " \t")
			// "==" compares; "::" is a type or a path.
			return v != "" && !strings.HasPrefix(v, "=") && !strings.HasPrefix(rest, "::")
		}
	}
	return false
}

// declaring are the words that declare a name in the common languages.
var declaring = wordSet(`def defp defmodule defmacro defstruct defimpl defprotocol func function class const let var
	type interface struct enum config field attribute schema module`)

// isDeclaration says whether l declares a name: a declaring word (after
// "export" or "pub"), then what it declares.
func isDeclaration(l string) bool {
	fs := strings.Fields(l)
	if len(fs) > 0 && (fs[0] == "export" || fs[0] == "pub") {
		fs = fs[1:]
	}
	return len(fs) > 1 && declaring()[fs[0]]
}

// isDocOpen says whether l opens a doc block: Elixir's @moduledoc or
// @doc, a docstring, a JSDoc comment.
func isDocOpen(l string) bool {
	switch fs := strings.Fields(l); {
	case len(fs) == 1:
		return fs[0] == `"""` || fs[0] == "/**"
	case len(fs) == 2:
		return (fs[0] == "@moduledoc" || fs[0] == "@doc" || fs[0] == "@typedoc") && strings.HasSuffix(fs[1], `"""`)
	}
	return false
}

// settingLines are the lines of a file's text that set a value, describe
// it (a doc block's first lines) or declare a name, in that order of
// preference and each kind in the file's order, at most limit bytes.
func settingLines(s string, limit int) []string {
	var values, docs, decls []string
	inDoc := 0 // lines of the open doc block so far, plus one
	seen := map[string]bool{}
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(withoutNumber(l))
		if inDoc > 0 && (strings.HasPrefix(l, `"""`) || strings.HasPrefix(l, "*/")) {
			inDoc = 0
			continue
		}
		if inDoc == 0 && isDocOpen(l) {
			inDoc = 1
			continue
		}
		if !strings.ContainsFunc(l, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
			continue
		}
		l = text.ClipLine(l, outputLine)
		if inDoc > 0 {
			docs = append(docs, strings.TrimLeft(l, "* "))
			if inDoc++; inDoc > docLines {
				inDoc = 0
			}
			continue
		}
		if seen[l] {
			continue
		}
		seen[l] = true
		switch {
		case strings.HasPrefix(l, "#") || strings.HasPrefix(l, "//") || strings.HasPrefix(l, "--"):
			// A comment sets nothing.
		case isAttribute(l) || isSetting(l) && !opener(l):
			values = append(values, l)
		case isDeclaration(l):
			decls = append(decls, l)
		}
	}
	var out []string
	n := 0
	for _, group := range [][]string{values, docs, decls} {
		for _, l := range group {
			if n+len(l)+1 > limit {
				break
			}
			out = append(out, l)
			n += len(l) + 1
		}
	}
	return out
}

// opener says whether a setting's line only opens a block ("x = [",
// "config :app, Repo,", "... do"): its value is on the lines after.
func opener(l string) bool {
	v := strings.TrimSpace(strings.TrimRight(l, ",;"))
	for _, end := range []string{"[", "{", "(", "%{", " do", "->", "fn", "=>", "=", ":"} {
		if strings.HasSuffix(v, end) {
			return true
		}
	}
	return false
}
