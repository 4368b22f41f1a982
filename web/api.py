"""JSON endpoints: taking a seat, a seat's actions, host actions, and the live SSE stream.

Every body is checked here (cards, colours, players, numbers) before it reaches the referee:
a mistake is a 400 with one clear line and nothing changes. The referee stores each event
before anyone is told; phones hear of it only through the subscriber (LiveHub).
"""
from __future__ import annotations

import json
import logging
import math
import queue
import re
from functools import wraps
from typing import Any, Callable

from flask import Blueprint, Response, current_app, g, jsonify, request, session, stream_with_context

from dataclasses import fields

from companion.errors import CompanionError
from companion.referee.cards import DARK_COLORS, hint, parse_card, parse_color, points
from companion.referee.service import ClaimError, RequestIdError
from companion.referee.store import decode_line
from companion.referee.effects import all_effects
from companion.referee.engine import WAITING_WORDS, drawn_in, not_now
from companion.referee.rules import Rules, name_check, parse_rules
from companion.referee.scoring import fix_refused, most_points
from web.access import SeatKept
from web.hub import BEAT
from web.inputs import BodyError, cap, is_scalar, parse_object, short
from web.messages import error_say, notice_say
from web.security import SEAT_COOKIE, client_id, host_required, is_host, pin_ok, set_seat_cookie

bp = Blueprint("api", __name__)
log = logging.getLogger("companion.web")
_DRAWS_UNTIL = frozenset(e.symbol for e in all_effects() if e.draws_until)  # cards whose draws nobody counts


class BadRequest(Exception):
    """A malformed body: answered with 400 and its message (`say`: its words for people)."""

    def __init__(self, message: str, key: str | None = None, **args: Any) -> None:
        super().__init__(message)
        self.say = {"k": key, "a": args} if key else error_say(message)


def refuse(status: int, message: str, key: str, **args: Any) -> Any:
    """A refusal: `error` (one line, English, for logs and scripts) and `say` (the catalogue
    key and arguments the page shows in the phone's language)."""
    return jsonify(error=cap(message), say={"k": key, "a": args}), status


def _ext() -> Any:
    return current_app.extensions["uno"]


def _body() -> dict:
    """The request's JSON object (at most MAX_BODY bytes: more is a 413 before it is read)."""
    try:
        return parse_object(request.get_data(cache=True))
    except BodyError as exc:
        raise BadRequest(str(exc)) from None


def _cards(n: int) -> str:
    return f"{n} card" if n == 1 else f"{n} cards"


def camera_lost() -> bool:
    """Whether the table's camera is lost now (cannot be opened, or stopped sending)."""
    status_of = current_app.config.get("CAMERA_STATUS")
    status = status_of() if callable(status_of) else None
    return status is not None and status.state == "lost"


def _player(state: dict, name: object, field: str = "player") -> str:
    names = [p["name"] for p in state.get("players") or []]
    if name is None:  # the field left out (or misspelt): say which one
        raise BadRequest(f"name the {field}: \"{field}\": one of {', '.join(names) or 'no players yet'}",
                         "err.unknown_player")
    if not isinstance(name, str) or name not in names:
        raise BadRequest(f"unknown {field} {short(name)}: players are {', '.join(names) or 'none yet'}",
                         "err.unknown_player")
    return name


