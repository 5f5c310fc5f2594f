package tracker

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeGitHub is the part of a GitHub Enterprise API that gh uses for
// issues, comments and labels, over TLS on loopback (gh speaks only
// https to a host; the test's certificate is given to it through
// SSL_CERT_FILE). One repository, acme/shop, with issue 12.
type fakeGitHub struct {
	t     *testing.T
	token string

	mu       sync.Mutex
	comments []string
	labels   []string // the repository's
	onIssue  []string
	ops      []string
	fail     int // answer the next calls with HTTP 502
	// issues are the repository's issues beyond 12 (the shards'), by
	// number; parentBody is issue 12's body and subs its sub-issues.
	// noSubIssues plays a GitHub Enterprise without the sub-issues API;
	// failCreate answers the next issue creation with a 502 after making
	// the issue.
	issues      map[int]*fakeGHIssue
	parentBody  string
	subs        []int64
	closed      []int
	noSubIssues bool
	failCreate  bool
}

type fakeGHIssue struct {
	ID          int64
	Number      int
	Title, Body string
	State       string
}

func (f *fakeGitHub) restIssue(n int) map[string]any {
	if n == 12 {
		return map[string]any{"id": 1012, "number": 12, "title": "Export invoices as CSV", "body": f.parentBody, "state": "open", "html_url": "https://github.example/acme/shop/issues/12"}
	}
	is := f.issues[n]
	return map[string]any{"id": is.ID, "number": is.Number, "title": is.Title, "body": is.Body, "state": strings.ToLower(is.State), "html_url": fmt.Sprintf("https://github.example/acme/shop/issues/%d", n)}
}

// rest serves the REST calls gh api makes for sub-issues; false when the
// request is not one of them.
func (f *fakeGitHub) rest(w http.ResponseWriter, r *http.Request, body []byte) bool {
	const base = "/api/v3/repos/acme/shop/issues"
	p := r.URL.Path
	if !strings.HasPrefix(p, base) {
		return false
	}
	answer := func(code int, v any) {
		w.WriteHeader(code)
		json.NewEncoder(w).Encode(v)
	}
	switch {
	case p == base && r.Method == http.MethodGet:
		f.ops = append(f.ops, "rest-list")
		if r.URL.Query().Get("state") != "all" {
			f.t.Errorf("github: issues listed with %s", r.URL.RawQuery)
		}
		out := []map[string]any{}
		for n := 12 + len(f.issues); n > 12; n-- {
			out = append(out, f.restIssue(n))
		}
		answer(200, append(out, f.restIssue(12)))
	case p == base && r.Method == http.MethodPost:
		var in struct{ Title, Body string }
		json.Unmarshal(body, &in)
		f.ops = append(f.ops, "rest-create")
		if in.Title == "" || !strings.Contains(in.Body, "<!-- cairn:") {
			f.t.Errorf("github: issue created with %s", body)
		}
		n := 13 + len(f.issues)
		f.issues[n] = &fakeGHIssue{ID: int64(2000 + n), Number: n, Title: in.Title, Body: in.Body, State: "OPEN"}
		if f.failCreate {
			f.failCreate = false
			answer(502, map[string]string{"message": "Bad gateway"})
			return true
		}
		answer(201, f.restIssue(n))
	case p == base+"/12" && r.Method == http.MethodGet:
		f.ops = append(f.ops, "rest-parent")
		answer(200, f.restIssue(12))
	case p == base+"/12" && r.Method == http.MethodPatch:
		var in struct{ Body string }
		json.Unmarshal(body, &in)
		f.ops = append(f.ops, "rest-edit-parent")
		f.parentBody = in.Body
		answer(200, f.restIssue(12))
	case p == base+"/12/sub_issues" && f.noSubIssues:
		f.ops = append(f.ops, "rest-sub-issues-404")
		answer(404, map[string]string{"message": "Not Found", "documentation_url": "https://docs.github.com/enterprise-server@3.9/rest"})
	case p == base+"/12/sub_issues" && r.Method == http.MethodGet:
		f.ops = append(f.ops, "rest-sub-issues")
		out := []map[string]any{}
		for _, id := range f.subs {
			out = append(out, f.restIssue(int(id-2000)))
		}
		answer(200, out)
	case p == base+"/12/sub_issues" && r.Method == http.MethodPost:
		var in struct {
			SubIssueID int64 `json:"sub_issue_id"`
		}
		json.Unmarshal(body, &in)
		f.ops = append(f.ops, "rest-add-sub-issue")
		if f.issues[int(in.SubIssueID-2000)] == nil || contains(strings.Fields(fmt.Sprint(f.subs)), fmt.Sprint(in.SubIssueID)) {
			answer(422, map[string]string{"message": fmt.Sprintf("sub_issue_id %d: not an issue, or already a sub-issue", in.SubIssueID)})
			return true
		}
		f.subs = append(f.subs, in.SubIssueID)
		answer(201, f.restIssue(12))
	default:
		f.t.Errorf("github: unexpected %s %s", r.Method, r.URL)
		answer(404, map[string]string{"message": "Not Found"})
	}
	return true
}

