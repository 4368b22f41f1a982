"""The colour of a card: a learned colour reader, and the printed-colour test for wilds.

A fixed table of hues named colours right for the cameras it was measured on and wrong for
the next (a webcam that prints green as olive named every green card yellow). The colour is
now read by a small classifier (`ColourReader`, models/uno-cards-colour.onnx) trained on
rendered scenes under random cameras and lights (colourcrops.py, photometric.py), from the
same square crop the card reader sees. Where one table's camera is beyond what it learned,
a per-table calibration (calibration.py) corrects it.

`printed_colour` says how much of a box is printed colour at all (every wild carries some;
a black phone or headphones carry none): saturation, not hue, so no camera's hues matter.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Sequence

import cv2
import numpy as np

from companion.vision.crops import COLOUR_CLASSES, COLOUR_SIZE, colour_input
from companion.errors import CompanionError

_MAX_SIDE = 96  # the printed-colour test needs no detail; a small copy keeps it about a millisecond
# Brightest pixels tinted more than this are card colour, not white light (a crop of only a
# yellow or red body): the printed-colour test then leaves the crop's balance alone.
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


class ColourReader:
    """Names the colour of the card in each square crop: `probabilities(crops)` gives one row
    of `COLOUR_CLASSES` probabilities per crop (the card reader's crops, any size)."""

    def __init__(self, weights: str | Path | None = None) -> None:
        from companion.vision.reader import COLOUR_STEM, CardReader, default_reader_weights

        path = Path(weights) if weights else default_reader_weights(COLOUR_STEM)
        if path is None:
            raise CompanionError(f"colour reader not found: models/{COLOUR_STEM}.onnx "
                                 "(train one with `uno-companion train --colour`)")
        # A colour is the same turned: one view is enough.
        self._reader = CardReader(path, turns=(0,), classes=COLOUR_CLASSES, size=COLOUR_SIZE, what="colour reader")
        self.path = self._reader.path
        self.names = list(self._reader.names)
        self._order = [self.names.index(c) for c in COLOUR_CLASSES]

    def probabilities(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        """(n, 4) probabilities in `COLOUR_CLASSES` order."""
        if not len(crops):
            return np.zeros((0, len(COLOUR_CLASSES)), np.float32)
        small = [colour_input(_as_bgr(c)[0]) for c in crops]
        return self._reader.probabilities(small)[:, self._order]


# A wild prints four colours, a number or an action one, so how sure the colour reader is of one
# colour says which a box more likely holds. P(wild | x) = 1 / (1 + exp(-(a + b x))), x = log(1 -
# the reader's top probability + 1e-4), fitted (`WILD_ODDS` = a, b) on the boxes the shipped
# detector found on synthetic scenes of wilds and coloured cards under random cameras and lights,
# no photo (`uno-companion train --wild-odds --images 2400 --seed 5`; models/HISTORY.md, "the wild odds").
# `WILD_SHARE`, the wilds' share of those boxes, takes the fit's own base rate back out: what is
# left is a likelihood ratio, the same whatever share of a table's cards are wilds. Refit it
# whenever the colour reader changes. `weigh_wilds` uses it only to lower the wilds (capped at 1):
# the fit saw boxes of cards only, and a box of no card (a honeycomb table's cell) or a card half
# in view reads unsure of every colour too, which the uncapped ratio lifted into "wilds".
WILD_ODDS = (2.484, 0.814)
WILD_SHARE = 0.441


def wild_likelihood(colour_read: np.ndarray) -> float:
    """How many times likelier a box is to hold a wild than a coloured card, given the colour
    reader's probabilities for it (below 1: it reads as one colour surely)."""
    a, b = WILD_ODDS
    x = float(np.log(1.0 - float(np.max(colour_read)) + 1e-4))
    return float(np.exp(a + b * x - np.log(WILD_SHARE / (1.0 - WILD_SHARE))))


def weigh_wilds(symbols: np.ndarray, names: Sequence[str], colour_read: np.ndarray) -> np.ndarray:
    """The card reader's symbol probabilities with the wilds' weighed down by `wild_likelihood`
    (never up: at most 1) against the numbers and actions ("none" left as it is), made to sum to
    one again."""
    from companion.referee.cards import CARD_NAMES

    wild = np.array([n in CARD_NAMES for n in names])
    weighed = np.where(wild, symbols * min(1.0, wild_likelihood(colour_read)), symbols)
    return weighed / weighed.sum()


@lru_cache(maxsize=1)
def default_colour_reader() -> ColourReader:
    """The shipped colour reader, loaded once."""
    return ColourReader()


def card_colour(bgr_crop: np.ndarray, reader: ColourReader | None = None) -> tuple[str | None, float]:
    """(colour, probability) of the card filling the crop, read by the colour reader (the
    shipped one unless `reader` is given); (None, 0.0) for a picture too small to tell.
    It does not say whether the card is a wild: the card reader does.

    >>> from companion.synth.render import render_card
    >>> card_colour(render_card("red_5", "classic", 120))[0]
    'red'
    """
    if not isinstance(bgr_crop, np.ndarray) or bgr_crop.size == 0 or min(bgr_crop.shape[:2]) < 2:
        if isinstance(bgr_crop, np.ndarray):
            return None, 0.0
        raise CompanionError("card_colour needs a BGR image array")
    p = (reader or default_colour_reader()).probabilities([bgr_crop])[0]
    k = int(p.argmax())
    return COLOUR_CLASSES[k], round(float(p[k]), 3)


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


def printed_colour(bgr_crop: np.ndarray) -> float:
    """The share of the crop (anywhere in it, not centre-weighted) that is printed colour.
    Every wild carries some (the four-colour oval, the coloured little cards, the
    customizable card's corner badges); a black phone or headphones carry none."""
    _, strength, mask = _votes(bgr_crop)
    return float(strength.sum()) / max(1.0, float(mask.sum()))


__all__ = ["ColourReader", "default_colour_reader", "card_colour", "printed_colour", "wild_likelihood", "weigh_wilds",
           "WILD_ODDS", "WILD_SHARE", "COLOUR_CLASSES"]
