"""The crops both readers see at run time, cut the same way in training (`companion.synth`).

A found card's box, grown by `RUNTIME_MARGIN` and stretched to a `READER_SIZE` square
(`crop_square`), is what the card reader names (one of `SYMBOL_CLASSES`, or `NONE`); the same
square shrunk to `COLOUR_SIZE` (`colour_input`) is what the colour reader names (one of
`COLOUR_CLASSES`). `corner_squares` are where a card's corner indices print.
"""
from __future__ import annotations

import cv2
import numpy as np

from companion.referee.cards import CARD_NAMES, COLORS, THEMED_NAMES, parse_card

NONE = "none"
SYMBOL_CLASSES: tuple[str, ...] = tuple(sorted(
    {parse_card(n).symbol for n in CARD_NAMES} | {NONE}))

READER_SIZE = 128
RUNTIME_MARGIN = 0.08  # the reader sees a detector box grown by this much on each side


def box_area(box) -> float:
    """The area of a box (x1, y1, x2, y2)."""
    return (box[2] - box[0]) * (box[3] - box[1])


def median_area(boxes) -> float:
    """The median area of some boxes: a card's size on a pile, which a corner or an arm is not."""
    return float(np.median([box_area(b) for b in boxes]))


def box_intersection(a, b) -> float:
    """The area two boxes (x1, y1, x2, y2) share."""
    return max(0.0, min(a[2], b[2]) - max(a[0], b[0])) * max(0.0, min(a[3], b[3]) - max(a[1], b[1]))


def box_iou(a, b) -> float:
    """Intersection over union of two boxes (x1, y1, x2, y2)."""
    inter = box_intersection(a, b)
    union = box_area(a) + box_area(b) - inter
    return inter / union if union > 0 else 0.0


def label_box(x: float, y: float, bw: float, bh: float, w: int, h: int) -> tuple[float, float, float, float]:
    """A YOLO label's box (centre and size, fractions of the picture) in pixels of a w x h picture."""
    return (x - bw / 2) * w, (y - bh / 2) * h, (x + bw / 2) * w, (y + bh / 2) * h


def crop_square(img: np.ndarray, box: tuple[float, float, float, float], margin: float | tuple[float, ...] = RUNTIME_MARGIN,
                size: int = READER_SIZE) -> np.ndarray:
    """The box grown by `margin` (a fraction of its size; one value or left, top, right,
    bottom), clipped to the picture and stretched to size x size."""
    h, w = img.shape[:2]
    x1, y1, x2, y2 = box
    bw, bh = max(1.0, x2 - x1), max(1.0, y2 - y1)
    ml, mt, mr, mb = (margin,) * 4 if isinstance(margin, (int, float)) else margin
    xa, ya = int(max(0, x1 - ml * bw)), int(max(0, y1 - mt * bh))
    xb, yb = int(min(w, x2 + mr * bw)), int(min(h, y2 + mb * bh))
    if xb - xa < 2 or yb - ya < 2:
        xa, ya, xb, yb = 0, 0, w, h
    return cv2.resize(img[ya:yb, xa:xb], (size, size), interpolation=cv2.INTER_AREA)


def corner_squares(box: tuple[float, float, float, float], size: float = 0.45) -> list[tuple[float, float, float, float]]:
    """A box's four corner squares (top-left, top-right, bottom-right, bottom-left), each
    `size` of the box's shorter side: where a card's corner indices are when it lies square
    to the picture (a card cut off by the picture's edge keeps them in any of the four)."""
    x1, y1, x2, y2 = box
    s = min(x2 - x1, y2 - y1) * size
    return [(x1, y1, x1 + s, y1 + s), (x2 - s, y1, x2, y1 + s), (x2 - s, y2 - s, x2, y2), (x1, y2 - s, x1 + s, y2)]


COLOUR_SIZE = 64  # colour needs no detail; a small input keeps the reader about a millisecond
COLOUR_CLASSES: tuple[str, ...] = tuple(COLORS)
# What the themed reader names (decks beyond the classic: UNO Flip's faces, the other themed
# cards): each themed card by its whole name, `CLASSIC` for a classic face (the symbol and
# colour readers name it) and `NONE` for no card.
CLASSIC = "classic"
THEMED_CLASSES: tuple[str, ...] = tuple(sorted(THEMED_NAMES)) + (CLASSIC, NONE)


def colour_input(crop: np.ndarray) -> np.ndarray:
    """A card reader's square crop as the colour reader sees it (COLOUR_SIZE square)."""
    return cv2.resize(crop, (COLOUR_SIZE, COLOUR_SIZE), interpolation=cv2.INTER_AREA)
