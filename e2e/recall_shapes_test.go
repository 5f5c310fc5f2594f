package e2e

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-agent/cairn/internal/checkpoint"
)

// recallShape is a recall scenario run as a test, with what today's cairn
// is known to lose.
type recallShape struct {
	sc scenario
	// knownLost are the facts cairn is known to lose after at least one
	// compaction, and knownLeaks the secrets (by Family) it is known to
	// let into its files or its text in requests. Both lists may only
	// shrink: a fact in knownLost that every compaction now keeps, or a
	// secret in knownLeaks that no longer leaks, fails the test until it
	// is taken off the list, so a fix is locked in when it lands. Issue 9
	// is done when both lists are empty.
	knownLost, knownLeaks []string
}

// TestRecallShapes runs four of the recall report's thirteen scenarios as
// tests, with cairn installed: the ones whose shape no older test covers
// and where the client does something unusual, so that a change in cairn
// or in the client that breaks them shows in CI, not only in the report:
//
//   - mix-in-turn: the compaction inside a turn (checkInTurn verifies it
//     from the requests), a piped test run that printed a failure, files
//     read and reasoned about;
//   - vitest-three: three compactions, by hand, automatic, by hand: facts
//     from before the first must survive the third;
//   - terraform-secrets: secrets of eight kinds planted everywhere the
//     client puts text, and none may reach cairn's files or its text;
//   - interactive-tasks: the interactive client under tmux, with tasks.
//
// Each runs in about 5 to 10 s; the other nine run in bench/recall.sh.
func TestRecallShapes(t *testing.T) {
	t.Parallel()
	for _, c := range []recallShape{
		{sc: recallMixInTurn()},
		{sc: recallVitestThree()},
		{sc: recallTerraformSecrets()},
		{sc: recallInteractiveTasks()},
	} {
		t.Run(c.sc.Name, func(t *testing.T) {
			t.Parallel()
			s := newProject(t, c.sc.Files)
			installCairn(t, s)
			p := newPlay(t, c.sc, s)
			p.mustRun(t)
			checkBoundary(t, p)
			checkShape(t, p, c)
		})
	}
}

// checkShape checks a run of a recallShape: after every compaction the
// first request carries cairn's restore once, within the token ceiling,
// and every fact checked there but the known losses; no secret leaks but
// the known ones.
func checkShape(t *testing.T, p *play, c recallShape) {
	t.Helper()
	lost := map[string]bool{}
	for _, o := range p.outcomes(t) {
		if o.FirstCopies != 1 {
			t.Errorf("%s: the first request after compaction %d (#%d) carries %d copies of cairn's restore, want 1", p.sc.Name, o.N, o.First.Seq, o.FirstCopies)
		}
		if n := checkpoint.Tokens(o.CairnText()); n > maxRestoreTokens {
			t.Errorf("%s: cairn added %d tokens to the first request after compaction %d, want at most %d", p.sc.Name, n, o.N, maxRestoreTokens)
		}
		for name, ok := range o.Present {
			if !ok {
				lost[name] = true
				t.Logf("%s: lost after compaction %d: %s (contradicted: %v)", p.sc.Name, o.N, name, o.Contradicted[name])
			}
		}
	}
	ratchet(t, p.sc.Name, "facts lost", "knownLost", lost, c.knownLost)
	if len(p.sc.Secrets) == 0 {
		return
	}
	// The bench must have planted what it checks: every secret reached the
	// client's own transcript.
	tr, err := os.ReadFile(p.s.MustTranscript(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, sec := range p.sc.Secrets {
		if !bytes.Contains(tr, []byte(sec.Value)) {
			t.Errorf("%s: the %s was never in the session's transcript: the bench did not plant it", p.sc.Name, sec.Family)
		}
	}
	l, err := findLeaks(p, p.sc.Secrets, p.written())
	if err != nil {
		t.Fatal(err)
	}
	leaked := map[string]bool{}
	for _, sec := range p.sc.Secrets {
		if fs, rs := l.Files[sec.Value], l.Cairn[sec.Value]; len(fs)+len(rs) > 0 {
			leaked[sec.Family] = true
			t.Logf("%s: the %s leaked to cairn's files %v and cairn's text in requests %v", p.sc.Name, sec.Family, fs, rs)
		}
	}
	ratchet(t, p.sc.Name, "secrets leaked", "knownLeaks", leaked, c.knownLeaks)
}

// ratchet compares what a run got wrong with what is known to go wrong:
// anything new fails, and so does anything known that went right, so the
// list is brought up to date when a fix lands.
func ratchet(t *testing.T, name, what, list string, got map[string]bool, known []string) {
	t.Helper()
	var fresh, fixed []string
	for k := range got {
		if !slices.Contains(known, k) {
			fresh = append(fresh, k)
		}
	}
	for _, k := range known {
		if !got[k] {
			fixed = append(fixed, k)
		}
	}
	slices.Sort(fresh)
	if len(fresh) > 0 {
		t.Errorf("%s: %s that are not known: %q", name, what, fresh)
	}
	if len(fixed) > 0 {
		t.Errorf("%s: %s no more: %q; take them off %s", name, what, fixed, list)
	}
	if len(fresh)+len(fixed) > 0 {
		var all []string
		for k := range got {
			all = append(all, fmt.Sprintf("%q,", k))
		}
		slices.Sort(all)
		t.Logf("%s: %s now (for %s):\n%s", name, what, list, strings.Join(all, "\n"))
	}
}
