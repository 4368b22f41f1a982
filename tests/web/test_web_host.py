"""The host page's set-up through Flask's test client: the seat order (saved as a `seats` event
while a deal is awaited, refused mid-hand with one line and no change), camera zones dragged over
the snapshot (saved through the zones API, refused with words for people), the colour-blind
aid's card art."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest

from companion.referee.service import Referee
from companion.referee.store import EventStore
from web import create_app
from web.i18n import LANGS, t
from web.messages import notice_say

PIN = "4321"
PLAYERS = ["Ann", "Bob", "Cat", "Dan"]


def _client(app):
    client = app.test_client()
    html = client.get("/").get_data(as_text=True)
    client.environ_base["HTTP_X_CSRF_TOKEN"] = re.search(r'name="csrf" content="([^"]+)"', html).group(1)
    return client


@pytest.fixture
def referee(tmp_path):
    return Referee(EventStore(tmp_path / "games.db"))


def _host(referee, **config):
    app = create_app({"HOST_PIN": PIN, "TESTING": True, **config}, referee=referee)
    host = _client(app)
    assert host.post("/api/host/login", json={"pin": PIN}).status_code == 200
    return app, host


def _names(referee):
    return [p["name"] for p in referee.state["players"]]


def _words(resp):
    """The refusal's words in every language: a catalogue key, every placeholder filled."""
    say = resp.get_json()["say"]
    texts = [t(say["k"], lang, say["a"]) for lang in LANGS]
    assert all("{" not in text for text in texts), texts
    return say["k"]


# -- seat order ------------------------------------------------------------------------------

def test_seat_order_before_the_first_hand_sets_turns(referee):
    app, host = _host(referee, TABLE_MODE="none")
    assert host.post("/api/host/game", json={"players": PLAYERS}).status_code == 200
    resp = host.post("/api/host/seats", json={"players": ["Ann", "Cat", "Bob", "Dan"]})
    assert resp.status_code == 200 and resp.get_json()["ok"]
    assert _names(referee) == ["Ann", "Cat", "Bob", "Dan"]
    assert referee.events[-1] == {"type": "seats", "players": ["Ann", "Cat", "Bob", "Dan"]}
    assert host.post("/api/host/deal", json={"dealer": "Ann"}).status_code == 200
    assert host.post("/api/host/card", json={"type": "flip", "card": "red_5"}).status_code == 200
    assert referee.state["turn"] == "Cat"  # turns follow the new order
    # the table view's state (phones and TV) lists the players in the new order
    public = app.test_client().get("/api/state").get_json()
    assert [p["name"] for p in public["players"]] == ["Ann", "Cat", "Bob", "Dan"]


def test_seat_order_between_hands_keeps_scores(referee):
    app, host = _host(referee, TABLE_MODE="none")
    host.post("/api/host/game", json={"players": PLAYERS, "rules": {"hand_size": 1}})
    host.post("/api/host/deal", json={"dealer": "Ann"})
    host.post("/api/host/card", json={"type": "flip", "card": "red_5"})
    host.post("/api/host/card", json={"type": "play", "card": "red_1"})  # Bob goes out
    for player in ("Cat", "Dan", "Ann"):
        assert host.post("/api/host/points", json={"player": player, "points": 10}).status_code == 200
    assert referee.state["waiting_for"] == "deal"
    assert host.post("/api/host/seats", json={"players": ["Dan", "Cat", "Bob", "Ann"]}).status_code == 200
    assert {p["name"]: p["score"] for p in referee.state["players"]} == {"Dan": 0, "Cat": 0, "Bob": 30, "Ann": 0}
    assert host.post("/api/host/deal", json={}).status_code == 200
    assert referee.state["dealer"] == "Dan"  # the rotation steps in the new order: after Ann, Dan


