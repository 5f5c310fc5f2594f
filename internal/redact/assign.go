package redact

import (
	"math/bits"
	"strings"
)

// Assignments whose key names a secret have their value redacted and their
// key kept, in the forms a coding agent sees:
//
//	DB_PASSWORD=hunter2               .env, shell, docker -e, URL queries
//	export API_KEY="..."              shell
//	password: hunter2                 YAML, HTTP headers (X-Api-Key: ...)
//	"client_secret": "..."            JSON, also inside JSON strings (\"...\")
//	token := "..."  secret = '...'    code
//	--password value  --token=value   command-line flags
//	<password>...</password>          XML
//	<add key="ApiKey" value="..."/>   a field naming the secret, the next
//	- name: DB_PASSWORD               field holding it (XML attributes,
//	  value: ...                      YAML and JSON lists, HCL): pairedValue
//	Password=...;                     connection strings
//
// What a key must look like is in classifyKey. A value is kept when it is
// plainly not a secret: empty, a placeholder (isPlaceholder), a reference
// to another name that holds the secret (password=password, self.token,
// process.env.API_KEY), a call (os.Getenv("TOKEN")), a type (token: string)
// or, after "key:", a sentence ("Password: must be 8 characters").

// keyAnchors are the words whose presence makes an identifier worth a look;
// classifyKey decides. anchorAt finds them by a byte or a pair of bytes
// that is rare in text, in either case: k in token and key, w in passw and
// pwd, cr in secret and credential, nn in connection, ph in passphrase,
// ds in dsn.
//
// anchorMask tests eight bytes at a time for those, so that the scan skips
// most of the text without looking at each byte. It returns a word with
// the high bit set in each byte where an anchor's rare byte or pair may
// start; the lowest is exact, the others may be false and are checked.
func anchorMask(x, next uint64) uint64 {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	const k, w, c, r, n, p, h, d, s = lo * 'k', lo * 'w', lo * 'c', lo * 'r', lo * 'n', lo * 'p', lo * 'h', lo * 'd', lo * 's'
	// Lower-case letters, and other bytes harmlessly: the hits are checked.
	x |= 0x20 * lo
	next |= 0x20 * lo
	zero := func(v uint64) uint64 { return (v - lo) &^ v & hi }
	return zero(x^k) | zero(x^w) | zero((x^c)|(next^r)) | zero((x^n)|(next^n)) | zero((x^p)|(next^h)) | zero((x^d)|(next^s))
}

// anchorAt returns the start and length of a key anchor found by s[h], or
// -1.
func anchorAt(s string, h int) (int, int) {
	var c1 byte
	if h+1 < len(s) {
		c1 = s[h+1] | 0x20
	}
	try := func(p int, word string) (int, int) {
		if equalFoldAt(s, p, word) {
			return p, len(word)
		}
		return -1, 0
	}
	switch s[h] | 0x20 {
	case 'k':
		if p, n := try(h-2, "token"); p >= 0 {
			return p, n
		}
		return try(h, "key")
	case 'w':
		if p, n := try(h-4, "passw"); p >= 0 {
			return p, n
		}
		return try(h-1, "pwd")
	case 'c':
		if c1 == 'r' {
			if p, n := try(h-2, "secret"); p >= 0 {
				return p, n
			}
			return try(h, "credential")
		}
	case 'n':
		if c1 == 'n' {
			return try(h-2, "connection")
		}
	case 'p':
		if c1 == 'h' {
			return try(h-4, "passphrase")
		}
	case 'd':
		if c1 == 's' {
			return try(h, "dsn")
		}
	}
	return -1, 0
}

// assignments appends the edits for the values of secret keys in s.
func assignments(edits []edit, s string) []edit {
	cursor := 0 // everything before it has been read as a key or a value
	i := 0
	for ; i+16 <= len(s); i += 8 {
		for m := anchorMask(load64(s, i), load64(s, i+1)); m != 0; m &= m - 1 {
			edits, cursor = assignmentAt(edits, s, i+bits.TrailingZeros64(m)/8, cursor)
		}
	}
	for ; i < len(s); i++ {
		edits, cursor = assignmentAt(edits, s, i, cursor)
	}
	return edits
}

// assignmentAt appends the edit for the assignment whose key has an anchor
// found by s[h], if there is one and it starts after cursor, and returns
// the new cursor.
func assignmentAt(edits []edit, s string, h, cursor int) ([]edit, int) {
	p, n := anchorAt(s, h)
	if p < cursor {
		return edits, cursor
	}
	keyStart, keyEnd := p, p+n
	for keyStart > cursor && isKeyByte(s[keyStart-1]) && !escapeEndsAt(s, keyStart) {
		keyStart--
	}
	for keyEnd < len(s) && isKeyByte(s[keyEnd]) {
		keyEnd++
	}
	if keyStart > 0 && s[keyStart-1] == '/' {
		// A file name: lib/phoenix/token.ex:13.
		return edits, keyEnd
	}
	e, found, end := assignment(s, keyStart, keyEnd)
	if found {
		edits = append(edits, e)
	}
	return edits, max(keyEnd, end)
}

func isKeyByte(c byte) bool { return isAlnum(c) || c == '_' || c == '-' || c == '.' }

