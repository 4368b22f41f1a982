"""Real-browser tests of the page people see (Debian Chromium, phone 412x915 and TV 1280x720):
a whole hand with no camera from phones alone, the referee's words in English and Italian, card
art with no broken image, the TV view, page weight; with UNO_SCREENSHOTS=1 they also retake the
README's screenshots."""
from __future__ import annotations

import os
import re
from pathlib import Path
from urllib.parse import urlparse

import pytest

pytest.importorskip("playwright")
from playwright.sync_api import expect  # noqa: E402

from browser_support import MARKS, QuietWifi, chromium, confirm, log_in_host, served, take_seat, wait_until  # noqa: E402
from companion.referee.cards import ALL_CARD_NAMES  # noqa: E402
from web.i18n import LANGS, t  # noqa: E402

# The README's screenshots are retaken only when asked (`UNO_SCREENSHOTS=1`): a test run must
# not rewrite tracked files. Otherwise each view is still shot (to memory), so it must render.
SHOTS = Path(__file__).resolve().parents[2] / "web" / "screenshots"
RETAKE = os.environ.get("UNO_SCREENSHOTS") == "1"
PIN = "2468"
PHONE = {"width": 412, "height": 915}
TV = {"width": 1280, "height": 720}
pytestmark = MARKS


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    config = {"HOST_PIN": PIN, "SSE_HEARTBEAT_S": 1.0, "TABLE_MODE": "none", "PUBLIC_URL": "http://192.168.1.20:8000/"}
    with served(tmp_path_factory.mktemp("page"), config) as url_and_referee:
        yield url_and_referee


@pytest.fixture(scope="module")
def browser():
    with chromium() as (_, b):
        yield b


def _page(browser, url, path="/", lang="en", size=PHONE):
    ctx = browser.new_context(viewport=size, locale={"en": "en-GB", "it": "it-IT"}[lang], has_touch=size is PHONE)
    page = ctx.new_page()
    page.goto(url + path)
    return page


def _toast(page, key, **args):
    expect(page.locator("#toast")).to_have_text(t(key, page.evaluate("document.documentElement.lang"), args))


def _sit(browser, url, name, lang="en"):
    return take_seat(_page(browser, url, "/seat", lang), name, lang)


def _pick(page, box, card):
    """Tap a card in a card picker: its colour (or Wild), then the card."""
    colour = "wild" if card.startswith("wild") else card.split("_")[0]
    page.click(f"{box} button[data-pick={colour}]")
    page.click(f"{box} button[data-card={card}]")


def _host(browser, url, lang="en"):
    return log_in_host(_page(browser, url, "/host", lang), PIN)


_yes = confirm


def _shot(page, name, full_page=True):
    """A screenshot for the README, without the passing toast."""
    page.evaluate("document.getElementById('toast').className = ''")
    page.wait_for_timeout(700)  # the toast's fade and a card's slide are over
    if RETAKE:
        page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=full_page)
    else:
        assert page.screenshot(full_page=full_page)


_wait = wait_until


def _overlaps(page, one, others):
    """How many of `others` the element `one` lies over on the screen."""
    return page.evaluate("""([one, others]) => { const r = document.querySelector(one).getBoundingClientRect();
      return [...document.querySelectorAll(others)].filter(b => { const q = b.getBoundingClientRect();
        return q.top < r.bottom && q.bottom > r.top && q.left < r.right && q.right > r.left; }).length; }""", [one, others])


