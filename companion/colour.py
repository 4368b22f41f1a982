"""The colour of a card read from its pixels, as a check on the model's colour.

UNO colours are four saturated hues, so the hue of the saturated pixels names the colour.
White balance is corrected first from the card's own white parts (border, oval), because a
warm lamp or a blue-ish webcam moves every hue the same way.
"""
from __future__ import annotations

import cv2
import numpy as np

# OpenCV hue is 0..180. Boundaries between the four printed colours.
_HUE_BINS = (
    ("red", (0, 9)),
    ("yellow", (16, 38)),
    ("green", (40, 88)),
    ("blue", (90, 132)),
    ("red", (160, 181)),
)


def _white_balance(bgr: np.ndarray) -> np.ndarray:
    f = bgr.astype(np.float32)
    hsv = cv2.cvtColor(bgr, cv2.COLOR_BGR2HSV)
    s, v = hsv[:, :, 1], hsv[:, :, 2]
    candidates = (s < 70) & (v > np.percentile(v, 60))
    if candidates.sum() < 0.03 * v.size:
        return bgr
    ref = f[candidates].reshape(-1, 3).mean(axis=0)
    gains = ref.mean() / np.maximum(ref, 1.0)
    gains = np.clip(gains, 0.6, 1.6)
    return np.clip(f * gains[None, None, :], 0, 255).astype(np.uint8)


def card_colour(bgr_crop: np.ndarray) -> tuple[str | None, float]:
    """Return (colour, confidence): the card's colour and the share of its saturated pixels
    that agree, or (None, share) for a wild, a black card or a picture too dull to tell."""
    if bgr_crop is None or bgr_crop.size == 0 or bgr_crop.ndim != 3:
        return None, 0.0
    h, w = bgr_crop.shape[:2]
    if max(h, w) > 160:  # enough pixels to vote; faster
        k = 160 / max(h, w)
        bgr_crop = cv2.resize(bgr_crop, (max(1, int(w * k)), max(1, int(h * k))), interpolation=cv2.INTER_AREA)
    balanced = _white_balance(bgr_crop)
    hsv = cv2.cvtColor(balanced, cv2.COLOR_BGR2HSV)
    hue, sat, val = hsv[:, :, 0], hsv[:, :, 1].astype(np.int32), hsv[:, :, 2].astype(np.int32)
    coloured = (sat > 90) & (val > 70)
    n = int(coloured.sum())
    if n < 0.04 * hue.size:
        return None, 0.0
    votes: dict[str, int] = {}
    hues = hue[coloured]
    for name, (lo, hi) in _HUE_BINS:
        votes[name] = votes.get(name, 0) + int(((hues >= lo) & (hues < hi)).sum())
    best = max(votes, key=votes.__getitem__)
    share = votes[best] / n
    if share < 0.55:
        return None, share
    return best, share
