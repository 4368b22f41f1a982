"""House rules (README, "House rules") and UNO calls for a turn that starts with a penalty
pending: one scenario per effect, each option with stacking, and each refusal's message.

Same short notation as test_engine.py (Ann deals, Bob starts, seats Ann, Bob, Cid, Dee).
"""
from __future__ import annotations

import pytest

from companion.referee.engine import Table
from companion.errors import RulesError
from companion.referee.rules import parse_rules
from test_engine import cards, kinds, line, play


def multi(*names: str, **extra: object) -> dict:
    return {"type": "play", "cards": list(names), **extra}


def last_message(table: Table) -> str:
    return table.state["notices"][-1]["message"]


# Bob, Cid and Dee play down to two cards each; Ann then holds two as well.
TWO_EACH = ["flip red_5", "play red_1", "play red_2", "play red_3"]


# -------------------------------------------------------------------- UNO with a penalty pending
@pytest.mark.parametrize("stacking, hit, answer, take", [
    ("draw_two", "play red_draw_two", "play blue_draw_two", "draw 4"),
    (True, "play red_draw_two", "play blue_draw_two", "draw 4"),
    ("wild_draw_four", "play wild_draw_four blue", "play wild_draw_four green", "draw 8"),
    (True, "play wild_draw_four blue", "play wild_draw_four green", "draw 8"),
    ("cross", "play wild_draw_four blue", "play blue_draw_two", "draw 6"),
])
def test_house_uno_call_before_answering_a_stack_counts(stacking, hit, answer, take):
    # Ann hits Bob, who holds two cards: he calls, then answers, then Cid takes the stack
    table = play([*TWO_EACH, hit, "uno Bob", answer, take], {"hand_size": 3, "stacking": stacking})
    # no uno_penalty when Cid began his turn; the stack Cid takes is said in the feed
    assert kinds(table) == [("uno_called", "Bob"), ("penalty_draw", "Cid")]
    assert cards(table)["Bob"] == 1


def test_house_uno_buzzer_with_a_stack_pending_credits_the_victim():
    table = play([*TWO_EACH, "play red_draw_two", "uno", "play blue_draw_two", "draw 4"],
                 {"hand_size": 3, "stacking": True})
    assert kinds(table) == [("uno_called", "Bob"), ("penalty_draw", "Cid")]


def test_house_uno_not_called_before_a_stack_is_still_caught():
    table = play([*TWO_EACH, "play red_draw_two", "play blue_draw_two", "draw 4"],
                 {"hand_size": 3, "stacking": True})
    assert kinds(table) == [("uno_penalty", "Bob"), ("penalty_draw", "Cid")]
    assert cards(table)["Bob"] == 3


@pytest.mark.parametrize("rules, hit", [
    ({}, "play wild_draw_four blue"),                       # no stacking: the challenge phase
    ({"stacking": "draw_two"}, "play red_draw_two"),       # a stack Bob does not answer
    ({"deflect": True}, "play red_draw_two"),
])
def test_house_uno_call_by_the_player_after_the_victim_counts(rules, hit):
    # Cid holds two cards; his play accepts Bob's penalty and begins his turn
    table = play([*TWO_EACH, hit, "uno Cid", "play blue_3" if "wild" in hit else "play red_9",
                  "play blue_4" if "wild" in hit else "play red_8"], {"hand_size": 3, **rules})
    assert kinds(table) == [("uno_called", "Cid"), ("penalty_draw", "Bob")]
    assert cards(table)["Cid"] == 1


def test_house_uno_call_before_playing_on_a_standing_illegal_card_counts():
    # Bob's illegal green 7 takes him to one card; Cid (two cards) calls and plays on it
    table = play(["flip red_5", "play red_1", "play red_2", "play red_3", "play red_4",
                  "play green_7", "uno Cid", "play green_9", "play green_1"], {"hand_size": 3})
    assert kinds(table) == [("illegal_play", "Bob"), ("uno_called", "Cid"), ("illegal_stands", "Bob"),
                            ("uno_penalty", "Bob")]
    assert cards(table)["Cid"] == 1


