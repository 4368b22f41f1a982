"""What the real-browser tests share: Debian's Chromium, started with no network chatter, and
the real server (uvicorn in front of the app) on a free port over a fresh store."""
from __future__ import annotations

import socket
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import pytest

from companion.referee.service import Referee
from companion.referee.store import EventStore
from web import create_app

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]
# Every browser test module carries these marks: run with `-m browser`, skipped without Chromium.
MARKS = [pytest.mark.browser, pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian chromium not installed")]


@contextmanager
def served(folder: Path, config: dict[str, Any]) -> Iterator[tuple[str, Referee]]:
    """The app with `config` served on 127.0.0.1 (any free port) over a store in `folder`."""
    from web.server import Server

    referee = Referee(EventStore(folder / "games.db"))
    srv = Server(create_app(config, referee=referee), "127.0.0.1", 0)
    srv.start()
    try:
        yield f"http://127.0.0.1:{srv.port}", referee
    finally:
        srv.stop()


@contextmanager
def chromium() -> Iterator[tuple[Any, Any]]:
    """(playwright, browser): Debian's Chromium, headless."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=ARGS)
        try:
            yield pw, browser
        finally:
            browser.close()


# -- what a person does on the page, the same in every browser test ---------------------------------

def take_seat(page: Any, name: str, lang: str = "en") -> Any:
    """On an open seat page: tap `name`, and see the page greet that player."""
    from playwright.sync_api import expect

    from web.i18n import t

    page.locator("#names button", has_text=name).click()
    expect(page.locator("#myname")).to_have_text(t("seat.you", lang, {"player": name}))
    return page


def log_in_host(page: Any, pin: str) -> Any:
    """On an open host page: the PIN, and wait for the host's controls."""
    page.fill("#pin", pin)
    page.click("#login button")
    page.wait_for_selector("#logout")  # the host's page (on the demo table, without the game's controls)
    return page


def confirm(page: Any) -> None:
    """Say yes to the page's confirmation."""
    from playwright.sync_api import expect

    expect(page.locator("#confirm")).to_be_visible()
    page.wait_for_timeout(450)  # the question read: a tap on Yes at once is a double tap's second half
    page.click("#confirm-yes")


def wait_until(check: Any, what: str, seconds: float = 10.0) -> None:
    """Poll `check()` until it holds; fail with `what` after `seconds`."""
    import time

    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


class QuietWifi:
    """A relay between the browser and the companion that can go quiet the way a phone's Wi-Fi
    does: bytes stop both ways and nothing is closed (`quiet.set()`, then `quiet.clear()`)."""

    def __init__(self, port: int) -> None:
        self.target = port
        self.quiet = threading.Event()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target))
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    def _pipe(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                while self.quiet.is_set():  # held, not dropped: TCP would deliver it later
                    time.sleep(0.05)
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (src, dst):
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def close(self) -> None:
        self.listener.close()
