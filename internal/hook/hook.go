// Package hook speaks Claude Code's hook protocol: it reads an event's JSON
// payload from stdin, runs cairn's handler for it within a time budget, and
// answers on stdout in the form that event takes (JSON additionalContext, or
// plain text for PreCompact, whose stdout becomes instructions to the
// summariser). A hook never breaks the agent: whatever goes wrong (a bad
// payload, an unreadable transcript, a locked database, a full disk, a
// panic, the budget running out) is logged as one line, nothing is printed,
// and the exit code is 0.
package hook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/cairn-agent/cairn/internal/state"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cairn-agent/cairn/internal/config"
	"github.com/cairn-agent/cairn/internal/continuity"
	"github.com/cairn-agent/cairn/internal/jsonscan"
)

// Payload is the part of a hook's stdin cairn reads.
type Payload struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	CWD            string `json:"cwd"`
	Event          string `json:"hook_event_name"`
	Source         string `json:"source"`  // SessionStart
	Trigger        string `json:"trigger"` // PreCompact, PostCompact
	CompactSummary string `json:"compact_summary"`
	Reason         string `json:"reason"` // SessionEnd
	// LastAssistantMessage is Stop's: the reply the turn ended with.
	LastAssistantMessage string `json:"last_assistant_message"`
}

// DecodePayload reads the fields cairn uses from a hook's stdin. It walks
// the JSON with jsonscan rather than encoding/json: PostToolUse payloads
// carry whole files, and in a fresh process reflection's set-up alone
// costs more than the walk.
func DecodePayload(data []byte) (Payload, error) {
	var p Payload
	var sc jsonscan.Scanner
	sc.Reset(data)
	fields := map[string]*string{
		"session_id": &p.SessionID, "transcript_path": &p.TranscriptPath, "cwd": &p.CWD,
		"hook_event_name": &p.Event, "source": &p.Source, "trigger": &p.Trigger,
		"compact_summary": &p.CompactSummary, "reason": &p.Reason,
		"last_assistant_message": &p.LastAssistantMessage,
	}
	if sc.Peek() != '{' {
		return p, errors.New("payload is not the JSON object Claude Code sends")
	}
	sc.Object()
	for k := sc.Key(); k != nil; k = sc.Key() {
		dst, ok := fields[string(k)]
		switch {
		case ok && sc.IsString():
			*dst = sc.Str()
		case ok:
			*dst = "" // null or not a string: as good as missing
			sc.Skip()
		default:
			sc.Skip()
		}
	}
	sc.End()
	if sc.Failed() {
		return Payload{}, fmt.Errorf("payload is not the JSON object Claude Code sends (invalid JSON near byte %d)", sc.Pos())
	}
	return p, nil
}

// Events are the hook events cairn handles, with the budget each handler
// gets. Claude Code's own timeout (set by `cairn install`) is larger, so
// cairn always answers first.
var Events = map[string]time.Duration{
	"SessionStart":     8 * time.Second,
	"UserPromptSubmit": 4 * time.Second,
	"PostToolUse":      2 * time.Second,
	"PreCompact":       20 * time.Second,
	"PostCompact":      4 * time.Second,
	"SessionEnd":       1200 * time.Millisecond, // SessionEnd hooks share about 1.5 s
	"Stop":             2 * time.Second,
}

// Runner runs one hook event.
type Runner struct {
	Keeper *continuity.Keeper
	Stdin  io.Reader
	Stdout io.Writer
	// Getenv reads CLAUDE_PROJECT_DIR.
	Getenv func(string) string
	Now    func() time.Time
	// Dir is cairn's state directory: the log and the hook run records
	// live there.
	Dir string
	// Budget overrides the event's budget (tests).
	Budget time.Duration

	handler sync.WaitGroup
}

// Wait waits for a handler Run gave up on to finish (tests; a hook process
// just exits).
func (r *Runner) Wait() { r.handler.Wait() }

