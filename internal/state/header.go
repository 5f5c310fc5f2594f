package state

import (
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-agent/cairn/internal/transcript"
)

// The header is the first line of a state file: the light session (see
// Lite) as space-separated tokens in a fixed order, strings Go-quoted. It
// is read by every `cairn status` on an unchanged transcript, in a fresh
// process, where encoding/json's reflection set-up alone cost more than
// half a millisecond; this format decodes in microseconds.
//
//	cairn-header <version> <offset> <lines> <tail-sum-hex> <tail-len> <head-hex> <subagent>
//	  <earlier-turns> <bad-count> <skipped> <first-time> <last-time>
//	  <path> <session-id> <model> <cwd> <branch> <client-version> <first-prompt>
//	  <client> <context-window>
//	  <carry-response> <carry-cumulative> <carry-last-total> <carry-compacting> <carry-compacted> <carry-snapshot>
//	  <n> { <line> <time> <message-id> <input> <cache-creation> <cache-read> <output> <total> }*n
//	  <m> { <trigger> <pre> <post> <time> <line> <turns-before> <summary-chars> <context-chars> }*m
//	  <hook-answers> <k> { <restore-line> }*k
//
// Times are Unix nanoseconds, 0 for none.
const headerMagic = "cairn-header"

func encodeHeader(s *transcript.Session) []byte {
	var b []byte
	num := func(n int64) { b = append(b, ' '); b = strconv.AppendInt(b, n, 10) }
	str := func(v string) { b = append(b, ' '); b = strconv.AppendQuote(b, v) }
	hexs := func(v []byte) {
		b = append(b, ' ')
		if len(v) == 0 {
			b = append(b, '-')
			return
		}
		b = hex.AppendEncode(b, v)
	}
	tm := func(t time.Time) {
		if t.IsZero() {
			num(0)
			return
		}
		num(t.UnixNano())
	}
	b = append(b, headerMagic...)
	num(int64(s.Version))
	num(s.Offset)
	num(int64(s.Lines))
	hexs(s.TailSum)
	num(int64(s.TailLen))
	hexs(s.Head)
	if s.IsSubagent {
		num(1)
	} else {
		num(0)
	}
	num(int64(s.EarlierTurns))
	num(int64(s.BadCount))
	num(int64(s.Skipped))
	tm(s.FirstTime)
	tm(s.LastTime)
	str(s.Path)
	str(s.SessionID)
	str(s.Model)
	str(s.CWD)
	str(s.GitBranch)
	str(s.ClientVersion)
	first := ""
	if len(s.Prompts) > 0 {
		first = s.Prompts[0].Text
	}
	str(first)
	str(s.Client)
	num(s.ContextWindow)
	flag := func(v bool) {
		if v {
			num(1)
		} else {
			num(0)
		}
	}
	str(s.Carry.Response)
	num(s.Carry.Cumulative)
	num(s.Carry.LastTotal)
	flag(s.Carry.Compacting)
	flag(s.Carry.Compacted)
	str(s.Carry.Snapshot)
	num(int64(len(s.Turns)))
	for _, t := range s.Turns {
		num(int64(t.Line))
		tm(t.Time)
		// The id too: a reply recorded again later (Gemini CLI writes one
		// again with its tool results) is the same turn.
		str(t.MessageID)
		num(t.Usage.Input)
		num(t.Usage.CacheCreation)
		num(t.Usage.CacheRead)
		num(t.Usage.Output)
		num(t.Usage.Total)
	}
	num(int64(len(s.Compactions)))
	for _, c := range s.Compactions {
		str(c.Trigger)
		num(c.PreTokens)
		num(c.PostTokens)
		tm(c.Time)
		num(int64(c.Line))
		num(int64(c.TurnsBefore))
		num(int64(c.SummaryChars))
		num(int64(c.ContextChars))
	}
	if s.HookAnswers {
		num(1)
	} else {
		num(0)
	}
	num(int64(len(s.RestoreLines)))
	for _, l := range s.RestoreLines {
		num(int64(l))
	}
	return append(b, '\n')
}

var errHeader = errors.New("malformed state header")

// headerReader takes tokens off a header line.
type headerReader struct {
	s   string
	err error
}

