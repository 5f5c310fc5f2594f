package tracker

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/cairn-agent/cairn/internal/state"
)

// Settings are a project's tracker configuration (internal/config's
// tracker keys).
type Settings struct {
	Tracker string // linear, github
	Repo    string
}

// Open is the configured tracker, credentials from the environment (or,
// for GitHub, gh's own login). It says what is missing rather than
// failing later in the drainer.
func Open(s Settings, project string, getenv func(string) string) (Tracker, error) {
	switch s.Tracker {
	case "linear":
		key := getenv("LINEAR_API_KEY")
		if key == "" {
			return nil, errors.New("tracker linear: LINEAR_API_KEY is not set (a personal API key: Linear, Settings, Security & access)")
		}
		return &Linear{URL: getenv("CAIRN_LINEAR_URL"), Key: key}, nil
	case "github":
		return &GitHub{Repo: s.Repo, Dir: project}, nil
	case "":
		return nil, errors.New("no tracker configured (tracker = linear or github in .claude/cairn.conf)")
	}
	return nil, fmt.Errorf("unknown tracker %q", s.Tracker)
}

// projectKey names a project's files in the queue directory.
func projectKey(project string) string {
	h := sha256.Sum256([]byte(filepath.Clean(project)))
	return hex.EncodeToString(h[:8])
}

// Bind binds the project to a ticket (`cairn bind`): the checkpoints'
// updates go to it whatever the branch or the prompts name. An empty
// ticket unbinds.
func (q Queue) Bind(project, ticket string) error {
	p := filepath.Join(q.Dir, "bindings", projectKey(project))
	if ticket == "" {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	return state.WriteFile(p, []byte(ticket+"\n"+project+"\n"), 0o600, true)
}

// Bound is the ticket the project is bound to, "" for none.
func (q Queue) Bound(project string) string {
	data, err := os.ReadFile(filepath.Join(q.Dir, "bindings", projectKey(project)))
	if err != nil {
		return ""
	}
	ticket, _, _ := strings.Cut(string(data), "\n")
	return strings.TrimSpace(ticket)
}

// Ticket is the ticket a checkpoint's updates go to: the bound one, else
// the latest the session named (its branch, its prompts).
func (q Queue) Ticket(project string, seen []string) string {
	if t := q.Bound(project); t != "" {
		return t
	}
	if n := len(seen); n > 0 {
		return seen[n-1]
	}
	return ""
}

// SaveIssue keeps what the tracker last said of an issue, for handoffs,
// which are written by hooks that must not wait on the network.
func (q Queue) SaveIssue(tracker string, is Issue) error {
	dir := filepath.Join(q.Dir, "issues")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	data, err := json.Marshal(is)
	if err != nil {
		return err
	}
	return state.WriteFile(filepath.Join(dir, Key(tracker, is.ID)+".json"), data, 0o600, false)
}

// CachedIssue is what SaveIssue kept of the issue id, if anything.
func (q Queue) CachedIssue(tracker, id string) (Issue, bool) {
	var is Issue
	for _, k := range []string{id, "#" + strings.TrimPrefix(id, "#")} {
		data, err := os.ReadFile(filepath.Join(q.Dir, "issues", Key(tracker, k)+".json"))
		if err == nil && json.Unmarshal(data, &is) == nil {
			return is, true
		}
	}
	return is, false
}

// StartDrainer starts `exe tracker drain` detached from the hook that
// queued updates (its own session, no terminal, no inherited streams), and
// does not wait for it: the hook returns at once whatever the network
// does.
func StartDrainer(exe string, env []string) error {
	cmd := exec.Command(exe, "tracker", "drain", "--quiet")
	cmd.Env = env
	cmd.SysProcAttr = detached()
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Process.Release()
}
