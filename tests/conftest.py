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