def test_house_uno_call_by_a_player_not_about_to_play_is_still_refused():
    table = play([*TWO_EACH, "play red_draw_two", "uno Dee"], {"hand_size": 3, "stacking": True})
    assert kinds(table) == [("rejected", "Dee")] and "no UNO window" in last_message(table)


# -------------------------------------------------------------------- stacking: cross
@pytest.mark.parametrize("lines, expected", [
    (["play red_draw_two", "play wild_draw_four blue"], {"turn": "Dee", "pending_draw": 6}),
    (["play red_draw_two", "play wild_draw_four blue", "play blue_draw_two"],
     {"turn": "Ann", "pending_draw": 8}),
    (["play red_draw_two", "play wild_draw_four blue", "play blue_draw_two", "draw 8"],
     {"turn": "Bob", "pending_draw": 0, "cards": {"Ann": 15}}),
    (["play wild_draw_four blue", "play blue_draw_two"],  # answered in the challenge phase
     {"turn": "Dee", "pending_draw": 6, "waiting_for": "play"}),
    (["play wild_draw_four blue", "play wild_draw_four red"], {"turn": "Dee", "pending_draw": 8}),
])
def test_house_cross_stacking_adds_draw_twos_and_wild_draw_fours(lines, expected):
    table = play(["flip red_5", *lines], {"stacking": "cross"})
    state = table.state
    for key, value in expected.items():
        if key == "cards":
            assert {k: cards(table)[k] for k in value} == value
        else:
            assert state[key] == value, key


def test_house_cross_stacking_draw_two_must_match_the_named_colour():
    # a green draw two does not answer a wild draw four named blue: Cid takes the 4, Dee's
    # green draw two is an illegal play on it
    table = play(["flip red_5", "play wild_draw_four blue", "play green_draw_two"],
                 {"stacking": "cross"})
    assert kinds(table) == [("penalty_draw", "Cid"), ("illegal_play", "Dee")]
    assert cards(table)["Cid"] == 11


def test_house_plain_stacking_does_not_cross():
    table = play(["flip red_5", "play red_draw_two", "play wild_draw_four blue"], {"stacking": True})
    assert kinds(table) == [("penalty_draw", "Cid")] and table.state["turn"] == "Ann"


def test_house_cross_stacking_bad_value_suggests_cross():
    with pytest.raises(RulesError, match="did you mean 'cross'"):
        parse_rules({"stacking": "crss"})


# -------------------------------------------------------------------- deflect
@pytest.mark.parametrize("deflect, card, expected", [
    ("reverse", "red_reverse", {"turn": "Bob", "direction": "counterclockwise", "pending_draw": 2}),
    (True, "red_reverse", {"turn": "Bob", "direction": "counterclockwise", "pending_draw": 2}),
    ("skip", "red_skip", {"turn": "Dee", "direction": "clockwise", "pending_draw": 2}),
    (True, "red_skip", {"turn": "Dee", "pending_draw": 2}),
])
def test_house_deflect_sends_a_pending_draw_two_on(deflect, card, expected):
    table = play(["flip red_5", "play red_draw_two", f"play {card}"], {"deflect": deflect})
    state = table.state
    assert {k: state[k] for k in expected} == expected
    assert kinds(table) == [("deflect", expected["turn"])]
    assert cards(table)["Cid"] == 6


def test_house_deflect_then_take():
    table = play(["flip red_5", "play red_draw_two", "play red_reverse", "draw 2"],
                 {"deflect": "reverse"})
    assert cards(table) == {"Ann": 7, "Bob": 8, "Cid": 6, "Dee": 7}
    assert table.state["turn"] == "Ann" and table.state["pending_draw"] == 0


