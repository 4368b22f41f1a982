"""The JSON API for league night, a revealed hand typed by the host, and "I drew N"."""
from __future__ import annotations

import pytest

from companion.referee.simulate import simulate_games
from test_web import PIN, _phone, _seat, app, host, referee  # noqa: F401  (fixtures)


def _play_games(referee, seeds, players=3):
    for seed in seeds:
        for ev in simulate_games(players, 1, seed, {"hands": 1}, mistakes=False):
            referee.submit(ev, source="test")


def test_league_api_standings_after_three_games(app, host, referee):
    resp = host.post("/api/host/league", json={"name": "Thursday", "victory_points": [12, 6, 2]})
    assert resp.status_code == 200 and resp.get_json()["victory_points"] == [12, 6, 2]
    league_id = resp.get_json()["id"]
    _play_games(referee, (1, 2, 3))
    phone = app.test_client()
    assert phone.get("/api/leagues").get_json()["leagues"][0]["games"] == 3
    body = phone.get("/api/league/newest").get_json()
    assert body["league"]["id"] == league_id and len(body["games"]) == 3
    table = body["table"]
    assert sum(r["victory_points"] for r in table) == 3 * 20
    assert sum(r["games_won"] for r in table) == 3
    assert all(len(series) == 3 for series in body["series"].values())
    assert [r["victory_points"] for r in table] == sorted((r["victory_points"] for r in table), reverse=True)
    assert phone.get(f"/api/league/{league_id}").get_json() == body


def test_league_api_bad_requests_change_nothing(app, host, referee):
    # each refusal has its own words (no English reason inside an Italian sentence)
    for body, key in (({"name": "x", "victory_points": [1, 5]}, "err.victory_points"), ({"name": ""}, "err.league_name"),
                      ({"name": "x", "victory_points": "lots"}, "err.victory_points"),
                      ({"name": "x" * 81}, "err.league_name_long")):
        resp = host.post("/api/host/league", json=body)
        assert resp.status_code == 400 and resp.get_json()["say"]["k"] == key, body
    assert app.test_client().get("/api/leagues").get_json()["leagues"] == []
    resp = app.test_client().get("/api/league/newest")
    assert resp.status_code == 404 and resp.get_json()["say"]["k"] == "err.no_league_yet"
    resp = app.test_client().get("/api/league/nope")
    assert resp.status_code == 404 and resp.get_json()["say"] == {"k": "err.no_league", "a": {"league": "'nope'"}}
    phone = _phone(app)
    assert phone.post("/api/host/league", json={"name": "sneaky"}).status_code in (401, 403)


def test_league_api_add_an_older_game(app, host, referee):
    _play_games(referee, (7,))
    older = referee.game_id
    league_id = host.post("/api/host/league", json={"name": "Season"}).get_json()["id"]
    resp = host.post(f"/api/host/league/{league_id}/games", json={"game": older})
    assert resp.status_code == 200 and resp.get_json()["finished"] is True
    assert resp.get_json()["say"]["k"] == "done.league_added"
    again = host.post(f"/api/host/league/{league_id}/games", json={"game": older})
    assert again.get_json()["already"] is True and again.get_json()["say"]["k"] == "done.league_already"
    # which of the two is wrong, the league or the game, is said
    resp = host.post(f"/api/host/league/{league_id}/games", json={"game": "nope"})
    assert resp.status_code == 404 and resp.get_json()["say"]["k"] == "err.no_stored_game"
    resp = host.post("/api/host/league/lnope/games", json={"game": older})
    assert resp.status_code == 404 and resp.get_json()["say"]["k"] == "err.no_league"
    assert len(app.test_client().get("/api/league/newest").get_json()["games"]) == 1
    assert host.post(f"/api/host/league/{league_id}/close").status_code == 200


def _to_scores(referee):
    for ev in [{"type": "game", "players": ["Ann", "Bob", "Cat"], "rules": {"hand_size": 1}},
               {"type": "deal", "dealer": "Cat"}, {"type": "flip", "card": "red_5"},
               {"type": "play", "card": "red_7"}]:
        referee.submit(ev, source="test")
    assert referee.state["waiting_for"] == "scores"


