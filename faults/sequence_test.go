package faults

import (
	"fmt"
	"path/filepath"
	"regexp"
)

// Fake credentials of the families cairn's redaction knows (see
// internal/redact), planted in prompts, commands, command output, the
// assistant's text, todos and a compaction summary. Prefixes are split so
// that secret scanners reading this file do not take them for real ones.
// Needle is what no file cairn writes may contain: the part of the secret
// that survives any escaping.
type secret struct {
	Family string
	Value  string
	Needle string
}

var secrets = []secret{
	{"anthropic-key", "sk-" + "ant-api03-" + "FaultQz7Lm2Xv9Rk4Tp8Wn3Jd6Hs1Gc5Bf0Ay7Ue2Io9-AA", "FaultQz7Lm2Xv9Rk4Tp8Wn3Jd6Hs1Gc5Bf0Ay7Ue2Io9"},
	{"aws-key", "AK" + "IA" + "FLTQ3EGRIBPTX7YU", "FLTQ3EGRIBPTX7YU"},
	{"github-token", "gh" + "p_" + "FaultGh5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA", "FaultGh5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA"},
	{"slack-token", "xo" + "xb-" + "1234567890-0987654321098-FaultSlkAbCdEfGhIjKlMnOp", "FaultSlkAbCdEfGhIjKlMnOp"},
	{"jwt", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJmYXVsdHMiLCJuYW1lIjoiRmF1bHQifQ.FaultSigKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQ", "FaultSigKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQ"},
	{"private-key", "-----BEGIN " + "RSA PRIVATE KEY-----\nMIIEpFaultKeyBodyAKCAQEA3Tz2mr7SZiAMfQyuvBjM2f\nq1x8WmOjJ4bQhF0yFvN0x9Yy\n-----END RSA PRIVATE KEY-----", "MIIEpFaultKeyBodyAKCAQEA3Tz2mr7SZiAMfQyuvBjM2f"},
	{"postgres-url", "postgres://app:Fault-Pg-s3cr3t-91@db.internal:5432/app", "Fault-Pg-s3cr3t-91"},
	{"password", "DB_PASSWORD=FaultPw-hunter2-77", "FaultPw-hunter2-77"},
	{"bearer-token", "Bearer FaultBearerTok5f3a9c2e1b7d", "FaultBearerTok5f3a9c2e1b7d"},
	{"private", "<private>my locker code is private-marker-q7z4</private>", "private-marker-q7z4"},
}

func secretValue(family string) string {
	for _, s := range secrets {
		if s.Family == family {
			return s.Value
		}
	}
	panic("no secret " + family)
}

// phase is the work planted before one compaction: its facts must be in
// that compaction's restore and its steering.
type phase struct {
	N       int
	Trigger string // auto or manual
	Ticket  string
	// Constraint is a user constraint in the phase's first prompt.
	Constraint string
	File       string // relative to the project, written with Write
	Command    string // run with Bash, ends with exit code Exit
	Exit       int
	Todo       string // in progress
	Decision   string
}

var phases = []phase{
	{N: 1, Trigger: "auto", Ticket: "FLT-101", Constraint: "Never touch the vendor/alpha folder.", File: "internal/alpha/retry.go",
		Command: "go test ./internal/alpha/...", Exit: 1, Todo: "Add alpha retry backoff",
		Decision: "I'll use exponential backoff because the alpha API rate-limits bursts."},
	{N: 2, Trigger: "manual", Ticket: "FLT-202", Constraint: "Never touch the vendor/beta folder.", File: "internal/beta/flag.go",
		Command: "make beta-check", Exit: 2, Todo: "Wire the beta flag",
		Decision: "I'll keep the flag off by default because beta users opt in."},
	{N: 3, Trigger: "auto", Ticket: "FLT-303", Constraint: "Never touch the vendor/gamma folder.", File: "internal/gamma/cache.go",
		Command: "go vet ./internal/gamma", Exit: 3, Todo: "Warm the gamma cache",
		Decision: "I'll warm the cache lazily because startup time matters more."},
}

// facts are what the restore of the phase's compaction must carry.
func (p phase) facts() []fact {
	return []fact{
		{"ticket", regexp.MustCompile(regexp.QuoteMeta(p.Ticket))},
		{"constraint", regexp.MustCompile(regexp.QuoteMeta(p.Constraint[:len(p.Constraint)-1]))},
		{"file", regexp.MustCompile(regexp.QuoteMeta(p.File))},
		{"command", regexp.MustCompile(regexp.QuoteMeta(p.Command) + "`? → exit " + fmt.Sprint(p.Exit))},
		{"todo", regexp.MustCompile(regexp.QuoteMeta(p.Todo))},
	}
}

// steerFacts are what its steering must carry at least one of.
func (p phase) steerFacts() []fact {
	return []fact{
		{"ticket", regexp.MustCompile(regexp.QuoteMeta(p.Ticket))},
		{"file", regexp.MustCompile(regexp.QuoteMeta(p.File))},
	}
}

type fact struct {
	Name string
	Re   *regexp.Regexp
}

// summary is the compaction summary the client reports in PostCompact
// and writes after the boundary: a poor one, with a secret the summariser
// echoed.
func summary(n int) string {
	return fmt.Sprintf("<analysis>x</analysis>\n<summary>1. Primary Request: working on some code (part %d). The staging token was %s.</summary>", n, secretValue("anthropic-key"))
}

// sequence plays a session of Claude Code 2.1.328 with three compactions:
// auto, manual (/compact), auto. Between them are turns with tool calls,
// at least two prompts after each compaction, and once the user quits
// and resumes the session.
func (w *world) sequence() {
	w.hook(w.sessionStart("startup"))
	// The first prompt's hook runs before the transcript exists.
	w.turn("Hello, let's get started on the services repo.", []int{22000}, nil, "Ready. What should I work on?")
	for _, p := range phases {
		w.plant(p)
		switch p.Trigger {
		case "auto":
			w.autoCompact(p)
		case "manual":
			w.manualCompact(p)
		}
		// At least two prompts after every compaction, the fallback's
		// chances to deliver a restore SessionStart did not.
		w.turn(fmt.Sprintf("Carry on with %s.", p.Ticket), []int{28000 + 1000*p.N, 31000 + 1000*p.N},
			[]tool{{Name: "Read", Input: map[string]any{"file_path": w.abs(p.File)}, Result: "     1\tpackage x\n",
				Response: map[string]any{"type": "text", "file": map[string]any{"filePath": w.abs(p.File), "content": "package x\n", "numLines": 1, "startLine": 1, "totalLines": 1}}}},
			"Picked up where we were.")
		if p.Trigger == "manual" {
			w.quitAndResume()
		}
		w.turn("What is left after that?", []int{35000 + 1000*p.N}, nil, "Only the items in the todo list.")
	}
	w.hook(event{Name: "SessionEnd", Payload: w.payload("SessionEnd", map[string]any{"reason": "other"})})
}

func (w *world) abs(rel string) string { return filepath.Join(w.project, rel) }

func (w *world) sessionStart(source string) event {
	extra := map[string]any{"source": source}
	switch source {
	case "resume":
		extra["seconds_since_last_response"] = 3
		extra["context_tokens"] = 40000
		extra["prompt_cache_likely_expired"] = false
	case "compact":
		extra["model"] = "claude-opus-4-6"
	}
	return event{Name: "SessionStart", Payload: w.payload("SessionStart", extra)}
}

// turn is a prompt (UserPromptSubmit first, then the line), tool calls
// with their PostToolUse, and a final reply. contexts are the context
// tokens of the replies, one per tool call then one for the text.
func (w *world) turn(prompt string, contexts []int, tools []tool, reply string) {
	w.hook(event{Name: "UserPromptSubmit", Payload: w.payload("UserPromptSubmit", map[string]any{"permission_mode": "acceptEdits", "prompt": prompt})})
	w.userPrompt(prompt)
	for i, tc := range tools {
		w.toolCall(tc, contexts[min(i, len(contexts)-1)])
	}
	w.assistantText(reply, contexts[len(contexts)-1])
}

// plant does the phase's work, crossing the pressure levels on the way
// to an auto-compaction (70%, 85% and 95% of the 167,000-token point).
func (w *world) plant(p phase) {
	base := 40000
	ctx := func(i int) int { return base + i*24000 } // 40k .. 160k
	if p.Trigger == "manual" {
		ctx = func(i int) int { return base + i*9000 } // stays under L1
	}
	first := fmt.Sprintf("Now %s. %s Use the staging token %s and the database at %s. %s",
		p.Ticket, p.Constraint, secretValue("anthropic-key"), secretValue("postgres-url"), secretValue("private"))
	w.turn(first, []int{ctx(0), ctx(1), ctx(2)}, []tool{
		writeTool(w.abs(p.File), "package x\n\n// Retry settings.\nconst attempts = 3\n"),
		bashTool(p.Command, "--- FAIL: TestPlanted (0.00s)\n    planted_test.go:12: got 1 want 2", p.Exit),
	}, p.Decision)
	w.turn("Keep going, and track the remaining work in todos.", []int{ctx(3), ctx(4)}, []tool{
		todoTool([]todo{{p.Todo, "in_progress"}, {"Rotate the leaked key " + secretValue("github-token"), "pending"}}),
		bashTool(`curl -sf -H "Authorization: `+secretValue("bearer-token")+`" https://deploy.internal/ping`,
			"ok AccessKeyId="+secretValue("aws-key")+"\n"+secretValue("private-key"), 0),
	}, fmt.Sprintf("Done so far. The old config held the Slack token %s and the session cookie %s; I moved them out.",
		secretValue("slack-token"), secretValue("jwt")))
	w.turn("Check the local database config too. "+secretValue("password"), []int{ctx(5)}, []tool{
		bashTool(secretValue("password")+" ./scripts/dbcheck.sh", "db ok", 0),
	}, "The local database answers.")
}

// autoCompact is what the client does when a prompt overflows: the
// prompt's hook, its line, PreCompact(auto) whose stdout steers the
// summary, SessionStart(compact) before the boundary is written, then the
// boundary and summary, PostCompact, and the next request. The observed
// order writes the boundary after PostCompact (e2e/README.md); the last
// compaction writes it between SessionStart and PostCompact instead, as
// the issue describes, so both are played.
func (w *world) autoCompact(p phase) {
	prompt := "Next, finish the remaining steps."
	w.hook(event{Name: "UserPromptSubmit", Payload: w.payload("UserPromptSubmit", map[string]any{"permission_mode": "acceptEdits", "prompt": prompt})})
	w.userPrompt(prompt)
	w.hook(event{Name: "PreCompact", Compaction: p.N, Payload: w.payload("PreCompact", map[string]any{"trigger": "auto", "custom_instructions": nil})})
	w.steered = nil // it went to the summariser's request, not the transcript
	w.beginCompaction(p.N)
	w.hook(w.sessionStart("compact"))
	post := event{Name: "PostCompact", Payload: w.payload("PostCompact", map[string]any{"trigger": "auto", "compact_summary": summary(p.N)})}
	if p.N == len(phases) {
		w.boundary(p, 167000+p.N*10)
		w.hook(post)
	} else {
		w.hook(post)
		w.boundary(p, 167000+p.N*10)
	}
	w.assistantText("Continuing with the remaining steps.", 14000+p.N*100)
}

// manualCompact is /compact typed in the interactive session:
// PreCompact(manual) with the command's arguments, SessionStart(compact),
// PostCompact, then the boundary, the summary and the command's lines.
// No checkpoint is taken between the previous compaction and this one
// (the context stays under the pressure levels), so a restore built from
// the latest stored checkpoint would show the previous compaction's.
func (w *world) manualCompact(p phase) {
	args := "keep the " + p.Ticket + " work"
	w.hook(event{Name: "PreCompact", Compaction: p.N, Payload: w.payload("PreCompact", map[string]any{"trigger": "manual", "custom_instructions": args})})
	w.beginCompaction(p.N)
	w.hook(w.sessionStart("compact"))
	w.hook(event{Name: "PostCompact", Payload: w.payload("PostCompact", map[string]any{"trigger": "manual", "compact_summary": summary(p.N)})})
	w.boundary(p, 98000)
	// The command's output shows what the hooks printed: PreCompact's
	// steering too.
	out := "Compacted (ctrl+o to see full summary)"
	for _, st := range w.steered {
		out += "\nPreCompact [" + cairnBin + " hook PreCompact] completed successfully: " + st
	}
	w.steered = nil
	for i, content := range []string{
		"<local-command-caveat>The command below was run directly in Claude Code, not sent to you as a request, and its output goes straight to the user. It's recorded here as context for later messages.</local-command-caveat>",
		"<command-name>/compact</command-name>\n            <command-message>compact</command-message>\n            <command-args>" + args + "</command-args>",
		"<local-command-stdout>" + out + "</local-command-stdout>",
	} {
		w.appendLine(map[string]any{"type": "user", "isMeta": i == 0, "message": map[string]any{"role": "user", "content": content}})
	}
	w.flushAttachments()
}

// quitAndResume is the user leaving the client and coming back with
// `claude --resume`: SessionEnd, then SessionStart(resume).
func (w *world) quitAndResume() {
	w.hook(event{Name: "SessionEnd", Payload: w.payload("SessionEnd", map[string]any{"reason": "prompt_input_exit"})})
	w.hook(w.sessionStart("resume"))
}

// beginCompaction marks the start of compaction n: from its
// SessionStart(compact) on, restores delivered are counted for it.
func (w *world) beginCompaction(n int) {
	w.mu.Lock()
	w.window = n
	w.mu.Unlock()
}

func (w *world) boundary(p phase, pre int) {
	logical := w.lastUUID
	w.appendLine(map[string]any{"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted",
		"isMeta": false, "level": "info", "parentUuid": nil, "logicalParentUuid": logical,
		"compactMetadata": map[string]any{"trigger": p.Trigger, "preTokens": pre, "postTokens": 2600,
			"cumulativeDroppedTokens": pre - 2600, "durationMs": 1200, "preCompactOrganizationsCoverStart": false}})
	w.appendLine(map[string]any{"type": "user", "isCompactSummary": true, "isVisibleInTranscriptOnly": true,
		"message": map[string]any{"role": "user", "content": "This session is being continued from a previous conversation that ran out of context. The summary below covers the earlier portion of the conversation.\n\nSummary:\n" + summary(p.N) +
			"\n\nIf you need specific details from before compaction (like exact code snippets, error messages, or content you generated), read the full transcript at: " + w.transcript}})
	if p.Trigger == "auto" {
		// SessionStart's answer is written after the summary.
		w.flushAttachments()
	}
}
