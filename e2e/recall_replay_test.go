package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/checkpoint"
)

// TestRecallReplay replays the recall bench's dumped sessions through the
// cairn built from this tree, without the client: for each scenario whose
// with-cairn run was dumped (CAIRN_E2E_DUMP=DIR bench/recall.sh), and each
// of its compactions, it runs the PreCompact and SessionStart(compact)
// hooks on the client's transcript cut at that compaction (every earlier
// compaction's hooks first, in one home, as the session ran them), puts
// the restore they give in place of the one the first request after the
// compaction carried, and checks the scenario's facts on that text. It
// prints, per compaction, the facts carried by the run and by the replay,
// and the restore's tokens, and names every fact that changed.
//
// It is a tool for a change to the restore, minutes instead of the
// bench's half hour: what it measures is approximate (the project
// directory is gone, so the git section is not the run's; the hooks of
// every turn did not run between the compactions), and the bench decides.
// It runs only when CAIRN_REPLAY_DUMP names a dump:
//
//	CAIRN_REPLAY_DUMP=/tmp/full-dump go test -count=1 -run TestRecallReplay -v ./e2e/
//
// CAIRN_REPLAY_ONLY=PREFIX replays the scenarios whose names start with it;
// CAIRN_REPLAY_OUT=DIR keeps each replayed restore as DIR/<scenario>/cN.txt.
func TestRecallReplay(t *testing.T) {
	dump := os.Getenv("CAIRN_REPLAY_DUMP")
	if dump == "" {
		t.Skip("set CAIRN_REPLAY_DUMP=DIR (a CAIRN_E2E_DUMP of bench/recall.sh) to replay its sessions")
	}
	if built.err != nil {
		t.Fatal(built.err)
	}
	only := os.Getenv("CAIRN_REPLAY_ONLY")
	var sums [2]int
	total, changed := 0, 0
	for _, sc := range recallReportScenarios() {
		if !strings.HasPrefix(sc.Name, only) {
			continue
		}
		firsts := dumpedFirsts(filepath.Join(dump, sc.Name+"-with"))
		if len(firsts) == 0 {
			continue
		}
		tr, err := dumpedTranscript(filepath.Join(dump, "TestRecallReport_runs_"+sc.Name+"_with-cairn", sc.Name, "transcripts"))
		if err != nil {
			t.Errorf("%s: %v", sc.Name, err)
			continue
		}
		restores, err := replayRestores(t, tr, sc.triggers(), len(firsts))
		if err != nil {
			t.Errorf("%s: %v", sc.Name, err)
			continue
		}
		for i, first := range firsts {
			n := i + 1
			old := findRestore(first)
			text := first
			if old != "" {
				text = strings.Replace(first, old, restores[i], 1)
			} else {
				text = first + "\n" + restores[i]
			}
			if out := os.Getenv("CAIRN_REPLAY_OUT"); out != "" {
				os.MkdirAll(filepath.Join(out, sc.Name), 0o755)
				os.WriteFile(filepath.Join(out, sc.Name, fmt.Sprintf("c%d.txt", n)), []byte(restores[i]), 0o644)
			}
			was, _ := sc.present(first, n)
			now, contra := sc.present(text, n)
			a, b := count(sc, was), count(sc, now)
			sums[0] += a
			sums[1] += b
			total += len(was)
			line := fmt.Sprintf("%s c%d: run %d/%d, replay %d/%d, restore %d → %d tokens", sc.Name, n, a, len(was), b, len(now), checkpoint.Tokens(old), checkpoint.Tokens(restores[i]))
			var diffs []string
			for _, name := range slices.Sorted(maps.Keys(was)) {
				if was[name] != now[name] {
					diffs = append(diffs, fmt.Sprintf("%s %v→%v", name, was[name], now[name]))
				}
				if contra[name] {
					diffs = append(diffs, name+" contradicted")
				}
			}
			if len(diffs) > 0 {
				changed++
				line += "\n    " + strings.Join(diffs, "\n    ")
			}
			t.Log(line)
		}
	}
	if total == 0 {
		t.Fatalf("no dumped scenario under %s", dump)
	}
	t.Logf("all: run %d/%d, replay %d/%d; %d compactions with a fact changed", sums[0], total, sums[1], total, changed)
}

// dumpedFirsts reads a dumped run's first requests after each compaction
// (c1.txt, c2.txt, ...: dumpRecall's header, then the request's text).
func dumpedFirsts(dir string) []string {
	var out []string
	for n := 1; ; n++ {
		b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("c%d.txt", n)))
		if err != nil {
			return out
		}
		s := string(b)
		if i := strings.Index(s, "\ncairn's text: "); i >= 0 {
			if j := strings.Index(s[i+1:], "\n\n"); j >= 0 {
				s = s[i+1+j+2:]
			}
		}
		out = append(out, s)
	}
}

