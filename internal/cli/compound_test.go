package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-agent/cairn/internal/golden"

	"github.com/cairn-agent/cairn/internal/learn"
	"github.com/cairn-agent/cairn/internal/state"
)

const compoundProgress = `# Progress

## 2026-02-28 09:10 — implement: Retry the fetch on 503
One retry with jitter is enough.

## [debug] Flaky test was a shared temp dir
t.TempDir per test fixed it.

## Decided to keep SQLite
WAL mode covers it.
`

func compoundApp(t *testing.T) (*App, *strings.Builder, string, string) {
	t.Helper()
	a, _, _ := testApp(t)
	project, _ := a.Getwd()
	flow := filepath.Join(project, ".claude")
	if err := os.MkdirAll(flow, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(flow, learn.Progress), []byte(compoundProgress), 0o644)
	sd, _ := state.Dir(a.Getenv)
	var sb strings.Builder
	a.Stdout = &sb
	return a, &sb, flow, sd
}

func TestCompoundList(t *testing.T) {
	a, out, flow, _ := compoundApp(t)
	if err := runCmd("compound")(context.Background(), a, nil); err != nil {
		t.Fatal(err)
	}
	got := strings.ReplaceAll(out.String(), flow, "FLOW")
	golden.Check(t, filepath.Join("testdata", "golden", "compound-list.txt"), []byte(got))
	// Listing promotes nothing and records no run.
	if m, _ := filepath.Glob(filepath.Join(flow, "learnings-*.md")); len(m) != 0 {
		t.Errorf("listing wrote %v", m)
	}
	if _, ok := learn.LastCompound(learn.ContextDir(flow)); ok {
		t.Error("listing recorded a compound run")
	}
}

func TestCompoundPromote(t *testing.T) {
	a, out, flow, sd := compoundApp(t)
	marker := filepath.Join(sd, "sessions", "sess-1.pressure")
	os.MkdirAll(filepath.Dir(marker), 0o700)
	os.WriteFile(marker, []byte("82 L2 threshold\n"), 0o600)

	if err := runCmd("compound")(context.Background(), a, []string{"--promote", "1,3", "--session", "sess-1"}); err != nil {
		t.Fatal(err)
	}
	got := strings.ReplaceAll(out.String(), flow, "FLOW")
	golden.Check(t, filepath.Join("testdata", "golden", "compound-promote.txt"), []byte(got))
	left, _ := learn.Unpromoted(flow, flow)
	if len(left) != 1 || left[0].Heading != "[debug] Flaky test was a shared temp dir" {
		t.Errorf("left = %+v; want only entry 2, which the user did not name", left)
	}
	if at, ok := learn.LastCompound(learn.ContextDir(flow)); !ok || !at.Equal(a.Now()) {
		t.Errorf("compound-last-run.json: %v %v", at, ok)
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("pressure marker not reset: %v", err)
	}

	// Confirm one and list.
	stock, _ := learn.ReadStock(flow)
	out.Reset()
	if err := runCmd("learn")(context.Background(), a, []string{"confirm", stock[0].ID}); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := runCmd("learn")(context.Background(), a, []string{"list"}); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "golden", "learn-list.txt"), []byte(out.String()))
}

func TestCompoundPromoteNone(t *testing.T) {
	a, _, flow, _ := compoundApp(t)
	if err := runCmd("compound")(context.Background(), a, []string{"--promote", "none"}); err != nil {
		t.Fatal(err)
	}
	if left, _ := learn.Unpromoted(flow, flow); len(left) != 3 {
		t.Errorf("none promoted %d", 3-len(left))
	}
	if _, ok := learn.LastCompound(learn.ContextDir(flow)); !ok {
		t.Error("the review was not recorded")
	}
}

func TestCompoundErrors(t *testing.T) {
	tests := []struct {
		name string
		run  func(context.Context, *App, []string) error
		args []string
	}{
		{"out of range", runCmd("compound"), []string{"--promote", "4"}},
		{"zero", runCmd("compound"), []string{"--promote", "0"}},
		{"unknown id", runCmd("compound"), []string{"--promote", "deadbeef"}},
		{"empty list", runCmd("compound"), []string{"--promote", ","}},
		{"stray argument", runCmd("compound"), []string{"now"}},
		{"learn nothing", runCmd("learn"), nil},
		{"learn bad", runCmd("learn"), []string{"forget"}},
		{"confirm no id", runCmd("learn"), []string{"confirm"}},
		{"confirm unknown", runCmd("learn"), []string{"confirm", "ffffffff"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, _, flow, _ := compoundApp(t)
			if err := tt.run(context.Background(), a, tt.args); err == nil {
				t.Error("no error")
			}
			// A mistake promotes nothing and records nothing.
			if left, _ := learn.Unpromoted(flow, flow); len(left) != 3 {
				t.Errorf("promoted %d", 3-len(left))
			}
			if _, ok := learn.LastCompound(learn.ContextDir(flow)); ok {
				t.Error("recorded a compound run")
			}
		})
	}
}
