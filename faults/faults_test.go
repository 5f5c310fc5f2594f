package faults

import (
	"bufio"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// killAttempts is how many runs of each event target are killed at a
// random point, over as many sequences as that takes.
const killAttempts = 36

// parallelSequences is how many sequences play at once. Most of a
// sequence's time is spent waiting for its hook processes (or, under a
// lock, for cairn's budget to run out), so more than the cores.
const parallelSequences = 4

// smallFS is the size of the filesystem the disk-full fault fills: room
// for the state and the database of one session, and not much more.
const smallFS = 4 << 20

// fault is one kind of failure, applied to one event target per sequence.
type fault struct {
	Name string
	Doc  string // what it does, for the report
	// DB: the fault breaks the database, so a PreCompact run under it
	// cannot store its checkpoint and must say so in the log.
	DB bool
	// setup prepares the world before the sequence.
	setup func(w *world)
	// when narrows the occurrences of the target the fault is applied to.
	when func(w *world, e event) bool
	// extra are targets of this fault's own, beside the events; match
	// says which events they apply to.
	extra []string
	match func(w *world, e event) bool
	// around runs one occurrence of the event under the fault and
	// returns its runs (two for a duplicated event).
	around func(w *world, e event) []*run
	// reps is how many sequences to play for a target (default one).
	reps func(target string) int
}

func (f *fault) applies(w *world, e event) bool {
	if slices.Contains(f.extra, w.target) {
		return f.match(w, e)
	}
	if e.target() != w.target {
		return false
	}
	return f.when == nil || f.when(w, e)
}

func (w *world) inject(n int) {
	w.mu.Lock()
	w.injected += n
	w.mu.Unlock()
}

// suite is one run of TestFaults: its seed, what the calibration
// sequence measured, and the results.
type suite struct {
	seed uint64
	// From the calibration sequence: how often each target occurs in a
	// sequence, and its median run time (the span kills are drawn from).
	occurrences map[string]int
	medians     map[string]time.Duration

	mu      sync.Mutex
	results map[string]map[string]tally // fault -> target -> counts
	kills   map[string][2]int           // target -> attempts, kills that landed
	methods map[string]map[string]bool  // fault -> how it was made
	skipped map[string]string           // fault -> why it did not run
}

func newSuite(t *testing.T) *suite {
	s := &suite{results: map[string]map[string]tally{}, kills: map[string][2]int{},
		methods: map[string]map[string]bool{}, skipped: map[string]string{}}
	if v := os.Getenv("CAIRN_FAULTS_SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("CAIRN_FAULTS_SEED=%q: want a number", v)
		}
		s.seed = n
	} else {
		s.seed = uint64(time.Now().UnixNano())
	}
	return s
}

// rng is the random source of one sequence, derived from the seed and
// the sequence's name so that replaying one sequence replays its draws.
func (s *suite) rng(name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.New(rand.NewPCG(s.seed, h.Sum64()))
}

func (s *suite) record(fault, target string, t tally) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.results[fault] == nil {
		s.results[fault] = map[string]tally{}
	}
	r := s.results[fault][target]
	r.add(t)
	s.results[fault][target] = r
}

func (s *suite) method(fault, how string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.methods[fault] == nil {
		s.methods[fault] = map[string]bool{}
	}
	s.methods[fault][how] = true
}

// calibrate plays the sequence without a fault to learn how often each
// target occurs and how long its runs take.
func (s *suite) calibrate(t *testing.T, w *world) {
	s.occurrences = map[string]int{}
	took := map[string][]time.Duration{}
	for _, r := range w.runs {
		s.occurrences[r.Event.target()]++
		took[r.Event.target()] = append(took[r.Event.target()], r.Took)
	}
	s.medians = map[string]time.Duration{}
	for tg, d := range took {
		slices.Sort(d)
		s.medians[tg] = d[len(d)/2]
	}
	var b strings.Builder
	for _, tg := range targets {
		fmt.Fprintf(&b, " %s %d×%v", tg, s.occurrences[tg], s.medians[tg].Round(100*time.Microsecond))
	}
	t.Logf("calibration (occurrences × median run time):%s", b.String())
}

