package e2e

import (
	"path/filepath"

	"github.com/cairn-agent/cairn/e2e/fakeapi"
)

// The recall bench's fourteenth blind set: five held-out sessions written
// without reading cairn's extraction, checkpoint, render or redaction code
// nor any other scenario's body or facts, only the bench's types and
// helpers. Their first run on main is the blind measurement; nothing in
// cairn was tuned on them.
//
// Each is a kind of session no other set used: a Solidity/Foundry vault
// fixed for fee-on-transfer tokens after an audit finding, compacted three
// times (auto, /compact with instructions, bare /compact), its todo list
// rewritten as it goes, a gas limit the user sets and later drops, and a
// deployer key in a .env file the agent reads; an iCE40 FPGA build with
// yosys and nextpnr whose piped build hides a timing failure, compacted
// inside a turn, for a terse lowercase user; a Fortran MPI halo exchange
// that deadlocks on six ranks, diagnosed by a subagent, for a user who
// mixes Spanish into English and keeps a <private> cluster password in a
// prompt (a manual /compact, then an automatic one); a GitHub Actions
// release workflow debugged from a run log that prints a password inside
// a registry URL, with a task list, a split the user refuses and a
// question answered two turns late (/compact with instructions); and a
// Jupyter notebook, paired with jupytext and executed with nbconvert,
// that times out, a chatty user pasting a server config with its token,
// a subagent checking the sibling notebook and an answer taken back.
//
// They run only in the report (TestRecallReport) and are marked
// "held-out, blind14" in its shape column.

// blind14Scenarios are the fourteenth blind set's scenarios.
func blind14Scenarios() []scenario {
	return []scenario{
		blind14Foundry(),
		blind14Yosys(),
		blind14FortranMPI(),
		blind14Actions(),
		blind14Notebook(),
	}
}

// blind14Tools lets the headless client run shell commands and edit files
// without asking.
var blind14Tools = []string{"Bash", "Read", "Edit", "Write"}

const blind14VaultSol = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "openzeppelin/token/ERC20/IERC20.sol";
import {SafeERC20} from "openzeppelin/token/ERC20/utils/SafeERC20.sol";
import {UUPSUpgradeable} from "openzeppelin-upgradeable/proxy/utils/UUPSUpgradeable.sol";

/// @notice Share vault behind a UUPS proxy. Storage layout is frozen.
contract Vault is UUPSUpgradeable {
    using SafeERC20 for IERC20;

    IERC20 public asset;
    uint256 public totalShares;
    uint256 public totalDebt;
    mapping(address => uint256) public sharesOf;

    function deposit(uint256 assets, address receiver) external returns (uint256 shares) {
        shares = previewDeposit(assets);
        asset.safeTransferFrom(msg.sender, address(this), assets);
        _mint(receiver, shares);
    }

    function mint(uint256 shares, address receiver) external returns (uint256 assets) {
        assets = previewMint(shares);
        asset.safeTransferFrom(msg.sender, address(this), assets);
        _mint(receiver, shares);
    }

    function previewDeposit(uint256 assets) public view returns (uint256) {
        uint256 supply = totalShares;
        return supply == 0 ? assets : assets * supply / totalAssets();
    }

    function previewMint(uint256 shares) public view returns (uint256) {
        uint256 supply = totalShares;
        return supply == 0 ? shares : (shares * totalAssets() + supply - 1) / supply;
    }

    function totalAssets() public view returns (uint256) {
        return asset.balanceOf(address(this)) + totalDebt;
    }

    function _mint(address to, uint256 shares) internal {
        totalShares += shares;
        sharesOf[to] += shares;
    }

    function _authorizeUpgrade(address) internal override {}
}
`

const blind14Handler = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Test} from "forge-std/Test.sol";
import {Vault} from "../../src/Vault.sol";
import {FeeToken} from "../mocks/FeeToken.sol";

/// Invariant handler. Owner: dana (see CODEOWNERS).
contract Handler is Test {
    Vault public vault;
    FeeToken public token;
    uint256 public ghost_depositSum;

    constructor(Vault v, FeeToken t) {
        vault = v;
        token = t;
    }

    function deposit(uint256 amount) external {
        amount = bound(amount, 1, 1e24);
        token.mint(address(this), amount);
        token.approve(address(vault), amount);
        vault.deposit(amount, address(this));
        ghost_depositSum += amount;
    }
}
`

const blind14Forge = `#!/bin/sh
# stand-in for foundry's forge
case "$1" in
build)
  echo "[⠊] Compiling 41 files with Solc 0.8.24"
  echo "Compiler run successful!"
  exit 0 ;;
snapshot)
  echo "test_deposit() (gas: 2612 (3.710%))"
  echo "test_depositPlainToken() (gas: 2612 (2.758%))"
  echo "test_mint() (gas: 0 (0.000%))"
  echo "Overall gas change: 5224 (0.412%)"
  exit 0 ;;
test)
  case "$*" in
  *FeeOnTransferTest*)
    echo "Ran 2 tests for test/FeeOnTransfer.t.sol:FeeOnTransferTest"
    if grep -q balBefore src/Vault.sol; then
      echo "[PASS] test_depositMintsOnReceived() (gas: 118204)"
      echo "[PASS] test_depositPlainToken() (gas: 97311)"
      echo "Suite result: ok. 2 passed; 0 failed; 0 skipped; finished in 3.12ms"
      exit 0
    fi
    echo "[FAIL: assertion failed: 1000000000000000000 != 980000000000000000] test_depositMintsOnReceived() (gas: 112950)"
    echo "[PASS] test_depositPlainToken() (gas: 94699)"
    echo "Suite result: FAILED. 1 passed; 1 failed; 0 skipped; finished in 2.87ms"
    exit 1 ;;
  esac
  echo "Ran 6 test suites in 4.02s: 48 tests passed, 1 failed, 0 skipped (49 total tests)"
  echo ""
  echo "Failing tests:"
  echo "Encountered 1 failing test in test/invariant/VaultInvariants.t.sol:VaultInvariants"
  echo "[FAIL: invariant_totalAssetsGeSupply replay failure]"
  echo "        [Sequence]"
  echo "                sender=0x0000000000000000000000000000000000000b0b addr=[test/invariant/Handler.sol:Handler] calldata=deposit(uint256) args=[7391]"
  echo " invariant_totalAssetsGeSupply() (runs: 1, calls: 1, reverts: 0)"
  exit 1 ;;
esac
echo "forge: unknown command $1" >&2
exit 2
`

