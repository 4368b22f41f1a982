"""Committed table logs replay to committed states: the engine's behaviour is pinned.

Each log in tests/referee/logs/equivalence/ (simulated once, with table mistakes and house rules, see
`LOGS`) is replayed line by line; after every line the notices `push` returned and the whole
`Table.state` are hashed into a running digest, checked every `EVERY` lines against
expected.json. A refactor of the engine (companion/referee/effects.py's card table, say) must leave
every digest as it is. A deliberate change of behaviour updates them:

    python3 tests/referee/test_engine_replay_equivalence.py --update

(missing logs are simulated again from `LOGS`; existing logs are kept, so a change to the
simulator does not move them).
"""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

from companion.referee.engine import INFO, Table

HERE = Path(__file__).parent / "logs" / "equivalence"
EXPECTED = HERE / "expected.json"
EVERY = 100  # lines between checkpoints: a failure says where the states part
# name: (players, hands, seed, rules, mistakes)
LOGS: dict[str, tuple[int, int, int, dict | None, bool]] = {
    "classic": (4, 12, 101, None, True),
    "two_players": (2, 10, 102, None, True),
    "cross_deflect_jump": (6, 8, 103, {"stacking": "cross", "deflect": True, "jump_in": True}, True),
    "seven_zero_stack": (5, 8, 104, {"stacking": "draw_two", "deflect": "skip", "seven_zero": True,
                                     "draw_until_playable": True}, True),
    "finish_limit_double": (3, 8, 105, {"multiple_play": True, "no_action_finish": True,
                                        "no_wild_finish": True, "hand_limit": 12,
                                        "double_score": True}, True),
    "teams_elimination": (4, 8, 106, {"teams": True, "elimination": 15, "first_card": "number_only",
                                      "uno_catch": "players", "stacking": True,
                                      "deflect": "reverse"}, True),
    "modern_draw_three": (4, 8, 107, {"deck": "modern", "customizable": "draw_three",
                                      "stacking": "wild_draw_four"}, True),
    "swap_skip": (5, 8, 108, {"deck": "swap", "swap_cards": 2, "customizable": "skip",
                              "elimination": 14, "seven_zero": True}, True),
    "themed": (4, 10, 109, {"discard_two": 2, "mario_reflect": 4, "dementor": 2, "stacking": True,
                            "deflect": True}, True),
    "flip": (4, 10, 110, {"deck": "flip"}, True),
    "flip_house": (3, 8, 111, {"deck": "flip", "jump_in": True, "elimination": 18,
                               "double_score": True}, True),
}


def _digests(lines: list[str]) -> list[str]:
    """The running digest after every EVERY-th line and after the last."""
    table, h, out = Table(), hashlib.sha256(), []
    for i, line in enumerate(lines, 1):
        notes = table.push(line)
        h.update(json.dumps([notes, table.state], sort_keys=True, separators=(",", ":")).encode())
        if i % EVERY == 0 or i == len(lines):
            out.append(h.hexdigest()[:16])
    return out


def _lines(name: str) -> list[str]:
    return (HERE / f"{name}.jsonl").read_text().splitlines()


@pytest.mark.parametrize("name", sorted(LOGS))
def test_a_committed_log_replays_to_the_committed_states(name):
    expected = json.loads(EXPECTED.read_text())[name]
    lines = _lines(name)
    assert len(lines) == expected["lines"]
    got = _digests(lines)
    for k, (want, have) in enumerate(zip(expected["digests"], got)):
        assert have == want, (f"{name}: the states part between lines {k * EVERY + 1} and "
                              f"{min((k + 1) * EVERY, len(lines))}")
    assert got == expected["digests"]


def test_every_card_symbol_has_one_effect():
    from companion.referee.effects import EFFECTS, all_effects

    assert set(EFFECTS) == {sym for _, sym in INFO.values()}
    for e in all_effects():
        assert e.step >= 0 and e.draws >= 0
        assert e.draws_until in (None, "named", "gryffindor")


def _update() -> None:
    from companion.referee.simulate import simulate_games

    HERE.mkdir(parents=True, exist_ok=True)
    expected = {}
    for name, (players, hands, seed, rules, mistakes) in LOGS.items():
        path = HERE / f"{name}.jsonl"
        if not path.exists():
            events = simulate_games(players, hands, seed, rules, mistakes=mistakes)
            path.write_text("".join(json.dumps(ev, separators=(",", ":")) + "\n" for ev in events))
        lines = _lines(name)
        expected[name] = {"lines": len(lines), "digests": _digests(lines)}
        print(name, len(lines), "lines")
    EXPECTED.write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit(__doc__)
    _update()