def test_seat_order_mid_hand_is_refused_and_changes_nothing(referee):
    app, host = _host(referee, TABLE_MODE="none")
    host.post("/api/host/game", json={"players": PLAYERS})
    host.post("/api/host/deal", json={"dealer": "Ann"})
    host.post("/api/host/card", json={"type": "flip", "card": "red_5"})
    events, state = len(referee.events), referee.state
    resp = host.post("/api/host/seats", json={"players": ["Ann", "Cat", "Bob", "Dan"]})
    assert resp.status_code == 409 and _words(resp) == "err.seats_mid_hand"
    assert resp.get_json()["error"] == "the seat order changes only between hands: finish this hand first"
    assert len(referee.events) == events and referee.state == state


@pytest.mark.parametrize("body, key", [
    ({"players": ["Ann", "Bob", "Cat", "Cat"]}, "err.players_list"),
    ({"players": ["Ann", "Bob", "Cat", "cat"]}, "err.players_list"),
    ({"players": ["Ann"]}, "err.players_list"),
    ({"players": ["Ann", "Bob", "Cat", "Eve\tDan"]}, "err.name_chars"),
    ({"players": "Ann,Bob,Cat,Dan"}, "err.players_list"),
    ({}, "err.players_list"),
])
def test_seats_must_be_two_to_ten_different_names(referee, body, key):
    app, host = _host(referee, TABLE_MODE="none")
    host.post("/api/host/game", json={"players": PLAYERS})
    events = len(referee.events)
    resp = host.post("/api/host/seats", json=body)
    assert resp.status_code == 400 and _words(resp) == key
    assert len(referee.events) == events and _names(referee) == PLAYERS


@pytest.mark.parametrize("names", [
    ["Ann", "Bob"], ["Ann", "Ann"], ["Anna Rossi", "anna  rossi"], ["A" * 40, "Bob"], ["A" * 41, "Bob"],
    ["Ann", "Bob\tX"], ["Ann", "Bob\nX"], ["Ann", "👨\u200d👩\u200d👧"],
])
def test_the_host_page_and_the_configuration_seat_the_same_names(referee, names):
    # one rule for names, wherever a table is set up: a name the page refuses is refused in the
    # configuration too, with the same reason, and one it seats is seated there
    from companion.config import _players

    app, host = _host(referee, TABLE_MODE="none")
    resp = host.post("/api/host/game", json={"players": names})
    try:
        _players(names)
        config_says = None
    except ValueError as exc:
        config_says = str(exc)
    assert (resp.status_code == 200) == (config_says is None), (resp.get_json(), config_says)
    if config_says is not None and _words(resp) != "err.players_list":
        assert resp.get_json()["error"] in config_says


def test_a_player_joins_and_one_leaves_between_hands(referee):
    # Eve arrives after the first hand and Dan goes home: the game goes on with its scores,
    # not a new game (the scores on paper again)
    app, host = _host(referee, TABLE_MODE="none")
    host.post("/api/host/game", json={"players": PLAYERS, "rules": {"hand_size": 1}})
    host.post("/api/host/deal", json={"dealer": "Dan"})
    dan = _client(app)
    assert dan.post("/api/seat", json={"player": "Dan"}).status_code == 200
    for event in ({"type": "flip", "card": "red_5"}, {"type": "play", "card": "red_6"},
                  {"type": "points", "player": "Bob", "points": 10}, {"type": "points", "player": "Cat", "points": 20},
                  {"type": "points", "player": "Dan", "points": 5}):
        referee.submit(event, source="host")
    assert referee.state["waiting_for"] == "deal"
    resp = host.post("/api/host/seats", json={"players": ["Ann", "Eve", "Bob", "Cat"]})
    assert resp.status_code == 200
    state = referee.state
    assert {p["name"]: p["score"] for p in state["players"]} == {"Ann": 35, "Eve": 0, "Bob": 0, "Cat": 0}
    assert [(n["kind"], notice_say(n)["k"]) for n in state["notices"][-2:]] == \
        [("joined", "notice.joined"), ("left", "notice.left")]
    assert t("notice.left", "it", notice_say(state["notices"][-1])["a"]) == "Dan lascia la partita con 0 punti"
    assert state["history"][0]["points"]["Dan"] == 0  # the hand he played keeps him
    assert dan.get("/api/seat").get_json()["player"] is None  # his phone's seat is free
    # Dan dealt and left: the deal goes on round the table, to Ann
    assert host.post("/api/host/deal", json={}).status_code == 200
    assert referee.state["dealer"] == "Ann"
    # Dan's hand 1 can still be put right after he left; Eve did not play it
    resp = host.post("/api/host/score_fix", json={"hand": 1, "player": "Eve", "points": 0})
    assert resp.status_code == 400 and _words(resp) == "err.fix_not_played"
    assert host.post("/api/host/score_fix", json={"hand": 1, "player": "Ann", "points": 40}).status_code == 200
    assert referee.state["history"][0]["points"]["Ann"] == 40
    # mid-hand nobody joins
    resp = host.post("/api/host/seats", json={"players": ["Ann", "Eve", "Bob", "Cat", "Fay"]})
    assert resp.status_code == 409 and _words(resp) == "err.seats_mid_hand"


