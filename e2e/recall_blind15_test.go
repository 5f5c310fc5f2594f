package e2e

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/cairn-agent/cairn/e2e/fakeapi"
)

// The recall bench's fifteenth blind set: five held-out sessions written
// without reading cairn's extraction, checkpoint, render or redaction code
// nor any other scenario's facts, only the bench's types and helpers, the
// client's protocol notes and real transcripts. Their first run on main is
// the blind measurement; a check may only be corrected where it could not
// have matched a faithful restore, never because cairn missed it.
//
// Each is a kind of session no earlier set used, in a voice of its own:
//   - a Clojure/Leiningen rate limiter for a terse lowercase user,
//     compacted three times (auto, /compact bare, /compact with the user's
//     words), a "no new deps" rule lifted between the first two, a
//     TodoWrite list that changes, a one-word answer, a piped lein test
//     whose failure (a Ratio in a header) the pipe's exit 0 hides, and a
//     piece of the stack owned by someone else;
//   - an Erlang/rebar3 gen_server crash for a user who mixes Portuguese
//     into his English: a subagent that greps the other modules, the
//     agent's dependency overruled, an answer taken back, dialyzer left
//     failing for a colleague, a piped eunit failure, a compaction inside
//     the turn that reruns the common test suite;
//   - a LaTeX thesis build (latexmk, bibtex, natbib) for a chatty student:
//     a natbib error fixed, a second error left in a chapter the user is
//     rewriting, a switch to biblatex refused, a question answered two
//     turns late, page and warning counts; /compact with instructions;
//   - Prometheus alert rules and a Grafana dashboard for a user who writes
//     headings and lists: a threshold changed from the ticket's, promtool
//     failing then passing, a piped promtool test failure, a fix refused
//     because someone else owns the tests, a bare-number answer, and two
//     secrets (a Grafana service account token in a pasted provisioning
//     file, a password in a webhook URL that amtool prints);
//   - a Pulumi TypeScript stack moved to another region, compacted twice
//     (/compact with instructions, then auto), with TaskCreate tasks
//     updated across both, a config copy refused for a KMS reason, a
//     "preview only" rule relaxed to one stack, a piped pulumi up failure,
//     a task blocked on another person, and two secrets (an API token in a
//     dotenv file the agent reads, a password in a <private> span).
//
// They run only in the report (TestRecallReport) and are marked
// "held-out, blind15" in its shape column.

// blind15Scenarios are the fifteenth blind set the recall report runs.
func blind15Scenarios() []scenario {
	return []scenario{b15Clojure(), b15Erlang(), b15Thesis(), b15Alerts(), b15Pulumi()}
}

// b15Tools lets the scripted agent's tools run headless.
var b15Tools = []string{"Bash", "Read", "Edit", "Write", "Agent", "TodoWrite", "TaskCreate", "TaskUpdate"}

// b15ThrottleV1 is the agent's first rewrite of the throttle: keyed by API
// key, but its state is one namespace-level atom shared by every handler.
const b15ThrottleV1 = `(ns ledgerline.middleware.throttle
  (:require [ledgerline.clock :as clock]))

(def ^:private windows (atom {}))

(defn- window-key [req] (get-in req [:headers "x-api-key"]))

(defn wrap-throttle
  "Fixed one-minute window per x-api-key; over the limit answers 429 with Retry-After."
  [handler limit]
  (fn [req]
    (let [k   (window-key req)
          now (clock/now-ms)
          w   (get (swap! windows update k
                          (fn [{:keys [start] :as w}]
                            (if (and w (< (- now start) 60000))
                              (update w :n inc)
                              {:start now :n 1})))
                   k)]
      (if (> (:n w) limit)
        {:status 429
         :headers {"Retry-After" (str (/ (- 60000 (- now (:start w))) 1000))}
         :body ""}
        (handler req)))))
`

// b15ThrottleV2 keeps the windows in the handler's own closure.
const b15ThrottleV2 = `(ns ledgerline.middleware.throttle
  (:require [ledgerline.clock :as clock]))

(defn- window-key [req] (get-in req [:headers "x-api-key"]))

(defn wrap-throttle
  "Fixed one-minute window per x-api-key; over the limit answers 429 with Retry-After.
  Each wrapped handler has its own windows."
  [handler limit]
  (let [state (atom {})]
    (fn [req]
      (let [k   (window-key req)
            now (clock/now-ms)
            w   (get (swap! state update k
                            (fn [{:keys [start] :as w}]
                              (if (and w (< (- now start) 60000))
                                (update w :n inc)
                                {:start now :n 1})))
                     k)]
        (if (> (:n w) limit)
          {:status 429
           :headers {"Retry-After" (str (/ (- 60000 (- now (:start w))) 1000))}
           :body ""}
          (handler req))))))
`

// b15ThrottleV3 evicts idle keys with a core.cache TTL cache.
const b15ThrottleV3 = `(ns ledgerline.middleware.throttle
  (:require [clojure.core.cache.wrapped :as cw]
            [ledgerline.clock :as clock]))

(defn- window-key [req] (get-in req [:headers "x-api-key"]))

(defn wrap-throttle
  "Fixed one-minute window per x-api-key; over the limit answers 429 with Retry-After.
  Each wrapped handler has its own windows, dropped 60 s after their last hit."
  [handler limit]
  (let [state (cw/ttl-cache-factory {} :ttl 60000)]
    (fn [req]
      (let [k   (window-key req)
            now (clock/now-ms)
            w   (cw/lookup-or-miss state k (constantly {:start now :n 0}))
            w   (if (< (- now (:start w)) 60000) (update w :n inc) {:start now :n 1})]
        (swap! state assoc k w)
        (if (> (:n w) limit)
          {:status 429
           :headers {"Retry-After" (str (/ (- 60000 (- now (:start w))) 1000))}
           :body ""}
          (handler req))))))
`

// b15Lein stands in for Leiningen: its test run follows the throttle's
// source through the session.
const b15Lein = `#!/bin/sh
t=src/ledgerline/middleware/throttle.clj
case "$1" in
deps)
  echo "Retrieving org/clojure/core.cache/1.1.234/core.cache-1.1.234.pom from central"
  echo "Retrieving org/clojure/data.priority-map/1.1.0/data.priority-map-1.1.0.jar from central"
  echo "Retrieving org/clojure/core.cache/1.1.234/core.cache-1.1.234.jar from central"
  exit 0 ;;
esac
n=14; a=41
if grep -q core.cache project.clj; then n=16; a=47; fi
echo
echo "lein test ledgerline.routes-test"
echo
echo "lein test ledgerline.throttle-test"
if ! grep -q x-api-key $t; then
  echo
  echo "FAIL in (limits-per-key) (throttle_test.clj:31)"
  echo "31st request with the same x-api-key inside a minute"
  echo "expected: (= 429 (:status resp))"
  echo "  actual: (not (= 429 503))"
  echo
  echo "FAIL in (keys-are-independent) (throttle_test.clj:44)"
  echo "expected: (= 200 (:status resp))"
  echo "  actual: (not (= 200 503))"
  echo
  echo "Ran 3 tests containing 9 assertions."
  echo "2 failures, 0 errors."
  echo "Tests failed."
  exit 1
fi
if ! grep -q '(let \[state' $t; then
  echo
  echo "FAIL in (exports-route-smoke) (routes_test.clj:22)"
  echo "GET /api/exports with x-api-key k-test"
  echo "expected: (= 200 (:status resp))"
  echo "  actual: (not (= 200 429))"
  echo
  echo "Ran $n tests containing $a assertions."
  echo "1 failures, 0 errors."
  echo "Tests failed."
  exit 1
fi
if grep -q rate_limited $t; then
  echo
  echo "FAIL in (retry-after-header) (throttle_test.clj:58)"
  echo "Retry-After is whole seconds, rounded up"
  echo "expected: (= \"4\" (get-in resp [:headers \"Retry-After\"]))"
  echo "  actual: (not (= \"4\" \"7/2\"))"
  echo
  echo "Ran 17 tests containing 50 assertions."
  echo "1 failures, 0 errors."
  echo "Tests failed."
  exit 1
fi
echo
echo "Ran $n tests containing $a assertions."
echo "0 failures, 0 errors."
`

