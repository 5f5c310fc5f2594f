package redact

// Random tokens: a credential with no vendor prefix and no key naming it
// (an AWS secret access key passed as an argument, a generated API key in
// a config value) is recognised by its shape alone: 32 to 128 characters
// of the base64 alphabet, standing alone, with upper-case letters,
// lower-case letters and digits that alternate as random text's do.
// Words, identifiers (camelCase, snake_case), paths and hex (hashes,
// UUIDs) have long runs of one class of character; base64 blobs longer
// than a credential (images, signatures) are not taken.

const (
	randomMin = 32
	randomMax = 128
)

// b64 marks the bytes of a random token: base64's and base64url's.
var b64 = func() (t [256]bool) {
	for c := 0; c < 256; c++ {
		t[c] = isAlnum(byte(c)) || c == '+' || c == '/' || c == '-' || c == '_'
	}
	return t
}()

// appendRandomTokens adds an edit for each random token in s. It looks
// at every randomMin-th byte first: a run long enough to be a token holds
// one of them, and text without such runs is passed over that fast.
func appendRandomTokens(edits []edit, s string) []edit {
	for i := 0; i+randomMin <= len(s); {
		j := i + randomMin - 1
		if !b64[s[j]] {
			i = j + 1
			continue
		}
		// The run through s[j]; s[i-1], when there is one, ends a run
		// already looked at or is not in one.
		start, end := j, j+1
		for start > i && b64[s[start-1]] {
			start--
		}
		for end < len(s) && b64[s[end]] {
			end++
		}
		i = end
		if end-start < randomMin {
			continue
		}
		if start > 0 && s[start-1] == '\\' {
			// The run starts inside a JSON escape: \n, \t, \u00e9.
			if s[start] == 'u' {
				start += 5
			} else {
				start++
			}
		}
		for start < end && (s[start] == '/' || s[start] == '+') {
			start++ // "https://…", a path's slash: not a token's first byte
		}
		stop := end
		for stop < len(s) && s[stop] == '=' && stop-end < 2 { // padding
			stop++
		}
		if n := end - start; n >= randomMin && n <= randomMax && standsAlone(s, start, end) && !typedID(s[start:end]) &&
			!binaryData(s[start:end]) && looksRandom(s[start:end]) {
			edits = append(edits, edit{start, stop, marker(kindToken)})
		}
		i = stop
	}
	return edits
}

// standsAlone says the run s[start:end] is a word of its own, not a part
// of a dotted name (a.b.c, a file name) nor go.sum's "h1:" hash.
func standsAlone(s string, start, end int) bool {
	if start > 0 && s[start-1] == '.' {
		return false
	}
	if start > 2 && s[start-1] == ':' && s[start-3:start-1] == "h1" {
		return false
	}
	return end+1 >= len(s) || s[end] != '.' || !isAlnum(s[end+1])
}

// typedID says t is an identifier whose type a lower-case word before
// an underscore or dash names, as APIs name theirs (toolu_01…, msg_01…,
// cus_…): the vendors' secrets among such are the families' to find.
//
// A type word that says the identifier is a credential (srp_live_…,
// acme_secret_…, xyz_pk_…: the convention vendors copied from Stripe's
// sk_live_) makes it no identifier: its random rest is taken.
func typedID(t string) bool {
	typed := false
	for w := 0; w < len(t); {
		i := w
		for i < len(t) && isLower(t[i]) {
			i++
		}
		if i == w || i == len(t) || t[i] != '_' && t[i] != '-' {
			return typed
		}
		if credentialWord(t[w:i]) {
			return false
		}
		typed = true
		w = i + 1
	}
	return typed
}

// credentialWord says a type word of an identifier names a credential or
// the environment a live one is for.
func credentialWord(w string) bool {
	switch w {
	case "live", "prod", "secret", "sk", "rk", "pk", "key", "token", "pat", "api", "auth", "access", "private", "priv", "pass", "pwd":
		return true
	}
	return false
}

// binaryData says t starts as the base64 of a file format's magic bytes
// does (PNG, JPEG, GIF, PDF, ZIP, RIFF/WebP): an image or a document
// inlined, not a credential.
func binaryData(t string) bool {
	for _, magic := range []string{"iVBORw0KGgo", "/9j/", "R0lGOD", "JVBERi0", "UEsDB", "UklGR"} {
		if len(t) >= len(magic) && t[:len(magic)] == magic {
			return true
		}
	}
	return false
}

// looksRandom says t alternates between classes of characters (upper,
// lower, digit, other) as random base62 or base64 does: about 1.6 bytes
// per run, against 4 or more for words and identifiers. It needs all three
// of upper, lower and digit.
func looksRandom(t string) bool {
	if !mixedCase(t) {
		return false
	}
	runs, digits := 1, 0
	class := func(c byte) int {
		switch {
		case isUpper(c):
			return 0
		case isLower(c):
			return 1
		case isDigit(c):
			return 2
		}
		return 3
	}
	prev := class(t[0])
	for i := 0; i < len(t); i++ {
		c := class(t[i])
		if c == 2 {
			digits++
		}
		if i > 0 && c != prev {
			runs++
		}
		prev = c
	}
	// At most 2.5 bytes a run, and digits not all in one place.
	return runs*5 >= len(t)*2 && digits >= 3
}
