"""tools/cluster: its arguments, and a real two-node cluster started, used and stopped with Ctrl-C
(the executable is $CALLGATE_BIN, relative to the repository root, else the debug build)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

import throwaway
from script_module import load_script

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "tools/cluster"


def load_cluster_script():
    return load_script(SCRIPT)


def test_arguments_are_bounded():
    cluster = load_cluster_script()
    assert cluster.parse_args([]).nodes == 3
    assert cluster.parse_args(["--nodes", "2", "--base-port", "9000"]).base_port == 9000
    for bad in (["--nodes", "0"], ["--nodes", "17"], ["--base-port", "65535"], ["--base-port", "0"]):
        with pytest.raises(SystemExit):
            cluster.parse_args(bad)


def test_each_node_gets_its_id_port_and_the_shared_secrets():
    cluster = load_cluster_script()
    argv = cluster.node_argv("/bin/callgate", 2, 8082, "redis://127.0.0.1:1", "postgres://x", "s", "k", "c" * 64,
                              Path("/tmp/o"))
    assert argv[:2] == ["/bin/callgate", "serve"]
    joined = " ".join(argv)
    for part in ("--port 8082", "--cluster redis://127.0.0.1:1", "--database postgres://x", "--node-id node2",
                 "--jwt-secret s", "--admin-key k", f"--cluster-secret {'c' * 64}", "--dead-letter-file /tmp/o/node2.dead-letters.jsonl"):
        assert part in joined
    assert "--drain-seconds 3" in joined, "Ctrl-C drains a local cluster's nodes over 3 s, not the default 30"
    assert cluster.parse_args(["--drain-seconds", "0"]).drain_seconds == 0


def ready(port: int) -> bool:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(f"http://127.0.0.1:{port}/readyz", timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def test_a_two_node_cluster_comes_up_and_ctrl_c_stops_everything(tmp_path):
    callgate = ROOT / os.environ.get("CALLGATE_BIN", ".build/debug/callgate")
    if not callgate.exists():
        pytest.fail(f"{callgate} is missing: build it first (make test does)")
    base = throwaway.free_ports(2)
    process = subprocess.Popen(
        [sys.executable, str(SCRIPT), "--no-build", "--callgate", str(callgate), "--nodes", "2", "--base-port",
         str(base), "--out", str(tmp_path)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    output = ""
    try:
        deadline = time.monotonic() + 120
        while "nodes ready" not in output and time.monotonic() < deadline and process.poll() is None:
            line = process.stdout.readline()
            output += line
        assert "2 nodes ready" in output, output
        for line in iter(process.stdout.readline, ""):
            output += line
            if "Ctrl-C stops it all" in line:
                break
        ports = [int(p) for p in re.findall(r"node\d: ws://127\.0\.0\.1:(\d+)/ws", output)]
        assert ports == [base, base + 1], output
        assert all(ready(port) for port in ports)
        data = re.search(r"data in (\S+)\)", output)
        assert data, output

        process.send_signal(signal.SIGINT)
        rest, _ = process.communicate(timeout=60)
        output += rest
        assert process.returncode == 0, output
        assert "cluster: stopping" in output
        assert not any(ready(port) for port in ports)
        assert not Path(data.group(1)).exists(), "PostgreSQL's directory is removed"
        node_log = (tmp_path / "node1.log").read_text()
        assert "Traceback" not in output and "Fatal error" not in node_log
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
