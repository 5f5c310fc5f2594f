package outcome

import (
	"slices"
	"strings"
	"testing"
)

func TestSplitShell(t *testing.T) {
	tests := []struct {
		line string
		want string // simple commands' words joined by spaces, each followed by its operator in brackets
	}{
		{"mix test 2>&1 | tail -30", "mix test [|] tail -30 []"},
		{`grep -E "a|b" x.txt`, "grep -E a|b x.txt []"},
		{`echo 'a && b'; ls`, "echo a && b [;] ls []"},
		{"cd /x && FOO=1 go test ./... &> out.log", "cd /x [&&] FOO=1 go test ./... []"},
		{"make >/dev/null 2>&1 || true", "make [||] true []"},
		{"(cd web && npm test) | tail", "cd web [&&] npm test [|] tail []"},
		{"go vet ./... # check\ngo test ./...", "go vet ./... [;] go test ./... []"},
		{"mix format \\\n  --check-formatted", "mix format --check-formatted []"},
		{"mix test |& tee log", "mix test [|] tee log []"},
		{"a=$(git rev-parse HEAD | cut -c1-7) && echo $a", "a=$(git rev-parse HEAD | cut -c1-7) [&&] echo $a []"},
		{"git commit -m \"$(cat <<'EOF'\nfix: a | b; c && d )\nEOF\n)\" && git push", "git commit -m $(cat <<'EOF'\nfix: a | b; c && d )\nEOF\n) [&&] git push []"},
		{"cat <<EOF | python3 -\nprint(1) | 2\nEOF\necho done", "cat [|] python3 - [;] echo done []"},
		{"sleep 5 & wait", "sleep 5 [&] wait []"},
		{"echo `date | tr a b` x", "echo `date | tr a b` x []"},
		{"{ make; make test; } 2>&1 | tail -3", "make [;] make test [|] tail -3 []"},
		{"unterminated 'quote | tail", "unterminated quote | tail []"},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			var parts []string
			for _, s := range splitShell(tt.line) {
				parts = append(parts, strings.Join(s.words, " ")+" ["+s.op+"]")
			}
			if got := strings.Join(parts, " "); got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestParseCommand(t *testing.T) {
	tests := []struct {
		line   string
		tool   string
		hidden string
		shown  int
		limit  int
	}{
		{"mix test 2>&1 | tail -30", "mix test", HiddenPipe, shownLines, 30},
		{"mix test 2>&1 | tail -n 30", "mix test", HiddenPipe, shownLines, 30},
		{"mix compile 2>&1 | head", "mix compile", HiddenPipe, shownLines, 10},
		{"npm run build 2>&1 | head -c 500", "npm run build", HiddenPipe, shownBytes, 500},
		{"go test ./... | tee out.txt", "go test", HiddenPipe, shownAll, 0},
		{"go test ./... | grep -v '^ok'", "go test", HiddenPipe, shownPart, 0},
		{"go test ./... | head -50 | tail -5", "go test", HiddenPipe, shownLines, 5},
		{"tail -f log | grep ERROR", "", "", shownAll, 0},
		{"set -o pipefail && go test ./... | tail -3", "go test", "", shownLines, 3},
		{"set -o pipefail; set +o pipefail; go test ./... | tail -3", "go test", HiddenPipe, shownLines, 3},
		{"cd app && go test ./...", "go test", "", shownAll, 0},
		{"go test ./... && echo ok", "go test", "", shownAll, 0},
		{"go test ./...; echo exit=$?", "go test", HiddenList, shownAll, 0},
		{"go test ./... 2>&1 | tee log; exit ${PIPESTATUS[0]}", "go test", "", shownAll, 0},
		{"go test ./... 2>&1 | tee log; exit $?", "go test", HiddenPipe, shownAll, 0},
		{"go test ./... > log 2>&1; exit $?", "go test", "", shownAll, 0},
		{"go test ./... || echo failed", "go test", HiddenOr, shownAll, 0},
		{"mix compile && mix test 2>&1 | tail -5", "mix test", HiddenPipe, shownLines, 5},
		{"mix test 2>&1 | tail -5 && mix credo", "mix credo", HiddenPipe, shownAll, 0},
		{"mix test; mix credo", "mix credo", HiddenList, shownAll, 0},
		{"git pull; mix test", "mix test", "", shownAll, 0},
		{"echo hi | python3 script.py", "", "", shownAll, 0},
		{"mix test 2>&1 | python3 summarize.py", "mix test", HiddenPipe, shownPart, 0},
		// gotestsum's status does reflect the tests, but nothing here knows
		// that: its summary decides, as for any hidden status.
		{"go test -json ./... | gotestsum --raw-command", "gotestsum", HiddenPipe, shownAll, 0},
		{"make V=1 -j 4 check", "make check", "", shownAll, 0},
		{"python -W ignore -m pytest", "pytest", "", shownAll, 0},
		{"MIX_ENV=test timeout 60 mix test", "mix test", "", shownAll, 0},
		{"npx --yes vitest run", "vitest", "", shownAll, 0},
		{"python -m pytest -x tests/", "pytest", "", shownAll, 0},
		{"bundle exec rspec spec/models", "rspec", "", shownAll, 0},
		{"./node_modules/.bin/jest --ci", "jest", "", shownAll, 0},
		{"./gradlew :app:test", "gradle :app:test", "", shownAll, 0},
		{"yarn test --watch=false", "yarn test", "", shownAll, 0},
		{"pnpm run lint", "pnpm run lint", "", shownAll, 0},
		{"cargo +nightly clippy -- -D warnings", "cargo clippy", "", shownAll, 0},
		{"git status | head", "", HiddenPipe, shownLines, 10},
		{"npm install", "", "", shownAll, 0},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			c := parseCommand(tt.line)
			tool := ""
			if c.main >= 0 {
				tool = c.works[c.main].tool
			}
			if tool != tt.tool || c.hidden != tt.hidden || c.shown != tt.shown || c.limit != tt.limit {
				t.Errorf("tool %q hidden %q shown %d limit %d, want %q %q %d %d", tool, c.hidden, c.shown, c.limit, tt.tool, tt.hidden, tt.shown, tt.limit)
			}
		})
	}
}

