"""The checker of the fault-injection harness: judges a quiesced run from the devices' journal, the
call log and the `call.ringing` webhook messages. Pure: it reads what it is given, so its rules are
unit-tested on made-up histories (tools/test_chaos.py).

The promises it holds the cluster to, whatever the faults were:

- `log`: every call in the log has exactly one row, and it is terminal (nothing rings or runs on);
  every meeting row is terminal too (a meet session id may hold several meetings, one after
  another).
- `unknown call`: every call a device heard of (a reply, a push, `activeCalls`), or the app's
  backend was answered with (its ring, its end), is in the log: nothing a client hears about a
  call is lost with its node.
- `disagreement`: every terminal status a device (or the backend, ending a call) heard for a
  call is the log's.
- `ring left ringing`: a device that rang for a call heard it stop (a stop push, or its own
  accept or decline), unless its own op on the call went unanswered or it later reconnected
  without recovering what it missed.
- `ring after stop`: no device rings for a call after it heard it stop or end, and a connect that
  lists a call the device heard end is followed on that connection by its end again (another
  node's active-call entry may lag a Redis blip, never for good).
- `sequence`: within one connection pushes come with increasing `seq`, and two devices of a user
  never get different frames (but for `seq`) under the same epoch and `seq` (no frame the gateway
  did not send).
- `offline ring`: a device that got a ring live was counted in `call.ringing`'s `onlineDevices`
  (and that event is in the outbox), but within `REBUILD` seconds of Redis restarting empty (the nodes write their device counts
  again as they reconnect: a documented limit).
- `busy`: once no call lives, every user may start one within `busy_grace` seconds (no busy claim
  outlives its call by more than its lease).
- `call identity`: every Call object any device heard for a call (replies, pushes, `activeCalls`,
  on any node, before and after a restart or a takeover) carries the same `callUUID`, and the same
  `ringExpiresAt` unless someone was invited into the call (an invite moves it to the invitee's
  ring deadline, later than any before).
- `progress after stop`: a caller's `onOutgoingCallRinging` tells of a call still `initiated`, and
  never comes after a push by which that device heard the call answered or over (pushes of one
  user are ordered by `seq`; a reply may overtake a push from another node, so replies do not count).
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field

TERMINAL = frozenset({"rejected", "busy", "cancelled", "unanswered", "ended"})
CALL_OPS = frozenset({"initiateCall", "acceptCall", "rejectCall", "endCall", "confirmRinging"})
INVITE = "inviteToCall"
# Seconds after Redis restarted empty during which a device may be counted nowhere: its node
# reconnects (backoff up to 2 s) and writes its device counts again.
REBUILD = 3.0
# Answers to an accept or a decline that tell the device its ring is over.
OVER = frozenset({"ERR_CALL_CANCELLED", "ERR_CALL_REJECTED", "ERR_CALL_ENDED", "ERR_CALL_NOT_FOUND",
                  "ERR_NOT_PARTICIPANT", "ERR_CALL_ALREADY_JOINED"})


@dataclass
class Verdict:
    violations: list[str] = field(default_factory=list)
    calls: int = 0  # calls in the log
    heard: int = 0  # (device, call) pairs judged

    def add(self, rule: str, text: str) -> None:
        self.violations.append(f"{rule}: {text}")


def calls_of(entry: dict) -> list[dict]:
    """The Call objects a journal entry carries: a push's `call`, a call op's result, a connect's
    `activeCalls`, the call the backend's ring or end answered."""
    kind = entry["kind"]
    if kind == "admin":
        answer = entry.get("answer")
        return [answer] if entry.get("status") in (200, 201) and isinstance(answer, dict) and "callStatus" in answer else []
    if kind == "push":
        call = entry["frame"].get("data", {}).get("call")
        return [call] if call else []
    if kind == "reply" and entry["op"] in CALL_OPS and entry.get("reply") and "result" in entry["reply"]:
        return [entry["reply"]["result"]]
    if kind == "reply" and entry["op"] == INVITE and entry.get("reply") and "result" in entry["reply"]:
        return [entry["reply"]["result"]["call"]]
    if kind == "connected":
        return list(entry["result"].get("activeCalls", []))
    return []


def stops_ring(reply: dict | None) -> bool:
    """Whether the answer to this device's accept or decline ended its ring: a success, or an
    error saying the call does not ring it any more."""
    return reply is not None and ("result" in reply or reply["error"]["code"] in OVER)


