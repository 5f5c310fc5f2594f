package hookevent

import (
	"slices"
	"testing"
	"time"
)

func TestTable(t *testing.T) {
	tab := Table{{"SessionStart", 8 * time.Second, 20}, {"Stop", 2 * time.Second, 10}}
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
