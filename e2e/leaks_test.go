package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/cairn-agent/cairn/e2e/fakeapi"
)

// Secrets planted in a scenario must never reach what cairn keeps (its
// state, its database, the files it writes into the project) nor the text
// it adds to the model's requests. The client itself keeps its transcript
// and sends the conversation back to the model: that is not cairn's doing,
// and is counted apart.

// secret is one planted secret: Value is searched for verbatim.
type secret struct {
	Family string
	Value  string
}

// hookIntro is how the client introduces a hook's additionalContext in a
// request ("PostToolUse:Bash hook additional context: " names the tool).
var hookIntro = regexp.MustCompile(`[\w:]+ hook additional context: `)

// clientParagraphs start the paragraphs the client itself puts in the
// same message as hook context (it joins them with blank lines, observed
// on 2.1.328): a hook's context ends at the first of them.
var clientParagraphs = []string{
	"# Environment\n", "You are powered by the model", "The following deferred tools are now available",
	"The following skills are available", "Available agent types for the Agent tool",
	"When you launch multiple agents", "Today's date is ", "The task tools haven't been used recently",
	"<system-reminder>",
}

// hookTexts are the additionalContext texts of hooks in a request's
// messages. Only cairn's hooks are installed in the bench's projects (and
// the interactive play's Stop hook, which says nothing to the model), so
// they are all cairn's.
func hookTexts(body map[string]any) []string {
	var out []string
	for _, s := range messageStrings(body) {
		locs := hookIntro.FindAllStringIndex(s, -1)
		for i, loc := range locs {
			end := len(s)
			if i+1 < len(locs) {
				end = locs[i+1][0]
			}
			paras := strings.Split(s[loc[1]:end], "\n\n")
			n := 1
			for n < len(paras) && !isClientParagraph(paras[n]) {
				n++
			}
			out = append(out, strings.TrimSpace(strings.Join(paras[:n], "\n\n")))
		}
	}
	return out
}

func isClientParagraph(p string) bool {
	p = strings.TrimLeft(p, "\n")
	for _, start := range clientParagraphs {
		if strings.HasPrefix(p, start) {
			return true
		}
	}
	return false
}

// otherHookText is cairn's hook context in a request other than its
// restore: what else cairn's hooks said there.
func otherHookText(body map[string]any) []string {
	var out []string
	for _, h := range hookTexts(body) {
		if r := findRestore(h); r != "" {
			h = strings.Replace(h, r, "", 1)
		}
		if h = strings.TrimSpace(h); h != "" {
			out = append(out, h)
		}
	}
	return out
}

// cairnTexts is everything cairn added to a request: its hooks' context
// (restore included) and its steering, where the request carries it (the
// summariser's instructions, or the /compact command's output after a
// manual compaction).
func cairnTexts(body map[string]any) []string {
	out := hookTexts(body)
	if st := findSteer(messagesText(body)); st != "" {
		out = append(out, st)
	}
	return out
}

// messageStrings is every string of a request's messages.
func messageStrings(body map[string]any) []string {
	var parts []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			parts = append(parts, v)
		case []any:
			for _, x := range v {
				walk(x)
			}
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(v)) {
				walk(v[k])
			}
		}
	}
	walk(body["messages"])
	return parts
}

// leaks is what a run let out of its planted secrets, each secret by its
// value mapped to where it was found.
type leaks struct {
	// Files are cairn's: files under the session's HOME, XDG state and
	// data dirs and in the project, other than the project's .git, the
	// files the test wrote and those the agent wrote.
	Files map[string][]string
	// Cairn is text cairn added to any request (hook context, steering);
	// Client is the rest of the requests after the first compaction: what
	// the client itself carried through it.
	Cairn, Client map[string][]string
}

