"""Deeply nested JSON: frames thousands of levels deep, before and after `connect`, and deep
`metadata` in initiateCall (about 600 levels once crashed the process while encoding it).

Expected (hardening contract): a frame nesting arrays or objects deeper than 32 levels gets an
ERR_BAD_REQUEST reply without "id" and its socket stays open; `metadata` deeper than 8 levels
({} is depth 1) gets ERR_BAD_REQUEST with the request's id while 8 levels ring as usual; after
either, Alice and Bob connect again (the connect result lists activeCalls) and read their call
log over HTTP (200). Throughout, the bystanders are served.
"""

from __future__ import annotations

import json

import pytest

from raw_ws import Client, error_code, http_request

def ping_nested(depth: int, request_id: str = "deep") -> str:
    """A ping request nesting `depth` levels: the frame, its data, then arrays."""
    return f'{{"id":"{request_id}","op":"ping","data":{{"a":' + "[" * (depth - 2) + "]" * (depth - 2) + "}}"


def nested(depth: int) -> str:
    """`depth` objects, each inside the one before: {"a":{"a":{}}} is depth 3."""
    return '{"a":' * (depth - 1) + "{}" + "}" * (depth - 1)


FRAMES = {  # each under the 64 KiB message cap
    "arrays": "[" * 30000 + "]" * 30000,
    "objects": nested(10000),
    "mixed": '[{"a":' * 5000 + "0" + "}]" * 5000,
    "unclosed": "[" * 60000,
    "inside a request": ping_nested(20000),
    # a scanner that took the second backslash for escaping the quote would skip the brackets
    "after an escaped backslash": '{"id":"deep","op":"ping","data":{"a":"\\\\","b":' + "[" * 20000 + "]" * 20000 + "}}",
}


def ring_bob(request_id: str, metadata: str) -> str:
    return (f'{{"id":"{request_id}","op":"initiateCall","data":{{"receiverId":"bob","receiverType":"user",'
            f'"callType":"audio","metadata":{metadata}}}}}')


def assert_refused_frame(reply: dict):
    assert "id" not in reply, reply
    assert error_code(reply) == "ERR_BAD_REQUEST", reply


def assert_reconnect_and_read_logs(gateway):
    """Alice and Bob connect again and read their call log over HTTP."""
    for uid in ("alice", "bob"):
        device = gateway.client(uid)
        assert isinstance(device.welcome["activeCalls"], list), device.welcome
        device.close()
        response = http_request(gateway.port, "GET", "/v3.0/calls", f"Authorization: Bearer {gateway.token(uid)}")
        assert response.status == 200, response


def test_frame_depth_limit(gateway, bystanders):
    pair = bystanders(gateway)
    carol = gateway.client("carol")
    carol.ws.send_text(ping_nested(32, "at-limit"))
    assert "result" in carol.reply("at-limit")
    carol.ws.send_text(ping_nested(33, "past-limit"))
    assert_refused_frame(carol.next_reply())
    pair.check()


def test_brackets_inside_strings_are_not_nesting(gateway, bystanders):
    pair = bystanders(gateway)
    carol = gateway.client("carol")
    carol.ws.send_text('{"id":"quoted","op":"ping","data":{"note":"' + "[{" * 20000 + '"}}')
    assert "result" in carol.reply("quoted")
    pair.check()


@pytest.mark.parametrize("frame", FRAMES)
def test_deep_frame_before_connect(gateway, bystanders, frame):
    pair = bystanders(gateway)
    stranger = Client(gateway.port)
    stranger.ws.send_text(FRAMES[frame])
    pair.check()
    assert_refused_frame(stranger.next_reply())
    assert stranger.error("ping") == "ERR_USER_NOT_LOGGED_IN"
    stranger.result("connect", {"token": gateway.token("carol")})


def test_utf16_frame_cannot_hide_its_nesting(gateway, bystanders):
    """Found by the frame fuzzer: in UTF-16BE "\u2261" is the bytes 22 61, a quote to a UTF-8 scan,
    and Foundation decodes UTF-16. 450 levels of it killed a debug build before connect."""
    pair = bystanders(gateway)
    stranger = Client(gateway.port)
    text = '{"id":"\u2261","op":"ping","data":{"x":' + "[" * 450 + "]" * 450 + "}}"
    stranger.ws.send_text(text.encode("utf-16-be"))
    pair.check()
    assert_refused_frame(stranger.next_reply())


@pytest.mark.parametrize("frame", FRAMES)
def test_deep_frame_after_connect(gateway, bystanders, frame):
    pair = bystanders(gateway)
    carol = gateway.client("carol")
    carol.ws.send_text(FRAMES[frame])
    pair.check()
    assert_refused_frame(carol.next_reply())
    carol.result("ping")


def test_metadata_600_levels(gateway, bystanders):
    pair = bystanders(gateway)
    alice = gateway.client("alice")
    alice.ws.send_text(ring_bob("m600", nested(600)))
    pair.check()
    assert_refused_frame(alice.next_reply())  # the frame is deeper than 32 before metadata is looked at
    assert_reconnect_and_read_logs(gateway)


def test_metadata_9_levels(gateway, bystanders):
    pair = bystanders(gateway)
    alice = gateway.client("alice")
    alice.ws.send_text(ring_bob("m9", nested(9)))
    reply = alice.reply("m9")
    assert error_code(reply) == "ERR_BAD_REQUEST", reply
    pair.check()
    assert_reconnect_and_read_logs(gateway)


def test_metadata_8_levels_rings(gateway, bystanders):
    pair = bystanders(gateway)
    alice = gateway.client("alice")
    alice.ws.send_text(ring_bob("m8", nested(8)))
    call = alice.reply("m8")["result"]
    assert call["metadata"] == json.loads(nested(8))
    rung = pair.bob.push("onIncomingCallReceived", lambda data: data["call"]["sessionId"] == call["sessionId"])
    assert rung["call"]["metadata"] == call["metadata"]
    alice.result("rejectCall", {"sessionId": call["sessionId"], "status": "cancelled"})
    pair.check()
    assert_reconnect_and_read_logs(gateway)
    log = http_request(gateway.port, "GET", f"/v3.0/calls/{call['sessionId']}",
                       f"Authorization: Bearer {gateway.token('alice')}")
    assert json.loads(log.body)["data"][0]["metadata"] == call["metadata"]
