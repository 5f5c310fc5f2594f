//go:build unix

package e2e

import (
	"path/filepath"

	"github.com/cairn-agent/cairn/e2e/gemini"
)

// The Gemini recall bench's scenarios: each a session of its own kind, in
// a toolchain of its own, its user writing in a style of their own, the
// agent using Gemini CLI's tools (run_shell_command, read_file,
// write_file, replace, write_todos), with facts planted where they occur.
// Toolchains the machine may lack are stand-ins on PATH that print what
// the real tool would.

func gmText(text string, tokens int) gemini.Reply {
	return gemini.Reply{Text: text, PromptTokens: tokens}
}

func gmCmd(text, command string, tokens int) gemini.Reply {
	return gemini.Reply{Text: text, Command: command, PromptTokens: tokens}
}

func gmCall(text, tool string, args map[string]any, tokens int) gemini.Reply {
	return gemini.Reply{Text: text, Call: tool, Args: args, PromptTokens: tokens}
}

func gmWrite(text, path, content string, tokens int) gemini.Reply {
	return gmCall(text, "write_file", map[string]any{"file_path": path, "content": content}, tokens)
}

func gmReplace(text, path, old, new string, tokens int) gemini.Reply {
	return gmCall(text, "replace", map[string]any{"file_path": path, "old_string": old, "new_string": new,
		"instruction": "apply the change described"}, tokens)
}

// geminiRecallScenarios are the scenarios the Gemini recall bench runs.
func geminiRecallScenarios() []gmScenario {
	return []gmScenario{gmInvoiceInTurn(), gmRetryAuto(), gmHelmManual(), gmWorkerSecrets()}
}

// gmInvoiceInTurn: a chatty user, a pytest run that fails, a fix by
// replace, the run passing, a decision with its reason, work left open in
// a list; compressed in the middle of a later turn, after a tool call.
func gmInvoiceInTurn() gmScenario {
	return gmScenario{
		Name:         "invoice-in-turn",
		Shape:        "Python/pytest, auto inside a turn; chatty user, pytest fail then pass, replace, open items said two turns before",
		Compressions: []string{"in-turn"},
		Files: map[string]string{
			"invoicing/__init__.py": "",
			"invoicing/tax.py":      "def vat(amount, rate):\n    return round(amount * rate, 2)\n",
			"invoicing/pdf.py":      "def render(invoice):\n    return f\"{invoice.total:.2f}\"\n",
		},
		Bins: map[string]string{"pytest": `#!/bin/sh
# stand-in for pytest on this project
if grep -q 'Decimal' invoicing/tax.py 2>/dev/null; then
  echo '......................                                                   [100%]'
  echo '22 passed in 0.31s'
  exit 0
fi
echo '.....F................                                                   [100%]'
echo 'FAILED tests/test_tax.py::test_vat_half_cent - AssertionError: assert 0.12 == 0.13'
echo '1 failed, 21 passed in 0.35s'
exit 1
`},
		Script: func(dir string) []gmTurn {
			tax := filepath.Join(dir, "invoicing", "tax.py")
			return []gmTurn{
				{Prompt: "Hi! So we've had a customer complaint (ticket INV-2207) that VAT on some invoices is off by a cent. Could you have a look? Oh and one thing, please keep everything python 3.8 compatible, our prod boxes are old.", Replies: []gemini.Reply{
					gmCmd("Let me run the tax tests first.", "pytest -q tests/test_tax.py", 9000),
					gmReplace("test_vat_half_cent fails: 0.12 instead of 0.13. Python's round() rounds half to even on binary floats. I'm switching vat() to Decimal with ROUND_HALF_UP, since invoices must round half-cents up by law and floats cannot hold 0.125 exactly.",
						tax, "def vat(amount, rate):\n    return round(amount * rate, 2)\n",
						"from decimal import Decimal, ROUND_HALF_UP\n\n\ndef vat(amount, rate):\n    q = Decimal(str(amount)) * Decimal(str(rate))\n    return q.quantize(Decimal(\"0.01\"), rounding=ROUND_HALF_UP)\n", 10000),
					gmCmd("", "pytest -q tests/test_tax.py", 11000),
					gmText("The tax tests pass now (22 passed).", 12000),
				}},
				{Prompt: "Lovely, thank you! Anything else we should worry about while we're here?", Replies: []gemini.Reply{
					gmCall("Let me check how the PDF shows totals.", "read_file", map[string]any{"file_path": filepath.Join(dir, "invoicing", "pdf.py")}, 13000),
					gmText("Two things are still open:\n- invoicing/pdf.py formats the total with an f-string on a float, so the PDF can still disagree with the stored VAT\n- the credit-note path has no test for half-cent amounts yet", 14000),
				}},
				{Prompt: "Hmm ok, let's leave those for a bit. Can you check what's in the invoicing package for me?", Replies: []gemini.Reply{
					gmCmd("Listing the package.", "ls invoicing", gmFull),
					gmText("The package holds __init__.py, pdf.py and tax.py.", 3000),
				}},
				{Prompt: "Great, where were we?", Replies: []gemini.Reply{gmText("We fixed the VAT rounding; two items are open.", 4000)}},
			}
		},
		Facts: []fact{
			lit("ticket", "INV-2207"),
			lit("constraint: python 3.8", "python 3.8 compatible"),
			lit("file edited", "invoicing/tax.py"),
			rx("failed command, exit code", `(?i)pytest -q tests/test_tax\.py[^\n]{0,80}exit (code )?1\b`),
			rx("failure fixed", `(?i)\b(fixed|resolved)[^\n]{0,40}pytest|pytest -q tests/test_tax\.py[^\n]{0,80}(fixed|resolved|now pass|passed)`),
			lit("finding: the failing test", "test_vat_half_cent"),
			lit("decision", "Decimal with ROUND_HALF_UP"),
			lit("decision's reason", "round half-cents up by law"),
			rx("open item 1: the PDF", `invoicing/pdf\.py[^\n]{0,80}f-string`),
			lit("open item 2: credit notes", "credit-note path has no test"),
		},
	}
}