def _int(value: object, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or abs(value) > 10**9:
        raise BadRequest(f"{field} must be a whole number", "err.bad_number")
    return value


def _card(value: object) -> str:
    if value is None or (isinstance(value, str) and not value.strip()):
        raise BadRequest("no card named: pick a card first", "err.pick_card")
    if not isinstance(value, str) or len(value) > 40:
        raise BadRequest(f"unknown card {short(value)}: a card name like red_7 or wild_draw_four", "err.unknown_card")
    try:
        return parse_card(value).name
    except CompanionError as exc:  # its words, which name the card, are put in the page's by error_say
        raise BadRequest(str(exc)) from None


def _color(value: object) -> str:
    if not isinstance(value, str) or len(value) > 40:
        raise BadRequest(f"unknown colour {short(value)}: red, yellow, green or blue")
    # UNO Flip's dark colours exist only in a flip game; elsewhere they are unknown words
    flip = (_ext().referee.state.get("rules") or {}).get("deck") == "flip"
    if not flip and value in DARK_COLORS:
        raise BadRequest(f"unknown colour {short(value)}: red, yellow, green or blue")
    return parse_color(value)


_REQUEST_ID = re.compile(r"[A-Za-z0-9_-]{8,64}")


def _request_id() -> str | None:
    """The phone's id for this request (X-Request-Id), made once per tap and sent again with
    every retry of it; None when the sender gave none."""
    value = request.headers.get("X-Request-Id")
    if value is None:
        return None
    if not _REQUEST_ID.fullmatch(value):
        raise BadRequest("X-Request-Id must be 8-64 letters, digits, - or _")
    return value


def _reply(notices: list[dict], replayed: bool) -> Any:
    rejected = [n for n in notices if n.get("kind") == "rejected"]
    status = 409 if rejected else 200
    # each notice with its words for the page, as the live stream gives them: the phone that
    # tapped Catch or Challenge is told what the referee decided, not only "sent"
    notices = [dict(n, say=notice_say(n)) for n in notices]
    body: dict[str, Any] = {"ok": not rejected, "notices": notices}
    if rejected:
        body["error"] = cap(rejected[0].get("message", "the referee refused it"))
        body["say"] = error_say(str(rejected[0].get("message", "")))
    resp = jsonify(body)
    if replayed:
        resp.headers["X-Replayed"] = "1"  # the answer of the first try; nothing was stored now
    return resp, status


# A phone's refused taps are stored (the host's list of what was not accepted, the log), so a
# script tapping in a loop filled the card (100 lines a second) and hid real refusals from the
# host. Past REFUSED_PER_MINUTE in the last minute, that phone waits, and nothing is stored.
REFUSED_PER_MINUTE = 20


def _submit(event: dict, source: str) -> Any:
    phone = source.startswith("phone:")
    clock = _ext().access.clock
    recent = _ext().refused_taps.setdefault(source, []) if phone else []
    if phone:
        recent[:] = [at for at in recent if 0.0 <= clock() - at < 60.0]  # (the clock set back: forgotten)
        if len(recent) >= REFUSED_PER_MINUTE:
            return refuse(429, "too many refused taps from this phone: wait a minute", "err.too_many_taps")
    try:
        notices, replayed = _ext().referee.submit_once(event, source=source, request_id=_request_id())
    except RequestIdError as exc:
        return jsonify(error=str(exc)), 409
    g.replayed = replayed
    reply, status = _reply(notices, replayed)
    if phone and status == 409 and not replayed:
        recent.append(clock())
    return reply, status


def once(view: Callable[..., Any]) -> Callable[..., Any]:
    """Exactly once per request id: a retry of a request whose event is already stored gets
    the first answer back before anything else is looked at (the turn may have moved on)."""
    @wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        request_id = _request_id()
        if request_id is not None:
            referee = _ext().referee
            found = referee.store.find_request(request_id)
            if found is not None:
                mine = found["source"] == ("host" if request.path.startswith("/api/host/") else f"phone:{my_seat()}")
                if not mine or (found["source"] == "host" and not is_host()):
                    return jsonify(error="this request id was used by another sender: make a new one"), 409
                return _reply(referee.answer(found["game_id"], found["seq"]), True)
        return view(*args, **kwargs)

    return wrapper


@bp.errorhandler(BadRequest)
def _bad(exc: BadRequest) -> Any:
    return jsonify(error=cap(str(exc)), say=exc.say), 400


@bp.errorhandler(CompanionError)
def _companion(exc: CompanionError) -> Any:
    if isinstance(exc, OSError):
        # The store or the access file cannot be written (disk full, read-only card): nothing
        # was stored or acknowledged. One line to the phone, one to the terminal.
        text = cap(str(exc))
        log.error("%s", text if text.startswith("not stored") else f"not stored: {text}")
        return jsonify(error=cap(str(exc)), say={"k": "err.not_saved", "a": {}}), 503  # the phone says why
    return jsonify(error=cap(str(exc)), say=error_say(str(exc))), 400


@bp.get("/api/state")
def state() -> Any:
    return Response(_ext().hub.state_json(), mimetype="application/json", headers={"Cache-Control": "no-store"})


@bp.get("/api/health")
def health() -> Any:
    """For a watchdog or a benchmark: open pages, events of the game, whether the store writes."""
    referee = _ext().referee
    store = getattr(referee, "store", None)
    # "failing": the last write did not go in (a full card, the file deleted): a watchdog sees it
    state = "read-only" if getattr(store, "read_only", "") else "failing" if getattr(store, "failing", "") else "ok"
    return jsonify(phones=_ext().hub.phones_connected(), events=len(referee.events), store=state)


@bp.get("/events")
def events() -> Response:
    """Server-Sent Events: the full state at once (so a reconnect is whole), then each change."""
    if request.method == "HEAD":  # no stream to read: no queue opened (one was never closed)
        return Response(mimetype="text/event-stream", headers={"Cache-Control": "no-cache"})
    hub = _ext().hub
    q = hub.open()
    heartbeat = float(current_app.config["SSE_HEARTBEAT_S"])
    first = hub.snapshot_json()

    def stream() -> Any:
        try:
            yield "retry: 1000\n\n"
            yield f"data: {first}\n\n"
            while True:
                try:
                    payload = q.get(timeout=heartbeat)
                except queue.Empty:
                    yield BEAT
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
    if table_mode() == "demo":  # the page offers no seat there: a seat would only be refused every act
        return refuse(403, "this is the demo table: phones watch, the recorded game plays", "err.demo")
    state = _ext().referee.state
    player = _player(state, data.get("player"))
    try:
        token = _ext().seats.take(player, request.cookies.get(SEAT_COOKIE))
    except SeatKept as exc:
        return refuse(409, str(exc), "err.seat_kept", player=player)
    except PermissionError as exc:
        return refuse(409, str(exc), "err.seat_taken")
    resp = jsonify(ok=True, player=player)
    return set_seat_cookie(resp, token)


def _jumped_in(me: str, state: dict) -> Any:
    """"That card was mine": at a camera table playing jump-in, the card the camera credited to
    the player on turn was slapped down by this phone's player (with no camera, that phone
    lays it itself). The referee stores one correction: that play was this player's."""
    if table_mode() != "camera":
        return refuse(403, "with no camera, tap Jump in to lay the card yourself", "err.claim_no_camera")
    if not (state.get("rules") or {}).get("jump_in"):
        return refuse(403, "this table does not play jump-in", "err.claim_no_jump_in")
    try:
        notices, replayed = _ext().referee.claim_jump_in(me, source=f"phone:{me}", request_id=_request_id())
    except RequestIdError as exc:
        return jsonify(error=str(exc)), 409
    except ClaimError as exc:
        if exc.key is None:  # the engine's reason
            return jsonify(error=cap(str(exc)), say=error_say(str(exc))), 409
        return refuse(409, str(exc), exc.key, **exc.args_)
    return _reply(notices, replayed)


@bp.get("/api/seat")
def seat_now() -> Any:
    """This phone's seat (null for none) and the names whose seat a phone holds: a new game
    keeps the same names' seats, and the name list says which are taken before a tap."""
    return jsonify(player=my_seat(), taken=_ext().seats.taken())


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
                 "target": ("target",), "challenge": ("challenge",), "accept": ("challenge",),
                 "take_back": ("take_back",),
                 # a reflect card answers a wild draw four while it may be challenged
                 "play": ("play", "challenge")}
