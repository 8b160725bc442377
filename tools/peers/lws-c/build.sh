#!/usr/bin/env bash
# Builds the lws-c reference peer: tools/peers/lws-c/build.sh OUT
#   OUT   the binary to write (tools/bench and test_peers.py use .build/peers/lws-c)
# Rebuilds only when OUT is missing or older than a source (this script included). The compiler
# is $CC (default cc) and CFLAGS (default -O2) may be overridden, e.g. for a sanitizer build:
#   CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer" build.sh /tmp/lws-c-asan
# Needs: a C11 compiler, pkg-config, libwebsockets-dev (4.1, with libev support), libev-dev,
# libssl-dev and libjansson-dev (tools/peers/install.sh installs them on Debian).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
[ $# -eq 1 ] || { echo "usage: build.sh OUT" >&2; exit 2; }
out="$1"
sources=("$here/server.c" "$here/build.sh")

fresh=1
[ -x "$out" ] || fresh=0
for src in "${sources[@]}"; do
  [ "$fresh" -eq 1 ] && [ "$src" -nt "$out" ] && fresh=0
done
[ "$fresh" -eq 1 ] && exit 0

cc="${CC:-cc}"
command -v "$cc" >/dev/null 2>&1 || { echo "build.sh: no C compiler ($cc); run tools/peers/install.sh" >&2; exit 1; }
command -v pkg-config >/dev/null 2>&1 || { echo "build.sh: pkg-config is missing; run tools/peers/install.sh" >&2; exit 1; }
for lib in libwebsockets jansson libcrypto; do
  pkg-config --exists "$lib" || { echo "build.sh: pkg-config finds no $lib; run tools/peers/install.sh" >&2; exit 1; }
done
[ -f /usr/include/ev.h ] || { echo "build.sh: libev-dev is missing (no ev.h); run tools/peers/install.sh" >&2; exit 1; }

mkdir -p "$(dirname "$out")"
# Build next to OUT and rename, so a failed or interrupted build never leaves a half binary.
tmp="$out.tmp.$$"
trap 'rm -f "$tmp"' EXIT
# shellcheck disable=SC2046,SC2086  # pkg-config output and CFLAGS are meant to split into words
"$cc" -std=c11 ${CFLAGS:--O2} -Wall -Wextra -o "$tmp" "$here/server.c" \
  $(pkg-config --cflags --libs libwebsockets jansson libcrypto) -lev -lm
mv -f "$tmp" "$out"
