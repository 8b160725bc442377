"""Tests of tools/bench_report.py (ratios, target checks, Markdown): made-up results, no servers.

Run with `python3 -m pytest -q tools` from the repository root.
"""

from __future__ import annotations

import copy
import json

import pytest

import bench_report as br

FULL = br.Plan(sockets=19_000, ring_rate=500, group_size=100, duration=30)
QUICK = br.Plan(sockets=1_000, ring_rate=100, group_size=100, duration=5)


def result(scenario: str, metrics=None, rates=None, errors=None, bytes_per_socket=None, sockets=19_000) -> dict:
    """A generator result in the documented --json shape."""
    return {
        "scenario": scenario, "label": "test", "config": {"sockets": sockets},
        "metrics": {name: {"count": 100, "p50": p50, "p90": p99, "p99": p99, "p999": p99, "max": p99, "unit": "ms"}
                    for name, (p50, p99) in (metrics or {}).items()},
        "rates": rates or {}, "errors": errors or {},
        "server": {"rssBeforeBytes": 1, "rssAfterBytes": 2, "bytesPerSocket": bytes_per_socket},
    }


def good_results() -> dict:
    """Numbers that meet every target, with two slower, fatter peers."""
    return {
        "callgate": {
            "idle": result("idle", {"connectFirst1000": (0.5, 1.0), "connectLast1000": (0.6, 1.2)}, bytes_per_socket=3000),
            "ring": result("ring", {"ring": (1.0, 4.0)}, {"callsPerSecond": 499.0}),
            "group": result("group", {"fanout": (5.0, 20.0)}, {"deliveriesPerSecond": 80_000.0}, bytes_per_socket=3500),
        },
        "node-ws": {"group": result("group", {"fanout": (9.0, 40.0)}, {"deliveriesPerSecond": 40_000.0}, bytes_per_socket=9000)},
        "python-websockets": {"group": result("group", {"fanout": (30.0, 90.0)}, {"deliveriesPerSecond": 10_000.0},
                                               bytes_per_socket=40_000)},
    }


def by_target(checks: list[br.Check], words: str) -> br.Check:
    found = [c for c in checks if words in c.target]
    assert len(found) == 1, (words, checks)
    return found[0]


# ------------------------------------------------------------------ ratios


def test_ratios_are_callgate_over_peer_with_direction():
    rows = br.group_ratios(good_results())
    assert len(rows) == 6  # three quantities for each of two peers
    node = {r.quantity: r for r in rows if r.peer == "node-ws"}
    assert node["deliveries per second"].value == pytest.approx(2.0)
    assert node["p99 fan-out completion (ms)"].value == pytest.approx(0.5)
    assert node["memory per socket (bytes)"].value == pytest.approx(3500 / 9000)
    assert all(r.ahead for r in rows)


def test_ratio_behind_and_missing():
    behind = br.Ratio("p", "deliveries per second", 10.0, 20.0, "higher")
    assert behind.value == pytest.approx(0.5) and behind.ahead is False
    slower = br.Ratio("p", "p99", 30.0, 20.0, "lower")
    assert slower.ahead is False
    equal = br.Ratio("p", "p99", 20.0, 20.0, "lower")
    assert equal.ahead is False  # "ahead" means strictly better
    assert br.Ratio("p", "p99", None, 20.0, "lower").ahead is None
    assert br.Ratio("p", "p99", 1.0, 0.0, "lower").value is None


def test_no_peers_no_ratios():
    results = good_results()
    results = {"callgate": results["callgate"]}
    assert br.group_ratios(results) == []
    assert by_target(br.check_targets(results, FULL), "ahead").status == br.SKIP


# ------------------------------------------------------------------ targets


def test_every_target_passes_with_good_numbers():
    checks = br.check_targets(good_results(), FULL)
    assert len(checks) == 7
    assert [c.status for c in checks] == [br.PASS] * 7, checks


def test_memory_over_4_kib_per_socket_misses():
    results = good_results()
    results["callgate"]["idle"]["server"]["bytesPerSocket"] = 4097
    check = by_target(br.check_targets(results, FULL), "memory growth")
    assert check.status == br.MISS and "4,097 bytes" in check.measured