// maxPayload bounds what is read from stdin: PostToolUse carries whole
// file contents, but not more than this.
const maxPayload = 64 << 20

// Run handles event and returns the exit code, which is always 0.
func (r *Runner) Run(ctx context.Context, event string) int {
	start := r.Now()
	budget, ok := Events[event]
	if r.Budget > 0 {
		budget = r.Budget
	}
	if !ok {
		r.finish(event, "", start, fmt.Errorf("unknown hook event %q", event))
		return 0
	}
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	type result struct {
		out string
		sid string
		err error
	}
	done := make(chan result, 1)
	r.handler.Add(1)
	go func() {
		defer r.handler.Done()
		var res result
		defer func() {
			if p := recover(); p != nil {
				res.err = fmt.Errorf("panic: %v: %s", p, firstFrames(debug.Stack()))
			}
			done <- res
		}()
		data, err := io.ReadAll(io.LimitReader(r.Stdin, maxPayload))
		if err != nil {
			res.err = fmt.Errorf("read payload: %w", err)
			return
		}
		p, err := DecodePayload(data)
		if err != nil {
			res.err = err
			return
		}
		res.sid = p.SessionID
		res.out, res.err = r.handle(ctx, event, p)
	}()
	var res result
	select {
	case res = <-done:
	case <-ctx.Done():
		res.err = fmt.Errorf("gave up after its %v budget", budget)
	}
	if res.err == nil && res.out != "" {
		if _, err := io.WriteString(r.Stdout, res.out); err != nil {
			res.err = fmt.Errorf("write answer: %w", err)
		}
	}
	r.finish(event, res.sid, start, res.err)
	return 0
}

// handle runs the event's handler and returns what to print.
func (r *Runner) handle(ctx context.Context, event string, p Payload) (string, error) {
	if p.TranscriptPath == "" {
		return "", errors.New("payload has no transcript_path")
	}
	project := r.Getenv("CLAUDE_PROJECT_DIR")
	if project == "" {
		project = p.CWD
	}
	k := r.Keeper
	defer k.Close()
	cfg, cerrs := config.Load(project)
	for _, e := range cerrs {
		appendLog(filepath.Join(r.Dir, "cairn.log"), fmt.Sprintf("%s hook %s: config: %s\n", r.Now().UTC().Format(time.RFC3339), event, oneLine(e.Error())))
	}
	k.Configure(cfg)
	switch event {
	case "SessionStart":
		var text string
		var err error
		if p.Source == "compact" {
			text, err = k.Restore(ctx, project, p.TranscriptPath, continuity.AtSessionStart)
			if g := k.Guidance(project); g != "" && err == nil {
				text = strings.TrimSpace(text + "\n\n" + g)
			}
		} else {
			text, err = k.Pointer(ctx, project, p.TranscriptPath, p.SessionID, p.Source)
		}
		return additionalContext(event, text), err
	case "UserPromptSubmit":
		text, err := k.Prompt(ctx, project, p.TranscriptPath)
		return additionalContext(event, text), err
	case "PostToolUse":
		text, err := k.Advise(ctx, project, p.TranscriptPath)
		return additionalContext(event, text), err
	case "Stop":
		// A suggestion for the user only: never a decision, never context
		// for the model.
		text, err := k.StopSuggestion(ctx, p.TranscriptPath, p.LastAssistantMessage)
		if f := k.FlowSuggestion(project); f != "" {
			text = strings.TrimSpace(text + "\n" + f)
		}
		if text == "" {
			return "", err
		}
		b, _ := json.Marshal(map[string]string{"systemMessage": text})
		return string(b) + "\n", err
	case "PreCompact":
		trigger := p.Trigger
		if trigger == "" {
			trigger = "unknown"
		}
		c, err := k.PreCompact(ctx, project, p.TranscriptPath, trigger)
		if c.SessionID == "" && err != nil {
			return "", err
		}
		// Steer even when storing failed: the summary still keeps the
		// specifics.
		return c.Steer(), err
	case "PostCompact":
		return "", k.KeepSummary(p.TranscriptPath, p.Trigger, p.CompactSummary)
	case "SessionEnd":
		_, err := k.SessionEnd(ctx, project, p.TranscriptPath)
		return "", err
	}
	return "", nil
}

