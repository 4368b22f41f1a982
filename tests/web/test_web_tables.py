"""The phone page by table mode (phones only, camera, demo) and the words it answers with:
refusals only to their sender, in catalogue keys the page shows in the phone's language."""
from __future__ import annotations

import re

import pytest

from companion.referee.service import Referee
from companion.referee.store import EventStore
from web import create_app
from web.i18n import t
from web.lan import qr_svg

PIN = "4321"
PLAYERS = ["Ann", "Bob", "Cat"]


def _client(app):
    client = app.test_client()
    html = client.get("/").get_data(as_text=True)
    client.environ_base["HTTP_X_CSRF_TOKEN"] = re.search(r'name="csrf" content="([^"]+)"', html).group(1)
    return client


def _table(tmp_path, mode):
    referee = Referee(EventStore(tmp_path / "games.db"))
    app = create_app({"HOST_PIN": PIN, "TESTING": True, "TABLE_MODE": mode}, referee=referee)
    host = _client(app)
    assert host.post("/api/host/login", json={"pin": PIN}).status_code == 200
    if mode == "demo":  # the demo's game is the recorded one: its bot starts it, not the host
        referee.submit({"type": "game", "players": PLAYERS}, source="demo-bot")
        referee.submit({"type": "deal", "dealer": "Cat"}, source="demo-bot")
    else:
        assert host.post("/api/host/game", json={"players": PLAYERS}).status_code == 200
        assert host.post("/api/host/deal", json={"dealer": "Cat"}).status_code == 200
    seats = {}
    for name in PLAYERS:
        seats[name] = _client(app)
        resp = seats[name].post("/api/seat", json={"player": name})
        if mode == "demo":  # phones watch the recorded game: no seat to take
            assert resp.status_code == 403 and resp.get_json()["say"]["k"] == "err.demo"
        else:
            assert resp.status_code == 200
    return app, referee, host, seats


def test_phones_only_a_hand_from_flip_to_points(tmp_path):
    app, referee, host, seat = _table(tmp_path, "none")
    # Only the dealer's phone turns up the first card; the host may too.
    resp = seat["Ann"].post("/api/act", json={"action": "flip", "card": "red_5"})
    assert resp.status_code == 403 and resp.get_json()["say"]["k"] == "err.not_dealer"
    assert seat["Cat"].post("/api/act", json={"action": "flip", "card": "red_5"}).status_code == 200
    assert referee.state["top"] == "red_5" and referee.state["turn"] == "Ann"
    # A card tapped out of turn changes nothing and says whose turn it is, to that phone only.
    before = len(referee.events)
    resp = seat["Bob"].post("/api/act", json={"action": "play", "card": "red_6"})
    assert resp.status_code == 403 and resp.get_json()["say"] == {"k": "err.not_your_move", "a": {"player": "Ann"}}
    assert resp.get_json()["error"] == "not your move: the table waits for Ann (a card)"  # words, not a phase name
    assert len(referee.events) == before
    bad = seat["Ann"].post("/api/act", json={"action": "play", "card": "red_55"})
    assert bad.status_code == 400 and len(referee.events) == before
    assert bad.get_json()["say"] == {"k": "err.unknown_card_suggest", "a": {"name": "red_55", "card": "red_5"}}
    assert seat["Ann"].post("/api/act", json={"action": "play", "card": "red_6"}).status_code == 200
    assert host.post("/api/host/card", json={"type": "play", "card": "red_7"}).status_code == 200  # Bob's, by the host
    assert referee.state["turn"] == "Cat" and referee.state["top"] == "red_7"
    # An illegal card: the referee says so to everyone; the phone's refusal stays on the phone.
    assert seat["Cat"].post("/api/act", json={"action": "pass"}).status_code == 409
    state = app.test_client().get("/api/state").get_json()
    assert [n for n in state["notices"] if n["kind"] == "rejected"] == []
    refused = host.get("/api/host/refused").get_json()["refused"]
    assert refused[-1]["say"]["k"] == "err.draw_first" and refused[-1]["what"] == {"type": "pass"}
    assert seat["Ann"].get("/api/host/refused").status_code == 403
    # The host undoes the card entered for Bob: it is Bob's turn again.
    assert host.post("/api/host/undo", json={}).status_code == 200
    assert referee.state["turn"] == "Bob"


