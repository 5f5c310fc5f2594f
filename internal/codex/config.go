package codex

// Codex's configuration, as much as cairn reads of it: where it lives
// and the two numbers the meter needs. A tiny reader of top-level
// `key = integer` lines is enough for those (TOML's full grammar is not
// needed to find them), so cairn takes no TOML dependency.

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cairn-agent/cairn/internal/meter"
)

// Home is Codex's configuration directory: $CODEX_HOME, else ~/.codex.
func Home(getenv func(string) string) (string, error) {
	if d := getenv("CODEX_HOME"); d != "" {
		return filepath.Abs(d)
	}
	home := getenv("HOME")
	if home == "" {
		return "", errors.New("neither CODEX_HOME nor HOME is set")
	}
	return filepath.Join(home, ".codex"), nil
}

// Rules are the meter's rules for Codex: the window override (cairn's
// --window, CAIRN_CONTEXT_WINDOW) and model_context_window and
// model_auto_compact_token_limit from $CODEX_HOME/config.toml, where a
// project's .codex/config.toml overrides them (Codex reads that layer for
// a trusted project). A file that is missing or unreadable says nothing.
func Rules(getenv func(string) string, project string, window int64) meter.CodexRules {
	r := meter.CodexRules{Window: window}
	var files []string
	if home, err := Home(getenv); err == nil {
		files = append(files, filepath.Join(home, "config.toml"))
	}
	if project != "" {
		files = append(files, filepath.Join(project, ".codex", "config.toml"))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		if n, ok := TopLevelInt(data, "model_context_window"); ok {
			r.ConfigWindow = n
		}
		if n, ok := TopLevelInt(data, "model_auto_compact_token_limit"); ok {
			r.AutoCompactLimit = n
		}
	}
	return r
}

// TopLevelInt finds `key = <integer>` among a TOML document's top-level
// keys, before its first table header. Underscores between digits are
// allowed, as TOML allows them; a value that is not a positive integer
// is as good as missing.
func TopLevelInt(doc []byte, key string) (int64, bool) {
	sc := bufio.NewScanner(bytes.NewReader(doc))
	sc.Buffer(nil, 1<<20)
	var n int64
	found := false
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			break // a table: no longer top level
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || unquote(strings.TrimSpace(k)) != key {
			continue
		}
		v = strings.TrimSpace(v)
		if i := strings.IndexByte(v, '#'); i >= 0 {
			v = strings.TrimSpace(v[:i])
		}
		v = strings.TrimPrefix(v, "+")
		if strings.HasPrefix(v, "_") || strings.HasSuffix(v, "_") || strings.Contains(v, "__") {
			continue
		}
		x, err := strconv.ParseInt(strings.ReplaceAll(v, "_", ""), 10, 64)
		if err != nil || x <= 0 {
			found, n = false, 0 // the last one counts, and it is no number
			continue
		}
		n, found = x, true
	}
	return n, found
}

// unquote takes the quotes off a quoted TOML key.
func unquote(k string) string {
	if len(k) >= 2 && (k[0] == '"' && k[len(k)-1] == '"' || k[0] == '\'' && k[len(k)-1] == '\'') {
		return k[1 : len(k)-1]
	}
	return k
}

// TableStrings reads the string values of the TOML table whose header
// names path ([hooks.state."<key>"] is "hooks", "state", "<key>"): the
// `key = "value"` lines (basic or literal strings) between its header and
// the next one. ok is false when there is no such table. Like TopLevelInt
// it reads only what cairn needs of config.toml: headers on their own
// line, one key per line, no multi-line strings.
func TableStrings(doc []byte, path ...string) (map[string]string, bool) {
	sc := bufio.NewScanner(bytes.NewReader(doc))
	sc.Buffer(nil, 1<<20)
	var vals map[string]string
	in := false
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			if in {
				break
			}
			if keys, ok := header(line); ok && equalKeys(keys, path) {
				in, vals = true, map[string]string{}
			}
			continue
		}
		if !in {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		if s, ok := tomlString(strings.TrimSpace(v)); ok {
			vals[unquote(strings.TrimSpace(k))] = s
		}
	}
	return vals, in
}

func equalKeys(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// header splits a table header line, [a."b.c".'d'], into its keys; an
// array of tables ([[x]]) or a malformed header is not one.
func header(line string) ([]string, bool) {
	if strings.HasPrefix(line, "[[") {
		return nil, false
	}
	rest := strings.TrimSpace(line[1:])
	var keys []string
	for {
		var key string
		switch {
		case strings.HasPrefix(rest, `"`):
			q, err := strconv.QuotedPrefix(rest)
			if err != nil {
				return nil, false
			}
			key, _ = strconv.Unquote(q)
			rest = rest[len(q):]
		case strings.HasPrefix(rest, "'"):
			end := strings.IndexByte(rest[1:], '\'')
			if end < 0 {
				return nil, false
			}
			key, rest = rest[1:1+end], rest[2+end:]
		default:
			end := strings.IndexFunc(rest, func(r rune) bool {
				return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-')
			})
			if end <= 0 {
				return nil, false
			}
			key, rest = rest[:end], rest[end:]
		}
		keys = append(keys, key)
		rest = strings.TrimSpace(rest)
		switch {
		case strings.HasPrefix(rest, "."):
			rest = strings.TrimSpace(rest[1:])
		case strings.HasPrefix(rest, "]"):
			tail := strings.TrimSpace(rest[1:])
			return keys, tail == "" || strings.HasPrefix(tail, "#")
		default:
			return nil, false
		}
	}
}

// tomlString reads a basic ("…") or literal ('…') string value, with an
// optional comment after it.
func tomlString(v string) (string, bool) {
	var s, rest string
	switch {
	case strings.HasPrefix(v, `"`):
		q, err := strconv.QuotedPrefix(v)
		if err != nil || strings.HasPrefix(q, "`") {
			return "", false
		}
		s, _ = strconv.Unquote(q)
		rest = v[len(q):]
	case strings.HasPrefix(v, "'"):
		end := strings.IndexByte(v[1:], '\'')
		if end < 0 {
			return "", false
		}
		s, rest = v[1:1+end], v[2+end:]
	default:
		return "", false
	}
	rest = strings.TrimSpace(rest)
	return s, rest == "" || strings.HasPrefix(rest, "#")
}
