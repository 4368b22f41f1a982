"""Real-browser tests of the host's set-up (Debian Chromium at phone size 412x915, with touch):
the seat order moved with the arrows and by dragging a name, refused mid-hand in words; a camera
zone's corner dragged with a finger over the snapshot and saved, a bad box refused; the
colour-blind aid's switch; the host page's weight with the camera picture."""
from __future__ import annotations

import gzip

import json

import numpy as np
import pytest

pytest.importorskip("playwright")
from playwright.sync_api import expect  # noqa: E402

from browser_support import MARKS, chromium, confirm, log_in_host, served, wait_until  # noqa: E402
from web.i18n import t  # noqa: E402
from web.messages import notice_say  # noqa: E402

PIN = "2468"
PHONE = {"width": 412, "height": 915}
PLAYERS = ["Ann", "Bob", "Cat", "Dan"]
pytestmark = MARKS


def _frame() -> np.ndarray:
    """A table seen from above: green felt with a few light patches (a stand-in camera frame)."""
    rng = np.random.default_rng(7)
    frame = np.full((480, 640, 3), (40, 110, 50), np.uint8)
    frame[80:280, 240:400] = (230, 230, 230)
    return np.clip(frame.astype(int) + rng.integers(-12, 12, frame.shape), 0, 255).astype(np.uint8)


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    folder = tmp_path_factory.mktemp("host")
    frame = _frame()
    config = {"HOST_PIN": PIN, "SSE_HEARTBEAT_S": 1.0, "TABLE_MODE": "camera",
              "ZONES_PATH": str(folder / "zones.json"), "SNAPSHOT": lambda: frame}
    with served(folder, config) as (url, referee):
        yield url, referee, folder / "zones.json"


@pytest.fixture(scope="module")
def browser():
    with chromium() as (_, b):
        yield b


def _page(browser, url, path="/", lang="en"):
    ctx = browser.new_context(viewport=PHONE, locale={"en": "en-GB", "it": "it-IT"}[lang], has_touch=True)
    page = ctx.new_page()
    page.goto(url + path)
    return page


def _host(browser, url, lang="en"):
    return log_in_host(_page(browser, url, "/host", lang), PIN)


def _toast(page, key, **args):
    expect(page.locator("#toast")).to_have_text(t(key, page.evaluate("document.documentElement.lang"), args))


def _order(page):
    return page.locator("#seatorder li .who").all_text_contents()


def _hand_on(referee):
    """A new game of PLAYERS, dealt by Ann, its first card (a red 5) turned up: Bob to play."""
    for event in ({"type": "game", "players": PLAYERS}, {"type": "deal", "dealer": "Ann"},
                  {"type": "flip", "card": "red_5"}):
        referee.submit(event, source="camera")


def _names(referee):
    return [p["name"] for p in referee.state["players"]]


