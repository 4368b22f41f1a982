"""The phone page through Flask's test client, on the real referee and an in-memory store."""
from __future__ import annotations

import json
import re

import pytest

from companion.referee import Referee
from companion.store import EventStore
from web import create_app
from web.hub import public_state
from web.lan import join_url, lan_ip, qr_svg

PIN = "4321"
PLAYERS = ["Ann", "Bob", "Cat"]


@pytest.fixture
def referee(tmp_path):
    return Referee(EventStore(tmp_path / "games.db"))


@pytest.fixture
def app(referee):
    return create_app({"HOST_PIN": PIN, "TESTING": True}, referee=referee)


def _phone(app):
    """A test client with its CSRF token, like a phone that opened a page."""
    client = app.test_client()
    html = client.get("/").get_data(as_text=True)
    token = re.search(r'name="csrf" content="([^"]+)"', html).group(1)
    client.environ_base["HTTP_X_CSRF_TOKEN"] = token
    return client


@pytest.fixture
def host(app):
    client = _phone(app)
    assert client.post("/api/host/login", json={"pin": PIN}).status_code == 200
    return client


@pytest.fixture
def game(referee, host):
    assert host.post("/api/host/game", json={"players": PLAYERS}).status_code == 200
    assert host.post("/api/host/deal", json={"dealer": "Cat"}).status_code == 200
    referee.submit({"type": "flip", "card": "red_5"}, source="camera")
    return referee


def _seat(app, name):
    phone = _phone(app)
    assert phone.post("/api/seat", json={"player": name}).status_code == 200
    return phone


@pytest.mark.parametrize("path,kind", [("/", "text/html"), ("/seat", "text/html"),
                                       ("/standings", "text/html"), ("/host", "text/html"),
                                       ("/cards/red_7.svg", "image/svg+xml"),
                                       ("/cards/wild_draw_four.svg", "image/svg+xml"),
                                       ("/qr.svg", "image/svg+xml"), ("/api/state", "application/json")])
def test_pages_serve_locally(app, path, kind):
    resp = app.test_client().get(path)
    assert resp.status_code == 200 and resp.mimetype == kind
    assert "http://cdn" not in resp.get_data(as_text=True) and "https://" not in resp.get_data(as_text=True)


def test_card_unknown_name_is_404(app):
    assert app.test_client().get("/cards/purple_7.svg").status_code == 404


def test_lan_url_is_an_ip_and_qr_is_svg():
    ip = lan_ip()
    assert re.fullmatch(r"\d+\.\d+\.\d+\.\d+", ip)
    assert join_url(8000, "192.168.1.5") == "http://192.168.1.5:8000/"
    assert qr_svg("http://192.168.1.5:8000/").startswith("<svg")


def test_post_without_csrf_is_refused(app, referee):
    client = app.test_client()
    client.get("/")
    resp = client.post("/api/host/login", json={"pin": PIN})
    assert resp.status_code == 403 and "CSRF" in resp.get_json()["error"]


@pytest.mark.parametrize("path,body", [("/api/host/game", {"players": PLAYERS}), ("/api/host/deal", {}),
                                       ("/api/host/undo", {}), ("/api/host/points", {"player": "Ann", "points": 3}),
                                       ("/api/host/verdict", {"guilty": True}),
                                       ("/api/host/correct", {"event": 0, "card": "red_1"})])
def test_host_actions_need_the_pin(app, referee, path, body):
    phone = _phone(app)
    assert phone.post(path, json=body).status_code == 403
    assert referee.events == []


def test_wrong_pin_is_refused(app):
    phone = _phone(app)
    assert phone.post("/api/host/login", json={"pin": "0000"}).status_code == 403
    assert phone.post("/api/host/undo", json={}).status_code == 403


def test_pin_guessing_pauses_logins(app):
    phone = _phone(app)
    for _ in range(5):
        assert phone.post("/api/host/login", json={"pin": "0000"}).status_code == 403
    assert phone.post("/api/host/login", json={"pin": PIN}).status_code == 429


def test_host_starts_game_and_phones_see_it(game, app):
    state = app.test_client().get("/api/state").get_json()
    assert [p["name"] for p in state["players"]] == PLAYERS
    assert state["top"] == "red_5" and state["turn"] == "Ann" and state["waiting_for"] == "play"


