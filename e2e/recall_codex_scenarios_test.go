//go:build unix

package e2e

import "github.com/cairn-agent/cairn/e2e/codex"

// The Codex recall bench's scenarios: each a session of its own kind, in
// a toolchain of its own, its user writing in a style of their own, the
// agent using Codex's tools (exec_command, apply_patch, update_plan), with
// facts planted where they occur. Toolchains the machine may lack are
// stand-ins on PATH that print what the real tool would.

func cxText(text string, tokens int) codex.Reply { return codex.Reply{Text: text, InputTokens: tokens} }

func cxCmd(text, command string, tokens int) codex.Reply {
	return codex.Reply{Text: text, Command: command, InputTokens: tokens}
}

func cxPatch(text, patch string, tokens int) codex.Reply {
	return codex.Reply{Text: text, Patch: patch, InputTokens: tokens}
}

// codexRecallScenarios are the scenarios the Codex recall bench runs.
func codexRecallScenarios() []cxScenario {
	return []cxScenario{cxLedgerAuto(), cxQuoteInTurn(), cxHelmManual(), cxCargoTwice(), cxNpmLongSecrets()}
}

// cxLedgerAuto: a terse user, a Go test that fails then passes, a
// decision with its reason, a plan, remaining work as a numbered list and
// a finding about another file; compacted automatically at the next turn.
func cxLedgerAuto() cxScenario {
	return cxScenario{
		Name:        "ledger-auto",
		Shape:       "Go, auto at a turn's start; terse user, go test fail then pass, update_plan, numbered next steps",
		Compactions: []string{"auto"},
		Files: map[string]string{
			"go.mod":                    "module example.com/ledger\n\ngo 1.22\n",
			"internal/ledger/ledger.go": "package ledger\n\n// Total sums amounts.\nfunc Total(amounts []float64) float64 {\n\tvar t float64\n\tfor _, a := range amounts {\n\t\tt += a\n\t}\n\treturn t\n}\n",
			"internal/report/pdf.go":    "package report\n\nimport \"fmt\"\n\nfunc Amount(a float64) string { return fmt.Sprintf(\"%.2f\", a) }\n",
		},
		Bins: map[string]string{"go": `#!/bin/sh
# stand-in for go test on this project
if grep -q 'int64' internal/ledger/cents.go 2>/dev/null; then
  echo 'ok  	example.com/ledger/internal/ledger	0.004s'
  exit 0
fi
cat <<'EOF'
--- FAIL: TestMonthlyTotal (0.00s)
    ledger_test.go:31: Total(march) = 1033.09, want 1033.10
FAIL
FAIL	example.com/ledger/internal/ledger	0.005s
EOF
exit 1
`},
		Script: func(dir string) []cxTurn {
			return []cxTurn{
				{Prompt: "LEDG-311: monthly ledger totals drift by a cent. fix it. no new deps. keep the public API of package ledger unchanged.", Replies: []codex.Reply{
					cxCmd("Running the ledger tests first.", "go test ./internal/ledger/", 12000),
					cxPatch("TestMonthlyTotal fails: it wants 1033.10 and gets 1033.09. I'll keep the sums in int64 cents instead of float64, because float addition is not associative and the error grows with the number of entries.",
						"*** Begin Patch\n*** Add File: internal/ledger/cents.go\n+package ledger\n+\n+// Cents is an amount in cents.\n+type Cents int64\n*** End Patch\n", 14000),
					cxCmd("", "go test ./internal/ledger/", 15000),
					cxText("The ledger tests pass now.", 16000),
				}},
				{Prompt: "ok. what remains", Replies: []codex.Reply{
					{Plan: [][2]string{{"Sum ledger amounts in int64 cents", "completed"}, {"Migrate the CSV importer to cents", "pending"}, {"Add a property test that sums in random order", "pending"}}, InputTokens: 17000},
					cxText("Remaining:\n1. Migrate the CSV importer (internal/importer/csv.go) to cents\n2. Add a property test that sums in random order\n\nAlso: internal/report/pdf.go formats amounts with %.2f on a float64, so the PDF will need the same change.", cxFull),
				}},
				{Prompt: "go on", Replies: []codex.Reply{cxText("Continuing with the importer.", 8000)}},
			}
		},
		Facts: []fact{
			lit("ticket", "LEDG-311"),
			lit("constraint: deps", "no new deps"),
			lit("constraint: API", "keep the public API of package ledger unchanged"),
			lit("file created", "internal/ledger/cents.go"),
			rx("failed command, exit code", `(?i)go test \./internal/ledger/[^\n]{0,80}exit (code )?1\b`),
			rx("failure fixed", `(?i)\b(fixed|resolved)[^\n]{0,40}go test \./internal/ledger/|go test \./internal/ledger/[^\n]{0,80}(fixed|resolved|now pass)`),
			lit("decision", "int64 cents instead of float64"),
			lit("decision's reason", "float addition is not associative"),
			lit("next step 1", "Migrate the CSV importer"),
			lit("open task", "property test that sums in random order"),
			rx("finding: the PDF formats floats", `internal/report/pdf\.go[^\n]{0,80}%\.2f`),
		},
	}
}

