"""HTTP attacks on the gateway's port: h2c upgrade requests (on /ws and on /healthz), a
malformed Content-Length, and piles of half-sent requests from one address.

Expected: a request with an Upgrade header other than websocket gets 400 with an http.error body
(ERR_BAD_REQUEST), never 101; a malformed Content-Length gets 400 at once (within 2 s, not after
a read timeout); every TCP connection counts against --max-connections-per-address from accept,
so the one past the cap gets 429 ERR_TOO_MANY_CONNECTIONS, and the slots come back as the
connections close.
"""

from __future__ import annotations

import socket
import time

import pytest

from raw_ws import HOST, http_raw, http_request


@pytest.mark.parametrize("path", ["/ws", "/healthz"])
def test_h2c_upgrade(gateway, bystanders, path):
    pair = bystanders(gateway)
    response = http_request(gateway.port, "GET", path, "Connection: Upgrade, HTTP2-Settings", "Upgrade: h2c",
                            "HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA")
    assert response.status == 400, response
    assert response.error_code() == "ERR_BAD_REQUEST", response
    pair.check()


@pytest.mark.parametrize("length", ["abc", "-1"])
@pytest.mark.parametrize("target", ["POST /v1/tokens", "GET /healthz"])
def test_malformed_content_length(gateway, bystanders, target, length):
    pair = bystanders(gateway)
    head = (f"{target} HTTP/1.1\r\nHost: {HOST}:{gateway.port}\r\nAuthorization: Bearer {gateway.admin_key}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {length}\r\n\r\n")
    response = http_raw(gateway.port, head.encode(), timeout=2)  # TimeoutError when slower
    assert response.status == 400, response
    pair.check()



def test_plain_http_connections_count_per_address(start_gateway, bystanders):
    gateway = start_gateway("--max-connections-per-address", "5")
    pair = bystanders(gateway)  # two sockets from 127.0.0.1
    half_sent = []
    for _ in range(3):
        connection = socket.create_connection((HOST, gateway.port))
        connection.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        half_sent.append(connection)
    refused = http_request(gateway.port, "GET", "/healthz")
    assert refused.status == 429, refused
    assert refused.error_code() == "ERR_TOO_MANY_CONNECTIONS", refused
    for connection in half_sent:
        connection.close()
    deadline = time.monotonic() + 3
    while (status := http_request(gateway.port, "GET", "/healthz").status) != 200 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert status == 200
    pair.check()
