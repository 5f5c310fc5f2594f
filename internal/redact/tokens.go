package redact

import (
	"strings"
	"sync"
)

// A family is a vendor credential recognised by a fixed prefix and a body
// of a known alphabet and minimum length. Vendors chose these prefixes so
// that scanners like this one can find their tokens without false positives.
type family struct {
	prefix string
	kind   string
	body   func(byte) bool
	min    int // minimum body length
	// shape, when set, must accept the body.
	shape func(body string) bool
}

func isB62(c byte) bool   { return isAlnum(c) }
func isB64u(c byte) bool  { return isAlnum(c) || c == '_' || c == '-' }
func isSlack(c byte) bool { return isAlnum(c) || c == '-' }
func isAWS(c byte) bool   { return isUpper(c) || isDigit(c) }
func isPAT(c byte) bool   { return isAlnum(c) || c == '_' }
func isLowerHex(c byte) bool {
	return isDigit(c) || c >= 'a' && c <= 'f'
}

func hasDigit(s string) bool {
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) {
			return true
		}
	}
	return false
}

// mixedCase reports whether s has an upper-case letter, a lower-case letter
// and a digit, as random base62 almost always has and identifiers, words and
// hex almost never do.
func mixedCase(s string) bool {
	var up, lo, dig bool
	for i := 0; i < len(s); i++ {
		c := s[i]
		up = up || isUpper(c)
		lo = lo || isLower(c)
		dig = dig || isDigit(c)
	}
	return up && lo && dig
}

var families = []family{
	// Anthropic keys are sk-ant-api03-... and OpenAI project, service
	// account and admin keys sk-proj-..., sk-svcacct-..., sk-admin-....
	{prefix: "sk-ant-", kind: kindAnthropic, body: isB64u, min: 20, shape: hasDigit},
	{prefix: "sk-proj-", kind: kindOpenAI, body: isB64u, min: 20, shape: hasDigit},
	{prefix: "sk-svcacct-", kind: kindOpenAI, body: isB64u, min: 20, shape: hasDigit},
	{prefix: "sk-admin-", kind: kindOpenAI, body: isB64u, min: 20, shape: hasDigit},
	// Legacy OpenAI keys are sk- and 48 base62 characters. Kebab-case words
	// and hex ids after "sk-" (task-..., disk-...) are not mixed-case base62.
	{prefix: "sk-", kind: kindOpenAI, body: isB62, min: 32, shape: mixedCase},
	// AWS access key ids are exactly 20 characters; a longer upper-case run
	// is something else.
	{prefix: "AKIA", kind: kindAWSKey, body: isAWS, min: 16, shape: func(b string) bool { return len(b) == 16 }},
	{prefix: "ASIA", kind: kindAWSKey, body: isAWS, min: 16, shape: func(b string) bool { return len(b) == 16 }},
	{prefix: "ghp_", kind: kindGitHub, body: isB62, min: 30},
	{prefix: "gho_", kind: kindGitHub, body: isB62, min: 30},
	{prefix: "ghu_", kind: kindGitHub, body: isB62, min: 30},
	{prefix: "ghs_", kind: kindGitHub, body: isB62, min: 30},
	{prefix: "ghr_", kind: kindGitHub, body: isB62, min: 30},
	{prefix: "github_pat_", kind: kindGitHub, body: isPAT, min: 22},
	{prefix: "glpat-", kind: kindGitLab, body: isB64u, min: 20},
	// Slack tokens carry numeric team and user ids; "xoxo-" followed by
	// kebab-case words does not.
	{prefix: "xoxa-", kind: kindSlack, body: isSlack, min: 10, shape: hasDigit},
	{prefix: "xoxb-", kind: kindSlack, body: isSlack, min: 10, shape: hasDigit},
	{prefix: "xoxp-", kind: kindSlack, body: isSlack, min: 10, shape: hasDigit},
	{prefix: "xoxo-", kind: kindSlack, body: isSlack, min: 10, shape: hasDigit},
	{prefix: "xoxs-", kind: kindSlack, body: isSlack, min: 10, shape: hasDigit},
	{prefix: "xoxr-", kind: kindSlack, body: isSlack, min: 10, shape: hasDigit},
	{prefix: "AIza", kind: kindGoogle, body: isB64u, min: 35},
	// Test-mode Stripe keys are credentials too, for the test account.
	{prefix: "sk_live_", kind: kindStripe, body: isB62, min: 16},
	{prefix: "rk_live_", kind: kindStripe, body: isB62, min: 16},
	{prefix: "sk_test_", kind: kindStripe, body: isB62, min: 16},
	{prefix: "rk_test_", kind: kindStripe, body: isB62, min: 16},
	{prefix: "npm_", kind: kindNPM, body: isB62, min: 30},
	// Webhook signing secrets, and other vendors' documented prefixes.
	{prefix: "whsec_", kind: kindStripe, body: isB62, min: 24},
	// Mailgun's keys are key- and 32 lower-case hex digits.
	{prefix: "key-", kind: kindToken, body: isLowerHex, min: 32, shape: func(b string) bool { return len(b) == 32 && hasDigit(b) }},
	{prefix: "xapp-", kind: kindSlack, body: isSlack, min: 10, shape: hasDigit},
	{prefix: "glptt-", kind: kindGitLab, body: isB64u, min: 20},
	{prefix: "gldt-", kind: kindGitLab, body: isB64u, min: 20},
	{prefix: "glrt-", kind: kindGitLab, body: isB64u, min: 20},
	{prefix: "hf_", kind: kindToken, body: isB62, min: 30, shape: mixedCase},
	{prefix: "pypi-AgEIcHlwaS5vcmc", kind: kindToken, body: isB64u, min: 40},
	{prefix: "dop_v1_", kind: kindToken, body: isB62, min: 40},
	{prefix: "doo_v1_", kind: kindToken, body: isB62, min: 40},
	{prefix: "dor_v1_", kind: kindToken, body: isB62, min: 40},
	{prefix: "shpat_", kind: kindToken, body: isB62, min: 32},
	{prefix: "shpss_", kind: kindToken, body: isB62, min: 32},
	{prefix: "shpca_", kind: kindToken, body: isB62, min: 32},
	{prefix: "lin_api_", kind: kindToken, body: isB62, min: 32},
	{prefix: "sntrys_", kind: kindToken, body: isB64u, min: 40},
	{prefix: "GOCSPX-", kind: kindToken, body: isB64u, min: 20},
	{prefix: "AGE-SECRET-KEY-1", kind: kindPrivateKey, body: isAWS, min: 50},
	{prefix: "rubygems_", kind: kindToken, body: isB62, min: 40},
	{prefix: "sk-or-v1-", kind: kindToken, body: isB62, min: 40},
	{prefix: "gsk_", kind: kindToken, body: isB62, min: 40, shape: mixedCase},
	{prefix: "xai-", kind: kindToken, body: isB62, min: 40, shape: mixedCase},
}

