"""Tests of tools/bench_report.py (ratios, target checks, Markdown): made-up results, no servers.

Run with `python3 -m pytest -q tools` from the repository root.
"""

from __future__ import annotations

import copy
import json

import pytest

import bench_report as br
import throwaway
from script_module import load_script

FULL = br.Plan(sockets=19_000, ring_rate=500, group_size=100, duration=30, group_rate=610)
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
    assert len(checks) == 11
    assert [c.status for c in checks] == [br.PASS] * 9 + [br.SKIP] * 2, checks  # no lws-c in these results
    assert checks[-2].measured == "lws-c did not run the group scenario, or without this number"


def with_lws_c(results: dict, deliveries_per_second: float, deliveries: int) -> dict:
    results["lws-c"] = {"group": result("group", {"fanout": (1.0, 9.0)}, {"deliveriesPerSecond": deliveries_per_second},
                                        bytes_per_socket=1500)}
    results["lws-c"]["group"]["counts"] = {"deliveries": deliveries}
    results["callgate"]["group"]["counts"] = {"deliveries": 2_400_000}
    return results


def test_cpu_per_delivery_is_cpu_seconds_over_the_deliveries_of_the_run():
    assert br.cpu_per_delivery({"counts": {"deliveries": 2_000_000}}, 50.0) == pytest.approx(25.0)
    assert br.cpu_per_delivery({"counts": {"deliveries": 0}}, 50.0) is None
    assert br.cpu_per_delivery({"counts": {"deliveries": 10}}, None) is None
    assert br.cpu_per_delivery(None, 5.0) is None


def test_the_lws_c_targets_read_throughput_and_cpu_per_delivery_ratios():
    results = with_lws_c(good_results(), 82_000.0, 2_460_000)
    cpu = {"callgate-group": 48.0, "lws-c-group": 41.0}  # 20.0 vs 16.67 µs per delivery: 1.2x
    checks = br.check_targets(results, FULL, cpu=cpu)
    throughput = by_target(checks, "group throughput: CallGate / lws-c")
    assert throughput.status == br.PASS and throughput.measured.startswith("0.98x")
    per_delivery = by_target(checks, "server CPU per delivery: CallGate / lws-c")
    assert per_delivery.status == br.PASS and per_delivery.measured.startswith("1.20x")
    cpu["callgate-group"] = 60.0  # 25 µs: 1.5x
    assert by_target(br.check_targets(results, FULL, cpu=cpu), "server CPU per delivery").status == br.MISS
    slow = with_lws_c(good_results(), 90_000.0, 2_700_000)
    assert by_target(br.check_targets(slow, FULL, cpu=cpu), "group throughput: CallGate / lws-c").status == br.MISS
    failed = br.check_targets(results, FULL, frozenset({("lws-c", "group")}), cpu)
    assert by_target(failed, "server CPU per delivery").status == br.UNKNOWN


def test_the_share_of_the_asked_rate_is_checked_at_610_rings_only():
    results = good_results()
    results["callgate"]["group"]["rates"]["deliveriesPerSecond"] = 59_000.0  # 97.7% of 610 x 99
    check = by_target(br.check_targets(results, FULL), "group at 610 rings/s")
    assert check.status == br.MISS and check.measured.startswith("97.7% of 60,390")
    saturating = br.Plan(sockets=19_000, ring_rate=500, group_size=100, duration=30, group_rate=1500)
    assert by_target(br.check_targets(results, saturating), "group at 610 rings/s").status == br.SKIP


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
    assert "| callgate | group | 19,000 | 5.00 / 20.00 | n/a | 80,000 | 3,500 | 12.3 | n/a | 0 |" in lines
    assert "| python-websockets | group | 19,000 | 30.00 / 90.00 | n/a | 10,000 | 40,000 | n/a | n/a | ERR_TIMEOUT 2 |" in lines
    assert "| node-ws | deliveries per second | 80,000 | 40,000 | 2.00x | higher is better | yes |" in lines
    assert "| node-ws | p99 fan-out completion (ms) | 20.00 | 40.00 | 0.50x | lower is better | yes |" in lines
    assert "| ahead of every peer on every ratio | ahead on all 6 ratios | **PASS** |" in lines
    # callgate rows come first, then peers in name order
    servers = [l.split("|")[1].strip() for l in lines if l.startswith("| ") and l.count("|") == 11][1:]
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
    """tools/bench as a module, without running main()."""
    return load_script(br.Path(__file__).resolve().parent / "bench")


def test_listen_lines_of_callgate_and_peers():
    callgate = "CallGate is listening on ws://127.0.0.1:41234/ws (admin API and /healthz on http://127.0.0.1:41234)\n"
    assert throwaway.listen_port(callgate) == 41234
    assert throwaway.listen_port("listening on 127.0.0.1:5555\n") == 5555
    assert throwaway.listen_port("starting...\n") is None


