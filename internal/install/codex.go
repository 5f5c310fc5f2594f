package install

// Codex CLI's wiring: cairn's hooks in a hooks.json of the same shape as
// Claude Code's settings (edited by claudecode/settings, so that
// uninstall gives the file back byte for byte), and, only when asked,
// their trust entries in $CODEX_HOME/config.toml (internal/codex).

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-agent/cairn/internal/claudecode"
	"github.com/cairn-agent/cairn/internal/claudecode/settings"
	"github.com/cairn-agent/cairn/internal/codex"
	"github.com/cairn-agent/cairn/internal/hookevent"
	"github.com/cairn-agent/cairn/internal/state"
)

// codexHooks is the hooks.json cairn wires for Codex: the project's
// .codex/hooks.json, or with user $CODEX_HOME/hooks.json.
func (s Setup) codexHooks(user bool) string {
	if user {
		return filepath.Join(s.CodexHome, "hooks.json")
	}
	return filepath.Join(s.Root, ".codex", "hooks.json")
}

// codexCommand is the hook command for event, calling exe.
func codexCommand(exe, event string) string { return agentCommand(exe, "codex", event) }

// codexOurs recognises cairn's Codex hook commands.
func codexOurs(exe string) func(string) bool { return agentOurs(exe, "codex", codex.Events) }

func codexWiring(exe string) settings.Wiring {
	return agentWiring(exe, "codex", codex.Events, func(ev hookevent.Event) int { return ev.Timeout })
}

// codexHashes are the trusted hashes of the hooks install writes: what
// uninstall recognises as its own in config.toml. The settings editor
// writes an empty matcher, which is hashed; a group without one (edited
// by hand) hashes differently, and is recognised too.
func codexHashes(exe string) map[string]bool {
	h := map[string]bool{}
	empty := ""
	for _, ev := range codex.Events {
		for _, m := range []*string{&empty, nil} {
			h[codex.Hash(ev.Name, m, codexCommand(exe, ev.Name), ev.Timeout)] = true
		}
	}
	return h
}

// InstallCodex wires cairn's hooks into Codex CLI: the project's
// .codex/hooks.json, or with user $CODEX_HOME/hooks.json. Codex runs
// them only once they are trusted: with trust, install writes the trust
// entries into $CODEX_HOME/config.toml itself; without, it says how to
// trust them in Codex's /hooks screen.
func (s Setup) InstallCodex(user, trust bool) error {
	if s.CodexHome == "" {
		return errors.New("no Codex home: set CODEX_HOME or HOME")
	}
	path := s.codexHooks(user)
	w := codexWiring(s.Exe)
	if err := check(w, path); err != nil {
		return err
	}
	if err := s.wireAgent(w, path, user, "codex", codex.Events); err != nil {
		return err
	}
	config := filepath.Join(s.CodexHome, "config.toml")
	if trust {
		changed, err := s.trustCodex(path, config)
		if err != nil {
			return err
		}
		if changed {
			fmt.Fprintf(s.Out, "trusted them in %s: Codex runs them without showing them to you in its /hooks screen first; cairn uninstall --agent codex takes the trust out again\n", config)
		} else {
			fmt.Fprintf(s.Out, "they are trusted in %s already\n", config)
		}
	} else {
		fmt.Fprintln(s.Out, "Codex runs hooks only once you trust them, and skips the others without a word: start codex, type /hooks, and trust each of cairn's with t (or run cairn install --agent codex --trust, which writes the trust into config.toml for you)")
	}
	if !user {
		fmt.Fprintf(s.Out, "note: Codex reads a project's .codex/hooks.json only when the project is trusted (trust_level = \"trusted\" under [projects.%q] in %s)\n", s.Root, config)
	}
	fmt.Fprintln(s.Out, "from the next Codex session on, cairn checkpoints before every compaction and restores the working state after it (Codex shows the summariser nothing of cairn's: no steering)")
	return nil
}

// trustCodex writes the trust entries of cairn's hooks in hooks.json at
// path into config.toml.
func (s Setup) trustCodex(path, config string) (bool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return false, err
	}
	entries, err := codex.Entries(data, path, codexOurs(s.Exe))
	if err != nil {
		return false, err
	}
	old, mode, err := readConfig(config)
	if err != nil {
		return false, err
	}
	out, changed := codex.AddTrust(old, entries)
	if !changed {
		return false, nil
	}
	if old == nil {
		// A config.toml install creates is one uninstall removes.
		if _, err := s.files().journal.MkdirAll(filepath.Dir(config)); err != nil {
			return false, err
		}
		if _, err := os.Stat(config); errors.Is(err, fs.ErrNotExist) {
			if err := s.noteCreated(config); err != nil {
				return false, err
			}
		}
	}
	return true, state.WriteFile(config, out, mode, true)
}

// createdMark is the file in cairn's install journal that says install
// created config.toml at path.
func (s Setup) createdMark(path string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(path)))
	return filepath.Join(s.DataDir, "install", "codex-config-created-"+hex.EncodeToString(sum[:8]))
}

func (s Setup) noteCreated(path string) error {
	mark := s.createdMark(path)
	if err := os.MkdirAll(filepath.Dir(mark), 0o700); err != nil {
		return err
	}
	return state.WriteAtomic(mark, []byte(path+"\n"), true)
}

// createdConfig says whether install created config.toml at path.
func (s Setup) createdConfig(path string) bool {
	_, err := os.Stat(s.createdMark(path))
	return err == nil
}

// readConfig reads config.toml and its mode; a missing one is empty.
func readConfig(path string) ([]byte, fs.FileMode, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0o600, nil
	}
	if err != nil {
		return nil, 0, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, 0, err
	}
	return data, fi.Mode().Perm(), nil
}

