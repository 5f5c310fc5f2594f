package state

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Marks is what the hooks remember about a session between processes. It
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
type Marks struct {
	// Announced is the level the last advisory named; Captured the
	// highest level a checkpoint was taken at. Both fall back when the
	// context falls, which re-arms them.
	Announced, Captured int
	// DeferUntil is the turn the snoozed advisories come back at.
	DeferUntil int
	// CheckpointTurns is how many turns the session had at its last
	// checkpoint.
	CheckpointTurns int
	// SuggestedTurns and SuggestedLevel are the Stop hook's last
	// suggestion.
	SuggestedTurns, SuggestedLevel int
}

const marksMagic = "cairn-marks 1"

func (st Store) marksFile(path string) string { return st.File(path) + ".marks" }

// Marks reads the session's marks; none yet is the zero Marks.
func (st Store) Marks(path string) Marks {
	var m Marks
	data, err := ReadFile(st.marksFile(path))
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
			m.Announced, m.Captured = num(f[1]), num(f[2])
		case f[0] == "defer" && len(f) == 2:
			m.DeferUntil = num(f[1])
		case f[0] == "checkpoint" && len(f) == 2:
			m.CheckpointTurns = num(f[1])
		case f[0] == "suggested" && len(f) == 3:
			m.SuggestedTurns, m.SuggestedLevel = num(f[1]), num(f[2])
		}
	}
	return m
}

func (m Marks) encode() string {
	var b strings.Builder
	b.WriteString(marksMagic + "\n")
	if m.Announced != 0 || m.Captured != 0 {
		b.WriteString("level " + strconv.Itoa(m.Announced) + " " + strconv.Itoa(m.Captured) + "\n")
	}
	if m.DeferUntil != 0 {
		b.WriteString("defer " + strconv.Itoa(m.DeferUntil) + "\n")
	}
	if m.CheckpointTurns != 0 {
		b.WriteString("checkpoint " + strconv.Itoa(m.CheckpointTurns) + "\n")
	}
	if m.SuggestedTurns != 0 || m.SuggestedLevel != 0 {
		b.WriteString("suggested " + strconv.Itoa(m.SuggestedTurns) + " " + strconv.Itoa(m.SuggestedLevel) + "\n")
	}
	return b.String()
}

// SaveMarks writes the session's marks.
func (st Store) SaveMarks(path string, m Marks) error {
	if err := os.MkdirAll(filepath.Join(st.Dir, "sessions"), 0o700); err != nil {
		return err
	}
	return WriteAtomic(st.marksFile(path), []byte(m.encode()), false)
}
