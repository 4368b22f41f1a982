"""Real-browser tests of the phone page with themed decks and league night (issue 21), Debian
Chromium on the real server, no camera: a UNO Flip hand from phones (the flip shown, the dark
side's colours, a draw until a colour counted on the phone), a league of three games on the
League tab, and a revealed hand typed by the host with its points computed."""
from __future__ import annotations

import re

import pytest

pytest.importorskip("playwright")
from playwright.sync_api import expect  # noqa: E402

from browser_support import MARKS, chromium, confirm, log_in_host, served, take_seat, wait_until  # noqa: E402
from companion.referee.league import league_standings  # noqa: E402
from companion.referee.simulate import simulate_games  # noqa: E402
from web.i18n import t  # noqa: E402

PIN = "2468"
PHONE = {"width": 412, "height": 915}
pytestmark = MARKS


@pytest.fixture(scope="module")
def browser():
    with chromium() as (_, b):
        yield b


@pytest.fixture
def server(tmp_path):
    config = {"HOST_PIN": PIN, "SSE_HEARTBEAT_S": 1.0, "TABLE_MODE": "none"}
    with served(tmp_path, config) as url_and_referee:
        yield url_and_referee


def _page(browser, url, path="/", lang="en"):
    ctx = browser.new_context(viewport=PHONE, locale={"en": "en-GB", "it": "it-IT"}[lang], has_touch=True)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.js_errors = errors
    page.goto(url + path)
    return page


def _lang(page):
    return page.evaluate("document.documentElement.lang")


def _toast(page, key, **args):
    expect(page.locator("#toast")).to_have_text(t(key, _lang(page), args))


def _sit(browser, url, name, lang="en"):
    return take_seat(_page(browser, url, "/seat", lang), name, lang)


def _pick(page, box, card, colour):
    page.click(f"{box} button[data-pick={colour}]")
    page.click(f"{box} button[data-card={card}]")


def _host(browser, url, lang="en"):
    return log_in_host(_page(browser, url, "/host", lang), PIN)


_yes = confirm


_wait = wait_until


def _cards(referee, name):
    return next(p["cards"] for p in referee.state["players"] if p["name"] == name)


def _offered(page, box):
    """What a card picker offers now: its colours, and the cards of `colour` once tapped."""
    return page.eval_on_selector_all(f"{box} button[data-pick]", "bs => bs.map(b => b.dataset.pick)")


