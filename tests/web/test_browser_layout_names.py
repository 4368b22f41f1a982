"""Real-browser layout tests on small phones (Debian Chromium, 320x568 and 390x844) with long,
Greek, Arabic and emoji names: no page scrolls sideways (the Italian menu included), button
labels are never broken in the middle of a word, the hand-by-hand table keeps readable columns,
the chart's legend entries do not overlap and stay inside the chart, and tied players' lines
stay apart."""
from __future__ import annotations

import pytest

pytest.importorskip("playwright")
from playwright.sync_api import expect  # noqa: E402

from browser_support import MARKS, chromium, confirm, log_in_host, served  # noqa: E402
from web.i18n import t  # noqa: E402

pytestmark = MARKS
PIN = "1357"
SMALL = {"width": 320, "height": 568}
PHONE = {"width": 390, "height": 844}
LONG = "W" * 40  # the longest name a game takes, with nowhere to break
PLAYERS = ["Maximilian-Alexander-Wolfeschlegel", "Ἀλέξανδρος Παπαδόπουλος", "محمد عبد الرحمن", "🦄Zoë", LONG]
ON_TURN = PLAYERS[2]  # the third hand waits for the Arabic name's card


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    config = {"HOST_PIN": PIN, "SSE_HEARTBEAT_S": 1.0, "TABLE_MODE": "none"}
    with served(tmp_path_factory.mktemp("layout"), config) as (url, referee):
        # two hands of one card each, 20 points to the winner: the last three players stay
        # level at 0 the whole game (tied lines), then a third hand waits for a card
        referee.submit({"type": "game", "players": PLAYERS, "rules": {"hand_size": 1}}, source="host")
        for dealer in (PLAYERS[4], PLAYERS[0]):
            for event in ({"type": "deal", "dealer": dealer}, {"type": "flip", "card": "red_5"},
                          {"type": "play", "card": "red_7"}):
                referee.submit(event, source="host")
            for p in referee.state["players"]:
                if p["cards"]:
                    referee.submit({"type": "points", "player": p["name"], "points": 5}, source="host")
        for event in ({"type": "deal", "dealer": PLAYERS[1]}, {"type": "flip", "card": "red_5"}):
            referee.submit(event, source="host")
        assert len(referee.state["history"]) == 2 and referee.state["turn"] == ON_TURN
        yield url, referee


@pytest.fixture(scope="module")
def browser():
    with chromium() as (_, b):
        yield b


def _page(browser, url, path, lang, size):
    ctx = browser.new_context(viewport=size, locale={"en": "en-GB", "it": "it-IT"}[lang], has_touch=True)
    page = ctx.new_page()
    page.goto(f"{url}/lang/{lang}?next={path}")
    return page


def _sit(page, name):
    """Tap `name` on the seat page (its greeting's words are not this file's business)."""
    page.locator("#names button", has_text=name).click()
    expect(page.locator("#mine")).to_be_visible()


def _leave(page):
    """Give the seat back, so the next test's phone may take it."""
    page.click("#leave")
    confirm(page)  # asked first: a stray tap does not give a seat away
    expect(page.locator("#pick")).to_be_visible()


def _sideways(page):
    return page.evaluate("document.documentElement.scrollWidth - window.innerWidth")


# how many lines each visible button's label takes (one text node per label)
LINES = """(sel) => [...document.querySelectorAll(sel)].filter(b => b.offsetParent).map(b => {
    const r = document.createRange(); r.selectNodeContents(b);
    const tops = new Set([...r.getClientRects()].filter(x => x.width > 0).map(x => Math.round(x.top)));
    return [b.textContent, tops.size]; })"""
# the labels broken inside a word: a new line starts after a character that is no space or hyphen
MID_WORD = """(sel) => [...document.querySelectorAll(sel)].filter(b => b.offsetParent).filter(b => {
    const node = b.firstChild, text = node.data, r = document.createRange(); let at = 0, prev = null, broken = false;
    for (const ch of text) {
        r.setStart(node, at); r.setEnd(node, at + ch.length); const rect = r.getClientRects()[0];
        if (rect && rect.width > 0) {
            if (prev !== null && rect.top > prev.top + 2 && !/[\\s\\-]/.test(text.slice(0, at).slice(-1)) && !/\\s/.test(ch)) broken = true;
            prev = rect; }
        at += ch.length; }
    return broken; }).map(b => b.textContent)"""


