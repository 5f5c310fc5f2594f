package checkpoint

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/fixtures"
	"github.com/cairn-agent/cairn/internal/meter"
	"github.com/cairn-agent/cairn/internal/outcome"
	"github.com/cairn-agent/cairn/internal/redact"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// memoSession is one fixture session's transcript, its lines, and a
// copy of it that grows as the keep job sees a transcript grow.
type memoSession struct {
	name  string
	lines [][]byte
}

// memoFixtures are the 8 fixture sessions: the compacted ones and the
// small ones.
func memoFixtures(t *testing.T) []memoSession {
	t.Helper()
	dir, err := fixtures.Extract(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range fixtures.Compactions {
		names = append(names, c.Session)
	}
	names = append(names, fixtures.Small...)
	var out []memoSession
	for _, n := range names {
		data, err := os.ReadFile(filepath.Join(dir, n+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, memoSession{name: n, lines: bytes.SplitAfter(data, []byte("\n"))})
	}
	if len(out) != 8 {
		t.Fatalf("%d fixture sessions, want 8", len(out))
	}
	return out
}

// grower is a transcript written in steps and its session folded at
// each, as the keep job folds what a transcript gained.
type grower struct {
	t    *testing.T
	path string
	s    *transcript.Session
	p    transcript.Parser
}

func newGrower(t *testing.T, name string) *grower {
	path := filepath.Join(t.TempDir(), name+".jsonl")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	return &grower{t: t, path: path, s: transcript.New(path)}
}

func (g *grower) append(lines [][]byte) {
	f, err := os.OpenFile(g.path, os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		g.t.Fatal(err)
	}
	for _, l := range lines {
		f.Write(l)
	}
	f.Close()
	if _, err := g.s.Update(&g.p); err != nil {
		g.t.Fatal(err)
	}
}

// builtBoth builds s with m and without a memo, as the keep job builds,
// and fails unless the two are the same bytes.
func builtBoth(t *testing.T, s *transcript.Session, m *Memo, at string) {
	t.Helper()
	reading, _ := meter.Measure(s, meter.Settings{})
	in := Input{Project: "/p", Trigger: "ahead", Now: time.Unix(1_800_000_000, 0), Reading: reading,
		TicketPrefixes: []string{"BILL-"}, Redact: redact.String}
	plain := Build(s, in)
	want, err := json.Marshal(plain)
	if err != nil {
		t.Fatal(err)
	}
	in.Memo = m
	c := Build(s, in)
	got, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s: the build with a memo differs:\n got %s\nwant %s", at, got, want)
	}
	if c.Steer() != plain.Steer() {
		t.Fatalf("%s: the steering with a memo differs", at)
	}
}

// TestMemoBuildsTheSame: on the 8 fixture sessions, each cut at many
// points and grown from one cut to the next as the keep job sees a
// transcript grow, a build with the memo kept from the earlier builds is
// byte for byte the build without one.
func TestMemoBuildsTheSame(t *testing.T) {
	for _, fx := range memoFixtures(t) {
		t.Run(fx.name, func(t *testing.T) {
			g, m := newGrower(t, fx.name), &Memo{}
			// 40 cuts, and every line of the last 30: where the keep job
			// builds, a tool result at a time.
			step := max(1, len(fx.lines)/40)
			for at := 0; at < len(fx.lines); {
				next := min(len(fx.lines), at+step)
				if len(fx.lines)-at <= 30 {
					next = at + 1
				}
				g.append(fx.lines[at:next])
				at = next
				if len(g.s.Prompts) == 0 && g.s.NumTurns() == 0 {
					continue
				}
				builtBoth(t, g.s, m, fx.name+" at line "+strconv.Itoa(at))
			}
		})
	}
}

// TestMemoBuildsTheSameRandom: one memo shared by all 8 sessions, grown in
// a random order by random steps, each cut built with it and without: a
// memo's values depend on their keys alone, whichever session filled it.
func TestMemoBuildsTheSameRandom(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed>>1))
	fxs := memoFixtures(t)
	growers := make([]*grower, len(fxs))
	done := make([]int, len(fxs))
	for i, fx := range fxs {
		growers[i] = newGrower(t, fx.name)
	}
	m := &Memo{}
	for builds := 0; builds < 160; builds++ {
		var left []int
		for i := range fxs {
			if done[i] < len(fxs[i].lines) {
				left = append(left, i)
			}
		}
		if len(left) == 0 {
			break
		}
		i := left[rng.IntN(len(left))]
		next := min(len(fxs[i].lines), done[i]+1+rng.IntN(max(1, len(fxs[i].lines)/15)))
		growers[i].append(fxs[i].lines[done[i]:next])
		done[i] = next
		if s := growers[i].s; len(s.Prompts) > 0 || s.NumTurns() > 0 {
			builtBoth(t, s, m, fxs[i].name+" at line "+strconv.Itoa(next))
		}
	}
}

