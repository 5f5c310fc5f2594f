package tracker

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// LinearURL is Linear's GraphQL endpoint.
const LinearURL = "https://api.linear.app/graphql"

// Linear is Linear's GraphQL API, called through curl. Not net/http: every
// package linked into cairn initialises in every hook process, and
// net/http's initialisation alone costs more than a whole hot hook's work
// (measured: docs/benchmarks.md). Only the drainer calls Linear, and
// curl is on every machine Linear users have.
type Linear struct {
	// URL is the endpoint (LinearURL unless a test serves its own).
	URL string
	// Key is the API key (LINEAR_API_KEY); it reaches curl through a
	// private file, never its command line, where other users could read
	// it.
	Key string
	// Curl is the curl binary ("curl" from PATH when empty).
	Curl string
	// Timeout bounds one request.
	Timeout time.Duration
}

func (l *Linear) Name() string { return "linear" }

// linearIssue is what Apply and Issue read of an issue.
type linearIssue struct {
	ID         string `json:"id"`
	Identifier string `json:"identifier"`
	Title      string `json:"title"`
	URL        string `json:"url"`
	State      struct {
		Name string `json:"name"`
	} `json:"state"`
	Team struct {
		ID     string `json:"id"`
		States struct {
			Nodes []struct{ ID, Name, Type string } `json:"nodes"`
		} `json:"states"`
		Labels struct {
			Nodes []struct{ ID, Name string } `json:"nodes"`
		} `json:"labels"`
	} `json:"team"`
	Labels struct {
		Nodes []struct{ ID, Name string } `json:"nodes"`
	} `json:"labels"`
	Comments struct {
		Nodes []struct{ Body string } `json:"nodes"`
	} `json:"comments"`
}

const linearIssueQuery = `query CairnIssue($id: String!) {
  issue(id: $id) {
    id identifier title url
    state { name }
    team { id states { nodes { id name type } } labels { nodes { id name } } }
    labels { nodes { id name } }
    comments(last: 100) { nodes { body } }
  }
}`

func (l *Linear) issue(ctx context.Context, id string) (linearIssue, error) {
	var out struct {
		Issue *linearIssue `json:"issue"`
	}
	if err := l.call(ctx, linearIssueQuery, map[string]any{"id": id}, &out); err != nil {
		return linearIssue{}, err
	}
	if out.Issue == nil {
		return linearIssue{}, fmt.Errorf("linear: no issue %s", id)
	}
	return *out.Issue, nil
}

// Issue reads the issue's state (HND-003).
func (l *Linear) Issue(ctx context.Context, id string) (Issue, error) {
	is, err := l.issue(ctx, id)
	if err != nil {
		return Issue{}, err
	}
	out := Issue{ID: is.Identifier, Title: is.Title, State: is.State.Name, URL: is.URL}
	for _, n := range is.Labels.Nodes {
		out.Labels = append(out.Labels, n.Name)
	}
	return out, nil
}

