"""The themed reader: a table that plays UNO Flip (or the other themed cards) has them named by
the shipped models; a classic table never names a themed card. Rendered cards (no real photos
of these decks exist here), printings the training data did not draw (`themed_bank(101)`)."""
import random

import numpy as np
import pytest

from companion.config import Config
from companion.errors import CompanionError
from companion.referee.cards import THEMED_NAMES
from companion.vision.crops import box_iou
from companion.vision.detector import YoloDetector

THEMED = ["teal_5", "pink_skip_everyone", "orange_draw_five", "purple_flip", "purple_reverse", "teal_9",
          "red_draw_one", "blue_flip", "yellow_discard_two", "wild_draw_colour", "dark_wild", "wild_draw_two",
          "mario_reflect", "dementor", "pink_2", "orange_7"]
CLASSIC = ["red_reverse", "blue_draw_two", "green_7", "yellow_skip", "wild", "wild_draw_four", "blue_1", "red_9"]


@pytest.fixture(scope="module")
def piles():
    from companion.referee.cards import deck
    from companion.synth.scenes import pile_scene
    from companion.synth.themedcrops import themed_bank

    bank = themed_bank(101, variants=1)
    below = sorted(deck("flip"))
    rng = np.random.default_rng(4)
    return {name: pile_scene(rng, bank, name, below=below) for name in THEMED + CLASSIC}


@pytest.fixture(scope="module")
def readers():
    return {"classic": YoloDetector(), "themed": YoloDetector(themed=True)}


def _read(detector, picture):
    img, box = picture
    found = [d for d in detector.detect(img) if box_iou(d.box, box) >= 0.5]
    return found[0].card if found else None


def test_a_themed_table_names_flip_and_themed_cards_by_their_whole_name(piles, readers):
    read = {name: _read(readers["themed"], piles[name]) for name in THEMED}
    right = [name for name in THEMED if read[name] == name]
    assert len(right) >= len(THEMED) - 2, read


def test_a_themed_table_still_reads_classic_faces_as_the_classic_readers_do(piles, readers):
    # the light side of a Flip deck is mostly classic numbers and actions: a red reverse
    # must not turn into a red flip, a draw two into a draw one
    themed = [_read(readers["themed"], piles[name]) for name in CLASSIC]
    classic = [_read(readers["classic"], piles[name]) for name in CLASSIC]
    assert sum(t == c for t, c in zip(themed, classic)) >= len(CLASSIC) - 1, (themed, classic)
    assert not set(themed) & set(THEMED_NAMES)


def test_a_classic_table_never_names_a_themed_card(piles, readers):
    named = {d.card for name in THEMED for d in readers["classic"].detect(piles[name][0])}
    assert not named & set(THEMED_NAMES)


def test_recognize_json_gives_a_themed_cards_top_names(piles, readers):
    img, box = piles["teal_5"]
    (best,) = [d for d in readers["themed"].detect(img) if box_iou(d.box, box) >= 0.5][:1]
    assert best.top and best.top[0][0] == best.card and all(n in THEMED_NAMES for n, _ in best.top)
    assert 0 < best.top[0][1] <= 1 and len(best.top) == 3


def test_run_reads_themed_cards_only_where_the_table_plays_them():
    from companion.commands.run import make_detector

    assert make_detector(Config(rules={"deck": "flip"}), say=lambda line: None).themed_reader is not None
    assert make_detector(Config(rules={"dementor": 2}), say=lambda line: None).themed_reader is not None
    assert make_detector(Config(), say=lambda line: None).themed_reader is None


def test_a_missing_themed_reader_is_said_in_one_line(tmp_path):
    with pytest.raises(CompanionError, match="themed reader not found"):
        YoloDetector(themed=tmp_path / "gone.onnx")
