package outcome

import (
	"strings"
	"testing"
)

// BenchmarkJudgeFixtures judges every Bash call of the real transcripts
// (441 calls, 1.1 MB of output); ns/op is per call.
func BenchmarkJudgeFixtures(b *testing.B) {
	calls := bashCalls(b)
	var bytes int64
	for _, c := range calls {
		bytes += int64(len(c.Output))
	}
	b.SetBytes(bytes / int64(len(calls)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		c := calls[i%len(calls)]
		Judge(c.Command, c.Output, c.Exit)
	}
}

// BenchmarkJudgeLargest judges the most Judge ever reads: a 1 MB test log
// cut to its head and tail.
func BenchmarkJudgeLargest(b *testing.B) {
	var sb strings.Builder
	for sb.Len() < 1<<20 {
		sb.WriteString("    csv_test.go:31: 12:00:01.123 [warning] HeatmapCalculator: no sessions with cwd for project 019c5258\n")
	}
	sb.WriteString("14 doctests, 297 tests, 11 failures\n")
	out := sb.String()
	b.SetBytes(int64(len(Cut(out))))
	b.ReportAllocs()
	for b.Loop() {
		Judge("mix test 2>&1 | tail -30", out, nil)
	}
}
