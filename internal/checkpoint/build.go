package checkpoint

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-agent/cairn/internal/git"
	"github.com/cairn-agent/cairn/internal/ledger"
	"github.com/cairn-agent/cairn/internal/meter"
	"github.com/cairn-agent/cairn/internal/outcome"
	"github.com/cairn-agent/cairn/internal/text"
	"github.com/cairn-agent/cairn/internal/transcript"
)

// Input is what a checkpoint is built from besides the session.
type Input struct {
	Project string
	Trigger string
	Now     time.Time
	Reading meter.Reading
	Git     *git.Status
	GitErr  error
	// TicketPrefixes are extra ticket id prefixes (CAIRN_TICKET_PREFIXES):
	// a word that starts with one and continues with letters, digits,
	// dots or dashes is a ticket.
	TicketPrefixes []string
	// Redact cleans every string kept; nil keeps them as they are.
	Redact func(string) string
	// Memo, when set, keeps what this build parses for the next one
	// (memo.go); without it a build keeps it for itself only.
	Memo *Memo
}

// Limits that keep a checkpoint a summary, not a copy of the session.
const (
	maxLatestPrompts = 10
	maxConstraints   = 12
	maxFiles         = 40
	maxKeyReads      = 8
	maxCommands      = 10
	maxErrors        = 10
	maxDecisions     = 10
	maxNextSteps     = 8
	maxSubagents     = 8
	maxOpen          = 12
	maxClosed        = 5
	maxAnswers       = 6
	maxFindings      = 20
	maxItem          = 300
)

// Build derives the checkpoint of a session.
func Build(s *transcript.Session, in Input) Checkpoint {
	c := Checkpoint{
		Version: Version, Project: in.Project, SessionID: s.SessionID, Client: s.Client, Transcript: s.Path,
		CreatedAt: in.Now.UTC(), Trigger: in.Trigger, Compactions: len(s.Compactions), Turns: s.NumTurns(),
		Context: Context{Tokens: in.Reading.Tokens, Window: in.Reading.Window, Threshold: in.Reading.Threshold, Percent: in.Reading.PctWindow},
		Git:     withoutTooling(in.Git),
	}
	if in.GitErr != nil {
		c.GitError = in.GitErr.Error()
	}
	m := in.Memo
	if m == nil {
		m = &Memo{}
	}
	c.Task = task(s, in.TicketPrefixes)
	var said []lined
	for _, p := range s.Prompts {
		said = append(said, lined{text: p.Text, line: p.Line})
	}
	// What the assistant planned and the user (or its own later plan)
	// turned down is not open any more.
	open := superseded(s.Ledger.Open(), func(it ledger.Item) string {
		if it.By != "assistant" {
			return "" // the user's own words are not overruled here
		}
		return it.Text
	}, func(it ledger.Item) int { return it.Line }, said, m)
	open = slices.DeleteFunc(open, thin)
	for _, it := range last(open, maxOpen) {
		c.Open = append(c.Open, OpenItem{Text: clip(it.Text), Kind: string(it.Kind), By: it.By, Turn: it.Turn})
	}
	var named []bool // per answer: its revision names what the answer said
	for _, it := range s.Ledger.Closed() {
		switch {
		case it.Kind == "question" && it.By == "assistant" && it.Closed.By == "answer":
			r, byName := revision(it.Text, it.Closed.Evidence, it.Closed.Line, said)
			c.Answers = append(c.Answers, Answer{Question: clip(it.Text), Answer: clip(it.Closed.Evidence), Revised: clip(r), Gloss: clip(it.Closed.Gloss)})
			named = append(named, byName)
		case it.Kind == "question" && it.By == "user" && it.Closed.By == "reply" && it.Closed.Later && hasWords(it.Text):
			// A question the user left open for later, answered turns
			// after: the reply is gone from the context with the
			// compaction, and only the question would be remembered.
			c.Answers = append(c.Answers, Answer{Question: clip(it.Text), Answer: clip(it.Closed.Evidence), By: "user"})
			named = append(named, false)
		}
	}
	// A prompt that takes back one answer by naming it ("don't drop 1.x
	// yet" after "drop") does not take back another whose question only
	// shares a word with it ("Version the site with mike?").
	for i := range c.Answers {
		if !named[i] || c.Answers[i].Revised == "" {
			continue
		}
		for j := range c.Answers {
			if j != i && !named[j] && c.Answers[j].Revised == c.Answers[i].Revised {
				c.Answers[j].Revised = ""
			}
		}
	}
	// The work a yes asked for goes with the yes the user took back
	// ("1 yes" to "Should the hook require an Idempotency-Key?", then
	// "actually scratch my 1").
	for _, a := range c.Answers {
		if a.Revised != "" {
			c.Open = slices.DeleteFunc(c.Open, func(o OpenItem) bool { return o.By == "user" && strings.HasPrefix(o.Text, a.Question+" → ") })
		}
	}
	c.Answers = last(c.Answers, maxAnswers)
	for _, it := range last(s.Ledger.Closed(), maxClosed) {
		c.Closed = append(c.Closed, OpenItem{Text: clip(it.Text), Kind: string(it.Kind), By: it.By, Turn: it.Turn,
			ClosedBy: it.Closed.By, Evidence: clip(it.Closed.Evidence)})
	}
	var lifted []string
	c.Constraints, lifted = constraints(s.Prompts, s.ToolCalls)
	c.Task.First = withoutLifted(c.Task.First, lifted)
	for _, t := range s.Todos {
		c.Todos = append(c.Todos, Todo{Content: clip(t.Content), Status: t.Status})
	}
	base := s.CWD // where the session ran: its paths are relative to it
	if base == "" {
		base = in.Project
	}
	c.Files, c.KeyReads = files(s.Files, base)
	c.Commands = commands(s.ToolCalls)
	c.Errors = toolErrors(wantedExits(s.ToolCalls, said, agentAsks(s)), base, func(e Error, at int) string { return saidAfter(s, e, at, m) }, m)
	// What subagents left failing: their own transcripts.
	for _, a := range s.Subagents {
		if a.Compact || a.Session == nil {
			continue
		}
		for _, e := range toolErrors(a.Session.ToolCalls, base, nil, m) {
			if !e.Resolved {
				e.Tool += " in a subagent"
				c.Errors = append(c.Errors, e)
			}
		}
	}
	c.Errors = last(c.Errors, maxErrors)
	decided := superseded(s.Decisions, func(n transcript.Note) string { return n.Text }, func(n transcript.Note) int { return n.Line }, said, m)
	asked := agentAsked(s.Ledger.Items)
	for k, d := range overruledByUser(decided, said, asked) {
		d.Text = withUserRefusal(d.Text, d.Text, d.Line, said)
		if d.Text == decided[k].Text {
			if no := rejected(d.Text, d.Line, said, asked); no != "" {
				d.Text = withRejection(d.Text, no, guessOnly(d.Text))
			}
		}
		if i := slices.Index(c.Decisions, d.Text); i >= 0 {
			c.Decisions = slices.Delete(c.Decisions, i, i+1)
		}
		c.Decisions = append(c.Decisions, d.Text)
	}
	c.Decisions = last(c.Decisions, maxDecisions)
	for k, f := range overruledPlans(s.Findings, said, asked) {
		if i := slices.Index(c.Findings, f.Text); i >= 0 {
			c.Findings = slices.Delete(c.Findings, i, i+1)
		}
		t := clip(f.Text)
		if u := withUserRefusal(t, f.Text, f.Line, said); u != t {
			t = u
		} else if no := rejected(f.Text, f.Line, said, asked); no != "" && f.Text == s.Findings[k].Text {
			t = withRejection(t, no, guessOnly(f.Text))
		}
		c.Findings = append(c.Findings, t)
	}
	c.Findings = last(c.Findings, maxFindings)
	if n := len(s.LastTexts); n > 0 {
		c.LastReply = text.Clip(s.LastTexts[n-1].Text, 600)
		// The latest texts with something in them: a "See you tomorrow."
		// at the end says less than the answer before it.
		for _, t := range s.LastTexts {
			if len(strings.TrimSpace(t.Text)) >= 40 {
				c.LastReplies = append(c.LastReplies, text.Clip(t.Text, 600))
			}
		}
		if len(c.LastReplies) == 0 {
			c.LastReplies = []string{c.LastReply}
		}
		c.NextSteps = nextSteps(s.LastTexts)
	}
	for _, tc := range s.ToolCalls {
		if (tc.Name == "Task" || tc.Name == "Agent") && tc.Description != "" {
			sub := tc.Description
			if r := strings.Join(strings.Fields(tc.Result), " "); r != "" && foundIn(r, c.Findings) {
				// Its report is the findings above: said once.
				sub += ": reported what Findings lists"
			} else if r != "" {
				sub += ": " + r // what it reported, in short
			}
			c.Subagents = append(c.Subagents, text.Clip(sub, 400))
		}
	}
	c.Subagents = last(c.Subagents, maxSubagents)
	if in.Redact != nil {
		c.redact(in.Redact)
	}
	return c
}

