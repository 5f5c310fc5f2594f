package estimate

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestRecommend(t *testing.T) {
	tests := []struct {
		tokens, remaining int64
		want              Action
	}{
		{0, 100_000, Execute},
		{29_999, 100_000, Execute},
		{30_000, 100_000, ConsiderSharding},
		{45_000, 100_000, ConsiderSharding},
		{60_000, 100_000, ConsiderSharding},
		{60_001, 100_000, ShardFirst},
		{150_000, 100_000, ShardFirst},
		{1, 0, ShardFirst},
		{0, 0, ShardFirst},
		{1, -5, ShardFirst},
	}
	for _, tt := range tests {
		if got := Recommend(tt.tokens, tt.remaining); got != tt.want {
			t.Errorf("Recommend(%d, %d) = %s, want %s", tt.tokens, tt.remaining, got, tt.want)
		}
	}
}

// Seed 003's scenarios, with a spec sized to a share of the budget.
func TestAdviseScenarios(t *testing.T) {
	m := Model{Ratio: 10, Low: 5, High: 20, Samples: 1, Source: "default"}
	// specOf returns a spec of about tokens×3.5 bytes, in sections.
	specOf := func(tokens int) string {
		var b strings.Builder
		for i := 0; b.Len() < tokens*35/10; i++ {
			b.WriteString("## Part " + string(rune('A'+i%26)) + "\n\n" + strings.Repeat("Do the thing carefully. ", 40) + "\n\n")
		}
		return b.String()[:tokens*35/10]
	}
	tests := []struct {
		name       string
		specTokens int
		used       int64
		want       Action
		fits       bool
		minShards  int
	}{
		// Task Estimation Warning: 55% used, a task of 50% of the total.
		{"estimation warning", 10_000, 110_000, ShardFirst, false, 2},
		// Shard Suggestion: a fresh session and a task of 70%: at least 3
		// shards under 30% each.
		{"shard suggestion", 14_000, 0, ShardFirst, true, 3},
		{"small task", 1_000, 20_000, Execute, true, 0},
		{"consider", 8_000, 0, ConsiderSharding, true, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := Budget{Used: tt.used, Threshold: 200_000, Fresh: 200_000}
			a := Advise(specOf(tt.specTokens), m, b)
			if a.Action != tt.want || a.Fits != tt.fits {
				t.Errorf("action %s, fits %v (%.1f%% of %d left); want %s, fits %v", a.Action, a.Fits, a.Percent, a.Remaining, tt.want, tt.fits)
			}
			if tt.minShards == 0 {
				if a.Split != nil {
					t.Errorf("a split for a task to execute: %+v", a.Split)
				}
				return
			}
			if a.Split == nil || len(a.Split.Shards) < tt.minShards {
				t.Fatalf("split %+v, want at least %d shards", a.Split, tt.minShards)
			}
			for i, s := range a.Split.Shards {
				if s.Tokens > a.ShardLimit || s.Over {
					t.Errorf("shard %d: %d tokens over the limit %d", i+1, s.Tokens, a.ShardLimit)
				}
			}
		})
	}
}

func TestMeasure(t *testing.T) {
	spec := strings.Repeat("x", 700) // 200 tokens
	got := Measure(spec, Model{Ratio: 31.6, Low: 14.6, High: 75.7})
	if got.SpecTokens != 200 || got.Tokens != 6320 || got.Low != 2920 || got.High != 15140 {
		t.Errorf("got %+v", got)
	}
	if Tokens("") != 0 || Tokens("abcd") != 2 || Tokens("abcdefg") != 2 {
		t.Errorf("Tokens: %d %d %d", Tokens(""), Tokens("abcd"), Tokens("abcdefg"))
	}
}

func TestFromRatios(t *testing.T) {
	tests := []struct {
		ratios         []float64
		med, low, high float64
	}{
		{[]float64{10}, 10, 10, 10},
		{[]float64{30, 10, 20}, 20, 12, 28},
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, 6, 2, 10},
	}
	for _, tt := range tests {
		m := FromRatios(tt.ratios, "project")
		if m.Ratio != tt.med || m.Low != tt.low || m.High != tt.high || m.Samples != len(tt.ratios) {
			t.Errorf("FromRatios(%v) = %+v, want %v (%v-%v)", tt.ratios, m, tt.med, tt.low, tt.high)
		}
	}
}

func TestCountSignals(t *testing.T) {
	spec := "# Plan\n\n" +
		"Touch `internal/cli/cli.go`, go.mod and ./run.sh; read docs/ and and/or the https://example.com/a.go page.\n" +
		"Version v1.2 e.g. this, meter.Reading too.\n\n" +
		"## Steps\n\n" +
		"- [ ] one in internal/cli/cli.go\n" +
		"- [x] two\n" +
		"  - [ ] nested\n" +
		"1. numbered\n\n" +
		"```go\n# not a heading\n- not an item in src/x.go\n```\n" +
		"~~~\nmore\n~~~\n"
	got := CountSignals(spec)
	want := Signals{Paths: 4, CodeBlocks: 2, Checklist: 3, Headings: 2, ListItems: 3}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("signals (-want +got):\n%s", diff)
	}
}

func TestSampleSpec(t *testing.T) {
	data, err := os.ReadFile("testdata/sample-spec.md")
	if err != nil {
		t.Fatal(err)
	}
	a := Advise(string(data), Default(), Budget{Threshold: 167_000, Fresh: 167_000})
	if a.Action != ConsiderSharding || a.Split == nil || a.Split.By != "headings" || len(a.Split.Shards) != 2 {
		t.Fatalf("the sample spec should be worth considering shards for, in two along its headings: %+v", a)
	}
}