def test_seat_order_by_arrows_and_drag_then_refused_mid_hand(browser, table):
    url, referee, _ = table
    referee.submit({"type": "game", "players": PLAYERS}, source="host")
    host = _host(browser, url)
    expect(host.locator("#seatorder li")).to_have_count(4)
    assert _order(host) == PLAYERS and host.locator("#ordersave").is_disabled()
    host.get_by_role("button", name=t("host.order_down", "en", {"player": "Ann"})).click()
    assert _order(host) == ["Bob", "Ann", "Cat", "Dan"]
    # Cancel puts the table's order back; nothing was sent
    host.click("#ordercancel")
    assert _order(host) == PLAYERS and _names(referee) == PLAYERS
    host.get_by_role("button", name=t("host.order_up", "en", {"player": "Cat"})).click()
    assert _order(host) == ["Ann", "Cat", "Bob", "Dan"]
    # drag Dan's name above Ann's (a pointer drag, as a finger or a mouse does it)
    dan, ann = host.locator("#seatorder li .who", has_text="Dan").bounding_box(), host.locator("#seatorder li .who", has_text="Ann").bounding_box()
    host.mouse.move(dan["x"] + 20, dan["y"] + dan["height"] / 2)
    host.mouse.down()
    for k in range(1, 9):
        host.mouse.move(dan["x"] + 20, dan["y"] + dan["height"] / 2 + (ann["y"] - dan["y"]) * k / 8)
    host.mouse.up()
    assert _order(host) == ["Dan", "Ann", "Cat", "Bob"]
    host.click("#ordersave")
    expect(host.locator("#confirm-text")).to_have_text(t("confirm.order", "en", {"players": "Dan, Ann, Cat, Bob"}))
    confirm(host)
    _toast(host, "done.order")
    wait_until(lambda: _names(referee) == ["Dan", "Ann", "Cat", "Bob"], "the seats event is stored")
    expect(host.locator("#ordersave")).to_be_disabled()

    # the table view and a phone show the new order, and turns follow it
    tv = _page(browser, url, "/", "it")
    expect(tv.locator("#players li b")).to_have_text(["Dan", "Ann", "Cat", "Bob"])
    seat = _page(browser, url, "/seat")
    expect(seat.locator("#names button")).to_have_text(["Dan", "Ann", "Cat", "Bob"])
    referee.submit({"type": "deal", "dealer": "Dan"}, source="host")
    referee.submit({"type": "flip", "card": "red_5"}, source="camera")
    assert referee.state["turn"] == "Ann"
    expect(tv.locator("#players li.turn b")).to_have_text("Ann")

    # mid-hand: refused in one line, in the page's language, and nothing changes
    events = len(referee.events)
    host.get_by_role("button", name=t("host.order_down", "en", {"player": "Dan"})).click()
    host.click("#ordersave")
    confirm(host)
    _toast(host, "err.seats_mid_hand")
    assert len(referee.events) == events and _names(referee) == ["Dan", "Ann", "Cat", "Bob"]


def test_a_player_joins_and_one_leaves_on_the_host_page(browser, table):
    # Eve arrives, Dan goes home: before, only a New game with scores starting again
    url, referee, _ = table
    referee.submit({"type": "game", "players": PLAYERS}, source="host")
    host = _host(browser, url, "it")
    expect(host.locator("#seatorder li")).to_have_count(4)
    host.get_by_role("button", name=t("host.order_leave", "it", {"player": "Dan"})).click()
    host.fill("#ordername", "Eve")
    host.click("#orderadd")
    assert _order(host) == ["Ann", "Bob", "Cat", "Eve"]
    host.click("#ordersave")
    expect(host.locator("#confirm-text")).to_have_text(
        t("confirm.order", "it", {"players": "Ann, Bob, Cat, Eve"}) + " " + t("confirm.order_join", "it", {"players": "Eve"})
        + " " + t("confirm.order_leave", "it", {"players": "Dan"}))
    confirm(host)
    wait_until(lambda: _names(referee) == ["Ann", "Bob", "Cat", "Eve"], "the seats event is stored")
    expect(host.locator("#notices li.k-joined")).to_have_text(t("notice.joined", "it", {"player": "Eve"}))
    seat = _page(browser, url, "/seat")
    expect(seat.locator("#names button")).to_have_text(["Ann", "Bob", "Cat", "Eve"])


def test_the_host_hands_a_seat_to_a_phone_by_its_seat_link(browser, table):
    # a phone on the Wi-Fi sits in Ann's seat; the host shows Ann a QR code that gives it to her
    url, referee, _ = table
    referee.submit({"type": "game", "players": PLAYERS}, source="host")
    squatter = _page(browser, url, "/seat")
    squatter.get_by_role("button", name="Ann").click()
    expect(squatter.locator("#myname")).to_contain_text("Ann")
    host = _host(browser, url)
    host.get_by_role("button", name=t("host.seat_link", "en", {"player": "Ann"})).click()
    expect(host.locator("#seatlinkqr svg")).to_have_count(1)
    expect(host.locator("#seatlinktext")).to_have_text(t("host.seat_link_help", "en", {"player": "Ann", "n": 10}))
    link = host.locator("#seatlinkurl").inner_text()
    ann = _page(browser, url, "/seat/link/" + link.rsplit("/", 1)[1])
    expect(ann.locator("#myname")).to_contain_text("Ann")
    squatter.reload()
    squatter.get_by_role("button", name="Ann").click()
    _toast(squatter, "err.seat_taken")
    host.click("#seatlinkdone")
    expect(host.locator("#seatlink")).to_be_hidden()


