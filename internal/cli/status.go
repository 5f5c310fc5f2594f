package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/cairn-agent/cairn/internal/meter"
	"github.com/cairn-agent/cairn/internal/text"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// statusView is `cairn status --json`.
type statusView struct {
	SessionID string `json:"session_id"`
	// Client is the program the session ran in: claude-code, codex.
	Client        string           `json:"client"`
	Transcript    string           `json:"transcript"`
	Model         string           `json:"model"`
	CWD           string           `json:"cwd"`
	GitBranch     string           `json:"git_branch"`
	ClientVersion string           `json:"client_version"`
	Turns         int              `json:"turns"`
	LastActivity  *time.Time       `json:"last_activity"`
	Context       meter.Reading    `json:"context"`
	Trend         meter.Trend      `json:"trend"`
	Compactions   []compactionView `json:"compactions"`
	BadLines      int              `json:"bad_lines"`
}

type compactionView struct {
	Trigger      string    `json:"trigger"`
	PreTokens    int64     `json:"pre_tokens"`
	PostTokens   int64     `json:"post_tokens"`
	Time         time.Time `json:"time"`
	TurnsBefore  int       `json:"turns_before"`
	SummaryChars int       `json:"summary_chars"`
}

func newStatusView(s *transcript.Session, rules meter.Rules) statusView {
	r, tr := meter.Measure(s, rules)
	v := statusView{
		SessionID: s.SessionID, Client: s.Client, Transcript: s.Path, Model: s.Model, CWD: s.CWD,
		GitBranch: s.GitBranch, ClientVersion: s.ClientVersion, Turns: s.NumTurns(),
		Context: r, Trend: tr, Compactions: []compactionView{}, BadLines: s.BadCount,
	}
	if !s.LastTime.IsZero() {
		t := s.LastTime
		v.LastActivity = &t
	}
	for _, c := range s.Compactions {
		v.Compactions = append(v.Compactions, compactionView{
			Trigger: c.Trigger, PreTokens: c.PreTokens, PostTokens: c.PostTokens, Time: c.Time,
			TurnsBefore: c.TurnsBefore, SummaryChars: c.SummaryChars,
		})
	}
	return v
}

func statusCmd() command {
	return command{
		args:    "[--session ID | --transcript PATH] [--json] [--window N]",
		summary: "show how full the context is, its trend, the predicted auto-compaction and the compactions so far",
		setup: func(fs *flag.FlagSet) runFunc {
			sf := addSessionFlags(fs)
			asJSON := fs.Bool("json", false, "print JSON")
			window := addWindowFlag(fs)
			return func(_ context.Context, a *App, args []string) error {
				if err := noArgs(args); err != nil {
					return err
				}
				e, s, err := a.readSession(sf, false)
				if err != nil {
					return err
				}
				defer e.keeper.Close()
				v := newStatusView(s, e.rules(s.Client, *window))
				if *asJSON {
					return writeJSON(a.Stdout, v)
				}
				renderStatus(a.Stdout, v, a.Now(), a.Loc)
				return nil
			}
		},
	}
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

const barWidth = 30

func renderStatus(w io.Writer, v statusView, now time.Time, loc *time.Location) {
	r, tr := v.Context, v.Trend
	fmt.Fprintf(w, "session  %s\n", orDash(v.SessionID))
	if v.Client != "" {
		fmt.Fprintf(w, "client   %s", transcript.ClientTitle(v.Client))
		if v.ClientVersion != "" {
			fmt.Fprintf(w, " %s", v.ClientVersion)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "model    %s · window %s (%s)", orDash(v.Model), meter.Thousands(r.Window), r.WindowSource)
	if v.GitBranch != "" {
		fmt.Fprintf(w, " · branch %s", v.GitBranch)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "context  %s %s / %s tokens · %.1f%% of window", bar(r.Tokens, r.Window, r.Threshold, barWidth), meter.Thousands(r.Tokens), meter.Thousands(r.Window), r.PctWindow)
	if r.AutoCompact && r.Threshold > 0 {
		fmt.Fprintf(w, " · %.1f%% of auto-compact (%s)", r.PctThreshold, meter.Thousands(r.Threshold))
	} else {
		fmt.Fprint(w, " · auto-compact off")
	}
	switch r.Source {
	case "compact_boundary":
		fmt.Fprint(w, " · just compacted")
	case "compact_estimate":
		fmt.Fprint(w, " · just compacted, estimated from the summary")
	case "none":
		fmt.Fprint(w, " · no reply yet")
	}
	fmt.Fprintln(w)
	if tr.Samples > 0 {
		fmt.Fprintf(w, "trend    %s tokens/turn", meter.Signed(tr.PerTurn))
		if tr.PerMinute != 0 {
			fmt.Fprintf(w, " · %s tokens/min", meter.Signed(tr.PerMinute))
		}
		fmt.Fprintf(w, " (over the last %d turns)\n", tr.Samples+1)
		if tr.TurnsToCompact != nil {
			fmt.Fprintf(w, "compacts in about %s turns", meter.Round1(*tr.TurnsToCompact))
			if tr.MinutesToCompact != nil {
				fmt.Fprintf(w, " · %s min", meter.Round1(*tr.MinutesToCompact))
			}
			fmt.Fprintln(w, " at this rate")
		}
	}
	fmt.Fprintf(w, "turns    %d", v.Turns)
	if v.LastActivity != nil {
		fmt.Fprintf(w, " · last activity %s (%s ago)", v.LastActivity.In(loc).Format("2006-01-02 15:04"), text.Ago(now.Sub(*v.LastActivity)))
	}
	fmt.Fprintln(w)
	if len(v.Compactions) == 0 {
		fmt.Fprintln(w, "compactions none")
	} else {
		fmt.Fprintf(w, "compactions %d\n", len(v.Compactions))
		for i, c := range v.Compactions {
			fmt.Fprintf(w, "  #%d %s %s · %s → %s tokens\n", i+1, c.Trigger, c.Time.In(loc).Format("2006-01-02 15:04"), meter.Thousands(c.PreTokens), tokensOrUnknown(c.PostTokens))
		}
	}
	if v.BadLines > 0 {
		fmt.Fprintf(w, "warning  %d unreadable lines skipped (cairn report --json lists them)\n", v.BadLines)
	}
}

// bar draws used/window with a '|' where auto-compaction triggers.
func bar(used, window, threshold int64, width int) string {
	if window <= 0 {
		return strings.Repeat("░", width)
	}
	fill := int(float64(used) / float64(window) * float64(width))
	fill = max(0, min(fill, width))
	mark := -1
	if threshold > 0 && threshold < window {
		mark = int(float64(threshold) / float64(window) * float64(width))
	}
	var b strings.Builder
	for i := 0; i < width; i++ {
		switch {
		case i == mark:
			b.WriteString("|")
		case i < fill:
			b.WriteString("█")
		default:
			b.WriteString("░")
		}
	}
	return b.String()
}

func tokensOrUnknown(n int64) string {
	if n <= 0 {
		return "?"
	}
	return meter.Thousands(n)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
