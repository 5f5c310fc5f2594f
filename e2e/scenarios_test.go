package e2e

import (
	"fmt"
	"path/filepath"

	"github.com/cairn-agent/cairn/e2e/fakeapi"
)

// The scenarios of the continuity tests and the recall report. Each plants
// its facts before the compaction in a different mix; none of them is in
// the prompts of the turns after it, nor in the fake's summary. A scenario
// is built for a trigger: "auto" makes the last reply before the
// compaction report fullUsage, so the next turn compacts; "manual" runs
// /compact instead.

// usageAt is a reply's usage with n tokens of context.
func usageAt(n int) fakeapi.Usage {
	return fakeapi.Usage{InputTokens: n - 1000, CacheReadInputTokens: 1000, OutputTokens: 40}
}

func reply(text string, n int, tools ...fakeapi.ToolUse) fakeapi.Reply {
	return fakeapi.Reply{Text: text, Tools: tools, Usage: usageAt(n)}
}

func bash(id, command, description string) fakeapi.ToolUse {
	return fakeapi.ToolUse{ID: id, Name: "Bash", Input: map[string]any{"command": command, "description": description}}
}

func write(id, path, content string) fakeapi.ToolUse {
	return fakeapi.ToolUse{ID: id, Name: "Write", Input: map[string]any{"file_path": path, "content": content}}
}

func edit(id, path, old, new string) fakeapi.ToolUse {
	return fakeapi.ToolUse{ID: id, Name: "Edit", Input: map[string]any{"file_path": path, "old_string": old, "new_string": new}}
}

func todoWrite(id string, todos ...[2]string) fakeapi.ToolUse {
	var list []map[string]any
	for _, td := range todos {
		list = append(list, map[string]any{"content": td[0], "status": td[1], "activeForm": td[0]})
	}
	return fakeapi.ToolUse{ID: id, Name: "TodoWrite", Input: map[string]any{"todos": list}}
}

func taskCreate(id, subject, description string) fakeapi.ToolUse {
	return fakeapi.ToolUse{ID: id, Name: "TaskCreate", Input: map[string]any{"subject": subject, "description": description}}
}

// read is a Read tool call.
func read(id, path string) fakeapi.ToolUse {
	return fakeapi.ToolUse{ID: id, Name: "Read", Input: map[string]any{"file_path": path}}
}

// agentCall delegates to a subagent in the foreground, so that the
// subagent's requests take the scripted replies right after this one.
func agentCall(id, kind, description, prompt string) fakeapi.ToolUse {
	return fakeapi.ToolUse{ID: id, Name: "Agent", Input: map[string]any{
		"description": description, "prompt": prompt, "subagent_type": kind, "run_in_background": false}}
}

func taskUpdate(id, taskID, status string) fakeapi.ToolUse {
	return fakeapi.ToolUse{ID: id, Name: "TaskUpdate", Input: map[string]any{"taskId": taskID, "status": status}}
}

// full is a reply that fills the context, so the next request compacts
// (the next turn's, or, when it calls tools, the one returning their
// results).
func full(text string, tools ...fakeapi.ToolUse) fakeapi.Reply {
	return fakeapi.Reply{Text: text, Tools: tools, Usage: fullUsage}
}

// pipedFailed is the fact that a piped test run failed although the pipe
// exited 0 (`... | tail` prints the failures, and the client records exit
// 0): want matches where the failure is told, and a request that reports
// command cmd as ending with exit 0 or succeeding contradicts it.
func pipedFailed(name, cmd string, want ...string) fact {
	return rx(name, want...).notRx(`(?i)` + cmd + `[^\n]{0,80}(exit(ed)?( with)?( code| status)? 0\b|\bsucceeded\b|\bsuccess(ful(ly)?)?\b|\bgreen\b|all (tests )?pass)`)
}

// checkScript is a project script that fails with code until file holds
// text, then passes: the same command fails, the agent edits, it passes.
func checkScript(file, text, fail string, code int) string {
	return fmt.Sprintf("#!/bin/sh\n# bench check\nif grep -q '%s' %s 2>/dev/null; then\n  echo 'ok: %s'\n  exit 0\nfi\necho '%s' >&2\nexit %d\n",
		text, file, file, fail, code)
}

