"""Real-browser checks for players who use a keyboard, a screen reader or weak eyes (Debian
Chromium): a keyboard's place survives the live updates, the card picker says what is
picked, the phone's own prompt is a live region, a wrong card is not shown as a success, the
coloured buttons keep 4.5:1 contrast, and each view has its own title."""
from __future__ import annotations

import re

import pytest

pytest.importorskip("playwright")
from playwright.sync_api import expect  # noqa: E402

from browser_support import MARKS, chromium, confirm, served, take_seat, wait_until  # noqa: E402
from web.i18n import t  # noqa: E402

pytestmark = MARKS
PHONE = {"width": 412, "height": 915}
PLAYERS = ["Ann", "Bob", "Cat"]


@pytest.fixture(scope="module")
def browser():
    with chromium() as (_, b):
        yield b


@pytest.fixture
def table(tmp_path):
    with served(tmp_path, {"HOST_PIN": "2468", "TABLE_MODE": "none"}) as (url, referee):
        for event in ({"type": "game", "players": PLAYERS}, {"type": "deal", "dealer": "Cat"},
                      {"type": "flip", "card": "red_5"}):
            referee.submit(event, source="host")
        yield url, referee


def _phone(browser, url, path="/seat"):
    page = browser.new_context(viewport=PHONE, locale="en-GB").new_page()
    page.goto(url + path)
    return page


def _focused(page):
    return page.evaluate("({pick: document.activeElement.dataset.pick || null, card: document.activeElement.dataset.card || null,"
                         " text: document.activeElement.textContent, pressed: document.activeElement.getAttribute('aria-pressed'),"
                         " label: document.activeElement.getAttribute('aria-label')})")


def test_the_card_picker_keeps_the_keyboard_in_place_and_says_what_is_picked(browser, table):
    url, _ = table
    ann = take_seat(_phone(browser, url), "Ann")
    expect(ann.locator("#cardpick")).to_be_visible()
    ann.locator("#cardpick [data-pick=red]").focus()
    ann.keyboard.press("Enter")  # the buttons are drawn again: the focus stays on red, now pressed
    assert _focused(ann)["pick"] == "red" and _focused(ann)["pressed"] == "true"
    seven = ann.locator("#cardpick [data-card=red_7]")
    expect(seven).to_have_attribute("aria-label", "red 7")  # not "7" alone
    seven.focus()
    ann.keyboard.press("Space")
    assert _focused(ann)["card"] == "red_7" and _focused(ann)["pressed"] == "true"
    expect(ann.locator("#playcard")).to_be_enabled()


def test_a_live_update_does_not_take_the_keyboard_off_a_name(browser, table):
    url, referee = table
    page = _phone(browser, url)
    page.locator("#names button", has_text="Bob").focus()
    referee.submit({"type": "play", "card": "red_draw_two"}, source="host")  # the table moves on, said in the feed
    expect(page.locator("#notices li").first).to_be_visible()
    assert page.evaluate("document.activeElement.textContent") == "Bob"


def test_the_phones_own_prompt_is_a_live_region_and_a_wrong_card_is_no_success(browser, table):
    url, referee = table
    ann = take_seat(_phone(browser, url), "Ann")
    prompt = ann.locator("#prompt")
    expect(prompt).to_have_attribute("aria-live", "polite")
    expect(prompt).to_have_text(t("prompt.play_nocam", "en"))
    ann.locator("#cardpick [data-pick=blue]").click()
    ann.locator("#cardpick [data-card=blue_3]").click()
    ann.click("#playcard")  # blue 3 on red 5: taken in, and wrong
    expect(ann.locator("#toast")).to_have_class(re.compile(r"\bbad\b"))
    assert ann.evaluate("getComputedStyle(document.querySelector('#toast'), '::before').content") == '"⚠ "'


def _contrast(page, selector):
    """WCAG contrast of a button's text against its background (both solid)."""
    return page.evaluate("""(sel) => {
        const s = getComputedStyle(document.querySelector(sel));
        const lum = (c) => { const v = c.match(/\\d+/g).slice(0, 3).map(Number).map(x => x / 255)
            .map(x => x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4);
            return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2]; };
        const [a, b] = [lum(s.color), lum(s.backgroundColor)].sort((x, y) => y - x);
        return (a + 0.05) / (b + 0.05); }""", selector)


def test_coloured_buttons_keep_text_readable_and_each_view_has_its_title(browser, table):
    url, referee = table
    ann = take_seat(_phone(browser, url), "Ann")
    for colour in ("red", "yellow", "green", "blue", "wild"):
        assert _contrast(ann, f"#cardpick [data-pick={colour}]") >= 4.5, colour
    ann.evaluate("""() => ['pink', 'teal', 'orange', 'purple'].forEach(c => {
        const b = document.createElement('button'); b.className = 'c-' + c; b.id = 'probe-' + c; b.textContent = c;
        document.body.appendChild(b); })""")
    for colour in ("pink", "teal", "orange", "purple"):  # UNO Flip's dark side
        assert _contrast(ann, f"#probe-{colour}") >= 4.5, colour
    titles = set()
    for path in ("/", "/seat", "/standings", "/host"):
        page = _phone(browser, url, path)
        titles.add(page.title())
        page.context.close()
    assert len(titles) == 4


