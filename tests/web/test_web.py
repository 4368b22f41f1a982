"""The phone page through Flask's test client, on the real referee and an in-memory store."""
from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from companion.referee.service import Referee
from companion.referee.store import EventStore
from web import create_app
from web.hub import public_state
from web.i18n import t
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
    for name in ("violet_7", "purple_0", "red_draw_five", "wild_draw_six"):  # no such face
        assert app.test_client().get(f"/cards/{name}.svg").status_code == 404, name


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


def test_a_public_name_pointed_at_the_table_is_refused_and_changes_nothing(game, app):
    """DNS rebinding: a page on evil.example whose name now resolves to the Pi must not read the
    game or take a seat from a player's browser; the table's own addresses and names still work."""
    phone = _phone(app)
    before = len(game.events)
    evil = {"Host": "evil.example:8000"}
    assert phone.get("/api/state", headers=evil).status_code == 421
    resp = phone.post("/api/seat", json={"player": "Ann"}, headers=evil)
    assert resp.status_code == 421 and "does not answer to the name 'evil.example:8000'" in resp.get_json()["error"]
    page = phone.get("/seat", headers=evil)
    assert page.status_code == 421 and "hostnames" in page.get_data(as_text=True)
    assert app.extensions["uno"].seats.taken() == [] and len(game.events) == before
    for ok in ("192.168.1.20:8000", "[fe80::1]:8000", "raspberrypi:8000", "uno.local", "pi.lan:8000",
               "localhost:8000", "10.0.0.5"):
        assert phone.get("/api/state", headers={"Host": ok}).status_code == 200, ok
    for odd in ("[::1].evil.example", "1.2.3.4:80@evil.example", "evil.example.", "EVIL.example:8000", ""):
        assert phone.get("/seat", headers={"Host": odd}).status_code == 421, odd


def test_a_name_the_configuration_lists_is_answered(referee):
    app = create_app({"HOST_PIN": PIN, "TESTING": True, "HOSTNAMES": ("uno.example.net",)}, referee=referee)
    client = app.test_client()
    assert client.get("/api/state", headers={"Host": "UNO.example.net:8000"}).status_code == 200
    assert client.get("/api/state", headers={"Host": "other.example.net"}).status_code == 421
    bound = create_app({"HOST_PIN": PIN, "TESTING": True, "PUBLIC_URL": "http://table.example.org:8000/"},
                       referee=referee)
    assert bound.test_client().get("/api/state", headers={"Host": "table.example.org:8000"}).status_code == 200


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


class Clock:
    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_a_clock_set_back_or_forward_keeps_every_phone_and_the_host(referee, monkeypatch):
    # a Pi with no clock battery: cookies signed before the clock was set back were "from the
    # future", and Flask refused them: every tap a CSRF error until reloaded, the host logged out
    import time

    real = time.time
    monkeypatch.setattr(time, "time", lambda: real() + 3 * 3600)
    app = create_app({"HOST_PIN": PIN, "TESTING": True}, referee=referee)
    host = _phone(app)
    login = host.post("/api/host/login", json={"pin": PIN})
    assert login.status_code == 200 and "Max-Age=604800" in login.headers["Set-Cookie"]
    monkeypatch.setattr(time, "time", real)  # set back three hours
    assert host.post("/api/host/game", json={"players": PLAYERS}).status_code == 200
    monkeypatch.setattr(time, "time", lambda: real() + 30 * 86400)  # then on a month
    assert host.post("/api/host/deal", json={"dealer": "Ann"}).status_code == 200


def test_wrong_pins_stamped_before_the_clock_was_set_back_hold_nobody_up(referee):
    clock = Clock()
    app = create_app({"HOST_PIN": PIN, "TESTING": True, "CLOCK": clock}, referee=referee)
    guesser = _phone(app)
    for _ in range(7):  # last evening's typos and guesses, wait out each time
        assert guesser.post("/api/host/login", json={"pin": "0000"}).status_code == 403
        clock.now += 3600
    clock.now -= 10 * 86400  # tonight the Pi starts with an older time
    assert _phone(app).post("/api/host/login", json={"pin": PIN}).status_code == 200


def test_pin_guessing_backs_off_and_cookies_or_addresses_do_not_get_round_it(referee):
    clock = Clock()
    app = create_app({"HOST_PIN": PIN, "TESTING": True, "CLOCK": clock}, referee=referee)
    host = _phone(app)  # the host's browser, logged in once before anyone guessed
    assert host.post("/api/host/login", json={"pin": PIN}).status_code == 200
    # the probe's way round: cookies made before the first wrong PIN, one guess each (a 4-digit
    # PIN fell in 43 s); they now wait with their address
    spare = [_phone(app) for _ in range(3)]
    guesser = _phone(app)
    clock.now += 1
    waits = []
    for _ in range(6):
        assert guesser.post("/api/host/login", json={"pin": "0000"}).status_code == 403
        refused = guesser.post("/api/host/login", json={"pin": PIN})
        assert refused.status_code == 429  # even the right PIN waits out the back-off
        waits.append(int(refused.headers["Retry-After"]))
        clock.now += waits[-1]
    assert waits == [1, 2, 4, 8, 16, 32]  # growing with each wrong PIN
    assert guesser.post("/api/host/login", json={"pin": "0000"}).status_code == 403
    for phone in spare:
        assert phone.post("/api/host/login", json={"pin": "1111"}).status_code == 429
    # ...and so does a fresh cookie, and, past the table's few typos, another address: a guesser
    # with many addresses is slowed as one
    assert _phone(app).post("/api/host/login", json={"pin": PIN}).status_code == 429
    other = _phone(app)
    other.environ_base["REMOTE_ADDR"] = "192.168.1.23"
    assert other.post("/api/host/login", json={"pin": "2222"}).status_code == 429
    # the host's own browser is never held up by others' guesses; its right PIN ends the streaks
    assert host.post("/api/host/login", json={"pin": PIN}).status_code == 200
    assert other.post("/api/host/login", json={"pin": PIN}).status_code == 200