def _touch_drag(page, start, end, steps=8):
    """A finger on the screen: touch start, moves, touch end (Chromium's own touch input)."""
    cdp = page.context.new_cdp_session(page)
    point = lambda x, y: [{"x": x, "y": y, "id": 1}]  # noqa: E731
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": point(*start)})
    for k in range(1, steps + 1):
        x, y = (start[0] + (end[0] - start[0]) * k / steps, start[1] + (end[1] - start[1]) * k / steps)
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": point(x, y)})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


def _corner(page, zone, k):
    box = page.locator(f"#zonesvg .z-{zone} circle.corner[data-corner='{k}']").bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def test_zone_corner_dragged_by_touch_is_saved_and_a_bad_box_refused(browser, table):
    url, _, zones_path = table
    host = _host(browser, url)
    host.locator("#zonesbox").scroll_into_view_if_needed()
    expect(host.locator("#zonesed")).to_be_visible()
    expect(host.locator("#zonesvg .z-discard circle.corner")).to_have_count(4)
    assert host.evaluate("document.getElementById('snap').naturalWidth") == 480  # a 640x480 camera, shown 480 wide
    scale = 480 / host.locator("#snap").bounding_box()["width"]  # picture pixels per CSS pixel
    before = host.evaluate("zBox.discard.slice()")
    # the discard pile's bottom-right corner, 40 px right and 30 px up, by finger
    x, y = _corner(host, "discard", 2)
    _touch_drag(host, (x, y), (x + 40, y - 30))
    after = host.evaluate("zBox.discard.slice()")
    assert after[2] == pytest.approx(before[2] + 40 * scale, abs=2 * scale)
    assert after[3] == pytest.approx(before[3] - 30 * scale, abs=2 * scale)
    assert after[:2] == before[:2]
    expect(host.locator("#zonessave")).to_be_enabled()
    host.click("#zonessave")
    expect(host.locator("#confirm-text")).to_have_text(t("confirm.zones", "en"))
    confirm(host)
    _toast(host, "done.zones")
    saved = json.loads(zones_path.read_text())
    assert saved["frame"] == [480, 360]
    assert saved["discard"][2] == pytest.approx([round(after[2], 1), round(after[3], 1)], abs=0.2)
    expect(host.locator("#zonessave")).to_be_disabled()

    # the reveal area dragged over the discard pile: refused in words, nothing saved
    rx, ry = _corner(host, "reveal", 0)
    dx, dy = _corner(host, "discard", 2)
    _touch_drag(host, (rx, ry), (dx - 20, dy - 20))
    host.click("#zonessave")
    _toast(host, "err.zones_overlap", zone="reveal")
    assert json.loads(zones_path.read_text()) == saved
    # Cancel puts the saved boxes back
    host.click("#zonescancel")
    assert host.evaluate("zBox.reveal[1]") == pytest.approx(saved["reveal"][0][1], abs=0.2)


def test_zones_editor_says_when_there_is_no_camera(browser, tmp_path):
    with served(tmp_path, {"HOST_PIN": PIN, "TABLE_MODE": "none"}) as (url, _):
        host = _host(browser, url, "it")
        expect(host.locator("#zonesnocam")).to_have_text(t("host.zones_nocam", "it"))
        assert host.locator("#zonesvg").count() == 0


def test_the_host_page_says_when_the_camera_is_lost(browser, tmp_path):
    # `run --camera 5` with no such camera: the console said LOST, the host page only "no picture yet"
    from companion.vision.camera import SourceStatus

    lost = SourceStatus("lost", 0.0, 0.0, "cannot open camera 5")
    config = {"HOST_PIN": PIN, "TABLE_MODE": "camera", "ZONES_PATH": str(tmp_path / "zones.json"),
              "SNAPSHOT": lambda: None, "CAMERA_STATUS": lambda: lost}
    with served(tmp_path, config) as (url, _):
        host = _host(browser, url, "it")
        expect(host.locator("#nosnaptext")).to_have_text(t("err.camera_lost", "it", {"reason": "cannot open camera 5"}))
        # and at the top of the page, where the host looks during play
        expect(host.locator("#camline")).to_have_text(t("err.camera_lost", "it", {"reason": "cannot open camera 5"}))
    # a video's file gone (`run --video`): the file, not a cable
    gone = "video file 'table.mp4' does not exist"
    lost = SourceStatus("lost", 0.0, 0.0, gone)
    with served(tmp_path, dict(config, CAMERA_STATUS=lambda: lost)) as (url, _):
        host = _host(browser, url, "en")
        expect(host.locator("#camline")).to_have_text(t("err.video_lost", "en", {"reason": gone}))