// gmRetryAuto: a terse user, a Go build that fails on an undefined name,
// fixed by a new file, the build and tests passing, a plan as todos, the
// user changing a value the agent chose; compressed right after an edit
// in the second turn. (Not at a turn's start: each `gemini -p` is a new
// process, which does not know the prompt count the last one saw, so it
// compresses only within a turn; the TUI keeps it across turns.)
func gmRetryAuto() gmScenario {
	return gmScenario{
		Name:         "retry-auto",
		Shape:        "Go, auto inside a turn, right after an edit; terse lower-case user, build error fixed by a new file, write_todos, the user's change to a decision",
		Compressions: []string{"in-turn"},
		Files: map[string]string{
			"go.mod":                 "module example.com/relay\n\ngo 1.22\n",
			"internal/retry/loop.go": "package retry\n\nfunc Wait(n int) { sleep(backoff(n)) }\n",
		},
		Bins: map[string]string{"go": `#!/bin/sh
# stand-in for go build / go test on this project
if [ -f internal/retry/backoff.go ]; then
  case "$1" in
  test) echo 'ok  	example.com/relay/internal/retry	0.006s' ;;
  esac
  exit 0
fi
echo '# example.com/relay/internal/retry'
echo 'internal/retry/loop.go:3:26: undefined: backoff'
exit 1
`},
		Script: func(dir string) []gmTurn {
			return []gmTurn{
				{Prompt: "RLY-64. retries hammer the upstream. add backoff. stdlib only, no x/ packages.", Replies: []gemini.Reply{
					gmCmd("Building first.", "go build ./...", 9000),
					gmWrite("The build fails: internal/retry/loop.go:3:26: undefined: backoff. I'll add internal/retry/backoff.go with full jitter (a random wait up to the capped exponential), because synchronized retries from many relays are what hammer the upstream.",
						filepath.Join(dir, "internal", "retry", "backoff.go"), "package retry\n\nimport (\n\t\"math/rand\"\n\t\"time\"\n)\n\nfunc backoff(n int) time.Duration {\n\td := min(time.Second<<n, 30*time.Second)\n\treturn time.Duration(rand.Int63n(int64(d)))\n}\n", 10000),
					gmCmd("", "go build ./... && go test ./internal/retry/", 11000),
					gmCall("", "write_todos", map[string]any{"todos": []any{
						map[string]any{"description": "Add backoff with full jitter", "status": "completed"},
						map[string]any{"description": "Honour Retry-After from the upstream", "status": "pending"},
						map[string]any{"description": "Expose retry counts as a metric", "status": "pending"}}}, 12000),
					gmText("Builds, tests pass. Next: honour Retry-After, then a retry-count metric.", 13000),
				}},
				{Prompt: "cap 30s is too long. make it 10s max. skip the metric, ops has one.", Replies: []gemini.Reply{
					gmReplace("Lowering the cap to 10s as you asked.", filepath.Join(dir, "internal", "retry", "backoff.go"), "30*time.Second", "10*time.Second", gmFull),
					gmText("Cap is 10s now. I'll drop the metric from the plan; Retry-After is what remains.", 3000),
				}},
				{Prompt: "ok. status?", Replies: []gemini.Reply{gmText("Backoff is in with a 10s cap; Retry-After is next.", 3000)}},
				{Prompt: "go on", Replies: []gemini.Reply{gmText("Reading the upstream client for Retry-After.", 4000)}},
			}
		},
		Facts: []fact{
			lit("ticket", "RLY-64"),
			lit("constraint: stdlib only", "stdlib only"),
			rx("failed command, exit code", `(?i)go build \./\.\.\.[^\n]{0,80}exit (code )?1\b`),
			lit("finding: the build error", "undefined: backoff"),
			lit("file created", "internal/retry/backoff.go"),
			rx("failure fixed", `(?i)\b(fixed|resolved)[^\n]{0,60}go build|go build \./\.\.\. && go test[^\n]{0,80}(exit 0|pass)`),
			lit("decision", "full jitter"),
			lit("decision's reason", "synchronized retries from many relays"),
			lit("the user's change: 10s cap", "make it 10s max"),
			lit("open item", "Retry-After"),
		},
	}
}

