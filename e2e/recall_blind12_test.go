package e2e

import (
	"fmt"
	"path/filepath"

	"github.com/cairn-agent/cairn/e2e/fakeapi"
)

// The recall bench's twelfth blind set: four held-out sessions written
// without reading cairn's extraction code nor any other scenario's facts,
// only the bench's types and helpers. Their first run on main is the blind
// measurement; their checks were only corrected where a check could not
// have matched a faithful restore.
//
// Each is a different kind of session in a voice of its own: a terse Go
// developer chasing a DATA RACE and then a flaky test, compacted by the
// client in the middle of a turn right after an Edit's result; a chatty
// PyTorch user with a CUDA out-of-memory traceback, numbers that change
// and a learning rate overruled with a bare value, compacted twice; a
// Next.js hydration bug interrupted by an urgent payments ticket, with
// one-word answers, a .env.local the agent writes and a manual /compact
// with the user's own focus; and a long credential-rotation incident
// with a subagent, decisions, items owned by other people, a plan taken
// back, and long outputs. Four secrets: an experiment-tracker key in a
// prompt, a payment provider's secret key in a prompt and a file the agent
// writes, a service-account private key in a command's output, and a chat
// webhook in a command's arguments.

// blind12Scenarios are the twelfth blind set the recall report runs.
func blind12Scenarios() []scenario {
	return []scenario{
		blind12GoRaceInTurn(),
		blind12TorchTwice(),
		blind12NextInterrupted(),
		blind12IncidentRotation(),
		blind12JuliaTasks(),
	}
}

// b12Counter returns successive context sizes from start by step, so a
// script's usage grows like a real session's.
func b12Counter(start, step int) func() int {
	n := start
	return func() int { n += step; return n }
}

// b12Grep is a Grep tool call in content mode.
func b12Grep(id, pattern, path string) fakeapi.ToolUse {
	return fakeapi.ToolUse{ID: id, Name: "Grep", Input: map[string]any{"pattern": pattern, "path": path, "output_mode": "content", "-n": true}}
}

