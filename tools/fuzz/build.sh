#!/usr/bin/env bash
# Builds CallGate's libFuzzer targets (frame, query, token) into $FUZZ_OUT/bin.
#
#   tools/fuzz/build.sh                 # all three, fuzzer instrumentation only
#   tools/fuzz/build.sh frame           # one or more targets by name
#   FUZZ_ASAN=1 tools/fuzz/build.sh     # also AddressSanitizer (separate build dir, ~2x slower runs)
#
# Environment: FUZZ_OUT (default <repo>/.build-fuzz, gitignored by `.build-*/`), FUZZ_NICE
# (niceness, default 10), SWIFT (default swift).
#
# SwiftPM builds tools/fuzz/Package.swift, whose CallGate modules are symlinks to ../../Sources,
# with `--sanitize fuzzer` in release mode (-O, debug info for symbolized stacks).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="${FUZZ_OUT:-$root/.build-fuzz}"
nice_level="${FUZZ_NICE:-10}"
swift="${SWIFT:-swift}"

targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(frame query token)
for t in "${targets[@]}"; do
  case "$t" in frame|query|token) ;; *) echo "build.sh: unknown target '$t' (frame, query, token)" >&2; exit 2 ;; esac
done

sanitize=(--sanitize fuzzer)
scratch="$out/spm"
if [ "${FUZZ_ASAN:-0}" = 1 ]; then
  sanitize+=(--sanitize address)
  scratch="$out/spm-asan"
fi

# Same dependency versions as the main package (Package.resolved is gitignored everywhere).
if [ ! -f "$here/Package.resolved" ] && [ -f "$root/Package.resolved" ]; then
  cp "$root/Package.resolved" "$here/Package.resolved"
fi

mkdir -p "$out/bin"
for t in "${targets[@]}"; do
  start=$(date +%s)
  echo "build.sh: building $t-fuzz (${sanitize[*]}) in $scratch"
  # ld.gold warns once per ASan symbol under --sanitize address; drop that noise only.
  if ! nice -n "$nice_level" "$swift" build -c release \
      --package-path "$here" --scratch-path "$scratch" \
      "${sanitize[@]}" -Xswiftc -g \
      --product "$t-fuzz" 2>&1 | { grep -v "Cannot export local symbol '__asan_" || true; }; then
    echo "build.sh: $t-fuzz failed to build" >&2
    exit 1
  fi
  bin="$scratch/release/$t-fuzz"
  suffix=""
  [ "${FUZZ_ASAN:-0}" = 1 ] && suffix="-asan"
  cp "$bin" "$out/bin/$t-fuzz$suffix"
  echo "build.sh: $out/bin/$t-fuzz$suffix ($(( $(date +%s) - start ))s)"
done