def test_house_deflect_a_wild_draw_four_with_the_named_colour():
    table = play(["flip red_5", "play wild_draw_four blue", "play blue_skip"], {"deflect": "skip"})
    state = table.state
    assert (state["turn"], state["pending_draw"], state["waiting_for"]) == ("Dee", 4, "play")
    table.push(line("challenge"))  # only the first victim could challenge
    assert kinds(table)[-1][0] == "rejected"


@pytest.mark.parametrize("deflect, card", [("reverse", "blue_reverse"), ("reverse", "red_skip"),
                                           ("skip", "red_reverse")])
def test_house_deflect_needs_the_right_card_and_colour(deflect, card):
    # not an answer: Cid takes the two and Dee's card lands on the draw two
    table = play(["flip red_5", "play red_draw_two", f"play {card}"], {"deflect": deflect})
    assert kinds(table)[0] == ("penalty_draw", "Cid") and cards(table)["Cid"] == 9


def test_house_deflect_two_players_sends_it_back():
    table = play(["flip red_5", "play red_draw_two", "play red_reverse", "draw 2"],
                 {"deflect": "reverse"}, players=["Ann", "Bob"])
    assert cards(table) == {"Ann": 6, "Bob": 8} and table.state["turn"] == "Ann"


def test_house_deflect_with_stacking_keeps_the_stack_going():
    # Cid deflects to Bob, who stacks a draw two on the deflected stack: Ann faces 4
    table = play(["flip red_5", "play red_draw_two", "play red_reverse", "play blue_draw_two"],
                 {"deflect": "reverse", "stacking": "draw_two"})
    state = table.state
    assert (state["turn"], state["pending_draw"], state["direction"]) == ("Ann", 4, "counterclockwise")


def test_house_deflect_without_stacking_a_draw_two_is_no_answer():
    table = play(["flip red_5", "play red_draw_two", "play blue_draw_two"], {"deflect": True})
    assert kinds(table) == [("penalty_draw", "Cid")]
    assert (table.state["turn"], table.state["pending_draw"]) == ("Ann", 2)


def test_house_deflect_uno_call_before_deflecting():
    table = play([*TWO_EACH, "play red_draw_two", "uno Bob", "play red_skip", "draw 2"],
                 {"hand_size": 3, "deflect": "skip"})
    assert kinds(table) == [("uno_called", "Bob"), ("deflect", "Cid"), ("penalty_draw", "Cid")]
    assert cards(table)["Bob"] == 1


def test_house_deflect_bad_value():
    with pytest.raises(RulesError, match="did you mean 'reverse'"):
        parse_rules({"deflect": "revers"})


# -------------------------------------------------------------------- multiple play
def test_house_multiple_play_lays_several_cards_of_one_number():
    table = play(["flip red_5", multi("red_7", "blue_7", "green_7")], {"multiple_play": True})
    state = table.state
    assert state["pile"] == ["red_5", "red_7", "blue_7", "green_7"]
    assert (state["top"], state["color"], state["turn"]) == ("green_7", "green", "Cid")
    assert cards(table)["Bob"] == 4 and not kinds(table)


def test_house_multiple_play_card_names_the_last():
    table = play(["flip red_5", multi("red_7", "blue_7", card="blue_7")], {"multiple_play": True})
    assert table.state["top"] == "blue_7" and not kinds(table)


@pytest.mark.parametrize("rules, event, message", [
    ({}, multi("red_7", "blue_7"), "need the multiple_play option"),
    ({"multiple_play": True}, multi("red_7", "blue_8"), "cards of one number"),
    ({"multiple_play": True}, multi("red_skip", "blue_skip"), "cards of one number"),
    ({"multiple_play": True}, multi("red_7", "blue_7", card="red_7"), "must be the last"),
    ({"multiple_play": True}, {"type": "play", "cards": []}, "list of card names"),
    ({"multiple_play": True}, multi("red_0", "red_0"), "only 1 red_0"),
    ({"multiple_play": True, "hand_size": 2}, multi("red_7", "blue_7", "green_7"), "holds only 2"),
])
def test_house_multiple_play_refusals(rules, event, message):
    table = play(["flip red_5", event], rules)
    assert kinds(table) == [("rejected", "Bob")] and message in last_message(table)
    assert table.state["top"] == "red_5"


