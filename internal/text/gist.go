package text

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Gist cuts s to at most n bytes like Clip, but keeps the run of clauses
// that carries the most rather than the head: a constraint's "has to stay
// green with both -c opt and --config=asan" after a long preamble, an
// error's "Bad configuration option: KexAlgorithm" after the tool's JSON,
// a question put at the end of a long prompt. A clause is what lies
// between punctuation followed by a space (", ", "; ", ": ", ". ", "? ");
// it carries names in code, paths and flags, numbers, negations, words of
// failure and questions. One run, not scattered pieces, so that it reads
// as the sentence it was; the first clause, which says what the text is
// about, goes in front when there is room. An ellipsis marks each cut. s
// as it is when it fits, on one line when it must be cut.
func Gist(s string, n int) string { return gist(s, n, false) }

// GistError is Gist for an error message: the run kept holds the last
// clause with a word of failure, where a chain of errors puts its cause
// ("fatal: [web1]: FAILED! => {... "stderr": "line 31: Bad configuration
// option: KexAlgorithm"}", "open config: read x.yaml: no such file").
func GistError(s string, n int) string { return gist(s, n, true) }

func gist(s string, n int, cause bool) string {
	if len(s) <= n {
		return s
	}
	if s = OneLine(s); len(s) <= n {
		return s
	}
	cs := clauses(s)
	if len(cs) < 2 {
		return Clip(s, n)
	}
	// A name counts where it first appears: the path a tool repeats in
	// its message is no more news the second time.
	w := make([]int, len(cs))
	seen := make(map[string]bool)
	for i, c := range cs {
		w[i] = weight(c, seen)
		if !cause {
			w[i] += said(c, i == 0 || strings.ContainsAny(cs[i-1][len(cs[i-1])-1:], ".?!:"), seen)
		}
	}
	// For a cause, the run holds the last clause with a failure word and
	// the one after it ("Bad configuration option: KexAlgorithm").
	from, to := len(cs), -1
	if cause {
		for i, c := range cs {
			if failing(c) {
				from, to = i, min(i+1, len(cs)-1)
			}
		}
	}
	keep := make([]bool, len(cs))
	bi, bj, best := -1, -1, 0
	for i := range cs {
		if i > from {
			break
		}
		size, sum := 0, 0
		for j := i; j < len(cs); j++ {
			size += len(cs[j]) + 1
			sum += w[j]
			cost := size
			if i > 0 {
				cost += len(Ellipsis) + 1
			}
			if j < len(cs)-1 {
				cost += len(Ellipsis)
			}
			if cost > n {
				break
			}
			if sum > best && j >= to {
				bi, bj, best = i, j, sum
			}
		}
	}
	if bi < 0 || bi == 0 {
		return Clip(s, n) // the head is the gist, or nothing is
	}
	for k := bi; k <= bj; k++ {
		keep[k] = true
	}
	// The first clause, and the clauses after the run, while they fit.
	keep[0] = true
	if len(joinKept(cs, keep)) > n {
		keep[0] = false
	}
	for k := bj + 1; k < len(cs); k++ {
		keep[k] = true
		if len(joinKept(cs, keep)) > n {
			keep[k] = false
			break
		}
	}
	return joinKept(cs, keep)
}

// joinKept joins the clauses kept, an ellipsis for each run left out.
func joinKept(cs []string, keep []bool) string {
	var b strings.Builder
	gap := false
	for i, c := range cs {
		if !keep[i] {
			gap = true
			continue
		}
		if gap {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(Ellipsis)
			b.WriteByte(' ')
			gap = false
		} else if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(c)
	}
	if gap {
		b.WriteString(Ellipsis)
	}
	return b.String()
}

// clauses splits s after punctuation followed by white space, outside
// backquotes; each clause keeps its punctuation, none its spaces.
func clauses(s string) []string {
	var out []string
	start, code := 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '`' && !strings.HasPrefix(s[i:], "```") && (i == 0 || s[i-1] != '`') {
			code = !code
			continue
		}
		if code || !strings.ContainsRune(",;:.?!", rune(c)) || i+1 >= len(s) || (s[i+1] != ' ' && s[i+1] != '\t') {
			continue
		}
		if t := strings.TrimSpace(s[start : i+1]); t != "" {
			out = append(out, t)
		}
		start = i + 1
	}
	if t := strings.TrimSpace(s[start:]); t != "" {
		out = append(out, t)
	}
	return out
}

// weight is what a clause carries: a name in code, a path or a flag
// counts two, a number one, a negation, a word of failure or a question
// two each.
func weight(c string, seen map[string]bool) int {
	w := 0
	if strings.HasSuffix(c, "?") {
		w += 2
	}
	for _, f := range strings.Fields(c) {
		t := strings.Trim(f, ".,;:!?\"'“”()[]{}")
		lower := strings.ToLower(t)
		switch {
		case t == "" || !strings.ContainsFunc(t, unicode.IsLetter) && !strings.ContainsAny(t, "0123456789"):
		case negation(lower) || failure(lower):
			w += 4
		case seen[lower]:
		case codeLike(t):
			w += 2
		case strings.ContainsAny(t, "0123456789"):
			w++
		}
		seen[lower] = true
	}
	return w
}

