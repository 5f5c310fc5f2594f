// Package hookevent is the shape of a client's table of hook events:
// which events cairn handles for that client, how long its handler may
// take at each, and the timeout `cairn install` writes for it. Each
// client's adapter (internal/claudecode, internal/codex) holds one Table;
// the hook runner, install and doctor read it.
package hookevent

import "time"

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