// additionalContext wraps text in the JSON that adds it to the model's
// context; nothing when there is no text.
func additionalContext(event, text string) string {
	if text == "" {
		return ""
	}
	b, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": event, "additionalContext": text}})
	return string(b) + "\n"
}

// finish logs a failure and records the run for `cairn doctor`.
func (r *Runner) finish(event, session string, start time.Time, err error) {
	now := r.Now()
	if err != nil {
		line := fmt.Sprintf("%s hook %s session=%s: %s\n", now.UTC().Format(time.RFC3339), event, orDash(session), oneLine(err.Error()))
		appendLog(filepath.Join(r.Dir, "cairn.log"), line)
	}
	RecordRun(r.Dir, event, start, now.Sub(start), err)
}

// maxLog is the size at which the log is rotated (one previous file kept).
const maxLog = 1 << 20

func appendLog(file, line string) {
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return
	}
	if fi, err := os.Stat(file); err == nil && fi.Size() > maxLog {
		os.Rename(file, file+".1")
	}
	f, err := os.OpenFile(file, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	f.WriteString(line)
	f.Close()
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 500 {
		s = s[:500] + "…"
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func firstFrames(stack []byte) string {
	lines := strings.Split(string(stack), "\n")
	return strings.Join(lines[:min(len(lines), 12)], " | ")
}

// Run records: two small files per event under <dir>/hooks, so that a
// successful run writes one file and reads none:
//
//	<Event>        run <unix-nanos> <duration-nanos>
//	<Event>.error  <unix-nanos> <message>

// recordEvery is how often a successful run is recorded: the hottest
// hooks run many times a minute, and a stat costs less than a write.
const recordEvery = 10 * time.Second

// RecordRun notes a hook run; a failure to write is not worth a failure.
// Successful runs are recorded at most every recordEvery per event.
func RecordRun(dir, event string, at time.Time, took time.Duration, err error) {
	file := filepath.Join(dir, "hooks", event)
	if fi, serr := os.Stat(file); serr == nil && err == nil && at.Sub(fi.ModTime()) < recordEvery && at.Sub(fi.ModTime()) >= 0 {
		return
	}
	if os.MkdirAll(filepath.Dir(file), 0o700) != nil {
		return
	}
	writeFile(file, fmt.Sprintf("run %d %d\n", at.UnixNano(), took.Nanoseconds()))
	if err != nil {
		writeFile(file+".error", fmt.Sprintf("%d %s\n", at.UnixNano(), oneLine(err.Error())))
	}
}

// Run is what RecordRun kept.
type Run struct {
	Event string
	At    time.Time
	Took  time.Duration
	Err   string
	ErrAt time.Time
}

// LastRun reads an event's record; ok is false when it never ran.
func LastRun(dir, event string) (Run, bool) {
	run := Run{Event: event}
	file := filepath.Join(dir, "hooks", event)
	if data, err := os.ReadFile(file); err == nil {
		f := strings.Fields(string(data))
		if len(f) == 3 && f[0] == "run" {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			d, _ := strconv.ParseInt(f[2], 10, 64)
			run.At, run.Took = time.Unix(0, n), time.Duration(d)
		}
	}
	if data, err := os.ReadFile(file + ".error"); err == nil {
		at, msg, _ := strings.Cut(strings.TrimSpace(string(data)), " ")
		n, _ := strconv.ParseInt(at, 10, 64)
		run.ErrAt, run.Err = time.Unix(0, n), msg
	}
	return run, !run.At.IsZero()
}

func writeFile(file, content string) {
	state.WriteAtomic(file, []byte(content), false) // a record lost is no failure
}