// assignment reads the separator and value after the key s[keyStart:keyEnd].
// It returns the edit for the value, whether there is one, and where reading
// stopped.
func assignment(s string, keyStart, keyEnd int) (edit, bool, int) {
	key := s[keyStart:keyEnd]
	pos := keyEnd
	quotedKey := false
	var inString string // the quote of a string the key sits in, unclosed after it
	if q := quoteBefore(s, keyStart); q != "" {
		if strings.HasPrefix(s[keyEnd:], q) {
			quotedKey = true
			pos += len(q)
		} else {
			inString = q
		}
	}
	if keyStart >= 2 && s[keyStart-2:keyStart] == "${" && isShellName(key) {
		kind, ok := classifyKey(key, lowerASCII(key))
		if !ok {
			return edit{}, false, keyEnd
		}
		if e, found, next, ok := shellDefault(s, keyEnd, kind); ok {
			return e, found, next
		}
	}
	sp := skipBytes(s, pos, " \t")
	var sep byte
	if sp < len(s) {
		c1 := byte(0)
		if sp+1 < len(s) {
			c1 = s[sp+1]
		}
		switch s[sp] {
		case '=':
			if c1 != '=' && c1 != '>' && c1 != '~' {
				sep, sp = '=', sp+1
			}
		case ':':
			switch {
			case c1 == '=':
				sep, sp = '=', sp+2
			case c1 != ':' && !strings.HasPrefix(s[sp+1:], "//"):
				sep, sp = ':', sp+1
			}
		case '>':
			if sp == keyEnd && keyStart > 0 && s[keyStart-1] == '<' {
				sep, sp = '>', sp+1
			}
		}
	}
	if sep == 0 && inString == "" && key[0] != '-' {
		// The name is a field's value and the secret another field's:
		// <add key="ClearTextPassword" value="..."/>, "- name:
		// DB_PASSWORD / value: ...", {"name": "API_TOKEN", "value": ...}.
		if e, found, end, ok := pairedValue(s, keyStart, keyEnd, pos, key); ok {
			return e, found, end
		}
	}
	if sep == 0 {
		// A flag takes its value after a blank: --password hunter2. So
		// does a .netrc password: machine h login bob password hunter2.
		if quotedKey || sp == pos || sp >= len(s) || (key[0] != '-' && !isNetrc(s, keyStart, key)) {
			// Said in a sentence: "the DB_PASSWORD for staging is now
			// Gr4nite-Otter-5531!".
			if !quotedKey && sp > pos && sp < len(s) {
				if e, ok, end := prose(s, key, sp, !inAuthHeader(s, keyStart)); ok {
					return e, true, end
				}
			}
			return edit{}, false, sp
		}
		sep = ' '
	}
	if sep != '>' {
		sp = skipBytes(s, sp, " \t")
	}
	// The name is judged only now, for the few words followed by a
	// separator.
	lowerKey := lowerASCII(key)
	kind, ok := classifyKey(key, lowerKey)
	if !ok {
		if !vendorKey(key, lowerKey) {
			return edit{}, false, sp
		}
		// ALGOLIA_ADMIN_KEY, mapsKey: a key whose name says only
		// whose it is. Its value goes when it has a credential's shape;
		// a cache key, a sort key or a key's name stays.
		e, found, next := value(s, sp, sep, valueContext{key: key, kind: kindSecret, quotedKey: quotedKey, inString: inString, keyStart: keyStart})
		if found && !credentialShaped(s[e.start:e.end]) {
			return edit{}, false, sp
		}
		return e, found, next
	}
	return value(s, sp, sep, valueContext{key: key, kind: kind, line: lineValued(lowerKey), quotedKey: quotedKey, inString: inString, keyStart: keyStart})
}