// cxQuoteInTurn: a chatty user, files read, a piped pytest run that
// printed failures (the pipe exits 0), a question answered by the user, a
// test left failing on purpose, and a compaction inside a turn, right
// after a tool call.
func cxQuoteInTurn() cxScenario {
	return cxScenario{
		Name:        "quote-in-turn",
		Shape:       "Python/pytest, auto inside a turn; chatty user, piped test failures, files read, question answered, work deferred",
		Compactions: []string{"in-turn"},
		Files: map[string]string{
			"shipping/__init__.py": "",
			"shipping/quote.py":    "def quote(address, weight):\n    zone = ZONES[address['postal_code'][0]]\n    return zone.rate(weight)\n",
			"docs/carriers.md":     "# Carriers\n\nCanada Post: PO boxes accept ground parcels.\n",
		},
		Bins: map[string]string{"pytest": `#!/bin/sh
# stand-in for pytest on this project
if [ -f shipping/normalise.py ]; then
  cat <<'EOF'
.......................F                                                  [100%]
FAILED tests/test_quote.py::test_rural_route - KeyError: 'RR'
1 failed, 23 passed in 0.41s
EOF
  exit 1
fi
cat <<'EOF'
..F....................F                                                  [100%]
FAILED tests/test_quote.py::test_po_box_canada - KeyError: 'postal_code'
FAILED tests/test_quote.py::test_rural_route - KeyError: 'postal_code'
2 failed, 22 passed in 0.44s
EOF
exit 1
`},
		Script: func(dir string) []cxTurn {
			return []cxTurn{
				{Prompt: "hi there! so the shipping quote endpoint 500s for PO boxes in canada, that's SHIP-88 :) could you dig in? oh and please keep everything python 3.9 compatible, the lambda runtime is stuck on it", Replies: []codex.Reply{
					cxCmd("Let me read the quote module first.", "sed -n 1,80p shipping/quote.py", 11000),
					cxCmd("", "pytest -q tests/test_quote.py 2>&1 | tail -15", 12000),
					cxText("Two tests fail, test_po_box_canada and test_rural_route, both with KeyError: 'postal_code'. shipping/quote.py reads address['postal_code'], but the Canada Post adapter sends the key as 'postalCode'.", 13000),
				}},
				{Prompt: "ahh nice catch!! is there anything we need to sort out before i can merge?", Replies: []codex.Reply{
					cxText("Two things before merging:\n- Should PO boxes get ground-only rates? docs/carriers.md says PO boxes accept ground parcels, but not whether express is refused.\n- test_rural_route will probably still fail after the key fix: it expects a surcharge table we don't have.", 14000),
				}},
				{Prompt: "ground only for PO boxes, yes. rural route can wait, leave that test failing for now, I'll open a ticket", Replies: []codex.Reply{
					cxPatch("I'll add a normalise_address() helper rather than patching each adapter, because three adapters spell the key differently.",
						"*** Begin Patch\n*** Add File: shipping/normalise.py\n+def normalise_address(address):\n+    out = dict(address)\n+    for key in ('postalCode', 'postcode', 'zip'):\n+        if key in out:\n+            out['postal_code'] = out.pop(key)\n+    return out\n*** End Patch\n", 15000),
					cxCmd("", "pytest -q tests/ 2>&1 | tail -15", cxFull),
					cxText("test_po_box_canada passes now; test_rural_route still fails, as agreed.", 9000),
				}},
				{Prompt: "cool, what's next?", Replies: []codex.Reply{cxText("Wiring normalise_address() into the three adapters.", 9500)}},
			}
		},
		Facts: []fact{
			lit("ticket", "SHIP-88"),
			lit("constraint: python 3.9", "python 3.9 compatible"),
			lit("key file read", "shipping/quote.py"),
			pipedFailed("piped command: pytest run failed", `pytest -q tests/test_quote\.py`, `(?i)pytest -q tests/test_quote\.py[^\n]{0,200}(fail|2 failed)|2 failed, 22 passed`),
			lit("finding: the adapter's key", "postalCode"),
			lit("decision", "normalise_address() helper rather than patching each adapter"),
			lit("decision's reason", "three adapters spell the key differently"),
			lit("decision (the user's answer): ground only", "ground only for PO boxes"),
			lit("file created", "shipping/normalise.py"),
			rx("open thread: test_rural_route left failing", `test_rural_route`),
		},
	}
}

