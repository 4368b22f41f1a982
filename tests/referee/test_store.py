"""The event store: SQLite rows for every event, restore of the last game, JSON Lines in/out."""
from __future__ import annotations

import os
import json
import logging
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from companion.referee.engine import replay
from companion.errors import InputFileError
from companion.referee.service import Referee
from companion.referee.simulate import simulate_games
from companion.referee.store import EventStore, StoreError, default_db_path, read_jsonl

GAME = {"type": "game", "players": ["Ann", "Bob", "Cid"]}


@pytest.fixture
def store(tmp_path: Path) -> EventStore:
    with EventStore(tmp_path / "table.db") as s:
        yield s


def test_store_runs_in_wal_mode_with_full_sync(store: EventStore) -> None:
    assert store.journal_mode == "wal"
    assert store._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    # WAL is a property of the file: a second connection sees it too.
    other = sqlite3.connect(store.path)
    assert other.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    other.close()


def test_store_append_numbers_events_from_zero_per_game(store: EventStore) -> None:
    a, b = store.new_game(), store.new_game()
    assert [store.append(a, GAME, True), store.append(a, {"type": "deal"}, True)] == [0, 1]
    assert store.append(b, GAME, True) == 0
    assert store.events(a) == [GAME, {"type": "deal"}]


def test_store_keeps_rejected_and_unparsable_lines(store: EventStore) -> None:
    game = store.new_game()
    store.append(game, GAME, True, source="phone")
    store.append(game, {"type": "pass"}, False, source="phone")
    store.append(game, "this is not json", False, source="import")
    rows = store.rows(game)
    assert [r["accepted"] for r in rows] == [True, False, False]
    assert [r["source"] for r in rows] == ["phone", "phone", "import"]
    assert rows[2]["line"] == "this is not json"
    assert all(r["time"] > 0 for r in rows)


def test_store_rows_are_committed_for_other_readers(store: EventStore) -> None:
    game = store.new_game()
    store.append(game, GAME, True)
    # A separate connection (another process after a crash) reads the row at once.
    other = sqlite3.connect(store.path)
    assert other.execute("SELECT line FROM events").fetchall() == [(json.dumps(GAME, separators=(",", ":")),)]
    other.close()


def test_store_last_unfinished_is_the_newest_game_until_it_is_over(store: EventStore) -> None:
    assert store.last_unfinished() is None
    old = store.new_game()
    store.append(old, GAME, True)
    assert store.last_unfinished() == old
    new = store.new_game()
    store.append(new, GAME, True)
    assert store.last_unfinished() == new
    store.append(new, {"type": "points", "player": "Ann", "points": 3}, True, finished=True)
    # The abandoned older game is not brought back once the newer one finished.
    assert store.last_unfinished() is None
    store.set_finished(new, False)  # e.g. an undo of the last scoring
    assert store.last_unfinished() == new


def test_store_survives_reopening(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    with EventStore(path) as s:
        game = s.new_game()
        s.append(game, GAME, True)
    with EventStore(path) as s:
        assert s.last_unfinished() == game
        assert s.events(game) == [GAME]
        assert s.append(game, {"type": "deal", "dealer": "Ann"}, True) == 1


def test_store_failed_write_changes_nothing(store: EventStore) -> None:
    game = store.new_game()
    store.append(game, GAME, True)
    # A second writer holding the lock makes our write fail (like a full or broken disk).
    blocker = sqlite3.connect(store.path, timeout=0)
    blocker.execute("BEGIN EXCLUSIVE")
    store._db.execute("PRAGMA busy_timeout=0")
    with pytest.raises(StoreError, match="nothing was changed"):
        store.append(game, {"type": "deal"}, True)
    blocker.rollback()
    blocker.close()
    assert store.events(game) == [GAME]
    assert store.append(game, {"type": "deal"}, True) == 1


@pytest.mark.parametrize(
    "make_bad",
    [
        lambda p: p.write_bytes(b"this is not a database, just text" * 100),
        lambda p: p.mkdir(),
    ],
    ids=["not-a-database", "a-folder"],
)
def test_store_unopenable_file_is_one_line_error(tmp_path: Path, make_bad, caplog) -> None:
    path = tmp_path / "bad.db"
    make_bad(path)
    with pytest.raises(StoreError) as err:
        EventStore(path)
    assert "\n" not in str(err.value) and str(path) in str(err.value)
    # The error is the only word: no log line before it says half of it again.
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING] == []


