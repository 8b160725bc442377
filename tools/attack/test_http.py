"""HTTP attacks on the gateway's port: h2c upgrade requests (on /ws and on /healthz) and a
malformed Content-Length.

Expected: a request with an Upgrade header other than websocket gets 400 with an http.error body
(ERR_BAD_REQUEST), never 101; a malformed Content-Length gets 400 at once (within 2 s, not after
a read timeout).
"""

from __future__ import annotations

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

