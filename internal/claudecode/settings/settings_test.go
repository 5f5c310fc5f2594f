package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-agent/cairn/internal/golden"
	"github.com/google/go-cmp/cmp"
)

// isCairn is the test's IsOurs: a command whose first word is a program named
// cairn and whose second word is "hook".
func isCairn(command string) bool {
	f := strings.Fields(command)
	return len(f) >= 2 && filepath.Base(f[0]) == "cairn" && f[1] == "hook"
}

var cairnHooks = []Hook{
	{Event: "SessionStart", Command: "cairn hook session-start", Timeout: 10},
	{Event: "PostToolUse", Command: "cairn hook post-tool-use", Timeout: 5},
	{Event: "PreCompact", Command: "cairn hook pre-compact", Timeout: 30},
	{Event: "PreToolUse", Matcher: "Bash", Command: "cairn hook pre-tool-use"},
	{Event: "SessionEnd", Command: "cairn hook session-end", Timeout: 2},
}

// hooksOnly is cairn's hooks and nothing of the status line.
var hooksOnly = Wiring{Hooks: cairnHooks, IsOurs: isCairn}

// hooksWiring is hooksOnly with other hooks.
func hooksWiring(hooks []Hook) Wiring { return Wiring{Hooks: hooks, IsOurs: isCairn} }

// TestGolden installs cairnHooks into each hand-written file in testdata/in
// and uninstalls them again: with the record of what was there before,
// the round trip gives back the very bytes, whatever the file's layout.
// Files that are refused have their error message as golden output
// instead.
func TestGolden(t *testing.T) {
	ins, err := filepath.Glob(filepath.Join("testdata", "in", "*.json"))
	if err != nil || len(ins) == 0 {
		t.Fatal("no inputs", err)
	}
	for _, in := range ins {
		name := strings.TrimSuffix(filepath.Base(in), ".json")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			installed, changed, err := hooksOnly.Install(data)
			if err != nil {
				golden.Check(t, filepath.Join("testdata", "golden", name+".err"), []byte(err.Error()+"\n"))
				for _, f := range []func() error{
					func() error { _, _, err := hooksOnly.Uninstall(data, nil); return err },
					func() error { _, err := hooksOnly.Installed(data); return err },
					func() error { _, err := hooksOnly.Before(data); return err },
				} {
					if got := f(); got == nil || got.Error() != err.Error() {
						t.Errorf("Uninstall, Installed or Before gave %v, want %v", got, err)
					}
				}
				return
			}
			if !changed {
				t.Error("Install changed nothing")
			}
			golden.Check(t, filepath.Join("testdata", "golden", name+".install.json"), installed)

			again, changed, err := hooksOnly.Install(installed)
			if err != nil || changed || !bytes.Equal(again, installed) {
				t.Errorf("second Install: changed %v, err %v", changed, err)
			}
			got, err := hooksOnly.Installed(installed)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(cairnHooks, got, cmpHooks); diff != "" {
				t.Errorf("Installed (-want +got):\n%s", diff)
			}

			before, err := hooksOnly.Before(data)
			if err != nil {
				t.Fatal(err)
			}
			uninstalled, _, err := hooksOnly.Uninstall(installed, before)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(uninstalled, before) {
				t.Errorf("Uninstall after Install did not give the file back:\n%s", cmp.Diff(string(before), string(uninstalled)))
			}
			if hooks, _ := hooksOnly.Installed(data); len(hooks) == 0 && !bytes.Equal(before, data) {
				t.Error("Before changed a file without cairn's hooks")
			}
			// Without the record: what Uninstall can tell from the file alone.
			blind, _, err := hooksOnly.Uninstall(installed, nil)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "golden", name+".uninstall.json"), blind)
			if got, _ := hooksOnly.Installed(blind); len(got) > 0 {
				t.Errorf("left after Uninstall: %v", got)
			}
		})
	}
}

// cmpHooks compares lists of hooks in any order.
var cmpHooks = cmp.Transformer("sorted", func(hs []Hook) map[Hook]int {
	m := map[Hook]int{}
	for _, h := range hs {
		m[h]++
	}
	return m
})