@pytest.mark.parametrize("path,body,words", [
    ("/api/host/game", {"players": ["Ann"]}, "2 to 10"),
    ("/api/host/game", {"players": PLAYERS, "rules": {"colour_blind": True}}, "unknown table option"),
    ("/api/host/points", {"player": "Zed", "points": 3}, "unknown player"),
    ("/api/host/points", {"player": "Ann", "points": "3"}, "whole number"),
    ("/api/host/card", {"card": "red_77"}, "unknown card"),
    ("/api/host/card", {"card": "wild", "color": "pink"}, "unknown colour"),
    ("/api/host/verdict", {"guilty": "yes"}, "true or false"),
    ("/api/host/correct", {"event": 999, "card": "red_1"}, "log index"),
])
def test_host_bad_input_is_400_and_changes_nothing(game, host, path, body, words):
    before = len(game.events)
    resp = host.post(path, json=body)
    assert resp.status_code == 400 and words in resp.get_json()["error"]
    assert len(game.events) == before


def test_malformed_body_is_400(game, host):
    resp = host.post("/api/host/points", data="not json", content_type="application/json")
    assert resp.status_code == 400 and "JSON object" in resp.get_json()["error"]


def test_seat_is_bound_to_one_phone(game, app):
    _seat(app, "Ann")
    other = _phone(app)
    resp = other.post("/api/seat", json={"player": "Ann"})
    assert resp.status_code == 409 and "another phone" in resp.get_json()["error"]
    assert other.post("/api/seat", json={"player": "Nobody"}).status_code == 400


def test_phone_acts_only_for_its_own_seat(game, app):
    bob = _seat(app, "Bob")
    resp = bob.post("/api/act", json={"action": "draw"})  # Ann's turn
    assert resp.status_code == 403 and "Ann" in resp.get_json()["error"]
    assert _phone(app).post("/api/act", json={"action": "uno"}).status_code == 403
    ann = _seat(app, "Ann")
    assert ann.post("/api/act", json={"action": "draw"}).status_code == 200
    assert ann.post("/api/act", json={"action": "pass"}).status_code == 200
    assert game.state["turn"] == "Bob"


@pytest.mark.parametrize("body,words", [({"action": "fly"}, "unknown action"),
                                        ({"action": "catch", "target": "Zed"}, "unknown target")])
def test_seat_bad_action_is_400(game, app, body, words):
    ann = _seat(app, "Ann")
    before = len(game.events)
    resp = ann.post("/api/act", json=body)
    assert resp.status_code == 400 and words in resp.get_json()["error"]
    assert len(game.events) == before


def test_wild_colour_named_from_the_phone(game, app):
    ann = _seat(app, "Ann")
    game.submit({"type": "play", "card": "wild"}, source="camera")
    assert ann.post("/api/act", json={"action": "color", "color": "purple"}).status_code == 400
    assert ann.post("/api/act", json={"action": "color", "color": "blue"}).status_code == 200
    assert game.state["color"] == "blue"


@pytest.mark.parametrize("guilty", [True, False])
def test_challenge_verdict_shows_no_cards(game, app, host, guilty):
    bob = _seat(app, "Bob")
    game.submit({"type": "play", "card": "wild_draw_four", "color": "green"}, source="camera")
    assert bob.post("/api/act", json={"action": "challenge"}).status_code == 200
    game.submit({"type": "reveal", "player": "Ann", "cards": ["red_9", "blue_1"] if guilty else ["blue_1", "green_2"]})
    state = app.test_client().get("/api/state").get_json()
    kinds = [n["kind"] for n in state["notices"]]
    assert ("challenge_upheld" if guilty else "challenge_failed") in kinds
    text = json.dumps(state)
    assert "red_9" not in text and "blue_1" not in text
    log = json.dumps(host.get("/api/host/log").get_json())
    assert "red_9" not in log and "blue_1" not in log


def test_undo_and_correct_from_the_host(game, host):
    game.submit({"type": "play", "card": "red_7"}, source="camera")
    assert game.state["top"] == "red_7"
    assert host.post("/api/host/undo", json={}).status_code == 200
    assert game.state["top"] == "red_5"
    assert host.post("/api/host/correct", json={"event": 2, "card": "red_8"}).status_code == 200
    assert game.state["top"] == "red_8"


