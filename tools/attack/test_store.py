"""A store outage while clients keep calling: another process holds the SQLite write lock (what a
`sqlite3` shell left in a transaction, or a long backup, does).

Expected: the op whose write waits is not answered (nothing tells of a call before it is durable);
once --max-queued-writes writes wait, every op that writes the call log gets ERR_STORE_UNAVAILABLE
and changes nothing, while pings keep their latency and /readyz says 503; when the lock goes, the
waiting op is answered, the same ops work again and the bystanders ring as before.
"""

from __future__ import annotations

import sqlite3
import time

from raw_ws import http_request


def test_store_outage_refuses_writes_and_recovers(start_gateway, bystanders):
    gateway = start_gateway("--max-queued-writes", "1")
    pair = bystanders(gateway)
    eve = gateway.client("eve")
    mallory = gateway.client("mallory")
    ring = {"receiverId": "zed", "receiverType": "user", "callType": "audio"}

    lock = sqlite3.connect(gateway.directory / "calls.sqlite", timeout=10, isolation_level=None)
    lock.execute("BEGIN IMMEDIATE")
    try:
        waiting = eve.send("initiateCall", ring)  # its write now waits behind the lock, and so does its reply
        # Once the gateway took eve's op, its write is the one waiting (/readyz says so).
        deadline = time.monotonic() + 5
        while http_request(gateway.port, "GET", "/readyz").status != 503 and time.monotonic() < deadline:
            time.sleep(0.02)
        codes = {mallory.error("initiateCall", ring) for _ in range(20)}
        assert codes == {"ERR_STORE_UNAVAILABLE"}, codes
        assert pair.alice.latency() < 0.25
        assert http_request(gateway.port, "GET", "/readyz").status == 503
    finally:
        lock.execute("ROLLBACK")
        lock.close()

    deadline = time.monotonic() + 20
    while http_request(gateway.port, "GET", "/readyz").status != 200 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert http_request(gateway.port, "GET", "/readyz").status == 200
    assert eve.reply(waiting)["result"]["callStatus"] == "initiated", "answered once its write is durable"
    # With a budget of one waiting write, an op right behind another op's write is refused by
    # design ("try again shortly"): the cancel that follows the bystanders' ring may come before
    # the ring's write committed, so each op is tried again until its write is taken.
    assert gateway.running(), gateway.obituary()
    assert pair.alice.latency() < 0.25
    call = until_taken(pair.alice, "initiateCall", {"receiverId": "bob", "receiverType": "user", "callType": "audio"})
    pair.bob.push("onIncomingCallReceived", lambda data: data["call"]["sessionId"] == call["sessionId"])
    until_taken(pair.alice, "rejectCall", {"sessionId": call["sessionId"], "status": "cancelled"})


def until_taken(client, op: str, data: dict) -> dict:
    """The result of `op`, asked again while the store refuses it for a write still waiting."""
    deadline = time.monotonic() + 5
    while True:
        reply = client.request(op, data)
        if "result" in reply:
            return reply["result"]
        assert reply["error"]["code"] == "ERR_STORE_UNAVAILABLE" and time.monotonic() < deadline, reply
        time.sleep(0.02)
