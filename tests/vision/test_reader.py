"""The card reader (second stage): its training crops and the shipped reader."""
import random
import shutil
from collections import Counter
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.referee.cards import CARD_NAMES, parse_card
from companion.synth.cardcrops import COMPOSITE_SYMBOLS, composite_crops, glyph_crops, scene_crops, write_crop_dataset
from companion.vision.crops import NONE, READER_SIZE, SYMBOL_CLASSES, crop_square
from companion.vision.reader import CardReader, default_reader_weights


def test_reader_classes_are_every_symbol_and_none():
    assert set(SYMBOL_CLASSES) == {parse_card(n).symbol for n in CARD_NAMES} | {NONE}
    # ultralytics orders a classification folder's classes by name: keep ours sorted too.
    assert list(SYMBOL_CLASSES) == sorted(SYMBOL_CLASSES)


def test_composite_classes_follow_their_readme():
    # README: 0, 1, wild draw four, draw two, reverse, skip, wild, then 2..9.
    assert COMPOSITE_SYMBOLS[:7] == ("0", "1", "wild_draw_four", "draw_two", "reverse", "skip", "wild")
    assert COMPOSITE_SYMBOLS[7:] == tuple(str(n) for n in range(2, 10))
    assert set(COMPOSITE_SYMBOLS) <= set(SYMBOL_CLASSES)