def test_a_flip_hand_through_the_page(server, browser):
    url, referee = server
    host = _host(browser, url)
    host.fill("#players", "Ann, Bob, Cat")
    host.select_option("select[name=deck]", "flip")
    expect(host.locator("select[name=deck] option[value=flip]")).to_have_text(t("opt.deck.flip", "en"))
    # the longer options keep the page to the phone's width (a fieldset grows to its widest select)
    assert host.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    host.click("#newgame button.go")
    _yes(host)
    _toast(host, "done.game")
    host.select_option("#dealer", "Cat")
    host.click("#deal")
    _yes(host)
    _wait(lambda: referee.state["waiting_for"] == "flip", "the deal")
    assert referee.state["rules"]["deck"] == "flip"

    ann, bob = _sit(browser, url, "Ann"), _sit(browser, url, "Bob")
    cat = _sit(browser, url, "Cat", "it")
    table = _page(browser, url, "/")
    # the light side: its colours and cards only (no 0, a draw one, a flip; wild draw two)
    assert _offered(cat, "#cardpick") == ["red", "yellow", "green", "blue", "wild"]
    cat.click("#cardpick button[data-pick=red]")
    symbols = cat.eval_on_selector_all("#cardpick button[data-card]", "bs => bs.map(b => b.dataset.card)")
    assert "red_draw_one" in symbols and "red_flip" in symbols and "red_0" not in symbols and "red_draw_two" not in symbols
    cat.click("#cardpick button[data-pick=wild]")
    assert cat.eval_on_selector_all("#cardpick button[data-card]", "bs => bs.map(b => b.dataset.card)") == ["wild", "wild_draw_two"]
    _pick(cat, "#cardpick", "red_5", "red")
    cat.click("#playcard")
    _toast(cat, "done.flip", card="red_5")
    expect(table.locator("#side")).to_have_text(t("side.light", "en"))
    expect(table.locator("#pile")).to_have_class(re.compile(r"\bring-red\b"))

    # Ann lays a Flip: the pile turns over and she says its new top card, a dark face
    _pick(ann, "#cardpick", "red_flip", "red")
    ann.click("#playcard")
    _toast(ann, "done.play", card="red_flip")
    expect(ann.locator("#prompt")).to_have_text(t("prompt.turned", "en"))
    expect(table.locator("#turn")).to_have_text(t("phase.turned", "en", {"player": "Ann"}))
    expect(cat.locator("#cardpick")).to_be_hidden()  # the dealer does not say it this time
    assert _offered(ann, "#cardpick") == ["pink", "teal", "orange", "purple", "wild"]
    _pick(ann, "#cardpick", "pink_3", "pink")
    expect(ann.locator("#playcard")).to_have_text(t("btn.flip_card", "en", {"card": "pink_3"}))
    ann.click("#playcard")
    _toast(ann, "done.turned", card="pink_3")
    # the flip shown: the side in play, the dark tint, the pile ring in the dark colour
    expect(table.locator("#side")).to_have_text(t("side.dark", "en"))
    expect(cat.locator("#side")).to_have_text(t("side.dark", "it"))
    expect(table.locator("body")).to_have_attribute("data-side", "dark")
    expect(table.locator("#top")).to_have_attribute("alt", "pink 3")
    expect(table.locator("#pile")).to_have_class(re.compile(r"\bring-pink\b"))
    expect(table.locator("#color")).to_have_text(t("tbl.colour", "en", {"color": "pink"}))
    assert table.evaluate("document.getElementById('top').complete && document.getElementById('top').naturalWidth > 0")
    assert table.evaluate("getComputedStyle(document.body).backgroundColor") != "rgb(16, 36, 26)"

    # Bob: a wild draw colour, coloured with the dark side's own four colours
    expect(bob.locator("#prompt")).to_have_text(t("prompt.play_nocam", "en"))
    _pick(bob, "#cardpick", "wild_draw_colour", "wild")
    bob.click("#playcard")
    expect(bob.locator("#prompt")).to_have_text(t("prompt.color", "en"))
    colours = bob.eval_on_selector_all("#colorbtns button", "bs => bs.filter(b => b.offsetParent).map(b => b.dataset.color)")
    assert colours == ["pink", "teal", "orange", "purple"]
    bob.click("#colorbtns button[data-color=teal]")
    _toast(bob, "done.color", color="teal")
    expect(table.locator("#pile")).to_have_class(re.compile(r"\bring-teal\b"))

    # Cat (Italian phone) draws until a teal card and says how many: "I drew N"
    expect(cat.locator("#prompt")).to_have_text(t("prompt.challenge_until", "it", {"color": "teal"}))
    expect(cat.locator("#drewform")).to_be_visible()
    expect(cat.locator("#acceptbtn")).to_be_hidden()
    expect(cat.locator("#challengebtns button[data-act=challenge]")).to_be_visible()
    before = _cards(referee, "Cat")
    cat.fill("#drewn", "0")
    cat.click("#drewform button")
    _toast(cat, "err.bad_count")
    assert _cards(referee, "Cat") == before
    cat.fill("#drewn", "3")
    cat.click("#drewform button")
    _toast(cat, "done.drew", n=3)
    _wait(lambda: _cards(referee, "Cat") == before + 3, "Cat's three cards")
    expect(table.locator("#notices li").first).to_have_text(
        t("notice.drew_until", "en", {"player": "Cat", "n": 3, "color": "teal"}))
    expect(cat.locator("#drewform")).to_be_hidden()
    expect(table.locator("#turn")).to_have_text(t("phase.play", "en", {"player": "Ann"}))
    # a light card now is refused in the phone's words, and nothing changes
    ann.evaluate("() => post('/api/act', {action: 'play', card: 'red_7'}, 'done.play', {card: 'red_7'})")
    _toast(ann, "err.face_light", card="red_7")
    assert referee.state["top"] == "wild_draw_colour"
    for page in (host, ann, bob, cat, table):
        assert page.js_errors == [], page.js_errors


