"""One device on the web softphone demo, driven like a person would: the page object of the
browser tests."""

from __future__ import annotations

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

    def sign_in(self, uid: str, name: str, token: str | None = None):
        """Signs in with a development token, or with `token` pasted (a gateway with its own secret)."""
        self.el("uid").send_keys(uid)
        self.el("name").send_keys(name)
        if token:
            self.driver.find_element(By.CSS_SELECTOR, "#signin-form summary").click()
            self.el("token").send_keys(token)
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

    def recovery(self) -> dict[str, str]:
        """The recovery line the page shows after a reconnect: its data attributes (`count`,
        `recovered`, `missed`, `resumed`, `rejoined`) and `text`; {} before any reconnect."""
        return self.driver.execute_script("""
            const line = document.getElementById('recovery');
            return line.hidden ? {} : { ...line.dataset, text: line.textContent }""")

    def wait_recovery(self, count: int) -> dict[str, str]:
        """Waits for the page's `count`th recovery and returns its line."""
        self.wait(lambda _: self.recovery().get("count") == str(count), f"recovery #{count} never showed")
        return self.recovery()

    def event_names(self) -> list[str]:
        """The names in the Events list, newest first."""
        return self.driver.execute_script(
            "return [...document.querySelectorAll('#events li')].map((li) => li.dataset.event)")