// blind14Foundry is a Solidity vault fixed after an audit finding: three
// compactions, a todo list that changes, a limit lifted, a question
// answered, a secret in a file read.
func blind14Foundry() scenario {
	const deployerKey = "0x8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63"
	return scenario{
		Name:           "blind14-foundry-vault",
		Shape:          "held-out, blind14: Solidity/Foundry audit fix, auto then /compact with instructions then bare /compact, todo list rewritten, gas limit lifted, key in a .env read",
		Compactions:    []string{"auto", "manual", "manual"},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "CLAUDE_CODE_ENABLE_TASKS=0"},
		AllowedTools:   blind14Tools,
		PermissionMode: "acceptEdits",
		Files: map[string]string{
			"src/Vault.sol":              blind14VaultSol,
			"test/invariant/Handler.sol": blind14Handler,
			"foundry.toml":               "[profile.default]\nsrc = \"src\"\nout = \"out\"\nlibs = [\"lib\"]\nsolc = \"0.8.24\"\n\n[invariant]\nruns = 256\ndepth = 64\n",
			".env":                       "SEPOLIA_RPC_URL=http://localhost:8545\nDEPLOYER_PRIVATE_KEY=" + deployerKey + "\nFORK_BLOCK=5123000\n",
			".gas-snapshot":              "test_deposit() (gas: 70391)\ntest_depositPlainToken() (gas: 94699)\ntest_mint() (gas: 71022)\n",
		},
		Bins: map[string]string{"forge": blind14Forge},
		Secrets: []secret{
			{Family: "deployer private key in a .env the agent read", Value: deployerKey},
		},
		Script: func(dir string) (before, after []turn) {
			vault := filepath.Join(dir, "src/Vault.sol")
			handler := filepath.Join(dir, "test/invariant/Handler.sol")
			env := filepath.Join(dir, ".env")
			before = []turn{
				{Prompt: "hey! so the audit report landed this morning 🙃 finding M-03, which we're tracking as AUD-212: Vault.deposit() mints shares off the `assets` argument instead of what actually arrived, so with a fee-on-transfer token people get shares for money the vault never got. Could you write a failing test for it first and then fix it? One thing I really need you to respect: the Vault sits behind a UUPS proxy that's already deployed on Sepolia, so the storage layout is frozen — no new state variables, no reordering, nothing above or below totalDebt. Oh and there's a fork block in .env somewhere if you need it.",
					Replies: []fakeapi.Reply{
						reply("Let me look at the vault and the env first.", 9000,
							read("fv1", vault), read("fv2", env)),
						reply("I'll plan this out.", 11000, todoWrite("fv3",
							[2]string{"Write failing fee-on-transfer test", "in_progress"},
							[2]string{"Measure received balance in deposit()", "pending"},
							[2]string{"Decide what previewDeposit() promises for fee tokens", "pending"},
							[2]string{"Refresh .gas-snapshot", "pending"})),
						reply("Writing the test with a 2% fee mock.", 12500,
							write("fv4", filepath.Join(dir, "test/FeeOnTransfer.t.sol"), "// SPDX-License-Identifier: MIT\npragma solidity ^0.8.24;\n\nimport {Test} from \"forge-std/Test.sol\";\nimport {Vault} from \"../src/Vault.sol\";\nimport {FeeToken} from \"./mocks/FeeToken.sol\";\n\ncontract FeeOnTransferTest is Test {\n    function test_depositMintsOnReceived() public {\n        // 2% fee: 1e18 sent, 0.98e18 arrives\n        assertEq(vault.deposit(1e18, address(this)), 0.98e18);\n    }\n}\n")),
						reply("", 13000, bash("fv5", "forge test --match-contract FeeOnTransferTest", "Run the new test")),
						reply("## Where this stands\n\nThe test fails the way the finding says it should:\n\n```\n[FAIL: assertion failed: 1000000000000000000 != 980000000000000000] test_depositMintsOnReceived()\n```\n\n1e18 shares minted for 0.98e18 that arrived. The fork block in `.env` is 5123000, but we don't need a fork for this; the mock token is enough.\n\nFor the fix I'd snapshot `asset.balanceOf(address(this))` before and after `safeTransferFrom` and price shares off the difference. That adds no storage (locals only), so the layout stays as it is.", 14000),
					}},
				{Prompt: "sounds right, go for it. and hmm, keep an eye on gas please — deposit() shouldn't get more than 3k gas more expensive, the integrators complain about every bump",
					Replies: []fakeapi.Reply{
						reply("", 15000, read("fv6", vault)),
						reply("", 16000, edit("fv7", vault,
							"        shares = previewDeposit(assets);\n        asset.safeTransferFrom(msg.sender, address(this), assets);\n        _mint(receiver, shares);",
							"        uint256 balBefore = asset.balanceOf(address(this));\n        asset.safeTransferFrom(msg.sender, address(this), assets);\n        uint256 received = asset.balanceOf(address(this)) - balBefore;\n        shares = previewDeposit(received);\n        _mint(receiver, shares);")),
						reply("", 17000, bash("fv8", "forge test --match-contract FeeOnTransferTest", "Rerun the fee test")),
						reply("", 18000, bash("fv9", "forge snapshot --diff .gas-snapshot 2>&1 | tail -4", "Gas diff against the snapshot")),
						reply("", 18500, todoWrite("fv10",
							[2]string{"Write failing fee-on-transfer test", "completed"},
							[2]string{"Measure received balance in deposit()", "completed"},
							[2]string{"Decide what previewDeposit() promises for fee tokens", "pending"},
							[2]string{"Refresh .gas-snapshot", "pending"})),
						full("Both tests in FeeOnTransferTest pass now. Gas: deposit() went up by 2,612 (3.71%), the two extra SLOAD-free `balanceOf` calls — under your 3k. `previewDeposit()` still overstates shares for fee tokens; that and the snapshot refresh are still on the list."),
					}},
				// Compaction 1 (auto) happens before this turn's request.
				{Prompt: "ok carry on",
					Replies: []fakeapi.Reply{
						reply("Before I touch mint(): the ERC-4626 mint(shares) promises exactly `shares` for `assets` pulled. With a fee token we either revert when less arrives, or mint fewer shares than asked (which breaks the spec). Which do you want?", 12000),
					}},
				{Prompt: "revert",
					Replies: []fakeapi.Reply{
						reply("", 13000, read("fv11", vault)),
						reply("", 14000, edit("fv12", vault,
							"        assets = previewMint(shares);\n        asset.safeTransferFrom(msg.sender, address(this), assets);\n        _mint(receiver, shares);",
							"        assets = previewMint(shares);\n        uint256 balBefore = asset.balanceOf(address(this));\n        asset.safeTransferFrom(msg.sender, address(this), assets);\n        if (asset.balanceOf(address(this)) - balBefore < assets) revert FeeOnTransferUnsupported();\n        _mint(receiver, shares);")),
						reply("", 15000, bash("fv13", "forge test", "Whole suite")),
						reply("mint() now reverts with `FeeOnTransferUnsupported()` when less than `assets` arrives. The whole suite: 48 pass, 1 fails — `invariant_totalAssetsGeSupply` in test/invariant/VaultInvariants.t.sol, replayed on a single Handler.deposit(7391). That one is new with the deposit change, I haven't looked at why yet.", 16000),
					}},
				{Prompt: "/compact keep the audit fix context, the exploration can go"},
				// After compaction 2.
				{Prompt: "back, go on",
					Replies: []fakeapi.Reply{
						reply("", 9000, read("fv14", handler)),
						reply("Found it, I think. In test/invariant/Handler.sol, `deposit()` adds the full `amount` to `ghost_depositSum`, but with the fee mock only 98% of it reaches the vault, so the ghost sum runs ahead of totalAssets and the invariant trips. The vault is right; the handler's bookkeeping is what's off. I'd change the handler to add the received amount.", 10500),
					}},
				{Prompt: "don't touch the handler, that's dana's invariant suite and she's rewriting it this sprint anyway. I'll ping her, leave that red for now. and forget the 3k gas cap I gave you, after talking to the auditors security wins over gas here, whatever it costs",
					Replies: []fakeapi.Reply{
						reply("Understood: the handler stays as is and the invariant failure is Dana's; the gas cap is off. I'll leave the todo list as it is for the rest.", 11500),
					}},
				{Prompt: "/compact"},
			}
			after = []turn{
				{Prompt: "and now?",
					Replies: []fakeapi.Reply{reply("Picking up where we were.", 8000)}},
			}
			return before, after
		},
		Facts: []fact{
			rx("ticket AUD-212 fee-on-transfer finding", `AUD-212`, `(?i)fee[- ]on[- ]transfer`),
			rx("constraint storage layout frozen behind the proxy", `(?i)storage layout|state var`, `(?i)proxy|UUPS|frozen|totalDebt`),
			lit("file test/FeeOnTransfer.t.sol written", "FeeOnTransfer.t.sol"),
			rx("file src/Vault.sol prices shares off the received balance", `Vault\.sol`, `(?i)balBefore|balanceOf|received|balance (before|delta|diff)`),
			rx("command FeeOnTransferTest failed then passed", `(?i)(FeeOnTransferTest|depositMintsOnReceived)[^\n]{0,160}(pass|\bok\b|exit 0|green|fixed)`),
			rx("finding gas increase measured", `2,?612|3\.71\s?%`),
			rx("constraint deposit gas increase under 3k", `(?i)(3k|3,000|3000)`).until(2),
			rx("open todo previewDeposit for fee tokens", `previewDeposit`),
			rx("decision mint reverts on fee tokens (user's answer)", `(?i)\bmint\b[^\n]{0,120}revert|FeeOnTransferUnsupported`).from(2),
			rx("failing invariant_totalAssetsGeSupply in the whole suite", `invariant_totalAssetsGeSupply`).
				notRx(`(?i)invariant_totalAssetsGeSupply[^\n]{0,15}(now pass|passes|passed|green)`).from(2),
			rx("number whole suite 48 passed 1 failed", `(?i)48 (tests )?pass`).from(2),
			rx("key file Handler.sol ghost_depositSum counts the sent amount", `Handler(\.sol)?`, `(?i)ghost_depositSum|ghost sum`).from(3),
			rx("open thread invariant handler left to Dana", `(?i)dana`).from(3),
			rx("constraint gas cap lifted, security over gas", `(?i)security|gas cap (is )?(off|lifted|dropped|removed)|no (gas )?cap|(lifted|dropped|removed)[^\n]{0,30}(gas|cap)`).from(3),
		},
	}
}

