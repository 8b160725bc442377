"""Webhooks under a bad endpoint, a hostile URL or a failing store: one endpoint cannot hold up
another, an endpoint that keeps failing is left alone (its breaker opens), deliveries expire on time
whether attempted or not, deleting an endpoint mid-attempt is clean, addresses inside the network
are refused, and a read-only store is asked a few times a second, not thousands."""

from __future__ import annotations

import ipaddress
import socket
import sys
import threading
import time

import pytest
from test_webhooks import recorded, ring
from webhook_checks import SECRET, TOOLS, Gateway, Receiver, Silent, admin, metric, proto_check, session_of

sys.path.insert(0, str(TOOLS))
from throwaway import ThrowawayPostgres  # noqa: E402


def name_inside_the_network() -> str:
    """A host name this machine resolves (hosts file) only to loopback or private addresses."""
    for name in (socket.gethostname(), "localhost.localdomain", "ip6-localhost", "ip6-loopback"):
        try:
            addresses = {info[4][0] for info in socket.getaddrinfo(name, None)}
        except OSError:
            continue
        if addresses and all(ipaddress.ip_address(a.split("%")[0]).is_private for a in addresses):
            return name
    raise AssertionError("no host name of this machine resolves inside the network to try the check with")


def test_an_endpoint_that_never_answers_holds_up_no_other_and_its_breaker_opens(start_gateway, tmp_path):
    silent = Silent()
    try:
        gateway = Gateway(tmp_path, "--webhook-allow-private-networks", "--webhook-url", silent.url,
                          "--webhook-secret", SECRET, "--max-messages-per-second", "0")
        try:
            with Receiver(SECRET) as healthy:
                status, created = admin(gateway, "POST", "/v1/webhooks", {"url": healthy.url, "secret": SECRET})
                assert status == 201
                alice = gateway.client("alice")
                delays = []
                # 30 calls at 3 per second: the silent endpoint's 16 attempts (its default budget
                # alone, half with a second endpoint) wait 10 s each; the healthy one goes on.
                for _ in range(30):
                    started = time.time()
                    session = ring(alice, "bob")
                    arrived = healthy.wait_for(lambda events: next(
                        (event for event in events
                         if event["type"] == "call.ringing" and session_of(event["payload"]) == session), None),
                        timeout=15)
                    delays.append(arrived["received_at"] - started)
                    alice.result("rejectCall", {"sessionId": session, "status": "cancelled"})
                    time.sleep(max(0.0, started + 0.33 - time.time()))
                assert max(delays) < 2.0, f"the healthy endpoint waited {max(delays):.2f} s for a ring"
                deadline = time.monotonic() + 30
                state = None
                while time.monotonic() < deadline:
                    state = metric(gateway, 'callgate_webhook_endpoint_breaker{endpoint="default"}')
                    if state == 2:
                        break
                    time.sleep(0.5)
                assert state == 2, "the silent endpoint's breaker did not open"
                assert metric(gateway, f'callgate_webhook_endpoint_breaker{{endpoint="{created["id"]}"}}') == 0
                assert metric(gateway, 'callgate_webhook_endpoint_backlog{endpoint="default"}') > 0
        finally:
            gateway.stop()
    finally:
        silent.close()


def test_deliveries_expire_on_time_whether_attempted_or_not(start_gateway, receiver, hooks):
    receiver.respond = lambda payload, headers: 503
    gateway = start_gateway("--webhook-breaker-failures", "1", "--webhook-breaker-cooldown", "3600",
                            "--webhook-retry-period", "3")
    alice = gateway.client("alice")
    session = ring(alice, "bob")
    alice.result("rejectCall", {"sessionId": session, "status": "cancelled"})
    body = recorded(gateway, "/v1/webhooks/default/deliveries",
                    lambda body: len(body["data"]) == 3 and all(d["status"] == "failed" for d in body["data"]),
                    timeout=15)
    reasons = sorted((d["type"], d["failureReason"], len(d["attempts"])) for d in body["data"])
    assert reasons == [("call.cancelled", "expired", 0), ("call.initiated", "expired", 1),
                       ("call.ringing", "expired", 0)], reasons
    validator = proto_check.validator_for("http.webhookDeliveryList", hooks.schemas, hooks.registry)
    assert [error.message for error in validator.iter_errors(body)] == []
    assert metric(gateway, 'callgate_webhook_failures_total{reason="expired"}') == 3


