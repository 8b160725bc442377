"""The web demo lists a call's webhooks: a real `callgate serve` posting its webhooks to a real
tools/webhook-receiver Receiver (in this process), and headless Chromium pages that read the
receiver's `GET /events` (another origin than the page's) in the call details.

Run with `python3 -m pytest -q tools/web/test_webhook_events.py` from the repository root after
`swift build`.
"""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import pytest
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import Gateway
from phone import Phone

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "webhook-receiver"))

from webhook_receiver import Receiver, session_id  # noqa: E402

SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
TERMINAL = {"call.rejected", "call.busy", "call.cancelled", "call.unanswered", "call.ended"}

# Records the page's unhandled promise rejections (the page must turn every failure into text).
WATCH_REJECTIONS = """
    window.rejections = [];
    window.addEventListener("unhandledrejection", (e) => window.rejections.push(String(e.reason)));
"""


@pytest.fixture
def receiver():
    with Receiver(SECRET) as server:
        yield server


@pytest.fixture
def hooked_gateway(requirements, tmp_path, receiver):
    """A gateway that POSTs every call event to `receiver`."""
    server = Gateway(tmp_path, ("--webhook-allow-private-networks", "--webhook-url", receiver.url, "--webhook-secret", SECRET))
    yield server
    server.stop()


def origin_of(receiver: Receiver) -> str:
    return receiver.url.removesuffix(receiver.path)


def open_phone(browsers, name: str, url: str) -> Phone:
    phone = Phone(browsers.open(name), url)
    phone.driver.execute_script(WATCH_REJECTIONS)
    return phone


def listed_webhooks(phone: Phone) -> list[dict[str, str]]:
    """The call details' webhook list as rendered now, read in one step."""
    return phone.driver.execute_script("""
        return [...document.querySelectorAll('#details-webhooks li')].map((li) => ({
            type: li.dataset.type, id: li.dataset.id, answered: li.dataset.answered, text: li.textContent }))""")


def webhook_message(phone: Phone) -> dict[str, str]:
    return phone.driver.execute_script("""
        const line = document.getElementById('details-webhooks-status');
        return { hidden: line.hidden, state: line.dataset.state || '', text: line.textContent }""")


def no_unhandled_rejections(phone: Phone):
    assert phone.driver.execute_script("return window.rejections") == []
    uncaught = [entry["message"] for entry in phone.driver.get_log("browser") if "Uncaught" in entry["message"]]
    assert uncaught == []


def talk_and_hang_up(alice: Phone, bob: Phone) -> str:
    """Alice rings Bob, Bob answers, both join, Bob hangs up; returns the call's session id."""
    alice.sign_in("alice", "Alice")
    bob.sign_in("bob", "Bob")
    alice.call("bob")
    bob.rings("Alice")
    bob.click("accept-button")
    alice.visible("incall")
    alice.wait_participants({"alice", "bob"})
    bob.wait_participants({"alice", "bob"})
    bob.click("leave-button")
    alice.saw_event("onCallEndedMessageReceived", "Bob")
    alice.hidden("incall")
    alice.wait_history(lambda rows: len(rows) == 1 and rows[0]["status"] == "ended", "Alice's history never showed the call")
    return alice.history()[0]["session-id"]


def test_the_call_details_list_the_calls_webhooks_in_order(hooked_gateway, receiver, browsers):
    alice = open_phone(browsers, "alice", f"{hooked_gateway.url}?webhooks={origin_of(receiver)}")
    bob = open_phone(browsers, "bob", hooked_gateway.url)
    # The receiver's address comes from ?webhooks= and is remembered.
    assert alice.el("webhooks-url").get_property("value") == origin_of(receiver)
    assert alice.driver.execute_script("return localStorage.getItem('callgate.webhooks')") == origin_of(receiver)

    session = talk_and_hang_up(alice, bob)
    # Opened right after the hang-up: the page keeps reading until the terminal event is in.
    alice.open_details(session)
    alice.visible("details-webhooks-section")
    try:
        alice.wait(lambda _: any(item["type"] in TERMINAL for item in listed_webhooks(alice)), "no terminal webhook")
    except TimeoutException:
        raise AssertionError(f"the details never listed the call's terminal webhook: {listed_webhooks(alice)}; "
                             f"the page says {webhook_message(alice)['text']!r}") from None

    items = listed_webhooks(alice)
    types = [item["type"] for item in items]
    assert types[:5] == ["call.initiated", "call.ringing", "call.accepted",
                         "session.participant_joined", "session.participant_joined"], types
    assert types[5:-1] and set(types[5:-1]) == {"session.participant_left"}, types
    assert types[-1] == "call.ended", types
    # Exactly what the receiver verified for this call, once per webhook-id, in arrival order.
    delivered = list(dict.fromkeys((e["id"], e["type"]) for e in receiver.events if session_id(e["payload"]) == session))
    assert [(item["id"], item["type"]) for item in items] == delivered
    assert all(item["answered"] == "ok" for item in items)
    texts = {item["type"]: item["text"] for item in items}
    assert texts["call.ringing"].endswith("call.ringing bob (1 device online)"), texts
    assert texts["call.accepted"].endswith("call.accepted bob"), texts
    assert "call.ended by bob" in texts["call.ended"], texts
    joined = [item["text"].split()[-1] for item in items if item["type"] == "session.participant_joined"]
    assert sorted(joined) == ["alice", "bob"]
    assert webhook_message(alice)["hidden"] is True

    # Bob's page has no receiver set: his details show no webhook list.
    bob.open_details(session)
    assert bob.el("details-webhooks-section").is_displayed() is False
    for phone in (alice, bob):
        no_unhandled_rejections(phone)


