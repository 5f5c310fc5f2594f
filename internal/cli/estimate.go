package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-agent/cairn/internal/estimate"
	"github.com/cairn-agent/cairn/internal/meter"
	"github.com/cairn-agent/cairn/internal/text"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// estimateView is `cairn estimate --json`.
type estimateView struct {
	Spec string `json:"spec"`
	// SessionID and Context are the session the budget was taken from;
	// empty when there was none and a fresh session was assumed.
	SessionID    string          `json:"session_id,omitempty"`
	Transcript   string          `json:"transcript,omitempty"`
	LastActivity *time.Time      `json:"last_activity,omitempty"`
	Context      *meter.Reading  `json:"context,omitempty"`
	FreshSession bool            `json:"fresh_session_assumed"`
	Advice       estimate.Advice `json:"advice"`
}

// learnView is `cairn estimate --learn --json`.
type learnView struct {
	Spec           string         `json:"spec"`
	SessionID      string         `json:"session_id"`
	Transcript     string         `json:"transcript"`
	SpecTokens     int64          `json:"spec_tokens"`
	ConsumedTokens int64          `json:"consumed_tokens"`
	Ratio          float64        `json:"ratio"`
	Model          estimate.Model `json:"model"`
}

// estimateCmd is `cairn estimate FILE|-`: how much context the task a
// spec describes will take, against what is left, and how to shard it.
// With --learn it records instead what a finished task took.
func estimateCmd() command {
	return command{
		args:    "FILE|- [--session ID | --transcript PATH] [--json] | --learn --session ID FILE",
		summary: "estimate the context a spec's task will take against what is left, and how to shard it",
		details: `With --learn, it records what the finished task of FILE consumed over the
whole session, and estimates use this project's own ratio once enough tasks
are recorded.`,
		setup: func(fs *flag.FlagSet) runFunc {
			sf := addSessionFlags(fs)
			asJSON := fs.Bool("json", false, "print JSON")
			learn := fs.Bool("learn", false, "record what the finished task of FILE consumed in --session")
			return func(_ context.Context, a *App, args []string) error {
				if len(args) != 1 {
					return usageErrorf("give one spec file, or - to read it from standard input")
				}
				if err := sf.check(); err != nil {
					return err
				}
				if *learn && !sf.given() {
					return usageErrorf("--learn needs the session the task ran in: --session ID or --transcript PATH")
				}
				return a.estimate(args[0], sf, *learn, *asJSON)
			}
		},
	}
}

func (a *App) estimate(file string, sf sessionFlags, learn, asJSON bool) error {
	spec, name, err := a.readSpec(file)
	if err != nil {
		return err
	}
	e, err := a.env()
	if err != nil {
		return err
	}
	defer e.keeper.Close()
	model, err := estimate.ProjectModel(e.stateDir, e.root)
	if err != nil {
		fmt.Fprintf(a.Stderr, "cairn: warning: %v; using the default ratio\n", err)
	}
	if learn {
		return a.learnEstimate(e, spec, name, sf, asJSON)
	}

	v := estimateView{Spec: name}
	var b estimate.Budget
	p, err := e.locate(*sf.id, *sf.path)
	switch {
	case err == nil:
		s, err := a.load(e, p, false)
		if err != nil {
			return err
		}
		r, _ := meter.Measure(s, e.settings)
		v.SessionID, v.Transcript, v.Context = s.SessionID, p, &r
		if !s.LastTime.IsZero() {
			t := s.LastTime
			v.LastActivity = &t
		}
		b = budgetOf(r)
	case sf.given():
		return err
	default:
		// No session in this project: the task would start a new one.
		v.FreshSession = true
		r, _ := meter.Measure(transcript.New(""), e.settings)
		v.Context = &r
		b = budgetOf(r)
	}
	v.Advice = estimate.Advise(spec, model, b)
	if asJSON {
		return writeJSON(a.Stdout, v)
	}
	renderEstimate(a.Stdout, v, a.Now())
	return nil
}

// budgetOf is what a task can use in the session read as r: up to the
// auto-compact threshold, or the whole window when auto-compaction is off.
// A fresh session of the same window is what a shard is sized against.
func budgetOf(r meter.Reading) estimate.Budget {
	limit := r.Threshold
	if !r.AutoCompact || limit == 0 {
		limit = r.Window
	}
	return estimate.Budget{Used: r.Tokens, Threshold: limit, Fresh: limit}
}

