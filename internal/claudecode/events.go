package claudecode

import "time"

// Event is a Claude Code hook event cairn handles: the one table that the
// hook runner, `cairn install` and `cairn doctor` read.
type Event struct {
	Name string
	// Budget is how long cairn's handler may take. A hook that runs out
	// of it answers nothing and logs why.
	Budget time.Duration
	// Timeout is what `cairn install` sets as Claude Code's timeout for
	// the hook, in seconds: at least twice the budget and 3 s more, so
	// that cairn always answers before the client gives up on it (a 50 MB
	// PostToolUse payload must still be read), whatever the load.
	Timeout int
}

// Events are the events cairn handles, in the order `cairn install` adds
// them: as a person reads them.
var Events = []Event{
	{"SessionStart", 8 * time.Second, 20},
	{"UserPromptSubmit", 4 * time.Second, 10},
	{"PostToolUse", 2 * time.Second, 10}, // plus reading payloads of many MB
	{"Stop", 2 * time.Second, 10},
	{"PreCompact", 20 * time.Second, 60},
	{"PostCompact", 4 * time.Second, 10},
	// SessionEnd hooks share about 1.5 s in all, whatever the timeout.
	{"SessionEnd", 1200 * time.Millisecond, 5},
}

// Lookup finds an event cairn handles by name.
func Lookup(name string) (Event, bool) {
	for _, e := range Events {
		if e.Name == name {
			return e, true
		}
	}
	return Event{}, false
}

// EventNames are the events' names in install order.
func EventNames() []string {
	names := make([]string, len(Events))
	for i, e := range Events {
		names[i] = e.Name
	}
	return names
}
