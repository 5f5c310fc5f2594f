// Package hook runs a client's hook: it reads the event's payload from
// stdin, runs cairn's handler for it within a time budget, and prints the
// handler's answer on stdout in the form that event takes. The client's
// side (its events and their budgets, its payload, its answers' forms,
// its meter rules) is an Agent (agent.go) built from its adapter:
// internal/claudecode for Claude Code, the default, internal/codex for
// Codex CLI, internal/gemini for Gemini CLI. What the handlers do is the
// core's (continuity, pressure, knowledge), composed here. A hook never breaks the agent: whatever goes
// wrong (a bad payload, an unreadable transcript, a locked database, a
// full disk, a panic, the budget running out) is logged as one line,
// nothing is printed, and the exit code is 0.
package hook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cairn-agent/cairn/internal/claudecode"
	"github.com/cairn-agent/cairn/internal/config"
	"github.com/cairn-agent/cairn/internal/continuity"
	"github.com/cairn-agent/cairn/internal/pressure"
	"github.com/cairn-agent/cairn/internal/redact"
	"github.com/cairn-agent/cairn/internal/state"
	"github.com/cairn-agent/cairn/internal/text"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// Runner runs one hook event.
type Runner struct {
	Keeper *continuity.Keeper
	Stdin  io.Reader
	Stdout io.Writer
	// Stderr is the log's last resort, when no log file can be written.
	Stderr io.Writer
	// Getenv reads CLAUDE_PROJECT_DIR and CAIRN_RUN_RELOAD; nil reads nothing.
	Getenv func(string) string
	Now    func() time.Time
	// Dir is cairn's state directory: the log and the hook run records
	// live there. Fallback is where they go when Dir cannot be written.
	Dir      string
	Fallback string
	// FallbackReason is why the state lives in Fallback this run, if it
	// does: noted for doctor and logged, at most hourly.
	FallbackReason error
	// Budget overrides the event's budget (tests).
	Budget time.Duration
	// Agent is the client that runs the hook; the zero value is Claude
	// Code.
	Agent Agent
	// StartDrainer starts the tracker's drainer in the background, when
	// a checkpoint queued updates for the ticket; nil starts none (the
	// updates wait for the next drainer).
	StartDrainer func() error

	handler sync.WaitGroup

	mu      sync.Mutex
	session string // the payload's, as soon as it is read
	gaveUp  bool   // the budget ran out: nothing more goes to stdout
	wrote   bool   // the answer is out
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
	if r.Agent.Name == "" {
		r.Agent = ClaudeCode()
	}
	ag := &r.Agent
	ev, ok := ag.Events.Lookup(event)
	budget := ev.Budget
	if r.Budget > 0 {
		budget = r.Budget
	}
	if !ok {
		r.finish(event, start, fmt.Errorf("unknown hook event %q", event))
		return 0
	}
	ctx, cancel := context.WithTimeout(ctx, budget)
	defer cancel()
	done := make(chan error, 1)
	r.handler.Add(1)
	go func() {
		defer r.handler.Done()
		var err error
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("panic: %v: %s", p, firstFrames(debug.Stack()))
			}
			done <- err
		}()
		p, drained, err := readPayload(r.Stdin, event, ag)
		defer func() {
			select { // the client's write must end before the process does
			case <-drained:
			case <-ctx.Done():
			}
		}()
		if err != nil {
			return
		}
		r.mu.Lock()
		r.session = p.SessionID
		r.mu.Unlock()
		err = r.handle(ctx, event, p)
	}()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		r.mu.Lock()
		r.gaveUp = true
		r.mu.Unlock()
		err = fmt.Errorf("gave up after its %v budget", budget)
	}
	r.finish(event, start, err)
	return 0
}

// payloadHead is how much of stdin is read before trying to decode: every
// payload but PostToolUse's fits, and PostToolUse's starts with the fields
// cairn reads.
const payloadHead = 64 << 10