def test_public_state_scrubs_card_names_from_notices():
    state = {"players": [], "notices": [{"event": 3, "kind": "challenge_upheld", "player": "Ann",
                                         "message": "Ann held red_3: draws 4"}]}
    assert public_state(state)["notices"][0]["message"] == "Ann held a card: draws 4"


def test_sse_sends_full_state_then_each_event(game, app):
    resp = app.test_client().get("/events", buffered=False)
    chunks = resp.response
    assert resp.mimetype == "text/event-stream"
    assert next(chunks).startswith(b"retry:")
    first = json.loads(next(chunks).decode()[len("data: "):])
    assert first["state"]["top"] == "red_5"
    assert app.extensions["uno"].phones_connected() == 1
    game.submit({"type": "play", "card": "red_2"}, source="camera")
    update = json.loads(next(chunks).decode()[len("data: "):])
    assert update["state"]["top"] == "red_2"
    resp.close()
    assert app.extensions["uno"].phones_connected() == 0


def test_zones_snapshot_and_save(tmp_path, referee):
    import numpy as np

    path = tmp_path / "zones.json"
    app = create_app({"HOST_PIN": PIN, "TESTING": True, "ZONES_PATH": str(path),
                      "SNAPSHOT": lambda: np.zeros((480, 640, 3), np.uint8)}, referee=referee)
    client = _phone(app)
    assert client.get("/host/snapshot.jpg").status_code == 403
    client.post("/api/host/login", json={"pin": PIN})
    resp = client.get("/host/snapshot.jpg")
    assert resp.status_code == 200 and resp.data[:2] == b"\xff\xd8"
    zones = client.get("/api/host/zones").get_json()
    zones["discard"] = [[100, 100], [300, 100], [300, 300], [100, 300]]
    assert client.post("/api/host/zones", json=zones).status_code == 200
    assert json.loads(path.read_text())["discard"][2] == [300, 300]
    bad = client.post("/api/host/zones", json={"frame": [640, 480], "kitchen": []})
    assert bad.status_code == 400 and "kitchen" in bad.get_json()["error"]
    assert json.loads(path.read_text())["discard"][2] == [300, 300]


def test_seat_leave_and_host_release(game, app, host):
    ann = _seat(app, "Ann")
    assert ann.post("/api/seat/leave", json={}).status_code == 200
    assert ann.post("/api/act", json={"action": "draw"}).status_code == 403
    _seat(app, "Bob")
    assert host.post("/api/host/release", json={"player": "Bob"}).status_code == 200
    assert _phone(app).post("/api/seat", json={"player": "Bob"}).status_code == 200


def test_engine_refusal_is_409_with_reason(game, app):
    ann = _seat(app, "Ann")
    resp = ann.post("/api/act", json={"action": "pass"})  # a pass before drawing
    assert resp.status_code == 409 and resp.get_json()["error"]
    assert game.state["turn"] == "Ann"


def test_host_card_and_score_fix(game, host):
    assert host.post("/api/host/card", json={"card": "red_9"}).status_code == 200
    assert game.state["top"] == "red_9"
    assert host.post("/api/host/score_fix", json={"hand": 1, "player": "Ann", "points": "x"}).status_code == 400


def test_accept_a_wild_draw_four_takes_the_four_and_passes_the_turn(game, app):
    bob = _seat(app, "Bob")
    game.submit({"type": "play", "card": "wild_draw_four", "color": "green"}, source="camera")
    before = {p["name"]: p["cards"] for p in game.state["players"]}
    assert bob.post("/api/act", json={"action": "accept"}).status_code == 200
    state = game.state
    assert {p["name"]: p["cards"] for p in state["players"]}["Bob"] == before["Bob"] + 4
    assert state["turn"] == "Cat" and state["waiting_for"] == "play"
    # Accept is only for the victim while the challenge is open.
    assert bob.post("/api/act", json={"action": "accept"}).status_code == 403


