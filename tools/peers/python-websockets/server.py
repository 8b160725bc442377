#!/usr/bin/env python3
"""Reference broadcast server for tools/bench on Python's `websockets` (version pinned in
requirements.txt), with the standard asyncio event loop.

It speaks the subset of CallGate protocol v1 that the bench's `group` scenario uses, so the same
generator can drive it: WS path /ws, subprotocol callgate.v1, `connect` with an HS256 JWT
(verified for real), `ping`, `initiateCall` to a group, the caller's cancel (`rejectCall` with
status `cancelled`, or `endCall` while ringing), the ring timeout, and the admin API's group
routes (PUT/GET/DELETE /v1/groups/{guid}, Authorization: Bearer <admin key>) plus GET /healthz.
Frames follow proto/schemas. Anything else gets ERR_BAD_REQUEST saying so.

usage: python3 server.py --host H --port P --jwt-secret S --admin-key K   (port 0: any free port)
prints `listening on HOST:PORT` once it accepts connections.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import binascii
import hashlib
import hmac
import json
import re
import math
import secrets
import signal
import socket
import time
import uuid

from admin_http import AdminHTTP
from websockets.asyncio.server import ServerConnection, broadcast, serve
from websockets.exceptions import ConnectionClosed

MAX_MESSAGE = 64 * 1024  # incoming WS message; more closes with 1009 (websockets' max_size)
CONNECT_DEADLINE = 10.0  # seconds; no connect by then: close 4001
FINISHED_TTL = 300.0  # finished calls answer precise errors this long
UUID_NAMESPACE = uuid.UUID("6f1c2a5e-930b-4d71-a844-2e0d5bc3971f")  # CallGate's callUUID namespace
SESSION_ID = re.compile(r"[A-Za-z0-9._:-]{1,128}")
B64URL = re.compile(r"[A-Za-z0-9_-]*")
OPS = {"connect", "ping", "initiateCall", "rejectCall", "endCall"}
NOT_HERE = {"acceptCall", "generateToken", "joinSession", "leaveSession", "setMuted",
            "startRecording", "stopRecording", "switchToVideo"}
REJECT_STATUSES = ("rejected", "busy", "cancelled")
TERMINAL_ERRORS = {"cancelled": "ERR_CALL_CANCELLED", "rejected": "ERR_CALL_REJECTED", "busy": "ERR_CALL_REJECTED"}

dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


class ProtocolError(Exception):
    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


def bad(message: str) -> ProtocolError:
    return ProtocolError("ERR_BAD_REQUEST", message)


def error_frame(request_id: str | None, code: str, message: str) -> str:
    body = {"code": code, "message": message}
    return dumps({"error": body} if request_id is None else {"id": request_id, "error": body})


def present(data: dict, field: str) -> bool:
    return data.get(field) is not None


# ------------------------------------------------------------------ JWT (HS256 only)


def b64url_decode(part: str) -> bytes | None:
    if not B64URL.fullmatch(part):
        return None
    try:
        return base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))
    except (binascii.Error, ValueError):
        return None


def b64url_json(part: str):
    raw = b64url_decode(part)
    if raw is None:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return None


def verify_token(token: str, secret: bytes) -> dict | None:
    """{"user": User, "exp": int} of a valid connection token, or None (malformed, not HS256, bad
    signature, expired, no sub, or a call token, which carries `typ`)."""
    parts = token.split(".")
    if len(parts) != 3:
        return None
    header = b64url_json(parts[0])
    if not isinstance(header, dict) or header.get("alg") != "HS256":
        return None
    given = b64url_decode(parts[2])
    expected = hmac.new(secret, f"{parts[0]}.{parts[1]}".encode("ascii"), hashlib.sha256).digest()
    if given is None or not hmac.compare_digest(given, expected):
        return None
    claims = b64url_json(parts[1])
    if not isinstance(claims, dict):
        return None
    sub, exp = claims.get("sub"), claims.get("exp")
    if not isinstance(sub, str) or not sub or "typ" in claims:
        return None
    if isinstance(exp, bool) or not isinstance(exp, (int, float)) or exp <= time.time():
        return None
    name = claims.get("name")
    user = {"uid": sub, "name": name if isinstance(name, str) else sub}
    if isinstance(claims.get("avatar"), str):
        user["avatar"] = claims["avatar"]
    return {"user": user, "exp": int(exp)}


# ------------------------------------------------------------------ the gateway subset


class Device:
    """One socket's state."""

    __slots__ = ("ws", "connection_id", "user", "connect_sent", "auth_failed", "deadline")

    def __init__(self, ws: ServerConnection, connection_id: str):
        self.ws = ws
        self.connection_id = connection_id
        self.user: dict | None = None
        self.connect_sent = False
        self.auth_failed = False
        self.deadline: asyncio.TimerHandle | None = None


