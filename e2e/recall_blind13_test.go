package e2e

import (
	"path/filepath"

	"github.com/cairn-agent/cairn/e2e/fakeapi"
)

// The recall bench's thirteenth blind set: five held-out sessions written
// without reading cairn's extraction, checkpoint, render or redaction code
// nor any other scenario's facts, only the bench's types and helpers.
// Their first run on main is the blind measurement; nothing in cairn was
// tuned on them.
//
// Each is a kind of session no other set used: a Godot platformer bug
// whose first change makes things worse and is reverted with git before
// the real fix; a PySpark job with a skewed join, investigated by three
// subagents launched at once and compacted inside the turn that follows
// them; a POSIX shell install script cleaned of shellcheck warnings under
// a bulleted list of constraints, one of which the user later drops,
// compacted three times; and a slow MongoDB aggregation read through
// explain(), with a question answered three turns later, one never
// answered, and two secrets (a mongodb+srv password, a JWT in a log); and
// a Zig cross build for 32-bit ARM with a toolchain bump taken back and a
// Slack webhook written to a git-ignored file.
//
// They run only in the report (TestRecallReport) and are marked
// "held-out, blind13" in its shape column.

// blind13Scenarios are the thirteenth blind set's scenarios.
func blind13Scenarios() []scenario {
	return []scenario{
		blind13GodotRevert(),
		blind13SparkSkew(),
		blind13ShellcheckThrice(),
		blind13MongoExplain(),
		blind13ZigCross(),
	}
}

// godotStandIn prints what a headless GUT run of the platformer's tests
// prints, from the state of scripts/player.gd: one failure at first,
// three with the floor snap raised, none once movement runs in
// _physics_process.
const godotStandIn = `#!/bin/sh
# stand-in for Godot 4.3 running GUT headless
echo "Godot Engine v4.3.stable.official.77dcf97d8 - https://godotengine.org"
echo ""
echo "--- GUT 9.3.0 ---"
echo "res://test/test_moving_platform.gd"
p=scripts/player.gd
if grep -q 'floor_snap_length = 32' "$p"; then
  echo "* test_rides_moving_platform"
  echo "    [Failed]:  [frame 37] player.global_position.y (412.6) > platform top (400.0) + 2.0: player fell through"
  echo "* test_jump_from_moving_platform"
  echo "    [Passed]"
  echo "* test_walk_off_ledge"
  echo "    [Failed]:  player snapped back onto the ledge: x = 318.0, expected > 330.0 after 20 frames"
  echo "* test_slope_no_jitter"
  echo "    [Failed]:  y oscillated 6 times in 30 frames on slope_22deg (allowed 0)"
  echo "* test_idle_on_floor"
  echo "    [Passed]"
  echo ""
  echo "Totals"
  echo "Scripts           1"
  echo "Tests             5"
  echo "Passing           2"
  echo "Failing           3"
  echo "Time              4.812s"
  exit 1
fi
if grep -q 'func _physics_process' "$p"; then
  for t in test_rides_moving_platform test_jump_from_moving_platform test_walk_off_ledge test_slope_no_jitter test_idle_on_floor; do
    echo "* $t"
    echo "    [Passed]"
  done
  echo ""
  echo "Totals"
  echo "Scripts           1"
  echo "Tests             5"
  echo "Passing           5"
  echo "Failing           0"
  echo "Time              4.377s"
  echo ""
  echo "---- All tests passed! ----"
  exit 0
fi
echo "* test_rides_moving_platform"
echo "    [Failed]:  [frame 37] player.global_position.y (412.6) > platform top (400.0) + 2.0: player fell through"
for t in test_jump_from_moving_platform test_walk_off_ledge test_slope_no_jitter test_idle_on_floor; do
  echo "* $t"
  echo "    [Passed]"
done
echo ""
echo "Totals"
echo "Scripts           1"
echo "Tests             5"
echo "Passing           4"
echo "Failing           1"
echo "Time              4.590s"
exit 1
`