func TestWorks(t *testing.T) {
	tests := []struct {
		line string
		want []string
	}{
		{"cd x && MIX_ENV=test mix test test/a_test.exs 2>&1 | tail", []string{"mix test"}},
		{"mix compile --warnings-as-errors 2>&1 && mix test test/x.exs 2>&1 | tail -10", []string{"mix compile", "mix test"}},
		{"mix format --check-formatted 2>&1; echo \"---\"; mix credo --strict 2>&1 | tail -20", []string{"mix format", "mix credo"}},
		{"go test -run TestX ./internal/...", []string{"go test"}},
		{"npm run test", []string{"npm test"}},
		{"yarn test", []string{"npm test"}},
		{"python3 -m pytest tests/test_a.py", []string{"pytest"}},
		{"make -j4 -C build check", []string{"make check"}},
		{"git add -A && git commit -m \"$(cat <<'EOF'\nmsg | x\nEOF\n)\"", []string{"git add", "git commit"}},
		{`sbt "ledger-core/testOnly *ReconcileSpec" 2>&1 | tail -n 60`, []string{"sbt ledger-core/testOnly"}},
		{"sbt clean test", []string{"sbt test"}},
		{"Rscript analysis/churn.R 2>&1 | tail -20", []string{"Rscript churn.R"}},
		{"sbt ledger-api/compile", []string{"sbt ledger-api/compile"}},
		{"echo hi; true", nil},
		{"cat log | grep x | head", nil},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			if got := Works(tt.line); !slices.Equal(got, tt.want) {
				t.Errorf("Works = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSameWork(t *testing.T) {
	tests := []struct {
		earlier, later string
		want           bool
	}{
		{"mix test test/a_test.exs", "mix test", true},
		{"mix test", "mix test test/a_test.exs 2>&1 | tail -5", true},
		{"go test ./internal/export", "go test ./...", true},
		{"cd web && npm test", "npm run test -- --ci", true},
		{"FOO=1 pytest -x tests/a.py", "python -m pytest", true},
		{"mix test", "mix compile --warnings-as-errors && mix test 2>&1 | tail", true},
		{"mix compile && mix test", "mix test", false},
		{"go test ./...", "go vet ./...", false},
		{"make lint", "make test", false},
		{"npm run build", "npm run lint", false},
		{"mix test", "mix credo", false},
		{"git push", "git push --set-upstream origin main", true},
		{"echo hi", "echo hi", false},
		{"node assets/build.js", "cd assets && node build.js", true},
		{"bash -n a.sh && echo ok", "bash -n b.sh", false},
	}
	for _, tt := range tests {
		t.Run(tt.earlier+" → "+tt.later, func(t *testing.T) {
			if got := SameWork(tt.earlier, tt.later); got != tt.want {
				t.Errorf("SameWork = %v, want %v (works %q, %q)", got, tt.want, Works(tt.earlier), Works(tt.later))
			}
		})
	}
}

func TestNarrower(t *testing.T) {
	tests := []struct {
		earlier, later string
		want           bool
	}{
		{"./manage.py test contacts", "./manage.py test contacts.tests.test_exports", true},
		{"pytest tests", "pytest tests/test_a.py::test_x -q", true},
		{"go test ./x/", "go test ./x/y", true},
		{"./manage.py test contacts", "./manage.py test contacts", false},
		{"go test ./...", "go test ./x", false},
		{"go test ./x", "go test ./...", false},
		{"pytest tests/test_a.py", "pytest", false},
		// The whole suite, then a file of it: narrower (whether its pass
		// fixes the suite's failure depends on where that failed).
		{"mix test 2>&1 | tail -5", "mix test test/a_test.exs", true},
		{"bundle exec rspec 2>&1 | tail -14", "bundle exec rspec spec/checkout/a_spec.rb", true},
		{"git commit -m wip", "git commit -m 'feat: add x.go'", false},
		{"pytest tests", "pytest tests/a.py other/b.py", false},
	}
	for _, tt := range tests {
		t.Run(tt.earlier+" then "+tt.later, func(t *testing.T) {
			if got := Narrower(tt.earlier, tt.later); got != tt.want {
				t.Errorf("Narrower = %v, want %v", got, tt.want)
			}
		})
	}
}

// A launcher's script is its work: a failed job is not fixed by another
// job the same launcher ran.
func TestLauncherWork(t *testing.T) {
	failed := "spark-submit --master yarn --deploy-mode client --num-executors 40 jobs/daily_orders_enrich.py --date 2026-11-20"
	for _, tt := range []struct {
		later string
		same  bool
	}{
		{"spark-submit --master yarn --num-executors 40 jobs/tools/count_keys.py --table orders", false},
		{"spark-submit --master yarn --num-executors 80 jobs/daily_orders_enrich.py --date 2026-11-20", true},
	} {
		if got := SameWork(failed, tt.later); got != tt.same {
			t.Errorf("SameWork(%q) = %v, want %v", tt.later, got, tt.same)
		}
	}
	if got := Works("torchrun --nproc_per_node 8 train.py --epochs 3"); len(got) != 1 || got[0] != "torchrun train.py" {
		t.Errorf("Works = %q", got)
	}
}