// dumpedTranscript is the main session's transcript under a dump's
// transcripts directory: the one with the most compactions.
func dumpedTranscript(dir string) (string, error) {
	best, most := "", -1
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".jsonl") || strings.Contains(p, string(filepath.Separator)+"subagents"+string(filepath.Separator)) {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if n := bytes.Count(b, []byte(`"compact_boundary"`)); n > most {
			best, most = p, n
		}
		return nil
	})
	if err == nil && best == "" {
		err = fmt.Errorf("no transcript under %s", dir)
	}
	return best, err
}

// replayRestores runs the hooks of the first n compactions of the
// transcript at path, in one fresh home, and returns each restore.
func replayRestores(t *testing.T, path string, triggers []string, n int) ([]string, error) {
	// Not t.TempDir: a job a hook started may still be writing there
	// when the test ends.
	home, err := os.MkdirTemp("", "cairn-replay-")
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() {
		for range 20 {
			if os.RemoveAll(home) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	work := filepath.Join(home, "transcripts")
	sid := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	if err := os.MkdirAll(work, 0o755); err != nil {
		return nil, err
	}
	if sub := strings.TrimSuffix(path, ".jsonl"); dirExists(sub) {
		if err := os.CopyFS(filepath.Join(work, sid), os.DirFS(sub)); err != nil {
			return nil, err
		}
	}
	lines, cwd, err := transcriptLines(path)
	if err != nil {
		return nil, err
	}
	if cwd != "" {
		os.MkdirAll(cwd, 0o755) // gone since the run; hooks read where the session ran
	}
	env := append(os.Environ(), "HOME="+home, "XDG_STATE_HOME="+filepath.Join(home, "state"), "XDG_DATA_HOME="+filepath.Join(home, "data"),
		"XDG_CONFIG_HOME="+filepath.Join(home, "config"), "XDG_CACHE_HOME="+filepath.Join(home, "cache"), "TMPDIR="+home)
	file := filepath.Join(work, sid+".jsonl")
	hook := func(event string, payload map[string]any) (string, error) {
		payload["session_id"], payload["transcript_path"], payload["cwd"], payload["hook_event_name"] = sid, file, cwd, event
		in, _ := json.Marshal(payload)
		cmd := exec.Command(built.bin, "hook", event)
		cmd.Env, cmd.Dir, cmd.Stdin = env, home, bytes.NewReader(in)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			return "", fmt.Errorf("hook %s: %v: %s", event, err, errb.String())
		}
		return out.String(), nil
	}
	var restores []string
	boundary := 0
	for k := 1; k <= n; k++ {
		// The lines before the k-th compaction's boundary, then through
		// its summary.
		at := -1
		for i := boundary; i < len(lines); i++ {
			if bytes.Contains(lines[i], []byte(`"compact_boundary"`)) {
				at = i
				break
			}
		}
		if at < 0 {
			return nil, fmt.Errorf("the transcript has %d compactions, the dump %d", k-1, n)
		}
		if err := writeLines(file, lines[:at]); err != nil {
			return nil, err
		}
		trigger := "auto"
		if k-1 < len(triggers) && triggers[k-1] == "manual" {
			trigger = "manual"
		}
		if _, err := hook("PreCompact", map[string]any{"trigger": trigger, "custom_instructions": nil}); err != nil {
			return nil, err
		}
		end := at + 1
		for end < len(lines) && end <= at+3 && !bytes.Contains(lines[end-1], []byte(`"isCompactSummary"`)) {
			end++
		}
		if err := writeLines(file, lines[:end]); err != nil {
			return nil, err
		}
		out, err := hook("SessionStart", map[string]any{"source": "compact", "model": "claude-opus-5-5"})
		if err != nil {
			return nil, err
		}
		var resp struct {
			HookSpecificOutput struct {
				AdditionalContext string `json:"additionalContext"`
			} `json:"hookSpecificOutput"`
		}
		if strings.TrimSpace(out) != "" {
			if err := json.Unmarshal([]byte(out), &resp); err != nil {
				return nil, fmt.Errorf("SessionStart printed %q: %v", out, err)
			}
		}
		restores = append(restores, findRestore(resp.HookSpecificOutput.AdditionalContext))
		boundary = at + 1
	}
	return restores, nil
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// transcriptLines reads a transcript's lines and the directory the session
// ran in.
func transcriptLines(path string) ([][]byte, string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, "", err
	}
	defer f.Close()
	var lines [][]byte
	cwd := ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		l := slices.Clone(sc.Bytes())
		lines = append(lines, l)
		if cwd == "" {
			var v struct {
				CWD string `json:"cwd"`
			}
			if json.Unmarshal(l, &v) == nil {
				cwd = v.CWD
			}
		}
	}
	return lines, cwd, sc.Err()
}

func writeLines(path string, lines [][]byte) error {
	var b bytes.Buffer
	for _, l := range lines {
		b.Write(l)
		b.WriteByte('\n')
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}