def test_house_multiple_play_over_the_deck_names_the_first_card_laid():
    # two red_4 and two blue_4 on a red_4 and a blue_4: both over; every run names red_4
    table = play(["flip red_4", "play blue_4", multi("red_4", "red_4", "blue_4", "blue_4")],
                 {"multiple_play": True})
    assert "only 2 red_4" in last_message(table)


def test_house_multiple_play_illegal_first_card_comes_back_whole():
    table = play(["flip red_5", multi("blue_7", "red_7"), "take_back"], {"multiple_play": True})
    assert kinds(table) == [("illegal_play", "Bob"), ("penalty_draw", "Bob")]
    assert table.state["pile"] == ["red_5"] and cards(table)["Bob"] == 9
    assert "blue_7, red_7" in table.state["notices"][0]["message"]


def test_house_multiple_play_goes_out_and_opens_uno_windows():
    out = play(["flip red_5", multi("red_3", "blue_3")], {"multiple_play": True, "hand_size": 2})
    assert kinds(out) == [("hand_won", "Bob")]
    caught = play(["flip red_5", multi("red_3", "blue_3"), "play blue_4"],
                  {"multiple_play": True, "hand_size": 3})
    assert kinds(caught) == [("uno_penalty", "Bob")]


def test_house_multiple_play_with_stacking_is_no_answer():
    table = play(["flip red_5", "play red_draw_two", multi("red_2", "blue_2")],
                 {"multiple_play": True, "stacking": True})
    assert kinds(table) == [("penalty_draw", "Cid")]
    assert cards(table)["Dee"] == 5 and table.state["turn"] == "Ann"


def test_house_multiple_play_correct_fixes_the_top_card():
    table = play(["flip red_5", multi("red_7", "blue_7")], {"multiple_play": True})
    table.push({"type": "correct", "event": 3, "card": "green_7"})
    assert table.state["pile"] == ["red_5", "red_7", "green_7"]


# -------------------------------------------------------------------- no_action_finish, no_wild_finish
@pytest.mark.parametrize("rules, card, option", [
    ({"no_action_finish": True}, "red_skip", "no_action_finish"),
    ({"no_action_finish": True}, "red_reverse", "no_action_finish"),
    ({"no_action_finish": True}, "red_draw_two", "no_action_finish"),
    ({"no_wild_finish": True}, "wild blue", "no_wild_finish"),
    ({"no_wild_finish": True}, "wild_draw_four blue", "no_wild_finish"),
])
def test_house_last_card_may_not_be_an_action_or_wild(rules, card, option):
    table = play(["flip red_5", f"play {card}"], {"hand_size": 1, **rules})
    assert kinds(table) == [("illegal_play", "Bob")] and option in last_message(table)
    table.push(line("play red_9"))  # the next player may not let it stand
    assert kinds(table)[-1] == ("rejected", "Bob")
    table.push(line("take_back"))
    assert cards(table)["Bob"] == 3 and table.state["turn"] == "Cid"
    assert table.state["hand_winner"] is None


@pytest.mark.parametrize("rules, card", [({"no_action_finish": True}, "wild"),
                                         ({"no_wild_finish": True}, "red_skip"),
                                         ({"no_action_finish": True}, "red_9")])
def test_house_finish_limits_let_other_last_cards_win(rules, card):
    table = play(["flip red_5", f"play {card}"], {"hand_size": 1, **rules})
    assert kinds(table) == [("hand_won", "Bob")]


