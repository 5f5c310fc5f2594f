package gemini

import "time"

// Event is a Gemini CLI hook event cairn handles: the table the hook
// runner and `cairn install --agent gemini` read.
type Event struct {
	Name string
	// Budget is how long cairn's handler may take.
	Budget time.Duration
	// Timeout is the hook's timeout in settings.json, in milliseconds
	// (Gemini CLI's unit): well over the budget, so that cairn answers
	// before Gemini CLI gives up on it.
	Timeout int
}

// Events are the events cairn handles, in install order. SessionStart is
// left out: its context is prepended to the user's prompt, and Gemini CLI
// drops that prompt from the history on --resume (it skips user messages
// that start with <hook_context>). AfterAgent is left out: cairn has
// nothing there the model or the user would read.
var Events = []Event{
	// The restore after a compression, and the pressure advisories.
	{"BeforeAgent", 4 * time.Second, 10_000},
	// Advisories between tool calls.
	{"AfterTool", 2 * time.Second, 10_000},
	// Awaited before every model request: cheap unless the client is
	// about to compress, when it takes the checkpoint.
	{"PreCompress", 20 * time.Second, 60_000},
	{"SessionEnd", 4 * time.Second, 10_000},
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
