"""callgate.js from a page on another origin than the gateway, in headless Chromium: an app's
own site (a plain Python web server on another port, with its copy of callgate.js, taken from
the gateway) opens the WebSocket and reads the call log over HTTP, which takes the gateway's
CORS answers for the origins `--allowed-origin` lists. The same page from an origin not listed
cannot read the log.
"""

from __future__ import annotations

import functools
import http.server
import json
import threading
import urllib.request

import pytest

from conftest import Gateway

SCRIPT = """
const [gateway, token, connect, done] = arguments;
(async () => {
  const { CallGateClient } = await import("/callgate.js");
  const client = new CallGateClient({ url: gateway.replace(/^http/, "ws") + "ws", token, reconnect: false });
  if (!connect) {
    try {
      return { logs: await client.callLogs() };
    } catch (error) {
      return { failed: error.name, message: error.message };
    }
  }
  await client.connect();
  const call = await client.initiateCall({ receiverId: "bob", receiverType: "user", callType: "audio" });
  await client.rejectCall(call.sessionId, "cancelled");  // answered once the log row is written
  const page = await client.callLogs({ perPage: 10 });
  const detail = await client.callLog(call.sessionId);
  client.close();
  return { sessionId: call.sessionId, logs: page.data.map((log) => [log.sessionId, log.callStatus]),
           detail: detail.data.map((log) => log.callDirection) };
})().then(done, (error) => done({ crashed: String(error) }));
"""


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass


@pytest.fixture
def site(tmp_path):
    """An app's own web site on another port: a blank page, and callgate.js once copied there."""
    root = tmp_path / "site"
    root.mkdir()
    (root / "index.html").write_text("<!doctype html><meta charset=utf-8><title>another app</title>")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield root, server.server_address[1]
    server.shutdown()
    server.server_close()


@pytest.fixture
def gateway_for_site(requirements, site, tmp_path):
    """A gateway that allows the site's origin only, and the site with the gateway's callgate.js."""
    root, port = site
    directory = tmp_path / "gateway"
    directory.mkdir()
    gateway = Gateway(directory, ("--allowed-origin", f"http://127.0.0.1:{port}"))
    with urllib.request.urlopen(gateway.url + "callgate.js", timeout=10) as response:
        (root / "callgate.js").write_bytes(response.read())
    yield gateway, port
    gateway.stop()


def dev_token(gateway: Gateway, uid: str) -> str:
    request = urllib.request.Request(
        gateway.url + "dev/token", data=json.dumps({"uid": uid}).encode(), method="POST",
        headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.load(response)["token"]


def run(driver, page: str, gateway: Gateway, connect: bool) -> dict:
    driver.get(page)
    driver.set_script_timeout(30)
    result = driver.execute_async_script(SCRIPT, gateway.url, dev_token(gateway, "alice"), connect)
    assert "crashed" not in result, result
    return result


def test_a_page_on_an_allowed_origin_reads_the_call_log(gateway_for_site, browsers):
    gateway, port = gateway_for_site
    result = run(browsers.open("alice"), f"http://127.0.0.1:{port}/", gateway, connect=True)
    assert result["logs"] == [[result["sessionId"], "cancelled"]], result
    assert result["detail"] == ["outgoing"], result


def test_a_page_on_another_origin_cannot_read_it(gateway_for_site, browsers):
    gateway, port = gateway_for_site
    result = run(browsers.open("alice"), f"http://localhost:{port}/", gateway, connect=False)
    assert result.get("failed") == "TypeError", result  # fetch's network error: the preflight got 403
