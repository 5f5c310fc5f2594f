package mcpserver

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/continuity"
	"github.com/cairn-agent/cairn/internal/state"
)

// A call waiting for the Keeper, which another call holds, stops waiting
// when it is cancelled.
func TestBusyCancelled(t *testing.T) {
	config, dir := folder(t, []string{"a"}, nil)
	k := &continuity.Keeper{State: state.Store{Dir: filepath.Join(t.TempDir(), "state")}, DBPath: filepath.Join(t.TempDir(), "cairn.db"), Now: time.Now}
	c := newContextTools(k, &locator{configDir: config, dir: dir}, time.Now, time.UTC, &logger{w: io.Discard})
	c.busy <- struct{}{} // another call holds it
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := c.status(ctx, call{}, statusIn{})
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("status while the Keeper is busy, cancelled: %v", err)
	}
}