_ACTIONS = "draw, pass, color, target, accept, challenge, uno, catch, play, flip, points, take_back, jumped_in"


def table_mode() -> str:
    """How cards reach the referee: "camera" (a camera or video), "none" (phones only: the
    host and the players enter the cards) or "demo" (the bundled demo: phones only watch)."""
    return str(current_app.config.get("TABLE_MODE") or "camera")


@bp.post("/api/act")
@once
def act() -> Any:
    """A seat's action. Only the phone holding the seat may act for it."""
    data = _body()
    me = my_seat()
    if table_mode() == "demo":
        # The demo's bot answers for the recorded table: a phone's tap would throw it off.
        return refuse(403, "this is the demo table: phones watch, the recorded game plays", "err.demo")
    if me is None:
        return refuse(403, "take a seat first", "err.seat_first")
    state = _ext().referee.state
    action = data.get("action")
    if not isinstance(action, str):
        raise BadRequest(f"action must be a word: one of {_ACTIONS}, not {short(action)}")
    if action == "jumped_in":
        return _jumped_in(me, state)
    if action in ("play", "flip", "take_back") and table_mode() != "none" and not (
            action == "play" and data.get("card") == "mario_reflect"):
        # With a camera, the camera reads every card: a card tapped too would be played twice.
        # (The reflect card is no model class: the camera cannot read it, its phone says it.)
        # A lost camera counts nothing meanwhile, but it may see the pile again: the host enters
        # what was laid (one hand, no double count), and the phone says why.
        if camera_lost():
            return refuse(403, "the camera is not working: the host enters the cards until it is back",
                          "err.camera_lost_plays")
        return refuse(403, "the camera reads the cards at this table", "err.camera_plays")
    # An illegal card waiting to be taken back stands if the next player plays or draws on it
    # (table-log.md): the engine names that player.
    standing = (action in ("play", "draw") and state.get("waiting_for") == "take_back"
                and state.get("stands_for") == me)
    # jump-in (house rule): the identical card, out of turn, while a play is awaited; the
    # engine checks the card and names the jumper as the player play goes on from
    jump = (action == "play" and bool((state.get("rules") or {}).get("jump_in"))
            and state.get("waiting_for") == "play" and state.get("turn") not in (None, me))
    if action in _TURN_ACTIONS and not standing and not jump:
        if state.get("turn") != me or state.get("waiting_for") not in _TURN_ACTIONS[action]:
            waiting = state.get("waiting_for")
            if state.get("turn") and state.get("turn") != me:
                return refuse(403, f"not your move: the table waits for {state.get('turn')} "
                                   f"({WAITING_WORDS.get(waiting, waiting)})",
                              "err.not_your_move", player=state.get("turn"))
            # nobody's turn, or it is mine but the table waits for something else (my colour)
            return refuse(403, not_now(waiting), "err.not_now", phase=waiting)
    # the first card is the dealer's to turn up; after a Flip, the new top is its player's to say
    turner = state.get("turned_by") or state.get("dealer")
    if action == "flip" and (state.get("waiting_for") != "flip" or turner != me):
        if state.get("waiting_for") != "flip":
            return refuse(403, not_now(state.get("waiting_for")), "err.not_now",
                          phase=state.get("waiting_for"))
        if state.get("turned_by"):
            return refuse(403, f"{turner} played the Flip and says the new top card", "err.not_turner",
                          player=turner)
        return refuse(403, f"the dealer ({state.get('dealer')}) turns up the first card", "err.not_dealer")
    if action in ("draw", "accept") and data.get("count") is not None:
        # "I drew N": a draw until a colour (Wild Draw Colour, Dementor) or draw_until_playable,
        # counted by the player because the referee cannot see the pile
        count = _int(data.get("count"), "count")
        if not 1 <= count <= 200:
            raise BadRequest("count must be a whole number of cards, 1-200", "err.bad_count")
        event: dict = {"type": "draw", "count": count}
    elif action in ("play", "flip"):
        event = {"type": action, "card": _card(data.get("card"))}
        if jump and event["card"] != state.get("top"):
            # not a jump-in: a card tapped off turn, refused to this phone alone, nothing stored
            return refuse(403, f"not your move: the table waits for {state.get('turn')} (a jump-in needs "
                               f"the card identical to the top one)", "err.not_your_move", player=state.get("turn"))
        if jump:
            event["player"] = me
        elif (action == "play" and not standing and state.get("pending_draw")
              and not _ext().referee.answers(event["card"])):
            # The phone of the player the cards are coming to: the engine takes a card that does
            # not answer them as the next player's (a camera cannot tell who laid it), and this
            # phone is not the next player's.
            n = state["pending_draw"]
            return refuse(403, f"{n} cards are coming to you: only a card that answers them can be played, "
                               f"or Draw to take them", "err.must_answer", n=n)
    elif action == "points":
        points = _int(data.get("points"), "points")
        if points < 0:
            raise BadRequest("points cannot be negative", "err.bad_points")
        # a typo guard: no more than the cards the referee counts in this hand can score
        held = next((int(p.get("cards") or 0) for p in state.get("players") or [] if p.get("name") == me), 0)
        values = _deck_points(state)
        most = held * values[-1]
        # nor fewer than the deck's cheapest cards that many (9 cards score at least 5: four zeros
        # and five ones), so a 0 typed by mistake does not cost the winner a hand's points.
        # Cards drawn that the referee never counted only add to it.
        least = sum(values[:held])
        if points < least and me != state.get("hand_winner"):
            raise BadRequest(f"{points} points is less than {_cards(held)} can hold (at least {least}): "
                             "if you hold fewer cards, the host enters your points", "err.points_under_hand",
                             n=held, least=least)
        # a last Wild Draw Colour (or Dementor) had the next player draw until a colour: cards
        # the referee never counted, so no cap
        drew_unseen = state.get("top") in _DRAWS_UNTIL
        if points > most and me != state.get("hand_winner") and not drew_unseen:  # (the winner hears that they won)
            raise BadRequest(f"{points} points is more than {_cards(held)} can hold (at most {most}): "
                             "if you hold more, the host enters your points", "err.points_over_hand",
                             n=held, most=most)
        event = {"type": "points", "player": me, "points": points}
    elif action == "draw" and standing:
        event = {"type": "draw"}
    elif action in ("draw", "accept"):
        # With cards pending (a wild draw four accepted, or a stack not answered) the
        # victim's draw takes them all: the engine reads a draw of that count so.
        pending = int(state.get("pending_draw") or 0)
        event = {"type": "draw", "count": pending} if pending else {"type": "draw"}
    elif action == "pass":
        event = {"type": "pass"}
    elif action == "color":
        event = {"type": "color", "color": _color(data.get("color"))}
    elif action == "target":
        target = _player(state, data.get("player"), "target")
        if target == me:
            raise BadRequest("pick another player, not yourself", "err.pick_other")
        event = {"type": "target", "player": target}
    elif action == "challenge":
        event = {"type": "challenge"}
    elif action == "take_back":  # a phones-only table: the offender says the card is back in hand
        event = {"type": "take_back"}
    elif action == "uno":
        event = {"type": "uno", "player": me}
    elif action == "catch":
        event = {"type": "catch", "by": me}
        if data.get("target") is not None:
            event["target"] = _player(state, data.get("target"), "target")
    else:
        raise BadRequest(f"unknown action {short(action)}: one of {_ACTIONS}")
    return _submit(event, f"phone:{me}")


