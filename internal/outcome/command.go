package outcome

import (
	"path"
	"slices"
	"strconv"
	"strings"
)

// kind says what a program's output is to Judge.
type kind uint8

const (
	// other programs print data (git, ls, curl, a project's own CLI):
	// their output is not read for an outcome, because a failure marker
	// in it is more likely content than a verdict.
	other kind = iota
	// runner programs run project code (a script, make, npm run, node
	// x.js): their output is read, and a test runner's summary in it
	// counts, but they have no silent success.
	runner
	// tests are test runners: their output ends with a verdict.
	tests
	// checks are compilers, linters, type checkers and formatters in
	// check mode: they print nothing, or a fixed line, when all is well,
	// so a complete output without a diagnostic is a pass.
	checks
)

// trivial programs do no work of their own: they do not make a command
// a build or a test, and their exit status says nothing about the work
// around them.
var trivial = []string{"echo", "printf", "true", "false", ":", "cd", "pushd", "popd", "export", "set", "unset",
	"sleep", "wait", "source", ".", "exit", "return", "shopt", "trap", "alias", "local", "declare", "test", "[", "[["}

// filters read a pipe and print a part or a view of it; at the end of a
// pipeline their exit status replaces the work's.
var filters = []string{"tail", "head", "grep", "egrep", "fgrep", "rg", "less", "more", "tee", "sort", "uniq", "wc",
	"cut", "sed", "awk", "tr", "cat", "column", "jq", "fold", "nl", "ts", "ansi2txt", "col"}

// work is one simple command that does something.
type work struct {
	key  string // program and subcommand, normalised: "mix test", "go test", "npm test"
	tool string // how Outcome names it, "" when not a build or test tool
	kind kind
}

// command is what Judge needs to know about a command line.
type command struct {
	works []work
	main  int // index in works of the work whose outcome is judged, -1 if none
	// hidden says what keeps the exit status from being the main work's:
	// HiddenPipe, HiddenList, HiddenOr or "".
	hidden string
	// grepLast is set when the pipe ends in grep, whose exit status 1
	// means "no line matched", not that the work failed.
	grepLast bool
	// shown describes how much of the work's output the filters after it
	// let through: shownAll, shownLines (at most limit lines), shownBytes
	// (at most limit bytes) or shownPart (a selection: grep, sed...).
	shown int
	limit int
	// echoed is set when the command ends by printing the work's exit
	// status ("; echo exit=$?", "; echo ${PIPESTATUS[0]}"): the output's
	// last lines then hold it, after echoPrefix, as the echoIndex-th
	// number.
	echoed     bool
	echoPrefix string
	echoIndex  int
}

const (
	shownAll = iota
	shownLines
	shownBytes
	shownPart
)