def test_connect_cost_growth_over_one_and_a_half_misses():
    results = good_results()
    results["callgate"]["idle"]["metrics"]["connectLast1000"]["p50"] = 0.76  # 1.52x of 0.5
    check = by_target(br.check_targets(results, FULL), "last 1,000")
    assert check.status == br.MISS and "1.52" in check.measured


def test_idle_errors_miss_the_socket_target():
    results = good_results()
    results["callgate"]["idle"]["errors"] = {"connectTimeout": 3}
    assert by_target(br.check_targets(results, FULL), "idle sockets held").status == br.MISS


def test_ring_p99_over_5_ms_misses_and_a_low_rate_misses_too():
    results = good_results()
    results["callgate"]["ring"]["metrics"]["ring"]["p99"] = 5.01
    assert by_target(br.check_targets(results, FULL), "ring p99").status == br.MISS
    results = good_results()
    results["callgate"]["ring"]["rates"]["callsPerSecond"] = 300.0
    check = by_target(br.check_targets(results, FULL), "ring p99")
    assert check.status == br.MISS and "300 of 500" in check.measured


def test_group_targets():
    results = good_results()
    results["callgate"]["group"]["rates"]["deliveriesPerSecond"] = 59_999.0
    results["callgate"]["group"]["metrics"]["fanout"]["p99"] = 50.5
    checks = br.check_targets(results, FULL)
    assert by_target(checks, "deliveries per second").status == br.MISS
    assert by_target(checks, "fan-out completion").status == br.MISS


def test_missing_metric_is_unknown_never_pass():
    results = good_results()
    del results["callgate"]["group"]["metrics"]["fanout"]
    del results["callgate"]["idle"]["metrics"]["connectFirst1000"]
    del results["callgate"]["ring"]["rates"]["callsPerSecond"]
    checks = br.check_targets(results, FULL)
    assert by_target(checks, "fan-out completion").status == br.UNKNOWN
    assert by_target(checks, "last 1,000").status == br.UNKNOWN
    assert by_target(checks, "ring p99").status == br.UNKNOWN
    assert by_target(checks, "ahead").status == br.UNKNOWN


def test_failed_runs_are_unknown_not_skipped():
    results = good_results()
    del results["callgate"]["ring"]
    del results["node-ws"]
    checks = br.check_targets(results, FULL, frozenset({("callgate", "ring"), ("node-ws", "group")}))
    assert by_target(checks, "ring p99") == br.Check(by_target(checks, "ring p99").target, "the ring run failed", br.UNKNOWN)
    ahead = by_target(checks, "ahead")
    assert ahead.status == br.UNKNOWN and "node-ws" in ahead.measured


def test_behind_a_peer_misses():
    results = good_results()
    results["node-ws"]["group"]["server"]["bytesPerSocket"] = 3000
    check = by_target(br.check_targets(results, FULL), "ahead")
    assert check.status == br.MISS and "memory per socket (bytes) vs node-ws" in check.measured


def test_quick_scale_and_missing_scenarios_skip():
    checks = br.check_targets(good_results(), QUICK)
    assert by_target(checks, "idle sockets held").status == br.SKIP
    assert by_target(checks, "last 1,000").status == br.SKIP
    assert by_target(checks, "ring p99").status == br.SKIP
    assert by_target(checks, "memory growth").status == br.PASS  # per socket: scale-free
    only_group = {"callgate": {"group": good_results()["callgate"]["group"]}}
    checks = br.check_targets(only_group, FULL)
    assert [c.status for c in checks[:4]] == [br.SKIP] * 4 and all(c.measured == "not run" for c in checks[:4])
    other = br.Plan(sockets=19_000, ring_rate=500, group_size=50, duration=30)
    assert by_target(br.check_targets(good_results(), other), "deliveries per second").status == br.SKIP


# ------------------------------------------------------------------ Markdown and loading