def test_house_finish_limit_not_before_the_last_card():
    table = play(["flip red_5", "play red_skip"], {"no_action_finish": True})
    assert not kinds(table) and table.state["turn"] == "Dee"


def test_house_fits_knows_a_forbidden_last_card():
    table = play(["flip red_5"], {"hand_size": 1, "no_action_finish": True})
    assert not table.fits(line("play red_skip")) and table.fits(line("play red_9"))


@pytest.mark.parametrize("rules, hit, answer", [
    ({"no_action_finish": True, "stacking": "draw_two"}, "play red_draw_two", "play blue_draw_two"),
    ({"no_wild_finish": True, "stacking": "wild_draw_four"}, "play wild_draw_four blue",
     "play wild_draw_four green"),
])
def test_house_finish_limit_on_an_answer_to_a_stack(rules, hit, answer):
    # Bob goes down to one card; Ann hits him, and his last card would answer it
    table = play(["flip red_5", "play red_1", "uno Bob", hit, "uno Ann", answer],
                 {"hand_size": 2, **rules}, players=["Ann", "Bob"])
    assert kinds(table)[-1] == ("illegal_play", "Bob")
    table.push(line("take_back"))
    pending = 2 if "draw_two" in hit else 4
    assert cards(table)["Bob"] == 1 + 2 + pending  # his card back, the penalty, the stack
    assert table.state["pending_draw"] == 0 and table.state["turn"] == "Ann"


# -------------------------------------------------------------------- hand_limit
LIMIT = ["flip red_5", "draw", "pass", "play red_6", "play red_7", "play red_8"]  # Bob at 8


def test_house_hand_limit_refuses_a_draw_and_allows_a_pass():
    table = play([*LIMIT, "draw"], {"hand_limit": 8})
    assert kinds(table) == [("rejected", "Bob")]
    assert last_message(table) == ("Bob holds 8 cards and the hand limit is 8: no drawing by "
                                   "choice; play a card or pass")
    table.push(line("pass"))
    assert table.state["turn"] == "Cid" and cards(table)["Bob"] == 8


def test_house_hand_limit_counts_the_whole_draw():
    table = play(["flip red_5", "draw 2"], {"hand_limit": 8})
    assert kinds(table) == [("rejected", "Bob")]
    table = play(["flip red_5", "draw"], {"hand_limit": 8})
    assert not kinds(table)


def test_house_hand_limit_does_not_stop_penalties():
    table = play(["flip red_5", "draw", "pass", "play red_6", "play red_7", "play red_draw_two"],
                 {"hand_limit": 8})
    assert cards(table)["Bob"] == 10


def test_house_hand_limit_with_stacking_the_victim_still_takes_the_stack():
    table = play(["flip red_5", "draw", "pass", "play red_6", "play red_7", "play red_draw_two",
                  "draw 2"], {"hand_limit": 8, "stacking": "draw_two"})
    assert cards(table)["Bob"] == 10 and kinds(table) == [("penalty_draw", "Bob")]


def test_house_hand_limit_bad_values():
    with pytest.raises(RulesError, match="above hand_size"):
        parse_rules({"hand_limit": 7})
    with pytest.raises(RulesError, match="whole number"):
        parse_rules({"hand_limit": "12"})
    assert parse_rules({"hand_limit": 5, "hand_size": 4}).hand_limit == 5


# -------------------------------------------------------------------- elimination
def test_house_elimination_puts_a_player_out_and_seats_skip_them():
    table = play(["flip red_5", "draw 3"], {"elimination": 10})
    state = table.state
    assert state["out"] == ["Bob"] and state["turn"] == "Cid"
    assert kinds(table) == [("eliminated", "Bob")]
    for card in ("red_6", "red_7", "red_8"):
        table.push(line(f"play {card}"))
    assert table.state["turn"] == "Cid"  # Ann -> (Bob out) -> Cid
    table.push(line("play red_skip"))    # Cid skips Dee
    assert table.state["turn"] == "Ann"
    table.push(line("play red_reverse"))  # back to Dee, Bob and Cid the other way
    assert table.state["turn"] == "Dee"