def check(journal: list[dict], log: dict[str, list[str]], ringing: dict[tuple[str, str], int],
          busy_grace: float, meetings: dict[str, list[str]] | None = None) -> Verdict:
    """Judges a run. `log`: call session id -> the statuses of its rows; `ringing`: (session id,
    uid) -> `onlineDevices` of its `call.ringing`; `busy_grace`: seconds a user may stay busy once
    no call lives (the claim of a call that died with its node lapses with its lease); `meetings`: meet session id -> the statuses
    of its rows."""
    verdict = Verdict(calls=len(log))
    for session, statuses in sorted((meetings or {}).items()):
        if any(status not in TERMINAL for status in statuses):
            verdict.add("log", f"meeting {session} is still {statuses}")
    for session, statuses in sorted(log.items()):
        if len(statuses) != 1:
            verdict.add("log", f"{session} has {len(statuses)} rows: {statuses}")
        elif statuses[0] not in TERMINAL:
            verdict.add("log", f"{session} is still {statuses[0]}")

    by_device: dict[str, list[dict]] = defaultdict(list)
    for entry in journal:
        if "device" in entry:
            by_device[entry["device"]].append(entry)
    pushes_by_number: dict[tuple[str, str, int], tuple[str, str | None, str]] = {}
    judge_identities(journal, verdict)
    restarts = [entry["t"] for entry in journal if entry["kind"] == "fault" and entry["fault"] == "redis-restart"]
    for device, entries in sorted(by_device.items()):
        judge_device(device, entries, log, ringing, restarts, pushes_by_number, verdict)
    for entry in journal:
        if entry["kind"] == "harness-error":
            verdict.add("harness", f"{entry['device']} stopped on an error of the harness: {entry['error']}")
        if entry["kind"] == "busy" and (not entry["ok"] or entry["seconds"] > busy_grace):
            verdict.add("busy", f"{entry['uid']} could not start a call for {entry['seconds']} s after every call "
                                f"ended (last answer {entry.get('code')})")
    return verdict


def judge_identities(journal: list[dict], verdict: Verdict) -> None:
    """`call identity`: one `callUUID` and one `ringExpiresAt` per call, in everything heard of it;
    for a call someone was invited into, one `callUUID` and a `ringExpiresAt` in every object."""
    invited = {entry["data"]["sessionId"] for entry in journal
               if entry["kind"] == "reply" and entry.get("op") == INVITE and (entry.get("reply") or {}).get("result")}
    invited |= {entry["frame"]["data"]["call"]["sessionId"] for entry in journal
                if entry["kind"] == "push" and "invitedBy" in entry["frame"].get("data", {})}
    seen: dict[str, tuple] = {}
    for entry in journal:
        for call in calls_of(entry):
            session = call["sessionId"]
            expiry = call.get("ringExpiresAt")
            identity = (call.get("callUUID"), expiry if session not in invited or expiry is None else "moved")
            if None in identity:
                verdict.add("call identity", f"{entry.get('device')} heard {session} without a callUUID or ringExpiresAt")
            elif seen.setdefault(session, identity) != identity:
                verdict.add("call identity", f"{entry.get('device')} heard {session} as {identity}, "
                                             f"earlier as {seen[session]}")


def judge_device(device: str, entries: list[dict], log: dict[str, list[str]], ringing: dict[tuple[str, str], int],
                 restarts: list[float], pushes_by_number: dict, verdict: Verdict) -> None:
    heard: dict[str, int] = {}  # session -> index of the entry it was first heard in
    terminals: dict[str, set[str]] = defaultdict(set)
    ended: set[str] = set()  # calls this device heard end
    stopped: set[str] = set()  # calls whose ring stopped on this device (or that it heard end)
    rang: dict[str, int] = {}  # session -> index of its first ring on this device
    answered: set[str] = set()  # calls a push told this device were answered or over
    unanswered: set[str] = set()  # calls an op of this device on them went without a reply
    gaps: list[int] = []  # indexes of connects that did not recover what the device missed
    last_seq: dict[int, int] = {}
    # Calls a connect listed after the device heard them end, until that connection hears the
    # end again: another node's active-call entry may lag the end by a Redis blip, then the
    # end's push follows.
    relisted: dict[str, tuple[int, str]] = {}
    for index, entry in enumerate(entries):
        kind = entry["kind"]
        if kind == "connected":
            recovery = entry["result"].get("recovery")
            if entry.get("recover") and not (recovery and recovery.get("recovered")):
                gaps.append(index)
            for call in entry["result"].get("activeCalls", []):
                if call["sessionId"] in ended:
                    relisted[call["sessionId"]] = (entry["conn"], call["callStatus"])
        elif kind == "reply" and entry.get("reply") is None and "sessionId" in entry.get("data", {}):
            unanswered.add(entry["data"]["sessionId"])
        elif kind == "reply" and entry["op"] in ("acceptCall", "rejectCall") and stops_ring(entry.get("reply")):
            stopped.add(entry["data"]["sessionId"])
        elif kind == "push":
            judge_push(device, entry, index, last_seq, pushes_by_number, ringing, restarts, stopped, ended, rang,
                       answered, verdict)
        for call in calls_of(entry):
            session, status = call["sessionId"], call["callStatus"]
            heard.setdefault(session, index)
            if status in TERMINAL and kind != "connected":
                terminals[session].add(status)
                ended.add(session)
                stopped.add(session)
                if session in relisted and relisted[session][0] == entry.get("conn"):
                    del relisted[session]
    for session, (_, status) in sorted(relisted.items()):
        verdict.add("ring after stop", f"{device} was told {session} is {status} after it heard it end, "
                                       "and never heard it end again")
    for session, first in heard.items():
        verdict.heard += 1
        statuses = log.get(session)
        if statuses is None:
            verdict.add("unknown call", f"{device} heard of {session}, which the log does not have")
            continue
        told = terminals.get(session, set())
        if told and (len(told) > 1 or statuses[-1] not in told):
            verdict.add("disagreement", f"{device} heard {sorted(told)} for {session}, the log has {statuses}")
    for session, first in rang.items():
        if session in stopped or session in unanswered or any(gap > first for gap in gaps):
            continue
        verdict.add("ring left ringing", f"{device} rang for {session} and never heard it stop "
                                         f"(the log has {log.get(session)})")


