"""Scenario tests: a hand-written table log in, the expected state out, one rule per row.

Logs are written in a short notation (see `line`): "play red_5", "play wild green",
"jump Dee red_5", "draw 2", "color blue", "target Cid", "uno Bob", "catch Ann Bob" (by,
target), "reveal Bob red_1 blue_2", "verdict guilty", "points Cid 12", "deal Ann",
"flip red_5", "take_back", "undo"; a dict is used as it is. Every scenario starts with a
`game` of the given players and rules (default Ann, Bob, Cid, Dee; Ann deals, Bob starts).
"""
from __future__ import annotations

import json

import pytest

from companion.referee.engine import Table, replay

FOUR = ["Ann", "Bob", "Cid", "Dee"]


def line(text: str | dict) -> dict:
    if isinstance(text, dict):
        return text
    word, *rest = text.split()
    if word == "play":
        ev = {"type": "play", "card": rest[0]}
        if len(rest) > 1:
            ev["color"] = rest[1]
        return ev
    if word == "jump":
        return {"type": "play", "player": rest[0], "card": rest[1]}
    if word == "draw":
        return {"type": "draw", "count": int(rest[0])} if rest else {"type": "draw"}
    if word in ("flip",):
        return {"type": "flip", "card": rest[0]}
    if word == "deal":
        return {"type": "deal", "dealer": rest[0]} if rest else {"type": "deal"}
    if word == "color":
        return {"type": "color", "color": rest[0]}
    if word == "target":
        return {"type": "target", "player": rest[0]}
    if word == "uno":
        return {"type": "uno", "player": rest[0]} if rest else {"type": "uno"}
    if word == "catch":
        ev = {"type": "catch"}
        if rest:
            ev["by"] = rest[0]
        if len(rest) > 1:
            ev["target"] = rest[1]
        return ev
    if word == "reveal":
        return {"type": "reveal", "player": rest[0], "cards": rest[1:]}
    if word == "verdict":
        return {"type": "verdict", "guilty": rest[0] == "guilty"}
    if word == "points":
        return {"type": "points", "player": rest[0], "points": int(rest[1])}
    if word == "score_fix":
        return {"type": "score_fix", "hand": int(rest[0]), "player": rest[1], "points": int(rest[2])}
    if word == "correct":
        return {"type": "correct", "event": int(rest[0]), "card": rest[1]}
    return {"type": word}


def play(lines: list, rules: dict | None = None, players: list[str] | None = None,
         opening: tuple = ("deal Ann",)) -> Table:
    game = {"type": "game", "players": players or FOUR}
    if rules:
        game["rules"] = rules
    table = Table()
    for text in [game, *opening, *lines]:
        table.push(line(text))
    return table


def cards(table: Table) -> dict[str, int]:
    return {p["name"]: p["cards"] for p in table.state["players"]}


def kinds(table: Table, since: int = 0) -> list[tuple[str, str | None]]:
    return [(n["kind"], n["player"]) for n in table.state["notices"] if n["event"] >= since]


def check(table: Table, expected: dict) -> None:
    state = table.state
    for key, value in expected.items():
        if key == "cards":
            assert cards(table) == {**cards_default(table), **value}, key
        elif key == "notices":
            assert kinds(table) == value, key
        else:
            assert state[key] == value, key


def cards_default(table: Table) -> dict[str, int]:
    return cards(table)


# -------------------------------------------------------------------- first card
@pytest.mark.parametrize("rules, flips, expected", [
    ({}, ["flip red_5"], {"turn": "Bob", "direction": "clockwise", "waiting_for": "play",
                          "top": "red_5", "color": "red", "draw_pile": 79}),
    ({}, ["flip red_draw_two"], {"turn": "Cid", "notices": [("penalty_draw", "Bob")],
                                 "draw_pile": 77}),
    ({}, ["flip red_reverse"], {"turn": "Ann", "direction": "counterclockwise"}),
    ({}, ["flip red_skip"], {"turn": "Cid"}),
    ({}, ["flip wild"], {"turn": "Bob", "waiting_for": "color", "color": None}),
    ({}, ["flip wild", "color blue"], {"turn": "Bob", "waiting_for": "play", "color": "blue"}),
    ({}, ["flip wild_draw_four"], {"waiting_for": "flip", "turn": None, "draw_pile": 80,
                                   "notices": [("card_returned", None)]}),
    ({"deck": "modern"}, ["flip wild_shuffle_hands", "flip wild_customizable", "flip blue_1"],
     {"waiting_for": "play", "top": "blue_1", "draw_pile": 83}),
    ({"first_card": "number_only"}, ["flip red_skip", "flip wild", "flip red_5"],
     {"turn": "Bob", "top": "red_5", "pile": ["red_5"], "discard_pile": 1}),
    ({"first_card": "number_only"}, ["flip red_skip"], {"waiting_for": "flip", "top": None}),
])
def test_engine_first_card_effects(rules, flips, expected):
    table = play(flips, rules)
    check(table, expected)


def test_engine_first_card_draw_two_counts_in_hand():
    table = play(["flip red_draw_two"])
    assert cards(table) == {"Ann": 7, "Bob": 9, "Cid": 7, "Dee": 7}


# -------------------------------------------------------------------- a turn
@pytest.mark.parametrize("lines, expected", [
    (["play red_7"], {"turn": "Cid", "top": "red_7", "color": "red"}),
    (["play blue_5"], {"turn": "Cid", "color": "blue"}),
    (["play wild green"], {"turn": "Cid", "color": "green", "top": "wild"}),
    (["play wild"], {"turn": "Bob", "waiting_for": "color", "color": None}),
    (["play wild", "color red"], {"turn": "Cid", "color": "red"}),
    (["play red_skip"], {"turn": "Dee"}),
    (["play red_reverse"], {"turn": "Ann", "direction": "counterclockwise"}),
    (["play red_reverse", "play red_1", "play red_reverse"], {"turn": "Ann", "direction": "clockwise"}),
    (["play red_draw_two"], {"turn": "Dee", "notices": [("penalty_draw", "Cid")]}),
    (["draw"], {"turn": "Bob", "drawn": True, "waiting_for": "play"}),
    (["draw", "pass"], {"turn": "Cid", "drawn": False}),
    (["draw", "play red_1"], {"turn": "Cid", "top": "red_1"}),
    (["draw 3"], {"drawn": True, "draw_pile": 76}),
    (["draw", "draw"], {"notices": [("rejected", "Bob")], "draw_pile": 78}),
    (["pass"], {"notices": [("rejected", "Bob")], "turn": "Bob"}),
    (["play red_9", "play wild_draw_four"], {"waiting_for": "color", "turn": "Cid"}),
])
def test_engine_turns(lines, expected):
    check(play(["flip red_5", *lines]), expected)


def test_engine_hand_sizes_follow_plays_and_draws():
    table = play(["flip red_5", "play red_7", "draw 2", "pass", "play red_draw_two"])
    assert cards(table) == {"Ann": 9, "Bob": 6, "Cid": 9, "Dee": 6}
    assert table.state["turn"] == "Bob"


