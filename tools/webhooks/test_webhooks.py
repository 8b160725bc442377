"""Webhooks end to end: a real gateway, real sockets, a real receiver verifying signatures."""

from __future__ import annotations

import re
import ssl
import subprocess
import threading
import time

from webhook_checks import SECRET, TERMINAL, TOOLS, Gateway, Hooks, Receiver, admin, session_of

AUDIO = {"receiverType": "user", "callType": "audio"}
MESSAGE_ID = re.compile(r"^msg_[0-9A-HJKMNP-TV-Z]{26}$")


def recorded(gateway, path: str, settled, timeout: float = 10) -> dict:
    """The admin API's answer to GET `path` once `settled(answer)` holds, or after `timeout`: a
    receiver has an event before the gateway has recorded the attempt that carried it."""
    deadline = time.monotonic() + timeout
    while True:
        _, body = admin(gateway, "GET", path)
        if settled(body) or time.monotonic() > deadline:
            return body
        time.sleep(0.05)


def ring(caller, callee_uid: str) -> str:
    return caller.result("initiateCall", {"receiverId": callee_uid, **AUDIO})["sessionId"]


def test_a_call_answered_on_one_device_and_hung_up(start_gateway, hooks):
    gateway = start_gateway()
    alice, bob1, bob2 = gateway.client("alice"), gateway.client("bob"), gateway.client("bob")
    session = ring(alice, "bob")
    bob1.push("onIncomingCallReceived")
    bob2.result("acceptCall", {"sessionId": session})
    assert bob1.push("onIncomingCallCanceled")["reason"] == "answeredElsewhere"
    alice.result("endCall", {"sessionId": session})
    assert hooks.wait(session, 4) == ["call.initiated", "call.ringing bob", "call.accepted bob", "call.ended by alice"]
    events = hooks.of(session)
    assert events[1]["payload"]["data"]["onlineDevices"] == 2
    assert events[3]["payload"]["data"]["reason"] == "hungUp"
    assert all(MESSAGE_ID.match(event["id"]) for event in events)
    assert len({event["id"] for event in events}) == 4


def test_a_callee_without_a_socket_rings_with_no_online_device(start_gateway, hooks):
    gateway = start_gateway()
    alice = gateway.client("alice")
    session = ring(alice, "bob")
    hooks.wait(session, 2)
    ringing = hooks.of(session)[1]["payload"]["data"]
    assert (ringing["user"]["uid"], ringing["onlineDevices"]) == ("bob", 0)
    alice.result("rejectCall", {"sessionId": session, "status": "cancelled"})
    assert hooks.wait(session, 3)[2] == "call.cancelled by alice"


def test_the_caller_hears_a_callee_woken_by_push_until_a_device_confirms(start_gateway, hooks):
    gateway = start_gateway()
    alice = gateway.client("alice")
    call = alice.result("initiateCall", {"receiverId": "bob", **AUDIO})
    progress = alice.push("onOutgoingCallRinging")
    assert (progress["devices"], progress["users"], progress["ringing"], progress["waking"]) == (0, 0, 1, 1)
    hooks.wait(call["sessionId"], 2)
    ringing = hooks.of(call["sessionId"])[1]["payload"]["data"]
    assert ringing["onlineDevices"] == 0
    assert (ringing["call"]["callUUID"], ringing["call"]["ringExpiresAt"]) == (call["callUUID"], call["ringExpiresAt"])
    bob = gateway.client("bob")
    assert [c["callUUID"] for c in bob.welcome["activeCalls"]] == [call["callUUID"]]
    bob.result("confirmRinging", {"sessionId": call["sessionId"]})
    progress = alice.push("onOutgoingCallRinging")
    assert (progress["devices"], progress["users"], progress["ringing"], progress["waking"]) == (1, 1, 1, 0)
    bob.result("acceptCall", {"sessionId": call["sessionId"]})
    assert alice.push("onOutgoingCallAccepted")["call"]["callUUID"] == call["callUUID"]


def test_nobody_is_told_as_woken_while_no_endpoint_wants_call_ringing(start_gateway, hooks):
    gateway = start_gateway()
    assert admin(gateway, "PATCH", "/v1/webhooks/default", {"eventTypes": ["call.ended"]})[0] == 200
    alice = gateway.client("alice")
    first = alice.result("initiateCall", {"receiverId": "bob", **AUDIO})
    try:
        alice.push("onOutgoingCallRinging", timeout=1.0)
        raise AssertionError("the caller was told of a wake-up no endpoint would send")
    except TimeoutError:
        pass
    alice.result("rejectCall", {"sessionId": first["sessionId"], "status": "cancelled"})
    assert admin(gateway, "PATCH", "/v1/webhooks/default", {"eventTypes": None})[0] == 200
    alice.result("initiateCall", {"receiverId": "bob", **AUDIO})
    assert alice.push("onOutgoingCallRinging")["waking"] == 1


