"""The referee service: stored before announced, nothing changes on a failed write, threads."""
from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from companion.engine import replay
from companion.referee import BadEventError, Referee
from companion.store import EventStore, StoreError

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
        referee.submit(line, "import")
    assert referee.state["waiting_for"] == "game_over"
    with EventStore(tmp_path / "table.db") as again:
        assert Referee(again).game_id is None  # a finished game is not resumed
    # The host corrects hand 1: Ann falls below the target, the game goes on.
    referee.submit({"type": "score_fix", "hand": 1, "player": "Ann", "points": 10}, "phone")
    assert referee.state["waiting_for"] == "deal" and referee.state["game_winner"] is None
    with EventStore(tmp_path / "table.db") as again:
        restored = Referee(again)
        assert restored.game_id == referee.game_id and restored.state == referee.state


def test_referee_correct_goes_through_submit_and_replays(store: EventStore) -> None:
    referee = Referee(store)
    _submit_all(referee, OPENING)
    notices = referee.submit({"type": "correct", "event": 4, "card": "red_2"}, "phone")
    assert not _rejected(notices)
    assert referee.state["top"] == "red_2" and referee.state["color"] == "red"
    assert replay(store.events(referee.game_id)).state == referee.state


CRASHING_TABLE = r"""
import sys
from companion.referee import Referee
from companion.simulate import simulate_games
from companion.store import EventStore

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