// gmHelmManual: a user writing in a second language, a helm lint that
// fails then passes after an edit to values.yaml, a decision with its
// reason, two secrets (one pasted in a prompt, one in a file the agent
// read), next steps; compressed by hand with /compress in the TUI.
func gmHelmManual() gmScenario {
	return gmScenario{
		Name:         "helm-manual",
		Shape:        "Helm/k8s, manual /compress in the TUI (tmux); non-native user, lint fail then pass, 2 secrets",
		Compressions: []string{"manual"},
		Files: map[string]string{
			"charts/search/Chart.yaml":  "apiVersion: v2\nname: search\nversion: 0.9.1\n",
			"charts/search/values.yaml": "replicaCount: 2\nimage:\n  repository: registry.example.net/search\n",
			"charts/base/Chart.yaml":    "apiVersion: v2\nname: base\nversion: 2.0.0\n",
			".env.prod":                 "OPENSEARCH_URL=https://os.prod-ams.internal\nSLACK_BOT_TOKEN=xoxb-2741-88120-Qm7TzPbK4hVx9sLr\n",
		},
		Bins: map[string]string{"helm": `#!/bin/sh
# stand-in for helm lint on this project
if grep -q 'podDisruptionBudget' charts/search/values.yaml 2>/dev/null; then
  echo '==> Linting charts/search'
  echo '1 chart(s) linted, 0 chart(s) failed'
  exit 0
fi
echo '==> Linting charts/search'
echo '[ERROR] templates/pdb.yaml: podDisruptionBudget.minAvailable is required in prod-ams'
echo 'Error: 1 chart(s) linted, 1 chart(s) failed'
exit 1
`},
		Script: func(dir string) []gmTurn {
			values := filepath.Join(dir, "charts", "search", "values.yaml")
			return []gmTurn{
				{Prompt: "Good morning. I need to deploy search chart to prod-ams cluster, this is ticket OPS-1310. Please, charts/base you must not modify, other team owns it. The admin password of opensearch is Hx4wPq9Lm2Vt, only if you need it, never put in git.", Replies: []gemini.Reply{
					gmCmd("First the prod environment.", "cat .env.prod", 9000),
					gmCmd("", "helm lint charts/search", 10000),
					gmReplace("helm lint fails: prod-ams requires podDisruptionBudget.minAvailable. I set minAvailable to 1 and not 2, because with replicaCount 2 a minimum of 2 would block every node drain.",
						values, "replicaCount: 2\n", "replicaCount: 2\npodDisruptionBudget:\n  minAvailable: 1\n", 11000),
					gmCmd("", "helm lint charts/search", 12000),
					gmText("helm lint passes now. The admin password and the Slack token of .env.prod must go into an ExternalSecret, not into values.yaml.", 13000),
				}},
				{Prompt: "Thank you. What is left before we can deploy?", Replies: []gemini.Reply{
					gmText("Still to do:\n- create the ExternalSecret for the opensearch admin password\n- ask the network team to open port 9200 from prod-ams to the OpenSearch VPC", 14000),
				}},
				{Compress: true, Prompt: "Ok, continue please.", Replies: []gemini.Reply{gmText("Continuing with the ExternalSecret.", 3000)}},
			}
		},
		Facts: []fact{
			lit("ticket", "OPS-1310"),
			lit("constraint: charts/base", "charts/base you must not modify"),
			lit("file edited", "charts/search/values.yaml"),
			rx("failed command, exit code", `(?i)helm lint charts/search[^\n]{0,80}exit (code )?1\b`),
			rx("failure fixed", `(?i)\b(fixed|resolved)[^\n]{0,40}helm lint|helm lint charts/search[^\n]{0,80}(fixed|resolved|now pass|exit 0|passed)`),
			lit("decision", "minAvailable to 1 and not 2"),
			lit("decision's reason", "block every node drain"),
			lit("finding: secrets go to an ExternalSecret", "ExternalSecret"),
			lit("next step 1", "ExternalSecret for the opensearch admin password"),
			lit("next step 2", "open port 9200"),
		},
		Secrets: []secret{
			{"password pasted in a prompt", "Hx4wPq9Lm2Vt"},
			{"Slack bot token in a file read", "xoxb-2741-88120-Qm7TzPbK4hVx9sLr"},
		},
	}
}