func TestFaults(t *testing.T) {
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	s := newSuite(t)
	t.Logf("seed %d: CAIRN_FAULTS_SEED=%d replays this run's random kill points and corruptions", s.seed, s.seed)
	start := time.Now()

	calib := newWorld(t, s.rng("none"), nil)
	calib.sequence()
	s.calibrate(t, calib)
	t.Run("none", func(t *testing.T) {
		// Without a fault the contract holds and nothing is logged.
		tl, problems := calib.check()
		var logged []string
		for _, r := range calib.runs {
			logged = append(logged, r.Logs...)
		}
		s.record("none", "", tl)
		report(t, tl, problems)
		if logged = slices.Compact(logged); len(logged) > 0 {
			t.Errorf("without a fault, cairn logged failures: %q", logged)
		}
	})

	var all sync.WaitGroup
	sem := make(chan struct{}, parallelSequences)
	for _, f := range s.faults() {
		all.Add(1)
		go func() {
			defer all.Done()
			t.Run(f.Name, func(t *testing.T) {
				var wg sync.WaitGroup
				for _, target := range append(slices.Clone(targets), f.extra...) {
					reps := 1
					if f.reps != nil {
						reps = f.reps(target)
					}
					for i := range reps {
						name := target
						if reps > 1 {
							name = fmt.Sprintf("%s#%02d", target, i+1)
						}
						wg.Add(1)
						go func() {
							defer wg.Done()
							sem <- struct{}{}
							defer func() { <-sem }()
							t.Run(name, func(t *testing.T) { s.play(t, f, target, name) })
						}()
					}
				}
				wg.Wait()
			})
		}()
	}
	all.Wait()
	t.Logf("%d sequences in %v", s.total().Sequences, time.Since(start).Round(time.Second))
	if out := os.Getenv("CAIRN_FAULTS_REPORT"); out != "" {
		if !filepath.IsAbs(out) {
			out = filepath.Join("..", out) // relative to the repository, where the command is run
		}
		if err := s.writeReport(out, time.Since(start)); err != nil {
			t.Errorf("report: %v", err)
		}
	}
}

// play runs one sequence with fault f applied to target and checks it.
func (s *suite) play(t *testing.T, f *fault, target, name string) {
	full := f.Name + "/" + name
	w := newWorld(t, s.rng(full), f)
	w.target = target
	if f.setup != nil {
		f.setup(w)
		if t.Skipped() {
			return
		}
	}
	w.sequence()
	tl, problems := w.check()
	tl.Faults = w.injected
	s.record(f.Name, target, tl)
	report(t, tl, problems)
}

// report fails the test on any violation, listing the problems.
func report(t *testing.T, tl tally, problems []string) {
	t.Helper()
	if tl.violations() == 0 {
		return
	}
	t.Errorf("contract violated: lost %d, stale %d, duplicated %d, incomplete %d, steering missing %d, bad exits %d, overruns %d, bad output %d, missing log lines %d, bad log lines %d, secrets leaked %d (runs %d, faults %d)",
		tl.Lost, tl.Stale, tl.Duplicated, tl.Incomplete, tl.SteeringMissing, tl.BadExits, tl.Overruns, tl.BadOutput, tl.MissingLogs, tl.BadLogs, tl.Leaks, tl.Runs, tl.Faults)
	const most = 25
	for i, p := range problems {
		if i == most {
			t.Logf("… and %d more", len(problems)-most)
			break
		}
		t.Log(p)
	}
}

// faults are the faults of the issue, each applied to every target.
func (s *suite) faults() []*fault {
	fs := []*fault{
		{Name: "db-locked", DB: true,
			Doc:    "another process holds the database's write lock (`BEGIN EXCLUSIVE` with the same driver) for the whole run",
			around: s.locked},
		{Name: "db-read-only", DB: true,
			Doc: "the database directory is read-only during the run (a read-only bind mount as root, chmod otherwise, or a file in its place)",
			around: func(w *world, e event) []*run {
				how, undo := readOnly(w.t, w.dataDir())
				s.method("db-read-only", how)
				defer undo()
				w.inject(1)
				return []*run{w.exec(e, execOpts{fault: "db-read-only"})}
			}},
		{Name: "state-read-only",
			Doc: "the state directory (and the log in it) is read-only during the run, by the same means",
			around: func(w *world, e event) []*run {
				how, undo := readOnly(w.t, w.stateDir())
				s.method("state-read-only", how)
				defer undo()
				w.inject(1)
				return []*run{w.exec(e, execOpts{fault: "state-read-only"})}
			}},
		{Name: "disk-full", DB: true,
			Doc:   fmt.Sprintf("state and database live on a %d MiB tmpfs, filled to the last byte during the run", smallFS>>20),
			setup: s.smallDisk,
			around: func(w *world, e event) []*run {
				undo, err := fill(filepath.Join(w.root, "xdg"))
				if err != nil {
					w.t.Fatal(err)
				}
				defer onceUndo(w.t, undo)()
				w.inject(1)
				return []*run{w.exec(e, execOpts{fault: "disk-full"})}
			}},
		{Name: "kill",
			Doc: fmt.Sprintf("SIGKILL at a random point of every run of the event (uniform over 0 to 1.5× its median run time, at most 50 ms; %d attempts per event). "+
				"`%s`: every SessionStart(compact) is killed as it starts, and the first prompt after it, which must then deliver the restore, at a random point", killAttempts, fallbackTarget),
			around: s.kill,
			extra:  []string{fallbackTarget},
			match: func(w *world, e event) bool {
				switch e.target() {
				case "SessionStart(compact)":
					return true
				case "UserPromptSubmit":
					return w.window > 0 && !w.fallbackKilled[w.window]
				}
				return false
			},
			reps: func(target string) int {
				n := max(1, s.occurrences[target])
				if target == fallbackTarget {
					n = len(phases)
				}
				return (killAttempts + n - 1) / n
			}},
		{Name: "stdout-closed",
			Doc: "the hook's stdout is a pipe whose read end is closed",
			around: func(w *world, e event) []*run {
				w.inject(1)
				return []*run{w.exec(e, execOpts{fault: "stdout-closed", closeStdout: true})}
			}},
		{Name: "duplicate",
			Doc: "the event is run twice in a row with the same payload",
			around: func(w *world, e event) []*run {
				w.inject(1)
				return []*run{w.exec(e, execOpts{fault: "duplicate"}), w.exec(e, execOpts{fault: "duplicate"})}
			}},
		{Name: "concurrent",
			Doc: "the event is run twice at the same time with the same payload",
			around: func(w *world, e event) []*run {
				w.inject(1)
				a, b := w.start(e, execOpts{fault: "concurrent"}), w.start(e, execOpts{fault: "concurrent"})
				return []*run{a.wait(w), b.wait(w)}
			}},
	}
	for _, v := range []struct{ variant, doc string }{
		{corruptGarbage, "16 KiB of random bytes"},
		{corruptTruncated, "the database cut to half its length plus 100 bytes"},
		{corruptEmpty, "a zero-length file"},
		{corruptDirectory, "a directory where the database file should be"},
		{corruptWrongSchema, "a SQLite database of another shape (schema_version 1, a `checkpoints` table of other columns, no `claims`)"},
		{corruptNewerSchema, "a newer cairn's database (schema_version 2, with NOT NULL columns this cairn does not fill)"},
	} {
		name := "corrupt-" + v.variant
		fs = append(fs, &fault{Name: name, DB: v.variant != corruptEmpty,
			Doc: "from the event's first run after the first compaction on, the database is " + v.doc + " (its -wal and -shm removed); it stays so",
			when: func(w *world, e event) bool {
				return w.window >= 1 && !w.corrupted
			},
			around: func(w *world, e event) []*run {
				if err := w.corrupt(v.variant); err != nil {
					w.t.Fatalf("corrupt the database: %v", err)
				}
				w.corrupted = true
				w.inject(1)
				return []*run{w.exec(e, execOpts{fault: name})}
			}})
	}
	return fs
}

