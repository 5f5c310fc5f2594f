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
cd "$(dirname "$0")/.."
report=${1:-}
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
start=$SECONDS
CAIRN_RECALL_COMMIT=$(git describe --always --dirty 2>/dev/null) CAIRN_RECALL_CODEX_REPORT="$tmp" go test -count=1 -timeout 20m \
  -run '^TestCodexRecallReport$' ./e2e/ >&2
status=$?
echo "bench/recall-codex.sh: $((SECONDS - start)) s" >&2
if [ -s "$tmp" ]; then
  cat "$tmp"
  if [ -n "$report" ]; then
    if grep -q '^<!-- recall-codex:begin' "$report" 2>/dev/null; then
      # Replace the generated part only: the file has other sections.
      awk -v gen="$tmp" '
        /^<!-- recall-codex:begin/ { print; while ((getline l < gen) > 0) { if (l !~ /^# /) print l }; skip = 1; next }
        /^<!-- recall-codex:end/ { skip = 0 }
        !skip' "$report" >"$report.new" && mv "$report.new" "$report"
    else
      cp "$tmp" "$report"
    fi
  fi
fi
exit "$status"
