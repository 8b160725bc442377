"""The system the fault-injection harness runs and breaks: a throwaway PostgreSQL, a throwaway Redis
whose ACL gives every node a user of its own (so that one node's links can be cut alone), N
`callgate serve` nodes in cluster mode on fixed loopback ports (so that a node restarts where its
clients look for it), and two webhook endpoints in this process: `default` (node 1's
`--webhook-url`, a slow one that now and then answers 503) and a second one set up through node 1's
admin API while the others run; the other nodes are started without `--webhook-url` and must use
both. Every process is a child of this one and stopped with it (throwaway.py).
"""

from __future__ import annotations

import base64
import json
import os
import random
import secrets
import sys
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from throwaway import HOST, REDIS_SERVER, StepFailed, ThrowawayPostgres, free_port, spawn, stop, tail

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT / "tools/webhook-receiver"))
from webhook_receiver import Receiver  # noqa: E402

ACL_TEMPLATE = ROOT / "deploy/redis/callgate.acl"
# How long a node's drain (SIGTERM) spreads the closing of its sockets over.
DRAIN_SECONDS = 2
LOCAL = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: never through an http_proxy


def node_rules(name: str, password: str) -> str:
    """The ACL line of node `name`: the rules of the `callgate` user of deploy/redis/callgate.acl
    (what the project documents for production), under this name and password."""
    for line in ACL_TEMPLATE.read_text().splitlines():
        words = line.split()
        if words[:2] == ["user", "callgate"]:
            rules = [f">{password}" if word.startswith(">") else word for word in words[2:]]
            return " ".join(["user", name] + rules)
    raise StepFailed(f"{ACL_TEMPLATE} has no `user callgate` line")


class RESPError(Exception):
    """Redis answered with an error reply."""


def resp_command(port: int, *arguments: str, timeout: float = 5.0):
    """One command to the Redis on `port` as its `default` user, on a connection of its own; the
    reply as str, int, list or None. Raises RESPError for an error reply, OSError when Redis is
    away."""
    payload = b"*%d\r\n" % len(arguments) + b"".join(
        b"$%d\r\n%s\r\n" % (len(a.encode()), a.encode()) for a in arguments)
    with socket.create_connection((HOST, port), timeout=timeout) as connection:
        connection.sendall(payload)
        reader = connection.makefile("rb")
        return read_reply(reader)


def read_reply(reader):
    line = reader.readline()
    if not line:
        raise OSError("Redis closed the connection")
    kind, rest = line[:1], line[1:-2].decode()
    if kind == b"+":
        return rest
    if kind == b"-":
        raise RESPError(rest)
    if kind == b":":
        return int(rest)
    if kind == b"$":
        length = int(rest)
        return None if length < 0 else reader.read(length + 2)[:-2].decode()
    if kind == b"*":
        count = int(rest)
        return None if count < 0 else [read_reply(reader) for _ in range(count)]
    raise OSError(f"unexpected reply {line!r}")


class Redis:
    """redis-server on a fixed free port with an ACL file: `default` (no password, everything) for
    the harness, and one user per node with the production rules. No persistence: a restart comes
    back empty, but with its users (they are in the file)."""

    def __init__(self, out: Path, users: list[str]):
        self.directory = Path(tempfile.mkdtemp(prefix="callgate-chaos-redis-"))
        self.port = free_port()
        self.log = out / "redis.log"
        self.passwords = {user: secrets.token_hex(16) for user in users}
        self.aclfile = self.directory / "users.acl"
        self.aclfile.write_text("user default on nopass ~* &* +@all\n" + "".join(
            node_rules(user, password) + "\n" for user, password in self.passwords.items()))
        self.server = None
        self.start()

    def start(self) -> None:
        """Starts the server and waits (10 s at most) until it answers PING."""
        self.server = spawn([str(REDIS_SERVER), "--port", str(self.port), "--bind", HOST, "--dir", str(self.directory),
                             "--save", "", "--appendonly", "no", "--protected-mode", "no",
                             "--aclfile", str(self.aclfile)], self.log)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and self.server.poll() is None:
            try:
                if resp_command(self.port, "PING", timeout=1) == "PONG":
                    return
            except (OSError, RESPError):
                pass
            time.sleep(0.05)
        raise StepFailed(f"Redis did not answer within 10 s; log {self.log}:\n{tail(self.log)}")

    def url(self, user: str) -> str:
        return f"redis://{user}:{self.passwords[user]}@{HOST}:{self.port}"

    def command(self, *arguments: str):
        return resp_command(self.port, *arguments)

    def cut(self, user: str) -> None:
        """Cuts every link of `user` and refuses its new ones: its node loses Redis alone."""
        self.command("ACL", "SETUSER", user, "off")
        self.command("CLIENT", "KILL", "USER", user)

    def mend(self, user: str) -> None:
        self.command("ACL", "SETUSER", user, "on")

    def restart_empty(self) -> None:
        """SIGKILL and start again on the same port: every key is gone."""
        stop(self.server, signal.SIGKILL)
        self.start()

    def shut_down(self) -> None:
        if self.server is not None:
            stop(self.server)
        shutil.rmtree(self.directory, ignore_errors=True)


def serve_flags(callgate: str) -> str:
    """`callgate serve --help`: which flags the build takes, so that a build from before a flag
    (the bus secret) runs under the harness too, to show a fix failing before it."""
    return subprocess.run([callgate, "serve", "--help"], capture_output=True, text=True, timeout=60).stdout