// b15Clojure: a terse user, a Leiningen rate limiter, three compactions.
func b15Clojure() scenario {
	const thr = "src/ledgerline/middleware/throttle.clj"
	return scenario{
		Name:         "blind15-clojure-throttle",
		Shape:        "held-out, blind15: Clojure/lein, terse lowercase user, auto + /compact + /compact with words, rule lifted, TodoWrite, piped failure, one-word answer",
		Compactions:  []string{"auto", "manual", "manual"},
		Env:          []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "CLAUDE_CODE_ENABLE_TASKS=0"},
		AllowedTools: b15Tools, PermissionMode: "acceptEdits",
		Bins: map[string]string{"lein": b15Lein},
		Files: map[string]string{
			"project.clj": `(defproject ledgerline "0.4.1"
  :description "ledger export API"
  :dependencies [[org.clojure/clojure "1.11.1"]
                 [ring/ring-core "1.10.0"]
                 [metosin/reitit "0.7.0"]]
  :profiles {:dev {:dependencies [[ring/ring-mock "0.4.0"]]}})
`,
			thr: `(ns ledgerline.middleware.throttle
  (:require [ledgerline.clock :as clock]))

(def ^:private hits (atom {}))

(defn wrap-throttle
  "Counts requests per remote address. Never resets."
  [handler limit]
  (fn [req]
    (let [k (:remote-addr req)
          n (get (swap! hits update k (fnil inc 0)) k)]
      (if (> n limit)
        {:status 503 :headers {} :body ""}
        (handler req)))))
`,
			"src/ledgerline/clock.clj": `(ns ledgerline.clock
  "The one place the app reads the time; tests rebind now-ms.")

(defn ^:dynamic now-ms [] (System/currentTimeMillis))
`,
			"src/ledgerline/routes.clj": `(ns ledgerline.routes
  (:require [reitit.ring :as ring]
            [ledgerline.exports :as exports]
            [ledgerline.middleware.throttle :refer [wrap-throttle]]))

(defn app []
  (ring/ring-handler
    (ring/router
      [["/api/exports" {:get (wrap-throttle exports/list-exports 30)}]
       ["/api/exports/:id" {:get exports/fetch-export}]])))
`,
			"test/ledgerline/throttle_test.clj": `(ns ledgerline.throttle-test
  (:require [clojure.test :refer [deftest is testing]]
            [ledgerline.clock :as clock]
            [ledgerline.middleware.throttle :refer [wrap-throttle]]))

(deftest limits-per-key
  (testing "31st request with the same x-api-key inside a minute"
    (is (= 429 (:status resp)))))
`,
		},
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			before = []turn{
				{Prompt: "LED-212. /api/exports needs a per api key limit, 30 a minute, over that 429 with a Retry-After header. no new deps pls, we're mid release and project.clj is frozen till the cut", Replies: []fakeapi.Reply{
					reply("looking at the current middleware and the clock first", 21000,
						read("c1", p(thr)), read("c2", p("src/ledgerline/clock.clj")), read("c3", p("src/ledgerline/routes.clj"))),
					reply("running the throttle tests as they are", 23000,
						bash("c4", "lein test :only ledgerline.throttle-test", "throttle tests before the change")),
					reply("", 24000, todoWrite("c5",
						[2]string{"key the throttle by x-api-key, fixed window", "in_progress"},
						[2]string{"429 + Retry-After header", "pending"},
						[2]string{"evict idle keys so the map doesn't grow forever", "pending"},
						[2]string{"CHANGELOG entry for LED-212", "pending"})),
					reply("what's there now: throttle.clj counts per :remote-addr in a namespace atom that never resets, and answers 503. so limits-per-key and keys-are-independent both fail (503 where 429/200 expected).\n\nclock.clj already has a dynamic now-ms that the tests rebind, so I'll read time through it, no System/currentTimeMillis in the middleware.\n\none question before I write it: fixed window or sliding log? sliding is fairer at the minute boundary but keeps up to 30 timestamps per key; fixed is one counter per key.", 25000),
				}},
				{Prompt: "fixed.", Replies: []fakeapi.Reply{
					reply("fixed window it is.", 26000, read("c5b", p(thr))),
					reply("rewriting throttle.clj", 27000, write("c6", p(thr), b15ThrottleV1)),
					reply("", 29000, bash("c7", "lein test", "full test run")),
					reply("throttle tests pass now but exports-route-smoke in routes_test.clj:22 gets 429: the windows atom is namespace-level, so every wrap-throttle shares it and the route test inherits the counts from the throttle test. moving the state into the wrap-throttle closure, one atom per wrapped handler", 31000,
						write("c8", p(thr), b15ThrottleV2)),
					reply("", 33000, bash("c9", "lein test", "full test run again")),
					reply("", 34000, todoWrite("c10",
						[2]string{"key the throttle by x-api-key, fixed window", "completed"},
						[2]string{"429 + Retry-After header", "completed"},
						[2]string{"evict idle keys so the map doesn't grow forever", "pending"},
						[2]string{"CHANGELOG entry for LED-212", "pending"})),
					full("lein test: Ran 14 tests containing 41 assertions, 0 failures. the route smoke failure was the shared atom, gone with the per-handler state.\n\nidle keys still pile up in the atom. without a new dep I'd sweep stale windows inside the same swap! every so often; a ttl cache would be cleaner but that's core.cache, which is a new dependency."),
				}},
				{Prompt: "go on", Replies: []fakeapi.Reply{
					reply("holding the sweep until you say whether a dep is ok after the cut, the rest is done and green. the CHANGELOG line is the only other thing on the list.", 22000),
				}},
				{Prompt: "release got cut this morning so deps are fine again. use core.cache ttl for the eviction if it's simpler. and skip the changelog, marie writes release notes from the PR titles", Replies: []fakeapi.Reply{
					reply("adding core.cache to project.clj", 24000, read("c11", p("project.clj")),
						edit("c12", p("project.clj"), `[metosin/reitit "0.7.0"]]`, `[metosin/reitit "0.7.0"]
                 [org.clojure/core.cache "1.1.234"]]`)),
					reply("", 26000, bash("c13", "lein deps", "fetch core.cache")),
					reply("", 27000, read("c13b", p(thr))),
					reply("swapping the atom for a ttl cache, 60 s ttl so a key's window goes away a minute after its last hit", 28000, write("c14", p(thr), b15ThrottleV3)),
					reply("", 30000, bash("c15", "lein test", "full test run with core.cache")),
					reply("", 31000, todoWrite("c16",
						[2]string{"key the throttle by x-api-key, fixed window", "completed"},
						[2]string{"429 + Retry-After header", "completed"},
						[2]string{"evict idle keys so the map doesn't grow forever", "completed"})),
					reply("eviction done with cw/ttl-cache-factory, ttl 60000. Ran 16 tests containing 47 assertions, 0 failures. changelog item dropped.\n\nwhat should the 429 body be? right now it's empty. json like the other errors, or leave it empty?", 32000),
				}},
				{Prompt: "/compact"},
				{Prompt: "json, same shape as the 404s: {\"error\":\"rate_limited\"}. also fyi the nginx limit_req in front of this is ana's, she keeps it as is, don't touch deploy/nginx", Replies: []fakeapi.Reply{
					reply("ok, json body", 19000, read("c16b", p(thr))),
					reply("", 20000, edit("c17", p(thr), `:body ""}`, `:body "{\"error\":\"rate_limited\"}"}`)),
					reply("", 22000, bash("c18", "lein test 2>&1 | tail -n 9", "test run, last lines")),
					reply("the body is in, but the tail shows one failure: retry-after-header (throttle_test.clj:58) expects \"4\" and gets \"7/2\". (/ ms 1000) on longs gives a clojure Ratio, and str of a Ratio is 7/2. needs whole seconds rounded up, i.e. (long (Math/ceil (/ ms 1000.0))). so lein test is red right now, 1 failure of 17, even if the pipe said 0. I haven't changed it yet.\n\nleaving deploy/nginx alone, ana's.", 24000),
				}},
				{Prompt: "/compact keep it short, the throttle work only"},
			}
			after = []turn{
				{Prompt: "ok where were we", Replies: []fakeapi.Reply{reply("picking it up from the notes above.", 21000)}},
			}
			return before, after
		},
		Facts: []fact{
			rx("ticket: LED-212 limit on /api/exports", `LED-212`, `/api/exports`),
			rx("ticket: 30 a minute per api key, 429 with Retry-After", `(?i)\b30\b`, `(?i)api[- _]?key`, `429|Retry-After`),
			rx("constraint: no new deps while project.clj is frozen", `(?i)(no (new|extra|additional) dep|new dep\w*[^\n]{0,40}(not allowed|forbidden|frozen)|project\.clj[^\n]{0,30}\bfrozen|without (adding )?(any )?(new )?dep)`).until(1),
			rx("decision: fixed window (the user's one-word answer), not a sliding log", `(?i)fixed[- ]window`).notRx(`(?i)sliding[- ]log[^\n]{0,30}(chosen|decided|picked|agreed)`),
			lit("file changed: throttle.clj", "throttle.clj"),
			rx("key file clock.clj: dynamic now-ms the tests rebind", `clock\.clj|now-ms`),
			rx("failure fixed: exports-route-smoke got 429 from the shared atom, fixed by per-handler state", `(?i)exports-route-smoke|routes[-_]test`, `(?i)shar|closure|per[- ]handler|namespace[- ]level|global`),
			rx("command: lein test passes, 14 tests", `(?i)lein test`, `\b14 tests|0 failures|pass|green`).until(1),
			rx("constraint lifted: deps allowed after the release cut, core.cache added to project.clj", `core\.cache`, `project\.clj`).from(2),
			rx("decision: evict idle keys with a TTL cache, 60 s", `(?i)ttl`, `(?i)60 ?s|60[ ,]?000|60 sec|a minute|one minute`).from(2),
			rx("open todo dropped: the CHANGELOG entry (marie writes the release notes)", `(?i)changelog|release notes`).from(2).
				notRx(`(?i)\[ \][^\n]{0,20}changelog|changelog[^\n]{0,40}\b(pending|in_progress|open|to do)\b`),
			rx("question answered: 429 body is json {\"error\":\"rate_limited\"}", `rate_limited`).from(3),
			rx("owned by someone else: ana's nginx limit_req, don't touch deploy/nginx", `(?i)\bana\b`, `(?i)nginx|limit_req`).from(3),
			// The contradiction names the piped command: the bare `lein test`
			// really did pass before it (14 and 16 tests), and a restore may
			// say so.
			pipedFailed("piped command: lein test | tail hides the retry-after-header failure (\"7/2\")", `lein test 2>&1 \| tail`, `(?i)retry-after-header|7/2|ratio`).from(3),
			rx("open thread: round Retry-After up to whole seconds (Math/ceil), not done yet", `(?i)ceil|round(ed|ing)? up|whole seconds`).from(3),
		},
	}
}

