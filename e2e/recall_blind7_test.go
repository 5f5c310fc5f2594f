package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/cairn-agent/cairn/e2e/fakeapi"
)

// The recall bench's seventh blind set: four sessions written without
// reading cairn's extraction code nor any other scenario's facts, only the
// bench's types and helpers. Their first run on main is the measurement;
// nothing in cairn was tuned on them.
//
// Each is a stack no other scenario uses (a Go gRPC service, Rust compiled
// to wasm, a Lua Neovim plugin, an mkdocs docs site and its release
// checklist) in a voice of its own (terse lowercase, chatty with a pasted
// log and config, one who writes lists, a release manager answering one
// word at a time). One rebases with real git conflicts resolved file by
// file across two automatic compactions, one compacts inside a turn right
// after a failing command whose fix is under way, one updates a TodoWrite
// list many times around a manual /compact, one is not code. Three plant a
// secret each, of different kinds: a token in a command's argument, one
// in a pasted log, a key in a file the agent writes.
//
// They run only in the report (TestRecallReport), marked "held-out,
// blind7" in its shape column.

// blind7Scenarios are the seventh blind set the recall report runs.
func blind7Scenarios() []scenario {
	return []scenario{
		blind7GRPCRebase(),
		blind7WasmInTurn(),
		blind7NvimTodos(),
		blind7MkdocsRelease(),
	}
}

// blind7GitEnv is the identity and config the scenario's own git setup
// runs with: nothing from the machine's config.
func blind7GitEnv() []string {
	return append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_AUTHOR_NAME=Ines Okafor", "GIT_AUTHOR_EMAIL=ines@example.invalid",
		"GIT_COMMITTER_NAME=Ines Okafor", "GIT_COMMITTER_EMAIL=ines@example.invalid")
}

// blind7Repo lays out history in the project before the session: a step
// writes files (relative path to content) and runs git commands. A Script
// has no *testing.T, so a broken setup panics, which fails the run.
func blind7Repo(dir string, steps ...any) {
	for _, st := range steps {
		switch st := st.(type) {
		case map[string]string:
			for rel, content := range st {
				p := filepath.Join(dir, rel)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					panic(err)
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					panic(err)
				}
			}
		case []string:
			cmd := exec.Command("git", st...)
			cmd.Dir = dir
			cmd.Env = blind7GitEnv()
			if out, err := cmd.CombinedOutput(); err != nil {
				panic(fmt.Sprintf("git %v: %v\n%s", st, err, out))
			}
		}
	}
}

