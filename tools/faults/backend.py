"""The app's backend of the fault-injection harness: a thread that steers calls through the admin
API of random nodes while the devices call and the nemesis injects faults, as a doorbell service
or a moderation tool would. It rings users on behalf of others (`POST /v1/calls`), ends live calls
it lists from one node through another (`POST /v1/calls/{id}/end`, which the owner runs), mutes
and removes participants of the shared meetings, and asks users' presence.

Every request and its answer goes to the journal (kind `admin`, device `backend`); errors are
answers, as for the devices: under faults many are refused, and that is not what is judged. What
is judged is that the calls it starts and ends keep every promise the checker holds any call to:
a call a ring answered (201) is in the log, the status an end answered is the log's, and the
devices' own rules (one terminal status, no ring left ringing, a timeline from `initiated` to
`finished`) hold for the calls it rang and ended.
"""

from __future__ import annotations

import json
import random
import threading
import urllib.error
import urllib.request

from faults.devices import MEETINGS, Journal

REQUEST_TIMEOUT = 5.0  # seconds the backend waits for an answer
SERVICES = ("door-1", "door-2")  # initiators of the backend's rings that no device uses


class Backend(threading.Thread):
    """Steers calls among `users` through the admin API of `world`'s nodes."""

    def __init__(self, world, journal: Journal, users: list[str], seed: int, ring_timeout: int):
        super().__init__(name="backend", daemon=True)
        self.world, self.journal, self.users = world, journal, users
        self.rng = random.Random(seed)
        self.ring_timeout = ring_timeout
        self.stopping = threading.Event()
        self.opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    def run(self) -> None:
        try:
            while not self.stopping.wait(self.rng.uniform(0.5, 2.0)):
                self.act()
        except Exception as error:  # a bug of the harness: reported as such, never as a pass
            self.journal.add(kind="harness-error", device="backend", uid="backend", error=repr(error))
            raise

    def act(self) -> None:
        """One random admin op on calls."""
        roll = self.rng.random()
        if roll < 0.35:
            # A doorbell (a uid no device uses) or a user, who may be busy: both must hold.
            receiver = self.rng.choice(self.users)
            initiator = self.rng.choice(SERVICES) if self.rng.random() < 0.5 else \
                self.rng.choice([uid for uid in self.users if uid != receiver])
            self.request("POST", "/v1/calls", {"initiator": initiator, "receiverId": receiver, "receiverType": "user",
                                               "callType": "audio", "timeout": self.ring_timeout})
        elif roll < 0.70:
            status, body = self.request("GET", "/v1/calls?perPage=100")
            calls = body.get("data", []) if status == 200 else []
            if calls:
                call = self.rng.choice(calls)
                reason = {"reason": "chaos moderation"} if self.rng.random() < 0.5 else None
                self.request("POST", f"/v1/calls/{call['sessionId']}/end", reason)
        elif roll < 0.85:
            meeting, uid = self.rng.choice(MEETINGS), self.rng.choice(self.users)
            if self.rng.random() < 0.7:
                self.request("POST", f"/v1/calls/{meeting}/participants/{uid}/mute")
            else:
                self.request("DELETE", f"/v1/calls/{meeting}/participants/{uid}")
        else:
            self.request("GET", f"/v1/users/{self.rng.choice(self.users)}/presence")

    def request(self, method: str, path: str, body: dict | None = None) -> tuple[int, dict]:
        """`method path` on a random running node: its status and JSON body (0 and {} when none
        answered), journaled."""
        nodes = [node for node in self.world.nodes if node.running]
        if not nodes:
            return 0, {}
        node = self.rng.choice(nodes)
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            f"http://127.0.0.1:{node.port}{path}", data=data, method=method,
            headers={"Authorization": f"Bearer {self.world.secrets['admin']}", "Content-Type": "application/json"})
        try:
            with self.opener.open(request, timeout=REQUEST_TIMEOUT) as response:
                status, raw = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, raw = error.code, error.read()
        except (OSError, TimeoutError) as error:
            self.journal.add(kind="admin", device="backend", node=node.id, method=method, path=path, status=0, error=repr(error))
            return 0, {}
        try:
            answer = json.loads(raw) if raw else {}
        except ValueError:
            answer = {"unreadable": raw[:200].decode("latin-1")}
        self.journal.add(kind="admin", device="backend", node=node.id, method=method, path=path, status=status,
                         answer=answer if status >= 300 or method != "GET" else {"count": len(answer.get("data", []))})
        return status, answer
