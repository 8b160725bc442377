"""The admin HTTP routes of the Python peer, on the same port as the WebSocket endpoint.

websockets' handshake parser refuses requests with a body (it only reads GET handshakes), so
`PUT /v1/groups/{guid}` cannot go through it. AdminHTTP is mixed into websockets' connection
class (passed to serve() as `create_connection`, its documented customisation hook): it looks at
the request line first; `GET /ws` goes on to websockets untouched, anything else is an admin
request answered here, after which the connection closes.

Routes: PUT/GET/DELETE /v1/groups/{guid} with `Authorization: Bearer <admin key>`, and
GET /healthz. Status codes and error bodies follow proto/README.md ("Admin HTTP API").
"""

from __future__ import annotations

import hmac
import json
import re
from urllib.parse import unquote

MAX_BODY = 65536
MAX_HEAD = 16384
RESOURCE_ID = re.compile(r"[A-Za-z0-9_.@:-]{1,100}")
REASONS = {200: "OK", 204: "No Content", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found",
           405: "Method Not Allowed", 413: "Payload Too Large"}
WS_PREFIXES = (b"GET /ws ", b"GET /ws?")


def response(status: int, body=None, headers: tuple = ()) -> bytes:
    payload = b"" if body is None else json.dumps(body, separators=(",", ":")).encode()
    head = [f"HTTP/1.1 {status} {REASONS[status]}", "Connection: close", f"Content-Length: {len(payload)}"]
    if body is not None:
        head.append("Content-Type: application/json")
    head.extend(f"{name}: {value}" for name, value in headers)
    return ("\r\n".join(head) + "\r\n\r\n").encode() + payload


def error(status: int, code: str, message: str, headers: tuple = ()) -> bytes:
    return response(status, {"error": {"code": code, "message": message}}, headers)


def group_detail(group: dict) -> dict:
    detail = {"guid": group["guid"], "name": group["name"]}
    if "icon" in group:
        detail["icon"] = group["icon"]
    detail["membersCount"] = len(group["members"])
    detail["members"] = group["members"]
    return detail


def parse_group_put(guid: str, body: bytes):
    """The group of a PUT body, or a message for a 400."""
    try:
        value = json.loads(body)
    except ValueError:
        return "the body is not JSON"
    if not isinstance(value, dict):
        return "the body must be a JSON object"
    name, icon, members = value.get("name"), value.get("icon"), value.get("members")
    if not isinstance(name, str) or not 1 <= len(name) <= 200:
        return "name must be a string of 1 to 200 characters"
    if icon is not None and not isinstance(icon, str):
        return "icon must be a string"
    if not isinstance(members, list):
        return "members must be an array of uids"
    if not all(isinstance(uid, str) and RESOURCE_ID.fullmatch(uid) for uid in members):
        return "members must be uids of 1 to 100 characters of [A-Za-z0-9_.@:-]"
    unique = list(dict.fromkeys(members))
    group = {"guid": guid, "name": name, "members": unique, "member_set": set(unique)}
    if icon is not None:
        group["icon"] = icon
    return group


def route(method: str, target: str, headers: dict, body: bytes, admin_key: bytes, groups: dict) -> bytes:
    path = target.split("?", 1)[0]
    if path == "/healthz":
        if method != "GET":
            return error(405, "ERR_METHOD_NOT_ALLOWED", "use GET", (("Allow", "GET"),))
        return response(200, {"status": "ok"})
    if path != "/v1" and not path.startswith("/v1/"):
        return error(404, "ERR_NOT_FOUND", "no such path")
    match = re.fullmatch(r"(?i:bearer)[ \t]+(.+)", headers.get("authorization", ""))
    if not match or not hmac.compare_digest(match.group(1).strip().encode(), admin_key):
        return error(401, "ERR_UNAUTHORIZED", "missing or wrong admin key", (("WWW-Authenticate", "Bearer"),))
    segments = path.split("/")  # ['', 'v1', 'groups', guid]
    if len(segments) != 4 or segments[2] != "groups" or not segments[3]:
        return error(404, "ERR_NOT_FOUND", "no such route")
    if method not in ("GET", "PUT", "DELETE"):
        return error(405, "ERR_METHOD_NOT_ALLOWED", "method not allowed", (("Allow", "GET, PUT, DELETE"),))
    guid = unquote(segments[3], errors="strict") if "%" in segments[3] else segments[3]
    if not RESOURCE_ID.fullmatch(guid):
        return error(400, "ERR_BAD_REQUEST", "guid must be 1 to 100 characters of [A-Za-z0-9_.@:-]")
    if method == "PUT":
        group = parse_group_put(guid, body)
        if isinstance(group, str):
            return error(400, "ERR_BAD_REQUEST", group)
        groups[guid] = group
        return response(200, group_detail(group))
    group = groups.get(guid)
    if group is None:
        return error(404, "ERR_GROUP_NOT_FOUND", f"no group {guid}")
    if method == "GET":
        return response(200, group_detail(group))
    del groups[guid]
    return response(204)


class AdminHTTP:
    """Mixin for websockets' ServerConnection (an asyncio.Protocol); see the module docstring.
    The class attributes are set once at start-up."""

    admin_key: bytes = b""
    groups: dict = {}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._mode = None  # None: not decided yet, "ws": websockets' connection, "http": admin
        self._head = bytearray()

    def data_received(self, data: bytes) -> None:
        if self._mode == "ws":
            return super().data_received(data)
        if self._mode == "done":
            return
        self._head += data
        if self._mode is None:
            if len(self._head) < len(WS_PREFIXES[0]) and b"\n" not in self._head:
                return
            if bytes(self._head[: len(WS_PREFIXES[0])]) in WS_PREFIXES:
                self._mode = "ws"
                buffered, self._head = bytes(self._head), bytearray()
                return super().data_received(buffered)
            self._mode = "http"
        self._serve_http()

    def _serve_http(self) -> None:
        end = self._head.find(b"\r\n\r\n")
        if end < 0:
            if len(self._head) > MAX_HEAD:
                self._reply(error(400, "ERR_BAD_REQUEST", "request head too large"))
            return
        try:
            lines = bytes(self._head[:end]).decode("latin-1").split("\r\n")
            method, target, _version = lines[0].split(" ", 2)
            headers = {}
            for line in lines[1:]:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
            length = int(headers.get("content-length", "0"))
        except ValueError:
            return self._reply(error(400, "ERR_BAD_REQUEST", "malformed HTTP request"))
        if length > MAX_BODY:
            return self._reply(error(413, "ERR_PAYLOAD_TOO_LARGE", "the body is over 65536 bytes"))
        if "chunked" in headers.get("transfer-encoding", "").lower():
            return self._reply(error(400, "ERR_BAD_REQUEST", "send the body with Content-Length, not chunked"))
        body = bytes(self._head[end + 4 : end + 4 + length])
        if len(body) < length:
            return  # wait for the rest of the body
        try:
            reply = route(method, target, headers, body, self.admin_key, self.groups)
        except UnicodeDecodeError:
            reply = error(400, "ERR_BAD_REQUEST", "guid is not valid percent-encoded UTF-8")
        self._reply(reply)

    def _reply(self, payload: bytes) -> None:
        self._mode = "done"
        self.transport.write(payload)
        self.transport.close()  # websockets' handshake task then sees the connection gone and ends quietly
