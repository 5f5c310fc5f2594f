package e2e

import (
	"path/filepath"

	"github.com/cairn-agent/cairn/e2e/fakeapi"
)

// The recall bench's fifth blind set: four more held-out sessions, written
// without reading cairn's extraction, checkpoint, render or redaction code
// nor any other scenario's facts, only the bench's types and helpers and
// real transcripts. Their first run on main is the blind measurement; a
// check is corrected only where it could not have matched a faithful
// restore (and the correction is said in the report).
//
// Each is a stack no earlier scenario uses and a shape of its own:
//   - Elixir/Phoenix, a terse user, three automatic compactions one after
//     another in one long session, a decision the user takes back, a
//     one-word answer, a piped suite run that printed failures;
//   - Kotlin/Gradle, a chatty user, a compaction inside a turn (between an
//     Edit's result and the next request), a long piped test log;
//   - a Postgres performance investigation whose cause a foreground
//     subagent finds, answers given one word at a time, a manual /compact
//     with the user's instructions;
//   - Terraform and Kubernetes, a user who writes lists, secrets in a
//     prompt and in kubectl's output, an error left unresolved.
//
// Secrets of five kinds are planted: a Stripe key in a prompt and in a
// file the agent writes, an Artifactory key in a file the agent reads, a
// database password in a subagent's command argument, a Slack webhook in
// a prompt, a database password in a command's output.
//
// They run only in the report (TestRecallReport) and are marked
// "held-out, blind5" in its shape column.

// blind5Scenarios are the fifth blind set the recall report runs.
func blind5Scenarios() []scenario {
	return []scenario{
		blind5PhoenixThree(),
		blind5GradleInTurn(),
		blind5PostgresSubagent(),
		blind5TerraformK8s(),
	}
}

// b5StripeKey is the Stripe test key the Phoenix user pastes.
const b5StripeKey = "sk_test_51PzQ8vLk2Hn7Rt4Xw9Ys3Bd6Fg1Jm5Kp0Ca8Ue2Vi7Oz4Nl3Tq9Wr6Sx1Yb5Dh8Mc2Gf0"

