"""The webhook rules of the fault-injection harness: judges what the endpoints received against the
outbox, once every delivery finished. Pure, like checker.py, and unit-tested the same way
(tools/test_chaos.py).

- `webhook lost`: every delivery in the outbox was delivered, and its endpoint answered 2xx to
  its `webhook-id`.
- `webhook twice`: no `webhook-id` was answered 2xx twice at one endpoint, but for a node killed,
  frozen or stopped by a drain meanwhile (an answer that died with its node, or came after the
  attempt's timeout while the node was stopped, is attempted again, with the same id).
- `webhook order`: per endpoint and call, the events were first answered 2xx in the order they
  happened (the outbox's order).
- `webhook missing`: every call in the log has its `call.initiated` and the event of its final
  status at every endpoint: calls of every node produce events for endpoints set up on any node.
"""

from __future__ import annotations

from collections import defaultdict

# The event each final status of a call sends.
FINAL_EVENTS = {"rejected": "call.rejected", "busy": "call.busy", "cancelled": "call.cancelled",
                "unanswered": "call.unanswered", "ended": "call.ended"}
# Seconds before a 2xx answer that a halt may have hit the attempt it answered (the attempt's timeout).
ATTEMPT_SECONDS = 5.0


def check_webhooks(verdict, deliveries: list[dict], receipts: dict[str, list[dict]], calls: dict[str, str],
                   halts: list[float]) -> None:
    """Adds the webhook violations to `verdict`.

    `deliveries`: the outbox, each {"endpoint", "delivery" (its id: the order events happened),
    "message", "session", "type", "status"}; `receipts`: endpoint id -> what it received in arrival
    order, each {"id", "status" (what it answered), "t"}; `calls`: call session id -> its final
    status in the log; `halts`: when each node kill, freeze or drain started (Unix seconds)."""
    answered: dict[tuple[str, str], list[float]] = defaultdict(list)
    for endpoint, entries in receipts.items():
        for entry in entries:
            if entry["status"] is not None and 200 <= entry["status"] < 300:
                answered[(endpoint, entry["id"])].append(entry["t"])
    for (endpoint, message), times in sorted(answered.items()):
        for first, second in zip(times, times[1:]):
            if not any(first - ATTEMPT_SECONDS <= halt <= second for halt in halts):
                verdict.add("webhook twice", f"{endpoint} answered {message} 2xx at {first:.3f} and again at "
                                             f"{second:.3f} with no node killed or frozen between")
    by_call: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for delivery in deliveries:
        endpoint, message = delivery["endpoint"], delivery["message"]
        if delivery["status"] != "delivered" or not answered.get((endpoint, message)):
            verdict.add("webhook lost", f"{delivery['type']} {message} of {delivery['session']} to {endpoint} is "
                                        f"{delivery['status']}, answered 2xx {len(answered.get((endpoint, message), []))} times")
            continue
        by_call[(endpoint, delivery["session"])].append(delivery)
    for (endpoint, session), items in sorted(by_call.items()):
        happened = [item["message"] for item in sorted(items, key=lambda item: item["delivery"])]
        arrived = sorted(happened, key=lambda message: answered[(endpoint, message)][0])
        if arrived != happened:
            verdict.add("webhook order", f"{endpoint} got the events of {session} as {arrived}, "
                                         f"not in the order they happened {happened}")
    endpoints = sorted(receipts)
    types: dict[tuple[str, str], set[str]] = defaultdict(set)
    for delivery in deliveries:
        types[(delivery["endpoint"], delivery["session"])].add(delivery["type"])
    for session, status in sorted(calls.items()):
        for endpoint in endpoints:
            wanted = {"call.initiated", FINAL_EVENTS.get(status, f"the event of {status}")}
            missing = wanted - types[(endpoint, session)]
            if missing:
                verdict.add("webhook missing", f"{session} ({status}) has no {sorted(missing)} for {endpoint}")
