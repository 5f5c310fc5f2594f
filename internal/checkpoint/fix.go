package checkpoint

import (
	"slices"
	"strings"
	"time"

	"github.com/cairn-agent/cairn/internal/text"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// Fix is a failure of the session and what fixed it, read from the order
// of its tool calls: the files changed after the failure and before the
// same work was next tried without failing the same way, and the call
// that then did the work (a command that passed by its own output, an
// edit that went through). A failure whose next attempt failed another
// way has its Files but no Passed until a later attempt succeeds.
type Fix struct {
	Error Error     `json:"error"`
	Time  time.Time `json:"time"`
	// Files are the paths changed between the failure and the attempt
	// that no longer failed the same way, relative to the session's
	// directory, in order of first change; none when every later attempt
	// failed the same way.
	Files []string `json:"files,omitempty"`
	// Passed is the command (or, for another tool, its path) that then
	// succeeded; "" when nothing did yet (Error.Resolved is false).
	Passed   string    `json:"passed,omitempty"`
	PassedAt time.Time `json:"passed_at,omitzero"`
}

// maxFixFiles bounds the files a fix names: a failure followed by a
// rewrite of half the project says nothing useful about what fixed it.
const maxFixFiles = 8

// Fixes finds the session's failures (main chain, as Build's Errors) and
// what fixed them, oldest first, each string passed through redact (nil
// keeps them). The same failure repeated before its fix is one Fix, with
// Error.Times counting the repeats.
func Fixes(s *transcript.Session, redact func(string) string) []Fix {
	if redact == nil {
		redact = func(s string) string { return s }
	}
	base := s.CWD
	rel := func(p string) string {
		if base != "" && strings.HasPrefix(p, base+"/") {
			return p[len(base)+1:]
		}
		return p
	}
	calls := s.ToolCalls
	var out []Fix
	works := &Memo{}
	for i, tc := range calls {
		if tc.Sidechain || !failed(tc) {
			continue
		}
		subject := tc.FilePath
		if tc.Name == "Bash" {
			subject = tc.Command
		}
		f := Fix{Time: tc.Time, Error: Error{Tool: tc.Name, Subject: clip(redact(subject)), Message: text.Clip(redact(errorMessage(tc)), 400)}}
		// The fix is what changed until the same work was tried again and
		// did not fail with the same message; the work is done when a
		// later attempt succeeds, perhaps after other failures.
		movedOn := false
		for _, later := range calls[i+1:] {
			if later.Sidechain {
				continue
			}
			if sameWork(tc, later, works) && later.Done {
				if succeeded(later) {
					if changes(later) && !movedOn && !slices.Contains(f.Files, redact(rel(later.FilePath))) {
						f.Files = append(f.Files, redact(rel(later.FilePath))) // the edit that went through
					}
					f.Error.Resolved = true
					f.Passed = clip(redact(workOf(later)))
					f.PassedAt = later.Time
					break
				}
				if failed(later) && errorMessage(later) != errorMessage(tc) {
					movedOn = true // failing another way: what came before fixed this one
				}
			}
			if !movedOn && changes(later) && later.FilePath != "" {
				p := redact(rel(later.FilePath))
				if !slices.Contains(f.Files, p) && len(f.Files) < maxFixFiles {
					f.Files = append(f.Files, p)
				}
			}
		}
		if !f.Error.Resolved && !movedOn {
			f.Files = nil // changes that fixed nothing yet are not its fix
		}
		// The same failure again before the same fix (a rerun): one,
		// counted.
		if j := slices.IndexFunc(out, func(o Fix) bool {
			return o.Error.Tool == f.Error.Tool && o.Error.Subject == f.Error.Subject && o.Error.Message == f.Error.Message &&
				o.Passed == f.Passed && o.PassedAt.Equal(f.PassedAt)
		}); j >= 0 {
			f.Error.Times = out[j].Error.Times + 1
			f.Time = out[j].Time
			for _, p := range f.Files {
				if !slices.Contains(out[j].Files, p) {
					out[j].Files = append(out[j].Files, p)
				}
			}
			f.Files = out[j].Files
			out = slices.Delete(out, j, j+1)
		}
		out = append(out, f)
	}
	return out
}

// changes says whether a call changed a file: an edit or a write that went
// through.
func changes(tc transcript.ToolCall) bool {
	switch tc.Name {
	case "Edit", "MultiEdit", "Write", "NotebookEdit":
		return tc.Done && !tc.IsError
	}
	return false
}

func workOf(tc transcript.ToolCall) string {
	if tc.Name == "Bash" {
		return tc.Command
	}
	if tc.FilePath != "" {
		return tc.Name + " " + tc.FilePath
	}
	return tc.Name
}
