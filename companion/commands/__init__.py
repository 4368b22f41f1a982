"""One module per `uno-companion` command (see companion/cli.py)."""
from __future__ import annotations

import argparse
import os
from pathlib import Path


def quiet_opencv() -> None:
    """OpenCV's and FFmpeg's own logs (a dozen lines for each try of a camera that cannot be
    opened, "moov atom not found") stay quiet: the command says the camera's state in one line.
    Call it before cv2 is first imported: OpenCV reads these once."""
    os.environ.setdefault("OPENCV_LOG_LEVEL", "OFF")
    os.environ.setdefault("OPENCV_VIDEOIO_DEBUG", "0")
    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")


def add_store_arguments(parser: argparse.ArgumentParser, created: bool = False) -> None:
    """--db and --config for a command that reads or writes the table's event store."""
    parser.add_argument(
        "--db", type=Path, default=None,
        help="event store" + (", created if missing" if created else "")
        + " (default: the configuration's `db`, else $UNO_COMPANION_DB or ~/.local/share/uno-companion/games.db)",
    )
    parser.add_argument("--config", type=Path, default=None,
                        help="the configuration whose `db` names the store (default: the usual place)")


def store_path(args: argparse.Namespace) -> Path:
    """The store `run` uses: --db, else the configuration's `db`, else the default. A league
    opened from the command line must land where the table stores its games."""
    if args.db is not None:
        return Path(args.db).expanduser().resolve()  # a symlink's backups are the file's own
    from companion.config import load_config

    return load_config(args.config).db_path


def stored_at(path: Path) -> Path:
    """`path` if it holds an event store, else a one-line StoreError: a command that only reads
    must not make a store of a missing or empty file (SQLite takes an empty file as a new one)."""
    from companion.referee.store import StoreError

    if not path.is_file() or path.stat().st_size == 0:
        what = f"an empty file at {path}, not an event store" if path.is_file() else f"no event store at {path}"
        # (the order the store is found in: --db, the configuration's `db`, the variable)
        raise StoreError(f"{what} (use --db PATH; else the configuration's `db`, else $UNO_COMPANION_DB names it)")
    return path
