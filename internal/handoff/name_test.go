package handoff

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// nameRE is the expression nameParts replaces: the two must agree on
// every name.
var nameRE = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2}-\d{4})(?:-(\d+))?\.md$`)

func agreeOnName(t *testing.T, name string) {
	t.Helper()
	stamp, n, ok := nameParts(name)
	m := nameRE.FindStringSubmatch(name)
	if (m != nil) != ok || ok && (m[1] != stamp || m[2] != n) {
		t.Fatalf("nameParts(%q) = %q, %q, %v; the expression %q", name, stamp, n, ok, m)
	}
}

func TestNamePartsAgreesWithExpression(t *testing.T) {
	for _, name := range []string{
		"2026-03-01-1015.md", "2026-03-01-1015-2.md", "2026-03-01-1015-12.md", "2026-03-01-1015-.md", "2026-03-01-1015.md.md",
		"2026-03-01-1015", "2026-03-01-101.md", "2026-03-01-10155.md", "2026-03-01_1015.md", "x2026-03-01-1015.md",
		"2026-03-01-1015-2a.md", "2026-03-01-1015--2.md", "2026-03-01-1015.MD", "", ".md", "2026-03-01-1015-2.md\n",
	} {
		agreeOnName(t, name)
	}
	pieces := []string{"2026", "03", "1", "0", "-", ".md", ".", "md", "x", "\n", "2026-03-01-1015", "-7", "٣"}
	r := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	for range 100000 {
		b.Reset()
		for range r.IntN(8) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		agreeOnName(t, b.String())
	}
}

func FuzzNameParts(f *testing.F) {
	f.Add("2026-03-01-1015-2.md")
	f.Fuzz(agreeOnName)
}