// withoutTooling leaves out of the uncommitted changes what the agent's
// tooling writes in the project (.claude/: settings, handoffs, slash
// commands; .project/: compaction captures): listed as work, it crowds
// out the files that are.
func withoutTooling(g *git.Status) *git.Status {
	if g == nil {
		return nil
	}
	out := *g
	out.Changes = nil
	for _, ch := range g.Changes {
		if !tooling(ch.Path) {
			out.Changes = append(out.Changes, ch)
		}
	}
	return &out
}

func tooling(p string) bool {
	for _, dir := range []string{".claude", ".project"} {
		if p == dir || strings.HasPrefix(p, dir+"/") {
			return true
		}
	}
	return false
}

func last[T any](xs []T, n int) []T {
	if len(xs) > n {
		return xs[len(xs)-n:]
	}
	return xs
}

func clip(s string) string { return text.Clip(strings.TrimSpace(s), maxItem) }

// task takes the first substantive prompt and the latest ones. A prompt is
// substantive when it is more than an acknowledgement ("ok", "continue").
func task(s *transcript.Session, extra []string) Task {
	var t Task
	firstIdx := -1
	for i, p := range s.Prompts {
		if substantive(p.Text) {
			t.First, firstIdx = withTraceError(p.Text, 600, text.Clip), i
			break
		}
	}
	for i := max(firstIdx+1, len(s.Prompts)-maxLatestPrompts); i < len(s.Prompts); i++ {
		if i >= 0 && i != firstIdx && substantive(s.Prompts[i].Text) {
			t.Latest = append(t.Latest, withTraceError(strings.TrimSpace(s.Prompts[i].Text), maxItem, text.Clip))
		}
	}
	t.Tickets = tickets(s, extra)
	return t
}

// acknowledgement says whether a prompt only acknowledges. Sets here are
// switches, not package-level maps: Go builds those in every process at
// start, the hooks' included (docs/benchmarks.md, issue 15).
func acknowledgement(t string) bool {
	switch t {
	case "ok", "okay", "yes", "y", "no", "continue", "go on", "go ahead", "thanks", "thank you", "done", "next", "proceed":
		return true
	}
	return false
}