// readPayload reads and decodes the hook's stdin. When the first
// payloadHead bytes hold all the event needs, the rest is drained in the
// background (the client's write must not fail) and neither kept nor
// walked; drained is closed when it is done. Otherwise up to maxPayload is
// read and decoded whole.
func readPayload(in io.Reader, event string, ag *Agent) (p Payload, drained chan struct{}, err error) {
	drained = make(chan struct{})
	head := make([]byte, payloadHead)
	n, rerr := io.ReadFull(in, head)
	head = head[:n]
	if rerr == io.EOF || rerr == io.ErrUnexpectedEOF {
		close(drained)
		p, err = ag.decode(head)
		return p, drained, err
	}
	if rerr != nil {
		close(drained)
		return p, drained, fmt.Errorf("read payload: %w", rerr)
	}
	if q, ok := ag.decodeHead(head, event); ok {
		go func() {
			defer close(drained)
			io.Copy(io.Discard, in)
		}()
		return q, drained, nil
	}
	defer close(drained)
	rest, rerr := io.ReadAll(io.LimitReader(in, maxPayload-payloadHead))
	if rerr != nil {
		return p, drained, fmt.Errorf("read payload: %w", rerr)
	}
	data := append(head, rest...)
	if len(data) == maxPayload {
		io.Copy(io.Discard, in)
	}
	p, err = ag.decode(data)
	return p, drained, err
}

// emit writes the event's answer to stdout, once, unless the budget ran
// out first: Claude Code reads a hook's output only when it ends in time,
// and what it cut short must not look delivered. An answer is written
// whole or reported as not delivered.
func (r *Runner) emit(text string) error {
	if text == "" {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.gaveUp:
		return errors.New("the budget ran out before the answer was ready")
	case r.wrote:
		return errors.New("an answer was written already")
	}
	r.wrote = true
	if _, err := io.WriteString(r.Stdout, text); err != nil {
		return fmt.Errorf("write answer: %w", err)
	}
	if f, ok := r.Stdout.(interface{ Sync() error }); ok {
		f.Sync() // a pipe has nothing to sync; a file does
	}
	return nil
}