def test_house_elimination_last_one_in_wins_the_hand():
    table = play(["flip red_5", "draw 3"], {"elimination": 10}, players=["Ann", "Bob"])
    state = table.state
    assert (state["hand_winner"], state["waiting_for"]) == ("Ann", "scores")
    assert kinds(table) == [("eliminated", "Bob"), ("hand_won", "Ann")]
    table.push(line("points Bob 40"))
    assert table.state["history"][0]["points"]["Ann"] == 40


def test_house_elimination_by_a_stack_and_out_players_cannot_be_targets():
    table = play(["flip red_5", "play red_draw_two", "draw 2"],
                 {"elimination": 9, "stacking": "draw_two", "seven_zero": True})
    assert table.state["out"] == ["Cid"] and table.state["turn"] == "Dee"
    table.push(line("play red_7"))
    table.push(line("target Cid"))
    assert kinds(table)[-1] == ("rejected", "Cid") and "out of this hand" in last_message(table)


def test_house_elimination_bad_value():
    with pytest.raises(RulesError, match="above hand_size"):
        parse_rules({"elimination": 3})


# -------------------------------------------------------------------- teams
TEAMS = {"teams": True, "hand_size": 1}


def test_house_teams_the_other_team_pays_the_winner():
    table = play(["flip red_5", "play red_1", "points Dee 5"], TEAMS)
    assert kinds(table)[-1] == ("rejected", "Dee") and "partner" in last_message(table)
    for ln in ("points Cid 10", "points Ann 20"):
        table.push(line(ln))
    state = table.state
    assert state["history"][0]["points"] == {"Ann": 0, "Bob": 30, "Cid": 0, "Dee": 0}
    assert state["teams"] == [
        {"name": "Ann & Cid", "players": ["Ann", "Cid"], "score": 0, "hands_won": 0},
        {"name": "Bob & Dee", "players": ["Bob", "Dee"], "score": 30, "hands_won": 1}]
    assert state["waiting_for"] == "deal"


def test_house_teams_win_the_game_together():
    table = play(["flip red_5", "play red_1", "points Cid 10", "points Ann 10",
                  "deal", "flip blue_5", "play blue_1",          # Bob deals, Cid starts and wins
                  "points Dee 10", "points Bob 10",
                  "deal", "flip green_5", "play green_1", "points Ann 15", "points Cid 0"],
                 {**TEAMS, "target": 35})
    state = table.state
    # Bob & Dee: 20 + 15 (Dee won hand 3) = 35
    assert state["waiting_for"] == "game_over" and state["game_winner"] == "Bob"
    assert state["notices"][-1]["message"] == "Bob & Dee win the game with 35 points"


def test_house_teams_lowest_wins_counts_partners_too():
    table = play(["flip red_5", "play red_1", "points Dee 5", "points Cid 1", "points Ann 2"],
                 {**TEAMS, "scoring": "lowest_wins"})
    assert table.state["teams"][1]["score"] == 5 and table.state["waiting_for"] == "deal"


def test_house_teams_with_stacking_the_last_draw_two_still_counts():
    table = play(["flip red_5", "play red_draw_two"], {**TEAMS, "stacking": True})
    assert cards(table)["Cid"] == 3 and table.state["hand_winner"] == "Bob"


@pytest.mark.parametrize("players", [["Ann", "Bob", "Cid"], ["A", "B", "C", "D", "E"]])
def test_house_teams_need_four_or_six_players(players):
    table = Table()
    notes = table.push({"type": "game", "players": players, "rules": {"teams": True}})
    assert notes[0]["kind"] == "rejected"
    assert f"teams needs 4 or 6 players (2 vs 2 or 3 vs 3, partners seated alternately), " \
           f"not {len(players)}" in notes[0]["message"]