def test_phones_only_a_wrong_card_is_taken_back_from_its_phone_or_left_standing_by_the_next(tmp_path):
    app, referee, host, seat = _table(tmp_path, "none")
    assert seat["Cat"].post("/api/act", json={"action": "flip", "card": "red_5"}).status_code == 200
    assert seat["Ann"].post("/api/act", json={"action": "play", "card": "blue_3"}).status_code == 200  # wrong
    assert referee.state["waiting_for"] == "take_back" and referee.state["stands_for"] == "Bob"
    # only the next player may leave it standing, by playing (or drawing) on it
    resp = seat["Cat"].post("/api/act", json={"action": "play", "card": "blue_4"})
    assert resp.status_code == 403 and resp.get_json()["say"] == {"k": "err.not_your_move", "a": {"player": "Ann"}}
    assert seat["Bob"].post("/api/act", json={"action": "play", "card": "blue_4"}).status_code == 200
    state = referee.state
    assert state["top"] == "blue_4" and state["waiting_for"] == "play" and state["turn"] == "Cat"
    # a wrong card taken back: its player says so from their phone (no host needed)
    assert seat["Cat"].post("/api/act", json={"action": "play", "card": "yellow_9"}).status_code == 200
    assert seat["Ann"].post("/api/act", json={"action": "take_back"}).status_code == 403
    cat = next(p["cards"] for p in referee.state["players"] if p["name"] == "Cat")
    assert seat["Cat"].post("/api/act", json={"action": "take_back"}).status_code == 200
    state = referee.state
    assert state["top"] == "blue_4" and state["waiting_for"] == "play" and state["turn"] == "Ann"
    assert next(p["cards"] for p in state["players"] if p["name"] == "Cat") == cat + 1 + 2  # back, plus 2
    # the next player's draw leaves a wrong card standing too
    assert seat["Ann"].post("/api/act", json={"action": "play", "card": "green_8"}).status_code == 200
    assert seat["Bob"].post("/api/act", json={"action": "draw"}).status_code == 200
    state = referee.state
    assert state["top"] == "green_8" and state["turn"] == "Bob" and state["drawn"]


def _cards(referee, name):
    return next(p["cards"] for p in referee.state["players"] if p["name"] == name)


def test_phones_only_cards_coming_to_a_player_are_answered_or_drawn_from_their_phone(tmp_path):
    # A card the victim tapped that does not answer was counted as the next player's play (the
    # camera's reading of the table-log rule): Bob's red 5 came off Cat's count.
    app, referee, host, seat = _table(tmp_path, "none")
    assert host.post("/api/host/game", json={"players": PLAYERS, "rules": {"stacking": True}}).status_code == 200
    assert host.post("/api/host/deal", json={"dealer": "Cat"}).status_code == 200
    assert seat["Cat"].post("/api/act", json={"action": "flip", "card": "red_5"}).status_code == 200
    assert seat["Ann"].post("/api/act", json={"action": "play", "card": "red_draw_two"}).status_code == 200
    before, counts = len(referee.events), {n: _cards(referee, n) for n in PLAYERS}
    for card in ("red_5", "wild_draw_four", "green_5"):
        resp = seat["Bob"].post("/api/act", json={"action": "play", "card": card})
        assert resp.status_code == 403, card
        assert resp.get_json()["say"] == {"k": "err.must_answer", "a": {"n": 2}}
        assert t("err.must_answer", "en", {"n": 2}) == "2 cards are coming to you: only a card that answers them can be played, or Draw to take them"
    assert len(referee.events) == before and {n: _cards(referee, n) for n in PLAYERS} == counts
    # a draw two answers: Cat now owes 4, and takes them from her phone
    assert seat["Bob"].post("/api/act", json={"action": "play", "card": "blue_draw_two"}).status_code == 200
    assert referee.state["pending_draw"] == 4 and referee.state["turn"] == "Cat"
    assert seat["Cat"].post("/api/act", json={"action": "draw"}).status_code == 200
    assert _cards(referee, "Cat") == counts["Cat"] + 4 and referee.state["turn"] == "Ann"
    # a wild draw four's victim, while they may challenge, plays no card either
    assert seat["Ann"].post("/api/act", json={"action": "play", "card": "wild_draw_four"}).status_code == 200
    assert seat["Ann"].post("/api/act", json={"action": "color", "color": "green"}).status_code == 200
    assert referee.state["waiting_for"] == "challenge" and referee.state["turn"] == "Bob"
    resp = seat["Bob"].post("/api/act", json={"action": "play", "card": "green_5"})
    assert resp.status_code == 403 and resp.get_json()["say"] == {"k": "err.must_answer", "a": {"n": 4}}
    assert referee.state["waiting_for"] == "challenge" and referee.state["turn"] == "Bob"