def test_a_phone_tapping_refused_actions_in_a_loop_stops_filling_the_log(referee):
    # each refused tap is a stored line: a script's 3000 taps added 4 MB and hid the host's list
    clock = Clock()
    app = create_app({"HOST_PIN": PIN, "TESTING": True, "CLOCK": clock}, referee=referee)
    for event in ({"type": "game", "players": PLAYERS}, {"type": "deal", "dealer": "Cat"},
                  {"type": "flip", "card": "red_5"}):
        referee.submit(event, source="host")
    cat = _seat(app, "Cat")
    for _ in range(20):
        assert cat.post("/api/act", json={"action": "uno"}).status_code == 409
    stored = len(referee.events)
    resp = cat.post("/api/act", json={"action": "uno"})
    assert resp.status_code == 429 and resp.get_json()["say"]["k"] == "err.too_many_taps"
    assert len(referee.events) == stored
    # another phone plays on meanwhile; a minute later Cat's phone may tap again
    ann = _seat(app, "Ann")
    assert ann.post("/api/act", json={"action": "draw"}).status_code == 200
    clock.now += 61
    assert cat.post("/api/act", json={"action": "uno"}).status_code == 409


def test_pin_back_off_survives_a_restart(tmp_path):
    clock = Clock()
    settings = {"HOST_PIN": PIN, "TESTING": True, "CLOCK": clock, "DATA_DIR": str(tmp_path)}
    first = create_app(settings, referee=Referee(EventStore(tmp_path / "games.db")))
    guesser = _phone(first)
    for _ in range(4):
        assert guesser.post("/api/host/login", json={"pin": "9999"}).status_code == 403
        clock.now += 3600
    second = create_app(settings, referee=Referee(EventStore(tmp_path / "games.db")))
    again = _phone(second)
    for cookie in guesser._cookies.values():
        again.set_cookie(cookie.key, cookie.value)
    again.environ_base["HTTP_X_CSRF_TOKEN"] = guesser.environ_base["HTTP_X_CSRF_TOKEN"]
    assert again.post("/api/host/login", json={"pin": "9999"}).status_code == 403
    refused = again.post("/api/host/login", json={"pin": PIN})
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) == 16


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
    ("/api/host/card", {"card": "  "}, "pick a card first"),
    ("/api/host/game", {"players": ["Ann", "Bob\nX"]}, "no tabs or line breaks"),
    ("/api/host/card", {"card": "wild", "color": "pink"}, "unknown colour"),
    ("/api/host/verdict", {"guilty": "yes"}, "true or false"),
    ("/api/host/correct", {"event": 999, "card": "red_1"}, "log index"),
])
def test_host_bad_input_is_400_and_changes_nothing(game, host, path, body, words):
    before = len(game.events)
    resp = host.post(path, json=body)
    assert resp.status_code == 400 and words in resp.get_json()["error"]
    assert len(game.events) == before


def test_a_pin_sent_as_a_number_is_a_clear_400_and_no_wrong_guess(app):
    phone = _phone(app)
    resp = phone.post("/api/host/login", json={"pin": int(PIN)})
    assert resp.status_code == 400 and "PIN is text" in resp.get_json()["error"]
    assert phone.post("/api/host/login", json={"pin": PIN}).status_code == 200  # no back-off was earned


def test_malformed_body_is_400(game, host):
    resp = host.post("/api/host/points", data="not json", content_type="application/json")
    assert resp.status_code == 400 and "JSON object" in resp.get_json()["error"]


def test_seat_is_bound_to_one_phone(game, app):
    _seat(app, "Ann")
    other = _phone(app)
    resp = other.post("/api/seat", json={"player": "Ann"})
    assert resp.status_code == 409 and "another phone" in resp.get_json()["error"]
    assert other.post("/api/seat", json={"player": "Nobody"}).status_code == 400