def test_house_teams_with_elimination_the_last_team_in_wins():
    table = play(["flip red_5", "draw 3", "play red_6", "draw 3"], {"teams": True, "elimination": 10})
    # Bob out, Cid plays, Dee draws to 10: Bob & Dee are both out, Ann & Cid win
    state = table.state
    assert state["out"] == ["Bob", "Dee"] and state["hand_winner"] in ("Ann", "Cid")
    assert state["waiting_for"] == "scores"


# -------------------------------------------------------------------- double_score
@pytest.mark.parametrize("card, doubled", [("red_draw_two", True), ("wild_draw_four", True),
                                           ("red_9", False), ("red_skip", False)])
def test_house_double_score(card, doubled):
    table = play(["flip red_5", f"play {card}", "points Cid 10", "points Dee 5", "points Ann 5"],
                 {"hand_size": 1, "double_score": True})
    assert table.state["history"][0]["points"]["Bob"] == (40 if doubled else 20)
    won = [n["message"] for n in table.state["notices"] if n["kind"] == "hand_won"]
    assert ("scores double" in won[0]) is doubled


def test_house_double_score_with_stacking_answer_going_out():
    # Bob answers Ann's draw two with his last card: Ann takes the stack, the hand doubles
    table = play(["flip red_5", "play red_1", "uno Bob", "play red_draw_two", "uno Ann",
                  "play blue_draw_two", "points Ann 10"],
                 {"hand_size": 2, "double_score": True, "stacking": True}, players=["Ann", "Bob"])
    assert table.state["hand_winner"] == "Bob" and cards(table)["Ann"] == 1 + 4
    assert table.state["history"][0]["points"]["Bob"] == 20


def test_house_double_score_bad_value():
    with pytest.raises(RulesError, match="takes true or false"):
        parse_rules({"double_score": 2})


# -------------------------------------------------------------------- uno_penalty 0-10
def test_house_uno_penalty_six():
    table = play(["flip red_5", "play red_1", "play red_2"], {"hand_size": 2, "uno_penalty": 6})
    assert kinds(table) == [("uno_penalty", "Bob")] and cards(table)["Bob"] == 7


def test_house_uno_penalty_with_stacking():
    table = play([*TWO_EACH, "play red_draw_two", "play blue_draw_two", "draw 4"],
                 {"hand_size": 3, "stacking": True, "uno_penalty": 6})
    assert cards(table)["Bob"] == 7


@pytest.mark.parametrize("value", [11, -1, "6", True])
def test_house_uno_penalty_range(value):
    with pytest.raises(RulesError, match="uno_penalty takes a whole number of cards 0-10"):
        parse_rules({"uno_penalty": value})


# -------------------------------------------------------------------- turn_seconds
def test_house_turn_seconds_is_a_table_option_the_engine_only_records():
    table = play(["flip red_5"], {"turn_seconds": 30, "stacking": True})
    assert table.state["rules"]["turn_seconds"] == 30 and table.state["turn"] == "Bob"


@pytest.mark.parametrize("value", [4, 601, "30", 2.5])
def test_house_turn_seconds_bad_values(value):
    with pytest.raises(RulesError, match="turn_seconds takes a whole number 5-600"):
        parse_rules({"turn_seconds": value})


def test_house_bad_option_in_a_game_event_changes_nothing():
    table = Table()
    notes = table.push({"type": "game", "players": ["Ann", "Bob"], "rules": {"deflect": "both"}})
    assert notes[0]["kind"] == "rejected" and "\n" not in notes[0]["message"]
    assert table.state["waiting_for"] == "game"


