"""Self-checks for tools/proto_check.py: the contract passes, and wrong frames fail.

Run with `python3 -m pytest -q tools` from the repository root.
"""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path

import pytest

import proto_check

EXAMPLES = proto_check.PROTO / "examples"


def example(name: str, index: int = 0):
    """A deep copy of one example instance from proto/examples/<name>.json."""
    items = json.loads((EXAMPLES / f"{name}.json").read_text(encoding="utf-8"))
    return copy.deepcopy(items[index])


def run_frames(tmp_path: Path, records: list) -> tuple[int, str]:
    """Runs `--frames` over the given records; returns the exit code and the output."""
    path = tmp_path / "frames.jsonl"
    lines = [r if isinstance(r, str) else json.dumps(r) for r in records]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = io.StringIO()
    code = proto_check.main(["--frames", str(path)], out=out)
    return code, out.getvalue()


def summary(output: str) -> str:
    return output.strip().splitlines()[-1]


def test_contract_is_green():
    out = io.StringIO()
    code = proto_check.main([], out=out)
    assert code == 0, out.getvalue()
    assert summary(out.getvalue()).endswith(" passed, 0 failed")


def test_every_example_passes_as_a_frame(tmp_path):
    records = []
    for path in sorted(EXAMPLES.glob("*.json")):
        name = path.name[: -len(".json")]
        for item in json.loads(path.read_text(encoding="utf-8")):
            records.append({"schema": name, "frame": item})
    code, output = run_frames(tmp_path, records)
    assert code == 0, output
    assert summary(output) == f"{len(records)} passed, 0 failed"


def test_extra_field_fails(tmp_path):
    frame = example("result.ping")
    frame["result"]["serverTme"] = 1
    code, output = run_frames(tmp_path, [{"schema": "result.ping", "frame": frame}])
    assert code == 1
    assert "FAIL result.ping" in output and "/result" in output and "serverTme" in output
    assert summary(output) == "0 passed, 1 failed"


def test_extra_field_on_nested_call_fails(tmp_path):
    frame = example("event.onIncomingCallReceived")
    frame["data"]["call"]["status"] = "initiated"
    code, output = run_frames(tmp_path, [{"schema": "event.onIncomingCallReceived", "frame": frame}])
    assert code == 1
    assert "/data/call" in output


def test_missing_required_field_fails(tmp_path):
    frame = example("event.onOutgoingCallAccepted")
    del frame["data"]["by"]
    code, output = run_frames(tmp_path, [{"schema": "event.onOutgoingCallAccepted", "frame": frame}])
    assert code == 1
    assert "'by' is a required property" in output


def test_missing_request_id_fails(tmp_path):
    frame = example("request.acceptCall")
    del frame["id"]
    code, output = run_frames(tmp_path, [{"schema": "request.acceptCall", "frame": frame}])
    assert code == 1
    assert "'id' is a required property" in output


def test_wrong_enum_fails(tmp_path):
    frame = example("result.acceptCall")
    frame["result"]["callType"] = "phone"
    bad_code = example("error")
    bad_code["error"]["code"] = "ERR_CALL_BUSY"
    bad_reason = example("event.onIncomingCallCanceled", 2)
    bad_reason["data"]["reason"] = "canceled"
    code, output = run_frames(tmp_path, [
        {"schema": "result.acceptCall", "frame": frame},
        {"schema": "error", "frame": bad_code},
        {"schema": "event.onIncomingCallCanceled", "frame": bad_reason},
    ])
    assert code == 1
    assert "/result/callType" in output
    assert "/error/code" in output
    assert "/data/reason" in output
    assert summary(output) == "0 passed, 3 failed"


def test_string_timestamp_fails(tmp_path):
    frame = example("result.initiateCall")
    frame["result"]["initiatedAt"] = str(frame["result"]["initiatedAt"])
    ping = example("result.ping")
    ping["result"]["serverTime"] = "1763800000123"
    code, output = run_frames(tmp_path, [
        {"schema": "result.initiateCall", "frame": frame},
        {"schema": "result.ping", "frame": ping},
    ])
    assert code == 1
    assert "/result/initiatedAt" in output and "is not of type 'integer'" in output
    assert "/result/serverTime" in output


def test_milliseconds_where_seconds_belong_fails(tmp_path):
    frame = example("result.initiateCall")
    frame["result"]["initiatedAt"] *= 1000
    code, output = run_frames(tmp_path, [{"schema": "result.initiateCall", "frame": frame}])
    assert code == 1
    assert "/result/initiatedAt" in output


def test_null_for_absent_optional_fails(tmp_path):
    frame = example("result.initiateCall")
    frame["result"]["joinedAt"] = None
    code, output = run_frames(tmp_path, [{"schema": "result.initiateCall", "frame": frame}])
    assert code == 1
    assert "/result/joinedAt" in output


def test_receiver_must_match_receiver_type(tmp_path):
    frame = example("result.initiateCall", 1)  # a group call
    frame["result"]["receiverType"] = "user"
    code, output = run_frames(tmp_path, [{"schema": "result.initiateCall", "frame": frame}])
    assert code == 1
    assert "/result/receiver" in output