// blind5PhoenixThree is a long Phoenix session by a terse user, compacted
// automatically three times. Before the first compaction: a LiveView crash
// on an empty cart fixed with Enum.max_by/4, a Stripe key put into a
// gitignored config file, and a question answered with one word. Before
// the second: a PubSub notifier whose registry was missing, a per-user
// topic the user takes back, TodoWrite items. Before the third: a piped
// full-suite run with two failures the user leaves to a colleague, and a
// credo failure fixed, then an unrelated question last.
func blind5PhoenixThree() scenario {
	mix := `#!/bin/sh
# stand-in for mix: prints what this session needs
case "$*" in
  "test test/shop_web/live/checkout_live_test.exs")
    if grep -q 'fn -> nil end' lib/shop_web/live/checkout_live.ex; then
      echo "Running ExUnit with seed: 401822, max_cases: 16"
      echo
      echo "..............."
      echo "Finished in 0.4 seconds (0.00s async, 0.4s sync)"
      echo "15 tests, 0 failures"
      exit 0
    fi
    cat <<'EOF'
Running ExUnit with seed: 401822, max_cases: 16

.......

  1) test mount with an empty cart renders the empty state (ShopWeb.CheckoutLiveTest)
     test/shop_web/live/checkout_live_test.exs:31
     ** (Enum.EmptyError) empty error
     stacktrace:
       (elixir 1.17.3) lib/enum.ex:1835: Enum.max_by/4
       (shop 0.1.0) lib/shop_web/live/checkout_live.ex:9: ShopWeb.CheckoutLive.mount/3
       (phoenix_live_view 1.0.1) lib/phoenix_live_view/utils.ex:348: anonymous fn/6 in Phoenix.LiveView.Utils.maybe_call_live_view_mount!/5
       (phoenix_live_view 1.0.1) lib/phoenix_live_view/static.ex:321: Phoenix.LiveView.Static.call_mount_and_handle_params!/5
       test/shop_web/live/checkout_live_test.exs:33: (test)

.......
Finished in 0.4 seconds (0.00s async, 0.4s sync)
15 tests, 1 failure
EOF
    exit 2;;
  "test test/shop/orders/notifier_test.exs")
    if grep -q 'Shop.PubSub' lib/shop/application.ex; then
      echo "Running ExUnit with seed: 77310, max_cases: 16"
      echo
      echo "..."
      echo "Finished in 0.1 seconds (0.1s async, 0.00s sync)"
      echo "3 tests, 0 failures"
      exit 0
    fi
    cat <<'EOF'
Running ExUnit with seed: 77310, max_cases: 16



  1) test order_paid/1 broadcasts the paid order (Shop.Orders.NotifierTest)
     test/shop/orders/notifier_test.exs:12
     ** (ArgumentError) unknown registry: Shop.PubSub
     stacktrace:
       (elixir 1.17.3) lib/registry.ex:1400: Registry.key_info!/1
       (elixir 1.17.3) lib/registry.ex:590: Registry.register/3
       (phoenix_pubsub 2.1.3) lib/phoenix/pubsub.ex:117: Phoenix.PubSub.subscribe/3
       test/shop/orders/notifier_test.exs:13: (test)

..
Finished in 0.1 seconds (0.1s async, 0.00s sync)
3 tests, 1 failure
EOF
    exit 2;;
  "test")
    echo "Running ExUnit with seed: 90211, max_cases: 16"
    echo
    for i in 1 2 3 4 5 6; do echo "..................................."; done
    cat <<'EOF'

  1) test refund twice returns the same refund (Shop.RefundsTest)
     test/shop/refunds_test.exs:88
     ** (MatchError) no match of right hand side value: {:error, :already_refunded}
     code: {:ok, second} = Refunds.refund(order, amount: 500)
     stacktrace:
       test/shop/refunds_test.exs:92: (test)

...................................

  2) test partial refunds add up to the order total (Shop.RefundsTest)
     test/shop/refunds_test.exs:112
     ** (MatchError) no match of right hand side value: {:error, :already_refunded}
     code: {:ok, _} = Refunds.refund(order, amount: 250)
     stacktrace:
       test/shop/refunds_test.exs:118: (test)

......................................
Finished in 12.1 seconds (3.2s async, 8.9s sync)
212 tests, 2 failures

Randomized with seed 90211
EOF
    exit 2;;
  "test test/shop/refunds_test.exs --seed 0")
    cat <<'EOF'
Running ExUnit with seed: 0, max_cases: 16

..

  1) test refund twice returns the same refund (Shop.RefundsTest)
     test/shop/refunds_test.exs:88
     ** (MatchError) no match of right hand side value: {:error, :already_refunded}

  2) test partial refunds add up to the order total (Shop.RefundsTest)
     test/shop/refunds_test.exs:112
     ** (MatchError) no match of right hand side value: {:error, :already_refunded}

Finished in 0.9 seconds (0.00s async, 0.9s sync)
9 tests, 2 failures
EOF
    exit 2;;
  "credo --strict")
    echo "Checking 84 source files ..."
    echo
    if grep -q '@moduledoc' lib/shop/orders/notifier.ex; then
      echo "Analysis took 0.7 seconds (0.04s to load, 0.6s running 55 checks on 84 files)"
      echo "331 mods/funs, found no issues."
      exit 0
    fi
    cat <<'EOF'
  Code Readability
┃
┃ [R] → Modules should have a @moduledoc tag.
┃       lib/shop/orders/notifier.ex:1:11 #(Shop.Orders.Notifier)

Analysis took 0.7 seconds (0.04s to load, 0.6s running 55 checks on 84 files)
331 mods/funs, found 1 code readability issue.
EOF
    exit 4;;
  "format")
    exit 0;;
  "phx.routes")
    cat <<'EOF'
  GET     /                      ShopWeb.PageController :home
  GET     /products              ShopWeb.ProductLive.Index :index
  GET     /products/:id          ShopWeb.ProductLive.Show :show
  GET     /checkout              ShopWeb.CheckoutLive :index
  POST    /checkout/confirm      ShopWeb.CheckoutController :confirm
  GET     /checkout/done         ShopWeb.CheckoutController :done
  GET     /ops/orders            ShopWeb.Ops.OrdersLive :index
  GET     /dev/dashboard         Phoenix.LiveDashboard.PageLive :home
EOF
    exit 0;;
esac
echo "** (Mix) The task \"$1\" could not be found" >&2
exit 1
`
	checkoutLive := `defmodule ShopWeb.CheckoutLive do
  use ShopWeb, :live_view

  alias Shop.Carts

  @impl true
  def mount(_params, %{"cart_id" => cart_id}, socket) do
    cart = Carts.get_cart!(cart_id)
    heaviest = Enum.max_by(cart.lines, & &1.weight_grams)

    {:ok,
     socket
     |> assign(:cart, cart)
     |> assign(:shipping_class, shipping_class(heaviest))}
  end

  defp shipping_class(nil), do: :none
  defp shipping_class(%{weight_grams: g}) when g > 20_000, do: :freight
  defp shipping_class(_line), do: :parcel
end
`
	shipping := `defmodule ShopWeb.Components.Shipping do
  use Phoenix.Component

  attr :days, :integer, required: true
  attr :digital, :boolean, default: false

  def estimate(assigns) do
    ~H"""
    <span class="shipping-estimate">Arrives in <%= @days %> days</span>
    """
  end
end
`
	application := `defmodule Shop.Application do
  @moduledoc false
  use Application

  @impl true
  def start(_type, _args) do
    children = [
      ShopWeb.Telemetry,
      Shop.Repo,
      {Finch, name: Shop.Finch},
      ShopWeb.Endpoint
    ]

    Supervisor.start_link(children, strategy: :one_for_one, name: Shop.Supervisor)
  end
end
`
	notifier := `defmodule Shop.Orders.Notifier do
  alias Phoenix.PubSub

  def order_paid(%{id: id, user_id: user_id} = order) do
    PubSub.broadcast(Shop.PubSub, "orders:user:#{user_id}", {:order_paid, id, order.total_cents})
  end
end
`
	sc := scenario{
		Name:        "blind5-phoenix-three",
		Shape:       "held-out, blind5: Elixir/Phoenix, terse user, LiveView crash fixed, one-word answer, per-user topic taken back, TodoWrite, piped suite with 2 failures left to a colleague, credo fail then pass, Stripe key in a prompt and a written file; auto, auto, auto",
		Compactions: []string{"auto", "auto", "auto"},
		Files: map[string]string{
			"mix.exs":                             "defmodule Shop.MixProject do\n  use Mix.Project\n\n  def project, do: [app: :shop, version: \"0.1.0\", elixir: \"~> 1.17\"]\nend\n",
			".gitignore":                          "/_build/\n/deps/\n/config/dev.secret.exs\n",
			"CHANGELOG.md":                        "# Changelog\n\n## Unreleased\n\n- Order history page paginates by 25.\n",
			"lib/shop_web/live/checkout_live.ex":  checkoutLive,
			"lib/shop_web/components/shipping.ex": shipping,
			"lib/shop/application.ex":             application,
			"priv/repo/migrations/20261101093000_create_orders.exs": "defmodule Shop.Repo.Migrations.CreateOrders do\n  use Ecto.Migration\n\n  def change do\n    create table(:orders) do\n      add :user_id, :bigint\n      add :total_cents, :integer\n      timestamps()\n    end\n  end\nend\n",
			"test/shop_web/live/checkout_live_test.exs":             "defmodule ShopWeb.CheckoutLiveTest do\n  use ShopWeb.ConnCase\nend\n",
			"test/shop/orders/notifier_test.exs":                    "defmodule Shop.Orders.NotifierTest do\n  use Shop.DataCase\nend\n",
			"test/shop/refunds_test.exs":                            "defmodule Shop.RefundsTest do\n  use Shop.DataCase\nend\n",
		},
		Bins:           map[string]string{"mix": mix},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "CLAUDE_CODE_ENABLE_TASKS=0"},
		AllowedTools:   []string{"Bash"},
		PermissionMode: "acceptEdits",
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			before = []turn{
				{
					Prompt: "SHOP-2207. checkout liveview crashes on an empty cart, repro is test/shop_web/live/checkout_live_test.exs. don't touch priv/repo/migrations. mix format before any commit.",
					Replies: []fakeapi.Reply{
						reply("", 18000, read("toolu_b5px_read_live", p("lib/shop_web/live/checkout_live.ex"))),
						reply("", 19500, bash("toolu_b5px_test_1", "mix test test/shop_web/live/checkout_live_test.exs", "Run the checkout LiveView tests")),
						reply("Enum.max_by/2 raises Enum.EmptyError when cart.lines is empty. I'll use Enum.max_by/4 with an empty fallback (fn -> nil end) instead of guarding in mount, so the template keeps one code path; shipping_class(nil) already returns :none.", 21000,
							edit("toolu_b5px_edit_live", p("lib/shop_web/live/checkout_live.ex"),
								"heaviest = Enum.max_by(cart.lines, & &1.weight_grams)",
								"heaviest = Enum.max_by(cart.lines, & &1.weight_grams, &>=/2, fn -> nil end)")),
						reply("", 22000, bash("toolu_b5px_test_2", "mix test test/shop_web/live/checkout_live_test.exs", "Re-run the checkout LiveView tests")),
						reply("15 tests, 0 failures. An empty cart renders the empty state now.", 22500),
					},
				},
				{
					Prompt: "ok. two more\n1) local checkout needs the stripe test key, put it in config/dev.secret.exs (gitignored): " + b5StripeKey + "\n2) shipping estimate says \"Arrives in 0 days\" for digital stuff. should say instant",
					Replies: []fakeapi.Reply{
						reply("", 24000, write("toolu_b5px_write_secret", p("config/dev.secret.exs"), "import Config\n\nconfig :stripity_stripe, api_key: \""+b5StripeKey+"\"\n")),
						reply("", 25000, read("toolu_b5px_read_ship", p("lib/shop_web/components/shipping.ex"))),
						reply("", 26000, edit("toolu_b5px_edit_ship", p("lib/shop_web/components/shipping.ex"),
							`    <span class="shipping-estimate">Arrives in <%= @days %> days</span>`,
							"    <span :if={@digital} class=\"shipping-estimate\">Instant download</span>\n    <span :if={!@digital} class=\"shipping-estimate\">Arrives in <%= @days %> days</span>")),
						reply("The key is in config/dev.secret.exs (already in .gitignore), and the estimate says \"Instant download\" when @digital is set. Before I derive @digital from the product: do bundles that contain a physical item count as digital?", 27000),
					},
				},
				{
					Prompt:  "no",
					Replies: []fakeapi.Reply{reply("Got it: a bundle with any physical item ships as physical; only all-digital bundles get the instant label.", 28000)},
				},
				{
					Prompt: "is the empty cart fix in the changelog",
					Replies: []fakeapi.Reply{
						reply("", 29000, read("toolu_b5px_read_cl", p("CHANGELOG.md"))),
						reply("", 30000, edit("toolu_b5px_edit_cl", p("CHANGELOG.md"), "## Unreleased\n\n", "## Unreleased\n\n- Checkout no longer crashes on an empty cart (SHOP-2207).\n")),
						full("Added under Unreleased."),
					},
				},
				// Compaction 1.
				{
					Prompt: "next. broadcast when an order is paid, for the ops dashboard liveview. Phoenix.PubSub.",
					Replies: []fakeapi.Reply{
						reply("", 9000, write("toolu_b5px_write_notifier", p("lib/shop/orders/notifier.ex"), notifier)),
						reply("", 10500, bash("toolu_b5px_notifier_1", "mix test test/shop/orders/notifier_test.exs", "Run the notifier tests")),
						reply("", 11500, read("toolu_b5px_read_app", p("lib/shop/application.ex"))),
						reply("Shop.PubSub was never started: the supervision tree has no PubSub child. Adding {Phoenix.PubSub, name: Shop.PubSub} to lib/shop/application.ex.", 12500,
							edit("toolu_b5px_edit_app", p("lib/shop/application.ex"), "      Shop.Repo,\n", "      Shop.Repo,\n      {Phoenix.PubSub, name: Shop.PubSub},\n")),
						reply("", 13500, bash("toolu_b5px_notifier_2", "mix test test/shop/orders/notifier_test.exs", "Re-run the notifier tests")),
						reply("", 14000, todoWrite("toolu_b5px_todo",
							[2]string{"Broadcast paid orders over Phoenix.PubSub", "completed"},
							[2]string{"Add a telemetry event for failed broadcasts", "pending"},
							[2]string{"Backfill paid_at for legacy orders", "pending"})),
						reply("Broadcasting works. I went with a topic per user, \"orders:user:#{user_id}\", rather than one global topic, so a LiveView only receives its own user's orders.", 14500),
					},
				},
				{
					Prompt: "actually no per-user topics. ops wants one firehose topic orders:paid for the dashboard, it filters itself. change it",
					Replies: []fakeapi.Reply{
						reply("", 15500, read("toolu_b5px_read_notifier", p("lib/shop/orders/notifier.ex"))),
						reply("", 16500, edit("toolu_b5px_edit_topic", p("lib/shop/orders/notifier.ex"),
							`PubSub.broadcast(Shop.PubSub, "orders:user:#{user_id}", {:order_paid, id, order.total_cents})`,
							`PubSub.broadcast(Shop.PubSub, "orders:paid", {:order_paid, id, user_id, order.total_cents})`)),
						reply("Switched to the single topic \"orders:paid\"; the message now carries user_id so the dashboard can filter in handle_info.", 17000),
					},
				},
				{
					Prompt: "commit",
					Replies: []fakeapi.Reply{
						reply("", 18000, bash("toolu_b5px_commit", "mix format && git add -A && git commit -qm 'SHOP-2207: empty cart, instant label, paid-order broadcast' && git log --oneline -1", "Format and commit")),
						full("Committed."),
					},
				},
				// Compaction 2.
				{
					Prompt: "run the whole suite",
					Replies: []fakeapi.Reply{
						reply("", 9500, bash("toolu_b5px_suite", "mix test 2>&1 | tail -25", "Run the full test suite")),
						reply("2 failures, both in test/shop/refunds_test.exs (MatchError on {:error, :already_refunded}). Checking whether they depend on test order:", 10500,
							bash("toolu_b5px_refunds", "mix test test/shop/refunds_test.exs --seed 0", "Run the refunds tests alone")),
						reply("They fail alone too, so they are not order-dependent and not from today's changes: refunds_test.exs:88 and :112 both expect a second refund of the same order to succeed.", 11000),
					},
				},
				{
					Prompt: "leave refunds alone, that's Priya's area, she's on it. fix the credo stuff instead",
					Replies: []fakeapi.Reply{
						reply("", 12000, bash("toolu_b5px_credo_1", "mix credo --strict", "Run credo")),
						reply("", 12500, read("toolu_b5px_read_notifier_2", p("lib/shop/orders/notifier.ex"))),
						reply("", 13000, edit("toolu_b5px_edit_doc", p("lib/shop/orders/notifier.ex"),
							"defmodule Shop.Orders.Notifier do\n",
							"defmodule Shop.Orders.Notifier do\n  @moduledoc \"Broadcasts order events on Shop.PubSub.\"\n\n")),
						reply("", 13500, bash("toolu_b5px_credo_2", "mix credo --strict", "Run credo again")),
						reply("Added the @moduledoc credo asked for on Shop.Orders.Notifier; mix credo --strict finds no issues now.", 14000),
					},
				},
				{
					Prompt: "what are the checkout routes again",
					Replies: []fakeapi.Reply{
						reply("", 15000, bash("toolu_b5px_routes", "mix phx.routes | grep -i checkout", "List the checkout routes")),
						full("Three: GET /checkout (CheckoutLive), POST /checkout/confirm and GET /checkout/done."),
					},
				},
				// Compaction 3.
				{Prompt: "ok where are we", Replies: []fakeapi.Reply{reply("Picking up from the notes above.", 9000)}},
			}
			after = []turn{
				{Prompt: "k", Replies: []fakeapi.Reply{reply("On it.", 9500)}},
			}
			return before, after
		},
		Facts: []fact{
			// Before compaction 1.
			lit("ticket", "SHOP-2207"),
			lit("constraint: migrations", "don't touch priv/repo/migrations"),
			lit("constraint: mix format", "mix format before any commit"),
			lit("failed command: the crash", "Enum.EmptyError"),
			rx("failure fixed: checkout test", `(?i)checkout_live_test\.exs[^\n]{0,160}(pass|fixed|resolved|0 failures|green|exit (code )?0|succeeded)|(fixed|resolved)[^\n]{0,60}checkout_live_test`),
			lit("file edited: the LiveView", "lib/shop_web/live/checkout_live.ex"),
			lit("decision: max_by/4", "Enum.max_by/4 with an empty fallback"),
			lit("decision's reason: one code path", "template keeps one code path"),
			lit("file edited: shipping component", "lib/shop_web/components/shipping.ex"),
			rx("answer: bundles with a physical item", `(?i)bundles? with (any|a) physical item[^\n]{0,40}physical|bundles?[^\n]{0,80}(not|aren't|are not|don't count as|do not count as) digital`),
			// Before compaction 2.
			lit("file created: notifier", "lib/shop/orders/notifier.ex").from(2),
			rx("failure fixed: PubSub registry", `Shop\.PubSub`, `(?i)(lib/shop/application\.ex|unknown registry)`).from(2),
			rx("decision taken back: one topic orders:paid", `orders:paid`).from(2),
			lit("open todo 1", "Add a telemetry event for failed broadcasts").from(2),
			lit("open todo 2", "Backfill paid_at for legacy orders").from(2),
			// Before compaction 3.
			pipedFailed("piped command: full suite failed", `mix test 2>&1 \| tail -25`,
				`(?i)mix test 2>&1 \| tail -25[^\n]{0,200}(fail|2 failures)|212 tests, 2 failures`).from(3),
			lit("constraint: refunds are Priya's", "leave refunds alone").from(3),
			rx("failed command, exit code: credo", `(?i)mix credo --strict[^\n]{0,120}exit (code )?4`).from(3),
		},
		Secrets: []secret{{"Stripe secret key (prompt, written file)", b5StripeKey}},
	}
	return sc
}