# -- host --------------------------------------------------------------------------------

@bp.post("/api/host/login")
def host_login() -> Any:
    """The PIN, with back-off per client (address + client cookie): each wrong PIN doubles
    that client's wait; a client that has not failed is never held up by another's guesses."""
    access = _ext().access
    address, client = client_id()
    wait = access.wait_for(address, client)
    if wait > 0:
        seconds = max(1, math.ceil(wait))
        reply, status = refuse(429, f"too many wrong PINs from this phone: wait {seconds} s", "err.pin_wait", n=seconds)
        return reply, status, {"Retry-After": str(seconds)}
    pin = _body().get("pin")
    if not isinstance(pin, str):  # a script's number, not a guess: no back-off for it
        raise BadRequest(f"the PIN is text, in quotes: not {short(pin)}", "err.wrong_pin")
    if not pin_ok(pin):
        access.failed(address, client)
        log.warning("host: wrong PIN from %s", address)
        return refuse(403, "wrong PIN", "err.wrong_pin")
    access.succeeded(address, client)
    access.end_host_session(session.get("host"))
    session["host"] = access.new_host_session()
    return jsonify(ok=True)


@bp.post("/api/host/logout")
def host_logout() -> Any:
    """Ends the host session on the server: a copy of the cookie no longer works."""
    _ext().access.end_host_session(session.pop("host", None))
    return jsonify(ok=True)


