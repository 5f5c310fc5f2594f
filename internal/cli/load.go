package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/cairn-agent/cairn/internal/claude"
	"github.com/cairn-agent/cairn/internal/meter"
	"github.com/cairn-agent/cairn/internal/state"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// env is what commands derive from the environment, read once.
type env struct {
	configDir  string
	projectDir string
	projectOK  bool
	cwd        string
	store      state.Store
	settings   meter.Settings
}

func (a *App) env() (*env, error) {
	cfg, err := claude.ConfigDir(a.Getenv)
	if err != nil {
		return nil, err
	}
	sd, err := state.Dir(a.Getenv)
	if err != nil {
		return nil, err
	}
	cwd, err := a.Getwd()
	if err != nil {
		return nil, fmt.Errorf("find the working directory: %w", err)
	}
	set, warns := meter.SettingsFromEnv(a.Getenv)
	for _, w := range warns {
		fmt.Fprintf(a.Stderr, "cairn: warning: %s\n", w)
	}
	pd, ok := claude.ProjectDir(cfg, cwd)
	return &env{configDir: cfg, projectDir: pd, projectOK: ok, cwd: cwd, store: state.Store{Dir: sd}, settings: set}, nil
}

// locate turns --session/--transcript/an argument into a transcript path.
// With neither, it is the project's latest session.
func (e *env) locate(id, path string) (string, error) {
	switch {
	case path != "":
		abs, err := filepath.Abs(path)
		if err != nil {
			return "", err
		}
		fi, err := os.Stat(abs)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return "", withHint(fmt.Errorf("no transcript at %s", abs), "check the path; transcripts live under %s", filepath.Join(e.configDir, "projects"))
			}
			return "", withHint(fmt.Errorf("cannot read %s: %w", abs, err), "check the file's permissions")
		}
		if fi.IsDir() {
			return "", withHint(fmt.Errorf("%s is a directory, not a transcript", abs), "give the path of a .jsonl session file")
		}
		return abs, nil
	case id != "":
		sf, err := claude.FindSession(e.configDir, e.projectDir, id)
		if errors.Is(err, claude.ErrAmbiguous) {
			return "", withHint(fmt.Errorf("session id %q matches several sessions", id), "give more of the id; 'cairn sessions' lists them")
		}
		if err != nil {
			return "", withHint(fmt.Errorf("no session %q under %s", id, filepath.Join(e.configDir, "projects")), "'cairn sessions' lists this project's sessions; set CLAUDE_CONFIG_DIR if Claude Code keeps its files elsewhere")
		}
		return sf.Path, nil
	}
	ss, err := claude.Sessions(e.projectDir)
	if err != nil || len(ss) == 0 {
		return "", withHint(fmt.Errorf("no Claude Code session found for %s", e.cwd),
			"run cairn inside a project where Claude Code has run (it looks in %s), or pass --transcript PATH", e.projectDir)
	}
	return ss[0].Path, nil
}

// load brings the session of the transcript at path up to date. With full
// unset it works on the light session of the state's head (recent turns,
// compactions, the first prompt; no tool calls, files or subagents),
// reading only what was appended since the head was written.
func (a *App) load(e *env, path string, full bool) (*transcript.Session, error) {
	var p transcript.Parser
	if !full {
		if h := e.store.LoadHeader(path); h != nil {
			if h.UpToDate() {
				return h, nil
			}
			res, err := h.Update(&p)
			if err != nil {
				return nil, readError(path, err)
			}
			if !res.Rebuilt {
				a.saved(e.store.SaveHead(h))
				return h, nil
			}
			// The file was replaced: h now holds a complete cold read.
			a.saved(e.store.Save(h))
			return h, nil
		}
	}
	s := e.store.Load(path)
	if s == nil {
		s = transcript.New(path)
	}
	res, err := s.Update(&p)
	if err != nil {
		return nil, readError(path, err)
	}
	changed := res.Read > 0 || res.Rebuilt
	if full {
		before := subagentOffsets(s)
		if err := s.UpdateSubagents(&p); err != nil {
			fmt.Fprintf(a.Stderr, "cairn: warning: %s\n", err)
		}
		changed = changed || subagentOffsets(s) != before
	}
	if changed || e.store.LoadHeader(path) == nil {
		a.saved(e.store.Save(s))
	}
	return s, nil
}

func readError(path string, err error) error {
	if errors.Is(err, fs.ErrPermission) {
		return withHint(fmt.Errorf("cannot read %s: %w", path, err), "check the file's permissions")
	}
	return fmt.Errorf("read transcript: %w", err)
}

// saved reports a state that could not be written: the answer stands.
func (a *App) saved(err error) {
	if err != nil {
		fmt.Fprintf(a.Stderr, "cairn: warning: could not save state (%v); the next run reads the transcript again\n", err)
	}
}

func subagentOffsets(s *transcript.Session) int64 {
	var n int64
	for _, a := range s.Subagents {
		n += a.Session.Offset + 1
	}
	return n
}