def test_bad_session_id_fails(tmp_path):
    frame = example("request.endCall")
    frame["data"]["sessionId"] = "has spaces"
    code, output = run_frames(tmp_path, [{"schema": "request.endCall", "frame": frame}])
    assert code == 1
    assert "/data/sessionId" in output


def test_request_data_allows_unknown_members(tmp_path):
    frame = example("request.initiateCall")
    frame["data"]["someFutureOption"] = True
    code, output = run_frames(tmp_path, [{"schema": "request.initiateCall", "frame": frame}])
    assert code == 0, output


def test_error_without_id_passes_and_long_id_fails(tmp_path):
    no_id = {"error": {"code": "ERR_BAD_REQUEST", "message": "frame is not valid JSON"}}
    long_id = {"id": "x" * 65, "error": {"code": "ERR_BAD_REQUEST", "message": "id too long"}}
    code, output = run_frames(tmp_path, [
        {"schema": "error", "frame": no_id},
        {"schema": "error", "frame": long_id},
    ])
    assert code == 1
    assert summary(output) == "1 passed, 1 failed"


@pytest.mark.parametrize("record", [
    {"schema": "result.nope", "frame": {}},
    {"schema": "objects", "frame": {}},
    {"frame": {}},
    "this line is not JSON",
])
def test_bad_lines_fail(tmp_path, record):
    code, output = run_frames(tmp_path, [record])
    assert code == 1
    assert summary(output) == "0 passed, 1 failed"


def test_each_instance_counts_once(tmp_path):
    frame = example("result.initiateCall")
    frame["result"]["callType"] = "phone"
    frame["result"]["extra"] = 1
    frame["result"]["initiatedAt"] = "soon"
    code, output = run_frames(tmp_path, [{"schema": "result.initiateCall", "frame": frame}])
    assert code == 1
    assert output.count("FAIL ") >= 3
    assert summary(output) == "0 passed, 1 failed"


def test_contract_check_catches_broken_contract(tmp_path, monkeypatch):
    import shutil

    proto = tmp_path / "proto"
    shutil.copytree(proto_check.PROTO, proto)
    monkeypatch.setattr(proto_check, "PROTO", proto)
    monkeypatch.setattr(proto_check, "ROOT", tmp_path)

    broken = json.loads((proto / "schemas" / "http.health.json").read_text())
    broken["properties"]["status"] = {"type": "strng"}  # not a JSON Schema type
    (proto / "schemas" / "http.health.json").write_text(json.dumps(broken))
    (proto / "examples" / "result.ping.json").unlink()
    (proto / "examples" / "result.endCall.json").write_text(json.dumps([{"id": "1", "result": {}}]))
    openapi = json.loads((proto / "openapi.json").read_text())
    openapi["paths"]["/healthz"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]["$ref"] = "schemas/http.healthy.json"
    (proto / "openapi.json").write_text(json.dumps(openapi))

    out = io.StringIO()
    code = proto_check.main([], out=out)
    output = out.getvalue()
    assert code == 1
    assert "FAIL http.health proto/schemas/http.health.json" in output
    assert "FAIL result.ping proto/examples/result.ping.json /: missing examples file" in output
    assert "FAIL result.endCall proto/examples/result.endCall.json[0]" in output
    assert "http.healthy.json" in output


def call_log_list(index: int = 0):
    """A deep copy of one example page from proto/examples/http.callLogList.json."""
    return example("http.callLogList", index)


def test_call_log_missed_rules(tmp_path):
    outgoing_missed = call_log_list()
    outgoing_missed["data"][2]["missed"] = True  # bob's own outgoing call
    missed_false = call_log_list()
    missed_false["data"][1]["missed"] = False
    code, output = run_frames(tmp_path, [
        {"schema": "http.callLogList", "frame": outgoing_missed},
        {"schema": "http.callLogList", "frame": missed_false},
    ])
    assert code == 1
    assert "/data/2" in output and "/data/1/missed" in output
    assert summary(output) == "0 passed, 2 failed"


def test_call_log_live_only_states_and_durations(tmp_path):
    ringing_after_end = call_log_list()
    ringing_after_end["data"][2]["participants"][1] = {
        "uid": "erin", "name": "Erin Walsh", "totalDuration": 0, "state": "ringing"}
    ongoing_duration = call_log_list()
    ongoing_duration["data"][0]["duration"] = 88  # duration stays 0 until the call ends
    running_recording_after_end = call_log_list()
    del running_recording_after_end["data"][2]["recordings"][0]["endedAt"]
    del running_recording_after_end["data"][2]["recordings"][0]["duration"]
    declined_with_stay = call_log_list(1)
    declined_with_stay["data"][0]["participants"][2]["joinedAt"] = 1763790010
    code, output = run_frames(tmp_path, [
        {"schema": "http.callLogList", "frame": ringing_after_end},
        {"schema": "http.callLogList", "frame": ongoing_duration},
        {"schema": "http.callLogList", "frame": running_recording_after_end},
        {"schema": "http.callLogList", "frame": declined_with_stay},
    ])
    assert code == 1
    assert "/data/2/participants/1/state" in output
    assert "/data/0/duration" in output
    assert "/data/2/recordings/0" in output
    assert "/data/0/participants/2" in output
    assert summary(output) == "0 passed, 4 failed"


