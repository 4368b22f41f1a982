import numpy as np
import pytest

from companion.vision.colour import ColourReader, card_colour
from companion.errors import CompanionError
from companion.vision.photometric import SHIFTS, apply_shift
from companion.synth.render import render_card


@pytest.mark.parametrize("colour", ["red", "yellow", "green", "blue"])
@pytest.mark.parametrize("gains", [(1, 1, 1), (0.8, 1.0, 1.25), (1.25, 1.0, 0.8), (0.6, 0.6, 0.6)])
def test_colour_survives_white_balance_and_dim_light(colour, gains):
    face = render_card(f"{colour}_7", "modern", 150)[:, :, :3].astype(np.float32)
    shifted = np.clip(face * np.array(gains, np.float32), 0, 255).astype(np.uint8)
    assert card_colour(shifted)[0] == colour


@pytest.mark.parametrize("shift", sorted(SHIFTS))
def test_colour_survives_every_benchmark_camera_shift(shift):
    # The colour reader learned colour under random cameras; the benchmark's fixed shifts
    # (a 2700 K bulb, greens printed olive, a turned colour matrix, ...) must not change
    # a plainly laid card's colour. The old fixed hue table named green>yellow greens yellow.
    for colour in ("red", "yellow", "green", "blue"):
        for design in ("classic", "modern"):
            face = render_card(f"{colour}_4", design, 160)[:, :, :3]
            table = np.full((240, 200, 3), (70, 95, 120), np.uint8)  # the table around it
            table[40:40 + face.shape[0], 40:40 + face.shape[1]] = face
            assert card_colour(apply_shift(shift, table))[0] == colour, (colour, design)


def test_colour_of_nothing_is_none():
    assert card_colour(np.zeros((0, 0, 3), np.uint8)) == (None, 0.0)
    with pytest.raises(CompanionError):
        card_colour("not a picture")  # type: ignore[arg-type]


def test_a_model_that_is_not_a_colour_reader_is_refused():
    from companion.vision.reader import default_reader_weights

    with pytest.raises(CompanionError, match="not a colour reader"):
        ColourReader(default_reader_weights())
    with pytest.raises(CompanionError, match="not found"):
        ColourReader("models/nothing-here.onnx")


def test_colour_ignores_transparent_corners_of_a_bgra_face():
    assert card_colour(render_card("green_skip", "classic", 150))[0] == "green"


@pytest.mark.parametrize("colour", ["red", "yellow", "green", "blue"])
def test_colour_of_a_card_on_a_skin_and_wood_background(colour):
    # The box around a card also holds a hand and the table; the card in the middle wins.
    face = render_card(f"{colour}_draw_two", "classic", 120)
    scene = np.empty((180, 150, 3), np.uint8)
    scene[:] = (60, 110, 170)  # warm wood
    scene[120:, :60] = (120, 150, 210)  # skin
    alpha = face[:, :, 3:4].astype(np.float32) / 255
    y, x = 30, 35
    h, w = face.shape[:2]
    region = scene[y:y + h, x:x + w].astype(np.float32)
    scene[y:y + h, x:x + w] = (face[:, :, :3] * alpha + region * (1 - alpha)).astype(np.uint8)
    assert card_colour(scene)[0] == colour


def test_colour_of_real_photos_is_right_and_rarely_wrong(shared_dir):
    import cv2

    from companion.synth.evaluation import photo_set

    right = wrong = 0
    for path, truth in photo_set(shared_dir / "data" / "real-photos" / "set-b", 2):
        if truth.startswith("wild"):
            continue
        image = cv2.imread(str(path))
        h, w = image.shape[:2]
        colour, share = card_colour(image[h // 6:5 * h // 6, w // 6:5 * w // 6])
        right += colour == truth.split("_")[0]
        wrong += colour not in (None, truth.split("_")[0]) and share >= 0.7
    # Whole-frame crops, backgrounds included. The hue table read 95 right, 2 wrong of 104;
    # the colour reader (never trained on these photos) is held to the same floor.
    assert right >= 88 and wrong <= 4


def _held(colour: str) -> np.ndarray:
    """A washed-out webcam picture of a card held up, half hidden by a pinkish hand."""
    import cv2

    face = render_card(f"{colour}_5", "modern", 150)[:, :, :3].astype(np.float32)
    washed = (face * 0.65 + 80).astype(np.uint8)  # hazy: colour and contrast lost
    hand = np.uint8([[[2, 90, 200]]])  # OpenCV HSV: hue 2 (pink-red), saturation 0.35, bright
    h, w = washed.shape[:2]
    washed[h // 3:h, : 3 * w // 4] = cv2.cvtColor(hand, cv2.COLOR_HSV2BGR)[0, 0]
    return washed


@pytest.mark.parametrize("colour", ["red", "yellow", "green", "blue"])
def test_colour_of_a_card_half_under_a_pink_hand(colour):
    # Fingers are a pink-red of middling saturation; even washed out, printed red is more
    # saturated, so the hand must not make every held card red.
    assert card_colour(_held(colour))[0] == colour


@pytest.mark.parametrize("colour", ["red", "yellow", "green", "blue"])
@pytest.mark.parametrize("cast", [(1.0, 1.07, 0.7), (0.95, 1.0, 0.66)])
def test_colour_of_a_hazy_close_up_under_a_cyan_webcam_cast(colour, cast):
    # A card held close to a webcam fills the frame: mostly dull body, part of the disc, and
    # the disc is tinted cyan (about 1.5 between its brightest and dimmest channel). Unless
    # that tint is taken out, the disc votes green and a red or yellow card reads green.
    face = render_card(f"{colour}_3", "modern", 300)[:, :, :3].astype(np.float32)
    h, w = face.shape[:2]
    close_up = face[int(h * 0.3):, int(w * 0.25):]
    hazy = np.clip((close_up * 0.35 + 40) * np.array(cast, np.float32), 0, 255).astype(np.uint8)
    assert card_colour(hazy)[0] == colour
