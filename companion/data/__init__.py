"""Data files shipped with the package (a package so that they install with it)."""
from __future__ import annotations

from pathlib import Path

DATA_DIR = Path(__file__).resolve().parent
# A full game of three players over two hands: wilds, a challenge, UNO calls and catches,
# an illegal play taken back, scoring by reveal and by points, game over.
EXAMPLE_LOG = DATA_DIR / "example.jsonl"