class LiveCall:
    __slots__ = ("call", "rung", "rung_set", "timer")

    def __init__(self, call: dict, rung: list[str]):
        self.call = call
        self.rung = rung
        self.rung_set = set(rung)
        self.timer: asyncio.TimerHandle | None = None


class Gateway:
    """All state; runs on the event loop's one thread, so it needs no locks."""

    def __init__(self, secret: bytes):
        self.secret = secret
        self.groups: dict[str, dict] = {}  # guid -> {guid, name, icon?, members, member_set}
        self.devices: dict[str, set[ServerConnection]] = {}  # uid -> connected sockets
        self.calls: dict[str, LiveCall] = {}  # sessionId -> ringing call
        self.outgoing: dict[str, str] = {}  # caller uid -> sessionId they are ringing
        self.finished: dict[str, tuple[str, float]] = {}  # sessionId -> (status, when)
        self.next_connection = 0
        self.seqs: dict[str, int] = {}  # uid -> their last push's number (their push sequence)
        self.epoch = secrets.token_hex(8)  # every sequence's epoch: one per process

    # -------------------------------------------------------------- fan-out

    def fan_out(self, uids, event: str, data: dict) -> None:
        """One serialization of the frame's head, then per connected user the head numbered
        with their next seq, broadcast to each of their devices."""
        head = dumps({"event": event, "data": data})[:-1]
        for uid in uids:
            conns = self.devices.get(uid)
            if conns:
                seq = self.seqs.get(uid, 0) + 1
                self.seqs[uid] = seq
                broadcast(conns, f'{head},"seq":{seq}}}')

    # -------------------------------------------------------------- per socket

    async def handler(self, ws: ServerConnection) -> None:
        set_keepalive(ws)
        self.next_connection += 1
        device = Device(ws, f"p{self.next_connection:x}")
        loop = asyncio.get_running_loop()
        device.deadline = loop.call_later(CONNECT_DEADLINE, self.deadline_passed, device)
        try:
            async for message in ws:  # ends when the socket closes
                if isinstance(message, bytes):
                    await ws.send(error_frame(None, "ERR_BAD_REQUEST", "binary frames are not accepted"))
                    continue
                reply, after = self.handle(device, message)
                await ws.send(reply)
                if after is not None:
                    after()
                if device.auth_failed:
                    await ws.close(4001, "unauthorized")
        except ConnectionClosed:
            pass  # a reply to a socket that went away meanwhile
        finally:
            device.deadline.cancel()
            if device.user is not None:
                conns = self.devices[device.user["uid"]]
                conns.discard(ws)
                if not conns:
                    del self.devices[device.user["uid"]]
            # Not implemented here: the caller's grace period; such a call rings until its timeout.

    def deadline_passed(self, device: Device) -> None:
        if device.user is None:
            asyncio.ensure_future(device.ws.close(4001, "unauthorized"))

    def handle(self, device: Device, text: str):
        """Returns (reply text, pushes to perform after the reply or None)."""
        request_id = None
        try:
            request_id, op, data = decode(text)
            if op == "connect":
                return dumps({"id": request_id, "result": self.op_connect(device, data)}), None
            check_fields(op, data)  # field types win over the login check
            if device.user is None:
                raise ProtocolError("ERR_USER_NOT_LOGGED_IN", "send connect first")
            if op == "ping":
                result, after = {"serverTime": int(time.time() * 1000)}, None
            elif op == "initiateCall":
                result, after = self.op_initiate_call(device, data)
            elif op == "rejectCall":
                result, after = self.op_reject_call(device, data)
            else:
                result, after = self.op_end_call(device, data)
            return dumps({"id": request_id, "result": result}), after
        except ProtocolError as e:
            return error_frame(getattr(e, "request_id", request_id), e.code, e.message), None

    # -------------------------------------------------------------- ops

    def op_connect(self, device: Device, data: dict) -> dict:
        token = data.get("token")
        if not isinstance(token, str):
            raise bad("data.token must be a string")
        if device.connect_sent:
            raise bad("this socket already sent connect")
        device.connect_sent = True
        verified = verify_token(token, self.secret)
        if verified is None:
            device.auth_failed = True
            raise ProtocolError("AUTH_ERR", "the token is malformed, wrongly signed or expired")
        user, exp = verified["user"], verified["exp"]
        device.deadline.cancel()
        # The socket lives as long as its token: close 4003 at exp.
        device.deadline = asyncio.get_running_loop().call_at(
            asyncio.get_running_loop().time() + max(0.0, exp - time.time()),
            lambda: asyncio.ensure_future(device.ws.close(4003, "token expired")))
        device.user = user
        self.devices.setdefault(user["uid"], set()).add(device.ws)
        uid = user["uid"]
        active = [c.call for c in self.calls.values() if c.call["initiator"]["uid"] == uid or uid in c.rung_set]
        return {"user": user, "connectionId": device.connection_id,
                "serverTime": int(time.time() * 1000), "activeCalls": active, "tokenExpiresAt": exp,
                "epoch": self.epoch, "seq": self.seqs.get(uid, 0), "resumedSessions": []}

    def op_initiate_call(self, device: Device, data: dict):
        receiver_id = data["receiverId"]
        timeout = data["timeout"] if present(data, "timeout") else 45
        metadata = data["metadata"] if present(data, "metadata") else None
        if not 1 <= len(receiver_id) <= 100:
            raise bad("data.receiverId must be 1 to 100 characters")
        if not 1 <= timeout <= 300:
            raise bad("data.timeout must be 1 to 300")
        if metadata is not None and len(dumps(metadata).encode()) > 4096:
            raise bad("data.metadata is over 4096 bytes")
        if data["receiverType"] == "user":
            raise bad('this reference peer only rings groups (receiverType "group")')
        caller = device.user
        if caller["uid"] in self.outgoing:
            raise ProtocolError("ERROR_CALL_IN_PROGRESS", "you are already ringing someone")
        group = self.groups.get(receiver_id)
        if group is None or caller["uid"] not in group["member_set"]:
            raise ProtocolError("ERR_GROUP_NOT_FOUND", f"no group {receiver_id} with you as a member")
        rung = [uid for uid in group["members"] if uid != caller["uid"]]
        if not rung:
            raise bad("the group has no member besides you")

        receiver = {"guid": group["guid"], "name": group["name"]}
        if "icon" in group:
            receiver["icon"] = group["icon"]
        receiver["membersCount"] = len(group["members"])
        session_id = "c." + secrets.token_urlsafe(18)
        call = {
            "sessionId": session_id, "callUUID": str(uuid.uuid5(UUID_NAMESPACE, session_id)),
            "callType": data["callType"], "receiverType": "group", "callCategory": "call",
            "callStatus": "initiated", "initiator": caller, "receiver": receiver,
            "initiatedAt": int(time.time()), "ringExpiresAt": math.ceil(time.time() + timeout),
        }
        if metadata is not None:
            call["metadata"] = metadata
        live = LiveCall(call, rung)
        live.timer = asyncio.get_running_loop().call_later(timeout, self.ring_timeout, call["sessionId"])
        self.calls[call["sessionId"]] = live
        self.outgoing[caller["uid"]] = call["sessionId"]
        return call, lambda: self.fan_out(rung, "onIncomingCallReceived", {"call": call})

    def finish(self, live: LiveCall, status: str) -> dict:
        """Ends a ringing call with a terminal status; returns the ended call."""
        live.timer.cancel()
        session_id = live.call["sessionId"]
        del self.calls[session_id]
        del self.outgoing[live.call["initiator"]["uid"]]
        self.finished[session_id] = (status, time.monotonic())
        return {**live.call, "callStatus": status, "endedAt": int(time.time())}

    def ring_timeout(self, session_id: str) -> None:
        live = self.calls.get(session_id)
        if live is None:
            return
        call = self.finish(live, "unanswered")
        self.fan_out([call["initiator"]["uid"]], "onOutgoingCallRejected", {"call": call})
        self.fan_out(live.rung, "onIncomingCallCanceled", {"call": call, "reason": "unanswered"})

    def live_call(self, session_id: str) -> LiveCall:
        """The ringing call, or the precise error for a finished or unknown one."""
        live = self.calls.get(session_id)
        if live is not None:
            return live
        done = self.finished.get(session_id)
        if done is not None and time.monotonic() - done[1] < FINISHED_TTL:
            raise ProtocolError(TERMINAL_ERRORS.get(done[0], "ERR_CALL_ENDED"), f"the call is over ({done[0]})")
        raise ProtocolError("ERR_CALL_NOT_FOUND", "no such call")

    def cancel(self, live: LiveCall):
        call = self.finish(live, "cancelled")
        return call, lambda: self.fan_out(live.rung, "onIncomingCallCanceled", {"call": call, "reason": "cancelled"})

    def op_reject_call(self, device: Device, data: dict):
        live = self.live_call(session_id_of(data))
        is_caller = live.call["initiator"]["uid"] == device.user["uid"]
        if data["status"] == "cancelled":
            if not is_caller:
                raise ProtocolError("ERR_NOT_PARTICIPANT", "only the caller cancels")
            return self.cancel(live)
        if is_caller or device.user["uid"] not in live.rung_set:
            raise ProtocolError("ERR_NOT_PARTICIPANT", "this call does not ring you")
        raise bad("declining is not implemented by this reference peer")

    def op_end_call(self, device: Device, data: dict):
        live = self.live_call(session_id_of(data))
        if live.call["initiator"]["uid"] != device.user["uid"]:
            raise ProtocolError("ERR_NOT_PARTICIPANT", "you are not a participant of this call")
        return self.cancel(live)  # every live call here still rings: the caller's endCall cancels it

    def forget_finished(self) -> None:
        limit = time.monotonic() - FINISHED_TTL
        for session_id in [s for s, (_, at) in self.finished.items() if at < limit]:
            del self.finished[session_id]


