package text

import (
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

func TestClip(t *testing.T) {
	tests := []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"a longer sentence", 10, "a longe…"},
		{"日本語のテキスト", 10, "日本…"},
		{"abc", 0, "…"},
	}
	for _, tt := range tests {
		got := Clip(tt.s, tt.n)
		if got != tt.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
		if len(got) > max(tt.n, len(Ellipsis)) || !utf8.ValidString(got) {
			t.Errorf("Clip(%q, %d) = %q: %d bytes", tt.s, tt.n, got, len(got))
		}
	}
	if got := ClipLine("a\n\tb  c\r\n", 100); got != "a b c" {
		t.Errorf("ClipLine = %q", got)
	}
}

func FuzzClip(f *testing.F) {
	f.Add("日本語 text", 5)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < 0 || n > 1<<16 || !utf8.ValidString(s) {
			return
		}
		got := Clip(s, n)
		if !utf8.ValidString(got) || len(got) > max(n, len(Ellipsis)) {
			t.Fatalf("Clip(%q, %d) = %q", s, n, got)
		}
		if got != s && !strings.HasSuffix(got, Ellipsis) {
			t.Fatalf("cut without a mark: %q", got)
		}
	})
}

func TestAgo(t *testing.T) {
	for d, want := range map[time.Duration]string{-time.Second: "0s", 45 * time.Second: "45s", 12 * time.Minute: "12m",
		3*time.Hour + 5*time.Minute: "3h05m", 100 * time.Hour: "4d"} {
		if got := Ago(d); got != want {
			t.Errorf("Ago(%v) = %q, want %q", d, got, want)
		}
	}
	for d, want := range map[time.Duration]string{30 * time.Second: "moments", 12 * time.Minute: "12 min", 5 * time.Hour: "5 h", 100 * time.Hour: "4 days"} {
		if got := AgoWords(d); got != want {
			t.Errorf("AgoWords(%v) = %q, want %q", d, got, want)
		}
	}
}

func TestAge(t *testing.T) {
	for d, want := range map[time.Duration]string{
		-time.Second: "0s", 0: "0s", 59 * time.Second: "59s", time.Minute: "1m", 59*time.Minute + 59*time.Second: "59m",
		time.Hour: "1h", 47 * time.Hour: "47h", 48 * time.Hour: "2d", 400 * time.Hour: "16d",
	} {
		if got := Age(d); got != want {
			t.Errorf("Age(%v) = %s, want %s", d, got, want)
		}
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0 B", 1023: "1023 B", 1024: "1.0 KB", 14 << 10: "14 KB", 3<<20 + 200<<10: "3.2 MB", 2 << 30: "2.0 GB", 5 << 40: "5.0 TB",
	} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestGist(t *testing.T) {
	tests := []struct {
		name string
		s    string
		n    int
		want string
	}{
		{"fits", "short enough", 40, "short enough"},
		{"one clause is clipped from its head", "a single long clause without any punctuation that could split it", 30, "a single long clause withou…"},
		{"the flags after a preamble",
			"Two ground rules, and I'm serious about both: please don't touch anything under third_party/, it's vendored and the platform team owns it (they get grumpy, and rightly so); and whatever we end up with has to stay green with both -c opt and --config=asan, because that's exactly what CI runs on every merge.",
			240,
			"Two ground rules, … please don't touch anything under third_party/, it's vendored and the platform team owns it (they get grumpy, and rightly so); and whatever we end up with has to stay green with both -c opt and --config=asan,…"},
		{"the question at the end of a long prompt",
			"Hi! So, a bit of context before you dive in, sorry this is long, and thanks for picking it up today. The team has been busy and the release is close. Also one thing I'd love to know at some point: does anything under services/ still call the deprecated EncodeLegacy()? Thanks!",
			150,
			"Hi! … Also one thing I'd love to know at some point: does anything under services/ still call the deprecated EncodeLegacy()? Thanks!"},
		{"who and why in an answer, not its idle clauses",
			"Oh, please do leave the receipt formatter alone, if you'd be so kind: that code belongs to Tomasz's team and they're rewriting it this sprint, so I'll mention the failing spec to them myself. What I would love, whenever you have a moment and certainly no rush, is a line in CHANGELOG.md under Unreleased.",
			200,
			"… that code belongs to Tomasz's team and they're rewriting it this sprint, so I'll mention the failing spec to them myself. What I would love, whenever you have a moment and certainly no rush,…"},
		{"a heading's capitals are no names",
			"Research done: ## SessionStart Hook Output Contract ### 1. JSON Format for Injecting Context To inject context at session startup, your hook should output JSON to stdout with this structure: `{\"hookSpecificOutput\": {}}`, and nothing else.",
			120,
			"… your hook should output JSON to stdout with this structure: `{\"hookSpecificOutput\": {}}`, and nothing else."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Gist(tt.s, tt.n); got != tt.want {
				t.Errorf("Gist(%d) =\n%q\nwant\n%q", tt.n, got, tt.want)
			}
		})
	}
}