def test_a_league_of_three_games_on_the_league_tab(server, browser):
    url, referee = server
    host = _host(browser, url)
    expect(host.locator("#leaguenow")).to_have_text(t("host.league_none", "en"))
    host.fill("#leaguename", "Thursday club")
    host.select_option("#leaguevpset", "custom")
    for typed in ("10 4 6", "  "):  # rising, or left empty: refused before anything is sent
        host.fill("#leaguecustom", typed)
        host.click("#leagueform button")
        _toast(host, "err.bad_vp")
        expect(host.locator("#confirm")).not_to_be_visible()
    assert referee.store.leagues() == []
    host.fill("#leaguecustom", "10 6 4")
    host.click("#leagueform button")
    _yes(host)
    _toast(host, "done.league_open", name="Thursday club")
    expect(host.locator("#leaguenow")).to_have_text(t("host.league_now", "en", {"name": "Thursday club"}))
    expect(host.locator("#leaguevp td")).to_have_text(["10", "6", "4"])
    league_id = referee.store.leagues()[0]["id"]

    standings = _page(browser, url, "/standings", "it")
    standings.click("#tab-league")
    expect(standings.locator("#tab-league")).to_have_attribute("aria-selected", "true")
    expect(standings.locator("#gametab")).to_be_hidden()
    expect(standings.locator("#lggames")).to_have_text(t("st.league_games", "it", {"n": 0}))
    # three games at the table (simulated hands), each joining the open league
    for seed in (1, 2, 3):
        for ev in simulate_games(3, 1, seed, {"hands": 1}, mistakes=False):
            referee.submit(ev, source="test")
        _wait(lambda: referee.state["waiting_for"] == "game_over", "a finished game")
    want = league_standings(referee.store, league_id)
    assert len(want["games"]) == 3 and sum(r["victory_points"] for r in want["table"]) == 3 * 20
    # the tab follows the games as they finish (the last one came while it was open)
    expect(standings.locator("#lggames")).to_have_text(t("st.league_games", "it", {"n": 3}))
    rows = standings.locator("#lgrows tr")
    expect(rows).to_have_count(len(want["table"]))
    for i, row in enumerate(want["table"]):
        expect(rows.nth(i).locator("td")).to_have_text(
            [str(row["rank"]), row["player"], str(row["victory_points"]), str(row["games_won"]), str(row["game_points"])])
    expect(standings.locator("#lgname")).to_have_text("Thursday club")
    expect(standings.locator("#lgvp td")).to_have_text(["10", "6", "4"])
    # the chart over the evening: one line per player, a point before and after each game
    expect(standings.locator("#lgchart polyline")).to_have_count(len(want["table"]))
    points = standings.eval_on_selector_all("#lgchart polyline", "ps => ps.map(p => p.getAttribute('points').split(' ').length)")
    assert points == [4] * len(want["table"])
    expect(standings.locator("#lgchart svg")).to_contain_text(t("st.axis_game", "it"))
    leader = want["table"][0]
    expect(standings.locator("#lgchart svg")).to_contain_text(f"{leader['player']} {leader['victory_points']}")
    expect(standings.locator("#lglist li")).to_have_count(3)
    # the TV shows the open league's table under the game's: the evening's standings on the wall
    tv = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
    tv.goto(url + "/tv")
    expect(tv.locator("#tvlgname")).to_have_text(t("tv.league", "en", {"name": "Thursday club", "n": 3}))
    expect(tv.locator("#tvlgrows tr")).to_have_count(len(want["table"]))
    expect(tv.locator("#tvlgrows tr").first.locator("td").nth(1)).to_have_text(leader["player"])
    assert tv.evaluate("document.querySelector('.qr').getBoundingClientRect().bottom <= window.innerHeight")
    tv.context.close()
    # after a finished game, a new one is said to count in the open league
    host.fill("#players", "Ann, Bob, Cat")
    host.click("#newgame button.go")
    expect(host.locator("#confirm-text")).to_contain_text(t("confirm.game_joins", "en", {"name": "Thursday club"}))
    host.click("#confirm-no")
    # a game cut off by a new one: the host is told it will not count; the tab says so too
    for ev in ({"type": "game", "players": ["Ann", "Bob"]}, {"type": "deal", "dealer": "Bob"}):
        referee.submit(ev, source="host")
    host.fill("#players", "Ann, Bob, Cat")
    host.click("#newgame button.go")
    expect(host.locator("#confirm-text")).to_contain_text(t("confirm.game_league", "en", {"name": "Thursday club"}))
    _yes(host)
    _wait(lambda: len(referee.state["players"]) == 3, "the new game")
    standings.reload()
    standings.click("#tab-league")
    expect(standings.locator("#lggames")).to_have_text(
        t("st.league_games", "it", {"n": 3}) + " · " + t("st.league_unfinished", "it", {"n": 2}))

    # English, opened straight on the League tab; then the host closes the league
    english = _page(browser, url, "/standings#league", "en")
    expect(english.locator("#lgrows tr").first.locator("td").nth(1)).to_have_text(leader["player"])
    expect(english.locator("#lgtable th").nth(2)).to_have_text(t("st.vp", "en"))
    host.click("#leagueclose")
    expect(host.locator("#confirm-text")).to_have_text(t("confirm.league_close", "en", {"name": "Thursday club"}))
    _yes(host)
    _toast(host, "done.league_close")
    expect(host.locator("#leaguenow")).to_have_text(t("host.league_none", "en"))
    assert referee.store.leagues()[0]["closed"]
    english.reload()
    english.click("#tab-league")
    expect(english.locator("#lgname")).to_have_text("Thursday club (" + t("st.league_closed", "en") + ")")
    for page in (host, standings, english):
        assert page.js_errors == [], page.js_errors