def test_the_host_page_says_a_grey_picture_and_a_hidden_pile_while_they_last(browser, tmp_path):
    # A webcam gone to its black-and-white night mode, a cup on the pile: the console said so,
    # and now the host page does too, and stops saying it once the camera sees again
    from companion.vision.camera import SourceStatus

    warnings = {"pile_hidden": {"s": 40}, "colourless": {}, "beside": {"card": "yellow_8"},
                "disputed": {"player": "Ann", "guilty": False}}  # a hand shown after the verdict
    config = {"HOST_PIN": PIN, "TABLE_MODE": "camera", "ZONES_PATH": str(tmp_path / "zones.json"),
              "SNAPSHOT": lambda: None, "CAMERA_STATUS": lambda: SourceStatus("ok", 0.0, 0.0, ""),
              "CAMERA_WARNINGS": lambda: dict(warnings)}
    with served(tmp_path, config) as (url, _):
        host = _host(browser, url, "it")
        expect(host.locator("#camline")).to_have_text(
            t("camera.pile_hidden", "it", {"s": 40}) + " · " + t("camera.colourless", "it") + " · "
            + t("camera.beside", "it", {"card": "yellow_8"}) + " · "
            + t("camera.disputed_innocent", "it", {"player": "Ann"}))
        assert "8 giall" in host.locator("#camline").inner_text()  # the card in the page's words
        warnings.clear()  # the cup taken away, the light turned on, the card laid on the pile
        expect(host.locator("#camline")).to_be_hidden(timeout=12000)


def test_colour_blind_aid_marks_card_and_ring_and_is_remembered(browser, table):
    url, referee, _ = table
    if referee.state.get("waiting_for") != "play":
        referee.submit({"type": "game", "players": PLAYERS}, source="host")
        referee.submit({"type": "deal", "dealer": "Ann"}, source="host")
        referee.submit({"type": "flip", "card": "red_5"}, source="camera")
    page = _page(browser, url, "/", "it")
    expect(page.locator("#top")).to_be_visible()
    expect(page.locator("#mark")).to_be_hidden()
    assert "aid=1" not in page.get_attribute("#top", "src")
    page.check("#aid")
    expect(page.locator("body")).to_have_class("aid")
    expect(page.locator("#mark")).to_be_visible()
    expect(page.locator("#mark")).to_have_text("R")  # rosso
    expect(page.locator("#top")).to_have_attribute("src", "/cards/" + referee.state["top"] + ".svg?aid=1")
    wait_until(lambda: page.evaluate("document.getElementById('top').complete && document.getElementById('top').naturalWidth > 0"),
               "the aided card face loads")
    red = page.evaluate("getComputedStyle(document.getElementById('mark'), '::before').clipPath")
    # remembered by the browser: a reload (and another view) keeps it on
    page.goto(url + "/seat")
    expect(page.locator("#aid")).to_be_checked()
    page.goto(url + "/")
    expect(page.locator("body")).to_have_class("aid")
    referee.submit({"type": "play", "card": "green_5"}, source="camera")
    expect(page.locator("#mark")).to_have_text("V")  # verde
    green = page.evaluate("getComputedStyle(document.getElementById('mark'), '::before').clipPath")
    assert red != green and "polygon" in red
    page.uncheck("#aid")
    expect(page.locator("#mark")).to_be_hidden()
    assert "aid=1" not in page.get_attribute("#top", "src")


