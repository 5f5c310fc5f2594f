package cli

import "testing"

func TestIsOurs(t *testing.T) {
	tests := map[string]bool{
		"/usr/local/bin/cairn hook PreCompact":               true,
		shellQuote("/home/me/my tools/cairn") + " hook Stop": true,
		shellQuote("/it's/cairn") + " hook SessionEnd":       true,
		"cairn hook UserPromptSubmit":                        true,
		"/bin/cairn hook Frobnicate":                         false,
		"/bin/cairn status":                                  false,
		"/bin/other hook PreCompact":                         false,
		"/bin/cairn hook PreCompact && rm -rf /":             false,
		"":                                                   false,
		"'unterminated/cairn hook PreCompact":                false,
	}
	for cmd, want := range tests {
		if got := isOurs(cmd); got != want {
			t.Errorf("isOurs(%q) = %v, want %v", cmd, got, want)
		}
	}
	for _, h := range wanted("/opt/my tools/cairn") {
		if !isOurs(h.Command) {
			t.Errorf("our own command %q is not recognised", h.Command)
		}
	}
}
