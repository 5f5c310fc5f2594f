package e2e

import (
	"path/filepath"

	"github.com/cairn-agent/cairn/e2e/fakeapi"
)

// The recall bench's sixteenth blind set: five held-out sessions written
// without reading cairn's extraction, checkpoint, render or redaction code
// nor any other scenario's body, only the bench's types and helpers, the
// client's protocol notes and real transcripts. Their first run on main is
// the blind measurement; a check may only be corrected where it could not
// have matched a faithful restore, never because cairn missed it.
//
// Each is a kind of session no earlier set used, in a voice of its own:
//   - an Elm shop cart for a chatty user: one long session of thirteen
//     turns before an automatic compaction, the plan laid out as a
//     Markdown table, the user correcting where the agent thought the bug
//     was, a package refused, a question answered in one word two turns
//     late, elm make failing then passing, a piped elm-test failure, a
//     bug left to someone else;
//   - an Android app's Gradle product flavors and adb for a user whose
//     English is not native: compacted three times (auto, /compact bare,
//     /compact with the user's words), a compileSdk rule lifted between
//     the first two, a TodoWrite list that changes across all three, a
//     module plan overruled, a bare-number answer, an adb install left
//     failing on purpose, a piped unit-test failure, and a Sentry token
//     and a keystore password in a properties file the user pastes;
//   - an Emacs Lisp package for a terse lowercase user: the user
//     correcting the agent's reading of the bug, a subagent that greps the
//     other files, a compat dependency overruled, byte-compile failing then
//     passing, a compaction inside the turn that runs ERT, work left for
//     the next release, and a token in a <private> span;
//   - an OCaml/dune parser change by an agent that reasons at length, for
//     a user who writes headings and lists: a lexer hack abandoned, then
//     the grammar approach it had dropped taken up again, TaskCreate tasks
//     updated across two compactions (/compact with instructions, then
//     auto), a "no dune promote" rule lifted, an answer taken back, a
//     piped dune test failure, a CI bump blocked on another team;
//   - a multi-stage Dockerfile with a stand-in docker for a user who mixes
//     German into his English: image sizes measured, alpine refused, the
//     user correcting how .npmrc reaches the build, a bare port answer, a
//     piped smoke test failure, CVEs left to the security team, and two
//     secrets (a password in a registry URL docker prints, an npm token in
//     a file the agent reads); /compact bare.
//
// They run only in the report (TestRecallReport) and are marked
// "held-out, blind16" in its shape column.

// blind16Scenarios are the sixteenth blind set the recall report runs.
func blind16Scenarios() []scenario {
	return []scenario{blind16Elm(), blind16Android(), blind16Elisp(), blind16OCaml(), blind16Docker()}
}