def test_busy_and_declines(start_gateway, hooks):
    gateway = start_gateway()
    alice, bob, carol = gateway.client("alice"), gateway.client("bob"), gateway.client("carol")
    first = ring(carol, "bob")
    bob.result("acceptCall", {"sessionId": first})
    busy = ring(alice, "bob")
    assert hooks.wait(busy, 2) == ["call.initiated", "call.busy by bob"]
    carol.result("endCall", {"sessionId": first})
    declined = ring(alice, "bob")
    bob.push("onIncomingCallReceived", lambda data: data["call"]["sessionId"] == declined)
    bob.result("rejectCall", {"sessionId": declined, "status": "rejected"})
    assert hooks.wait(declined, 3) == ["call.initiated", "call.ringing bob", "call.rejected by bob"]


def test_a_group_ring_everyone_declines(start_gateway, hooks):
    gateway = start_gateway()
    status, _ = admin(gateway, "PUT", "/v1/groups/team", {"name": "Team", "members": ["alice", "bob", "carol"]})
    assert status == 200
    alice, bob, carol = gateway.client("alice"), gateway.client("bob"), gateway.client("carol")
    session = alice.result("initiateCall", {"receiverId": "team", "receiverType": "group", "callType": "video"})["sessionId"]
    for member in (bob, carol):
        member.push("onIncomingCallReceived")
        member.result("rejectCall", {"sessionId": session, "status": "rejected"})
    assert hooks.wait(session, 5) == [
        "call.initiated", "call.ringing bob", "call.ringing carol", "call.declined bob", "call.rejected by carol"]


def test_session_joins_leaves_and_recordings(start_gateway, hooks):
    gateway = start_gateway()
    alice, bob = gateway.client("alice"), gateway.client("bob")
    session = ring(alice, "bob")
    bob.result("acceptCall", {"sessionId": session})
    for client in (alice, bob):
        token = client.result("generateToken", {"sessionId": session})["callToken"]
        client.result("joinSession", {"callToken": token})
    alice.result("startRecording", {"sessionId": session})
    bob.result("stopRecording", {"sessionId": session})
    bob.result("leaveSession", {"sessionId": session})
    assert hooks.wait(session, 10) == [
        "call.initiated", "call.ringing bob", "call.accepted bob", "session.participant_joined alice",
        "session.participant_joined bob", "session.recording_started alice", "session.recording_stopped bob",
        "session.participant_left bob", "session.participant_left alice", "call.ended by bob"]
    recording = hooks.of(session)[6]["payload"]["data"]["recording"]
    assert recording["rid"] == f"{session}-r1" and "endedAt" in recording


def test_a_hold_and_a_participant_the_host_removes(start_gateway, hooks):
    gateway = start_gateway()
    alice, bob = gateway.client("alice"), gateway.client("bob")
    session = ring(alice, "bob")
    bob.result("acceptCall", {"sessionId": session})
    for client in (alice, bob):
        token = client.result("generateToken", {"sessionId": session})["callToken"]
        client.result("joinSession", {"callToken": token})
    bob.result("holdCall", {"sessionId": session})
    bob.result("resumeCall", {"sessionId": session})
    alice.result("removeParticipant", {"sessionId": session, "uid": "bob"})
    assert hooks.wait(session, 11) == [
        "call.initiated", "call.ringing bob", "call.accepted bob", "session.participant_joined alice",
        "session.participant_joined bob", "session.call_held bob", "session.call_resumed bob",
        "session.participant_removed bob", "session.participant_left bob", "session.participant_left alice",
        "call.ended by bob"]
    removed = hooks.of(session)[7]["payload"]["data"]
    assert removed["by"]["uid"] == "alice" and removed["user"]["uid"] == "bob"
    assert hooks.of(session)[-1]["payload"]["data"]["reason"] == "removed"