def test_the_caller_sees_the_callees_phone_woken_then_ringing(hooked_gateway, browsers):
    alice = open_phone(browsers, "alice", hooked_gateway.url)
    alice.sign_in("alice", "Alice")
    alice.call("bob")
    # Bob has no device: the gateway asked the backend (the webhook) to wake his phone.
    alice.wait(lambda _: alice.el("outgoing-progress").text == "Waking bob's phone",
               f"Alice's screen never said Bob's phone is being woken: {alice.el('outgoing-progress').text!r}")
    bob = open_phone(browsers, "bob", hooked_gateway.url)
    bob.sign_in("bob", "Bob")
    bob.rings("Alice")
    alice.wait(lambda _: alice.el("outgoing-progress").text == "Ringing on 1 device",
               f"Alice's screen never said the ring reached Bob: {alice.el('outgoing-progress').text!r}")
    for phone in (alice, bob):
        no_unhandled_rejections(phone)


def test_an_unreachable_receiver_is_a_message_and_the_page_keeps_working(gateway, browsers):
    with socket.socket() as taken:  # bound, never listening: connections to it are refused
        taken.bind(("127.0.0.1", 0))
        nowhere = f"http://127.0.0.1:{taken.getsockname()[1]}"
        alice = open_phone(browsers, "alice", f"{gateway.url}?webhooks={nowhere}")
        bob = open_phone(browsers, "bob", gateway.url)
        session = talk_and_hang_up(alice, bob)

        alice.open_details(session)
        alice.wait(lambda _: webhook_message(alice)["state"] == "error", "no message about the receiver")
        message = webhook_message(alice)
        assert message["hidden"] is False
        assert message["text"].startswith(f"Cannot reach the webhook receiver at {nowhere}"), message
        assert "webhook_receiver.py" in message["text"]
        assert listed_webhooks(alice) == []
        # The rest of the details are there.
        rows = alice.driver.find_elements(By.CSS_SELECTOR, "#details-participants tr")
        assert {row.get_attribute("data-uid") for row in rows} == {"alice", "bob"}

        # The page keeps working: another call rings and is declined.
        alice.call("bob")
        bob.rings("Alice")
        bob.click("decline-button")
        alice.saw_event("onOutgoingCallRejected", "Bob")
        alice.hidden("outgoing")

        # Emptying the field stops the list (and forgets the address).
        field = alice.el("webhooks-url")
        field.clear()
        field.send_keys(Keys.ENTER)
        alice.hidden("details-webhooks-section")
        assert alice.driver.execute_script("return localStorage.getItem('callgate.webhooks')") is None
        for phone in (alice, bob):
            no_unhandled_rejections(phone)


def test_the_receiver_address_is_remembered_without_the_query(gateway, browsers):
    driver = browsers.open("alice")
    Phone(driver, f"{gateway.url}?webhooks=http://127.0.0.1:9000")
    again = Phone(driver, gateway.url)
    assert again.el("webhooks-url").get_property("value") == "http://127.0.0.1:9000"
    # An empty ?webhooks= clears it.
    cleared = Phone(driver, f"{gateway.url}?webhooks=")
    assert cleared.el("webhooks-url").get_property("value") == ""
    assert driver.execute_script("return localStorage.getItem('callgate.webhooks')") is None
