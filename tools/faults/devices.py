"""The devices of the fault-injection harness: each a thread with one WebSocket at a time to a
random node, doing random call ops (ring, accept, decline, cancel, end) and reconnecting with
`recover`, and writing everything it sends and receives to the shared journal the checker reads.

Meetings: a device sometimes joins one of a few meet sessions every user shares
(`generateToken` + `joinSession`) and later leaves it. Call waiting: some rings allow it, a device
that answers a call often joins its session (where a waiting call puts it on hold), and a device
whose user holds a call that way sometimes takes it back (`resumeCall`).

A device acts on what it was told (its view of each call, from replies, pushes and `activeCalls`)
and takes every error as an answer: under faults many ops fail, and that is not what is judged.
"""

from __future__ import annotations

import json
import random
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "attack"))
from raw_ws import Closed, RawSocket, Refused, token  # noqa: E402

TERMINAL = frozenset({"rejected", "busy", "cancelled", "unanswered", "ended"})
CALL_OPS = frozenset({"initiateCall", "acceptCall", "rejectCall", "endCall"})
REPLY_TIMEOUT = 5.0  # seconds a device waits for a reply before it counts the op as unanswered
MEETINGS = ("meet-a", "meet-b", "meet-c")  # the meet sessions the devices join and leave
RETRYABLE = frozenset({"ERR_CLUSTER_UNAVAILABLE", "ERR_CALL_OWNER_UNREACHABLE", "ERR_STORE_UNAVAILABLE"})


class Journal:
    """Every device's history, in one list, appended under a lock; written out as JSON lines."""

    def __init__(self):
        self.entries: list[dict] = []
        self.lock = threading.Lock()

    def add(self, **entry) -> None:
        entry["t"] = time.time()
        with self.lock:
            self.entries.append(entry)

    def write(self, path: Path) -> None:
        with path.open("w") as f:
            for entry in self.entries:
                f.write(json.dumps(entry, separators=(",", ":")) + "\n")


