// Package mcptest helps test cairn's MCP server (tests only): a client
// connected to a server over pipes, as stdio connects them; a small
// in-memory observation store that really searches; and the memory tools'
// conformance cases, which take any mcpserver.Memory so that the same
// cases run against the real store.
package mcptest

import (
	"context"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/cairn-agent/cairn/internal/mcpserver"
)

// Store is an mcpserver.Memory in memory: every word of a query must be
// in an observation's title, body, kind or files; more occurrences (a
// title's count twice) rank higher, then newer.
type Store struct {
	mu   sync.Mutex
	obs  []mcpserver.Observation
	next int64
}

// NewStore returns an empty store.
func NewStore() *Store { return &Store{next: 1} }

func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

func count(ws []string, w string) int {
	n := 0
	for _, x := range ws {
		if x == w {
			n++
		}
	}
	return n
}

// score is how well o matches the query's words; 0 when one is missing.
func score(o mcpserver.Observation, query []string) int {
	title, rest := words(o.Title), words(o.Body+" "+o.Kind+" "+strings.Join(o.Files, " "))
	total := 0
	for _, q := range query {
		n := 2*count(title, q) + count(rest, q)
		if n == 0 {
			return 0
		}
		total += n
	}
	return total
}

func (s *Store) keep(o mcpserver.Observation, f mcpserver.Filter) bool {
	if f.Project != "" && o.Project != f.Project {
		return false
	}
	if len(f.Kinds) > 0 && !slices.Contains(f.Kinds, o.Kind) {
		return false
	}
	if !f.Since.IsZero() && o.Time.Before(f.Since) {
		return false
	}
	if len(f.Files) > 0 {
		found := false
		for _, want := range f.Files {
			for _, have := range o.Files {
				found = found || strings.Contains(have, want)
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func hit(o mcpserver.Observation, query []string) mcpserver.Hit {
	h := mcpserver.Hit{ID: o.ID, Time: o.Time, Project: o.Project, Session: o.Session, Kind: o.Kind, Title: o.Title}
	if len(query) > 0 {
		low := strings.ToLower(o.Body)
		if i := strings.Index(low, query[0]); i >= 0 {
			from, to := max(0, i-60), min(len(o.Body), i+len(query[0])+60)
			h.Snippet = strings.ToValidUTF8(o.Body[from:to], "")
		}
	}
	return h
}

// Search implements mcpserver.Memory.
func (s *Store) Search(ctx context.Context, query string, f mcpserver.Filter) ([]mcpserver.Hit, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	q := words(query)
	if len(q) == 0 {
		return nil, nil
	}
	type scored struct {
		o mcpserver.Observation
		n int
	}
	var found []scored
	for _, o := range s.obs {
		if n := score(o, q); n > 0 && s.keep(o, f) {
			found = append(found, scored{o, n})
		}
	}
	sort.SliceStable(found, func(i, j int) bool {
		if found[i].n != found[j].n {
			return found[i].n > found[j].n
		}
		return found[i].o.Time.After(found[j].o.Time)
	})
	var out []mcpserver.Hit
	for _, x := range found {
		if f.Limit > 0 && len(out) == f.Limit {
			break
		}
		out = append(out, hit(x.o, q))
	}
	return out, nil
}

// ordered is the project's observations oldest first.
func (s *Store) ordered(project string) []mcpserver.Observation {
	var out []mcpserver.Observation
	for _, o := range s.obs {
		if o.Project == project {
			out = append(out, o)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if !out[i].Time.Equal(out[j].Time) {
			return out[i].Time.Before(out[j].Time)
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// Timeline implements mcpserver.Memory.
func (s *Store) Timeline(ctx context.Context, id int64, before, after int) ([]mcpserver.Hit, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	i := slices.IndexFunc(s.obs, func(o mcpserver.Observation) bool { return o.ID == id })
	if i < 0 {
		return nil, mcpserver.ErrNotFound
	}
	all := s.ordered(s.obs[i].Project)
	at := slices.IndexFunc(all, func(o mcpserver.Observation) bool { return o.ID == id })
	var out []mcpserver.Hit
	for _, o := range all[max(0, at-before):min(len(all), at+after+1)] {
		out = append(out, hit(o, nil))
	}
	return out, nil
}

// Get implements mcpserver.Memory.
func (s *Store) Get(ctx context.Context, ids []int64) ([]mcpserver.Observation, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []mcpserver.Observation
	for _, id := range ids {
		for _, o := range s.obs {
			if o.ID == id {
				out = append(out, o)
			}
		}
	}
	return out, nil
}

// Remember implements mcpserver.Memory.
func (s *Store) Remember(ctx context.Context, n mcpserver.Note) (mcpserver.Observation, error) {
	if err := ctx.Err(); err != nil {
		return mcpserver.Observation{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	o := mcpserver.Observation{ID: s.next, Time: n.Time, Project: n.Project, Session: n.Session, Kind: n.Kind,
		Title: n.Title, Body: n.Body, Files: slices.Clone(n.Files)}
	s.next++
	s.obs = append(s.obs, o)
	return o, nil
}

// Forget implements mcpserver.Memory.
func (s *Store) Forget(ctx context.Context, sel mcpserver.Selection) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	q := words(sel.Query)
	gone := func(o mcpserver.Observation) bool {
		switch {
		case len(sel.IDs) > 0:
			return slices.Contains(sel.IDs, o.ID)
		case sel.Project != "" && o.Project != sel.Project:
			return false
		case sel.Session != "":
			return o.Session == sel.Session
		case len(q) > 0:
			return score(o, q) > 0
		}
		return false
	}
	before := len(s.obs)
	s.obs = slices.DeleteFunc(s.obs, gone)
	return before - len(s.obs), nil
}

var _ mcpserver.Memory = (*Store)(nil)