// blind13GodotRevert is a terse user's Godot 4 bug: the player falls
// through a moving platform. The agent's first change (a longer floor
// snap) makes two more tests fail, in a run piped to tail; it reverts the
// file with git checkout, reads it again, and fixes the real cause
// (movement in _process rather than _physics_process). A question about a
// release branch gets a one-line answer; a constraint arrives in the last
// turn before the automatic compaction.
func blind13GodotRevert() scenario {
	player := "extends CharacterBody2D\n## Player controller for the platformer levels.\n\nconst SPEED := 220.0\nconst JUMP_VELOCITY := -420.0\n\nvar gravity: float = ProjectSettings.get_setting(\"physics/2d/default_gravity\")\n\n\nfunc _ready() -> void:\n\tadd_to_group(\"player\")\n\n\nfunc _process(delta: float) -> void:\n\tif not is_on_floor():\n\t\tvelocity.y += gravity * delta\n\tif Input.is_action_just_pressed(\"jump\") and is_on_floor():\n\t\tvelocity.y = JUMP_VELOCITY\n\tvelocity.x = Input.get_axis(\"move_left\", \"move_right\") * SPEED\n\tmove_and_slide()\n"
	bat := "extends CharacterBody2D\n## Bat: flies toward the player.\n\n@export var speed := 90.0\n\n\nfunc _process(delta: float) -> void:\n\tvar target := get_tree().get_first_node_in_group(\"player\") as Node2D\n\tif target:\n\t\tvelocity = global_position.direction_to(target.global_position) * speed\n\tmove_and_slide()\n"
	platform := "extends AnimatableBody2D\n## Moving platform, level 3.\n\n@export var travel := Vector2(0, -160)\n@export var duration := 1.2\n\n\nfunc _ready() -> void:\n\tvar tw := create_tween().set_loops().set_process_mode(Tween.TWEEN_PROCESS_PHYSICS)\n\ttw.tween_property(self, \"position\", position + travel, duration)\n\ttw.tween_property(self, \"position\", position, duration)\n"
	test := "extends GutTest\n\nvar Level3 = load(\"res://levels/level_3.tscn\")\n\n\nfunc test_rides_moving_platform():\n\tvar level = add_child_autofree(Level3.instantiate())\n\tvar player = level.get_node(\"Player\")\n\tawait wait_physics_frames(120)\n\tassert_lt(player.global_position.y, 402.0, \"player fell through\")\n"
	sc := scenario{
		Name:  "blind13-godot-revert",
		Shape: "held-out, blind13: Godot 4 GDScript platformer bug, first change makes it worse (piped run) and is reverted with git checkout before the real fix; terse user; auto",
		Files: map[string]string{
			"project.godot":                   "config_version=5\n\n[application]\nconfig/name=\"Skyhop\"\nrun/main_scene=\"res://levels/level_1.tscn\"\n\n[physics]\ncommon/physics_ticks_per_second=60\n",
			"scripts/player.gd":               player,
			"scripts/enemies/bat.gd":          bat,
			"scripts/moving_platform.gd":      platform,
			"test/test_moving_platform.gd":    test,
			"addons/gut/gut_cmdln.gd":         "extends SceneTree\n# GUT command line runner (vendored)\n",
			"addons/gut/plugin.cfg":           "[plugin]\nname=\"Gut\"\nversion=\"9.3.0\"\n",
			"levels/level_3.tscn":             "[gd_scene format=3]\n",
			".github/workflows/gut.yml":       "name: gut\non: [push]\n",
			"docs/ARCHITECTURE.md":            "# Skyhop\n\nPlayer, enemies and platforms are CharacterBody2D / AnimatableBody2D.\n",
			"scripts/enemies/slime.gd":        "extends CharacterBody2D\n\n\nfunc _physics_process(_delta: float) -> void:\n\tmove_and_slide()\n",
			"scripts/autoload/game_state.gd":  "extends Node\n\nvar level := 1\n",
			"test/test_player_input.gd":       "extends GutTest\n",
			"levels/level_1.tscn":             "[gd_scene format=3]\n",
			"assets/sprites/player_sheet.png": "PNG placeholder\n",
		},
		Bins:           map[string]string{"godot": godotStandIn},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "CLAUDE_CODE_ENABLE_TASKS=0"},
		AllowedTools:   []string{"Bash(godot:*)", "Bash(tail:*)", "Bash(git checkout:*)", "Bash(git diff:*)", "Bash(git status:*)", "Grep", "Read"},
		PermissionMode: "acceptEdits",
		Compactions:    []string{"auto"},
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			gut := "godot --headless -s addons/gut/gut_cmdln.gd -gdir=res://test -gexit"
			before = []turn{
				{
					Prompt: "issue #318. player falls through the moving platform in level 3, maybe 1 in 5 tries, worse on my 144hz monitor. test/test_moving_platform.gd reproduces it. don't touch addons/, that's vendored GUT.",
					Replies: []fakeapi.Reply{
						reply("Let me look at the player controller first.", 14000, read("toolu_gd_read1", p("scripts/player.gd"))),
						reply("", 15500, bash("toolu_gd_gut1", gut, "Run the GUT tests headless")),
						reply("One failure: `test_rides_moving_platform` — at frame 37 the player ends up 12.6 px below the platform top. The platform moves up at ~133 px/s, so my first guess is the floor snap is too short to keep the player glued to it. Trying `floor_snap_length = 32.0` in `_ready`.", 17000,
							edit("toolu_gd_snap", p("scripts/player.gd"), "func _ready() -> void:\n\tadd_to_group(\"player\")\n", "func _ready() -> void:\n\tadd_to_group(\"player\")\n\tfloor_snap_length = 32.0\n")),
						reply("", 18500, bash("toolu_gd_gut2", gut+" 2>&1 | tail -n 20", "Rerun the tests, last lines only")),
						reply("That made it worse: still falls through at frame 37, and now the player also snaps back onto ledges and jitters on the 22° slope — 3 failing instead of 1. The snap isn't the cause. Reverting that change.", 20000,
							bash("toolu_gd_revert", "git checkout -- scripts/player.gd && git status --short", "Revert scripts/player.gd")),
						reply("", 21000, read("toolu_gd_read2", p("scripts/player.gd"))),
						reply("Found it. The player runs its movement and `move_and_slide()` in `_process`, i.e. once per rendered frame, while the platform is an AnimatableBody2D tweened on the physics tick. At 144 fps the player moves 2–3 times between platform updates and can be inside the platform when it steps up, so it gets pushed out underneath. Moving the player's movement into `_physics_process`.", 23000,
							edit("toolu_gd_fix", p("scripts/player.gd"), "func _process(delta: float) -> void:", "func _physics_process(delta: float) -> void:")),
						reply("", 24000, bash("toolu_gd_gut3", gut, "Run the GUT tests again")),
						reply("", 25000, fakeapi.ToolUse{ID: "toolu_gd_grep", Name: "Grep", Input: map[string]any{"pattern": "func _process\\(", "path": p("scripts"), "output_mode": "content", "-n": true}}),
						reply("All 5 pass now (exit 0). The fix is the one-word change `_process` → `_physics_process` in scripts/player.gd; the floor snap change is gone (reverted, `git diff` shows only the rename).\n\nSame pattern elsewhere: scripts/enemies/bat.gd also moves in `_process`. Do you want the fix cherry-picked onto release/1.4 as well?", 26000),
					},
				},
				{
					Prompt: "why not just raise physics ticks to 120 instead, would that also fix it",
					Replies: []fakeapi.Reply{
						reply("It would hide it at 144 Hz (fewer frames between ticks) but not fix it — at 240 Hz it comes back. And I'd keep `physics/common/physics_ticks_per_second` at 60: doubling it doubles the physics cost of every body, and the Switch build is already at 14.1 ms of its 16.6 ms frame budget in level 5. So: ticks stay at 60, movement goes in `_physics_process`.", 27500),
					},
				},
				{
					Prompt: "no. 1.4 is frozen",
					Replies: []fakeapi.Reply{
						reply("Understood, main only.", 28500, todoWrite("toolu_gd_todo",
							[2]string{"Fix player falling through moving platform (issue #318)", "completed"},
							[2]string{"Add a regression test with a platform moving at 600 px/s", "pending"},
							[2]string{"Move bat movement to _physics_process (scripts/enemies/bat.gd)", "pending"})),
						reply("Next: the 600 px/s regression test, then bat.gd.", 29500),
					},
				},
				{
					Prompt: "ok. and leave project.godot alone unless you ask me first",
					Replies: []fakeapi.Reply{
						reply("Will do — no edits to project.godot without asking.", 31000),
					},
				},
			}
			before[len(before)-1].Replies[0].Usage = fullUsage
			after = []turn{
				{Prompt: "go on", Replies: []fakeapi.Reply{reply("Writing the regression test.", 9000)}},
				{Prompt: "k", Replies: []fakeapi.Reply{reply("Done with that part.", 9500)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "#318"),
			rx("constraint: addons vendored", `(?i)(don't|do not|never|not)[^\n]{0,15}(touch|edit|modify|change)[^\n]{0,10}addons`),
			rx("constraint: project.godot", `(?i)project\.godot[^\n]{0,60}(alone|ask)|(ask|without)[^\n]{0,60}project\.godot`),
			lit("file edited", "scripts/player.gd"),
			rx("decision: the fix is _physics_process", `_physics_process`),
			rx("failure: the first run's failing test", `(?i)test_rides_moving_platform|fell through`),
			rx("reverted change: floor_snap_length", `(?i)floor[_ ]snap[^\n]*(revert|undo|undid|undone|rolled back|git checkout|restored|worse)|(revert|undid|undone|rolled back|git checkout)[^\n]*floor[_ ]snap`),
			pipedFailed("piped command: the run after the snap change failed", `godot --headless[^\n]{0,80}\| tail -n 20`, `(?i)3 fail|Failing\s+3|three (tests )?fail|3 failing`),
			rx("failure fixed: tests pass", `(?i)(gut_cmdln|godot --headless)[^\n]{0,160}(exit 0|pass|\bok\b|5/5)|(all|5) (5 )?(tests )?pass`),
			rx("decision: physics ticks stay at 60", `(?i)(physics_ticks_per_second|physics ticks|tick rate|ticks)[^\n]{0,80}\b60\b|\b60\b[^\n]{0,30}(ticks|Hz)`),
			rx("decision's reason: Switch frame budget", `Switch`),
			rx("answer: release/1.4 frozen", `(?i)1\.4[^\n]{0,80}frozen|frozen[^\n]{0,80}1\.4`),
			lit("open todo: 600 px/s regression test", "600 px/s"),
			lit("open todo: bat.gd", "scripts/enemies/bat.gd"),
		},
	}
	return sc
}

// sparkSubmitStandIn prints what spark-submit prints for the two jobs the
// agent runs: the enrichment job dying of a YARN memory kill, and the
// key-count tool.
const sparkSubmitStandIn = `#!/bin/sh
# stand-in for spark-submit (Spark 3.5.1 on YARN)
case "$*" in
  *count_keys.py*)
    echo "25/11/25 09:41:02 INFO SparkContext: Running Spark version 3.5.1"
    echo "25/11/25 09:43:37 INFO DAGScheduler: Job 0 finished: collect at count_keys.py:31, took 151.2 s"
    echo "merchant_id    rows         share"
    echo "0              311402118    14.81%"
    echo "88412          2114903       0.10%"
    echo "10233          1988127       0.09%"
    echo "55907          1702214       0.08%"
    echo "7001           1650930       0.08%"
    echo "total rows 2102775310, distinct merchant_id 184233"
    exit 0
    ;;
  *daily_orders_enrich.py*)
    echo "25/11/25 08:12:40 INFO SparkContext: Running Spark version 3.5.1"
    echo "25/11/25 08:12:44 INFO Client: Submitted application application_1763500000000_4411"
    echo "25/11/25 08:51:03 WARN TaskSetManager: Lost task 113.0 in stage 7.0 (TID 20913) (ip-10-40-3-17.ec2.internal executor 31): ExecutorLostFailure (executor 31 exited caused by one of the running tasks) Reason: Container killed by YARN for exceeding memory limits. 14.2 GB of 14 GB physical memory used. Consider boosting spark.executor.memoryOverhead."
    echo "25/11/25 08:58:20 ERROR TaskSetManager: Task 113 in stage 7.0 failed 4 times; aborting job"
    echo "Traceback (most recent call last):"
    echo "  File \"/home/hadoop/jobs/daily_orders_enrich.py\", line 58, in <module>"
    echo "    enriched.write.mode(\"overwrite\").partitionBy(\"order_date\").parquet(out)"
    echo "py4j.protocol.Py4JJavaError: An error occurred while calling o212.parquet."
    echo ": org.apache.spark.SparkException: Job aborted due to stage failure: Task 113 in stage 7.0 failed 4 times, most recent failure: Lost task 113.3 in stage 7.0 (TID 21377): ExecutorLostFailure (executor 44 exited caused by one of the running tasks) Reason: Container killed by YARN for exceeding memory limits. 14.2 GB of 14 GB physical memory used."
    exit 1
    ;;
esac
echo "spark-submit stand-in: unexpected arguments: $*" >&2
exit 2
`