// blind12GoRaceInTurn is a terse user's Go service: `go test -race`
// reports a DATA RACE with its goroutine stacks (piped through tail, so
// the client records exit 0), fixed with a mutex; the full suite then
// shows a second, flaky test; the user corrects the agent's theory about
// it, the agent drops its fake-clock todo, and the client compacts right
// after the result of the Edit that fixes it, inside the turn.
func blind12GoRaceInTurn() scenario {
	goBin := `#!/bin/sh
# stand-in for the go toolchain: prints what the scenario needs
race() {
cat <<'EOF'
==================
WARNING: DATA RACE
Read at 0x00c0001a4330 by goroutine 23:
  runtime.mapaccess2_faststr()
      /usr/local/go/src/internal/runtime/maps/runtime_faststr_swiss.go:162 +0x0
  github.com/acme/tallyd/internal/meter.(*Window).Snapshot()
      /src/tallyd/internal/meter/window.go:58 +0x9c
  github.com/acme/tallyd/internal/meter.TestWindowConcurrentAdd.func2()
      /src/tallyd/internal/meter/window_test.go:44 +0x4c

Previous write at 0x00c0001a4330 by goroutine 22:
  runtime.mapassign_faststr()
      /usr/local/go/src/internal/runtime/maps/runtime_faststr_swiss.go:263 +0x0
  github.com/acme/tallyd/internal/meter.(*Window).Add()
      /src/tallyd/internal/meter/window.go:41 +0x1d0
  github.com/acme/tallyd/internal/meter.TestWindowConcurrentAdd.func1()
      /src/tallyd/internal/meter/window_test.go:37 +0x6a

Goroutine 23 (running) created at:
  github.com/acme/tallyd/internal/meter.TestWindowConcurrentAdd()
      /src/tallyd/internal/meter/window_test.go:42 +0x1b4
  testing.tRunner()
      /usr/local/go/src/testing/testing.go:1792 +0x225

Goroutine 22 (finished) created at:
  github.com/acme/tallyd/internal/meter.TestWindowConcurrentAdd()
      /src/tallyd/internal/meter/window_test.go:35 +0x10c
  testing.tRunner()
      /usr/local/go/src/testing/testing.go:1792 +0x225
==================
--- FAIL: TestWindowConcurrentAdd (0.04s)
    testing.go:1490: race detected during execution of test
FAIL
FAIL	github.com/acme/tallyd/internal/meter	0.311s
EOF
}
drain() {
cat <<'EOF'
--- FAIL: TestFanoutDrain (2.00s)
    fanout_test.go:57: drained 9 of 10 subscribers before deadline
EOF
}
case "$*" in
  "test -race ./...")
    echo "ok  	github.com/acme/tallyd/cmd/tallyd	0.088s [no tests to run]"
    echo "ok  	github.com/acme/tallyd/internal/api	1.204s"
    if grep -q 'mu      sync.Mutex' internal/meter/window.go; then
      echo "ok  	github.com/acme/tallyd/internal/meter	1.412s"
      drain
      echo "FAIL"
      echo "FAIL	github.com/acme/tallyd/internal/fanout	4.530s"
    else
      race
      echo "ok  	github.com/acme/tallyd/internal/fanout	2.877s"
    fi
    echo "ok  	github.com/acme/tallyd/internal/store	0.512s"
    echo "FAIL"
    exit 1
    ;;
  "test -race ./internal/meter/...")
    if grep -q 'mu      sync.Mutex' internal/meter/window.go; then
      echo "ok  	github.com/acme/tallyd/internal/meter	1.412s"
      exit 0
    fi
    race
    exit 1
    ;;
  "test -race -count=50 -run TestFanoutDrain ./internal/fanout/")
    if grep -q 'FIXED-ORDER' internal/fanout/fanout.go; then
      echo "ok  	github.com/acme/tallyd/internal/fanout	104.337s"
      exit 0
    fi
    drain; drain; drain
    echo "FAIL"
    echo "FAIL	github.com/acme/tallyd/internal/fanout	101.902s"
    echo "FAIL"
    exit 1
    ;;
  "vet ./...")
    exit 0
    ;;
esac
echo "go: unexpected arguments: $*" >&2
exit 2
`
	window := `package meter

import "time"

// Window counts events per key over a rolling window.
type Window struct {
	span    time.Duration
	buckets map[string]*ring
}

// Add records one event for key at t.
func (w *Window) Add(key string, t time.Time) {
	r, ok := w.buckets[key]
	if !ok {
		r = newRing(w.span)
		w.buckets[key] = r
	}
	r.add(t)
}

// Snapshot returns the count of every key.
func (w *Window) Snapshot() map[string]int {
	out := make(map[string]int, len(w.buckets))
	for k, r := range w.buckets {
		out[k] = r.count()
	}
	return out
}
`
	fanout := `package fanout

import "sync"

// Broker fans published events out to subscribers.
type Broker struct {
	mu   sync.Mutex
	subs map[int]*sub
}

// Drain unsubscribes id after delivering what it has queued.
func (b *Broker) Drain(id int) {
	b.mu.Lock()
	sub := b.subs[id]
	b.mu.Unlock()
	sub.flush()
	close(sub.ch)
	b.mu.Lock()
	delete(b.subs, id)
	b.mu.Unlock()
}
`
	sc := scenario{
		Name:        "blind12-go-race-inturn",
		Shape:       "held-out, blind12: Go service, go test -race DATA RACE fixed, then a flaky test; terse user corrects the theory; compacted inside a turn right after an Edit's result",
		Compactions: []string{"in-turn"},
		Files: map[string]string{
			"go.mod":                              "module github.com/acme/tallyd\n\ngo 1.24\n",
			"internal/meter/window.go":            window,
			"internal/meter/window_test.go":       "package meter\n\nimport \"testing\"\n\nfunc TestWindowConcurrentAdd(t *testing.T) {}\n",
			"internal/fanout/fanout.go":           fanout,
			"internal/fanout/fanout_test.go":      "package fanout\n\nimport \"testing\"\n\nfunc TestFanoutDrain(t *testing.T) {}\n",
			"internal/api/handler.go":             "package api\n",
			"Makefile":                            "test:\n\tgo test -race ./...\n",
			".githooks/pre-push":                  "#!/bin/sh\ngo vet ./...\n",
			"docs/adr/0007-meter-window.md":       "# ADR 7: rolling windows per key\n",
			"internal/store/store.go":             "package store\n",
			"cmd/tallyd/main.go":                  "package main\n\nfunc main() {}\n",
			"internal/meter/ring.go":              "package meter\n\nimport \"time\"\n\ntype ring struct{ span time.Duration }\n\nfunc newRing(d time.Duration) *ring { return &ring{span: d} }\nfunc (r *ring) add(time.Time)     {}\nfunc (r *ring) count() int        { return 0 }\n",
			"internal/fanout/sub.go":              "package fanout\n\ntype sub struct{ ch chan []byte }\n\nfunc (s *sub) flush() {}\n",
			"internal/api/handler_test.go":        "package api\n",
			"internal/store/store_test.go":        "package store\n",
			"internal/meter/doc.go":               "// Package meter counts events over rolling windows.\npackage meter\n",
			"internal/fanout/doc.go":              "// Package fanout delivers events to subscribers.\npackage fanout\n",
			".github/workflows/ci.yml":            "jobs:\n  test:\n    steps:\n      - run: go test -race ./...\n",
			"README.md":                           "# tallyd\n\nCounts usage events per tenant.\n",
			"internal/meter/window_bench_test.go": "package meter\n",
		},
		Bins:           map[string]string{"go": goBin},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "CLAUDE_CODE_ENABLE_TASKS=0"},
		AllowedTools:   []string{"Bash(go:*)", "Bash(tail:*)", "Bash(git diff:*)"},
		PermissionMode: "acceptEdits",
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			next := b12Counter(14000, 1700)
			before = []turn{
				{
					Prompt: "tallyd, TALLY-318. go test -race ./... red on CI since the windowed counter landed. fix. don't change the public API of package meter, no new deps",
					Replies: []fakeapi.Reply{
						reply("", next(), bash("toolu_b12_race1", "go test -race ./... 2>&1 | tail -60", "Run the whole suite under the race detector")),
						reply("One data race, in meter. Reading the window.", next(), read("toolu_b12_readwin", p("internal/meter/window.go"))),
						reply("The race is between Add (window.go:41, writes w.buckets) and Snapshot (window.go:58), which ranges over the same map with no lock at all. "+
							"I'll guard buckets with a sync.Mutex rather than switching to atomics, because Snapshot needs a consistent view across all buckets; the exported methods keep their signatures.", next(),
							edit("toolu_b12_editwin", p("internal/meter/window.go"),
								"type Window struct {\n\tspan    time.Duration\n\tbuckets map[string]*ring\n}",
								"type Window struct {\n\tmu      sync.Mutex\n\tspan    time.Duration\n\tbuckets map[string]*ring\n}")),
						reply("", next(), edit("toolu_b12_editwin2", p("internal/meter/window.go"),
							"func (w *Window) Add(key string, t time.Time) {\n",
							"func (w *Window) Add(key string, t time.Time) {\n\tw.mu.Lock()\n\tdefer w.mu.Unlock()\n")),
						reply("", next(), edit("toolu_b12_editwin3", p("internal/meter/window.go"),
							"func (w *Window) Snapshot() map[string]int {\n",
							"func (w *Window) Snapshot() map[string]int {\n\tw.mu.Lock()\n\tdefer w.mu.Unlock()\n")),
						reply("", next(), edit("toolu_b12_editwin4", p("internal/meter/window.go"), "import \"time\"", "import (\n\t\"sync\"\n\t\"time\"\n)")),
						reply("", next(), bash("toolu_b12_meter", "go test -race ./internal/meter/...", "Race-test the meter package")),
						reply("meter is clean under -race now.", next()),
					},
				},
				{
					Prompt: "full suite again",
					Replies: []fakeapi.Reply{
						reply("", next(), bash("toolu_b12_race2", "go test -race ./... 2>&1 | tail -30", "Whole suite under the race detector")),
						reply("meter passes. Different failure now: TestFanoutDrain in internal/fanout, \"drained 9 of 10 subscribers before deadline\". No race report, so it looks timing-related. Checking whether it is flaky.", next(),
							bash("toolu_b12_flaky", "go test -race -count=50 -run TestFanoutDrain ./internal/fanout/", "Run TestFanoutDrain 50 times")),
						reply("", next(), todoWrite("toolu_b12_todo1",
							[2]string{"Fix the data race in meter.Window", "completed"},
							[2]string{"Make TestFanoutDrain deterministic with a fake clock", "in_progress"},
							[2]string{"Add -race to the pre-push hook", "pending"})),
						reply("It fails 3 out of 50 runs: flaky, not broken. My guess is the 2s deadline in the test is too tight under -race; I'd swap the wall clock for a fake clock.", next()),
					},
				},
				{
					Prompt: "no. deadline isn't the bug, the unsubscribe path is. look at Drain. and don't bump the 2s timeout either, ops won't take that",
					Replies: []fakeapi.Reply{
						reply("", next(), read("toolu_b12_readfan", p("internal/fanout/fanout.go"))),
						reply("", next(), b12Grep("toolu_b12_grep", `close\(sub\.ch\)|delete\(b\.subs`, p("internal/fanout"))),
						reply("You're right. Drain closes sub.ch before deleting it from b.subs, so a Publish that takes the lock in between still finds the subscriber and its send is lost. "+
							"Fix: delete it from the map under the lock first, then flush and close.", next(),
							todoWrite("toolu_b12_todo2",
								[2]string{"Fix the data race in meter.Window", "completed"},
								[2]string{"Fix Drain: delete from b.subs before close(sub.ch)", "in_progress"},
								[2]string{"Add -race to the pre-push hook", "pending"})),
						full("", edit("toolu_b12_editfan", p("internal/fanout/fanout.go"),
							"\tb.mu.Lock()\n\tsub := b.subs[id]\n\tb.mu.Unlock()\n\tsub.flush()\n\tclose(sub.ch)\n\tb.mu.Lock()\n\tdelete(b.subs, id)\n\tb.mu.Unlock()\n",
							"\t// FIXED-ORDER: unpublish first, so no Publish can reach a closed channel.\n\tb.mu.Lock()\n\tsub := b.subs[id]\n\tdelete(b.subs, id)\n\tb.mu.Unlock()\n\tsub.flush()\n\tclose(sub.ch)\n")),
						{Text: "", Tools: []fakeapi.ToolUse{bash("toolu_b12_flaky2", "go test -race -count=50 -run TestFanoutDrain ./internal/fanout/", "Run TestFanoutDrain 50 times again")},
							Usage: usageAt(12000), ToolResultFor: "toolu_b12_editfan"},
						reply("50 of 50 pass now.", 12600),
					},
				},
			}
			after = []turn{
				{Prompt: "good. anything left?", Replies: []fakeapi.Reply{reply("The pre-push hook item is still open.", 13200)}},
				{Prompt: "do it", Replies: []fakeapi.Reply{reply("Adding it.", 13800)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "TALLY-318"),
			rx("constraint: public API of meter", `(?i)(don'?t|do not|never|not)[^\n]{0,20}change the public API of (package )?meter`),
			rx("constraint: no new deps", `(?i)no new dep(endencie)?s`),
			rx("constraint: don't bump the 2s timeout", `(?i)(don'?t|do not|never|not)[^\n]{0,20}bump the 2s timeout`),
			pipedFailed("piped command: first race run found a DATA RACE", `go test -race \./\.\.\. 2>&1 \| tail -60`, `(?i)data race|race detected`),
			rx("finding: the race is Add vs Snapshot on buckets", `(?i)Snapshot`, `(?i)\bAdd\b`, `(?i)race`),
			lit("file edited: meter window", "internal/meter/window.go"),
			lit("decision: mutex rather than atomics", "sync.Mutex rather than switching to atomics"),
			lit("decision's reason: consistent view", "consistent view across all buckets"),
			rx("failure fixed: meter clean under -race", `(?i)(go test -race \./internal/meter/\.\.\.[^\n]{0,80}(exit 0|\bok\b|pass|succe)|meter[^\n]{0,60}(clean|passes|fixed))`),
			rx("failed command, exit code: the flaky run", `go test -race -count=50 -run TestFanoutDrain[^\n]{0,80}exit (code )?1`),
			rx("finding: fails 3 out of 50", `\b3 (out )?of 50\b`),
			rx("finding: Drain closes before deleting", `(?i)closes sub\.ch before delet`),
			lit("file edited: fanout (the edit at the compaction)", "internal/fanout/fanout.go"),
			lit("open todo: pre-push hook", "Add -race to the pre-push hook"),
			rx("open todo: the Drain fix, not the fake clock", `Fix Drain: delete from b\.subs before close\(sub\.ch\)`).
				notRx(`(?i)(pending|in.progress|\[ \]|\bopen\b|todo)[^\n]{0,60}fake clock|fake clock[^\n]{0,40}(pending|in.progress)`),
		},
	}
	return sc
}