# ------------------------------------------------------------------ request decoding


def decode(text: str):
    """(id, op, data), or raises ProtocolError (whose reply has no id when none was read)."""
    try:
        frame = json.loads(text)
    except ValueError:
        raise bad("the frame is not JSON") from None
    if not isinstance(frame, dict):
        raise bad("the frame is not a JSON object")
    request_id = frame.get("id")
    if not isinstance(request_id, str) or not 1 <= len(request_id) <= 64:
        raise bad("id must be a string of 1 to 64 characters")
    try:
        op = frame.get("op")
        if not isinstance(op, str):
            raise bad("op must be a string")
        if op not in OPS:
            raise bad(f"op {op} is not implemented by this reference peer" if op in NOT_HERE else f"unknown op: {op}")
        data = frame.get("data")
        if data is None:
            data = {}
        if not isinstance(data, dict):
            raise bad("data must be an object")
    except ProtocolError as e:
        e.request_id = request_id
        raise
    return request_id, op, data


def check_fields(op: str, data: dict) -> None:
    """Field types and enum values, checked before the login check."""
    if op == "initiateCall":
        if not isinstance(data.get("receiverId"), str):
            raise bad("data.receiverId must be a string")
        if data.get("receiverType") not in ("user", "group"):
            raise bad('data.receiverType must be "user" or "group"')
        if data.get("callType") not in ("audio", "video"):
            raise bad('data.callType must be "audio" or "video"')
        timeout = data.get("timeout")
        if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, int)):
            raise bad("data.timeout must be an integer")
        if data.get("metadata") is not None and not isinstance(data["metadata"], dict):
            raise bad("data.metadata must be an object")
    elif op in ("rejectCall", "endCall"):
        if not isinstance(data.get("sessionId"), str):
            raise bad("data.sessionId must be a string")
        if op == "rejectCall" and data.get("status") not in REJECT_STATUSES:
            raise bad('data.status must be "rejected", "busy" or "cancelled"')