def test_phones_only_a_jump_in_is_the_jumpers_from_their_phone_or_the_host(tmp_path):
    app, referee, host, seat = _table(tmp_path, "none")
    assert host.post("/api/host/game", json={"players": PLAYERS, "rules": {"jump_in": True}}).status_code == 200
    for name in PLAYERS:  # a new game frees the seats
        assert seat[name].post("/api/seat", json={"player": name}).status_code == 200
    assert host.post("/api/host/deal", json={"dealer": "Cat"}).status_code == 200
    assert seat["Cat"].post("/api/act", json={"action": "flip", "card": "red_5"}).status_code == 200
    assert seat["Ann"].post("/api/act", json={"action": "play", "card": "red_6"}).status_code == 200
    # Ann's red 6 is on the pile and it is Bob's turn: Cat jumps in with the other red 6
    before = {n: _cards(referee, n) for n in PLAYERS}
    assert seat["Cat"].post("/api/act", json={"action": "play", "card": "red_6"}).status_code == 200
    assert _cards(referee, "Cat") == before["Cat"] - 1 and _cards(referee, "Bob") == before["Bob"]
    assert referee.state["turn"] == "Ann"  # play goes on from the jumper
    # not the identical card: refused to that phone alone, nothing stored
    events = len(referee.events)
    resp = seat["Cat"].post("/api/act", json={"action": "play", "card": "red_7"})
    assert resp.status_code == 403 and resp.get_json()["say"] == {"k": "err.not_your_move", "a": {"player": "Ann"}}
    assert len(referee.events) == events
    assert _cards(referee, "Cat") == before["Cat"] - 1 and referee.state["turn"] == "Ann"
    # a jump-in the host enters is the named player's, not the player on turn's
    assert seat["Ann"].post("/api/act", json={"action": "play", "card": "red_9"}).status_code == 200
    assert host.post("/api/host/card", json={"type": "play", "card": "red_9", "player": "Cat"}).status_code == 200
    assert _cards(referee, "Cat") == before["Cat"] - 2 and _cards(referee, "Bob") == before["Bob"]
    assert referee.state["turn"] == "Ann" and len(referee.events) == events + 2


def _camera_jump_in_table(tmp_path):
    """A camera table playing jump-in: Cat turned up a red 5, the camera saw Ann's red 6 and a
    second red 6, which it credits to Bob, on turn."""
    app, referee, host, seat = _table(tmp_path, "camera")
    assert host.post("/api/host/game", json={"players": PLAYERS, "rules": {"jump_in": True}}).status_code == 200
    for name in PLAYERS:  # a new game frees the seats
        assert seat[name].post("/api/seat", json={"player": name}).status_code == 200
    assert host.post("/api/host/deal", json={"dealer": "Cat"}).status_code == 200
    for card in ("red_5", "red_6", "red_6"):
        referee.submit({"type": "lay", "card": card, "top": [[card, 0.98]]}, source="camera")
    return referee, seat