def test_crop_square_grows_the_box_and_stays_in_the_picture():
    img = np.zeros((100, 200, 3), np.uint8)
    img[40:60, 90:110] = 255
    crop = crop_square(img, (90, 40, 110, 60), margin=0.0)
    assert crop.shape == (READER_SIZE, READER_SIZE, 3) and crop.min() == 255
    grown = crop_square(img, (90, 40, 110, 60), margin=0.5)
    assert grown.mean() < 255 and grown[READER_SIZE // 2, READER_SIZE // 2].min() == 255
    # A box hanging off the picture is clipped; a degenerate one falls back to the whole picture.
    assert crop_square(img, (190, 90, 260, 160)).shape == (READER_SIZE, READER_SIZE, 3)
    assert crop_square(img, (-50, -50, -10, -10)).shape == (READER_SIZE, READER_SIZE, 3)


def _scene_folder(tmp_path, labels, split=""):
    (tmp_path / "images" / split).mkdir(parents=True)
    (tmp_path / "labels" / split).mkdir(parents=True)
    img = np.full((200, 200, 3), 90, np.uint8)
    cv2.imwrite(str(tmp_path / "images" / split / "s.jpg"), img)
    (tmp_path / "labels" / split / "s.txt").write_text("\n".join(labels) + "\n")
    return tmp_path


def test_scene_crops_skip_a_card_mostly_under_another(tmp_path):
    red_5, blue_skip, green_7 = (CARD_NAMES.index(n) for n in ("red_5", "blue_skip", "green_7"))
    folder = _scene_folder(tmp_path, [
        f"{red_5} 0.3 0.3 0.2 0.3",      # the top card
        f"{blue_skip} 0.32 0.32 0.2 0.3",  # mostly under it: no crop
        f"{green_7} 0.8 0.8 0.2 0.3",     # apart
    ])
    crops = list(scene_crops(folder / "images", folder / "labels", random.Random(0), negatives=0.0, close_ups=0.0, corners=0.0))
    assert [s for s, _ in crops] == ["5", "7"]
    assert all(c.shape == (READER_SIZE, READER_SIZE, 3) for _, c in crops)


def test_scene_crops_background_crops_avoid_cards(tmp_path):
    red_5 = CARD_NAMES.index("red_5")
    folder = _scene_folder(tmp_path, [f"{red_5} 0.5 0.5 0.2 0.3"])
    crops = list(scene_crops(folder / "images", folder / "labels", random.Random(3), negatives=1.0, close_ups=0.0, corners=0.0))
    assert [s for s, _ in crops] == ["5", NONE]


def test_background_crops_never_hold_a_small_card(tmp_path):
    # A small card (a far-off discard) inside a big window is still a card: no "none" there.
    red_5 = CARD_NAMES.index("red_5")
    folder = _scene_folder(tmp_path, [f"{red_5} 0.5 0.5 0.08 0.12"])
    img = cv2.imread(str(folder / "images" / "s.jpg"))
    img[88:112, 92:108] = (0, 0, 255)  # the card, painted pure red
    cv2.imwrite(str(folder / "images" / "s.jpg"), img)
    nones = 0
    for seed in range(60):
        for symbol, crop in scene_crops(folder / "images", folder / "labels", random.Random(seed),
                                        negatives=1.0, close_ups=0.0, corners=0.0):
            if symbol == NONE:
                nones += 1
                red = (crop[:, :, 2] > 150) & (crop[:, :, 1] < 100)
                if red.any():  # at most a thin sliver of the card's edge, never the card
                    rows, cols = np.nonzero(red)
                    assert min(np.ptp(rows), np.ptp(cols)) <= 8
    assert nones > 20


def test_close_ups_cut_the_card_but_keep_its_centre(tmp_path):
    from companion.synth.cardcrops import _close_up
    red_5 = CARD_NAMES.index("red_5")
    folder = _scene_folder(tmp_path, [f"{red_5} 0.5 0.5 0.4 0.6"])
    crops = list(scene_crops(folder / "images", folder / "labels", random.Random(0), negatives=0.0, close_ups=1.0, corners=0.0))
    assert [s for s, _ in crops] == ["5", "5"]
    box = (60.0, 40.0, 140.0, 160.0)
    with_index = 0
    for seed in range(200):
        x1, y1, x2, y2 = _close_up(box, random.Random(seed))
        assert box[0] <= x1 < 100 < x2 <= box[2] and box[1] <= y1 < 100 < y2 <= box[3]
        assert (x2 - x1) * (y2 - y1) < 0.9 * 80 * 120
        with_index += (x1, y1) == box[:2] or (x2, y2) == box[2:]
    # Like a card held up to a webcam and cut by the picture's bottom edge: most close-ups
    # keep one of the two corner indices.
    assert 0.65 * 200 < with_index < 200


def test_index_corner_crops_show_the_printed_corner_of_a_square_lying_card(tmp_path):
    from companion.synth.cardcrops import index_corners
    # A card standing up: its indices print top-left and bottom-right; lying sideways:
    # top-right and bottom-left.
    assert index_corners((0, 0, 56, 87), 0.5) == [(0, 0, 28, 28), (28, 59, 56, 87)]
    assert index_corners((0, 0, 87, 56), 0.5) == [(59, 0, 87, 28), (0, 28, 28, 56)]
    red_5, blue_7 = CARD_NAMES.index("red_5"), CARD_NAMES.index("blue_7")
    folder = _scene_folder(tmp_path, [f"{red_5} 0.3 0.5 0.28 0.435",   # standing up
                                      f"{blue_7} 0.75 0.5 0.4 0.4"])    # turned 45 degrees: a square box
    img = cv2.imread(str(folder / "images" / "s.jpg"))
    img[57:143, 32:88] = 255  # the red 5's box, painted white
    cv2.imwrite(str(folder / "images" / "s.jpg"), img)
    crops = list(scene_crops(folder / "images", folder / "labels", random.Random(0), negatives=0.0, close_ups=0.0,
                             corners=1.0))
    symbols = [s for s, _ in crops]
    assert symbols == ["5", "5", "7"]  # the whole 5, one corner of it, the whole 7 (no corner)
    corner = crops[1][1]
    assert corner.mean() > 200 and corner.shape == (READER_SIZE, READER_SIZE, 3)  # inside the card


def test_index_corner_crops_skip_a_corner_under_another_card(tmp_path):
    red_5, blue_7 = CARD_NAMES.index("red_5"), CARD_NAMES.index("blue_7")
    # The 5 lies on top of the 7's top-left and bottom-right corners... and its middle.
    folder = _scene_folder(tmp_path, [f"{red_5} 0.5 0.5 0.28 0.435", f"{blue_7} 0.5 0.5 0.28 0.435"])
    crops = list(scene_crops(folder / "images", folder / "labels", random.Random(0), negatives=0.0, close_ups=0.0,
                             corners=1.0))
    assert [s for s, _ in crops] == ["5", "5"]


def test_webcam_look_washes_out_colour_and_keeps_the_shape():
    from companion.synth.cardcrops import webcam_look
    crop = np.zeros((READER_SIZE, READER_SIZE, 3), np.uint8)
    crop[:] = (200, 60, 0)  # a saturated blue
    sats = []
    for seed in range(20):
        out = webcam_look(crop, random.Random(seed))
        assert out.shape == crop.shape and out.dtype == np.uint8
        sats.append(cv2.cvtColor(out, cv2.COLOR_BGR2HSV)[:, :, 1].mean())
    assert np.mean(sats) < 0.9 * 255 and min(sats) < 200


def test_lit_scenes_change_the_light_and_balanced_ones_take_it_off_again(monkeypatch):
    from companion.synth import cardcrops
    from companion.synth.render import render_card

    assert 0.0 < cardcrops.LIGHT_BALANCED < 1.0  # some lit crops stay cast: a balance is never perfect
    card = render_card("green_7", height=180)[:, :, :3].copy()
    h, w = card.shape[:2]
    scene = np.full((h + 80, w + 80, 3), 70, np.uint8)
    scene[40:40 + h, 40:40 + w] = card
    box = (40.0, 40.0, 40.0 + w, 40.0 + h)
    border = (slice(41, 44), slice(60, 40 + w - 20))  # a strip of the card's white border

    def casts(balanced: float) -> list[float]:
        monkeypatch.setattr(cardcrops, "LIGHT_BALANCED", balanced)
        out = []
        for seed in range(30):
            lit = cardcrops.lit_scene(scene, [box], random.Random(seed))
            assert lit.shape == scene.shape and lit.dtype == np.uint8
            white = lit[border].reshape(-1, 3).astype(float).mean(axis=0)
            out.append(white.max() / (white.min() + 1))
        return out

    left = casts(0.0)
    assert sum(c > 1.2 for c in left) >= 5  # other cameras and lights: the white often comes out tinted
    taken_off = casts(1.0)  # the same draws, balanced on the card's own white as the detector does
    assert max(taken_off) < 1.12


def test_write_crop_dataset_cuts_lit_scenes_under_their_own_labels(tmp_path):
    red_5 = CARD_NAMES.index("red_5")
    scenes = tmp_path / "scenes"
    for split in ("train", "val"):
        _scene_folder(scenes, [f"{red_5} 0.5 0.5 0.2 0.3"], split)
    out = write_crop_dataset(tmp_path / "crops", scenes, None, val_share=0.0, glyphs=0, light=1.0)
    assert 2 <= len(list((out / "train" / "5").glob("*.jpg"))) <= 4


def _composites_sample(shared_dir: Path, tmp_path: Path, count: int) -> Path:
    """The first `count` licensed composites (pictures and labels) in a folder of their own."""
    src = shared_dir / "data" / "uno-cards-composites"
    if not (src / "images").is_dir():
        pytest.skip("no composites beside the repo")
    sub = tmp_path / "comp"
    (sub / "images").mkdir(parents=True)
    (sub / "labels").mkdir()
    for img in sorted((src / "images").glob("*.jpg"))[:count]:
        (sub / "images" / img.name).symlink_to(img)
        (sub / "labels" / f"{img.stem}.txt").symlink_to(src / "labels" / f"{img.stem}.txt")
    return sub


def test_composite_crops_name_real_corners_by_value(shared_dir, tmp_path):
    sub = _composites_sample(shared_dir, tmp_path, 3)
    expected = []
    for lab in sorted((sub / "labels").glob("*.txt")):
        expected += [COMPOSITE_SYMBOLS[int(line.split()[0])] for line in lab.read_text().split("\n") if line.strip()]
    crops = list(composite_crops(sub, random.Random(0)))
    symbols = [s for s, _ in crops]
    # Every corner, plus (where the estimate fits the picture) each fan's top card whole.
    assert not Counter(expected) - Counter(symbols)
    extra = Counter(symbols) - Counter(expected)
    assert sum(extra.values()) <= 3 and set(extra) <= set(expected)


def test_write_crop_dataset_makes_a_classification_folder(tmp_path):
    red_5 = CARD_NAMES.index("red_5")
    scenes = tmp_path / "scenes"
    for split in ("train", "val"):
        _scene_folder(scenes, [f"{red_5} 0.5 0.5 0.2 0.3"], split)
    out = write_crop_dataset(tmp_path / "crops", scenes, None, val_share=0.0, glyphs=0)
    assert sorted(p.name for p in (out / "train").iterdir()) == sorted(SYMBOL_CLASSES)
    # Each card once, plus sometimes a close-up of it; nothing else in this scene is a card.
    assert 2 <= len(list((out / "train" / "5").glob("*.jpg"))) <= 4


def test_reader_crops_drawn_in_memory_are_the_same_on_any_number_of_processes(tmp_path):
    # A machine with many cores draws the scenes on every one: the data must not depend on how many.
    from companion.synth.cardcrops import write_reader_dataset

    def crops(jobs: int) -> dict[str, bytes]:
        out = write_reader_dataset(tmp_path / f"jobs{jobs}", 6, 5, None, jobs=jobs, glyphs=4, backs=0.5)
        return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.glob("*/*/*.jpg"))}

    one = crops(1)
    assert one == crops(2)
    classes = {Path(k).parts[1] for k in one}
    assert len(one) >= 10 and classes <= set(SYMBOL_CLASSES) and len(classes - {"none"}) >= 3


