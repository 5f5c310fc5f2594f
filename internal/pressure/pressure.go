// Package pressure turns the context meter's reading into levels L0-L3,
// the smoke detector before the fire alarm of a compaction: L1 says finish
// the current task, L2 writes a handoff and a checkpoint, L3 is the
// emergency before auto-compaction.
package pressure

import (
	"fmt"
	"strings"

	"github.com/cairn-agent/cairn/internal/meter"
)

// Base says what the percentages are of.
type Base string

const (
	// OfThreshold measures against the auto-compact threshold: 100% is
	// the moment Claude Code compacts, whatever the window and the
	// overrides. This is the default, because what levels warn about is
	// the compaction, and the window's last ~17% are never usable.
	OfThreshold Base = "threshold"
	// OfWindow measures against the whole context window, as Claude
	// Code's own status line does.
	OfWindow Base = "window"
)

// Config is where the levels start.
type Config struct {
	Base Base
	// Levels are the percentages at which L1, L2 and L3 start.
	Levels [3]float64
}

// Presets are the documented level sets.
var Presets = map[string]Config{
	// Seed 003's Context Checkpoint System: L1 warning, L2 handoff, L3
	// emergency.
	"ccs": {Base: OfThreshold, Levels: [3]float64{70, 85, 95}},
	// Seed 001's advisories: information at 60%, urgent at 75%; L3 kept at
	// 95% so the emergency still comes.
	"advisory": {Base: OfThreshold, Levels: [3]float64{60, 75, 95}},
	// Seed 000's hybrid: checkpoints from 72%.
	"early-checkpoint": {Base: OfThreshold, Levels: [3]float64{72, 85, 95}},
}

// Default is the "ccs" preset.
func Default() Config { return Presets["ccs"] }

// Validate checks that the levels rise and lie in (0, 100].
func (c Config) Validate() error {
	if c.Base != OfThreshold && c.Base != OfWindow {
		return fmt.Errorf("base %q: want %q or %q", c.Base, OfThreshold, OfWindow)
	}
	prev := 0.0
	for i, l := range c.Levels {
		if l <= prev || l > 100 {
			return fmt.Errorf("L%d at %g%%: levels must rise, within (0, 100]", i+1, l)
		}
		prev = l
	}
	return nil
}

// Percent is the reading on the configured base; 0 when the base is
// unknown (no threshold with auto-compaction off falls back to the window).
func (c Config) Percent(r meter.Reading) float64 {
	if c.Base == OfThreshold && r.Threshold > 0 {
		return 100 * float64(r.Tokens) / float64(r.Threshold)
	}
	if r.Window > 0 {
		return 100 * float64(r.Tokens) / float64(r.Window)
	}
	return 0
}

// Level is 0 to 3.
func (c Config) Level(r meter.Reading) int {
	p := c.Percent(r)
	level := 0
	for i, l := range c.Levels {
		if p >= l {
			level = i + 1
		}
	}
	return level
}

// Name is "L0".."L3".
func Name(level int) string { return fmt.Sprintf("L%d", level) }

// ParseLevels reads "L2,L3" style lists.
func ParseLevels(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(strings.ToUpper(f))
		if f == "" || f == "NONE" {
			continue
		}
		if len(f) != 2 || f[0] != 'L' || f[1] < '1' || f[1] > '3' {
			return nil, fmt.Errorf("%q is not a level (L1, L2 or L3)", f)
		}
		out = append(out, int(f[1]-'0'))
	}
	return out, nil
}
