package hookevent

import (
	"slices"
	"testing"
	"time"
)

func TestTable(t *testing.T) {
	tab := Table{{Name: "SessionStart", Budget: 8 * time.Second, Timeout: 20}, {Name: "Stop", Budget: 2 * time.Second, Timeout: 10, OneCPU: true}}
	tests := []struct {
		name string
		want Event
		ok   bool
	}{
		{"SessionStart", tab[0], true},
		{"Stop", tab[1], true},
		{"stop", Event{}, false},
		{"", Event{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, ok := tab.Lookup(tt.name); got != tt.want || ok != tt.ok {
				t.Errorf("Lookup(%q) = %+v, %v; want %+v, %v", tt.name, got, ok, tt.want, tt.ok)
			}
		})
	}
	if got, want := tab.Names(), []string{"SessionStart", "Stop"}; !slices.Equal(got, want) {
		t.Errorf("Names() = %q, want %q", got, want)
	}
	if got := Table(nil).Names(); len(got) != 0 {
		t.Errorf("an empty table has names %q", got)
	}
}

// TestEnv: a OneCPU event's command line starts with OneCPUEnv, and
// TrimEnv takes it off again, leaving any other command as it is.
func TestEnv(t *testing.T) {
	if got := (Event{Name: "Stop", OneCPU: true}).Env(); got != "GOMAXPROCS=1 " {
		t.Errorf("a OneCPU event's Env is %q", got)
	}
	if got := (Event{Name: "Stop"}).Env(); got != "" {
		t.Errorf("an event's Env is %q", got)
	}
	tests := map[string]string{
		"GOMAXPROCS=1 /bin/cairn hook Stop":      "/bin/cairn hook Stop",
		" GOMAXPROCS=1\t'/my bin/cairn' hook X ": "'/my bin/cairn' hook X",
		"/bin/cairn hook Stop":                   "/bin/cairn hook Stop",
		"GOMAXPROCS=12 /bin/cairn hook Stop":     "GOMAXPROCS=12 /bin/cairn hook Stop",
		"GOMAXPROCS=1":                           "GOMAXPROCS=1",
		"GOMAXPROCS=1;/bin/cairn hook Stop":      "GOMAXPROCS=1;/bin/cairn hook Stop",
		"":                                       "",
	}
	for in, want := range tests {
		if got := TrimEnv(in); got != want {
			t.Errorf("TrimEnv(%q) = %q, want %q", in, got, want)
		}
	}
}
