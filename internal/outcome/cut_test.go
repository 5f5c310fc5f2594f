package outcome

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCut(t *testing.T) {
	short := strings.Repeat("line\n", 100)
	if Cut(short) != short {
		t.Error("a short output was cut")
	}
	var b strings.Builder
	for i := 0; b.Len() < 1<<20; i++ {
		b.WriteString("ünïcode line of a long build log, number ")
		b.WriteString(strings.Repeat("x", i%50))
		b.WriteString("\n")
	}
	long := b.String() + "FAIL\texample.com/x\t0.1s\n"
	c := Cut(long)
	if len(c) > HeadBytes+TailBytes+64 {
		t.Errorf("cut to %d bytes", len(c))
	}
	if !utf8.ValidString(c) {
		t.Error("cut inside a rune")
	}
	if !strings.HasPrefix(long, c[:strings.Index(c, "... [")]) || !strings.HasSuffix(long, c[strings.Index(c, "] ...\n")+len("] ...\n"):]) {
		t.Error("the head or the tail is not the output's")
	}
	if !strings.Contains(c, " bytes cut] ...\n") {
		t.Errorf("no cut line in %q", c[HeadBytes-100:HeadBytes+100])
	}
	if Cut(c) != c {
		t.Error("Cut is not idempotent")
	}
	o := Judge("go test ./... 2>&1", long, code(0))
	if o.Status != Failed || o.Source != SourceOutput {
		t.Errorf("the verdict in the tail was lost: %s", o.Line())
	}
	if o := Judge("go build ./... 2>&1", strings.Repeat("building\n", 5000), code(0)); o.Source != SourceExit {
		t.Errorf("a cut output counted as complete: %s", o.Line())
	}
	if o := Judge("go build ./... 2>&1 | tail -5", strings.Repeat("building\n", 5000), code(0)); o.Status != Unknown {
		t.Errorf("a cut output counted as complete: %s", o.Line())
	}
}
