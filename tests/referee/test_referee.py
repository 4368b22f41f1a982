"""The referee service: stored before announced, nothing changes on a failed write, threads."""
from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from companion.referee.engine import replay
from companion.referee.service import BadEventError, Referee
from companion.referee.store import EventStore, StoreError

OPENING = [
    {"type": "game", "players": ["Ann", "Bob", "Cid"]},
    {"type": "deal", "dealer": "Ann"},
    {"type": "flip", "card": "red_5"},
    {"type": "play", "card": "red_7"},  # Bob
    {"type": "play", "card": "green_7"},  # Cid
]


@pytest.fixture
def store(tmp_path: Path) -> EventStore:
    with EventStore(tmp_path / "table.db") as s:
        yield s


def _submit_all(referee: Referee, events: list, source: str = "test") -> list[list[dict]]:
    return [referee.submit(e, source) for e in events]


def _rejected(notices: list[dict]) -> list[dict]:
    return [n for n in notices if n["kind"] == "rejected"]


def test_referee_plays_an_opening_and_stores_every_event(store: EventStore) -> None:
    referee = Referee(store)
    assert referee.game_id is None and referee.state["waiting_for"] == "game"
    results = _submit_all(referee, OPENING)
    assert not any(_rejected(n) for n in results)
    state = referee.state
    assert state["turn"] == "Ann" and state["top"] == "green_7" and state["color"] == "green"
    assert {p["name"]: p["cards"] for p in state["players"]} == {"Ann": 7, "Bob": 6, "Cid": 6}
    rows = store.rows(referee.game_id)
    assert [r["line"] for r in rows] == OPENING
    assert all(r["accepted"] and r["source"] == "test" for r in rows)


def test_referee_stores_rejected_events_with_their_notice(store: EventStore) -> None:
    referee = Referee(store)
    _submit_all(referee, OPENING[:3])
    before = referee.state
    notices = referee.submit({"type": "pass"}, "phone")  # a pass before drawing
    assert _rejected(notices) and _rejected(notices)[0]["event"] == 3
    after = referee.state
    assert after["notices"][:-1] == before["notices"]
    assert {k: v for k, v in after.items() if k != "notices"} == {
        k: v for k, v in before.items() if k != "notices"
    }
    rows = store.rows(referee.game_id)
    assert rows[-1]["line"] == {"type": "pass"} and rows[-1]["accepted"] is False


def test_referee_raw_text_that_is_not_json_is_rejected_and_stored(store: EventStore) -> None:
    referee = Referee(store)
    _submit_all(referee, OPENING[:3])
    notices = referee.submit("{not json", "import")
    assert _rejected(notices)
    assert store.events(referee.game_id)[-1] == "{not json"
    assert store.rows(referee.game_id)[-1]["accepted"] is False


def test_referee_event_that_cannot_be_json_is_refused_and_changes_nothing(store: EventStore) -> None:
    referee = Referee(store)
    _submit_all(referee, OPENING[:3])
    before = referee.state
    with pytest.raises(BadEventError):
        referee.submit({"type": "play", "card": {1, 2}})
    with pytest.raises(BadEventError):
        referee.submit(42)  # type: ignore[arg-type]
    assert referee.state == before
    assert len(store.events(referee.game_id)) == 3


def test_referee_subscribers_are_called_after_the_event_is_stored(store: EventStore) -> None:
    referee = Referee(store)
    seen: list[tuple[int, str, list]] = []
    reader = sqlite3.connect(store.path, check_same_thread=False)

    def on_change(state: dict, notices: list[dict]) -> None:
        # Another connection (a restarted process) already sees the row: it is committed.
        stored = reader.execute("SELECT COUNT(*) FROM events").fetchone()[0]
        seen.append((stored, state["waiting_for"], notices))

    referee.subscribe(on_change)
    _submit_all(referee, OPENING[:3])
    reader.close()
    assert [s[0] for s in seen] == [1, 2, 3]
    assert [s[1] for s in seen] == ["deal", "flip", "play"]


def test_referee_unsubscribe_and_broken_subscriber(store: EventStore) -> None:
    referee = Referee(store)
    calls: list[str] = []

    def broken(state: dict, notices: list[dict]) -> None:
        raise RuntimeError("phone went away")

    referee.subscribe(broken)
    unsubscribe = referee.subscribe(lambda s, n: calls.append(s["waiting_for"]))
    referee.submit(OPENING[0])
    unsubscribe()
    referee.submit(OPENING[1])
    assert calls == ["deal"]  # the broken one did not stop the other; unsubscribed gets nothing
    assert referee.state["waiting_for"] == "flip"