// cxHelmManual: a non-native user deploying a Helm chart, secrets in a
// prompt and in a command's output, a lint that fails then passes, a
// decision with its reason, open items said a turn before, and /compact
// typed in the TUI.
func cxHelmManual() cxScenario {
	return cxScenario{
		Name:        "helm-manual",
		Shape:       "Helm/k8s, manual /compact in the TUI (tmux); non-native user, lint fail then pass, 3 secrets",
		Compactions: []string{"manual"},
		Files: map[string]string{
			"charts/api/Chart.yaml":    "apiVersion: v2\nname: api\nversion: 0.4.0\n",
			"charts/api/values.yaml":   "replicaCount: 3\nimage:\n  repository: registry.example.net/api\n",
			"charts/common/Chart.yaml": "apiVersion: v2\nname: common\nversion: 1.2.0\n",
			".env.staging":             "DATABASE_URL=postgres://api@db.staging-fra.internal/api\nGITHUB_TOKEN=ghp_Q7cXr2LmN8pT4vW6yZ0aB3dE5fG1hJ9kLmNo\nSTRIPE_SECRET_KEY=sk_live_51HxQ2rT8uV4wX6yZ9aB1cD3eF5gH7jK\n",
		},
		Bins: map[string]string{"helm": `#!/bin/sh
# stand-in for helm lint on this project
if grep -q 'resources:' charts/api/values.yaml 2>/dev/null; then
  echo '==> Linting charts/api'
  echo '1 chart(s) linted, 0 chart(s) failed'
  exit 0
fi
echo '==> Linting charts/api'
echo '[ERROR] templates/deployment.yaml: resources.limits is required by the staging policy'
echo 'Error: 1 chart(s) linted, 1 chart(s) failed'
exit 1
`},
		Script: func(dir string) []cxTurn {
			return []cxTurn{
				{Prompt: "Hello. We must deploy the api chart on the cluster staging-fra, it is ticket PLAT-902. Please do not change anything in charts/common, it is shared with the other team. The database password is Zq8vR2pLx9Tw if you need it, but never write it in git.", Replies: []codex.Reply{
					cxCmd("Let me look at the staging environment first.", "cat .env.staging", 10000),
					cxCmd("", "helm lint charts/api", 11000),
					cxPatch("helm lint fails: charts/api/values.yaml has no resources block, and the staging policy wants limits. I'll set requests to 250m CPU and 512Mi memory, because the staging nodes are e2-standard-2 and three replicas must fit on one node.",
						"*** Begin Patch\n*** Update File: charts/api/values.yaml\n@@\n image:\n   repository: registry.example.net/api\n+resources:\n+  requests:\n+    cpu: 250m\n+    memory: 512Mi\n*** End Patch\n", 12000),
					cxCmd("", "helm lint charts/api", 13000),
					cxText("helm lint passes now. The database password and the keys in .env.staging belong in a SealedSecret, not in values.yaml.", 14000),
				}},
				{Prompt: "Good. And what about the ingress?", Replies: []codex.Reply{
					cxText("The ingress will use the host api.staging-fra.example.net. Still to do:\n- create the SealedSecret for the database password\n- check that the cert-manager issuer letsencrypt-staging exists on staging-fra", 15000),
				}},
				{Compact: true, Prompt: "Continue please.", Replies: []codex.Reply{cxText("Continuing with the SealedSecret.", 6000)}},
				{Prompt: "What is still missing?", Replies: []codex.Reply{cxText("Only the issuer check.", 6500)}},
			}
		},
		Facts: []fact{
			lit("ticket", "PLAT-902"),
			lit("constraint: charts/common", "do not change anything in charts/common"),
			lit("file edited", "charts/api/values.yaml"),
			rx("failed command, exit code", `(?i)helm lint charts/api[^\n]{0,80}exit (code )?1\b`),
			rx("failure fixed", `(?i)\b(fixed|resolved)[^\n]{0,40}helm lint|helm lint charts/api[^\n]{0,80}(fixed|resolved|now pass)`),
			lit("decision", "250m CPU and 512Mi memory"),
			lit("decision's reason", "three replicas must fit on one node"),
			lit("finding: secrets go to a SealedSecret", "belong in a SealedSecret"),
			lit("next step 1", "create the SealedSecret for the database password"),
			lit("next step 2", "letsencrypt-staging"),
		},
		Secrets: []secret{
			{"GitHub token", "ghp_Q7cXr2LmN8pT4vW6yZ0aB3dE5fG1hJ9kLmNo"},
			{"Stripe secret key", "sk_live_51HxQ2rT8uV4wX6yZ9aB1cD3eF5gH7jK"},
			{"database password pasted in a prompt", "Zq8vR2pLx9Tw"},
		},
	}
}