// blind7GRPCRebase rebases a feature branch of a Go gRPC service onto a
// main that moved tracing to OpenTelemetry, with real git: the first
// commit conflicts in two files, resolved one by one; the first automatic
// compaction comes when the second commit stops on a third conflict. After
// it the rebase ends, a test fails and is fixed, the user answers a
// question in one word and has the agent check CI with a token on the
// command line; a second automatic compaction follows. The user is terse
// and lowercase, and says the 30s cap once, at the start.
func blind7GRPCRebase() scenario {
	serverBase := "package server\n\nimport (\n\t\"context\"\n\n\tledgerv1 \"example.com/ledgerd/gen/ledger/v1\"\n)\n\n// Server serves the ledger API.\ntype Server struct {\n\tledgerv1.UnimplementedLedgerServer\n\tstore Store\n}\n\n// GetBalance returns an account's balance.\nfunc (s *Server) GetBalance(ctx context.Context, req *ledgerv1.GetBalanceRequest) (*ledgerv1.Balance, error) {\n\treturn s.store.Balance(ctx, req.GetAccountId())\n}\n"
	serverFeat := "package server\n\nimport (\n\t\"context\"\n\n\tledgerv1 \"example.com/ledgerd/gen/ledger/v1\"\n)\n\n// Server serves the ledger API.\ntype Server struct {\n\tledgerv1.UnimplementedLedgerServer\n\tstore Store\n}\n\n// GetBalance returns an account's balance.\nfunc (s *Server) GetBalance(ctx context.Context, req *ledgerv1.GetBalanceRequest) (*ledgerv1.Balance, error) {\n\tctx, cancel := context.WithTimeout(ctx, s.budget(ctx))\n\tdefer cancel()\n\treturn s.store.Balance(ctx, req.GetAccountId())\n}\n"
	serverMain := "package server\n\nimport (\n\t\"context\"\n\n\tledgerv1 \"example.com/ledgerd/gen/ledger/v1\"\n)\n\n// Server serves the ledger API.\ntype Server struct {\n\tledgerv1.UnimplementedLedgerServer\n\tstore Store\n}\n\n// GetBalance returns an account's balance.\nfunc (s *Server) GetBalance(ctx context.Context, req *ledgerv1.GetBalanceRequest) (*ledgerv1.Balance, error) {\n\tctx, span := tracer.Start(ctx, \"GetBalance\")\n\tdefer span.End()\n\treturn s.store.Balance(ctx, req.GetAccountId())\n}\n"
	serverResolved := "package server\n\nimport (\n\t\"context\"\n\n\tledgerv1 \"example.com/ledgerd/gen/ledger/v1\"\n)\n\n// Server serves the ledger API.\ntype Server struct {\n\tledgerv1.UnimplementedLedgerServer\n\tstore Store\n}\n\n// GetBalance returns an account's balance.\nfunc (s *Server) GetBalance(ctx context.Context, req *ledgerv1.GetBalanceRequest) (*ledgerv1.Balance, error) {\n\tctx, span := tracer.Start(ctx, \"GetBalance\")\n\tdefer span.End()\n\tctx, cancel := context.WithTimeout(ctx, s.budget(ctx))\n\tdefer cancel()\n\treturn s.store.Balance(ctx, req.GetAccountId())\n}\n"
	changelogBase := "# Changelog\n\n## Unreleased\n\n## 1.14.0\n\n- store: batch balance reads\n"
	changelogFeat := "# Changelog\n\n## Unreleased\n\n- server: propagate client deadlines to the store (LEDG-318)\n\n## 1.14.0\n\n- store: batch balance reads\n"
	changelogMain := "# Changelog\n\n## Unreleased\n\n- tracing: move from OpenCensus to OpenTelemetry\n\n## 1.14.0\n\n- store: batch balance reads\n"
	changelogResolved := "# Changelog\n\n## Unreleased\n\n- tracing: move from OpenCensus to OpenTelemetry\n- server: propagate client deadlines to the store (LEDG-318)\n\n## 1.14.0\n\n- store: batch balance reads\n"
	chainBase := "package server\n\n// Chain lists the unary interceptors, outermost first.\nvar Chain = []string{\n\t\"recovery\",\n\t\"logging\",\n}\n"
	chainFeat := "package server\n\n// Chain lists the unary interceptors, outermost first.\nvar Chain = []string{\n\t\"recovery\",\n\t\"logging\",\n\t\"deadline\",\n}\n"
	chainMain := "package server\n\n// Chain lists the unary interceptors, outermost first.\nvar Chain = []string{\n\t\"recovery\",\n\t\"otel\",\n}\n"
	chainResolved := "package server\n\n// Chain lists the unary interceptors, outermost first.\nvar Chain = []string{\n\t\"recovery\",\n\t\"otel\",\n\t\"deadline\",\n}\n"
	pat := "github_pat_11AOKQ3JY0bLnS7dWc2Xv9_q8RmZtU4hPaE1fGk6NwYo3LbCx5DjHs2MeTiVr7QzKuA9WXY4PLpq2n3vF"
	goBin := `#!/bin/sh
# stand-in for the go tool: the server package's tests
case "$*" in
  "test ./internal/server/...")
    if grep -q 'status.FromContextError' internal/server/server.go; then
      echo "ok  	example.com/ledgerd/internal/server	0.412s"
      exit 0
    fi
    echo "--- FAIL: TestUnaryDeadline (0.01s)"
    echo "    server_test.go:41: GetBalance after deadline: got code Unknown, want DeadlineExceeded"
    echo "FAIL"
    echo "FAIL	example.com/ledgerd/internal/server	0.388s"
    echo "FAIL"
    exit 1
    ;;
esac
echo "go: unexpected arguments: $*" >&2
exit 2
`
	ghBin := `#!/bin/sh
# stand-in for the GitHub CLI: the PR's checks
case "$*" in
  "pr checks 412")
    echo "Some checks were not successful"
    echo "0 cancelled, 1 failing, 3 successful, 0 skipped, and 0 pending checks"
    echo
    echo "   NAME                      DESCRIPTION  ELAPSED  URL"
    echo "X  ci / lint (pull_request)                41s      https://github.com/acme/ledgerd/actions/runs/9182734412/job/25250077331"
    echo "✓  ci / test (pull_request)                2m13s    https://github.com/acme/ledgerd/actions/runs/9182734412/job/25250077402"
    echo "✓  ci / build (pull_request)               1m2s     https://github.com/acme/ledgerd/actions/runs/9182734412/job/25250077188"
    echo "✓  buf / breaking (pull_request)           18s      https://github.com/acme/ledgerd/actions/runs/9182734399/job/25250076950"
    exit 1
    ;;
  "run view 9182734412 --log-failed")
    echo "lint	golangci-lint	2026-11-24T22:41:07.1180000Z internal/server/budget.go:27:15: Error return value of ` + "\\`" + `s.metrics.Observe` + "\\`" + ` is not checked (errcheck)"
    echo "lint	golangci-lint	2026-11-24T22:41:07.1190000Z 1 issues:"
    echo "lint	golangci-lint	2026-11-24T22:41:07.1190000Z * errcheck: 1"
    echo "lint	golangci-lint	2026-11-24T22:41:07.2040000Z ##[error]Process completed with exit code 1."
    exit 0
    ;;
esac
echo "gh: unknown command $*" >&2
exit 1
`
	sc := scenario{
		Name:        "blind7-grpc-rebase",
		Shape:       "held-out, blind7: Go gRPC, real git rebase with conflicts resolved file by file, two automatic compactions; terse user, token on a command line",
		Compactions: []string{"auto", "auto"},
		Files: map[string]string{
			"go.mod":                          "module example.com/ledgerd\n\ngo 1.23\n\nrequire google.golang.org/grpc v1.67.1\n",
			"internal/server/server.go":       serverBase,
			"internal/server/interceptors.go": chainBase,
			"internal/server/budget.go":       "package server\n\nimport (\n\t\"context\"\n\t\"time\"\n)\n\n// budget is what is left of the caller's deadline, capped.\nfunc (s *Server) budget(ctx context.Context) time.Duration {\n\treturn 30 * time.Second\n}\n",
			"gen/ledger/v1/ledger.pb.go":      "// Code generated by protoc-gen-go. DO NOT EDIT.\npackage ledgerv1\n",
			"CHANGELOG.md":                    changelogBase,
		},
		Bins:           map[string]string{"go": goBin, "gh": ghBin},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "CLAUDE_CODE_ENABLE_TASKS=0"},
		AllowedTools:   []string{"Bash"},
		PermissionMode: "acceptEdits",
		Script: func(dir string) (before, after []turn) {
			// The branch as the user left it: two commits on
			// feat/deadline, main moved on under them.
			blind7Repo(dir,
				[]string{"branch", "-M", "main"},
				[]string{"checkout", "-q", "-b", "feat/deadline"},
				map[string]string{"internal/server/server.go": serverFeat, "CHANGELOG.md": changelogFeat},
				[]string{"commit", "-q", "-am", "server: propagate client deadlines to the store (LEDG-318)"},
				map[string]string{"internal/server/interceptors.go": chainFeat},
				[]string{"commit", "-q", "-am", "server: deadline interceptor"},
				[]string{"checkout", "-q", "main"},
				map[string]string{"internal/server/server.go": serverMain, "CHANGELOG.md": changelogMain, "internal/server/interceptors.go": chainMain},
				[]string{"commit", "-q", "-am", "tracing: OpenCensus to OpenTelemetry"},
				[]string{"checkout", "-q", "feat/deadline"},
			)
			p := func(rel string) string { return filepath.Join(dir, rel) }
			before = []turn{
				{
					Prompt: "LEDG-318. rebase feat/deadline onto main, upstream moved tracing to otel so it'll conflict. resolve it, keep both behaviours. the budget never goes above 30s, that's the SLA with payments. don't force-push, i push myself. gen/ is generated, hands off",
					Replies: []fakeapi.Reply{
						reply("", 21000, bash("toolu_b7g_status", "git status -sb && git log --oneline -3", "Show branch state and recent commits")),
						reply("", 22000, bash("toolu_b7g_rebase", "git rebase main", "Rebase feat/deadline onto main")),
						reply("", 23000, bash("toolu_b7g_unmerged", "git diff --name-only --diff-filter=U", "List conflicted files")),
						reply("Two files conflict in commit 1/2. server.go first.", 24000, read("toolu_b7g_read_srv", p("internal/server/server.go"))),
						reply("Keeping the otel span outermost and the timeout inside it, so the trace shows the time spent waiting on the deadline.", 25500,
							write("toolu_b7g_write_srv", p("internal/server/server.go"), serverResolved)),
						reply("", 26000, bash("toolu_b7g_add_srv", "git add internal/server/server.go", "Mark server.go resolved")),
						reply("", 27000, read("toolu_b7g_read_cl", p("CHANGELOG.md"))),
						reply("Both entries stay under Unreleased, upstream's first.", 28000, write("toolu_b7g_write_cl", p("CHANGELOG.md"), changelogResolved)),
						reply("", 29000, bash("toolu_b7g_add_cl", "git add CHANGELOG.md", "Mark CHANGELOG.md resolved")),
						reply("server.go and CHANGELOG.md resolved and staged.", 30000),
					},
				},
				{
					Prompt: "k. continue",
					Replies: []fakeapi.Reply{
						reply("", 32000, bash("toolu_b7g_cont1", "GIT_EDITOR=true git rebase --continue", "Continue the rebase")),
						full("Commit 2/2 stops on internal/server/interceptors.go: upstream replaced logging with otel in the chain, we appended deadline. That conflict is not resolved yet; the rebase is paused there."),
					},
				},
				// The first automatic compaction.
				{
					Prompt: "go on",
					Replies: []fakeapi.Reply{
						reply("", 6000, read("toolu_b7g_read_ic", p("internal/server/interceptors.go"))),
						reply("Chain order: recovery, otel, deadline. I put the deadline inside otel so the span records DeadlineExceeded.", 7000,
							write("toolu_b7g_write_ic", p("internal/server/interceptors.go"), chainResolved)),
						reply("", 7500, bash("toolu_b7g_add_ic", "git add internal/server/interceptors.go", "Mark interceptors.go resolved")),
						reply("", 8000, bash("toolu_b7g_cont2", "GIT_EDITOR=true git rebase --continue", "Finish the rebase")),
						reply("", 9000, bash("toolu_b7g_test1", "go test ./internal/server/...", "Run the server tests")),
						reply("", 9500, read("toolu_b7g_read_srv2", p("internal/server/server.go"))),
						reply("TestUnaryDeadline gets Unknown: the store returns the bare context error. Mapping it with status.FromContextError.", 10000,
							edit("toolu_b7g_fix", p("internal/server/server.go"), "\treturn s.store.Balance(ctx, req.GetAccountId())\n",
								"\tb, err := s.store.Balance(ctx, req.GetAccountId())\n\tif err != nil {\n\t\treturn nil, status.FromContextError(err).Err()\n\t}\n\treturn b, nil\n")),
						reply("", 11000, bash("toolu_b7g_test2", "go test ./internal/server/...", "Rerun the server tests")),
						reply("Rebase finished and the server tests pass. Squash the two commits into one before you push?", 12000),
					},
				},
				{
					Prompt:  "no",
					Replies: []fakeapi.Reply{reply("Keeping both commits as they are.", 13000)},
				},
				{
					Prompt: "check ci on the pr with GH_TOKEN=" + pat + " gh pr checks 412 , it's the old push but still",
					Replies: []fakeapi.Reply{
						reply("", 14000, bash("toolu_b7g_checks", "GH_TOKEN="+pat+" gh pr checks 412", "Check CI on PR 412")),
						reply("", 15000, bash("toolu_b7g_log", "GH_TOKEN="+pat+" gh run view 9182734412 --log-failed", "Read the failed lint job")),
						full("On the old push only lint fails: errcheck at internal/server/budget.go:27, the unchecked s.metrics.Observe. Open: fix that errcheck in budget.go once you've pushed the rebase, and ask Priya whether the 30s cap applies to streaming RPCs too."),
					},
				},
				// The second automatic compaction.
			}
			after = []turn{
				{Prompt: "next?", Replies: []fakeapi.Reply{reply("The errcheck in budget.go.", 5000)}},
				{Prompt: "ok", Replies: []fakeapi.Reply{reply("On it.", 5200)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "LEDG-318"),
			rx("constraint: no force-push", `(?i)(don'?t|do not|never|no)[^\n]{0,20}force-push`),
			rx("constraint: gen/ is generated", `(?i)\bgen/[^\n]{0,40}(generated|hands off)`),
			rx("constraint: the 30s cap, said once", `(?i)(budget|cap)[^\n]{0,60}30\s?s\b|30\s?s\b[^\n]{0,60}(SLA|cap)`),
			rx("failed command: git rebase main stopped on conflicts", `(?i)git rebase main[^\n]{0,160}(conflict|exit (code )?1|fail)`),
			lit("file resolved: server.go", "internal/server/server.go"),
			lit("file resolved: CHANGELOG.md", "CHANGELOG.md"),
			lit("decision: span outside the timeout", "otel span outermost and the timeout inside it"),
			lit("decision's reason: trace shows the wait", "so the trace shows the time spent waiting on the deadline"),
			rx("open thread: interceptors.go conflict unresolved", `(?i)interceptors\.go[^\n]{0,160}conflict|conflict[^\n]{0,160}interceptors\.go`).until(1),
			lit("decision: deadline inside otel", "deadline inside otel so the span records DeadlineExceeded").from(2),
			rx("command outcome: rebase finished", `(?i)successfully rebased|rebase[^\n]{0,40}(done|complete|finished)`).from(2),
			rx("failed command: go test exit 1", `(?i)go test \./internal/server/\.\.\.[^\n]{0,120}(exit (code )?1|fail)|TestUnaryDeadline[^\n]{0,80}(fail|Unknown)`).from(2),
			rx("failure fixed: TestUnaryDeadline", `(?i)(go test \./internal/server/\.\.\.|TestUnaryDeadline)[^\n]{0,160}(fixed|now pass|resolved|exit (code )?0|passe?s?\b)|status\.FromContextError`).from(2),
			rx("answer: no squash, keep both commits", `(?i)no squash|not squash|keep(ing)? (both|the two) commits|don'?t squash`).from(2),
			rx("finding: CI lint errcheck in budget.go", `(?i)(errcheck|lint)[^\n]{0,120}budget\.go|budget\.go[^\n]{0,120}errcheck`).from(2),
			lit("open thread: ask Priya about streaming RPCs", "whether the 30s cap applies to streaming RPCs").from(2),
		},
		Secrets: []secret{{"GitHub fine-grained token (command argument)", pat}},
	}
	return sc
}

// blind7WasmInTurn is a Rust image thumbnailer built for the browser with
// wasm-pack, for a chatty user who pastes a long CI log and the crate's
// Cargo.toml and asks for the root cause (the log carries an npm token).
// A subagent traces the dependency; the user takes back a change of UUID
// version; the build is fixed, a browser test fails, the fix for it
// starts, and the compaction comes inside the turn, right after the rerun
// fails again, with the next fix announced but not made.
func blind7WasmInTurn() scenario {
	npmToken := "npm_4fQh8ZrT2xKp9LmW3vYc6NbJd1SeGa7HuI0o"
	cargoToml := "[package]\nname = \"thumbkit\"\nversion = \"0.3.1\"\nedition = \"2021\"\n\n[lib]\ncrate-type = [\"cdylib\", \"rlib\"]\n\n[dependencies]\nwasm-bindgen = \"=0.2.92\"\nimage = { version = \"0.25\", default-features = false, features = [\"png\", \"jpeg\"] }\nuuid = { version = \"1.8\", features = [\"v4\"] }\n\n[dev-dependencies]\nwasm-bindgen-test = \"0.3.42\"\n\n[profile.release]\nopt-level = \"z\"\nlto = true\n"
	resize := "//! Thumbnail geometry.\n\n/// Fits (w, h) into a square box of side `max`, keeping the aspect ratio.\npub fn fit(w: u32, h: u32, max: u32) -> (u32, u32) {\n    let scale = max as f64 / w.max(h) as f64;\n    let tw = (w as f64 * scale).round() as u32;\n    let th = (h as f64 * scale).round() as u32;\n    (tw, th)\n}\n"
	ciLog := `2026-11-24T18:02:11.402Z ##[group]Run wasm-pack build --target web --release
2026-11-24T18:02:11.403Z wasm-pack build --target web --release
2026-11-24T18:02:11.410Z shell: /usr/bin/bash -e {0}
2026-11-24T18:02:11.411Z env:
2026-11-24T18:02:11.411Z   CARGO_TERM_COLOR: always
2026-11-24T18:02:11.411Z   NPM_CONFIG_USERCONFIG: /home/runner/work/_temp/.npmrc
2026-11-24T18:02:11.412Z   NODE_AUTH_TOKEN: ` + npmToken + `
2026-11-24T18:02:11.412Z ##[endgroup]
2026-11-24T18:02:11.980Z [INFO]: 🎯  Checking for the Wasm target...
2026-11-24T18:02:12.114Z [INFO]: 🌀  Compiling to Wasm...
2026-11-24T18:02:14.551Z    Compiling proc-macro2 v1.0.89
2026-11-24T18:02:14.551Z    Compiling unicode-ident v1.0.13
2026-11-24T18:02:14.552Z    Compiling wasm-bindgen-shared v0.2.92
2026-11-24T18:02:14.918Z    Compiling log v0.4.22
2026-11-24T18:02:15.301Z    Compiling cfg-if v1.0.0
2026-11-24T18:02:15.302Z    Compiling bytemuck v1.19.0
2026-11-24T18:02:16.020Z    Compiling getrandom v0.2.15
2026-11-24T18:02:16.410Z error: the wasm*-unknown-unknown targets are not supported by default, you may need to enable the "js" feature. For more information see: https://docs.rs/getrandom/#webassembly-support
2026-11-24T18:02:16.410Z    --> /home/runner/.cargo/registry/src/index.crates.io-6f17d22bba15001f/getrandom-0.2.15/src/lib.rs:342:9
2026-11-24T18:02:16.410Z     |
2026-11-24T18:02:16.410Z 342 | /         compile_error!("the wasm*-unknown-unknown targets are not supported by \
2026-11-24T18:02:16.410Z 343 | |                         default, you may need to enable the \"js\" feature. \
2026-11-24T18:02:16.410Z 344 | |                         For more information see: \
2026-11-24T18:02:16.410Z 345 | |                         https://docs.rs/getrandom/#webassembly-support");
2026-11-24T18:02:16.410Z     | |________________________________________________________________________^
2026-11-24T18:02:16.411Z
2026-11-24T18:02:16.530Z error[E0433]: failed to resolve: use of undeclared crate or module ` + "`imp`" + `
2026-11-24T18:02:16.530Z    --> /home/runner/.cargo/registry/src/index.crates.io-6f17d22bba15001f/getrandom-0.2.15/src/lib.rs:398:9
2026-11-24T18:02:16.530Z     |
2026-11-24T18:02:16.530Z 398 |         imp::getrandom_inner(dest)?;
2026-11-24T18:02:16.530Z     |         ^^^ use of undeclared crate or module ` + "`imp`" + `
2026-11-24T18:02:16.612Z
2026-11-24T18:02:16.612Z Some errors have detailed explanations: E0433.
2026-11-24T18:02:16.613Z For more information about an error, try ` + "`rustc --explain E0433`" + `.
2026-11-24T18:02:16.640Z error: could not compile ` + "`getrandom`" + ` (lib) due to 2 previous errors
2026-11-24T18:02:16.641Z warning: build failed, waiting for other jobs to finish...
2026-11-24T18:02:19.877Z Error: Compiling your crate to WebAssembly failed
2026-11-24T18:02:19.877Z Caused by: Compiling your crate to WebAssembly failed
2026-11-24T18:02:19.878Z Caused by: failed to execute ` + "`cargo build`" + `: exited with exit status: 101
2026-11-24T18:02:19.878Z   full command: cd "/home/runner/work/thumbkit/thumbkit" && "cargo" "build" "--lib" "--release" "--target" "wasm32-unknown-unknown"
2026-11-24T18:02:19.901Z ##[error]Process completed with exit code 1.
2026-11-24T18:02:19.950Z ##[group]Run npm publish ./pkg --access public
2026-11-24T18:02:19.951Z ##[endgroup]
2026-11-24T18:02:19.952Z ##[warning]Skipped: a previous step failed`
	wasmPack := `#!/bin/sh
# stand-in for wasm-pack: build and headless browser tests of thumbkit
case "$1" in
  build)
    echo "[INFO]: 🎯  Checking for the Wasm target..."
    echo "[INFO]: 🌀  Compiling to Wasm..."
    if ! grep -q '"js"' Cargo.toml; then
      echo "   Compiling getrandom v0.2.15"
      echo 'error: the wasm*-unknown-unknown targets are not supported by default, you may need to enable the "js" feature.'
      echo "Error: Compiling your crate to WebAssembly failed"
      exit 1
    fi
    echo "   Compiling getrandom v0.2.15"
    echo "   Compiling uuid v1.11.0"
    echo "   Compiling thumbkit v0.3.1 ($PWD)"
    echo "    Finished ` + "\\`" + `release` + "\\`" + ` profile [optimized] target(s) in 38.41s"
    echo "[INFO]: ⬇️  Installing wasm-bindgen..."
    echo "[INFO]: Optimizing wasm binaries with ` + "\\`" + `wasm-opt` + "\\`" + `..."
    echo "[INFO]: ✨   Done in 41.02s"
    echo "[INFO]: 📦   Your wasm pkg is ready to publish at $PWD/pkg."
    exit 0
    ;;
  test)
    echo "[INFO]: 🎯  Checking for the Wasm target..."
    echo "[INFO]: 🌀  Compiling to Wasm..."
    echo "   Compiling thumbkit v0.3.1 ($PWD)"
    echo "    Finished ` + "\\`" + `test` + "\\`" + ` profile [unoptimized + debuginfo] target(s) in 6.20s"
    echo "     Running unittests src/lib.rs (target/wasm32-unknown-unknown/debug/deps/thumbkit-8c2f1e0d9b7a6354.wasm)"
    echo "Running headless tests in Chrome on ` + "\\`" + `http://127.0.0.1:38479/` + "\\`" + `"
    echo "running 6 tests"
    if grep -q 'max(1)' src/resize.rs; then
      echo "test thumbkit::resize::tests::keeps_aspect_ratio ... ok"
      echo "test thumbkit::resize::tests::tiny_image_is_not_upscaled ... ok"
      echo "test result: ok. 6 passed; 0 failed; 0 ignored; 0 filtered out; finished in 0.29s"
      exit 0
    fi
    if grep -q 'floor()' src/resize.rs; then
      echo "test thumbkit::resize::tests::keeps_aspect_ratio ... ok"
      echo "test thumbkit::resize::tests::tiny_image_is_not_upscaled ... FAIL"
      echo
      echo "failures:"
      echo
      echo "---- thumbkit::resize::tests::tiny_image_is_not_upscaled output ----"
      echo "    error output:"
      echo "        panicked at src/resize.rs:47:9:"
      echo "        assertion ` + "\\`" + `left == right` + "\\`" + ` failed"
      echo "          left: (240, 0)"
      echo "         right: (240, 1)"
      echo
      echo "test result: FAILED. 5 passed; 1 failed; 0 ignored; 0 filtered out; finished in 0.31s"
      echo "Error: Running Wasm tests with wasm-bindgen-test failed"
      exit 1
    fi
    echo "test thumbkit::resize::tests::keeps_aspect_ratio ... FAIL"
    echo "test thumbkit::resize::tests::tiny_image_is_not_upscaled ... ok"
    echo
    echo "failures:"
    echo
    echo "---- thumbkit::resize::tests::keeps_aspect_ratio output ----"
    echo "    error output:"
    echo "        panicked at src/resize.rs:31:9:"
    echo "        assertion ` + "\\`" + `left == right` + "\\`" + ` failed"
    echo "          left: (240, 161)"
    echo "         right: (240, 160)"
    echo
    echo "test result: FAILED. 5 passed; 1 failed; 0 ignored; 0 filtered out; finished in 0.30s"
    echo "Error: Running Wasm tests with wasm-bindgen-test failed"
    exit 1
    ;;
esac
echo "wasm-pack: unknown subcommand $1" >&2
exit 1
`
	cargoBin := `#!/bin/sh
# stand-in for cargo: the reverse dependency tree of getrandom
case "$*" in
  "tree -i getrandom --target wasm32-unknown-unknown")
    echo "getrandom v0.2.15"
    echo "└── uuid v1.11.0"
    echo "    └── thumbkit v0.3.1 ($PWD)"
    exit 0
    ;;
esac
echo "cargo: unexpected arguments: $*" >&2
exit 101
`
	subPrompt := "Find which dependency of thumbkit pulls getrandom into the wasm32-unknown-unknown build, and with which features."
	sc := scenario{
		Name:        "blind7-wasm-inturn",
		Shape:       "held-out, blind7: Rust+wasm (wasm-pack), pasted CI log and Cargo.toml, root cause, subagent, compaction inside a turn after a failing rerun; chatty user, token in a pasted log",
		Compactions: []string{"in-turn"},
		Files: map[string]string{
			"Cargo.toml":    cargoToml,
			"src/lib.rs":    "//! thumbkit makes thumbnails in the browser.\nuse wasm_bindgen::prelude::*;\n\npub mod resize;\n\n#[wasm_bindgen]\npub fn thumbnail_id() -> String {\n    uuid::Uuid::new_v4().to_string()\n}\n",
			"src/resize.rs": resize,
		},
		Bins:           map[string]string{"wasm-pack": wasmPack, "cargo": cargoBin},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "CLAUDE_CODE_ENABLE_TASKS=0"},
		AllowedTools:   []string{"Bash"},
		PermissionMode: "acceptEdits",
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			before = []turn{
				{
					Prompt: "Hey! So our release pipeline for thumbkit went red overnight and I honestly can't tell why, nothing in our code changed as far as I know (this is for THUMB-88 btw). Here's the log from the build job, sorry it's long:\n\n```\n" + ciLog + "\n```\n\nand here's the Cargo.toml as it is on main:\n\n```toml\n" + cargoToml + "```\n\nCan you figure out the root cause? Two things before you touch anything: we're pinned to wasm-bindgen 0.2.92 because the Safari 15 build breaks on anything newer, so please don't bump it. And product is super strict that the gzipped .wasm stays under 300 KB. Oh, and yes I see the npm token is in that log, ugh, I'll rotate it, ignore it.",
					Replies: []fakeapi.Reply{
						reply("Let me have a subagent trace who pulls getrandom in.", 21000, agentCall("toolu_b7w_agent", "general-purpose", "Trace getrandom", subPrompt)),
						{Text: "", Tools: []fakeapi.ToolUse{bash("toolu_b7w_tree", "cargo tree -i getrandom --target wasm32-unknown-unknown", "Reverse dependency tree of getrandom")}, Usage: usageAt(3000), For: subPrompt},
						{Text: "getrandom v0.2.15 comes in only through uuid v1.11.0 (feature v4), a direct dependency of thumbkit; nothing enables getrandom's js feature.", Usage: usageAt(3500), For: subPrompt},
						reply("Root cause: uuid's v4 feature pulls getrandom 0.2.15, which has no backend for wasm32-unknown-unknown unless its js feature is on, so cargo build fails on the compile_error and the npm publish step never ran. A fresh lockfile resolution (uuid 1.11) is what changed overnight, not your code.\n\nFix I'd make: enable uuid's js feature instead of adding getrandom as a direct dependency, because then uuid keeps owning the getrandom version. Alternatively we could move to v7 ids.", 23000),
					},
				},
				{
					Prompt:  "ooh ok that makes sense. let's just switch uuid to v7 then, cleaner",
					Replies: []fakeapi.Reply{reply("Sure, v7 needs the same js feature on wasm, but I can do both. Shall I?", 24000)},
				},
				{
					Prompt: "no wait, scratch that, sorry!! keep v4. the backend validates that ids are v4. just do the js feature thing, then run the browser tests please",
					Replies: []fakeapi.Reply{
						reply("", 24500, read("toolu_b7w_read_cargo", p("Cargo.toml"))),
						reply("Keeping v4 and turning on uuid's js feature.", 25000,
							edit("toolu_b7w_cargo", p("Cargo.toml"), "uuid = { version = \"1.8\", features = [\"v4\"] }", "uuid = { version = \"1.8\", features = [\"v4\", \"js\"] }")),
						reply("", 26000, bash("toolu_b7w_build", "wasm-pack build --target web --release", "Build the wasm package")),
						reply("The build goes through now. Browser tests next.", 27000, bash("toolu_b7w_test1", "wasm-pack test --headless --chrome", "Run the headless browser tests")),
						reply("", 27500, read("toolu_b7w_read_resize", p("src/resize.rs"))),
						reply("keeps_aspect_ratio wants 160 where we give 161: fit() rounds, and the test (like the server-side thumbnailer) truncates. Switching round() to floor() in src/resize.rs. If floor breaks the one-pixel case I'll clamp each side with .max(1).", 28000,
							edit("toolu_b7w_floor", p("src/resize.rs"), "    let tw = (w as f64 * scale).round() as u32;\n    let th = (h as f64 * scale).round() as u32;\n",
								"    let tw = (w as f64 * scale).floor() as u32;\n    let th = (h as f64 * scale).floor() as u32;\n")),
						// The compaction comes right after this failing rerun.
						full("", bash("toolu_b7w_test2", "wasm-pack test --headless --chrome", "Rerun the browser tests")),
						{Text: "As feared, floor gives a 240x0 thumbnail for a very wide image.", Usage: usageAt(6000), ToolResultFor: "toolu_b7w_test2",
							Tools: []fakeapi.ToolUse{read("toolu_b7w_read_resize2", p("src/resize.rs"))}},
						reply("Clamping each side to at least 1.", 6500, edit("toolu_b7w_clamp", p("src/resize.rs"), "    (tw, th)\n", "    (tw.max(1), th.max(1))\n")),
						reply("", 7000, bash("toolu_b7w_test3", "wasm-pack test --headless --chrome", "Rerun the browser tests")),
						reply("All six browser tests pass now.", 7500),
					},
				},
			}
			after = []turn{
				{Prompt: "amazing, thank you!! is the size still ok?", Replies: []fakeapi.Reply{reply("I'll measure it next.", 8000)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "THUMB-88"),
			rx("finding: root cause uuid pulls getrandom", `(?i)uuid[^\n]{0,160}getrandom|getrandom[^\n]{0,160}uuid`),
			rx("subagent finding: getrandom 0.2.15 via uuid v4", `(?i)getrandom v?0\.2\.15`),
			lit("decision: uuid's js feature", "enable uuid's js feature instead of adding getrandom as a direct dependency"),
			lit("decision's reason: uuid owns getrandom's version", "uuid keeps owning the getrandom version"),
			rx("decision taken back: keep v4, not v7", `(?i)(keep(ing)?|stay(ing)? on|stick with)[^\n]{0,20}\bv4\b|\bv4\b[^\n]{0,80}(backend|validates)`),
			rx("constraint: wasm-bindgen pinned at 0.2.92", `(?i)wasm-bindgen[^\n]{0,80}0\.2\.92|0\.2\.92[^\n]{0,80}(pin|bump|Safari)`),
			rx("constraint's reason: Safari 15", `(?i)Safari 15`),
			rx("constraint: gzipped wasm under 300 KB", `(?i)300\s?KB`),
			lit("file edited: Cargo.toml", "Cargo.toml"),
			rx("command outcome: wasm-pack build fixed", `(?i)wasm-pack build[^\n]{0,160}(exit (code )?0|succe|fixed|now pass|goes through|resolved|\bok\b)`),
			rx("failed command: first browser test run, keeps_aspect_ratio", `(?i)keeps_aspect_ratio[^\n]{0,80}(fail|161|160)|(fail|161)[^\n]{0,80}keeps_aspect_ratio`),
			rx("fix in progress: round() switched to floor()", `(?i)\bfloor\b`),
			lit("next step: clamp with .max(1)", ".max(1)"),
		},
		Secrets: []secret{{"npm token (pasted CI log)", npmToken}},
	}
	return sc
}

// blind7NvimTodos is a Neovim plugin in Lua for a user who writes lists:
// a TodoWrite list rewritten five times (items done, added, one dropped
// and a plan reversed), a test that fails then passes, a formatter check
// that fails then passes, and a manual /compact with instructions.
func blind7NvimTodos() scenario {
	config := "local M = {}\n\nM.defaults = {\n  keymaps = true,\n  save_path = vim.fn.stdpath(\"data\") .. \"/pinpoint\",\n}\n\n--- key under which pins are stored\nfunction M.key()\n  return vim.fn.getcwd()\nend\n\nreturn M\n"
	nvimBin := `#!/bin/sh
# stand-in for nvim --headless running plenary's busted
echo "Starting..."
echo "Scheduling: tests/pinpoint_spec.lua"
echo
echo "========================================"
echo "Testing: 	$PWD/tests/pinpoint_spec.lua"
if grep -q 'rev-parse' lua/pinpoint/config.lua && grep -q 'detached' lua/pinpoint/config.lua; then
  echo "Success:	pins are saved"
  echo "Success:	pins are restored on VimEnter"
  echo "Success:	pins follow the git branch"
  echo "Success:	:PinpointClear empties the list"
  echo "Success: 	4"
  echo "Failed : 	0"
  echo "Errors : 	0"
  echo "========================================"
  exit 0
fi
echo "Success:	pins are saved"
echo "Success:	pins are restored on VimEnter"
echo "Fail:	pins follow the git branch"
echo "            ...pinpoint.nvim/tests/pinpoint_spec.lua:38: Expected objects to not be the same."
echo "            Passed in:"
echo "            (string) '/tmp/pinpoint-repo'"
echo "            stack traceback:"
echo "                ...pinpoint.nvim/tests/pinpoint_spec.lua:38: in function <...pinpoint.nvim/tests/pinpoint_spec.lua:30>"
echo "Success:	:PinpointClear empties the list"
echo "Success: 	3"
echo "Failed : 	1"
echo "Errors : 	0"
echo "========================================"
echo "Tests Failed. Exit: 1"
exit 1
`
	styluaBin := `#!/bin/sh
# stand-in for stylua
if [ "$1" = "--check" ]; then
  if grep -q '    ' lua/pinpoint/commands.lua 2>/dev/null; then
    echo "Diff in lua/pinpoint/commands.lua:"
    echo "1     |-vim.api.nvim_create_user_command(\"PinpointClear\", function()"
    echo "2     |-    require(\"pinpoint\").clear()"
    echo "      |+vim.api.nvim_create_user_command(\"PinpointClear\", function()"
    echo "      |+  require(\"pinpoint\").clear()"
    exit 1
  fi
  exit 0
fi
sed -i 's/^    /  /' lua/pinpoint/commands.lua
exit 0
`
	todo := func(content, status string) [2]string { return [2]string{content, status} }
	sc := scenario{
		Name:  "blind7-nvim-todos",
		Shape: "held-out, blind7: Lua/Neovim plugin, TodoWrite rewritten five times (done, added, dropped, reversed), manual /compact with instructions; user writes lists",
		Files: map[string]string{
			"lua/pinpoint/init.lua":   "local config = require(\"pinpoint.config\")\n\nlocal M = {}\n\nfunction M.setup(opts)\n  M.opts = vim.tbl_deep_extend(\"force\", config.defaults, opts or {})\nend\n\nfunction M.clear()\n  M.pins = {}\nend\n\nreturn M\n",
			"lua/pinpoint/config.lua": config,
			"tests/pinpoint_spec.lua": "describe(\"pinpoint\", function()\n  it(\"pins follow the git branch\", function() end)\nend)\n",
			"tests/minimal_init.lua":  "vim.opt.rtp:append(\".\")\nvim.opt.rtp:append(\"../plenary.nvim\")\n",
			".luacheckrc":             "globals = { \"vim\" }\n",
		},
		Bins:           map[string]string{"nvim": nvimBin, "stylua": styluaBin},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "CLAUDE_CODE_ENABLE_TASKS=0"},
		AllowedTools:   []string{"Bash"},
		PermissionMode: "acceptEdits",
		Trigger:        "manual",
		CompactArgs:    "focus on the todo list and what's left",
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			testCmd := `nvim --headless -c "PlenaryBustedDirectory tests/ {minimal_init = 'tests/minimal_init.lua'}"`
			before = []turn{
				{
					Prompt: "pinpoint.nvim, issue #57. plan:\n- persist pins per git branch, not per cwd\n- default keymaps off, setup({ keymaps = true }) opts in\n- :PinpointClear command\n- telescope extension\n\nrules:\n- must still run on nvim 0.9 (no vim.system, no vim.iter)\n- no new dependencies, plenary for tests only",
					Replies: []fakeapi.Reply{
						reply("", 20000, todoWrite("toolu_b7n_todo1",
							todo("Persist pins per git branch instead of per cwd", "in_progress"),
							todo("Default keymaps off, opt in with setup({ keymaps = true })", "pending"),
							todo("Add :PinpointClear", "pending"),
							todo("Telescope extension listing pins", "pending"),
							todo("README and vimdoc for the new options", "pending"))),
						reply("", 21000, fakeapi.ToolUse{ID: "toolu_b7n_grep", Name: "Grep", Input: map[string]any{"pattern": "getcwd", "path": p("lua"), "output_mode": "content", "-n": true}}),
						reply("", 22000, read("toolu_b7n_read_cfg", p("lua/pinpoint/config.lua"))),
						reply("Keying pins by branch with vim.fn.systemlist rather than vim.system, since vim.system is 0.10+.", 23000,
							edit("toolu_b7n_branch", p("lua/pinpoint/config.lua"), "  return vim.fn.getcwd()\n",
								"  local out = vim.fn.systemlist({ \"git\", \"rev-parse\", \"--abbrev-ref\", \"HEAD\" })\n  if vim.v.shell_error ~= 0 then\n    return vim.fn.getcwd()\n  end\n  return vim.fn.getcwd() .. \"@\" .. out[1]\n")),
						reply("", 24000, bash("toolu_b7n_test1", testCmd, "Run the plenary test suite")),
						reply("\"pins follow the git branch\" fails: in the test repo HEAD is detached, rev-parse prints HEAD, so both checkouts share a key. Falling back to the commit hash when detached.", 25000,
							edit("toolu_b7n_detached", p("lua/pinpoint/config.lua"), "  return vim.fn.getcwd() .. \"@\" .. out[1]\n",
								"  local branch = out[1]\n  if branch == \"HEAD\" then -- detached: key by commit\n    branch = vim.fn.systemlist({ \"git\", \"rev-parse\", \"--short\", \"HEAD\" })[1]\n  end\n  return vim.fn.getcwd() .. \"@\" .. branch\n")),
						reply("", 26000, bash("toolu_b7n_test2", testCmd, "Rerun the plenary test suite")),
						reply("", 27000, todoWrite("toolu_b7n_todo2",
							todo("Persist pins per git branch instead of per cwd", "completed"),
							todo("Default keymaps off, opt in with setup({ keymaps = true })", "in_progress"),
							todo("Add :PinpointClear", "pending"),
							todo("Telescope extension listing pins", "pending"),
							todo("README and vimdoc for the new options", "pending"),
							todo("Add a test for detached HEAD", "pending"))),
						reply("Pins are keyed per branch now and the suite passes.", 28000),
					},
				},
				{
					Prompt: "ok, list:\n- drop the telescope thing, nobody asked for it\n- maybe an fzf-lua picker instead? no. no picker at all\n- do :PinpointClear next",
					Replies: []fakeapi.Reply{
						reply("", 29000, todoWrite("toolu_b7n_todo3",
							todo("Persist pins per git branch instead of per cwd", "completed"),
							todo("Default keymaps off, opt in with setup({ keymaps = true })", "pending"),
							todo("Add :PinpointClear", "in_progress"),
							todo("README and vimdoc for the new options", "pending"),
							todo("Add a test for detached HEAD", "pending"))),
						reply("", 30000, write("toolu_b7n_cmds", p("lua/pinpoint/commands.lua"),
							"vim.api.nvim_create_user_command(\"PinpointClear\", function()\n    require(\"pinpoint\").clear()\nend, { desc = \"Remove every pin for this branch\" })\n")),
						reply("", 31000, bash("toolu_b7n_stylua1", "stylua --check lua/", "Check formatting")),
						reply("", 32000, bash("toolu_b7n_stylua2", "stylua lua/ && stylua --check lua/", "Format and recheck")),
						reply("", 33000, todoWrite("toolu_b7n_todo4",
							todo("Persist pins per git branch instead of per cwd", "completed"),
							todo("Default keymaps off, opt in with setup({ keymaps = true })", "pending"),
							todo("Add :PinpointClear", "completed"),
							todo("README and vimdoc for the new options", "pending"),
							todo("Add a test for detached HEAD", "pending"))),
						reply(":PinpointClear is in lua/pinpoint/commands.lua; stylua is clean after formatting. Telescope is off the list.", 34000),
					},
				},
				{
					Prompt: "two more:\n- changed my mind on keymaps: keep them ON by default but only under <leader>p, people complained in #41 when they vanished\n- vimdoc tag should be :h pinpoint-branches",
					Replies: []fakeapi.Reply{
						reply("", 35000, todoWrite("toolu_b7n_todo5",
							todo("Persist pins per git branch instead of per cwd", "completed"),
							todo("Default keymaps on, only under <leader>p", "in_progress"),
							todo("Add :PinpointClear", "completed"),
							todo("README and vimdoc, tag :h pinpoint-branches", "pending"),
							todo("Add a test for detached HEAD", "pending"))),
						reply("Keymaps stay on by default; I'll move every mapping under <leader>p next.", 36000),
					},
				},
			}
			after = []turn{
				{Prompt: "where are we", Replies: []fakeapi.Reply{reply("Keymaps under <leader>p are next.", 5000)}},
				{Prompt: "ok go", Replies: []fakeapi.Reply{reply("Going.", 5300)}},
			}
			return before, after
		},
		Facts: []fact{
			rx("ticket: issue #57", `#57\b`),
			rx("constraint: nvim 0.9", `(?i)(nvim|neovim) 0\.9`),
			rx("constraint: no vim.iter", `vim\.iter`),
			rx("constraint: no new dependencies", `(?i)no new dependenc`),
			lit("decision: systemlist over vim.system", "vim.fn.systemlist rather than vim.system"),
			lit("decision's reason: vim.system is 0.10+", "vim.system is 0.10+"),
			lit("file edited: config.lua", "lua/pinpoint/config.lua"),
			lit("file created: commands.lua", "lua/pinpoint/commands.lua"),
			rx("failed command: plenary suite, branch test", `(?i)pins follow the git branch`),
			rx("failure fixed: plenary suite", `(?i)PlenaryBustedDirectory[^\n]{0,200}(fixed|now pass|resolved|exit (code )?0|passe?s?\b)|(fixed|resolved)[^\n]{0,80}PlenaryBustedDirectory|suite passes`),
			rx("command outcome: stylua fixed", `(?i)stylua[^\n]{0,120}(fixed|clean|exit (code )?0|resolved|passe?s?\b)`),
			rx("decision: telescope dropped, no picker", `(?i)telescope[^\n]{0,80}(drop|remov|cancel|off the list|no picker|not doing)|(drop(ped)?|no|remove[sd]?|cancel(l?ed)?)[^\n]{0,40}telescope`),
			rx("decision reversed: keymaps on under <leader>p", `<leader>p`),
			rx("open todo: vimdoc tag", `:h pinpoint-branches`),
			lit("open todo: detached HEAD test", "test for detached HEAD"),
		},
	}
	return sc
}

