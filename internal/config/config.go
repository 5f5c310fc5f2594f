// Package config reads a project's cairn configuration: the file
// .claude/cairn.conf in the project, lines of `key = value`, `#` comments.
// It is a plain format on purpose: hooks read it on every prompt, and a
// missing or broken file must never stop them (a broken line is reported
// and ignored).
//
//	# pressure levels: a preset, then any override
//	levels.preset = ccs            # ccs (70/85/95), advisory (60/75/95), early-checkpoint (72/85/95)
//	levels.base = threshold        # threshold (auto-compact point) or window
//	levels.l1 = 70
//	levels.l2 = 85
//	levels.l3 = 95
//	handoff.auto = L2, L3          # levels that write a handoff document (none: never)
//	snapshot.auto = L2, L3         # levels that snapshot uncommitted work
//	snapshot.mode = ref            # ref (refs/cairn/wip/..., work tree untouched) or commit ([WIP] commit)
//	restore.budget = 1500          # tokens
//	tickets.prefixes = gt-, PROJ_  # extra ticket id prefixes
//	advisories = on                # off: no advisories in the model's context
//	capture.dir = .project/compacts  # where auto-compaction captures go (seed 004)
//	capture.manual = off           # on: a manual /compact writes a capture too
//	flow.dir = .claude             # progress.md, task_plan.md and learnings-*.md (seed 001)
//	flow.trim = off                # on: PreCompact trims progress.md to its last 10 entries
//	tracker = none                 # linear or github: tell the ticket at each checkpoint that writes a handoff
//	tracker.status = In Progress   # Linear: the state the ticket moves to (none: leave it)
//	tracker.label = context-checkpointed  # the label added (none: no label)
//	tracker.repo = acme/shop       # GitHub: [HOST/]OWNER/REPO (default: gh's, from the git remote)
//	gc.auto = on                   # off: never remove old state by itself (cairn gc still does)
//	gc.older-than = 90d            # state of sessions untouched this long, checkpoints this old
//	gc.keep = 10                   # checkpoints of each session kept whatever their age
//	gc.tracker = 30d               # how long the record of sent tracker updates is kept
//	gc.max-size = 2GB              # state and database together (none: no limit)
package config

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-agent/cairn/internal/pressure"
)

// File is where a project's configuration lives, relative to its root.
const File = ".claude/cairn.conf"

// Config is a project's configuration with defaults filled in.
type Config struct {
	Pressure       pressure.Config
	HandoffAt      []int
	SnapshotAt     []int
	SnapshotCommit bool // seed 003's real [WIP] commit instead of a ref
	RestoreBudget  int
	// MemoryIndex is the token budget of the index of this project's
	// past observations given at session start (never after a
	// compaction, whose restore has the budget); 0 gives none.
	MemoryIndex    int
	TicketPrefixes []string
	Advisories     bool
	// CaptureDir and FlowDir are relative to the project unless absolute.
	CaptureDir    string
	CaptureManual bool
	FlowDir       string
	FlowTrim      bool
	// Tracker is the issue tracker told of checkpoints ("" for none),
	// with the state and the label it sets and, for GitHub, the
	// repository.
	Tracker       string
	TrackerStatus string
	TrackerLabel  string
	TrackerRepo   string
	// Retention is what cairn gc removes, and GCAuto whether a session's
	// end runs it (at most daily).
	Retention Retention
	GCAuto    bool
}

// Retention says what is old enough to remove. Observations are never
// removed by age: they are the user's knowledge (forget removes them).
type Retention struct {
	// OlderThan: the state of sessions untouched this long, and their
	// checkpoints created this long ago beyond the latest Keep.
	OlderThan time.Duration
	Keep      int
	// Tracker is how long the record of a sent tracker update is kept.
	Tracker time.Duration
	// MaxSize bounds the state directory and the database together; 0
	// for no bound.
	MaxSize int64
}

