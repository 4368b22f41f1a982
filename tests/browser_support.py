"""What the real-browser tests share: Debian's Chromium, started with no network chatter, and
the real server (uvicorn in front of the app) on a free port over a fresh store."""
from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import pytest

from companion.referee import Referee
from companion.store import EventStore
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
