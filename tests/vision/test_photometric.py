"""Taking the light off before a card is read (photometric.card_white / neutral_light)."""
import cv2
import numpy as np
import pytest

from companion.vision.photometric import channel_gains, card_white, colour_temperature, exposure, neutral_light, white_balanced
from companion.synth.render import render_card


def _table_with(name: str, design: str = "classic") -> tuple[np.ndarray, tuple[float, float, float, float]]:
    face = render_card(name, design, 200)
    table = np.full((320, 320, 3), (60, 90, 120), np.uint8)  # a wooden-ish table
    h, w = face.shape[:2]
    alpha = face[:, :, 3:4].astype(np.float32) / 255
    region = table[60:60 + h, 80:80 + w].astype(np.float32)
    table[60:60 + h, 80:80 + w] = (face[:, :, :3] * alpha + region * (1 - alpha)).astype(np.uint8)
    return table, (80.0, 60.0, 80.0 + w, 60.0 + h)


@pytest.mark.parametrize("light", [lambda im: colour_temperature(im, 2700), lambda im: colour_temperature(im, 3500),
                                   lambda im: channel_gains(im, (1.0, 0.9, 0.75))])  # a bulb, a lamp, blue shade
def test_a_cards_white_comes_out_grey_under_a_coloured_light(light):
    table, box = _table_with("green_5")
    lit = light(table)
    white = card_white(lit, [box])
    assert white.max() / white.min() > 1.1  # the light tints the card's white ...
    balanced = card_white(neutral_light(lit, [box]), [box])
    assert balanced.max() / balanced.min() < 1.05  # ... and taking it off makes it grey again


def test_a_bulb_over_a_webcam_that_was_already_warm_is_still_taken_for_light():
    # 2700 K alone tints the white 2.9 between red and blue; a webcam's own balance adds to it
    # (one of the real photo sets' white is 1.15 off with no bulb at all).
    table, box = _table_with("yellow_5")
    lit = colour_temperature(channel_gains(exposure(table, 0.55), (0.9, 1.0, 1.05)), 2700)  # a dim bulb
    white = card_white(lit, [box])
    assert white is not None and white.max() / white.min() > 3.0
    balanced = card_white(neutral_light(lit, [box]), [box])
    assert balanced.max() / balanced.min() < 1.1


def _ink_hue(img: np.ndarray, ink: np.ndarray) -> float:
    b, g, r = img[ink].reshape(-1, 3).astype(np.float32).mean(axis=0)
    return float(cv2.cvtColor(np.uint8([[[b, g, r]]]), cv2.COLOR_BGR2HSV_FULL)[0, 0, 0]) * 360 / 256


def test_the_cards_own_ink_gets_its_hue_back_once_the_light_is_taken_off():
    table, box = _table_with("green_5")
    ink = (table[:, :, 1].astype(int) - table[:, :, 2]) > 80  # the green card's printed ink
    warm = colour_temperature(table, 2700)
    off = _ink_hue(table, ink) - _ink_hue(warm, ink)
    assert off > 15  # a warm bulb takes green towards yellow ...
    # ... and most of the way back (not all: the bulb burns the white's red channel out)
    assert abs(_ink_hue(neutral_light(warm, [box]), ink) - _ink_hue(table, ink)) < off / 3


def test_boxes_with_no_white_are_left_as_they_are():
    # Pure ink (or a hand, a card's back) has no white: "correcting" it to grey would turn a
    # red card grey. Such a frame is not touched.
    frame = np.full((200, 300, 3), (60, 110, 70), np.uint8)
    frame[20:180, 20:120] = (40, 40, 200)
    frame[20:180, 160:260] = (200, 90, 30)
    boxes = [(20.0, 20.0, 120.0, 180.0), (160.0, 20.0, 260.0, 180.0)]
    assert card_white(frame, boxes) is None
    assert neutral_light(frame, boxes) is frame
    assert white_balanced(frame, np.array([40.0, 40.0, 200.0])) is frame  # a red "white"


def test_a_neutral_frame_and_no_boxes_are_not_touched():
    table, box = _table_with("red_3")
    assert neutral_light(table, [box]) is table  # a card's white already grey: nothing to do
    assert neutral_light(table, []) is table
    assert white_balanced(table, None) is table
    assert card_white(table, [(5.0, 5.0, 8.0, 8.0)]) is None  # a box too small to tell


def test_a_tint_past_the_cap_is_taken_off_only_when_asked_to():
    # Under a 2000 K bulb (candle-warm) a card's white is tinted past the cap: a card's box is
    # not balanced on it (ink could look so), but a picture with no card found may be.
    table, _ = _table_with("green_5")
    amber = colour_temperature(table, 2000)
    h, w = amber.shape[:2]
    whole = [(0.0, 0.0, float(w), float(h))]
    assert card_white(amber, whole) is None and neutral_light(amber, whole) is amber
    balanced = neutral_light(amber, whole, cap=np.inf)
    white = card_white(balanced, whole, cap=np.inf)
    assert white is not None and white.max() / (white.min() + 1.0) < 1.15
