"""Live updates: one queue per open page, fed by Referee.subscribe, and the public state.

Phones never see revealed hands: the public state leaves out the log, and notices caused by
a `reveal` line have card names scrubbed from their message.
"""
from __future__ import annotations

import json
import queue
import re
import threading
import time
from typing import Any, Callable

from companion.cards import CARD_NAMES

# "wild" is also a word in the referee's prose ("an honest wild draw four"): not a card there.
_CARD_RE = re.compile(r"\b(" + "|".join(sorted(CARD_NAMES, key=len, reverse=True)) + r")\b(?! draw four)")


def _from_reveal(events: list | None, index: object) -> bool:
    """Whether a notice came from a `reveal` line (unknown: assume so, to be safe)."""
    if events is None or not isinstance(index, int) or not 0 <= index < len(events):
        return True
    line = events[index]
    if isinstance(line, str):
        try:
            line = json.loads(line)
        except ValueError:
            return False
    return isinstance(line, dict) and line.get("type") == "reveal"
PUBLIC_KEYS = (
    "players", "dealer", "turn", "direction", "top", "color", "waiting_for", "hand_winner",
    "game_winner", "rules", "hand", "draw_pile", "discard_pile", "pending_draw", "uno_window",
    "drawn", "history", "teams", "out",
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
                 turn_clock: dict | None = None) -> dict:
    """The state a phone may see: everything but revealed cards, last 30 notices."""
    out: dict[str, Any] = {k: state.get(k) for k in PUBLIC_KEYS}
    out["teams"] = out["teams"] or []
    out["out"] = out["out"] or []
    out["turn_clock"] = turn_clock
    notices = []
    for notice in (state.get("notices") or [])[-30:]:
        notice = dict(notice)
        # Plays are public; a notice caused by a revealed hand must not name its cards.
        if _from_reveal(events, notice.get("event")):
            text = str(notice.get("message", "")).replace("wild_draw_four", "wild draw four")
            notice["message"] = _CARD_RE.sub("a card", text)
        notices.append(notice)
    out["notices"] = notices
    out["game_id"] = game_id
    out["events"] = len(events) if events is not None else None
    return out


class LiveHub:
    """Fan-out of referee updates to every open SSE stream (one bounded queue each)."""

    def __init__(self, referee: Any, clock: Callable[[], float] = time.monotonic) -> None:
        self.referee = referee
        self.turn_clock = TurnClock(clock)
        self._lock = threading.Lock()
        self._queues: set[queue.Queue] = set()
        self._unsubscribe = referee.subscribe(self._on_event) if referee is not None else None

    def snapshot(self) -> dict:
        ref = self.referee
        if ref is None:
            return public_state({"waiting_for": "game", "players": []})
        state, game_id = ref.state, getattr(ref, "game_id", None)
        return public_state(state, ref.events, game_id, self.turn_clock.read(state, game_id))

    def _on_event(self, state: dict, notices: list[dict]) -> None:
        # Runs on the submitting thread after the event is stored: only enqueue.
        game_id = self.referee.game_id
        clock = self.turn_clock.read(state, game_id)
        payload = json.dumps({"state": public_state(state, self.referee.events, game_id, clock)})
        with self._lock:
            queues = list(self._queues)
        for q in queues:
            try:
                q.put_nowait(payload)
            except queue.Full:  # a stuck phone: drop its oldest, it gets the newest state
                try:
                    q.get_nowait()
                    q.put_nowait(payload)
                except (queue.Empty, queue.Full):
                    pass

    def open(self) -> queue.Queue:
        q: queue.Queue = queue.Queue(maxsize=64)
        with self._lock:
            self._queues.add(q)
        return q

    def close(self, q: queue.Queue) -> None:
        with self._lock:
            self._queues.discard(q)

    def phones_connected(self) -> int:
        with self._lock:
            return len(self._queues)
