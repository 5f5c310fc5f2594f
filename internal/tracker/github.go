package tracker

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// GitHub is GitHub Issues through the gh CLI, logged in as the user
// (`gh auth login`, or GH_TOKEN / GH_ENTERPRISE_TOKEN). GitHub issues have
// no workflow states, so a status update is not made there: a comment
// and a label are.
type GitHub struct {
	// Repo is [HOST/]OWNER/REPO; empty lets gh take it from the git
	// remote of Dir.
	Repo string
	// Dir is the project, where gh runs.
	Dir string
	// Gh is the gh binary ("gh" from PATH when empty); Env is added to
	// its environment.
	Gh      string
	Env     []string
	Timeout time.Duration
}

func (g *GitHub) Name() string { return "github" }

// number is the issue's number as gh takes it: "#12", "GH-12" and "12"
// are 12.
func number(id string) (string, error) {
	n := strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(id, "#"), "GH-"), "gh-")
	for _, r := range n {
		if r < '0' || r > '9' {
			return "", fmt.Errorf("github: %q is not an issue number", id)
		}
	}
	if n == "" {
		return "", fmt.Errorf("github: no issue number")
	}
	return n, nil
}

type ghIssue struct {
	Title  string `json:"title"`
	State  string `json:"state"`
	URL    string `json:"url"`
	Labels []struct {
		Name string `json:"name"`
	} `json:"labels"`
	Comments []struct {
		Body string `json:"body"`
	} `json:"comments"`
}

func (g *GitHub) view(ctx context.Context, n, fields string) (ghIssue, error) {
	var is ghIssue
	out, err := g.gh(ctx, nil, "issue", "view", n, "--json", fields)
	if err != nil {
		return is, err
	}
	if err := json.Unmarshal(out, &is); err != nil {
		return is, fmt.Errorf("github: gh issue view printed %q: %v", snippet(out), err)
	}
	return is, nil
}

// Issue reads the issue's state.
func (g *GitHub) Issue(ctx context.Context, id string) (Issue, error) {
	n, err := number(id)
	if err != nil {
		return Issue{}, err
	}
	is, err := g.view(ctx, n, "title,state,url,labels")
	if err != nil {
		return Issue{}, err
	}
	out := Issue{ID: "#" + n, Title: is.Title, State: is.State, URL: is.URL}
	for _, l := range is.Labels {
		out.Labels = append(out.Labels, l.Name)
	}
	return out, nil
}

// Apply makes one update.
func (g *GitHub) Apply(ctx context.Context, u Update) error {
	n, err := number(u.Issue)
	if err != nil {
		return err
	}
	switch u.Kind {
	case Comment:
		is, err := g.view(ctx, n, "comments")
		if err != nil {
			return err
		}
		var bodies []string
		for _, c := range is.Comments {
			bodies = append(bodies, c.Body)
		}
		if hasMarker(bodies, u.Key) {
			return nil
		}
		_, err = g.gh(ctx, []byte(withMarker(u.Body, u.Key)), "issue", "comment", n, "--body-file", "-")
		return err
	case Label:
		// --force: the label may exist already, which is fine.
		if _, err := g.gh(ctx, nil, "label", "create", u.Label, "--force", "--description", "cairn: the agent's context was checkpointed"); err != nil {
			return err
		}
		_, err := g.gh(ctx, nil, "issue", "edit", n, "--add-label", u.Label)
		return err
	case Close:
		is, err := g.view(ctx, n, "state")
		if err != nil {
			return err
		}
		if strings.EqualFold(is.State, "closed") {
			return nil
		}
		_, err = g.gh(ctx, nil, "issue", "close", n)
		return err
	}
	return fmt.Errorf("github: issues have no %s to update", u.Kind)
}

// restIssue is what the REST API says of an issue.
type restIssue struct {
	ID     int64  `json:"id"`
	Number int    `json:"number"`
	Title  string `json:"title"`
	Body   string `json:"body"`
	URL    string `json:"html_url"`
}

