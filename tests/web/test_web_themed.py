"""The phone page with themed decks (issue 21), through Flask's test client: card art for every
themed name, the phones' new decisions (a Flip's new top card, a reflect card, "I drew N"), and
the referee's themed notices and refusals in plain words in both languages."""
from __future__ import annotations

import re
import xml.dom.minidom

import pytest

from companion.referee.cards import DARK_NAMES, THEMED_NAMES
from companion.referee.engine import Table
from web import create_app
from web.cardsvg import FILL, card_svg
from web.i18n import LANGS, t
from web.messages import error_say, notice_say
from test_i18n import _themed_notices
from test_web import PIN, _phone, _seat, app, host, referee  # noqa: F401  (fixtures)


@pytest.mark.parametrize("name", THEMED_NAMES)
def test_every_themed_card_has_its_art(app, name):
    resp = app.test_client().get(f"/cards/{name}.svg")
    assert resp.status_code == 200 and resp.mimetype == "image/svg+xml"
    svg = resp.get_data(as_text=True)
    doc = xml.dom.minidom.parseString(svg)  # well-formed: the browser draws it
    label = doc.documentElement.getAttribute("aria-label")
    assert label and "_" not in label
    assert len(svg) < 1500  # a face stays a few hundred bytes
    colour = name.split("_")[0]
    if colour in FILL:
        assert FILL[colour] in svg  # printed in its own colour
    # the dark side's faces have a black border, the light side's a white one
    border = re.search(r'<rect x="0.5" y="0.5"[^>]*fill="(#[0-9a-f]+)"', svg).group(1)
    assert (border == "#0b0b0b") == (name in DARK_NAMES), (name, border)


def test_themed_faces_differ_from_each_other():
    faces = {card_svg(n) for n in THEMED_NAMES}
    assert len(faces) == len(THEMED_NAMES)
    # a dark wild names the dark colours, a light one the light colours
    assert FILL["pink"] in card_svg("dark_wild") and FILL["red"] not in card_svg("dark_wild")
    assert FILL["red"] in card_svg("wild_draw_two") and FILL["pink"] not in card_svg("wild_draw_two")


def _flip_game(referee, host, rules=None, players=("Ann", "Bob", "Cat")):
    assert host.post("/api/host/game", json={"players": list(players), "rules": rules or {"deck": "flip"}}).status_code == 200
    assert host.post("/api/host/deal", json={"dealer": "Cat"}).status_code == 200
    referee.submit({"type": "flip", "card": "red_5"}, source="camera")


@pytest.fixture
def nocam(referee):
    return create_app({"HOST_PIN": PIN, "TESTING": True, "TABLE_MODE": "none"}, referee=referee)