// blind13SparkSkew is a chatty data engineer's PySpark job, slow and then
// dying on a skewed join. The agent measures, explains why a broadcast
// join will not do, asks a question that stays unanswered, then launches
// three subagents at once (partition sizes, AQE settings, run history);
// right after their results it starts counting keys, and the client
// compacts inside that turn. The spark-submit command carries an S3
// secret key in its arguments.
func blind13SparkSkew() scenario {
	s3Secret := "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzB13SkEWq9"
	job := `"""Daily order enrichment: joins the day's orders with merchants and writes parquet."""
import sys
from pyspark.sql import SparkSession, functions as F

spark = SparkSession.builder.appName("daily_orders_enrich").getOrCreate()
day = sys.argv[sys.argv.index("--date") + 1]

orders = spark.read.parquet("s3a://shop-lake/raw/orders/").where(F.col("order_date") == day)
merchants = spark.read.parquet("s3a://shop-lake/dim/merchants/")

enriched = (
    orders.join(merchants, on="merchant_id", how="left")
    .withColumn("gmv_eur", F.col("amount") * F.col("fx_rate"))
)

out = "s3a://shop-lake/curated/orders_enriched/"
enriched.write.mode("overwrite").partitionBy("order_date").parquet(out)
`
	stageMetrics := `#!/bin/sh
# prints the task metrics of one stage of the last run (from the history server export)
echo "stage $1: SortMergeJoin [merchant_id] (orders x merchants), 200 tasks"
echo "shuffle read per task:  min 61.0 MB  median 96.2 MB  p95 240.7 MB  max 18.4 GB (task 113)"
echo "duration per task:      min 9 s      median 22 s     p95 58 s       max 41 min (task 113)"
echo "task 113 keys: merchant_id = 0 (100% of its records)"
`
	runs := "run_date,status,duration,stage7_max_task,note\n2026-10-28,ok,11m 02s,1.4 min,\n2026-10-29,ok,10m 47s,1.3 min,\n2026-10-30,ok,11m 31s,1.5 min,\n2026-11-01,ok,10m 58s,1.4 min,\n2026-11-02,ok,44m 12s,37 min,backfill ORD legacy import landed\n2026-11-09,ok,47m 40s,39 min,\n2026-11-16,ok,50m 15s,40 min,\n2026-11-19,ok,52m 07s,41 min,\n2026-11-20,failed,46m 31s,,ExecutorLostFailure\n"
	conf := "# shared by the nightly jobs: daily_orders_enrich, refunds_daily, payouts, fx_snapshot, gmv_rollup, merchant_scores\nspark.sql.shuffle.partitions=200\nspark.executor.memory=12g\nspark.executor.memoryOverhead=2g\nspark.sql.adaptive.enabled=true\n# disable skew join, flaky on 3.3 (2025-03)\nspark.sql.adaptive.skewJoin.enabled=false\nspark.sql.autoBroadcastJoinThreshold=-1\n"
	sc := scenario{
		Name:  "blind13-spark-skew",
		Shape: "held-out, blind13: PySpark join skew (partition sizes, runtimes), three subagents launched at once, compacted inside the turn right after their results; S3 secret key in a command argument; chatty user; in-turn",
		Files: map[string]string{
			"jobs/daily_orders_enrich.py": job,
			"jobs/tools/count_keys.py":    "import sys\n# counts rows per key of a table column, top N\n",
			"tools/stage_metrics.sh":      stageMetrics,
			"logs/runs.csv":               runs,
			"conf/prod.conf":              conf,
			"jobs/refunds_daily.py":       "# refunds job\n",
			"jobs/payouts.py":             "# payouts job\n",
			"README.md":                   "# shop-lake jobs\n\nNightly Spark jobs on the shared EMR cluster.\n",
		},
		Bins: map[string]string{
			"spark-submit": sparkSubmitStandIn,
			"hdfs":         "#!/bin/sh\n# stand-in for hdfs dfs -du\necho \"9.3 G  27.9 G  s3a://shop-lake/dim/merchants\"\n",
		},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "CLAUDE_CODE_ENABLE_TASKS=0"},
		AllowedTools:   []string{"Bash(spark-submit:*)", "Bash(hdfs:*)", "Bash(sh:*)", "Bash(tail:*)", "Bash(grep:*)", "Bash(cat:*)", "Read"},
		PermissionMode: "acceptEdits",
		Compactions:    []string{"in-turn"},
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			submit := "spark-submit --master yarn --deploy-mode client --num-executors 40 --executor-memory 12g --conf spark.hadoop.fs.s3a.access.key=AKIAIOSFODNN7EXAMPLE --conf spark.hadoop.fs.s3a.secret.key=" + s3Secret + " jobs/daily_orders_enrich.py --date 2026-11-20"
			sub := func(id, desc, prompt string) fakeapi.ToolUse { return agentCall(id, "general-purpose", desc, prompt) }
			before = []turn{
				{
					Prompt: "Morning! So, ticket DPE-1192: our daily_orders_enrich job has gone from ~11 minutes to almost an hour over the last three weeks, and last night it didn't finish at all. It has to be done by 06:00 UTC because the finance dashboards read from it, so this is kind of urgent-ish. Two things though: please don't bump spark.sql.shuffle.partitions in conf/prod.conf, five other jobs read that file and I don't want to be debugging those too. And we're capped at 40 executors on the shared cluster, so no throwing hardware at it. You can rerun last night's date to see what happens.",
					Replies: []fakeapi.Reply{
						reply("Let me read the job first.", 16000, read("toolu_sp_read", p("jobs/daily_orders_enrich.py"))),
						reply("Straight join of the day's orders to merchants on merchant_id, then a parquet write. Rerunning 2026-11-20 with the same settings as the scheduler.", 17500,
							bash("toolu_sp_run", submit, "Rerun the enrichment job for 2026-11-20")),
						reply("", 19000, bash("toolu_sp_runs", "tail -n 9 logs/runs.csv", "Recent run history")),
						reply("Reproduced: it dies in stage 7 (the join) after ~46 min — task 113 fails 4 times with \"Container killed by YARN for exceeding memory limits. 14.2 GB of 14 GB physical memory used\", then the job aborts (exit 1). The last run that finished, 2026-11-19, took 52m 07s with one task in stage 7 running 41 min. One task doing all the work smells like a skewed key.", 20500),
					},
				},
				{
					Prompt: "ugh, yes, that's the memory thing, it's been creeping up. Couldn't we just broadcast merchants and skip the shuffle entirely?",
					Replies: []fakeapi.Reply{
						reply("", 22000, bash("toolu_sp_du", "hdfs dfs -du -s -h s3a://shop-lake/dim/merchants", "Size of the merchants table")),
						reply("Not a good option here: merchants is 9.3 GB on disk (more once deserialised), and a broadcast has to fit in the driver and in every executor next to the 12g heap — it would blow past the 8 GB broadcast limit anyway. So I'm not going to broadcast merchants; the fix has to deal with the skewed key itself.\n\nSeparate question while I dig: is a big lump of orders on one placeholder merchant expected at all, or should upstream be dropping or fixing those rows before they reach us?", 23500),
					},
				},
				{
					Prompt: "good question, let me ask around. meanwhile dig in properly — use subagents if that's faster, I don't mind.",
					Replies: []fakeapi.Reply{
						reply("Launching three investigations at once: partition sizes in stage 7, the AQE/skew settings, and when the slowdown started.", 25000,
							sub("toolu_sp_agent_parts", "Partition sizes of stage 7", "Run sh tools/stage_metrics.sh 7 and report the shuffle partition sizes and task durations of the join stage, and which keys the biggest task holds."),
							sub("toolu_sp_agent_conf", "AQE and skew-join settings", "Read conf/prod.conf and report whether adaptive query execution and its skew-join handling are enabled for the nightly jobs."),
							sub("toolu_sp_agent_hist", "Runtime history of the job", "Read logs/runs.csv and report when the job's runtime jumped and what happened that day.")),
						// The three subagents draw these in whatever order their
						// requests arrive: each runs one command, then reports.
						reply("", 3000, bash("toolu_sp_sub_metrics", "sh tools/stage_metrics.sh 7", "Stage 7 task metrics")),
						reply("", 3000, bash("toolu_sp_sub_conf", "grep -n adaptive conf/prod.conf", "AQE settings")),
						reply("", 3000, bash("toolu_sp_sub_runs", "cat logs/runs.csv", "Run history")),
						reply("Stage 7 (SortMergeJoin on merchant_id): 200 shuffle partitions. Largest partition 18.4 GB (task 113), median 96.2 MB, p95 240.7 MB. Task 113 ran 41 min against a 22 s median, and every record in it has merchant_id = 0. The skew is a single key.", 3500),
						reply("conf/prod.conf has spark.sql.adaptive.enabled=true but spark.sql.adaptive.skewJoin.enabled=false (commented 'flaky on 3.3', from 2025-03; we're on 3.5.1 now), so AQE never splits the oversized partition. autoBroadcastJoinThreshold is -1.", 3500),
						reply("Runtime history: 10m 47s to 11m 31s until 2026-11-01; from 2026-11-02 on it's 44m 12s, 47m 40s, 50m 15s, 52m 07s, then the failure on 2026-11-20. The 2026-11-02 row says 'backfill ORD legacy import landed'.", 3500),
						full("", bash("toolu_sp_keys", "spark-submit --master yarn --num-executors 40 jobs/tools/count_keys.py --table orders --col merchant_id --date 2026-11-20 --top 5", "Count rows per merchant_id for 2026-11-20")),
						reply("merchant_id 0 holds 311,402,118 of the day's 2.10 billion rows. That's the lump.", 9000),
					},
				},
			}
			after = []turn{
				{Prompt: "ok so what's the plan", Replies: []fakeapi.Reply{reply("Salting that key across buckets on both sides of the join; writing it up.", 10000)}},
				{Prompt: "sounds good, go", Replies: []fakeapi.Reply{reply("On it.", 10500)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "DPE-1192"),
			rx("constraint: shuffle partitions", `(?i)(don't|do not|not|never)[^\n]{0,30}(bump|change|touch|raise)[^\n]{0,30}shuffle\.partitions|shuffle\.partitions[^\n]{0,120}(other jobs|five)`),
			rx("constraint: 40 executors", `(?i)(capped|cap|max(imum)?|limit(ed)?|at most)[^\n]{0,30}40 executors|40 executors[^\n]{0,40}(cap|max|limit)`),
			rx("constraint: done by 06:00 UTC", `06:00`),
			lit("key file read", "jobs/daily_orders_enrich.py"),
			rx("failed command, exit code", `(?i)spark-submit[^\n]{0,300}(exit (code )?1|failed|aborted|ExecutorLost)`),
			rx("failure: YARN memory kill", `(?i)exceeding memory limits|14\.2 GB of 14 GB|ExecutorLostFailure`),
			rx("finding: last good run 52m 07s", `52m 07s|52 ?min`),
			rx("decision: no broadcast of merchants", `(?i)(not|no|won't|don't|rather than|instead of)[^\n]{0,25}broadcast(ing)? (the )?merchants|broadcast(ing)? (the )?merchants[^\n]{0,80}(not|too big|won't|\bno\b)`),
			rx("decision's reason: merchants is 9.3 GB", `9\.3 ?GB`),
			rx("open thread: question about the placeholder merchant upstream", `(?i)upstream`),
			rx("subagent finding: 18.4 GB partition", `18\.4 ?GB`),
			rx("subagent finding: hot key merchant_id 0", `merchant_id ?(=|:)? ?0\b`),
			rx("subagent finding: skew join disabled", `(?i)skewJoin\.enabled[^\n]{0,10}false|skew[- ]?join[^\n]{0,40}(disabled|off|false)`),
			rx("subagent finding: slowdown since the 2026-11-02 backfill", `2026-11-02`),
		},
		Secrets: []secret{{"AWS secret access key", s3Secret}},
	}
	return sc
}