def test_host_page_weight_with_the_camera_picture(browser, table):
    """Everything the logged-in host page loads (HTML, script, style, QR code, the camera picture,
    its API reads), fetched again with the host's cookie by a client that takes gzip as a
    phone's browser does, and counted as sent: at most 150 KB."""
    import http.client
    from urllib.parse import urlsplit

    url, _, _ = table
    page = _host(browser, url)
    expect(page.locator("#zonesed")).to_be_visible()
    page.wait_for_load_state("networkidle")
    loaded = page.evaluate("performance.getEntriesByType('resource').map(e => e.name)")
    cookie = "; ".join(f"{c['name']}={c['value']}" for c in page.context.cookies())
    sizes, whole = {}, 0
    for u in {url + "/host", *loaded} - {u for u in loaded if "/events" in u}:
        where = urlsplit(u)
        conn = http.client.HTTPConnection(where.hostname, where.port, timeout=30)
        conn.request("GET", where.path + (f"?{where.query}" if where.query else ""),
                     headers={"Cookie": cookie, "Accept-Encoding": "gzip, deflate, br"})
        resp = conn.getresponse()
        body = resp.read()  # as sent: http.client does not undo the compression
        conn.close()
        sizes[u] = len(body)
        whole += len(gzip.decompress(body)) if resp.getheader("Content-Encoding") == "gzip" else len(body)
    assert any("snapshot.jpg" in u for u in sizes) and any(u.endswith("app.js") for u in sizes), sizes
    total = sum(sizes.values())
    print(f"host page, logged in, with the camera picture: {total} bytes sent ({whole} uncompressed)", sizes)
    assert total <= 150 * 1024, sizes


def test_undo_waits_for_the_page_to_see_the_table(browser, table):
    # Undo takes back the step the page shows: a tap before the table has arrived would name
    # no step, so the button is off until then, and on as soon as it comes.
    url, referee, _ = table
    _hand_on(referee)
    host = _host(browser, url)
    held = host.context.new_page()
    held.route("**/events*", lambda route: None)  # the table's stream never answers
    held.goto(url + "/host")
    expect(held.locator("#undo")).to_be_disabled()
    expect(host.locator("#undo")).to_be_enabled()


def test_undo_pressed_twice_takes_back_two_steps(browser, table):
    # Two confirmed presses of Undo are two intents, not a double tap: both go through.
    url, referee, _ = table
    for event in ({"type": "game", "players": PLAYERS}, {"type": "deal", "dealer": "Ann"},
                  {"type": "flip", "card": "red_5"}, {"type": "play", "card": "red_7"},
                  {"type": "play", "card": "red_8"}):
        referee.submit(event, source="camera")
    host = _host(browser, url)
    for top, going in (("red_7", "red 8"), ("red_5", "red 7")):
        expect(host.locator("#undo")).to_be_enabled()
        host.click("#undo")
        # the question names the step going back: on a busy machine the table after the first
        # undo can reach the page a moment after the server has it, and Undo waits for it
        expect(host.locator("#confirm")).to_contain_text(going)
        confirm(host)
        wait_until(lambda: referee.state["top"] == top, f"the undo back to {top}")
        # the host is told which card went back, not only that a step did
        undone = referee.state["notices"][-1]
        assert undone["kind"] == "undone"
        _toast(host, "notice.undone_play", **notice_say(undone)["a"])
    expect(host.locator("#toast")).to_contain_text("red 7")


def test_with_jump_in_the_host_enters_a_card_for_the_player_who_laid_it(browser, table):
    # The camera credits every card to the player on turn; a jump-in it missed (or that the
    # host took back) is entered for the jumper, named under "Laid by".
    url, referee, _ = table
    for event in ({"type": "game", "players": PLAYERS, "rules": {"jump_in": True}},
                  {"type": "deal", "dealer": "Ann"}, {"type": "flip", "card": "blue_3"},
                  {"type": "play", "card": "blue_6"}):  # Bob's; Cat is on turn
        referee.submit(event, source="camera")
    host = _host(browser, url)
    expect(host.locator("#cardbyrow")).to_be_visible()
    host.select_option("#cardby", "Dan")
    host.click("#hostpick button[data-pick=blue]")
    host.click("#hostpick button[data-card=blue_6]")
    host.click("#playcard")
    confirm(host)
    wait_until(lambda: referee.state["turn"] == "Ann", "play going on from Dan, the jumper")
    cards = {p["name"]: p["cards"] for p in referee.state["players"]}
    assert cards["Dan"] == 6 and cards["Cat"] == 7
    expect(host.locator("#cardby")).to_have_value("")  # the next card is the player on turn's again
    referee.submit({"type": "game", "players": PLAYERS}, source="host")
    expect(host.locator("#cardbyrow")).to_be_hidden()  # no jump-in at this table: nothing to name