// pairedValue reads a secret given as a pair of fields, one naming it and
// the next holding it: XML attributes (<add key="ClearTextPassword"
// value="..."/>, <property name="db.password" value="..."/>), YAML
// lists of variables (- name: DB_PASSWORD, then value: ... on the next
// line), JSON ({"name": "API_TOKEN", "value": "..."}), HCL blocks. The
// key s[keyStart:keyEnd] must be the value of a field called key or name;
// the value is the first field called value after it, before the element,
// object or list ends or another key or name field starts, within a few
// lines. after is where reading after the key (and its closing quote)
// starts. ok says whether the key was such a name with a value field
// after it (if not, the other rules read it); if it was, the edit,
// whether there is one and where to read on: after, since what lies
// between the two fields may hold keys of its own (overlapping edits
// merge).
func pairedValue(s string, keyStart, keyEnd, after int, key string) (edit, bool, int, bool) {
	// Backwards from the key: a quote, a separator, the field's name.
	b := keyStart
	if q := quoteBefore(s, b); q != "" {
		b -= len(q)
	}
	for b > 0 && (s[b-1] == ' ' || s[b-1] == '\t') {
		b--
	}
	if b == 0 || (s[b-1] != '=' && s[b-1] != ':') {
		return edit{}, false, 0, false
	}
	b--
	for b > 0 && (s[b-1] == ' ' || s[b-1] == '\t') {
		b--
	}
	if q := quoteBefore(s, b); q != "" {
		b -= len(q)
	}
	if !namingField(s, b) {
		return edit{}, false, 0, false
	}
	lowerKey := lowerASCII(key)
	kind, ok := classifyKey(key, lowerKey)
	vendor := false
	if !ok {
		if !vendorKey(key, lowerKey) {
			return edit{}, false, 0, false
		}
		kind, vendor = kindSecret, true
	}
	// Forwards: the value field.
	limit := min(len(s), after+256)
	lines := 0
	for i := after; i < limit; i++ {
		switch c := s[i]; {
		case c == '>' || c == '}' || c == ']' || c == '<':
			return edit{}, false, 0, false
		case c == '\n':
			if lines++; lines > 3 || (i+1 < len(s) && s[i+1] == '\n') {
				return edit{}, false, 0, false
			}
			continue
		case !isAlpha(c) || (i > 0 && isKeyByte(s[i-1])):
			continue
		}
		j := i
		for j < len(s) && isKeyByte(s[j]) {
			j++
		}
		word := lowerASCII(s[i:j])
		quoted := false
		k := j
		if q := quoteBefore(s, i); q != "" && strings.HasPrefix(s[j:], q) {
			quoted, k = true, j+len(q)
		}
		k = skipBytes(s, k, " \t")
		if k >= len(s) || (s[k] != '=' && s[k] != ':') || (k+1 < len(s) && (s[k+1] == '=' || s[k+1] == ':')) {
			i = j
			continue
		}
		switch word {
		case "value":
			sep := s[k]
			e, found, _ := value(s, skipBytes(s, k+1, " \t"), sep, valueContext{key: key, kind: kind, quotedKey: quoted, keyStart: keyStart})
			if found && vendor && !credentialShaped(s[e.start:e.end]) {
				return edit{}, false, after, true
			}
			return e, found, after, true
		case "key", "name":
			return edit{}, false, 0, false
		}
		i = j
	}
	return edit{}, false, 0, false
}

// namingField reports whether the word ending at s[end] (before its
// separator) is "key" or "name", a whole word.
func namingField(s string, end int) bool {
	for _, w := range [...]string{"key", "name"} {
		start := end - len(w)
		if start >= 0 && equalFoldAt(s, start, w) && (start == 0 || !isKeyByte(s[start-1])) {
			return true
		}
	}
	return false
}

// vendorKey reports whether key ends in the word "key" (or a word that
// ends in it: ADMINKEY) and no word before it says the key is a database's,
// a cache's or a map's, or public: ALGOLIA_ADMIN_KEY, MAPS_KEY,
// "licenseKey", but not PRIMARY_KEY, cache_key, sortKey, VAPID_PUBLIC_KEY.
// classifyKey has taken the names that say they are secret (API_KEY,
// SECRET_KEY); these are the ones whose value decides.
func vendorKey(key, lower string) bool {
	var buf [16][2]int
	parts := keyParts(key, buf[:0])
	if len(parts) == 0 {
		return false
	}
	last := lower[parts[len(parts)-1][0]:parts[len(parts)-1][1]]
	if !strings.HasSuffix(last, "key") {
		return false
	}
	for _, p := range parts {
		switch w := strings.TrimSuffix(lower[p[0]:p[1]], "key"); w {
		case "primary", "foreign", "sort", "partition", "cache", "idempotency", "dedup", "dedupe",
			"lookup", "hash", "map", "routing", "shard", "row", "composite", "unique", "index",
			"object", "public", "publishable", "pub", "storage", "group", "order", "join", "hot",
			"short", "keyboard", "i18n", "translation", "message", "react", "list", "dict", "redis", "s3":
			return false
		}
	}
	return true
}

// credentialShaped reports whether v, a key's value, looks generated
// rather than chosen: 16 to 256 characters of a token's alphabet, with
// letters and digits, that are hex (a hex key: 32 characters of 0-9a-f),
// a UUID, or alternate between letters and digits at least four times
// in a way words and version numbers do not. "user:42", "created_at",
// "orders-v2", "en-US" stay.
func credentialShaped(v string) bool {
	if len(v) < 16 || len(v) > 256 {
		return false
	}
	letters, digits, switches, hex := 0, 0, 0, true
	prev := byte(0)
	for i := 0; i < len(v); i++ {
		c := v[i]
		var class byte
		switch {
		case isDigit(c):
			digits++
			class = 'd'
		case isAlpha(c):
			letters++
			class = 'a'
			if c|0x20 > 'f' {
				hex = false
			}
		case c == '=' && i < len(v)-2:
			return false // an assignment of its own, not base64's padding
		case c == '-' || c == '_' || c == '+' || c == '/' || c == '=':
			if c != '-' {
				hex = false
			}
			continue
		default:
			return false
		}
		if prev != 0 && class != prev {
			switches++
		}
		prev = class
	}
	if letters == 0 || digits == 0 {
		return false
	}
	return hex || switches >= 6
}

