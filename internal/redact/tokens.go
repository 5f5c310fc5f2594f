package redact

import "strings"

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
	{prefix: "sk-ant-", kind: KindAnthropic, body: isB64u, min: 20, shape: hasDigit},
	{prefix: "sk-proj-", kind: KindOpenAI, body: isB64u, min: 20, shape: hasDigit},
	{prefix: "sk-svcacct-", kind: KindOpenAI, body: isB64u, min: 20, shape: hasDigit},
	{prefix: "sk-admin-", kind: KindOpenAI, body: isB64u, min: 20, shape: hasDigit},
	// Legacy OpenAI keys are sk- and 48 base62 characters. Kebab-case words
	// and hex ids after "sk-" (task-..., disk-...) are not mixed-case base62.
	{prefix: "sk-", kind: KindOpenAI, body: isB62, min: 32, shape: mixedCase},
	// AWS access key ids are exactly 20 characters; a longer upper-case run
	// is something else.
	{prefix: "AKIA", kind: KindAWSKey, body: isAWS, min: 16, shape: func(b string) bool { return len(b) == 16 }},
	{prefix: "ASIA", kind: KindAWSKey, body: isAWS, min: 16, shape: func(b string) bool { return len(b) == 16 }},
	{prefix: "ghp_", kind: KindGitHub, body: isB62, min: 30},
	{prefix: "gho_", kind: KindGitHub, body: isB62, min: 30},
	{prefix: "ghu_", kind: KindGitHub, body: isB62, min: 30},
	{prefix: "ghs_", kind: KindGitHub, body: isB62, min: 30},
	{prefix: "ghr_", kind: KindGitHub, body: isB62, min: 30},
	{prefix: "github_pat_", kind: KindGitHub, body: isPAT, min: 22},
	{prefix: "glpat-", kind: KindGitLab, body: isB64u, min: 20},
	// Slack tokens carry numeric team and user ids; "xoxo-" followed by
	// kebab-case words does not.
	{prefix: "xoxa-", kind: KindSlack, body: isSlack, min: 10, shape: hasDigit},
	{prefix: "xoxb-", kind: KindSlack, body: isSlack, min: 10, shape: hasDigit},
	{prefix: "xoxp-", kind: KindSlack, body: isSlack, min: 10, shape: hasDigit},
	{prefix: "xoxo-", kind: KindSlack, body: isSlack, min: 10, shape: hasDigit},
	{prefix: "xoxs-", kind: KindSlack, body: isSlack, min: 10, shape: hasDigit},
	{prefix: "xoxr-", kind: KindSlack, body: isSlack, min: 10, shape: hasDigit},
	{prefix: "AIza", kind: KindGoogle, body: isB64u, min: 35},
	// Test-mode Stripe keys are credentials too, for the test account.
	{prefix: "sk_live_", kind: KindStripe, body: isB62, min: 16},
	{prefix: "rk_live_", kind: KindStripe, body: isB62, min: 16},
	{prefix: "sk_test_", kind: KindStripe, body: isB62, min: 16},
	{prefix: "rk_test_", kind: KindStripe, body: isB62, min: 16},
	{prefix: "npm_", kind: KindNPM, body: isB62, min: 30},
}

// prefixedTokens redacts vendor tokens and JWTs.
//
// A prefix must not be glued to a letter or digit before it: "task-" and
// "risk_live_" are not keys. The body is taken greedily, so a token is
// redacted whole even when it is longer than its vendor's current format.
func prefixedTokens(s string) string {
	var edits []edit
	for fi := range families {
		f := &families[fi]
		for i := 0; ; {
			j := strings.Index(s[i:], f.prefix)
			if j < 0 {
				break
			}
			start := i + j
			b := start + len(f.prefix)
			end := b
			for end < len(s) && f.body(s[end]) {
				end++
			}
			i = end
			if glued(s, start) {
				continue
			}
			body := s[b:end]
			if len(body) < f.min || (f.shape != nil && !f.shape(body)) {
				continue
			}
			edits = append(edits, edit{start, end, marker(f.kind)})
		}
	}
	edits = appendJWTs(edits, s)
	return applyUnsorted(s, edits)
}

// appendJWTs finds JSON Web Tokens: base64url header "eyJ..." (the encoding
// of `{"`), a payload and a signature, separated by dots. Base64 data
// without the dots, as in images and other payloads, is not a JWT.
func appendJWTs(edits []edit, s string) []edit {
	for i := 0; ; {
		j := strings.Index(s[i:], "eyJ")
		if j < 0 {
			return edits
		}
		start := i + j
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
		edits = append(edits, edit{start, end, marker(KindJWT)})
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
	const begin, end, dashes = "-----BEGIN ", "-----END ", "-----"
	var edits []edit
	for i := 0; ; {
		j := strings.Index(s[i:], begin)
		if j < 0 {
			break
		}
		start := i + j
		labelStart := start + len(begin)
		k := strings.Index(s[labelStart:min(len(s), labelStart+64)], dashes)
		if k < 0 {
			i = labelStart
			continue
		}
		label := s[labelStart : labelStart+k]
		bodyStart := labelStart + k + len(dashes)
		i = bodyStart
		if !strings.Contains(label, "PRIVATE KEY") || strings.ContainsAny(label, "\n\r") || !pemBodyAt(s, bodyStart) {
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
		edits = append(edits, edit{start, stop, marker(KindPrivateKey)})
		i = stop
	}
	return apply(s, edits)
}

// pemBodyAt reports whether key data follows s[i], after blank space and
// newlines, escaped or not.
func pemBodyAt(s string, i int) bool {
	for i < len(s) {
		switch c := s[i]; {
		case isSpace(c):
			i++
		case c == '\\' && i+1 < len(s) && (s[i+1] == 'n' || s[i+1] == 'r' || s[i+1] == '\\'):
			i += 2
		default:
			return isAlnum(c) || c == '+' || c == '/' || c == '='
		}
	}
	return false
}
