"""Drives each reference peer (tools/peers/*) over real sockets and holds every frame to proto/.

Each peer runs as a subprocess on port 0; a small websockets client plays the bench's `group`
scenario (auth, admin PUT, ring a group, cancel) and every frame sent or received is validated
against proto/schemas with tools/proto_check.py. A peer is skipped only when its runtime is
missing and tools/peers/install.sh cannot install it (or CALLGATE_PEERS_NO_INSTALL is set).
The C peer is compiled first by lws-c/build.sh (to .build/peers/lws-c; nothing to do when it is
up to date); a build that fails fails its tests.

Run with `python3 -m pytest -q tools/peers` from the repository root.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import http.client
import io
import itertools
import json
import os
import select
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import proto_check  # noqa: E402  (tools/ is the parent folder)

SECRET = "peer-test-secret"
ADMIN_KEY = "peer-test-admin"
STEP = 5.0  # seconds any single wait may take before the test fails
PINNED = (HERE / "python-websockets/requirements.txt").read_text().split("==")[1].strip()
LWS_C = HERE.parent.parent / ".build/peers/lws-c"
PEERS = {
    "lws-c": lambda port: [str(LWS_C)],
    "node-ws": lambda port: ["node", str(HERE / "node-ws/server.js")],
    "python-websockets": lambda port: [sys.executable, str(HERE / "python-websockets/server.py")],
}


# ------------------------------------------------------------------ runtimes


def runtime_problem(peer: str) -> str | None:
    """Why this peer (or the websockets test client) cannot run here, or None."""
    try:
        import websockets
    except ImportError:
        return "Python module websockets is not installed"
    if websockets.__version__ != PINNED:
        return f"websockets {websockets.__version__} is installed, the peer pins {PINNED}"
    if peer == "node-ws":
        if shutil.which("node") is None:
            return "node is not installed"
        if not Path("/usr/share/nodejs/ws/index.js").exists():
            return "Debian's node-ws is not installed (/usr/share/nodejs/ws)"
    if peer == "lws-c":
        for tool in ("cc", "pkg-config"):
            if shutil.which(tool) is None:
                return f"{tool} is not installed"
        if subprocess.run(["pkg-config", "--exists", "libwebsockets", "jansson", "libcrypto"]).returncode != 0:
            return "libwebsockets-dev, libjansson-dev or libssl-dev is not installed"
        if not Path("/usr/include/ev.h").exists():
            return "libev-dev is not installed"
    return None


_install_result: list = []  # install.sh runs at most once per session


def ensure_runtime(peer: str) -> None:
    problem = runtime_problem(peer)
    if problem is None:
        return
    if os.environ.get("CALLGATE_PEERS_NO_INSTALL"):
        pytest.skip(f"{peer}: {problem}; not installing because CALLGATE_PEERS_NO_INSTALL is set")
    if not _install_result:
        env = dict(os.environ, PYTHON=sys.executable)
        try:
            done = subprocess.run(["bash", str(HERE / "install.sh")], env=env, capture_output=True, text=True, timeout=600)
            _install_result.append((done.returncode, (done.stdout + done.stderr)[-600:]))
        except subprocess.TimeoutExpired:
            _install_result.append((-1, "install.sh took more than 600 s"))
    code, output = _install_result[0]
    problem = runtime_problem(peer)
    if problem is not None:
        pytest.skip(f"{peer}: {problem}, and tools/peers/install.sh could not install it (exit {code}): {output}")


# ------------------------------------------------------------------ the peer process


def build(peer: str) -> None:
    """Compiles a peer that needs it (lws-c); a compiler error fails the test with its output."""
    if peer != "lws-c":
        return
    done = subprocess.run(["bash", str(HERE / "lws-c/build.sh"), str(LWS_C)], capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        pytest.fail(f"lws-c/build.sh failed (exit {done.returncode}):\n{done.stdout}{done.stderr}")


@pytest.fixture(scope="module", params=sorted(PEERS))
def peer(request):
    """(name, port) of a running peer; stopped after the module."""
    name = request.param
    ensure_runtime(name)
    build(name)
    argv = PEERS[name](0) + ["--host", "127.0.0.1", "--port", "0", "--jwt-secret", SECRET, "--admin-key", ADMIN_KEY]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        line = ""
        deadline = time.monotonic() + 10
        while not line.startswith("listening on "):
            left = deadline - time.monotonic()
            if left <= 0 or proc.poll() is not None or not select.select([proc.stdout], [], [], left)[0]:
                raise AssertionError(f"{name} did not print its listen line; said: {line!r}")
            line = proc.stdout.readline()
        host, port = line.split()[-1].rsplit(":", 1)
        assert host == "127.0.0.1" and int(port) > 0, line
        yield name, int(port)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=3)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


# ------------------------------------------------------------------ schema checking


class Frames:
    """Every frame of a test with its schema name; validated at the end with proto_check."""

    def __init__(self):
        self.records: list[tuple[str, object]] = []

    def add(self, schema: str, frame) -> None:
        self.records.append((schema, frame))

    def check(self) -> None:
        out = io.StringIO()
        report = proto_check.Report(out=out)
        schemas = proto_check.load_schemas(proto_check.PROTO / "schemas", report)
        registry = proto_check.build_registry(schemas)
        for i, (name, frame) in enumerate(self.records):
            assert name in schemas, f"no schema {name} for {frame}"
            validator = proto_check.validator_for(name, schemas, registry)
            proto_check.validate_instance(validator, name, f"frame {i}", frame, report)
        assert report.failed == 0, out.getvalue()
        assert report.passed == len(self.records)


# ------------------------------------------------------------------ a small protocol client


def token(uid: str, name: str | None = None, ttl: int = 600, secret: str = SECRET, alg: str = "HS256", **extra) -> str:
    def b64(value) -> str:
        return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()

    claims = {"sub": uid, "exp": int(time.time()) + ttl, **extra}
    if name is not None:
        claims["name"] = name
    signing_input = b64({"alg": alg, "typ": "JWT"}) + "." + b64(claims)
    signature = hmac.new(secret.encode(), signing_input.encode(), hashlib.sha256).digest()
    return signing_input + "." + base64.urlsafe_b64encode(signature).rstrip(b"=").decode()


class Client:
    """One socket: request() waits for the reply with its id; push() returns the next push."""

    ids = itertools.count(1)

    def __init__(self, ws, frames: Frames):
        self.ws = ws
        self.frames = frames
        self.pushes: list[dict] = []

    @classmethod
    async def open(cls, port: int, frames: Frames, subprotocols=("callgate.v1",)):
        from websockets.asyncio.client import connect

        ws = await asyncio.wait_for(connect(f"ws://127.0.0.1:{port}/ws", subprotocols=list(subprotocols) or None), STEP)
        return cls(ws, frames)

    async def receive(self) -> dict:
        frame = json.loads(await asyncio.wait_for(self.ws.recv(), STEP))
        if "event" in frame:
            self.frames.add("event." + frame["event"], frame)
        return frame

    async def request(self, op: str, data: dict, invalid: bool = False) -> dict:
        """Sends a request (checked against its schema unless it is `invalid` on purpose)."""
        request_id = f"r{next(self.ids)}"
        frame = {"id": request_id, "op": op, "data": data}
        if not invalid:
            self.frames.add("request." + op, frame)
        await self.ws.send(json.dumps(frame))
        while True:
            reply = await self.receive()
            if "event" in reply:
                self.pushes.append(reply)
            elif reply.get("id") == request_id:
                self.frames.add("result." + op if "result" in reply else "error", reply)
                return reply
            else:
                raise AssertionError(f"unexpected frame {reply}")

    async def push(self) -> dict:
        return self.pushes.pop(0) if self.pushes else await self.receive()

    async def connect(self, uid: str, name: str | None = None) -> dict:
        reply = await self.request("connect", {"token": token(uid, name)})
        assert "result" in reply, reply
        return reply["result"]


def run(coro):
    asyncio.run(asyncio.wait_for(coro, 30))


def admin(port: int, method: str, path: str, body=None, key: str | None = ADMIN_KEY):
    """(status, headers, parsed JSON body or None) of one admin HTTP request."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=STEP)
    headers = {"Content-Type": "application/json"}
    if key is not None:
        headers["Authorization"] = f"Bearer {key}"
    conn.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
    resp = conn.getresponse()
    raw = resp.read()
    conn.close()
    return resp.status, {k.lower(): v for k, v in resp.getheaders()}, json.loads(raw) if raw else None