const blind14UartRx = `// uart receiver, 8N1, oversampling by CLKS_PER_BIT clock counts
module uart_rx #(parameter CLKS_PER_BIT = 52) (
    input  wire       clk,
    input  wire       rx,
    output reg  [7:0] data,
    output reg        valid
);
    reg [1:0] state = 0;
    reg [7:0] clk_count = 0;
    reg [2:0] bit_idx = 0;

    always @(posedge clk) begin
        valid <= 1'b0;
        case (state)
        0: if (!rx) begin state <= 1; clk_count <= 0; end
        1: if (clk_count == CLKS_PER_BIT/2) begin clk_count <= 0; state <= rx ? 0 : 2; end
           else clk_count <= clk_count + 1;
        2: if (clk_count == CLKS_PER_BIT-1) begin
               clk_count <= 0;
               data[bit_idx] <= rx;
               bit_idx <= bit_idx + 1;
               if (bit_idx == 7) state <= 3;
           end else clk_count <= clk_count + 1;
        3: if (clk_count == CLKS_PER_BIT-1) begin state <= 0; valid <= rx; clk_count <= 0; end
           else clk_count <= clk_count + 1;
        endcase
    end
endmodule
`

const blind14TopV = `module top (input wire CLK, input wire RX, output wire LED_G);
    wire clk_pll, locked;
    // 12 MHz in, 48 MHz out
    SB_PLL40_PAD #(.FEEDBACK_PATH("SIMPLE"), .DIVR(4'd0), .DIVF(7'd63), .DIVQ(3'd4), .FILTER_RANGE(3'd1))
        pll (.PACKAGEPIN(CLK), .PLLOUTCORE(clk_pll), .LOCK(locked), .RESETB(1'b1), .BYPASS(1'b0));
    wire [7:0] byte_rx;
    wire byte_valid;
    uart_rx #(.CLKS_PER_BIT(52)) urx (.clk(clk_pll), .rx(RX), .data(byte_rx), .valid(byte_valid));
    spi_flash_core flash (.clk(clk_pll), .wr(byte_valid), .din(byte_rx));
    assign LED_G = locked;
endmodule
`

const blind14FpgaMakefile = "PROJ = top\n\nsim:\n\tmkdir -p build\n\tiverilog -g2012 -o build/tb_uart_rx.vvp sim/tb_uart_rx.v rtl/uart_rx.v\n\tvvp build/tb_uart_rx.vvp\n\nbitstream: build/$(PROJ).bin\n\nbuild/$(PROJ).json: rtl/top.v rtl/uart_rx.v\n\tmkdir -p build\n\tyosys -q -p 'synth_ice40 -top top -json $@' rtl/top.v rtl/uart_rx.v\n\nbuild/$(PROJ).asc: build/$(PROJ).json icebreaker.pcf\n\tnextpnr-ice40 --up5k --package sg48 --freq 48 --json $< --pcf icebreaker.pcf --asc $@\n\nbuild/$(PROJ).bin: build/$(PROJ).asc\n\ticepack $< $@\n\n.PHONY: sim bitstream\n"

// blind14Yosys is an iCE40 UART fix: a synchronizer, a piped build hiding a
// timing failure, a plan the user overrules, compacted inside a turn.
func blind14Yosys() scenario {
	return scenario{
		Name:           "blind14-yosys-timing",
		Shape:          "held-out, blind14: Verilog/yosys/nextpnr iCE40 build, terse lowercase user, piped build hides a timing failure, plan overruled, in-turn compaction",
		Compactions:    []string{"in-turn"},
		AllowedTools:   blind14Tools,
		PermissionMode: "acceptEdits",
		Files: map[string]string{
			"rtl/uart_rx.v":    blind14UartRx,
			"rtl/top.v":        blind14TopV,
			"sim/tb_uart_rx.v": "module tb_uart_rx; /* sends 256 bytes at 921600 baud and checks each */ endmodule\n",
			"icebreaker.pcf":   "set_io -nowarn CLK 35\nset_io -nowarn RX 6\nset_io -nowarn LED_G 39\n",
			"Makefile":         blind14FpgaMakefile,
		},
		Bins: map[string]string{
			"iverilog": "#!/bin/sh\nexit 0\n",
			"vvp": "#!/bin/sh\n# stand-in for icarus vvp running tb_uart_rx\nif grep -q rx_sync rtl/uart_rx.v; then\n  echo 'tb_uart_rx: 256/256 bytes ok at 921600 baud'\n  echo PASS\n  exit 0\nfi\n" +
				"echo 'tb_uart_rx: byte 17: expected 0x5a got 0xad (framing error)'\necho 'FATAL: sim/tb_uart_rx.v:88: $fatal called at 190440 ns'\nexit 1\n",
			"yosys": "#!/bin/sh\n# stand-in for yosys\ncase \"$*\" in\n*stat*)\n  echo '   Number of cells:                 99'\n  echo '     SB_DFF                         38'\n  echo '     SB_LUT4                        61'\n  exit 0 ;;\nesac\nmkdir -p build && echo '{}' > build/top.json\n",
			"nextpnr-ice40": "#!/bin/sh\n# stand-in for nextpnr-ice40\nif grep -q bit_tick_q rtl/uart_rx.v; then\n  echo \"Info: Max frequency for clock 'clk_pll': 51.30 MHz (PASS at 48.00 MHz)\"\n  : > build/top.asc\n  exit 0\nfi\n" +
				"echo \"Info: Critical path: urx.clk_count_SB_DFF_Q_3 -> urx.state_SB_DFFE_Q_1 (20.7 ns)\"\necho \"Info: Max frequency for clock 'clk_pll': 44.12 MHz (FAIL at 48.00 MHz)\"\necho \"ERROR: Max frequency for clock 'clk_pll' is below the constraint\"\necho '1 warning, 1 error'\nexit 1\n",
			"icepack": "#!/bin/sh\n: > \"$2\"\n",
		},
		Script: func(dir string) (before, after []turn) {
			uart := filepath.Join(dir, "rtl/uart_rx.v")
			before = []turn{
				{Prompt: "uart rx drops bytes at 921600 on the icebreaker. HW-77. dont touch icebreaker.pcf, the board is wired to the logic analyzer already",
					Replies: []fakeapi.Reply{
						reply("", 8000, read("yr1", uart), read("yr2", filepath.Join(dir, "rtl/top.v"))),
						reply("", 9000, bash("yr3", "make sim", "run the uart testbench")),
						reply("", 10000, edit("yr4", uart,
							"    always @(posedge clk) begin\n        valid <= 1'b0;\n        case (state)\n        0: if (!rx)",
							"    // two-flop synchronizer: rx is asynchronous to clk\n    reg [1:0] rx_sync = 2'b11;\n    always @(posedge clk) rx_sync <= {rx_sync[0], rx};\n    wire rx_s = rx_sync[1];\n\n    always @(posedge clk) begin\n        valid <= 1'b0;\n        case (state)\n        0: if (!rx_s)")),
						reply("", 11000, bash("yr5", "make sim", "rerun the testbench")),
						reply("sim reproduced it first: byte 17, expected 0x5a got 0xad, framing. rx went straight from the pin into the fsm with no synchronizer, so the start edge got sampled a cycle late now and then and the bit counter slipped. top.v drives it from clk_pll (SB_PLL40_PAD, 48 MHz) with CLKS_PER_BIT=52, 0.16% off 921600, that part is fine.\n\nadded a 2-flop synchronizer (rx_sync) in uart_rx.v. make sim passes now, 256/256 bytes.", 12000),
					}},
				{Prompt: "build it",
					Replies: []fakeapi.Reply{
						reply("", 13000, bash("yr6", "make bitstream 2>&1 | tail -4", "synth, pnr, pack")),
						reply("timing fails. clk_pll max 44.12 MHz, needs 48. critical path is the clk_count compare in uart_rx into the state register.\n\ntwo options:\n- drop the pll to 36 MHz (DIVF change in top.v, CLKS_PER_BIT 39). one line.\n- register the compare a cycle early (bit_tick_q) so the fsm only sees a flop.\n\ni'd take the pll, it's the smaller change.", 14000),
					}},
				{Prompt: "no. pipeline it. 48 stays, the spi flash core needs 48. ill iceprog it tonight and put the analyzer on it, you cant reach the board from there anyway",
					Replies: []fakeapi.Reply{
						reply("", 15000, read("yr7", uart)),
						reply("", 16000, edit("yr8", uart,
							"    reg [2:0] bit_idx = 0;\n",
							"    reg [2:0] bit_idx = 0;\n    // compare registered one cycle early: the fsm sees a flop, not the adder\n    reg bit_tick_q = 0;\n    always @(posedge clk) bit_tick_q <= (clk_count == CLKS_PER_BIT-2);\n")),
						full("pipelined the compare into bit_tick_q. checking what it costs before i rerun make bitstream.",
							bash("yr9", "yosys -p 'read_verilog rtl/uart_rx.v; synth_ice40 -top uart_rx; stat' | grep -E 'SB_(LUT4|DFF)'", "resource count")),
						// The compaction happens here: the result of yr9 comes back after it.
						fakeapi.Reply{ToolResultFor: "yr9", Text: "61 luts, 38 dffs.", Usage: usageAt(9000)},
					}},
			}
			after = []turn{
				{Prompt: "k",
					Replies: []fakeapi.Reply{reply("ok.", 10000)}},
			}
			return before, after
		},
		Facts: []fact{
			rx("ticket HW-77 uart drops bytes at 921600", `HW-77`, `(?i)921600|921\.6`),
			rx("constraint icebreaker.pcf not to be touched", `icebreaker\.pcf`, `(?i)(don.?t|do not|not|never|no)[^\n]{0,40}(touch|chang|edit|modif)|untouched|unchanged|leave|frozen|read.only`),
			rx("failure framing error at byte 17", `(?i)byte 17|0x5a|0xad|framing`),
			rx("file rtl/uart_rx.v got a two-flop synchronizer", `uart_rx\.v`, `(?i)synchroni[sz]|rx_sync|2.?(ff|flop)|two.?(ff|flop)`),
			rx("command make sim failed then passed", `(?i)(make sim|tb_uart_rx)[^\n]{0,160}(pass|\bok\b|exit 0|fixed|256/256)`),
			pipedFailed("piped command make bitstream failed timing at 44.12 MHz", "make bitstream", `44\.12`),
			rx("constraint clock stays 48 MHz for the spi flash core", `(?i)48\s?MHz|\b48\b`, `(?i)spi`),
			rx("decision pipeline the compare (user overruled the pll drop)", `(?i)pipelin|bit_tick_q|regist(er|ered)[^\n]{0,30}compare`),
			rx("key file rtl/top.v pll and CLKS_PER_BIT", `top\.v`, `(?i)CLKS_PER_BIT|SB_PLL40|\b52\b`),
			rx("open thread user flashes with iceprog tonight and checks on the analyzer", `(?i)iceprog|flash(ing)? (it|the board)|on (the )?(board|hardware)`, `(?i)analy[sz]er`),
			rx("open thread bitstream not rebuilt since the pipeline change", `(?i)(re-?run|rebuil|re-?build)[^\n]{0,40}(make bitstream|bitstream|timing)|(make bitstream|bitstream|timing)[^\n]{0,60}(not yet|pending|again|unverified|to be re)`),
		},
	}
}

