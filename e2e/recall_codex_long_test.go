//go:build unix

package e2e

import "github.com/cairn-agent/cairn/e2e/codex"

// cxNpmLongSecrets: a long TypeScript session (eight turns, a dozen
// commands and patches) with secrets in a file read, in a command's
// output, in the user's sentence and in the agent's text; a piped jest
// run that printed a failure left open, decisions early and late, and the
// remaining work said three turns before an automatic compaction.
func cxNpmLongSecrets() cxScenario {
	return cxScenario{
		Name:        "npm-long-secrets",
		Shape:       "TypeScript/npm, auto after eight turns; a dozen commands and patches, piped jest failure left open, 4 secrets",
		Compactions: []string{"auto"},
		Files: map[string]string{
			"package.json":          "{\n  \"name\": \"notify\",\n  \"scripts\": {\"test\": \"jest\", \"build\": \"tsc -p .\"}\n}\n",
			".npmrc":                "//registry.npmjs.org/:_authToken=npm_T0kQ9xW3vB7nM2cL5pR8sZ1yA4dF6gH0jK2m\n",
			".env.local":            "AWS_ACCESS_KEY_ID=AKIAQ4NOTIFY7EXAMPLE\nAWS_REGION=eu-west-1\n",
			"src/notify/email.ts":   "export function send(to: string) {\n  return fetch('https://mail.internal/send', {method: 'POST', body: to});\n}\n",
			"src/notify/sms.ts":     "export function send(to: string) {\n  return to;\n}\n",
			"src/notify/retry.ts":   "export const attempts = 3;\n",
			"src/notify/webhook.ts": "export const url = process.env.SLACK_WEBHOOK;\n",
		},
		Bins: map[string]string{"npm": `#!/bin/sh
# stand-in for npm on this project
if [ "$1" = "test" ]; then
  cat <<'OUT'
 PASS  src/notify/email.test.ts
 FAIL  src/notify/retry.test.ts
  ● backoff › doubles the delay up to the cap
    expected 8000, received 16000
Tests:       1 failed, 37 passed, 38 total
OUT
  exit 1
fi
echo '> notify@1.0.0 build'
echo '> tsc -p .'
exit 0
`},
		Script: func(dir string) []cxTurn {
			n := 8000
			next := func() int { n += 2500; return n }
			return []cxTurn{
				{Prompt: "NOTIF-1207. Notifications go out twice when the mail relay times out. Dedupe them. Rule: no changes to the public send() signatures, other services import them.", Replies: []codex.Reply{
					cxCmd("Reading the notify package.", "sed -n 1,40p src/notify/email.ts", next()),
					cxCmd("", "cat src/notify/retry.ts", next()),
					cxCmd("", "cat .npmrc", next()),
					cxText("The retry wraps the whole send, so a timeout after the relay accepted the mail sends it again. I'll dedupe with an idempotency key per message, stored in Redis with a 24h TTL, because the relay keeps no state we could query.", next()),
				}},
				{Prompt: "ok do it", Replies: []codex.Reply{
					cxPatch("", "*** Begin Patch\n*** Add File: src/notify/idempotency.ts\n+export function key(id: string): string {\n+  return `notif:${id}`;\n+}\n*** End Patch\n", next()),
					cxPatch("", "*** Begin Patch\n*** Update File: src/notify/email.ts\n@@\n-export function send(to: string) {\n+export function send(to: string, id = '') {\n*** End Patch\n", next()),
					cxCmd("", "npm run build", next()),
					cxText("The build passes with the idempotency key in email.ts.", next()),
				}},
				{Prompt: "the aws key for the redis test env is in .env.local, and the signing secret for the webhook is hx7-Pq2mZ9-wLr4 fyi", Replies: []codex.Reply{
					cxCmd("", "cat .env.local", next()),
					cxText("Got it. I'll post the dedupe alerts to https://hooks.slack.com/services/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 once it is wired.", next()),
				}},
				{Prompt: "what's left after this?", Replies: []codex.Reply{
					cxText("Left after this:\n1. Apply the same key to src/notify/sms.ts\n2. Document the 24h TTL in docs/notify.md\n3. Load-test the relay timeout path with 500 messages", next()),
				}},
				{Prompt: "run the tests", Replies: []codex.Reply{
					cxCmd("", "npm test 2>&1 | tail -8", next()),
					cxText("One test fails: retry.test.ts expects the backoff to cap at 8000 ms and gets 16000. That is the existing backoff in src/notify/retry.ts, not the dedupe. I'll leave it for now and mention it in the PR.", next()),
				}},
				{Prompt: "fine. sms next", Replies: []codex.Reply{
					cxPatch("", "*** Begin Patch\n*** Update File: src/notify/sms.ts\n@@\n-export function send(to: string) {\n+export function send(to: string, id = '') {\n*** End Patch\n", next()),
					cxCmd("", "npm run build", next()),
					cxText("sms.ts takes the key too; the build passes.", next()),
				}},
				{Prompt: "and the webhook module?", Replies: []codex.Reply{
					cxPatch("Switching webhook.ts to read the URL from the secrets manager instead of the environment, since the environment is dumped into crash reports.",
						"*** Begin Patch\n*** Update File: src/notify/webhook.ts\n@@\n-export const url = process.env.SLACK_WEBHOOK;\n+export const url = secrets.get('slack-webhook');\n*** End Patch\n", next()),
					cxCmd("", "npm run build", next()),
					cxText("webhook.ts reads from the secrets manager now.", cxFull),
				}},
				{Prompt: "ok continue", Replies: []codex.Reply{cxText("Moving on to the docs.", 9000)}},
			}
		},
		Facts: []fact{
			lit("ticket", "NOTIF-1207"),
			lit("constraint: send() signatures", "no changes to the public send() signatures"),
			lit("early decision", "idempotency key per message"),
			lit("early decision's reason", "the relay keeps no state we could query"),
			lit("early file", "src/notify/idempotency.ts"),
			lit("late file", "src/notify/webhook.ts"),
			lit("late decision", "secrets manager instead of the environment"),
			lit("late decision's reason", "the environment is dumped into crash reports"),
			pipedFailed("piped command: npm test failed", `npm test`, `(?i)npm test[^\n]{0,200}(fail|1 failed)|1 failed, 37 passed`),
			lit("finding: the backoff cap", "16000"),
			lit("open thread: the failing test left", "retry.test.ts"),
			lit("next step 2", "Document the 24h TTL"),
			lit("next step 3", "Load-test the relay timeout path"),
		},
		Secrets: []secret{
			{"npm token in a file read", "npm_T0kQ9xW3vB7nM2cL5pR8sZ1yA4dF6gH0jK2m"},
			{"AWS access key id in a command's output", "AKIAQ4NOTIFY7EXAMPLE"},
			{"signing secret in the user's sentence", "hx7-Pq2mZ9-wLr4"},
			{"Slack webhook URL in the agent's text", "https://hooks.slack.com/services/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"},
		},
	}
}
