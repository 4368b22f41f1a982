import numpy as np

from companion.referee.cards import CARD_NAMES
from companion.synth.scenes import FaceBank, labels_for, make_scene, write_dataset


def test_scenes_labels_are_valid_yolo_boxes():
    bank = FaceBank(height=120, variants=1)
    seen = 0
    for i in range(12):
        img, labels = make_scene(np.random.default_rng(i), bank)
        assert img.ndim == 3 and img.dtype == np.uint8
        for c, x, y, w, h in labels:
            assert 0 <= c < len(CARD_NAMES)
            assert 0 < w <= 1 and 0 < h <= 1
            assert 0 <= x - w / 2 + 1e-6 and x + w / 2 <= 1 + 1e-6
            assert 0 <= y - h / 2 + 1e-6 and y + h / 2 <= 1 + 1e-6
        seen += len(labels)
    assert seen >= 12  # almost every scene names at least one card


def test_scenes_hidden_card_is_not_labelled():
    from companion.synth.scenes import Placed

    shape = (100, 100)
    under = np.zeros(shape, bool)
    under[20:80, 20:60] = True
    top = np.zeros(shape, bool)
    top[10:90, 10:70] = True  # covers the card below completely
    quad = np.array([[20, 20], [60, 20], [60, 80], [20, 80]], np.float32)
    quad_top = np.array([[10, 10], [70, 10], [70, 90], [10, 90]], np.float32)
    labels = labels_for([Placed("red_5", quad, under), Placed("blue_7", quad_top, top)], [], shape)
    assert [CARD_NAMES[int(c)] for c, *_ in labels] == ["blue_7"]


def test_scenes_dataset_writer(tmp_path):
    yaml_path = write_dataset(tmp_path, 3, 1, seed=1)
    assert len(list((tmp_path / "images" / "train").glob("*.jpg"))) == 3
    assert len(list((tmp_path / "labels" / "val").glob("*.txt"))) == 1
    text = yaml_path.read_text()
    assert "0: red_0" in text and f"{len(CARD_NAMES) - 1}: wild_customizable" in text


def test_scenes_palm_holds_a_card_from_one_end():
    # A card held up to a webcam: the hand covers one end of it and reaches beyond it, so
    # sometimes only the other half of the card (with its corner index) is left to read.
    from companion.synth.scenes import _card_quad, _palm, _poly_mask

    covered = []
    for i in range(20):
        rng = np.random.default_rng(i)
        scene = np.full((400, 400, 3), 128, np.uint8)
        quad = _card_quad(rng, 200, 200, 260, rng.normal(0, 0.3), 0.05)
        card = _poly_mask((400, 400), quad)
        palm = _palm(scene, rng, quad)
        assert (palm & ~card).sum() > 0.3 * palm.sum()  # the hand goes on past the card
        skin = scene[palm].astype(int)
        assert (skin[:, 2] > skin[:, 0] + 10).mean() > 0.95  # painted in skin (redder than blue)
        covered.append((palm & card).sum() / card.sum())
    assert sum(c > 0 for c in covered) >= 18 and sum(c >= 0.4 for c in covered) >= 3
    assert max(covered) < 0.9


def test_the_finders_darkness_bar_is_where_its_training_scenes_put_it():
    # The detector brightens frames darker than the finder's training scenes: if the scenes'
    # light changes, FINDER_DARK / FINDER_TONE must be measured again (tone_percentiles).
    from companion.synth.scenes import tone_percentiles
    from companion.vision.photometric import FINDER_DARK, FINDER_TONE

    dark, tone = tone_percentiles(300, seed=3)
    assert abs(dark - FINDER_DARK) <= 2 and abs(tone - FINDER_TONE) <= 2
