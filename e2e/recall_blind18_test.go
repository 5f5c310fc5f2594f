package e2e

import (
	"path/filepath"

	"github.com/cairn-agent/cairn/e2e/fakeapi"
)

// The recall bench's eighteenth blind set: five held-out sessions written
// without reading cairn's extraction, checkpoint, render or redaction code
// nor any other scenario's body or facts, only the bench's types and
// helpers, the client's protocol notes and the brief's list of stacks
// already used. Their first run on main is the blind measurement; a check
// may only be corrected where it could not have matched a faithful
// restore, never because cairn missed it.
//
// Each is a kind of session no earlier set used, in a voice of its own:
//   - Debian packaging (dpkg-buildpackage, lintian, autopkgtest, dput) for
//     a terse lowercase user, compacted three times (auto, bare /compact,
//     /compact with instructions): an Edit whose old string is not found
//     and is retried, two questions answered in one message out of order,
//     a "no upload" rule lifted and then narrowed within one message, a
//     piped autopkgtest failure left to a colleague, a question the agent
//     says is still open although the user answered the other one, and a
//     password inside the upload URL dput prints;
//   - a ROS 2 (humble, colcon) QoS mismatch for a user who mixes Italian
//     into English: a subagent that lists the topic's subscribers, the
//     agent's publisher change overruled, a command the install lacks, a
//     long pasted crash trace, a colcon test failing then passing, a rate
//     measured, a file left to its owner, and a password in a <private>
//     span; one automatic compaction;
//   - a CUDA histogram kernel built with nvcc for a user who writes
//     headings and lists and an agent that reasons at length: a make
//     target that does not exist, a three-step plan whose middle step the
//     user refuses and whose last the agent finishes without saying so, a
//     request taken back in the same message, compute-sanitizer's race
//     fixed, timings, a piped test failure deferred to another ticket, and
//     a compaction inside a turn;
//   - a Cloudflare Worker moved from KV to R2 with wrangler for a chatty
//     user who pastes a config with a token in it; TaskCreate tasks
//     updated across /compact with instructions and an automatic
//     compaction, a key in a .dev.vars file the agent reads, a wrangler
//     config error fixed, a question answered with a bare value after the
//     first compaction, a piped smoke failure left to another ticket;
//   - a Racket #lang reader for a polite, formal user: a TodoWrite list
//     that changes, raco make failing then passing, a raco command that
//     does not exist, a piped raco test failure, a one-value answer, docs
//     left to their owner, a version rule lifted; a bare /compact.
//
// They run only in the report (TestRecallReport) and are marked
// "held-out, blind18" in its shape column.

// blind18Scenarios are the eighteenth blind set the recall report runs.
func blind18Scenarios() []scenario {
	return []scenario{blind18Debian(), blind18ROS(), blind18CUDA(), blind18Wrangler(), blind18Racket()}
}

// blind18Permissions lets the scripted agent edit files and run commands
// in headless turns.
var blind18Permissions = []string{"Bash"}