// CreateSubIssue creates u.Title as an issue and makes it a sub-issue of
// u.Issue (SHD-003), through gh api: gh 2.23.0 has no command for
// sub-issues. A recent issue whose body carries u.Key's marker is the one
// an earlier attempt created, and is linked rather than made again. A
// server without the sub-issues API (GitHub Enterprise before it) answers
// 404 there: the parent's body then gets a task-list line, "- [ ] #13",
// which GitHub renders with the issue's state.
func (g *GitHub) CreateSubIssue(ctx context.Context, u Update) (Issue, error) {
	n, err := number(u.Issue)
	if err != nil {
		return Issue{}, err
	}
	base := g.restBase()
	var parent restIssue
	if err := g.api(ctx, &parent, nil, base+"/issues/"+n); err != nil {
		return Issue{}, err
	}
	var recent []restIssue
	if err := g.api(ctx, &recent, nil, base+"/issues?state=all&sort=created&direction=desc&per_page=100"); err != nil {
		return Issue{}, err
	}
	var child restIssue
	for _, is := range recent {
		if strings.Contains(is.Body, marker(u.Key)) {
			child = is
			break
		}
	}
	if child.Number == 0 {
		in, _ := json.Marshal(map[string]string{"title": u.Title, "body": withMarker(u.Body, u.Key)})
		if err := g.api(ctx, &child, in, "--method", "POST", base+"/issues"); err != nil {
			return Issue{}, err
		}
		if child.Number == 0 {
			return Issue{}, errors.New("github: the new issue has no number")
		}
	}
	out := Issue{ID: fmt.Sprintf("#%d", child.Number), Title: child.Title, URL: child.URL}
	var subs []restIssue
	err = g.api(ctx, &subs, nil, base+"/issues/"+n+"/sub_issues?per_page=100")
	switch {
	case err != nil && strings.Contains(err.Error(), "HTTP 404"):
		line := fmt.Sprintf("- [ ] #%d", child.Number)
		for _, l := range strings.Split(parent.Body, "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), line) {
				return out, nil
			}
		}
		body := strings.TrimRight(parent.Body, "\n")
		if !strings.Contains(body, "**Shards**") {
			body += "\n\n**Shards** (cairn)\n"
		}
		in, _ := json.Marshal(map[string]string{"body": strings.TrimLeft(body+"\n"+line+" "+u.Title+"\n", "\n")})
		return out, g.api(ctx, nil, in, "--method", "PATCH", base+"/issues/"+n)
	case err != nil:
		return Issue{}, err
	}
	for _, s := range subs {
		if s.ID == child.ID {
			return out, nil
		}
	}
	in, _ := json.Marshal(map[string]int64{"sub_issue_id": child.ID})
	return out, g.api(ctx, nil, in, "--method", "POST", base+"/issues/"+n+"/sub_issues")
}

// restBase is the REST path of the repository: gh fills {owner} and
// {repo} from the project's git remote when Repo is not set.
func (g *GitHub) restBase() string {
	parts := strings.Split(g.Repo, "/")
	if len(parts) >= 2 {
		return "repos/" + parts[len(parts)-2] + "/" + parts[len(parts)-1]
	}
	return "repos/{owner}/{repo}"
}

// api runs gh api on path (and method flags before it), the JSON in
// given on stdin, its answer decoded into out when out is not nil.
func (g *GitHub) api(ctx context.Context, out any, in []byte, args ...string) error {
	full := []string{"api"}
	var env []string
	if parts := strings.Split(g.Repo, "/"); len(parts) == 3 {
		// GH_HOST, not --hostname: gh 2.23.0 refuses a host with a port
		// there, which --repo and GH_HOST take.
		env = []string{"GH_HOST=" + parts[0]}
	}
	if in != nil {
		full = append(full, "--input", "-")
	}
	data, err := g.run(ctx, in, false, env, append(full, args...)...)
	if err != nil || out == nil {
		return err
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("github: gh api printed %q: %v", snippet(data), err)
	}
	return nil
}

// gh runs one gh command. Its failures are sorted: the network's and the
// server's are transient, the rest (no such issue, no permission) not.
func (g *GitHub) gh(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	return g.run(ctx, stdin, true, nil, args...)
}

// run runs gh, with --repo when withRepo (gh api takes none) and env
// added to its environment.
func (g *GitHub) run(ctx context.Context, stdin []byte, withRepo bool, env []string, args ...string) ([]byte, error) {
	timeout := g.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if g.Repo != "" && withRepo {
		args = append(args, "--repo", g.Repo)
	}
	bin := g.Gh
	if bin == "" {
		bin = "gh"
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = g.Dir
	cmd.Env = append(cmd.Environ(), append(append([]string{"GH_PROMPT_DISABLED=1", "NO_COLOR=1", "GH_NO_UPDATE_NOTIFIER=1"}, g.Env...), env...)...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err == nil {
		return stdout.Bytes(), nil
	}
	msg := oneLine(stderr.String())
	var ee *exec.ExitError
	if !errors.As(err, &ee) && ctx.Err() == nil {
		return nil, fmt.Errorf("github: run gh: %w", err) // no gh: the user must install it
	}
	e := fmt.Errorf("github: gh %s: %s", args[0]+" "+args[1], msg)
	if ctx.Err() != nil || ghTransient(msg) {
		return nil, transient(e, 0)
	}
	return nil, e
}

// ghTransient says whether gh's message is the network's or the server's.
func ghTransient(msg string) bool {
	m := strings.ToLower(msg)
	for _, s := range []string{"http 5", "(http 5", "502", "503", "504", "rate limit", "timeout", "timed out",
		"connection refused", "connection reset", "no such host", "could not resolve host", "eof", "tls handshake", "network is unreachable"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}