// handle runs the event's handler; it writes its answer through emit. It
// composes the parts: the checkpoint's lifecycle and the restore
// (continuity), the pressure levels (pressure), and what is kept beyond
// the session (knowledge), each configured from the project's cairn.conf.
func (r *Runner) handle(ctx context.Context, event string, p Payload) error {
	if p.TranscriptPath == "" {
		return errors.New("payload has no transcript_path")
	}
	ag := &r.Agent
	project := ""
	if ag.projectEnv != "" {
		project = r.Getenv(ag.projectEnv)
	}
	if project == "" {
		project = p.CWD
	}
	k := r.Keeper
	defer k.Close()
	cfg := r.configure(event, p.SessionID, project)
	path := p.TranscriptPath
	if ag.listed {
		// The transcript grew: the saved listing of its folder orders it
		// again (claudecode.Listing).
		if err := (claudecode.Listing{Dir: claudecode.ListingDir(r.Dir)}).Touched(path); err != nil && k.Warn != nil {
			k.Warn(err)
		}
	}
	kn := knowledge{cfg: cfg, project: project, now: r.Now()}
	k.AtCompaction = kn.atCompaction(k)
	warn := k.Warn
	if warn == nil {
		warn = func(error) {}
	}
	adv := &pressure.Advisor{State: k.State, Config: cfg.Pressure, Settings: k.Settings, Rules: k.Rules, Quiet: !cfg.Advisories, Warn: warn,
		AtLevel: crossing{k: k, cfg: cfg, project: project, path: path, now: r.Now, warn: warn, drain: r.StartDrainer}.at}
	context := func(text string) error { return r.emit(ag.context(event, text)) }
	switch ag.handler(event) {
	case "SessionStart":
		if p.Source == "compact" {
			done, err := k.Restore(ctx, project, path, continuity.AtSessionStart, withGuidance(context, kn))
			if done {
				adv.Rearm(path)
			}
			return err
		}
		if token := r.reloadToken(); token != "" && p.Source == "resume" {
			// Restarted by cairn run: the working state, once per restart.
			text, err := k.Reloaded(ctx, project, p.SessionID, token)
			if text != "" {
				return errors.Join(err, context(text))
			}
			if err != nil {
				return err
			}
		}
		return starting(ctx, k, cfg, project, path, p.SessionID, p.Source, context)
	case "UserPromptSubmit":
		// Neither the restore nor the advisory reads the latest texts.
		s, err := k.LoadBare(path)
		if err != nil {
			return err
		}
		if ag.startsAtPrompt && len(s.Prompts) == 0 && s.NumTurns() == 0 && len(s.Compactions) == 0 {
			// The session's first prompt: what SessionStart gives another
			// client's new session.
			return starting(ctx, k, cfg, project, path, p.SessionID, "startup", context)
		}
		return restoreOrAdviseOn(ctx, k, adv, project, path, continuity.AtPrompt, p.Prompt, s, withGuidance(context, kn))
	case "PostToolUse":
		if ag.promptRestoresOnly {
			s, err := k.LoadBare(path)
			if err != nil {
				return err
			}
			text, err := adv.Advise(ctx, path, s, false)
			return errors.Join(err, context(text))
		}
		s, err := k.LoadBare(path)
		if err != nil {
			return err
		}
		// Near the compaction point, the checkpoint is built ahead, with
		// the tool's result Claude Code writes next (continuity/ahead.go).
		return errors.Join(restoreOrAdviseOn(ctx, k, adv, project, path, continuity.AtTool, "", s, withGuidance(context, kn)),
			k.KeepAhead(project, path, s, s.Offset))
	case "Stop":
		// A suggestion for the user only: never a decision, never context
		// for the model.
		var s *transcript.Session // the latest the suggestion loaded
		load := func() (*transcript.Session, error) {
			var err error
			s, err = k.Load(path, false)
			return s, err
		}
		text, err := adv.StopSuggestion(ctx, path, p.LastAssistantMessage, load)
		// Near the compaction point, the checkpoint is built ahead
		// (continuity/ahead.go).
		if s != nil {
			err = errors.Join(err, k.KeepAhead(project, path, s, 0))
		}
		if cfg.FlowTrim {
			// The compaction's job trims progress.md, which the
			// suggestion counts: done before it looks (compacting.go).
			k.SettleCompacting(ctx, path)
		}
		if f := kn.stopSuggestion(); f != "" {
			text = strings.TrimSpace(text + "\n" + f)
		}
		if text == "" || ag.notice == nil {
			return err
		}
		if werr := r.emit(ag.notice(text)); werr != nil && err == nil {
			err = werr
		}
		return err
	case "PreCompact":
		trigger := p.Trigger
		if trigger == "" {
			trigger = "unknown"
		}
		if ag.precompactsAlways && trigger != "manual" {
			if compacts, err := k.AboutToCompact(path); !compacts {
				return err
			}
		}
		// Plain text: Claude Code appends it to the summariser's
		// instructions. It is printed as soon as it is known, before
		// anything is stored. A client that shows the summariser nothing
		// (Codex) gets the checkpoint taken and nothing printed.
		steer := r.emit
		if !ag.steers {
			steer = func(string) error { return nil }
		}
		// The job (seed 004's capture and seed 001's marker first, then
		// the checkpoint's copy in the database) starts once this hook's
		// own files are written (HoldJobs).
		startJobs := k.HoldJobs(ctx)
		_, err := k.PreCompactWith(ctx, project, path, trigger, p.CustomInstructions, steer)
		return errors.Join(err, startJobs())
	case "PostCompact":
		err := k.KeepSummary(path, p.Trigger, p.CompactSummary)
		return errors.Join(err, k.ObserveCompaction(ctx, project, path, p.Trigger, p.CompactSummary))
	case "SessionEnd":
		err := k.SessionEnd(ctx, project, path)
		k.Tidy()
		return err
	}
	return nil
}

// EnvReload is set by cairn run in the environment of a client it
// restarted, to a token unique to the restart (supervisor.EnvReload).
const EnvReload = "CAIRN_RUN_RELOAD"

// configure sets the keeper up for the project, from its cairn.conf (whose
// errors it logs) and the agent, and returns the configuration.
func (r *Runner) configure(event, session, project string) config.Config {
	k, ag := r.Keeper, &r.Agent
	cfg, cerrs := config.Load(project)
	for _, e := range cerrs {
		r.logLine(r.Now(), event, session, "config: "+oneLine(e.Error()))
	}
	if k.RestoreBudget == 0 {
		k.RestoreBudget = cfg.RestoreBudget
	}
	if len(k.TicketPrefixes) == 0 {
		k.TicketPrefixes = cfg.TicketPrefixes
	}
	if ag.rules != nil {
		k.Rules = ag.rules(r.Getenv, project, k.Settings.Window)
	}
	k.Unsteered = !ag.steers
	k.ResumeCommand = ag.ResumeCommand()
	return cfg
}

