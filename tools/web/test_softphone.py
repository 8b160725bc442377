"""The web softphone demo in real browsers: headless Chromium sessions driven by Selenium
against a real `callgate serve` (see conftest.py). Each browser session is one device.

Run with `python3 -m pytest -q tools/web` from the repository root after `swift build`.
"""

from __future__ import annotations

import json
import urllib.request

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import Select, WebDriverWait

WAIT = 20  # seconds any one step may take on a loaded 2-core machine


class Phone:
    """One browser session on the softphone page, with the steps a person would take."""

    def __init__(self, driver, url: str):
        self.driver = driver
        self.driver.get(url)

    def el(self, element_id: str):
        return self.driver.find_element(By.ID, element_id)

    def wait(self, condition, message: str):
        """Polls `condition` until it holds; the page re-renders lists as pushes arrive, so an
        element that went stale between finding and reading it just means: look again."""
        wait = WebDriverWait(self.driver, WAIT, ignored_exceptions=(StaleElementReferenceException,))
        return wait.until(condition, message)

    def visible(self, element_id: str):
        return self.wait(ec.visibility_of_element_located((By.ID, element_id)), f"#{element_id} never showed")

    def hidden(self, element_id: str):
        self.wait(ec.invisibility_of_element_located((By.ID, element_id)), f"#{element_id} never went away")

    def click(self, element_id: str):
        self.wait(ec.element_to_be_clickable((By.ID, element_id)), f"#{element_id} is not clickable").click()

    def sign_in(self, uid: str, name: str):
        self.el("uid").send_keys(uid)
        self.el("name").send_keys(name)
        self.click("signin-button")
        self.visible("app")
        assert uid in self.el("me").text

    def call(self, to: str, receiver_type: str = "user", call_type: str = "audio"):
        callee = self.el("callee")
        callee.clear()
        callee.send_keys(to)
        Select(self.el("receiver-type")).select_by_value(receiver_type)
        Select(self.el("call-type")).select_by_value(call_type)
        self.click("call-button")
        self.visible("outgoing")

    def rings(self, caller: str):
        """Waits for the incoming-call screen and checks who it says is calling."""
        self.visible("incoming")
        assert caller in self.el("incoming-from").text

    def saw_event(self, name: str, containing: str = ""):
        selector = f'#events li[data-event="{name}"]'

        def found(driver):
            return any(containing in item.text for item in driver.find_elements(By.CSS_SELECTOR, selector))

        self.wait(found, f"no {name} event containing {containing!r} in {self.el('events').text!r}")

    def participants(self) -> list[str]:
        return self.driver.execute_script(
            "return [...document.querySelectorAll('#participants li')].map((li) => li.dataset.uid)")

    def wait_participants(self, uids: set[str]):
        self.wait(lambda _: set(self.participants()) == uids, f"participants never became {uids}")

    def history(self) -> list[dict[str, str]]:
        """The history list as rendered now, read in one step (it is replaced as a whole)."""
        return self.driver.execute_script("""
            return [...document.querySelectorAll('#history li')].map((li) => ({
                'session-id': li.dataset.sessionId, status: li.dataset.status, type: li.dataset.type,
                direction: li.dataset.direction, missed: li.dataset.missed, class: li.className,
                text: li.textContent }))""")

    def open_details(self, session_id: str):
        selector = f'#history li[data-session-id="{session_id}"]'
        self.wait(lambda driver: driver.find_element(By.CSS_SELECTOR, selector).click() or True, f"no {selector}")
        self.visible("details")

    def wait_history(self, predicate, message: str):
        self.wait(lambda _: predicate(self.history()), message)

    def filter_history(self, call_type: str = "", direction: str = ""):
        Select(self.el("filter-type")).select_by_value(call_type)
        Select(self.el("filter-direction")).select_by_value(direction)
        self.click("refresh-history")