# every table option of the engine, house rules included (their values are the engine's to check)
_RULE_KEYS = tuple(f.name for f in fields(Rules))


@bp.post("/api/host/game")
@host_required
@once
def host_game() -> Any:
    if table_mode() == "demo":  # the bot follows the recorded game: a new one would strand it
        return refuse(403, "this is the demo table: it plays the recorded game", "err.demo_game")
    data = _body()
    event: dict = {"type": "game", "players": _names(data.get("players"))}
    rules = data.get("rules") or {}
    if not isinstance(rules, dict):
        raise BadRequest("rules must be an object")
    unknown = [k for k in rules if k not in _RULE_KEYS]
    if unknown:
        raise BadRequest(f"unknown table option {short(unknown[0])}{hint(unknown[0], _RULE_KEYS, few=0)}")
    odd = [k for k, v in rules.items() if not is_scalar(v) or (isinstance(v, str) and len(v) > 40)]
    if odd:
        raise BadRequest(f"table option {odd[0]} must be a word, a number or true/false")
    if rules:
        event["rules"] = rules
    # The referee checks the game first: seats are freed only once a new game has begun, so a
    # refused game (a typo in an option) unseats nobody.
    replaced = _ext().referee.game_id
    reply, status = _submit(event, "host")
    if status == 200 and not g.get("replayed"):  # the same names keep their phones' seats
        _ext().seats_reset(replaced)
    return reply, status


# what `rules.name_check` found, as the page's messages name it (stripped names have no "spaces")
_NAME_KEYS = {"same": "err.players_list", "spaces": "err.players_list", "long": "err.name_long",
              "chars": "err.name_chars"}


def _names(players: object) -> list[str]:
    """A table's players as the host typed them: 2 to 10 names, stripped, that `rules.name_check`
    seats (not "Anna" and "anna", at most 40 characters each, no tab or line break)."""
    if (not isinstance(players, list) or not all(isinstance(p, str) and p.strip() for p in players)
            or not 2 <= len(players) <= 10):
        raise BadRequest("players must be a list of 2 to 10 different names, clockwise", "err.players_list")
    names = [p.strip() for p in players]
    problem = name_check(names)
    if problem is not None:
        what, why, details = problem
        raise BadRequest(why, _NAME_KEYS[what], **details)
    return names


@bp.post("/api/host/deal")
@host_required
@once
def host_deal() -> Any:
    data = _body()
    event: dict = {"type": "deal"}
    state = _ext().referee.state
    if data.get("dealer") not in (None, ""):
        event["dealer"] = _player(state, data["dealer"], "dealer")
    elif not state.get("history") and state.get("dealer") is None and state.get("players"):
        # the first hand has no rotation to follow: the first player deals, as with the
        # configuration's dealer = "" (the page's "next in turn")
        event["dealer"] = state["players"][0]["name"]
    return _submit(event, "host")


@bp.post("/api/host/seats")
@host_required
@once
def host_seats() -> Any:
    """The players in a new clockwise order ({"players": [...]}), stored as a `seats` event: only
    while a deal is awaited (before the first hand or between hands); mid-hand it is refused
    with one line and nothing changes. Scores and the dealer stay with each person; a new name
    joins the game with no points, a name left out leaves it (and its phone's seat is freed)."""
    state = _ext().referee.state
    if table_mode() == "demo":  # the recorded game keeps its seats, or the bot's log goes wrong
        return refuse(403, "this is the demo table: its seats follow the recorded game", "err.demo_seats")
    waiting = state.get("waiting_for")
    if waiting == "game":
        return refuse(409, "no game yet: a new game sets the seats", "err.no_game")
    if waiting == "game_over":
        return refuse(409, "the game is over: start a new game with the new order", "err.seats_over")
    if waiting != "deal":
        return refuse(409, "the seat order changes only between hands: finish this hand first",
                      "err.seats_mid_hand")
    players = _names(_body().get("players"))
    names = [p["name"] for p in state.get("players") or []]
    reply, status = _submit({"type": "seats", "players": players}, "host")
    if status == 200 and not g.get("replayed") and sorted(players) != sorted(names):
        _ext().seats_reset()  # a player who left gives their phone's seat up
    return reply, status


