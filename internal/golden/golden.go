// Package golden compares rendered text with the expected copies kept
// under a package's testdata, and rewrites them when the tests run with
// -update. Tests only.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files (and testscript expectations)")

// Updating reports whether the tests run with -update.
func Updating() bool { return *update }

// Check compares got with the file at path; with -update it writes got
// there instead.
func Check[T string | []byte](t testing.TB, path string, got T) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got; run the test with -update to rewrite it):\n%s", path, diff)
	}
}