def test_a_whole_hand_with_no_camera_from_phones(server, browser):
    url, referee = server
    host = _host(browser, url)
    expect(host.locator("#nocam")).to_contain_text(t("nocam.title", "en"))
    # New game: a preset, a labelled option, confirmed.
    host.fill("#players", "Ann, Bob, Cat")
    host.click("button[data-preset=house]")
    expect(host.locator("input[name=jump_in]")).to_be_checked()
    host.click("button[data-preset=official]")
    expect(host.locator("input[name=jump_in]")).not_to_be_checked()
    host.fill("input[name=hand_size]", "2")
    host.click("#newgame button.go")
    expect(host.locator("#confirm-text")).to_contain_text("Ann, Bob, Cat")
    _yes(host)
    _toast(host, "done.game")
    # The dealer is picked by name, then the deal is confirmed.
    expect(host.locator("#dealer option")).to_have_count(4)
    expect(host.locator("#dealer option").first).to_have_text(t("host.dealer_auto", "en"))
    host.select_option("#dealer", "Cat")
    host.click("#deal")
    _yes(host)
    _toast(host, "done.deal")
    expect(host.locator("#dealer")).to_have_value("")  # the next hand's deal rotates unless picked again
    _wait(lambda: referee.state["waiting_for"] == "flip", "the deal")

    ann, bob = _sit(browser, url, "Ann"), _sit(browser, url, "Bob")
    cat = _sit(browser, url, "Cat", "it")  # Cat's phone speaks Italian
    # The dealer turns up the first card on their phone; the table sees no broken image first.
    table = _page(browser, url, "/")
    expect(table.locator("#notop")).to_be_visible()
    expect(table.locator("#top")).to_be_hidden()
    expect(cat.locator("#prompt")).to_have_text(t("prompt.flip", "it"))
    _pick(cat, "#cardpick", "red_5")
    expect(cat.locator("#playcard")).to_have_text(t("btn.flip_card", "it", {"card": "red_5"}))
    cat.click("#playcard")
    _toast(cat, "done.flip", card="red_5")
    expect(table.locator("#top")).to_have_attribute("alt", "red 5")
    expect(table.locator("#pile")).to_have_class(re.compile(r"\bring-red\b"))

    # Ann calls UNO! at two cards, then lays a red 7 from her phone.
    expect(ann.locator("#prompt")).to_have_text(t("prompt.play_nocam", "en"))
    # ... with her UNO! row at the foot of a short screen: the toast moves up and hides none of it.
    ann.set_viewport_size({"width": 412, "height": 560})
    ann.evaluate("window.scrollTo(0, document.getElementById('unobtns').getBoundingClientRect().bottom + scrollY - innerHeight + 8)")
    ann.click("button[data-act=uno]")
    _toast(ann, "done.uno")
    assert _overlaps(ann, "#toast", "#unobtns button") == 0
    ann.set_viewport_size(PHONE)
    _pick(ann, "#cardpick", "red_7")
    ann.dblclick("#playcard")  # a double tap plays once, and its second tap does not say "not your turn"
    _toast(ann, "done.play", card="red_7")
    ann.wait_for_timeout(600)
    _toast(ann, "done.play", card="red_7")
    expect(ann.locator("#toast")).not_to_have_class(re.compile(r"\bbad\b"))
    expect(table.locator("#top")).to_have_attribute("alt", "red 7")
    # Bob draws and passes: Pass is offered once he has drawn (before, it would be refused)
    expect(bob.locator("#turnbtns")).to_be_visible()
    expect(bob.locator("#turnbtns button[data-act=pass]")).to_be_hidden()
    bob.click("#turnbtns button[data-act=draw]")
    _toast(bob, "done.draw")
    bob.wait_for_timeout(500)  # a look at the card drawn: Pass, where Draw was, ignores a double tap's second tap
    bob.click("#turnbtns button[data-act=pass]")
    _toast(bob, "done.pass")
    expect(table.locator("#notices")).not_to_contain_text(t("err.draw_first", "en"))
    # Cat lays a wild and names green on an Italian phone; Ann goes out on a green 3.
    _pick(cat, "#cardpick", "wild")
    cat.click("#playcard")
    expect(cat.locator("#prompt")).to_have_text(t("prompt.color", "it"))
    cat.click("#colorbtns button[data-color=green]")
    _toast(cat, "done.color", color="green")
    expect(table.locator("#pile")).to_have_class(re.compile(r"\bring-green\b"))
    _pick(ann, "#cardpick", "green_3")
    ann.click("#playcard")
    expect(ann.locator("#prompt")).to_have_text(t("prompt.won", "en"))
    expect(table.locator("#phase")).to_have_text(t("tbl.hand_won", "en", {"player": "Ann"}))
    expect(table.locator("#notices li").first).to_have_text(t("notice.hand_won", "en", {"player": "Ann", "n": 1}))

    # Points: Bob types his on his phone; the host enters Cat's hand as shown.
    expect(bob.locator("#mypoints")).to_be_visible()
    bob.fill("#mypts", "-3")  # the page's own words, in the page's language (not the browser's bubble)
    bob.click("#mypoints button")
    _toast(bob, "err.bad_points")
    bob.fill("#mypts", "12")
    bob.click("#mypoints button")
    _toast(bob, "done.points", n=12)
    # Bob's phone stops asking; Cat's still does; UNO! and Catch wait for the next hand
    expect(bob.locator("#prompt")).to_have_text(t("prompt.scores_done", "en"))
    expect(bob.locator("#mypoints")).to_be_hidden()
    expect(cat.locator("#prompt")).to_have_text(t("prompt.scores", "it"))
    expect(ann.locator("#unobtns")).to_be_hidden()
    host.select_option("#revplayer", "Cat")
    _pick(host, "#revpick", "blue_draw_two")
    host.click("#revadd")
    expect(host.locator("#revcards")).to_have_text("blue draw two")
    host.click("#revsend")
    expect(host.locator("#confirm-text")).to_have_text(t("confirm.reveal", "en", {"player": "Cat", "cards": ["blue_draw_two"]}))
    _yes(host)
    _wait(lambda: referee.state["waiting_for"] == "deal", "the points of the hand")
    assert [(p["name"], p["score"]) for p in referee.state["players"]] == [("Ann", 32), ("Bob", 0), ("Cat", 0)]

    standings = _page(browser, url, "/standings", "it")
    expect(standings.locator("#totals tr").first).to_contain_text("Ann")
    expect(standings.locator("#totals tr").first.locator("td.num").first).to_have_text("32")
    expect(standings.locator("#chart polyline")).to_have_count(3)
    expect(standings.locator("#chart svg")).to_contain_text(t("st.axis_x", "it"))
    expect(standings.locator("#chart svg")).to_contain_text(t("st.axis_y", "it"))
    # the numbers stand right-aligned in one column whatever the names' widths
    xs = standings.evaluate("[...document.querySelectorAll('#totals tr td:nth-child(2)')].map(td => td.getBoundingClientRect().right)")
    assert len(set(round(x) for x in xs)) == 1

    if RETAKE:
        SHOTS.mkdir(exist_ok=True)
    _shot(standings, "standings")
    host.evaluate("window.scrollTo(0, 0)")
    _shot(host, "host", full_page=False)


