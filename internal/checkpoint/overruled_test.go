package checkpoint

import "testing"

func TestOverrules(t *testing.T) {
	tests := []struct {
		name           string
		later, earlier string
		want           bool
	}{
		{"a later plan replaces the earlier one",
			"Done: Encode() now rejects levels above 23 with absl::InvalidArgumentError instead of clamping, and the tile tests pass.",
			"I'll clamp levels above 23 down to 23 inside Encode(), because a hard error there would turn into a 500.", true},
		{"a short reply refuses outright",
			"no enum. plain string reason_code, validated server-side. mobile pins old enum sets, new values break them.",
			"a RefundReason enum, and field 4 (reason) switched to it", true},
		{"a replacement about something else",
			"I'll use encoding/csv instead of hand-written quoting for the export.",
			"I'll clamp levels above 23 down to 23 inside Encode().", false},
		{"a long sentence's bare no does not refuse",
			"There is no test for the header row yet, so the export keeps its current quoting for now.",
			"Add a test for the header row of the export.", false},
		{"a refusal of another word",
			"no rush.",
			"a RefundReason enum, and field 4 (reason) switched to it", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := overrules(tt.later, tt.earlier); got != tt.want {
				t.Errorf("overrules = %v, want %v (refused %q)", got, tt.want, refused(tt.later, true))
			}
		})
	}
}
