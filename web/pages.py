"""HTML views (table, seat, standings, host, TV), card faces, the join QR code and the
language switch."""
from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, abort, current_app, redirect, render_template, request, session
from markupsafe import escape

from companion.referee.cards import COLORS
from companion.errors import UnknownCardError
from web.cardsvg import card_svg
from web.i18n import LANG_COOKIE, LANGS, catalogue_json, pick_lang, t
from web.lan import qr_svg, seat_url, table_url
from web.security import SEAT_COOKIE, csrf_token, is_host, set_seat_cookie

bp = Blueprint("pages", __name__)
VIEWS = ("table", "seat", "standings", "host", "tv")


def _url() -> str:
    """The way in for a player: the seat page (the table's own view only watches)."""
    return seat_url(table_url(current_app.config))


def page_lang() -> str:
    """This phone's language: its choice on the page, else its browser's."""
    return pick_lang(request.cookies.get(LANG_COOKIE), request.accept_languages)


def _page(view: str, **extra: Any) -> str:
    from web.api import my_seat, table_mode

    lang = page_lang()
    return render_template(f"{view}.html", view=view, csrf=csrf_token(), me=my_seat() or "",
                           host=is_host(), colors=COLORS, url=_url(), mode=table_mode(), lang=lang,
                           other=next(x for x in LANGS if x != lang), texts=catalogue_json(lang),
                           beat=float(current_app.config["SSE_HEARTBEAT_S"]),
                           t=lambda key, **args: t(key, lang, args), **extra)


@bp.get("/host/link/<token>")
def host_link(token: str) -> Any:
    """A one-time host link (printed by `run`): this browser becomes the host, the link dies."""
    from web.api import _ext

    if request.method == "HEAD":  # a link preview or a scanner: it must not use the link up (nor be host)
        return Response(status=200, headers={"Cache-Control": "no-store"})
    access = _ext().access
    if not access.use_host_link(token):  # the host page's login, saying why (with the menu around it)
        return _page("host", link_used=True), 403
    csrf_token()
    access.end_host_session(session.get("host"))
    session["host"] = access.new_host_session()
    return _onward("/host", "Host", "You are the host now: <a href=/host>open the host page</a>.")


def _onward(to: str, title: str, body: str) -> Response:
    """A page that opens `to` at once: not a redirect, so the next load is a same-site navigation
    that sends the cookie just set (SameSite=Strict); nothing of it is cached or passed on."""
    return Response(f"<!doctype html><meta charset=utf-8><meta http-equiv=refresh content=\"0;url={to}\">"
                    f"<title>{title}</title><p>{body}", mimetype="text/html",
                    headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"})


@bp.get("/seat/link/<link>")
def seat_link(link: str) -> Any:
    """A one-time seat link from the host page: this phone takes that player's seat."""
    from web.api import _ext

    if request.method == "HEAD":  # a link preview or a QR scanner's look must not use it up
        return Response(status=200, headers={"Cache-Control": "no-store"})
    taken = _ext().seats.use_link(link, request.cookies.get(SEAT_COOKIE))
    if taken is None:
        return _page("seat", seat_link_used=True), 403
    player, token = taken
    return set_seat_cookie(_onward("/seat", str(escape(player)), f"<a href=/seat>{escape(player)}</a>"), token)


@bp.get("/")
def table() -> str:
    return _page("table")


@bp.get("/seat")
def seat() -> str:
    return _page("seat")


@bp.get("/standings")
def standings() -> str:
    return _page("standings")


@bp.get("/host")
def host() -> str:
    return _page("host")


@bp.get("/tv")
def tv() -> str:
    """The table-TV view: landscape, large top card, counts, whose turn, standings, join code."""
    return _page("tv")


@bp.get("/lang/<code>")
def set_lang(code: str) -> Any:
    """The page's language switch: remembered by this phone (a cookie), then back to the view."""
    if code not in LANGS:
        abort(404)
    back = request.args.get("next", "/")
    if back.strip("/") not in ("",) + VIEWS[1:]:  # only our own views: no open redirect
        back = "/"
    resp = redirect(back if back.startswith("/") else "/" + back, code=303)
    resp.set_cookie(LANG_COOKIE, code, max_age=365 * 24 * 3600, samesite="Lax")
    return resp


@bp.get("/cards/<name>.svg")
def card(name: str) -> Response:
    try:
        svg = card_svg(name, aid=request.args.get("aid") == "1")  # the colour-blind aid's shapes
    except UnknownCardError:
        abort(404)
    resp = Response(svg, mimetype="image/svg+xml")
    resp.headers["Cache-Control"] = "public, max-age=86400"
    return resp


@bp.get("/qr.svg")
def qr() -> Response:
    return Response(qr_svg(_url()), mimetype="image/svg+xml")


@lru_cache(maxsize=1)
def _script() -> tuple[str, str]:
    """The page script as phones get it, and its ETag: its comment-only lines left out, and each
    line's indent (a sixth of its bytes, then a twelfth more: the host page with the camera
    picture went over its 150 KB). Only when no template literal spans lines, where such a line
    would be text: else the script as it is."""
    text = (Path(current_app.static_folder or "") / "app.js").read_text(encoding="utf-8")
    lines = text.split("\n")
    if all(line.count("`") % 2 == 0 for line in lines):
        text = "\n".join(line.lstrip() for line in lines if not line.lstrip().startswith("//"))
    return text, hashlib.sha256(text.encode()).hexdigest()[:16]


@bp.get("/static/app.js")  # (before Flask's own static route: a rule with no variable part wins)
def script() -> Response:
    text, tag = _script()
    resp = Response(text, mimetype="text/javascript")
    resp.set_etag(tag)
    resp.headers["Cache-Control"] = "no-cache"  # asked again each load, answered 304 while unchanged
    return resp.make_conditional(request)