def test_with_teams_the_same_players_play_the_whole_game(referee):
    app, host = _host(referee, TABLE_MODE="none")
    host.post("/api/host/game", json={"players": PLAYERS, "rules": {"hand_size": 1, "teams": True}})
    host.post("/api/host/deal", json={"dealer": "Dan"})
    for event in ({"type": "flip", "card": "red_5"}, {"type": "play", "card": "red_6"},
                  {"type": "points", "player": "Bob", "points": 10}, {"type": "points", "player": "Dan", "points": 20}):
        referee.submit(event, source="host")
    events = len(referee.events)
    resp = host.post("/api/host/seats", json={"players": ["Ann", "Bob", "Cat", "Eve"]})
    assert resp.status_code == 409 and _words(resp) == "err.seats_teams"
    assert _names(referee) == PLAYERS and len(referee.events) == events + 1  # stored refused, changed nothing


def test_seat_order_needs_the_host_a_game_and_no_demo(referee):
    app, host = _host(referee, TABLE_MODE="none")
    resp = host.post("/api/host/seats", json={"players": PLAYERS})
    assert resp.status_code == 409 and _words(resp) == "err.no_game"
    host.post("/api/host/game", json={"players": PLAYERS})
    phone = _client(app)
    assert phone.post("/api/host/seats", json={"players": PLAYERS[::-1]}).status_code == 403
    demo, demo_host = _host(Referee(EventStore(":memory:")), TABLE_MODE="demo")
    demo_host.post("/api/host/game", json={"players": PLAYERS})
    resp = demo_host.post("/api/host/seats", json={"players": PLAYERS[::-1]})
    assert resp.status_code == 403 and _words(resp) == "err.demo_seats"


def test_the_demo_table_keeps_its_recorded_game_from_the_host_page():
    # A new game or an undo from the host page would leave the demo's bot waiting for a deal
    # until the video loops, and throw away the standings built so far: both are refused.
    referee = Referee(EventStore(":memory:"))
    for event in ({"type": "game", "players": PLAYERS}, {"type": "deal", "dealer": PLAYERS[0]},
                  {"type": "flip", "card": "red_5"}):
        referee.submit(event, source="demo-bot")
    demo, demo_host = _host(referee, TABLE_MODE="demo")
    events = len(referee.events)
    for path, body in (("/api/host/game", {"players": ["X", "Y"]}), ("/api/host/undo", {})):
        resp = demo_host.post(path, json=body)
        assert resp.status_code == 403 and _words(resp) == "err.demo_game", path
    assert len(referee.events) == events and referee.state["top"] == "red_5"