def test_store_default_path_follows_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("UNO_COMPANION_DB", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert default_db_path() == tmp_path / "xdg" / "uno-companion" / "games.db"
    monkeypatch.setenv("UNO_COMPANION_DB", str(tmp_path / "mine.db"))
    assert default_db_path() == tmp_path / "mine.db"


def test_store_export_writes_every_line_in_order(store: EventStore, tmp_path: Path) -> None:
    game = store.new_game()
    lines = [GAME, {"type": "deal", "dealer": "Ann"}, "oops", {"type": "flip", "card": "red_7"}]
    for line in lines:
        store.append(game, line, line != "oops")
    out = tmp_path / "out.jsonl"
    store.export_jsonl(game, out)
    assert read_jsonl(out) == [json.dumps(GAME, separators=(",", ":")),
                               '{"type":"deal","dealer":"Ann"}', "oops",
                               '{"type":"flip","card":"red_7"}']


def test_store_export_unknown_game_is_an_error(store: EventStore, tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no game 'nope'"):
        store.export_jsonl("nope", tmp_path / "out.jsonl")
    assert not (tmp_path / "out.jsonl").exists()


@pytest.mark.parametrize(
    "content, expected",
    [
        (b'{"a":1}\n{"b":2}\n', ['{"a":1}', '{"b":2}']),
        (b'{"a":1}\n\n{"b":2}', ['{"a":1}', "", '{"b":2}']),  # blank lines count as events
        (b'\xef\xbb\xbf{"a":1}\r\n', ['{"a":1}']),  # BOM and CRLF from a Windows editor
        (b"", []),
    ],
)
def test_read_jsonl_keeps_line_positions(tmp_path: Path, content: bytes, expected: list) -> None:
    path = tmp_path / "log.jsonl"
    path.write_bytes(content)
    assert read_jsonl(path) == expected


@pytest.mark.parametrize(
    "setup, message",
    [
        (lambda p: None, "no such file"),
        (lambda p: p.mkdir(), "is a folder"),
        (lambda p: p.write_bytes(b"\xff\xfe\x00garbage\xff"), "not a UTF-8 text file"),
    ],
    ids=["missing", "folder", "binary"],
)
def test_read_jsonl_unreadable_is_one_line_error(tmp_path: Path, setup, message: str) -> None:
    path = tmp_path / "log.jsonl"
    setup(path)
    with pytest.raises(InputFileError, match=message) as err:
        read_jsonl(path)
    assert err.value.exit_code == 2 and "\n" not in str(err.value)

# -- the store against the engine: what was stored replays to what was announced ----------

RULE_SETS = [
    None,
    {"stacking": True, "jump_in": True},
    {"seven_zero": True, "draw_until_playable": True},
    {"deck": "modern", "scoring": "lowest_wins", "target": 150},
    {"uno_catch": "players", "uno_penalty": 4, "first_card": "number_only"},
]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10_000),
    players=st.integers(2, 6),
    hands=st.integers(1, 2),
    rules=st.sampled_from(RULE_SETS),
)
def test_store_replay_equals_live_state(tmp_path_factory: pytest.TempPathFactory, seed: int,
                                       players: int, hands: int, rules: dict | None) -> None:
    path = tmp_path_factory.mktemp("prop") / "table.db"
    live: list = []
    with EventStore(path) as store:
        referee = Referee(store)
        games = 0
        for event in simulate_games(players, hands, seed, rules, table=live):
            games += event["type"] == "game"
            referee.submit(event, "simulate")
        state, game_id = referee.state, referee.game_id
        assert game_id is not None
        stored = store.events(game_id)
        assert len(store.games()) == games
        # What was stored replays to exactly what the referee announced, notices included.
        assert replay(stored).state == state
        if games == 1:
            assert live[0].state == state  # and to what the simulator's own table saw
        assert all(row["accepted"] for row in store.rows(game_id))
        # Export and import give the same game back under a new id.
        out = path.with_suffix(".jsonl")
        store.export_jsonl(game_id, out)
        copy = store.import_jsonl(out)
        assert copy != game_id and store.events(copy) == stored
        assert replay(store.events(copy)).state == state
    # A restart restores the game (the import is now the newest game): a finished one shows
    # its result, the table's own, not the finished copy brought in by import.
    with EventStore(path) as again:
        restored = Referee(again)
        if state["waiting_for"] == "game_over":
            assert restored.game_id == game_id and restored.state == state
        else:
            assert restored.game_id == copy and restored.state == state


