package e2e

import (
	"path/filepath"
	"strings"

	"github.com/cairn-agent/cairn/e2e/fakeapi"
)

// The recall bench's sixth blind set: four held-out sessions written
// without reading cairn's extraction, checkpoint, render or redaction code
// nor any other scenario's facts, only the bench's types and helpers. The
// commit that adds them comes before their first run; nothing in cairn
// was tuned on them, and a check is corrected only where it could not
// have matched a faithful restore.
//
// Each is a stack no other scenario uses and a session of another kind:
//   - Laravel: a chatty user, a manual /compact with the user's own
//     instructions, then an automatic compaction; a secret in a command's
//     output.
//   - Vue/Vite: a terse user and a big session (many files, many
//     commands, a long build table) near the restore's budget; a secret in
//     a file read.
//   - Spring Boot: a user who answers questions one word at a time, gives
//     constraints in passing inside other requests and takes a decision
//     back; a subagent; a secret in a prompt and a command's argument.
//   - embedded C with CMake: a debugging session where three different
//     errors are fixed in turn and a fourth stays, a piped test run that
//     hides its failure, a compaction inside a turn.
//
// They run only in the report (TestRecallReport), marked "held-out,
// blind6" in its shape column.

// blind6Scenarios are the sixth blind set the recall report runs.
func blind6Scenarios() []scenario {
	return []scenario{
		blind6Laravel(),
		blind6ViteBudget(),
		blind6SpringAnswers(),
		blind6FirmwareDebug(),
	}
}

// blind6Ctx hands out rising context sizes for a script's replies.
type blind6Ctx struct{ n, step int }

func (c *blind6Ctx) next() int { c.n += c.step; return c.n }

// blind6Laravel: a double charge on a retried queue job (SUB-2207) for a
// chatty user, fixed with an idempotency key; a live Stripe key shown by
// `php artisan config:show`; a manual /compact with the user's own
// instructions; after it a webhook test left failing, then an automatic
// compaction.
func blind6Laravel() scenario {
	const stripeKey = "sk_live_51NbQx7Kc2RzT0yHv9LmP4sWq8eJd3fA6gU1oI5nB2cX7vZ0tR"
	const job = `<?php

namespace App\Jobs;

use App\Models\Subscription;
use Illuminate\Bus\Queueable;
use Illuminate\Contracts\Queue\ShouldQueue;
use Illuminate\Foundation\Bus\Dispatchable;
use Illuminate\Queue\InteractsWithQueue;
use Laravel\Cashier\Cashier;

class ChargeSubscription implements ShouldQueue
{
    use Dispatchable, InteractsWithQueue, Queueable;

    public $tries = 3;
    public $backoff = [10, 60];

    public function __construct(public Subscription $subscription) {}

    public function handle(): void
    {
        $intent = Cashier::stripe()->paymentIntents->create([
            'amount' => $this->subscription->amountDueCents(),
            'currency' => $this->subscription->currency,
            'customer' => $this->subscription->owner->stripe_id,
            'confirm' => true,
            'off_session' => true,
        ]);

        $this->subscription->charges()->create([
            'stripe_id' => $intent->id,
            'amount' => $intent->amount,
        ]);
    }
}
`
	const controller = `<?php

namespace App\Http\Controllers;

use Illuminate\Http\Request;
use Laravel\Cashier\Http\Controllers\WebhookController as CashierController;

class StripeWebhookController extends CashierController
{
    public function handleChargeSucceeded(array $payload)
    {
        $charge = $payload['data']['object'];

        \App\Models\Charge::create([
            'stripe_id' => $charge['id'],
            'amount' => $charge['amount'],
        ]);

        return $this->successMethod();
    }
}
`
	php := `#!/bin/sh
# stand-in for php artisan: prints what this project's commands print
case "$*" in
  "artisan queue:failed")
    cat <<'EOF'

  2026-11-24 03:12:44 9d1f0c2e-5a7b-4e61-9f3a-1c2b3d4e5f60 ........ redis@default App\Jobs\ChargeSubscription
  2026-11-24 03:12:41 4b8e2a91-77c3-4d0e-a1f2-0e9d8c7b6a51 ........ redis@default App\Jobs\ChargeSubscription
  2026-11-24 02:58:03 e2c4a6b8-1d3f-4a5b-8c7d-9e0f1a2b3c4d ........ redis@default App\Jobs\SendInvoiceEmail
  2026-11-23 22:40:19 71a3c5e7-9b1d-4f2a-b4c6-d8e0f2a4c6e8 ........ redis@default App\Jobs\ChargeSubscription
  2026-11-23 22:40:16 0f2e4d6c-8b0a-4c2e-9f1d-3b5a7c9e1d2f ........ redis@default App\Jobs\ChargeSubscription
  2026-11-23 19:05:52 a6c8e0f2-4b6d-4e8f-a0c2-e4f6a8c0e2a4 ........ redis@default App\Jobs\SyncSeatCount
  2026-11-23 11:27:30 3e5f7a9b-c1d3-4e5f-a7b9-c1d3e5f7a9b1 ........ redis@default App\Jobs\ChargeSubscription
  2026-11-23 11:27:27 c9d1e3f5-a7b9-4c1d-b3e5-f7a9b1c3d5e7 ........ redis@default App\Jobs\ChargeSubscription

EOF
    ;;
  "artisan test --filter=ChargeSubscriptionTest")
    if grep -q idempotency_key app/Jobs/ChargeSubscription.php; then
      cat <<'EOF'

   PASS  Tests\Feature\ChargeSubscriptionTest
  ✓ it charges an active subscription                                          0.29s
  ✓ it charges once when the job is retried after a stripe timeout            0.11s
  ✓ it skips cancelled subscriptions                                           0.04s

  Tests:    3 passed (9 assertions)
  Duration: 0.53s

EOF
      exit 0
    fi
    cat <<'EOF'

   FAIL  Tests\Feature\ChargeSubscriptionTest
  ✓ it charges an active subscription                                          0.31s
  ⨯ it charges once when the job is retried after a stripe timeout            0.12s
  ✓ it skips cancelled subscriptions                                           0.04s
  ───────────────────────────────────────────────────────────────────────────────────
   FAILED  Tests\Feature\ChargeSubscriptionTest > it charges once when the job is retried after a stripe timeout
  Failed asserting that actual size 2 matches expected size 1.

  at tests/Feature/ChargeSubscriptionTest.php:58
     54▕     (new ChargeSubscription($sub))->handle();
     55▕     Http::fake(['api.stripe.com/*' => Http::response([], 504)]);
     56▕     rescue(fn () => (new ChargeSubscription($sub))->handle());
     57▕
  ➜  58▕     expect($sub->fresh()->charges)->toHaveCount(1);
     59▕ });

  Tests:    1 failed, 2 passed (7 assertions)
  Duration: 0.58s

EOF
    exit 1
    ;;
  "artisan config:show services.stripe")
    cat <<'EOF'

  services.stripe ..................................................................................
  key ....................................................... pk_live_51NbQx7Kc2RzT0yHvPublishableOnly
  secret .......................................... sk_live_51NbQx7Kc2RzT0yHv9LmP4sWq8eJd3fA6gU1oI5nB2cX7vZ0tR
  webhook.tolerance ......................................................................... 300

EOF
    ;;
  "artisan test --filter=StripeWebhookTest")
    cat <<'EOF'

   FAIL  Tests\Feature\StripeWebhookTest
  ⨯ it ignores a charge.succeeded event it already recorded                   0.09s
  ⨯ it records a new charge.succeeded event                                   0.03s
  ───────────────────────────────────────────────────────────────────────────────────
   FAILED  Tests\Feature\StripeWebhookTest > it ignores a charge.succeeded event it already recorded   SignatureVerificationException
  No signatures found matching the expected signature for payload

  at vendor/stripe/stripe-php/lib/WebhookSignature.php:51
     47▕         }
     48▕
     49▕         if (!$signatureFound) {
     50▕             throw Exception\SignatureVerificationException::factory(
  ➜  51▕                 'No signatures found matching the expected signature for payload',

  Tests:    2 failed (0 assertions)
  Duration: 0.22s

EOF
    exit 1
    ;;
  *)
    echo "php stand-in: no script for: $*" >&2
    exit 64
    ;;
esac
`
	sc := scenario{
		Name:        "blind6-laravel-compact-instructions",
		Shape:       "held-out, blind6: Laravel queue job double charge, chatty user, live key in a command's output, webhook test left failing; manual /compact with the user's instructions, then auto",
		Compactions: []string{"manual", "auto"},
		Files: map[string]string{
			"app/Jobs/ChargeSubscription.php":                  job,
			"app/Http/Controllers/StripeWebhookController.php": controller,
			"composer.json": `{
    "name": "acme/billing",
    "require": {"php": "^8.3", "laravel/framework": "^11.9", "laravel/cashier": "^15.4", "laravel/horizon": "^5.24"},
    "require-dev": {"pestphp/pest": "^2.34"}
}
`,
			"artisan": "#!/usr/bin/env php\n<?php\n// Laravel's console entry point (the bench runs a stand-in php).\n",
		},
		Bins:           map[string]string{"php": php},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "CLAUDE_CODE_ENABLE_TASKS=0"},
		AllowedTools:   []string{"Bash(php:*)"},
		PermissionMode: "acceptEdits",
		Secrets:        []secret{{"Stripe live secret key (in a command's output)", stripeKey}},
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			c := &blind6Ctx{n: 18000, step: 1400}
			jobPath := p("app/Jobs/ChargeSubscription.php")
			ctlPath := p("app/Http/Controllers/StripeWebhookController.php")
			before = []turn{
				{
					Prompt: "hey! so we've got a nasty one, SUB-2207 — customers on annual plans are getting charged twice when the ChargeSubscription job retries after a Stripe timeout 😬 could you take a look? fwiw the queue runs on Horizon in prod. oh and please don't touch anything under database/migrations/, our DBA reviews those separately and she will end me",
					Replies: []fakeapi.Reply{
						reply("Let me look at the job first.", c.next(), read("toolu_b6l_read_job", jobPath)),
						reply("", c.next(), bash("toolu_b6l_failed", "php artisan queue:failed", "List failed queue jobs")),
						reply("Six of the eight failed jobs are ChargeSubscription, in pairs a few seconds apart — the retry pattern. Let me run its tests.", c.next(),
							bash("toolu_b6l_test1", "php artisan test --filter=ChargeSubscriptionTest", "Run the ChargeSubscription tests")),
						reply("The retry test reproduces it: two charges after a timeout. Stripe accepted the first request, but we never heard back, so the retry creates a second PaymentIntent.\n\n"+
							"My plan: pass an idempotency key derived from the subscription id and billing period to Stripe, rather than taking a DB lock, because Stripe already accepted the first charge when the timeout hits — a lock on our side can't see that.", c.next()),
					},
				},
				{
					Prompt: "ok that makes sense to me. wait, what's in the stripe config locally btw? are we on the live key on our laptops??",
					Replies: []fakeapi.Reply{
						reply("", c.next(), bash("toolu_b6l_config", "php artisan config:show services.stripe", "Show the Stripe config")),
						reply("Yes — the local config has a live secret key (sk_live_…, not a test key). Anyone with this .env can create real charges. It should be rotated in the Stripe dashboard, and local .env files should use an sk_test_ key.", c.next()),
					},
				},
				{
					Prompt: "ugh. ok I'll rotate it later today, put it on the list so we don't forget. go ahead with the idempotency fix",
					Replies: []fakeapi.Reply{
						reply("", c.next(), read("toolu_b6l_read_job2", jobPath)),
						reply("", c.next(), edit("toolu_b6l_edit_job", jobPath,
							"            'off_session' => true,\n        ]);\n",
							"            'off_session' => true,\n        ], [\n            'idempotency_key' => $this->idempotencyKey(),\n        ]);\n")),
						reply("", c.next(), edit("toolu_b6l_edit_key", jobPath,
							"    public function handle(): void\n",
							"    private function idempotencyKey(): string\n    {\n        return sprintf('sub-%d-period-%s', $this->subscription->id, $this->subscription->current_period_start->format('Y-m-d'));\n    }\n\n    public function handle(): void\n")),
						reply("", c.next(), bash("toolu_b6l_test2", "php artisan test --filter=ChargeSubscriptionTest", "Rerun the ChargeSubscription tests")),
						reply("", c.next(), todoWrite("toolu_b6l_todo",
							[2]string{"Fix the double charge on retry with a Stripe idempotency key", "completed"},
							[2]string{"Rotate the live Stripe secret key in local .env files", "pending"},
							[2]string{"Backfill refunds for the customers charged twice since 2026-11-01", "pending"})),
						reply("All three ChargeSubscription tests pass now: the retry reuses the same idempotency key, so Stripe returns the original PaymentIntent instead of creating a second one.", c.next()),
					},
				},
				{Prompt: "/compact keep the Stripe idempotency decision and my todo list, drop the queue:failed noise"},
				{
					Prompt: "cool, thanks! next bit of SUB-2207: the webhook controller should ignore charge.succeeded events we've already recorded (Stripe redelivers them). and use Pest for any new tests please, not PHPUnit classes",
					Replies: []fakeapi.Reply{
						reply("", 21000, read("toolu_b6l_read_ctl", ctlPath)),
						reply("", 22500, edit("toolu_b6l_edit_ctl", ctlPath,
							"        $charge = $payload['data']['object'];\n",
							"        $charge = $payload['data']['object'];\n\n        if (\\App\\Models\\Charge::where('stripe_id', $charge['id'])->exists()) {\n            return $this->successMethod();\n        }\n")),
						reply("", 24000, write("toolu_b6l_write_test", p("tests/Feature/StripeWebhookTest.php"),
							"<?php\n\nuse App\\Models\\Charge;\n\nit('ignores a charge.succeeded event it already recorded', function () {\n    Charge::factory()->create(['stripe_id' => 'ch_123']);\n    $this->postJson('/stripe/webhook', chargeSucceeded('ch_123'))->assertOk();\n    expect(Charge::count())->toBe(1);\n});\n\nit('records a new charge.succeeded event', function () {\n    $this->postJson('/stripe/webhook', chargeSucceeded('ch_456'))->assertOk();\n    expect(Charge::where('stripe_id', 'ch_456')->exists())->toBeTrue();\n});\n")),
						reply("", 25500, bash("toolu_b6l_webhook", "php artisan test --filter=StripeWebhookTest", "Run the webhook tests")),
						reply("Both webhook tests fail before reaching the controller: Cashier verifies the Stripe-Signature header, and the test posts without one. The fix belongs in the test, not in the middleware.", 27000),
					},
				},
				{
					Prompt: "sure. brb, lunch 🍜",
					Replies: []fakeapi.Reply{
						full("Enjoy! When you're back: next I'll sign the test payload with a generated Stripe-Signature header (using the webhook secret from config) and rerun StripeWebhookTest."),
					},
				},
			}
			after = []turn{
				{Prompt: "back! where were we?", Replies: []fakeapi.Reply{reply("Picking the webhook tests back up.", 9000)}},
				{Prompt: "ok go for it", Replies: []fakeapi.Reply{reply("On it.", 9800)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "SUB-2207"),
			lit("constraint: migrations", "don't touch anything under database/migrations/"),
			lit("user's context: Horizon", "Horizon"),
			lit("file edited", "app/Jobs/ChargeSubscription.php"),
			rx("failed command, exit code", `(?i)ChargeSubscriptionTest[^\n]{0,160}(exit (code )?1\b|fail)`),
			rx("failure fixed", `(?i)ChargeSubscriptionTest[^\n]{0,160}(now pass|all pass|3 passed|fixed|resolved|exit (code )?0\b)`),
			lit("decision", "idempotency key derived from the subscription id and billing period"),
			lit("decision's reason", "Stripe already accepted the first charge"),
			lit("open todo 1", "Rotate the live Stripe secret key"),
			lit("open todo 2", "Backfill refunds for the customers charged twice"),
			lit("constraint: Pest", "use Pest for any new tests").from(2),
			lit("file edited after the first compaction", "app/Http/Controllers/StripeWebhookController.php").from(2),
			lit("file created after the first compaction", "tests/Feature/StripeWebhookTest.php").from(2),
			rx("failing command: webhook tests", `(?i)StripeWebhookTest[^\n]{0,160}(exit (code )?1\b|fail)`).from(2),
			lit("failure's error", "No signatures found matching the expected signature").from(2),
			lit("next step", "sign the test payload with a generated Stripe-Signature header").from(2),
		},
	}
	return sc
}

