package loop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// result is what one iteration's agent did.
type result struct {
	SessionID string
	Model     string
	// Peak is the highest context seen, PeakPercent of the auto-compact
	// point; Crossed is set when it reached the stopping level, with the
	// percentage then.
	Peak        int64
	PeakPercent int
	Crossed     bool
	CrossedAt   int
	Tokens      int64
	CostUSD     float64
	Text        string // the final result's text
	IsError     bool
	// Outcome is completed, checkpoint, failed, interrupted or timeout.
	Outcome string
	Err     string
	Seconds int
}

// streamLine is the part of a stream-json line the loop reads.
type streamLine struct {
	Type      string `json:"type"`
	Subtype   string `json:"subtype"`
	SessionID string `json:"session_id"`
	Model     string `json:"model"`
	Message   struct {
		Model string `json:"model"`
		Usage *usage `json:"usage"`
	} `json:"message"`
	ParentToolUseID *string `json:"parent_tool_use_id"`
	Result          string  `json:"result"`
	IsError         bool    `json:"is_error"`
	TotalCostUSD    float64 `json:"total_cost_usd"`
	Usage           *usage  `json:"usage"`
}

type usage struct {
	Input         int64 `json:"input_tokens"`
	CacheCreation int64 `json:"cache_creation_input_tokens"`
	CacheRead     int64 `json:"cache_read_input_tokens"`
	Output        int64 `json:"output_tokens"`
}

func (u usage) context() int64 { return u.Input + u.CacheCreation + u.CacheRead + u.Output }

// interrupted is how the iteration was asked to stop.
type stopCause int

const (
	notStopped  stopCause = iota
	stopLevel             // the level was reached and the grace ran out
	stopSignal            // the loop was told to stop
	stopTimeout           // the iteration ran too long
)

// runAgent runs one iteration's agent on prompt and follows its stream.
// At the stopping level it lets the agent go on for the grace, then
// interrupts it (SIGINT to its process group, SIGKILL 10 s later); so do a
// cancelled ctx and the iteration's timeout. onSession is called once the
// session's id is known; checkpointNow, when it receives, is a manual
// checkpoint: the same as reaching the level.
func (r *Runner) runAgent(ctx context.Context, prompt string, onStart func(pid int), onSession func(id string), checkpointNow <-chan struct{}) result {
	start := r.now()
	var res result
	args := append(append(append([]string{}, r.Command[1:]...), "-p", prompt, "--output-format", "stream-json", "--verbose"), r.Args...)
	cmd := exec.Command(r.Command[0], args...)
	cmd.Dir = r.Dir
	cmd.Env = r.Env
	cmd.SysProcAttr = processGroup()
	var stderr bytes.Buffer
	cmd.Stderr = &limited{w: &stderr, n: 64 << 10}
	out, err := cmd.StdoutPipe()
	if err != nil {
		res.Outcome, res.Err = "failed", err.Error()
		return res
	}
	if err := cmd.Start(); err != nil {
		res.Outcome, res.Err = "failed", fmt.Sprintf("start %s: %v", r.Command[0], err)
		return res
	}
	onStart(cmd.Process.Pid)

	var mu sync.Mutex
	cause := notStopped
	done := make(chan struct{})
	stop := func(c stopCause) {
		mu.Lock()
		defer mu.Unlock()
		if cause != notStopped {
			return
		}
		cause = c
		interrupt(cmd.Process)
		go func() {
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				kill(cmd.Process)
			}
		}()
	}
	grace := make(chan struct{}, 1)
	go func() {
		timeout := time.NewTimer(r.IterationTimeout)
		defer timeout.Stop()
		var graceTimer <-chan time.Time
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				stop(stopSignal)
				return
			case <-timeout.C:
				stop(stopTimeout)
				return
			case <-checkpointNow:
				if graceTimer == nil {
					mu.Lock()
					res.Crossed = true
					mu.Unlock()
					graceTimer = time.After(r.Grace)
				}
			case <-grace:
				if graceTimer == nil {
					graceTimer = time.After(r.Grace)
				}
			case <-graceTimer:
				stop(stopLevel)
				return
			}
		}
	}()

	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 32<<20)
	for sc.Scan() {
		var l streamLine
		if json.Unmarshal(sc.Bytes(), &l) != nil {
			continue // a line the loop does not read; the agent's business
		}
		mu.Lock()
		switch l.Type {
		case "system":
			if l.SessionID != "" && res.SessionID == "" {
				res.SessionID = l.SessionID
				res.Model = l.Model
				mu.Unlock()
				onSession(l.SessionID)
				mu.Lock()
			}
		case "assistant":
			// A subagent's messages measure the subagent's context.
			if l.Message.Usage != nil && (l.ParentToolUseID == nil || *l.ParentToolUseID == "") {
				if l.Message.Model != "" {
					res.Model = l.Message.Model
				}
				c := l.Message.Usage.context()
				res.Peak = max(res.Peak, c)
				_, threshold := r.Window(res.Model)
				if threshold > 0 {
					pct := int(100 * c / threshold)
					res.PeakPercent = max(res.PeakPercent, pct)
					if !res.Crossed && float64(pct) >= r.Levels.Levels[r.StopLevel-1] {
						res.Crossed, res.CrossedAt = true, pct
						r.progress("iteration context at %d%% (L%d): the agent may finish its edit, then the iteration ends with a checkpoint", pct, r.StopLevel)
						grace <- struct{}{}
					}
				}
			}
		case "result":
			res.Text, res.IsError, res.CostUSD = l.Result, l.IsError, l.TotalCostUSD
			if l.Usage != nil {
				res.Tokens = l.Usage.context()
			}
			if l.SessionID != "" && res.SessionID == "" {
				res.SessionID = l.SessionID
			}
		}
		mu.Unlock()
	}
	werr := cmd.Wait()
	close(done)
	mu.Lock()
	defer mu.Unlock()
	res.Seconds = int(r.now().Sub(start).Seconds())
	switch {
	case cause == stopSignal:
		res.Outcome = "interrupted"
	case cause == stopTimeout:
		res.Outcome, res.Err = "timeout", fmt.Sprintf("the iteration ran over %s", r.IterationTimeout)
	case res.Crossed:
		res.Outcome = "checkpoint"
	case werr != nil || res.IsError:
		res.Outcome = "failed"
		res.Err = strings.TrimSpace(stderr.String())
		if res.IsError && res.Text != "" {
			res.Err = res.Text
		}
		if werr != nil {
			res.Err = strings.TrimSpace(fmt.Sprintf("%v: %s", werr, res.Err))
		}
	default:
		res.Outcome = "completed"
	}
	if res.CrossedAt == 0 {
		res.CrossedAt = res.PeakPercent
	}
	return res
}

// limited keeps the first n bytes written to it.
type limited struct {
	w io.Writer
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.w.Write(p[:k])
		l.n -= k
	}
	return len(p), nil
}