def test_the_player_who_flipped_says_the_new_top_card(nocam, referee):
    host = _phone(nocam)
    assert host.post("/api/host/login", json={"pin": PIN}).status_code == 200
    _flip_game(referee, host)
    ann, cat = _seat(nocam, "Ann"), _seat(nocam, "Cat")
    assert ann.post("/api/act", json={"action": "play", "card": "red_flip"}).status_code == 200
    assert referee.state["waiting_for"] == "flip" and referee.state["turned_by"] == "Ann"
    # the dealer does not say it this time: the Flip's player does
    resp = cat.post("/api/act", json={"action": "flip", "card": "pink_3"})
    assert resp.status_code == 403 and resp.get_json()["say"] == {"k": "err.not_turner", "a": {"player": "Ann"}}
    # a light face now is refused in plain words
    resp = ann.post("/api/act", json={"action": "flip", "card": "red_3"})
    assert resp.status_code == 409 and resp.get_json()["say"] == {"k": "err.face_light", "a": {"card": "red_3"}}
    assert ann.post("/api/act", json={"action": "flip", "card": "pink_3"}).status_code == 200
    state = referee.state
    assert (state["side"], state["top"], state["color"], state["turn"]) == ("dark", "pink_3", "pink", "Bob")
    # a wild draw colour on the dark side: colours of the light side are refused, then
    # the victim says how many cards they drew while it could still be challenged
    bob = _seat(nocam, "Bob")
    resp = bob.post("/api/act", json={"action": "play", "card": "wild_draw_colour"})
    assert resp.status_code == 200 and referee.state["waiting_for"] == "color"
    resp = bob.post("/api/act", json={"action": "color", "color": "red"})
    assert resp.status_code == 409 and resp.get_json()["say"]["k"] == "err.colour_dark"
    assert bob.post("/api/act", json={"action": "color", "color": "teal"}).status_code == 200
    assert referee.state["draw_until"] == {"player": "Cat", "color": "teal"}
    assert referee.state["waiting_for"] == "challenge"
    for bad in (0, -2, "3", 201):
        assert cat.post("/api/act", json={"action": "accept", "count": bad}).status_code == 400, bad
    before = next(p["cards"] for p in referee.state["players"] if p["name"] == "Cat")
    resp = cat.post("/api/act", json={"action": "accept", "count": 3})
    assert resp.status_code == 200
    assert notice_say(resp.get_json()["notices"][0]) == {"k": "notice.drew_until", "a": {"player": "Cat", "n": 3, "color": "teal"}}
    assert next(p["cards"] for p in referee.state["players"] if p["name"] == "Cat") == before + 3
    assert referee.state["turn"] == "Ann" and referee.state["draw_until"] is None


def test_a_reflect_card_from_the_phone_even_with_a_camera(app, host, referee):
    _flip_game(referee, host, {"mario_reflect": 2})
    referee.submit({"type": "play", "card": "red_draw_two"}, source="camera")  # Ann hits Bob
    bob, ann = _seat(app, "Bob"), _seat(app, "Ann")
    # the camera reads the classic cards; a reflect card is no model class, its phone says it
    assert ann.post("/api/act", json={"action": "play", "card": "red_7"}).status_code == 403
    resp = bob.post("/api/act", json={"action": "play", "card": "mario_reflect"})
    assert resp.status_code == 200
    say = notice_say(next(n for n in resp.get_json()["notices"] if n["kind"] == "reflect"))
    assert say == {"k": "notice.reflect", "a": {"player": "Ann", "n": 2, "by": "Bob"}}
    assert referee.state["waiting_for"] == "color" and referee.state["turn"] == "Bob"
    assert bob.post("/api/act", json={"action": "color", "color": "green"}).status_code == 200


def test_a_reflect_card_answers_a_wild_draw_four_that_may_be_challenged(nocam, referee):
    host = _phone(nocam)
    host.post("/api/host/login", json={"pin": PIN})
    _flip_game(referee, host, {"mario_reflect": 1})
    referee.submit({"type": "play", "card": "wild_draw_four", "color": "blue"}, source="host")
    assert referee.state["waiting_for"] == "challenge"
    assert _seat(nocam, "Bob").post("/api/act", json={"action": "play", "card": "mario_reflect"}).status_code == 200
    assert referee.state["waiting_for"] == "color"


def test_themed_notices_have_their_own_words_in_both_languages():
    keys = set()
    for notice in _themed_notices():
        assert notice["kind"] != "rejected", notice
        say = notice_say(notice)
        assert say["k"] not in ("notice.other", "notice.draws", "notice.illegal_any"), notice
        keys.add(say["k"])
        for lang in LANGS:
            text = t(say["k"], lang, say["a"])
            assert "{" not in text and "_" not in text, (lang, text)
    assert {"notice.hit_first_d1", "notice.hit_d1", "notice.hit_d5", "notice.drew_until", "notice.challenge_failed_d2",
            "notice.upheld_until", "notice.failed_until", "notice.reflect", "notice.drew_until_gryffindor"} <= keys
    assert t("notice.drew_until", "it", {"player": "Cat", "n": 1, "color": "teal"}) == \
        "Cat ha pescato 1 carta fino a una carta di colore turchese"
    assert t("notice.drew_until_gryffindor", "en", {"player": "Bob", "n": 2}) == "Bob drew 2 cards until a Gryffindor card"
    # an orange card: the engine's words and the page's ("a orange card" before)
    say = notice_say({"event": 9, "kind": "penalty_draw", "player": "Dee", "message": "Dee drew 5 until an orange card"})
    assert t(say["k"], "en", say["a"]) == "Dee drew 5 cards until orange turned up"