def test_engine_two_player_reverse_and_skip_play_again():
    table = play(["flip red_5", "play red_reverse"], players=["Ann", "Bob"])
    assert table.state["turn"] == "Bob" and table.state["direction"] == "counterclockwise"
    table.push(line("play red_skip"))
    assert table.state["turn"] == "Bob"
    table.push(line("play red_draw_two"))
    assert table.state["turn"] == "Bob" and cards(table) == {"Ann": 9, "Bob": 4}


def test_engine_draw_until_playable_allows_more_draws():
    table = play(["flip red_5", "draw", "draw", "draw"], {"draw_until_playable": True})
    assert cards(table)["Bob"] == 10 and not kinds(table)


# -------------------------------------------------------------------- wild draw four
WD4 = ["flip red_5", "play wild_draw_four blue"]  # Bob plays it on red; Cid is the victim


@pytest.mark.parametrize("lines, expected", [
    ([], {"waiting_for": "challenge", "turn": "Cid", "pending_draw": 4,
          "cards": {"Bob": 6, "Cid": 7}}),
    (["play blue_3"], {"turn": "Ann", "cards": {"Cid": 11, "Dee": 6},
                       "notices": [("penalty_draw", "Cid")], "pending_draw": 0}),
    (["draw"], {"turn": "Dee", "drawn": True, "cards": {"Cid": 11, "Dee": 8}}),
    (["draw 4"], {"turn": "Dee", "drawn": False, "cards": {"Cid": 11, "Dee": 7}}),
    (["challenge"], {"waiting_for": "evidence", "turn": "Bob"}),
    (["challenge", "reveal Bob red_1 blue_2 green_3 yellow_4 blue_5 blue_6"],
     {"turn": "Cid", "waiting_for": "play", "cards": {"Bob": 10, "Cid": 7},
      "notices": [("challenge_upheld", "Bob")], "color": "blue"}),
    (["challenge", "reveal Bob red_draw_two blue_2 green_3 yellow_4 blue_5 blue_6"],
     {"notices": [("challenge_upheld", "Bob")]}),
    (["challenge", "reveal Bob wild blue_2 green_3 yellow_4 blue_5 blue_6"],
     {"turn": "Dee", "cards": {"Bob": 6, "Cid": 13}, "notices": [("challenge_failed", "Cid")]}),
    (["challenge", "verdict guilty"], {"turn": "Cid", "cards": {"Bob": 10, "Cid": 7}}),
    (["challenge", "verdict innocent"], {"turn": "Dee", "cards": {"Bob": 6, "Cid": 13}}),
    # evidence needs only the colour: part of a hand shown (the card that matters, typed on the
    # host page) leaves the count alone; more cards than counted were really held
    (["challenge", "reveal Bob red_1 blue_2"],
     {"notices": [("challenge_upheld", "Bob")], "cards": {"Bob": 10}}),
    (["challenge", "reveal Bob red_1 blue_2 green_3 yellow_4 blue_5 blue_6 blue_7 blue_8"],
     {"notices": [("count_mismatch", "Bob"), ("challenge_upheld", "Bob")], "cards": {"Bob": 12}}),
])
def test_engine_wild_draw_four_and_challenge(lines, expected):
    check(play([*WD4, *lines]), expected)


def test_engine_challenge_is_judged_against_the_colour_before_the_wild_draw_four():
    # the colour in force was green (named for a wild), so red cards are no evidence
    base = ["flip red_5", "play wild green", "play wild_draw_four blue", "challenge"]
    innocent = play([*base, "reveal Cid red_1 red_2 blue_3 yellow_4 red_5 red_6"])
    assert kinds(innocent) == [("challenge_failed", "Dee")]
    guilty = play([*base, "reveal Cid red_1 green_2 blue_3 yellow_4 red_5 red_6"])
    assert kinds(guilty) == [("challenge_upheld", "Cid")]


@pytest.mark.parametrize("lines", [["challenge"], ["flip red_5", "challenge"],
                                   ["flip red_5", "play wild_draw_four blue", "verdict guilty"],
                                   ["flip red_5", "play red_1", "reveal Bob red_1"]])
def test_engine_challenge_out_of_place_is_rejected(lines):
    table = play(lines)
    assert kinds(table)[-1][0] == "rejected"


# -------------------------------------------------------------------- UNO
def small(lines: list, rules: dict | None = None, players=None) -> Table:
    """Two-card hands so UNO comes quickly."""
    return play(lines, {"hand_size": 2, **(rules or {})}, players)


@pytest.mark.parametrize("rules, lines, expected_notices, bob", [
    ({}, ["uno", "play red_1", "play red_2"], [("uno_called", "Bob")], 1),
    ({}, ["uno Bob", "play red_1", "play red_2"], [("uno_called", "Bob")], 1),
    ({}, ["play red_1", "uno", "play red_2"], [("uno_called", "Bob")], 1),
    ({}, ["play red_1", "play red_2"], [("uno_penalty", "Bob")], 3),
    ({}, ["play red_1", "draw"], [("uno_penalty", "Bob")], 3),
    ({"uno_penalty": 4}, ["play red_1", "play red_2"], [("uno_penalty", "Bob")], 5),
    ({}, ["play red_1", "catch Dee Bob"], [("uno_penalty", "Bob")], 3),
    ({}, ["play red_1", "catch"], [("uno_penalty", "Bob")], 3),
    ({}, ["play red_1", "catch Dee Bob", "play red_2"], [("uno_penalty", "Bob")], 3),
    ({}, ["play red_1", "uno Bob", "catch Dee Bob"], [("uno_called", "Bob"), ("catch_void", "Bob")], 1),
    ({"uno_catch": "players"}, ["play red_1", "play red_2"], [], 1),
    ({"uno_catch": "players"}, ["play red_1", "catch Ann Bob"], [("uno_penalty", "Bob")], 3),
    ({"uno_catch": "players"}, ["play red_1", "play red_2", "catch Ann Bob"],
     [("catch_void", "Bob")], 1),
    ({}, ["uno Cid"], [("rejected", "Cid")], 2),
    ({}, ["play red_1", "play red_2", "uno Bob"], [("uno_penalty", "Bob"), ("rejected", "Bob")], 3),
    # a window whose holder holds more than one card again is no window: the shared buzzer
    # goes to the player on turn at two cards, and the grown hand cannot call
    ({}, ["play wild_draw_four blue", "challenge", "verdict guilty", "uno", "play blue_3", "play blue_4"],
     [("challenge_upheld", "Bob"), ("uno_called", "Cid")], 5),
    ({}, ["play wild_draw_four blue", "challenge", "verdict guilty", "uno Bob"],
     [("challenge_upheld", "Bob"), ("rejected", "Bob")], 5),
])
def test_engine_uno_window(rules, lines, expected_notices, bob):
    table = small(["flip red_5", *lines], rules)
    assert kinds(table) == expected_notices
    assert cards(table)["Bob"] == bob


def test_engine_uno_window_is_in_state():
    table = small(["flip red_5"])
    assert table.state["uno_window"] == "Bob"  # his turn with two cards
    table.push(line("play red_1"))
    assert table.state["uno_window"] == "Bob"  # down to one, until Cid begins
    table.push(line("play red_2"))
    assert table.state["uno_window"] == "Cid"


