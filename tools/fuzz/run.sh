#!/usr/bin/env bash
# Runs CallGate's libFuzzer targets for a bounded time, one after the other.
#
#   tools/fuzz/run.sh [target...]             fuzz (default: frame query token), FUZZ_TIME s each
#   tools/fuzz/run.sh --regress [target...]   run every committed seed and every saved crash input
#                                             (tools/fuzz/regressions/<target>) once, no fuzzing
#   tools/fuzz/run.sh --minimize target file  minimize a crashing input (-minimize_crash=1)
#
# Environment:
#   FUZZ_TIME      seconds per target (default 60), libFuzzer's -max_total_time
#   FUZZ_RUNS      optional cap on inputs per target (-runs)
#   FUZZ_MAX_LEN   longest input libFuzzer generates (default 4096)
#   FUZZ_ARGS      extra libFuzzer flags, e.g. "-seed=1 -jobs=2"
#   FUZZ_OUT       build and work directory (default <repo>/.build-fuzz); binaries in $FUZZ_OUT/bin
#   FUZZ_BIN_SUFFIX  "-asan" to run the AddressSanitizer builds (FUZZ_ASAN=1 build.sh)
#   FUZZ_NICE      niceness (default 10)
#   FUZZ_STACK_KB  stack limit in KiB (default 1024, the gateway's service thread)
#
# Inputs libFuzzer finds go to $FUZZ_OUT/corpus/<target> (kept between runs, never committed);
# the committed seeds in tools/fuzz/corpus/<target> are read only. Crashes, timeouts and OOMs go
# to $FUZZ_OUT/crashes/<target>/, each run's log to $FUZZ_OUT/logs/<target>.log. Exit status: 0
# when no target crashed, 1 otherwise.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${FUZZ_OUT:-$root/.build-fuzz}"
nice_level="${FUZZ_NICE:-10}"
suffix="${FUZZ_BIN_SUFFIX:-}"
# libFuzzer prints the stack and writes the crash file itself; Swift's own backtracer would
# only delay that (and can wait on a terminal).
export SWIFT_BACKTRACE=enable=no
# The gateway decodes frames and routes HTTP on libwebsockets' service thread, which has a 1 MiB
# stack (LWSContext.swift); give the fuzzed code no more, so deep recursion fails here as it
# would there. glibc also sizes new threads' stacks (token verification's tasks) from this limit.
ulimit -s "${FUZZ_STACK_KB:-1024}"

binary() {
  local bin="$out/bin/$1-fuzz$suffix"
  if [ ! -x "$bin" ]; then
    echo "run.sh: $bin is missing; run tools/fuzz/build.sh $1 first" >&2
    exit 2
  fi
  echo "$bin"
}

check_target() {
  case "$1" in frame|query|token) ;; *) echo "run.sh: unknown target '$1' (frame, query, token)" >&2; exit 2 ;; esac
}

mode=fuzz
case "${1:-}" in
  --regress) mode=regress; shift ;;
  --minimize) mode=minimize; shift ;;
esac

if [ "$mode" = minimize ]; then
  [ $# -eq 2 ] || { echo "usage: run.sh --minimize <target> <crash-file>" >&2; exit 2; }
  check_target "$1"
  bin="$(binary "$1")"
  min="$2.min"
  nice -n "$nice_level" "$bin" -minimize_crash=1 -runs="${FUZZ_RUNS:-100000}" \
    -max_total_time="${FUZZ_TIME:-120}" -exact_artifact_path="$min" "$2"
  [ -f "$min" ] && { echo "run.sh: minimized input in $min ($(wc -c <"$min") bytes)"; }
  # Run the minimized input once, for its stack.
  [ -f "$min" ] && nice -n "$nice_level" "$bin" "$min"
  exit 0
fi

targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(frame query token)
for t in "${targets[@]}"; do check_target "$t"; done

if [ "$mode" = regress ]; then
  status=0
  mkdir -p "$out/logs"
  for t in "${targets[@]}"; do
    bin="$(binary "$t")"
    seeds=("$here/corpus/$t"/*)
    [ -d "$here/regressions/$t" ] && seeds+=("$here/regressions/$t"/*)
    if nice -n "$nice_level" "$bin" "${seeds[@]}" >"$out/logs/$t-regress.log" 2>&1; then
      echo "run.sh: $t: ${#seeds[@]} seeds ran, no crash"
    else
      echo "run.sh: $t: a seed crashed; see $out/logs/$t-regress.log" >&2
      status=1
    fi
  done
  exit $status
fi

mkdir -p "$out/logs"
total=0
status=0
summary=()
for t in "${targets[@]}"; do
  bin="$(binary "$t")"
  mkdir -p "$out/corpus/$t" "$out/crashes/$t"
  log="$out/logs/$t$suffix.log"
  args=(
    -max_total_time="${FUZZ_TIME:-60}" -max_len="${FUZZ_MAX_LEN:-4096}" -timeout=10 -rss_limit_mb=2048
    -print_final_stats=1 -dict="$here/dict/$t.dict" -artifact_prefix="$out/crashes/$t/"
  )
  [ -n "${FUZZ_RUNS:-}" ] && args+=(-runs="$FUZZ_RUNS")
  # shellcheck disable=SC2206
  [ -n "${FUZZ_ARGS:-}" ] && args+=(${FUZZ_ARGS})
  echo "run.sh: fuzzing $t for ${FUZZ_TIME:-60}s (log: $log)"
  nice -n "$nice_level" "$bin" "${args[@]}" "$out/corpus/$t" "$here/corpus/$t" >"$log" 2>&1
  rc=$?
  units=$(awk '/^stat::number_of_executed_units:/ {s += $2} END {print s + 0}' "$log")
  rate=$(awk '/^stat::average_exec_per_sec:/ {print $2; exit}' "$log")
  total=$((total + units))
  line="$t: $units inputs, ${rate:-?} exec/s, corpus $(ls "$out/corpus/$t" | wc -l) files"
  if [ $rc -ne 0 ]; then
    status=1
    line="$line, CRASHED (exit $rc): $(grep -m1 -o "Test unit written to .*" "$log" || echo "see $log")"
    grep -m1 -E "Fatal error|ERROR: libFuzzer|ERROR: AddressSanitizer" "$log" | sed 's/^/    /'
  fi
  echo "run.sh: $line"
  summary+=("$line")
done
echo "run.sh: summary"
printf '  %s\n' "${summary[@]}"
echo "  total: $total inputs"
exit $status
