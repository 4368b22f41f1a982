import numpy as np
import pytest

from companion.referee.cards import CARD_NAMES
from companion.vision.colour import card_colour
from companion.synth.render import ASPECT, DESIGNS, render_card


@pytest.mark.parametrize("design", DESIGNS)
def test_render_every_card_name_draws_a_distinct_face(design):
    faces = {}
    for name in CARD_NAMES:
        face = render_card(name, design, 120)
        assert face.shape == (120, round(120 * ASPECT), 4) and face.dtype == np.uint8
        assert face[0, 0, 3] == 0 and face[60, 38, 3] == 255  # rounded corner clear, body opaque
        faces[name] = face
    # No two card names share a drawing.
    digests = {f.tobytes() for f in faces.values()}
    assert len(digests) == len(CARD_NAMES)


@pytest.mark.parametrize("design", DESIGNS)
def test_render_coloured_cards_read_as_their_colour(design):
    for name in CARD_NAMES:
        if name.startswith("wild"):
            continue
        colour, share = card_colour(render_card(name, design, 160)[:, :, :3])
        assert colour == name.split("_")[0], name


def test_render_designs_differ():
    a = render_card("red_5", "classic", 120)
    b = render_card("red_5", "modern", 120)
    assert np.abs(a.astype(int) - b.astype(int)).mean() > 5


def test_render_rejects_unknown_names_and_designs():
    from companion.errors import UnknownCardError

    with pytest.raises(UnknownCardError, match="red_5"):
        render_card("red5")
    with pytest.raises(ValueError, match="design"):
        render_card("red_5", "retro")


def test_modern_wild_draw_four_has_four_upright_cards_on_the_white_disc():
    # The 2018+ wild draw four (set-b's webcam frames): a black card, the white radial disc,
    # green low left, blue, red, yellow high right.
    face = render_card("wild_draw_four", "modern", 300)[:, :, 2::-1].astype(int)  # RGB
    h, w = face.shape[:2]
    cx, cy = w // 2, h // 2
    assert face[cy + int(0.3 * w), cx].min() > 200  # the disc below the cards is white
    def at(dx: float, dy: float) -> str:
        r, g, b = face[cy + int(dy * w), cx + int(dx * w)]
        return max((("red", r - g), ("green", g - r), ("blue", b - r), ("yellow", min(r, g) - b)), key=lambda kv: kv[1])[0]
    assert [at(-0.23, 0.13), at(-0.06, -0.2), at(0.09, 0.05), at(0.25, -0.25)] == ["green", "blue", "red", "yellow"]


def test_modern_wild_draw_four_cards_are_shaded_like_the_print():
    # Printed, each small card deepens from one corner to the other (yellow to orange, blue
    # to cyan); drawn flat, webcam frames of the real card were read as a draw two.
    face = render_card("wild_draw_four", "modern", 300)[:, :, 2::-1].astype(int)  # RGB
    h, w = face.shape[:2]
    cx, cy = w // 2, h // 2
    def rgb(dx: float, dy: float):
        return face[cy + int(dy * w), cx + int(dx * w)]
    top_left, bottom_right = rgb(0.25 - 0.07, -0.22 - 0.12), rgb(0.25 + 0.07, -0.22 + 0.12)
    assert top_left[1] - bottom_right[1] > 40  # green falls: yellow turns orange
    assert min(top_left[0], bottom_right[0]) > 200  # both ends stay warm


def _corner_glyph_rows(face: np.ndarray) -> np.ndarray:
    """Widths of the white corner index's rows, top-left corner of a rendered face."""
    h, w = face.shape[:2]
    corner = face[int(h * 0.04):int(h * 0.16), int(w * 0.07):int(w * 0.3), :3].astype(int)  # inside the white rim
    white = (corner.min(axis=2) > 200).sum(axis=1)
    return white[white > 0]


@pytest.mark.parametrize("design", DESIGNS)
def test_corner_one_has_no_base_like_the_printed_card(design):
    # A font's 1 has a base as wide as its flag; the printed corner 1 is a flag and a stem
    # (with a base, the reader learned corner 1s that real cards do not have, and read real
    # ones as 7s).
    one = _corner_glyph_rows(render_card("blue_1", design, 600))
    assert len(one) > 20
    assert one[-3:].mean() < 0.8 * one.max()  # the stem's foot is narrower than the flag


def _ringed_faces(name: str, share: float, n: int, monkeypatch) -> list[bool]:
    """For n training draws of `name` (classic), whether each came out as the ringed printing:
    the oval's inside (left of the glyph) in the card's colour rather than white."""
    import random

    from companion.synth import render

    monkeypatch.setattr(render, "RINGED_SHARE", share)
    ringed = []
    for seed in range(n):
        face = render_card(name, "classic", 300, random.Random(seed))[:, :, :3].astype(int)
        h, w = face.shape[:2]
        inside = face[int(h * 0.45):int(h * 0.55), int(w * 0.2):int(w * 0.28)]  # oval, left of the glyph
        ringed.append(bool((inside.min(axis=2) < 150).mean() > 0.8))
    return ringed


def test_training_draws_the_ringed_classic_printing_too(monkeypatch):
    # The licensed composites' classic deck prints its oval in the card's colour inside a thin
    # white ring, with white upright glyphs: a deck the renderer did not draw before.
    import random

    from companion.synth import render

    assert not any(_ringed_faces("red_3", 0.0, 6, monkeypatch))
    assert all(_ringed_faces("red_3", 1.0, 6, monkeypatch))
    share = np.mean(_ringed_faces("green_8", 0.3, 60, monkeypatch))
    assert 0.15 < share < 0.45  # about RINGED_SHARE of the training faces
    face = render.render_card("blue_7", "classic", 300, random.Random(0))[:, :, :3].astype(int)
    h, w = face.shape[:2]
    glyph = face[int(h * 0.4):int(h * 0.6), int(w * 0.35):int(w * 0.65)]
    assert (glyph.min(axis=2) > 220).mean() > 0.1  # the big 7 is white
    # The shipped drawing (no rng) and wilds stay as they were.
    wilds = []
    for share in (0.0, 1.0):
        monkeypatch.setattr(render, "RINGED_SHARE", share)
        wilds.append(render.render_card("wild_draw_four", "classic", 300, random.Random(2)))
    assert np.array_equal(*wilds)
    plain = render.render_card("red_3", "classic", 300)[:, :, :3].astype(int)
    assert (plain[int(h * 0.45):int(h * 0.55), int(w * 0.2):int(w * 0.28)].min(axis=2) > 200).mean() > 0.8
