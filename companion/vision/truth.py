"""A table video's truth (the table log a generated or labelled video comes with, one JSON
line per event, each with its video time `t`), and `TruthDetector`: the perfect recognizer
made from it.

`watch --fake-truth`, `run --demo` and `bench-watch` feed frames to the watcher through
`TruthDetector` instead of the model; the videos and their truth are made by
`companion.synth.tablevideo` (`make-video`), which writes them with `write_truth`.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

import numpy as np

from companion.errors import InputFileError


def truth_path(video: str | Path) -> Path:
    """The truth file beside a video: OUT.mp4 -> OUT.jsonl."""
    return Path(video).with_suffix(".jsonl")


def write_truth(path: Path, lines: list[dict]) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        for line in lines:
            fh.write(json.dumps(line) + "\n")


def read_truth(path: str | Path) -> list[dict]:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputFileError(f"cannot read truth file {str(path)!r}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:  # a picture or a video named by mistake
        raise InputFileError(f"truth file {str(path)!r} is not text: a JSON file was expected") from None
    lines = []
    for k, raw in enumerate(text.splitlines(), 1):
        if raw.strip():
            try:
                lines.append(json.loads(raw))
            except (ValueError, RecursionError) as exc:
                why = exc.msg if isinstance(exc, json.JSONDecodeError) else "nested too deep"
                raise InputFileError(f"truth file {str(path)!r} line {k}: not JSON ({why})") from None
    return lines


def said_after(line: dict) -> list[dict]:
    """The phone lines a truth's card line holds besides the card: a wild's colour named in
    its `flip` or `play` line itself. The camera sees only the card, so at a table the player's
    phone says the colour right after it (the demo bot and bench-watch's referee do so)."""
    if line.get("type") in ("flip", "play") and line.get("color"):
        return [{"type": "color", "color": line["color"]}]
    return []


class TruthDetector:
    """A perfect recognizer from a video's truth: the top card of the pile and the revealed cards.

    It cannot see the frame's time, so whoever feeds frames sets `t` first (`watch
    --fake-truth` and `bench-watch` do). Cards lying under the top card are also reported, with
    lower confidence, as a real detector would see their corners.
    """

    def __init__(self, truth: Sequence[dict]):
        from companion.vision.detector import Detection

        self._Detection = Detection
        self.t = 0.0
        # (time, op, payload): the pile and the reveal area as they change
        self._ops: list[tuple[float, str, object]] = []
        for line in truth:
            kind = line.get("type")
            land = line.get("t_land", line.get("t", 0.0))
            if kind in ("flip", "play") and "box" in line:
                self._ops.append((land, "push", (line["card"], tuple(line["box"]))))
            elif kind == "take_back" and "t_land" in line:
                self._ops.append((land, "pop", None))
            elif kind == "deal":
                self._ops.append((line.get("t", 0.0) - 1e-6, "clear", None))
            elif kind == "reveal" and "boxes" in line:
                self._ops.append((land, "reveal", list(zip(line["cards"], map(tuple, line["boxes"])))))
                self._ops.append((line.get("t_clear", 1e9), "unreveal", None))
        self._ops.sort(key=lambda op: op[0])

    def detect(self, frame: np.ndarray) -> list:
        pile: list = []
        shown: list = []
        for when, op, payload in self._ops:
            if when > self.t + 1e-9:
                break
            if op == "push":
                pile.append(payload)
            elif op == "pop" and pile:
                pile.pop()
            elif op == "clear":
                pile = []
            elif op == "reveal":
                shown = list(payload)  # type: ignore[arg-type]
            elif op == "unreveal":
                shown = []
        D = self._Detection
        out = [D(card, 0.97, tuple(float(v) for v in box)) for card, box in shown]
        if pile:
            out.append(D(pile[-1][0], 0.96, tuple(float(v) for v in pile[-1][1])))
        if len(pile) > 1:
            out.append(D(pile[-2][0], 0.55, tuple(float(v) for v in pile[-2][1])))
        return sorted(out, key=lambda d: -d.confidence)
