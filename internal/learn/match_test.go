package learn

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// The regular expressions the matchers replace: each matcher must agree
// with its expression on every input.
var (
	datedRE   = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}[^—–-]*\s[—–-]+\s*([A-Za-z][\w/-]*):\s*(.+)$`)
	bracketRE = regexp.MustCompile(`^\[([A-Za-z][\w/-]*)\]\s*(.+)$`)
	phaseRE   = regexp.MustCompile(`(?im)^\s*(?:[-*]\s*)?(?:\*\*)?phase(?:\*\*)?\s*:\s*(?:\*\*)?\s*/?([A-Za-z][\w-]*)`)
	metaRE    = regexp.MustCompile(`(?i)^\s*[-*]\s*(\*\*)?confirmed(\*\*)?\s*:`)
)

// agree fails t when a matcher and its expression differ on s.
func agree(t *testing.T, s string) {
	t.Helper()
	check := func(name string, re *regexp.Regexp, groups []string, ok bool) {
		t.Helper()
		m := re.FindStringSubmatch(s)
		if (m != nil) != ok {
			t.Fatalf("%s(%q) = %v, the expression %q", name, s, ok, m)
		}
		for i, g := range groups {
			if ok && m[i+1] != g {
				t.Fatalf("%s(%q) group %d = %q, the expression %q", name, s, i+1, g, m[i+1])
			}
		}
	}
	p, title, ok := datedHeading(s)
	check("datedHeading", datedRE, []string{p, title}, ok)
	p, title, ok = bracketHeading(s)
	check("bracketHeading", bracketRE, []string{p, title}, ok)
	p, ok = phaseLine(s)
	check("phaseLine", phaseRE, []string{p}, ok)
	check("metaLine", metaRE, nil, metaLine(s))
}

func TestMatchersAgreeWithExpressions(t *testing.T) {
	for _, s := range []string{
		"", "2026-03-01 10:00 — implement: title", "2026-03-01 - debug: title", "2026-03-01 – Plan/x-1:  a title ",
		"2026-03-01-debug: x", "2026-03-01 10:00 —— implement:", "2026-03-01 10:00 — implement: \n", "2026-03-01 \n— a: \nb",
		"2026-03-01\t-\t_x: y", "2026-3-01 - a: b", "2026-03-01 - a:b\nc", "2026-03-01 - a:  ", "2026-03-01 x— a: b",
		"[implement] title", "[implement]title", "[impl/x-y] ", "[9x] t", "[x]", "[x] \n", "[x] \nfoo", "[x] foo\nbar",
		"Phase: implement", "- **phase**: /debug", "intro\n  * PHASE :** /Plan-2 more", "pha\u017fe: x", "phase: \u212aelvin",
		"phase: x\u212a\u017f", "phase: K", "**phase: x", "***phase: x", "* *phase: x", "-phase:x", "phase:\n\nx", "a\n\n- phase: b", "phase:- x",
		"- confirmed: 2", "* **Confirmed**: 1", "  -\tCONFIRMED :", "-** confirmed:", "- ***confirmed:", "confirmed:", "- confirmed",
	} {
		agree(t, s)
	}
}

// Random strings of the pieces the patterns care about, many times over.
func TestMatchersAgreeOnRandomInput(t *testing.T) {
	pieces := []string{"2026-03-01", "2026", "-", "–", "—", " ", "\t", "\n", "\r", "\v", "\f", ":", "[", "]", "*", "**", "/",
		"_", "x", "Q", "7", "phase", "PHASE", "pha\u017fe", "\u212a", "\u017f", "k", "confirmed", "CONFIRMED", "é", "\xff", "\xe2\x80"}
	r := rand.New(rand.NewPCG(1, 2))
	n := 200000
	if testing.Short() {
		n = 20000
	}
	var b strings.Builder
	for range n {
		b.Reset()
		for range r.IntN(12) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		agree(t, b.String())
	}
}

func FuzzMatchers(f *testing.F) {
	for _, s := range []string{"2026-03-01 10:00 — implement: title", "[implement] title", "- **phase**: /debug", "- confirmed: 2"} {
		f.Add(s)
	}
	f.Fuzz(agree)
}
