"""Scenario tests for the themed decks and cards (rules.md, "Themed decks and cards"; README,
"Themed decks and cards"): UNO Flip's two sides, Triple Play's discard two, Super Mario's
reflect card, Harry Potter's Dementor. Four players, Ann deals, Bob plays first."""
from __future__ import annotations

import pytest

from companion.referee.cards import deck, deck_size, points
from companion.referee.engine import Table
from companion.errors import RulesError
from companion.referee.rules import parse_rules
from test_engine import cards, kinds, line, play

FLIP = {"deck": "flip"}
THEMED = {"discard_two": 2, "mario_reflect": 2, "dementor": 2}


def flip_play(lines: list, rules: dict | None = None) -> Table:
    return play(lines, {**FLIP, **(rules or {})})


def push(table: Table, text: str | dict) -> list[dict]:
    return table.push(line(text))


def rejected(table: Table, text: str | dict) -> str:
    """Push a line that must be rejected and must change nothing; return the reason."""
    before = table.state
    notes = push(table, text)
    assert [n["kind"] for n in notes] == ["rejected"], notes
    after = table.state
    after["notices"] = [n for n in after["notices"] if n["kind"] != "rejected"]
    before["notices"] = [n for n in before["notices"] if n["kind"] != "rejected"]
    assert after == before
    return notes[0]["message"]


# ------------------------------------------------------------------ the decks
def test_flip_deck_has_112_double_sided_cards_as_the_rulebook_lists():
    counts = deck("flip")
    assert deck_size("flip") == 112 and sum(counts.values()) == 224
    for colour in ("red", "yellow", "green", "blue"):
        for sym in ("1", "9", "draw_one", "reverse", "skip", "flip"):
            assert counts[f"{colour}_{sym}"] == 2
        assert counts[f"{colour}_0"] == 0 and counts[f"{colour}_draw_two"] == 0
    for colour in ("pink", "teal", "orange", "purple"):
        for sym in ("1", "9", "draw_five", "reverse", "skip_everyone", "flip"):
            assert counts[f"{colour}_{sym}"] == 2
    assert (counts["wild"], counts["wild_draw_two"], counts["dark_wild"],
            counts["wild_draw_colour"], counts["wild_draw_four"]) == (4, 4, 4, 4, 0)


def test_themed_counts_add_cards_to_a_classic_deck():
    rules = parse_rules(THEMED)
    assert rules.deck_size == 108 + 2 * 4 + 2 + 2
    assert rules.deck_counts["green_discard_two"] == 2
    assert rules.deck_counts["mario_reflect"] == 2 and rules.deck_counts["dementor"] == 2


@pytest.mark.parametrize("rules, message", [
    ({"deck": "flip", "discard_two": 1}, "not to the flip deck"),
    ({"deck": "flip", "mario_reflect": 1}, "not to the flip deck"),
    ({"deck": "flip", "stacking": True}, "not defined for the flip deck"),
    ({"deck": "flip", "deflect": "skip"}, "not defined for the flip deck"),
    ({"dementor": -1}, "at least 0"),
    ({"discard_two": 9}, "0-8"),
    ({"deck": "flipp"}, "did you mean 'flip'"),
])
def test_themed_options_reject_what_does_not_fit(rules, message):
    with pytest.raises(RulesError, match=message):
        parse_rules(rules)


@pytest.mark.parametrize("name, edition, value", [
    ("red_draw_one", "flip", 10), ("blue_flip", "flip", 20), ("green_skip", "flip", 20),
    ("yellow_reverse", "flip", 20), ("wild", "flip", 40), ("wild_draw_two", "flip", 50),
    ("pink_draw_five", "flip", 20), ("teal_skip_everyone", "flip", 30), ("orange_flip", "flip", 20),
    ("purple_reverse", "flip", 20), ("dark_wild", "flip", 40), ("wild_draw_colour", "flip", 60),
    ("purple_7", "flip", 7), ("red_discard_two", "classic", 20), ("mario_reflect", "classic", 50),
    ("dementor", "classic", 50), ("wild", "classic", 50),
])
def test_themed_card_points(name, edition, value):
    assert points(name, edition) == value


def test_unknown_themed_name_is_rejected_with_the_closest_name():
    table = play(["flip red_5"], THEMED)
    assert "did you mean 'red_discard_two'" in rejected(table, "play red_discard_tw")