def test_the_referee_speaks_the_phones_language(server, browser):
    """Every notice kind, rendered by the page's own script in English and Italian, reads as
    the catalogue says (no key, no placeholder, no card name with underscores)."""
    from test_i18n import _notices_of_every_kind
    from web.messages import notice_say

    url, _ = server
    says = [notice_say(n) for n in _notices_of_every_kind() if n["kind"] != "rejected"]
    kinds = {s["k"] for s in says}
    assert len(kinds) >= 20
    for lang in LANGS:
        page = _page(browser, url, "/", lang)
        page.wait_for_function("typeof said === 'function'")
        shown = page.evaluate("(says) => says.map(s => said(s))", says)
        for say, text in zip(says, shown):
            assert text == t(say["k"], lang, say["a"]), (lang, say)
            assert text and "{" not in text and "_" not in text


def test_no_broken_card_image_and_the_tv_view(server, browser):
    url, referee = server
    for event in ({"type": "game", "players": ["Ada", "Ben", "Cy", "Dee"]}, {"type": "deal", "dealer": "Dee"}):
        referee.submit(event, source="host")
    tv = _page(browser, url, "/tv", "en", TV)
    expect(tv.locator("#notop")).to_be_visible()
    assert tv.evaluate("[...document.images].filter(i => !i.hidden && i.getAttribute('src')).every(i => i.complete && i.naturalWidth > 0)")
    # every card the referee knows has its art, the themed decks' too
    broken = tv.evaluate("""async (names) => {
        const bad = [];
        await Promise.all(names.map(n => new Promise(res => { const i = new Image();
            i.onload = () => { if (!i.naturalWidth) bad.push(n); res(); }; i.onerror = () => { bad.push(n); res(); };
            i.src = '/cards/' + n + '.svg'; })));
        return bad; }""", list(ALL_CARD_NAMES))
    assert broken == []
    referee.submit({"type": "flip", "card": "blue_7"}, source="host")
    referee.submit({"type": "play", "card": "blue_skip"}, source="host")
    referee.submit({"type": "play", "card": "blue_draw_two"}, source="host")
    expect(tv.locator("#top")).to_have_attribute("alt", "blue draw two")
    expect(tv.locator("#notices li").first).to_have_text(t("notice.hit_d2", "en", {"player": "Dee", "n": 2}))
    expect(tv.locator("#pile")).to_have_class(re.compile(r"^(?=.*\bring-blue\b)(?=.*\bslide\b)"))
    expect(tv.locator("#turn")).to_have_text(t("phase.play", "en", {"player": "Ada"}))
    expect(tv.locator("#players li")).to_have_count(4)
    expect(tv.locator("#totals tr")).to_have_count(4)
    expect(tv.locator(".join .link")).to_have_text("http://192.168.1.20:8000/seat")  # the way in: a seat
    assert tv.evaluate("document.querySelector('.qr img').naturalWidth > 0")
    assert tv.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    # the way in is on the screen, not pushed below it by the feed
    assert tv.evaluate("document.querySelector('.qr').getBoundingClientRect().bottom <= window.innerHeight")
    # the QR code's tile is white and the code keeps its quiet zone
    assert tv.evaluate("getComputedStyle(document.querySelector('.qr')).backgroundColor") == "rgb(255, 255, 255)"
    if RETAKE:
        SHOTS.mkdir(exist_ok=True)
    _shot(tv, "tv", full_page=False)

    table = _page(browser, url, "/", "en")
    expect(table.locator("#players li")).to_have_count(4)
    _shot(table, "table")
    seat = _sit(browser, url, "Ada", "it")
    expect(seat.locator("#prompt")).to_have_text(t("prompt.play_nocam", "it"))
    _pick(seat, "#cardpick", "blue_3")
    _shot(seat, "seat")