def test_referee_subscriber_cannot_spoil_the_state(store: EventStore) -> None:
    referee = Referee(store)
    referee.subscribe(lambda state, notices: state["players"].clear())
    referee.submit(OPENING[0])
    assert len(referee.state["players"]) == 3


def test_referee_failed_write_changes_nothing(store: EventStore, monkeypatch: pytest.MonkeyPatch) -> None:
    referee = Referee(store)
    _submit_all(referee, OPENING[:4])
    before, game_id = referee.state, referee.game_id
    calls: list[dict] = []
    referee.subscribe(lambda s, n: calls.append(s))

    def disk_full(*args: object, **kwargs: object) -> int:
        raise StoreError("could not save the event in table.db: database or disk is full; nothing was changed")

    monkeypatch.setattr(store, "append", disk_full)
    with pytest.raises(StoreError, match="nothing was changed"):
        referee.submit(OPENING[4])
    assert referee.state == before and referee.game_id == game_id
    assert calls == []
    monkeypatch.undo()
    referee.submit(OPENING[4])  # the same event goes through once the disk is back
    assert referee.state["top"] == "green_7"
    assert store.events(game_id) == OPENING


def test_referee_failed_real_sqlite_write_changes_nothing(store: EventStore) -> None:
    referee = Referee(store)
    _submit_all(referee, OPENING[:3])
    before = referee.state
    blocker = sqlite3.connect(store.path, timeout=0)
    blocker.execute("BEGIN EXCLUSIVE")  # another writer holds the database
    store._db.execute("PRAGMA busy_timeout=0")
    with pytest.raises(StoreError):
        referee.submit(OPENING[3])
    blocker.rollback()
    blocker.close()
    assert referee.state == before
    referee.submit(OPENING[3])
    assert referee.state["turn"] == "Cid"


def test_referee_restores_the_last_unfinished_game(store: EventStore, tmp_path: Path) -> None:
    referee = Referee(store)
    _submit_all(referee, OPENING)
    referee.submit({"type": "pass"})  # rejected: kept, and its notice comes back too
    state, game_id = referee.state, referee.game_id
    with EventStore(tmp_path / "table.db") as again:
        restored = Referee(again)
        assert restored.game_id == game_id
        assert restored.state == state
        restored.submit({"type": "play", "card": "green_2"})  # Ann plays on
        assert restored.state["turn"] == "Bob"


def test_referee_new_game_event_starts_a_new_game_id(store: EventStore) -> None:
    referee = Referee(store)
    _submit_all(referee, OPENING)
    first = referee.game_id
    notices = referee.submit({"type": "game", "players": ["Dee", "Eve"]})
    assert not _rejected(notices)
    assert referee.game_id != first
    assert store.events(referee.game_id) == [{"type": "game", "players": ["Dee", "Eve"]}]
    assert [p["name"] for p in referee.state["players"]] == ["Dee", "Eve"]
    # A game event the engine would reject does not open a new game.
    referee.submit({"type": "game", "players": []})
    assert len(store.games()) == 2


def test_referee_undo_goes_through_submit_and_is_stored(store: EventStore) -> None:
    referee = Referee(store)
    _submit_all(referee, OPENING[:4])
    before = referee.state
    referee.submit(OPENING[4])
    referee.submit({"type": "undo"}, "phone")
    assert {k: v for k, v in referee.state.items() if k != "notices"} == {
        k: v for k, v in before.items() if k != "notices"
    }
    assert store.events(referee.game_id)[-1] == {"type": "undo"}
    assert replay(store.events(referee.game_id)).state == referee.state


