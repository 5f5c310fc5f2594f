package redact

import (
	"encoding/base64"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

const (
	b62  = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	b64u = b62 + "_-"
	b32  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
)

func rnd(r *rand.Rand, alphabet string, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = alphabet[r.IntN(len(alphabet))]
	}
	return string(b)
}

// secretWord is a random password-like word with letters and digits.
func secretWord(r *rand.Rand) string {
	return rnd(r, "abcdefghjkmnpqrstuvwxyz", 4) + rnd(r, "0123456789", 2) + rnd(r, b62, 6+r.IntN(20))
}

// A plant is a secret in one of the forms String must redact, and the part
// of it that must not survive.
type plant struct {
	name string
	make func(r *rand.Rand) (text, core string)
}

func prefixed(prefix, alphabet string, n int) func(r *rand.Rand) (string, string) {
	return func(r *rand.Rand) (string, string) {
		c := rnd(r, "0123456789", 2) + rnd(r, alphabet, n-2)
		return prefix + c, c
	}
}

func assigned(format string) func(r *rand.Rand) (string, string) {
	return func(r *rand.Rand) (string, string) {
		w := secretWord(r)
		return strings.ReplaceAll(format, "%", w), w
	}
}

var plants = []plant{
	{"anthropic", prefixed("sk-"+"ant-api03-", b64u, 93)},
	{"openai project", prefixed("sk-"+"proj-", b64u, 48)},
	{"openai legacy", func(r *rand.Rand) (string, string) {
		c := "Ab1" + rnd(r, b62, 45)
		return "sk-" + c, c
	}},
	{"aws akia", prefixed("AK"+"IA", b32, 16)},
	{"aws asia", prefixed("AS"+"IA", b32, 16)},
	{"github ghp", prefixed("gh"+"p_", b62, 36)},
	{"github gho", prefixed("gh"+"o_", b62, 36)},
	{"github ghu", prefixed("gh"+"u_", b62, 36)},
	{"github ghs", prefixed("gh"+"s_", b62, 36)},
	{"github ghr", prefixed("gh"+"r_", b62, 36)},
	{"github pat", prefixed("github"+"_pat_", b62+"_", 82)},
	{"gitlab", prefixed("gl"+"pat-", b64u, 20)},
	{"slack", func(r *rand.Rand) (string, string) {
		c := rnd(r, "0123456789", 12) + "-" + rnd(r, b62, 24)
		return "xo" + "xp-" + c, c
	}},
	{"google", prefixed("AI"+"za", b64u, 35)},
	{"stripe", prefixed("sk"+"_live_", b62, 24)},
	{"stripe restricted", prefixed("rk"+"_live_", b62, 24)},
	{"npm", prefixed("np"+"m_", b62, 36)},
	{"jwt", func(r *rand.Rand) (string, string) {
		sig := rnd(r, b64u, 43)
		return "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiI" + rnd(r, b64u, 20) + "." + sig, sig
	}},
	{"bearer", func(r *rand.Rand) (string, string) {
		c := secretWord(r)
		return "Authorization: Bearer " + c, c
	}},
	{"basic", func(r *rand.Rand) (string, string) {
		c := base64.StdEncoding.EncodeToString([]byte("user:" + secretWord(r)))
		return "authorization: Basic " + c, c
	}},
	{"pem", func(r *rand.Rand) (string, string) {
		c := rnd(r, b62, 64)
		return "-----BEGIN " + "EC PRIVATE KEY-----\n" + c + "\n" + rnd(r, b62, 20) + "\n-----END EC PRIVATE KEY-----", c
	}},
	{"pem escaped", func(r *rand.Rand) (string, string) {
		c := rnd(r, b62, 64)
		return `-----BEGIN ` + `PRIVATE KEY-----\n` + c + `\n-----END PRIVATE KEY-----\n`, c
	}},
	{"pem unterminated", func(r *rand.Rand) (string, string) {
		c := rnd(r, b62, 64)
		return "-----BEGIN " + "RSA PRIVATE KEY-----\n" + c, c
	}},
	{"url", assigned("postgres://app:%@db.internal:5432/app")},
	{"env", assigned("DB_PASSWORD=%")},
	{"export", assigned(`export OPENAI_API_KEY="%"`)},
	{"aws secret", assigned("aws_secret_access_key = %")},
	{"yaml", assigned("client_secret: %")},
	{"json", assigned(`"access_token": "%"`)},
	{"json escaped", assigned(`\"password\": \"%\"`)},
	{"flag", assigned("--password %")},
	{"flag equals", assigned("--token=%")},
	{"xml", assigned("<password>%</password>")},
	{"header", assigned("X-Api-Key: %")},
	{"dsn", assigned("SENTRY_DSN=https://%@o1.ingest.sentry.io/2")},
}

