package e2e

import (
	"context"
	"testing"

	"github.com/cairn-agent/cairn/e2e/gemini"
)

// TestGeminiMeterTurnByTurn: after every turn of a real Gemini CLI
// session, cairn status reads exactly the prompt count the fake reported
// for the turn's last model request, with Gemini CLI's window (1,048,576)
// and its compression point (model.compressionThreshold 0.075 of it), and
// counts the turns and the compression, also after it.
func TestGeminiMeterTurnByTurn(t *testing.T) {
	t.Parallel()
	bin := gemini.Require(t)
	if built.err != nil {
		t.Fatal(built.err)
	}
	fake := startGeminiFake(t)
	s := gemini.NewSession(t, bin, fake.URL, 0.075)
	ctx := context.Background()
	turns := []struct {
		prompt      string
		reply       gemini.Reply
		want        int
		compression int
	}{
		{"What does the exporter do?", gemini.Reply{Text: "It writes CSV.", PromptTokens: 12000}, 12000, 0},
		{"And the importer?", gemini.Reply{Text: "It reads JSON.", PromptTokens: 25000}, 25000, 0},
		{"List the package.", gemini.Reply{Command: "echo ledger.go", Text: "One file.", PromptTokens: 41000}, 41000, 0},
		// The call's answer reports 99,000, over 78,643: Gemini CLI
		// compresses before the request after the tool.
		{"List it again.", gemini.Reply{Command: "echo ledger.go", CallTokens: 99000, PromptTokens: 5000, Text: "Still one file."}, 5000, 1},
		{"Go on.", gemini.Reply{Text: "Going on.", PromptTokens: 6500}, 6500, 1},
	}
	for i, tn := range turns {
		fake.Script(tn.reply)
		if _, err := s.Turn(ctx, tn.prompt); err != nil {
			t.Fatalf("turn %d: %v", i+1, err)
		}
		// The project's latest session, as cairn finds it among Gemini
		// CLI's chats (a resumed session leaves a stray copy beside the
		// one it goes on writing).
		out, err := runCairnGemini(s, "status", "--json")
		if err != nil {
			t.Fatal(err)
		}
		var st statusJSON
		if !decodeCairn(t, out, statusKeys, &st) {
			continue
		}
		c := st.Context
		t.Logf("turn %d: the fake reported %d; cairn reads %d (%s), window %d, threshold %d, %d compactions",
			i+1, tn.want, c.Tokens, c.Source, c.Window, c.Threshold, len(st.Compactions))
		if c.Tokens != tn.want {
			t.Errorf("turn %d: cairn reads %d tokens, the fake reported %d", i+1, c.Tokens, tn.want)
		}
		// 0.075 of 1,048,576 is 78,643.2: the first whole count that
		// reaches it is 78,644.
		if c.Window != 1048576 || c.Threshold != 78644 {
			t.Errorf("turn %d: window %d, threshold %d; want Gemini CLI's 1,048,576 and 0.075 of it, 78,644", i+1, c.Window, c.Threshold)
		}
		if len(st.Compactions) != tn.compression {
			t.Errorf("turn %d: %d compactions counted, want %d", i+1, len(st.Compactions), tn.compression)
		}
	}
}