func (f *fakeGitHub) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Oauth-Scopes", "repo")
	if r.Header.Get("Authorization") != "token "+f.token {
		w.WriteHeader(401)
		fmt.Fprint(w, `{"message":"Bad credentials"}`)
		return
	}
	body, _ := io.ReadAll(r.Body)
	if f.fail > 0 {
		f.fail--
		f.ops = append(f.ops, "502")
		w.WriteHeader(502)
		fmt.Fprint(w, `{"message":"Bad gateway"}`)
		return
	}
	if r.URL.Path == "/api/v3/repos/acme/shop/labels" && r.Method == http.MethodPost {
		var l struct{ Name string }
		json.Unmarshal(body, &l)
		f.ops = append(f.ops, "label-create")
		if contains(f.labels, l.Name) {
			w.WriteHeader(422)
			fmt.Fprint(w, `{"message":"Validation Failed","errors":[{"resource":"Label","code":"already_exists","field":"name"}]}`)
			return
		}
		f.labels = append(f.labels, l.Name)
		w.WriteHeader(201)
		fmt.Fprintf(w, `{"id":1,"node_id":"LA_%d","name":%q,"color":"C5DEF5"}`, len(f.labels), l.Name)
		return
	}
	if strings.HasPrefix(r.URL.Path, "/api/v3/repos/acme/shop/labels/") && r.Method == http.MethodPatch {
		f.ops = append(f.ops, "label-update")
		fmt.Fprint(w, `{"id":1,"name":"x"}`)
		return
	}
	if f.rest(w, r, body) {
		return
	}
	if r.URL.Path != "/api/graphql" {
		f.t.Errorf("github: unexpected %s %s", r.Method, r.URL.Path)
		w.WriteHeader(404)
		return
	}
	var req struct {
		Query     string         `json:"query"`
		Variables map[string]any `json:"variables"`
	}
	json.Unmarshal(body, &req)
	q := strings.TrimSpace(req.Query)
	op := strings.Fields(strings.NewReplacer("(", " ", "{", " ").Replace(strings.TrimPrefix(strings.TrimPrefix(q, "query"), "mutation")))[0]
	f.ops = append(f.ops, op)
	labels := func(names []string) map[string]any {
		var nodes []map[string]string
		for i, n := range names {
			nodes = append(nodes, map[string]string{"id": fmt.Sprintf("LA_%d", i+1), "name": n, "description": "", "color": "C5DEF5"})
		}
		return map[string]any{"nodes": nodes, "totalCount": len(nodes), "pageInfo": map[string]any{"hasNextPage": false}}
	}
	comments := func() map[string]any {
		var nodes []map[string]any
		for i, c := range f.comments {
			nodes = append(nodes, map[string]any{"id": fmt.Sprintf("IC_%d", i), "body": c, "author": map[string]string{"login": "me"},
				"authorAssociation": "OWNER", "createdAt": "2026-11-24T13:00:00Z", "reactionGroups": []any{}, "url": "https://x"})
		}
		return map[string]any{"nodes": nodes, "totalCount": len(nodes), "pageInfo": map[string]any{"hasNextPage": false}}
	}
	var data any
	switch op {
	case "IssueByNumber":
		if n, _ := req.Variables["number"].(float64); f.issues[int(n)] != nil {
			is := f.issues[int(n)]
			data = map[string]any{"repository": map[string]any{"hasIssuesEnabled": true, "issue": map[string]any{
				"__typename": "Issue", "id": fmt.Sprintf("I_%d", is.Number), "number": is.Number, "title": is.Title, "body": is.Body, "state": is.State,
				"url": fmt.Sprintf("https://github.example/acme/shop/issues/%d", is.Number), "labels": labels(nil), "comments": comments()}}}
			break
		}
		if n, _ := req.Variables["number"].(float64); n != 12 {
			fmt.Fprint(w, `{"data":{"repository":{"hasIssuesEnabled":true,"issue":null}},"errors":[{"type":"NOT_FOUND","message":"Could not resolve to an issue or pull request with the number of 99."}]}`)
			return
		}
		var on []string
		on = append(on, f.onIssue...)
		data = map[string]any{"repository": map[string]any{"hasIssuesEnabled": true, "issue": map[string]any{
			"__typename": "Issue", "id": "I_12", "number": 12, "title": "Export invoices as CSV", "body": "", "state": "OPEN",
			"url": "https://github.example/acme/shop/issues/12", "labels": labels(on), "comments": comments()}}}
	case "CommentsForIssue":
		data = map[string]any{"node": map[string]any{"comments": comments()}}
	case "CommentCreate":
		in, _ := req.Variables["input"].(map[string]any)
		b, _ := in["body"].(string)
		if in["subjectId"] != "I_12" || b == "" {
			f.t.Errorf("github: addComment with %v", in)
		}
		f.comments = append(f.comments, b)
		data = map[string]any{"addComment": map[string]any{"commentEdge": map[string]any{"node": map[string]any{"url": "https://x"}}}}
	case "RepositoryLabelList":
		// Only the fields asked for: gh refuses others.
		var nodes []map[string]string
		for i, n := range f.labels {
			nodes = append(nodes, map[string]string{"id": fmt.Sprintf("LA_%d", i+1), "name": n})
		}
		data = map[string]any{"repository": map[string]any{"labels": map[string]any{"nodes": nodes, "pageInfo": map[string]any{"hasNextPage": false}}}}
	case "IssueClose":
		in, _ := req.Variables["input"].(map[string]any)
		id, _ := in["issueId"].(string)
		var n int
		fmt.Sscanf(id, "I_%d", &n)
		if f.issues[n] == nil {
			f.t.Errorf("github: closeIssue with %v", in)
			break
		}
		f.issues[n].State = "CLOSED"
		f.closed = append(f.closed, n)
		data = map[string]any{"closeIssue": map[string]any{"issue": map[string]any{"id": id}}}
	default:
		if strings.HasPrefix(q, "mutation") && strings.Contains(q, "abel") {
			// gh issue edit --add-label: the label ids to add.
			raw, _ := json.Marshal(req.Variables)
			for i, n := range f.labels {
				if strings.Contains(string(raw), fmt.Sprintf("LA_%d", i+1)) && !contains(f.onIssue, n) {
					f.onIssue = append(f.onIssue, n)
				}
			}
			data = map[string]any{}
			break
		}
		f.t.Errorf("github: unexpected operation %s: %s", op, q)
		w.WriteHeader(400)
		return
	}
	json.NewEncoder(w).Encode(map[string]any{"data": data})
}