def test_themed_card_outside_the_deck_is_rejected():
    table = play(["flip red_5"])
    assert "red_discard_two is not in the classic deck" in rejected(table, "play red_discard_two")
    table = flip_play(["flip red_5"])
    assert "not in the flip deck" in rejected(table, "play red_draw_two")


# ------------------------------------------------------------------ first card
@pytest.mark.parametrize("rules, flips, expected", [
    (FLIP, ["flip red_5"], {"turn": "Bob", "side": "light", "draw_pile": 112 - 28 - 1}),
    (FLIP, ["flip red_draw_one"], {"turn": "Cid", "draw_pile": 112 - 28 - 2}),
    (FLIP, ["flip red_skip"], {"turn": "Cid"}),
    (FLIP, ["flip red_reverse"], {"turn": "Ann", "direction": "counterclockwise"}),
    (FLIP, ["flip red_flip"], {"waiting_for": "flip", "turn": None, "side": "light"}),
    (FLIP, ["flip wild_draw_two"], {"waiting_for": "flip", "turn": None}),
    (FLIP, ["flip wild"], {"waiting_for": "color", "turn": "Bob", "colors":
                           ["red", "yellow", "green", "blue"]}),
    (THEMED, ["flip red_discard_two"], {"turn": "Bob", "second_card": None, "color": "red"}),
    (THEMED, ["flip mario_reflect"], {"waiting_for": "flip"}),
    (THEMED, ["flip dementor"], {"waiting_for": "flip", "draw_until": None}),
])
def test_themed_first_card(rules, flips, expected):
    table = play(flips, rules)
    state = table.state
    for key, value in expected.items():
        assert state[key] == value, key


def test_first_card_draw_one_draws_one():
    table = flip_play(["flip red_draw_one"])
    assert cards(table)["Bob"] == 8 and kinds(table) == [("penalty_draw", "Bob")]


def test_first_card_cannot_be_a_dark_face():
    table = flip_play([])
    assert "the light side is in play" in rejected(table, "flip pink_5")


def test_first_wild_in_the_flip_deck_names_a_light_colour():
    table = flip_play(["flip wild"])
    assert "name red, yellow, green, blue, not pink" in rejected(table, "color pink")
    push(table, "color green")
    assert table.state["color"] == "green" and table.state["turn"] == "Bob"


# ------------------------------------------------------------------ UNO Flip: light side
def test_draw_one_hits_the_next_player_for_one():
    table = flip_play(["flip red_5", "play red_draw_one"])
    assert cards(table)["Cid"] == 8 and table.state["turn"] == "Dee"


def test_wild_draw_two_accepted_by_drawing_two():
    table = flip_play(["flip red_5", "play wild_draw_two blue"])
    state = table.state
    assert (state["waiting_for"], state["turn"], state["pending_draw"]) == ("challenge", "Cid", 2)
    push(table, "draw 2")
    assert cards(table)["Cid"] == 9 and table.state["turn"] == "Dee"
    assert table.state["color"] == "blue"


def test_wild_draw_two_accepted_by_the_next_players_play():
    table = flip_play(["flip red_5", "play wild_draw_two blue", "play blue_3"])
    assert cards(table)["Cid"] == 9 and cards(table)["Dee"] == 6
    assert table.state["turn"] == "Ann"


def test_wild_draw_two_challenge_guilty_from_revealed_hand():
    table = flip_play(["flip red_5", "play wild_draw_two blue", "challenge"])
    assert table.state["waiting_for"] == "evidence" and table.state["turn"] == "Bob"
    push(table, {"type": "reveal", "player": "Bob",
                 "cards": ["red_3", "blue_4", "green_5", "wild", "yellow_9", "blue_flip"]})
    assert kinds(table)[-1] == ("challenge_upheld", "Bob")
    assert cards(table)["Bob"] == 8 and cards(table)["Cid"] == 7
    assert table.state["turn"] == "Cid" and table.state["color"] == "blue"


def test_wild_draw_two_challenge_innocent_costs_the_challenger_four():
    table = flip_play(["flip red_5", "play wild_draw_two blue", "challenge", "verdict innocent"])
    assert kinds(table)[-1] == ("challenge_failed", "Cid")
    assert cards(table)["Cid"] == 11 and table.state["turn"] == "Dee"


