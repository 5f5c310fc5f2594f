package transcript

import "sync"

// cueSet finds whether a text holds any of a set of strings in one pass
// over its bytes (an Aho-Corasick automaton, every transition worked out
// in advance). The gates of Decisions and findings ask that of every
// assistant text, and most texts hold none of their 40 to 50 cues:
// strings.Contains once per cue read each such text as many times, about
// a tenth of a cold read's CPU on a long session (docs/benchmarks.md,
// issue 15). It answers exactly what containsAny over the same strings
// does (TestCueSet, FuzzCueSet).
type cueSet struct {
	next [][256]uint16 // next[state][byte]: the state after that byte
	hit  []bool        // the state ends a cue
}

// newCueSet builds the automaton of the strings in lists. An empty string
// is in every text.
func newCueSet(lists ...[]string) *cueSet {
	c := &cueSet{next: make([][256]uint16, 1), hit: make([]bool, 1)}
	// The trie, with 0 for "no edge" (state 0, the root, is never an
	// edge's end).
	for _, list := range lists {
		for _, s := range list {
			at := 0
			for i := 0; i < len(s); i++ {
				n := int(c.next[at][s[i]])
				if n == 0 {
					n = len(c.next)
					c.next = append(c.next, [256]uint16{})
					c.hit = append(c.hit, false)
					c.next[at][s[i]] = uint16(n)
				}
				at = n
			}
			c.hit[at] = true
		}
	}
	// Breadth first, each state's missing edges are its failure state's
	// (the longest proper suffix of its string that is a trie state),
	// which is done already; a state ends a cue when its failure does.
	fail := make([]uint16, len(c.next))
	queue := make([]uint16, 0, len(c.next))
	for b := range 256 {
		if n := c.next[0][b]; n != 0 {
			queue = append(queue, n)
		}
	}
	for len(queue) > 0 {
		at := queue[0]
		queue = queue[1:]
		f := fail[at]
		c.hit[at] = c.hit[at] || c.hit[f]
		for b := range 256 {
			n := c.next[at][b]
			if n == 0 {
				c.next[at][b] = c.next[f][b]
				continue
			}
			fail[n] = c.next[f][b]
			queue = append(queue, n)
		}
	}
	return c
}

// in says whether s holds one of the set's strings.
func (c *cueSet) in(s string) bool {
	if c.hit[0] {
		return true
	}
	at := uint16(0)
	next, hit := c.next, c.hit
	for i := 0; i < len(s); i++ {
		at = next[at][s[i]]
		if hit[at] {
			return true
		}
	}
	return false
}

// The gates' sets are built on first use: a hook that reads no assistant
// text in full never builds them.
var (
	decisionGate = sync.OnceValue(func() *cueSet { return newCueSet(append(gateCues, refusalGate)...) })
	findingGate  = sync.OnceValue(func() *cueSet { return newCueSet(shapeGate...) })
)
