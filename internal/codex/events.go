package codex

import (
	"time"

	"github.com/cairn-agent/cairn/internal/hookevent"
)

// Events are the Codex hook events cairn handles, in install order: the
// table the hook runner, `cairn install --agent codex` and `cairn doctor`
// read. Each timeout in hooks.json is at least twice the budget, so that
// cairn answers before Codex gives up on it. Stop is left out: Codex
// rejects the only answer cairn gives there (a message for the user) as
// "invalid stop hook JSON output".
var Events = hookevent.Table{
	{Name: "SessionStart", Budget: 8 * time.Second, Timeout: 20},
	{Name: "UserPromptSubmit", Budget: 4 * time.Second, Timeout: 10},
	{Name: "PostToolUse", Budget: 2 * time.Second, Timeout: 10},
	// PreCompact's output never reaches the model: the hook only takes
	// the checkpoint the restore needs.
	{Name: "PreCompact", Budget: 20 * time.Second, Timeout: 60},
	{Name: "PostCompact", Budget: 4 * time.Second, Timeout: 10},
	// Codex clamps SessionEnd hooks to 3 s whatever the timeout says.
	{Name: "SessionEnd", Budget: 1200 * time.Millisecond, Timeout: 3},
}