// TestMemoOverruledPlans: plans a later statement overrules, which the
// fixtures do not hold, built at every step of a session with one memo
// and without: the same checkpoint, and the overruled plans gone from it.
func TestMemoOverruledPlans(t *testing.T) {
	steps := []step{
		{user: "Tiles above zoom 23 crash the encoder, fix it please."},
		{text: "I'll clamp levels above 23 down to 23 inside Encode(), because a hard error there would turn into a 500."},
		{tool: "Bash", input: map[string]any{"command": "go test ./services/tiler/..."}},
		{result: "FAIL services/tiler TestEncode", isError: true},
		{text: "I'll make Encode() reject levels above 23 with absl::InvalidArgumentError instead of clamping, because a clamped request would get the wrong tile."},
		{user: "Also add a reason to refunds."},
		{text: "Next: a RefundReason enum, and field 4 (reason) switched to it."},
		{user: "no enum. plain string reason_code, validated server-side."},
		{text: "I'll rename the column in the backfill, since it runs anyway."},
		{text: "I'll do the rename in 0041 rather than in the backfill, since the backfill is long enough."},
	}
	m := &Memo{}
	var last Checkpoint
	for n := 1; n <= len(steps); n++ {
		s := build(t, steps[:n])
		builtBoth(t, s, m, "step "+strconv.Itoa(n))
		last = Build(s, Input{Project: "/p", Now: time.Now(), Memo: m})
	}
	all := strings.Join(last.Decisions, "\n")
	if strings.Contains(all, "I'll clamp") || strings.Contains(all, "in the backfill, since it runs") || !strings.Contains(all, "instead of clamping") || !strings.Contains(all, "in 0041") {
		t.Errorf("overruled plans kept, or the later one lost: %q", last.Decisions)
	}
}

// TestMemoKeys: each memo's answer is the function's for that key, asked
// again in any order, among texts that differ only at their end.
func TestMemoKeys(t *testing.T) {
	texts := []string{
		"I'll clamp levels above 23 down to 23 inside Encode(), because a hard error there would turn into a 500.",
		"I'll clamp levels above 23 down to 23 inside Encode().",
		"I'll make Encode() reject levels above 23 instead of clamping, since a clamped tile is wrong.",
		"I'll make Encode() reject levels above 23 instead of panicking.",
		"no enum.", "no enum. plain string reason_code, validated server-side.", "no rush.",
		"a RefundReason enum, and field 4 (reason) switched to it",
		"go test ./...", "go test ./services/tiler", "go test ./services/tiler -run TestEncode", "mix test", "mix test test/a_test.exs",
		"make && ./bin/check 2>&1 | tail -5", "make && ./bin/check 2>&1 | tail -50",
	}
	m := &Memo{}
	for round := range 2 {
		for _, a := range texts {
			if got, want := m.longer(a), len(fields(a)) > maxReply; got != want {
				t.Errorf("round %d: longer(%q) = %v", round, a, got)
			}
			if got, want := m.words(a), wordsOf(a); !reflect.DeepEqual(got, want) {
				t.Errorf("round %d: words(%q) = %v, want %v", round, a, got, want)
			}
			if got, want := m.worksOf(a), outcome.Works(a); !slices.Equal(got, want) {
				t.Errorf("round %d: worksOf(%q) = %v, want %v", round, a, got, want)
			}
			for _, b := range texts {
				if got, want := m.overrule(a, b), overrules(a, b); got != want {
					t.Errorf("round %d: overrule(%q, %q) = %v", round, a, b, got)
				}
				if got, want := m.narrowedTo(a, b), outcome.NarrowedTo(a, b); !slices.Equal(got, want) {
					t.Errorf("round %d: narrowedTo(%q, %q) = %v, want %v", round, a, b, got, want)
				}
			}
		}
	}
}