def test_a_server_s_port_is_read_from_what_it_wrote_not_from_an_earlier_run_in_the_log(tmp_path):
    log = tmp_path / "server.log"
    log.write_text("CallGate is listening on ws://127.0.0.1:40615/ws (admin API and /healthz on http://127.0.0.1:40615)\n")
    proc, port = throwaway.start_server("echo", ["sh", "-c", "echo 'listening on 127.0.0.1:5555'; sleep 30"], log)
    try:
        assert port == 5555
    finally:
        throwaway.stop(proc)


def test_a_results_folder_holding_an_earlier_run_is_refused(tmp_path):
    bench = load_bench_script()
    fresh = bench.results_folder(tmp_path / "new")
    assert fresh.is_dir()
    assert bench.results_folder(fresh) == fresh, "an empty folder is taken"
    (fresh / "callgate-ring.log").write_text("CallGate is listening on ws://127.0.0.1:40615/ws\n")
    with pytest.raises(throwaway.StepFailed, match="earlier run"):
        bench.results_folder(fresh)


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


# ------------------------------------------------------------------ two builds: --baseline, --repeat


def test_supports_flag_matches_whole_flags_only():
    bench = load_bench_script()
    help_text = "  --max-connections-per-address <n>\n  --database <database>   SQLite file\n"
    assert bench.supports_flag(help_text, "--database")
    assert bench.supports_flag(help_text, "--max-connections-per-address")
    assert not bench.supports_flag(help_text, "--max-connections")  # only a prefix of a listed flag
    assert not bench.supports_flag(help_text, "--max-calls-per-minute")
    assert not bench.supports_flag("CALLGATE_DATABASE\n", "--database")


def test_serve_argv_passes_only_the_flags_a_build_lists():
    bench = load_bench_script()
    db = br.Path("/r/callgate-baseline-group.sqlite")
    base = ["cg", "serve", "--host", "127.0.0.1", "--port", "0", "--jwt-secret", "s", "--admin-key", "k",
            "--log-level", "warning"]
    new_help = "  --database <database>\n  --max-calls-per-minute <n>\n"
    assert bench.serve_argv("cg", new_help, "s", "k", db) == base + [
        "--max-calls-per-minute", "1000000", "--database", str(db)]
    old_help = "  --database <database>\n  --max-connections <n>\n"  # before the call rate limit existed
    assert bench.serve_argv("cg", old_help, "s", "k", db) == base + ["--database", str(db)]
    assert bench.serve_argv("cg", "", "s", "k", db) == base


def test_serve_argv_points_a_build_with_webhooks_at_the_receiver():
    bench = load_bench_script()
    db = br.Path("/r/callgate-ring.sqlite")
    hook = bench.Webhook("http://127.0.0.1:9/webhooks", "whsec_abc")
    help_text = "  --database <database>\n  --webhook-url <url>\n  --webhook-secret <secret>\n"
    assert bench.serve_argv("cg", help_text, "s", "k", db, hook)[-4:] == [
        "--webhook-url", "http://127.0.0.1:9/webhooks", "--webhook-secret", "whsec_abc"]
    assert "--webhook-url" not in bench.serve_argv("cg", help_text, "s", "k", db)
    with pytest.raises(bench.StepFailed, match="no --webhook-url"):
        bench.serve_argv("cg", "  --database <database>\n", "s", "k", db, hook)


def test_run_order_interleaves_current_and_baseline():
    bench = load_bench_script()
    order = bench.run_order(["ring", "group"], 2, True, ["node-ws"])
    assert order == [
        (1, "callgate", "ring"), (1, "callgate-baseline", "ring"),
        (2, "callgate", "ring"), (2, "callgate-baseline", "ring"),
        (1, "callgate", "group"), (1, "callgate-baseline", "group"), (1, "node-ws", "group"),
        (2, "callgate", "group"), (2, "callgate-baseline", "group"), (2, "node-ws", "group"),
    ]
    # without --baseline and --repeat: the standard set as before, the peers last
    assert bench.run_order(["idle", "ring", "group"], 1, False, ["node-ws", "python-websockets"]) == [
        (1, "callgate", "idle"), (1, "callgate", "ring"), (1, "callgate", "group"),
        (1, "node-ws", "group"), (1, "python-websockets", "group")]


def test_rep_dirs_and_peer_lists():
    bench = load_bench_script()
    assert bench.rep_dir(1, 1) == "" and bench.rep_dir(3, 2) == "rep2"
    assert bench.parse_peers("none") == [] and bench.parse_peers("") == [] and bench.parse_peers("NONE") == []
    assert bench.parse_peers("node-ws, python-websockets") == ["node-ws", "python-websockets"]