// parseCommand reads a command line: its works, the main one, and what
// hides the exit status.
func parseCommand(line string) command {
	cmds := splitShell(line)
	c := command{main: -1}
	pipefail := false
	// Pipelines: runs of simple commands joined by "|".
	type pipeline struct {
		from, to int // cmds[from:to]
		op       string
		pipefail bool
	}
	var pipes []pipeline
	var at, in []int // per work: its simple command, its pipeline
	for i := 0; i < len(cmds); {
		j := i
		for j < len(cmds)-1 && cmds[j].op == "|" {
			j++
		}
		p := pipeline{from: i, to: j + 1, op: cmds[j].op, pipefail: pipefail}
		for k := i; k <= j; k++ {
			words := programWords(cmds[k].words)
			if len(words) == 0 {
				continue
			}
			if words[0] == "set" {
				pipefail = setsPipefail(words[1:], pipefail)
				continue
			}
			if slices.Contains(trivial, words[0]) || slices.Contains(filters, words[0]) && (k > i || k < j) {
				// A filter after a pipe is a view of the work's output; one
				// at the head of a pipe ("cat log | grep x") reads data.
				continue
			}
			c.works = append(c.works, classify(words))
			at = append(at, k)
			in = append(in, len(pipes))
		}
		pipes = append(pipes, p)
		i = j + 1
	}
	// The main work is the last build or test tool, else the last runner,
	// else the last work.
	for i, w := range c.works {
		if c.main < 0 || rank(w.kind) >= rank(c.works[c.main].kind) {
			c.main = i
		}
	}
	if c.main < 0 {
		return c
	}
	// lost says what keeps the exit status of the command from being the
	// status of work w: a pipe into something else (without pipefail), or
	// a later "||", ";" or "&" (after "&&" the work's failure stands).
	lost := func(w int) string {
		p := pipes[in[w]]
		if at[w] < p.to-1 && !p.pipefail {
			return HiddenPipe
		}
		for q := in[w]; q < len(pipes)-1; q++ {
			switch pipes[q].op {
			case "||":
				return HiddenOr
			case ";", "&":
				return HiddenList
			}
		}
		if pipes[len(pipes)-1].op == "&" {
			return HiddenList
		}
		return ""
	}
	c.hidden = lost(c.main)
	for w := 0; w < c.main && c.hidden == ""; w++ {
		// "mix test | tail -3 && mix credo": the status is credo's, and
		// the tests' is lost; a lost "git pull" before the tests is not
		// what the outcome is about.
		if rank(c.works[w].kind) >= rank(c.works[c.main].kind) {
			c.hidden = lost(w)
		}
	}
	p := pipes[in[c.main]]
	if c.hidden != "" && in[c.main] == len(pipes)-2 && (p.op == ";" || p.op == "&&") {
		last := pipes[len(pipes)-1]
		c.statusEchoed(cmds[last.from:last.to], at[c.main]-p.from, at[c.main] == p.to-1 || p.pipefail)
	}
	if after := cmds[at[c.main]+1 : p.to]; len(after) > 0 {
		c.shown, c.limit = shownBy(after)
		// grep's status 1 ("no line matched") is the command's only when
		// its pipeline is the last.
		last := programWords(after[len(after)-1].words)
		c.grepLast = in[c.main] == len(pipes)-1 && len(last) > 0 && slices.Contains([]string{"grep", "egrep", "fgrep", "rg"}, last[0])
	}
	return c
}

// statusEchoed reads the pipeline after the work's when it exits with the
// work's status ("exit ${PIPESTATUS[0]}": nothing is hidden then) or
// prints it: "echo exit=$?" when the work's status is $? (last
// in its pipeline, or pipefail set), "echo ${PIPESTATUS[0]}" with the
// work's place in its pipeline, "echo ${PIPESTATUS[@]}".
func (c *command) statusEchoed(last []simple, pos int, own bool) {
	if len(last) != 1 {
		return
	}
	w := programWords(last[0].words)
	if len(w) == 2 && w[0] == "exit" {
		// "... | tee log; exit ${PIPESTATUS[0]}": the exit status shown is
		// the work's own.
		if w[1] == "${PIPESTATUS["+strconv.Itoa(pos)+"]}" || own && (w[1] == "$?" || w[1] == "${?}") {
			c.hidden = ""
		}
		return
	}
	if len(w) < 2 || w[0] != "echo" && w[0] != "printf" {
		return
	}
	arg := strings.Join(w[1:], " ")
	if w[0] == "printf" || strings.HasPrefix(arg, "-") {
		return // a format or options: the printed line is not arg
	}
	for _, v := range []string{"${PIPESTATUS[@]}", "${PIPESTATUS[*]}", "${PIPESTATUS[" + strconv.Itoa(pos) + "]}", "$?", "${?}"} {
		i := strings.Index(arg, v)
		if i < 0 {
			continue
		}
		switch {
		case strings.Contains(v, "[@]") || strings.Contains(v, "[*]"):
			c.echoIndex = pos
		case strings.Contains(v, "PIPESTATUS"):
			c.echoIndex = 0
		case !own:
			return // $? is the filter's
		}
		c.echoed, c.echoPrefix = true, strings.TrimSpace(arg[:i])
		return
	}
}

