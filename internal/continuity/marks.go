package continuity

import (
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/cairn-agent/cairn/internal/state"
)

// marks is what the hooks remember about a session between processes. It
// is a few bytes in a file of its own, read on every prompt and tool call
// and written only when it changes, so it has a plain line format:
//
//	cairn-marks 1
//	restored c1 c2 d17            compactions restored
//	pending <key> <trigger> <tokens>
//	started <offset>
//	level <announced> <captured>  pressure levels
//	defer <until-turn>
//	checkpoint <turns>            turns when the last checkpoint was taken
//	suggested <turns> <level>     the Stop hook's last suggestion
//
// pending is the compaction PreCompact announced: Claude Code runs
// SessionStart(compact) before it writes the compact_boundary, so the
// restore there cannot find the boundary yet.
type marks struct {
	restored []string
	pending  Detected
	// started is the transcript offset at the last restore made at
	// SessionStart: a repeated SessionStart(compact) with nothing new in
	// the transcript is not a new compaction.
	started int64
	// announced is the level the last advisory named; captured the
	// highest level a checkpoint was taken at. Both fall back when the
	// context falls, which re-arms them.
	announced, captured int
	deferUntil          int
	checkpointTurns     int
	suggestedTurns      int
	suggestedLevel      int
}

const marksMagic = "cairn-marks 1"

func (k *Keeper) marksFile(path string) string { return k.State.File(path) + ".marks" }

func (k *Keeper) loadMarks(path string) marks {
	var m marks
	data, err := os.ReadFile(k.marksFile(path))
	if err != nil {
		return m
	}
	lines := strings.Split(string(data), "\n")
	if len(lines) == 0 || lines[0] != marksMagic {
		return m
	}
	num := func(s string) int { n, _ := strconv.Atoi(s); return n }
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		switch {
		case f[0] == "restored":
			m.restored = append(m.restored, f[1:]...)
		case f[0] == "started" && len(f) == 2:
			m.started, _ = strconv.ParseInt(f[1], 10, 64)
		case f[0] == "pending" && len(f) == 4:
			m.pending.Key, m.pending.Trigger = f[1], f[2]
			m.pending.PreTokens, _ = strconv.ParseInt(f[3], 10, 64)
		case f[0] == "level" && len(f) == 3:
			m.announced, m.captured = num(f[1]), num(f[2])
		case f[0] == "defer" && len(f) == 2:
			m.deferUntil = num(f[1])
		case f[0] == "checkpoint" && len(f) == 2:
			m.checkpointTurns = num(f[1])
		case f[0] == "suggested" && len(f) == 3:
			m.suggestedTurns, m.suggestedLevel = num(f[1]), num(f[2])
		}
	}
	return m
}

func (m marks) encode() string {
	var b strings.Builder
	b.WriteString(marksMagic + "\n")
	if len(m.restored) > 0 {
		b.WriteString("restored " + strings.Join(m.restored, " ") + "\n")
	}
	if m.started > 0 {
		b.WriteString("started " + strconv.FormatInt(m.started, 10) + "\n")
	}
	if m.pending.Key != "" {
		b.WriteString("pending " + m.pending.Key + " " + orDash(m.pending.Trigger) + " " + strconv.FormatInt(m.pending.PreTokens, 10) + "\n")
	}
	if m.announced != 0 || m.captured != 0 {
		b.WriteString("level " + strconv.Itoa(m.announced) + " " + strconv.Itoa(m.captured) + "\n")
	}
	if m.deferUntil != 0 {
		b.WriteString("defer " + strconv.Itoa(m.deferUntil) + "\n")
	}
	if m.checkpointTurns != 0 {
		b.WriteString("checkpoint " + strconv.Itoa(m.checkpointTurns) + "\n")
	}
	if m.suggestedTurns != 0 || m.suggestedLevel != 0 {
		b.WriteString("suggested " + strconv.Itoa(m.suggestedTurns) + " " + strconv.Itoa(m.suggestedLevel) + "\n")
	}
	return b.String()
}

func (k *Keeper) saveMarks(path string, m marks) error {
	if err := os.MkdirAll(k.State.Dir+"/sessions", 0o700); err != nil {
		return err
	}
	return state.WriteAtomic(k.marksFile(path), []byte(m.encode()), false)
}

func (m marks) wasRestored(key string) bool { return slices.Contains(m.restored, key) }

func orDash(s string) string {
	if s == "" || strings.ContainsAny(s, " \n") {
		return "-"
	}
	return s
}