def test_cut_composites_travel_as_crops_the_in_memory_writer_takes_in(shared_dir, tmp_path):
    # The composites are not on a GPU machine: their crops are cut here, carried, and taken in as
    # they are (not turned or washed out a second time).
    from companion.synth.cardcrops import cut_composites, write_reader_dataset

    sub = _composites_sample(shared_dir, tmp_path, 2)
    n = cut_composites(sub, tmp_path / "cut", seed=3, val_share=0.0)
    cut = sorted((tmp_path / "cut").glob("train/*/*.jpg"))
    assert n == len(cut) >= 2 and {p.parent.name for p in cut} <= set(SYMBOL_CLASSES)
    out = write_reader_dataset(tmp_path / "data", 2, 3, tmp_path / "cut", glyphs=0)
    scenes = tmp_path / "scenes"
    for split in ("train", "val"):
        _scene_folder(scenes, [f"{CARD_NAMES.index('red_5')} 0.5 0.5 0.2 0.3"], split)
    old = write_crop_dataset(tmp_path / "old", scenes, tmp_path / "cut", glyphs=0)  # the scene-folder path too
    for path in cut:
        assert (out / "train" / path.parent.name / path.name).read_bytes() == path.read_bytes()
        assert (old / "train" / path.parent.name / path.name).read_bytes() == path.read_bytes()