// echoedStatus finds the status the command printed (see statusEchoed)
// in the last lines of out.
func (c *command) echoedStatus(out string) (int, bool) {
	for n := 0; n < 3 && out != ""; n++ {
		out = strings.TrimRight(out, " \t\r\n")
		i := strings.LastIndexByte(out, '\n')
		l := strings.TrimSpace(out[i+1:])
		out = out[:max(i, 0)]
		rest, ok := strings.CutPrefix(l, c.echoPrefix)
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if c.echoIndex >= len(f) || !slices.ContainsFunc(f, isDigits) || slices.ContainsFunc(f, func(x string) bool { return !isDigits(x) }) {
			continue // not the status line: "exit=1" prints numbers only
		}
		if code, err := strconv.Atoi(f[c.echoIndex]); err == nil && code < 256 {
			return code, true
		}
	}
	return 0, false
}

func rank(k kind) int {
	return min(int(k), int(tests))
}

// shownBy says how much of the work's output the filters after it pass
// on: all of it (cat, tee), a number of lines or bytes from one end
// (head, tail), or a selection (anything else).
func shownBy(after []simple) (int, int) {
	shown, limit := shownAll, 0
	for _, s := range after {
		words := programWords(s.words)
		if len(words) == 0 {
			continue
		}
		switch words[0] {
		case "cat", "tee", "ansi2txt", "col":
		case "head", "tail":
			unit, n := headTailCount(words[1:])
			if unit == shownPart || shown != shownAll && shown != unit {
				return shownPart, 0
			}
			if shown == shownAll || n < limit {
				limit = n
			}
			shown = unit
		default:
			return shownPart, 0
		}
	}
	return shown, limit
}

// headTailCount reads head's or tail's options: -n N, -N, -nN, --lines=N,
// -c N; the default is 10 lines. tail -f and tail -n +N are not a count
// from the end: shownPart.
func headTailCount(args []string) (int, int) {
	unit, n := shownLines, 10
	for i := 0; i < len(args); i++ {
		a := args[i]
		var v string
		switch {
		case a == "-n" || a == "--lines" || a == "-c" || a == "--bytes":
			if i+1 < len(args) {
				v = args[i+1]
				i++
			}
			if a == "-c" || a == "--bytes" {
				unit = shownBytes
			}
		case strings.HasPrefix(a, "--lines="):
			v = a[len("--lines="):]
		case strings.HasPrefix(a, "--bytes="):
			v, unit = a[len("--bytes="):], shownBytes
		case strings.HasPrefix(a, "-n"):
			v = a[2:]
		case strings.HasPrefix(a, "-c"):
			v, unit = a[2:], shownBytes
		case a == "-f" || a == "-F" || a == "--follow":
			return shownPart, 0
		case len(a) > 1 && a[0] == '-' && isDigits(a[1:]):
			v = a[1:]
		case a[0] != '-':
			return shownPart, 0 // head FILE: not the pipe
		}
		if v != "" {
			if v[0] == '+' || v[0] == '-' {
				return shownPart, 0
			}
			k, err := strconv.Atoi(v)
			if err != nil {
				return shownPart, 0
			}
			n = k
		}
	}
	return unit, n
}

// setsPipefail reads a set builtin's arguments: set -o pipefail,
// set -euo pipefail, set +o pipefail.
func setsPipefail(args []string, on bool) bool {
	for i, a := range args {
		if a == "pipefail" && i > 0 {
			prev := args[i-1]
			if len(prev) > 1 && prev[len(prev)-1] == 'o' && (prev[0] == '-' || prev[0] == '+') {
				on = prev[0] == '-'
			}
		}
	}
	return on
}

// programWords drops what comes before the program: variable assignments,
// "!" and wrappers that run the rest (env, time, sudo, nice, timeout...).
func programWords(w []string) []string {
	for len(w) > 0 {
		a := w[0]
		switch {
		case isAssignment(a) || a == "!" || a == "then" || a == "do" || a == "else" || a == "if" || a == "while" || a == "until":
			w = w[1:]
		case a == "env" || a == "sudo" || a == "nohup" || a == "command" || a == "exec" || a == "time" || a == "nice" || a == "stdbuf" || a == "unbuffer":
			w = w[1:]
			for len(w) > 0 && (strings.HasPrefix(w[0], "-") || isAssignment(w[0])) {
				if w[0] == "-n" && a == "nice" && len(w) > 1 {
					w = w[1:]
				}
				w = w[1:]
			}
		case a == "timeout":
			w = w[1:]
			for len(w) > 0 && strings.HasPrefix(w[0], "-") {
				w = w[1:]
			}
			if len(w) > 0 { // the duration
				w = w[1:]
			}
		default:
			return w
		}
	}
	return w
}