func requireGh(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("gh")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("gh is needed for the GitHub adapter's test: %v (apt-get install gh)", err)
		}
		t.Skipf("gh not found: %v", err)
	}
	return p
}

func newFakeGitHub(t *testing.T) (*fakeGitHub, *GitHub) {
	gh := requireGh(t)
	f := &fakeGitHub{t: t, token: "ghp_faketoken0123456789", issues: map[int]*fakeGHIssue{}, parentBody: "CSV export for the accountants."}
	srv := httptest.NewUnstartedServer(f)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	pf, err := os.Create(ca)
	if err != nil {
		t.Fatal(err)
	}
	pem.Encode(pf, &pem.Block{Type: "CERTIFICATE", Bytes: srv.TLS.Certificates[0].Certificate[0]})
	pf.Close()
	host := srv.Listener.Addr().String()
	return f, &GitHub{Repo: host + "/acme/shop", Dir: dir, Gh: gh, Timeout: 20 * time.Second,
		Env: []string{"SSL_CERT_FILE=" + ca, "GH_ENTERPRISE_TOKEN=" + f.token, "GH_HOST=" + host, "GH_CONFIG_DIR=" + filepath.Join(dir, "gh")}}
}

func TestGitHubThroughTheQueue(t *testing.T) {
	f, g := newFakeGitHub(t)
	ctx := context.Background()
	now := time.Date(2026, 11, 24, 13, 0, 0, 0, time.UTC)
	q := Queue{Dir: t.TempDir(), Now: func() time.Time { return now }}
	c := sampleCheckpoint()
	c.Tracker, c.Issue, c.Status = "github", "#12", ""
	for _, u := range c.Updates() {
		q.Add(u)
	}
	trackers := map[string]Tracker{"github": g}

	// The server is down: both wait, nothing is lost.
	f.fail = 100
	r, err := q.Drain(ctx, by(trackers))
	if err != nil || r.Retry != 1 || r.Waiting != 1 || r.Sent != 0 {
		t.Fatalf("server down: %+v %v", r, err)
	}
	f.fail = 0
	now = now.Add(MinBackoff)
	if r, err = q.Drain(ctx, by(trackers)); err != nil || r.Sent != 2 {
		t.Fatalf("after recovery: %+v %v (ops %v)", r, err, f.ops)
	}
	if len(f.comments) != 1 || !strings.Contains(f.comments[0], "Context checkpoint (L2)") || !strings.Contains(f.comments[0], "<!-- cairn:") {
		t.Errorf("comments: %q", f.comments)
	}
	if !contains(f.onIssue, "context-checkpointed") {
		t.Errorf("label not on the issue: %v (ops %v)", f.onIssue, f.ops)
	}
	// Posting the same comment again finds it.
	if err := g.Apply(ctx, c.Updates()[0]); err != nil || len(f.comments) != 1 {
		t.Errorf("second apply: %v, %d comments", err, len(f.comments))
	}
	is, err := g.Issue(ctx, "#12")
	if err != nil || is.State != "OPEN" || is.Title != "Export invoices as CSV" || !contains(is.Labels, "context-checkpointed") {
		t.Errorf("Issue: %+v %v", is, err)
	}
	// An issue that does not exist is refused for good.
	c.Issue = "#99"
	if err := g.Apply(ctx, c.Updates()[0]); err == nil || IsTransient(err) {
		t.Errorf("issue 99: %v, want a permanent error", err)
	}
}

