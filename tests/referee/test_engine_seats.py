"""The `seats` extension: the same players in a new clockwise order, while a deal is awaited.

Same short notation as test_engine.py (default seats Ann, Bob, Cid, Dee).
"""
from __future__ import annotations

from companion.referee.engine import Table, replay
from test_engine import FOUR, line, play

ONE = {"hand_size": 1}
# hand 1 (Ann deals, Bob goes out at once), every loser's points in: waiting for the next deal
HAND_ONE = ["flip red_5", "play red_1", "points Cid 10", "points Dee 20", "points Ann 30"]


def seats(*names: str) -> dict:
    return {"type": "seats", "players": list(names)}


def order(table: Table) -> list[str]:
    return [p["name"] for p in table.state["players"]]


def test_seats_before_the_first_hand_set_the_turns():
    table = play([seats("Ann", "Cid", "Bob", "Dee"), "deal Ann", "flip red_5"], opening=())
    assert order(table) == ["Ann", "Cid", "Bob", "Dee"]
    assert table.state["turn"] == "Cid"  # the player after the dealer in the new order
    table.push(line("play red_1"))
    assert table.state["turn"] == "Bob"


def test_seats_between_hands_keep_scores_and_the_dealer_with_each_person():
    table = play([*HAND_ONE, seats("Dee", "Cid", "Bob", "Ann")], ONE)
    state = table.state
    assert order(table) == ["Dee", "Cid", "Bob", "Ann"]
    assert state["dealer"] == "Ann" and state["waiting_for"] == "deal"
    assert {p["name"]: (p["score"], p["hands_won"]) for p in state["players"]} == {
        "Ann": (0, 0), "Bob": (60, 1), "Cid": (0, 0), "Dee": (0, 0)}
    table.push(line("deal"))  # the rotation steps clockwise in the new order: after Ann, Dee
    table.push(line("flip red_5"))
    assert table.state["dealer"] == "Dee" and table.state["turn"] == "Cid"


def test_seats_mid_hand_are_refused_and_change_nothing():
    table = play(["flip red_5"])
    before = table.state
    table.push(seats("Ann", "Cid", "Bob", "Dee"))
    after = table.state
    assert after["notices"][-1]["message"] == "not now: waiting for a card"
    assert order(table) == FOUR and after["turn"] == before["turn"] == "Bob"


def test_seats_must_name_two_to_ten_different_players():
    for bad, said in ((["Ann", "Ann", "Cid", "Dee"], "player names must be different"),
                      ("Ann,Bob", '"players" must be a list of names, clockwise'),
                      (None, '"players" must be a list of names, clockwise'),
                      (["Ann", "Bob", "Cid", 4], '"players" must be a list of names, clockwise'),
                      (["Ann"], "UNO needs 2 to 10 players, not 1")):
        table = play([{"type": "seats", "players": bad}], opening=())
        assert table.state["notices"][-1]["message"] == said, bad
        assert order(table) == FOUR


def test_players_join_and_leave_between_hands_with_their_scores():
    # Bob won hand 1 with 60; Eve comes, Cid goes: the game goes on (rulebook silent: a real
    # table goes on rather than start again)
    table = play([*HAND_ONE, seats("Ann", "Bob", "Eve", "Dee")], ONE)
    state = table.state
    assert {p["name"]: (p["score"], p["hands_won"], p["cards"]) for p in state["players"]} == {
        "Ann": (0, 0, 1), "Bob": (60, 1, 0), "Eve": (0, 0, 0), "Dee": (0, 0, 1)}
    assert [n["message"] for n in state["notices"][-2:]] == ["Eve joins the game with 0 points",
                                                             "Cid leaves the game with 0 points"]
    assert state["history"] == [{"hand": 1, "winner": "Bob", "points": {"Ann": 0, "Bob": 60, "Cid": 0, "Dee": 0}}]
    for text in ("deal", "flip red_5"):  # Ann dealt hand 1: Bob deals, Eve plays first
        table.push(line(text))
    assert table.state["dealer"] == "Bob" and table.state["turn"] == "Eve"
    # undo takes the change back whole, and blames nobody (it said "a step by Eve")
    table = play([*HAND_ONE, seats("Ann", "Bob", "Eve", "Dee"), "undo"], ONE)
    assert order(table) == FOUR and [p["score"] for p in table.state["players"]] == [0, 60, 0, 0]
    undone = table.state["notices"][-1]
    assert undone["kind"] == "undone" and undone["player"] is None and undone["message"].endswith("undone: seats")


def test_a_hand_of_a_player_who_left_can_still_be_put_right():
    # lowest wins: Cid's 10 in hand 1 were 12; he has gone home since. Eve joined after it.
    table = play([*HAND_ONE, seats("Ann", "Bob", "Eve", "Dee"), "score_fix 1 Cid 12"], {**ONE, "scoring": "lowest_wins"})
    fixed = table.state["notices"][-1]
    assert (fixed["kind"], fixed["player"], fixed["message"]) == ("score_fixed", "Cid", "hand 1 fixed: Cid 12 points")
    assert table.state["history"][0]["points"]["Cid"] == 12
    table.push(line("score_fix 1 Eve 5"))
    assert table.state["notices"][-1]["message"] == "Eve did not play hand 1: they joined after it"


def test_a_dealer_who_leaves_hands_the_deal_on_round_the_table():
    table = play([*HAND_ONE, seats("Bob", "Cid", "Dee")], ONE)  # Ann dealt hand 1 and goes
    table.push(line("deal"))
    assert table.state["dealer"] == "Bob"  # after Ann, as if she were still there
    assert table.state["players"][0]["name"] == "Bob"


def test_with_teams_players_change_only_before_the_first_hand():
    table = play([seats("Ann", "Bob", "Cid", "Eve")], {"teams": True}, opening=())
    assert [t["players"] for t in table.state["teams"]] == [["Ann", "Cid"], ["Bob", "Eve"]]
    table = play([*HAND_ONE, seats("Ann", "Bob", "Cid", "Eve")], {**ONE, "teams": True})
    assert table.state["notices"][-1]["message"].startswith("teams: the same players play the whole game")
    assert order(table) == FOUR


def test_seats_with_teams_remake_teams_before_play_and_keep_partners_after():
    table = play([seats("Ann", "Bob", "Dee", "Cid")], {"teams": True}, opening=())
    assert [t["players"] for t in table.state["teams"]] == [["Ann", "Dee"], ["Bob", "Cid"]]
    table = play([*HAND_ONE, seats("Ann", "Cid", "Bob", "Dee")], {**ONE, "teams": True})
    assert table.state["notices"][-1]["message"] == "teams: partners sit in alternate seats, not Ann beside Cid"
    table.push(seats("Bob", "Cid", "Dee", "Ann"))  # partners still alternate: accepted
    assert order(table) == ["Bob", "Cid", "Dee", "Ann"]
    assert [sorted(t["players"]) for t in table.state["teams"]] == [["Ann", "Cid"], ["Bob", "Dee"]]


def test_seats_undo_and_replay():
    table = play([*HAND_ONE, seats("Dee", "Cid", "Bob", "Ann")], ONE)
    again = replay(table.events)
    assert again.state == table.state
    table.push(line("undo"))
    assert order(table) == FOUR and table.state["dealer"] == "Ann"
