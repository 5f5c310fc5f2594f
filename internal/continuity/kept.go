package continuity

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/cairn-agent/cairn/internal/checkpoint"
	"github.com/cairn-agent/cairn/internal/meter"
	"github.com/cairn-agent/cairn/internal/state"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// The last checkpoint built from a session is kept beside its state with
// what it was built from (.kept). A PreCompact that finds the transcript
// as it was then (the same bytes, the same subagents, the same project
// and ticket prefixes) takes it from there instead of decoding the whole
// session and building it again: on a 100 MB session that is most of the
// hook's CPU (docs/benchmarks.md, issue 15). Only what depends on the
// moment is set again: when, why, and the meter's reading. Any difference
// is a miss, and the checkpoint is built as before, but for lines
// appended since that fold into nothing the checkpoint reads
// (transcript.InertTail: the progress of hooks, file snapshots, a turn's
// duration, the Stop hooks' summary), which real compactions often meet
// right after the last build.

// keptVersion changes when what a .kept file holds changes.
const keptVersion = 3

// kept is the head of a .kept file. The file is the head (JSON) on its
// first line, the checkpoint (JSON) on its second, and the steering text
// after it as it is: a PreCompact that finds the transcript grown since
// (a job building it again, ahead.go) decodes the head only, one it
// serves decodes the checkpoint, and neither decodes the steering.
type kept struct {
	Version int `json:"version"`
	// Binary identifies the cairn that built it (see binaryID): another
	// cairn may build another checkpoint from the same transcript.
	Binary string `json:"binary"`
	// What the checkpoint was built from: the transcript up to Offset
	// (its identity checked as the engine checks it on a resume), its
	// subagents' transcripts up to their offsets, the project and the
	// ticket prefixes.
	Offset         int64            `json:"offset"`
	TailSum        []byte           `json:"tail_sum"`
	TailLen        int              `json:"tail_len"`
	Head           []byte           `json:"head"`
	Subagents      map[string]int64 `json:"subagents,omitempty"`
	Project        string           `json:"project"`
	TicketPrefixes []string         `json:"ticket_prefixes,omitempty"`
	// The session's client and identity fields then: an inert line
	// appended since may set them (transcript.InertTail), and must not
	// have changed them.
	Client        string `json:"client"`
	SessionID     string `json:"session_id"`
	CWD           string `json:"cwd"`
	GitBranch     string `json:"git_branch"`
	ClientVersion string `json:"client_version"`
}

func (k *Keeper) keptFile(path string) string { return k.State.File(path) + ".kept" }

// keep saves c, built from the full session s for project, with its
// steering text (which reads none of what a reuse sets again), as the
// session's kept checkpoint. c is kept without the work tree's state. It
// is a cache: a failure costs the next PreCompact a build.
func (k *Keeper) keep(path, project string, s *transcript.Session, c checkpoint.Checkpoint, steer string) {
	c.ID, c.Git, c.GitError = 0, nil, ""
	kp := kept{Version: keptVersion, Binary: binaryID(), Offset: s.Offset, TailSum: s.TailSum, TailLen: s.TailLen, Head: s.Head,
		Project: project, TicketPrefixes: k.TicketPrefixes,
		Client: s.Client, SessionID: s.SessionID, CWD: s.CWD, GitBranch: s.GitBranch, ClientVersion: s.ClientVersion}
	for _, a := range s.Subagents {
		if a.Session != nil {
			if kp.Subagents == nil {
				kp.Subagents = make(map[string]int64)
			}
			kp.Subagents[filepath.Base(a.Path)] = a.Session.Offset
		}
	}
	data, err := json.Marshal(kp)
	var body []byte
	if err == nil {
		body, err = json.Marshal(c)
	}
	if err == nil {
		data = append(append(append(append(data, '\n'), body...), '\n'), steer...)
		err = os.MkdirAll(filepath.Dir(k.keptFile(path)), 0o700)
	}
	if err == nil {
		err = state.WriteAtomic(k.keptFile(path), data, false)
	}
	if err != nil {
		k.warn("could not keep the checkpoint (%w); the next compaction builds it again", err)
	}
}