// blind6ViteBudget: a terse user moving a Vue cart into a Pinia store
// (SHOP-318) over six turns with many files and commands: vue-tsc failing
// then clean, a long vitest run, a build table whose gzip size matters, a
// performance budget said once, lazy loading, an lint failure fixed, a
// Sentry token in the .env.local the agent reads, an open question about a
// dependency the user ruled out, a TodoWrite list; one automatic
// compaction.
func blind6ViteBudget() scenario {
	const sentryToken = "sntrys_eyJpYXQiOjE3MzI0OTYwMDAsInVybCI6Imh0dHBzOi8vc2VudHJ5LmlvIn0_Bl1nd6ViteR3call0nlyQk9x"
	const drawer = `<script setup lang="ts">
import { computed, ref } from 'vue'
import type { CartLine } from '@/types/cart'

const props = defineProps<{ open: boolean }>()
const emit = defineEmits<{ close: [] }>()

const lines = ref<CartLine[]>([])
const total = computed(() => lines.value.reduce((sum, l) => sum + l.price * l.qty, 0))

function add(line: CartLine) {
  const hit = lines.value.find((l) => l.sku === line.sku)
  if (hit) hit.qty += line.qty
  else lines.value.push(line)
}
defineExpose({ add })
</script>

<template>
  <aside v-if="props.open" class="cart-drawer">
    <ul>
      <li v-for="line in lines" :key="line.sku">
        {{ line.name }} × {{ line.qty }} — {{ (line.price * line.qty).toFixed(2) }}
      </li>
    </ul>
    <p class="total">Total: {{ total.toFixed(2) }}</p>
    <button type="button" @click="emit('close')">Close</button>
  </aside>
</template>
`
	const cartTypes = "export interface CartLine {\n  sku: string\n  name: string\n  price: number\n  qty: number\n}\n"
	const router = `import { createRouter, createWebHistory } from 'vue-router'
import HomeView from '@/views/HomeView.vue'
import CheckoutView from '@/views/CheckoutView.vue'

export default createRouter({
  history: createWebHistory(),
  routes: [
    { path: '/', name: 'home', component: HomeView },
    { path: '/checkout', name: 'checkout', component: CheckoutView },
  ],
})
`
	const viteConfig = `import { fileURLToPath, URL } from 'node:url'
import { defineConfig } from 'vite'
import vue from '@vitejs/plugin-vue'

export default defineConfig({
  plugins: [vue()],
  resolve: {
    alias: { '@': fileURLToPath(new URL('./src', import.meta.url)) },
  },
})
`
	const checkout = `<script setup lang="ts">
import { computed, ref, watch } from 'vue'
import { useCartStore } from '@/stores/cart'

const cart = useCartStore()
const email = ref('')
const canPay = computed(() => cart.lines.length > 0 && email.value.includes('@'))
</script>

<template>
  <form class="checkout" @submit.prevent>
    <input v-model="email" type="email" placeholder="you@example.com" />
    <button type="submit" :disabled="!canPay">Pay</button>
  </form>
</template>
`
	pnpm := `#!/bin/sh
# stand-in for pnpm in this Vue project: prints what the tools print
case "$*" in
  "vue-tsc --noEmit")
    if grep -q totalCents src/types/cart.ts; then exit 0; fi
    cat <<'EOF'
src/stores/cart.ts:19:38 - error TS2339: Property 'totalCents' does not exist on type 'CartLine'.

19     total: (s) => s.lines.reduce((sum, l) => sum + l.totalCents, 0),
                                                        ~~~~~~~~~~

src/components/CartDrawer.vue:20:45 - error TS2339: Property 'totalCents' does not exist on type 'CartLine'.

20         {{ line.name }} × {{ line.qty }} — {{ money(line.totalCents) }}
                                                     ~~~~~~~~~~


Found 2 errors in 2 files.

Errors  Files
     1  src/stores/cart.ts:19
     1  src/components/CartDrawer.vue:20
 ELIFECYCLE  Command failed with exit code 2.
EOF
    exit 2
    ;;
  "vitest run")
    cat <<'EOF'

 RUN  v2.1.8 /work/shop-web

 ✓ src/composables/useMoney.spec.ts (6 tests) 4ms
 ✓ src/stores/cart.spec.ts (9 tests) 11ms
 ✓ src/api/cart.spec.ts (7 tests) 19ms
 ✓ src/components/__tests__/ProductCard.spec.ts (5 tests) 38ms
 ✓ src/components/__tests__/HeaderNav.spec.ts (4 tests) 27ms
 ✓ src/components/__tests__/SearchBox.spec.ts (8 tests) 61ms
 ✓ src/views/__tests__/HomeView.spec.ts (3 tests) 44ms
 ✓ src/views/__tests__/ProductView.spec.ts (6 tests) 52ms
 ✓ src/utils/slug.spec.ts (12 tests) 3ms
 ✓ src/utils/debounce.spec.ts (4 tests) 1009ms

 Test Files  10 passed (10)
      Tests  64 passed (64)
   Start at  00:41:07
   Duration  2.84s (transform 611ms, setup 0ms, collect 1.92s, tests 1.27s, environment 3.10s, prepare 1.05s)

EOF
    ;;
  "vitest run src/components/__tests__/CartDrawer.spec.ts")
    cat <<'EOF'

 RUN  v2.1.8 /work/shop-web

 ✓ src/components/__tests__/CartDrawer.spec.ts (4 tests) 42ms

 Test Files  1 passed (1)
      Tests  4 passed (4)
   Start at  00:52:33
   Duration  1.12s (transform 201ms, setup 0ms, collect 388ms, tests 42ms, environment 611ms, prepare 97ms)

EOF
    ;;
  "vite build")
    cat <<'EOF'
vite v5.4.11 building for production...
transforming...
✓ 418 modules transformed.
rendering chunks...
computing gzip size...
dist/index.html                                  0.64 kB │ gzip:  0.39 kB
dist/assets/inter-latin-400-normal-C38fXH4l.woff2  23.66 kB
dist/assets/inter-latin-600-normal-LgqL8muc.woff2  24.45 kB
dist/assets/logo-BvK1x2Qe.svg                    3.18 kB │ gzip:  1.37 kB
dist/assets/ProductView-Dq3xK1aP.css             2.41 kB │ gzip:  0.91 kB
dist/assets/HomeView-Hk2p0Zs8.css                3.05 kB │ gzip:  1.02 kB
dist/assets/index-Cz8mT0wB.css                  18.77 kB │ gzip:  4.12 kB
dist/assets/slug-D4aS0v1n.js                     0.41 kB │ gzip:  0.29 kB
dist/assets/debounce-Cq7v2LmE.js                 0.52 kB │ gzip:  0.33 kB
dist/assets/SearchBox-B8yQ2nRt.js                4.77 kB │ gzip:  1.98 kB
dist/assets/HomeView-B1f9sLq2.js                 6.03 kB │ gzip:  2.47 kB
dist/assets/ProductView-Cf0nA7dW.js              9.86 kB │ gzip:  3.74 kB
dist/assets/index-B7x2kQ9d.js                  262.14 kB │ gzip: 84.10 kB
✓ built in 3.87s
EOF
    ;;
  "eslint . --max-warnings 0")
    if grep -q 'ref, watch }' src/views/CheckoutView.vue; then
      echo
      echo "$PWD/src/views/CheckoutView.vue"
      echo "  2:25  warning  'watch' is defined but never used  @typescript-eslint/no-unused-vars"
      echo
      echo "✖ 1 problem (0 errors, 1 warning)"
      echo
      echo "ESLint found too many warnings (maximum: 0)."
      echo " ELIFECYCLE  Command failed with exit code 1."
      exit 1
    fi
    ;;
  *)
    echo "pnpm stand-in: no script for: $*" >&2
    exit 64
    ;;
esac
`
	sc := scenario{
		Name:        "blind6-vite-big-session",
		Shape:       "held-out, blind6: Vue/Vite cart to Pinia, terse user, a dozen files and commands, build table, budget said once, token in a file read, open question; auto",
		Compactions: []string{"auto"},
		Files: map[string]string{
			"package.json":                  `{"name":"shop-web","private":true,"type":"module","scripts":{"dev":"vite","build":"vue-tsc --noEmit && vite build","test":"vitest"},"dependencies":{"pinia":"^2.2.6","vue":"^3.5.13","vue-router":"^4.4.5"},"devDependencies":{"@vitejs/plugin-vue":"^5.2.0","eslint":"^9.15.0","vite":"^5.4.11","vitest":"^2.1.8","vue-tsc":"^2.1.10"}}` + "\n",
			"src/components/CartDrawer.vue": drawer,
			"src/types/cart.ts":             cartTypes,
			"src/router/index.ts":           router,
			"vite.config.ts":                viteConfig,
			"src/views/CheckoutView.vue":    checkout,
			".env.local":                    "VITE_API_BASE=https://api.shop.example.test\nVITE_SENTRY_DSN=https://4f1c2a9e0b7d4e3f@o4504.ingest.sentry.io/4506\nSENTRY_ORG=acme-shop\nSENTRY_AUTH_TOKEN=" + sentryToken + "\n",
		},
		Bins:           map[string]string{"pnpm": pnpm},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "CLAUDE_CODE_ENABLE_TASKS=0"},
		AllowedTools:   []string{"Bash(pnpm:*)", "Bash(git:*)"},
		PermissionMode: "acceptEdits",
		Secrets:        []secret{{"Sentry auth token (in a file read)", sentryToken}},
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			c := &blind6Ctx{n: 15000, step: 1100}
			drawerPath := p("src/components/CartDrawer.vue")
			before = []turn{
				{
					Prompt: "SHOP-318. move cart state out of CartDrawer.vue into a pinia store (pinia's already a dep). no new deps.",
					Replies: []fakeapi.Reply{
						reply("", c.next(), read("toolu_b6v_read_drawer", drawerPath)),
						reply("", c.next(), read("toolu_b6v_read_types", p("src/types/cart.ts"))),
						reply("", c.next(), write("toolu_b6v_write_store", p("src/stores/cart.ts"),
							"import { defineStore } from 'pinia'\nimport type { CartLine } from '@/types/cart'\n\nexport const useCartStore = defineStore('cart', {\n  state: () => ({ lines: [] as CartLine[] }),\n  actions: {\n    add(line: CartLine) {\n      const hit = this.lines.find((l) => l.sku === line.sku)\n      if (hit) {\n        hit.qty += line.qty\n        hit.totalCents = hit.unitCents * hit.qty\n      } else this.lines.push(line)\n    },\n  },\n  getters: {\n    // integer cents: formatting happens in useMoney only\n    total: (s) => s.lines.reduce((sum, l) => sum + l.totalCents, 0),\n  },\n})\n")),
						reply("", c.next(), edit("toolu_b6v_edit_imports", drawerPath,
							"import { computed, ref } from 'vue'\nimport type { CartLine } from '@/types/cart'\n",
							"import { storeToRefs } from 'pinia'\nimport { useCartStore } from '@/stores/cart'\nimport { money } from '@/composables/useMoney'\n")),
						reply("", c.next(), edit("toolu_b6v_edit_state", drawerPath,
							"const lines = ref<CartLine[]>([])\nconst total = computed(() => lines.value.reduce((sum, l) => sum + l.price * l.qty, 0))\n\nfunction add(line: CartLine) {\n  const hit = lines.value.find((l) => l.sku === line.sku)\n  if (hit) hit.qty += line.qty\n  else lines.value.push(line)\n}\ndefineExpose({ add })\n",
							"const cart = useCartStore()\nconst { lines, total } = storeToRefs(cart)\n")),
						reply("", c.next(), edit("toolu_b6v_edit_tpl", drawerPath,
							"{{ (line.price * line.qty).toFixed(2) }}",
							"{{ money(line.totalCents) }}")),
						reply("", c.next(), bash("toolu_b6v_tsc1", "pnpm vue-tsc --noEmit", "Type-check")),
						reply("vue-tsc fails (exit 2): CartLine has no totalCents yet.\n\nDecision: money stays in integer cents in the store (unitCents, totalCents) and gets formatted only in a useMoney composable, because float totals drifted by a cent in the old drawer.", c.next(),
							edit("toolu_b6v_edit_types", p("src/types/cart.ts"), "  price: number\n  qty: number\n}", "  unitCents: number\n  qty: number\n  totalCents: number\n}")),
						reply("", c.next(), bash("toolu_b6v_tsc2", "pnpm vue-tsc --noEmit", "Type-check again")),
						reply("vue-tsc is clean now.", c.next()),
					},
				},
				{
					Prompt: "tests",
					Replies: []fakeapi.Reply{
						reply("", c.next(), write("toolu_b6v_write_money", p("src/composables/useMoney.ts"),
							"const fmt = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' })\n\n// money formats integer cents; nothing else in the app divides by 100.\nexport function money(cents: number): string {\n  return fmt.format(cents / 100)\n}\n")),
						reply("", c.next(), write("toolu_b6v_write_money_spec", p("src/composables/useMoney.spec.ts"),
							"import { describe, expect, it } from 'vitest'\nimport { money } from './useMoney'\n\ndescribe('money', () => {\n  it('formats cents', () => expect(money(1999)).toBe('$19.99'))\n  it('does not drift on sums', () => expect(money(10 + 20)).toBe('$0.30'))\n})\n")),
						reply("", c.next(), write("toolu_b6v_write_store_spec", p("src/stores/cart.spec.ts"),
							"import { beforeEach, describe, expect, it } from 'vitest'\nimport { createPinia, setActivePinia } from 'pinia'\nimport { useCartStore } from './cart'\n\ndescribe('cart store', () => {\n  beforeEach(() => setActivePinia(createPinia()))\n  it('merges lines by sku', () => {\n    const cart = useCartStore()\n    cart.add({ sku: 'a', name: 'A', unitCents: 10, qty: 1, totalCents: 10 })\n    cart.add({ sku: 'a', name: 'A', unitCents: 10, qty: 2, totalCents: 20 })\n    expect(cart.total).toBe(30)\n  })\n})\n")),
						reply("", c.next(), bash("toolu_b6v_vitest", "pnpm vitest run", "Run the unit tests")),
						reply("All 64 tests in 10 files pass, the new store and useMoney specs included.", c.next()),
					},
				},
				{
					Prompt: "bundle size?",
					Replies: []fakeapi.Reply{
						reply("", c.next(), bash("toolu_b6v_build", "pnpm vite build", "Production build")),
						reply("The main chunk, dist/assets/index-B7x2kQ9d.js, is 262.14 kB raw and 84.10 kB gzipped; CheckoutView is bundled into it since the router imports it eagerly.", c.next()),
					},
				},
				{
					Prompt: "keep main under 90k gz, that's the perf budget. lazy-load /checkout. and esc should close the drawer",
					Replies: []fakeapi.Reply{
						reply("", c.next(), read("toolu_b6v_read_router", p("src/router/index.ts"))),
						reply("", c.next(), edit("toolu_b6v_edit_router1", p("src/router/index.ts"), "import CheckoutView from '@/views/CheckoutView.vue'\n", "")),
						reply("", c.next(), edit("toolu_b6v_edit_router2", p("src/router/index.ts"), "component: CheckoutView }", "component: () => import('@/views/CheckoutView.vue') }")),
						reply("", c.next(), read("toolu_b6v_read_vite", p("vite.config.ts"))),
						reply("", c.next(), edit("toolu_b6v_edit_vite", p("vite.config.ts"), "  plugins: [vue()],\n",
							"  plugins: [vue()],\n  build: {\n    rollupOptions: {\n      output: { manualChunks: { vue: ['vue', 'vue-router', 'pinia'] } },\n    },\n  },\n")),
						reply("", c.next(), edit("toolu_b6v_edit_esc", drawerPath, `<aside v-if="props.open" class="cart-drawer">`,
							`<aside v-if="props.open" class="cart-drawer" tabindex="-1" @keydown.esc="emit('close')">`)),
						reply("", c.next(), write("toolu_b6v_write_drawer_spec", p("src/components/__tests__/CartDrawer.spec.ts"),
							"import { describe, expect, it } from 'vitest'\nimport { mount } from '@vue/test-utils'\nimport { createTestingPinia } from '@pinia/testing'\nimport CartDrawer from '../CartDrawer.vue'\n\ndescribe('CartDrawer', () => {\n  it('closes on Escape', async () => {\n    const w = mount(CartDrawer, { props: { open: true }, global: { plugins: [createTestingPinia()] } })\n    await w.find('aside').trigger('keydown', { key: 'Escape' })\n    expect(w.emitted('close')).toHaveLength(1)\n  })\n})\n")),
						reply("", c.next(), bash("toolu_b6v_vitest_drawer", "pnpm vitest run src/components/__tests__/CartDrawer.spec.ts", "Run the drawer tests")),
						reply("/checkout is lazy now, vue/vue-router/pinia go to their own vendor chunk, and Esc closes the drawer (4 drawer tests pass).", c.next()),
					},
				},
				{
					Prompt: "sentry sourcemaps — is the upload token set up locally? should be in .env.local",
					Replies: []fakeapi.Reply{
						reply("", c.next(), read("toolu_b6v_read_env", p(".env.local"))),
						reply("Yes, SENTRY_AUTH_TOKEN and SENTRY_ORG are set in .env.local. But uploading source maps needs @sentry/vite-plugin, which would be a new dependency, and you said no new deps — so I haven't added it. Should I, or do you want the upload in CI instead?", c.next()),
					},
				},
				{
					Prompt: "later. lint",
					Replies: []fakeapi.Reply{
						reply("", c.next(), bash("toolu_b6v_lint1", "pnpm eslint . --max-warnings 0", "Lint")),
						reply("", c.next(), read("toolu_b6v_read_checkout", p("src/views/CheckoutView.vue"))),
						reply("", c.next(), edit("toolu_b6v_edit_checkout", p("src/views/CheckoutView.vue"), "import { computed, ref, watch } from 'vue'", "import { computed, ref } from 'vue'")),
						reply("", c.next(), bash("toolu_b6v_lint2", "pnpm eslint . --max-warnings 0", "Lint again")),
						reply("", c.next(), todoWrite("toolu_b6v_todo",
							[2]string{"Move cart state into a pinia store", "completed"},
							[2]string{"Lazy-load the checkout route", "completed"},
							[2]string{"Close the drawer on Esc", "completed"},
							[2]string{"Re-measure the main chunk after lazy-loading /checkout", "pending"},
							[2]string{"Cover the checkout total in cents with a vitest case", "pending"})),
						reply("", c.next(), bash("toolu_b6v_status", "git status --short", "List changed files")),
						full("Lint is clean (the unused `watch` import in CheckoutView.vue is gone).\n\nNext:\n1. Rebuild and check the main chunk against the 90 kB gzip budget now that /checkout is lazy\n2. Settle the Sentry upload (plugin or CI) once you decide\n3. Open the PR for SHOP-318"),
					},
				},
			}
			after = []turn{
				{Prompt: "1", Replies: []fakeapi.Reply{reply("Rebuilding.", 7000)}},
				{Prompt: "k", Replies: []fakeapi.Reply{reply("Done.", 7600)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "SHOP-318"),
			lit("constraint: no new deps", "no new deps"),
			lit("constraint: perf budget", "keep main under 90k gz"),
			lit("file created: the store", "src/stores/cart.ts"),
			lit("file edited: the types", "src/types/cart.ts"),
			lit("file created: the composable", "src/composables/useMoney.ts"),
			lit("file edited: the router", "src/router/index.ts"),
			lit("file edited: the vite config", "vite.config.ts"),
			lit("file created: the drawer spec", "src/components/__tests__/CartDrawer.spec.ts"),
			lit("file edited: the checkout view", "src/views/CheckoutView.vue"),
			rx("failed command, exit code", `(?i)vue-tsc[^\n]{0,160}(exit (code )?2\b|fail)`),
			lit("failure's error", "Property 'totalCents' does not exist on type 'CartLine'"),
			rx("failure fixed", `(?i)vue-tsc[^\n]{0,160}(clean|now pass|fixed|resolved|exit (code )?0\b)`),
			lit("decision", "integer cents in the store"),
			lit("decision's reason", "float totals drifted by a cent"),
			lit("finding: main chunk gzip size", "84.10 kB"),
			lit("open thread: the Sentry plugin question", "@sentry/vite-plugin"),
			lit("open todo", "Cover the checkout total in cents with a vitest case"),
		},
	}
	return sc
}

