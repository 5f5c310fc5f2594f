// Package claudecode is cairn's adapter for Claude Code: everything that is
// Claude Code's and not cairn's own lives here or below. Where Claude Code
// keeps its files and sessions (files.go), the hook events cairn handles with
// their budgets, installed timeouts and order (events.go), the hook protocol's
// payloads and answers (payload.go, answer.go), the slash commands cairn
// installs (commands.go), the meter's rules for its context window and
// auto-compaction (meter.go), and the editing of its settings files
// (settings/). The transcript format is read by internal/transcript.
//
// The core (checkpoints, the restore, pressure, handoffs, knowledge) knows no
// client: it is given sessions and text, and hands text back.
package claudecode
