package e2e

import (
	"path/filepath"
	"strings"

	"github.com/cairn-agent/cairn/e2e/fakeapi"
)

// The recall bench's held-out scenarios. cairn's extraction was improved
// while looking at the misses of the other thirteen, so their figure is no
// longer blind; these five were written afterwards, without reading cairn's
// extraction or rendering, nor the other scenarios' facts, and cairn was not
// tuned on them. Each is in a toolchain the others do not use (Ruby/rspec,
// C/make, Deno, PHP/phpunit, Haskell/cabal) and a voice of its own (a very
// polite user, a terse one, a non-native speaker, a lowercase one, an
// exclamatory one; an agent reporting in tables, one thinking aloud in
// long paragraphs), and together they plant: a decision the user reverses
// (the later one must win), a failure fixed and then a different one (the
// first must not be reported as still failing), a monorepo, a subagent, two
// unrelated tasks in one session, a long log before the compaction,
// secrets, and manual and automatic compactions, two of them twice. Their
// facts are checked in any wording a faithful restore could use: key
// tokens, numbers, paths, and alternatives.
//
// They run only in the report (TestRecallReport), after the others, and are
// marked "held-out" in its shape column; no CI test runs them.

// heldOutScenarios are the held-out scenarios the recall report runs.
func heldOutScenarios() []scenario {
	return []scenario{
		heldOutRspecReversal(),
		heldOutMakeTwoFailures(),
		heldOutDenoMonorepo(),
		heldOutPHPSecrets(),
		heldOutCabalThinking(),
	}
}

