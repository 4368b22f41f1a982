import json
import subprocess
import sys

import cv2
import threading

import numpy as np
import pytest

from companion.commands.recognize import recognize
from companion.vision.crops import SYMBOL_CLASSES, corner_squares
from companion.vision.detector import Detection, FakeDetector, recolour
from companion.synth.evaluation import evaluate, format_report, photo_set


def test_detector_fake_returns_best_first():
    fake = FakeDetector([Detection("red_5", 0.4, (0, 0, 1, 1)), Detection("blue_7", 0.9, (0, 0, 1, 1))])
    assert [d.card for d in fake.detect(np.zeros((4, 4, 3), np.uint8))] == ["blue_7", "red_5"]
    assert fake.calls == 1


@pytest.mark.parametrize("name, pixels, expected", [
    ("red_5", "blue", "blue_5"), ("red_skip", "green", "green_skip"), ("red_5", None, "red_5"),
    ("wild_draw_four", "red", "wild_draw_four"), ("yellow_9", "yellow", "yellow_9"),
])
def test_detector_colour_check_keeps_symbol(name, pixels, expected):
    assert recolour(name, pixels) == expected


def test_recognize_corrupt_and_missing_files_get_an_error_and_the_run_goes_on(tmp_path):
    good = tmp_path / "card.png"
    cv2.imwrite(str(good), np.zeros((20, 20, 3), np.uint8))
    bad = tmp_path / "corrupt.jpg"
    bad.write_bytes(b"\xff\xd8 not really a jpeg")
    fake = FakeDetector([Detection("green_3", 0.8, (1, 2, 3, 4))])
    out = recognize([str(bad), str(good), str(tmp_path / "gone.jpg")], fake)
    assert out[0] == {"image": str(bad), "error": "not a readable image"}
    assert out[1] == {"image": str(good), "cards": [{"card": "green_3", "confidence": 0.8, "box": [1.0, 2.0, 3.0, 4.0]}]}
    assert out[2]["error"] == "no such file"


def _tree(tmp_path):
    for name in ("red_5", "blue_7"):
        (tmp_path / name).mkdir()
        for i in range(2):
            cv2.imwrite(str(tmp_path / name / f"{i}.png"), np.full((10, 10, 3), i * 50, np.uint8))
    return tmp_path


def test_eval_photos_counts_accuracy_confusions_and_misses(tmp_path):
    pairs = photo_set(_tree(tmp_path))

    def script(frame):
        # Dark images are read as red_5; the others are missed.
        return [Detection("red_5", 0.9, (0, 0, 1, 1))] if frame.mean() == 0 else []

    report = evaluate(pairs, FakeDetector(script=script))
    assert report.total == 4 and report.correct == 1
    assert report.confusions[("blue_7", "red_5")] == 1
    assert report.colour_errors == 0
    assert len(report.not_found) == 2
    assert "top-1 25.0%" in format_report(report, "tiny")


def test_eval_photos_refuses_a_folder_that_is_not_a_card(tmp_path):
    from companion.errors import UnknownCardError

    (tmp_path / "red5").mkdir()
    with pytest.raises(UnknownCardError, match="red_5"):
        photo_set(tmp_path)


def test_recognize_cli_bad_conf_is_one_line(tmp_path):
    r = subprocess.run([sys.executable, "-m", "companion.cli", "recognize", "--conf", "2", "x.jpg"],
                       capture_output=True, text=True)
    assert r.returncode != 0 and r.stderr.strip().count("\n") == 0 and "--conf" in r.stderr


# --- The shipped model (skipped until models/uno-cards.pt exists). UNO_TEST_MODEL points the
# same tests at another checkpoint while one trains.
import os  # noqa: E402
from pathlib import Path  # noqa: E402

from companion.referee.cards import CARD_NAMES  # noqa: E402
from companion.vision.detector import YoloDetector
from companion.vision.models import MODELS_DIR  # noqa: E402

SHIPPED = Path(os.environ.get("UNO_TEST_MODEL", MODELS_DIR / "uno-cards.pt"))
shipped_only = pytest.mark.skipif(not SHIPPED.exists(), reason=f"{SHIPPED.name} not trained yet")
# Floors sit below what the shipped model measured (models/README.md; each stage's sample figures
# in models/HISTORY.md); raise them with it.
# The shipped finder (stage 7) + reader (stage 13, read both ways up, with its corners)
# measured: real samples set-a 106/108, set-b 108/108 (full sets 99.0% and 99.0%), colour
# confusions 0 and 0. set-a's floor is the 97 % target (105/108), one photo under
# what it measured, so a near-tie read by another onnxruntime build cannot fail it alone.
RENDERED_FLOOR = 17 / 19
REAL_FLOOR = {"set-a": 105 / 108, "set-b": 106 / 108}


