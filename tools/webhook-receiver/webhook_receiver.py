#!/usr/bin/env python3
"""A receiver of CallGate's webhooks for local development, and a library for tests.

CallGate POSTs every call event to `--webhook-url`, signed the Standard Webhooks way
(https://www.standardwebhooks.com): headers `webhook-id` (the same on every attempt of one
message), `webhook-timestamp` (Unix seconds of the attempt) and `webhook-signature`
(space-separated `v1,<base64 HMAC-SHA256>` entries, one per signing secret, so a receiver keeps
verifying while a secret rotates) over `<webhook-id>.<webhook-timestamp>.<body>`.

This file is an independent implementation of the verification using only the standard library:

    verify(secret, headers, body)   -> the payload dict, or raises VerificationError
    Receiver(secret, respond=...)   -> a real HTTP endpoint in a daemon thread, for tests
    python3 webhook_receiver.py --secret whsec_...   -> prints one line per verified event

Besides the webhook path, the receiver serves `GET /events`: the verified events as JSON, with
`Access-Control-Allow-Origin: *`, which the gateway's web demo reads to show a call's webhooks.

Run `python3 webhook_receiver.py --help` for the command line.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import hashlib
import hmac
import json
import math
import os
import signal
import ssl
import sys
import threading
import time
from collections.abc import Callable, Mapping
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

__all__ = [
    "VerificationError", "parse_secret", "sign", "verify", "Receiver", "describe", "format_event", "hint",
    "parse_args", "main",
]

SECRET_PREFIX = "whsec_"
DEFAULT_TOLERANCE = 300
# The largest body the receiver reads (CallGate's payloads are a few kilobytes).
MAX_BODY = 1 << 20
# The read-only feed of verified events (GET), and its page size: default and bounds.
FEED_PATH = "/events"
FEED_LIMIT_DEFAULT = 100
FEED_LIMIT_MAX = 500
# How many events (and rejections) the command line keeps for the feed, and how many webhook-ids
# it remembers to mark a retry `again`.
CLI_KEEP_DEFAULT = 1000
CLI_SEEN_IDS = 100_000

TERMINAL_TYPES = frozenset({"call.rejected", "call.busy", "call.cancelled", "call.unanswered", "call.ended"})
PER_USER_END_TYPES = frozenset({"call.accepted", "call.declined", "call.missed"})


class VerificationError(Exception):
    """A webhook that must not be trusted: a header missing or malformed, a bad secret, a
    timestamp outside the tolerance, or no signature matching the body."""


# --- Verification -----------------------------------------------------------------------------

def parse_secret(secret: str) -> bytes:
    """The key bytes of `secret` (`whsec_` and base64; missing `=` padding is tolerated).

    Raises VerificationError when it is not that shape or the key is empty.
    """
    if not isinstance(secret, str) or not secret.startswith(SECRET_PREFIX):
        raise VerificationError(f"bad secret: expected {SECRET_PREFIX} and the base64 of the key bytes")
    encoded = secret[len(SECRET_PREFIX):].strip()
    try:
        key = base64.b64decode(encoded + "=" * (-len(encoded) % 4), validate=True)
    except (binascii.Error, ValueError):
        raise VerificationError(f"bad secret: the part after {SECRET_PREFIX} is not valid base64") from None
    if not key:
        raise VerificationError("bad secret: the key is empty")
    return key


def _signature(key: bytes, msg_id: str, timestamp: str, body: bytes) -> bytes:
    signed = f"{msg_id}.{timestamp}.".encode() + body
    return hmac.new(key, signed, hashlib.sha256).digest()


def sign(secret: str, msg_id: str, timestamp: int | str, body: bytes) -> str:
    """A `webhook-signature` entry (`v1,<base64>`) for `body`: handy to replay a payload by hand."""
    key = parse_secret(secret)
    return "v1," + base64.b64encode(_signature(key, msg_id, str(timestamp), body)).decode()


def _lowercased(headers: Any) -> dict[str, str]:
    """`headers` (a Mapping, or http.server's message object) with lower-case names."""
    items = headers.items() if hasattr(headers, "items") else headers
    return {str(name).lower(): str(value) for name, value in items}


def verify(
    secret: str, headers: Mapping[str, str], body: bytes, now: float | None = None,
    tolerance: int = DEFAULT_TOLERANCE,
) -> dict:
    """Checks a webhook the Standard Webhooks way and returns its parsed JSON payload.

    `headers` are looked up case-insensitively; `now` is Unix seconds (default: the clock);
    the timestamp may be at most `tolerance` seconds before or after it. Any `v1` entry of
    `webhook-signature` that matches passes (entries of other versions are ignored).
    Raises VerificationError, with a message saying why, on any failure.
    """
    key = parse_secret(secret)
    if isinstance(body, str):
        body = body.encode()
    lower = _lowercased(headers)
    missing = [name for name in ("webhook-id", "webhook-timestamp", "webhook-signature") if not lower.get(name)]
    if missing:
        raise VerificationError("missing header" + ("s " if len(missing) > 1 else " ") + ", ".join(missing))
    msg_id = lower["webhook-id"]
    timestamp = lower["webhook-timestamp"].strip()
    if not timestamp.isascii() or not timestamp.isdigit():
        raise VerificationError(f"webhook-timestamp is not Unix seconds: {timestamp!r}")
    sent = int(timestamp)
    now = time.time() if now is None else now
    if sent < now - tolerance:
        raise VerificationError(f"stale timestamp: sent {now - sent:.0f}s ago, tolerance {tolerance}s")
    if sent > now + tolerance:
        raise VerificationError(f"timestamp in the future: {sent - now:.0f}s ahead, tolerance {tolerance}s")

    expected = _signature(key, msg_id, timestamp, body)
    versions = []
    for entry in lower["webhook-signature"].split():
        version, _, encoded = entry.partition(",")
        versions.append(version)
        if version != "v1" or not encoded:
            continue
        try:
            candidate = base64.b64decode(encoded, validate=True)
        except (binascii.Error, ValueError):
            continue
        if hmac.compare_digest(expected, candidate):
            break
    else:
        if "v1" not in versions:
            raise VerificationError("no v1 entry in webhook-signature")
        raise VerificationError("no matching signature: wrong secret, or the body or headers were altered")

    try:
        payload = json.loads(body)
    except (UnicodeDecodeError, ValueError) as error:
        raise VerificationError(f"signed body is not JSON: {error}") from None
    if not isinstance(payload, dict):
        raise VerificationError("signed body is not a JSON object")
    return payload


# --- Describing events ------------------------------------------------------------------------

def _uid(user: Any) -> str | None:
    if isinstance(user, dict) and user.get("uid") is not None:
        return str(user["uid"])
    return None


def session_id(payload: Mapping[str, Any]) -> str | None:
    """The session an event is about: data.call.sessionId, else data.sessionId."""
    data = payload.get("data") or {}
    call = data.get("call") or {}
    return call.get("sessionId") or data.get("sessionId")


def hint(payload: Mapping[str, Any]) -> str | None:
    """What an app backend typically does on this event, or None."""
    kind = payload.get("type")
    data = payload.get("data") or {}
    uid = _uid(data.get("user")) or "the user"
    if kind == "call.ringing" and data.get("onlineDevices") == 0:
        return f"-> send a VoIP push to {uid}"
    if kind in TERMINAL_TYPES:
        return "-> dismiss the ring on every device"
    if kind in PER_USER_END_TYPES:
        return f"-> dismiss {uid}'s ring on their other devices"
    return None


def describe(payload: Mapping[str, Any]) -> str:
    """The event's fields as one line: type, session, user, onlineDevices, by, reason, hint."""
    data = payload.get("data") or {}
    parts = [f"{payload.get('type', '?'):<28}", f"session={session_id(payload) or '-'}"]
    if (uid := _uid(data.get("user"))) is not None:
        parts.append(f"user={uid}")
    if data.get("onlineDevices") is not None:
        parts.append(f"onlineDevices={data['onlineDevices']}")
    if (by := _uid(data.get("by"))) is not None:
        parts.append(f"by={by}")
    if data.get("reason"):
        parts.append(f"reason={data['reason']}")
    if (extra := hint(payload)) is not None:
        parts.append(extra)
    return " ".join(parts)


def format_event(payload: Mapping[str, Any], msg_id: str | None = None, repeat: bool = False) -> str:
    """The CLI's line for a verified event: the event's time, then describe(), then its id."""
    line = f"{payload.get('timestamp') or datetime.now().isoformat(timespec='milliseconds')}  {describe(payload)}"
    if msg_id:
        line += f"  [{msg_id}{' again' if repeat else ''}]"
    return line


# --- The receiver -----------------------------------------------------------------------------

Respond = Callable[[dict, dict], "int | None"]


class QuietServer(ThreadingHTTPServer):
    """A ThreadingHTTPServer that says nothing when a sender goes away mid-request (a gateway
    killed or restarted, an attempt given up at its timeout): that is no error of the receiver."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class Receiver:
    """A webhook endpoint on a ThreadingHTTPServer in a daemon thread.

    POSTs to `.url` are verified with `secret`. A verified one is appended to `.events` as
    {"id", "type", "payload", "headers", "body", "attempt_status", "received_at"} when it arrives
    (`attempt_status` is None until answered, then the status answered), and answered with
    `respond(payload, headers)` (default 204; it may sleep to play a slow endpoint, or raise,
    which answers 500). A failed one is answered 400 and appended to `.rejected` as
    {"reason", "headers", "body"}. Duplicates are kept (a retry resends the same id); see
    `.unique_ids()`. Usable as a context manager.

    `keep` bounds how many verified events, and separately how many rejections, are kept (the
    oldest are dropped first); None (the default, for tests) keeps them all. `GET /events` serves
    what is kept as JSON for the web demo: see `feed()`. `tls` (a server-side SSLContext with its
    certificate loaded) serves https instead of http.
    """

    def __init__(
        self, secret: str, host: str = "127.0.0.1", port: int = 0, respond: Respond | None = None, *,
        path: str = "/webhooks", tolerance: int = DEFAULT_TOLERANCE,
        on_reject: Callable[[dict], None] | None = None, keep: int | None = None,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        parse_secret(secret)  # fail now, not on the first delivery
        if keep is not None and (isinstance(keep, bool) or not isinstance(keep, int) or keep < 1):
            raise ValueError(f"keep must be a positive number of events or None, not {keep!r}")
        path = path if path.startswith("/") else "/" + path
        if path.split("?", 1)[0] == FEED_PATH:
            raise ValueError(f"{FEED_PATH} is the receiver's event feed; POST webhooks to another path")
        self.secret = secret
        self.respond = respond
        self.path = path
        self.keep = keep
        self.tolerance = tolerance
        self.on_reject = on_reject
        self._events: list[dict] = []
        self._rejected: list[dict] = []
        self._changed = threading.Condition()
        self._server = QuietServer((host, port), self._handler_class())
        self._server.daemon_threads = True
        if tls is not None:  # the handshake runs in the connection's own thread, on its first read
            self._server.socket = tls.wrap_socket(self._server.socket, server_side=True, do_handshake_on_connect=False)
        bound_host, bound_port = self._server.server_address[:2]
        shown = f"[{bound_host}]" if ":" in str(bound_host) else bound_host
        self.host, self.port = bound_host, bound_port
        scheme = "https" if tls is not None else "http"
        self.url = f"{scheme}://{shown}:{bound_port}{self.path}"
        self.feed_url = f"{scheme}://{shown}:{bound_port}{FEED_PATH}"
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="webhook-receiver", daemon=True)
        self._closed = False
        self._thread.start()

    # Reading what arrived.

    @property
    def events(self) -> list[dict]:
        """The verified deliveries so far, in arrival order (a copy of the list)."""
        with self._changed:
            return list(self._events)

    @property
    def rejected(self) -> list[dict]:
        """The deliveries that failed verification, in arrival order (a copy of the list)."""
        with self._changed:
            return list(self._rejected)

    def unique_ids(self) -> list[str]:
        """The distinct `webhook-id`s of the verified deliveries, in first-arrival order."""
        with self._changed:
            return list(dict.fromkeys(event["id"] for event in self._events))

    def feed(self, session: str | None = None, limit: int = FEED_LIMIT_DEFAULT) -> list[dict]:
        """What `GET /events` lists: the kept verified events (of `session` only, when given), one
        entry per `webhook-id` at its first arrival, the newest `limit` of them, in arrival order.

        Each is {"id", "type", "timestamp", "data", "receivedAt", "status"}: the payload's type,
        timestamp and data, the Unix seconds its first attempt arrived, and the status answered to
        its latest attempt (None while that one is being answered)."""
        entries: dict[str, dict] = {}
        with self._changed:
            for event in self._events:
                if session is not None and session_id(event["payload"]) != session:
                    continue
                entry = entries.get(event["id"])
                if entry is None:
                    payload = event["payload"]
                    entries[event["id"]] = {
                        "id": event["id"], "type": payload.get("type"), "timestamp": payload.get("timestamp"),
                        "data": payload.get("data"), "receivedAt": event["received_at"],
                        "status": event["attempt_status"],
                    }
                else:
                    entry["status"] = event["attempt_status"]
        listed = list(entries.values())
        return listed[-limit:] if limit > 0 else []

    def wait_for(self, predicate: Callable[[list[dict]], Any], timeout: float = 5.0) -> Any:
        """Waits until `predicate(events)` is truthy and returns its value; raises TimeoutError
        (listing what arrived) after `timeout` seconds. It is checked again after every
        arrival, answer and rejection."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while True:
                result = predicate(list(self._events))
                if result:
                    return result
                left = deadline - time.monotonic()
                if left <= 0:
                    seen = [(e["type"], e["attempt_status"]) for e in self._events]
                    raise TimeoutError(
                        f"webhook condition not met within {timeout}s; events (type, status): {seen}; "
                        f"rejected: {[r['reason'] for r in self._rejected]}")
                self._changed.wait(left)

    def close(self) -> None:
        """Stops the server and frees its port (answers still in `respond` finish on their own)."""
        if self._closed:
            return
        self._closed = True
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> "Receiver":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    # Serving.

    def _bounded(self, entries: list[dict]) -> None:
        if self.keep is not None and len(entries) > self.keep:
            del entries[:len(entries) - self.keep]

    def _arrived(self, event: dict) -> None:
        with self._changed:
            self._events.append(event)
            self._bounded(self._events)
            self._changed.notify_all()

    def _answered(self, event: dict, status: int) -> None:
        with self._changed:
            event["attempt_status"] = status
            self._changed.notify_all()

    def _reject(self, entry: dict) -> None:
        with self._changed:
            self._rejected.append(entry)
            self._bounded(self._rejected)
            self._changed.notify_all()
        if self.on_reject is not None:
            try:
                self.on_reject(entry)
            except Exception:  # a printing hook must not break the server
                pass

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive: CallGate reuses connections
            server_version = "CallGateWebhookReceiver/1"

            def log_message(self, format: str, *args: Any) -> None:  # quiet
                pass

            def _answer(self, status: int, text: str = "", headers: tuple[tuple[str, str], ...] = (),
                        content_type: str = "text/plain; charset=utf-8") -> None:
                body = text.encode()
                self.send_response(status)
                for name, value in headers:
                    self.send_header(name, value)
                if status == 204 or 100 <= status < 200:
                    self.end_headers()
                    return
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _read_body(self) -> bytes | None:
                if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
                    chunks, total = [], 0
                    while True:
                        size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                        if size == 0:
                            while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                                pass
                            return b"".join(chunks)
                        total += size
                        if total > MAX_BODY:
                            return None
                        chunks.append(self.rfile.read(size))
                        self.rfile.readline()
                length = int(self.headers.get("Content-Length") or 0)
                if length > MAX_BODY:
                    return None
                return self.rfile.read(length) if length > 0 else b""

            def do_POST(self) -> None:
                if self.path.split("?", 1)[0] != receiver.path:
                    self.close_connection = True
                    self._answer(404, f"POST webhooks to {receiver.path}\n")
                    return
                try:
                    body = self._read_body()
                except ValueError:
                    self.close_connection = True
                    self._answer(400, "unreadable body\n")
                    return
                if body is None:
                    self.close_connection = True
                    self._answer(413, "body too large\n")
                    return
                headers = _lowercased(self.headers)
                try:
                    payload = verify(receiver.secret, headers, body, tolerance=receiver.tolerance)
                except VerificationError as error:
                    receiver._reject({"reason": str(error), "headers": headers, "body": body})
                    self._answer(400, f"{error}\n")
                    return
                event = {
                    "id": headers["webhook-id"], "type": payload.get("type"), "payload": payload,
                    "headers": headers, "body": body, "attempt_status": None, "received_at": time.time(),
                }
                receiver._arrived(event)
                status = 204
                respond = receiver.respond
                if respond is not None:
                    try:
                        answer = respond(payload, headers)
                        status = 204 if answer is None else int(answer)
                    except Exception as error:
                        status = 500
                        print(f"webhook-receiver: respond() raised {error!r}; answering 500", file=sys.stderr)
                receiver._answered(event, status)
                try:
                    self._answer(status, "" if 200 <= status < 300 else f"scripted {status}\n")
                except OSError:  # the sender gave up waiting (a scripted slow answer)
                    self.close_connection = True

            def do_GET(self) -> None:
                target = urlsplit(self.path)
                if target.path == FEED_PATH:
                    self._feed(target.query)
                elif target.path == receiver.path:
                    self._answer(405, "CallGate webhook receiver: POST signed webhooks here\n",
                                 headers=(("Allow", "POST"),))
                else:
                    self._answer(404, f"CallGate webhook receiver: POST signed webhooks to {receiver.path}, "
                                      f"GET the verified events from {FEED_PATH}\n")

            def do_OPTIONS(self) -> None:
                # The CORS preflight of the feed. A plain GET needs none, but a page that adds a
                # header sends one, and so does Chrome for a page on a public address reading a
                # receiver on a private one (Private Network Access).
                if urlsplit(self.path).path != FEED_PATH:
                    self._answer(404, f"only {FEED_PATH} answers OPTIONS\n")
                    return
                self._answer(204, headers=CORS + (
                    ("Access-Control-Allow-Methods", "GET, OPTIONS"),
                    ("Access-Control-Allow-Headers", "Content-Type"),
                    ("Access-Control-Allow-Private-Network", "true"),
                    ("Access-Control-Max-Age", "600"),
                ))

            def _feed(self, query: str) -> None:
                try:
                    session, limit = feed_query(query)
                except ValueError as error:
                    self._answer(400, f"{error}\n", headers=CORS)
                    return
                body = json.dumps({"data": receiver.feed(session, limit)}, separators=(",", ":"), ensure_ascii=False)
                self._answer(200, body, headers=CORS + (("Cache-Control", "no-store"),),
                             content_type="application/json")

        return Handler


# Every answer of the feed carries it, errors included, so that a page on another origin (the web
# demo, served by the gateway) can read them. The feed is read-only and lists what the receiver
# printed anyway; a receiver for local development only.
CORS = (("Access-Control-Allow-Origin", "*"),)


def feed_query(query: str) -> tuple[str | None, int]:
    """The `sessionId` (None: every session) and `limit` of a `GET /events` query string.

    Raises ValueError, with the text the 400 answer carries, for an unknown or repeated
    parameter, an empty sessionId, or a limit that is not a whole number from 1 to 500.
    """
    try:
        params = parse_qs(query, keep_blank_values=True, strict_parsing=bool(query), max_num_fields=10)
    except ValueError:
        raise ValueError(f"bad query string {query!r}: use ?sessionId=S&limit=N") from None
    unknown = sorted(set(params) - {"sessionId", "limit"})
    if unknown:
        raise ValueError(f"unknown query parameter {unknown[0]!r}: {FEED_PATH} takes sessionId and limit")
    for name, values in params.items():
        if len(values) > 1:
            raise ValueError(f"{name} given {len(values)} times: give it once")
    session = params.get("sessionId", [None])[0]
    if session is not None and not session:
        raise ValueError("sessionId is empty: leave it out to list every session")
    text = params.get("limit", [str(FEED_LIMIT_DEFAULT)])[0]
    if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= FEED_LIMIT_MAX:
        raise ValueError(f"limit must be a whole number from 1 to {FEED_LIMIT_MAX}, not {text!r}")
    return session, int(text)


# --- Command line -----------------------------------------------------------------------------

def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description="Receive CallGate's webhooks, verify their Standard Webhooks signatures and print "
                    "one line per event.",
        epilog="Generate a secret: python3 -c 'import base64,os;print(\"whsec_\"+base64.b64encode(os.urandom(32)).decode())'")
    parser.add_argument("--secret", default=os.environ.get("CALLGATE_WEBHOOK_SECRET"),
                        help="whsec_... as given to callgate serve --webhook-secret "
                             "(default: $CALLGATE_WEBHOOK_SECRET)")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=9000, help="port to listen on (default 9000; 0: any free port)")
    parser.add_argument("--path", default="/webhooks", help="path webhooks are POSTed to (default /webhooks)")
    parser.add_argument("--json", action="store_true", help="print each verified payload as one JSON line instead")
    parser.add_argument("--status", type=int, default=204,
                        help="status to answer every verified event with (default 204; e.g. 500 to watch "
                             "CallGate retry, 410 to make it disable the endpoint)")
    parser.add_argument("--tolerance", type=int, default=DEFAULT_TOLERANCE,
                        help=f"seconds a webhook-timestamp may be off (default {DEFAULT_TOLERANCE})")
    parser.add_argument("--delay", type=float, default=0.0, metavar="SECONDS",
                        help="wait this long before answering each verified event, to watch a slow endpoint "
                             "(default 0)")
    parser.add_argument("--keep", type=int, default=CLI_KEEP_DEFAULT, metavar="N",
                        help=f"verified events (and rejections) kept in memory for GET {FEED_PATH}, the oldest "
                             f"dropped first (default {CLI_KEEP_DEFAULT})")
    return parser


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line, checked: exits with status 2 and a message (argparse's parser.error) on
    a missing or malformed secret, a status that is not an HTTP status, a negative, NaN or
    infinite --delay, or a --keep below 1."""
    parser = _parser()
    args = parser.parse_args(argv)
    if not args.secret:
        parser.error("--secret (or $CALLGATE_WEBHOOK_SECRET) is required")
    try:
        parse_secret(args.secret)
    except VerificationError as error:
        parser.error(str(error))
    if not 100 <= args.status <= 599:
        parser.error("--status must be an HTTP status code")
    if not math.isfinite(args.delay) or args.delay < 0:
        parser.error(f"--delay must be a number of seconds, 0 or more, not {args.delay}")
    if args.keep < 1:
        parser.error("--keep must be at least 1")
    if ("/" + args.path.lstrip("/")).split("?", 1)[0] == FEED_PATH:
        parser.error(f"--path cannot be {FEED_PATH}: that is where the receiver lists the events it verified")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)

    seen: dict[str, None] = {}  # the newest CLI_SEEN_IDS webhook-ids, oldest first
    print_lock = threading.Lock()

    def respond(payload: dict, headers: dict) -> int:
        msg_id = headers.get("webhook-id", "")
        with print_lock:
            repeat = msg_id in seen
            seen[msg_id] = None
            if len(seen) > CLI_SEEN_IDS:
                del seen[next(iter(seen))]
            if args.json:
                print(json.dumps(payload, separators=(",", ":"), ensure_ascii=False), flush=True)
            else:
                print(format_event(payload, msg_id, repeat), flush=True)
        if args.delay > 0:
            time.sleep(args.delay)
        return args.status

    def rejected(entry: dict) -> None:
        with print_lock:
            print(f"{datetime.now().isoformat(timespec='seconds')}  rejected (400): {entry['reason']}",
                  file=sys.stderr, flush=True)

    try:
        receiver = Receiver(args.secret, args.host, args.port, respond, path=args.path,
                            tolerance=args.tolerance, on_reject=rejected, keep=args.keep)
    except OSError as error:
        print(f"webhook-receiver: cannot listen on {args.host}:{args.port}: {error}", file=sys.stderr)
        return 1

    stop = threading.Event()
    # Both stop it, even when started in the background of a shell that ignores SIGINT (Python
    # then installs no Ctrl-C handler of its own).
    for stopping in (signal.SIGINT, signal.SIGTERM):
        signal.signal(stopping, lambda *_: stop.set())
    print(f"webhook-receiver: listening on {receiver.url} (events for the web demo: GET {receiver.feed_url}; "
          "Ctrl-C to stop)", file=sys.stderr, flush=True)
    try:
        while not stop.wait(0.5):
            pass
    finally:
        receiver.close()
    print("webhook-receiver: stopped", file=sys.stderr, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
