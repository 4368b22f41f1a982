"""Shared fixtures. Every test runs offline: ultralytics must never try the network."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("YOLO_OFFLINE", "true")

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"


@pytest.fixture
def repo_root() -> Path:
    return REPO


@pytest.fixture
def shared_dir() -> Path:
    if not SHARED.is_dir():
        pytest.skip("../shared is not beside the repository")
    return SHARED


def _damaged_store(path: Path) -> str:
    """A store of 400 events whose file then has one page overwritten (it fails SQLite's
    quick_check but can still be opened read-only); returns its game id."""
    from companion.referee.store import EventStore

    store = EventStore(path)
    game = store.new_game()
    for _ in range(400):
        store.append(game, {"type": "draw", "note": "x" * 200}, True)
    store._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    with open(path, "r+b") as f:
        f.seek(4096 * 5 + 10)
        f.write(b"\xff" * 300)
    return game


@pytest.fixture
def damaged_store():
    """Makes a damaged store at a path: `damaged_store(path) -> game id`."""
    return _damaged_store