func blind18Debian() scenario {
	control := `Source: libquern
Section: libs
Priority: optional
Maintainer: Quern Packaging <pkg@quern.example>
Build-Depends: debhelper-compat (= 13),
 cmake,
 pkg-config
Standards-Version: 4.6.2
Homepage: https://quern.example

Package: libquern2
Architecture: any
Multi-Arch: same
Depends: ${shlibs:Depends}, ${misc:Depends}
Description: quern resampling library
 Shared library of quern, a fixed-point audio resampler.

Package: libquern-dev
Architecture: any
Multi-Arch: same
Section: libdevel
Depends: libquern2 (= ${binary:Version}), ${misc:Depends}
Description: quern resampling library (development files)
 Headers and the static library to recieve and build against quern.
`
	changelog := `libquern (2.4.1-1) bookworm; urgency=medium

  * New upstream release.

 -- Quern Packaging <pkg@quern.example>  Mon, 23 Nov 2026 10:12:40 +0000
`
	cmake := `cmake_minimum_required(VERSION 3.18)
project(quern VERSION 2.4.1 LANGUAGES C)
add_library(quern SHARED src/quern.c src/resample.c)
set_target_properties(quern PROPERTIES VERSION 3.0.0 SOVERSION 3)
find_package(PkgConfig REQUIRED)
pkg_check_modules(ZSTD REQUIRED libzstd>=1.5)
target_link_libraries(quern PRIVATE ${ZSTD_LIBRARIES})
install(TARGETS quern LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
`
	dpkgBuild := `#!/bin/sh
if ! grep -q 'libzstd-dev' debian/control; then
  echo "dpkg-buildpackage: info: source package libquern"
  echo "dpkg-buildpackage: info: source version 2.4.1-1"
  echo "dpkg-checkbuilddeps: error: Unmet build dependencies: libzstd-dev (>= 1.5)" >&2
  echo "dpkg-buildpackage: warning: build dependencies/conflicts unsatisfied; aborting" >&2
  echo "dpkg-buildpackage: warning: (Use -d flag to override.)" >&2
  exit 3
fi
echo "dpkg-buildpackage: info: source package libquern"
echo "dpkg-buildpackage: info: source version 2.4.1-1"
echo "   dh_auto_build"
echo "[100%] Built target quern"
echo "   dh_makeshlibs"
echo "dpkg-deb: building package libquern-dev in ../libquern-dev_2.4.1-1_amd64.deb."
echo " dpkg-genchanges --build=binary >../libquern_2.4.1-1_amd64.changes"
echo "dpkg-genchanges: info: binary-only upload (no source code included)"
echo "dpkg-buildpackage: info: binary-only upload (no source included)"
exit 0
`
	lintian := `#!/bin/sh
if ! grep -q '^Package: libquern3' debian/control; then
  echo "E: libquern2: package-name-doesnt-match-sonames libquern3"
  echo "W: libquern2: no-symbols-control-file usr/lib/x86_64-linux-gnu/libquern.so.3.0.0"
  echo "I: libquern-dev: spelling-error-in-description recieve receive"
  exit 2
fi
if [ ! -f debian/libquern3.symbols ]; then
  echo "W: libquern3: no-symbols-control-file usr/lib/x86_64-linux-gnu/libquern.so.3.0.0"
  echo "I: libquern-dev: spelling-error-in-description recieve receive"
  exit 0
fi
if grep -q '2\.4\.1-1' debian/libquern3.symbols; then
  echo "W: libquern3: symbols-file-contains-current-version-with-debian-revision on symbol quern_open@Base"
  echo "W: libquern3: symbols-file-contains-current-version-with-debian-revision on symbol quern_close@Base"
  echo "I: libquern-dev: spelling-error-in-description recieve receive"
  exit 0
fi
echo "I: libquern-dev: spelling-error-in-description recieve receive"
exit 0
`
	autopkgtest := `#!/bin/sh
echo "autopkgtest [15:02:11]: test smoke: [-----------------------"
echo "cc -o /tmp/autopkgtest.Xq3/smoke debian/tests/smoke.c -lquern"
echo "/usr/bin/ld: cannot find -lquern: No such file or directory"
echo "collect2: error: ld returned 1 exit status"
echo "autopkgtest [15:02:13]: test smoke: -----------------------]"
echo "smoke                FAIL non-zero exit status 1"
echo "autopkgtest [15:02:13]: @@@@@@@@@@@@@@@@@@@@ summary"
echo "smoke                FAIL non-zero exit status 1"
exit 4
`
	dput := `#!/bin/sh
sim=
if [ "$1" = "-s" ]; then sim=1; shift; fi
echo "Checking signature on .changes"
echo "gpg: ../libquern_2.4.1-1_amd64.changes: no signature found"
echo "Trying to upload package to $1 (https://ci-bot:hX4pL9wQe2zR@apt-staging.quern.example/upload)"
if [ -n "$sim" ]; then
  echo "Uploading libquern3_2.4.1-1_amd64.deb (simulated)"
  echo "Uploading libquern-dev_2.4.1-1_amd64.deb (simulated)"
  echo "Uploading libquern_2.4.1-1_amd64.changes (simulated)"
  exit 0
fi
echo "Uploading libquern3_2.4.1-1_amd64.deb"
echo "Upload failed: 403 Forbidden: the .changes file is not signed (built with -us -uc?)" >&2
exit 1
`
	return scenario{
		Name:        "blind18-deb-lintian",
		Shape:       "held-out, blind18: Debian packaging, terse lowercase user, auto + bare /compact + /compact with instructions, edit retried, two answers out of order, upload rule lifted then narrowed, piped autopkgtest failure, password in dput URL",
		Compactions: []string{"auto", "manual", "manual"},
		Files: map[string]string{
			"debian/control":           control,
			"debian/changelog":         changelog,
			"debian/rules":             "#!/usr/bin/make -f\n%:\n\tdh $@\n",
			"debian/libquern2.install": "usr/lib/*/libquern.so.*\n",
			"debian/tests/control":     "Tests: smoke\nDepends: libquern3, build-essential\n",
			"debian/tests/smoke.c":     "#include <quern.h>\nint main(void) { return quern_open(0) == 0 ? 0 : 1; }\n",
			"src/CMakeLists.txt":       cmake,
		},
		Bins: map[string]string{
			"dpkg-buildpackage": dpkgBuild,
			"lintian":           lintian,
			"autopkgtest":       autopkgtest,
			"dput":              dput,
		},
		PermissionMode: "acceptEdits",
		AllowedTools:   blind18Permissions,
		Script: func(dir string) (before, after []turn) {
			ctl := filepath.Join(dir, "debian/control")
			sym := filepath.Join(dir, "debian/libquern3.symbols")
			chl := filepath.Join(dir, "debian/changelog")
			before = []turn{
				{Prompt: "PKG-311. package libquern 2.4.1 for bookworm, goes in our internal apt repo. lintian clean = no E and no W, I: tags i dont care about. upstream src stays untouched, anything that needs patching goes through quilt in debian/patches. and dont upload anything, not even staging", Replies: []fakeapi.Reply{
					reply("reading the packaging first.", 8000,
						read("d1", ctl), read("d2", filepath.Join(dir, "src/CMakeLists.txt"))),
					reply("", 9000, bash("d3", "dpkg-buildpackage -us -uc -b", "binary build, unsigned")),
					reply("build deps short: libzstd-dev (>= 1.5) is not in Build-Depends but CMakeLists does pkg_check_modules(ZSTD libzstd>=1.5). adding it.", 9500,
						edit("d4", ctl, "Build-Depends: debhelper-compat (= 13), cmake, pkg-config", "Build-Depends: debhelper-compat (= 13), cmake, libzstd-dev (>= 1.5), pkg-config")),
					reply("old string didnt match, the field is folded over three lines. again with the real layout.", 10000,
						edit("d5", ctl, " cmake,\n pkg-config\n", " cmake,\n libzstd-dev (>= 1.5),\n pkg-config\n")),
					reply("libzstd-dev (>= 1.5) is in Build-Depends now. also: src/CMakeLists.txt sets SOVERSION 3 but the binary package is still called libquern2. lintian will complain, will see after the rebuild.", 11000),
				}},
				{Prompt: "go", Replies: []fakeapi.Reply{
					reply("", 12000, bash("d6", "dpkg-buildpackage -us -uc -b 2>&1 | tail -4", "rebuild")),
					reply("", 13000, bash("d7", "lintian ../libquern_2.4.1-1_amd64.changes", "lint the build")),
					reply("builds now. lintian says:\n- E package-name-doesnt-match-sonames libquern3 (upstream bumped SOVERSION 2 -> 3)\n- W no-symbols-control-file\n- I spelling recieve -> receive in libquern-dev's description (info, ignoring per your rule)\n\ntwo questions before i touch it:\n1. rename the binary package libquern2 -> libquern3. want Breaks/Replaces: libquern2 on it?\n2. symbols: a real debian/libquern3.symbols, or only bump shlibs and skip the symbols file?", 14000),
				}},
				{Prompt: "symbols file, full one. and rename yes, but no breaks/replaces. only thing on libquern2 internally is quern-cli and we rebuild that anyway", Replies: []fakeapi.Reply{
					reply("", 15000, bash("d8", "git mv debian/libquern2.install debian/libquern3.install && sed -i 's/^Package: libquern2$/Package: libquern3/; s/Depends: libquern2 (=/Depends: libquern3 (=/' debian/control && grep -n libquern debian/control", "rename binary package")),
					reply("", 16000, write("d9", sym, "libquern.so.3 libquern3 #MINVER#\n quern_close@Base 2.4.1-1\n quern_open@Base 2.4.1-1\n quern_resample@Base 2.4.1-1\n")),
					full("renamed to libquern3 (control + the .install file). no Breaks/Replaces, quern-cli is the only reverse dep and gets rebuilt. debian/libquern3.symbols lists the 3 exported symbols."),
				}},
				{Prompt: "continue", Replies: []fakeapi.Reply{
					reply("", 20000, bash("d10", "dpkg-buildpackage -us -uc -b 2>&1 | tail -3 && lintian ../libquern_2.4.1-1_amd64.changes", "rebuild and lint")),
					reply("", 21000, read("d11", sym)),
					reply("", 22000, edit("d12", sym,
						" quern_close@Base 2.4.1-1\n quern_open@Base 2.4.1-1\n quern_resample@Base 2.4.1-1\n",
						" quern_close@Base 2.4.1\n quern_open@Base 2.4.1\n quern_resample@Base 2.4.1\n")),
					reply("", 23000, bash("d13", "lintian ../libquern_2.4.1-1_amd64.changes; echo exit=$?", "lint again")),
					reply("", 24000, bash("d14", "autopkgtest . -- null 2>&1 | tail -4", "autopkgtests")),
					reply("symbols versions had the debian revision in them (2.4.1-1), lintian warned symbols-file-contains-current-version-with-debian-revision. now plain 2.4.1. lintian: 0 E, 0 W, 1 I (the recieve spelling, upstream text).\n\nautopkgtest is another story: smoke FAILS, /usr/bin/ld: cannot find -lquern. the tail ate the exit code so the shell said fine, it is not. debian/tests/control depends on libquern3 but not libquern-dev, so there is no .so symlink to link against. fix debian/tests/control?", 25000),
				}},
				{Prompt: "no. debian/tests is dana's, she is rewriting all of it this week. leave smoke red and put it in the MR description", Replies: []fakeapi.Reply{
					reply("ok. not touching debian/tests, smoke stays failing, it goes in the MR description as dana's.", 26000),
				}},
				{Prompt: "/compact"},
				{Prompt: "changed my mind on uploads: push it to staging and to the main repo. hm no, not main, jonas froze main until the 3rd. staging only", Replies: []fakeapi.Reply{
					reply("", 30000, bash("d15", "dput -s staging ../libquern_2.4.1-1_amd64.changes", "simulate the upload")),
					reply("", 31000, bash("d16", "dput staging ../libquern_2.4.1-1_amd64.changes", "upload to staging")),
					reply("simulation passed, the real upload got 403 Forbidden: the .changes is unsigned, we built with -us -uc. two things i need:\n- which gpg key should debsign use?\n- changelog distribution: stay bookworm, or the staging suite's name?", 32000),
				}},
				{Prompt: "distribution is quern-staging", Replies: []fakeapi.Reply{
					reply("", 33000, read("d17", chl)),
					reply("", 34000, edit("d18", chl, "libquern (2.4.1-1) bookworm; urgency=medium", "libquern (2.4.1-1) quern-staging; urgency=medium")),
					reply("changelog targets quern-staging now. the key is still open: you didnt say which one debsign should use, so the staging upload waits on that. no re-upload until i have a key id.", 35000),
				}},
				{Prompt: "/compact keep what is needed to finish the job"},
			}
			after = []turn{
				{Prompt: "ok", Replies: []fakeapi.Reply{reply("picking it up from here.", 36000)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket PKG-311", "PKG-311"),
			lit("upstream version 2.4.1", "2.4.1"),
			rx("upstream changes only as quilt patches", `(?i)quilt|debian/patches`),
			rx("no upload at all, not even staging", `(?i)(\bno\b|\bnot\b|n't|never|without)[^\n]{0,40}upload|upload[^\n]{0,40}(forbidden|not allowed|\bnot\b)`).until(2),
			rx("libzstd-dev added to Build-Depends", `libzstd-dev`),
			rx("binary package renamed libquern3 for SOVERSION 3", `libquern3`, `(?i)soname|soversion|\.so\.3|so 3`),
			rx("no Breaks/Replaces since only quern-cli depends", `(?i)breaks`, `(?i)quern-cli`),
			lit("symbols file written", "libquern3.symbols"),
			rx("symbols versions without the debian revision", `(?i)debian[- ]revision`).from(2),
			rx("lintian clean but one spelling info", `(?i)recieve|spelling`).from(2),
			pipedFailed("autopkgtest smoke fails behind the pipe", "autopkgtest", `(?i)smoke`, `(?i)fail|\bred\b|cannot find -lquern`).from(2),
			rx("debian/tests belongs to dana", `(?i)dana`).from(2),
			rx("upload to staging only, main frozen by jonas", `(?i)staging`, `(?i)jonas|froze|freez`).from(3),
			rx("staging upload refused, unsigned changes", `(?i)403|unsigned|not signed`).from(3),
			lit("changelog distribution quern-staging", "quern-staging").from(3),
			rx("signing key still open", `(?i)key[ -]?id|which (gpg )?key|signing key|gpg key|debsign key|key for debsign`).from(3),
		},
		Secrets: []secret{{Family: "password in a URL dput prints", Value: "hX4pL9wQe2zR"}},
	}
}

func blind18ROS() scenario {
	node := `#include <memory>

#include "rclcpp/rclcpp.hpp"
#include "sensor_msgs/msg/laser_scan.hpp"

namespace lidar_filter
{

class FilterNode : public rclcpp::Node
{
public:
  explicit FilterNode(const rclcpp::NodeOptions & options)
  : Node("lidar_filter", options)
  {
    min_range_ = declare_parameter("min_range", 0.12);
    max_range_ = declare_parameter("max_range", 12.0);
    debug_ = declare_parameter("debug", false);

    rclcpp::PublisherOptions pub_opts;
    pub_opts.qos_overriding_options = rclcpp::QosOverridingOptions::with_default_policies();
    pub_ = create_publisher<sensor_msgs::msg::LaserScan>("/scan_filtered", rclcpp::QoS(10), pub_opts);

    rclcpp::SubscriptionOptions sub_opts;
    sub_opts.qos_overriding_options = rclcpp::QosOverridingOptions::with_default_policies();
    sub_ = create_subscription<sensor_msgs::msg::LaserScan>(
      "/scan", rclcpp::QoS(10),
      [this](sensor_msgs::msg::LaserScan::UniquePtr msg) {on_scan(std::move(msg));}, sub_opts);

    if (debug_) {
      scan_debug_sub_ = create_subscription<sensor_msgs::msg::LaserScan>(
        "/scan", rclcpp::QoS(10),
        [this](sensor_msgs::msg::LaserScan::ConstSharedPtr msg) {
          RCLCPP_DEBUG(get_logger(), "raw scan with %zu ranges", msg->ranges.size());
        }, sub_opts);
    }
  }

private:
  void on_scan(sensor_msgs::msg::LaserScan::UniquePtr msg)
  {
    for (auto & r : msg->ranges) {
      if (r < min_range_ || r > max_range_) {r = std::numeric_limits<float>::quiet_NaN();}
    }
    pub_->publish(std::move(msg));
  }

  double min_range_, max_range_;
  bool debug_;
  rclcpp::Publisher<sensor_msgs::msg::LaserScan>::SharedPtr pub_;
  rclcpp::Subscription<sensor_msgs::msg::LaserScan>::SharedPtr sub_, scan_debug_sub_;
};

}  // namespace lidar_filter

#include "rclcpp_components/register_node_macro.hpp"
RCLCPP_COMPONENTS_REGISTER_NODE(lidar_filter::FilterNode)
`
	test := `#include <gtest/gtest.h>

#include "lidar_filter/qos.hpp"

TEST(FilterParams, DefaultRanges)
{
  EXPECT_DOUBLE_EQ(lidar_filter::default_min_range(), 0.12);
}

TEST(FilterParams, DefaultReliability)
{
  auto qos = lidar_filter::scan_qos();
  EXPECT_EQ(qos.reliability(), rclcpp::ReliabilityPolicy::Reliable);
}
`
	navYaml := `costmap:
  ros__parameters:
    qos_overrides:
      /scan_filtered:
        subscription:
          reliability: reliable
          depth: 10
`
	colcon := `#!/bin/sh
case "$1" in
build)
  echo "Starting >>> lidar_filter"
  echo "Finished <<< lidar_filter [4.21s]"
  echo ""
  echo "Summary: 1 package finished [4.88s]"
  exit 0;;
test)
  echo "Starting >>> lidar_filter"
  echo "Finished <<< lidar_filter [2.10s]"
  echo ""
  echo "Summary: 1 package finished [2.64s]"
  exit 0;;
test-result)
  if grep -q 'BestEffort' src/lidar_filter/test/test_filter_params.cpp; then
    echo "Summary: 14 tests, 0 errors, 0 failures, 0 skipped"
    exit 0
  fi
  echo "build/lidar_filter/test_results/lidar_filter/test_filter_params.gtest.xml: 6 tests, 0 errors, 1 failure, 0 skipped"
  echo "- lidar_filter.FilterParams DefaultReliability"
  echo "  <<< failure message"
  echo "    Expected equality of these values:"
  echo "      qos.reliability()"
  echo "        Which is: BestEffort"
  echo "      rclcpp::ReliabilityPolicy::Reliable"
  echo "  >>>"
  echo ""
  echo "Summary: 14 tests, 0 errors, 1 failure, 0 skipped"
  exit 1;;
esac
echo "colcon: error: argument verb_name: invalid choice: '$1'" >&2
exit 2
`
	ros2 := `#!/bin/sh
if [ "$1" = "topic" ] && [ "$2" = "info" ]; then
  cat <<'EOF'
Type: sensor_msgs/msg/LaserScan

Publisher count: 1

Node name: urg_node
Node namespace: /
Topic type: sensor_msgs/msg/LaserScan
Endpoint type: PUBLISHER
QoS profile:
  Reliability: BEST_EFFORT
  History (Depth): KEEP_LAST (5)
  Durability: VOLATILE

Subscription count: 2

Node name: lidar_filter
Node namespace: /
Topic type: sensor_msgs/msg/LaserScan
Endpoint type: SUBSCRIPTION
QoS profile:
  Reliability: RELIABLE
  History (Depth): KEEP_LAST (10)
  Durability: VOLATILE

Node name: slam_adapter
Node namespace: /
Topic type: sensor_msgs/msg/LaserScan
Endpoint type: SUBSCRIPTION
QoS profile:
  Reliability: BEST_EFFORT
  History (Depth): KEEP_LAST (5)
  Durability: VOLATILE
EOF
  exit 0
fi
if [ "$1" = "topic" ] && [ "$2" = "hz" ]; then
  if grep -q 'SensorDataQoS' src/lidar_filter/src/filter_node.cpp; then
    echo "average rate: 9.912"
    echo "	min: 0.098s max: 0.104s std dev: 0.00141s window: 99"
  else
    echo "WARNING: topic [/scan_filtered] does not appear to be published yet"
  fi
  exit 0
fi
echo "usage: ros2 [-h] [--use-python-default-buffering] Call ros2 <command> -h for more detailed usage. ..." >&2
echo "ros2: error: argument Call ros2 <command> -h for more detailed usage.: invalid choice: '$1'" >&2
exit 2
`
	crash := "lo lancio col bag e debug:=true, crasha subito:\n\n" +
		"```\n" +
		"[INFO] [launch]: All log files can be found below /home/giulia/.ros/log/2026-11-25-14-41-07-512934-ws-88213\n" +
		"[INFO] [lidar_filter-1]: process started with pid [88231]\n" +
		"[lidar_filter-1] terminate called after throwing an instance of 'rclcpp::exceptions::ParameterAlreadyDeclaredException'\n" +
		"[lidar_filter-1]   what():  parameter 'qos_overrides./scan.subscription.reliability' has already been declared\n" +
		"[lidar_filter-1] Stack trace (most recent call last):\n" +
		"[lidar_filter-1] #17   Object \"\", at 0xffffffffffffffff, in\n" +
		"[lidar_filter-1] #16   Object \"/opt/ros/humble/lib/rclcpp_components/component_container\", in _start\n" +
		"[lidar_filter-1] #15   Source \"../csu/libc-start.c\", line 392, in __libc_start_main_impl\n" +
		"[lidar_filter-1] #14   Source \"../sysdeps/nptl/libc_start_call_main.h\", line 58, in __libc_start_call_main\n" +
		"[lidar_filter-1] #13   Object \"/ws/install/lidar_filter/lib/lidar_filter/lidar_filter_node\", in main\n" +
		"[lidar_filter-1] #12   Object \"/ws/install/lidar_filter/lib/liblidar_filter.so\", in lidar_filter::FilterNode::FilterNode(rclcpp::NodeOptions const&)\n" +
		"[lidar_filter-1] #11   Object \"/opt/ros/humble/lib/librclcpp.so\", in rclcpp::create_subscription<sensor_msgs::msg::LaserScan, ...>\n" +
		"[lidar_filter-1] #10   Object \"/opt/ros/humble/lib/librclcpp.so\", in rclcpp::detail::declare_qos_parameters<rclcpp::node_interfaces::NodeParametersInterface>\n" +
		"[lidar_filter-1] #9    Object \"/opt/ros/humble/lib/librclcpp.so\", in rclcpp::detail::declare_parameter_or_get<rclcpp::ReliabilityPolicy>\n" +
		"[lidar_filter-1] #8    Object \"/opt/ros/humble/lib/librclcpp.so\", in rclcpp::node_interfaces::NodeParameters::declare_parameter(std::string const&, rclcpp::ParameterValue const&, rcl_interfaces::msg::ParameterDescriptor const&, bool)\n" +
		"[lidar_filter-1] #7    Object \"/opt/ros/humble/lib/librclcpp.so\", in __cxa_throw\n" +
		"[lidar_filter-1] #6    Object \"/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30\", in std::terminate()\n" +
		"[lidar_filter-1] #5    Object \"/usr/lib/x86_64-linux-gnu/libstdc++.so.6.0.30\", in __gnu_cxx::__verbose_terminate_handler()\n" +
		"[lidar_filter-1] #4    Source \"./stdlib/abort.c\", line 79, in abort\n" +
		"[lidar_filter-1] #3    Source \"../sysdeps/posix/raise.c\", line 26, in raise\n" +
		"[lidar_filter-1] #2    Source \"./nptl/pthread_kill.c\", line 89, in __pthread_kill_internal\n" +
		"[lidar_filter-1] #1    Source \"./nptl/pthread_kill.c\", line 44, in __pthread_kill_implementation\n" +
		"[lidar_filter-1] #0    Object \"/usr/lib/x86_64-linux-gnu/libc.so.6\", at 0x7f3a6c2969fc, in pthread_kill\n" +
		"[lidar_filter-1] Aborted (Signal sent by tkill() 88231 0)\n" +
		"[ERROR] [lidar_filter-1]: process has died [pid 88231, exit code -6, cmd '/ws/install/lidar_filter/lib/lidar_filter/lidar_filter_node --ros-args -p debug:=true'].\n" +
		"```\n\ncosa succede?"
	return scenario{
		Name:        "blind18-ros2-qos",
		Shape:       "held-out, blind18: ROS 2 humble/colcon QoS mismatch, user mixing Italian, subagent lists subscribers, publisher change overruled, command missing, long pasted crash trace, test fails then passes, <private> password, auto",
		Compactions: []string{"auto"},
		Files: map[string]string{
			"src/lidar_filter/src/filter_node.cpp":         node,
			"src/lidar_filter/test/test_filter_params.cpp": test,
			"src/lidar_filter/package.xml":                 "<package format=\"3\"><name>lidar_filter</name><version>0.3.2</version></package>\n",
			"src/slam_adapter/src/adapter.cpp":             "// slam_adapter\n// line 77: create_subscription<LaserScan>(\"/scan\", rclcpp::SensorDataQoS(), cb);\n",
			"src/nav_bringup/params/nav.yaml":              navYaml,
		},
		Bins:           map[string]string{"colcon": colcon, "ros2": ros2},
		PermissionMode: "acceptEdits",
		AllowedTools:   blind18Permissions,
		Script: func(dir string) (before, after []turn) {
			nodeFile := filepath.Join(dir, "src/lidar_filter/src/filter_node.cpp")
			testFile := filepath.Join(dir, "src/lidar_filter/test/test_filter_params.cpp")
			subPrompt := "List every subscriber of /scan in src/ and the QoS each one uses"
			before = []turn{
				{Prompt: "ciao! ticket ROB-88: dopo il cambio del driver lidar a QoS best_effort, /scan_filtered from lidar_filter is empty, 0 Hz in the bag replay. We are on humble, niente roba di rolling please. E non toccare nav_bringup, è di Marco, he is very particular about his package. <private>se ti serve il robot: ssh ubuntu@10.4.0.17, password Tr1ton-88-mare</private>", Replies: []fakeapi.Reply{
					reply("Let me look at the node first, then at what the graph says about /scan.", 6000, read("r1", nodeFile)),
					reply("", 7000, bash("r2", "ros2 doctor --report", "check the ROS environment")),
					reply("doctor is not part of this install, so I ask the topic directly.", 7500, bash("r3", "ros2 topic info /scan --verbose", "QoS of /scan endpoints")),
					reply("Found it. urg_node publishes /scan BEST_EFFORT, and lidar_filter subscribes with rclcpp::QoS(10), which is RELIABLE by default. A reliable subscription never matches a best-effort publisher, so on_scan never runs and /scan_filtered stays silent. slam_adapter already matches (BEST_EFFORT).\n\nMy plan: subscribe with rclcpp::SensorDataQoS() in filter_node.cpp, and switch our own /scan_filtered publisher to best_effort as well, so the whole chain is sensor-data QoS. Before touching anything, let me check who else listens to /scan.", 8000,
						agentCall("r4", "general-purpose", "find /scan subscribers", subPrompt+"; give files and line numbers, and anything that overrides QoS for /scan or /scan_filtered.")),
					{Text: "Subscribers of /scan:\n- src/lidar_filter/src/filter_node.cpp: two create_subscription calls on /scan (main sub_ and scan_debug_sub_ when debug is true), both rclcpp::QoS(10) -> reliable by default, both with QosOverridingOptions::with_default_policies()\n- src/slam_adapter/src/adapter.cpp:77: rclcpp::SensorDataQoS() -> best effort already\nOverrides: src/nav_bringup/params/nav.yaml sets qos_overrides./scan_filtered.subscription.reliability: reliable for the costmap.", Usage: usageAt(3000), For: subPrompt},
					reply("The subagent confirms only lidar_filter is mismatched; slam_adapter already uses SensorDataQoS. Note that nav.yaml (nav_bringup) asks for a reliable /scan_filtered subscription in the costmap, which matters if I change our publisher.", 9000),
				}},
				{Prompt: "no no, il publisher di /scan_filtered resta reliable. rviz and the rosbag recorder on the base station want reliable, and the costmap too as you saw. Only fix the subscription.", Replies: []fakeapi.Reply{
					reply("", 10000, edit("r5", nodeFile, "sub_ = create_subscription<sensor_msgs::msg::LaserScan>(\n      \"/scan\", rclcpp::QoS(10),", "sub_ = create_subscription<sensor_msgs::msg::LaserScan>(\n      \"/scan\", rclcpp::SensorDataQoS(),")),
					reply("", 11000, bash("r6", "colcon build --packages-select lidar_filter", "build lidar_filter")),
					reply("Done that way: the main subscription uses rclcpp::SensorDataQoS(), the /scan_filtered publisher is untouched and stays RELIABLE. Build is fine. Can you run it against the bag on your side?", 12000),
				}},
				{Prompt: crash, Replies: []fakeapi.Reply{
					reply("", 13000, bash("r7", "grep -n 'QosOverridingOptions\\|create_subscription\\|debug_' src/lidar_filter/src/filter_node.cpp", "find the overrides")),
					reply("With debug:=true the node makes a second subscription on /scan (scan_debug_sub_), and it reuses sub_opts, which carries QosOverridingOptions::with_default_policies(). Each subscription with overriding options declares qos_overrides./scan.subscription.*, so the second one declares reliability again and rclcpp throws ParameterAlreadyDeclaredException. Without debug it never happened, that's why the bag run without it was only silent. Fix: give the debug subscription plain options, no overrides.", 14000,
						edit("r8", nodeFile, "          RCLCPP_DEBUG(get_logger(), \"raw scan with %zu ranges\", msg->ranges.size());\n        }, sub_opts);", "          RCLCPP_DEBUG(get_logger(), \"raw scan with %zu ranges\", msg->ranges.size());\n        });")),
					reply("", 15000, bash("r9", "colcon build --packages-select lidar_filter && colcon test --packages-select lidar_filter && colcon test-result --verbose", "build and test")),
					reply("", 16000, read("r10", testFile)),
					reply("test_filter_params DefaultReliability still expects Reliable for the /scan subscription QoS; that is the behaviour we just changed on purpose.", 16500,
						edit("r11", testFile, "EXPECT_EQ(qos.reliability(), rclcpp::ReliabilityPolicy::Reliable);", "EXPECT_EQ(qos.reliability(), rclcpp::ReliabilityPolicy::BestEffort);  // ROB-88")),
					reply("", 17000, bash("r12", "colcon test --packages-select lidar_filter && colcon test-result --verbose", "rerun tests")),
					reply("", 17500, bash("r13", "timeout 12 ros2 topic hz /scan_filtered", "rate of /scan_filtered")),
					reply("Crash fixed: the debug subscription no longer passes QosOverridingOptions, so qos_overrides./scan.subscription.reliability is declared once. test_filter_params failed on DefaultReliability (expected Reliable); updated to BestEffort, now 14 tests, 0 failures. /scan_filtered on the bag: average rate 9.912 Hz.\n\nOne thing outside my reach: src/nav_bringup/params/nav.yaml still carries qos_overrides for /scan_filtered, and the costmap would want a look once the driver settles. That is Marco's package, I left it alone.", 18000),
				}},
				{Prompt: "perfetto. il nav.yaml lo sistema Marco lunedì, gli scrivo io.", Replies: []fakeapi.Reply{
					full("Va bene: nav.yaml stays with Marco for Monday, nothing of nav_bringup touched."),
				}},
			}
			after = []turn{
				{Prompt: "andiamo avanti", Replies: []fakeapi.Reply{reply("Sì, continuo.", 20000)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket ROB-88", "ROB-88"),
			rx("humble only, nothing from rolling", `(?i)humble`),
			rx("nav_bringup is Marco's, not to touch", `nav_bringup`, `(?i)marco`),
			rx("cause: reliable subscription against best_effort publisher", `(?i)best[_ -]?effort`, `(?i)reliable`),
			lit("subscription switched to SensorDataQoS in filter_node.cpp", "SensorDataQoS", "filter_node.cpp"),
			rx("/scan_filtered publisher stays reliable (user overruled)", `(?i)(publisher|/scan_filtered)[^\n]{0,80}reliable|reliable[^\n]{0,80}(publisher|/scan_filtered)`, `(?i)rviz|rosbag|recorder|costmap`),
			rx("debug crash: parameter declared twice, overrides dropped on the debug subscription", `(?i)ParameterAlreadyDeclared|already (been )?declared`, `(?i)debug`),
			rx("subagent: slam_adapter already best effort", `slam_adapter`),
			rx("test_filter_params updated, failing then passing", `test_filter_params|DefaultReliability`),
			rx("/scan_filtered at 9.9 Hz on the bag", `9\.9\d* ?Hz`),
			rx("nav.yaml left to Marco for Monday", `nav\.yaml`, `(?i)marco|monday|lunedì`),
		},
		Secrets: []secret{{Family: "password in a <private> span", Value: "Tr1ton-88-mare"}},
	}
}

func blind18CUDA() scenario {
	hist := `// hist.cu: 256-bin byte histogram
#include <cuda_runtime.h>
#include <cstdio>

constexpr int BLOCK = 256;

__global__ void hist_kernel(const unsigned char* in, size_t n, unsigned int* bins) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (; i < n; i += stride) {
        atomicAdd(&bins[in[i]], 1u);
    }
}

void launch_hist(const unsigned char* in, size_t n, unsigned int* bins, cudaStream_t s) {
    int grid = 4 * 108;  // 4 blocks per SM on A100
    hist_kernel<<<grid, BLOCK, 0, s>>>(in, n, bins);
}
`
	privatized := `// hist.cu: 256-bin byte histogram, privatized in shared memory per block
#include <cuda_runtime.h>
#include <cstdio>

constexpr int BLOCK = 256;
constexpr int NBINS = 256;

__global__ void hist_kernel(const unsigned char* in, size_t n, unsigned int* bins) {
    __shared__ unsigned int smem[NBINS];
    for (int b = threadIdx.x; b < NBINS; b += blockDim.x) smem[b] = 0;
    __syncthreads();

    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    for (; i < n; i += stride) {
        atomicAdd(&smem[in[i]], 1u);
    }

    for (int b = threadIdx.x; b < NBINS; b += blockDim.x) atomicAdd(&bins[b], smem[b]);
}

void launch_hist(const unsigned char* in, size_t n, unsigned int* bins, cudaStream_t s) {
    int grid = 4 * 108;  // 4 blocks per SM on A100
    hist_kernel<<<grid, BLOCK, 0, s>>>(in, n, bins);
}
`
	nvcc := `#!/bin/sh
out=a.out
while [ $# -gt 0 ]; do
  case "$1" in
  -o) out="$2"; shift;;
  esac
  shift
done
mkdir -p "$(dirname "$out")"
case "$out" in
*hist_test)
  cat > "$out" <<'EOF'
#!/bin/sh
echo "[ OK ] bins=16"
echo "[ OK ] bins=256"
echo "[FAIL] bins=4096: mismatch at bin 4095 (got 0, expected 65536)"
echo "1 of 3 cases FAILED"
exit 1
EOF
  ;;
*)
  cat > "$out" <<'EOF'
#!/bin/sh
src=src/hist.cu
bs=256
grep -q 'BLOCK = 512' $src && bs=512
if grep -q '__shared__ unsigned int smem' $src; then
  if [ $bs = 512 ]; then t=11.6; else t=12.9; fi
else
  t=41.7
fi
echo "n=268435456 bins=256 block=$bs grid=432"
echo "kernel time: $t ms (median of 20 runs)"
EOF
  ;;
esac
chmod +x "$out"
exit 0
`
	sanitizer := `#!/bin/sh
echo "========= COMPUTE-SANITIZER"
if grep -q '__syncthreads();  // counts done before the merge' src/hist.cu; then
  echo "n=1048576 bins=256"
  echo "========= RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)"
  exit 0
fi
echo "========= Error: Race reported between Write access at hist_kernel(const unsigned char *, unsigned long, unsigned int *)+0x1f0 in src/hist.cu:17"
echo "=========     and Read access at hist_kernel(const unsigned char *, unsigned long, unsigned int *)+0x2a0 in src/hist.cu:20 [1024 hazards]"
echo "========="
echo "========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)"
exit 1
`
	return scenario{
		Name:        "blind18-cuda-hist",
		Shape:       "held-out, blind18: CUDA nvcc histogram kernel, user writes headings and lists, agent reasons at length, missing make target, plan step refused, request taken back, racecheck fixed, timings, piped test failure deferred, compaction inside a turn",
		Compactions: []string{"in-turn"},
		Files: map[string]string{
			"src/hist.cu":        hist,
			"tests/hist_test.cu": "// runs launch_hist for 16, 256 and 4096 bins against a CPU reference\n",
			"README.md":          "# hist\n\nByte histogram kernels for the ingest pipeline.\n",
		},
		Bins:           map[string]string{"nvcc": nvcc, "compute-sanitizer": sanitizer},
		PermissionMode: "acceptEdits",
		AllowedTools:   blind18Permissions,
		Script: func(dir string) (before, after []turn) {
			src := filepath.Join(dir, "src/hist.cu")
			build := "nvcc -O3 -arch=sm_80 -o build/hist src/hist.cu && ./build/hist"
			before = []turn{
				{Prompt: "## Ticket\nPERF-1207: hist_kernel in src/hist.cu is about 3x slower on the A100 partition than the V100 numbers we had last year.\n\n## Constraints\n- toolchain stays CUDA 11.8, that is what the cluster image has\n- A100 only: build for sm_80\n- no new dependencies\n\n## Ask\n- find out why\n- fix it\n- measure before and after", Replies: []fakeapi.Reply{
					reply("Reading the kernel first.", 7000, read("c1", src)),
					reply("", 8000, bash("c2", "make hist", "build the benchmark")),
					reply("There is no Makefile target for it (no Makefile at all, in fact), so I build with nvcc directly.", 8500, bash("c3", build, "baseline build and timing")),
					reply("Baseline: 41.7 ms for 268,435,456 bytes into 256 bins, block 256, grid 432.\n\nWhy it is slow: every thread issues a global atomicAdd on one of only 256 addresses. Real input is text-like, so most bytes land in perhaps 40 bins, and thousands of threads serialize on the same few L2 atomic units. The V100 build was probably not faster hardware-wise; last year's input was more uniform, or the old driver hid it. Either way the fix is the same: stop hammering global memory.\n\nWhat I would do, in order:\n1. privatize: each block keeps its own 256-bin histogram in shared memory and merges it into global memory once at the end;\n2. warp-aggregate the shared-memory atomics with __match_any_sync, so lanes holding the same byte do a single atomic;\n3. compare BLOCK 256 against 512 once 1 and 2 are in.\n\nI would start with 1 and 2 together.", 9000),
				}},
				{Prompt: "Answers:\n- 1: yes\n- 2: no. __match_any_sync came out slower on the H100 nodes in Lars's tests and we move there in Q1. Plain shared-memory atomics.\n- 3: fine\n\nAlso could you add a CUB DeviceHistogram version next to it so we can compare? Actually no, scratch that: no new dependencies means no CUB either, even though it ships with the toolkit.", Replies: []fakeapi.Reply{
					reply("Understood: privatization only, no warp aggregation, no CUB.", 10000, write("c4", src, privatized)),
					reply("", 11000, bash("c5", build, "time the privatized kernel")),
					reply("", 12000, bash("c6", "compute-sanitizer --tool racecheck ./build/hist --n 1048576", "race check")),
					reply("12.9 ms, down from 41.7 (3.2x). But racecheck reports a hazard between line 17 and line 20, and it is right: nothing stops a fast warp from starting the merge loop, reading smem[b], while slower warps of the same block are still adding into it. The zeroing has a barrier after it; the counting loop has none. A missing __syncthreads() there undercounts whenever warps drift apart, which on a busy SM is always. Adding it before the merge.", 13000,
						edit("c7", src, "        atomicAdd(&smem[in[i]], 1u);\n    }\n\n", "        atomicAdd(&smem[in[i]], 1u);\n    }\n    __syncthreads();  // counts done before the merge\n\n")),
					reply("", 14000, bash("c8", "nvcc -O3 -arch=sm_80 -o build/hist src/hist.cu && compute-sanitizer --tool racecheck ./build/hist --n 1048576", "race check again")),
					reply("", 15000, bash("c9", "nvcc -O3 -arch=sm_80 -o build/hist_test tests/hist_test.cu src/hist.cu && ./build/hist_test 2>&1 | tail -3", "correctness tests")),
					reply("racecheck: 0 hazards now.\n\nThe tests are not all green, whatever the shell's exit status says (tail swallowed it): bins=16 and bins=256 pass, bins=4096 FAILS, bin 4095 gets 0 instead of 65536. Reasoning it through: the kernel hard-codes NBINS = 256 for the shared array, and the 4096-bin path goes through the same launch, so every byte pair above 255 is dropped. It was not caught before because the old kernel used global memory sized by the caller. Two ways out: size the shared array dynamically (4096 x 4 B = 16 KiB, fits), or fall back to the global-atomic kernel above 256 bins. Which one do you prefer?", 16000),
				}},
				{Prompt: "4096 bins is only used by the offline tool. Leave it broken for now, I opened PERF-1210 for it. Go on.", Replies: []fakeapi.Reply{
					reply("", 17000, edit("c10", src, "constexpr int BLOCK = 256;", "constexpr int BLOCK = 512;")),
					reply("", 18000, bash("c11", build, "time with 512 threads")),
					full("512 threads per block: 11.6 ms against 12.9 at 256, so BLOCK stays 512. From 41.7 ms that is 3.6x overall. Checking what the change touches before I write up the PR notes.", bash("c12", "git diff --stat", "what changed")),
					{Text: "Only src/hist.cu changed.", Usage: usageAt(24000), ToolResultFor: "c12"},
				}},
			}
			after = []turn{
				{Prompt: "ok, what would you put in the PR description?", Replies: []fakeapi.Reply{reply("Let me draft it.", 25000)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket PERF-1207", "PERF-1207"),
			rx("toolchain stays CUDA 11.8", `(?i)(cuda|toolkit|nvcc|toolchain)[^\n]{0,30}11\.8|11\.8[^\n]{0,30}(cuda|toolkit|cluster|image)`),
			lit("build for sm_80", "sm_80"),
			rx("baseline 41.7 ms", `41\.7`),
			rx("shared-memory privatization per block", `(?i)shared[- ]memory|__shared__|smem|privati`),
			rx("warp aggregation with __match_any_sync refused (slower on H100)", `(?i)match_any|warp[- ]aggregat`, `(?i)H100|Lars|hopper`),
			rx("no CUB (request taken back)", `(?i)\bCUB\b`),
			rx("racecheck hazard fixed with __syncthreads before the merge", `(?i)racecheck|hazard|\brace\b`, `__syncthreads`),
			rx("12.9 ms privatized at block 256", `12\.9`),
			rx("BLOCK 512 chosen at 11.6 ms", `11\.6`, `512`),
			pipedFailed("hist_test bins=4096 fails behind the pipe", "hist_test", `4096`, `(?i)fail|mismatch|broken`),
			lit("4096 bins deferred to PERF-1210", "PERF-1210"),
			rx("no make target, built with nvcc directly", `nvcc`),
		},
	}
}

func blind18Wrangler() scenario {
	toml := `name = "img-resize"
main = "src/index.ts"
compatibility_date = "2025-09-01"

[[kv_namespaces]]
binding = "IMG_KV"
id = "5f1c0a7e2b9d4c3f8a6e1d0b7c4f2a91"
`
	index := `export interface Env {
  IMG_KV: KVNamespace;
}

export default {
  async fetch(req: Request, env: Env, ctx: ExecutionContext): Promise<Response> {
    const m = new URL(req.url).pathname.match(/^\/img\/([^/]+)\/(\d+)$/);
    if (!m) return new Response("not found", { status: 404 });
    const [, key, width] = m;
    const original = await env.IMG_KV.get(key, "arrayBuffer");
    if (!original) return new Response("no such image", { status: 404 });
    return resize(original, Number(width));
  },
};

async function resize(buf: ArrayBuffer, width: number): Promise<Response> {
  return new Response(buf, { headers: { "content-type": "image/jpeg", "x-width": String(width) } });
}
`
	wrangler := `#!/bin/sh
if [ "$1" = "deploy" ]; then
  echo ""
  echo " ⛅️ wrangler 3.114.1"
  echo "-------------------"
  if grep -q 'r2_buckets' wrangler.toml && ! grep -q 'bucket_name' wrangler.toml; then
    echo ""
    echo "✘ [ERROR] Processing wrangler.toml configuration:"
    echo ""
    echo "    - \"r2_buckets[0]\" bindings should have a string \"bucket_name\" field but got {\"binding\":\"IMAGES_BUCKET\",\"name\":\"img-originals\"}."
    exit 1
  fi
  echo "Your worker has access to the following bindings:"
  echo "- KV Namespaces:"
  echo "  - IMG_KV: 5f1c0a7e2b9d4c3f8a6e1d0b7c4f2a91"
  echo "- R2 Buckets:"
  echo "  - IMAGES_BUCKET: img-originals"
  echo "Total Upload: 41.27 KiB / gzip: 11.02 KiB"
  echo "--dry-run: exiting now."
  exit 0
fi
echo "✘ [ERROR] Unknown argument: $1" >&2
exit 1
`
	pasted := "Hey! Okay so here's the situation. Our image-resize worker (src/index.ts) keeps the original uploads in KV, and with the new camera app people upload 30 MB photos, so we're bumping into the 25 MiB KV value limit and the uploads just fail. Ticket is IMG-442: move the originals to R2, keep KV only for the small metadata, and cache the resized variants with the Cache API so we're not resizing on every single hit.\n\n" +
		"Two things that matter to me: the public URL shape /img/:key/:width must not change (both apps hard-code it), and we're on the free plan, so please keep an eye on the 10 ms CPU limit per request.\n\n" +
		"Here's the config that's actually deployed, for reference, it's drifted a bit from the repo one:\n\n" +
		"```toml\nname = \"img-resize\"\nmain = \"src/index.ts\"\ncompatibility_date = \"2025-09-01\"\n\n[[kv_namespaces]]\nbinding = \"IMG_KV\"\nid = \"5f1c0a7e2b9d4c3f8a6e1d0b7c4f2a91\"\n\n[vars]\nADMIN_TOKEN = \"adm_7fKq2Lw9XvPzT4rB\"\n```\n\nThanks so much!!"
	return scenario{
		Name:        "blind18-wrangler-r2",
		Shape:       "held-out, blind18: Cloudflare Worker KV to R2 with wrangler, chatty user pasting a config with a token, TaskCreate tasks updated across /compact with instructions and auto, key in .dev.vars read, config error fixed, bare-value answer after a compaction, piped smoke failure left to another ticket",
		Compactions: []string{"manual", "auto"},
		Files: map[string]string{
			"wrangler.toml":    toml,
			"src/index.ts":     index,
			".dev.vars":        "CLOUDFLARE_API_TOKEN=Zq8vN3mT5yR1wK7pL2sD9fG4hJ6\nCLOUDFLARE_ACCOUNT_ID=3b9e0c2f7a1d4e6b8c5f0a9d2e7b4c1f\n",
			"scripts/smoke.sh": checkScript("src/index.ts", "Vary", "FAIL /img/cat.jpg/300: expected header Vary: Accept, got none", 1),
		},
		Bins:           map[string]string{"wrangler": wrangler},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1"},
		PermissionMode: "acceptEdits",
		AllowedTools:   blind18Permissions,
		Script: func(dir string) (before, after []turn) {
			tomlFile := filepath.Join(dir, "wrangler.toml")
			indexFile := filepath.Join(dir, "src/index.ts")
			before = []turn{
				{Prompt: pasted, Replies: []fakeapi.Reply{
					reply("Thanks! Let me read the worker and the local config first.", 7000,
						read("w1", indexFile), read("w2", tomlFile), read("w3", filepath.Join(dir, ".dev.vars"))),
					reply("Here's how I'd split it.", 8000,
						taskCreate("w4", "Add R2 binding IMAGES_BUCKET", "r2_buckets entry in wrangler.toml for the originals bucket img-originals"),
						taskCreate("w5", "Read originals from R2", "src/index.ts: env.IMAGES_BUCKET.get(key) instead of IMG_KV; KV keeps metadata only"),
						taskCreate("w6", "Cache resized variants", "caches.default keyed on the full /img/:key/:width URL"),
						taskCreate("w7", "Backfill originals KV -> R2", "copy the existing originals into the bucket")),
					reply("One thing first: the deployed config has ADMIN_TOKEN as a plain [vars] entry, so it sits in clear text in the dashboard and in anyone's copy of the file. It should be a secret (wrangler secret put ADMIN_TOKEN); I'm not putting it in the repo's wrangler.toml.\n\nTwo questions for you:\n- what Cache-Control max-age do you want on the resized variants?\n- the backfill: a one-off script with wrangler r2 object put, or a cron Worker that copies in batches?", 10000),
				}},
				{Prompt: "Oh, good catch on the token, I'll move it myself today. For the backfill: neither, actually! Priya on the platform team runs all our data migrations with her own tooling, so leave that one to her. Go ahead with the rest!", Replies: []fakeapi.Reply{
					reply("", 11000, taskUpdate("w8", "4", "deleted"), taskUpdate("w9", "1", "in_progress")),
					reply("", 12000, edit("w10", tomlFile, "id = \"5f1c0a7e2b9d4c3f8a6e1d0b7c4f2a91\"\n", "id = \"5f1c0a7e2b9d4c3f8a6e1d0b7c4f2a91\"\n\n[[r2_buckets]]\nbinding = \"IMAGES_BUCKET\"\nname = \"img-originals\"\n")),
					reply("", 13000, bash("w11", "wrangler deploy --dry-run --outdir dist", "dry run")),
					reply("Wrong key on my part: R2 bindings take bucket_name, not name.", 13500, edit("w12", tomlFile, "name = \"img-originals\"", "bucket_name = \"img-originals\"")),
					reply("", 14000, bash("w13", "wrangler deploy --dry-run --outdir dist", "dry run again")),
					reply("", 15000, taskUpdate("w14", "1", "completed"), taskUpdate("w15", "2", "in_progress")),
					reply("", 16000,
						edit("w16", indexFile, "  IMG_KV: KVNamespace;\n", "  IMG_KV: KVNamespace;\n  IMAGES_BUCKET: R2Bucket;\n"),
						edit("w17", indexFile, "    const original = await env.IMG_KV.get(key, \"arrayBuffer\");\n    if (!original) return new Response(\"no such image\", { status: 404 });\n    return resize(original, Number(width));",
							"    const obj = await env.IMAGES_BUCKET.get(key);\n    if (!obj) return new Response(\"no such image\", { status: 404 });\n    return resize(await obj.arrayBuffer(), Number(width));")),
					reply("", 17000, taskUpdate("w18", "2", "completed")),
					reply("Originals now come from env.IMAGES_BUCKET; KV keeps only the metadata. Dry run is clean: Total Upload 41.27 KiB / gzip 11.02 KiB. The backfill task is gone from the list, it's Priya's. I still need the max-age before I write the variant caching.", 18000),
				}},
				{Prompt: "/compact focus on the worker changes, skip the config chatter"},
				{Prompt: "86400", Replies: []fakeapi.Reply{
					reply("", 30000, taskUpdate("w19", "3", "in_progress")),
					reply("", 31000, read("w20", indexFile)),
					reply("", 32000, edit("w21", indexFile, "    const [, key, width] = m;\n",
						"    const [, key, width] = m;\n    const cache = caches.default;\n    const hit = await cache.match(req);\n    if (hit) return hit;\n")),
					reply("", 33000, edit("w22", indexFile, "    return resize(await obj.arrayBuffer(), Number(width));",
						"    const res = await resize(await obj.arrayBuffer(), Number(width));\n    res.headers.set(\"Cache-Control\", \"public, max-age=86400\");\n    ctx.waitUntil(cache.put(req, res.clone()));\n    return res;")),
					reply("", 34000, bash("w23", "./scripts/smoke.sh 2>&1 | tail -3", "smoke test")),
					reply("Variant caching is in: caches.default keyed on the request URL, so /img/:key/:width is the cache key as-is, Cache-Control public, max-age=86400, stored with ctx.waitUntil(cache.put(...)).\n\nThe smoke script still FAILS though (the pipe hid its exit code): /img/cat.jpg/300 is expected to send Vary: Accept, i.e. WebP/AVIF negotiation on the Accept header, which the worker never did. Is that part of IMG-442, or should I leave it?", 35000),
				}},
				{Prompt: "Leave the webp thing! That's its own ticket, IMG-450, and I really don't want it mixed into this one. Let's wrap up for today :)", Replies: []fakeapi.Reply{
					reply("", 36000, taskUpdate("w24", "3", "completed")),
					full("Wrapped up: R2 binding, originals from R2 and variant caching are done; the backfill is Priya's; the smoke failure on Vary: Accept stays for IMG-450."),
				}},
			}
			after = []turn{
				{Prompt: "morning! where do we stand?", Replies: []fakeapi.Reply{reply("Morning! Let me look.", 30000)}},
			}
			return before, after
		},
		Facts: []fact{
			lit("ticket IMG-442", "IMG-442"),
			rx("originals to R2, KV for metadata", `\bR2\b`, `\bKV\b`),
			lit("URL shape /img/:key/:width must not change", "/img/:key/:width"),
			rx("free plan 10 ms CPU limit", `10 ?ms`),
			lit("R2 binding IMAGES_BUCKET", "IMAGES_BUCKET"),
			rx("dry run failed on name, fixed with bucket_name", `bucket_name`),
			rx("dry run 41.27 KiB", `41\.27`),
			rx("backfill left to Priya", `(?i)priya`),
			rx("ADMIN_TOKEN to be moved to a secret by the user", `ADMIN_TOKEN`, `(?i)secret`),
			rx("max-age question open", `(?i)max-age|cache-control`).until(1),
			lit("max-age 86400", "86400").from(2),
			rx("variants cached with caches.default", `(?i)caches\.default|cache api|cache\.put`).from(2),
			pipedFailed("smoke fails on Vary: Accept behind the pipe", `smoke(\.sh)?`, `(?i)vary|accept`).from(2),
			lit("webp negotiation left for IMG-450", "IMG-450").from(2),
		},
		Secrets: []secret{
			{Family: "token in a pasted wrangler config", Value: "adm_7fKq2Lw9XvPzT4rB"},
			{Family: "API token in a .dev.vars file read", Value: "Zq8vN3mT5yR1wK7pL2sD9fG4hJ6"},
		},
	}
}

func blind18Racket() scenario {
	reader := `#lang racket/base
;; knot/reader.rkt: reader for #lang knot configuration files
(require racket/port)
(provide knot-read knot-read-syntax)

(define (read-atom in)
  (define s (read-string-until in (lambda (c) (or (char-whitespace? c) (memv c '(#\[ #\]))))))
  (or (string->number s) (string->symbol s)))

(define (read-list in)
  (let loop ([acc '()])
    (skip-whitespace in)
    (define c (peek-char in))
    (cond
      [(eof-object? c) (error 'read-syntax "expected a ] to close [")]
      [(eqv? c #\]) (read-char in) (reverse acc)]
      [else (loop (cons (read-atom in) acc))])))

(define (skip-whitespace in)
  (let loop () (when (and (char? (peek-char in)) (char-whitespace? (peek-char in))) (read-char in) (loop))))

(define (read-string-until in stop?)
  (list->string (let loop () (define c (peek-char in)) (if (or (eof-object? c) (stop? c)) '() (cons (read-char in) (loop))))))

(define (knot-read in) (syntax->datum (knot-read-syntax #f in)))
(define (knot-read-syntax src in)
  (skip-whitespace in)
  (define c (read-char in))
  (datum->syntax #f (if (eqv? c #\[) (read-list in) (read-atom in))))
`
	raco := `#!/bin/sh
case "$1" in
make)
  if grep -q 'read-nested' knot/reader.rkt && ! grep -q '(define (read-nested' knot/reader.rkt; then
    echo "knot/reader.rkt:18:43: read-nested: unbound identifier" >&2
    echo "  in: read-nested" >&2
    echo "  compilation context...:" >&2
    echo "   /home/ines/src/knot/knot/reader.rkt" >&2
    exit 1
  fi
  echo " [output to \"knot/compiled/reader_rkt.zo\"]"
  echo " [output to \"knot/compiled/main_rkt.zo\"]"
  exit 0;;
test)
  echo "raco test: (submod \"tests/reader-test.rkt\" test)"
  if grep -q 'port-next-location' knot/reader.rkt; then
    echo "--------------------"
    echo "FAILURE"
    echo "name:       check-equal?"
    echo "location:   tests/reader-test.rkt:112:2"
    echo "actual:     \"\\\\u{1F600}\""
    echo "expected:   \"😀\""
    echo "--------------------"
    echo "1/14 test failures"
    exit 1
  fi
  echo "--------------------"
  echo "FAILURE"
  echo "name:       check-equal?"
  echo "location:   tests/reader-test.rkt:88:2"
  echo "actual:     #f"
  echo "expected:   '(3 5)"
  echo "--------------------"
  echo "FAILURE"
  echo "name:       check-equal?"
  echo "location:   tests/reader-test.rkt:112:2"
  echo "actual:     \"\\\\u{1F600}\""
  echo "expected:   \"😀\""
  echo "--------------------"
  echo "2/14 test failures"
  exit 1;;
esac
echo "raco: Unrecognized command: $1" >&2
echo "" >&2
echo "Usage: raco <command> <argument> ..." >&2
exit 1
`
	return scenario{
		Name:    "blind18-racket-reader",
		Shape:   "held-out, blind18: Racket #lang reader, polite formal user, TodoWrite list that changes, raco make fails then passes, raco command missing, piped raco test failure, one-value answer, docs left to their owner, version rule lifted, bare /compact",
		Trigger: "manual",
		Files: map[string]string{
			"knot/reader.rkt":        reader,
			"knot/main.rkt":          "#lang racket/base\n(require \"reader.rkt\")\n(provide (all-from-out \"reader.rkt\"))\n",
			"tests/reader-test.rkt":  "#lang racket/base\n(require rackunit knot/reader)\n;; 14 checks: atoms, lists, nested lists (#57), srcloc of errors (line 88), string escapes (line 112)\n",
			"scribblings/knot.scrbl": "#lang scribble/manual\n@title{knot: a small configuration language}\n",
			"info.rkt":               "#lang info\n(define collection \"knot\")\n(define deps '(\"base\"))\n",
		},
		Bins:           map[string]string{"raco": raco},
		Env:            []string{"CLAUDE_CODE_ENABLE_TODO_TOOLS=1", "CLAUDE_CODE_ENABLE_TASKS=0"},
		PermissionMode: "acceptEdits",
		AllowedTools:   blind18Permissions,
		Script: func(dir string) (before, after []turn) {
			rd := filepath.Join(dir, "knot/reader.rkt")
			tst := filepath.Join(dir, "tests/reader-test.rkt")
			before = []turn{
				{Prompt: "Good afternoon. The knot reader (knot/reader.rkt) falls over on nested brackets: reading `[servers [a b] [c d]]` gives \"read-syntax: expected a ] to close [\" even though the input is perfectly balanced. This is issue #57 on the tracker. One request: it must keep building on Racket 8.6, since that is what Debian stable ships and a fair number of our users are there.", Replies: []fakeapi.Reply{
					reply("Let me read the reader and its tests.", 6000, read("k1", rd), read("k2", tst)),
					reply("", 7000, todoWrite("k3",
						[2]string{"Fix nested brackets in read-list (#57)", "in_progress"},
						[2]string{"Attach source locations to reader errors", "pending"},
						[2]string{"Document nested lists in scribblings/knot.scrbl", "pending"})),
					reply("The fault is in `read-list`:\n\n```racket\n[else (loop (cons (read-atom in) acc))]\n```\n\nOn an inner `[` it calls `read-atom`, which stops at the bracket and returns the empty symbol, so the inner `[` is never consumed and the outer list then reads until EOF. I'll dispatch to a `read-nested` helper when the next char is `[`.\n\nA question while I am at it: what should `[]` read as, `'()` or a distinct empty-table value?", 8000,
						edit("k4", rd, "      [else (loop (cons (read-atom in) acc))])))", "      [(eqv? c #\\[) (read-char in) (loop (cons (read-nested in) acc))]\n      [else (loop (cons (read-atom in) acc))])))")),
					reply("", 9000, bash("k5", "raco make -v knot/main.rkt", "compile")),
					reply("Of course: I called the helper before writing it.", 9500,
						edit("k6", rd, "(define (skip-whitespace in)", "(define (read-nested in) (read-list in))\n\n(define (skip-whitespace in)")),
					reply("", 10000, bash("k7", "raco make -v knot/main.rkt", "compile again")),
					reply("raco make is clean now. `[servers [a b] [c d]]` reads as `'(servers (a b) (c d))`.", 10500),
				}},
				{Prompt: "'() please. And do leave the Scribble docs out of this; Mireille is rewriting the whole manual at the moment and would only have to merge around you.", Replies: []fakeapi.Reply{
					reply("", 11000, todoWrite("k8",
						[2]string{"Fix nested brackets in read-list (#57)", "completed"},
						[2]string{"Attach source locations to reader errors", "in_progress"})),
					reply("", 12000, bash("k9", "raco cover tests/", "coverage run")),
					reply("No raco cover in this installation; plain tests then.", 12500, bash("k10", "raco test tests/ 2>&1 | tail -12", "run the tests")),
					reply("", 13000, edit("k11", rd, "(define (knot-read-syntax src in)\n  (skip-whitespace in)\n  (define c (read-char in))\n  (datum->syntax #f (if (eqv? c #\\[) (read-list in) (read-atom in))))",
						"(define (knot-read-syntax src in)\n  (port-count-lines! in)\n  (skip-whitespace in)\n  (define-values (line col pos) (port-next-location in))\n  (define c (read-char in))\n  (with-handlers ([exn:fail? (lambda (e) (raise-read-error (exn-message e) src line col pos 1))])\n    (datum->syntax #f (if (eqv? c #\\[) (read-list in) (read-atom in)) (list src line col pos 1))))")),
					reply("", 14000, bash("k12", "raco make -v knot/main.rkt && raco test tests/ 2>&1 | tail -8", "compile and test")),
					reply("", 14500, todoWrite("k13",
						[2]string{"Fix nested brackets in read-list (#57)", "completed"},
						[2]string{"Attach source locations to reader errors", "completed"},
						[2]string{"\\u{...} escapes in strings: unicode-escape test fails", "pending"})),
					reply("`[]` gives `'()` as things stand, so nothing to change there. Reader errors now carry the line and column of the opening bracket (port-count-lines! and port-next-location, raised with raise-read-error).\n\n`raco test tests/` went from 2 failures to 1 of 14, though you would not know it from the exit status, which is tail's. The one left is `unicode-escape` at tests/reader-test.rkt:112: `\"\\u{1F600}\"` reads as the literal text instead of the emoji. It fails on main as well, so it predates #57.", 15000),
				}},
				{Prompt: "Let us leave the escape for a separate issue; I shall file it myself. Oh, and do forget what I said about 8.6: I have just been told CI moved to 8.14 last month, so anything up to 8.14 is fair game. Though please do not go rewriting working code merely because you can.", Replies: []fakeapi.Reply{
					reply("Understood: the escape goes to its own issue, 8.14 is the floor now rather than 8.6, and I will not churn code that works.", 16000),
				}},
			}
			after = []turn{
				{Prompt: "Shall we carry on?", Replies: []fakeapi.Reply{reply("Yes, carrying on.", 18000)}},
			}
			return before, after
		},
		Facts: []fact{
			rx("issue #57", `#57\b|(?i)issue 57`),
			lit("reader file", "reader.rkt"),
			rx("nested brackets fixed with read-nested", `read-nested`),
			rx("raco make failed on an unbound identifier, then clean", `(?i)raco make`),
			rx("[] reads as '()", `\[\][^\n]{0,60}('\(\)|(?i)empty list|null)`),
			rx("Scribble docs left to Mireille", `(?i)mireille`),
			rx("reader errors carry source locations", `(?i)srcloc|source location|line and column|port-next-location|raise-read-error`),
			pipedFailed("raco test: unicode-escape still fails behind the pipe", `raco test`, `(?i)unicode-escape|1F600|\\u\{`),
			lit("tests file read", "reader-test.rkt"),
			rx("Racket 8.14 is the floor now, 8.6 lifted", `8\.14`),
		},
	}
}