def test_engine_a_second_call_before_playing_is_already_called():
    table = small(["flip red_5", "uno Bob", "uno Bob"])  # Bob on turn at two cards
    assert kinds(table) == [("uno_called", "Bob"), ("rejected", "Bob")]
    assert table.state["notices"][-1]["message"] == "Bob already called UNO"


def test_engine_catch_on_yourself_is_rejected():
    table = small(["flip red_5", "play red_1", "catch Bob Bob"])
    assert kinds(table) == [("rejected", "Bob")]


# -------------------------------------------------------------------- mistakes
def test_engine_illegal_play_taken_back_costs_the_penalty():
    table = play(["flip red_5", "play blue_7"])
    state = table.state
    assert state["waiting_for"] == "take_back" and state["turn"] == "Bob"
    assert kinds(table) == [("illegal_play", "Bob")]
    table.push(line("take_back"))
    state = table.state
    assert state["top"] == "red_5" and state["color"] == "red" and state["pile"] == ["red_5"]
    assert cards(table)["Bob"] == 9 and state["turn"] == "Cid"
    assert kinds(table) == [("illegal_play", "Bob"), ("penalty_draw", "Bob")]


def test_engine_state_keeps_the_colour_in_force_under_a_wrong_card():
    # Bob named green on his wild; Cid's red 7 is wrong: the pile shows red, green is in force
    table = play(["flip red_5", "play wild green", "play red_7"])
    state = table.state
    assert state["waiting_for"] == "take_back" and state["top"] == "red_7"
    assert state["color"] == "red" and state["color_under"] == "green"
    table.push(line("take_back"))
    assert table.state["color"] == "green" and table.state["color_under"] is None


@pytest.mark.parametrize("penalty, bob, notices", [
    (4, 11, [("illegal_play", "Bob"), ("penalty_draw", "Bob")]),
    (0, 7, [("illegal_play", "Bob")]),
])
def test_engine_illegal_play_penalty_option(penalty, bob, notices):
    table = play(["flip red_5", "play blue_7", "take_back"], {"illegal_play_penalty": penalty})
    assert cards(table)["Bob"] == bob and kinds(table) == notices
    assert table.state["turn"] == "Cid"


@pytest.mark.parametrize("illegal, next_line, expected", [
    ("blue_7", "play blue_2", {"turn": "Dee", "top": "blue_2", "cards": {"Bob": 6, "Cid": 6}}),
    ("blue_skip", "play blue_2", {"turn": "Ann", "cards": {"Bob": 6, "Cid": 7, "Dee": 6}}),
    ("blue_draw_two", "play blue_2", {"turn": "Ann", "cards": {"Cid": 9, "Dee": 6}}),
    ("blue_reverse", "play blue_2", {"turn": "Dee", "direction": "counterclockwise",
                                     "cards": {"Ann": 6}}),
    ("blue_7", "draw", {"turn": "Cid", "drawn": True, "cards": {"Cid": 8}}),
])
def test_engine_illegal_card_left_standing_counts_as_played(illegal, next_line, expected):
    table = play(["flip red_5", f"play {illegal}", next_line])
    check(table, expected)
    assert [k for k, _ in kinds(table)][0] == "illegal_play"
    assert table.state["waiting_for"] == "play"


@pytest.mark.parametrize("illegal, stands_for", [
    ("blue_7", "Cid"), ("blue_skip", "Dee"), ("blue_draw_two", "Dee"), ("blue_reverse", "Ann")])
def test_engine_state_names_who_leaves_an_illegal_card_standing(illegal, stands_for):
    # the phone of that player may play on it (the play after the card it would have had)
    table = play(["flip red_5"])
    assert table.state["stands_for"] is None
    table.push(line(f"play {illegal}"))
    assert table.state["waiting_for"] == "take_back" and table.state["stands_for"] == stands_for
    table.push(line("take_back"))
    assert table.state["stands_for"] is None


# -------------------------------------------------------------------- reshuffle
def test_engine_reshuffles_the_discard_pile_when_a_draw_finds_it_empty():
    # 5 x 21 cards dealt + 1 flipped leaves 2 in the draw pile
    players = ["Ann", "Bob", "Cid", "Dee", "Eve"]
    table = play(["flip red_5", "draw 2", "pass", "play red_6", "play red_7", "draw"],
                 {"hand_size": 21}, players)
    state = table.state
    assert kinds(table) == [("reshuffle", None)]
    assert state["pile"] == ["red_7"] and state["discard_pile"] == 1
    assert state["draw_pile"] == 1  # red_5 and red_6 came back, one was drawn
    assert sum(cards(table).values()) + state["draw_pile"] + state["discard_pile"] == 108


def test_engine_rejects_more_copies_than_the_deck_holds():
    table = play(["flip red_0", "play red_0"])
    assert kinds(table) == [("rejected", "Bob")]
    assert "only 1 red_0" in table.state["notices"][0]["message"]


# -------------------------------------------------------------------- end of hand, scoring
ONE = {"hand_size": 1}


@pytest.mark.parametrize("rules, lines, expected", [
    (ONE, ["flip red_5", "play red_1"],
     {"waiting_for": "scores", "turn": None, "hand_winner": "Bob",
      "notices": [("hand_won", "Bob")]}),
    (ONE, ["flip red_5", "play red_1", "reveal Cid red_9", "points Dee 20", "points Ann 50"],
     {"waiting_for": "deal", "history": [{"hand": 1, "winner": "Bob",
                                          "points": {"Ann": 0, "Bob": 79, "Cid": 0, "Dee": 0}}]}),
    (ONE, ["flip red_5", "play red_draw_two"], {"cards": {"Cid": 3}}),
    (ONE, ["flip red_5", "play wild_draw_four"], {"cards": {"Cid": 5}, "waiting_for": "scores",
                                                  "color": None}),
    ({"hand_size": 1, "target": 50}, ["flip red_5", "play red_1", "points Cid 20",
                                      "points Dee 20", "points Ann 20"],
     {"waiting_for": "game_over", "game_winner": "Bob",
      "notices": [("hand_won", "Bob"), ("game_won", "Bob")]}),
    ({"hand_size": 1, "scoring": "lowest_wins", "target": 30},
     ["flip red_5", "play red_1", "points Cid 40", "points Dee 20", "points Ann 30"],
     {"waiting_for": "game_over", "game_winner": "Bob",
      "players": [{"name": "Ann", "cards": 1, "score": 30, "hands_won": 0},
                  {"name": "Bob", "cards": 0, "score": 0, "hands_won": 1},
                  {"name": "Cid", "cards": 1, "score": 40, "hands_won": 0},
                  {"name": "Dee", "cards": 1, "score": 20, "hands_won": 0}]}),
    ({"hand_size": 1, "hands": 1}, ["flip red_5", "play red_1", "points Cid 1", "points Dee 0",
                                    "points Ann 0"],
     {"waiting_for": "game_over", "game_winner": "Bob"}),
    ({"hand_size": 1, "hands": 2}, ["flip red_5", "play red_1", "points Cid 1", "points Dee 0",
                                    "points Ann 0"], {"waiting_for": "deal", "game_winner": None}),
])
def test_engine_end_of_hand_and_scoring(rules, lines, expected):
    check(play(lines, rules), expected)