def test_bench_options():
    bench = load_bench_script()
    args = bench.parse_args(["--peers", "none", "--baseline", "/b/callgate", "--callgate", "/c/callgate", "--repeat", "2"])
    assert args.peers == [] and args.repeat == 2
    assert str(args.baseline) == "/b/callgate" and str(args.callgate) == "/c/callgate"
    defaults = bench.parse_args([])
    assert defaults.repeat == 1 and defaults.baseline is None and defaults.peers == list(bench.PEERS)
    assert defaults.callgate == bench.ROOT / ".build/release/callgate"
    with pytest.raises(SystemExit):
        bench.parse_args(["--repeat", "0"])
    assert defaults.rate is None and bench.parse_args(["--rate", "1500"]).rate == 1500
    for bad in ("0", "100001", "fast"):
        with pytest.raises(SystemExit):
            bench.parse_args(["--rate", bad])
    with pytest.raises(SystemExit):
        bench.parse_args(["--peers", "nginx"])
    assert defaults.webhooks is None and bench.parse_args(["--webhooks", "2.5"]).webhooks == 2.5
    for bad in ("-1", "61", "nan", "slow"):
        with pytest.raises(SystemExit):
            bench.parse_args(["--webhooks", bad])


def test_the_peers_include_the_c_peer_built_under_build():
    bench = load_bench_script()
    assert sorted(bench.PEERS) == ["lws-c", "node-ws", "python-websockets"]
    assert bench.PEERS["lws-c"] == [str(bench.ROOT / ".build/peers/lws-c")]
    assert bench.parse_args(["--peers", "lws-c,node-ws"]).peers == ["lws-c", "node-ws"]


def with_baseline(results: dict, factor: float = 1.0) -> dict:
    """good_results() plus a baseline build whose numbers are callgate's times `factor`."""
    results = copy.deepcopy(results)
    baseline = copy.deepcopy(results["callgate"])
    for scenario in baseline.values():
        for m in scenario["metrics"].values():
            for key in ("p50", "p99"):
                m[key] *= factor
        scenario["rates"] = {k: v * factor for k, v in scenario["rates"].items()}
        if scenario["server"]["bytesPerSocket"] is not None:
            scenario["server"]["bytesPerSocket"] *= factor
    results["callgate-baseline"] = baseline
    return results


def test_the_baseline_is_no_peer():
    results = with_baseline(good_results(), 2.0)  # a baseline twice as fat and slow would be "behind"
    assert {r.peer for r in br.group_ratios(results)} == {"node-ws", "python-websockets"}
    assert by_target(br.check_targets(results, FULL), "ahead").status == br.PASS
    failed = frozenset({("callgate-baseline", "group")})
    assert by_target(br.check_targets(results, FULL, failed), "ahead").status == br.PASS
    only_builds = {k: v for k, v in results.items() if k.startswith("callgate")}
    assert by_target(br.check_targets(only_builds, FULL), "ahead").status == br.SKIP


def test_cpu_of_each_repetition():
    cpu = {"rep1/callgate-group": 10.0, "rep1/callgate-baseline-group": 11.0, "rep2/callgate-group": 12.0,
           "rep10/callgate-group": 99.0}
    assert br.cpu_of_rep(cpu, "rep1") == {"callgate-group": 10.0, "callgate-baseline-group": 11.0}
    assert br.cpu_of_rep(cpu, "rep2") == {"callgate-group": 12.0}
    assert br.cpu_of_rep({"callgate-ring": 3.0}, "") == {"callgate-ring": 3.0}
    assert br.cpu_of_rep(cpu, "") == {}  # one repetition has no rep folders


def test_build_ratios_per_scenario_repetition_and_quantity():
    rep1 = with_baseline(good_results(), 0.5)
    rep2 = with_baseline(good_results(), 1.0)
    cpus = [{"callgate-group": 10.0, "callgate-baseline-group": 8.0}, {}]
    rows = br.build_ratios([rep1, rep2], cpus)
    by = {(r.scenario, r.rep, r.quantity): r for r in rows}
    group = by[("group", 1, "deliveries/s")]
    assert (group.current, group.baseline, group.better) == (80_000.0, 40_000.0, "higher")
    assert group.value == pytest.approx(2.0)
    assert by[("group", 1, "fan-out p99 (ms)")].value == pytest.approx(2.0)
    assert by[("group", 1, "server CPU (s)")].value == pytest.approx(1.25)
    assert by[("group", 2, "fan-out p50 (ms)")].value == pytest.approx(1.0)
    assert by[("ring", 1, "ring p99 (ms)")].value == pytest.approx(2.0)
    assert by[("idle", 2, "connect p50, last 1,000 (ms)")].value == pytest.approx(1.0)
    assert ("group", 2, "server CPU (s)") not in by  # no CPU seconds for either build
    assert ("idle", 1, "deliveries/s") not in by  # idle has no rates: not a quantity of that scenario
    assert ("ring", 1, "fan-out p99 (ms)") not in by
    # scenario order, then repetition, then quantity
    assert [(r.scenario, r.rep) for r in rows] == sorted(((r.scenario, r.rep) for r in rows),
                                                         key=lambda sr: (["idle", "ring", "group"].index(sr[0]), sr[1]))


