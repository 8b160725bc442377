"""The admin API's call control as an attacker tries it: without the key, with hostile session
ids, uids, reasons, initiators and query values, with bodies nested deep or oversized, and with a
burst of rings for one initiator at once.

Expected (hardening contract): every /v1/calls and /v1/users route without the admin key gets 401
and changes nothing; a session id that is not 1..128 bytes of [A-Za-z0-9._:-], a uid that is not
1..100 bytes of [A-Za-z0-9_.@:-], a reason that is empty, over 256 UTF-8 bytes or holds a control
character, a status other than ringing or ongoing, a page outside 1..1000000 or a perPage outside
1..100 get 400 ERR_BAD_REQUEST; a body over 64 KiB gets 413; a body nested past the JSON depth
limit gets 400; of concurrent rings on behalf of one initiator exactly one is 201 and the others
are 409 ERROR_CALL_IN_PROGRESS. Nothing reaches a device from a refused request, and the gateway
keeps serving bystanders throughout.
"""

from __future__ import annotations

import json
import threading

import pytest

from raw_ws import http_request


def admin(gateway, method: str, path: str, body: object | None = None, key: str | None = "admin"):
    """One admin request: the key given (the gateway's when "admin", none when None)."""
    headers = []
    if key is not None:
        headers.append(f"Authorization: Bearer {gateway.admin_key if key == 'admin' else key}")
    raw = b""
    if body is not None:
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        headers.append("Content-Type: application/json")
    return http_request(gateway.port, method, path, *headers, body=raw)


def ring_body(initiator: object, receiver: str = "bob") -> dict:
    return {"initiator": initiator, "receiverId": receiver, "receiverType": "user", "callType": "audio"}


ROUTES = [
    ("POST", "/v1/calls"), ("GET", "/v1/calls"), ("POST", "/v1/calls/v1.x/end"),
    ("POST", "/v1/calls/v1.x/participants/bob/mute"), ("DELETE", "/v1/calls/v1.x/participants/bob"),
    ("GET", "/v1/users/bob/presence"),
]
HOSTILE_IDS = ["../../etc/passwd", "a%20b", "%00", "%C3%A9", "x" * 200, "a%2Fb", "%E2%80%AE", "a;b"]
HOSTILE_INITIATORS = [
    "", "a b", "x" * 101, 5, None, [], {"uid": "door", "name": ""}, {"uid": "door", "avatar": "x" * 3000},
    {"name": "no uid"}, {"uid": "door", "name": "bad\u0000name"},
]
HOSTILE_REASONS = ["", "x" * 257, "line\nbreak", "tab\there", "\u0007", 7, ["r"]]
HOSTILE_QUERIES = [
    "status=ended", "status=", "page=0", "page=-1", "page=99999999999999999999", "page=1000001", "perPage=0",
    "perPage=101", "perPage=1e2", "page=1.5",
]


def test_call_control_needs_the_admin_key(gateway, bystanders):
    pair = bystanders(gateway)
    for method, path in ROUTES:
        for key in (None, "wrong", ""):
            body = ring_body("mallory") if method == "POST" else None
            response = admin(gateway, method, path, body, key=key)
            assert response.status == 401, (method, path, key, response)
            assert response.error_code() == "ERR_UNAUTHORIZED", response
    with pytest.raises(TimeoutError):
        pair.bob.push("onIncomingCallReceived", timeout=0.3)
    pair.check()


def test_hostile_path_values_are_400(gateway, bystanders):
    pair = bystanders(gateway)
    for hostile in HOSTILE_IDS:
        for method, path in [
            ("POST", f"/v1/calls/{hostile}/end"),
            ("POST", f"/v1/calls/v1.x/participants/{hostile}/mute"),
            ("DELETE", f"/v1/calls/{hostile}/participants/bob"),
            ("GET", f"/v1/users/{hostile}/presence"),
        ]:
            response = admin(gateway, method, path)
            assert response.status in (400, 404), (method, path, response)
            assert response.error_code() in ("ERR_BAD_REQUEST", "ERR_NOT_FOUND"), (method, path, response)
    pair.check()


