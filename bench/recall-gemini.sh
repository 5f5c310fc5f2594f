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
cd "$(dirname "$0")/.."
report=${1:-}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
start=$SECONDS
CAIRN_RECALL_COMMIT=$(git describe --always --dirty 2>/dev/null) CAIRN_RECALL_GEMINI_REPORT="$tmp" go test -count=1 -timeout 40m \
  -run '^TestGeminiRecallReport$' ./e2e/ >&2
status=$?
echo "bench/recall-gemini.sh: $((SECONDS - start)) s" >&2
if [ -s "$tmp" ]; then
  cat "$tmp"
  if [ -n "$report" ]; then
    if grep -q '^<!-- recall-gemini:begin' "$report" 2>/dev/null; then
      # Replace the generated part only: the file has other sections.
      awk -v gen="$tmp" '
        /^<!-- recall-gemini:begin/ { print; while ((getline l < gen) > 0) { if (l !~ /^# /) print l }; skip = 1; next }
        /^<!-- recall-gemini:end/ { skip = 0 }
        !skip' "$report" >"$report.new" && mv "$report.new" "$report"
    else
      cp "$tmp" "$report"
    fi
  fi
fi
exit "$status"