def test_build_ratio_with_a_failed_side():
    results = with_baseline(good_results())
    del results["callgate-baseline"]["group"]
    rows = [r for r in br.build_ratios([results], [{}]) if r.scenario == "group"]
    assert rows and all(r.baseline is None and r.value is None for r in rows)
    assert br.build_ratios([good_results()], [{}])[0].baseline is None  # no baseline ran at all


def test_verdict_against_run_to_run_noise():
    # throughput 5% apart between builds, each build's own runs 2% apart: beyond noise
    assert br.verdict([95.0, 96.9], [100.0, 102.0], "higher") == "worse beyond noise"
    assert br.verdict([95.0, 96.9], [100.0, 102.0], "lower") == "better beyond noise"
    # the same 5%, but one build's runs 10% apart: within noise
    assert br.verdict([95.0, 104.5], [100.0, 102.0], "higher") == "within noise"
    assert br.verdict([1.0, 1.0], [1.0, 1.0], "lower") == "within noise"
    assert br.verdict([1.0], [1.0], "lower").startswith("n/a")
    assert br.verdict([0.0, 1.0], [1.0, 1.0], "lower") == "n/a"
    assert br.spread([2.0, 3.0]) == pytest.approx(1.5) and br.spread([2.0]) is None


def test_comparison_markdown():
    rows = br.build_ratios([with_baseline(good_results(), 0.5), with_baseline(good_results(), 0.4)],
                           [{"callgate-group": 10.0, "callgate-baseline-group": 10.0}] * 2)
    lines = br.render_comparison(rows, {"callgate": "/head/callgate", "callgate-baseline": "/base/callgate"})
    assert lines[0] == "## Current / baseline"
    assert "- `callgate-baseline`: /base/callgate" in lines
    assert "| group | 1 | deliveries/s | 80,000 | 40,000 | 2.000x | higher |" in lines
    assert "| group | 2 | fan-out p99 (ms) | 20.00 | 8.00 | 2.500x | lower |" in lines
    assert "| group | 1 | server CPU (s) | 10.00 | 10.00 | 1.000x | lower |" in lines
    assert "### Against run-to-run noise" in lines
    assert ("| group | deliveries/s | 80,000 / 80,000 | 40,000 / 32,000 | 2.222x | 1.000x | 1.250x "
            "| better beyond noise |") in lines
    assert "| group | server CPU (s) | 10.00 / 10.00 | 10.00 / 10.00 | 1.000x | 1.000x | 1.000x | within noise |" in lines
    single = br.render_comparison(rows[:3])
    assert "### Against run-to-run noise" not in single  # one repetition: no spread to compare with
    assert br.render_comparison([])[-2] == "No scenario ran against both builds."


def test_summary_with_a_baseline_lists_it_after_callgate():
    results = with_baseline(good_results())
    lines = br.render_body(results, br.check_targets(results, FULL), {"callgate-baseline-group": 9.5}, " (repetition 2)")
    assert lines[0] == "## Runs (repetition 2)"
    servers = [l.split("|")[1].strip() for l in lines if l.startswith("| ") and l.count("|") == 11][1:]
    assert servers == ["callgate"] * 3 + ["callgate-baseline"] * 3 + ["node-ws", "python-websockets"]
    assert "| callgate-baseline | group | 19,000 | 5.00 / 20.00 | n/a | 80,000 | 3,500 | 9.5 | n/a | 0 |" in lines
    assert "## Targets (repetition 2)" in lines


# ------------------------------------------------------------------ the store, from /metrics

COMMIT_BOUNDS = ("0.0001", "0.00025", "0.0005", "0.001", "0.002", "0.005", "0.01", "0.025", "0.05", "0.1", "0.25",
                 "0.5", "1.0", "2.5")  # StoreMetrics.writeBuckets as swift-prometheus writes a Duration
SIZE_BOUNDS = ("1.0", "2.0", "5.0", "10.0", "25.0", "50.0", "100.0", "250.0", "500.0", "1000.0")


