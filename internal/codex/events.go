package codex

import "time"

// Event is a Codex hook event cairn handles: the table the hook runner
// and `cairn install --agent codex` read.
type Event struct {
	Name string
	// Budget is how long cairn's handler may take.
	Budget time.Duration
	// Timeout is the hook's timeout in hooks.json, in seconds: at least
	// twice the budget and more, so that cairn answers before Codex
	// gives up on it.
	Timeout int
}

// Events are the events cairn handles, in install order. Stop is left
// out: Codex rejects the only answer cairn gives there (a message for
// the user) as "invalid stop hook JSON output".
var Events = []Event{
	{"SessionStart", 8 * time.Second, 20},
	{"UserPromptSubmit", 4 * time.Second, 10},
	{"PostToolUse", 2 * time.Second, 10},
	// PreCompact's output never reaches the model: the hook only takes
	// the checkpoint the restore needs.
	{"PreCompact", 20 * time.Second, 60},
	{"PostCompact", 4 * time.Second, 10},
	// Codex clamps SessionEnd hooks to 3 s whatever the timeout says.
	{"SessionEnd", 1200 * time.Millisecond, 3},
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