// blind6SpringAnswers: a transactional outbox for a Spring Boot service
// (ORD-1442) where the agent asks three questions and the user answers
// each in one word, a turn apiece; an ordering test failing then fixed;
// a staging check with a password in the connection string the user
// pastes; constraints said in passing inside other requests (the Spring
// Boot pin, the scope, three replicas); a subagent's finding; the
// migration tool the user chose taken back for another; one automatic
// compaction.
func blind6SpringAnswers() scenario {
	const pgPassword = "orders_stg_Vx9qL2mR7zK4pW"
	const pgURL = "postgresql://orders_app:" + pgPassword + "@staging-db.internal:5432/orders"
	const pom = `<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <parent>
    <groupId>org.springframework.boot</groupId>
    <artifactId>spring-boot-starter-parent</artifactId>
    <version>3.2.5</version>
  </parent>
  <groupId>com.acme</groupId>
  <artifactId>orders</artifactId>
  <version>1.41.0-SNAPSHOT</version>
  <dependencies>
    <dependency>
      <groupId>org.springframework.boot</groupId>
      <artifactId>spring-boot-starter-data-jpa</artifactId>
    </dependency>
    <dependency>
      <groupId>org.springframework.kafka</groupId>
      <artifactId>spring-kafka</artifactId>
    </dependency>
    <dependency>
      <groupId>org.flywaydb</groupId>
      <artifactId>flyway-core</artifactId>
    </dependency>
    <dependency>
      <groupId>org.postgresql</groupId>
      <artifactId>postgresql</artifactId>
      <scope>runtime</scope>
    </dependency>
  </dependencies>
</project>
`
	mvnw := `#!/bin/sh
# stand-in for the Maven wrapper: prints what this project's builds print
case "$*" in
  "-q test -Dtest=OutboxPublisherTest")
    if grep -q "ORDER BY id" src/main/java/com/acme/orders/outbox/OutboxRepository.java 2>/dev/null; then exit 0; fi
    cat <<'EOF'
[ERROR] Tests run: 4, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 2.184 s <<< FAILURE! -- in com.acme.orders.outbox.OutboxPublisherTest
[ERROR] com.acme.orders.outbox.OutboxPublisherTest.publishesPendingEventsInOrder -- Time elapsed: 0.412 s <<< FAILURE!
org.opentest4j.AssertionFailedError: expected: <[1, 2, 3]> but was: <[1, 3, 2]>
	at org.junit.jupiter.api.AssertionFailureBuilder.build(AssertionFailureBuilder.java:151)
	at org.junit.jupiter.api.AssertionFailureBuilder.buildAndThrow(AssertionFailureBuilder.java:132)
	at org.junit.jupiter.api.AssertEquals.failNotEqual(AssertEquals.java:197)
	at org.junit.jupiter.api.AssertEquals.assertEquals(AssertEquals.java:182)
	at org.junit.jupiter.api.Assertions.assertEquals(Assertions.java:1156)
	at com.acme.orders.outbox.OutboxPublisherTest.publishesPendingEventsInOrder(OutboxPublisherTest.java:48)
	at java.base/java.lang.reflect.Method.invoke(Method.java:580)

[ERROR] Failures: 
[ERROR]   OutboxPublisherTest.publishesPendingEventsInOrder:48 expected: <[1, 2, 3]> but was: <[1, 3, 2]>
[ERROR] Tests run: 4, Failures: 1, Errors: 0, Skipped: 0
[ERROR] Failed to execute goal org.apache.maven.plugins:maven-surefire-plugin:3.2.5:test (default-test) on project orders: There are test failures.
[ERROR] 
[ERROR] Please refer to /work/orders/target/surefire-reports for the individual test results.
EOF
    exit 1
    ;;
  "-q verify")
    if [ -f src/main/resources/db/changelog/db.changelog-master.yaml ]; then exit 0; fi
    cat <<'EOF'
[ERROR] Tests run: 23, Failures: 0, Errors: 1, Skipped: 0, Time elapsed: 9.702 s <<< FAILURE! -- in com.acme.orders.OrdersApplicationTests
[ERROR] com.acme.orders.OrdersApplicationTests.contextLoads -- Time elapsed: 0.003 s <<< ERROR!
java.lang.IllegalStateException: Failed to load ApplicationContext for [WebMergedContextConfiguration@5c1a2b3d testClass = com.acme.orders.OrdersApplicationTests]
Caused by: org.springframework.beans.factory.BeanCreationException: Error creating bean with name 'liquibase' defined in class path resource [org/springframework/boot/autoconfigure/liquibase/LiquibaseAutoConfiguration$LiquibaseConfiguration.class]: liquibase.exception.ChangeLogParseException: Error parsing classpath:/db/changelog/db.changelog-master.yaml : The file classpath:/db/changelog/db.changelog-master.yaml was not found in the configured search path
[ERROR] Errors: 
[ERROR]   OrdersApplicationTests.contextLoads » IllegalState Failed to load ApplicationContext
[ERROR] Tests run: 23, Failures: 0, Errors: 1, Skipped: 0
[ERROR] Failed to execute goal org.apache.maven.plugins:maven-surefire-plugin:3.2.5:test (default-test) on project orders: There are test failures.
EOF
    exit 1
    ;;
  *)
    echo "mvnw stand-in: no script for: $*" >&2
    exit 64
    ;;
esac
`
	psql := `#!/bin/sh
# stand-in for psql against the staging database
cat <<'EOF'
               List of relations
 Schema |       Name        | Type  |   Owner
--------+-------------------+-------+------------
 public | order_items       | table | orders_app
 public | order_status_log  | table | orders_app
 public | orders            | table | orders_app
(3 rows)

EOF
`
	javaFile := func(pkg, class, topic, payload string) string {
		return "package com.acme.orders." + pkg + ";\n\nimport org.springframework.kafka.core.KafkaTemplate;\nimport org.springframework.stereotype.Component;\n\n@Component\nclass " + class + " {\n    private final KafkaTemplate<String, Object> kafkaTemplate;\n\n    " + class + "(KafkaTemplate<String, Object> kafkaTemplate) {\n        this.kafkaTemplate = kafkaTemplate;\n    }\n\n    void publish(String key, Object " + payload + ") {\n        kafkaTemplate.send(\"" + topic + "\", key, " + payload + ");\n    }\n}\n"
	}
	sc := scenario{
		Name:        "blind6-spring-one-word-answers",
		Shape:       "held-out, blind6: Spring Boot outbox, answers one word a turn, constraints in passing, Flyway taken back for Liquibase, subagent, password in a prompt and a command; auto",
		Compactions: []string{"auto"},
		Files: map[string]string{
			"pom.xml": pom,
			"mvnw":    mvnw,
			"src/main/java/com/acme/orders/payments/PaymentListener.java":  javaFile("payments", "PaymentListener", "payments.captured", "capture"),
			"src/main/java/com/acme/orders/refunds/RefundService.java":     javaFile("refunds", "RefundService", "refunds.issued", "refund"),
			"src/main/java/com/acme/orders/shipping/ShipmentNotifier.java": javaFile("shipping", "ShipmentNotifier", "shipments.dispatched", "shipment"),
			"src/main/resources/db/migration/V6__add_order_status_log.sql": "CREATE TABLE order_status_log (id BIGSERIAL PRIMARY KEY, order_id BIGINT NOT NULL, status TEXT NOT NULL, at TIMESTAMPTZ NOT NULL DEFAULT now());\n",
		},
		Bins:           map[string]string{"psql": psql},
		AllowedTools:   []string{"Bash(./mvnw:*)", "Bash(psql:*)", "Bash(grep:*)", "Bash(rm:*)"},
		PermissionMode: "acceptEdits",
		Secrets:        []secret{{"Postgres password (in a prompt and a command's argument)", pgPassword}},
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			c := &blind6Ctx{n: 14000, step: 1500}
			outbox := "src/main/java/com/acme/orders/outbox/"
			repo := p(outbox + "OutboxRepository.java")
			before = []turn{
				{
					Prompt: "ORD-1442 — we need a transactional outbox for order events so we stop losing them whenever kafka is down. ask me whatever you need first",
					Replies: []fakeapi.Reply{
						reply("Three questions before I start:\n1. Which database does the orders service run on in prod?\n2. Flyway or Liquibase for the migration?\n3. How often should the publisher poll the outbox?", c.next()),
					},
				},
				{Prompt: "postgres", Replies: []fakeapi.Reply{reply("PostgreSQL, got it. Flyway or Liquibase?", c.next())}},
				{Prompt: "flyway", Replies: []fakeapi.Reply{reply("Flyway then (it's already in the pom). And the poll interval?", c.next())}},
				{
					Prompt: "500ms",
					Replies: []fakeapi.Reply{
						reply("", c.next(), read("toolu_b6s_read_pom", p("pom.xml"))),
						reply("", c.next(), write("toolu_b6s_write_v7", p("src/main/resources/db/migration/V7__create_order_outbox.sql"),
							"CREATE TABLE order_outbox (\n    id BIGSERIAL PRIMARY KEY,\n    aggregate_id BIGINT NOT NULL,\n    event_type TEXT NOT NULL,\n    payload JSONB NOT NULL,\n    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),\n    published_at TIMESTAMPTZ\n);\nCREATE INDEX order_outbox_unpublished ON order_outbox (id) WHERE published_at IS NULL;\n")),
						reply("", c.next(), write("toolu_b6s_write_event", p(outbox+"OutboxEvent.java"),
							"package com.acme.orders.outbox;\n\nimport jakarta.persistence.*;\nimport java.time.Instant;\n\n@Entity\n@Table(name = \"order_outbox\")\npublic class OutboxEvent {\n    @Id @GeneratedValue(strategy = GenerationType.IDENTITY) Long id;\n    Long aggregateId;\n    String eventType;\n    String payload;\n    Instant createdAt;\n    Instant publishedAt;\n}\n")),
						reply("", c.next(), write("toolu_b6s_write_repo", repo,
							"package com.acme.orders.outbox;\n\nimport java.util.List;\nimport org.springframework.data.jpa.repository.*;\n\ninterface OutboxRepository extends JpaRepository<OutboxEvent, Long> {\n    @Query(value = \"SELECT * FROM order_outbox WHERE published_at IS NULL ORDER BY created_at LIMIT 100\", nativeQuery = true)\n    List<OutboxEvent> pending();\n}\n")),
						reply("", c.next(), write("toolu_b6s_write_pub", p(outbox+"OutboxPublisher.java"),
							"package com.acme.orders.outbox;\n\nimport org.springframework.kafka.core.KafkaTemplate;\nimport org.springframework.scheduling.annotation.Scheduled;\nimport org.springframework.stereotype.Component;\nimport org.springframework.transaction.annotation.Transactional;\n\n@Component\nclass OutboxPublisher {\n    private final OutboxRepository outbox;\n    private final KafkaTemplate<String, String> kafka;\n\n    OutboxPublisher(OutboxRepository outbox, KafkaTemplate<String, String> kafka) {\n        this.outbox = outbox;\n        this.kafka = kafka;\n    }\n\n    @Scheduled(fixedDelay = 500)\n    @Transactional\n    void publishPending() {\n        for (OutboxEvent e : outbox.pending()) {\n            kafka.send(\"orders.events\", e.aggregateId.toString(), e.payload).join();\n            e.publishedAt = java.time.Instant.now();\n        }\n    }\n}\n")),
						reply("", c.next(), write("toolu_b6s_write_test", p("src/test/java/com/acme/orders/outbox/OutboxPublisherTest.java"),
							"package com.acme.orders.outbox;\n\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n\nimport org.junit.jupiter.api.Test;\n\nclass OutboxPublisherTest {\n    @Test\n    void publishesPendingEventsInOrder() {\n        // three events inserted in one millisecond must go out 1, 2, 3\n    }\n}\n")),
						reply("", c.next(), bash("toolu_b6s_test1", "./mvnw -q test -Dtest=OutboxPublisherTest", "Run the outbox publisher tests")),
						reply("publishesPendingEventsInOrder fails: events 2 and 3 come out swapped. created_at ties within the same millisecond, so Postgres returns them in any order. I'll order by the outbox id instead of created_at, since the id comes from a sequence and follows insertion order.", c.next(),
							edit("toolu_b6s_edit_repo", repo, "ORDER BY created_at", "ORDER BY id")),
						reply("", c.next(), bash("toolu_b6s_test2", "./mvnw -q test -Dtest=OutboxPublisherTest", "Rerun the outbox publisher tests")),
						reply("OutboxPublisherTest passes now. The outbox table is migration V7, the publisher polls every 500 ms.", c.next()),
					},
				},
				{
					Prompt: "great. could you check on staging that the table name isn't already taken? conn string is " + pgURL + " (and pls don't bump spring boot while you're in the pom, we're pinned to 3.2.x by the platform team)",
					Replies: []fakeapi.Reply{
						reply("", c.next(), bash("toolu_b6s_psql", `psql "`+pgURL+`" -c '\dt order*'`, "List order tables on staging")),
						reply("order_outbox is free on staging: only orders, order_items and order_status_log exist. And noted: Spring Boot stays on 3.2.5.", c.next()),
					},
				},
				{
					Prompt: "nice. can you get a subagent to list everything that still calls kafkaTemplate.send directly? we'll move those over later, not in this ticket",
					Replies: []fakeapi.Reply{
						reply("", c.next(), agentCall("toolu_b6s_agent", "general-purpose", "Find direct Kafka publishers",
							"List every class under src/main/java that calls kafkaTemplate.send directly instead of going through an outbox. For each: the class, its file and the topic. Read only, change nothing.")),
						reply("", 3200, bash("toolu_b6s_sub_grep", `grep -rn "kafkaTemplate.send" src/main/java`, "Find direct sends")),
						reply("Three classes call kafkaTemplate.send directly:\n- PaymentListener (payments/PaymentListener.java), topic payments.captured\n- RefundService (refunds/RefundService.java), topic refunds.issued\n- ShipmentNotifier (shipping/ShipmentNotifier.java), topic shipments.dispatched", 4100),
						reply("The subagent found three direct publishers: PaymentListener (payments.captured), RefundService (refunds.issued) and ShipmentNotifier (shipments.dispatched). Out of scope for ORD-1442 as you said; they can move to the outbox later.", c.next()),
					},
				},
				{
					Prompt: "hm actually scrap flyway — the other three services are on liquibase and ops has tooling for it. switch please",
					Replies: []fakeapi.Reply{
						reply("", c.next(), read("toolu_b6s_read_pom2", p("pom.xml"))),
						reply("", c.next(), edit("toolu_b6s_edit_pom", p("pom.xml"),
							"      <groupId>org.flywaydb</groupId>\n      <artifactId>flyway-core</artifactId>",
							"      <groupId>org.liquibase</groupId>\n      <artifactId>liquibase-core</artifactId>")),
						reply("", c.next(), bash("toolu_b6s_rm", "rm src/main/resources/db/migration/V7__create_order_outbox.sql", "Remove the Flyway migration")),
						reply("", c.next(), write("toolu_b6s_write_cs", p("src/main/resources/db/changelog/changes/007-create-order-outbox.yaml"),
							"databaseChangeLog:\n  - changeSet:\n      id: 007-create-order-outbox\n      author: orders\n      changes:\n        - createTable:\n            tableName: order_outbox\n            columns:\n              - column: {name: id, type: BIGSERIAL, constraints: {primaryKey: true}}\n              - column: {name: aggregate_id, type: BIGINT, constraints: {nullable: false}}\n              - column: {name: event_type, type: TEXT, constraints: {nullable: false}}\n              - column: {name: payload, type: JSONB, constraints: {nullable: false}}\n              - column: {name: created_at, type: TIMESTAMPTZ, defaultValueComputed: now()}\n              - column: {name: published_at, type: TIMESTAMPTZ}\n")),
						reply("", c.next(), bash("toolu_b6s_verify1", "./mvnw -q verify", "Build and run all tests")),
						reply("The context fails to load: Spring Boot's Liquibase auto-configuration looks for db/changelog/db.changelog-master.yaml, which doesn't exist yet. Adding it.", c.next(),
							write("toolu_b6s_write_master", p("src/main/resources/db/changelog/db.changelog-master.yaml"),
								"databaseChangeLog:\n  - includeAll:\n      path: db/changelog/changes/\n")),
						reply("", c.next(), bash("toolu_b6s_verify2", "./mvnw -q verify", "Build and run all tests again")),
						reply("Switched to Liquibase: the outbox table is changeset 007-create-order-outbox, included from the new master changelog, and `./mvnw -q verify` passes. The Flyway V7 file is gone. Note that V1–V6 are still Flyway migrations; they need a baseline in Liquibase before prod.", c.next()),
					},
				},
				{
					Prompt: "ok. keep in mind we run 3 replicas of orders in prod btw",
					Replies: []fakeapi.Reply{
						full("Then @Scheduled alone would have all three replicas publish the same rows. Next step: claim rows with SELECT ... FOR UPDATE SKIP LOCKED in OutboxRepository.pending(), so each replica takes its own batch."),
					},
				},
			}
			after = []turn{
				{Prompt: "go ahead", Replies: []fakeapi.Reply{reply("Changing the query.", 6000)}},
				{Prompt: "and?", Replies: []fakeapi.Reply{reply("Done.", 6600)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "ORD-1442"),
			rx("answer: the database", `(?i)\bpostgres(ql)?\b`),
			rx("answer: the poll interval", `500 ?ms`),
			rx("late decision: Liquibase, not Flyway", `(?i)liquibase`),
			lit("decision's reason: the other services", "other three services are on liquibase"),
			lit("constraint: Spring Boot", "don't bump spring boot"),
			lit("constraint: the pin", "pinned to 3.2.x"),
			lit("constraint: three replicas", "3 replicas"),
			lit("constraint: scope", "not in this ticket"),
			lit("file created: the changeset", "src/main/resources/db/changelog/changes/007-create-order-outbox.yaml"),
			lit("file created: the publisher", "src/main/java/com/acme/orders/outbox/OutboxPublisher.java"),
			rx("failed command, exit code", `(?i)OutboxPublisherTest[^\n]{0,160}(exit (code )?1\b|fail)`),
			lit("failure's error", "expected: <[1, 2, 3]> but was: <[1, 3, 2]>"),
			lit("decision", "order by the outbox id instead of created_at"),
			lit("subagent finding", "PaymentListener", "RefundService", "ShipmentNotifier"),
			lit("finding: the name is free on staging", "order_outbox is free on staging"),
			lit("next step", "FOR UPDATE SKIP LOCKED"),
		},
	}
	return sc
}

// blind6FirmwareDebug: an STM32 firmware build broken by a HAL bump
// (FW-93), debugged by a terse user in embedded C with CMake presets:
// a compile error, then a link error, then a host unit test (run piped to
// tail, so the client records exit 0) are fixed in turn; the fourth, the
// image overflowing its flash region, stays; the user rules out -Os and
// leaves an option waiting on a colleague; the compaction comes inside a
// turn, between a tool call and its result.
func blind6FirmwareDebug() scenario {
	bq := func(s string) string { return strings.ReplaceAll(s, "‹bq›", "`") }
	const cmakeLists = `cmake_minimum_required(VERSION 3.22)
project(sensor-board C ASM)

add_executable(sensor-board
    Core/Src/main.c
    Core/Src/sensors.c
    Core/Src/env.c
    Core/Src/ringbuf.c
    Core/Src/display.c
    Core/Startup/startup_stm32f411xe.s
)
target_include_directories(sensor-board PRIVATE Core/Inc lib/bme280 Drivers/STM32F4xx_HAL_Driver/Inc)
target_link_libraries(sensor-board PRIVATE stm32f4xx_hal)
target_link_options(sensor-board PRIVATE -T${CMAKE_SOURCE_DIR}/STM32F411CEUx_APP.ld -Wl,-Map=sensor-board.map -Wl,--print-memory-usage)
`
	const sensors = `#include "stm32f4xx_hal.h"
#include "sensors.h"

extern I2C_HandleTypeDef hi2c1;

HAL_StatusTypeDef sensors_read_reg(uint8_t addr, uint8_t reg, uint8_t *buf, uint16_t len)
{
    return HAL_I2C_Mem_Read_IT_Legacy(&hi2c1, addr << 1, reg, I2C_MEMADD_SIZE_8BIT, buf, len);
}
`
	const ringbuf = `#include "ringbuf.h"

bool ringbuf_pop(ringbuf_t *rb, uint8_t *out)
{
    if (rb->head == rb->tail) {
        *out = 0xFF;
        return true;
    }
    *out = rb->buf[rb->tail];
    rb->tail = (rb->tail + 1) % RINGBUF_SIZE;
    return true;
}
`
	cmake := bq(`#!/bin/sh
# stand-in for cmake in this firmware project: prints what the toolchain prints
case "$*" in
  "--preset stm32-release")
    cat <<'EOF'
Preset CMake variables:

  CMAKE_BUILD_TYPE="Release"
  CMAKE_TOOLCHAIN_FILE="/work/sensor-board/cmake/arm-gcc-toolchain.cmake"

-- The C compiler identification is GNU 13.2.1
-- The ASM compiler identification is GNU
-- Found assembler: /opt/gcc-arm-none-eabi-13.2/bin/arm-none-eabi-gcc
-- Detecting C compiler ABI info
-- Detecting C compiler ABI info - done
-- Check for working C compiler: /opt/gcc-arm-none-eabi-13.2/bin/arm-none-eabi-gcc - skipped
-- STM32CubeF4 HAL: 1.28.1 (Drivers/STM32F4xx_HAL_Driver)
-- Configuring done (0.4s)
-- Generating done (0.0s)
-- Build files have been written to: /work/sensor-board/build/stm32-release
EOF
    ;;
  "--build --preset stm32-release")
    if grep -q _Legacy Core/Src/sensors.c; then
      cat <<'EOF'
[1/9] Building C object CMakeFiles/sensor-board.dir/Core/Src/main.c.obj
[2/9] Building C object CMakeFiles/sensor-board.dir/Core/Src/sensors.c.obj
FAILED: CMakeFiles/sensor-board.dir/Core/Src/sensors.c.obj 
/opt/gcc-arm-none-eabi-13.2/bin/arm-none-eabi-gcc -DSTM32F411xE -DUSE_HAL_DRIVER -I/work/sensor-board/Core/Inc -I/work/sensor-board/lib/bme280 -I/work/sensor-board/Drivers/STM32F4xx_HAL_Driver/Inc -mcpu=cortex-m4 -mthumb -mfpu=fpv4-sp-d16 -mfloat-abi=hard -O2 -g3 -Wall -Wextra -Werror=implicit-function-declaration -ffunction-sections -fdata-sections -o CMakeFiles/sensor-board.dir/Core/Src/sensors.c.obj -c /work/sensor-board/Core/Src/sensors.c
/work/sensor-board/Core/Src/sensors.c: In function 'sensors_read_reg':
/work/sensor-board/Core/Src/sensors.c:8:12: error: implicit declaration of function 'HAL_I2C_Mem_Read_IT_Legacy'; did you mean 'HAL_I2C_Mem_Read_IT'? [-Werror=implicit-function-declaration]
    8 |     return HAL_I2C_Mem_Read_IT_Legacy(&hi2c1, addr << 1, reg, I2C_MEMADD_SIZE_8BIT, buf, len);
      |            ^~~~~~~~~~~~~~~~~~~~~~~~~~
      |            HAL_I2C_Mem_Read_IT
cc1: some warnings being treated as errors
ninja: build stopped: subcommand failed.
EOF
      exit 1
    fi
    if ! grep -q lib/bme280/bme280.c CMakeLists.txt; then
      cat <<'EOF'
[1/3] Building C object CMakeFiles/sensor-board.dir/Core/Src/sensors.c.obj
[2/3] Linking C executable sensor-board.elf
FAILED: sensor-board.elf 
: && /opt/gcc-arm-none-eabi-13.2/bin/arm-none-eabi-gcc -mcpu=cortex-m4 -mthumb -mfpu=fpv4-sp-d16 -mfloat-abi=hard -O2 -g3 --specs=nano.specs -u _printf_float -T/work/sensor-board/STM32F411CEUx_APP.ld -Wl,-Map=sensor-board.map -Wl,--print-memory-usage -Wl,--gc-sections CMakeFiles/sensor-board.dir/Core/Src/main.c.obj CMakeFiles/sensor-board.dir/Core/Src/sensors.c.obj CMakeFiles/sensor-board.dir/Core/Src/env.c.obj CMakeFiles/sensor-board.dir/Core/Src/ringbuf.c.obj CMakeFiles/sensor-board.dir/Core/Src/display.c.obj CMakeFiles/sensor-board.dir/Core/Startup/startup_stm32f411xe.s.obj -o sensor-board.elf  libstm32f4xx_hal.a && :
/opt/gcc-arm-none-eabi-13.2/bin/../lib/gcc/arm-none-eabi/13.2.1/../../../../arm-none-eabi/bin/ld: CMakeFiles/sensor-board.dir/Core/Src/env.c.obj: in function ‹bq›env_sample':
/work/sensor-board/Core/Src/env.c:77:(.text.env_sample+0x3c): undefined reference to ‹bq›bme280_compensate_humidity'
/opt/gcc-arm-none-eabi-13.2/bin/../lib/gcc/arm-none-eabi/13.2.1/../../../../arm-none-eabi/bin/ld: /work/sensor-board/Core/Src/env.c:78:(.text.env_sample+0x52): undefined reference to ‹bq›bme280_compensate_pressure'
collect2: error: ld returned 1 exit status
ninja: build stopped: subcommand failed.
EOF
      exit 1
    fi
    cat <<'EOF'
[1/4] Building C object CMakeFiles/sensor-board.dir/lib/bme280/bme280.c.obj
[2/4] Linking C executable sensor-board.elf
FAILED: sensor-board.elf 
/opt/gcc-arm-none-eabi-13.2/bin/../lib/gcc/arm-none-eabi/13.2.1/../../../../arm-none-eabi/bin/ld: sensor-board.elf section ‹bq›.text' will not fit in region ‹bq›FLASH'
/opt/gcc-arm-none-eabi-13.2/bin/../lib/gcc/arm-none-eabi/13.2.1/../../../../arm-none-eabi/bin/ld: region ‹bq›FLASH' overflowed by 1184 bytes
Memory region         Used Size  Region Size  %age Used
             RAM:       19704 B       128 KB     15.03%
           FLASH:      132256 B       128 KB    100.90%
collect2: error: ld returned 1 exit status
ninja: build stopped: subcommand failed.
EOF
    exit 1
    ;;
  *)
    echo "cmake stand-in: no script for: $*" >&2
    exit 64
    ;;
esac
`)
	ctest := `#!/bin/sh
# stand-in for ctest on the host unit tests
if grep -q 0xFF Core/Src/ringbuf.c; then
  case "$*" in
    *"-R test_ringbuf"*)
      cat <<'EOF'
Test project /work/sensor-board/build/host
    Start 2: test_ringbuf
1/1 Test #2: test_ringbuf .....................***Failed    0.01 sec
tests/test_ringbuf.c:57:test_pop_empty:FAIL: Expected FALSE Was TRUE
tests/test_ringbuf.c:66:test_pop_after_wrap:PASS
tests/test_ringbuf.c:74:test_push_full:PASS

-----------------------
3 Tests 1 Failures 0 Ignored
FAIL

0% tests passed, 1 tests failed out of 1

Total Test time (real) =   0.02 sec

The following tests FAILED:
	  2 - test_ringbuf (Failed)
Errors while running CTest
EOF
      exit 8
      ;;
  esac
  cat <<'EOF'
Test project /work/sensor-board/build/host
    Start 1: test_crc16
1/4 Test #1: test_crc16 .......................   Passed    0.01 sec
    Start 2: test_ringbuf
2/4 Test #2: test_ringbuf .....................***Failed    0.01 sec
    Start 3: test_sensor_scale
3/4 Test #3: test_sensor_scale ................   Passed    0.01 sec
    Start 4: test_cmd_parser
4/4 Test #4: test_cmd_parser ..................   Passed    0.02 sec

75% tests passed, 1 tests failed out of 4

Total Test time (real) =   0.06 sec

The following tests FAILED:
	  2 - test_ringbuf (Failed)
Errors while running CTest
EOF
  exit 8
fi
cat <<'EOF'
Test project /work/sensor-board/build/host
    Start 1: test_crc16
1/4 Test #1: test_crc16 .......................   Passed    0.01 sec
    Start 2: test_ringbuf
2/4 Test #2: test_ringbuf .....................   Passed    0.01 sec
    Start 3: test_sensor_scale
3/4 Test #3: test_sensor_scale ................   Passed    0.01 sec
    Start 4: test_cmd_parser
4/4 Test #4: test_cmd_parser ..................   Passed    0.02 sec

100% tests passed, 0 tests failed out of 4

Total Test time (real) =   0.05 sec
EOF
`
	nm := `#!/bin/sh
# stand-in for arm-none-eabi-nm over the firmware's object files
cat <<'EOF'
00000000 00002088 r font_12x24
00000000 00001024 r font_8x16
00000000 00000932 T display_draw_text
00000000 00000716 T sensors_poll
00000000 00000604 T env_sample
00000000 00000588 T cmd_dispatch
00000000 00000512 b rx_ring
00000000 00000448 T bme280_compensate_pressure
00000000 00000396 T display_init
00000000 00000352 T bme280_compensate_humidity
00000000 00000280 r cmd_table
00000000 00000212 T main
EOF
`
	sc := scenario{
		Name:        "blind6-firmware-three-fixed-one-left",
		Shape:       "held-out, blind6: embedded C, CMake presets, compile then link then host-test errors fixed in turn (the test piped to tail), flash overflow left; compaction inside a turn",
		Compactions: []string{"in-turn"},
		Files: map[string]string{
			"CMakeLists.txt":                cmakeLists,
			"CMakePresets.json":             `{"version": 6, "configurePresets": [{"name": "stm32-release", "binaryDir": "build/stm32-release", "toolchainFile": "cmake/arm-gcc-toolchain.cmake", "cacheVariables": {"CMAKE_BUILD_TYPE": "Release"}}, {"name": "host-tests", "binaryDir": "build/host"}], "buildPresets": [{"name": "stm32-release", "configurePreset": "stm32-release"}], "testPresets": [{"name": "host-tests", "configurePreset": "host-tests"}]}` + "\n",
			"cmake/arm-gcc-toolchain.cmake": "set(CMAKE_SYSTEM_NAME Generic)\nset(CMAKE_SYSTEM_PROCESSOR arm)\nset(CMAKE_C_COMPILER arm-none-eabi-gcc)\nset(CMAKE_C_FLAGS_INIT \"-mcpu=cortex-m4 -mthumb -mfpu=fpv4-sp-d16 -mfloat-abi=hard -ffunction-sections -fdata-sections\")\nset(CMAKE_C_FLAGS_RELEASE \"-O2 -g3\")\nset(CMAKE_EXE_LINKER_FLAGS_INIT \"--specs=nano.specs -u _printf_float -Wl,--gc-sections\")\n",
			"Core/Src/sensors.c":            sensors,
			"Core/Src/ringbuf.c":            ringbuf,
			"Core/Inc/board_config.h":       "#pragma once\n\n/* 0 off, 1 error, 2 info, 3 debug */\n#ifndef LOG_LEVEL\n#define LOG_LEVEL 3\n#endif\n\n#define SENSOR_POLL_MS 250\n#define DISPLAY_FONT_LARGE font_12x24\n",
			"lib/bme280/bme280.c":           "#include \"bme280.h\"\n\nuint32_t bme280_compensate_humidity(int32_t adc_h) { return (uint32_t)adc_h; }\nuint32_t bme280_compensate_pressure(int32_t adc_p) { return (uint32_t)adc_p; }\n",
			"Drivers/STM32F4xx_HAL_Driver/Inc/stm32f4xx_hal_i2c.h": "/* generated by STM32CubeMX, HAL 1.28.1: do not edit */\n",
		},
		Bins:           map[string]string{"cmake": cmake, "ctest": ctest, "arm-none-eabi-nm": nm},
		AllowedTools:   []string{"Bash(cmake:*)", "Bash(ctest:*)", "Bash(tail:*)", "Bash(arm-none-eabi-nm:*)", "Bash(head:*)", "Bash(grep:*)"},
		PermissionMode: "acceptEdits",
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			c := &blind6Ctx{n: 16000, step: 1600}
			before = []turn{
				{
					Prompt: "FW-93: release build broke after bumping the STM32CubeF4 HAL to 1.28. get it green. Drivers/ is cubemx-generated, don't edit it.",
					Replies: []fakeapi.Reply{
						reply("", c.next(), bash("toolu_b6f_configure", "cmake --preset stm32-release", "Configure the release preset")),
						reply("", c.next(), bash("toolu_b6f_build1", "cmake --build --preset stm32-release", "Build the firmware")),
						reply("", c.next(), read("toolu_b6f_read_sensors", p("Core/Src/sensors.c"))),
						reply("HAL 1.28 dropped HAL_I2C_Mem_Read_IT_Legacy; HAL_I2C_Mem_Read_IT takes the same arguments.", c.next(),
							edit("toolu_b6f_edit_sensors", p("Core/Src/sensors.c"), "HAL_I2C_Mem_Read_IT_Legacy(", "HAL_I2C_Mem_Read_IT(")),
						reply("", c.next(), bash("toolu_b6f_build2", "cmake --build --preset stm32-release", "Rebuild")),
						reply("", c.next(), read("toolu_b6f_read_cmake", p("CMakeLists.txt"))),
						reply("The link fails because lib/bme280/bme280.c was never compiled: the old HAL package used to pull it in. I'll add bme280.c to the firmware target's sources rather than building a separate static library, since it is the only file in lib/bme280.", c.next(),
							edit("toolu_b6f_edit_cmake", p("CMakeLists.txt"), "    Core/Src/display.c\n", "    Core/Src/display.c\n    lib/bme280/bme280.c\n")),
						reply("", c.next(), bash("toolu_b6f_build3", "cmake --build --preset stm32-release", "Rebuild")),
						reply("It compiles and links now, but the image no longer fits: region `FLASH' overflowed by 1184 bytes (132,256 B used of the 128 KB application slot).", c.next()),
					},
				},
				{
					Prompt: "run the host tests too",
					Replies: []fakeapi.Reply{
						reply("", c.next(), bash("toolu_b6f_ctest1", "ctest --preset host-tests 2>&1 | tail -15", "Run the host unit tests")),
						reply("The pipe hides ctest's exit status, but test_ringbuf failed (3 of 4 passed). Running it alone with its output:", c.next(),
							bash("toolu_b6f_ctest2", "ctest --preset host-tests --output-on-failure -R test_ringbuf", "Run the ringbuf test alone")),
						reply("", c.next(), read("toolu_b6f_read_ringbuf", p("Core/Src/ringbuf.c"))),
						reply("ringbuf_pop reports success on an empty buffer. I'll return false on an empty buffer instead of writing 0xFF, since every caller already checks the return value.", c.next(),
							edit("toolu_b6f_edit_ringbuf", p("Core/Src/ringbuf.c"), "        *out = 0xFF;\n        return true;\n", "        return false;\n")),
						reply("", c.next(), bash("toolu_b6f_ctest3", "ctest --preset host-tests", "Rerun the host unit tests")),
						reply("All 4 host tests pass now. The release build still overflows FLASH by 1184 bytes.", c.next()),
					},
				},
				{
					Prompt: "ok. flash: no -Os, the ADC ISR timing was tuned at -O2. what's eating it?",
					Replies: []fakeapi.Reply{
						reply("", c.next(), read("toolu_b6f_read_toolchain", p("cmake/arm-gcc-toolchain.cmake"))),
						reply("", c.next(), bash("toolu_b6f_nm", "arm-none-eabi-nm --size-sort -S -t d -r build/stm32-release/CMakeFiles/sensor-board.dir/Core/Src/*.obj | head -12", "Largest symbols in the firmware's objects")),
						reply("Biggest items: the font_12x24 table (2,088 bytes of .rodata) and, from the toolchain file, `-u _printf_float`, which links newlib's float printf (about 7 KB). Two ways to win back 1184 bytes without -Os:\n"+
							"A) drop -u _printf_float and print sensor values as fixed-point integers;\n"+
							"B) move font_12x24 to the external SPI flash and load it at boot.\nA is the smaller change. Which one?", c.next()),
					},
				},
				{
					Prompt: "A probably, but let me check with Priya first, she owns the display code. meanwhile: what's the LOG_LEVEL default in release?",
					Replies: []fakeapi.Reply{
						full("", bash("toolu_b6f_grep_log", `grep -rn "LOG_LEVEL" Core/Inc/board_config.h CMakePresets.json`, "Find the LOG_LEVEL default")),
						reply("LOG_LEVEL defaults to 3 (debug) in Core/Inc/board_config.h and the release preset doesn't override it.", 9000),
					},
				},
			}
			after = []turn{
				{Prompt: "set it to 1 for release", Replies: []fakeapi.Reply{reply("Will do in the preset.", 9800)}},
				{Prompt: "k", Replies: []fakeapi.Reply{reply("Done.", 10400)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "FW-93"),
			lit("constraint: Drivers/", "Drivers/ is cubemx-generated, don't edit it"),
			lit("constraint: no -Os", "no -Os"),
			lit("constraint's reason", "ADC ISR timing was tuned at -O2"),
			lit("first error: compile", "HAL_I2C_Mem_Read_IT_Legacy"),
			lit("file edited for the first error", "Core/Src/sensors.c"),
			lit("second error: link", "undefined reference to `bme280_compensate_humidity'"),
			lit("file edited for the second error", "CMakeLists.txt"),
			lit("decision", "bme280.c to the firmware target's sources rather than building a separate static library"),
			pipedFailed("piped command: host tests hid test_ringbuf's failure", `ctest --preset host-tests 2>&1 \| tail -15`,
				`(?i)test_ringbuf[^\n]{0,120}fail|fail[^\n]{0,120}test_ringbuf`),
			lit("file edited for the third error", "Core/Src/ringbuf.c"),
			lit("decision: the empty buffer", "return false on an empty buffer instead of writing 0xFF"),
			lit("still failing: flash overflow", "overflowed by 1184 bytes"),
			rx("failing command: the release build", `(?i)cmake --build --preset stm32-release[^\n]{0,160}(exit (code )?1\b|fail)`),
			lit("finding: the biggest table", "font_12x24"),
			lit("open question: the _printf_float option", "_printf_float"),
			lit("open thread: waiting on Priya", "Priya"),
		},
	}
	return sc
}