func isAssignment(s string) bool {
	eq := strings.IndexByte(s, '=')
	if eq <= 0 {
		return false
	}
	for i := 0; i < eq; i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// firstArg returns the first argument that is not an option, skipping
// the values of the options listed in valued.
func firstArg(args []string, valued ...string) (string, int) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") {
			if slices.Contains(valued, a) {
				i++
			}
			continue
		}
		return a, i
	}
	return "", -1
}

func has(args []string, flag string) bool { return slices.Contains(args, flag) }

// toolSubcommands are the build and test tools by program, with the
// subcommands that make them one. The kind of a subcommand not listed is
// the program's default. (Slices and switches, not package-level maps: Go
// builds those in every process at start, the hooks' included.)
var toolSubcommands = []struct {
	prog string
	subs []subcommand
}{
	{"go", []subcommand{{"test", tests}, {"build", checks}, {"vet", checks}, {"install", checks}, {"run", runner}, {"generate", runner}}},
	{"cargo", []subcommand{{"test", tests}, {"nextest", tests}, {"build", checks}, {"check", checks}, {"clippy", checks}, {"doc", checks}, {"bench", tests}, {"run", runner}}},
	{"dotnet", []subcommand{{"test", tests}, {"build", checks}, {"run", runner}}},
	{"swift", []subcommand{{"test", tests}, {"build", checks}, {"run", runner}}},
	{"deno", []subcommand{{"test", tests}, {"check", checks}, {"lint", checks}, {"run", runner}}},
	{"bun", []subcommand{{"test", tests}, {"run", runner}}},
	{"zig", []subcommand{{"build", checks}, {"test", tests}}},
	{"rake", []subcommand{{"test", tests}, {"spec", tests}}},
}

type subcommand struct {
	name string
	kind kind
}

// toolSubcommandsOf are prog's subcommands if it is one of
// toolSubcommands.
func toolSubcommandsOf(prog string) ([]subcommand, bool) {
	for _, t := range toolSubcommands {
		if t.prog == prog {
			return t.subs, true
		}
	}
	return nil, false
}

// toolProgram is the kind of a program that is a build or test tool
// whatever its arguments.
func toolProgram(prog string) (kind, bool) {
	switch prog {
	case "pytest", "py.test", "unittest", "tox", "nox", "jest", "vitest", "mocha", "ava", "karma", "rspec",
		"phpunit", "ctest", "gotestsum":
		return tests, true
	case "tsc", "vue-tsc", "eslint", "biome", "prettier", "ruff", "mypy", "pyright", "flake8", "pylint",
		"black", "isort", "golangci-lint", "staticcheck", "shellcheck", "rubocop", "stylelint", "gcc", "g++", "cc",
		"c++", "clang", "clang++", "rustc", "javac", "kotlinc", "swiftc", "ninja", "cmake":
		return checks, true
	case "make", "gmake", "just", "task", "gradle", "mvn":
		return runner, true
	}
	return 0, false
}