// b15Rebar3 stands in for rebar3: the suite passes once relay_conn
// ignores a stale socket's tcp_closed; dialyzer and eunit keep failing.
const b15Rebar3 = `#!/bin/sh
case "$1" in
ct)
  echo "===> Verifying dependencies..."
  echo "===> Analyzing applications..."
  echo "===> Compiling relay"
  echo "===> Running Common Test suites..."
  if grep -q stale_socket apps/relay/src/relay_conn.erl; then
    echo "%%% relay_conn_SUITE: ......"
    echo "All 6 tests passed."
    exit 0
  fi
  echo "%%% relay_conn_SUITE: ..."
  echo "%%% relay_conn_SUITE ==> reconnect_after_close: FAILED"
  echo "%%% relay_conn_SUITE ==> {function_clause,[{relay_conn,handle_info,"
  echo "        [{tcp_closed,#Port<0.12>},"
  echo "         {state,undefined,\"upstream-b:7400\",3,connecting}],"
  echo "        [{file,\"apps/relay/src/relay_conn.erl\"},{line,25}]},"
  echo "      {gen_server,try_dispatch,4,[{file,\"gen_server.erl\"},{line,1123}]}]}"
  echo "%%% relay_conn_SUITE: ."
  echo "Failed 1 tests. Passed 5 tests."
  echo "Results written to \"_build/test/logs/index.html\"."
  echo "===> Failures occurred running tests: 1"
  exit 1 ;;
dialyzer)
  echo "===> Verifying dependencies..."
  echo "===> Dialyzer starting, this may take a while..."
  echo "===> Resolving project files..."
  echo "===> Checking 41 files in _build/default/rebar3_25.3.2.12_plt..."
  echo ""
  echo "apps/relay/src/relay_metrics.erl"
  echo "Line 57 Column 5: The pattern {'ok', _} can never match the type 'ok'"
  echo "===> Warnings occurred running dialyzer: 1"
  exit 1 ;;
eunit)
  echo "===> Verifying dependencies..."
  echo "===> Compiling relay"
  echo "===> Performing EUnit tests..."
  echo "......................F."
  echo "Failures:"
  echo "  1) relay_codec_tests:decode_partial_test/0: module 'relay_codec_tests'"
  echo "     Failure/Error: {badmatch,{more,3}}"
  echo "     %% apps/relay/test/relay_codec_tests.erl:41"
  echo "Finished in 0.412 seconds"
  echo "24 tests, 1 failures"
  echo "===> Error running tests"
  exit 1 ;;
esac
echo "===> Unknown command $1" >&2
exit 1
`

// b15Erlang: a gen_server crash, a subagent, a compaction inside a turn.
func b15Erlang() scenario {
	const conn = "apps/relay/src/relay_conn.erl"
	var log strings.Builder
	for i := 0; i < 1317; i++ {
		fmt.Fprintf(&log, "2026-11-24T0%d:%02d:%02d.%03dZ [warning] relay_conn <0.%d.0> upstream-b:7400 tcp_closed, reconnecting\n", 1+i%8, i%60, (i*7)%60, i%1000, 400+i)
	}
	for i := 0; i < 9; i++ {
		fmt.Fprintf(&log, "2026-11-24T09:1%d:00.000Z [error] relay_conn crashed: function_clause in relay_conn:handle_info/2 line 25\n", i)
	}
	return scenario{
		Name:         "blind15-erlang-relay",
		Shape:        "held-out, blind15: Erlang/rebar3, user mixing Portuguese, subagent, dependency overruled, answer taken back, compaction inside a turn, piped eunit failure",
		Compactions:  []string{"in-turn"},
		AllowedTools: b15Tools, PermissionMode: "acceptEdits",
		Bins: map[string]string{"rebar3": b15Rebar3},
		Files: map[string]string{
			"rebar.config": "{erl_opts, [debug_info]}.\n{deps, []}.\n{minimum_otp_vsn, \"25\"}.\n",
			conn: `-module(relay_conn).
-behaviour(gen_server).
-export([start_link/1, init/1, handle_call/3, handle_cast/2, handle_info/2]).

-record(state, {sock, upstream, attempts = 0, phase = connecting}).

start_link(Upstream) -> gen_server:start_link(?MODULE, Upstream, []).

init(Upstream) ->
    self() ! connect,
    {ok, #state{upstream = Upstream}}.

handle_call(_Req, _From, S) -> {reply, ok, S}.
handle_cast(_Msg, S) -> {noreply, S}.

handle_info(connect, S = #state{upstream = Up}) ->
    case relay_net:connect(Up) of
        {ok, Sock} -> {noreply, S#state{sock = Sock, phase = up, attempts = 0}};
        {error, _} -> erlang:send_after(1000, self(), connect),
                      {noreply, S#state{attempts = S#state.attempts + 1}}
    end;
handle_info({tcp, Sock, Data}, S = #state{sock = Sock}) ->
    relay_router:route(Data),
    {noreply, S};
handle_info({tcp_closed, Sock}, S = #state{sock = Sock, phase = up}) ->
    self() ! connect,
    {noreply, S#state{sock = undefined, phase = connecting}}.
`,
			"apps/relay/src/relay_sup.erl": `-module(relay_sup).
-behaviour(supervisor).
-export([start_link/0, init/1]).

start_link() -> supervisor:start_link({local, ?MODULE}, ?MODULE, []).

%% intensity 5 in 10 s: more restarts than that and relay_sup itself
%% dies, taking the listener with it.
init([]) ->
    Flags = #{strategy => one_for_one, intensity => 5, period => 10},
    Kids = [#{id => relay_conn, start => {relay_conn, start_link, ["upstream-b:7400"]}},
            #{id => relay_pool, start => {relay_pool, start_link, []}}],
    {ok, {Flags, Kids}}.
`,
			"apps/relay/src/relay_pool.erl": strings.Repeat("%% pool bookkeeping\n", 143) + `handle_info({tcp_closed, Sock}, S = #pstate{sock = Sock, up = true}) ->
    {noreply, S#pstate{sock = undefined, up = false}}.
`,
			"log/prod-excerpt.log": log.String(),
		},
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			subPrompt := "Search apps/ for every handle_info clause on tcp_closed that only matches when the socket in the state is the one closing"
			before = []turn{
				{Prompt: "Olá! relay crashed again in prod after upstream-b restarted, é o issue #88. crash is function_clause in relay_conn:handle_info, log excerpt in log/prod-excerpt.log. Importante: the fix must run on OTP 25, prod is still on 25, então nada de features do 26/27 (no maybe expressions, no json module).", Replies: []fakeapi.Reply{
					reply("Let me read the connection process and its supervisor first.", 18000,
						read("e1", p(conn)), read("e2", p("apps/relay/src/relay_sup.erl"))),
					reply("", 20000, bash("e3", "rebar3 ct --suite apps/relay/test/relay_conn_SUITE", "run the relay_conn common test suite")),
					reply("Here is what I think happens, step by step.\n\nThe only tcp_closed clause in relay_conn.erl (line 25) matches when the closing Sock is the one in #state.sock and phase is up. After upstream-b restarts, we get tcp_closed, set sock = undefined and send ourselves connect. But a second tcp_closed for the same old port can still be in the mailbox (the socket was closed from both sides), and when it arrives sock is undefined, so no clause matches: function_clause, the process dies. The suite reproduces it: reconnect_after_close fails with exactly that stack.\n\nTwo ways out. (a) Let it crash and let relay_sup restart it. I read relay_sup.erl: intensity 5 in 10 s. During an upstream flap we see several closes per second, so a few crashes in a row exceed the intensity and relay_sup itself goes down with the listener. I don't want that. (b) Ignore a tcp_closed whose socket is not the current one: a clause for a stale socket that logs and carries on. I prefer (b).\n\nFor the reconnect itself I'd also replace the fixed 1 s send_after with exponential backoff, using the hex package backoff (small, well known), so a dead upstream is not hammered.\n\nQuestion: should the fix go to the 1.9.x branch only, or also to main?", 23000),
				}},
				{Prompt: "só 1.9. e não, não quero o backoff package: no new deps in relay, ever. faz o timer na mão, erlang:start_timer, double each attempt, cap 30s. before fixing, check if other modules have the same bug pls", Replies: []fakeapi.Reply{
					reply("No package then: own doubling with erlang:start_timer, capped at 30 s. First a search across apps/ for the same pattern.", 25000,
						agentCall("e4", "general-purpose", "find tcp_closed clauses that assume the current socket", subPrompt+", and say file and line for each."),
					),
					fakeapi.Reply{For: subPrompt, Text: "", Tools: []fakeapi.ToolUse{bash("s1", "grep -rn 'handle_info({tcp_closed' apps/", "find tcp_closed clauses")}, Usage: usageAt(6000)},
					fakeapi.Reply{For: subPrompt, Text: "Two clauses match only the socket held in the state and have no fallback clause for another socket:\n- apps/relay/src/relay_conn.erl:25 (the one that crashes in #88)\n- apps/relay/src/relay_pool.erl:144, same shape: #pstate{sock = Sock, up = true}; a late tcp_closed after up = false would crash relay_pool the same way.\nNo other module handles tcp_closed.", Usage: usageAt(7000)},
					reply("The subagent found the same bug in relay_pool.erl:144. Counting how often the close happens in the excerpt:", 27000,
						bash("e5", "grep -c 'tcp_closed, reconnecting' log/prod-excerpt.log", "count reconnects in the prod excerpt")),
					reply("1317 tcp_closed reconnects in the excerpt, and 9 function_clause crashes at line 25. So the stale close is rare relative to the reconnects but it does happen.\n\nShall I fix relay_pool.erl:144 in the same change, or only relay_conn as the issue says?", 28000),
				}},
				{Prompt: "pool deixa pra depois, abre outro ticket pra isso. ah, e sobre a branch: esquece o que eu disse, main também. Rui says fixes land on main first and get cherry-picked to 1.9.x", Replies: []fakeapi.Reply{
					reply("relay_pool goes to a separate ticket. Main first, then a cherry-pick to 1.9.x.", 29000, read("e5b", p(conn))),
					reply("Editing relay_conn.erl: a stale_socket clause, and start_timer backoff doubling to 30 s.", 30000,
						edit("e6", p(conn), `handle_info({tcp_closed, Sock}, S = #state{sock = Sock, phase = up}) ->
    self() ! connect,
    {noreply, S#state{sock = undefined, phase = connecting}}.`, `handle_info({tcp_closed, Sock}, S = #state{sock = Sock, phase = up}) ->
    self() ! connect,
    {noreply, S#state{sock = undefined, phase = connecting}};
handle_info({tcp_closed, Old}, S) ->
    %% stale_socket: a close for a socket we already dropped
    logger:info("relay_conn: ignoring tcp_closed for stale socket ~p", [Old]),
    {noreply, S};
handle_info({timeout, _Ref, connect}, S) ->
    handle_info(connect, S).

backoff(Attempts) -> min(30000, 1000 bsl min(Attempts, 5)).`),
					),
					reply("", 31000,
						edit("e7", p(conn), `{error, _} -> erlang:send_after(1000, self(), connect),`, `{error, _} -> erlang:start_timer(backoff(S#state.attempts), self(), connect),`),
					),
					reply("", 32000, bash("e8", "rebar3 dialyzer", "dialyzer on the app")),
					reply("Dialyzer reports one warning, not in our code: relay_metrics.erl line 57, the pattern {ok, _} can never match 'ok'. That module is untouched by this change. Running eunit as well:", 33000,
						bash("e9", "rebar3 eunit 2>&1 | tail -n 8", "eunit, last lines")),
					reply("eunit is not clean either: relay_codec_tests:decode_partial_test fails with {badmatch,{more,3}} (24 tests, 1 failure). The pipe through tail hides the exit status, so the command looked fine, but it failed. I have not checked whether it fails on main without my change; the codec is not something I touched.", 34000),
				}},
				{Prompt: "dialyzer warning é da Joana, she has a PR open for relay_metrics, ignora. roda o ct de novo", Replies: []fakeapi.Reply{
					full("Leaving relay_metrics to Joana. Rerunning the common test suite.",
						bash("e10", "rebar3 ct --suite apps/relay/test/relay_conn_SUITE", "rerun the relay_conn suite")),
					{Text: "The suite passes now: all 6 tests, reconnect_after_close included.", Usage: usageAt(24000), ToolResultFor: "e10"},
				}},
			}
			after = []turn{
				{Prompt: "beleza, obrigado. e agora?", Replies: []fakeapi.Reply{reply("Vou seguir a partir do estado acima.", 26000)}},
			}
			return before, after
		},
		Facts: []fact{
			rx("ticket: issue #88, function_clause in relay_conn:handle_info after an upstream restart", `#88|issue 88`, `(?i)function_clause|tcp_closed`),
			rx("constraint: must run on OTP 25", `(?i)otp[ -]?25`),
			rx("decision overruled: own backoff with erlang:start_timer doubling to 30 s, not the hex backoff package", `(?i)start_timer|doubl|exponential`, `(?i)\b30 ?s\b|30[ _,]?000|30 sec`),
			rx("decision: ignore a tcp_closed for a stale socket rather than let it crash", `(?i)stale|old socket|ignor`),
			rx("key file relay_sup.erl: intensity 5 in 10 s would take the supervisor down", `relay_sup`, `(?i)intensity|5 (restarts )?in 10|5/10`),
			lit("file changed: relay_conn.erl", "relay_conn.erl"),
			rx("subagent finding: relay_pool.erl:144 has the same bug", `relay_pool`, `\b144\b`),
			rx("open thread: relay_pool deferred to a separate ticket", `relay_pool`, `(?i)later|separate|defer|follow[- ]?up|another ticket|own ticket|new ticket|other ticket|outro ticket`),
			rx("question answered then taken back: main first, then cherry-pick to 1.9.x", `1\.9`, `(?i)\bmain\b`, `(?i)cherry[- ]?pick|main first|also (to )?main|main too|main as well|both`),
			rx("failing command left for someone else: dialyzer warning in relay_metrics is Joana's", `(?i)dialyzer|relay_metrics`, `(?i)joana`),
			pipedFailed("piped command: rebar3 eunit | tail hides decode_partial_test failing", `rebar3 eunit`, `decode_partial`),
			rx("number: 1317 reconnects in the prod excerpt", `1[,.]?317`),
		},
	}
}

