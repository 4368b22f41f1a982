"""The referee service: the one place table events enter while the companion runs.

Phones, the camera watcher and the GPIO buttons all call `Referee.submit` from their own
threads. Each event goes: engine check -> store write (committed) -> engine update ->
subscribers. An event the store could not save changes nothing and raises StoreError, so
nothing is ever announced that a power cut could take back.

Data flows one way: the referee imports the engine and the store, never the web or hardware.
"""
from __future__ import annotations

import json
import logging
import pickle
import threading
from typing import Any, Callable

from companion.engine import Table, replay
from companion.errors import CompanionError
from companion.store import EventStore, StoreError, new_game_id

__all__ = ["Referee", "BadEventError", "StoreError", "Subscriber"]

log = logging.getLogger(__name__)

Subscriber = Callable[[dict, list[dict]], None]


def _copy(obj: object) -> Any:
    """A deep copy of plain JSON-like data, several times faster than copy.deepcopy (this
    runs for every event and every subscriber, on a Raspberry Pi)."""
    return pickle.loads(pickle.dumps(obj, pickle.HIGHEST_PROTOCOL))


class BadEventError(CompanionError, ValueError):
    """An event that cannot even be written down (not a JSON object)."""


class Referee:
    """Thread-safe referee: submit events from any thread, read `state`, subscribe to changes.

    On start the newest game of the store is restored by replay unless it is over.
    """

    def __init__(self, store: EventStore) -> None:
        self.store = store
        self._lock = threading.RLock()
        self._subscribers: list[Subscriber] = []
        self.game_id: str | None = store.last_unfinished()
        self._table: Table = replay(store.events(self.game_id)) if self.game_id else Table()
        self._state: dict = _copy(self._table.state)

    # -- events in -----------------------------------------------------------------------

    def submit(self, event: dict | str, source: str = "") -> list[dict]:
        """Referee one table event; return the notices it produced (a `rejected` one if it
        did not fit). Rejected events are stored too. Raises StoreError (and changes
        nothing) if the event could not be saved, BadEventError if it is not JSON.
        """
        if isinstance(event, str):
            # Raw text (a log line): an object is refereed as such; anything else is stored
            # as it came and the engine rejects it with its reason.
            try:
                parsed = json.loads(event)
            except ValueError:
                parsed = None
            if isinstance(parsed, dict):
                event = parsed
        elif isinstance(event, dict):
            try:
                json.dumps(event)
            except (TypeError, ValueError) as exc:
                raise BadEventError(f"the event cannot be written as JSON: {exc}") from None
        else:
            raise BadEventError(f"an event is a JSON object, not {type(event).__name__}")
        with self._lock:
            table, game_id = self._table_for(event)
            accepted = isinstance(event, dict) and table.check(event) is None
            # The line is on disk before the engine moves: a failed write raises here.
            self.store.append(game_id, event, accepted, source=source)
            was_over = self._state.get("waiting_for") == "game_over" and table is self._table
            notices = table.push(event)
            self._table, self.game_id = table, game_id
            self._state = _copy(table.state)
            over = self._state.get("waiting_for") == "game_over"
            if over != was_over:
                self._mark_finished(game_id, over)
            self._notify(notices)
            return _copy(notices)

    def _table_for(self, event: dict | str) -> tuple[Table, str]:
        """The table and game id an event belongs to: a valid `game` event starts a new game
        (its own id, its own event indices from 0) unless the table is still waiting for one."""
        if isinstance(event, dict) and event.get("type") == "game":
            fresh = Table()
            if fresh.check(event) is None and (
                self.game_id is None or self._state.get("waiting_for") != "game"
            ):
                return fresh, new_game_id()
        return self._table, self.game_id or new_game_id()

    def _mark_finished(self, game_id: str, over: bool) -> None:
        # A cache for `last_unfinished`; the event itself is already safe. If this write
        # fails the worst case is a finished game restored (showing its final state).
        try:
            self.store.set_finished(game_id, over)
        except StoreError as exc:
            log.warning("could not mark game %s finished=%s: %s", game_id, over, exc)

    # -- state out -----------------------------------------------------------------------

    @property
    def state(self) -> dict:
        """The current state object (table-log.md), a copy the caller may keep."""
        with self._lock:
            return _copy(self._state)

    @property
    def events(self) -> list:
        """Every line of the current game, in order."""
        with self._lock:
            return list(self._table.events)

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Call `callback(state, notices)` after every event is stored and applied, in event
        order, on the submitting thread. Keep it quick (enqueue and return). Returns a
        function that unsubscribes."""
        with self._lock:
            self._subscribers.append(callback)

        def unsubscribe() -> None:
            with self._lock:
                if callback in self._subscribers:
                    self._subscribers.remove(callback)

        return unsubscribe

    def _notify(self, notices: list[dict]) -> None:
        for callback in list(self._subscribers):
            try:
                # Each subscriber gets its own copy: one cannot spoil what the next one sees.
                callback(_copy(self._state), _copy(notices))
            except Exception:  # a broken phone connection must not stop the referee
                log.exception("subscriber %r failed", callback)
