package install

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-agent/cairn/internal/claudecode"
	"github.com/cairn-agent/cairn/internal/claudecode/settings"
	"github.com/cairn-agent/cairn/internal/continuity"
	"github.com/cairn-agent/cairn/internal/hook"
	"github.com/cairn-agent/cairn/internal/sqlite"
	"github.com/cairn-agent/cairn/internal/state"
	"github.com/cairn-agent/cairn/internal/text"
)

// Doctor checks the wiring of Setup, where state lives, and how each hook
// last ran.
type Doctor struct {
	Setup
	// StateDir is cairn's state directory, Fallback the one hooks use
	// when StateDir cannot be written.
	StateDir, Fallback string
	// DBPath is the database's file, which DB opens.
	DBPath string
	DB     func(context.Context) (*sqlite.DB, error)
	Now    func() time.Time
	// Loc is where times are shown.
	Loc *time.Location
	// Space measures what cairn keeps, and Collectable what cairn gc
	// would remove (a dry run); either may be nil.
	Space       func(context.Context) (continuity.Space, error)
	Collectable func(context.Context) (continuity.Collected, error)
}

// The sections of a report, in order.
const (
	Wiring  = "wiring"
	Storage = "storage"
	Hooks   = "hooks"
)

// A finding's status.
const (
	OK      = "ok"
	Problem = "problem"
	Info    = "info"
	Note    = "note"
)

// A Finding is one thing the doctor found.
type Finding struct {
	Section string `json:"section"`
	// Agent is the client the finding is about (the --agent word:
	// claude-code, codex), "" for what all share (storage).
	Agent  string `json:"agent,omitempty"`
	Status string `json:"status"`
	Text   string `json:"text"`
	// Fix is what to do about a problem.
	Fix string `json:"fix,omitempty"`
}

// HookRun is how an event's hook last ran.
type HookRun struct {
	// Agent is the client whose hook it is.
	Agent       string     `json:"agent"`
	Event       string     `json:"event"`
	LastRan     *time.Time `json:"last_ran"`
	TookMS      int64      `json:"took_ms"`
	LastError   string     `json:"last_error,omitempty"`
	LastErrorAt *time.Time `json:"last_error_at,omitempty"`
}

// MCPServer is a file that registers cairn's MCP server.
type MCPServer struct {
	// Scope is "project" (.mcp.json) or "user" (~/.claude.json).
	Scope   string `json:"scope"`
	Path    string `json:"path"`
	Command string `json:"command"`
}

// Report is what the doctor found, in the order it looked.
type Report struct {
	Findings   []Finding   `json:"findings"`
	Hooks      []HookRun   `json:"hooks"`
	MCPServers []MCPServer `json:"mcp_servers"`
	Problems   int         `json:"problems"`

	// agent is the client whose rows are being added.
	agent string
}

func (r *Report) add(section, status, fix, format string, args ...any) {
	r.Findings = append(r.Findings, Finding{Section: section, Agent: r.agent, Status: status, Text: fmt.Sprintf(format, args...), Fix: fix})
	if status == Problem {
		r.Problems++
	}
}

// Check looks at everything and reports it; a problem is a finding, not
// an error.
func (d Doctor) Check(ctx context.Context) Report {
	r := Report{Findings: []Finding{}, Hooks: []HookRun{}, MCPServers: []MCPServer{}}
	wired := false
	for _, row := range agentRows() {
		r.agent = row.agent.Name
		if row.wiring(d, &r) {
			wired = true
		}
	}
	r.agent = ""
	if !wired {
		var fixes []string
		for _, row := range agentRows() {
			fixes = append(fixes, row.install+" for "+row.agent.Title())
		}
		r.add(Wiring, Problem, strings.Join(fixes, ", or ")+" (with --user: for every project)", "cairn is wired into no client")
	}
	d.storage(ctx, &r)
	for _, row := range agentRows() {
		r.agent = row.agent.Name
		d.hooks(&r, row.agent)
	}
	r.agent = ""
	return r
}

// agentRow is one client's part of the report: how its wiring is checked
// (true when cairn is wired for it, anywhere), the command that wires it,
// and, from its agent, the hooks whose runs are shown. A client joins the
// doctor with its row.
type agentRow struct {
	agent   hook.Agent
	install string
	wiring  func(Doctor, *Report) bool
}

func agentRows() []agentRow {
	return []agentRow{
		{hook.ClaudeCode(), "cairn install", Doctor.claudeWiring},
		{hook.Codex(), "cairn install --agent codex", Doctor.codexWiring},
		{hook.Gemini(), "cairn install --agent gemini", Doctor.geminiWiring},
	}
}

