"""tools/bench-tokens against the real executable ($CALLGATE_BIN, else .build/debug/callgate), on
a few connects: every algorithm connects and gets a row, the gateway's CPU is read.

Run with `python3 -m pytest -q tools` from the repository root after `swift build`.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CALLGATE = ROOT / os.environ.get("CALLGATE_BIN", ".build/debug/callgate")
ROW = re.compile(r"^\| (?P<build>[\w ,]+) \| (?P<alg>\w+) \| (?P<cpu>\d+) µs \| (?P<more>[+-]\d+) µs \| (?P<rate>\d+) \|$", re.M)


@pytest.mark.skipif(not CALLGATE.exists(), reason=f"{CALLGATE} is missing: build it first (swift build)")
def test_each_algorithm_gets_a_row_with_the_gateways_cpu_per_connect():
    run = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "bench-tokens"), "--callgate", str(CALLGATE), "--baseline", str(CALLGATE),
         "--connects", "20", "--rounds", "1"],
        capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    rows = {(row["build"], row["alg"]): row for row in ROW.finditer(run.stdout)}
    assert set(rows) == ({("current", alg) for alg in ("HS256", "RS256", "ES256", "EdDSA")}
                         | {("current, secret only", "HS256"), ("baseline, secret only", "HS256")}), run.stdout
    assert all(int(row["cpu"]) > 0 and int(row["rate"]) > 0 for row in rows.values()), run.stdout
    assert rows[("current", "HS256")]["more"] == "+0"
