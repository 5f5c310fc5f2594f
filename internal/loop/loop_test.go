package loop

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/estimate"
	"github.com/cairn-agent/cairn/internal/pressure"
)

// The test binary doubles as the agent's process: with LOOP_FAKE_AGENT
// set it prints a stream-json session instead of running the tests. The
// real client's runs are in e2e (TestLoopOnTheRealClient); this one drives
// the runner's process handling (signals, the grace, a kill) where timing
// is under the test's control.
func TestMain(m *testing.M) {
	if os.Getenv("LOOP_FAKE_AGENT") != "" {
		os.Exit(fakeAgent())
	}
	os.Exit(m.Run())
}

func emit(v any) {
	data, _ := json.Marshal(v)
	fmt.Println(string(data))
}

func tick(item string) {
	plan, _ := os.ReadFile(PlanFile)
	os.WriteFile(PlanFile, []byte(strings.Replace(string(plan), "- [ ] "+item, "- [x] "+item, 1)), 0o644)
}

// fakeAgent plays one iteration of the three-iteration script: the first
// ticks an item, the second grows past L2 and keeps working until it is
// interrupted, the third checks it was given the resume context and
// finishes the plan.
func fakeAgent() int {
	prompt := ""
	for i, a := range os.Args {
		if a == "-p" && i+1 < len(os.Args) {
			prompt = os.Args[i+1]
		}
	}
	if os.Getenv("LOOP_FAKE_SHARDS") != "" {
		// Ticks the plan's first open item, whatever it is.
		plan, _ := os.ReadFile(PlanFile)
		os.WriteFile(PlanFile, []byte(strings.Replace(string(plan), "- [ ] ", "- [x] ", 1)), 0o644)
		emit(map[string]any{"type": "system", "subtype": "init", "session_id": "sess-shard", "model": "claude-sonnet-4-5"})
		emit(map[string]any{"type": "result", "subtype": "success", "is_error": false, "session_id": "sess-shard", "result": "done",
			"total_cost_usd": 0.01, "usage": map[string]any{"input_tokens": 1000, "output_tokens": 50}})
		return 0
	}
	n, _ := strconv.Atoi(os.Getenv("LOOP_FAKE_ITERATION"))
	if b, err := os.ReadFile(".iteration"); err == nil {
		n, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	}
	n++
	os.WriteFile(".iteration", []byte(strconv.Itoa(n)), 0o644)
	os.WriteFile(fmt.Sprintf(".prompt-%d", n), []byte(prompt), 0o644)
	id := fmt.Sprintf("sess-%d", n)
	emit(map[string]any{"type": "system", "subtype": "init", "session_id": id, "model": "claude-sonnet-4-5"})
	say := func(tokens int64) {
		emit(map[string]any{"type": "assistant", "session_id": id, "parent_tool_use_id": nil,
			"message": map[string]any{"model": "claude-sonnet-4-5", "usage": map[string]any{"input_tokens": 10, "cache_read_input_tokens": tokens - 110, "output_tokens": 100}}})
	}
	result := func(text string, tokens int64) {
		emit(map[string]any{"type": "result", "subtype": "success", "is_error": false, "session_id": id, "result": text,
			"total_cost_usd": 0.25, "usage": map[string]any{"input_tokens": tokens, "output_tokens": 500}})
	}
	switch n {
	case 1:
		say(40000)
		tick("Parse the CSV header")
		result("Header parsing done.", 40000)
	case 2:
		say(60000)
		say(150000) // 89.8% of 167,000: L2
		// Keeps working until told to stop, as a busy agent does.
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, syscall.SIGINT)
		select {
		case <-sig:
			return 130
		case <-time.After(20 * time.Second):
			result("never interrupted", 150000)
			return 0
		}
	case 3:
		if !strings.Contains(prompt, "CONTEXT CHECKPOINT RESUME") || !strings.Contains(prompt, ".claude/handoffs/iter2.md") {
			emit(map[string]any{"type": "result", "is_error": true, "result": "no resume context in the prompt"})
			return 1
		}
		say(30000)
		tick("Write the totals row")
		tick("Round with banker's rounding")
		result("All done. "+DefaultMarker, 30000)
	default:
		emit(map[string]any{"type": "result", "is_error": true, "result": "a fourth iteration"})
		return 1
	}
	return 0
}