func (r *headerReader) token() string {
	if r.err != nil {
		return ""
	}
	if len(r.s) == 0 || r.s[0] != ' ' {
		r.err = errHeader
		return ""
	}
	r.s = r.s[1:]
	if len(r.s) > 0 && r.s[0] == '"' {
		q, err := strconv.QuotedPrefix(r.s)
		if err != nil {
			r.err = errHeader
			return ""
		}
		r.s = r.s[len(q):]
		return q
	}
	i := strings.IndexByte(r.s, ' ')
	if i < 0 {
		i = len(r.s)
	}
	t := r.s[:i]
	r.s = r.s[i:]
	return t
}

func (r *headerReader) num() int64 {
	t := r.token()
	if r.err != nil {
		return 0
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil {
		r.err = errHeader
	}
	return n
}

// count reads a length, refusing absurd ones so that a corrupt header
// cannot make the reader allocate without bound.
func (r *headerReader) count() int {
	n := r.num()
	if n < 0 || n > int64(len(r.s)) {
		r.err = errHeader
		return 0
	}
	return int(n)
}

func (r *headerReader) str() string {
	t := r.token()
	if r.err != nil {
		return ""
	}
	v, err := strconv.Unquote(t)
	if err != nil || len(t) == 0 || t[0] != '"' {
		r.err = errHeader
	}
	return v
}

func (r *headerReader) hex() []byte {
	t := r.token()
	if r.err != nil || t == "-" {
		return nil
	}
	v, err := hex.DecodeString(t)
	if err != nil {
		r.err = errHeader
	}
	return v
}

func (r *headerReader) time() time.Time {
	n := r.num()
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

func decodeHeader(line string) (*transcript.Session, error) {
	rest, ok := strings.CutPrefix(strings.TrimRight(line, "\n"), headerMagic)
	if !ok {
		return nil, errHeader
	}
	r := &headerReader{s: rest}
	s := &transcript.Session{}
	s.Version = int(r.num())
	s.Offset = r.num()
	s.Lines = int(r.num())
	s.TailSum = r.hex()
	s.TailLen = int(r.num())
	s.Head = r.hex()
	s.IsSubagent = r.num() == 1
	s.EarlierTurns = int(r.num())
	s.BadCount = int(r.num())
	s.Skipped = int(r.num())
	s.FirstTime = r.time()
	s.LastTime = r.time()
	s.Path = r.str()
	s.SessionID = r.str()
	s.Model = r.str()
	s.CWD = r.str()
	s.GitBranch = r.str()
	s.ClientVersion = r.str()
	if p := r.str(); p != "" {
		s.Prompts = []transcript.Prompt{{Text: p}}
	}
	s.Client = r.str()
	s.ContextWindow = r.num()
	s.Carry.Response = r.str()
	s.Carry.Cumulative = r.num()
	s.Carry.LastTotal = r.num()
	s.Carry.Compacting = r.num() == 1
	s.Carry.Compacted = r.num() == 1
	s.Carry.Snapshot = r.str()
	n := r.count()
	if n > 0 { // sized once: every hook decodes the head (count bounds n by the bytes left)
		s.Turns = make([]transcript.Turn, 0, n)
	}
	for i := 0; i < n && r.err == nil; i++ {
		var t transcript.Turn
		t.Line = int(r.num())
		t.Time = r.time()
		t.MessageID = r.str()
		t.Usage.Input = r.num()
		t.Usage.CacheCreation = r.num()
		t.Usage.CacheRead = r.num()
		t.Usage.Output = r.num()
		t.Usage.Total = r.num()
		s.Turns = append(s.Turns, t)
	}
	m := r.count()
	for i := 0; i < m && r.err == nil; i++ {
		var c transcript.Compaction
		c.Trigger = r.str()
		c.PreTokens = r.num()
		c.PostTokens = r.num()
		c.Time = r.time()
		c.Line = int(r.num())
		c.TurnsBefore = int(r.num())
		c.SummaryChars = int(r.num())
		c.ContextChars = int(r.num())
		s.Compactions = append(s.Compactions, c)
	}
	s.HookAnswers = r.num() == 1
	k := r.count()
	for i := 0; i < k && r.err == nil; i++ {
		s.RestoreLines = append(s.RestoreLines, int(r.num()))
	}
	if r.err != nil {
		return nil, r.err
	}
	if r.s != "" {
		return nil, errHeader
	}
	return s, nil
}
