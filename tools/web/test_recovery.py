"""Reconnects that lose nothing, in the web demo: Alice's socket is aborted mid-call (no close
frame, see network_faults.py), callgate.js reconnects with `recover`, the page says what it
caught up, and the call goes on for both sides. After a restart of the gateway, which keeps no
pushes and no sessions, the pages rebuild and join the call again.

The participant grace period is the gateway's default, 30 s: the first test waits it out to
show that the gateway took Alice's new socket as the one in the call, not as a stranger.
"""

from __future__ import annotations

import socket
import subprocess
import time

from selenium.webdriver.common.by import By

from conftest import Gateway, gateway_binary
from network_faults import drop_connections, set_offline
from phone import Phone

GRACE_SECONDS = 30  # the participant grace period of `callgate serve`
ENDINGS = {"onUserLeft", "onCallEndedMessageReceived", "onCallEnded", "onSessionTimeout"}


def signed_in(gateway, browsers) -> tuple[Phone, Phone]:
    alice = Phone(browsers.open("alice"), gateway.url)
    bob = Phone(browsers.open("bob"), gateway.url)
    alice.sign_in("alice", "Alice")
    bob.sign_in("bob", "Bob")
    return alice, bob


def in_a_call(alice: Phone, bob: Phone) -> tuple[Phone, Phone]:
    """Alice calls Bob, Bob answers, both are in the call's session."""
    alice.call("bob")
    bob.rings("Alice")
    bob.click("accept-button")
    for phone in (alice, bob):
        phone.visible("incall")
        phone.wait_participants({"alice", "bob"})
    return alice, bob


def audio_muted(phone: Phone, uid: str) -> str:
    return phone.driver.find_element(By.CSS_SELECTOR, f'#participants li[data-uid="{uid}"]').get_attribute(
        "data-audio-muted")


def test_a_drop_mid_call_is_recovered_and_the_call_outlives_the_grace_period(gateway, browsers):
    alice, bob = in_a_call(*signed_in(gateway, browsers))

    assert drop_connections(alice.driver, gateway.port) >= 1
    line = alice.wait_recovery(1)
    assert {key: line[key] for key in ("recovered", "missed", "resumed", "rejoined")} == {
        "recovered": "true", "missed": "0", "resumed": "1", "rejoined": "0"}, line
    assert "recovered, caught up 0 missed events" in line["text"]
    assert alice.el("incall").is_displayed()

    time.sleep(GRACE_SECONDS + 3)
    for phone in (alice, bob):
        assert not ENDINGS & set(phone.event_names()), phone.event_names()
        assert phone.el("incall").is_displayed()
        assert set(phone.participants()) == {"alice", "bob"}

    # Both sockets are in the session: each side's mute reaches the other (a socket that had
    # not joined would get ERR_NOT_PARTICIPANT).
    bob.click("mute-button")
    alice.wait(lambda _: audio_muted(alice, "bob") == "true", "Alice never saw Bob mute")
    alice.click("mute-button")
    bob.saw_event("onUserMuted", "Alice audio off")
    assert not any(name.endswith("failed") for name in alice.event_names()), alice.event_names()
    assert alice.recovery()["count"] == "1"  # one drop, one reconnect


def test_a_push_sent_while_the_socket_is_down_is_caught_up_once(gateway, browsers):
    alice, bob = in_a_call(*signed_in(gateway, browsers))

    set_offline(alice.driver, True)  # Alice's reconnects fail until she is back online
    assert drop_connections(alice.driver, gateway.port) >= 1
    alice.wait(lambda _: "reconnecting" in alice.el("status").text, "Alice never noticed the drop")
    bob.click("mute-button")
    bob.wait(lambda _: bob.el("mute-button").text == "Unmute", "Bob's mute was never answered")
    assert audio_muted(alice, "bob") == "false"
    set_offline(alice.driver, False)

    line = alice.wait_recovery(1)
    assert (line["recovered"], line["missed"], line["resumed"]) == ("true", "1", "1"), line
    assert "caught up 1 missed event." in line["text"]
    alice.wait(lambda _: audio_muted(alice, "bob") == "true", "the missed mute never reached Alice's screen")
    alice.saw_event("onUserMuted", "Bob audio off")
    assert alice.event_names().count("onUserMuted") == 1, alice.event_names()
    assert alice.el("incall").is_displayed()

    # The call goes on: Bob unmutes, live this time.
    bob.click("mute-button")
    alice.wait(lambda _: audio_muted(alice, "bob") == "false", "Alice never saw Bob unmute")
    assert not ENDINGS & set(alice.event_names() + bob.event_names())


def test_after_a_gateway_restart_both_pages_join_the_call_again(requirements, browsers, tmp_path):
    with socket.socket() as probe:  # a free port, for both runs of the gateway
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    secret = ("--jwt-secret", "restart-test-secret")  # tokens that outlive the first run

    def token(uid: str) -> str:
        minted = subprocess.run([str(gateway_binary()), "token", "--uid", uid, "--name", uid.title(), *secret],
                                capture_output=True, text=True, check=True)
        return minted.stdout.strip()

    gateway = Gateway(tmp_path, secret, port=port)
    try:
        alice = Phone(browsers.open("alice"), gateway.url)
        bob = Phone(browsers.open("bob"), gateway.url)
        alice.sign_in("alice", "Alice", token("alice"))
        bob.sign_in("bob", "Bob", token("bob"))
        in_a_call(alice, bob)

        gateway.stop()  # closes the sockets with 1001; the call stays open in the database
        gateway = Gateway(tmp_path, secret, port=port)

        for phone in (alice, bob):
            line = phone.wait_recovery(1)
            assert {key: line[key] for key in ("recovered", "missed", "resumed", "rejoined")} == {
                "recovered": "false", "missed": "0", "resumed": "0", "rejoined": "1"}, line
            assert "rebuilt from the calls still live" in line["text"]
        for phone in (alice, bob):
            phone.wait_participants({"alice", "bob"})
            assert phone.el("incall").is_displayed()
        alice.click("mute-button")
        bob.wait(lambda _: audio_muted(bob, "alice") == "true", "Bob never saw Alice mute after the restart")
        assert not ENDINGS & set(alice.event_names() + bob.event_names())
    finally:
        gateway.stop()