// classify names the work a simple command does.
func classify(words []string) work {
	prog := path.Base(words[0])
	args := words[1:]
	switch prog {
	case "gradlew":
		prog = "gradle"
	case "mvnw":
		prog = "mvn"
	case "python", "python3", "py":
		if i := slices.Index(args, "-m"); i >= 0 && i+1 < len(args) {
			// python -m pytest: the module is the program.
			return classify(args[i+1:])
		}
		if has(args, "-c") {
			return work{key: prog + " -c", kind: other}
		}
		if f, _ := firstArg(args); f != "" {
			return work{key: prog + " " + path.Base(f), kind: runner}
		}
		return work{key: prog, kind: other}
	case "node", "ruby", "perl", "php", "deno", "tsx", "ts-node", "Rscript", "julia", "lua", "luajit", "elixir":
		if has(args, "-e") || has(args, "--eval") || has(args, "-p") {
			return work{key: prog + " -e", kind: other}
		}
		if prog == "deno" {
			break
		}
		if f, _ := firstArg(args); f != "" {
			return work{key: prog + " " + path.Base(f), kind: runner}
		}
		return work{key: prog, kind: other}
	case "bash", "sh", "zsh", "dash":
		if has(args, "-n") {
			f, _ := firstArg(args)
			return work{key: prog + " -n " + path.Base(f), tool: prog + " -n", kind: checks}
		}
		if has(args, "-c") {
			return work{key: prog + " -c", kind: runner}
		}
		if f, _ := firstArg(args); f != "" {
			return work{key: prog + " " + path.Base(f), kind: runner}
		}
		return work{key: prog, kind: other}
	case "npx", "bunx", "pnpx":
		i := 0
		for i < len(args) && strings.HasPrefix(args[i], "-") {
			i++
		}
		if i < len(args) {
			return classify(args[i:])
		}
		return work{key: prog, kind: other}
	case "bundle", "poetry", "uv", "pipenv", "pdm", "hatch", "rye":
		// bundle exec rspec, poetry run pytest, uv run pytest
		if len(args) > 1 && (args[0] == "exec" || args[0] == "run") {
			return classify(args[1:])
		}
	case "npm", "yarn", "pnpm":
		return npmWork(prog, args)
	case "mix":
		task, _ := firstArg(args)
		w := work{key: "mix " + task, tool: "mix " + task, kind: runner}
		switch task {
		case "test":
			w.kind = tests
		case "compile", "deps.compile", "dialyzer", "credo", "xref", "compile.app":
			w.kind = checks
		case "format":
			if !has(args, "--check-formatted") {
				w.tool = ""
				w.kind = runner
			} else {
				w.kind = checks
			}
		default:
			w.tool = ""
		}
		return w
	}
	if strings.HasPrefix(words[0], "./") || strings.HasPrefix(words[0], "/") || strings.Contains(words[0], "/") {
		// ./node_modules/.bin/jest, ./gradlew, bin/test, scripts/check.sh
		if k, ok := toolProgram(prog); ok {
			return toolWork(prog, args, k)
		}
		if _, ok := toolSubcommandsOf(prog); !ok && prog != "gradle" && prog != "mvn" {
			return work{key: prog, kind: runner}
		}
	}
	if subs, ok := toolSubcommandsOf(prog); ok {
		sub, _ := firstArg(args)
		if strings.HasPrefix(sub, "+") { // cargo +nightly test
			sub, _ = firstArg(args[1:])
		}
		w := work{key: prog + " " + sub, kind: other}
		if i := slices.IndexFunc(subs, func(s subcommand) bool { return s.name == sub }); i >= 0 {
			k := subs[i].kind
			w.kind = k
			if k != runner {
				w.tool = w.key
			}
		}
		return w
	}
	if k, ok := toolProgram(prog); ok {
		return toolWork(prog, args, k)
	}
	sub, i := firstArg(args)
	// The first word that is no option may be an option's value ("yarn"
	// of "--master yarn"), not a subcommand.
	valued := i > 0 && strings.HasPrefix(args[i-1], "-") && !strings.Contains(args[i-1], "=")
	if sub == "clean" && i >= 0 {
		// "sbt clean test", "lein clean test": the work is what follows.
		if next, _ := firstArg(args[i+1:]); next != "" {
			sub = next
		}
	}
	// sbt and its kin take a quoted command with its own arguments, a
	// project scope and a task: "ledger-core/testOnly *Spec", "Test/compile".
	sub, _, _ = strings.Cut(sub, " ")
	w := work{key: strings.TrimSpace(prog + " " + sub), kind: other}
	if script := launched(args); script != "" && valued && !isScript(sub) {
		// A launcher's options and their values come first, then the
		// script it runs: "spark-submit --master yarn jobs/enrich.py",
		// "torchrun --nproc_per_node 8 train.py". The script is the work,
		// not the first option's value ("yarn").
		w.key = prog + " " + path.Base(script)
	}
	// A program not listed, with a subcommand that says what it does:
	// cabal test, stack build, sbt test, lein test, dune build, pants lint.
	switch taskName(sub) {
	case "test", "tests", "spec", "specs", "check-tests", "testonly", "testquick", "it":
		w.kind, w.tool = tests, w.key
	case "build", "check", "lint", "typecheck", "compile", "verify", "vet":
		w.kind, w.tool = checks, w.key
	}
	return w
}