// restoreOrAdvise is what a prompt or a tool call adds to the model's
// context: the restore of the latest compaction when its own hook did not
// deliver it, else an advisory when the context crossed a level. Never
// both: the context an advisory measured is gone after a compaction.
func restoreOrAdvise(ctx context.Context, k *continuity.Keeper, adv *pressure.Advisor, project, path, at, prompt string, deliver continuity.Deliver) error {
	s, err := k.LoadBare(path)
	if err != nil {
		return err
	}
	return restoreOrAdviseOn(ctx, k, adv, project, path, at, prompt, s, deliver)
}

// restoreOrAdviseOn is restoreOrAdvise on a session already loaded.
func restoreOrAdviseOn(ctx context.Context, k *continuity.Keeper, adv *pressure.Advisor, project, path, at, prompt string, s *transcript.Session, deliver continuity.Deliver) error {
	done, err := k.RestoreFrom(ctx, project, path, at, s, deliver)
	if done {
		adv.Rearm(path) // the context fell: the levels fire again
	}
	if done || err != nil {
		return err
	}
	text, err := adv.Advise(ctx, path, s, compacting(prompt))
	if text != "" {
		if derr := deliver(text); derr != nil && err == nil {
			err = derr
		}
	}
	return err
}

// starting is what a session starts with: the pointer to the work another
// session left in the project and, for a new or cleared context, the
// index of the project's memory (a resumed one has it in its history
// already, and a compacted one has its restore).
func starting(ctx context.Context, k *continuity.Keeper, cfg config.Config, project, path, session, source string, deliver continuity.Deliver) error {
	text, err := k.Pointer(ctx, project, path, session, source)
	if cfg.MemoryIndex > 0 && (source == "startup" || source == "clear") {
		index, ierr := memoryIndex(ctx, k, project, session, cfg.MemoryIndex)
		if index != "" {
			text = strings.TrimSpace(text + "\n\n" + index)
		}
		err = errors.Join(err, ierr)
	}
	if werr := deliver(text); werr != nil && err == nil {
		err = werr
	}
	return err
}

// compacting reports whether the prompt is a /compact command (Gemini
// CLI's /compress): the compaction comes before the model sees anything.
func compacting(prompt string) bool {
	p := strings.TrimSpace(prompt)
	for _, c := range []string{"/compact", "/compress"} {
		if p == c || strings.HasPrefix(p, c+" ") {
			return true
		}
	}
	return false
}

// withGuidance adds seed 001's note after a compaction to its restore.
// Only a restore gets it: an advisory is delivered through the same hook.
func withGuidance(deliver continuity.Deliver, kn knowledge) continuity.Deliver {
	return func(text string) error {
		if strings.HasPrefix(text, transcript.RestoreHeader) {
			if g := kn.guidance(); g != "" {
				text = strings.TrimSpace(text + "\n\n" + g)
			}
		}
		return deliver(text)
	}
}

// finish logs a failure and records the run for `cairn doctor`.
func (r *Runner) finish(event string, start time.Time, err error) {
	now := r.Now()
	r.mu.Lock()
	session := r.session
	r.mu.Unlock()
	if r.FallbackReason != nil {
		r.noteFallback(event, session, r.FallbackReason)
	}
	if err != nil {
		r.logLine(now, event, session, oneLine(err.Error()))
	}
	name := r.Agent.RunName(event)
	if RecordRun(r.Dir, name, start, now.Sub(start), err) != nil && r.Fallback != "" {
		RecordRun(r.Fallback, name, start, now.Sub(start), err)
	}
}

// log appends a line to the log in the state directory, else to the one
// in the fallback directory, else to stderr: a failure is never silent.
func (r *Runner) log(line string) {
	if appendLog(filepath.Join(r.Dir, LogName), line) == nil {
		return
	}
	if r.Fallback != "" && appendLog(filepath.Join(r.Fallback, LogName), line) == nil {
		return
	}
	if r.Stderr != nil {
		io.WriteString(r.Stderr, "cairn: "+line)
	}
}

// LogName is the log's file name in the state directory.
const LogName = "cairn.log"

// maxLog is the size at which the log is rotated (one previous file kept).
const maxLog = 1 << 20

