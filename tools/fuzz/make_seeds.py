#!/usr/bin/env python3
"""Writes the hand-made seed corpora under tools/fuzz/corpus/<target>/.

Run it again after changing a seed here, or the harness secret ("fuzz-secret", used by
Sources/token-fuzz/TokenFuzz.swift). It rewrites only the files named below; crash inputs
added to the corpus by hand (regression seeds) are kept.
"""
import base64
import hashlib
import hmac
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
SECRET = b"fuzz-secret".ljust(32, b"\0")  # TokenService pads short secrets with zero bytes
FAR = 4102444800  # 2100-01-01
PAST = 1000000000  # 2001-09-09


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def token(header, payload, key=SECRET, signature=None) -> str:
    h = header if isinstance(header, bytes) else json.dumps(header, separators=(",", ":")).encode()
    p = payload if isinstance(payload, bytes) else json.dumps(payload, separators=(",", ":")).encode()
    signing_input = f"{b64url(h)}.{b64url(p)}"
    if signature is None:
        signature = b64url(hmac.new(key, signing_input.encode(), hashlib.sha256).digest())
    return f"{signing_input}.{signature}"


def compact(value) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


HS256 = {"alg": "HS256", "typ": "JWT"}
ALICE = {"sub": "alice", "name": "Alice", "exp": FAR}


def frame_seeds():
    valid = token(HS256, ALICE)
    s = {
        "connect": {"id": "1", "op": "connect", "data": {"token": valid}},
        "ping": {"id": "p", "op": "ping"},
        "ping-null-data": {"id": "p", "op": "ping", "data": None},
        "initiate-metadata": {"id": "2", "op": "initiateCall", "data": {
            "receiverId": "bob", "receiverType": "user", "callType": "video", "timeout": 45.0,
            "metadata": {"topic": "standup \"[{\\", "n": [1, -0.0, 1e300, 9007199254740993, True, None],
                         "nested": {"a": {"b": [{"c": "é\u2028😀"}]}}}}},
        "initiate-group": {"id": "3", "op": "initiateCall", "data": {
            "receiverId": "team", "receiverType": "group", "callType": "audio"}},
        "accept": {"id": "4", "op": "acceptCall", "data": {"sessionId": "v1.abc:def-1"}},
        "reject-busy": {"id": "5", "op": "rejectCall", "data": {"sessionId": "s1", "status": "busy"}},
        "end": {"id": "6", "op": "endCall", "data": {"sessionId": "s1"}},
        "generate-token": {"id": "7", "op": "generateToken", "data": {"sessionId": "standup:team-ios"}},
        "join": {"id": "8", "op": "joinSession", "data": {"callToken": valid, "audioOnly": True, "idleTimeout": 180}},
        "leave": {"id": "9", "op": "leaveSession", "data": {"sessionId": "s1"}},
        "set-muted": {"id": "10", "op": "setMuted", "data": {"sessionId": "s1", "audioMuted": True, "videoMuted": None}},
        "start-recording": {"id": "11", "op": "startRecording", "data": {"sessionId": "s1"}},
        "stop-recording": {"id": "12", "op": "stopRecording", "data": {"sessionId": "s1"}},
        "switch-video": {"id": "13", "op": "switchToVideo", "data": {"sessionId": "s1"}},
        # malformed
        "bad-no-id": {"op": "ping"},
        "bad-long-id": {"id": "x" * 65, "op": "ping"},
        "bad-unknown-op": {"id": "1", "op": "dial" * 20},
        "bad-data-array": {"id": "1", "op": "endCall", "data": [1]},
        "bad-timeout-fraction": {"id": "1", "op": "initiateCall", "data": {
            "receiverId": "bob", "receiverType": "user", "callType": "audio", "timeout": 1.5}},
        "bad-choice": {"id": "1", "op": "rejectCall", "data": {"sessionId": "s1", "status": "maybe"}},
        # server frames (ServerFrame.decode)
        "server-push": {"event": "onIncomingCallReceived", "data": {"call": {"sessionId": "s1"}}},
        "server-push-joined": {"event": "onUserJoined", "data": {"sessionId": "s1", "user": {"uid": "bob", "name": "Bob"}}},
        "server-result": {"id": "2", "result": {"pong": 1700000000}},
        "server-error": {"id": "2", "error": {"code": "ERR_BAD_REQUEST", "message": "data.sessionId: missing"}},
    }
    out = {name: compact(value) for name, value in s.items()}
    out["bad-not-json"] = b'{"id":"1","op":"ping",'
    out["bad-32-deep"] = b'{"id":"1","op":"initiateCall","data":{"metadata":' + b"[" * 29 + b"]" * 29 + b"}}"
    out["bad-33-deep"] = b"[" * 33 + b"]" * 33
    out["brackets-in-strings"] = b'{"id":"[[[{{{","op":"ping","data":{"x":"\\"[[[\\\\","y":"]]]"}}'
    out["utf16le-ping"] = compact(s["ping"]).decode().encode("utf-16-le")
    out["utf16be-connect"] = compact(s["connect"]).decode().encode("utf-16-be")
    out["utf8-bom-ping"] = b"\xef\xbb\xbf" + compact(s["ping"])
    return out