// readSpec reads the spec from a file, or from stdin for "-".
func (a *App) readSpec(arg string) (spec, name string, err error) {
	var data []byte
	if arg == "-" {
		data, err = io.ReadAll(a.Stdin)
		if err != nil {
			return "", "", fmt.Errorf("read the spec from standard input: %w", err)
		}
		arg = "(stdin)"
	} else {
		p := arg
		if !filepath.IsAbs(p) {
			wd, err := a.Getwd()
			if err != nil {
				return "", "", fmt.Errorf("find the working directory: %w", err)
			}
			p = filepath.Join(wd, p)
		}
		data, err = os.ReadFile(p)
		if err != nil {
			if u := errors.Unwrap(err); u != nil {
				err = u // the path is said once, below
			}
			return "", "", withHint(fmt.Errorf("cannot read the spec %s: %w", p, err), "give the path of a Markdown spec or plan, or - to read it from standard input")
		}
	}
	if strings.TrimSpace(string(data)) == "" {
		return "", "", withHint(fmt.Errorf("the spec %s is empty", arg), "give the spec or plan the agent is to carry out")
	}
	return string(data), arg, nil
}

// learnEstimate records what the finished task of spec consumed over the
// whole of the given session.
func (a *App) learnEstimate(e *env, spec, name string, sf sessionFlags, asJSON bool) error {
	p, err := e.locate(*sf.id, *sf.path)
	if err != nil {
		return err
	}
	s, err := a.load(e, p, true)
	if err != nil {
		return err
	}
	if len(s.Turns) == 0 {
		return withHint(fmt.Errorf("session %s has no replies yet", orDash(s.SessionID)), "record a task once its session has done the work")
	}
	st := estimate.Tokens(spec)
	consumed := estimate.FromSession(s, st, 0, 0)
	if err := estimate.Learn(e.stateDir, e.root, st, consumed); err != nil {
		return withHint(err, "check that %s is writable", e.stateDir)
	}
	m, err := estimate.ProjectModel(e.stateDir, e.root)
	if err != nil {
		return err
	}
	v := learnView{Spec: name, SessionID: s.SessionID, Transcript: p, SpecTokens: st, ConsumedTokens: consumed,
		Ratio: math.Round(float64(consumed)/float64(st)*10) / 10, Model: m}
	if asJSON {
		return writeJSON(a.Stdout, v)
	}
	w := a.Stdout
	fmt.Fprintf(w, "recorded  %s: %s spec tokens, %s tokens consumed over the whole session %s (%d turns, %s): %.1f per spec token\n",
		name, meter.Thousands(st), meter.Thousands(consumed), orDash(s.SessionID), s.NumTurns(), counted(len(s.Compactions), "compaction"), v.Ratio)
	if m.Source == "project" {
		fmt.Fprintf(w, "model     this project's own ratio is now %.1f, the median of %s; 10th-90th percentile %.1f-%.1f\n", m.Ratio, counted(m.Samples, "finished task"), m.Low, m.High)
	} else {
		fmt.Fprintf(w, "model     %s recorded of the %d needed: estimates use the default ratio until then\n", counted(m.Recorded, "finished task"), estimate.MinSamples)
	}
	return nil
}

