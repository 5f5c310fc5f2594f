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
	}
	return fmt.Errorf("github: issues have no %s to update", u.Kind)
}

// gh runs one gh command. Its failures are sorted: the network's and the
// server's are transient, the rest (no such issue, no permission) not.
func (g *GitHub) gh(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	timeout := g.Timeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if g.Repo != "" {
		args = append(args, "--repo", g.Repo)
	}
	bin := g.Gh
	if bin == "" {
		bin = "gh"
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = g.Dir
	cmd.Env = append(cmd.Environ(), append([]string{"GH_PROMPT_DISABLED=1", "NO_COLOR=1", "GH_NO_UPDATE_NOTIFIER=1"}, g.Env...)...)
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