@pytest.fixture(scope="module")
def shipped():
    onnx = SHIPPED.with_suffix(".onnx")
    return YoloDetector(onnx if onnx.exists() else SHIPPED)


def _card_on_table(name: str, design: str, height: int = 260, size=(480, 640)) -> tuple[np.ndarray, tuple[int, int, int, int]]:
    from companion.synth.render import render_card

    table = np.full((*size, 3), (70, 110, 60), np.uint8)  # green felt
    face = render_card(name, design, height)
    h, w = face.shape[:2]
    alpha = face[:, :, 3:4].astype(np.float32) / 255
    y, x = (size[0] - h) // 2, (size[1] - w) // 2
    region = table[y:y + h, x:x + w].astype(np.float32)
    table[y:y + h, x:x + w] = (face[:, :, :3] * alpha + region * (1 - alpha)).astype(np.uint8)
    return table, (x, y, x + w, y + h)


@shipped_only
def test_shipped_model_uses_its_reader_and_can_do_without(shipped):
    from companion.vision.reader import default_reader_weights

    if default_reader_weights() is None:
        pytest.skip("no reader shipped")
    assert shipped.reader is not None
    alone = YoloDetector(SHIPPED.with_suffix(".onnx") if SHIPPED.with_suffix(".onnx").exists() else SHIPPED, reader=False)
    assert alone.reader is None
    table, _ = _card_on_table("blue_7", "classic")
    assert all(d.card in CARD_NAMES for d in alone.detect(table))


@shipped_only
def test_a_card_filling_the_picture_is_read_whole_when_no_box_is_found(shipped, monkeypatch):
    if shipped.reader is None:
        pytest.skip("no reader shipped")
    table, (x1, y1, x2, y2) = _card_on_table("red_7", "classic", height=300, size=(320, 220))
    monkeypatch.setattr(shipped, "box_conf", 0.999)  # the detector finds nothing this sure
    found = shipped.detect(table)
    assert found and found[0].card == "red_7"
    assert found[0].box == (0.0, 0.0, 220.0, 320.0)


@shipped_only
def test_a_hazy_picture_is_looked_at_again_with_contrast_and_colour_brought_up(shipped, monkeypatch):
    if shipped.reader is None:
        pytest.skip("no reader shipped")
    table, (x1, y1, x2, y2) = _card_on_table("blue_4", "modern")
    hazy = (table.astype(np.float32) * 0.4 + 150).astype(np.uint8)  # a cheap webcam's washed-out picture
    looks, first_look = [], shipped._find

    def find(frame):
        looks.append(frame)
        return [] if len(looks) == 1 else first_look(frame)  # the first look finds nothing

    monkeypatch.setattr(shipped, "_find", find)
    found = shipped.detect(hazy)
    assert len(looks) == 3  # as it is; balanced on its channels' means; and vivid
    saturation = [cv2.cvtColor(f, cv2.COLOR_BGR2HSV)[:, :, 1].mean() for f in looks]
    assert looks[2].std() > looks[0].std() and saturation[2] > 1.5 * saturation[0]
    assert found and found[0].card == "blue_4"
    bx1, by1, bx2, by2 = found[0].box
    assert abs((bx1 + bx2) / 2 - (x1 + x2) / 2) < 20 and abs((by1 + by2) / 2 - (y1 + y2) / 2) < 20


@shipped_only
def test_a_warm_bulbs_picture_is_looked_at_again_with_the_cast_taken_off(shipped, monkeypatch):
    from companion.vision.photometric import card_white, cast, channel_gains, colour_temperature, exposure

    table, (x1, y1, x2, y2) = _card_on_table("blue_4", "classic")
    warm = colour_temperature(channel_gains(exposure(table, 0.55), (0.9, 1.0, 1.05)), 2700)  # a dim bulb on a webcam already a bit warm
    box = [(float(x1), float(y1), float(x2), float(y2))]
    assert cast(card_white(warm, box)) > shipped.finder_cast  # more than the finder ever saw in training
    looks, first_look = [], shipped._find
    monkeypatch.setattr(shipped, "_find", lambda frame: looks.append(frame) or first_look(frame))
    found = shipped.detect(warm)
    assert len(looks) == 2
    assert cast(card_white(looks[1], box)) < 1.1  # the second look sees the card's white grey
    assert found and found[0].card == "blue_4"