def test_camera_a_jump_in_credited_to_the_player_on_turn_is_claimed_by_the_jumpers_phone(tmp_path):
    referee, seat = _camera_jump_in_table(tmp_path)
    assert referee.state["turn"] == "Cat"  # the camera gave the second red 6 to Bob
    before = {n: _cards(referee, n) for n in PLAYERS}
    # Bob was on turn and is not the one who claims it; Cat slapped it down
    resp = seat["Bob"].post("/api/act", json={"action": "jumped_in"})
    assert resp.status_code == 409 and resp.get_json()["say"] == {
        "k": "err.claimed", "a": {"card": "red_6", "player": "Bob"}}
    resp = seat["Cat"].post("/api/act", json={"action": "jumped_in"}, headers={"X-Request-Id": "claim-0001"})
    assert resp.status_code == 200
    assert _cards(referee, "Cat") == before["Cat"] - 1 and _cards(referee, "Bob") == before["Bob"] + 1
    assert referee.state["turn"] == "Ann"  # play goes on from the jumper
    stored = referee.store.events(referee.game_id)
    assert stored[-1] == {"type": "correct", "event": len(stored) - 2, "player": "Cat"}  # one line: the second red 6
    # the phone's retry of that tap changes nothing; a second claim is refused, nothing stored
    again = seat["Cat"].post("/api/act", json={"action": "jumped_in"}, headers={"X-Request-Id": "claim-0001"})
    assert again.status_code == 200 and again.headers.get("X-Replayed") == "1"
    resp = seat["Ann"].post("/api/act", json={"action": "jumped_in"})
    assert resp.status_code == 409 and resp.get_json()["say"]["k"] == "err.claimed"
    assert len(referee.store.events(referee.game_id)) == len(stored)


def test_camera_no_jump_in_to_claim_changes_nothing(tmp_path):
    referee, seat = _camera_jump_in_table(tmp_path)
    referee.submit({"type": "lay", "card": "red_9", "top": [["red_9", 0.98]]}, source="camera")  # not on its twin
    stored = len(referee.store.events(referee.game_id))
    resp = seat["Ann"].post("/api/act", json={"action": "jumped_in"})
    assert resp.status_code == 409 and resp.get_json()["say"]["k"] == "err.no_claim"
    assert len(referee.store.events(referee.game_id)) == stored
    # and a table that does not play jump-in, or has no camera, says so
    app, plain, host, seats = _table(tmp_path / "plain", "camera")
    resp = seats["Ann"].post("/api/act", json={"action": "jumped_in"})
    assert resp.status_code == 403 and resp.get_json()["say"]["k"] == "err.claim_no_jump_in"
    app, nocam, host, seats = _table(tmp_path / "nocam", "none")
    resp = seats["Ann"].post("/api/act", json={"action": "jumped_in"})
    assert resp.status_code == 403 and resp.get_json()["say"]["k"] == "err.claim_no_camera"


def test_phones_only_without_jump_in_the_hosts_named_player_must_be_on_turn(tmp_path):
    app, referee, host, seat = _table(tmp_path, "none")
    assert seat["Cat"].post("/api/act", json={"action": "flip", "card": "red_5"}).status_code == 200
    state = referee.state
    resp = host.post("/api/host/card", json={"type": "play", "card": "red_5", "player": "Bob"})
    assert resp.status_code == 409 and referee.state["turn"] == "Ann"  # not silently Ann's card
    assert [p["cards"] for p in referee.state["players"]] == [p["cards"] for p in state["players"]]
    assert host.post("/api/host/card", json={"type": "play", "card": "red_6", "player": "Dee"}).status_code == 400
    assert host.post("/api/host/card", json={"type": "play", "card": "red_6", "player": "Ann"}).status_code == 200
    assert referee.state["turn"] == "Bob"