func substantive(p string) bool {
	t := strings.ToLower(strings.Trim(strings.TrimSpace(p), ".!"))
	return len(t) > 3 && !acknowledgement(t)
}

// notTicket says whether a key that looks like a ticket's names a standard
// or an encoding.
func notTicket(key string) bool {
	switch key {
	case "UTF", "SHA", "ISO", "RFC", "HTTP", "TLS", "CVE", "AES", "PEP", "MD", "ES", "GPT", "X", "UCS",
		"WIN", "COVID", "IPV", "H", "E", "GO":
		return true
	}
	return false
}

// Tickets are the tickets a session names, most recent last, as a
// checkpoint of it would record them (extra: the configured prefixes).
func Tickets(s *transcript.Session, extra []string) []string { return tickets(s, extra) }

// tickets finds issue keys (ABC-123) in prompts and the branch, bead ids in
// prompts and bd commands, and matches of the configured pattern, in order
// of last mention.
func tickets(s *transcript.Session, extra []string) []string {
	var seen []string
	add := func(id string) {
		if i := slices.Index(seen, id); i >= 0 {
			seen = slices.Delete(seen, i, i+1)
		}
		seen = append(seen, id)
	}
	scan := func(text string) {
		for _, m := range issueKeys(text) {
			if !notTicket(m[:strings.IndexByte(m, '-')]) {
				add(m)
			}
		}
		for _, m := range beadsInProse(text) {
			add(m)
		}
		for _, p := range extra {
			for _, w := range strings.Fields(text) {
				w = strings.Trim(w, ".,;:()`\"'[]")
				if len(w) > len(p) && strings.HasPrefix(w, p) && strings.Trim(w[len(p):], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_") == "" {
					add(w)
				}
			}
		}
	}
	// A key the user typed in lower case ("fin-2291.") is one when the
	// agent wrote it as one, in a commit or its notes ("FIN-2291: ...").
	written := map[string]bool{}
	for _, tc := range s.ToolCalls {
		for _, m := range issueKeys(tc.Command) {
			written[m] = true
		}
	}
	for _, n := range s.Findings {
		for _, m := range issueKeys(n.Text) {
			written[m] = true
		}
	}
	scan(s.GitBranch)
	for _, p := range s.Prompts {
		text := withoutDeferrals(p.Text)
		if len(written) > 0 {
			for _, w := range strings.Fields(text) {
				w = strings.Trim(w, ".,;:()`\"'[]!?")
				if k := strings.ToUpper(w); k != w && written[k] && strings.ToLower(k) == w {
					text = strings.Replace(text, w, k, 1)
				}
			}
		}
		scan(text)
	}
	for _, tc := range s.ToolCalls {
		if tc.Name == "Bash" && strings.Contains(tc.Command, "bd ") {
			for _, m := range beadsInCommand(tc.Command) {
				add(m)
			}
		}
	}
	return last(seen, 5)
}