def exposition(commits: list[int], commit_sum: str, sizes: list[int], size_sum: str, failures: int) -> str:
    """A /metrics answer in the gateway's format (swift-prometheus): cumulative counts per bucket,
    +Inf, _sum, _count, with unrelated series around the store's."""
    def histogram(name: str, bounds: tuple[str, ...], counts: list[int], total: str) -> list[str]:
        counts = counts + [counts[-1]] * (len(bounds) - len(counts))  # the rest hold every observation
        return [f"# TYPE {name} histogram"] + [f'{name}_bucket{{le="{b}"}} {n}' for b, n in zip(bounds, counts)] + [
            f'{name}_bucket{{le="+Inf"}} {counts[-1]}', f"{name}_sum {total}", f"{name}_count {counts[-1]}"]

    lines = ["# TYPE callgate_ring_latency_seconds histogram", 'callgate_ring_latency_seconds_bucket{le="0.00025"} 7',
             'callgate_ring_latency_seconds_bucket{le="+Inf"} 9', "callgate_ring_latency_seconds_sum 0.004",
             "callgate_ring_latency_seconds_count 9", "# TYPE callgate_sockets_closed_total counter",
             'callgate_sockets_closed_total{code="1000"} 3', 'callgate_webhook_attempts_total{result="success"} 0']
    lines += histogram("callgate_store_batch_size", SIZE_BOUNDS, sizes, size_sum)
    lines += ["# TYPE callgate_store_dead_letters_total counter", "callgate_store_dead_letters_total 0",
              "# TYPE callgate_store_write_failures_total counter", f"callgate_store_write_failures_total {failures}"]
    lines += histogram("callgate_store_write_seconds", COMMIT_BOUNDS, commits, commit_sum)
    return "\n".join(lines) + "\n"


# Before the load: 10 batches (25 writes) from setup; after it: 110 batches, 3,000 writes. Between:
# 100 batches, 2,975 writes; commit times cumulative 0 0 10 40 90 98 100 ... over the bounds.
BEFORE = exposition([0, 0, 2, 5, 8, 10], "0.015", [6, 8, 10], "25.0", 1)
AFTER = exposition([0, 0, 12, 45, 98, 108, 110], "0.1384", [16, 28, 40, 60, 80, 100, 110], "3000.0", 3)


def test_parse_prometheus_text():
    samples = br.parse_samples(AFTER)
    assert samples["callgate_sockets_closed_total"] == [({"code": "1000"}, 3.0)]
    assert samples["callgate_store_write_failures_total"] == [({}, 3.0)]
    buckets = samples["callgate_store_write_seconds_bucket"]
    assert len(buckets) == 15 and buckets[2] == ({"le": "0.0005"}, 12.0) and buckets[-1] == ({"le": "+Inf"}, 110.0)
    assert "# TYPE callgate_store_write_seconds histogram" not in str(samples)
    tricky = br.parse_samples('m{path="/a}b",le="1.0"} 2 1700000000000\nm_total 1e3\nbroken line\n\nm_nan NaN\n')
    assert tricky["m"] == [({"path": "/a}b", "le": "1.0"}, 2.0)]  # a brace inside a quoted value; a timestamp
    assert tricky["m_total"] == [({}, 1000.0)] and "broken" not in tricky


def test_histogram_from_the_exposition():
    h = br.histogram(br.parse_samples(AFTER), "callgate_store_write_seconds")
    assert h.count == 110 and h.sum == pytest.approx(0.1384)
    assert h.buckets[:4] == ((0.0001, 0.0), (0.00025, 0.0), (0.0005, 12.0), (0.001, 45.0))
    assert h.buckets[-1] == (float("inf"), 110.0)
    sizes = br.histogram(br.parse_samples(AFTER), "callgate_store_batch_size")
    assert (sizes.sum, sizes.count, len(sizes.buckets)) == (3000.0, 110.0, 11)
    assert br.histogram(br.parse_samples(AFTER), "callgate_store_missing") is None
    no_inf = 'x_bucket{le="1.0"} 1\nx_sum 1\nx_count 1\n'
    assert br.histogram(br.parse_samples(no_inf), "x") is None  # not a whole histogram


def test_the_difference_of_two_scrapes():
    samples = br.parse_samples(AFTER), br.parse_samples(BEFORE)
    h = br.histogram(samples[0], "callgate_store_write_seconds").since(br.histogram(samples[1], "callgate_store_write_seconds"))
    assert [n for _, n in h.buckets] == [0, 0, 10, 40, 90, 98, 100, 100, 100, 100, 100, 100, 100, 100, 100]
    assert (h.count, round(h.sum, 6)) == (100, 0.1234)
    whole = br.histogram(samples[0], "callgate_store_write_seconds")
    assert whole.since(None) is whole