// prose reads a secret's value given in a sentence after its name: a few
// words on, after words that give it ("is", "is now", "was", "became",
// "set to", "changed to", a colon), a word with letters and digits that is
// not a word of the sentence. Only names of secrets reach here, and only
// credential-shaped values are taken: "the token is invalid" keeps
// "invalid". Reading on stops at the end of the line or at the next word
// that is not one of those; nothing is skipped for the other rules.
func prose(s, key string, i int, bare bool) (edit, bool, int) {
	kind, ok := classifyKey(key, lowerASCII(key))
	if !ok {
		return edit{}, false, i
	}
	start, linked := i, false
	for words := 0; words < 6 && i < len(s); words++ {
		j := i
		for j < len(s) && s[j] != ' ' && s[j] != '\t' && s[j] != '\n' && s[j] != '\r' {
			j++
		}
		w := s[i:j]
		lw := lowerASCII(w)
		v := strings.TrimRight(w, ".,;)\"'")
		switch {
		case bare && words == 0 && !linked && bareCredential(v) && !strings.ContainsAny(w, "=:/\\{}()[]<>\"'`$"):
			// Given with no verb at all, in a list of settings: "user
			// app, password Zq8vR2mL0pK7tWx4, db app_test".
			return edit{i, i + len(v), marker(kind)}, true, i + len(v)
		case lw == "is" || lw == "was" || lw == "are" || lw == "became",
			linked && (lw == "now" || lw == "just" || lw == "set" || lw == "changed" || lw == "rotated" || lw == "updated" || lw == "to"):
			linked = true
		case linked && looksLikeCredential(v) && !isStopword(w) && !strings.ContainsAny(v, ":=/\\{}()[]<>\"'`$") && v[0] != '-':
			return edit{i, i + len(v), marker(kind)}, true, i + len(v)
		case linked || words > 3 || strings.ContainsAny(w, "=:;,.\"'`"):
			// Not given here: a sentence that ended, or a word that
			// is not a value's.
			return edit{}, false, start
		}
		if j >= len(s) || s[j] == '\n' || s[j] == '\r' {
			return edit{}, false, start
		}
		i = skipBytes(s, j, " \t")
	}
	return edit{}, false, start
}

// shellDefault reads a shell parameter expansion after the name of a
// secret, ${TOKEN:-default}: the default is the secret, and an empty one,
// ${TOKEN:-}, is none. It reports false when there is no such expansion.
func shellDefault(s string, i int, kind string) (edit, bool, int, bool) {
	if i < len(s) && s[i] == ':' {
		i++
	}
	if i >= len(s) {
		return edit{}, false, i, false
	}
	switch s[i] {
	case '}', '?', '+': // ${TOKEN}, ${TOKEN:?unset}, ${TOKEN:+set}
		return edit{}, false, i, true
	case '-', '=':
	default:
		return edit{}, false, i, false
	}
	i++
	end := strings.IndexByte(s[i:], '}')
	if end < 0 || strings.ContainsAny(s[i:i+end], "\n\r") {
		return edit{}, false, i, false
	}
	if v := s[i : i+end]; isPlaceholder(v) {
		return edit{}, false, i, true
	}
	return edit{i, i + end, marker(kind)}, true, i, true
}

func isShellName(s string) bool {
	if s == "" || isDigit(s[0]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isAlnum(s[i]) && s[i] != '_' {
			return false
		}
	}
	return true
}

// isNetrc reports whether the key at s[keyStart] is the password of a
// .netrc entry: "password" after "login" on the same line.
func isNetrc(s string, keyStart int, key string) bool {
	if !strings.EqualFold(key, "password") && !strings.EqualFold(key, "passwd") {
		return false
	}
	line := s[max(0, keyStart-256):keyStart]
	if i := strings.LastIndexAny(line, "\n\r"); i >= 0 {
		line = line[i+1:]
	}
	return strings.HasPrefix(line, "login ") || strings.Contains(line, " login ")
}

type valueContext struct {
	key, kind string
	line      bool // the value is the rest of the line
	quotedKey bool
	inString  string
	keyStart  int
}

// maxWord bounds how much of a value without quotes is read again for keys
// inside it, so that a pathological line cannot make the scan quadratic.
const maxWord = 1024

