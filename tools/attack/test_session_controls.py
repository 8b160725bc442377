"""Host controls, session events, holds and invites as an attacker tries them: Mallory, a participant of Alice's
meeting but not its host, mutes and removes others; outsiders act on a meeting they are not in;
hostile uids, event types and event data; a flood of events.

Expected (hardening contract): muteParticipant / removeParticipant by anyone but the host get
ERR_NOT_HOST and change nothing; from a socket not in the session ERR_NOT_PARTICIPANT; a uid that
is not 1..100 bytes of [A-Za-z0-9_.@:-] ERR_BAD_REQUEST; a session event's type is 1..64 such
bytes and its data at most 2048 bytes of compact JSON, 8 levels deep, else ERR_BAD_REQUEST; a user
sends at most --max-session-events per 10 s, holds counted with them (a resume never refused), then
ERR_RATE_LIMITED, and nobody hears the refused ones. A removed user cannot join again. Only a
participant of an answered call invites, 1 to 10 valid uids at a time, and a call grows to
--max-call-members at most (ERR_TOO_MANY_PARTICIPANTS). The gateway keeps serving bystanders
throughout.
"""

from __future__ import annotations

import itertools
import json

import pytest

from raw_ws import Client

ROOMS = itertools.count(1)  # each test its own meeting: a removal outlives the test's sockets


def join(client: Client, session: str) -> dict:
    token = client.result("generateToken", {"sessionId": session})["callToken"]
    return client.result("joinSession", {"callToken": token})["session"]


@pytest.fixture
def meeting(gateway):
    """A meeting of its own: Carol hosts it (she joined first); Dave and Mallory are in it."""
    room = f"meet:attack-{next(ROOMS)}"
    carol, dave, mallory = gateway.client("carol"), gateway.client("dave"), gateway.client("mallory")
    for client in (carol, dave, mallory):
        join(client, room)
    yield room, carol, dave, mallory
    for client in (carol, dave, mallory):
        client.request("leaveSession", {"sessionId": room})  # not the grace period: a user may be in 5
        client.close()


def test_only_the_host_mutes_or_removes(gateway, bystanders, meeting):
    pair = bystanders(gateway)
    ROOM, carol, dave, mallory = meeting
    for op in ("muteParticipant", "removeParticipant"):
        for uid in ("carol", "dave"):
            assert mallory.error(op, {"sessionId": ROOM, "uid": uid}) == "ERR_NOT_HOST"
    session = dave.result("setMuted", {"sessionId": ROOM})["session"]
    assert [p["uid"] for p in session["participants"]] == ["carol", "dave", "mallory"]
    assert not any(p["audioMuted"] for p in session["participants"])
    outsider = gateway.client("oscar")
    for op in ("muteParticipant", "removeParticipant"):
        assert outsider.error(op, {"sessionId": ROOM, "uid": "dave"}) == "ERR_NOT_PARTICIPANT"
    assert outsider.error("sendSessionEvent", {"sessionId": ROOM, "type": "raiseHand"}) == "ERR_NOT_PARTICIPANT"
    outsider.close()
    pair.check()


HOSTILE_UIDS = {
    "combining marks": "d" + "\u0301" * 5000,
    "NUL": "dave\u0000",
    "101 bytes": "d" * 101,
    "empty": "",
    "path": "../dave",
}


@pytest.mark.parametrize("uid", HOSTILE_UIDS.values(), ids=HOSTILE_UIDS)
def test_hostile_uids(gateway, bystanders, meeting, uid):
    pair = bystanders(gateway)
    ROOM, carol, _, _ = meeting
    for op in ("muteParticipant", "removeParticipant"):
        assert carol.error(op, {"sessionId": ROOM, "uid": uid}) == "ERR_BAD_REQUEST"
    for op in ("muteParticipant", "removeParticipant"):
        reply = carol.request(op, {"sessionId": ROOM, "uid": 7})
        assert reply["error"]["code"] == "ERR_BAD_REQUEST"
    pair.check()


def nested(depth: int):
    value = 1
    for _ in range(depth):
        value = [value]
    return value


HOSTILE_EVENTS = {  # name: (type, data)
    "type with combining marks": ("h" + "\u0301" * 5000, None),
    "type of 65 bytes": ("t" * 65, None),
    "type with a space": ("raise hand", None),
    "type with a control character": ("raise\u0007", None),
    "empty type": ("", None),
    "data 9 levels deep": ("t", nested(9)),
    "data of 2049 bytes": ("t", "x" * 2047),
    "data of 5000 combining marks": ("t", "a" + "\u0301" * 5000),
}


@pytest.mark.parametrize("event", HOSTILE_EVENTS.values(), ids=HOSTILE_EVENTS)
def test_hostile_session_events_reach_nobody(gateway, bystanders, meeting, event):
    pair = bystanders(gateway)
    ROOM, carol, dave, mallory = meeting
    kind, data = event
    body = {"sessionId": ROOM, "type": kind} if data is None else {"sessionId": ROOM, "type": kind, "data": data}
    assert mallory.error("sendSessionEvent", body) == "ERR_BAD_REQUEST"
    mallory.result("sendSessionEvent", {"sessionId": ROOM, "type": "marker"})
    assert carol.push("onSessionEvent")["type"] == "marker"
    pair.check()