// locked runs e while a locker process holds the database's write lock.
func (s *suite) locked(w *world, e event) []*run {
	w.t.Helper()
	db := w.dbPath()
	if err := os.MkdirAll(filepath.Dir(db), 0o700); err != nil {
		w.t.Fatal(err)
	}
	if f, err := os.OpenFile(db, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600); err == nil {
		f.Close() // as cairn creates it, so that the locker does not pick the mode
	}
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), lockerEnv+"="+db)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		w.t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		w.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if strings.TrimSpace(line) != "locked" {
		stdin.Close()
		cmd.Wait()
		w.t.Fatalf("locker: %q", line)
	}
	w.inject(1)
	r := w.exec(e, execOpts{fault: "db-locked"})
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		w.t.Errorf("locker: %v", err)
	}
	return []*run{r}
}

// fallbackTarget is the kill fault's target for the prompt-time
// fallback: the first prompt after a compaction whose SessionStart was
// killed.
const fallbackTarget = "UserPromptSubmit(fallback)"

// kill runs e and kills it at a random point of its usual run time.
func (s *suite) kill(w *world, e event) []*run {
	span := s.medians[e.target()] * 3 / 2
	span = min(max(span, time.Millisecond), 50*time.Millisecond)
	delay := time.Duration(w.rng.Int64N(int64(span)))
	if w.target == fallbackTarget {
		if e.target() == "SessionStart(compact)" {
			w.inject(1)
			return []*run{w.exec(e, execOpts{fault: "kill", kill: true})}
		}
		w.fallbackKilled[w.window] = true
		// The fallback also reads the database and renders the restore.
		span = min(s.medians["SessionStart(compact)"]*3/2, 50*time.Millisecond)
		delay = time.Duration(w.rng.Int64N(int64(max(span, time.Millisecond))))
	}
	r := w.exec(e, execOpts{fault: "kill", kill: true, killAfter: delay})
	landed := r.Killed && !r.TimedOut
	if landed {
		w.inject(1)
	}
	s.mu.Lock()
	k := s.kills[w.target]
	k[0]++
	if landed {
		k[1]++
	}
	s.kills[w.target] = k
	s.mu.Unlock()
	return []*run{r}
}

// smallDisk puts the world's XDG directories on a small tmpfs. Where
// that cannot be done the fault is skipped, except in CI, where it fails.
func (s *suite) smallDisk(w *world) {
	undo, err := mountSmall(filepath.Join(w.root, "xdg"), smallFS)
	if err != nil {
		why := fmt.Sprintf("cannot mount a small filesystem (%v); filling the real disk is not an option", err)
		if os.Getenv("CI") != "" {
			w.t.Fatal(why)
		}
		s.mu.Lock()
		s.skipped["disk-full"] = why
		s.mu.Unlock()
		w.t.Skip(why)
	}
	onceUndo(w.t, undo)
	s.method("disk-full", "tmpfs")
}

func (s *suite) total() tally {
	s.mu.Lock()
	defer s.mu.Unlock()
	var t tally
	for _, byTarget := range s.results {
		for _, tl := range byTarget {
			t.add(tl)
		}
	}
	return t
}
