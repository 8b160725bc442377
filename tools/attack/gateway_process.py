"""A real `callgate serve` process on a free port, for the tests under tools/ that drive the
executable ($CALLGATE_BIN, relative to the repository root, else .build/debug/callgate)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from pathlib import Path

import raw_ws
from raw_ws import Client

ROOT = Path(__file__).resolve().parents[2]
LISTEN = re.compile(r"listening on ws://(?P<host>[^\s:/]+):(?P<port>\d+)/ws")
SECRET = "attack-test-secret"
ADMIN_KEY = "attack-test-admin"


def gateway_binary() -> Path:
    """The `callgate` executable: $CALLGATE_BIN (relative to the repository root), else the debug build."""
    return ROOT / os.environ.get("CALLGATE_BIN", ".build/debug/callgate")


class Gateway:
    """A real `callgate serve` on a free port with a known JWT secret (or none: `secret=None`, for
    a gateway that verifies with public keys only, whose tokens `signer(uid, ttl, claims)` makes)
    and admin key."""

    def __init__(self, directory: Path, *flags: str, secret: str | None = SECRET, signer=None):
        self.directory = directory
        self.flags = flags
        self.secret = secret
        self.signer = signer
        self.admin_key = ADMIN_KEY
        self.claims: dict = {}  # added to every token of `token`
        self.starts = 0
        self.start()

    def start(self):
        """Starts the process (again, on the same database, after a crash)."""
        self.starts += 1
        self.log_path = self.directory / f"gateway-{self.starts}.log"
        self.log = open(self.log_path, "w")
        self.process = subprocess.Popen(
            [str(gateway_binary()), "serve", "--host", raw_ws.HOST, "--port", "0",
             "--database", str(self.directory / "calls.sqlite"),
             *(["--jwt-secret", self.secret] if self.secret else []),
             "--admin-key", ADMIN_KEY, "--log-level", "warning", "--drain-seconds", "0", *self.flags],
            stdout=self.log, stderr=subprocess.STDOUT, cwd=self.directory)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if listen := LISTEN.search(self.log_path.read_text()):
                self.port = int(listen["port"])
                return
            if not self.running():
                break
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"the gateway did not start:\n{self.log_path.read_text()}")

    def running(self) -> bool:
        return self.process.poll() is None

    def obituary(self) -> str:
        return (f"the gateway exited with status {self.process.returncode}; its log ends:\n"
                f"{self.log_path.read_text()[-3000:]}")

    def token(self, uid: str, ttl: float = 3600, **claims) -> str:
        if self.signer:
            return self.signer(uid, ttl, {**self.claims, **claims})
        return raw_ws.token(self.secret, uid, ttl, **{**self.claims, **claims})

    def client(self, uid: str) -> Client:
        """A socket connected as `uid`."""
        return Client.connect(self.port, self.token(uid))

    def stop(self):
        if self.running():
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()

    def kill(self):
        """SIGKILL: the process dies at once, nothing flushed or closed by it."""
        if self.running():
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()
        self.log.close()