def test_host_types_a_revealed_hand_and_the_points_are_computed(host, referee):
    _to_scores(referee)
    resp = host.post("/api/host/reveal", json={"player": "Bob", "cards": "red_9 wild, blue_skip"})
    assert resp.status_code == 200 and resp.get_json()["points"] == 9 + 50 + 20
    resp = host.post("/api/host/reveal", json={"player": "Cat", "cards": ["green_3"]})
    assert referee.state["history"][0]["points"]["Ann"] == 79 + 3


def test_host_reveal_unknown_card_is_a_400_and_changes_nothing(host, referee):
    _to_scores(referee)
    before = len(referee.events)
    resp = host.post("/api/host/reveal", json={"player": "Bob", "cards": ["red_9", "red_99"]})
    assert resp.status_code == 400 and "unknown card 'red_99'" in resp.get_json()["error"]
    assert host.post("/api/host/reveal", json={"player": "Zed", "cards": []}).status_code == 400
    assert host.post("/api/host/reveal", json={"player": "Bob", "cards": 5}).status_code == 400
    # a real card name that this game's deck does not hold: refused the same way, nothing stored
    resp = host.post("/api/host/reveal", json={"player": "Bob", "cards": ["red_9", "wild_shuffle_hands"]})
    assert resp.status_code == 400 and resp.get_json()["say"]["k"] == "err.not_in_deck"
    assert len(referee.events) == before


def test_host_reveal_judges_a_challenge(host, referee):
    for ev in [{"type": "game", "players": ["Ann", "Bob", "Cat"]}, {"type": "deal", "dealer": "Cat"},
               {"type": "flip", "card": "red_5"}, {"type": "play", "card": "wild_draw_four", "color": "blue"},
               {"type": "challenge"}]:
        referee.submit(ev, source="test")
    cards = ["red_1", "blue_2", "green_3", "yellow_4", "wild", "red_skip"]
    resp = host.post("/api/host/reveal", json={"cards": cards})
    assert resp.status_code == 200
    kinds = [n["kind"] for n in resp.get_json()["notices"]]
    assert kinds == ["challenge_upheld"] and "points" not in resp.get_json()  # evidence, not a score
    assert {p["name"]: p["cards"] for p in referee.state["players"]}["Ann"] == 10


def test_phone_says_how_many_it_drew_for_a_dementor(app, host, referee):
    for ev in [{"type": "game", "players": ["Ann", "Bob", "Cat"], "rules": {"dementor": 2}},
               {"type": "deal", "dealer": "Cat"}, {"type": "flip", "card": "red_5"},
               {"type": "play", "card": "dementor", "color": "green"}]:
        referee.submit(ev, source="test")
    bob = _seat(app, "Bob")
    assert bob.post("/api/act", json={"action": "draw", "count": 0}).status_code == 400
    assert bob.post("/api/act", json={"action": "draw", "count": 3}).status_code == 200
    state = referee.state
    assert {p["name"]: p["cards"] for p in state["players"]}["Bob"] == 10
    assert state["turn"] == "Cat" and state["draw_until"] is None


def test_phone_names_a_dark_colour_on_the_flip_side(app, host, referee):
    for ev in [{"type": "game", "players": ["Ann", "Bob", "Cat"], "rules": {"deck": "flip"}},
               {"type": "deal", "dealer": "Cat"}, {"type": "flip", "card": "red_5"},
               {"type": "play", "card": "red_flip"}, {"type": "flip", "card": "dark_wild"}]:
        referee.submit(ev, source="test")
    ann = _seat(app, "Ann")
    resp = ann.post("/api/act", json={"action": "color", "color": "red"})
    assert resp.status_code == 409 and "dark side" in resp.get_json()["error"]
    assert ann.post("/api/act", json={"action": "color", "color": "teal"}).status_code == 200
    assert referee.state["color"] == "teal"