@pytest.mark.parametrize("lines, error", [
    (["points Bob 3"], "won the hand"),
    (["points Cid 3", "points Cid 4"], "already in"),
    (["points Cid -1"], "at least 0"),
    (["play red_3"], "waiting for the points of the hand"),
    (["deal"], "waiting for the points of the hand"),
])
def test_engine_scores_phase_rejections(lines, error):
    table = play(["flip red_5", "play red_1", *lines], ONE)
    assert error in table.state["notices"][-1]["message"]


def test_engine_tie_breaks_hands_won_then_cards_held():
    # lowest_wins over two fixed hands: everyone ends on 3 points
    rules = {"hand_size": 1, "scoring": "lowest_wins", "hands": 2}
    table = play(["flip red_5", "play red_1", "points Cid 3", "points Dee 0", "points Ann 0",
                  "deal", "flip blue_5", "play blue_1",  # Bob deals, Cid wins hand 2
                  "points Dee 3", "points Ann 3", "points Bob 0"], rules)
    state = table.state
    assert [p["score"] for p in state["players"]] == [3, 0, 3, 3]
    assert state["game_winner"] == "Bob"
    table = play(["flip red_5", "play red_1", "points Cid 0", "points Dee 3", "points Ann 3",
                  "deal", "flip blue_5", "play blue_1",
                  "points Dee 0", "points Ann 0", "points Bob 3"], rules)
    # Ann, Bob? no: scores Ann 3, Bob 3, Cid 0, Dee 3 -> Cid lowest outright
    assert table.state["game_winner"] == "Cid"


def test_engine_tie_break_fewer_cards_held_at_the_end():
    rules = {"hand_size": 1, "scoring": "lowest_wins", "hands": 2}
    # hand 1: Bob wins, hand 2: Cid wins -> equal points and one hand each for Bob and Cid
    log = ["flip red_5", "play red_1", "points Cid 0", "points Dee 5", "points Ann 5",
           "deal", "flip blue_5", "play blue_1", "points Dee 5", "points Ann 5", "points Bob 0"]
    table = play(log, rules)
    # Bob holds 1 card at the end of hand 2, Cid 0
    assert table.state["game_winner"] == "Cid"


def test_engine_tie_break_the_player_who_did_not_draw_last():
    rules = {"hand_size": 1, "scoring": "lowest_wins", "hands": 2}
    log = ["flip red_draw_two",            # Bob draws 2 and is skipped
           "play red_1", "points Bob 5",  # Ann wins hand 1
           "deal", "flip blue_5",         # Bob deals, Ann starts
           "draw", "pass",                # Ann draws last
           "play blue_1",                 # Bob wins hand 2
           "reveal Ann"]                  # Ann shows an empty hand (count_mismatch)
    table = play(log, rules, players=["Ann", "Bob"])
    assert table.state["game_winner"] == "Ann"  # 0 points against 5
    table.push(line("score_fix 2 Ann 5"))
    state = table.state
    assert [p["score"] for p in state["players"]] == [5, 5]
    assert [p["hands_won"] for p in state["players"]] == [1, 1]
    assert [p["cards"] for p in state["players"]] == [0, 0]
    assert state["game_winner"] == "Bob"
    assert kinds(table, since=11) == [("score_fixed", "Ann"), ("game_won", "Bob"), ("tie_break", "Bob")]
    # the table is told what parted two players level on points, not just who won
    assert table.state["notices"][-1]["message"] == \
        "Bob and Ann are level on 5 points: first place to Bob, Ann drew last"


def test_engine_a_win_on_more_hands_won_says_so():
    # Ann 20 from one hand, Bob 20 from two: Bob is first, and the table is told why
    log = ["flip red_5", "play red_6", "points Bob 10", "points Cid 10",
           "deal", "flip red_5", "play red_6", "points Cid 5", "points Ann 5",
           "deal", "flip red_5", "draw", "pass", "draw", "pass", "play red_6", "points Cid 5", "points Ann 5"]
    table = play(log, {"hand_size": 1, "hands": 3}, players=["Ann", "Bob", "Cid"], opening=("deal Cid",))
    state = table.state
    assert state["game_winner"] == "Bob" and state["places"] == [1, 2, 3]
    assert state["notices"][-1]["message"] == "Bob and Ann are level on 20 points: first place to Bob, more hands won"


def test_engine_a_losers_points_are_not_fixed_where_the_winner_takes_them():
    table = play(["flip red_5", "play red_1", "points Bob 18", "points Cid 62"],
                 {"hand_size": 1}, players=["Ann", "Bob", "Cid"], opening=("deal Cid",))
    assert [p["score"] for p in table.state["players"]] == [80, 0, 0]
    said = table.push(line("score_fix 1 Cid 72"))
    assert said[-1]["kind"] == "rejected" and said[-1]["message"].startswith("only Ann scores hand 1")
    assert [p["score"] for p in table.state["players"]] == [80, 0, 0]
    # lowest wins: the losers' own points are theirs to fix, the winner's empty hand is not
    table = play(["flip red_5", "play red_1", "points Bob 18", "points Cid 62"],
                 {"hand_size": 1, "scoring": "lowest_wins"}, players=["Ann", "Bob", "Cid"], opening=("deal Cid",))
    assert table.push(line("score_fix 1 Ann 5"))[-1]["kind"] == "rejected"
    table.push(line("score_fix 1 Cid 72"))
    assert [p["score"] for p in table.state["players"]] == [0, 18, 72]


# -------------------------------------------------------------------- dealer
def test_engine_first_deal_needs_a_dealer():
    table = play([], opening=("deal",))
    assert kinds(table) == [("rejected", None)] and table.state["waiting_for"] == "deal"


@pytest.mark.parametrize("rotation, second", [("clockwise", "Bob"), ("counterclockwise", "Dee")])
def test_engine_dealer_rotation(rotation, second):
    table = play(["flip red_5", "play red_1", "points Cid 0", "points Dee 0", "points Ann 0",
                  "deal"], {"hand_size": 1, "dealer_rotation": rotation})
    assert table.state["dealer"] == second and table.state["hand"] == 2
    assert table.state["waiting_for"] == "flip"


def test_engine_dealer_by_draw():
    lines = ["reveal Ann red_3", "reveal Bob blue_9", "reveal Cid wild", "reveal Dee green_skip"]
    table = play([*lines, "deal", "flip red_5"], {"dealer_by_draw": True}, opening=())
    assert table.state["dealer"] == "Bob" and table.state["turn"] == "Cid"


def test_engine_dealer_by_draw_tie_draws_again():
    lines = ["reveal Ann red_9", "reveal Bob blue_9", "reveal Cid red_1", "reveal Dee red_2",
             "deal"]
    table = play(lines, {"dealer_by_draw": True}, opening=())
    assert kinds(table) == [("rejected", None)]
    assert "Ann and Bob tie" in table.state["notices"][0]["message"]
    # only the tied draw again, and the new cards alone decide: Bob's first 9 no longer counts
    table.push(line("reveal Cid red_8"))
    assert table.state["notices"][-1]["message"] == "dealer by draw: only Ann and Bob draw again"
    table.push(line("reveal Ann red_1"))
    table.push(line("deal"))
    assert table.state["notices"][-1]["message"] == "dealer by draw: waiting for a card from Bob"
    table.push(line("reveal Bob blue_0"))
    table.push(line("deal"))
    assert table.state["dealer"] == "Ann" and table.state["waiting_for"] == "flip"