def test_a_seat_link_takes_a_seat_back_from_a_phone_that_would_tap_it_again(game, app, host):
    """Seats are first come: a phone on the Wi-Fi that took Ann's seat re-took it each time the
    host freed it. A seat link frees the seat, keeps it for the phone that opens the link, and
    works once."""
    squatter = _seat(app, "Ann")
    made = host.post("/api/host/seat_link", json={"player": "Ann"}).get_json()
    assert made["minutes"] == 10 and made["qr"].startswith("<svg") and "/seat/link/" in made["url"]
    resp = squatter.post("/api/seat", json={"player": "Ann"})
    assert resp.status_code == 409 and resp.get_json()["say"]["k"] == "err.seat_kept"
    assert squatter.post("/api/act", json={"action": "uno"}).get_json()["say"]["k"] == "err.seat_first"
    ann = _phone(app)
    path = "/seat/link/" + made["url"].rsplit("/", 1)[1]
    assert ann.head(path).status_code == 200  # a link preview does not use it up
    assert ann.get(path).status_code == 200
    assert ann.get("/api/seat").get_json()["player"] == "Ann"
    assert squatter.get("/api/seat").get_json()["player"] is None
    again = _phone(app).get(path)
    assert again.status_code == 403 and "used already or has expired" in again.get_data(as_text=True)
    assert _phone(app).post("/api/seat", json={"player": "Ann"}).get_json()["say"]["k"] == "err.seat_taken"


def test_an_undone_new_game_gives_a_linked_seat_to_the_phone_the_link_gave_it(game, app, host):
    squatter = _seat(app, "Ann")
    assert host.post("/api/host/game", json={"players": PLAYERS}).status_code == 200  # a new game...
    link = host.post("/api/host/seat_link", json={"player": "Ann"}).get_json()["url"].rsplit("/", 1)[1]
    ann = _phone(app)
    assert ann.get("/seat/link/" + link).status_code == 200
    assert host.post("/api/host/undo", json={}).status_code == 200  # ...taken back: its seats come back
    assert ann.get("/api/seat").get_json()["player"] == "Ann"
    assert squatter.get("/api/seat").get_json()["player"] is None


def test_a_seat_link_out_of_date_gives_nothing_and_frees_the_name_again(referee):
    now = [1000.0]
    app = create_app({"HOST_PIN": PIN, "TESTING": True, "CLOCK": lambda: now[0]}, referee=referee)
    host = _phone(app)
    host.post("/api/host/login", json={"pin": PIN})
    host.post("/api/host/game", json={"players": PLAYERS})
    assert host.post("/api/host/seat_link", json={"player": "Zed"}).status_code == 400
    link = host.post("/api/host/seat_link", json={"player": "Bob"}).get_json()["url"].rsplit("/", 1)[1]
    now[0] += 601
    assert _phone(app).get("/seat/link/" + link).status_code == 403
    assert _phone(app).post("/api/seat", json={"player": "Bob"}).status_code == 200
    assert _phone(app).post("/api/host/seat_link", json={"player": "Bob"}).status_code == 403  # host only


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
    honest = ["blue_1", "green_2", "green_3", "blue_4", "yellow_5", "wild"]  # all six of Ann's cards
    game.submit({"type": "reveal", "player": "Ann", "cards": ["red_9", "blue_1"] if guilty else honest})
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


def test_a_correction_is_checked_before_the_host_confirms_it(game, host):
    # refused only after Yes, when the new card would make a later play illegal
    game.submit({"type": "play", "card": "red_7"}, source="camera")  # event 3, on red_5 (event 2)
    before = len(game.events)
    refused = host.post("/api/host/correct/check", json={"event": 2, "card": "blue_9"}).get_json()
    assert refused["ok"] is False and refused["say"]["k"] in ("err.correct_illegal", "err.correct_breaks")
    assert host.post("/api/host/correct/check", json={"event": 2, "card": "red_8"}).get_json() == {"ok": True}
    assert len(game.events) == before  # nothing stored by a check


def test_two_hosts_pressing_undo_at_once_take_back_one_step(game, host, app):
    # Both host pages showed the same table (the log's length, `events` in the state); the
    # first undo goes through, the second was meant for the same step and is refused.
    game.submit({"type": "play", "card": "red_7"}, source="camera")
    seen = app.test_client().get("/api/state").get_json()["events"]
    assert host.post("/api/host/undo", json={"at": seen}).status_code == 200
    resp = host.post("/api/host/undo", json={"at": seen})
    assert resp.status_code == 409 and resp.get_json()["say"]["k"] == "err.undo_moved"
    assert game.state["top"] == "red_5" and game.state["waiting_for"] == "play"


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

    path = tmp_path / "config" / "uno-companion" / "zones.json"  # a fresh install: no such folder yet
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
    # a folder that cannot be written: one line in words, no traceback, nothing changed
    blocked = create_app({"HOST_PIN": PIN, "TESTING": True, "ZONES_PATH": str(tmp_path / "file" / "zones.json"),
                          "SNAPSHOT": lambda: np.zeros((480, 640, 3), np.uint8)}, referee=referee)
    (tmp_path / "file").write_text("a file where the folder should be")
    other = _phone(blocked)
    other.post("/api/host/login", json={"pin": PIN})
    resp = other.post("/api/host/zones", json=zones)
    assert resp.status_code == 503 and resp.get_json()["say"]["k"] == "err.not_saved"
    bad = client.post("/api/host/zones", json={"frame": [640, 480], "kitchen": []})
    assert bad.status_code == 400 and "kitchen" in bad.get_json()["error"]
    assert json.loads(path.read_text())["discard"][2] == [300, 300]