// heldOutRspecReversal is a Ruby checkout fix for a very polite, verbose
// user who agrees to banker's rounding and, three turns later, reverses it
// for round-half-up; a question and its answer; a piped rspec run that
// prints a failure in another team's spec, left alone on purpose; the
// remaining work said two turns before a manual /compact.
func heldOutRspecReversal() scenario {
	const (
		applier = "lib/checkout/gift_card_applier.rb"
		spec    = "spec/checkout/gift_card_applier_spec.rb"
	)
	return scenario{
		Name:  "heldout-rspec-reversal",
		Shape: "held-out; Ruby/rspec, manual; a polite user reverses a decision, piped rspec failure left to another team",
		Files: map[string]string{
			"Gemfile": "source \"https://rubygems.org\"\n\nruby \"3.3.4\"\n\ngem \"bigdecimal\", \"~> 3.1\"\n\ngroup :test do\n  gem \"rspec\", \"~> 3.13\"\nend\n",
			".rspec":  "--require spec_helper\n--format progress\n",
			applier: `# frozen_string_literal: true

module Checkout
  # Spreads a gift card payment over the order's line items, so that a
  # refund of one item gives back that item's share of the card.
  class GiftCardApplier
    def initialize(card, line_items)
      @card = card
      @line_items = line_items
    end

    def apply
      total = @line_items.sum { |li| li.price.to_f }
      paid = [@card.balance.to_f, total].min
      shares = @line_items.map { |li| (paid * li.price.to_f / total).round(2) }
      @card.balance = (@card.balance.to_f - shares.sum).round(2)
      @line_items.zip(shares).each { |li, s| li.gift_card_share = s }
      shares
    end
  end
end
`,
			"lib/money_math.rb": `# frozen_string_literal: true

# Shared by billing and checkout. Billing's invoices depend on the exact
# output of .allocate: change it only with billing's sign-off.
module MoneyMath
  def self.allocate(amount, weights)
    total = weights.sum.to_f
    weights.map { |w| (amount.to_f * w / total).round(2) }
  end
end
`,
			"lib/checkout/receipt_formatter.rb":       "# frozen_string_literal: true\n\nmodule Checkout\n  class ReceiptFormatter\n    def money(amount, locale: :en)\n      format(\"€%.2f\", amount)\n    end\n  end\nend\n",
			"spec/spec_helper.rb":                     "$LOAD_PATH.unshift File.expand_path(\"../lib\", __dir__)\nrequire \"bigdecimal\"\n",
			"spec/checkout/receipt_formatter_spec.rb": "require \"checkout/receipt_formatter\"\n\nRSpec.describe Checkout::ReceiptFormatter do\n  it \"uses a decimal comma for German receipts\" do\n    expect(described_class.new.money(0.01, locale: :de)).to eq(\"€0,01\")\n  end\nend\n",
			"CHANGELOG.md":                            "# Changelog\n\n## Unreleased\n\n## 4.12.0\n- Apple Pay for gift cards\n",
		},
		Bins: map[string]string{"bundle": `#!/bin/sh
# stand-in for bundler and rspec: prints what this app's specs print
[ "$1" = exec ] && shift
[ "$1" = rspec ] || { echo "bundle: unknown command $1" >&2; exit 1; }
shift
if [ -n "$1" ]; then
  if ! grep -q BigDecimal lib/checkout/gift_card_applier.rb; then
    cat <<'EOF'

Randomized with seed 41187
....F

Failures:

  1) Checkout::GiftCardApplier uses up a 25.00 card on a 30.00 order of three 10.00 items
     Failure/Error: expect(card.balance).to eq(BigDecimal("0"))

       expected: 0.0
            got: 0.01

     # ./spec/checkout/gift_card_applier_spec.rb:14:in 'block (2 levels) in <top (required)>'

Finished in 0.01862 seconds (files took 0.1124 seconds to load)
5 examples, 1 failure

Failed examples:

rspec ./spec/checkout/gift_card_applier_spec.rb:9 # Checkout::GiftCardApplier uses up a 25.00 card on a 30.00 order of three 10.00 items
EOF
    exit 1
  fi
  n=6
  grep -q ROUND_HALF_UP lib/checkout/gift_card_applier.rb && n=7
  echo
  echo 'Randomized with seed 5530'
  echo '.......' | cut -c1-$n
  echo
  echo 'Finished in 0.01544 seconds (files took 0.1098 seconds to load)'
  echo "$n examples, 0 failures"
  exit 0
fi
cat <<'EOF'
  1) Checkout::ReceiptFormatter uses a decimal comma for German receipts
     Failure/Error: expect(described_class.new.money(0.01, locale: :de)).to eq("€0,01")

       expected: "€0,01"
            got: "€0.01"

     # ./spec/checkout/receipt_formatter_spec.rb:5:in 'block (2 levels) in <top (required)>'

Finished in 1.42 seconds (files took 0.6131 seconds to load)
212 examples, 1 failure

Failed examples:

rspec ./spec/checkout/receipt_formatter_spec.rb:4 # Checkout::ReceiptFormatter uses a decimal comma for German receipts
EOF
exit 1
`},
		AllowedTools:   []string{"Bash(bundle:*)", "Bash(tail:*)", "Bash(git add:*)", "Bash(git commit:*)"},
		PermissionMode: "acceptEdits",
		Trigger:        "manual",
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			before = []turn{
				{Prompt: "Good morning! I hope you're keeping well. I'd be very grateful if you could help me with ticket SHOP-3318 from our tracker. " +
					"Customers who pay partly with a gift card are sometimes left with one cent on the card that they can never spend: the complaint we had was a €25.00 card used on a €30.00 order of three €10.00 items, and the card still showed €0.01 afterwards. " +
					"I believe the relevant code lives in lib/checkout/gift_card_applier.rb. One thing I must ask, if you don't mind: we cannot add any new gems to the Gemfile at the moment, because the security review for new dependencies takes several weeks. Thank you so much in advance!",
					Replies: []fakeapi.Reply{
						reply("", 14000, read("toolu_rb_read_applier", p(applier))),
						reply("", 14500, read("toolu_rb_read_money", p("lib/money_math.rb"))),
						reply("I'll pin the complaint down in a spec first.", 15000, write("toolu_rb_write_spec", p(spec), `require "checkout/gift_card_applier"

RSpec.describe Checkout::GiftCardApplier do
  Card = Struct.new(:balance)
  Item = Struct.new(:price, :gift_card_share)

  def items(*prices) = prices.map { |p| Item.new(BigDecimal(p)) }

  it "uses up a 25.00 card on a 30.00 order of three 10.00 items" do
    card = Card.new(BigDecimal("25.00"))
    shares = described_class.new(card, items("10.00", "10.00", "10.00")).apply

    expect(shares.sum).to eq(BigDecimal("25.00"))
    expect(card.balance).to eq(BigDecimal("0"))
  end
end
`)),
						reply("", 15500, bash("toolu_rb_rspec_1", "bundle exec rspec "+spec, "Run the new gift card spec")),
						reply("The new spec reproduces it. Here is what happens: the applier works in Float and rounds each line's share of the card on its own. "+
							"With three €10.00 items and a €25.00 card, each share is 8.3333…, which rounds to 8.33, and 3 × 8.33 = 24.99, so one cent is never taken off the card.\n\n"+
							"I'd like to do the arithmetic in BigDecimal (it's in the standard library, and already in your Gemfile, so no new gem) and give the leftover cent to one line explicitly. "+
							"For the rounding mode I'd suggest banker's rounding (ROUND_HALF_EVEN), so that over many thousands of orders the half cents don't drift upwards.\n\n"+
							"I looked at lib/money_math.rb as well: MoneyMath.allocate has exactly the same Float problem, but its header says billing's invoices depend on its exact output, so I'd rather not touch it and keep the fix inside the applier.\n\n"+
							"One question before I write the fix: which line should receive the leftover cent, the last line of the order or the most expensive one?", 16000),
					}},
				{Prompt: "Thank you, that's a wonderfully clear explanation. Banker's rounding sounds perfectly sensible to me. As for the leftover cent, the most expensive line item, please: that's what the returns team expects when they refund a single item.",
					Replies: []fakeapi.Reply{
						reply("", 17000, edit("toolu_rb_edit_applier_1", p(applier), `    def apply
      total = @line_items.sum { |li| li.price.to_f }
      paid = [@card.balance.to_f, total].min
      shares = @line_items.map { |li| (paid * li.price.to_f / total).round(2) }
      @card.balance = (@card.balance.to_f - shares.sum).round(2)`, `    ROUNDING = BigDecimal::ROUND_HALF_EVEN

    def apply
      total = @line_items.sum { |li| BigDecimal(li.price.to_s) }
      paid = [BigDecimal(@card.balance.to_s), total].min
      shares = @line_items.map { |li| (paid * BigDecimal(li.price.to_s) / total).round(2, ROUNDING) }
      priciest = @line_items.each_index.max_by { |i| @line_items[i].price }
      shares[priciest] += paid - shares.sum
      @card.balance = BigDecimal(@card.balance.to_s) - paid`)),
						reply("", 17500, bash("toolu_rb_rspec_2", "bundle exec rspec "+spec, "Run the gift card spec again")),
						reply("", 18000, bash("toolu_rb_rspec_all", "bundle exec rspec 2>&1 | tail -14", "Run the whole suite")),
						reply("The gift card spec passes now (6 examples, 0 failures): the shares are 8.34, 8.33 and 8.33 and the card ends at exactly 0.\n\n"+
							"The whole suite, however, reports 212 examples, 1 failure, and the failing one is not ours: spec/checkout/receipt_formatter_spec.rb expects a German receipt to print \"€0,01\" and the formatter prints \"€0.01\" because it ignores the locale. "+
							"Our change doesn't touch the receipt formatter. Would you like me to fix that one too?", 18500),
					}},
				{Prompt: "Oh, please do leave the receipt formatter alone, if you'd be so kind: that code belongs to Tomasz's team and they're rewriting it this sprint, so I'll mention the failing spec to them myself. " +
					"What I would love, whenever you have a moment and certainly no rush, is a line in CHANGELOG.md under Unreleased, and a short note for our support colleagues in docs/support/gift-cards.md explaining why older receipts may still show the stray cent.",
					Replies: []fakeapi.Reply{reply("Understood. I'll leave the receipt formatter and its failing spec to Tomasz's team. Still to do, whenever suits you: the CHANGELOG.md line under Unreleased and the support note in docs/support/gift-cards.md.", 19000)}},
				{Prompt: "I'm so sorry to do this to you, but I've just had a word with Margaret in finance, and it turns out our ERP (SAP) rounds half up on every invoice line, so the figures won't reconcile if we round half to even. " +
					"Could we please switch to ROUND_HALF_UP instead? My apologies for changing my mind after you'd already written it.",
					Replies: []fakeapi.Reply{
						reply("", 19500, edit("toolu_rb_edit_applier_2", p(applier), "ROUNDING = BigDecimal::ROUND_HALF_EVEN", "ROUNDING = BigDecimal::ROUND_HALF_UP")),
						reply("", 20000, edit("toolu_rb_edit_spec", p(spec), "    expect(card.balance).to eq(BigDecimal(\"0\"))\n  end\n", `    expect(card.balance).to eq(BigDecimal("0"))
  end

  it "rounds a half cent up, as SAP does" do
    card = Card.new(BigDecimal("0.25"))
    shares = described_class.new(card, items("1.00", "1.00")).apply

    expect(shares).to eq([BigDecimal("0.13"), BigDecimal("0.12")])
  end
`)),
						reply("", 20500, bash("toolu_rb_rspec_3", "bundle exec rspec "+spec, "Run the gift card spec")),
						reply("No trouble at all. The applier now rounds with ROUND_HALF_UP, so it matches SAP, and I added an example for a half cent (0.125 becomes 0.13). The gift card spec passes: 7 examples, 0 failures.", 21000),
					}},
				{Prompt: "Marvellous, thank you ever so much. Would you mind committing this much, please? After that I think I'd like to compact our conversation before we carry on.",
					Replies: []fakeapi.Reply{
						reply("", 21500, bash("toolu_rb_commit", "git add "+applier+" "+spec+" && git commit -qm 'Checkout: spread gift card payments with BigDecimal, leftover cent on the priciest line (SHOP-3318)'", "Commit the fix")),
						reply("Committed.", 22000),
					}},
			}
			after = []turn{
				{Prompt: "Thank you! Shall we carry on, please?", Replies: []fakeapi.Reply{reply("Carrying on.", 5000)}},
				{Prompt: "Lovely.", Replies: []fakeapi.Reply{reply("Working on it.", 5200)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "SHOP-3318"),
			rx("constraint: no new gems", `(?i)(\bno\b|\bnot\b|never|don'?t|do not|cannot|can'?t|without|avoid)[^\n]{0,40}\bgems?\b|\bgems?\b[^\n]{0,40}(not allowed|forbidden|frozen|banned|security review)|Gemfile[^\n]{0,60}(\bno\b|\bnot\b|frozen|unchanged|untouched)`),
			rx("finding: three shares of 8.33 sum to 24.99", `24\.99`),
			rx("decision: BigDecimal rather than Float", `BigDecimal`),
			// The user agreed to banker's rounding, then reversed it: the
			// restore must give half up, and must not present round half
			// to even as what is in force.
			rx("late decision: round half up, reversed from banker's rounding", `(?i)half[_ -]?up`).
				notRx(`(?im)^[\s>*#-]*(\*\*)?(decision|decided|chosen|choice|agreed|rounding)?[^\n]{0,12}:?\s*(use|using|keep|go with|going with|chose|choose|adopt|switch(ed)? to)\s[^\n]{0,25}(banker|half[_ -]?even)`,
					`(?i)\bcurrent(ly)?\b[^\n]{0,15}(banker|half[_ -]?even)`),
			rx("decision's reason: SAP rounds half up", `(?i)\b(SAP|ERP)\b`),
			rx("decision (the user's answer): the leftover cent to the most expensive line", `(?i)(most expensive|priciest|highest[- ]priced|dearest)`),
			lit("file changed: the applier", applier),
			lit("file changed: the new spec", spec),
			lit("key file read: lib/money_math.rb, left alone", "lib/money_math.rb"),
			pipedFailed("piped command: the whole suite had 1 failure, in receipt_formatter_spec", `bundle exec rspec 2>&1`,
				`(?i)receipt[_ ]?formatter[^\n]{0,200}(fail|1 failure)|(fail|1 failure)[^\n]{0,200}receipt[_ ]?formatter`),
			rx("open thread: the receipt formatter is left to Tomasz's team", `(?i)Tomasz|(other|another|owning|their) team`),
			rx("open thread: a CHANGELOG line under Unreleased", `(?i)changelog`),
			lit("open thread: the support note", "docs/support/gift-cards.md"),
		},
	}
}

// heldOutMakeTwoFailures is a C library fixed by a terse senior engineer:
// a piped `make check` whose ASan failure is fixed, after which the same
// command shows a different failing test (the first must not be reported
// as still failing); a valgrind run with a long log; the plan said three
// turns before an automatic compaction.
func heldOutMakeTwoFailures() scenario {
	var vg strings.Builder
	vg.WriteString("#!/bin/sh\n# stand-in for valgrind: prints what this test runner gets\n" +
		"echo '==31337== Memcheck, a memory error detector'\n" +
		"echo '==31337== Command: ./build/test_runner'\n" +
		"echo '==31337== '\n" +
		"i=1\nwhile [ $i -le 45 ]; do\n" +
		"  printf 'PASS: case_%02d\\n' $i\n" +
		"  printf '==31337== Conditional jump or move depends on uninitialised value(s)\\n'\n" +
		"  printf '==31337==    at 0x10A4%02X: csum_fold (src/csum.c:33)\\n' $i\n" +
		"  printf '==31337==    by 0x109E%02X: csum_frame (src/csum.c:51)\\n' $i\n" +
		"  printf '==31337==    by 0x1093%02X: run_case (tests/runner.c:%d)\\n' $i $((40 + i))\n" +
		"  printf '==31337==    by 0x109120: main (tests/runner.c:112)\\n'\n" +
		"  printf '==31337==  Uninitialised value was created by a heap allocation\\n'\n" +
		"  printf '==31337==    at 0x4848899: malloc (vg_replace_malloc.c:381)\\n'\n" +
		"  printf '==31337==    by 0x10B2%02X: ring_init (src/ring.c:57)\\n' $i\n" +
		"  printf '==31337== \\n'\n" +
		"  i=$((i + 1))\ndone\n" +
		"cat <<'EOF'\n" +
		"==31337== HEAP SUMMARY:\n" +
		"==31337==     in use at exit: 4,096 bytes in 1 blocks\n" +
		"==31337==   total heap usage: 212 allocs, 211 frees, 1,118,480 bytes allocated\n" +
		"==31337== \n" +
		"==31337== 4,096 bytes in 1 blocks are definitely lost in loss record 1 of 1\n" +
		"==31337==    at 0x4848899: malloc (vg_replace_malloc.c:381)\n" +
		"==31337==    by 0x10B2A4: ring_init (src/ring.c:57)\n" +
		"==31337==    by 0x1093F1: main (tests/runner.c:98)\n" +
		"==31337== \n" +
		"==31337== LEAK SUMMARY:\n" +
		"==31337==    definitely lost: 4,096 bytes in 1 blocks\n" +
		"==31337==    indirectly lost: 0 bytes in 0 blocks\n" +
		"==31337==      possibly lost: 0 bytes in 0 blocks\n" +
		"==31337==    still reachable: 0 bytes in 0 blocks\n" +
		"==31337==         suppressed: 0 bytes in 0 blocks\n" +
		"==31337== \n" +
		"==31337== For lists of detected and suppressed errors, rerun with: -s\n" +
		"==31337== ERROR SUMMARY: 46 errors from 46 contexts (suppressed: 0 from 0)\n" +
		"EOF\n")
	return scenario{
		Name:  "heldout-make-two-failures",
		Shape: "held-out; C/make, auto; terse user, a failure fixed then a different one, long valgrind log",
		Files: map[string]string{
			"Makefile":           "CC ?= cc\nCFLAGS ?= -std=c99 -Wall -Wextra -Werror -O2 -Iinclude\n\nSRC := $(wildcard src/*.c)\nTESTS := $(wildcard tests/*.c)\n\nbuild/test_runner: $(SRC) $(TESTS)\n\t@mkdir -p build\n\t$(CC) $(CFLAGS) -fsanitize=address -o $@ $^\n\ncheck: build/test_runner\n\t./build/test_runner\n\nbench:\n\t./build/bench_frames\n\n.PHONY: check bench\n",
			"include/pkt.h":      "#ifndef PKT_H\n#define PKT_H\n/* Public ABI of libpktparse 2.x: do not change struct layouts before 3.0. */\n#include <stddef.h>\n#include <stdint.h>\n\n#define MAX_FRAME 1518\n\nstruct pkt_hdr {\n\tuint16_t len;\n\tuint8_t payload[MAX_FRAME];\n};\n\nint parse_frame(const uint8_t *buf, size_t n, struct pkt_hdr *out);\nuint16_t csum_fold(const uint8_t *p, size_t n);\n\n#endif\n",
			"src/parse.c":        "#include <string.h>\n#include <errno.h>\n#include \"pkt.h\"\n\n/* parse_frame strips the 14-byte Ethernet header into out. */\nint parse_frame(const uint8_t *buf, size_t n, struct pkt_hdr *out)\n{\n\tif (n < 14)\n\t\treturn -EINVAL;\n\tout->len = (uint16_t)(n - 14);\n\tmemcpy(out->payload, buf + 14, out->len);\n\treturn 0;\n}\n",
			"src/csum.c":         "#include \"pkt.h\"\n\n/* csum_fold is the RFC 1071 Internet checksum of p[0..n). */\nuint16_t csum_fold(const uint8_t *p, size_t n)\n{\n\tuint32_t sum = 0;\n\n\tfor (size_t i = 0; i + 1 < n; i += 2)\n\t\tsum += (uint16_t)(p[i] << 8 | p[i + 1]);\n\tif (n & 1)\n\t\tsum += p[n - 1];\t/* trailing byte */\n\twhile (sum >> 16)\n\t\tsum = (sum & 0xffff) + (sum >> 16);\n\treturn (uint16_t)~sum;\n}\n",
			"src/ring.c":         "#include <stdlib.h>\n#include \"pkt.h\"\n\nstruct ring { uint8_t *slots; size_t cap; };\n\nint ring_init(struct ring *r, size_t cap)\n{\n\tr->slots = malloc(cap);\n\tr->cap = cap;\n\treturn r->slots ? 0 : -1;\n}\n\nvoid ring_free(struct ring *r) { free(r->slots); }\n",
			"tests/test_parse.c": "#include \"pkt.h\"\n/* test_parse_min, test_parse_short, ..., test_parse_jumbo (line 88) */\n",
			"tests/test_csum.c":  "#include \"pkt.h\"\n/* test_csum_even_len, test_csum_odd_len (line 41), ... */\n",
		},
		Bins: map[string]string{
			"make": `#!/bin/sh
# stand-in for make: prints what this library's targets print
case "$1" in
check)
  echo 'cc -std=c99 -Wall -Wextra -Werror -O2 -Iinclude -fsanitize=address -o build/test_runner src/csum.c src/parse.c src/ring.c tests/test_csum.c tests/test_parse.c'
  echo './build/test_runner'
  i=1
  while [ $i -le 16 ]; do printf 'PASS: case_%02d\n' $i; i=$((i + 1)); done
  if ! grep -q EMSGSIZE src/parse.c; then
    cat <<'EOF'
=================================================================
==9121==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x6210000024f0 at pc 0x7f3c1a2b bp 0x7ffd sp 0x7ffd
WRITE of size 8986 at 0x6210000024f0 thread T0
    #0 0x7f3c1a2b in __interceptor_memcpy
    #1 0x55d1c0de in parse_frame src/parse.c:11
    #2 0x55d1c1f0 in test_parse_jumbo tests/test_parse.c:88
    #3 0x55d1c2aa in main tests/runner.c:112
SUMMARY: AddressSanitizer: heap-buffer-overflow src/parse.c:11 in parse_frame
FAIL: test_parse_jumbo (tests/test_parse.c:88)
ABORTED after 17 of 31 tests
make: *** [Makefile:12: check] Error 1
EOF
    exit 2
  fi
  if ! grep -q 'p\[n - 1\] << 8' src/csum.c; then
    cat <<'EOF'
PASS: test_parse_jumbo (tests/test_parse.c:88)
FAIL: test_csum_odd_len (tests/test_csum.c:41): expected 0x1c46, got 0x461c
30 of 31 passed, 1 failed
make: *** [Makefile:12: check] Error 1
EOF
    exit 2
  fi
  echo '31 of 31 passed'
  exit 0 ;;
bench)
  echo './build/bench_frames'
  echo 'parse_frame+csum: 131.4 ns/frame (1,000,000 frames, 1514 B)'
  exit 0 ;;
esac
echo "make: *** No rule to make target '$1'.  Stop." >&2
exit 2
`,
			"valgrind": vg.String(),
		},
		AllowedTools:   []string{"Bash(make:*)", "Bash(tail:*)", "Bash(valgrind:*)", "Bash(git add:*)", "Bash(git commit:*)"},
		PermissionMode: "acceptEdits",
		Trigger:        "auto",
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			before = []turn{
				{Prompt: "NET-412. pktparse overruns on 9000B jumbo frames, asan trips in parse_frame. c99, no VLAs. include/pkt.h is ABI, frozen till 3.0 — don't touch", Replies: []fakeapi.Reply{
					reply("", 11000, read("toolu_c_read_parse", p("src/parse.c"))),
					reply("", 11500, read("toolu_c_read_pkt", p("include/pkt.h"))),
					reply("", 12000, bash("toolu_c_check_1", "make check 2>&1 | tail -25", "Build and run the tests")),
					reply("Reproduced. `parse_frame` copies `n - 14` bytes into `payload[MAX_FRAME]` (1518) with no bound check, so a 9000-byte frame writes 8986 bytes: ASan heap-buffer-overflow at src/parse.c:11, from test_parse_jumbo. "+
						"The runner aborts there (17 of 31 run). Truncate to MAX_FRAME, or reject the frame?", 12500),
				}},
				{Prompt: "reject. -EMSGSIZE. truncating silently breaks the csum downstream. and no malloc in the rx path", Replies: []fakeapi.Reply{
					reply("", 13500, edit("toolu_c_edit_parse", p("src/parse.c"), "\tout->len = (uint16_t)(n - 14);", "\tif (n - 14 > MAX_FRAME)\n\t\treturn -EMSGSIZE;\n\tout->len = (uint16_t)(n - 14);")),
					reply("", 14000, bash("toolu_c_check_2", "make check 2>&1 | tail -25", "Run the tests again")),
					reply("Jumbo frames now get -EMSGSIZE, no allocation, and test_parse_jumbo passes. "+
						"The run now gets further and shows a different failure: test_csum_odd_len (tests/test_csum.c:41), expected 0x1c46, got 0x461c. "+
						"It was never reached before because the runner aborted at test 17; it is not caused by the parse change.", 14500),
				}},
				{Prompt: "k. valgrind it before csum", Replies: []fakeapi.Reply{
					reply("", 15500, bash("toolu_c_valgrind", "valgrind --leak-check=full --track-origins=yes ./build/test_runner", "Run the tests under valgrind")),
					reply("valgrind: 46 errors. 4,096 bytes definitely lost in 1 block, allocated in ring_init (src/ring.c:57) and never freed: tests/runner.c never calls ring_free. "+
						"The other 45 are 'conditional jump depends on uninitialised value' in csum_fold (src/csum.c:33), all from the same ring slots, so probably the csum bug again.", 26000),
				}},
				{Prompt: "leak = harness only? then skip it. plan: csum fix, then make bench — budget is 120ns/frame. PR goes against release/2.7, NOT main", Replies: []fakeapi.Reply{
					reply("Yes, harness only; skipping the leak. Order: 1) csum_fold odd-length fix, 2) `make bench` against the 120 ns/frame budget, 3) PR against release/2.7.", 26500),
				}},
				{Prompt: "what's csum_fold doing w/ odd len", Replies: []fakeapi.Reply{
					reply("", 27000, read("toolu_c_read_csum", p("src/csum.c"))),
					reply("src/csum.c:33 adds the trailing byte as the low byte: `sum += p[n - 1];`. RFC 1071 pads an odd length with a zero byte after it, so the last byte is the high byte of its word: it should be `p[n - 1] << 8`. "+
						"That is exactly the 0x1c46 / 0x461c swap. One-line fix, not done yet.", 27500),
				}},
				{Prompt: "commit the parse fix first. msg w/ ticket", Replies: []fakeapi.Reply{
					reply("", 28000, bash("toolu_c_commit", "git add src/parse.c && git commit -qm 'parse: reject frames over MAX_FRAME with -EMSGSIZE (NET-412)'", "Commit the parse fix")),
					full("Committed."),
				}},
			}
			after = []turn{
				{Prompt: "go", Replies: []fakeapi.Reply{reply("On it.", 6000)}},
				{Prompt: "?", Replies: []fakeapi.Reply{reply("Working.", 6200)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "NET-412"),
			rx("constraint: c99, no VLAs", `(?i)\bVLAs?\b|variable[- ]length arrays?`),
			rx("constraint: include/pkt.h is frozen ABI", `(?i)pkt\.h[^\n]{0,100}(ABI|frozen|don'?t touch|do not (touch|change|modify)|untouched|unchanged|read-only)|(ABI|frozen|don'?t touch|do not (touch|change|modify))[^\n]{0,100}pkt\.h`),
			rx("constraint: no malloc in the rx path", `(?i)(\bno\b|\bnot\b|avoid|without|never|don'?t)[^\n]{0,30}\bmalloc|malloc[^\n]{0,40}(forbidden|not allowed|banned|rx path|hot path)`),
			rx("decision (the user's answer): reject with -EMSGSIZE", `EMSGSIZE`),
			rx("decision's reason: truncating breaks the checksum", `(?i)truncat[^\n]{0,150}(csum|checksum)|(csum|checksum)[^\n]{0,150}truncat`),
			// Fixed: a restore may say so or say nothing of it, but must not
			// report test_parse_jumbo as still failing.
			rx("failure fixed: the jumbo overflow", `(?i)jumbo`).
				notRx(`(?i)test_parse_jumbo[^\n,;.]{0,30}(still (fails|failing|broken|red)|unresolved|not (yet )?fixed)`,
					`(?i)(still (fails|failing|broken|red)|unresolved|not (yet )?fixed)[^\n,;.]{0,30}test_parse_jumbo`),
			pipedFailed("piped command: the second make check failed test_csum_odd_len", `make check`, `test_csum_odd_len`),
			rx("finding: valgrind, 4,096 bytes lost in ring_init (harness only, skipped)", `4,?096`),
			rx("key file read: src/csum.c, the odd byte belongs in the high byte", `src/csum\.c`, `(?i)p\[n ?- ?1\] ?<< ?8|high(-order)? byte|(odd|trailing|last) byte[^\n]{0,80}(shift|<< ?8|high)`),
			rx("open thread: make bench against 120 ns/frame", `120 ?ns`),
			lit("open thread: PR against release/2.7", "release/2.7"),
			lit("file changed: src/parse.c", "src/parse.c"),
		},
	}
}

// heldOutDenoMonorepo is a time-zone bug across a Deno workspace of three
// packages, for a user writing in non-native English, with an agent that
// reports in tables and an Explore subagent that maps the packages; two
// automatic compactions, with a TodoWrite list and a lint failure the
// user says to ignore between them.
func heldOutDenoMonorepo() scenario {
	const (
		first    = "Hello! I need help with ticket BK-2207."
		explore  = "Map where booking days are computed"
		date     = "packages/shared/src/date.ts"
		bookings = "packages/api/src/routes/bookings.ts"
	)
	return scenario{
		Name:  "heldout-deno-monorepo",
		Shape: "held-out; Deno workspace of 3 packages, auto twice; non-native user, tables, Explore subagent, TodoWrite",
		Files: map[string]string{
			"deno.json":                                   "{\n  \"workspace\": [\"./packages/shared\", \"./packages/api\", \"./packages/web\"],\n  \"lint\": { \"rules\": { \"tags\": [\"recommended\"] } }\n}\n",
			"packages/shared/deno.json":                   "{ \"name\": \"@bk/shared\", \"version\": \"1.4.0\", \"exports\": \"./mod.ts\" }\n",
			"packages/shared/mod.ts":                      "export * from \"./src/date.ts\";\n",
			"packages/shared/CHANGELOG.md":                "# @bk/shared\n\n## 1.4.0\n- formatPrice()\n",
			date:                                          "/** The day of a booking as YYYY-MM-DD, for the calendar and the API. */\nexport function toDayString(d: Date): string {\n  return d.toISOString().slice(0, 10);\n}\n",
			"packages/shared/src/date_test.ts":            "import { assertEquals } from \"jsr:@std/assert\";\nimport { toDayString } from \"./date.ts\";\n\nDeno.test(\"toDayString keeps the local day\", () => {\n  assertEquals(toDayString(new Date(\"2025-03-09T01:30:00Z\"), \"America/Sao_Paulo\"), \"2025-03-08\");\n});\n",
			"packages/api/deno.json":                      "{ \"name\": \"@bk/api\", \"version\": \"0.9.0\", \"exports\": \"./main.ts\" }\n",
			bookings:                                      "import { toDayString } from \"@bk/shared\";\nimport type { Context } from \"../http.ts\";\n\nexport async function listBookings(ctx: Context) {\n  const tz = ctx.req.headers.get(\"x-timezone\") ?? \"UTC\";\n  const rows = await ctx.db.bookings.forUser(ctx.user.id);\n  return rows.map((b) => ({ ...b, day: toDayString(b.startsAt) }));\n}\n",
			"packages/api/src/jobs/reminders.ts":          "/** When tomorrow's reminders go out. */\nexport function tomorrow(now: Date): Date {\n  return new Date(now.getTime() + 86_400_000);\n}\n",
			"packages/api/tests/bookings_test.ts":         "import { assertEquals } from \"jsr:@std/assert\";\n\nDeno.test(\"GET /bookings returns the booking's local day\", async () => {\n  // a user in America/Sao_Paulo, a booking at 2025-03-09 22:30 local\n});\n",
			"packages/web/deno.json":                      "{ \"name\": \"@bk/web\", \"version\": \"0.9.0\" }\n",
			"packages/web/src/components/BookingCard.tsx": "import type { Booking } from \"../types.ts\";\n\nexport function BookingCard({ booking }: { booking: Booking }) {\n  return <div class=\"card\">{booking.day}</div>;\n}\n\n// deno-lint-ignore-file\nexport const legacyProps: any = {};\n",
		},
		Bins: map[string]string{"deno": `#!/bin/sh
# stand-in for deno: prints what this workspace prints
case "$1" in
test)
  case "$2" in
  packages/shared*)
    echo 'running 9 tests from ./packages/shared/src/date_test.ts'
    if grep -q DateTimeFormat packages/shared/src/date.ts; then
      echo "toDayString keeps the local day ... ok (2ms)"
      echo
      echo 'ok | 9 passed | 0 failed (41ms)'
      exit 0
    fi
    echo "toDayString keeps the local day ... FAILED (3ms)"
    echo
    echo 'FAILED | 8 passed | 1 failed (44ms)'
    exit 1 ;;
  packages/api*)
    echo 'running 12 tests from ./packages/api/tests/bookings_test.ts'
    if grep -q 'user.tz' packages/api/src/routes/bookings.ts; then
      echo "GET /bookings returns the booking's local day ... ok (9ms)"
      echo
      echo 'ok | 12 passed | 0 failed (198ms)'
      exit 0
    fi
    cat <<'EOF'
GET /bookings returns the booking's local day ... FAILED (8ms)

 ERRORS 

GET /bookings returns the booking's local day => ./packages/api/tests/bookings_test.ts:3:6
error: AssertionError: Values are not equal.

    [Diff] Actual / Expected

-   "2025-03-10"
+   "2025-03-09"

 FAILURES 

GET /bookings returns the booking's local day => ./packages/api/tests/bookings_test.ts:3:6

FAILED | 11 passed | 1 failed (212ms)

error: Test failed
EOF
    exit 1 ;;
  esac ;;
lint)
  cat >&2 <<'EOF'
error[no-explicit-any]: ` + "`any`" + ` type is not allowed
 --> packages/web/src/components/BookingCard.tsx:8:27
  |
8 | export const legacyProps: any = {};
  |                           ^^^
  = hint: Use a specific type other than ` + "`any`" + `

Found 1 problem
Checked 48 files
EOF
  exit 1 ;;
esac
echo "deno: unknown subcommand $1" >&2
exit 1
`},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "CLAUDE_CODE_ENABLE_TASKS=0"},
		AllowedTools:   []string{"Bash(deno:*)", "Bash(tail:*)", "Bash(grep:*)"},
		PermissionMode: "acceptEdits",
		Compactions:    []string{"auto", "auto"},
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			main := func(r fakeapi.Reply) fakeapi.Reply { r.For = first; return r }
			sub := func(r fakeapi.Reply) fakeapi.Reply { r.For = explore; return r }
			before = []turn{
				{Prompt: first + " Users in Brazil (America/Sao_Paulo) see their bookings one day after the real day in the calendar. Last month 1,284 bookings was showing the wrong day, support is very angry :( " +
					"I think the problem is in the shared date util but I am not sure. Please don't use moment or luxon, we are removing this dependencies — only Temporal or the Intl API is ok.",
					Replies: []fakeapi.Reply{
						main(reply("I'll have a subagent map where the booking day is computed in the three packages first.", 13000,
							agentCall("toolu_deno_explore", "Explore", "Map booking day handling", explore+" in packages/shared, packages/api and packages/web: every place that formats, parses or shifts a booking's date. Answer with a table: package, file, what it does, problem."))),
						sub(reply("", 3000, read("toolu_deno_sub_read_date", p(date)), read("toolu_deno_sub_read_bookings", p(bookings)))),
						sub(reply("", 3500, bash("toolu_deno_sub_grep", "grep -rn 'toDayString\\|toISOString\\|86_400_000' packages/", "Find date handling"))),
						sub(reply("| package | file | what it does | problem |\n|---|---|---|---|\n"+
							"| shared | packages/shared/src/date.ts | `toDayString()` returns `toISOString().slice(0, 10)` | that is the UTC day, not the user's day |\n"+
							"| api | packages/api/src/routes/bookings.ts | reads the `x-timezone` header but never uses it; calls `toDayString(b.startsAt)` | UTC day for every user |\n"+
							"| web | packages/web/src/components/BookingCard.tsx | shows `booking.day` from the API | inherits the bug |\n"+
							"| api | packages/api/src/jobs/reminders.ts | `tomorrow()` adds 86_400_000 ms | wrong on daylight-saving change days (23 h and 25 h days) |", 4000)),
						main(reply("What the subagent found:\n\n| # | where | verdict |\n|---|---|---|\n"+
							"| 1 | `packages/shared/src/date.ts` | root cause: `toISOString()` gives the UTC day |\n"+
							"| 2 | `packages/api/src/routes/bookings.ts` | must pass the user's time zone |\n"+
							"| 3 | `packages/web/src/components/BookingCard.tsx` | no change needed |\n"+
							"| 4 | `packages/api/src/jobs/reminders.ts` | a separate bug (DST), not BK-2207 |\n\n"+
							"Plan: `toDayString(d, timeZone)` with `Intl.DateTimeFormat(\"en-CA\", { timeZone })`, which formats as YYYY-MM-DD. "+
							"I prefer Intl over Temporal here: Deno 2 still needs `--unstable-temporal`, and packages/web runs in Safari, which does not ship Temporal yet.", 14500,
							edit("toolu_deno_edit_date", p(date), "export function toDayString(d: Date): string {\n  return d.toISOString().slice(0, 10);\n}",
								"export function toDayString(d: Date, timeZone = \"UTC\"): string {\n  return new Intl.DateTimeFormat(\"en-CA\", { timeZone }).format(d);\n}"))),
						main(reply("", 15000, bash("toolu_deno_test_shared", "deno test packages/shared", "Test the shared package"))),
						main(reply("", 15500, bash("toolu_deno_test_api_1", "deno test packages/api 2>&1 | tail -20", "Test the api package"))),
						main(reply("| command | result |\n|---|---|\n"+
							"| `deno test packages/shared` | ok, 9 passed |\n"+
							"| `deno test packages/api 2>&1 \\| tail -20` | FAILED: 11 passed, 1 failed (`GET /bookings returns the booking's local day`: got 2025-03-10, want 2025-03-09) |\n\n"+
							"The api still calls `toDayString(b.startsAt)` without a zone. Question: where should the zone come from, the `x-timezone` header the route already reads, or the user's profile?", 16000)),
					}},
				{Prompt: "From the user profile please, the column `tz` in table users. The header we can not trust, the mobile app sends always UTC.",
					Replies: []fakeapi.Reply{main(full("Ok: the zone comes from `users.tz`; the header is not used. I change `bookings.ts` next."))}},
				// The first compaction: this turn's request.
				{Prompt: "ok continue please", Replies: []fakeapi.Reply{
					reply("", 5000, edit("toolu_deno_edit_bookings", p(bookings),
						"  const tz = ctx.req.headers.get(\"x-timezone\") ?? \"UTC\";\n  const rows = await ctx.db.bookings.forUser(ctx.user.id);\n  return rows.map((b) => ({ ...b, day: toDayString(b.startsAt) }));",
						"  const rows = await ctx.db.bookings.forUser(ctx.user.id);\n  return rows.map((b) => ({ ...b, day: toDayString(b.startsAt, ctx.user.tz) }));")),
					reply("", 5500, bash("toolu_deno_test_api_2", "deno test packages/api", "Test the api package again")),
					reply("", 6000, bash("toolu_deno_lint", "deno lint", "Lint the workspace")),
					reply("| command | result |\n|---|---|\n"+
						"| `deno test packages/api` | ok, 12 passed |\n"+
						"| `deno lint` | 1 problem: `no-explicit-any` in `packages/web/src/components/BookingCard.tsx:8` (`legacyProps: any`) |\n\n"+
						"The api now takes the zone from `ctx.user.tz`. The lint problem is in a line this ticket did not touch.", 6500),
				}},
				{Prompt: "The lint error in web is old, is not from this ticket, ignore it please. But the reminders DST problem is important for us, please put it in the todo list, and also the changelog of the shared package.",
					Replies: []fakeapi.Reply{
						reply("", 7000, todoWrite("toolu_deno_todos",
							[2]string{"BK-2207: day from users.tz in the api", "completed"},
							[2]string{"Fix tomorrow() in packages/api/src/jobs/reminders.ts on DST change days", "pending"},
							[2]string{"Add the toDayString(d, timeZone) change to packages/shared/CHANGELOG.md", "pending"})),
						reply("| todo | status |\n|---|---|\n| BK-2207 api fix | done |\n| `tomorrow()` in `reminders.ts` on DST days | pending |\n| entry in `packages/shared/CHANGELOG.md` | pending |\n\nThe old lint error in web stays as it is.", 7500),
					}},
				{Prompt: "Perfect. I go to lunch now, after we continue.", Replies: []fakeapi.Reply{full("Enjoy your lunch!")}},
			}
			after = []turn{
				// The second compaction: this turn's request.
				{Prompt: "I am back, we continue", Replies: []fakeapi.Reply{reply("Welcome back, continuing.", 5000)}},
				{Prompt: "ok", Replies: []fakeapi.Reply{reply("Working.", 5200)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "BK-2207"),
			rx("constraint: no moment or luxon", `(?i)\bluxon\b|moment\.js`),
			rx("finding: 1,284 bookings on the wrong day last month", `1,?284`),
			rx("subagent finding: toDayString gave the UTC day (toISOString)", `(?i)toISOString|UTC day|day in UTC|UTC date`),
			rx("subagent finding: tomorrow() in reminders.ts is wrong on DST days", `(?i)reminders\.ts|tomorrow\(\)`, `(?i)\bDST\b|daylight|86_?400_?000|2[35] ?h`),
			rx("decision: Intl.DateTimeFormat with the time zone", `(?i)DateTimeFormat`),
			rx("decision's reason: Safari has no Temporal, Deno needs a flag", `(?i)Safari|unstable-temporal`),
			lit("file changed: the shared date util", date),
			rx("constraint (the user's answer): the zone from users.tz, not the header", `(?i)users\.tz|\btz\b[^\n]{0,40}(users|profile)|(profile|users)[^\n]{0,40}\btz\b`),
			pipedFailed("piped command: deno test packages/api failed", `deno test packages/api`,
				`(?i)deno test packages/api[^\n]{0,200}fail|2025-03-10|local day[^\n]{0,80}fail|1 failed`).until(1),
			lit("file changed: the bookings route", bookings).from(2),
			rx("command outcome: deno test packages/api passes after the fix", `(?i)deno test packages/api[^\n]{0,160}(\bok\b|pass|exit 0|12 passed|succe)|12 passed`).from(2),
			rx("failing command: deno lint, old no-explicit-any in web, ignored", `(?i)no-explicit-any|deno lint[^\n]{0,200}(fail|error|problem)|lint[^\n]{0,80}(\bold\b|pre-?existing|ignore)`).from(2),
			rx("open todo: the shared package's CHANGELOG", `(?i)changelog`).from(2),
		},
	}
}

// The held-out secrets: none of them is in the other scenarios.
var (
	mailgunNew   = secret{"Mailgun API key (new)", "key-7d1e94b3a6c25f08e9b4d3c2a1f06e57"}
	mailgunOld   = secret{"Mailgun API key (old, in a file read)", "key-0a5c8e2f7b9d4136c8e1a2b5d7f90c34"}
	stagingDB    = secret{"database password pasted in a prompt", "Gr4nite-Otter-5531!"}
	laravelKey   = secret{"Laravel APP_KEY", "base64:dGhpc0lzQUJlbmNoS2V5Rm9yQ2Fpcm5IZWxkT3V0MQ=="}
	stagingS3ID  = secret{"AWS access key id printed by a command", "AKIAHELDOUT7BENCH42X"}
	stagingS3    = secret{"AWS secret access key printed by a command", "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"}
	slackWebhook = secret{"Slack webhook URL in the agent's text", "https://hooks.slack.com/services/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"}
	basicAuth    = secret{"<private> span", "Marigold-Sextant-2207"}
)

// heldOutPHPSecrets mixes two unrelated tasks in one session of a
// lowercase user and an agent that thinks aloud in long paragraphs: a
// PHPUnit upgrade that broke CI, and rotating staging credentials, with
// secrets pasted in a prompt, read from a file, printed by a command,
// repeated by the agent and in a <private> span; the remaining work said
// two turns before a manual /compact with instructions.
func heldOutPHPSecrets() scenario {
	const (
		mailerTest = "tests/Unit/InvoiceMailerTest.php"
		envFile    = ".env.staging"
	)
	return scenario{
		Name:  "heldout-php-secrets",
		Shape: "held-out; PHP/phpunit, manual with instructions; two unrelated tasks, long paragraphs, 8 secrets",
		Files: map[string]string{
			"composer.json": "{\n    \"name\": \"acme/ledger\",\n    \"require\": {\n        \"php\": \"^8.1\",\n        \"laravel/framework\": \"^10.48\"\n    },\n    \"require-dev\": {\n        \"phpunit/phpunit\": \"^12.0\"\n    }\n}\n",
			"phpunit.xml":   "<phpunit bootstrap=\"vendor/autoload.php\">\n  <testsuites>\n    <testsuite name=\"unit\"><directory>tests/Unit</directory></testsuite>\n  </testsuites>\n</phpunit>\n",
			mailerTest: `<?php

namespace Tests\Unit;

use PHPUnit\Framework\TestCase;

final class InvoiceMailerTest extends TestCase
{
    /**
     * @dataProvider pdfCases
     */
    public function testSendsPdfAttachment(string $locale, string $filename): void
    {
        $this->assertSame($filename, (new \App\Mail\InvoiceMailer($locale))->attachmentName());
    }

    public static function pdfCases(): array
    {
        return [['en', 'invoice.pdf'], ['de', 'rechnung.pdf']];
    }
}
`,
			envFile: "APP_ENV=staging\nAPP_KEY=" + laravelKey.Value + "\nDB_HOST=db.staging.internal\nDB_DATABASE=ledger\nDB_USERNAME=ledger\nDB_PASSWORD=old-staging-password\nMAIL_MAILER=mailgun\nMAILGUN_DOMAIN=mg.staging.acme.invalid\nMAILGUN_SECRET=" + mailgunOld.Value + "\nLOG_SLACK_WEBHOOK_URL=" + slackWebhook.Value + "\n",
			"vendor/bin/phpunit": `#!/bin/sh
# stand-in for PHPUnit: prints what this project's unit suite prints
if grep -q '"phpunit/phpunit": "^10.5"' composer.json; then
  cat <<'EOF'
PHPUnit 10.5.38 by Sebastian Bergmann and contributors.

Runtime:       PHP 8.3.9
Configuration: /app/phpunit.xml

...............................................................  63 / 214 ( 29%)
............................................................... 126 / 214 ( 58%)
............................................................... 189 / 214 ( 88%)
.........................                                       214 / 214 (100%)

Time: 00:02.311, Memory: 48.00 MB

OK (214 tests, 533 assertions)
EOF
  exit 0
fi
cat <<'EOF'
PHPUnit 12.0.2 by Sebastian Bergmann and contributors.

Runtime:       PHP 8.3.9
Configuration: /app/phpunit.xml

..........E.E.E................................................  63 / 214 ( 29%)
............................................................... 126 / 214 ( 58%)
............................................................... 189 / 214 ( 88%)
.........................                                       214 / 214 (100%)

Time: 00:02.402, Memory: 50.00 MB

There were 3 errors:

1) Tests\Unit\InvoiceMailerTest::testSendsPdfAttachment
ArgumentCountError: Too few arguments to function Tests\Unit\InvoiceMailerTest::testSendsPdfAttachment(), 0 passed and exactly 2 expected

/app/tests/Unit/InvoiceMailerTest.php:12

2) Tests\Unit\CreditNoteMailerTest::testSendsPdfAttachment
ArgumentCountError: Too few arguments to function Tests\Unit\CreditNoteMailerTest::testSendsPdfAttachment(), 0 passed and exactly 2 expected

3) Tests\Unit\ReminderMailerTest::testSubjectLine
ArgumentCountError: Too few arguments to function Tests\Unit\ReminderMailerTest::testSubjectLine(), 0 passed and exactly 1 expected

ERRORS!
Tests: 214, Assertions: 527, Errors: 3.
EOF
exit 2
`,
		},
		Bins: map[string]string{
			"composer": `#!/bin/sh
# stand-in for composer
cat <<'EOF'
Loading composer repositories with package information
Updating dependencies
Lock file operations: 0 installs, 3 updates, 0 removals
  - Downgrading phpunit/phpunit (12.0.2 => 10.5.38)
  - Downgrading sebastian/comparator (7.0.0 => 5.0.3)
  - Downgrading phpunit/php-code-coverage (12.0.1 => 10.1.16)
Writing lock file
Generating optimized autoload files
EOF
`,
			"php": `#!/bin/sh
# stand-in for php artisan on this app
if [ "$1" = artisan ] && [ "$2" = config:show ]; then
  cat <<'EOF'

  filesystems.disks.s3 ...............................................
  driver ................................................................. s3
  key .................................................... AKIAHELDOUT7BENCH42X
  secret ...................................... 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
  region ......................................................... eu-central-1
  bucket ...................................................... acme-ledger-prod
  url ...................................................................... null
  use_path_style_endpoint ................................................. false

EOF
  exit 0
fi
echo 'PHP 8.3.9 (cli) (built: Jul  2 2024 14:10:23) (NTS)'
`,
		},
		AllowedTools:   []string{"Bash(./vendor/bin/phpunit:*)", "Bash(composer:*)", "Bash(php:*)", "Bash(tail:*)", "Bash(git add:*)", "Bash(git commit:*)"},
		PermissionMode: "acceptEdits",
		Trigger:        "manual",
		CompactArgs:    "keep both tickets",
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			before = []turn{
				{Prompt: "LAR-904: ci's been red since dependabot bumped phpunit to ^12 (their PR #412). tests error out in InvoiceMailerTest and two others. we still run php 8.1 in prod so whatever you do has to work on 8.1", Replies: []fakeapi.Reply{
					reply("", 12000, read("toolu_php_read_composer", p("composer.json"))),
					reply("", 12500, read("toolu_php_read_test", p(mailerTest))),
					reply("", 13000, bash("toolu_php_phpunit_1", "./vendor/bin/phpunit --testsuite unit 2>&1 | tail -30", "Run the unit suite")),
					reply("Let me think this through out loud, because there are two separate things tangled together here. The three errors are all ArgumentCountError on tests that take parameters, and every one of them gets its data from a `@dataProvider` doc-comment; "+
						"PHPUnit 12 no longer reads metadata from doc-comments at all (it was deprecated in 11), so it simply calls the test method with no arguments, which is exactly the \"0 passed and exactly 2 expected\" we see. "+
						"That part is mechanical: the `#[DataProvider('pdfCases')]` attribute has existed since PHPUnit 10, so converting the three tests to attributes works on every version we could end up on. "+
						"The second thing is more important given what you said about production: PHPUnit 12 requires PHP 8.3, and composer.json declares `\"php\": \"^8.1\"`, so the 8.1 leg of the CI matrix can't even install it; I suspect that leg fails at `composer install` rather than in the tests. "+
						"The newest PHPUnit that still supports 8.1 is the 10.5 line. So my proposal is to pin `phpunit/phpunit` to `^10.5` in require-dev, and convert the doc-comment providers to attributes anyway, so that the day production reaches 8.3 the bump is a one-line change.", 14000),
				}},
				{Prompt: "yep pin 10.5, do the attributes too. oh and unrelated — OPS-3120: mailgun rotated our staging key, new one is " + mailgunNew.Value + ", and DB_PASSWORD for staging is now " + stagingDB.Value +
					" — pls update .env.staging. <private>basic auth on staging is deploy / " + basicAuth.Value + " if you need to curl it</private>",
					Replies: []fakeapi.Reply{
						reply("", 15000, read("toolu_php_read_env", p(envFile))),
						reply("", 15500, edit("toolu_php_edit_env_mail", p(envFile), "MAILGUN_SECRET="+mailgunOld.Value, "MAILGUN_SECRET="+mailgunNew.Value)),
						reply("", 16000, edit("toolu_php_edit_env_db", p(envFile), "DB_PASSWORD=old-staging-password", "DB_PASSWORD="+stagingDB.Value)),
						reply("Both staging values are updated in .env.staging. While I was in the file I noticed something you may want to know about: LOG_SLACK_WEBHOOK_URL is set to "+slackWebhook.Value+", which as far as I can tell is the same webhook production uses for #ops-alerts, "+
							"so any error logged on staging will land in the on-call channel. That may be deliberate, so I have left it; now back to the PHPUnit side.", 16500,
							edit("toolu_php_edit_composer", p("composer.json"), "\"phpunit/phpunit\": \"^12.0\"", "\"phpunit/phpunit\": \"^10.5\"")),
						reply("", 17000, bash("toolu_php_composer", "composer update phpunit/phpunit --with-all-dependencies 2>&1 | tail -8", "Downgrade PHPUnit")),
						reply("", 17500, edit("toolu_php_edit_test", p(mailerTest), "    /**\n     * @dataProvider pdfCases\n     */\n", "    #[\\PHPUnit\\Framework\\Attributes\\DataProvider('pdfCases')]\n")),
						reply("", 18000, bash("toolu_php_phpunit_2", "./vendor/bin/phpunit --testsuite unit 2>&1 | tail -30", "Run the unit suite again")),
						reply("The downgrade went through (12.0.2 to 10.5.38), and with the providers expressed as attributes the unit suite is green again: OK, 214 tests, 533 assertions. "+
							"I only converted InvoiceMailerTest so far; the other two tests that errored, CreditNoteMailerTest and ReminderMailerTest, pass on 10.5 because 10.5 still reads doc-comments, but they will break again on the next major, so I would convert them in the same PR rather than leave a trap behind.", 18500),
					}},
				{Prompt: "nice. the slack hook on staging is intentional, leave it. can you check the s3 config on staging points at the staging bucket", Replies: []fakeapi.Reply{
					reply("", 19000, bash("toolu_php_artisan", "php artisan config:show filesystems.disks.s3 --env=staging", "Show the staging S3 config")),
					reply("This one is a real problem, and I want to be careful about how I describe it: with --env=staging the s3 disk resolves to the bucket acme-ledger-prod, not a staging bucket, in eu-central-1. "+
						"Since the invoice PDFs are written through that disk, every invoice generated on staging has been going into the production bucket, alongside real customers' invoices. I have not changed anything; do you want me to point it at a staging bucket?", 19500),
				}},
				{Prompt: "ugh. don't touch it now, infra owns the bucket policy, i'll raise it with them as INFRA-77. remaining for today: open the PR for LAR-904 against develop, and php artisan queue:restart on staging — actually no, i'll restart the queue myself after 17:00, don't do it. and never commit .env.staging, it goes out through ansible-vault",
					Replies: []fakeapi.Reply{reply("Understood, so the picture for the rest of the day is: I open the LAR-904 pull request against develop; the queue restart on staging is yours, after 17:00, and I won't run it; .env.staging stays out of every commit because it ships through ansible-vault; "+
						"and the staging S3 bucket pointing at acme-ledger-prod is with infra as INFRA-77, so I leave the config alone.", 20000)}},
				{Prompt: "commit the phpunit stuff", Replies: []fakeapi.Reply{
					reply("", 20500, bash("toolu_php_commit", "git add composer.json "+mailerTest+" && git commit -qm 'Pin PHPUnit to ^10.5, data providers as attributes (LAR-904)'", "Commit the PHPUnit change")),
					reply("Committed composer.json and the test; .env.staging is not staged.", 21000),
				}},
				{Prompt: "which laravel are we on btw", Replies: []fakeapi.Reply{reply("Laravel 10.48, per composer.json.", 21500)}},
			}
			after = []turn{
				{Prompt: "right, where were we", Replies: []fakeapi.Reply{reply("Picking it up again.", 5000)}},
				{Prompt: "go", Replies: []fakeapi.Reply{reply("Working.", 5200)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "LAR-904"),
			lit("second ticket: OPS-3120", "OPS-3120"),
			rx("constraint: must work on PHP 8.1", `(?i)(prod|production|must|keep|stay|still|support|compat|work|run)[^\n]{0,60}\b8\.1\b|\b8\.1\b[^\n]{0,60}(prod|production|compat|support|work|run)`),
			rx("finding: PHPUnit 12 ignores @dataProvider doc-comments", `(?i)(doc-?comments?|docblocks?|annotations?)[^\n]{0,150}(\b12\b|ignored|no longer|not read|removed)|(\b12\b|ignores|no longer|removed)[^\n]{0,150}(doc-?comments?|docblocks?|annotations?)`),
			rx("decision: pin phpunit to ^10.5", `10\.5`),
			rx("decision: data providers as attributes", `(?i)#\[[^\]\n]*DataProvider|DataProvider[^\n]{0,30}attribute|attributes?[^\n]{0,60}(DataProvider|data provider|doc-?comment|annotation)|(doc-?comment|annotation|data provider)s?[^\n]{0,80}attribute`),
			rx("command outcome: the unit suite passes after the pin, 214 tests", `(?i)\b214 (unit )?tests|Tests: 214|\b214\b[^\n]{0,40}(pass|\bOK\b|green)|(\bOK\b|pass\w*|green)[^\n]{0,40}\b214\b`),
			lit("file changed: .env.staging", envFile),
			rx("constraint: never commit .env.staging (ansible-vault)", `(?i)ansible-vault|(never|\bnot\b|don'?t|do not|\bno\b)[^\n]{0,40}commit[^\n]{0,60}\.env\.staging|\.env\.staging[^\n]{0,80}(never|\bnot\b|don'?t|do not|\bno\b|out of)[^\n]{0,30}commit`),
			rx("decision (the user's answer): the staging Slack webhook is intentional", `(?i)slack[^\n]{0,150}(intentional|deliberate|leave|left|keep|on purpose|as is)|(intentional|deliberate|on purpose)[^\n]{0,150}slack`),
			lit("finding: staging S3 points at the production bucket", "acme-ledger-prod"),
			lit("open thread: the bucket is infra's, INFRA-77", "INFRA-77"),
			rx("open thread: the LAR-904 PR against develop", `(?i)(\bPR\b|pull request)[^\n]{0,80}\bdevelop\b|\bdevelop\b[^\n]{0,40}(\bPR\b|pull request|branch)`),
			rx("open thread: the queue restart is the user's, after 17:00", `(?i)queue:restart|restart[^\n]{0,30}queue`, `(?i)17:00|\b5 ?pm|after 17`),
		},
		Secrets: []secret{mailgunNew, mailgunOld, stagingDB, laravelKey, stagingS3ID, stagingS3, slackWebhook, basicAuth},
	}
}

// heldOutCabalThinking is a Haskell space leak for an exclamatory user,
// with an agent that thinks aloud in long paragraphs: measurements before
// and after, a rewrite considered and turned down with its reason, a
// failing test the user says is someone else's; a manual /compact, then
// a new feature with a question and its answer, work put on hold, and an
// automatic compaction.
func heldOutCabalThinking() scenario {
	const (
		aggregate = "src/LogCrunch/Aggregate.hs"
		mainHs    = "app/Main.hs"
	)
	return scenario{
		Name:  "heldout-cabal-thinking",
		Shape: "held-out; Haskell/cabal, manual then auto; long reasoning, measurements, work on hold",
		Files: map[string]string{
			"logcrunch.cabal": "cabal-version: 3.0\nname:          logcrunch\nversion:       0.6.2\ntested-with:   GHC ==9.4.8\n\nlibrary\n  exposed-modules: LogCrunch.Aggregate, LogCrunch.Report\n  hs-source-dirs:  src\n  build-depends:   base, containers, bytestring\n\nexecutable logcrunch\n  main-is:        Main.hs\n  hs-source-dirs: app\n  build-depends:  base, logcrunch, optparse-applicative\n",
			aggregate: `module LogCrunch.Aggregate (Stats (..), aggregate, percentile) where

import Data.List (foldl)
import qualified Data.Map as M
import LogCrunch.Entry (Entry (..), Path)

data Stats = Stats {hits :: Int, bytes :: Int, latencies :: [Double]}

one :: Entry -> Stats
one e = Stats 1 (size e) [latency e]

merge :: Stats -> Stats -> Stats
merge (Stats h b l) (Stats h' b' l') = Stats (h + h') (b + b') (l ++ l')

aggregate :: [Entry] -> M.Map Path Stats
aggregate = foldl step M.empty
  where
    step m e = M.insertWith merge (path e) (one e) m

percentile :: Double -> [Double] -> Double
percentile = undefined
`,
			mainHs:                    "module Main (main) where\n\nimport LogCrunch.Aggregate (aggregate)\nimport LogCrunch.Report (histogram)\nimport Options.Applicative\n\nmain :: IO ()\nmain = do\n  file <- execParser (info (strArgument (metavar \"FILE\")) fullDesc)\n  report <- histogram 20 . aggregate <$> readEntries file\n  putStr report\n",
			"src/LogCrunch/Report.hs": "module LogCrunch.Report (histogram) where\n\n-- | histogram n: latencies in n equal-width buckets.\nhistogram :: Int -> a -> String\nhistogram = undefined\n",
			"doc/logcrunch.1":         ".TH LOGCRUNCH 1\n.SH NAME\nlogcrunch \\- summarise nginx access logs\n",
		},
		Bins: map[string]string{"cabal": `#!/bin/sh
# stand-in for cabal: prints what this package prints
case "$1" in
run)
  case "$*" in
  *+RTS*)
    if grep -q 'Data.Map.Strict' src/LogCrunch/Aggregate.hs; then
      res='      38,912,304 bytes maximum residency (9 sample(s))'; gc='  GC      time    0.412s  (  0.419s elapsed)'; pct='  %GC     time       9.1%  (9.3% elapsed)'; mem='             104 MiB total memory in use (0 MB lost due to fragmentation)'
    else
      res='   1,214,377,920 bytes maximum residency (14 sample(s))'; gc='  GC      time   11.870s  ( 11.902s elapsed)'; pct='  %GC     time      71.3%  (71.4% elapsed)'; mem='            2460 MiB total memory in use (0 MB lost due to fragmentation)'
    fi
    cat <<EOF
/ 1,803,214 entries, 4,117 paths
  48,771,220,112 bytes allocated in the heap
$res
$mem
$gc
$pct
EOF
    exit 0 ;;
  *--buckets*)
    printf '    0.1 ms | #\n    0.3 ms | ####\n    1.0 ms | ##########\n    3.2 ms | ##############\n   10.0 ms | ######\n   31.6 ms | ##\n'
    exit 0 ;;
  esac ;;
test)
  cat <<'EOF'
Test suite logcrunch-test: RUNNING...
aggregate
  counts hits per path [✔]
  sums bytes per path [✔]
  percentiles
    p99 of 1..1000 [✘]

Failures:

  test/AggregateSpec.hs:41:7:
  1) aggregate.percentiles p99 of 1..1000
       expected: 990.0
        but got: 989.0

47 examples, 1 failure
Test suite logcrunch-test: FAIL
EOF
  exit 1 ;;
build)
  echo 'Building executable '"'"'logcrunch'"'"' for logcrunch-0.6.2...'
  echo '[1 of 1] Compiling Main             ( app/Main.hs, dist-newstyle/build/x86_64-linux/ghc-9.4.8/logcrunch-0.6.2/x/logcrunch/build/logcrunch/logcrunch-tmp/Main.o )'
  echo '[2 of 2] Linking dist-newstyle/build/x86_64-linux/ghc-9.4.8/logcrunch-0.6.2/x/logcrunch/build/logcrunch/logcrunch'
  exit 0 ;;
esac
echo "cabal: unknown command $1" >&2
exit 1
`},
		AllowedTools:   []string{"Bash(cabal:*)", "Bash(tail:*)", "Bash(head:*)"},
		PermissionMode: "acceptEdits",
		Compactions:    []string{"manual", "auto"},
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			before = []turn{
				{Prompt: "hiii 👋 so HX-58 is mine now!! logcrunch runs out of memory on the 2 GB nginx logs from prod 😭 we're stuck on GHC 9.4.8 btw (the inline-c plugin doesn't build on 9.6) so it has to keep compiling there. could you find the leak??", Replies: []fakeapi.Reply{
					reply("", 12000, read("toolu_hs_read_agg", p(aggregate))),
					reply("", 12500, bash("toolu_hs_rts_1", "cabal run logcrunch -- +RTS -s -RTS bench/sample-200mb.log 2>&1 | tail -8", "Measure memory on the 200 MB sample")),
					reply("So on the 200 MB sample the program reaches 1,214 MB of maximum residency and spends 71% of its time in the garbage collector, which is the classic picture of a thunk leak rather than of data that genuinely has to be kept. "+
						"Reading Aggregate.hs, I think there are three things compounding each other. `foldl` from Data.List is lazy in the accumulator, so nothing forces the map until the very end; `Data.Map` (the lazy one) stores `insertWith merge` results as unevaluated thunks, so every path's value becomes a chain of 'merge this with that' that is only collapsed when the report is printed; "+
						"and the Stats fields are lazy, so even a forced Stats keeps `h + h'` and `b + b'` as thunks. Each of the 1.8 million entries therefore stays reachable through a thunk chain.\n\n"+
						"I did consider going further and rewriting the reader as a conduit pipeline, which would also bound the memory on the input side. But that changes the type of `aggregate` from a function on a list to a ConduitT, and the dashboard imports LogCrunch.Aggregate directly, so it would break their build for a gain we may not need. "+
						"The smaller change is to switch to Data.Map.Strict, use foldl', and make the counters strict fields. That keeps the module's interface exactly as it is, and it compiles on 9.4.8 without any new extension.", 13500),
				}},
				{Prompt: "omg yes that makes sense!! go go go", Replies: []fakeapi.Reply{
					// One edit: a second Edit of this file right after the first
					// got "[Tool result missing due to internal error]" from
					// the client.
					reply("", 14500, edit("toolu_hs_edit_agg", p(aggregate),
						"import Data.List (foldl)\nimport qualified Data.Map as M\nimport LogCrunch.Entry (Entry (..), Path)\n\ndata Stats = Stats {hits :: Int, bytes :: Int, latencies :: [Double]}\n\none :: Entry -> Stats\none e = Stats 1 (size e) [latency e]\n\nmerge :: Stats -> Stats -> Stats\nmerge (Stats h b l) (Stats h' b' l') = Stats (h + h') (b + b') (l ++ l')\n\naggregate :: [Entry] -> M.Map Path Stats\naggregate = foldl step M.empty",
						"import Data.List (foldl')\nimport qualified Data.Map.Strict as M\nimport LogCrunch.Entry (Entry (..), Path)\n\ndata Stats = Stats {hits :: !Int, bytes :: !Int, latencies :: [Double]}\n\none :: Entry -> Stats\none e = Stats 1 (size e) [latency e]\n\nmerge :: Stats -> Stats -> Stats\nmerge (Stats h b l) (Stats h' b' l') = Stats (h + h') (b + b') (l ++ l')\n\naggregate :: [Entry] -> M.Map Path Stats\naggregate = foldl' step M.empty")),
					reply("", 15500, bash("toolu_hs_rts_2", "cabal run logcrunch -- +RTS -s -RTS bench/sample-200mb.log 2>&1 | tail -8", "Measure memory again")),
					reply("", 16000, bash("toolu_hs_test", "cabal test 2>&1 | tail -14", "Run the test suite")),
					reply("That did it, and by more than I expected: maximum residency went from 1,214 MB down to 38 MB on the same sample, and GC time from 71% to 9%. What remains resident is mostly the latency lists, which are genuinely needed for the percentiles, so I would stop here rather than chase the last megabytes.\n\n"+
						"The test suite is not entirely green, though. 47 examples, 1 failure: `aggregate.percentiles p99 of 1..1000` expects 990.0 and gets 989.0. "+
						"I don't believe that comes from this change; `percentile` itself is untouched, and an off-by-one of exactly one rank looks like the nearest-rank index being floored where it should be rounded up. Do you want me to look into it?", 16500),
				}},
				{Prompt: "nooo that one's been red since march 🙈 priya owns it, just ignore it pls", Replies: []fakeapi.Reply{
					reply("Ignoring it, then: the percentiles test stays red and is Priya's.", 17000),
				}},
				{Prompt: "ok lemme compact before the next bit", Replies: []fakeapi.Reply{reply("Sure, go ahead.", 17500)}},
				{Prompt: "/compact"},
				{Prompt: "ok next thing!! the histogram in the report is hardcoded to 20 buckets, can we make it a --buckets flag? keep 20 as the default", Replies: []fakeapi.Reply{
					reply("", 6000, read("toolu_hs_read_main", p(mainHs))),
					reply("Main.hs already uses optparse-applicative for the file argument, so a `--buckets` option costs nothing in dependencies: an `option auto` with `value 20` and `showDefault`, passed through to `histogram`. "+
						"Before I write it, though, there is a design choice hiding in here that I'd rather not make on my own. `histogram` splits the latency range into equal-width buckets today, and with request latencies that range from a tenth of a millisecond to several seconds, equal widths put nearly every request in the first bucket whatever the count is. "+
						"Should the buckets stay linear, or be log-scale?", 7000),
				}},
				{Prompt: "log scale!! latencies are super long-tailed, linear buckets put everything in the first one lol", Replies: []fakeapi.Reply{
					reply("", 8000, edit("toolu_hs_edit_main", p(mainHs), "  file <- execParser (info (strArgument (metavar \"FILE\")) fullDesc)\n  report <- histogram 20 . aggregate <$> readEntries file",
						"  (buckets, file) <- execParser (info opts fullDesc)\n  report <- histogram buckets . aggregate <$> readEntries file")),
					reply("", 8500, edit("toolu_hs_edit_report", p("src/LogCrunch/Report.hs"), "-- | histogram n: latencies in n equal-width buckets.", "-- | histogram n: latencies in n log-scale buckets (equal ratios, not widths).")),
					reply("", 9000, bash("toolu_hs_build", "cabal build 2>&1 | tail -3", "Build")),
					reply("", 9500, bash("toolu_hs_run_buckets", "cabal run -v0 logcrunch -- --buckets 6 bench/sample-200mb.log | head -8", "Try the flag")),
					reply("It builds, and `--buckets 6` on the sample gives six log-spaced buckets from 0.1 ms to 31.6 ms, each about 3.16 times the one before, which is what a long tail wants: the bulk of requests between 1 and 3 ms is finally visible instead of being crushed into one bar.", 10000),
				}},
				{Prompt: "yay!! what's left?", Replies: []fakeapi.Reply{
					reply("Thinking about what a release of this would still need: the man page, doc/logcrunch.1, doesn't mention `--buckets` yet, and since this adds a user-visible flag the version in logcrunch.cabal should go from 0.6.2 to 0.7.0, with a v0.7.0 tag after that. "+
						"And, not for us, the percentiles test is still red.", 10500),
				}},
				{Prompt: "hold off on the man page, Sam wants to word it himself. the bump can wait too, not today", Replies: []fakeapi.Reply{
					reply("Both on hold, then: the man page waits for Sam's wording, and the 0.7.0 bump is for another day.", 11000),
				}},
				{Prompt: "gonna grab a coffee ☕", Replies: []fakeapi.Reply{full("☕ Enjoy!")}},
			}
			after = []turn{
				// The second compaction (automatic): this turn's request.
				{Prompt: "back!!", Replies: []fakeapi.Reply{reply("Welcome back!", 5000)}},
				{Prompt: "what now", Replies: []fakeapi.Reply{reply("Looking.", 5200)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "HX-58"),
			rx("constraint: stay on GHC 9.4.8", `(?i)GHC[^\n]{0,20}9\.4|9\.4\.8`),
			rx("finding: 1,214 MB maximum residency before", `1,?214 ?MB|1,214,377,920`),
			rx("finding: 38 MB after", `\b38 ?MB|38,912,304`),
			rx("decision: Data.Map.Strict and foldl'", `(?i)Data\.Map\.Strict|foldl'|strict (map|fold|fields)`),
			rx("decision's reason: no conduit rewrite, the dashboard imports LogCrunch.Aggregate", `(?i)conduit`,
				`(?i)dashboard[^\n]{0,100}(LogCrunch|Aggregate|import|depend|break)|(LogCrunch|Aggregate|import|depend|break)[^\n]{0,100}dashboard`),
			rx("failing: the percentiles test, red since March, Priya's", `(?i)\bpercentiles\b|\bp99\b`, `(?i)\bPriya\b|since March|pre-?existing`),
			lit("file changed: src/LogCrunch/Aggregate.hs", aggregate),
			rx("decision (the user's answer): log-scale buckets", `(?i)log(arithmic)?[- ]?scale|logarithmic|log-spaced`).from(2),
			rx("decision: a --buckets flag, 20 by default", `--buckets`, `(?i)default[^\n]{0,30}\b20\b|\b20\b[^\n]{0,30}default|value 20`).from(2),
			lit("file changed: app/Main.hs", mainHs).from(2),
			rx("open thread: the man page waits for Sam", `(?i)doc/logcrunch\.1|man ?page`, `\bSam\b`).from(2),
			lit("open thread: the 0.7.0 bump, later", "0.7.0").from(2),
		},
	}
}