def test_a_revealed_hand_typed_by_the_host(server, browser):
    url, referee = server
    for ev in ({"type": "game", "players": ["Ann", "Bob", "Cat"], "rules": {"hand_size": 2}},
               {"type": "deal", "dealer": "Cat"}, {"type": "flip", "card": "red_5"},
               {"type": "uno", "player": "Ann"}, {"type": "play", "card": "red_7"}, {"type": "draw"}, {"type": "pass"}, {"type": "draw"}, {"type": "pass"},
               {"type": "play", "card": "red_8"}):
        assert all(n["kind"] != "rejected" for n in referee.submit(ev, source="test")), ev
    assert referee.state["waiting_for"] == "scores" and _cards(referee, "Cat") == 3
    host = _host(browser, url, "it")
    expect(host.locator("#revealbox")).to_have_class(re.compile(r"\bnow\b"))
    host.select_option("#revplayer", "Cat")
    # a misspelt name: refused in words, nothing stored
    host.fill("#revtext", "red_9 blu_skip wild")
    host.click("#revtyped button")
    _yes(host)
    _toast(host, "err.unknown_card_suggest", name="blu_skip", card="blue_skip")  # which one, and what it may be
    assert referee.state["history"] == [] and host.locator("#revtext").input_value() == "red_9 blu_skip wild"
    host.fill("#revtext", "red_9 blue_skip wild")
    host.click("#revtyped button")
    expect(host.locator("#confirm-text")).to_have_text(
        t("confirm.reveal", "it", {"player": "Cat", "cards": ["red_9", "blue_skip", "wild"]}))
    _yes(host)
    expect(host.locator("#revresult")).to_have_text(t("host.reveal_points", "it", {"player": "Cat", "n": 79}))
    expect(host.locator("#revtext")).to_have_value("")
    # Bob's points typed too, in the page's own words: the hand is scored from both
    host.select_option("#revplayer", "Bob")
    host.fill("#revtext", "verde 2, 4 giallo blue_1")
    host.click("#revtyped button")
    _yes(host)
    expect(host.locator("#revresult")).to_have_text(t("host.reveal_points", "it", {"player": "Bob", "n": 7}))
    _wait(lambda: referee.state["waiting_for"] == "deal", "the hand's points")
    assert referee.state["history"][0]["points"]["Ann"] == 86
    assert host.js_errors == [], host.js_errors


