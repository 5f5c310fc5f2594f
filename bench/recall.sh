#!/usr/bin/env bash
# Recall benchmark: runs the continuity scenarios of e2e (recallScenarios in
# e2e/scenarios_test.go) on the real Claude Code client against the fake API,
# with cairn installed and without, and prints, per scenario, the planted
# facts the first request after the compaction carries and the tokens cairn
# added. The numbers come from the same code as the e2e tests.
#   bench/recall.sh                 # report in a temp file, printed
#   bench/recall.sh docs/recall.md  # also kept there
set -euo pipefail
cd "$(dirname "$0")/.."
report=${1:-}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
# The client is installed on first use (see e2e/README.md); each client
# invocation has its own timeout, the whole run this one.
CAIRN_RECALL_REPORT="$tmp" go test -count=1 -timeout 15m -parallel "${PARALLEL:-4}" \
  -run '^TestRecallReport$' ./e2e/ >&2
cat "$tmp"
if [ -n "$report" ]; then
  cp "$tmp" "$report"
fi