// DefaultRetention is generous: nothing a user could still want is near it.
func DefaultRetention() Retention {
	return Retention{OlderThan: 90 * day, Keep: 10, Tracker: 30 * day, MaxSize: 2 << 30}
}

const day = 24 * time.Hour

// ParseAge reads an age: a number of days ("90d"), weeks ("2w") or any
// Go duration ("36h").
func ParseAge(v string) (time.Duration, error) {
	v = strings.TrimSpace(v)
	for suffix, unit := range map[string]time.Duration{"d": day, "w": 7 * day} {
		if n, ok := strings.CutSuffix(v, suffix); ok {
			f, err := strconv.ParseFloat(n, 64)
			if err != nil || f < 0 {
				return 0, fmt.Errorf("%q: want an age such as 90d, 2w or 36h", v)
			}
			return time.Duration(f * float64(unit)), nil
		}
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q: want an age such as 90d, 2w or 36h", v)
	}
	return d, nil
}

// ParseSize reads a size in bytes, with an optional unit (KB, MB, GB,
// powers of 1024); "none" or 0 is no limit.
func ParseSize(v string) (int64, error) {
	v = strings.ToUpper(strings.TrimSpace(v))
	if v == "NONE" {
		return 0, nil
	}
	unit := int64(1)
	for _, u := range []struct {
		suffix string
		n      int64
	}{{"KB", 1 << 10}, {"MB", 1 << 20}, {"GB", 1 << 30}, {"TB", 1 << 40}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1}} {
		if n, ok := strings.CutSuffix(v, u.suffix); ok {
			v, unit = strings.TrimSpace(n), u.n
			break
		}
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || f < 0 {
		return 0, fmt.Errorf("%q: want a size such as 500MB or 2GB, or none", v)
	}
	return int64(f * float64(unit)), nil
}

// Default is the configuration of a project without a file.
func Default() Config {
	return Config{Pressure: pressure.Default(), HandoffAt: []int{2, 3}, SnapshotAt: []int{2, 3}, RestoreBudget: 1500, MemoryIndex: 300, Advisories: true,
		CaptureDir: ".project/compacts", FlowDir: ".claude", TrackerStatus: "In Progress", TrackerLabel: "context-checkpointed",
		Retention: DefaultRetention(), GCAuto: true}
}

// Load reads the project's file; a missing file gives the defaults. The
// problems found (bad lines, unknown keys) are returned beside a usable
// configuration, never instead of it.
func Load(project string) (Config, []error) {
	c := Default()
	if project == "" {
		return c, nil
	}
	data, err := os.ReadFile(filepath.Join(project, File))
	if errors.Is(err, fs.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, []error{err}
	}
	return Parse(data, filepath.Join(project, File))
}

func onOff(v string) (bool, bool) {
	switch strings.ToLower(v) {
	case "on", "true", "yes":
		return true, true
	case "off", "false", "no":
		return false, true
	}
	return false, false
}

// Dir resolves a configured directory against the project.
func Dir(project, dir string) string {
	if filepath.IsAbs(dir) {
		return dir
	}
	return filepath.Join(project, dir)
}