def test_a_move_before_the_first_card_is_turned_up_is_not_now(referee, app, host):
    assert host.post("/api/host/game", json={"players": PLAYERS}).status_code == 200
    assert host.post("/api/host/deal", json={"dealer": "Cat"}).status_code == 200
    ann = _seat(app, "Ann")
    resp = ann.post("/api/act", json={"action": "draw"})
    body = resp.get_json()
    assert resp.status_code == 403 and body["error"] == "not now: waiting for the first card"
    assert body["say"] == {"k": "err.not_now", "a": {"phase": "flip"}}
    assert referee.state["waiting_for"] == "flip"


def test_the_player_on_turn_asked_for_a_colour_is_told_so_not_that_it_is_not_their_move(game, app):
    ann = _seat(app, "Ann")
    game.submit({"type": "play", "card": "wild"}, source="camera")  # Ann's wild: her colour next
    resp = ann.post("/api/act", json={"action": "draw"})
    assert resp.status_code == 403 and resp.get_json()["say"] == {"k": "err.not_now", "a": {"phase": "color"}}
    assert ann.post("/api/act", json={"action": "color", "color": "red"}).status_code == 200


def test_seat_leave_and_host_release(game, app, host):
    ann = _seat(app, "Ann")
    assert ann.post("/api/seat/leave", json={}).status_code == 200
    assert ann.post("/api/act", json={"action": "draw"}).status_code == 403
    _seat(app, "Bob")
    # the host page offers to free only the seats a phone holds
    assert host.get("/api/host/seats").get_json() == {"taken": ["Bob"]}
    assert _phone(app).get("/api/host/seats").status_code == 403
    assert host.post("/api/host/release", json={"player": "Bob"}).status_code == 200
    assert host.get("/api/host/seats").get_json() == {"taken": []}
    assert _phone(app).post("/api/seat", json={"player": "Bob"}).status_code == 200


def test_engine_refusal_is_409_with_reason(game, app):
    ann = _seat(app, "Ann")
    resp = ann.post("/api/act", json={"action": "pass"})  # a pass before drawing
    assert resp.status_code == 409 and resp.get_json()["error"]
    assert game.state["turn"] == "Ann"


def test_the_host_log_says_which_lines_can_be_corrected(game, host):
    # a refused line and an undone one are not in effect: the host page offers to correct neither
    game.submit({"type": "pass"}, source="phone")                       # 3: refused (draw first)
    game.submit({"type": "play", "card": "red_7"}, source="camera")    # 4
    game.submit({"type": "play", "card": "red_8"}, source="camera")    # 5, then undone
    assert host.post("/api/host/undo", json={}).status_code == 200
    lines = {l["event"]: l["in_effect"] for l in host.get("/api/host/log").get_json()["lines"]}
    assert lines[2] and not lines[3] and lines[4] and not lines[5]
    resp = host.post("/api/host/correct", json={"event": 5, "card": "red_9"})
    assert resp.status_code == 409  # the referee agrees: not in effect


def test_host_card_and_score_fix(game, host):
    assert host.post("/api/host/card", json={"card": "red_9"}).status_code == 200
    assert game.state["top"] == "red_9"
    assert host.post("/api/host/score_fix", json={"hand": 1, "player": "Ann", "points": "x"}).status_code == 400
    typo = host.post("/api/host/score_fix", json={"hand": 1, "player": "Ann", "points": 1_000_000_000})
    assert typo.status_code == 400 and typo.get_json()["say"] == {"k": "err.points_over_deck", "a": {"most": 2480}}


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


def test_host_page_shows_every_option_with_a_label_and_help(host):
    from html import escape

    from web.i18n import t

    html = host.get("/host").get_data(as_text=True)
    for name in ("deck", "hand_size", "first_card", "target", "hands", "scoring", "uno_penalty", "uno_catch",
                 "illegal_play_penalty", "stacking", "dealer_rotation", "jump_in", "seven_zero",
                 "draw_until_playable", "deflect", "multiple_play", "no_action_finish", "no_wild_finish",
                 "hand_limit", "elimination", "teams", "double_score", "turn_seconds"):
        assert f'name="{name}"' in html
        assert escape(t(f"opt.{name}", "en"), quote=False) in html and escape(t(f"opt.{name}.help", "en"), quote=False) in html
    assert 'value="cross"' in html and "hand_size</" not in html  # words, not raw setting names


# -- input limits: 413, short echoes, type checks, depth (issue 22) ------------------------------


def test_body_over_64_kb_is_413_and_changes_nothing(game, host):
    before = len(game.events)
    resp = host.post("/api/host/card", data=json.dumps({"card": "red_1", "pad": "x" * 70_000}),
                     content_type="application/json")
    assert resp.status_code == 413 and "64 KB" in resp.get_json()["error"]
    assert len(game.events) == before


def test_a_huge_card_name_is_echoed_only_as_a_short_prefix(game, host):
    resp = host.post("/api/host/card", json={"card": "z" * 60_000})
    assert resp.status_code == 400
    assert len(resp.get_data()) < 400 and "60002 characters" in resp.get_json()["error"]