def test_a_new_game_taken_back_gives_the_game_back_with_its_phones_in_their_seats(tmp_path):
    app, referee, host, seat = _table(tmp_path, "none")
    assert seat["Cat"].post("/api/act", json={"action": "flip", "card": "red_5"}).status_code == 200
    playing, state = referee.game_id, referee.state
    assert host.post("/api/host/game", json={"players": ["Dee", "Eve"]}).status_code == 200  # by mistake
    assert seat["Ann"].post("/api/act", json={"action": "draw"}).status_code == 403  # unseated
    assert host.post("/api/host/undo", json={}).status_code == 200
    assert referee.game_id == playing and referee.state["top"] == state["top"]
    assert sorted(host.get("/api/host/seats").get_json()["taken"]) == sorted(PLAYERS)
    assert seat["Ann"].post("/api/act", json={"action": "play", "card": "red_6"}).status_code == 200
    assert referee.state["turn"] == "Bob"


def test_a_new_game_taken_back_after_a_restart_gives_the_phones_their_seats_back(tmp_path):
    # New game by mistake, the companion restarts (a power cut), then Undo: the freed seats
    # were kept on disk with the seats, so the same phones have them again.
    def start():
        referee = Referee(EventStore(tmp_path / "games.db"))
        app = create_app({"HOST_PIN": PIN, "TESTING": True, "TABLE_MODE": "none",
                          "ACCESS_DB": str(tmp_path / "access.db")}, referee=referee)
        host = _client(app)
        assert host.post("/api/host/login", json={"pin": PIN}).status_code == 200
        return app, referee, host

    app, referee, host = start()
    assert host.post("/api/host/game", json={"players": PLAYERS}).status_code == 200
    assert host.post("/api/host/deal", json={"dealer": "Cat"}).status_code == 200
    for name in PLAYERS:
        assert _client(app).post("/api/seat", json={"player": name}).status_code == 200
    assert host.post("/api/host/card", json={"type": "flip", "card": "red_5"}).status_code == 200
    playing = referee.game_id
    assert host.post("/api/host/game", json={"players": ["Xia", "Yul"]}).status_code == 200  # by mistake
    assert host.get("/api/host/seats").get_json()["taken"] == []
    referee.store.close()
    app, referee, host = start()  # the restart
    assert host.post("/api/host/undo", json={}).status_code == 200
    assert referee.game_id == playing and referee.state["top"] == "red_5"
    assert sorted(host.get("/api/host/seats").get_json()["taken"]) == sorted(PLAYERS)


def test_new_game_twice_then_undo_twice_gives_the_first_game_its_phones_back(tmp_path):
    app, referee, host, seat = _table(tmp_path, "none")
    assert seat["Cat"].post("/api/act", json={"action": "flip", "card": "red_5"}).status_code == 200
    playing = referee.game_id
    assert host.post("/api/host/game", json={"players": ["Dee", "Eve"]}).status_code == 200
    assert _client(app).post("/api/seat", json={"player": "Dee"}).status_code == 200
    assert host.post("/api/host/game", json={"players": ["Fay", "Gus"]}).status_code == 200
    assert host.post("/api/host/undo", json={}).status_code == 200
    assert host.get("/api/host/seats").get_json()["taken"] == ["Dee"]  # Dee and Eve's game, Dee seated
    assert host.post("/api/host/undo", json={}).status_code == 200
    assert referee.game_id == playing
    assert sorted(host.get("/api/host/seats").get_json()["taken"]) == sorted(PLAYERS)
    assert seat["Ann"].post("/api/act", json={"action": "play", "card": "red_6"}).status_code == 200


def test_a_score_fix_the_game_cannot_take_is_a_400_and_nothing_is_stored(tmp_path):
    app, referee, host, seat = _table(tmp_path, "none")
    before = len(referee.events)
    resp = host.post("/api/host/score_fix", json={"hand": 1, "player": "Bob", "points": -5})
    assert resp.status_code == 400 and resp.get_json()["say"]["k"] == "err.bad_points"
    resp = host.post("/api/host/score_fix", json={"hand": 1, "player": "Bob", "points": 5})  # no hand played yet
    assert resp.status_code == 400 and resp.get_json()["say"] == {"k": "err.no_hand_fix", "a": {"hand": 1}}
    assert len(referee.events) == before and host.get("/api/host/refused").get_json() == {"refused": []}