def test_wild_draw_two_last_card_still_hits():
    table = flip_play(["flip red_5"], {"hand_size": 1})
    push(table, "play wild_draw_two")
    assert table.state["waiting_for"] == "scores" and cards(table)["Cid"] == 3


# ------------------------------------------------------------------ UNO Flip: the flip
def turned(rules: dict | None = None) -> Table:
    """Bob flips on red_5; the new top of the pile is pink_3: the dark side is in play."""
    return flip_play(["flip red_5", "play red_flip", "flip pink_3"], rules)


def test_flip_waits_for_the_new_top_card():
    table = flip_play(["flip red_5", "play red_flip"])
    state = table.state
    assert (state["waiting_for"], state["turn"], state["turned_by"], state["side"]) == \
        ("flip", None, "Bob", "dark")
    assert state["colors"] == ["pink", "teal", "orange", "purple"]
    assert cards(table) == {"Ann": 7, "Bob": 6, "Cid": 7, "Dee": 7}


def test_flip_turns_the_pile_and_play_goes_on_on_the_dark_side():
    table = turned()
    state = table.state
    assert (state["top"], state["color"], state["turn"], state["turned_by"]) == \
        ("pink_3", "pink", "Cid", None)
    assert state["discard_pile"] == 2 and state["pile"] == ["pink_3"]
    assert state["draw_pile"] == 112 - 28 - 1


def test_flip_new_top_must_be_a_face_of_the_new_side():
    table = flip_play(["flip red_5", "play red_flip"])
    assert "the dark side is in play: red_7 is a light-side face" in rejected(table, "flip red_7")


def test_flip_nothing_but_the_new_top_is_accepted_meanwhile():
    table = flip_play(["flip red_5", "play red_flip"])
    assert "waiting for the first card" in rejected(table, "play pink_3")
    assert "waiting for the first card" in rejected(table, "draw")


def test_flip_to_a_dark_wild_the_flipper_names_a_dark_colour():
    table = flip_play(["flip red_5", "play red_flip", "flip dark_wild"])
    assert table.state["waiting_for"] == "color" and table.state["turn"] == "Bob"
    assert "the dark side is in play" in rejected(table, "color red")
    push(table, "color teal")
    assert table.state["color"] == "teal" and table.state["turn"] == "Cid"


def test_flip_new_top_action_has_no_effect():
    table = flip_play(["flip red_5", "play red_flip", "flip pink_draw_five"])
    assert table.state["turn"] == "Cid" and cards(table)["Cid"] == 7


def test_light_face_on_the_dark_side_is_rejected_not_illegal():
    table = turned()
    assert "the dark side is in play: red_3 is a light-side face" in rejected(table, "play red_3")


def test_flip_on_a_flip_of_another_colour_turns_back_to_light():
    table = turned()
    push(table, "play pink_flip")  # Cid, on colour
    push(table, "play teal_flip")  # the new top is a light face: wrong side
    assert kinds(table)[-1][0] == "rejected"
    push(table, "flip blue_2")
    push(table, "play orange_flip")
    assert kinds(table)[-1][0] == "rejected"  # light side now: Dee lays a light card
    push(table, "play blue_flip")
    assert table.state["side"] == "dark" and table.state["turned_by"] == "Dee"


def test_flip_back_to_light_counts_the_hidden_pile():
    table = turned()
    push(table, "play pink_9")
    push(table, "play pink_flip")  # Dee flips back
    push(table, "flip green_4")
    state = table.state
    assert state["side"] == "light" and state["top"] == "green_4" and state["turn"] == "Ann"
    assert state["discard_pile"] == 4


def test_draw_five_on_the_dark_side():
    table = turned()
    push(table, "play pink_draw_five")
    assert cards(table)["Dee"] == 12 and table.state["turn"] == "Ann"


def test_skip_everyone_lets_the_player_go_again():
    table = turned()
    push(table, "play pink_skip_everyone")
    assert table.state["turn"] == "Cid" and table.state["waiting_for"] == "play"
    push(table, "play pink_4")
    assert table.state["turn"] == "Dee"


def test_dark_reverse_turns_the_direction():
    table = turned()
    push(table, "play pink_reverse")
    assert table.state["turn"] == "Bob" and table.state["direction"] == "counterclockwise"


