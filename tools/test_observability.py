"""The operations pack against the real thing: the alert rules pass `promtool check rules`, the
Grafana dashboard is a well-formed dashboard whose every query parses, and Debian's Prometheus,
scraping a live `callgate serve` under load (callgate-bench rings, a webhook endpoint that never
answers), answers every dashboard query and the series part of every alert
expression with data, and evaluates every alert rule without error."""

from __future__ import annotations

import base64
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ALERTS = ROOT / "deploy" / "prometheus" / "callgate-alerts.yml"
DASHBOARD = ROOT / "deploy" / "grafana" / "callgate-dashboard.json"
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "tools" / "attack"))
from gateway_process import Gateway  # noqa: E402
from throwaway import free_port  # noqa: E402

RATE_INTERVAL = "1m"


def require(tool: str) -> str:
    path = shutil.which(tool)
    assert path, f"{tool} is not installed: make deps installs it"
    return path


def dashboard_queries() -> list[tuple[str, str]]:
    """(panel title, PromQL) of every target, with Grafana's `$__rate_interval` filled in."""
    dashboard = json.loads(DASHBOARD.read_text())
    return [(panel["title"], target["expr"].replace("$__rate_interval", RATE_INTERVAL))
            for panel in dashboard["panels"] for target in panel.get("targets", [])]


def alert_rules() -> list[dict]:
    """The alert rules' names and expressions, read from the file's `- alert:` and `expr:` lines
    (promtool, which checks the file, prints no parse of it)."""
    rules, current = [], None
    for line in ALERTS.read_text().splitlines():
        if match := re.match(r"\s+- alert: (\S+)", line):
            current = {"alert": match[1]}
            rules.append(current)
        elif current is not None and (match := re.match(r"\s+expr: (.+)", line)):
            current["expr"] = match[1]
    return rules


def series_part(expr: str) -> str:
    """An alert expression without its threshold: the part that must return data while all is well."""
    expr = expr.split(" and ")[0]
    return re.split(r"\s(?:==|!=|>=|<=|>|<)\s", expr)[0]


def test_the_alert_rules_pass_promtool():
    result = subprocess.run([require("promtool"), "check", "rules", str(ALERTS)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"SUCCESS: {len(alert_rules())} rules found" in result.stdout


def test_the_dashboard_is_well_formed_and_every_query_parses(tmp_path: Path):
    dashboard = json.loads(DASHBOARD.read_text())
    assert dashboard["uid"] == "callgate" and isinstance(dashboard["schemaVersion"], int)
    assert [v["name"] for v in dashboard["templating"]["list"]] == ["datasource"]
    ids = [panel["id"] for panel in dashboard["panels"]]
    assert len(ids) == len(set(ids)), "panel ids repeat"
    for panel in dashboard["panels"]:
        assert panel["type"] in ("row", "timeseries"), panel["title"]
        grid = panel["gridPos"]
        assert 0 <= grid["x"] and grid["x"] + grid["w"] <= 24, panel["title"]
        if panel["type"] == "timeseries":
            assert panel["datasource"]["uid"] == "${datasource}" and panel["targets"], panel["title"]
            assert len({t["refId"] for t in panel["targets"]}) == len(panel["targets"])
    # promtool checks PromQL in rule files: every query becomes a recording rule there.
    rules = {"groups": [{"name": "dashboard", "rules": [
        {"record": f"dashboard:query_{i}", "expr": expr} for i, (_, expr) in enumerate(dashboard_queries())]}]}
    path = tmp_path / "dashboard-rules.yml"
    path.write_text(json.dumps(rules))
    result = subprocess.run([require("promtool"), "check", "rules", str(path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def admin(gateway: Gateway, method: str, path: str, body: dict | None = None) -> dict:
    request = urllib.request.Request(
        f"http://127.0.0.1:{gateway.port}{path}", method=method, data=json.dumps(body).encode() if body else None,
        headers={"Authorization": f"Bearer {gateway.admin_key}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read() or b"{}")


def query(prometheus: int, expr: str) -> list:
    url = f"http://127.0.0.1:{prometheus}/api/v1/query?" + urllib.parse.urlencode({"query": expr})
    with urllib.request.urlopen(url, timeout=10) as response:
        answer = json.loads(response.read())
    assert answer["status"] == "success", answer
    return answer["data"]["result"]


def test_prometheus_answers_every_query_from_a_live_gateway_under_load():
    require("prometheus")
    bench = ROOT / ".build" / "debug" / "callgate-bench"
    assert bench.exists(), f"{bench} is not built"
    with tempfile.TemporaryDirectory() as folder:
        directory = Path(folder)
        dead = free_port()  # a webhook endpoint nobody answers: attempts fail, the backlog grows
        secret = "whsec_" + base64.b64encode(bytes(range(32))).decode()
        gateway = Gateway(directory, "--webhook-url", f"http://127.0.0.1:{dead}/hook", "--webhook-secret", secret,
                          "--webhook-allow-private-networks", "--webhook-timeout", "1")
        prometheus_port = free_port()
        config = directory / "prometheus.yml"
        config.write_text(json.dumps({
            "global": {"scrape_interval": "1s", "evaluation_interval": "1s"},
            "rule_files": [str(ALERTS)],
            "scrape_configs": [{"job_name": "callgate", "static_configs": [{"targets": [f"127.0.0.1:{gateway.port}"]}]}],
        }))
        log = open(directory / "prometheus.log", "w")
        prometheus = subprocess.Popen(
            [require("prometheus"), f"--config.file={config}", f"--storage.tsdb.path={directory / 'tsdb'}",
             f"--web.listen-address=127.0.0.1:{prometheus_port}"], stdout=log, stderr=subprocess.STDOUT)
        try:
            subprocess.run(
                [str(bench), "ring", "--host", "127.0.0.1", "--port", str(gateway.port), "--jwt-secret", gateway.secret,
                 "--admin-key", gateway.admin_key, "--sockets", "200", "--duration", "15", "--rate", "20"],
                check=True, capture_output=True, timeout=120)
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                up = query(prometheus_port, 'count_over_time(up{job="callgate"}[1m])')
                if up and float(up[0]["value"][1]) >= 20:
                    break
                time.sleep(1)
            empty = [title for title, expr in dashboard_queries() if not query(prometheus_port, expr)]
            assert not empty, f"dashboard panels with no data: {empty}"
            silent = [rule["alert"] for rule in alert_rules() if not query(prometheus_port, series_part(rule["expr"]))]
            assert not silent, f"alert expressions whose series have no data: {silent}"
            with urllib.request.urlopen(f"http://127.0.0.1:{prometheus_port}/api/v1/rules", timeout=10) as response:
                groups = json.loads(response.read())["data"]["groups"]
            evaluated = {rule["name"]: rule["health"] for group in groups for rule in group["rules"]}
            assert set(evaluated) == {rule["alert"] for rule in alert_rules()}
            assert all(health == "ok" for health in evaluated.values()), evaluated
        finally:
            prometheus.terminate()
            prometheus.wait(timeout=30)
            log.close()
            gateway.stop()
