package state

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// ReadFile reads what os.ReadFile reads, and fails where it fails, with
// the same kind of error.
func TestReadFileIsOSReadFile(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"empty":  "",
		"small":  "cairn-marks 1\ncheckpoint 808\n",
		"page":   strings.Repeat("x", 4096),
		"larger": strings.Repeat("0123456789abcdef\n", 1000),
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"empty", "small", "page", "larger", "missing", "."} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(dir, name)
			want, werr := os.ReadFile(path)
			got, err := ReadFile(path)
			if (err == nil) != (werr == nil) || !bytes.Equal(got, want) {
				t.Fatalf("ReadFile = %d bytes, %v; os.ReadFile %d bytes, %v", len(got), err, len(want), werr)
			}
			if err == nil {
				return
			}
			var pe *fs.PathError
			if !errors.As(err, &pe) || pe.Path != path {
				t.Errorf("error %v is not a *fs.PathError on %s", err, path)
			}
			if errors.Is(err, fs.ErrNotExist) != errors.Is(werr, fs.ErrNotExist) {
				t.Errorf("errors.Is(%v, fs.ErrNotExist) differs from os.ReadFile's %v", err, werr)
			}
		})
	}
}
