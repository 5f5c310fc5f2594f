package transcript

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// benchSample writes the sample repeated to about 8 MB, the size of a
// long session, for what a cold read of one costs (repeated replies are
// taken as the same replies again: the figure is bytes a second).
func benchSample(b *testing.B, sample string) string {
	src, err := os.ReadFile(sample)
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	for buf.Len() < 8<<20 {
		buf.Write(src)
	}
	path := filepath.Join(b.TempDir(), "t.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	return path
}

func BenchmarkColdCodex(b *testing.B) {
	path := benchSample(b, codexTools)
	for b.Loop() {
		s := New(path)
		var p Parser
		if _, err := s.Update(&p); err != nil || len(s.Turns) == 0 {
			b.Fatal(err)
		}
	}
}

func BenchmarkColdGemini(b *testing.B) {
	path := benchSample(b, geminiTools)
	for b.Loop() {
		s := New(path)
		var p Parser
		if _, err := s.Update(&p); err != nil || len(s.Turns) == 0 {
			b.Fatal(err)
		}
	}
}
