package redact

import (
	"encoding/base64"
	"strings"
)

// authHeaders appends the edits that redact the credential of an
// Authorization header, in any of the forms an agent meets: an HTTP dump,
// curl -H, a JSON or Python headers map, Go's Header.Set. The scheme is kept
// so that the reader still knows what kind of credential it was:
//
//	Authorization: Bearer [REDACTED:bearer-token]
//	Authorization: Basic [REDACTED:basic-auth]
//	Authorization: token [REDACTED:auth-token]
//
// "Bearer <token>" outside a header is redacted too, but only when the token
// is long and has digits: "Bearer tokens expire" is prose. So is "Basic
// <credential>", when the credential is base64 of user:password.
func authHeaders(edits []edit, s string) []edit {
	// 'z' is the rarest byte of "authorization"; "bearer" and "basic" are
	// found by their 'b'. Each case is its own IndexByte loop, which is
	// much faster than IndexAny.
	for _, z := range []byte("zZ") {
		for i := 0; ; {
			j := strings.IndexByte(s[i:], z)
			if j < 0 {
				break
			}
			i += j + 1
			if start := i - 1 - 7; equalFoldAt(s, start, "authorization") {
				edits = authorization(edits, s, start+len("authorization"))
			}
		}
	}
	// Outside a header (or where the header name was redacted as part of
	// something else) a scheme is still followed by its credential.
	for _, b := range []byte("bB") {
		for i := 0; ; {
			j := strings.IndexByte(s[i:], b)
			if j < 0 {
				break
			}
			start := i + j
			i = start + 1
			scheme := "bearer"
			if !equalFoldAt(s, start, scheme) {
				scheme = "basic"
				if !equalFoldAt(s, start, scheme) {
					continue
				}
			}
			i = start + len(scheme)
			c := skipBytes(s, i, " \t")
			if c == i || glued(s, start) {
				continue
			}
			e := credEnd(s, c)
			v := s[c:e]
			switch {
			case scheme == "basic" && len(v) >= 8 && isBasicCredential(strings.TrimRight(v, ".")):
				edits = append(edits, edit{c, e, marker(kindBasic)})
			case scheme == "bearer" && len(v) >= 20 && hasDigit(v) && hasAlpha(v) && !isPlaceholder(v):
				edits = append(edits, edit{c, e, marker(kindBearer)})
			}
		}
	}
	return edits
}

// authorization appends the edit for the value of the header whose name
// ends at s[k].
func authorization(edits []edit, s string, k int) []edit {
	k = skipBytes(s, k, "\"'`]\\ \t")
	if k >= len(s) || (s[k] != ':' && s[k] != '=' && s[k] != ',') {
		return edits
	}
	k = skipBytes(s, k+1, "\"'`\\ \t")
	w := k
	for w < len(s) && (isAlpha(s[w]) || s[w] == '-') {
		w++
	}
	c := skipBytes(s, w, " \t")
	if w == k || c == w {
		// No scheme: the value is the credential itself. Prose such as
		// "Authorization: required" is not, so it needs a digit.
		e := credEnd(s, k)
		if v := s[k:e]; len(v) >= 16 && hasDigit(v) && hasAlpha(v) && !isPlaceholder(v) {
			edits = append(edits, edit{k, e, marker(kindAuth)})
		}
		return edits
	}
	e := credEnd(s, c)
	v := s[c:e]
	if len(v) < 8 || isPlaceholder(v) {
		return edits
	}
	switch lowerASCII(s[k:w]) {
	case "bearer":
		return append(edits, edit{c, e, marker(kindBearer)})
	case "basic":
		return append(edits, edit{c, e, marker(kindBasic)})
	case "digest":
		// Digest carries a hash of the password, with parameters that
		// are not secret.
		return edits
	}
	if !allAlpha(v) {
		edits = append(edits, edit{c, e, marker(kindAuth)})
	}
	return edits
}

// credEnd returns the end of the credential starting at s[i]: RFC 7235's
// token68, letters, digits and -._~+/ followed by '=' padding. An '=' in
// the middle is taken too: a credential cut short there would leave its
// end in the clear.
func credEnd(s string, i int) int {
	for i < len(s) && (isCredByte(s[i]) || s[i] == '=') {
		i++
	}
	return i
}

func isCredByte(c byte) bool { return isAlnum(c) || strings.IndexByte("-._~+/", c) >= 0 }

// isBasicCredential reports whether v is base64 of "user:password", which
// tells "Basic dXNlcjpwYXNz" from "Basic usage".
func isBasicCredential(v string) bool {
	b, err := base64.StdEncoding.DecodeString(v)
	if err != nil {
		return false
	}
	colon := false
	for _, c := range b {
		if c < ' ' || c > '~' {
			return false
		}
		colon = colon || c == ':'
	}
	return colon
}

func skipBytes(s string, i int, set string) int {
	for i < len(s) && strings.IndexByte(set, s[i]) >= 0 {
		i++
	}
	return i
}

func hasAlpha(s string) bool {
	for i := 0; i < len(s); i++ {
		if isAlpha(s[i]) {
			return true
		}
	}
	return false
}

func allAlpha(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isAlpha(s[i]) {
			return false
		}
	}
	return true
}
