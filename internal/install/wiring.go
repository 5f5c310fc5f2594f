package install

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cairn-agent/cairn/internal/claudecode"
	"github.com/cairn-agent/cairn/internal/claudecode/settings"
	"github.com/cairn-agent/cairn/internal/hookevent"
	"github.com/cairn-agent/cairn/internal/shell"
)

// Setup is where cairn is wired: a project, the user's Claude Code
// settings, and the running cairn the hooks call.
type Setup struct {
	// Root is the project's directory.
	Root string
	// ConfigDir is Claude Code's: $CLAUDE_CONFIG_DIR or ~/.claude.
	ConfigDir string
	// UserConfig is the file Claude Code keeps its state and the user's
	// MCP servers in: $CLAUDE_CONFIG_DIR/.claude.json or ~/.claude.json.
	UserConfig string
	// DataDir is cairn's data directory: the journal of what a settings
	// file held before install lives in DataDir/install.
	DataDir string
	// Exe is the absolute path of the running cairn, which the hooks and
	// the status line call.
	Exe string
	// CodexHome is Codex CLI's: $CODEX_HOME or ~/.codex.
	CodexHome string
	// GeminiHome is Gemini CLI's: $GEMINI_CLI_HOME/.gemini or ~/.gemini.
	GeminiHome string
	// PATH is the search path the slash commands find cairn in.
	PATH string
	// Out is where install and uninstall say what they did, Err where
	// they warn of what they would not do (Out when nil).
	Out, Err io.Writer
}

// warn tells the user what install or uninstall left alone.
func (s Setup) warn(format string, args ...any) {
	w := s.Err
	if w == nil {
		w = s.Out
	}
	fmt.Fprintf(w, "cairn: warning: "+format+"\n", args...)
}

// ErrSettings marks a settings file that could not be read or edited:
// errors.Is(err, ErrSettings) tells the failures after which cairn left
// the settings files as they were.
var ErrSettings = errors.New("settings file not edited")

// settingsErr keeps err's message and marks it ErrSettings.
type settingsErr struct{ err error }

func (e settingsErr) Error() string        { return e.err.Error() }
func (e settingsErr) Unwrap() error        { return e.err }
func (e settingsErr) Is(target error) bool { return target == ErrSettings }

func settingsError(err error) error { return settingsErr{err} }

// Executable is the absolute path of the running cairn, symlinks resolved.
func Executable() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find cairn's own path: %w", err)
	}
	if r, err := filepath.EvalSymlinks(exe); err == nil {
		exe = r
	}
	return exe, nil
}

// oursFor recognises cairn's hook commands: those isOurs recognises, and
// those that run exe itself whatever its name.
func oursFor(exe string) func(string) bool {
	return func(command string) bool {
		if isOurs(command) {
			return true
		}
		word, rest := shell.FirstWord(hookevent.TrimEnv(command))
		f := strings.Fields(rest)
		_, known := claudecode.Events.Lookup(lastOf(f))
		return word == exe && len(f) == 2 && f[0] == "hook" && known
	}
}

func lastOf(f []string) string {
	if len(f) == 0 {
		return ""
	}
	return f[len(f)-1]
}

// statusLineOurs recognises cairn's status line command, chained or not,
// with or without the OneCPUEnv install starts it with (statusLine).
func statusLineOurs(exe string) func(string) bool {
	return func(command string) bool {
		word, rest := shell.FirstWord(hookevent.TrimEnv(command))
		f := strings.Fields(rest)
		return len(f) > 0 && f[0] == "statusline" && (word == exe || strings.HasPrefix(filepath.Base(word), "cairn"))
	}
}

// isOurs recognises cairn's hook commands whatever the binary's path
// (quoted when it has spaces): "<…/cairn…> hook EVENT" for an event cairn
// handles, with or without the environment a OneCPU event's command sets
// (hookevent.Event.Env): an install of either form is cairn's, and
// install brings it to the form the event has now.
func isOurs(command string) bool {
	exe, rest := shell.FirstWord(hookevent.TrimEnv(command))
	f := strings.Fields(rest)
	if len(f) != 2 || f[0] != "hook" {
		return false
	}
	if _, ok := claudecode.Events.Lookup(f[1]); !ok {
		return false
	}
	return strings.HasPrefix(filepath.Base(exe), "cairn")
}