def test_page_weight_per_view_is_at_most_150_kb(server):
    from companion.commands.bench_web import page_weight

    # as a phone receives it: gzip-compressed
    url, _ = server
    weights, uncompressed = page_weight(urlparse(url).port)
    assert set(weights) >= {"/", "/seat", "/standings", "/host", "/tv"}
    for view, size in weights.items():
        assert size <= 150 * 1024 and size < uncompressed[view], (view, size)


def test_long_or_odd_names_fit_a_phone_and_keep_their_characters(server, browser):
    url, referee = server
    long = "W" * 40  # the longest name a game takes, with nowhere to break
    for event in ({"type": "game", "players": ["Ada", long, "Cy"]}, {"type": "deal", "dealer": "Ada"},
                  {"type": "flip", "card": "red_6"}):
        referee.submit(event, source="host")
    for path in ("/", "/standings"):
        page = _page(browser, url, path, "en")
        expect(page.locator("#players li, #totals tr").first).to_be_visible()
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), path
        if path == "/standings":  # a name with <, > or & keeps them in the chart's legend
            legend = page.evaluate("""() => { const box = document.createElement('div');
                box.innerHTML = lineChart(['<Ann & Bo>'], [[0, 5]], 500, 't', 'x', 'y');
                return [...box.querySelectorAll('text')].map(e => e.textContent); }""")
            assert "<Ann & Bo> 5" in legend
        page.close()


def test_with_no_camera_a_wrong_card_is_taken_back_or_left_standing_from_the_phones(server, browser):
    url, referee = server
    for event in ({"type": "game", "players": ["Dan", "Eve", "Fay"]}, {"type": "deal", "dealer": "Fay"},
                  {"type": "flip", "card": "red_5"}):
        referee.submit(event, source="host")
    dan, eve, fay = (_sit(browser, url, name) for name in ("Dan", "Eve", "Fay"))  # seats of a new game
    _pick(dan, "#cardpick", "blue_3")  # wrong on a red 5
    dan.click("#playcard")
    # the toast says the card went in and what the referee said of it
    expect(dan.locator("#toast")).to_contain_text(t("done.play", "en", {"card": "blue_3"}) + " · ")
    expect(dan.locator("#toast")).to_contain_text("take it back")
    expect(dan.locator("#prompt")).to_have_text(t("prompt.take_back_nocam", "en"))
    expect(dan.locator("#tookbtns")).to_be_visible()
    # the wrong card lies on the pile, but every phone still shows red in force, as the notice says
    expect(dan.locator("#top")).to_have_attribute("alt", "blue 3")
    expect(dan.locator("#color")).to_have_text(t("tbl.colour", "en", {"color": "red"}))
    expect(dan.locator("#pile")).to_have_class(re.compile(r"\bring-red\b"))
    # Eve, next, may leave it standing: her picker is open and her phone says how
    expect(eve.locator("#prompt")).to_have_text(t("prompt.let_stand", "en", {"player": "Dan"}))
    expect(eve.locator("#turnbtns button[data-act=draw]")).to_be_visible()
    expect(eve.locator("#turnbtns button[data-act=pass]")).to_be_hidden()  # pass leaves nothing standing
    expect(fay.locator("#cardpick")).to_be_hidden()
    _pick(eve, "#cardpick", "blue_4")
    eve.click("#playcard")
    expect(eve.locator("#toast")).to_have_text(t("done.play", "en", {"card": "blue_4"}) + " · "
                                               + t("notice.illegal_stands", "en", {"player": "Dan", "card": "blue_3"}))
    _wait(lambda: referee.state["top"] == "blue_4" and referee.state["turn"] == "Fay", "the wrong card left standing")
    # Fay's wrong card goes back into her hand, which she says on her phone
    _pick(fay, "#cardpick", "yellow_9")
    fay.click("#playcard")
    expect(fay.locator("#tookbtns")).to_be_visible()
    fay.click("#tookbtns button")
    _toast(fay, "done.take_back")
    _wait(lambda: referee.state["waiting_for"] == "play" and referee.state["turn"] == "Dan", "the card taken back")
    expect(fay.locator("#tookbtns")).to_be_hidden()