@pytest.mark.parametrize("path,body", [
    ("/api/act", {"action": ["draw"]}), ("/api/act", {"action": {}}), ("/api/act", {"action": 7}),
    ("/api/act", {"action": "color", "color": ["red"]}), ("/api/act", {"action": "catch", "target": {}}),
    ("/api/act", {"action": "target", "player": [1]}),
    ("/api/seat", {"player": {}}), ("/api/seat", {"player": ["Ann"]}),
    ("/api/host/game", {"players": PLAYERS, "rules": {"deck": []}}),
    ("/api/host/game", {"players": PLAYERS, "rules": {"stacking": {"a": 1}}}),
    ("/api/host/game", {"players": [["Ann"], "Bob"]}), ("/api/host/game", {"players": "Ann,Bob"}),
    ("/api/host/game", {"players": PLAYERS, "rules": ["deck"]}),
    ("/api/host/deal", {"dealer": ["Ann"]}), ("/api/host/deal", {"dealer": 3}),
    ("/api/host/card", {"card": {}}), ("/api/host/card", {"type": ["play"], "card": "red_1"}),
    ("/api/host/card", {"card": "red_1", "color": []}),
    ("/api/host/correct", {"event": [0], "card": "red_1"}), ("/api/host/correct", {"event": 1e300, "card": "red_1"}),
    ("/api/host/points", {"player": "Ann", "points": 10**30}), ("/api/host/verdict", {"guilty": [True]}),
    ("/api/host/release", {"player": {"x": 1}}), ("/api/host/login", {"pin": ["4321"]}),
    ("/api/host/zones", {"frame": [1e308, 480], "discard": []}),
])
def test_every_field_is_type_checked_no_500(game, app, host, path, body):
    _seat(app, "Ann")
    client = host if path.startswith("/api/host") else _seat(app, "Bob") if path == "/api/act" else _phone(app)
    before = (len(game.events), json.dumps(game.state, sort_keys=True))
    resp = client.post(path, json=body)
    assert 400 <= resp.status_code < 500, (path, body, resp.status_code, resp.get_data()[:200])
    assert resp.get_json()["error"]
    assert (len(game.events), json.dumps(game.state, sort_keys=True)) == before


@pytest.mark.parametrize("raw", [b"[" * 200_000 + b"]" * 200_000, b'{"a":' * 30_000 + b"1" + b"}" * 30_000,
                                 b"[" * 20_000, b'{"action": NaN}', b'{"action": "draw", "x": 1e999}',
                                 b"\xff\xfe", b"", b"null", b'"draw"', b"[1, 2]", b'{"action": "\\ud800"}'])
def test_hostile_bodies_are_one_line_400s(game, app, raw):
    ann = _seat(app, "Ann")
    before = len(game.events)
    resp = ann.post("/api/act", data=raw, content_type="application/json")
    assert resp.status_code in (400, 413) and len(resp.get_json()["error"]) < 120
    assert len(game.events) == before


@pytest.mark.parametrize("text, depth", [
    ('{"a": [[1]], "b": "[[[[\\"]]]"}', 3),  # brackets in a string, an escaped quote inside it
    ('{"a": "x\\\\"}', 1),                 # an escaped backslash ends before the closing quote
    ('{"a": "' + '\\"' * 20_000, 1),       # an unterminated string of escaped quotes (the probe's body)
    ('[' * 17 + ']' * 17, 17),
])
def test_nesting_is_counted_outside_strings_in_one_pass(text, depth):
    # a pattern for strings rescanned an unterminated one from each quote: 64 KB took 12 s, with
    # every page of the table held up meanwhile; the one pass counts the same depths
    from web.inputs import json_depth

    assert json_depth(text) == depth


def test_a_lone_surrogate_in_a_login_is_a_400_not_a_crash(app):
    resp = _phone(app).post("/api/host/login", data=b'{"pin": "\\ud800abc"}', content_type="application/json")
    assert resp.status_code == 400 and "Unicode" in resp.get_json()["error"]


def test_rejected_new_game_unseats_nobody(game, app, host):
    ann = _seat(app, "Ann")
    resp = host.post("/api/host/game", json={"players": PLAYERS, "rules": {"deck": "clasic"}})
    assert resp.status_code == 409  # the referee refused the typo
    assert ann.post("/api/act", json={"action": "draw"}).status_code == 200  # Ann is still seated
    assert host.post("/api/host/game", json={"players": PLAYERS}).status_code == 200
    assert ann.get("/api/seat").get_json()["player"] == "Ann"  # the same people again: Ann keeps her seat
    assert host.post("/api/host/game", json={"players": ["Bob", "Cat", "Dan"]}).status_code == 200
    assert ann.post("/api/act", json={"action": "uno"}).status_code == 403  # a game without her frees it
    assert ann.get("/api/seat").get_json() == {"player": None, "taken": []}


def test_a_catch_is_answered_with_what_the_referee_decided(referee, app, host):
    # Bob and Cat both catch Ann, who is down to one card without calling UNO!: each phone's
    # reply carries the words of what the referee decided (the toast says it), not just "sent".
    assert host.post("/api/host/game", json={"players": PLAYERS, "rules": {"hand_size": 2}}).status_code == 200
    assert host.post("/api/host/deal", json={"dealer": "Cat"}).status_code == 200
    referee.submit({"type": "flip", "card": "red_5"}, source="camera")
    bob, cat = _seat(app, "Bob"), _seat(app, "Cat")
    referee.submit({"type": "play", "player": "Ann", "card": "red_7"}, source="camera")
    hit = bob.post("/api/act", json={"action": "catch", "target": "Ann"}).get_json()
    again = cat.post("/api/act", json={"action": "catch", "target": "Ann"}).get_json()
    assert [n["say"]["k"] for n in hit["notices"]] == ["notice.uno_caught"]
    assert [n["say"] for n in again["notices"]] == [{"k": "notice.catch_void", "a": {"player": "Ann"}}]


