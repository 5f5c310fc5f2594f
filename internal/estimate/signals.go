package estimate

import "strings"

// Signals are the features of a spec that plausibly mean more work per
// token: paths to open and change, code to write, boxes to tick. They are
// counted and shown, but they do not weigh on the estimate. Over the
// fixtures' 22 tasks, paths per spec token did not predict the ratio
// (Spearman rho +0.01), nor did list items (-0.32); no fixture spec has a
// code block or a checklist, so for those there is no evidence at all
// (TestSignalsDoNotPredictRatio). A weight would be a guess presented as a
// measurement.
type Signals struct {
	// Paths are the distinct file paths the spec names.
	Paths int `json:"paths"`
	// CodeBlocks are fenced code blocks.
	CodeBlocks int `json:"code_blocks"`
	// Checklist counts "- [ ]" and "- [x]" items.
	Checklist int `json:"checklist"`
	Headings  int `json:"headings"`
	// ListItems are top-level list items.
	ListItems int `json:"list_items"`
}

// CountSignals counts the signals in a Markdown spec.
func CountSignals(spec string) Signals {
	var s Signals
	paths := map[string]bool{}
	for _, l := range parse(spec) {
		if l.opens {
			s.CodeBlocks++
		}
		if l.fenced {
			continue
		}
		if l.heading > 0 {
			s.Headings++
		}
		if l.item {
			s.ListItems++
		}
		if checkbox(l.text) {
			s.Checklist++
		}
		for i, span := range strings.Split(l.text, "`") {
			quoted := i%2 == 1
			for _, w := range strings.FieldsFunc(span, func(r rune) bool {
				return strings.ContainsRune(" \t()[]{}<>\"',*", r)
			}) {
				if p, ok := asPath(w, quoted); ok {
					paths[p] = true
				}
			}
		}
	}
	s.Paths = len(paths)
	return s
}

// checkbox reports whether a line is a task list item, at any depth.
func checkbox(s string) bool {
	s = strings.TrimLeft(s, " \t")
	n := listMarker(s)
	if n == 0 {
		return false
	}
	s = s[n:]
	return len(s) >= 3 && s[0] == '[' && strings.IndexByte(" xX", s[1]) >= 0 && s[2] == ']'
}

// asPath reports whether a word names a file or directory. In backticks a
// word with a slash or a file extension is one; in prose the word must
// also look like one (a dot in its last element, a leading ./, ../, / or
// ~/, a trailing slash, or two slashes), so that "and/or" is not. URLs,
// versions (v1.2) and abbreviations (e.g.) are not paths.
func asPath(w string, quoted bool) (string, bool) {
	w = strings.TrimRight(w, ".:;!?")
	if w == "" || strings.Contains(w, "://") || strings.HasPrefix(w, "@") || strings.Contains(w, "//") {
		return "", false
	}
	last := w[strings.LastIndexByte(w, '/')+1:]
	ext := hasExtension(last)
	if !strings.Contains(w, "/") {
		return w, ext
	}
	if !strings.ContainsFunc(w, isLetter) {
		return "", false
	}
	if quoted || ext || strings.Count(w, "/") >= 2 || strings.HasSuffix(w, "/") {
		return w, true
	}
	for _, p := range []string{"./", "../", "/", "~/"} {
		if strings.HasPrefix(w, p) {
			return w, true
		}
	}
	return "", false
}

// hasExtension reports whether a file name ends in a short lower-case
// extension after a name with a letter: go.mod, run.sh, README.md.
func hasExtension(name string) bool {
	dot := strings.LastIndexByte(name, '.')
	if dot <= 0 || dot == len(name)-1 || len(name)-dot-1 > 5 {
		return false
	}
	if strings.EqualFold(name, "e.g") || strings.EqualFold(name, "i.e") {
		return false
	}
	for _, r := range name[dot+1:] {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return strings.ContainsFunc(name[:dot], isLetter)
}

func isLetter(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' }
