package e2e

import (
	"path/filepath"
	"strings"
	"testing"
)

// The blind14 set's own checks, without the client: its scripts edit what
// they read, its facts are planted before the compactions that check them
// and not in the prompts after, and a hand-written faithful restore carries
// every fact without tripping a contradiction (so that a miss in the blind
// run is cairn's, not a check no faithful wording could match).

// TestBlind14Script replays each scenario's file tools on its files: every
// Edit's old string is found once in the file as the session left it, and
// every Read names a file that exists by then; no fact is in a prompt after
// the last compaction.
func TestBlind14Script(t *testing.T) {
	for _, sc := range blind14Scenarios() {
		dir := "/proj"
		before, after := sc.Script(dir)
		files := map[string]string{}
		for k, v := range sc.Files {
			files[k] = v
		}
		for _, tn := range append(before, after...) {
			for _, r := range tn.Replies {
				for _, tu := range r.Tools {
					in, _ := tu.Input.(map[string]any)
					p, _ := in["file_path"].(string)
					rel, _ := filepath.Rel(dir, p)
					switch tu.Name {
					case "Edit":
						old := in["old_string"].(string)
						if strings.Count(files[rel], old) != 1 {
							t.Errorf("%s %s: old string found %d times in %s", sc.Name, tu.ID, strings.Count(files[rel], old), rel)
						}
						files[rel] = strings.Replace(files[rel], old, in["new_string"].(string), 1)
					case "Write":
						files[rel] = in["content"].(string)
					case "Read":
						if _, ok := files[rel]; !ok {
							t.Errorf("%s %s: reads missing %s", sc.Name, tu.ID, rel)
						}
					}
				}
			}
		}
		for _, tn := range after {
			for _, f := range sc.Facts {
				for _, re := range f.Want {
					if re.MatchString(tn.Prompt) {
						t.Errorf("%s: prompt %q after the last compaction matches %s of %s", sc.Name, tn.Prompt, re, f.Name)
					}
				}
			}
		}
	}
}

// TestBlind14Planted checks that every pattern of every fact matches the
// session before its compactions (files, stand-in tools, prompts, replies,
// tool inputs).
func TestBlind14Planted(t *testing.T) {
	for _, sc := range blind14Scenarios() {
		before, _ := sc.Script("/proj")
		var b strings.Builder
		for k, v := range sc.Files {
			b.WriteString(k + "\n" + v + "\n")
		}
		for _, v := range sc.Bins {
			b.WriteString(v + "\n")
		}
		for _, tn := range before {
			b.WriteString(tn.Prompt + "\n")
			for _, r := range tn.Replies {
				b.WriteString(r.Text + "\n")
				for _, tu := range r.Tools {
					in, _ := tu.Input.(map[string]any)
					for _, v := range in {
						if s, ok := v.(string); ok {
							b.WriteString(s + "\n")
						}
					}
				}
			}
		}
		text := b.String()
		for _, f := range sc.Facts {
			for _, re := range f.Want {
				if !re.MatchString(text) {
					t.Errorf("%s: %s: %s never planted", sc.Name, f.Name, re)
				}
			}
			for _, re := range f.Not {
				if m := re.FindString(text); m != "" {
					t.Logf("%s: %s: contradiction pattern matches the session: %q", sc.Name, f.Name, m)
				}
			}
		}
	}
}