// wanted lists the hooks cairn installs, calling exe.
func wanted(exe string) []settings.Hook {
	var hs []settings.Hook
	for _, ev := range claudecode.Events {
		hs = append(hs, settings.Hook{Event: ev.Name, Command: ev.Env() + shell.Quote(exe) + " hook " + ev.Name, Timeout: ev.Timeout})
	}
	return hs
}

// wiring is what install puts into a settings file for the cairn at exe,
// its status line chaining inherited when the file has none of its own.
func wiring(exe, inherited string) settings.Wiring {
	return settings.Wiring{
		Hooks:      wanted(exe),
		IsOurs:     oursFor(exe),
		StatusLine: statusLine(exe),
		StatusOurs: statusLineOurs(exe),
		// A status line of cairn's that runs this binary as statusLine
		// does, or cairn from PATH (a user who chose cairn's status line
		// by hand, with the variable or not), does the job. One that runs
		// another absolute path is an older install's, maybe of a binary
		// that has moved, and one of this binary without the variable an
		// install from before it: install brings either to statusLine,
		// keeping its chain.
		StatusCurrent: func(c string) bool {
			bare := hookevent.TrimEnv(c)
			word, _ := shell.FirstWord(bare)
			return !filepath.IsAbs(word) || word == exe && bare != strings.TrimSpace(c)
		},
		Inherited: inherited,
	}
}

// statusLine is the status line command install writes for the cairn at
// exe. Claude Code runs it after every reply, so like the hooks of every
// turn it runs with one CPU (hookevent.OneCPUEnv): the runtime's second
// one costs a process this short more than it gives (docs/benchmarks.md,
// issue 15, perf/cold10). It reads at most a few hundred KB of a
// transcript itself (statusline's maxFold), never a whole large one; the
// user's command it chains runs without the variable.
func statusLine(exe string) string {
	return hookevent.OneCPUEnv + " " + shell.Quote(exe) + " statusline"
}

// mcpOurs recognises cairn's MCP server: "mcp" run by exe, or by a
// program whose name starts with cairn, as isOurs does for the hooks.
func mcpOurs(exe string) func(string, []string) bool {
	return func(command string, args []string) bool {
		return slices.Equal(args, claudecode.MCPArgs()) && (command == exe || strings.HasPrefix(filepath.Base(command), "cairn"))
	}
}

// projectServer registers the MCP server in a project's .mcp.json, a
// file teams commit: there it runs cairn from PATH, as the plugin and the
// slash commands do, because a path of this machine would be wrong on
// every other one. It also makes the entry the plugin's own: Claude Code
// 2.1.328 drops a plugin's server when a configured one has the same
// command and arguments, so a user with both gets one server, not two.
// Any cairn an entry of cairn's runs there already does the job: another
// member's choice is theirs, and rewriting it would churn their commits.
func projectServer(exe string) settings.Wiring {
	return settings.Wiring{MCP: &settings.MCPServer{
		Name: claudecode.MCPServerName, Command: claudecode.Program, Args: claudecode.MCPArgs(),
		Ours:    mcpOurs(exe),
		Current: func(string) bool { return true },
	}}
}

// userServer registers the MCP server in the user's ~/.claude.json, this
// machine's own file, for every project: there it runs this cairn by its
// absolute path, as the hooks do, so that it runs whatever PATH the
// client has. One of cairn's that runs another absolute path is an older
// install's, of a binary that may have moved: install points it here.
func userServer(exe string) settings.Wiring {
	return settings.Wiring{MCP: &settings.MCPServer{
		Name: claudecode.MCPServerName, Command: exe, Args: claudecode.MCPArgs(),
		Ours:     mcpOurs(exe),
		Current:  func(c string) bool { return c == exe || !filepath.IsAbs(c) },
		FileMode: 0o600, // as the client makes it: it holds the user's account
	}}
}

// The settings files cairn wires, by where Claude Code reads them.
//
// The hooks and the status line call this machine's cairn by its absolute
// path, so they are per-user wiring: for a project they go into
// .claude/settings.local.json, which Claude Code reads for the project
// and which is not meant to be committed, never into .claude/settings.json,
// which teams commit. An older cairn installed there; install moves that
// wiring out.
//
// The MCP server goes into the project's .mcp.json (mcp) or the user's
// ~/.claude.json (userConfig); see projectServer and userServer.
type settingsFiles struct {
	shared, local, user string
	mcp, userConfig     string
	journal             settings.Journal
}