// counted is "1 task", "2 tasks".
func counted(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func renderEstimate(w io.Writer, v estimateView, now time.Time) {
	ad := v.Advice
	m := ad.Model
	fmt.Fprintf(w, "spec      %s · %s tokens\n", v.Spec, meter.Thousands(ad.SpecTokens))
	if sig := signalsText(ad.Signals); sig != "" {
		fmt.Fprintf(w, "signals   %s (counted, not weighed)\n", sig)
	}
	fmt.Fprintf(w, "estimate  ~%s tokens of context (%s-%s)\n", meter.Thousands(ad.Tokens), meter.Thousands(ad.Low), meter.Thousands(ad.High))
	switch m.Source {
	case "project":
		fmt.Fprintf(w, "model     %.1f per spec token: this project's own, the median of its %d finished tasks; 10th-90th percentile %.1f-%.1f\n",
			m.Ratio, m.Samples, m.Low, m.High)
	default:
		fmt.Fprintf(w, "model     %.1f per spec token: the default, the median of %d real tasks; 10th-90th percentile %.1f-%.1f",
			m.Ratio, m.Samples, m.Low, m.High)
		if m.Recorded > 0 {
			fmt.Fprintf(w, " (this project: %s recorded of the %d needed)", counted(m.Recorded, "finished task"), estimate.MinSamples)
		}
		fmt.Fprintln(w)
	}
	b := ad.Budget
	if v.FreshSession {
		fmt.Fprintf(w, "context   no session found for this project: assuming a fresh one, 0 of %s used (window %s)\n",
			meter.Thousands(b.Threshold), meter.Thousands(v.Context.Window))
	} else {
		limit := "auto-compact"
		if !v.Context.AutoCompact || v.Context.Threshold == 0 {
			limit = "the window's end (auto-compact is off)"
		}
		active := ""
		if v.LastActivity != nil {
			active = fmt.Sprintf(" (last active %s ago)", text.Ago(now.Sub(*v.LastActivity)))
		}
		fmt.Fprintf(w, "context   session %s%s · %s of %s used · %s left before %s\n",
			orDash(v.SessionID), active, meter.Thousands(b.Used), meter.Thousands(b.Threshold), meter.Thousands(ad.Remaining), limit)
	}
	if ad.Remaining > 0 {
		fmt.Fprintf(w, "share     %.1f%% of what is left", ad.Percent)
		switch {
		case !ad.Fits:
			fmt.Fprint(w, " · it does not fit: auto-compaction would come mid-task")
		case !ad.FitsHigh:
			fmt.Fprintf(w, " · the high end (%s) would not fit", meter.Thousands(ad.High))
		}
		fmt.Fprintln(w)
	} else {
		fmt.Fprintln(w, "share     nothing is left before auto-compaction")
	}
	switch ad.Action {
	case estimate.Execute:
		fmt.Fprintln(w, "advice    execute: under 30% of what is left")
		return
	case estimate.ConsiderSharding:
		fmt.Fprintln(w, "advice    consider sharding: 30-60% of what is left")
	default:
		fmt.Fprintln(w, "advice    shard first: over 60% of what is left")
	}
	if !v.FreshSession && ad.PercentFresh < 100*estimate.ExecuteBelow {
		fmt.Fprintf(w, "          or start it in a fresh session, where it would take %.1f%%\n", ad.PercentFresh)
	}
	renderSplit(w, ad)
}

func renderSplit(w io.Writer, ad estimate.Advice) {
	sp := ad.Split
	if sp == nil {
		return
	}
	limit := fmt.Sprintf("%s tokens (30%% of a fresh session's %s)", meter.Thousands(ad.ShardLimit), meter.Thousands(ad.Budget.Fresh))
	switch {
	case sp.Reason != "":
		fmt.Fprintf(w, "shards    none proposed: %s; divide it by hand into pieces under %s\n", sp.Reason, limit)
		return
	case len(sp.Shards) == 1 && !sp.Shards[0].Over:
		fmt.Fprintf(w, "shards    none needed in a fresh session: the whole task stays under %s\n", limit)
		return
	}
	fmt.Fprintf(w, "shards    %d along the %s, each meant to stay under %s\n", len(sp.Shards), sp.By, limit)
	width := 0
	for _, s := range sp.Shards {
		width = max(width, len(meter.Thousands(s.Tokens)))
	}
	for i, s := range sp.Shards {
		fmt.Fprintf(w, "  %d. ~%*s tokens  %s", i+1, width, meter.Thousands(s.Tokens), strings.Join(s.Parts, " · "))
		if s.Over {
			fmt.Fprint(w, "  (still over: divide it by hand)")
		}
		fmt.Fprintln(w)
	}
}

func signalsText(s estimate.Signals) string {
	var out []string
	add := func(n int, one, many string) {
		switch {
		case n == 1:
			out = append(out, "1 "+one)
		case n > 1:
			out = append(out, fmt.Sprintf("%d %s", n, many))
		}
	}
	add(s.Paths, "path", "paths")
	add(s.CodeBlocks, "code block", "code blocks")
	add(s.Checklist, "checklist item", "checklist items")
	add(s.Headings, "heading", "headings")
	add(s.ListItems, "list item", "list items")
	return strings.Join(out, " · ")
}