@bp.post("/api/host/undo")
@host_required
@once
def host_undo() -> Any:
    """Undo the last step. With `at` (the log's length the host's page showed), an undo from a
    page that has not seen the latest step is refused: two hosts pressing Undo at once, or
    one pressing on a stale page, take back one step, not two."""
    if table_mode() == "demo":
        return refuse(403, "this is the demo table: it plays the recorded game", "err.demo_game")
    at = _body().get("at")
    if at is not None and _int(at, "at") != len(_ext().referee.events):
        return refuse(409, "the table moved on since this page was drawn: look again, then undo",
                      "err.undo_moved")
    reply, status = _submit({"type": "undo"}, "host")
    if status == 200:  # a New game taken back: the game it replaced, and its seats, are back
        _ext().seats_back(_ext().referee.game_id)
    return reply, status


def _correction() -> dict:
    data = _body()
    index = _int(data.get("event"), "event")
    n = len(_ext().referee.events)
    if not 0 <= index < n:
        raise BadRequest(f"event must be a log index from 0 to {n - 1}")
    return {"type": "correct", "event": index, "card": _card(data.get("card"))}


@bp.post("/api/host/correct")
@host_required
@once
def host_correct() -> Any:
    return _submit(_correction(), "host")


@bp.post("/api/host/correct/check")
@host_required
def host_correct_check() -> Any:
    """Whether a correction would be taken, asked before the host confirms it (a refusal told
    only after Yes, from a later play the new card would make illegal, read as a fault)."""
    why = _ext().referee.why_not(_correction())
    if why is None:
        return jsonify(ok=True)
    return jsonify(ok=False, error=cap(why), say=error_say(why))


@bp.post("/api/host/points")
@host_required
@once
def host_points() -> Any:
    data = _body()
    player = _player(_ext().referee.state, data.get("player"))
    points = _int(data.get("points"), "points")
    if points < 0:
        raise BadRequest("points cannot be negative", "err.bad_points")
    # the host may enter more than the referee's count of the hand (a draw it missed), not
    # more than the whole deck holds: a typo guard (the engine's own, said first in words)
    whole = most_points(parse_rules(_ext().referee.state.get("rules") or {}))
    if points > whole:
        raise BadRequest(f"{points} points is more than a hand can hold: the whole deck scores {whole}",
                         "err.points_over_deck", most=whole)
    return _submit({"type": "points", "player": player, "points": points}, "host")


def _deck_points(state: dict) -> list[int]:
    """What each card of this game's deck scores, cheapest first (the last: the most one card
    scores; the sum: the whole deck)."""
    rules = parse_rules(state.get("rules") or {})
    return sorted(v for c, k in rules.deck_counts.items() for v in [points(c, rules.deck)] * k)


@bp.post("/api/host/score_fix")
@host_required
@once
def host_score_fix() -> Any:
    data = _body()
    state = _ext().referee.state
    points = _int(data.get("points"), "points")
    hand = _int(data.get("hand"), "hand")
    done = next((h for h in state.get("history") or [] if h.get("hand") == hand), None)
    played = (done or {}).get("points") or {}
    # a player of that hand, also one who has left the table since
    player = data.get("player") if isinstance(data.get("player"), str) and data.get("player") in played \
        else _player(state, data.get("player"))
    # A malformed fix is the sender's mistake, not a line for the game's log: refused here,
    # nothing stored (the engine would refuse it too, but as a stored refused line).
    if points < 0:
        raise BadRequest("points cannot be negative", "err.bad_points")
    # a typo guard: a hand scores at most the whole deck, twice over where a hand counts double
    most = most_points(parse_rules(state.get("rules") or {}), fix=True)
    if points > most:
        raise BadRequest(f"{points} points is more than a hand can score ({most})", "err.points_over_deck", most=most)
    if done is None:
        raise BadRequest(f"no finished hand {hand} to fix", "err.no_hand_fix", hand=hand)
    if player not in played:  # a newcomer's hands begin after they joined
        raise BadRequest(f"{player} did not play hand {hand}: they joined after it")
    refused = fix_refused(parse_rules(state.get("rules") or {}), hand, done.get("winner"), player)
    if refused:  # a loser's points in a winner-takes game (the engine's rule, said before storing)
        raise BadRequest(refused)
    return _submit({"type": "score_fix", "hand": hand, "player": player, "points": points}, "host")


@bp.post("/api/host/verdict")
@host_required
@once
def host_verdict() -> Any:
    guilty = _body().get("guilty")
    if not isinstance(guilty, bool):
        raise BadRequest("guilty must be true or false")
    return _submit({"type": "verdict", "guilty": guilty}, "host")


