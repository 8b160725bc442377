"""The container image (Dockerfile at the repository's root), tested the way it will run, without
Docker (no engine runs here): the binary built with the build stage's own `swift build` line, and
the runtime stage made as a minimal Debian root filesystem by debootstrap and the stage's own
RUN, COPY, USER, ENV, ENTRYPOINT and HEALTHCHECK lines (tools/image_rootfs.py). In it, as the
image's user, the gateway starts, answers /healthz, passes the HEALTHCHECK, rings a call
between two devices connected from outside, and stops cleanly on the STOPSIGNAL, after which the
HEALTHCHECK fails; every library it loads is in the image, and every package the stage installs
is one it loads. Needs root (chroot, mount) and debootstrap, which
`make deps` installs; the first run downloads the packages (about a minute), later ones reuse the
cached root filesystem."""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCKERFILE = ROOT / "Dockerfile"
sys.path.insert(0, str(ROOT / "tools"))
sys.path.insert(0, str(ROOT / "tools" / "attack"))
import dockerfile  # noqa: E402
import image_rootfs  # noqa: E402
import raw_ws  # noqa: E402
from throwaway import free_port, listen_port, spawn, stop  # noqa: E402

SECRET = "image-test-secret"
ADMIN_KEY = "image-test-admin"
# Packages the runtime stage installs that no library of the binary comes from, and why.
NOT_LINKED = {
    "ca-certificates": "the trust store of https webhooks and PostgreSQL's sslmode=verify-full",
    "libwebsockets-evlib-ev": "libwebsockets loads its libev glue at run time (dlopen), so ldd does not list it",
}


def stages() -> tuple[dockerfile.Stage, dockerfile.Stage]:
    found = dockerfile.parse(DOCKERFILE)
    assert len(found) == 2, f"expected a build and a runtime stage, found {[s.image for s in found]}"
    return found[0], found[1]


def apt_packages(stage: dockerfile.Stage) -> list[str]:
    """The packages of the stage's `apt-get install` (options skipped)."""
    for run in stage.all("RUN"):
        for command in run.text.split("&&"):
            words = shlex.split(command)
            if "apt-get" in words and "install" in words:
                return [word for word in words[words.index("install") + 1:] if not word.startswith("-")]
    raise AssertionError(f"the stage FROM {stage.image} has no apt-get install")


def swift_build(stage: dockerfile.Stage) -> list[str]:
    runs = [shlex.split(run.text) for run in stage.all("RUN") if run.text.startswith("swift build")]
    assert len(runs) == 1, "the build stage should have one RUN swift build"
    return runs[0]


def healthcheck_command(stage: dockerfile.Stage) -> list[str]:
    """The HEALTHCHECK's CMD, in exec form (its options before it skipped)."""
    healthcheck = stage.last("HEALTHCHECK")
    assert healthcheck and " CMD [" in f" {healthcheck.text}", "the runtime stage needs an exec-form HEALTHCHECK CMD"
    return dockerfile.Instruction("CMD", healthcheck.text.split("CMD ", 1)[1]).exec_form()


def test_the_dockerfile_builds_with_this_toolchain_and_runs_on_the_same_debian():
    build, runtime = stages()
    version = re.search(r"Swift version (\d+\.\d+(?:\.\d+)?)", subprocess.run(
        ["swift", "--version"], capture_output=True, text=True).stdout)
    assert version, "swift --version printed no version"
    assert build.name and build.image == f"swift:{version[1]}-bookworm", build.image
    assert runtime.image == "debian:bookworm-slim"
    providers = re.findall(r"\.apt\(\[([^\]]*)\]\)", (ROOT / "Package.swift").read_text())
    needed = {name.strip().strip('"') for group in providers for name in group.split(",")} | {"pkg-config"}
    assert needed <= set(apt_packages(build)), needed - set(apt_packages(build))
    assert {"-c", "release", "--static-swift-stdlib", "--product", "callgate"} <= set(swift_build(build))


def test_the_runtime_stage_runs_serve_as_a_user_with_a_volume_and_a_healthcheck():
    _, runtime = stages()
    user = runtime.last("USER")
    assert user and user.text.split(":")[0] not in ("0", "root"), "the image must not run as root"
    assert runtime.last("ENTRYPOINT").exec_form() == ["callgate", "serve"]
    assert healthcheck_command(runtime) == ["callgate", "healthcheck"]
    env = runtime.env()
    assert runtime.last("EXPOSE").text == env["CALLGATE_PORT"]
    volume = runtime.last("VOLUME").text
    assert os.path.dirname(env["CALLGATE_DATABASE"]) == volume == runtime.workdir()