// findLeaks looks for secrets in the files of a finished run and in the
// requests its fake received. skip says which project files (relative
// paths) the test or the scripted agent wrote.
func findLeaks(p *play, secrets []secret, skip map[string]bool) (leaks, error) {
	l := leaks{Files: map[string][]string{}, Cairn: map[string][]string{}, Client: map[string][]string{}}
	if len(secrets) == 0 {
		return l, nil
	}
	root := filepath.Dir(p.s.ProjectDir)
	var err error
	l.Files, err = scanFiles(root, []string{p.s.HomeDir, filepath.Join(root, "state"), filepath.Join(root, "data")}, p.s.ProjectDir, skip, secrets)
	if err != nil {
		return l, err
	}
	l.Cairn, l.Client = requestLeaks(p.fake.Requests(), secrets)
	return l, nil
}

// scanFiles finds secrets in every file under dirs and under project
// (except its .git and the files skip names, relative to it), and maps
// each secret found to the files, relative to root.
func scanFiles(root string, dirs []string, project string, skip map[string]bool, secrets []secret) (map[string][]string, error) {
	found := map[string][]string{}
	for _, dir := range append(slices.Clone(dirs), project) {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			rel, _ := filepath.Rel(project, path)
			if d.IsDir() {
				if dir == project && rel == ".git" {
					return filepath.SkipDir
				}
				return nil
			}
			if dir == project && skip[filepath.ToSlash(rel)] {
				return nil
			}
			data, err := os.ReadFile(path)
			if errors.Is(err, fs.ErrNotExist) {
				// Gone since it was listed: SQLite's -wal and -shm
				// when a job's last connection closes, their pages
				// copied into the database file, which is scanned.
				return nil
			}
			if err != nil {
				return err
			}
			for _, sec := range secrets {
				if bytes.Contains(data, []byte(sec.Value)) {
					name, _ := filepath.Rel(root, path)
					found[sec.Value] = append(found[sec.Value], filepath.ToSlash(name))
				}
			}
			return nil
		})
		if err != nil {
			return found, err
		}
	}
	return found, nil
}

// requestLeaks finds secrets in what the model was sent: in cairn's text
// in any request, and, elsewhere, in the requests after the first
// compaction (what the client itself carried through it).
func requestLeaks(reqs []fakeapi.Request, secrets []secret) (cairn, client map[string][]string) {
	cairn, client = map[string][]string{}, map[string][]string{}
	firstCompaction := 0
	for _, r := range reqs {
		if r.Kind == fakeapi.Compaction {
			firstCompaction = r.Seq
			break
		}
	}
	for _, r := range reqs {
		if r.Body == nil {
			continue
		}
		ours := strings.Join(cairnTexts(r.Body), "\n")
		all := messagesText(r.Body)
		for _, sec := range secrets {
			where := fmt.Sprintf("#%d %s", r.Seq, r.Kind)
			switch {
			case strings.Contains(ours, sec.Value):
				cairn[sec.Value] = appendOnce(cairn[sec.Value], where)
			case firstCompaction > 0 && r.Seq > firstCompaction && strings.Contains(all, sec.Value):
				client[sec.Value] = appendOnce(client[sec.Value], where)
			}
		}
	}
	return cairn, client
}

func appendOnce(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// written are the project files (slash-separated, relative) the test and
// the scripted agent wrote: a secret in them is theirs, not cairn's.
func (p *play) written() map[string]bool {
	w := map[string]bool{"README.md": true}
	for _, name := range p.testWrote {
		w[name] = true
	}
	for name := range p.sc.Files {
		w[name] = true
	}
	for _, tn := range p.steps() {
		for _, r := range tn.Replies {
			for _, tu := range r.Tools {
				in, _ := tu.Input.(map[string]any)
				path, _ := in["file_path"].(string)
				if rel, err := filepath.Rel(p.s.ProjectDir, path); path != "" && err == nil && !strings.HasPrefix(rel, "..") {
					w[filepath.ToSlash(rel)] = true
				}
			}
		}
	}
	return w
}