def test_engine_dealer_by_draw_after_a_tie_never_falls_to_a_player_who_lost_the_first_draw():
    lines = ["reveal Ann red_9", "reveal Bob blue_9", "reveal Cid green_5", "deal",
             "reveal Ann red_2", "reveal Bob blue_1", "deal"]
    table = play(lines, {"dealer_by_draw": True}, players=["Ann", "Bob", "Cid"], opening=())
    assert table.state["dealer"] == "Ann"


# -------------------------------------------------------------------- special wilds
def test_engine_shuffle_hands_evens_counts_from_the_next_player():
    table = play(["flip red_5", "draw 2", "pass", "play red_1", "play red_2", "draw 5", "pass",
                  "play wild_shuffle_hands blue"], {"deck": "modern"})
    # Bob 9 -> 8 after playing it, Cid 6, Dee 6, Ann 12: 32 cards, 8 each
    state = table.state
    assert cards(table) == {"Ann": 8, "Bob": 8, "Cid": 8, "Dee": 8}
    assert state["color"] == "blue" and state["turn"] == "Cid"


def test_engine_shuffle_hands_exact_deal():
    table = play(["flip red_5", "draw 2", "play wild_shuffle_hands red"], {"deck": "modern"})
    # Bob 7+2-1 = 8, others 7: 29 cards dealt from Cid: Cid, Dee, Ann get 7, Bob 8? -> 29 = 4*7+1
    assert cards(table) == {"Ann": 7, "Bob": 7, "Cid": 8, "Dee": 7}


@pytest.mark.parametrize("lines", [
    ["play wild_swap_hands green", "target Dee"],
    ["play wild_swap_hands", "color green", "target Dee"],
    ["play wild_swap_hands", "target Dee", "color green"],
])
def test_engine_swap_hands_either_order(lines):
    table = play(["flip red_5", "draw 3", "pass", *lines], {"deck": "swap"})
    # Bob 10, Cid plays swap (6 left) with Dee (7)
    assert cards(table) == {"Ann": 7, "Bob": 10, "Cid": 7, "Dee": 6}
    assert table.state["turn"] == "Dee" and table.state["color"] == "green"


def test_engine_swap_hands_not_yourself():
    table = play(["flip red_5", "play wild_swap_hands green", "target Bob"], {"deck": "swap"})
    assert kinds(table)[-1][0] == "rejected" and table.state["waiting_for"] == "target"


@pytest.mark.parametrize("effect, expected", [
    ("wild", {"turn": "Cid", "cards": {"Cid": 7}}),
    ("draw_three", {"turn": "Dee", "cards": {"Cid": 10}}),
    ("skip", {"turn": "Dee", "cards": {"Cid": 7}}),
])
def test_engine_customizable_card(effect, expected):
    table = play(["flip red_5", "play wild_customizable yellow"],
                 {"deck": "modern", "customizable": effect})
    check(table, expected)
    assert table.state["color"] == "yellow"


def test_engine_card_outside_the_deck_edition_is_rejected():
    table = play(["flip red_5", "play wild_shuffle_hands red"])
    assert "not in the classic deck" in table.state["notices"][0]["message"]


# -------------------------------------------------------------------- house rules
@pytest.mark.parametrize("stacking, lines, expected", [
    ("draw_two", ["play red_draw_two"], {"turn": "Cid", "pending_draw": 2}),
    ("draw_two", ["play red_draw_two", "play blue_draw_two"], {"turn": "Dee", "pending_draw": 4}),
    ("draw_two", ["play red_draw_two", "play blue_draw_two", "draw 4"],
     {"turn": "Ann", "pending_draw": 0, "cards": {"Dee": 11}}),
    ("draw_two", ["play red_draw_two", "play blue_draw_two", "play blue_3"],
     {"turn": "Bob", "cards": {"Dee": 11, "Ann": 6}}),
    ("draw_two", ["play red_draw_two", "pass"], {"turn": "Cid", "pending_draw": 2}),
    (True, ["play wild_draw_four blue", "play wild_draw_four green"],
     {"turn": "Dee", "pending_draw": 8, "waiting_for": "play", "color": "green"}),
    (True, ["play wild_draw_four blue", "play wild_draw_four green", "draw 8"],
     {"turn": "Ann", "cards": {"Dee": 15}}),
    ("wild_draw_four", ["play red_draw_two", "play red_draw_two"],
     {"turn": "Bob", "cards": {"Cid": 9, "Ann": 9}}),
])
def test_engine_stacking(stacking, lines, expected):
    check(play(["flip red_5", *lines], {"stacking": stacking}), expected)


def test_engine_no_stacking_by_default():
    table = play(["flip red_5", "play red_draw_two", "play blue_draw_two"])
    # Cid drew 2 and lost the turn: Dee's draw two hits Ann
    assert cards(table) == {"Ann": 9, "Bob": 6, "Cid": 9, "Dee": 6}
    assert table.state["turn"] == "Bob"


@pytest.mark.parametrize("rules, jump, ok", [
    ({"jump_in": True}, "jump Dee red_5", True),
    ({"jump_in": True}, "jump Dee red_6", False),
    ({}, "jump Dee red_5", False),
])
def test_engine_jump_in(rules, jump, ok):
    table = play(["flip red_5", jump], rules)
    if ok:
        assert table.state["turn"] == "Ann" and cards(table)["Dee"] == 6
        # Bob, skipped over, hears why: play goes on from Dee
        assert kinds(table) == [("jumped_in", "Dee")]
        assert table.state["notices"][0]["message"] == "Dee jumped in with red_5"
    else:
        assert kinds(table) == [("rejected", "Dee")] and table.state["turn"] == "Bob"


def test_engine_state_names_the_card_a_jump_in_may_lay():
    # the phones offered "Jump in: red 0" (one in the deck) and a 5 whose twin was laid already
    table = play(["flip red_5"], {"jump_in": True})
    assert table.state["jump_card"] == "red_5"
    table.push(line("jump Dee red_5"))  # both red 5s are on the pile
    assert table.state["jump_card"] is None
    table.push(line("play red_0"))
    assert table.state["top"] == "red_0" and table.state["jump_card"] is None
    assert play(["flip red_5"]).state["jump_card"] is None  # a table without jump_in


def test_engine_jump_in_closes_uno_windows():
    table = small(["flip red_5", "play red_1", "jump Ann red_1"], {"jump_in": True})
    assert kinds(table) == [("jumped_in", "Ann"), ("uno_penalty", "Bob")] and table.state["turn"] == "Bob"


def test_engine_seven_swaps_with_the_chosen_player():
    table = play(["flip red_5", "draw 2", "play red_7", "target Dee"], {"seven_zero": True})
    assert cards(table) == {"Ann": 7, "Bob": 7, "Cid": 7, "Dee": 8}
    assert table.state["turn"] == "Cid"
    assert [n["message"] for n in table.state["notices"]] == ["Bob swaps hands with Dee"]