// UninstallCodex takes cairn's hooks out of hooks.json, and the trust
// entries install wrote out of config.toml, giving both back as they
// were.
func (s Setup) UninstallCodex(user bool) error {
	if s.CodexHome == "" {
		return errors.New("no Codex home: set CODEX_HOME or HOME")
	}
	path := s.codexHooks(user)
	w := codexWiring(s.Exe)
	f := s.files()
	if err := check(w, path); err != nil {
		return err
	}
	config := filepath.Join(s.CodexHome, "config.toml")
	old, mode, err := readConfig(config)
	if err != nil {
		return err
	}
	out, trusted := codex.RemoveTrust(old, path, codexHashes(s.Exe))
	if trusted {
		if len(out) == 0 && s.createdConfig(config) {
			if err = os.Remove(config); err == nil {
				os.Remove(s.createdMark(config))
				_, err = s.files().journal.RemoveDirs(filepath.Dir(config))
			}
		} else {
			err = state.WriteFile(config, out, mode, true)
		}
		if err != nil {
			return err
		}
	}
	res, err := w.UninstallFile(path, f.journal)
	if err != nil {
		return settingsError(err)
	}
	if res.Changed {
		fmt.Fprintf(s.Out, "took cairn's hooks out of %s%s\n", path, how(res))
	}
	if trusted {
		fmt.Fprintf(s.Out, "took their trust out of %s\n", config)
	}
	if !res.Changed && !trusted {
		fmt.Fprintf(s.Out, "cairn was not wired into %s; nothing changed\n", path)
	}
	return nil
}

// codexWiring is the doctor's check of Codex CLI: cairn's hooks in the
// project's .codex/hooks.json and in $CODEX_HOME/hooks.json, whether
// config.toml trusts them (Codex skips the others without a word) and,
// for the project's file, the project itself, and whether an MCP server
// named cairn is registered there.
func (d Doctor) codexWiring(r *Report) bool {
	problem := func(fix, format string, args ...any) { r.add(Wiring, Problem, fix, format, args...) }
	if d.CodexHome == "" {
		r.add(Wiring, Info, "", "no Codex home (neither CODEX_HOME nor HOME is set): Codex CLI not checked")
		return false
	}
	config := filepath.Join(d.CodexHome, "config.toml")
	cfg, err := read(config)
	if err != nil {
		problem("", "%s: cannot read: %v", config, err)
	}
	w := codexWiring(d.Exe)
	var wired []string
	for _, file := range []struct {
		hookFile
		project bool
	}{
		{hookFile{d.codexHooks(false), "cairn install --agent codex", "this project"}, true},
		{hookFile{d.codexHooks(true), "cairn install --agent codex --user", "every project"}, false},
	} {
		path := file.path
		data, have, ok := foundHooks(r, path, w.Installed)
		if !ok {
			continue
		}
		wired = append(wired, path)
		d.checkHooks(r, file.hookFile, w.Hooks, have)
		entries, err := codex.Entries(data, path, codexOurs(d.Exe))
		if err != nil {
			problem("", "%v", err)
			continue
		}
		if untrusted := codex.Untrusted(cfg, entries); len(untrusted) > 0 {
			problem(fmt.Sprintf("start codex, type /hooks and trust each of cairn's hooks with t, or run %s --trust, which writes the trust into %s", file.fix, config),
				"%s: %d of cairn's %d hooks are not trusted in %s (%s): Codex skips them without a word, unless it runs with --dangerously-bypass-hook-trust",
				path, len(untrusted), len(entries), config, strings.Join(trustEvents(untrusted), ", "))
		} else {
			r.add(Wiring, OK, "", "%s: cairn's hooks are trusted in %s", path, config)
		}
		if file.project {
			d.codexProjectTrust(r, cfg, config, path)
		}
	}
	if len(wired) > 1 {
		r.add(Wiring, Note, "", "cairn is wired into both %s: where Codex reads both, each hook runs twice; keep one (cairn uninstall --agent codex, or with --user)", strings.Join(wired, " and "))
	}
	if v, ok := codex.TableStrings(cfg, "mcp_servers", claudecode.MCPServerName); ok {
		r.add(Wiring, Info, "", "%s registers an MCP server named %s: %s", config, claudecode.MCPServerName, orDash(v["command"]))
	} else {
		r.add(Wiring, Info, "", "no MCP server named %s in %s (cairn install --agent codex does not register one)", claudecode.MCPServerName, config)
	}
	return len(wired) > 0
}

// codexProjectTrust reports whether config.toml trusts the project (or a
// directory that holds it): Codex reads a project's .codex/ layer only
// then.
func (d Doctor) codexProjectTrust(r *Report, cfg []byte, config, hooks string) {
	for dir := filepath.Clean(d.Root); ; {
		if v, _ := codex.TableStrings(cfg, "projects", dir); v["trust_level"] == "trusted" {
			r.add(Wiring, OK, "", "%s trusts %s: Codex reads %s", config, dir, hooks)
			return
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	r.add(Wiring, Problem, fmt.Sprintf("trust the project when Codex asks, or add [projects.%q] with trust_level = \"trusted\" to %s", d.Root, config),
		"%s does not trust %s: Codex does not read %s", config, d.Root, hooks)
}

// trustEvents are the events of trust entries, from their keys
// (<path>:<event_snake_case>:<group>:<handler>).
func trustEvents(ts []codex.Trust) []string {
	var out []string
	for _, t := range ts {
		k := t.Key
		for range 2 {
			if i := strings.LastIndexByte(k, ':'); i >= 0 {
				k = k[:i]
			}
		}
		out = append(out, k[strings.LastIndexByte(k, ':')+1:])
	}
	return out
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