def same_push(first: tuple, second: tuple) -> bool:
    """Whether two pushes under one number are the same push: the same frame but its `seq`, or a
    ring and the `onIncomingCallCanceled` a replay sends in its place once the call stopped
    ringing (proto/websocket.md, Reconnecting)."""
    if first[4] == second[4]:
        return True
    if first[1] != second[1]:
        return False
    events = {first[0]: first[3], second[0]: second[3]}
    return set(events) == {"onIncomingCallReceived", "onIncomingCallCanceled"} and events["onIncomingCallCanceled"]


def judge_push(device: str, entry: dict, index: int, last_seq: dict[int, int], pushes_by_number: dict,
               ringing: dict[tuple[str, str], int], restarts: list[float], stopped: set[str], ended: set[str],
               rang: dict[str, int], answered: set[str], verdict: Verdict) -> None:
    frame = entry["frame"]
    event, seq, data = frame.get("event"), frame.get("seq"), frame.get("data", {})
    if not isinstance(seq, int):
        verdict.add("sequence", f"{device} got a push without a seq: {frame}")
        return
    connection = entry["conn"]
    if connection in last_seq and seq <= last_seq[connection]:
        verdict.add("sequence", f"{device} got seq {seq} after {last_seq[connection]} on one connection ({event})")
    last_seq[connection] = seq
    session = data.get("sessionId") or (data.get("call") or {}).get("sessionId")
    number = (entry["uid"], entry.get("epoch") or "", seq)
    body = json.dumps({key: value for key, value in frame.items() if key != "seq"}, sort_keys=True)
    what = (event, session, device, bool(entry.get("replay")), body)
    if number in pushes_by_number and not same_push(pushes_by_number[number], what):
        verdict.add("sequence", f"{entry['uid']} seq {seq} was {pushes_by_number[number][:2]} on "
                                f"{pushes_by_number[number][2]} and {what[:2]} on {device}")
    pushes_by_number.setdefault(number, what)
    if event == "onIncomingCallReceived" and session:
        if "invitedBy" in data and session not in ended:
            stopped.discard(session)  # invited again into the answered call: a new ring
        if session in stopped or session in ended:
            verdict.add("ring after stop", f"{device} rang for {session} after it heard it stop")
        rang.setdefault(session, index)
        online = ringing.get((session, entry["uid"]))
        rebuilding = any(0 <= entry.get("t", 0.0) - restart <= REBUILD for restart in restarts)
        if not entry.get("replay") and online is None:
            verdict.add("offline ring", f"{device} rang live for {session}, which has no call.ringing in the outbox")
        elif not entry.get("replay") and online == 0 and not rebuilding:
            verdict.add("offline ring", f"{device} rang live for {session}, whose call.ringing said onlineDevices 0")
    elif event == "onIncomingCallCanceled" and session:
        stopped.add(session)
    elif event == "onOutgoingCallRinging" and session:
        status = data["call"].get("callStatus")
        if status != "initiated" or session in answered:
            verdict.add("progress after stop", f"{device} heard {session}'s ring progress ({status}) after "
                                               f"a push told it the call was answered or over")
    call = data.get("call")
    if call and session and call.get("callStatus") != "initiated":
        answered.add(session)