// fromKept returns the kept checkpoint of the transcript at path, taken
// now for trigger, and its steering text, when the transcript is still
// what it was built from; ok is false otherwise. It reads the light
// session only.
func (k *Keeper) fromKept(path, project, trigger string) (c checkpoint.Checkpoint, steer string, ok bool) {
	var s *transcript.Session
	return k.fromKeptWith(path, project, trigger, &s)
}

// fromKeptWith is fromKept with the light session *s loaded before, nil
// if none was: it loads it again only when the kept checkpoint was built
// from another offset than *s's, and leaves the one it loaded in *s. A
// PreCompact that waits for a job looks at the kept checkpoint again when
// the job wrote it, and takes the transcript as it was at its first look:
// what the client ran PreCompact for (it writes nothing but the hooks'
// progress while they run).
func (k *Keeper) fromKeptWith(path, project, trigger string, s **transcript.Session) (c checkpoint.Checkpoint, steer string, ok bool) {
	data, err := os.ReadFile(k.keptFile(path))
	if err != nil {
		return c, "", false
	}
	head, rest, _ := bytes.Cut(data, []byte("\n"))
	body, text, found := bytes.Cut(rest, []byte("\n"))
	var kp kept
	if !found || json.Unmarshal(head, &kp) != nil || kp.Version != keptVersion || kp.Binary != binaryID() || kp.Project != project || !slices.Equal(kp.TicketPrefixes, k.TicketPrefixes) {
		return c, "", false
	}
	if *s == nil || (*s).Offset != kp.Offset {
		if *s, err = k.Load(path, false); err != nil {
			return c, "", false
		}
	}
	if !kp.current(*s) {
		return c, "", false
	}
	if !subagentsAt(path, kp.Subagents) {
		return c, "", false
	}
	if json.Unmarshal(body, &c) != nil {
		return c, "", false
	}
	reading, _ := meter.Measure(*s, k.rules())
	c.CreatedAt, c.Trigger = k.Now().UTC(), trigger
	c.Context = checkpoint.Context{Tokens: reading.Tokens, Window: reading.Window, Threshold: reading.Threshold, Percent: reading.PctWindow}
	return c, string(text), true
}

// current says whether the session s, just loaded, is what kp was built
// from, or that with only inert lines appended.
func (kp *kept) current(s *transcript.Session) bool {
	if s.Offset == kp.Offset {
		return s.TailLen == kp.TailLen && slices.Equal(s.TailSum, kp.TailSum) && slices.Equal(s.Head, kp.Head)
	}
	if s.Offset < kp.Offset || s.Client != kp.Client || s.SessionID != kp.SessionID || s.CWD != kp.CWD ||
		s.GitBranch != kp.GitBranch || s.ClientVersion != kp.ClientVersion {
		return false
	}
	then := transcript.Session{Version: transcript.StateVersion, Path: s.Path, Client: kp.Client,
		Offset: kp.Offset, TailSum: kp.TailSum, TailLen: kp.TailLen, Head: kp.Head}
	return transcript.InertTail(&then, s.Offset)
}

// subagentsAt says whether the subagent transcripts beside the transcript
// at path are those of offsets, each read to its end: a subagent added
// or grown since is a miss.
func subagentsAt(path string, offsets map[string]int64) bool {
	ents, err := os.ReadDir(transcript.SubagentDir(path))
	if err != nil {
		return os.IsNotExist(err) && len(offsets) == 0
	}
	n := 0
	for _, e := range ents {
		name := e.Name()
		if e.IsDir() || !strings.HasPrefix(name, "agent-") || !strings.HasSuffix(name, ".jsonl") {
			continue
		}
		fi, err := e.Info()
		at, known := offsets[name]
		if err != nil || !known || fi.Size() != at {
			return false
		}
		n++
	}
	return n == len(offsets)
}

// loadFull loads the full session at path into *s, and says whether it
// could.
func (k *Keeper) loadFull(path string, s **transcript.Session) bool {
	full, err := k.Load(path, true)
	if err != nil {
		k.warn("%w", err)
		return false
	}
	*s = full
	return true
}

// binaryID identifies the running cairn by its executable's size and
// modification time: an upgrade, or a rebuild with other extraction
// rules, makes every kept checkpoint a miss once. "" when it cannot tell,
// which matches only another cairn that could not either.
func binaryID() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return ""
	}
	return strconv.FormatInt(fi.Size(), 10) + "-" + strconv.FormatInt(fi.ModTime().UnixNano(), 10)
}