def test_quantiles_interpolate_inside_the_bucket_like_histogram_quantile():
    h = br.histogram(br.parse_samples(AFTER), "callgate_store_write_seconds").since(
        br.histogram(br.parse_samples(BEFORE), "callgate_store_write_seconds"))
    assert br.quantile(0.5, h) == pytest.approx(0.0012)  # rank 50 in (0.001, 0.002]: 10 of its 50
    assert br.quantile(0.99, h) == pytest.approx(0.0075)  # rank 99 in (0.005, 0.01]: 1 of its 2
    assert br.quantile(0.4, h) == pytest.approx(0.001)  # rank 40: the top of (0.0005, 0.001]
    assert br.quantile(0.05, h) == pytest.approx(0.00025 + 0.00025 * 5 / 10)  # (0.00025, 0.0005]
    first = br.Histogram(((0.001, 4.0), (0.01, 4.0), (float("inf"), 4.0)), 0.002, 4.0)
    assert br.quantile(0.5, first) == pytest.approx(0.0005)  # the first bucket starts at 0


def test_quantile_edge_cases():
    assert br.quantile(0.5, None) is None
    empty = br.histogram(br.parse_samples(exposition([0], "0.0", [0], "0.0", 0)), "callgate_store_write_seconds")
    assert empty.count == 0 and br.quantile(0.5, empty) is None and br.quantile(0.99, empty) is None
    stalled = br.Histogram(((0.5, 0.0), (1.0, 0.0), (2.5, 0.0), (float("inf"), 3.0)), 12.0, 3.0)
    assert br.quantile(0.5, stalled) == 2.5 and br.quantile(0.99, stalled) == 2.5  # the largest finite bound
    assert br.quantile(0.5, br.Histogram(((float("inf"), 3.0),), 1.0, 3.0)) is None  # no finite bucket


def test_store_numbers_from_two_scrapes():
    numbers = br.store_numbers(BEFORE, AFTER, 5.0)
    assert numbers == {
        "batches": 100, "writes": 2975, "failures": 2, "seconds": 5.0, "writesPerSecond": 595.0,
        "commitMeanMs": 1.234, "commitP50Ms": 1.2, "commitP99Ms": 7.5,
        "commitBuckets": {"0.0001": 0, "0.00025": 0, "0.0005": 10, "0.001": 40, "0.002": 90, "0.005": 98,
                          "0.01": 100, "0.025": 100, "0.05": 100, "0.1": 100, "0.25": 100, "0.5": 100, "1": 100,
                          "2.5": 100, "+Inf": 100},
    }
    fresh = br.store_numbers("", AFTER, 10.0)  # no first scrape: a fresh server starts at zero
    assert (fresh["batches"], fresh["writes"], fresh["failures"], fresh["writesPerSecond"]) == (110, 3000, 3, 300.0)
    idle = br.store_numbers(BEFORE, BEFORE, 5.0)
    assert (idle["batches"], idle["writes"], idle["writesPerSecond"]) == (0, 0, 0.0)
    assert idle["commitMeanMs"] is None and idle["commitP50Ms"] is None and idle["commitP99Ms"] is None
    assert br.store_numbers("", "callgate_sockets_open 3\n", 5.0) is None  # a build without store metrics
    assert br.store_numbers("", AFTER, 0.0)["writesPerSecond"] is None


def test_load_seconds_prefer_the_generators_scenario_phase():
    generator = {"durations": {"connectSeconds": 5.8, "scenarioSeconds": 30.002}}
    assert br.load_seconds(generator, 41.0) == (30.002, "generator")
    assert br.load_seconds({"durations": {}}, 41.0) == (41.0, "scrapes")
    assert br.load_seconds(None, 41.0) == (41.0, "scrapes")


def store_file(store: str, writes_per_second: float, mean: float, p99: float | None) -> dict:
    return {"store": store, "secondsFrom": "generator", "batches": 1000, "writes": 3000, "failures": 0, "seconds": 30.0,
            "writesPerSecond": writes_per_second, "commitMeanMs": mean, "commitP50Ms": mean / 2, "commitP99Ms": p99}


def test_load_stores_and_results_keep_to_their_own_files(tmp_path):
    (tmp_path / "callgate-ring.json").write_text(json.dumps(result("ring")))
    (tmp_path / "callgate-ring.store.json").write_text(json.dumps(store_file("postgres", 100.0, 4.0, 8.0)))
    (tmp_path / "callgate-baseline-ring.store.json").write_text(json.dumps(store_file("sqlite", 100.0, 1.0, 2.0)))
    assert list(br.load_results(tmp_path)) == ["callgate"] and list(br.load_results(tmp_path)["callgate"]) == ["ring"]
    stores = br.load_stores(tmp_path)
    assert sorted(stores) == ["callgate", "callgate-baseline"]
    assert stores["callgate-baseline"]["ring"]["store"] == "sqlite" and stores["callgate"]["ring"]["commitMeanMs"] == 4.0