// withoutDeferrals is a prompt without its clauses that send work
// elsewhere or to later ("The DLQ goes in its own PR (KAF-77), not this
// one", "file it under OPS-12 for later"): a ticket named only there is
// where the work was put off to, not the work's own.
func withoutDeferrals(prompt string) string {
	if !strings.ContainsRune(prompt, '-') {
		return prompt // no issue key to lose
	}
	var b strings.Builder
	for _, sent := range transcript.Sentences(prompt) {
		after := false // the clause before put something off
		for _, cl := range strings.FieldsFunc(sent, func(r rune) bool { return r == ',' || r == ';' || r == '—' }) {
			if defers(cl) || after && (appositive(cl) || refersBack(cl)) {
				after = true
				continue
			}
			after = false
			b.WriteString(cl)
			b.WriteString(" ; ")
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// appositive says a clause is a name set beside the one before it, a
// word or two ("That's its own ticket, IMG-450, and ...").
func appositive(clause string) bool { return len(strings.Fields(clause)) <= 2 }

// refersBack says a clause refers to what the one before it named ("leave
// it broken for now, I opened PERF-1210 for it").
func refersBack(clause string) bool {
	l := " " + strings.ToLower(strings.Trim(strings.TrimSpace(clause), ".!?")) + " "
	return strings.Contains(l, " for it ") || strings.Contains(l, " for that ") || strings.Contains(l, " for this ")
}

// defers says a clause puts work off to another place or time: its own
// or a separate change, a follow-up, later, the backlog, someone else's
// job.
func defers(clause string) bool {
	l := " " + strings.ToLower(strings.ReplaceAll(clause, "’", "'")) + " "
	if strings.HasPrefix(strings.TrimSpace(l), "leave ") {
		// "Leave it broken for now", "leave the flaky test alone": a
		// clause that opens so; "PAY-12: leave the old route" does not.
		return true
	}
	for _, c := range []string{" its own ", " their own ", " separate ", " follow-up", " followup", " follow up ", " later",
		" eventually ", " next sprint", " backlog", " defer", " postpone", " park ", " parked ", "'s job", " out of scope",
		" another pr", " another ticket", " punt",
		// Another party's ticket: "they have INFRA-3321 for it, not ours",
		// "blocked on SEC-2231".
		" they have ", " they opened ", " they filed ", " they've ", " not ours", " theirs", " blocked on", " blocked by",
		" waiting on", " wait for ", " owned by"} {
		if strings.Contains(l, c) {
			return true
		}
	}
	return false
}

// files splits the paths into changed ones and the most read of the rest,
// relative to the session's directory when inside it.
func files(fs []transcript.FileStat, project string) ([]File, []string) {
	rel := func(p string) string {
		if project != "" && strings.HasPrefix(p, project+"/") {
			return p[len(project)+1:]
		}
		return p
	}
	var changed []File
	type read struct {
		path string
		n    int
	}
	var reads []read
	for _, f := range fs {
		if f.Write+f.Edit+f.Delete > 0 {
			changed = append(changed, File{Path: rel(f.Path), Created: f.Created, Edits: f.Edit, Writes: f.Write, Deleted: f.Gone || f.Delete > 0 && f.Write == 0})
		} else if f.Read > 0 {
			reads = append(reads, read{rel(f.Path), f.Read})
		}
	}
	slices.SortStableFunc(reads, func(a, b read) int { return b.n - a.n })
	var key []string
	for _, r := range reads[:min(len(reads), maxKeyReads)] {
		key = append(key, r.path)
	}
	return last(changed, maxFiles), key
}

func commands(calls []transcript.ToolCall) []Command {
	var out []Command
	for _, tc := range calls {
		if tc.Name != "Bash" || tc.Command == "" || !tc.Done {
			continue
		}
		cmd := clip(tc.Command)
		c := Command{Command: cmd, Description: clip(tc.Description), ExitCode: tc.ExitCode, Runs: 1, Outcome: tc.Outcome}
		if i := slices.IndexFunc(out, func(c Command) bool { return c.Command == cmd }); i >= 0 {
			prev := out[i]
			c.Runs += prev.Runs
			c.Earlier = last(append(prev.Earlier, prev.short()), maxEarlier)
			out = slices.Delete(out, i, i+1)
		}
		out = append(out, c)
	}
	// More than the list holds: the same command with other quoted
	// arguments (a post to the same hook with another message), ended
	// the same way, is counted with its latest run rather than push the
	// session's other commands out of the list.
	// From the newest back, each command's quote-less form is taken once
	// and compared with the few kept, not with every other command: a
	// long session has thousands (a pairwise scan cost a mid-turn
	// PreCompact's build tens of milliseconds).
	if len(out) <= maxCommands {
		return out
	}
	type keptCmd struct {
		at       int
		unquoted string
	}
	var kept []keptCmd // newest first
	for i := len(out) - 1; i >= 0; i-- {
		if len(kept) == maxCommands && !strings.ContainsAny(out[i].Command, `'"`) {
			continue // the list is full: older runs only count with a line of it
		}
		u := withoutQuoted(out[i].Command)
		merged := false
		if u != out[i].Command {
			for _, k := range kept {
				if k.unquoted == u && sameEnds(out[i], out[k.at]) {
					out[k.at].Others += out[i].Others + out[i].Runs
					merged = true
					break
				}
			}
		}
		if !merged && len(kept) < maxCommands {
			kept = append(kept, keptCmd{i, u})
		}
	}
	list := make([]Command, 0, len(kept))
	for k := len(kept) - 1; k >= 0; k-- {
		list = append(list, out[kept[k].at])
	}
	return list
}

// Two commands that differ only in what their quoted arguments say ("curl
// -X POST --data '{...}' URL" twice with two messages) are one line when
// every run of both ended the same way; a run that ended another way is
// kept apart: its end is news.

// sameEnds says every run of a ended as b's last did.
func sameEnds(a, b Command) bool {
	if a.short() != b.short() {
		return false
	}
	for _, e := range a.Earlier {
		if e != b.short() {
			return false
		}
	}
	return true
}

// withoutQuoted is a command with the text inside its quotes left out.
func withoutQuoted(cmd string) string {
	var b strings.Builder
	var q byte
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case q != 0 && c == q:
			q = 0
			b.WriteByte(c)
		case q != 0:
		case c == '\'' || c == '"':
			q = c
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// maxEarlier bounds the earlier runs a command remembers.
const maxEarlier = 6

// short says in a word or two how a run ended: its exit code, or
// "failed" when its output said so behind a pipe or an exit 0.
func (c Command) short() string {
	switch o := c.Outcome; {
	case o != nil && o.Status == outcome.Failed && (o.Exit == nil || *o.Exit == 0):
		return "failed"
	case o != nil && o.Status == outcome.Unknown && o.Hidden != "" && outcome.StatusHidden(c.Command):
		return "status hidden"
	case c.ExitCode == nil:
		return "no exit code"
	}
	return fmt.Sprintf("exit %d", *c.ExitCode)
}

// Results that are not failures of the work: the user said no, or a
// sibling call failed.
var notErrors = []string{"The user doesn't want to proceed", "[Request interrupted", "<tool_use_error>Sibling tool call errored"}

// failed says whether a call failed: the tool said so (not a refusal), or
// the command's own output did, whatever its exit status.
func failed(tc transcript.ToolCall) bool {
	if tc.Outcome != nil && tc.Outcome.Status == outcome.Failed {
		return true
	}
	if !tc.IsError {
		return false
	}
	for _, p := range notErrors {
		if strings.HasPrefix(tc.ErrorText, p) {
			return false
		}
	}
	return true
}

// succeeded says whether a call succeeded by the standard a failure is
// judged by: for a command, its outcome (a run piped into tail that exits
// 0 has not passed unless its output says so).
func succeeded(tc transcript.ToolCall) bool {
	if !tc.Done || tc.IsError {
		return false
	}
	if tc.Name == "Bash" && tc.Outcome != nil {
		return tc.Outcome.Status == outcome.Passed
	}
	return true
}

// fixNote, when not nil, says what the agent said of the fix of e after
// calls[at], the call that resolved it: its Fix.
func toolErrors(calls []transcript.ToolCall, base string, fixNote func(e Error, at int) string, works *Memo) []Error {
	var out []Error
	for i, tc := range calls {
		if tc.Sidechain || !failed(tc) {
			continue
		}
		subject := tc.FilePath
		if tc.Name == "Bash" {
			subject = tc.Command
		}
		e := Error{Tool: tc.Name, Subject: clip(subject), Message: text.Clip(errorMessage(tc), 400)}
		for k, later := range calls[i+1:] {
			if succeeded(later) && sameWork(tc, later, works) {
				e.Resolved = true
				e.FixedIn = changedBetween(calls[i+1:i+1+k], tc.FilePath, base)
				if fixNote != nil {
					e.Fix = fixNote(e, i+1+k)
				}
				break
			}
			if gotPast(tc, later, works) {
				// The build gets further after a change and stops on
				// something else (compile, then link, then the image's
				// size): this error is fixed; the new one is its own.
				if fixedIn := changedBetween(calls[i+1:i+1+k], tc.FilePath, base); len(fixedIn) > 0 {
					e.Resolved = true
					e.FixedIn = fixedIn
					break
				}
			}
		}
		if e.Resolved && tc.Name != "Bash" && strings.HasPrefix(strings.TrimSpace(tc.ErrorText), "<tool_use_error>") {
			// The tool refused the call as made (an edit's old text not
			// found, a file not read first) and a later call went
			// through: how the agent used its tools, not a failure of
			// the work.
			continue
		}
		// The same failure again (a rerun before the fix) is one error.
		if i := slices.IndexFunc(out, func(o Error) bool { return o.Tool == e.Tool && o.Subject == e.Subject && o.Message == e.Message }); i >= 0 {
			e.Times = out[i].Times + 1
			out = slices.Delete(out, i, i+1)
		}
		out = append(out, e)
	}
	return last(out, maxErrors)
}

// wantedExits is calls with each command that exited with the code the
// user asked for passed: "should it end with RC=4 when there are
// rejects?" answered "4", or a prompt's "exit 3 on a dry run is what we
// want", before the run. Such a run did what it was meant to, and is no
// error to fix.
func wantedExits(calls []transcript.ToolCall, said, asked []lined) []transcript.ToolCall {
	var out []transcript.ToolCall
	for i, tc := range calls {
		code := tc.ExitCode
		if tc.Outcome != nil && tc.Outcome.Exit != nil {
			code = tc.Outcome.Exit // "run; echo rc=$?" reports the run's
		}
		if tc.Name != "Bash" || code == nil || *code == 0 || !failed(tc) || !wantedExit(*code, tc.Line, said, asked) {
			continue
		}
		if out == nil {
			out = slices.Clone(calls)
		}
		out[i].IsError = false
		if tc.Outcome != nil {
			o := *tc.Outcome
			o.Status, o.Errors = outcome.Passed, nil
			out[i].Outcome = &o
		}
	}
	if out == nil {
		return calls
	}
	return out
}

// wantedExit says the user named code as the exit code wanted before
// line: in a prompt, or by saying it in the prompt right after the agent
// asked about it (asked: the agent's questions and its notes that ask).
func wantedExit(code, line int, said, asked []lined) bool {
	n := strconv.Itoa(code)
	for _, p := range said {
		if p.line < line && namesExitCode(p.text, n) {
			return true
		}
	}
	for _, q := range asked {
		if q.line >= line || !strings.Contains(q.text, "?") || !namesExitCode(q.text, n) {
			continue
		}
		for _, p := range said {
			if p.line > q.line {
				if p.line < line && slices.Contains(fields(p.text), n) {
					return true
				}
				break
			}
		}
	}
	return false
}

// agentAsks is what the agent said that may ask the user something: its
// questions in the ledger and its notes.
func agentAsks(s *transcript.Session) []lined {
	var out []lined
	for _, it := range s.Ledger.Items {
		if it.Kind == ledger.Question && it.By == ledger.ByAssistant {
			out = append(out, lined{text: it.Text, line: it.Line})
		}
	}
	for _, ns := range [][]transcript.Note{s.Findings, s.Decisions, s.LastTexts} {
		for _, n := range ns {
			out = append(out, lined{text: n.Text, line: n.Line})
		}
	}
	return out
}

// namesExitCode says s names n as an exit code ("RC=4", "exit 3",
// "return code 2", "end with status 4").
func namesExitCode(s, n string) bool {
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], n)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(n)
		if (j == 0 || !isDigit(s[j-1])) && (end == len(s) || !isDigit(s[end])) && exitCodeBefore(s[:j]) {
			return true
		}
		i = end
	}
	return false
}

// exitCodeBefore says s ends with words that name an exit code, maybe
// with a linking word: "exit", "RC=", "return code", "status of".
func exitCodeBefore(s string) bool {
	ws := fields(s[max(0, len(s)-32):])
	if k := len(ws); k > 0 && (ws[k-1] == "of" || ws[k-1] == "with" || ws[k-1] == "is" || ws[k-1] == "to") {
		ws = ws[:k-1]
	}
	k := len(ws)
	if k > 1 && (ws[k-1] == "code" || ws[k-1] == "status") && exitWord(ws[k-2]) {
		return true
	}
	return k > 0 && exitWord(ws[k-1])
}

// exitWord: a word that names a process's exit code.
func exitWord(w string) bool {
	switch w {
	case "rc", "exit", "exits", "exited", "return", "returns", "returned", "status", "errorlevel":
		return true
	}
	return false
}

// gotPast says whether a later run of the same work failed again, but on
// other errors only: none of the failed run's error lines comes back. A
// later run whose output names no error, or one the pipe cut short, says
// nothing of the earlier one.
func gotPast(failedCall, later transcript.ToolCall, works *Memo) bool {
	if failedCall.Name != "Bash" || !failed(later) || later.Outcome == nil || failedCall.Outcome == nil ||
		len(later.Outcome.Errors) == 0 || len(failedCall.Outcome.Errors) == 0 || later.Outcome.Hidden != "" ||
		!sameWork(failedCall, later, works) {
		return false
	}
	// Without their digits: an edit above the error moves its line ("a.c:12:5"
	// then "a.c:14:5"), and a smaller overflow is the same overflow.
	again := map[string]bool{}
	for _, e := range later.Outcome.Errors {
		again[withoutDigits(e)] = true
	}
	// A run that reports errors at a place (src/a.hs:57:31) is judged by
	// those: the tool's closing line without one ("Error: [Cabal-7125]",
	// "Stack failed to build.") comes back with every failure, whatever
	// failed.
	errs := failedCall.Outcome.Errors
	if placed := slices.DeleteFunc(slices.Clone(errs), func(e string) bool { return !located(e) }); len(placed) > 0 {
		errs = placed
	}
	for _, e := range errs {
		if again[withoutDigits(e)] {
			return false
		}
	}
	return true
}

// located says an error line names its place: a file and a line
// ("src/Ledger/Balance.hs:57:31: error", "main.go:12").
func located(e string) bool {
	for i := 1; i+1 < len(e); i++ {
		if e[i] != ':' || e[i+1] < '0' || e[i+1] > '9' {
			continue
		}
		j := i - 1
		for j >= 0 && e[j] != ' ' && e[j] != '(' && e[j] != '\'' && e[j] != '"' {
			j--
		}
		if name := e[j+1 : i]; strings.ContainsRune(name, '.') && !strings.HasSuffix(name, ".") {
			return true
		}
	}
	return false
}

func withoutDigits(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return -1
		}
		return r
	}, s)
}

