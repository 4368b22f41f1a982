"""The page's languages: complete catalogues, every key used present, every notice and common
refusal in plain words in English and Italian."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from companion.referee.cards import CARD_NAMES, COLORS, DARK_COLORS, THEMED_NAMES
from companion.referee.engine import Table
from companion.referee.simulate import simulate_games
from web import create_app
from web.i18n import LANGS, card_label, catalogue, pick_lang, placeholders, t
from web.messages import error_say, notice_say

WEB = Path(__file__).resolve().parents[2] / "web"
PHASES = ("game", "deal", "flip", "play", "color", "target", "challenge", "evidence", "take_back", "scores", "game_over")
PREFIXES = ("app", "lang", "nav", "color", "side", "card", "sym", "pick", "what", "phase", "tbl", "timer", "nocam", "demo",
            "seat", "prompt", "btn", "lbl", "done", "err", "notice", "st", "tv", "host", "confirm", "opt")
_KEY = re.compile(r"""["']((?:%s)\.[A-Za-z0-9_.]+)["']""" % "|".join(PREFIXES))


def test_catalogues_have_the_same_keys_and_placeholders():
    en, it = catalogue("en"), catalogue("it")
    assert set(en) == set(it), set(en) ^ set(it)
    for key in en:
        assert placeholders(en[key]) == placeholders(it[key]), key
        assert en[key].strip() and it[key].strip(), key


def test_every_key_used_in_the_code_is_in_every_catalogue():
    used: set[str] = set()
    for path in [*WEB.glob("*.py"), *WEB.glob("templates/*.html"), *WEB.glob("static/*.js")]:
        used |= set(_KEY.findall(path.read_text(encoding="utf-8")))
    assert len(used) > 150  # the scan finds the keys (a broken pattern would pass with none)
    for lang in LANGS:
        missing = sorted(k for k in used if k not in catalogue(lang) and not k.endswith((".", ".css", ".js")))
        assert not missing, (lang, missing)


def test_dynamic_keys_exist_for_every_phase_colour_and_card():
    for lang in LANGS:
        texts = catalogue(lang)
        for phase in PHASES:
            assert f"phase.{phase}" in texts and f"what.{phase}" in texts
        for colour in COLORS + DARK_COLORS:
            assert f"color.{colour}" in texts
        for side in ("light", "dark"):
            assert f"side.{side}" in texts
        for name in CARD_NAMES + THEMED_NAMES:
            label = card_label(name, lang)
            assert "_" not in label and label, (lang, name)
    assert card_label("red_draw_two", "it") == "Pesca due rosso"
    assert card_label("wild_draw_four", "it") == "Jolly pesca quattro"
    assert card_label("blue_7", "en") == "blue 7"
    assert card_label("teal_skip_everyone", "it") == "Salta tutti turchese"
    assert card_label("dark_wild", "en") == "wild (dark side)" and card_label("dementor", "it") == "Dissennatore"
    # a themed deck's new card falls back to its own words, never to a missing key
    assert card_label("green_bonus_swap", "en") == "green bonus swap"


@pytest.mark.parametrize("lang", LANGS)
def test_texts_are_plain_words(lang):
    texts = catalogue(lang)
    developer = re.compile(r"catch void|take_back|waiting_for|_penalty|\bnull\b|\bevent\b|\bphase\b|[a-z]+_[a-z]+")
    for key, text in texts.items():
        assert not developer.search(re.sub(r"\{\w+\}", "", text)), (key, text)
    # with no camera nothing asks anyone to show their hand to a camera
    for key in [k for k in texts if "nocam" in k]:
        assert not re.search(r"camera's|to the camera|reveal area|della telecamera|alla telecamera", texts[key]), key
    if lang == "it":  # the table's own words (the Italian rule texts)
        words = " ".join(texts.values())
        for word in ("Pesca", "Passa", "UNO!", "Jolly pesca quattro", "Salta", "Inverti", "mazzo di pesca", "Mazziere"):
            assert word in words, word


def test_plural_and_arguments():
    assert t("tbl.cards", "en", {"n": 1}) == "1 card" and t("tbl.cards", "en", {"n": 3}) == "3 cards"
    assert t("tbl.cards", "it", {"n": 1}) == "1 carta" and t("tbl.cards", "it", {"n": 3}) == "3 carte"
    assert t("notice.illegal_play", "it", {"player": "Ann", "cards": ["red_5"], "top": "blue_7", "color": "blue", "n": 2}) \
        == "Ann non può giocare 5 rosso su 7 blu (blu): riprendila e pesca 2 carte"
    assert t("err.not_now", "en", {"phase": "take_back"}) == "Not now: the table is waiting for the wrong card to be taken back"


def test_language_picked_by_cookie_then_browser():
    from werkzeug.datastructures import LanguageAccept
    from werkzeug.http import parse_accept_header

    accept = parse_accept_header("it-IT,it;q=0.9,en;q=0.5", LanguageAccept)
    assert pick_lang(None, accept) == "it"
    assert pick_lang("en", accept) == "en"
    assert pick_lang("xx", parse_accept_header("de-DE", LanguageAccept)) == "en"


def _themed_notices() -> list[dict]:
    """Engine notices of the themed cards: effects, draws until a colour, reflect, challenges."""
    notices: list[dict] = []
    runs = [
        ({"deck": "flip"}, "red_draw_one", [{"type": "play", "card": "red_draw_one"},
         {"type": "play", "card": "red_flip"}, {"type": "flip", "card": "pink_3"},
         {"type": "play", "card": "pink_draw_five"}, {"type": "play", "card": "wild_draw_colour", "color": "teal"},
         {"type": "draw", "count": 1}, {"type": "play", "card": "wild_draw_colour", "color": "orange"},
         {"type": "draw", "count": 4}]),
        ({"deck": "flip"}, "red_5", [{"type": "play", "card": "wild_draw_two", "color": "blue"}, {"type": "challenge"},
         {"type": "verdict", "guilty": False}]),
        ({"deck": "flip"}, "red_5", [{"type": "play", "card": "red_flip"}, {"type": "flip", "card": "pink_3"},
         {"type": "play", "card": "wild_draw_colour", "color": "teal"}, {"type": "challenge"},
         {"type": "verdict", "guilty": True}]),
        ({"deck": "flip"}, "red_5", [{"type": "play", "card": "red_flip"}, {"type": "flip", "card": "pink_3"},
         {"type": "play", "card": "wild_draw_colour", "color": "teal"}, {"type": "challenge"},
         {"type": "verdict", "guilty": False}]),
        ({"mario_reflect": 2, "dementor": 2, "discard_two": 1}, "red_5", [
         {"type": "play", "card": "red_draw_two"}, {"type": "play", "card": "mario_reflect", "color": "green"},
         {"type": "play", "card": "dementor", "color": "green"}, {"type": "draw", "count": 2}]),
    ]
    for rules, first, events in runs:
        table = Table()
        for event in [{"type": "game", "players": ["Ann", "Bob", "Cat"], "rules": rules},
                      {"type": "deal", "dealer": "Cat"}, {"type": "flip", "card": first}, *events]:
            notices += table.push(event)
    return notices


def _notices_of_every_kind() -> list[dict]:
    """Engine notices of every kind a table meets: simulated games with mistakes and house
    rules, and a few hand-made moments the simulator does not make."""
    notices: list[dict] = []
    for rules in (None, {"stacking": True, "deflect": True, "elimination": 12, "double_score": True},
                  {"deck": "modern", "jump_in": True, "seven_zero": True}):
        table = Table()
        for event in simulate_games(4, 25, 7, rules=rules):
            table.push(event)
        notices += table.state["notices"]
    table = Table()
    for event in ({"type": "game", "players": ["Ann", "Bob", "Cat"], "rules": {"deck": "modern", "uno_catch": "players", "customizable": "draw_three"}},
                  {"type": "deal", "dealer": "Cat"}, {"type": "flip", "card": "red_5"},
                  {"type": "catch", "by": "Bob"},
                  {"type": "play", "card": "red_7", "read": [["red_1", 0.6], ["red_7", 0.35]]},
                  {"type": "correct", "event": 4, "card": "red_8"},
                  {"type": "play", "card": "wild_customizable", "color": "blue"},
                  {"type": "play", "card": "blue_2"}, {"type": "play", "card": "green_9"}):
        notices += table.push(event)
    table = Table()
    for event in ({"type": "game", "players": ["Ann", "Bob"], "rules": {"hand_size": 2, "no_action_finish": True}},
                  {"type": "deal", "dealer": "Bob"}, {"type": "flip", "card": "red_5"},
                  {"type": "uno", "player": "Ann"}, {"type": "play", "card": "red_2"},
                  {"type": "play", "card": "red_4"}, {"type": "play", "card": "red_skip"}):
        notices += table.push(event)
    table = Table()
    for event in ({"type": "game", "players": ["Ann", "Bob"], "rules": {"hand_size": 1}},
                  {"type": "deal", "dealer": "Bob"}, {"type": "flip", "card": "red_5"},
                  {"type": "play", "card": "red_3"},
                  {"type": "reveal", "player": "Bob", "cards": ["red_9", "blue_1"]}):
        notices += table.push(event)
    table = Table()  # each undo says what it took back: a play, a draw, the first card, a call, the deal
    for event in ({"type": "game", "players": ["Ann", "Bob"]}, {"type": "deal", "dealer": "Bob"},
                  {"type": "flip", "card": "red_5"}, {"type": "play", "card": "red_3"}, {"type": "undo"},
                  {"type": "draw"}, {"type": "undo"}, {"type": "undo"}, {"type": "undo"}):
        notices += table.push(event)
    return notices + _themed_notices()


def test_every_notice_kind_has_words_in_both_languages():
    kinds: dict[str, set[str]] = {}
    for notice in _notices_of_every_kind():
        say = notice_say(notice)
        kinds.setdefault(notice["kind"], set()).add(say["k"])
        if notice["kind"] == "rejected":
            continue
        assert say["k"] not in ("notice.other", "notice.draws", "notice.illegal_any"), notice
        for lang in LANGS:
            text = t(say["k"], lang, say["a"])
            assert "{" not in text and "_" not in text, (lang, text)
    for kind in ("illegal_play", "uno_called", "uno_penalty", "catch_void", "challenge_upheld", "challenge_failed",
                 "penalty_draw", "hand_won", "game_won", "count_mismatch", "reshuffle", "reading", "deflect",
                 "eliminated", "card_returned", "corrected", "reflect", "illegal_stands", "undone",
                 "jumped_in", "hands_swapped", "hands_passed", "hands_shuffled"):
        assert kind in kinds, kind
    assert {"notice.hit_custom", "notice.illegal_out", "notice.hand_won_double", "notice.reflect", "notice.hit_d5",
            "notice.drew_until", "notice.drew_until_gryffindor", "notice.failed_until", "notice.undone_play",
            "notice.undone_draw", "notice.undone_flip", "notice.undone_deal", "notice.hands_passed",
            "notice.hands_passed_ccw"} <= set().union(*kinds.values())


@pytest.mark.parametrize("event,key", [
    ({"type": "pass"}, "err.draw_first"),
    ({"type": "uno", "player": "Bob"}, "err.uno_no_window"),
    ({"type": "challenge"}, "err.not_now"),
    ({"type": "color", "color": "red"}, "err.not_now"),
    ({"type": "catch", "by": "Ann", "target": "Ann"}, "err.catch_self"),
    ({"type": "deal"}, "err.not_now"),
    ({"type": "undo"}, None),
])
def test_common_refusals_have_their_own_words(event, key):
    table = Table()
    for e in ({"type": "game", "players": ["Ann", "Bob", "Cat"]}, {"type": "deal", "dealer": "Cat"},
              {"type": "flip", "card": "red_5"}):
        table.push(e)
    notices = table.push(event)
    rejected = [n for n in notices if n["kind"] == "rejected"]
    if key is None:
        assert not rejected
        return
    say = error_say(rejected[0]["message"])
    assert say["k"] == key, rejected[0]["message"]
    for lang in LANGS:
        assert "{" not in t(say["k"], lang, say["a"])


def test_a_refusal_says_what_the_table_waits_for_in_words_and_the_page_in_its_language():
    # "not now: waiting for take_back" spoke the engine's language; the log, the CLI and the API
    # now say it in words, and the page still knows which phase it was, whatever it was
    from companion.referee.engine import WAITING_WORDS, not_now

    table = Table()
    for e in ({"type": "game", "players": ["Ann", "Bob"]},
              {"type": "deal", "dealer": "Ann"}, {"type": "flip", "card": "red_5"},
              {"type": "play", "card": "blue_7"}):  # a wrong card: it is to be taken back
        table.push(e)
    assert table.state["waiting_for"] == "take_back"
    message = [n for n in table.push({"type": "deal"}) if n["kind"] == "rejected"][0]["message"]
    assert message == "not now: waiting for the wrong card to be taken back"
    assert t("err.not_now", "it", error_say(message)["a"]) == t("err.not_now", "it", {"phase": "take_back"})
    for phase in WAITING_WORDS:
        assert "_" not in not_now(phase)
        assert error_say(not_now(phase)) == {"k": "err.not_now", "a": {"phase": phase}}


@pytest.mark.parametrize("mode", ["camera", "none", "demo"])
def test_every_view_renders_in_both_languages(mode):
    app = create_app({"HOST_PIN": "2468", "TABLE_MODE": mode})
    referee = app.extensions["uno"].referee
    for event in ({"type": "game", "players": ["Ann", "Bob", "Cat"]}, {"type": "deal", "dealer": "Cat"}):
        referee.submit(event)
    for lang in LANGS:
        client = app.test_client()
        client.set_cookie("uno_lang", lang)
        client.get("/")
        csrf = re.search(r'name="csrf" content="([^"]+)"', client.get("/host").get_data(as_text=True)).group(1)
        for host in (False, True):
            if host:
                assert client.post("/api/host/login", json={"pin": "2468"}, headers={"X-CSRF-Token": csrf}).status_code == 200
            for view in ("/", "/seat", "/standings", "/host", "/tv"):
                html = client.get(view).get_data(as_text=True)
                assert f'<html lang="{lang}">' in html
                texts = json.loads(re.search(r'<script id="texts" type="application/json">(.*?)</script>', html).group(1))
                assert texts == catalogue(lang)
                assert ('id="nocam"' in html) == (mode == "none" and view != "/standings" and view != "/tv")
        host_html = client.get("/host").get_data(as_text=True)
        assert t("opt.stacking.cross", lang) in host_html and t("host.preset_official", lang) in host_html


def test_language_switch_sets_a_cookie_and_stays_on_the_page():
    client = create_app({"HOST_PIN": "2468"}).test_client()
    resp = client.get("/lang/it?next=/standings")
    assert resp.status_code == 303 and resp.headers["Location"].endswith("/standings")
    assert "uno_lang=it" in resp.headers["Set-Cookie"]
    assert '<html lang="it">' in client.get("/standings").get_data(as_text=True)
    assert client.get("/lang/it?next=//evil.example/x").headers["Location"].endswith("/")
    assert client.get("/lang/de").status_code == 404


@pytest.mark.parametrize("message, key", [
    ("rule teams needs 4 or 6 players (2 vs 2 or 3 vs 3, partners seated alternately), not 3", "err.teams_players"),
    ("rule turn_seconds takes a whole number 5-600 (or null for off), not 2", "err.rule_range"),
    ("rule target takes a whole number of at least 50, not 3", "err.rule_min"),
    ("Bob is Dee's partner: a partner's cards do not score", "err.partner_points"),
    ("correcting event 2 to wild_draw_four would reject event 3", "err.correct_breaks"),
    ('"points" must be a whole number of at least 0, not -10', "err.bad_points"),
    ("rule hand_limit=5 must be above hand_size (7): every player starts with 7 cards", "err.rule_above_hand"),
    ("rule elimination=1 must be above hand_size (1): every player starts with 1 cards", "err.rule_above_hand"),
    ("3 hands of 40 do not fit in a 108-card deck", "err.hands_dont_fit"),
    ("rule dementor takes a count 0-8, not 9", "err.rule_range"),
    ("no four distinct colours found: the colours came out of their order (red, yellow, green, blue), so "
     "something else in a card's picture was measured", "err.calibrate_order"),
    ("no four distinct colours found: two of the cards are one colour, one of them in shade; lay one red, one "
     "yellow, one green and one blue card in the same light", "err.calibrate_shade"),
    ("no four distinct colours found: no red or blue card among the 5 seen; lay one red, one yellow, one green "
     "and one blue card", "err.calibrate_missing"),
])
def test_the_host_pages_refusals_have_their_own_words(message, key):
    # these reached the Italian host page in English after "Non accettato:"
    say = error_say(message)
    assert say["k"] == key
    for lang in LANGS:
        text = t(say["k"], lang, say["a"])
        assert "{" not in text and "rule" not in text, (lang, text)


def test_a_colour_missing_from_the_set_up_is_named_in_the_page_language():
    say = error_say("no four distinct colours found: no red or blue card among the 5 seen; lay one red, one yellow, "
                    "one green and one blue card")
    assert t(say["k"], "it", say["a"]).startswith("Carte viste: 5, nessuna di colore rosso, blu.")
    assert t(say["k"], "en", say["a"]).startswith("Cards seen: 5, none of them red, blue.")


@pytest.mark.parametrize("lang", LANGS)
def test_one_takes_the_singular(lang):
    # "pesca 1 carte", "1 punti", "1 hands": every text counting {n} has its `_one` where it needs one
    plural = re.compile(r"\b1 (cards|points|hands|pts|carte|punti|mani)\b|\b1 cards? are\b|\bCi sono 1\b")
    for key, text in catalogue(lang).items():
        if "{n}" not in text or key.endswith("_one"):
            continue
        args = {name: "X" for name in re.findall(r"\{(\w+)\}", text)}
        said = t(key, lang, {**args, "n": 1})
        assert not plural.search(said), (key, said)


def test_a_team_winning_the_game_is_said_in_the_plural():
    table = Table()
    for event in ({"type": "game", "players": ["Ann", "Bob", "Cat", "Dan"],
                   "rules": {"teams": True, "hand_size": 1, "target": 10}},
                  {"type": "deal", "dealer": "Dan"}, {"type": "flip", "card": "red_5"},
                  {"type": "play", "card": "red_3"}, {"type": "points", "player": "Bob", "points": 20},
                  {"type": "points", "player": "Dan", "points": 20}):
        table.push(event)
    won = [n for n in table.state["notices"] if n["kind"] == "game_won"]
    assert won, table.state["notices"]
    say = notice_say(won[0])
    assert say["k"] == "notice.game_won_team"
    assert t(say["k"], "it", say["a"]).startswith("Ann & Cat vincono la partita con 40 punti")


@pytest.mark.parametrize("message, key, en", [
    ("Bob and Ann are level on 20 points: first place to Bob, more hands won", "notice.tie_hands",
     "Bob and Ann were level on 20 points: first place to Bob, with more hands won."),
    ("Ann and Bob are level on 40 points: first place to Ann, fewer cards left in the last hand", "notice.tie_cards",
     "Ann and Bob were level on 40 points: first place to Ann, with fewer cards left in the last hand."),
    ("Bob and Ann are level on 5 points: first place to Bob, Ann drew last", "notice.tie_draw",
     "Bob and Ann were level on 5 points: first place to Bob, as Ann drew last."),
    ("Ann & Cat and Bob & Dan are level on 1 points: first place to Ann & Cat, more hands won", "notice.tie_hands",
     "Ann & Cat and Bob & Dan were level on 1 point: first place to Ann & Cat, with more hands won."),
])
def test_a_win_on_a_tie_break_says_what_broke_the_tie(message, key, en):
    say = notice_say({"event": 9, "kind": "tie_break", "player": None, "message": message})
    assert say["k"] == key and t(key, "en", say["a"]) == en
    assert "{" not in t(key, "it", say["a"]) and "primo posto a" in t(key, "it", say["a"])


def test_a_shared_win_is_said_in_the_players_language():
    say = notice_say({"event": 9, "kind": "game_won", "player": "Ann", "message": "Ann and Bob share the win with 40 points"})
    assert say == {"k": "notice.game_shared", "a": {"player": "Ann · Bob", "n": 40}}
    assert t(say["k"], "it", say["a"]).startswith("Ann · Bob si dividono la vittoria con 40 punti")


def test_a_change_of_seats_taken_back_is_said_so():
    say = notice_say({"event": 9, "kind": "undone", "player": None, "message": "event 8 undone: seats"})
    assert t(say["k"], "en", say["a"]) == "Undone: the change of seats; the table is as it was"


def test_a_new_game_taken_back_is_said_so():
    say = notice_say({"event": 5, "kind": "undone", "player": None, "message": "event 0 undone: game"})
    assert t(say["k"], "en", say["a"]) == "Undone: the new game; the game before it is back"
    assert "{" not in t(say["k"], "it", say["a"])


def test_a_correction_the_game_cannot_take_is_said_in_the_pages_words():
    # it came as err.generic, English on an Italian page, with "event N" for the list's "#N"
    say = error_say("event 4 corrected to blue_9 would make event 5 illegal")
    assert say == {"k": "err.correct_illegal", "a": {"card": "blue_9", "n": 5}}
    assert t(say["k"], "en", say["a"]).startswith("With blue 9 there, card #5 would become a wrong card")
    say = error_say("event 4 corrected to blue_9 would reject event 6 (not now: waiting for a colour to be named)")
    assert say["k"] == "err.correct_rejects" and "{" not in t(say["k"], "it", say["a"])
