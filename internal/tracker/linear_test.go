package tracker

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeLinear is Linear's GraphQL API as cairn uses it, on loopback: one
// team (states Todo, In Progress, Done; no labels yet) and one issue,
// ENG-42. It checks every call (the key, the content type, the variables)
// and can answer the next calls with a rate limit or a server error.
type fakeLinear struct {
	t   *testing.T
	key string

	mu       sync.Mutex
	state    string
	labels   map[string]string // id -> name, the team's
	onIssue  []string          // label ids on the issue
	comments []string
	calls    []string // operation names, in order
	fail     []int    // HTTP statuses to answer the next calls with
	// children are ENG-42's sub-issues (ENG-43...), made by issueCreate.
	children []*fakeChild
	// failAfter, when set, answers issueCreate with a 500 after creating
	// the issue: a drainer that never learns it succeeded.
	failAfter bool
}

type fakeChild struct {
	identifier, title, description, state string
}

func newFakeLinear(t *testing.T) (*fakeLinear, *httptest.Server) {
	f := &fakeLinear{t: t, key: "lin_api_testkey0123456789", state: "Todo", labels: map[string]string{}}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv
}

func (f *fakeLinear) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
		f.t.Errorf("linear: %s with content type %q", r.Method, r.Header.Get("Content-Type"))
	}
	if got := r.Header.Get("Authorization"); got != f.key {
		w.WriteHeader(401)
		fmt.Fprint(w, `{"errors":[{"message":"Authentication required"}]}`)
		return
	}
	var req struct {
		Query     string         `json:"query"`
		Variables map[string]any `json:"variables"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		f.t.Errorf("linear: unreadable request: %v", err)
		w.WriteHeader(400)
		return
	}
	op := strings.Fields(strings.TrimPrefix(strings.TrimPrefix(req.Query, "query "), "mutation "))[0]
	op = strings.SplitN(op, "(", 2)[0]
	f.calls = append(f.calls, op)
	if len(f.fail) > 0 {
		code := f.fail[0]
		f.fail = f.fail[1:]
		if code == 429 {
			w.Header().Set("Retry-After", "90")
		}
		w.WriteHeader(code)
		fmt.Fprint(w, `{"errors":[{"message":"try later","extensions":{"code":"RATELIMITED"}}]}`)
		return
	}
	v := req.Variables
	str := func(k string) string { s, _ := v[k].(string); return s }
	var data any
	switch op {
	case "CairnIssue":
		if c := f.child(str("id")); c != nil {
			is := f.issueJSON()
			is["id"], is["identifier"], is["title"] = "uuid-"+strings.ToLower(c.identifier), c.identifier, c.title
			is["state"] = map[string]string{"name": c.state}
			is["comments"] = map[string]any{"nodes": []any{}}
			data = map[string]any{"issue": is}
			break
		}
		if str("id") != "ENG-42" {
			fmt.Fprint(w, `{"data":{"issue":null},"errors":[{"message":"Entity not found: Issue"}]}`)
			return
		}
		data = map[string]any{"issue": f.issueJSON()}
	case "CairnChildren":
		if str("id") != "ENG-42" {
			fmt.Fprint(w, `{"data":{"issue":null},"errors":[{"message":"Entity not found: Issue"}]}`)
			return
		}
		var nodes []map[string]string
		for _, c := range f.children {
			nodes = append(nodes, map[string]string{"identifier": c.identifier, "title": c.title, "url": "https://linear.app/acme/issue/" + c.identifier, "description": c.description})
		}
		data = map[string]any{"issue": map[string]any{"id": "uuid-eng-42", "team": map[string]string{"id": "team-eng"}, "children": map[string]any{"nodes": nodes}}}
	case "CairnSubIssue":
		if str("teamId") != "team-eng" || str("parentId") != "uuid-eng-42" || str("title") == "" || !strings.Contains(str("description"), "<!-- cairn:") {
			f.t.Errorf("linear: issueCreate with %v", v)
		}
		c := &fakeChild{identifier: fmt.Sprintf("ENG-%d", 43+len(f.children)), title: str("title"), description: str("description"), state: "Todo"}
		f.children = append(f.children, c)
		if f.failAfter {
			f.failAfter = false
			w.WriteHeader(500)
			fmt.Fprint(w, `{"errors":[{"message":"internal error"}]}`)
			return
		}
		data = map[string]any{"issueCreate": map[string]any{"success": true, "issue": map[string]string{"identifier": c.identifier, "url": "https://linear.app/acme/issue/" + c.identifier}}}
	case "CairnComment":
		if str("issueId") != "uuid-eng-42" || str("body") == "" {
			f.t.Errorf("linear: commentCreate with %v", v)
		}
		f.comments = append(f.comments, str("body"))
		data = map[string]any{"commentCreate": map[string]any{"success": true}}
	case "CairnStatus":
		name := map[string]string{"st-todo": "Todo", "st-progress": "In Progress", "st-done": "Done"}[str("stateId")]
		if name == "" {
			f.t.Errorf("linear: unknown state id %q", str("stateId"))
		}
		if c := f.child(strings.ToUpper(strings.TrimPrefix(str("id"), "uuid-"))); c != nil {
			c.state = name
		} else if str("id") != "uuid-eng-42" {
			f.t.Errorf("linear: issueUpdate with %v", v)
		} else {
			f.state = name
		}
		data = map[string]any{"issueUpdate": map[string]any{"success": true}}
	case "CairnLabelCreate":
		if str("teamId") != "team-eng" {
			f.t.Errorf("linear: issueLabelCreate with %v", v)
		}
		id := fmt.Sprintf("label-%d", len(f.labels)+1)
		f.labels[id] = str("name")
		data = map[string]any{"issueLabelCreate": map[string]any{"success": true, "issueLabel": map[string]any{"id": id}}}
	case "CairnLabel":
		if _, ok := f.labels[str("labelId")]; !ok || str("id") != "uuid-eng-42" {
			f.t.Errorf("linear: issueAddLabel with %v", v)
		}
		f.onIssue = append(f.onIssue, str("labelId"))
		data = map[string]any{"issueAddLabel": map[string]any{"success": true}}
	default:
		f.t.Errorf("linear: unexpected operation %q", op)
		w.WriteHeader(400)
		return
	}
	json.NewEncoder(w).Encode(map[string]any{"data": data})
}

func (f *fakeLinear) child(id string) *fakeChild {
	for _, c := range f.children {
		if c.identifier == id {
			return c
		}
	}
	return nil
}

func (f *fakeLinear) issueJSON() map[string]any {
	nodes := func(m map[string]string, only []string) []map[string]string {
		var out []map[string]string
		for id, name := range m {
			if only == nil || contains(only, id) {
				out = append(out, map[string]string{"id": id, "name": name})
			}
		}
		return out
	}
	var comments []map[string]string
	for _, c := range f.comments {
		comments = append(comments, map[string]string{"body": c})
	}
	return map[string]any{
		"id": "uuid-eng-42", "identifier": "ENG-42", "title": "Export invoices as CSV", "url": "https://linear.app/acme/issue/ENG-42",
		"state": map[string]string{"name": f.state},
		"team": map[string]any{"id": "team-eng",
			"states": map[string]any{"nodes": []map[string]string{{"id": "st-todo", "name": "Todo", "type": "unstarted"}, {"id": "st-progress", "name": "In Progress", "type": "started"}, {"id": "st-done", "name": "Done", "type": "completed"}}},
			"labels": map[string]any{"nodes": nodes(f.labels, nil)}},
		"labels":   map[string]any{"nodes": nodes(f.labels, append([]string{}, f.onIssue...))},
		"comments": map[string]any{"nodes": comments},
	}
}

// by opens the trackers by name.
func by(m map[string]Tracker) func(Update) (Tracker, error) {
	return func(u Update) (Tracker, error) {
		if t := m[u.Tracker]; t != nil {
			return t, nil
		}
		return nil, fmt.Errorf("no %s", u.Tracker)
	}
}

// requireCurl returns curl's path; CI must never pass by skipping.
func requireCurl(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("curl")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("curl is needed for the Linear adapter: %v", err)
		}
		t.Skipf("curl not found: %v", err)
	}
	return p
}

func sampleCheckpoint() Checkpoint {
	return Checkpoint{Tracker: "linear", Issue: "ENG-42", ID: 7, Session: "sess-1", Level: 2,
		Summary: "ENG-42: CSV export: header row done, the totals row still off by one cent",
		Next:    []string{"round the totals with banker's rounding", "run go test ./export/..."},
		Handoff: ".claude/handoffs/2026-11-24-1300-eng-42.md", Context: "141,950 tokens (85% of auto-compact)",
		Status: "In Progress", Label: "context-checkpointed", Time: time.Date(2026, 11, 24, 13, 0, 0, 0, time.UTC)}
}

func TestLinearThroughTheQueue(t *testing.T) {
	curl := requireCurl(t)
	f, srv := newFakeLinear(t)
	lin := &Linear{URL: srv.URL, Key: f.key, Curl: curl, Timeout: 5 * time.Second}
	now := time.Date(2026, 11, 24, 13, 0, 0, 0, time.UTC)
	q := Queue{Dir: t.TempDir(), Now: func() time.Time { return now }}
	trackers := map[string]Tracker{"linear": lin}
	ctx := context.Background()

	for _, u := range sampleCheckpoint().Updates() {
		if ok, err := q.Add(u); !ok || err != nil {
			t.Fatalf("Add %s: %v %v", u.Kind, ok, err)
		}
	}
	// A second hook queuing the same checkpoint queues nothing.
	for _, u := range sampleCheckpoint().Updates() {
		if ok, err := q.Add(u); ok || err != nil {
			t.Fatalf("Add %s again: %v %v", u.Kind, ok, err)
		}
	}

	// Linear rate-limits, then fails: nothing is lost, and the drainer
	// waits as asked before trying again.
	f.fail = []int{429}
	r, err := q.Drain(ctx, by(trackers))
	if err != nil {
		t.Fatal(err)
	}
	if r.Sent != 0 || r.Retry != 1 || r.Waiting != 2 {
		t.Fatalf("after a 429: %+v", r)
	}
	pending, _ := q.List("pending")
	if len(pending) != 3 || pending[0].Attempts != 1 || !pending[0].NextAt.Equal(now.Add(90*time.Second)) {
		t.Fatalf("after a 429 the first update should wait 90 s (Retry-After): %+v", pending)
	}
	now = now.Add(91 * time.Second)
	f.fail = []int{500}
	if r, _ = q.Drain(ctx, by(trackers)); r.Retry != 1 || r.Sent != 0 {
		t.Fatalf("after a 500: %+v", r)
	}
	pending, _ = q.List("pending")
	if !pending[0].NextAt.Equal(now.Add(2 * MinBackoff)) {
		t.Fatalf("second failure: next attempt at %s, want %s", pending[0].NextAt, now.Add(2*MinBackoff))
	}
	// Not due yet: nothing is sent.
	if r, _ = q.Drain(ctx, by(trackers)); r.Sent != 0 || r.Waiting != 3 {
		t.Fatalf("before the backoff ended: %+v", r)
	}
	now = now.Add(2 * MinBackoff)
	if r, err = q.Drain(ctx, by(trackers)); err != nil || r.Sent != 3 || r.Retry != 0 {
		t.Fatalf("after recovery: %+v %v", r, err)
	}
	if f.state != "In Progress" {
		t.Errorf("state %q, want In Progress (LIN-001)", f.state)
	}
	if len(f.comments) != 1 || !strings.Contains(f.comments[0], "Context checkpoint (L2)") ||
		!strings.Contains(f.comments[0], ".claude/handoffs/2026-11-24-1300-eng-42.md") || !strings.Contains(f.comments[0], "<!-- cairn:") {
		t.Errorf("comment (LIN-002, LIN-003): %q", f.comments)
	}
	if len(f.onIssue) != 1 || f.labels[f.onIssue[0]] != "context-checkpointed" {
		t.Errorf("label (LIN-004): %v %v", f.onIssue, f.labels)
	}
	if p, _ := q.List("pending"); len(p) != 0 {
		t.Errorf("still pending: %+v", p)
	}

	// A drainer that died after posting, before recording: the comment is
	// found by its key and not posted twice.
	u := sampleCheckpoint().Updates()[1]
	if err := lin.Apply(ctx, u); err != nil {
		t.Fatal(err)
	}
	if len(f.comments) != 1 {
		t.Errorf("the comment was posted again: %d comments", len(f.comments))
	}

	is, err := lin.Issue(ctx, "ENG-42")
	if err != nil || is.State != "In Progress" || is.Title != "Export invoices as CSV" || len(is.Labels) != 1 {
		t.Errorf("Issue: %+v %v", is, err)
	}
}

func TestLinearRefusalsAreKept(t *testing.T) {
	curl := requireCurl(t)
	f, srv := newFakeLinear(t)
	q := Queue{Dir: t.TempDir()}
	ctx := context.Background()

	// A wrong key is refused for good: kept aside, not retried forever.
	bad := &Linear{URL: srv.URL, Key: "lin_api_wrong", Curl: curl}
	c := sampleCheckpoint()
	c.Status, c.Label = "", ""
	for _, u := range c.Updates() {
		q.Add(u)
	}
	r, err := q.Drain(ctx, by(map[string]Tracker{"linear": bad}))
	if err != nil || r.Failed != 1 {
		t.Fatalf("wrong key: %+v %v", r, err)
	}
	failed, _ := q.List("failed")
	if len(failed) != 1 || !strings.Contains(failed[0].LastError, "HTTP 401") {
		t.Fatalf("failed: %+v", failed)
	}
	// The key fixed, retry sends it.
	if n, err := q.Retry(); n != 1 || err != nil {
		t.Fatalf("Retry: %d %v", n, err)
	}
	good := &Linear{URL: srv.URL, Key: f.key, Curl: curl}
	if r, err = q.Drain(ctx, by(map[string]Tracker{"linear": good})); err != nil || r.Sent != 1 {
		t.Fatalf("after retry: %+v %v", r, err)
	}

	// An unknown issue is refused with Linear's message.
	c.Issue = "ENG-404"
	err = good.Apply(ctx, c.Updates()[0])
	if err == nil || IsTransient(err) || !strings.Contains(err.Error(), "Entity not found") {
		t.Errorf("unknown issue: %v", err)
	}

	// Nobody listening is the network's failure: retried.
	srv.Close()
	err = good.Apply(ctx, c.Updates()[0])
	if !IsTransient(err) {
		t.Errorf("server down: %v, want a transient error", err)
	}
}

func TestDrainIsAlone(t *testing.T) {
	q := Queue{Dir: t.TempDir()}
	if err := os.MkdirAll(q.Dir, 0o700); err != nil {
		t.Fatal(err)
	}
	lock, err := os.OpenFile(q.Dir+"/drain.lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := tryLock(lock); err != nil {
		t.Fatal(err)
	}
	if _, err := q.Drain(context.Background(), by(nil)); err != ErrBusy {
		t.Errorf("a second drainer: %v, want ErrBusy", err)
	}
}

func TestBackoff(t *testing.T) {
	for _, tc := range []struct {
		n    int
		err  error
		want time.Duration
	}{
		{1, transient(fmt.Errorf("x"), 0), 30 * time.Second},
		{2, transient(fmt.Errorf("x"), 0), time.Minute},
		{5, transient(fmt.Errorf("x"), 0), 8 * time.Minute},
		{20, transient(fmt.Errorf("x"), 0), time.Hour},
		{1, transient(fmt.Errorf("x"), 5*time.Minute), 5 * time.Minute},
		{1, transient(fmt.Errorf("x"), 3*time.Hour), time.Hour},
	} {
		if got := backoff(tc.n, tc.err); got != tc.want {
			t.Errorf("backoff(%d, %v) = %s, want %s", tc.n, tc.err, got, tc.want)
		}
	}
}

func sampleShards(tr, issue string) Shards {
	return Shards{Tracker: tr, Issue: issue, Item: "Export invoices",
		Titles: []string{"Export invoices (part 1/3: schema)", "Export invoices (part 2/3: handler)", "Export invoices (part 3/3: tests)"},
		Time:   time.Date(2026, 11, 24, 13, 0, 0, 0, time.UTC)}
}

// SHD-003/004 on Linear: the shards become sub-issues of the ticket in its
// team, once each through a rate limit and a 500 that came after the
// issue was made; a shard done closes its sub-issue and tells the parent.
func TestLinearShards(t *testing.T) {
	curl := requireCurl(t)
	f, srv := newFakeLinear(t)
	lin := &Linear{URL: srv.URL, Key: f.key, Curl: curl, Timeout: 5 * time.Second}
	now := time.Date(2026, 11, 24, 13, 0, 0, 0, time.UTC)
	q := Queue{Dir: t.TempDir(), Now: func() time.Time { return now }}
	trackers := by(map[string]Tracker{"linear": lin})
	ctx := context.Background()
	sh := sampleShards("linear", "ENG-42")
	var keys []string
	for _, u := range sh.Updates() {
		if ok, err := q.Add(u); !ok || err != nil {
			t.Fatalf("Add: %v %v", ok, err)
		}
		keys = append(keys, u.Key)
	}
	// A loop restarted shards the item again: the same keys, nothing new.
	for _, u := range sampleShards("linear", "ENG-42").Updates() {
		if ok, _ := q.Add(u); ok {
			t.Fatalf("the same shard queued twice")
		}
	}

	f.fail = []int{429}
	if r, _ := q.Drain(ctx, trackers); r.Retry != 1 || r.Waiting != 2 || len(f.children) != 0 {
		t.Fatalf("after a 429: %+v, %d children", r, len(f.children))
	}
	// The server makes the first sub-issue but answers 500: the drainer
	// does not know it exists.
	now = now.Add(91 * time.Second)
	f.failAfter = true
	if r, _ := q.Drain(ctx, trackers); r.Retry != 1 || r.Sent != 0 || len(f.children) != 1 {
		t.Fatalf("after a 500: %+v, %d children", r, len(f.children))
	}
	now = now.Add(2 * MinBackoff)
	if r, err := q.Drain(ctx, trackers); err != nil || r.Sent != 3 {
		t.Fatalf("after recovery: %+v %v", r, err)
	}
	if len(f.children) != 3 {
		t.Fatalf("%d sub-issues, want 3 (the one made before the 500 found by its marker)", len(f.children))
	}
	for i, c := range f.children {
		if c.title != sh.Titles[i] || !strings.Contains(c.description, "Shard "+fmt.Sprint(i+1)+" of 3 of ENG-42") {
			t.Errorf("sub-issue %d: %+v", i, c)
		}
		if id, ok := q.Created(keys[i]); !ok || id != c.identifier {
			t.Errorf("recorded %q %v for shard %d, want %s", id, ok, i, c.identifier)
		}
	}

	// A drainer killed after creating, before recording: the update is
	// sent again and finds its sub-issue.
	os.Remove(q.file("done", keys[0], ""))
	os.Remove(q.file("created", keys[0], ""))
	q.Add(sh.Updates()[0])
	if r, _ := q.Drain(ctx, trackers); r.Sent != 1 || len(f.children) != 3 {
		t.Fatalf("re-sent creation: %+v, %d sub-issues", r, len(f.children))
	}
	if id, _ := q.Created(keys[0]); id != "ENG-43" {
		t.Errorf("re-sent creation recorded %q", id)
	}

	// SHD-004: shard 1 ticked. A 500 first, then its sub-issue is moved to
	// the team's completed state and the parent told, once.
	done := ShardDone{Tracker: "linear", Issue: "ENG-42", Ref: keys[0], Title: sh.Titles[0], Done: 1, Total: 3, Item: sh.Item,
		Tickets: []string{"ENG-43", "ENG-44", "ENG-45"}, Time: now}
	for _, u := range done.Updates() {
		q.Add(u)
	}
	f.fail = []int{500}
	if r, _ := q.Drain(ctx, trackers); r.Retry != 1 || r.Waiting != 1 {
		t.Fatalf("progress after a 500: %+v", r)
	}
	now = now.Add(MinBackoff)
	if r, err := q.Drain(ctx, trackers); err != nil || r.Sent != 2 {
		t.Fatalf("progress after recovery: %+v %v", r, err)
	}
	if f.children[0].state != "Done" || f.children[1].state != "Todo" {
		t.Errorf("sub-issues' states: %s %s", f.children[0].state, f.children[1].state)
	}
	if len(f.comments) != 1 || !strings.Contains(f.comments[0], "1/3 shards done of Export invoices") || !strings.Contains(f.comments[0], "ENG-43, ENG-44, ENG-45") {
		t.Errorf("parent's comments: %q", f.comments)
	}
	if f.state != "Todo" {
		t.Errorf("the parent's state moved: %s", f.state)
	}

	// An update about a sub-issue never created is refused, saying so.
	bad := ShardDone{Tracker: "linear", Issue: "ENG-42", Ref: "deadbeef00", Title: "x", Done: 1, Total: 1, Time: now}.Updates()[0]
	q.Add(bad)
	if r, _ := q.Drain(ctx, trackers); r.Failed != 1 {
		t.Fatalf("unknown sub-issue: %+v", r)
	}
	if failed, _ := q.List("failed"); len(failed) != 1 || failed[0].Issue != "ENG-42" || !strings.Contains(failed[0].LastError, "was not created") {
		t.Errorf("failed: %+v", failed)
	}
}

// queuing is a tracker that queues another update while it sends one, as
// a loop does when a shard is ticked while the drainer it started runs.
type queuing struct {
	q    Queue
	sent []string
}

func (f *queuing) Name() string { return "fake" }
func (f *queuing) Issue(context.Context, string) (Issue, error) {
	return Issue{}, nil
}
func (f *queuing) Apply(_ context.Context, u Update) error {
	f.sent = append(f.sent, u.Body)
	if u.Body == "first" {
		f.q.Add(Update{Key: "second", Tracker: "fake", Issue: "X-1", Kind: Comment, Body: "second"})
	}
	return nil
}

// An update queued while the drainer runs is sent by it: the drainer
// started for it found the lock taken and left.
func TestDrainTakesWhatIsQueuedMeanwhile(t *testing.T) {
	q := Queue{Dir: t.TempDir()}
	f := &queuing{q: q}
	q.Add(Update{Key: "first", Tracker: "fake", Issue: "X-1", Kind: Comment, Body: "first"})
	r, err := q.Drain(context.Background(), by(map[string]Tracker{"fake": f}))
	if err != nil || r.Sent != 2 || strings.Join(f.sent, ",") != "first,second" {
		t.Fatalf("%+v %v: sent %v", r, err, f.sent)
	}
}

// The record of a created sub-issue goes with the records of sent
// updates, at their age.
func TestPruneForgetsCreated(t *testing.T) {
	q := Queue{Dir: t.TempDir()}
	os.MkdirAll(q.Dir+"/created", 0o700)
	os.MkdirAll(q.Dir+"/done", 0o700)
	os.WriteFile(q.file("created", "abc", ""), []byte("ENG-43\n"), 0o600)
	os.WriteFile(q.file("done", "abc", ""), []byte("x\n"), 0o600)
	if n, _, err := q.Prune(time.Hour, false); n != 0 || err != nil {
		t.Fatalf("young records pruned: %d %v", n, err)
	}
	q.Now = func() time.Time { return time.Now().Add(2 * time.Hour) }
	if n, _, err := q.Prune(time.Hour, true); n != 2 || err != nil {
		t.Fatalf("dry run counted %d %v, want 2", n, err)
	}
	if _, ok := q.Created("abc"); !ok {
		t.Fatal("a dry run removed the record")
	}
	if n, _, _ := q.Prune(time.Hour, false); n != 2 {
		t.Fatalf("pruned %d, want 2", n)
	}
	if _, ok := q.Created("abc"); ok {
		t.Error("the created record is still there")
	}
}