def test_the_demo_table_saves_no_zones_or_colours_over_the_real_tables(tmp_path):
    # the demo's app was given the real table's zones.json and colours.json (beside the
    # configuration): a save on the demo's host page would have been the real camera's next time
    referee = Referee(EventStore(":memory:"))
    demo, demo_host = _host(referee, TABLE_MODE="demo", ZONES_PATH=str(tmp_path / "zones.json"),
                            COLOURS_PATH=str(tmp_path / "colours.json"), CALIBRATE=lambda picture: None)
    zones = {"frame": [640, 480], "discard": [[10, 10], [100, 10], [100, 100], [10, 100]],
             "reveal": [[200, 10], [300, 10], [300, 100], [200, 100]]}
    for path, body in (("/api/host/zones", zones), ("/api/host/colours", {})):
        resp = demo_host.post(path, json=body)
        assert resp.status_code == 403 and _words(resp) == "err.demo_camera", path
    assert list(tmp_path.iterdir()) == []


def test_seat_order_with_teams_keeps_partners_apart(referee):
    app, host = _host(referee, TABLE_MODE="none")
    host.post("/api/host/game", json={"players": PLAYERS, "rules": {"hand_size": 1, "teams": True}})
    host.post("/api/host/deal", json={"dealer": "Ann"})
    host.post("/api/host/card", json={"type": "flip", "card": "red_5"})
    host.post("/api/host/card", json={"type": "play", "card": "red_1"})
    for player in ("Cat", "Dan", "Ann"):
        host.post("/api/host/points", json={"player": player, "points": 5})
    assert referee.state["waiting_for"] == "deal"
    resp = host.post("/api/host/seats", json={"players": ["Ann", "Cat", "Bob", "Dan"]})
    assert resp.status_code == 409 and _words(resp) == "err.seats_partners"
    assert _names(referee) == PLAYERS


# -- camera zones ------------------------------------------------------------------------------

def _camera(referee, tmp_path):
    return _host(referee, ZONES_PATH=str(tmp_path / "zones.json"), SNAPSHOT=lambda: np.zeros((480, 640, 3), np.uint8))


def _rect(x1, y1, x2, y2):
    return [[x1, y1], [x2, y1], [x2, y2], [x1, y2]]


def test_zones_from_the_editor_are_saved(referee, tmp_path):
    app, host = _camera(referee, tmp_path)
    raw = host.get("/host/snapshot.jpg?raw=1")
    assert raw.status_code == 200 and raw.data[:2] == b"\xff\xd8"
    # the bare picture has no zones drawn on it (the editor draws its own boxes)
    import cv2

    assert cv2.imdecode(np.frombuffer(raw.data, np.uint8), cv2.IMREAD_COLOR).max() < 40
    assert cv2.imdecode(np.frombuffer(host.get("/host/snapshot.jpg").data, np.uint8), cv2.IMREAD_COLOR).max() > 100
    body = {"frame": [640, 480], "discard": _rect(200, 60, 420, 300), "reveal": _rect(100, 330, 620, 470)}
    resp = host.post("/api/host/zones", json=body)
    assert resp.status_code == 200
    saved = json.loads((tmp_path / "zones.json").read_text())
    assert saved["discard"] == _rect(200, 60, 420, 300) and saved["reveal"][2] == [620, 470]
    assert host.get("/api/host/zones").get_json()["discard"][0] == [200, 60]


@pytest.mark.parametrize("body, key", [
    ({"frame": [640, 480], "discard": _rect(200, 60, 700, 300)}, "err.zone_outside"),
    ({"frame": [640, 480], "discard": _rect(200, 60, 420, 300), "reveal": _rect(100, 330, 102, 470)}, "err.zone_small"),
    ({"frame": [640, 480], "discard": _rect(200, 60, 420, 300), "reveal": _rect(100, 250, 620, 470)}, "err.zones_overlap"),
    ({"frame": [640, 480], "discard": "here"}, "err.zones_bad"),
    # the same zones on a made-up 100-times frame: 2-pixel boxes on the camera's picture, saved,
    # and the camera blind while it said "ok"
    ({"frame": [64000, 48000], "discard": _rect(200, 60, 420, 300), "reveal": _rect(100, 330, 620, 470)},
     "err.zone_small"),
    ({"frame": [640, 640], "discard": _rect(200, 60, 420, 300)}, "err.zones_frame"),  # another shape
    ({"frame": [640, 480], "discard": [[200, 60], [420, 300], [420, 60], [200, 300]]}, "err.zone_crossed"),  # a bow tie
])
def test_bad_zones_are_refused_with_one_line(referee, tmp_path, body, key):
    app, host = _camera(referee, tmp_path)
    good = {"frame": [640, 480], "discard": _rect(200, 60, 420, 300), "reveal": _rect(100, 330, 620, 470)}
    assert host.post("/api/host/zones", json=good).status_code == 200
    before = (tmp_path / "zones.json").read_text()
    resp = host.post("/api/host/zones", json=body)
    assert resp.status_code == 400 and _words(resp) == key
    assert "\n" not in resp.get_json()["error"]
    assert (tmp_path / "zones.json").read_text() == before


