"""A raw WebSocket client on a plain TCP socket, to send what a well-behaved client never would.

`RawSocket` speaks RFC 6455 one frame at a time: any opcode, FIN or not, masked or not, any
payload (invalid UTF-8 included), and reads frames back one at a time, answering pings when asked
to. `Client` is the polite side on top of it: `connect` with a token, requests matched to replies
by id with a timeout, pushes kept for later. `http_raw` sends raw HTTP/1.1 bytes and reads one
response (`http_request` writes a well-formed request); `token` signs an HS256 JWT by hand.
Everything talks to 127.0.0.1 only.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import itertools
import json
import os
import socket
import statistics
import struct
import time
from dataclasses import dataclass

HOST = "127.0.0.1"
STEP = 5.0  # seconds any single wait may take before the test fails
ACCEPT_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

CONTINUATION, TEXT, BINARY, CLOSE, PING, PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def token(secret: str, uid: str, ttl: float = 3600, **claims) -> str:
    """An HS256 JWT for `uid` expiring `ttl` seconds from now; `claims` add or replace claims."""
    body = {"sub": uid, "name": uid.capitalize(), "exp": int(time.time() + ttl), **claims}
    signed = ".".join(b64url(json.dumps(part, separators=(",", ":")).encode())
                      for part in ({"alg": "HS256", "typ": "JWT"}, body))
    signature = hmac.new(secret.encode(), signed.encode(), hashlib.sha256).digest()
    return f"{signed}.{b64url(signature)}"


def error_code(reply: dict) -> str | None:
    """The error code of a reply frame; None for a success."""
    return reply["error"]["code"] if "error" in reply else None


def encode(opcode: int, payload: bytes = b"", fin: bool = True, masked: bool = True) -> bytes:
    """One WebSocket frame as a client sends it (masked) or as it must not (`masked=False`)."""
    head = bytearray([(0x80 if fin else 0) | opcode])
    mask_bit = 0x80 if masked else 0
    if len(payload) < 126:
        head.append(mask_bit | len(payload))
    elif len(payload) < 1 << 16:
        head += struct.pack("!BH", mask_bit | 126, len(payload))
    else:
        head += struct.pack("!BQ", mask_bit | 127, len(payload))
    if not masked:
        return bytes(head) + payload
    key = os.urandom(4)
    stream = (key * (len(payload) // 4 + 1))[:len(payload)]
    body = (int.from_bytes(payload, "big") ^ int.from_bytes(stream, "big")).to_bytes(len(payload), "big")
    return bytes(head) + key + body


def close_payload(code: int, reason: bytes = b"") -> bytes:
    return struct.pack("!H", code) + reason


@dataclass
class Frame:
    opcode: int
    payload: bytes
    fin: bool = True

    @property
    def code(self) -> int | None:
        """A close frame's status code; None when it carries none."""
        return struct.unpack("!H", self.payload[:2])[0] if len(self.payload) >= 2 else None


class Closed(Exception):
    """The peer ended the connection: `code` is its close frame's, None for a bare TCP close."""

    def __init__(self, code: int | None, reason: bytes = b""):
        super().__init__(f"connection closed ({code}, {reason!r})")
        self.code = code
        self.reason = reason


class Refused(Exception):
    """The server answered the upgrade with something other than 101."""

    def __init__(self, head: bytes):
        super().__init__(f"upgrade refused: {head.decode('latin-1')!r}")
        self.status = int(head.split()[1])


