package checkpoint

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestIssueKeys(t *testing.T) {
	tests := map[string][]string{
		"Fix BILL-482 and OPS-7.":        {"BILL-482", "OPS-7"},
		"(ABC-123)":                      {"ABC-123"},
		"feat/BILL-482-export":           {"BILL-482"},
		"A-1 X1-2 AB-1234567 ab-12":      {"X1-2"},
		"XABCDEFGHIJ-1 ABCDEFGHIJ-1":     {"ABCDEFGHIJ-1"},
		"BILL-482x BILL_482 1BILL-4":     nil,
		"UTF-8 is not filtered here":     {"UTF-8"},
		"émigré-4 ÉTÉ-4 CAFÉ-9 K9-12 go": {"K9-12"},
	}
	for in, want := range tests {
		if got := issueKeys(in); !cmp.Equal(got, want) {
			t.Errorf("issueKeys(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestBeads(t *testing.T) {
	for in, want := range map[string]bool{"spotter-4te": true, "gt-jixim.2": true, "bd-a1b2.1.3": true,
		"Spotter-4te": false, "spotter-": false, "-x": false, "spotter-4te.": false, "a-b.c": false, "e2e": false} {
		if got := beadID(in); got != want {
			t.Errorf("beadID(%q) = %v", in, got)
		}
	}
	if got := beadsInCommand("bd show spotter-dov && bd update spotter-dov.2 --status done; bd dep add a-1 b-2; bd list x-y"); !cmp.Equal(got, []string{"spotter-dov", "spotter-dov.2", "a-1"}) {
		t.Errorf("beadsInCommand = %q", got)
	}
	if got := beadsInProse("Work on bead spotter-a0y. Beads gt-x1, bead Foo-1"); !cmp.Equal(got, []string{"spotter-a0y", "gt-x1"}) {
		t.Errorf("beadsInProse = %q", got)
	}
}

func TestIsConstraint(t *testing.T) {
	for in, want := range map[string]bool{
		"Never touch the migrations folder.":  true,
		"Use pnpm, not npm.":                  true,
		"Don’t push to main":                  true,
		"please do not log tokens":            true,
		"make sure the header row is written": true,
		"You should not rename files":         true,
		"Keep it under 80 columns at most":    true,
		"Look at the parser":                  false,
		"The neverending story":               false,
		"I use it daily":                      false,
		"users must-haves":                    true,
		"ensured":                             false,
	} {
		if got := isConstraint(in); got != want {
			t.Errorf("isConstraint(%q) = %v", in, got)
		}
	}
}

func TestNextSteps(t *testing.T) {
	for in, want := range map[string]bool{"Next steps:": true, "## Next steps": true, "**Remaining work:**": true,
		"TODO": true, "Next steps are unclear to me": false, "Plan:": true, "planning": false} {
		if got := isNextHeader(in); got != want {
			t.Errorf("isNextHeader(%q) = %v", in, got)
		}
	}
	for in, want := range map[string]string{"- a": "a", "* b ": "b", "• c": "c", "1. d": "d", "12) e": "e", "1.5 f": "", "-x": "", "3.": ""} {
		got, ok := listItem(in)
		if got != want || ok != (want != "") {
			t.Errorf("listItem(%q) = %q, %v", in, got, ok)
		}
	}
	for in, want := range map[string]bool{"Next, I'll write the docs.": true, "Then I’ll run the tests.": true, "I'll now commit.": true, "Nextcloud is down.": false} {
		if got := isNextSentence(in); got != want {
			t.Errorf("isNextSentence(%q) = %v", in, got)
		}
	}
}
