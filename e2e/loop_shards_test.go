//go:build unix

package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-agent/cairn/e2e/fakeapi"
	"github.com/cairn-agent/cairn/internal/estimate"
	"github.com/cairn-agent/cairn/internal/loop"
)

// linearShards is the part of Linear's GraphQL API the shards use, on
// loopback: ENG-42 in team ENG, and the sub-issues made under it.
type linearShards struct {
	t        *testing.T
	mu       sync.Mutex
	children []map[string]string // identifier, title, description, state
	comments []string            // on ENG-42
}

func (f *linearShards) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.Header.Get("Authorization") != "lin_api_e2e" {
		w.WriteHeader(401)
		return
	}
	var req struct {
		Query     string            `json:"query"`
		Variables map[string]string `json:"variables"`
	}
	json.NewDecoder(r.Body).Decode(&req)
	op := strings.SplitN(strings.Fields(req.Query)[1], "(", 2)[0]
	v := req.Variables
	child := func(id string) map[string]string {
		for _, c := range f.children {
			if c["identifier"] == id || "uuid-"+c["identifier"] == id {
				return c
			}
		}
		return nil
	}
	team := map[string]any{"id": "team-eng", "labels": map[string]any{"nodes": []any{}},
		"states": map[string]any{"nodes": []map[string]string{{"id": "st-todo", "name": "Todo", "type": "unstarted"}, {"id": "st-done", "name": "Done", "type": "completed"}}}}
	var data any
	switch op {
	case "CairnChildren":
		var nodes []map[string]string
		for _, c := range f.children {
			nodes = append(nodes, map[string]string{"identifier": c["identifier"], "title": c["title"], "url": "", "description": c["description"]})
		}
		data = map[string]any{"issue": map[string]any{"id": "uuid-ENG-42", "team": map[string]string{"id": "team-eng"}, "children": map[string]any{"nodes": nodes}}}
	case "CairnSubIssue":
		if v["parentId"] != "uuid-ENG-42" || v["teamId"] != "team-eng" {
			f.t.Errorf("linear: issueCreate with %v", v)
		}
		id := fmt.Sprintf("ENG-%d", 43+len(f.children))
		f.children = append(f.children, map[string]string{"identifier": id, "title": v["title"], "description": v["description"], "state": "Todo"})
		data = map[string]any{"issueCreate": map[string]any{"success": true, "issue": map[string]string{"identifier": id, "url": ""}}}
	case "CairnIssue":
		is := map[string]any{"id": "uuid-ENG-42", "identifier": "ENG-42", "title": "Export invoices", "url": "", "state": map[string]string{"name": "In Progress"},
			"team": team, "labels": map[string]any{"nodes": []any{}}, "comments": map[string]any{"nodes": f.commentNodes()}}
		if c := child(v["id"]); c != nil {
			is["id"], is["identifier"], is["state"], is["comments"] = "uuid-"+c["identifier"], c["identifier"], map[string]string{"name": c["state"]}, map[string]any{"nodes": []any{}}
		}
		data = map[string]any{"issue": is}
	case "CairnStatus":
		c := child(v["id"])
		if c == nil || v["stateId"] != "st-done" {
			f.t.Errorf("linear: issueUpdate with %v", v)
			break
		}
		c["state"] = "Done"
		data = map[string]any{"issueUpdate": map[string]any{"success": true}}
	case "CairnComment":
		if v["issueId"] != "uuid-ENG-42" {
			f.t.Errorf("linear: commentCreate with %v", v)
		}
		f.comments = append(f.comments, v["body"])
		data = map[string]any{"commentCreate": map[string]any{"success": true}}
	default:
		f.t.Errorf("linear: unexpected operation %s", op)
		w.WriteHeader(400)
		return
	}
	json.NewEncoder(w).Encode(map[string]any{"data": data})
}

func (f *linearShards) commentNodes() []map[string]string {
	var out []map[string]string
	for _, c := range f.comments {
		out = append(out, map[string]string{"body": c})
	}
	return out
}

