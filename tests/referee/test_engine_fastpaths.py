"""The engine's fast paths (plain play, draw, pass, UNO call) agree with its full paths.

Each simulated log is replayed twice: as written, and with every plain event reworded so the
fast path cannot take it (a play naming the player on turn, a draw with "count": 1, an UNO
call without "player"). Both tables must agree on the whole state after every event.
"""
from __future__ import annotations

import pytest

from companion.referee.engine import Table
from companion.referee.simulate import simulate_games


def _slow(event: dict, table: Table) -> dict:
    """The same event in words the fast paths do not take."""
    kind = event["type"]
    if kind == "play" and len(event) == 2 and table.waiting_for == "play":
        state = table.state
        if state["turn"] is not None and not state["pending_draw"]:
            return {**event, "player": state["turn"]}
    if kind == "draw" and len(event) == 1:
        return {"type": "draw", "count": 1}
    if kind == "uno" and "player" in event and table.state["uno_window"] == event["player"]:
        return {"type": "uno"}
    return event


@pytest.mark.parametrize("mistakes", [True, False])
@pytest.mark.parametrize("players, rules", [
    (2, None), (4, None), (3, {"stacking": True}), (5, {"seven_zero": True}),
    (4, {"deck": "modern", "draw_until_playable": True}),
])
def test_engine_fast_paths_match_the_full_paths(players, rules, mistakes):
    fast, slow = Table(), Table()
    reworded = 0
    for event in simulate_games(players, 25, 4, rules, mistakes=mistakes):
        other = _slow(event, slow)
        reworded += other is not event
        assert fast.push(event) == slow.push(other)
        assert fast.state == slow.state
    assert reworded > 100
