package claudecode

import (
	"time"

	"github.com/cairn-agent/cairn/internal/hookevent"
)

// Events are the Claude Code hook events cairn handles, in the order
// `cairn install` adds them (as a person reads them): the one table that
// the hook runner, `cairn install` and `cairn doctor` read. Each installed
// timeout is at least twice the budget and 3 s more, so that cairn always
// answers before the client gives up on it (a 50 MB PostToolUse payload
// must still be read), whatever the load. The hooks of every turn
// (UserPromptSubmit, PostToolUse) run with one CPU (hookevent.Event.OneCPU).
var Events = hookevent.Table{
	{Name: "SessionStart", Budget: 8 * time.Second, Timeout: 20},
	{Name: "UserPromptSubmit", Budget: 4 * time.Second, Timeout: 10, OneCPU: true},
	{Name: "PostToolUse", Budget: 2 * time.Second, Timeout: 10, OneCPU: true}, // plus reading payloads of many MB
	{Name: "Stop", Budget: 2 * time.Second, Timeout: 10},
	{Name: "PreCompact", Budget: 20 * time.Second, Timeout: 60},
	{Name: "PostCompact", Budget: 4 * time.Second, Timeout: 10},
	// SessionEnd hooks share about 1.5 s in all, whatever the timeout.
	{Name: "SessionEnd", Budget: 1200 * time.Millisecond, Timeout: 5},
}