// said is what a clause of someone's words carries besides what weight
// counts: who (a name, a capitalised word not at a sentence's start:
// "Tomasz", "SAP"; a possessive: "the finance team's"), whose (an
// owner: "belongs to", "owns"), and why ("because", "since", "so that",
// "due to") count two each, a name where it first appears. An answer's
// "that code belongs to Tomasz's team" is what it carries, not its "no
// rush". Not for errors, whose capitalised words are types and levels.
func said(c string, sentenceStart bool, seen map[string]bool) int {
	w := 0
	fs := strings.Fields(c)
	// In a heading or a title every word is capitalised: none is a name.
	caps := 0
	for _, f := range fs {
		if r, _ := utf8.DecodeRuneInString(strings.TrimLeft(f, "#*_(\"'“")); unicode.IsUpper(r) {
			caps++
		}
	}
	titled := caps*3 > len(fs)
	for i, f := range fs {
		t := strings.Trim(f, ".,;:!?\"'“”()[]{}")
		lower := strings.ToLower(t)
		bare := strings.TrimSuffix(strings.TrimSuffix(t, "'s"), "’s")
		switch {
		case t == "":
			continue
		case bare != t || strings.HasSuffix(t, "s'") && len(t) > 2:
			w += 2 // a possessive
		}
		if r, _ := utf8.DecodeRuneInString(bare); titled {
		} else if unicode.IsUpper(r) && strings.IndexFunc(bare, unicode.IsLower) > 0 &&
			!(i == 0 && sentenceStart) && !strings.HasPrefix(f, "“") && !strings.HasPrefix(f, "\"") && !pronounI(lower) && !seen["name:"+lower] {
			seen["name:"+lower] = true
			w += 2
		} else if len(bare) > 1 && strings.ToUpper(bare) == bare && strings.IndexFunc(bare, unicode.IsLetter) >= 0 &&
			strings.IndexFunc(bare, func(r rune) bool { return !unicode.IsLetter(r) }) < 0 && !seen["name:"+lower] {
			seen["name:"+lower] = true
			w += 2 // SAP, CDN
		}
		switch lower {
		case "because", "since", "belongs", "belong", "owns", "owned", "owner", "owners", "maintains", "maintained":
			w += 2
		case "so", "due":
			if i+1 < len(fs) && (strings.ToLower(fs[i+1]) == "that" || strings.ToLower(fs[i+1]) == "to") {
				w += 2
			}
		}
	}
	return w
}

func pronounI(w string) bool {
	switch w {
	case "i", "i'm", "i'd", "i'll", "i've", "i’m", "i’d", "i’ll", "i’ve":
		return true
	}
	return false
}

// codeLike: a token with the marks of code (backquotes, a path, a flag,
// an identifier with an underscore, a call, an inner capital).
func codeLike(t string) bool {
	if strings.HasPrefix(t, "-") && len(t) > 1 && t[1] != ' ' && !strings.ContainsAny(t[1:2], "0123456789") {
		return true // -c, --config=asan
	}
	if strings.ContainsAny(t, "`/_=<>") || strings.Contains(t, "::") || strings.Contains(t, "()") {
		return true
	}
	if i := strings.IndexByte(t, '.'); i > 0 && i < len(t)-1 && !strings.ContainsAny(t[i+1:i+2], "0123456789 ") {
		return true // file.go, pkg.Name
	}
	prev := rune(0)
	for i, r := range t {
		if i > 0 && unicode.IsUpper(r) && unicode.IsLower(prev) {
			return true // EncodeLegacy, KexAlgorithm
		}
		prev = r
	}
	return false
}

// failing: a clause with a word of failure.
func failing(c string) bool {
	for _, f := range strings.Fields(c) {
		if failure(strings.ToLower(strings.Trim(f, ".,;:!?\"'“”()[]{}"))) {
			return true
		}
	}
	return false
}

func negation(w string) bool {
	switch w {
	case "not", "no", "never", "nothing", "none", "nor", "without", "cannot", "neither", "nobody", "nowhere":
		return true
	}
	return strings.HasSuffix(w, "n't") || strings.HasSuffix(w, "n’t")
}

func failure(w string) bool {
	for _, p := range []string{"error", "fail", "fatal", "bad", "invalid", "missing", "denied", "refused", "unable",
		"panic", "exception", "unknown", "undefined", "timeout", "timed", "broken", "wrong", "unsupported", "forbidden"} {
		if strings.HasPrefix(w, p) {
			return true
		}
	}
	return false
}
