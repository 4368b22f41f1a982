"""render.py draws the themed faces: UNO Flip's light and dark sides and the other decks'
specials (no real photos of these decks are here: the recognizer is not trained on them)."""
from __future__ import annotations

import random

import numpy as np
import pytest

from companion.referee.cards import DARK_COLORS, DARK_NAMES, THEMED_NAMES, parse_card
from companion.synth.render import CARD_RGB, DARK_RGB, render_card


def _body(img: np.ndarray) -> np.ndarray:
    """Mean BGR of a patch inside the border, beside the oval (top left, under the corner)."""
    h, w = img.shape[:2]
    return img[int(h * 0.2):int(h * 0.26), int(w * 0.1):int(w * 0.16), :3].reshape(-1, 3).mean(0)


def test_every_themed_name_draws_a_distinct_face():
    faces = {name: render_card(name, height=120) for name in THEMED_NAMES}
    keys = {f.tobytes() for f in faces.values()}
    assert len(keys) == len(THEMED_NAMES)
    assert all(f.shape == (120, 77, 4) for f in faces.values())


@pytest.mark.parametrize("colour", DARK_COLORS)
def test_dark_faces_are_black_bordered_in_their_dark_colour(colour):
    img = render_card(f"{colour}_5", height=200)
    h, w = img.shape[:2]
    edge = img[h // 2, 3:6, :3].mean(0)
    assert edge.max() < 60  # black border
    b, g, r = _body(img)
    nearest = min(DARK_RGB, key=lambda k: sum((a - x) ** 2 for a, x in zip(DARK_RGB[k], (r, g, b))))
    assert nearest == colour


@pytest.mark.parametrize("name", ["red_draw_one", "blue_flip", "green_discard_two"])
def test_light_themed_faces_keep_the_white_border_and_classic_colour(name):
    img = render_card(name, height=200)
    h = img.shape[0]
    assert img[h // 2, 3:6, :3].mean() > 200  # white border
    b, g, r = _body(img)
    colour = parse_card(name).color
    assert abs(r - CARD_RGB[colour][0]) < 30 and abs(b - CARD_RGB[colour][2]) < 30


def test_classic_faces_are_unchanged_by_the_themed_cards():
    """The classic drawing (the recognizer's training data) does not depend on the new code."""
    a = render_card("red_7", rng=random.Random(3))
    b = render_card("red_7", rng=random.Random(3))
    assert np.array_equal(a, b)
    assert all(n not in DARK_NAMES for n in ("red_7", "wild", "wild_draw_four"))


def test_dark_wilds_are_black_with_dark_colours():
    img = render_card("dark_wild", height=200)
    h, w = img.shape[:2]
    centre = img[h // 2 - 30:h // 2 + 30, w // 2 - 20:w // 2 + 20, :3].reshape(-1, 3)
    reds = {tuple(DARK_RGB[k][::-1]) for k in DARK_RGB}
    close = [min(sum((int(p[i]) - q[i]) ** 2 for i in range(3)) for q in reds) < 900 for p in centre[::7]]
    assert sum(close) > len(close) * 0.5