// shellcheckStandIn prints shellcheck's tty format for install.sh's
// warnings, from what the file holds at the time, and exits 1 while any
// remain.
const shellcheckStandIn = `#!/bin/sh
# stand-in for shellcheck 0.10.0
set -f
f=""
for a; do case $a in -*) ;; *) f=$a ;; esac; done
n=0
out=""
check() {
  lines=$(grep -n -- "$1" "$f")
  [ -n "$lines" ] || return 0
  old_ifs=$IFS
  IFS='
'
  for l in $lines; do
    n=$((n + 1))
    ln=${l%%:*}
    src=${l#*:}
    out="$out
In $f line $ln:
$src
^-- $2 ($3): $4
"
  done
  IFS=$old_ifs
}
check 'cd \$DOTFILES$' SC2164 warning "Use 'cd ... || exit' or 'cd ... || return' in case cd fails."
check 'cd \$DOTFILES$' SC2086 info "Double quote to prevent globbing and word splitting."
check 'mkdir -p \$BACKUP' SC2086 info "Double quote to prevent globbing and word splitting."
check '\$(ls ' SC2045 error "Iterating over ls output is fragile. Use globs."
check '\[\[' SC3010 warning "In POSIX sh, [[ ]] is undefined."
check 'mv \$HOME' SC2086 info "Double quote to prevent globbing and word splitting."
check 'ln -s \$DOTFILES' SC2086 info "Double quote to prevent globbing and word splitting."
if ! grep -q 'shellcheck source=' "$f"; then
  check '^\. \$HOME' SC1090 warning "ShellCheck can't follow non-constant source. Use a directive to specify location."
fi
if [ "$n" -eq 0 ]; then
  exit 0
fi
printf '%s\n' "$out"
echo "For more information:"
echo "  https://www.shellcheck.net/wiki/SC2045 -- Iterating over ls output is fragile. Use globs."
echo "  https://www.shellcheck.net/wiki/SC3010 -- In POSIX sh, [[ ]] is undefined."
echo "  https://www.shellcheck.net/wiki/SC2086 -- Double quote to prevent globbing ..."
exit 1
`