@pytest.mark.parametrize("rules,events,key", [
    ({"deck": "flip"}, [{"type": "play", "card": "pink_3"}], "err.face_dark"),
    ({"deck": "flip"}, [{"type": "play", "card": "wild", "color": "pink"}], "err.colour_light"),
    ({"deck": "flip"}, [{"type": "play", "card": "wild_draw_two", "color": "blue"}, {"type": "draw", "count": 2, "player": "Cat"}],
     "err.not_turn"),
    ({"dementor": 1}, [{"type": "play", "card": "dementor", "color": "red"}, {"type": "pass"}], "err.until_count_gryffindor"),
    ({"dementor": 1}, [{"type": "play", "card": "dementor", "color": "red"}, {"type": "draw", "count": 2, "player": "Cat"}],
     "err.until_first_gryffindor"),
    ({"deck": "flip"}, [{"type": "play", "card": "red_flip"}, {"type": "flip", "card": "pink_3"},
                        {"type": "play", "card": "wild_draw_colour", "color": "teal"}, {"type": "draw", "count": 500}],
     "err.only_left"),
    ({"discard_two": 1}, [{"type": "play", "card": "red_discard_two"}, {"type": "play", "card": "blue_5"}], "err.second_colour"),
    ({"discard_two": 1}, [{"type": "play", "card": "red_discard_two"}, {"type": "draw"}], "err.second_first"),
    ({"discard_two": 1}, [{"type": "play", "card": "red_discard_two"}, {"type": "play", "card": "red_2", "player": "Bob"}],
     "err.second_by"),
])
def test_themed_refusals_have_their_own_words(rules, events, key):
    table = Table()
    for event in ({"type": "game", "players": ["Ann", "Bob", "Cat"], "rules": rules}, {"type": "deal", "dealer": "Cat"},
                  {"type": "flip", "card": "red_5"}, *events[:-1]):
        assert all(n["kind"] != "rejected" for n in table.push(event)), event
    rejected = [n for n in table.push(events[-1]) if n["kind"] == "rejected"]
    say = error_say(rejected[0]["message"])
    assert say["k"] == key, rejected[0]["message"]
    for lang in LANGS:
        text = t(say["k"], lang, say["a"])
        assert "{" not in text and "_" not in text, (lang, text)


def test_flip_deck_options_refused_in_plain_words(host):
    resp = host.post("/api/host/game", json={"players": ["Ann", "Bob"], "rules": {"deck": "flip", "dementor": 2}})
    assert resp.status_code in (400, 409)
    say = resp.get_json()["say"]
    assert say == {"k": "err.flip_adds", "a": {"option": "dementor"}}
    assert t(say["k"], "it", say["a"]) == "“Carte Dissennatore” aggiunge carte a un mazzo classico, moderno o con scambio, non a UNO Flip"
    say = error_say("rule stacking is not defined for the flip deck's cards: leave it off with deck=flip")
    assert t(say["k"], "en", say["a"]) == "“Stacking” does not go with UNO Flip: leave it off"


def test_host_page_offers_the_themed_options_and_league_night(host):
    html = host.get("/host").get_data(as_text=True)
    for text in (t("opt.deck.flip"), t("opt.discard_two.help"), t("opt.mario_reflect.help"), t("opt.dementor.help"),
                 t("host.reveal_typed"), t("host.league"), t("host.league_vp.two_winners")):
        assert text in html, text
    assert 'name="discard_two"' in html and 'value="flip"' in html and 'id="leagueform"' in html
    page = _phone(host.application).get("/standings").get_data(as_text=True)
    assert t("st.tab_league") in page and 'id="lgtable"' in page
