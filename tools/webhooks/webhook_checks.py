"""What the webhook tests share besides fixtures: the secret, the gateway and receiver classes, an
endpoint that never answers (`Silent`), and `Hooks`, which reads a receiver's deliveries as the
tests check them.

Every delivery is verified again with the `standardwebhooks` package from PyPI, an implementation
of the specification independent of both the gateway's and the receiver's, and its payload is
checked against proto/schemas/webhook.<type>.json. (A module of its own, not conftest.py: the
tests import it, and pytest loads every folder's conftest.py under the same name.)
"""

from __future__ import annotations

import json
import socket
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

from standardwebhooks.webhooks import Webhook

TOOLS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TOOLS / "attack"))
sys.path.insert(0, str(TOOLS / "webhook-receiver"))
sys.path.insert(0, str(TOOLS))

import proto_check  # noqa: E402
from gateway_process import Gateway, gateway_binary  # noqa: E402
from webhook_receiver import Receiver  # noqa: E402

SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
TERMINAL = {"call.rejected", "call.busy", "call.cancelled", "call.unanswered", "call.ended"}


def admin(gateway, method: str, path: str, body: dict | None = None) -> tuple[int, dict | None]:
    """The admin API's status and JSON answer to `method path` with `body`."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{gateway.port}{path}", method=method,
        data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {gateway.admin_key}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            text = response.read()
            return response.status, json.loads(text) if text else None
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def metric(gateway, line_start: str) -> float | None:
    """The value of the first `/metrics` line starting with `line_start`; None when there is none."""
    with urllib.request.urlopen(f"http://127.0.0.1:{gateway.port}/metrics", timeout=10) as response:
        for line in response.read().decode().splitlines():
            if line.startswith(line_start):
                return float(line.rsplit(" ", 1)[1])
    return None


class Silent:
    """An endpoint that accepts connections and never answers, holding every socket open."""

    def __init__(self):
        self.server = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.server.getsockname()[1]}/hooks"
        self.held: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                connection, _ = self.server.accept()
            except OSError:
                return
            self.held.append(connection)

    def close(self):
        self.server.close()
        for connection in self.held:
            connection.close()


class Hooks:
    """The receiver's deliveries as the tests read them: verified, schema-checked, grouped."""

    def __init__(self, receiver: Receiver):
        self.receiver = receiver
        schemas = proto_check.load_schemas(proto_check.PROTO / "schemas", proto_check.Report())
        self.registry = proto_check.build_registry(schemas)
        self.schemas = schemas

    def check(self, event: dict) -> dict:
        """Verifies `event` with `standardwebhooks` and its payload against its schema."""
        verified = Webhook(SECRET).verify(event["body"], event["headers"])
        assert verified == event["payload"]
        name = f"webhook.{event['type']}"
        assert name in self.schemas, f"no schema for {name}"
        validator = proto_check.validator_for(name, self.schemas, self.registry)
        errors = [error.message for error in validator.iter_errors(event["payload"])]
        assert not errors, f"{name} does not match its schema: {errors}\n{json.dumps(event['payload'])}"
        return event

    def of(self, session: str) -> list[dict]:
        """The deliveries of `session` so far, in arrival order (duplicates kept)."""
        return [self.check(event) for event in self.receiver.events if session_of(event["payload"]) == session]

    def types(self, session: str) -> list[str]:
        """`type uid` for each distinct delivery of `session`, in arrival order."""
        seen, lines = set(), []
        for event in self.of(session):
            if event["id"] in seen:
                continue
            seen.add(event["id"])
            data = event["payload"]["data"]
            who = (data.get("user") or {}).get("uid") or ("by " + data["by"]["uid"] if "by" in data else None)
            lines.append(" ".join(part for part in (event["type"], who) if part))
        return lines

    def wait(self, session: str, count: int, timeout: float = 10) -> list[str]:
        """Waits until `session` has `count` distinct deliveries, then returns their lines."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            lines = self.types(session)
            if len(lines) >= count:
                return lines
            time.sleep(0.02)
        raise AssertionError(f"{session}: expected {count} webhooks, got {self.types(session)}")


def session_of(payload: dict) -> str | None:
    data = payload.get("data", {})
    return (data.get("call") or {}).get("sessionId") or data.get("sessionId")