// gmWorkerSecrets: a user who writes in headed paragraphs, a long turn of
// commands and edits in TypeScript, a jest run piped into tail whose
// failures the pipe's status hides, left failing on purpose, a token read
// from a file; compressed in the middle of the fourth turn.
func gmWorkerSecrets() gmScenario {
	return gmScenario{
		Name:         "worker-secrets",
		Shape:        "TypeScript/npm, auto inside the 4th turn; headed prompts, piped jest failure left open, write_file + replace, 2 secrets",
		Compressions: []string{"in-turn"},
		Files: map[string]string{
			"package.json":      "{\n  \"name\": \"mail-worker\",\n  \"scripts\": {\"test\": \"jest\"}\n}\n",
			"src/queue.ts":      "export async function take(q: string) {\n  return fetch(q).then(r => r.json());\n}\n",
			"src/send.ts":       "export async function send(m: Msg) {\n  await smtp.send(m);\n}\n",
			"test/send.test.ts": "test('send', () => {});\n",
		},
		Bins: map[string]string{"npx": `#!/bin/sh
# stand-in for npx jest on this project
cat <<'EOF'
PASS test/queue.test.ts
  console.log src/send.ts:3 connecting smtp://mailer:Vb7qK2mX9pL4@smtp.example.net:587
FAIL test/send.test.ts
  ● send › retries a 421 greylisting reply
    expect(received).toBe(expected)
Tests:       1 failed, 11 passed, 12 total
EOF
exit 1
`},
		Script: func(dir string) []gmTurn {
			return []gmTurn{
				{Prompt: "## Context\nMAIL-530: the worker drops messages when SMTP greylists us.\n\n## Constraints\n- do not bump any dependency in package.json\n- keep the public signature of send() as it is\n\n## Ask\nMake send() retry on 4xx replies.", Replies: []gemini.Reply{
					gmCall("Reading the sender.", "read_file", map[string]any{"file_path": filepath.Join(dir, "src", "send.ts")}, 9000),
					gmReplace("send() gives up on the first error. I'll retry only 421 and 450 replies, three times, because 5xx replies are permanent and retrying them gets us blocklisted.",
						filepath.Join(dir, "src", "send.ts"), "  await smtp.send(m);\n", "  await withRetry(() => smtp.send(m), [421, 450], 3);\n", 10000),
					gmWrite("", filepath.Join(dir, "src", "retry.ts"), "export async function withRetry<T>(f: () => Promise<T>, codes: number[], n: number): Promise<T> {\n  for (let i = 0; ; i++) {\n    try { return await f(); } catch (e: any) { if (i >= n || !codes.includes(e.code)) throw e; }\n  }\n}\n", 11000),
					gmText("send() now retries 421 and 450 through src/retry.ts.", 12000),
				}},
				{Prompt: "## Next\nRun the tests and tell me.", Replies: []gemini.Reply{
					gmCmd("", "npx jest 2>&1 | tail -5", 13000),
					gmText("One test still fails: send › retries a 421 greylisting reply. The mock SMTP server in the test answers 421 without a code field, so withRetry never sees e.code. I'll leave it failing until we decide whether the mock or the client is wrong.", 14000),
				}},
				{Prompt: "## Decision\nThe mock is wrong, but leave the test for now. Also the staging webhook secret is whsec_T4nP8vQ2xL6mR9kZ, add it to .env.example as a placeholder name only.", Replies: []gemini.Reply{
					gmWrite("", filepath.Join(dir, ".env.example"), "MAIL_WEBHOOK_SECRET=\n", 15000),
					gmText("Added MAIL_WEBHOOK_SECRET to .env.example with no value.", 16000),
				}},
				{Prompt: "## Ask\nList the src folder.", Replies: []gemini.Reply{
					gmCmd("", "ls src", gmFull),
					gmText("src holds queue.ts, retry.ts and send.ts.", 3000),
				}},
				{Prompt: "## Next\nWhat's open?", Replies: []gemini.Reply{gmText("The failing greylisting test.", 4000)}},
			}
		},
		Facts: []fact{
			lit("ticket", "MAIL-530"),
			lit("constraint: dependencies", "do not bump any dependency"),
			lit("file edited", "src/send.ts"),
			lit("file created", "src/retry.ts"),
			lit("decision", "retry only 421 and 450"),
			lit("decision's reason", "5xx replies are permanent"),
			rx("failed command (piped), failure", `(?i)npx jest[^\n]{0,120}(fail|exit (code )?1\b)`).notRx(`(?i)npx jest[^\n]{0,60}(exit 0|passed)`),
			lit("open item: the failing test", "retries a 421 greylisting reply"),
			lit("finding: the mock's missing code", "without a code field"),
			lit("file created: .env.example", ".env.example"),
		},
		Secrets: []secret{
			{"SMTP password in a test's log", "Vb7qK2mX9pL4"},
			{"webhook secret in a prompt", "whsec_T4nP8vQ2xL6mR9kZ"},
		},
	}
}