// Apply makes one update. Each reads the issue first: for the state's and
// the label's ids, and for a comment, to find its key if a drainer
// already posted it.
func (l *Linear) Apply(ctx context.Context, u Update) error {
	is, err := l.issue(ctx, u.Issue)
	if err != nil {
		return err
	}
	switch u.Kind {
	case Comment:
		var bodies []string
		for _, c := range is.Comments.Nodes {
			bodies = append(bodies, c.Body)
		}
		if hasMarker(bodies, u.Key) {
			return nil
		}
		return l.mutate(ctx, "commentCreate", `mutation CairnComment($issueId: String!, $body: String!) {
  commentCreate(input: { issueId: $issueId, body: $body }) { success }
}`, map[string]any{"issueId": is.ID, "body": withMarker(u.Body, u.Key)})
	case Status, Close:
		stateID, name := "", u.Status
		for _, s := range is.Team.States.Nodes {
			if name != "" && strings.EqualFold(s.Name, name) || name == "" && u.Kind == Close && s.Type == "completed" && stateID == "" {
				stateID, name = s.ID, s.Name
			}
		}
		if strings.EqualFold(is.State.Name, name) {
			return nil
		}
		if stateID == "" && u.Kind == Close && u.Status == "" {
			return fmt.Errorf("linear: the team of %s has no completed state", u.Issue)
		}
		if stateID == "" {
			return fmt.Errorf("linear: the team of %s has no state %q", u.Issue, u.Status)
		}
		return l.mutate(ctx, "issueUpdate", `mutation CairnStatus($id: String!, $stateId: String!) {
  issueUpdate(id: $id, input: { stateId: $stateId }) { success }
}`, map[string]any{"id": is.ID, "stateId": stateID})
	case Label:
		for _, n := range is.Labels.Nodes {
			if strings.EqualFold(n.Name, u.Label) {
				return nil
			}
		}
		labelID := ""
		for _, n := range is.Team.Labels.Nodes {
			if strings.EqualFold(n.Name, u.Label) {
				labelID = n.ID
			}
		}
		if labelID == "" {
			var out struct {
				IssueLabelCreate struct {
					Success    bool `json:"success"`
					IssueLabel struct {
						ID string `json:"id"`
					} `json:"issueLabel"`
				} `json:"issueLabelCreate"`
			}
			if err := l.call(ctx, `mutation CairnLabelCreate($name: String!, $teamId: String!) {
  issueLabelCreate(input: { name: $name, teamId: $teamId }) { success issueLabel { id } }
}`, map[string]any{"name": u.Label, "teamId": is.Team.ID}, &out); err != nil {
				return err
			}
			if !out.IssueLabelCreate.Success || out.IssueLabelCreate.IssueLabel.ID == "" {
				return errors.New("linear: issueLabelCreate did not succeed")
			}
			labelID = out.IssueLabelCreate.IssueLabel.ID
		}
		return l.mutate(ctx, "issueAddLabel", `mutation CairnLabel($id: String!, $labelId: String!) {
  issueAddLabel(id: $id, labelId: $labelId) { success }
}`, map[string]any{"id": is.ID, "labelId": labelID})
	}
	return fmt.Errorf("linear: cannot %s", u.Kind)
}

// CreateSubIssue creates u.Title as a sub-issue of u.Issue, in the
// parent's team (SHD-003). A child whose description carries u.Key's
// marker is the one an earlier attempt created: it is returned, not made
// again.
func (l *Linear) CreateSubIssue(ctx context.Context, u Update) (Issue, error) {
	var parent struct {
		Issue *struct {
			ID   string `json:"id"`
			Team struct {
				ID string `json:"id"`
			} `json:"team"`
			Children struct {
				Nodes []struct {
					Identifier  string `json:"identifier"`
					Title       string `json:"title"`
					URL         string `json:"url"`
					Description string `json:"description"`
				} `json:"nodes"`
			} `json:"children"`
		} `json:"issue"`
	}
	if err := l.call(ctx, `query CairnChildren($id: String!) {
  issue(id: $id) { id team { id } children(first: 250) { nodes { identifier title url description } } }
}`, map[string]any{"id": u.Issue}, &parent); err != nil {
		return Issue{}, err
	}
	if parent.Issue == nil {
		return Issue{}, fmt.Errorf("linear: no issue %s", u.Issue)
	}
	m := marker(u.Key)
	for _, c := range parent.Issue.Children.Nodes {
		if strings.Contains(c.Description, m) {
			return Issue{ID: c.Identifier, Title: c.Title, URL: c.URL}, nil
		}
	}
	var out struct {
		IssueCreate struct {
			Success bool `json:"success"`
			Issue   struct {
				Identifier string `json:"identifier"`
				URL        string `json:"url"`
			} `json:"issue"`
		} `json:"issueCreate"`
	}
	if err := l.call(ctx, `mutation CairnSubIssue($teamId: String!, $parentId: String!, $title: String!, $description: String!) {
  issueCreate(input: { teamId: $teamId, parentId: $parentId, title: $title, description: $description }) { success issue { identifier url } }
}`, map[string]any{"teamId": parent.Issue.Team.ID, "parentId": parent.Issue.ID, "title": u.Title, "description": withMarker(u.Body, u.Key)}, &out); err != nil {
		return Issue{}, err
	}
	if !out.IssueCreate.Success || out.IssueCreate.Issue.Identifier == "" {
		return Issue{}, errors.New("linear: issueCreate did not succeed")
	}
	return Issue{ID: out.IssueCreate.Issue.Identifier, Title: u.Title, URL: out.IssueCreate.Issue.URL}, nil
}

// mutate runs a mutation whose answer is { name: { success } }.
func (l *Linear) mutate(ctx context.Context, name, query string, vars map[string]any) error {
	var out map[string]struct {
		Success bool `json:"success"`
	}
	if err := l.call(ctx, query, vars, &out); err != nil {
		return err
	}
	if !out[name].Success {
		return fmt.Errorf("linear: %s did not succeed", name)
	}
	return nil
}