func FuzzGist(f *testing.F) {
	f.Add("please don't touch third_party/, and keep -c opt green, thanks", 30)
	f.Add("a, b, c, d: e? f.", 4)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < 0 || n > 1<<16 || !utf8.ValidString(s) {
			return
		}
		got := Gist(s, n)
		if !utf8.ValidString(got) || len(got) > max(n, len(Ellipsis)) {
			t.Fatalf("Gist(%q, %d) = %q (%d bytes)", s, n, got, len(got))
		}
		if got != s && got != OneLine(s) && !strings.Contains(got, Ellipsis) {
			t.Fatalf("cut without a mark: %q", got)
		}
	})
}

// An error chain's cause is at its end: GistError keeps it.
func TestGistError(t *testing.T) {
	s := `fatal: [web1]: FAILED! => {"changed": false, "cmd": ["sshd", "-t", "-f", "/etc/ssh/sshd_config.new"], "msg": "non-zero return code", "rc": 255, "stderr": "/etc/ssh/sshd_config.new line 31: Bad configuration option: KexAlgorithm"}`
	got := GistError(s, 160)
	if !strings.Contains(got, "Bad configuration option: KexAlgorithm") || len(got) > 160 {
		t.Errorf("GistError = %q", got)
	}
	if got := Gist(s, 160); !strings.HasPrefix(got, "fatal: [web1]") {
		t.Errorf("Gist = %q: the head carries as much", got)
	}
}

func TestClipMiddle(t *testing.T) {
	retry := "gcloud iam service-accounts keys delete 7f3c9a1e5b2d4c8f6a0e1d3b9c7f5a2e4d6b8c0a --iam-account=ci-artifacts-ro@shipyard-ci.iam.gserviceaccount.com --quiet --impersonate-service-account=incident-responder@shipyard-sec.iam.gserviceaccount.com"
	got := ClipMiddle(retry, 160)
	if len(got) > 160 || !strings.HasPrefix(got, "gcloud iam service-accounts keys delete") || !strings.HasSuffix(got, "--impersonate-service-account=incident-responder@shipyard-sec.iam.gserviceaccount.com") || !strings.Contains(got, " … ") {
		t.Errorf("ClipMiddle = %q (%d bytes)", got, len(got))
	}
	if got := ClipMiddle("go test\n  ./...", 160); got != "go test ./..." {
		t.Errorf("a short line: %q", got)
	}
}

func FuzzClipMiddle(f *testing.F) {
	f.Add("日本語 text and more words than fit", 30)
	f.Fuzz(func(t *testing.T, s string, n int) {
		if n < 0 || n > 1<<16 || !utf8.ValidString(s) {
			return
		}
		got := ClipMiddle(s, n)
		if !utf8.ValidString(got) || len(got) > max(n, len(Ellipsis)) {
			t.Fatalf("ClipMiddle(%q, %d) = %q", s, n, got)
		}
		if got != OneLine(s) && !strings.Contains(got, Ellipsis) {
			t.Fatalf("cut without a mark: %q", got)
		}
	})
}
