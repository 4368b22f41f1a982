"""Live updates: one queue per open page, fed by Referee.subscribe, and the public state.

Phones never see revealed hands: the public state leaves out the log, and notices caused by
a `reveal` line have card names scrubbed from their message.
"""
from __future__ import annotations

import json
import queue
import re
import threading
from typing import Any

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
    "drawn", "history",
)


def public_state(state: dict, events: list | None = None, game_id: str | None = None) -> dict:
    """The state a phone may see: everything but revealed cards, last 30 notices."""
    out: dict[str, Any] = {k: state.get(k) for k in PUBLIC_KEYS}
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

    def __init__(self, referee: Any) -> None:
        self.referee = referee
        self._lock = threading.Lock()
        self._queues: set[queue.Queue] = set()
        self._unsubscribe = referee.subscribe(self._on_event) if referee is not None else None

    def snapshot(self) -> dict:
        ref = self.referee
        if ref is None:
            return public_state({"waiting_for": "game", "players": []})
        return public_state(ref.state, ref.events, getattr(ref, "game_id", None))

    def _on_event(self, state: dict, notices: list[dict]) -> None:
        # Runs on the submitting thread after the event is stored: only enqueue.
        payload = json.dumps({"state": public_state(state, self.referee.events, self.referee.game_id)})
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