// Planted secrets are delimited the way text delimits words: they are not
// glued to a letter or digit, which would make "AKIA..." part of a longer
// word.
var (
	before = []string{" ", "\n", "\t", `"`, "'", "(", "=", ":", ",", "[", "{", "\r\n", `\n`}
	after  = []string{" ", "\n", "\t", `"`, "'", ";", ",", ")", "\r\n", `\n`}
)

// plantIn puts the secret into text at i.
func plantIn(text string, i int, secret string, r *rand.Rand) string {
	return text[:i] + before[r.IntN(len(before))] + secret + after[r.IntN(len(after))] + text[i:]
}

// checkString checks the properties String has for every input.
func checkString(t *testing.T, in string) string {
	t.Helper()
	out := String(in)
	if again := String(out); again != out {
		t.Fatalf("not idempotent for %q:\n once %q\ntwice %q", in, out, again)
	}
	if utf8.ValidString(in) && !utf8.ValidString(out) {
		t.Fatalf("invalid UTF-8 out of valid %q: %q", in, out)
	}
	return out
}

// checkPlant plants a secret chosen by which and seed into text at pos and
// checks that it does not survive.
func checkPlant(t *testing.T, text string, pos int, which int, seed uint64) {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, uint64(which)))
	p := plants[which%len(plants)]
	secret, core := p.make(r)
	in := plantIn(text, pos%(len(text)+1), secret, r)
	if out := checkString(t, in); strings.Contains(out, core) {
		t.Fatalf("%s survived in %q:\n%q", p.name, in, out)
	}
}

// FuzzString: String never panics, is idempotent and keeps valid UTF-8
// valid, and a secret of any kind planted anywhere in the input does not
// survive it. It is seeded with the table's inputs and the benchmark text.
func FuzzString(f *testing.F) {
	for i, tc := range cases {
		f.Add(expand(tc.in), uint(i), uint(i), uint64(i))
	}
	for i, s := range benchBlocks {
		f.Add(s, uint(len(s)/2), uint(i), uint64(i))
	}
	f.Fuzz(func(t *testing.T, text string, pos, which uint, seed uint64) {
		checkString(t, text)
		checkPlant(t, text, int(pos%(1<<20)), int(which%(1<<20)), seed)
	})
}

// TestPlanted plants every kind of secret at random places in random text
// made of realistic pieces, the table's inputs among them.
func TestPlanted(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var pieces []string
	for _, tc := range cases {
		pieces = append(pieces, expand(tc.in))
	}
	pieces = append(pieces, benchBlocks...)
	pieces = append(pieces, "ünïcödé ✓ 日本語", "\x00\xff", "<private>", "</private>", `"`, "'", "\\", "=", ": ", "://", "@", "\n", "-----BEGIN ", "Bearer ", "${", "}", "(", ")")
	n := 3000
	if testing.Short() {
		n = 300
	}
	for i := range n {
		var b strings.Builder
		for range 1 + r.IntN(6) {
			p := pieces[r.IntN(len(pieces))]
			if len(p) > 400 {
				start := r.IntN(len(p) - 200)
				p = p[start : start+200]
			}
			b.WriteString(p)
		}
		text := b.String()
		for which := range plants {
			checkPlant(t, text, r.IntN(len(text)+1), which, uint64(i))
		}
	}
}