def test_a_half_filled_new_game_form_survives_a_reload(browser, tmp_path):
    with served(tmp_path, {"HOST_PIN": PIN, "TABLE_MODE": "none"}) as (url, referee):
        host = _host(browser, url)
        host.fill("#players", "Ann, Bob, Zed")
        host.check("input[name=jump_in]")
        host.fill("input[name=hand_size]", "5")
        host.reload()
        host.wait_for_selector("#newgame")
        expect(host.locator("#players")).to_have_value("Ann, Bob, Zed")
        expect(host.locator("input[name=jump_in]")).to_be_checked()
        expect(host.locator("input[name=hand_size]")).to_have_value("5")
        host.click("#newgame button.go")
        confirm(host)
        wait_until(lambda: [p["name"] for p in referee.state["players"]] == ["Ann", "Bob", "Zed"], "the new game")
        assert referee.state["rules"]["jump_in"] is True and referee.state["rules"]["hand_size"] == 5
        wait_until(lambda: host.evaluate("sessionStorage.getItem('uno_newgame_draft')") is None,
                   "the draft dropped once the game started")


def test_a_challenge_brings_the_verdict_within_one_tap_and_no_verdict_is_offered_before(browser, table):
    # On a phone the verdict buttons lie far below the turn line: the host read "Bob shows their
    # hand to the host, who judges" and had to hunt for them. And with no challenge open, Guilty
    # asked "Rule it: Guilty?" before saying "not now".
    url, referee, _ = table
    _hand_on(referee)
    host = _host(browser, url)
    expect(host.locator("#guilty")).to_be_disabled()
    expect(host.locator("#innocent")).to_be_disabled()
    expect(host.locator("#nowlink")).to_be_hidden()
    referee.submit({"type": "play", "card": "wild_draw_four", "color": "green"}, source="camera")
    referee.submit({"type": "challenge"}, source="phone:Cat")
    link = host.locator("#nowlink")
    expect(link).to_have_text(t("host.go_verdict", "en"))
    link.click()
    expect(host.locator("#guilty")).to_be_in_viewport()
    # the section's title too, below the sticky menu (not under it)
    host.wait_for_timeout(300)
    title, menu = host.locator("#verdicttitle").bounding_box(), host.locator("nav").bounding_box()
    assert title["y"] >= menu["y"] + menu["height"] - 1, (title, menu)
    expect(host.locator("#guilty")).to_be_enabled()
    host.click("#innocent")
    confirm(host)
    wait_until(lambda: referee.state["waiting_for"] == "play", "the verdict")
    expect(host.locator("#nowlink")).to_be_hidden()
    expect(host.locator("#guilty")).to_be_disabled()


def test_the_demo_tables_host_page_shows_no_game_controls_and_says_how_to_play(browser, tmp_path):
    # The quick start's demo: the host typed players and started a game, confirmed it, and only
    # then heard that the demo plays its recorded game; nothing said how to referee a real one.
    with served(tmp_path, {"HOST_PIN": PIN, "TABLE_MODE": "demo"}) as (url, referee):
        for event in ({"type": "game", "players": PLAYERS}, {"type": "deal", "dealer": "Ann"}):
            referee.submit(event, source="demo-bot")
        host = _host(browser, url)
        expect(host.locator("#demo")).to_contain_text("uno-companion run --camera none")
        for box in ("#newgame", "#handbox", "#orderbox", "#cardbox", "#verdictbox", "#revealbox", "#pointsform",
                    "#fixform", "#correctbox"):
            expect(host.locator(box)).to_be_hidden()
        # nor the camera's zones and colours: saved, the recording's would be the real table's next time
        expect(host.locator("#zonesbox")).to_have_count(0)
        expect(host.locator("#calibrate")).to_have_count(0)
        expect(host.locator("#logout")).to_be_visible()
        watcher = _page(browser, url, "/")
        expect(watcher.locator("#demo")).to_contain_text(t("demo.body", "en"))


