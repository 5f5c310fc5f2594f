#!/usr/bin/env bash
# Recall benchmark on Codex CLI: runs every scenario of e2e's
# codexRecallScenarios (e2e/recall_codex_scenarios_test.go) on the real
# Codex CLI against the fake Responses API (e2e/codex), with cairn
# installed and without, and prints, per scenario and per compaction, the
# planted facts the first request after the compaction carries, the tokens
# cairn added to it, and where planted secrets went. The numbers come from
# TestCodexRecallReport (e2e/recall_codex_test.go). The manual compaction
# runs the client's TUI under tmux.
#   bench/recall-codex.sh                 # prints the report
#   bench/recall-codex.sh docs/recall.md  # also keeps it there (between the
#                                         # file's recall-codex:begin and
#                                         # recall-codex:end markers)
set -uo pipefail
. "$(dirname "$0")/recall-lib.sh"
recall_report recall-codex.sh CAIRN_RECALL_CODEX_REPORT TestCodexRecallReport 20m recall-codex "${1:-}"