def test_the_standings_tabs_answer_the_arrow_keys(browser, table):
    url, _ = table
    page = _phone(browser, url, "/standings")
    page.locator("#tab-game").focus()
    page.keyboard.press("ArrowRight")
    expect(page.locator("#tab-league")).to_have_attribute("aria-selected", "true")
    expect(page.locator("#leaguetab")).to_be_visible()
    assert page.evaluate("document.activeElement.id") == "tab-league"
    page.keyboard.press("ArrowLeft")
    expect(page.locator("#gametab")).to_be_visible()


def test_the_referee_speaks_to_a_screen_reader_and_last_hands_count_goes(browser, tmp_path):
    with served(tmp_path, {"HOST_PIN": "2468", "TABLE_MODE": "none"}) as (url, referee):
        for event in ({"type": "game", "players": PLAYERS, "rules": {"hand_size": 2}}, {"type": "deal", "dealer": "Cat"},
                      {"type": "flip", "card": "red_5"}):
            referee.submit(event, source="host")
        ann = take_seat(_phone(browser, url), "Ann")
        referee.submit({"type": "play", "card": "red_7"}, source="host")  # Ann at one card, no call
        referee.submit({"type": "draw"}, source="host")  # Bob begins: the referee catches Ann
        expect(ann.locator("#heard")).to_have_text(t("notice.uno_penalty", "en", {"player": "Ann", "n": 2}))
        expect(ann.locator("#heard")).to_have_attribute("aria-live", "polite")
        expect(ann.locator("#mycards")).to_have_text(t("tbl.cards", "en", {"n": 3}))
    with served(tmp_path / "b", {"HOST_PIN": "2468", "TABLE_MODE": "none"}) as (url, referee):
        for event in ({"type": "game", "players": PLAYERS, "rules": {"hand_size": 1}}, {"type": "deal", "dealer": "Cat"},
                      {"type": "flip", "card": "red_5"}):
            referee.submit(event, source="host")
        ann = take_seat(_phone(browser, url), "Ann")
        for event in ({"type": "play", "card": "red_7"}, {"type": "points", "player": "Bob", "points": 5},
                      {"type": "points", "player": "Cat", "points": 5}):
            referee.submit(event, source="host")
        assert referee.state["waiting_for"] == "deal"
        expect(ann.locator("#mycards")).to_have_text("")  # not the last hand's "0 cards" while a deal is awaited


def test_the_demo_tables_seat_page_says_there_is_no_seat_to_take(browser, tmp_path):
    with served(tmp_path, {"HOST_PIN": "2468", "TABLE_MODE": "demo"}) as (url, referee):
        referee.submit({"type": "game", "players": PLAYERS}, source="host")
        page = _phone(browser, url)
        expect(page.locator("#pick h2")).to_have_text(t("seat.demo_title", "en"))
        expect(page.locator("#names button")).to_have_count(0)


def test_draw_goes_once_drawn_and_a_new_seat_hears_nothing_old(browser, table):
    url, referee = table
    ann = take_seat(_phone(browser, url), "Ann")
    draw, pass_ = ann.locator("#turnbtns [data-act=draw]"), ann.locator("#turnbtns [data-act=pass]")
    expect(draw).to_be_visible()
    expect(pass_).to_be_hidden()
    draw.click()
    expect(pass_).to_be_visible()
    expect(draw).to_be_hidden()  # a second draw would be refused
    ann.wait_for_timeout(500)  # a look at the card drawn (a faster tap where Draw was is a double tap's)
    pass_.click()
    wait_until(lambda: referee.state["turn"] == "Bob", "Ann's pass")
    referee.submit({"type": "play", "card": "red_draw_two"}, source="host")  # Bob plays: Cat is hit
    ann.click("#leave")
    confirm(ann)
    take_seat(ann, "Cat")
    expect(ann.locator("#heard")).to_have_text("")  # Cat's earlier notice is not read out as news


def test_the_standings_chart_tells_lines_apart_by_more_than_colour(browser, table):
    url, referee = table
    for event in ({"type": "play", "card": "red_7"}, {"type": "play", "card": "red_8"}):
        referee.submit(event, source="host")
    page = _phone(browser, url, "/standings")
    expect(page.locator("#chart polyline")).to_have_count(3)
    dashes = page.eval_on_selector_all("#chart polyline", "ls => ls.map(l => l.getAttribute('stroke-dasharray'))")
    legend = page.eval_on_selector_all("#chart .leg line", "ls => ls.map(l => l.getAttribute('stroke-dasharray'))")
    assert len(set(dashes)) == 3 and legend == dashes