def test_the_table_tv_and_seat_pages_say_a_card_lies_beside_the_pile(browser, tmp_path):
    # The player who missed the pile looks at the table or the TV, not at the host's phone
    from companion.vision.camera import SourceStatus

    warnings = {"beside": {"card": "yellow_8"}, "pile_hidden": {"s": 40}}
    status = [SourceStatus("ok", 0.0, 0.0, "/dev/video0")]
    config = {"HOST_PIN": PIN, "TABLE_MODE": "camera", "ZONES_PATH": str(tmp_path / "zones.json"),
              "SNAPSHOT": lambda: None, "CAMERA_STATUS": lambda: status[0],
              "CAMERA_WARNINGS": lambda: dict(warnings)}
    with served(tmp_path, config) as (url, _):
        import urllib.request

        with urllib.request.urlopen(url + "/api/camera/seen", timeout=10) as reply:
            # the card and whether the camera works: no camera set-up to strangers
            assert json.loads(reply.read()) == {"beside": "yellow_8", "lost": False}
        table, tv, seat = _page(browser, url, "/"), _page(browser, url, "/tv", "it"), _page(browser, url, "/seat")
        expect(table.locator("#besideline")).to_have_text(t("camera.beside", "en", {"card": "yellow_8"}))
        expect(seat.locator("#besideline")).to_have_text(t("camera.beside", "en", {"card": "yellow_8"}))
        expect(tv.locator("#besideline")).to_have_text(t("camera.beside", "it", {"card": "yellow_8"}))
        warnings.clear()  # the card laid on the pile
        expect(table.locator("#besideline")).to_be_hidden(timeout=8000)
        expect(tv.locator("#besideline")).to_be_hidden(timeout=8000)
        # the camera lost: every player hears that cards laid now are not counted, then not
        status[0] = SourceStatus("lost", 0.0, 0.0, "cannot open camera 0")
        expect(seat.locator("#besideline")).to_have_text(t("camera.lost_players", "en"), timeout=8000)
        expect(tv.locator("#besideline")).to_have_text(t("camera.lost_players", "it"), timeout=8000)
        status[0] = SourceStatus("ok", 0.0, 0.0, "/dev/video0")
        expect(tv.locator("#besideline")).to_be_hidden(timeout=8000)


def test_the_new_game_form_starts_from_the_tables_options(browser, table):
    # The configuration's options (2 cards, 60 points) were in the first game, but the form
    # showed the official 7 and 500: "Start new game" as it stood dropped them quietly
    url, referee, _ = table
    referee.submit({"type": "game", "players": PLAYERS, "rules": {"hand_size": 2, "target": 60, "stacking": "draw_two",
                                                                "jump_in": True}}, source="host")
    host = _host(browser, url)
    expect(host.locator("input[name=hand_size]")).to_have_value("2")
    expect(host.locator("input[name=target]")).to_have_value("60")
    expect(host.locator("select[name=stacking]")).to_have_value("draw_two")
    expect(host.locator("input[name=jump_in]")).to_be_checked()
    expect(host.locator("input[name=hands]")).to_have_value("0")  # off
    # what the host types is theirs: the table's next state does not overwrite it
    host.fill("input[name=target]", "200")
    referee.submit({"type": "deal", "dealer": "Ann"}, source="host")
    expect(host.locator("#hostturn")).not_to_be_empty()
    expect(host.locator("input[name=target]")).to_have_value("200")


def test_the_refused_list_names_the_card_or_the_hand(browser, table):
    url, referee, _ = table
    _hand_on(referee)
    referee.submit({"type": "play", "card": "wild_draw_four"}, source="camera")  # Bob's; no colour yet
    referee.submit({"type": "reveal", "cards": ["green_9", "blue_8"]}, source="camera")  # refused
    referee.submit({"type": "flip", "card": "yellow_3"}, source="camera")  # refused
    host = _host(browser, url)
    items = host.locator("#refused li")
    expect(items.first).to_contain_text("yellow 3: ")
    expect(items.nth(1)).to_contain_text(t("host.refused_hand", "en", {"n": 2}) + ": ")
    host.context.close()