@shipped_only
def test_one_camera_under_a_warm_bulb_is_looked_at_once_a_frame_after_the_first(monkeypatch):
    from companion.vision.photometric import channel_gains, colour_temperature, exposure

    onnx = SHIPPED.with_suffix(".onnx")
    camera = YoloDetector(onnx if onnx.exists() else SHIPPED, remember_light=True)  # as `run` makes it
    table, _ = _card_on_table("blue_4", "classic")
    warm = colour_temperature(channel_gains(exposure(table, 0.55), (0.9, 1.0, 1.05)), 2700)
    looks, first_look = [], camera._find
    monkeypatch.setattr(camera, "_find", lambda frame: looks.append(frame) or first_look(frame))
    reads = []
    for frame in (warm, warm, table):
        looks.clear()
        found = camera.detect(frame)
        reads.append((found[0].card if found else None, len(looks)))
    # the first warm frame is looked at twice, the next once (its light remembered); the bulb
    # switched off, the frame is looked at as it is, once
    assert reads == [("blue_4", 2), ("blue_4", 1), ("blue_4", 1)]
    assert camera._light is None


@shipped_only
def test_a_dark_rooms_frame_is_brightened_for_the_finder_and_read_as_it_was(shipped, monkeypatch):
    from companion.vision.photometric import FINDER_DARK, FINDER_TONE, brightened

    table, _ = _card_on_table("green_7", "classic")
    dark = cv2.LUT(table, np.clip(255 * (np.arange(256) / 255) ** 1.6, 0, 255).astype(np.uint8))  # the benchmark's gamma 1.6
    assert np.median(cv2.cvtColor(dark, cv2.COLOR_BGR2GRAY)) < FINDER_DARK  # darker than 95 % of training
    seen, find = [], shipped.finder.find
    monkeypatch.setattr(shipped.finder, "find", lambda frame, *a, **k: seen.append(frame) or find(frame, *a, **k))
    found = shipped.detect(dark)
    assert abs(np.median(cv2.cvtColor(seen[0], cv2.COLOR_BGR2GRAY)) - FINDER_TONE) < 12
    assert found and found[0].card == "green_7"  # the readers saw the dark frame's own colours
    seen.clear()
    shipped.detect(table)
    assert seen[0] is table and brightened(table) is table  # a frame as bright as training: untouched


@shipped_only
def test_a_clear_picture_is_looked_at_once(shipped, monkeypatch):
    table, _ = _card_on_table("red_7", "classic")
    looks, first_look = [], shipped._find
    monkeypatch.setattr(shipped, "_find", lambda frame: looks.append(frame) or first_look(frame))
    assert shipped.detect(table)[0].card == "red_7" and len(looks) == 1


@shipped_only
def test_shipped_model_knows_every_card_name(shipped):
    assert set(shipped.names) <= set(CARD_NAMES) and len(shipped.names) >= 54


@shipped_only
def test_shipped_model_reads_rendered_cards_on_a_table(shipped):
    from companion.synth.render import render_card

    names = CARD_NAMES[::3]
    right = 0
    for i, name in enumerate(names):
        table, (x, y, x2, y2) = _card_on_table(name, ("classic", "modern")[i % 2])
        found = shipped.detect(table)
        if found:
            box = found[0].box
            assert box[0] < x2 and box[2] > x and box[1] < y2 and box[3] > y  # on the card
        right += bool(found) and found[0].card == name
    assert right / len(names) >= RENDERED_FLOOR


@shipped_only
@pytest.mark.parametrize("photo_set_name", ["set-a", "set-b"])
def test_shipped_model_reads_a_fixed_sample_of_real_photos(shipped, shared_dir, photo_set_name):
    pairs = photo_set(shared_dir / "data" / "real-photos" / photo_set_name, limit_per_class=2)
    report = evaluate(pairs, shipped)
    assert report.total == len(pairs) == 108
    assert report.accuracy >= REAL_FLOOR[photo_set_name], format_report(report, photo_set_name)
    assert report.colour_errors <= 2, format_report(report, photo_set_name)  # the pixel check


