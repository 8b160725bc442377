"""Network faults for one browser session, as a tunnel or a Wi-Fi handover would cause them.

`drop_connections` destroys the session's TCP connections to the gateway with `ss -K`: the
kernel aborts them (ECONNABORTED in the browser, an RST to the gateway), so no WebSocket close
frame is sent or read. It needs root (CAP_NET_ADMIN) and a kernel with INET_DIAG_DESTROY.
`set_offline` is Chromium's network emulation: it leaves open connections alone and fails new
ones, which holds a client's reconnects back for as long as a test needs.
"""

from __future__ import annotations

import re
import subprocess
from collections import defaultdict
from pathlib import Path


def process_tree(root: int) -> set[int]:
    """The process `root` and all its descendants."""
    children: dict[int, list[int]] = defaultdict(list)
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:  # the process ended while we looked
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        children[parent].append(int(entry.name))
    tree, todo = set(), [root]
    while todo:
        pid = todo.pop()
        tree.add(pid)
        todo.extend(children[pid])
    return tree


def drop_connections(driver, port: int) -> int:
    """Aborts every TCP connection the browser session `driver` has open to 127.0.0.1:`port`
    (its WebSocket and any idle HTTP connection); returns how many it aborted."""
    browser = process_tree(driver.service.process.pid)
    listing = subprocess.run(
        ["ss", "-Htnp", "state", "established", "dst", "127.0.0.1", "dport", "=", f":{port}"],
        capture_output=True, text=True, check=True).stdout
    local_ports = []
    for line in listing.splitlines():
        if browser & {int(pid) for pid in re.findall(r"pid=(\d+)", line)}:
            local_ports.append(int(line.split()[2].rsplit(":", 1)[1]))
    for local in local_ports:
        subprocess.run(
            ["ss", "-K", "-tn", "dst", "127.0.0.1", "dport", "=", f":{port}", "sport", "=", f":{local}"],
            capture_output=True, text=True, check=True)
    return len(local_ports)


def set_offline(driver, offline: bool):
    """Turns Chromium's offline emulation on or off for the session `driver`."""
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
        "offline": offline, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
