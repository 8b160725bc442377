"""The web softphone demo in real browsers: headless Chromium sessions driven by Selenium
against a real `callgate serve` (see conftest.py). Each browser session is one device.

Run with `python3 -m pytest -q tools/web` from the repository root after `swift build`.
"""

from __future__ import annotations

import json
import urllib.request

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec

from phone import Phone


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
    # Both ringing devices confirmed the ring: Alice's screen says where it rings.
    alice.wait(lambda _: alice.el("outgoing-progress").text == "Ringing on 2 devices",
               "Alice never saw the ring on Bob's two devices")
    alice.saw_event("onOutgoingCallRinging", "Ringing on 2 devices")
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

    # Bob raises his hand: Alice sees it next to his name. Alice, the caller, hosts the call: she
    # alone has a Mute button next to Bob, and Bob's page shows him muted by her.
    bob.click("hand-button")
    alice.saw_event("onSessionEvent", "raiseHand from Bob")
    alice.wait(lambda driver: driver.find_element(By.CSS_SELECTOR, '#participants li[data-uid="bob"]')
               .get_attribute("data-hand") == "true", "Bob's raised hand never showed")
    assert not bob.driver.find_elements(By.CSS_SELECTOR, "#participants button[data-action]")
    host_control(alice, "bob", "muteParticipant").click()
    bob.saw_event("onUserMuted", "Bob audio off by Alice")
    bob.wait(lambda _: bob.el("mute-button").text == "Unmute", "Bob's page never showed him muted")

    # Bob puts the call on hold and takes it up again: Alice's list shows him on hold meanwhile.
    bob.click("hold-button")
    alice.saw_event("onCallHeld", "Bob")
    alice.wait(lambda driver: driver.find_element(By.CSS_SELECTOR, '#participants li[data-uid="bob"]')
               .get_attribute("data-on-hold") == "true", "Bob never showed on hold")
    bob.click("hold-button")
    alice.saw_event("onCallResumed", "Bob")
    alice.wait(lambda driver: driver.find_element(By.CSS_SELECTOR, '#participants li[data-uid="bob"]')
               .get_attribute("data-on-hold") == "false", "Bob never showed back from hold")

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

    # Both of Bob's pages show the missed call's badge; seen on one, it clears on both.
    for device in (bob, bob_tablet):
        device.saw_event("onMissedCallsChanged", "1 unseen")
        device.wait(lambda _: device.el("missed-badge").is_displayed() and device.el("missed-badge").text == "1 missed",
                    "the badge never showed the missed call")
    bob.wait_history(lambda rows: len(rows) == 2 and "unseen" in rows[0]["class"], "the missed call never showed unseen")
    bob_tablet.click("mark-seen")
    for device in (bob, bob_tablet):
        device.hidden("missed-badge")
    bob.saw_event("onMissedCallsChanged", "0 unseen")

    # The history, newest first: the missed call marked, then the ended video call.
    bob.wait_history(lambda rows: len(rows) == 2 and "unseen" not in rows[0]["class"], "the missed call never showed seen")
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
    durations = {row.get_attribute("data-uid"): row.find_elements(By.TAG_NAME, "td")[3].text for row in rows}
    assert "on hold" in durations["bob"] and "on hold" not in durations["alice"], durations
    # Its timeline, step by step: the call, the ring on both of Bob's devices, his answer, the end.
    bob.wait(lambda driver: "finished" in timeline_steps(driver), "the call's timeline never showed its end")
    steps = timeline_steps(bob.driver)
    assert steps[:2] == ["initiated", "rung"] and "accepted" in steps and steps[-1] == "finished", steps
    assert "rung on 2 devices" in bob.driver.find_element(By.CSS_SELECTOR, '#details-timeline li[data-step="rung"]').text


def host_control(phone: Phone, uid: str, action: str):
    """The host's button `action` next to participant `uid`, once it can be clicked."""
    selector = f'#participants li[data-uid="{uid}"] button[data-action="{action}"]'
    return phone.wait(ec.element_to_be_clickable((By.CSS_SELECTOR, selector)), f"no {action} button next to {uid}")


def test_the_host_removes_the_other_party_from_a_call(gateway, browsers):
    alice = Phone(browsers.open("alice"), gateway.url)
    bob = Phone(browsers.open("bob"), gateway.url)
    alice.sign_in("alice", "Alice")
    bob.sign_in("bob", "Bob")
    alice.call("bob")
    bob.rings("Alice")
    bob.click("accept-button")
    alice.wait_participants({"alice", "bob"})
    bob.wait_participants({"alice", "bob"})
    host_control(alice, "bob", "removeParticipant").click()
    bob.hidden("incall")
    bob.saw_event("onRemovedFromCall", "Alice")
    assert "Alice removed you" in bob.visible("removed").text
    # The 1:1 call ended with the removal: Alice's own screen leaves it on the reply.
    alice.hidden("incall")


def signed_in(gateway, browsers, *uids: str) -> list[Phone]:
    """A phone for each of `uids`, signed in under the capitalised uid as name."""
    phones = [Phone(browsers.open(uid), gateway.url) for uid in uids]
    for phone, uid in zip(phones, uids):
        phone.sign_in(uid, uid.capitalize())
    return phones


def test_bob_invites_carol_into_his_call_with_alice(gateway, browsers):
    alice, bob, carol = signed_in(gateway, browsers, "alice", "bob", "carol")
    alice.call("bob")
    bob.rings("Alice")
    bob.click("accept-button")
    bob.wait_participants({"alice", "bob"})
    bob.el("invite-uid").send_keys("carol")
    bob.click("invite-button")
    bob.saw_event("inviteToCall", "ringing carol")
    carol.rings("Bob, into Alice's call")
    carol.saw_event("onIncomingCallReceived", "invited by Bob")
    carol.click("accept-button")
    for phone in (alice, bob, carol):
        phone.wait_participants({"alice", "bob", "carol"})
    # Alice leaves; the call that grew goes on between Bob and Carol.
    alice.click("leave-button")
    alice.hidden("incall")
    for phone in (bob, carol):
        phone.wait_participants({"bob", "carol"})


def test_bob_takes_carols_waiting_call_and_then_takes_alices_back(gateway, browsers):
    alice, bob, carol = signed_in(gateway, browsers, "alice", "bob", "carol")
    alice.call("bob")
    bob.rings("Alice")
    bob.click("accept-button")
    bob.wait_participants({"alice", "bob"})
    carol.click("call-waiting")
    carol.call("bob")
    bob.rings("Carol")
    bob.click("accept-button")
    bob.saw_event("onCallHeld", "")
    alice.saw_event("onCallHeld", "")
    assert "Alice" in bob.visible("held-away").text
    bob.wait_participants({"bob", "carol"})
    carol.click("leave-button")
    bob.hidden("incall")
    bob.click("take-back-button")
    bob.hidden("held-away")
    bob.wait_participants({"alice", "bob"})
    alice.saw_event("onCallResumed", "Bob")


def timeline_steps(driver) -> list[str]:
    """The kinds of the steps the call details' timeline lists, in order."""
    return [item.get_attribute("data-step") for item in driver.find_elements(By.CSS_SELECTOR, "#details-timeline li")]


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

