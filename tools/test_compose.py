"""deploy/compose/compose.yaml checked as far as it can be without Docker (no engine runs here):
the services a cluster needs, each with an image or a build of the repository's Dockerfile; the
three gateway nodes sharing every setting but their node id; every CALLGATE_* variable one the
executable reads; every wait on a service one for a healthcheck it has;
the files it mounts present; nginx's upstream and the nodes' trusted proxy at the addresses the
services hold; the nginx configuration passing `nginx -t` with callgate.conf's locations line for
line; and .env.example naming every secret the file takes."""

from __future__ import annotations

import ipaddress
import re
import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import yaml

ROOT = Path(__file__).resolve().parent.parent
COMPOSE = ROOT / "deploy" / "compose"
NGINX = COMPOSE / "nginx.conf"
sys.path.insert(0, str(ROOT / "tools"))
import dockerfile  # noqa: E402

GATEWAYS = ("gw1", "gw2", "gw3")
NODE_ID = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")  # docs/cluster.md


def interpolated() -> dict:
    """compose.yaml as Compose reads it, each `${VAR...}` given a hex value (as .env.example asks
    for) and `$$` unescaped."""
    text = re.sub(r"\$\{([A-Z_]+)[^}]*\}", lambda match: match[1].lower().encode().hex(),
                  (COMPOSE / "compose.yaml").read_text())
    return yaml.safe_load(text.replace("$$", "$"))


def services() -> dict[str, dict]:
    return interpolated()["services"]


def address(service: dict) -> ipaddress.IPv4Address:
    return ipaddress.ip_address(service["networks"]["callgate"]["ipv4_address"])


def test_every_service_of_the_cluster_has_an_image_or_builds_the_dockerfile():
    found = services()
    assert set(found) == {*GATEWAYS, "redis", "postgres", "nginx"}
    for name, service in found.items():
        assert "image" in service or "build" in service, name
        if "build" in service:
            context = (COMPOSE / service["build"]["context"]).resolve()
            assert context == ROOT and (context / service["build"]["dockerfile"]).is_file(), name


def test_the_three_nodes_share_the_cluster_settings_and_differ_by_node_id():
    found = services()
    environments = [dict(found[name]["environment"]) for name in GATEWAYS]
    ids = [environment.pop("CALLGATE_NODE_ID") for environment in environments]
    assert len(set(ids)) == 3 and all(NODE_ID.match(node) for node in ids), ids
    assert environments[0] == environments[1] == environments[2]
    shared = environments[0]
    redis, database = urlsplit(shared["CALLGATE_CLUSTER"]), urlsplit(shared["CALLGATE_DATABASE"])
    assert redis.scheme == "redis" and redis.hostname == "redis" and redis.username == "callgate"
    assert database.scheme == "postgres" and database.hostname == "postgres"
    assert database.path == "/" + found["postgres"]["environment"]["POSTGRES_DB"]
    assert shared["CALLGATE_CLUSTER_SECRET"] and shared["CALLGATE_JWT_SECRET"] and shared["CALLGATE_ADMIN_KEY"]
    for name in GATEWAYS:
        volume = found[name]["volumes"][0]
        assert volume == f"{name}-data:/var/lib/callgate", f"{name} should keep its own volume: {volume}"
        assert {k: v for k, v in found[name].items() if k not in ("environment", "volumes", "networks")} == {
            k: v for k, v in found["gw1"].items() if k not in ("environment", "volumes", "networks")}


def serve_variables() -> set[str]:
    """Every variable `serve` reads: CALLGATE_ and, in capitals with underscores, the name of each
    setting in its table (Sources/callgate/ServeSetting+All.swift), and CALLGATE_CONFIG."""
    table = (ROOT / "Sources" / "callgate" / "ServeSetting+All.swift").read_text()
    names = re.findall(r'static let \w+ = ServeSetting\(\s*"([a-z0-9-]+)"', table)
    return {"CALLGATE_" + name.upper().replace("-", "_") for name in names} | {"CALLGATE_CONFIG"}


