"""The colour read's wild odds (`colour.WILD_ODDS`, `WILD_SHARE`): how sure the colour reader is
of one colour, on boxes the shipped detector finds on synthetic scenes, against whether the box
holds a wild. Half the scenes are discard piles topped by a wild (wilds are a few cards of a
deck: without them the fit would see too few), half `make_scene`'s tables, fans and held cards;
each through one random camera and light (`photometric.random_light`), as the colour reader was
trained. No photo."""
from __future__ import annotations

import random
from typing import Any, Callable

import numpy as np

from companion.referee.cards import CARD_NAMES, parse_card
from companion.vision.crops import box_iou, label_box


def _recording_detector() -> Any:
    """The shipped detector, keeping each frame's colour reads (the colour reader's own) by box."""
    from companion.vision.detector import YoloDetector

    class Recording(YoloDetector):
        def _colour_crops(self, as_seen, boxes, crops, classic, best, sure_of, cap):  # type: ignore[no-untyped-def]
            self.colour_boxes = [tuple(boxes[i]) for i in classic]
            return super()._colour_crops(as_seen, boxes, crops, classic, best, sure_of, cap)

        def _colours(self, crops, teach):  # type: ignore[no-untyped-def]
            colours, alone = super()._colours(crops, teach)
            self.colour_reads = dict(zip(self.colour_boxes, alone)) if alone is not None else {}
            return colours, alone

    detector = Recording(conf=0.1)
    detector.wild_odds = False  # the boxes as the odds being fitted would not yet have weighed them
    return detector


def wild_boxes(scenes: int, seed: int, progress: Callable[[int], None] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(the colour reader's top probability, whether it is a wild) for every box the detector
    found on `scenes` synthetic scenes that lies on a labelled card (IoU 0.5 or more)."""
    from companion.synth.scenes import FaceBank, make_scene, pile_scene
    from companion.vision.photometric import random_light

    detector = _recording_detector()
    bank = FaceBank(seed=seed)
    wilds = [c for c in CARD_NAMES if parse_card(c).is_wild]
    tops: list[float] = []
    is_wild: list[bool] = []
    for i in range(scenes):
        rng = np.random.default_rng(seed * 1_000_003 + 30_000_000 + i)
        rnd = random.Random(seed * 7919 + i)
        if i % 2 == 0:
            top = wilds[(i // 2) % len(wilds)]
            img, (x1, y1, x2, y2) = pile_scene(rng, bank, top)
            labels = [(top, (x1, y1, x2, y2))]
        else:
            img, found = make_scene(rng, bank)
            h, w = img.shape[:2]
            labels = [(CARD_NAMES[int(c)], label_box(x, y, bw, bh, w, h)) for c, x, y, bw, bh in found]
        img = random_light(img, rnd)
        detector.colour_reads = {}
        for d in detector.detect(img):
            read = detector.colour_reads.get(tuple(d.box))
            truth = next((name for name, box in labels if box_iou(d.box, box) >= 0.5), None)
            if read is not None and truth is not None:
                tops.append(float(np.max(read)))
                is_wild.append(parse_card(truth).is_wild)
        if progress is not None:
            progress(i + 1)
    return np.array(tops), np.array(is_wild)


def fit_wild_odds(tops: np.ndarray, is_wild: np.ndarray) -> tuple[float, float, float]:
    """(a, b, share): the logistic fit P(wild | x) = 1 / (1 + exp(-(a + b x))), x = log(1 - top +
    1e-4), by Newton's method, and the share of wilds it was fitted on."""
    if len(tops) == 0 or is_wild.all() or not is_wild.any():
        raise ValueError("the fit needs boxes of wilds and of coloured cards")
    x = np.log(1.0 - tops + 1e-4)
    y = is_wild.astype(float)
    design = np.stack([np.ones_like(x), x], axis=1)
    theta = np.zeros(2)
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-design @ theta))
        grad = design.T @ (p - y)
        hess = design.T @ (design * (p * (1 - p))[:, None]) + 1e-9 * np.eye(2)
        step = np.linalg.solve(hess, grad)
        theta -= step
        if np.abs(step).max() < 1e-10:
            break
    return float(theta[0]), float(theta[1]), float(y.mean())


__all__ = ["wild_boxes", "fit_wild_odds"]
