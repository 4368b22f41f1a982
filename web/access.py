"""Who may do what, kept on disk: seats, host sessions, one-time host links, wrong-PIN back-off.

All of it lives in one small SQLite file beside the event store (`games.access.db` beside
`games.db`), so a restart forgets nobody: a phone keeps its seat, the host stays logged in,
and a PIN guesser does not get fresh tries. Tokens are kept as SHA-256 hashes, so the file
alone lets nobody in. The Flask secret key that signs the session cookies is one file in the
data folder (`secret_key`, mode 0600), created once (`load_secret_key`).

Wrong-PIN back-off is per client: the phone's address and its client cookie together. Each
wrong PIN doubles that client's wait (1 s, 2 s, 4 s ... an hour at most); the right PIN clears
it. A client that has not failed is never blocked, with one exception that stops a guesser
who throws away its cookie after each try: a client whose cookie is newer than the first
failure of its address's current streak shares the address's wait.
"""
from __future__ import annotations

import hashlib
import os
import secrets
import sqlite3
import threading
import time
from pathlib import Path
from typing import Callable

from companion.errors import CompanionError

MAX_WAIT_S = 3600.0  # the longest a client waits after wrong PINs
STREAK_FORGET_S = 24 * 3600.0  # a client's or address's failures are forgotten after a quiet day
CLOCK_SLACK_S = 60.0  # failures stamped later than now by more than this: the clock was set back
# Wrong PINs from the whole table before every new client waits too: a guesser with many addresses
# (or cookies) is slowed like one, while a table's few typos wait nobody
TABLE_FREE = 5
KEPT_GAMES = 10  # replaced games whose seats are kept for an Undo of the New game

_SCHEMA = """
CREATE TABLE IF NOT EXISTS seats (
    token  TEXT PRIMARY KEY,           -- sha256 of the phone's seat cookie
    player TEXT NOT NULL UNIQUE,
    since  REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS kept_seats (  -- the seats of the game a host's New game replaced
    game_id TEXT NOT NULL,             -- that game: an Undo of the New game gives them back
    token   TEXT NOT NULL,
    player  TEXT NOT NULL,
    since   REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS host_sessions (
    token   TEXT PRIMARY KEY,          -- sha256 of the token in the host's session cookie
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS host_links (
    token   TEXT PRIMARY KEY,          -- sha256 of a one-time host link's token
    expires REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS seat_links (  -- a seat the host hands to one phone by a one-time link
    token   TEXT PRIMARY KEY,          -- sha256 of the link's token
    player  TEXT NOT NULL UNIQUE,      -- while the link lives, tapping the name does not take the seat
    expires REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS pin_failures (
    client   TEXT PRIMARY KEY,         -- "address|client id", "address|*" for the address, "*|*" for the table
    failures INTEGER NOT NULL,
    first    REAL NOT NULL,            -- time of the first failure of this streak
    last     REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS known_hosts (  -- client ids that gave the right PIN: others' guesses never hold them up
    client TEXT PRIMARY KEY,
    since  REAL NOT NULL
);
"""


class SeatKept(PermissionError):
    """The seat is kept for the phone that opens the host's seat link."""


class AccessError(CompanionError, OSError):
    """The access file cannot be read or written (disk full, read-only card): one line."""


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def wait_after(failures: int) -> float:
    """Seconds a client waits after `failures` wrong PINs in a row: 0, then 1, 2, 4 ... 3600."""
    if failures <= 0:
        return 0.0
    return min(2.0 ** (failures - 1), MAX_WAIT_S)


def load_secret_key(folder: str | Path) -> str:
    """The session-signing key in `folder/secret_key`, created once (mode 0600) if missing."""
    folder = Path(folder)
    path = folder / "secret_key"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            key = path.read_text(encoding="ascii").strip()
            if len(key) >= 32:
                return key
            raise AccessError(f"{path} is damaged (too short): delete it to make a new one "
                              "(phones then log in and take their seats again)") from None
        key = secrets.token_hex(32)
        with os.fdopen(fd, "w", encoding="ascii") as out:
            out.write(key + "\n")
            out.flush()
            os.fsync(out.fileno())
        return key
    except (OSError, UnicodeDecodeError) as exc:
        if isinstance(exc, AccessError):
            raise
        raise AccessError(f"cannot read or create the secret key {path}: {getattr(exc, 'strerror', None) or exc}") from None


