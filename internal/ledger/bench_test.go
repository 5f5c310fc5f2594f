package ledger

import (
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/fixtures"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// fixtureTexts returns the assistant text blocks of the real sessions.
func fixtureTexts(b *testing.B) []string {
	var texts []string
	for _, c := range fixtures.Compactions {
		for _, e := range readEvents(b, fixturePath(b, c.Session)) {
			if e.kind == "assistant" {
				texts = append(texts, e.text)
			}
		}
	}
	return texts
}

// BenchmarkAssistant feeds every assistant text of the five real sessions
// to one ledger, as the hooks do; ns/text is the cost of one text.
func BenchmarkAssistant(b *testing.B) {
	texts := fixtureTexts(b)
	bytes := 0
	for _, t := range texts {
		bytes += len(t)
	}
	b.SetBytes(int64(bytes))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		var l Ledger
		for i, t := range texts {
			l.Assistant(i, i, time.Time{}, t)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(texts)), "ns/text")
}

// BenchmarkFeed feeds one whole session: texts, prompts, file changes and
// commands.
func BenchmarkFeed(b *testing.B) {
	evs := readEvents(b, fixturePath(b, fixtures.Compactions[4].Session))
	b.ReportAllocs()
	for b.Loop() {
		var l Ledger
		feed(&l, evs, false)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(evs)), "ns/event")
}

// BenchmarkAgainstParse measures, in the same run, the transcript engine's
// serial read of one real session (2.9 MB) and the ledger fed with all of
// that session's events, and reports the ledger's cost as a share of the
// parse: the overhead the ledger adds where the engine folds lines in
// order. Ratios, because this machine is shared and noisy.
func BenchmarkAgainstParse(b *testing.B) {
	path := fixturePath(b, fixtures.Compactions[2].Session)
	evs := readEvents(b, path)
	var parse, led time.Duration
	for b.Loop() {
		t0 := time.Now()
		s := transcript.New(path)
		var p transcript.Parser
		if err := s.ReadSerial(&p); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		var l Ledger
		feed(&l, evs, false)
		t2 := time.Now()
		parse += t1.Sub(t0)
		led += t2.Sub(t1)
	}
	b.ReportMetric(float64(parse.Nanoseconds())/float64(b.N), "parse-ns/op")
	b.ReportMetric(float64(led.Nanoseconds())/float64(b.N), "ledger-ns/op")
	b.ReportMetric(float64(led)/float64(parse), "ledger/parse")
}
