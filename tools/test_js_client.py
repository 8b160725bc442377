"""The JavaScript client package (Sources/callgate-js): its protocol types are what proto/ gives
(tools/js_types.py), the package type-checks with TypeScript in strict mode (Debian's
node-typescript, which `make deps` installs), callgate.js meets every client test vector of
proto/vectors (whose frames are the contract's), and it drives a real `callgate serve` from Node
(Debian's node-ws as its WebSocket): a call rung, confirmed, answered, joined, recovered after a
cut socket, and hung up, every push heard once, the call log read back."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "Sources" / "callgate-js"
sys.path.insert(0, str(ROOT / "tools" / "attack"))
from gateway_process import Gateway, gateway_binary  # noqa: E402
from proto_check import Contract  # noqa: E402

VECTORS = sorted((ROOT / "proto" / "vectors").glob("*.json"))


def require(tool: str) -> str:
    path = shutil.which(tool)
    assert path, f"{tool} is not installed: make deps installs it"
    return path


def test_the_protocol_types_are_what_proto_gives():
    result = subprocess.run([sys.executable, str(ROOT / "tools/js_types.py"), "--check"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_the_package_type_checks_in_strict_mode():
    result = subprocess.run([require("tsc"), "-p", str(PACKAGE)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_package_lists_only_files_it_has():
    manifest = json.loads((PACKAGE / "package.json").read_text())
    for name in manifest["files"]:
        assert (PACKAGE / name).is_file(), name
    assert manifest["exports"]["."]["default"] == "./callgate.js" and manifest["type"] == "module"


def concrete(value):
    """`value` with the vectors' time placeholders replaced by a fixed time."""
    if isinstance(value, list):
        return [concrete(item) for item in value]
    if isinstance(value, dict):
        if "$nowMs" in value:
            return 1_763_800_000_000 + value["$nowMs"]
        if "$nowSeconds" in value:
            return 1_763_800_000 + value["$nowSeconds"]
        return {key: concrete(member) for key, member in value.items()}
    return value


@pytest.mark.parametrize("vector", VECTORS, ids=lambda path: path.stem)
def test_a_vectors_gateway_speaks_the_contract(vector):
    contract = Contract()

    def check(name: str, instance) -> None:
        errors = contract.errors(name, instance)
        assert not errors, f"{vector.name}: {name}: {errors}"

    steps = json.loads(vector.read_text())["steps"]
    for step in steps:
        if "server" in step:
            check(f"event.{step['server']['event']}", concrete(step["server"]))
        if "reply" in step:
            reply = {"id": "1", **concrete(step["reply"])}
            check("error" if "error" in reply else f"result.{step['client']['op']}", reply)


def test_callgate_js_meets_every_vector():
    assert VECTORS, "proto/vectors holds no vector"
    result = subprocess.run([require("node"), str(PACKAGE / "test/vectors.test.mjs"), *map(str, VECTORS)],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count("ok ") == len(VECTORS), result.stdout


def test_node_drives_a_real_gateway(tmp_path):
    if not gateway_binary().exists():
        pytest.fail(f"{gateway_binary()} is missing: build it first (swift build)")
    gateway = Gateway(tmp_path)
    try:
        result = subprocess.run(
            [require("node"), str(PACKAGE / "test/node.test.mjs"), f"ws://127.0.0.1:{gateway.port}/ws",
             gateway.token("alice"), gateway.token("bob")],
            capture_output=True, text=True, timeout=120, env={**os.environ, "NODE_PATH": "/usr/share/nodejs"})
        assert result.returncode == 0, result.stdout + result.stderr + gateway.log_path.read_text()[-2000:]
        seen = json.loads(result.stdout.strip().splitlines()[-1])
        assert seen["recovered"]["recovered"] is True
        assert seen["bob"]["onIncomingCallReceived"] == 1 and seen["alice"]["onOutgoingCallAccepted"] == 1
    finally:
        gateway.stop()
