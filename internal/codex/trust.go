package codex

// Codex runs a hook from hooks.json only once it is trusted (observed on
// 0.169.0: untrusted hooks are skipped without a word in `codex exec`).
// Its /hooks screen trusts one by writing, into $CODEX_HOME/config.toml,
//
//	[hooks.state."<abs hooks.json path>:<event_snake_case>:<group idx>:<handler idx>"]
//	trusted_hash = "sha256:<hex>"
//
// where the hash is of the handler's definition as compact JSON with
// sorted keys (see Hash). Editing a hook changes its hash, and it needs
// trust again. cairn writes these entries only when asked (install
// --trust): trusting is the user's decision, which the screen would
// otherwise show them.
//
// The edit of config.toml is textual, as the settings editor's of JSON
// is: an entry is one block appended at the end, and uninstall takes out
// the very bytes install added, so the file is given back as it was.

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// DefaultTimeout is the timeout Codex gives a hook without one, in
// seconds: it is part of the trusted hash.
const DefaultTimeout = 600

// Trust is one trust entry: the table's key and the trusted hash.
type Trust struct {
	Key, Hash string
}

// SnakeCase is an event's name as trust keys spell it: SessionStart is
// session_start.
func SnakeCase(event string) string {
	var b strings.Builder
	for i, r := range event {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Hash is the trusted hash of one command handler: sha256 of
// {"event_name","hooks":[{"async":false,"command","timeout","type":"command"}],"matcher"}
// as compact JSON with sorted keys, the matcher left out when there is
// none (nil; an empty one is there, and hashed) or the event takes none
// (UserPromptSubmit, Stop: observed for UserPromptSubmit on 0.169.0, whose
// hook with "matcher": "" ran only when trusted by the hash without it),
// and the timeout 600 when unset. Reproduces the hashes the real
// client wrote (internal/codex tests). Strings are encoded as serde_json
// does: no HTML escaping, non-ASCII as UTF-8 (not checked on the client:
// every hook the facts record is ASCII).
func Hash(event string, matcher *string, command string, timeout int) string {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	var b bytes.Buffer
	b.WriteString(`{"event_name":`)
	str(&b, SnakeCase(event))
	b.WriteString(`,"hooks":[{"async":false,"command":`)
	str(&b, command)
	b.WriteString(`,"timeout":` + strconv.Itoa(timeout) + `,"type":"command"}]`)
	if matcher != nil && !noMatcher(event) {
		b.WriteString(`,"matcher":`)
		str(&b, *matcher)
	}
	b.WriteString("}")
	sum := sha256.Sum256(b.Bytes())
	return "sha256:" + hex.EncodeToString(sum[:])
}

func str(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)           // a string always encodes
	b.Truncate(b.Len() - 1) // Encode's newline
}

// noMatcher says Codex ignores an event's matcher, and leaves it out of
// the hash.
func noMatcher(event string) bool { return event == "UserPromptSubmit" || event == "Stop" }

// Key is the trust table's key of a handler of hooks.json at path.
func Key(path, event string, group, handler int) string {
	return fmt.Sprintf("%s:%s:%d:%d", path, SnakeCase(event), group, handler)
}

// Entries are the trust entries of the command handlers in a hooks.json
// document at path that ours recognises, by where they are.
func Entries(doc []byte, path string, ours func(command string) bool) ([]Trust, error) {
	var f struct {
		Hooks map[string][]struct {
			Matcher *string `json:"matcher"`
			Hooks   []struct {
				Type    string `json:"type"`
				Command string `json:"command"`
				Timeout int    `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if len(bytes.TrimSpace(doc)) == 0 {
		return nil, nil
	}
	if err := json.Unmarshal(doc, &f); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var out []Trust
	for _, ev := range Events.Names() {
		for g, group := range f.Hooks[ev] {
			for h, hk := range group.Hooks {
				if hk.Type == "command" && ours(hk.Command) {
					out = append(out, Trust{Key: Key(path, ev, g, h), Hash: Hash(ev, group.Matcher, hk.Command, hk.Timeout)})
				}
			}
		}
	}
	return out, nil
}

// block is an entry as install appends it; tail is the same at the end
// of a file that had no final newline, which install leaves without one.
func block(t Trust) string {
	return "\n[hooks.state." + strconv.Quote(t.Key) + "]\ntrusted_hash = " + strconv.Quote(t.Hash) + "\n"
}

func tail(t Trust) string {
	b := block(t)
	return "\n" + b[:len(b)-1]
}

// AddTrust appends the entries config.toml lacks. An entry whose table
// is there already with another hash (an older cairn's, at the same
// place) gets the new hash in place. changed is false when nothing was
// needed, and doc is then returned as it was.
func AddTrust(doc []byte, entries []Trust) (out []byte, changed bool) {
	s := string(doc)
	for _, t := range entries {
		header := "[hooks.state." + strconv.Quote(t.Key) + "]"
		if i := strings.Index(s, "\n"+header+"\n"); i >= 0 || strings.HasPrefix(s, header+"\n") {
			start := i + 1 + len(header) + 1
			if i < 0 {
				start = len(header) + 1
			}
			line, _, _ := strings.Cut(s[start:], "\n")
			want := "trusted_hash = " + strconv.Quote(t.Hash)
			if strings.HasPrefix(strings.TrimSpace(line), "trusted_hash") && strings.TrimSpace(line) != want {
				s = s[:start] + want + s[start+len(line):]
				changed = true
			}
			continue
		}
		if s != "" && !strings.HasSuffix(s, "\n") {
			s += tail(t)
		} else {
			s += block(t)
		}
		changed = true
	}
	if !changed {
		return doc, false
	}
	return []byte(s), true
}

// RemoveTrust takes out the entries install added: the blocks whose key
// is a handler of the hooks.json at path and whose hash is one of
// hashes, exactly as AddTrust wrote them. A table of the user's, or one
// Codex rewrote in its own layout, stays.
func RemoveTrust(doc []byte, path string, hashes map[string]bool) (out []byte, changed bool) {
	s := string(doc)
	prefix := "\n[hooks.state." + strconv.Quote(path+":")
	prefix = prefix[:len(prefix)-1] // open the quoted key
	for {
		found := false
		for from := 0; ; {
			i := strings.Index(s[from:], prefix)
			if i < 0 {
				break
			}
			i += from
			from = i + 1
			t, n, ok := parseBlock(s[i:])
			if !ok || !hashes[t.Hash] || !strings.HasPrefix(t.Key, path+":") {
				continue
			}
			// A block at the very end of a file without a final newline
			// was appended with the newline before it.
			end := i + n
			if end == len(s) && !strings.HasSuffix(s, "\n") && i > 0 && s[i-1] == '\n' {
				i--
			}
			s = s[:i] + s[end:]
			found, changed = true, true
			break
		}
		if !found {
			break
		}
	}
	if !changed {
		return doc, false
	}
	return []byte(s), true
}

// parseBlock reads a block as block writes it, at the start of s (its
// final newline may be missing at the end of the file): the entry and
// its length.
func parseBlock(s string) (Trust, int, bool) {
	rest, ok := strings.CutPrefix(s, "\n[hooks.state.")
	if !ok {
		return Trust{}, 0, false
	}
	q, err := strconv.QuotedPrefix(rest)
	if err != nil {
		return Trust{}, 0, false
	}
	key, _ := strconv.Unquote(q)
	rest, ok = strings.CutPrefix(rest[len(q):], "]\ntrusted_hash = ")
	if !ok {
		return Trust{}, 0, false
	}
	hq, err := strconv.QuotedPrefix(rest)
	if err != nil {
		return Trust{}, 0, false
	}
	hash, _ := strconv.Unquote(hq)
	rest = rest[len(hq):]
	n := len(s) - len(rest)
	switch {
	case strings.HasPrefix(rest, "\n"):
		n++
	case rest != "":
		return Trust{}, 0, false
	}
	t := Trust{Key: key, Hash: hash}
	if block(t) != s[:n] && tail(t)[1:] != s[:n] {
		return Trust{}, 0, false // a spelling of Codex's, not install's
	}
	return t, n, true
}

// Untrusted are the entries config.toml does not trust with their hash,
// whoever wrote the trust (install --trust or Codex's /hooks screen):
// Codex skips those hooks without a word.
func Untrusted(config []byte, entries []Trust) []Trust {
	var out []Trust
	for _, t := range entries {
		if vals, _ := TableStrings(config, "hooks", "state", t.Key); vals["trusted_hash"] != t.Hash {
			out = append(out, t)
		}
	}
	return out
}
