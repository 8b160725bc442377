"""tools/measure-drain's arguments and the account it prints; the measurement itself needs release
builds and 10,000 sockets, so it runs by hand (docs/benchmarks.md, "Draining a node")."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from script_module import load_script  # noqa: E402

measure = load_script(ROOT / "tools/measure-drain")


def test_arguments_are_bounded():
    assert measure.parse_args([]).sockets == 10_000
    assert measure.parse_args([]).drain_seconds == 30
    for bad in (["--sockets", "1"], ["--sockets", "18001"], ["--drain-seconds", "0"], ["--drain-seconds", "601"]):
        with pytest.raises(SystemExit):
            measure.parse_args(bad)


def test_a_metric_is_summed_over_its_labels_and_server_closes_are_the_4xxx_codes():
    samples = {
        'callgate_error_replies_total{code="ERR_BAD_REQUEST"}': 2.0,
        'callgate_error_replies_total{code="AUTH_ERR"}': 1.0,
        "callgate_error_replies_totalx": 50.0,
        'callgate_sockets_closed_total{code="4001"}': 3.0,
        'callgate_sockets_closed_total{code="1012"}': 900.0,
        'callgate_sockets_closed_total{code="4029"}': 1.0,
    }
    assert measure.total(samples, "callgate_error_replies_total") == 3.0
    assert measure.closed_by_server(samples) == 4.0


def test_a_spread_is_told_with_its_busiest_second():
    assert measure.spread([]) == "none"
    assert measure.spread([3, 0, 5]) == "8 over 3 s, at most 5 in a second: [3 0 5]"