// blind13ShellcheckThrice cleans a dotfiles install script of shellcheck
// warnings for a user who gives constraints as a bulleted list, then
// drops one ("macOS doesn't matter anymore") between the first and second
// compactions. A TodoWrite list moves along; the script carries a
// hard-coded GitHub token the agent reads. Three compactions: automatic,
// manual /compact, automatic.
func blind13ShellcheckThrice() scenario {
	token := "ghp_Zq4T8vLm2Xr7Nc1Bw9Ke5Hd3Yp6Ja0Su8Gf4"
	install := "#!/bin/sh\n# install.sh - link dotfiles into $HOME\nDOTFILES=$HOME/.dotfiles\nBACKUP=$HOME/.dotfiles-backup/$(date +%Y%m%d)\nHOMEBREW_GITHUB_API_TOKEN=" + token + "\nexport HOMEBREW_GITHUB_API_TOKEN\n\ncd $DOTFILES\nmkdir -p $BACKUP\n\nfor f in $(ls home/); do\n  if [[ -e $HOME/.$f ]]; then\n    mv $HOME/.$f $BACKUP/\n  fi\n  ln -s $DOTFILES/home/$f $HOME/.$f\ndone\n\n# BSD and GNU sed disagree on -i; the .bak suffix works on both\nsed -i.bak 's|^export EDITOR=.*|export EDITOR=nvim|' \"$HOME/.profile\" && rm -f \"$HOME/.profile.bak\"\n\n. $HOME/.dotfiles.local\n"
	sc := scenario{
		Name:  "blind13-shellcheck-thrice",
		Shape: "held-out, blind13: POSIX sh dotfiles script cleaned of shellcheck SC warnings, bulleted constraints with one dropped later, TodoWrite, hard-coded GitHub token read; auto, manual /compact, auto",
		Files: map[string]string{
			"install.sh":         install,
			"home/zshrc":         "export PATH=$HOME/bin:$PATH\n",
			"home/gitconfig":     "[user]\n\tname = me\n",
			"home/tmux.conf":     "set -g mouse on\n",
			"private/ssh_config": "Host *\n  IdentityAgent ~/.1password/agent.sock\n",
			"README.md":          "# dotfiles\n\n`./install.sh` links everything under home/ into $HOME.\n",
		},
		Bins:           map[string]string{"shellcheck": shellcheckStandIn},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "CLAUDE_CODE_ENABLE_TASKS=0"},
		AllowedTools:   []string{"Bash(shellcheck:*)", "Bash(sh -n:*)", "Bash(dash -n:*)", "Bash(echo:*)", "Read"},
		PermissionMode: "acceptEdits",
		Compactions:    []string{"auto", "manual", "auto"},
		Script: func(dir string) (before, after []turn) {
			f := filepath.Join(dir, "install.sh")
			before = []turn{
				{
					Prompt: "shellcheck is yelling at my dotfiles install.sh, can you clean it up? ground rules:\n- stays POSIX sh, no bashisms (it runs under dash on the servers)\n- must work on macOS too, so BSD sed/find, nothing GNU-only\n- don't touch anything under private/\n- keep it one file, no helper scripts",
					Replies: []fakeapi.Reply{
						reply("", 12000, read("toolu_sh_read", f)),
						reply("", 13000, bash("toolu_sh_sc1", "shellcheck -s sh install.sh", "Run shellcheck on install.sh")),
						reply("8 findings. Plan:", 14000, todoWrite("toolu_sh_todo1",
							[2]string{"Quote variable expansions (SC2086)", "in_progress"},
							[2]string{"Add || exit to cd (SC2164)", "pending"},
							[2]string{"Replace [[ ]] with [ ] (SC3010)", "pending"},
							[2]string{"Glob instead of iterating over ls output (SC2045)", "pending"},
							[2]string{"Handle the non-constant source of ~/.dotfiles.local (SC1090)", "pending"})),
						reply("", 15000, edit("toolu_sh_e1", f, "cd $DOTFILES\nmkdir -p $BACKUP\n", "cd \"$DOTFILES\" || exit 1\nmkdir -p \"$BACKUP\"\n")),
						reply("", 16000, edit("toolu_sh_e2", f, "    mv $HOME/.$f $BACKUP/\n  fi\n  ln -s $DOTFILES/home/$f $HOME/.$f\n", "    mv \"$HOME/.$f\" \"$BACKUP/\"\n  fi\n  ln -s \"$DOTFILES/home/$f\" \"$HOME/.$f\"\n")),
						reply("", 17000, bash("toolu_sh_sc2", "shellcheck -s sh install.sh", "Re-run shellcheck")),
						reply("", 18000, todoWrite("toolu_sh_todo2",
							[2]string{"Quote variable expansions (SC2086)", "completed"},
							[2]string{"Add || exit to cd (SC2164)", "completed"},
							[2]string{"Replace [[ ]] with [ ] (SC3010)", "in_progress"},
							[2]string{"Glob instead of iterating over ls output (SC2045)", "pending"},
							[2]string{"Handle the non-constant source of ~/.dotfiles.local (SC1090)", "pending"})),
						reply("Quoting and the cd guard are done: down from 8 findings to 3 (SC2045, SC3010, SC1090).\n\nHeads-up, not a shellcheck thing: line 5 hard-codes a GitHub token in HOMEBREW_GITHUB_API_TOKEN. It's in git history, so it should be rotated and read from the environment instead. I haven't changed it since it's yours to decide.", 19000),
					},
				},
			}
			before[0].Replies[len(before[0].Replies)-1].Usage = fullUsage
			before = append(before,
				// Compaction 1 (auto) happens before this turn is sent.
				turn{
					Prompt: "ok keep going",
					Replies: []fakeapi.Reply{
						reply("", 9000, read("toolu_sh_read2", f)),
						reply("", 10000, edit("toolu_sh_e3", f, "  if [[ -e $HOME/.$f ]]; then\n", "  if [ -e \"$HOME/.$f\" ]; then\n")),
						reply("`[[ ]]` replaced with a POSIX `[ ]` test (SC3010 done).", 11000, todoWrite("toolu_sh_todo3",
							[2]string{"Quote variable expansions (SC2086)", "completed"},
							[2]string{"Add || exit to cd (SC2164)", "completed"},
							[2]string{"Replace [[ ]] with [ ] (SC3010)", "completed"},
							[2]string{"Glob instead of iterating over ls output (SC2045)", "in_progress"},
							[2]string{"Handle the non-constant source of ~/.dotfiles.local (SC1090)", "pending"})),
						reply("Next is the loop over ls output (SC2045).", 11500),
					},
				},
				turn{
					Prompt: "oh btw, actually, macOS doesn't matter anymore. I moved the last mac to linux last week. GNU stuff is fine now",
					Replies: []fakeapi.Reply{
						reply("Good to know — then the sed dance can go too. First the loop:", 12000,
							edit("toolu_sh_e4", f, "for f in $(ls home/); do\n", "for path in home/*; do\n  f=${path#home/}\n")),
						reply("For SC1090 I'll add a `# shellcheck source=/dev/null` directive on that line rather than disabling SC1090 for the whole file, because ~/.dotfiles.local only exists on some machines and every other source should still be checked.", 13000,
							edit("toolu_sh_e5", f, ". $HOME/.dotfiles.local\n", "# shellcheck source=/dev/null\n[ -f \"$HOME/.dotfiles.local\" ] && . \"$HOME/.dotfiles.local\"\n")),
						reply("", 14000, bash("toolu_sh_sc3", "shellcheck -s sh install.sh", "Re-run shellcheck")),
						reply("", 15000, todoWrite("toolu_sh_todo4",
							[2]string{"Quote variable expansions (SC2086)", "completed"},
							[2]string{"Add || exit to cd (SC2164)", "completed"},
							[2]string{"Replace [[ ]] with [ ] (SC3010)", "completed"},
							[2]string{"Glob instead of iterating over ls output (SC2045)", "completed"},
							[2]string{"Handle the non-constant source of ~/.dotfiles.local (SC1090)", "completed"},
							[2]string{"Simplify the EDITOR sed to GNU sed -i (macOS no longer needed)", "pending"},
							[2]string{"Test install.sh in a fresh debian:bookworm container under dash", "pending"})),
						reply("shellcheck is clean now (exit 0, no output). Left: drop the BSD-compatible `sed -i.bak` workaround since macOS is out, and try the script in a fresh debian:bookworm container under dash.", 16000),
					},
				},
				// Compaction 2 (manual).
				turn{Prompt: "/compact"},
				turn{
					Prompt: "what's left?",
					Replies: []fakeapi.Reply{
						reply("", 9000, read("toolu_sh_read3", f)),
						reply("", 10000, edit("toolu_sh_e6", f, "# BSD and GNU sed disagree on -i; the .bak suffix works on both\nsed -i.bak 's|^export EDITOR=.*|export EDITOR=nvim|' \"$HOME/.profile\" && rm -f \"$HOME/.profile.bak\"\n", "sed -i 's|^export EDITOR=.*|export EDITOR=nvim|' \"$HOME/.profile\"\n")),
						reply("", 11000, bash("toolu_sh_dash", "dash -n install.sh && shellcheck -s sh install.sh && echo clean", "Syntax-check under dash and run shellcheck")),
						reply("", 12000, todoWrite("toolu_sh_todo5",
							[2]string{"Quote variable expansions (SC2086)", "completed"},
							[2]string{"Add || exit to cd (SC2164)", "completed"},
							[2]string{"Replace [[ ]] with [ ] (SC3010)", "completed"},
							[2]string{"Glob instead of iterating over ls output (SC2045)", "completed"},
							[2]string{"Handle the non-constant source of ~/.dotfiles.local (SC1090)", "completed"},
							[2]string{"Simplify the EDITOR sed to GNU sed -i (macOS no longer needed)", "completed"},
							[2]string{"Test install.sh in a fresh debian:bookworm container under dash", "pending"})),
						reply("The sed line is plain GNU `sed -i` now. `dash -n` parses it and shellcheck stays clean. Only the debian:bookworm container test is left — and the token on line 5 still needs rotating on your side.", 13000),
					},
				},
			)
			before[len(before)-1].Replies[len(before[len(before)-1].Replies)-1].Usage = fullUsage
			after = []turn{
				// Compaction 3 (auto) happens before this turn is sent.
				{Prompt: "status?", Replies: []fakeapi.Reply{reply("Nearly done.", 8000)}},
				{Prompt: "thx", Replies: []fakeapi.Reply{reply("You're welcome.", 8200)}},
			}
			return before, after
		},
		Facts: []fact{
			rx("constraint: POSIX sh under dash", `(?i)POSIX|no bashisms`),
			rx("constraint: private/", `(?i)(don't|do not|never|not)[^\n]{0,20}(touch|edit|modify|change)[^\n]{0,25}private/`),
			rx("constraint: one file", `(?i)one file|single file|no helper scripts`),
			rx("constraint: macOS / BSD sed", `(?i)macOS`, `(?i)BSD`).until(1),
			lit("file edited", "install.sh"),
			rx("failed command, exit code", `(?i)shellcheck[^\n]{0,60}(exit (code )?1|8 (findings|warnings|issues))`).until(1),
			rx("finding: hard-coded GitHub token to rotate", `(?i)(rotat|hard-?cod(ed|es))[^\n]{0,80}(token|HOMEBREW_GITHUB_API_TOKEN)|(token|HOMEBREW_GITHUB_API_TOKEN)[^\n]{0,80}(rotat|hard-?cod(ed|es))`),
			lit("open todo: SC3010", "SC3010").until(1),
			lit("open todo: SC2045", "SC2045").until(1),
			lit("open todo: SC1090", "SC1090").until(1),
			rx("constraint relaxed: macOS no longer matters", `(?i)macOS[^\n]{0,80}(doesn't matter|does not matter|no longer|not needed|dropped|anymore|relaxed|out)|(no longer|dropped|relaxed)[^\n]{0,60}macOS`).from(2),
			rx("decision: SC1090 directive on the line, not disabled globally", `(?i)shellcheck source=/dev/null|directive`).from(2),
			rx("decision's reason: ~/.dotfiles.local only on some machines", `(?i)only (exists )?on some machines|some machines`).from(2),
			rx("command outcome: shellcheck clean", `(?i)shellcheck[^\n]{0,80}(clean|exit 0|no (output|findings|warnings))|(clean|exit 0)[^\n]{0,40}shellcheck`).from(2),
			rx("open todo: debian:bookworm container test", `debian:bookworm`).from(2),
			rx("file change: GNU sed -i replaces the .bak dance", `(?i)sed -i\b[^.]|GNU[^\n]{0,20}sed`).from(3),
		},
		Secrets: []secret{{"GitHub token", token}},
	}
	return sc
}