class RawSocket:
    """A WebSocket on /ws after a real HTTP/1.1 upgrade; frames go out exactly as given."""

    def __init__(self, port: int, answer_pings: bool = False):
        self.answer_pings = answer_pings
        self.buffer = bytearray()
        self.sock = socket.create_connection((HOST, port), timeout=STEP)
        key = base64.b64encode(os.urandom(16))
        self.sock.sendall(
            b"GET /ws HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: callgate.v1\r\n\r\n"
            % (HOST.encode(), port, key))
        deadline = time.monotonic() + STEP
        while b"\r\n\r\n" not in self.buffer:
            self._fill(deadline)
        head, _, rest = bytes(self.buffer).partition(b"\r\n\r\n")
        self.buffer = bytearray(rest)
        if head.split()[1] != b"101":
            self.sock.close()
            raise Refused(head)
        accept = base64.b64encode(hashlib.sha1(key + ACCEPT_GUID).digest())
        assert b"sec-websocket-accept: " + accept.lower() in head.lower(), head

    def send(self, opcode: int, payload: bytes = b"", fin: bool = True, masked: bool = True):
        self.send_raw(encode(opcode, payload, fin, masked))

    def send_raw(self, data: bytes):
        """Bytes as they are: several frames in one write, or anything else."""
        self.sock.settimeout(STEP)
        self.sock.sendall(data)

    def send_text(self, text: str | bytes, fin: bool = True, masked: bool = True):
        self.send(TEXT, text.encode() if isinstance(text, str) else text, fin, masked)

    def recv_frame(self, timeout: float = STEP) -> Frame:
        """The next frame, whatever it is; raises TimeoutError, or Closed on a TCP close."""
        deadline = time.monotonic() + timeout
        while (frame := self._parse()) is None:
            self._fill(deadline)
        if frame.opcode == PING and self.answer_pings:
            self.send(PONG, frame.payload)
        return frame

    def recv_message(self, timeout: float = STEP) -> bytes:
        """The next data message, fragments joined; control frames are skipped, a close raises Closed."""
        deadline = time.monotonic() + timeout
        parts: list[bytes] = []
        while True:
            frame = self.recv_frame(deadline - time.monotonic())
            if frame.opcode == CLOSE:
                raise Closed(frame.code, frame.payload[2:])
            if frame.opcode in (PING, PONG):
                continue
            parts.append(frame.payload)
            if frame.fin:
                return b"".join(parts)

    def until_closed(self, timeout: float = STEP) -> tuple[int | None, list[bytes]]:
        """Reads until the peer closes: its close code (None for a TCP close without a close
        frame) and the data messages that came first. Raises TimeoutError if it stays open."""
        deadline = time.monotonic() + timeout
        messages: list[bytes] = []
        try:
            while True:
                messages.append(self.recv_message(deadline - time.monotonic()))
        except Closed as closed:
            return closed.code, messages
        except TimeoutError:
            raise TimeoutError(f"still open after {timeout:g} s; it sent {messages}") from None

    def close(self):
        try:
            self.send(CLOSE, close_payload(1000))
        except OSError:
            pass
        self.sock.close()

    def _parse(self) -> Frame | None:
        data = self.buffer
        if len(data) < 2:
            return None
        if data[1] & 0x80:
            raise ValueError("the server sent a masked frame")
        length, start = data[1] & 0x7F, 2
        if length == 126:
            if len(data) < 4:
                return None
            length, start = struct.unpack_from("!H", data, 2)[0], 4
        elif length == 127:
            if len(data) < 10:
                return None
            length, start = struct.unpack_from("!Q", data, 2)[0], 10
        if len(data) < start + length:
            return None
        frame = Frame(data[0] & 0x0F, bytes(data[start:start + length]), bool(data[0] & 0x80))
        del data[:start + length]
        return frame

    def _fill(self, deadline: float):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("nothing arrived in time")
        self.sock.settimeout(remaining)
        try:
            chunk = self.sock.recv(1 << 16)
        except ConnectionResetError:
            chunk = b""
        if not chunk:
            raise Closed(None)
        self.buffer += chunk


