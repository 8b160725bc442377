"""Tests of tools/bench_cluster.py (reading tools/measure-cluster's output, the target check, the
Markdown): made-up outputs, no servers.

Run with `python3 -m pytest -q tools` from the repository root.
"""

from __future__ import annotations

import json

import bench_cluster as bc

RING = bc.SCENARIOS[0]
GROUP = bc.SCENARIOS[1]


def output(tmp_path, name: str, p99: float, incoming: int, cpu: str = "1.50 + 0.50", errors=None) -> str:
    """tools/measure-cluster's output of one run, its bench.json in a logs folder under tmp_path."""
    logs = tmp_path / name
    logs.mkdir()
    (logs / "bench.json").write_text(json.dumps({
        "metrics": {"ring": {"count": incoming, "p50": 0.5, "p90": 0.9, "p99": p99, "p999": p99, "max": p99}},
        "counts": {"incoming": incoming, "completed": incoming}, "errors": errors or {}}))
    return "\n".join([
        "== bench", "callgate-bench ring against 127.0.0.1:9181", "== Redis commands (INFO commandstats)",
        f"cmdstat_publish:calls={7 * incoming},usec=1,usec_per_call=0.1", f"cmdstat_evalsha:calls={14 * incoming},usec=1",
        "cmdstat_eval:calls=6,usec=1", "cmdstat_config|resetstat:calls=1,usec=1", "== Redis bytes",
        f"total_net_input_bytes:{7000 * incoming}", "total_net_output_bytes:5", f"== PostgreSQL commits: {incoming}",
        f"== node CPU seconds: {cpu}", f"logs: {logs}", ""])


def test_a_run_is_read_from_the_output_and_the_generator_json(tmp_path):
    run = bc.parse("ring", bc.ACROSS, output(tmp_path, "a", 1.7, 1000))
    assert run.p99 == {"ring": 1.7}
    assert run.deliveries(RING) == 1000
    assert run.redis["publish"] == 7000 and run.redis["evalsha"] == 14000 and run.redis["config|resetstat"] == 1
    assert run.redis_bytes_in == 7_000_000 and run.commits == 1000
    assert run.cpu_seconds == 2.0
    assert run.per_delivery(run.cpu_seconds * 1000, RING) == 2.0


def test_a_run_whose_generator_left_nothing_has_no_deliveries(tmp_path):
    run = bc.parse("ring", bc.ONE, "== PostgreSQL commits: 3\nlogs: /nonexistent\n")
    assert run.deliveries(RING) == 0 and run.per_delivery(5, RING) is None and run.commits == 3


def test_the_target_holds_only_for_every_ring_across_nodes_within_10_ms_and_without_errors(tmp_path):
    fast = bc.parse("ring", bc.ACROSS, output(tmp_path, "a", 1.7, 1000))
    slow_one_node = bc.parse("ring", bc.ONE, output(tmp_path, "b", 50.0, 1000))
    assert bc.check([fast, slow_one_node])[0] == "PASS"
    slow = bc.parse("ring", bc.ACROSS, output(tmp_path, "c", 10.5, 1000))
    assert bc.check([fast, slow]) == ("FAIL", "worst ring p99 across nodes 10.50 ms, 0 errors")
    failing = bc.parse("ring", bc.ACROSS, output(tmp_path, "d", 1.0, 1000, errors={"ERR_CALL_REJECTED": 5}))
    assert bc.check([failing])[0] == "FAIL"
    assert bc.check([slow_one_node])[0] == "SKIP"


def test_the_summary_lists_each_repetition_by_layout_with_the_ratio_of_means(tmp_path):
    runs = [
        bc.parse("ring", bc.ACROSS, output(tmp_path, "a", 2.0, 1000, cpu="1.0 + 1.0")),
        bc.parse("ring", bc.ONE, output(tmp_path, "b", 1.0, 1000, cpu="1.0 + 0.0")),
        bc.parse("ring", bc.ACROSS, output(tmp_path, "c", 4.0, 1000, cpu="2.0 + 0.0")),
        bc.parse("ring", bc.ONE, output(tmp_path, "d", 3.0, 1000, cpu="1.0 + 0.0")),
    ]
    text = "\n".join(bc.render(runs, (RING, GROUP)))
    assert "**PASS**" in text
    assert "| ring p99 (ms) | 2.00 / 4.00 | 1.00 / 3.00 | 1.50 |" in text
    assert "| CPU per delivery, both nodes (ms) | 2.000 / 2.000 | 1.000 / 1.000 | 2.00 |" in text
    assert "### group" not in text, "a scenario with no runs is left out"


def test_measure_argv_passes_the_scenario_and_its_flags():
    assert bc.measure_argv("m", "cg", "gen", GROUP) == ["m", "cg", "gen", "group", "20", "15", "--sockets", "200",
                                                        "--group-size", "10"]