class Node:
    """One `callgate serve --cluster` process, `node<k>`, on a port of its own for its whole life."""

    def __init__(self, index: int, callgate: str, redis: Redis, database: str, secrets_: dict[str, str], out: Path,
                 flags: str, webhook_url: str | None):
        self.id = f"node{index}"
        self.port = free_port()
        self.log = out / f"{self.id}.log"
        self.process = None
        self.frozen = False
        self.argv = [
            callgate, "serve", "--host", HOST, "--port", str(self.port), "--cluster", redis.url(self.id),
            "--database", database, "--node-id", self.id, "--jwt-secret", secrets_["jwt"],
            "--admin-key", secrets_["admin"],
            *(["--cluster-secret", secrets_["cluster"]] if "--cluster-secret" in flags else []),
            "--history-seconds", "3600", "--max-calls-per-minute", "1000",
            *(["--webhook-allow-private-networks"] if "--webhook-allow-private-networks" in flags else []),
            *(["--webhook-url", webhook_url, "--webhook-secret", secrets_["webhook"]] if webhook_url else []),
            "--webhook-retry-schedule", "1s", "--webhook-timeout", "3",
            *(["--drain-seconds", str(DRAIN_SECONDS)] if "--drain-seconds" in flags else []),
            "--dead-letter-file", str(out / f"{self.id}.dead-letters.jsonl"),
        ]

    def start(self) -> None:
        self.process = spawn(self.argv, self.log)
        self.frozen = False

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        if self.running:
            stop(self.process, signal.SIGKILL)
        self.frozen = False

    def drain(self) -> None:
        """SIGTERM, as a deploy stops a node: it drains its sockets (1012 spread over
        DRAIN_SECONDS), leaves the cluster so a survivor takes its calls, and exits."""
        if self.running:
            self.thaw()
            stop(self.process, signal.SIGTERM, grace=DRAIN_SECONDS + 15)

    def freeze(self) -> None:
        if self.running:
            os.killpg(self.process.pid, signal.SIGSTOP)
            self.frozen = True

    def thaw(self) -> None:
        if self.running:
            os.killpg(self.process.pid, signal.SIGCONT)
        self.frozen = False

    def ready(self) -> bool:
        try:
            with LOCAL.open(f"http://{HOST}:{self.port}/readyz", timeout=2) as response:
                return response.status == 200
        except (urllib.error.URLError, OSError):
            return False

    def wait_ready(self, seconds: float = 60) -> None:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.ready():
                return
            if not self.running:
                break
            time.sleep(0.1)
        raise StepFailed(f"{self.id} was not ready within {seconds:.0f} s; log {self.log}:\n{tail(self.log)}")

    def stop(self) -> None:
        if self.running:
            self.thaw()
            stop(self.process)


class SlowEndpoint:
    """How the `default` endpoint answers: after 0 to 0.4 s, and 503 one time in 20 (retried)."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)

    def __call__(self, payload: dict, headers: dict) -> int:
        time.sleep(self.rng.uniform(0.0, 0.4))
        return 503 if self.rng.random() < 0.05 else 204


class World:
    """PostgreSQL, Redis, the nodes and the webhook endpoints, started together and stopped together."""

    def __init__(self, callgate: str, nodes: int, out: Path, seed: int = 0):
        self.out = out
        self.secrets = {"jwt": secrets.token_hex(32), "admin": secrets.token_hex(32),
                        "cluster": secrets.token_hex(32), "webhook": "whsec_" + base64.b64encode(os.urandom(32)).decode()}
        self.postgres = self.redis = None
        self.nodes: list[Node] = []
        self.receivers: dict[str, Receiver] = {}
        try:
            self.receivers["default"] = Receiver(self.secrets["webhook"], HOST, respond=SlowEndpoint(seed), keep=None)
            self.postgres = ThrowawayPostgres(out)
            self.database = self.postgres.create_database("callgate")
            self.redis = Redis(out, [f"node{k}" for k in range(1, nodes + 1)])
            flags = serve_flags(callgate)
            # Only node 1 names the `default` endpoint: the others learn of it, and of the one
            # added through node 1's admin API, from the store.
            self.nodes = [Node(k, callgate, self.redis, self.database, self.secrets, out, flags,
                               self.receivers["default"].url if k == 1 else None) for k in range(1, nodes + 1)]
            for node in self.nodes:
                node.start()
            for node in self.nodes:
                node.wait_ready()
            self.add_endpoint(self.nodes[0])
        except BaseException:
            self.shut_down()
            raise

    def add_endpoint(self, node: Node) -> None:
        """Sets up a second endpoint through `node`'s admin API, answering at once, and waits a
        second and a half: every node uses it by then (the store is re-read every second)."""
        receiver = Receiver(self.secrets["webhook"], HOST, keep=None)
        body = json.dumps({"url": receiver.url, "secret": self.secrets["webhook"]}).encode()
        request = urllib.request.Request(
            f"http://{HOST}:{node.port}/v1/webhooks", data=body, method="POST",
            headers={"Authorization": f"Bearer {self.secrets['admin']}", "Content-Type": "application/json"})
        with LOCAL.open(request, timeout=10) as response:
            self.receivers[json.loads(response.read())["id"]] = receiver
        time.sleep(1.5)

    def sql(self, query: str) -> list[list[str]]:
        """Rows of `query` (psql, unaligned, `|`-separated), read as the harness's checker does."""
        output = self.postgres.client("psql", "-X", "-A", "-t", "-F", "\x1f", "-d", "callgate", "-c", query)
        return [line.split("\x1f") for line in output.splitlines() if line]

    def shut_down(self) -> None:
        for node in self.nodes:
            node.stop()
        for receiver in self.receivers.values():
            receiver.close()
        if self.redis is not None:
            self.redis.shut_down()
        if self.postgres is not None:
            self.postgres.shut_down()
