package continuity

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/checkpoint"
	"github.com/cairn-agent/cairn/internal/fixtures"
	"github.com/cairn-agent/cairn/internal/state"
)

// inertByType is the test's own reading of which lines change nothing a
// checkpoint reads, from the line's JSON (transcript.InertTail's is
// from the decoder's scan): a line of a type the engine skips, or a
// system line other than a compaction's boundary that sets no identity
// field the session does not have already.
func inertByType(t *testing.T, line []byte, identity map[string]string) bool {
	t.Helper()
	var e map[string]any
	if err := json.Unmarshal(line, &e); err != nil {
		return false
	}
	switch e["type"] {
	case "user", "assistant":
		return false
	case "attachment":
		a, _ := e["attachment"].(map[string]any)
		typ, _ := a["type"].(string)
		return len(typ) < 5 || typ[:5] != "hook_"
	case "system":
		if e["subtype"] == "compact_boundary" {
			return false
		}
		for _, f := range []string{"sessionId", "cwd", "gitBranch", "version"} {
			if v, ok := e[f].(string); ok && v != "" && v != identity[f] && e["isSidechain"] != true {
				return false
			}
		}
	}
	return true
}

// identities are, for each n, what the main chain's lines before line n
// set of the session's identity fields (the last non-empty value of
// each).
func identities(lines [][]byte) []map[string]string {
	ids := make([]map[string]string, len(lines)+1)
	id := map[string]string{}
	for n, l := range lines {
		ids[n] = id
		var e map[string]any
		if json.Unmarshal(l, &e) != nil {
			continue
		}
		switch e["type"] {
		case "user", "assistant", "system":
		default:
			continue
		}
		next := maps.Clone(id)
		for _, f := range []string{"sessionId", "cwd", "gitBranch", "version"} {
			if f != "sessionId" && e["isSidechain"] == true {
				continue
			}
			if v, ok := e[f].(string); ok && v != "" {
				next[f] = v
			}
		}
		id = next
	}
	ids[len(lines)] = id
	return ids
}

// tailCase is one transcript kept at line k and read again at line n.
type tailCase struct{ k, n int }

// tailCases are the cuts of a transcript of these lines a test makes: at
// the start of runs of inert lines (to their end, and one line past it),
// and at random, short tails and long ones.
func tailCases(t *testing.T, lines [][]byte, rng *rand.Rand, runs, random int) []tailCase {
	var cases []tailCase
	var starts []int
	ids := identities(lines)
	// Before the first reply there is nothing to checkpoint.
	lo := 1 + slices.IndexFunc(lines, func(l []byte) bool { return bytes.Contains(l, []byte(`"type":"assistant"`)) })
	for k := max(lo, 1); k < len(lines); k++ {
		if inertByType(t, lines[k], ids[k]) && !inertByType(t, lines[k-1], nil) {
			starts = append(starts, k)
		}
	}
	rng.Shuffle(len(starts), func(i, j int) { starts[i], starts[j] = starts[j], starts[i] })
	for _, k := range starts[:min(runs, len(starts))] {
		n := k
		for n < len(lines) && inertByType(t, lines[n], ids[k]) {
			n++
		}
		cases = append(cases, tailCase{k, n})
		if n < len(lines) {
			cases = append(cases, tailCase{k, n + 1})
		}
	}
	for range random {
		k := max(lo, 1) + rng.IntN(len(lines)-max(lo, 1))
		n := k + rng.IntN(min(40, len(lines)-k)+1)
		cases = append(cases, tailCase{k, n})
	}
	return cases
}

