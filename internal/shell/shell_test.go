package shell

import (
	"os/exec"
	"slices"
	"testing"
)

// words people quote: commands, paths with spaces and quotes, and strings
// made to test the quoting.
var cases = []string{
	"", "~/.claude/statusline.sh", "/opt/my tools/cairn", "/it's/cairn", `bash -c 'echo "$(whoami)"'`,
	"a'b", "'", "''", `\`, `"`, "$HOME `id` $(id)", "line\nbreak\r\n", "tab\there", "日本 🎉", "--chain x",
	"a=b", "#not a comment", "!x", "~", "*", "a,b",
}

// A real sh reads back the very string Quote quoted, and so do Words and
// FirstWord.
func TestQuoteReadsBack(t *testing.T) {
	_, err := exec.LookPath("sh")
	for _, s := range cases {
		q := Quote(s)
		if err == nil {
			if out, err := exec.Command("sh", "-c", `printf '%s' `+q).Output(); err != nil || string(out) != s {
				t.Errorf("sh read %q back as %q (%v)", s, out, err)
			}
		}
		if w, ok := Words(q + " next"); !ok || !slices.Equal(w, []string{s, "next"}) {
			t.Errorf("Words(%q) = %q, %v", q+" next", w, ok)
		}
		if w, rest := FirstWord(q + " hook Stop"); w != s || rest != " hook Stop" {
			t.Errorf("FirstWord(%q) = %q, %q", q+" hook Stop", w, rest)
		}
	}
}

func TestWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		ok   bool
	}{
		{`sed -i "s/a/b/" file.txt`, []string{"sed", "-i", "s/a/b/", "file.txt"}, true},
		{`echo "a \"b\" c"`, []string{"echo", `a "b" c`}, true},
		{`cat 'unterminated`, nil, false},
		{"a\\\nb", []string{"ab"}, true},
	}
	for _, tt := range tests {
		got, ok := Words(tt.in)
		if ok != tt.ok || !slices.Equal(got, tt.want) {
			t.Errorf("Words(%q) = %q, %v; want %q, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func FuzzWords(f *testing.F) {
	for _, s := range cases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if w, ok := Words(Quote(s)); !ok || len(w) != 1 || w[0] != s {
			t.Fatalf("Words(Quote(%q)) = %q, %v", s, w, ok)
		}
	})
}
