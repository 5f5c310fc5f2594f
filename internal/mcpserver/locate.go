package mcpserver

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"time"

	"github.com/cairn-agent/cairn/internal/claudecode"
)

// locator finds the session a tool call comes from. The server knows its
// directory and the session id Claude Code started it for; a call carries
// the id of the tool_use block that made it (_meta "claudecode/toolUseId").
// Claude Code 2.1.328 writes that block to the transcript a few hundred
// milliseconds after it calls the tool, whatever the tool does meanwhile,
// so the id is waited for only where the start-up session is not plainly
// the one (another session in the project is newer: a /clear, or two
// sessions side by side), and by the tools that read the session (await).
type locator struct {
	configDir string
	dir       string
	sessionID string
	// wait bounds the wait for the tool_use block; 0 means toolUseWait.
	wait time.Duration
}

// target is the session found: its transcript and the project's root.
type target struct {
	path string
	id   string
	root string
}

const (
	toolUseWait = 1500 * time.Millisecond
	// tailBytes is how much of a transcript's end is searched for the
	// tool_use id: the block is among the last lines written.
	tailBytes = 1 << 20
	// candidates is how many of the newest transcripts may hold it.
	candidates = 4
)

// project is the project's transcript folder and root directory.
func (l *locator) project() (folder, root string, err error) {
	if l.configDir == "" {
		return "", "", fmt.Errorf("Claude Code's configuration directory is unknown (set HOME or CLAUDE_CONFIG_DIR)")
	}
	folder, root, _ = claudecode.ProjectDir(l.configDir, l.dir)
	return folder, root, nil
}

// find returns the transcript of the session that made the call.
func (l *locator) find(ctx context.Context, toolUseID string) (target, error) {
	folder, root, err := l.project()
	if err != nil {
		return target{}, err
	}
	ss, err := claudecode.Sessions(folder)
	if err != nil || len(ss) == 0 {
		return target{}, fmt.Errorf("no Claude Code session found for %s (looked in %s)", l.dir, folder)
	}
	own := -1
	for i, s := range ss {
		if s.ID == l.sessionID {
			own = i
			break
		}
	}
	pick := func(i int) target { return target{path: ss[i].Path, id: ss[i].ID, root: root} }
	if own == 0 || (own < 0 && (len(ss) == 1 || toolUseID == "")) {
		return pick(0), nil
	}
	if toolUseID != "" {
		if i, ok := l.holder(ctx, ss, own, toolUseID); ok {
			return pick(i), nil
		}
		if ctx.Err() != nil {
			return target{}, ctx.Err()
		}
	}
	if own > 0 {
		return pick(own), nil
	}
	return pick(0), nil
}

// holder polls the newest transcripts (and the start-up session's) until
// one holds the tool_use id, for at most the wait.
func (l *locator) holder(ctx context.Context, ss []claudecode.SessionFile, own int, toolUseID string) (int, bool) {
	found := -1
	l.poll(ctx, toolUseID, func(needle []byte) bool {
		for i := range ss {
			if (i < candidates || i == own) && tailHolds(ss[i].Path, needle) {
				found = i
				return true
			}
		}
		return false
	})
	return found, found >= 0
}

// await waits, at most the wait, until the transcript at path holds the
// tool_use block of the call: the reply that made the call, with its
// usage and its text, is then part of what the session says. It reports
// whether it does.
func (l *locator) await(ctx context.Context, path, toolUseID string) bool {
	if toolUseID == "" {
		return false
	}
	return l.poll(ctx, toolUseID, func(needle []byte) bool { return tailHolds(path, needle) })
}

// poll runs look until it reports true, ctx is done or the wait is over
// (a negative wait looks once).
func (l *locator) poll(ctx context.Context, toolUseID string, look func(needle []byte) bool) bool {
	wait := l.wait
	if wait == 0 {
		wait = toolUseWait
	}
	needle := []byte(`"` + toolUseID + `"`)
	deadline := time.Now().Add(wait)
	for {
		if look(needle) {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func tailHolds(path string, needle []byte) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	off := max(0, fi.Size()-tailBytes)
	buf := make([]byte, fi.Size()-off)
	n, _ := f.ReadAt(buf, off)
	return bytes.Contains(buf[:n], needle)
}