def test_two_browsers_ring_answer_talk_hang_up_and_read_the_history(gateway, browsers):
    alice = Phone(browsers.open("alice"), gateway.url)
    bob = Phone(browsers.open("bob"), gateway.url)
    bob_tablet = Phone(browsers.open("bob-tablet"), gateway.url)
    alice.sign_in("alice", "Alice")
    bob.sign_in("bob", "Bob")
    bob_tablet.sign_in("bob", "Bob")

    # Alice rings Bob: both of Bob's devices ring; answering on one stops the other.
    alice.call("bob", call_type="audio")
    for device in (bob, bob_tablet):
        device.rings("Alice")
    bob.click("accept-button")
    bob_tablet.hidden("incoming")
    bob_tablet.saw_event("onIncomingCallCanceled", "answeredElsewhere")

    # Both join the call's session and see each other.
    alice.hidden("outgoing")
    alice.visible("incall")
    bob.visible("incall")
    alice.wait_participants({"alice", "bob"})
    bob.wait_participants({"alice", "bob"})

    # Mute, record and video reach the other side as session events.
    alice.click("mute-button")
    bob.saw_event("onUserMuted", "Alice audio off")
    bob.wait(lambda _: bob.driver.find_element(By.CSS_SELECTOR, '#participants li[data-uid="alice"]')
             .get_attribute("data-audio-muted") == "true", "Alice never showed as muted")
    bob.click("record-button")
    alice.saw_event("onRecordingToggled", "started by Bob")
    alice.visible("recording-indicator")
    alice.click("video-button")
    bob.saw_event("onCallSwitchedToVideo", "Alice")
    bob.wait(lambda _: bob.el("incall-type").text == "video", "Bob's call never became video")

    # Bob leaves: in a 1:1 call that hangs up for both.
    bob.click("leave-button")
    bob.hidden("incall")
    alice.saw_event("onCallEndedMessageReceived", "Bob")
    alice.hidden("incall")

    # Alice rings again and cancels: a missed call for Bob.
    alice.call("bob")
    bob.visible("incoming")
    alice.click("cancel-button")
    bob.hidden("incoming")
    bob.saw_event("onIncomingCallCanceled", "cancelled")

    # The history, newest first: the missed call marked, then the ended video call.
    bob.wait_history(lambda rows: len(rows) == 2, "Bob's history never listed both calls")
    missed, ended = bob.history()
    assert missed["missed"] == "true" and "missed" in missed["class"] and missed["direction"] == "incoming"
    assert ended["missed"] == "false" and ended["status"] == "ended" and ended["type"] == "video"
    alice.click("refresh-history")
    alice.wait_history(lambda rows: [r["status"] for r in rows] == ["cancelled", "ended"], "Alice's history is wrong")
    assert all(row["direction"] == "outgoing" and row["missed"] == "false" for row in alice.history())

    # Filters: by type and by direction.
    bob.filter_history(call_type="video")
    bob.wait_history(lambda rows: [r["session-id"] for r in rows] == [ended["session-id"]], "video filter")
    bob.filter_history(call_type="audio")
    bob.wait_history(lambda rows: [r["session-id"] for r in rows] == [missed["session-id"]], "audio filter")
    bob.filter_history(direction="outgoing")
    bob.wait_history(lambda rows: rows == [], "Bob made no outgoing call")
    bob.filter_history(direction="incoming")
    bob.wait_history(lambda rows: len(rows) == 2, "incoming filter")

    # Details of the ended call: both participants, joined, with their time in the call.
    bob.open_details(ended["session-id"])
    rows = bob.driver.find_elements(By.CSS_SELECTOR, "#details-participants tr")
    states = {row.get_attribute("data-uid"): row.find_elements(By.TAG_NAME, "td")[1].text for row in rows}
    assert states == {"alice": "joined", "bob": "joined"}


def test_a_group_call_rings_every_member_and_a_decline_stops_only_that_member(gateway, browsers):
    request = urllib.request.Request(
        gateway.url + "v1/groups/team", method="PUT",
        data=json.dumps({"name": "Team", "members": ["alice", "bob", "carol"]}).encode(),
        headers={"Authorization": f"Bearer {gateway.admin_key}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 200
    alice, bob, carol = (Phone(browsers.open(uid), gateway.url) for uid in ("alice", "bob", "carol"))
    for phone, uid in ((alice, "alice"), (bob, "bob"), (carol, "carol")):
        phone.sign_in(uid, uid.title())

    alice.call("team", receiver_type="group")
    for member in (bob, carol):
        member.rings("Team")
    carol.click("decline-button")
    carol.hidden("incoming")
    bob.click("accept-button")
    alice.visible("incall")
    alice.wait_participants({"alice", "bob"})
    alice.click("leave-button")
    alice.hidden("incall")
    carol.click("refresh-history")
    carol.wait_history(lambda rows: len(rows) == 1 and rows[0]["direction"] == "incoming", "Carol's history")

