"""callgate.js and token lifetime, in headless Chromium against a real `callgate serve`: the
gateway closes a socket with 4003 when its token expires, and the client's `fetchToken`
callback refreshes the token before then.

Tokens live 8 seconds here (`POST /dev/token` with `ttl`), so the refresh runs several times in
a few seconds.
"""

from __future__ import annotations

SCRIPT = """
const [options, done] = [arguments[0], arguments[arguments.length - 1]];
(async () => {
  const { CallGateClient } = await import("/callgate.js");
  let fetches = 0;
  const mint = async () => {
    fetches += 1;
    const response = await fetch("/dev/token", {
      method: "POST", headers: { "content-type": "application/json" },
      body: JSON.stringify({ uid: "zoe", ttl: 8 }),
    });
    return (await response.json()).token;
  };
  const url = location.origin.replace(/^http/, "ws") + "/ws";
  const client = new CallGateClient({ url, token: await mint(), fetchToken: options.refresh ? mint : null });
  const closes = [];
  client.addEventListener("close", (event) => closes.push(event.detail));
  const connected = await client.connect();
  await new Promise((resolve) => setTimeout(resolve, options.waitMs));
  let ping = null;
  try {
    ping = await client.ping();
  } catch (error) {
    ping = { error: error.code };
  }
  client.close();
  return { fetches, closes, ping, expiresAt: connected.tokenExpiresAt, token: client.token };
})().then(done, (error) => done({ failed: String(error) }));
"""


def run(driver, url: str, refresh: bool, wait_ms: int) -> dict:
    driver.get(url)
    driver.set_script_timeout(60)
    result = driver.execute_async_script(SCRIPT, {"refresh": refresh, "waitMs": wait_ms})
    assert "failed" not in result, result
    return result


def test_fetch_token_keeps_the_socket_open_past_every_token(gateway, browsers):
    result = run(browsers.open("zoe"), gateway.url, refresh=True, wait_ms=12000)
    assert result["closes"] == [], result
    assert "serverTime" in result["ping"], result
    assert result["fetches"] >= 2, result  # the first token, then a refresh every 4 s or so


def test_without_fetch_token_the_socket_closes_4003_and_does_not_reconnect(gateway, browsers):
    result = run(browsers.open("zoe"), gateway.url, refresh=False, wait_ms=11000)
    assert [close["code"] for close in result["closes"]] == [4003], result
    assert result["closes"][0]["willReconnect"] is False, result
    assert result["ping"] == {"error": "ERR_DISCONNECTED"}, result
    assert result["fetches"] == 1, result
