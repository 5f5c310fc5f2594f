package continuity

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/checkpoint"
	"github.com/cairn-agent/cairn/internal/state"
)

// PreCompact writes .pending in place: whatever a write cut short, or a
// read made while it is under way, shows (the new content's first bytes,
// over the earlier content's), reads as no announcement or as the whole
// new one, never as a mix of the two.
func TestPendingTorn(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	announcement := func(key string, turns int, first string) pending {
		return pending{Key: key, Trigger: "auto", Turns: turns, PreTokens: 150000, CompactingDue: true, At: at, Size: 4096,
			Checkpoint: &checkpoint.Checkpoint{SessionID: "sess-p", CreatedAt: at, Task: checkpoint.Task{First: first}}}
	}
	for _, tc := range []struct {
		name     string
		old, new pending
	}{
		// The same fields, the same length: only the values differ.
		{"same length", announcement("c2", 5, "Fix PEND-1."), announcement("c3", 6, "Fix PEND-2.")},
		{"over a longer one", announcement("c2", 5, "Fix PEND-1, and then the rest of the export."), announcement("c3", 6, "Fix PEND-2.")},
		{"over a shorter one", announcement("c2", 5, "Fix PEND-1."), announcement("c3", 6, "Fix PEND-2, and then the rest of the export.")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old, err := encodePending(tc.old)
			if err != nil {
				t.Fatal(err)
			}
			new, err := encodePending(tc.new)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i <= len(new); i++ {
				for _, seen := range [][]byte{new[:i], append(append([]byte{}, new[:i]...), old[min(i, len(old)):]...)} {
					p := decodePending(seen)
					switch {
					case bytes.Equal(seen, old):
						// Nothing that differs is written yet.
						if p == nil || !reflect.DeepEqual(*p, tc.old) {
							t.Fatalf("the earlier content reads as %+v", p)
						}
					case bytes.HasPrefix(seen, new):
						// The rest is the same as before, or the earlier
						// content's tail, not cut off yet.
						if p == nil || !reflect.DeepEqual(*p, tc.new) {
							t.Fatalf("the whole new content, %d bytes after it, reads as %+v", len(seen)-len(new), p)
						}
					case p != nil:
						t.Fatalf("%d bytes of %d written read as %+v", i, len(new), *p)
					}
				}
			}
			// In a file: what announce leaves is the new one alone.
			k := &Keeper{State: state.Store{Dir: t.TempDir()}}
			path := filepath.Join(t.TempDir(), "sess-p.jsonl")
			if err := k.savePending(path, tc.old); err != nil {
				t.Fatal(err)
			}
			if err := k.announce(path, tc.new); err != nil {
				t.Fatal(err)
			}
			if data, _ := os.ReadFile(k.pendingFile(path)); !bytes.Equal(data, new) {
				t.Errorf(".pending holds %q, want %q", data, new)
			}
			if p := k.loadPending(path); p == nil || !reflect.DeepEqual(*p, tc.new) {
				t.Errorf("loaded %+v", p)
			}
			if n, ok := k.pendingTurns(path); !ok || n != tc.new.Turns {
				t.Errorf("turns %d, %v; want %d", n, ok, tc.new.Turns)
			}
			// Cut short: no turns either.
			os.WriteFile(k.pendingFile(path), new[:len(new)-1], 0o600)
			if n, ok := k.pendingTurns(path); ok {
				t.Errorf("turns of a torn file: %d", n)
			}
		})
	}
	t.Run("earlier versions' JSON", func(t *testing.T) {
		data := []byte(`{"key":"c1","turns":3,"checkpoint":{"id":7}}`)
		if p := decodePending(data); p == nil || p.Key != "c1" || p.Checkpoint.ID != 7 {
			t.Errorf("decoded %+v", p)
		}
		k := &Keeper{State: state.Store{Dir: t.TempDir()}}
		path := filepath.Join(t.TempDir(), "sess-p.jsonl")
		os.MkdirAll(filepath.Dir(k.pendingFile(path)), 0o700)
		os.WriteFile(k.pendingFile(path), data, 0o600)
		if n, ok := k.pendingTurns(path); !ok || n != 3 {
			t.Errorf("turns %d, %v", n, ok)
		}
	})
	t.Run("no directory yet", func(t *testing.T) {
		k := &Keeper{State: state.Store{Dir: filepath.Join(t.TempDir(), "state")}}
		path := filepath.Join(t.TempDir(), "sess-p.jsonl")
		want := announcement("c1", 1, "Fix PEND-3.")
		if err := k.announce(path, want); err != nil {
			t.Fatal(err)
		}
		if p := k.loadPending(path); p == nil || !reflect.DeepEqual(*p, want) {
			t.Errorf("loaded %+v", p)
		}
	})
}

// decodePending never fails on what a file may hold, and what it decodes
// encodes back to itself.
func FuzzDecodePending(f *testing.F) {
	data, _ := encodePending(pending{Key: "c2", Turns: 4, Checkpoint: &checkpoint.Checkpoint{ID: 3}})
	f.Add(data)
	f.Add([]byte(`{"key":"c1"}`))
	f.Add([]byte(pendingMagic + "12 0011223344556677\n{\"key\":\"c1\"}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := decodePending(data)
		if p == nil {
			return
		}
		again, err := encodePending(*p)
		if err != nil {
			t.Fatal(err)
		}
		if q := decodePending(again); q == nil || !reflect.DeepEqual(p, q) {
			t.Errorf("%q decodes as %+v, its encoding %q as %+v", data, p, again, q)
		}
	})
}
