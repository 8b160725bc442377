"""Tests of tools/webhook-receiver/webhook_receiver.py: verify() against signatures computed here,
a round trip through Receiver over real HTTP, and the command line.

Run with `python3 -m pytest -q tools` from the repository root.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from datetime import datetime, timezone
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import webhook_receiver as wr  # noqa: E402

KEY = bytes(range(32))
SECRET = "whsec_" + base64.b64encode(KEY).decode()
OTHER_SECRET = "whsec_" + base64.b64encode(b"\x01" * 32).decode()
NOW = 1_795_000_000
MSG_ID = "msg_01KAB3C4D5E6F7G8H9JKMNPQRS"


def payload(kind: str = "call.ringing", **data) -> dict:
    call = {"sessionId": "s-1", "callStatus": "initiated", "initiator": {"uid": "alice", "name": "Alice"},
            "receiver": {"uid": "bob", "name": "Bob"}}
    return {"data": {"call": call, **data}, "timestamp": "2026-11-23T10:00:00.123Z", "type": kind}


def body_of(value: dict) -> bytes:
    return json.dumps(value, separators=(",", ":"), sort_keys=True).encode()


def signature(key: bytes, msg_id: str, timestamp: int | str, body: bytes) -> str:
    """A `v1,<base64>` entry, computed without the module under test."""
    mac = hmac.new(key, f"{msg_id}.{timestamp}.".encode() + body, hashlib.sha256).digest()
    return "v1," + base64.b64encode(mac).decode()


def headers(body: bytes, key: bytes = KEY, msg_id: str = MSG_ID, timestamp: int = NOW, sig: str | None = None) -> dict:
    return {"webhook-id": msg_id, "webhook-timestamp": str(timestamp),
            "webhook-signature": sig if sig is not None else signature(key, msg_id, timestamp, body)}


BODY = body_of(payload(user={"uid": "bob", "name": "Bob"}, onlineDevices=0))


# --- verify() ---------------------------------------------------------------------------------

def test_valid_signature_returns_payload():
    assert wr.verify(SECRET, headers(BODY), BODY, now=NOW) == json.loads(BODY)


def test_header_names_are_case_insensitive():
    mixed = {"Webhook-Id": MSG_ID, "WEBHOOK-TIMESTAMP": str(NOW),
             "Webhook-Signature": signature(KEY, MSG_ID, NOW, BODY)}
    assert wr.verify(SECRET, mixed, BODY, now=NOW)["type"] == "call.ringing"


def test_secret_without_padding_is_accepted():
    key = b"k" * 25  # base64 ends in "="
    secret = "whsec_" + base64.b64encode(key).decode().rstrip("=")
    assert wr.verify(secret, headers(BODY, key=key), BODY, now=NOW)["type"] == "call.ringing"


def test_tampered_body_is_rejected():
    tampered = BODY.replace(b'"onlineDevices":0', b'"onlineDevices":1')
    assert tampered != BODY
    with pytest.raises(wr.VerificationError, match="no matching signature"):
        wr.verify(SECRET, headers(BODY), tampered, now=NOW)


def test_tampered_id_or_timestamp_is_rejected():
    good = headers(BODY)
    with pytest.raises(wr.VerificationError, match="no matching signature"):
        wr.verify(SECRET, {**good, "webhook-id": "msg_other"}, BODY, now=NOW)
    with pytest.raises(wr.VerificationError, match="no matching signature"):
        wr.verify(SECRET, {**good, "webhook-timestamp": str(NOW + 1)}, BODY, now=NOW)


def test_wrong_secret_is_rejected():
    with pytest.raises(wr.VerificationError, match="no matching signature"):
        wr.verify(OTHER_SECRET, headers(BODY), BODY, now=NOW)


@pytest.mark.parametrize("offset", [-301, 301, -86_400])
def test_timestamp_outside_tolerance_is_rejected(offset):
    sent = NOW + offset
    with pytest.raises(wr.VerificationError, match="stale|future"):
        wr.verify(SECRET, headers(BODY, timestamp=sent), BODY, now=NOW)


@pytest.mark.parametrize("offset", [-300, 0, 300])
def test_timestamp_within_tolerance_passes(offset):
    sent = NOW + offset
    assert wr.verify(SECRET, headers(BODY, timestamp=sent), BODY, now=NOW)


def test_tolerance_is_configurable():
    sent = NOW - 60
    with pytest.raises(wr.VerificationError, match="stale"):
        wr.verify(SECRET, headers(BODY, timestamp=sent), BODY, now=NOW, tolerance=30)


def test_now_defaults_to_the_clock():
    sent = int(time.time())
    assert wr.verify(SECRET, headers(BODY, timestamp=sent), BODY)
    with pytest.raises(wr.VerificationError, match="stale"):
        wr.verify(SECRET, headers(BODY, timestamp=NOW - 10_000_000), BODY)


def test_second_of_several_signatures_matches():
    wrong = signature(b"\x01" * 32, MSG_ID, NOW, BODY)
    right = signature(KEY, MSG_ID, NOW, BODY)
    header = f"{wrong} v2,{base64.b64encode(b'x' * 32).decode()} v1,not-base64!! {right}"
    assert wr.verify(SECRET, headers(BODY, sig=header), BODY, now=NOW)["type"] == "call.ringing"


def test_a_matching_mac_under_another_version_does_not_pass():
    right = signature(KEY, MSG_ID, NOW, BODY).replace("v1,", "v1a,")
    with pytest.raises(wr.VerificationError, match="no v1"):
        wr.verify(SECRET, headers(BODY, sig=right), BODY, now=NOW)


@pytest.mark.parametrize("name", ["webhook-id", "webhook-timestamp", "webhook-signature"])
def test_missing_header_is_rejected(name):
    partial = headers(BODY)
    del partial[name]
    with pytest.raises(wr.VerificationError, match=f"missing header.*{name}"):
        wr.verify(SECRET, partial, BODY, now=NOW)


def test_all_headers_missing_names_them_all():
    with pytest.raises(wr.VerificationError, match="webhook-id, webhook-timestamp, webhook-signature"):
        wr.verify(SECRET, {}, BODY, now=NOW)


@pytest.mark.parametrize("value", ["1795000000.5", "-1", "soon", "１７９５"])
def test_malformed_timestamp_is_rejected(value):
    with pytest.raises(wr.VerificationError, match="not Unix seconds"):
        wr.verify(SECRET, {**headers(BODY), "webhook-timestamp": value}, BODY, now=NOW)


@pytest.mark.parametrize("secret", [
    base64.b64encode(KEY).decode(),   # no prefix
    "whsec_",                         # empty key
    "whsec_not*base64!",              # not base64
    "wh_" + base64.b64encode(KEY).decode(),
])
def test_malformed_secret_is_rejected(secret):
    with pytest.raises(wr.VerificationError, match="bad secret"):
        wr.verify(secret, headers(BODY), BODY, now=NOW)


def test_signed_body_that_is_not_json_is_rejected():
    body = b"not json"
    with pytest.raises(wr.VerificationError, match="not JSON"):
        wr.verify(SECRET, headers(body), body, now=NOW)


def test_sign_helper_matches_the_independent_signature():
    assert wr.sign(SECRET, MSG_ID, NOW, BODY) == signature(KEY, MSG_ID, NOW, BODY)


def test_interoperates_with_the_standardwebhooks_package():
    webhooks = pytest.importorskip("standardwebhooks.webhooks")
    hook = webhooks.Webhook(SECRET)
    sent = datetime.now(timezone.utc).replace(microsecond=0)
    sig = hook.sign(MSG_ID, sent, BODY.decode())
    assert wr.verify(SECRET, headers(BODY, timestamp=int(sent.timestamp()), sig=sig), BODY) == json.loads(BODY)
    # And the other way: the reference verifies what this module signs.
    stamp = int(time.time())
    ours = {"webhook-id": MSG_ID, "webhook-timestamp": str(stamp),
            "webhook-signature": wr.sign(SECRET, MSG_ID, stamp, BODY)}
    assert hook.verify(BODY, ours) == json.loads(BODY)


# --- Describing events ------------------------------------------------------------------------

def test_describe_ringing_offline_hints_a_push():
    line = wr.describe(payload(user={"uid": "bob"}, onlineDevices=0))
    assert "call.ringing" in line and "session=s-1" in line and "user=bob" in line and "onlineDevices=0" in line
    assert line.endswith("-> send a VoIP push to bob")
    assert "push" not in wr.describe(payload(user={"uid": "bob"}, onlineDevices=2))


@pytest.mark.parametrize("kind", sorted(wr.TERMINAL_TYPES))
def test_describe_terminal_events_dismiss_everywhere(kind):
    assert wr.describe(payload(kind, by={"uid": "alice"})).endswith("-> dismiss the ring on every device")


@pytest.mark.parametrize("kind", ["call.accepted", "call.declined", "call.missed"])
def test_describe_per_user_events_dismiss_their_other_devices(kind):
    assert wr.describe(payload(kind, user={"uid": "bob"})).endswith("-> dismiss bob's ring on their other devices")


def test_describe_session_events_use_data_session_id():
    event = {"data": {"sessionId": "meet-7", "user": {"uid": "carol"}}, "type": "session.participant_joined"}
    line = wr.describe(event)
    assert "session=meet-7" in line and "user=carol" in line and "->" not in line


# --- Receiver ---------------------------------------------------------------------------------

def post(url: str, body: bytes, hdrs: dict, timeout: float = 5.0) -> int:
    request = urllib.request.Request(url, data=body, method="POST",
                                     headers={"Content-Type": "application/json", **hdrs})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status
    except urllib.error.HTTPError as error:
        error.close()
        return error.code


def test_receiver_round_trip_scripted_500_and_rejection():
    script = {"second": 500}
    answers = iter(["first", "second", "third"])

    def respond(event_payload: dict, event_headers: dict) -> int:
        assert event_headers["webhook-id"] == MSG_ID
        return script.get(next(answers), 204)

    with wr.Receiver(SECRET, respond=respond) as receiver:
        assert receiver.url.startswith("http://127.0.0.1:") and receiver.url.endswith("/webhooks")
        stamp = int(time.time())
        signed = headers(BODY, timestamp=stamp)

        assert post(receiver.url, BODY, signed) == 204
        assert post(receiver.url, BODY, signed) == 500          # scripted failure
        assert post(receiver.url, BODY, signed) == 204          # the retry, same webhook-id
        bad = {**signed, "webhook-signature": signature(b"\x01" * 32, MSG_ID, stamp, BODY)}
        assert post(receiver.url, BODY, bad) == 400
        assert post(receiver.url.replace("/webhooks", "/elsewhere"), BODY, signed) == 404

        events = receiver.wait_for(lambda evs: len(evs) == 3 and evs, timeout=5)
        assert [e["attempt_status"] for e in events] == [204, 500, 204]
        assert all(e["id"] == MSG_ID and e["type"] == "call.ringing" for e in events)
        assert events[0]["payload"] == json.loads(BODY)
        assert events[0]["headers"]["webhook-timestamp"] == str(stamp)
        assert receiver.unique_ids() == [MSG_ID]
        assert len(receiver.rejected) == 1
        assert "no matching signature" in receiver.rejected[0]["reason"]
        assert receiver.rejected[0]["body"] == BODY


def test_receiver_slow_answer_and_wait_for_timeout():
    release = threading.Event()

    def respond(event_payload: dict, event_headers: dict) -> int:
        release.wait(5)
        return 410

    with wr.Receiver(SECRET, respond=respond) as receiver:
        result: list[int] = []
        sender = threading.Thread(target=lambda: result.append(post(receiver.url, BODY, headers(BODY, timestamp=int(time.time())))))
        sender.start()
        # It is recorded on arrival, before it is answered.
        receiver.wait_for(lambda evs: evs and evs[0]["attempt_status"] is None)
        with pytest.raises(TimeoutError, match="call.ringing"):
            receiver.wait_for(lambda evs: evs[0]["attempt_status"] is not None, timeout=0.2)
        release.set()
        receiver.wait_for(lambda evs: evs[0]["attempt_status"] == 410)
        sender.join(5)
        assert result == [410]


def test_receiver_respond_that_raises_answers_500(capsys):
    def respond(event_payload: dict, event_headers: dict) -> int:
        raise RuntimeError("boom")

    with wr.Receiver(SECRET, respond=respond) as receiver:
        assert post(receiver.url, BODY, headers(BODY, timestamp=int(time.time()))) == 500
        assert receiver.events[0]["attempt_status"] == 500


def test_receiver_refuses_a_bad_secret():
    with pytest.raises(wr.VerificationError, match="bad secret"):
        wr.Receiver("nope")


# --- The events feed (GET /events) -------------------------------------------------------------

def get(url: str, method: str = "GET", timeout: float = 5.0) -> tuple[int, dict, bytes]:
    """(status, headers with lower-case names, body) of a request, errors included."""
    request = urllib.request.Request(url, method=method)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()
    except urllib.error.HTTPError as error:
        with error:
            return error.code, {k.lower(): v for k, v in error.headers.items()}, error.read()


def deliver(receiver, event: dict, msg_id: str) -> int:
    """POSTs `event` to `receiver`, signed now, as `msg_id`."""
    body = body_of(event)
    return post(receiver.url, body, headers(body, msg_id=msg_id, timestamp=int(time.time())))


def in_session(session: str, kind: str = "call.ringing", **data) -> dict:
    event = payload(kind, **data)
    event["data"]["call"]["sessionId"] = session
    return event


def feed(receiver, query: str = "") -> list[dict]:
    status, hdrs, body = get(receiver.url.replace("/webhooks", "/events") + query)
    assert status == 200, body
    assert hdrs["content-type"] == "application/json"
    assert hdrs["access-control-allow-origin"] == "*"
    return json.loads(body)["data"]


def test_feed_lists_verified_events_of_a_session_in_arrival_order():
    with wr.Receiver(SECRET) as receiver:
        assert receiver.feed_url == receiver.url.replace("/webhooks", "/events")
        before = time.time()
        assert deliver(receiver, in_session("s-1", "call.initiated"), "msg_1") == 204
        assert deliver(receiver, in_session("s-2", "call.initiated"), "msg_2") == 204
        assert deliver(receiver, in_session("s-1", user={"uid": "bob"}, onlineDevices=0), "msg_3") == 204
        joined = {"type": "session.participant_joined", "timestamp": "2026-11-23T10:00:02.000Z",
                  "data": {"sessionId": "s-1", "user": {"uid": "bob"}}}  # no data.call: data.sessionId
        assert deliver(receiver, joined, "msg_4") == 204
        bad = body_of(in_session("s-1", "call.ended"))
        assert post(receiver.url, bad, headers(bad, msg_id="msg_5", timestamp=int(time.time()), sig="v1,AAAA")) == 400

        listed = feed(receiver, "?sessionId=s-1")
        assert [(e["id"], e["type"]) for e in listed] == [
            ("msg_1", "call.initiated"), ("msg_3", "call.ringing"), ("msg_4", "session.participant_joined")]
        first = listed[0]
        assert set(first) == {"id", "type", "timestamp", "data", "receivedAt", "status"}
        assert first["timestamp"] == "2026-11-23T10:00:00.123Z"
        assert first["data"] == in_session("s-1", "call.initiated")["data"]
        assert isinstance(first["receivedAt"], float) and before <= first["receivedAt"] <= time.time()
        assert [e["status"] for e in listed] == [204, 204, 204]
        assert listed[1]["data"]["onlineDevices"] == 0

        assert [e["id"] for e in feed(receiver)] == ["msg_1", "msg_2", "msg_3", "msg_4"]  # rejected: not listed
        assert [e["id"] for e in feed(receiver, "?sessionId=s-2")] == ["msg_2"]
        assert feed(receiver, "?sessionId=nope") == []
        assert receiver.feed("s-1") == listed


def test_feed_collapses_retries_into_one_entry_with_the_latest_status():
    answers = iter([500, 503, 204])
    with wr.Receiver(SECRET, respond=lambda p, h: next(answers) if h["webhook-id"] == "msg_r" else 204) as receiver:
        ringing = in_session("s-1", user={"uid": "bob"}, onlineDevices=1)
        assert deliver(receiver, in_session("s-1", "call.initiated"), "msg_i") == 204
        assert deliver(receiver, ringing, "msg_r") == 500
        assert deliver(receiver, ringing, "msg_r") == 503
        status_after_one_retry = feed(receiver)[1]["status"]
        assert deliver(receiver, in_session("s-1", "call.accepted", user={"uid": "bob"}), "msg_a") == 204
        assert deliver(receiver, ringing, "msg_r") == 204   # the last retry, after a later event

        assert status_after_one_retry == 503
        listed = feed(receiver, "?sessionId=s-1")
        # One entry per id, where it first arrived, with the status of its latest attempt.
        assert [(e["id"], e["status"]) for e in listed] == [("msg_i", 204), ("msg_r", 204), ("msg_a", 204)]
        first_attempt = next(e for e in receiver.events if e["id"] == "msg_r")
        assert listed[1]["receivedAt"] == first_attempt["received_at"]
        assert len(receiver.events) == 5  # the library API still keeps every attempt


def test_feed_shows_an_attempt_being_answered_as_null():
    release = threading.Event()
    with wr.Receiver(SECRET, respond=lambda p, h: release.wait(5) and 204) as receiver:
        sender = threading.Thread(target=deliver, args=(receiver, payload(), "msg_slow"))
        sender.start()
        try:
            receiver.wait_for(lambda evs: evs)
            assert [(e["id"], e["status"]) for e in feed(receiver)] == [("msg_slow", None)]
        finally:
            release.set()
            sender.join(5)
        assert feed(receiver)[0]["status"] == 204


def test_feed_limit_keeps_the_newest_entries():
    with wr.Receiver(SECRET) as receiver:
        for n in range(5):
            assert deliver(receiver, payload(), f"msg_{n}") == 204
        assert [e["id"] for e in feed(receiver, "?limit=2")] == ["msg_3", "msg_4"]
        assert [e["id"] for e in feed(receiver, "?limit=1&sessionId=s-1")] == ["msg_4"]
        assert len(feed(receiver, "?limit=500")) == 5
        assert len(feed(receiver)) == 5


def test_feed_default_limit_is_100():
    with wr.Receiver(SECRET) as receiver:
        for n in range(wr.FEED_LIMIT_DEFAULT + 3):
            receiver._arrived({"id": f"msg_{n}", "type": "call.ringing", "payload": payload(), "headers": {},
                               "body": b"", "attempt_status": 204, "received_at": time.time()})
        listed = feed(receiver)
        assert len(listed) == 100 and listed[0]["id"] == "msg_3" and listed[-1]["id"] == "msg_102"


@pytest.mark.parametrize("query, message", [
    ("?limit=0", "limit must be a whole number from 1 to 500"),
    ("?limit=501", "limit must be a whole number from 1 to 500"),
    ("?limit=-1", "limit must be a whole number from 1 to 500"),
    ("?limit=1.5", "limit must be a whole number from 1 to 500"),
    ("?limit=ten", "limit must be a whole number from 1 to 500"),
    ("?limit=", "limit must be a whole number from 1 to 500"),
    ("?limit=%EF%BC%91", "limit must be a whole number from 1 to 500"),  # a full-width digit
    ("?limit=1&limit=2", "limit given 2 times"),
    ("?sessionId=", "sessionId is empty"),
    ("?sessionId=a&sessionId=b", "sessionId given 2 times"),
    ("?session=s-1", "unknown query parameter 'session'"),
    ("?sessionId", "bad query string"),
])
def test_feed_refuses_bad_queries_with_400(query, message):
    with wr.Receiver(SECRET) as receiver:
        status, hdrs, body = get(receiver.feed_url + query)
        assert status == 400
        assert message in body.decode()
        assert hdrs["content-type"].startswith("text/plain")
        assert hdrs["access-control-allow-origin"] == "*"  # the page can read why


def test_feed_answers_the_cors_preflight():
    with wr.Receiver(SECRET) as receiver:
        status, hdrs, body = get(receiver.feed_url + "?sessionId=s-1", method="OPTIONS")
        assert status == 204 and body == b""
        assert hdrs["access-control-allow-origin"] == "*"
        assert "GET" in hdrs["access-control-allow-methods"]
        assert hdrs["access-control-allow-private-network"] == "true"
        assert get(receiver.url, method="OPTIONS")[0] == 404


def test_get_on_the_webhook_path_stays_405_and_elsewhere_404():
    with wr.Receiver(SECRET) as receiver:
        status, hdrs, body = get(receiver.url)
        assert status == 405 and hdrs["allow"] == "POST" and b"POST signed webhooks" in body
        assert "access-control-allow-origin" not in hdrs
        assert get(receiver.url.replace("/webhooks", "/elsewhere"))[0] == 404
        assert post(receiver.feed_url, BODY, headers(BODY, timestamp=int(time.time()))) == 404  # the feed is read-only
        assert receiver.events == []


def test_receiver_refuses_the_feed_path_for_webhooks():
    with pytest.raises(ValueError, match="feed"):
        wr.Receiver(SECRET, path="/events")


# --- Keeping a bounded number of events --------------------------------------------------------

def test_keep_drops_the_oldest_events_and_rejections():
    with wr.Receiver(SECRET, keep=2) as receiver:
        assert receiver.keep == 2
        for n in range(4):
            assert deliver(receiver, payload(), f"msg_{n}") == 204
        assert [e["id"] for e in receiver.events] == ["msg_2", "msg_3"]
        assert receiver.unique_ids() == ["msg_2", "msg_3"]
        assert [e["id"] for e in feed(receiver)] == ["msg_2", "msg_3"]
        receiver.wait_for(lambda evs: [e["id"] for e in evs] == ["msg_2", "msg_3"])
        for n in range(3):
            assert post(receiver.url, BODY, headers(BODY, msg_id=f"bad_{n}", timestamp=int(time.time()),
                                                    sig="v1,AAAA")) == 400
        assert [r["headers"]["webhook-id"] for r in receiver.rejected] == ["bad_1", "bad_2"]
        assert len(receiver.events) == 2  # rejections are bounded on their own


def test_keep_none_keeps_everything():
    with wr.Receiver(SECRET) as receiver:
        assert receiver.keep is None
        for n in range(30):
            receiver._arrived({"id": f"msg_{n}", "type": "call.ringing", "payload": payload(), "headers": {},
                               "body": b"", "attempt_status": 204, "received_at": time.time()})
        assert len(receiver.events) == 30


@pytest.mark.parametrize("keep", [0, -1, 1.5, True, "10"])
def test_keep_must_be_a_positive_whole_number(keep):
    with pytest.raises(ValueError, match="keep"):
        wr.Receiver(SECRET, keep=keep)


# --- Command line -----------------------------------------------------------------------------

def test_cli_prints_events_and_stops_on_ctrl_c():
    env = {**os.environ, "CALLGATE_WEBHOOK_SECRET": SECRET, "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen([sys.executable, str(HERE / "webhook_receiver.py"), "--port", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        banner = process.stderr.readline()
        assert "listening on http://127.0.0.1:" in banner, banner
        url = banner.split("listening on ")[1].split()[0]
        stamp = int(time.time())
        assert post(url, BODY, headers(BODY, timestamp=stamp)) == 204
        line = process.stdout.readline()
        assert "call.ringing" in line and "session=s-1" in line and "user=bob" in line
        assert "-> send a VoIP push to bob" in line
        assert post(url, BODY, headers(BODY, timestamp=stamp, sig="v1,AAAA")) == 400
        assert "rejected (400)" in process.stderr.readline()
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=10) == 0
        assert "Traceback" not in process.stderr.read()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stdout.close()
        process.stderr.close()


def test_cli_without_a_secret_fails():
    env = {k: v for k, v in os.environ.items() if k != "CALLGATE_WEBHOOK_SECRET"}
    result = subprocess.run([sys.executable, str(HERE / "webhook_receiver.py")], capture_output=True, text=True,
                            env=env, timeout=30)
    assert result.returncode == 2 and "--secret" in result.stderr


def test_cli_delay_and_keep_parsing(capsys):
    args = wr.parse_args(["--secret", SECRET])
    assert args.delay == 0 and args.keep == wr.CLI_KEEP_DEFAULT == 1000
    args = wr.parse_args(["--secret", SECRET, "--delay", "0.25", "--keep", "5"])
    assert args.delay == 0.25 and args.keep == 5
    assert wr.parse_args(["--secret", SECRET, "--delay", "0"]).delay == 0


@pytest.mark.parametrize("argv, message", [
    (["--delay", "-1"], "--delay must be a number of seconds, 0 or more"),
    (["--delay", "-0.001"], "--delay must be a number of seconds, 0 or more"),
    (["--delay", "nan"], "--delay must be a number of seconds, 0 or more"),
    (["--delay", "inf"], "--delay must be a number of seconds, 0 or more"),
    (["--delay", "soon"], "invalid float value"),
    (["--keep", "0"], "--keep must be at least 1"),
    (["--keep", "many"], "invalid int value"),
    (["--path", "/events"], "--path cannot be /events"),
    (["--path", "events"], "--path cannot be /events"),
])
def test_cli_refuses_a_bad_delay_keep_or_path(capsys, argv, message):
    with pytest.raises(SystemExit) as exit_info:
        wr.parse_args(["--secret", SECRET, *argv])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_cli_delays_its_answers_and_serves_a_bounded_feed():
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        [sys.executable, str(HERE / "webhook_receiver.py"), "--port", "0", "--secret", SECRET,
         "--delay", "0.4", "--keep", "2", "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        banner = process.stderr.readline()
        url = banner.split("listening on ")[1].split()[0]
        assert f"GET {url.replace('/webhooks', '/events')}" in banner
        for n in range(3):
            body = body_of(payload())
            started = time.monotonic()
            assert post(url, body, headers(body, msg_id=f"msg_{n}", timestamp=int(time.time()))) == 204
            assert time.monotonic() - started >= 0.4
            assert json.loads(process.stdout.readline())["type"] == "call.ringing"
        status, hdrs, answer = get(url.replace("/webhooks", "/events"))
        assert status == 200 and hdrs["access-control-allow-origin"] == "*"
        assert [e["id"] for e in json.loads(answer)["data"]] == ["msg_1", "msg_2"]  # --keep 2
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=10) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        process.stdout.close()
        process.stderr.close()
