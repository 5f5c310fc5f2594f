#!/usr/bin/env bash
# Recall benchmark on Gemini CLI: runs every scenario of e2e's
# geminiRecallScenarios (e2e/recall_gemini_scenarios_test.go) on the real
# Gemini CLI against the fake Gemini API (e2e/gemini), with cairn installed
# and without, and prints, per scenario and per compression, the planted
# facts the first request of the first prompt after the compression
# carries, the tokens cairn added to it, and where planted secrets went.
# The numbers come from TestGeminiRecallReport (e2e/recall_gemini_test.go).
# The manual compression runs the client's TUI under tmux.
#   bench/recall-gemini.sh                 # prints the report
#   bench/recall-gemini.sh docs/recall.md  # also keeps it there (between the
#                                          # file's recall-gemini:begin and
#                                          # recall-gemini:end markers)
set -uo pipefail
. "$(dirname "$0")/recall-lib.sh"
recall_report recall-gemini.sh CAIRN_RECALL_GEMINI_REPORT TestGeminiRecallReport 40m recall-gemini "${1:-}"