def test_illegal_flip_must_be_taken_back_and_does_not_turn():
    table = flip_play(["flip red_5", "play blue_flip"])
    assert table.state["waiting_for"] == "take_back" and table.state["side"] == "light"
    assert "must be taken back" in rejected(table, "play red_6")
    push(table, "take_back")
    assert table.state["side"] == "light" and table.state["top"] == "red_5"
    assert cards(table)["Bob"] == 9 and table.state["turn"] == "Cid"


def test_undo_of_the_new_top_waits_for_it_again():
    table = turned()
    push(table, "undo")
    assert table.state["waiting_for"] == "flip" and table.state["turned_by"] == "Bob"
    push(table, "undo")
    assert table.state["side"] == "light" and table.state["top"] == "red_5"


# ------------------------------------------------------------------ UNO Flip: wild draw colour
def colour_hit() -> Table:
    """Dark side; Cid lays Wild Draw Colour naming teal on pink_3: Dee is hit."""
    table = turned()
    push(table, "play wild_draw_colour teal")
    return table


def test_wild_draw_colour_opens_a_challenge_and_a_draw_until():
    table = colour_hit()
    state = table.state
    assert (state["waiting_for"], state["turn"], state["pending_draw"]) == ("challenge", "Dee", 0)
    assert state["draw_until"] == {"player": "Dee", "color": "teal"}


def test_wild_draw_colour_accepted_the_victim_reports_how_many():
    table = colour_hit()
    push(table, "draw 3")
    assert cards(table)["Dee"] == 10 and table.state["turn"] == "Ann"
    assert table.state["draw_until"] is None and table.state["color"] == "teal"
    assert kinds(table)[-1] == ("penalty_draw", "Dee")


def test_wild_draw_colour_needs_the_count_before_play_goes_on():
    table = colour_hit()
    assert "Dee must first draw until a teal card" in rejected(table, "play teal_4")
    assert "Dee must first draw until a teal card" in rejected(table, "pass")


def test_wild_draw_colour_count_above_the_cards_left_is_rejected():
    table = colour_hit()
    assert "cards are left to draw" in rejected(table, "draw 500")
    assert "at least 1" in rejected(table, {"type": "draw", "count": 0})
    assert "draws until a teal card first" in rejected(table, {"type": "draw", "count": 2,
                                                                "player": "Ann"})


def test_wild_draw_colour_challenge_guilty_the_offender_draws_until():
    table = colour_hit()
    push(table, "challenge")
    push(table, {"type": "reveal", "player": "Cid", "cards": ["pink_1", "teal_2", "orange_3",
                                                              "purple_4", "dark_wild"]})
    state = table.state
    assert kinds(table)[-1] == ("challenge_upheld", "Cid")
    assert state["draw_until"] == {"player": "Cid", "color": "teal"} and state["turn"] == "Cid"
    push(table, "draw 2")
    assert cards(table)["Cid"] == 8 and cards(table)["Dee"] == 7  # 6 counted (5 of them shown), 2 drawn
    assert table.state["turn"] == "Dee" and table.state["waiting_for"] == "play"


def test_wild_draw_colour_challenge_innocent_victim_draws_two_plus_until():
    table = colour_hit()
    push(table, "challenge")
    push(table, "verdict innocent")
    assert cards(table)["Dee"] == 9 and table.state["draw_until"]["player"] == "Dee"
    push(table, "draw 4")
    assert cards(table)["Dee"] == 13 and table.state["turn"] == "Ann"


def test_wild_draw_colour_challenge_judged_on_the_colour_before_it():
    table = colour_hit()
    push(table, "challenge")
    # five of Cid's six cards, none pink: innocence needs the whole hand
    assert "Cid showed 5 of 6 cards, none pink" in rejected(table, {"type": "reveal", "player": "Cid", "cards": [
        "teal_1", "orange_3", "purple_4", "dark_wild", "teal_9"]})
    push(table, {"type": "reveal", "player": "Cid", "cards": ["teal_1", "orange_3", "purple_4",
                                                              "dark_wild", "teal_9", "teal_2"]})
    assert kinds(table)[-1] == ("challenge_failed", "Dee")  # no pink: innocent