def test_a_double_tap_on_draw_does_not_pass_with_its_second_tap(server, browser):
    # After Draw, Pass comes up where Draw was: a double tap's second tap landed on it and
    # passed the turn before the player could play the card just drawn.
    url, referee = server
    for event in ({"type": "game", "players": ["Pia", "Quin", "Rex"]}, {"type": "deal", "dealer": "Rex"},
                  {"type": "flip", "card": "red_5"}):
        referee.submit(event, source="host")
    pia = _sit(browser, url, "Pia")
    pia.evaluate("DOUBLE_TAP_MS = 3000")  # the page's 0.4 s, widened so that a slow machine's answer still falls in it
    draw = pia.locator("#turnbtns button[data-act=draw]").bounding_box()
    x, y = draw["x"] + draw["width"] / 2, draw["y"] + draw["height"] / 2
    pia.touchscreen.tap(x, y)
    pass_ = pia.locator("#turnbtns button[data-act=pass]")
    expect(pass_).to_be_visible()
    box = pass_.bounding_box()
    assert box["x"] <= x <= box["x"] + box["width"] and box["y"] <= y <= box["y"] + box["height"]  # where Draw was
    pia.touchscreen.tap(x, y)  # the double tap's second tap
    pia.wait_for_timeout(800)
    assert referee.events[-1]["type"] == "draw" and referee.state["turn"] == "Pia"
    expect(pia.locator("#toast")).to_have_text(t("done.draw", "en"))
    pia.evaluate("DOUBLE_TAP_MS = 400")
    pia.touchscreen.tap(x, y)  # a tap of its own, later: Pass
    _toast(pia, "done.pass")
    _wait(lambda: referee.state["turn"] == "Quin", "the pass")
    # the page grew shorter under a double tap and the colour-blind switch slid under the finger:
    # the second tap, on another control than the first at the same spot, does not switch it
    tap = """() => { const aid = document.querySelector("#aid"), pad = document.createElement("div");
        pad.style.height = "100px"; aid.closest("footer").prepend(pad);  // the page as it was: longer
        const r = aid.getBoundingClientRect(), at = {clientX: r.x + 5, clientY: r.y + 5 - 100, detail: 1, bubbles: true, cancelable: true};
        document.querySelector("#prompt").dispatchEvent(new MouseEvent("click", at));  // the first tap
        pad.remove();  // ... which made it shorter: the switch now lies under the finger
        return new Promise(ok => setTimeout(() => { aid.dispatchEvent(new MouseEvent("click", at)); ok(aid.checked); }, 120)); }"""
    assert pia.evaluate(tap) is False
    pia.wait_for_timeout(500)
    pia.click("#aid")  # a tap of its own
    expect(pia.locator("#aid")).to_be_checked()
    pia.click("#aid")


def test_a_phone_says_when_it_has_lost_the_companion_and_when_it_is_back(browser, tmp_path):
    # the companion stopped (a restart, the Wi-Fi gone): the page showed the old turn as if it were now
    from companion.referee.service import Referee
    from companion.referee.store import EventStore
    from web import create_app
    from web.server import Server

    referee = Referee(EventStore(tmp_path / "games.db"))
    app = create_app({"HOST_PIN": PIN, "TABLE_MODE": "none"}, referee=referee)
    srv = Server(app, "127.0.0.1", 0)
    port = srv.port
    srv.start()
    for event in ({"type": "game", "players": ["Sal", "Tom"]}, {"type": "deal", "dealer": "Tom"},
                  {"type": "flip", "card": "red_5"}):
        referee.submit(event, source="host")
    sal = _sit(browser, f"http://127.0.0.1:{port}", "Sal")
    expect(sal.locator("#offline")).to_be_hidden()
    srv.stop()
    expect(sal.locator("#offline")).to_be_visible(timeout=10_000)
    expect(sal.locator("#offline")).to_have_text(t("net.offline", "en"))
    srv = Server(app, "127.0.0.1", port)  # back on the same address: the page finds it by itself
    srv.start()
    try:
        expect(sal.locator("#offline")).to_be_hidden(timeout=15_000)
        expect(sal.locator("#prompt")).to_have_text(t("prompt.play_nocam", "en"))
    finally:
        srv.stop()


