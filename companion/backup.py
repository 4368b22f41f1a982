"""Rolling backups of the event store, and restoring one.

A season lives in one SQLite file on an SD card. After every finished hand the referee asks
for a backup: SQLite's online backup API copies a consistent picture of the store (while the
table goes on writing) into `backups/` beside it, as `games-20261121-201502.db`, and only the
newest KEEP are kept. `uno-companion restore` lists them and puts one back, keeping the file it
replaces as one more backup, and refuses while a companion has the store open.
"""
from __future__ import annotations

import fcntl
import logging
import os
import re
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from companion.errors import CompanionError

log = logging.getLogger(__name__)

KEEP = 20  # backups kept per store


class BackupError(CompanionError, OSError):
    exit_code = 2


def backup_folder(db: str | Path) -> Path:
    return Path(db).parent / "backups"


def list_backups(db: str | Path) -> list[Path]:
    """The backups of `db`, oldest first."""
    folder = backup_folder(db)
    if not folder.is_dir():
        return []
    mine = _named(db, r"\.db")
    return sorted((p for p in folder.glob(f"{Path(db).stem}-*.db") if p.is_file() and mine.match(p.name)),
                  key=lambda p: (_number(p), p.stat().st_mtime, p.name))


_NUMBER = re.compile(r"-\d{8}-\d{6}-n(\d{1,9})(?=[-.])")


def _number(path: Path) -> int:
    """A backup's number in the order they were made (0: one made before they were numbered).
    Not its time: a Pi with no clock battery starts some evenings earlier than the last, and
    ordered by time tonight's backups were the oldest, the first to be deleted."""
    m = _NUMBER.search(path.name)
    return int(m.group(1)) if m else 0


def _named(db: str | Path, ending: str) -> "re.Pattern[str]":
    """This store's backup file names ("games-20261121-201502.db" and its `ending`) only:
    "games-2025.db" keeps its own backups in the same folder."""
    return re.compile(rf"^{re.escape(Path(db).stem)}-\d{{8}}-\d{{6}}(-[^.]+)?{ending}$")


def describe(path: Path) -> dict[str, Any]:
    """What a backup holds: games, events, the newest game, and whether it reads back sound."""
    out: dict[str, Any] = {"name": path.name, "time": path.stat().st_mtime, "bytes": path.stat().st_size}
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            out["sound"] = [r[0] for r in db.execute("PRAGMA quick_check").fetchall()] == ["ok"]
            out["games"] = db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
            out["events"] = db.execute("SELECT COUNT(*) FROM events").fetchone()[0]
        finally:
            db.close()
    except sqlite3.Error as exc:
        out.update(sound=False, games=None, events=None, error=str(exc))
    return out


def _mark(db: Path) -> tuple[int, float]:
    """How many events a store (or a backup) holds and the newest one's time; (0, 0) if it
    cannot be read."""
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            count, newest = conn.execute("SELECT COUNT(*), COALESCE(MAX(time), 0) FROM events").fetchone()
            return int(count), float(newest)
        finally:
            conn.close()
    except sqlite3.Error:
        return 0, 0.0