class AccessStore:
    """Seats, host sessions, host links and PIN failures in SQLite (":memory:" for tests)."""

    def __init__(self, path: str | Path = ":memory:", clock: Callable[[], float] = time.time) -> None:
        self.path = str(path)
        self.clock = clock
        self._lock = threading.RLock()
        try:
            if self.path != ":memory:":
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
                # the host's session and link hashes and the phones' addresses: the owner's only,
                # as the secret key is (made so before SQLite writes to it)
                os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT, 0o600))
            self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False, timeout=10.0)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(_SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise AccessError(f"cannot open {self.path}: {exc}") from None

    def _run(self, what: str, sql: str, params: tuple = ()) -> list[tuple]:
        with self._lock:
            try:
                return self._db.execute(sql, params).fetchall()
            except sqlite3.Error as exc:
                raise AccessError(f"could not {what} ({self.path}: {exc}); nothing was changed") from None

    def _many(self, what: str, statements: list[tuple[str, tuple]]) -> None:
        """Several writes as one committed transaction."""
        with self._lock:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    for sql, params in statements:
                        self._db.execute(sql, params)
                    self._db.execute("COMMIT")
                except BaseException:
                    try:  # a full card's failed COMMIT has rolled back already: say the first error
                        self._db.execute("ROLLBACK")
                    except sqlite3.Error:
                        pass
                    raise
            except sqlite3.Error as exc:
                why = "the card is full" if "full" in str(exc) else str(exc)
                raise AccessError(f"could not {what} ({self.path}: {why}); nothing was changed") from None

    # -- seats ---------------------------------------------------------------------------

    def player_for(self, token: str | None) -> str | None:
        if not token:
            return None
        rows = self._run("read the seats", "SELECT player FROM seats WHERE token = ?", (_hash(token),))
        return rows[0][0] if rows else None

    def take_seat(self, player: str, token: str | None) -> str:
        """Bind `player` to the phone holding `token` (a new token if none); returns the token.
        Raises PermissionError if another phone holds the seat."""
        with self._lock:
            rows = self._run("read the seats", "SELECT token FROM seats WHERE player = ?", (player,))
            if rows and (token is None or rows[0][0] != _hash(token)):
                raise PermissionError(f"{player}'s seat is taken by another phone: the host can free it")
            if self._run("read the seat links", "SELECT 1 FROM seat_links WHERE player = ? AND expires >= ?",
                         (player, self.clock())):
                raise SeatKept(f"{player}'s seat is kept for the phone the host gives it to: "
                               "scan the seat link on the host's screen")
            token = token or secrets.token_urlsafe(24)
            self._many("take the seat", [("DELETE FROM seats WHERE token = ?", (_hash(token),)),
                                         ("INSERT INTO seats (token, player, since) VALUES (?, ?, ?)",
                                          (_hash(token), player, self.clock()))])
            return token

    def release_seat(self, player: str) -> bool:
        with self._lock:
            had = bool(self._run("read the seats", "SELECT 1 FROM seats WHERE player = ?", (player,)))
            self._many("free the seat", [("DELETE FROM seats WHERE player = ?", (player,))])
            return had

    def new_seat_link(self, player: str, ttl: float) -> str:
        """A one-time link that gives `player`'s seat to the phone that opens it within `ttl`
        seconds. The seat is freed now and kept for the link: a phone on the Wi-Fi that took a
        seat not its own cannot take it again by tapping the name (seats are first come)."""
        token = secrets.token_urlsafe(18)
        now = self.clock()
        self._many("make a seat link", [("DELETE FROM seat_links WHERE expires < ? OR player = ?", (now, player)),
                                        ("DELETE FROM seats WHERE player = ?", (player,)),
                                        # nor does an Undo of a New game give the seat back to that phone
                                        ("UPDATE kept_seats SET token = '' WHERE player = ?", (player,)),
                                        ("INSERT INTO seat_links (token, player, expires) VALUES (?, ?, ?)",
                                         (_hash(token), player, now + ttl))])
        return token

    def use_seat_link(self, link: object, token: str | None) -> tuple[str, str] | None:
        """The seat a live seat link gives, bound to the phone holding `token` (a new token if
        none): (player, token). None when the link is unknown, used or out of date; it is used up
        either way. The phone leaves any seat it held: one phone, one seat."""
        if not isinstance(link, str) or not link or len(link) > 100:
            return None
        with self._lock:
            rows = self._run("read the seat links", "SELECT player, expires FROM seat_links WHERE token = ?",
                             (_hash(link),))
            if not rows:
                return None
            player, expires = rows[0]
            if self.clock() > float(expires):
                self._many("use the seat link", [("DELETE FROM seat_links WHERE token = ?", (_hash(link),))])
                return None
            token = token or secrets.token_urlsafe(24)
            self._many("take the seat", [("DELETE FROM seat_links WHERE token = ?", (_hash(link),)),
                                         ("DELETE FROM seats WHERE token = ? OR player = ?", (_hash(token), player)),
                                         # an Undo of a New game gives the seat back to this phone
                                         ("UPDATE kept_seats SET token = ? WHERE player = ?", (_hash(token), player)),
                                         ("INSERT INTO seats (token, player, since) VALUES (?, ?, ?)",
                                          (_hash(token), player, self.clock()))])
            return str(player), token

    def reset_seats(self, keep_for: str | None = None, players: "list[str] | None" = None) -> None:
        """Free the seats for a new game: all of them, or with `players` (the new game's) those
        of names not in it (the same people playing again keep their phones' seats). With
        `keep_for`, the game the new one replaced, its seats are kept for it on disk (`seats_back`
        gives them back, after a restart too); those kept for other games stay (New game twice,
        then Undo twice, gives each game its seats)."""
        keep = [("DELETE FROM kept_seats WHERE game_id = ?", (keep_for,)),
                ("INSERT INTO kept_seats (game_id, token, player, since) SELECT ?, token, player, since "
                 "FROM seats", (keep_for,))] if keep_for is not None else []
        names = tuple(players or ())
        marks = ", ".join("?" * len(names))
        free = [(f"DELETE FROM {table} WHERE player NOT IN ({marks})", names) if names else (f"DELETE FROM {table}", ())
                for table in ("seats", "seat_links")]  # a link kept for a name no longer playing dies
        # the seats of the last KEPT_GAMES games replaced are kept (an Undo goes back one or two):
        # an evening of new games grew the file by a table's seats each
        prune = [("DELETE FROM kept_seats WHERE game_id NOT IN (SELECT game_id FROM kept_seats "
                  "GROUP BY game_id ORDER BY MAX(rowid) DESC LIMIT ?)", (KEPT_GAMES,))]
        self._many("free the seats", keep + free + prune)

    def seats_back(self, game_id: str) -> bool:
        """The seats kept for `game_id` back with the same phones (the new game that freed them
        was undone); False, changing nothing, when none were kept for it."""
        with self._lock:
            if not self._run("read the kept seats", "SELECT 1 FROM kept_seats WHERE game_id = ?", (game_id,)):
                return False
            self._many("put the seats back", [
                ("DELETE FROM seats", ()),
                ("INSERT INTO seats (token, player, since) SELECT token, player, since FROM kept_seats "
                 "WHERE game_id = ?", (game_id,)),
                ("DELETE FROM kept_seats WHERE game_id = ?", (game_id,))])
            return True

    def taken(self) -> list[str]:
        return sorted(p for (p,) in self._run("read the seats", "SELECT player FROM seats"))

    # -- host sessions and links --------------------------------------------------------

    def new_host_session(self) -> str:
        token = secrets.token_urlsafe(24)
        self._many("log the host in", [("INSERT INTO host_sessions (token, created) VALUES (?, ?)",
                                        (_hash(token), self.clock()))])
        return token

    def host_session_ok(self, token: object, max_age: float) -> bool:
        if not isinstance(token, str) or not token:
            return False
        rows = self._run("read the host sessions", "SELECT created FROM host_sessions WHERE token = ?", (_hash(token),))
        return bool(rows) and self.clock() - float(rows[0][0]) <= max_age

    def end_host_session(self, token: object) -> None:
        if isinstance(token, str) and token:
            self._many("log the host out", [("DELETE FROM host_sessions WHERE token = ?", (_hash(token),))])

    def new_host_link(self, ttl: float) -> str:
        """A one-time token for a host link, valid `ttl` seconds."""
        token = secrets.token_urlsafe(18)
        now = self.clock()
        self._many("make a host link", [("DELETE FROM host_links WHERE expires < ?", (now,)),
                                        ("INSERT INTO host_links (token, expires) VALUES (?, ?)",
                                         (_hash(token), now + ttl))])
        return token

    def use_host_link(self, token: object) -> bool:
        """Whether `token` is a live host link; it is used up either way."""
        if not isinstance(token, str) or not token or len(token) > 100:
            return False
        with self._lock:
            rows = self._run("read the host links", "SELECT expires FROM host_links WHERE token = ?", (_hash(token),))
            if not rows:
                return False
            self._many("use the host link", [("DELETE FROM host_links WHERE token = ?", (_hash(token),))])
            return self.clock() <= float(rows[0][0])

    # -- wrong-PIN back-off -------------------------------------------------------------

    def _failures(self, key: str) -> tuple[int, float, float] | None:
        rows = self._run("read the PIN failures", "SELECT failures, first, last FROM pin_failures WHERE client = ?", (key,))
        if not rows:
            return None
        failures, first, last = rows[0]
        # a streak stamped in the future is one the clock was set back from (a Pi with no clock
        # battery): its wait would be years, for the host too. Forgotten, as a quiet day's is.
        if not -CLOCK_SLACK_S <= self.clock() - float(last) <= STREAK_FORGET_S:
            return None
        return int(failures), float(first), float(last)

    def wait_for(self, address: str, client: str) -> float:
        """Seconds the client (address + client id) must wait before its next PIN; 0 when it
        may try now. Its own wrong PINs count, and unless it gave the right PIN before (the
        host's own browser), so do its address's and, past TABLE_FREE, the whole table's: a
        guesser's cookies made before its streak began, or many addresses, wait as one (a
        cookie's age once exempted it: collecting cookies first was the way round)."""
        now = self.clock()
        wait = 0.0
        own = self._failures(f"{address}|{client}")
        if own is not None:
            wait = max(wait, own[2] + wait_after(own[0]) - now)
        if self._run("read the known hosts", "SELECT 1 FROM known_hosts WHERE client = ?", (client,)):
            return max(0.0, wait)
        shared = self._failures(f"{address}|*")
        if shared is not None:
            wait = max(wait, shared[2] + wait_after(shared[0]) - now)
        table = self._failures("*|*")
        if table is not None:
            wait = max(wait, table[2] + wait_after(table[0] - TABLE_FREE) - now)
        return max(0.0, wait)

    def failed(self, address: str, client: str) -> None:
        now = self.clock()
        statements = []
        for key in (f"{address}|{client}", f"{address}|*", "*|*"):
            row = self._failures(key)
            if row is None:
                statements.append(("INSERT OR REPLACE INTO pin_failures (client, failures, first, last) "
                                   "VALUES (?, 1, ?, ?)", (key, now, now)))
            else:
                statements.append(("UPDATE pin_failures SET failures = failures + 1, last = ? WHERE client = ?",
                                   (now, key)))
        self._many("count the wrong PIN", statements)

    def succeeded(self, address: str, client: str) -> None:
        """The right PIN: the streaks of this client, its address and the table end (the typos
        before it were the table's own; a guesser's start again from there), and this client
        is a known host from now on."""
        self._many("clear the wrong PINs", [
            ("DELETE FROM pin_failures WHERE client IN (?, ?, '*|*')", (f"{address}|{client}", f"{address}|*")),
            ("INSERT OR REPLACE INTO known_hosts (client, since) VALUES (?, ?)", (client, self.clock()))])

    def close(self) -> None:
        with self._lock:
            self._db.close()
