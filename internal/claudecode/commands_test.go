package claudecode

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-agent/cairn/internal/golden"
	"github.com/google/go-cmp/cmp"
)

func TestSlashCommands(t *testing.T) {
	cmds := SlashCommands()
	if got := sortedKeys(cmds); !slices.Contains(got, "checkpoint.md") || !slices.Contains(got, "handoff.md") {
		t.Fatalf("files %v", got)
	}
	for name, body := range cmds {
		if !generated([]byte(body)) {
			t.Errorf("%s: no marker", name)
		}
	}
	for _, name := range []string{"checkpoint.md", "handoff.md"} {
		body := cmds[name]
		// Claude Code reads front matter only at the very top.
		if !strings.HasPrefix(body, "---\n"+marker+"\ndescription: ") {
			t.Errorf("%s: front matter:\n%s", name, body)
		}
		if !generated([]byte(body)) {
			t.Errorf("%s: no marker", name)
		}
		if !strings.Contains(body, `--session "${CLAUDE_SESSION_ID}"`) {
			t.Errorf("%s: not for this session:\n%s", name, body)
		}
	}
	h := cmds["handoff.md"]
	for _, w := range []string{"allowed-tools: Bash(cairn handoff:*)\n", "```!\ncairn handoff ", "<<'CAIRN_REASON'\n$ARGUMENTS\nCAIRN_REASON\n```\n"} {
		if !strings.Contains(h, w) {
			t.Errorf("handoff.md lacks %q:\n%s", w, h)
		}
	}
	c := cmds["checkpoint.md"]
	for _, w := range []string{"allowed-tools: Bash(cairn slash checkpoint:*)\n", "!`cairn slash checkpoint --session \"${CLAUDE_SESSION_ID}\" $ARGUMENTS`\n"} {
		if !strings.Contains(c, w) {
			t.Errorf("checkpoint.md lacks %q:\n%s", w, c)
		}
	}
	// Only the intended blocks run: Claude Code runs any !` after a space.
	for name, body := range cmds {
		if n := strings.Count(body, "!`") + strings.Count(body, "```!"); n != 1 {
			t.Errorf("%s has %d shell blocks", name, n)
		}
	}
	// The files are project files, which teams commit: nothing of one
	// machine in them. Every command they run or allow is cairn's, by name.
	for name, body := range cmds {
		for _, l := range strings.Split(body, "\n") {
			if strings.Contains(l, "/cairn") || strings.Contains(l, "'cairn'") {
				t.Errorf("%s calls cairn by a path: %q", name, l)
			}
		}
		if !strings.Contains(body, "allowed-tools: Bash(cairn ") {
			t.Errorf("%s: allowed-tools does not name cairn from PATH:\n%s", name, body)
		}
	}
	// A path with a space is quoted alike in the command and the permission.
	q := slashCommands("/opt/my tools/cairn")["handoff.md"]
	if !strings.Contains(q, "Bash('/opt/my tools/cairn' handoff:*)") || !strings.Contains(q, "\n'/opt/my tools/cairn' handoff --session") {
		t.Errorf("quoting:\n%s", q)
	}
}

// TestHandoffReasonReachesCairnIntact runs the /handoff block as Claude
// Code does: $ARGUMENTS replaced by the text as typed, then the block given
// to a shell. Quotes, $, backticks and ! must reach cairn unchanged.
func TestHandoffReasonReachesCairnIntact(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	stub := filepath.Join(dir, "cairn")
	os.WriteFile(stub, []byte("#!/bin/sh\nfor a in \"$@\"; do printf '[%s]' \"$a\"; done > \""+dir+"/argv\"\ncat > \""+dir+"/stdin\"\n"), 0o755)
	body := slashCommands(stub)["handoff.md"]
	start := strings.Index(body, "```!\n") + len("```!\n")
	end := strings.Index(body[start:], "```")
	reason := `I'm done; the "export" bug & $HOME $(touch pwned) ` + "`tick`" + ` stay open!`
	block := strings.ReplaceAll(strings.ReplaceAll(body[start:start+end], "$ARGUMENTS", reason), "${CLAUDE_SESSION_ID}", "sess-1")
	cmd := exec.Command(sh, "-c", block)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	argv, _ := os.ReadFile(filepath.Join(dir, "argv"))
	stdin, _ := os.ReadFile(filepath.Join(dir, "stdin"))
	if string(argv) != "[handoff][--session][sess-1][--reason][-]" {
		t.Errorf("argv %s", argv)
	}
	if string(stdin) != reason+"\n" {
		t.Errorf("stdin %q, want %q", stdin, reason+"\n")
	}
	if _, err := os.Stat(filepath.Join(dir, "pwned")); err == nil {
		t.Error("the reason ran a command")
	}
}

