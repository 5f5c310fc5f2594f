package continuity

import (
	"os"
	"strconv"
	"strings"

	"github.com/cairn-agent/cairn/internal/state"
)

// marks is what the hooks remember about a session between processes. It
// is a few bytes in a file of its own, read on every prompt and tool call
// and written only when it changes, so it has a plain line format:
//
//	cairn-marks 1
//	level <announced> <captured>  pressure levels
//	defer <until-turn>
//	checkpoint <turns>            turns when the last checkpoint was taken
//	suggested <turns> <level>     the Stop hook's last suggestion
//
// What was restored, and what PreCompact announced, live in files of their
// own (delivery.go): they must not be lost to two hooks writing marks at
// once.
type marks struct {
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