def test_deleting_an_endpoint_with_an_attempt_in_flight_ends_it_cleanly(start_gateway, receiver):
    arrived = threading.Event()

    def slow(payload, headers):
        arrived.set()
        time.sleep(1.5)
        return 204

    gateway = start_gateway()
    with Receiver(SECRET, respond=slow) as second:
        status, created = admin(gateway, "POST", "/v1/webhooks", {"url": second.url, "secret": SECRET})
        assert status == 201
        ring(gateway.client("alice"), "bob")
        assert arrived.wait(10)
        assert admin(gateway, "DELETE", f"/v1/webhooks/{created['id']}")[0] == 204
        time.sleep(2.5)
    assert metric(gateway, "callgate_webhook_store_errors_total") == 0
    assert "outbox unavailable" not in gateway.log_path.read_text()
    assert gateway.running()


def test_addresses_inside_the_network_are_refused_unless_allowed(tmp_path):
    refused = Gateway(tmp_path, "--max-messages-per-second", "0")
    try:
        with Receiver(SECRET) as inside:
            status, body = admin(refused, "POST", "/v1/webhooks", {"url": inside.url})
            assert status == 400 and "loopback" in body["error"]["message"], body
            for url in ("http://169.254.169.254/latest/meta-data/", "http://[::1]/", "http://10.0.0.8/",
                        "http://2130706433/", "http://localhost:9/"):
                assert admin(refused, "POST", "/v1/webhooks", {"url": url})[0] == 400, url
            # A name is checked where it is resolved, at each connection: this one resolves
            # inside the network, and the attempt never connects.
            by_name = inside.url.replace("127.0.0.1", name_inside_the_network())
            status, created = admin(refused, "POST", "/v1/webhooks", {"url": by_name})
            assert status == 201
            ring(refused.client("alice"), "bob")
            body = recorded(refused, f"/v1/webhooks/{created['id']}/deliveries",
                            lambda body: any(d["attempts"] for d in body["data"]))
            attempt = next(d["attempts"][0] for d in body["data"] if d["attempts"])
            assert "refused: " in attempt["error"] and "--webhook-allow-private-networks" in attempt["error"], attempt
            assert "statusCode" not in attempt
            assert inside.events == [] and inside.rejected == []
    finally:
        refused.stop()
    with pytest.raises(RuntimeError, match="10.1.2.3 is a private address"):
        Gateway(tmp_path, "--webhook-url", "http://10.1.2.3/hooks", "--webhook-secret", SECRET)


def test_a_read_only_store_is_asked_a_few_times_a_second_and_every_event_goes_out_after(tmp_path):
    postgres = ThrowawayPostgres(tmp_path)
    try:
        database = postgres.create_database("callgate")
        with Receiver(SECRET) as receiver:
            gateway = Gateway(tmp_path, "--database", database, "--webhook-allow-private-networks",
                              "--webhook-url", receiver.url, "--webhook-secret", SECRET,
                              "--webhook-retry-schedule", "1s", "--webhook-breaker-failures", "100",
                              "--max-messages-per-second", "0")
            try:
                down = threading.Event()
                receiver.respond = lambda payload, headers: 503 if down.is_set() else 204
                down.set()
                alice = gateway.client("alice")
                sessions = []
                for _ in range(5):
                    sessions.append(ring(alice, "bob"))
                    alice.result("rejectCall", {"sessionId": sessions[-1], "status": "cancelled"})
                receiver.wait_for(lambda events: len(events) >= 5)

                def rollbacks() -> int:
                    return int(postgres.client("psql", "-X", "-A", "-t", "-d", "callgate", "-c",
                                               "SELECT xact_rollback FROM pg_stat_database "
                                               "WHERE datname = 'callgate'").strip())

                postgres.set_read_only(True)
                before = rollbacks()
                down.clear()
                time.sleep(10)
                failed = rollbacks() - before
                postgres.set_read_only(False)
                assert failed <= 50, f"{failed} failed transactions in 10 s of a read-only store"
                for session in sessions:
                    receiver.wait_for(lambda events: len({
                        event["id"] for event in events if session_of(event["payload"]) == session
                        and event["attempt_status"] == 204}) >= 3, timeout=20)
                body = recorded(gateway, "/v1/webhooks/default/deliveries?limit=100",
                                lambda body: all(d["status"] == "delivered" for d in body["data"]), timeout=20)
                assert len(body["data"]) == 15 and all(d["status"] == "delivered" for d in body["data"])
                print(f"read-only store: {failed} failed transactions in 10 s")
            finally:
                gateway.stop()
    finally:
        postgres.shut_down()


def test_the_isolation_script_reports_a_short_run(capsys):
    from script_module import load_script

    script = load_script(TOOLS / "webhook-isolation")
    assert script.main(["--duration", "5", "--rate", "2"]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split()[:6] == ["build", "calls", "rings", "p50", "s", "p99"]
    build, calls, rings = table[1].split()[:3]
    assert int(calls) >= 10 and rings == calls