// TestStyles installs into hand-written files in the layouts people use
// and checks that what is added follows the file's layout, and that the
// round trip gives back the very bytes.
func TestStyles(t *testing.T) {
	w := Wiring{Hooks: cairnHooks[:1], IsOurs: isCairn, StatusLine: statusBase, StatusOurs: isCairnStatus}
	tests := []struct {
		name, in string
		want     []string // lines (or line parts) the installed file must have
	}{
		{"two spaces", "{\n  \"model\": \"opus\"\n}\n", []string{"\n  \"hooks\": {\n    \"SessionStart\": [\n      {\n", "\n  \"statusLine\": {\n    \"type\": \"command\",\n"}},
		{"four spaces", "{\n    \"model\": \"opus\"\n}\n", []string{"\n    \"hooks\": {\n        \"SessionStart\": [\n            {\n"}},
		{"tabs", "{\n\t\"model\": \"opus\",\n\t\"env\": {\n\t\t\"A\": \"1\"\n\t}\n}\n", []string{"\n\t\"hooks\": {\n\t\t\"SessionStart\": [\n\t\t\t{\n"}},
		{"CRLF", "{\r\n  \"model\": \"opus\"\r\n}\r\n", []string{",\r\n  \"hooks\": {\r\n    \"SessionStart\": [\r\n"}},
		{"CRLF and tabs, no final newline", "{\r\n\t\"model\": \"opus\"\r\n}", []string{",\r\n\t\"hooks\": {\r\n\t\t\"SessionStart\": [\r\n", "\r\n}"}},
		{"no final newline", "{\n  \"model\": \"opus\"\n}", []string{"\n  }\n}"}},
		{"one line, minified", `{"model":"opus","permissions":{"allow":["Read"]}}`, []string{`"allow":["Read"]},"hooks":{"SessionStart":[{"matcher":"","hooks":[{"type":"command",`}},
		{"one line, spaced", `{"model": "opus", "permissions": {"allow": ["Read"]}}`, []string{`{"allow": ["Read"]}, "hooks": {"SessionStart": [{"matcher": "", "hooks": [{"type": "command", `}},
		{"one line with a newline after", "{ \"model\": \"opus\" }\n", []string{`{ "model": "opus", "hooks": {"SessionStart": [{`, "} }\n"}},
		{"spaces around the colon", "{\n  \"model\" : \"opus\"\n}\n", []string{"\n  \"hooks\" : {\n    \"SessionStart\" : [\n"}},
		{"indented under a deeper first line", "{\"model\": \"opus\",\n   \"env\": {}\n}\n", []string{",\n   \"hooks\": {"}},
		{"empty hooks with a space", "{\n  \"hooks\": { },\n  \"model\": \"opus\"\n}\n", []string{"\n  \"hooks\": {\n    \"SessionStart\": ["}},
		{"empty object on two lines", "{\n}\n", []string{"{\n  \"hooks\": {"}},
		{"empty object in CRLF", "{\r\n}\r\n", []string{"{\r\n  \"hooks\": {\r\n"}},
		{"white space only", " \n\n", []string{"{\n  \"hooks\": {"}},
		{"empty", "", []string{"{\n  \"hooks\": {"}},
		{"a user's hook in a mixed layout", "{\"hooks\": {\"SessionStart\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"echo hi\"}]}]},\n\t\"model\": \"x\"}",
			[]string{`{"hooks": [{"type": "command", "command": "echo hi"}]}, {"matcher": "", "hooks": [{"type": "command", "command": "cairn hook session-start", "timeout": 10}]}]}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, changed, err := w.Install([]byte(tt.in))
			if err != nil || !changed {
				t.Fatalf("changed %v, err %v", changed, err)
			}
			for _, want := range tt.want {
				if !strings.Contains(string(out), want) {
					t.Errorf("installed file lacks %q:\n%s", want, out)
				}
			}
			if !json.Valid(out) {
				t.Errorf("not JSON:\n%s", out)
			}
			before, _ := w.Before([]byte(tt.in))
			back, _, err := w.Uninstall(out, before)
			if err != nil {
				t.Fatal(err)
			}
			if string(back) != tt.in {
				t.Errorf("round trip gave\n%q\nwant\n%q", back, tt.in)
			}
		})
	}
}

func TestInstall(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		hooks []Hook
		want  string // "" when nothing changes
	}{
		{
			name:  "new event gets its own group",
			in:    `{"hooks":{"Stop":[{"matcher":"","hooks":[{"type":"command","command":"echo hi"}]}]}}`,
			hooks: []Hook{{Event: "Stop", Command: "cairn hook stop", Timeout: 10}},
			want: `{"hooks":{"Stop":[{"matcher":"","hooks":[{"type":"command","command":"echo hi"}]},
				{"matcher":"","hooks":[{"type":"command","command":"cairn hook stop","timeout":10}]}]}}`,
		},
		{
			name:  "already there",
			in:    `{"hooks":{"Stop":[{"matcher":"","hooks":[{"type":"command","command":"cairn hook stop","timeout":10}]}]}}`,
			hooks: []Hook{{Event: "Stop", Command: "cairn hook stop", Timeout: 10}},
		},
		{
			name:  "timeout spelled differently is equal",
			in:    `{"hooks":{"Stop":[{"hooks":[{"timeout":1.0e1,"command":"cairn hook stop","type":"command"}]}]}}`,
			hooks: []Hook{{Event: "Stop", Command: "cairn hook stop", Timeout: 10}},
		},
		{
			name:  "updated in place, other keys kept",
			in:    `{"hooks":{"Stop":[{"matcher":"","hooks":[{"type":"command","command":"echo a"},{"command":"/usr/bin/cairn hook stop","timeout":1,"async":true},{"type":"command","command":"echo b"}]}]}}`,
			hooks: []Hook{{Event: "Stop", Command: "cairn hook stop", Timeout: 10}},
			want:  `{"hooks":{"Stop":[{"matcher":"","hooks":[{"type":"command","command":"echo a"},{"type":"command","command":"cairn hook stop","timeout":10,"async":true},{"type":"command","command":"echo b"}]}]}}`,
		},
		{
			name:  "timeout 0 removes the timeout",
			in:    `{"hooks":{"Stop":[{"hooks":[{"type":"command","timeout":3,"command":"cairn hook stop"}]}]}}`,
			hooks: []Hook{{Event: "Stop", Command: "cairn hook stop"}},
			want:  `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"cairn hook stop"}]}]}}`,
		},
		{
			name:  "duplicates of ours removed",
			in:    `{"hooks":{"Stop":[{"matcher":"","hooks":[{"type":"command","command":"cairn hook stop"}]},{"matcher":"","hooks":[{"type":"command","command":"echo a"},{"type":"command","command":"cairn hook stop"}]}]}}`,
			hooks: []Hook{{Event: "Stop", Command: "cairn hook stop"}},
			want:  `{"hooks":{"Stop":[{"matcher":"","hooks":[{"type":"command","command":"cairn hook stop"}]},{"matcher":"","hooks":[{"type":"command","command":"echo a"}]}]}}`,
		},
		{
			name:  "other matcher moves to a new group",
			in:    `{"hooks":{"PreToolUse":[{"matcher":"Edit","hooks":[{"type":"command","command":"cairn hook pre"}]}]}}`,
			hooks: []Hook{{Event: "PreToolUse", Matcher: "Bash", Command: "cairn hook pre"}},
			want:  `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"cairn hook pre"}]}]}}`,
		},
		{
			name:  "same command is paired first",
			in:    `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"cairn hook b"},{"type":"command","command":"cairn hook a"}]}]}}`,
			hooks: []Hook{{Event: "Stop", Command: "cairn hook a"}, {Event: "Stop", Command: "cairn hook b"}},
		},
		{
			name: "hooks sharing a matcher share a new group",
			in:   `{"permissions":{}}`,
			hooks: []Hook{
				{Event: "Stop", Command: "cairn hook a"},
				{Event: "SessionStart", Matcher: "compact", Command: "cairn hook s"},
				{Event: "Stop", Command: "cairn hook b"},
			},
			want: `{"permissions":{},"hooks":{
				"Stop":[{"matcher":"","hooks":[{"type":"command","command":"cairn hook a"},{"type":"command","command":"cairn hook b"}]}],
				"SessionStart":[{"matcher":"compact","hooks":[{"type":"command","command":"cairn hook s"}]}]}}`,
		},
		{
			name:  "a group in the file is never joined",
			in:    `{"hooks":{"Stop":[{"matcher":"","hooks":[{"type":"command","command":"cairn hook a"},{"type":"command","command":"echo"}]}]}}`,
			hooks: []Hook{{Event: "Stop", Command: "cairn hook a"}, {Event: "Stop", Command: "cairn hook b"}},
			want: `{"hooks":{"Stop":[{"matcher":"","hooks":[{"type":"command","command":"cairn hook a"},{"type":"command","command":"echo"}]},
				{"matcher":"","hooks":[{"type":"command","command":"cairn hook b"}]}]}}`,
		},
		{
			name:  "missing type is added",
			in:    `{"hooks":{"Stop":[{"hooks":[{"command":"cairn hook stop"}]}]}}`,
			hooks: []Hook{{Event: "Stop", Command: "cairn hook stop"}},
			want:  `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"cairn hook stop"}]}]}}`,
		},
		{
			name:  "no hooks, no change",
			in:    `{"a":1}`,
			hooks: nil,
		},
		{
			name:  "strings written as JSON.stringify would",
			in:    `{}`,
			hooks: []Hook{{Event: "Stop", Command: `cairn hook stop --tag "<é>" & \x`}},
			want:  `{"hooks":{"Stop":[{"matcher":"","hooks":[{"type":"command","command":"cairn hook stop --tag \"<é>\" & \\x"}]}]}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := []byte(doc(t, tt.in))
			got, changed, err := hooksWiring(tt.hooks).Install(in)
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == "" {
				if changed || !bytes.Equal(got, in) {
					t.Errorf("changed to\n%s", got)
				}
				return
			}
			if !changed {
				t.Error("changed = false")
			}
			if diff := cmp.Diff(doc(t, tt.want), string(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestInstallRefusesBadWiring(t *testing.T) {
	tests := []struct {
		w    Wiring
		want string
	}{
		{hooksWiring([]Hook{{Command: "cairn hook x"}}), `hook "cairn hook x" has no event`},
		{hooksWiring([]Hook{{Event: "Stop"}}), `Stop hook has no command`},
		{hooksWiring([]Hook{{Event: "Stop", Command: "cairn hook x", Timeout: -1}}), `Stop hook "cairn hook x" has a negative timeout`},
		{hooksWiring([]Hook{{Event: "Stop", Command: "echo"}}), `Stop hook "echo" is not one IsOurs recognises`},
		{Wiring{StatusLine: "echo hi", StatusOurs: isCairnStatus}, `status line "echo hi" is not one StatusOurs recognises`},
		{Wiring{StatusLine: statusBase}, `status line "cairn statusline" is not one StatusOurs recognises`},
		{Wiring{StatusLine: ChainedCommand(statusBase, "x"), StatusOurs: isCairnStatus}, `status line "cairn statusline --chain x" chains a command already: give the command alone`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			_, _, err := tt.w.Install([]byte(`{}`))
			if err == nil || err.Error() != tt.want {
				t.Errorf("err = %v, want %s", err, tt.want)
			}
		})
	}
}

func TestUninstall(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		before string // "-" for no record
		want   string // "" when nothing changes
	}{
		{
			name:   "user's empty containers stay",
			in:     `{"hooks":{"Stop":[],"SessionEnd":[{"matcher":"","hooks":[]}]}}`,
			before: "-",
		},
		{
			name:   "empty hooks object stays",
			in:     `{"hooks":{}}`,
			before: "-",
		},
		{
			name:   "only ours removed from a shared group",
			in:     `{"hooks":{"Stop":[{"matcher":"","hooks":[{"type":"command","command":"echo a"},{"type":"command","command":"cairn hook stop"},{"type":"command","command":"echo b"}]}]}}`,
			before: "-",
			want:   `{"hooks":{"Stop":[{"matcher":"","hooks":[{"type":"command","command":"echo a"},{"type":"command","command":"echo b"}]}]}}`,
		},
		{
			name:   "emptied group, event and hooks removed",
			in:     `{"a":1,"hooks":{"Stop":[{"matcher":"","hooks":[{"type":"command","command":"cairn hook stop"}]}]},"b":2}`,
			before: "-",
			want:   `{"a":1,"b":2}`,
		},
		{
			name:   "emptied group removed, user's empty group kept",
			in:     `{"hooks":{"Stop":[{"hooks":[]},{"matcher":"","hooks":[{"type":"command","command":"cairn hook stop"}]}]}}`,
			before: "-",
			want:   `{"hooks":{"Stop":[{"hooks":[]}]}}`,
		},
		{
			name:   "cairn commands that are not hooks stay",
			in:     `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"cairn status"},{"type":"command","command":"echo cairn hook"},{"type":"prompt","prompt":"cairn hook"}]}]}}`,
			before: "-",
		},
		{
			name:   "not a hook entry's command",
			in:     `{"statusLine":{"type":"command","command":"cairn hook status"}}`,
			before: "-",
		},
		{
			name:   "emptied containers the user had stay",
			in:     `{"hooks":{"Stop":[{"matcher":"","hooks":[{"type":"command","command":"cairn hook stop"}]}],"SessionEnd":[{"matcher":"","hooks":[{"type":"command","command":"cairn hook end"}]}]}}`,
			before: `{"hooks":{"Stop":[]}}`,
			want:   `{"hooks":{"Stop":[]}}`,
		},
		{
			name:   "an emptied hooks object the user had stays",
			in:     `{"hooks":{"Stop":[{"matcher":"","hooks":[{"type":"command","command":"cairn hook stop"}]}]},"x":1}`,
			before: `{"hooks":{},"x":1}`,
			want:   `{"hooks":{},"x":1}`,
		},
		{
			name:   "the user's edits since install stay",
			in:     `{"hooks":{"Stop":[{"matcher":"","hooks":[{"type":"command","command":"cairn hook stop"}]}]},"permissions":{"allow":["Bash(ls)"]}}`,
			before: `{}`,
			want:   `{"permissions":{"allow":["Bash(ls)"]}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := []byte(doc(t, tt.in))
			var before []byte
			if tt.before != "-" {
				before = []byte(doc(t, tt.before))
			}
			got, changed, err := hooksOnly.Uninstall(in, before)
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == "" {
				if changed || !bytes.Equal(got, in) {
					t.Errorf("changed to\n%s", got)
				}
				return
			}
			if !changed {
				t.Error("changed = false")
			}
			if diff := cmp.Diff(doc(t, tt.want), string(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestBefore: what Install records is the file as it was, unless cairn's
// hooks are in it already; then it is the file without cairn's wiring.
func TestBefore(t *testing.T) {
	w := Wiring{Hooks: cairnHooks, IsOurs: isCairn, StatusLine: statusBase, StatusOurs: isCairnStatus}
	for _, tt := range []struct{ in, want string }{
		{`{"model":"opus"}`, `{"model":"opus"}`},
		{`{"statusLine":{"type":"command","command":"cairn statusline"}}`, `{"statusLine":{"type":"command","command":"cairn statusline"}}`},
		{`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"/old/cairn hook stop"}]}]},"statusLine":{"type":"command","command":"/old/cairn statusline --chain x"}}`,
			`{"statusLine":{"type":"command","command":"x"}}`},
	} {
		got, err := w.Before([]byte(doc(t, tt.in)))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(doc(t, tt.want), string(got)); diff != "" {
			t.Errorf("Before(%s) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestInstalled(t *testing.T) {
	in := `{"hooks":{
		"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"echo"},{"type":"command","command":"/bin/cairn hook pre","timeout":2.5}]}],
		"Stop":[{"hooks":[{"type":"command","command":"cairn hook stop","timeout":"10"}]}]}}`
	got, err := hooksOnly.Installed([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	want := []Hook{
		{Event: "PreToolUse", Matcher: "Bash", Command: "/bin/cairn hook pre", Timeout: 2},
		{Event: "Stop", Command: "cairn hook stop"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestErrors(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"a":1}x`, `line 1, column 8: unexpected 'x', want the end of the file after the top-level value`},
		{"{\n  \"a\": 01}", `line 2, column 8: a number cannot start with 0`},
		{`{"a": 1.}`, `line 1, column 9: unexpected '}', want a digit after '.'`},
		{`{"a": -}`, `line 1, column 8: unexpected '}', want a digit`},
		{`{"a": 1e}`, `line 1, column 9: unexpected '}', want a digit in the exponent`},
		{`{"a": "\x"}`, `line 1, column 8: invalid escape "\\x" in a string`},
		{`{"a": "\u12"}`, `line 1, column 8: a \u escape needs four hex digits`},
		{"{\"a\": \"tab\there\"}", `line 1, column 11: control character '\t' in a string: write line breaks as \n and tabs as \t`},
		{`{"é": "abc`, `line 1, column 11: unexpected end of file in the string that starts at line 1, column 7`},
		{`{'a': 1}`, `line 1, column 2: unexpected "'", want a string key: JSON strings use double quotes`},
		{`{"a": tru}`, `line 1, column 7: unexpected 't', want a value`},
		{`{"a" 1}`, `line 1, column 6: unexpected '1', want ':' after the key`},
		{`{"a": [1 2]}`, `line 1, column 10: unexpected '2', want ',' or ']' after the value`},
		{`{"a": [1,]}`, `line 1, column 9: a comma before ']': JSON allows no trailing comma`},
		{`{"a": 1} /* c */`, `line 1, column 10: comments are not allowed in JSON`},
		{"{\"a\": \xff}", `line 1, column 7: unexpected byte 0xff, want a value`},
		{`null`, `line 1, column 1: the top level is null, want an object`},
		{`{"hooks": {"Stop": [{"matcher": 1}]}}`, `line 1, column 33: hooks.Stop[0].matcher is a number, want a string`},
		{`{"hooks": {"Stop": [{"hooks": {}}]}}`, `line 1, column 31: hooks.Stop[0].hooks is an object, want an array of hooks`},
		{`{"hooks": {"Stop": [[]]}}`, `line 1, column 21: hooks.Stop[0] is an array, want an object with "matcher" and "hooks"`},
		{`{"hooks": {"a b": [{"hooks": [true]}]}}`, `line 1, column 31: hooks."a b"[0].hooks[0] is a boolean, want an object with "type" and "command"`},
		{`{"hooks": null}`, `line 1, column 11: "hooks" is null, want an object whose keys are event names`},
		{strings.Repeat("[", maxDepth+1), `line 1, column 10001: values nested more than 10000 deep`},
		// Duplicate keys, wherever they are: the second one is reported.
		{"{\"hooks\": {},\n \"hooks\": {}}", `line 2, column 2: duplicate key "hooks" (also at line 1, column 2): Claude Code reads only the last one and ignores the other, so cairn will not edit this file; merge the two into one`},
		{`{"hooks": {"Stop": [], "Stop": []}}`, `line 1, column 24: duplicate key "Stop" (also at line 1, column 12): Claude Code reads only the last one and ignores the other, so cairn will not edit this file; merge the two into one`},
		{`{"hooks": {"Stop": [{"hooks": [], "hooks": []}]}}`, `line 1, column 35: duplicate key "hooks" (also at line 1, column 22): Claude Code reads only the last one and ignores the other, so cairn will not edit this file; merge the two into one`},
		{`{"x": [1, {"a": {"é": 1, "\u00e9": 2}}]}`, `line 1, column 26: duplicate key "é" (also at line 1, column 18): Claude Code reads only the last one and ignores the other, so cairn will not edit this file; merge the two into one`},
		{`{"statusLine": 1, "statusLine": {}}`, `line 1, column 19: duplicate key "statusLine" (also at line 1, column 2): Claude Code reads only the last one and ignores the other, so cairn will not edit this file; merge the two into one`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			_, _, err := hooksOnly.Install([]byte(tt.in))
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want an *Error", err)
			}
			if err.Error() != tt.want {
				t.Errorf("err = %s\nwant  %s", err, tt.want)
			}
			if json.Valid([]byte(tt.in)) && !strings.Contains(tt.want, " is ") && !strings.Contains(tt.want, "duplicate key") {
				t.Error("encoding/json accepts this document")
			}
		})
	}
}
