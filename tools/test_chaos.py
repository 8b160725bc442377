"""tools/chaos: the checker's rules on made-up histories (each must catch what it is for), the
arguments, and a bounded run of the real harness against a three-node cluster under every fault
(the executable is $CALLGATE_BIN, else the debug build; CALLGATE_CHAOS_SECONDS sets the run's
length, default 75, CALLGATE_CHAOS_SEED its seed, default a fixed one: `make test` replays the
same random choices, though not the same timings; `make chaos` explores fresh seeds)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from faults.checker import Verdict, check
from faults.missed_checker import check_missed_calls
from faults.timeline_checker import check_timelines
from faults.webhook_checker import check_webhooks
from script_module import load_script

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "tools/chaos"


def load_chaos_script():
    return load_script(SCRIPT)


def call(session: str, status: str, initiator: str = "alice", uuid: str | None = None) -> dict:
    return {"sessionId": session, "callStatus": status, "initiator": {"uid": initiator},
            "callUUID": uuid or f"uuid-{session}", "ringExpiresAt": 1_700_000_045}


def push(device: str, seq: int, event: str, data: dict, conn: int = 1, epoch: str = "e1", replay: bool = False) -> dict:
    return {"kind": "push", "device": device, "uid": device.split(".")[0], "conn": conn, "epoch": epoch,
            "replay": replay, "frame": {"event": event, "data": data, "seq": seq}}


def reply(device: str, op: str, data: dict, answer: dict | None) -> dict:
    return {"kind": "reply", "device": device, "uid": device.split(".")[0], "op": op, "data": data, "reply": answer}


def connected(device: str, active: list[dict], recover: bool = False, recovered: bool | None = None) -> dict:
    result = {"activeCalls": active}
    if recovered is not None:
        result["recovery"] = {"recovered": recovered, "missed": 0, "epoch": "e1"}
    return {"kind": "connected", "device": device, "uid": device.split(".")[0], "conn": 1, "recover": recover,
            "result": result}


def rules(verdict) -> list[str]:
    return [violation.split(":")[0] for violation in verdict.violations]


# A call alice made to bob, rung on bob's device, declined by it.
CLEAN = [
    reply("alice.0", "initiateCall", {"receiverId": "bob"}, {"result": call("c1", "initiated")}),
    push("bob.0", 1, "onIncomingCallReceived", {"call": call("c1", "initiated")}),
    reply("bob.0", "rejectCall", {"sessionId": "c1", "status": "rejected"}, {"result": call("c1", "rejected")}),
    push("alice.0", 1, "onOutgoingCallRejected", {"call": call("c1", "rejected"), "by": {"uid": "bob"}}),
]

# Bob's ring was counted online: the outbox's `call.ringing` for it.
RANG = {("c1", "bob"): 1}


def test_two_different_frames_under_one_number_are_caught():
    muted = {"sessionId": "m", "user": {"uid": "bob"}, "audioMuted": True, "videoMuted": False}
    unmuted = dict(muted, audioMuted=False)
    history = CLEAN + [push("alice.0", 2, "onUserMuted", muted), push("alice.1", 2, "onUserMuted", unmuted)]
    assert rules(check(history, {"c1": ["rejected"]}, {("c1", "bob"): 1}, busy_grace=35)) == ["sequence"]


def test_a_clean_history_passes():
    verdict = check(CLEAN, {"c1": ["rejected"]}, {("c1", "bob"): 1}, busy_grace=35)
    assert verdict.violations == []
    assert verdict.calls == 1 and verdict.heard == 2


def test_the_log_must_hold_one_terminal_row_per_call():
    verdict = check(CLEAN, {"c1": ["rejected", "rejected"], "c2": ["ongoing"]}, RANG, busy_grace=35)
    assert rules(verdict) == ["log", "log"]


def test_every_meeting_row_must_be_terminal():
    verdict = check(CLEAN, {"c1": ["rejected"]}, RANG, busy_grace=35, meetings={"m": ["ended", "ended"], "n": ["ended", "ongoing"]})
    assert verdict.violations == ["log: meeting n is still ['ended', 'ongoing']"]


def test_a_call_heard_of_must_be_in_the_log():
    assert rules(check(CLEAN, {}, RANG, busy_grace=35)) == ["unknown call", "unknown call"]


def test_a_device_told_another_outcome_than_the_log_is_caught():
    history = CLEAN[:2] + [push("bob.0", 2, "onIncomingCallCanceled", {"call": call("c1", "cancelled"), "reason": "cancelled"})]
    assert rules(check(history, {"c1": ["rejected"]}, RANG, busy_grace=35)) == ["disagreement"]


def admin(method: str, path: str, status: int, answer: dict) -> dict:
    return {"kind": "admin", "device": "backend", "node": "node1", "method": method, "path": path, "status": status,
            "answer": answer}


def test_the_backends_answers_are_judged_as_a_devices():
    rung = admin("POST", "/v1/calls", 201, call("c2", "initiated", initiator="carol"))
    ended = admin("POST", "/v1/calls/c2/end", 200, call("c2", "ended", initiator="carol"))
    refused = admin("POST", "/v1/calls/c3/end", 409, {"error": {"code": "ERR_CALL_FINISHED", "message": "x"}})
    history = CLEAN + [rung, ended, refused]
    assert check(history, {"c1": ["rejected"], "c2": ["ended"]}, RANG, busy_grace=35).violations == []
    assert rules(check(history, {"c1": ["rejected"]}, RANG, busy_grace=35)) == ["unknown call"]
    assert rules(check(history, {"c1": ["rejected"], "c2": ["cancelled"]}, RANG, busy_grace=35)) == ["disagreement"]


def test_a_ring_never_stopped_is_caught_unless_the_device_could_not_know():
    rang = CLEAN[:2]
    assert rules(check(rang, {"c1": ["unanswered"]}, RANG, busy_grace=35)) == ["ring left ringing"]
    lost = rang + [connected("bob.0", [], recover=True, recovered=False)]
    assert check(lost, {"c1": ["unanswered"]}, RANG, busy_grace=35).violations == []
    unanswered = rang + [reply("bob.0", "acceptCall", {"sessionId": "c1"}, None)]
    assert check(unanswered, {"c1": ["unanswered"]}, RANG, busy_grace=35).violations == []
    told = rang + [reply("bob.0", "acceptCall", {"sessionId": "c1"},
                         {"error": {"code": "ERR_CALL_CANCELLED", "message": ""}})]
    assert check(told, {"c1": ["cancelled"]}, RANG, busy_grace=35).violations == []


def test_a_ring_after_its_stop_is_caught():
    history = CLEAN + [push("bob.0", 2, "onIncomingCallReceived", {"call": call("c1", "initiated")})]
    assert "ring after stop" in rules(check(history, {"c1": ["rejected"]}, RANG, busy_grace=35))
    listed = CLEAN + [connected("alice.0", [call("c1", "initiated")], recover=True, recovered=True)]
    assert rules(check(listed, {"c1": ["rejected"]}, RANG, busy_grace=35)) == ["ring after stop"]
    told_again = listed + [push("alice.0", 2, "onOutgoingCallRejected", {"call": call("c1", "rejected")})]
    assert check(told_again, {"c1": ["rejected"]}, RANG, busy_grace=35).violations == []


def test_pushes_out_of_order_or_differing_under_one_number_are_caught():
    backwards = CLEAN + [CLEAN[3]]
    assert rules(check(backwards, {"c1": ["rejected"]}, RANG, busy_grace=35)) == ["sequence"]
    stood_in = CLEAN + [push("bob.1", 1, "onIncomingCallCanceled", {"call": call("c1", "rejected")}, replay=True)]
    assert check(stood_in, {"c1": ["rejected"]}, RANG, busy_grace=35).violations == []
    live_cancel = CLEAN + [push("bob.1", 1, "onIncomingCallCanceled", {"call": call("c1", "rejected")})]
    assert rules(check(live_cancel, {"c1": ["rejected"]}, RANG, busy_grace=35)) == ["sequence"]
    forged = CLEAN + [push("alice.1", 1, "onIncomingCallReceived", {"call": call("c9", "initiated")}, conn=1)]
    verdict = check(forged, {"c1": ["rejected"], "c9": ["rejected"]}, RANG, busy_grace=35)
    assert "sequence" in rules(verdict)


def test_a_live_ring_counted_offline_or_not_at_all_is_caught_and_a_replayed_one_is_not():
    assert rules(check(CLEAN, {"c1": ["rejected"]}, {("c1", "bob"): 0}, busy_grace=35)) == ["offline ring"]
    assert rules(check(CLEAN, {"c1": ["rejected"]}, {}, busy_grace=35)) == ["offline ring"]
    restarted = [{"kind": "fault", "fault": "redis-restart", "t": 100.0}] + [dict(entry, t=101.0) for entry in CLEAN]
    assert check(restarted, {"c1": ["rejected"]}, {("c1", "bob"): 0}, busy_grace=35).violations == []
    replayed = [CLEAN[0], push("bob.0", 1, "onIncomingCallReceived", {"call": call("c1", "initiated")}, replay=True),
                *CLEAN[2:]]
    assert check(replayed, {"c1": ["rejected"]}, {("c1", "bob"): 0}, busy_grace=35).violations == []


def test_a_call_heard_with_another_identity_is_caught():
    verdict = check(CLEAN + [push("bob.1", 2, "onIncomingCallCanceled",
                                  {"call": call("c1", "rejected", uuid="other"), "reason": "rejectedElsewhere"})],
                    {"c1": ["rejected"]}, {("c1", "bob"): 1}, busy_grace=10)
    assert "call identity" in rules(verdict)
    bare = dict(call("c1", "rejected"))
    del bare["ringExpiresAt"]
    verdict = check(CLEAN[:3] + [push("alice.0", 1, "onOutgoingCallRejected", {"call": bare, "by": {"uid": "bob"}})],
                    {"c1": ["rejected"]}, {("c1", "bob"): 1}, busy_grace=10)
    assert "call identity" in rules(verdict)


def test_an_invite_moves_the_ring_expiry_and_rings_again_a_device_whose_ring_stopped():
    answered = call("c1", "ongoing")
    later = dict(answered, ringExpiresAt=1_700_000_100)
    history = [
        reply("alice.0", "initiateCall", {"receiverId": "bob"}, {"result": call("c1", "initiated")}),
        push("bob.0", 1, "onIncomingCallReceived", {"call": call("c1", "initiated")}),
        reply("bob.0", "acceptCall", {"sessionId": "c1"}, {"result": answered}),
        reply("bob.0", "inviteToCall", {"sessionId": "c1", "receiverIds": ["carol"]},
              {"result": {"call": later, "rung": ["carol"], "busy": []}}),
        push("carol.0", 1, "onIncomingCallReceived", {"call": later, "invitedBy": {"uid": "bob"}}),
        push("carol.0", 2, "onIncomingCallCanceled", {"call": later, "reason": "unanswered"}),
        push("carol.0", 3, "onIncomingCallReceived", {"call": later, "invitedBy": {"uid": "alice"}}),
        reply("carol.0", "rejectCall", {"sessionId": "c1", "status": "rejected"}, {"result": later}),
        reply("alice.0", "endCall", {"sessionId": "c1"}, {"result": dict(later, callStatus="ended")}),
    ]
    rang = {("c1", "bob"): 1, ("c1", "carol"): 1}
    assert check(history, {"c1": ["ended"]}, rang, busy_grace=35).violations == []
    uninvited = [entry for entry in history if entry.get("op") != "inviteToCall" and "invitedBy" not in
                 entry.get("frame", {}).get("data", {})]
    assert "call identity" in rules(check(uninvited, {"c1": ["ended"]}, rang, busy_grace=35))


def test_ring_progress_after_the_answer_is_caught_and_before_it_is_not():
    progress = {"call": call("c1", "initiated"), "devices": 1, "users": 1, "ringing": 1, "waking": 0}
    history = [
        reply("alice.0", "initiateCall", {"receiverId": "bob"}, {"result": call("c1", "initiated")}),
        push("bob.0", 1, "onIncomingCallReceived", {"call": call("c1", "initiated")}),
        reply("bob.0", "confirmRinging", {"sessionId": "c1"}, {"result": call("c1", "initiated")}),
        push("alice.0", 1, "onOutgoingCallRinging", progress),
        reply("bob.0", "acceptCall", {"sessionId": "c1"}, {"result": call("c1", "ongoing")}),
        push("alice.0", 2, "onOutgoingCallAccepted", {"call": call("c1", "ongoing"), "by": {"uid": "bob"}}),
        reply("alice.0", "endCall", {"sessionId": "c1"}, {"result": call("c1", "ended")}),
        push("bob.0", 2, "onCallEndedMessageReceived", {"call": call("c1", "ended"), "by": {"uid": "alice"}}),
    ]
    log = {"c1": ["ended"]}
    assert check(history, log, {("c1", "bob"): 1}, busy_grace=10).violations == []
    late = history[:6] + [push("alice.0", 3, "onOutgoingCallRinging", progress)] + history[6:]
    assert "progress after stop" in rules(check(late, log, {("c1", "bob"): 1}, busy_grace=10))


def test_a_user_busy_with_no_live_call_is_caught():
    busy = {"kind": "busy", "device": "bob.0", "uid": "bob", "ok": False, "seconds": 40.2, "code": "ERROR_CALL_IN_PROGRESS"}
    assert "busy" in rules(check(CLEAN + [busy], {"c1": ["rejected"]}, RANG, busy_grace=35))
    quick = dict(busy, ok=True, seconds=3.0)
    assert check(CLEAN + [quick], {"c1": ["rejected"]}, RANG, busy_grace=35).violations == []


def delivery(endpoint: str, number: int, session: str, kind: str, status: str = "delivered") -> dict:
    return {"endpoint": endpoint, "delivery": number, "message": f"m{number}", "session": session, "type": kind,
            "status": status}


# Call c1 (cancelled) to two endpoints, every event answered 2xx once, in order.
OUTBOX = [delivery(endpoint, number + offset, "c1", kind)
          for offset, endpoint in ((0, "default"), (10, "ep_2"))
          for number, kind in ((1, "call.initiated"), (2, "call.ringing"), (3, "call.cancelled"))]


def posts(answers: list[tuple[int, int, float]]) -> list[dict]:
    return [{"id": f"m{number}", "status": status, "t": t} for number, status, t in answers]


def webhook_rules(deliveries=OUTBOX, receipts=None, calls=None, halts=()) -> list[str]:
    verdict = Verdict()
    receipts = receipts if receipts is not None else {
        "default": posts([(1, 204, 1.0), (2, 204, 2.0), (3, 204, 3.0)]),
        "ep_2": posts([(11, 204, 1.0), (12, 204, 2.0), (13, 204, 3.0)])}
    check_webhooks(verdict, deliveries, receipts, calls if calls is not None else {"c1": "cancelled"}, list(halts))
    return rules(verdict)


def test_clean_webhooks_pass():
    assert webhook_rules() == []


def test_a_webhook_answered_twice_is_caught_unless_a_node_was_halted_between():
    twice = {"default": posts([(1, 204, 1.0), (2, 503, 1.5), (2, 204, 2.0), (3, 204, 3.0), (3, 204, 9.0)]),
             "ep_2": posts([(11, 204, 1.0), (12, 204, 2.0), (13, 204, 3.0)])}
    assert webhook_rules(receipts=twice) == ["webhook twice"]
    assert webhook_rules(receipts=twice, halts=[5.0]) == []
    assert webhook_rules(receipts=twice, halts=[10.0]) == ["webhook twice"]


def test_a_webhook_lost_or_late_in_its_call_is_caught():
    lost = {"default": posts([(1, 204, 1.0), (2, 500, 2.0), (3, 204, 3.0)]),
            "ep_2": posts([(11, 204, 1.0), (13, 204, 2.0), (12, 204, 3.0)])}
    pending = [dict(item, status="pending") if item["delivery"] == 3 else item for item in OUTBOX]
    assert sorted(webhook_rules(deliveries=pending, receipts=lost)) == ["webhook lost", "webhook lost", "webhook order"]


def test_a_call_without_its_events_at_an_endpoint_is_caught():
    assert webhook_rules(deliveries=OUTBOX[:3]) == ["webhook missing"]
    assert webhook_rules(calls={"c1": "cancelled", "c2": "ended"}) == ["webhook missing", "webhook missing"]


def missed_rules(expected, stored, counts, heard=()) -> list[str]:
    verdict = Verdict()
    journal = [{"kind": "missed-calls", "device": device, "uid": device.split(".")[0], "known": known}
               for device, known in heard]
    check_missed_calls(verdict, journal, set(expected), stored, counts)
    return sorted({violation.split(":")[0] for violation in verdict.violations})


def test_missed_calls_noted_and_counted_once_pass():
    counts = {"bob": {"unseen": 1, "revision": 3}}
    stored = {("bob", 1): True, ("bob", 2): False}
    assert missed_rules([("bob", 1), ("bob", 2)], stored, counts, [("bob.0", counts["bob"])]) == []
    assert missed_rules([], {}, {}, [("carol.0", {"unseen": 0, "revision": 0})]) == []


def test_a_missed_call_lost_or_invented_is_caught():
    counts = {"bob": {"unseen": 1, "revision": 1}}
    assert missed_rules([("bob", 1), ("bob", 2)], {("bob", 1): False}, counts) == ["missed calls"]
    assert missed_rules([("bob", 1)], {("bob", 1): False, ("carol", 1): True}, counts) == ["missed calls"]


def test_a_count_off_its_rows_or_a_device_behind_it_is_caught():
    stored = {("bob", 1): False, ("bob", 2): False}
    assert missed_rules([("bob", 1), ("bob", 2)], stored, {"bob": {"unseen": 1, "revision": 2}}) == ["missed count"]
    counts = {"bob": {"unseen": 2, "revision": 2}}
    behind = [("bob.0", counts["bob"]), ("bob.1", {"unseen": 1, "revision": 1})]
    assert missed_rules([("bob", 1), ("bob", 2)], stored, counts, behind) == ["missed count heard"]


def timeline_rules(status="cancelled", steps=None, omitted=0, participants=("alice", "bob")) -> list[str]:
    if steps is None:
        steps = [{"at": 1, "step": "initiated", "uid": "alice", "device": "7"},
                 {"at": 1, "step": "rung", "uid": "bob", "devices": 1, "wakeUp": False},
                 {"at": 5, "step": "finished", "uid": "alice", "status": "cancelled", "reason": "hungUp"}]
    verdict = Verdict()
    stored = None if steps == "none" else json.dumps({"omitted": omitted, "steps": steps})
    check_timelines(verdict, [{"session": "s1", "status": status, "initiator": "alice",
                               "participants": list(participants), "steps": stored}])
    return sorted({violation.split(":")[0] for violation in verdict.violations})


def test_a_timeline_from_initiated_to_finished_passes():
    assert timeline_rules() == []


def test_a_timeline_that_lost_or_doubled_a_step_is_caught():
    assert timeline_rules(steps="none") == ["timeline"]
    assert timeline_rules(status="ended") == ["timeline"], "finished as another status"
    start, rung, end = (json.loads(json.dumps(step)) for step in [
        {"at": 1, "step": "initiated", "uid": "alice"}, {"at": 1, "step": "rung", "uid": "bob"},
        {"at": 5, "step": "finished", "status": "cancelled"}])
    assert timeline_rules(steps=[rung, end]) == ["timeline"], "no initiated step"
    assert timeline_rules(steps=[rung, end], omitted=3) == [], "the first steps may be cut only past the cap"
    assert timeline_rules(steps=[start, rung]) == ["timeline"], "no finished step"
    assert timeline_rules(steps=[start, end, end]) == ["timeline"], "finished twice"
    assert timeline_rules(steps=[start, {**rung, "uid": "mallory"}, end]) == ["timeline"], "not a participant"
    assert timeline_rules(steps=[start, {**rung, "at": 9}, end]) == ["timeline"], "back in time"
    run = {"at": 1, "step": "rung", "users": ["bob", "carol"], "devices": [1, 0], "wakeUp": [False, True]}
    assert timeline_rules(steps=[start, run, end], participants=("alice", "bob", "carol")) == [], "a group's run of rungs"
    assert timeline_rules(steps=[start, run, end]) == ["timeline"], "carol rung, not a participant"


def test_arguments_are_bounded():
    chaos = load_chaos_script()
    args = chaos.parse_args(["--seed", "7"])
    assert (args.duration, args.nodes, args.users, args.seed) == (60, 3, 9, 7)
    assert chaos.parse_args(["--faults", "freeze,kill"]).faults == ["freeze", "kill"]
    for bad in (["--duration", "5"], ["--nodes", "1"], ["--nodes", "6"], ["--users", "1"], ["--faults", "flood"],
                ["--faults", ","]):
        with pytest.raises(SystemExit):
            chaos.parse_args(bad)


def test_a_cluster_under_every_fault_keeps_its_promises(tmp_path):
    """The bounded run of `make test`: its output (faults injected, calls checked, violations)
    is printed when it fails, with where its journal and logs are."""
    binary = os.environ.get("CALLGATE_BIN", str(ROOT / ".build/debug/callgate"))
    seconds = os.environ.get("CALLGATE_CHAOS_SECONDS", "75")
    seed = os.environ.get("CALLGATE_CHAOS_SEED", "20261127")
    argv = [sys.executable, str(SCRIPT), "--duration", seconds, "--seed", seed, "--callgate", binary,
            "--out", str(tmp_path)]
    run = subprocess.run(argv, capture_output=True, text=True, timeout=float(seconds) + 420)
    report = run.stdout + run.stderr
    assert run.returncode == 0, report
    assert "0 violations" in report
    injected = [line for line in report.splitlines() if "faults injected" in line]
    assert injected and not injected[0].split("faults injected: ")[1].startswith("0 "), report
