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
// Each rule finds its candidates by a byte that is rare in ordinary text
// (strings.IndexByte, or eight bytes at a time) and checks them with a
// small hand-written scanner, not with regular expressions: twelve
// compiled regexps for the same families took about 10 ms over the 50 KB
// of BenchmarkString, sixty times what String takes, and String runs inside
// hooks that have a budget. Nothing lowers the whole text: case-insensitive
// words are compared where they are found.
package redact

import (
	"sort"
	"strings"
)

// Marker kinds, as they appear in the output: "[REDACTED:" + kind + "]".
// String's documentation lists what each stands for.
const (
	kindAnthropic  = "anthropic-key"
	kindOpenAI     = "openai-key"
	kindAWSKey     = "aws-key"
	kindAWSSecret  = "aws-secret-key"
	kindGitHub     = "github-token"
	kindGitLab     = "gitlab-token"
	kindSlack      = "slack-token"
	kindGoogle     = "google-api-key"
	kindStripe     = "stripe-key"
	kindNPM        = "npm-token"
	kindToken      = "api-token"
	kindJWT        = "jwt"
	kindBearer     = "bearer-token"
	kindBasic      = "basic-auth"
	kindAuth       = "auth-token"
	kindPrivateKey = "private-key"
	kindPassword   = "password"
	kindSecret     = "secret"
)

const markerPrefix = "[REDACTED"

func marker(kind string) string { return markerPrefix + ":" + kind + "]" }

// String returns s with secrets replaced by a marker that names the kind,
// e.g. "[REDACTED:aws-key]", and with any text between <private> and
// </private> removed (see Private). The markers are:
//
//	[REDACTED:anthropic-key]   sk-ant-...
//	[REDACTED:openai-key]      sk-proj-..., sk-svcacct-..., sk-admin-..., sk-<48 base62>
//	[REDACTED:aws-key]         AKIA... and ASIA... access key ids
//	[REDACTED:aws-secret-key]  the value of aws_secret_access_key, SecretAccessKey
//	[REDACTED:github-token]    ghp_, gho_, ghu_, ghs_, ghr_, github_pat_
//	[REDACTED:gitlab-token]    glpat-
//	[REDACTED:slack-token]     xoxa-, xoxb-, xoxp-, xoxo-, xoxs-, xoxr-
//	[REDACTED:google-api-key]  AIza...
//	[REDACTED:stripe-key]      sk_live_, rk_live_, sk_test_, rk_test_
//	[REDACTED:npm-token]       npm_...
//	[REDACTED:stripe-key]      also whsec_ webhook secrets
//	[REDACTED:api-token]       the path of a webhook URL (Slack, Discord, Teams, Zapier),
//	                           Mailgun's key-<32 hex>, other vendors' prefixed tokens: hf_, pypi-, dop_v1_,
//	                           shpat_, lin_api_, sntrys_, GOCSPX-, rubygems_,
//	                           sk-or-v1-, gsk_, xai-; an identifier typed as a credential
//	                           (xyz_live_…, acme_secret_…) with a random rest; GitLab glptt-, gldt-, glrt-
//	                           and Slack xapp- tokens are gitlab-token and slack-token
//	[REDACTED:jwt]             eyJ....eyJ....sig
//	[REDACTED:private-key]     a PEM private key block
//	[REDACTED:bearer-token]    the credential after Bearer
//	[REDACTED:basic-auth]      the credential after Basic
//	[REDACTED:auth-token]      an Authorization header's credential in another scheme
//	[REDACTED:password]        a URL's password, the value of a password-like key,
//	                           a client's password option (mysql -p…, curl -u user:…)
//	[REDACTED:secret]          the value of another key that names a secret
//
// Only the secret goes: the key of an assignment, the scheme of a header,
// a URL's user and host stay.
//
// String is idempotent: its output contains nothing it would redact again.
// It takes time linear in the length of s: a fraction of a millisecond for
// a 50 KB checkpoint (BenchmarkString).
func String(s string) string {
	return fixpoint(shapes(s), context)
}

// fixpoint runs pass until it changes nothing. One pass can leave
// something for the next: a redaction changes what a rule sees around it
// (a marker where a word was, a bracket gone). For text without secrets
// that is after the first pass. Each change turns text into markers, so
// this ends; the bound is for safety.
func fixpoint(s string, pass func(string) string) string {
	for range 8 {
		t := pass(s)
		if t == s {
			break
		}
		s = t
	}
	return s
}

// shapes applies the rules that need no context: <private> blocks, PEM
// keys and prefixed tokens. They run first, so that a GitHub token assigned
// to GITHUB_TOKEN is reported as a github-token: the assignment rule then
// sees a marker and keeps it.
//
// Private and privateKeys leave nothing for a second pass (a marker holds
// no tag and no label), and prefixedTokens only when a token was glued to
// the next, whose prefix it hid; the context rules' redactions always end
// before a quote, a blank or other punctuation, which cannot start, end or
// complete a tag, a block or a token. So the shape rules are not repeated
// after the context rules.
func shapes(s string) string {
	s = privateKeys(Private(s))
	for range 8 {
		var glued bool
		if s, glued = prefixedTokens(s); !glued {
			break
		}
	}
	// Random tokens last: a vendor's token is named by its family.
	return applyUnsorted(s, appendRandomTokens(nil, s))
}

// context applies the rules that read context around what they redact.
// They run on the same text and their spans merge, so that none can hide
// another's context by redacting it first: a header value can hold a
// KEY=value, a value can hold a header.
func context(s string) string {
	edits := assignments(nil, s)
	edits = urlPasswords(edits, s)
	edits = webhookURLs(edits, s)
	edits = authHeaders(edits, s)
	edits = cmdPasswords(edits, s)
	return applyUnsorted(s, edits)
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

// applyUnsorted sorts the edits and merges overlapping ones into the first
// (the longest of those that start together), so that the union of what
// the rules found goes.
func applyUnsorted(s string, edits []edit) string {
	sort.Slice(edits, func(i, j int) bool {
		if edits[i].start != edits[j].start {
			return edits[i].start < edits[j].start
		}
		return edits[i].end > edits[j].end
	})
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

// lowerASCII lowers ASCII letters only, for comparing the short words the
// rules look at (key names, placeholders).
func lowerASCII(s string) string {
	i := 0
	for i < len(s) && !isUpper(s[i]) {
		i++
	}
	if i == len(s) {
		return s
	}
	b := []byte(s)
	for ; i < len(b); i++ {
		if isUpper(b[i]) {
			b[i] += 'a' - 'A'
		}
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

// equalFoldAt reports whether s[i:] starts with word, which is in lower
// case, ignoring the case of ASCII letters.
func equalFoldAt(s string, i int, word string) bool {
	return i >= 0 && i+len(word) <= len(s) && equalFoldASCII(s[i:i+len(word)], word)
}

// load64 reads s[i:i+8] as a little-endian word.
func load64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

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
// just before s[i]. The backslashes are not counted: in JSON that holds
// JSON, "\\n" is a line break one level down.
func escapeEndsAt(s string, i int) bool {
	if i >= 2 && s[i-2] == '\\' && strings.IndexByte("nrt", s[i-1]) >= 0 {
		return true
	}
	if i < 6 || s[i-6] != '\\' || s[i-5] != 'u' {
		return false
	}
	for _, c := range []byte(s[i-4 : i]) {
		if !isDigit(c) && (c|0x20 < 'a' || c|0x20 > 'f') {
			return false
		}
	}
	return true
}