// compare says which of the hooks install would wire are missing from
// have, and which are there but stale (another command or timeout).
func compare(want, have []settings.Hook) (missing, stale []string) {
	for _, h := range want {
		found := false
		for _, g := range have {
			if g.Event == h.Event {
				found = true
				if g.Command != h.Command || g.Timeout != h.Timeout {
					stale = append(stale, fmt.Sprintf("%s runs %q", g.Event, g.Command))
				}
			}
		}
		if !found {
			missing = append(missing, h.Event)
		}
	}
	return missing, stale
}

// hookFile is one agent settings file the doctor looks for cairn's hooks
// in: its path, the command that wires it right, and whom it serves.
type hookFile struct{ path, fix, what string }

// foundHooks reads one hook file and finds cairn's hooks in it with
// installed. It reports a missing, unreadable or malformed file, or one
// cairn is not wired into, and then returns ok false; otherwise the
// file's bytes and the hooks found.
func foundHooks(r *Report, path string, installed func([]byte) ([]settings.Hook, error)) (data []byte, have []settings.Hook, ok bool) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		r.add(Wiring, Info, "", "%s: no file", path)
		return nil, nil, false
	}
	if err != nil {
		r.add(Wiring, Problem, "", "%s: cannot read: %v", path, err)
		return nil, nil, false
	}
	if have, err = installed(data); err != nil {
		var se *settings.Error
		if errors.As(err, &se) {
			se.Path = path
		}
		r.add(Wiring, Problem, "correct the file as the message says; cairn will not edit it until then", "%v", err)
		return nil, nil, false
	}
	if len(have) == 0 {
		r.add(Wiring, Info, "", "%s: cairn not wired", path)
		return nil, nil, false
	}
	return data, have, true
}

// checkHooks reports whether the hooks found in file run this cairn for
// every event install wires, with its timeouts.
func (d Doctor) checkHooks(r *Report, file hookFile, want, have []settings.Hook) {
	missing, stale := compare(want, have)
	switch {
	case len(missing) > 0:
		r.add(Wiring, Problem, file.fix, "%s: cairn wired, but not for %s", file.path, strings.Join(missing, ", "))
	case len(stale) > 0:
		r.add(Wiring, Problem, file.fix, "%s: cairn wired, but not to this cairn (%s) or not with its timeouts: %s", file.path, d.Exe, strings.Join(stale, "; "))
	default:
		r.add(Wiring, OK, "", "%s: wired to %s for %d events, for %s", file.path, d.Exe, len(want), file.what)
	}
}

// claudeWiring checks Claude Code's settings files, its plugin and MCP
// servers.
func (d Doctor) claudeWiring(r *Report) bool {
	problem := func(fix, format string, args ...any) { r.add(Wiring, Problem, fix, format, args...) }
	w := wiring(d.Exe, "")
	want := w.Hooks
	f := d.files()
	var wired []string
	for _, file := range []hookFile{
		{f.shared, "cairn install", "the project's settings, which teams commit"},
		{f.local, "cairn install", "this project, on this machine"},
		{f.user, "cairn install --user", "every project"},
	} {
		path := file.path
		_, have, ok := foundHooks(r, path, func(data []byte) ([]settings.Hook, error) {
			have, err := w.Installed(data)
			if err == nil {
				_, _, err = settings.StatusLine(data)
			}
			return have, err
		})
		if !ok {
			continue
		}
		if path == f.shared {
			// The hooks call one machine's binary by its path, in a file
			// every clone of the project shares.
			problem(fmt.Sprintf("cairn install (moves it to %s)", filepath.Base(f.local)),
				"%s: wired by an older cairn, with this machine's path to cairn, in the file teams commit", path)
			wired = append(wired, path)
			continue
		}
		wired = append(wired, path)
		d.checkHooks(r, file, want, have)
	}
	servers := d.mcpServers(r, f)
	plugin := d.plugin(f)
	switch {
	case len(wired) == 0 && plugin != "":
		r.add(Wiring, OK, "", "cairn runs from its Claude Code plugin, enabled in %s", plugin)
	case len(wired) == 0:
		r.add(Wiring, Info, "", "cairn is wired into none of Claude Code's settings files (cairn install wires it)")
	case plugin != "":
		problem("keep one: disable the plugin (/plugin), or cairn uninstall (this project's) and cairn uninstall --user",
			"cairn's plugin is enabled in %s, and cairn is wired into %s too: Claude Code runs every hook twice", plugin, strings.Join(wired, " and "))
	case len(wired) > 1:
		problem("keep one: cairn uninstall (this project's) or cairn uninstall --user",
			"cairn is wired into %s: Claude Code runs every hook once per file", strings.Join(wired, " and "))
	}
	if plugin != "" {
		// Claude Code 2.1.328 drops a plugin's server when a configured
		// one runs the same command with the same arguments.
		for _, sv := range servers {
			if sv.Command == claudecode.Program {
				r.add(Wiring, Info, "", "%s runs the plugin's MCP server as it is (%s %s): Claude Code starts one of them", sv.Path, sv.Command, strings.Join(claudecode.MCPArgs(), " "))
			} else {
				problem(fmt.Sprintf("keep one: disable the plugin (/plugin), or take the server out of %s", sv.Path),
					"cairn's plugin and %s both register cairn's MCP server, with other commands (%s and %s): Claude Code starts it twice, and the model sees every tool twice", sv.Path, claudecode.Program, sv.Command)
			}
		}
	}
	for _, n := range d.Notes() {
		r.add(Wiring, Note, "", "%s", n)
	}
	return len(wired) > 0 || plugin != ""
}

