// Command hookcmp measures the hot hooks of several cairn binaries in one
// run, beside a hello-world process: each round runs hello-world and each
// binary's hook in a random order, so that all meet the same moments of a
// shared machine's load, and it prints the medians of each process's wall
// time, CPU time and minor page faults, and their ratios to hello-world's.
// A before and an after binary compared this way differ by less than
// what separates two runs of go test -bench on a loaded machine
// (docs/benchmarks.md, issue 15).
//
//	go run ./bench/hookcmp -n 200 -event PostToolUse main=/tmp/cairn-main new=/tmp/cairn-new
//
// A binary given as BIN+KEY=VALUE (more +KEY=VALUE may follow) runs with
// those variables in its environment and no other's, as a hook command
// line that starts with them would (main1=/tmp/cairn-main+GOMAXPROCS=1).
//
// -turn FILE appends FILE's lines instead of bench/'s turn (tool results
// mostly), e.g. a turn of long replies. -start measures the process alone
// instead of a hook: each binary runs `cairn version`, with no project.
//
// Each binary gets a project of its own with a copy of the benchmarks'
// 100 MB transcript whose state is saved, as bench/hooks_test.go sets it
// up, and one more turn is appended before each of its hooks. Binaries
// are copied first, as bench/ does: a binary as the linker wrote it sits
// in the page cache in small pieces and starts slower.
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/cairn-agent/cairn/internal/fixtures"
)

type target struct {
	name, bin string
	dir       string   // the project's directory; "" for hello-world and -start
	args      []string // the command line without a project
	env       []string
	wall, cpu []time.Duration
	faults    []int64
}

func main() {
	rounds := flag.Int("n", 100, "rounds")
	event := flag.String("event", "UserPromptSubmit", "UserPromptSubmit or PostToolUse")
	turnFile := flag.String("turn", "", "a file of lines to append before each hook (default: bench/'s turn, the tool_heavy fixture's last 12 lines)")
	start := flag.Bool("start", false, "measure the process alone: `cairn version` instead of a hook")
	flag.Parse()
	if flag.NArg() == 0 || (*event != "UserPromptSubmit" && *event != "PostToolUse") {
		fmt.Fprintln(os.Stderr, "usage: hookcmp [-n rounds] [-event UserPromptSubmit|PostToolUse] name=CAIRN...")
		os.Exit(2)
	}
	if err := run(*rounds, *event, *turnFile, *start, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "hookcmp:", err)
		os.Exit(1)
	}
}

