package cli

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// everyCommand is each command of the table and each subcommand, by the
// name a user types.
func everyCommand() map[string]command {
	all := map[string]command{}
	for _, c := range commands() {
		all[c.name] = c
		for _, s := range c.subcommands() {
			all[c.name+" "+s.name] = s
		}
	}
	return all
}

// TestTable: each name once, for a command that has a summary and runs.
func TestTable(t *testing.T) {
	seen := map[string]bool{}
	check := func(name string, c command) {
		if seen[name] || c.summary == "" || c.setup == nil || c.setup(newFlags(name)) == nil {
			t.Errorf("%q: twice, or without a summary or a run", name)
		}
		seen[name] = true
	}
	for _, e := range table() {
		c := e.command()
		check(e.name, c)
		for _, s := range c.subcommands() {
			check(e.name+" "+s.name, s)
		}
	}
}

// TestHelpEveryCommand: -h and --help print the command's usage on stdout
// and exit 0 for every command in the table, a new one included.
func TestHelpEveryCommand(t *testing.T) {
	for name := range everyCommand() {
		for _, h := range []string{"-h", "--help"} {
			t.Run(name+" "+h, func(t *testing.T) {
				a, out, errb := testApp(t)
				args := append(strings.Fields(name), h)
				if code := Run(context.Background(), args, a); code != ExitOK {
					t.Errorf("exit %d; stderr: %s", code, errb)
				}
				if !strings.HasPrefix(out.String(), "usage: cairn "+name) {
					t.Errorf("stdout:\n%s", out)
				}
				if errb.Len() > 0 {
					t.Errorf("stderr: %s", errb)
				}
			})
		}
	}
}

// TestSynopsisNamesEveryFlag: the synopsis that help, the global usage and
// usage errors print names every flag the command has, and each flag that
// takes a value names it in its help (`ID`), as help prints it.
func TestSynopsisNamesEveryFlag(t *testing.T) {
	typeNames := map[string]bool{"value": true, "string": true, "int": true, "duration": true, "float": true, "uint": true}
	for name, c := range everyCommand() {
		fs := newFlags(name)
		c.setup(fs)
		fs.VisitAll(func(f *flag.Flag) {
			if !regexp.MustCompile(`(^|[\s\[|])` + regexp.QuoteMeta(dashed(f.Name)) + `\b`).MatchString(c.args) {
				t.Errorf("cairn %s %s: no %s", name, c.args, dashed(f.Name))
			}
			if arg, _ := flag.UnquoteUsage(f); typeNames[arg] {
				t.Errorf("cairn %s %s: its help names no value (write it in `backquotes`)", name, dashed(f.Name))
			}
		})
	}
}

// TestCompletionCoversTable: each shell's script offers every command, and
// every flag and word of each.
func TestCompletionCoversTable(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish"} {
		t.Run(shell, func(t *testing.T) {
			a, out, errb := testApp(t)
			if code := Run(context.Background(), []string{"completion", shell}, a); code != ExitOK {
				t.Fatalf("exit %d: %s", code, errb)
			}
			script := out.String()
			for _, c := range completions() {
				if !hasWord(script, c.name) {
					t.Errorf("no command %s", c.name)
				}
				offered := func(what string, words []string) {
					for _, w := range words {
						if shell == "fish" {
							w = strings.TrimLeft(w, "-") // -l json, -s n
						}
						if !hasWord(script, w) {
							t.Errorf("%s: no %s", what, w)
						}
					}
				}
				offered(c.name, c.words)
				offered(c.name, c.flags)
				for _, s := range c.subs {
					offered(c.name+" "+s.name, s.flags)
				}
			}
		})
	}
}

func hasWord(text, w string) bool {
	return regexp.MustCompile(`(^|[\s'(=])` + regexp.QuoteMeta(w) + `([\s')]|$)`).MatchString(text)
}