def test_store_table_with_current_over_baseline_rows():
    rep1 = {"callgate": {"ring": store_file("postgres", 500.0, 4.0, 9.0)},
            "callgate-baseline": {"ring": store_file("sqlite", 400.0, 1.0, 3.0)}}
    rep2 = {"callgate": {"ring": store_file("postgres", 450.0, 5.0, None), "idle": store_file("postgres", 0.0, 2.0, 2.0)}}
    lines = br.render_store([rep1, rep2])
    assert lines[:3] == ["## Store", "",
                         "| scenario | rep | server | store | batches | writes | writes/s | commit mean / p50 / p99 (ms) | failures |"]
    assert "| ring | 1 | callgate | postgres | 1,000 | 3,000 | 500 | 4.00 / 2.00 / 9.00 | 0 |" in lines
    assert "| ring | 1 | callgate-baseline | sqlite | 1,000 | 3,000 | 400 | 1.00 / 0.50 / 3.00 | 0 |" in lines
    assert "| ring | 1 | current / baseline |  | 1.00x | 1.00x | 1.25x | 4.00x / 4.00x / 3.00x |  |" in lines
    assert "| ring | 2 | callgate | postgres | 1,000 | 3,000 | 450 | 5.00 / 2.50 / n/a | 0 |" in lines
    rows = [l for l in lines if l.startswith("| ") and "scenario" not in l]
    assert [r.split("|")[1:4] for r in rows] == [  # idle first, then ring; each rep's ratio after its two builds
        [" idle ", " 2 ", " callgate "], [" ring ", " 1 ", " callgate "], [" ring ", " 1 ", " callgate-baseline "],
        [" ring ", " 1 ", " current / baseline "], [" ring ", " 2 ", " callgate "]]
    assert br.render_store([{}, {}]) == [] and br.render_store([]) == []


def test_the_header_says_where_the_builds_store():
    assert "Database: callgate stores in PostgreSQL." in br.render_header({"database": "callgate stores in PostgreSQL"})
    assert not any(l.startswith("Database") for l in br.render_header({}))


# ------------------------------------------------------------------ tools/bench --database postgres


SERVE_HELP = """  --database <database>   SQLite file of call logs and groups, created if
                          missing (default ./callgate.sqlite), or a PostgreSQL
                          server:
                          postgres://user:password@host:port/database[?sslmode=disable|prefer|require|verify-full].
  --dead-letter-file <dead-letter-file>
"""


def test_database_option():
    bench = load_bench_script()
    assert bench.parse_args([]).database == "sqlite"
    assert bench.parse_args(["--database", "postgres"]).database == "postgres"
    with pytest.raises(SystemExit):
        bench.parse_args(["--database", "mysql"])


def test_only_the_current_build_stores_in_postgres():
    bench = load_bench_script()
    assert bench.store_of("callgate", "postgres") == "postgres"
    assert bench.store_of("callgate-baseline", "postgres") == "sqlite"
    assert bench.store_of("callgate", "sqlite") == "sqlite" and bench.store_of("callgate-baseline", "sqlite") == "sqlite"
    assert bench.store_of("node-ws", "postgres") is None and bench.store_of("lws-c", "sqlite") is None


def test_serve_argv_with_a_postgres_address():
    bench = load_bench_script()
    url = "postgres://callgate@127.0.0.1:5433/ring_rep1?sslmode=disable"
    current = bench.serve_argv("cg", SERVE_HELP, "s", "k", url, None, br.Path("/r/callgate-ring.dead-letters.jsonl"))
    assert current[-4:] == ["--database", url, "--dead-letter-file", "/r/callgate-ring.dead-letters.jsonl"]
    baseline = bench.serve_argv("cg", SERVE_HELP, "s", "k", br.Path("/r/callgate-baseline-ring.sqlite"))
    assert baseline[-2:] == ["--database", "/r/callgate-baseline-ring.sqlite"] and "--dead-letter-file" not in baseline
    assert bench.postgres_capable(SERVE_HELP)
    assert not bench.postgres_capable("  --database <database>   SQLite file of call logs and groups, created if\n")


def test_postgres_runs_as_nobody_under_root():
    initdb = ["/usr/lib/postgresql/15/bin/initdb", "-D", "/tmp/x/data"]
    assert throwaway.as_server_user(initdb, root=True) == [
        "setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"] + initdb
    assert throwaway.as_server_user(initdb, root=False) == initdb


def test_the_database_line_names_the_commit_settings():
    bench = load_bench_script()
    settings = {"server_version": "15.18", "fsync": "on", "synchronous_commit": "on", "shared_buffers": "128MB"}
    assert bench.database_line(settings, baseline=True) == (
        "callgate stores in a throwaway PostgreSQL 15.18 (fsync on, synchronous_commit on, shared_buffers 128MB; "
        "a fresh database per run), callgate-baseline in SQLite (a fresh file per run, at the build's default "
        "--database-sync)")
    assert bench.database_line(settings, baseline=False).endswith("a fresh database per run)")