// blind12TorchTwice is a chatty PyTorch user fine-tuning a vision model:
// a CUDA out-of-memory traceback at batch 64, batch 16 with gradient
// accumulation 4 instead, the agent's proposed learning rate overruled by
// a bare "1e-4", an experiment-tracker key pasted in an export line; then
// an automatic compaction, a full run, a bug in the accumulation found, a
// new rule from the user, and a second automatic compaction.
func blind12TorchTwice() scenario {
	wandbKey := "3f9a6c1e84b27d05e9c3a1f6b8d24e7c0a5f9b13"
	python := `#!/bin/sh
# stand-in for python running train.py: prints what the scenario needs
case "$*" in
  "train.py --config configs/vit_small.yaml")
    if grep -q 'batch_size: 64' configs/vit_small.yaml; then
      cat <<'EOF' >&2
[2026-11-25 09:12:01] config: vit_small_patch16_384 | img 384 | batch 64 | accum 1 | lr 3.0e-04 | amp off
[2026-11-25 09:12:03] epoch 0 step 0 | loss 6.9077
Traceback (most recent call last):
  File "/home/mika/defects/train.py", line 142, in <module>
    main(cfg)
  File "/home/mika/defects/train.py", line 118, in main
    loss = criterion(model(images), labels)
                     ^^^^^^^^^^^^^
  File "/home/mika/.venv/lib/python3.12/site-packages/torch/nn/modules/module.py", line 1736, in _wrapped_call_impl
    return self._call_impl(*args, **kwargs)
  File "/home/mika/.venv/lib/python3.12/site-packages/torch/nn/modules/module.py", line 1747, in _call_impl
    return forward_call(*args, **kwargs)
  File "/home/mika/.venv/lib/python3.12/site-packages/timm/models/vision_transformer.py", line 93, in forward
    attn = (q @ k.transpose(-2, -1)) * self.scale
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.15 GiB. GPU 0 has a total capacity of 22.49 GiB of which 873.31 MiB is free. Including non-PyTorch memory, this process has 21.63 GiB memory in use. Of the allocated memory 20.87 GiB is allocated by PyTorch, and 412.55 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)
EOF
      exit 1
    fi
    echo "[2026-11-25 09:20:44] config: vit_small_patch16_384 | img 384 | batch 16 | accum 4 | lr 3.0e-04 | amp off"
    for s in 0 50 100 150 200; do echo "[2026-11-25 09:2$((s/50)):10] epoch 0 step $s | loss 2.$((9 - s/50))812 | mem 14.1 GiB"; done
    echo "[2026-11-25 09:31:02] epoch 0 done | val_acc 0.612 | peak mem 14.1 GiB"
    exit 0
    ;;
  "train.py --config configs/vit_small.yaml --epochs 30")
    cat <<'EOF'
epoch 0 | train_loss 0.804 | val_acc 0.701
epoch 5 | train_loss 0.512 | val_acc 0.822
epoch 10 | train_loss 0.377 | val_acc 0.849
epoch 15 | train_loss 0.301 | val_acc 0.858
epoch 20 | train_loss 0.262 | val_acc 0.861
epoch 24 | train_loss 0.241 | val_acc 0.866
epoch 25 | train_loss 0.239 | val_acc 0.863
epoch 29 | train_loss 0.231 | val_acc 0.862
EOF
    echo "done | best val_acc 0.866 @ epoch 24 | checkpoint runs/ml-2207/best.pt"
    exit 0
    ;;
esac
echo "python: unexpected arguments: $*" >&2
exit 2
`
	smi := `#!/bin/sh
echo "name, memory.total [MiB], memory.used [MiB]"
echo "NVIDIA A10G, 23028 MiB, 412 MiB"
`
	config := "model: vit_small_patch16_384\nimg_size: 384\nbatch_size: 64\ngrad_accum: 1\nlr: 3.0e-4\nwarmup_epochs: 2\nepochs: 10\namp: false\ndata: data/splits/v3\n"
	train := "import torch\n\n\ndef step(model, batch, opt, cfg, i):\n    images, labels = batch\n    loss = criterion(model(images), labels)\n    loss.backward()\n    if (i + 1) % cfg.grad_accum == 0:\n        opt.step()\n        opt.zero_grad()\n"
	sc := scenario{
		Name:        "blind12-torch-twice",
		Shape:       "held-out, blind12: PyTorch fine-tune, chatty user; CUDA OOM traceback, batch 64 then 16 with accumulation 4, lr overruled with a bare value, tracker key in an export line; two automatic compactions",
		Compactions: []string{"auto", "auto"},
		Files: map[string]string{
			"configs/vit_small.yaml":   config,
			"train.py":                 train,
			"README.md":                "# defects\n\nViT fine-tuning on the defect-images set. Baseline val_acc 0.874 (paper, table 2).\n",
			"data/splits/v3/train.csv": "path,label\n",
			"data/splits/v3/val.csv":   "path,label\n",
			"requirements.txt":         "torch==2.5.1\ntimm==1.0.11\nwandb==0.18.7\n",
		},
		Bins:           map[string]string{"python": python, "nvidia-smi": smi},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "CLAUDE_CODE_ENABLE_TASKS=0"},
		AllowedTools:   []string{"Bash(python:*)", "Bash(nvidia-smi:*)", "Bash(tail:*)"},
		PermissionMode: "acceptEdits",
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			next := b12Counter(11000, 2300)
			before = []turn{
				{
					Prompt: "Hey! So I'm fine-tuning a ViT-S/16 on our defect-images dataset (ticket is ML-2207 if you need it for commits) and it keeps dying on the A10G with an OOM, " +
						"could you take a look? Please don't touch anything under data/splits/, those are frozen for the paper. Also we log everything to wandb, here's the key for this box in case you need it:\n\n" +
						"export WANDB_API_KEY=" + wandbKey + "\n\nthanks so much!!",
					Replies: []fakeapi.Reply{
						reply("", next(), bash("toolu_b12_smi", "nvidia-smi --query-gpu=name,memory.total,memory.used --format=csv", "Check the GPU")),
						reply("", next(), read("toolu_b12_readcfg", p("configs/vit_small.yaml"))),
						reply("", next(), bash("toolu_b12_train1", "python train.py --config configs/vit_small.yaml", "Reproduce the OOM")),
						reply("It runs out of memory in attention on the very first step at batch 64: the model is the 384px variant, so activations are about 3x the 224px one. "+
							"I'll set batch_size 16 with gradient accumulation 4, which keeps effective batch 64, so the LR schedule stays valid. "+
							"I'm not enabling AMP yet, to keep the numerics identical to the paper baseline.", next(),
							edit("toolu_b12_editcfg", p("configs/vit_small.yaml"), "batch_size: 64\ngrad_accum: 1\n", "batch_size: 16\ngrad_accum: 4\n")),
						reply("", next(), bash("toolu_b12_train2", "python train.py --config configs/vit_small.yaml", "Train one epoch with the smaller batch")),
						reply("It trains now: peak memory 14.1 GiB at batch 16 x accumulation 4, epoch 0 val_acc 0.612.\n\n"+
							"One thing though: lr 3e-4 came from the timm recipe, which used an effective batch of 512. Scaling linearly to our 64 would give 3.75e-5. Want me to change it?", next()),
					},
				},
				{
					Prompt: "1e-4",
					Replies: []fakeapi.Reply{
						reply("", next(), edit("toolu_b12_editlr", p("configs/vit_small.yaml"), "lr: 3.0e-4\n", "lr: 1.0e-4\n")),
						reply("", next(), todoWrite("toolu_b12_todo1",
							[2]string{"Fix the OOM on the A10G", "completed"},
							[2]string{"Run the full 30-epoch training and compare val_acc to the 0.874 baseline", "pending"},
							[2]string{"Try bf16 autocast once the baseline reproduces", "pending"})),
						full("Done, lr is 1.0e-4 in configs/vit_small.yaml."),
					},
				},
				// The first automatic compaction: the reply above fills the context.
				{
					Prompt: "ok kick off the full run, 30 epochs please",
					Replies: []fakeapi.Reply{
						reply("", 19000, bash("toolu_b12_train30", "python train.py --config configs/vit_small.yaml --epochs 30", "Full 30-epoch run")),
						reply("", 20500, todoWrite("toolu_b12_todo2",
							[2]string{"Fix the OOM on the A10G", "completed"},
							[2]string{"Run the full 30-epoch training and compare val_acc to the 0.874 baseline", "completed"},
							[2]string{"Try bf16 autocast once the baseline reproduces", "pending"})),
						reply("Finished: best val_acc 0.866 at epoch 24, 0.8 points under the 0.874 baseline.", 21500),
					},
				},
				{
					Prompt: "hm, that's the accum maybe? can you check we actually divide the loss by the accum steps. oh and from now on every run gets a wandb tag with the ticket, I keep losing runs in the UI",
					Replies: []fakeapi.Reply{
						reply("", 23000, read("toolu_b12_readtrain", p("train.py"))),
						reply("Found it: the loss wasn't divided by grad_accum, so each optimizer step summed 4 micro-batch gradients and the effective LR was 4x too high.", 25000,
							edit("toolu_b12_edittrain", p("train.py"), "    loss = criterion(model(images), labels)\n", "    loss = criterion(model(images), labels) / cfg.grad_accum\n")),
						full("Fixed in train.py. Next: rerun the 30 epochs with the fix, tagged ML-2207, and compare against 0.874."),
					},
				},
				// The second automatic compaction.
				{Prompt: "go", Replies: []fakeapi.Reply{reply("Starting the rerun.", 17000)}},
			}
			after = []turn{
				{Prompt: "how's it looking", Replies: []fakeapi.Reply{reply("Still running.", 17600)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "ML-2207"),
			rx("constraint: data/splits frozen", `(?i)(don'?t|do not|never)[^\n]{0,30}data/splits`),
			rx("failure: CUDA out of memory at batch 64", `(?i)(CUDA out of memory|OutOfMemoryError|\bOOM\b)`, `\b64\b`),
			rx("decision: batch 16 with accumulation 4", `(?i)batch(_size)?\D{0,12}16`, `(?i)(accum\w*\D{0,12}4\b|4 ?x accum)`),
			lit("decision's reason: keeps effective batch 64", "keeps effective batch 64"),
			rx("decision: no AMP yet, to match the paper", `(?i)(not|no)[^\n]{0,20}AMP`, `(?i)numerics identical to the paper baseline`),
			rx("decision: lr overruled to 1e-4", `\b1(\.0)?e-4\b`).
				notRx(`(?i)(set|use|using|chang\w*|switch\w*)\s+(the\s+)?(lr|learning rate)\s+(to\s+)?3\.75e-5`, `(?i)\blr:?\s*3\.75e-5`),
			lit("file edited: the config", "configs/vit_small.yaml"),
			lit("finding: peak memory at batch 16", "14.1 GiB"),
			lit("open todo: bf16", "Try bf16 autocast once the baseline reproduces"),
			lit("open todo: the full run (until it ran)", "Run the full 30-epoch training").until(1),
			rx("finding: best val_acc 0.866, full run done", `0\.866`).from(2).
				notRx(`(?i)(pending|in.progress|\[ \])[^\n]{0,60}Run the full 30-epoch|Run the full 30-epoch[^\n]{0,100}(pending|in.progress)`),
			rx("finding: loss not divided by grad_accum", `(?i)(wasn'?t|not|never) divided by (cfg\.)?grad_accum|divid\w* (the )?loss by (cfg\.)?grad_accum|/ cfg\.grad_accum`).from(2),
			lit("file edited: train.py", "train.py").from(2),
			rx("constraint: wandb tag with the ticket", `(?i)wandb tag`).from(2),
			lit("next step: rerun 30 epochs", "rerun the 30 epochs with the fix").from(2),
		},
		Secrets: []secret{{"Weights & Biases API key", wandbKey}},
	}
	return sc
}

