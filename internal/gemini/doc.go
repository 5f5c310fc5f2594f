// Package gemini is cairn's adapter for Gemini CLI (0.61.0): the hook
// events cairn handles and their budgets, the payload Gemini CLI writes
// on a hook's stdin, the answers it reads back, and the meter's rules
// from its settings.json. The facts are the ones observed on the real
// client (shared/agents-codex-gemini.md); the chat file itself is read by
// internal/transcript.
//
// What differs from Claude Code and Codex, and why cairn does what it
// does here: Gemini CLI fires no event after a compression (no
// PostCompress, no SessionStart), and fires PreCompress before every
// model request whether it compresses or not, with no token counts, and
// ignores its output (the summariser cannot be steered). So the
// compression is found in the chat file (its <state_snapshot> message)
// by the next BeforeAgent, which delivers the restore as its
// additionalContext; PreCompress takes the checkpoint only when the
// client is about to compress. SessionStart's additionalContext is
// prepended to the user's prompt, and on --resume Gemini CLI drops user
// messages that start with <hook_context>, the prompt with them: cairn
// says nothing there.
package gemini
