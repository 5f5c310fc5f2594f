package checkpoint

import "github.com/cairn-agent/cairn/internal/outcome"

// Memo keeps what Build derives from texts alone: a command's works, a
// failed run narrowed to a later one, the words of a finding, whether
// one statement overrules another. Within one build each failure is
// compared with every later call and each plan with every later
// statement, the same texts parsed again each time; across builds (the
// keep job builds the same session again at each tool result,
// continuity/ahead.go) nearly every text is one the last build parsed.
// Each value is a function of its key alone, so a build with a Memo,
// fresh or kept from builds of this or any other session, is the build
// without one (TestMemoBuildsTheSame).
//
// The zero Memo is ready. It is not safe for concurrent builds.
type Memo struct {
	works     map[string][]string
	narrowed  map[[2]string][]string
	wordsOf   map[string]map[string]bool
	overrules map[[2]string]bool
	long      map[string]bool
}

// maxMemo bounds each table: past it, the table starts again empty (a
// session that never stops growing keeps its memo at a bounded size, a
// few megabytes). The plans a build compares are pairs: a few hundred
// plans and prompts make tens of thousands.
const maxMemo = 1 << 17

// remember stores v under k in *m, made or emptied first as needed.
func remember[K comparable, V any](m *map[K]V, k K, v V) V {
	if *m == nil || len(*m) >= maxMemo {
		*m = make(map[K]V)
	}
	(*m)[k] = v
	return v
}

// worksOf is outcome.Works(command). The result is shared: read only.
func (m *Memo) worksOf(command string) []string {
	if ws, ok := m.works[command]; ok {
		return ws
	}
	return remember(&m.works, command, outcome.Works(command))
}

// narrowedTo is outcome.NarrowedTo(earlier, later). Read only.
func (m *Memo) narrowedTo(earlier, later string) []string {
	k := [2]string{earlier, later}
	if part, ok := m.narrowed[k]; ok {
		return part
	}
	return remember(&m.narrowed, k, outcome.NarrowedTo(earlier, later))
}

// words is wordsOf(s). The map is shared: read only.
func (m *Memo) words(s string) map[string]bool {
	if ws, ok := m.wordsOf[s]; ok {
		return ws
	}
	return remember(&m.wordsOf, s, wordsOf(s))
}

// overrule is overrules(later, earlier).
func (m *Memo) overrule(later, earlier string) bool {
	k := [2]string{later, earlier}
	if o, ok := m.overrules[k]; ok {
		return o
	}
	return remember(&m.overrules, k, overrules(later, earlier))
}

// longer says whether s has more words than a short reply (maxReply).
func (m *Memo) longer(s string) bool {
	if l, ok := m.long[s]; ok {
		return l
	}
	return remember(&m.long, s, len(fields(s)) > maxReply)
}