// value reads the value at s[v] after the separator sep. It returns the
// edit, whether there is one, and where to look for the next key. A value
// can swallow the next key (TOKEN=a,PASSWORD=b or DSN="password": "..."),
// so the search goes on from the value's start, and overlapping edits
// merge.
func value(s string, v int, sep byte, c valueContext) (edit, bool, int) {
	none := func(end int) (edit, bool, int) { return edit{}, false, end }
	if v >= len(s) || s[v] == '\n' || s[v] == '\r' || (s[v] == '\\' && lineEnd(s, v) == v) {
		return none(v)
	}
	if m := markerAt(s, v); m > 0 {
		return none(v + m)
	}
	red := func(start, end, next int) (edit, bool, int) {
		return edit{start, end, marker(c.kind)}, true, next
	}

	if q := quoteAt(s, v); q != "" {
		if q == c.inString {
			// The quote closes the string that holds the key:
			// fmt.Print("password: ", pw).
			return none(v + len(q))
		}
		start := v + len(q)
		end := closeQuote(s, start, q)
		content := s[start:end]
		if content == "" || isMarker(content) || isPlaceholder(content) || isReference(content, c.key) {
			// A name in quotes may be the next key: "token": "password": ...
			return none(start)
		}
		return red(start, end, start)
	}

	if sep == '>' {
		e := v
		for e < len(s) && s[e] != '<' && s[e] != '\n' && s[e] != '\r' {
			e++
		}
		// An element's text ends with its closing tag on the line; a
		// "<.Values.auth.password>: nil pointer ..." in an error message
		// is a template's name in angle brackets, followed by prose.
		if !strings.HasPrefix(s[e:], "</") {
			return none(v)
		}
		if t := s[v:e]; isPlaceholder(t) || isReference(t, c.key) {
			return none(v)
		}
		return red(v, e, v)
	}

	if sep == ':' && isBlockIndicator(s, v) {
		// The rest of the key's line (a comment) is read on for keys.
		if start, end, ok := blockScalar(s, c.keyStart, v); ok && !isMarker(s[start:end]) {
			return red(start, end, v+1)
		}
		return none(v + 1)
	}

	if codeEnd(s, v) > 0 {
		// A call's arguments may hold assignments of their own:
		// connect(password="...").
		return none(v)
	}

	e := v
	if c.line {
		for e < len(s) && s[e] != '\n' && s[e] != '\r' && !isQuote(s[e]) && !escapeAt(s, e) {
			e++
		}
		if t := strings.TrimRight(s[v:e], " \t"); !isPlaceholder(t) {
			return red(v, v+len(t), v)
		}
		return none(v)
	}
	for e < len(s) && !isSpace(s[e]) && !isQuote(s[e]) && !escapeAt(s, e) {
		if sep == '=' && (s[e] == '&' || s[e] == ';') {
			break
		}
		e++
	}
	if e-v > maxWord {
		// Only a key at the end of the word can have a value beyond it.
		return red(v, e, e-256)
	}
	t := trimPunct(s[v:e])
	stripped := len(t) < e-v
	if t == "" || isPlaceholder(t) || isReference(t, c.key) {
		return none(v)
	}
	switch sep {
	case ':':
		if isLocation(t) {
			// A compiler's or grep's token.go:12:5: is a file and line.
			return none(v)
		}
		if isTypeName(t) {
			// token: str = "..." (Python) or token: string; (TypeScript).
			a := skipBytes(s, e, " \t")
			if a+1 < len(s) && s[a] == '=' && s[a+1] != '=' {
				e, found, _ := value(s, skipBytes(s, a+1, " \t"), '=', c)
				return e, found, v // the type may hold keys too: str(--token=...
			}
			return none(v)
		}
		if !c.quotedKey && !stripped && isPlainWord(t) && !looksLikeCredential(t) {
			// "Password: must be at least 8 characters." A marker stands
			// for a word that was there.
			if a := skipBytes(s, e, " \t"); a < len(s) && (isAlnum(s[a]) || markerAt(s, a) > 0) {
				return none(v)
			}
		}
	case ' ':
		if t[0] == '-' || isStopword(t) {
			// "--token -v" or "pass --token to the command".
			return none(v)
		}
	}
	return red(v, v+len(t), v)
}

// trimPunct drops the punctuation that ends a value in code or a sentence
// (a trailing comma, a closing bracket of the enclosing call) but keeps
// brackets the value opened itself, as in ${TOKEN}.
func trimPunct(t string) string {
	for t != "" {
		var open byte
		switch t[len(t)-1] {
		case ',', ';':
			t = t[:len(t)-1]
			continue
		case ')':
			open = '('
		case ']':
			open = '['
		case '}':
			open = '{'
		default:
			return t
		}
		if strings.Count(t, string(open)) >= strings.Count(t, string(t[len(t)-1])) {
			return t
		}
		t = t[:len(t)-1]
	}
	return t
}

// quoteBefore returns the quote (with the backslashes that escape it) that
// ends just before s[i], or "".
func quoteBefore(s string, i int) string {
	if i == 0 || !isQuote(s[i-1]) {
		return ""
	}
	j := i - 1
	for j > 0 && s[j-1] == '\\' {
		j--
	}
	return s[j:i]
}

// quoteAt returns the quote (with any backslashes that escape it, as in a
// JSON string holding JSON) that starts at s[i], or "".
func quoteAt(s string, i int) string {
	j := i
	for j < len(s) && s[j] == '\\' {
		j++
	}
	if j < len(s) && isQuote(s[j]) {
		return s[i : j+1]
	}
	return ""
}

func isQuote(c byte) bool { return c == '"' || c == '\'' || c == '`' }

// closeQuote finds the quote q that closes a string starting at s[i]: the
// same quote escaped by exactly as many backslashes. It returns the end of
// the content. An unclosed string runs to the end of the line. A quote that
// is escaped differently may be a closing quote after a literal backslash;
// taking it for content makes the redacted span too long, not too short.
func closeQuote(s string, i int, q string) int {
	qc := q[len(q)-1]
	k := len(q) - 1
	for j := i; j < len(s); j++ {
		switch s[j] {
		case '\n', '\r':
			return j
		case qc:
			if backslashesBefore(s, i, j) == k {
				return j - k
			}
		case '\\':
			// Inside a JSON string (k > 0), an escaped newline of the
			// enclosing document ends the line: \n when k is 1, \\n when
			// k is 3.
			if k > 0 && (j == i || s[j-1] != '\\') {
				r := 0
				for j+r < len(s) && s[j+r] == '\\' {
					r++
				}
				if r == (k+1)/2 && j+r < len(s) && (s[j+r] == 'n' || s[j+r] == 'r') {
					return j
				}
			}
		}
	}
	return len(s)
}