def test_camera_status_carries_what_the_host_should_hear(referee):
    # the camera works, but the pile has been out of sight for 40 s and the picture went grey
    from companion.vision.camera import SourceStatus

    warnings = {"pile_hidden": {"s": 40}, "colourless": {}}
    app, host = _host(referee, TABLE_MODE="camera", CAMERA_STATUS=lambda: SourceStatus("ok", 0.0, 0.0, ""),
                      CAMERA_WARNINGS=lambda: warnings)
    assert host.get("/api/host/camera").get_json() == {"state": "ok", "message": "", "warnings": warnings}
    warnings.clear()
    assert host.get("/api/host/camera").get_json()["warnings"] == {}
    assert 'id="camline"' in host.get("/host").get_data(as_text=True)
    _, phones_only = _host(referee, TABLE_MODE="none")
    assert phones_only.get("/api/host/camera").get_json() == {"state": "none", "message": "", "warnings": {}}
    assert 'id="camline"' not in phones_only.get("/host").get_data(as_text=True)


def test_a_lost_camera_is_said_to_every_player_and_their_taps_say_why(referee):
    # the table, seat and TV views said nothing while the camera was lost, and a phone's card
    # was refused with "the camera reads the cards here", which was not so then
    from companion.vision.camera import SourceStatus

    status = SourceStatus("lost", 0.0, 0.0, "cannot open camera 0")
    app, host = _host(referee, TABLE_MODE="camera", CAMERA_STATUS=lambda: status)
    for event in ({"type": "game", "players": ["Ann", "Bob"]}, {"type": "deal", "dealer": "Bob"}):
        referee.submit(event, source="test")
    phone = _client(app)
    assert phone.get("/api/camera/seen").get_json() == {"beside": None, "lost": True}
    assert phone.post("/api/seat", json={"player": "Ann"}).status_code == 200
    resp = phone.post("/api/act", json={"action": "play", "card": "red_5"})
    assert resp.status_code == 403 and _words(resp) == "err.camera_lost_plays"
    assert referee.state["top"] is None
    status = SourceStatus("ok", 0.0, 0.0, "")  # back: the line goes, the camera reads the cards again
    assert phone.get("/api/camera/seen").get_json()["lost"] is False
    resp = phone.post("/api/act", json={"action": "play", "card": "red_5"})
    assert resp.status_code == 403 and _words(resp) == "err.camera_plays"


def test_zones_with_no_camera_say_so(referee):
    app, host = _host(referee, TABLE_MODE="none")
    resp = host.post("/api/host/zones", json={"frame": [640, 480], "discard": _rect(1, 1, 50, 50)})
    assert resp.status_code == 409 and _words(resp) == "err.no_camera"
    html = host.get("/host").get_data(as_text=True)
    assert 'id="zonesnocam"' in html and 'id="snap"' not in html
    assert t("host.zones_nocam", "en") in html


def test_host_page_has_the_editors_and_no_json_box(referee, tmp_path):
    app, host = _camera(referee, tmp_path)
    html = host.get("/host").get_data(as_text=True)
    for part in ('id="seatorder"', 'id="ordersave"', 'id="zonesvg"', 'src="/host/snapshot.jpg?raw=1"', 'id="zonessave"',
                 'id="zonescancel"', 'id="aid"'):
        assert part in html, part
    assert "zonesjson" not in html and "<textarea" not in html


