package mcpserver_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/cairn-agent/cairn/internal/mcpserver"
	"github.com/cairn-agent/cairn/internal/mcpserver/mcptest"
	"github.com/cairn-agent/cairn/internal/memory"
	"github.com/cairn-agent/cairn/internal/sqlite"
)

// The memory tools' conformance cases against the real store, as `cairn
// mcp` serves them.
func TestMemoryCasesOnTheStore(t *testing.T) {
	mcptest.MemoryCases(t, func(t *testing.T) mcpserver.Memory {
		db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "cairn.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return mcpserver.Store{M: memory.New(db)}
	})
}
