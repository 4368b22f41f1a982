"""Table options: defaults, validation, close-match suggestions."""
from __future__ import annotations

import pytest

from companion.errors import RulesError
from companion.referee.rules import Rules, parse_rules


def test_rules_defaults_follow_the_rulebook():
    rules = parse_rules(None)
    assert rules == Rules()
    assert (rules.deck, rules.hand_size, rules.first_card, rules.target, rules.scoring) == (
        "classic", 7, "classic", 500, "winner_takes")
    assert (rules.uno_penalty, rules.uno_catch, rules.illegal_play_penalty) == (2, "auto", 2)
    assert rules.stacking is False and not rules.jump_in and not rules.seven_zero
    assert rules.dealer_rotation == "clockwise" and rules.hands is None
    assert rules.deck_size == 108


@pytest.mark.parametrize("raw, key, value", [
    ({"deck": "modern"}, "deck_size", 112),
    ({"deck": "swap", "swap_cards": 2}, "deck_size", 110),
    ({"stacking": True}, "stacking", True),
    ({"stacking": "wild_draw_four"}, "stacking", "wild_draw_four"),
    ({"hands": 3}, "hands", 3),
    ({"uno_penalty": 4}, "uno_penalty", 4),
    ({"dealer_rotation": "counterclockwise"}, "dealer_rotation", "counterclockwise"),
    ({"customizable": "draw_three"}, "customizable", "draw_three"),
    ({"stacking": "cross"}, "stacking", "cross"),
    ({"deflect": "skip"}, "deflect", "skip"),
    ({"multiple_play": True}, "multiple_play", True),
    ({"no_action_finish": True}, "no_action_finish", True),
    ({"no_wild_finish": True}, "no_wild_finish", True),
    ({"hand_limit": 15}, "hand_limit", 15),
    ({"hand_limit": None}, "hand_limit", None),
    ({"elimination": 25}, "elimination", 25),
    ({"elimination": False}, "elimination", None),  # TOML has no null: false is off
    ({"teams": True}, "teams", True),
    ({"double_score": True}, "double_score", True),
    ({"uno_penalty": 10}, "uno_penalty", 10),
    ({"turn_seconds": 45}, "turn_seconds", 45),
])
def test_rules_accepts_every_option(raw, key, value):
    assert getattr(parse_rules(raw), key) == value


@pytest.mark.parametrize("raw, message", [
    ({"stackin": True}, "unknown rule 'stackin': did you mean 'stacking'?"),
    ({"dealer_rotaton": "clockwise"}, "did you mean 'dealer_rotation'?"),
    ({"deck": "clasic"}, "did you mean 'classic'?"),
    ({"scoring": "lowest"}, "did you mean 'lowest_wins'?"),
    ({"stacking": "draw2"}, "did you mean 'draw_two'?"),
    ({"stacking": "yes"}, "did you mean true?"),  # JSON's true, not a similar-looking mode
    ({"deflect": "off"}, "did you mean false?"),
    ({"uno_catch": "player"}, "did you mean 'players'?"),
    ({"jump_in": "yes"}, "takes true or false"),
    ({"hand_size": 0}, "at least 1"),
    ({"target": "500"}, "whole number"),
    ({"hands": 0}, "1 or more"),
    ({"uno_penalty": True}, "whole number"),
    ([1, 2], "must be an object"),
    ({"multiple_play": "yes"}, "rule multiple_play takes true or false, not 'yes'"),
    ({"no_action_finish": 1}, "rule no_action_finish takes true or false, not 1"),
    ({"no_wild_finish": None}, "rule no_wild_finish takes true or false, not None"),
    ({"teams": "2v2"}, "rule teams takes true or false, not '2v2'"),
    ({"double_score": "x2"}, "rule double_score takes true or false"),
    ({"deflect": "revers"}, "did you mean 'reverse'?"),
    ({"elimination": 1}, "rule elimination takes a whole number 2-1000 (or null for off), not 1"),
    ({"hand_limit": 5}, "rule hand_limit=5 must be above hand_size (7)"),
    ({"uno_penalty": 11}, "rule uno_penalty takes a whole number of cards 0-10, not 11"),
    ({"turn_seconds": 0}, "rule turn_seconds takes a whole number 5-600"),
])
def test_rules_rejects_bad_options_with_a_suggestion(raw, message):
    with pytest.raises(RulesError) as info:
        parse_rules(raw)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("stacking, draw_two, wild_draw_four", [
    (False, False, False), ("draw_two", True, False), ("wild_draw_four", False, True),
    (True, True, True),
])
def test_rules_stacking_modes(stacking, draw_two, wild_draw_four):
    rules = Rules(stacking=stacking)
    assert rules.stacks("draw_two") is draw_two
    assert rules.stacks("wild_draw_four") is wild_draw_four


def test_rules_as_dict_round_trips():
    rules = parse_rules({"seven_zero": True, "target": 200})
    assert parse_rules(rules.as_dict()) == rules


@pytest.mark.parametrize("deflect, reverse, skip", [
    (False, False, False), ("reverse", True, False), ("skip", False, True), (True, True, True)])
def test_rules_deflect_modes(deflect, reverse, skip):
    rules = Rules(deflect=deflect)
    assert rules.deflects("reverse") is reverse and rules.deflects("skip") is skip
    assert rules.answerable is (deflect is not False) and rules.draw_two_waits is (deflect is not False)


def test_rules_cross_stacks_both_kinds():
    rules = Rules(stacking="cross")
    assert rules.stacks("draw_two") and rules.stacks("wild_draw_four") and rules.answerable