def test_engine_zero_passes_hands_in_the_direction_of_play():
    table = play(["flip red_5", "draw 2", "play red_0"], {"seven_zero": True})
    # Bob 8 after playing; hands move one seat clockwise: Cid gets Bob's 8
    assert cards(table) == {"Ann": 7, "Bob": 7, "Cid": 8, "Dee": 7}
    assert [n["message"] for n in table.state["notices"]] == ["every hand passes one seat on (clockwise)"]


def test_engine_seven_down_to_one_needs_no_call():
    table = small(["flip red_5", "play red_7", "target Dee", "draw", "pass", "play red_1"],
                  {"seven_zero": True})
    # Dee went down to one card through Bob's seven: no call needed, no penalty
    assert kinds(table) == [("hands_swapped", "Bob"), ("hand_won", "Dee")] and cards(table)["Bob"] == 2


# -------------------------------------------------------------------- rejections
@pytest.mark.parametrize("event, message", [
    ({"type": "play", "card": "red_55"}, "unknown card 'red_55': did you mean 'red_5'?"),
    ({"type": "play", "card": "wild", "color": "purple"}, "unknown colour 'purple'"),
    ({"type": "play"}, "missing \"card\""),
    ({"type": "play", "card": "red_1", "color": "red"}, "only for wild cards"),
    ({"type": "plya", "card": "red_1"}, "did you mean 'play'?"),
    ({"type": "bogus"}, "unknown event type 'bogus' (one of: game, deal, "),  # not "did you mean 'points'?"
    ({"type": "uno", "player": "Zed"}, "unknown player 'Zed' (one of: Ann, Bob, Cid, Dee)"),
    ({"type": "target", "player": "Zed"}, "not now"),
    ({"type": "uno", "player": "Zed"}, "unknown player 'Zed'"),
    ({"type": "draw", "count": 0}, "at least 1"),
    ({"type": "challenge"}, "not now: waiting for a card"),
    ({"type": "take_back"}, "not now"),
    ({"cards": []}, "missing event \"type\""),
    ("[1, 2]", "JSON object"),
    ({"type": "play", "card": ["red_1"]}, "unknown card ['red_1']"),
    ({"type": ["play"]}, "missing event \"type\""),
    ({"type": "uno", "player": {"name": "Bob"}}, "unknown player"),
    ({"type": "draw", "count": 1.5}, "whole number"),
    ("[" * 10000, "not JSON"),
    ("{nope", "not JSON"),
])
def test_engine_rejects_bad_events_with_a_reason(event, message):
    table = play(["flip red_5"])
    before = table.state
    notes = table.push(event)
    assert [n["kind"] for n in notes] == ["rejected"]
    assert message in notes[0]["message"]
    after = table.state
    assert after.pop("notices")[:-1] == before.pop("notices")
    assert after == before


def test_engine_game_rules_are_validated_with_suggestions():
    table = Table()
    notes = table.push({"type": "game", "players": ["Ann", "Bob"], "rules": {"stackin": True}})
    assert "did you mean 'stacking'?" in notes[0]["message"]
    assert table.state["waiting_for"] == "game"
    notes = table.push({"type": "game", "players": ["Ann"]})
    assert "2 to 10 players" in notes[0]["message"]
    notes = table.push({"type": "game", "players": ["Ann", "Ann"]})
    assert notes[0]["kind"] == "rejected"
    # "Anna" and "anna" are refused where a game is set up (the host page, the configuration);
    # the engine still replays a stored game that has them
    assert table.push({"type": "game", "players": ["Anna", "Bob", "anna"]}) == []
    assert table.push({"type": "deal", "dealer": "Ann"})[0]["kind"] == "rejected"


def test_engine_blank_lines_count_but_are_not_events():
    table = replay(['{"type": "game", "players": ["Ann", "Bob"]}', "", "  ",
                    '{"type": "deal"}'])
    assert table.state["notices"][0]["event"] == 3 and len(table.events) == 4


def test_engine_new_game_mid_game_starts_over():
    table = play(["flip red_5", "play red_1", {"type": "game", "players": ["X", "Y"]}])
    state = table.state
    assert [p["name"] for p in state["players"]] == ["X", "Y"] and state["waiting_for"] == "deal"
    assert state["hand"] == 0


# -------------------------------------------------------------------- undo
def test_engine_undo_replays_without_the_last_event_in_effect():
    table = play(["flip red_5", "play red_7"])
    before = table.state
    table.push(line("play red_draw_two"))
    table.push({"type": "bogus"})
    table.push(line("undo"))
    after = table.state
    back, undone, rejected = after["notices"].pop(), after["notices"].pop(), after["notices"].pop()
    assert rejected["kind"] == "rejected" and rejected["event"] == 5
    # the draw two's two cards, drawn at the table, go back: said (Dee's count is 7 again)
    assert back == {"event": 6, "kind": "cards_back", "player": "Dee",
                    "message": "Dee puts 2 cards back on the draw pile"}
    # the undo says what it took back, and that line stays through the next undo
    assert undone == {"event": 6, "kind": "undone", "player": "Cid",
                      "message": "event 4 undone: play red_draw_two by Cid"}
    assert after == before
    table.push(line("undo"))
    assert table.state["top"] == "red_5" and table.state["turn"] == "Bob"
    assert [n["event"] for n in table.state["notices"] if n["kind"] == "undone"] == [6, 7]


def test_engine_undo_with_nothing_left_is_rejected():
    table = Table()
    assert table.push(line("undo"))[0]["kind"] == "rejected"


# -------------------------------------------------------------------- score_fix, correct
def test_engine_score_fix_changes_totals_and_winner():
    rules = {"hand_size": 1, "target": 100}
    table = play(["flip red_5", "play red_1", "points Cid 20", "points Dee 20", "points Ann 20",
                  "score_fix 1 Bob 120"], rules)
    state = table.state
    assert state["players"][1]["score"] == 120 and state["game_winner"] == "Bob"
    assert state["waiting_for"] == "game_over"
    table.push(line("score_fix 1 Bob 60"))
    state = table.state
    assert state["game_winner"] is None and state["waiting_for"] == "deal"
    assert state["history"][0]["points"]["Bob"] == 60
    assert table.push(line("score_fix 2 Bob 1"))[0]["kind"] == "rejected"


def test_engine_correct_fixes_a_misread_card():
    table = play(["flip red_5", "play red_7", "play red_9"])
    assert table.push(line("correct 3 red_skip")) == [
        {"event": 5, "kind": "corrected", "player": None, "message": "event 3 corrected to red_skip"}]
    state = table.state
    # Bob's skip makes the later play Dee's
    assert state["pile"] == ["red_5", "red_skip", "red_9"] and state["turn"] == "Ann"
    assert cards(table) == {"Ann": 7, "Bob": 6, "Cid": 7, "Dee": 6}