def test_house_hand_limit_lifts_when_nobody_can_move():
    # both at the limit: after a whole round of passes with no play or draw, one may draw
    table = play(["flip red_5", "draw", "pass", "draw", "pass", "draw"],
                 {"hand_limit": 8}, players=["Ann", "Bob"])
    assert kinds(table) == [("rejected", "Bob")] and cards(table) == {"Ann": 8, "Bob": 8}
    table.push(line("pass"))  # Bob passes at the limit
    table.push(line("draw"))
    assert kinds(table)[-1] == ("rejected", "Ann")
    table.push(line("pass"))  # and Ann: nobody could move
    table.push(line("draw"))
    assert len(kinds(table)) == 2 and cards(table)["Bob"] == 9
    table.push(line("pass"))
    table.push(line("draw"))  # a draw happened since: the limit holds again
    assert kinds(table)[-1] == ("rejected", "Ann")


# -------------------------------------------------------------------- with jump-in and 7-0
def test_house_zero_passes_hands_only_among_players_still_in():
    table = play(["flip red_5", "draw 3", "play red_0"], {"elimination": 10, "seven_zero": True})
    # Bob is out with 10; Cid's 6 go to Dee, Dee's 7 to Ann, Ann's 7 to Cid
    assert cards(table) == {"Ann": 7, "Bob": 10, "Cid": 7, "Dee": 6}
    assert table.state["turn"] == "Dee"


def test_house_a_player_out_cannot_jump_in():
    table = play(["flip red_5", "draw 3", "play red_6", "jump Bob red_6"],
                 {"elimination": 10, "jump_in": True})
    assert kinds(table)[-1] == ("rejected", "Bob") and "out of this hand" in last_message(table)
    table.push(line("jump Ann red_6"))
    assert table.state["turn"] == "Cid"  # Ann jumped in; Bob is skipped


def test_house_multiple_sevens_swap_once():
    table = play(["flip red_5", multi("red_7", "blue_7"), "target Dee"],
                 {"multiple_play": True, "seven_zero": True})
    assert cards(table) == {"Ann": 7, "Bob": 7, "Cid": 7, "Dee": 5}
    assert table.state["turn"] == "Cid"


def test_house_no_jump_in_on_a_deflectable_draw():
    table = play(["flip red_5", "play red_draw_two", "jump Ann red_draw_two"],
                 {"deflect": True, "jump_in": True})
    assert kinds(table) == [("rejected", "Ann")] and table.state["pending_draw"] == 2


def test_house_jump_in_may_not_go_out_on_a_forbidden_card():
    table = play(["flip red_5", "play red_1", "uno Bob", "play red_skip", "uno Cid",
                  "jump Bob red_skip"], {"jump_in": True, "no_action_finish": True, "hand_size": 2})
    assert kinds(table)[-1] == ("illegal_play", "Bob") and "no_action_finish" in last_message(table)
    table.push(line("take_back"))
    assert cards(table)["Bob"] == 3 and table.state["hand_winner"] is None


def test_house_uno_window_in_state_shows_a_victim_who_may_answer():
    rules = {"hand_size": 3, "stacking": True}
    table = play([*TWO_EACH, "play red_draw_two"], rules)
    assert table.state["uno_window"] == "Bob"
    table.push(line("play blue_draw_two"))
    assert table.state["uno_window"] == "Bob"  # down to one, until Cid begins
    plain = play([*TWO_EACH, "play wild_draw_four blue"], {"hand_size": 3})  # cannot answer
    assert plain.state["uno_window"] is None


def test_house_an_uno_call_counts_for_one_play():
    # Bob calls and plays a customizable skip down to one card, plays again (two players),
    # draws to two and plays to one: that second window needs a call of its own
    table = play(["flip red_5", "play red_1", "play red_2", "uno Bob", "play wild_customizable blue",
                  "draw", "play blue_3", "play blue_4"],
                 {"hand_size": 3, "deck": "modern", "customizable": "skip"}, players=["Ann", "Bob"])
    assert kinds(table) == [("uno_called", "Bob"), ("uno_penalty", "Bob")]