class Device(threading.Thread):
    """One device of user `uid`, named `name` (unique), calling users among `peers`."""

    def __init__(self, name: str, uid: str, peers: list[str], world, journal: Journal, seed: int, ring_timeout: int):
        super().__init__(name=name, daemon=True)
        self.device, self.uid, self.peers = name, uid, peers
        self.world, self.journal = world, journal
        self.rng = random.Random(seed)
        self.ring_timeout = ring_timeout
        self.jwt = token(world.secrets["jwt"], uid, ttl=24 * 3600)
        self.ws: RawSocket | None = None
        self.conn = 0  # how many connects this device made: pushes are judged per connection
        self.epoch: str | None = None
        self.seq = 0
        self.connection_id: str | None = None
        self.replays_left = 0
        self.replies: dict[str, dict] = {}
        self.serial = 0
        self.view: dict[str, dict] = {}  # sessionId -> {"status", "initiator", "ringing", "joined"}
        self.confirmed: set[tuple[int, str]] = set()  # (connection, sessionId) rings this socket confirmed
        self.active: list[dict] = []  # the last connect's activeCalls
        self.sessions: set[str] = set()  # the meet sessions this socket has joined
        self.stopping = threading.Event()
        self.missed: dict | None = None  # the newest {unseen, revision} of the user's missed calls heard
        self.held: set[str] = set()  # calls a push said this user put on hold (by taking a waiting call)

    # ------------------------------------------------------------------ the random life

    def run(self) -> None:
        try:
            self.live()
        except Exception as error:  # a bug of the harness: reported as such, never as a pass
            self.journal.add(kind="harness-error", device=self.device, uid=self.uid, error=repr(error))
            raise

    def live(self) -> None:
        while not self.stopping.is_set():
            if self.ws is None and not self.connect():
                self.stopping.wait(0.3)
                continue
            self.pump(time.monotonic() + self.rng.uniform(0.2, 1.2))
            if self.ws is not None and not self.stopping.is_set():
                self.act()

    def act(self) -> None:
        """One random op that makes sense for what this device knows."""
        ringing = [s for s, v in self.view.items() if v["ringing"] and v["status"] not in TERMINAL]
        outgoing = [s for s, v in self.view.items() if v["initiator"] == self.uid and v["status"] == "initiated"]
        ongoing = [s for s, v in self.view.items() if v["joined"] and v["status"] == "ongoing"]
        unconfirmed = [s for s in ringing if (self.conn, s) not in self.confirmed]
        roll = self.rng.random()
        if unconfirmed and roll < 0.5:
            # As the bundled clients do once they show a ring (again on each new socket).
            session = self.rng.choice(unconfirmed)
            self.confirmed.add((self.conn, session))
            self.request("confirmRinging", {"sessionId": session})
        elif roll < 0.04:
            self.drop(abrupt=self.rng.random() < 0.5)
        elif roll < 0.07 and self.missed and self.missed["unseen"] > 0:
            # Seen on this device: all of them, or up to a call it knows of (which may not be in
            # the user's log: a meeting, or a call that died before it was durable).
            known = sorted(self.view)
            data = {"sessionId": self.rng.choice(known)} if known and self.rng.random() < 0.4 else {}
            reply = self.request("markCallsSeen", data)
            if reply is not None and "result" in reply:
                self.note_missed(reply["result"])
        elif roll < 0.10:
            if self.sessions and self.rng.random() < 0.6:
                self.leave_meeting(self.rng.choice(sorted(self.sessions)))
            else:
                self.join_meeting(self.rng.choice(MEETINGS))
        elif ringing and roll < 0.6:
            session = self.rng.choice(ringing)
            if self.rng.random() < 0.55:
                reply = self.request("acceptCall", {"sessionId": session})
                if reply is not None and "result" in reply and self.rng.random() < 0.8:
                    self.join_meeting(session)  # the call's session: a waiting call holds it there
            else:
                self.request("rejectCall", {"sessionId": session, "status": "rejected"})
        elif ongoing and roll < 0.40:
            self.request("endCall", {"sessionId": self.rng.choice(ongoing)})
        elif ongoing and roll < 0.45:
            # Rings one more user into the answered call, who may be in it already (an error).
            self.request("inviteToCall", {"sessionId": self.rng.choice(ongoing), "receiverIds": [self.rng.choice(self.peers)]})
        elif outgoing and roll < 0.35:
            self.request("rejectCall", {"sessionId": self.rng.choice(outgoing), "status": "cancelled"})
        elif self.held and roll < 0.75 and self.rng.random() < 0.3:
            session = self.rng.choice(sorted(self.held))
            reply = self.request("resumeCall", {"sessionId": session})
            if reply is not None and "error" in reply and reply["error"]["code"] not in ("ERROR_CALL_IN_PROGRESS", *RETRYABLE):
                self.held.discard(session)
        elif not outgoing and not ongoing:
            data = {"receiverId": self.rng.choice(self.peers), "receiverType": "user", "callType": "audio",
                    "timeout": self.ring_timeout}
            if self.rng.random() < 0.3:
                data["callWaiting"] = True
            self.request("initiateCall", data)

    # ------------------------------------------------------------------ the socket

    def connect(self) -> bool:
        """Connects to a random node that takes it (`recover` from what this device saw); whether
        it did. Records the connect result."""
        nodes = [node for node in self.world.nodes if node.running]
        self.rng.shuffle(nodes)
        for node in nodes:
            try:
                ws = RawSocket(node.port, answer_pings=True)
            except (Refused, Closed, OSError, AssertionError):
                continue
            self.ws = ws
            self.conn += 1
            self.replays_left = 0
            data = {"token": self.jwt}
            if self.epoch is not None:
                data["recover"] = {"epoch": self.epoch, "seq": self.seq}
                if self.connection_id:
                    data["recover"]["connectionId"] = self.connection_id
            reply = self.request("connect", data)
            if reply is None or "result" not in reply:
                self.close()
                continue
            result = reply["result"]
            self.journal.add(kind="connected", device=self.device, uid=self.uid, conn=self.conn, node=node.id,
                             recover="recover" in data, result=result)
            recovery = result.get("recovery")
            if recovery is not None and recovery["recovered"]:
                self.replays_left = recovery["missed"]
            else:
                self.seq = result["seq"]
            self.epoch = result["epoch"]
            self.connection_id = result["connectionId"]
            self.active = result["activeCalls"]
            if "unseenMissedCalls" in result:
                self.note_missed({"unseen": result["unseenMissedCalls"], "revision": result["missedCallsRevision"]})
            self.sessions = {session["sessionId"] for session in result.get("resumedSessions", [])}
            for call in self.active:
                self.learn(call, ringing=call["callStatus"] == "initiated" and call["initiator"]["uid"] != self.uid)
            return True
        return False

    def drop(self, abrupt: bool) -> None:
        """Leaves: a close handshake, or the TCP connection cut without one."""
        self.journal.add(kind="left", device=self.device, uid=self.uid, conn=self.conn, abrupt=abrupt)
        if abrupt and self.ws is not None:
            self.ws.sock.close()
            self.ws = None
        else:
            self.close()

    def close(self) -> None:
        if self.ws is not None:
            self.ws.close()
            self.ws = None

    def pump(self, until: float, reply_id: str | None = None) -> None:
        """Reads what arrives until `until` (or until the reply `reply_id` is in), recording it."""
        while self.ws is not None and time.monotonic() < until and (reply_id is None or reply_id not in self.replies):
            try:
                message = json.loads(self.ws.recv_message(until - time.monotonic()))
            except TimeoutError:
                return
            except (Closed, OSError, ValueError) as error:
                code = error.code if isinstance(error, Closed) else None
                self.journal.add(kind="dropped", device=self.device, uid=self.uid, conn=self.conn, code=code)
                self.ws.sock.close()
                self.ws = None
                return
            if "event" in message:
                replay = self.replays_left > 0
                self.replays_left = max(0, self.replays_left - 1)
                self.journal.add(kind="push", device=self.device, uid=self.uid, conn=self.conn, epoch=self.epoch,
                                 replay=replay, frame=message)
                self.seq = message.get("seq", self.seq)
                self.hear(message)
            elif "id" in message:
                self.replies[message["id"]] = message
            else:
                self.journal.add(kind="stray", device=self.device, uid=self.uid, conn=self.conn, frame=message)

    def request(self, op: str, data: dict) -> dict | None:
        """Sends a request and waits for its reply (reading pushes meanwhile); records both. None
        when no reply came (the node is frozen or away, or the socket dropped)."""
        if self.ws is None:
            return None
        self.serial += 1
        request_id = f"{self.device}-{self.serial}"
        try:
            self.ws.send_text(json.dumps({"id": request_id, "op": op, "data": data}))
        except OSError:
            self.journal.add(kind="dropped", device=self.device, uid=self.uid, conn=self.conn, code=None)
            self.ws.sock.close()
            self.ws = None
        self.pump(time.monotonic() + REPLY_TIMEOUT, reply_id=request_id)
        reply = self.replies.pop(request_id, None)
        if op != "connect":
            self.journal.add(kind="reply", device=self.device, uid=self.uid, conn=self.conn, op=op, data=data,
                             reply=reply)
        if reply is None:
            if self.ws is not None and self.rng.random() < 0.5:
                self.drop(abrupt=True)  # a node that does not answer may be frozen: try another
            return None
        if "result" in reply and op in CALL_OPS:
            self.learn(reply["result"], ringing=False, joined=op in ("initiateCall", "acceptCall"))
        elif "result" in reply and op == "inviteToCall":
            self.learn(reply["result"]["call"])
        elif "error" in reply and "sessionId" in data and op != "inviteToCall" and reply["error"]["code"] not in RETRYABLE:
            if data["sessionId"] in self.view:
                self.view[data["sessionId"]]["status"] = "gone"
        return reply

    def join_meeting(self, session: str) -> None:
        """Joins meet session `session` with a fresh call token."""
        minted = self.request("generateToken", {"sessionId": session})
        if minted is None or "result" not in minted:
            return
        joined = self.request("joinSession", {"callToken": minted["result"]["callToken"], "audioOnly": True})
        if joined is not None and ("result" in joined or joined["error"]["code"] == "ERR_CALL_ALREADY_JOINED"):
            self.sessions.add(session)

    def leave_meeting(self, session: str) -> None:
        reply = self.request("leaveSession", {"sessionId": session})
        if reply is not None and reply.get("error", {}).get("code") not in RETRYABLE:
            self.sessions.discard(session)

    # ------------------------------------------------------------------ what it knows

    def learn(self, call: dict, ringing: bool | None = None, joined: bool = False, invited: bool = False) -> None:
        """Updates the view of a call from a Call object; `invited`: a ring into the answered call."""
        session = call["sessionId"]
        entry = self.view.setdefault(session, {"status": call["callStatus"], "initiator": call["initiator"]["uid"],
                                               "ringing": False, "joined": call["initiator"]["uid"] == self.uid})
        entry["status"] = call["callStatus"]
        if ringing is not None:
            entry["ringing"] = ringing and (call["callStatus"] == "initiated" or invited)
        entry["joined"] = entry["joined"] or joined
        if entry["status"] in TERMINAL:
            entry["ringing"] = False

    def note_missed(self, count: dict) -> None:
        """Keeps `count` of the user's missed calls when it is newer than the one heard."""
        if self.missed is None or count["revision"] > self.missed["revision"]:
            self.missed = {"unseen": count["unseen"], "revision": count["revision"]}

    def hear(self, push: dict) -> None:
        event, data = push["event"], push["data"]
        if event == "onMissedCallsChanged":
            self.note_missed(data)
            return
        if event in ("onCallHeld", "onCallResumed") and data["user"]["uid"] == self.uid:
            (self.held.add if event == "onCallHeld" else self.held.discard)(data["sessionId"])
            return
        call = data.get("call")
        if call is None:
            return
        if event == "onIncomingCallReceived":
            self.learn(call, ringing=True, invited="invitedBy" in data)
        elif event == "onIncomingCallCanceled":
            self.learn(call, ringing=False, joined=data.get("reason") == "answeredElsewhere")
        else:
            self.learn(call)

    # ------------------------------------------------------------------ quiescence

    def reconnect(self) -> bool:
        """A fresh socket with `recover`, and what it replays read; whether it connected."""
        self.close()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.connect():
                self.pump(time.monotonic() + 1.0)
                return True
            time.sleep(0.3)
        return False

    def settle(self) -> None:
        """Ends every call the last connect listed that this device can end: cancels its user's
        ringing call, declines a ring, ends an answered call; leaves the meet sessions it is in;
        retries what the cluster could not take yet."""
        for session in sorted(self.sessions):
            for _ in range(20):
                self.leave_meeting(session)
                if session not in self.sessions:
                    break
                if self.ws is None and not self.reconnect():
                    return
                time.sleep(0.5)
        for call in self.active:
            session, status = call["sessionId"], call["callStatus"]
            if status == "initiated" and call["initiator"]["uid"] == self.uid:
                op, data = "rejectCall", {"sessionId": session, "status": "cancelled"}
            elif status == "initiated" or self.view.get(session, {}).get("ringing"):
                op, data = "rejectCall", {"sessionId": session, "status": "rejected"}
            else:
                op, data = "endCall", {"sessionId": session}
            for _ in range(20):
                reply = self.request(op, data)
                if reply is not None and reply.get("error", {}).get("code") not in RETRYABLE:
                    break
                if self.ws is None and not self.reconnect():
                    return
                time.sleep(0.5)

    def await_missed(self, latest: dict, within: float) -> None:
        """Reads pushes until this device heard its user's count of missed calls at revision
        `latest` (a change may be held back for the user's coalescing interval), for at most
        `within` seconds; records what it heard last."""
        deadline = time.monotonic() + within
        while self.ws is not None and time.monotonic() < deadline:
            if self.missed is not None and self.missed["revision"] >= latest["revision"]:
                break
            self.pump(min(deadline, time.monotonic() + 0.5))
        if self.ws is not None:
            self.journal.add(kind="missed-calls", device=self.device, uid=self.uid, conn=self.conn,
                             known=self.missed or {"unseen": 0, "revision": 0})

    def probe_busy(self, within: float) -> None:
        """Whether this user may start a call now that none lives: rings a user nobody is, and
        cancels it; retries `ERROR_CALL_IN_PROGRESS` for up to `within` seconds. Records how long
        the user stayed busy with no live call."""
        started = time.monotonic()
        while True:
            reply = self.request("initiateCall", {"receiverId": f"probe-{self.uid}", "receiverType": "user",
                                                  "callType": "audio", "timeout": 30})
            code = None if reply is None else reply.get("error", {}).get("code")
            if reply is not None and "result" in reply:
                self.request("rejectCall", {"sessionId": reply["result"]["sessionId"], "status": "cancelled"})
                break
            if time.monotonic() - started > within:
                break
            if self.ws is None:
                self.reconnect()
            time.sleep(1.0 if code == "ERROR_CALL_IN_PROGRESS" else 0.3)
        self.journal.add(kind="busy", device=self.device, uid=self.uid, ok=reply is not None and "result" in reply,
                         seconds=round(time.monotonic() - started, 1), code=code)