# ------------------------------------------------------------------ UNO Flip: points and UNO
def test_points_on_the_light_side():
    table = flip_play(["flip red_5", "play red_7"], {"hand_size": 1})
    push(table, {"type": "reveal", "player": "Cid", "cards": ["red_draw_one", "blue_flip",
                                                              "green_3", "yellow_skip"]})
    push(table, {"type": "reveal", "player": "Dee", "cards": ["wild", "wild_draw_two"]})
    push(table, {"type": "reveal", "player": "Ann", "cards": ["red_reverse"]})
    assert table.state["history"][0]["points"]["Bob"] == 10 + 20 + 3 + 20 + 40 + 50 + 20


def test_points_on_the_dark_side_and_light_faces_refused():
    table = flip_play(["flip red_5", "play red_flip", "uno Bob", "flip pink_3", "play pink_2",
                       "uno Cid", "play pink_7", "uno Dee", "play pink_8", "uno Ann",
                       "play pink_9"], {"hand_size": 2})
    assert table.state["waiting_for"] == "scores" and table.state["hand_winner"] == "Bob"
    assert "the dark side is in play" in rejected(table, {"type": "reveal", "player": "Cid",
                                                          "cards": ["red_5"]})
    push(table, {"type": "reveal", "player": "Cid", "cards": ["teal_skip_everyone"]})
    push(table, {"type": "reveal", "player": "Dee", "cards": ["wild_draw_colour"]})
    push(table, {"type": "reveal", "player": "Ann", "cards": ["orange_flip"]})
    assert table.state["history"][0]["points"]["Bob"] == 30 + 60 + 20


def test_last_card_flip_turns_the_cards_and_the_hand_scores_on_that_side():
    table = flip_play(["flip red_5", "play red_flip"], {"hand_size": 1})
    state = table.state
    assert state["waiting_for"] == "scores" and state["side"] == "dark"
    assert state["hand_winner"] == "Bob"
    push(table, {"type": "reveal", "player": "Cid", "cards": ["teal_skip_everyone"]})
    assert table.state["side"] == "dark"


def test_uno_called_while_the_new_top_is_awaited():
    table = flip_play(["flip red_5"], {"hand_size": 2})
    push(table, "play red_flip")
    assert table.state["uno_window"] == "Bob"
    notes = push(table, "uno Bob")
    assert [n["kind"] for n in notes] == ["uno_called"]
    push(table, "flip pink_3")
    push(table, "play pink_4")
    assert ("uno_penalty", "Bob") not in kinds(table) and cards(table)["Bob"] == 1


def test_uno_not_called_across_a_flip_is_caught_by_the_referee():
    table = flip_play(["flip red_5", "play red_flip", "flip pink_3", "play pink_4"],
                      {"hand_size": 2})
    assert ("uno_penalty", "Bob") in kinds(table) and cards(table)["Bob"] == 3


def test_uno_catch_while_the_new_top_is_awaited():
    table = flip_play(["flip red_5", "play red_flip", "catch Cid Bob"], {"hand_size": 2})
    assert kinds(table)[-1] == ("uno_penalty", "Bob") and cards(table)["Bob"] == 3
    assert table.state["waiting_for"] == "flip"


def test_uno_shared_buzzer_during_the_flip_credits_the_flipper():
    table = flip_play(["flip red_5", "play red_flip", "uno", "flip pink_3", "play pink_4"],
                      {"hand_size": 2})
    assert ("uno_called", "Bob") in kinds(table) and ("uno_penalty", "Bob") not in kinds(table)


# ------------------------------------------------------------------ discard two
def test_discard_two_waits_for_a_second_card_of_its_colour():
    table = play(["flip red_5", "play red_discard_two"], THEMED)
    state = table.state
    assert (state["turn"], state["waiting_for"]) == ("Bob", "play")
    assert state["second_card"] == {"player": "Bob", "color": "red"}
    push(table, "play red_skip")  # its effect does not apply
    state = table.state
    assert state["turn"] == "Cid" and state["top"] == "red_skip" and cards(table)["Bob"] == 5


def test_discard_two_second_card_of_another_colour_is_rejected():
    table = play(["flip red_5", "play red_discard_two"], THEMED)
    assert "one red card, not blue_5" in rejected(table, "play blue_5")
    assert "one red card, not wild" in rejected(table, "play wild green")


