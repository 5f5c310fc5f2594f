package pressure

import (
	"testing"

	"github.com/cairn-agent/cairn/internal/meter"
)

func TestLevel(t *testing.T) {
	r := func(tokens int64) meter.Reading {
		return meter.Reading{Tokens: tokens, Window: 200000, Threshold: 167000}
	}
	c := Default()
	for tokens, want := range map[int64]int{0: 0, 116899: 0, 116900: 1, 141950: 2, 158650: 3, 190000: 3} {
		if got := c.Level(r(tokens)); got != want {
			t.Errorf("Level(%d) = L%d, want L%d (%.1f%%)", tokens, got, want, c.Percent(r(tokens)))
		}
	}
	w := Config{Base: OfWindow, Levels: [3]float64{70, 85, 95}}
	if got := w.Level(r(141000)); got != 1 {
		t.Errorf("window base: L%d", got)
	}
	off := meter.Reading{Tokens: 150000, Window: 200000} // auto-compact off
	if got := c.Level(off); got != 1 {                   // 75% of the window
		t.Errorf("no threshold falls back to the window: L%d", got)
	}
	for name, p := range Presets {
		if err := p.Validate(); err != nil {
			t.Errorf("preset %s: %v", name, err)
		}
	}
	if (Config{Base: OfWindow, Levels: [3]float64{80, 70, 95}}).Validate() == nil {
		t.Error("falling levels accepted")
	}
}

func TestParseLevels(t *testing.T) {
	if ls, err := ParseLevels("L2, l3"); err != nil || len(ls) != 2 || ls[0] != 2 || ls[1] != 3 {
		t.Errorf("%v %v", ls, err)
	}
	if ls, err := ParseLevels("none"); err != nil || len(ls) != 0 {
		t.Errorf("%v %v", ls, err)
	}
	if _, err := ParseLevels("L4"); err == nil {
		t.Error("L4 accepted")
	}
}
