// Package codex is cairn's adapter for Codex CLI (0.169.0): the hook
// events cairn handles and their budgets, the payload Codex writes on a
// hook's stdin, the answers it reads back, the meter's rules from its
// config.toml, and the trust entries its hooks need. The facts are the
// ones observed on the real client (shared/agents-codex-gemini.md); the
// rollout format itself is read by internal/transcript.
//
// What differs from Claude Code, and why cairn does less here: Codex
// shows the model nothing a PreCompact hook prints (no steering of the
// summary), gives PreCompact and PostCompact no summary nor token counts,
// rejects hookSpecificOutput from Stop, and clamps SessionEnd hooks to
// 3 s. It fires SessionStart with source "compact" after every
// compaction, and its additionalContext reaches the model as a developer
// message: that is where the restore goes.
package codex