// call posts one GraphQL request and decodes its data into out. Network
// failures, rate limits (HTTP 429 or Linear's RATELIMITED) and server
// errors are Transient; the rest (a bad key, an unknown issue) are not.
func (l *Linear) call(ctx context.Context, query string, vars map[string]any, out any) error {
	if l.Key == "" {
		return errors.New("linear: LINEAR_API_KEY is not set")
	}
	body, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		return err
	}
	status, header, resp, err := l.post(ctx, body)
	if err != nil {
		return err
	}
	var answer struct {
		Data   json.RawMessage `json:"data"`
		Errors []struct {
			Message    string `json:"message"`
			Extensions struct {
				Code string `json:"code"`
			} `json:"extensions"`
		} `json:"errors"`
	}
	jerr := json.Unmarshal(resp, &answer)
	limited := status == 429
	for _, e := range answer.Errors {
		if e.Extensions.Code == "RATELIMITED" {
			limited = true
		}
	}
	switch {
	case limited:
		return transient(fmt.Errorf("linear: rate limited (HTTP %d)", status), retryAfter(header))
	case status >= 500 || status == 408:
		return transient(fmt.Errorf("linear: HTTP %d: %s", status, snippet(resp)), retryAfter(header))
	case status != 200:
		return fmt.Errorf("linear: HTTP %d: %s", status, snippet(resp))
	case jerr != nil:
		return transient(fmt.Errorf("linear: unreadable answer: %v", jerr), 0)
	case len(answer.Errors) > 0:
		return fmt.Errorf("linear: %s", answer.Errors[0].Message)
	}
	if err := json.Unmarshal(answer.Data, out); err != nil {
		return fmt.Errorf("linear: unexpected answer: %v", err)
	}
	return nil
}

// post sends body with curl and returns the HTTP status, the headers and
// the body of the answer.
func (l *Linear) post(ctx context.Context, body []byte) (int, string, []byte, error) {
	timeout := l.Timeout
	if timeout <= 0 {
		timeout = 20 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout+5*time.Second)
	defer cancel()
	// The key goes in a curl config file only this user can read.
	conf, err := os.CreateTemp("", "cairn-linear-*.conf")
	if err != nil {
		return 0, "", nil, err
	}
	defer os.Remove(conf.Name())
	fmt.Fprintf(conf, "header = \"Authorization: %s\"\n", strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(l.Key))
	if err := conf.Close(); err != nil {
		return 0, "", nil, err
	}
	hdr, err := os.CreateTemp("", "cairn-linear-*.hdr")
	if err != nil {
		return 0, "", nil, err
	}
	hdr.Close()
	defer os.Remove(hdr.Name())
	url := l.URL
	if url == "" {
		url = LinearURL
	}
	curl := l.Curl
	if curl == "" {
		curl = "curl"
	}
	cmd := exec.CommandContext(ctx, curl, "--silent", "--show-error", "--config", conf.Name(),
		"--max-time", strconv.Itoa(int(timeout.Seconds())), "--request", "POST",
		"--header", "Content-Type: application/json", "--data-binary", "@-",
		"--dump-header", hdr.Name(), "--write-out", "\n%{http_code}", url)
	cmd.Stdin = bytes.NewReader(body)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) || ctx.Err() != nil {
			// curl's own failures (no route, refused, timed out, TLS) are
			// the network's: worth retrying.
			return 0, "", nil, transient(fmt.Errorf("linear: curl: %v: %s", err, strings.TrimSpace(stderr.String())), 0)
		}
		return 0, "", nil, fmt.Errorf("linear: run curl: %w", err)
	}
	out := stdout.Bytes()
	i := bytes.LastIndexByte(out, '\n')
	if i < 0 {
		return 0, "", nil, transient(errors.New("linear: curl printed no status"), 0)
	}
	status, err := strconv.Atoi(strings.TrimSpace(string(out[i+1:])))
	if err != nil {
		return 0, "", nil, transient(fmt.Errorf("linear: curl printed status %q", out[i+1:]), 0)
	}
	h, _ := os.ReadFile(hdr.Name())
	return status, string(h), out[:i], nil
}

// retryAfter reads a Retry-After header given in seconds.
func retryAfter(header string) time.Duration {
	for _, line := range strings.Split(header, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if ok && strings.EqualFold(strings.TrimSpace(k), "Retry-After") {
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 0 {
				return time.Duration(n) * time.Second
			}
		}
	}
	return 0
}

func snippet(b []byte) string { return oneLine(string(b[:min(len(b), 200)])) }
