package outcome

import (
	"strconv"
	"strings"
)

// The nouns of a count summary ("297 tests, 11 failures", "Tests run: 5,
// Failures: 1", "failed=0"), lowercased, by what a count of them means:
// any failure noun with a count above zero is a failure, a summary with
// failure nouns at zero or pass nouns is a pass, and neutral nouns only
// belong to a summary. A line with a noun not listed is not a summary:
// "3 files changed, 10 insertions(+)" is not one.
const (
	nounNeutral = iota
	nounFail
	nounPass
)

// nounClass is what a count's noun says of the run, and whether it is one
// of a summary's nouns. (A switch, not a package-level map: Go builds
// those in every process at start, the hooks' included.)
func nounClass(noun string) (class int, known bool) {
	switch noun {
	case "failed", "failures", "failure", "failing", "fail", "fails", "errors", "error", "errored", "broken",
		"invalid", "total errors", "offenses detected", "offense detected", "tests failed", "failed tests",
		"failed examples", "test failures", "unreachable", "test failed", "aborted":
		return nounFail, true
	case "passed", "passing", "valid", "pass", "passes", "succeeded", "successful":
		return nounPass, true
	case "tests", "test", "doctests", "doctest", "examples", "example", "properties", "property", "skipped",
		"skip", "skips", "pending", "ignored", "measured", "filtered out", "total", "todo", "todos", "excluded",
		"deselected", "warnings", "warning", "warn", "warns", "xfailed", "xpassed", "rerun", "reruns", "tests run",
		"tests completed", "runs", "assertions", "assertion", "snapshots", "snapshot", "suites", "suite",
		"test suites", "test files", "files", "file", "problems", "problem", "unnecessary skips", "obsolete",
		"written", "updated", "checks", "expectations", "benchmarks", "incomplete", "risky", "notices",
		"deprecations", "informations", "information", "files inspected", "file inspected", "cancelled", "flaky",
		"retried", "ok", "changed", "rescued", "canceled", "completed":
		return nounNeutral, true
	}
	return 0, false
}

// maxSummary is the longest line read as a summary: cargo's "test result:"
// line with large counts, a pytest line padded with "=" to 120 columns.
const maxSummary = 240

// Labels in front of a summary, longest first where one is a prefix of
// another.
var countLabels = []string{"Test Suites:", "Test Files", "Tests:", "Snapshots:", "test result: ok.", "test result: FAILED.",
	"Found", "DONE", "Results:", "Summary:", "Tests", "Suites"}

// countsLine reads a count summary. It returns the counts normalised
// ("11 failures, 297 tests" stays in its order, "Failures: 1" becomes
// "1 failures"), whether a failure count is above zero, and ok when the
// line is a summary with at least one failure or pass noun.
func countsLine(t string) (norm string, failed bool, ok bool) {
	// Summaries are short; most long lines with digits are logs.
	if len(t) > maxSummary {
		return "", false, false
	}
	s := trimDecoration(t)
	// TAP and node's runner put the noun first: "# fail 1", "ℹ pass 5".
	tap := strings.HasPrefix(t, "#") || strings.HasPrefix(t, "ℹ")
	for _, l := range countLabels {
		if strings.HasPrefix(s, l) {
			rest := s[len(l):]
			// ScalaTest's "Tests: succeeded 5, failed 1, canceled 0" puts
			// the noun first too, after a label with a colon.
			tap = tap || strings.HasSuffix(l, ":")
			if l == "Tests" || l == "Suites" || l == "Found" || l == "DONE" || l == "Test Files" {
				// Without a colon the label must be followed by a count.
				r := strings.TrimLeft(rest, " \t")
				if len(r) == len(rest) || r == "" || r[0] < '0' || r[0] > '9' {
					continue
				}
			}
			s = rest
			break
		}
	}
	s = pairsAsList(s)
	var b strings.Builder
	decisive, counted := false, false
	items, namedItems := 0, 0
	for s != "" {
		k := strings.IndexAny(s, ",;|()")
		piece := s
		if k >= 0 {
			piece, s = s[:k], s[k+1:]
		} else {
			s = ""
		}
		piece = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(piece), ".!"))
		if piece == "" || isDuration(piece) || isDigits(piece) || isPercent(piece) || strings.HasPrefix(piece, "finished in ") || strings.HasPrefix(piece, "checked ") {
			continue
		}
		// ctest's "2 tests failed out of 37": the total is a count of its own.
		if i := strings.Index(piece, " out of "); i > 0 && isDigits(strings.TrimSpace(piece[i+len(" out of "):])) {
			piece = piece[:i]
		}
		// rackunit's "2/14 test failures": two of fourteen.
		if i := strings.IndexByte(piece, '/'); i > 0 && isDigits(piece[:i]) {
			if j := strings.IndexByte(piece[i:], ' '); j > 1 && isDigits(piece[i+1:i+j]) {
				piece = piece[:i] + piece[i+j:]
			}
		}
		n, noun, order, good := countItem(piece, tap)
		if !good && items == 0 {
			// "14 resources found parsing stdin - Valid: 13, Errors: 1":
			// a phrase before " - " introduces the counts.
			if i := strings.LastIndex(piece, " - "); i > 0 {
				n, noun, order, good = countItem(strings.TrimSpace(piece[i+3:]), tap)
			}
		}
		if !good {
			// "3 failed, 10 passed in 1.2s", "Found 2 errors in 1 file":
			// what follows " in " is where or how long.
			if i := strings.Index(piece, " in "); i > 0 {
				n, noun, order, good = countItem(piece[:i], tap)
			}
			if !good {
				return "", false, false
			}
		}
		class, known := nounClass(noun)
		if !known {
			return "", false, false
		}
		if class != nounNeutral {
			decisive = true
		}
		if class == nounFail && n > 0 {
			failed = true
		}
		counted = counted || n > 0
		if order == named {
			namedItems++
		}
		if items > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(n))
		b.WriteByte(' ')
		b.WriteString(noun)
		items++
	}
	// "Error: 404" alone is a message, not a summary; "Tests run: 5,
	// Failures: 1" is one.
	if !decisive || items == 1 && namedItems == 1 {
		return "", false, false
	}
	if !counted {
		// "0 tests failed", "0 total errors, 0 skipped": a pass that
		// counts nothing says no more than that it passed.
		return "", false, true
	}
	return b.String(), failed, true
}