// saidAfter is what the agent reported of the fix of e once calls[at]
// no longer failed: the first finding it stated after that call, while
// nothing else changed and nothing failed (a check run, not more work),
// before the user spoke again, and about the error (a name of its
// command, path or message in it, such as a column, a file or a
// function; "tests" or "error" are about any): "Fixed: last_name has a
// default now, so migrate applies". "" when there is none: in a long
// turn the next finding is often about the next piece of work.
func saidAfter(s *transcript.Session, e Error, at int, m *Memo) string {
	calls := s.ToolCalls
	end := math.MaxInt
	for _, p := range s.Prompts {
		if p.Line > calls[at].Line {
			end = p.Line
			break
		}
	}
	for _, tc := range calls[at+1:] {
		if tc.Line >= end {
			break
		}
		if !tc.Sidechain && (changes(tc) || failed(tc)) {
			end = tc.Line
			break
		}
	}
	about := m.words(e.Subject + "\n" + e.Message)
	asked := agentAsked(s.Ledger.Items)
	for _, f := range s.Findings {
		if f.Line <= calls[at].Line || f.Line >= end {
			continue
		}
		if asked.leanOn(f.Line) {
			return "" // what it said sets up the question it asked next
		}
		for w := range m.words(f.Text) {
			if about[w] && strings.ContainsAny(w, "_./") {
				return clip(f.Text)
			}
		}
		return "" // the first thing it said is about something else
	}
	return ""
}

