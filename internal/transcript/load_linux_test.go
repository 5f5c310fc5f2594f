package transcript

import "testing"

func TestRunningMore(t *testing.T) {
	cases := []struct {
		loadavg string
		cpus    int
		want    bool
	}{
		{"0.52 0.58 0.59 1/467 12345\n", 2, false},
		{"0.52 0.58 0.59 2/467 12345\n", 2, false},
		{"12.10 9.80 7.00 3/467 12345\n", 2, true},
		{"20.40 19.16 16.36 15/239 19335\n", 8, true},
		{"20.40 19.16 16.36 15/239 19335\n", 16, false},
		{"", 2, false},
		{"1 2 3", 2, false},
		{"1 2 3 x/4 5", 2, false},
		{"1 2 3 9 5", 2, false},
	}
	for _, c := range cases {
		t.Run(c.loadavg, func(t *testing.T) {
			if got := runningMore([]byte(c.loadavg), c.cpus); got != c.want {
				t.Errorf("runningMore(%q, %d) = %v, want %v", c.loadavg, c.cpus, got, c.want)
			}
		})
	}
}
