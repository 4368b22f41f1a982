"""Scoring and game end as pure functions: both scoring modes, target, fixed hands, tie-breaks."""
from __future__ import annotations

import pytest

from companion.referee.rules import Rules
from companion.referee.scoring import game_winner, hand_gains, places, tie_break

NAMES = ["Ann", "Bob", "Cid"]


@pytest.mark.parametrize("scoring, expected", [
    ("winner_takes", {"Ann": 0, "Bob": 47, "Cid": 0}),
    ("lowest_wins", {"Ann": 20, "Bob": 0, "Cid": 27}),
])
def test_engine_scoring_hand_gains(scoring, expected):
    assert hand_gains(NAMES, 1, {0: 20, 2: 27}, Rules(scoring=scoring)) == expected


@pytest.mark.parametrize("rules, played, scores, won, cards, drew, winner", [
    (Rules(), 1, [499, 0, 0], [1, 0, 0], [0, 3, 3], [0, 0, 0], None),
    (Rules(), 1, [500, 0, 0], [1, 0, 0], [0, 3, 3], [0, 0, 0], 0),
    (Rules(target=100), 3, [120, 150, 0], [1, 2, 0], [0, 0, 3], [0, 0, 0], 1),
    (Rules(scoring="lowest_wins", target=100), 3, [100, 40, 60], [1, 1, 1], [0, 1, 1],
     [0, 0, 0], 1),
    (Rules(hands=2), 1, [0, 90, 0], [0, 1, 0], [3, 0, 3], [0, 0, 0], None),
    (Rules(hands=2), 2, [50, 90, 0], [1, 1, 0], [0, 3, 3], [0, 0, 0], 1),
    # ties: more hands won, then fewer cards at the end, then who did not draw last
    (Rules(hands=2), 2, [90, 90, 0], [1, 2, 0], [0, 3, 3], [0, 0, 0], 1),
    (Rules(hands=2), 2, [90, 90, 0], [1, 1, 0], [2, 1, 3], [0, 0, 0], 1),
    (Rules(hands=2), 2, [90, 90, 0], [1, 1, 0], [0, 0, 3], [7, 5, 0], 1),
    (Rules(hands=2), 2, [90, 90, 0], [1, 1, 0], [0, 0, 3], [4, 5, 0], 0),
])
def test_engine_scoring_game_winner(rules, played, scores, won, cards, drew, winner):
    assert game_winner(rules, played, scores, won, cards, drew) == winner


@pytest.mark.parametrize("scores, won, cards, drew, expected_places, why", [
    ([90, 40, 0], [2, 1, 0], [0, 3, 3], [0, 5, 6], [1, 2, 3], None),          # points part them
    ([90, 90, 0], [1, 2, 0], [0, 3, 3], [0, 0, 0], [2, 1, 3], "hands_won"),
    ([90, 90, 0], [1, 1, 0], [2, 1, 3], [0, 0, 0], [2, 1, 3], "end_cards"),
    ([90, 90, 0], [1, 1, 0], [1, 1, 3], [4, 2, 0], [2, 1, 3], "last_draw"),
    ([90, 90, 0], [1, 1, 0], [1, 1, 3], [0, 0, 0], [1, 1, 3], "shared"),     # nothing parts them
    ([90, 0, 0], [1, 0, 0], [0, 2, 2], [0, 3, 3], [1, 2, 2], None),           # level below the first
])
def test_level_players_share_a_place_and_the_first_two_say_what_parted_them(scores, won, cards, drew,
                                                                             expected_places, why):
    rules = Rules(hands=2)
    assert places(rules, scores, won, cards, drew) == expected_places
    assert tie_break(rules, scores, won, cards, drew) == why
