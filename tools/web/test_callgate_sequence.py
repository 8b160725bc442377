"""callgate.js' bookkeeping of the push sequence, in headless Chromium: a push it has seen is not
dispatched again, the missed pushes of a recovery are, and `recover` then starts from where the
connect result put the sequence.

The gateway never sends a push twice by itself, so after a real `connect` these frames are fed
to the client's frame handler (`_receive`) directly; the connect results of later reconnects
are given to `_follow`, the step `connect()` takes with each of them.
"""

from __future__ import annotations

SCRIPT = """
const done = arguments[arguments.length - 1];
(async () => {
  const { CallGateClient } = await import("/callgate.js");
  const { token } = await CallGateClient.devToken(location.origin, "zoe");
  const client = new CallGateClient({ url: location.origin.replace(/^http/, "ws") + "/ws", token, reconnect: false });
  const seen = [];
  client.addEventListener("onUserMuted", (event) => seen.push(event.detail.n));
  const push = (seq, n) => client._receive(JSON.stringify({ event: "onUserMuted", data: { n }, seq }));
  const first = await client.connect();
  const steps = { first: { seq: first.seq, connectionId: first.connectionId, position: { ...client._position } } };

  push(1, "a"); push(1, "a again"); push(2, "b"); push(1, "a late"); push(3, "c");
  steps.live = { seen: seen.splice(0), position: { ...client._position } };

  // Recovered, 2 missed pushes follow; 4, 6, 8 and 9 were not for this device.
  const epoch = first.epoch;
  client._follow({ epoch, seq: 9, connectionId: "7", recovery: { epoch, recovered: true, missed: 2 } });
  const during = { ...client._position };
  push(5, "missed 5"); push(7, "missed 7"); push(8, "never for us"); push(10, "new");
  steps.recovered = { seen: seen.splice(0), during, position: { ...client._position } };

  // Not recovered: a new epoch, its sequence at 4.
  client._follow({ epoch: "other", seq: 4, connectionId: "8", recovery: { epoch: "other", recovered: false, missed: 0 } });
  push(4, "old in the new epoch"); push(5, "new in the new epoch");
  steps.lost = { seen: seen.splice(0), position: { ...client._position } };
  client.close();
  steps.closed = client._position;
  return steps;
})().then(done, (error) => done({ crashed: String(error) }));
"""


def test_each_push_is_dispatched_once_and_recovery_resumes_from_the_connect_result(gateway, browsers):
    driver = browsers.open("zoe")
    driver.get(gateway.url)
    driver.set_script_timeout(30)
    steps = driver.execute_async_script(SCRIPT)
    assert "crashed" not in steps, steps
    epoch, connection = steps["first"]["position"]["epoch"], steps["first"]["connectionId"]
    assert steps["first"]["seq"] == 0
    assert steps["first"]["position"] == {"epoch": epoch, "seq": 0, "connectionId": connection}
    assert steps["live"] == {"seen": ["a", "b", "c"], "position": {"epoch": epoch, "seq": 3, "connectionId": connection}}
    assert steps["recovered"] == {
        "seen": ["missed 5", "missed 7", "new"],
        "during": {"epoch": epoch, "seq": 3, "connectionId": "7"},
        "position": {"epoch": epoch, "seq": 10, "connectionId": "7"},
    }
    assert steps["lost"] == {"seen": ["new in the new epoch"], "position": {"epoch": "other", "seq": 5, "connectionId": "8"}}
    assert steps["closed"] is None