# -- colour-blind aid ----------------------------------------------------------------------------

def test_card_art_with_the_aid_carries_a_shape_per_colour(referee):
    client = create_app({"TESTING": True}, referee=referee).test_client()
    plain, aided = client.get("/cards/red_7.svg"), client.get("/cards/red_7.svg?aid=1")
    assert plain.status_code == aided.status_code == 200
    assert "<polygon" not in plain.get_data(as_text=True)
    red, green = aided.get_data(as_text=True), client.get("/cards/green_7.svg?aid=1").get_data(as_text=True)
    shape = re.compile(r'<(?:polygon points="[^"]+"|circle cx="50.0"[^>]*) fill="#fff" stroke="#000"')
    assert shape.search(red) and shape.search(green)
    assert re.findall(r'points="([^"]+)" fill="#fff"', red) != re.findall(r'points="([^"]+)" fill="#fff"', green)
    wild = client.get("/cards/wild.svg?aid=1").get_data(as_text=True)
    assert wild.count('fill="#fff" stroke="#000"') == 4  # a shape on each quadrant
    for page in ("/", "/seat", "/standings", "/tv"):
        assert 'id="aid"' in client.get(page).get_data(as_text=True), page


def test_the_editors_picture_is_phone_sized_and_its_zones_scale_to_the_camera(referee, tmp_path):
    import cv2

    from companion.vision.zones import Zones

    app, host = _host(referee, ZONES_PATH=str(tmp_path / "zones.json"),
                      SNAPSHOT=lambda: np.zeros((720, 1280, 3), np.uint8))
    raw = cv2.imdecode(np.frombuffer(host.get("/host/snapshot.jpg?raw=1").data, np.uint8), cv2.IMREAD_COLOR)
    assert raw.shape[:2] == (270, 480)
    body = {"frame": [480, 270], "discard": _rect(150, 45, 315, 150), "reveal": _rect(75, 190, 465, 262)}
    assert host.post("/api/host/zones", json=body).status_code == 200
    assert Zones.load(tmp_path / "zones.json").scaled_to(1280, 720).bbox("discard") == (400, 120, 840, 400)


def test_the_first_deal_with_next_in_turn_has_the_first_player_deal(referee):
    app, host = _host(referee, TABLE_MODE="none")
    assert host.post("/api/host/game", json={"players": PLAYERS}).status_code == 200
    assert host.post("/api/host/deal", json={}).status_code == 200  # was refused: "needs a dealer"
    assert referee.state["dealer"] == PLAYERS[0] and referee.state["waiting_for"] == "flip"


def test_a_new_game_refuses_one_person_named_twice_in_other_capitals(referee):
    _, host = _host(referee)
    resp = host.post("/api/host/game", json={"players": ["Anna", "Bob", "anna"]})
    assert resp.status_code == 400 and resp.get_json()["say"]["k"] == "err.players_list"
    assert referee.events == []


def test_a_card_held_for_a_colour_and_then_counted_is_no_refusal_to_the_host(referee):
    # the host's list showed "not now: waiting for a colour" for a red 3 that was then counted
    app, host = _host(referee, TABLE_MODE="camera")
    for event, source in (({"type": "game", "players": ["Ann", "Bob", "Cid"]}, "host"),
                          ({"type": "deal", "dealer": "Cid"}, "host"), ({"type": "flip", "card": "red_5"}, "camera"),
                          ({"type": "play", "card": "wild"}, "camera"), ({"type": "play", "card": "red_3"}, "camera")):
        referee.submit(event, source=source)
    assert [r["what"] for r in host.get("/api/host/refused").get_json()["refused"]] == [{"type": "play", "card": "red_3"}]
    referee.submit({"type": "color", "color": "red"}, source="phone")
    assert referee.state["top"] == "red_3"
    assert host.get("/api/host/refused").get_json()["refused"] == []