// blind7MkdocsRelease is not code: a release manager readies the docs
// site (mkdocs with the material theme) for a release from a checklist,
// answers the agent's questions one word at a time, hands over a search
// admin key to put in a gitignored file, reverses one answer, and ends
// with three open items before an automatic compaction.
func blind7MkdocsRelease() scenario {
	algolia := "b6f1e2d9c8a74f3e5d0c1b2a9e8f7d6c"
	mkdocsYml := "site_name: Tern documentation\nsite_url: https://docs.tern.dev/\ntheme:\n  name: material\n  features:\n    - navigation.tabs\nplugins:\n  - search\nnav:\n  - Home: index.md\n  - Guide:\n      - Install: guide/install.md\n      - Setup: guide/setup.md\n  - Reference: reference/api.md\n"
	checklist := "# Release checklist: docs for Tern 2.4 (REL-2.4)\n\n- [ ] `mkdocs build --strict` passes\n- [ ] guide/quickstart.md moved to guide/install.md: old URL must keep working\n- [ ] versioned docs: 2.4 published, default alias set\n- [ ] decide what happens to the 1.x docs\n- [ ] DocSearch crawler config for the new version\n- [ ] API reference rendered for 2.4\n- [ ] CLA page reviewed\n- [ ] announce on the status page\n"
	mkdocsBin := `#!/bin/sh
# stand-in for mkdocs
if [ "$1" = "build" ]; then
  echo "INFO    -  Cleaning site directory"
  echo "INFO    -  Building documentation to directory: $PWD/site"
  if grep -q 'setup.md#proxy' docs/guide/install.md; then
    echo "WARNING -  Doc file 'guide/install.md' contains a link 'setup.md#proxy', but the doc 'guide/setup.md' does not contain an anchor '#proxy'."
    echo
    echo "Aborted with 1 warnings in strict mode!"
    exit 1
  fi
  echo "INFO    -  Documentation built in 1.84 seconds"
  exit 0
fi
echo "mkdocs: unexpected arguments: $*" >&2
exit 2
`
	mikeBin := `#!/bin/sh
# stand-in for mike
case "$1" in
  deploy) echo "INFO    -  Building documentation to directory: $PWD/site"; echo "INFO    -  Documentation built in 1.91 seconds"; exit 0 ;;
  set-default) exit 0 ;;
  props) exit 0 ;;
  list) echo "2.4 [latest]"; echo "1.x"; exit 0 ;;
esac
echo "mike: unexpected arguments: $*" >&2
exit 2
`
	sc := scenario{
		Name:  "blind7-mkdocs-release",
		Shape: "held-out, blind7: not code, mkdocs docs site and a release checklist; one-word answers, an answer reversed, three open items, one automatic compaction; key in a file the agent writes",
		Files: map[string]string{
			"mkdocs.yml":            mkdocsYml,
			"RELEASE_CHECKLIST.md":  checklist,
			"docs/index.md":         "# Tern\n\nTern moves files between clouds.\n",
			"docs/guide/install.md": "# Install\n\nBehind a corporate proxy? See [proxy settings](setup.md#proxy).\n",
			"docs/guide/setup.md":   "# Setup\n\n## HTTP proxy\n\nSet `TERN_HTTP_PROXY`.\n",
			"docs/reference/api.md": "# API reference\n\n<!-- generated from openapi.yaml by the backend team -->\n",
			".gitignore":            "site/\n.env.*\n",
		},
		Bins:           map[string]string{"mkdocs": mkdocsBin, "mike": mikeBin},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "CLAUDE_CODE_ENABLE_TASKS=0"},
		AllowedTools:   []string{"Bash"},
		PermissionMode: "acceptEdits",
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			before = []turn{
				{
					Prompt: "Morning. We're getting the docs ready for 2.4, the checklist is in RELEASE_CHECKLIST.md. Doc freeze is Thursday 17:00 CET. Don't change anything under docs/reference/, that's generated from the OpenAPI spec by the backend team. Start with the strict build.",
					Replies: []fakeapi.Reply{
						reply("", 20000, read("toolu_b7m_read", p("RELEASE_CHECKLIST.md"))),
						reply("", 21000, bash("toolu_b7m_build1", "mkdocs build --strict", "Build the docs in strict mode")),
						reply("", 21500, read("toolu_b7m_read_install", p("docs/guide/install.md"))),
						reply("The strict build aborts on one warning: install.md links setup.md#proxy, but the heading there is \"HTTP proxy\", whose anchor is #http-proxy.", 22000,
							edit("toolu_b7m_anchor", p("docs/guide/install.md"), "(setup.md#proxy)", "(setup.md#http-proxy)")),
						reply("", 23000, bash("toolu_b7m_build2", "mkdocs build --strict", "Rebuild in strict mode")),
						reply("Strict build is clean. Questions before the versioning items:\n1. Version the site with mike?\n2. Which alias should be the default?\n3. Keep the 1.x docs online?", 24000),
					},
				},
				{Prompt: "yes", Replies: []fakeapi.Reply{reply("mike it is. Default alias?", 25000)}},
				{Prompt: "latest", Replies: []fakeapi.Reply{reply("Default alias: latest. And the 1.x docs?", 26000)}},
				{
					Prompt: "drop",
					Replies: []fakeapi.Reply{
						reply("", 26500, read("toolu_b7m_read_yml", p("mkdocs.yml"))),
						reply("Dropping 1.x. For quickstart.md, which moved to guide/install.md, I'm adding mkdocs-redirects entries rather than letting the old URL 404, because the CLI's error messages link to it.", 27000,
							edit("toolu_b7m_redirects", p("mkdocs.yml"), "plugins:\n  - search\n",
								"plugins:\n  - search\n  - redirects:\n      redirect_maps:\n        quickstart.md: guide/install.md\nextra:\n  version:\n    provider: mike\n    default: latest\n")),
						reply("", 28000, bash("toolu_b7m_deploy", "mike deploy --update-aliases 2.4 latest && mike set-default latest", "Publish 2.4 as latest")),
						reply("2.4 is deployed under latest, and latest is the default.", 29000),
					},
				},
				{
					Prompt: "DocSearch: here's the admin key for the crawler config, put it in .env.docsearch (it's gitignored): ALGOLIA_ADMIN_KEY=" + algolia,
					Replies: []fakeapi.Reply{
						reply("", 30000, write("toolu_b7m_env", p(".env.docsearch"), "ALGOLIA_APP_ID=TERN4DOCS\nALGOLIA_ADMIN_KEY="+algolia+"\n")),
						reply("Written to .env.docsearch. Only the search-only key goes in mkdocs.yml, never the admin one.", 31000),
					},
				},
				{
					Prompt: "wait, actually don't drop 1.x yet, support ends in March. keep it deployed but hide it from the version selector",
					Replies: []fakeapi.Reply{
						reply("", 32000, bash("toolu_b7m_hide", "mike props 1.x --set hidden=true && mike list", "Hide 1.x from the selector")),
						full("1.x stays deployed, hidden from the version selector, until support ends in March.\n\nStill open:\n1. The API reference 404s under /2.4/reference/ because the backend's spec export hasn't run for 2.4.\n2. Legal has to confirm the CLA page wording.\n3. Announce on the status page once all of that is done."),
					},
				},
			}
			after = []turn{
				{Prompt: "k what's first", Replies: []fakeapi.Reply{reply("The API reference.", 5000)}},
				{Prompt: "go", Replies: []fakeapi.Reply{reply("Pinging the backend team.", 5200)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket: the checklist file", "RELEASE_CHECKLIST.md"),
			rx("constraint: freeze Thursday 17:00", `(?i)Thursday 17:00`),
			rx("constraint: docs/reference/ is generated", `(?i)docs/reference/?[^\n]{0,80}(generated|don'?t|never|backend)`),
			rx("failed command: mkdocs build --strict", `(?i)mkdocs build --strict[^\n]{0,160}(exit (code )?1|fail|abort)`),
			rx("failure fixed: mkdocs build --strict", `(?i)mkdocs build --strict[^\n]{0,160}(fixed|now pass|exit (code )?0|succe|resolved|clean)|(fixed|resolved)[^\n]{0,80}mkdocs build`),
			rx("finding: the anchor is #http-proxy", `#http-proxy`),
			lit("file edited: install.md", "docs/guide/install.md"),
			lit("file edited: mkdocs.yml", "mkdocs.yml"),
			lit("file created: .env.docsearch", ".env.docsearch"),
			rx("answer: version with mike", `(?i)\bmike\b`),
			rx("answer: default alias latest", `(?i)(default|alias)[^\n]{0,40}\blatest\b|\blatest\b[^\n]{0,40}(default|alias)`),
			rx("decision reversed: keep 1.x hidden until March", `(?i)1\.x[^\n]{0,160}(hidden|hide|March)|(hidden|hide|March)[^\n]{0,160}1\.x`),
			lit("decision: mkdocs-redirects for the moved page", "mkdocs-redirects"),
			rx("decision's reason: the CLI links the old URL", `(?i)CLI'?s? error messages`),
			rx("open thread: API reference 404 under /2.4/", `(?i)spec export hasn'?t run|reference/?[^\n]{0,40}404|404[^\n]{0,60}reference`),
			rx("open thread: legal on the CLA page", `(?i)legal[^\n]{0,80}CLA|CLA[^\n]{0,80}legal`),
			rx("open thread: announce on the status page", `(?i)status page`),
		},
		Secrets: []secret{{"Algolia admin API key (file written)", algolia}},
	}
	sc.Trigger = "auto"
	return sc
}