// b15Latexmk stands in for latexmk: natbib refuses the numeric style until
// plainnat; after that the build always stops in ch4, and the log's
// overfull boxes and the page count follow the margin and the ch3 tables.
const b15Latexmk = `#!/bin/sh
echo "Rc files read:"
echo "  NONE"
echo "Latexmk: This is Latexmk, John Collins, 7 Jan. 2024. Version 4.83."
if ! grep -q plainnat thesis.tex; then
  echo "Latexmk: applying rule 'pdflatex'..."
  echo "Running 'pdflatex  -recorder  \"thesis.tex\"'"
  printf '%s\n' "! Package natbib Error: Bibliography not compatible with author-year citations."
  printf '%s\n' "(natbib)                Press <return> to continue in numerical citation style."
  echo ""
  echo "See the natbib package documentation for explanation."
  printf '%s\n' "l.3 \\bibcite{abdelrahman2016}{1}"
  echo "Latexmk: Errors, so I did not complete making targets"
  echo "Collected error summary (may duplicate other messages):"
  echo "  pdflatex: Command for 'pdflatex' gave return code 1"
  exit 12
fi
pages=143; c2=5; c3=0; c4=6
if grep -q 'left=1.5in' thesis.tex; then pages=151; c2=11; c3=8; c4=8; fi
if grep -q 'fit-table' chapters/ch3-results.tex; then c3=0; fi
emit() {
  i=0
  while [ $i -lt $2 ]; do
    printf '%s\n' "Overfull \\hbox (1$i.2pt too wide) in $3 at lines 2$i--2$((i+3)) (./chapters/$1.tex)"
    i=$((i+1))
  done
}
{
  echo "This is pdfTeX, Version 3.141592653-2.6-1.40.25 (TeX Live 2023) (preloaded format=pdflatex)"
  emit ch2-model $c2 paragraph
  emit ch3-results $c3 alignment
  emit ch4-discussion $c4 paragraph
  echo "Output written on thesis.pdf ($pages pages, 4128873 bytes)."
} > thesis.log
echo "Latexmk: applying rule 'bibtex thesis'..."
echo "Running 'bibtex  \"thesis.aux\"'"
echo "Database file #1: refs.bib"
echo "Warning--empty journal in tanaka2021"
echo "(There was 1 warning)"
echo "Latexmk: applying rule 'pdflatex'..."
echo "Running 'pdflatex  -interaction=nonstopmode -recorder  \"thesis.tex\"'"
printf '%s\n' "./chapters/ch4-discussion.tex:133: Missing \$ inserted."
printf '%s\n' "<inserted text> "
printf '%s\n' "                \$"
printf '%s\n' "l.133 ...the effective quality factor Q_{eff}"
echo "Output written on thesis.pdf ($pages pages, 4128873 bytes)."
echo "Latexmk: Errors, so I did not complete making targets"
echo "Collected error summary (may duplicate other messages):"
echo "  pdflatex: Command for 'pdflatex' gave return code 1"
exit 12
`

