"""Seats bound to phones by a random token cookie, the host session, CSRF tokens, and the
client identity that wrong-PIN back-off counts against.

Seats and host sessions are kept by `web.access.AccessStore` (on disk beside the event
store), so they survive a restart; logging out ends the host session on the server, so a
copied cookie is worthless after it.
"""
from __future__ import annotations

import hmac
import ipaddress
import re
import secrets
from functools import wraps
from typing import Any, Callable
from urllib.parse import urlsplit

from flask import abort, current_app, jsonify, request, session
from flask.sessions import SecureCookieSessionInterface
from itsdangerous import BadSignature

from web.access import AccessStore

SEAT_COOKIE = "uno_seat"


class Seats:
    """token -> player, kept on the server; the phone holds only the random token."""

    def __init__(self, access: AccessStore | None = None, on_change: Callable[[], None] | None = None) -> None:
        self.access = access if access is not None else AccessStore(":memory:")
        self._changed = on_change or (lambda: None)  # the live streams tell the phones

    def player_for(self, token: str | None) -> str | None:
        return self.access.player_for(token)

    def take(self, player: str, token: str | None) -> str:
        """Bind `player` to the phone holding `token` (a new token if none); returns the token.
        Raises PermissionError if another phone holds the seat."""
        token = self.access.take_seat(player, token)
        self._changed()
        return token

    def link(self, player: str, ttl: float) -> str:
        link = self.access.new_seat_link(player, ttl)
        self._changed()
        return link

    def use_link(self, link: object, token: str | None) -> tuple[str, str] | None:
        taken = self.access.use_seat_link(link, token)
        if taken is not None:
            self._changed()
        return taken

    def release(self, player: str) -> bool:
        had = self.access.release_seat(player)
        self._changed()
        return had

    def reset(self, keep_for: str | None = None, players: list[str] | None = None) -> None:
        self.access.reset_seats(keep_for, players)
        self._changed()

    def back(self, game_id: str) -> bool:
        back = self.access.seats_back(game_id)
        self._changed()
        return back

    def taken(self) -> list[str]:
        return self.access.taken()


class ClockFreeSessions(SecureCookieSessionInterface):
    """Flask's signed session cookie, its age left to the browser (Max-Age). A Pi with no clock
    battery starts some evenings with an older time than the cookies it signed before, or in
    1970, and may be set right mid-game: Flask refused every cookie signed "in the future" or
    over 7 days before, so each phone's taps were refused (CSRF) until reloaded and the host
    logged out, and an Expires date counted from 1970 reached the browser already past. What
    the cookie holds needs no age of its own: the host's login is timed on the server."""

    def open_session(self, app: Any, request: Any) -> Any:
        signer = self.get_signing_serializer(app)
        if signer is None:
            return None
        value = request.cookies.get(self.get_cookie_name(app))
        if not value:
            return self.session_class()
        try:
            return self.session_class(signer.loads(value))
        except BadSignature:
            return self.session_class()

    def save_session(self, app: Any, session: Any, response: Any) -> None:
        name, path = self.get_cookie_name(app), self.get_cookie_path(app)
        if session.accessed:
            response.vary.add("Cookie")
        if not session:
            if session.modified:
                response.delete_cookie(name, path=path, samesite=self.get_cookie_samesite(app),
                                       httponly=self.get_cookie_httponly(app))
            return
        if not self.should_set_cookie(app, session):
            return
        response.set_cookie(name, self.get_signing_serializer(app).dumps(dict(session)),  # type: ignore[union-attr]
                            max_age=int(app.permanent_session_lifetime.total_seconds()),
                            httponly=self.get_cookie_httponly(app), path=path, domain=self.get_cookie_domain(app),
                            secure=self.get_cookie_secure(app), samesite=self.get_cookie_samesite(app))
        response.vary.add("Cookie")


def set_seat_cookie(resp: Any, token: str) -> Any:
    """The phone's seat token: sent only to this page (Strict), never readable by its script."""
    resp.set_cookie(SEAT_COOKIE, token, httponly=True, samesite="Strict", max_age=60 * 60 * 24)
    return resp


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


# Names only the local network resolves: a web page elsewhere cannot point them at the table
# (DNS rebinding works through a public name whose address its owner switches to the Pi's).
LOCAL_SUFFIXES = (".local", ".lan", ".home", ".home.arpa", ".internal", ".localdomain", ".localhost")


def host_name_ok(host: str, allowed: tuple[str, ...] = ()) -> bool:
    """A Host header the table answers: an IP address, a one-word or local-network name
    (`raspberrypi`, `uno.local`, `pi.lan`), or a name the configuration lists (`hostnames`)."""
    name = host.strip().lower()
    m = re.fullmatch(r"\[([0-9a-f:.]+)\](?::\d{1,5})?|([a-z0-9.-]+?)\.?(?::\d{1,5})?", name)
    if not m:  # "[::1].evil.example", "1.2.3.4:80@evil.example": no name a browser sends
        return False
    name = m.group(1) or m.group(2)
    try:
        ipaddress.ip_address(name)
        return True
    except ValueError:
        pass
    if not name or "." not in name or name == "localhost" or name.endswith(LOCAL_SUFFIXES):
        return True
    return name in {a.strip().lower().rstrip(".") for a in allowed}


def known_names(config: Any) -> tuple[str, ...]:
    """The public names a table answers besides addresses and local names: the configuration's
    `hostnames`, and the name `host` is bound to."""
    public = urlsplit(config.get("PUBLIC_URL") or "").hostname
    return tuple(config.get("HOSTNAMES") or ()) + ((public,) if public else ())


def refused_host_text(host: str) -> str:
    return (f"this table does not answer to the name {host[:60]!r}: open it at its own address, "
            "or add the name to hostnames in the configuration")


def check_host() -> Any:
    """Refuse a request made under a public name the table does not know: a page on the internet
    that points its own name at the Pi (DNS rebinding) could otherwise read the game and take
    seats from a player's browser on the table's Wi-Fi. (The live stream and the state, served
    before Flask, are checked in web.server alike.)"""
    host = request.headers.get("Host")
    if host is None or host_name_ok(host, known_names(current_app.config)):
        return None
    text = refused_host_text(host)
    if request.path.startswith("/api/"):
        return jsonify(error=text, say={"k": "err.refused", "a": {"n": 421}}), 421
    return current_app.response_class(text + "\n", status=421, mimetype="text/plain")


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
