package estimate

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/cairn-agent/cairn/internal/state"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// MinSamples is how many finished tasks a project needs before its own
// ratio replaces the default; MaxSamples is how many it keeps, the latest.
const (
	MinSamples = 3
	MaxSamples = 50
)

// sample is one finished task, a line of the project's log.
type sample struct {
	SpecTokens     int64 `json:"spec_tokens"`
	ConsumedTokens int64 `json:"consumed_tokens"`
}

// LogFile is where the finished tasks of the project whose root is the
// directory project are recorded: one file per project, named after a hash
// of its absolute path.
func LogFile(stateDir, project string) string {
	abs, err := filepath.Abs(project)
	if err != nil {
		abs = project
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(stateDir, "estimate", hex.EncodeToString(sum[:8])+".log")
}

// Learn records that a task whose spec counted specTokens consumed
// consumedTokens of context in the project. The log keeps the
// latest MaxSamples tasks, one JSON object a line. It is rewritten whole
// and replaced atomically, so a reader never sees a part; two Learns at
// the same moment may keep only one of the two tasks, which costs one
// sample, not the log.
func Learn(stateDir, project string, specTokens, consumedTokens int64) error {
	if specTokens <= 0 || consumedTokens <= 0 {
		return fmt.Errorf("record a finished task: spec and consumed tokens must be positive (got %d and %d)", specTokens, consumedTokens)
	}
	file := LogFile(stateDir, project)
	ss, err := readLog(file)
	if err != nil {
		return err
	}
	ss = append(ss, sample{specTokens, consumedTokens})
	if len(ss) > MaxSamples {
		ss = ss[len(ss)-MaxSamples:]
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for _, s := range ss {
		enc.Encode(s)
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return fmt.Errorf("create state directory: %w", err)
	}
	return state.WriteAtomic(file, b.Bytes(), false)
}

// ProjectModel is the model for the project: its own ratio once it
// has recorded MinSamples finished tasks, the default before. Recorded says
// how many it has either way.
func ProjectModel(stateDir, project string) (Model, error) {
	ss, err := readLog(LogFile(stateDir, project))
	if err != nil {
		return Default(), err
	}
	if len(ss) < MinSamples {
		m := Default()
		m.Recorded = len(ss)
		return m, nil
	}
	rs := make([]float64, len(ss))
	for i, s := range ss {
		rs[i] = float64(s.ConsumedTokens) / float64(s.SpecTokens)
	}
	return FromRatios(rs, "project"), nil
}

// readLog reads the samples of a log; a missing log holds none, and lines
// that do not decode to a usable sample are skipped.
func readLog(file string) ([]sample, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read estimate log: %w", err)
	}
	var ss []sample
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		var s sample
		if json.Unmarshal(sc.Bytes(), &s) == nil && s.SpecTokens > 0 && s.ConsumedTokens > 0 {
			ss = append(ss, s)
		}
	}
	return ss, nil
}

// FromSession is the context a finished task consumed in session s: its
// spec's tokens, read into the context, plus the growth of the main-chain
// context over the task. The task spans transcript lines from to to (0:
// the session's start, or its end). The growth runs from the last reply at
// or before from (the first reply when there is none) to the last reply at
// or before to; each compaction in between adds back what it removed, its
// preTokens less the context of the first reply after it.
func FromSession(s *transcript.Session, specTokens int64, from, to int) int64 {
	first, last := -1, -1
	for i, t := range s.Turns {
		if t.Line <= from || first < 0 && (to == 0 || t.Line <= to) {
			first = i
		}
		if to == 0 || t.Line <= to {
			last = i
		}
	}
	if first < 0 || last < first {
		return specTokens
	}
	a, b := s.Turns[first], s.Turns[last]
	grown := b.Usage.Context() - a.Usage.Context()
	for _, c := range s.Compactions {
		if c.Line <= a.Line || c.Line >= b.Line {
			continue
		}
		post := c.PostTokens
		for _, t := range s.Turns[first:] {
			if t.Line > c.Line {
				post = t.Usage.Context()
				break
			}
		}
		grown += c.PreTokens - post
	}
	return specTokens + max(0, grown)
}