// byAnchor groups the families by the byte they are found by: the prefix's
// first '-' or '_', or else its first byte. Those bytes are much rarer in
// text than the letters prefixes start with, so an IndexByte loop over each
// skips most of the text. Within a group, the families are listed by the
// byte before the anchor, which rejects most hits (snake_case, UUIDs) at
// once. Built on first use, not at start: cairn's hooks start a process
// each, and most never redact.
var byAnchor = sync.OnceValue(func() map[byte]*[256][]anchored {
	m := map[byte]*[256][]anchored{}
	for i := range families {
		f := &families[i]
		o := strings.IndexAny(f.prefix, "-_")
		if o < 0 {
			o = 0
		}
		a := f.prefix[o]
		if m[a] == nil {
			m[a] = new([256][]anchored)
		}
		before := 0 // for a prefix found by its first byte, any
		if o > 0 {
			before = int(f.prefix[o-1])
		}
		m[a][before] = append(m[a][before], anchored{f, o})
	}
	return m
})

type anchored struct {
	*family
	offset int // of the anchor byte in the prefix
}

// prefixedTokens redacts vendor tokens and JWTs. It reports whether a token
// it redacted was followed by a letter: the prefix of another token glued to
// it was not taken for one, and is once the first is a marker.
//
// A prefix must not be glued to a letter or digit before it: "task-" and
// "risk_live_" are not keys. The body is taken greedily, so a token is
// redacted whole even when it is longer than its vendor's current format.
func prefixedTokens(s string) (string, bool) {
	var edits []edit
	for a, byBefore := range byAnchor() {
		for i := 0; ; {
			j := strings.IndexByte(s[i:], a)
			if j < 0 {
				break
			}
			h := i + j
			i = h + 1
			fams := byBefore[0]
			if h > 0 && byBefore[s[h-1]] != nil {
				fams = byBefore[s[h-1]]
			}
			for _, f := range fams {
				start := h - f.offset
				if start < 0 || !strings.HasPrefix(s[start:], f.prefix) || glued(s, start) {
					continue
				}
				b := start + len(f.prefix)
				end := b
				for end < len(s) && f.body(s[end]) {
					end++
				}
				body := s[b:end]
				if len(body) < f.min || (f.shape != nil && !f.shape(body)) {
					continue
				}
				edits = append(edits, edit{start, end, marker(f.kind)})
				i = max(i, end)
				break
			}
		}
	}
	edits = appendJWTs(edits, s)
	glued := false
	for _, e := range edits {
		glued = glued || e.end < len(s) && isAlpha(s[e.end])
	}
	return applyUnsorted(s, edits), glued
}