def test_a_phone_whose_wifi_goes_quiet_says_so_and_catches_up_when_it_is_back(server, browser):
    # a lost Wi-Fi closes no connection: the phone showed "Cid to play" for as long as it lasted,
    # its own turn included, and its "cannot reach" line never came
    url, referee = server
    for event in ({"type": "game", "players": ["Uma", "Vic"]}, {"type": "deal", "dealer": "Vic"},
                  {"type": "flip", "card": "red_5"}):
        referee.submit(event, source="host")
    wifi = QuietWifi(int(url.rsplit(":", 1)[1]))
    try:
        vic = _sit(browser, f"http://127.0.0.1:{wifi.port}", "Vic")
        expect(vic.locator("#turn")).to_have_text(t("phase.play", "en", {"player": "Uma"}))
        wifi.quiet.set()
        referee.submit({"type": "play", "card": "red_7"}, source="phone")  # Uma's: Vic's turn now
        expect(vic.locator("#offline")).to_be_visible(timeout=10_000)  # two and a half beats of silence
        expect(vic.locator("#turn")).to_have_text(t("phase.play", "en", {"player": "Uma"}))
        wifi.quiet.clear()
        expect(vic.locator("#offline")).to_be_hidden(timeout=15_000)
        expect(vic.locator("#prompt")).to_have_text(t("prompt.play_nocam", "en"))
        expect(vic.locator("#turn")).to_have_text(t("phase.play_you", "en"))  # not "Vic to play" on Vic's phone
        vic.context.close()
    finally:
        wifi.close()


def test_a_phone_whose_seat_the_host_frees_shows_the_names_at_once(server, browser):
    # it went on showing "You are Wes" with UNO! until its next tap, which was refused
    url, referee = server
    for event in ({"type": "game", "players": ["Wes", "Xia"]}, {"type": "deal", "dealer": "Xia"}):
        referee.submit(event, source="host")
    wes = _sit(browser, url, "Wes")
    host = _host(browser, url)
    host.get_by_role("button", name=t("host.free", "en", {"player": "Wes"})).click()
    _yes(host)
    expect(wes.locator("#pick")).to_be_visible(timeout=5_000)
    expect(wes.locator("#mine")).to_be_hidden()
    _toast(wes, "seat.lost", player="Wes")
    wes.context.close()
    host.context.close()


def test_my_seat_says_who_is_on_one_card_and_the_host_page_names_the_step_undo_takes_back(server, browser):
    # Catch was on My seat, whom to catch only on the Table view; Deal looked ready mid-hand; and
    # Undo asked "Undo the last step?" when the step was the host's own verdict
    url, referee = server
    for event in ({"type": "game", "players": ["Nia", "Oto", "Pam"], "rules": {"hand_size": 2}},
                  {"type": "deal", "dealer": "Pam"}, {"type": "flip", "card": "red_5"},
                  {"type": "play", "card": "red_7"}):  # Nia down to one card, no UNO! called
        referee.submit(event, source="host")
    oto = _sit(browser, url, "Oto")
    expect(oto.locator("#uno")).to_have_text(t("tbl.uno", "en", {"names": "Nia"}))
    nia = _sit(browser, url, "Nia")
    expect(nia.locator("#uno")).to_have_text("")  # her own count is said above it
    host = _host(browser, url)
    expect(host.locator("#deal")).to_be_disabled()
    host.click("#undo")
    expect(host.locator("#confirm-text")).to_contain_text("Undo the last step at the table: the card ")
    host.click("#confirm-no")
    referee.submit({"type": "play", "card": "red_9"}, source="host")  # Oto's: Nia caught, draws 2
    wait_until(lambda: host.evaluate("document.body.dataset.events") == str(len(referee.events)), "the page sees it")
    host.click("#undo")  # and the dialog says her two cards go back too
    expect(host.locator("#confirm-text")).to_contain_text(t("confirm.undo_drawn", "en", {"player": "Nia", "n": 2}))
    host.click("#confirm-no")
    # a misread card: the question says what the line was read as; one that would make a later
    # play illegal is refused before the question, in words
    host.select_option("#corrnum", "3")  # Nia's red_7
    _pick(host, "#corrpick", "red_6")
    host.click("#correct")
    expect(host.locator("#confirm-text")).to_contain_text("Line #3 was read as ")
    host.click("#confirm-no")
    _pick(host, "#corrpick", "blue_6")
    host.click("#correct")  # blue 6 under Oto's red 9: refused
    expect(host.locator("#toast")).to_have_class("show bad")
    expect(host.locator("#confirm")).to_be_hidden()
    for page in (oto, nia, host):
        page.context.close()