func TestSuggest(t *testing.T) {
	names := commandNames()
	tests := []struct{ typed, want string }{
		{"stauts", "status"},    // neighbours swapped
		{"statu", "status"},     // one left out
		{"sessons", "sessions"}, // one left out
		{"chekpoints", "checkpoints"},
		{"unistall", "uninstall"},
		{"hok", "hook"},
		{"frobnicate", ""},
		{"st", ""}, // too short to guess from
		{"", ""},
	}
	for _, tt := range tests {
		t.Run(tt.typed, func(t *testing.T) {
			if got := suggest(tt.typed, names); got != tt.want {
				t.Errorf("suggest(%q) = %q, want %q", tt.typed, got, tt.want)
			}
		})
	}
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "ab", 2},
		{"status", "status", 0}, {"stauts", "status", 1}, {"staus", "status", 1},
		{"statsu", "status", 1}, {"kitten", "sitting", 3}, {"ca", "abc", 3},
		{"défer", "defer", 1},
	}
	for _, tt := range tests {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestVersion(t *testing.T) {
	settings := func(kv ...string) []debug.BuildSetting {
		var s []debug.BuildSetting
		for i := 0; i < len(kv); i += 2 {
			s = append(s, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return s
	}
	rev := "13c5b027d295abb7556cef5d0a34f225db8d6667"
	tests := []struct {
		name, version string
		info          *debug.BuildInfo
		want          string
	}{
		{"release", "v1.2.0", &debug.BuildInfo{Settings: settings("vcs.revision", rev)}, "v1.2.0"},
		{"no build info", "dev", nil, "dev"},
		{"a checkout", "dev", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261124143745-13c5b027d295"},
			Settings: settings("vcs", "git", "vcs.revision", rev, "vcs.time", "2026-11-24T14:37:45Z", "vcs.modified", "false")},
			"dev (commit " + rev + ", 2026-11-24T14:37:45Z)"},
		{"a checkout with changes", "dev", &debug.BuildInfo{Settings: settings("vcs.revision", rev, "vcs.time", "2026-11-24T14:37:45Z", "vcs.modified", "true")},
			"dev (commit " + rev + ", 2026-11-24T14:37:45Z, with uncommitted changes)"},
		{"go install @version", "dev", &debug.BuildInfo{Main: debug.Module{Version: "v1.3.0"}}, "v1.3.0"},
		{"nothing recorded", "dev", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "dev (built without version control information)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := version(tt.version, tt.info); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	// cairn version reads the build information App is given.
	a, out, _ := testApp(t)
	a.BuildInfo = func() (*debug.BuildInfo, bool) {
		return &debug.BuildInfo{Settings: settings("vcs.revision", rev, "vcs.modified", "true")}, true
	}
	for _, args := range [][]string{{"version"}, {"--version"}} {
		out.Reset()
		if code := Run(context.Background(), args, a); code != ExitOK || out.String() != "cairn dev (commit "+rev+", with uncommitted changes)\n" {
			t.Errorf("%v: exit %d, %q", args, code, out)
		}
	}
}

// TestHookFromTerminal: a person who types cairn hook EVENT gets a usage
// error, not a wait on standard input and a failed run left in the log.
func TestHookFromTerminal(t *testing.T) {
	a, out, errb := testApp(t)
	a.StdinTerminal = func() bool { return true }
	a.Stdin = blockingReader{t}
	if code := Run(context.Background(), []string{"hook", "Stop"}, a); code != ExitUsage {
		t.Errorf("exit %d", code)
	}
	if !strings.HasPrefix(errb.String(), "cairn: error: cairn hook reads the event's JSON payload from standard input") || out.Len() > 0 {
		t.Errorf("stdout %q, stderr:\n%s", out, errb)
	}
	errb.Reset()
	Run(context.Background(), []string{"hook", "Stpo"}, a)
	if !strings.Contains(errb.String(), "cairn: hint: did you mean \"Stop\"?\n") {
		t.Errorf("stderr:\n%s", errb)
	}
	if _, err := os.Stat(filepath.Join(a.Getenv("XDG_STATE_HOME"), "cairn")); !os.IsNotExist(err) {
		t.Errorf("the state directory: %v", err)
	}
}

type blockingReader struct{ t *testing.T }

func (r blockingReader) Read([]byte) (int, error) {
	r.t.Error("read standard input")
	time.Sleep(time.Hour)
	return 0, nil
}

// TestErrorFormat: one error type, printed as an error line and a line
// per hint, with its exit code.
func TestErrorFormat(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
		code ExitCode
	}{
		{"none", nil, "", ExitOK},
		{"plain", os.ErrNotExist, "cairn: error: file does not exist\n", ExitError},
		{"with a hint", withHint(os.ErrNotExist, "look %s", "elsewhere"), "cairn: error: file does not exist\ncairn: hint: look elsewhere\n", ExitError},
		{"usage", withUsage(usageErrorf("give %d", 1), synopsis("status", statusCmd().args)),
			"cairn: error: give 1\ncairn: hint: usage: cairn status [--session ID | --transcript PATH] [--json] [--window N]\n", ExitUsage},
		{"usage once", withUsage(withUsage(usageErrorf("x"), synopsis("defer", deferCmd().args)), synopsis("slash", slashCmd().args)),
			"cairn: error: x\ncairn: hint: usage: cairn defer [N] [--session ID | --transcript PATH]\n", ExitUsage},
		{"hint added", addHint(usageErrorf("x"), "y"), "cairn: error: x\ncairn: hint: y\n", ExitUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			a := &App{Stderr: &b}
			if code := a.report(tt.err); code != tt.code || b.String() != tt.want {
				t.Errorf("exit %d, printed\n%s\nwant exit %d and\n%s", code, &b, tt.code, tt.want)
			}
		})
	}
}
