// Package hookevent is the shape of a client's table of hook events:
// which events cairn handles for that client, how long its handler may
// take at each, and the timeout `cairn install` writes for it. Each
// client's adapter (internal/claudecode, internal/codex) holds one Table;
// the hook runner, install and doctor read it.
package hookevent

import (
	"slices"
	"strings"
	"time"
)

// Event is one hook event cairn handles.
type Event struct {
	Name string
	// Budget is how long cairn's handler may take. A hook that runs out
	// of it answers nothing and logs why.
	Budget time.Duration
	// Timeout is the hook's timeout as installed in the client's
	// configuration, in seconds: enough over the budget that cairn
	// answers before the client gives up on it (each table says how
	// much).
	Timeout int
	// OneCPU is an event whose hook runs with one CPU: its command line
	// starts with OneCPUEnv (Env). A hook that reads what a turn appended
	// does a few milliseconds of work, and the Go runtime's second CPU
	// costs it more than it gives (a thread woken for each hand-off between
	// goroutines); the runtime reads GOMAXPROCS before any of cairn's code
	// runs, so only the command line can set it (docs/benchmarks.md,
	// issue 15, perf/hot9).
	OneCPU bool
}

// OneCPUEnv is the environment a OneCPU event's command line sets.
const OneCPUEnv = "GOMAXPROCS=1"

// Env is what the event's hook command line starts with: OneCPUEnv and a
// space for a OneCPU event, "" for the others.
func (e Event) Env() string {
	if e.OneCPU {
		return OneCPUEnv + " "
	}
	return ""
}

// TrimEnv is command without the OneCPUEnv it may start with (Env), and
// without surrounding white space: the rest is the program and its
// arguments, which recognising a hook command of cairn's looks at.
func TrimEnv(command string) string {
	c := strings.TrimSpace(command)
	if rest, ok := strings.CutPrefix(c, OneCPUEnv); ok && rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
		return strings.TrimSpace(rest)
	}
	return c
}

// WithoutOneCPU is the environment for what a process started with
// OneCPUEnv starts in turn (a job, a chained status line command): nil,
// which inherits environ, when environ does not hold OneCPUEnv; else a
// copy without it, since the variable was meant for the process its
// command line started alone.
func WithoutOneCPU(environ []string) []string {
	if !slices.Contains(environ, OneCPUEnv) {
		return nil
	}
	return slices.DeleteFunc(slices.Clone(environ), func(kv string) bool { return kv == OneCPUEnv })
}

// Table is a client's events, in the order `cairn install` adds them.
type Table []Event

// Lookup finds an event by name.
func (t Table) Lookup(name string) (Event, bool) {
	for _, e := range t {
		if e.Name == name {
			return e, true
		}
	}
	return Event{}, false
}

// Names are the events' names, in order.
func (t Table) Names() []string {
	names := make([]string, len(t))
	for i, e := range t {
		names[i] = e.Name
	}
	return names
}