// mongoshStandIn prints what mongosh prints for the agent's commands:
// explain() of the report's aggregation on prod, the collection's index
// sizes, the $lookup's explain, and the explain on a local copy once the
// compound index exists.
const mongoshStandIn = `#!/bin/sh
# stand-in for mongosh 2.3.2 (server 6.0.18)
case "$*" in
  *localhost*)
    cat <<'EOF'
{
  queryPlanner: {
    namespace: 'shop.orders',
    winningPlan: {
      stage: 'PROJECTION_COVERED',
      inputStage: {
        stage: 'IXSCAN',
        keyPattern: { status: 1, createdAt: 1, customerId: 1, total: 1 },
        indexName: 'status_1_createdAt_1_customerId_1_total_1',
        indexBounds: { status: [ '["paid", "paid"]' ], createdAt: [ '[new Date(1756252800000), new Date(9223372036854775807)]' ] }
      }
    }
  },
  executionStats: {
    nReturned: 412880,
    executionTimeMillis: 212,
    totalKeysExamined: 412880,
    totalDocsExamined: 0
  }
}
EOF
    ;;
  *indexSizes*)
    cat <<'EOF'
{
  _id_: 1952198656,
  status_1: 641728512,
  createdAt_1: 933232640,
  customerId_1: 1020067840
}
count: 41803117, avgObjSize: 612
EOF
    ;;
  *lookup*)
    cat <<'EOF'
{
  '$lookup': {
    from: 'customers', as: 'customer', localField: '_id', foreignField: '_id'
  },
  totalDocsExamined: 50,
  totalKeysExamined: 50,
  collectionScans: 0,
  indexesUsed: [ '_id_' ],
  executionTimeMillisEstimate: 3
}
EOF
    ;;
  *explain*)
    cat <<'EOF'
{
  explainVersion: '1',
  stages: [
    {
      '$cursor': {
        queryPlanner: {
          namespace: 'shop.orders',
          parsedQuery: { '$and': [ { status: { '$eq': 'paid' } }, { createdAt: { '$gte': ISODate('2025-08-27T00:00:00.000Z') } } ] },
          winningPlan: {
            stage: 'FETCH',
            filter: { createdAt: { '$gte': ISODate('2025-08-27T00:00:00.000Z') } },
            inputStage: { stage: 'IXSCAN', keyPattern: { status: 1 }, indexName: 'status_1', direction: 'forward' }
          },
          rejectedPlans: [
            { stage: 'FETCH', filter: { status: { '$eq': 'paid' } }, inputStage: { stage: 'IXSCAN', keyPattern: { createdAt: 1 }, indexName: 'createdAt_1' } }
          ]
        },
        executionStats: {
          executionSuccess: true,
          nReturned: 412880,
          executionTimeMillis: 9412,
          totalKeysExamined: 3950112,
          totalDocsExamined: 3950112
        }
      },
      nReturned: Long('412880'),
      executionTimeMillisEstimate: Long('9120')
    },
    { '$group': { _id: '$customerId', spent: { '$sum': '$total' } }, nReturned: Long('61022'), executionTimeMillisEstimate: Long('9301') },
    { '$sort': { sortKey: { spent: -1 }, limit: Long('50') }, nReturned: Long('50'), executionTimeMillisEstimate: Long('9388') }
  ],
  serverInfo: { host: 'cluster-prod-shard-00-02.x7ab2.mongodb.net', port: 27017, version: '6.0.18' },
  ok: 1
}
EOF
    ;;
  *)
    echo "mongosh stand-in: unexpected arguments" >&2
    exit 2
    ;;
esac
`

