"""Fixtures of the webhook tests: a real `callgate serve` posting to a real receiver.

The receiver is tools/webhook-receiver's (an HTTP server in this process, scripted per test);
webhook_checks.py verifies what it takes. Run with `python3 -m pytest -q tools/webhooks` from the
repository root after `swift build`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from webhook_checks import SECRET, Gateway, Hooks, Receiver, gateway_binary  # noqa: E402


@pytest.fixture(scope="session")
def binary() -> Path:
    if not gateway_binary().exists():
        pytest.skip(f"{gateway_binary()} is missing: build it first (swift build)")
    return gateway_binary()


@pytest.fixture
def receiver():
    with Receiver(SECRET) as server:
        yield server


@pytest.fixture
def hooks(receiver) -> Hooks:
    return Hooks(receiver)


@pytest.fixture
def start_gateway(binary, tmp_path, receiver):
    """Starts a gateway posting to the receiver: `start_gateway(*extra_flags)`; `directory=` to
    reuse one (a restart on the same database)."""
    started: list[Gateway] = []

    def start(*flags: str, directory: Path | None = None) -> Gateway:
        if directory is None:
            directory = tmp_path / f"gateway{len(started)}"
            directory.mkdir()
        started.append(Gateway(
            directory, "--webhook-allow-private-networks", "--webhook-url", receiver.url, "--webhook-secret", SECRET, "--webhook-retry-schedule", "1s",
            "--max-messages-per-second", "0", *flags))
        return started[-1]

    yield start
    for server in started:
        server.stop()
