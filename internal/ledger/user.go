package ledger

import "strings"

// isRequest reports whether a user's sentence asks for work: it starts with
// a verb in the imperative (after "please", "also", "now"...), or asks
// politely ("can you", "could you"), states a wish ("I want", "I'd like",
// "we need"), or is a reminder ("make sure", "don't forget"). Sentences
// that only set a rule ("never X", "always Y", "don't Z") are constraints,
// which the checkpoint keeps on its own, not requests.
func isRequest(a *analysis) bool {
	k := 0
	marked := false
	for k < a.n {
		switch {
		case a.is(k, "please", "pls", "plz", "kindly"):
			marked = true
			k++
			continue
		case a.is(k, "also", "and", "then", "now", "so", "ok", "okay", "just", "btw", "oh", "hey", "next", "finally", "first",
			"yes", "no", "nope", "nah", "yeah", "well", "hmm", "instead", "rather", "actually", "but"):
			k++
			continue
		}
		break
	}
	switch {
	case a.is(k, "can", "could", "would", "will") && a.w[min(k+1, a.n-1)].c&cYou != 0:
		return true
	case a.is(k, "can", "could") && a.is(k+1, "we"):
		return true
	case a.is(k, "i", "we") && a.is(k+1, "want", "need", "would", "wish", "expect"):
		return true
	case a.is(k, "i'd", "we'd") && a.is(k+1, "like", "prefer"):
		return true
	case a.is(k, "you") && a.is(k+1, "should", "must", "need", "have", "can"):
		return true
	case a.is(k, "let's", "lets"):
		return true
	case a.is(k, "make") && a.is(k+1, "sure"):
		return true
	case a.is(k, "don't", "dont", "do") && a.is(k+1, "forget", "remember"), a.is(k, "remember"):
		return true
	case a.is(k, "go") && a.is(k+1, "ahead", "on"):
		return true
	case a.is(k, "need", "needs") && k == 0:
		return true // "need add test for X"
	case a.is(k, "never", "always", "don't", "dont", "do", "avoid", "only"):
		return false
	}
	if k < a.n && imperative(strings.ToLower(a.word(k))) {
		return true
	}
	return marked && a.n > 1
}

// imperative: the verbs that begin a request for work on software. A broad
// class (the everyday verbs of the trade), not phrases from any session.
func imperative(w string) bool {
	switch w {
	case "add", "fix", "implement", "write", "run", "update", "remove", "delete", "change", "make",
		"create", "check", "test", "use", "refactor", "rename", "move", "build", "deploy", "commit",
		"push", "merge", "rebase", "revert", "investigate", "look", "find", "debug", "document",
		"review", "clean", "improve", "optimize", "optimise", "support", "handle", "replace", "convert",
		"migrate", "install", "upgrade", "bump", "set", "configure", "enable", "disable", "show",
		"print", "log", "explain", "tell", "list", "work", "continue", "tackle", "finish", "start",
		"try", "keep", "stop", "split", "extract", "port", "drop", "rewrite", "simplify", "verify",
		"ensure", "validate", "measure", "benchmark", "profile", "release", "publish", "tag", "open",
		"close", "generate", "wire", "integrate", "expose", "allow", "prevent", "cover", "address",
		"resolve", "do", "get", "put", "give", "send", "read", "ship", "pick", "proceed", "align",
		"sort", "format", "lint", "trace", "adjust", "tweak", "extend", "limit", "cap", "restore",
		"retry", "undo", "reduce", "increase", "apply", "finalize", "finalise", "polish", "prepare",
		"setup", "include", "exclude", "introduce", "reproduce", "cleanup", "refresh", "regenerate",
		"rerun", "re-run", "redo", "remember", "note", "plan", "design", "draft", "sketch", "compare":
		return true
	}
	return false
}

// acknowledgement reports a prompt that only says go on.
func acknowledgement(text string) bool {
	t := strings.ToLower(strings.Trim(strings.TrimSpace(text), ".!"))
	switch t {
	case "ok", "okay", "k", "yes", "y", "yep", "yeah", "sure", "no", "n", "continue", "go on", "go ahead",
		"thanks", "thank you", "thx", "done", "next", "proceed", "lgtm", "sounds good", "great", "good",
		"perfect", "nice", "cool", "right", "correct", "exactly", "agreed", "fine", "ok continue",
		"yes continue", "yes please", "please continue", "carry on", "keep going":
		return true
	}
	return false
}

// affirmative reports an answer that says yes to an offer ("Should I also
// update the docs?" "yes please").
func affirmative(text string) bool {
	w := strings.Fields(strings.ToLower(text))
	if len(w) == 0 || len(w) > 8 {
		return false
	}
	switch strings.Trim(w[0], ".,!") {
	case "yes", "y", "yep", "yeah", "sure", "ok", "okay", "k", "kk", "please", "absolutely", "definitely", "go", "do":
		return true
	}
	return false
}
