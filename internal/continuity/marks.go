package continuity

import (
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/cairn-agent/cairn/internal/state"
)

// marks is what the hooks remember about a session between processes:
// which compactions were restored, and the one PreCompact announced. It is
// a few bytes in a file of its own, read on every prompt and written only
// when it changes, so it has a plain line format:
//
//	cairn-marks 1
//	restored c1 c2 d17
//	pending <key> <trigger> <tokens>
//	started <offset>
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
	for _, l := range lines[1:] {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "restored":
			m.restored = append(m.restored, f[1:]...)
		case "started":
			if len(f) == 2 {
				m.started, _ = strconv.ParseInt(f[1], 10, 64)
			}
		case "pending":
			if len(f) == 4 {
				m.pending.Key, m.pending.Trigger = f[1], f[2]
				m.pending.PreTokens, _ = strconv.ParseInt(f[3], 10, 64)
			}
		}
	}
	return m
}

func (k *Keeper) saveMarks(path string, m marks) error {
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
	if err := os.MkdirAll(k.State.Dir+"/sessions", 0o700); err != nil {
		return err
	}
	return state.WriteAtomic(k.marksFile(path), []byte(b.String()), false)
}

func (m marks) wasRestored(key string) bool { return slices.Contains(m.restored, key) }

func orDash(s string) string {
	if s == "" || strings.ContainsAny(s, " \n") {
		return "-"
	}
	return s
}
