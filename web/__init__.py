"""The phone page: live table view, my seat, standings and host set-up (Flask)."""
from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from flask import Flask, jsonify, request

from web.access import AccessError, AccessStore, load_secret_key
from web.compress import compress, weak_if_range
from web.hub import LiveHub
from web.inputs import MAX_BODY, cap
from web.security import ClockFreeSessions, Seats, check_csrf, check_host


@dataclass
class WebState:
    """What the app keeps beside Flask: the referee, the live hub, seats and host sessions."""

    referee: Any
    hub: LiveHub
    access: AccessStore = field(default_factory=AccessStore)
    seats: Seats = field(init=False)
    refused_taps: dict[str, list[float]] = field(default_factory=dict)  # per phone: when (api._submit)

    def __post_init__(self) -> None:
        self.seats = Seats(self.access, on_change=self.hub.seats_moved)

    def phones_connected(self) -> int:
        return self.hub.phones_connected()

    def seats_reset(self, game_id: str | None = None) -> None:
        """Free the seats for the new game at the table: those of names not in it (the same
        people playing again keep their phones' seats). Those of the game `game_id` it replaced
        are kept (on disk, with the seats), so that an Undo of the new game, after a restart
        too, gives that game back with its phones in their seats."""
        self.seats.reset(game_id, [p["name"] for p in self.referee.state.get("players") or []])

    def seats_back(self, game_id: str | None) -> None:
        """After an undo: the table is back on `game_id`; if its seats were freed for a new
        game since, the same phones have them again."""
        if game_id is not None:
            self.seats.back(game_id)


def create_app(test_config: dict | None = None, referee: Any = None) -> Flask:
    """Defaults, then `test_config`. Without a referee one is made on an in-memory store.

    DATA_DIR (a folder) keeps the session key (`secret_key`, made once, mode 0600) and, unless
    ACCESS_DB names another file, seats and host sessions (`access.db`): with it, a restart
    logs nobody out. Without it (tests) both live in memory.
    """
    app = Flask(__name__)
    app.session_interface = ClockFreeSessions()
    app.config.from_mapping(
        SECRET_KEY=None,
        HOST_PIN=f"{secrets.randbelow(10000):04d}",
        PORT=8000,
        PUBLIC_URL=None,
        HOSTNAMES=(),  # public names the page is also reached by (IP addresses and local names always are)
        SSE_HEARTBEAT_S=10.0,  # a beat this often: a phone that hears nothing for 25 s is cut off (app.js)
        SNAPSHOT=None,  # callable -> latest BGR frame, for zone set-up
        ZONES_PATH=None,  # zones JSON file the watcher reads
        SESSION_COOKIE_SAMESITE="Strict",
        SESSION_COOKIE_HTTPONLY=True,
        PERMANENT_SESSION_LIFETIME=timedelta(days=7),
        MAX_CONTENT_LENGTH=MAX_BODY,
        MAX_FORM_MEMORY_SIZE=MAX_BODY,
        DATA_DIR=None,
        ACCESS_DB=None,
        HOST_SESSION_S=24 * 3600.0,  # a host login lasts a day (logout ends it at once)
        HOST_LINK_S=3600.0,  # a one-time host link printed by `run` works for an hour
        SEAT_LINK_S=600.0,  # a seat link from the host page works once, for 10 minutes
        CLOCK=None,  # wall clock for sessions and PIN back-off (tests pass their own)
        TABLE_MODE="camera",  # camera | none (phones enter the cards) | demo (phones only watch)
    )
    if test_config:
        app.config.from_mapping({k: v for k, v in test_config.items() if v is not None or k != "HOST_PIN"})
    data_dir = app.config.get("DATA_DIR")
    if not app.config.get("SECRET_KEY"):
        try:
            app.config["SECRET_KEY"] = load_secret_key(data_dir) if data_dir else secrets.token_hex(32)
        except AccessError as exc:  # a read-only card: the page works, logins last until a restart
            app.logger.error("%s; sessions last until the next start", exc)
            app.config["SECRET_KEY"] = secrets.token_hex(32)
    access_db = app.config.get("ACCESS_DB") or (Path(data_dir) / "access.db" if data_dir else ":memory:")
    clock = app.config["CLOCK"] or time.time
    try:
        access = AccessStore(access_db, clock=clock)
    except AccessError as exc:
        app.logger.error("%s; seats and logins are kept in memory until the next start", exc)
        access = AccessStore(":memory:", clock=clock)
    if referee is None:
        from companion.referee.service import Referee
        from companion.referee.store import EventStore

        referee = Referee(EventStore(":memory:"))
    app.extensions["uno"] = WebState(referee=referee, hub=LiveHub(referee), access=access)
    app.before_request(check_host)
    app.before_request(check_csrf)
    app.before_request(weak_if_range)
    app.after_request(compress)

    from web import api, pages, zones

    app.register_blueprint(pages.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(zones.bp)

    def _error(code: int, default: str) -> Any:
        def handler(exc: Any) -> Any:
            if code in (404, 405) and not request.path.startswith("/api/"):
                return exc  # pages keep Werkzeug's HTML answer
            text = cap(getattr(exc, "description", None) or default)
            say = {"k": "err.csrf", "a": {}} if "CSRF" in text else {"k": "err.refused", "a": {"n": code}}
            return jsonify(error=text, say=say), code
        return handler

    app.register_error_handler(403, _error(403, "forbidden"))
    app.register_error_handler(404, _error(404, "no such page"))
    app.register_error_handler(405, _error(405, "method not allowed"))
    app.register_error_handler(413, lambda exc: (jsonify(error=f"the body is over {MAX_BODY // 1024} KB"), 413))
    app.register_error_handler(400, _error(400, "bad request"))

    from companion.referee.store import StoreError

    def _unavailable(exc: Exception) -> Any:
        # The disk is full or read-only: nothing was stored or acknowledged; one line each way.
        app.logger.error("%s", cap(str(exc)))
        return jsonify(error=cap(str(exc))), 503

    app.register_error_handler(StoreError, _unavailable)
    app.register_error_handler(AccessError, _unavailable)

    return app