const blind14HaloF90 = `module halo
  use mpi_f08
  implicit none
contains
  ! Exchanges one ghost layer with the four neighbours of the cartesian grid.
  subroutine exchange_halo(u, nx, ny, cart, north, south, west, east, col_t)
    integer, intent(in) :: nx, ny, north, south, west, east
    real(8), intent(inout) :: u(0:nx+1, 0:ny+1)
    type(MPI_Comm), intent(in) :: cart
    type(MPI_Datatype), intent(in) :: col_t
    type(MPI_Status) :: st

    ! north/south: contiguous rows
    call MPI_Send(u(1:nx, ny), nx, MPI_DOUBLE_PRECISION, north, 7, cart)
    call MPI_Recv(u(1:nx, 0), nx, MPI_DOUBLE_PRECISION, south, 7, cart, st)
    call MPI_Send(u(1:nx, 1), nx, MPI_DOUBLE_PRECISION, south, 8, cart)
    call MPI_Recv(u(1:nx, ny+1), nx, MPI_DOUBLE_PRECISION, north, 8, cart, st)
    ! west/east: strided columns through col_t
    call MPI_Send(u(nx, 0), 1, col_t, east, 9, cart)
    call MPI_Recv(u(0, 0), 1, col_t, west, 9, cart, st)
    call MPI_Send(u(1, 0), 1, col_t, west, 10, cart)
    call MPI_Recv(u(nx+1, 0), 1, col_t, east, 10, cart, st)
  end subroutine exchange_halo
end module halo
`

const blind14Heat2dF90 = `program heat2d
  use mpi_f08
  use halo
  implicit none
  integer :: rank, nprocs, dims(2) = 0, north, south, west, east, step, nx = 1200, ny = 1200
  logical :: periods(2) = [.true., .false.]
  type(MPI_Comm) :: cart
  type(MPI_Datatype) :: col_t
  real(8), allocatable :: u(:,:), unew(:,:)
  real(8) :: res, gres

  call MPI_Init()
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  call MPI_Dims_create(nprocs, 2, dims)
  call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .true., cart)
  call MPI_Comm_rank(cart, rank)
  call MPI_Cart_shift(cart, 1, 1, south, north)
  call MPI_Cart_shift(cart, 0, 1, west, east)
  call MPI_Type_vector(ny+2, 1, nx+2, MPI_DOUBLE_PRECISION, col_t)
  call MPI_Type_commit(col_t)
  allocate(u(0:nx+1, 0:ny+1), unew(0:nx+1, 0:ny+1))
  u = 0d0
  do step = 1, 500
    call exchange_halo(u, nx, ny, cart, north, south, west, east, col_t)
    unew(1:nx,1:ny) = 0.25d0*(u(0:nx-1,1:ny) + u(2:nx+1,1:ny) + u(1:nx,0:ny-1) + u(1:nx,2:ny+1))
    res = sum((unew(1:nx,1:ny) - u(1:nx,1:ny))**2)
    call MPI_Allreduce(res, gres, 1, MPI_DOUBLE_PRECISION, MPI_SUM, cart)
    u(1:nx,1:ny) = unew(1:nx,1:ny)
    if (sqrt(gres) < 1d-6) exit
  end do
  call MPI_Finalize()
end program heat2d
`

const blind14Mpirun = `#!/bin/sh
# stand-in for mpirun running heat2d
np=1
while [ $# -gt 0 ]; do
  case "$1" in -np|-n) np=$2; shift 2 ;; *) shift ;; esac
done
case $np in 6) grid=3x2 ;; 4) grid=2x2 ;; *) grid=${np}x1 ;; esac
echo "heat2d: $np ranks, $grid cartesian grid, nx=1200 ny=1200"
if ! grep -q MPI_Sendrecv src/halo.f90 && [ "$np" = 6 ]; then
  echo "step     1 residual 4.112e-01"
  exit 124
fi
echo "step   500 residual 9.870e-07 converged"
if [ "$np" = 6 ]; then echo "wall 12.41 s"; else echo "wall 17.90 s"; fi
: > out_np$np.dat
exit 0
`

const blind14Numdiff = `#!/bin/sh
# stand-in for numdiff
echo "##1412    #:3   <== 0.4471532118"
echo "##1412    #:3   ==> 0.4471532150"
echo "@ Absolute error = 3.2000000000e-09, Relative error = 7.1564e-09"
echo "+++  File \"out_np6.dat\" differs from file \"reference/heat2d_np4.dat\""
echo "+++  14 differences found (absolute tolerance 1e-10)"
exit 1
`