func project(t *testing.T) string {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, PromptFile), []byte("# Task\n\nExport invoices as CSV.\n"), 0o644)
	os.WriteFile(filepath.Join(dir, PlanFile), []byte("# Plan\n\n- [ ] Parse the CSV header\n- [ ] Write the totals row\n  the totals come last, after a blank row\n- [ ] Round with banker's rounding\n"), 0o644)
	return dir
}

func runner(t *testing.T, dir string) (*Runner, *[]string) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var checkpoints []string
	r := &Runner{Dir: dir, Command: []string{exe}, Env: append(os.Environ(), "LOOP_FAKE_AGENT=1"),
		Levels: pressure.Default(), Grace: 300 * time.Millisecond, IterationTimeout: 15 * time.Second,
		Checkpoint: func(_ context.Context, id, trigger string, level int) (Checkpointed, error) {
			mu.Lock()
			defer mu.Unlock()
			checkpoints = append(checkpoints, id+" "+trigger)
			return Checkpointed{Handoff: ".claude/handoffs/iter2.md", Summary: "totals row half written", Files: []string{"export/csv.go"}}, nil
		}}
	return r, &checkpoints
}

func TestThreeIterationsWithACheckpoint(t *testing.T) {
	dir := project(t)
	r, checkpoints := runner(t, dir)
	var progress strings.Builder
	r.Progress = &progress
	s, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("progress:\n%s", progress.String())
	if s.Status != "done" || s.Iteration != 3 {
		t.Fatalf("status %s (%s) after %d iterations", s.Status, s.StopReason, s.Iteration)
	}
	var outcomes []string
	for _, h := range s.ContextHistory {
		outcomes = append(outcomes, fmt.Sprintf("%d:%s:%v:%d", h.Iteration, h.Outcome, h.Checkpoint, h.PeakPercent))
	}
	if got := strings.Join(outcomes, " "); got != "1:completed:false:23 2:checkpoint:true:89 3:completed:false:17" {
		t.Errorf("history %s", got)
	}
	if len(*checkpoints) != 1 || (*checkpoints)[0] != "sess-2 loop-L2" {
		t.Errorf("checkpoints %v", *checkpoints)
	}
	if s.ContextCheckpoint.Active || s.Current != nil {
		t.Errorf("after the plan is done: checkpoint %+v, current %+v", s.ContextCheckpoint, s.Current)
	}
	if s.Tokens != 71000 { // 40,500 and 30,500: the interrupted iteration reported none
		t.Errorf("tokens %d", s.Tokens)
	}
	// The resume context went into PROMPT.md for the third iteration, and
	// out again once it was used; the user's text stayed.
	third, _ := os.ReadFile(filepath.Join(dir, ".prompt-3"))
	for _, want := range []string{"Export invoices as CSV.", "CONTEXT CHECKPOINT RESUME", "Iteration 2 hit 89% of its context (L2)", "- **File**: export/csv.go", "- **Item**: Write the totals row", "the totals come last, after a blank row"} {
		if !strings.Contains(string(third), want) {
			t.Errorf("the third prompt lacks %q:\n%s", want, third)
		}
	}
	prompt, _ := os.ReadFile(filepath.Join(dir, PromptFile))
	if string(prompt) != "# Task\n\nExport invoices as CSV.\n" {
		t.Errorf("PROMPT.md afterwards: %q", prompt)
	}
	// The state file is seed 003's shape.
	var raw map[string]any
	data, _ := os.ReadFile(filepath.Join(dir, StateFile))
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"context_checkpoint", "context_history", "iteration", "status"} {
		if _, ok := raw[k]; !ok {
			t.Errorf("ralph-state.json has no %s", k)
		}
	}
	hist := raw["context_history"].([]any)
	if h := hist[1].(map[string]any); h["iteration"] != 2.0 || h["peak_percent"] != 89.0 || h["checkpoint"] != true {
		t.Errorf("context_history[1] = %v", h)
	}
}

