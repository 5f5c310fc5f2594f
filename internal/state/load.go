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
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return transcript.New(path), nil
	}
	if !full {
		if h := st.LoadHeader(path); h != nil {
			saved, comps := h.Offset, len(h.Compactions)
			// The light session keeps no ledger and no command outcomes:
			// the hot hooks skip working them out.
			light := transcript.Parser{Light: true}
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
