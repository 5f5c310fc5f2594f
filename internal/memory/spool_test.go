package memory

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
)

// What a process could not store waits in the spool, cleaned, and a drain
// stores it with the time it was made; a half-written last line is left
// out; the spool is gone after.
func TestSpoolDrain(t *testing.T) {
	st, path := openStore(t)
	sp := SpoolFor(path)
	sp.Now = st.Now
	obs := []Observation{
		{Project: "/p", SessionID: "s1", Kind: KindNote, Title: "uses ghp_abcdefghijklmnopqrstuvwxyz0123456789 for CI", Body: "keep <private>the admin pin 4411</private> out"},
		{Project: "/p", SessionID: "s1", Kind: KindNote, Title: "switched the cache to LRU", Body: "because the working set is small"},
	}
	if err := sp.Put(obs...); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(sp.Path)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"ghp_abcdefghijklmnopqrstuvwxyz0123456789", "4411"} {
		if strings.Contains(string(raw), secret) {
			t.Errorf("the spool holds %q:\n%s", secret, raw)
		}
	}
	// A crash in the middle of a later write.
	f, _ := os.OpenFile(sp.Path, os.O_APPEND|os.O_WRONLY, 0o600)
	f.WriteString(`{"project":"/p","kind":"note","title":"half`)
	f.Close()
	n, err := sp.Drain(context.Background(), st)
	if err != nil || n != 2 {
		t.Fatalf("drained %d, %v; want 2", n, err)
	}
	if fi, err := os.Stat(sp.Path); err != nil || fi.Size() != 0 {
		t.Errorf("the spool is not left empty: %v", err)
	}
	hits, err := st.Search(context.Background(), Query{Text: "cache LRU", Project: "/p"})
	if err != nil || len(hits) == 0 || !strings.Contains(hits[0].Title, "LRU") {
		t.Fatalf("the drained observation is not found: %v %+v", err, hits)
	}
	if !hits[0].Time.Equal(t0) {
		t.Errorf("stored with time %v, want when it was made, %v", hits[0].Time, t0)
	}
	if n, err := sp.Drain(context.Background(), st); n != 0 || err != nil {
		t.Errorf("a second drain stored %d, %v", n, err)
	}
}

// A drain that cannot store puts everything back; appends while drains
// run lose nothing.
func TestSpoolNothingLost(t *testing.T) {
	st, path := openStore(t)
	sp := SpoolFor(path)
	if err := sp.Put(Observation{Project: "/p", Kind: KindNote, Title: "first"}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := sp.Drain(ctx, st); err == nil {
		t.Fatal("a drain with no time to store succeeded")
	}
	if got := decodeSpool(mustRead(t, sp.Path)); len(got) != 1 || got[0].Title != "first" {
		t.Fatalf("after a failed drain the spool holds %+v", got)
	}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 25 {
				if err := sp.Put(Observation{Project: "/p", Kind: KindNote, Title: fmt.Sprintf("w%d-%d", w, i)}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	drained := 0
	wg.Go(func() {
		for range 20 {
			n, err := sp.Drain(context.Background(), st)
			if err != nil {
				t.Error(err)
			}
			drained += n
		}
	})
	wg.Wait()
	n, err := sp.Drain(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	if drained+n != 101 {
		t.Errorf("drained %d observations, want 101", drained+n)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