def test_summary_markdown_tables():
    results = good_results()
    results["python-websockets"]["group"]["errors"] = {"ERR_TIMEOUT": 2}
    checks = br.check_targets(results, FULL)
    meta = {"started": "2026-11-22T06:00:00Z", "scale": "full", "machine": {"cores": 2},
            "serverCpuSeconds": {"callgate-group": 12.34}}
    text = br.render_summary(meta, results, checks)
    lines = text.splitlines()
    assert lines[0] == "# Benchmark run 2026-11-22T06:00:00Z"
    assert "| callgate | group | 19,000 | 5.00 / 20.00 | n/a | 80,000 | 3,500 | 12.3 | 0 |" in lines
    assert "| python-websockets | group | 19,000 | 30.00 / 90.00 | n/a | 10,000 | 40,000 | n/a | ERR_TIMEOUT 2 |" in lines
    assert "| node-ws | deliveries per second | 80,000 | 40,000 | 2.00x | higher is better | yes |" in lines
    assert "| node-ws | p99 fan-out completion (ms) | 20.00 | 40.00 | 0.50x | lower is better | yes |" in lines
    assert "| ahead of every peer on every ratio | ahead on all 6 ratios | **PASS** |" in lines
    # callgate rows come first, then peers in name order
    servers = [l.split("|")[1].strip() for l in lines if l.startswith("| ") and l.count("|") == 10][1:]
    assert servers == ["callgate", "callgate", "callgate", "node-ws", "python-websockets"]


def test_summary_says_when_the_scale_is_not_the_issues():
    text = br.render_summary({"scale": "quick"}, {}, [])
    assert "Not the issue's scale" in text and "No peer ran the group scenario." in text


def test_load_results_by_file_name(tmp_path):
    results = good_results()
    for server, scenarios in results.items():
        for scenario, data in scenarios.items():
            (tmp_path / f"{server}-{scenario}.json").write_text(json.dumps(data))
    (tmp_path / "meta.json").write_text("{}")  # not a result
    assert br.load_results(tmp_path) == results


# ------------------------------------------------------------------ tools/bench's pure helpers


def load_bench_script():
    """tools/bench has no .py suffix; load it as a module without running main()."""
    import importlib.machinery
    import importlib.util

    path = str(br.Path(__file__).resolve().parent / "bench")
    loader = importlib.machinery.SourceFileLoader("bench_script", path)
    spec = importlib.util.spec_from_loader("bench_script", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def test_listen_lines_of_callgate_and_peers():
    bench = load_bench_script()
    callgate = "CallGate is listening on ws://127.0.0.1:41234/ws (admin API and /healthz on http://127.0.0.1:41234)\n"
    assert bench.listen_port(callgate) == 41234
    assert bench.listen_port("listening on 127.0.0.1:5555\n") == 5555
    assert bench.listen_port("starting...\n") is None


def test_generator_command_lines():
    bench = load_bench_script()
    out = br.Path("/r")
    ring = bench.generator_argv("gen", "ring", 9000, "s", "k", FULL, 42, out, "callgate")
    assert ring == ["gen", "ring", "--host", "127.0.0.1", "--port", "9000", "--jwt-secret", "s", "--admin-key", "k",
                    "--sockets", "19000", "--duration", "30", "--rate", "500", "--server-pid", "42",
                    "--json", "/r/callgate-ring.json", "--report", "/r/callgate-ring.html", "--label", "callgate"]
    group = bench.generator_argv("gen", "group", 9000, "s", "k", QUICK, 7, out, "node-ws")
    assert group[group.index("--group-size") + 1] == "100" and group[group.index("--rate") + 1] == "10"
    full_group = bench.generator_argv("gen", "group", 9000, "s", "k", bench.FULL, 7, out, "callgate")
    assert full_group[full_group.index("--rate") + 1] == "610"  # 610 rings x 99 members: ~60,000 deliveries/s
    assert group[group.index("--sockets") + 1] == "1000" and group[-1] == "node-ws"
    idle = bench.generator_argv("gen", "idle", 9000, "s", "k", FULL, 7, out, "callgate")
    assert "--rate" not in idle and "--group-size" not in idle


def test_cpu_seconds_from_proc_stat():
    bench = load_bench_script()
    # pid (comm with ") " inside) state ppid ... utime=250 stime=50 at fields 14 and 15
    line = "4242 (odd ) name) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 1 0 100 1000 10"
    assert bench.cpu_seconds(line, 100) == pytest.approx(3.0)


def test_exit_status():
    bench = load_bench_script()
    passed = [br.Check("t", "m", br.PASS), br.Check("u", "m", br.SKIP)]
    assert bench.exit_status(passed, []) == 0
    assert bench.exit_status(passed + [br.Check("v", "m", br.UNKNOWN)], []) == 3
    assert bench.exit_status(passed + [br.Check("v", "m", br.MISS)], []) == 3
    assert bench.exit_status(passed, ["ring against callgate: failed"]) == 1