func backslashesBefore(s string, from, j int) int {
	b := 0
	for j-1-b >= from && s[j-1-b] == '\\' {
		b++
	}
	return b
}

// codeEnd returns the end of a call, index or composite literal starting at
// s[i], such as os.Getenv("TOKEN") or cfg["password"], or 0. The brackets
// must balance on the line: "Xy(9!kz" is a password.
func codeEnd(s string, i int) int {
	if !isAlpha(s[i]) && s[i] != '_' {
		return 0
	}
	j := i
	for j < len(s) && (isAlnum(s[j]) || s[j] == '_' || s[j] == '.' || s[j] == '$') {
		j++
	}
	if j >= len(s) || (s[j] != '(' && s[j] != '[' && s[j] != '{') {
		return 0
	}
	depth := 0
	var quote byte
	for ; j < len(s) && s[j] != '\n' && s[j] != '\r'; j++ {
		c := s[j]
		if c == '\\' {
			j++
			continue
		}
		if quote != 0 {
			if c == quote {
				quote = 0
			}
			continue
		}
		switch c {
		case '"', '\'', '`':
			quote = c
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth--; depth == 0 {
				return j + 1
			}
		}
	}
	return 0
}

// isBlockIndicator reports whether a YAML block scalar (| or >) starts at
// s[i].
func isBlockIndicator(s string, i int) bool {
	if s[i] != '|' && s[i] != '>' {
		return false
	}
	j := i + 1
	for j < len(s) && (s[j] == '-' || s[j] == '+' || isDigit(s[j])) {
		j++
	}
	j = skipBytes(s, j, " \t")
	return j >= len(s) || s[j] == '\n' || s[j] == '\r' || s[j] == '#'
}

// blockScalar returns the span of the lines of a YAML block scalar that
// follows the key at s[keyStart]: the next lines indented more than the key.
func blockScalar(s string, keyStart, v int) (int, int, bool) {
	lineStart := strings.LastIndexByte(s[:keyStart], '\n') + 1
	indent := keyStart - lineStart
	nl := strings.IndexByte(s[v:], '\n')
	if nl < 0 {
		return 0, 0, false
	}
	start, end := -1, -1
	for p := v + nl + 1; p < len(s); {
		e := strings.IndexByte(s[p:], '\n')
		if e < 0 {
			e = len(s)
		} else {
			e += p
		}
		line := strings.TrimRight(s[p:e], "\r")
		text := strings.TrimLeft(line, " ")
		if text != "" {
			if len(line)-len(text) <= indent {
				break
			}
			if start < 0 {
				start = p + len(line) - len(text)
			}
			end = p + len(line)
		}
		p = e + 1
	}
	return start, end, start >= 0
}

// isPlaceholder reports whether v is plainly not a secret: a variable or
// template to be filled in, a mask, or a word that stands for no value.
//
// "changeme" and the like are kept on purpose: they are shipped defaults
// and documentation, and marking them would suggest a leak that is not
// there. A real secret that is spelled like a variable ($Secret9) or looks
// like <this> is missed; both are rare, while $VAR and <your-key> are
// everywhere.
func isPlaceholder(v string) bool {
	if v == "" {
		return true
	}
	last := v[len(v)-1]
	switch {
	case v[0] == '$':
		return isVariable(v[1:])
	case v[0] == '<' && last == '>' && onlyBytes(v[1:len(v)-1], " _.-"),
		len(v) >= 4 && strings.HasPrefix(v, "{{") && strings.HasSuffix(v, "}}") && onlyBytes(v[2:len(v)-2], " _.-|$"),
		v[0] == '{' && last == '}' && isName(v[1:len(v)-1]), // {api_key} in an f-string
		len(v) == 2 && v[0] == '%', // %s
		strings.HasPrefix(v, "%(") && strings.HasSuffix(v, ")s"):
		return true
	}
	if len(v) >= 3 && strings.Trim(v, "xX*.#_-") == "" && strings.Trim(v, "_-") != "" {
		return true
	}
	switch lowerASCII(v) {
	case "changeme", "change-me", "change_me", "changeit", "placeholder", "redacted",
		"replaceme", "replace-me", "replace_me", "none", "null", "nil", "undefined",
		"true", "false", "todo", "tbd":
		return true
	}
	// your-api-key, YOUR_TOKEN_HERE, your password.
	return len(v) > 4 && hasPrefixFold(v, "your") && strings.IndexByte("-_ ", v[4]) >= 0
}

// onlyBytes reports whether v holds only letters, digits and bytes of set.
// Placeholders are short names; one that holds '=' or a quote may hold an
// assignment too.
func onlyBytes(v, set string) bool {
	for i := 0; i < len(v); i++ {
		if !isAlnum(v[i]) && strings.IndexByte(set, v[i]) < 0 {
			return false
		}
	}
	return true
}

