package redact

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-agent/cairn/internal/fixtures"
)

// TestFixtures runs String over 16 MB of real transcripts (code, shell
// output, JSON, prose) as a check on false positives. The only secrets in
// them are Phoenix's secret_key_base values and the CSRF tokens of pages
// the agent fetched (random tokens, redacted by their shape); everything
// else must come through unchanged, and String must still be idempotent on every line.
func TestFixtures(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 16 MB of transcripts")
	}
	dir, err := fixtures.Extract(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	subagents, _ := filepath.Glob(filepath.Join(dir, "*", "subagents", "*.jsonl"))
	files = append(files, subagents...)
	if len(files) < 8 {
		t.Fatalf("found %d transcripts", len(files))
	}
	changed := 0
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 64<<20)
		for n := 1; sc.Scan(); n++ {
			line := sc.Text()
			out := String(line)
			if out == line {
				continue
			}
			changed++
			if again := String(out); again != out {
				t.Errorf("%s:%d: not idempotent", filepath.Base(name), n)
			}
			for i := 0; ; i++ {
				j := strings.Index(out[i:], markerPrefix)
				if j < 0 {
					break
				}
				i += j
				if before := out[max(0, i-40):i]; !strings.Contains(before, "secret_key_base") && !strings.Contains(before, "csrf-token") {
					t.Errorf("%s:%d: unexpected redaction: %q", filepath.Base(name), n, out[max(0, i-80):min(len(out), i+40)])
				}
			}
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	if changed == 0 {
		t.Error("the secret_key_base values were not redacted")
	}
}
