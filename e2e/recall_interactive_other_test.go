//go:build !unix

package e2e

import (
	"os"
	"testing"
)

// startInteractivePlay needs tmux, which the bench drives on unix only.
func startInteractivePlay(t *testing.T, p *play) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s runs the client under tmux, on unix only, and CI=true never skips", p.sc.Name)
	}
	t.Skipf("%s runs the client under tmux, on unix only", p.sc.Name)
}