@bp.post("/api/host/card")
@host_required
@once
def host_card() -> Any:
    """A card the camera missed: a `play` (with an optional colour) or a `flip`. Several names
    ("red_5 blue_5", or a `cards` list) are one multiple play (house rule multiple_play)."""
    data = _body()
    kind = data.get("type", "play")
    if not isinstance(kind, str) or kind not in ("play", "flip", "take_back"):
        raise BadRequest("type must be play, flip or take_back")
    if kind == "take_back":
        return _submit({"type": "take_back"}, "host")
    names = data.get("cards")
    if names is None and isinstance(data.get("card"), str):
        names = [n for n in re.split(r"[\s,]+", data["card"].strip()) if n]
    if kind == "play" and isinstance(names, list) and len(names) > 1:
        if len(names) > 10:
            raise BadRequest(f"{len(names)} cards at once: a multiple play lays at most 10")
        laid = [_card(n) for n in names]
        return _submit({"type": "play", "card": laid[-1], "cards": laid}, "host")
    event: dict = {"type": kind, "card": _card(data.get("card"))}
    if data.get("color") not in (None, ""):
        event["color"] = _color(data["color"])
    if kind == "play" and data.get("player") not in (None, ""):
        # a jump-in the camera missed: the jumper laid it, not the player on turn
        event["player"] = _player(_ext().referee.state, data["player"])
    return _submit(event, "host")


@bp.get("/api/host/refused")
@host_required
def host_refused() -> Any:
    """The referee's refusals in this game (newest last), for the host only: a phone hears of
    its own in the answer to its tap, and nobody else is bothered with them."""
    later = getattr(_ext().referee, "counted_later", set())  # held for a colour, then counted: no refusal
    notices = [n for n in _ext().referee.state.get("notices") or ()
               if n.get("kind") == "rejected" and n.get("event") not in later][-20:]
    lines = _ext().referee.events
    return jsonify(refused=[{"event": n.get("event"), "player": n.get("player"), "message": cap(str(n.get("message"))),
                             "say": error_say(str(n.get("message"))), "what": _refused_what(lines, n.get("event"))}
                            for n in notices])


def _refused_what(lines: list, index: object) -> dict:
    """What a refused line was, for the host to act on: its type, and its card, or how many cards
    a hand shown held (never which: the phones may not see a hand, nor may the host's page)."""
    line = lines[index] if isinstance(index, int) and 0 <= index < len(lines) else None
    if isinstance(line, str):
        line = decode_line(line)
    if not isinstance(line, dict):
        return {"type": "?"}
    what: dict = {"type": str(line.get("type"))[:20]}
    if line.get("type") in ("play", "flip") and isinstance(line.get("card"), str):
        what["card"] = line["card"][:40]
    elif line.get("type") == "reveal" and isinstance(line.get("cards"), list):
        what["cards"] = len(line["cards"])
    return what


@bp.get("/api/host/seats")
@host_required
def host_seats_taken() -> Any:
    """The names a phone holds now: the host page offers to free only those."""
    return jsonify(taken=_ext().seats.taken())


@bp.post("/api/host/release")
@host_required
def host_release() -> Any:
    player = _player(_ext().referee.state, _body().get("player"))
    _ext().seats.release(player)
    return jsonify(ok=True)


@bp.post("/api/host/seat_link")
@host_required
def host_seat_link() -> Any:
    """A one-time link (and its QR code) that gives one player's seat to the phone that opens it:
    the seat is freed and kept for the link, so a phone that took it cannot tap it back."""
    from web.lan import qr_svg, table_url

    if table_mode() == "demo":
        return refuse(403, "this is the demo table: phones watch, the recorded game plays", "err.demo")
    player = _player(_ext().referee.state, _body().get("player"))
    ttl = float(current_app.config["SEAT_LINK_S"])
    url = table_url(current_app.config) + "seat/link/" + _ext().seats.link(player, ttl)
    return jsonify(ok=True, player=player, url=url, qr=qr_svg(url), minutes=round(ttl / 60))


@bp.get("/api/host/log")
@host_required
def host_log() -> Any:
    """The game's lines for corrections; a reveal shows how many cards, never which. Each
    says whether it is in effect (a refused or undone line cannot be corrected)."""
    lines = []
    live = set(_ext().referee.in_effect)
    # the cards each line made someone draw (a penalty, a challenge): an Undo of it sends them back
    drawn: dict[int, list[dict]] = {}
    for note in _ext().referee.state.get("notices") or []:
        k = drawn_in(str(note.get("message", "")))  # as the engine's `cards_back` counts them
        if k and note.get("kind") != "rejected" and note.get("player"):
            drawn.setdefault(note["event"], []).append({"player": note["player"], "n": k})
    for i, line in enumerate(_ext().referee.events):
        if isinstance(line, str):
            try:
                line = json.loads(line)
            except (ValueError, RecursionError):
                line = {"type": "?"}
        if isinstance(line, dict) and line.get("type") == "reveal":
            line = {"type": "reveal", "player": line.get("player"), "cards": len(line.get("cards") or [])}
        lines.append({"event": i, "line": line, "in_effect": i in live, "drawn": drawn.get(i, [])})
    return jsonify(lines=lines)