def glob_pattern(glob: str) -> re.Pattern:
    """A .dockerignore pattern as a regular expression: `**/` any folders, `*` and `?` within one name."""
    parts = re.split(r"(\*\*/|\*|\?)", glob)
    wildcards = {"**/": "(?:.*/)?", "*": "[^/]*", "?": "[^/]"}
    return re.compile("".join(wildcards.get(part, re.escape(part)) for part in parts))


def ignored(path: str, patterns: list[str]) -> bool:
    """Whether .dockerignore's `patterns` keep `path` out of the build context: a pattern that
    matches the path or a folder above it decides, a `!` one lets it in, and the last match wins."""
    parts = path.split("/")
    prefixes = ["/".join(parts[:n]) for n in range(1, len(parts) + 1)]
    result = False
    for pattern in patterns:
        if any(glob_pattern(pattern.lstrip("!")).fullmatch(prefix) for prefix in prefixes):
            result = not pattern.startswith("!")
    return result


def test_the_dockerignore_sends_the_package_and_no_build_output():
    patterns = [line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()
                if line.strip() and not line.startswith("#")]
    build, _ = stages()
    for copy in build.all("COPY"):
        _, paths = dockerfile.copy_arguments(copy)
        for source in paths[:-1]:
            assert not ignored(source.rstrip("/"), patterns), f"COPY {source} is not in the build context"
    for kept_out in (".build", ".build/release/callgate", "Package.resolved", ".git",
                     "Sources/callgate-js/node_modules/ws/index.js"):
        assert ignored(kept_out, patterns), f"{kept_out} would be sent to the build"


@dataclass
class Image:
    rootfs: Path
    user: tuple[int, int]
    env: dict[str, str]  # the image's environment for a process of the container
    workdir: str
    log: Path

    def command(self, argv: list[str]) -> list[str]:
        return image_rootfs.in_rootfs(self.rootfs, argv, self.user, self.workdir)

    def run(self, argv: list[str], **env: str) -> subprocess.CompletedProcess:
        """`argv` run in the image as its user, with its environment and `env` on top."""
        return subprocess.run(self.command(argv), env={**self.env, **env}, capture_output=True, text=True, timeout=60)


@pytest.fixture(scope="module")
def image():
    assert os.geteuid() == 0, "the image test needs root (chroot, mount); CI runs as root"
    assert shutil.which("unshare") and shutil.which("chroot"), "util-linux and coreutils are needed"
    build, runtime = stages()
    folder = Path(tempfile.mkdtemp(prefix="callgate-image-"))
    log = folder / "image.log"
    try:
        started = time.monotonic()
        image_rootfs.run_logged(swift_build(build), log, 3600, "the build stage's swift build", cwd=ROOT)
        built = time.monotonic() - started
        rootfs, rootfs_seconds = image_rootfs.instantiate(runtime, build, ROOT, folder / "rootfs", log)
        print(f"image: swift build {built:.0f} s, root filesystem {rootfs_seconds:.0f} s "
              f"({'built' if rootfs_seconds else 'cached'})", flush=True)
        user = image_rootfs.user_ids(rootfs, runtime.last("USER").text)
        home = next(line.split(":")[5] for line in (rootfs / "etc/passwd").read_text().splitlines()
                    if line.split(":")[2] == str(user[0]))
        env = {"PATH": image_rootfs.IMAGE_PATH, "HOME": home, **runtime.env()}
        yield Image(rootfs, user, env, runtime.workdir(), log)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@dataclass
class Running:
    process: subprocess.Popen
    port: int
    log: Path


