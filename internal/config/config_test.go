package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/pressure"
	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	c, errs := Parse([]byte(`
# a comment
levels.preset = advisory
levels.l3 = 90%        # override one level
levels.base = window
handoff.auto = L3
snapshot.auto = none
snapshot.mode = commit
restore.budget = 2000
memory.index = 0
tickets.prefixes = gt-, PROJ_
advisories = off
capture.manual = on
flow.dir = notes
flow.trim = on
tracker = Linear
tracker.status = In Review
tracker.label = none
tracker.repo = acme/shop
gc.auto = off
gc.older-than = 2w
gc.keep = 3
gc.tracker = 36h
gc.max-size = 500MB
`), "cairn.conf")
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	want := Config{
		Pressure:  pressure.Config{Base: pressure.OfWindow, Levels: [3]float64{60, 75, 90}},
		HandoffAt: []int{3}, SnapshotCommit: true, RestoreBudget: 2000,
		TicketPrefixes: []string{"gt-", "PROJ_"}, Advisories: false,
		CaptureDir: ".project/compacts", CaptureManual: true, FlowDir: "notes", FlowTrim: true,
		Tracker: "linear", TrackerStatus: "In Review", TrackerLabel: "", TrackerRepo: "acme/shop",
		Retention: Retention{OlderThan: 14 * day, Keep: 3, Tracker: 36 * time.Hour, MaxSize: 500 << 20},
	}
	if diff := cmp.Diff(want, c); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestParseErrorsKeepTheRest(t *testing.T) {
	c, errs := Parse([]byte("levels.l1 = lots\nnonsense\nfoo = 1\nlevels.preset = nope\nrestore.budget = 5\nlevels.l2 = 99\nlevels.l3 = 98\n"), "f")
	if len(errs) != 6 {
		t.Fatalf("errors: %v", errs)
	}
	for _, e := range errs {
		if !strings.HasPrefix(e.Error(), "f:") {
			t.Errorf("error without a place: %v", e)
		}
	}
	if c.Pressure != pressure.Default() || c.RestoreBudget != 1500 {
		t.Errorf("defaults not kept: %+v", c)
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	if c, errs := Load(dir); len(errs) != 0 || !cmp.Equal(c, Default()) {
		t.Errorf("no file: %+v %v", c, errs)
	}
	os.MkdirAll(filepath.Join(dir, ".claude"), 0o755)
	os.WriteFile(filepath.Join(dir, File), []byte("levels.preset = early-checkpoint\n"), 0o644)
	if c, _ := Load(dir); c.Pressure.Levels[0] != 72 {
		t.Errorf("preset not read: %+v", c)
	}
}

func TestParseAgeAndSize(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{{"90d", 90 * day, true}, {"2w", 14 * day, true}, {"36h", 36 * time.Hour, true}, {"0.5d", 12 * time.Hour, true},
		{"d", 0, false}, {"-1d", 0, false}, {"soon", 0, false}} {
		t.Run("age "+tc.in, func(t *testing.T) {
			got, err := ParseAge(tc.in)
			if (err == nil) != tc.ok || got != tc.want {
				t.Errorf("ParseAge(%q) = %v, %v; want %v, ok %v", tc.in, got, err, tc.want, tc.ok)
			}
		})
	}
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{{"2GB", 2 << 30, true}, {"500 MB", 500 << 20, true}, {"64k", 64 << 10, true}, {"1000", 1000, true}, {"none", 0, true},
		{"0", 0, true}, {"lots", 0, false}, {"-1GB", 0, false}} {
		t.Run("size "+tc.in, func(t *testing.T) {
			got, err := ParseSize(tc.in)
			if (err == nil) != tc.ok || got != tc.want {
				t.Errorf("ParseSize(%q) = %v, %v; want %v, ok %v", tc.in, got, err, tc.want, tc.ok)
			}
		})
	}
}