def _copy(source: str | Path, target: Path, *, uri: bool = False) -> None:
    """A consistent copy of the SQLite file `source` into `target` (atomically: a temp file,
    fsync, rename), with the online backup API."""
    tmp = target.with_name(target.name + ".part")
    tmp.unlink(missing_ok=True)
    src = sqlite3.connect(str(source), uri=uri, timeout=10.0)
    try:
        dst = sqlite3.connect(str(tmp))
        try:
            src.backup(dst)
            dst.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
        finally:
            dst.close()
    finally:
        src.close()
    with open(tmp, "rb") as f:
        os.fsync(f.fileno())
    os.replace(tmp, target)
    try:
        fd = os.open(target.parent, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError:
        pass


def make_backup(db: str | Path, keep: int = KEEP, label: str = "") -> Path:
    """Back up `db` now; keep the newest `keep` backups. Raises BackupError in one line."""
    db = Path(db)
    folder = backup_folder(db)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    number = max((_number(p) for p in list_backups(db)), default=0) + 1
    name = f"{db.stem}-{stamp}-n{number}{'-' + label if label else ''}"
    target = folder / f"{name}.db"
    n = 1
    while target.exists():
        n += 1
        target = folder / f"{name}-{n}.db"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        _copy(f"file:{db}?mode=ro", target, uri=True)
    except (OSError, sqlite3.Error) as exc:
        target.with_name(target.name + ".part").unlink(missing_ok=True)
        raise BackupError(f"could not back up {db} into {folder}: {exc}") from None
    for old in list_backups(db)[:-keep] if keep > 0 else []:
        old.unlink(missing_ok=True)
    return target


class Backups:
    """Backs the store up in the background when asked (after each finished hand): one at a
    time, never holding up the referee; a failure is one log line and the table goes on."""

    def __init__(self, db: str | Path, keep: int = KEEP) -> None:
        self.db = Path(db)
        self.keep = keep
        self._wanted = threading.Event()
        self._lock = threading.Lock()
        self.made: list[Path] = []
        self.error = ""
        self._thread: threading.Thread | None = None

    def at_start(self) -> None:
        """At start, with the store's lock held (no backup can be under way): sweep copies a
        power cut left half-made (`.part`, never rotated away), and back up now if the store
        changed after its newest backup (the backup of the hand that ended as the power went)."""
        folder = backup_folder(self.db)
        if folder.is_dir():
            parts = _named(self.db, r"\.db\.part.*")
            for part in folder.glob(f"{self.db.stem}-*.db.part*"):
                if parts.match(part.name):
                    part.unlink(missing_ok=True)
        made = list_backups(self.db)
        # events the newest backup does not hold (opening the store touches its file, so
        # times say nothing): a restart with no play makes none; a store started anew and
        # still empty makes none either, so the newest stays the one to restore. A store with
        # events and no backup at all (games imported, no hand finished here yet) gets its first.
        mark = _mark(self.db) if self.db.is_file() else None
        if mark and mark[0] > 0 and (not made or mark != _mark(made[-1])):
            self.request()

    def request(self) -> None:
        self._wanted.set()
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="backup", daemon=True)
                self._thread.start()

    def _run(self) -> None:
        while self._wanted.is_set():
            self._wanted.clear()
            try:
                self.made.append(make_backup(self.db, self.keep))
                self.error = ""
            except BackupError as exc:
                self.error = str(exc)
                log.error("%s", exc)

    def wait(self, timeout: float = 30.0) -> None:
        """Until the backups asked for so far are made (for tests and shutdown)."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)


class StoreLock:
    """An exclusive lock on `<db>.lock` while a companion has the store open, so `restore`
    cannot swap the file under a running table, and on the store file itself, so a second
    companion cannot open it by another name."""

    def __init__(self, db: str | Path) -> None:
        # beside the file itself: two companions given the store by two paths (a symlink, a
        # relative path) take the one lock
        self.db = Path(db).expanduser().resolve()
        self.path = Path(str(self.db) + ".lock")
        self._fds: list[int] = []

    def acquire(self, create: bool = False) -> bool:
        """True once this process holds the store; False if another holds it. `create` makes an
        empty store file first (SQLite takes an empty file as a new store), so that one is
        held by its file too."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fds = [os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)]
        except OSError:
            return True  # a read-only folder: nothing can be restored there either
        try:
            # A hard link names the store's file from another folder, beside another `.lock`:
            # the file's own lock is one for every name. (flock, not SQLite's own POSIX locks,
            # which it does not touch; this descriptor stays open until the store is closed, so
            # closing it cannot drop SQLite's locks either.)
            fds.append(os.open(self.db, os.O_RDONLY | (os.O_CREAT if create else 0), 0o600))
        except OSError:
            pass  # no store file yet (restore on a missing store), or one this user cannot read
        for fd in fds:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                for f in fds:
                    os.close(f)
                return False
        self._fds = fds
        return True

    def release(self) -> None:
        """After the store is closed."""
        for fd in self._fds:
            os.close(fd)
        self._fds = []


def restore(db: str | Path, backup: Path) -> Path | None:
    """Put `backup` in place of `db` (which must not be in use); the replaced file is kept as
    a backup labelled `before-restore` when it can be read. Returns that backup's path."""
    db = Path(db)
    lock = StoreLock(db)
    if not lock.acquire():
        raise BackupError(f"{db} is in use by a running companion: stop it first (Ctrl-C), then restore")
    try:
        info = describe(backup)
        if not info.get("sound"):
            raise BackupError(f"{backup.name} does not read back sound ({info.get('error', 'quick_check failed')}): "
                              "choose another")
        kept = None
        if db.exists():
            try:
                kept = make_backup(db, keep=0, label="before-restore")
            except BackupError as exc:
                log.warning("the replaced store could not be kept (%s); restoring anyway", exc)
        tmp = db.with_name(db.name + ".restore")
        try:
            _copy(f"file:{backup}?mode=ro", tmp, uri=True)
            for suffix in ("-wal", "-shm"):
                Path(str(db) + suffix).unlink(missing_ok=True)
            os.replace(tmp, db)
        except (OSError, sqlite3.Error) as exc:
            tmp.unlink(missing_ok=True)
            raise BackupError(f"could not restore {backup.name} into {db}: {exc}") from None
        return kept
    finally:
        lock.release()