def put_group(port: int, frames: Frames, guid: str, members: list[str], name: str = "Team") -> dict:
    body = {"name": name, "members": members}
    frames.add("http.groupPut", body)
    status, headers, detail = admin(port, "PUT", f"/v1/groups/{guid}", body)
    assert status == 200 and headers["content-type"] == "application/json", (status, detail)
    frames.add("http.groupDetail", detail)
    return detail


# ------------------------------------------------------------------ tests


def test_connect_with_a_good_token(peer):
    _, port = peer
    frames = Frames()

    async def scenario():
        client = await Client.open(port, frames)
        assert client.ws.subprotocol == "callgate.v1"
        result = await client.connect("alice", "Alice Martin")
        assert result["user"] == {"uid": "alice", "name": "Alice Martin"}
        assert result["activeCalls"] == [] and abs(result["serverTime"] - time.time() * 1000) < 60000
        pong = await client.request("ping", {})
        assert "serverTime" in pong["result"]
        again = await client.request("connect", {"token": token("alice")})
        assert again["error"]["code"] == "ERR_BAD_REQUEST" and "already sent connect" in again["error"]["message"]
        bare = await Client.open(port, frames, subprotocols=())  # no subprotocol offered: accepted too
        assert (await bare.connect("bob"))["user"] == {"uid": "bob", "name": "bob"}
        await client.ws.close()
        await bare.ws.close()

    run(scenario())
    frames.check()


