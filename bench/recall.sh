#!/usr/bin/env bash
# Recall benchmark: runs every scenario of e2e's recallScenarios
# (e2e/scenarios_test.go, e2e/recall_scenarios_test.go), then the held-out
# ones no one tuned cairn on (e2e/recall_heldout_test.go, and the blind ones
# of e2e/recall_blind_test.go and recall_blind3..19_test.go, each measured
# blind on its first run), on the real Claude
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
. "$(dirname "$0")/recall-lib.sh"
recall_report recall.sh CAIRN_RECALL_REPORT TestRecallReport 75m recall "${1:-}" -- ${PARALLEL:+-parallel "$PARALLEL"}
