"""Live updates: one queue per open page, fed by Referee.subscribe, and the public state.

Phones never see revealed hands: the public state leaves out the log, and notices caused by
a `reveal` line have card names scrubbed from their message.
"""
from __future__ import annotations

import asyncio
import json
import queue
import re
import threading
import time
from typing import Any, Callable

from companion.referee.cards import ALL_CARD_NAMES
from companion.referee.store import decode_line
from web.messages import notice_say

# "wild" is also a word in the referee's prose ("an honest wild draw four"): not a card there.
_CARD_RE = re.compile(r"\b(" + "|".join(sorted(ALL_CARD_NAMES, key=len, reverse=True)) + r")\b(?! draw four)")


def _from_reveal(events: list | None, index: object) -> bool:
    """Whether a notice came from a `reveal` line (unknown: assume so, to be safe)."""
    if events is None or not isinstance(index, int) or not 0 <= index < len(events):
        return True
    line = events[index]
    if isinstance(line, str):
        line = decode_line(line)
    return isinstance(line, dict) and line.get("type") == "reveal"
PUBLIC_KEYS = (
    "players", "dealer", "turn", "direction", "top", "color", "waiting_for", "hand_winner",
    "game_winner", "rules", "hand", "draw_pile", "discard_pile", "pending_draw", "uno_window",
    "drawn", "history", "teams", "out",
    # themed decks: UNO Flip's side in play and its colours, who flipped, a discard two's
    # second card, a draw until a colour owed; league night: the finished game's placings;
    # who may leave an illegal card standing; whose points a finished hand still awaits
    "side", "colors", "turned_by", "second_card", "draw_until", "placings", "places", "stands_for", "points_due",
    "color_under", "jump_card",
)


class TurnClock:
    """When the turn in progress began, by this process's clock: the engine is pure and has
    none, so the `turn_seconds` timer lives here. The phones count down from `elapsed`; the
    timer only warns, nothing is ever played for anyone."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._key: tuple | None = None
        self._since = 0.0

    def read(self, state: dict, game_id: str | None = None) -> dict | None:
        """{"seconds": the option, "elapsed": seconds since this turn began}, or None when the
        table has no timer or nobody is on turn."""
        seconds = (state.get("rules") or {}).get("turn_seconds")
        turn = state.get("turn")
        if not seconds or turn is None:
            return None
        # a new turn: another player, phase or card on the pile (a 2-player skip replays it)
        key = (game_id, state.get("hand"), turn, state.get("waiting_for"), state.get("top"),
               state.get("color"), state.get("direction"), state.get("discard_pile"))
        now = self._clock()
        with self._lock:
            if key != self._key:
                self._key, self._since = key, now
            since = self._since
        return {"seconds": seconds, "elapsed": round(now - since, 1)}


def public_state(state: dict, events: list | None = None, game_id: str | None = None,
                 turn_clock: dict | None = None, jump_claim: dict | None = None) -> dict:
    """The state a phone may see: everything but revealed cards, last 30 notices.

    Refusals (`rejected`) are not public: the phone or host that sent the event hears of it
    in the answer to its request, and the host page lists the rest (/api/host/refused).
    Each notice carries `say`, its catalogue key and arguments for the page's languages."""
    out: dict[str, Any] = {k: state.get(k) for k in PUBLIC_KEYS}
    out["teams"] = out["teams"] or []
    out["out"] = out["out"] or []
    out["turn_clock"] = turn_clock
    out["jump_claim"] = jump_claim  # a card just laid on its twin, and whom it counts for (Referee.jump_claim)
    notices = []
    public: list[dict] = []
    for notice in reversed(state.get("notices") or ()):  # the last 30 public ones, newest last
        if notice.get("kind") != "rejected":
            public.append(notice)
            if len(public) == 30:
                break
    for notice in reversed(public):
        notice = dict(notice)
        # Plays are public; a notice caused by a revealed hand must not name its cards.
        if _from_reveal(events, notice.get("event")):
            text = str(notice.get("message", "")).replace("wild_draw_four", "wild draw four")
            notice["message"] = _CARD_RE.sub("a card", text)
        notice["say"] = notice_say(notice)  # from the scrubbed message: no revealed card leaks
        notices.append(notice)
    out["notices"] = notices
    out["game_id"] = game_id
    out["events"] = len(events) if events is not None else None
    return out


# A stream's keep-alive: a named event the page hears (a ": comment" line fires nothing in a
# browser), so a phone whose Wi-Fi went quiet without closing anything can tell it is cut off.
BEAT = "event: beat\ndata: {}\n\n"


