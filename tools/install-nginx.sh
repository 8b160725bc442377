#!/usr/bin/env bash
# Installs Debian's nginx when it is missing (the reverse-proxy test runs a real one).
#
#   tools/install-nginx.sh
#
# Idempotent and quiet when nginx is already there. Needs root, or sudo that works without a
# password; non-interactive, so CI on a fresh Debian machine can run it. `make deps` installs
# nginx the same way; the test calls this script itself when someone runs `swift test` directly.
set -euo pipefail

if command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ]; then
  exit 0
fi
if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo=(sudo -n)
else
  echo "install-nginx: nginx is missing; run as root or with passwordless sudo, or: apt-get install nginx" >&2
  exit 1
fi
command -v apt-get >/dev/null 2>&1 || { echo "install-nginx: no apt-get (not Debian?); install nginx yourself" >&2; exit 1; }
echo "install-nginx: installing nginx" >&2
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nginx >&2
[ -x /usr/sbin/nginx ] || command -v nginx >/dev/null 2>&1