// SHD-003/004 on GitHub, real gh against the fake API: the shards become
// issues made sub-issues of #12 (gh api: gh 2.23.0 has no command for
// them), once each through a 502 that came after the issue was made; a
// shard done closes its issue and tells #12. A server without the
// sub-issues API gets a task list in #12's body instead.
func TestGitHubShards(t *testing.T) {
	for _, tc := range []struct {
		name        string
		noSubIssues bool
	}{{"sub-issues", false}, {"task list", true}} {
		t.Run(tc.name, func(t *testing.T) {
			f, g := newFakeGitHub(t)
			f.noSubIssues = tc.noSubIssues
			ctx := context.Background()
			now := time.Date(2026, 11, 24, 13, 0, 0, 0, time.UTC)
			q := Queue{Dir: t.TempDir(), Now: func() time.Time { return now }}
			trackers := by(map[string]Tracker{"github": g})
			sh := sampleShards("github", "#12")
			var keys []string
			for _, u := range sh.Updates() {
				q.Add(u)
				keys = append(keys, u.Key)
			}
			f.failCreate = true
			if r, _ := q.Drain(ctx, trackers); r.Retry != 1 || r.Waiting != 2 || len(f.issues) != 1 {
				t.Fatalf("after a 502 on creation: %+v, %d issues (ops %v)", r, len(f.issues), f.ops)
			}
			now = now.Add(MinBackoff)
			if r, err := q.Drain(ctx, trackers); err != nil || r.Sent != 3 {
				t.Fatalf("after recovery: %+v %v (ops %v)", r, err, f.ops)
			}
			if len(f.issues) != 3 {
				t.Fatalf("%d issues made, want 3 (ops %v)", len(f.issues), f.ops)
			}
			for i, k := range keys {
				want := fmt.Sprintf("#%d", 13+i)
				if id, ok := q.Created(k); !ok || id != want || f.issues[13+i].Title != sh.Titles[i] {
					t.Errorf("shard %d: recorded %q, issue %+v", i, id, f.issues[13+i])
				}
			}
			if tc.noSubIssues {
				for i, title := range sh.Titles {
					if line := fmt.Sprintf("- [ ] #%d %s\n", 13+i, title); strings.Count(f.parentBody, line) != 1 {
						t.Errorf("#12's body lacks %q once:\n%s", line, f.parentBody)
					}
				}
				if !strings.HasPrefix(f.parentBody, "CSV export for the accountants.") {
					t.Errorf("#12's own text lost:\n%s", f.parentBody)
				}
			} else if fmt.Sprint(f.subs) != "[2013 2014 2015]" {
				t.Errorf("sub-issues of #12: %v (ops %v)", f.subs, f.ops)
			}
			// Sent again (a drainer killed before recording): found, linked
			// once.
			os.Remove(q.file("done", keys[1], ""))
			os.Remove(q.file("created", keys[1], ""))
			q.Add(sh.Updates()[1])
			body := f.parentBody
			if r, _ := q.Drain(ctx, trackers); r.Sent != 1 || len(f.issues) != 3 || len(f.subs) > 3 || f.parentBody != body {
				t.Fatalf("re-sent: %+v, %d issues, subs %v (ops %v)", r, len(f.issues), f.subs, f.ops)
			}

			done := ShardDone{Tracker: "github", Issue: "#12", Ref: keys[0], Title: sh.Titles[0], Done: 1, Total: 3, Item: sh.Item,
				Tickets: []string{"#13", "#14", "#15"}, Time: now}
			for _, u := range done.Updates() {
				q.Add(u)
			}
			if r, err := q.Drain(ctx, trackers); err != nil || r.Sent != 2 {
				t.Fatalf("progress: %+v %v (ops %v)", r, err, f.ops)
			}
			t.Logf("ops: %v", f.ops)
			if fmt.Sprint(f.closed) != "[13]" || len(f.comments) != 1 || !strings.Contains(f.comments[0], "1/3 shards done") {
				t.Errorf("closed %v, comments on #12 %q", f.closed, f.comments)
			}
		})
	}
}
