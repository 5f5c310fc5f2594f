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
}

// Default is the configuration of a project without a file.
func Default() Config {
	return Config{Pressure: pressure.Default(), HandoffAt: []int{2, 3}, SnapshotAt: []int{2, 3}, RestoreBudget: 1500, MemoryIndex: 300, Advisories: true,
		CaptureDir: ".project/compacts", FlowDir: ".claude", TrackerStatus: "In Progress", TrackerLabel: "context-checkpointed"}
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