// b5ArtifactoryKey is the Artifactory API key in the Gradle project's
// gradle.properties, which the agent reads.
const b5ArtifactoryKey = "AKCp8jQ4Rb7nT2vXs9LmK3wEzY6hP1dF5gU0cVbN8aM2oI4kJ7tR3yWq6eS9uZ1xC5vB"

// blind5GradleInTurn bumps Kotlin in a Gradle multi-module build for a
// chatty user: a compile error fixed with a custom serializer (the reason
// is another module's Json), a long piped test log hiding a failure, an
// item the user defers, and the context filling up inside a turn: the
// client compacts between the Edit's result and the request carrying it.
func blind5GradleInTurn() scenario {
	gradlew := `#!/bin/sh
# stand-in for the Gradle wrapper: prints what this session needs
case "$*" in
  ":billing-core:compileKotlin")
    echo "Starting a Gradle Daemon (subsequent builds will be faster)"
    echo "> Task :buildSrc:compileKotlin UP-TO-DATE"
    echo "> Task :buildSrc:jar UP-TO-DATE"
    echo "> Task :billing-core:checkKotlinGradlePluginConfigurationErrors"
    echo "> Task :billing-core:processResources NO-SOURCE"
    if grep -q CurrencyAsCodeSerializer billing-core/src/main/kotlin/billing/core/Money.kt; then
      echo "> Task :billing-core:compileKotlin"
      echo
      echo "BUILD SUCCESSFUL in 41s"
      echo "5 actionable tasks: 2 executed, 3 up-to-date"
      exit 0
    fi
    echo "> Task :billing-core:compileKotlin FAILED"
    cat >&2 <<'EOF'
e: file:///home/dev/billing-api/billing-core/src/main/kotlin/billing/core/Money.kt:12:5 Serializer for class 'Currency' is not found.
Please ensure that class is marked as '@Serializable' and that the serialization compiler plugin is applied.

FAILURE: Build failed with an exception.

* What went wrong:
Execution failed for task ':billing-core:compileKotlin'.
> A failure occurred while executing org.jetbrains.kotlin.compilerRunner.GradleCompilerRunnerWithWorkers$GradleKotlinCompilerWorkAction
   > Compilation error. See log for more details

* Try:
> Run with --stacktrace option to get the stack trace.
> Run with --info or --debug option to get more log output.
> Run with --scan to get full insights.
> Get more help at https://help.gradle.org.

BUILD FAILED in 38s
5 actionable tasks: 2 executed, 3 up-to-date
EOF
    exit 1;;
  "test --continue")
    for m in buildSrc billing-core billing-ledger billing-api; do
      echo "> Task :$m:compileKotlin"
      echo "> Task :$m:compileJava NO-SOURCE"
      echo "> Task :$m:classes"
      echo "> Task :$m:compileTestKotlin"
      echo "> Task :$m:testClasses"
      echo "> Task :$m:test"
    done
    cat <<'EOF'
> Task :billing-events:compileKotlin
> Task :billing-events:compileJava NO-SOURCE
> Task :billing-events:classes
> Task :billing-events:compileTestKotlin
> Task :billing-events:testClasses

> Task :billing-events:test FAILED

PaymentEventJsonTest > encodes refund without null fields() FAILED
    org.opentest4j.AssertionFailedError: expected: <{"id":"r_1","amount":500}> but was: <{"id":"r_1","amount":500,"reason":null}>
        at app//org.junit.jupiter.api.AssertionFailureBuilder.build(AssertionFailureBuilder.java:151)
        at app//org.junit.jupiter.api.AssertionEquals.failNotEqual(AssertionEquals.java:197)
        at app//billing.events.PaymentEventJsonTest.encodes refund without null fields(PaymentEventJsonTest.kt:27)

142 tests completed, 1 failed

FAILURE: Build failed with an exception.

* What went wrong:
Execution failed for task ':billing-events:test'.
> There were failing tests. See the report at: file:///home/dev/billing-api/billing-events/build/reports/tests/test/index.html

* Try:
> Run with --scan to get full insights.

BUILD FAILED in 1m 12s
31 actionable tasks: 24 executed, 7 up-to-date
EOF
    exit 1;;
  ":billing-events:test")
    if grep -q 'explicitNulls = false' billing-events/src/main/kotlin/billing/events/EventJson.kt; then
      echo "> Task :billing-events:compileKotlin"
      echo "> Task :billing-events:test"
      echo
      echo "BUILD SUCCESSFUL in 19s"
      echo "9 actionable tasks: 3 executed, 6 up-to-date"
      exit 0
    fi
    echo "PaymentEventJsonTest > encodes refund without null fields() FAILED" >&2
    exit 1;;
esac
echo "FAILURE: Task '$1' not found in root project 'billing-api'." >&2
exit 1
`
	catalog := `[versions]
kotlin = "1.9.24"
kotlinx-serialization = "1.6.3"
ktor = "2.3.12"
junit = "5.10.3"

[plugins]
kotlin-jvm = { id = "org.jetbrains.kotlin.jvm", version.ref = "kotlin" }
kotlin-serialization = { id = "org.jetbrains.kotlin.plugin.serialization", version.ref = "kotlin" }

[libraries]
kotlinx-serialization-json = { module = "org.jetbrains.kotlinx:kotlinx-serialization-json", version.ref = "kotlinx-serialization" }
ktor-server-core = { module = "io.ktor:ktor-server-core", version.ref = "ktor" }
junit-jupiter = { module = "org.junit.jupiter:junit-jupiter", version.ref = "junit" }
`
	money := `package billing.core

import kotlinx.serialization.Contextual
import kotlinx.serialization.Serializable
import java.math.BigDecimal
import java.util.Currency

@Serializable
data class Money(
    @Contextual val amount: BigDecimal,
    @Contextual
    val currency: Currency,
)
`
	serializer := `package billing.core

import kotlinx.serialization.KSerializer
import kotlinx.serialization.descriptors.PrimitiveKind
import kotlinx.serialization.descriptors.PrimitiveSerialDescriptor
import kotlinx.serialization.encoding.Decoder
import kotlinx.serialization.encoding.Encoder
import java.util.Currency

/** Writes a [Currency] as its ISO 4217 code ("EUR"). */
object CurrencyAsCodeSerializer : KSerializer<Currency> {
    override val descriptor = PrimitiveSerialDescriptor("billing.core.Currency", PrimitiveKind.STRING)

    override fun serialize(encoder: Encoder, value: Currency) = encoder.encodeString(value.currencyCode)

    override fun deserialize(decoder: Decoder): Currency = Currency.getInstance(decoder.decodeString())
}
`
	eventJSON := `package billing.events

import kotlinx.serialization.json.Json

/** The Json every producer in billing-events encodes with. */
val EventJson = Json {
    encodeDefaults = true
    ignoreUnknownKeys = true
}
`
	eventTest := `package billing.events

import kotlin.test.assertEquals
import kotlinx.serialization.encodeToString
import org.junit.jupiter.api.Test

class PaymentEventJsonTest {
    @Test
    fun ` + "`encodes refund without null fields`" + `() {
        val refund = PaymentEvent.Refund(id = "r_1", amount = 500, reason = null)
        assertEquals("""{"id":"r_1","amount":500}""", EventJson.encodeToString(refund))
    }
}
`
	sc := scenario{
		Name:        "blind5-gradle-in-turn",
		Shape:       "held-out, blind5: Kotlin/Gradle version bump, chatty user, compile error fixed with a serializer, long piped test log hiding a failure, deferred item, Artifactory key in a file read; compaction inside a turn",
		Compactions: []string{"in-turn"},
		Files: map[string]string{
			"gradlew":                   gradlew,
			"settings.gradle.kts":       "rootProject.name = \"billing-api\"\ninclude(\"billing-core\", \"billing-ledger\", \"billing-events\", \"billing-api\")\n",
			"gradle/libs.versions.toml": catalog,
			"gradle.properties":         "org.gradle.jvmargs=-Xmx3g -Dfile.encoding=UTF-8\norg.gradle.caching=true\nkotlin.code.style=official\nartifactoryUser=svc-billing-ci\nartifactoryPassword=" + b5ArtifactoryKey + "\n",
			"buildSrc/src/main/kotlin/billing.kotlin-conventions.gradle.kts":        "plugins { kotlin(\"jvm\") }\n\nkotlin { jvmToolchain(17) }\n",
			"billing-core/src/main/kotlin/billing/core/Money.kt":                    money,
			"billing-events/src/main/kotlin/billing/events/EventJson.kt":            eventJSON,
			"billing-events/src/test/kotlin/billing/events/PaymentEventJsonTest.kt": eventTest,
		},
		AllowedTools:   []string{"Bash"},
		PermissionMode: "acceptEdits",
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			before = []turn{
				{
					Prompt: "hiya! so we're finally doing PLAT-914, the bump from Kotlin 1.9.24 to 2.1.0 in billing-api. I tried it myself on friday and :billing-core wouldn't even compile, something about a serializer, and then I got pulled into a meeting and never came back to it 🙃 please please don't touch the buildSrc convention plugins, the platform team owns those and they get grumpy. oh and we're stuck on JDK 17 on CI so nothing that needs 21.",
					Replies: []fakeapi.Reply{
						reply("Let me look at the version catalog and the build properties first.", 21000, read("toolu_b5gr_read_toml", p("gradle/libs.versions.toml"))),
						reply("", 22000, read("toolu_b5gr_read_props", p("gradle.properties"))),
						reply("Nothing in gradle.properties pins Kotlin, so the catalog is the only place. Bumping kotlin to 2.1.0 and kotlinx-serialization to 1.7.3, which the 2.1 serialization plugin expects.", 23000,
							edit("toolu_b5gr_edit_toml", p("gradle/libs.versions.toml"), "kotlin = \"1.9.24\"\nkotlinx-serialization = \"1.6.3\"", "kotlin = \"2.1.0\"\nkotlinx-serialization = \"1.7.3\"")),
						reply("", 24000, bash("toolu_b5gr_compile_1", "./gradlew :billing-core:compileKotlin", "Compile billing-core")),
						reply("That's your serializer error: the 2.x plugin no longer falls back to a contextual serializer for java.util.Currency here. I'll write a CurrencyAsCodeSerializer and annotate the field with @Serializable(with = CurrencyAsCodeSerializer::class) rather than registering it contextually in a SerializersModule, because Money is also decoded by the Kafka consumer, which builds its own Json instance without our module.", 25500,
							write("toolu_b5gr_write_ser", p("billing-core/src/main/kotlin/billing/core/CurrencySerializer.kt"), serializer)),
						reply("", 26000, read("toolu_b5gr_read_money", p("billing-core/src/main/kotlin/billing/core/Money.kt"))),
						reply("", 26500, edit("toolu_b5gr_edit_money", p("billing-core/src/main/kotlin/billing/core/Money.kt"),
							"    @Contextual\n    val currency: Currency,", "    @Serializable(with = CurrencyAsCodeSerializer::class)\n    val currency: Currency,")),
						reply("", 27000, bash("toolu_b5gr_compile_2", "./gradlew :billing-core:compileKotlin", "Compile billing-core again")),
						reply("billing-core compiles on 2.1.0 now.", 27500),
					},
				},
				{
					Prompt: "amazing, thank you!! ok now the whole test suite please, all modules, and don't stop at the first red one, I want to see everything",
					Replies: []fakeapi.Reply{
						reply("", 30000, bash("toolu_b5gr_tests", "./gradlew test --continue 2>&1 | tail -40", "Run every module's tests")),
						reply("Everything compiles; one test fails: PaymentEventJsonTest > encodes refund without null fields() in :billing-events. The JSON now carries \"reason\":null where the field used to be left out.", 31000),
					},
				},
				{
					Prompt: "ugh, that one, I had a feeling. ok fix it. and random thing while I remember: once this is merged the detekt baseline needs regenerating, not now though, I'll ping you",
					Replies: []fakeapi.Reply{
						reply("Noted on the detekt baseline: after the merge, not now.", 32000, read("toolu_b5gr_read_json", p("billing-events/src/main/kotlin/billing/events/EventJson.kt"))),
						reply("EventJson sets encodeDefaults = true, and with serialization 1.7 that writes null defaults too. I'll set explicitNulls = false in EventJson rather than annotating every nullable field, since the consumers treat a missing field and null the same. Checking the test's expectation first.", 33000,
							read("toolu_b5gr_read_test", p("billing-events/src/test/kotlin/billing/events/PaymentEventJsonTest.kt"))),
						// The context fills here: the client runs the Edit,
						// compacts, then sends its result.
						full("", edit("toolu_b5gr_edit_json", p("billing-events/src/main/kotlin/billing/events/EventJson.kt"),
							"    encodeDefaults = true\n", "    encodeDefaults = true\n    explicitNulls = false\n")),
						{Text: "", Tools: []fakeapi.ToolUse{bash("toolu_b5gr_events_test", "./gradlew :billing-events:test", "Run the billing-events tests")},
							Usage: usageAt(9000), ToolResultFor: "toolu_b5gr_edit_json"},
						reply("PaymentEventJsonTest passes; :billing-events is green.", 9500),
					},
				},
			}
			after = []turn{
				{Prompt: "yay. anything else on your side?", Replies: []fakeapi.Reply{reply("Nothing blocking; the branch is ready for review.", 10000)}},
				{Prompt: "cool ty", Replies: []fakeapi.Reply{reply("You're welcome.", 10500)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "PLAT-914"),
			rx("ticket's target: Kotlin 2.1.0", `\b2\.1\.0\b`),
			lit("constraint: buildSrc", "don't touch the buildSrc convention plugins"),
			lit("constraint: JDK 17", "JDK 17"),
			lit("file edited: version catalog", "gradle/libs.versions.toml"),
			lit("failed command: compile error", "Serializer for class 'Currency' is not found"),
			rx("failure fixed: billing-core compiles", `(?i)compileKotlin[^\n]{0,160}(pass|fixed|resolved|succe|BUILD SUCCESSFUL|exit (code )?0)|billing-core compiles`),
			lit("file created: serializer", "billing-core/src/main/kotlin/billing/core/CurrencySerializer.kt"),
			lit("decision: field serializer", "rather than registering it contextually"),
			lit("decision's reason: the Kafka consumer", "also decoded by the Kafka consumer"),
			pipedFailed("piped command: gradle test run failed", `\./gradlew test --continue 2>&1 \| tail -40`,
				`(?i)PaymentEventJsonTest[^\n]{0,200}fail|142 tests completed, 1 failed|\b1 failed\b`),
			lit("decision 2: explicitNulls", "rather than annotating every nullable field"),
			lit("decision 2's reason", "consumers treat a missing field and null the same"),
			rx("open thread: detekt baseline after the merge", `(?i)detekt baseline`),
		},
		Secrets: []secret{{"Artifactory API key (file read)", b5ArtifactoryKey}},
	}
	return sc
}

// b5ReplicaPassword is the password in the replica URL the subagent passes
// to psql on its command line.
const b5ReplicaPassword = "q7V2mRt9xLp4Wc3z"

// blind5PostgresSubagent is a Postgres performance investigation: a
// foreground subagent runs EXPLAIN and the statistics queries and finds
// why a search went slow (its findings are only in its report), the user
// answers the agent's questions with one word each, a migration check
// fails and is fixed, an item is left for later; then a manual /compact
// with the user's instructions.
func blind5PostgresSubagent() scenario {
	replica := "postgresql://perf_ro:" + b5ReplicaPassword + "@replica-2.db.internal:5432/shop"
	psql := `#!/bin/sh
# stand-in for psql against the read replica
case "$*" in
  *explain_orders_search.sql*)
    cat <<'EOF'
                                                          QUERY PLAN
------------------------------------------------------------------------------------------------------------------------------
 Limit  (cost=1000.57..2894113.41 rows=50 width=58) (actual time=4010.512..4010.519 rows=3 loops=1)
   Buffers: shared hit=2114 read=402881
   ->  Gather Merge  (cost=1000.57..8861201.11 rows=91167 width=58) (actual time=4010.509..4010.515 rows=3 loops=1)
         Workers Planned: 2
         Workers Launched: 2
         Buffers: shared hit=2114 read=402881
         ->  Sort  (cost=0.55..0.56 rows=37986 width=58) (actual time=3996.214..3996.215 rows=1 loops=3)
               Sort Key: created_at DESC
               Sort Method: quicksort  Memory: 25kB
               ->  Parallel Seq Scan on orders  (cost=0.00..8732117.37 rows=37986 width=58) (actual time=2631.002..3996.170 rows=1 loops=3)
                     Filter: ((customer_ref)::bigint = '100482'::bigint)
                     Rows Removed by Filter: 6077803
                     Buffers: shared hit=2114 read=402881
 Planning Time: 0.311 ms
 Execution Time: 4012.881 ms
(15 rows)
EOF
    ;;
  *pg_stat_user_indexes*)
    cat <<'EOF'
      indexrelname       |  idx_scan  | last_idx_scan
-------------------------+------------+-------------------------------
 orders_pkey             | 1893311204 | 2026-11-24 23:58:01.113+00
 idx_orders_created_at   |   40211877 | 2026-11-24 23:57:59.481+00
 idx_orders_customer_ref |          0 |
(3 rows)

 stats_reset
-------------------------------
 2026-11-17 09:14:22.507+00
(1 row)
EOF
    ;;
  *pg_stat_user_tables*)
    cat <<'EOF'
 relname |  n_live_tup  |       last_autoanalyze        | non_numeric_refs | zero_padded_refs
---------+--------------+-------------------------------+------------------+------------------
 orders  |     18233413 | 2026-11-24 03:12:40.118+00    |                0 |            51204
(1 row)
EOF
    ;;
  *pg_last_xact_replay_timestamp*)
    echo "00:00:00.412"
    ;;
  *)
    echo "psql: error: unexpected query" >&2
    exit 1;;
esac
`
	pytest := `#!/bin/sh
# stand-in for pytest
echo "============================= test session starts =============================="
echo "platform linux -- Python 3.12.7, pytest-8.3.3, pluggy-1.5.0"
echo "rootdir: $(pwd)"
echo "collected 4 items"
echo
echo "tests/orders/test_search.py ....                                         [100%]"
echo
echo "============================== 4 passed in 0.61s ==============================="
`
	checkMigrations := `#!/bin/sh
# Every migration that builds an index CONCURRENTLY must opt out of the
# runner's transaction.
status=0
for f in migrations/*.sql; do
  if grep -q 'CONCURRENTLY' "$f" && ! head -1 "$f" | grep -q 'migrate:no-transaction'; then
    echo "$f: CREATE INDEX CONCURRENTLY cannot run inside a transaction block; make '-- migrate:no-transaction' its first line" >&2
    status=3
  fi
done
[ $status -eq 0 ] && echo "migrations ok ($(ls migrations/*.sql | wc -l) files)"
exit $status
`
	search := `from sqlalchemy import text

from app.db import replica_session

# Refs come in from the support tool with leading zeros ("00100482"), so
# compare them as numbers (since 2026-11-17, "accept refs with leading zeros").
SEARCH_SQL = text(
    """
    SELECT id, customer_ref, status, total_cents, created_at
    FROM orders
    WHERE customer_ref::bigint = :ref
    ORDER BY created_at DESC
    LIMIT 50
    """
)


def search_orders(ref):
    with replica_session() as s:
        return s.execute(SEARCH_SQL, {"ref": int(ref)}).all()
`
	migration := "-- DBA-771: search compares customer_ref as bigint since 2026-11-17\nCREATE INDEX CONCURRENTLY IF NOT EXISTS idx_orders_customer_ref_bigint\n    ON orders ((customer_ref::bigint));\n"
	subPrompt := "Profile the orders search query on the read replica (read-only!): EXPLAIN (ANALYZE, BUFFERS) it for customer ref 100482, check pg_stat_user_indexes for the orders indexes and pg_stat_user_tables for when orders was last analyzed, and count customer_ref values that are not numeric or are zero-padded. Report what the planner does and why."
	sc := scenario{
		Name:        "blind5-pg-subagent",
		Shape:       "held-out, blind5: Postgres slow query, foreground subagent finds the cause (EXPLAIN, index stats), answers one word at a time, migration check fails then passes, item for later, DB password in a subagent's command; manual /compact with the user's instructions",
		Trigger:     "manual",
		CompactArgs: "keep the EXPLAIN findings and what's left",
		Files: map[string]string{
			"app/orders/search.py":                  search,
			"app/invoices/search.py":                "from sqlalchemy import text\n\nSEARCH_SQL = text(\"SELECT id FROM invoices WHERE customer_ref::bigint = :ref\")\n",
			"app/db.py":                             "from contextlib import contextmanager\n\n\n@contextmanager\ndef replica_session():\n    yield None\n",
			"migrations/0141_orders_status_idx.sql": "CREATE INDEX idx_orders_status ON orders (status);\n",
			"scripts/check_migrations.sh":           checkMigrations,
			"tests/orders/test_search.py":           "def test_search_by_ref():\n    pass\n",
			"sql/explain_orders_search.sql":         "EXPLAIN (ANALYZE, BUFFERS)\nSELECT id, customer_ref, status, total_cents, created_at FROM orders WHERE customer_ref::bigint = 100482 ORDER BY created_at DESC LIMIT 50;\n",
		},
		Bins:           map[string]string{"psql": psql, "pytest": pytest},
		AllowedTools:   []string{"Bash"},
		PermissionMode: "acceptEdits",
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			sub := func(r fakeapi.Reply) fakeapi.Reply { r.For = "Profile the orders search query"; return r }
			before = []turn{
				{
					Prompt: "orders search got slow after tuesday's deploy. p95 4.1s, was ~120ms. ticket DBA-771. read-only replica only, never run anything that writes against the prod primary.",
					Replies: []fakeapi.Reply{
						reply("I'll have a subagent profile the query on the replica while I look at the code.", 14000,
							agentCall("toolu_b5pg_agent", "general-purpose", "Profile the orders search query", subPrompt)),
						sub(reply("", 3000, bash("toolu_b5pg_sub_explain",
							"psql \""+replica+"\" -X -f sql/explain_orders_search.sql", "EXPLAIN the search on the replica"))),
						sub(reply("", 4500, bash("toolu_b5pg_sub_idx",
							"psql \""+replica+"\" -X -c \"SELECT indexrelname, idx_scan, last_idx_scan FROM pg_stat_user_indexes WHERE relname = 'orders'\" -c \"SELECT stats_reset FROM pg_stat_database WHERE datname = 'shop'\"", "Index usage on orders"))),
						sub(reply("", 5500, bash("toolu_b5pg_sub_tab",
							"psql \""+replica+"\" -X -c \"SELECT relname, n_live_tup, last_autoanalyze, (SELECT count(*) FROM orders WHERE customer_ref !~ '^[0-9]+$') AS non_numeric_refs, (SELECT count(*) FROM orders WHERE customer_ref ~ '^0') AS zero_padded_refs FROM pg_stat_user_tables WHERE relname = 'orders'\"", "Table stats and ref formats"))),
						sub(reply("Findings:\n1. The planner does a Parallel Seq Scan on orders (18.2M rows): the filter is (customer_ref)::bigint = '100482'::bigint, and no index covers that expression, so idx_orders_customer_ref cannot be used. Execution Time: 4012.881 ms, 402,881 buffers read.\n2. idx_orders_customer_ref has idx_scan 0 since the stats reset on 2026-11-17, the day of the deploy: nothing has used it since.\n3. Statistics are fresh (last autoanalyze 2026-11-24 03:12), so this is not a stale-statistics problem.\n4. All customer_ref values are numeric (0 non-numeric), 51,204 of them zero-padded: a bigint expression index would build.", 6500)),
						reply("", 15000, bash("toolu_b5pg_grep", "grep -rn 'customer_ref::bigint' app/", "Find the cast in the app")),
						reply("", 16000, read("toolu_b5pg_read_search", p("app/orders/search.py"))),
						reply("The cast came in with Tuesday's \"accept refs with leading zeros\" change. Two ways out:\n(a) drop the cast and compare text: normalise refs in Python and backfill the zero-padded rows\n(b) add an expression index on ((customer_ref::bigint)) and keep the query\nI'd take (b). Which one?", 17000),
					},
				},
				{
					Prompt: "b",
					Replies: []fakeapi.Reply{
						reply("Going with (b): an expression index on (customer_ref::bigint), built CONCURRENTLY, rather than reverting the cast, since it needs no backfill of the 51,204 zero-padded refs. Building it writes to the primary, which you ruled out for me: should it go through the normal migration deploy?", 18000),
					},
				},
				{
					Prompt: "yes",
					Replies: []fakeapi.Reply{
						reply("", 19000, write("toolu_b5pg_write_mig", p("migrations/0142_orders_customer_ref_bigint_idx.sql"), migration)),
						reply("", 20000, bash("toolu_b5pg_check_1", "sh scripts/check_migrations.sh", "Check the migrations")),
						reply("The runner wraps each file in a transaction and CONCURRENTLY refuses that, so the file has to opt out.", 21000,
							edit("toolu_b5pg_edit_mig", p("migrations/0142_orders_customer_ref_bigint_idx.sql"), "-- DBA-771: search", "-- migrate:no-transaction\n-- DBA-771: search")),
						reply("", 22000, bash("toolu_b5pg_check_2", "sh scripts/check_migrations.sh", "Check the migrations again")),
						reply("", 23000, bash("toolu_b5pg_pytest", "pytest tests/orders/test_search.py -q", "Run the search tests")),
						reply("The migration passes the check and the search tests pass. It goes out with the normal migration deploy. Should I reset pg_stat_statements on the replica afterwards, to get clean numbers?", 24000),
					},
				},
				{
					Prompt:  "no",
					Replies: []fakeapi.Reply{reply("OK, leaving pg_stat_statements as it is.", 25000)},
				},
				{
					Prompt:  "later: invoices search probably has the same cast. not now.",
					Replies: []fakeapi.Reply{reply("Noted for later.", 26000)},
				},
				{
					Prompt: "replica lag rn?",
					Replies: []fakeapi.Reply{
						reply("", 27000, bash("toolu_b5pg_lag", "psql \"$REPLICA_URL\" -XAtc \"SELECT now() - pg_last_xact_replay_timestamp()\"", "Replica lag")),
						reply("412 ms.", 28000),
					},
				},
			}
			after = []turn{
				{Prompt: "where were we", Replies: []fakeapi.Reply{reply("Carrying on from the notes.", 6000)}},
				{Prompt: "ok", Replies: []fakeapi.Reply{reply("On it.", 6500)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "DBA-771"),
			lit("constraint: read-only replica", "never run anything that writes against the prod primary"),
			lit("key file read: app/orders/search.py", "app/orders/search.py"),
			rx("subagent finding: seq scan on orders", `(?i)seq(uential)? scan`),
			rx("subagent finding: the index is unused", `(?i)idx_orders_customer_ref\b[^\n]{0,100}(idx_scan\W{0,3}0|unused|never used|not used|isn't used|is not used|can't be used|cannot be used|not usable|unusable|0 scans)`),
			rx("subagent finding: 4 s on the replica", `4012(\.881)? ?ms|\b4\.01 ?s`),
			rx("subagent finding: statistics are fresh", `(?i)(stats|statistics)[^\n]{0,60}(fresh|not stale|up to date|up-to-date)|not a stale[- ]statistics`),
			rx("subagent finding: all refs numeric", `(?i)\b(0|no|zero|none)[^\n]{0,20}non-numeric|all[^\n]{0,40}numeric`),
			lit("decision: expression index", "rather than reverting the cast"),
			lit("decision's reason: no backfill", "no backfill"),
			rx("answer: through the normal migration deploy", `(?i)(goes|going|ships?) (out )?(with|through|via) the normal migration deploy|normal migration deploy[^\n]{0,40}(yes|confirmed|agreed)|yes[^\n]{0,60}normal migration deploy`),
			lit("file created: migration", "migrations/0142_orders_customer_ref_bigint_idx.sql"),
			rx("failed command, exit code", `(?i)check_migrations\.sh[^\n]{0,120}exit (code )?3`),
			rx("failure fixed", `(?i)check_migrations\.sh[^\n]{0,160}(fixed|resolved|now pass|passes|migrations ok|exit (code )?0|succeeded)|(fixed|resolved)[^\n]{0,40}check_migrations`),
			rx("answer: don't reset pg_stat_statements", `(?i)(don't|do not|not|no)[^\n]{0,40}reset[^\n]{0,40}pg_stat_statements|pg_stat_statements[^\n]{0,60}(as it is|as is|untouched|alone|no reset|not reset)`),
			rx("open thread: invoices search", `(?i)invoices? search`),
		},
		Secrets: []secret{{"Postgres password in a subagent's psql URL", b5ReplicaPassword}},
	}
	return sc
}

// The Terraform/Kubernetes session's secrets: a Slack webhook the user
// pastes, and the database password kubectl prints in the old Secret's
// last-applied annotation.
const (
	b5SlackWebhook = "https://hooks.slack.com/services/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"
	b5DBPassword   = "Pm4x!vR82-qLs0Zt"
)

// blind5TerraformK8s rotates a database's credentials with Terraform and
// moves a service to an ExternalSecret, for a user who writes lists: a
// decision with its reason, a plan that fails on an old provider and is
// fixed, a sync error left unresolved (its fix is in a plan the user must
// apply), a step blocked on it, a task for after a freeze, and secrets in
// a prompt and in kubectl's output; an unrelated question comes last
// before the automatic compaction.
func blind5TerraformK8s() scenario {
	terraform := `#!/bin/sh
# stand-in for terraform: prints what this session needs
case "$*" in
  *init*)
    cat <<'EOF'
Initializing the backend...
Upgrading modules...
- eso_irsa in ../../modules/eso-irsa
- payments_db in ../../modules/payments-db
Initializing provider plugins...
- Finding hashicorp/aws versions matching "~> 5.40"...
- Finding hashicorp/random versions matching "~> 3.6"...
- Installing hashicorp/aws v5.82.2...
- Installed hashicorp/aws v5.82.2 (signed by HashiCorp)
- Using previously-installed hashicorp/random v3.6.3
Terraform has made some changes to the provider dependency selections recorded
in the .terraform.lock.hcl file. Review those changes and commit them to your
version control system if they represent changes you intended to make.

Terraform has been successfully initialized!
EOF
    exit 0;;
  *plan*)
    if ! grep -q '5.40' modules/payments-db/versions.tf; then
      cat >&2 <<'EOF'
╷
│ Error: Unsupported argument
│
│   on ../../modules/payments-db/main.tf line 14, in resource "aws_db_instance" "payments":
│   14:   manage_master_user_password = true
│
│ An argument named "manage_master_user_password" is not expected here.
╵
EOF
      exit 1
    fi
    echo "module.payments_db.random_password.master: Refreshing state... [id=none]"
    echo "module.eso_irsa.aws_iam_role.eso: Refreshing state... [id=eso-staging]"
    echo "module.eso_irsa.aws_iam_role_policy.eso: Refreshing state... [id=eso-staging:eso-read-secrets]"
    echo "module.payments_db.aws_db_instance.payments: Refreshing state... [id=db-7F3CQ2XK5LJ4M]"
    echo
    echo "Terraform used the selected providers to generate the following execution"
    echo "plan. Resource actions are indicated with the following symbols:"
    echo "  ~ update in-place"
    echo
    echo "Terraform will perform the following actions:"
    echo
    echo "  # module.payments_db.aws_db_instance.payments will be updated in-place"
    echo "  ~ resource \"aws_db_instance\" \"payments\" {"
    echo "        id                          = \"db-7F3CQ2XK5LJ4M\""
    echo "      + manage_master_user_password = true"
    echo "      - password                    = (sensitive value)"
    echo "      + master_user_secret          = (known after apply)"
    echo "        # (61 unchanged attributes hidden)"
    echo "    }"
    changes=1
    if grep -q 'GetSecretValue' modules/eso-irsa/policy.tf; then
      changes=2
      echo
      echo "  # module.eso_irsa.aws_iam_role_policy.eso will be updated in-place"
      echo "  ~ resource \"aws_iam_role_policy\" \"eso\" {"
      echo "        id     = \"eso-staging:eso-read-secrets\""
      echo "      ~ policy = jsonencode("
      echo "          ~ {"
      echo "              ~ Statement = ["
      echo "                  ~ {"
      echo "                      ~ Action   = ["
      echo "                            \"secretsmanager:DescribeSecret\","
      echo "                          + \"secretsmanager:GetSecretValue\","
      echo "                        ]"
      echo "                        # (2 unchanged attributes hidden)"
      echo "                    },"
      echo "                ]"
      echo "            }"
      echo "        )"
      echo "    }"
    fi
    echo
    echo "Plan: 0 to add, $changes to change, 0 to destroy."
    echo
    echo "─────────────────────────────────────────────────────────────────────────────"
    echo
    echo "Saved the plan to: rotate.tfplan"
    echo
    echo "To perform exactly these actions, run the following command to apply:"
    echo "    terraform apply \"rotate.tfplan\""
    exit 0;;
esac
echo "Terraform has no command named \"$1\"." >&2
exit 1
`
	kubectl := `#!/bin/sh
# stand-in for kubectl against the staging cluster
case "$*" in
  *"get secret payments-db-creds -o yaml"*)
    cat <<'EOF'
apiVersion: v1
data:
  DB_HOST: cGF5bWVudHMtc3RhZ2luZy5jOXhrMmZxN2FiMWQuZXUtd2VzdC0xLnJkcy5hbWF6b25hd3MuY29t
  DB_PASSWORD: UG00eCF2UjgyLXFMczBadA==
  DB_USER: cGF5bWVudHNfYXBw
kind: Secret
metadata:
  annotations:
    kubectl.kubernetes.io/last-applied-configuration: |
      {"apiVersion":"v1","kind":"Secret","metadata":{"annotations":{},"name":"payments-db-creds","namespace":"payments"},"stringData":{"DB_HOST":"payments-staging.c9xk2fq7ab1d.eu-west-1.rds.amazonaws.com","DB_PASSWORD":"Pm4x!vR82-qLs0Zt","DB_USER":"payments_app"},"type":"Opaque"}
  creationTimestamp: "2025-03-11T10:42:17Z"
  name: payments-db-creds
  namespace: payments
  resourceVersion: "918273645"
  uid: 5b0e8f1c-2a9d-4c71-9e3f-7d6a1b2c3e4f
type: Opaque
EOF
    ;;
  *"apply -f k8s/staging/payments-api/externalsecret.yaml"*)
    echo "externalsecret.external-secrets.io/payments-api-db created";;
  *"get externalsecret payments-api-db"*)
    echo "NAME              STORE                    REFRESH INTERVAL   STATUS              READY"
    echo "payments-api-db   aws-secrets-manager      1h                 SecretSyncedError   False";;
  *"describe externalsecret payments-api-db"*)
    cat <<'EOF'
Events:
  Type     Reason        Age                From              Message
  ----     ------        ----               ----              -------
  Warning  UpdateFailed  12s (x3 over 41s)  external-secrets  error retrieving secret at .data[0], key: rds!db-7f3cq2xk-4b1e-9a0d, err: AccessDeniedException: User: arn:aws:sts::381492001763:assumed-role/eso-staging/1732494011 is not authorized to perform: secretsmanager:GetSecretValue on resource: rds!db-7f3cq2xk-4b1e-9a0d because no identity-based policy allows the secretsmanager:GetSecretValue action
EOF
    ;;
  *)
    echo "error: unexpected kubectl call" >&2
    exit 1;;
esac
`
	aws := `#!/bin/sh
# stand-in for the AWS CLI
cat <<'EOF'
{
    "UserId": "AROAVRZ4XK2M7EXAMPLE:dev",
    "Account": "381492001763",
    "Arn": "arn:aws:sts::381492001763:assumed-role/platform-admin/dev"
}
EOF
`
	dbMain := `resource "random_password" "master" {
  length  = 32
  special = true
}

resource "aws_db_instance" "payments" {
  identifier        = "payments-${var.env}"
  engine            = "postgres"
  engine_version    = "16.4"
  instance_class    = var.instance_class
  allocated_storage = 100

  username = "payments_app"
  password = random_password.master.result

  tags = {
    team = "payments"
  }
}
`
	versions := `terraform {
  required_version = ">= 1.6"

  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 4.60"
    }
    random = {
      source  = "hashicorp/random"
      version = "~> 3.6"
    }
  }
}
`
	policy := `resource "aws_iam_role_policy" "eso" {
  name = "eso-read-secrets"
  role = aws_iam_role.eso.id

  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect   = "Allow"
      Action   = ["secretsmanager:DescribeSecret"]
      Resource = "arn:aws:secretsmanager:eu-west-1:${var.account_id}:secret:rds!db-*"
    }]
  })
}
`
	externalSecret := `apiVersion: external-secrets.io/v1beta1
kind: ExternalSecret
metadata:
  name: payments-api-db
  namespace: payments
spec:
  refreshInterval: 1h
  secretStoreRef:
    kind: ClusterSecretStore
    name: aws-secrets-manager
  target:
    name: payments-api-db
    creationPolicy: Owner
  data:
    - secretKey: DB_USER
      remoteRef:
        key: rds!db-7f3cq2xk-4b1e-9a0d
        property: username
    - secretKey: DB_PASSWORD
      remoteRef:
        key: rds!db-7f3cq2xk-4b1e-9a0d
        property: password
`
	plan := "terraform -chdir=envs/staging plan -out=rotate.tfplan -no-color"
	sc := scenario{
		Name:    "blind5-tf-k8s-secrets",
		Shape:   "held-out, blind5: Terraform + Kubernetes credential rotation, user writes lists, plan fails on an old provider then passes, ExternalSecret sync error left unresolved, blocked step, task after a freeze, Slack webhook in a prompt and DB password in kubectl output; auto",
		Trigger: "auto",
		Files: map[string]string{
			"envs/staging/main.tf":                     "module \"payments_db\" {\n  source         = \"../../modules/payments-db\"\n  env            = \"staging\"\n  instance_class = \"db.t4g.medium\"\n}\n\nmodule \"eso_irsa\" {\n  source     = \"../../modules/eso-irsa\"\n  account_id = \"381492001763\"\n}\n",
			"modules/payments-db/main.tf":              dbMain,
			"modules/payments-db/versions.tf":          versions,
			"modules/eso-irsa/policy.tf":               policy,
			"k8s/staging/payments-api/deployment.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: payments-api\n  namespace: payments\nspec:\n  template:\n    spec:\n      containers:\n        - name: api\n          envFrom:\n            - secretRef:\n                name: payments-db-creds\n",
		},
		Bins:           map[string]string{"terraform": terraform, "kubectl": kubectl, "aws": aws},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1"},
		AllowedTools:   []string{"Bash"},
		PermissionMode: "acceptEdits",
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			before = []turn{
				{
					Prompt: "INFRA-4410: rotate the payments db creds, staging.\n\nrules:\n- plan only, I run apply myself\n- nothing in plain k8s Secrets anymore, everything via ExternalSecret\n- staging first, prod is frozen until Monday\n\nslack webhook for the rotation notice if you need it: " + b5SlackWebhook,
					Replies: []fakeapi.Reply{
						reply("", 20000, read("toolu_b5tf_read_main", p("modules/payments-db/main.tf"))),
						reply("I'll switch the instance to manage_master_user_password = true, an RDS-managed master password in Secrets Manager, rather than a random_password in state, because then the password never lands in the Terraform state and RDS rotates it itself.", 21000,
							edit("toolu_b5tf_edit_main", p("modules/payments-db/main.tf"), "  password = random_password.master.result\n", "  manage_master_user_password = true\n")),
						reply("", 22000, bash("toolu_b5tf_plan_1", plan, "Plan staging")),
						reply("The module pins the AWS provider to ~> 4.60, which predates manage_master_user_password on aws_db_instance. Bumping it to ~> 5.40.", 23000,
							read("toolu_b5tf_read_versions", p("modules/payments-db/versions.tf"))),
						reply("", 23500, edit("toolu_b5tf_edit_versions", p("modules/payments-db/versions.tf"), "version = \"~> 4.60\"", "version = \"~> 5.40\"")),
						reply("", 24500, bash("toolu_b5tf_init", "terraform -chdir=envs/staging init -upgrade -input=false -no-color", "Upgrade the providers")),
						reply("", 26000, bash("toolu_b5tf_plan_2", plan, "Plan staging again")),
						reply("", 26500, taskCreate("toolu_b5tf_task", "Rotate the prod payments db creds after the freeze (Monday)", "Same change in envs/prod once the freeze lifts")),
						reply("The plan is saved to envs/staging/rotate.tfplan: 1 to change (the instance). Not applied.", 27000),
					},
				},
				{
					Prompt: "nice. next:\n1. ExternalSecret for payments-api in staging, apply it\n2. then delete the old Secret payments-db-creds\n3. don't restart pods, argo will roll them",
					Replies: []fakeapi.Reply{
						reply("", 28000, bash("toolu_b5tf_get_secret", "kubectl -n payments get secret payments-db-creds -o yaml", "Look at the old Secret")),
						reply("The old Secret has DB_HOST, DB_USER and DB_PASSWORD, and its password also sits in plain text in the last-applied annotation, one more reason to drop it. Writing an ExternalSecret for the user and password from the RDS-managed secret.", 29500,
							write("toolu_b5tf_write_es", p("k8s/staging/payments-api/externalsecret.yaml"), externalSecret)),
						reply("", 30500, bash("toolu_b5tf_apply_es", "kubectl apply -f k8s/staging/payments-api/externalsecret.yaml", "Apply the ExternalSecret")),
						reply("", 31000, bash("toolu_b5tf_get_es", "kubectl -n payments get externalsecret payments-api-db", "Check the ExternalSecret")),
						reply("", 31500, bash("toolu_b5tf_describe_es", "kubectl -n payments describe externalsecret payments-api-db | tail -5", "See why it does not sync")),
						reply("ESO's role may not read the RDS-managed secret: AccessDeniedException on secretsmanager:GetSecretValue. That is Terraform (modules/eso-irsa/policy.tf), so it goes into your plan rather than a kubectl fix.", 32000,
							read("toolu_b5tf_read_policy", p("modules/eso-irsa/policy.tf"))),
						reply("", 32500, edit("toolu_b5tf_edit_policy", p("modules/eso-irsa/policy.tf"),
							`Action   = ["secretsmanager:DescribeSecret"]`, `Action   = ["secretsmanager:DescribeSecret", "secretsmanager:GetSecretValue"]`)),
						reply("", 34000, bash("toolu_b5tf_plan_3", plan, "Plan staging with the policy")),
						reply("Plan updated: 2 to change (the instance and the ESO policy). The ExternalSecret stays in SecretSyncedError until you apply it, so payments-db-creds is not deleted yet; no pods restarted.", 34500),
					},
				},
				{
					Prompt: "whats the account id for staging again",
					Replies: []fakeapi.Reply{
						reply("", 35500, bash("toolu_b5tf_sts", "aws sts get-caller-identity", "Who am I")),
						reply("381492001763, as platform-admin.", 36000),
					},
				},
			}
			after = []turn{
				{Prompt: "back. carry on", Replies: []fakeapi.Reply{reply("Picking up where we left off.", 8000)}},
				{Prompt: "ok", Replies: []fakeapi.Reply{reply("On it.", 8500)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "INFRA-4410"),
			lit("constraint: plan only", "plan only, I run apply myself"),
			lit("constraint: ExternalSecret only", "nothing in plain k8s Secrets anymore"),
			lit("constraint: prod frozen", "prod is frozen until Monday"),
			lit("constraint: no pod restarts", "don't restart pods"),
			lit("decision: RDS-managed password", "rather than a random_password in state"),
			lit("decision's reason", "never lands in the Terraform state"),
			lit("file edited: the instance", "modules/payments-db/main.tf"),
			rx("failed command: unsupported argument", `(?i)unsupported argument|is not expected here`),
			lit("failure fixed: AWS provider ~> 5.40", "~> 5.40"),
			lit("file edited: provider pin", "modules/payments-db/versions.tf"),
			lit("file created: ExternalSecret", "k8s/staging/payments-api/externalsecret.yaml"),
			lit("still failing: SecretSyncedError", "SecretSyncedError"),
			lit("still failing's cause", "secretsmanager:GetSecretValue"),
			lit("file edited: ESO policy", "modules/eso-irsa/policy.tf"),
			rx("open thread: delete payments-db-creds once synced", `(?i)(delete|remove|drop)[^\n]{0,80}payments-db-creds|payments-db-creds[^\n]{0,80}(not (yet )?deleted|still|pending|after|once)`),
			lit("open task: prod after the freeze", "Rotate the prod payments db creds after the freeze"),
		},
		Secrets: []secret{
			{"Slack webhook URL (prompt)", b5SlackWebhook},
			{"database password (kubectl output)", b5DBPassword},
		},
	}
	return forTrigger(sc, "auto")
}
