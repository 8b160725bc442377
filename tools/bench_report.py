"""The pure part of tools/bench: reading the generator's JSON, ratios, target checks, Markdown.

No processes, no sockets, no clock: tools/test_bench.py tests all of it with made-up inputs.

A result is the JSON that `callgate-bench ... --json FILE` writes:
  {"scenario", "label", "config": {...},
   "metrics": {"<name>": {"count", "p50", "p90", "p99", "p999", "max", "unit": "ms"}},
   "rates": {"deliveriesPerSecond", "callsPerSecond", ...}, "errors": {"<code>": n},
   "server": {"rssBeforeBytes", "rssAfterBytes", "bytesPerSocket"}}
Results are grouped as results[server][scenario], server being "callgate", "callgate-baseline"
(another CallGate build, `tools/bench --baseline PATH`) or a peer's name.

A CallGate build's run also leaves <server>-<scenario>.store.json: what its call log store
committed during the run, from the server's Prometheus metrics (`GET /metrics`) scraped before
the generator starts and after it ends (store_numbers); summary.md shows them in a "Store" table.
It also leaves <server>-<scenario>.frames.json: the frames the server sent over the whole run,
and its pushes by event, from the same last scrape (frame_numbers); the "CPU per thread" table
divides the service thread's seconds by them.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

# Metric names in the generator's "metrics" object that the targets read. They are the
# bench's assumption about the generator (see docs/benchmarks.md, "Open points"); a name the
# generator does not write makes its target UNKNOWN, never PASS.
METRIC_NAMES = {
    "fanout": "fanout",  # group: initiateCall sent -> the last member's onIncomingCallReceived
    "ring": "ring",  # ring: initiateCall sent -> the callee's onIncomingCallReceived
    "connect_first": "connectFirst1000",  # idle: connect cost of each of the first 1,000 sockets
    "connect_last": "connectLast1000",  # idle: the same for the last 1,000 sockets
}

# The targets (2 cores, generator and server on the same machine).
TARGET_SOCKETS = 19_000
TARGET_BYTES_PER_SOCKET = 4096
TARGET_CONNECT_GROWTH = 1.5
TARGET_RING_RATE = 500
TARGET_RING_P99_MS = 5.0
TARGET_GROUP_SIZE = 100
TARGET_DELIVERIES_PER_SECOND = 60_000
TARGET_FANOUT_P99_MS = 50.0
TARGET_GROUP_RATE = 610  # group rings/s asked of the `group` runs whose delivered share is a target
TARGET_DELIVERED_SHARE = 0.98  # of the deliveries asked at TARGET_GROUP_RATE
TARGET_OVER_NODE = 1.15  # deliveries/s at saturation, CallGate / node-ws
TARGET_OVER_LWS_C = 0.95  # deliveries/s at saturation, CallGate / lws-c
TARGET_CPU_OVER_LWS_C = 1.3  # server CPU per delivery, CallGate / lws-c
RATE_TOLERANCE = 0.95  # a ring run counts as "at 500 calls/s" when it reached 95% of that

PASS, MISS, SKIP, UNKNOWN = "PASS", "MISS", "SKIP", "UNKNOWN"
CALLGATE = "callgate"
BASELINE = "callgate-baseline"  # the other CallGate build of `tools/bench --baseline PATH`


def is_peer(server: str) -> bool:
    """A reference server of tools/peers, as opposed to one of the two CallGate builds."""
    return server not in (CALLGATE, BASELINE)


@dataclass(frozen=True)
class Plan:
    """What the bench asked the generator for (the targets' preconditions read this, not the
    generator's echo of it)."""

    sockets: int
    ring_rate: int
    group_size: int
    duration: int
    group_rate: int = 10  # group rings per second asked for (x members - 1 = deliveries per second)

    @property
    def full_scale(self) -> bool:
        return self.sockets >= TARGET_SOCKETS


@dataclass(frozen=True)
class Check:
    target: str
    measured: str
    status: str  # PASS, MISS, SKIP (not run at the target's scale) or UNKNOWN (numbers missing)


@dataclass(frozen=True)
class Ratio:
    """CallGate's value divided by a peer's, for one group-scenario quantity."""

    peer: str
    quantity: str
    callgate: float | None
    other: float | None
    better: str  # "higher" or "lower"

    @property
    def value(self) -> float | None:
        if self.callgate is None or self.other is None or self.other == 0:
            return None
        return self.callgate / self.other

    @property
    def ahead(self) -> bool | None:
        """Whether CallGate is strictly better than the peer on this quantity."""
        if self.value is None:
            return None
        return self.value > 1 if self.better == "higher" else self.value < 1


# ------------------------------------------------------------------ reading results


def load_results(directory: Path) -> dict[str, dict[str, dict]]:
    """results[server][scenario] from DIR/<server>-<scenario>.json files."""
    results: dict[str, dict[str, dict]] = {}
    for path in sorted(directory.glob("*.json")):
        server, sep, scenario = path.stem.rpartition("-")
        if not sep or scenario not in ("idle", "ring", "group", "churn"):
            continue
        results.setdefault(server, {})[scenario] = json.loads(path.read_text(encoding="utf-8"))
    return results


def metric(result: dict | None, key: str, field: str = "p99") -> float | None:
    """A field of one of METRIC_NAMES' metrics, or None when absent."""
    if not result:
        return None
    value = result.get("metrics", {}).get(METRIC_NAMES[key], {}).get(field)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def number(result: dict | None, section: str, name: str) -> float | None:
    if not result:
        return None
    value = result.get(section, {}).get(name)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def error_count(result: dict | None) -> int:
    return sum(int(n) for n in (result or {}).get("errors", {}).values())


# ------------------------------------------------------------------ ratios


def cpu_per_delivery(result: dict | None, cpu_seconds: float | None) -> float | None:
    """Server CPU microseconds per delivery of a run: its CPU seconds (user + system, the whole
    run, connects included) over the deliveries the generator counted; None without either."""
    deliveries = number(result, "counts", "deliveries")
    if cpu_seconds is None or not deliveries:
        return None
    return cpu_seconds * 1e6 / deliveries


def group_ratios(results: dict[str, dict[str, dict]], cpu: dict[str, float] | None = None) -> list[Ratio]:
    """CallGate vs every peer that ran the group scenario: deliveries/s, p99 fan-out, memory,
    and server CPU per delivery when `cpu` ("<server>-<scenario>" -> CPU seconds) gives it for both."""
    cpu = cpu or {}
    ours = results.get(CALLGATE, {}).get("group")
    rows = []
    for peer in sorted(p for p in results if is_peer(p) and "group" in results[p]):
        theirs = results[peer]["group"]
        rows.append(Ratio(peer, "deliveries per second", number(ours, "rates", "deliveriesPerSecond"),
                          number(theirs, "rates", "deliveriesPerSecond"), "higher"))
        rows.append(Ratio(peer, "p99 fan-out completion (ms)", metric(ours, "fanout"), metric(theirs, "fanout"), "lower"))
        rows.append(Ratio(peer, "memory per socket (bytes)", number(ours, "server", "bytesPerSocket"),
                          number(theirs, "server", "bytesPerSocket"), "lower"))
        per_delivery = (cpu_per_delivery(ours, cpu.get(f"{CALLGATE}-group")),
                        cpu_per_delivery(theirs, cpu.get(f"{peer}-group")))
        if None not in per_delivery:
            rows.append(Ratio(peer, "server CPU per delivery (µs)", *per_delivery, "lower"))
    return rows


# ------------------------------------------------------------------ targets


def at_most(value: float | None, limit: float, unit: str, fmt: str = "{:.2f}") -> tuple[str, str]:
    if value is None:
        return "no number in the results", UNKNOWN
    return f"{fmt.format(value)} {unit}".strip(), PASS if value <= limit else MISS


def check_targets(results: dict[str, dict[str, dict]], plan: Plan, failed: frozenset = frozenset(),
                  cpu: dict[str, float] | None = None) -> list[Check]:
    """One Check per target of the issues, in their order. `failed` holds the (server,
    scenario) runs that failed: their targets are UNKNOWN, not skipped. `cpu` maps
    "<server>-<scenario>" to the server's CPU seconds."""
    ours = results.get(CALLGATE, {})
    idle, ring, group = ours.get("idle"), ours.get("ring"), ours.get("group")
    small = None if plan.full_scale else f"run at {plan.sockets:,} sockets, not {TARGET_SOCKETS:,}"
    slow = None if plan.ring_rate >= TARGET_RING_RATE else f"run at {plan.ring_rate} calls/s"
    other_size = None if plan.group_size == TARGET_GROUP_SIZE else f"run with groups of {plan.group_size}"
    checks = []

    def add(target: str, scenario: str, skip_reason: str | None, measured: tuple[str, str]) -> None:
        result = ours.get(scenario)
        if result is None and (CALLGATE, scenario) in failed:
            checks.append(Check(target, f"the {scenario} run failed", UNKNOWN))
        elif result is None:
            checks.append(Check(target, "not run", SKIP))
        elif skip_reason:
            checks.append(Check(target, skip_reason, SKIP))
        else:
            checks.append(Check(target, *measured))

    errors = error_count(idle)
    add(f"{TARGET_SOCKETS:,} idle sockets held in one server process", "idle", small,
        (f"{plan.sockets:,} sockets, {errors} errors", PASS if errors == 0 else MISS))

    add(f"server memory growth <= {TARGET_BYTES_PER_SOCKET:,} bytes per idle authenticated socket", "idle", None,
        at_most(number(idle, "server", "bytesPerSocket"), TARGET_BYTES_PER_SOCKET, "bytes", "{:,.0f}"))

    first, last = metric(idle, "connect_first", "p50"), metric(idle, "connect_last", "p50")
    growth = None if first is None or last is None or first == 0 else last / first
    add(f"connecting the last 1,000 sockets costs <= {TARGET_CONNECT_GROWTH}x the first 1,000", "idle", small,
        at_most(growth, TARGET_CONNECT_GROWTH, "x (p50 of the last 1,000 / of the first 1,000)"))

    p99, rate = metric(ring, "ring"), number(ring, "rates", "callsPerSecond")
    measured = at_most(p99, TARGET_RING_P99_MS, "ms p99")
    if p99 is not None and rate is None:
        measured = (f"p99 {p99:.2f} ms, but no calls/s in the results", UNKNOWN)
    elif p99 is not None and rate < RATE_TOLERANCE * plan.ring_rate:
        measured = (f"p99 {p99:.2f} ms, but only {rate:,.0f} of {plan.ring_rate:,} calls/s reached", MISS)
    add(f"ring p99 <= {TARGET_RING_P99_MS:g} ms at {TARGET_RING_RATE} calls/s with {TARGET_SOCKETS:,} connected",
        "ring", small or slow, measured)

    delivered = number(group, "rates", "deliveriesPerSecond")
    measured = ("no number in the results", UNKNOWN) if delivered is None else (
        f"{delivered:,.0f} deliveries/s", PASS if delivered >= TARGET_DELIVERIES_PER_SECOND else MISS)
    add(f">= {TARGET_DELIVERIES_PER_SECOND:,} group deliveries per second (groups of {TARGET_GROUP_SIZE})",
        "group", other_size, measured)
    add(f"p99 fan-out completion <= {TARGET_FANOUT_P99_MS:g} ms for groups of {TARGET_GROUP_SIZE}", "group", other_size,
        at_most(metric(group, "fanout"), TARGET_FANOUT_P99_MS, "ms p99"))

    peers_failed = sorted(server for server, scenario in failed if is_peer(server) and scenario == "group")
    ratios = group_ratios(results, cpu)
    checks.append(ahead_of_peers(ratios, peers_failed))

    asked = plan.group_rate * (plan.group_size - 1)
    other_rate = None if plan.group_rate == TARGET_GROUP_RATE else f"run at {plan.group_rate:,} rings/s"
    p99 = metric(group, "fanout")
    if delivered is None or p99 is None:
        measured = ("no number in the results", UNKNOWN)
    else:
        share = delivered / asked if asked else 0
        measured = (f"{share:.1%} of {asked:,} deliveries/s asked, p99 {p99:.2f} ms",
                    PASS if share >= TARGET_DELIVERED_SHARE and p99 <= TARGET_FANOUT_P99_MS else MISS)
    add(f"group at {TARGET_GROUP_RATE} rings/s: >= {TARGET_DELIVERED_SHARE:.0%} of the asked deliveries, p99 fan-out "
        f"<= {TARGET_FANOUT_P99_MS:g} ms", "group", other_size or other_rate, measured)
    for name, peer, quantity, limit, at_least in (
            ("group throughput", "node-ws", "deliveries per second", TARGET_OVER_NODE, True),
            ("group throughput", "lws-c", "deliveries per second", TARGET_OVER_LWS_C, True),
            ("server CPU per delivery", "lws-c", "server CPU per delivery (µs)", TARGET_CPU_OVER_LWS_C, False)):
        target = f"{name}: CallGate / {peer} {'>=' if at_least else '<='} {limit:g}x"
        checks.append(peer_ratio_check(target, ratios, peer, quantity, limit, at_least, peer in peers_failed))
    return checks


def peer_ratio_check(target: str, ratios: list[Ratio], peer: str, quantity: str, limit: float, at_least: bool,
                     peer_failed: bool) -> Check:
    """The check `target`: CallGate's `quantity` is at least (or at most) `limit` times `peer`'s."""
    if peer_failed:
        return Check(target, f"the group run failed against {peer}", UNKNOWN)
    row = next((r for r in ratios if r.peer == peer and r.quantity == quantity), None)
    if row is None:
        return Check(target, f"{peer} did not run the group scenario, or without this number", SKIP)
    if row.value is None:
        return Check(target, "no number in the results", UNKNOWN)
    ok = row.value >= limit if at_least else row.value <= limit
    digits = 1 if "(µs)" in quantity else 0
    return Check(target, f"{row.value:.2f}x ({fmt(row.callgate, digits)} / {fmt(row.other, digits)})", PASS if ok else MISS)


def ahead_of_peers(rows: list[Ratio], peers_failed: list[str] = ()) -> Check:
    target = "ahead of every peer on every ratio"
    if peers_failed:
        return Check(target, "the group run failed against " + ", ".join(peers_failed), UNKNOWN)
    if not rows:
        return Check(target, "no peer ran the group scenario", SKIP)
    behind = [f"{r.quantity} vs {r.peer}" for r in rows if r.ahead is False]
    missing = [f"{r.quantity} vs {r.peer}" for r in rows if r.ahead is None]
    if behind:
        return Check(target, "behind on " + "; ".join(behind), MISS)
    if missing:
        return Check(target, "no number for " + "; ".join(missing), UNKNOWN)
    return Check(target, f"ahead on all {len(rows)} ratios", PASS)


# ------------------------------------------------------------------ Markdown


def fmt(value: float | None, digits: int = 0) -> str:
    if value is None:
        return "n/a"
    return f"{value:,.{digits}f}"


def table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def main_latency(scenario: str, result: dict) -> str:
    key = {"ring": "ring", "group": "fanout"}.get(scenario)
    if key is None:
        return "n/a"
    return f"{fmt(metric(result, key, 'p50'), 2)} / {fmt(metric(result, key, 'p99'), 2)}"


def render_header(meta: dict) -> list[str]:
    """Title, scale, profile and machine lines of summary.md."""
    lines = [f"# Benchmark run {meta.get('started', '?')}", ""]
    lines.append(f"Scale: **{meta.get('scale', '?')}**. " + (
        "Not the issue's scale: the numbers only smoke-test the bench." if meta.get("scale") != "full" else
        "The issue's scale."))
    if meta.get("profile"):
        lines.append(f"CallGate ran under `{meta['profile']}`: its latencies (and under callgrind its memory) are not comparable.")
    if meta.get("webhooks"):
        lines.append(f"Webhooks: {meta['webhooks']}.")
    if meta.get("database"):
        lines.append(f"Database: {meta['database']}.")
    lines += ["", "Machine: " + "; ".join(f"{k} {v}" for k, v in meta.get("machine", {}).items()), ""]
    return lines


def render_body(results: dict[str, dict[str, dict]], checks: list[Check], cpu: dict[str, float],
                suffix: str = "") -> list[str]:
    """Runs, group ratios and targets of one set of results (one repetition); `cpu` maps
    "<server>-<scenario>" to the server's CPU seconds; `suffix` goes after each heading."""
    lines = [f"## Runs{suffix}", ""]
    rows = []
    for server in sorted(results, key=lambda s: (s != CALLGATE, s != BASELINE, s)):
        for scenario in ("idle", "ring", "group", "churn"):
            result = results[server].get(scenario)
            if result is None:
                continue
            errors = result.get("errors", {})
            rows.append([server, scenario, fmt(number(result, "config", "sockets")), main_latency(scenario, result),
                         fmt(number(result, "rates", "callsPerSecond")), fmt(number(result, "rates", "deliveriesPerSecond")),
                         fmt(number(result, "server", "bytesPerSocket")), fmt(cpu.get(f"{server}-{scenario}"), 1),
                         fmt(cpu_per_delivery(result, cpu.get(f"{server}-{scenario}")), 1),
                         ", ".join(f"{k} {v}" for k, v in sorted(errors.items())) or "0"])
    lines += table(["server", "scenario", "sockets", "p50 / p99 (ms)", "calls/s", "deliveries/s", "bytes/socket",
                    "server CPU (s)", "CPU µs/delivery", "errors"], rows)
    lines += ["", "p50 / p99 is ring latency for `ring` and fan-out completion for `group`. Server CPU is user + system",
              "time of the server process over the whole run, connects included (generator and server share 2 cores);",
              "CPU µs/delivery divides it by the deliveries of the run.", ""]

    lines += [f"## Group fan-out: CallGate / peer{suffix}", ""]
    ratio_rows = group_ratios(results, cpu)
    if ratio_rows:
        def digits(quantity: str) -> int:
            return 2 if "(ms)" in quantity else 1 if "(µs)" in quantity else 0
        rows = [[r.peer, r.quantity, fmt(r.callgate, digits(r.quantity)), fmt(r.other, digits(r.quantity)),
                 fmt(r.value, 2) + "x", f"{r.better} is better",
                 {True: "yes", False: "no", None: "n/a"}[r.ahead]] for r in ratio_rows]
        lines += table(["peer", "quantity", "CallGate", "peer", "ratio", "direction", "CallGate ahead"], rows)
    else:
        lines.append("No peer ran the group scenario.")
    lines += ["", f"## Targets{suffix}", ""]
    lines += table(["target", "measured", "result"], [[c.target, c.measured, f"**{c.status}**"] for c in checks])
    lines.append("")
    return lines


def render_summary(meta: dict, results: dict[str, dict[str, dict]], checks: list[Check]) -> str:
    """The Markdown that docs/benchmarks.md includes: runs, group ratios, targets."""
    return "\n".join(render_header(meta) + render_body(results, checks, meta.get("serverCpuSeconds", {})))


# ------------------------------------------------------------------ two builds: current / baseline

# What `--baseline` compares, per scenario, when the generator (or the bench) reported it:
# (quantity, which direction is better, digits, how to read it from a result and the CPU seconds).
COMPARED = (
    ("deliveries/s", "higher", 0, lambda r, cpu: number(r, "rates", "deliveriesPerSecond")),
    ("calls/s", "higher", 0, lambda r, cpu: number(r, "rates", "callsPerSecond")),
    ("fan-out p50 (ms)", "lower", 2, lambda r, cpu: metric(r, "fanout", "p50")),
    ("fan-out p99 (ms)", "lower", 2, lambda r, cpu: metric(r, "fanout", "p99")),
    ("ring p50 (ms)", "lower", 2, lambda r, cpu: metric(r, "ring", "p50")),
    ("ring p99 (ms)", "lower", 2, lambda r, cpu: metric(r, "ring", "p99")),
    ("connect p50, first 1,000 (ms)", "lower", 2, lambda r, cpu: metric(r, "connect_first", "p50")),
    ("connect p50, last 1,000 (ms)", "lower", 2, lambda r, cpu: metric(r, "connect_last", "p50")),
    ("server CPU (s)", "lower", 2, lambda r, cpu: cpu),
    ("bytes/socket", "lower", 0, lambda r, cpu: number(r, "server", "bytesPerSocket")),
)


@dataclass(frozen=True)
class BuildRatio:
    """The current build's number divided by the baseline build's, for one scenario, repetition
    and quantity."""

    scenario: str
    rep: int
    quantity: str
    current: float | None
    baseline: float | None
    better: str  # "higher" or "lower"
    digits: int = 0

    @property
    def value(self) -> float | None:
        if self.current is None or self.baseline is None or self.baseline == 0:
            return None
        return self.current / self.baseline


def cpu_of_rep(cpu: dict[str, float], rep_dir: str) -> dict[str, float]:
    """The "<server>-<scenario>" -> CPU seconds of one repetition, from meta's serverCpuSeconds,
    whose keys are the result files' stems relative to the results folder ("rep2/callgate-group",
    or "callgate-group" when there is one repetition and so no rep folder)."""
    prefix = f"{rep_dir}/" if rep_dir else ""
    return {k[len(prefix):]: v for k, v in cpu.items() if k.startswith(prefix) and "/" not in k[len(prefix):]}


def build_ratios(reps: list[dict[str, dict[str, dict]]], cpus: list[dict[str, float]]) -> list[BuildRatio]:
    """current / baseline for every scenario both builds ran, in each repetition (1-based), for
    each COMPARED quantity that at least one of the two reported (not both zero: idle has no rates)."""
    rows = []
    scenarios = ("idle", "ring", "group", "churn")
    for scenario in scenarios:
        for rep, (results, cpu) in enumerate(zip(reps, cpus), 1):
            ours, theirs = results.get(CALLGATE, {}).get(scenario), results.get(BASELINE, {}).get(scenario)
            if ours is None and theirs is None:
                continue
            for quantity, better, digits, read in COMPARED:
                current = read(ours, cpu.get(f"{CALLGATE}-{scenario}")) if ours is not None else None
                baseline = read(theirs, cpu.get(f"{BASELINE}-{scenario}")) if theirs is not None else None
                if not current and not baseline:  # None or 0 on both sides: the scenario does not measure it
                    continue
                rows.append(BuildRatio(scenario, rep, quantity, current, baseline, better, digits))
    return rows


def verdict(current: list[float], baseline: list[float], better: str) -> str:
    """Whether the current build differs from the baseline by more than the run-to-run noise:
    the change is the ratio of the means, the noise the larger max/min spread of either build's
    own repetitions. A heuristic for a handful of repetitions, not a statistical test."""
    if len(current) < 2 or len(baseline) < 2:
        return "n/a (needs --repeat 2 or more)"
    if min(current) <= 0 or min(baseline) <= 0:
        return "n/a"
    change = (sum(current) / len(current)) / (sum(baseline) / len(baseline))
    noise = max(max(current) / min(current), max(baseline) / min(baseline)) - 1
    if abs(change - 1) <= noise:
        return "within noise"
    improved = change > 1 if better == "higher" else change < 1
    return f"{'better' if improved else 'worse'} beyond noise"


def spread(values: list[float]) -> float | None:
    """max / min of one build's repetitions (1.00 = identical)."""
    if len(values) < 2 or min(values) <= 0:
        return None
    return max(values) / min(values)


def render_comparison(rows: list[BuildRatio], binaries: dict[str, str] | None = None) -> list[str]:
    """The summary's "Current / baseline" section: one row per scenario, repetition and quantity,
    then (with repetitions) each quantity's ratio of means against both builds' own spread."""
    lines = ["## Current / baseline", ""]
    for label, text in (binaries or {}).items():
        lines.append(f"- `{label}`: {text}")
    if binaries:
        lines.append("")
    if not rows:
        return lines + ["No scenario ran against both builds.", ""]
    lines += table(["scenario", "rep", "quantity", "current", "baseline", "current / baseline", "better"],
                   [[r.scenario, str(r.rep), r.quantity, fmt(r.current, r.digits), fmt(r.baseline, r.digits),
                     fmt(r.value, 3) + ("x" if r.value is not None else ""), r.better] for r in rows])
    lines += ["", "Runs alternate current and baseline (A B A B ...) with the same generator, plan and flags; a",
              "flag goes to a build only when its `serve --help` lists it.", ""]
    if max(r.rep for r in rows) < 2:
        return lines
    lines += ["### Against run-to-run noise", ""]
    grouped: dict[tuple[str, str], list[BuildRatio]] = {}
    for r in rows:
        grouped.setdefault((r.scenario, r.quantity), []).append(r)
    out = []
    for (scenario, quantity), rs in grouped.items():
        current = [r.current for r in rs if r.current is not None]
        baseline = [r.baseline for r in rs if r.baseline is not None]
        mean = None
        if current and baseline and sum(baseline) > 0:
            mean = (sum(current) / len(current)) / (sum(baseline) / len(baseline))
        out.append([scenario, quantity, " / ".join(fmt(v, rs[0].digits) for v in current),
                    " / ".join(fmt(v, rs[0].digits) for v in baseline),
                    fmt(mean, 3) + ("x" if mean is not None else ""),
                    fmt(spread(current), 3) + ("x" if spread(current) is not None else ""),
                    fmt(spread(baseline), 3) + ("x" if spread(baseline) is not None else ""),
                    verdict(current, baseline, rs[0].better)])
    lines += table(["scenario", "quantity", "current (each rep)", "baseline (each rep)", "ratio of means",
                    "current max/min", "baseline max/min", "verdict"], out)
    lines += ["", "Within noise: the ratio of the means is closer to 1 than the larger of the two builds' own",
              "max/min spread. A heuristic for a few repetitions, not a significance test.", ""]
    return lines


# ------------------------------------------------------------------ the store, from /metrics

COMMIT_SECONDS = "callgate_store_write_seconds"  # one observation per committed batch
BATCH_SIZE = "callgate_store_batch_size"  # writes per committed batch: its _sum counts the writes
WRITE_FAILURES = "callgate_store_write_failures_total"  # failed attempts to commit a batch
FRAMES_SENT = "callgate_frames_sent_total"  # every frame written to a client socket
PUSHES_DELIVERED = "callgate_pushes_delivered_total"  # pushes handed to sockets, by event
SAMPLE = re.compile(r'^(?P<name>[A-Za-z_:][\w:]*)(?:\{(?P<labels>(?:[^"}]|"(?:[^"\\]|\\.)*")*)\})?\s+(?P<value>\S+)')
LABEL = re.compile(r'(?P<name>\w+)="(?P<value>(?:[^"\\]|\\.)*)"')
COMMIT_QUANTILES = (("commitMeanMs", "mean"), ("commitP50Ms", "p50"), ("commitP99Ms", "p99"))


@dataclass(frozen=True)
class Histogram:
    """A Prometheus histogram: (upper bound, cumulative count) per bucket, ascending with +Inf
    last, and the sum and count of its observations."""

    buckets: tuple[tuple[float, float], ...]
    sum: float
    count: float

    def since(self, earlier: Histogram | None) -> Histogram:
        """What was observed after `earlier`, the same histogram scraped before (None: nothing was)."""
        if earlier is None:
            return self
        before = dict(earlier.buckets)
        return Histogram(tuple((bound, n - before.get(bound, 0.0)) for bound, n in self.buckets),
                         self.sum - earlier.sum, self.count - earlier.count)


def parse_samples(text: str) -> dict[str, list[tuple[dict[str, str], float]]]:
    """The samples of a Prometheus text exposition by series name, each (labels, value) in the
    order written; comments, blank and unreadable lines are skipped."""
    samples: dict[str, list[tuple[dict[str, str], float]]] = {}
    for line in text.splitlines():
        match = SAMPLE.match(line.strip())
        if match is None:
            continue
        try:
            value = float(match["value"])
        except ValueError:
            continue
        labels = {m["name"]: m["value"] for m in LABEL.finditer(match["labels"] or "")}
        samples.setdefault(match["name"], []).append((labels, value))
    return samples


def histogram(samples: dict[str, list[tuple[dict[str, str], float]]], name: str) -> Histogram | None:
    """The histogram `name` of parse_samples' output (its first series: the store's have no
    labels but `le`), or None when the exposition lacks its buckets, sum or count."""
    buckets = sorted((float(labels["le"]), value) for labels, value in samples.get(f"{name}_bucket", []) if "le" in labels)
    sums, counts = samples.get(f"{name}_sum"), samples.get(f"{name}_count")
    if not buckets or not math.isinf(buckets[-1][0]) or not sums or not counts:
        return None
    return Histogram(tuple(buckets), sums[0][1], counts[0][1])


def counter(samples: dict[str, list[tuple[dict[str, str], float]]], name: str) -> float:
    """The value of the counter `name` (its first series), 0 when the exposition lacks it."""
    return samples[name][0][1] if samples.get(name) else 0.0


def quantile(q: float, h: Histogram | None) -> float | None:
    """The q-quantile (0 < q <= 1) estimated as Prometheus' histogram_quantile does: linear
    interpolation inside the bucket holding the rank, the first bucket starting at 0; a rank in
    the +Inf bucket gives the largest finite bound (a lower bound of the truth). None for an
    empty histogram or one with only the +Inf bucket."""
    if h is None or len(h.buckets) < 2 or h.buckets[-1][1] <= 0:
        return None
    rank = q * h.buckets[-1][1]  # the +Inf bucket's count is the total
    lower, below = 0.0, 0.0
    for bound, cumulative in h.buckets:
        if cumulative >= rank:
            if math.isinf(bound):
                return lower
            return lower + (bound - lower) * (rank - below) / (cumulative - below)
        lower, below = bound, cumulative


def store_numbers(before: str, after: str, seconds: float) -> dict | None:
    """What the store committed between two scrapes of a server's /metrics, `seconds` of load
    apart: batches, writes, writes per second, commit time per batch (mean, p50, p99 in ms) and
    failed commit attempts; None when `after` has no store metrics (a build without them). An
    empty `before` counts from zero, as a freshly started server does."""
    early, late = parse_samples(before), parse_samples(after)
    commits, sizes = histogram(late, COMMIT_SECONDS), histogram(late, BATCH_SIZE)
    if commits is None or sizes is None:
        return None
    commits = commits.since(histogram(early, COMMIT_SECONDS))
    sizes = sizes.since(histogram(early, BATCH_SIZE))
    failures = counter(late, WRITE_FAILURES) - counter(early, WRITE_FAILURES)

    def ms(value: float | None) -> float | None:
        return None if value is None else round(value * 1000, 3)

    return {
        "batches": int(commits.count), "writes": int(sizes.sum), "failures": int(failures),
        "seconds": round(seconds, 3), "writesPerSecond": round(sizes.sum / seconds, 1) if seconds > 0 else None,
        "commitMeanMs": ms(commits.sum / commits.count) if commits.count else None,
        "commitP50Ms": ms(quantile(0.5, commits)), "commitP99Ms": ms(quantile(0.99, commits)),
        "commitBuckets": {("+Inf" if math.isinf(bound) else f"{bound:g}"): int(n) for bound, n in commits.buckets},
    }


def frame_numbers(after: str) -> dict | None:
    """The frames a server sent since it started, and the pushes among them by event (those of
    none left out), from a scrape of its /metrics; None when it has no frame metric."""
    samples = parse_samples(after)
    if not samples.get(FRAMES_SENT):
        return None
    pushes = {labels.get("event", ""): int(value) for labels, value in samples.get(PUSHES_DELIVERED, []) if value > 0}
    return {"frames": int(counter(samples, FRAMES_SENT)), "pushes": dict(sorted(pushes.items()))}


def load_seconds(result: dict | None, wall: float) -> tuple[float, str]:
    """The seconds of load behind a run's store numbers and where they come from: the
    generator's scenario phase when its JSON has it, else `wall`, the time between the scrapes."""
    scenario = number(result, "durations", "scenarioSeconds")
    return (scenario, "generator") if scenario else (wall, "scrapes")


# ------------------------------------------------------------------ threads

THREAD_ROLES = ("service", "writer", "webhooks", "other")
# The names CallGate's threads give themselves (ThreadName in Sources/LWS), by role.
THREAD_NAMES = {"lws-server": "service", "cg-store-writer": "writer", "cg-webhooks": "webhooks"}


def thread_split(threads: list[tuple[int, str, float]], pid: int, peer: bool,
                 total: float) -> dict[str, float | None] | None:
    """CPU seconds per role of a server's threads, given as (tid, name, seconds), of `total` for
    the whole process: CallGate's by the names its threads give themselves; a peer's main thread
    as its service thread (a peer has no writer or dispatcher: None). Other is the rest of the
    total, so it counts threads that ended before they were read (Swift concurrency's pool lets
    idle threads go). None for a CallGate build whose threads have no names (from before they
    named themselves): its service thread cannot be told apart."""
    named = any(name in THREAD_NAMES for _, name, _ in threads)
    if not named and not peer:
        return None
    split = dict.fromkeys(THREAD_ROLES, 0.0)
    for tid, name, seconds in threads:
        role = THREAD_NAMES.get(name) if named else ("service" if tid == pid else None)
        if role:
            split[role] += seconds
    split["other"] = max(0.0, total - sum(split.values()))
    return {role: None if peer and role in ("writer", "webhooks") else round(seconds, 2)
            for role, seconds in split.items()}


def threads_of_rep(threads: dict[str, dict[str, float] | None], rep_dir: str) -> dict[str, dict[str, float]]:
    """The thread splits of one repetition, keyed "<server>-<scenario>" (see cpu_of_rep)."""
    prefix = f"{rep_dir}/" if rep_dir else ""
    return {k[len(prefix):]: v for k, v in threads.items()
            if v is not None and k.startswith(prefix) and "/" not in k[len(prefix):]}


def render_threads(results: dict[str, dict[str, dict]], threads: dict[str, dict[str, float]],
                   suffix: str = "", frames: dict[str, dict[str, dict]] | None = None) -> list[str]:
    """The summary's per-thread CPU table of one repetition: seconds per role over the whole run
    and, for a run with deliveries, microseconds per delivery; with the run's `frames`
    (frames[server][scenario], frame_numbers), frames sent per delivery and the service
    thread's microseconds per frame; nothing when no run was split."""
    rows = []
    for key, split in sorted(threads.items(), key=lambda kv: (not kv[0].startswith(CALLGATE), kv[0])):
        server, _, scenario = key.rpartition("-")
        result = results.get(server, {}).get(scenario)
        per = [fmt(cpu_per_delivery(result, split[role]), 1) for role in ("service", "writer")]
        sent = ((frames or {}).get(server, {}).get(scenario) or {}).get("frames")
        deliveries = number(result, "counts", "deliveries")
        per_frame = [fmt(sent / deliveries if sent and deliveries else None, 3),
                     fmt(split["service"] * 1e6 / sent if sent and split["service"] is not None else None, 2)]
        rows.append([server, scenario] + [fmt(split[role], 2) for role in THREAD_ROLES] + per + per_frame)
    if not rows:
        return []
    lines = [f"## CPU per thread{suffix}", ""]
    lines += table(["server", "scenario", "service (s)", "call-log writer (s)", "webhooks (s)", "other (s)",
                    "service µs/delivery", "writer µs/delivery", "frames/delivery", "service µs/frame"], rows)
    lines += ["", "Each thread's user + system seconds over the whole run, read from /proc/PID/task before the server",
              "stops: CallGate's by the names its threads give themselves (`lws-server`, `cg-store-writer`,",
              "`cg-webhooks`), a peer's main thread as its service thread; other is the rest of the process's",
              "seconds, threads that already ended included. Frames are every frame a CallGate build sent over the",
              f"whole run (`{FRAMES_SENT}` after the generator ended: replies, and pushes of every event, the",
              "missed-call counts included), so µs/frame tells a dearer frame from more frames.", ""]
    return lines


def perf_split(report: str) -> dict[str, dict[str, float]]:
    """Per thread name, the share of all samples in the kernel and in user space, from
    `perf report --stdio --sort comm,dso` text."""
    shares: dict[str, dict[str, float]] = {}
    for line in report.splitlines():
        match = re.match(r"^\s*(\d+(?:\.\d+)?)%\s+(\S+)\s+(\S.*?)\s*$", line)
        if not match:
            continue
        percent, comm, dso = float(match[1]), match[2], match[3]
        side = "kernel" if dso.startswith("[kernel") else "user"
        shares.setdefault(comm, {"kernel": 0.0, "user": 0.0})[side] += percent
    return {comm: {side: round(v, 2) for side, v in split.items()} for comm, split in shares.items()}


def render_profiles(profiles: dict[str, dict[str, dict[str, float]]], suffix: str = "") -> list[str]:
    """The service thread's kernel / user split of each profiled run ("<server>-<scenario>" ->
    perf_split), as shares of the thread's own samples; nothing without a profile."""
    rows = []
    for key, split in sorted(profiles.items()):
        service = split.get("lws-server")
        if not service:
            continue
        total = service["kernel"] + service["user"]
        rows.append([key, fmt(total, 1) + "%", fmt(service["kernel"] / total * 100, 1) + "%",
                     fmt(service["user"] / total * 100, 1) + "%"])
    if not rows:
        return []
    lines = [f"## Service thread profile{suffix}", ""]
    lines += table(["run", "service thread's share of samples", "kernel", "user space"], rows)
    lines += ["", "From `--profile perf` (`perf report --sort comm,dso`): the kernel is loopback TCP and epoll, paid by",
              "every server alike; user space is CallGate's own work, libwebsockets included.", ""]
    return lines


def load_profiles(directory: Path) -> dict[str, dict[str, dict[str, float]]]:
    """profiles["<server>-<scenario>"] from DIR/<server>-<scenario>.perf-threads.json files."""
    return {path.name.removesuffix(".perf-threads.json"): json.loads(path.read_text(encoding="utf-8"))
            for path in sorted(directory.glob("*.perf-threads.json"))}


def load_runs(directory: Path, suffix: str) -> dict[str, dict[str, dict]]:
    """found[server][scenario] from DIR/<server>-<scenario><suffix> JSON files."""
    found: dict[str, dict[str, dict]] = {}
    for path in sorted(directory.glob(f"*{suffix}")):
        server, sep, scenario = path.name.removesuffix(suffix).rpartition("-")
        if sep:
            found.setdefault(server, {})[scenario] = json.loads(path.read_text(encoding="utf-8"))
    return found


def load_stores(directory: Path) -> dict[str, dict[str, dict]]:
    """stores[server][scenario] from DIR/<server>-<scenario>.store.json files."""
    return load_runs(directory, ".store.json")


def load_frames(directory: Path) -> dict[str, dict[str, dict]]:
    """frames[server][scenario] from DIR/<server>-<scenario>.frames.json files."""
    return load_runs(directory, ".frames.json")


def render_store(reps: list[dict[str, dict[str, dict]]]) -> list[str]:
    """The summary's "Store" section: per scenario and repetition (1-based), what each CallGate
    build's store committed, then a current / baseline row where both ran; nothing when no run
    has store numbers."""
    if not any(reps):
        return []

    def ratio(ours: dict, theirs: dict, key: str) -> str:
        a, b = ours.get(key), theirs.get(key)
        return "n/a" if a is None or not b else f"{a / b:.2f}x"

    rows = []
    for scenario in ("idle", "ring", "group", "churn"):
        for rep, stores in enumerate(reps, 1):
            ran = [(server, stores[server][scenario]) for server in (CALLGATE, BASELINE)
                   if scenario in stores.get(server, {})]
            for server, s in ran:
                rows.append([scenario, str(rep), server, s.get("store", "n/a"), fmt(s.get("batches")),
                             fmt(s.get("writes")), fmt(s.get("writesPerSecond")),
                             " / ".join(fmt(s.get(key), 2) for key, _ in COMMIT_QUANTILES), fmt(s.get("failures"))])
            if len(ran) == 2:
                ours, theirs = ran[0][1], ran[1][1]
                rows.append([scenario, str(rep), "current / baseline", "",
                             *(ratio(ours, theirs, key) for key in ("batches", "writes", "writesPerSecond")),
                             " / ".join(ratio(ours, theirs, key) for key, _ in COMMIT_QUANTILES), ""])
    lines = ["## Store", ""]
    lines += table(["scenario", "rep", "server", "store", "batches", "writes", "writes/s",
                    "commit mean / p50 / p99 (ms)", "failures"], rows)
    lines += ["", "From the server's `/metrics` just before the generator starts and just after it ends (so setup writes,",
              "such as the group scenario's groups, count too): batches committed, writes committed",
              f"(`{BATCH_SIZE}_sum`), writes/s over the generator's scenario seconds, commit time per batch",
              f"(`{COMMIT_SECONDS}`: p50 / p99 interpolated in its buckets as Prometheus' histogram_quantile does; a",
              "quantile past the last bucket shows that bound, 2,500 ms) and failed commit attempts.", ""]
    return lines