// errorMessage says how a call failed: a command's counts and first error
// lines where its output gives them, else what the tool said.
func errorMessage(tc transcript.ToolCall) string {
	o := tc.Outcome
	if o == nil || (o.Counts == "" && len(o.Errors) == 0) {
		return tc.ErrorText
	}
	var parts []string
	if o.Exit != nil && *o.Exit != 0 {
		parts = append(parts, fmt.Sprintf("exit %d", *o.Exit))
	} else if o.Hidden != "" {
		parts = append(parts, "exit status hidden by the "+o.Hidden)
	}
	if o.Counts != "" {
		parts = append(parts, o.Counts)
	}
	msg := strings.Join(parts, ", ")
	if len(o.Errors) > 0 {
		msg += ": " + strings.Join(o.Errors, " · ")
	}
	return msg
}

// sameWork says whether a later call redid what a failed one attempted:
// an edit of the same file, or a command doing the same work (the same
// tool and target: "go test ./x" then "go test ./...", "mix test" after
// "mix compile && mix test").
func sameWork(failed, later transcript.ToolCall, works *Memo) bool {
	switch failed.Name {
	case "Bash":
		if later.Name != "Bash" {
			return false
		}
		// outcome.SameWork, on works parsed once.
		a := works.worksOf(failed.Command)
		if len(a) == 0 {
			return false
		}
		b := works.worksOf(later.Command)
		for _, k := range a {
			if !slices.Contains(b, k) {
				return false
			}
		}
		// A part of a failed run passing fixes nothing in the rest,
		// unless it is the part that failed: "mix test" failing in
		// test/a_test.exs, then "mix test test/a_test.exs" passing.
		part := works.narrowedTo(failed.Command, later.Command)
		if len(part) == 0 {
			return true
		}
		// Where it failed: the failing lines the outcome picked out, else
		// the error text (a whole output names the passing parts too).
		said := failed.ErrorText
		if failed.Outcome != nil && len(failed.Outcome.Errors) > 0 {
			said = strings.Join(failed.Outcome.Errors, "\n")
		}
		for _, t := range part {
			if strings.Contains(said, t) || strings.Contains(said, strings.ReplaceAll(t, ".", "/")) {
				return true
			}
		}
		return false
	case "Edit", "MultiEdit", "Write", "NotebookEdit":
		return later.FilePath == failed.FilePath && (later.Name == "Edit" || later.Name == "MultiEdit" || later.Name == "Write" || later.Name == "NotebookEdit")
	}
	return later.Name == failed.Name && later.FilePath == failed.FilePath
}