// A loop killed in an iteration finds it in the state and resumes from
// its session's checkpoint.
func TestKilledLoopResumes(t *testing.T) {
	dir := project(t)
	// The next agent run plays the third iteration, which checks that its
	// prompt carries the resume context.
	os.WriteFile(filepath.Join(dir, ".iteration"), []byte("2"), 0o644)
	tick := func() {
		plan, _ := os.ReadFile(filepath.Join(dir, PlanFile))
		os.WriteFile(filepath.Join(dir, PlanFile), []byte(strings.Replace(string(plan), "- [ ] Parse", "- [x] Parse", 1)), 0o644)
	}
	tick()
	// As a loop killed during iteration 2 leaves it.
	if err := Save(filepath.Join(dir, StateFile), State{Status: "running", Iteration: 2,
		Current:        &Current{Iteration: 2, Item: "Write the totals row", SessionID: "sess-2", PID: 999999},
		ContextHistory: []HistoryEntry{{Iteration: 1, Outcome: "completed", PeakPercent: 23}}}); err != nil {
		t.Fatal(err)
	}
	r, checkpoints := runner(t, dir)
	s, err := r.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if s.Status != "done" || len(*checkpoints) != 1 || (*checkpoints)[0] != "sess-2 loop-interrupted" {
		t.Fatalf("status %s (%s), checkpoints %v", s.Status, s.StopReason, *checkpoints)
	}
	if h := s.ContextHistory[1]; h.Outcome != "interrupted" || !h.Checkpoint {
		t.Errorf("the killed iteration: %+v", h)
	}
}

func TestStops(t *testing.T) {
	dir := project(t)
	r, _ := runner(t, dir)
	r.MaxIterations = 1
	s, err := r.Run(context.Background())
	if err != nil || s.Status != "stopped" || s.StopReason != "max iterations (1)" || s.Iteration != 1 {
		t.Fatalf("%v: %s (%s) after %d", err, s.Status, s.StopReason, s.Iteration)
	}
	// The cost ceiling: iteration 1 cost $0.25.
	r, _ = runner(t, dir)
	r.MaxCostUSD = 0.2
	if s, _ = r.Run(context.Background()); s.StopReason != "cost ceiling ($0.20)" {
		t.Errorf("cost: %s (%s)", s.Status, s.StopReason)
	}
	// Failures in a row.
	dir = project(t)
	os.WriteFile(filepath.Join(dir, ".iteration"), []byte("10"), 0o644)
	r, _ = runner(t, dir)
	r.MaxFailures = 2
	if s, _ = r.Run(context.Background()); s.Status != "failed" || s.StopReason != "2 failures in a row" {
		t.Errorf("failures: %s (%s)", s.Status, s.StopReason)
	}
}

func TestPlanAndShards(t *testing.T) {
	plan := "# P\n\n- [x] one\n- [ ] two\n    detail of two\n  * [ ] three\nnot an item\n"
	items := ParsePlan(plan)
	if len(items) != 3 || !items[0].Done || items[1].Text != "two" || len(items[1].Body) != 1 || items[2].Text != "three" {
		t.Fatalf("items %+v", items)
	}
	it, ok := Next(items)
	if !ok || it.Text != "two" {
		t.Fatalf("next %+v", it)
	}
	got, texts := Shard(plan, it, [][]string{{"schema"}, {"handler", "tests"}})
	if strings.Join(texts, "|") != "two (part 1/2: schema)|two (part 2/2: handler; tests)" {
		t.Errorf("shards' items %q", texts)
	}
	want := "# P\n\n- [x] one\n- [ ] two (part 1/2: schema)\n- [ ] two (part 2/2: handler; tests)\n    detail of two\n  * [ ] three\nnot an item\n"
	if got != want {
		t.Errorf("Shard:\n%s\nwant:\n%s", got, want)
	}
	p := WithResume("# Task\n", "## R\nx")
	if p2 := WithResume(p, "## R\ny"); !strings.Contains(p2, "y") || strings.Contains(p2, "x\n") || strings.Count(p2, resumeBegin) != 1 {
		t.Errorf("resume replaced: %q", p2)
	}
	if WithResume(p, "") != "# Task\n" {
		t.Errorf("resume removed: %q", WithResume(p, ""))
	}
}