def test_a_losers_points_cannot_be_fixed_where_the_winner_takes_them(tmp_path):
    # Cid lost hand 1 to Ann: his miscounted cards are Ann's points; a fix giving Cid points
    # would rank him above players in a hand he lost
    referee = Referee(EventStore(tmp_path / "games.db"))
    app = create_app({"HOST_PIN": PIN, "TESTING": True, "TABLE_MODE": "none"}, referee=referee)
    host = _client(app)
    assert host.post("/api/host/login", json={"pin": PIN}).status_code == 200
    for event in ({"type": "game", "players": ["Ann", "Bob", "Cid"], "rules": {"hand_size": 1, "target": 500}},
                  {"type": "deal", "dealer": "Cid"}, {"type": "flip", "card": "red_5"},
                  {"type": "play", "card": "red_1"}, {"type": "points", "player": "Bob", "points": 18},
                  {"type": "points", "player": "Cid", "points": 62}):
        referee.submit(event, source="host")
    before = len(referee.events)
    resp = host.post("/api/host/score_fix", json={"hand": 1, "player": "Cid", "points": 72})
    assert resp.status_code == 400
    assert resp.get_json()["say"] == {"k": "err.fix_loser", "a": {"winner": "Ann", "hand": 1, "player": "Cid"}}
    assert t("err.fix_loser", "it", resp.get_json()["say"]["a"]).startswith("Solo Ann segna punti nella mano 1")
    assert len(referee.events) == before
    assert {p["name"]: p["score"] for p in referee.state["players"]} == {"Ann": 80, "Bob": 0, "Cid": 0}
    # the fix the message asks for: the winner's points, with Cid's count put right
    assert host.post("/api/host/score_fix", json={"hand": 1, "player": "Ann", "points": 90}).status_code == 200
    assert {p["name"]: p["score"] for p in referee.state["players"]} == {"Ann": 90, "Bob": 0, "Cid": 0}


def test_with_a_camera_the_camera_sees_a_wrong_card_taken_back(tmp_path):
    app, referee, host, seat = _table(tmp_path, "camera")
    referee.submit({"type": "flip", "card": "red_5"}, source="camera")
    referee.submit({"type": "play", "card": "blue_3"}, source="camera")
    resp = seat["Ann"].post("/api/act", json={"action": "take_back"})
    assert resp.status_code == 403 and resp.get_json()["say"]["k"] == "err.camera_plays"
    assert seat["Bob"].post("/api/act", json={"action": "draw"}).status_code == 200  # a draw leaves it standing
    assert referee.state["top"] == "blue_3" and referee.state["turn"] == "Bob"


def test_a_phone_cannot_score_a_big_hand_at_zero(tmp_path):
    # nine cards score at least 5 (four zeros, five ones): a 0 typed by mistake, or on purpose,
    # would take a hand's points from the winner
    app, referee, host, seat = _table(tmp_path, "none")
    for event in ({"type": "game", "players": PLAYERS, "rules": {"hand_size": 1}}, {"type": "deal", "dealer": "Ann"},
                  {"type": "flip", "card": "red_5"}, {"type": "draw", "count": 8}, {"type": "pass"},
                  {"type": "play", "card": "red_2"}):  # Bob draws 8 and passes, Cat goes out
        referee.submit(event, source="host")
    for name in PLAYERS:
        assert seat[name].post("/api/seat", json={"player": name}).status_code == 200
    assert referee.state["hand_winner"] == "Cat"
    resp = seat["Bob"].post("/api/act", json={"action": "points", "points": 0})
    assert resp.status_code == 400 and resp.get_json()["say"] == {"k": "err.points_under_hand", "a": {"n": 9, "least": 5}}
    assert "Bob" in referee.state["points_due"]  # nothing stored
    assert seat["Ann"].post("/api/act", json={"action": "points", "points": 0}).status_code == 200  # one card: a zero
    assert seat["Bob"].post("/api/act", json={"action": "points", "points": 5}).status_code == 200