// blind13MongoExplain is a slow top-customers report on MongoDB 6.0: the
// user pastes a mongodb+srv connection string with a password, the
// agent's grep of the API log prints a JWT, explain() shows a poor index,
// a compound index is proposed by the ESR rule. The agent asks where to
// build it; the user answers three turns later in one word. A second
// question (drop the old index?) is never answered. A manual /compact.
func blind13MongoExplain() scenario {
	password := "T4xq9LmZ2vW8rKp1"
	uri := "mongodb+srv://reporting_ro:" + password + "@cluster-prod.x7ab2.mongodb.net/shop"
	jwt := "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c3JfODgxMiIsInJvbGUiOiJmaW5hbmNlIiwiZXhwIjoxNzk2MDAwMDAwfQ.q3Vt8Yb2m0kPzN4wR7cX1dL9sF6hJ5gA0eT2uI8oQ4c"
	report := "// Top customers by spend over the last N days (GET /api/reports/top-customers).\nexport async function topCustomers(db, days = 90) {\n  const since = new Date(Date.now() - days * 86400000);\n  return db.collection(\"orders\").aggregate([\n    { $match: { status: \"paid\", createdAt: { $gte: since } } },\n    { $group: { _id: \"$customerId\", spent: { $sum: \"$total\" } } },\n    { $sort: { spent: -1 } },\n    { $limit: 50 },\n    { $lookup: { from: \"customers\", localField: \"_id\", foreignField: \"_id\", as: \"customer\" } },\n  ]).toArray();\n}\n"
	logLines := "2026-11-24T14:01:55.102Z INFO http GET /api/orders/9921 status=200 duration_ms=18\n" +
		"2026-11-24T14:02:11.311Z INFO http GET /api/reports/top-customers?days=90 status=200 duration_ms=9412 user=usr_8812 auth=\"Bearer " + jwt + "\"\n" +
		"2026-11-24T14:02:12.020Z INFO http GET /api/health status=200 duration_ms=1\n" +
		"2026-11-24T15:30:48.777Z INFO http GET /api/reports/top-customers?days=90 status=200 duration_ms=9388 user=usr_8812 auth=\"Bearer " + jwt + "\"\n"
	pipeline := `[{$match:{status:"paid",createdAt:{$gte:new Date("2025-08-27")}}},{$group:{_id:"$customerId",spent:{$sum:"$total"}}},{$sort:{spent:-1}},{$limit:50}]`
	sc := scenario{
		Name:  "blind13-mongo-explain",
		Shape: "held-out, blind13: MongoDB 6.0 aggregation slowness read via explain(), question answered three turns later in one word, one never answered; mongodb+srv password in the prompt, JWT in a log; manual /compact",
		Files: map[string]string{
			"src/reports/topCustomers.js": report,
			"logs/api-2026-11-24.log":     logLines,
			"package.json":                "{\n  \"name\": \"shop-api\",\n  \"type\": \"module\",\n  \"dependencies\": { \"mongodb\": \"^6.9.0\" }\n}\n",
			"src/server.js":               "import { topCustomers } from './reports/topCustomers.js';\n",
			"docs/runbooks/README.md":     "# Runbooks\n",
		},
		Bins:           map[string]string{"mongosh": mongoshStandIn},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "CLAUDE_CODE_ENABLE_TASKS=0"},
		AllowedTools:   []string{"Bash(mongosh:*)", "Bash(grep:*)", "Read"},
		PermissionMode: "acceptEdits",
		Trigger:        "manual",
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			explain := "mongosh \"" + uri + "\" --quiet --eval 'db.orders.explain(\"executionStats\").aggregate(" + pipeline + ")'"
			before = []turn{
				{
					Prompt: "hey, the top customers report (GET /api/reports/top-customers) takes about 9 seconds on prod and finance is complaining. ticket SHOP-1407. here's the read-only uri if you need it: " + uri + "\nplease don't run anything that writes against prod, reads only. also we're on mongo 6.0 so nothing 7.0-only like $percentile.",
					Replies: []fakeapi.Reply{
						reply("", 15000, bash("toolu_mg_log", "grep top-customers logs/api-2026-11-24.log", "Find the slow requests in yesterday's API log")),
						reply("", 16000, read("toolu_mg_read", p("src/reports/topCustomers.js"))),
						reply("", 17500, bash("toolu_mg_explain", explain, "explain() the report's aggregation on prod (read-only)")),
						reply("The log shows 9412 ms and 9388 ms for the two calls yesterday. explain() says why: the $match uses the single-field `status_1` index, so it walks every paid order ever — totalKeysExamined 3,950,112 and totalDocsExamined 3,950,112 to return 412,880 — and filters createdAt after the FETCH. executionTimeMillis 9412.\n\nProposal: a compound index `{ status: 1, createdAt: 1, customerId: 1, total: 1 }`. It follows the ESR rule (equality on status first, then the createdAt range), and with customerId and total in it the $group can be served from the index alone (covered, no document fetches).\n\nOne question before anything gets built: rolling build on the secondaries, or straight on the primary in a quiet hour?", 19000),
					},
				},
				{
					Prompt: "how big is that index going to be roughly",
					Replies: []fakeapi.Reply{
						reply("", 20500, bash("toolu_mg_sizes", "mongosh \""+uri+"\" --quiet --eval 'db.orders.stats().indexSizes'", "Current index sizes on orders")),
						reply("The existing single-field indexes are 0.6–1.0 GB each over 41.8M orders. A four-field index carries all four keys per entry, so I'd estimate roughly 1.4 GB.", 21500),
					},
				},
				{
					Prompt: "hm ok. and the $lookup into customers, is that slow too?",
					Replies: []fakeapi.Reply{
						reply("", 23000, bash("toolu_mg_lookup", "mongosh \""+uri+"\" --quiet --eval 'db.orders.explain(\"executionStats\").aggregate("+pipeline[:len(pipeline)-1]+`,{$lookup:{from:"customers",localField:"_id",foreignField:"_id",as:"customer"}}])'`, "explain() the $lookup stage")),
						reply("No — the $lookup runs after the $limit, so it does 50 lookups on customers' `_id_` index: 50 keys, 50 docs, about 3 ms. All the time is in the $match.\n\nAnother question: once the new index is in, should the old `status_1` index be dropped? It would save ~640 MB, but I think the nightly export may still use it.", 24000),
					},
				},
				{
					Prompt: "rolling.",
					Replies: []fakeapi.Reply{
						reply("Rolling build on the secondaries it is. Writing the runbook.", 25500,
							write("toolu_mg_runbook", p("docs/runbooks/SHOP-1407-index.md"), "# SHOP-1407: compound index on orders\n\nIndex: `{ status: 1, createdAt: 1, customerId: 1, total: 1 }`\n\nRolling build, one secondary at a time:\n\n1. Restart the secondary as a standalone on another port.\n2. `db.orders.createIndex({ status: 1, createdAt: 1, customerId: 1, total: 1 })`\n3. Restart it as a replica set member and wait for it to catch up.\n4. Repeat for the other secondary, then step the primary down and do it.\n")),
						reply("I'm leaving `hint()` out of the pipeline: the planner picks the new index on its own, and a hint naming an index that doesn't exist yet would make the query fail on staging until the index is built there. I am adding maxTimeMS so the endpoint fails fast instead of hanging.", 27000,
							edit("toolu_mg_edit", p("src/reports/topCustomers.js"), "  ]).toArray();\n", "  ], { maxTimeMS: 15000 }).toArray();\n")),
						reply("", 28500, bash("toolu_mg_local", "mongosh mongodb://localhost:27017/shop --quiet --eval 'db.orders.explain(\"executionStats\").aggregate("+pipeline+")'", "explain() on the local copy with the new index")),
						reply("On the local copy (last night's snapshot, index built there): PROJECTION_COVERED over the new index, totalKeysExamined 412,880, totalDocsExamined 0, executionTimeMillis 212 — down from 9412 on prod.", 30000),
					},
				},
			}
			after = []turn{
				{Prompt: "nice. what next", Replies: []fakeapi.Reply{reply("Getting the runbook reviewed.", 7000)}},
				{Prompt: "ok", Replies: []fakeapi.Reply{reply("Noted.", 7200)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket", "SHOP-1407"),
			rx("constraint: reads only against prod", `(?i)(nothing|anything|don't run)[^\n]{0,40}writes?[^\n]{0,30}prod|reads only`),
			rx("constraint: MongoDB 6.0, nothing 7.0-only", `(?i)\$percentile|7\.0[- ]only`),
			rx("finding: status_1 walks 3,950,112 keys", `3,?950,?112`),
			rx("finding: 9412 ms on prod", `9,?412`),
			rx("decision: compound index", `status: ?1, ?createdAt: ?1, ?customerId: ?1, ?total: ?1`),
			rx("decision's reason: ESR rule", `(?i)\bESR\b|equality[^\n]{0,30}(sort|range)`),
			rx("finding: index about 1.4 GB", `1\.4 ?GB`),
			rx("finding: $lookup is fast (50 lookups, 3 ms)", `(?i)\$lookup[^\n]{0,200}(_id_|fast|3 ?ms|50)`),
			rx("answer: rolling build on the secondaries", `(?i)rolling`),
			rx("open thread: drop the old status_1 index?", `(?i)drop[^\n]{0,80}status_1|status_1[^\n]{0,80}drop`),
			rx("decision: no hint()", `(?i)hint`),
			rx("decision's reason: hint would fail on staging", `(?i)staging`),
			lit("file created", "docs/runbooks/SHOP-1407-index.md"),
			lit("file edited", "src/reports/topCustomers.js"),
			rx("command outcome: 212 ms covered on the local copy", `\b212\b`),
		},
		Secrets: []secret{
			{"MongoDB password in a mongodb+srv URI", password},
			{"JWT bearer token", jwt},
		},
	}
	return sc
}

// zigStandIn prints what Zig 0.13.0 prints for the agent's commands: the
// 32-bit ARM cross build failing on a u64 length until src/csv.zig casts
// it checked, and a long test run with one failure that stays.
const zigStandIn = `#!/bin/sh
# stand-in for zig 0.13.0
case "$*" in
  version) echo "0.13.0"; exit 0 ;;
  "build test"*)
    i=1
    while [ $i -le 38 ]; do
      echo "test $i/39 csv.test.field parsing case $i...OK"
      i=$((i + 1))
    done
    echo "test 39/39 csv.test.quoted field with CRLF inside quotes...FAIL (TestExpectedEqual)"
    echo "expected 3, found 2"
    echo "/home/user/src/tally/src/csv.zig:214:5: 0x10a8f3c in test.quoted field with CRLF inside quotes (test)"
    echo "    try std.testing.expectEqual(@as(usize, 3), fields.len);"
    echo "    ^"
    echo "38 passed; 0 skipped; 1 failed."
    echo "error: the following test command failed with exit code 1:"
    echo "/home/user/src/tally/.zig-cache/o/5d1c0e9a7b2f44e1/test --seed=0x8a41c2d7"
    echo "Build Summary: 3/5 steps succeeded; 1 failed; 38/39 tests passed; 1 failed"
    echo "test transitive failure"
    echo "└─ run test 38/39 passed, 1 failed"
    exit 1
    ;;
  *arm-linux-musleabihf*)
    if grep -q 'std.math.cast' src/csv.zig; then
      mkdir -p zig-out/bin
      head -c 397312 /dev/zero > zig-out/bin/tally
      exit 0
    fi
    echo "install"
    echo "└─ install tally"
    echo "   └─ zig build-exe tally ReleaseSmall arm-linux-musleabihf 1 errors"
    echo "src/csv.zig:11:22: error: expected type 'usize', found 'u64'"
    echo "    const n: usize = h.len_bytes;"
    echo "                     ~^~~~~~~~~"
    echo "src/csv.zig:11:22: note: unsigned 32-bit int cannot represent all possible unsigned 64-bit values"
    echo "referenced by:"
    echo "    readHeader: src/csv.zig:10:5"
    echo "    parseFile: src/main.zig:41:22"
    echo "    main: src/main.zig:17:5"
    echo "    callMain: /usr/lib/zig/std/start.zig:524:32"
    echo "    remaining reference traces hidden; use '-freference-trace' to see all reference traces"
    echo "error: the following command failed with 1 compilation errors:"
    echo "/usr/bin/zig build-exe -OReleaseSmall -target arm-linux-musleabihf -mcpu baseline --dep build_options -Mroot=/home/user/src/tally/src/main.zig -Mbuild_options=/home/user/src/tally/.zig-cache/c/8f1e/options.zig --cache-dir /home/user/src/tally/.zig-cache --global-cache-dir /home/user/.cache/zig --name tally --zig-lib-dir /usr/lib/zig/ --listen=-"
    echo "Build Summary: 2/5 steps succeeded; 1 failed"
    echo "install transitive failure"
    echo "└─ install tally transitive failure"
    echo "   └─ zig build-exe tally ReleaseSmall arm-linux-musleabihf 1 errors"
    exit 1
    ;;
esac
echo "zig stand-in: unexpected arguments: $*" >&2
exit 2
`

// blind13ZigCross is a Zig CLI cross-compiled for a 32-bit Raspberry Pi:
// a long compiler error, a checked cast chosen over @intCast for a reason,
// a toolchain bump the user asks for and then takes back (the agent puts
// build.zig.zon back), a Slack webhook the user pastes that the agent
// writes into a git-ignored .env.local, and a test failure left open on
// purpose. A manual /compact with instructions.
func blind13ZigCross() scenario {
	webhook := "https://hooks.slack.com/services/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"
	csv := "const std = @import(\"std\");\n\npub const Header = struct {\n    magic: [4]u8,\n    len_bytes: u64,\n};\n\n// ... parsing elided ...\n\npub fn readHeader(h: Header) !usize {\n    const n: usize = h.len_bytes;\n    return n;\n}\n"
	zon := ".{\n    .name = \"tally\",\n    .version = \"0.9.1\",\n    .minimum_zig_version = \"0.13.0\",\n    .dependencies = .{},\n    .paths = .{ \"build.zig\", \"build.zig.zon\", \"src\" },\n}\n"
	sc := scenario{
		Name:  "blind13-zig-cross",
		Shape: "held-out, blind13: Zig CLI cross-compiled for 32-bit ARM, long compiler error, toolchain bump asked for then taken back, Slack webhook written to .env.local, test failure left open; manual /compact with instructions",
		Files: map[string]string{
			"src/csv.zig":                   csv,
			"src/main.zig":                  "const std = @import(\"std\");\nconst csv = @import(\"csv.zig\");\n\npub fn main() !void {}\n",
			"build.zig":                     "const std = @import(\"std\");\n\npub fn build(b: *std.Build) void {\n    _ = b;\n}\n",
			"build.zig.zon":                 zon,
			".gitignore":                    "zig-out/\n.zig-cache/\n.env.local\n",
			".github/workflows/release.yml": "name: release\non:\n  push:\n    tags: ['v*']\njobs:\n  build:\n    strategy:\n      matrix:\n        target: [x86_64-linux-musl, aarch64-linux-musl]\n",
			"scripts/notify.sh":             "#!/bin/sh\n# posts the release line to Slack; reads SLACK_WEBHOOK_URL from .env.local\n. ./.env.local\n",
		},
		Bins:           map[string]string{"zig": zigStandIn},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "CLAUDE_CODE_ENABLE_TASKS=0"},
		AllowedTools:   []string{"Bash(zig:*)", "Bash(du:*)", "Read"},
		PermissionMode: "acceptEdits",
		Trigger:        "manual",
		CompactArgs:    "keep it short, we'll pick this up after lunch",
		Script: func(dir string) (before, after []turn) {
			p := func(rel string) string { return filepath.Join(dir, rel) }
			cross := "zig build -Dtarget=arm-linux-musleabihf -Doptimize=ReleaseSmall"
			before = []turn{
				{
					Prompt: "tally 0.9.2 has to run on the Pi Zero W boxes in the warehouse (32-bit ARM) and the cross build breaks. also bump us to zig 0.14 while you're at it. no new dependencies in build.zig.zon please.",
					Replies: []fakeapi.Reply{
						reply("", 14000, bash("toolu_zg_cross1", cross, "Cross-compile for 32-bit ARM")),
						reply("", 15000, read("toolu_zg_read_csv", p("src/csv.zig"))),
						reply("The error is `src/csv.zig:11:22: error: expected type 'usize', found 'u64'`: on arm-linux-musleabihf usize is 32 bits, and `len_bytes` in the file header is a u64. On 64-bit targets the assignment was silently fine.\n\nI'll use `std.math.cast(usize, h.len_bytes) orelse return error.FileTooLarge` rather than `@intCast`, because in ReleaseSmall a failing @intCast is undefined behaviour and a >4 GiB file would be misread silently instead of rejected.", 16500,
							edit("toolu_zg_fix", p("src/csv.zig"), "    const n: usize = h.len_bytes;\n", "    const n = std.math.cast(usize, h.len_bytes) orelse return error.FileTooLarge;\n")),
						reply("", 17500, bash("toolu_zg_cross2", cross+" && du -k zig-out/bin/tally", "Cross-compile again and check the size")),
						reply("Now the toolchain bump.", 18500, read("toolu_zg_read_zon", p("build.zig.zon"))),
						reply("", 19500, edit("toolu_zg_zon", p("build.zig.zon"), ".minimum_zig_version = \"0.13.0\",", ".minimum_zig_version = \"0.14.0\",")),
						reply("The cross build passes: zig-out/bin/tally is 388 KiB for arm-linux-musleabihf. build.zig.zon now asks for zig 0.14.0 — the 0.14 API changes in build.zig are next.", 20500),
					},
				},
				{
					Prompt: "wait no, forget 0.14. the warehouse build box installs zig from debian and that's 0.13.0. stay on 0.13.0.",
					Replies: []fakeapi.Reply{
						reply("Right, putting it back.", 21500, edit("toolu_zg_zon_back", p("build.zig.zon"), ".minimum_zig_version = \"0.14.0\",", ".minimum_zig_version = \"0.13.0\",")),
						reply("", 22500, bash("toolu_zg_test", "zig build test --summary all", "Run the test suite")),
						reply("build.zig.zon is back to 0.13.0; we stay on zig 0.13.0.\n\nThe tests show one failure that has nothing to do with the cast: `csv.test.quoted field with CRLF inside quotes` expects 3 fields and gets 2 (src/csv.zig:214). 38 of 39 pass. Should I look at it now?", 24000),
					},
				},
				{
					Prompt: "no leave that one, Ines is rewriting the quoting code this week. oh and for the release notify script, the webhook is " + webhook + " , put it where notify.sh expects it",
					Replies: []fakeapi.Reply{
						reply("", 25500, write("toolu_zg_env", p(".env.local"), "SLACK_WEBHOOK_URL="+webhook+"\n")),
						reply("Written to .env.local, which .gitignore already excludes, so it stays out of git. I've left the CRLF test failing for Ines.\n\nLeft for 0.9.2:\n1. Add arm-linux-musleabihf to the target matrix in .github/workflows/release.yml\n2. Run tally on a real Pi Zero W against last week's 2.3 GB inventory export", 27000),
					},
				},
			}
			after = []turn{
				{Prompt: "back. where were we", Replies: []fakeapi.Reply{reply("The release matrix is next.", 6000)}},
				{Prompt: "go", Replies: []fakeapi.Reply{reply("Editing release.yml.", 6500)}},
			}
			return before, after
		},
		Facts: []fact{
			rx("ticket: release 0.9.2", `0\.9\.2`),
			rx("constraint: stay on zig 0.13.0 (0.14 taken back)", `(?i)(stay|stays|remain|pinned|keep)[^\n]{0,30}0\.13|0\.13\.0[^\n]{0,80}(debian|not 0\.14|instead of 0\.14|taken back|reverted)|(forget|no|not|drop(ped)?|revert(ed)?|cancel(led)?)[^\n]{0,30}0\.14`),
			rx("constraint: no new dependencies in build.zig.zon", `(?i)(no|don't add|without)[^\n]{0,20}(new )?dependenc`),
			lit("file edited", "src/csv.zig"),
			rx("failed command, exit code", `(?i)zig build -Dtarget=arm-linux-musleabihf[^\n]{0,120}(exit (code )?1|fail)`),
			lit("failure: the compiler error", "expected type 'usize', found 'u64'"),
			rx("decision: std.math.cast, not @intCast", `std\.math\.cast`, `(?i)FileTooLarge|@intCast`),
			rx("decision's reason: @intCast is UB in ReleaseSmall", `(?i)undefined behaviou?r|\bUB\b|misread silently`),
			rx("failure fixed: cross build passes", `(?i)(cross[- ]?build|arm-linux-musleabihf)[^\n]{0,120}(pass|exit 0|succeed|fixed|ok\b)`),
			rx("finding: 388 KiB binary", `388 ?(KiB|K|kB)`),
			pipedFailed("still failing: zig build test (the CRLF test, left for Ines)", `zig build test`, `(?i)CRLF`),
			rx("decision: CRLF test left for Ines", `(?i)Ines`),
			lit("file created", ".env.local"),
			rx("next step 1: release matrix", `(?i)arm-linux-musleabihf[^\n]{0,80}(matrix|release\.yml)|(matrix|release\.yml)[^\n]{0,80}arm-linux-musleabihf`),
			rx("next step 2: real Pi Zero W with the 2.3 GB export", `2\.3 ?GB`),
		},
		Secrets: []secret{{"Slack webhook URL", webhook}},
	}
	return sc
}