def test_with_no_camera_a_jump_in_is_one_tap_on_the_jumpers_phone(server, browser):
    url, referee = server
    for event in ({"type": "game", "players": ["Kim", "Lou", "Max"], "rules": {"jump_in": True}},
                  {"type": "deal", "dealer": "Max"}, {"type": "flip", "card": "green_4"},
                  {"type": "play", "card": "green_8"}):  # Kim's; Lou is on turn
        referee.submit(event, source="host")
    lou, max_ = (_sit(browser, url, name) for name in ("Lou", "Max"))
    expect(lou.locator("#jumpbtn")).to_be_hidden()  # on turn: a play, not a jump-in
    jump = max_.locator("#jumpbtn")
    expect(jump).to_have_text(t("btn.jump_in", "en", {"card": "green_8"}))
    cards = next(p["cards"] for p in referee.state["players"] if p["name"] == "Max")
    jump.click()
    _toast(max_, "done.jump_in", card="green_8")
    _wait(lambda: referee.state["turn"] == "Kim", "play going on from Max")
    assert next(p["cards"] for p in referee.state["players"] if p["name"] == "Max") == cards - 1
    # both green 8s are on the pile: nobody is offered a third (the page offered it, and a red 0's)
    expect(lou.locator("#jumpbtn")).to_be_hidden()
    referee.submit({"type": "play", "card": "green_3"}, source="host")  # Kim's; Lou on turn
    expect(max_.locator("#jumpbtn")).to_have_text(t("btn.jump_in", "en", {"card": "green_3"}))
    expect(max_.locator("#jumpbtn")).to_be_visible()


def test_at_a_camera_table_the_jumper_claims_the_card_the_camera_credited(browser, tmp_path):
    # The camera credits every card to the player on turn: a jump-in it saw was Lou's turn's
    with served(tmp_path, {"HOST_PIN": PIN, "TABLE_MODE": "camera"}) as (url, referee):
        for event in ({"type": "game", "players": ["Kim", "Lou", "Max"], "rules": {"jump_in": True}},
                      {"type": "deal", "dealer": "Max"}):
            referee.submit(event, source="host")
        for card in ("green_4", "green_8", "green_8"):  # Kim's green 8, then Max slaps down the other
            referee.submit({"type": "lay", "card": card, "top": [[card, 0.97]]}, source="camera")
        assert referee.state["turn"] == "Max"  # the camera gave it to Lou
        lou, max_ = (_sit(browser, url, name) for name in ("Lou", "Max"))
        claim = max_.locator("#jumpedbtn")
        expect(claim).to_have_text(t("btn.jumped_in", "en", {"card": "green_8"}))
        cards = next(p["cards"] for p in referee.state["players"] if p["name"] == "Max")
        expect(lou.locator("#jumpedbtn")).to_be_hidden()  # it is counted as Lou's already
        claim.click()
        _toast(max_, "done.jumped_in", card="green_8")
        _wait(lambda: referee.state["turn"] == "Kim", "play going on from Max")
        assert next(p["cards"] for p in referee.state["players"] if p["name"] == "Max") == cards - 1
        expect(claim).to_be_hidden()  # claimed
        referee.submit({"type": "lay", "card": "green_2", "top": [["green_2", 0.97]]}, source="camera")  # Kim's
        expect(claim).to_be_hidden()  # not laid on its twin: nothing to claim
        referee.submit({"type": "lay", "card": "green_2", "top": [["green_2", 0.97]]}, source="camera")
        expect(claim).to_be_visible()  # on its twin, credited to Lou
        expect(lou.locator("#jumpedbtn")).to_be_hidden()


def test_a_phone_whose_seat_is_gone_offers_the_names_again(server, browser):
    url, referee = server
    for event in ({"type": "game", "players": ["Gus", "Hal"]}, {"type": "deal", "dealer": "Gus"}):
        referee.submit(event, source="host")
    gus = _sit(browser, url, "Gus")
    referee.submit({"type": "game", "players": ["Ivy", "Jo"]}, source="host")  # the host starts another game
    expect(gus.locator("#pick")).to_be_visible()
    expect(gus.locator("#names button")).to_have_text(["Ivy", "Jo"])
    expect(gus.locator("#mine")).to_be_hidden()
    # a new game for the same names, from the host page, keeps their seats; the name list says
    # which seats another phone holds before anyone taps one
    ivy = _sit(browser, url, "Ivy")
    expect(gus.locator("#names button")).to_have_text([t("seat.taken_mark", "en", {"player": "Ivy"}), "Jo"])
    host = _host(browser, url)
    host.fill("#players", "Ivy, Jo")
    host.click("#newgame button.go")
    _yes(host)
    _toast(host, "done.game")
    expect(ivy.locator("#mine")).to_be_visible()
    ivy.wait_for_timeout(500)  # the page has asked the server whether the seat was kept
    expect(ivy.locator("#myname")).to_have_text(t("seat.you", "en", {"player": "Ivy"}))
    # and one without Ivy frees hers: her phone offers the names again
    host.fill("#players", "Jo, Kit")
    host.click("#newgame button.go")
    _yes(host)
    expect(ivy.locator("#pick")).to_be_visible()
    expect(ivy.locator("#mine")).to_be_hidden()


