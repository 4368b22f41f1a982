"""HTML views (table, seat, standings, host), card faces and the join QR code."""
from __future__ import annotations

from flask import Blueprint, Response, abort, current_app, render_template

from companion.cards import COLORS
from companion.cards import THEMED_NAMES
from companion.errors import UnknownCardError
from web.cardsvg import card_svg
from web.lan import join_url, qr_svg
from web.security import csrf_token, is_host

bp = Blueprint("pages", __name__)


def _url() -> str:
    return current_app.config.get("PUBLIC_URL") or join_url(int(current_app.config["PORT"]))


def _page(view: str) -> str:
    from web.api import my_seat

    return render_template(f"{view}.html", view=view, csrf=csrf_token(), me=my_seat() or "",
                           host=is_host(), colors=COLORS, url=_url())


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


@bp.get("/cards/<name>.svg")
def card(name: str) -> Response:
    if name in THEMED_NAMES:  # themed faces have no phone art yet (the page's own work)
        abort(404)
    try:
        svg = card_svg(name)
    except UnknownCardError:
        abort(404)
    resp = Response(svg, mimetype="image/svg+xml")
    resp.headers["Cache-Control"] = "public, max-age=86400"
    return resp


@bp.get("/qr.svg")
def qr() -> Response:
    return Response(qr_svg(_url()), mimetype="image/svg+xml")