@pytest.mark.parametrize("lines, fix, why", [
    # the fix would leave the later challenge with no wild draw four to challenge
    (["flip red_5", "play wild_draw_four", "color blue", "challenge"], "correct 3 red_7", "would reject event 4"),
    # Bob's blue 3 was read right, Cid laid a blue 9 on it: "correcting" the 3 to red would
    # turn Cid's honest play into a take-back and a penalty nobody saw
    (["flip blue_5", "play blue_3", "play blue_9"], "correct 3 red_3", "would make event 4 illegal"),
])
def test_engine_correct_is_rejected_when_it_would_break_a_later_event(lines, fix, why):
    table = play(lines)
    before = table.state
    notes = table.push(line(fix))
    assert notes[0]["kind"] == "rejected" and why in notes[0]["message"]
    after = table.state
    after["notices"].pop()
    assert after == before  # nothing changed


def test_engine_correct_that_keeps_later_plays_legal_goes_through():
    table = play(["flip blue_5", "play blue_3", "play blue_9"])
    assert table.push(line("correct 3 blue_4"))[0]["kind"] == "corrected"


def test_engine_correct_then_undo_restores_the_original():
    table = play(["flip red_5", "play red_7"])
    before = table.state
    table.push(line("correct 2 red_4"))
    assert table.state["top"] == "red_7" and table.state["pile"] == ["red_4", "red_7"]
    table.push(line("undo"))
    state = table.state
    assert state["notices"].pop()["kind"] == "undone"
    assert state == before


# -------------------------------------------------------------------- state contract
def test_engine_state_has_every_contract_key_and_is_json():
    state = play(["flip red_5"]).state
    keys = {"players", "dealer", "turn", "direction", "top", "color", "waiting_for",
            "hand_winner", "game_winner", "notices", "rules", "hand", "draw_pile",
            "discard_pile", "pile", "pending_draw", "uno_window", "drawn", "history"}
    assert keys <= set(state)
    assert json.loads(json.dumps(state)) == state
    assert state["players"][0] == {"name": "Ann", "cards": 7, "score": 0, "hands_won": 0}


def test_engine_check_changes_nothing():
    table = play(["flip red_5"])
    before = table.state
    assert table.check(line("play red_7")) is None
    assert "must draw" in table.check(line("pass"))
    assert table.state == before and len(table.events) == 3


@pytest.mark.parametrize("lines, card, fits", [
    (["flip red_5"], "red_9", True),
    (["flip red_5"], "blue_5", True),
    (["flip red_5"], "wild_draw_four", True),
    (["flip red_5"], "blue_9", False),  # illegal: accepted with a notice, so check says None
    (["flip red_5", "play wild"], "blue_9", False),  # waiting for the colour: rejected
    (["flip red_5", "play blue_9"], "red_3", False),  # on the standing blue 9: not red any more
    (["flip red_5", "play blue_9"], "blue_3", True),
    (["flip red_5", "play red_draw_two"], "green_2", False),  # Cid took the two; Dee on a red draw two
])
def test_engine_fits_tells_a_legal_play_without_changing_anything(lines, card, fits):
    table = play(lines)
    before = table.state
    assert table.fits(line(f"play {card}")) is fits
    assert table.state == before and len(table.events) == 2 + len(lines)


def test_engine_fits_an_answer_to_a_stack_whatever_its_colour():
    table = play(["flip red_5", "play red_draw_two"], rules={"stacking": True})
    assert table.fits(line("play green_draw_two")) and not table.fits(line("play green_2"))


def test_engine_fits_a_flip_whatever_the_card():
    table = play([])
    assert table.fits(line("flip blue_9")) and table.fits(line("flip wild_draw_four"))
    assert not table.fits(line("play blue_9"))


def test_engine_reading_notice_when_the_card_is_not_the_likeliest_reading():
    read = [["yellow_draw_two", 0.55], ["yellow_6", 0.41]]
    table = play(["flip red_6", {"type": "play", "card": "yellow_6", "read": read},
                  {"type": "play", "card": "yellow_2", "read": [["yellow_2", 0.6], ["yellow_3", 0.4]]}])
    assert [(n["event"], n["kind"], n["player"], n["message"]) for n in table.state["notices"]] == [
        (3, "reading", "Bob", "read as yellow_draw_two (0.55) or yellow_6 (0.41): yellow_6 fits the table")]
    assert table.state["top"] == "yellow_2"


@pytest.mark.parametrize("read", [[], [["red_7"]], [["red_7", 2]], [["red_7", True]], "red_7", [["red_77", 0.5]]])
def test_engine_a_malformed_read_is_rejected(read):
    table = play(["flip red_6"])
    notices = table.push({"type": "play", "card": "red_7", "read": read})
    assert [n["kind"] for n in notices] == ["rejected"] and "read" in notices[0]["message"]
    assert table.state["top"] == "red_6"


# -------------------------------------------------------------------- a whole log from a file
def test_engine_replays_a_hand_written_two_hand_log(repo_root):
    lines = (repo_root / "tests" / "referee" / "logs" / "two_hands.jsonl").read_text().splitlines()
    state = replay(lines).state
    assert [(n["event"], n["kind"], n["player"]) for n in state["notices"]] == [
        (6, "challenge_upheld", "Cid"), (8, "uno_called", "Bob"), (12, "illegal_play", "Ann"),
        (13, "penalty_draw", "Ann"), (14, "hand_won", "Bob"), (19, "penalty_draw", "Ann"),
        (21, "uno_called", "Cid"), (25, "catch_void", "Cid"), (26, "uno_penalty", "Bob"),
        (26, "hand_won", "Cid")]
    assert state["players"] == [
        {"name": "Ann", "cards": 4, "score": 0, "hands_won": 0},
        {"name": "Bob", "cards": 3, "score": 90, "hands_won": 1},
        {"name": "Cid", "cards": 0, "score": 87, "hands_won": 1}]
    assert state["history"] == [
        {"hand": 1, "winner": "Bob", "points": {"Ann": 0, "Bob": 90, "Cid": 0}},
        {"hand": 2, "winner": "Cid", "points": {"Ann": 0, "Bob": 0, "Cid": 87}}]
    assert (state["dealer"], state["turn"], state["waiting_for"], state["hand_winner"],
            state["game_winner"]) == ("Bob", None, "deal", "Cid", None)


def test_engine_reveal_without_player_credits_the_next_loser_clockwise():
    # The camera cannot tell whose hand is laid out: losers reveal in seat order from the winner.
    table = play(["flip red_5", "play red_1", "points Cid 5",
                  {"type": "reveal", "cards": ["blue_9"]}, {"type": "reveal", "cards": ["wild"]}], ONE)
    state = table.state
    assert state["history"][0]["points"]["Bob"] == 5 + 9 + 50
    assert [n["kind"] for n in state["notices"]][-1] != "rejected"
    assert state["waiting_for"] == "deal"


def test_engine_after_a_stale_window_the_light_shows_the_player_on_turn_at_two_cards():
    table = small(["flip red_5", "play wild_draw_four blue", "challenge", "verdict guilty"])
    assert cards(table)["Bob"] == 5 and table.state["turn"] == "Cid"
    assert table.state["uno_window"] == "Cid"  # not dark for Bob's window that no longer is


def test_engine_an_undo_names_whom_the_line_concerned():
    table = small(["flip red_5", "uno"])  # the shared buzzer, credited to Bob on turn at two
    table.push(line("undo"))
    assert table.state["notices"][-1]["message"] == "event 3 undone: uno by Bob"
    table.push({"type": "correct", "event": 2, "card": "red_6"})  # the host's, nobody's step
    table.push(line("undo"))
    assert table.state["notices"][-1]["player"] is None