// forTrigger sets the scenario's trigger and, for "auto", makes the last
// reply before the compaction fill the context.
func forTrigger(sc scenario, trigger string) scenario {
	sc.Trigger = trigger
	script := sc.Script
	sc.Script = func(dir string) (before, after []turn) {
		before, after = script(dir)
		if trigger == "auto" {
			last := &before[len(before)-1]
			last.Replies[len(last.Replies)-1].Usage = fullUsage
		}
		return before, after
	}
	return sc
}

// billingScenario is the example: an invoice export fixed under a
// ticket, with a check that fails then passes, a TodoWrite list, and next
// steps as a numbered list.
func billingScenario(ticket, trigger string) scenario {
	sc := scenario{
		Name:  "billing-" + trigger,
		Shape: "Go, one compaction; the issue's example (fail then pass, TodoWrite, numbered next steps)",
		Files: map[string]string{
			"check.sh":                     checkScript("export/invoice.go", `"encoding/csv"`, "FAIL: export/invoice.go quotes CSV fields by hand", 3),
			"migrations/0001_invoices.sql": "CREATE TABLE invoices (id INTEGER PRIMARY KEY, customer TEXT);\n",
		},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "CLAUDE_CODE_ENABLE_TASKS=0"},
		AllowedTools:   []string{"Bash(sh:*)"},
		PermissionMode: "acceptEdits",
		Script: func(dir string) (before, after []turn) {
			inv := filepath.Join(dir, "export", "invoice.go")
			manual := "package export\n\nimport \"strings\"\n\n// Row quotes one invoice row.\nfunc Row(fields []string) string {\n\tfor i, f := range fields {\n\t\tif strings.ContainsAny(f, \",\\\"\") {\n\t\t\tfields[i] = `\"` + strings.ReplaceAll(f, `\"`, `\"\"`) + `\"`\n\t\t}\n\t}\n\treturn strings.Join(fields, \",\")\n}\n"
			before = []turn{
				{
					Prompt: "Work on " + ticket + ": the invoice CSV export breaks when a customer name contains a comma. Never modify the migrations folder. Use pnpm, not npm.",
					Replies: []fakeapi.Reply{
						reply("I'll start with the exporter.", 21000, write("toolu_write_inv", inv, manual)),
						reply("", 22000, bash("toolu_check_1", "sh ./check.sh", "Run the export check")),
						reply("The check fails. I'll use encoding/csv rather than manual quoting because it handles embedded newlines.", 23000,
							edit("toolu_edit_inv", inv, "import \"strings\"", "import (\n\t\"encoding/csv\"\n\t\"strings\"\n)\n\nvar _ = csv.NewWriter")),
						reply("", 24000, bash("toolu_check_2", "sh ./check.sh", "Run the export check again")),
						reply("", 25000, todoWrite("toolu_todo",
							[2]string{"Fix CSV quoting of customer names", "completed"},
							[2]string{"Document the CSV format in docs/export.md", "pending"})),
						reply("The export check passes now.", 26000),
					},
				},
				{
					Prompt:  "Good. What is left?",
					Replies: []fakeapi.Reply{reply("Next steps:\n1. Add a regression test for customer names with embedded newlines\n2. Wire the export into the nightly billing job", 27000)},
				},
			}
			after = []turn{
				{Prompt: "Carry on with that.", Replies: []fakeapi.Reply{reply("On it.", 5000)}},
				{Prompt: "And after that?", Replies: []fakeapi.Reply{reply("Then the billing job.", 6000)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", ticket),
			lit("constraint: migrations", "Never modify the migrations folder"),
			lit("constraint: pnpm", "Use pnpm, not npm"),
			lit("file edited", "export/invoice.go"),
			rx("failed command, exit code", `(?i)check\.sh[^\n]{0,80}exit (code )?3`),
			rx("failure fixed", `(?i)(fixed|resolved)[^\n]{0,40}check\.sh|check\.sh[^\n]{0,80}(fixed|resolved|now pass)`),
			lit("decision", "encoding/csv rather than manual quoting"),
			lit("decision's reason", "because it handles embedded newlines"),
			lit("next step 1", "regression test for customer names with embedded newlines"),
			lit("next step 2", "nightly billing job"),
			lit("open todo", "Document the CSV format in docs/export.md"),
		},
	}
	return forTrigger(sc, trigger)
}

// ratesScenario is a rate cache under a ticket, with a lint that fails
// then passes, a task from TaskCreate, and next steps after a sentence.
func ratesScenario(ticket, trigger string) scenario {
	sc := scenario{
		Name:  "rates-" + trigger,
		Shape: "Go, one compaction; TaskCreate, lint fail then pass",
		Files: map[string]string{
			"lint.sh": checkScript("internal/rates/cache.go", "sync.Map", "lint: internal/rates/cache.go: map guarded by a mutex on the read path", 2),
			"go.mod":  "module example.com/rates\n\ngo 1.22\n",
		},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1"},
		AllowedTools:   []string{"Bash(sh:*)"},
		PermissionMode: "acceptEdits",
		Script: func(dir string) (before, after []turn) {
			cache := filepath.Join(dir, "internal", "rates", "cache.go")
			src := "package rates\n\nimport \"sync\"\n\n// Cache holds exchange rates by currency pair.\ntype Cache struct {\n\tmu sync.Mutex\n\tm  map[string]float64\n}\n"
			before = []turn{
				{
					Prompt: "Pick up " + ticket + ": exchange rate lookups are slow under load, add a cache. Do not add new dependencies. Always run go vet before committing.",
					Replies: []fakeapi.Reply{
						reply("", 12000, taskCreate("toolu_task", "Benchmark the rate lookup with the cache", "Compare p99 latency before and after the cache")),
						reply("Writing the cache.", 13000, write("toolu_write_cache", cache, src)),
						reply("", 14000, bash("toolu_lint_1", "sh ./lint.sh", "Lint the rates package")),
						reply("Lint objects to the lock on the read path. I'll go with sync.Map instead of a mutex-guarded map because reads vastly outnumber writes.", 15000,
							edit("toolu_edit_cache", cache, "\tmu sync.Mutex\n\tm  map[string]float64", "\tm sync.Map // currency pair -> rate")),
						reply("", 16000, bash("toolu_lint_2", "sh ./lint.sh", "Lint again")),
						reply("Lint is clean.", 17000),
					},
				},
				{
					Prompt:  "Fine. Where are we?",
					Replies: []fakeapi.Reply{reply("The cache is in place.\n\nNext steps:\n1. Expire cached rates after fifteen minutes\n2. Add a metric for the cache hit ratio", 18000)},
				},
			}
			after = []turn{
				{Prompt: "Go ahead with the first one.", Replies: []fakeapi.Reply{reply("Starting.", 4000)}},
				{Prompt: "Then the second.", Replies: []fakeapi.Reply{reply("Noted.", 4500)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", ticket),
			lit("constraint: dependencies", "Do not add new dependencies"),
			lit("constraint: go vet", "Always run go vet before committing"),
			lit("file edited", "internal/rates/cache.go"),
			rx("failed command, exit code", `(?i)lint\.sh[^\n]{0,80}exit (code )?2`),
			rx("failure fixed", `(?i)(fixed|resolved)[^\n]{0,40}lint\.sh|lint\.sh[^\n]{0,80}(fixed|resolved|now pass)`),
			lit("decision", "sync.Map instead of a mutex-guarded map"),
			lit("decision's reason", "because reads vastly outnumber writes"),
			lit("next step 1", "Expire cached rates after fifteen minutes"),
			lit("next step 2", "metric for the cache hit ratio"),
			lit("open task", "Benchmark the rate lookup with the cache"),
		},
	}
	return forTrigger(sc, trigger)
}

// deployScenario leaves an error unresolved at the compaction, changes
// several files, states its next move as a sentence rather than a list,
// and words its constraints and decision differently.
func deployScenario(ticket, trigger string) scenario {
	sc := scenario{
		Name:  "deploy-" + trigger,
		Shape: "Go/k8s, one compaction; unresolved error, next step as a sentence",
		Files: map[string]string{
			"smoke.sh":            "#!/bin/sh\necho 'smoke: /healthz returned 503 on staging-eu' >&2\nexit 4\n",
			"vendor/lib/lib.go":   "package lib\n",
			"deploy/staging.yaml": "replicas: 1\n",
		},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1"},
		AllowedTools:   []string{"Bash(sh:*)", "Bash(echo:*)"},
		PermissionMode: "acceptEdits",
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			before = []turn{
				{
					Prompt: ticket + " - the staging rollout needs readiness probes. Don't touch the vendor directory.",
					Replies: []fakeapi.Reply{
						reply("", 15000, edit("toolu_edit_staging", p("deploy/staging.yaml"), "replicas: 1\n", "replicas: 2\nreadinessProbe:\n  path: /healthz\n")),
						reply("", 16000, write("toolu_write_probe", p("deploy/probe.go"), "package deploy\n\n// Ready reports readiness.\nfunc Ready() bool { return true }\n")),
						reply("", 17000, write("toolu_write_probe_test", p("deploy/probe_test.go"), "package deploy\n\nimport \"testing\"\n\nfunc TestReady(t *testing.T) {}\n")),
						reply("", 18000, taskCreate("toolu_task_canary", "Roll the canary to 10% once smoke passes", "Canary after smoke")),
						reply("The probe is wired.", 18500),
					},
				},
				{
					Prompt: "Keep rollouts to one region at a time. Run the smoke test now.",
					Replies: []fakeapi.Reply{
						reply("", 19000, bash("toolu_smoke", "sh ./smoke.sh", "Smoke test staging")),
						reply("Smoke fails with a 503. Going with a startup delay of 20s since the cache warm-up takes 15s.", 20000,
							edit("toolu_edit_delay", p("deploy/staging.yaml"), "  path: /healthz\n", "  path: /healthz\n  initialDelaySeconds: 20\n")),
						reply("", 21000, bash("toolu_echo", "echo redeploy staging-eu", "Note the redeploy")),
						reply("The delay is in. Next, I'll rerun the smoke test against staging-eu and read the pod logs.", 22000),
					},
				},
			}
			after = []turn{
				{Prompt: "Please continue.", Replies: []fakeapi.Reply{reply("Continuing.", 4000)}},
				{Prompt: "Anything else?", Replies: []fakeapi.Reply{reply("Not yet.", 4200)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", ticket),
			lit("constraint: vendor", "Don't touch the vendor directory"),
			lit("constraint: one region", "Keep rollouts to one region at a time"),
			lit("file edited", "deploy/staging.yaml"),
			lit("file created", "deploy/probe_test.go"),
			rx("failed command, exit code", `(?i)smoke\.sh[^\n]{0,80}exit (code )?4`),
			rx("still failing", `(?i)unresolved[^\n]{0,40}smoke\.sh|smoke\.sh[^\n]{0,80}(unresolved|still fail)`),
			lit("decision", "startup delay of 20s since the cache warm-up takes 15s"),
			lit("next step", "rerun the smoke test against staging-eu"),
			lit("open task", "Roll the canary to 10% once smoke passes"),
		},
	}
	return forTrigger(sc, trigger)
}

// longScenario is a longer session: eight turns, a dozen files and
// commands, so the restore must fit a budget; facts planted early (the
// ticket, constraints, the first decision, the first file) compete with
// late ones.
func longScenario(ticket, trigger string) scenario {
	sc := scenario{
		Name:           "long-" + trigger,
		Shape:          "Go, one compaction; eight turns, a dozen files and commands",
		Files:          map[string]string{"migrate.sh": "#!/bin/sh\necho 'migrate: column ingest.batch_id is missing' >&2\nexit 5\n"},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "CLAUDE_CODE_ENABLE_TASKS=0"},
		AllowedTools:   []string{"Bash(sh:*)", "Bash(echo:*)"},
		PermissionMode: "acceptEdits",
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			n := 10000
			next := func() int { n += 1500; return n }
			var t1 []fakeapi.Reply
			t1 = append(t1,
				reply("Decision: keep the parser streaming, since input files can exceed memory.", next(),
					write("toolu_w0", p("ingest/parser.go"), "package ingest\n\n// Parse streams records.\nfunc Parse() {}\n")))
			for i := 1; i <= 5; i++ {
				t1 = append(t1, reply("", next(), write(fmt.Sprintf("toolu_w%d", i), p(fmt.Sprintf("ingest/stage%d.go", i)), fmt.Sprintf("package ingest\n\n// Stage%d is step %d.\nfunc Stage%d() {}\n", i, i, i))))
			}
			t1 = append(t1, reply("The parser and five stages are written.", next()))
			var t2 []fakeapi.Reply
			for i := 1; i <= 6; i++ {
				t2 = append(t2, reply("", next(), bash(fmt.Sprintf("toolu_e%d", i), fmt.Sprintf("echo stage %d ok", i), fmt.Sprintf("Check stage %d", i))))
			}
			t2 = append(t2, reply("Every stage reports ok.", next()))
			var t3 []fakeapi.Reply
			for i := 1; i <= 5; i++ {
				t3 = append(t3, reply("", next(), edit(fmt.Sprintf("toolu_d%d", i), p(fmt.Sprintf("ingest/stage%d.go", i)), fmt.Sprintf("step %d.", i), fmt.Sprintf("step %d, batched.", i))))
			}
			t3 = append(t3,
				reply("", next(), todoWrite("toolu_todos",
					[2]string{"Batch every stage", "completed"},
					[2]string{"Backfill the batch_id column for March", "pending"},
					[2]string{"Load-test ingest with 50 GB of input", "pending"})),
				reply("Stages are batched.", next()))
			before = []turn{
				{Prompt: "Start on " + ticket + ": rebuild the ingest pipeline as streaming stages. Never push to the main branch directly.", Replies: t1},
				{Prompt: "Make sure every new file has a license header. Now check each stage.", Replies: t2},
				{Prompt: "Batch the stages.", Replies: t3},
				{Prompt: "Run the migration.", Replies: []fakeapi.Reply{
					reply("", next(), bash("toolu_migrate", "sh ./migrate.sh", "Run the ingest migration")),
					reply("The migration fails: batch_id is missing. I'll use zstd rather than gzip for the batch files because it decompresses faster.", next(),
						write("toolu_w_compress", p("ingest/compress.go"), "package ingest\n\n// Codec is zstd.\nconst Codec = \"zstd\"\n")),
					reply("Compression is switched; the migration still needs the column.", next()),
				}},
				{Prompt: "What now?", Replies: []fakeapi.Reply{reply("Next steps:\n- Add the batch_id column in a new migration\n- Rerun sh ./migrate.sh\n- Tag the ingest release candidate", next())}},
			}
			after = []turn{
				{Prompt: "Do it.", Replies: []fakeapi.Reply{reply("Adding the column.", 5000)}},
				{Prompt: "Status?", Replies: []fakeapi.Reply{reply("Column added.", 5200)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", ticket),
			lit("constraint: main branch", "Never push to the main branch directly"),
			lit("constraint: license", "every new file has a license header"),
			lit("first file", "ingest/parser.go"),
			lit("late file", "ingest/compress.go"),
			rx("failed command, exit code", `(?i)migrate\.sh[^\n]{0,80}exit (code )?5`),
			lit("early decision", "keep the parser streaming, since input files can exceed memory"),
			lit("late decision", "zstd rather than gzip for the batch files because it decompresses faster"),
			lit("next step", "Add the batch_id column in a new migration"),
			lit("open todo 1", "Backfill the batch_id column for March"),
			lit("open todo 2", "Load-test ingest with 50 GB of input"),
		},
	}
	return forTrigger(sc, trigger)
}

// recallScenarios are the scenarios the recall report runs.
func recallScenarios() []scenario {
	return []scenario{
		billingScenario("BILL-482", "auto"),
		ratesScenario("PAY-1193", "manual"),
		deployScenario("OPS-77", "auto"),
		longScenario("DATA-5150", "auto"),
		recallPytest(),
		recallMixInTurn(),
		recallCargoTwice(),
		recallVitestThree(),
		recallGradleSubagents(),
		recallTerraformSecrets(),
		recallSQLLong(),
		recallInteractiveTasks(),
		recallCeleryManual(),
	}
}
