#!/usr/bin/env bash
# Runs cairn's benchmarks and prints each figure with the ratio to its
# baseline measured in the same run (medians of COUNT runs each).
#   bench/run.sh            # COUNT=5 by default
#   COUNT=10 bench/run.sh
set -euo pipefail
cd "$(dirname "$0")/.."
count=${COUNT:-5}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
run() { go test -run '^$' -count "$count" "$@" ./bench | tee -a "$out" >&2; }
# In-process: each iteration is a whole 100 MB read, or one appended turn.
run -bench 'LineScan|ColdParse' -benchtime 10x
run -bench 'Incremental' -benchtime 50x
# Whole processes: many runs each, the baseline interleaved in the same run.
run -bench 'Process(Hello|Status)$' -benchtime 200x
run -bench 'ProcessStatusCold' -benchtime 5x
# Hooks on the 100 MB session with saved state, each run beside a
# hello-world run (medians, and their ratio).
run -bench 'Hook|Statusline' -benchtime 100x
# An MCP server process: spawn, initialize, tools/list, one call, exit.
run -bench 'ProcessMCP' -benchtime 100x

awk '
function median(name, key,   n, i, j, t, a) {
  n = cnt[name]; for (i = 1; i <= n; i++) a[i] = v[name, key, i]
  for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
  return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
/^Benchmark/ {
  name = $1; sub(/-[0-9]+$/, "", name)
  k = ++cnt[name]; v[name, "ns", k] = $3
  for (i = 4; i <= NF; i++) {
    if ($i == "MB/s") v[name, "mb", k] = $(i-1)
    if ($i == "file-bytes") fb[name] = $(i-1)
    if ($i == "x-hello") v[name, "x", k] = $(i-1)
    if ($i == "hook-µs") v[name, "hook", k] = $(i-1)
    if ($i == "hello-µs") v[name, "hello", k] = $(i-1)
  }
}
END {
  scan = median("BenchmarkLineScan", "ns"); cold = median("BenchmarkColdParse", "ns"); serial = median("BenchmarkColdParseSerial", "ns")
  size = median("BenchmarkLineScan", "mb") * scan / 1e3
  printf "\n%-46s %12s  %s\n", "benchmark (median of '"$count"')", "time", "vs baseline"
  printf "%-46s %9.1f ms  %5.0f MB/s\n", sprintf("raw line scan, %.0f MB (baseline)", size / 1e6), scan / 1e6, size / scan * 1e3
  printf "%-46s %9.1f ms  %5.0f MB/s  %4.1f%% of the scan speed\n", "cold parse, parallel", cold / 1e6, size / cold * 1e3, 100 * scan / cold
  printf "%-46s %9.1f ms  %5.0f MB/s  %4.1f%% of the scan speed\n", "cold parse, one goroutine", serial / 1e6, size / serial * 1e3, 100 * scan / serial
  i10 = median("BenchmarkIncremental/10MB", "ns"); i100 = median("BenchmarkIncremental/100MB", "ns")
  printf "%-46s %9.1f us  file %d bytes\n", "one more turn appended, 10 MB transcript", i10 / 1e3, fb["BenchmarkIncremental/10MB"]
  printf "%-46s %9.1f us  file %d bytes, %.2fx the 10 MB cost\n", "one more turn appended, 100 MB transcript", i100 / 1e3, fb["BenchmarkIncremental/100MB"], i100 / i10
  h = median("BenchmarkProcessHello", "ns"); st = median("BenchmarkProcessStatus", "ns"); sc = median("BenchmarkProcessStatusCold", "ns")
  printf "%-46s %9.2f ms\n", "Go hello-world process (baseline)", h / 1e6
  printf "%-46s %9.2f ms  %.2fx hello-world\n", "cairn status --json, 100 MB, state saved", st / 1e6, st / h
  printf "%-46s %9.2f ms  %.0fx hello-world\n", "cairn status --json, 100 MB, no state yet", sc / 1e6, sc / h
  n = split("UserPromptSubmit PostToolUse PreCompact SessionStartCompact", hk, " ")
  for (j = 1; j <= n; j++) {
    b = "BenchmarkHook" hk[j]
    printf "%-46s %9.2f ms  %.2fx hello-world (%.2f ms beside it)\n", "hook " hk[j] ", 100 MB, state saved", median(b, "hook") / 1e3, median(b, "x"), median(b, "hello") / 1e3
  }
  n = split("payload head", sl, " ")
  for (j = 1; j <= n; j++) {
    b = "BenchmarkProcessStatusline/" sl[j]
    printf "%-46s %9.2f ms  %.2fx hello-world (%.2f ms beside it)\n", "cairn statusline, figures from the " sl[j], median(b, "hook") / 1e3, median(b, "x"), median(b, "hello") / 1e3
  }
  n = split("list check_compaction_status restore_compacted_context", mc, " ")
  for (j = 1; j <= n; j++) {
    b = "BenchmarkProcessMCP/" mc[j]
    label = mc[j] == "list" ? "MCP process: init + tools/list, no call" : "MCP process: init + list + " mc[j]
    printf "%-46s %9.2f ms  %.2fx hello-world (%.2f ms beside it)\n", label, median(b, "hook") / 1e3, median(b, "x"), median(b, "hello") / 1e3
  }
}' "$out"

# Peak memory of the whole process, where GNU time is installed.
if [ -x /usr/bin/time ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp" "$out"' EXIT
  go build -o "$tmp/cairn" ./cmd/cairn
  go run ./bench/mkbig "$tmp/big.jsonl"
  rss() { /usr/bin/time -f %M "$@" 2>&1 >/dev/null | tail -1; }
  cold=$(XDG_STATE_HOME=$tmp/state rss "$tmp/cairn" status --json --transcript "$tmp/big.jsonl")
  warm=$(XDG_STATE_HOME=$tmp/state rss "$tmp/cairn" status --json --transcript "$tmp/big.jsonl")
  awk -v c="$cold" -v w="$warm" 'BEGIN {
    printf "%-46s %9.1f MiB\n", "peak RSS, cairn status, 100 MB, no state yet", c / 1024
    printf "%-46s %9.1f MiB\n", "peak RSS, cairn status, 100 MB, state saved", w / 1024 }'
fi
