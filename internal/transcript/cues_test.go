package transcript

import (
	"slices"
	"strings"
	"testing"
)

// The gates' sets answer what containsAny over their strings answers.
func TestCueSet(t *testing.T) {
	sets := []struct {
		name  string
		set   *cueSet
		cues  []string
		lower bool
	}{
		{"decision gate", decisionGate(), slices.Concat(append(gateCues, refusalGate)...), false},
		{"finding gate", findingGate(), slices.Concat(shapeGate...), true},
		{"overlapping", newCueSet([]string{"abcd", "bce", "cdx", "d"}), []string{"abcd", "bce", "cdx", "d"}, false},
		{"nested", newCueSet([]string{"she", "he", "hers", "his"}), []string{"she", "he", "hers", "his"}, false},
		{"empty string", newCueSet([]string{""}), []string{""}, false},
		{"none", newCueSet(), nil, false},
	}
	texts := []string{"", "a", "Decision: keep it", "We decided to", "I didn't", "the cache is shared", "It turns out the cache is shared",
		"this does not hold", "abcx", "abce", "xxcdx", "ush", "ahis", "hershey", "I'd rather", "Since then", "since then", "OPTION",
		"Option A", "n't", "don't ", " never ", "é Because ü", strings.Repeat("x", 5000) + " rather than"}
	for _, s := range sets {
		t.Run(s.name, func(t *testing.T) {
			for _, text := range texts {
				if s.lower {
					text = strings.ToLower(text)
				}
				if got, want := s.set.in(text), containsAny(text, s.cues); got != want {
					t.Errorf("in(%.60q) = %v, containsAny %v", text, got, want)
				}
			}
		})
	}
}

func FuzzCueSet(f *testing.F) {
	for _, s := range []string{"Decision: keep it", "It turns out", "I didn't", "does not", "xx rather than yy", "\xff\x00"} {
		f.Add(s, "not", "rather")
	}
	gate := decisionGate()
	all := slices.Concat(append(gateCues, refusalGate)...)
	f.Fuzz(func(t *testing.T, text, a, b string) {
		if got, want := gate.in(text), containsAny(text, all); got != want {
			t.Fatalf("decision gate in(%q) = %v, containsAny %v", text, got, want)
		}
		cues := []string{a, b}
		if got, want := newCueSet(cues).in(text), containsAny(text, cues); got != want {
			t.Fatalf("set %q in(%q) = %v, containsAny %v", cues, text, got, want)
		}
	})
}