def test_engine_a_hand_of_one_card_shown_at_the_end_says_one_card():
    table = play(["flip red_5", "uno Bob", "play red_1", "draw", "pass", "uno Dee", "play red_3",
                  "uno Ann", "play red_4", "play red_6"], {"hand_size": 2})  # Cid drew: 3 counted
    table.push(line("reveal Cid red_9"))
    said = [n["message"] for n in table.state["notices"] if n["kind"] == "count_mismatch"]
    assert said == ["Cid shows 1 card, tracked 3: the shown count stands"]


def test_a_draw_of_more_cards_than_are_left_is_refused_not_cut_short():
    # a log said 1,000 cards drawn and the state 86: the referee now says how many are left
    t = play(["flip red_5", "draw 1000"])
    last = t.state["notices"][-1]
    assert last["kind"] == "rejected" and last["message"] == "only 79 cards are left to draw, not 1000"
    assert t.state["players"][1]["cards"] == 7


def test_points_over_the_whole_deck_are_refused():
    t = play(["flip red_5"], rules={"hand_size": 1}, players=["Ann", "Bob"], opening=("deal Bob",))
    t.push(line("play red_7"))
    t.push(line("points Bob 100000000000000000000"))
    last = t.state["notices"][-1]
    assert last["kind"] == "rejected" and last["message"].endswith("more than a hand can score (at most 1240)")
    assert t.state["waiting_for"] == "scores"
    t.push(line("points Bob 20"))
    assert t.state["players"][0]["score"] == 20
    # a hand's fix may say twice the deck (a hand that counted double), as the host page allows
    t.push(line("score_fix 1 Ann 2480"))
    assert t.state["players"][0]["score"] == 2480


def test_a_pass_names_its_player_like_a_draw_does():
    t = play(["flip red_5", "draw"])  # Bob drew
    t.push({"type": "pass", "player": "Cid"})
    assert t.state["notices"][-1]["message"] == "it is Bob's turn, not Cid's" and t.state["turn"] == "Bob"
    t.push({"type": "pass", "player": "Bob"})
    assert t.state["turn"] == "Cid"


def test_lines_no_table_writes_are_told_from_refusals_of_the_moment():
    t = play(["flip red_5", "pass", "PLAY", {"type": "play", "card": None}])
    t.push("not json")
    assert [t.state["notices"][i]["kind"] for i in range(-4, 0)] == ["rejected"] * 4
    assert t.malformed == (4, 5, 6)  # the pass before drawing was refused for the moment only


def test_only_the_victim_may_challenge_and_only_the_wild_player_names_its_colour():
    t = play(["flip red_5", {"type": "play", "card": "wild_draw_four"}])  # Bob laid it
    t.push({"type": "color", "color": "blue", "player": "Cid"})
    assert t.state["notices"][-1]["message"] == "it is Bob's turn, not Cid's" and t.state["color"] is None
    t.push({"type": "color", "color": "blue", "player": "Bob"})
    t.push({"type": "challenge", "player": "Ann"})
    assert t.state["notices"][-1]["message"] == "only Cid may challenge: the cards are theirs to take"
    assert t.state["waiting_for"] == "challenge" and cards(t)["Cid"] == 7


def test_part_of_a_hand_proves_a_bluff_but_not_an_honest_wild_draw_four():
    t = play(["flip red_5", "play wild_draw_four blue", "challenge"])  # Bob holds 6
    t.push(line("reveal Bob blue_1"))
    assert t.state["notices"][-1]["message"].startswith("Bob showed 1 of 6 cards, none red")
    assert t.state["waiting_for"] == "evidence" and cards(t)["Cid"] == 7
    t.push(line("reveal Bob red_2"))  # one red card is enough
    assert kinds(t)[-1] == ("challenge_upheld", "Bob") and cards(t)["Bob"] == 10


def test_with_seven_zero_an_illegal_zero_must_go_back():
    # left standing it counted with no effect: the hands were never passed round
    t = play(["flip red_5", "play blue_0", "play blue_3"], {"seven_zero": True})
    assert t.state["notices"][-1]["message"] == "Bob's illegal blue_0 must be taken back first: its effect cannot stand"
    t.push(line("take_back"))
    assert t.state["waiting_for"] == "play" and cards(t)["Bob"] == 9  # taken back, and 2 drawn


def test_undoing_the_hosts_verdict_blames_no_player():
    # every phone read "Undone: a step by Bob" (the challenged player) when the host took back
    # their own verdict
    from web.messages import notice_say

    t = play(["flip red_5", "play wild_draw_four blue", "challenge", "verdict guilty", "undo"])
    back, undone = t.state["notices"][-1], t.state["notices"][-2]
    assert back["kind"] == "cards_back" and back["player"] == "Bob"  # the 4 he drew for the verdict
    assert undone["kind"] == "undone" and undone["player"] is None and t.state["waiting_for"] == "evidence"
    assert notice_say(undone)["k"] == "notice.undone_verdict"


# -------------------------------------------------------------------- found by fuzzing (probe18)
def _fuzz_log(name: str) -> Table:
    from pathlib import Path

    return replay((Path(__file__).parent / "logs" / f"fuzz_{name}.jsonl").read_text().splitlines())


def _held(table: Table) -> int:
    state = table.state
    return sum(p["cards"] for p in state["players"]) + state["draw_pile"] + state["discard_pile"]


def test_everyone_left_out_at_once_leaves_the_fewest_cards_in_to_win():
    # with elimination, the last two reached the limit in one event: no winner, and the turn
    # stayed on a player who was out (whose plays still counted)
    t = _fuzz_log("elim_all_out")
    assert t.state["waiting_for"] == "scores" and t.state["hand_winner"] == "Bob"
    assert sorted(t.state["out"]) == ["Ann", "Cid"]


def test_a_discard_twos_second_card_obeys_no_action_finish():
    # Bob went out on a draw two laid as the second card: fits said no, push said yes
    t = _fuzz_log("second_card_finish")
    assert t.state["notices"][-1]["message"].startswith("Bob cannot go out on green_draw_two (no_action_finish)")
    assert t.state["waiting_for"] == "play" and t.state["turn"] == "Bob"


def test_a_reshuffle_while_a_card_waits_to_be_taken_back_keeps_the_card_under_it():
    # the card the illegal one was laid on was shuffled in: after the take-back, no top card
    t = _fuzz_log("reshuffle_takeback")
    assert t.state["top"] == "red_5" and t.state["discard_pile"] == 1 and _held(t) == 108


def test_a_hand_shown_bigger_than_could_be_held_is_refused():
    # counted, it made cards from nothing: 112 in a 108-card deck
    t = _fuzz_log("recount_conservation")
    assert t.state["notices"][-1]["message"].startswith("Ann shows 5 cards, more than the 1 they could hold")
    assert _held(t) == 108


def test_undoing_the_deal_says_so_in_the_pages_words():
    from web.messages import notice_say

    t = play(["undo"], opening=("deal Ann",))
    assert t.state["waiting_for"] == "deal" and notice_say(t.state["notices"][-1])["k"] == "notice.undone_deal"