// TestLoopShardsTellTheTicket: cairn loop with the real client, the
// project bound to Linear's ENG-42. The plan's one item is estimated over
// 60% of a fresh session and sharded in three (RLP-006); the shards
// become sub-issues of ENG-42 (SHD-003) through the queue and a detached
// drainer, recorded in ralph-state.json; each shard the agent ticks
// closes its sub-issue and tells ENG-42 "k/3 shards done" (SHD-004).
func TestLoopShardsTellTheTicket(t *testing.T) {
	t.Parallel()
	b := newBench(t, fakeapi.Options{})
	lin := &linearShards{t: t}
	srv := httptest.NewServer(lin)
	t.Cleanup(srv.Close)
	b.s.Env = append(b.s.Env, "CLAUDE_CODE_AUTO_COMPACT_WINDOW=200000", "LINEAR_API_KEY=lin_api_e2e", "CAIRN_LINEAR_URL="+srv.URL)
	dir := b.s.ProjectDir
	os.MkdirAll(filepath.Join(dir, ".claude"), 0o755)
	os.WriteFile(filepath.Join(dir, ".claude", "cairn.conf"), []byte("tracker = linear\n"), 0o644)
	if out, err := runCairnWith(b.s, nil, "bind", "ENG-42"); err != nil {
		t.Fatalf("cairn bind: %v\n%s", err, out)
	}

	// Three sections, each a third of an item too big for one session.
	var body strings.Builder
	for _, part := range []string{"Schema", "Writer", "Totals"} {
		fmt.Fprintf(&body, "  ## %s\n", part)
		for i := 0; i < 36; i++ {
			fmt.Fprintf(&body, "  The %s step %d must handle every invoice field, the currencies, the rounding rules, and the empty rows.\n", strings.ToLower(part), i)
		}
	}
	item := "Export invoices as CSV"
	spec := item + "\n" + strings.ReplaceAll(strings.TrimRight(body.String(), "\n"), "  ", "")
	a := estimate.Advise(spec, estimate.Default(), estimate.Budget{Threshold: 167000, Fresh: 167000})
	if a.Action != estimate.ShardFirst || a.Split == nil || len(a.Split.Shards) != 3 {
		t.Fatalf("the item's estimate: %s, %d tokens (%.0f%% of a fresh session), split %+v: want three shards", a.Action, a.Tokens, a.PercentFresh, a.Split)
	}
	os.WriteFile(filepath.Join(dir, loop.PromptFile), []byte("# Task\n\nExport the invoices as CSV.\n"), 0o644)
	os.WriteFile(filepath.Join(dir, loop.PlanFile), []byte("# Plan\n\n- [ ] "+item+"\n"+body.String()), 0o644)

	tick := func(id string) fakeapi.ToolUse {
		return fakeapi.ToolUse{ID: id, Name: "Bash", Input: map[string]any{
			"command": `sed -i '0,/- \[ \]/s//- [x]/' fix_plan.md`, "description": "Tick the item"}}
	}
	for k := 1; k <= 3; k++ {
		b.fake.Enqueue(
			fakeapi.Reply{For: fmt.Sprintf("(part %d/3", k), Tools: []fakeapi.ToolUse{tick(fmt.Sprintf("toolu_s%d", k))}, Usage: loopUsage(30000)},
			fakeapi.Reply{Text: fmt.Sprintf("Part %d is done.", k), Usage: loopUsage(31000)},
		)
	}
	cmd, out := startLoop(t, b, b.s.Bin, "--", "--allowedTools", "Bash(sed:*)")
	if err := waitLoop(t, cmd, out); err != nil {
		t.Fatalf("cairn loop: %v\n%s", err, out)
	}
	t.Logf("cairn loop:\n%s", out)
	b.checkScriptUsed(t)
	if m := b.fake.Mismatched(); len(m) > 0 {
		t.Errorf("%d requests went to the wrong shard", len(m))
	}
	s := readLoopState(t, dir)
	if s.Status != "done" || s.Iteration != 3 || len(s.Shards) != 3 {
		t.Fatalf("loop %s (%s) after %d iterations, shards %+v", s.Status, s.StopReason, s.Iteration, s.Shards)
	}

	// The drainers run detached: the tracker's side is waited for.
	deadline := time.Now().Add(90 * time.Second)
	for {
		st, _ := runCairnWith(b.s, nil, "tracker", "status")
		lin.mu.Lock()
		n, comments := len(lin.children), len(lin.comments)
		lin.mu.Unlock()
		if strings.Contains(string(st), "no updates queued") && n == 3 && comments == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the tracker not told after 90 s: %d sub-issues, %d comments; queue:\n%s", n, comments, st)
		}
		time.Sleep(300 * time.Millisecond)
	}
	lin.mu.Lock()
	defer lin.mu.Unlock()
	for k, c := range lin.children {
		if want := fmt.Sprintf("%s (part %d/3: ", item, k+1); !strings.HasPrefix(c["title"], want) || c["state"] != "Done" {
			t.Errorf("sub-issue %s: %q in %s; want %q... Done", c["identifier"], c["title"], c["state"], want)
		}
	}
	for k, c := range lin.comments {
		if !strings.Contains(c, fmt.Sprintf("%d/3 shards done", k+1)) {
			t.Errorf("ENG-42's comment %d: %q", k+1, c)
		}
	}
	// The state records each shard's ticket once known (the last may be
	// told before its creation is recorded there: the queue has it).
	for k, sh := range s.Shards {
		if sh.Parent != "ENG-42" || !sh.Done || sh.Ticket != "" && sh.Ticket != fmt.Sprintf("ENG-%d", 43+k) {
			t.Errorf("shard %d in ralph-state.json: %+v", k+1, sh)
		}
	}
	if s.Shards[0].Ticket != "ENG-43" {
		t.Errorf("the first shard's ticket not recorded: %+v", s.Shards[0])
	}
	if st, err := runCairnWith(b.s, nil, "loop", "status"); err != nil || !strings.Contains(string(st), "shards    3 of 3 done · sub-issues of ENG-42: ENG-43, ENG-44") {
		t.Errorf("loop status: %v\n%s", err, st)
	}
}
