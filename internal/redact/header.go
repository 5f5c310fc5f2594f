package redact

import "strings"

// authHeaders redacts the credential of an Authorization header, in any of
// the forms an agent meets: an HTTP dump, curl -H, a JSON or Python headers
// map, Go's Header.Set. The scheme is kept so that the reader still knows
// what kind of credential it was:
//
//	Authorization: Bearer [REDACTED:bearer-token]
//	Authorization: Basic [REDACTED:basic-auth]
//	Authorization: token [REDACTED:auth-token]
//
// "Bearer <token>" outside a header is redacted too, but only when the token
// is long and has digits: "Bearer tokens expire" is prose.
func authHeaders(s, lower string) string {
	var edits []edit
	for i := 0; ; {
		j := strings.Index(lower[i:], "authorization")
		if j < 0 {
			break
		}
		k := i + j + len("authorization")
		i = k
		k = skipBytes(s, k, "\"'`]\\ \t")
		if k >= len(s) || (s[k] != ':' && s[k] != '=' && s[k] != ',') {
			continue
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
				edits = append(edits, edit{k, e, marker(KindAuth)})
			}
			continue
		}
		e := credEnd(s, c)
		v := s[c:e]
		if len(v) < 8 || isPlaceholder(v) {
			continue
		}
		switch lower[k:w] {
		case "bearer":
			edits = append(edits, edit{c, e, marker(KindBearer)})
		case "basic":
			edits = append(edits, edit{c, e, marker(KindBasic)})
		case "digest":
			// Digest carries a hash of the password, with parameters that
			// are not secret.
		default:
			if !allAlpha(v) {
				edits = append(edits, edit{c, e, marker(KindAuth)})
			}
		}
	}
	for i := 0; ; {
		j := strings.Index(lower[i:], "bearer")
		if j < 0 {
			break
		}
		start := i + j
		i = start + len("bearer")
		if glued(s, start) {
			continue
		}
		c := skipBytes(s, i, " \t")
		if c == i {
			continue
		}
		e := credEnd(s, c)
		if v := s[c:e]; len(v) >= 20 && hasDigit(v) && hasAlpha(v) && !isPlaceholder(v) {
			edits = append(edits, edit{c, e, marker(KindBearer)})
		}
	}
	return applyUnsorted(s, edits)
}

// credEnd returns the end of the credential starting at s[i]: RFC 7235's
// token68, letters, digits and -._~+/ followed by '=' padding.
func credEnd(s string, i int) int {
	for i < len(s) && (isAlnum(s[i]) || strings.IndexByte("-._~+/", s[i]) >= 0) {
		i++
	}
	for i < len(s) && s[i] == '=' {
		i++
	}
	return i
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