def test_store_from_a_newer_version_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    EventStore(path).close()
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version=99")
    db.close()
    with pytest.raises(StoreError, match="newer uno-companion"):
        EventStore(path)


# -- the season is safe: integrity check, read-only fallback, disk full, backups (issue 22) ------


def test_a_damaged_store_opens_read_only_with_one_clear_line(tmp_path: Path, caplog, damaged_store) -> None:
    path = tmp_path / "games.db"
    damaged_store(path)
    store = EventStore(path)
    assert "failed its integrity check" in store.read_only and "uno-companion restore" in store.read_only
    referee = Referee(store)  # the page still comes up, with no game
    with pytest.raises(StoreError) as err:
        referee.submit(GAME, source="host")
    assert "\n" not in str(err.value) and "read-only" in str(err.value)
    assert referee.state["players"] == [] and referee.events == []
    said = [r.getMessage() for r in caplog.records if r.name == "companion.referee.store"]
    assert len(said) == 1 and "integrity check" in said[0] and "read-only" in said[0]


def test_a_store_on_a_read_only_card_shows_the_season_and_refuses_new_events(tmp_path: Path, monkeypatch,
                                                                              caplog) -> None:
    import sqlite3

    path = tmp_path / "games.db"
    referee = Referee(EventStore(path))
    referee.submit(GAME)
    referee.submit({"type": "deal", "dealer": "Ann"})
    played = referee.events
    referee.store.close()
    # The card went read-only (an SD card does this when it wears out): every connection
    # SQLite opens on the file can read and never write, as a root test process cannot
    # otherwise arrange with file modes.
    real_connect = sqlite3.connect

    def read_only_card(database, *args, **kwargs):
        if not kwargs.get("uri"):
            database, kwargs["uri"] = f"file:{database}?mode=ro", True
        return real_connect(database, *args, **kwargs)

    monkeypatch.setattr("companion.referee.store.sqlite3.connect", read_only_card)
    store = EventStore(path)
    # the file is sound: the line says to make the card writable, not to restore an older copy
    assert "cannot be written" in store.read_only and "uno-companion restore" not in store.read_only
    assert store.events(referee.game_id) == played  # the season can still be seen and exported
    again = Referee(store)
    with pytest.raises(StoreError) as err:
        again.submit({"type": "flip", "card": "red_5"}, source="host")
    assert "\n" not in str(err.value) and "read-only" in str(err.value)
    assert store.events(referee.game_id) == played  # nothing half-written
    said = [r.getMessage() for r in caplog.records if r.name == "companion.referee.store"]
    assert len(said) == 1 and "cannot be written" in said[0]


def test_a_full_card_at_start_is_not_taken_for_a_damaged_file(tmp_path: Path, monkeypatch) -> None:
    # SQLite could not make its side files on a full (or read-only) card, so the first check
    # failed; the file itself reads back sound: restoring an older backup would lose events
    import sqlite3

    path = tmp_path / "games.db"
    EventStore(path).close()
    real_connect = sqlite3.connect

    class FullCard:
        def __init__(self, db):
            self._db = db

        def execute(self, sql, *args):
            if "quick_check" in sql:
                raise sqlite3.OperationalError("unable to open database file")
            return self._db.execute(sql, *args)

        def __getattr__(self, name):
            return getattr(self._db, name)

    def connect(database, *args, **kwargs):
        db = real_connect(database, *args, **kwargs)
        return db if kwargs.get("uri") else FullCard(db)

    monkeypatch.setattr("companion.referee.store.sqlite3.connect", connect)
    store = EventStore(path)
    assert "full or read-only" in store.read_only and "integrity" not in store.read_only
    assert "restore" not in store.read_only


