"""Malformed WebSocket framing: invalid UTF-8 in text messages and close reasons, messages cut
into too many fragments, and fragments sent instead of whole messages.

Expected: a text message with invalid UTF-8 closes the socket with 1007, also when the bad
sequence is split across two fragments (a valid character split across fragments is fine); a
close frame whose reason is invalid UTF-8 gets 1007 or 1002; a message of more than 64
fragments closes with 1009 (64 are fine); every frame counts against
--max-messages-per-second, so 200 empty continuation frames close with 4029; fragments do not
count as being heard, so a socket that only sends fragments is dropped by the liveness check.
"""

from __future__ import annotations

import time

import pytest

from raw_ws import CLOSE, CONTINUATION, TEXT, Closed, close_payload, encode


def ping(note: bytes) -> bytes:
    """A ping request with id "p" carrying `note` as raw bytes inside a JSON string."""
    return b'{"id":"p","op":"ping","data":{"note":"' + note + b'"}}'


def split(message: bytes, after: bytes) -> list[bytes]:
    """`message` in two fragments, the first ending with the first occurrence of `after`."""
    cut = message.index(after) + len(after)
    return [message[:cut], message[cut:]]


def send_fragments(ws, parts: list[bytes]):
    for index, part in enumerate(parts):
        ws.send(TEXT if index == 0 else CONTINUATION, part, fin=index == len(parts) - 1)


def in_fragments(count: int) -> list[bytes]:
    """A ping request cut into `count` fragments (JSON whitespace in the middle ones)."""
    return [b'{"id":"p","op":"ping","data":{}'] + [b" "] * (count - 2) + [b"}"]


def flood(ws, frames: list[bytes], batch: int = 10) -> int | None:
    """Sends `frames` a batch at a time, with a short look for an answer after each, and stops
    once the server closes (a sender that went on would have the close frame reset away with the
    data the server never read): the close code, None for a bare TCP close."""
    for start in range(0, len(frames), batch):
        try:
            ws.send_raw(b"".join(frames[start:start + batch]))
        except ConnectionError:
            break
        try:
            return ws.until_closed(0.02)[0]
        except TimeoutError:
            pass
    return ws.until_closed()[0]


INVALID_UTF8 = {
    "single frame": [ping(b"\xff\xfe")],
    # each fragment alone could pass: the first ends inside a character, the second cannot finish it
    "split across fragments": split(ping(b"\xe2\x82("), after=b"\xe2\x82"),
}


@pytest.mark.parametrize("parts", INVALID_UTF8.values(), ids=INVALID_UTF8)
def test_invalid_utf8_closes_1007(gateway, bystanders, parts):
    pair = bystanders(gateway)
    erin = gateway.client("erin")
    send_fragments(erin.ws, parts)
    code, messages = erin.ws.until_closed()
    assert code == 1007, messages
    pair.check()


def test_character_split_across_fragments_is_fine(gateway, bystanders):
    pair = bystanders(gateway)
    erin = gateway.client("erin")
    send_fragments(erin.ws, split(ping("€".encode()), after=b"\xe2\x82"))
    assert "result" in erin.reply("p")
    pair.check()


def test_invalid_utf8_close_reason(gateway, bystanders):
    pair = bystanders(gateway)
    erin = gateway.client("erin")
    erin.ws.send(CLOSE, close_payload(1000, b"bye \xff\xfe"))
    code, _ = erin.ws.until_closed()
    assert code in (1007, 1002)
    pair.check()


def test_64_fragments_are_fine(gateway, bystanders):
    pair = bystanders(gateway)
    erin = gateway.client("erin")
    send_fragments(erin.ws, in_fragments(64))
    assert "result" in erin.reply("p")
    pair.check()


def test_65_fragments_close_1009(gateway, bystanders):
    pair = bystanders(gateway)
    erin = gateway.client("erin")
    send_fragments(erin.ws, in_fragments(65))
    code, messages = erin.ws.until_closed()
    assert code == 1009, messages
    pair.check()


def test_empty_continuation_flood_closes_4029(start_gateway, bystanders):
    gateway = start_gateway("--max-messages-per-second", "20")
    pair = bystanders(gateway)
    mallory = gateway.client("mallory")
    frames = [encode(TEXT, b'{"id":"p",', fin=False)] + [encode(CONTINUATION, fin=False)] * 200
    assert flood(mallory.ws, frames) == 4029
    pair.check()


def test_fragments_are_not_heard(start_gateway, bystanders):
    """With a 4 s liveness interval a silent socket is pinged at 2 s and dropped at 3.5 s; one
    that sends a fragment every 0.25 s but never a whole message nor a pong must go the same way."""
    gateway = start_gateway("--liveness-interval", "4")
    pair = bystanders(gateway)
    mallory = gateway.client("mallory")
    mallory.ws.answer_pings = False
    mallory.ws.send(TEXT, b'{"id":"p",', fin=False)
    deadline = time.monotonic() + 8
    with pytest.raises((Closed, ConnectionError)) as ended:
        while time.monotonic() < deadline:
            pair.alice.result("ping")  # whole messages: the bystanders stay heard
            pair.bob.result("ping")
            mallory.ws.send(CONTINUATION, fin=False)
            try:
                mallory.ws.recv_frame(0.25)
            except TimeoutError:
                pass
        pytest.fail("a socket sending only fragments was still open after 8 s")
    assert getattr(ended.value, "code", None) is None, f"expected a drop without a close frame, got {ended.value}"
    pair.check()