// blind14Faithful are hand-written faithful restores, one per compaction.
var blind14Faithful = map[string][]string{
	"blind14-foundry-vault": {
		`Task: AUD-212 (audit M-03): Vault.deposit() mints shares on the assets argument, so fee-on-transfer tokens get too many shares.
Constraints: storage layout frozen (UUPS proxy on Sepolia), no new state variables; deposit() gas increase under 3k.
Files: test/FeeOnTransfer.t.sol (new), src/Vault.sol (deposit prices shares off balanceOf before/after: received).
forge test --match-contract FeeOnTransferTest: failed (exit 1), then passed.
forge snapshot --diff: deposit +2,612 gas (3.71%).
Open todos: Decide what previewDeposit() promises for fee tokens; Refresh .gas-snapshot.`,
		`Task: AUD-212 fee-on-transfer share inflation.
Constraints: storage layout frozen behind the proxy; gas increase under 3k for deposit().
Files: test/FeeOnTransfer.t.sol, src/Vault.sol (received = balanceOf delta).
FeeOnTransferTest: passes now. deposit +2612 gas (3.71%).
User answered: mint() reverts with FeeOnTransferUnsupported when less arrives.
forge test: 48 passed, 1 failed: invariant_totalAssetsGeSupply (not investigated).
Todo: previewDeposit() for fee tokens; refresh .gas-snapshot.`,
		`Task: AUD-212 fee-on-transfer.
Constraints: storage layout frozen (UUPS proxy). The 3k gas cap was lifted: security over gas.
Files: test/FeeOnTransfer.t.sol, src/Vault.sol (balBefore / received).
FeeOnTransferTest: failed, then passed. deposit gas +2,612 (3.71%).
Decision: mint() reverts (FeeOnTransferUnsupported).
forge test: 48 passed; invariant_totalAssetsGeSupply still fails. Cause: Handler.sol adds the sent amount to ghost_depositSum. Left to Dana (her suite).
Todo: previewDeposit(); .gas-snapshot.`,
	},
	"blind14-yosys-timing": {
		`Ticket HW-77: uart rx drops bytes at 921600.
Constraint: don't touch icebreaker.pcf. Clock stays 48 MHz (the spi flash core needs it).
Error fixed: tb byte 17 expected 0x5a got 0xad (framing).
rtl/uart_rx.v: added a 2-flop synchronizer (rx_sync), then pipelined the compare (bit_tick_q) instead of dropping the PLL to 36 MHz (user's call).
make sim: failed, then passed (256/256).
make bitstream 2>&1 | tail -4: timing FAIL, clk_pll 44.12 MHz < 48 (the pipe hid the exit 1).
Read rtl/top.v: SB_PLL40_PAD 48 MHz, CLKS_PER_BIT=52.
Open: rerun make bitstream after the pipeline change; user flashes with iceprog tonight and checks on the logic analyzer.`,
	},
	"blind14-fortran-mpi-halo": {
		`Issue #431: heat2d hangs on 6 ranks, fine on 4.
Constraint: keep the decomposition (MPI_Cart_create 2D grid) as is.
Subagent: exchange_halo in src/halo.f90 does blocking MPI_Send before MPI_Recv; periodic 3x2 ring, messages over the eager limit: deadlock.
src/halo.f90 now uses MPI_Sendrecv (user chose it); Isend/Irecv overlap deferred to a later PR.
timeout 60 mpirun -np 6 ./heat2d: exit 124 (hung), now converges: 12.41 s; 4 ranks 17.90 s.`,
		`Issue #431: heat2d on 6 ranks hung.
Constraint: don't change the cartesian decomposition.
Subagent finding: blocking MPI_Send then MPI_Recv in exchange_halo (halo.f90) deadlocks.
halo.f90: MPI_Sendrecv. Overlap with Isend/Irecv: later, not this PR.
mpirun -np 6: converges now (12.41 s vs 17.90 s on 4).
numdiff -a 1e-10 out_np6.dat reference/heat2d_np4.dat | tail -2: 14 differences, max 3.2e-09 (failed, exit 0 only from the pipe).
Tolerance stays 1e-10 (user refused 1e-8). Cause: MPI_Allreduce summation order. Marta decides whether to regenerate the reference.`,
	},
	"blind14-gha-release": {
		`Run 2291 of .github/workflows/release.yml: macos-14 leg fails, cache never hits.
Rules: actions pinned by SHA, don't bump them; no self-hosted runners; don't push.
Failure: sha256sum: command not found on macOS; scripts/fetch-toolchain.sh falls back to shasum -a 256.
release.yml: cache key without github.run_id (runner.os/runner.arch); path: ~/.tiler/toolchain -> ${{ runner.tool_cache }}/tiler (user answered the tool cache one).
actionlint: failed on matrix.arch (exit 1), then clean.
Decision: one matrix, script made portable (user refused a separate macOS job).
Each leg downloaded 1.31 GB in 212 s.
Open: Kenji rotates the download credential leaked in the log; task: confirm a cache hit on the second run after the user pushes on Monday.`,
	},
	"blind14-nbconvert-churn": {
		`DATA-1189: nightly churn report (analysis/churn_report.ipynb) dies.
Constraints: finance diffs the HTML, so cells and headings keep their order; no sampling, full data.
Failure: CellTimeoutError after 600 s on the Classify cell (row-wise apply).
analysis/churn_report.py: classify apply vectorised with np.where; CHURN_DAYS = 45 changed to CHURN_DAYS = 30 (user took back 45).
jupyter nbconvert --to html --execute: timed out, now completes in 191.4 s.
Timeout stays 600 (user refused -1: it should fail loudly).
Churn rate 4.7% -> 6.2%.
Subagent: retention.py has the same row-wise apply, 183 s last night.
Open: retention is Jonas's; nbstripout in pre-commit later; Priya gets a heads-up.`,
	},
}

// TestBlind14FactChecks checks each fact against the faithful restores.
func TestBlind14FactChecks(t *testing.T) {
	for _, sc := range blind14Scenarios() {
		if n := len(blind14Faithful[sc.Name]); n != len(sc.triggers()) {
			t.Errorf("%s: %d faithful restores for %d compactions", sc.Name, n, len(sc.triggers()))
		}
		for i, text := range blind14Faithful[sc.Name] {
			present, contra := sc.present(text, i+1)
			for name, ok := range present {
				if !ok {
					t.Errorf("%s c%d: faithful restore misses %q (contradicted: %v)", sc.Name, i+1, name, contra[name])
				}
			}
		}
	}
}
