package transcript

import (
	"bytes"
	"os"
	"testing"

	"github.com/cairn-agent/cairn/internal/fixtures"
)

// walkResult is everything a walk tells the reader about a line.
type walkResult struct {
	reason      string
	ok          bool
	walked      int
	typ         string
	interesting bool
}

func walkOf(p *claudeDecoder, line []byte) walkResult {
	reason, ok := p.walk(line)
	if !ok {
		// How far a line that cannot be read was walked is not read.
		return walkResult{reason: reason}
	}
	return walkResult{reason, ok, p.walked, string(p.e.typ), interesting(&p.e)}
}

// checkMemo walks next after prev with one decoder (so that the memo of
// prev's walk may serve next's) and next alone with a fresh one: the two
// must agree on everything, and it reports whether the memo served.
func checkMemo(t *testing.T, prev, next []byte) bool {
	t.Helper()
	var memo, fresh claudeDecoder
	memo.walk(prev)
	got := walkOf(&memo, next)
	want := walkOf(&fresh, next)
	if got != want {
		t.Errorf("after %q\nline %q\nwalked with the memo: %+v\nalone: %+v", prev, next, got, want)
	}
	return memo.skip.hit > 0
}

// The memo of the last skipped line's members changes nothing a walk
// finds, on lines made to tell it apart.
func TestSkipMemoExact(t *testing.T) {
	const head = `{"parentUuid":"a","isSidechain":false,"cwd":"/p","type":"progress"`
	cases := []struct {
		name       string
		prev, next string
		hit        bool
	}{
		{"same members, another parent", head + `,"data":{}}`, `{"parentUuid":null,"isSidechain":false,"cwd":"/p","type":"progress","data":1}`, true},
		{"the rest unread either way", head + `}`, `{"parentUuid":"b","isSidechain":false,"cwd":"/p","type":"progress",garbage`, true},
		{"another type", head + `}`, `{"parentUuid":"b","isSidechain":false,"cwd":"/p","type":"progressive"}`, false},
		{"a type cairn reads", head + `}`, `{"parentUuid":"b","isSidechain":false,"cwd":"/p","type":"user","message":{"content":"hi"}}`, false},
		{"another cwd", head + `}`, `{"parentUuid":"b","isSidechain":false,"cwd":"/q","type":"progress"}`, false},
		{"white space", head + `}`, `{"parentUuid":"b" ,"isSidechain":false,"cwd":"/p","type":"progress"}`, false},
		{"bad first value", head + `}`, `{"parentUuid":"b,"isSidechain":false,"cwd":"/p","type":"progress"}`, false},
		{"first value a number", head + `}`, `{"parentUuid":1,"isSidechain":false,"cwd":"/p","type":"progress"}`, true},
		{"first value cut", head + `}`, `{"parentUuid":1`, false},
		{"another first key", head + `}`, `{"parentUUID":"b","isSidechain":false,"cwd":"/p","type":"progress"}`, false},
		{"escaped first key", head + `}`, `{"parent\u0055uid":"b","isSidechain":false,"cwd":"/p","type":"progress"}`, true},
		{"not an object", head + `}`, `["parentUuid","b"]`, false},
		{"empty object", head + `}`, `{}`, false},
		{"invalid UTF-8 before the members", head + `}`, "{\"parentUuid\":\"\xff\",\"isSidechain\":false,\"cwd\":\"/p\",\"type\":\"progress\"}", true},
		{"invalid UTF-8 kept no memo", "{\"parentUuid\":\"a\",\"isSidechain\":false,\"cwd\":\"/\xff\",\"type\":\"progress\"}", "{\"parentUuid\":\"b\",\"isSidechain\":false,\"cwd\":\"/\xff\",\"type\":\"progress\"}", false},
		{"a type given as a number keeps no memo", `{"parentUuid":"a","type":1}`, `{"parentUuid":"b","type":1}`, false},
		{"an attachment that is no hook's", `{"parentUuid":"a","attachment":{"type":"file"},"type":"attachment"}`, `{"parentUuid":"b","attachment":{"type":"file"},"type":"attachment"}`, true},
		{"a hook's attachment", `{"parentUuid":"a","attachment":{"type":"file"},"type":"attachment"}`, `{"parentUuid":"b","attachment":{"type":"hook_success"},"type":"attachment"}`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if hit := checkMemo(t, []byte(c.prev), []byte(c.next)); hit != c.hit {
				t.Errorf("memo served: %v, want %v", hit, c.hit)
			}
		})
	}
}

// On every real transcript, each line walked after the one before it
// (the memo at work) is walked as it is alone; and the memo serves most
// of the lines cairn skips.
func TestSkipMemoOnFixtures(t *testing.T) {
	names := fixtures.Small
	for _, c := range fixtures.Compactions {
		names = append(names, c.Session)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(fixturePath(t, name))
			if err != nil {
				t.Fatal(err)
			}
			var memo, fresh claudeDecoder
			hits, skipped := 0, 0
			for _, line := range bytes.Split(data, []byte("\n")) {
				got, want := walkOf(&memo, line), walkOf(&fresh, line)
				if got != want {
					t.Fatalf("line %q\nwalked with the memo: %+v\nalone: %+v", line, got, want)
				}
				if want.ok && !want.interesting {
					skipped++
				}
				if memo.skip.hit > 0 {
					hits++
				}
			}
			if skipped > 20 && hits < skipped/2 {
				t.Errorf("the memo served %d of %d skipped lines", hits, skipped)
			}
		})
	}
}

// FuzzSkipMemo: whatever two lines, the second is walked after the first
// as it is alone.
func FuzzSkipMemo(f *testing.F) {
	f.Add([]byte(`{"parentUuid":"a","cwd":"/p","type":"progress"}`), []byte(`{"parentUuid":"b","cwd":"/p","type":"progress","x":[}`))
	f.Add([]byte(`{"parentUuid":"a","cwd":"/p","type":"progress"}`), []byte(`{"parentUuid":"b","cwd":"/p","type":"progresss"}`))
	f.Add([]byte(`{"parentUuid":1,"type":"queue-operation"}`), []byte(`{"parentUuid":12,"type":"queue-operation"}`))
	f.Fuzz(func(t *testing.T, prev, next []byte) {
		checkMemo(t, prev, next)
	})
}