def test_discard_two_laid_alone_by_passing():
    table = play(["flip red_5", "play red_discard_two", "pass"], THEMED)
    assert table.state["turn"] == "Cid" and table.state["second_card"] is None
    assert cards(table)["Bob"] == 6


def test_discard_two_no_drawing_for_the_second_card():
    table = play(["flip red_5", "play red_discard_two"], THEMED)
    assert "no drawing" in rejected(table, "draw")


def test_discard_two_matches_another_discard_two():
    table = play(["flip red_5", "play red_discard_two", "pass", "play blue_discard_two"],
                 THEMED)
    assert kinds(table) == [] and table.state["second_card"]["color"] == "blue"


def test_discard_two_second_card_can_go_out_and_call_uno():
    table = play(["flip red_5", "play red_discard_two", "uno Bob", "play red_draw_two"],
                 {**THEMED, "hand_size": 2})
    assert table.state["hand_winner"] == "Bob" and cards(table)["Cid"] == 2  # no effect


def test_discard_two_down_to_one_then_laid_alone_needs_uno():
    table = play(["flip red_5", "play red_discard_two", "pass", "play red_9"],
                 {**THEMED, "hand_size": 2})
    assert ("uno_penalty", "Bob") in kinds(table)


# ------------------------------------------------------------------ Super Mario reflect
def test_reflect_sends_a_draw_two_back():
    table = play(["flip red_5", "play red_draw_two"], THEMED)
    assert table.state["pending_draw"] == 2 and table.state["turn"] == "Cid"
    push(table, "play mario_reflect blue")
    state = table.state
    assert cards(table) == {"Ann": 7, "Bob": 8, "Cid": 6, "Dee": 7}
    assert (state["turn"], state["color"], state["pending_draw"]) == ("Dee", "blue", 0)
    assert kinds(table)[-1] == ("reflect", "Bob")


def test_reflect_sends_a_wild_draw_four_back_instead_of_a_challenge():
    table = play(["flip red_5", "play wild_draw_four green", "play mario_reflect"], THEMED)
    assert table.state["waiting_for"] == "color" and table.state["turn"] == "Cid"
    push(table, "color yellow")
    assert cards(table)["Bob"] == 10 and table.state["turn"] == "Dee"


def test_reflect_option_draw_two_accepted_by_the_next_play():
    table = play(["flip red_5", "play red_draw_two", "play red_4"], THEMED)
    assert cards(table)["Cid"] == 9 and table.state["turn"] == "Ann"


def test_reflect_with_nothing_to_reflect_is_illegal_and_taken_back():
    table = play(["flip red_5", "play mario_reflect blue"], THEMED)
    assert kinds(table) == [("illegal_play", "Bob")]
    assert "must be taken back" in rejected(table, "play red_6")
    push(table, "take_back")
    assert cards(table)["Bob"] == 9 and table.state["turn"] == "Cid"


def test_reflect_as_last_card_still_sends_the_cards_back():
    table = play(["flip red_5", "play red_6", "uno Bob", "play red_7", "uno Cid", "play red_8",
                  "uno Dee", "play red_draw_two", "uno Ann"], {**THEMED, "hand_size": 2})
    assert table.state["turn"] == "Bob" and table.state["pending_draw"] == 2
    push(table, "play mario_reflect")
    assert table.state["hand_winner"] == "Bob" and cards(table)["Ann"] == 3


# ------------------------------------------------------------------ Dementor
def test_dementor_the_next_player_draws_until_gryffindor():
    table = play(["flip red_5", "play dementor green"], THEMED)
    state = table.state
    assert state["draw_until"] == {"player": "Cid", "color": "gryffindor"}
    assert state["turn"] == "Cid" and state["waiting_for"] == "play"
    assert "until a Gryffindor card" in rejected(table, "play green_3")
    push(table, "draw 4")
    assert cards(table)["Cid"] == 11 and table.state["turn"] == "Dee"
    assert table.state["color"] == "green"


def test_dementor_cannot_be_challenged():
    table = play(["flip red_5", "play dementor green"], THEMED)
    assert "waiting for a card" in rejected(table, "challenge")


def test_a_draw_until_orange_is_an_orange_card():
    from companion.referee.engine import _until_text

    assert _until_text("orange") == "an orange card" and _until_text("teal") == "a teal card"