def test_data_just_inside_the_bounds_is_relayed_unchanged(gateway, meeting):
    ROOM, carol, dave, mallory = meeting
    data = {"deep": nested(6), "text": "\u00e9\u0000\"\\" + "y" * 1900}
    assert len(json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode()) <= 2048
    mallory.result("sendSessionEvent", {"sessionId": ROOM, "type": "x_.@:-" + "9" * 58, "data": data})
    assert dave.push("onSessionEvent")["data"] == data


def test_a_flood_of_events_is_cut_off_and_the_rest_reach_nobody(start_gateway, bystanders):
    gateway = start_gateway("--max-session-events", "5", "--max-messages-per-second", "0")
    pair = bystanders(gateway)
    carol, mallory = gateway.client("carol"), gateway.client("mallory")
    ROOM = "meet:flood"
    join(carol, ROOM)
    join(mallory, ROOM)
    codes = [mallory.request("sendSessionEvent", {"sessionId": ROOM, "type": "spam"}).get("error", {}).get("code")
             for _ in range(200)]
    assert codes[:5] == [None] * 5 and set(codes[5:]) == {"ERR_RATE_LIMITED"}
    for _ in range(5):
        carol.push("onSessionEvent")
    with pytest.raises(TimeoutError):
        carol.push("onSessionEvent", timeout=0.5)
    pair.check()


def test_holding_is_for_participants_and_a_toggling_loop_is_cut_off(start_gateway, bystanders):
    gateway = start_gateway("--max-session-events", "6", "--max-messages-per-second", "0")
    pair = bystanders(gateway)
    carol, mallory, oscar = gateway.client("carol"), gateway.client("mallory"), gateway.client("oscar")
    room = "meet:hold"
    join(carol, room)
    join(mallory, room)
    assert oscar.error("holdCall", {"sessionId": room}) == "ERR_NOT_PARTICIPANT"
    assert mallory.request("holdCall", {"sessionId": ["x"]})["error"]["code"] == "ERR_BAD_REQUEST"
    codes = [mallory.request("holdCall" if index % 2 == 0 else "resumeCall", {"sessionId": room})
             .get("error", {}).get("code") for index in range(100)]
    # Six holds pass, each resumed; past the budget every hold is refused, so every resume finds
    # no hold to end.
    assert codes[:12] == [None] * 12, codes
    assert set(codes[12::2]) == {"ERR_RATE_LIMITED"} and set(codes[13::2]) == {"ERR_BAD_REQUEST"}, codes
    for _ in range(6):
        carol.push("onCallHeld")
        carol.push("onCallResumed")
    with pytest.raises(TimeoutError):
        carol.push("onCallHeld", timeout=0.5)
    pair.check()


def test_a_removed_user_cannot_come_back(gateway, bystanders, meeting):
    pair = bystanders(gateway)
    ROOM, carol, dave, mallory = meeting
    carol.result("removeParticipant", {"sessionId": ROOM, "uid": "mallory"})
    assert mallory.push("onRemovedFromCall")["by"]["uid"] == "carol"
    token = mallory.result("generateToken", {"sessionId": ROOM})["callToken"]
    assert mallory.error("joinSession", {"callToken": token}) == "ERR_NOT_PARTICIPANT"
    assert mallory.error("sendSessionEvent", {"sessionId": ROOM, "type": "back"}) == "ERR_NOT_PARTICIPANT"
    second = gateway.client("mallory")
    assert second.error("joinSession", {"callToken": token}) == "ERR_NOT_PARTICIPANT"
    second.close()
    pair.check()


def test_invites_are_for_participants_and_bounded(start_gateway, bystanders):
    gateway = start_gateway("--max-call-members", "4", "--max-messages-per-second", "0")
    pair = bystanders(gateway)
    carol, dave, mallory = gateway.client("carol"), gateway.client("dave"), gateway.client("mallory")
    session = carol.result("initiateCall", {"receiverId": "dave", "receiverType": "user", "callType": "audio"})["sessionId"]
    assert carol.error("inviteToCall", {"sessionId": session, "receiverIds": ["x"]}) == "ERR_BAD_REQUEST"  # still rings
    dave.result("acceptCall", {"sessionId": session})
    assert mallory.error("inviteToCall", {"sessionId": session, "receiverIds": ["mallory2"]}) == "ERR_NOT_PARTICIPANT"
    for bad in ([], ["u"] * 11, ["x" * 101], ["a\u0301" * 50], [7], "carol", None, ["carol"]):
        reply = carol.request("inviteToCall", {"sessionId": session, "receiverIds": bad})
        assert reply["error"]["code"] == "ERR_BAD_REQUEST", (bad, reply)
    assert carol.result("inviteToCall", {"sessionId": session, "receiverIds": ["m1", "m1", "m2"]})["rung"] == ["m1", "m2"]
    assert carol.error("inviteToCall", {"sessionId": session, "receiverIds": ["m3"]}) == "ERR_TOO_MANY_PARTICIPANTS"
    pair.check()
