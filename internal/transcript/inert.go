package transcript

import (
	"bytes"
	"io"
	"os"
	"syscall"
)

// maxInertTail bounds the bytes InertTail reads: a longer tail is not
// looked at (a build is due anyway).
const maxInertTail = 4 << 20

// InertTail says whether the Claude Code transcript read by prev (its
// Path, and the identity at its Offset: Version, TailLen, TailSum, Head)
// is still that file, and the complete lines appended to it from
// prev.Offset up to end are all lines whose fold changes nothing of the
// session but its counters, its times and its identity fields (SessionID,
// CWD, GitBranch, ClientVersion, which the caller compares): the lines
// the fold skips (progress, file snapshots, queue operations, attachments
// other than a hook's), and system lines other than a compaction's
// boundary (a turn's duration, the Stop hooks' summary). What is built
// from the session up to prev.Offset is then what a build up to end
// would give. Conservative: anything it cannot read says no.
func InertTail(prev *Session, end int64) bool {
	if prev.Client != ClaudeCode || end < prev.Offset || end-prev.Offset > maxInertTail {
		return false
	}
	f, err := os.OpenFile(prev.Path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || !prev.matches(f, fi.Size()) || fi.Size() < end {
		return false
	}
	tail := make([]byte, end-prev.Offset)
	if _, err := f.ReadAt(tail, prev.Offset); err != nil && err != io.EOF {
		return false
	}
	return inertLines(tail)
}

// inertLines says whether every line of tail, each ending in a newline,
// is inert (see InertTail).
func inertLines(tail []byte) bool {
	var p claudeDecoder
	for len(tail) > 0 {
		i := bytes.IndexByte(tail, '\n')
		if i < 0 {
			return false // only complete lines are given
		}
		line := tail[:i]
		tail = tail[i+1:]
		// The fold's own walk: a blank line is nothing, a line it cannot
		// read a bad line, which the session counts.
		reason, ok := p.walk(line)
		if !ok && reason == "" {
			continue
		}
		if !ok {
			return false
		}
		e := &p.e
		switch {
		case string(e.typ) == "attachment":
			if e.attach.hook {
				return false // a hook's answer: the restores' record
			}
		case !interesting(e):
			// Skipped by the fold.
		case string(e.typ) == "system" && string(e.subtype) != "compact_boundary":
			// Its time and identity fields only.
		default:
			return false
		}
	}
	return true
}
