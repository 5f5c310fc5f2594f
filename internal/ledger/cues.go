package ledger

// Cue words. The ledger reads the structure of a text first (headed lists,
// checkboxes, "Label: content" lines, question marks, code blocks, quotes)
// and uses words only for what structure cannot show: whether a statement
// is about something still to do (modality, "not ... yet", "still"),
// finished (completion verbs), a problem, or put off. Each class below is
// broad on purpose, a grammatical class rather than phrases collected from
// examples, and is matched on whole words, case-insensitively.

type cue uint32

const (
	// cOpen: adjectives and nouns of unfinished work.
	cOpen cue = 1 << iota
	// cStill, cYet, cLeft, cNext, cLater: adverbs whose meaning depends on
	// their neighbours (see clause.classify).
	cStill
	cYet
	cLeft
	cNext
	cLater
	// cDefer: putting off.
	cDefer
	// cProblem: nouns, verbs and adjectives of failure.
	cProblem
	// cNeg: negation of the verb.
	cNeg
	// cNone: negation of a quantity ("no remaining issues", "nothing left").
	cNone
	// cModal: modal and future auxiliaries, and verbs of intention.
	cModal
	// cDone: completion verbs and adjectives.
	cDone
	// cYou: the user addressed.
	cYou
	// cQuestion: the nouns of an open question.
	cQuestion
	// cAttempt: a failed attempt ("couldn't", "unable").
	cAttempt
	// cAux: auxiliaries that make a participle a statement of state
	// ("is fixed", "have added").
	cAux
	// cExcept: a clause that is an exception to what precedes it.
	cExcept
	// cBut: a clause boundary inside a sentence.
	cBut
	// cImmediate: "let (me)", "now": the assistant acts at once.
	cImmediate
	cTo
	cFor
	cScope
	cKnown
	cPlan
	cSubject // I, we: the assistant as the one who acts
	// cDismiss: something noticed and judged not to matter ("unrelated",
	// "harmless"): not an open item.
	cDismiss
	// cAll: a universal quantifier ("all", "everything").
	cAll
)