// splitLines splits a transcript into its lines, each with its newline.
func splitLines(data []byte) [][]byte {
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// PreCompact on a transcript kept at line k and read at line n gives what
// a build at line n gives, checkpoint, steering and announcement, whether
// the kept checkpoint serves (only inert lines appended) or not: on every
// fixture session, cut at the start of runs of inert lines and at random.
func TestKeptAfterAppends(t *testing.T) {
	root := t.TempDir()
	fx, err := fixtures.Extract(filepath.Join(root, "fx"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range fixtures.Compactions {
		names = append(names, c.Session)
	}
	names = append(names, fixtures.Small...)
	hits, misses := 0, 0
	for i, name := range names {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(fx, name+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			lines := splitLines(data)
			rng := rand.New(rand.NewPCG(15, uint64(i)))
			ids := identities(lines)
			for j, tc := range tailCases(t, lines, rng, 8, 8) {
				hit := checkAfterAppend(t, filepath.Join(root, fmt.Sprintf("%d-%d", i, j)), filepath.Join(fx, name), lines, tc)
				want := true
				for _, l := range lines[tc.k:tc.n] {
					want = want && inertByType(t, l, ids[tc.k])
				}
				if hit != want {
					t.Errorf("kept at %d, read at %d: served %v, the lines appended are inert: %v", tc.k, tc.n, hit, want)
				}
				if hit {
					hits++
				} else {
					misses++
				}
			}
		})
	}
	t.Logf("%d served from the kept checkpoint, %d built", hits, misses)
	if hits == 0 || misses == 0 {
		t.Errorf("%d served, %d built: the cuts do not test both", hits, misses)
	}
}

// checkAfterAppend writes the transcript's first tc.k lines under dir (with
// the subagents of the session at src), runs PreCompact, appends lines up
// to tc.n and runs it again, and checks that against a PreCompact at tc.n
// with no state. It says whether the second run took the kept checkpoint.
func checkAfterAppend(t *testing.T, dir, src string, lines [][]byte, tc tailCase) bool {
	t.Helper()
	t.Logf("kept at line %d, read at %d", tc.k, tc.n)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, filepath.Base(src)+".jsonl")
	if _, err := os.Stat(src); err == nil {
		if err := os.Symlink(src, filepath.Join(dir, filepath.Base(src))); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(path, bytes.Join(lines[:tc.k], nil), 0o600); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	keeper := func(st string) *keptFixture {
		f := &keptFixture{dir: dir, project: filepath.Join(dir, "proj"), now: now}
		f.k = &Keeper{State: state.Store{Dir: filepath.Join(dir, st)}, DBPath: filepath.Join(dir, st, "cairn.db"),
			Now: func() time.Time { return f.now }, Detach: func(Job) error { return nil }}
		t.Cleanup(func() { f.k.Close() })
		return f
	}
	a, b := keeper("a"), keeper("b")
	precompact(t, a, path)
	file, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	file.Write(bytes.Join(lines[tc.k:tc.n], nil))
	file.Close()
	_, _, hit := a.k.fromKept(path, a.project, "precompact-auto")
	got, gotSteer, gotPending := precompact(t, a, path)
	want, wantSteer, wantPending := precompact(t, b, path)
	if g, w := asJSON(t, got), asJSON(t, want); g != w {
		t.Errorf("kept at %d, read at %d (served: %v): checkpoint\n%s\nnot a build's\n%s", tc.k, tc.n, hit, g, w)
	}
	if gotSteer != wantSteer {
		t.Errorf("kept at %d, read at %d (served: %v): steering\n%s\nnot a build's\n%s", tc.k, tc.n, hit, gotSteer, wantSteer)
	}
	if !bytes.Equal(gotPending, wantPending) {
		t.Errorf("kept at %d, read at %d (served: %v): announcement\n%s\nnot a build's\n%s", tc.k, tc.n, hit, gotPending, wantPending)
	}
	return hit
}

// precompact is keptFixture.precompact where the steering may be empty (a
// short session's): what it printed, joined.
func precompact(t *testing.T, f *keptFixture, path string) (checkpoint.Checkpoint, string, []byte) {
	t.Helper()
	var steer collect
	c, err := f.k.PreCompact(context.Background(), f.project, path, "auto", steer.deliver)
	if err != nil {
		t.Fatal(err)
	}
	p, err := os.ReadFile(f.k.pendingFile(path))
	if err != nil {
		t.Fatal(err)
	}
	return c, strings.Join(steer, "\x00"), p
}