// b15Thesis: a chatty student's thesis build, /compact with instructions.
func b15Thesis() scenario {
	return scenario{
		Name:         "blind15-latex-thesis",
		Shape:        "held-out, blind15: LaTeX thesis (latexmk, bibtex, natbib), chatty user, biblatex refused, error left in the user's chapter, late one-word answer, /compact with instructions",
		Trigger:      "manual",
		CompactArgs:  "we'll do the figure captions next, keep the build state",
		AllowedTools: b15Tools, PermissionMode: "acceptEdits",
		Bins: map[string]string{
			"latexmk": b15Latexmk,
			"pdfinfo": "#!/bin/sh\np=143\ngrep -q 'left=1.5in' thesis.tex && p=151\necho \"Title:          Nonlinear Damping in Cantilever MEMS Resonators\"\necho \"Producer:       pdfTeX-1.40.25\"\necho \"Pages:          $p\"\necho \"Page size:      612 x 792 pts (letter)\"\n",
		},
		Files: map[string]string{
			"thesis.tex": `\documentclass[12pt]{ucthesis}
\usepackage[left=1.25in,right=1in,top=1in,bottom=1in]{geometry}
\usepackage{graphicx}
\usepackage{siunitx}
\begin{document}
\include{chapters/ch1-intro}
\include{chapters/ch2-model}
\include{chapters/ch3-results}
\include{chapters/ch4-discussion}
\appendix
\include{chapters/appA-derivations}
\bibliographystyle{plain}
\bibliography{refs}
\end{document}
`,
			"ucthesis.cls": `\NeedsTeXFormat{LaTeX2e}
\ProvidesClass{ucthesis}[2019/08/01 Graduate Division dissertation class]
% Graduate Division format rules: binding (left) margin 1.5in, 1in elsewhere;
% references in author-year form; appendices follow the bibliography rules.
\LoadClass[12pt,oneside]{report}
\RequirePackage[authoryear,round]{natbib}
\RequirePackage{setspace}
\doublespacing
`,
			"chapters/ch3-results.tex": `\chapter{Results}
As reported by \citet{kowalski2019}, the damping grows with amplitude.
\begin{table}[t]
\caption{Measured quality factors (table 3.2).}
\begin{tabular}{lrrrrrr}
Device & $f_0$ (kHz) & $Q_{lin}$ & $Q_{eff}$ & $A_{max}$ (nm) & drift & T (K)\\
\end{tabular}
\end{table}
`,
			"chapters/ch4-discussion.tex": strings.Repeat("% discussion draft\n", 132) + "Above the bifurcation the effective quality factor Q_{eff} drops by a third.\n",
			"refs.bib":                    "@article{kowalski2019, author={Kowalski, A.}, title={Amplitude-dependent damping}, journal={JMEMS}, year={2019}}\n@article{tanaka2021, author={Tanaka, R.}, title={Thermoelastic loss}, journal={}, year={2021}}\n",
		},
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			before = []turn{
				{Prompt: "Hi!! ok so my thesis is due at the Graduate Division on Friday and their format check just bounced it :( two things they want: the binding margin has to be 1.5in (it's 1.25in now) and the bibliography has to be author-year. AND since my advisor pushed her edits to chapters/ch3-results.tex the build is broken, latexmk just dies. could you have a look? oh and please please don't change any of the wording in ch3, Prof. Halvorsen is super particular about her sentences, only build stuff in there if you really have to", Replies: []fakeapi.Reply{
					reply("Oh no, Friday! Let's get it building first.", 15000, bash("t1", "latexmk -pdf thesis.tex", "build the thesis")),
					reply("That's a natbib error, not something in ch3's text. Let me look at the class and the main file.", 17000,
						read("t2", p("ucthesis.cls")), read("t3", p("thesis.tex"))),
					reply("Found it. ucthesis.cls already does \\RequirePackage[authoryear,round]{natbib}, so natbib runs in author-year mode, but thesis.tex still says \\bibliographystyle{plain}, a numeric style: bibtex writes numeric \\bibcite entries and natbib refuses them (\"Bibliography not compatible with author-year citations\"). Your advisor's \\citet in ch3 is just the first citation that trips it.\n\nTwo ways to fix it:\n1. \\bibliographystyle{plainnat}: one line, author-year, matches what the class expects.\n2. Move to biblatex with biber (style=authoryear): more control over \"et al.\" and sorting, but we'd drop natbib and change every \\bibliography line.\n\nI'd lean to biblatex, since the format office is picky about the reference list and biblatex makes that easier to tune.", 19000),
				}},
				{Prompt: "ooh hmm. no biblatex please!! the class loads natbib itself and I really really don't want to fight the template three days before submission. plainnat is totally fine. and yes do the margin too", Replies: []fakeapi.Reply{
					reply("Fair, natbib it stays.", 20000, read("t3b", p("thesis.tex"))),
					reply("plainnat plus the 1.5in binding margin:", 21000,
						edit("t4", p("thesis.tex"), `\bibliographystyle{plain}`, `\bibliographystyle{plainnat}`)),
					reply("", 22000, edit("t5", p("thesis.tex"), `left=1.25in`, `left=1.5in`)),
					reply("", 24000, bash("t6", "latexmk -pdf -interaction=nonstopmode thesis.tex 2>&1 | tail -n 8", "rebuild, last lines")),
					reply("", 25000, bash("t7", "pdfinfo thesis.pdf | grep Pages; grep -c 'Overfull' thesis.log", "page count and overfull boxes")),
					reply("The natbib error is gone and bibtex runs (one harmless warning: empty journal in tanaka2021). But the build still doesn't finish: the tail shows \"Missing $ inserted\" at chapters/ch4-discussion.tex:133, where Q_{eff} is written outside math mode, and latexmk ends with \"Errors, so I did not complete making targets\". The pipe hid the exit code, so don't read the 0 as a pass.\n\nWith the wider binding margin the thesis went from 143 to 151 pages, and the overfull hbox warnings from 11 to 27. The Graduate Division limit is 150 pages: do the appendices count toward that?\n\nAlso, the ch4 error: do you want me to fix it (wrap it as $Q_{\\mathrm{eff}}$), or is that chapter yours?", 27000),
				}},
				{Prompt: "ahh ch4 is mine, I'm rewriting that whole section tonight anyway so just leave it! can you look at the overfull boxes in the ch3 tables instead? they look awful in the pdf, they run into the margin", Replies: []fakeapi.Reply{
					reply("Leaving ch4 to you. Looking at where the overfull boxes are:", 28000,
						bash("t8", "grep 'Overfull' thesis.log | grep -c ch3-results", "overfull boxes in ch3")),
					reply("8 of the 27 are alignments in ch3, i.e. table 3.2 with its seven columns. I'll only touch the table's layout, not a word of the text.", 29000, read("t9", p("chapters/ch3-results.tex"))),
					reply("", 30000, edit("t10", p("chapters/ch3-results.tex"), `\begin{tabular}{lrrrrrr}`, `\small % fit-table: keep table 3.2 inside the 1.5in margin
\setlength{\tabcolsep}{4pt}
\begin{tabular}{lrrrrrr}`)),
					reply("", 31000, bash("t11", "latexmk -pdf -interaction=nonstopmode thesis.tex 2>&1 | tail -n 4; grep -c 'Overfull' thesis.log", "rebuild and count overfull boxes")),
					reply("Table 3.2 fits now: overfull warnings went from 27 to 19, and none of the remaining ones are in ch3 (11 are in ch2's equations). ch3's wording is untouched, only \\small and a tighter \\tabcolsep around the tabular. The build still stops at ch4:133, as expected until your rewrite.", 32000),
				}},
				{Prompt: "yay thank you!! oh and re your question from before: no.", Replies: []fakeapi.Reply{
					reply("Great, so the appendices don't count toward the 150-page limit: without appendix A's 9 pages the body is 142 pages, under the limit even with the 1.5in margin.", 33000),
				}},
			}
			after = []turn{
				{Prompt: "ok captions time! where do we start?", Replies: []fakeapi.Reply{reply("Let's start with chapter 1's figures.", 20000)}},
			}
			return before, after
		},
		Facts: []fact{
			rx("ticket: format check wants a 1.5in binding margin and author-year references", `1\.5 ?in`, `(?i)author[- ]?year`),
			rx("constraint: don't change the wording of ch3 (the advisor's text)", `(?i)(ch3|chapter 3|ch3-results)[^\n]{0,100}(wording|prose|text|sentence)|(wording|prose|sentence)[^\n]{0,100}(ch3|chapter 3)|halvorsen`),
			rx("failure fixed: natbib 'not compatible with author-year' fixed by \\bibliographystyle{plainnat}", `plainnat`),
			rx("decision overruled: stay on natbib (the class loads it), not biblatex", `(?i)biblatex`, `(?i)natbib|plainnat`).
				notRx(`(?i)(next|todo|then|will|plan)[^\n]{0,30}(switch|move|migrat)\w*[^\n]{0,10}biblatex`),
			rx("key file ucthesis.cls: loads natbib in author-year mode", `ucthesis(\.cls)?`),
			rx("file changed: ch3-results.tex table 3.2 layout only", `ch3-results(\.tex)?`),
			pipedFailed("piped command: latexmk | tail hides the Missing $ error at ch4-discussion.tex:133", `latexmk`, `(?i)ch4|missing \$|:133`),
			rx("open thread owned by the user: ch4 is being rewritten by the user, leave it", `(?i)ch4`, `(?i)rewrit|leave|user's|yours|her own|his own|their own|not (to )?touch|owns|left alone`),
			rx("number: 151 pages with the 1.5in margin (143 before)", `\b151\b`),
			rx("number: overfull hbox warnings down from 27 to 19", `(?i)overfull`, `\b19\b`),
			rx("question answered late: appendices don't count toward the 150-page limit", `(?i)appendi`, `\b150\b`).
				notRx(`(?i)appendi\w*[^\n]{0,30}\b(do|does) count`),
		},
	}
}