def test_an_invite_into_an_answered_call(start_gateway, hooks):
    gateway = start_gateway()
    alice, bob, carol = gateway.client("alice"), gateway.client("bob"), gateway.client("carol")
    session = ring(alice, "bob")
    bob.result("acceptCall", {"sessionId": session})
    assert bob.result("inviteToCall", {"sessionId": session, "receiverIds": ["carol", "dave"]})["rung"] == ["carol", "dave"]
    carol.result("acceptCall", {"sessionId": session})
    assert hooks.wait(session, 8) == [
        "call.initiated", "call.ringing bob", "call.accepted bob", "call.invited carol", "call.ringing carol",
        "call.invited dave", "call.ringing dave", "call.accepted carol"]
    invited = hooks.of(session)[3]["payload"]["data"]
    assert invited["by"]["uid"] == "bob" and invited["call"]["callStatus"] == "ongoing"
    assert hooks.of(session)[6]["payload"]["data"]["onlineDevices"] == 0


def test_a_500_and_a_timeout_are_retried_with_the_same_id_and_in_order(start_gateway, receiver, hooks):
    answers = {"call.initiated": [500, "slow"]}

    def respond(payload, headers):
        script = answers.get(payload["type"])
        answer = script.pop(0) if script else 204
        if answer == "slow":
            time.sleep(1.5)
            return 204
        return answer

    receiver.respond = respond
    gateway = start_gateway("--webhook-timeout", "0.5")
    alice = gateway.client("alice")
    session = ring(alice, "bob")
    assert hooks.wait(session, 2, timeout=20) == ["call.initiated", "call.ringing bob"]
    events = hooks.of(session)
    initiated = [event for event in events if event["type"] == "call.initiated"]
    assert len(initiated) >= 3 and len({event["id"] for event in initiated}) == 1
    ringing_at = next(i for i, event in enumerate(events) if event["type"] == "call.ringing")
    assert ringing_at > events.index(initiated[2]), "the ring was delivered before the event ahead of it"
    _, deliveries = admin(gateway, "GET", "/v1/webhooks/default/deliveries?limit=10")
    first = next(d for d in deliveries["data"] if d["type"] == "call.initiated")
    assert first["status"] == "delivered"
    assert [attempt.get("statusCode") for attempt in first["attempts"]][:1] == [500]
    assert "error" in first["attempts"][1]


def test_410_disables_the_endpoint(start_gateway, receiver, hooks):
    receiver.respond = lambda payload, headers: 410
    gateway = start_gateway()
    alice = gateway.client("alice")
    session = ring(alice, "bob")
    hooks.wait(session, 1)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        _, endpoint = admin(gateway, "GET", "/v1/webhooks/default")
        if not endpoint["enabled"]:
            break
        time.sleep(0.05)
    assert endpoint["enabled"] is False and "410" in endpoint["disabledReason"]
    time.sleep(1.5)
    assert hooks.types(session) == ["call.initiated"], "deliveries went on to a gone endpoint"


def test_the_admin_api_adds_an_endpoint_with_a_filter_and_redelivers(start_gateway, hooks):
    from webhook_receiver import Receiver

    gateway = start_gateway()
    with Receiver("whsec_" + "QUJDREVGR0hJSktMTU5PUFFSU1RVVldY") as second:
        status, created = admin(gateway, "POST", "/v1/webhooks", {"url": second.url, "eventTypes": ["call.ringing"]})
        assert status == 201 and created["id"].startswith("ep_") and created["secret"].startswith("whsec_")
        second.secret = created["secret"]
        assert admin(gateway, "POST", "/v1/webhooks", {"url": "ftp://x", "eventTypes": ["call.ringing"]})[0] == 400
        assert admin(gateway, "POST", "/v1/webhooks", {"url": second.url, "eventTypes": ["call.nope"]})[0] == 400
        alice = gateway.client("alice")
        session = ring(alice, "bob")
        second.wait_for(lambda events: len(events) >= 1)
        assert [event["type"] for event in second.events] == ["call.ringing"]
        _, listed = admin(gateway, "GET", "/v1/webhooks")
        assert [endpoint["id"] for endpoint in listed["data"]] == ["default", created["id"]]
        assert all("secret" not in endpoint for endpoint in listed["data"])
        deliveries = recorded(gateway, f"/v1/webhooks/{created['id']}/deliveries",
                              lambda body: body["data"][0]["status"] != "pending")
        delivery = deliveries["data"][0]
        assert (delivery["type"], delivery["status"], delivery["sessionId"]) == ("call.ringing", "delivered", session)
        status, body = admin(gateway, "POST", f"/v1/webhooks/{created['id']}/deliveries/{delivery['id']}/redeliver")
        assert status == 202 and body == {"id": delivery["id"], "status": "pending"}
        second.wait_for(lambda events: len(events) >= 2)
        assert second.events[1]["id"] == second.events[0]["id"]
        assert admin(gateway, "DELETE", f"/v1/webhooks/{created['id']}")[0] == 204
        assert admin(gateway, "GET", f"/v1/webhooks/{created['id']}")[0] == 404


