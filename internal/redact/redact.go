// Package redact removes secrets from text before cairn stores it: every
// checkpoint, handoff, database row and restore passes through String, so
// that a key the agent printed, read from a .env file or pasted into a prompt
// never leaves the transcript in the clear.
//
// It recognises secrets by their shape (vendor token prefixes, JWTs, PEM
// private keys, Authorization headers, passwords in URLs) and by their name
// (assignments whose key names a secret: PASSWORD=..., "api_key": "...",
// --token ...). It does not redact strings merely because they look random:
// git SHAs, UUIDs, content hashes and base64 data are everywhere in an
// agent's transcript, and an entropy rule would redact them too, which would
// make checkpoints useless without catching anything the named rules miss.
//
// Each family is found with strings.Index on a literal anchor and checked by
// a small hand-written scanner, not with regular expressions: Go's regexp
// engine runs a 50 KB checkpoint through a dozen patterns in milliseconds,
// and these run inside hooks that have a budget.
package redact

import (
	"sort"
	"strings"
)

// Marker kinds, as they appear in the output: "[REDACTED:" + kind + "]".
const (
	KindAnthropic  = "anthropic-key"
	KindOpenAI     = "openai-key"
	KindAWSKey     = "aws-key"
	KindAWSSecret  = "aws-secret-key"
	KindGitHub     = "github-token"
	KindGitLab     = "gitlab-token"
	KindSlack      = "slack-token"
	KindGoogle     = "google-api-key"
	KindStripe     = "stripe-key"
	KindNPM        = "npm-token"
	KindJWT        = "jwt"
	KindBearer     = "bearer-token"
	KindBasic      = "basic-auth"
	KindAuth       = "auth-token"
	KindPrivateKey = "private-key"
	KindPassword   = "password"
	KindSecret     = "secret"
)

const markerPrefix = "[REDACTED"

func marker(kind string) string { return markerPrefix + ":" + kind + "]" }

// String returns s with secrets replaced by a marker that names the kind,
// e.g. "[REDACTED:aws-key]", and with any text between <private> and
// </private> removed (see Private).
//
// String is idempotent: its output contains nothing it would redact again.
// It runs in time linear in the length of s, about a third of a millisecond
// for a 50 KB checkpoint with secrets in it (BenchmarkString).
func String(s string) string {
	// One pass can leave something for the next: a redacted value can join
	// what was around it into a new match, or change what a rule looking
	// ahead sees. Passes are repeated until nothing changes, which for
	// text without secrets is after the first. Each change turns text into
	// markers, so this ends; the bound is for safety.
	for range 8 {
		t := once(s)
		if t == s {
			break
		}
		s = t
	}
	return s
}

func once(s string) string {
	s = Private(s)
	// The order matters for the markers, not for safety: the shape rules run
	// first so that a GitHub token assigned to GITHUB_TOKEN is reported as a
	// github-token, and the assignment rule then sees a marker and keeps it.
	s = privateKeys(s)
	s = prefixedTokens(s)
	s = urlPasswords(s)
	lower := lowerASCII(s)
	if t := authHeaders(s, lower); t != s {
		s, lower = t, lowerASCII(t)
	}
	return assignments(s, lower)
}

// edit replaces s[start:end] with repl.
type edit struct {
	start, end int
	repl       string
}

// apply makes the edits, which must be sorted and must not overlap.
func apply(s string, edits []edit) string {
	if len(edits) == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, e := range edits {
		b.WriteString(s[last:e.start])
		b.WriteString(e.repl)
		last = e.end
	}
	b.WriteString(s[last:])
	return b.String()
}

// applyUnsorted sorts the edits and merges overlapping ones into the first,
// so that the union of what the rules found goes.
func applyUnsorted(s string, edits []edit) string {
	sort.Slice(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
	kept := edits[:0]
	for _, e := range edits {
		if n := len(kept); n > 0 && e.start < kept[n-1].end {
			kept[n-1].end = max(kept[n-1].end, e.end)
			continue
		}
		kept = append(kept, e)
	}
	return apply(s, kept)
}

// lowerASCII lowers ASCII letters only, so that the result has the same
// length as s and an index into one is an index into the other.
func lowerASCII(s string) string {
	i := 0
	for i < len(s) && (s[i] < 'A' || s[i] > 'Z') {
		i++
	}
	if i == len(s) {
		return s
	}
	b := make([]byte, len(s))
	copy(b, s[:i])
	for ; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		b[i] = c
	}
	return string(b)
}

// markerAt returns the length of a marker starting at s[i:], or 0. A marker
// glued to a letter or digit does not count, so that text which merely starts
// with "[REDACTED]" is still redacted.
func markerAt(s string, i int) int {
	if !strings.HasPrefix(s[i:], markerPrefix) {
		return 0
	}
	j := i + len(markerPrefix)
	if j < len(s) && s[j] == ':' {
		j++
		for j < len(s) && (isLower(s[j]) || s[j] == '-') {
			j++
		}
	}
	if j >= len(s) || s[j] != ']' {
		return 0
	}
	j++
	if j < len(s) && isAlnum(s[j]) {
		return 0
	}
	return j - i
}

// isMarker reports whether v is exactly one marker.
func isMarker(v string) bool { return v != "" && markerAt(v, 0) == len(v) }

func isLower(c byte) bool { return 'a' <= c && c <= 'z' }
func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isAlpha(c byte) bool { return isLower(c) || isUpper(c) }
func isAlnum(c byte) bool { return isAlpha(c) || isDigit(c) }

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// escapeAt reports whether s[i:] is a JSON-style escape of a newline, tab or
// quote. Checkpoint text often holds JSON strings, where a line ends in a
// literal backslash-n rather than a newline.
func escapeAt(s string, i int) bool {
	if i+1 >= len(s) || s[i] != '\\' {
		return false
	}
	switch s[i+1] {
	case 'n', 'r', 't', '"', '\'':
		return true
	}
	return false
}

// lineEnd returns the index of the end of the line holding s[i]: a newline,
// an escaped newline, or the end of s.
func lineEnd(s string, i int) int {
	for ; i < len(s); i++ {
		if s[i] == '\n' || s[i] == '\r' {
			return i
		}
		if s[i] == '\\' && i+1 < len(s) && (s[i+1] == 'n' || s[i+1] == 'r') {
			return i
		}
	}
	return len(s)
}

// glued reports whether s[i] continues a word that runs before it: s[i-1]
// is a letter or digit and not the end of an escape such as \n. Text in
// JSON strings has its line breaks escaped, and "\nghp_..." starts a token.
func glued(s string, i int) bool {
	return i > 0 && isAlnum(s[i-1]) && !escapeEndsAt(s, i)
}

// escapeEndsAt reports whether a JSON escape (\n, \r, \t, \uXXXX) ends
// just before s[i].
func escapeEndsAt(s string, i int) bool {
	if i >= 2 && strings.IndexByte("nrt", s[i-1]) >= 0 && oddBackslashes(s, i-1) {
		return true
	}
	if i < 6 || s[i-5] != 'u' || !oddBackslashes(s, i-5) {
		return false
	}
	for _, c := range []byte(s[i-4 : i]) {
		if !isDigit(c) && (c|0x20 < 'a' || c|0x20 > 'f') {
			return false
		}
	}
	return true
}

// oddBackslashes reports whether an odd number of backslashes precedes s[j].
func oddBackslashes(s string, j int) bool {
	n := 0
	for j-1-n >= 0 && s[j-1-n] == '\\' {
		n++
	}
	return n%2 == 1
}