class _ReaderByBrightness:
    """A stand-in reader: a corner square painted white reads as `corner`, one painted light
    grey as `second` (if given), an unpainted one (a card's blank corner) as `blank` (if
    given), anything else (the whole card) as `whole`; each (symbol, p) puts p on its symbol
    and spreads the rest evenly. Counts the crops it was shown."""

    names = list(SYMBOL_CLASSES)

    def __init__(self, whole: tuple[str, float], corner: tuple[str, float],
                 blank: tuple[str, float] | None = None, second: tuple[str, float] | None = None) -> None:
        self.whole, self.corner, self.blank, self.second, self.seen = whole, corner, blank, second, 0

    def _row(self, symbol: str, p: float) -> np.ndarray:
        row = np.full(len(self.names), (1 - p) / (len(self.names) - 1))
        row[self.names.index(symbol)] = p
        return row

    def _read_of(self, crop: np.ndarray) -> tuple[str, float]:
        mean = crop.mean()
        if mean > 230 or (mean > 180 and self.second is None):
            return self.corner
        if mean > 180:
            return self.second  # type: ignore[return-value]
        if self.blank is not None and crop.std() < 1:
            return self.blank
        return self.whole

    def probabilities(self, crops, turns=None):
        self.seen += len(crops)
        return np.array([self._row(*self._read_of(c)) for c in crops]).reshape(-1, len(self.names))


def _corner_frame(width: int = 300, second: bool = False):
    """A grey card `width` pixels wide whose top-left corner square (where the reader looks
    for its index) is white; with `second`, its bottom-right one light grey."""
    frame = np.full((2 * width + 100, width + 100, 3), 90, np.uint8)
    box = (50.0, 50.0, 50.0 + width, 50.0 + 2 * width)
    squares = corner_squares(box)
    x1, y1, x2, y2 = (int(v) for v in squares[0])
    frame[y1:y2, x1:x2] = 250
    if second:
        x1, y1, x2, y2 = (int(v) for v in squares[2])
        frame[y1:y2, x1:x2] = 210
    return frame, box


BLANK = ("none", 0.9)  # what a card's blank corner reads as


@pytest.mark.parametrize("whole, corner, second, expected, looks", [
    (("9", 0.8), ("8", 0.97), None, ("8", 0.8), 5),    # a thumb over the 8's lower loop: its corner index names it
    (("1", 0.5), ("7", 0.95), None, ("7", 0.5), 5),    # a weak whole read: the sure corner names it
    (("1", 0.99), ("7", 0.6), None, ("1", 0.99), 5),   # a sure whole read outweighs an unsure corner
    # a tilted card's small 3 read surely as an 8 beside its other corner's 3: the corners
    # weigh against each other and the whole card's sure 3 decides (set-a's yellow 3)
    (("3", 0.93), ("8", 0.98), ("3", 0.57), ("3", 0.93), 5),
    (("9", 0.6), ("6", 0.99), ("6", 0.7), ("6", 0.6), 5),  # two corners agreeing outweigh a whole read
    (("1", 0.5), ("wild_draw_four", 0.99), None, ("1", 0.5), 5),  # a corner never names a wild
    (("1", 0.6), ("none", 0.99), None, ("1", 0.6), 5),  # nor says there is no card
    (("none", 0.5), ("7", 0.99), None, ("none", 0.5), 1),  # no card seen: corners not asked
    (("wild_draw_four", 0.55), ("4", 0.91), None, ("wild_draw_four", 0.55), 1),  # a wild's corner "+4" reads as a 4
])
def test_the_whole_card_and_its_corner_indices_name_it_together(whole, corner, second, expected, looks):
    frame, box = _corner_frame(second=second is not None)
    detector = object.__new__(YoloDetector)  # just the reading step: no model needed
    detector.reader = _ReaderByBrightness(whole, corner, BLANK, second)
    symbol, p = detector._read(frame, [box])[0]
    assert (symbol, round(p, 6)) == expected
    assert detector.reader.seen == looks


