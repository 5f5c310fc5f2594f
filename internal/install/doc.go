// Package install wires cairn into Claude Code and takes it out again, and
// checks that wiring for `cairn doctor`: the hooks and the status line in
// the settings files (through claudecode/settings, which undoes an install
// byte for byte), the slash commands in the project, and what install
// cannot fix by itself (a settings.local.json git would commit, a PATH
// without cairn). It says what it did on Setup.Out; the command line
// chooses the words for its errors.
package install