def test_sigkill_with_deliveries_pending_loses_none(start_gateway, receiver, hooks):
    down = threading.Event()
    down.set()
    receiver.respond = lambda payload, headers: 503 if down.is_set() else 204
    gateway = start_gateway()
    alice, bob = gateway.client("alice"), gateway.client("bob")
    sessions = []
    for index in range(5):
        session = ring(alice, "bob")
        bob.push("onIncomingCallReceived", lambda data: data["call"]["sessionId"] == session)
        if index % 2:
            bob.result("rejectCall", {"sessionId": session, "status": "rejected"})
        else:
            bob.result("acceptCall", {"sessionId": session})
            alice.result("endCall", {"sessionId": session})
        sessions.append(session)
    last = ring(alice, "bob")
    hooks.wait(last, 1)
    gateway.kill()
    before = {event["id"] for event in receiver.events}
    down.clear()
    restarted = start_gateway(directory=gateway.directory)
    for index, session in enumerate(sessions):
        expected = (["call.initiated", "call.ringing bob", "call.rejected by bob"] if index % 2 else
                    ["call.initiated", "call.ringing bob", "call.accepted bob", "call.ended by alice"])
        assert hooks.wait(session, len(expected), timeout=20) == expected
    # The call left ringing by the crash resumes; its first events were committed before the kill.
    assert hooks.wait(last, 2, timeout=20)[:2] == ["call.initiated", "call.ringing bob"]
    assert before <= {event["id"] for event in receiver.events}
    delivered = [event for event in receiver.events if event["attempt_status"] == 204]
    for session in sessions:
        terminal = {event["id"] for event in delivered if session_of(event["payload"]) == session and event["type"] in TERMINAL}
        assert len(terminal) == 1, f"{session}: {len(terminal)} terminal events"
    backlog = recorded(restarted, "/v1/webhooks/default/deliveries?limit=100", lambda body: all(
        d["status"] != "pending" for d in body["data"] if d["sessionId"] in sessions))
    assert all(d["status"] == "delivered" for d in backlog["data"] if d["sessionId"] in sessions)


def test_an_https_endpoint_is_reached_only_with_a_certificate_the_gateway_trusts(binary, tmp_path, receiver):
    subprocess.run(["bash", str(TOOLS / "make-cert.sh"), str(tmp_path / "tls")], check=True, capture_output=True)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(tmp_path / "tls/cert.pem", tmp_path / "tls/key.pem")
    with Receiver(SECRET, tls=context) as secure:
        hooks = Hooks(secure)
        # AsyncHTTPClient retries a failed handshake until the attempt's timeout: keep it short.
        flags = ("--webhook-allow-private-networks", "--webhook-url", secure.url, "--webhook-secret", SECRET, "--webhook-retry-schedule", "1s",
                 "--webhook-timeout", "1", "--max-messages-per-second", "0")
        started = []
        try:
            # The self-signed certificate is no CA the system trusts: nothing is delivered, and
            # each attempt says why.
            (tmp_path / "untrusted").mkdir()
            started.append(Gateway(tmp_path / "untrusted", *flags))
            refused = ring(started[-1].client("alice"), "bob")
            deadline = time.monotonic() + 20
            attempts = []
            while time.monotonic() < deadline and len(attempts) < 2:
                _, deliveries = admin(started[-1], "GET", "/v1/webhooks/default/deliveries?limit=10")
                attempts = next((d["attempts"] for d in deliveries["data"]
                                 if d["sessionId"] == refused and d["type"] == "call.initiated"), [])
                time.sleep(0.2)
            assert len(attempts) >= 2, "the gateway never tried the https endpoint"
            assert all("statusCode" not in attempt and "certificate" in attempt["error"].lower() for attempt in attempts), attempts
            assert hooks.of(refused) == []

            # Given that certificate as a CA, the same endpoint gets every event.
            (tmp_path / "trusted").mkdir()
            started.append(Gateway(tmp_path / "trusted", *flags, "--webhook-ca-file", str(tmp_path / "tls/cert.pem")))
            session = ring(started[-1].client("alice"), "bob")
            assert hooks.wait(session, 2) == ["call.initiated", "call.ringing bob"]
        finally:
            for gateway in started:
                gateway.stop()
