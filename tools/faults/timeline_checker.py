"""The timeline rule of the fault-injection harness: judges each call's stored steps (the
`calls.steps` column behind `GET /v3.0/calls/{sessionId}/timeline`) against its call log row,
once the run quiesced. Pure, like checker.py, and unit-tested the same way (tools/test_chaos.py).

- `timeline`: every rung call's steps begin with its `initiated` step, by its initiator, and end
  with one `finished` step whose status is the row's; every `accepted`, `declined` and `rung`
  step names a participant of the row; times never go back. A call taken over by a survivor, or
  resumed by its node's restart, goes on with the steps it was saved with: none is lost or
  written twice across a fault.
"""

from __future__ import annotations

import json


def check_timelines(verdict, calls: list[dict]) -> None:
    """Adds the timeline violations to `verdict`. `calls`: each rung call's `session`, `status`,
    `initiator`, `participants` (uids) and `steps` (the column's JSON text, or None)."""
    for call in calls:
        session = call["session"]
        if call["steps"] is None:
            verdict.add("timeline", f"{session} has no steps")
            continue
        stored = json.loads(call["steps"])
        steps = expand(stored["steps"])
        kinds = [step["step"] for step in steps]
        if stored["omitted"] == 0 and (not steps or steps[0] != {**steps[0], "step": "initiated", "uid": call["initiator"]}):
            verdict.add("timeline", f"{session} does not begin with its initiator's initiated step: {kinds[:3]}")
        if kinds.count("finished") != 1 or kinds[-1] != "finished":
            verdict.add("timeline", f"{session} does not end with one finished step: {kinds[-3:]}")
        elif steps[-1].get("status") != call["status"]:
            verdict.add("timeline", f"{session} finished {steps[-1].get('status')} in its steps, {call['status']} in the log")
        for step in steps:
            if step["step"] in ("rung", "accepted", "declined") and step.get("uid") not in call["participants"]:
                verdict.add("timeline", f"{session} has a {step['step']} step of {step.get('uid')}, not a participant")
        times = [step["at"] for step in steps]
        if times != sorted(times):
            verdict.add("timeline", f"{session}'s steps go back in time")


def expand(stored: list[dict]) -> list[dict]:
    """The steps of the stored elements: a run of `rung` steps of one millisecond is kept as one
    element with `users`, `devices` and `wakeUp` lists (CallSteps+JSON.swift)."""
    steps = []
    for element in stored:
        if "users" in element:
            steps += [{"at": element["at"], "step": "rung", "uid": uid, "devices": devices, "wakeUp": wake_up}
                      for uid, devices, wake_up in zip(element["users"], element["devices"], element["wakeUp"])]
        else:
            steps.append(element)
    return steps
