package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
)

// completionCmd is `cairn completion bash|zsh|fish`: a completion script
// written from the command table, so that it offers what help lists.
func completionCmd() command {
	shells := []string{"bash", "zsh", "fish"}
	return command{
		args:    "bash|zsh|fish",
		summary: "print a shell completion script for cairn's commands and their flags",
		details: `Load it in the shell's start-up file:
  bash: source <(cairn completion bash)      (in ~/.bashrc)
  zsh:  source <(cairn completion zsh)       (in ~/.zshrc, after compinit)
  fish: cairn completion fish | source       (in ~/.config/fish/config.fish)`,
		words:    shells,
		wordsAre: "shells",
		setup: func(*flag.FlagSet) runFunc {
			return func(_ context.Context, a *App, args []string) error {
				if len(args) != 1 {
					return usageErrorf("give the shell: bash, zsh or fish")
				}
				switch args[0] {
				case "bash":
					writeBash(a.Stdout)
				case "zsh":
					writeZsh(a.Stdout)
				case "fish":
					writeFish(a.Stdout)
				default:
					return unknownWord("shell", args[0], shells)
				}
				return nil
			}
		},
	}
}

// completed is one command (or subcommand) as the scripts offer it.
type completed struct {
	name, summary string
	// words may follow the name; flags are its flags, dashed, with --help.
	words, flags []string
	subs         []completed
}

func completions() []completed {
	var out []completed
	for _, c := range commands() {
		cc := completed{name: c.name, summary: c.summary, words: c.words, flags: flagsOf(c)}
		for _, s := range c.subcommands() {
			cc.words = append(cc.words, s.name)
			cc.subs = append(cc.subs, completed{name: s.name, summary: s.summary, words: s.words, flags: flagsOf(s)})
		}
		out = append(out, cc)
	}
	return out
}

// flagsOf is c's flags as a user types them.
func flagsOf(c command) []string {
	fs := newFlags(c.name)
	c.setup(fs)
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, dashed(f.Name)) })
	return append(names, "--help")
}

func writeBash(w io.Writer) {
	var names []string
	for _, c := range completions() {
		names = append(names, c.name)
	}
	fmt.Fprintf(w, `# bash completion for cairn, written by cairn completion bash.
# Load it with: source <(cairn completion bash)
_cairn() {
    local cur=${COMP_WORDS[COMP_CWORD]} words=""
    if [[ $COMP_CWORD -eq 1 ]]; then
        COMPREPLY=($(compgen -W %s -- "$cur"))
        return
    fi
    case ${COMP_WORDS[1]} in
`, bashWords(append(names, "--help", "--version")))
	for _, c := range completions() {
		fmt.Fprintf(w, "    %s)\n", c.name)
		if len(c.subs) > 0 {
			fmt.Fprintf(w, "        case ${COMP_WORDS[2]} in\n")
			for _, s := range c.subs {
				fmt.Fprintf(w, "        %s) words=%s ;;\n", s.name, bashWords(s.flags))
			}
			fmt.Fprintf(w, "        *) words=%s ;;\n        esac\n", bashWords(c.flags))
		} else {
			fmt.Fprintf(w, "        words=%s\n", bashWords(c.flags))
		}
		if len(c.words) > 0 {
			fmt.Fprintf(w, "        [[ $COMP_CWORD -eq 2 ]] && words+=\" \"%s\n", bashWords(c.words))
		}
		fmt.Fprintf(w, "        ;;\n")
	}
	fmt.Fprint(w, `    esac
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -o default -F _cairn cairn
`)
}

func bashWords(words []string) string { return shellQuote(strings.Join(words, " ")) }

// shellQuote quotes s for sh, bash and zsh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func writeZsh(w io.Writer) {
	fmt.Fprint(w, `#compdef cairn
# zsh completion for cairn, written by cairn completion zsh.
# Load it with: source <(cairn completion zsh)
_cairn() {
    local -a commands opts
    commands=(
`)
	for _, c := range completions() {
		fmt.Fprintf(w, "        %s\n", shellQuote(c.name+":"+c.summary))
	}
	fmt.Fprint(w, `    )
    if (( CURRENT == 2 )); then
        _describe -t commands 'cairn command' commands
        compadd -- --help --version
        return
    fi
    case ${words[2]} in
`)
	for _, c := range completions() {
		fmt.Fprintf(w, "    %s)\n", c.name)
		if len(c.subs) > 0 {
			fmt.Fprintf(w, "        case ${words[3]} in\n")
			for _, s := range c.subs {
				fmt.Fprintf(w, "        %s) opts=(%s) ;;\n", s.name, strings.Join(s.flags, " "))
			}
			fmt.Fprintf(w, "        *) opts=(%s) ;;\n        esac\n", strings.Join(c.flags, " "))
		} else {
			fmt.Fprintf(w, "        opts=(%s)\n", strings.Join(c.flags, " "))
		}
		if len(c.words) > 0 {
			fmt.Fprintf(w, "        (( CURRENT == 3 )) && opts+=(%s)\n", strings.Join(c.words, " "))
		}
		fmt.Fprintf(w, "        ;;\n")
	}
	fmt.Fprint(w, `    esac
    compadd -a opts
    _files
}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
    _cairn "$@"
else
    compdef _cairn cairn
fi
`)
}

func writeFish(w io.Writer) {
	fmt.Fprint(w, `# fish completion for cairn, written by cairn completion fish.
# Load it with: cairn completion fish | source
complete -c cairn -f
complete -c cairn -n __fish_use_subcommand -l help -d 'print the usage'
complete -c cairn -n __fish_use_subcommand -l version -d 'print the version'
`)
	for _, c := range completions() {
		fmt.Fprintf(w, "complete -c cairn -n __fish_use_subcommand -a %s -d %s\n", c.name, fishQuote(c.summary))
		in := "__fish_seen_subcommand_from " + c.name
		if len(c.words) > 0 {
			fmt.Fprintf(w, "complete -c cairn -n %s -a %s\n", fishQuote(in), fishQuote(strings.Join(c.words, " ")))
		}
		for _, f := range c.flags {
			fmt.Fprintf(w, "complete -c cairn -n %s %s\n", fishQuote(in), fishFlag(f))
		}
		for _, s := range c.subs {
			sin := in + "; and __fish_seen_subcommand_from " + s.name
			for _, f := range s.flags {
				fmt.Fprintf(w, "complete -c cairn -n %s %s\n", fishQuote(sin), fishFlag(f))
			}
		}
	}
	// Arguments that are paths (report, estimate, review) take files.
	fmt.Fprint(w, "complete -c cairn -n 'not __fish_use_subcommand' -F\n")
}

// fishFlag is a dashed flag as fish's complete takes it: -s n, -l json.
func fishFlag(f string) string {
	if name, ok := strings.CutPrefix(f, "--"); ok {
		return "-l " + name
	}
	return "-s " + strings.TrimPrefix(f, "-")
}

// fishQuote quotes s for fish, where a single-quoted string escapes only
// \ and '.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
