package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
)

// helpCmd is `cairn help [COMMAND [SUBCOMMAND]]`.
func helpCmd() command {
	return command{
		args:    "[COMMAND [SUBCOMMAND]]",
		summary: "print the commands, or one command's usage and flags (as cairn COMMAND --help does)",
		setup: func(*flag.FlagSet) runFunc {
			return func(_ context.Context, a *App, args []string) error {
				if len(args) == 0 {
					writeUsage(a.Stdout)
					return nil
				}
				c, name, rest, err := lookup(args)
				if err != nil {
					return err
				}
				if len(rest) > 0 {
					return usageErrorf("%s has no subcommand %q", "cairn "+name, rest[0])
				}
				writeHelp(a.Stdout, c, name)
				return nil
			}
		},
	}
}

// writeUsage prints every command with its synopsis, the flags every
// command takes and the exit codes.
func writeUsage(w io.Writer) {
	fmt.Fprintln(w, "cairn keeps an AI coding agent's working state through context compaction.")
	fmt.Fprintln(w, "\nUsage: cairn COMMAND [ARGUMENTS] [FLAGS]")
	fmt.Fprintln(w, "\nCommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %s\n      %s\n", synopsis(c.name, c.args), c.summary)
		for _, s := range c.subcommands() {
			fmt.Fprintf(w, "  %s\n      %s\n", synopsis(c.name+" "+s.name, s.args), s.summary)
		}
	}
	fmt.Fprint(w, `
Every command takes -h or --help, which prints its usage and flags; so does
cairn help COMMAND. cairn --version prints the version.

Exit codes:
  0  the command did what it was asked
  1  it failed: "cairn: error:" says what went wrong, "cairn: hint:" what to do
  2  the command line was wrong: an unknown command or flag, a missing or
     extra argument ("cairn: hint: usage:" gives the right one)
cairn hook and cairn statusline, which Claude Code runs, exit 0 on any failure
but a wrong command line: a hook never breaks the agent.

Environment:
  CLAUDE_CONFIG_DIR      where Claude Code keeps its files (default ~/.claude)
  XDG_STATE_HOME         cairn's state and log: $XDG_STATE_HOME/cairn (default ~/.local/state/cairn)
  XDG_DATA_HOME          cairn's database and install records (default ~/.local/share/cairn)
  CAIRN_CONTEXT_WINDOW   the context window in tokens, as --window sets it
  CAIRN_RESTORE_BUDGET   the restore's budget in tokens (over restore.budget in .claude/cairn.conf)
  CAIRN_TICKET_PREFIXES  more ticket id prefixes, comma-separated (over tickets.prefixes)
  NO_COLOR               set and not empty: a status line without colour
  CLAUDE_CODE_AUTO_COMPACT_WINDOW, CLAUDE_AUTOCOMPACT_PCT_OVERRIDE, DISABLE_AUTO_COMPACT
                         Claude Code's own settings, which the meter follows as it does
`)
}

// writeHelp prints the usage of the command c, called name ("review
// record" for a subcommand): its synopsis, what it does, its subcommands
// and its flags.
func writeHelp(w io.Writer, c command, name string) {
	fmt.Fprintf(w, "usage: %s\n", synopsis(name, c.args))
	for _, s := range c.subcommands() {
		fmt.Fprintf(w, "       %s\n", synopsis(name+" "+s.name, s.args))
	}
	fmt.Fprintf(w, "\n%s.\n", capitalize(c.summary))
	if c.details != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimRight(c.details, "\n"))
	}
	if len(c.words) > 0 {
		fmt.Fprintf(w, "\n%s: %s\n", capitalize(c.wordsAre), strings.Join(c.words, ", "))
	}
	fs := newFlags(name)
	c.setup(fs)
	fmt.Fprintln(w, "\nFlags:")
	var lines [][2]string
	width := len("-h, --help")
	fs.VisitAll(func(f *flag.Flag) {
		arg, usage := flag.UnquoteUsage(f)
		left := dashed(f.Name)
		if _, isBool := f.Value.(interface{ IsBoolFlag() bool }); !isBool {
			left += " " + arg
		}
		if f.DefValue != "" && f.DefValue != "0" && f.DefValue != "false" && f.DefValue != "0s" {
			usage += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		width = max(width, len(left))
		lines = append(lines, [2]string{left, usage})
	})
	lines = append(lines, [2]string{"-h, --help", "print this usage"})
	for _, l := range lines {
		fmt.Fprintf(w, "  %-*s  %s\n", width, l[0], l[1])
	}
	for _, s := range c.subcommands() {
		fmt.Fprintf(w, "\nFlags of %s: cairn help %s %s\n", s.name, name, s.name)
	}
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
