package bench

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-agent/cairn/internal/hookevent"
)

// statuslinePayload is Claude Code 2.1.328's status line input after a
// reply, as captured: the context figures are in it.
func statuslinePayload(b *testing.B, name string) []byte {
	data, err := os.ReadFile(filepath.Join("..", "internal", "statusline", "testdata", name))
	if err != nil {
		b.Fatal(err)
	}
	return data
}

// statusline runs `cairn statusline` as Claude Code does: the payload on
// stdin, the first line of stdout shown, with the GOMAXPROCS=1 install
// puts on its command line (install.statusLine) unless
// CAIRN_BENCH_BARE_HOOKS=1 asks for it bare, as installs before perf/cold10
// wired it.
func statusline(b *testing.B, env []string, payload []byte) string {
	cmd := exec.Command(work.cairn, "statusline")
	cmd.Env = env
	if os.Getenv("CAIRN_BENCH_BARE_HOOKS") != "1" {
		cmd.Env = append(slices.Clip(env), hookevent.OneCPUEnv)
	}
	cmd.Stdin = bytes.NewReader(payload)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		if strings.Contains(errb.String(), `unknown command "statusline"`) {
			b.Skip("cairn statusline is not registered in internal/cli's commands")
		}
		b.Fatalf("cairn statusline: %v: %s", err, errb.String())
	}
	if !bytes.HasPrefix(out, []byte("CTX ")) || bytes.HasPrefix(out, []byte("CTX ?")) {
		b.Fatalf("cairn statusline printed %q", out)
	}
	return string(out)
}

// BenchmarkProcessStatusline runs cairn statusline as a process, beside the
// hello-world baseline. The goal is at most 2x hello-world.
//
//   - payload: the status line's JSON carries the context figures (every
//     call after the first reply), plus the checkpoint marker and the
//     pressure marker's check;
//   - head: current_usage is null (before the first reply, after /compact),
//     so the figure comes from the head the hooks saved of the 100 MB
//     transcript, with one more turn appended since.
func BenchmarkProcessStatusline(b *testing.B) {
	b.Run("payload", func(b *testing.B) {
		buildBinaries(b)
		dir := b.TempDir()
		env := append(os.Environ(), "HOME="+filepath.Join(dir, "home"), "XDG_STATE_HOME="+filepath.Join(dir, "state"), "NO_COLOR=")
		payload := statuslinePayload(b, "statusline-after-reply.json")
		statusline(b, env, payload)
		interleaved(b, "", nil, func() { statusline(b, env, payload) })
	})
	b.Run("head", func(b *testing.B) {
		h := newHookBench(b)
		payload := bytes.Replace(statuslinePayload(b, "statusline-before-first-reply.json"),
			[]byte(`"/home/user/.claude/projects/-home-user-proj/c929225f-44a2-4785-ac3e-9ca00e9fb9c2.jsonl"`), []byte(`"`+h.path+`"`), 1)
		h.appendLines(work.turn)
		statusline(b, h.env, payload)
		interleaved(b, "", nil, func() { statusline(b, h.env, payload) })
	})
}
