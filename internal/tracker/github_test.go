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
	f := &fakeGitHub{t: t, token: "ghp_faketoken0123456789"}
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
