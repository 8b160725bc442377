"""The missed-call rules of the fault-injection harness: judges the store's missed calls against
the call log, and what every device heard last against the store, once the run quiesced. Pure,
like checker.py, and unit-tested the same way (tools/test_chaos.py).

- `missed calls`: every call of the log that is missed for a user (a callee it stopped ringing
  unanswered, or who declined it as busy) is noted once as that user's missed call, and nothing
  else is: no node's crash or takeover loses or doubles one.
- `missed count`: each user's count of unseen missed calls is the number of their missed calls no
  device marked seen.
- `missed count heard`: every device connected at the end heard (from its connect, a push or a
  `markCallsSeen` answer) the count with its user's latest revision: a change reaches every
  device of the user, on every node, whatever the faults.
"""

from __future__ import annotations

from collections import Counter

NONE = {"unseen": 0, "revision": 0}


def check_missed_calls(verdict, journal: list[dict], expected: set[tuple[str, int]],
                       stored: dict[tuple[str, int], bool], counts: dict[str, dict]) -> None:
    """Adds the missed-call violations to `verdict`. `expected`: the (uid, call id) pairs the log
    makes missed; `stored`: the noted ones, to whether they were seen; `counts`: uid -> the stored
    `{unseen, revision}`."""
    for uid, call in sorted(expected - set(stored)):
        verdict.add("missed calls", f"call {call} is missed for {uid} in the log but was never noted")
    for uid, call in sorted(set(stored) - expected):
        verdict.add("missed calls", f"call {call} was noted as missed for {uid}, which the log does not say")
    unseen = Counter(uid for (uid, _), seen in stored.items() if not seen)
    for uid in sorted(set(unseen) | set(counts)):
        held = counts.get(uid, NONE)["unseen"]
        if held != unseen[uid]:
            verdict.add("missed count", f"{uid}'s count says {held} unseen, {unseen[uid]} missed calls are unseen")
    for entry in journal:
        if entry["kind"] != "missed-calls":
            continue
        truth = counts.get(entry["uid"], NONE)
        if entry["known"] != truth:
            verdict.add("missed count heard", f"{entry['device']} last heard {entry['known']}, the store has {truth}")