// pairsAsList reads a summary of "noun=N" pairs separated by spaces
// (dbt's "Done. PASS=3 WARN=0 ERROR=1 SKIP=0 TOTAL=4", Ansible's recap
// "web1 : ok=3 changed=1 unreachable=0 failed=1") as the list countsLine
// reads, "PASS=3, WARN=0, ...": the words before the pairs, a few at
// most, introduce them. A line without at least two such pairs, or with
// other words between them, is returned as it is.
func pairsAsList(s string) string {
	fs := strings.Fields(s)
	first := len(fs)
	for first > 0 && isPair(fs[first-1]) {
		first--
	}
	if len(fs)-first < 2 || first > 3 || strings.ContainsAny(s, ",;") {
		return s
	}
	return strings.Join(fs[first:], ", ")
}

// isPair reads "noun=N".
func isPair(f string) bool {
	i := strings.IndexByte(f, '=')
	return i > 0 && i < len(f)-1 && isNoun(f[:i]) && isDigits(f[i+1:])
}

// Orders of a count item.
const (
	numberFirst = iota // "3 failed"
	named              // "Failures: 1", "failed=0"
	nounFirst          // "# fail 1"
)

// countItem reads "<N> <noun>", "<Noun>: <N>", "<noun>=<N>" or, when tap
// is set, "<noun> <N>". The noun comes back lowercased.
func countItem(p string, tap bool) (n int, noun string, order int, ok bool) {
	if p[0] >= '0' && p[0] <= '9' {
		i := 0
		for i < len(p) && p[i] >= '0' && p[i] <= '9' {
			i++
		}
		if i == len(p) || p[i] != ' ' {
			return 0, "", 0, false
		}
		n, err := strconv.Atoi(p[:i])
		noun := strings.TrimSpace(p[i+1:])
		return n, lowerASCII(noun), numberFirst, err == nil && isNoun(noun)
	}
	// The noun first: the count is the digits at the end.
	j := len(p)
	for j > 0 && p[j-1] >= '0' && p[j-1] <= '9' {
		j--
	}
	if j == len(p) || j == 0 {
		return 0, "", 0, false
	}
	var head string
	order = named
	switch {
	case strings.HasSuffix(p[:j], ": "):
		head = p[:j-2]
	case p[j-1] == '=':
		head = p[:j-1]
	case p[j-1] == ' ' && tap, aligned(p[:j]):
		// "# fail 1" after TAP's "#"; a table's row, its count in a
		// column of its own ("Failing           3", GUT's and other
		// runners' totals, one count to a line).
		head, order = strings.TrimSpace(p[:j]), nounFirst
		if strings.Contains(head, " ") {
			return 0, "", 0, false
		}
	default:
		return 0, "", 0, false
	}
	head = strings.TrimSpace(head)
	if !isNoun(head) {
		return 0, "", 0, false
	}
	n, err := strconv.Atoi(p[j:])
	return n, lowerASCII(head), order, err == nil
}

// aligned says the count after head stands in a column: a tab, or at
// least two spaces, before it.
func aligned(head string) bool {
	return strings.HasSuffix(head, "\t") || strings.HasSuffix(head, "  ")
}

// isNoun accepts letters, spaces and "_" "-": the shape of a count's noun.
func isNoun(s string) bool {
	if s == "" || len(s) > 40 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == ' ' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// isPercent accepts ctest's "95% tests passed", a share that the counts
// beside it say better.
func isPercent(s string) bool {
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
		i++
	}
	return i > 0 && i < len(s) && s[i] == '%'
}

// isDuration accepts "1.2s", "0.01 s", "12ms", "1.5 seconds", "0:00:01".
func isDuration(s string) bool {
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.' || s[i] == ':') {
		i++
	}
	if i == 0 {
		return false
	}
	switch strings.TrimSpace(s[i:]) {
	case "", "s", "ms", "m", "sec", "secs", "second", "seconds", "min", "minutes":
		return true
	}
	return false
}

// trimDecoration drops the rules and marks around a summary: "=== ... ===",
// "✖ 5 problems", "# pass 3", "ℹ tests 5", "[INFO] Tests run: ...".
func trimDecoration(t string) string {
	for _, p := range []string{"[INFO] ", "[ERROR] ", "[WARNING] ", "[WARN] "} {
		t = strings.TrimPrefix(t, p)
	}
	t = strings.TrimLeft(t, " \t=-_*#>")
	for _, m := range []string{"✖", "✓", "✔", "×", "✗", "❯", "ℹ", "⎯", "│", "┃", "●"} {
		t = strings.TrimPrefix(t, m)
	}
	return strings.Trim(t, " \t=-_*")
}

func lowerASCII(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'A' && c <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if b[j] >= 'A' && b[j] <= 'Z' {
					b[j] += 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return s
}