// launched is the first argument that names a script or a program's
// archive, "" when there is none.
func launched(args []string) string {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") && isScript(a) {
			return a
		}
	}
	return ""
}

// isScript says a word names a script or an archive to run, by its
// extension.
func isScript(w string) bool {
	switch path.Ext(w) {
	case ".py", ".jar", ".R", ".r", ".rb", ".js", ".mjs", ".cjs", ".ts", ".sh", ".pl", ".php", ".lua", ".jl", ".scala", ".sc", ".kts", ".exs", ".ipynb", ".sql":
		return !strings.ContainsAny(w, "=<>")
	}
	return false
}

// taskName is a subcommand without its project scope, lowercased:
// sbt's "ledger-core/testOnly" and "Test/compile", "core:test" are
// "testonly", "compile" and "test".
func taskName(sub string) string {
	if i := strings.LastIndexAny(sub, "/:"); i >= 0 && i < len(sub)-1 {
		sub = sub[i+1:]
	}
	return lowerASCII(sub)
}

// toolWork names a work by a program that is a tool whatever its
// arguments; make, gradle and mvn take their target as part of the name.
func toolWork(prog string, args []string, k kind) work {
	switch prog {
	case "make", "gmake", "just", "task":
		// The target: not an option, its value, or a VAR=value.
		t := ""
		for i := 0; i < len(args) && t == ""; i++ {
			switch a := args[i]; {
			case a == "-C" || a == "-f" || a == "-j" || a == "--directory" || a == "--file" || a == "-o" || a == "-W":
				i++
			case strings.HasPrefix(a, "-") || isAssignment(a):
			default:
				t = a
			}
		}
		key := strings.TrimSpace(prog + " " + t)
		return work{key: key, tool: key, kind: k}
	case "gradle", "mvn":
		t, _ := firstArg(args, "-p", "-pl", "-f", "-P", "-D", "--project-dir")
		key := strings.TrimSpace(prog + " " + t)
		return work{key: key, tool: key, kind: k}
	case "cmake":
		if !has(args, "--build") {
			return work{key: "cmake", kind: other}
		}
	case "prettier", "black", "isort":
		if !has(args, "--check") && !has(args, "--diff") {
			return work{key: prog, kind: other} // rewriting files, not checking
		}
	case "ruff":
		if sub, _ := firstArg(args); sub == "format" && !has(args, "--check") {
			return work{key: "ruff format", kind: other}
		}
	}
	return work{key: prog, tool: prog, kind: k}
}

// npmWork names npm, yarn and pnpm scripts. "npm test", "npm run test"
// and "yarn test" are the same work; the key says "npm" for all three.
func npmWork(prog string, args []string) work {
	sub, i := firstArg(args, "--prefix", "-C", "--filter", "-w", "--workspace")
	script := sub
	switch sub {
	case "run", "run-script":
		script, _ = firstArg(args[i+1:])
	case "test", "t", "tst":
		script = "test"
	case "exec", "dlx":
		if len(args) > i+1 {
			return classify(args[i+1:])
		}
	case "install", "i", "ci", "add", "remove", "uninstall", "update", "audit", "outdated", "ls", "list", "view", "info", "publish", "pack", "init", "link", "version", "":
		return work{key: strings.TrimSpace("npm " + sub), kind: other}
	default:
		if prog == "npm" { // npm <unknown command>
			return work{key: "npm " + sub, kind: other}
		}
		// yarn build, pnpm lint: a script.
	}
	w := work{key: "npm run " + script, tool: prog + " run " + script, kind: runner}
	if script == "test" {
		w.key, w.tool, w.kind = "npm test", prog+" test", tests
	}
	return w
}