// fakeTickets is the tracker's queue as the loop sees it: a sub-issue is
// "created" (ENG-43, ENG-44...) as soon as it is queued, as a drainer
// that ran at once would.
type fakeTickets struct {
	parent  string
	keys    map[string]string // key -> ticket
	sharded [][]string
	done    []string
}

func (f *fakeTickets) Shard(item string, shards []string) (string, []string, error) {
	f.sharded = append(f.sharded, shards)
	var keys []string
	for i := range shards {
		k := fmt.Sprintf("k%d", i)
		if _, ok := f.keys[k]; !ok {
			f.keys[k] = fmt.Sprintf("ENG-%d", 43+len(f.keys))
		}
		keys = append(keys, k)
	}
	return f.parent, keys, nil
}

func (f *fakeTickets) Created(key string) (string, bool) { t, ok := f.keys[key]; return t, ok }

func (f *fakeTickets) Done(sh ShardTicket, done, total int, tickets []string) error {
	f.done = append(f.done, fmt.Sprintf("%s %s %d/%d %v", sh.Parent, sh.Ticket, done, total, tickets))
	return nil
}

// SHD-003/004: the shards of an oversized item become sub-issues of the
// bound ticket, recorded in the state, and each shard ticked tells the
// ticket once.
func TestShardsTellTheTicket(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, PromptFile), []byte("# Task\n"), 0o644)
	os.WriteFile(filepath.Join(dir, PlanFile), []byte("# Plan\n\n- [ ] Export invoices\n  - schema\n  - handler\n"), 0o644)
	r, _ := runner(t, dir)
	r.Env = append(r.Env, "LOOP_FAKE_SHARDS=1")
	estimates := 0
	r.Estimate = func(spec string) estimate.Advice {
		estimates++
		return estimate.Advice{Action: estimate.ShardFirst, Split: &estimate.Split{Shards: []estimate.Shard{{Parts: []string{"schema"}}, {Parts: []string{"handler"}}}}}
	}
	f := &fakeTickets{parent: "ENG-42", keys: map[string]string{}}
	r.Tickets = f
	var progress strings.Builder
	r.Progress = &progress
	s, err := r.Run(context.Background())
	t.Logf("progress:\n%s", progress.String())
	if err != nil || s.Status != "done" || s.Iteration != 2 {
		t.Fatalf("%v: %s (%s) after %d iterations", err, s.Status, s.StopReason, s.Iteration)
	}
	if estimates != 1 || len(f.sharded) != 1 || strings.Join(f.sharded[0], "|") != "Export invoices (part 1/2: schema)|Export invoices (part 2/2: handler)" {
		t.Errorf("sharded %q after %d estimates", f.sharded, estimates)
	}
	if got := strings.Join(f.done, "; "); got != "ENG-42 ENG-43 1/2 [ENG-43 ENG-44]; ENG-42 ENG-44 2/2 [ENG-43 ENG-44]" {
		t.Errorf("told: %s", got)
	}
	saved, err := Load(filepath.Join(dir, StateFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(saved.Shards) != 2 || saved.Shards[1] != (ShardTicket{Item: "Export invoices (part 2/2: handler)", Of: "Export invoices", Parent: "ENG-42", Key: "k1", Ticket: "ENG-44", Done: true}) {
		t.Errorf("state's shards: %+v", saved.Shards)
	}
	// Sharding the same item again (a loop killed between recording the
	// shards and writing the plan) records nothing twice.
	r.shardTickets(&saved, "Export invoices", []string{"Export invoices (part 1/2: schema)", "Export invoices (part 2/2: handler)"})
	if len(saved.Shards) != 2 {
		t.Errorf("shards recorded twice: %+v", saved.Shards)
	}
	// No ticket bound: no sub-issues, and the loop runs as before.
	f.parent = ""
	var none State
	r.shardTickets(&none, "x", []string{"x (part 1/2: a)", "x (part 2/2: b)"})
	if len(none.Shards) != 0 {
		t.Errorf("with no ticket: %+v", none.Shards)
	}
}
