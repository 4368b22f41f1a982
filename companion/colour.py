"""The colour of a card read from its pixels, as a check on the model's colour.

UNO colours are four saturated hues, so the hue of the saturated pixels names the colour.
White balance is corrected first from the crop's brightest pixels (the card's white border
and oval), because a warm lamp or a green-ish webcam moves every hue the same way. A box
around a card also holds table, hand and neighbours, so pixels near the centre count more,
and only strongly saturated pixels vote (skin and wood are not).
"""
from __future__ import annotations

import cv2
import numpy as np

from companion.cards import COLORS
from companion.errors import CompanionError

# OpenCV hue (0..179) ranges of the printed colours, measured on real photos of both designs
# (medians: red 177/3, yellow 27, green 68-75, blue 100-106); orange and purple vote for none.
_HUE_RANGES: dict[str, tuple[tuple[int, int], ...]] = {
    "red": ((0, 11), (160, 180)),
    "yellow": ((16, 41),),
    "green": ((44, 89),),
    "blue": ((89, 131),),
}
_MAX_SIDE = 96  # colour needs no detail; a small copy keeps this about a millisecond
_MIN_COVERAGE = 0.04  # centre-weighted share of coloured pixels below which nothing is said
_MIN_SHARE = 0.55  # the dominant colour's share among coloured pixels needed to name it
# Brightest pixels tinted more than this are card colour, not white light. A hazy webcam's
# cyan cast on the white disc reaches about 1.5 (set-b close-ups), and a card body pale
# enough to stay under 1.55 is too washed out to vote anyway.
_MAX_CAST = 1.55


def _as_bgr(crop: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    if not isinstance(crop, np.ndarray) or crop.ndim not in (2, 3):
        raise CompanionError("card_colour needs a BGR image array")
    if crop.ndim == 2:
        return cv2.cvtColor(crop, cv2.COLOR_GRAY2BGR), None
    if crop.shape[2] == 4:  # BGRA: the transparent corners are not card
        return np.ascontiguousarray(crop[:, :, :3]), crop[:, :, 3] > 127
    if crop.shape[2] != 3:
        raise CompanionError(f"card_colour needs 3 or 4 channels, not {crop.shape[2]}")
    return crop, None


def _white_balance(img: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Scale channels so the brightest pixels (the card's white) become neutral."""
    pixels = img[mask].reshape(-1, 3).astype(np.float32)
    if len(pixels) < 16:
        return img
    luma = pixels.sum(axis=1)
    bright = pixels[luma >= np.percentile(luma, 90)]
    white = bright.mean(axis=0) + 1e-3
    # A crop of only a yellow or red body has no white in it: leave such a crop alone.
    if white.max() / white.min() > _MAX_CAST or white.max() < 60:
        return img
    gains = np.clip(white.mean() / white, 0.6, 1.7)
    return np.clip(img.astype(np.float32) * gains, 0, 255).astype(np.uint8)


def _votes(bgr_crop: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The crop (shrunk) as hue, each pixel's strength as a vote for a printed colour
    (0..1: saturated, not dark, not skin-like) and the mask of its card pixels."""
    img, alpha = _as_bgr(bgr_crop)
    h, w = img.shape[:2]
    scale = _MAX_SIDE / max(h, w)
    if scale < 1:
        size = (max(1, round(w * scale)), max(1, round(h * scale)))
        img = cv2.resize(img, size, interpolation=cv2.INTER_AREA)
        if alpha is not None:
            alpha = cv2.resize(alpha.astype(np.uint8), size, interpolation=cv2.INTER_NEAREST) > 0
        h, w = img.shape[:2]
    mask = alpha if alpha is not None else np.ones((h, w), bool)
    img = _white_balance(img, mask)
    hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV)
    hue = hsv[:, :, 0].astype(np.int16)
    sat = hsv[:, :, 1].astype(np.float32) / 255
    val = hsv[:, :, 2].astype(np.float32) / 255
    # A washed-out webcam frame leaves the card's colour barely saturated: the bar for a
    # coloured pixel follows the picture's own saturation (down to a floor).
    lo = min(0.32, max(0.14, float(np.percentile(sat, 95)) * 0.4))
    strength = np.clip((sat - lo) / 0.25, 0, 1) * np.clip((val - 0.18) / 0.2, 0, 1)
    # Skin (fingers and faces around a held card) is an orange-red of middling saturation,
    # or a pink-red of lower saturation; printed red is far more saturated (at least 0.52
    # even in set-b's hazy webcam frames), so such pixels barely vote.
    skin = ((hue >= 4) & (hue < 22) & (sat < 0.62)) | (((hue < 4) | (hue >= 170)) & (sat < 0.45))
    strength = np.where(skin, strength * 0.15, strength)
    return hue, strength * mask, mask


def colour_shares(bgr_crop: np.ndarray) -> tuple[dict[str, float], float]:
    """Each colour's share among the crop's coloured pixels, and the coloured coverage
    (both centre-weighted; shares sum to 1, or are all 0 when nothing is coloured)."""
    hue, strength, mask = _votes(bgr_crop)
    h, w = hue.shape
    ys = (np.arange(h, dtype=np.float32) - (h - 1) / 2) / max(h, 1)
    xs = (np.arange(w, dtype=np.float32) - (w - 1) / 2) / max(w, 1)
    centre = np.exp(-(ys[:, None] ** 2 + xs[None, :] ** 2) / (2 * 0.3**2))
    centre *= mask
    weights = centre * strength
    total_centre = float(centre.sum()) or 1.0
    coverage = float(weights.sum()) / total_centre
    sums = {}
    for colour in COLORS:
        in_range = np.zeros((h, w), bool)
        for lo, hi in _HUE_RANGES[colour]:
            in_range |= (hue >= lo) & (hue < hi)
        sums[colour] = float(weights[in_range].sum())
    total = sum(sums.values())
    shares = {c: (s / total if total > 0 else 0.0) for c, s in sums.items()}
    return shares, coverage


def printed_colour(bgr_crop: np.ndarray) -> float:
    """The share of the crop (anywhere in it, not centre-weighted) that is printed colour.
    Every wild carries some (the four-colour oval, the coloured little cards, the
    customizable card's corner badges); a black phone or headphones carry none."""
    _, strength, mask = _votes(bgr_crop)
    return float(strength.sum()) / max(1.0, float(mask.sum()))


def card_colour(bgr_crop: np.ndarray) -> tuple[str | None, float]:
    """Return (colour, share): the card's colour and the share of its coloured pixels that
    agree, or (None, 0.0) for a wild, a black card, or a picture too dull or small to tell.

    >>> card_colour(np.full((40, 30, 3), (40, 40, 220), np.uint8))[0]
    'red'
    """
    if isinstance(bgr_crop, np.ndarray) and (bgr_crop.size == 0 or min(bgr_crop.shape[:2]) < 2):
        return None, 0.0
    shares, coverage = colour_shares(bgr_crop)
    best = max(shares, key=shares.__getitem__)
    share = shares[best]
    if coverage < _MIN_COVERAGE or share < _MIN_SHARE:
        return None, 0.0
    return best, round(float(share), 3)