// cxCargoTwice: a Rust crate over two automatic compactions, facts
// planted before each; the user reverses a decision between them, and a
// clippy failure is still open at the second.
func cxCargoTwice() cxScenario {
	return cxScenario{
		Name:        "cargo-twice",
		Shape:       "Rust/cargo, auto twice; facts before each, a decision reversed, clippy failure left open",
		Compactions: []string{"auto", "auto"},
		Files: map[string]string{
			"Cargo.toml":   "[package]\nname = \"tilecache\"\nversion = \"0.3.1\"\nedition = \"2021\"\n",
			"src/lib.rs":   "pub mod cache;\n",
			"src/cache.rs": "pub struct Cache;\n",
		},
		Bins: map[string]string{"cargo": `#!/bin/sh
# stand-in for cargo on this project
case "$1" in
test)
  echo 'running 14 tests'
  echo 'test result: ok. 14 passed; 0 failed; 0 ignored'
  exit 0 ;;
clippy)
  echo 'error: this MutexGuard is held across an await point'
  echo '  --> src/cache.rs:41:13'
  echo 'error: could not compile tilecache (lib) due to 1 previous error'
  exit 101 ;;
esac
exit 0
`},
		Script: func(dir string) []cxTurn {
			return []cxTurn{
				{Prompt: "Tile cache evicts hot tiles under load (TILE-57). Use an LRU. Don't touch benches/, those numbers are published.", Replies: []codex.Reply{
					cxPatch("Going with the lru crate's LruCache over a hand-rolled list, since it is already in the lockfile through the renderer.",
						"*** Begin Patch\n*** Update File: src/cache.rs\n@@\n-pub struct Cache;\n+pub struct Cache {\n+    inner: lru::LruCache<u64, Vec<u8>>,\n+}\n*** End Patch\n", 15000),
					cxCmd("", "cargo test", 16000),
					cxText("cargo test passes: 14 tests.", cxFull),
				}},
				{Prompt: "Next: make the capacity configurable.", Replies: []codex.Reply{
					cxText("I'll read TILECACHE_CAPACITY from the environment, default 4096 tiles.", 9000),
				}},
				{Prompt: "Actually no env vars. Take the capacity from config.toml, key cache.capacity.", Replies: []codex.Reply{
					cxPatch("Understood: capacity comes from config.toml's cache.capacity, no environment variable.",
						"*** Begin Patch\n*** Add File: src/config.rs\n+pub struct Config { pub capacity: usize }\n*** End Patch\n", 10000),
					cxCmd("", "cargo clippy -- -D warnings", 11000),
					cxText("clippy fails: a MutexGuard is held across an await point in src/cache.rs:41. Not fixed yet; I'll move the lock into a block that ends before the await.", cxFull),
				}},
				{Prompt: "ok", Replies: []codex.Reply{cxText("Moving the lock.", 7000)}},
			}
		},
		Facts: []fact{
			lit("ticket", "TILE-57"),
			lit("constraint: benches", "Don't touch benches/"),
			lit("file edited", "src/cache.rs"),
			lit("decision", "lru crate's LruCache over a hand-rolled list"),
			lit("decision's reason", "already in the lockfile through the renderer"),
			rx("command passed", `(?i)cargo test[^\n]{0,80}(exit 0|pass)`).until(1),
			lit("late decision (the user's reversal)", "config.toml, key cache.capacity").from(2),
			lit("late file", "src/config.rs").from(2),
			rx("failed command, exit code", `(?i)cargo clippy[^\n]{0,80}exit (code )?101\b`).from(2),
			lit("finding: the clippy error", "MutexGuard is held across an await point").from(2),
			rx("next step", `(?i)move the lock into a block`).from(2),
		},
	}
}