func TestInstallUninstallCommands(t *testing.T) {
	project := t.TempDir()
	dir := filepath.Join(project, ".claude", "commands")
	os.MkdirAll(dir, 0o755)
	// The user has a /handoff of their own, and another command.
	mine := "---\ndescription: my handoff\n---\nWrite HANDOFF.md.\n"
	os.WriteFile(filepath.Join(dir, "handoff.md"), []byte(mine), 0o644)
	os.WriteFile(filepath.Join(dir, "review.md"), []byte("Review."), 0o644)

	// Every command but the user's handoff.md is cairn's to write.
	var ours []string
	for _, name := range sortedKeys(SlashCommands()) {
		if name != "handoff.md" {
			ours = append(ours, filepath.Join(dir, name))
		}
	}
	written, err := InstallCommands(project)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ours, written); diff != "" {
		t.Errorf("written (-want +got):\n%s", diff)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "handoff.md")); string(data) != mine {
		t.Error("the user's handoff.md was overwritten")
	}
	if Generated(filepath.Join(dir, "handoff.md")) || !Generated(filepath.Join(dir, "checkpoint.md")) {
		t.Error("Generated")
	}
	if fi, err := os.Stat(filepath.Join(dir, "checkpoint.md")); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v %v", fi.Mode(), err)
	}
	// A second install changes nothing; a file an older cairn wrote, with
	// its absolute path, is brought up to date.
	if written, err := InstallCommands(project); err != nil || len(written) != 0 {
		t.Errorf("second install wrote %v %v", written, err)
	}
	older := slashCommands("/home/someone/go/bin/cairn")["checkpoint.md"]
	os.WriteFile(filepath.Join(dir, "checkpoint.md"), []byte(older), 0o644)
	if written, err := InstallCommands(project); err != nil || len(written) != 1 {
		t.Errorf("over an older file wrote %v %v", written, err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "checkpoint.md")); string(data) != SlashCommands()["checkpoint.md"] {
		t.Errorf("not updated:\n%s", data)
	}

	removed, err := UninstallCommands(project)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(ours, removed); diff != "" {
		t.Errorf("removed (-want +got):\n%s", diff)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "handoff.md")); string(data) != mine {
		t.Error("uninstall touched the user's handoff.md")
	}
	des, _ := os.ReadDir(dir)
	var left []string
	for _, de := range des {
		left = append(left, de.Name())
	}
	if diff := cmp.Diff([]string{"handoff.md", "review.md"}, left); diff != "" {
		t.Errorf("left (-want +got):\n%s", diff)
	}
	if removed, err := UninstallCommands(project); err != nil || len(removed) != 0 {
		t.Errorf("second uninstall %v %v", removed, err)
	}

	// In a fresh project both are written, and both removed.
	fresh := t.TempDir()
	os.MkdirAll(filepath.Join(fresh, ".claude", "commands"), 0o755)
	if written, err := InstallCommands(fresh); err != nil || len(written) != len(ours)+1 {
		t.Errorf("fresh install %v %v", written, err)
	}
	// A user who deletes the marker line keeps the file.
	p := filepath.Join(fresh, ".claude", "commands", "handoff.md")
	data, _ := os.ReadFile(p)
	os.WriteFile(p, []byte(strings.Replace(string(data), marker+"\n", "", 1)), 0o644)
	if removed, err := UninstallCommands(fresh); err != nil || len(removed) != len(ours) || slices.ContainsFunc(removed, func(p string) bool { return filepath.Base(p) == "handoff.md" }) {
		t.Errorf("fresh uninstall %v %v", removed, err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Errorf("the adopted file was removed: %v", err)
	}
}

// The checklist's "Skill is discoverable": the command file's shape.
func TestReviewCompactCommand(t *testing.T) {
	s := reviewCompact("/opt/my tools/cairn")
	golden.Check(t, filepath.Join("testdata", "review-compact.md"), s)
	for _, want := range []string{"# cairn: generated", "argument-hint: [path]", "allowed-tools: Bash('/opt/my tools/cairn' review:*)", "!`'/opt/my tools/cairn' review $ARGUMENTS`"} {
		if !strings.Contains(s, want) {
			t.Errorf("lacks %q", want)
		}
	}
}

// Seed 001: /compound promotes only what the user names.
func TestCompoundCommand(t *testing.T) {
	got := compound("/usr/local/bin/cairn")
	golden.Check(t, filepath.Join("testdata", "compound.md.golden"), got)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "compound.md"), []byte(got), 0o644)
	// The handoff package installs it and recognises its files by this
	// line (handoff's own tests check every installed command has it).
	if data, _ := os.ReadFile(filepath.Join(dir, "compound.md")); !strings.Contains(string(data), "# cairn: generated; cairn uninstall removes it") {
		t.Error("cairn does not recognise the file as its own")
	}
	// Human approval: the only command that runs by itself lists; the
	// promotion is an instruction that waits for the user's answer.
	bang := strings.SplitN(got, "\n\n", 2)[0]
	if strings.Contains(bang, "--promote") {
		t.Error("the command promotes before the user answers")
	}
	if !strings.Contains(got, "Promote nothing before the user answers") {
		t.Error("the command does not ask the user")
	}
	if q := compound("/opt/my tools/cairn"); !strings.Contains(q, "'/opt/my tools/cairn' compound") {
		t.Errorf("exe not quoted:\n%s", q)
	}
}