// blind14FortranMPI is an MPI deadlock on six ranks: a subagent finds it,
// the user picks the fix, a regression check stays failing, a manual then
// an automatic compaction, a <private> password in a prompt.
func blind14FortranMPI() scenario {
	const clusterPassword = "Tr0mp4-Azul!88"
	return scenario{
		Name:           "blind14-fortran-mpi-halo",
		Shape:          "held-out, blind14: Fortran/MPI halo deadlock, Spanish-mixing user, subagent finding, bare /compact then auto, piped numdiff still differing, <private> password",
		Compactions:    []string{"manual", "auto"},
		AllowedTools:   blind14Tools,
		PermissionMode: "acceptEdits",
		Files: map[string]string{
			"src/halo.f90":             blind14HaloF90,
			"src/heat2d.f90":           blind14Heat2dF90,
			"Makefile":                 "FC = mpif90\nFFLAGS = -O2 -g\n\nheat2d: src/halo.f90 src/heat2d.f90\n\t$(FC) $(FFLAGS) -o $@ src/halo.f90 src/heat2d.f90\n",
			"reference/heat2d_np4.dat": "# heat2d reference, 4 ranks (2x2), nx=ny=1200, 500 steps\n0.0000000000\n0.4471532118\n",
		},
		Bins: map[string]string{
			"mpif90":  "#!/bin/sh\n# stand-in for the MPI Fortran compiler wrapper\nwhile [ $# -gt 0 ]; do case \"$1\" in -o) out=$2; shift 2 ;; *) shift ;; esac; done\n: > \"${out:-a.out}\"\nchmod +x \"${out:-a.out}\"\n",
			"mpirun":  blind14Mpirun,
			"numdiff": blind14Numdiff,
		},
		Secrets: []secret{
			{Family: "cluster password in a <private> span of a prompt", Value: clusterPassword},
		},
		Script: func(dir string) (before, after []turn) {
			haloF := filepath.Join(dir, "src/halo.f90")
			const subPrompt = "Read src/halo.f90 and src/heat2d.f90 in this repo. Explain the order of the blocking MPI calls in exchange_halo and whether it can deadlock on a 3x2 cartesian grid that is periodic in x. Give file:line evidence, no edits."
			before = []turn{
				{Prompt: "hola! issue #431: heat2d se queda colgado when I run it with 6 ranks, con 4 ranks todo bien. I think is something in the halo exchange pero no estoy segura. Importante: no cambies la descomposición — the 2D grid from MPI_Cart_create must stay exactly like now, the results of the paper depend of it. Para el cluster: <private>ssh mperez@hpc-login2.uni.example password " + clusterPassword + "</private> but locally mpirun is enough.",
					Replies: []fakeapi.Reply{
						reply("", 9000, bash("fm1", "make && timeout 60 mpirun -np 6 ./heat2d", "build and run on 6 ranks")),
						reply("It hangs after step 1 (exit 124 from timeout). Let me have the halo code read properly.", 10000,
							agentCall("fm2", "general-purpose", "Read the halo exchange", subPrompt)),
						{For: "Explain the order of the blocking MPI calls", Tools: []fakeapi.ToolUse{read("fm3", haloF), read("fm4", filepath.Join(dir, "src/heat2d.f90"))}, Usage: usageAt(4000)},
						{For: "Explain the order of the blocking MPI calls", Text: "exchange_halo (src/halo.f90:14-21) does blocking MPI_Send before the matching MPI_Recv in every direction. heat2d.f90:15 makes the grid periodic in x, so on 3x2 the east/west sends form a ring of 3 where every rank sends first. Each column message is 1202 doubles through col_t (9.6 KB), above the usual eager limit, so MPI_Send waits for a receive that is never posted: deadlock. On 2x2 the ring is two ranks and the messages happen to get through. Rows are contiguous, columns go through the MPI_Type_vector col_t.", Usage: usageAt(5000)},
						{ToolResultFor: "fm2", Text: "Lo que encontró el subagente: in `exchange_halo` (src/halo.f90) every direction is a blocking `MPI_Send` followed by the `MPI_Recv`. The grid is periodic in x, so with 3x2 the three ranks of a row all send east at the same time; the column messages are 9.6 KB, over the eager limit, so nobody reaches the receive. That is the hang. With 2x2 it works by luck.", Usage: usageAt(12000)},
					}},
				{Prompt: "vale, tiene sentido. y el fix? MPI_Sendrecv o Isend/Irecv con Waitall?",
					Replies: []fakeapi.Reply{
						reply("Both fix the deadlock.\n\n- `MPI_Sendrecv`: one call per direction and per side, the library pairs them, no requests to track. Smallest diff.\n- `MPI_Isend`/`MPI_Irecv` + `MPI_Waitall`: lets us overlap the interior stencil with the communication, which could matter at 1200x1200, but the time loop in heat2d.f90 has to be split into interior and border updates.\n\nI lean to Sendrecv now and overlap as its own change.", 13000),
					}},
				{Prompt: "Sendrecv. el overlap lo dejamos para después, not in this PR",
					Replies: []fakeapi.Reply{
						reply("", 14000, read("fm5", haloF)),
						reply("", 15000, edit("fm6", haloF,
							"    call MPI_Send(u(1:nx, ny), nx, MPI_DOUBLE_PRECISION, north, 7, cart)\n    call MPI_Recv(u(1:nx, 0), nx, MPI_DOUBLE_PRECISION, south, 7, cart, st)\n    call MPI_Send(u(1:nx, 1), nx, MPI_DOUBLE_PRECISION, south, 8, cart)\n    call MPI_Recv(u(1:nx, ny+1), nx, MPI_DOUBLE_PRECISION, north, 8, cart, st)\n    ! west/east: strided columns through col_t\n    call MPI_Send(u(nx, 0), 1, col_t, east, 9, cart)\n    call MPI_Recv(u(0, 0), 1, col_t, west, 9, cart, st)\n    call MPI_Send(u(1, 0), 1, col_t, west, 10, cart)\n    call MPI_Recv(u(nx+1, 0), 1, col_t, east, 10, cart, st)",
							"    call MPI_Sendrecv(u(1:nx, ny), nx, MPI_DOUBLE_PRECISION, north, 7, &\n                      u(1:nx, 0), nx, MPI_DOUBLE_PRECISION, south, 7, cart, st)\n    call MPI_Sendrecv(u(1:nx, 1), nx, MPI_DOUBLE_PRECISION, south, 8, &\n                      u(1:nx, ny+1), nx, MPI_DOUBLE_PRECISION, north, 8, cart, st)\n    ! west/east: strided columns through col_t\n    call MPI_Sendrecv(u(nx, 0), 1, col_t, east, 9, u(0, 0), 1, col_t, west, 9, cart, st)\n    call MPI_Sendrecv(u(1, 0), 1, col_t, west, 10, u(nx+1, 0), 1, col_t, east, 10, cart, st)")),
						reply("", 16000, bash("fm7", "make && timeout 60 mpirun -np 6 ./heat2d", "6 ranks again")),
						reply("", 17000, bash("fm8", "timeout 60 mpirun -np 4 ./heat2d", "4 ranks, to compare")),
						reply("Listo. The four halo directions now use `MPI_Sendrecv` in src/halo.f90, decomposition untouched.\n\n| ranks | result | wall |\n|---|---|---|\n| 6 (3x2) | converged at step 500, residual 9.87e-07 | 12.41 s |\n| 4 (2x2) | converged | 17.90 s |\n\nSo 6 ranks no longer hangs and is faster than 4, as it should be.", 18000),
					}},
				{Prompt: "/compact"},
				{Prompt: "sigue",
					Replies: []fakeapi.Reply{reply("I'm here. Anything else before you open the PR?", 9000)}},
				{Prompt: "sí, falta el regression check. compare out_np6.dat with reference/heat2d_np4.dat using numdiff, absolute tolerance 1e-10 like always",
					Replies: []fakeapi.Reply{
						reply("", 10000, bash("fm9", "numdiff -a 1e-10 out_np6.dat reference/heat2d_np4.dat | tail -2", "regression check against the reference")),
						reply("It does not match: numdiff finds 14 differences, max absolute error 3.2e-09, against 1e-10 allowed.\n\nI don't think it's the halo fix. The residual goes through `MPI_Allreduce` with MPI_SUM, and with 6 ranks the partial sums are added in a different order than with 4, so the convergence test can trip a step apart and the field ends a few ulps off. I'd loosen the tolerance to 1e-8 for runs that aren't on 4 ranks.", 11000),
					}},
				{Prompt: "no, la tolerancia se queda en 1e-10. Marta generó la referencia, I will ask her if we regenerate it with 6 ranks. déjalo así por ahora",
					Replies: []fakeapi.Reply{
						full("De acuerdo. Tolerance stays 1e-10, the numdiff check still reports the 14 differences, and whether reference/heat2d_np4.dat is regenerated for 6 ranks is Marta's call. I've changed nothing else."),
					}},
			}
			after = []turn{
				{Prompt: "ok, seguimos mañana",
					Replies: []fakeapi.Reply{reply("Hasta mañana.", 9000)}},
			}
			return before, after
		},
		Facts: []fact{
			rx("ticket issue 431 heat2d hangs on 6 ranks", `431`, `(?i)6 ranks|np 6|six ranks|3x2`),
			rx("constraint keep the MPI_Cart_create decomposition", `(?i)decompos|Cart_create|cartesian`),
			rx("subagent finding blocking send before receive deadlocks", `(?i)exchange_halo|halo\.f90`, `(?i)MPI_Send[^\n]{0,80}(before|then|first)|blocking|eager|deadlock`),
			rx("file src/halo.f90 uses MPI_Sendrecv (user's choice)", `halo\.f90`, `(?i)Sendrecv`),
			rx("open thread Isend/Irecv overlap deferred to a later PR", `(?i)overlap|Isend|Irecv`, `(?i)later|defer|not (in )?this PR|después|postpone|not now|separate|own change`),
			rx("command 6-rank run hung then converges", `(?i)(np 6|6 ranks|6 \(3x2\)|3x2)[^\n]{0,200}(pass|converg|\bok\b|exit 0|works|no longer hang|12\.41)`),
			rx("finding wall times 6 vs 4 ranks", `12\.41`, `17\.9`),
			pipedFailed("piped command numdiff against the 4-rank reference still differs", "numdiff", `(?i)numdiff|heat2d_np4\.dat`, `(?i)14 (differences|values)|3\.2e-0?9|differ`).from(2),
			rx("constraint regression tolerance stays 1e-10 (loosening overruled)", `1e-10`).notRx(`(?i)toleran\w*\s*(is|now|=|:)\s*1e-0?8\b`).from(2),
			rx("open thread Marta decides whether to regenerate the reference", `(?i)marta`).from(2),
			rx("finding Allreduce summation order explains the difference", `(?i)Allreduce|reduction order|summation order|order of (the )?(partial )?sums?`).from(2),
		},
	}
}