func (s Setup) files() settingsFiles {
	return settingsFiles{
		shared:     filepath.Join(s.Root, ".claude", "settings.json"),
		local:      filepath.Join(s.Root, ".claude", "settings.local.json"),
		user:       filepath.Join(s.ConfigDir, "settings.json"),
		mcp:        filepath.Join(s.Root, ".mcp.json"),
		userConfig: s.UserConfig,
		journal:    settings.Journal{Dir: filepath.Join(s.DataDir, "install")},
	}
}

// read loads a settings file for a check; a missing file reads as empty.
func read(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}

// check reads the settings files an edit will touch and refuses them all,
// before any is changed, when one cannot be edited (not JSON, a key
// twice): the user fixes it and runs the command again, rather than
// finding half of cairn wired.
func check(w settings.Wiring, paths ...string) error {
	for _, p := range paths {
		data, err := read(p)
		if err == nil {
			_, err = w.Before(data)
		}
		if err != nil {
			var se *settings.Error
			if errors.As(err, &se) {
				se.Path = p
			}
			return settingsError(err)
		}
	}
	return nil
}

// serverIn is what the file at path has under cairn's MCP server name,
// with the command of cairn's; a missing file has nothing.
func serverIn(w settings.Wiring, path string) (settings.ServerState, string, error) {
	data, err := read(path)
	if err != nil {
		return settings.NoServer, "", settingsError(err)
	}
	st, cmd, err := w.Server(data)
	if err != nil {
		var se *settings.Error
		if errors.As(err, &se) {
			se.Path = path
		}
		return st, cmd, settingsError(err)
	}
	return st, cmd, nil
}

// statusLineOf is the status line command the file at path sets, "" for
// none or no file.
func statusLineOf(path string) (string, error) {
	data, err := read(path)
	if err != nil || data == nil {
		return "", err
	}
	cmd, _, err := settings.StatusLine(data)
	var se *settings.Error
	if errors.As(err, &se) {
		se.Path = path
	}
	return cmd, err
}

// hasHooks reports whether the file at path holds cairn's hooks.
func hasHooks(w settings.Wiring, path string) bool {
	data, err := read(path)
	if err != nil || data == nil {
		return false
	}
	hooks, _ := w.Installed(data)
	return len(hooks) > 0
}

// agentCommand is the hook command for another client's event, calling
// exe: "<exe> hook --agent AGENT EVENT".
func agentCommand(exe, agent, event string) string {
	return shell.Quote(exe) + " hook --agent " + agent + " " + event
}

// agentOurs recognises cairn's hook commands for another client: "<…/cairn…>
// hook --agent AGENT EVENT" for an event of events, or exe itself whatever
// its name.
func agentOurs(exe, agent string, events hookevent.Table) func(string) bool {
	return func(command string) bool {
		word, rest := shell.FirstWord(strings.TrimSpace(command))
		f := strings.Fields(rest)
		if len(f) != 4 || f[0] != "hook" || f[1] != "--agent" || f[2] != agent {
			return false
		}
		if _, ok := events.Lookup(f[3]); !ok {
			return false
		}
		return word == exe || strings.HasPrefix(filepath.Base(word), "cairn")
	}
}

// agentWiring is cairn's hooks for another client's events, each with
// the timeout the client's file takes (timeout converts the event's).
func agentWiring(exe, agent string, events hookevent.Table, timeout func(hookevent.Event) int) settings.Wiring {
	var hs []settings.Hook
	for _, ev := range events {
		hs = append(hs, settings.Hook{Event: ev.Name, Command: agentCommand(exe, agent, ev.Name), Timeout: timeout(ev)})
	}
	return settings.Wiring{Hooks: hs, IsOurs: agentOurs(exe, agent, events)}
}

// wireAgent installs w, another client's hooks, into the file at path and
// says what changed.
func (s Setup) wireAgent(w settings.Wiring, path string, user bool, agent string, events hookevent.Table) error {
	res, err := w.InstallFile(path, s.files().journal)
	if err != nil {
		return settingsError(err)
	}
	where := "for this project"
	if user {
		where = "for every project"
	}
	if res.Changed {
		fmt.Fprintf(s.Out, "wired cairn's hooks into %s, %s: %s\n", path, where, strings.Join(events.Names(), ", "))
		fmt.Fprintf(s.Out, "the hooks call %s hook --agent %s\n", s.Exe, agent)
	} else {
		fmt.Fprintf(s.Out, "cairn's hooks are already in %s; nothing changed there\n", path)
	}
	return nil
}