def token_seeds():
    valid = token(HS256, ALICE)
    out = {
        "valid": valid,
        "valid-no-name": token(HS256, {"sub": "bob", "exp": FAR}),
        "expired": token(HS256, {"sub": "alice", "exp": PAST}),
        "alg-none": token({"alg": "none", "typ": "JWT"}, ALICE, signature=""),
        "alg-none-signed": token({"alg": "none"}, ALICE),
        "alg-hs384": token({"alg": "HS384", "typ": "JWT"}, ALICE),
        "alg-rs256": token({"alg": "RS256", "typ": "JWT"}, ALICE),
        "alg-lowercase": token({"alg": "hs256"}, ALICE),
        "no-alg": token({"typ": "JWT"}, ALICE),
        "wrong-key": token(HS256, ALICE, key=b"another-secret".ljust(32, b"\0")),
        "bad-signature": valid[:-2] + "AA",
        "call-token": token(HS256, {"sub": "alice", "sid": "s1", "typ": "call", "exp": FAR}),
        "bad-sub": token(HS256, {"sub": "a b", "exp": FAR}),
        "empty-sub": token(HS256, {"sub": "", "exp": FAR}),
        "bad-name": token(HS256, {"sub": "alice", "name": "A\u0007", "exp": FAR}),
        "exp-string": token(HS256, {"sub": "alice", "exp": "tomorrow"}),
        "deep-payload": token(HS256, b'{"sub":"alice","exp":4102444800,"x":' + b"[" * 40 + b"]" * 40 + b"}"),
        "deep-header": token(b'{"alg":"HS256","x":' + b"{\"a\":" * 40 + b"1" + b"}" * 40 + b"}", ALICE),
        "two-parts": ".".join(valid.split(".")[:2]),
        "four-parts": valid + ".x",
        "padded": valid.replace(".", "=."),
        # signed by the harness: header NUL payload, or a payload alone under HS256
        "signed-alice": compact(ALICE),
        "signed-call": compact({"sub": "bob", "sid": "standup:team", "typ": "call", "exp": FAR}),
        "signed-header-payload": compact(HS256) + b"\0" + compact({"sub": "carol", "name": "Carol", "avatar": "https://a/b.png", "exp": FAR}),
        "signed-alg-none": compact({"alg": "none"}) + b"\0" + compact(ALICE),
        "signed-deep": b'{"sub":"alice","exp":4102444800,"x":' + b"[" * 31 + b"]" * 31 + b"}",
        "signed-exp-float": compact({"sub": "alice", "exp": 4102444800.5}),
        "signed-exp-huge": b'{"sub":"alice","exp":1e400}',
        "signed-typ-null": compact({"sub": "alice", "exp": FAR, "typ": None}),
        "signed-dup-sub": b'{"sub":"alice","sub":"bob","exp":4102444800}',
    }
    return {name: value if isinstance(value, bytes) else value.encode() for name, value in out.items()}


def query_seeds():
    auth = "Authorization: Bearer fuzz-admin-key\n"
    return {name: value.encode() for name, value in {
        "list": "GET /v3.0/calls\n\n",
        "list-page": "GET /v3.0/calls?perPage=10&page=2 HTTP/1.1\r\nauthToken: tok\r\n\r\n",
        "list-filters": "GET /v3.0/calls?cursor=o123&mode=call&type=audio&status=ended&direction=incoming"
                        "&hasRecording=1&uid=alice&guid=team%3Aios&sdk=js\nAuthorization: Bearer user-token\n\n",
        "list-newer": "GET /v3.0/calls?cursor=n0&perPage=100&hasRecording=false&uid=a%40b.c\n\n",
        "list-bad": "GET /v3.0/calls?page=0&page=1&perPage=&mode=x+y&type=%zz\n\n",
        "list-no-token": "GET /v3.0/calls\nAuthorization: Basic abc\n\n",
        "detail": "GET /v3.0/calls/standup%3Ateam-ios\n\n",
        "detail-bad": "GET /v3.0/calls/a/b\n\n",
        "list-post": "POST /v3.0/calls\n\n",
        "health": "GET /healthz\n\n",
        "group-get": "GET /v1/groups/team\n" + auth + "\n",
        "group-put": "PUT /v1/groups/team%3A1\n" + auth + "\n"
                     '{"name":"Team","icon":"https://x/i.png","members":["alice","bob","alice"]}',
        "group-delete": "DELETE /v1/groups/team\n" + auth + "\n",
        "members-post": "POST /v1/groups/team/members\n" + auth + "\n" + '{"uids":["carol","dave"]}',
        "member-delete": "DELETE /v1/groups/team/members/bob\n" + auth + "\n",
        "tokens": "POST /v1/tokens\n" + auth + "\n" + '{"uid":"alice","name":"Alice","ttl":3600}',
        "tokens-bad-ttl": "POST /v1/tokens\n" + auth + "\n" + '{"uid":"alice","ttl":1e30}',
        "recording": "POST /v1/calls/s1/recordings/s1-r1\n" + auth + "\n" + '{"recordingUrl":"https://example.com/r.mp4"}',
        "recording-bad-rid": "POST /v1/calls/s1/recordings/s2-r01\n" + auth + "\n" + '{"recordingUrl":"ftp://x"}',
        "no-key": "GET /v1/groups/team\nAuthorization: Bearer wrong\n\n",
        "method-other": "PATCH /v1/groups/team\n" + auth + "\n",
        "deep-body": "PUT /v1/groups/team\n" + auth + "\n" + '{"name":"T","members":' + "[" * 40 + "]" * 40 + "}",
    }.items()}


def main():
    for target, seeds in (("frame", frame_seeds()), ("token", token_seeds()), ("query", query_seeds())):
        directory = os.path.join(HERE, "corpus", target)
        os.makedirs(directory, exist_ok=True)
        for name, data in seeds.items():
            with open(os.path.join(directory, name), "wb") as f:
                f.write(data)
        print(f"{target}: {len(seeds)} seeds in {directory}")


if __name__ == "__main__":
    main()