// The alert rules scenario's secrets: a Grafana service account token in
// the provisioning file the user pastes, and the basic-auth password of
// the pager relay's webhook URL in alertmanager.yml, which a grep prints.
const (
	b15GrafanaToken = "glsa_Z8kR2mVq7XcN4pLw9TjH6bYd3FsG1eUa_5c1e9b7d"
	b15RelayPass    = "Qm4-ferric-Lantern-77"
)

// b15Promtool stands in for promtool: check rules fails on the agent's
// "!=~" typo, the unit test of HighErrorRate fails whatever happens.
const b15Promtool = `#!/bin/sh
case "$1 $2" in
"check rules")
  echo "Checking $3"
  if grep -q '!=~' "$3"; then
    echo "  FAILED:"
    echo "$3: 10:15: group \"api\", rule 2, \"HighErrorRate\": could not parse expression: 1:47: parse error: unexpected character inside braces: '~'"
    exit 1
  fi
  echo "  SUCCESS: 3 rules found"
  echo
  exit 0 ;;
"test rules")
  echo "Unit Testing:  $3"
  echo "  FAILED:"
  echo "    alertname: HighErrorRate, time: 10m,"
  echo "        exp:["
  echo "            0:"
  echo "              Labels:{alertname=\"HighErrorRate\", job=\"api\", severity=\"page\"}"
  echo "              Annotations:{summary=\"5xx above 5% on api\"}"
  echo "            ],"
  echo "        got:[]"
  exit 1 ;;
esac
echo "promtool: unknown command $1" >&2
exit 2
`

// b15AlertsDashboard is the Grafana dashboard: ten panels whose ids have
// gaps (alerts link to them by id).
func b15AlertsDashboard() string {
	var panels []string
	for i, id := range []int{1, 2, 3, 4, 5, 6, 7, 9, 11, 13} {
		panels = append(panels, fmt.Sprintf(`    {
      "id": %d,
      "type": "timeseries",
      "title": "API panel %d",
      "gridPos": {"h": 8, "w": 12, "x": %d, "y": %d},
      "targets": [{"expr": "sum(rate(http_requests_total{job=\"api\"}[5m]))", "refId": "A"}]
    }`, id, id, 12*(i%2), 8*(i/2)))
	}
	return "{\n  \"uid\": \"api-overview\",\n  \"title\": \"API overview\",\n  \"panels\": [\n" + strings.Join(panels, ",\n") + "\n  ],\n  \"schemaVersion\": 39\n}\n"
}

// b15Pages is October's page export: 41 HighErrorRate pages, 33 of them
// from batch jobs, and other alerts.
func b15Pages() string {
	var b strings.Builder
	b.WriteString("fired_at,labels\n")
	for i := 0; i < 41; i++ {
		job := "api"
		if i < 33 {
			job = fmt.Sprintf("batch-%s", []string{"invoices", "reconcile", "exports"}[i%3])
		}
		fmt.Fprintf(&b, "2026-10-%02dT0%d:%02d:00Z,alertname=HighErrorRate job=%s severity=page\n", 1+i%30, i%6, (i*13)%60, job)
	}
	for i := 0; i < 6; i++ {
		fmt.Fprintf(&b, "2026-10-%02dT14:00:00Z,alertname=ApiDown job=api severity=page\n", 3+i*4)
	}
	return b.String()
}