// isVariable reports whether v, after a '$', is one shell or PowerShell
// variable or command substitution and nothing more. A default value is a
// value: ${DB_PASSWORD:-hunter2} is redacted.
func isVariable(v string) bool {
	switch {
	case strings.HasPrefix(v, "{"):
		inner := strings.TrimSuffix(v[1:], "}")
		if len(inner) == len(v)-1 {
			return false
		}
		i := 0
		for i < len(inner) && (isAlnum(inner[i]) || inner[i] == '_') {
			i++
		}
		if i == len(inner) {
			return true
		}
		// ${VAR:?message} and ${VAR:+alternative} hold no secret, nor does an
		// empty default, ${VAR:-}.
		op := strings.TrimPrefix(inner[i:], ":")
		return op != "" && (op[0] == '?' || op[0] == '+' || op == "-" || op == "=")
	case strings.HasPrefix(v, "("):
		return strings.HasSuffix(v, ")")
	case hasPrefixFold(v, "env:"):
		v = v[4:]
	}
	return isName(v)
}

// isName reports whether v is one identifier, possibly dotted.
func isName(v string) bool {
	if v == "" {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; !isAlnum(c) && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

// isReference reports whether the value v is the name of something that
// holds the secret rather than the secret: password=password,
// self.token = token, token: process.env.GITHUB_TOKEN, apiKey: apiKey,
// key=OPENAI_API_KEY. Names with digits or dashes are taken for values:
// "super-secret-key" and "s3cr3t_token" are what people use as secrets.
func isReference(v, key string) bool {
	if !isAlpha(v[0]) && v[0] != '_' {
		return false
	}
	dotted, camel, upperSnake := false, false, true
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == '.':
			dotted = true
		case c == '_':
		case isLower(c):
			upperSnake = false
			if i+1 < len(v) && isUpper(v[i+1]) {
				camel = true
			}
		case isUpper(c):
		default:
			return false
		}
	}
	k := strings.TrimLeft(key, "-")
	if strings.EqualFold(v, k) || strings.EqualFold(v, k[strings.LastIndexByte(k, '.')+1:]) {
		return true
	}
	if !dotted && !camel && !(upperSnake && strings.IndexByte(v, '_') >= 0) {
		return false
	}
	_, named := classifyKey(v, lowerASCII(v))
	return named
}

// isLocation reports whether t is a line and column after a file name,
// such as "12:" or "12:5:".
func isLocation(t string) bool {
	if !strings.HasSuffix(t, ":") {
		return false
	}
	for _, n := range strings.Split(t[:len(t)-1], ":") {
		if n == "" || strings.Trim(n, "0123456789") != "" {
			return false
		}
	}
	return true
}

// isTypeName reports whether t, after "key:", is a type rather than a
// value: token: string, password: str, secret: Option<String>.
func isTypeName(t string) bool {
	t = strings.TrimLeft(t, "&*?")
	if i := strings.IndexAny(t, "<[|?("); i > 0 {
		t = t[:i]
	}
	switch lowerASCII(t) {
	case "string", "str", "bool", "boolean", "int", "integer", "number", "any", "unknown",
		"bytes", "object", "secretstr", "secretstring", "secretbytes", "text", "option",
		"optional", "secret", "maybe", "nullable", "vec", "box", "array", "list", "uuid",
		"char", "byte", "rune":
		return true
	}
	return false
}

// inAuthHeader reports whether the word at keyStart is an Authorization
// header's scheme ("Authorization: Token 9944b..."), which the header rule
// names.
func inAuthHeader(s string, keyStart int) bool {
	before := strings.TrimRight(s[max(0, keyStart-32):keyStart], " \t")
	return strings.HasSuffix(lowerASCII(before), "authorization:")
}

// bareCredential reports whether a word right after a secret's name, with
// no "is" or colon between them, is its value: at least eight letters and
// digits that alternate at least three times, as generated passwords do and
// words, versions and algorithm names (sha256, utf8mb4, v2beta1) do not.
func bareCredential(t string) bool {
	if len(t) < 8 || len(t) > 256 {
		return false
	}
	switches := 0
	prev := byte(0)
	for i := 0; i < len(t); i++ {
		c := t[i]
		var class byte
		switch {
		case isDigit(c):
			class = 'd'
		case isAlpha(c):
			class = 'a'
		case c == '-' || c == '_' || c == '!' || c == '@' || c == '#' || c == '%' || c == '^' || c == '&' || c == '*' || c == '+':
			continue
		default:
			return false
		}
		if prev != 0 && class != prev {
			switches++
		}
		prev = class
	}
	return switches >= 3
}

// looksLikeCredential reports whether a word in a sentence after "key:" is
// a credential rather than a word: it has letters and digits.
func looksLikeCredential(t string) bool {
	return len(t) >= 6 && hasDigit(t) && hasAlpha(t)
}

// isPlainWord reports whether t could be a word of a sentence: letters,
// digits and the punctuation inside words, not "a=b" or "host:port".
func isPlainWord(t string) bool {
	for i := 0; i < len(t); i++ {
		if c := t[i]; !isAlnum(c) && c < 0x80 && strings.IndexByte("-'.!?", c) < 0 {
			return false
		}
	}
	return true
}

// isStopword reports whether the word after a flag is prose, as in "pass
// --token to the command".
func isStopword(t string) bool {
	switch lowerASCII(t) {
	case "a", "an", "the", "to", "and", "or", "is", "are", "was", "be", "with", "for", "when",
		"if", "in", "on", "of", "as", "at", "by", "from", "that", "this", "it", "flag", "option",
		"argument", "arg", "parameter", "param", "value", "instead", "only", "must", "should",
		"can", "will", "not", "also", "so", "but", "then", "which", "you", "we", "i", "here",
		"there", "option.", "flag.", "flag,", "option,":
		return true
	}
	return false
}