class Client:
    """A well-behaved client: requests matched to replies by id, pushes kept in arrival order."""

    def __init__(self, port: int):
        self.ws = RawSocket(port, answer_pings=True)
        self.pushes: list[dict] = []
        self.replies: list[dict] = []
        self.serial = itertools.count(1)
        self.welcome: dict = {}  # the connect result

    @classmethod
    def connect(cls, port: int, jwt: str) -> Client:
        """A socket on which `connect` succeeded."""
        client = cls(port)
        client.welcome = client.result("connect", {"token": jwt})
        return client

    def send(self, op: str, data: dict | None = None) -> str:
        """Sends a request without waiting; its id, for `reply`."""
        request_id = f"r{next(self.serial)}"
        self.ws.send_text(json.dumps({"id": request_id, "op": op, "data": data or {}}))
        return request_id

    def request(self, op: str, data: dict | None = None, timeout: float = STEP) -> dict:
        return self.reply(self.send(op, data), timeout)

    def result(self, op: str, data: dict | None = None) -> dict:
        reply = self.request(op, data)
        assert "result" in reply, f"{op} failed: {reply}"
        return reply["result"]

    def error(self, op: str, data: dict | None = None) -> str:
        """The error code of a request that must fail."""
        reply = self.request(op, data)
        assert "error" in reply, f"{op} should have failed: {reply}"
        return error_code(reply)

    def reply(self, request_id: str, timeout: float = STEP) -> dict:
        """The reply to request `request_id`, removed from the queue."""
        return self._take(self.replies, lambda reply: reply.get("id") == request_id, timeout)

    def next_reply(self, timeout: float = STEP) -> dict:
        """The oldest reply not taken yet, with or without an id."""
        return self._take(self.replies, lambda reply: True, timeout)

    def push(self, event: str, match=lambda data: True, timeout: float = STEP) -> dict:
        """The data of the first push named `event` for which `match` holds, removed from the queue."""
        push = self._take(self.pushes, lambda push: push["event"] == event and match(push["data"]), timeout)
        return push["data"]

    def closed(self, timeout: float = STEP) -> int | None:
        """Reads (keeping what arrives) until the server closes: its close code, None for a TCP close."""
        deadline = time.monotonic() + timeout
        try:
            while True:
                self._read(deadline)
        except Closed as closed:
            return closed.code
        except TimeoutError:
            raise TimeoutError(f"still open after {timeout:g} s") from None

    def latency(self, count: int = 5) -> float:
        """Median seconds of `count` ping round trips."""
        times = []
        for _ in range(count):
            start = time.monotonic()
            self.result("ping")
            times.append(time.monotonic() - start)
        return statistics.median(times)

    def close(self):
        self.ws.close()

    def _take(self, queue: list[dict], match, timeout: float) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            for index, message in enumerate(queue):
                if match(message):
                    return queue.pop(index)
            self._read(deadline)

    def _read(self, deadline: float):
        message = json.loads(self.ws.recv_message(deadline - time.monotonic()))
        (self.pushes if "event" in message else self.replies).append(message)


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    body: bytes

    def error_code(self) -> str | None:
        """The code of an http.error body; None for any other body."""
        try:
            return json.loads(self.body)["error"]["code"]
        except (ValueError, KeyError, TypeError):
            return None


def http_raw(port: int, data: bytes, timeout: float = STEP) -> Response:
    """Sends raw request bytes on a new connection and reads one response."""
    with socket.create_connection((HOST, port), timeout=timeout) as sock:
        sock.sendall(data)
        return read_response(sock, timeout)


def http_request(port: int, method: str, path: str, *headers: str, body: bytes = b"") -> Response:
    """One well-formed HTTP/1.1 request on a connection of its own."""
    lines = [f"{method} {path} HTTP/1.1", f"Host: {HOST}:{port}", "Connection: close", *headers]
    if body:
        lines.append(f"Content-Length: {len(body)}")
    return http_raw(port, ("\r\n".join(lines) + "\r\n\r\n").encode() + body)


def read_response(sock: socket.socket, timeout: float = STEP) -> Response:
    """One HTTP/1.1 response: the body by Content-Length, else up to the end of the connection."""
    deadline = time.monotonic() + timeout
    data = b""

    def more() -> bytes:
        sock.settimeout(max(deadline - time.monotonic(), 0.001))
        try:
            return sock.recv(1 << 16)
        except ConnectionResetError:
            return b""

    while b"\r\n\r\n" not in data:
        chunk = more()
        if not chunk:
            raise ConnectionError(f"the connection ended before a whole response head: {data!r}")
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {name.strip().lower(): value.strip() for name, _, value in (line.partition(":") for line in lines[1:])}
    status = int(lines[0].split()[1])
    if "content-length" in headers:
        length = int(headers["content-length"])
        while len(body) < length and (chunk := more()):
            body += chunk
        body = body[:length]
    elif status != 101:
        while chunk := more():
            body += chunk
    return Response(status, headers, body)