const blind14ReleaseYml = `name: release
on:
  push:
    tags: ['v*']
  workflow_dispatch:

jobs:
  build:
    strategy:
      fail-fast: false
      matrix:
        os: [ubuntu-22.04, ubuntu-24.04-arm, macos-14]
    runs-on: ${{ matrix.os }}
    steps:
      - uses: actions/checkout@b4ffde65f46336ab88eb53be808477a3936bae11 # v4.1.1
      - uses: actions/cache@0c45773b623bea8c8e75f6c82b208c3cf94ea4f9 # v4.0.2
        with:
          path: ~/.tiler/toolchain
          key: toolchain-${{ matrix.os }}-${{ matrix.arch }}-${{ hashFiles('toolchain.lock') }}-${{ github.run_id }}
      - name: Fetch toolchain
        run: ./scripts/fetch-toolchain.sh
        env:
          TILER_DL_URL: ${{ vars.TILER_DL_URL }}
      - name: Build
        run: make release
`

const blind14FetchToolchain = `#!/usr/bin/env bash
set -euxo pipefail
VERSION=$(cat toolchain.lock)
DEST="${TOOLCHAIN_DIR:-$HOME/.tiler/toolchain}"
URL="${TILER_DL_URL}/toolchain/${VERSION}/toolchain-$(uname -s)-$(uname -m).tar.zst"
mkdir -p "$DEST"
if [ -x "$DEST/bin/tiler-cc" ]; then exit 0; fi
curl -fsSL "$URL" -o /tmp/toolchain.tar.zst
curl -fsSL "$URL.sha256" -o /tmp/toolchain.sha256
echo "$(cat /tmp/toolchain.sha256)  /tmp/toolchain.tar.zst" | sha256sum -c -
tar --zstd -xf /tmp/toolchain.tar.zst -C "$DEST"
`

// blind14Actions is a GitHub Actions release workflow debugged from its
// run log: a task list, a split the user refuses, a question answered late,
// a password inside a URL in the log, /compact with instructions.
func blind14Actions() scenario {
	const dlPassword = "Wq7mZ2pLx9vRt4"
	ghLog := "#!/bin/sh\n# stand-in for the GitHub CLI\ncat <<'LOG'\n" +
		"build (macos-14)\tPost cache\t2026-11-24T09:11:58.1Z Cache not found for input keys: toolchain-macos-14--4b1c0e2f-11823302291\n" +
		"build (macos-14)\tFetch toolchain\t2026-11-24T09:12:01.3Z + curl -fsSL https://deploy:" + dlPassword + "@dl.tiler.example/toolchain/2.14.0/toolchain-Darwin-arm64.tar.zst -o /tmp/toolchain.tar.zst\n" +
		"build (macos-14)\tFetch toolchain\t2026-11-24T09:15:33.9Z   % Total: 1.31 GB, 212 s\n" +
		"build (macos-14)\tFetch toolchain\t2026-11-24T09:15:34.0Z ./scripts/fetch-toolchain.sh: line 10: sha256sum: command not found\n" +
		"build (macos-14)\tFetch toolchain\t2026-11-24T09:15:34.0Z ##[error]Process completed with exit code 127.\n" +
		"LOG\n"
	return scenario{
		Name:           "blind14-gha-release",
		Shape:          "held-out, blind14: GitHub Actions release workflow from a run log, user writes lists, task list, split refused, late bare-value answer, password in a URL in the log, /compact with instructions",
		Trigger:        "manual",
		CompactArgs:    "keep the CI bits, drop the log noise",
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1"},
		AllowedTools:   blind14Tools,
		PermissionMode: "acceptEdits",
		Files: map[string]string{
			".github/workflows/release.yml": blind14ReleaseYml,
			"scripts/fetch-toolchain.sh":    blind14FetchToolchain,
			"toolchain.lock":                "2.14.0\n",
		},
		Bins: map[string]string{
			"gh":         ghLog,
			"actionlint": "#!/bin/sh\n# stand-in for actionlint\nif grep -q 'matrix.arch' .github/workflows/release.yml; then\n  echo '.github/workflows/release.yml:19:40: property \"arch\" is not defined in object type {os: string} [expression]'\n  exit 1\nfi\nexit 0\n",
		},
		Secrets: []secret{
			{Family: "download password inside a URL in a CI log", Value: dlPassword},
		},
		Script: func(dir string) (before, after []turn) {
			yml := filepath.Join(dir, ".github/workflows/release.yml")
			script := filepath.Join(dir, "scripts/fetch-toolchain.sh")
			before = []turn{
				{Prompt: "## release CI is red\n\n- run 2291, workflow `.github/workflows/release.yml`\n- the macos-14 leg dies in *Fetch toolchain*, both ubuntu legs are fine\n- the toolchain cache never hits, every leg downloads everything again\n\n### rules\n- do not bump actions/checkout, actions/cache or any other action, security pins them by SHA\n- no self-hosted runners, don't even suggest it\n- don't push anything",
					Replies: []fakeapi.Reply{
						reply("Tracking the three things separately.", 9000,
							taskCreate("ga1", "Fix macos-14 leg of release.yml", "Fetch toolchain step exits on macos-14 only"),
							taskCreate("ga2", "Make the toolchain cache hit", "actions/cache never restores"),
							taskCreate("ga3", "Confirm a cache hit on the second run", "needs a real run after the fix")),
						reply("", 10000, bash("ga4", "gh run view 2291 --log-failed | tail -6", "failed steps of run 2291")),
						reply("", 11000, read("ga5", script), read("ga6", yml)),
						reply("I read the log and both files. Three findings, the third one not on your list.\n\n1. **macos-14**: `./scripts/fetch-toolchain.sh: line 10: sha256sum: command not found`, exit 127. macOS runners have `shasum -a 256`; `sha256sum` is GNU coreutils and only the Linux images ship it.\n2. **cache**: the key ends in `${{ github.run_id }}`, which is new on every run, so the restore can never match anything saved before. It also interpolates `matrix.arch`, which the matrix doesn't define, so that segment is empty (`toolchain-macos-14--...` in the log). Every leg therefore downloads the full toolchain: 1.31 GB, 212 s on the mac leg.\n3. **credentials in the log**: the script runs with `set -x`, and `TILER_DL_URL` comes from `vars.`, not `secrets.`, so Actions doesn't mask it; the curl line prints the download user and password in clear. That credential should be rotated and the URL moved to a secret.\n\nFor 1, I'd give macOS its own job (with `brew install coreutils`) so the Linux legs keep running exactly what they run now. For 2, one question before I change it: keep the cache at `~/.tiler/toolchain`, or move it under `$RUNNER_TOOL_CACHE` like the setup-* actions do?", 12500),
					}},
				{Prompt: "1. no separate job. one matrix, make the script portable instead\n2. fix the key\n3. ugh. the dl server is Kenji's, I'll get him to rotate it. don't touch the variable yourself",
					Replies: []fakeapi.Reply{
						reply("", 13000, read("ga7", script)),
						reply("", 14000, edit("ga8", script,
							"echo \"$(cat /tmp/toolchain.sha256)  /tmp/toolchain.tar.zst\" | sha256sum -c -",
							"if command -v sha256sum >/dev/null; then sha256=(sha256sum); else sha256=(shasum -a 256); fi\necho \"$(cat /tmp/toolchain.sha256)  /tmp/toolchain.tar.zst\" | \"${sha256[@]}\" -c -")),
						reply("", 14500, taskUpdate("ga9", "1", "completed")),
						reply("", 15000, bash("ga10", "actionlint", "lint the workflows")),
						reply("", 15500, read("ga11", yml)),
						reply("", 16000, edit("ga12", yml,
							"          key: toolchain-${{ matrix.os }}-${{ matrix.arch }}-${{ hashFiles('toolchain.lock') }}-${{ github.run_id }}",
							"          key: toolchain-${{ runner.os }}-${{ runner.arch }}-${{ hashFiles('toolchain.lock') }}")),
						reply("", 16500, bash("ga13", "actionlint", "lint again")),
						reply("Done with the first two parts:\n\n- `scripts/fetch-toolchain.sh` now picks `sha256sum` when it exists and falls back to `shasum -a 256`, so the same matrix runs on all three runners.\n- The cache key in release.yml is `toolchain-<runner.os>-<runner.arch>-<hash of toolchain.lock>`, with no run id. actionlint had flagged the undefined `matrix.arch` (exit 1); it is clean now.\n\nThe cache path question is still open, I left `~/.tiler/toolchain` for now.", 17500),
					}},
				{Prompt: "thx. the tool cache one",
					Replies: []fakeapi.Reply{
						reply("", 18000, read("ga14", yml)),
						reply("", 18500, edit("ga15", yml, "          path: ~/.tiler/toolchain", "          path: ${{ runner.tool_cache }}/tiler")),
						reply("", 19000, edit("ga16", yml, "          TILER_DL_URL: ${{ vars.TILER_DL_URL }}\n", "          TILER_DL_URL: ${{ vars.TILER_DL_URL }}\n          TOOLCHAIN_DIR: ${{ runner.tool_cache }}/tiler\n")),
						reply("", 19500, taskUpdate("ga17", "2", "completed")),
						reply("The cache now lives in `$RUNNER_TOOL_CACHE/tiler`, and the script is pointed there with TOOLCHAIN_DIR. The last task, seeing an actual cache hit on a second run, can only happen once this is pushed, which I won't do.", 20000),
					}},
				{Prompt: "yep I'll push monday morning and rerun it twice",
					Replies: []fakeapi.Reply{reply("Sounds good.", 20500)}},
			}
			after = []turn{
				{Prompt: "hi again",
					Replies: []fakeapi.Reply{reply("Hi, I'm here.", 9000)}},
			}
			return before, after
		},
		Facts: []fact{
			rx("ticket run 2291 of release.yml", `2291`, `release\.ya?ml`),
			rx("constraint actions stay pinned by SHA, no bumps", `(?i)pin(ned|s)?[^\n]{0,40}SHA|SHA[^\n]{0,40}pin|(don.?t|do not|no|never)[^\n]{0,30}bump`),
			rx("constraint no self-hosted runners", `(?i)self.hosted`),
			rx("failure sha256sum missing on macos, shasum used", `sha256sum`, `(?i)shasum`),
			lit("file scripts/fetch-toolchain.sh made portable", "fetch-toolchain.sh"),
			rx("file release.yml cache key without run_id", `(?i)run_id|run id`, `(?i)cache|key`),
			rx("command actionlint failed then passed", `(?i)actionlint[^\n]{0,160}(pass|clean|\bok\b|exit 0|no (errors|issues|findings))`),
			rx("decision one portable matrix (user refused a separate macos job)", `(?i)(one|single|same|keep)[^\n]{0,30}matrix|portab|(no|not|rejected|refused|instead of)[^\n]{0,30}(separate|own|split)[^\n]{0,20}job`),
			rx("decision cache path under RUNNER_TOOL_CACHE (user's late answer)", `(?i)RUNNER_TOOL_CACHE|runner\.tool_cache|tool.cache`).notRx(`(?i)(cache|path)[^\n]{0,20}(stays|kept|remains)[^\n]{0,10}~/\.tiler`),
			rx("open thread Kenji rotates the leaked download credential", `(?i)kenji`, `(?i)rotat`),
			rx("open task confirm a cache hit on the second run", `(?i)cache hit`, `(?i)second|2nd|rerun|re-run|twice`),
			rx("open thread user pushes on Monday", `(?i)monday`),
			rx("finding every leg downloads 1.31 GB in 212 s", `1\.31 ?GB|212 ?s`),
		},
	}
}