def test_a_sound_store_passes_the_check(store: EventStore) -> None:
    assert store.read_only == ""


def test_disk_full_refuses_the_event_and_changes_nothing(tmp_path: Path) -> None:
    store = EventStore(tmp_path / "games.db")
    referee = Referee(store)
    referee.submit(GAME)
    referee.submit({"type": "deal", "dealer": "Ann"})
    events = referee.events
    pages = store._db.execute("PRAGMA page_count").fetchone()[0]
    store._db.execute(f"PRAGMA max_page_count={pages}")  # the card is full: SQLITE_FULL
    with pytest.raises(StoreError) as err:
        for _ in range(50):  # the next page the log needs cannot be had
            referee.submit({"type": "flip", "card": "red_5", "note": "y" * 3000})
    assert "full" in str(err.value) and "\n" not in str(err.value)
    stored = store.events(referee.game_id)
    assert referee.events == stored  # what the table shows is exactly what is on disk
    store._db.execute("PRAGMA max_page_count=1073741823")  # space again: the table goes on
    referee.submit({"type": "draw"})
    assert EventStore(tmp_path / "games.db").events(referee.game_id) == referee.events
    assert events == stored[:2]


def _finish_a_hand(referee: Referee) -> None:
    for event in (GAME, {"type": "deal", "dealer": "Cid"}, {"type": "flip", "card": "red_5"}):
        referee.submit(event)
    # Ann goes out at once (a table that dealt her one card is not needed: the engine takes
    # a reveal of everyone else's points to end the hand)
    referee.submit({"type": "game", "players": ["Ann", "Bob"], "rules": {"hand_size": 1}})
    referee.submit({"type": "deal", "dealer": "Bob"})
    referee.submit({"type": "flip", "card": "red_5"})
    referee.submit({"type": "play", "card": "red_7"})
    referee.submit({"type": "points", "player": "Bob", "points": 9})


def test_a_backup_is_made_after_every_finished_hand_and_restore_puts_it_back(tmp_path: Path, capsys) -> None:
    from companion.backup import Backups, list_backups
    from companion.cli import main as cli

    db = tmp_path / "games.db"
    store = EventStore(db)
    backups = Backups(db, keep=3)
    referee = Referee(store, backups=backups)
    _finish_a_hand(referee)
    backups.wait()
    assert referee.state["history"], referee.state["notices"][-3:]
    made = list_backups(db)
    assert len(made) == 1
    good_events = referee.events
    referee.submit({"type": "deal", "dealer": "Ann"})  # after the backup
    store.close()
    assert cli(["restore", "--db", str(db)]) == 0
    listing = capsys.readouterr().out
    assert made[0].name in listing and "events" in listing
    assert cli(["restore", "1", "--db", str(db)]) == 0
    assert "restored" in capsys.readouterr().out
    with EventStore(db) as again:
        game = again.latest_game()
        assert again.events(game) == good_events
    assert any("before-restore" in p.name for p in list_backups(db))


def test_backups_keep_the_last_n(tmp_path: Path) -> None:
    from companion.backup import list_backups, make_backup

    db = tmp_path / "games.db"
    EventStore(db).close()
    for _ in range(5):
        make_backup(db, keep=3)
    assert len(list_backups(db)) == 3


def test_backups_made_under_a_clock_behind_the_last_evenings_are_the_newest(tmp_path: Path) -> None:
    # a Pi with no clock battery: tonight starts a day before last night's backups were made;
    # ordered by time, each backup made tonight was the oldest and deleted as it was made
    from companion.backup import list_backups, make_backup

    db = tmp_path / "games.db"
    EventStore(db).close()
    last_night = [make_backup(db, keep=3) for _ in range(3)]
    for old in last_night:
        os.utime(old, (old.stat().st_mtime + 86400, old.stat().st_mtime + 86400))
    tonight = [make_backup(db, keep=3) for _ in range(2)]
    assert list_backups(db) == [last_night[2]] + tonight


