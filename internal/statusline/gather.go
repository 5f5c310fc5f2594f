package statusline

import (
	"math"
	"os"
	"time"

	"github.com/cairn-agent/cairn/internal/meter"
	"github.com/cairn-agent/cairn/internal/pressure"
	"github.com/cairn-agent/cairn/internal/state"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// Sources are what the line reads besides its payload.
type Sources struct {
	// StateDir is cairn's state directory: the hooks' heads and the
	// markers. With none, only the payload's figures are shown.
	StateDir string
	// Settings are the meter's, from the environment; the payload's window
	// is added as StatusLineWindow.
	Settings meter.Settings
	// Pressure is the project's level configuration.
	Pressure pressure.Config
	Now      time.Time
	Color    bool
}

// Gather builds the line's input. The context comes from the payload's own
// usage when it has some; before the first reply and after /compact it has
// none, and the context comes from the head cairn's hooks keep of the
// transcript. The ticket and the checkpoint come from the project's marker.
func Gather(p Payload, project string, src Sources) Input {
	set := src.Settings
	set.StatusLineWindow = p.Window
	in := Input{Pressure: src.Pressure, Now: src.Now, Color: src.Color}
	switch {
	case p.Tokens > 0:
		in.Reading = payloadReading(p, set)
	case src.StateDir != "":
		in.Reading = stateReading(src.StateDir, p.TranscriptPath, set)
	}
	if src.StateDir == "" {
		return in
	}
	if c, ok := LastCheckpoint(src.StateDir, project); ok {
		in.Ticket, in.CheckpointAt = c.Ticket, c.At
	}
	return in
}

// payloadReading is the meter's reading of the payload's figures: the
// window as meter.Window decides it (an override still wins over the status
// line's), the threshold from it.
func payloadReading(p Payload, set meter.Settings) meter.Reading {
	r := meter.Reading{Tokens: p.Tokens, Source: "statusline", AutoCompact: !set.Disabled}
	r.Window, r.WindowSource = meter.Window(&transcript.Session{Model: p.Model}, set)
	r.Threshold = meter.Threshold(r.Window, set)
	if r.Window > 0 {
		r.PctWindow = round1(100 * float64(r.Tokens) / float64(r.Window))
	}
	if r.Threshold > 0 {
		r.PctThreshold = round1(100 * float64(r.Tokens) / float64(r.Threshold))
	}
	return r
}

func round1(f float64) float64 { return math.Round(f*10) / 10 }

// maxFold is the most transcript the status line reads itself: what was
// appended since the hooks last wrote the head (they write it once 64 KiB
// have piled up, and when a compaction appears), or a whole transcript that
// has no head yet. Folding that much costs well under a millisecond; more
// is left to the hooks, and the head's reading stands.
const maxFold = 256 << 10

// stateReading reads the context from the head of the transcript at path,
// brought up to date when little was appended since. It never writes the
// state: that stays the hooks' job. The reading's Source is "none" when
// nothing is known.
func stateReading(stateDir, path string, set meter.Settings) meter.Reading {
	none := meter.Reading{Source: "none"}
	if path == "" {
		return none
	}
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return none
	}
	s := state.Store{Dir: stateDir}.LoadHeader(path)
	if s != nil && !sameFile(s, path, fi.Size()) {
		s = nil
	}
	if s == nil {
		if fi.Size() > maxFold {
			return none
		}
		s = transcript.New(path)
	}
	if grown := fi.Size() - s.Offset; grown > 0 && grown <= maxFold {
		p := transcript.Parser{Light: true}
		if _, err := s.Update(&p); err != nil {
			return none
		}
	}
	r, _ := meter.Measure(s, set)
	return r
}

// sameFile reports whether the transcript still ends, at the head's offset,
// with the bytes the head last read there: a cheap version of the engine's
// own check, so that a replaced file is never read whole from here.
func sameFile(s *transcript.Session, path string, size int64) bool {
	if size < s.Offset {
		return false
	}
	if s.Offset == 0 {
		return true
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	return s.TailMatches(f)
}
