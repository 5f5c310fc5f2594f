package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
