package redact

import "strings"

// urlPasswords appends the edits that redact the password in a URL's user
// info, keeping the user and the host: postgres://app:s3cret@db/x becomes
// postgres://app:[REDACTED:password]@db/x. A user name alone (git@..., a
// Sentry DSN key) is left: it is usually an account name, and a token used
// as a user name is caught by its prefix.
func urlPasswords(edits []edit, s string) []edit {
	// Every URL with a password has an '@', which is rare elsewhere; the
	// scheme's "://" (or ":\/\/" in JSON with escaped slashes) is looked
	// for backwards from it.
	for i := 0; ; {
		j := strings.IndexByte(s[i:], '@')
		if j < 0 {
			break
		}
		at := i + j
		i = at + 1
		start := authorityStart(s, at)
		if start < 0 {
			continue
		}
		// The user info ends at the last '@' before the path.
		end := start
		for k := start; k < len(s) && k-start < 256 && !urlStop(s[k]); k++ {
			if s[k] == '@' {
				end = k
			}
		}
		i = max(i, end+1)
		colon := indexOutsideMarkers(s[start:end], ':')
		if colon < 0 {
			continue
		}
		pw := start + colon + 1
		if v := s[pw:end]; v == "" || isMarker(v) || isPlaceholder(v) {
			continue
		}
		edits = append(edits, edit{pw, end, marker(kindPassword)})
	}
	return edits
}

// authorityStart returns the start of the URL authority that holds the '@'
// at s[at], just after "://", or -1.
func authorityStart(s string, at int) int {
	k := at - 1
	for ; k >= 0 && at-k < 256 && !urlStop(s[k]); k-- {
	}
	if k < 0 || s[k] != '/' {
		return -1
	}
	switch {
	case k >= 2 && s[k-2:k+1] == "://":
		return k + 1
	case k >= 4 && s[k-4:k+1] == `:\/\/`:
		return k + 1
	}
	return -1
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

// webhooks are URLs whose path is the credential: anyone who has it can
// post. The path after the prefix is redacted, the host kept.
var webhooks = []string{
	"hooks.slack.com/services/", "hooks.slack.com/workflows/", "discord.com/api/webhooks/", "discordapp.com/api/webhooks/",
	"outlook.office.com/webhook/", "hooks.zapier.com/hooks/catch/",
}

// webhookURLs appends the edits that redact the secret part of webhook
// URLs. They are found by "hook", which every prefix has: one pass.
func webhookURLs(edits []edit, s string) []edit {
	for i := 0; ; {
		j := strings.Index(s[i:], "hook")
		if j < 0 {
			return edits
		}
		h := i + j
		i = h + 4
		for _, w := range webhooks {
			off := strings.Index(w, "hook")
			if h < off || !strings.HasPrefix(s[h-off:], w) {
				continue
			}
			start := h - off + len(w)
			end := start
			for end < len(s) && strings.IndexByte(" \t\r\n\"'`<>,)\\", s[end]) < 0 {
				end++
			}
			for end > start && strings.IndexByte(".;:!?", s[end-1]) >= 0 {
				end--
			}
			if end-start >= 8 && !isMarker(s[start:end]) {
				edits = append(edits, edit{start, end, marker(kindToken)})
			}
			i = max(i, end)
			break
		}
	}
}
