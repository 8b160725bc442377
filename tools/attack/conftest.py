"""Fixtures of the attack tests: real `callgate serve` processes and a pair of bystanders.

Every test attacks a real gateway executable ($CALLGATE_BIN, else .build/debug/callgate) on
127.0.0.1, then asks two bystanders, Alice and Bob, connected before the attack, whether the
process still serves everyone else: it is still running, Alice's ping round trip is not grossly
slower than before the attack, and Alice can still ring Bob.

Run with `python3 -m pytest -q tools/attack` from the repository root after `swift build`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gateway_process import Gateway, gateway_binary

# The attacks send bursts of requests; the message rate limit is tested on a gateway of its own.
SHARED_FLAGS = ("--max-messages-per-second", "0")
SLOWDOWN = 10  # how many times the baseline ping round trip a bystander may see after an attack
SLOW_FLOOR = 0.25  # seconds: round trips below this never count as slow (noisy machines)


class Bystanders:
    """Alice and Bob, connected before an attack, with Alice's ping round trip measured."""

    def __init__(self, gateway: Gateway):
        self.gateway = gateway
        self.alice = gateway.client("alice")
        self.bob = gateway.client("bob")
        self.baseline = self.alice.latency()

    def check(self):
        """The gateway still serves them: alive, not grossly slower, and Alice can ring Bob."""
        assert self.gateway.running(), self.gateway.obituary()
        latency = self.alice.latency()
        bound = max(SLOWDOWN * self.baseline, SLOW_FLOOR)
        assert latency < bound, (f"ping round trip {latency * 1000:.1f} ms after the attack, "
                                 f"{self.baseline * 1000:.1f} ms before")
        call = self.alice.result("initiateCall", {"receiverId": "bob", "receiverType": "user", "callType": "audio"})
        session = call["sessionId"]
        self.bob.push("onIncomingCallReceived", lambda data: data["call"]["sessionId"] == session)
        self.alice.result("rejectCall", {"sessionId": session, "status": "cancelled"})

    def close(self):
        self.alice.close()
        self.bob.close()


@pytest.fixture(scope="session")
def binary() -> Path:
    if not gateway_binary().exists():
        pytest.skip(f"{gateway_binary()} is missing: build it first (swift build)")
    return gateway_binary()


@pytest.fixture(scope="module")
def shared_gateway(binary, tmp_path_factory):
    server = Gateway(tmp_path_factory.mktemp("gateway"), *SHARED_FLAGS)
    yield server
    server.stop()


@pytest.fixture
def gateway(shared_gateway) -> Gateway:
    """The module's gateway, started again when an earlier test killed it: a crash fails the test
    that caused it, not every test after it."""
    if not shared_gateway.running():
        shared_gateway.stop()
        shared_gateway.start()
    return shared_gateway


@pytest.fixture
def start_gateway(binary, tmp_path):
    """Starts a gateway of the test's own with extra flags (small limits): `start_gateway(*flags)`,
    with `secret=` and `signer=` as `Gateway` takes them."""
    started: list[Gateway] = []

    def start(*flags: str, **options) -> Gateway:
        directory = tmp_path / f"gateway{len(started)}"
        directory.mkdir()
        started.append(Gateway(directory, *flags, **options))
        return started[-1]

    yield start
    for server in started:
        server.stop()


@pytest.fixture
def bystanders():
    """Connects Alice and Bob to a gateway before the attack: `pair = bystanders(gateway)`, then
    `pair.check()` during or after it."""
    pairs: list[Bystanders] = []

    def watch(gateway: Gateway) -> Bystanders:
        pairs.append(Bystanders(gateway))
        return pairs[-1]

    yield watch
    for pair in pairs:
        pair.close()