// mcpServers reports where cairn's MCP server is registered: the
// project's .mcp.json (and whether Claude Code may start it there without
// asking), the user's ~/.claude.json.
func (d Doctor) mcpServers(r *Report, f settingsFiles) []MCPServer {
	problem := func(fix, format string, args ...any) { r.add(Wiring, Problem, fix, format, args...) }
	args := strings.Join(claudecode.MCPArgs(), " ")
	for _, file := range []struct {
		scope, path, what, fix string
		w                      settings.Wiring
	}{
		{"project", f.mcp, "for this project", "cairn install", projectServer(d.Exe)},
		{"user", f.userConfig, "for every project", "cairn install --user", userServer(d.Exe)},
	} {
		if file.path == "" {
			continue
		}
		st, cmd, err := serverIn(file.w, file.path)
		switch {
		case err != nil:
			problem("correct the file as the message says; cairn will not edit it until then", "%v", err)
		case st == settings.OtherServer:
			r.add(Wiring, Note, "", "%s: the MCP server named %s there is not cairn's, so cairn's is not registered there", file.path, claudecode.MCPServerName)
		case st == settings.NoServer:
			r.add(Wiring, Info, "", "%s: cairn's MCP server not registered", file.path)
		case file.path == f.userConfig && cmd != d.Exe && filepath.IsAbs(cmd):
			r.MCPServers = append(r.MCPServers, MCPServer{file.scope, file.path, cmd})
			problem(file.fix, "%s: cairn's MCP server runs %s, not this cairn (%s)", file.path, cmd, d.Exe)
		default:
			r.MCPServers = append(r.MCPServers, MCPServer{file.scope, file.path, cmd})
			r.add(Wiring, OK, "", "%s: cairn's MCP server registered %s: %s %s", file.path, file.what, cmd, args)
			if file.path == f.mcp {
				d.approval(r, f)
			}
		}
	}
	return r.MCPServers
}

// approval reports whether Claude Code may start the server of the
// project's .mcp.json without asking: the settings files approve or
// reject the servers of .mcp.json by name.
func (d Doctor) approval(r *Report, f settingsFiles) {
	var approvedIn []string
	for _, path := range []string{f.local, f.shared, f.user} {
		data, err := read(path)
		if err != nil || data == nil {
			continue
		}
		approved, rejected, err := settings.MCPApproval(data, claudecode.MCPServerName)
		switch {
		case err != nil:
			// The settings files' own findings say what is wrong.
		case rejected:
			r.add(Wiring, Problem, fmt.Sprintf("take %s out of disabledMcpjsonServers in %s", claudecode.MCPServerName, path),
				"%s rejects cairn's MCP server (disabledMcpjsonServers): Claude Code does not start it", path)
			return
		case approved:
			approvedIn = append(approvedIn, path)
		}
	}
	if len(approvedIn) > 0 {
		r.add(Wiring, OK, "", "cairn's MCP server of %s is approved in %s: Claude Code starts it without asking", filepath.Base(f.mcp), approvedIn[0])
		return
	}
	r.add(Wiring, Note, "", "cairn's MCP server of %s is approved in no settings file: an interactive Claude Code asks before it starts it (cairn install approves it in %s)", filepath.Base(f.mcp), filepath.Base(f.local))
}

// plugin is the settings file that enables cairn's Claude Code plugin,
// "" when none does: of those that mention it, the one Claude Code reads
// last (user < project < local) decides.
func (d Doctor) plugin(f settingsFiles) string {
	enabledIn := ""
	for _, path := range []string{f.user, f.shared, f.local} {
		data, err := read(path)
		if err != nil || data == nil {
			continue
		}
		if on, mentioned, err := settings.PluginEnabled(data, claudecode.PluginName); err == nil && mentioned {
			enabledIn = ""
			if on {
				enabledIn = path
			}
		}
	}
	return enabledIn
}

