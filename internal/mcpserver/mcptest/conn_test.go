package mcptest

import (
	"slices"
	"testing"

	"github.com/cairn-agent/cairn/internal/mcpserver"
)

func TestNotProtocol(t *testing.T) {
	for _, c := range []struct {
		out  string
		want []string
	}{
		{"", nil},
		{`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n", nil},
		{`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" + `{"jsonrpc":"2.0","method":"x"}` + "\n", nil},
		{"cairn: warning: locked\n" + `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n", []string{"cairn: warning: locked"}},
		{`{"jsonrpc":"2.0","id":1}` + "\n\n", []string{""}},
		{`{"id":1,"result":{}}` + "\n", []string{`{"id":1,"result":{}}`}},
		{`{"jsonrpc":"1.0"}`, []string{`{"jsonrpc":"1.0"}`}},
		{`[{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","id":2,"result":{}}]`, nil},
		{`[]` + "\n" + `[{"jsonrpc":"2.0","id":1,"result":{}},{"id":2}]` + "\n" + `[1]`, []string{`[]`, `[{"jsonrpc":"2.0","id":1,"result":{}},{"id":2}]`, `[1]`}},
	} {
		if got := NotProtocol([]byte(c.out)); !slices.Equal(got, c.want) {
			t.Errorf("NotProtocol(%q) = %q, want %q", c.out, got, c.want)
		}
	}
}

// The in-memory store is itself held to the cases' contract in
// mcpserver's tests (TestMemoryTools); here, what they do not reach.
func TestStoreSearchRanks(t *testing.T) {
	s := NewStore()
	ctx := t.Context()
	for _, n := range []struct{ title, body string }{
		{"about parsers", "the lexer"},
		{"lexer lexer", "the lexer keeps comments"},
		{"unrelated", "nothing here"},
	} {
		if _, err := s.Remember(ctx, mcpserver.Note{Project: "/p", Kind: "note", Title: n.title, Body: n.body}); err != nil {
			t.Fatal(err)
		}
	}
	hits, err := s.Search(ctx, "LEXER", mcpserver.Filter{})
	if err != nil || len(hits) != 2 || hits[0].Title != "lexer lexer" || hits[0].Snippet == "" {
		t.Errorf("search = %+v, %v; want the title match first, with a snippet", hits, err)
	}
	if hits, _ := s.Search(ctx, "  ", mcpserver.Filter{}); len(hits) != 0 {
		t.Errorf("an empty query found %+v", hits)
	}
}
