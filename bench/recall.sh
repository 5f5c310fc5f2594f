#!/usr/bin/env bash
# Recall benchmark: runs every scenario of e2e's recallScenarios
# (e2e/scenarios_test.go, e2e/recall_scenarios_test.go), then the held-out
# ones no one tuned cairn on (e2e/recall_heldout_test.go, and the blind ones
# of e2e/recall_blind_test.go, recall_blind3_test.go and
# recall_blind4_test.go, each measured blind on its first run), on the real Claude
# Code client against the fake API, with cairn installed and without, and
# prints, per scenario and per compaction, the planted facts the first
# request after the compaction carries, the tokens cairn added to it, and
# where planted secrets went. The numbers come from the same code as the
# e2e tests (TestRecallReport in e2e/recall_test.go).
#   bench/recall.sh                 # prints the report
#   bench/recall.sh docs/recall.md  # also keeps it there (between the file's
#                                   # recall:begin and recall:end markers)
#   PARALLEL=4 bench/recall.sh      # client runs at once (default: GOMAXPROCS)
set -uo pipefail
cd "$(dirname "$0")/.."
report=${1:-}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
start=$SECONDS
# The client is installed on first use (see e2e/README.md); every client
# invocation has its own timeout, the whole run this one.
CAIRN_RECALL_COMMIT=$(git describe --always --dirty 2>/dev/null) CAIRN_RECALL_REPORT="$tmp" go test -count=1 -timeout 75m ${PARALLEL:+-parallel "$PARALLEL"} \
  -run '^TestRecallReport$' ./e2e/ >&2
status=$?
echo "bench/recall.sh: $((SECONDS - start)) s" >&2
if [ -s "$tmp" ]; then
  cat "$tmp"
  if [ -n "$report" ]; then
    if grep -q '^<!-- recall:begin' "$report" 2>/dev/null; then
      # Replace the generated part only: the file has other sections.
      awk -v gen="$tmp" '
        /^<!-- recall:begin/ { print; while ((getline l < gen) > 0) { if (l !~ /^# /) print l }; skip = 1; next }
        /^<!-- recall:end/ { skip = 0 }
        !skip' "$report" >"$report.new" && mv "$report.new" "$report"
    else
      cp "$tmp" "$report"
    fi
  fi
fi
exit "$status"
