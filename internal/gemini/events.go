package gemini

import (
	"time"

	"github.com/cairn-agent/cairn/internal/hookevent"
)

// Events are the Gemini CLI hook events cairn handles, in install order:
// the table the hook runner and `cairn install --agent gemini` read. The
// timeouts are in seconds, as in every table; settings.json takes
// milliseconds (TimeoutMillis). Each is well over the budget, so that
// cairn answers before Gemini CLI gives up on it.
//
// SessionStart is left out: its context is prepended to the user's
// prompt, and Gemini CLI drops that prompt from the history on --resume
// (it skips user messages that start with <hook_context>); the session's
// first BeforeAgent brings what it would. AfterAgent is left out: cairn
// has nothing there the model or the user would read.
var Events = hookevent.Table{
	// The restore after a compression, the pointer at a session's first
	// prompt, and the pressure advisories.
	{Name: "BeforeAgent", Budget: 4 * time.Second, Timeout: 10},
	// Advisories between tool calls.
	{Name: "AfterTool", Budget: 2 * time.Second, Timeout: 10},
	// Awaited before every model request: cheap unless the client is
	// about to compress, when it takes the checkpoint.
	{Name: "PreCompress", Budget: 20 * time.Second, Timeout: 60},
	{Name: "SessionEnd", Budget: 4 * time.Second, Timeout: 10},
}

// TimeoutMillis is an event's timeout as settings.json takes it.
func TimeoutMillis(e hookevent.Event) int { return e.Timeout * 1000 }