// storage reports where state, the log and the database live, whether
// hooks had to fall back to the temporary directory, and why.
func (d Doctor) storage(ctx context.Context, r *Report) {
	r.add(Storage, Info, "", "state: %s", d.StateDir)
	r.add(Storage, Info, "", "log: %s", filepath.Join(d.StateDir, hook.LogName))
	if err := state.Usable(d.StateDir); err != nil {
		r.add(Storage, Problem, fmt.Sprintf("make %s writable (cairn keeps only caches there)", d.StateDir),
			"state directory cannot be written: %v", err)
	}
	if at, why, used := hook.FallbackReason(d.Fallback); used {
		r.add(Storage, Problem, fmt.Sprintf("the log there says what failed: %s", filepath.Join(d.Fallback, hook.LogName)),
			"hooks kept their state and log in %s (last %s ago): %s", d.Fallback, text.Ago(d.Now().Sub(at)), why)
	}
	r.add(Storage, Info, "", "database: %s", d.DBPath)
	if db, err := d.DB(ctx); err != nil {
		r.add(Storage, Problem, "if it is damaged, move it aside and cairn starts a new one", "database: %v", err)
	} else if recs, err := db.Checkpoints(ctx, d.Root, 1); err != nil {
		r.add(Storage, Problem, "", "database: %v", err)
	} else if len(recs) > 0 {
		r.add(Storage, OK, "", "database opens; latest checkpoint of this project: %d (%s, %s)", recs[0].ID, recs[0].Trigger, recs[0].CreatedAt.In(d.Loc).Format("2006-01-02 15:04"))
	} else {
		r.add(Storage, OK, "", "database opens; no checkpoint of this project yet")
	}
	d.space(ctx, r)
}

// space says what cairn keeps on disk and what cairn gc would free of it.
func (d Doctor) space(ctx context.Context, r *Report) {
	if d.Space != nil {
		sp, err := d.Space(ctx)
		if err != nil {
			r.add(Storage, Info, "", "space: %v", err)
			return
		}
		r.add(Storage, Info, "", "space: state %s (%d sessions), database %s (%d checkpoints; %d observations, kept until forgotten)",
			text.Bytes(sp.State), sp.Sessions, text.Bytes(sp.DB.Size), sp.DB.Checkpoints, sp.DB.Observations)
	}
	if n, size := handoffs(filepath.Join(d.Root, ".claude", "handoffs")); n > 0 {
		r.add(Storage, Info, "", "handoffs of this project: %d, %s (the project's files: cairn gc leaves them)", n, text.Bytes(size))
	}
	if d.Collectable != nil {
		c, err := d.Collectable(ctx)
		if err != nil {
			r.add(Storage, Info, "", "cairn gc: %v", err)
			return
		}
		r.add(Storage, Info, "", "cairn gc would free %s: the state of %d sessions, %d checkpoints, %d tracker records",
			text.Bytes(c.Bytes()), c.States, c.Checkpoints, c.Tracker)
	}
}

// handoffs counts the handoff documents in dir and their size.
func handoffs(dir string) (int, int64) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0, 0
	}
	n, size := 0, int64(0)
	for _, e := range ents {
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() {
			n++
			size += fi.Size()
		}
	}
	return n, size
}

func (d Doctor) hooks(r *Report, ag hook.Agent) {
	for _, ev := range ag.Events.Names() {
		run, ran := d.lastRun(ag.RunName(ev))
		hr := HookRun{Agent: ag.Name, Event: ev}
		if !ran {
			r.Hooks = append(r.Hooks, hr)
			r.add(Hooks, Info, "", "%s: never ran", ev)
			continue
		}
		at := run.At
		hr.LastRan, hr.TookMS = &at, run.Took.Milliseconds()
		line := fmt.Sprintf("%s: last ran %s ago, took %v", ev, text.Ago(d.Now().Sub(run.At)), run.Took.Round(time.Millisecond))
		if run.Err != "" {
			errAt := run.ErrAt
			hr.LastError, hr.LastErrorAt = run.Err, &errAt
			line += fmt.Sprintf("; last error %s ago: %s", text.Ago(d.Now().Sub(run.ErrAt)), run.Err)
		}
		r.Hooks = append(r.Hooks, hr)
		r.add(Hooks, Info, "", "%s", line)
	}
}

// lastRun is an event's latest run record, in the state directory or the
// fallback, whichever is newer.
func (d Doctor) lastRun(event string) (hook.Run, bool) {
	run, ran := hook.LastRun(d.StateDir, event)
	if fb, ok := hook.LastRun(d.Fallback, event); ok && (!ran || fb.At.After(run.At)) {
		if fb.ErrAt.Before(run.ErrAt) {
			fb.Err, fb.ErrAt = run.Err, run.ErrAt
		}
		return fb, true
	}
	return run, ran
}
