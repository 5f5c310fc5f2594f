package statusline

import (
	"context"
	"os/exec"
	"testing"
	"time"
)

func TestChain(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	tests := []struct {
		name, command, want string
		env                 []string
		timeout             time.Duration
	}{
		{name: "first line", command: "printf 'mine\\nsecond\\n'", want: "mine"},
		{name: "no newline", command: "printf 'mine'", want: "mine"},
		{name: "CRLF", command: "printf 'mine\\r\\n'", want: "mine"},
		{name: "colours kept", command: `printf '\033[34mblue\033[0m\n'`, want: "\x1b[34mblue\x1b[0m"},
		{name: "same stdin", command: "cat", want: `{"session_id":"s"}`},
		// The environment given, not this process's: what the status
		// line's own command line set (GOMAXPROCS=1) is not the user's.
		{name: "own environment", command: `echo "${GOMAXPROCS-unset} $CAIRN_CHAIN_TEST"`, env: []string{"CAIRN_CHAIN_TEST=given"}, want: "unset given"},
		{name: "fails", command: "echo partial; exit 3", want: ""},
		{name: "not found", command: "/nonexistent/statusline.sh", want: ""},
		{name: "prints nothing", command: "true", want: ""},
		{name: "blank", command: "echo '   '", want: ""},
		{name: "stderr is not the line", command: "echo oops >&2", want: ""},
		{name: "times out", command: "sleep 5; echo late", timeout: 100 * time.Millisecond, want: ""},
		// The shell's children die with it: nothing holds the pipe open.
		{name: "times out with children", command: "sleep 5 & sleep 6; echo late", timeout: 100 * time.Millisecond, want: ""},
		// A background job that outlives a successful command holds its
		// output open; the line it printed stands.
		{name: "leaves a job behind", command: "sleep 2 & echo early", want: "early"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			timeout := tt.timeout
			if timeout == 0 {
				timeout = 5 * time.Second // generous on a loaded machine; the fast cases do not wait for it
			}
			start := time.Now()
			got := StartChain(context.Background(), tt.command, tt.env, []byte(`{"session_id":"s"}`+"\n"), timeout).Line()
			took := time.Since(start)
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if tt.timeout > 0 && took > tt.timeout+time.Second {
				t.Errorf("took %v with a %v timeout", took, tt.timeout)
			}
			if tt.name == "leaves a job behind" && took > 1500*time.Millisecond {
				t.Errorf("waited %v for a background job", took)
			}
		})
	}
}

func TestChainCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	c := StartChain(ctx, "sleep 5; echo late", nil, nil, 5*time.Second)
	cancel()
	done := make(chan string, 1)
	go func() { done <- c.Line() }()
	select {
	case got := <-done:
		if got != "" {
			t.Errorf("got %q", got)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("a cancelled chain still runs")
	}
}

func TestFirstLineCapped(t *testing.T) {
	w := &capped{max: 4}
	n, err := w.Write([]byte("abcdef"))
	if n != 6 || err != nil || w.String() != "abcd" {
		t.Errorf("%d %v %q", n, err, w.String())
	}
	if got := firstLine([]byte("a\r\nb")); got != "a" {
		t.Errorf("%q", got)
	}
}
