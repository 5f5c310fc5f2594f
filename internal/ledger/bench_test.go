package ledger

import (
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/fixtures"
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
