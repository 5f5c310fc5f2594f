package mcpserver

import (
	"context"
	"errors"
	"fmt"

	"github.com/cairn-agent/cairn/internal/memory"
	"github.com/cairn-agent/cairn/internal/sqlite"
	"github.com/cairn-agent/cairn/internal/text"
)

// Store is the Memory the memory tools get in `cairn mcp`: the
// observation store of internal/memory.
type Store struct{ M *memory.Store }

// Search implements Memory.
func (s Store) Search(ctx context.Context, query string, f Filter) ([]Hit, error) {
	hits, err := s.M.Search(ctx, memory.Query{Text: query, Project: f.Project, Kinds: f.Kinds, Files: f.Files, Since: f.Since, Limit: f.Limit})
	if err != nil {
		return nil, err
	}
	out := make([]Hit, len(hits))
	for i, h := range hits {
		out[i] = Hit{ID: h.ID, Time: h.Time, Project: h.Project, Session: h.SessionID, Kind: h.Kind, Title: h.Title, Snippet: h.Snippet}
	}
	return out, nil
}

// Timeline implements Memory.
func (s Store) Timeline(ctx context.Context, id int64, before, after int) ([]Hit, error) {
	obs, err := s.M.Timeline(ctx, id, before, after)
	if errors.Is(err, sqlite.ErrNotFound) || err == nil && len(obs) == 0 {
		return nil, fmt.Errorf("#%d: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, err
	}
	out := make([]Hit, len(obs))
	for i, o := range obs {
		out[i] = Hit{ID: o.ID, Time: o.Time, Project: o.Project, Session: o.SessionID, Kind: o.Kind, Title: o.Title,
			Snippet: text.Clip(text.OneLine(o.Body), 160)}
	}
	return out, nil
}

// Get implements Memory.
func (s Store) Get(ctx context.Context, ids []int64) ([]Observation, error) {
	obs, err := s.M.Get(ctx, ids...)
	if err != nil {
		return nil, err
	}
	out := make([]Observation, len(obs))
	for i, o := range obs {
		out[i] = observation(o)
	}
	return out, nil
}

// Remember implements Memory: the note is stored as an observation of its
// kind (a note unless the agent said otherwise), redacted by the store.
func (s Store) Remember(ctx context.Context, n Note) (Observation, error) {
	kind := n.Kind
	if kind == "" {
		kind = memory.KindNote
	}
	o := memory.Observation{Project: n.Project, SessionID: n.Session, Time: n.Time, Kind: kind, Title: n.Title, Body: n.Body, Files: n.Files, Source: "mcp"}
	ids, err := s.M.Add(ctx, o)
	if err != nil {
		return Observation{}, err
	}
	if len(ids) == 0 || ids[0] == 0 {
		return Observation{}, errors.New("the same note is already kept, or was forgotten, or nothing is left of it once secrets are out")
	}
	got, err := s.M.Get(ctx, ids[0])
	if err != nil || len(got) == 0 {
		return Observation{}, errors.Join(err, fmt.Errorf("#%d: %w", ids[0], ErrNotFound))
	}
	return observation(got[0]), nil
}

// Forget implements Memory.
func (s Store) Forget(ctx context.Context, sel Selection) (int, error) {
	f := memory.Forget{IDs: sel.IDs, SessionID: sel.Session, Query: sel.Query}
	if len(sel.IDs) == 0 {
		f.Project = sel.Project
	}
	res, err := s.M.Forget(ctx, f)
	if errors.Is(err, sqlite.ErrWALBusy) {
		err = nil // the rows are gone; the old pages go at the log's next checkpoint
	}
	return res.Observations, err
}

func observation(o memory.Observation) Observation {
	return Observation{ID: o.ID, Time: o.Time, Project: o.Project, Session: o.SessionID, Kind: o.Kind, Title: o.Title, Body: o.Body, Files: o.Files}
}
