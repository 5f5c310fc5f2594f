package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-agent/cairn/internal/golden"

	"github.com/cairn-agent/cairn/internal/estimate"
)

// sampleSpec is the estimate package's sample, a spec of about 1,900
// tokens: a third of a fresh session by the default ratio.
func sampleSpec(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "estimate", "testdata", "sample-spec.md"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// putSpec writes a spec into the test project's directory, where a
// relative FILE resolves.
func putSpec(t *testing.T, a *App, name string, data []byte) {
	t.Helper()
	wd, _ := a.Getwd()
	if err := os.MkdirAll(wd, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wd, name), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

const smallSpec = `# Fix the flaky export test

- [ ] Find why internal/export/csv_test.go fails one run in ten.
- [ ] Fix it without sleeping.
`

func TestEstimateGolden(t *testing.T) {
	tests := []struct {
		name     string
		sessions []string
		spec     []byte
		args     []string
	}{
		// No session in the project: a fresh one is assumed; a third of it
		// is worth considering shards for.
		{"estimate-fresh.txt", nil, nil, []string{"spec.md"}},
		{"estimate-fresh.json", nil, nil, []string{"spec.md", "--json"}},
		// The latest session has 64,832 tokens left: the same spec would
		// take most of them.
		{"estimate-session.txt", []string{"ae4a77f8-aedd-4bc1-888f-c94edc91af04"}, nil, []string{"spec.md"}},
		// A small task in a session with room to spare.
		{"estimate-execute.txt", []string{"short"}, []byte(smallSpec), []string{"spec.md"}},
		// One long paragraph: nothing to divide along.
		{"estimate-unsplittable.txt", nil, []byte(strings.Repeat("Rewrite the whole billing module. ", 400)), []string{"spec.md"}},
		// A small task in a session close to compaction: it fits a fresh one.
		{"estimate-small-late.txt", nil, []byte(strings.Repeat(smallSpec, 12)),
			[]string{"--transcript", "FIXTURE/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl", "spec.md"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, out, errb := testApp(t, tt.sessions...)
			spec := tt.spec
			if spec == nil {
				spec = sampleSpec(t)
			}
			putSpec(t, a, "spec.md", spec)
			args := append([]string(nil), tt.args...)
			for i, arg := range args {
				args[i] = strings.Replace(arg, "FIXTURE", a.Getenv("FIXTURES"), 1)
			}
			if err := runCmd("estimate")(context.Background(), a, args); err != nil {
				t.Fatalf("%v (stderr: %s)", err, errb)
			}
			if errb.Len() > 0 {
				t.Errorf("stderr: %s", errb)
			}
			got := out.Bytes()
			if strings.HasSuffix(tt.name, ".json") {
				got = bytes.ReplaceAll(got, []byte(a.Getenv("FIXTURES")), []byte("$FIXTURES"))
			}
			golden.Check(t, filepath.Join("testdata", "golden", tt.name), got)
		})
	}
}

func TestEstimateStdin(t *testing.T) {
	a, out, errb := testApp(t)
	a.Stdin = strings.NewReader(smallSpec)
	if err := runCmd("estimate")(context.Background(), a, []string{"-", "--json"}); err != nil {
		t.Fatalf("%v (stderr: %s)", err, errb)
	}
	var v estimateView
	if err := json.Unmarshal(out.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	if v.Spec != "(stdin)" || v.Advice.SpecTokens != estimate.Tokens(smallSpec) || !v.FreshSession || v.Advice.Action != estimate.Execute {
		t.Errorf("got spec %q, %d tokens, fresh %v, %s", v.Spec, v.Advice.SpecTokens, v.FreshSession, v.Advice.Action)
	}
}

// Three finished tasks recorded with --learn make the estimate use the
// project's own ratio.
func TestEstimateLearn(t *testing.T) {
	sessions := []string{"258c7280-ae70-4798-800f-63464d01a85d", "8463c716-a2ea-4c14-9efa-87158ebd9f20", "fa812bfe-b295-4cca-9c2f-fdf01028cb46"}
	a, out, errb := testApp(t, sessions...)
	putSpec(t, a, "spec.md", sampleSpec(t))
	var learned bytes.Buffer
	for _, s := range sessions {
		out.Reset()
		if err := runCmd("estimate")(context.Background(), a, []string{"--learn", "--session", s[:8], "spec.md"}); err != nil {
			t.Fatalf("%v (stderr: %s)", err, errb)
		}
		learned.Write(out.Bytes())
	}
	golden.Check(t, filepath.Join("testdata", "golden", "estimate-learn.txt"), learned.Bytes())

	out.Reset()
	if err := runCmd("estimate")(context.Background(), a, []string{"--session", "fa812bfe", "spec.md"}); err != nil {
		t.Fatalf("%v (stderr: %s)", err, errb)
	}
	golden.Check(t, filepath.Join("testdata", "golden", "estimate-project-ratio.txt"), out.Bytes())
	if errb.Len() > 0 {
		t.Errorf("stderr: %s", errb)
	}
}

func TestEstimateErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		spec string // written as spec.md when not empty
		// usage is set for a usage error; else want is in the error, and
		// hint in its hint.
		usage      string
		want, hint string
	}{
		{name: "no file", args: nil, usage: "give one spec file"},
		{name: "two files", args: []string{"a.md", "b.md"}, usage: "give one spec file"},
		{name: "learn without session", args: []string{"--learn", "spec.md"}, spec: smallSpec, usage: "--learn needs the session"},
		{name: "both", args: []string{"--session", "x", "--transcript", "y", "spec.md"}, usage: "not both"},
		{name: "missing", args: []string{"nope.md"}, want: "cannot read the spec", hint: "Markdown spec or plan"},
		{name: "empty", args: []string{"spec.md"}, spec: " \n\n", want: "is empty", hint: "give the spec"},
		{name: "unknown session", args: []string{"--session", "deadbeef", "spec.md"}, spec: smallSpec, want: `no session "deadbeef"`, hint: "cairn sessions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, out, _ := testApp(t)
			if tt.spec != "" {
				putSpec(t, a, "spec.md", []byte(tt.spec))
			}
			err := runCmd("estimate")(context.Background(), a, tt.args)
			if err == nil {
				t.Fatalf("no error; stdout: %s", out)
			}
			if tt.usage != "" {
				if !isUsage(err) || !strings.Contains(err.Error(), tt.usage) {
					t.Errorf("got %v, want a usage error with %q", err, tt.usage)
				}
				return
			}
			if isUsage(err) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want an error with %q", err, tt.want)
			}
			var h *cliError
			if !errors.As(err, &h) || !strings.Contains(strings.Join(h.hints, "\n"), tt.hint) {
				t.Errorf("got hints %v, want one with %q", err, tt.hint)
			}
		})
	}
}