def test_hostile_initiators_are_400_and_ring_nobody(gateway, bystanders):
    pair = bystanders(gateway)
    for initiator in HOSTILE_INITIATORS:
        response = admin(gateway, "POST", "/v1/calls", ring_body(initiator, receiver="bob"))
        assert response.status == 400, (initiator, response)
        assert response.error_code() == "ERR_BAD_REQUEST", response
    with pytest.raises(TimeoutError):
        pair.bob.push("onIncomingCallReceived", timeout=0.3)
    pair.check()


def test_hostile_reasons_are_400_and_end_nothing(gateway, bystanders):
    pair = bystanders(gateway)
    call = pair.alice.result("initiateCall", {"receiverId": "bob", "receiverType": "user", "callType": "audio"})
    session = call["sessionId"]
    pair.bob.push("onIncomingCallReceived", lambda data: data["call"]["sessionId"] == session)
    for reason in HOSTILE_REASONS:
        response = admin(gateway, "POST", f"/v1/calls/{session}/end", {"reason": reason})
        assert response.status == 400, (reason, response)
    live = json.loads(admin(gateway, "GET", "/v1/calls?status=ringing&perPage=100").body)["data"]
    assert session in [c["sessionId"] for c in live], "a refused end leaves the call ringing"
    pair.alice.result("rejectCall", {"sessionId": session, "status": "cancelled"})
    pair.check()


def test_hostile_queries_are_400(gateway, bystanders):
    pair = bystanders(gateway)
    for query in HOSTILE_QUERIES:
        response = admin(gateway, "GET", f"/v1/calls?{query}")
        assert response.status == 400, (query, response)
        assert response.error_code() == "ERR_BAD_REQUEST", response
    pair.check()


def test_oversized_and_deep_bodies_are_refused(gateway, bystanders):
    pair = bystanders(gateway)
    huge = admin(gateway, "POST", "/v1/calls", b'{"initiator":"' + b"x" * 70_000 + b'"}')
    assert huge.status == 413, huge
    deep = b'{"initiator":"door","receiverId":"bob","receiverType":"user","callType":"audio","metadata":' \
        + b'{"a":' * 200 + b"1" + b"}" * 200 + b"}"
    assert admin(gateway, "POST", "/v1/calls", deep).status == 400
    assert admin(gateway, "POST", "/v1/calls/v1.x/end", b"{" * 5000).status == 400
    pair.check()


def test_concurrent_rings_for_one_initiator_start_one_call(gateway, bystanders):
    pair = bystanders(gateway)
    statuses: list[int] = []
    lock = threading.Lock()

    def ring(callee: str):
        response = admin(gateway, "POST", "/v1/calls", ring_body("trent", receiver=callee))
        with lock:
            statuses.append(response.status)

    threads = [threading.Thread(target=ring, args=(f"victim{i}",)) for i in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [201] + [409] * 19, statuses
    live = json.loads(admin(gateway, "GET", "/v1/calls?status=ringing&perPage=100").body)["data"]
    trents = [c for c in live if c["initiator"]["uid"] == "trent"]
    assert len(trents) == 1, trents
    assert admin(gateway, "POST", f"/v1/calls/{trents[0]['sessionId']}/end").status == 200
    pair.check()


def test_ending_and_removing_from_calls_that_are_not_there(gateway, bystanders):
    pair = bystanders(gateway)
    for path in ["/v1/calls/v1.nosuch/end", "/v1/calls/meet:nosuch/participants/bob/mute"]:
        response = admin(gateway, "POST", path)
        assert response.status == 404 and response.error_code() == "ERR_NOT_FOUND", (path, response)
    response = admin(gateway, "DELETE", "/v1/calls/v1.nosuch/participants/bob")
    assert response.status == 404, response
    pair.check()