def test_glyph_crops_hold_a_corner_index_and_little_else(tmp_path):
    # A close-up's box around the corner's 6 (real webcam frames): the crop is the white
    # index on the card's colour, labelled with the card's symbol, and it lands in the
    # written dataset beside the scenes' crops.
    rnd = random.Random(5)
    crops = list(glyph_crops(60, rnd))
    assert {s for s, _ in crops} <= set(SYMBOL_CLASSES) - {NONE}
    numbers = [c for s, c in crops if s.isdigit()]
    assert len(numbers) >= 30
    for crop in numbers:
        assert crop.shape == (READER_SIZE, READER_SIZE, 3)
        middle = crop[32:96, 32:96]
        white = (middle.min(axis=2) > 170).mean()
        assert 0.05 < white < 0.8  # the index's white strokes, on the body's colour
    scenes = tmp_path / "scenes"
    for split in ("train", "val"):
        _scene_folder(scenes, [], split)
    out = write_crop_dataset(tmp_path / "crops", scenes, None, val_share=0.0, glyphs=40)
    assert sum(1 for _ in (out / "train").rglob("*.jpg")) >= 40


def test_crop_dataset_turns_cards_by_quarter_turns_never_mirrors(tmp_path):
    # The card's top half bright, its bottom half dark, its left edge red: a quarter or half
    # turn moves the bright half; a mirror image would put red on the right with the bright
    # half still on top, which must never be written.
    red_5 = CARD_NAMES.index("red_5")
    scenes = tmp_path / "scenes"
    for split in ("train", "val"):
        _scene_folder(scenes, [f"{red_5} 0.5 0.5 0.5 0.5"], split)
        img = cv2.imread(str(scenes / "images" / split / "s.jpg"))
        img[50:100, 50:150] = 230
        img[100:150, 50:150] = 20
        img[50:150, 50:62] = (0, 0, 255)
        cv2.imwrite(str(scenes / "images" / split / "s.jpg"), img)
    where = []
    for seed in range(12):
        out = write_crop_dataset(tmp_path / f"crops{seed}", scenes, None, seed=seed, webcam_share=0.0, glyphs=0)
        for f in (out / "train" / "5").glob("*.jpg"):
            c = cv2.imread(str(f)).astype(int)
            h, w = c.shape[:2]
            red = (c[:, :, 2] > 150) & (c[:, :, 1] < 90)
            if not red.any() or min((c.min(axis=2) > 200).mean(), (c.max(axis=2) < 60).mean()) < 0.2:
                continue  # a close-up or corner crop without the red edge or one half: orientation unreadable
            bright = max(("top", c[: h // 3].mean()), ("bottom", c[-h // 3:].mean()),
                         ("left", c[:, : w // 3].mean()), ("right", c[:, -w // 3:].mean()), key=lambda kv: kv[1])[0]
            cols = np.nonzero(red.any(axis=0))[0]
            rows = np.nonzero(red.any(axis=1))[0]
            side = ("left" if cols.mean() < w / 2 else "right") if np.ptp(rows) > np.ptp(cols) else \
                ("top" if rows.mean() < h / 2 else "bottom")
            where.append((bright, side))
    # Upright (bright top, red left), half turn (bright bottom, red right), quarter turns.
    assert set(where) <= {("top", "left"), ("bottom", "right"), ("left", "bottom"), ("right", "top")}
    assert {("top", "left"), ("bottom", "right")} <= set(where)


def test_reader_refuses_a_missing_file(tmp_path):
    from companion.errors import CompanionError

    with pytest.raises(CompanionError, match="not found"):
        CardReader(tmp_path / "nope.onnx")


# --- the shipped reader
SHIPPED_READER = default_reader_weights()
reader_only = pytest.mark.skipif(SHIPPED_READER is None, reason="no reader in models/ yet")


@pytest.fixture(scope="module")
def reader():
    return CardReader(SHIPPED_READER)


@reader_only
def test_shipped_reader_names_rendered_cards_and_an_empty_table(reader):
    from companion.synth.render import render_card

    rng = random.Random(1)
    crops, truth = [], []
    for i, name in enumerate(CARD_NAMES):
        table = np.full((300, 240, 3), (60, 100, 150), np.uint8)  # wood-ish
        face = render_card(name, ("classic", "modern")[i % 2], 240, rng=rng)
        h, w = face.shape[:2]
        alpha = face[:, :, 3:4].astype(np.float32) / 255
        y, x = (300 - h) // 2, (240 - w) // 2
        region = table[y:y + h, x:x + w].astype(np.float32)
        table[y:y + h, x:x + w] = (face[:, :, :3] * alpha + region * (1 - alpha)).astype(np.uint8)
        crops.append(crop_square(table, (x, y, x + w, y + h)))
        truth.append(parse_card(name).symbol)
    reads = reader.read(crops)
    right = sum(symbol == t for (symbol, _), t in zip(reads, truth))
    assert right >= 0.9 * len(truth), [(t, s) for (s, _), t in zip(reads, truth) if s != t]
    empty = crop_square(np.full((300, 240, 3), (60, 100, 150), np.uint8), (0, 0, 240, 300))
    assert reader.read([empty])[0][0] == NONE


@reader_only
def test_shipped_reader_reads_a_card_upside_down_as_it_reads_it_upright(reader):
    """Cards are held and laid upside down all the time: the read must not depend on it
    (each crop is read both ways up and the reads averaged), even on a small, washed-out
    webcam crop where one view alone reads differently from the other."""
    from companion.synth.cardcrops import webcam_look
    from companion.synth.render import render_card

    rng = random.Random(3)
    names = ("blue_6", "green_9", "yellow_8", "wild_draw_four", "red_draw_two")
    clear, blurred = [], []
    for name in names:
        face = cv2.cvtColor(render_card(name, "modern", 200, rng=rng), cv2.COLOR_BGRA2BGR)
        clear.append(cv2.resize(face, (READER_SIZE, READER_SIZE)))
        blurred.append(cv2.resize(webcam_look(cv2.resize(face, (40, 40)), rng), (READER_SIZE, READER_SIZE)))
    for crops in (clear, blurred):
        upright = reader.read(crops)
        turned = reader.read([np.ascontiguousarray(np.rot90(c, 2)) for c in crops])
        assert [s for s, _ in upright] == [s for s, _ in turned]
        assert [p for _, p in upright] == pytest.approx([p for _, p in turned], abs=1e-4)
    assert [s for s, _ in reader.read(clear)] == ["6", "9", "8", "wild_draw_four", "draw_two"]


@reader_only
def test_a_reader_exports_with_a_batch_axis_and_reads_the_same(reader, tmp_path):
    """`train` exports the reader with a batch axis, so a frame's crops, corners and turns
    run in one batch (the recognizer's speed depends on it); the export reads as the
    weights do."""
    import onnxruntime  # type: ignore[import-untyped]

    pytest.importorskip("ultralytics", reason="exporting needs the [train] extra")
    from companion.synth.render import render_card
    from companion.synth.train import export_onnx

    weights = SHIPPED_READER.with_suffix(".pt")
    if not weights.exists():
        pytest.skip("no reader weights to export")
    onnx = export_onnx(shutil.copy2(weights, tmp_path / "reader.pt"))
    assert not isinstance(onnxruntime.InferenceSession(str(onnx)).get_inputs()[0].shape[0], int)
    rng = random.Random(5)
    crops = [cv2.resize(cv2.cvtColor(render_card(n, "classic", 200, rng=rng), cv2.COLOR_BGRA2BGR), (READER_SIZE,) * 2)
             for n in ("red_1", "blue_7", "green_skip")]
    exported = CardReader(onnx)
    assert exported._batch is None
    assert exported.probabilities(crops) == pytest.approx(CardReader(weights).probabilities(crops), abs=1e-3)