// appendJWTs finds JSON Web Tokens: base64url header "eyJ..." (the encoding
// of `{"`), a payload and a signature, separated by dots. Base64 data
// without the dots, as in images and other payloads, is not a JWT.
func appendJWTs(edits []edit, s string) []edit {
	if len(s) < 3 {
		return edits
	}
	for i := 2; ; {
		// 'J' is rarer than 'e'.
		j := strings.IndexByte(s[i:], 'J')
		if j < 0 {
			return edits
		}
		start := i + j - 2
		if s[start] != 'e' || s[start+1] != 'y' {
			i = start + 3
			continue
		}
		end := start
		var parts [3]int // lengths of the first three parts
		n := 0
		for {
			k := end
			for k < len(s) && isB64u(s[k]) {
				k++
			}
			if n < 3 {
				parts[n] = k - end
			}
			n++
			end = k
			if end >= len(s) || s[end] != '.' {
				break
			}
			end++
		}
		i = max(end, start+3)
		// A trailing dot belongs to the token only when the signature is
		// empty (an unsigned token); otherwise it ends a sentence.
		if n < 3 || parts[0] < 10 || parts[1] < 3 {
			continue
		}
		if parts[1] < 16 && s[start+parts[0]+1] != 'e' {
			// Short dotted names such as eyJ....json.gz are not tokens;
			// a payload is a JSON object and encodes to "e...".
			continue
		}
		if end > 0 && s[end-1] == '.' && n > 3 {
			end--
		}
		edits = append(edits, edit{start, end, marker(kindJWT)})
	}
}

// privateKeys redacts PEM private key blocks, from the BEGIN line through
// the END line. Keys are often seen inside JSON strings, with the newlines
// escaped as a backslash and an n; the block is found the same way. A block
// that is not terminated (a truncated tool output) is redacted to the end.
//
// A BEGIN line that is not followed by key data is left alone: code that
// checks for PEM headers quotes them without a body.
func privateKeys(s string) string {
	const begin, end, dashes, label = "-----BEGIN ", "-----END ", "-----", "PRIVATE KEY"
	var edits []edit
	for i := 0; ; {
		// "PRIVATE KEY" is rarer than "-----BEGIN ", which certificates
		// and public keys have too.
		j := strings.Index(s[i:], label)
		if j < 0 {
			break
		}
		p := i + j
		i = p + len(label)
		lineStart := max(0, p-64)
		b := strings.LastIndex(s[lineStart:p], begin)
		if b < 0 {
			continue
		}
		start := lineStart + b
		labelStart := start + len(begin)
		k := strings.Index(s[i:min(len(s), i+32)], dashes)
		if k < 0 || !isPEMLabel(s[labelStart:p]) || !isPEMLabel(s[i:i+k]) {
			continue
		}
		bodyStart := i + k + len(dashes)
		if !pemBodyAt(s, bodyStart) {
			continue
		}
		stop := len(s)
		if e := strings.Index(s[bodyStart:], end); e >= 0 {
			e += bodyStart + len(end)
			if d := strings.Index(s[e:min(len(s), e+64)], dashes); d >= 0 {
				stop = e + d + len(dashes)
			} else {
				stop = lineEnd(s, e)
			}
		}
		// Blocks are not skipped once found: an END line can be garbled
		// into the next BEGIN line, and overlapping blocks merge.
		edits = append(edits, edit{start, stop, marker(kindPrivateKey)})
	}
	return applyUnsorted(s, edits)
}

// isPEMLabel reports whether s can be part of the label of a BEGIN line:
// upper-case words, as in "RSA " or " BLOCK".
func isPEMLabel(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isUpper(c) && !isDigit(c) && c != ' ' {
			return false
		}
	}
	return true
}

// pemBodyAt reports whether key data follows s[i], after blank space and
// newlines, escaped (at any depth of JSON in JSON) or not.
func pemBodyAt(s string, i int) bool {
	for i < len(s) {
		switch c := s[i]; {
		case isSpace(c):
			i++
		case c == '\\':
			for i < len(s) && s[i] == '\\' {
				i++
			}
			if i >= len(s) || (s[i] != 'n' && s[i] != 'r') {
				return false
			}
			i++
		default:
			return isAlnum(c) || c == '+' || c == '/' || c == '='
		}
	}
	return false
}