def test_every_callgate_variable_it_sets_is_one_serve_reads():
    known = serve_variables()
    assert {"CALLGATE_CLUSTER", "CALLGATE_CLUSTER_SECRET", "CALLGATE_NODE_ID", "CALLGATE_DATABASE"} <= known, known
    for name in GATEWAYS:
        unknown = set(services()[name]["environment"]) - known
        assert not unknown, f"{name} sets variables serve does not read: {sorted(unknown)}"
    _, runtime = dockerfile.parse(ROOT / "Dockerfile")
    assert set(runtime.env()) <= known, set(runtime.env()) - known


def test_every_wait_is_for_a_healthcheck_the_service_has():
    found = services()
    _, runtime = dockerfile.parse(ROOT / "Dockerfile")
    for name, service in found.items():
        for needed, condition in service.get("depends_on", {}).items():
            assert condition == {"condition": "service_healthy"}, f"{name} -> {needed}: {condition}"
            has_check = "healthcheck" in found[needed] or ("build" in found[needed] and runtime.last("HEALTHCHECK"))
            assert has_check, f"{name} waits for {needed}, which has no healthcheck"
    assert {"redis", "postgres"} <= set(found["gw1"]["depends_on"]) and set(found["nginx"]["depends_on"]) == set(GATEWAYS)


def test_the_files_it_mounts_exist_and_redis_gets_its_password():
    for name, service in services().items():
        for volume in service.get("volumes", []):
            source = volume.split(":")[0]
            if source.startswith("."):
                path = (COMPOSE / source).resolve()
                assert path.exists() or source == "./tls", f"{name} mounts {source}, which does not exist"
    acl = (ROOT / "deploy" / "redis" / "callgate.acl").read_text()
    placeholder = re.search(r'sed "s/(>[^/]+)/', " ".join(services()["redis"]["command"]))
    assert placeholder and placeholder[1] in acl, "the redis command's sed does not match the ACL's password"


def test_the_secrets_it_takes_are_the_ones_env_example_names():
    taken = set(re.findall(r"\$\{([A-Z_]+)", (COMPOSE / "compose.yaml").read_text()))
    named = set(re.findall(r"^#?([A-Z_]+)=", (COMPOSE / ".env.example").read_text(), re.M))
    assert taken == named, f"compose.yaml takes {sorted(taken)}, .env.example names {sorted(named)}"


def test_nginx_and_the_nodes_name_the_addresses_the_services_hold():
    found = services()
    network = ipaddress.ip_network(interpolated()["networks"]["callgate"]["ipam"]["config"][0]["subnet"])
    addresses = [address(service) for service in found.values()]
    assert len(set(addresses)) == len(addresses) and all(a in network for a in addresses)
    _, runtime = dockerfile.parse(ROOT / "Dockerfile")
    port = runtime.env()["CALLGATE_PORT"]
    upstream = re.search(r"upstream callgate \{(.*?)\}", NGINX.read_text(), re.S)[1]
    assert re.findall(r"server (\S+)", upstream) == [f"{address(found[name])}:{port}" for name in GATEWAYS]
    assert found["gw1"]["environment"]["CALLGATE_TRUSTED_PROXY"] == f"{address(found['nginx'])}/32"
    assert "./nginx.conf:/etc/nginx/conf.d/default.conf:ro" in found["nginx"]["volumes"]


def test_the_nginx_configuration_keeps_callgate_conf_locations_and_passes_nginx_t(tmp_path: Path):
    def locations(path: Path) -> str:
        text = path.read_text()
        return text[text.index("    location = /ws {"):]

    assert locations(NGINX) == locations(ROOT / "deploy" / "nginx" / "callgate.conf")
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    assert Path(nginx).exists(), "nginx is not installed: make deps installs it"
    made = subprocess.run([str(ROOT / "tools" / "make-cert.sh"), str(tmp_path)], capture_output=True, text=True)
    assert made.returncode == 0, made.stderr
    (tmp_path / "cert.pem").rename(tmp_path / "fullchain.pem")
    (tmp_path / "key.pem").rename(tmp_path / "privkey.pem")
    (tmp_path / "site.conf").write_text(NGINX.read_text().replace("/etc/nginx/tls/", f"{tmp_path}/"))
    (tmp_path / "nginx.conf").write_text(
        f"pid {tmp_path}/nginx.pid;\nerror_log stderr;\nevents {{}}\n"
        f"http {{\n    include {tmp_path}/site.conf;\n}}\n")
    checked = subprocess.run([nginx, "-t", "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf")],
                             capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0, checked.stderr