def test_restore_refuses_while_a_companion_has_the_store(tmp_path: Path) -> None:
    from companion.backup import BackupError, StoreLock, make_backup, restore

    db = tmp_path / "games.db"
    EventStore(db).close()
    backup = make_backup(db)
    lock = StoreLock(db)
    assert lock.acquire()
    with pytest.raises(BackupError, match="in use"):
        restore(db, backup)
    lock.release()
    restore(db, backup)


def test_the_store_lock_holds_whatever_path_names_the_store(tmp_path: Path) -> None:
    # two companions given one store by two paths (a symlink) both ran and mixed their games
    from companion.backup import StoreLock

    db = tmp_path / "games.db"
    EventStore(db).close()
    (tmp_path / "link.db").symlink_to(db)
    first = StoreLock(db)
    assert first.acquire()
    assert not StoreLock(tmp_path / "link.db").acquire()
    assert not StoreLock(tmp_path / "sub" / ".." / "games.db").acquire()
    # a hard link from another folder names the same file beside another `.lock`
    (tmp_path / "other").mkdir()
    os.link(db, tmp_path / "other" / "games.db")
    assert not StoreLock(tmp_path / "other" / "games.db").acquire()
    first.release()
    again = StoreLock(tmp_path / "other" / "games.db")
    assert again.acquire()
    again.release()


def test_a_new_store_is_held_by_its_file_from_the_start(tmp_path: Path) -> None:
    from companion.backup import StoreLock

    db = tmp_path / "games.db"
    first = StoreLock(db)
    assert first.acquire(create=True) and db.exists()
    EventStore(db).close()  # SQLite takes the empty file as a new store
    os.link(db, tmp_path / "linked.db")
    assert not StoreLock(tmp_path / "linked.db").acquire()
    first.release()