@pytest.mark.parametrize("lang", ["it", "en"])
def test_no_page_scrolls_sideways_on_a_320_px_phone(server, browser, lang):
    url, _ = server
    seat = _page(browser, url, "/seat", lang, SMALL)
    _sit(seat, PLAYERS[0])
    host = log_in_host(_page(browser, url, "/host", lang, SMALL), PIN)
    pages = {"/seat": seat, "/host": host}
    for path in ("/", "/standings", "/tv"):
        pages[path] = _page(browser, url, path, lang, SMALL)
    pages["/"].wait_for_selector("#players li")
    pages["/standings"].wait_for_selector("#chart svg")
    for path, page in pages.items():
        assert _sideways(page) <= 0, (lang, path, _sideways(page))
        nav = page.locator("nav a")
        for i in range(nav.count()):  # every menu link (the language switch too) is on the screen
            box = nav.nth(i).bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= SMALL["width"] + 0.5, (lang, path, i)
            assert box["height"] >= 40, (lang, path, i)  # still a finger's target
        if path == "/seat":
            _leave(page)
        page.context.close()


@pytest.mark.parametrize("lang", ["en", "it"])
@pytest.mark.parametrize("size", [SMALL, PHONE], ids=["320", "390"])
def test_colour_and_name_buttons_keep_their_words_whole(server, browser, lang, size):
    url, _ = server
    page = _page(browser, url, "/seat", lang, size)
    # the seat list: a Greek or Arabic name breaks only between words, the 40 W's only where it must
    expect(page.locator("#names button")).to_have_count(len(PLAYERS))
    assert [n for n in page.evaluate(MID_WORD, "#names button") if n != LONG] == []
    assert _sideways(page) <= 0
    _sit(page, ON_TURN)
    for colour in ("red", "wild"):
        page.click(f"#cardpick button[data-pick={colour}]")
        labels = page.evaluate(LINES, "#cardpick button")
        assert len(labels) >= 5
        assert [lab for lab in labels if lab[1] != 1] == [], (lang, size, colour)
        assert page.evaluate(MID_WORD, "#cardpick button") == []
    assert _sideways(page) <= 0
    _leave(page)
    page.context.close()


@pytest.mark.parametrize("size", [SMALL, PHONE], ids=["320", "390"])
def test_standings_with_long_names_stay_readable(server, browser, size):
    url, _ = server
    page = _page(browser, url, "/standings", "it", size)
    page.wait_for_selector("#history th")
    assert _sideways(page) <= 0
    rem = page.evaluate("parseFloat(getComputedStyle(document.documentElement).fontSize)")
    # Hand by hand: one line of headers, each name's column at least ~4rem, the whole name in its title
    heads = page.evaluate("""() => [...document.querySelectorAll('#history tr:first-child th')].map(th => {
        const b = th.getBoundingClientRect(); return {w: b.width, h: b.height, title: th.title, text: th.textContent}; })""")
    assert len(heads) == 2 + len(PLAYERS)
    line = page.evaluate("parseFloat(getComputedStyle(document.querySelector('#history th')).lineHeight)")
    for head in heads:
        assert head["h"] <= 2 * line + 2 * rem, head  # no name or "Mano" written one letter a line
    for head, name in zip(heads[2:], PLAYERS):
        assert head["w"] >= 4 * rem - 1, head
        assert head["title"] == name and head["text"] == name
    # the table scrolls inside its own box, not the page
    assert page.evaluate("document.querySelector('.scroll').scrollWidth > document.querySelector('.scroll').clientWidth")
    # totals: a name wraps between its words rather than being cut short
    cut = page.evaluate("[...document.querySelectorAll('#totals td:first-child')].filter(td => td.scrollWidth > td.clientWidth + 1).map(td => td.textContent)")
    assert [c for c in cut if c != LONG] == []
    # the chart's legend: one box per name, no two overlapping, every one inside the chart
    svg = page.locator("#chart svg")
    expect(svg.locator(".leg")).to_have_count(len(PLAYERS))
    chart = svg.bounding_box()
    boxes = page.evaluate("[...document.querySelectorAll('#chart svg .leg text')].map(t => { const b = t.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom, t.textContent]; })")
    for i, a in enumerate(boxes):
        assert chart["x"] - 0.5 <= a[0] and a[2] <= chart["x"] + chart["width"] + 0.5, a[4]
        for b in boxes[i + 1:]:
            apart = a[2] <= b[0] + 0.5 or b[2] <= a[0] + 0.5 or a[3] <= b[1] + 0.5 or b[3] <= a[1] + 0.5
            assert apart, (a[4], b[4])
    legend = [b[4] for b in boxes]
    assert f"{PLAYERS[2]} 0" in legend and f"{PLAYERS[1]} 20" in legend  # the Arabic name, its total after it
    assert any(t.startswith("WWW") and t.endswith("… 0") for t in legend)  # cut with an ellipsis
    # the three players level at 0 all game: three lines, each of them visible
    lines = page.evaluate("[...document.querySelectorAll('#chart svg polyline')].map(l => l.getAttribute('points'))")
    assert len(lines) == len(PLAYERS) and len(set(lines)) == len(PLAYERS)
    page.context.close()


