package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/cairn-agent/cairn/internal/meter"
	"github.com/cairn-agent/cairn/internal/text"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// reportView is `cairn report --json`: the status plus the timeline.
type reportView struct {
	statusView
	Timeline    []turnView           `json:"timeline"`
	Tools       map[string]int       `json:"tools"`
	ToolCalls   []callView           `json:"tool_calls"`
	Files       []fileView           `json:"files"`
	Commands    []commandView        `json:"commands"`
	Errors      []errorView          `json:"errors"`
	Prompts     []string             `json:"prompts"`
	Todos       []todoView           `json:"todos"`
	Subagents   []subagentView       `json:"subagents"`
	BadLineList []transcript.BadLine `json:"bad_line_list"`
}

type turnView struct {
	Turn          int       `json:"turn"`
	Time          time.Time `json:"time"`
	Tokens        int64     `json:"tokens"`
	Input         int64     `json:"input_tokens"`
	CacheCreation int64     `json:"cache_creation_input_tokens"`
	CacheRead     int64     `json:"cache_read_input_tokens"`
	Output        int64     `json:"output_tokens"`
	MessageID     string    `json:"message_id"`
}

type callView struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Agent     string `json:"agent,omitempty"`
	IsError   bool   `json:"is_error"`
	Sidechain bool   `json:"sidechain"`
	FilePath  string `json:"file_path"`
	Command   string `json:"command"`
	ExitCode  *int   `json:"exit_code"`
}

type fileView struct {
	Path    string `json:"path"`
	Read    int    `json:"read"`
	Write   int    `json:"write"`
	Edit    int    `json:"edit"`
	Delete  int    `json:"delete"`
	Created bool   `json:"created"`
}

type commandView struct {
	Command  string `json:"command"`
	ExitCode *int   `json:"exit_code"`
	IsError  bool   `json:"is_error"`
	Agent    string `json:"agent,omitempty"`
}

type errorView struct {
	Tool      string `json:"tool"`
	ToolUseID string `json:"tool_use_id"`
	Message   string `json:"message"`
	Agent     string `json:"agent,omitempty"`
}

type todoView struct {
	ID      string `json:"id,omitempty"`
	Content string `json:"content"`
	Status  string `json:"status"`
}

type subagentView struct {
	ID        string `json:"id"`
	Path      string `json:"path"`
	Compact   bool   `json:"compact"`
	Turns     int    `json:"turns"`
	ToolCalls int    `json:"tool_calls"`
}

func newReportView(s *transcript.Session, rules meter.Rules) reportView {
	v := reportView{
		statusView: newStatusView(s, rules),
		Timeline:   []turnView{}, Tools: map[string]int{}, ToolCalls: []callView{},
		Files: []fileView{}, Commands: []commandView{}, Errors: []errorView{},
		Prompts: []string{}, Todos: []todoView{}, Subagents: []subagentView{},
		BadLineList: s.BadLines,
	}
	if v.BadLineList == nil {
		v.BadLineList = []transcript.BadLine{}
	}
	for i, t := range s.Turns {
		v.Timeline = append(v.Timeline, turnView{
			Turn: s.EarlierTurns + i + 1, Time: t.Time, Tokens: t.Usage.Context(),
			Input: t.Usage.Input, CacheCreation: t.Usage.CacheCreation, CacheRead: t.Usage.CacheRead,
			Output: t.Usage.Output, MessageID: t.MessageID,
		})
	}
	files := map[string]int{}
	addCalls := func(agent string, ss *transcript.Session) {
		for _, c := range ss.ToolCalls {
			v.Tools[c.Name]++
			v.ToolCalls = append(v.ToolCalls, callView{
				ID: c.ID, Name: c.Name, Agent: agent, IsError: c.IsError, Sidechain: c.Sidechain || agent != "",
				FilePath: c.FilePath, Command: c.Command, ExitCode: c.ExitCode,
			})
			if c.Name == "Bash" {
				v.Commands = append(v.Commands, commandView{Command: c.Command, ExitCode: c.ExitCode, IsError: c.IsError, Agent: agent})
			}
			if c.IsError {
				v.Errors = append(v.Errors, errorView{Tool: c.Name, ToolUseID: c.ID, Message: c.ErrorText, Agent: agent})
			}
		}
		for _, f := range ss.Files {
			i, ok := files[f.Path]
			if !ok {
				i = len(v.Files)
				files[f.Path] = i
				v.Files = append(v.Files, fileView{Path: f.Path, Created: f.Created})
			}
			fv := &v.Files[i]
			fv.Read += f.Read
			fv.Write += f.Write
			fv.Edit += f.Edit
			fv.Delete += f.Delete
		}
	}
	addCalls("", s)
	for _, a := range s.Subagents {
		if a.Session == nil {
			continue
		}
		v.Subagents = append(v.Subagents, subagentView{
			ID: a.ID, Path: a.Path, Compact: a.Compact, Turns: a.Session.NumTurns(), ToolCalls: len(a.Session.ToolCalls),
		})
		if !a.Compact {
			addCalls(a.ID, a.Session)
		}
	}
	for _, p := range s.Prompts {
		v.Prompts = append(v.Prompts, p.Text)
	}
	for _, t := range s.Todos {
		v.Todos = append(v.Todos, todoView{ID: t.ID, Content: t.Content, Status: t.Status})
	}
	return v
}

