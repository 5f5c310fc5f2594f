package claudecode

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// listingWorld is a project folder whose transcripts and folder are dated
// by hand, and a Listing of it on a clock of its own.
type listingWorld struct {
	t      *testing.T
	folder string
	now    time.Time
	l      Listing
}

func newListingWorld(t *testing.T) *listingWorld {
	dir := t.TempDir()
	w := &listingWorld{t: t, folder: filepath.Join(dir, "projects", "-proj"), now: time.Now().Add(-time.Hour)}
	if err := os.MkdirAll(w.folder, 0o700); err != nil {
		t.Fatal(err)
	}
	w.l = Listing{Dir: ListingDir(filepath.Join(dir, "state")), Now: func() time.Time { return w.now }}
	return w
}

// write creates or appends to a transcript, dated at, and dates the folder
// when the transcript is new (a creation dates it on its own; the test
// says when, so that the copy is not racy).
func (w *listingWorld) write(name string, at time.Time) string {
	p := filepath.Join(w.folder, name+".jsonl")
	_, err := os.Stat(p)
	created := os.IsNotExist(err)
	f, err := os.OpenFile(p, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		w.t.Fatal(err)
	}
	f.WriteString("{}\n")
	f.Close()
	os.Chtimes(p, at, at)
	if created {
		os.Chtimes(w.folder, at, at)
	}
	return p
}

func (w *listingWorld) remove(name string, at time.Time) {
	if err := os.Remove(filepath.Join(w.folder, name+".jsonl")); err != nil {
		w.t.Fatal(err)
	}
	os.Chtimes(w.folder, at, at)
}

// check compares the listing with Sessions, the folder as it is.
func (w *listingWorld) check(what string) {
	w.t.Helper()
	want, werr := Sessions(w.folder)
	got, gerr := w.l.Sessions(w.folder)
	if werr != nil || gerr != nil {
		w.t.Fatalf("%s: %v, %v", what, werr, gerr)
	}
	if d := cmp.Diff(ids(want), ids(got)); d != "" {
		w.t.Errorf("%s: listing differs from the folder (-folder +listing):\n%s", what, d)
	}
}

func ids(fs []SessionFile) []string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%s %d %d", f.ID, f.ModTime.UnixNano(), f.Size))
	}
	return out
}

func TestListing(t *testing.T) {
	at := func(w *listingWorld, min int) time.Time { return w.now.Add(time.Duration(min) * time.Minute) }
	tests := []struct {
		name string
		run  func(w *listingWorld)
	}{
		{"a new transcript moves the folder's mtime", func(w *listingWorld) {
			w.write("a", at(w, -10))
			w.check("first")
			w.write("b", at(w, -5))
			w.check("after b")
		}},
		{"a removed transcript moves the folder's mtime", func(w *listingWorld) {
			w.write("a", at(w, -10))
			w.write("b", at(w, -9))
			w.check("first")
			w.remove("b", at(w, -5))
			w.check("after removing b")
		}},
		{"a hook's mark orders an appended transcript again", func(w *listingWorld) {
			w.write("a", at(w, -10))
			w.write("b", at(w, -9))
			w.check("first")
			p := w.write("a", at(w, -1))
			if err := w.l.Touched(p); err != nil {
				t.Fatal(err)
			}
			w.check("after a's hook")
			marks, _ := os.ReadDir(w.l.marks(w.folder))
			if len(marks) != 0 {
				t.Errorf("marks left after the listing: %v", marks)
			}
		}},
		{"an append with no hook waits for the rescan", func(w *listingWorld) {
			w.write("a", at(w, -10))
			w.write("b", at(w, -9))
			w.check("first")
			w.write("a", at(w, -1)) // no hook: cairn was not running in that session
			got, _ := w.l.Sessions(w.folder)
			if got[0].ID != "b" {
				t.Errorf("the copy was not used: %v", ids(got))
			}
			w.now = w.now.Add(DefaultRescan + time.Second)
			w.check("after the rescan age")
		}},
		{"a folder changed just before the listing is listed again", func(w *listingWorld) {
			w.write("a", at(w, -10))
			w.write("b", at(w, -9))
			os.Chtimes(w.folder, w.now, w.now) // as if a transcript had been created in the same tick
			w.check("first")
			w.write("a", at(w, -1)) // no mark: only a scan sees it
			w.check("after a racy copy")
		}},
		{"a copy cairn cannot read is listed again", func(w *listingWorld) {
			w.write("a", at(w, -10))
			w.check("first")
			if err := os.WriteFile(filepath.Join(w.l.Dir, w.l.key(w.folder)), []byte("cairn-listing 1 x\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			w.write("a", at(w, -1))
			w.check("after the copy broke")
		}},
		{"lost marks list the folder again", func(w *listingWorld) {
			w.write("a", at(w, -10))
			w.write("b", at(w, -9))
			w.check("first")
			os.RemoveAll(w.l.marks(w.folder)) // a hook could not mark meanwhile
			w.write("a", at(w, -1))
			w.check("after the marks went")
		}},
		{"a mark with no copy is not made", func(w *listingWorld) {
			p := w.write("a", at(w, -10))
			if err := w.l.Touched(p); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(w.l.Dir); !os.IsNotExist(err) {
				t.Errorf("Touched made %s: %v", w.l.Dir, err)
			}
			w.check("first")
		}},
		{"the limit lists the newest", func(w *listingWorld) {
			for i := range 5 {
				w.write(fmt.Sprint(i), at(w, -10+i))
			}
			w.check("first")
			w.l.Limit = 2
			got, _ := w.l.Sessions(w.folder)
			if d := cmp.Diff([]string{"4", "3"}, []string{got[0].ID, got[1].ID}); d != "" || len(got) != 2 {
				t.Errorf("limit 2: %v", ids(got))
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := newListingWorld(t)
			w.t = t
			tc.run(w)
		})
	}
}

// TestListingFollowsTheFolder plays random sessions: new transcripts,
// appends (each with its hook's mark), removals, and a listing now and
// then, which must always be the folder's.
func TestListingFollowsTheFolder(t *testing.T) {
	for seed := range int64(20) {
		t.Run(fmt.Sprint("seed ", seed), func(t *testing.T) {
			w := newListingWorld(t)
			r := rand.New(rand.NewSource(seed))
			var names []string
			clock := w.now.Add(-time.Hour)
			for step := range 60 {
				clock = clock.Add(time.Duration(1+r.Intn(5000)) * time.Millisecond)
				switch n := r.Intn(10); {
				case n < 3 || len(names) == 0:
					name := fmt.Sprintf("s%02d", step)
					w.write(name, clock)
					names = append(names, name)
				case n < 8:
					p := w.write(names[r.Intn(len(names))], clock)
					if err := w.l.Touched(p); err != nil {
						t.Fatal(err)
					}
				default:
					i := r.Intn(len(names))
					w.remove(names[i], clock)
					names = append(names[:i], names[i+1:]...)
				}
				if r.Intn(3) == 0 {
					w.check(fmt.Sprint("step ", step))
				}
			}
			w.check("end")
		})
	}
}