const blind14ChurnPy = `# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#   kernelspec:
#     name: python3
# ---

# %% [markdown]
# # Monthly churn report

# %%
import numpy as np
import pandas as pd

CHURN_DAYS = 45

# %% [markdown]
# ## Load

# %%
events = pd.read_parquet("data/events.parquet")  # ~40M rows
customers = events.groupby("customer_id").agg(last_seen=("ts", "max")).reset_index()
customers["asof"] = pd.Timestamp.today().normalize()

# %% [markdown]
# ## Classify

# %%
def classify(row):
    if (row["asof"] - row["last_seen"]).days > CHURN_DAYS:
        return "churned"
    return "active"


customers["status"] = customers.apply(classify, axis=1)

# %% [markdown]
# ## Summary

# %%
print(f"churn rate: {(customers.status == 'churned').mean():.1%}")
`

const blind14RetentionPy = `# %%
import pandas as pd

# %%
cohorts = pd.read_parquet("data/cohorts.parquet")  # ~8M rows

# %%
def is_retained(row):
    return row["orders_90d"] > 0 and row["tenure_days"] > 30


cohorts["retained"] = cohorts.apply(is_retained, axis=1)
`

const blind14Jupyter = `#!/bin/sh
# stand-in for jupyter nbconvert
[ "$1" = nbconvert ] || { echo "jupyter: unknown command $1" >&2; exit 2; }
echo "[NbConvertApp] Converting notebook analysis/churn_report.ipynb to html"
if grep -q 'np.where' analysis/churn_report.py; then
  rate=4.7
  grep -q 'CHURN_DAYS = 30' analysis/churn_report.py && rate=6.2
  echo "<html><body><h1>Monthly churn report</h1><pre>churn rate: $rate%</pre></body></html>" > analysis/churn_report.html
  echo "[NbConvertApp] Executed 14 cells in 191.4 s"
  echo "[NbConvertApp] Writing 2381734 bytes to analysis/churn_report.html"
  exit 0
fi
echo "[NbConvertApp] ERROR | Timeout waiting for execute reply (600s)."
echo "Traceback (most recent call last):"
echo "  File \"/opt/conda/lib/python3.11/site-packages/nbclient/client.py\", line 801, in _async_poll_for_reply"
echo "nbclient.exceptions.CellTimeoutError: A cell timed out while it was being executed, after 600 seconds."
echo "The message was: Cell execution timed out."
echo "Here is a preview of the cell contents:"
echo "-------------------"
echo "['def classify(row):', '    if (row[\"asof\"] - row[\"last_seen\"]).days > CHURN_DAYS:', '...', 'customers[\"status\"] = customers.apply(classify, axis=1)']"
echo "-------------------"
exit 1
`

