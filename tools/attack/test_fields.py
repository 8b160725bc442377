"""Field values crafted to slip past length checks counted in characters or to smuggle odd bytes:
a receiverId of one letter and 5000 combining marks, request ids of 65 bytes, and display names
(in tokens and groups) that are too long in bytes or carry control characters.

Expected (hardening contract): receiverId must be 1..100 bytes of [A-Za-z0-9_.@:-], else
ERR_BAD_REQUEST; a request id must be 1..64 UTF-8 bytes, else ERR_BAD_REQUEST without "id";
names are 1..256 UTF-8 bytes without control characters, else `connect` gets AUTH_ERR and close
4001, and a group PUT gets 400 ERR_BAD_REQUEST. Values just inside the limits are accepted.
"""

from __future__ import annotations

import json

import pytest

from raw_ws import Client, error_code, http_request

BAD_RECEIVERS = {
    "combining marks": "a" + "\u0301" * 5000,
    "NUL": "bob\u0000",
    "accent": "b\u00f3b",
    "space": "bob smith",
    "101 bytes": "b" * 101,
}


@pytest.mark.parametrize("receiver", BAD_RECEIVERS.values(), ids=BAD_RECEIVERS)
def test_bad_receiver_id(gateway, bystanders, receiver):
    pair = bystanders(gateway)
    mallory = gateway.client("mallory")
    ring = {"receiverId": receiver, "receiverType": "user", "callType": "audio"}
    assert mallory.error("initiateCall", ring) == "ERR_BAD_REQUEST"
    pair.check()


def test_receiver_id_of_100_allowed_bytes(gateway, bystanders):
    pair = bystanders(gateway)
    mallory = gateway.client("mallory")
    receiver = "x_.@:-" + "9" * 94
    call = mallory.result("initiateCall", {"receiverId": receiver, "receiverType": "user", "callType": "audio"})
    assert call["receiver"]["uid"] == receiver
    mallory.result("rejectCall", {"sessionId": call["sessionId"], "status": "cancelled"})
    pair.check()


def size(text: str) -> str:
    return f"{len(text)} chars, {len(text.encode())} bytes"


REQUEST_IDS = {  # id: whether it is valid
    "a" * 64: True,
    "\u00e9" * 32: True,  # 64 bytes
    "a" * 65: False,
    "\u00e9" * 33: False,  # 33 characters, 66 bytes
    "\u20ac" * 22: False,  # 22 characters, 66 bytes
}


@pytest.mark.parametrize("request_id", REQUEST_IDS, ids=size)
def test_request_id_bytes(gateway, bystanders, request_id):
    pair = bystanders(gateway)
    mallory = gateway.client("mallory")
    mallory.ws.send_text(json.dumps({"id": request_id, "op": "ping", "data": {}}, ensure_ascii=False))
    reply = mallory.next_reply()
    if REQUEST_IDS[request_id]:
        assert reply["id"] == request_id and "result" in reply, reply
    else:
        assert "id" not in reply and error_code(reply) == "ERR_BAD_REQUEST", reply
    pair.check()


NAMES = {  # name: whether it is valid
    "\u00e9" * 128: True,  # 256 bytes
    "a" * 257: False,
    "\u00e9" * 129: False,  # 129 characters, 258 bytes
    "Eve\u0007": False,
    "Eve\nAdmin": False,
    "Eve\u001b[2J": False,
}


def name_id(name: str) -> str:
    return size(name) if len(name) > 100 else repr(name)


@pytest.mark.parametrize("name", NAMES, ids=name_id)
def test_token_name(gateway, bystanders, name):
    pair = bystanders(gateway)
    eve = Client(gateway.port)
    reply = eve.request("connect", {"token": gateway.token("eve", name=name)})
    if NAMES[name]:
        assert reply["result"]["user"]["name"] == name, reply
    else:
        assert error_code(reply) == "AUTH_ERR", reply
        assert eve.closed() == 4001
    pair.check()


GROUP_NAMES = {  # name: whether it is valid
    "\u00e9" * 128: True,  # 256 bytes
    "a" * 257: False,
    "\u00e9" * 200: False,  # 200 characters, 400 bytes
    "Team\u0000": False,
    "Team\u001b[2J": False,
}


@pytest.mark.parametrize("name", GROUP_NAMES, ids=name_id)
def test_group_name(gateway, bystanders, name):
    pair = bystanders(gateway)
    body = json.dumps({"name": name, "members": ["alice", "bob"]}).encode()
    response = http_request(gateway.port, "PUT", "/v1/groups/team", f"Authorization: Bearer {gateway.admin_key}",
                            "Content-Type: application/json", body=body)
    if GROUP_NAMES[name]:
        assert response.status == 200, response
        assert json.loads(response.body)["name"] == name
    else:
        assert response.status == 400, response
        assert response.error_code() == "ERR_BAD_REQUEST", response
    pair.check()
