package checkpoint

import (
	"testing"

	"github.com/cairn-agent/cairn/internal/ledger"
)

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

func TestThin(t *testing.T) {
	for _, tt := range []struct {
		it   ledger.Item
		want bool
	}{
		{ledger.Item{Text: "Noted for later", Kind: ledger.Deferred, By: ledger.ByAssistant}, true},
		{ledger.Item{Text: "status?", Kind: ledger.Question, By: ledger.ByUser}, true},
		{ledger.Item{Text: "later: metrics per reason_code", Kind: ledger.Deferred, By: ledger.ByUser}, false},
		{ledger.Item{Text: "run the migration", Kind: ledger.Request, By: ledger.ByUser}, false},
		{ledger.Item{Text: "why is it slow?", Kind: ledger.Question, By: ledger.ByUser}, false},
	} {
		if got := thin(tt.it); got != tt.want {
			t.Errorf("thin(%q) = %v, want %v", tt.it.Text, got, tt.want)
		}
	}
}