@pytest.mark.parametrize("lang", ["en", "it"])
def test_league_table_headers_are_whole_on_a_small_phone(browser, tmp_path, lang):
    # "Posto" came out as "P…" and "Giocatore" as "Gioca…" at 360 px (and "P…" even on a TV)
    with served(tmp_path, {"HOST_PIN": PIN, "TABLE_MODE": "none"}) as (url, referee):
        referee.store.new_league("Giovedì", [12, 6, 2, 0])
        for event in ({"type": "game", "players": ["Giulia", "Marco", "Chiara", "Luca"], "rules": {"hand_size": 1, "hands": 1}},
                      {"type": "deal", "dealer": "Luca"}, {"type": "flip", "card": "red_5"},
                      {"type": "play", "card": "red_7"},
                      *({"type": "points", "player": p, "points": 5} for p in ("Marco", "Chiara", "Luca"))):
            referee.submit(event, source="host")
        assert referee.state["waiting_for"] == "game_over"
        for size in ({"width": 360, "height": 740}, {"width": 412, "height": 915}, {"width": 480, "height": 915},
                     {"width": 1920, "height": 1080}):
            page = _page(browser, url, "/standings", lang, size)
            page.click("#tab-league")
            expect(page.locator("#lgrows tr")).to_have_count(4)
            cut = page.evaluate("[...document.querySelectorAll('#lgtable th')].filter(th => th.scrollWidth > th.clientWidth).map(th => th.textContent)")
            assert cut == [], (size, cut)
            # and the names have room: at 412 px the player column was 4 px wide, the rows "1 12 1 0"
            names = page.evaluate("[...document.querySelectorAll('#lgrows tr td:nth-child(2)')].map(td => td.clientWidth)")
            assert min(names) >= 80, (size, names)
            assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
            page.context.close()


@pytest.mark.parametrize("lang", ["it", "en"])
def test_tv_standings_headers_and_points_stay_whole_at_720p(browser, tmp_path, lang):
    # Italian at 1280x720: "Giocatore" came out as "Giocat…" and "12 punti" broke onto two lines,
    # one player's row taller than the others across the room
    with served(tmp_path, {"HOST_PIN": PIN, "TABLE_MODE": "none"}) as (url, referee):
        for event in ({"type": "game", "players": ["Ann", "Bob", "Cid"], "rules": {"hand_size": 1}},
                      {"type": "deal", "dealer": "Cid"}, {"type": "flip", "card": "red_5"},
                      {"type": "play", "card": "red_7"},
                      {"type": "points", "player": "Bob", "points": 120}, {"type": "points", "player": "Cid", "points": 5},
                      {"type": "deal"}, {"type": "flip", "card": "yellow_2"}):
            referee.submit(event, source="host")
        page = _page(browser, url, "/tv", lang, {"width": 1280, "height": 720})
        expect(page.locator("#totals tr")).to_have_count(3)
        cut = page.evaluate("[...document.querySelectorAll('.tv-side th')].filter(th => th.offsetParent && th.scrollWidth > th.clientWidth).map(th => th.textContent)")
        assert cut == [], cut
        rows = page.evaluate("[...document.querySelectorAll('#players li')].map(li => li.getBoundingClientRect().height)")
        assert len(rows) == 3 and max(rows) - min(rows) < 2, rows  # "125 punti" on one line in every row
        page.context.close()


def test_the_tv_shows_the_newest_notices_on_a_720_line_screen_with_a_league(browser, tmp_path):
    # with a league's table under the standings the feed fell below the screen (1007 px of 720):
    # "Dee joins the game" was never seen on a kiosk TV, which cannot scroll
    with served(tmp_path, {"HOST_PIN": PIN, "TABLE_MODE": "none"}) as (url, referee):
        referee.store.new_league("Giovedì", [12, 6, 2, 0, 0])
        players = ["Giulia", "Marco", "Chiara", "Luca", "Sofia"]
        for event in ({"type": "game", "players": players, "rules": {"hand_size": 1}},
                      {"type": "deal", "dealer": "Sofia"}, {"type": "flip", "card": "red_5"},
                      {"type": "play", "card": "red_7"},
                      *({"type": "points", "player": p, "points": 5} for p in players[1:]),
                      {"type": "seats", "players": ["Giulia", "Marco", "Chiara", "Luca", "Dee", "Massimiliano"]}):
            referee.submit(event, source="host")
        page = _page(browser, url, "/tv", "it", {"width": 1280, "height": 720})
        expect(page.locator("#notices li").first).to_have_text(t("notice.left", "it", {"player": "Sofia", "n": 0}))
        assert page.evaluate("document.querySelector('.tv').getBoundingClientRect().bottom <= window.innerHeight + 1")
        for text in (t("notice.joined", "it", {"player": "Dee"}), t("notice.joined", "it", {"player": "Massimiliano"})):
            box = page.locator("#notices li", has_text=text).bounding_box()
            assert box is not None and box["y"] + box["height"] <= 720, (text, box)
        page.context.close()