// nextSteps reads the latest assistant texts for a "Next steps" list or
// sentences that announce the next move, newest text first.
func nextSteps(texts []transcript.Note) []string {
	for i := len(texts) - 1; i >= 0; i-- {
		var steps []string
		lines := strings.Split(texts[i].Text, "\n")
		for j := 0; j < len(lines); j++ {
			if isNextHeader(lines[j]) {
				for k := j + 1; k < len(lines); k++ {
					item, ok := listItem(lines[k])
					if !ok {
						if strings.TrimSpace(lines[k]) == "" && len(steps) == 0 {
							continue
						}
						break
					}
					steps = append(steps, clip(item))
				}
			}
		}
		for _, sent := range transcript.Sentences(texts[i].Text) {
			if isNextSentence(sent) {
				steps = append(steps, clip(sent))
			}
		}
		if len(steps) > 0 {
			return steps[:min(len(steps), maxNextSteps)]
		}
	}
	return nil
}

// redact passes every string of the checkpoint through f.
func (c *Checkpoint) redact(f func(string) string) {
	all := func(xs []string) {
		for i := range xs {
			xs[i] = f(xs[i])
		}
	}
	c.Task.First = f(c.Task.First)
	all(c.Task.Latest)
	for i := range c.Answers {
		c.Answers[i].Question, c.Answers[i].Answer, c.Answers[i].Revised = f(c.Answers[i].Question), f(c.Answers[i].Answer), f(c.Answers[i].Revised)
		c.Answers[i].Gloss = f(c.Answers[i].Gloss)
	}
	for _, items := range [][]OpenItem{c.Open, c.Closed} {
		for i := range items {
			items[i].Text, items[i].Evidence = f(items[i].Text), f(items[i].Evidence)
		}
	}
	all(c.Constraints)
	for i := range c.Todos {
		c.Todos[i].Content = f(c.Todos[i].Content)
	}
	for i := range c.Files {
		c.Files[i].Path = f(c.Files[i].Path)
	}
	all(c.KeyReads)
	for i := range c.Commands {
		c.Commands[i].Command = f(c.Commands[i].Command)
		c.Commands[i].Description = f(c.Commands[i].Description)
	}
	for i := range c.Errors {
		c.Errors[i].Subject = f(c.Errors[i].Subject)
		c.Errors[i].Message = f(c.Errors[i].Message)
		c.Errors[i].Fix = f(c.Errors[i].Fix)
	}
	all(c.Decisions)
	all(c.Findings)
	all(c.NextSteps)
	all(c.Subagents)
	c.LastReply = f(c.LastReply)
	all(c.LastReplies)
	c.redactGit(f)
}

func (c *Checkpoint) redactGit(f func(string) string) {
	c.GitError = f(c.GitError)
	if c.Git != nil {
		g := *c.Git
		g.Changes = slices.Clone(g.Changes)
		for i := range g.Changes {
			g.Changes[i].Path = f(g.Changes[i].Path)
		}
		g.Upstream = f(g.Upstream)
		c.Git = &g
	}
}

// SetGit sets the work tree's state (or why it could not be read) in a
// checkpoint built without it, as Build sets in.Git and in.GitErr:
// PreCompact leaves git to the job that stores the checkpoint. redact is
// Build's in.Redact.
func (c *Checkpoint) SetGit(st *git.Status, err error, redact func(string) string) {
	c.Git, c.GitError = withoutTooling(st), ""
	if err != nil {
		c.GitError = err.Error()
	}
	if redact != nil {
		c.redactGit(redact)
	}
}

// hasWords: a text with a word of four letters or more ("and?" has none).
func hasWords(s string) bool { return len(words(s)) > 0 }

// thin: an item put off or a user's question that names nothing it is
// about: "Noted for later", "status?". As open items they only take the
// room of those that say what is left.
func thin(it ledger.Item) bool {
	if !(it.Kind == ledger.Deferred || it.Kind == ledger.Question && it.By == ledger.ByUser) {
		return false
	}
	f := strings.Fields(it.Text)
	return len(f) <= 3 && !strings.ContainsAny(it.Text, "_./()`-0123456789")
}