def test_discard_two_reflect_and_dementor_from_the_phones(server, browser):
    url, referee = server
    for ev in ({"type": "game", "players": ["Ann", "Bob", "Cat"], "rules": {"discard_two": 1, "mario_reflect": 1, "dementor": 1}},
               {"type": "deal", "dealer": "Cat"}, {"type": "flip", "card": "red_5"}):
        referee.submit(ev, source="test")
    ann, bob, cat = _sit(browser, url, "Ann"), _sit(browser, url, "Bob"), _sit(browser, url, "Cat", "it")
    table = _page(browser, url, "/")
    expect(table.locator("#side")).to_be_hidden()  # one side only: nothing to show
    # the picker offers the deck's themed cards
    ann.click("#cardpick button[data-pick=wild]")
    wilds = ann.eval_on_selector_all("#cardpick button[data-card]", "bs => bs.map(b => b.dataset.card)")
    assert {"mario_reflect", "dementor"} <= set(wilds)
    # a discard two: its second card, or laid alone
    _pick(ann, "#cardpick", "red_discard_two", "red")
    ann.click("#playcard")
    expect(ann.locator("#prompt")).to_have_text(t("prompt.second", "en", {"color": "red"}))
    expect(ann.locator("#turnbtns")).to_be_hidden()
    expect(table.locator("#turn")).to_have_text(t("phase.second", "en", {"player": "Ann", "color": "red"}))
    ann.click("#nosecond")
    _toast(ann, "done.no_second")
    expect(table.locator("#turn")).to_have_text(t("phase.play", "en", {"player": "Bob"}))
    # Bob's draw two hits Cat, who reflects it back (Italian phone) and names green
    _pick(bob, "#cardpick", "red_draw_two", "red")
    bob.click("#playcard")
    expect(cat.locator("#prompt")).to_have_text(t("prompt.reflect", "it", {"n": 2}))
    expect(cat.locator("#reflectbtn")).to_be_visible()
    expect(ann.locator("#reflectbtn")).to_be_hidden()
    cat.click("#reflectbtn")
    _toast(cat, "done.reflect")
    expect(cat.locator("#prompt")).to_have_text(t("prompt.color", "it"))
    cat.click("#colorbtns button[data-color=green]")
    expect(table.locator("#notices")).to_contain_text(t("notice.reflect", "en", {"player": "Bob", "n": 2, "by": "Cat"}))
    expect(table.locator("#pile")).to_have_class(re.compile(r"\bring-green\b"))
    # Ann's Dementor: Bob draws until a Gryffindor card and says how many
    _pick(ann, "#cardpick", "dementor", "wild")
    ann.click("#playcard")
    ann.click("#colorbtns button[data-color=blue]")
    expect(bob.locator("#prompt")).to_have_text(t("prompt.until_gryffindor", "en"))
    expect(bob.locator("#cardpick")).to_be_hidden()
    expect(table.locator("#turn")).to_have_text(t("phase.until_gryffindor", "en", {"player": "Bob"}))
    before = _cards(referee, "Bob")
    bob.fill("#drewn", "2")
    bob.click("#drewform button")
    _toast(bob, "done.drew", n=2)
    expect(table.locator("#notices li").first).to_have_text(t("notice.drew_until_gryffindor", "en", {"player": "Bob", "n": 2}))
    assert _cards(referee, "Bob") == before + 2 and referee.state["turn"] == "Cat"
    for page in (ann, bob, cat, table):
        assert page.js_errors == [], page.js_errors


def test_a_last_flip_shows_no_colour_of_the_other_side(browser, tmp_path):
    # the hand ends on the side the Flip turned to: "Light side" beside "Colour: orange" was wrong
    with served(tmp_path, {"HOST_PIN": PIN, "TABLE_MODE": "none"}) as (url, referee):
        for event in ({"type": "game", "players": ["Ann", "Bob"], "rules": {"deck": "flip", "hand_size": 2}},
                      {"type": "deal", "dealer": "Bob"}, {"type": "flip", "card": "red_5"},
                      {"type": "uno", "player": "Ann"}, {"type": "play", "card": "red_flip"},
                      {"type": "flip", "card": "orange_3"}, {"type": "uno", "player": "Bob"},
                      {"type": "play", "card": "orange_4"}):
            referee.submit(event, source="host")
        table = _page(browser, url, "/")
        expect(table.locator("#color")).to_have_text(t("tbl.colour", "en", {"color": "orange"}))
        referee.submit({"type": "play", "card": "orange_flip"}, source="host")
        expect(table.locator("#side")).to_have_text(t("side.light", "en"))
        expect(table.locator("#color")).to_have_text("")


def test_a_tv_too_short_for_both_tables_shows_the_game_and_the_league_in_turn(server, browser):
    # six players at 720 lines: the league's table fell below the screen, which a TV cannot scroll
    url, referee = server
    referee.store.new_league("Friday", [12, 6, 2, 0])
    for ev in simulate_games(6, 1, 4, {"hands": 1}, mistakes=False):
        referee.submit(ev, source="test")
    _wait(lambda: referee.state["waiting_for"] == "game_over", "a finished game")
    tv = browser.new_context(viewport={"width": 1280, "height": 720}).new_page()
    tv.goto(url + "/tv")
    expect(tv.locator("#tvlgrows tr")).to_have_count(6)
    fits = "e => e.getBoundingClientRect().bottom <= window.innerHeight"
    expect(tv.locator("#tvleague")).to_be_visible()
    assert not tv.locator("#tvleague").evaluate(fits)  # as it was: below the screen's foot
    expect(tv.locator("#tvgame")).to_be_hidden(timeout=12_000)  # the league's turn
    expect(tv.locator("#tvleague")).to_be_visible()
    assert tv.locator("#tvleague").evaluate(fits)
    expect(tv.locator("#tvgame")).to_be_visible(timeout=12_000)  # and the game's again
    expect(tv.locator("#tvleague")).to_be_hidden()
    tv.context.close()