def test_referee_concurrent_submits_lose_nothing(store: EventStore) -> None:
    referee = Referee(store)
    _submit_all(referee, OPENING[:3])
    per_thread, threads = 25, 8
    # Buttons, phones and the camera at once: calls, draws, passes and plays, most of
    # them not fitting the moment; every one must be stored exactly once, in one order.
    events = [
        {"type": "uno"},
        {"type": "draw"},
        {"type": "pass"},
        {"type": "play", "card": "red_3"},
        {"type": "catch"},
    ]
    notified: list[int] = []
    referee.subscribe(lambda s, n: notified.append(1))
    barrier = threading.Barrier(threads)
    errors: list[BaseException] = []

    def worker(k: int) -> None:
        try:
            barrier.wait()
            for i in range(per_thread):
                referee.submit(events[(k + i) % len(events)], f"thread-{k}")
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    pool = [threading.Thread(target=worker, args=(k,)) for k in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    assert errors == []
    rows = store.rows(referee.game_id)
    assert len(rows) == 3 + per_thread * threads == len(referee.events)
    assert [r["seq"] for r in rows] == list(range(len(rows)))
    assert len(notified) == per_thread * threads
    # The stored order is the order the engine saw: replaying it gives the live state.
    assert replay(store.events(referee.game_id)).state == referee.state


def test_referee_score_fix_reopens_a_finished_game_and_restart_finds_it(
    store: EventStore, tmp_path: Path
) -> None:
    from companion.data import EXAMPLE_LOG

    referee = Referee(store)
    for line in EXAMPLE_LOG.read_text(encoding="utf-8").splitlines():
        referee.submit(line, "phone")
    assert referee.state["waiting_for"] == "game_over"
    with EventStore(tmp_path / "table.db") as again:
        # a power cut at the game's end: the table comes back showing the result, not empty
        restored = Referee(again)
        assert restored.game_id == referee.game_id and restored.state == referee.state
    # The host corrects hand 1: Ann falls below the target, the game goes on.
    referee.submit({"type": "score_fix", "hand": 1, "player": "Ann", "points": 10}, "phone")
    assert referee.state["waiting_for"] == "deal" and referee.state["game_winner"] is None
    # the feed says so: its last "wins the game" no longer stands
    from web.messages import notice_say

    fixed = referee.state["notices"][-1]
    assert fixed["kind"] == "score_fixed" and fixed["message"].endswith("the game goes on")
    assert notice_say(fixed) == {"k": "notice.score_fixed_on", "a": {"player": "Ann", "hand": 1, "n": 10}}
    with EventStore(tmp_path / "table.db") as again:
        restored = Referee(again)
        assert restored.game_id == referee.game_id and restored.state == referee.state


def test_a_new_game_taken_back_goes_back_to_the_game_it_replaced(store: EventStore, tmp_path: Path) -> None:
    # The host taps New game by mistake mid-hand, then Undo: the hand in progress is back,
    # where it stood, also after a restart; the empty game does not count in the league.
    store.new_league("Friday", [12, 6, 2, 0])
    referee = Referee(store)
    _submit_all(referee, OPENING)
    playing, before = referee.game_id, referee.state
    assert not _rejected(referee.submit({"type": "game", "players": ["Dee", "Eve"]}, "host"))
    assert referee.game_id != playing
    notices = referee.submit({"type": "undo"}, "host")
    assert not _rejected(notices) and any(n["kind"] == "undone" for n in notices)
    assert referee.game_id == playing and referee.state == before
    referee.submit({"type": "play", "card": "green_2"})  # and play goes on in that game
    assert referee.state["turn"] == "Bob" and store.events(playing)[-1] == {"type": "play", "card": "green_2"}
    with EventStore(tmp_path / "table.db") as again:
        restored = Referee(again)
        assert restored.game_id == playing and restored.state == referee.state
        from companion.referee.league import league_standings

        table = league_standings(again, again.leagues()[-1]["id"])
        assert table["unfinished"] == [playing]


def test_a_new_game_taken_back_goes_back_to_the_resumed_game_not_the_newest(store: EventStore, tmp_path: Path) -> None:
    # Ann's group plays; another group's game is started later at the same companion; Ann's
    # group is taken up again (`run` resumes its players' game). A New game pressed by
    # mistake and undone gives back Ann's game, not the other group's newer one: also when
    # the store is opened again after the undo.
    referee = Referee(store)
    _submit_all(referee, OPENING)
    ours, state = referee.game_id, referee.state
    referee.submit({"type": "game", "players": ["Dan", "Eve"]}, "host")
    referee.submit({"type": "deal", "dealer": "Dan"}, "host")
    theirs = referee.game_id
    referee.resume(ours)
    assert not _rejected(referee.submit({"type": "game", "players": ["Ann", "Bob", "Cat"]}, "host"))
    assert not _rejected(referee.submit({"type": "undo"}, "host"))
    assert referee.game_id == ours != theirs and referee.state == state
    with EventStore(tmp_path / "table.db") as again:
        restored = Referee(again)
        assert restored.game_id == ours and restored.state == state


def test_referee_correct_goes_through_submit_and_replays(store: EventStore) -> None:
    referee = Referee(store)
    _submit_all(referee, OPENING)
    notices = referee.submit({"type": "correct", "event": 4, "card": "red_2"}, "phone")
    assert not _rejected(notices)
    assert referee.state["top"] == "red_2" and referee.state["color"] == "red"
    assert replay(store.events(referee.game_id)).state == referee.state


CRASHING_TABLE = r"""
import sys
from companion.referee.service import Referee
from companion.referee.simulate import simulate_games
from companion.referee.store import EventStore

referee = Referee(EventStore(sys.argv[1]))
for event in simulate_games(3, 50, 5):
    referee.submit(event, "crash-test")
    print(len(referee.events), flush=True)  # announced: it must survive what comes next
"""


def test_referee_killed_mid_game_loses_no_announced_event(tmp_path: Path) -> None:
    import subprocess
    import sys

    db = tmp_path / "table.db"
    child = subprocess.Popen([sys.executable, "-c", CRASHING_TABLE, str(db)],
                             stdout=subprocess.PIPE, text=True)
    assert child.stdout is not None
    announced = 0
    for line in child.stdout:
        announced = int(line)
        if announced >= 40:
            break
    child.kill()  # SIGKILL: no clean shutdown, no close()
    child.wait()
    child.stdout.close()
    assert announced >= 40
    with EventStore(db) as store:
        restored = Referee(store)
        assert restored.game_id is not None
        kept = store.events(restored.game_id)
        assert len(kept) >= announced  # everything announced (and maybe one more) is there
        assert restored.state == replay(kept).state
        assert restored.state["waiting_for"] not in ("game", None)


# -- camera lays: flip or play is the referee's call, and the game helps read the card ----------

HAND = [
    {"type": "game", "players": ["Ann", "Bob", "Cid"]},
    {"type": "deal", "dealer": "Ann"},
]


def lay(card: str, *readings: tuple[str, float]) -> dict:
    """What the watcher sends when a card comes to rest on the pile."""
    return {"type": "lay", "card": card, "top": [list(r) for r in readings] or [[card, 0.97]]}


@pytest.mark.parametrize("cards", [("red_5", "red_7", "green_7"), ("green_2", "red_2", "red_2")])
def test_referee_a_laid_card_is_a_flip_at_hand_start_and_a_play_mid_hand(store: EventStore, cards) -> None:
    # the second case: the same card twice in a row is two plays
    referee = Referee(store)
    _submit_all(referee, HAND)
    assert referee.state["waiting_for"] == "flip"
    for card in cards:
        assert not _rejected(referee.submit(lay(card), "camera"))
    assert store.events(referee.game_id)[2:] == [
        {"type": "flip", "card": cards[0]}, {"type": "play", "card": cards[1]}, {"type": "play", "card": cards[2]}]
    assert referee.state["turn"] == "Ann" and referee.state["top"] == cards[2]


def test_referee_the_next_hands_first_card_laid_before_the_deal_deals_it(store: EventStore) -> None:
    # Between hands the dealer turns the first card up before the host taps Deal: the camera's
    # card begins the hand (dealt by the rotation), it is not refused and lost.
    referee = Referee(store)
    for event in ({"type": "game", "players": ["Ann", "Bob"], "rules": {"hand_size": 1}},
                  {"type": "deal", "dealer": "Bob"}, {"type": "flip", "card": "red_5"},
                  {"type": "play", "card": "red_3"}, {"type": "points", "player": "Bob", "points": 9}):
        referee.submit(event, "host")
    assert referee.state["waiting_for"] == "deal" and referee.state["hand"] == 1
    assert not _rejected(referee.submit(lay("green_4"), "camera"))
    assert referee.state["hand"] == 2 and referee.state["top"] == "green_4" and referee.state["dealer"] == "Ann"
    assert store.events(referee.game_id)[-2:] == [{"type": "deal"}, {"type": "flip", "card": "green_4"}]
    # before the first hand nobody knows who deals: the card is refused as before
    other = Referee(EventStore(":memory:"))
    other.submit({"type": "game", "players": ["Ann", "Bob"]}, "host")
    assert _rejected(other.submit(lay("green_4"), "camera"))


def test_referee_after_a_take_back_the_next_card_is_a_play(store: EventStore) -> None:
    referee = Referee(store)
    _submit_all(referee, HAND)
    referee.submit(lay("red_5"), "camera")
    notices = referee.submit(lay("blue_9"), "camera")  # Bob's illegal card
    assert [n["kind"] for n in notices] == ["illegal_play"]
    referee.submit({"type": "take_back"}, "camera")
    assert not _rejected(referee.submit(lay("red_8"), "camera"))
    assert [e["type"] for e in store.events(referee.game_id)[2:]] == ["flip", "play", "take_back", "play"]
    assert referee.state["top"] == "red_8" and referee.state["turn"] == "Ann"  # Cid played it


@pytest.mark.parametrize("seed, rules", [(1, None), (2, {"stacking": True, "seven_zero": True}),
                                         (3, {"deck": "modern", "draw_until_playable": True})])
def test_referee_makes_every_card_laid_mid_hand_a_play_and_only_a_hands_first_a_flip(seed, rules) -> None:
    # Whole simulated games with table mistakes (illegal cards taken back or left standing,
    # challenges, stacks, reshuffles): each flip and play, seen by the camera as a lay, comes
    # out of the referee as the same line. A flip mid-hand cannot come from the camera.
    from companion.referee.engine import Table
    from companion.referee.service import line_of_lay
    from companion.referee.simulate import simulate_games

    table = Table()
    cards = 0
    for event in simulate_games(4, 40, seed, rules):
        if event["type"] in ("flip", "play") and "player" not in event:
            said = line_of_lay(table, lay(event["card"]))
            assert said == {"type": event["type"], "card": event["card"]}, (len(table.events), table.waiting_for)
            cards += 1
        table.push(event)
    assert cards > 1000


def test_referee_picks_the_legal_one_of_two_close_readings_and_says_so(store: EventStore, caplog) -> None:
    referee = Referee(store)
    _submit_all(referee, [*HAND, {"type": "flip", "card": "red_6"}])
    with caplog.at_level("WARNING", logger="companion.referee.service"):
        notices = referee.submit(lay("yellow_draw_two", ("yellow_draw_two", 0.55), ("yellow_6", 0.41)), "camera")
    message = "read as yellow_draw_two (0.55) or yellow_6 (0.41): yellow_6 fits the table"
    assert [(n["kind"], n["message"]) for n in notices] == [("reading", message)]
    assert store.events(referee.game_id)[-1] == {
        "type": "play", "card": "yellow_6", "read": [["yellow_draw_two", 0.55], ["yellow_6", 0.41]]}
    state = referee.state
    assert state["top"] == "yellow_6" and state["waiting_for"] == "play"
    assert state["notices"][-1]["message"] == message  # the phones' list of notices
    assert message in caplog.text  # and the host's console
    # a restart replays the stored line: the same card, the same notice
    again = Referee(store)
    assert again.state["top"] == "yellow_6" and again.state["notices"][-1]["message"] == message


def test_referee_keeps_a_clear_illegal_reading_and_flags_the_play(store: EventStore) -> None:
    # The table makes red_2 far likelier than blue_2, but the picture is clear: the referee
    # must still catch a real illegal card.
    referee = Referee(store)
    _submit_all(referee, [*HAND, {"type": "flip", "card": "red_6"}])
    notices = referee.submit(lay("blue_2", ("blue_2", 0.93), ("red_2", 0.05)), "camera")
    assert [n["kind"] for n in notices] == ["illegal_play"]
    assert store.events(referee.game_id)[-1] == {"type": "play", "card": "blue_2"}
    assert referee.state["waiting_for"] == "take_back"


@pytest.mark.parametrize("readings, chosen", [
    ((("blue_4", 0.5), ("red_6", 0.45)), "red_6"),  # the second red 6 in a row: plausible
    ((("red_6", 0.5), ("blue_4", 0.45)), "red_6"),
    ((("red_1", 0.5), ("red_7", 0.45)), "red_1"),  # both fit: the picture decides
    ((("blue_1", 0.5), ("green_8", 0.45)), "blue_1"),  # neither fits: the picture decides
])
def test_referee_weighs_readings_against_the_top_card(store: EventStore, readings, chosen) -> None:
    referee = Referee(store)
    _submit_all(referee, [*HAND, {"type": "flip", "card": "red_6"}])
    referee.submit(lay(readings[0][0], *readings), "camera")
    assert store.events(referee.game_id)[-1]["card"] == chosen


def test_referee_a_flip_is_read_from_the_picture_alone(store: EventStore) -> None:
    # Any card may start the pile: the table says nothing about it.
    referee = Referee(store)
    _submit_all(referee, HAND)
    referee.submit(lay("wild_draw_four", ("wild_draw_four", 0.5), ("green_4", 0.45)), "camera")
    assert store.events(referee.game_id)[-1] == {"type": "flip", "card": "wild_draw_four"}


@pytest.mark.parametrize("top", [[["red_5"]], [["red_5", "high"]], "red_5", [["red_5", 1.5]], [[5, 0.5]]])
def test_referee_a_malformed_lay_is_refused_and_changes_nothing(store: EventStore, top) -> None:
    referee = Referee(store)
    _submit_all(referee, HAND)
    before = referee.state
    with pytest.raises(BadEventError, match="top"):
        referee.submit({"type": "lay", "card": "red_5", "top": top}, "camera")
    assert referee.state == before and len(store.events(referee.game_id)) == 2


def test_referee_a_lay_without_readings_is_its_card(store: EventStore) -> None:
    referee = Referee(store)
    _submit_all(referee, HAND)
    referee.submit({"type": "lay", "card": "red_5"}, "camera")
    assert store.events(referee.game_id)[-1] == {"type": "flip", "card": "red_5"}


def test_a_jump_in_claim_the_rules_refuse_stores_nothing(store: EventStore) -> None:
    # Bob's red draw two, then its twin stacked on it by Cid, who owed two: with two owed it
    # cannot have been a jump-in (a jump-in needs a play awaited with nothing owed). Asked to
    # give it to Ann, the referee says why and keeps the table as it was: no undo is stored
    # without its play.
    from companion.referee.service import ClaimError

    referee = Referee(store)
    _submit_all(referee, [{"type": "game", "players": ["Ann", "Bob", "Cid"], "rules": {"jump_in": True, "stacking": "draw_two"}},
                          {"type": "deal", "dealer": "Ann"}, {"type": "flip", "card": "red_5"},
                          {"type": "play", "card": "red_draw_two"}, {"type": "play", "card": "red_draw_two"}])
    assert referee.state["pending_draw"] == 4
    assert referee.jump_claim == {"card": "red_draw_two", "by": "Cid", "jumped": False, "event": 4}
    before, lines = referee.state, len(store.events(referee.game_id))
    with pytest.raises(ClaimError, match="jump-in only while a play is awaited"):
        referee.claim_jump_in("Ann")
    assert referee.state == before and len(store.events(referee.game_id)) == lines
    # a restart forgets the claim: the camera's play stands as it was stored
    assert Referee(store).jump_claim is None


def test_a_refused_event_leaves_a_jump_in_claim_open(store: EventStore) -> None:
    # Cid taps Pass before drawing (refused, stored): the table did not change, so Ann may
    # still claim the red 5 the camera gave to Bob; play goes on from her.
    referee = Referee(store)
    _submit_all(referee, [{"type": "game", "players": ["Ann", "Bob", "Cid"], "rules": {"jump_in": True}},
                          {"type": "deal", "dealer": "Ann"}, {"type": "flip", "card": "red_5"},
                          {"type": "play", "card": "red_5"}])
    assert _rejected(referee.submit({"type": "pass"}, "phone:Cid"))
    assert referee.jump_claim == {"card": "red_5", "by": "Bob", "jumped": False, "event": 3}
    cards = {p["name"]: p["cards"] for p in referee.state["players"]}
    assert not _rejected(referee.claim_jump_in("Ann")[0])
    after = {p["name"]: p["cards"] for p in referee.state["players"]}
    assert after == {"Ann": cards["Ann"] - 1, "Bob": cards["Bob"] + 1, "Cid": cards["Cid"]}
    assert referee.state["turn"] == "Bob" and referee.jump_claim["jumped"]


def _jump_table(store: EventStore, rules: dict | None = None, plays: tuple = ("red_6", "red_6")) -> Referee:
    referee = Referee(store)
    _submit_all(referee, [{"type": "game", "players": ["Ann", "Bob", "Cid"], "rules": {"jump_in": True, **(rules or {})}},
                          {"type": "deal", "dealer": "Ann"}, {"type": "flip", "card": "red_5"},
                          *(c if isinstance(c, dict) else {"type": "play", "card": c} for c in plays)])
    return referee


def test_a_jump_in_claim_is_one_line_the_host_can_undo(store: EventStore) -> None:
    # Bob's red 6, then a red 6 the camera gives to Cid; Ann claims it. One `correct` line:
    # the penalties and UNO calls are not said again, and the host's Undo gives the card back
    # to Cid as the camera counted it (it used to be lost: an undo of the claim's own undo).
    referee = _jump_table(store)
    camera = referee.state
    notices, replayed = referee.claim_jump_in("Ann", "phone:Ann", request_id="claim-0042")
    assert not replayed
    assert [n["kind"] for n in notices] == ["corrected"]
    assert notices[0]["message"] == "event 4 corrected: red_6 laid by Ann"
    assert store.events(referee.game_id)[-1] == {"type": "correct", "event": 4, "player": "Ann"}
    assert {p["name"]: p["cards"] for p in referee.state["players"]} == {"Ann": 6, "Bob": 6, "Cid": 7}
    assert referee.state["turn"] == "Bob"
    # the phone's retry that raced its first try is answered as the first try was
    assert referee.claim_jump_in("Ann", "phone:Ann", request_id="claim-0042") == (notices, True)
    assert not _rejected(referee.submit({"type": "undo"}, "host"))
    state = referee.state
    assert [p["cards"] for p in state["players"]] == [p["cards"] for p in camera["players"]]
    assert state["turn"] == camera["turn"] == "Ann" and state["pile"] == camera["pile"]
    assert replay(store.events(referee.game_id)).state == state
    # the claim taken back may be made again (the wrong phone claimed it): Bob laid it
    assert referee.jump_claim == {"card": "red_6", "by": "Cid", "jumped": False, "event": 4}
    assert not _rejected(referee.claim_jump_in("Bob")[0])
    assert referee.jump_claim["by"] == "Bob" and referee.state["turn"] == "Cid"
    # the engine refuses a correction that gives a play to the player it counted for already
    from companion.referee.service import ClaimError

    assert replay(store.events(referee.game_id)).check({"type": "correct", "event": 4, "player": "Bob"}) == \
        "event 4 counts as Bob's already"
    with pytest.raises(ClaimError):
        referee.claim_jump_in("Bob")


def test_a_twin_wild_draw_four_is_claimed_from_whom_the_engine_counted_it(store: EventStore) -> None:
    # Bob's wild draw four, then its twin: Cid took the four cards, so the twin counted as
    # Ann's (the player after the victim), not Cid's, who was on turn. Ann is told it is hers
    # already; nobody else can have jumped in while the first one could still be challenged.
    referee = _jump_table(store, plays=({"type": "play", "card": "wild_draw_four", "color": "green"},
                                        {"type": "play", "card": "wild_draw_four", "color": "blue"}))
    assert referee.jump_claim == {"card": "wild_draw_four", "by": "Ann", "jumped": False, "event": 4}
    from companion.referee.service import ClaimError

    with pytest.raises(ClaimError, match="already counted as Ann's"):
        referee.claim_jump_in("Ann")
    lines = len(store.events(referee.game_id))
    with pytest.raises(ClaimError, match="jump-in only while a play is awaited"):
        referee.claim_jump_in("Bob")
    assert len(store.events(referee.game_id)) == lines and referee.jump_claim["by"] == "Ann"


def test_cards_the_camera_sees_while_a_colour_is_awaited_are_played_once_it_is_named(store: EventStore) -> None:
    # At a real table the colour is said aloud and tapped late: the camera's next cards were
    # refused for good, and the first card after the tap was judged against the wild alone.
    referee = Referee(store)
    _submit_all(referee, [{"type": "game", "players": ["Ann", "Bob", "Cid"]}, {"type": "deal", "dealer": "Cid"},
                          {"type": "flip", "card": "red_5"}])
    referee.submit({"type": "play", "card": "wild"}, source="camera")  # Ann's; "yellow!" said aloud
    for card in ("yellow_7", "yellow_3"):  # Bob's and Cid's, before anyone taps the colour
        referee.submit({"type": "play", "card": card}, source="camera")
    assert referee.state["waiting_for"] == "color" and referee.state["top"] == "wild"
    referee.submit({"type": "color", "color": "yellow"}, source="phone")
    state = referee.state
    assert state["top"] == "yellow_3" and state["turn"] == "Ann" and state["color"] == "yellow"
    assert not [n for n in state["notices"] if n["kind"] == "illegal_play"]
    assert {p["name"]: p["cards"] for p in state["players"]} == {"Ann": 6, "Bob": 6, "Cid": 6}
    # their first, refused lines stay in the log as laid, but are no refusals to the host
    refused = {n["event"] for n in state["notices"] if n["kind"] == "rejected"}
    assert refused == {4, 5} and referee.counted_later == {4, 5}


def test_cards_held_for_a_colour_are_dropped_when_the_wild_is_taken_back(store: EventStore) -> None:
    referee = Referee(store)
    _submit_all(referee, [{"type": "game", "players": ["Ann", "Bob", "Cid"]}, {"type": "deal", "dealer": "Cid"},
                          {"type": "flip", "card": "red_5"}])
    referee.submit({"type": "play", "card": "wild"}, source="camera")
    referee.submit({"type": "play", "card": "yellow_7"}, source="camera")
    referee.submit({"type": "undo"}, source="host")  # the wild was a misread: the host takes it back
    referee.submit({"type": "play", "card": "red_7"}, source="camera")
    state = referee.state
    assert state["top"] == "red_7" and state["turn"] == "Bob"  # no yellow 7 played after it


def test_a_hand_shown_after_the_verdict_that_says_otherwise_is_said_to_the_host(store: EventStore) -> None:
    # The host tapped Guilty as Ann's hand was still on its way to the reveal area; the camera's
    # reveal was then refused with no word, though it held no red: Ann drew 4 for nothing.
    referee = Referee(store)
    _submit_all(referee, [{"type": "game", "players": ["Ann", "Bob", "Cid"]}, {"type": "deal", "dealer": "Cid"},
                          {"type": "flip", "card": "red_5"}])
    referee.submit({"type": "play", "card": "wild_draw_four", "color": "blue"}, source="camera")
    referee.submit({"type": "challenge"}, source="phone")
    referee.submit({"type": "verdict", "guilty": True}, source="host")
    hand = ["green_9", "blue_8", "yellow_2", "green_1", "blue_3", "wild"]  # all six: no red
    referee.submit({"type": "reveal", "cards": hand}, source="camera")
    assert referee.disputed == {"player": "Ann", "guilty": False, "event": 5}
    referee.submit({"type": "undo"}, source="host")  # the host takes the verdict back
    assert referee.disputed is None and referee.state["waiting_for"] == "evidence"
    referee.submit({"type": "verdict", "guilty": False}, source="host")
    referee.submit({"type": "reveal", "cards": hand}, source="camera")
    assert referee.disputed is None  # the hand agrees with the verdict: nothing to say


def test_a_hand_the_camera_saw_short_is_not_scored_short(store: EventStore) -> None:
    # An 11-card fan read as 9 was scored as 9 ("the shown count stands"): the winner lost the
    # points of the two cards nobody saw, and nobody was asked
    referee = Referee(store)
    _submit_all(referee, [{"type": "game", "players": ["Ann", "Bob"], "rules": {"hand_size": 3}},
                          {"type": "deal", "dealer": "Bob"}, {"type": "flip", "card": "red_5"}])
    for card in ("red_6", "red_7"):
        referee.submit({"type": "play", "card": card}, source="camera")
        if card == "red_7":
            referee.submit({"type": "uno", "player": "Ann"}, source="phone")
        referee.submit({"type": "draw"}, source="phone")
        referee.submit({"type": "pass"}, source="phone")
    referee.submit({"type": "play", "card": "red_8"}, source="camera")  # Ann goes out; Bob holds 5
    assert referee.state["waiting_for"] == "scores"
    stored = len(referee.events)
    assert referee.submit({"type": "reveal", "cards": ["blue_1", "green_2", "yellow_3"]}, source="camera") == []
    assert len(referee.events) == stored and referee.state["waiting_for"] == "scores"
    assert referee.short_reveal == {"player": "Bob", "seen": 3, "tracked": 5}
    # the hand laid again, spread out: every card seen, counted
    referee.submit({"type": "reveal", "cards": ["blue_1", "green_2", "yellow_3", "red_9", "wild"]}, source="camera")
    assert referee.short_reveal is None and referee.state["history"][0]["points"]["Ann"] == 65


def test_a_card_renamed_to_fit_and_then_taken_back_was_the_card_the_camera_read(store: EventStore) -> None:
    # red 1 read at 0.72 on a yellow 9: the referee made it the yellow 1 that fits; the player
    # took it back, and the take-back was refused ("not now"): the penalty lost, and the table
    # went on from a yellow 1 nobody laid
    referee = Referee(store)
    _submit_all(referee, [{"type": "game", "players": ["Ann", "Bob", "Cid"]}, {"type": "deal", "dealer": "Cid"},
                          {"type": "flip", "card": "yellow_9"}])
    referee.submit(lay("red_1", ("red_1", 0.72), ("yellow_1", 0.27)), "camera")
    assert referee.state["top"] == "yellow_1"  # an unsure reading gives way to the card that fits
    notices = referee.submit({"type": "take_back"}, "camera")
    assert not _rejected(notices)
    state = referee.state
    assert state["top"] == "yellow_9" and {p["name"]: p["cards"] for p in state["players"]}["Ann"] == 9
    assert {"type": "correct", "event": 3, "card": "red_1"} in store.events(referee.game_id)
