package cli

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-agent/cairn/internal/fixtures"
	"github.com/cairn-agent/cairn/internal/state"
)

// A cold `cairn status` of a large transcript reads it for the head only
// and saves no body, and says what it said when it read the whole session
// (text and JSON): that is, what it says with the state a full read saved.
func TestStatusColdOfLargeTranscript(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 40 MB transcript")
	}
	ctx := context.Background()
	a, out, errb := testApp(t)
	big := filepath.Join(t.TempDir(), "big.jsonl")
	if _, err := fixtures.Big(a.Getenv("FIXTURES"), big, 40<<20); err != nil {
		t.Fatal(err)
	}
	getenv := a.Getenv
	stateHome := func(dir string) {
		a.Getenv = func(k string) string {
			if k == "XDG_STATE_HOME" {
				return dir
			}
			return getenv(k)
		}
	}
	status := func(args ...string) string {
		t.Helper()
		out.Reset()
		if code := Run(ctx, append([]string{"status", "--transcript", big}, args...), a); code != 0 {
			t.Fatalf("status: %s", errb)
		}
		return out.String()
	}

	cold := t.TempDir()
	stateHome(cold)
	coldJSON, coldText := status("--json"), status()
	st := state.Store{Dir: mustStateDir(t, a.Getenv)}
	if bodies, _ := filepath.Glob(filepath.Join(st.Dir, "sessions", "*.body")); len(bodies) > 0 {
		t.Errorf("a cold status saved a body: %v", bodies)
	}
	if _, err := os.Stat(st.File(big) + ".head"); err != nil {
		t.Errorf("a cold status saved no head: %v", err)
	}

	full := t.TempDir()
	stateHome(full)
	// The state a full read saves (what a cold status saved before).
	if _, err := (state.Store{Dir: mustStateDir(t, a.Getenv)}).Session(big, false); err != nil {
		t.Fatal(err)
	}
	if got := status("--json"); got != coldJSON {
		t.Errorf("status --json after a full read:\n%s\ncold:\n%s", got, coldJSON)
	}
	if got := status(); got != coldText {
		t.Errorf("status after a full read:\n%s\ncold:\n%s", got, coldText)
	}
}

func mustStateDir(t *testing.T, getenv func(string) string) string {
	t.Helper()
	dir, err := state.Dir(getenv)
	if err != nil {
		t.Fatal(err)
	}
	return dir
}
