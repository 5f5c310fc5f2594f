package redact

import "strings"

// urlPasswords redacts the password in a URL's user info, keeping the user
// and the host: postgres://app:s3cret@db/x becomes
// postgres://app:[REDACTED:password]@db/x. A user name alone (git@..., a
// Sentry DSN key) is left: it is usually an account name, and a token used
// as a user name is caught by its prefix.
func urlPasswords(s string) string {
	var edits []edit
	for _, sep := range [...]string{"://", `:\/\/`} { // the second is JSON with escaped slashes
		for i := 0; ; {
			j := strings.Index(s[i:], sep)
			if j < 0 {
				break
			}
			start := i + j + len(sep)
			i = start
			// The user info ends at the last '@' before the path. It is
			// short; a long run without a delimiter is not a URL.
			at := -1
			for k := start; k < len(s) && k-start < 256 && !urlStop(s[k]); k++ {
				if s[k] == '@' {
					at = k
				}
			}
			if at < 0 {
				continue
			}
			colon := indexOutsideMarkers(s[start:at], ':')
			if colon < 0 {
				continue
			}
			pw := start + colon + 1
			if v := s[pw:at]; v == "" || isMarker(v) || isPlaceholder(v) {
				continue
			}
			edits = append(edits, edit{pw, at, marker(KindPassword)})
		}
	}
	return applyUnsorted(s, edits)
}

// urlStop reports whether c ends a URL's authority. Quotes and backslashes
// end it because URLs are often quoted, in JSON too.
func urlStop(c byte) bool {
	switch c {
	case '/', '?', '#', '"', '\'', '`', '<', '>', '\\':
		return true
	}
	return isSpace(c)
}

// indexOutsideMarkers is strings.IndexByte for text that may hold markers,
// whose own colons do not count.
func indexOutsideMarkers(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if m := markerAt(s, i); m > 0 {
			i += m - 1
			continue
		}
		if s[i] == c {
			return i
		}
	}
	return -1
}