// classifyKey reports whether key names a secret, and which marker kind its
// value gets. key is split into words at '_', '-', '.', camelCase and digits
// (lower is key in lower case, for comparisons). A word that names a
// secret is one of:
//
//	*password*, *passwd*, *passphrase*, pwd      -> password
//	*secret* (not secrets, secretary), token, *token (accessToken),
//	*credential*, dsn, connection string,
//	api/access/private/auth/signing/encryption/master key  -> secret
//
// "tokens" is not: input_tokens and max_tokens fill every transcript. The
// key is not a secret when a later word says it is about the secret rather
// than the secret itself (token_type, password_file, secret_name,
// TOKEN_URL, --password-stdin), or an earlier one counts or pages
// (max_token, next_page_token). PWD alone is the shell's working
// directory. AWS secret keys get their own kind.
func classifyKey(key, lower string) (string, bool) {
	var buf [16][2]int
	parts := keyParts(key, buf[:0])
	word := func(i int) string {
		if i >= len(parts) {
			return ""
		}
		return lower[parts[i][0]:parts[i][1]]
	}
	hit, kind := -1, ""
	for i := range parts {
		p, next := word(i), word(i+1)
		switch {
		case strings.Contains(p, "password") || strings.Contains(p, "passwd") ||
			strings.Contains(p, "passphrase") || p == "pwd":
			kind = kindPassword
		case strings.Contains(p, "secret") && !strings.HasSuffix(p, "secrets") && !strings.HasPrefix(p, "secretar"),
			p == "token",
			strings.HasSuffix(p, "token") && !pagingWord(strings.TrimSuffix(p, "token")),
			strings.Contains(p, "credential"),
			p == "dsn",
			p == "connectionstring" || p == "connstring",
			(p == "connection" || p == "conn") && next == "string",
			next == "key" && keyQualifier(p),
			strings.Contains(p, "apikey") || strings.Contains(p, "accesskey") || strings.Contains(p, "privatekey"),
			strings.HasSuffix(p, "key") && keyQualifier(strings.TrimSuffix(p, "key")):
			kind = kindSecret
		default:
			continue
		}
		hit = i
		break
	}
	if hit < 0 {
		return "", false
	}
	if len(parts) == 1 && word(0) == "pwd" && key[0] != '-' {
		return "", false
	}
	for i := range parts {
		w := word(i)
		if (i > hit && aboutWord(w)) || (i < hit && pagingWord(w)) {
			return "", false
		}
	}
	if kind == kindSecret && strings.Contains(lower, "secret") &&
		(strings.Contains(lower, "aws") || strings.Contains(lower, "secretaccesskey")) {
		kind = kindAWSSecret
	}
	return kind, true
}

// lineValued reports whether the key's value is a connection string, which
// has blanks and semicolons of its own and runs to the end of the line.
func lineValued(lowerKey string) bool {
	return strings.Contains(lowerKey, "dsn") || strings.Contains(lowerKey, "connection") || strings.Contains(lowerKey, "connstr")
}

func keyQualifier(w string) bool {
	switch w {
	case "api", "access", "private", "auth", "signing", "encryption", "master", "secret", "account":
		return true
	}
	return false
}

// pagingWord: a word before "token" that makes it a counter or a cursor.
func pagingWord(w string) bool {
	switch w {
	case "max", "min", "num", "no", "page", "next", "continuation", "cancellation", "sync":
		return true
	}
	return false
}

// aboutWord: a word after the secret's name that makes the key describe
// the secret (where it is, what it is called, how long it lives) rather
// than hold it.
func aboutWord(w string) bool {
	switch w {
	case "path", "file", "filename", "files", "dir", "directory", "url", "uri", "endpoint",
		"host", "hostname", "name", "arn", "ref", "type", "kind", "count",
		"length", "len", "size", "limit", "max", "min", "ttl", "expiry", "expires",
		"expiration", "expire", "expired", "lifetime", "timeout", "age", "at", "helper",
		"process", "command", "cmd", "env", "var", "header", "field", "param", "prefix",
		"mode", "format", "policy", "version", "location", "source", "provider", "hint",
		"label", "stdin", "from", "prompt", "rotation", "required", "enabled", "regex",
		"pattern", "manager", "selector", "usage", "budget", "cost", "limits", "index":
		return true
	}
	return false
}

// keyParts splits key into words at non-alphanumerics, camelCase humps
// (APIKey is API Key) and between letters and digits.
func keyParts(key string, buf [][2]int) [][2]int {
	start := -1
	for i := 0; i <= len(key); i++ {
		if i == len(key) || !isAlnum(key[i]) {
			if start >= 0 {
				buf = append(buf, [2]int{start, i})
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
			continue
		}
		c, p := key[i], key[i-1]
		if isDigit(c) != isDigit(p) ||
			isUpper(c) && isLower(p) ||
			isUpper(c) && isUpper(p) && i+1 < len(key) && isLower(key[i+1]) {
			buf = append(buf, [2]int{start, i})
			start = i
		}
	}
	return buf
}