@pytest.mark.parametrize(
    "bad_token",
    [
        pytest.param(lambda: token("alice", secret="wrong-secret"), id="wrong-signature"),
        pytest.param(lambda: token("alice", ttl=-10), id="expired"),
        pytest.param(lambda: token("alice", alg="HS512"), id="not-HS256"),
        pytest.param(lambda: token("alice", typ="call", sid="c.x"), id="call-token"),
        pytest.param(lambda: "not.a.jwt", id="malformed"),
    ],
)
def test_bad_token_gets_auth_err_then_close_4001(peer, bad_token):
    from websockets.exceptions import ConnectionClosed

    _, port = peer
    frames = Frames()

    async def scenario():
        client = await Client.open(port, frames)
        reply = await client.request("connect", {"token": bad_token()})
        assert reply["error"]["code"] == "AUTH_ERR", reply
        with pytest.raises(ConnectionClosed):
            await client.receive()
        assert client.ws.close_code == 4001

    run(scenario())
    frames.check()


def test_malformed_frames_and_ops_before_connect(peer):
    _, port = peer
    frames = Frames()

    async def scenario():
        client = await Client.open(port, frames)
        await client.ws.send("{not json")
        reply = await client.receive()
        frames.add("error", reply)
        assert "id" not in reply and reply["error"]["code"] == "ERR_BAD_REQUEST"
        reply = await client.request("initiateCall", {"receiverId": "team", "receiverType": "group", "callType": "audio"})
        assert reply["error"]["code"] == "ERR_USER_NOT_LOGGED_IN"
        reply = await client.request("initiateCall", {"receiverId": "team", "receiverType": "room", "callType": "audio"}, invalid=True)
        assert reply["error"]["code"] == "ERR_BAD_REQUEST" and "receiverType" in reply["error"]["message"]
        await client.connect("alice")
        reply = await client.request("rejectCall", {"sessionId": "bad id!", "status": "cancelled"}, invalid=True)
        assert reply["error"]["code"] == "ERR_INVALID_SESSION_ID"
        reply = await client.request("endCall", {"sessionId": "c.unknown"})
        assert reply["error"]["code"] == "ERR_CALL_NOT_FOUND"
        await client.ws.close()

    run(scenario())
    frames.check()


def test_admin_put_needs_the_key_and_a_valid_body(peer):
    _, port = peer
    frames = Frames()
    status, headers, body = admin(port, "PUT", "/v1/groups/g1", {"name": "G", "members": ["a"]}, key=None)
    assert status == 401 and headers.get("www-authenticate") == "Bearer" and body["error"]["code"] == "ERR_UNAUTHORIZED"
    frames.add("http.error", body)
    status, _, body = admin(port, "PUT", "/v1/groups/g1", {"name": "G", "members": ["a"]}, key="wrong")
    assert status == 401
    status, _, body = admin(port, "PUT", "/v1/groups/g1", {"name": "G", "members": "a"})
    assert status == 400 and body["error"]["code"] == "ERR_BAD_REQUEST" and "members" in body["error"]["message"]
    frames.add("http.error", body)
    status, _, body = admin(port, "PUT", "/v1/groups/bad%20guid", {"name": "G", "members": []})
    assert status == 400
    detail = put_group(port, frames, "g1", ["a", "b", "a", "c"], name="Group One")
    assert detail == {"guid": "g1", "name": "Group One", "membersCount": 3, "members": ["a", "b", "c"]}
    status, _, body = admin(port, "GET", "/v1/groups/g1")
    assert status == 200 and body == detail
    status, _, body = admin(port, "GET", "/healthz", key=None)
    assert status == 200 and body == {"status": "ok"}
    frames.add("http.health", body)
    frames.check()


