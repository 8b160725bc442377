"""Per-user quotas that keep one account from exhausting the gateway: devices per user, meet
sessions per user, calls started per minute and recordings per session (default limits).

Expected (hardening contract): the 11th device of a uid gets ERR_TOO_MANY_DEVICES and then
close 4009 while the other ten stay connected; a 6th meet session joined at once gets
ERR_TOO_MANY_SESSIONS (leaving one makes room); the 31st initiateCall within a minute gets
ERR_RATE_LIMITED; the 21st startRecording in one session gets ERR_TOO_MANY_RECORDINGS.
"""

from __future__ import annotations

from raw_ws import Client, error_code


def join(client: Client, session_id: str) -> dict:
    """The reply to joinSession of the meet session `session_id`."""
    call_token = client.result("generateToken", {"sessionId": session_id})["callToken"]
    return client.request("joinSession", {"callToken": call_token})


def test_eleventh_device(gateway, bystanders):
    pair = bystanders(gateway)
    devices = [gateway.client("dora") for _ in range(10)]
    extra = Client(gateway.port)
    reply = extra.request("connect", {"token": gateway.token("dora")})
    assert error_code(reply) == "ERR_TOO_MANY_DEVICES", reply
    assert extra.closed() == 4009
    for device in devices:
        device.result("ping")
        device.close()
    pair.check()


def test_sixth_meet_session(gateway, bystanders):
    pair = bystanders(gateway)
    mia = gateway.client("mia")
    for number in range(1, 6):
        assert "result" in join(mia, f"meet-mia-{number}")
    reply = join(mia, "meet-mia-6")
    assert error_code(reply) == "ERR_TOO_MANY_SESSIONS", reply
    mia.result("leaveSession", {"sessionId": "meet-mia-1"})
    assert "result" in join(mia, "meet-mia-6")
    pair.check()


def test_thirty_first_call_in_a_minute(gateway, bystanders):
    pair = bystanders(gateway)
    rita = gateway.client("rita")
    ring = {"receiverId": "ringo", "receiverType": "user", "callType": "audio"}
    for _ in range(30):
        call = rita.result("initiateCall", ring)
        rita.result("rejectCall", {"sessionId": call["sessionId"], "status": "cancelled"})
    assert rita.error("initiateCall", ring) == "ERR_RATE_LIMITED"
    pair.check()


def test_twenty_first_recording(gateway, bystanders):
    pair = bystanders(gateway)
    rex = gateway.client("rex")
    assert "result" in join(rex, "meet-rex")
    for _ in range(20):
        rex.result("startRecording", {"sessionId": "meet-rex"})
        rex.result("stopRecording", {"sessionId": "meet-rex"})
    assert rex.error("startRecording", {"sessionId": "meet-rex"}) == "ERR_TOO_MANY_RECORDINGS"
    pair.check()
