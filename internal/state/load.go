package state

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/cairn-agent/cairn/internal/transcript"
)

// headSaveEvery is how many appended bytes the light load reads again
// rather than write the head after every hook.
const headSaveEvery = 64 << 10

// Session brings the session of the transcript at path up to date from its
// saved state and returns it. With full unset it works on the light
// session of the head (recent turns, compactions, the first prompt; no tool
// calls, files, ledger or subagents), reading only what was appended since
// the head was written: the hooks that run on every prompt and tool call
// need no more. With full, the whole session, subagents included, for a
// checkpoint or a report.
//
// A transcript that does not exist yet is an empty session: Claude Code
// writes it after the first prompt's hook has run. A read that fails is
// "read transcript: ..." wrapping the file system's error.
func (st Store) Session(path string, full bool) (*transcript.Session, error) {
	return st.session(path, full, true)
}

// Bare is the light Session without the latest texts (LastTexts may
// be empty or stale): what the hooks on every prompt and tool call read,
// the meter's inputs and the compactions, without cleaning texts they do
// not look at.
func (st Store) Bare(path string) (*transcript.Session, error) {
	return st.session(path, false, false)
}

func (st Store) session(path string, full, texts bool) (*transcript.Session, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return transcript.New(path), nil
	}
	if !full {
		if h := st.LoadHeader(path); h != nil {
			saved, comps := h.Offset, len(h.Compactions)
			// The light session keeps no ledger and no command outcomes:
			// the hot hooks skip working them out.
			light := transcript.Parser{Light: true, NoTexts: !texts}
			res, err := h.Update(&light)
			if err != nil {
				return nil, fmt.Errorf("read transcript: %w", err)
			}
			// Writing the head costs more than reading a few turns again:
			// it is written once enough has piled up, when a compaction
			// appeared, or when the file was replaced (h then holds a
			// light cold read, and the body, which no longer matches, is
			// rebuilt when next needed).
			if res.Rebuilt || h.Offset-saved >= headSaveEvery || len(h.Compactions) != comps {
				st.saved(st.SaveHead(h))
			}
			return h, nil
		}
		if s, ok, err := st.coldHead(path, texts); ok || err != nil {
			return s, err
		}
	}
	var p transcript.Parser
	s := st.LoadBody(path)
	if s == nil {
		s = transcript.New(path)
	}
	res, err := s.Update(&p)
	if err != nil {
		return nil, fmt.Errorf("read transcript: %w", err)
	}
	changed := res.Read > 0 || res.Rebuilt
	if full {
		before := subagentOffsets(s)
		if err := s.UpdateSubagents(&p); err != nil {
			st.warn(err)
		}
		changed = changed || subagentOffsets(s) != before
	}
	if changed || st.LoadHeader(path) == nil {
		st.saved(st.Save(s))
	}
	return s, nil
}

// headOnlyMin is the size from which a light load without any saved state
// may read only what the head keeps (Store.ColdHead). Below it the whole
// session is read and saved, so that a later full load (a checkpoint)
// goes on from there; a session starts small, so that is the usual way. A
// large transcript without state (cairn installed mid-session, its state
// removed or of an older version) is then read in full only when
// something needs all of it: `cairn status` needs the head, which reads
// it with a third of the CPU (docs/benchmarks.md, issue 15).
const headOnlyMin = 32 << 20

// coldHead is the light load of a large transcript without saved state,
// with ColdHead: it reads the head's part of the session, saves the head
// (no body) and returns the light session a later load would, with the
// latest texts when texts is set. It declines (false) without ColdHead,
// for a smaller transcript, one with a body saved, or another client's.
func (st Store) coldHead(path string, texts bool) (*transcript.Session, bool, error) {
	if !st.ColdHead {
		return nil, false, nil
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Size() < headOnlyMin {
		return nil, false, nil
	}
	if _, err := os.Stat(st.bodyFile(path)); !errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	s := transcript.New(path)
	p := transcript.Parser{Head: true, NoTexts: !texts}
	if _, err := s.Update(&p); err != nil {
		return nil, true, fmt.Errorf("read transcript: %w", err)
	}
	if !p.HeadOnly(s) {
		// Another client's transcript, read in full.
		st.saved(st.Save(s))
		return s, true, nil
	}
	st.saved(st.SaveHead(s))
	// The latest texts too, as a light load finds them in what was
	// appended.
	l := Lite(s)
	if texts {
		l.LastTexts = s.LastTexts
	}
	return l, true, nil
}

func (st Store) warn(err error) {
	if st.Warn != nil {
		st.Warn(err)
	}
}

// saved reports a state that could not be written: the answer stands.
func (st Store) saved(err error) {
	if err != nil {
		st.warn(fmt.Errorf("could not save state (%w); the next run reads the transcript again", err))
	}
}

func subagentOffsets(s *transcript.Session) int64 {
	var n int64
	for _, a := range s.Subagents {
		n += a.Session.Offset + 1
	}
	return n
}
