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


def test_seats_must_name_the_same_players():
    for bad in (["Ann", "Bob", "Cid"], ["Ann", "Bob", "Cid", "Eve"], ["Ann", "Ann", "Cid", "Dee"], "Ann,Bob", None,
                ["Ann", "Bob", "Cid", 4]):
        table = play([{"type": "seats", "players": bad}], opening=())
        message = table.state["notices"][-1]["message"]
        assert message.startswith('"players" must be the same 4 players in a new order'), (bad, message)
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