@pytest.mark.parametrize("width, whole, expected, looks", [
    # The demo's yellow 3, 111 px wide, has 50 px corner squares: its index, blown up to the
    # reader's input, reads as a 1 at 0.99; so small a corner counts for less than the whole
    # card's sure 3, where a corner as large as the reader's input would have outvoted it.
    (110, ("3", 0.99), "3", 5),
    (300, ("3", 0.99), "1", 5),
    # a card at a third of the picture, its whole crop unsure: its small corner index names it
    (110, ("9", 0.5), "1", 5),
    # a corner of a few pixels is not read at all
    (30, ("9", 0.5), "9", 1),
])
def test_a_small_corner_counts_for_less_and_a_tiny_one_is_not_read(width, whole, expected, looks):
    detector = object.__new__(YoloDetector)
    detector.reader = _ReaderByBrightness(whole, ("1", 0.995), BLANK)
    frame, box = _corner_frame(width)
    assert detector._read(frame, [box])[0][0] == expected
    assert detector.reader.seen == looks


class _SureReader(_ReaderByBrightness):
    """A stand-in reader that reads every crop surely as the same symbol."""

    def __init__(self, symbol: str) -> None:
        super().__init__((symbol, 0.99), (symbol, 0.99))


def _reading_detector(symbol: str, box) -> YoloDetector:
    from companion.vision.colour import default_colour_reader

    detector = object.__new__(YoloDetector)  # the reading steps only: no card model needed
    detector.reader, detector.conf = _SureReader(symbol), 0.1
    detector.colour_reader, detector.calibration, detector.learn_colours = default_colour_reader(), None, False
    detector._lock = threading.RLock()
    detector._find = lambda frame: [(box, None, 0.9)]
    detector.colourless_total = 0
    return detector


@pytest.mark.parametrize("name", ["wild", "wild_draw_four", "wild_shuffle_hands", "wild_swap_hands",
                                  "wild_customizable"])
@pytest.mark.parametrize("design", ["classic", "modern"])
def test_a_wild_is_named_only_where_a_wild_is_printed(name, design):
    table, box = _card_on_table(name, design)
    hazy = (table.astype(np.float32) * 0.5 + 60).astype(np.uint8)
    assert [d.card for d in _reading_detector(name, box)._detect_and_read(hazy)] == [name]
    # Black headphones against a pale wall read as a wild draw four in a webcam frame: they
    # have the wild's black but none of the colour every wild carries, so they are no card.
    wall = np.full((480, 640, 3), (200, 215, 205), np.uint8)
    cv2.ellipse(wall, (320, 240), (90, 130), 0, 0, 360, (30, 32, 35), -1)
    cv2.ellipse(wall, (320, 240), (50, 90), 0, 0, 360, (60, 62, 66), -1)
    assert _reading_detector(name, (200.0, 90.0, 440.0, 390.0))._detect_and_read(wall) == []


class _TornReader:
    """A stand-in reader torn between two symbols: `first` at 0.55, `second` at 0.44."""

    names = list(SYMBOL_CLASSES)

    def __init__(self, first: str, second: str) -> None:
        self.row = np.full(len(self.names), 0.01 / (len(self.names) - 2))
        self.row[self.names.index(first)], self.row[self.names.index(second)] = 0.55, 0.44

    def probabilities(self, crops, turns=None):
        return np.array([self.row for _ in crops]).reshape(-1, len(self.names))


@pytest.mark.parametrize("name, first, second", [
    # set-a's classic draw twos read as a wild draw four: their one colour, read surely, names them
    ("red_draw_two", "wild_draw_four", "draw_two"),
    ("blue_draw_two", "wild_draw_four", "draw_two"),
    ("green_skip", "wild_shuffle_hands", "skip"),
])
@pytest.mark.parametrize("design", ["classic", "modern"])
def test_a_card_read_between_a_wild_and_a_coloured_card_is_named_by_its_colours(name, first, second, design):
    table, box = _card_on_table(name, design)
    detector = _reading_detector(second, box)
    detector.reader = _TornReader(first, second)
    assert [d.card for d in detector._detect_and_read(table)] == [name]


def test_a_colour_read_surely_makes_a_wild_less_likely():
    from companion.vision.colour import weigh_wilds, wild_likelihood

    sure, torn = np.array([0.001, 0.998, 0.0005, 0.0005]), np.array([0.35, 0.3, 0.2, 0.15])
    assert wild_likelihood(sure) < 0.2 and wild_likelihood(torn) > 5  # the fit's ratio, both ways
    names = list(SYMBOL_CLASSES)
    symbols = np.full(len(names), 0.01 / (len(names) - 2))
    symbols[names.index("wild_draw_four")], symbols[names.index("draw_two")] = 0.6, 0.39
    assert names[int(weigh_wilds(symbols, names, sure).argmax())] == "draw_two"
    # A colour read unsure of every colour does not lift the wilds: the fit saw boxes of cards only,
    # and a box of no card (a honeycomb table's cell) or a card half in view reads unsure too.
    assert np.allclose(weigh_wilds(symbols, names, torn), symbols)
    assert weigh_wilds(symbols, names, sure).sum() == pytest.approx(1.0)


