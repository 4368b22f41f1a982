"""The event store: every table event, accepted or rejected, kept in SQLite before it counts.

One row per event: game id, sequence number, wall-clock time, whether the engine accepted
it, where it came from (phone, camera, button) and the JSON line itself. The database runs in
WAL mode with `synchronous=FULL`, and every append is its own committed transaction, so an
event the referee has announced survives a power cut.

`seq` starts at 0 in each game and counts every line, so it equals the `event` index the
engine gives the notices of that game: replaying `events(game_id)` rebuilds the state
exactly, notices included.
"""
from __future__ import annotations

import json
import logging
import os
import secrets
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Iterator

from companion.errors import CompanionError, InputFileError

SCHEMA_VERSION = 4  # 2: events.request_id (a phone's id for exactly-once retries); 3: leagues;
# 4: games.replaces (the game a host's New game took the table from, for its Undo)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    n        INTEGER PRIMARY KEY AUTOINCREMENT,  -- creation order: the newest game is MAX(n)
    id       TEXT NOT NULL UNIQUE,
    created  REAL NOT NULL,                      -- Unix time
    finished INTEGER NOT NULL DEFAULT 0,         -- 1 once the game reached game_over
    replaces TEXT                                -- version 4: the game on the table when this one began
);
CREATE TABLE IF NOT EXISTS events (
    game_id  TEXT NOT NULL REFERENCES games(id),
    seq      INTEGER NOT NULL,                   -- 0, 1, 2... = the engine's event index
    time     REAL NOT NULL,                      -- Unix time the event was stored
    accepted INTEGER NOT NULL,                   -- 0 for a line the engine rejected
    source   TEXT NOT NULL DEFAULT '',           -- "phone", "camera", "button", "import"...
    line     TEXT NOT NULL,                      -- the table-log line, as JSON text
    request_id TEXT,                             -- the sender's id for this request, if any
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS leagues (                 -- version 3: league night (rules.md)
    n        INTEGER PRIMARY KEY AUTOINCREMENT,
    id       TEXT NOT NULL UNIQUE,
    name     TEXT NOT NULL,
    created  REAL NOT NULL,
    victory_points TEXT NOT NULL,                -- JSON list: points per placing, 1st first
    closed   INTEGER NOT NULL DEFAULT 0          -- 1: new games no longer join it
);
CREATE TABLE IF NOT EXISTS league_games (
    league_id TEXT NOT NULL REFERENCES leagues(id),
    game_id   TEXT NOT NULL REFERENCES games(id),
    PRIMARY KEY (league_id, game_id)
);
"""
# Older files gain the league tables when opened (CREATE TABLE IF NOT EXISTS: no copy, every
# game and event stays as it was).
# Version 1 files gain the request id column, and older files the games' `replaces` column,
# when opened (an ALTER, no copy).
_REQUEST_INDEX = ("CREATE UNIQUE INDEX IF NOT EXISTS events_request ON events(request_id) "
                  "WHERE request_id IS NOT NULL")

Line = dict[str, Any] | str
log = logging.getLogger(__name__)


def _unwritable(exc: sqlite3.Error) -> bool:
    """Whether opening failed because the file cannot be written (a read-only card or folder)."""
    text = str(exc).lower()
    return "readonly" in text or "read-only" in text or "unable to open" in text or "disk i/o" in text


class StoreError(CompanionError, OSError):
    """The event store cannot be opened or written; nothing was changed."""

    exit_code = 2


def default_db_path() -> Path:
    """$UNO_COMPANION_DB, else $XDG_DATA_HOME/uno-companion/games.db (~/.local/share/...)."""
    env = os.environ.get("UNO_COMPANION_DB")
    if env:
        return Path(env).expanduser()
    data_home = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data_home).expanduser() / "uno-companion" / "games.db"


def new_game_id(now: float | None = None) -> str:
    """A readable, sortable, unique id: g20261121-054012-3f9a (UTC time + random suffix)."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime(time.time() if now is None else now))
    return f"g{stamp}-{secrets.token_hex(2)}"


def encode_line(line: Line) -> str:
    """The text stored for a line: dicts as compact JSON, raw text (even invalid JSON) as is."""
    if isinstance(line, str):
        return line.rstrip("\r\n")
    return json.dumps(line, separators=(",", ":"), ensure_ascii=False)


def decode_line(text: str) -> Line:
    """A stored line back: the dict if it is a JSON object, else the raw text for the engine."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):  # (a line nested a thousand deep: stored as text, refused)
        return text
    return value if isinstance(value, dict) else text


# A sound file on a card that cannot take writes: restoring a backup would only lose events.
_UNWRITABLE = "cannot be written (the card is full or read-only)"
_CARD_FIX = "until the card takes writes again (free space, or a card that is not write-protected), then restart"


class EventStore:
    """SQLite event log of every game played at this table. Safe to share between threads."""

    def __init__(self, path: str | Path, *, check: bool = True) -> None:
        """Open (or create) the store. With `check`, an existing file is checked first
        (`PRAGMA quick_check`): a damaged one, or one on a read-only card, is opened read-only
        (`read_only` is the reason) so the season can still be seen and exported, and every
        write is refused with that reason in one line."""
        self.path = Path(path)
        self._lock = threading.RLock()
        self.read_only: str = ""  # why writes are refused ("" when they are not)
        self.failing: str = ""  # why the last write failed ("" once one goes in again)
        self._inode: int | None = None  # the file opened: a write checks it is still the one there
        memory = str(self.path) == ":memory:"
        existed = not memory and self.path.exists()
        try:
            if not memory:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            # Autocommit mode: transactions are opened explicitly, so each append commits alone.
            self._db = sqlite3.connect(
                str(self.path), isolation_level=None, check_same_thread=False, timeout=10.0
            )
        except (OSError, sqlite3.Error) as exc:
            if existed and self.path.is_file():
                self._open_read_only(_UNWRITABLE, str(exc), _CARD_FIX)
                return
            if not memory and not os.access(self.path.parent, os.W_OK):  # SQLite says "unable to open database file"
                raise StoreError(f"cannot make the event store {self.path}: its folder {self.path.parent} "
                                 "cannot be written (read-only); choose another --db") from None
            raise StoreError(f"cannot open the event store {self.path}: {exc}") from None
        try:
            if existed and check:
                problem = self._quick_check(self._db)
                if problem:
                    self._db.close()
                    if self._reads_sound():  # the card (full, read-only) failed the check, not the file
                        self._open_read_only(_UNWRITABLE, problem, _CARD_FIX)
                    else:
                        self._open_read_only("failed its integrity check at start", problem)
                    return
            mode = self._db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                self._db.close()
                raise StoreError(
                    f"the event store {self.path} was written by a newer uno-companion "
                    f"(schema {version} > {SCHEMA_VERSION})"
                )
            self._db.executescript(_SCHEMA)
            columns = [row[1] for row in self._db.execute("PRAGMA table_info(events)")]
            if "request_id" not in columns:
                self._db.execute("ALTER TABLE events ADD COLUMN request_id TEXT")
            if "replaces" not in [row[1] for row in self._db.execute("PRAGMA table_info(games)")]:
                self._db.execute("ALTER TABLE games ADD COLUMN replaces TEXT")
            self._db.execute(_REQUEST_INDEX)
            self._db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except sqlite3.Error as exc:
            self._db.close()
            if existed and _unwritable(exc):
                self._open_read_only(_UNWRITABLE, str(exc), _CARD_FIX)
                return
            raise StoreError(f"cannot open the event store {self.path}: {exc}") from None
        self.journal_mode = str(mode).lower()
        if not memory:
            self._inode = os.stat(self.path).st_ino

    def check_file(self) -> None:
        """Raise StoreError if the store's file was deleted or replaced under the running
        companion: SQLite would go on writing into the unlinked file, and every event since
        would be gone at the next start."""
        if self._inode is None:
            return
        try:
            same = os.stat(self.path).st_ino == self._inode
        except OSError:
            same = False
        if not same:
            raise StoreError(f"the event store file {self.path} was deleted or replaced while the companion "
                             f"ran: nothing more is stored; restart the companion (a backup may hold the game)")

    @staticmethod
    def _quick_check(db: sqlite3.Connection) -> str:
        """'' if SQLite's quick_check finds the file sound, else its first complaint."""
        try:
            rows = db.execute("PRAGMA quick_check").fetchall()
        except sqlite3.Error as exc:
            return str(exc)
        if [r[0] for r in rows] == ["ok"]:
            return ""
        text = " ".join(" ".join(str(r[0]) for r in rows[:3]).split()).replace("*** in database main *** ", "")
        return text[:160] + ("..." if len(text) > 160 else "")

    def _reads_sound(self) -> bool:
        """Whether the file passes quick_check opened for reading only: a full or read-only
        card fails the first check (SQLite cannot make its side files), not the file."""
        for db in self._read_only_connections():
            try:
                if self._quick_check(db) == "":
                    return True
            finally:
                db.close()
        return False

    def _read_only_connections(self) -> Iterator[sqlite3.Connection]:
        """Connections that only read the file: as it is (with its journal), then as an
        immutable file (when even the journal's side files cannot be made)."""
        for uri in (f"file:{self.path}?mode=ro", f"file:{self.path}?immutable=1"):
            try:
                yield sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False, timeout=10.0)
            except sqlite3.Error:
                continue

    def _open_read_only(self, why: str, detail: str,
                        fix: str = "until a backup is restored (`uno-companion restore`)") -> None:
        """Open the file for reading only; every write is refused with `why`. One line says
        so (with SQLite's `detail`), or, where the file cannot even be read, the StoreError."""
        self.read_only = f"the event store {self.path} {why}: read-only, nothing new is stored {fix}"
        for db in self._read_only_connections():
            try:
                db.execute("SELECT name FROM sqlite_master").fetchall()
                self._db = db
                self.journal_mode = str(db.execute("PRAGMA journal_mode").fetchone()[0]).lower()
                log.error("%s (%s)", self.read_only, detail)
                return
            except sqlite3.Error:
                try:
                    db.close()
                except sqlite3.Error:
                    pass
        raise StoreError(f"the event store {self.path} {why} and cannot be read either ({detail}): "
                         "restore a backup with `uno-companion restore`") from None

    # -- writing -------------------------------------------------------------------------

    def new_game(self, game_id: str | None = None) -> str:
        """Register a game and return its id (a fresh one unless given)."""
        game_id = game_id or new_game_id()
        with self._write("start a new game"):
            self._db.execute(
                "INSERT OR IGNORE INTO games (id, created) VALUES (?, ?)", (game_id, time.time())
            )
        return game_id

    def append(
        self,
        game_id: str,
        line: Line,
        accepted: bool,
        *,
        source: str = "",
        finished: bool | None = None,
        request_id: str | None = None,
        join_league: bool = False,
        replaces: str | None = None,
    ) -> int:
        """Store one line of game `game_id` and commit; return its seq (0 for the first line).

        `finished` (optional) records in the same transaction whether the game is now over,
        which is what `last_unfinished` reads. Raises StoreError if the write fails, in
        which case nothing was stored. `join_league`: a new game's first line joins the open
        league (the newest one not closed), in the same transaction. `replaces`: for a new game,
        the game that was on the table when it began (an Undo of it goes back there).
        """
        text = encode_line(line)
        with self._write("save the event"):
            self._db.execute(
                "INSERT OR IGNORE INTO games (id, created, replaces) VALUES (?, ?, ?)",
                (game_id, time.time(), replaces)
            )
            seq = self._db.execute(
                "SELECT COALESCE(MAX(seq) + 1, 0) FROM events WHERE game_id = ?", (game_id,)
            ).fetchone()[0]
            self._db.execute(
                "INSERT INTO events (game_id, seq, time, accepted, source, line, request_id) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                (game_id, seq, time.time(), int(bool(accepted)), source, text, request_id),
            )
            if finished is not None:
                self._db.execute(
                    "UPDATE games SET finished = ? WHERE id = ?", (int(finished), game_id)
                )
            if join_league and seq == 0:
                self._db.execute(
                    "INSERT OR IGNORE INTO league_games (league_id, game_id) "
                    "SELECT id, ? FROM leagues WHERE closed = 0 ORDER BY n DESC LIMIT 1",
                    (game_id,))
        return int(seq)

    # -- leagues (rules.md, "Victory points and league night") ----------------------------

    def new_league(self, name: str, victory_points: list[int], league_id: str | None = None) -> str:
        """Open a league (an evening, a season); games started from now on join it. Any
        league still open is closed: one league is open at a time."""
        league_id = league_id or "l" + new_game_id()[1:]
        with self._write("start a league"):
            self._db.execute("UPDATE leagues SET closed = 1 WHERE closed = 0")
            self._db.execute(
                "INSERT INTO leagues (id, name, created, victory_points) VALUES (?, ?, ?, ?)",
                (league_id, name, time.time(), json.dumps(list(victory_points))))
        return league_id

    def close_league(self, league_id: str) -> None:
        with self._write("close the league"):
            self._db.execute("UPDATE leagues SET closed = 1 WHERE id = ?", (league_id,))

    def add_to_league(self, league_id: str, game_id: str) -> None:
        """Put a stored game in a league (a game played before the league was opened)."""
        if not self.has_game(game_id):
            raise StoreError(f"no game {game_id!r} in {self.path}")
        if self.league(league_id) is None:
            raise StoreError(f"no league {league_id!r} in {self.path}")
        with self._write("add the game to the league"):
            self._db.execute("INSERT OR IGNORE INTO league_games (league_id, game_id) VALUES (?, ?)",
                             (league_id, game_id))

    def leagues(self) -> list[dict[str, Any]]:
        """Every league, oldest first: id, name, created, victory_points, closed, games."""
        if self.read_only and not self._read(
                "SELECT 1 FROM sqlite_master WHERE name = 'leagues'", ()):
            return []  # an older file opened read-only: it has no leagues yet
        with self._lock:
            rows = self._read(
                "SELECT l.id, l.name, l.created, l.victory_points, l.closed, COUNT(g.game_id) "
                "FROM leagues l LEFT JOIN league_games g ON g.league_id = l.id GROUP BY l.n "
                "ORDER BY l.n", ())
        return [{"id": i, "name": nm, "created": c, "victory_points": json.loads(vp),
                 "closed": bool(cl), "games": k} for i, nm, c, vp, cl, k in rows]

    def league(self, league_id: str) -> dict[str, Any] | None:
        for entry in self.leagues():
            if entry["id"] == league_id:
                return entry
        return None

    def league_games(self, league_id: str) -> list[str]:
        """The league's games in the order they were started."""
        if self.league(league_id) is None:
            return []
        with self._lock:
            rows = self._read(
                "SELECT g.id FROM league_games lg JOIN games g ON g.id = lg.game_id "
                "WHERE lg.league_id = ? ORDER BY g.n", (league_id,))
        return [r[0] for r in rows]

    def set_finished(self, game_id: str, finished: bool) -> None:
        """Record whether a game has reached game_over (an undo can take it back)."""
        with self._write("mark the game finished"):
            self._db.execute(
                "UPDATE games SET finished = ? WHERE id = ?", (int(finished), game_id)
            )

    def _write(self, what: str) -> "_Transaction":
        return _Transaction(self, what)

    # -- reading -------------------------------------------------------------------------

    def events(self, game_id: str) -> list[Line]:
        """Every stored line of a game in order (dicts; raw text for lines that were not JSON)."""
        return [decode_line(text) for text in self._texts(game_id)]

    def lines(self, game_id: str) -> list[str]:
        """The stored text of each line of a game, in order (what export writes); a raw
        line holding a newline is written as a JSON string so it stays one line."""
        return [text if "\n" not in text else json.dumps(text) for text in self._texts(game_id)]

    def rows(self, game_id: str) -> list[dict[str, Any]]:
        """The full rows of a game: seq, time, accepted, source, line."""
        with self._lock:
            cur = self._read(
                "SELECT seq, time, accepted, source, line FROM events WHERE game_id = ? "
                "ORDER BY seq",
                (game_id,),
            )
        return [
            {"seq": s, "time": t, "accepted": bool(a), "source": src, "line": decode_line(text)}
            for s, t, a, src, text in cur
        ]

    def games(self) -> list[dict[str, Any]]:
        """Every game, oldest first: id, created, finished, events."""
        with self._lock:
            cur = self._read(
                "SELECT g.id, g.created, g.finished, COUNT(e.seq) FROM games g "
                "LEFT JOIN events e ON e.game_id = g.id GROUP BY g.n ORDER BY g.n",
                (),
            )
        return [
            {"id": i, "created": c, "finished": bool(f), "events": n} for i, c, f, n in cur
        ]

    def find_request(self, request_id: str) -> dict[str, Any] | None:
        """The stored event a request id was given to: game_id, seq, accepted, source."""
        with self._lock:
            rows = self._read("SELECT game_id, seq, accepted, source FROM events WHERE request_id = ?",
                              (request_id,))
        if not rows:
            return None
        game_id, seq, accepted, source = rows[0]
        return {"game_id": game_id, "seq": int(seq), "accepted": bool(accepted), "source": source}

    def has_game(self, game_id: str) -> bool:
        with self._lock:
            return bool(self._read("SELECT 1 FROM games WHERE id = ?", (game_id,)))

    def finished(self, game_id: str) -> bool:
        """Whether the stored game `game_id` is over (False for one not stored)."""
        with self._lock:
            rows = self._read("SELECT finished FROM games WHERE id = ?", (game_id,))
        return bool(rows and rows[0][0])

    def latest_game(self) -> str | None:
        """The newest game, finished or not."""
        with self._lock:
            rows = self._read("SELECT id FROM games ORDER BY n DESC LIMIT 1", ())
        return rows[0][0] if rows else None

    def current_game(self) -> str | None:
        """`current_table`'s game id, or None."""
        found = self.current_table()
        return found[0] if found else None

    def current_table(self) -> "tuple[str, Any] | None":
        """(id, replayed Table) of the game a table takes up when it starts: the newest game,
        finished or not (after a power cut at a game's end the table comes back showing its
        result, not a new deal).

        A finished game brought in by `import` (last week's log, kept for the record) is not
        played at this table and does not stand in front of the table's own game. A game that
        has no players (its `game` line undone: the host's New game taken back) gives way to
        the game it replaced on the table, which the undo went back to (`table_before`), else
        to the game before it.
        """
        with self._lock:
            rows = self._read(
                "SELECT g.id FROM games g WHERE NOT (g.finished AND EXISTS ("
                "SELECT 1 FROM events e WHERE e.game_id = g.id AND e.seq = 0 AND e.source = 'import')) "
                "ORDER BY g.n DESC LIMIT 20", ())
        for (game_id,) in rows:
            played = self._played(str(game_id))
            if played is not None:
                return played
            before = self.table_before(game_id)
            if before is not None:
                return before
        return None

    def table_before(self, game_id: str) -> "tuple[str, Any] | None":
        """(id, replayed Table) of the game that was on the table when `game_id` began (the
        game a host's New game replaced), following back past replaced games that have no
        players; None when it began at an empty table or that game is not stored."""
        seen = {game_id}
        while True:
            try:
                with self._lock:
                    rows = self._read("SELECT replaces FROM games WHERE id = ?", (game_id,))
            except StoreError:  # an older file opened read-only (a damaged card): no such column
                return None
            before = rows[0][0] if rows else None
            if not before or before in seen or not self.has_game(before):
                return None
            seen.add(before)
            played = self._played(str(before))
            if played is not None:
                return played
            game_id = before

    def _played(self, game_id: str) -> "tuple[str, Any] | None":
        """(id, replayed Table) of a game that has players; None for one whose `game` line was
        undone (the host's New game taken back)."""
        from companion.referee.engine import replay  # the engine is pure; imported only when needed

        table = replay(self.events(game_id))
        return (game_id, table) if table.state["players"] else None

    def last_unfinished(self) -> str | None:
        """`current_game` if it has not reached game_over, else None.

        Only the newest game counts: a game abandoned for a newer one is not brought back
        after the newer one finished.
        """
        game_id = self.current_game()
        with self._lock:
            rows = self._read("SELECT finished FROM games WHERE id = ?", (game_id,))
        return game_id if rows and not rows[0][0] else None

    def _texts(self, game_id: str) -> list[str]:
        with self._lock:
            rows = self._read(
                "SELECT line FROM events WHERE game_id = ? ORDER BY seq", (game_id,)
            )
        return [text for (text,) in rows]

    def _read(self, sql: str, params: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        try:
            return self._db.execute(sql, params).fetchall()
        except sqlite3.Error as exc:
            raise StoreError(f"cannot read the event store {self.path}: {exc}") from None

    # -- JSON Lines ----------------------------------------------------------------------

    def export_jsonl(self, game_id: str, path: str | Path) -> None:
        """Write a game's lines, rejected ones included, as a JSON Lines table log."""
        if not self.has_game(game_id):
            raise StoreError(f"no game {game_id!r} in {self.path}")
        texts = self.lines(game_id)
        target = Path(path)
        if target.is_dir() or not target.name:  # "export ." names a folder, not a file
            raise InputFileError(f"{target} is a folder: name the file to write, e.g. {target / (game_id + '.jsonl')}")
        tmp = target.with_name(target.name + ".part")
        try:
            with open(tmp, "w", encoding="utf-8", newline="\n") as out:
                for text in texts:
                    out.write(text + "\n")
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, target)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise InputFileError(f"cannot write {target}: {exc.strerror or exc}") from None

    def import_jsonl(self, path: str | Path, *, game_id: str | None = None) -> str:
        """Store a JSON Lines table log as a new game; return its id.

        The log is replayed through the engine so each row records whether it was accepted
        and the game whether it finished. The whole file goes in one transaction: a file
        that cannot be read leaves the store untouched.
        """
        return self.import_lines(read_jsonl(path), game_id=game_id)

    def import_lines(self, lines: list, *, game_id: str | None = None, league_id: str | None = None) -> str:
        """`import_jsonl` for a log already read (`read_jsonl`'s lines); return the game's id.
        With `league_id`, the game joins that league in the same transaction."""
        return self.import_games([lines], game_ids=None if game_id is None else [game_id], league_id=league_id)[0]

    def import_games(self, games: list[list], *, game_ids: list[str] | None = None,
                     league_id: str | None = None) -> list[str]:
        """Several games' logs (a log that starts a new game part way, split there) stored in
        one transaction, in order: all of them or none. Returns their ids."""
        from companion.referee.engine import Table  # the engine is pure; imported only when needed

        ids = list(game_ids) if game_ids is not None else [new_game_id() for _ in games]
        while game_ids is None and len(set(ids)) < len(ids):  # one second, the same 4 hex digits
            ids = [new_game_id() for _ in games]
        for game_id in ids:
            if self.has_game(game_id):
                raise StoreError(f"a game {game_id!r} is already in {self.path}")
        if league_id is not None and self.league(league_id) is None:
            raise StoreError(f"no league {league_id!r} in {self.path} (`uno-companion league list`)")
        now = time.time()
        with self._write("import the log"):
            for game_id, lines in zip(ids, games):
                table = Table()
                flags: list[bool] = []
                for index, line in enumerate(lines):
                    notices = table.push(line)
                    # A blank line counts in event indices but is no event: stored as not accepted.
                    flags.append(bool(line.strip()) and not any(
                        n.get("kind") == "rejected" and n.get("event") == index for n in notices
                    ))
                finished = table.state.get("waiting_for") == "game_over"
                self._db.execute(
                    "INSERT INTO games (id, created, finished) VALUES (?, ?, ?)",
                    (game_id, now, int(finished)),
                )
                self._db.executemany(
                    "INSERT INTO events (game_id, seq, time, accepted, source, line) "
                    "VALUES (?, ?, ?, ?, 'import', ?)",
                    [(game_id, i, now, int(ok), encode_line(line)) for i, (line, ok) in
                     enumerate(zip(lines, flags))],
                )
                if league_id is not None:
                    self._db.execute("INSERT INTO league_games (league_id, game_id) VALUES (?, ?)",
                                     (league_id, game_id))
        return ids

    # -- lifetime ------------------------------------------------------------------------

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> "EventStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT under the store's lock; any failure rolls back and raises
    StoreError, so a write either fully happened (and is on disk) or did not happen."""

    def __init__(self, store: EventStore, what: str) -> None:
        self.store = store
        self.what = what

    def __enter__(self) -> None:
        if self.store.read_only:
            raise StoreError(f"not stored: {self.store.read_only}")
        try:
            self.store.check_file()
        except StoreError as exc:
            self.store.failing = str(exc)
            raise
        self.store._lock.acquire()
        try:
            self.store._db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:
            self.store._lock.release()
            self.store.failing = f"could not {self.what} in {self.store.path}: {exc}; nothing was changed"
            raise StoreError(self.store.failing) from None

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: object) -> None:
        db = self.store._db
        try:
            if exc_type is None:
                try:
                    db.execute("COMMIT")
                    self.store.failing = ""
                    return
                except sqlite3.Error as commit_exc:
                    exc = commit_exc
            try:
                db.execute("ROLLBACK")
            except sqlite3.Error:
                pass  # the transaction may already be gone; nothing was committed either way
            if isinstance(exc, (sqlite3.Error, OSError)):
                self.store.failing = f"could not {self.what} in {self.store.path}: {exc}; nothing was changed"
                raise StoreError(self.store.failing) from None
        finally:
            self.store._lock.release()


def read_jsonl(path: str | Path) -> list[str]:
    """The lines of a table log file, blank ones kept (they count in event indices).

    A missing or unreadable file raises InputFileError with one line.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise InputFileError(f"no such file: {path}") from None
    except IsADirectoryError:
        raise InputFileError(f"{path} is a folder, not a table log") from None
    except OSError as exc:
        raise InputFileError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        if exc.reason == "unexpected end of data":  # a file cut inside its last letter ("ë")
            raise InputFileError(f"{path} is cut off (it ends in the middle of a letter)") from None
        raise InputFileError(f"cannot read {path}: not a UTF-8 text file") from None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the newline that ends the last line does not start another
    return [line.rstrip("\r") for line in lines]

