package settings

import (
	"bytes"
	"encoding/json"
	"errors"
	"github.com/cairn-agent/cairn/internal/golden"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// isCairn is the test's isOurs: a command whose first word is a program named
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

// canonical reports whether data is already in the layout encode writes.
func canonical(data []byte) bool {
	n, err := parse(data)
	return err == nil && bytes.Equal(encode(n), data)
}

// TestGolden installs cairnHooks into each hand-written file in testdata/in
// and uninstalls them again. Files that are refused have their error message
// as golden output instead.
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
			installed, changed, err := Install(data, cairnHooks, isCairn)
			if err != nil {
				golden.Check(t, filepath.Join("testdata", "golden", name+".err"), []byte(err.Error()+"\n"))
				for _, f := range []func() error{
					func() error { _, _, err := Uninstall(data, isCairn); return err },
					func() error { _, err := Installed(data, isCairn); return err },
				} {
					if got := f(); got == nil || got.Error() != err.Error() {
						t.Errorf("Uninstall or Installed gave %v, want %v", got, err)
					}
				}
				return
			}
			if !changed {
				t.Error("Install changed nothing")
			}
			golden.Check(t, filepath.Join("testdata", "golden", name+".install.json"), installed)

			again, changed, err := Install(installed, cairnHooks, isCairn)
			if err != nil || changed || !bytes.Equal(again, installed) {
				t.Errorf("second Install: changed %v, err %v", changed, err)
			}
			got, err := Installed(installed, isCairn)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(cairnHooks, got, cmpHooks); diff != "" {
				t.Errorf("Installed (-want +got):\n%s", diff)
			}

			uninstalled, _, err := Uninstall(installed, isCairn)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", "golden", name+".uninstall.json"), uninstalled)
			if got, _ := Installed(uninstalled, isCairn); len(got) > 0 {
				t.Errorf("left after Uninstall: %v", got)
			}
			if _, had, _ := Uninstall(data, isCairn); !had && canonical(data) && !bytes.Equal(uninstalled, data) {
				t.Errorf("Uninstall after Install did not give the input back:\n%s", cmp.Diff(string(data), string(uninstalled)))
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

// doc writes a compact document the way the tests below read best, in
// encode's layout.
func doc(t *testing.T, s string) string {
	t.Helper()
	n, err := parse([]byte(s))
	if err != nil {
		t.Fatalf("bad test document %s: %v", s, err)
	}
	return string(encode(n))
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
			name:  "timeout 0 removes every timeout",
			in:    `{"hooks":{"Stop":[{"hooks":[{"type":"command","timeout":3,"command":"cairn hook stop","timeout":4}]}]}}`,
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
			name:  "a user's group is never joined",
			in:    `{"hooks":{"Stop":[{"matcher":"","hooks":[{"type":"command","command":"cairn hook a"},{"type":"command","command":"echo"}]}]}}`,
			hooks: []Hook{{Event: "Stop", Command: "cairn hook a"}, {Event: "Stop", Command: "cairn hook b"}},
			want: `{"hooks":{"Stop":[{"matcher":"","hooks":[{"type":"command","command":"cairn hook a"},{"type":"command","command":"echo"}]},
				{"matcher":"","hooks":[{"type":"command","command":"cairn hook b"}]}]}}`,
		},
		{
			name:  "last of duplicate keys is edited",
			in:    `{"hooks":{"Stop":[]},"hooks":{"Stop":[],"Stop":[]}}`,
			hooks: []Hook{{Event: "Stop", Command: "cairn hook stop"}},
			want:  `{"hooks":{"Stop":[]},"hooks":{"Stop":[],"Stop":[{"matcher":"","hooks":[{"type":"command","command":"cairn hook stop"}]}]}}`,
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
			got, changed, err := Install(in, tt.hooks, isCairn)
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

func TestInstallRefusesBadHooks(t *testing.T) {
	tests := []struct {
		hook Hook
		want string
	}{
		{Hook{Command: "cairn hook x"}, `hook "cairn hook x" has no event`},
		{Hook{Event: "Stop"}, `Stop hook has no command`},
		{Hook{Event: "Stop", Command: "cairn hook x", Timeout: -1}, `Stop hook "cairn hook x" has a negative timeout`},
		{Hook{Event: "Stop", Command: "echo"}, `Stop hook "echo" is not one isOurs recognises`},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			_, _, err := Install([]byte(`{}`), []Hook{tt.hook}, isCairn)
			if err == nil || err.Error() != tt.want {
				t.Errorf("err = %v, want %s", err, tt.want)
			}
		})
	}
}

func TestUninstall(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string // "" when nothing changes
	}{
		{
			name: "user's empty containers stay",
			in:   `{"hooks":{"Stop":[],"SessionEnd":[{"matcher":"","hooks":[]}]}}`,
		},
		{
			name: "empty hooks object stays",
			in:   `{"hooks":{}}`,
		},
		{
			name: "only ours removed from a shared group",
			in:   `{"hooks":{"Stop":[{"matcher":"","hooks":[{"type":"command","command":"echo a"},{"type":"command","command":"cairn hook stop"},{"type":"command","command":"echo b"}]}]}}`,
			want: `{"hooks":{"Stop":[{"matcher":"","hooks":[{"type":"command","command":"echo a"},{"type":"command","command":"echo b"}]}]}}`,
		},
		{
			name: "emptied group, event and hooks removed",
			in:   `{"a":1,"hooks":{"Stop":[{"matcher":"","hooks":[{"type":"command","command":"cairn hook stop"}]}]},"b":2}`,
			want: `{"a":1,"b":2}`,
		},
		{
			name: "emptied group removed, user's empty group kept",
			in:   `{"hooks":{"Stop":[{"hooks":[]},{"matcher":"","hooks":[{"type":"command","command":"cairn hook stop"}]}]}}`,
			want: `{"hooks":{"Stop":[{"hooks":[]}]}}`,
		},
		{
			name: "group kept when a duplicate hooks key still has entries",
			in:   `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"echo"}],"hooks":[{"type":"command","command":"cairn hook stop"}]}]}}`,
			want: `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"echo"}],"hooks":[]}]}}`,
		},
		{
			name: "every duplicate cleaned",
			in:   `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"cairn hook a"}]}]},"x":null,"hooks":{"Stop":[{"hooks":[{"type":"command","command":"cairn hook b"}]}],"Stop":[]}}`,
			want: `{"x":null,"hooks":{"Stop":[]}}`,
		},
		{
			name: "cairn commands that are not hooks stay",
			in:   `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"cairn status"},{"type":"command","command":"echo cairn hook"},{"type":"prompt","prompt":"cairn hook"}]}]}}`,
		},
		{
			name: "not a hook entry's command",
			in:   `{"statusLine":{"type":"command","command":"cairn hook status"}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := []byte(doc(t, tt.in))
			got, changed, err := Uninstall(in, isCairn)
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

func TestInstalled(t *testing.T) {
	in := `{"hooks":{
		"Stop":[{"hooks":[{"type":"command","command":"cairn hook shadowed"}]}],
		"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"echo"},{"type":"command","command":"/bin/cairn hook pre","timeout":2.5}]}],
		"Stop":[{"hooks":[{"type":"command","command":"cairn hook stop","timeout":"10"}]}]}}`
	got, err := Installed([]byte(in), isCairn)
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
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			_, _, err := Install([]byte(tt.in), nil, isCairn)
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("err = %v, want an *Error", err)
			}
			if err.Error() != tt.want {
				t.Errorf("err = %s\nwant  %s", err, tt.want)
			}
			if json.Valid([]byte(tt.in)) && !strings.Contains(tt.want, " is ") {
				t.Error("encoding/json accepts this document")
			}
		})
	}
}

// TestEncodeMatchesMarshalIndent pins the layout to the one encoding/json and
// JSON.stringify share (on keys already sorted, since MarshalIndent sorts).
func TestEncodeMatchesMarshalIndent(t *testing.T) {
	for _, in := range []string{
		`{}`, `{"a":[]}`, `{"a":{"b":[1,{"c":null}],"d":{}}}`, `{"a":[[],[[]],{}],"z":"é"}`,
	} {
		var v any
		json.Unmarshal([]byte(in), &v)
		want, _ := json.MarshalIndent(v, "", "  ")
		n, err := parse([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if got := encode(n); string(got) != string(want)+"\n" {
			t.Errorf("%s:\n%s\nwant\n%s", in, got, want)
		}
	}
}

// tokens is the document as encoding/json reads it, in order, duplicates
// and number spellings included: what "the same document" means here.
func tokens(t testing.TB, data []byte) []any {
	t.Helper()
	if isSpace(data) {
		data = []byte("{}")
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var out []any
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("tokens: %v in\n%s", err, data)
		}
		out = append(out, tok)
	}
}