// changedBetween lists the files the calls between a failure and the run
// that passed changed (but the failed call's own file): where the fix
// went, which is rarely where the error pointed (a missing header fixed
// in a BUILD file, a mart's test fixed in its staging model). At most 3.
func changedBetween(calls []transcript.ToolCall, own, base string) []string {
	var out []string
	for _, tc := range calls {
		if tc.Sidechain || tc.IsError || tc.Name == "Bash" || tc.Name == "Read" {
			continue
		}
		for _, p := range append([]string{tc.FilePath}, tc.Paths...) {
			if p == "" || p == own {
				continue
			}
			if base != "" && strings.HasPrefix(p, base+"/") {
				p = p[len(base)+1:]
			}
			if !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	if len(out) > 3 {
		out = out[len(out)-3:]
	}
	return out
}

// revision is the user's later prompt that takes an answer back: it opens
// with a word that turns back ("wait", "actually", "no", "scratch that")
// or refuses, and speaks of what the question asked about (a content word
// of five letters or more in common). "" when none does; byName says
// the prompt names what the answer said.
func revision(question, answer string, answered int, said []lined) (string, bool) {
	qw := fields(question)
	// An answer that names something ("postgres", "flyway") is taken back
	// by a prompt that names it: a question's common words ("services")
	// would pair a revision with every question of the kind.
	var named []string
	for _, w := range fields(answer) {
		if len(w) >= 3 && content(w) && !affirms(w) {
			named = append(named, w)
		}
	}
	for _, p := range said {
		if p.line <= answered {
			continue
		}
		ws := fields(p.text)
		if len(ws) == 0 {
			continue
		}
		back := p.text
		if !(turnsBack(ws) || len(refused(p.text, len(ws) <= maxReply)) > 0) {
			// "promote is fine now, and forget what I said about the
			// formatter: keep the comma": a later part of the prompt
			// takes back, and speaks for itself.
			if back = takingBackPart(p.text); back == "" {
				continue
			}
			ws = fields(back)
		}
		if obj := takenBackObject(back); len(obj) > 0 && !slices.ContainsFunc(obj, func(w string) bool {
			return containsStem(qw, w) || containsStem(fields(answer), w)
		}) {
			// "actually, forget the no-deps rule" takes back what it
			// names, not this answer: a name both share ("Jonas") does
			// not make it one.
			continue
		}
		if len(named) > 0 {
			for _, w := range named {
				if containsStem(ws, w) {
					return back, true
				}
			}
			continue
		}
		for _, w := range ws {
			if len(w) >= 5 && content(w) && containsStem(qw, w) {
				return back, false
			}
		}
	}
	return "", false
}

// takenBackObject is what a prompt says it takes back, as its content
// words: the words after its first verb of taking back, to the end of
// the clause ("forget the no-deps rule, ..." gives deps, rule). None
// when it names nothing of its own ("scratch that", "forget what I
// said").
func takenBackObject(prompt string) []string {
	ws := strings.Fields(strings.ToLower(prompt))
	for i, w := range ws {
		switch strings.Trim(w, ",.;:!?") {
		case "forget", "scratch", "scrap", "drop", "ignore", "undo", "cancel", "revert", "disregard":
		default:
			continue
		}
		if strings.ContainsAny(w, ",.;:!?") {
			return nil // "scratch that." or "forget it,": nothing named
		}
		var obj []string
		for _, x := range ws[i+1:] {
			end := strings.ContainsAny(x, ",.;:!?—")
			for _, f := range fields(x) {
				if content(f) && !pointsBack(f) {
					obj = append(obj, f)
				}
			}
			if end || x == "—" || x == "and" || x == "but" {
				break
			}
		}
		return obj
	}
	return nil
}

// takingBackPart is the part of a prompt past its opening (a line, a
// sentence, or a clause after a comma or "and") that opens, after a
// lead-in ("and", "oh", "also"), with a verb of taking back followed by
// what was said ("forget what I said about the formatter: keep the
// comma", "and scratch my earlier answer"): the part to the end of the
// prompt. "" when none does.
func takingBackPart(prompt string) string {
	cut := func(r rune) bool { return r == '\n' || r == '.' || r == ';' || r == ',' || r == '!' || r == '?' }
	start := 0
	for start < len(prompt) {
		i := strings.IndexFunc(prompt[start:], cut)
		if i < 0 {
			break
		}
		start += i + 1
		ws := fields(prompt[start:])
		for len(ws) > 0 && (interjection(ws[0]) || ws[0] == "and" || ws[0] == "also" || ws[0] == "but" || ws[0] == "plus") {
			ws = ws[1:]
		}
		if len(ws) < 2 || !takingBackVerb(ws[0]) {
			continue
		}
		// What follows names what was said ("what I said", "my
		// answer", "that"), not a thing to leave out of the work
		// ("forget the cache").
		if slices.ContainsFunc(ws[1:min(len(ws), 5)], pointsBack) || ws[1] == "that" || ws[1] == "it" {
			return strings.TrimLeft(strings.TrimSpace(prompt[start:]), "-*• ")
		}
	}
	return ""
}

// takingBackVerb: a verb that takes back what was said.
func takingBackVerb(w string) bool {
	switch w {
	case "forget", "scratch", "scrap", "disregard", "ignore", "undo", "cancel", "revert":
		return true
	}
	return false
}

// pointsBack: a word that names what was said rather than a thing.
func pointsBack(w string) bool {
	switch w {
	case "said", "wrote", "told", "earlier", "before", "last", "previous", "answer", "reply", "message", "point", "idea",
		"thing", "part", "bit", "mine", "above", "those", "these":
		return true
	}
	return false
}

// affirms: a word that agrees or refuses, naming nothing.
func affirms(w string) bool {
	switch w {
	case "yes", "yep", "yeah", "sure", "okay", "please", "nope", "fine", "go", "ahead", "do", "it":
		return true
	}
	return false
}

// turnsBack: a prompt that opens by taking back what was said, maybe
// after an interjection ("hm, actually scrap that", "ok wait").
func turnsBack(ws []string) bool {
	if turnWord(ws[0]) {
		return true
	}
	if len(ws) > 1 && interjection(ws[0]) && turnWord(ws[1]) {
		return true
	}
	return len(ws) > 2 && ws[0] == "on" && ws[1] == "second" && ws[2] == "thought"
}

func turnWord(w string) bool {
	switch w {
	case "wait", "actually", "hmm", "hold", "scratch", "scrap", "correction", "sorry", "oops", "no", "nope", "hang", "undo", "revert", "instead":
		return true
	}
	return false
}

// interjection: a word a prompt opens with before it says anything.
func interjection(w string) bool {
	switch w {
	case "hm", "hmm", "hmmm", "oh", "ah", "uh", "um", "umm", "erm", "ok", "okay", "so", "well", "ugh", "argh", "welp":
		return true
	}
	return false
}

// foundIn says whether most of a subagent's report r is sentences the
// findings hold (a report's findings are the session's own): at least half
// its bytes.
func foundIn(r string, findings []string) bool {
	covered := 0
	for _, f := range findings {
		if f = strings.Join(strings.Fields(f), " "); len(f) >= 20 && strings.Contains(r, f) {
			covered += len(f)
		}
	}
	return covered*2 >= len(r)
}