func appendLog(file, line string) error {
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return err
	}
	if fi, err := os.Stat(file); err == nil && fi.Size() > maxLog {
		os.Rename(file, file+".1")
	}
	f, err := os.OpenFile(file, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = f.WriteString(line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// oneLine flattens a log message to one line of at most 500 bytes, with
// secrets taken out: an error can quote what it failed on.
func oneLine(s string) string { return text.ClipLine(redact.String(s), 500) }

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

// RecordRun notes a hook run and returns what kept it from doing so.
// Successful runs are recorded at most every recordEvery per event.
func RecordRun(dir, event string, at time.Time, took time.Duration, err error) error {
	file := filepath.Join(dir, "hooks", event)
	if fi, serr := os.Stat(file); serr == nil && err == nil && at.Sub(fi.ModTime()) < recordEvery && at.Sub(fi.ModTime()) >= 0 {
		return nil
	}
	if merr := os.MkdirAll(filepath.Dir(file), 0o700); merr != nil {
		return merr
	}
	werr := writeFile(file, fmt.Sprintf("run %d %d\n", at.UnixNano(), took.Nanoseconds()))
	if err != nil {
		if e := writeFile(file+".error", fmt.Sprintf("%d %s\n", at.UnixNano(), oneLine(err.Error()))); werr == nil {
			werr = e
		}
	}
	return werr
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

func writeFile(file, content string) error {
	return state.WriteAtomic(file, []byte(content), false)
}

// Warner returns a func that logs each error it is given as a line of the
// event, for the warnings of the operations a hook runs: a hook's stderr
// is read by no one.
func (r *Runner) Warner(event string) func(error) {
	return func(err error) {
		r.mu.Lock()
		session := r.session
		r.mu.Unlock()
		r.logLine(r.Now(), event, session, oneLine(err.Error()))
	}
}

// logLine logs a line of the event: "<time> hook <Event> session=<id>:
// <msg>", and for a hook's detached job, whose event is "job <kind>",
// "<time> job <kind> session=<id>: <msg>".
func (r *Runner) logLine(at time.Time, event, session, msg string) {
	what := event
	if !strings.HasPrefix(event, "job ") {
		what = "hook " + event
	}
	r.log(fmt.Sprintf("%s %s session=%s: %s\n", at.UTC().Format(time.RFC3339), what, orDash(session), msg))
}

// fallbackNote is the file in the fallback directory that says why hooks
// use it; it is rewritten, and the reason logged, at most every
// noteEvery, since every hook would otherwise add the same line.
const (
	fallbackNote = "fallback-reason"
	noteEvery    = time.Hour
)

// noteFallback records that the hooks keep their state and log in the
// fallback directory, and why, for `cairn doctor`.
func (r *Runner) noteFallback(event, session string, why error) {
	file := filepath.Join(r.Fallback, fallbackNote)
	if fi, err := os.Stat(file); err == nil && r.Now().Sub(fi.ModTime()) < noteEvery {
		return
	}
	r.logLine(r.Now(), event, session, oneLine(why.Error()))
	os.MkdirAll(r.Fallback, 0o700)
	writeFile(file, fmt.Sprintf("%d %s\n", r.Now().UnixNano(), oneLine(why.Error())))
}

// FallbackReason reads why the hooks last used the fallback directory;
// ok is false when they never did.
func FallbackReason(fallback string) (at time.Time, why string, ok bool) {
	data, err := os.ReadFile(filepath.Join(fallback, fallbackNote))
	if err != nil {
		return time.Time{}, "", false
	}
	n, msg, _ := strings.Cut(strings.TrimSpace(string(data)), " ")
	ns, _ := strconv.ParseInt(n, 10, 64)
	return time.Unix(0, ns), msg, true
}

// memoryIndex is the compact index of the project's past observations
// that a new or resumed session starts with: what other sessions decided,
// fixed and left open, within budget tokens. A database that is not there
// yet gives none.
func memoryIndex(ctx context.Context, k *continuity.Keeper, project, session string, budget int) (string, error) {
	if _, err := os.Stat(k.DBPath); err != nil {
		return "", nil
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	m, err := k.Memory(ctx)
	if err != nil {
		return "", err
	}
	return m.Index(ctx, project, session, budget)
}

// reloadToken is EnvReload's value.
func (r *Runner) reloadToken() string {
	if r.Getenv == nil {
		return ""
	}
	return r.Getenv(EnvReload)
}