# -- revealed hands typed by the host, league night --------------------------------------------

@bp.post("/api/host/reveal")
@host_required
@once
def host_reveal() -> Any:
    """A revealed hand typed by the host (no camera, or the camera missed it): `cards` (a list,
    or names separated by spaces or commas). At scoring the points are computed from the
    cards; during a challenge the verdict is judged from them. Every name is checked before
    anything is sent; phones never see which cards."""
    data = _body()
    state = _ext().referee.state
    names = data.get("cards")
    if isinstance(names, str):
        names = [n for n in re.split(r"[\s,]+", names.strip()) if n]
    if not isinstance(names, list) or len(names) > 120:
        raise BadRequest("cards must be a list of card names (at most 120)", "err.pick_card")
    cards = [_card(n) for n in names]
    rules = parse_rules(state.get("rules") or {})
    outside = next((c for c in cards if c not in rules.deck_counts), None)
    if outside is not None:  # checked here too: a typed hand is all or nothing, and not stored refused
        raise BadRequest(f"{outside} is not in the {rules.deck} deck")
    event: dict = {"type": "reveal", "cards": cards}
    if data.get("player") is not None:
        event["player"] = _player(state, data.get("player"))
    scoring = state.get("waiting_for") == "scores"  # (a challenge's evidence scores nothing)
    reply, status = _submit(event, "host")
    if status == 200 and scoring:
        body = reply.get_json()
        deck = (state.get("rules") or {}).get("deck", "classic")
        body["points"] = sum(points(c, deck) for c in cards)
        reply.set_data(json.dumps(body))
    return reply, status


def _store() -> Any:
    return _ext().referee.store


@bp.get("/api/leagues")
def leagues() -> Any:
    return jsonify(leagues=_store().leagues())


@bp.get("/api/league/<league_id>")
def league(league_id: str) -> Any:
    """A league's standings: the table (victory points, games won, game points), each finished
    game's placings and points, and `series` (victory points after each game, for a chart).
    `newest` names the newest league."""
    from companion.referee.league import league_standings

    store = _store()
    if league_id == "newest":
        known = store.leagues()
        if not known:
            return refuse(404, "no league yet: the host opens one", "err.no_league_yet")
        league_id = known[-1]["id"]
    if len(league_id) > 64 or store.league(league_id) is None:
        return refuse(404, f"no league {short(league_id)}", "err.no_league", league=short(league_id))
    return jsonify(league_standings(store, league_id))


@bp.post("/api/host/league")
@host_required
def host_league() -> Any:
    """Open a league ({"name", "victory_points"?}): games started from now on join it."""
    from companion.referee.league import LeagueError, parse_victory_points

    data = _body()
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise BadRequest("name must be 1-80 characters", "err.league_name")
    if len(name) > 80:
        raise BadRequest("name must be 1-80 characters", "err.league_name_long")
    try:
        vp = parse_victory_points(data.get("victory_points"))
    except LeagueError as exc:  # the page checks the list first: a script's mistake, said in words
        raise BadRequest(str(exc), "err.victory_points") from None
    league_id = _store().new_league(name.strip(), vp)
    return jsonify(ok=True, id=league_id, victory_points=vp)


@bp.post("/api/host/league/<league_id>/games")
@host_required
def host_league_add(league_id: str) -> Any:
    """Add a stored game ({"game": id}) to a league."""
    game_id = _body().get("game")
    if not isinstance(game_id, str) or len(game_id) > 64:
        raise BadRequest("game must be a stored game's id", "err.no_stored_game", game=short(str(game_id)))
    store = _store()
    if store.league(league_id) is None:
        return refuse(404, f"no league {short(league_id)}", "err.no_league", league=short(league_id))
    if not store.has_game(game_id):
        return refuse(404, f"no game {short(game_id)}", "err.no_stored_game", game=short(game_id))
    already = game_id in store.league_games(league_id)
    store.add_to_league(league_id, game_id)
    # a game still in play joins now and counts once finished (`unfinished` in the standings)
    finished = store.finished(game_id)
    key, message = (("done.league_already", "the game is in the league already") if already else
                    ("done.league_added", "the game is in the league") if finished else
                    ("done.league_later", "the game is in the league: not finished yet, it counts once it is"))
    return jsonify(ok=True, finished=finished, already=already, message=message, say={"k": key, "a": {}})


@bp.post("/api/host/league/<league_id>/close")
@host_required
def host_league_close(league_id: str) -> Any:
    store = _store()
    if store.league(league_id) is None:
        return refuse(404, f"no league {short(league_id)}", "err.no_league", league=short(league_id))
    store.close_league(league_id)
    return jsonify(ok=True)
