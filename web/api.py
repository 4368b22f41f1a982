"""JSON endpoints: taking a seat, a seat's actions, host actions, and the live SSE stream.

Every body is checked here (cards, colours, players, numbers) before it reaches the referee:
a mistake is a 400 with one clear line and nothing changes. The referee stores each event
before anyone is told; phones hear of it only through the subscriber (LiveHub).
"""
from __future__ import annotations

import json
import queue
import re
import time
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request, session, stream_with_context

from dataclasses import fields

from companion.errors import CompanionError
from companion.cards import parse_card, parse_color
from companion.rules import Rules
from web.security import SEAT_COOKIE, host_required, pin_ok

bp = Blueprint("api", __name__)


class BadRequest(Exception):
    """A malformed body: answered with 400 and its message."""


def _ext() -> Any:
    return current_app.extensions["uno"]


def _body() -> dict:
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise BadRequest("the body must be a JSON object")
    return data


def _player(state: dict, name: object, field: str = "player") -> str:
    names = [p["name"] for p in state.get("players") or []]
    if not isinstance(name, str) or name not in names:
        raise BadRequest(f"unknown {field} {name!r}: players are {', '.join(names) or 'none yet'}")
    return name


def _int(value: object, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadRequest(f"{field} must be a whole number")
    return value


def _submit(event: dict, source: str) -> Any:
    notices = _ext().referee.submit(event, source=source)
    rejected = [n for n in notices if n.get("kind") == "rejected"]
    status = 409 if rejected else 200
    body: dict[str, Any] = {"ok": not rejected, "notices": notices}
    if rejected:
        body["error"] = rejected[0].get("message", "the referee refused it")
    return jsonify(body), status


@bp.errorhandler(BadRequest)
def _bad(exc: BadRequest) -> Any:
    return jsonify(error=str(exc)), 400


@bp.errorhandler(CompanionError)
def _companion(exc: CompanionError) -> Any:
    return jsonify(error=str(exc)), 400


@bp.get("/api/state")
def state() -> Any:
    return jsonify(_ext().hub.snapshot())


@bp.get("/events")
def events() -> Response:
    """Server-Sent Events: the full state at once (so a reconnect is whole), then each change."""
    hub = _ext().hub
    q = hub.open()
    heartbeat = float(current_app.config["SSE_HEARTBEAT_S"])
    first = json.dumps({"state": hub.snapshot()})

    def stream() -> Any:
        try:
            yield "retry: 1000\n\n"
            yield f"data: {first}\n\n"
            while True:
                try:
                    payload = q.get(timeout=heartbeat)
                except queue.Empty:
                    yield ": heartbeat\n\n"
                    continue
                yield f"data: {payload}\n\n"
        finally:
            hub.close(q)

    return Response(stream_with_context(stream()), mimetype="text/event-stream",
                    headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


# -- seats -------------------------------------------------------------------------------

def my_seat() -> str | None:
    return _ext().seats.player_for(request.cookies.get(SEAT_COOKIE))


@bp.post("/api/seat")
def take_seat() -> Any:
    data = _body()
    state = _ext().referee.state
    player = _player(state, data.get("player"))
    try:
        token = _ext().seats.take(player, request.cookies.get(SEAT_COOKIE))
    except PermissionError as exc:
        return jsonify(error=str(exc)), 409
    resp = jsonify(ok=True, player=player)
    resp.set_cookie(SEAT_COOKIE, token, httponly=True, samesite="Strict", max_age=60 * 60 * 24)
    return resp


@bp.post("/api/seat/leave")
def leave_seat() -> Any:
    player = my_seat()
    if player:
        _ext().seats.release(player)
    resp = jsonify(ok=True)
    resp.delete_cookie(SEAT_COOKIE)
    return resp


# Actions that belong to the player the table waits on, and the phase each needs.
_TURN_ACTIONS = {"draw": ("play",), "pass": ("play",), "color": ("color",),
                 "target": ("target",), "challenge": ("challenge",), "accept": ("challenge",)}


@bp.post("/api/act")
def act() -> Any:
    """A seat's action. Only the phone holding the seat may act for it."""
    data = _body()
    me = my_seat()
    if me is None:
        return jsonify(error="take a seat first"), 403
    state = _ext().referee.state
    action = data.get("action")
    if action in _TURN_ACTIONS:
        if state.get("turn") != me or state.get("waiting_for") not in _TURN_ACTIONS[action]:
            return jsonify(error=f"not your move: the table waits for {state.get('turn') or 'nobody'}"
                                 f" ({state.get('waiting_for')})"), 403
    if action in ("draw", "accept"):
        # With cards pending (a wild draw four accepted, or a stack not answered) the
        # victim's draw takes them all: the engine reads a draw of that count so.
        pending = int(state.get("pending_draw") or 0)
        event: dict = {"type": "draw", "count": pending} if pending else {"type": "draw"}
    elif action == "pass":
        event = {"type": "pass"}
    elif action == "color":
        event = {"type": "color", "color": parse_color(data.get("color"))}
    elif action == "target":
        target = _player(state, data.get("player"), "target")
        if target == me:
            raise BadRequest("pick another player, not yourself")
        event = {"type": "target", "player": target}
    elif action == "challenge":
        event = {"type": "challenge"}
    elif action == "uno":
        event = {"type": "uno", "player": me}
    elif action == "catch":
        event = {"type": "catch", "by": me}
        if data.get("target") is not None:
            event["target"] = _player(state, data.get("target"), "target")
    else:
        raise BadRequest(f"unknown action {action!r}: one of draw, pass, color, target, accept, challenge, uno, catch")
    return _submit(event, f"phone:{me}")


# -- host --------------------------------------------------------------------------------

@bp.post("/api/host/login")
def host_login() -> Any:
    ext = _ext()
    # A 4-digit PIN is guessable: after 5 wrong tries, logins pause for 30 seconds.
    if ext.pin_failures >= 5 and time.monotonic() - ext.pin_failed_at < 30:
        return jsonify(error="too many wrong PINs: wait 30 seconds"), 429
    if not pin_ok(_body().get("pin")):
        ext.pin_failures += 1
        ext.pin_failed_at = time.monotonic()
        return jsonify(error="wrong PIN"), 403
    ext.pin_failures = 0
    session["host"] = True
    return jsonify(ok=True)


@bp.post("/api/host/logout")
def host_logout() -> Any:
    session.pop("host", None)
    return jsonify(ok=True)


# every table option of the engine, house rules included (their values are the engine's to check)
_RULE_KEYS = tuple(f.name for f in fields(Rules))


@bp.post("/api/host/game")
@host_required
def host_game() -> Any:
    data = _body()
    players = data.get("players")
    if (not isinstance(players, list) or not all(isinstance(p, str) and p.strip() for p in players)
            or not 2 <= len(players) <= 10 or len(set(players)) != len(players)):
        raise BadRequest("players must be a list of 2 to 10 different names, clockwise")
    event: dict = {"type": "game", "players": [p.strip() for p in players]}
    rules = data.get("rules") or {}
    if not isinstance(rules, dict):
        raise BadRequest("rules must be an object")
    unknown = [k for k in rules if k not in _RULE_KEYS]
    if unknown:
        raise BadRequest(f"unknown table option {unknown[0]!r}")
    if rules:
        event["rules"] = rules
    _ext().seats_reset()
    return _submit(event, "host")


@bp.post("/api/host/deal")
@host_required
def host_deal() -> Any:
    data = _body()
    event: dict = {"type": "deal"}
    if data.get("dealer"):
        event["dealer"] = _player(_ext().referee.state, data["dealer"], "dealer")
    return _submit(event, "host")


@bp.post("/api/host/undo")
@host_required
def host_undo() -> Any:
    return _submit({"type": "undo"}, "host")


@bp.post("/api/host/correct")
@host_required
def host_correct() -> Any:
    data = _body()
    index = _int(data.get("event"), "event")
    n = len(_ext().referee.events)
    if not 0 <= index < n:
        raise BadRequest(f"event must be a log index from 0 to {n - 1}")
    return _submit({"type": "correct", "event": index, "card": parse_card(data.get("card")).name}, "host")


@bp.post("/api/host/points")
@host_required
def host_points() -> Any:
    data = _body()
    player = _player(_ext().referee.state, data.get("player"))
    points = _int(data.get("points"), "points")
    if points < 0:
        raise BadRequest("points cannot be negative")
    return _submit({"type": "points", "player": player, "points": points}, "host")


@bp.post("/api/host/score_fix")
@host_required
def host_score_fix() -> Any:
    data = _body()
    player = _player(_ext().referee.state, data.get("player"))
    return _submit({"type": "score_fix", "hand": _int(data.get("hand"), "hand"), "player": player,
                    "points": _int(data.get("points"), "points")}, "host")


@bp.post("/api/host/verdict")
@host_required
def host_verdict() -> Any:
    guilty = _body().get("guilty")
    if not isinstance(guilty, bool):
        raise BadRequest("guilty must be true or false")
    return _submit({"type": "verdict", "guilty": guilty}, "host")


@bp.post("/api/host/card")
@host_required
def host_card() -> Any:
    """A card the camera missed: a `play` (with an optional colour) or a `flip`. Several names
    ("red_5 blue_5", or a `cards` list) are one multiple play (house rule multiple_play)."""
    data = _body()
    kind = data.get("type", "play")
    if kind not in ("play", "flip", "take_back"):
        raise BadRequest("type must be play, flip or take_back")
    if kind == "take_back":
        return _submit({"type": "take_back"}, "host")
    names = data.get("cards")
    if names is None and isinstance(data.get("card"), str):
        names = [n for n in re.split(r"[\s,]+", data["card"].strip()) if n]
    if kind == "play" and isinstance(names, list) and len(names) > 1:
        laid = [parse_card(n).name for n in names]
        return _submit({"type": "play", "card": laid[-1], "cards": laid}, "host")
    event: dict = {"type": kind, "card": parse_card(data.get("card")).name}
    if data.get("color"):
        event["color"] = parse_color(data["color"])
    return _submit(event, "host")


@bp.post("/api/host/release")
@host_required
def host_release() -> Any:
    player = _player(_ext().referee.state, _body().get("player"))
    _ext().seats.release(player)
    return jsonify(ok=True)


@bp.get("/api/host/log")
@host_required
def host_log() -> Any:
    """The game's lines for corrections; a reveal shows how many cards, never which."""
    lines = []
    for i, line in enumerate(_ext().referee.events):
        if isinstance(line, str):
            try:
                line = json.loads(line)
            except ValueError:
                line = {"type": "?"}
        if isinstance(line, dict) and line.get("type") == "reveal":
            line = {"type": "reveal", "player": line.get("player"), "cards": len(line.get("cards") or [])}
        lines.append({"event": i, "line": line})
    return jsonify(lines=lines)