class LiveHub:
    """Fan-out of referee updates to every open live stream: thread queues (Flask's own
    /events, used by the test client) and asyncio queues (web.server, where streams cost no
    thread). One JSON text per update, made once for all streams; the latest is cached for
    /api/state and for each new stream's first message."""

    def __init__(self, referee: Any, clock: Callable[[], float] = time.monotonic) -> None:
        self.referee = referee
        self.turn_clock = TurnClock(clock)
        self._lock = threading.Lock()
        self._queues: set[queue.Queue] = set()
        self._async: dict[asyncio.AbstractEventLoop, set[asyncio.Queue]] = {}
        self._payload: str | None = None  # the latest public state as JSON, None: to be made
        self._unsubscribe = referee.subscribe(self._on_event) if referee is not None else None

    def snapshot(self) -> dict:
        return json.loads(self.state_json())

    def state_json(self) -> str:
        """The public state as JSON text (made once per event, cached until the next)."""
        with self._lock:
            cached = self._payload
        if cached is not None:
            return cached
        ref = self.referee
        if ref is None:
            return json.dumps(public_state({"waiting_for": "game", "players": []}))
        with getattr(ref, "_lock", threading.RLock()):  # state and events of the same moment
            state, game_id = ref.state, getattr(ref, "game_id", None)
            clock = self.turn_clock.read(state, game_id)
            text = json.dumps(public_state(state, ref.events, game_id, clock, getattr(ref, "jump_claim", None)))
            if clock is None:  # a turn timer's elapsed seconds grow: a timed state is made afresh
                with self._lock:
                    self._payload = text
        return text

    def cached_state_json(self) -> str | None:
        """The cached public state, or None when it must be made (which waits for the referee)."""
        with self._lock:
            return self._payload

    def snapshot_json(self) -> str:
        """`{"state": public state}`: a stream's message."""
        return '{"state": ' + self.state_json() + "}"

    def _on_event(self, state: dict, notices: list[dict]) -> None:
        # Runs on the submitting thread (holding the referee's lock) after the event is
        # stored: make the text once, then only enqueue.
        game_id = self.referee.game_id
        clock = self.turn_clock.read(state, game_id)
        text = json.dumps(public_state(state, self.referee.events, game_id, clock,
                                       getattr(self.referee, "jump_claim", None)))
        with self._lock:
            self._payload = text if clock is None else None
        self._publish('{"state": ' + text + "}")

    def seats_moved(self) -> None:
        """A seat was taken or freed (no table event): phones ask again which seat is theirs."""
        self._publish('{"seats": true}')

    def _publish(self, payload: str) -> None:
        with self._lock:
            queues = list(self._queues)
            loops = list(self._async)
        for q in queues:
            _put_latest(q, payload)
        for loop in loops:
            try:
                loop.call_soon_threadsafe(self._fan_out, loop, payload)
            except RuntimeError:  # that loop has closed
                with self._lock:
                    self._async.pop(loop, None)

    def _fan_out(self, loop: asyncio.AbstractEventLoop, payload: str | None) -> None:
        # The stream's message as bytes, made once for every stream on the loop.
        chunk = None if payload is None else f"data: {payload}\n\n".encode()
        with self._lock:
            queues = list(self._async.get(loop, ()))
        for q in queues:
            _put_latest(q, chunk)

    def open(self) -> queue.Queue:
        q: queue.Queue = queue.Queue(maxsize=64)
        with self._lock:
            self._queues.add(q)
        return q

    def close(self, q: queue.Queue) -> None:
        with self._lock:
            self._queues.discard(q)

    def open_async(self, loop: asyncio.AbstractEventLoop) -> asyncio.Queue:
        """A queue of updates for a stream served on `loop` (call on that loop): each an SSE
        message as bytes, None when the stream is to end."""
        q: asyncio.Queue = asyncio.Queue(maxsize=64)
        with self._lock:
            self._async.setdefault(loop, set()).add(q)
        return q

    def close_async(self, q: asyncio.Queue) -> None:
        with self._lock:
            for queues in self._async.values():
                queues.discard(q)

    def end_async_streams(self) -> None:
        """Tell every asyncio stream to end (the server is stopping)."""
        with self._lock:
            loops = list(self._async)
        for loop in loops:
            try:
                loop.call_soon_threadsafe(self._fan_out, loop, None)
            except RuntimeError:
                pass

    def phones_connected(self) -> int:
        with self._lock:
            return len(self._queues) + sum(len(qs) for qs in self._async.values())


def _put_latest(q: Any, payload: str | None) -> None:
    """Enqueue; a stuck phone's full queue drops its oldest update (it gets the newest state)."""
    try:
        q.put_nowait(payload)
    except (queue.Full, asyncio.QueueFull):
        try:
            q.get_nowait()
            q.put_nowait(payload)
        except (queue.Empty, queue.Full, asyncio.QueueEmpty, asyncio.QueueFull):
            pass
