// Package claudecode is cairn's adapter for Claude Code: everything that is
// Claude Code's and not cairn's own lives here or below. Where Claude Code
// keeps its files and sessions (files.go), the hook events cairn handles with
// their budgets, installed timeouts and order (events.go), the hook protocol's
// payloads and answers (payload.go, answer.go), the slash commands cairn
// installs (commands.go), the plugin (plugin.go) and the editing of its
// settings files (settings/). Two of its parts live where the core reads
// them: the transcript format is internal/transcript's Claude Code decoder,
// and the rules of its context window and auto-compaction are
// internal/meter's Settings (Codex's and Gemini's are meter Rules too).
//
// The core (checkpoints, the restore, pressure, handoffs, knowledge) knows no
// client: it is given sessions and text, and hands text back.
package claudecode
