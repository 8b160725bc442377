"""The cluster runs of tools/bench (`--cluster`): what they are, how their output is read, and the
Markdown they make. Pure: the runs themselves are tools/measure-cluster's, started by tools/bench.

Each run is one scenario with one layout: "across" (the generator's sockets alternate between two
nodes, so every ring pair and every group spans both) or "one" (every socket on the first node of
the same two-node cluster). Layouts alternate (across, one, across, one, ...) so that the ratios
compare runs of one moment on one machine.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

ACROSS, ONE = "across", "one"
LAYOUTS = (ACROSS, ONE)

# The target for a ring across nodes at 500 calls/s.
RING_P99_TARGET_MS = 10.0


@dataclass(frozen=True)
class Scenario:
    """One cluster scenario: the generator's scenario and flags, and what one delivery is."""
    name: str
    rate: int
    seconds: int
    flags: tuple[str, ...]
    latency: str       # the metric whose p99 the summary shows
    deliveries: str    # the count that is one delivery (a rung callee, a rung member)


SCENARIOS = (
    Scenario("ring", 500, 15, ("--sockets", "1000"), "ring", "incoming"),
    Scenario("group", 20, 15, ("--sockets", "200", "--group-size", "10"), "delivery", "deliveries"),
)
QUICK = (
    Scenario("ring", 100, 5, ("--sockets", "200"), "ring", "incoming"),
    Scenario("group", 10, 5, ("--sockets", "100", "--group-size", "10"), "delivery", "deliveries"),
)


@dataclass
class Run:
    """What one tools/measure-cluster run reported."""
    scenario: str
    layout: str
    p99: dict[str, float] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    redis: dict[str, int] = field(default_factory=dict)
    redis_bytes_in: int = 0
    commits: int = 0
    cpu_seconds: float = 0.0

    def deliveries(self, scenario: Scenario) -> int:
        return self.counts.get(scenario.deliveries, 0)

    def per_delivery(self, value: float, scenario: Scenario) -> float | None:
        n = self.deliveries(scenario)
        return value / n if n else None


def measure_argv(script: str, callgate: str, generator: str, scenario: Scenario) -> list[str]:
    """The tools/measure-cluster command line of one run (the layout goes in ONE_NODE)."""
    return [script, callgate, generator, scenario.name, str(scenario.rate), str(scenario.seconds), *scenario.flags]


def parse(scenario: str, layout: str, output: str) -> Run:
    """A run from tools/measure-cluster's output, and the generator's JSON in its logs folder."""
    run = Run(scenario, layout)
    for name, calls in re.findall(r"^cmdstat_([a-z|]+):calls=(\d+)", output, re.M):
        run.redis[name] = int(calls)
    if match := re.search(r"^total_net_input_bytes:(\d+)", output, re.M):
        run.redis_bytes_in = int(match.group(1))
    if match := re.search(r"^== PostgreSQL commits: (-?\d+)", output, re.M):
        run.commits = int(match.group(1))
    if match := re.search(r"^== node CPU seconds: (.+)$", output, re.M):
        run.cpu_seconds = sum(float(x) for x in match.group(1).split("+"))
    if match := re.search(r"^logs: (\S+)", output, re.M):
        path = Path(match.group(1)) / "bench.json"
        if path.exists():
            result = json.loads(path.read_text())
            run.p99 = {name: m["p99"] for name, m in result.get("metrics", {}).items()}
            run.counts = result.get("counts", {})
            run.errors = result.get("errors", {})
    return run


def check(runs: list[Run]) -> tuple[str, str]:
    """The target check: every ring run across nodes had a p99 of at most 10 ms, with no errors."""
    ring = [r for r in runs if r.scenario == "ring" and r.layout == ACROSS]
    if not ring:
        return "SKIP", "no ring run across nodes"
    worst = max(r.p99.get("ring", float("inf")) for r in ring)
    errors = sum(sum(r.errors.values()) for r in ring)
    ok = worst <= RING_P99_TARGET_MS and errors == 0
    return ("PASS" if ok else "FAIL"), f"worst ring p99 across nodes {worst:.2f} ms, {errors} errors"


def _cell(values: list[float | None], digits: int, unit: str = "") -> str:
    shown = [f"{v:.{digits}f}{unit}" if v is not None else "-" for v in values]
    return " / ".join(shown) if shown else "-"


def _mean(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return sum(known) / len(known) if known else None


def render(runs: list[Run], scenarios: tuple[Scenario, ...]) -> list[str]:
    """The summary's cluster section: per scenario, each quantity by layout (one value per
    repetition), and the across / one ratio of the means."""
    status, measured = check(runs)
    rate = next((c.rate for c in scenarios if c.name == "ring"), 0)
    lines = ["## Cluster: two nodes on Redis and PostgreSQL", "",
             "Runs of `tools/measure-cluster`, layouts interleaved; each cell lists the repetitions.", "",
             f"Target: ring across nodes (here at {rate} calls/s; the target's rate is 500), p99 <= "
             f"{RING_P99_TARGET_MS:g} ms: **{status}** ({measured})", ""]
    for scenario in scenarios:
        by_layout = {layout: [r for r in runs if r.scenario == scenario.name and r.layout == layout] for layout in LAYOUTS}
        if not any(by_layout.values()):
            continue
        quantities = [
            (f"{scenario.latency} p99 (ms)", lambda r: r.p99.get(scenario.latency), 2),
            ("CPU per delivery, both nodes (ms)", lambda r: r.per_delivery(r.cpu_seconds * 1000, scenario), 3),
            ("Redis PUBLISH per delivery", lambda r: r.per_delivery(r.redis.get("publish", 0), scenario), 2),
            ("Redis scripts per delivery", lambda r: r.per_delivery(r.redis.get("evalsha", 0) + r.redis.get("eval", 0), scenario), 2),
            ("bytes into Redis per delivery", lambda r: r.per_delivery(r.redis_bytes_in, scenario), 0),
            ("PostgreSQL commits per delivery", lambda r: r.per_delivery(r.commits, scenario), 2),
        ]
        lines += [f"### {scenario.name} at {scenario.rate}/s for {scenario.seconds} s ({' '.join(scenario.flags)})", "",
                  "| | across nodes | one node | ratio |", "|---|---|---|---|"]
        for label, value, digits in quantities:
            across = [value(r) for r in by_layout[ACROSS]]
            one = [value(r) for r in by_layout[ONE]]
            a, o = _mean(across), _mean(one)
            ratio = f"{a / o:.2f}" if a is not None and o else "-"
            lines.append(f"| {label} | {_cell(across, digits)} | {_cell(one, digits)} | {ratio} |")
        errors = {layout: sum(sum(r.errors.values()) for r in rs) for layout, rs in by_layout.items()}
        lines += ["", f"Errors: across nodes {errors[ACROSS]}, one node {errors[ONE]}.", ""]
    return lines
