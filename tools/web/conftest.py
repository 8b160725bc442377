"""Fixtures of the browser tests: a real gateway and headless Chromium sessions.

On a failed test every browser session leaves a screenshot, its page source and its console log
in web-test-artifacts/<test name>/ at the repository root (or $CALLGATE_WEB_ARTIFACTS).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LISTEN = re.compile(r"listening on ws://(?P<host>[^\s:/]+):(?P<port>\d+)/ws")
ADMIN_KEY = re.compile(r"this run's admin key is (?P<key>\w+)")


def browser_problem() -> str | None:
    """Why the browser tests cannot run here, or None."""
    for tool in ("chromium", "chromedriver"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (make deps installs Debian's chromium and chromium-driver)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "the Python module selenium is not installed (make deps installs it)"
    return None


def gateway_binary() -> Path:
    """The `callgate` executable: $CALLGATE_BIN (relative to the repository root), else the debug build."""
    return ROOT / os.environ.get("CALLGATE_BIN", ".build/debug/callgate")


@pytest.fixture(scope="module")
def requirements():
    """Skips when the machine lacks Chromium, Selenium or the gateway binary, unless
    CALLGATE_REQUIRE_BROWSER=1 (as `make test` sets it): then the test fails instead."""
    problem = browser_problem()
    if problem is None and not gateway_binary().exists():
        problem = f"{gateway_binary()} is missing: build it first (swift build)"
    if problem:
        if os.environ.get("CALLGATE_REQUIRE_BROWSER") == "1":
            pytest.fail(problem)
        pytest.skip(problem)


class Gateway:
    """A real `callgate serve` on `port` (0: a free one), with a generated secret (so dev tokens
    are on) unless `flags`, which go to `serve` as well, give one. A gateway started again on the
    same directory and port is the same gateway restarted."""

    def __init__(self, directory: Path, flags: tuple[str, ...] = (), port: int = 0):
        self.log_path = directory / "gateway.log"
        self.log = open(self.log_path, "w+")
        self.process = subprocess.Popen(
            [str(gateway_binary()), "serve", "--host", "127.0.0.1", "--port", str(port),
             "--database", str(directory / "calls.sqlite"), "--log-level", "warning", "--drain-seconds", "0", *flags],
            stdout=self.log, stderr=subprocess.STDOUT, cwd=directory)
        deadline = time.monotonic() + 30
        text = ""
        while time.monotonic() < deadline:
            text = self.log_path.read_text()
            listen, key = LISTEN.search(text), ADMIN_KEY.search(text)
            if listen and key:
                self.port = int(listen["port"])
                self.url = f"http://{listen['host']}:{self.port}/"
                self.admin_key = key["key"]
                return
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"the gateway did not start:\n{text}")

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


@pytest.fixture
def gateway(requirements, tmp_path):
    server = Gateway(tmp_path)
    yield server
    server.stop()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"report_{report.when}", report)


@pytest.fixture
def browsers(requirements, request):
    """Opens headless Chromium sessions on demand: `browsers.open(name)`."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opened: dict[str, webdriver.Chrome] = {}
    profiles: list[tempfile.TemporaryDirectory] = []

    class Browsers:
        def open(self, name: str):
            profile = tempfile.TemporaryDirectory(prefix=f"callgate-web-{name}-")
            profiles.append(profile)
            options = webdriver.ChromeOptions()
            options.binary_location = shutil.which("chromium")
            for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                             "--window-size=1200,1600", f"--user-data-dir={profile.name}"):
                options.add_argument(argument)
            options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
            driver = webdriver.Chrome(options=options, service=Service(shutil.which("chromedriver")))
            opened[name] = driver
            return driver

    yield Browsers()
    failed = any(getattr(request.node, f"report_{when}", None) is not None
                 and getattr(request.node, f"report_{when}").failed for when in ("setup", "call"))
    if failed:
        folder = Path(os.environ.get("CALLGATE_WEB_ARTIFACTS", ROOT / "web-test-artifacts")) / request.node.name
        folder.mkdir(parents=True, exist_ok=True)
        for name, driver in opened.items():
            try:
                driver.save_screenshot(str(folder / f"{name}.png"))
                (folder / f"{name}.html").write_text(driver.page_source)
                lines = [f"{entry['level']} {entry['message']}" for entry in driver.get_log("browser")]
                (folder / f"{name}.console.log").write_text("\n".join(lines) + "\n")
            except Exception as error:  # a crashed browser still lets the others be saved
                (folder / f"{name}.error.txt").write_text(repr(error))
        print(f"browser artifacts: {folder}")
    for driver in opened.values():
        driver.quit()
    for profile in profiles:
        profile.cleanup()