// Works lists what a command line does, one key per simple command that
// is not a filter or a shell builtin: "mix compile", "mix test",
// "go test", "npm test", "make lint", "git push". Environment
// assignments, cd, wrappers (env, time, npx, bundle exec, python -m) and
// filters after a pipe are left out, and arguments after the subcommand
// are dropped: "cd x && MIX_ENV=test mix test test/a_test.exs 2>&1 | tail"
// is ["mix test"].
func Works(line string) []string {
	var keys []string
	for _, w := range parseCommand(line).works {
		if !slices.Contains(keys, w.key) {
			keys = append(keys, w.key)
		}
	}
	return keys
}

// SameWork says whether the later command line redoes all the work of the
// earlier one, by Works: "go test ./..." redoes "go test ./x",
// "mix compile && mix test" redoes "mix test", but "mix test" does not
// redo "mix compile && mix test", and "go vet" does not redo "go test".
// It is meant for marking an earlier failure resolved by a later run
// that passed.
func SameWork(earlier, later string) bool {
	a := Works(earlier)
	if len(a) == 0 {
		return false
	}
	b := Works(later)
	for _, k := range a {
		if !slices.Contains(b, k) {
			return false
		}
	}
	return true
}

// Narrower says whether the later command line runs only a part of what
// the earlier one ran: each of its targets is one of the earlier's or
// lies inside one ("manage.py test contacts" then "manage.py test
// contacts.tests.test_exports", "pytest tests" then "pytest
// tests/test_a.py::test_x"), and one at least lies inside. A narrower run
// that passes does not fix a wider one that failed.
func Narrower(earlier, later string) bool {
	a, b := targets(earlier), targets(later)
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	// The earlier line's own targets, those the later one does not
	// repeat: none when it ran the whole suite ("rspec", "mix test"),
	// which every target of the later line is inside.
	whole := true
	for _, u := range a {
		if !slices.Contains(b, u) {
			whole = false
			break
		}
	}
	narrower := false
	for _, t := range b {
		if slices.Contains(a, t) {
			continue
		}
		// Inside the whole suite: a path or a test's name ("spec/a_spec.rb",
		// "tests.test_x", "a.py::test_y"), not any word (a commit's message).
		inside := whole && strings.ContainsAny(t, "/.:") && suite(earlier)
		for _, u := range a {
			// A word both lines have is their subcommand ("test"), not
			// a target the later one narrows.
			if slices.Contains(b, u) {
				continue
			}
			if len(t) > len(u) && strings.HasPrefix(t, u) && (strings.ContainsRune("./:", rune(t[len(u)])) || strings.HasSuffix(u, "/")) {
				inside = true
				break
			}
		}
		if !inside {
			return false
		}
		narrower = true
	}
	return narrower
}

// suite says the line runs a test runner, whose later runs with a path
// run a part of it.
func suite(line string) bool {
	c := parseCommand(line)
	return c.main >= 0 && c.works[c.main].kind == tests
}

// NarrowedTo returns the targets of the later command line that narrow
// the earlier one's (see Narrower), nil when it does not narrow it.
func NarrowedTo(earlier, later string) []string {
	if !Narrower(earlier, later) {
		return nil
	}
	a := targets(earlier)
	var out []string
	for _, t := range targets(later) {
		if !slices.Contains(a, t) {
			out = append(out, t)
		}
	}
	return out
}

// targets are the words of a command line's works that are neither their
// program nor an option: subcommands, packages, paths, test names.
func targets(line string) []string {
	var out []string
	for _, c := range splitShell(line) {
		if len(c.words) == 0 || slices.Contains(filters, path.Base(c.words[0])) || slices.Contains(trivial, c.words[0]) {
			continue
		}
		for _, w := range c.words[1:] {
			if !strings.HasPrefix(w, "-") && !isAssignment(w) && !strings.ContainsAny(w, "<>") {
				out = append(out, w)
			}
		}
	}
	return out
}