def test_meetings_have_no_receiver_and_details_are_never_empty(tmp_path):
    meet_with_receiver = example("http.callLogDetail")
    meet_with_receiver["data"][0]["receiver"] = {"uid": "dave", "name": "Dave Okafor"}
    meet_with_receiver["data"][0]["receiverType"] = "user"
    empty = example("http.callLogDetail")
    empty["data"] = []
    code, output = run_frames(tmp_path, [
        {"schema": "http.callLogDetail", "frame": meet_with_receiver},
        {"schema": "http.callLogDetail", "frame": empty},
    ])
    assert code == 1
    assert summary(output) == "0 passed, 2 failed"


def test_pagination_and_cursor_shape(tmp_path):
    too_big = call_log_list()
    too_big["meta"]["pagination"]["perPage"] = 101
    null_cursor = call_log_list()
    null_cursor["meta"]["cursor"]["previous"] = None  # absent, never null
    code, output = run_frames(tmp_path, [
        {"schema": "http.callLogList", "frame": too_big},
        {"schema": "http.callLogList", "frame": null_cursor},
    ])
    assert code == 1
    assert "/meta/pagination/perPage" in output and "/meta/cursor/previous" in output
    assert summary(output) == "0 passed, 2 failed"


def test_recording_url_bodies(tmp_path):
    extra = example("http.recordingUrl")
    extra["note"] = "ignored by the server"
    ftp = {"recordingUrl": "ftp://files.example.com/r1.mp4"}
    code, output = run_frames(tmp_path, [
        {"schema": "http.recordingUrl", "frame": extra},
        {"schema": "http.recordingUrl", "frame": ftp},
        {"schema": "http.recordingAttached", "frame": {**example("http.recordingAttached"), "extra": 1}},
    ])
    assert code == 1
    assert summary(output) == "1 passed, 2 failed"


def test_webhook_payload_rules(tmp_path):
    ringing_ended = example("webhook.call.ringing")  # ongoing rings an invitee; a finished call rings nobody
    ringing_ended["data"]["call"]["callStatus"] = "ended"
    ringing_ended["data"]["call"]["joinedAt"] = 1763800007
    reason_without_by = example("webhook.call.ended")
    del reason_without_by["data"]["by"]
    unanswered_by = example("webhook.call.unanswered")
    unanswered_by["data"]["by"] = {"uid": "bob", "name": "Bob Chen"}
    wrong_suffix = example("webhook.call.rejected")
    wrong_suffix["data"]["call"]["callStatus"] = "busy"
    running_stopped = example("webhook.session.recording_stopped")
    del running_stopped["data"]["recording"]["endedAt"]
    del running_stopped["data"]["recording"]["duration"]
    no_millis = example("webhook.session.participant_joined")
    no_millis["timestamp"] = "2025-11-22T08:26:49Z"
    code, output = run_frames(tmp_path, [
        {"schema": "webhook.call.ringing", "frame": ringing_ended},
        {"schema": "webhook.call.ended", "frame": reason_without_by},
        {"schema": "webhook.call.unanswered", "frame": unanswered_by},
        {"schema": "webhook.call.rejected", "frame": wrong_suffix},
        {"schema": "webhook.session.recording_stopped", "frame": running_stopped},
        {"schema": "webhook.session.participant_joined", "frame": no_millis},
    ])
    assert code == 1
    assert "/data/call/callStatus" in output and "/timestamp" in output
    assert summary(output) == "0 passed, 6 failed"


def test_webhook_delivery_rules(tmp_path):
    pending_without_next = example("http.webhookDeliveryList")
    del pending_without_next["data"][0]["nextAttemptAt"]
    payload_of_another_type = example("http.webhookDeliveryList")
    payload_of_another_type["data"][0]["type"] = "call.cancelled"
    answer_and_error = example("http.webhookDeliveryList")
    answer_and_error["data"][0]["attempts"][0]["statusCode"] = 504
    bad_message_id = example("http.webhookDeliveryList")
    bad_message_id["data"][1]["webhookId"] = "msg_" + "I" * 26  # I is not Crockford base 32
    listed_secret = example("http.webhookEndpoint", 1)
    listed_secret["secret"] = example("http.webhookEndpointCreated")["secret"]
    code, output = run_frames(tmp_path, [
        {"schema": "http.webhookDeliveryList", "frame": pending_without_next},
        {"schema": "http.webhookDeliveryList", "frame": payload_of_another_type},
        {"schema": "http.webhookDeliveryList", "frame": answer_and_error},
        {"schema": "http.webhookDeliveryList", "frame": bad_message_id},
        {"schema": "http.webhookEndpoint", "frame": listed_secret},
        {"schema": "http.webhookUpdate", "frame": {"eventTypes": None, "someFutureOption": 1}},
    ])
    assert code == 1
    assert "/data/0/attempts/0" in output and "/data/1/webhookId" in output
    assert summary(output) == "1 passed, 5 failed"