def test_callgate_threads_split_by_the_names_they_give_themselves():
    threads = [(100, "callgate", 0.1), (101, "lws-server", 3.0), (102, "cg-store-writer", 1.0),
               (103, "cg-webhooks", 0.2), (104, "oot.default-qos", 0.05)]
    assert br.thread_split(threads, 100, peer=False, total=4.75) == {
        "service": 3.0, "writer": 1.0, "webhooks": 0.2, "other": 0.55}, "other counts threads that already ended"


def test_a_peers_main_thread_is_its_service_thread_and_an_unnamed_callgate_is_not_split():
    assert br.thread_split([(200, "node", 5.0), (201, "node", 0.5)], 200, peer=True, total=5.5) == {
        "service": 5.0, "writer": None, "webhooks": None, "other": 0.5}
    peer_row = br.render_threads({"node-ws": {"group": {"counts": {"deliveries": 1_000_000}}}},
                                 {"node-ws-group": {"service": 5.0, "writer": None, "webhooks": None, "other": 0.5}})
    assert "| node-ws | group | 5.00 | n/a | n/a | 0.50 | 5.0 | n/a | n/a | n/a |" in peer_row
    assert br.thread_split([(300, "callgate", 0.1), (301, "oot.default-qos", 4.0)], 300, peer=False, total=4.1) is None


def test_the_thread_table_gives_seconds_and_microseconds_per_delivery():
    results = {"callgate": {"group": {"counts": {"deliveries": 1_000_000}}}}
    threads = {"callgate-group": {"service": 30.0, "writer": 8.0, "webhooks": 0.0, "other": 1.5}}
    lines = br.render_threads(results, threads)
    assert lines[0] == "## CPU per thread"
    row = next(line for line in lines if line.startswith("| callgate | group"))
    assert row == "| callgate | group | 30.00 | 8.00 | 0.00 | 1.50 | 30.0 | 8.0 | n/a | n/a |"
    assert br.render_threads(results, {}) == []
    meta = {"rep1/callgate-group": threads["callgate-group"], "rep1/callgate-idle": None, "rep2/callgate-group": {}}
    assert br.threads_of_rep(meta, "rep1") == {"callgate-group": threads["callgate-group"]}


def test_frames_sent_and_pushes_by_event_come_from_the_last_scrape(tmp_path):
    metrics = """# TYPE callgate_frames_sent_total counter
callgate_frames_sent_total 2500000
callgate_pushes_delivered_total{event="onIncomingCallReceived"} 1000000
callgate_pushes_delivered_total{event="onMissedCallsChanged"} 90000
callgate_pushes_delivered_total{event="onUserMuted"} 0
"""
    numbers = br.frame_numbers(metrics)
    assert numbers == {"frames": 2_500_000,
                       "pushes": {"onIncomingCallReceived": 1_000_000, "onMissedCallsChanged": 90_000}}
    assert br.frame_numbers("callgate_sockets_open 3\n") is None, "a build that counts no frames"
    (tmp_path / "callgate-group.frames.json").write_text(json.dumps(numbers))
    frames = br.load_frames(tmp_path)
    results = {"callgate": {"group": {"counts": {"deliveries": 1_000_000}}}}
    threads = {"callgate-group": {"service": 30.0, "writer": 8.0, "webhooks": 0.0, "other": 1.5},
               "callgate-baseline-group": {"service": 20.0, "writer": 5.0, "webhooks": 0.0, "other": 1.0}}
    lines = br.render_threads(results, threads, frames=frames)
    row = next(line for line in lines if line.startswith("| callgate | group"))
    assert row == "| callgate | group | 30.00 | 8.00 | 0.00 | 1.50 | 30.0 | 8.0 | 2.500 | 12.00 |"
    row = next(line for line in lines if line.startswith("| callgate-baseline | group"))
    assert row.endswith("| n/a | n/a | n/a | n/a |"), "no deliveries and no frames for that run"


def test_a_perf_report_by_thread_and_library_splits_kernel_and_user_space():
    report = """# Overhead  Command          Shared Object
#
    31.50%  lws-server       [kernel.kallsyms]
    12.25%  lws-server       libwebsockets.so.17
     8.25%  lws-server       callgate
     4.00%  cg-store-writer  libsqlite3.so.0.8.6
     1.00%  cg-store-writer  [kernel.kallsyms]
"""
    split = br.perf_split(report)
    assert split == {"lws-server": {"kernel": 31.5, "user": 20.5}, "cg-store-writer": {"kernel": 1.0, "user": 4.0}}
    lines = br.render_profiles({"callgate-group": split})
    row = next(line for line in lines if line.startswith("| callgate-group"))
    assert row == "| callgate-group | 52.0% | 60.6% | 39.4% |"
    assert br.render_profiles({"lws-c-group": {"server": {"kernel": 1.0, "user": 1.0}}}) == []
