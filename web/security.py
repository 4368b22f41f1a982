"""Seats bound to phones by a random token cookie, the host PIN session, and CSRF tokens."""
from __future__ import annotations

import hmac
import secrets
import threading
from functools import wraps
from typing import Any, Callable

from flask import abort, current_app, jsonify, request, session

SEAT_COOKIE = "uno_seat"


class Seats:
    """token -> player, kept on the server; the phone holds only the random token."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_token: dict[str, str] = {}

    def player_for(self, token: str | None) -> str | None:
        with self._lock:
            return self._by_token.get(token or "")

    def holder(self, player: str) -> str | None:
        with self._lock:
            return next((t for t, p in self._by_token.items() if p == player), None)

    def take(self, player: str, token: str | None) -> str:
        """Bind `player` to the phone holding `token` (a new token if none); returns the token.
        Raises PermissionError if another phone holds the seat."""
        with self._lock:
            other = next((t for t, p in self._by_token.items() if p == player), None)
            if other is not None and other != token:
                raise PermissionError(f"{player}'s seat is taken by another phone: the host can free it")
            token = token or secrets.token_urlsafe(24)
            self._by_token = {t: p for t, p in self._by_token.items() if t != token}
            self._by_token[token] = player
            return token

    def release(self, player: str) -> bool:
        with self._lock:
            before = len(self._by_token)
            self._by_token = {t: p for t, p in self._by_token.items() if p != player}
            return len(self._by_token) != before

    def taken(self) -> list[str]:
        with self._lock:
            return sorted(self._by_token.values())


def csrf_token() -> str:
    if "csrf" not in session:
        session["csrf"] = secrets.token_urlsafe(24)
    return str(session["csrf"])


def check_csrf() -> None:
    """Every POST carries the session's token in the X-CSRF-Token header (or a form field)."""
    if request.method != "POST":
        return
    sent = request.headers.get("X-CSRF-Token") or request.form.get("csrf") or ""
    expected = session.get("csrf") or ""
    if not expected or not hmac.compare_digest(str(sent), str(expected)):
        abort(403, description="missing or wrong CSRF token: reload the page")


def pin_ok(pin: object) -> bool:
    expected = str(current_app.config.get("HOST_PIN") or "")
    return bool(expected) and isinstance(pin, str) and hmac.compare_digest(pin, expected)


def is_host() -> bool:
    return bool(session.get("host"))


def host_required(view: Callable[..., Any]) -> Callable[..., Any]:
    @wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not is_host():
            return jsonify(error="host only: log in with the host PIN"), 403
        return view(*args, **kwargs)

    return wrapper
