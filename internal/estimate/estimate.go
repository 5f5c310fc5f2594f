// Package estimate predicts how much context a task will consume from its
// written spec or plan, before an agent starts it. It compares the
// prediction with what is left before auto-compaction and recommends, as
// seed 003's Principle 4 sets out, to execute (under 30% of the remaining
// budget), to consider sharding (30-60%) or to shard first (over 60%). For
// sharding it proposes a split along the spec's own structure.
//
// The model is one number: the context a task consumes per token of its
// spec, where what a task consumes is its spec's tokens plus the growth of
// the main-chain context over the work, with what compactions removed
// added back (FromSession). The default comes from the real sessions in
// internal/fixtures (ratio_test.go derives it); a project that records its
// finished tasks with Learn gets its own ratio once it has three of them.
//
// It is a rough measure and says so. The default rests on 22 tasks of one
// project (Elixir, specs from the bd tracker, some work in subagents,
// whose context does not count); their ratios spread from 8.6 to 111.8,
// and the range an estimate carries, the 10th to 90th percentile, runs
// from 54% below the median to 140% above it.
package estimate

import (
	"math"
	"sort"
)

// Seed 003's bands, as fractions of the remaining budget, and the share of
// a fresh session's budget one shard may take.
const (
	ExecuteBelow = 0.30
	ShardAbove   = 0.60
	ShardShare   = 0.30
)

// The default ratio and its spread: the median and the 10th and 90th
// percentiles of the context consumed per spec token by the 22 tasks of
// the real sessions in internal/fixtures (observed ratios from 8.6 to
// 111.8). TestDefaultRatioFromFixtures derives them again from the
// transcripts, and fails when they drift; with -v it logs every task.
const (
	DefaultRatio = 31.6
	DefaultLow   = 14.6
	DefaultHigh  = 75.7
	// DefaultSamples is how many tasks the default comes from.
	DefaultSamples = 22
)

// Tokens estimates the tokens a text costs the model: bytes / 3.5, as
// checkpoint.Tokens does (duplicated so that this package needs nothing of
// the checkpoint's). Paths, code and numbers tokenize denser than prose;
// 3.5 bytes a token errs on the side of too many. The ratios are measured
// against this same count, so its bias is part of them.
func Tokens(s string) int64 { return tokensOfBytes(len(s)) }

// Model is the ratio an estimate uses and where it comes from.
type Model struct {
	// Ratio is the context consumed per spec token: the median of the
	// observed tasks.
	Ratio float64 `json:"ratio"`
	// Low and High are the 10th and 90th percentiles of the observed
	// ratios: eight tasks in ten fell between them.
	Low  float64 `json:"low"`
	High float64 `json:"high"`
	// Samples is how many finished tasks the ratio comes from.
	Samples int `json:"samples"`
	// Source is "default" (the fixtures) or "project" (this project's own
	// finished tasks, recorded by Learn).
	Source string `json:"source"`
	// Recorded is how many tasks the project has recorded, also when too
	// few to be used.
	Recorded int `json:"recorded"`
}

// Default is the model derived from the fixtures.
func Default() Model {
	return Model{Ratio: DefaultRatio, Low: DefaultLow, High: DefaultHigh, Samples: DefaultSamples, Source: "default"}
}

// FromRatios builds a model from observed ratios (consumed per spec token):
// the median, with the 10th and 90th percentiles as the spread.
func FromRatios(ratios []float64, source string) Model {
	rs := append([]float64(nil), ratios...)
	sort.Float64s(rs)
	return Model{
		Ratio: round1(percentile(rs, 50)), Low: round1(percentile(rs, 10)), High: round1(percentile(rs, 90)),
		Samples: len(rs), Source: source, Recorded: len(rs),
	}
}

// percentile interpolates linearly between the closest ranks of sorted xs.
func percentile(xs []float64, p float64) float64 {
	switch len(xs) {
	case 0:
		return 0
	case 1:
		return xs[0]
	}
	pos := p / 100 * float64(len(xs)-1)
	lo := int(math.Floor(pos))
	if lo >= len(xs)-1 {
		return xs[len(xs)-1]
	}
	return xs[lo] + (pos-float64(lo))*(xs[lo+1]-xs[lo])
}

