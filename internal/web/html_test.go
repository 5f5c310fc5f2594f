package web

import (
	stdhtml "html"
	"testing"
)

// TestEscIsEscapeString holds esc to html.EscapeString, which it stands
// in for.
func TestEscIsEscapeString(t *testing.T) {
	for _, s := range escSamples {
		t.Run(s, func(t *testing.T) {
			if got, want := esc(s), stdhtml.EscapeString(s); got != want {
				t.Errorf("esc(%q) = %q, html.EscapeString gives %q", s, got, want)
			}
		})
	}
}

var escSamples = []string{
	"", "plain", "<script>alert('x')</script>", `a "quoted" & 'single' <b>`,
	"&amp; already", "café <é> ✓", "\x00\xff<", ">>>", "trailing &", "&'<>\"",
}

func FuzzEsc(f *testing.F) {
	for _, s := range escSamples {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := esc(s), stdhtml.EscapeString(s); got != want {
			t.Errorf("esc(%q) = %q, html.EscapeString gives %q", s, got, want)
		}
	})
}