def test_a_seat_asked_without_its_field_names_the_field(game, app):
    resp = _phone(app).post("/api/seat", json={"name": "Ann"})  # "player" is the field
    assert resp.status_code == 400 and resp.get_json()["error"].startswith('name the player: "player": one of Ann')


@pytest.mark.parametrize("name, key", [("A" * 41, "err.name_long"), ("Ann\tBob", "err.name_chars")])
def test_a_refused_name_says_why(host, name, key):
    resp = host.post("/api/host/game", json={"players": [name, "Cy"]})
    assert resp.status_code == 400 and resp.get_json()["say"]["k"] == key


def test_an_emoji_joined_of_several_is_a_name(host, referee):
    family = "Zo\u00eb \U0001f468\u200d\U0001f469\u200d\U0001f467"  # 👨‍👩‍👧: three people, two joiners
    assert host.post("/api/host/game", json={"players": [family, "Cy"]}).status_code == 200
    assert referee.state["players"][0]["name"] == family


# -- sessions, seats and keys that survive a restart --------------------------------------------


def _restart(tmp_path, old_client, **extra):
    """The same data folder and store, a new app (a restarted companion); the phone's cookies."""
    app = create_app({"HOST_PIN": PIN, "TESTING": True, "DATA_DIR": str(tmp_path), **extra},
                     referee=Referee(EventStore(tmp_path / "games.db")))
    client = app.test_client()
    for cookie in old_client._cookies.values():
        client.set_cookie(cookie.key, cookie.value)
    client.environ_base.update(old_client.environ_base)
    return app, client


def test_secret_key_is_made_once_in_the_data_folder_with_mode_0600(tmp_path):
    import os
    import stat

    first = create_app({"TESTING": True, "DATA_DIR": str(tmp_path)})
    key = tmp_path / "secret_key"
    assert stat.S_IMODE(os.stat(key).st_mode) == 0o600
    second = create_app({"TESTING": True, "DATA_DIR": str(tmp_path)})
    assert first.secret_key == second.secret_key == key.read_text().strip()


def test_seats_and_host_session_survive_a_restart(tmp_path):
    app = create_app({"HOST_PIN": PIN, "TESTING": True, "DATA_DIR": str(tmp_path)},
                     referee=Referee(EventStore(tmp_path / "games.db")))
    host = _phone(app)
    assert host.post("/api/host/login", json={"pin": PIN}).status_code == 200
    assert host.post("/api/host/game", json={"players": PLAYERS}).status_code == 200
    assert host.post("/api/host/deal", json={"dealer": "Cat"}).status_code == 200
    assert host.post("/api/host/card", json={"type": "flip", "card": "red_5"}).status_code == 200
    ann = _seat(app, "Ann")
    _, host2 = _restart(tmp_path, host)
    app2, ann2 = _restart(tmp_path, ann)
    ann2 = app2.test_client()
    for cookie in ann._cookies.values():
        ann2.set_cookie(cookie.key, cookie.value)
    ann2.environ_base.update(ann.environ_base)
    # the same CSRF token and seat cookie still work: Ann acts without taking her seat again
    assert ann2.post("/api/act", json={"action": "draw"}).status_code == 200
    stranger = _phone(app2)
    assert stranger.post("/api/seat", json={"player": "Ann"}).status_code == 409
    assert host2.get("/api/host/log").status_code == 200  # still the host


def test_logout_ends_the_host_session_on_the_server(app, host):
    copied = app.test_client()
    for cookie in host._cookies.values():
        copied.set_cookie(cookie.key, cookie.value)
    copied.environ_base.update(host.environ_base)
    assert copied.get("/api/host/log").status_code == 200
    assert host.post("/api/host/logout", json={}).status_code == 200
    assert copied.get("/api/host/log").status_code == 403  # the copy made before logout is dead
    assert copied.post("/api/host/undo", json={}).status_code == 403


def test_one_time_host_link_logs_in_once(app):
    token = app.extensions["uno"].access.new_host_link(60)
    # a link preview or a scanner asks for the head first: it neither uses the link up nor is host
    scanner = app.test_client()
    assert scanner.head(f"/host/link/{token}").status_code == 200
    assert scanner.get("/api/host/log").status_code == 403
    phone = app.test_client()
    resp = phone.get(f"/host/link/{token}")
    assert resp.status_code == 200 and "host" in resp.get_data(as_text=True)
    assert phone.get("/api/host/log").status_code == 200
    again = app.test_client()
    used = again.get(f"/host/link/{token}")
    assert used.status_code == 403
    # the host page's login, with its menu, saying why: not a bare line with nowhere to go
    html = used.get_data(as_text=True)
    assert 'id="login"' in html and "<nav>" in html and t("host.link_used", "en").split(" (")[0] in html
    assert again.get("/api/host/log").status_code == 403


# -- exactly once from phones ------------------------------------------------------------------


