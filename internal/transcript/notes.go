package transcript

import (
	"strings"
	"time"
)

// assistantText keeps the latest texts and the decisions in them.
// Decisions are cleaned of secrets as they are kept; the latest texts,
// most of which are soon replaced, are cleaned once at the end of the
// update that brought them (cleanTexts).
func (s *Session) assistantText(text string, ts time.Time, line int) {
	text = strings.TrimSpace(text)
	if text == "" {
		return
	}
	s.LastTexts = append(s.LastTexts, Note{Time: ts, Line: line, Text: text})
	s.rawTexts = true
	if len(s.LastTexts) > maxLastTexts {
		s.LastTexts = append(s.LastTexts[:0], s.LastTexts[len(s.LastTexts)-maxLastTexts:]...)
	}
	for _, d := range Decisions(text) {
		s.Decisions = append(s.Decisions, Note{Time: ts, Line: line, Text: keep(d, maxNoteBytes)})
	}
	if len(s.Decisions) > maxDecisions {
		s.Decisions = append(s.Decisions[:0], s.Decisions[len(s.Decisions)-maxDecisions:]...)
	}
}

// Decisions picks the sentences of an assistant's text that state a choice
// and its reason ("I'll use X because Y", "X rather than Y", "Decision:
// ..."). It is a heuristic on wording: it prefers missing a decision to
// filling a checkpoint with chatter.
func Decisions(text string) []string {
	// Every decision needs a reason, an alternative or the word itself:
	// most texts have none and are not split into sentences at all. The
	// gate is case-sensitive on purpose (cheap, and the words are nearly
	// always written in lower case or capitalised).
	if !containsAny(text, gateCues) {
		return nil
	}
	var out []string
	for _, sent := range Sentences(text) {
		l := strings.ToLower(sent)
		explicit := strings.HasPrefix(strings.TrimLeft(l, "*#-> "), "decision")
		alt := containsAny(l, alternativeCues)
		if explicit || alt || (containsAny(l, decisionCues) && containsAny(l, reasonCues)) {
			out = append(out, truncate(sent, maxNoteBytes))
		}
	}
	return out
}

var (
	decisionCues = []string{
		"decided", "decide to", "decision", "i'll use", "i will use", "we'll use", "we will use",
		"i'll go with", "going with", "go with", "went with", "chose ", "choosing", "opted", "switch to", "switching to",
		"switched to", "picked", "pick ", "settled on", "settle on", "prefer", "let's use", "i'll keep", "we'll keep",
		"i'll stick", "sticking with", "i'd ", "we'd ", "i would ", "we would ", "recommend", "suggest",
	}
	reasonCues      = []string{"because", "since ", "so that", "to avoid", "due to", "given that", "which means", "otherwise"}
	alternativeCues = []string{" instead of ", " rather than "}
	gateCues        = append(append([]string{"ecision", "Because", "Since ", "Rather than", "Instead of"}, reasonCues...), alternativeCues...)
)

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// Sentences splits text into trimmed sentences and lines, leaving out code
// blocks, which hold no sentences worth keeping.
func Sentences(text string) []string {
	var out []string
	inCode := false
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") {
			inCode = !inCode
			continue
		}
		if inCode || t == "" {
			continue
		}
		start := 0
		for i := 0; i < len(t); i++ {
			c := t[i]
			if (c == '.' || c == '!' || c == '?') && (i+1 == len(t) || t[i+1] == ' ') {
				// Not after a single letter or a number ("e.g.", "v1.2").
				if sent := strings.TrimSpace(t[start : i+1]); len(sent) > 3 {
					out = append(out, sent)
				}
				start = i + 1
			}
		}
		if sent := strings.TrimSpace(t[start:]); len(sent) > 3 {
			out = append(out, sent)
		}
	}
	return out
}

// cleanTexts cleans the latest texts that came in raw: no caller ever sees
// a Session with them uncleaned.
func (s *Session) cleanTexts() {
	if s.rawTexts {
		for i := range s.LastTexts {
			s.LastTexts[i].Text = keep(s.LastTexts[i].Text, maxTextBytes)
		}
		s.rawTexts = false
	}
	s.Ledger.Clean(func(t string) string { return keep(t, maxNoteBytes) })
}
