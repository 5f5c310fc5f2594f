package mcptest

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/internal/mcpserver"
)

// Clock is a settable clock for mcpserver.Options.Now.
type Clock struct {
	mu sync.Mutex
	t  time.Time
}

// NewClock returns a clock at t.
func NewClock(t time.Time) *Clock { return &Clock{t: t} }

// Now reads the clock.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	c.t = t
	c.mu.Unlock()
}

var remembered = regexp.MustCompile(`^Remembered #(\d+) \(`)

// A fake GitHub token, in two parts so that no scanner takes this file
// for a leak.
var secret = "gh" + "p_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"

// MemoryCases runs the memory tools' conformance cases through the MCP
// protocol against the store newMemory returns, which must start empty.
// Observations are put in with the remember tool, so the cases need
// nothing of a store but the Memory interface: run them against the real
// store with its constructor.
func MemoryCases(t *testing.T, newMemory func(t *testing.T) mcpserver.Memory) {
	mem := newMemory(t)
	t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	clock := NewClock(t0)
	config := t.TempDir() // no transcripts: notes without a session
	projA, projB := t.TempDir(), t.TempDir()
	a := Connect(t, mcpserver.Options{Memory: mem, ConfigDir: config, Dir: projA, Now: clock.Now, Loc: time.UTC}, "")
	b := Connect(t, mcpserver.Options{Memory: mem, ConfigDir: config, Dir: projB, Now: clock.Now, Loc: time.UTC}, "")

	remember := func(c *Conn, at time.Duration, args map[string]any) string {
		t.Helper()
		clock.Set(t0.Add(at))
		out, isErr := c.Call(t, "remember", args)
		m := remembered.FindStringSubmatch(out)
		if isErr || m == nil {
			t.Fatalf("remember %v: %q (error %v)", args, out, isErr)
		}
		return "#" + m[1]
	}
	pnpm := remember(a, 0, map[string]any{"title": "Use pnpm, not npm", "kind": "decision", "files": []string{"web/package.json"},
		"text": "Use pnpm, not npm, for the web workspace: the lockfile is pnpm-lock.yaml."})
	nilMap := remember(a, time.Hour, map[string]any{"title": "nil map in the CSV writer", "kind": "error", "files": []string{"internal/export/csv.go"},
		"text": "go test ./internal/export failed with a nil map in csv.go:42; fixed by initialising the map in NewWriter."})
	postgres := remember(a, 2*time.Hour, map[string]any{
		"text": "The integration tests need DATABASE_URL pointing at the docker postgres on port 5433."})
	header := remember(a, 3*time.Hour, map[string]any{"title": "CSV header row always written", "kind": "decision", "files": []string{"internal/export/csv.go"},
		"text": "Keep the CSV header row even for empty exports; the importer relies on it."})
	token := remember(a, 4*time.Hour, map[string]any{"title": "staging deploy", "text": "The staging deploy token is " + secret + " until Friday."})
	other := remember(b, 5*time.Hour, map[string]any{"kind": "decision", "text": "pnpm workspaces are declared in pnpm-workspace.yaml."})
	clock.Set(t0.Add(6 * time.Hour))

	// ids are the observation ids a listing names, in order.
	ids := func(out string) []string { return regexp.MustCompile(`#\d+`).FindAllString(out, -1) }
	// listed are the ids at the start of a listing's lines (an anchor
	// marked "→ "), in order.
	listed := func(out string) []string {
		var got []string
		for _, l := range strings.Split(out, "\n") {
			l = strings.TrimPrefix(l, "→ ")
			if strings.HasPrefix(l, "#") {
				got = append(got, strings.Fields(l)[0])
			}
		}
		return got
	}
	same := func(got []string, want ...string) bool { return strings.Join(got, " ") == strings.Join(want, " ") }

	cases := []struct {
		name string
		conn *Conn
		tool string
		args map[string]any
		// check says what is wrong with the tool's text, "" when nothing.
		check func(out string) string
	}{
		{"search finds the match", a, "search", map[string]any{"query": "pnpm"}, func(out string) string {
			if !same(listed(out), pnpm) || !strings.Contains(out, "Use pnpm, not npm") {
				return "want only " + pnpm + ", this project's"
			}
			return ""
		}},
		{"search every project", a, "search", map[string]any{"query": "pnpm", "all_projects": true}, func(out string) string {
			if got := listed(out); len(got) != 2 || !strings.Contains(out, other) || !strings.Contains(out, pnpm) {
				return "want " + pnpm + " and " + other
			}
			return ""
		}},
		{"search all words", a, "search", map[string]any{"query": "docker postgres"}, func(out string) string {
			if !same(listed(out), postgres) {
				return "want " + postgres
			}
			return ""
		}},
		{"search by kind", a, "search", map[string]any{"query": "csv", "kind": "decision"}, func(out string) string {
			if !same(listed(out), header) {
				return "want only " + header
			}
			return ""
		}},
		{"search by file", a, "search", map[string]any{"query": "map", "file": "csv.go"}, func(out string) string {
			if !same(listed(out), nilMap) {
				return "want only " + nilMap
			}
			return ""
		}},
		{"search by file, none", a, "search", map[string]any{"query": "header", "file": "web/"}, func(out string) string {
			if len(listed(out)) != 0 || !strings.HasPrefix(out, "No observations match") {
				return "want no match"
			}
			return ""
		}},
		{"search since an age", a, "search", map[string]any{"query": "csv", "since": "4h"}, func(out string) string {
			if !same(listed(out), header) {
				return "want only " + header + " (the other is 5h old)"
			}
			return ""
		}},
		{"search since a date", a, "search", map[string]any{"query": "csv", "since": "2026-03-02"}, func(out string) string {
			if len(listed(out)) != 0 {
				return "want none after the date"
			}
			return ""
		}},
		{"search limit", a, "search", map[string]any{"query": "csv", "limit": 1}, func(out string) string {
			if len(listed(out)) != 1 {
				return "want one hit"
			}
			return ""
		}},
		{"search no match", a, "search", map[string]any{"query": "kubernetes"}, func(out string) string {
			if !strings.HasPrefix(out, `No observations match "kubernetes" in this project.`) {
				return "want the no-match text"
			}
			return ""
		}},
		{"remember redacts", a, "get_observations", map[string]any{"ids": []int{num(token)}}, func(out string) string {
			if strings.Contains(out, secret) || !strings.Contains(out, "[REDACTED") || !strings.Contains(out, "until Friday") {
				return "want the token redacted and the rest kept"
			}
			return ""
		}},
		{"timeline by id", a, "timeline", map[string]any{"id": num(postgres), "before": 1, "after": 1}, func(out string) string {
			if !same(listed(out), nilMap, postgres, header) || !strings.Contains(out, "→ "+postgres+" ") {
				return fmt.Sprintf("want %s, → %s, %s", nilMap, postgres, header)
			}
			return ""
		}},
		{"timeline by query", a, "timeline", map[string]any{"query": "postgres", "before": 2, "after": 1}, func(out string) string {
			if !same(listed(out), pnpm, nilMap, postgres, header) || !strings.Contains(out, "→ "+postgres+" ") {
				return "want it centred on " + postgres
			}
			return ""
		}},
		{"timeline stays in the project", b, "timeline", map[string]any{"id": num(other)}, func(out string) string {
			if !same(listed(out), other) {
				return "want only " + other + ", alone in its project"
			}
			return ""
		}},
		{"get", a, "get_observations", map[string]any{"ids": []int{num(nilMap), 99999}}, func(out string) string {
			for _, want := range []string{"## " + nilMap + " error", "nil map in the CSV writer", "Files: internal/export/csv.go", "fixed by initialising the map in NewWriter", "Not found: #99999"} {
				if !strings.Contains(out, want) {
					return fmt.Sprintf("want %q", want)
				}
			}
			return ""
		}},
		{"get keeps the order asked", a, "get_observations", map[string]any{"ids": []int{num(header), num(pnpm)}}, func(out string) string {
			if got := ids(out); len(got) < 2 || got[0] != header || !strings.Contains(out, "## "+pnpm) || strings.Index(out, "## "+header) > strings.Index(out, "## "+pnpm) {
				return "want " + header + " then " + pnpm
			}
			return ""
		}},
		{"forget by id", a, "forget", map[string]any{"ids": []int{num(pnpm)}}, func(out string) string {
			if out != "Forgot 1 observation for good." {
				return "want one forgotten"
			}
			return ""
		}},
		{"forgotten is not found", a, "search", map[string]any{"query": "pnpm", "all_projects": true}, func(out string) string {
			if !same(listed(out), other) {
				return "want only " + other + " left"
			}
			return ""
		}},
		{"forget by query", a, "forget", map[string]any{"query": "csv"}, func(out string) string {
			if out != "Forgot 2 observations for good." {
				return "want the two CSV observations forgotten"
			}
			return ""
		}},
		{"forget by query stays in the project", a, "forget", map[string]any{"query": "pnpm"}, func(out string) string {
			if out != "Nothing matched; nothing forgotten." {
				return "want nothing forgotten: " + other + " is another project's"
			}
			return ""
		}},
		{"forgotten entries are gone", a, "get_observations", map[string]any{"ids": []int{num(nilMap), num(header), num(other)}}, func(out string) string {
			if !strings.Contains(out, "Not found: "+nilMap+", "+header) || !strings.Contains(out, "## "+other) {
				return "want " + nilMap + " and " + header + " gone, " + other + " kept"
			}
			return ""
		}},
		{"forget an unknown session", a, "forget", map[string]any{"session": "no-such-session"}, func(out string) string {
			if out != "Nothing matched; nothing forgotten." {
				return "want nothing forgotten"
			}
			return ""
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, isErr := c.conn.Call(t, c.tool, c.args)
			if isErr {
				t.Fatalf("%s %v: error %q", c.tool, c.args, out)
			}
			if msg := c.check(out); msg != "" {
				t.Errorf("%s %v: %s; got:\n%s", c.tool, c.args, msg, out)
			}
		})
	}

	t.Run("remember private only", func(t *testing.T) {
		out, isErr := a.Call(t, "remember", map[string]any{"text": "<private>my PIN is 4321</private>"})
		if !isErr || !strings.Contains(out, "private") {
			t.Errorf("remember of a private span: %q (error %v)", out, isErr)
		}
		if out, _ := a.Call(t, "search", map[string]any{"query": "PIN 4321", "all_projects": true}); len(listed(out)) != 0 {
			t.Errorf("the private span was stored: %q", out)
		}
	})
	BadArguments(t, a, []BadCall{
		{"search", map[string]any{}, "query"},
		{"search", map[string]any{"query": "  "}, "query is empty"},
		{"search", map[string]any{"query": "x", "limit": -1}, "limit -1"},
		{"search", map[string]any{"query": "x", "since": "yesterday"}, `since "yesterday"`},
		{"search", map[string]any{"query": "x", "kind": 7}, "kind"},
		{"search", map[string]any{"query": "x", "bogus": 1}, "bogus"},
		{"timeline", map[string]any{}, "give the id"},
		{"timeline", map[string]any{"id": 1, "query": "x"}, "not both"},
		{"timeline", map[string]any{"id": 99999}, "no observation #99999"},
		{"timeline", map[string]any{"id": 1, "before": -1}, "before -1"},
		{"timeline", map[string]any{"id": "one"}, "id"},
		{"get_observations", map[string]any{}, "ids"},
		{"get_observations", map[string]any{"ids": []int{}}, "ids is empty"},
		{"get_observations", map[string]any{"ids": make([]int, 21)}, "at most 20"},
		{"remember", map[string]any{}, "text"},
		{"remember", map[string]any{"text": " "}, "text is empty"},
		{"remember", map[string]any{"text": strings.Repeat("x", 40<<10)}, "keep a note under"},
		{"forget", map[string]any{}, "exactly one"},
		{"forget", map[string]any{"ids": []int{1}, "query": "x"}, "exactly one"},
		{"forget", map[string]any{"ids": []int{-1}}, "positive"},
	})
}

func num(id string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(id, "#"))
	if err != nil {
		panic(err)
	}
	return n
}

// BadCall is a call with bad arguments and a part of the error it must
// give.
type BadCall struct {
	Tool string
	Args map[string]any
	Want string
}

// BadArguments checks that each call gives a tool error (isError, which
// the model reads) whose text contains Want.
func BadArguments(t *testing.T, c *Conn, calls []BadCall) {
	t.Helper()
	for i, bc := range calls {
		t.Run(fmt.Sprintf("bad %s %d", bc.Tool, i), func(t *testing.T) {
			out, isErr := c.Call(t, bc.Tool, bc.Args)
			if !isErr || !strings.Contains(out, bc.Want) {
				t.Errorf("%s %.200v = %q (error %v); want an error with %q", bc.Tool, bc.Args, out, isErr, bc.Want)
			}
		})
	}
}
