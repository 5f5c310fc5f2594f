package meter

import (
	"math"
	"strings"

	"github.com/cairn-agent/cairn/internal/transcript"
)

// Codex CLI's arithmetic (codex-rs ModelInfo; observed on 0.169.0 against
// a fake API): it works with 95% of the model's window, and that figure
// is what the rollout records (model_context_window 200000 in config.toml
// is 190000 in task_started). It compacts before a request when the
// context it counts, the latest response's total_tokens (input and
// output), has reached the auto-compact limit: model_auto_compact_token_limit,
// never above 90% of the whole window, and 90% when unset.
const (
	CodexWindowPercent  = 95
	CodexLimitPercent   = 90
	CodexDefaultWindow  = 272_000 // the GPT-5 family's, when nothing says
	GeminiDefaultWindow = 1_048_576
	// GeminiDefaultThreshold is model.compressionThreshold's default.
	GeminiDefaultThreshold = 0.5
)

// CodexRules are Codex CLI's rules. The zero value reads everything from
// the rollout and assumes no limit was configured.
type CodexRules struct {
	// Window overrides the window (cairn's --window, CAIRN_CONTEXT_WINDOW).
	Window int64
	// ConfigWindow is config.toml's model_context_window, the whole
	// window before Codex's reserve; 0 when unset.
	ConfigWindow int64
	// AutoCompactLimit is config.toml's model_auto_compact_token_limit,
	// 0 when unset.
	AutoCompactLimit int64
	// Disabled says cairn was told the client will not compact.
	Disabled bool
}

var _ Rules = CodexRules{}

// ContextWindow is the window Codex works with: the override, the
// rollout's model_context_window, 95% of the configured window, or of
// the GPT-5 family's.
func (c CodexRules) ContextWindow(s *transcript.Session) (int64, string) {
	switch {
	case c.Window > 0:
		return c.Window, "override"
	case s.ContextWindow > 0:
		return s.ContextWindow, "transcript"
	case c.ConfigWindow > 0:
		return c.ConfigWindow * CodexWindowPercent / 100, "config"
	}
	return CodexDefaultWindow * CodexWindowPercent / 100, "default"
}

// CompactAt is the auto-compact limit: the configured one, never above
// 90% of the whole window (the one before the 95% reserve).
func (c CodexRules) CompactAt(window int64) int64 {
	if c.Disabled || window <= 0 {
		return 0
	}
	whole := c.ConfigWindow
	if whole <= 0 || c.Window > 0 {
		whole = window * 100 / CodexWindowPercent
	}
	limit := whole * CodexLimitPercent / 100
	if c.AutoCompactLimit > 0 && c.AutoCompactLimit < limit {
		limit = c.AutoCompactLimit
	}
	return limit
}

// Compacts is true unless cairn was told otherwise.
func (c CodexRules) Compacts() bool { return !c.Disabled }

// GeminiRules are Gemini CLI's (ChatCompressionService, 0.61.0): before a
// request it compresses the history when the latest prompt token count
// has reached model.compressionThreshold (default 0.5) of the model's
// token limit.
type GeminiRules struct {
	// Window overrides the window (cairn's --window, CAIRN_CONTEXT_WINDOW).
	Window int64
	// Threshold is settings.json's model.compressionThreshold, 0 when
	// unset.
	Threshold float64
}

var _ Rules = GeminiRules{}

// ContextWindow is the model's token limit.
func (g GeminiRules) ContextWindow(s *transcript.Session) (int64, string) {
	if g.Window > 0 {
		return g.Window, "override"
	}
	if w := GeminiModelWindow(s.Model); w > 0 {
		return w, "model"
	}
	return GeminiDefaultWindow, "default"
}

// CompactAt is the least whole count at or over the threshold's share
// of the window: Gemini CLI compresses when count >= threshold × limit.
func (g GeminiRules) CompactAt(window int64) int64 {
	if window <= 0 {
		return 0
	}
	t := g.Threshold
	if t <= 0 {
		t = GeminiDefaultThreshold
	}
	return int64(math.Ceil(t * float64(window)))
}

// Compacts is always true: Gemini CLI has no setting that stops it.
func (g GeminiRules) Compacts() bool { return true }

// GeminiModelWindow is the token limit Gemini CLI gives a model, 0 for
// one it gives the default (1,048,576) without naming it.
func GeminiModelWindow(model string) int64 {
	m := strings.ToLower(model)
	switch {
	case strings.HasPrefix(m, "gemini-1.5-pro"):
		return 2_097_152
	case strings.HasPrefix(m, "gemini-2.5-"), strings.HasPrefix(m, "gemini-2.0-flash"), strings.HasPrefix(m, "gemini-1.5-flash"):
		return GeminiDefaultWindow
	}
	return 0
}