// blind16Elm is a long chatty session on an Elm cart, compacted once,
// automatically, after thirteen turns.
func blind16Elm() scenario {
	elm := `#!/bin/sh
# stand-in elm compiler
case "$1" in
make)
  if grep -q 'Maybe Coupon' src/Cart.elm 2>/dev/null; then
    echo 'Compiling ...'
    echo 'Success! Compiled 4 modules.'
    case "$*" in *--optimize*) echo '    Main ---> elm.js  (312 KB, 97 KB gzipped)';; esac
    exit 0
  fi
  cat >&2 <<'EOF'
-- TYPE MISMATCH ------------------------------------------------- src/Cart.elm

The 2nd argument to applyCoupon is not what I expect:

41|     applyCoupon model.subtotal model.coupon
                                   ^^^^^^^^^^^^
This model.coupon value is a:

    Maybe Coupon

But applyCoupon needs the 2nd argument to be:

    Coupon

Detected problems in 1 module.
EOF
  exit 1;;
*) echo "elm 0.19.1"; exit 0;;
esac
`
	elmTest := `#!/bin/sh
# stand-in elm-test
echo 'elm-test 0.19.1-revision12'
echo '--------------------------'
echo 'Running 14 tests. To reproduce these results, run: elm-test --fuzz 100 --seed 88213'
echo ''
echo 'x CartTests removing the last coupon restores the subtotal'
echo ''
echo '    Just 42.5'
echo '    | Expect.equal'
echo '    Just 42.49999999'
echo ''
echo 'TEST RUN FAILED'
echo ''
echo 'Duration: 212 ms'
echo 'Passed:   13'
echo 'Failed:   1'
exit 2
`
	cart := `module Cart exposing (Model, Msg(..), update, applyCoupon)

type alias Coupon =
    { code : String, percent : Float }

type alias Model =
    { subtotal : Float, coupon : Coupon, total : Float }

type Msg
    = ApplyCoupon Coupon
    | RemoveCoupon

applyCoupon : Float -> Coupon -> Float
applyCoupon subtotal c =
    subtotal * (1 - c.percent / 100)

update : Msg -> Model -> Model
update msg model =
    case msg of
        ApplyCoupon c ->
            { model | coupon = c, total = applyCoupon model.subtotal c }

        RemoveCoupon ->
            { model | total = model.total / 0 }
`
	return scenario{
		Name:           "blind16-elm-cart-coupon",
		Shape:          "held-out, blind16: Elm cart, chatty user, 13 turns then auto compaction, plan as a Markdown table, user corrects the agent, package refused, late one-word answer, piped elm-test failure",
		Compactions:    []string{"auto"},
		PermissionMode: "acceptEdits",
		AllowedTools:   []string{"Bash"},
		Bins:           map[string]string{"elm": elm, "elm-test": elmTest},
		Files: map[string]string{
			"elm.json":               `{"type":"application","source-directories":["src"],"elm-version":"0.19.1","dependencies":{"direct":{"elm/core":"1.0.5","elm/json":"1.1.3"},"indirect":{}},"test-dependencies":{"direct":{"elm-explorations/test":"2.2.0"},"indirect":{}}}` + "\n",
			"src/Cart.elm":           cart,
			"src/Main.elm":           "module Main exposing (main)\n\nimport Cart\nimport Html\n\nmain =\n    Html.text \"cart\"\n",
			"src/Api/Generated.elm":  "-- generated by elm-graphql, do not edit\nmodule Api.Generated exposing (..)\n",
			"tests/CartTests.elm":    "module CartTests exposing (suite)\n\nimport Expect\nimport Test exposing (..)\n\nsuite : Test\nsuite =\n    describe \"Cart\" []\n",
			"docs/checkout-notes.md": "Checkout notes.\n",
		},
		Script: func(dir string) (before, after []turn) {
			cartPath := filepath.Join(dir, "src/Cart.elm")
			before = []turn{
				{Prompt: "Hiya! So today's fun one is SHOP-1187 — when you remove a coupon from the cart the total turns into NaN, which customers absolutely love seeing, haha. Could you have a look? Oh, and please leave src/Api/Generated.elm alone, it's regenerated by elm-graphql on every build so any edit there just vanishes.",
					Replies: []fakeapi.Reply{
						reply("Let me read the cart module and Main first.", 9000, read("e1", cartPath), read("e2", filepath.Join(dir, "src/Main.elm"))),
						reply("I've read src/Cart.elm and src/Main.elm. My first guess is the view: Main renders `Html.text` of the total without guarding against a missing coupon, so I suspect the NaN is a formatting problem in the view layer.", 11000),
					}},
				{Prompt: "Ahh no no, the view's fine honestly, I've stared at it for ages. It's in update — the RemoveCoupon branch. Look at what it does to total.",
					Replies: []fakeapi.Reply{
						reply("You're right, I misread it. In `update`, the `RemoveCoupon` branch does `model.total / 0`, which is where the NaN (well, Infinity then NaN on the next apply) comes from. The view only shows it. So the fix is in update, not the view.", 13000),
					}},
				{Prompt: "Lovely. Before you write anything, could you lay the plan out for me? I like seeing it all in one place.",
					Replies: []fakeapi.Reply{
						reply("Here's how I'd go about it:\n\n| # | step | file | why |\n|---|---|---|---|\n| 1 | make the coupon a `Maybe Coupon` in the Model | src/Cart.elm | removing a coupon then means `Nothing`, not a fake one |\n| 2 | RemoveCoupon sets `coupon = Nothing` and recomputes total from subtotal | src/Cart.elm | the total must come from the subtotal, never divided |\n| 3 | add tests for apply/remove | tests/CartTests.elm | pin the behaviour |\n| 4 | check the optimized build size | - | the ticket says checkout is on a size budget |\n\nFor step 1, I'd pull in `elm-community/maybe-extra` to get `Maybe.Extra.unwrap`, it reads a bit nicer than a case expression.", 15000),
					}},
				{Prompt: "Table's great, go with it. But no maybe-extra please — we're not adding packages to the shop app for a one-liner, a plain case is fine.",
					Replies: []fakeapi.Reply{
						reply("Fair enough, no new package: I'll write the case by hand. One question while I'm at it: should the total be rounded to cents in the model, or only when it's displayed?", 17000),
					}},
				{Prompt: "Hmm let me think about that one and ask Dana, she did the price formatting. Carry on with the type change meanwhile.",
					Replies: []fakeapi.Reply{
						reply("Reading the module again before I change it.", 18000, read("e3r", cartPath)),
						reply("Changing the Model's coupon to `Maybe Coupon`.", 19000,
							edit("e3", cartPath, "{ subtotal : Float, coupon : Coupon, total : Float }", "{ subtotal : Float, coupon : Maybe Coupon, total : Float }")),
						reply("Now compiling to see what breaks.", 21000, bash("e4", "elm make src/Main.elm --output=/dev/null", "Compile the app")),
						reply("As expected `elm make` fails: TYPE MISMATCH in src/Cart.elm line 41, `applyCoupon` wants a `Coupon` but now gets a `Maybe Coupon`. I'll fix the update branches next.", 23000),
					}},
				{Prompt: "go on then :)",
					Replies: []fakeapi.Reply{
						reply("", 24000, read("e5r", cartPath)),
						reply("Rewriting both branches of update.", 25000,
							edit("e5", cartPath, "            { model | coupon = c, total = applyCoupon model.subtotal c }\n\n        RemoveCoupon ->\n            { model | total = model.total / 0 }",
								"            { model | coupon = Just c, total = applyCoupon model.subtotal c }\n\n        RemoveCoupon ->\n            { model | coupon = Nothing, total = model.subtotal }")),
						reply("", 26000, bash("e6", "elm make src/Main.elm --output=/dev/null", "Compile again")),
						reply("`elm make src/Main.elm` now compiles: \"Success! Compiled 4 modules.\" RemoveCoupon sets `coupon = Nothing` and puts the total back to the subtotal.", 27000),
					}},
				{Prompt: "Nice nice. Tests next?",
					Replies: []fakeapi.Reply{
						reply("", 28000, read("e7r", filepath.Join(dir, "tests/CartTests.elm"))),
						reply("Writing tests/CartTests.elm with apply and remove cases.", 29000,
							write("e7", filepath.Join(dir, "tests/CartTests.elm"), "module CartTests exposing (suite)\n\nimport Cart\nimport Expect\nimport Test exposing (..)\n\nsuite : Test\nsuite =\n    describe \"Cart\"\n        [ test \"removing the last coupon restores the subtotal\" <|\n            \\_ -> Expect.equal (Just 42.5) (Just 42.5)\n        ]\n")),
						reply("", 31000, bash("e8", "elm-test 2>&1 | tail -8", "Run the test suite")),
						reply("Hmm: 13 passed, 1 failed. `removing the last coupon restores the subtotal` gets 42.49999999 instead of 42.5: float drift from applying then undoing the percentage. That's exactly the rounding question from before, so I'll leave that test red until we know where rounding goes.", 33000),
					}},
				{Prompt: "Ugh floats. Ok. Unrelated but while you're in there, is the Safari thing where the total flickers on iOS related?",
					Replies: []fakeapi.Reply{
						reply("I don't think so: the flicker is a CSS transition on `.cart-total`, not in the Elm code. It's outside this ticket.", 35000),
					}},
				{Prompt: "Right, Priya on frontend-platform owns that one, she's got a ticket. Let's not touch it.",
					Replies: []fakeapi.Reply{
						reply("Understood, I'll leave the Safari flicker to Priya and not touch the CSS.", 37000),
					}},
				{Prompt: "Can you check the bundle size quickly? Checkout has a budget of 100 KB gzipped.",
					Replies: []fakeapi.Reply{
						reply("", 39000, bash("e9", "elm make src/Main.elm --optimize --output=elm.js", "Optimized build")),
						reply("Optimized build: elm.js is 312 KB, 97 KB gzipped, so we're under the 100 KB gzip budget with 3 KB to spare.", 41000),
					}},
				{Prompt: "Phew. Ok and I also jotted some stuff in docs/checkout-notes.md ages ago, worth a look?",
					Replies: []fakeapi.Reply{
						reply("", 43000, read("e10", filepath.Join(dir, "docs/checkout-notes.md"))),
						reply("It only says \"Checkout notes.\", nothing that bears on this change.", 45000),
					}},
				{Prompt: "haha past me was so helpful. ok where are we",
					Replies: []fakeapi.Reply{
						reply("So far: the Model holds a `Maybe Coupon`, RemoveCoupon resets the total to the subtotal, elm make passes, and elm-test has one failing test waiting on the rounding answer. Generated.elm untouched, no new packages.", 47000),
					}},
				{Prompt: "Oh — Dana says display. Round when displaying, keep the model exact.",
					Replies: []fakeapi.Reply{
						full("Got it: rounding to cents happens only in the view, the model keeps the exact Float. Then the failing test should compare with a tolerance (Expect.within) rather than exact equality, and the view formats with two decimals."),
					}},
			}
			after = []turn{
				{Prompt: "ok lets keep going, what's left?",
					Replies: []fakeapi.Reply{reply("Picking up from where we were.", 20000)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket SHOP-1187", "SHOP-1187"),
			rx("Generated.elm must not be edited", `Generated\.elm`),
			rx("bug is in update's RemoveCoupon, not the view", `RemoveCoupon`),
			rx("coupon becomes Maybe Coupon", `Maybe Coupon`),
			rx("maybe-extra refused", `(?i)maybe-extra`).notRx(`(?i)(add|install|pull in|use)(ing)? [^\n]{0,20}maybe-extra[^\n]{0,40}(next|now|planned)`),
			rx("src/Cart.elm changed", `src/Cart\.elm`),
			rx("tests/CartTests.elm written", `CartTests\.elm`),
			rx("elm make failed on TYPE MISMATCH then passed", `(?i)elm make`, `(?i)(pass|success|compil)`),
			pipedFailed("elm-test still fails one test behind a pipe", `elm-test`, `(?i)elm-test[^\n]{0,200}(fail|red|1 fail)|(fail|red)[^\n]{0,200}elm-test`),
			rx("rounding answer: display only", `(?i)(round|cents)[^\n]{0,120}(display|view)|(display|view)[^\n]{0,120}(round|cents)`),
			rx("Safari flicker left to Priya", `(?i)Priya|Safari`),
			rx("bundle 97 KB gzipped under the 100 KB budget", `97 ?KB`),
		},
	}
}

// blind16Android adds a Gradle product flavor to an Android app, for a
// user whose English is not native, compacted three times.
func blind16Android() scenario {
	gradlew := `#!/bin/sh
# stand-in gradle wrapper
case "$*" in
*StagingDebugUnitTest*)
  echo '> Task :app:testStagingDebugUnitTest'
  echo ''
  echo 'FeatureFlagsTest > stagingUsesSandboxEndpoint FAILED'
  echo '    org.junit.ComparisonFailure at FeatureFlagsTest.kt:31'
  echo 'FeatureFlagsTest > proHidesAds PASSED'
  echo ''
  echo '38 tests completed, 1 failed'
  echo ''
  echo 'FAILURE: Build failed with an exception.'
  echo "* What went wrong: Execution failed for task ':app:testStagingDebugUnitTest'."
  echo 'BUILD FAILED in 27s'
  exit 1;;
*assemble*StagingDebug*)
  if grep -q 'tools:replace="android:label"' app/src/staging/AndroidManifest.xml 2>/dev/null; then
    echo '> Task :app:processStagingDebugManifest'
    echo '> Task :app:assembleStagingDebug'
    echo 'BUILD SUCCESSFUL in 41s'
    echo '52 actionable tasks: 9 executed, 43 up-to-date'
    exit 0
  fi
  echo '> Task :app:processStagingDebugManifest FAILED' >&2
  echo 'Manifest merger failed : Attribute application@label value=(@string/app_name_staging) from AndroidManifest.xml:6:9-52' >&2
  echo '	is also present at AndroidManifest.xml:5:9-41 value=(@string/app_name).' >&2
  echo '	Suggestion: add tools:replace="android:label" to <application> element at AndroidManifest.xml to override.' >&2
  echo 'BUILD FAILED in 12s' >&2
  exit 1;;
*) echo 'BUILD SUCCESSFUL in 3s'; exit 0;;
esac
`
	adb := `#!/bin/sh
# stand-in adb
case "$*" in
devices*) printf 'List of devices attached\nemulator-5554\tdevice\nR58N91XKQ2L\tdevice\n'; exit 0;;
*install*)
  echo 'Performing Streamed Install'
  echo 'adb: failed to install app-staging-debug.apk: Failure [INSTALL_FAILED_UPDATE_INCOMPATIBLE: Existing package com.veloz.shop.staging signatures do not match newer version; ignoring!]' >&2
  exit 1;;
*) exit 0;;
esac
`
	gradle := `plugins { id 'com.android.application' }

android {
    namespace 'com.veloz.shop'
    compileSdk 34
    defaultConfig { applicationId 'com.veloz.shop'; minSdk 24; targetSdk 34; versionCode 4011 }
    flavorDimensions = ['tier']
    productFlavors {
        free { dimension 'tier' }
        pro { dimension 'tier'; applicationIdSuffix '.pro' }
    }
}
`
	pasted := "sdk.dir=/home/lucia/Android/Sdk\nsentry.auth.token=sntrys_eyJpYXQiOjE3MzI1b16_QkZ9xWqLm0pR3tYv\nRELEASE_STORE_PASSWORD=Kz!8mq-veloz-b16-Tq2\nRELEASE_KEY_ALIAS=veloz-release\n"
	return scenario{
		Name:           "blind16-android-staging-flavor",
		Shape:          "held-out, blind16: Android Gradle flavors and adb, non-native English, three compactions (auto, /compact, /compact with words), TodoWrite list changing, compileSdk rule lifted, module plan overruled, bare-number answer, adb install left failing, piped unit-test failure, pasted properties secrets",
		Compactions:    []string{"auto", "manual", "manual"},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "CLAUDE_CODE_ENABLE_TASKS=0"},
		PermissionMode: "acceptEdits",
		AllowedTools:   []string{"Bash"},
		Bins:           map[string]string{"adb": adb},
		Files: map[string]string{
			"gradlew":                          gradlew,
			"app/build.gradle":                 gradle,
			"app/src/main/AndroidManifest.xml": "<manifest xmlns:android=\"http://schemas.android.com/apk/res/android\">\n    <application\n        android:label=\"@string/app_name\" />\n</manifest>\n",
			"app/src/main/java/com/veloz/shop/FeatureFlags.kt": "package com.veloz.shop\n\nobject FeatureFlags {\n    val apiBase: String get() = when (BuildConfig.FLAVOR_env) {\n        \"staging\" -> \"https://api.veloz.example\"\n        else -> \"https://api.veloz.example\"\n    }\n}\n",
		},
		Script: func(dir string) (before, after []turn) {
			gradlePath := filepath.Join(dir, "app/build.gradle")
			stagingManifest := filepath.Join(dir, "app/src/staging/AndroidManifest.xml")
			before = []turn{
				{Prompt: "Hello. I need add a new flavor \"staging\" for our app, so QA can install it beside the production one on same phone. Is ticket MOB-733. Please not change compileSdk, we stay on 34 for now because the CI image have only platform 34.",
					Replies: []fakeapi.Reply{
						reply("Let me look at the build file and the feature flags first.", 8000, read("a1", gradlePath), read("a2", filepath.Join(dir, "app/src/main/java/com/veloz/shop/FeatureFlags.kt"))),
						reply("There's one flavor dimension, `tier`, with `free` and `pro`. I think the cleanest is a separate `:app-staging` module that depends on `:app` and overrides the endpoints, so the release build never sees staging code. FeatureFlags.kt already switches on `BuildConfig.FLAVOR_env`, which doesn't exist yet.", 10000,
							todoWrite("a3", [2]string{"Add staging flavor to app/build.gradle", "in_progress"}, [2]string{"Fix manifest label for staging", "pending"}, [2]string{"Install on QA phone with adb", "pending"})),
						reply("Plan is in the todo list.", 11000),
					}},
				{Prompt: "No, not new module, too much for this. Make a second flavor dimension \"env\" with prod and staging, and staging get applicationIdSuffix \".staging\". Then the FLAVOR_env in FeatureFlags work also.",
					Replies: []fakeapi.Reply{
						reply("OK, a second dimension `env` (prod, staging) instead of a module; FeatureFlags.kt then gets its `FLAVOR_env` for free.", 13000, read("a4", gradlePath)),
						reply("", 15000, edit("a5", gradlePath, "    flavorDimensions = ['tier']\n    productFlavors {\n        free { dimension 'tier' }\n        pro { dimension 'tier'; applicationIdSuffix '.pro' }\n    }",
							"    flavorDimensions = ['tier', 'env']\n    productFlavors {\n        free { dimension 'tier' }\n        pro { dimension 'tier'; applicationIdSuffix '.pro' }\n        prod { dimension 'env' }\n        staging { dimension 'env'; applicationIdSuffix '.staging'; resValue 'string', 'app_name_staging', 'Veloz STG' }\n    }")),
						reply("", 17000, write("a6", stagingManifest, "<manifest xmlns:android=\"http://schemas.android.com/apk/res/android\">\n    <application\n        android:label=\"@string/app_name_staging\" />\n</manifest>\n")),
						reply("", 19000, bash("a7", "./gradlew assembleFreeStagingDebug", "Build the staging variant")),
						reply("The build fails in the manifest merger: `Attribute application@label` from app/src/staging/AndroidManifest.xml is also present in the main manifest. It suggests `tools:replace=\"android:label\"`.", 21000),
					}},
				{Prompt: "Ok do the tools:replace.",
					Replies: []fakeapi.Reply{
						reply("", 22000, read("a8r", stagingManifest)),
						reply("", 23000, write("a8", stagingManifest, "<manifest xmlns:android=\"http://schemas.android.com/apk/res/android\"\n    xmlns:tools=\"http://schemas.android.com/tools\">\n    <application\n        android:label=\"@string/app_name_staging\"\n        tools:replace=\"android:label\" />\n</manifest>\n")),
						reply("", 25000, bash("a9", "./gradlew assembleFreeStagingDebug", "Build again")),
						reply("With `tools:replace=\"android:label\"` in the staging manifest, `./gradlew assembleFreeStagingDebug` is BUILD SUCCESSFUL in 41s.", 27000,
							todoWrite("a10", [2]string{"Add staging flavor to app/build.gradle", "completed"}, [2]string{"Fix manifest label for staging", "completed"}, [2]string{"Install on QA phone with adb", "in_progress"}, [2]string{"Set versionCode for staging", "pending"})),
						reply("Flavor and manifest done. What versionCode do you want for staging? Production is at 4011.", 28000),
					}},
				{Prompt: "Before: on my machine the release signing read from local.properties, is this still work with two dimensions? Here is it:\n\n" + pasted,
					Replies: []fakeapi.Reply{
						reply("Yes: the signingConfigs read the RELEASE_* keys from local.properties by name, flavors don't change that, so release signing works the same for every variant. One thing: that file holds real credentials, keep it out of git (it is in .gitignore) and out of tickets.", 29000),
					}},
				{Prompt: "install it on the emulator first please",
					Replies: []fakeapi.Reply{
						reply("", 30000, bash("a11", "adb devices && adb -s emulator-5554 install -r app/build/outputs/apk/freeStaging/debug/app-free-staging-debug.apk", "Install on the emulator")),
						full("The install fails on emulator-5554 with INSTALL_FAILED_UPDATE_INCOMPATIBLE: an older com.veloz.shop.staging signed with another key is on it. `adb uninstall com.veloz.shop.staging` would fix it, but that deletes its data. Shall I?"),
					}},
				{Prompt: "Hm, wait with that.",
					Replies: []fakeapi.Reply{reply("Waiting.", 22000)}},
				{Prompt: "Is OK now, I ask in team — you can change compileSdk to 35, CI image is updated yesterday. And for the emulator: no uninstall, there is test data of Marco on it, he must export first. Leave it failing.",
					Replies: []fakeapi.Reply{
						reply("compileSdk to 35 then; and the adb install stays failing until Marco has exported his test data, I won't uninstall.", 24000, read("a12", gradlePath)),
						reply("", 26000, edit("a13", gradlePath, "    compileSdk 34", "    compileSdk 35")),
						reply("", 28000, bash("a14", "./gradlew testFreeStagingDebugUnitTest 2>&1 | tail -12", "Unit tests for staging")),
						reply("app/build.gradle now has compileSdk 35. The unit tests for staging print `FeatureFlagsTest > stagingUsesSandboxEndpoint FAILED` (38 tests, 1 failed): FeatureFlags.kt returns the production URL for staging too. The pipe through tail hid gradle's exit code.", 30000,
							todoWrite("a15", [2]string{"Install on QA phone with adb", "pending"}, [2]string{"Set versionCode for staging", "pending"}, [2]string{"Fix stagingUsesSandboxEndpoint test", "in_progress"})),
						reply("I'll look at the sandbox URL next.", 31000),
					}},
				{Prompt: "/compact"},
				{Prompt: "so, we continue",
					Replies: []fakeapi.Reply{reply("Continuing.", 18000)}},
				{Prompt: "versionCode: 4012",
					Replies: []fakeapi.Reply{
						reply("", 20000, read("a16", gradlePath)),
						reply("", 22000, edit("a17", gradlePath, "staging { dimension 'env'; applicationIdSuffix '.staging';", "staging { dimension 'env'; applicationIdSuffix '.staging'; versionCode 4012;")),
						reply("Staging now has versionCode 4012 in app/build.gradle.", 24000,
							todoWrite("a18", [2]string{"Install on QA phone with adb", "pending"}, [2]string{"Set versionCode for staging", "completed"}, [2]string{"Fix stagingUsesSandboxEndpoint test", "in_progress"}, [2]string{"Ask Marco to export test data from emulator-5554", "pending"})),
						reply("Done.", 25000),
					}},
				{Prompt: "/compact keep flavors and the adb problem please"},
			}
			after = []turn{
				{Prompt: "ok, where we are?",
					Replies: []fakeapi.Reply{reply("Looking at where things stand.", 15000)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket MOB-733", "MOB-733"),
			rx("env dimension with staging, suffix .staging", `(?i)\benv\b`, `\.staging`),
			rx("separate module overruled", `(?i)(module)`).notRx(`(?i)(create|add|use)[^\n]{0,20}:app-staging module[^\n]{0,40}(next|now)`),
			rx("manifest merger fixed by tools:replace", `tools:replace`),
			rx("assembleFreeStagingDebug failed then passed", `(?i)assemble(Free)?StagingDebug`, `(?i)(success|pass|build successful|fixed)`),
			rx("adb install on emulator-5554 fails: INSTALL_FAILED_UPDATE_INCOMPATIBLE", `(?i)INSTALL_FAILED_UPDATE_INCOMPATIBLE|emulator-5554`).notRx(`(?i)adb[^\n]{0,60}install[^\n]{0,40}(succeeded|successful|passed|exit 0)`),
			rx("compileSdk stays 34", `compileSdk`, `34`).until(1),
			rx("compileSdk lifted to 35", `(?i)compileSdk[^\n]{0,60}35|35[^\n]{0,60}compileSdk`).from(2),
			rx("no uninstall: Marco's test data", `(?i)Marco`).from(2),
			pipedFailed("stagingUsesSandboxEndpoint fails behind a pipe", `testFreeStagingDebugUnitTest`, `stagingUsesSandboxEndpoint`).from(2),
			rx("staging versionCode 4012", `4012`).from(3),
			rx("todo: sandbox endpoint test in progress", `(?i)sandbox`).from(2),
		},
		Secrets: []secret{
			{Family: "sentry auth token in pasted local.properties", Value: "sntrys_eyJpYXQiOjE3MzI1b16_QkZ9xWqLm0pR3tYv"},
			{Family: "keystore password in pasted local.properties", Value: "Kz!8mq-veloz-b16-Tq2"},
		},
	}
}

// blind16Elisp fixes an Emacs Lisp package for Emacs 27, for a terse user,
// with a subagent and a compaction inside the turn that runs ERT.
func blind16Elisp() scenario {
	emacs := `#!/bin/sh
# stand-in emacs (the CI one is 27.2)
case "$*" in
*batch-byte-compile*)
  if grep -q 'string-search' tidy-notes.el 2>/dev/null; then
    echo 'In tidy-notes-rename-file:' >&2
    echo 'tidy-notes.el:57:14: Error: the function ‘string-search’ is not known to be defined.' >&2
    exit 1
  fi
  echo 'Wrote /project/tidy-notes.elc'; exit 0;;
*ert-run-tests-batch-and-exit*)
  echo 'Running 9 tests (2026-11-25 12:00:00+0000, selector ‘t’)'
  echo '   passed  1/9  tidy-notes-test-rename-simple (0.000 sec)'
  echo '   passed  9/9  tidy-notes-test-slug (0.000 sec)'
  echo 'Ran 9 tests, 9 results as expected, 0 unexpected'
  exit 0;;
*--version*) echo 'GNU Emacs 27.2'; exit 0;;
*) exit 0;;
esac
`
	lib := ";;; tidy-notes.el --- Keep note files tidy  -*- lexical-binding: t; -*-\n\n;; Package-Requires: ((emacs \"27.1\"))\n\n(defun tidy-notes-rename-file (file title)\n  \"Rename FILE after TITLE.\"\n  (when (string-search \"/\" title)\n    (user-error \"Slash in title\"))\n  (rename-file file (concat (tidy-notes--slugify title) \".org\")))\n\n(provide 'tidy-notes)\n;;; tidy-notes.el ends here\n"
	secretToken := "mlpbot_b16_7fQ2xZ9wLk3PdR8vHs4N"
	return scenario{
		Name:           "blind16-elisp-emacs27-compat",
		Shape:          "held-out, blind16: Emacs Lisp package, terse lowercase user, user corrects the agent, subagent greps other files, compat dependency overruled, byte-compile fails then passes, in-turn compaction running ERT, <private> token",
		Compactions:    []string{"in-turn"},
		PermissionMode: "acceptEdits",
		AllowedTools:   []string{"Bash"},
		Bins:           map[string]string{"emacs": emacs},
		Files: map[string]string{
			"tidy-notes.el":        lib,
			"tidy-notes-export.el": ";;; tidy-notes-export.el --- export  -*- lexical-binding: t; -*-\n(defun tidy-notes-export-all (files)\n  (dolist (f (ensure-list files))\n    (when (string-search \".org\" f) (message \"%s\" f))))\n(provide 'tidy-notes-export)\n",
			"Eask":                 "(package \"tidy-notes\" \"0.8.3\" \"Keep note files tidy\")\n(depends-on \"emacs\" \"27.1\")\n",
		},
		Script: func(dir string) (before, after []turn) {
			libPath := filepath.Join(dir, "tidy-notes.el")
			sub := "List every call in tidy-notes-export.el (and any other .el file but tidy-notes.el) to functions that only exist in Emacs 28 or later"
			before = []turn{
				{Prompt: "gh #214, tidy-notes-rename-file blows up for some people. we support emacs 27.1 and up (Package-Requires). have a look",
					Replies: []fakeapi.Reply{
						reply("", 9000, read("l1", libPath)),
						reply("Reading tidy-notes.el: `tidy-notes-rename-file` checks the title, then renames to the slug + .org. The reporter's backtrace mentions org, so my guess is the org-mode 9.6 change to how titles are read, which breaks the slug.", 11000),
					}},
				{Prompt: "no. not org. reporter is on 27.2, string-search is 28+. void-function",
					Replies: []fakeapi.Reply{
						reply("Right, I had it wrong: `string-search` was added in Emacs 28.1, so on 27.2 it's a void-function before org is even involved. Two ways out: depend on the `compat` package, which backports string-search, or replace the call with `(string-match-p (regexp-quote \"/\") title)`. I'd take compat, since more 28 functions may creep in.", 13000),
					}},
				{Prompt: "no compat. no new deps for a 200 line package. string-match-p + regexp-quote",
					Replies: []fakeapi.Reply{
						reply("No compat then. First a byte-compile on the 27 toolchain to see it fail.", 15000,
							bash("l2", "emacs -Q --batch -L . --eval '(setq byte-compile-error-on-warn t)' -f batch-byte-compile tidy-notes.el", "Byte-compile with warnings as errors")),
						reply("Fails as expected: tidy-notes.el:57:14 `string-search` is not known to be defined.", 16000, read("l2r", libPath)),
						reply("Replacing it.", 17000,
							edit("l3", libPath, "(string-search \"/\" title)", "(string-match-p (regexp-quote \"/\") title)")),
						reply("", 19000, bash("l4", "emacs -Q --batch -L . --eval '(setq byte-compile-error-on-warn t)' -f batch-byte-compile tidy-notes.el", "Byte-compile again")),
						reply("Byte-compile is clean now (warnings as errors, Emacs 27.2). Let me have the other files checked for the same kind of thing.", 21000,
							agentCall("l5", "general-purpose", "find Emacs 28-only calls", sub+". Use grep. Report file:line and function.")),
						blind16For(reply("", 4000, bash("l6", "grep -n 'string-search\\|ensure-list' *.el", "grep for 28-only functions")), sub),
						blind16For(reply("tidy-notes-export.el:3 calls `ensure-list` (Emacs 28.1) and tidy-notes-export.el:4 calls `string-search` (28.1). Nothing else outside tidy-notes.el.", 5000), sub),
						reply("The subagent found two more 28-only calls, both in tidy-notes-export.el: `ensure-list` on line 3 and `string-search` on line 4. Fix them now too?", 24000),
					}},
				{Prompt: "no, export is being rewritten for 0.9 anyway. leave it, i'll open an issue myself",
					Replies: []fakeapi.Reply{
						reply("Leaving tidy-notes-export.el alone; its 28-only calls wait for the 0.9 rewrite and you'll file the issue.", 26000),
					}},
				{Prompt: "<private>melpa recipe bot wants " + secretToken + " in the env, set it later</private> add a regression test and run ert",
					Replies: []fakeapi.Reply{
						reply("Adding tidy-notes-test.el with a test for a title containing a slash.", 28000,
							write("l7", filepath.Join(dir, "tidy-notes-test.el"), ";;; tidy-notes-test.el  -*- lexical-binding: t; -*-\n(require 'ert)\n(require 'tidy-notes)\n\n(ert-deftest tidy-notes-test-slash-title ()\n  (should-error (tidy-notes-rename-file \"a.org\" \"x/y\") :type 'user-error))\n")),
						full("Running the ERT suite in batch.", bash("l8", "emacs -Q --batch -L . -l ert -l tidy-notes-test.el -f ert-run-tests-batch-and-exit", "Run ERT")),
						{Text: "Running it.", ToolResultFor: "l8", Usage: usageAt(20000)},
					}},
			}
			after = []turn{
				{Prompt: "k. what now",
					Replies: []fakeapi.Reply{reply("Let me see where this stands.", 22000)}},
			}
			return before, after
		},
		Facts: []fact{
			rx("issue #214", `#214`),
			rx("minimum Emacs 27.1", `27\.1`),
			rx("cause: string-search is Emacs 28+, not org", `string-search`).notRx(`(?i)org(-mode)? 9\.6[^\n]{0,80}(cause|culprit|breaks|root)`),
			rx("fix: string-match-p with regexp-quote", `string-match-p`),
			rx("compat dependency refused", `(?i)\bcompat\b`).notRx(`(?i)(add|depend on|use)[^\n]{0,20}\bcompat\b[^\n]{0,40}(next|now|planned)`),
			rx("tidy-notes.el edited", `tidy-notes\.el`),
			rx("tidy-notes-test.el written", `tidy-notes-test\.el`),
			rx("byte-compile failed then is clean", `(?i)byte-compile`, `(?i)(clean|pass|succe|no (more )?(warning|error))`),
			rx("tidy-notes-export.el has ensure-list/string-search, left for 0.9", `tidy-notes-export\.el`, `0\.9`),
		},
		Secrets: []secret{{Family: "MELPA bot token in a <private> span", Value: secretToken}},
	}
}

// blind16For marks a reply as meant for the conversation whose first user
// message holds prompt (a subagent's).
func blind16For(r fakeapi.Reply, prompt string) fakeapi.Reply {
	r.For = prompt
	return r
}

// blind16OCaml adds trailing commas to a Menhir grammar, by an agent that
// reasons at length for a user who writes headings and lists: a lexer hack
// abandoned for the grammar change it had dropped, two compactions.
func blind16OCaml() scenario {
	dune := `#!/bin/sh
# stand-in dune
case "$1" in
build)
  if grep -q 'fields: field | fields COMMA field' lib/parser.mly 2>/dev/null && grep -q 'separated_or_terminated_list' lib/parser.mly; then
    echo 'File "lib/parser.mly", line 14, characters 0-6:' >&2
    echo 'Warning: 2 states have shift/reduce conflicts.' >&2
    echo 'Error: the grammar has conflicts and --strict is set.' >&2
    exit 1
  fi
  exit 0;;
test)
  if [ -f _build/.promoted ]; then exit 0; fi
  if grep -q 'RBRACE_AFTER_COMMA' lib/lexer.mll 2>/dev/null; then
    echo 'File "test/strings.t/run.t", line 1, characters 0-0:'
    echo '   $ kestrel fmt quoted.kst'
    echo '-  s = "a,}"'
    echo '+  s = "a}"'
    exit 1
  fi
  echo 'File "test/records.t/run.t", line 1, characters 0-0:'
  echo '   $ kestrel fmt trailing.kst'
  echo '-  (no output yet)'
  echo '+  { a = 1, b = 2, }'
  exit 1;;
promote)
  mkdir -p _build && touch _build/.promoted
  echo 'Promoting _build/default/test/records.t/run.t.corrected to test/records.t/run.t.'
  exit 0;;
esac
`
	parser := "%token <string> IDENT\n%token <int> INT\n%token LBRACE RBRACE COMMA EQ EOF\n%start <Ast.t> main\n%%\n\nmain: v = value EOF { v }\n\nvalue:\n  | i = INT { Ast.Int i }\n  | LBRACE fs = fields RBRACE { Ast.Record fs }\n\nfields: field | fields COMMA field { $1 @ [$3] }\n\nfield: k = IDENT EQ v = value { (k, v) }\n"
	lexer := "{ open Parser }\nrule token = parse\n  | ',' { COMMA }\n  | '}' { RBRACE }\n  | eof { EOF }\n"
	return scenario{
		Name:           "blind16-ocaml-menhir-trailing-comma",
		Shape:          "held-out, blind16: OCaml/dune/Menhir, long-reasoning agent, headings-and-lists user, lexer hack abandoned and the dropped grammar approach taken back up, TaskCreate tasks updated, /compact with instructions then auto, dune promote rule lifted, answer taken back, piped dune test failure, CI bump blocked on another team",
		Compactions:    []string{"manual", "auto"},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1"},
		PermissionMode: "acceptEdits",
		AllowedTools:   []string{"Bash"},
		Bins:           map[string]string{"dune": dune},
		Files: map[string]string{
			"dune-project":   "(lang dune 3.11)\n(using menhir 2.1)\n",
			"lib/dune":       "(library (name kestrel))\n(menhir (modules parser) (flags --strict))\n(ocamllex lexer)\n",
			"lib/parser.mly": parser,
			"lib/lexer.mll":  lexer,
			"CHANGES.md":     "## unreleased\n",
			"kestrel.opam":   "depends: [ \"menhir\" {= \"20231231\"} \"ocamlformat\" {= \"0.26.1\"} ]\n",
		},
		Script: func(dir string) (before, after []turn) {
			parserPath := filepath.Join(dir, "lib/parser.mly")
			lexerPath := filepath.Join(dir, "lib/lexer.mll")
			before = []turn{
				{Prompt: "## Task\nIssue #57: kestrel should accept a trailing comma in record literals, `{ a = 1, b = 2, }`.\n\n## Constraints\n- menhir stays pinned at 20231231 (opam file)\n- don't run `dune promote` without asking me first, I want to see every cram diff\n",
					Replies: []fakeapi.Reply{
						reply("", 9000, read("o1", parserPath), read("o2", lexerPath)),
						reply("Let me think this through before touching anything. The record rule is left-recursive, `fields: field | fields COMMA field`, so a COMMA followed by RBRACE has nowhere to go. There are two honest ways to fix that:\n\n1. In the grammar: replace `fields` with Menhir's standard-library `separated_or_terminated_list(COMMA, field)`, which accepts exactly an optional trailing separator. It's the principled fix, but if I keep the old `fields` rule around for the other uses the two will overlap and Menhir will report conflicts, and lib/dune builds with --strict.\n2. In the lexer: when a ',' is followed by optional whitespace and '}', emit only RBRACE. Tiny diff, no grammar change at all.\n\nI'll try (1) first since it's the right shape, and see how loud Menhir gets.", 11000,
							edit("o3", parserPath, "  | LBRACE fs = fields RBRACE { Ast.Record fs }", "  | LBRACE fs = separated_or_terminated_list(COMMA, field) RBRACE { Ast.Record fs }")),
						reply("", 15000, bash("o4", "dune build 2>&1", "Build with the grammar change")),
						reply("As feared: `Warning: 2 states have shift/reduce conflicts` and --strict turns that into a build failure. Untangling that means reworking every user of `fields`, which is more than this issue should need. So I'm dropping the grammar approach for now and going with the lexer hack (2): I'll put the rule back and do it in lib/lexer.mll.", 17000,
							edit("o5", parserPath, "  | LBRACE fs = separated_or_terminated_list(COMMA, field) RBRACE { Ast.Record fs }", "  | LBRACE fs = fields RBRACE { Ast.Record fs }")),
						reply("", 19000, edit("o6", lexerPath, "  | ',' { COMMA }", "  | ',' [' ' '\\t' '\\n']* '}' { RBRACE (* RBRACE_AFTER_COMMA *) }\n  | ',' { COMMA }")),
						reply("", 21000, taskCreate("o7", "Trailing comma in record literals (#57)", "accept { a = 1, }"),
							taskCreate("o8", "Cram test for trailing commas", "test/records.t"),
							taskCreate("o9", "CHANGES.md entry", "one line under unreleased")),
						reply("Lexer rule in; tasks written down.", 22000),
					}},
				{Prompt: "### ok\n- run the tests\n",
					Replies: []fakeapi.Reply{
						reply("", 24000, bash("o10", "dune test 2>&1 | tail -6", "Run the test suite")),
						reply("This is the trap I should have seen. The cram test test/strings.t now fails: the string literal `\"a,}\"` comes out as `\"a}\"`. The lexer rule fires inside quoted strings too because string lexing goes through the same `token` rule for those characters, so the hack silently rewrites user data. The pipe to tail kept the exit code at 0, but the suite is failing.", 26000),
					}},
				{Prompt: "## Decision\n- drop the lexer hack, rewriting strings is not acceptable\n- go back to the grammar approach, and deal with the conflicts properly: get rid of the old `fields` rule\n\n## Question back\n- what did you want to ask about the formatter?\n",
					Replies: []fakeapi.Reply{
						reply("Agreed, back to the grammar. Removing the lexer rule first.", 28000, read("o11", lexerPath), read("o12", parserPath)),
						reply("", 30000, edit("o13", lexerPath, "  | ',' [' ' '\\t' '\\n']* '}' { RBRACE (* RBRACE_AFTER_COMMA *) }\n", "")),
						reply("", 32000, edit("o14", parserPath, "  | LBRACE fs = fields RBRACE { Ast.Record fs }\n\nfields: field | fields COMMA field { $1 @ [$3] }\n", "  | LBRACE fs = separated_or_terminated_list(COMMA, field) RBRACE { Ast.Record fs }\n")),
						reply("", 34000, bash("o15", "dune build 2>&1 && echo BUILD-OK", "Build with the old rule gone")),
						reply("With the old `fields` rule deleted and `separated_or_terminated_list(COMMA, field)` as the only list rule, `dune build` succeeds with no conflicts (0 shift/reduce, --strict is happy).\n\nThe formatter question: when `kestrel fmt` prints `{ a = 1, b = 2, }`, should it keep the trailing comma or normalize it away?", 36000,
							taskUpdate("o16", "1", "completed")),
						reply("Task 1 closed.", 37000),
					}},
				{Prompt: "/compact focus on the parser change and the cram tests"},
				{Prompt: "## Answers\n- formatter: normalize it away\n- go on with the cram test",
					Replies: []fakeapi.Reply{
						reply("", 20000, bash("o17", "dune test 2>&1 | tail -6", "Run the tests")),
						reply("test/records.t fails only because its expected output is still empty; the corrected output shows `{ a = 1, b = 2, }`. That's a `dune promote`, which you asked me not to run without checking with you.", 22000),
					}},
				{Prompt: "## Update\n- promote is fine from now on, no need to ask each time\n- and forget what I said about the formatter: keep the comma as written, people use it for smaller diffs\n",
					Replies: []fakeapi.Reply{
						reply("", 24000, bash("o18", "dune promote && dune test && echo TESTS-OK", "Promote and rerun")),
						reply("Promoted test/records.t/run.t; `dune test` now passes. Formatter keeps the trailing comma as written.", 26000, taskUpdate("o19", "2", "completed")),
						reply("I also meant to bump ocamlformat to 0.26.2 for the new comma option, but CI can't: its image pins 0.26.1.", 28000),
					}},
				{Prompt: "### CI\n- the image is the infra team's, they have INFRA-3321 for it. not ours, wait for them\n- CHANGES.md whenever you like",
					Replies: []fakeapi.Reply{
						full("Understood: the ocamlformat 0.26.2 bump waits on the infra team's INFRA-3321; I won't touch the CI image. The CHANGES.md line is still to write."),
					}},
			}
			after = []turn{
				{Prompt: "## Next\n- carry on",
					Replies: []fakeapi.Reply{reply("Resuming.", 18000)}},
			}
			return before, after
		},
		Facts: []fact{
			rx("issue #57: trailing comma in record literals", `#57`, `(?i)trailing comma`),
			lit("menhir pinned at 20231231", "20231231"),
			rx("grammar approach: separated_or_terminated_list", `separated_or_terminated_list`),
			rx("lexer hack dropped (it rewrote strings)", `(?i)lexer`).notRx(`(?i)lexer (hack|rule)[^\n]{0,40}(is (the )?(current|chosen)|in place|keeps?)`),
			rx("lib/parser.mly changed", `parser\.mly`),
			rx("menhir conflicts then clean build", `(?i)conflict`),
			rx("dune promote needs asking", `(?i)promote`).until(1),
			rx("dune promote allowed now", `(?i)promot`).notRx(`(?i)(don't|do not|\bnot\b|never|without asking)[^\n]{0,30}(dune )?promote`).from(2),
			pipedFailed("piped dune test failed on test/strings.t", `dune test`, `strings\.t`).until(1),
			rx("records.t promoted, dune test passes", `records\.t`).from(2),
			rx("formatter keeps the trailing comma (answer taken back)", `(?i)(keep|kept|preserv|as written)[^\n]{0,80}comma|comma[^\n]{0,80}(keep|kept|preserv|as written)`).from(2),
			rx("ocamlformat bump blocked on INFRA-3321", `INFRA-3321`).from(2),
			rx("CHANGES.md entry still to write", `CHANGES\.md`),
		},
	}
}

// blind16Docker slims a Node API's image with a multi-stage Dockerfile and
// a stand-in docker, for a user who mixes German into his English.
func blind16Docker() scenario {
	password := "Hx7vQ2-b16-rP9wLdZe"
	npmToken := "npm_b16Q8wLx3ZrT5yKp0VnE2sJd7HcA9fUm4Gq1"
	docker := `#!/bin/sh
# stand-in docker
case "$1" in
build)
  echo '#1 [internal] load build definition from Dockerfile'
  echo '#2 importing cache manifest from https://ci-bot:` + password + `@registry.internal.example/cache/orders-api'
  echo '#3 [build 4/6] RUN --mount=type=secret,id=npmrc npm ci'
  if grep -q 'COPY --from=build /app/build' Dockerfile 2>/dev/null; then
    echo '#9 [runtime 3/3] COPY --from=build /app/build ./build'
    echo '#10 exporting to image'
    echo '#10 naming to docker.io/library/orders-api:slim done'
    exit 0
  fi
  echo '#9 [runtime 3/3] COPY --from=build /app/dist ./dist'
  echo 'ERROR: failed to solve: failed to compute cache key: failed to calculate checksum of ref: "/app/dist": not found' >&2
  exit 1;;
images)
  echo 'REPOSITORY   TAG    IMAGE ID       CREATED          SIZE'
  echo 'orders-api   slim   4be1c0d9e2aa   12 seconds ago   187MB'
  echo 'orders-api   fat    91d3e7a0b5c1   3 weeks ago      1.21GB'
  exit 0;;
compose)
  echo 'smoke-1  | ok   GET /health -> 200'
  echo 'smoke-1  | ok   GET /orders -> 200'
  echo 'smoke-1  | FAIL GET /readyz -> 503 (expected 200)'
  echo 'smoke-1  | 6 passing, 1 failing'
  echo 'smoke-1 exited with code 1'
  exit 1;;
esac
exit 0
`
	trivy := `#!/bin/sh
# stand-in trivy
echo 'orders-api:slim (debian 12.8)'
echo 'Total: 2 (UNKNOWN: 0, LOW: 0, MEDIUM: 0, HIGH: 2, CRITICAL: 0)'
echo '| libssl3 | CVE-2024-5535 | HIGH | 3.0.15-1~deb12u1 | 3.0.16-1~deb12u1 |'
echo '| openssl | CVE-2024-9143 | HIGH | 3.0.15-1~deb12u1 | 3.0.16-1~deb12u1 |'
exit 0
`
	return scenario{
		Name:           "blind16-docker-multistage-slim",
		Shape:          "held-out, blind16: multi-stage Dockerfile with a stand-in docker, English mixed with German, image sizes, alpine refused, user corrects how .npmrc reaches the build, bare port answer, piped smoke failure, CVEs left to security, password in a URL docker prints, npm token in a file read, /compact bare",
		Compactions:    []string{"manual"},
		PermissionMode: "acceptEdits",
		AllowedTools:   []string{"Bash"},
		Bins:           map[string]string{"docker": docker, "trivy": trivy},
		Files: map[string]string{
			"Dockerfile":        "FROM node:20@sha256:6f1e9c0a8b7d\nWORKDIR /app\nCOPY . .\nRUN npm ci && npm run build\nCMD [\"node\", \"build/server.js\"]\n",
			"package.json":      "{\n  \"name\": \"orders-api\",\n  \"scripts\": { \"build\": \"tsc --outDir build\", \"start\": \"node build/server.js\" },\n  \"dependencies\": { \"sharp\": \"0.33.5\", \"fastify\": \"4.28.1\" }\n}\n",
			".npmrc":            "@veloz:registry=https://npm.internal.example/\n//npm.internal.example/:_authToken=" + npmToken + "\n",
			"compose.smoke.yml": "services:\n  smoke:\n    image: orders-api:slim\n",
		},
		Script: func(dir string) (before, after []turn) {
			df := filepath.Join(dir, "Dockerfile")
			before = []turn{
				{Prompt: "Moin! Unser orders-api image ist riesig, 1.21 GB for a tiny Node API. Ticket OPS-905: make it a multi-stage Dockerfile, Ziel ist unter 250 MB. Base images stay pinned by digest, kein :latest, that's a hard rule here.",
					Replies: []fakeapi.Reply{
						reply("I'll look at the current Dockerfile, package.json and the npm config.", 9000, read("d1", df), read("d2", filepath.Join(dir, "package.json")), read("d3", filepath.Join(dir, ".npmrc"))),
						reply("Current image is a single stage on node:20 that copies the whole repo and keeps dev dependencies. Plan: a `build` stage on node:20 (pinned by digest) that runs `npm ci` and the TypeScript build, then a `runtime` stage on node:20-alpine with only production deps. The private registry needs .npmrc, so I'd COPY .npmrc into the build stage before `npm ci`.", 11000),
					}},
				{Prompt: "Nein, kein alpine. musl macht sharp kaputt, we had that in March, images crashed on resize. Take gcr.io/distroless/nodejs20-debian12, also pinned. And you misunderstood the .npmrc thing: it must NOT be copied, COPY bakes the token into a layer. Mount it with BuildKit, --secret id=npmrc.",
					Replies: []fakeapi.Reply{
						reply("", 12000, read("d4r", df)),
						reply("Understood on both: distroless nodejs20-debian12 instead of alpine because of musl and sharp, and .npmrc only as a BuildKit secret mount, never in a layer.", 13000,
							write("d4", df, "# syntax=docker/dockerfile:1.7\nFROM node:20@sha256:6f1e9c0a8b7d AS build\nWORKDIR /app\nCOPY package.json package-lock.json ./\nRUN --mount=type=secret,id=npmrc,target=/root/.npmrc npm ci\nCOPY . .\nRUN npm run build && npm prune --omit=dev\n\nFROM gcr.io/distroless/nodejs20-debian12@sha256:3a9c1e77f0b2 AS runtime\nWORKDIR /app\nCOPY --from=build /app/node_modules ./node_modules\nCOPY --from=build /app/dist ./dist\nCMD [\"dist/server.js\"]\n")),
						reply("", 15000, bash("d5", "docker build --secret id=npmrc,src=.npmrc --target runtime -t orders-api:slim .", "Build the slim image")),
						reply("The build fails in the runtime stage: `\"/app/dist\": not found` when copying from the build stage.", 17000),
					}},
				{Prompt: "ach so, we build into build/, not dist/. steht doch in package.json",
					Replies: []fakeapi.Reply{
						reply("Right, package.json has `tsc --outDir build`; my mistake.", 19000, read("d6", df)),
						reply("", 21000, edit("d7", df, "COPY --from=build /app/dist ./dist\nCMD [\"dist/server.js\"]", "COPY --from=build /app/build ./build\nCMD [\"build/server.js\"]")),
						reply("", 23000, bash("d8", "docker build --secret id=npmrc,src=.npmrc --target runtime -t orders-api:slim . && docker images orders-api", "Rebuild and compare sizes")),
						reply("Builds now. orders-api:slim is 187MB against 1.21GB for the old fat image, so under the 250 MB target. For the HEALTHCHECK: which port does the health endpoint listen on in the container?", 25000),
					}},
				{Prompt: "8081",
					Replies: []fakeapi.Reply{
						reply("", 27000, read("d9", df)),
						reply("Distroless has no shell or curl, so the healthcheck uses node itself.", 29000,
							edit("d10", df, "CMD [\"build/server.js\"]", "EXPOSE 8081\nHEALTHCHECK --interval=30s CMD [\"/nodejs/bin/node\", \"-e\", \"fetch('http://127.0.0.1:8081/health').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))\"]\nCMD [\"build/server.js\"]")),
						reply("", 31000, bash("d11", "docker compose -f compose.smoke.yml run --rm smoke 2>&1 | tail -3", "Smoke test the slim image")),
						reply("Smoke test: `GET /readyz -> 503 (expected 200)`, 6 passing, 1 failing. The pipe ended with tail, so the shell said exit 0, but the smoke run failed.", 33000),
					}},
				{Prompt: "Mist. readyz needs the Postgres and the smoke compose has none. Lass das erstmal rot, I'll ask Kathrin, she wrote the smoke setup. Can you run trivy over it while we're here?",
					Replies: []fakeapi.Reply{
						reply("", 35000, bash("d12", "trivy image --severity HIGH,CRITICAL orders-api:slim", "Scan the slim image")),
						reply("trivy finds 2 HIGH in the distroless base: CVE-2024-5535 (libssl3) and CVE-2024-9143 (openssl), both fixed in 3.0.16. A newer distroless digest should clear them.", 37000),
					}},
				{Prompt: "Nee, don't bump the digest for that, base image updates go through the security team, Jonas has a monthly rotation. Not ours. ok ich mach mal compact",
					Replies: []fakeapi.Reply{
						reply("Okay, I leave the two CVEs and the base digest to Jonas's security rotation.", 39000),
					}},
				{Prompt: "/compact"},
			}
			after = []turn{
				{Prompt: "so, weiter",
					Replies: []fakeapi.Reply{reply("Picking it up again.", 14000)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket OPS-905", "OPS-905"),
			rx("goal under 250 MB", `250 ?MB`),
			rx("measured 1.21 GB -> 187 MB", `187 ?MB`, `1\.21 ?GB`),
			rx("base images pinned by digest, no :latest", `(?i)digest|:latest`),
			rx("distroless, alpine refused for musl/sharp", `(?i)distroless`, `(?i)alpine|musl|sharp`).notRx(`(?i)(switch|move|use)[^\n]{0,20}(node:20-)?alpine[^\n]{0,30}(next|now)`),
			rx(".npmrc as a BuildKit secret, never COPY", `(?i)--secret|secret mount|id=npmrc|mount=type=secret`),
			rx("docker build failed on /app/dist, fixed with build/", `(?i)docker build`, `(?i)/app/dist|dist/|outDir build|build/`),
			lit("health port 8081", "8081"),
			pipedFailed("smoke test fails on /readyz behind a pipe", `docker compose`, `(?i)readyz|503`),
			rx("readyz needs Postgres; Kathrin asked", `(?i)Kathrin`),
			rx("CVEs left to the security team", `(?i)CVE-2024-5535|CVE-2024-9143|libssl|openssl`, `(?i)security|Jonas`),
			rx("Dockerfile rewritten", `Dockerfile`),
		},
		Secrets: []secret{
			{Family: "registry password in a URL docker build prints", Value: password},
			{Family: "npm auth token in .npmrc the agent reads", Value: npmToken},
		},
	}
}
