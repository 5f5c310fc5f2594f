package install

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/golden"
	"github.com/cairn-agent/cairn/internal/sqlite"
)

// TestReportJSON: cairn doctor --json is this Report, whose field names
// cairn help doctor documents as stable: the golden file holds them.
func TestReportJSON(t *testing.T) {
	dir := t.TempDir()
	s := Setup{
		Root:       filepath.Join(dir, "proj"),
		ConfigDir:  filepath.Join(dir, "claude"),
		UserConfig: filepath.Join(dir, "home", ".claude.json"),
		DataDir:    filepath.Join(dir, "data"),
		Exe:        filepath.Join(dir, "bin", "cairn"),
		Out:        io.Discard,
	}
	for _, d := range []string{s.Root, s.ConfigDir, s.DataDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	var db *sqlite.DB
	t.Cleanup(func() {
		if db != nil {
			db.Close()
		}
	})
	d := Doctor{
		Setup: s, StateDir: filepath.Join(dir, "state"), Fallback: filepath.Join(dir, "tmp"),
		DBPath: filepath.Join(s.DataDir, "cairn.db"),
		DB: func(ctx context.Context) (*sqlite.DB, error) {
			var err error
			if db == nil {
				db, err = sqlite.Open(ctx, filepath.Join(s.DataDir, "cairn.db"))
			}
			return db, err
		},
		Now: func() time.Time { return time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC) },
		Loc: time.UTC,
	}
	before := d.Check(ctx)
	if err := s.Install(false, true); err != nil {
		t.Fatal(err)
	}
	after := d.Check(ctx)
	if before.Problems == 0 || after.Problems != 0 {
		t.Errorf("problems: %d before install, %d after; want some, then none", before.Problems, after.Problems)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	for _, r := range []Report{before, after} {
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	golden.Check(t, "testdata/report.json", strings.ReplaceAll(b.String(), dir, "$DIR"))
}