@pytest.fixture
def gateway(image: Image):
    """The image's ENTRYPOINT and CMD as the container starts them, on loopback at a free port."""
    _, runtime = stages()
    argv = runtime.last("ENTRYPOINT").exec_form() + (runtime.last("CMD").exec_form() if runtime.last("CMD") else [])
    port = free_port()
    log = image.log.with_name("gateway.log")
    env = {**image.env, "CALLGATE_HOST": "127.0.0.1", "CALLGATE_PORT": str(port),
           "CALLGATE_JWT_SECRET": SECRET, "CALLGATE_ADMIN_KEY": ADMIN_KEY}
    process = spawn(image.command(argv), log, env=env)
    try:
        deadline = time.monotonic() + 30
        while listen_port(log.read_text(errors="replace")) != port:
            assert process.poll() is None, f"the gateway exited ({process.returncode}):\n{log.read_text()}"
            assert time.monotonic() < deadline, f"the gateway did not listen within 30 s:\n{log.read_text()}"
            time.sleep(0.1)
        yield Running(process, port, log)
    finally:
        stop(process)


def test_every_library_the_binary_loads_is_in_the_image_and_every_package_is_loaded(image: Image):
    _, runtime = stages()
    plugins = image.run(["dpkg-query", "-L", "libwebsockets-evlib-ev"]).stdout.split()
    objects = ["/usr/local/bin/callgate"] + [path for path in plugins if re.search(r"\.so[.\d]*$", path)]
    assert len(objects) > 1, "libwebsockets-evlib-ev, the libev glue lws loads, is not in the image"
    libraries = set()
    for path in objects:
        ldd = image.run(["ldd", path])
        assert ldd.returncode == 0 and "not found" not in ldd.stdout, f"ldd {path}:\n{ldd.stdout}{ldd.stderr}"
        libraries |= set(re.findall(r"=> (/\S+)", ldd.stdout))
    # By name: dpkg knows a library under /lib or /usr/lib, whichever its package ships (merged /usr).
    owners = image.run(["dpkg-query", "-S", *sorted(f"*/{Path(library).name}" for library in libraries)])
    assert owners.returncode == 0, owners.stderr
    loaded = {line.split(":")[0] for line in owners.stdout.splitlines()}
    unused = set(apt_packages(runtime)) - loaded - set(NOT_LINKED)
    assert not unused, f"the runtime stage installs packages the binary does not load: {sorted(unused)}"


def http_json(port: int, path: str, body: dict | None = None) -> tuple[int, dict]:
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", data=json.dumps(body).encode() if body else None,
        headers={"Authorization": f"Bearer {ADMIN_KEY}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status, json.loads(response.read())


def test_the_gateway_runs_in_the_image_as_its_user_and_rings_a_call(image: Image, gateway: Running):
    status = Path(f"/proc/{gateway.process.pid}/status").read_text()
    assert re.search(rf"^Uid:\s+{image.user[0]}\s", status, re.M), status
    assert http_json(gateway.port, "/healthz") == (200, {"status": "ok"})
    _, runtime = stages()
    checked = image.run(healthcheck_command(runtime), CALLGATE_HOST="127.0.0.1", CALLGATE_PORT=str(gateway.port))
    assert checked.returncode == 0, checked.stdout + checked.stderr
    database = image.rootfs / image.env["CALLGATE_DATABASE"].lstrip("/")
    assert database.exists() and database.stat().st_uid == image.user[0], "the call log is not in the volume"
    tokens = {uid: http_json(gateway.port, "/v1/tokens", {"uid": uid, "ttl": 600})[1]["token"]
              for uid in ("alice", "bob")}
    alice = raw_ws.Client.connect(gateway.port, tokens["alice"])
    bob = raw_ws.Client.connect(gateway.port, tokens["bob"])
    try:
        call = alice.result("initiateCall", {"receiverId": "bob", "receiverType": "user", "callType": "audio"})
        rung = bob.push("onIncomingCallReceived")
        assert call["callStatus"] == "initiated" and rung["call"]["sessionId"] == call["sessionId"]
        assert rung["call"]["initiator"]["uid"] == "alice"
    finally:
        alice.close()
        bob.close()
    stop_signal = runtime.last("STOPSIGNAL")
    stop(gateway.process, signal.Signals[stop_signal.text if stop_signal else "SIGTERM"])  # as `docker stop`
    assert gateway.process.returncode == 0, gateway.log.read_text()[-2000:]
    down = image.run(healthcheck_command(runtime), CALLGATE_HOST="127.0.0.1", CALLGATE_PORT=str(gateway.port))
    assert down.returncode == 1 and "/healthz" in down.stderr, down.stdout + down.stderr
