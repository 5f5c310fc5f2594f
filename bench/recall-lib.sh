# Shared by bench/recall.sh, recall-codex.sh and recall-gemini.sh (sourced,
# not run): runs one recall report test and prints its Markdown report;
# given a file, also keeps the report there, between the file's
# "<!-- MARKER:begin" and "<!-- MARKER:end" lines when it has them (the
# file's other sections stay), else as the whole file.
#   recall_report NAME ENV TEST TIMEOUT MARKER [REPORT] [-- GO-TEST-FLAGS...]
# NAME is the script's for its timing line, ENV the variable the test
# writes its report to, TEST the test's name.
recall_report() {
  local name=$1 env=$2 test=$3 timeout=$4 marker=$5 report=${6:-}
  shift 6 2>/dev/null || shift $#
  [ "${1:-}" = "--" ] && shift
  cd "$(dirname "${BASH_SOURCE[0]}")/.." || return 1
  local tmp start status
  tmp=$(mktemp)
  recall_tmp=$tmp # the trap runs after this function has returned
  trap 'rm -f "$recall_tmp"' EXIT
  start=$SECONDS
  # The clients are installed on first use (see e2e/README.md); every
  # client invocation has its own timeout, the whole run this one.
  env CAIRN_RECALL_COMMIT="$(git describe --always --dirty 2>/dev/null)" "$env=$tmp" \
    go test -count=1 -timeout "$timeout" "$@" -run "^$test\$" ./e2e/ >&2
  status=$?
  echo "bench/$name: $((SECONDS - start)) s" >&2
  if [ -s "$tmp" ]; then
    cat "$tmp"
    if [ -n "$report" ]; then
      if grep -q "^<!-- $marker:begin" "$report" 2>/dev/null; then
        awk -v gen="$tmp" -v begin="^<!-- $marker:begin" -v end="^<!-- $marker:end" '
          $0 ~ begin { print; while ((getline l < gen) > 0) { if (l !~ /^# /) print l }; skip = 1; next }
          $0 ~ end { skip = 0 }
          !skip' "$report" >"$report.new" && mv "$report.new" "$report"
      else
        cp "$tmp" "$report"
      fi
    fi
  fi
  return "$status"
}