def session_id_of(data: dict) -> str:
    session_id = data["sessionId"]
    if not SESSION_ID.fullmatch(session_id):
        raise ProtocolError("ERR_INVALID_SESSION_ID", "sessionId is not 1..128 characters of [A-Za-z0-9._:-]")
    return session_id


# ------------------------------------------------------------------ wiring


def set_keepalive(ws: ServerConnection) -> None:
    """Dead peers: TCP keepalive, as CallGate does (30 s idle, 10 s interval, 3 probes)."""
    sock = ws.transport.get_extra_info("socket")
    if sock is None:
        return
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    for name, value in (("TCP_KEEPIDLE", 30), ("TCP_KEEPINTVL", 10), ("TCP_KEEPCNT", 3)):
        if hasattr(socket, name):
            sock.setsockopt(socket.IPPROTO_TCP, getattr(socket, name), value)


def select_subprotocol(connection: ServerConnection, offered):
    """callgate.v1 when offered; a handshake without a subprotocol is accepted too."""
    return "callgate.v1" if "callgate.v1" in offered else None


class PeerConnection(AdminHTTP, ServerConnection):
    """websockets' connection, with the admin HTTP requests (AdminHTTP) split off first."""


async def main() -> None:
    parser = argparse.ArgumentParser(description="CallGate protocol v1 subset on Python websockets")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--jwt-secret", required=True)
    parser.add_argument("--admin-key", required=True)
    args = parser.parse_args()

    gateway = Gateway(args.jwt_secret.encode())
    PeerConnection.admin_key = args.admin_key.encode()
    PeerConnection.groups = gateway.groups
    loop = asyncio.get_running_loop()
    stop = loop.create_future()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, lambda: stop.done() or stop.set_result(None))

    async with serve(
        gateway.handler, args.host, args.port,
        create_connection=PeerConnection,
        select_subprotocol=select_subprotocol,
        compression=None,  # no permessage-deflate: small JSON frames, and memory per socket matters
        max_size=MAX_MESSAGE,
        ping_interval=None,  # liveness is TCP keepalive (set_keepalive), not a timer per socket
        backlog=4096,
    ) as server:
        port = server.sockets[0].getsockname()[1]
        print(f"listening on {args.host}:{port}", flush=True)
        while not stop.done():  # forget finished calls once a minute until a signal comes
            await asyncio.wait([stop], timeout=60)
            gateway.forget_finished()


if __name__ == "__main__":
    asyncio.run(main())
