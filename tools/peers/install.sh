#!/usr/bin/env bash
# Installs the runtimes of the reference peers used by tools/bench and tools/peers/test_peers.py:
#   node-ws            Debian's nodejs + node-ws (npm's registry is not used)
#   python-websockets  the websockets version pinned in python-websockets/requirements.txt
#   lws-c              what lws-c/build.sh compiles it with: gcc, pkg-config, libwebsockets-dev
#                      (4.1) with its libev plugin, libev-dev, libssl-dev, libjansson-dev
# Idempotent: does nothing when everything is present. Works as root, or through sudo.
# PYTHON (default python3) is the interpreter that gets websockets; use the one that runs the peer.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
python="${PYTHON:-python3}"
requirements="$here/python-websockets/requirements.txt"

if [ "$(id -u)" -eq 0 ]; then sudo=""
elif command -v sudo >/dev/null 2>&1; then sudo="sudo"
else sudo="none"; fi

# --- Debian packages: nodejs and node-ws (ws lives in /usr/share/nodejs/ws), the C peer's
# compiler and libraries, pip if missing.
apt_packages="nodejs node-ws gcc libc6-dev pkg-config libwebsockets-dev libwebsockets-evlib-ev libev-dev libssl-dev libjansson-dev"
"$python" -m pip --version >/dev/null 2>&1 || apt_packages="$apt_packages python3-pip"
missing=""
if command -v dpkg-query >/dev/null 2>&1; then
  for p in $apt_packages; do
    dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' || missing="$missing $p"
  done
else
  echo "install.sh: no dpkg-query (not Debian?); install$apt_packages yourself" >&2
  exit 1
fi
if [ -n "$missing" ]; then
  if [ "$sudo" = none ]; then
    echo "install.sh: missing packages:$missing; run as root or install sudo" >&2
    exit 1
  fi
  echo "install.sh: apt-get install$missing"
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
if [ ! -f /usr/share/nodejs/ws/index.js ]; then
  echo "install.sh: node-ws is installed but /usr/share/nodejs/ws/index.js is missing" >&2
  exit 1
fi

# --- PyPI: the pinned websockets, only when the installed version differs.
pinned="$(sed -n 's/^websockets==//p' "$requirements")"
have="$("$python" -c 'import websockets; print(websockets.__version__)' 2>/dev/null || true)"
if [ "$have" != "$pinned" ]; then
  echo "install.sh: pip install websockets==$pinned (into $("$python" -c 'import sys; print(sys.executable)'))"
  if ! err=$("$python" -m pip install --quiet -r "$requirements" 2>&1); then
    if grep -q externally-managed-environment <<<"$err"; then
      "$python" -m pip install --quiet --break-system-packages -r "$requirements"
    else
      echo "$err" >&2
      exit 1
    fi
  fi
  have="$("$python" -c 'import websockets; print(websockets.__version__)')"
  [ "$have" = "$pinned" ] || { echo "install.sh: websockets $have installed, expected $pinned" >&2; exit 1; }
fi
echo "install.sh: node $(node --version), ws $(node -p 'require("/usr/share/nodejs/ws/package.json").version'), websockets $have, libwebsockets $(pkg-config --modversion libwebsockets)"
