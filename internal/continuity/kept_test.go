package continuity

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/checkpoint"
	"github.com/cairn-agent/cairn/internal/fixtures"
	"github.com/cairn-agent/cairn/internal/state"
)

// keptFixture is a keeper whose jobs are handed over (as a hook's are) on
// a copy of the real transcripts.
type keptFixture struct {
	k       *Keeper
	dir     string
	project string
	now     time.Time
}

func newKeptFixture(t *testing.T) *keptFixture {
	dir := t.TempDir()
	if _, err := fixtures.Extract(filepath.Join(dir, "fx")); err != nil {
		t.Fatal(err)
	}
	f := &keptFixture{dir: filepath.Join(dir, "fx"), project: filepath.Join(dir, "proj"), now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	f.k = &Keeper{State: state.Store{Dir: filepath.Join(dir, "state")}, DBPath: filepath.Join(dir, "data", "cairn.db"),
		Now: func() time.Time { return f.now }, Detach: func(Job) error { return nil }}
	t.Cleanup(func() { f.k.Close() })
	return f
}

// precompact runs PreCompact and returns its checkpoint, the steering it
// printed and the announcement it left.
func (f *keptFixture) precompact(t *testing.T, path string) (checkpoint.Checkpoint, string, []byte) {
	t.Helper()
	var steer collect
	c, err := f.k.PreCompact(context.Background(), f.project, path, "auto", steer.deliver)
	if err != nil {
		t.Fatal(err)
	}
	p, err := os.ReadFile(f.k.pendingFile(path))
	if err != nil {
		t.Fatal(err)
	}
	if len(steer) != 1 {
		t.Fatalf("steering printed %d times", len(steer))
	}
	return c, steer[0], p
}

func asJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A PreCompact on a transcript nothing was appended to since the last
// checkpoint was built takes the kept one, and what it prints and leaves
// is what a build would give: on every fixture session.
func TestPreCompactFromKept(t *testing.T) {
	f := newKeptFixture(t)
	var names []string
	for _, c := range fixtures.Compactions {
		names = append(names, c.Session)
	}
	names = append(names, fixtures.Small...)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(f.dir, name+".jsonl")
			built, builtSteer, builtPending := f.precompact(t, path)
			if _, err := os.Stat(f.k.keptFile(path)); err != nil {
				t.Fatalf("no kept checkpoint after a build: %v", err)
			}
			if _, _, ok := f.k.fromKept(path, f.project, "precompact-auto"); !ok {
				t.Fatal("the kept checkpoint does not serve an unchanged transcript")
			}
			// The first build read the transcript cold; a second build
			// goes on from the saved state, as a later PreCompact does.
			rebuilt, _, err := f.k.buildWith(context.Background(), f.project, path, "precompact-auto", false)
			if err != nil {
				t.Fatal(err)
			}
			if asJSON(t, rebuilt) != asJSON(t, built) {
				t.Fatalf("a build from the saved state differs from the cold one")
			}
			kept, keptSteer, keptPending := f.precompact(t, path)
			if got, want := asJSON(t, kept), asJSON(t, built); got != want {
				t.Errorf("kept checkpoint differs from a build:\n got %s\nwant %s", got, want)
			}
			if keptSteer != builtSteer {
				t.Errorf("steering differs:\n got %s\nwant %s", keptSteer, builtSteer)
			}
			if string(keptPending) != string(builtPending) {
				t.Errorf("announcement differs:\n got %s\nwant %s", keptPending, builtPending)
			}
		})
	}
}