def test_a_store_of_schema_1_gains_request_ids(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    db = sqlite3.connect(path)
    db.executescript("""CREATE TABLE games (n INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE,
        created REAL NOT NULL, finished INTEGER NOT NULL DEFAULT 0);
        CREATE TABLE events (game_id TEXT NOT NULL REFERENCES games(id), seq INTEGER NOT NULL, time REAL NOT NULL,
        accepted INTEGER NOT NULL, source TEXT NOT NULL DEFAULT '', line TEXT NOT NULL, PRIMARY KEY (game_id, seq));
        INSERT INTO games (id, created) VALUES ('g1', 0);
        INSERT INTO events VALUES ('g1', 0, 0, 1, 'phone', '{"type":"game","players":["Ann","Bob"]}');
        PRAGMA user_version=1;""")
    db.close()
    with EventStore(path) as store:
        assert store.events("g1")[0]["type"] == "game"
        store.append("g1", {"type": "deal"}, True, request_id="abc12345")
        assert store.find_request("abc12345")["seq"] == 1


def test_a_store_file_deleted_under_the_companion_refuses_events_and_says_so(tmp_path: Path) -> None:
    # SQLite went on writing into the unlinked file: taps answered, all lost at the next start
    path = tmp_path / "games.db"
    referee = Referee(EventStore(path))
    referee.submit(GAME)
    for side in ("", "-wal", "-shm"):
        Path(str(path) + side).unlink(missing_ok=True)
    with pytest.raises(StoreError, match="deleted or replaced"):
        referee.submit({"type": "deal", "dealer": "Ann"}, source="host")
    assert "deleted or replaced" in referee.store.failing
    assert referee.state["waiting_for"] == "deal"  # the table did not move on an event it lost


def test_a_backup_cut_off_by_a_power_cut_is_swept_and_made_again_at_start(tmp_path: Path) -> None:
    import os

    from companion.backup import Backups, backup_folder, list_backups, make_backup

    db = tmp_path / "games.db"
    referee = Referee(EventStore(db))
    referee.submit(GAME)
    first = make_backup(db)
    os.utime(first, (first.stat().st_mtime - 60,) * 2)
    referee.submit({"type": "deal", "dealer": "Ann"})  # the hand went on after that backup
    part = backup_folder(db) / "games-20261126-001302.db.part"
    part.write_bytes(b"x" * 4096)
    (backup_folder(db) / "games-20261126-001302.db.part-journal").write_bytes(b"x")
    backups = Backups(db)
    backups.at_start()
    backups.wait()
    assert not list(backup_folder(db).glob("*.part*"))
    assert len(list_backups(db)) == 2 and backups.made  # the lost hand's backup, made now
    for _ in range(3):  # restarts with no play: no backup for nothing (20 kept: real hands' would go)
        again = Backups(db)
        again.at_start()
        again.wait()
        assert again.made == []
    # the store gone and started anew beside its backups: the newest backup stays the one to restore
    for side in ("", "-wal", "-shm"):
        Path(str(db) + side).unlink(missing_ok=True)
    referee.store.close()
    EventStore(db).close()
    fresh = Backups(db)
    fresh.at_start()
    fresh.wait()
    assert fresh.made == [] and len(list_backups(db)) == 2


def test_backups_of_two_stores_in_one_folder_stay_apart(tmp_path: Path) -> None:
    from companion.backup import list_backups, make_backup

    for name in ("games.db", "games-2025.db"):
        EventStore(tmp_path / name).close()
    mine = make_backup(tmp_path / "games.db")
    other = [make_backup(tmp_path / "games-2025.db") for _ in range(3)]
    assert list_backups(tmp_path / "games.db") == [mine]
    for _ in range(3):  # games.db's rotation (keep 2) never touches games-2025's backups
        make_backup(tmp_path / "games.db", keep=2)
    assert all(p.exists() for p in other)


def test_a_restored_store_that_went_on_is_backed_up_at_the_next_start(tmp_path: Path) -> None:
    from companion.backup import Backups, list_backups, make_backup, restore

    db = tmp_path / "games.db"
    referee = Referee(EventStore(db))
    referee.submit(GAME)
    old = make_backup(db)
    referee.submit({"type": "deal", "dealer": "Ann"})
    referee.submit({"type": "flip", "card": "red_5"})
    referee.store.close()
    restore(db, old)  # the older copy back; the file it replaced kept as one more backup
    again = Referee(EventStore(db))
    again.submit({"type": "deal", "dealer": "Bob"})  # play goes on from the restored copy
    again.store.close()
    before = len(list_backups(db))
    backups = Backups(db)
    backups.at_start()
    backups.wait()
    assert backups.made and len(list_backups(db)) == before + 1


def test_a_store_of_imported_games_gets_its_first_backup_at_start(tmp_path: Path) -> None:
    # `restore` said "no backups yet" however many games were imported, until a hand ended here
    from companion.backup import Backups, list_backups
    from companion.data import EXAMPLE_LOG

    db = tmp_path / "games.db"
    with EventStore(db) as store:
        store.import_jsonl(EXAMPLE_LOG)
    assert list_backups(db) == []
    backups = Backups(db)
    backups.at_start()
    backups.wait()
    assert len(list_backups(db)) == 1
    again = Backups(db)  # a restart with nothing new makes none
    again.at_start()
    again.wait()
    assert again.made == [] and len(list_backups(db)) == 1


def test_a_new_store_in_a_folder_that_cannot_be_written_says_so(tmp_path, monkeypatch):
    # SQLite's own words were "unable to open database file", naming neither the folder nor why
    def refuse(*args, **kwargs):
        raise sqlite3.OperationalError("unable to open database file")

    monkeypatch.setattr(sqlite3, "connect", refuse)
    monkeypatch.setattr(os, "access", lambda path, mode: False)  # a read-only mount (root ignores chmod)
    with pytest.raises(StoreError) as err:
        EventStore(tmp_path / "games.db")
    assert str(err.value) == (f"cannot make the event store {tmp_path / 'games.db'}: its folder {tmp_path} "
                              "cannot be written (read-only); choose another --db")