func run(rounds int, event, turnFile string, start bool, bins []string) error {
	dir, err := os.MkdirTemp("", "cairn-hookcmp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	big := filepath.Join(dir, "big.jsonl")
	var turn []byte
	if !start {
		if turn, err = setUpSession(dir, big, turnFile); err != nil {
			return err
		}
	}

	hello, err := buildHello(dir)
	if err != nil {
		return err
	}
	targets := []*target{{name: "hello", bin: hello}}
	for i, arg := range bins {
		name, bin, ok := strings.Cut(arg, "=")
		if !ok {
			name, bin = fmt.Sprintf("cairn%d", i+1), arg
		}
		// BIN+KEY=VALUE sets KEY in that binary's environment only, as a
		// hook command line that starts with it does.
		bin, extra, _ := strings.Cut(bin, "+")
		t := &target{name: name, bin: filepath.Join(dir, fmt.Sprintf("bin%d", i))}
		if err := copyFile(bin, t.bin); err != nil {
			return err
		}
		if start {
			t.args = []string{"version"}
			if extra != "" {
				t.env = append(os.Environ(), strings.Split(extra, "+")...)
			}
			targets = append(targets, t)
			continue
		}
		if err := t.setUp(filepath.Join(dir, fmt.Sprintf("p%d", i)), big); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if extra != "" {
			t.env = append(t.env, strings.Split(extra, "+")...)
		}
		targets = append(targets, t)
	}
	for range rounds {
		for _, i := range rand.Perm(len(targets)) {
			if err := targets[i].measure(event, turn); err != nil {
				return fmt.Errorf("%s: %w", targets[i].name, err)
			}
		}
	}
	h := targets[0]
	if start {
		event = "cairn version"
	}
	fmt.Printf("%d rounds, %s\n", rounds, event)
	for _, t := range targets {
		fmt.Printf("%-8s wall %5d µs %.2fx   CPU %5d µs %.2fx   faults %d\n", t.name,
			median(t.wall).Microseconds(), ratio(median(t.wall), median(h.wall)),
			median(t.cpu).Microseconds(), ratio(median(t.cpu), median(h.cpu)), median(t.faults))
	}
	return nil
}

// setUpSession writes the benchmarks' 100 MB transcript to big and
// returns the turn appended before each hook.
func setUpSession(dir, big, turnFile string) ([]byte, error) {
	fx, err := fixtures.Extract(filepath.Join(dir, "fixtures"))
	if err != nil {
		return nil, err
	}
	if _, err := fixtures.Big(fx, big, 100<<20); err != nil {
		return nil, err
	}
	if turnFile != "" {
		return os.ReadFile(turnFile)
	}
	// One real turn, as bench/ appends it.
	src, err := os.ReadFile(filepath.Join(fx, "tool_heavy.jsonl"))
	if err != nil {
		return nil, err
	}
	lines := bytes.SplitAfter(src, []byte("\n"))
	return bytes.Join(lines[len(lines)-12:], nil), nil
}

// setUp makes the project's steady state, as bench/hooks_test.go does:
// saved state, the compaction restored, the checkpoint stored.
func (t *target) setUp(dir, big string) error {
	t.dir = dir
	project := filepath.Join(dir, "proj")
	if err := os.MkdirAll(project, 0o755); err != nil {
		return err
	}
	if err := copyFile(big, t.transcript()); err != nil {
		return err
	}
	if out, err := exec.Command("git", "init", "-q", project).CombinedOutput(); err != nil {
		return fmt.Errorf("git init: %v %s", err, out)
	}
	t.env = append(os.Environ(), "HOME="+filepath.Join(dir, "home"), "XDG_STATE_HOME="+filepath.Join(dir, "state"),
		"XDG_DATA_HOME="+filepath.Join(dir, "data"), "CLAUDE_PROJECT_DIR="+project)
	for _, h := range []struct {
		event string
		extra map[string]any
	}{{"PreCompact", map[string]any{"trigger": "auto"}}, {"SessionStart", map[string]any{"source": "compact"}}, {"UserPromptSubmit", nil}} {
		if _, err := t.hook(h.event, h.extra).Output(); err != nil {
			return fmt.Errorf("hook %s: %w", h.event, err)
		}
		if err := t.settled(); err != nil {
			return err
		}
	}
	return nil
}

func (t *target) transcript() string { return filepath.Join(t.dir, "session.jsonl") }

// hook is the command that runs one hook with its payload.
func (t *target) hook(event string, extra map[string]any) *exec.Cmd {
	p := map[string]any{"session_id": "bench", "transcript_path": t.transcript(), "cwd": filepath.Join(t.dir, "proj"), "hook_event_name": event}
	for k, v := range extra {
		p[k] = v
	}
	payload, _ := json.Marshal(p)
	cmd := exec.Command(t.bin, "hook", event)
	cmd.Env = t.env
	cmd.Stdin = bytes.NewReader(payload)
	return cmd
}

// settled waits for the jobs the hooks started to end.
func (t *target) settled() error {
	f, err := os.Open(filepath.Join(t.dir, "data", "cairn", "cairn.db.settling"))
	if err != nil {
		return nil // no job yet
	}
	defer f.Close()
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
}

// measure runs the target once: hello-world with a payload-sized stdin,
// or the hook after one more turn (appended and settled untimed).
func (t *target) measure(event string, turn []byte) error {
	var cmd *exec.Cmd
	if t.dir == "" {
		cmd = exec.Command(t.bin, t.args...)
		cmd.Env = t.env // nil: this process's
		cmd.Stdin = bytes.NewReader(bytes.Repeat([]byte("x"), 256))
	} else {
		f, err := os.OpenFile(t.transcript(), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		_, err = f.Write(turn)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = t.settled()
		}
		if err != nil {
			return err
		}
		extra := map[string]any{"prompt": "go on"}
		if event == "PostToolUse" {
			extra = map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "ls"}}
		}
		cmd = t.hook(event, extra)
	}
	var out bytes.Buffer
	cmd.Stdout = &out
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return err
	}
	wall := time.Since(start)
	if t.dir != "" && out.Len() > 0 {
		return fmt.Errorf("the hook answered %.200q: not the steady state", out.String())
	}
	if log, _ := os.ReadFile(filepath.Join(t.dir, "state", "cairn", "cairn.log")); t.dir != "" && len(log) > 0 {
		return fmt.Errorf("the hook logged %s", log)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	t.wall = append(t.wall, wall)
	t.cpu = append(t.cpu, time.Duration(syscall.TimevalToNsec(ru.Utime)+syscall.TimevalToNsec(ru.Stime)))
	t.faults = append(t.faults, ru.Minflt)
	return nil
}

func buildHello(dir string) (string, error) {
	src := filepath.Join(dir, "hello")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return "", err
	}
	os.WriteFile(filepath.Join(src, "go.mod"), []byte("module hello\n\ngo 1.26\n"), 0o644)
	os.WriteFile(filepath.Join(src, "main.go"), []byte("package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello\") }\n"), 0o644)
	linked := filepath.Join(dir, "hello-linked")
	cmd := exec.Command("go", "build", "-o", linked, ".")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build hello: %v\n%s", err, out)
	}
	bin := filepath.Join(dir, "hello-bin")
	return bin, copyFile(linked, bin)
}

func copyFile(from, to string) error {
	data, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, data, 0o755)
}

func median[T int64 | time.Duration](v []T) T {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

func ratio(a, b time.Duration) float64 { return float64(a) / float64(b) }