// Whatever the kept checkpoint was not built from is a miss: the
// checkpoint is built again, and has what changed. (A half-written line
// appended is not a change: the engine reads it once it is whole.)
func TestKeptMisses(t *testing.T) {
	name := fixtures.Compactions[0].Session
	appendTo := func(t *testing.T, path, data string) {
		file, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		defer file.Close()
		if _, err := file.WriteString(data); err != nil {
			t.Fatal(err)
		}
	}
	prompt := `{"type":"user","isSidechain":false,"message":{"role":"user","content":"Now also fix KEPT-42."},"timestamp":"2026-03-01T11:59:00Z"}` + "\n"
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, f *keptFixture, path string)
		check  func(t *testing.T, before, after checkpoint.Checkpoint)
	}{
		{"a prompt appended", func(t *testing.T, f *keptFixture, path string) { appendTo(t, path, prompt) },
			func(t *testing.T, before, after checkpoint.Checkpoint) {
				if n := len(after.Task.Latest); n == 0 || after.Task.Latest[n-1] != "Now also fix KEPT-42." {
					t.Errorf("latest request %q", after.Task.Latest)
				}
			}},
		{"a subagent grown", func(t *testing.T, f *keptFixture, path string) {
			ents, err := os.ReadDir(filepath.Join(f.dir, name, "subagents"))
			if err != nil || len(ents) == 0 {
				t.Fatalf("no subagents: %v", err)
			}
			appendTo(t, filepath.Join(f.dir, name, "subagents", ents[0].Name()), "\n")
		}, nil},
		{"another project", func(t *testing.T, f *keptFixture, path string) { f.project += "-other" },
			func(t *testing.T, before, after checkpoint.Checkpoint) {
				if after.Project == before.Project {
					t.Errorf("project %s", after.Project)
				}
			}},
		{"other ticket prefixes", func(t *testing.T, f *keptFixture, path string) { f.k.TicketPrefixes = []string{"KEPT-"} }, nil},
		{"built by another cairn", func(t *testing.T, f *keptFixture, path string) {
			file := f.k.keptFile(path)
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			head, rest, _ := bytes.Cut(data, []byte("\n"))
			var kp map[string]any
			if err := json.Unmarshal(head, &kp); err != nil {
				t.Fatal(err)
			}
			kp["binary"] = "1-2"
			head, _ = json.Marshal(kp)
			if err := os.WriteFile(file, append(append(head, '\n'), rest...), 0o600); err != nil {
				t.Fatal(err)
			}
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newKeptFixture(t)
			path := filepath.Join(f.dir, name+".jsonl")
			before, _, _ := f.precompact(t, path)
			tc.change(t, f, path)
			if _, _, ok := f.k.fromKept(path, f.project, "precompact-auto"); ok {
				t.Fatal("the kept checkpoint served a changed transcript")
			}
			after, _, _ := f.precompact(t, path)
			want, _, err := f.k.buildWith(context.Background(), f.project, path, "precompact-auto", false)
			if err != nil {
				t.Fatal(err)
			}
			if asJSON(t, after) != asJSON(t, want) {
				t.Errorf("after the change PreCompact gave\n%s\nnot a build's\n%s", asJSON(t, after), asJSON(t, want))
			}
			if tc.check != nil {
				tc.check(t, before, after)
			}
			if _, _, ok := f.k.fromKept(path, f.project, "precompact-auto"); !ok {
				t.Error("the checkpoint built after the change is not kept")
			}
		})
	}
}

// A checkpoint a job or a command builds (Capture: a session's end, a
// level crossed) is kept too, and serves the next PreCompact as a build
// would.
func TestKeptFromCapture(t *testing.T) {
	f := newKeptFixture(t)
	path := filepath.Join(f.dir, fixtures.Compactions[1].Session+".jsonl")
	if _, err := f.k.Capture(context.Background(), f.project, path, "session-end"); err != nil {
		t.Fatal(err)
	}
	c, steer, ok := f.k.fromKept(path, f.project, "precompact-auto")
	if !ok {
		t.Fatal("the captured checkpoint is not kept")
	}
	want, _, err := f.k.buildWith(context.Background(), f.project, path, "precompact-auto", false)
	if err != nil {
		t.Fatal(err)
	}
	if asJSON(t, c) != asJSON(t, want) {
		t.Errorf("kept after Capture\n%s\nnot a build's\n%s", asJSON(t, c), asJSON(t, want))
	}
	if steer != want.Steer() {
		t.Errorf("steering kept %q, a build's %q", steer, want.Steer())
	}
}

// A PreCompact that waits for a job looks at the kept checkpoint again
// with the light session of its first look: taken when the job kept the
// checkpoint at that session's offset, loaded again when at another
// (the job folded a line the first look had not seen whole yet), and
// either way the checkpoint a build gives.
func TestFromKeptWithLoaded(t *testing.T) {
	f := newKeptFixture(t)
	path := filepath.Join(f.dir, fixtures.Compactions[0].Session+".jsonl")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The last line not yet written whole at the first look.
	cut := bytes.LastIndexByte(data[:len(data)-1], '\n') + 1
	if err := os.WriteFile(path, data[:cut+10], 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := f.k.Load(path, false)
	if err != nil {
		t.Fatal(err)
	}
	first := s
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	want, _, _ := f.precompact(t, path) // builds and keeps it whole
	c, steer, ok := f.k.fromKeptWith(path, f.project, "precompact-auto", &s)
	if !ok {
		t.Fatal("the kept checkpoint did not serve")
	}
	if s == first || s.Offset != int64(len(data)) {
		t.Errorf("the light session of offset %d served one kept at %d", first.Offset, len(data))
	}
	if asJSON(t, c) != asJSON(t, want) || steer != want.Steer() {
		t.Errorf("served\n%s\nnot the build's\n%s", asJSON(t, c), asJSON(t, want))
	}
	// The session now at the kept offset: taken as it is.
	again := s
	if _, _, ok := f.k.fromKeptWith(path, f.project, "precompact-auto", &s); !ok || s != again {
		t.Errorf("served %v, with the session loaded again: %v", ok, s != again)
	}
}