def test_phones_only_points_from_the_seat_and_reveal_from_the_host(tmp_path):
    app, referee, host, seat = _table(tmp_path, "none")
    for event in ({"type": "game", "players": PLAYERS, "rules": {"hand_size": 1}}, {"type": "deal", "dealer": "Cat"}):
        referee.submit(event, source="host")
    assert host.post("/api/host/card", json={"type": "flip", "card": "red_5"}).status_code == 200
    # the new game freed the seats: sit again
    for name in PLAYERS:
        assert seat[name].post("/api/seat", json={"player": name}).status_code == 200
    assert seat["Ann"].post("/api/act", json={"action": "play", "card": "red_2"}).status_code == 200
    assert referee.state["waiting_for"] == "scores" and referee.state["hand_winner"] == "Ann"
    assert seat["Ann"].post("/api/act", json={"action": "points", "points": 3}).get_json()["say"]["k"] == "err.points_winner"
    resp = seat["Bob"].post("/api/act", json={"action": "points", "points": -1})
    assert resp.status_code == 400 and resp.get_json()["say"]["k"] == "err.bad_points"
    # a typo: Bob's one card scores at most 50 (a wild); the host may enter more, not past the deck
    resp = seat["Bob"].post("/api/act", json={"action": "points", "points": 90})
    assert resp.status_code == 400 and resp.get_json()["say"] == {"k": "err.points_over_hand", "a": {"n": 1, "most": 50}}
    resp = host.post("/api/host/points", json={"player": "Bob", "points": 1_000_000})
    assert resp.status_code == 400 and resp.get_json()["say"] == {"k": "err.points_over_deck", "a": {"most": 1240}}
    assert referee.state["waiting_for"] == "scores" and referee.state["history"] == []
    assert app.test_client().get("/api/state").get_json()["points_due"] == ["Bob", "Cat"]
    assert seat["Bob"].post("/api/act", json={"action": "points", "points": 9}).status_code == 200
    # Bob's phone stops asking for his points; Cat's still asks for hers
    assert app.test_client().get("/api/state").get_json()["points_due"] == ["Cat"]
    resp = host.post("/api/host/reveal", json={"player": "Cat", "cards": ["blue_9", "green_skip"]})
    assert resp.status_code == 200
    assert host.post("/api/host/reveal", json={"player": "Cat", "cards": ["purple"]}).status_code == 400
    ann = next(p for p in referee.state["players"] if p["name"] == "Ann")
    assert ann["score"] == 9 + 29 and referee.state["waiting_for"] == "deal"
    # the public state never names the revealed card
    public = app.test_client().get("/api/state").get_data(as_text=True)
    assert "blue_9" not in public and "green_skip" not in public


def test_with_a_camera_phones_do_not_enter_cards(tmp_path):
    app, referee, host, seat = _table(tmp_path, "camera")
    referee.submit({"type": "flip", "card": "red_5"}, source="camera")
    resp = seat["Ann"].post("/api/act", json={"action": "play", "card": "red_6"})
    assert resp.status_code == 403 and resp.get_json()["say"]["k"] == "err.camera_plays"
    assert referee.state["top"] == "red_5"
    assert seat["Ann"].post("/api/act", json={"action": "draw"}).status_code == 200


def test_demo_table_is_read_only_for_phones(tmp_path):
    app, referee, host, seat = _table(tmp_path, "demo")
    referee.submit({"type": "flip", "card": "red_5"}, source="camera")
    n = len(referee.events)
    for body in ({"action": "draw"}, {"action": "uno"}, {"action": "catch"}):
        resp = seat["Ann"].post("/api/act", json=body)
        assert resp.status_code == 403 and resp.get_json()["say"]["k"] == "err.demo"
    assert len(referee.events) == n


