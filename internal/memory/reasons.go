package memory

import (
	"path"
	"strings"

	"github.com/cairn-agent/cairn/internal/redact"
	"github.com/cairn-agent/cairn/internal/text"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// The agent says why it does a thing in the sentence just before it does
// it ("Let me put it in priv/scripts/ instead since that's what Elixir
// apps package", "remove the .dialyzerignore file since we no longer
// need it"), and the thing it then does names what the choice is about:
// the file it edits or the command it runs. A question about the choice
// names that subject ("why did tail_wrapper.sh end up under priv"), not
// the words of the choice. Such a sentence is rarely one the session's
// decision heuristic keeps (it commits to nothing in its words, "let me"
// and "now"), and before a command that prints nothing (rm, mv, git rm)
// no output's observation holds it. So each text said just before a
// change, when it gives a reason, is a decision of its own, with what was
// then done.

// reasonCues are the words by which a sentence gives a reason for what
// follows or sets a course against another: a cause, a purpose, an
// alternative, or that a thing is no longer needed.
var reasonCues = []string{"because", "since ", "so that", ", so ", "to avoid", "due to", "given that", "which means",
	"otherwise", "instead", "rather than", "no longer", "anymore", "don't need", "do not need", "not needed",
	"redundant", "unused", "not referenced", "isn't used", "is not used"}

// maxReasonSubjects is how many of the changes after one text its
// observation names.
const maxReasonSubjects = 4

// sessionReasons are the texts the agent said just before a change (an
// edit, a command that does more than look) that give a reason, one
// observation each, with the changes that followed them. Sentences the
// session already keeps as decisions (decided) are not kept again.
func sessionReasons(base Observation, s *transcript.Session, at func(int) []byte, decided, told map[string]bool) []Observation {
	said := saidAt(at)
	var out []Observation
	byLine := map[int]int{} // the text's line: its observation's index in out
	for _, tc := range s.ToolCalls {
		if tc.Sidechain || !tc.Done || tc.IsError || tc.Line <= 0 || told[tc.ID] ||
			tc.Name != "Bash" || tc.Command == "" || onlyLooks(tc.Command) {
			continue
		}
		subject := func() string { return "ran `" + text.ClipLine(redact.String(tc.Command), 200) + "`" }
		// Claude Code writes each block of a reply on its own line: the
		// text is on the line just before the call, or the one before it.
		line, t := 0, ""
		for n := tc.Line - 1; n >= tc.Line-2 && n > 0 && t == ""; n-- {
			line, t = n, said(n)
		}
		if t == "" {
			continue
		}
		if i, ok := byLine[line]; ok {
			o := &out[i]
			if strings.Count(o.Body, "\nThen ") < maxReasonSubjects {
				o.Body += "\nThen " + subject()
				o.Files = append(o.Files, pathsIn(tc.Command, nil)...)
			}
			continue
		}
		if reasons(t, decided) == "" {
			continue
		}
		// Secrets out before the text is cut, so that no cut leaves the
		// start of one that redaction would no longer recognise.
		t = redact.String(t)
		why := reasons(t, decided)
		o := base
		o.Kind = KindDecision
		if !tc.Time.IsZero() {
			o.Time = tc.Time
		}
		files := pathsIn(tc.Command, nil)
		o.Title = text.ClipLine(why, 200)
		if len(files) > 0 && !strings.Contains(why, path.Base(files[0])) {
			o.Title = path.Base(files[0]) + ": " + o.Title
		}
		o.Body = text.Clip(t, 600) + "\nThen " + subject()
		o.Files = files
		o.key = "reason " + tc.ID
		byLine[line] = len(out)
		out = append(out, o)
	}
	return out
}

// reasons are the sentences of t that give a reason and are not a
// decision kept already, joined; "" when none does.
func reasons(t string, decided map[string]bool) string {
	var out []string
	for _, sent := range transcript.Sentences(t) {
		l := strings.ToLower(sent)
		if decided[strings.TrimSpace(sent)] {
			continue
		}
		for _, c := range reasonCues {
			if strings.Contains(l, c) {
				out = append(out, strings.TrimSpace(sent))
				break
			}
		}
	}
	return strings.Join(out, " ")
}
