package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// runFunc runs a command with the arguments its flags left.
type runFunc func(ctx context.Context, a *App, args []string) error

// A command is one of cairn's subcommands. Its flags are defined in one
// place, setup, which parsing, help and the shell completion all read.
type command struct {
	// name is the one its entry gives it.
	name string
	// args is the synopsis after the name: every flag and argument the
	// command takes (a test checks that it names every flag).
	args    string
	summary string
	// details, when there are any, follow the summary in the help.
	details string
	// setup defines the command's flags on fs and returns what runs it.
	setup func(fs *flag.FlagSet) runFunc
	// raw commands get their arguments unparsed; the function setup
	// returns parses them with fs itself.
	raw bool
	// subs are subcommands with flags of their own (review record).
	subs []entry
	// words may follow the name: subcommands, events, shells. The shell
	// completion offers them and an unknown one gets a did-you-mean;
	// help lists them as wordsAre ("events").
	words    []string
	wordsAre string
}

// An entry names a command and builds it. Only the command that runs is
// built (help and the completion build them all): a hook, which runs on
// every prompt, touches no other command's code.
type entry struct {
	name  string
	build func() command
}

func (e entry) command() command {
	c := e.build()
	c.name = e.name
	return c
}

// subcommands are c's subcommands, built.
func (c command) subcommands() []command {
	var subs []command
	for _, e := range c.subs {
		subs = append(subs, e.command())
	}
	return subs
}

// table is cairn's commands, in the order help lists them.
func table() []entry {
	return []entry{
		{"status", statusCmd}, {"sessions", sessionsCmd}, {"report", reportCmd}, {"ui", uiCmd},
		{"install", installCmd}, {"uninstall", uninstallCmd}, {"doctor", doctorCmd}, {"gc", gcCmd},
		{"checkpoint", checkpointCmd}, {"checkpoints", checkpointsCmd}, {"show", showCmd}, {"resume", resumeCmd},
		{"handoff", handoffCmd}, {"loop", loopCmd}, {"run", superviseCmd}, {"bind", bindCmd}, {"tracker", trackerCmd}, {"snapshot", snapshotCmd}, {"snapshots", snapshotsCmd}, {"estimate", estimateCmd}, {"defer", deferCmd},
		{"review", reviewCmd}, {"compound", compoundCmd}, {"learn", learnCmd},
		{"search", searchCmd}, {"timeline", timelineCmd}, {"get", getCmd}, {"remember", rememberCmd}, {"forget", forgetCmd},
		{"web", webCmd},
		{"statusline", statuslineCmd}, {"hook", hookCmd}, {"slash", slashCmd}, {"mcp", mcpCmd},
		{"version", versionCmd}, {"completion", completionCmd}, {"help", helpCmd},
	}
}

// commands is every command, built.
func commands() []command {
	var cs []command
	for _, e := range table() {
		cs = append(cs, e.command())
	}
	return cs
}

func commandNames() []string {
	var names []string
	for _, e := range table() {
		names = append(names, e.name)
	}
	return names
}

// lookup finds the command args name, and its subcommand when it has
// them; full is "review record" for that one.
func lookup(args []string) (c command, full string, rest []string, err error) {
	for _, e := range append(table(), hidden()...) {
		if e.name != args[0] {
			continue
		}
		c := e.command()
		if len(args) > 1 {
			for _, s := range c.subs {
				if s.name == args[1] {
					return s.command(), c.name + " " + s.name, args[2:], nil
				}
			}
		}
		return c, c.name, args[1:], nil
	}
	return command{}, "", nil, unknownCommand(args[0])
}

// unknownCommand is the usage error for a command cairn does not have,
// with the command it is a typo of, if any.
func unknownCommand(name string) error {
	if strings.HasPrefix(name, "-") {
		err := usageErrorf("unknown flag %s", name)
		if s := suggest(strings.TrimLeft(name, "-"), []string{"help", "version"}); s != "" {
			return addHint(err, fmt.Sprintf("did you mean %q?", "--"+s))
		}
		return addHint(err, "cairn help lists the commands and their flags")
	}
	err := usageErrorf("unknown command %q", name)
	if s := suggest(name, commandNames()); s != "" {
		return addHint(err, fmt.Sprintf("did you mean %q?", s))
	}
	return addHint(err, "cairn help lists the commands")
}

// unknownWord is the usage error for a word that is not one of words (a
// subcommand, a shell), with the one it is a typo of, if any.
func unknownWord(what, typed string, words []string) error {
	err := usageErrorf("unknown %s %q", what, typed)
	if s := suggest(typed, words); s != "" {
		return addHint(err, fmt.Sprintf("did you mean %q?", s))
	}
	return err
}

// run runs the command args name. A usage error it returns ends with the
// command's usage.
func (a *App) run(ctx context.Context, args []string) error {
	c, name, rest, err := lookup(args)
	if err != nil {
		return err
	}
	fs := newFlags(name)
	run := c.setup(fs)
	if !c.raw {
		if rest, err = parse(fs, rest); err == nil {
			err = run(ctx, a, rest)
		}
	} else {
		err = run(ctx, a, rest)
	}
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		writeHelp(a.Stdout, c, name)
		return nil
	}
	return withUsage(err, synopsis(name, c.args))
}

// withUsage ends a usage error with the usage of the command that
// refused it, once: a command that runs another (slash) adds nothing.
func withUsage(err error, usage string) error {
	var ce *cliError
	if !errors.As(err, &ce) || ce.code != ExitUsage || ce.usage {
		return err
	}
	u := *ce
	u.hints = append(append([]string(nil), ce.hints...), "usage: "+usage)
	u.usage = true
	return &u
}

// synopsis is how the command name is used: "cairn status [--json]".
func synopsis(name, args string) string {
	if args == "" {
		return "cairn " + name
	}
	return "cairn " + name + " " + args
}

// newFlags makes a flag set that reports errors as usage errors.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// noArgs refuses arguments a command does not take.
func noArgs(rest []string) error {
	if len(rest) > 0 {
		return usageErrorf("unexpected argument %q", rest[0])
	}
	return nil
}

// parse parses flags anywhere among the arguments, up to a --, and
// returns the rest.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, flagError(fs, err)
		}
		left := fs.Args()
		if n := len(args) - len(left); n > 0 && args[n-1] == "--" {
			// After --, everything is an argument: `cairn run -- claude
			// -p` gives -p to claude.
			return append(rest, left...), nil
		}
		args = left
		if len(args) == 0 {
			return rest, nil
		}
		rest = append(rest, args[0])
		args = args[1:]
	}
}

// flagError words the flag package's errors as cairn's usage errors, with
// a did-you-mean for a flag the command does not have.
func flagError(fs *flag.FlagSet, err error) error {
	msg := err.Error()
	if f, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		e := usageErrorf("unknown flag %s", dashed(f))
		var names []string
		fs.VisitAll(func(fl *flag.Flag) { names = append(names, fl.Name) })
		if s := suggest(f, names); s != "" {
			e = addHint(e, fmt.Sprintf("did you mean %q?", dashed(s)))
		}
		return e
	}
	if f, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return usageErrorf("%s needs a value", dashed(f))
	}
	return usageErrorf("%s", msg)
}

// dashed is a flag's name as cairn writes it: -n, --json.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}