def test_refusals_carry_words_for_people(tmp_path):
    app, referee, host, seat = _table(tmp_path, "camera")
    referee.submit({"type": "flip", "card": "red_5"}, source="camera")
    stranger = _client(app)
    assert stranger.post("/api/act", json={"action": "uno"}).get_json()["say"]["k"] == "err.seat_first"
    assert stranger.post("/api/host/undo", json={}).get_json()["say"]["k"] == "err.host_only"
    assert app.test_client().post("/api/act", json={}).get_json()["say"]["k"] == "err.csrf"
    assert stranger.post("/api/host/login", json={"pin": "0000"}).get_json()["say"]["k"] == "err.wrong_pin"
    assert stranger.post("/api/seat", json={"player": "Ann"}).get_json()["say"]["k"] == "err.seat_taken"
    resp = seat["Ann"].post("/api/act", json={"action": "uno"})
    assert resp.status_code == 409 and resp.get_json()["say"]["k"] == "err.uno_no_window"
    for lang in ("en", "it"):
        assert "{" not in t(resp.get_json()["say"]["k"], lang, resp.get_json()["say"]["a"])


def test_qr_code_is_dark_on_white_with_a_quiet_zone():
    svg = qr_svg("http://192.168.1.5:8000/")
    assert '<rect fill="white"' in svg
    size = int(re.search(r'viewBox="0 0 (\d+) (\d+)"', svg).group(1))
    path = re.search(r' d="([^"]+)"', svg).group(1)
    xs = [int(x) for x in re.findall(r"M(\d+),", path)]
    ys = [int(y) for y in re.findall(r"M\d+,(\d+)", path)]
    assert min(xs) == 4 and min(ys) == 4 and max(xs) == size - 5  # four light modules around


def test_points_after_a_last_wild_draw_colour_are_not_capped_by_uncounted_cards(tmp_path):
    # the next player drew until a colour: cards the referee never counted; the phone's typo
    # guard (at most a wild's worth a tracked card) sent them to the host for points they hold
    app, referee, host, seat = _table(tmp_path, "none")
    for event in ({"type": "game", "players": ["Ann", "Bob"], "rules": {"deck": "flip", "hand_size": 2}},
                  {"type": "deal", "dealer": "Bob"}, {"type": "flip", "card": "red_5"},
                  {"type": "uno", "player": "Ann"}, {"type": "play", "card": "red_flip"},
                  {"type": "flip", "card": "orange_3"}, {"type": "uno", "player": "Bob"},
                  {"type": "play", "card": "orange_4"},
                  {"type": "play", "card": "wild_draw_colour", "color": "pink"}):
        assert all(n["kind"] != "rejected" for n in referee.submit(event, source="host")), event
    state = referee.state
    assert state["waiting_for"] == "scores" and state["hand_winner"] == "Ann"
    assert seat["Bob"].post("/api/seat", json={"player": "Bob"}).status_code == 200
    assert seat["Bob"].post("/api/act", json={"action": "points", "points": 140}).status_code == 200
    assert referee.state["history"][0]["points"]["Ann"] == 140


def test_the_host_sees_which_card_or_hand_was_refused(tmp_path):
    # the list gave only the reason and the player on turn: a refused camera card or hand could
    # not be entered again, and a hand shown was credited to whoever was on turn
    app, referee, host, seat = _table(tmp_path, "camera")
    referee.submit({"type": "flip", "card": "red_5"}, source="camera")
    referee.submit({"type": "play", "card": "wild_draw_four"}, source="camera")  # its colour not yet named
    referee.submit({"type": "reveal", "cards": ["green_9", "blue_8"]}, source="camera")
    refused = host.get("/api/host/refused").get_json()["refused"]
    assert [r["what"] for r in refused] == [{"type": "reveal", "cards": 2}]
    referee.submit({"type": "play", "card": "yellow_3"}, source="host")
    assert host.get("/api/host/refused").get_json()["refused"][-1]["what"] == {"type": "play", "card": "yellow_3"}

