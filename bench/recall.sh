#!/usr/bin/env bash
# Recall benchmark: runs the continuity scenarios of e2e (recallScenarios in
# e2e/scenarios_test.go) on the real Claude Code client against the fake API,
# with cairn installed and without, and prints, per scenario, the planted
# facts the first request after the compaction carries and the tokens cairn
# added. The numbers come from the same code as the e2e tests
# (TestRecallReport in e2e/recall_test.go).
#   bench/recall.sh                 # prints the report
#   bench/recall.sh docs/recall.md  # also keeps it there
#   PARALLEL=4 bench/recall.sh      # client runs at once (default: GOMAXPROCS)
set -uo pipefail
cd "$(dirname "$0")/.."
report=${1:-}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
# The client is installed on first use (see e2e/README.md); every client
# invocation has its own timeout, the whole run this one.
CAIRN_RECALL_REPORT="$tmp" go test -count=1 -timeout 15m ${PARALLEL:+-parallel "$PARALLEL"} \
  -run '^TestRecallReport$' ./e2e/ >&2
status=$?
if [ -s "$tmp" ]; then
  cat "$tmp"
  if [ -n "$report" ]; then cp "$tmp" "$report"; fi
fi
exit "$status"