def test_a_retried_request_gets_its_first_answer_and_stores_nothing(game, app):
    ann = _seat(app, "Ann")
    first = ann.post("/api/act", json={"action": "draw"}, headers={"X-Request-Id": "tap-0001-abcdef"})
    assert first.status_code == 200
    events, state = len(game.events), json.dumps(game.state, sort_keys=True)
    # The reply was lost; the phone sends the same request again (the turn has not moved yet).
    again = ann.post("/api/act", json={"action": "draw"}, headers={"X-Request-Id": "tap-0001-abcdef"})
    assert again.status_code == 200 and again.get_json() == first.get_json()
    assert again.headers["X-Replayed"] == "1"
    assert (len(game.events), json.dumps(game.state, sort_keys=True)) == (events, state)
    # Ann passes: the turn moves on. A late retry of the draw still gets the draw's answer.
    assert ann.post("/api/act", json={"action": "pass"}, headers={"X-Request-Id": "tap-0002-abcdef"}).status_code == 200
    late = ann.post("/api/act", json={"action": "draw"}, headers={"X-Request-Id": "tap-0001-abcdef"})
    assert late.status_code == 200 and late.get_json() == first.get_json()
    assert [e["type"] for e in game.store.events(game.game_id)].count("draw") == 1


def test_a_retry_after_a_restart_is_answered_from_the_store(tmp_path):
    app = create_app({"HOST_PIN": PIN, "TESTING": True, "DATA_DIR": str(tmp_path)},
                     referee=Referee(EventStore(tmp_path / "games.db")))
    host = _phone(app)
    host.post("/api/host/login", json={"pin": PIN})
    host.post("/api/host/game", json={"players": PLAYERS})
    host.post("/api/host/deal", json={"dealer": "Cat"})
    first = host.post("/api/host/card", json={"type": "flip", "card": "red_5"}, headers={"X-Request-Id": "flip-red-5-x"})
    app2, host2 = _restart(tmp_path, host)
    referee2 = app2.extensions["uno"].referee
    before = len(referee2.events)
    again = host2.post("/api/host/card", json={"type": "flip", "card": "red_5"}, headers={"X-Request-Id": "flip-red-5-x"})
    assert again.status_code == first.status_code == 200 and again.get_json() == first.get_json()
    assert len(referee2.events) == before


def test_a_rejected_event_retried_gets_the_same_refusal(game, app):
    ann = _seat(app, "Ann")
    first = ann.post("/api/act", json={"action": "pass"}, headers={"X-Request-Id": "pass-early-01"})
    assert first.status_code == 409
    n = len(game.events)
    again = ann.post("/api/act", json={"action": "pass"}, headers={"X-Request-Id": "pass-early-01"})
    assert again.status_code == 409 and again.get_json() == first.get_json() and len(game.events) == n


@pytest.mark.parametrize("value", ["short", "x" * 65, "no spaces allowed", "é" * 10])
def test_a_malformed_request_id_is_400(game, app, value):
    ann = _seat(app, "Ann")
    n = len(game.events)
    resp = ann.post("/api/act", json={"action": "draw"}, headers={"X-Request-Id": value})
    assert resp.status_code == 400 and len(game.events) == n


def test_another_phone_cannot_use_a_request_id(game, app):
    ann = _seat(app, "Ann")
    assert ann.post("/api/act", json={"action": "draw"}, headers={"X-Request-Id": "ann-draw-0001"}).status_code == 200
    bob = _seat(app, "Bob")
    n = len(game.events)
    resp = bob.post("/api/act", json={"action": "uno"}, headers={"X-Request-Id": "ann-draw-0001"})
    assert resp.status_code == 409 and "another sender" in resp.get_json()["error"] and len(game.events) == n


def test_the_page_script_sends_a_request_id_with_every_post(app):
    js = app.test_client().get("/static/app.js").get_data(as_text=True)
    assert '"X-Request-Id": id' in js and "getRandomValues" in js


def test_the_page_script_is_served_without_its_comment_lines(app):
    # a sixth of its bytes: the host page with the camera picture went over its 150 KB
    from pathlib import Path

    client = app.test_client()
    resp = client.get("/static/app.js")
    js, source = resp.get_data(as_text=True), (Path(app.static_folder) / "app.js").read_text(encoding="utf-8")
    assert not [line for line in js.split("\n") if line.lstrip().startswith("//")]
    assert len(js) < 0.9 * len(source) and "function toast(" in js and resp.mimetype == "text/javascript"
    assert client.get("/static/app.js", headers={"If-None-Match": resp.headers["ETag"]}).status_code == 304
    assert client.get("/static/app.css").status_code == 200  # the other files as Flask serves them


def test_disk_full_is_a_one_line_503_and_nothing_is_acknowledged(game, app):
    ann = _seat(app, "Ann")
    store = game.store
    store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    pages = store._db.execute("PRAGMA page_count").fetchone()[0]
    store._db.execute(f"PRAGMA max_page_count={pages}")
    stored = store.events(game.game_id)
    refused = None
    for i in range(400):  # fill the last page with rejected UNO calls, until a write fails
        app.extensions["uno"].refused_taps.clear()  # (a phone's refused taps are capped per minute)
        resp = ann.post("/api/act", json={"action": "uno"}, headers={"X-Request-Id": f"fill-{i:04d}-x"})
        if resp.status_code == 503:
            refused = resp
            break
        stored = store.events(game.game_id)
    assert refused is not None and "full" in refused.get_json()["error"] and "\n" not in refused.get_json()["error"]
    assert refused.get_json()["say"] == {"k": "err.not_saved", "a": {}}  # the phone's toast says why, not "error 503"
    assert store.events(game.game_id) == stored == game.events  # nothing half-stored, nothing announced
    # a watchdog asking /api/health hears that the store does not write
    assert app.test_client().get("/api/health").get_json()["store"] == "failing"
    store._db.execute("PRAGMA max_page_count=1073741823")
    again = ann.post("/api/act", json={"action": "draw"}, headers={"X-Request-Id": f"fill-{i:04d}-x"})
    assert again.status_code == 200 and again.headers.get("X-Replayed") is None  # it was never stored
    assert app.test_client().get("/api/health").get_json()["store"] == "ok"


_JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
                     | st.text(max_size=20),
                     lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=10), inner, max_size=4),
                     max_leaves=12)
_FIELDS = st.sampled_from(["action", "color", "player", "target", "players", "rules", "dealer", "event", "card",
                           "points", "hand", "guilty", "type", "pin", "frame", "discard"])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.sampled_from(["/api/act", "/api/seat", "/api/seat/leave", "/api/host/game", "/api/host/deal",
                             "/api/host/correct", "/api/host/points", "/api/host/score_fix", "/api/host/verdict",
                             "/api/host/card", "/api/host/release", "/api/host/zones"]),
       body=st.dictionaries(_FIELDS, _JSON, max_size=4) | _JSON)
def test_no_body_makes_a_500(game, app, host, path, body):
    app.extensions["uno"].seats.reset()  # examples share the app: Ann's seat is free again
    client = host if path.startswith("/api/host") else _seat(app, "Ann") if path == "/api/act" else _phone(app)
    resp = client.post(path, data=json.dumps(body), content_type="application/json")
    assert resp.status_code < 500, (path, body, resp.get_data()[:200])
    assert len(resp.get_data()) < 2000


def test_a_timed_turn_is_never_served_from_a_stale_cache(referee, host):
    # /api/state and new streams are answered from a cached text; a turn timer's elapsed
    # seconds grow, so a timed state is made afresh on every read.
    from web.hub import LiveHub

    host.post("/api/host/game", json={"players": PLAYERS, "rules": {"turn_seconds": 20}})
    host.post("/api/host/deal", json={"dealer": "Cat"})
    now = [50.0]
    hub = LiveHub(referee, clock=lambda: now[0])
    referee.submit({"type": "flip", "card": "red_5"}, source="camera")
    assert json.loads(hub.state_json())["turn_clock"] == {"seconds": 20, "elapsed": 0.0}
    now[0] = 57.0
    assert hub.cached_state_json() is None
    assert json.loads(hub.state_json())["turn_clock"] == {"seconds": 20, "elapsed": 7.0}


def test_a_mistyped_table_option_is_named_with_its_likely_meaning(game, host):
    resp = host.post("/api/host/game", json={"players": PLAYERS, "rules": {"stackin": True}})
    assert resp.status_code == 400
    assert resp.get_json()["error"] == "unknown table option 'stackin': did you mean 'stacking'?"


def test_a_full_card_says_so_when_the_host_logs_in(referee):
    # the failed COMMIT had rolled back already, and the ROLLBACK's own error ("cannot rollback -
    # no transaction is active") was what the host read
    import sqlite3

    app = create_app({"HOST_PIN": PIN, "TESTING": True}, referee=referee)
    access = app.extensions["uno"].access

    class FullCard:
        def __init__(self, db):
            self.db = db

        def execute(self, sql, *args):
            if sql == "COMMIT":
                self.db.execute("ROLLBACK")
                raise sqlite3.OperationalError("database or disk is full")
            return self.db.execute(sql, *args)

    access._db = FullCard(access._db)
    resp = _phone(app).post("/api/host/login", json={"pin": PIN})
    assert resp.status_code == 503 and "the card is full" in resp.get_json()["error"]


def test_the_seats_kept_for_undone_new_games_stop_at_the_last_ten(referee):
    # an evening of 26 new games kept 130 seat rows, never removed
    from web.access import KEPT_GAMES, AccessStore

    access = AccessStore(":memory:")
    for n in range(26):
        access.take_seat("Ann", None)
        access.reset_seats(f"g{n}", ["Bob"])
    games = {g for (g,) in access._run("read", "SELECT game_id FROM kept_seats")}
    assert games == {f"g{n}" for n in range(26 - KEPT_GAMES, 26)}
    assert access.seats_back("g25") and access.taken() == ["Ann"]


def test_the_host_log_says_what_a_line_made_someone_draw(referee, host):
    # undoing Cid's card took back "Ann draws 2" too, and nobody was told to put the cards back
    for event in ({"type": "game", "players": ["Ann", "Bob", "Cid"], "rules": {"hand_size": 2}},
                  {"type": "deal", "dealer": "Cid"}, {"type": "flip", "card": "red_5"},
                  {"type": "play", "card": "red_7"}, {"type": "play", "card": "red_2"}):  # Ann forgot UNO!
        referee.submit(event, source="host")
    last = host.get("/api/host/log").get_json()["lines"][-1]
    assert last["line"]["card"] == "red_2" and last["drawn"] == [{"player": "Ann", "n": 2}]
