"""Training data for the themed reader: crops of themed cards (UNO Flip's faces, discard two,
Super Mario's reflect, Harry Potter's Dementor) and of classic ones, under random cameras.

The themed reader names a found card by its whole name when it is a themed card, `classic`
when it is a face of the classic vocabulary (the symbol and colour readers name those, as for
a classic deck) and `none` for no card. Every scene is a rendered card laid on a small pile
(`scenes.pile_scene`, the cards beneath from the same deck), seen through a random camera and
light (`cardcrops.lit_scene`: mostly taken back to neutral light from the cards' white, as the
detector reads every card). No real photos of these decks exist here: rendered only.
"""
from __future__ import annotations

import random
from pathlib import Path
from typing import Callable

import cv2
import numpy as np

from companion.referee.cards import CARD_NAMES, THEMED_NAMES
from companion.synth.cardcrops import _close_up, _covered, _jitter_margin, empty_window, lit_scene, webcam_look
from companion.vision.crops import CLASSIC, NONE, THEMED_CLASSES, crop_square

# A share of the laid cards that are classic faces (the light side of a Flip deck is mostly
# classic numbers and actions): enough for the reader to tell them apart from the themed ones.
CLASSIC_SHARE = 0.3

_BANKS: dict[tuple[int, int], object] = {}


def themed_bank(seed: int, variants: int = 3):
    """Rendered faces of the classic and the themed vocabulary, `variants` printings each."""
    from companion.synth.render import DESIGNS, render_card
    from companion.synth.scenes import FaceBank

    bank = FaceBank(seed=seed, variants=variants)
    rnd = random.Random(seed + 1)
    for name in THEMED_NAMES:
        for design in DESIGNS:  # themed faces have one design: each key holds its own printings
            bank.faces[(name, design)] = [render_card(name, design, 300, rng=random.Random(rnd.random()) if v else None)
                                          for v in range(variants)]
    return bank


def _scene_batch(seed: int, start: int, count: int, webcam_share: float, variants: int = 3) -> list[tuple[str, bytes]]:
    """(class, JPEG bytes) of the crops of scenes start..start+count-1 (one worker's share)."""
    from companion.synth.scenes import pile_scene

    if (seed, variants) not in _BANKS:
        _BANKS[(seed, variants)] = themed_bank(seed, variants)
    bank = _BANKS[(seed, variants)]
    out = []
    for i in range(start, start + count):
        rng = np.random.default_rng(seed * 1_000_003 + 50_000_000 + i)
        rnd = random.Random(seed * 1_000_003 + 7 + i)
        classic = rnd.random() < CLASSIC_SHARE
        top = rnd.choice(CARD_NAMES) if classic else rnd.choice(THEMED_NAMES)
        below = CARD_NAMES if rnd.random() < 0.5 else THEMED_NAMES
        img, box = pile_scene(rng, bank, top, below=below)  # type: ignore[arg-type]
        img = lit_scene(img, [box], rnd)
        label = CLASSIC if classic else top
        crops = [(label, crop_square(img, box, _jitter_margin(rnd)))]
        if rnd.random() < 0.2:
            crops.append((label, crop_square(img, _close_up(box, rnd), 0.0)))
        if rnd.random() < 0.15:  # a window with no card in it: the finder's false boxes
            h, w = img.shape[:2]
            empty = empty_window(w, h, rnd, 0.5, lambda cand: _covered(cand, box) < 0.02 and _covered(box, cand) < 0.02)
            if empty is not None:
                crops.append((NONE, crop_square(img, empty, 0.0)))
        for label, crop in crops:
            if rnd.random() < webcam_share:
                crop = webcam_look(crop, rnd)
            # turned a quarter or half turn: the same card (a mirrored one is not)
            crop = np.ascontiguousarray(np.rot90(crop, rnd.choices((0, 1, 2, 3), (0.4, 0.15, 0.3, 0.15))[0]))
            ok, buf = cv2.imencode(".jpg", crop, [cv2.IMWRITE_JPEG_QUALITY, 93])
            out.append((label, buf.tobytes()))
    return out


def write_themed_dataset(out: Path, scenes: int, seed: int = 0, val_share: float = 0.06, jobs: int = 1,
                         progress: Callable[[int], None] | None = None, webcam_share: float = 0.3,
                         variants: int = 3) -> Path:
    """Write an ultralytics classification folder (train/<class>/, val/<class>/) of the crops
    of `scenes` generated piles (faces in `variants` printings), on `jobs` processes (the same
    data for any `jobs`)."""
    from companion.synth.classfolder import write_class_folder

    return write_class_folder(out, THEMED_CLASSES, scenes, seed, _scene_batch, (webcam_share, variants), val_share,
                              jobs, progress)


__all__ = ["CLASSIC_SHARE", "themed_bank", "write_themed_dataset"]