func reportCmd() command {
	return command{
		args:    "PATH|ID [--json] [--window N]",
		summary: "show a session's timeline: context per turn, compactions, tools, files, commands, errors, todos, subagents",
		setup: func(fs *flag.FlagSet) runFunc {
			asJSON := fs.Bool("json", false, "print JSON")
			window := addWindowFlag(fs)
			return func(_ context.Context, a *App, args []string) error {
				if len(args) != 1 {
					return usageErrorf("give one transcript path or session id")
				}
				// A path or an id, whichever the argument looks like.
				sf := sessionFlags{id: new(string), path: new(string)}
				if arg := args[0]; strings.ContainsAny(arg, `/\`) || strings.HasSuffix(arg, ".jsonl") || fileExists(arg) {
					*sf.path = arg
				} else {
					*sf.id = arg
				}
				e, s, err := a.readSession(sf, true)
				if err != nil {
					return err
				}
				defer e.keeper.Close()
				v := newReportView(s, e.rules(s.Client, *window))
				if *asJSON {
					return writeJSON(a.Stdout, v)
				}
				renderReport(a.Stdout, v, a.Now(), a.Loc)
				return nil
			}
		},
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

const (
	chartRows  = 40
	chartWidth = 40
	listMax    = 15
)

func renderReport(w io.Writer, v reportView, now time.Time, loc *time.Location) {
	renderStatus(w, v.statusView, now, loc)
	fmt.Fprintf(w, "\ncontext per turn (%s tokens = full width; | marks auto-compact)\n", meter.Thousands(v.Context.Window))
	renderChart(w, v)

	fmt.Fprintf(w, "\ntools (%d calls)\n", len(v.ToolCalls))
	if len(v.Tools) == 0 {
		fmt.Fprintln(w, "  none")
	} else {
		type kv struct {
			k string
			n int
		}
		var ts []kv
		for k, n := range v.Tools {
			ts = append(ts, kv{k, n})
		}
		sort.Slice(ts, func(i, j int) bool {
			if ts[i].n != ts[j].n {
				return ts[i].n > ts[j].n
			}
			return ts[i].k < ts[j].k
		})
		var parts []string
		for _, t := range ts {
			parts = append(parts, fmt.Sprintf("%s %d", t.k, t.n))
		}
		fmt.Fprintf(w, "  %s\n", strings.Join(parts, " · "))
	}

	fmt.Fprintf(w, "\nfiles touched (%d)\n", len(v.Files))
	for i, f := range v.Files {
		if i == listMax {
			fmt.Fprintf(w, "  … %d more (--json lists all)\n", len(v.Files)-listMax)
			break
		}
		var ops []string
		for _, o := range []struct {
			n    int
			name string
		}{{f.Read, "read"}, {f.Write, "write"}, {f.Edit, "edit"}, {f.Delete, "delete"}} {
			if o.n > 0 {
				ops = append(ops, fmt.Sprintf("%s %d", o.name, o.n))
			}
		}
		created := ""
		if f.Created {
			created = " (created)"
		}
		fmt.Fprintf(w, "  %s%s: %s\n", f.Path, created, strings.Join(ops, ", "))
	}

	failed := 0
	for _, c := range v.Commands {
		if c.IsError {
			failed++
		}
	}
	fmt.Fprintf(w, "\ncommands (%d, %d failed)\n", len(v.Commands), failed)
	start := max(0, len(v.Commands)-listMax)
	if start > 0 {
		fmt.Fprintf(w, "  … %d earlier\n", start)
	}
	for _, c := range v.Commands[start:] {
		status := "  ?"
		if c.ExitCode != nil {
			status = fmt.Sprintf("%3d", *c.ExitCode)
		}
		fmt.Fprintf(w, "  exit %s  %s\n", status, text.ClipLine(c.Command, 90))
	}

	fmt.Fprintf(w, "\nerrors (%d)\n", len(v.Errors))
	start = max(0, len(v.Errors)-listMax)
	if start > 0 {
		fmt.Fprintf(w, "  … %d earlier\n", start)
	}
	for _, e := range v.Errors[start:] {
		fmt.Fprintf(w, "  %s: %s\n", e.Tool, text.ClipLine(e.Message, 100))
	}
	if len(v.Todos) > 0 {
		fmt.Fprintf(w, "\ntodos (%d)\n", len(v.Todos))
		for _, t := range v.Todos {
			fmt.Fprintf(w, "  [%s] %s\n", t.Status, text.ClipLine(t.Content, 90))
		}
	}
	if len(v.Subagents) > 0 {
		fmt.Fprintf(w, "\nsubagents (%d)\n", len(v.Subagents))
		for _, s := range v.Subagents {
			kind := ""
			if s.Compact {
				kind = " (compaction summariser)"
			}
			fmt.Fprintf(w, "  %s%s: %d turns, %d tool calls\n", s.ID, kind, s.Turns, s.ToolCalls)
		}
	}
}

// renderChart draws one row per turn, or per group of turns (their peak)
// when there are many, and a row for each compaction.
func renderChart(w io.Writer, v reportView) {
	if len(v.Timeline) == 0 {
		fmt.Fprintln(w, "  no replies yet")
		return
	}
	per := (len(v.Timeline) + chartRows - 1) / chartRows
	ci := 0
	for i := 0; i < len(v.Timeline); i += per {
		group := v.Timeline[i:min(i+per, len(v.Timeline))]
		// Compactions that happened before this group's first turn.
		for ci < len(v.Compactions) && v.Compactions[ci].TurnsBefore < group[0].Turn {
			c := v.Compactions[ci]
			fmt.Fprintf(w, "  %s compaction (%s): %s → %s tokens\n", strings.Repeat("─", 8), c.Trigger, meter.Thousands(c.PreTokens), tokensOrUnknown(c.PostTokens))
			ci++
		}
		peak := group[0].Tokens
		for _, t := range group {
			peak = max(peak, t.Tokens)
		}
		label := fmt.Sprintf("%d", group[0].Turn)
		if len(group) > 1 {
			label = fmt.Sprintf("%d-%d", group[0].Turn, group[len(group)-1].Turn)
		}
		fmt.Fprintf(w, "  %9s %s %s\n", label, bar(peak, v.Context.Window, v.Context.Threshold, chartWidth), meter.Thousands(peak))
	}
	for ; ci < len(v.Compactions); ci++ {
		c := v.Compactions[ci]
		fmt.Fprintf(w, "  %s compaction (%s): %s → %s tokens\n", strings.Repeat("─", 8), c.Trigger, meter.Thousands(c.PreTokens), tokensOrUnknown(c.PostTokens))
	}
}
