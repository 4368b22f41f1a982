"""The phone page: live table view, my seat, standings and host set-up (Flask)."""
from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any

from flask import Flask, jsonify

from web.hub import LiveHub
from web.security import Seats, check_csrf


@dataclass
class WebState:
    """What the app keeps beside Flask: the referee, the live hub and the seat tokens."""

    referee: Any
    hub: LiveHub
    seats: Seats = field(default_factory=Seats)
    pin_failures: int = 0
    pin_failed_at: float = 0.0

    def phones_connected(self) -> int:
        return self.hub.phones_connected()

    def seats_reset(self) -> None:
        self.seats = Seats()


def create_app(test_config: dict | None = None, referee: Any = None) -> Flask:
    """Defaults, then `test_config`. Without a referee one is made on an in-memory store."""
    app = Flask(__name__)
    app.config.from_mapping(
        SECRET_KEY=secrets.token_hex(32),
        HOST_PIN=f"{secrets.randbelow(10000):04d}",
        PORT=8000,
        PUBLIC_URL=None,
        SSE_HEARTBEAT_S=15.0,
        SNAPSHOT=None,  # callable -> latest BGR frame, for zone set-up
        ZONES_PATH=None,  # zones JSON file the watcher reads
        SESSION_COOKIE_SAMESITE="Strict",
    )
    if test_config:
        app.config.from_mapping({k: v for k, v in test_config.items() if v is not None or k != "HOST_PIN"})
    if referee is None:
        from companion.referee import Referee
        from companion.store import EventStore

        referee = Referee(EventStore(":memory:"))
    app.extensions["uno"] = WebState(referee=referee, hub=LiveHub(referee))
    app.before_request(check_csrf)

    from web import api, pages, zones

    app.register_blueprint(pages.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(zones.bp)

    @app.errorhandler(403)
    def _forbidden(exc: Any) -> Any:
        return jsonify(error=getattr(exc, "description", "forbidden")), 403

    return app