// blind14Notebook is a Jupyter notebook executed with nbconvert that times
// out: a chatty user pasting a config with a token, a subagent on the
// sibling notebook, a plan overruled, an answer taken back, an automatic
// compaction.
func blind14Notebook() scenario {
	const serverToken = "f3c9a1d27be84e6a9c0d5b71e2a4f8c6d3b9e07a15c2f4d8"
	return scenario{
		Name:           "blind14-nbconvert-churn",
		Shape:          "held-out, blind14: Jupyter notebook (jupytext pair) run with nbconvert, chatty user, pasted config with a token, subagent, timeout plan overruled, answer taken back, auto",
		Trigger:        "auto",
		AllowedTools:   blind14Tools,
		PermissionMode: "acceptEdits",
		Files: map[string]string{
			"analysis/churn_report.py":    blind14ChurnPy,
			"analysis/churn_report.ipynb": "{\"cells\": [], \"metadata\": {\"jupytext\": {\"formats\": \"ipynb,py:percent\"}}, \"nbformat\": 4, \"nbformat_minor\": 5}\n",
			"analysis/retention.py":       blind14RetentionPy,
			"logs/nightly-2026-11-24.log": "02:00:03 start churn_report.ipynb\n02:10:04 churn_report.ipynb FAILED: CellTimeoutError after 600 s\n02:10:05 start retention.ipynb\n02:13:08 retention.ipynb executed in 183 s\n",
		},
		Bins: map[string]string{
			"jupyter":  blind14Jupyter,
			"jupytext": "#!/bin/sh\n# stand-in for jupytext --sync\nfor f in \"$@\"; do case \"$f\" in *.py) echo \"[jupytext] Reading $f in format py\"; echo \"[jupytext] Updating ${f%.py}.ipynb\" ;; esac; done\n",
		},
		Secrets: []secret{
			{Family: "Jupyter server token in a pasted config", Value: serverToken},
		},
		Script: func(dir string) (before, after []turn) {
			py := filepath.Join(dir, "analysis/churn_report.py")
			const subPrompt = "Look at analysis/retention.py (the jupytext pair of retention.ipynb) and logs/nightly-2026-11-24.log. Does retention have the same row-wise DataFrame.apply pattern that made churn_report time out, and how long did it take last night? Report only, don't edit."
			before = []turn{
				{Prompt: "Hiii 👋 so our nightly churn report (DATA-1189) has died three nights in a row now and finance is starting to send me sad emails 😅 It's analysis/churn_report.ipynb, we keep it paired with jupytext so the .py next to it is what we actually edit, and the nightly just runs `jupyter nbconvert --to html --execute analysis/churn_report.ipynb`. Here's the jupyter config from the box in case that matters:\n\n```\nc.ServerApp.ip = '0.0.0.0'\nc.ServerApp.token = '" + serverToken + "'\nc.ExecutePreprocessor.timeout = 600\n```\n\nTwo things I can't bend on: finance diffs the HTML every morning against the day before, so the cells and headings have to stay in the same order, and please no sampling, the numbers must come from the full data. Thanks!!",
					Replies: []fakeapi.Reply{
						reply("", 9000, bash("nb1", "jupyter nbconvert --to html --execute analysis/churn_report.ipynb", "reproduce the nightly run")),
						reply("", 10000, read("nb2", py)),
						reply("Reproduced: `CellTimeoutError ... after 600 seconds`, on the Classify cell (cell 14 of the notebook), `customers.apply(classify, axis=1)`.\n\nThat's a Python function called once per customer row, which with the customer count we have now is simply too slow; pandas can do the same comparison on the whole column at once. So:\n\n1. Replace the row-wise `apply` with a vectorised `np.where` on the idle days. Same cell, same output column, nothing moves in the HTML.\n2. Belt and braces: set `ExecutePreprocessor.timeout = -1` in that config so the nightly can't die on a timeout again.\n\nAnd a question while I'm in there: `CHURN_DAYS` is 45 in the notebook, but I've seen 30 used for churn elsewhere. Which one is right?", 11000),
					}},
				{Prompt: "vectorise yes!! the timeout thing no way, keep it at 600 — if it gets slow again I want it to blow up loudly at 2am, not quietly run until 9 when finance opens the file. and the churn days... 45",
					Replies: []fakeapi.Reply{
						reply("", 12000, read("nb3", py)),
						reply("", 13000, edit("nb4", py,
							"def classify(row):\n    if (row[\"asof\"] - row[\"last_seen\"]).days > CHURN_DAYS:\n        return \"churned\"\n    return \"active\"\n\n\ncustomers[\"status\"] = customers.apply(classify, axis=1)",
							"idle_days = (customers[\"asof\"] - customers[\"last_seen\"]).dt.days\ncustomers[\"status\"] = np.where(idle_days > CHURN_DAYS, \"churned\", \"active\")")),
						reply("", 14000, bash("nb5", "jupytext --sync analysis/churn_report.py && jupyter nbconvert --to html --execute analysis/churn_report.ipynb", "sync the pair and rerun")),
						reply("That runs through now. Let me check whether the other nightly notebook has the same problem coming.", 15000,
							agentCall("nb6", "general-purpose", "Check retention notebook", subPrompt)),
						{For: "Does retention have the same row-wise DataFrame.apply pattern", Tools: []fakeapi.ToolUse{read("nb7", filepath.Join(dir, "analysis/retention.py")), read("nb8", filepath.Join(dir, "logs/nightly-2026-11-24.log"))}, Usage: usageAt(4000)},
						{For: "Does retention have the same row-wise DataFrame.apply pattern", Text: "Yes. analysis/retention.py builds `cohorts[\"retained\"] = cohorts.apply(is_retained, axis=1)`, the same row-wise apply, on ~8M cohort rows. The nightly log shows retention.ipynb executed in 183 s last night, so it is under the 600 s timeout for now, but it is the same pattern and will grow with the data.", Usage: usageAt(5000)},
						{ToolResultFor: "nb6", Text: "Here's where we are:\n\n- **churn_report**: the Classify cell uses `np.where` now, synced to the .ipynb with jupytext, and `jupyter nbconvert --to html --execute` completes: 14 cells in 191.4 s, against the 600 s timeout that stays as it is. Headings and cell order unchanged.\n- **retention** (from the subagent): retention.py has the very same row-wise `apply` (~8M rows). It took 183 s last night, so not failing yet, but it's the next one to go.\n\n`CHURN_DAYS` stays 45 as you said.", Usage: usageAt(17000)},
					}},
				{Prompt: "oh wait, no, sorry!! 30, not 45. 45 was the old definition, finance switched to 30 in September and I totally forgot",
					Replies: []fakeapi.Reply{
						reply("", 18000, read("nb9", py)),
						reply("", 19000, edit("nb10", py, "CHURN_DAYS = 45", "CHURN_DAYS = 30")),
						reply("", 20000, bash("nb11", "jupytext --sync analysis/churn_report.py && jupyter nbconvert --to html --execute analysis/churn_report.ipynb && grep -o 'churn rate: [0-9.]*%' analysis/churn_report.html", "rerun with the new window")),
						reply("Switched to 30 days. The report runs fine and the churn rate in the HTML goes from 4.7% to 6.2% with the shorter window, which finance will see as a jump tomorrow, so it may be worth a heads-up.", 21000),
					}},
				{Prompt: "good call, I'll warn Priya, she's the one who diffs it in the morning. retention is Jonas's notebook, leave it, I'll forward him what the subagent found. oh and could you add nbstripout to pre-commit while you're at it? hmm, actually no, not in this PR, later",
					Replies: []fakeapi.Reply{
						full("Okay: retention stays untouched for Jonas, nbstripout waits for another PR, and Priya gets your heads-up about the 6.2%."),
					}},
			}
			after = []turn{
				{Prompt: "morning! where were we",
					Replies: []fakeapi.Reply{reply("Good morning!", 9000)}},
			}
			return before, after
		},
		Facts: []fact{
			rx("ticket DATA-1189 nightly churn report dies", `DATA-1189`, `(?i)churn`),
			rx("constraint cells and headings keep their order (finance diffs the HTML)", `(?i)order|headings`, `(?i)finance|diff`),
			rx("constraint no sampling, full data", `(?i)sampl`),
			rx("failure CellTimeoutError after 600 s on the row-wise apply", `(?i)CellTimeoutError|timed out|time.?out`, `(?i)apply|classify|cell 14`),
			rx("file analysis/churn_report.py vectorised with np.where", `churn_report\.py`, `(?i)np\.where|vectori[sz]`),
			rx("command nbconvert failed then completes", `(?i)nbconvert[^\n]{0,200}(pass|succe|\bok\b|exit 0|works|191\.4|complete|finishe|runs through)`),
			rx("decision timeout stays 600 (user overruled -1)", `(?i)(keep|stays?|remains?|leave|kept)[^\n]{0,40}600|600[^\n]{0,60}(stays|kept|keep|unchanged|loud)`),
			rx("decision CHURN_DAYS is 30 (answer 45 taken back)", `(?i)CHURN_DAYS|churn (days|window|definition)|inactiv`, `\b30\b`).
				notRx(`(?i)(CHURN_DAYS|churn days|churn window)\s*(is|stays|remains|kept at)\s*45`),
			rx("number churn rate 4.7% to 6.2%", `6\.2\s?%`),
			rx("number nbconvert run 191.4 s", `191\.4`),
			rx("subagent finding retention.py has the same apply, 183 s", `(?i)retention`, `(?i)183|apply|same pattern|row-wise`),
			rx("open thread retention notebook left to Jonas", `(?i)jonas`),
			rx("open thread nbstripout in pre-commit deferred", `(?i)nbstripout`),
			rx("open thread Priya warned about the jump", `(?i)priya`),
		},
	}
}
