package checkpoint

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/fixtures"
	"github.com/cairn-agent/cairn/internal/meter"
	"github.com/cairn-agent/cairn/internal/redact"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// bigSession is the 100 MB session the hook benchmarks use (bench/),
// folded whole.
func bigSession(b *testing.B) *transcript.Session {
	b.Helper()
	dir := b.TempDir()
	fx, err := fixtures.Extract(filepath.Join(dir, "fixtures"))
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(dir, "big.jsonl")
	if _, err := fixtures.Big(fx, path, 100<<20); err != nil {
		b.Fatal(err)
	}
	s := transcript.New(path)
	var p transcript.Parser
	if _, err := s.Update(&p); err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkBuild: the keep job's build of a 100 MB session, as it runs
// ahead of a compaction (internal/continuity/ahead.go), and its steering.
func BenchmarkBuild(b *testing.B) {
	s := bigSession(b)
	reading, _ := meter.Measure(s, meter.Settings{})
	in := Input{Project: "/p", Trigger: "ahead", Now: time.Now(), Reading: reading, Redact: redact.String}
	b.Run("Build", func(b *testing.B) {
		for b.Loop() {
			Build(s, in)
		}
	})
	// As the keep job builds again: with what its last build parsed.
	b.Run("BuildMemo", func(b *testing.B) {
		m := &Memo{}
		Build(s, Input{Project: "/p", Trigger: "ahead", Now: in.Now, Reading: in.Reading, Redact: in.Redact, Memo: m})
		for b.Loop() {
			Build(s, Input{Project: "/p", Trigger: "ahead", Now: in.Now, Reading: in.Reading, Redact: in.Redact, Memo: m})
		}
	})
	c := Build(s, in)
	b.Run("Steer", func(b *testing.B) {
		for b.Loop() {
			c.Steer()
		}
	})
}