// b15Alerts: a user who writes headings and lists, Prometheus rules and a
// Grafana panel, an automatic compaction, two secrets.
func b15Alerts() scenario {
	const rules = "rules/api-alerts.yml"
	const dash = "dashboards/api-overview.json"
	origExpr := `        expr: sum by (job) (rate(http_requests_total{code=~"5.."}[5m])) / sum by (job) (rate(http_requests_total[5m])) > 0.05
        for: 2m`
	return forTrigger(scenario{
		Name:         "blind15-prometheus-alerts",
		Shape:        "held-out, blind15: Prometheus rules + Grafana dashboard, user writing headings and lists, threshold changed, check fails then passes, piped test failure, fix refused (someone else's tests), bare-number answer, auto, two secrets",
		Trigger:      "auto",
		AllowedTools: b15Tools, PermissionMode: "acceptEdits",
		Bins: map[string]string{
			"promtool": b15Promtool,
			"amtool":   "#!/bin/sh\n# amtool config routes test --config.file=F LABELS...\necho pagerduty-api\n",
			"jq":       "#!/bin/sh\nfor a; do f=$a; done\nprintf '['\ngrep -o '\"id\": [0-9]*' \"$f\" | awk '{print $2}' | paste -sd, - | tr -d '\\n'\necho ']'\n",
		},
		Files: map[string]string{
			rules: `groups:
  - name: api
    rules:
      - alert: ApiDown
        expr: up{job="api"} == 0
        for: 2m
        labels: {severity: page}
      - alert: HighErrorRate
` + origExpr + `
        labels: {severity: page}
        annotations:
          summary: "5xx above 5% on {{ $labels.job }}"
          dashboard: "https://grafana.internal.example/d/api-overview?viewPanel=7"
      - alert: LatencyP99High
        expr: histogram_quantile(0.99, sum by (le) (rate(http_request_duration_seconds_bucket[5m]))) > 1.5
        for: 10m
        labels: {severity: ticket}
`,
			"rules/tests/api-alerts_test.yml": `# owner: priya (SRE). Timings are hers, ask before changing.
rule_files: [../api-alerts.yml]
evaluation_interval: 1m
tests:
  - interval: 1m
    input_series:
      - series: 'http_requests_total{job="api",code="500"}'
        values: '0+10x20'
      - series: 'http_requests_total{job="api",code="200"}'
        values: '0+10x20'
    alert_rule_test:
      - eval_time: 10m
        alertname: HighErrorRate
        exp_alerts:
          - exp_labels: {job: api, severity: page}
`,
			dash: b15AlertsDashboard(),
			"alertmanager.yml": `route:
  receiver: slack-ops
  routes:
    - matchers: [severity="page"]
      receiver: pagerduty-api
receivers:
  - name: slack-ops
    slack_configs: [{channel: "#ops"}]
  - name: pagerduty-api
    webhook_configs:
      - url: https://am-relay:` + b15RelayPass + `@relay.pager.example/v2/enqueue
        send_resolved: true
`,
			"exports/pages-oct.csv": b15Pages(),
		},
		Secrets: []secret{
			{Family: "Grafana service account token in a pasted provisioning file", Value: b15GrafanaToken},
			{Family: "basic-auth password in a webhook URL printed by grep", Value: b15RelayPass},
		},
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			typo := `        expr: sum by (job) (rate(http_requests_total{code=~"5..",job!=~"batch-.*"}[5m])) / sum by (job) (rate(http_requests_total{job!=~"batch-.*"}[5m])) > 0.05
        for: 8m`
			fixed := `        expr: sum by (job) (rate(http_requests_total{code=~"5..",job!~"batch-.*"}[5m])) / sum by (job) (rate(http_requests_total{job!~"batch-.*"}[5m])) > 0.05
        for: 8m`
			panel := `    {
      "id": 14,
      "type": "timeseries",
      "title": "Error budget burn rate (1h / 6h)",
      "gridPos": {"h": 8, "w": 12, "x": 0, "y": 40},
      "targets": [
        {"expr": "(sum(rate(http_requests_total{job=\"api\",code=~\"5..\"}[1h])) / sum(rate(http_requests_total{job=\"api\"}[1h]))) / (1 - 0.995)", "refId": "A", "legendFormat": "1h"},
        {"expr": "(sum(rate(http_requests_total{job=\"api\",code=~\"5..\"}[6h])) / sum(rate(http_requests_total{job=\"api\"}[6h]))) / (1 - 0.995)", "refId": "B", "legendFormat": "6h"}
      ]
    }`
			before = []turn{
				{Prompt: "## OPS-1934\n- HighErrorRate pages at night, mostly from batch jobs\n- want: for: 10m, and exclude job=~\"batch-.*\" from it\n- plus a burn-rate panel on the API overview dashboard\n\n## notes\n- don't renumber existing panel ids, alerts link to them (viewPanel=7 etc)\n- grafana provisioning below in case you need the datasource:\n\n```yaml\napiVersion: 1\ndatasources:\n  - name: Mimir\n    type: prometheus\n    url: https://mimir.internal.example/prometheus\n    jsonData:\n      httpHeaderName1: Authorization\n    secureJsonData:\n      httpHeaderValue1: Bearer " + b15GrafanaToken + "\n```", Replies: []fakeapi.Reply{
					reply("Reading the rules and the dashboard, and counting last month's pages.", 16000,
						read("a1", p(rules)), read("a2", p(dash))),
					reply("", 18000,
						bash("a3", "grep -c 'alertname=HighErrorRate' exports/pages-oct.csv", "HighErrorRate pages in October"),
						bash("a4", "grep 'alertname=HighErrorRate' exports/pages-oct.csv | grep -c 'job=batch-'", "of which from batch jobs")),
					reply("**Numbers (October):** 41 HighErrorRate pages, 33 of them from batch-* jobs (80%).\n\n**Plan**\n1. HighErrorRate: add job!~\"batch-.*\" to both sides of the ratio, raise for: from 2m.\n2. promtool check rules, then the unit tests in rules/tests.\n3. Dashboard: append a new panel with the next free id (14); ids 1-13 stay as they are, gaps included (8, 10, 12 are unused).\n\nI won't need the datasource provisioning: the panel uses the dashboard's default datasource.", 20000),
				}},
				{Prompt: "## go\n- but make it for: 8m, not 10m. Sven (SRE lead) says 10 is too late for the api itself\n- keep the 5m rate window", Replies: []fakeapi.Reply{
					reply("", 21000, read("a4b", p(rules))),
					reply("", 22000, edit("a5", p(rules), origExpr, typo)),
					reply("", 23000, bash("a6", "promtool check rules "+rules, "check the rules file")),
					reply("**Parse error**: I wrote job!=~, which isn't PromQL; the negative regex matcher is !~. Fixing.", 24000, edit("a7", p(rules), typo, fixed)),
					reply("", 25000, bash("a8", "promtool check rules "+rules, "check the rules file again")),
					reply("", 26000, bash("a9", "promtool test rules rules/tests/api-alerts_test.yml 2>&1 | tail -n 9", "rule unit tests, last lines")),
					reply("**promtool check rules**: SUCCESS, 3 rules found.\n\n**promtool test rules**: FAILED, even though the piped command returned 0. The test expects HighErrorRate firing at eval_time 10m; with for: 8m the condition (true from about minute 5, once the 5m window fills) only fires at about 13m, so got:[] at 10m.\n\n**Proposal**: move the test's eval_time from 10m to 15m in rules/tests/api-alerts_test.yml.", 28000),
				}},
				{Prompt: "## no\n- don't edit rules/tests/, Priya owns those and wants to redo the timings herself (she's on it this week)\n- the test stays red until then, fine\n\n## panel\n- do the burn-rate panel now", Replies: []fakeapi.Reply{
					reply("Leaving rules/tests/ to Priya. Adding panel 14.", 29000, read("a9b", p(dash))),
					reply("", 30000,
						edit("a10", p(dash), "\n  ],\n  \"schemaVersion\"", ",\n"+panel+"\n  ],\n  \"schemaVersion\"")),
					reply("", 31000, bash("a11", "jq -c '[.panels[].id]' "+dash, "panel ids after the change")),
					reply("Checking where a page from this alert goes:", 32000,
						bash("a12", "amtool config routes test --config.file=alertmanager.yml severity=page job=api", "route for a page"),
						bash("a13", "grep -n -A3 'name: pagerduty-api' alertmanager.yml", "the receiver")),
					reply("**Panel**: id 14, \"Error budget burn rate (1h / 6h)\", ids are now [1,2,3,4,5,6,7,9,11,13,14], nothing renumbered.\n\n**Routing**: severity=page goes to the pagerduty-api receiver (a webhook with basic auth inline in alertmanager.yml; I haven't copied the credentials anywhere).\n\n**Question**: the burn rate divides by the error budget, so it depends on the SLO. I put 99.5% as a placeholder: is the API's SLO 99.5 or 99.9?", 33000),
				}},
				{Prompt: "99.9", Replies: []fakeapi.Reply{
					reply("", 33500, read("a13b", p(dash))),
					reply("", 34000, fakeapi.ToolUse{ID: "a14", Name: "Edit", Input: map[string]any{
						"file_path": p(dash), "old_string": "(1 - 0.995)", "new_string": "(1 - 0.999)", "replace_all": true}}),
					reply("**Done**: panel 14 uses the 99.9% SLO, error budget 0.001; both the 1h and 6h queries divide by (1 - 0.999).", 35000),
				}},
			}
			after = []turn{
				{Prompt: "## next\n- carry on", Replies: []fakeapi.Reply{reply("Carrying on from where we stopped.", 21000)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket: OPS-1934", "OPS-1934"),
			rx("ticket: keep batch jobs out of HighErrorRate", `HighErrorRate`, `(?i)batch`),
			rx("constraint: don't renumber existing panel ids (alerts link by viewPanel)", `(?i)renumber|viewPanel|(keep|existing|stable)[^\n]{0,20}(panel )?ids?`),
			rx("constraint changed: for: 8m (Sven), not the ticket's 10m", `(?i)\b8 ?m(in(ute)?s?)?\b`),
			rx("command failed then passed: promtool check rules (the !=~ typo fixed to !~)", `(?i)check rules[^\n]{0,120}(success|pass|ok\b|3 rules|fixed)|(success|pass|fixed)[^\n]{0,60}check rules`),
			pipedFailed("piped command: promtool test rules | tail hides the HighErrorRate test failure", `promtool test rules`, `(?i)test rules[^\n]{0,160}(fail|\bred\b)|(fail|\bred\b)[^\n]{0,80}test rules`),
			rx("decision overruled: the unit test's eval_time is not changed, Priya owns rules/tests", `(?i)priya`).
				notRx(`(?i)(next|todo|then|will|plan)[^\n]{0,30}(move|change|bump|set)[^\n]{0,30}eval_time`),
			rx("numbers: 41 HighErrorRate pages in October, 33 from batch jobs", `\b41\b`, `\b33\b`),
			lit("file changed: rules/api-alerts.yml", "api-alerts.yml"),
			rx("file changed: dashboards/api-overview.json, burn-rate panel id 14", `api-overview(\.json)?`, `(?i)\b14\b|burn`),
			rx("question answered with a bare value: the SLO is 99.9", `99\.9([^0-9]|$)|0\.999|0\.001`),
			lit("finding: pages route to the pagerduty-api receiver", "pagerduty-api"),
		},
	}, "auto")
}

// The Pulumi scenario's secrets: an API token in a dotenv file the agent
// reads, and a database password the user gives in a <private> span.
const (
	b15CloudflareToken = "Zp4qR8vN2kL6xT1mW9cH3jF7yB5dG0sA-eK2uQ7n"
	b15DBPassword      = "Vk8-moss-Ridge-2291"
)

// b15Pulumi stands in for the pulumi CLI: config set writes the new
// stack's file, preview fails until the instance class is one RDS offers,
// up fails on the subnet group.
const b15PulumiCLI = `#!/bin/sh
f=Pulumi.staging-eu.yaml
case "$1" in
stack)
  echo "Created stack 'staging-eu'"
  printf 'config:\n' > $f ;;
config)
  [ "$2" = set ] || exit 0
  printf '  %s: %s\n' "$3" "$4" >> $f ;;
preview)
  echo "Previewing update (acme/payments-infra/staging-eu)"
  echo
  if grep -q 'db.t4g.medium' $f 2>/dev/null; then
    echo "     Type                         Name                        Plan"
    echo " +   pulumi:pulumi:Stack          payments-infra-staging-eu   create"
    echo " +   ├─ aws:ec2:Vpc               payments-vpc                create"
    echo " +   ├─ aws:rds:SubnetGroup       payments-db-subnets         create"
    echo " +   └─ aws:rds:Instance          payments-db                 create"
    echo
    echo "Resources:"
    echo "    + 23 to create"
    exit 0
  fi
  echo "Diagnostics:"
  echo "  aws:rds:Instance (payments-db):"
  echo "    error: creating RDS DB Instance (payments-db): operation error RDS: CreateDBInstance, api error InvalidParameterCombination: RDS does not support creating a DB instance with the following combination: DBInstanceClass=db.t3.medium, Engine=postgres, EngineVersion=16.4, LicenseModel=postgresql-license."
  echo
  echo "Resources:"
  echo "    + 22 to create"
  echo "    1 errored"
  exit 255 ;;
up)
  echo "Updating (acme/payments-infra/staging-eu)"
  echo " +  aws:ec2:Vpc payments-vpc created (2s)"
  echo " +  aws:rds:SubnetGroup payments-db-subnets created (1s)"
  echo " +  aws:rds:Instance payments-db creating failed error: creating RDS DB Instance (payments-db): DBSubnetGroupNotFoundFault: DBSubnetGroup 'payments-staging-subnets' not found."
  echo "Diagnostics:"
  echo "  pulumi:pulumi:Stack (payments-infra-staging-eu):"
  echo "    error: update failed"
  echo "Resources:"
  echo "    + 21 created"
  echo "    1 errored"
  echo "Duration: 4m12s"
  exit 255 ;;
esac
`

// b15Pulumi: a region move of a Pulumi stack, compacted twice, with tasks.
func b15Pulumi() scenario {
	return scenario{
		Name:         "blind15-pulumi-region",
		Shape:        "held-out, blind15: Pulumi TypeScript stack moved to eu-central-1, pasted ticket, /compact with instructions then auto, TaskCreate/TaskUpdate, config copy refused, rule relaxed to one stack, piped up failure, task blocked on another person, two secrets",
		Compactions:  []string{"manual", "auto"},
		Env:          []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1"},
		AllowedTools: b15Tools, PermissionMode: "acceptEdits",
		Bins: map[string]string{"pulumi": b15PulumiCLI},
		Files: map[string]string{
			"Pulumi.yaml": "name: payments-infra\nruntime: nodejs\ndescription: payments VPC, RDS and DNS\n",
			"Pulumi.staging.yaml": `secretsprovider: awskms://alias/pulumi-staging?region=us-east-1
encryptedkey: AQICAHhQ2xj3m0Wb0m9cP1Xv0gAAAH4wfAYJKoZIhvcNAQcGoG8wbQIBADBoBgkqhkiG9w0BBwEwHgYJYIZIAWUDBAEu
config:
  aws:region: us-east-1
  payments-infra:dbInstanceClass: db.t3.medium
  payments-infra:vpcCidr: 10.40.0.0/16
  payments-infra:dbPassword:
    secure: AAABAKx0c2VjcmV0LXN0YWdpbmctb25seQ==
`,
			"index.ts": `import * as pulumi from "@pulumi/pulumi";
import { network } from "./network";
import { database } from "./rds";

const cfg = new pulumi.Config();
const net = network(cfg.require("vpcCidr"));
export const dbEndpoint = database(cfg, net).endpoint;
`,
			"rds.ts": `import * as pulumi from "@pulumi/pulumi";
import * as aws from "@pulumi/aws";

export function database(cfg: pulumi.Config, net: { privateSubnetIds: pulumi.Output<string[]> }) {
    new aws.rds.SubnetGroup("payments-db-subnets", {
        subnetIds: net.privateSubnetIds,
    });
    return new aws.rds.Instance("payments-db", {
        engine: "postgres",
        engineVersion: "16.4",
        instanceClass: cfg.require("dbInstanceClass"),
        allocatedStorage: 50,
        username: "payments",
        password: cfg.requireSecret("dbPassword"),
        dbSubnetGroupName: "payments-staging-subnets",
        skipFinalSnapshot: true,
    });
}
`,
			".env.local": "# local only, never commit\nAWS_PROFILE=acme-org-admin\nCLOUDFLARE_API_TOKEN=" + b15CloudflareToken + "\nCLOUDFLARE_ZONE=payments.acme.example\n",
		},
		Secrets: []secret{
			{Family: "Cloudflare API token in a dotenv file the agent reads", Value: b15CloudflareToken},
			{Family: "database password in a <private> span of a prompt", Value: b15DBPassword},
		},
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			before = []turn{
				{Prompt: "Pasting the ticket:\n\n> INFRA-771 Staging in the EU\n> For the GDPR review we need a staging environment in eu-central-1. Create a new stack acme/payments-infra/staging-eu from the same program. The current us-east-1 staging stack keeps running until the cutover.\n\nRules for today: preview only, no pulumi up. This laptop has the org admin profile and I don't trust it with applies. Please plan it as tasks, I like to see them.", Replies: []fakeapi.Reply{
					reply("I'll look at the current stack's config, the database module and the local env first.", 14000,
						read("p1", p("Pulumi.staging.yaml")), read("p2", p("rds.ts")), read("p3", p(".env.local"))),
					reply("", 16000,
						taskCreate("p4", "Create stack staging-eu", "pulumi stack init acme/payments-infra/staging-eu, region eu-central-1"),
						taskCreate("p5", "Port the config to staging-eu", "instance class, VPC CIDR, the rest of staging's config"),
						taskCreate("p6", "Clean pulumi preview on staging-eu", "fix whatever the preview rejects"),
						taskCreate("p7", "Cloudflare DNS cutover plan", "records on payments.acme.example pointing at the EU stack")),
					reply("", 18000, bash("p8", "pulumi stack init acme/payments-infra/staging-eu && pulumi config set aws:region eu-central-1 --stack staging-eu", "create the stack and set its region")),
					reply("", 19000, taskUpdate("p9", "1", "completed"), taskUpdate("p10", "2", "in_progress")),
					reply("The stack exists, with aws:region eu-central-1.\n\nFor the rest of the config, the simplest path is pulumi config cp --stack staging --dest staging-eu, which copies every key, secrets included (dbPassword), re-encrypting them for the new stack. That keeps the two stacks' config identical apart from the region, which is what a staging copy should be. Shall I copy it that way, secrets included?", 21000),
				}},
				{Prompt: "No, don't cp. staging's secrets provider is awskms://alias/pulumi-staging?region=us-east-1, and I don't want staging-eu depending on a us-east-1 KMS key in any way. Set the plain values by hand (same instance class, VPC 10.42.0.0/16). The db password I'll set myself later with --secret. <private>it's " + b15DBPassword + " in case you need to psql in</private>", Replies: []fakeapi.Reply{
					reply("", 23000, bash("p11", "pulumi config set payments-infra:dbInstanceClass db.t3.medium --stack staging-eu && pulumi config set payments-infra:vpcCidr 10.42.0.0/16 --stack staging-eu", "set plain config values on staging-eu")),
					reply("", 25000, bash("p12", "pulumi preview --stack staging-eu", "preview the new stack")),
					reply("The preview fails on the database: RDS rejects the combination db.t3.medium + postgres 16.4 (InvalidParameterCombination). rds.ts pins engineVersion 16.4, and the t3 classes are not offered for that engine version there. Two classes that are: db.t4g.medium (Graviton, a bit cheaper than t3.medium) and db.m6g.large (double the price). I'd take db.t4g.medium; the program doesn't care about the CPU architecture.\n\nAbout the password: I won't put it on a command line or in a file. When you're ready, pulumi config set --secret dbPassword --stack staging-eu will prompt for it.", 27000),
				}},
				{Prompt: "/compact focus on the stack migration, drop the long preview outputs"},
				{Prompt: "back. t4g is fine, go", Replies: []fakeapi.Reply{
					reply("", 18000, bash("p13", "pulumi config set payments-infra:dbInstanceClass db.t4g.medium --stack staging-eu && pulumi preview --stack staging-eu", "switch the class and preview again")),
					reply("", 19000, taskUpdate("p14", "2", "completed"), taskUpdate("p15", "3", "completed")),
					reply("The preview is clean now: 23 resources to create, the database included with db.t4g.medium. Only the Cloudflare DNS task is left; it would use the token from .env.local and change records on payments.acme.example.", 21000),
				}},
				{Prompt: "Good. Mehmet has to sign off the Cloudflare cutover and he's out until Thursday, so that task waits for him. And you may run pulumi up now, but only on staging-eu, never on the old staging stack.", Replies: []fakeapi.Reply{
					reply("", 23000, bash("p16", "pulumi up --stack staging-eu --yes 2>&1 | tail -n 9", "apply staging-eu, last lines")),
					reply("The apply did not finish, even though the piped command exited 0: payments-db failed with DBSubnetGroupNotFoundFault. rds.ts creates a subnet group but hard-codes dbSubnetGroupName \"payments-staging-subnets\", the us-east-1 stack's group, which doesn't exist in eu-central-1. 21 resources created, 1 errored. I'll make the instance use the group the program creates.", 25000,
						read("p17", p("rds.ts"))),
					reply("", 26000, edit("p18", p("rds.ts"), `    new aws.rds.SubnetGroup("payments-db-subnets", {`, `    const subnets = new aws.rds.SubnetGroup("payments-db-subnets", {`)),
					reply("", 27000, edit("p19", p("rds.ts"), `dbSubnetGroupName: "payments-staging-subnets",`, `dbSubnetGroupName: subnets.name,`)),
					full("rds.ts now passes the subnet group it creates (subnets.name) instead of the hard-coded us-east-1 name. I haven't re-run pulumi up on staging-eu yet: that's the next thing, then check that payments-db comes up. The DNS task stays open until Mehmet is back on Thursday."),
				}},
			}
			after = []turn{
				{Prompt: "continue", Replies: []fakeapi.Reply{reply("Continuing.", 22000)}},
			}
			return before, after
		},
		Facts: []fact{
			rx("ticket: INFRA-771, a staging-eu stack in eu-central-1", `INFRA-771|staging-eu`, `eu-central-1`),
			rx("constraint: preview only, no pulumi up", `(?i)(no|not|don't|do not|never|without)[^\n]{0,20}pulumi up|preview[- ]only|only (pulumi )?preview`).until(1),
			rx("decision overruled: no pulumi config cp, values set by hand (staging's secrets use a us-east-1 KMS key)", `(?i)kms`, `(?i)by hand|manual|\bcp\b|cop(y|ied|ying)`),
			rx("failure: preview rejects db.t3.medium with postgres 16.4", `db\.t3\.medium`, `(?i)InvalidParameterCombination|not (supported|offered)|16\.4`).until(1),
			rx("key file rds.ts: pins engineVersion 16.4", `rds\.ts`, `16\.4`).until(1),
			rx("open thread: the user sets dbPassword himself with --secret", `(?i)dbPassword|(db|database) password`),
			rx("failure fixed: db.t4g.medium, preview clean", `db\.t4g\.medium`).from(2),
			rx("number: preview shows 23 resources to create", `\b23\b`).from(2),
			rx("constraint changed: pulumi up allowed on staging-eu only, never on the old staging stack", `(?i)pulumi up|\bup\b`, `(?i)(never|not|don't|do not)[^\n]{0,40}\bstaging([^-\w]|$)|only (on )?staging-eu`).from(2),
			rx("open task blocked: the Cloudflare DNS cutover waits for Mehmet (Thursday)", `(?i)mehmet`, `(?i)cloudflare|dns|cutover`).from(2),
			pipedFailed("piped command: pulumi up | tail hides DBSubnetGroupNotFoundFault", `pulumi up`, `(?i)DBSubnetGroupNotFound|subnet ?group`).from(2),
			rx("file changed: rds.ts uses the subnet group it creates", `rds\.ts`, `(?i)subnet`).from(2),
			rx("next step: re-run pulumi up on staging-eu", `(?i)(re-?run|run[^\n]{0,20}again|retry)[^\n]{0,40}\bup\b|pulumi up[^\n]{0,40}(again|re-?run|retry)`).from(2),
		},
	}
}
