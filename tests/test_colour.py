import numpy as np
import pytest

from companion.colour import card_colour
from companion.render import render_card


@pytest.mark.parametrize("colour", ["red", "yellow", "green", "blue"])
@pytest.mark.parametrize("gains", [(1, 1, 1), (0.8, 1.0, 1.25), (1.25, 1.0, 0.8), (0.6, 0.6, 0.6)])
def test_colour_survives_white_balance_and_dim_light(colour, gains):
    face = render_card(f"{colour}_7", "modern", 150)[:, :, :3].astype(np.float32)
    shifted = np.clip(face * np.array(gains, np.float32), 0, 255).astype(np.uint8)
    assert card_colour(shifted)[0] == colour


@pytest.mark.parametrize("name", ["wild", "wild_draw_four"])
def test_colour_of_a_wild_is_none(name):
    assert card_colour(render_card(name, "classic", 150)[:, :, :3])[0] is None


def test_colour_of_nothing_is_none():
    assert card_colour(np.zeros((0, 0, 3), np.uint8)) == (None, 0.0)
    assert card_colour(np.full((50, 50, 3), 128, np.uint8))[0] is None
