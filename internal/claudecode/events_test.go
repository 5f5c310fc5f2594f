package claudecode

import (
	"testing"
	"time"
)

// Every installed timeout leaves clear headroom over its handler's budget
// (issue 8: a 50 MB PostToolUse payload took 3.1 s under load against an
// installed 3 s), and every event is there once.
func TestTimeoutsExceedBudgets(t *testing.T) {
	seen := map[string]bool{}
	for _, e := range Events {
		if seen[e.Name] {
			t.Errorf("%s listed twice", e.Name)
		}
		seen[e.Name] = true
		timeout := time.Duration(e.Timeout) * time.Second
		if timeout < 2*e.Budget || timeout < e.Budget+3*time.Second {
			t.Errorf("%s: installed timeout %v, budget %v: want at least twice the budget and 3 s more", e.Name, timeout, e.Budget)
		}
	}
	if _, ok := Events.Lookup("Frobnicate"); ok {
		t.Error("Lookup found an event cairn does not handle")
	}
}