def test_standings_and_tv_rank_as_the_game_places(browser, tmp_path):
    # lowest total wins: the winner heads the table; a tie at the end follows the tie-breaks
    # (fewer cards held), as the league's places do, not the seats
    with served(tmp_path, {"HOST_PIN": PIN, "TABLE_MODE": "none"}) as (url, referee):
        for event in ({"type": "game", "players": ["Ann", "Bob", "Cy"],
                       "rules": {"hand_size": 1, "hands": 1, "scoring": "lowest_wins"}},
                      {"type": "deal", "dealer": "Cy"}, {"type": "flip", "card": "red_5"},
                      {"type": "play", "card": "red_3"}, {"type": "points", "player": "Bob", "points": 30},
                      {"type": "points", "player": "Cy", "points": 6}):
            referee.submit(event, source="host")
        assert referee.state["placings"] == ["Ann", "Cy", "Bob"]
        standings, tv = _page(browser, url, "/standings"), _page(browser, url, "/tv", "en", TV)
        for page in (standings, tv):
            expect(page.locator("#totals tr td:first-child")).to_have_text(["Ann", "Cy", "Bob"])
        for event in ({"type": "game", "players": ["Ann", "Bob", "Cy", "Dee"], "rules": {"hand_size": 2, "target": 10}},
                      {"type": "deal", "dealer": "Dee"}, {"type": "flip", "card": "red_5"},
                      {"type": "uno", "player": "Ann"}, {"type": "play", "card": "red_3"},
                      {"type": "draw"}, {"type": "pass"},
                      {"type": "uno", "player": "Cy"}, {"type": "play", "card": "red_4"},
                      {"type": "uno", "player": "Dee"}, {"type": "play", "card": "red_6"},
                      {"type": "play", "card": "red_7"},
                      *({"type": "points", "player": p, "points": 20} for p in ("Bob", "Cy", "Dee"))):
            referee.submit(event, source="host")
        state = referee.state
        assert state["waiting_for"] == "game_over" and state["placings"][0] == "Ann"
        # Bob holds 3 cards, Cy and Dee 1: all on 0 points, Bob places last, not second by seat
        assert {p["name"]: p["score"] for p in state["players"]}["Bob"] == 0 and state["placings"][-1] == "Bob"
        for page in (standings, tv):
            expect(page.locator("#totals tr td:first-child")).to_have_text(state["placings"])
        # the TV's own way to the table's language (a kiosk browser may be in another)
        tv.click("#lang")
        expect(tv.locator("html")).to_have_attribute("lang", "it")
        assert tv.url.endswith("/tv")
        # a team game: the TV shows the teams' totals too
        for event in ({"type": "game", "players": ["Ann", "Bob", "Cy", "Dee"], "rules": {"teams": True}},
                      {"type": "deal", "dealer": "Dee"}):
            referee.submit(event, source="host")
        expect(tv.locator("#teamtotals tr")).to_have_count(2)


def test_tv_strikes_a_win_taken_back_and_shows_no_counts_between_hands(server, browser):
    url, referee = server
    for ctx in list(browser.contexts):  # the pages earlier tests left open hold the browser's 6 connections
        ctx.close()
    for event in ({"type": "game", "players": ["Ann", "Bob", "Cid"], "rules": {"hand_size": 1, "target": 50}},
                  {"type": "deal", "dealer": "Cid"}, {"type": "flip", "card": "red_5"},
                  {"type": "play", "card": "red_1"}, {"type": "points", "player": "Bob", "points": 40},
                  {"type": "points", "player": "Cid", "points": 30}):
        referee.submit(event, source="host")
    assert referee.state["game_winner"] == "Ann"
    tv = _page(browser, url, "/tv", size=TV)
    expect(tv.locator("#notices li.k-game_won")).not_to_have_class(re.compile(r"\bvoid\b"))
    referee.submit({"type": "score_fix", "hand": 1, "player": "Ann", "points": 10}, source="host")
    assert referee.state["game_winner"] is None and referee.state["waiting_for"] == "deal"
    # the win the correction took back is struck through, not gold; the last hand's counts are gone
    expect(tv.locator("#notices li.k-game_won")).to_have_class(re.compile(r"\bvoid\b"))
    expect(tv.locator("#players li")).to_have_count(3)
    expect(tv.locator("#players li span")).to_have_count(0)
    referee.submit({"type": "deal"}, source="host")
    expect(tv.locator("#players li span")).to_have_count(3)
    expect(tv.locator("#target")).to_have_text(t("st.target", "en", {"n": 50}))
    # a lowest-wins game says so: "points" are read the other way at most tables
    referee.submit({"type": "game", "players": ["Ann", "Bob"], "rules": {"scoring": "lowest_wins", "target": 100}},
                   source="host")
    expect(tv.locator("#target")).to_have_text("ends when someone reaches 100 points · lowest total wins")