// Estimate is the predicted size of one task.
type Estimate struct {
	SpecTokens int64 `json:"spec_tokens"`
	// Tokens is the prediction: SpecTokens × Model.Ratio. Low and High
	// apply the model's spread.
	Tokens  int64   `json:"tokens"`
	Low     int64   `json:"low"`
	High    int64   `json:"high"`
	Model   Model   `json:"model"`
	Signals Signals `json:"signals"`
}

// Measure estimates the task that spec describes.
func Measure(spec string, m Model) Estimate {
	st := Tokens(spec)
	return Estimate{
		SpecTokens: st, Tokens: scale(st, m.Ratio), Low: scale(st, m.Low), High: scale(st, m.High),
		Model: m, Signals: CountSignals(spec),
	}
}

func scale(n int64, r float64) int64 { return int64(math.Round(float64(n) * r)) }

// Action is what to do before starting a task.
type Action string

const (
	Execute          Action = "execute"
	ConsiderSharding Action = "consider_sharding"
	ShardFirst       Action = "shard_first"
)

// Recommend places an estimate in seed 003's bands of the remaining
// budget. With nothing remaining, any task must wait for a fresh context.
func Recommend(tokens, remaining int64) Action {
	if remaining <= 0 {
		return ShardFirst
	}
	switch f := float64(tokens) / float64(remaining); {
	case f < ExecuteBelow:
		return Execute
	case f <= ShardAbove:
		return ConsiderSharding
	}
	return ShardFirst
}

// Budget is the context a task can use: the tokens in context now and the
// point where Claude Code compacts (the meter's Tokens and Threshold).
// Fresh is that point in a new session, which a shard is sized against.
type Budget struct {
	Used      int64 `json:"used"`
	Threshold int64 `json:"threshold"`
	Fresh     int64 `json:"fresh"`
}

// Remaining is what is left before compaction, never below zero.
func (b Budget) Remaining() int64 { return max(0, b.Threshold-b.Used) }

// Advice is an estimate placed against a budget.
type Advice struct {
	Estimate
	Budget    Budget `json:"budget"`
	Remaining int64  `json:"remaining"`
	// Percent is Tokens as a percentage of Remaining (0 when nothing
	// remains); PercentFresh of a fresh session's budget.
	Percent      float64 `json:"percent_of_remaining"`
	PercentFresh float64 `json:"percent_of_fresh"`
	Action       Action  `json:"action"`
	// Fits says the estimate, and FitsHigh its high end, is within what
	// remains (seed 003's EST-002 warns when it is not).
	Fits     bool `json:"fits"`
	FitsHigh bool `json:"fits_high"`
	// ShardLimit is the estimate one shard may reach: ShardShare of a
	// fresh session's budget.
	ShardLimit int64 `json:"shard_limit"`
	// Split is the proposed shards, when the action is not Execute.
	Split *Split `json:"split,omitempty"`
}

// Advise estimates spec and recommends what to do with budget b.
func Advise(spec string, m Model, b Budget) Advice {
	e := Measure(spec, m)
	a := Advice{Estimate: e, Budget: b, Remaining: b.Remaining(), ShardLimit: scale(b.Fresh, ShardShare)}
	if a.Remaining > 0 {
		a.Percent = round1(100 * float64(e.Tokens) / float64(a.Remaining))
	}
	if b.Fresh > 0 {
		a.PercentFresh = round1(100 * float64(e.Tokens) / float64(b.Fresh))
	}
	a.Action = Recommend(e.Tokens, a.Remaining)
	a.Fits = e.Tokens <= a.Remaining
	a.FitsHigh = e.High <= a.Remaining
	if a.Action != Execute {
		sp := SplitSpec(spec, m, a.ShardLimit)
		a.Split = &sp
	}
	return a
}

func round1(f float64) float64 { return math.Round(f*10) / 10 }