@pytest.mark.parametrize("name", ["red_7", "yellow_skip", "green_draw_two", "blue_0"])
def test_a_card_in_a_black_and_white_picture_is_not_named(name):
    # A camera in its night mode sends grey frames: the symbol still reads, the colour cannot,
    # and a guessed colour would call an honest play illegal. So the card is not named, and the
    # detector says why (recognize and the console tell the user).
    table, box = _card_on_table(name, "modern")
    detector = _reading_detector(name.split("_", 1)[1], box)
    assert [d.card for d in detector._detect_and_read(table)] == [name]
    assert detector.colourless == 0
    grey = cv2.cvtColor(cv2.cvtColor(table, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    assert detector._detect_and_read(grey) == []
    assert detector.colourless == 1 and detector.colourless_total == 1
    coded = np.clip(grey.astype(np.int16) + np.array([0, 1, 3]), 0, 255).astype(np.uint8)  # a codec's grey: 3 apart
    assert detector._detect_and_read(coded) == [] and detector.colourless_total == 2
    washed = (table.astype(np.float32) * 0.35 + cv2.cvtColor(grey, cv2.COLOR_BGR2GRAY)[..., None] * 0.65)
    assert [d.card for d in detector._detect_and_read(washed.astype(np.uint8))] == [name]  # faint colour still counts
    from companion.vision.photometric import apply_shift

    dark = (apply_shift("gamma 1.6", table) * 0.2).astype(np.uint8)  # a dim room: dark ink is still ink
    assert [d.card for d in detector._detect_and_read(dark)] == [name]
    assert detector.colourless == 0 and detector.colourless_total == 2


@pytest.mark.parametrize("weak_box, found", [
    ((80.0, 20.0, 150.0, 180.0), 2),   # over the seam of two surer cards: not a third card
    ((300.0, 20.0, 380.0, 180.0), 3),  # on its own: a weak box is still read
])
def test_a_weak_box_over_the_seam_of_two_cards_is_not_a_third_card(weak_box, found):
    # A revealed hand's cards overlap; the finder once saw a weak box where two met, the
    # reader named it a 6, and the hand was scored with a card too many.
    from companion.synth.render import render_card

    frame = np.full((200, 400, 3), (60, 110, 70), np.uint8)
    for name, (x1, x2) in (("red_6", (20, 120)), ("blue_6", (110, 210)), ("red_6", (300, 380))):
        # a red card, a blue card lying over its edge, a red card apart (each card carries
        # its white, as the colour reader expects of a card)
        frame[20:180, x1:x2] = cv2.resize(render_card(name, "classic", 160)[:, :, :3], (x2 - x1, 160))
    detector = _reading_detector("6", (0, 0, 0, 0))  # the shipped seam_conf and seam_cover
    boxes = [((20.0, 20.0, 120.0, 180.0), None, 0.7), ((110.0, 20.0, 210.0, 180.0), None, 0.6),
             (weak_box, None, 0.05)]
    detector._find = lambda frame: boxes
    cards = detector.detect(frame)
    assert len(cards) == found
    assert sorted(c.card for c in cards)[:2] == ["blue_6", "red_6"]


@shipped_only
@pytest.mark.slow
def test_shipped_model_watching_the_demo_names_every_card_laid_and_revealed(repo_root, capsys):
    # What a newcomer sees first: `uno-companion run` plays this video to the phones.
    from companion.cli import main as cli
    from companion.commands.bench_watch import score
    from companion.vision.truth import read_truth

    demo = repo_root / "companion" / "data" / "demo"
    assert cli(["watch", str(demo / "demo.mp4"), "--zones", str(demo / "zones.json"), "--json"]) == 0
    seen = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.strip()]
    figures = score(read_truth(demo / "demo.jsonl"), seen)
    # 28 cards laid; four hands shown: the challenged player's twice (wild draw fours judged
    # from the reveal area), then the two losers' at the end of the hand
    assert figures["cards_laid"] >= 25 and figures["reveals"] == 4
    assert (figures["phantom"], figures["missed"], figures["wrong_names"], figures["wrong_kind"]) == (0, 0, 0, 0)


@shipped_only
def test_cards_under_an_amber_filament_bulb_are_found_and_named(shipped):
    # A 2200 K bulb under a daylight-balanced camera tints the cards' white past the cast taken
    # for light, and the finder sees nothing at first; its look at the picture balanced on its
    # own brightest part must not stop at that cap, or half these cards go unseen.
    from companion.referee.cards import deck
    from companion.synth.scenes import pile_scene
    from companion.synth.themedcrops import themed_bank
    from companion.vision.crops import box_iou
    from companion.vision.photometric import colour_temperature

    names = sorted(deck("classic"))
    bank, rng = themed_bank(110, variants=2), np.random.default_rng(16)
    right = 0
    for name in names[::3]:
        frame, box = pile_scene(rng, bank, name, below=names)
        found = shipped.detect(colour_temperature(frame, 2200))
        right += any(d.card == name and box_iou(d.box, box) >= 0.5 for d in found)
    assert right >= 15, f"{right} of {len(names[::3])} read under 2200 K"


@shipped_only
def test_one_camera_remembers_the_light_of_its_cards_not_of_a_yellow_table(monkeypatch):
    # On a honeycomb table the finder's weak boxes of bright yellow cells outnumbered the cards;
    # their "white", remembered and taken off the next frames, turned the cards' white blue.
    onnx = SHIPPED.with_suffix(".onnx")
    camera = YoloDetector(onnx if onnx.exists() else SHIPPED, remember_light=True)  # as `run` makes it
    table, _ = _card_on_table("blue_4", "classic")
    cells = [(10, 40, 110, 160), (10, 300, 110, 420), (530, 40, 630, 160)]
    for x1, y1, x2, y2 in cells:
        table[y1:y2, x1:x2] = (90, 200, 225)  # pale yellow, tinted as a warm bulb's white could be
    first_look = camera._find
    monkeypatch.setattr(camera, "_find", lambda frame: first_look(frame) + [
        ((float(x1), float(y1), float(x2), float(y2)), "yellow_1", 0.12) for x1, y1, x2, y2 in cells])
    for _ in range(2):
        assert [d.card for d in camera.detect(table)] == ["blue_4"]
        assert camera._light is None  # the card's white is grey: no light to take off


@shipped_only
def test_a_dull_card_is_read_against_its_own_white_not_a_yellow_tables(shipped, monkeypatch):
    # The real-card habits bench's honeycomb table: the finder boxed its waxy yellow cells more
    # surely than the card, their "white" outvoted the card's, and taken off the frame it turned
    # a dull webcam green blue (green 9 read blue 9 twice in one video). A card is read surely:
    # its colour is read against its own white.
    from companion.synth.render import render_card
    from companion.vision.photometric import saturation

    cells = [(float(x), float(y), float(x + 70), float(y + 90)) for x in (10, 90, 170) for y in (20, 200, 360)]
    first_look = shipped._find
    for name in ("green_9", "green_4", "yellow_5"):
        frame = np.full((480, 640, 3), (105, 110, 112), np.uint8)
        face = render_card(name, "modern", 150)
        h, w = face.shape[:2]
        alpha = face[:, :, 3:4] / 255.0
        frame[160:160 + h, 420:420 + w] = (face[:, :, :3] * alpha + frame[160:160 + h, 420:420 + w] * (1 - alpha)).astype(np.uint8)
        frame[:, 300:] = saturation(frame[:, 300:], 0.4)  # a dull webcam's card
        frame[:, :300] = (120, 215, 250)  # the table's waxy yellow, pale enough to pass for a white
        monkeypatch.setattr(shipped, "_find", lambda f: first_look(f) + [(box, "wild_draw_four", 0.3) for box in cells])
        assert [d.card for d in shipped.detect(frame) if d.box[0] > 350] == [name]
        monkeypatch.setattr(shipped, "_find", first_look)


@shipped_only
def test_one_camera_under_an_amber_bulb_is_looked_at_once_a_frame_after_the_first(monkeypatch):
    # Under 2200 K the finder sees the cards only in the picture balanced past the cap (three
    # looks: as it is, then balanced two ways); `run`'s detector remembers that light, as it
    # does a milder warm bulb's.
    from companion.referee.cards import deck
    from companion.synth.scenes import pile_scene
    from companion.synth.themedcrops import themed_bank
    from companion.vision.crops import box_iou
    from companion.vision.photometric import colour_temperature

    onnx = SHIPPED.with_suffix(".onnx")
    camera = YoloDetector(onnx if onnx.exists() else SHIPPED, remember_light=True)  # as `run` makes it
    looks, first_look = [], camera._find
    monkeypatch.setattr(camera, "_find", lambda frame: looks.append(frame) or first_look(frame))
    names = sorted(deck("classic"))
    bank, rng = themed_bank(110, variants=2), np.random.default_rng(16)
    piles = [pile_scene(rng, bank, name, below=names) + (name,) for name in names[::6]]
    right, counts = 0, []
    for frame, box, name in piles + piles[:1]:
        looks.clear()
        found = camera.detect(colour_temperature(frame, 2200))
        right += any(d.card == name and box_iou(d.box, box) >= 0.5 for d in found)
        counts.append(len(looks))
    assert counts[0] == 3 and counts[1:] == [1] * len(piles), counts  # once known, one look a frame
    assert right >= len(piles), f"{right} of {len(piles) + 1} read"
    # the bulb switched off: the frame is read right, and the light forgotten
    frame, box, name = piles[0]
    assert [d.card for d in camera.detect(frame)][:1] == [name] and camera._light is None


@shipped_only
def test_bench_vision_times_frames_through_a_light_as_run_reads_them(capsys):
    import re

    from companion.cli import main

    assert main(["bench-vision", "--frames", "12", "--light", "2200K"]) == 0
    out = capsys.readouterr().out
    assert "through 2200K (light remembered" in out
    looks = [float(x) for x in re.findall(r"([\d.]+) finder looks a frame", out)]
    # the light found on the first frame is taken off the next before the finder looks
    assert looks and all(x <= 1.3 for x in looks), out  # 1.38-1.46 without


@shipped_only
def test_cards_seen_only_with_a_strong_tint_taken_off_are_read_with_it_off(shipped):
    # Under a 2000 K light the cards' white is tinted far past the cap: once the finder has seen
    # the cards in the picture balanced on its brightest part, their colours are read balanced
    # too (left warm, a quarter of these read in another colour: an honest play called illegal).
    from companion.referee.cards import deck
    from companion.synth.scenes import pile_scene
    from companion.synth.themedcrops import themed_bank
    from companion.vision.crops import box_iou
    from companion.vision.photometric import colour_temperature

    names = sorted(deck("classic"))[::2]
    bank, rng = themed_bank(110, variants=2), np.random.default_rng(16)
    right = wrong_colour = 0
    for name in names:
        frame, box = pile_scene(rng, bank, name, below=sorted(deck("classic")))
        seen = [d.card for d in shipped.detect(colour_temperature(frame, 2000)) if box_iou(d.box, box) >= 0.5]
        right += name in seen
        wrong_colour += any(c != name and c.split("_", 1)[1:] == name.split("_", 1)[1:] for c in seen)
    assert right >= 22 and wrong_colour <= 1, f"{right} of {len(names)} right, {wrong_colour} in another colour"


@shipped_only
def test_cards_in_a_dim_room_under_a_warm_bulb_beside_a_burnt_out_window_are_found(shipped):
    # A webcam in a dim room under a 2200 K bulb, a window above burnt out white: the finder sees
    # nothing at first, and balancing the picture on its brightest part balances it on the
    # window. Balanced on its channels' means (a camera's own white balance) the cards show.
    # (Set-b under 2700 K had five such webcam frames with no card found, three now found.)
    from companion.referee.cards import deck
    from companion.synth.scenes import pile_scene
    from companion.synth.themedcrops import themed_bank
    from companion.vision.crops import box_iou
    from companion.vision.photometric import colour_temperature

    names = sorted(deck("classic"))[::3]
    bank, rng = themed_bank(110, variants=2), np.random.default_rng(16)
    right = 0
    for name in names:
        frame, box = pile_scene(rng, bank, name, below=sorted(deck("classic")))
        frame = (frame.astype(np.float32) * 0.6).astype(np.uint8)
        frame[: frame.shape[0] // 4] = 255
        seen = [d.card for d in shipped.detect(colour_temperature(frame, 2200)) if box_iou(d.box, box) >= 0.5]
        right += name in seen
    assert right >= 16, f"{right} of {len(names)} found and named"  # 11 without the look