// Parse reads a configuration; name is used in messages.
func Parse(data []byte, name string) (Config, []error) {
	c := Default()
	var errs []error
	var levels [3]float64
	var haveLevel [3]bool
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		bad := func(format string, args ...any) {
			errs = append(errs, fmt.Errorf("%s:%d: %s: %s", name, n, key, fmt.Sprintf(format, args...)))
		}
		if !ok {
			errs = append(errs, fmt.Errorf("%s:%d: want `key = value`", name, n))
			continue
		}
		switch key {
		case "levels.preset":
			p, ok := pressure.Presets[value]
			if !ok {
				bad("unknown preset %q (ccs, advisory, early-checkpoint)", value)
				continue
			}
			c.Pressure = p
		case "levels.base":
			c.Pressure.Base = pressure.Base(value)
		case "levels.l1", "levels.l2", "levels.l3":
			f, err := strconv.ParseFloat(strings.TrimSuffix(value, "%"), 64)
			if err != nil {
				bad("%q is not a percentage", value)
				continue
			}
			i := int(key[len(key)-1] - '1')
			levels[i], haveLevel[i] = f, true
		case "handoff.auto", "snapshot.auto":
			ls, err := pressure.ParseLevels(value)
			if err != nil {
				bad("%v", err)
				continue
			}
			if key == "handoff.auto" {
				c.HandoffAt = ls
			} else {
				c.SnapshotAt = ls
			}
		case "snapshot.mode":
			switch value {
			case "ref":
				c.SnapshotCommit = false
			case "commit":
				c.SnapshotCommit = true
			default:
				bad("%q: want ref or commit", value)
			}
		case "restore.budget":
			v, err := strconv.Atoi(value)
			if err != nil || v < 100 {
				bad("%q: want a number of tokens, at least 100", value)
				continue
			}
			c.RestoreBudget = v
		case "memory.index":
			v, err := strconv.Atoi(value)
			if err != nil || v < 0 || (v > 0 && v < 50) {
				bad("%q: want a number of tokens, 0 (none) or at least 50", value)
				continue
			}
			c.MemoryIndex = v
		case "tickets.prefixes":
			c.TicketPrefixes = nil
			for _, p := range strings.Split(value, ",") {
				if p = strings.TrimSpace(p); p != "" {
					c.TicketPrefixes = append(c.TicketPrefixes, p)
				}
			}
		case "capture.dir", "flow.dir":
			if value == "" {
				bad("give a directory")
				continue
			}
			if key == "capture.dir" {
				c.CaptureDir = value
			} else {
				c.FlowDir = value
			}
		case "capture.manual", "flow.trim":
			on, ok := onOff(value)
			if !ok {
				bad("%q: want on or off", value)
				continue
			}
			if key == "capture.manual" {
				c.CaptureManual = on
			} else {
				c.FlowTrim = on
			}
		case "tracker":
			switch v := strings.ToLower(value); v {
			case "none", "off", "":
				c.Tracker = ""
			case "linear", "github":
				c.Tracker = v
			default:
				bad("%q: want none, linear or github", value)
			}
		case "tracker.status", "tracker.label":
			if strings.EqualFold(value, "none") {
				value = ""
			}
			if key == "tracker.status" {
				c.TrackerStatus = value
			} else {
				c.TrackerLabel = value
			}
		case "tracker.repo":
			c.TrackerRepo = value
		case "gc.auto":
			on, ok := onOff(value)
			if !ok {
				bad("%q: want on or off", value)
				continue
			}
			c.GCAuto = on
		case "gc.older-than", "gc.tracker":
			d, err := ParseAge(value)
			if err != nil {
				bad("%v", err)
				continue
			}
			if key == "gc.tracker" {
				c.Retention.Tracker = d
			} else {
				c.Retention.OlderThan = d
			}
		case "gc.keep":
			v, err := strconv.Atoi(value)
			if err != nil || v < 1 {
				bad("%q: want a number of checkpoints, at least 1", value)
				continue
			}
			c.Retention.Keep = v
		case "gc.max-size":
			v, err := ParseSize(value)
			if err != nil {
				bad("%v", err)
				continue
			}
			c.Retention.MaxSize = v
		case "advisories":
			switch strings.ToLower(value) {
			case "on", "true", "yes":
				c.Advisories = true
			case "off", "false", "no":
				c.Advisories = false
			default:
				bad("%q: want on or off", value)
			}
		default:
			bad("unknown key")
		}
	}
	for i, ok := range haveLevel {
		if ok {
			c.Pressure.Levels[i] = levels[i]
		}
	}
	if err := c.Pressure.Validate(); err != nil {
		errs = append(errs, fmt.Errorf("%s: levels: %v; using the defaults", name, err))
		c.Pressure = pressure.Default()
	}
	return c, errs
}