// wordCue classifies one lower-case word.
func wordCue(w []byte) cue {
	switch string(w) {
	case "remaining", "remain", "remains", "pending", "outstanding", "todo", "to-do", "todos",
		"unfinished", "incomplete", "unresolved", "unfixed", "unimplemented", "undone", "tbd", "wip",
		"unaddressed", "unhandled", "unanswered", "unverified", "untested", "uncommitted":
		return cOpen
	case "still":
		return cStill
	case "yet":
		return cYet
	case "left":
		return cLeft
	case "next":
		return cNext
	case "later", "afterwards", "eventually", "tomorrow", "someday":
		return cLater
	case "defer", "deferred", "deferring", "postpone", "postponed", "postponing", "follow-up",
		"followup", "follow-ups", "park", "parked", "backlog", "filed", "ticketed":
		return cDefer
	case "fail", "fails", "failing", "failure", "failures", "error", "errors", "broken", "breaks",
		"crash", "crashes", "crashing", "bug", "bugs", "buggy", "wrong", "flaky", "regression",
		"blocked", "blocker", "blockers", "blocking", "complain", "complains", "complaining",
		"reject", "rejects", "rejecting", "refuses", "missing", "issue", "issues", "problem",
		"problems", "warning", "warnings", "red", "caveat", "caveats", "limitation", "limitations",
		"risk", "risks", "leak", "leaks", "hangs", "timeout", "timeouts", "mismatch", "gap", "gaps":
		return cProblem
	case "not", "never", "cannot", "can't", "don't", "doesn't", "didn't", "isn't", "aren't",
		"wasn't", "weren't", "haven't", "hasn't", "hadn't", "won't", "wouldn't", "shouldn't",
		"dont", "doesnt", "didnt", "isnt", "arent", "havent", "hasnt", "wont", "cant", "shouldnt":
		return cNeg
	case "couldn't", "couldnt", "unable":
		return cAttempt | cNeg
	case "no", "nothing", "none", "zero", "without", "0", "nor":
		return cNone
	case "will", "shall", "should", "need", "needs", "needed", "must", "going", "gonna", "can",
		"could", "might", "may", "want", "wants", "i'll", "we'll", "you'll", "it'll", "let's",
		"ill", "we're", "i'd", "we'd", "have", "has", "required", "requires", "require":
		// have/has only count as modal before "to" (see clause.classify);
		// they are cAux as well.
		if string(w) == "have" || string(w) == "has" {
			return cModal | cAux
		}
		return cModal
	case "plan", "plans", "planned", "steps", "todo:", "roadmap":
		return cPlan
	case "done", "fixed", "complete", "completed", "finished", "resolved", "implemented", "passes",
		"passing", "passed", "pass", "works", "closed", "merged", "committed", "pushed", "added",
		"created", "wrote", "written", "updated", "removed", "renamed", "moved", "landed", "shipped",
		"addressed", "handled", "green", "succeeded", "succeeds", "verified", "solved", "clean",
		"cleanly", "applied", "wired", "migrated", "deployed", "released", "sorted", "ok", "compiles",
		"compiled", "builds", "succeed":
		return cDone
	case "you", "your", "yours", "u", "ya", "yourself":
		return cYou
	case "question", "questions", "unclear", "undecided", "unknown", "unknowns", "clarify":
		return cQuestion
	case "is", "are", "was", "were", "been", "i've", "we've", "it's", "that's", "now's", "has been":
		return cAux
	case "except", "apart", "besides":
		return cExcept
	case "but", "however", "although", "though", "whereas", "yet,":
		return cBut
	case "let", "now":
		return cImmediate
	case "to":
		return cTo
	case "for":
		return cFor
	case "scope":
		return cScope
	case "known":
		return cKnown
	case "i", "we":
		return cSubject
	case "unrelated", "harmless", "intentional", "intended", "irrelevant", "benign", "pre-existing",
		"preexisting", "cosmetic", "negligible", "acceptable", "fine":
		return cDismiss
	case "all", "everything":
		return cAll
	}
	return 0
}

// headingCue classifies the words of a heading or a label ("Next steps",
// "Still open", "Known issues", "Done").
type headingKind int

const (
	headingNeutral headingKind = iota
	headingOpen
	headingDone
)

// headingDoneWord: words that head a list of finished work.
func headingDoneWord(w []byte) bool {
	switch string(w) {
	case "done", "completed", "complete", "fixed", "resolved", "finished", "summary", "changed",
		"changes", "implemented", "results", "result", "added", "modified", "created", "accomplished",
		"did", "verified", "shipped", "merged", "recap", "highlights":
		return true
	}
	return false
}

// headingOpenKind: words that head a list of open items, and the kind of
// item they head. strong words make a heading open whatever else it says
// ("Not done", "Still open"); the others (nouns like "issues", "steps")
// give way to a completion word ("Fixed issues", "Completed steps").
func headingOpenKind(w []byte) (k Kind, strong, ok bool) {
	switch string(w) {
	case "next", "remaining", "todo", "to-do", "todos", "pending", "outstanding", "left",
		"unfinished", "incomplete", "still", "open", "needed", "needs", "missing", "wip", "tbd", "not":
		return Task, true, true
	case "plan", "steps", "roadmap":
		return Task, false, true
	case "unclear", "unknowns", "undecided", "unanswered":
		return Question, true, true
	case "question", "questions", "decide":
		// Not "decisions": "Two decisions in it:" lists decisions made;
		// open ones are said so ("Open decisions", "Undecided").
		return Question, false, true
	case "unresolved", "failing", "broken", "blockers", "blocker", "blocked", "known":
		return Problem, true, true
	case "issues", "issue", "problems", "problem", "bugs", "bug", "caveats", "limitations", "risks", "failures":
		return Problem, false, true
	case "later", "deferred", "future", "follow-up", "followup", "follow-ups", "postponed",
		"backlog", "parked", "nice-to-have", "someday", "scope", "filed", "ticketed":
		return Deferred, true, true
	}
	return "", false, false
}