def test_public_state_keeps_public_plays_and_prose_readable():
    events = [{"type": "play", "card": "blue_4"}, {"type": "reveal", "player": "Ann", "cards": ["red_3"]}]
    state = {"players": [], "notices": [
        {"event": 0, "kind": "illegal_play", "player": "Bob", "message": "Bob cannot play blue_4 on green_8"},
        {"event": 1, "kind": "challenge_failed", "player": "Cat", "message": "Cat challenged an honest wild draw four: draws 6"},
        {"event": 1, "kind": "count_mismatch", "player": "Ann", "message": "Ann shows red_3"}]}
    messages = [n["message"] for n in public_state(state, events)["notices"]]
    assert messages == ["Bob cannot play blue_4 on green_8",
                        "Cat challenged an honest wild draw four: draws 6", "Ann shows a card"]


def test_host_starts_a_game_with_house_rules(referee, host, app):
    rules = {"stacking": "cross", "deflect": "reverse", "multiple_play": True, "teams": True,
             "hand_limit": 12, "elimination": 20, "double_score": True, "turn_seconds": 30,
             "no_action_finish": True, "no_wild_finish": True, "uno_penalty": 6}
    players = ["Ann", "Bob", "Cat", "Dan"]
    assert host.post("/api/host/game", json={"players": players, "rules": rules}).status_code == 200
    state = app.test_client().get("/api/state").get_json()
    assert {k: state["rules"][k] for k in rules} == rules
    assert [t["name"] for t in state["teams"]] == ["Ann & Cat", "Bob & Dan"] and state["out"] == []
    resp = host.post("/api/host/game", json={"players": PLAYERS, "rules": {"teams": True}})
    assert resp.status_code == 409 and "4 or 6 players" in resp.get_json()["error"]


def test_host_lays_a_multiple_play(game, host, referee):
    assert host.post("/api/host/game", json={"players": PLAYERS, "rules": {"multiple_play": True}}).status_code == 200
    host.post("/api/host/deal", json={"dealer": "Cat"})
    referee.submit({"type": "flip", "card": "red_5"}, source="camera")
    assert host.post("/api/host/card", json={"card": "red_7 blue_7"}).status_code == 200
    assert referee.state["pile"] == ["red_5", "red_7", "blue_7"]
    assert host.post("/api/host/card", json={"cards": ["blue_8", "red_9"]}).status_code == 409


def test_turn_timer_counts_from_the_start_of_each_turn():
    from web.hub import TurnClock

    now = [100.0]
    clock = TurnClock(lambda: now[0])
    state = {"rules": {"turn_seconds": 30}, "turn": "Ann", "waiting_for": "play", "hand": 1,
             "top": "red_5", "color": "red", "direction": "clockwise", "discard_pile": 1}
    assert clock.read(state) == {"seconds": 30, "elapsed": 0.0}
    now[0] = 112.5
    assert clock.read(dict(state, drawn=True)) == {"seconds": 30, "elapsed": 12.5}  # a draw: same turn
    assert clock.read(dict(state, turn="Bob")) == {"seconds": 30, "elapsed": 0.0}
    assert clock.read(dict(state, rules={})) is None and clock.read(dict(state, turn=None)) is None


def test_turn_timer_reaches_the_phones_only_when_set(referee, host, app):
    host.post("/api/host/game", json={"players": PLAYERS, "rules": {"turn_seconds": 20}})
    host.post("/api/host/deal", json={"dealer": "Cat"})
    referee.submit({"type": "flip", "card": "red_5"}, source="camera")
    state = app.test_client().get("/api/state").get_json()
    assert state["turn_clock"]["seconds"] == 20 and 0 <= state["turn_clock"]["elapsed"] < 5
    host.post("/api/host/game", json={"players": PLAYERS})
    assert app.test_client().get("/api/state").get_json()["turn_clock"] is None


def test_host_page_shows_house_rules_with_plain_labels(host):
    html = host.get("/host").get_data(as_text=True)
    for name, words in [("deflect", "Send a pending draw on"), ("multiple_play", "several cards"),
                        ("no_action_finish", "No going out on a skip"), ("no_wild_finish", "on a wild"),
                        ("hand_limit", "Hand limit"), ("elimination", "Out of the hand"),
                        ("teams", "Teams"), ("double_score", "Double points"),
                        ("turn_seconds", "Turn timer")]:
        assert f'name="{name}"' in html and words in html
    assert 'value="cross"' in html
