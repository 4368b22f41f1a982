"""Seats bound to phones by a random token cookie, the host session, CSRF tokens, and the
client identity that wrong-PIN back-off counts against.

Seats and host sessions are kept by `web.access.AccessStore` (on disk beside the event
store), so they survive a restart; logging out ends the host session on the server, so a
copied cookie is worthless after it.
"""
from __future__ import annotations

import hmac
import secrets
from functools import wraps
from typing import Any, Callable

from flask import abort, current_app, jsonify, request, session

from web.access import AccessStore

SEAT_COOKIE = "uno_seat"


class Seats:
    """token -> player, kept on the server; the phone holds only the random token."""

    def __init__(self, access: AccessStore | None = None) -> None:
        self.access = access if access is not None else AccessStore(":memory:")

    def player_for(self, token: str | None) -> str | None:
        return self.access.player_for(token)

    def take(self, player: str, token: str | None) -> str:
        """Bind `player` to the phone holding `token` (a new token if none); returns the token.
        Raises PermissionError if another phone holds the seat."""
        return self.access.take_seat(player, token)

    def release(self, player: str) -> bool:
        return self.access.release_seat(player)

    def reset(self, keep_for: str | None = None, players: list[str] | None = None) -> None:
        self.access.reset_seats(keep_for, players)

    def back(self, game_id: str) -> bool:
        return self.access.seats_back(game_id)

    def taken(self) -> list[str]:
        return self.access.taken()


def _new_session() -> None:
    """A phone's first page: its CSRF token and client id, in a cookie that outlives the
    browser session (signed with the key kept in the data folder)."""
    session.permanent = True
    session["csrf"] = secrets.token_urlsafe(24)
    session["cid"] = secrets.token_urlsafe(12)


def csrf_token() -> str:
    if "csrf" not in session or "cid" not in session:
        _new_session()
    return str(session["csrf"])


def client_id() -> tuple[str, str]:
    """(address, client id): who a wrong PIN is counted against."""
    if "cid" not in session:
        _new_session()
    return str(request.remote_addr or "?"), str(session["cid"])


def check_csrf() -> None:
    """Every POST carries the session's token in the X-CSRF-Token header (or a form field)."""
    if request.method != "POST":
        return
    sent = request.headers.get("X-CSRF-Token") or ""
    if not sent and request.mimetype in ("application/x-www-form-urlencoded", "multipart/form-data"):
        sent = request.form.get("csrf") or ""
    expected = session.get("csrf") or ""
    if not expected or not hmac.compare_digest(str(sent), str(expected)):
        abort(403, description="missing or wrong CSRF token: reload the page")


def pin_ok(pin: object) -> bool:
    expected = str(current_app.config.get("HOST_PIN") or "")
    return (bool(expected) and isinstance(pin, str) and len(pin) <= 200
            and hmac.compare_digest(pin.strip().encode(), expected.encode()))


def is_host() -> bool:
    token = session.get("host")
    if not token:
        return False
    access: AccessStore = current_app.extensions["uno"].access
    return access.host_session_ok(token, float(current_app.config["HOST_SESSION_S"]))


def host_required(view: Callable[..., Any]) -> Callable[..., Any]:
    @wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not is_host():
            return jsonify(error="host only: log in with the host PIN", say={"k": "err.host_only", "a": {}}), 403
        return view(*args, **kwargs)

    return wrapper