def test_group_ring_then_cancel_reaches_every_member_device(peer):
    _, port = peer
    frames = Frames()
    members = ["m0", "m1", "m2", "m3"]
    put_group(port, frames, "ring-team", members, name="Ring Team")

    async def scenario():
        clients = {}
        for uid in members:
            clients[uid] = await Client.open(port, frames)
            await clients[uid].connect(uid)
        second = await Client.open(port, frames)  # a second device of m1 rings too
        await second.connect("m1")
        callees = [clients[u] for u in members[1:]] + [second]

        for how in ("rejectCall", "endCall"):
            reply = await clients["m0"].request("initiateCall", {"receiverId": "ring-team", "receiverType": "group", "callType": "audio"})
            call = reply["result"]
            assert call["callStatus"] == "initiated" and call["initiator"]["uid"] == "m0"
            assert call["receiver"] == {"guid": "ring-team", "name": "Ring Team", "membersCount": 4}
            for callee in callees:
                push = await callee.push()
                assert push["event"] == "onIncomingCallReceived" and push["data"]["call"] == call
            busy = await clients["m0"].request("initiateCall", {"receiverId": "ring-team", "receiverType": "group", "callType": "video"})
            assert busy["error"]["code"] == "ERROR_CALL_IN_PROGRESS"

            if how == "rejectCall":
                reply = await clients["m0"].request("rejectCall", {"sessionId": call["sessionId"], "status": "cancelled"})
            else:
                reply = await clients["m0"].request("endCall", {"sessionId": call["sessionId"]})
            ended = reply["result"]
            assert ended["callStatus"] == "cancelled" and ended["endedAt"] >= call["initiatedAt"]
            for callee in callees:
                push = await callee.push()
                assert push["event"] == "onIncomingCallCanceled"
                assert push["data"] == {"call": ended, "reason": "cancelled"}
            again = await clients["m0"].request("endCall", {"sessionId": call["sessionId"]})
            assert again["error"]["code"] == "ERR_CALL_CANCELLED"
        assert not clients["m0"].pushes  # the caller hears nothing of its own ring or cancel
        for client in [*clients.values(), second]:
            await client.ws.close()

    run(scenario())
    frames.check()


def test_unknown_group_and_non_member_get_group_not_found(peer):
    _, port = peer
    frames = Frames()
    put_group(port, frames, "others", ["x1", "x2"])

    async def scenario():
        client = await Client.open(port, frames)
        await client.connect("outsider")
        for guid in ("no-such-group", "others"):
            reply = await client.request("initiateCall", {"receiverId": guid, "receiverType": "group", "callType": "audio"})
            assert reply["error"]["code"] == "ERR_GROUP_NOT_FOUND", reply
        await client.ws.close()

    run(scenario())
    frames.check()


def test_ring_timeout_ends_the_call_unanswered(peer):
    _, port = peer
    frames = Frames()
    put_group(port, frames, "short", ["t0", "t1"])

    async def scenario():
        caller, callee = await Client.open(port, frames), await Client.open(port, frames)
        await caller.connect("t0")
        await callee.connect("t1")
        reply = await caller.request("initiateCall", {"receiverId": "short", "receiverType": "group", "callType": "video", "timeout": 1})
        assert (await callee.push())["event"] == "onIncomingCallReceived"
        rejected = await caller.push()
        assert rejected["event"] == "onOutgoingCallRejected" and "by" not in rejected["data"]
        assert rejected["data"]["call"]["callStatus"] == "unanswered"
        canceled = await callee.push()
        assert canceled["data"]["reason"] == "unanswered"
        assert canceled["data"]["call"]["sessionId"] == reply["result"]["sessionId"]
        await caller.ws.close()
        await callee.ws.close()

    run(scenario())
    frames.check()