// blind12NextInterrupted is a Next.js app-router hydration mismatch: the
// user pastes the browser's error, answers two questions one word at a
// time, an urgent payments ticket interrupts (the agent writes .env.local
// with the provider's secret key for a local repro, finds the cause, and
// hands it to its owner), the work returns to the hydration fix, and the
// user ends with /compact and focus instructions of their own.
func blind12NextInterrupted() scenario {
	stripeKey := "sk_test_51QbXyZAcmeT3stK3y9vRw2LmPq8sNd4Fh7Jk0UeYtGiOa6ZxCb1VnMrQw8ErTy"
	npm := `#!/bin/sh
# stand-in for npm in the shop app: prints what the scenario needs
case "$*" in
  "run repro:checkout")
    cat <<'EOF'

> shop@3.8.0 repro:checkout
> node scripts/repro-checkout.mjs

creating cart for customer cus_RfT4 ... ok
POST /api/checkout -> 500
StripeInvalidRequestError: No such payment_intent: 'pi_3QbXz2AcmeLive0kG1Vt9'; a similar object exists in live mode, but a test mode key was used to make this request.
    at StripeError.generate (node_modules/stripe/cjs/Error.js:8:20)
    at res.toJSON.then.Error_js_1.StripeAPIError.message (node_modules/stripe/cjs/RequestSender.js:102:54)
    at async confirmPayment (app/api/checkout/route.ts:61:19)
  type: 'StripeInvalidRequestError',
  code: 'resource_missing',
  statusCode: 404,
  requestId: 'req_Xq81bVn3'
EOF
    exit 1
    ;;
  "test -- OrderTimestamp")
    if grep -q "Europe/Berlin" "app/orders/[id]/OrderTimestamp.test.tsx"; then
      echo " PASS  app/orders/[id]/OrderTimestamp.test.tsx"
      echo "  OrderTimestamp"
      echo "    ✓ renders the same text on server and client (14 ms)"
      echo ""
      echo "Tests:       1 passed, 1 total"
      exit 0
    fi
    cat <<'EOF'
 FAIL  app/orders/[id]/OrderTimestamp.test.tsx
  OrderTimestamp
    ✕ renders the same text on server and client (19 ms)

  ● OrderTimestamp › renders the same text on server and client

    TypeError: Incorrect locale information provided

      3 | export function formatOrderTime(ts: string, locale: string, timeZone: string) {
    > 4 |   return new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short", timeZone }).format(new Date(ts));
        |          ^

Tests:       1 failed, 1 total
EOF
    exit 1
    ;;
  "run build")
    cat <<'EOF'

> shop@3.8.0 build
> next build

   ▲ Next.js 15.1.3

   Creating an optimized production build ...
 ✓ Compiled successfully
 ✓ Linting and checking validity of types
 ✓ Generating static pages (14/14)

Route (app)                              Size     First Load JS
┌ ○ /                                    5.2 kB          108 kB
├ ƒ /api/checkout                        0 B                0 B
├ ƒ /orders                              3.1 kB          106 kB
└ ƒ /orders/[id]                         2.4 kB          105 kB
EOF
    exit 0
    ;;
esac
echo "npm: unexpected arguments: $*" >&2
exit 2
`
	ts := "\"use client\";\n\nexport function OrderTimestamp({ ts }: { ts: string }) {\n  return <time dateTime={ts}>{new Date(ts).toLocaleString()}</time>;\n}\n"
	sc := scenario{
		Name:        "blind12-next-interrupted",
		Shape:       "held-out, blind12: Next.js app-router hydration error, one-word answers, an urgent payments ticket interrupts (agent writes .env.local with the secret key), back to the first; manual /compact with the user's focus",
		Trigger:     "manual",
		CompactArgs: "focus on the timestamp work and what's still left on it, the other ticket is handed off",
		Files: map[string]string{
			"package.json":                            "{\n  \"name\": \"shop\",\n  \"version\": \"3.8.0\",\n  \"scripts\": {\"build\": \"next build\", \"test\": \"jest\", \"repro:checkout\": \"node scripts/repro-checkout.mjs\"}\n}\n",
			"app/orders/[id]/OrderTimestamp.tsx":      ts,
			"app/orders/[id]/OrderTimestamp.test.tsx": "import { render } from \"@testing-library/react\";\nimport { OrderTimestamp } from \"./OrderTimestamp\";\n\ntest(\"renders the same text on server and client\", () => {\n  render(<OrderTimestamp ts=\"2026-11-25T09:14:07Z\" />);\n});\n",
			"app/orders/[id]/page.tsx":                "import { OrderTimestamp } from \"./OrderTimestamp\";\n\nexport default async function Page({ params }) {\n  const order = await getOrder((await params).id);\n  return <OrderTimestamp ts={order.createdAt} />;\n}\n",
			"app/orders/page.tsx":                     "export default async function Orders() {\n  const orders = await listOrders();\n  return <ul>{orders.map((o) => <li key={o.id}>{new Date(o.createdAt).toLocaleString()}</li>)}</ul>;\n}\n",
			"components/InvoiceRow.tsx":               "export function InvoiceRow({ inv }) {\n  return <tr><td>{new Date(inv.issuedAt).toLocaleString()}</td></tr>;\n}\n",
			"app/api/checkout/route.ts":               "export async function POST() {}\n",
			".env.example":                            "STRIPE_SECRET_KEY=\nNEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY=\n",
			".gitignore":                              ".env*.local\n.next/\nnode_modules/\n",
		},
		Bins:           map[string]string{"npm": npm},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "CLAUDE_CODE_ENABLE_TASKS=0"},
		AllowedTools:   []string{"Bash(npm:*)"},
		PermissionMode: "acceptEdits",
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			next := b12Counter(9000, 1900)
			before = []turn{
				{
					Prompt: "WEB-1442 — order detail page throws this in the console for some users, I think only people outside en-US:\n\n" +
						"Uncaught Error: Hydration failed because the server rendered text didn't match the client. As a result this tree will be regenerated on the client.\n" +
						"  <OrderTimestamp ts=\"2026-11-25T09:14:07Z\">\n    <time dateTime=\"2026-11-25T09:14:07Z\">\n" +
						"+     25/11/2026, 10:14:07\n-     11/25/2026, 9:14:07 AM\n\n" +
						"please keep it a server component if you can, we don't want to ship a date library to the client",
					Replies: []fakeapi.Reply{
						reply("", next(), read("toolu_b12_readts", p("app/orders/[id]/OrderTimestamp.tsx"))),
						reply("", next(), b12Grep("toolu_b12_grepls", `toLocaleString\(`, p("."))),
						reply("Cause: OrderTimestamp calls toLocaleString() with no locale and no timeZone, so the server renders en-US in UTC and the browser renders the visitor's locale and zone. "+
							"The same pattern is in app/orders/page.tsx and components/InvoiceRow.tsx.\n\n"+
							"Before I change it: should the server format with the locale stored on the order (orders.locale) or the viewer's (Accept-Language)?", next()),
					},
				},
				{
					Prompt:  "order's",
					Replies: []fakeapi.Reply{reply("And the time zone: the customer's (orders.customer_tz) or the warehouse's?", next())},
				},
				{
					Prompt: "customer",
					Replies: []fakeapi.Reply{
						reply("Formatting on the server with Intl.DateTimeFormat pinned to the order's locale and the customer's time zone, instead of suppressHydrationWarning, because suppressing would hide a real mismatch in the time we show.", next(),
							write("toolu_b12_writefmt", p("lib/format-time.ts"),
								"export function formatOrderTime(ts: string, locale: string, timeZone: string) {\n  return new Intl.DateTimeFormat(locale, { dateStyle: \"medium\", timeStyle: \"short\", timeZone }).format(new Date(ts));\n}\n")),
						reply("", next(), write("toolu_b12_writets", p("app/orders/[id]/OrderTimestamp.tsx"),
							"import { formatOrderTime } from \"@/lib/format-time\";\n\nexport function OrderTimestamp({ ts, locale, timeZone }: { ts: string; locale: string; timeZone: string }) {\n  return <time dateTime={ts}>{formatOrderTime(ts, locale, timeZone)}</time>;\n}\n")),
						reply("", next(), edit("toolu_b12_editpage", p("app/orders/[id]/page.tsx"),
							"<OrderTimestamp ts={order.createdAt} />", "<OrderTimestamp ts={order.createdAt} locale={order.locale} timeZone={order.customerTz} />")),
						reply("OrderTimestamp is a server component now and takes the locale and zone from the order.", next()),
					},
				},
				{
					Prompt: "STOP, sorry — SHOP-88 just came in and it's on fire: checkout on the preview deploy returns 500, \"No such payment_intent\". I think preview has the live secret key paired with the test publishable key. " +
						"can you set up .env.local so I can repro locally? test keys:\nSTRIPE_SECRET_KEY=" + stripeKey + "\nNEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY=pk_test_51QbXyZAcmeT3stPubL1c9xKk\n" +
						"and DO NOT commit .env.local",
					Replies: []fakeapi.Reply{
						reply("", next(), write("toolu_b12_writeenv", p(".env.local"),
							"STRIPE_SECRET_KEY="+stripeKey+"\nNEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY=pk_test_51QbXyZAcmeT3stPubL1c9xKk\n")),
						reply("", next(), bash("toolu_b12_repro", "npm run repro:checkout", "Reproduce the checkout failure locally")),
						reply("Reproduced. Stripe says the PaymentIntent exists in live mode but the request used a test key: the intent was created with one key and confirmed with the other. "+
							"So preview's STRIPE_SECRET_KEY and publishable key come from different modes; the code is fine. The fix is an env change on the Vercel preview environment, which only Dana can make (she owns the Vercel project). "+
							".env.local is gitignored, so it won't be committed.", next()),
					},
				},
				{
					Prompt: "ok I pinged Dana, it's hers now. back to the timestamps",
					Replies: []fakeapi.Reply{
						reply("", next(), bash("toolu_b12_test1", "npm test -- OrderTimestamp", "Run the OrderTimestamp test")),
						reply("The test renders OrderTimestamp without locale or timeZone, which Intl rejects. Giving it explicit ones.", next(),
							edit("toolu_b12_edittest", p("app/orders/[id]/OrderTimestamp.test.tsx"),
								"<OrderTimestamp ts=\"2026-11-25T09:14:07Z\" />", "<OrderTimestamp ts=\"2026-11-25T09:14:07Z\" locale=\"en-GB\" timeZone=\"Europe/Berlin\" />")),
						reply("", next(), bash("toolu_b12_test2", "npm test -- OrderTimestamp", "Rerun the OrderTimestamp test")),
						reply("", next(), edit("toolu_b12_editlist", p("app/orders/page.tsx"),
							"{new Date(o.createdAt).toLocaleString()}", "{formatOrderTime(o.createdAt, o.locale, o.customerTz)}")),
						reply("", next(), bash("toolu_b12_build", "npm run build", "Build the app")),
						reply("", next(), todoWrite("toolu_b12_todo",
							[2]string{"Fix the OrderTimestamp hydration mismatch", "completed"},
							[2]string{"Format dates in app/orders/page.tsx on the server", "completed"},
							[2]string{"Same fix in components/InvoiceRow.tsx", "pending"},
							[2]string{"SHOP-88: verify preview checkout once Dana swaps the key", "pending"})),
						reply("The test passes and the build is clean. Left: InvoiceRow.tsx still calls toLocaleString(), and SHOP-88 needs a check once Dana has swapped the preview key.", next()),
					},
				},
			}
			after = []turn{
				{Prompt: "where were we", Replies: []fakeapi.Reply{reply("On the timestamps.", 6000)}},
				{Prompt: "go on then", Replies: []fakeapi.Reply{reply("Continuing.", 6500)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket: the hydration bug", "WEB-1442"),
			lit("ticket: the interrupt", "SHOP-88"),
			rx("constraint: keep it a server component", `(?i)keep it a server component`),
			rx("constraint: never commit .env.local", `(?i)(do not|don'?t|never) commit \.env\.local`),
			rx("finding: toLocaleString without locale or zone", `(?i)toLocaleString\(\)[^\n]{0,80}(locale|time ?zone)`),
			rx("answer: the order's locale", `(?i)order's|order’s|locale=\{order\.locale\}`),
			rx("answer: the customer's time zone", `(?i)customer's (time ?zone|tz|zone)|order\.customerTz|(^|\n)[>*\- ]*"?customer"?[ \t]*(\n|$)`),
			lit("decision: Intl.DateTimeFormat instead of suppressHydrationWarning", "instead of suppressHydrationWarning"),
			lit("decision's reason: would hide a real mismatch", "would hide a real mismatch"),
			lit("file edited: OrderTimestamp.tsx", "app/orders/[id]/OrderTimestamp.tsx"),
			lit("file edited: orders list page", "app/orders/page.tsx"),
			rx("failed command, exit code: the checkout repro", `npm run repro:checkout[^\n]{0,80}exit (code )?1`),
			rx("finding: the intent was made in live mode, request with a test key", `(?i)live mode|live key`),
			rx("open thread: Dana owns the preview key swap", `Dana`),
			rx("failure fixed: the OrderTimestamp test", `(?i)npm test -- OrderTimestamp[^\n]{0,120}(exit 0|pass|fixed)|OrderTimestamp test[^\n]{0,40}pass`),
			lit("open todo: InvoiceRow", "Same fix in components/InvoiceRow.tsx"),
			lit("open todo: verify SHOP-88", "verify preview checkout once Dana swaps the key"),
		},
		Secrets: []secret{{"Stripe secret key", stripeKey}},
	}
	return sc
}

// blind12IncidentRotation is a long incident: a service-account key
// leaked in a public repository is found (its JSON, private key block
// and all, in a command's output), disabled, deleted after a permission
// failure, its use audited by a subagent; updates go to a chat webhook by
// curl; decisions with reasons, open items owned by other people, a plan
// the user takes back; long listings push the session toward the restore
// budget before one automatic compaction.
func blind12IncidentRotation() scenario {
	keyLine := "kV3nq8ZsR1xYtB6mWd0PfLg7HcJ2uEaN9oQiTr4Kp5Sv8XwCz1MbDe6FhGj3LyUn"
	hookToken := "q7ZtW2mR9vLxK3pN8sY4cJ0d"
	hook := "https://hooks.slack.com/services/T04ACMEHQ/B08INC4471Z/" + hookToken
	keyID := "7f3c9a1e5b2d4c8f6a0e1d3b9c7f5a2e4d6b8c0a"
	saJSON := fmt.Sprintf(`{
  "type": "service_account",
  "project_id": "shipyard-ci",
  "private_key_id": "%s",
  "private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7pQ2mZr8LxW1d\nHs4Nf9TgKc3Vb6Ya0Ej5Ru2Io7Pw1Mn8Lq4Xz6Cs9Dv3Bf0Gh5Jk2Ll7Mm1Nn4Oo\n%s\nZp2Qq7Rr0Ss3Tt8Uu1Vv6Ww9Xx4Yy7Zz2Aa5Bb0Cc3Dd8Ee1Ff6Gg9Hh4Ii7Jj2\nKk5Ll0Mm3Nn8Oo1Pp6Qq9Rr4Ss7Tt2Uu5Vv0Ww3Xx8Yy1Zz6AaQIDAQABAoIBAF\n-----END PRIVATE KEY-----\n",
  "client_email": "ci-artifacts-ro@shipyard-ci.iam.gserviceaccount.com",
  "client_id": "104882917364550219873",
  "auth_uri": "https://accounts.google.com/o/oauth2/auth",
  "token_uri": "https://oauth2.googleapis.com/token"
}
`, keyID, keyLine)
	gcloud := `#!/bin/sh
# stand-in for gcloud: prints what the scenario needs
SA=ci-artifacts-ro@shipyard-ci.iam.gserviceaccount.com
case "$*" in
  *"keys list"*"ci-deployer"*)
    echo "KEY_ID                                    CREATED_AT            EXPIRES_AT            DISABLED"
    echo "c0ffee11aa22bb33cc44dd55ee66ff7788990011  2025-12-01T00:00:00Z  9999-12-31T23:59:59Z  False"
    echo "5e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f  2025-03-14T10:20:31Z  9999-12-31T23:59:59Z  True"
    ;;
  *"keys list"*)
    echo "KEY_ID                                    CREATED_AT            EXPIRES_AT            DISABLED"
    echo "` + keyID + `  2026-09-02T14:11:09Z  9999-12-31T23:59:59Z  False"
    echo "2b8d0e4f6a1c3e5b7d9f0a2c4e6b8d0f1a3c5e7b  2026-04-17T08:30:51Z  9999-12-31T23:59:59Z  True"
    ;;
  *"keys disable"*)
    echo "Disabled key [` + keyID + `] for service account [$SA]." >&2
    ;;
  *"keys delete"*"--impersonate-service-account"*)
    echo "WARNING: This command is using service account impersonation. All API calls will be executed as [incident-responder@shipyard-sec.iam.gserviceaccount.com]." >&2
    echo "deleted key [` + keyID + `] for service account [$SA]" >&2
    ;;
  *"keys delete"*)
    echo "ERROR: (gcloud.iam.service-accounts.keys.delete) [lena.okafor@acme.dev] does not have permission to access projects instance [shipyard-ci] (or it may not exist): Permission 'iam.serviceAccountKeys.delete' denied on resource (or it may not exist). This command is authenticated as lena.okafor@acme.dev which is the active account specified by the [core/account] property." >&2
    exit 1
    ;;
  *"logging read"*"NOT protoPayload.requestMetadata.callerIp"*)
    echo "TIMESTAMP                    CALLER_IP       METHOD                  RESOURCE"
    echo "2026-11-24T22:41:07.318Z     185.220.101.44  storage.objects.list    projects/_/buckets/shipyard-artifacts"
    echo "2026-11-24T22:41:19.902Z     185.220.101.44  storage.objects.get     projects/_/buckets/shipyard-artifacts/objects/releases/v2.14.0/shipyard-linux-amd64.tar.gz"
    ;;
  *"logging read"*)
    echo "["
    i=0
    while [ $i -lt 36 ]; do
      d=$((10 + i / 3)); h=$((i % 24))
      printf '  {"insertId": "1x9k%04dq", "logName": "projects/shipyard-ci/logs/cloudaudit.googleapis.com%%2Fdata_access", "protoPayload": {"authenticationInfo": {"principalEmail": "%s", "serviceAccountKeyName": "//iam.googleapis.com/projects/shipyard-ci/serviceAccounts/%s/keys/` + keyID + `"}, "methodName": "storage.objects.get", "requestMetadata": {"callerIp": "34.118.20.7", "callerSuppliedUserAgent": "gcloud-golang-storage/1.43.0"}, "resourceName": "projects/_/buckets/shipyard-artifacts/objects/cache/deps-%d.tgz"}, "timestamp": "2026-11-%02dT%02d:05:11.%03dZ"},\n' $i "$SA" "$SA" $i $d $h $i
      i=$((i + 1))
    done
    echo '  {"insertId": "1x9k9001q", "protoPayload": {"methodName": "storage.objects.list", "requestMetadata": {"callerIp": "185.220.101.44", "callerSuppliedUserAgent": "python-requests/2.32.3"}, "resourceName": "projects/_/buckets/shipyard-artifacts"}, "timestamp": "2026-11-24T22:41:07.318Z"},'
    echo '  {"insertId": "1x9k9002q", "protoPayload": {"methodName": "storage.objects.get", "requestMetadata": {"callerIp": "185.220.101.44", "callerSuppliedUserAgent": "python-requests/2.32.3"}, "resourceName": "projects/_/buckets/shipyard-artifacts/objects/releases/v2.14.0/shipyard-linux-amd64.tar.gz"}, "timestamp": "2026-11-24T22:41:19.902Z"}'
    echo "]"
    ;;
  *"service-accounts list"*)
    echo "DISPLAY NAME                         EMAIL                                                          DISABLED"
    for n in api-gateway batch-export billing-sync build-cache cdn-purge ci-artifacts-ro ci-deployer cron-reaper dns-updater docs-publisher \
             e2e-runner feature-flags gke-nodes image-scanner log-shipper metrics-writer migrations notifier pubsub-bridge release-signer \
             renovate-bot sbom-uploader secrets-sync slo-exporter terraform-plan terraform-apply uptime-probe vuln-reporter web-frontend; do
      printf '%-36s %-62s False\n' "$n" "$n@shipyard-ci.iam.gserviceaccount.com"
    done
    ;;
  *"get-iam-policy"*)
    echo "bindings:"
    for r in roles/artifactregistry.reader roles/cloudbuild.builds.editor roles/compute.viewer roles/container.developer roles/logging.logWriter \
             roles/monitoring.metricWriter roles/pubsub.publisher roles/secretmanager.secretAccessor roles/storage.admin roles/iam.serviceAccountUser; do
      echo "- members:"
      for m in ci-deployer terraform-apply release-signer; do echo "  - serviceAccount:$m@shipyard-ci.iam.gserviceaccount.com"; done
      echo "  role: $r"
    done
    echo "- condition:"
    echo "    expression: resource.name.startsWith('projects/_/buckets/shipyard-artifacts')"
    echo "    title: artifacts-bucket-only"
    echo "  members:"
    echo "  - serviceAccount:$SA"
    echo "  role: roles/storage.objectViewer"
    echo "etag: BwYk3pQn0aE="
    echo "version: 3"
    ;;
  *"objects describe"*)
    echo "md5_hash: 9bX2kQm1Zp8r0T5vLc3NeA=="
    echo "update_time: 2026-10-30T16:02:44+0000"
    echo "generation: 1761840164512877"
    ;;
  *)
    echo "gcloud: stand-in got $*" >&2
    exit 2
    ;;
esac
`
	curl := "#!/bin/sh\n# stand-in for curl posting to the incident channel\necho ok\n"
	post := func(id, text string) fakeapi.ToolUse {
		return bash(id, "curl -sS -X POST -H 'Content-type: application/json' --data '{\"text\":\""+text+"\"}' "+hook, "Post an update to #inc-4471")
	}
	sa := "ci-artifacts-ro@shipyard-ci.iam.gserviceaccount.com"
	sc := scenario{
		Name:  "blind12-incident-rotation",
		Shape: "held-out, blind12: credential-leak incident, list-writing user; SA key JSON with a private key in an output, chat webhook in curl, a subagent audits logs, owners named, a plan taken back, long listings; one automatic compaction",
		Files: map[string]string{
			"deploy/ci/sa-artifacts-ro.json": saJSON,
			"deploy/ci/README.md":            "CI reads build caches from gs://shipyard-artifacts.\n",
			".github/workflows/release.yml":  "jobs:\n  release:\n    permissions:\n      id-token: write\n",
			"RUNBOOK.md":                     "# Leaked credential runbook\n\n1. Identify. 2. Disable. 3. Audit. 4. Rotate or delete. 5. Communicate.\n",
		},
		Bins:           map[string]string{"gcloud": gcloud, "curl": curl},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "CLAUDE_CODE_ENABLE_TASKS=0"},
		AllowedTools:   []string{"Bash(gcloud:*)", "Bash(curl:*)", "Bash(cat:*)", "Bash(git log:*)"},
		PermissionMode: "acceptEdits",
		Script: func(dir string) (before, after []turn) {
			next := b12Counter(16000, 2400)
			auditPrompt := "Incident INC-4471. From Cloud Audit Logs of project shipyard-ci over the last 30 days, list every call made with service-account key " + keyID[:8] +
				" of " + sa + " from a caller IP other than our CI egress NAT 34.118.20.7: timestamp, IP, method, resource. Report only what you find."
			before = []turn{
				{
					Prompt: "INC-4471. GitHub secret scanning flagged a GCP service account key committed to acme/shipyard on main. Please:\n" +
						"1. confirm which SA and which key id\n2. disable, then delete the key; only create a new one if something still needs it\n" +
						"3. check audit logs for use from outside our IPs\n4. post updates to #inc-4471 as you go (webhook: " + hook + ")\n\n" +
						"Rules: no force-push to main, and don't touch the prod-billing project at all.",
					Replies: []fakeapi.Reply{
						reply("", next(), bash("toolu_b12_gitlog", "git log --oneline -3 -- deploy/ci/sa-artifacts-ro.json", "Find the commit that added the key file")),
						reply("", next(), bash("toolu_b12_catkey", "cat deploy/ci/sa-artifacts-ro.json", "Read the leaked key file")),
						reply("", next(), bash("toolu_b12_keys", "gcloud iam service-accounts keys list --iam-account="+sa, "List the account's keys")),
						reply("The leaked key is "+keyID[:8]+" of "+sa+", created 2026-09-02 and still enabled. Disabling it first.", next(),
							bash("toolu_b12_disable", "gcloud iam service-accounts keys disable "+keyID+" --iam-account="+sa, "Disable the leaked key")),
						reply("", next(), post("toolu_b12_post1", "INC-4471: leaked key is "+keyID[:8]+" of ci-artifacts-ro@shipyard-ci. Disabled 09:24 UTC.")),
						reply("Key disabled and the channel told.", next()),
					},
				},
				{
					Prompt: "audit logs next. and what does this SA even have access to",
					Replies: []fakeapi.Reply{
						reply("", next(), bash("toolu_b12_policy", "gcloud projects get-iam-policy shipyard-ci", "Show the project's IAM policy")),
						reply("", next(), bash("toolu_b12_logs",
							"gcloud logging read 'protoPayload.authenticationInfo.serviceAccountKeyName:\""+keyID+"\"' --project=shipyard-ci --freshness=30d --format=json",
							"Read 30 days of audit logs for the key")),
						reply("That is a lot of CI traffic. Handing the filtering to a subagent.", next(),
							agentCall("toolu_b12_agent", "general-purpose", "Audit the leaked key's use", auditPrompt)),
						{For: auditPrompt, Tools: []fakeapi.ToolUse{bash("toolu_b12_sublogs",
							"gcloud logging read 'protoPayload.authenticationInfo.serviceAccountKeyName:\""+keyID+"\" AND NOT protoPayload.requestMetadata.callerIp=\"34.118.20.7\"' --project=shipyard-ci --freshness=30d --format='table(timestamp,protoPayload.requestMetadata.callerIp,protoPayload.methodName,protoPayload.resourceName)'",
							"Calls from outside the CI NAT")}, Usage: usageAt(5200)},
						{For: auditPrompt, Text: "Two calls came from outside 34.118.20.7, both from 185.220.101.44 (a Tor exit node), both reads: storage.objects.list on gs://shipyard-artifacts at 2026-11-24T22:41:07Z, " +
							"and storage.objects.get of releases/v2.14.0/shipyard-linux-amd64.tar.gz at 22:41:19Z. Every other call came from the NAT.", Usage: usageAt(6100)},
						reply("The policy gives this account one binding: roles/storage.objectViewer, conditioned to the shipyard-artifacts bucket. "+
							"So whoever used it could read, not write.\n\n"+
							"Decision: delete rather than just leave it disabled, because nothing uses the key: CI moved to Workload Identity Federation in October and every NAT call above is from the old cache job, which no longer exists. "+
							"No replacement key.\n\n"+
							"Decision: no re-release of v2.14.0, because the key only had roles/storage.objectViewer, so the tarball cannot have been altered with it.", next(),
							bash("toolu_b12_delete1", "gcloud iam service-accounts keys delete "+keyID+" --iam-account="+sa+" --quiet", "Delete the leaked key")),
						reply("My account may not delete keys in shipyard-ci. Retrying as the incident responder account, as the runbook allows.", next(),
							bash("toolu_b12_delete2", "gcloud iam service-accounts keys delete "+keyID+" --iam-account="+sa+" --quiet --impersonate-service-account=incident-responder@shipyard-sec.iam.gserviceaccount.com", "Delete the key as incident-responder")),
						reply("", next(), post("toolu_b12_post2", "INC-4471: key "+keyID[:8]+" deleted. 2 reads from 185.220.101.44 (Tor) on 2026-11-24 22:41Z: bucket list + releases/v2.14.0 linux tarball. Read-only role, no writes possible.")),
						reply("Deleted, and posted.", next()),
					},
				},
				{
					Prompt: "ok. people:\n- Priya owns the customer comms draft, she needs the exact list of objects read by 26 Nov 12:00 UTC\n" +
						"- Marcus is checking the v2.14.0 tarball sha256 against the release page\n- history rewrite stays parked until Legal answers",
					Replies: []fakeapi.Reply{
						reply("", next(), todoWrite("toolu_b12_todo1",
							[2]string{"Disable the leaked key", "completed"},
							[2]string{"Delete the leaked key", "completed"},
							[2]string{"Send Priya the list of objects read (due 26 Nov 12:00 UTC)", "pending"},
							[2]string{"Marcus: confirm the v2.14.0 tarball sha256 matches the release page", "pending"},
							[2]string{"History rewrite of deploy/ci/sa-artifacts-ro.json: waiting on Legal", "pending"},
							[2]string{"Write the INC-4471 timeline for the postmortem", "pending"})),
						reply("", next(), bash("toolu_b12_describe", "gcloud storage objects describe gs://shipyard-artifacts/releases/v2.14.0/shipyard-linux-amd64.tar.gz --format='yaml(md5_hash,update_time,generation)'", "Check when the tarball last changed")),
						reply("The tarball's last update is 2026-10-30T16:02Z, weeks before the key was pushed (2026-11-24 21:58Z), which backs up the read-only reasoning; Marcus's checksum is the independent check.", next()),
					},
				},
				{
					Prompt: "scratch the history rewrite thing, Legal answered: no rewrite, the repo is public, the key is dead, done. close it. also list the other SAs in shipyard-ci, I want to know if any other has user-managed keys",
					Replies: []fakeapi.Reply{
						reply("", next(), todoWrite("toolu_b12_todo2",
							[2]string{"Disable the leaked key", "completed"},
							[2]string{"Delete the leaked key", "completed"},
							[2]string{"Send Priya the list of objects read (due 26 Nov 12:00 UTC)", "pending"},
							[2]string{"Marcus: confirm the v2.14.0 tarball sha256 matches the release page", "pending"},
							[2]string{"Write the INC-4471 timeline for the postmortem", "pending"})),
						reply("", next(), post("toolu_b12_post3", "INC-4471: no history rewrite (Legal). Open: comms list to Priya by 26 Nov 12:00 UTC, tarball checksum by Marcus.")),
						reply("", next(), bash("toolu_b12_salist", "gcloud iam service-accounts list --project=shipyard-ci", "List the project's service accounts")),
						reply("", next(), bash("toolu_b12_keys2", "gcloud iam service-accounts keys list --iam-account=ci-deployer@shipyard-ci.iam.gserviceaccount.com --managed-by=user", "User-managed keys of ci-deployer")),
						reply("History rewrite closed. 29 service accounts in shipyard-ci; ci-deployer also has user-managed keys, one of them from 2025-12-01 and still enabled, which the same leak class could hit. "+
							"Next: sweep every SA for user-managed keys and list them for the postmortem.", next()),
					},
				},
			}
			after = []turn{
				{Prompt: "keep going", Replies: []fakeapi.Reply{reply("Sweeping the service accounts.", 7000)}},
				{Prompt: "status?", Replies: []fakeapi.Reply{reply("Halfway through.", 7600)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "INC-4471"),
			rx("constraint: no force-push to main", `(?i)no force-push to main`),
			rx("constraint: don't touch prod-billing", `(?i)(don'?t|do not|never) touch the prod-billing project`),
			rx("finding: which SA and key", `ci-artifacts-ro@shipyard-ci`, `7f3c9a1e`),
			rx("command outcome: key disabled", `(?i)(keys disable[^\n]{0,200}(exit 0|disabled|succe|ok)|disabled[^\n]{0,40}7f3c9a1e|7f3c9a1e[^\n]{0,80}disabled|key disabled)`),
			rx("failed command, exit code: delete denied", `(?i)keys delete[^\n]{0,200}exit (code )?1|iam\.serviceAccountKeys\.delete[^\n]{0,40}denied|PERMISSION_DENIED|permission denied`),
			rx("failure fixed: deleted as incident-responder", `(?i)impersonat|incident-responder`),
			lit("subagent finding: the outside IP", "185.220.101.44"),
			rx("subagent finding: what was read", `shipyard-linux-amd64\.tar\.gz|releases/v2\.14\.0`),
			lit("decision: delete rather than leave disabled", "delete rather than just leave it disabled"),
			lit("decision's reason: Workload Identity Federation", "Workload Identity Federation"),
			lit("decision: no re-release", "no re-release of v2.14.0"),
			lit("decision's reason: read-only role", "roles/storage.objectViewer"),
			lit("finding: tarball unchanged since 2026-10-30", "2026-10-30"),
			rx("open thread: Priya's list, by 26 Nov 12:00 UTC", `Priya`, `12:00 UTC`),
			rx("open thread: Marcus checks the checksum", `(?i)Marcus[^\n]{0,120}(sha256|checksum)|(sha256|checksum)[^\n]{0,120}Marcus`),
			rx("decision: no history rewrite (taken back)", `(?i)no (history )?rewrite|rewrite[^\n]{0,40}(closed|dropped|cancel)`).
				notRx(`(?i)(pending|in.progress|\[ \]|waiting on Legal)[^\n]{0,80}rewrite|rewrite[^\n]{0,80}(waiting on Legal|pending|in.progress)`),
			lit("open todo: the timeline", "Write the INC-4471 timeline for the postmortem"),
			rx("next step: sweep every SA", `(?i)sweep (every|all) (SA|service account)s?`),
		},
		Secrets: []secret{
			{"GCP service-account private key", keyLine},
			{"Slack incident webhook", hookToken},
		},
	}
	return forTrigger(sc, "auto")
}

// blind12JuliaTasks is a Julia package fixed for Float32 input, then made
// faster, with tasks from TaskCreate (one closed before the compaction),
// a question left unanswered for someone else, a bare /compact; after it
// the user takes a constraint back, a dependency is added, and a test
// run fails unresolved before an automatic compaction.
func blind12JuliaTasks() scenario {
	julia := `#!/bin/sh
# stand-in for julia in the SpectraFit.jl project: prints what the scenario needs
case "$*" in
  *"Pkg.test()"*)
    if grep -q 'curve_fit' src/fit.jl && ! grep -q 'using LsqFit' src/SpectraFit.jl; then
      cat <<'EOF'
     Testing Running tests...
fit: Error During Test at /home/ana/SpectraFit.jl/test/fit.jl:18
  Got exception outside of a @test
  UndefVarError: ` + "`curve_fit`" + ` not defined in ` + "`SpectraFit`" + `
  Suggestion: check for spelling errors or missing imports.
  Stacktrace:
   [1] fit_peaks(y::Vector{Float64}, npeaks::Int64)
     @ SpectraFit ~/SpectraFit.jl/src/fit.jl:9
Test Summary: | Pass  Error  Total   Time
SpectraFit    |   42      1     43  11.8s
ERROR: LoadError: Some tests did not pass: 42 passed, 0 failed, 1 errored, 0 broken.
ERROR: Package SpectraFit errored during testing
EOF
      exit 1
    fi
    if grep -q 'AbstractVector{<:Real}' src/fit.jl; then
      echo "     Testing Running tests..."
      echo "Test Summary: | Pass  Total   Time"
      echo "SpectraFit    |   43     43  12.3s"
      echo "     Testing SpectraFit tests passed"
      exit 0
    fi
    cat <<'EOF'
     Testing Running tests...
fit: Error During Test at /home/ana/SpectraFit.jl/test/fit.jl:31
  Test threw exception
  Expression: length(fit_peaks(Float32.(spectrum), 3).centers) == 3
  MethodError: no method matching fit_peaks(::Vector{Float32}, ::Int64)
  The function ` + "`fit_peaks`" + ` exists, but no method is defined for this combination of argument types.

  Closest candidates are:
    fit_peaks(::Vector{Float64}, ::Int64)
     @ SpectraFit ~/SpectraFit.jl/src/fit.jl:4

  Stacktrace:
   [1] macro expansion
     @ ~/.julia/juliaup/julia-1.11.1+0.x64.linux.gnu/share/julia/stdlib/v1.11/Test/src/Test.jl:676 [inlined]
   [2] top-level scope
     @ ~/SpectraFit.jl/test/fit.jl:31
Test Summary: | Pass  Error  Total   Time
SpectraFit    |   41      1     42  12.1s
ERROR: LoadError: Some tests did not pass: 41 passed, 0 failed, 1 errored, 0 broken.
ERROR: Package SpectraFit errored during testing
EOF
    exit 1
    ;;
  *"bench/fit.jl"*)
    if grep -q 'gaussian!(buf' src/gaussian.jl; then
      echo "BenchmarkTools.Trial: 129 samples with 1 evaluation per sample."
      echo " Range (min … max):  36.114 ms … 44.870 ms  ┊ GC (min … max): 0.00% … 3.12%"
      echo " Time  (median):     38.902 ms              ┊ GC (median):    0.00%"
      echo " Memory estimate: 2.40 MiB, allocs estimate: 61."
      exit 0
    fi
    echo "BenchmarkTools.Trial: 12 samples with 1 evaluation per sample."
    echo " Range (min … max):  398.004 ms … 455.216 ms  ┊ GC (min … max): 21.40% … 27.93%"
    echo " Time  (median):     412.337 ms               ┊ GC (median):    24.85%"
    echo " Memory estimate: 1.21 GiB, allocs estimate: 3000412."
    exit 0
    ;;
  *'Pkg.add("LsqFit")'*)
    cat <<'EOF'
   Resolving package versions...
    Updating ` + "`~/SpectraFit.jl/Project.toml`" + `
  [2fda8390] + LsqFit v0.15.0
    Updating ` + "`~/SpectraFit.jl/Manifest.toml`" + `
  [2fda8390] + LsqFit v0.15.0
  [d41bc354] + NLSolversBase v7.8.3
  [f6369f11] + ForwardDiff v0.10.38
Precompiling project...
  3 dependencies successfully precompiled in 41 seconds. 87 already precompiled.
EOF
    exit 0
    ;;
esac
echo "julia: stand-in got $*" >&2
exit 2
`
	fit := "# Peak fitting.\n\nfunction fit_peaks(y::Vector{Float64}, npeaks::Int)\n    x = collect(1.0:length(y))\n    return gauss_fit(x, y, npeaks)\nend\n"
	gauss := "function gauss_fit(x, y, n)\n    for it in 1:200\n        model = [gaussian(xi, p) for xi in x]\n        step!(p, model, y)\n    end\nend\n"
	sc := scenario{
		Name:        "blind12-julia-tasks",
		Shape:       "held-out, blind12: Julia package, MethodError for Float32 fixed, allocations cut, TaskCreate tasks (one closed), a question left for someone else; bare /compact, then a constraint taken back, a dependency added, an error left unresolved, auto",
		Compactions: []string{"manual", "auto"},
		Files: map[string]string{
			"Project.toml":      "name = \"SpectraFit\"\nuuid = \"5b1f0c2e-8d4a-4e6f-9a3b-2c7d1e0f4a5b\"\nversion = \"0.7.2\"\n\n[compat]\njulia = \"1.10\"\n",
			"src/SpectraFit.jl": "module SpectraFit\n\nexport fit_peaks\n\ninclude(\"gaussian.jl\")\ninclude(\"fit.jl\")\n\nend\n",
			"src/fit.jl":        fit,
			"src/gaussian.jl":   gauss,
			"test/runtests.jl":  "using Test, SpectraFit\n\n@testset \"SpectraFit\" begin\n    include(\"fit.jl\")\nend\n",
			"test/fit.jl":       "@test length(fit_peaks(spectrum, 3).centers) == 3\n",
			"bench/fit.jl":      "using BenchmarkTools, SpectraFit\n@benchmark fit_peaks($(rand(1_000_000)), 3)\n",
			"docs/src/api.md":   "`fit_peaks(y, n)` returns a NamedTuple `(centers, widths, heights)`.\n",
		},
		Bins:           map[string]string{"julia": julia},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1"},
		AllowedTools:   []string{"Bash(julia:*)"},
		PermissionMode: "acceptEdits",
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			next := b12Counter(10000, 2100)
			test := "julia --project -e 'using Pkg; Pkg.test()'"
			before = []turn{
				{
					Prompt: "Hi, SpectraFit.jl, issue #212: fit_peaks fails for Float32 spectra from the new detector. Please keep the package compatible with Julia 1.10 LTS, and no new dependencies.",
					Replies: []fakeapi.Reply{
						reply("", next(), bash("toolu_b12_jtest1", test, "Run the package tests")),
						reply("", next(), read("toolu_b12_jreadfit", p("src/fit.jl"))),
						reply("fit_peaks is declared for Vector{Float64} only. I'll widen it to AbstractVector{<:Real} and convert once at the top with float(), rather than adding a Float32 method, because one generic method covers views and ranges too.", next(),
							edit("toolu_b12_jeditfit", p("src/fit.jl"), "function fit_peaks(y::Vector{Float64}, npeaks::Int)\n", "function fit_peaks(y::AbstractVector{<:Real}, npeaks::Int)\n    y = float(y)\n")),
						reply("", next(), bash("toolu_b12_jtest2", test, "Run the package tests again")),
						reply("", next(), taskCreate("toolu_b12_jtask1", "Benchmark fit_peaks on the 1M-point spectrum", "Median time and allocations before and after")),
						reply("", next(), taskCreate("toolu_b12_jtask2", "Add a Float32 regression test to test/fit.jl", "Covers issue #212")),
						reply("Tests pass: 43 of 43. One question before I touch the return value: the docs say fit_peaks returns a NamedTuple, the code builds a FitResult struct. Which one is right?", next()),
					},
				},
				{
					Prompt: "dunno, that's for Jonas, he wrote the docs. leave it for now. meanwhile the gaussian fit is slow, look at it",
					Replies: []fakeapi.Reply{
						reply("", next(), bash("toolu_b12_jbench1", "julia --project bench/fit.jl", "Benchmark fit_peaks")),
						reply("", next(), read("toolu_b12_jreadg", p("src/gaussian.jl"))),
						reply("Allocations dominate (1.21 GiB, 24.85% GC): gauss_fit builds a new array per iteration. Reusing one buffer.", next(),
							edit("toolu_b12_jeditg", p("src/gaussian.jl"),
								"    for it in 1:200\n        model = [gaussian(xi, p) for xi in x]\n",
								"    buf = similar(y, float(eltype(y)))\n    for it in 1:200\n        model = gaussian!(buf, x, p)\n")),
						reply("", next(), bash("toolu_b12_jbench2", "julia --project bench/fit.jl", "Benchmark again")),
						reply("", next(), taskUpdate("toolu_b12_jtaskdone", "1", "completed")),
						reply("Median went from 412.337 ms to 38.902 ms, memory from 1.21 GiB to 2.40 MiB. The NamedTuple-or-FitResult question is still open for Jonas.", next()),
					},
				},
				{Prompt: "/compact"},
				{
					Prompt: "ok, actually forget the no-deps rule, Jonas says LsqFit is fine. use it for the fit if it's better than our hand-rolled loop",
					Replies: []fakeapi.Reply{
						reply("", 14000, bash("toolu_b12_jadd", "julia --project -e 'using Pkg; Pkg.add(\"LsqFit\")'", "Add LsqFit")),
						reply("Switching gauss_fit to LsqFit.curve_fit.", 15500, edit("toolu_b12_jeditlsq", p("src/fit.jl"),
							"    return gauss_fit(x, y, npeaks)\n", "    return curve_fit(multigauss, x, y, initial_guess(y, npeaks))\n")),
						reply("", 17000, bash("toolu_b12_jtest3", test, "Run the tests with LsqFit")),
						full("The tests error now: UndefVarError, curve_fit is not defined in SpectraFit. I still have to add `using LsqFit` to the module."),
					},
				},
				{Prompt: "go ahead", Replies: []fakeapi.Reply{reply("Adding the import.", 9000)}},
			}
			after = []turn{
				{Prompt: "and?", Replies: []fakeapi.Reply{reply("Rerunning the tests.", 9600)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "#212"),
			rx("constraint: Julia 1.10 LTS", `(?i)compatible with Julia 1\.10`),
			rx("constraint: no new dependencies (until taken back)", `(?i)no new dependencies`).until(1),
			rx("failure: MethodError for Float32", `MethodError`, `Float32`),
			rx("failure fixed: tests pass after widening", `(?i)(Pkg\.test\(\)[^\n]{0,80}(exit 1, then exit 0|exit 0)|43 of 43|43 passed|tests pass)`).until(1),
			lit("decision: AbstractVector{<:Real} rather than a Float32 method", "AbstractVector{<:Real}"),
			lit("decision's reason: views and ranges", "one generic method covers views and ranges too"),
			lit("file edited: src/fit.jl", "src/fit.jl"),
			lit("file edited: src/gaussian.jl", "src/gaussian.jl"),
			rx("finding: median 412 ms to 38.9 ms", `412(\.337)? ?ms`, `38\.9(02)? ?ms`),
			lit("finding: a new array per iteration", "new array per iteration"),
			rx("open thread: NamedTuple or FitResult, for Jonas", `Jonas`, `NamedTuple|FitResult`),
			lit("open task: Float32 regression test", "Add a Float32 regression test to test/fit.jl"),
			rx("closed task not shown open: the benchmark", `(?i)Benchmark fit_peaks|412(\.337)? ?ms`).
				notRx(`(?i)(pending|in.progress|\[ \]|open)[^\n]{0,40}Benchmark fit_peaks|Benchmark fit_peaks[^\n]{0,60}(pending|in.progress)`),
			rx("constraint taken back: LsqFit allowed", `(?i)LsqFit`).from(2),
			rx("failing command: UndefVarError curve_fit, unresolved", `UndefVarError|curve_fit[^\n]{0,40}not defined`).from(2),
		},
	}
	return sc
}
