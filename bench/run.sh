#!/usr/bin/env bash
# Runs cairn's benchmarks and prints each figure with the ratio to its
# baseline measured in the same run (medians of COUNT runs).
#   bench/run.sh            # COUNT=5 by default
#   COUNT=10 bench/run.sh
set -euo pipefail
cd "$(dirname "$0")/.."
count=${COUNT:-5}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
go test -run '^$' -bench . -benchtime 10x -count "$count" ./bench | tee "$out" >&2

awk '
function median(name,   n, i, j, t, a) {
  n = cnt[name]; for (i = 1; i <= n; i++) a[i] = v[name, i]
  for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
  return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
function median_mb(name,   n, i, j, t, a) {
  n = cnt[name]; for (i = 1; i <= n; i++) a[i] = mb[name, i]
  for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
  return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
/^Benchmark/ {
  name = $1; sub(/-[0-9]+$/, "", name)
  cnt[name]++; v[name, cnt[name]] = $3
  for (i = 4; i <= NF; i++) if ($i == "MB/s") mb[name, cnt[name]] = $(i-1)
  for (i = 4; i <= NF; i++) if ($i == "file-bytes") fb[name] = $(i-1)
}
END {
  scan = median("BenchmarkLineScan"); cold = median("BenchmarkColdParse"); serial = median("BenchmarkColdParseSerial")
  size = 1e6 * median_mb("BenchmarkLineScan") * scan / 1e9
  printf "\n%-44s %14s %12s\n", "benchmark (median of '"$count"')", "time", "vs baseline"
  printf "%-44s %11.1f ms %8.0f MB/s\n", sprintf("raw line scan, %.0f MB (baseline)", size / 1e6), scan / 1e6, size / scan * 1e3
  printf "%-44s %11.1f ms %8.0f MB/s  %5.1f%% of scan speed\n", "cold parse, parallel", cold / 1e6, size / cold * 1e3, 100 * scan / cold
  printf "%-44s %11.1f ms %8.0f MB/s  %5.1f%% of scan speed\n", "cold parse, one goroutine", serial / 1e6, size / serial * 1e3, 100 * scan / serial
  i10 = median("BenchmarkIncremental/10MB"); i100 = median("BenchmarkIncremental/100MB")
  printf "%-44s %11.1f us  (file %d bytes)\n", "one more turn appended, 10 MiB transcript", i10 / 1e3, fb["BenchmarkIncremental/10MB"]
  printf "%-44s %11.1f us  (file %d bytes)  %.2fx the 10 MiB cost\n", "one more turn appended, 100 MiB transcript", i100 / 1e3, fb["BenchmarkIncremental/100MB"], i100 / i10
  h = median("BenchmarkProcessHello"); st = median("BenchmarkProcessStatus")
  printf "%-44s %11.2f ms\n", "Go hello-world process (baseline)", h / 1e6
  printf "%-44s %11.2f ms  %.2fx hello-world\n", "cairn status --json, 100 MiB, state saved", st / 1e6, st / h
}' "$out"
