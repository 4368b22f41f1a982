"""The recognizer: a frame in, the cards in it out (card name, confidence, box).

`YoloDetector` runs the shipped model from `models/` (the exported ONNX model when present,
on onnxruntime with the project's own pre/post-processing, finder.py; else the PyTorch
weights through ultralytics, which needs the `[train]` extra) and checks each coloured
card's colour against its pixels.
`FakeDetector` is the test double: it returns preset detections.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Protocol, Sequence

import cv2
import numpy as np

from companion.vision.calibration import SURE, PlayCalibrator, fit, ink
from companion.vision.crops import NONE, READER_SIZE, corner_squares, crop_square
from companion.referee.cards import CARD_NAMES, COLORS, parse_card
from companion.errors import CompanionError, InputFileError
from companion.vision.finder import calm_onnx_session, check_weights, nms, open_finder
from companion.vision.models import MODEL_STEM, MODELS_DIR
from companion.vision.photometric import (FINDER_GAINS, MAX_GAIN, brightened, card_white, cast, grey_world,
                                          neutral_light, white_balanced)


@dataclass(frozen=True)
class Detection:
    card: str
    confidence: float
    box: tuple[float, float, float, float]  # x1, y1, x2, y2 in pixels
    # The likeliest card names with their probabilities, best first (at most three); the
    # referee weighs them against the table (a legal card is likelier than an illegal one).
    # Empty when the recognizer gives one name only: then `card` at `confidence` is all.
    top: tuple[tuple[str, float], ...] = ()

    def readings(self) -> tuple[tuple[str, float], ...]:
        """`top`, or the one reading (card, confidence) when there is no `top`."""
        return self.top or ((self.card, float(self.confidence)),)

    def moved(self, dx: float, dy: float) -> "Detection":
        """The same detection with its box shifted (a crop's box back in frame pixels)."""
        x1, y1, x2, y2 = self.box
        return Detection(self.card, self.confidence, (x1 + dx, y1 + dy, x2 + dx, y2 + dy), self.top)

    def to_dict(self) -> dict:
        out = {"card": self.card, "confidence": round(float(self.confidence), 4),
               "box": [round(float(v), 1) for v in self.box]}
        if self.top:
            out["top"] = [{"card": n, "probability": round(float(p), 4)} for n, p in self.top]
        return out


class Detector(Protocol):
    def detect(self, frame: np.ndarray) -> list[Detection]:
        """Cards in a BGR frame, best first."""
        ...


class ModelMissingError(CompanionError, FileNotFoundError):
    exit_code = 2


def default_weights() -> Path:
    """The model `YoloDetector` loads by default: the ONNX export when it exists."""
    onnx = MODELS_DIR / f"{MODEL_STEM}.onnx"
    if onnx.exists():
        return onnx
    return MODELS_DIR / f"{MODEL_STEM}.pt"


def vivid(frame: np.ndarray) -> np.ndarray:
    """The frame with its local contrast stretched (CLAHE on lightness) and its colour
    doubled: a cheap webcam's hazy picture, where the detector sees no card at all, shows
    it again (the reader and the colour check still look at the frame as it was)."""
    lab = cv2.cvtColor(frame, cv2.COLOR_BGR2LAB)
    lab[:, :, 0] = cv2.createCLAHE(clipLimit=2.0, tileGridSize=(8, 8)).apply(lab[:, :, 0])
    hsv = cv2.cvtColor(cv2.cvtColor(lab, cv2.COLOR_LAB2BGR), cv2.COLOR_BGR2HSV)
    hsv[:, :, 1] = np.clip(hsv[:, :, 1].astype(np.float32) * 1.8, 0, 255).astype(np.uint8)
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)


def _box_pixels(frame: np.ndarray, box: tuple[float, float, float, float]) -> np.ndarray | None:
    """The box's pixels clipped to the frame, or None for a box too small to judge colour."""
    h, w = frame.shape[:2]
    x1, y1, x2, y2 = (int(max(0, box[0])), int(max(0, box[1])), int(min(w, box[2])), int(min(h, box[3])))
    if x2 - x1 < 8 or y2 - y1 < 8:
        return None
    return frame[y1:y2, x1:x2]


def pixel_colour(frame: np.ndarray, box: tuple[float, float, float, float]) -> tuple[str | None, float]:
    """The colour reader's (colour, probability) for the box's card, read from the same
    square crop the card reader sees; (None, 0.0) for a box too small to tell."""
    from companion.vision.colour import card_colour

    return (None, 0.0) if _box_pixels(frame, box) is None else card_colour(crop_square(frame, box))


# A wild read in a box with less printed colour than this is something black that is not a
# card (headphones, a phone). Measured: wilds read right in the real photos hold at least
# 0.034, the rendered customizable wild (colour only in its corner badges) 0.016, and the
# headphones that read as a wild draw four in set-b 0.001.
_WILD_MIN_PRINTED_COLOUR = 0.005


def looks_like_a_wild(frame: np.ndarray, box: tuple[float, float, float, float]) -> bool:
    """Whether the box holds the printed colour every wild card carries somewhere."""
    from companion.vision.colour import printed_colour

    pixels = _box_pixels(frame, box)
    return pixels is not None and printed_colour(pixels) >= _WILD_MIN_PRINTED_COLOUR


# A number or action whose box shows less colour than this is in a black-and-white picture (a
# camera's night mode): its symbol reads, its colour would be a guess. Measured per pixel as how
# far its channels part from the box's median, over how far it lies from that median at all (+8
# of 255, so a flat patch's noise is no colour): a grey picture's channels move together, also
# through a video codec that leaves them a few units apart or a light balanced on a tinted grey;
# printed ink parts them. The 90th percentile of a box: 0-0.22 for grey pictures (as they are,
# through mp4v, and tinted up to 5 units then balanced), 0.43 at least for the numbers and
# actions of 150 rendered scenes under the colour reader's random lights darkened by gamma 1.6
# and half the exposure (0.69 as lit). Not by brightness or saturation: in a dark frame the ink
# is dark but still coloured (a bar on printed colour lost set-b's frames under gamma 1.6: 692 ->
# 631 of 702); not by the channels' spread alone: a codec's grey was 3 units apart, as far as the
# darkest rendered ink.
_MIN_COLOUR = 0.3


def shows_colour(frame: np.ndarray, box: tuple[float, float, float, float]) -> bool:
    """Whether the box's picture carries colour at all (not a black-and-white picture's)."""
    import cv2

    pixels = _box_pixels(frame, box)
    if pixels is None:
        return True  # too small to tell: the readers decide
    # at most 32 px a side (a card's inks are large; a frame of ten boxes must not wait on this)
    h, w = pixels.shape[:2]
    scale = min(1.0, 32 / max(h, w))
    small = cv2.resize(pixels, (max(1, round(w * scale)), max(1, round(h * scale))),
                       interpolation=cv2.INTER_AREA).astype(np.float32)
    off = small - np.median(small.reshape(-1, 3), axis=0)
    parted = (off.max(axis=2) - off.min(axis=2)) / (np.abs(off).mean(axis=2) + 8.0)
    return float(np.percentile(parted, 90)) >= _MIN_COLOUR


def recolour(name: str, pixel_colour: str | None) -> str:
    """The model's card name with its colour replaced by the pixels' colour (wilds kept)."""
    card = parse_card(name)
    if card.is_wild or pixel_colour is None or pixel_colour == card.color:
        return name
    return f"{pixel_colour}_{card.symbol}"


def log_pool(whole: np.ndarray, corners: Sequence[np.ndarray], weight: float = 1.0) -> np.ndarray:
    """One card's symbol probabilities from its whole crop's and its corners' reads, pooled in
    log space: the weighted geometric mean of the whole read (weight 1) and the corners' own
    weighted geometric mean (`weight`, 0-1: how well the corners could be read, from their
    size), each corner weighted by how sure it is (its likeliest name's probability), made to
    sum to one. A corner unsure of what it shows (a blur, a corner of clutter) moves the pool
    little; a sure one moves it much, as a thumbed 8's whole corner index outweighs its big
    glyph read as a 9; two sure corners that disagree are weighed against each other, not the
    surer taken alone (a tilted card's small 3 read as an 8 at 0.98 beside its other corner's
    3 outvoted the whole card's sure 3 so: set-a's yellow 3). Chosen over the mean of the whole
    and the surest corner, and over other pools, on rendered piles, rendered held and fanned
    cards and the shifted benchmark together (models/HISTORY.md, "corner indices")."""
    # A probability the reader rounds to zero must not veto a name outright: floored at 1e-6.
    reads = np.asarray(corners)
    sure = reads.max(axis=1)
    corner_logs = (sure[:, None] * np.log(reads + 1e-6)).sum(axis=0) / sure.sum()
    logs = (np.log(whole + 1e-6) + weight * corner_logs) / (1 + weight)
    pooled = np.exp(logs - logs.max())
    return pooled / pooled.sum()


def covered(box: tuple[float, float, float, float], others: list[tuple[float, float, float, float]],
            steps: int = 16) -> float:
    """The share of `box` lying under the union of `others` (sampled on a steps x steps grid)."""
    if not others:
        return 0.0
    x1, y1, x2, y2 = box
    xs = x1 + (np.arange(steps) + 0.5) * (x2 - x1) / steps
    ys = y1 + (np.arange(steps) + 0.5) * (y2 - y1) / steps
    gx, gy = np.meshgrid(xs, ys)
    under = np.zeros(gx.shape, bool)
    for ox1, oy1, ox2, oy2 in others:
        under |= (gx >= ox1) & (gx <= ox2) & (gy >= oy1) & (gy <= oy2)
    return float(under.mean())


class YoloDetector:
    """The shipped card model: a YOLO detector finds the cards, and (when the reader is
    shipped, see reader.py) a second stage names each found card's symbol from its crop
    while the pixels give its colour. Without a reader the detector's own class is used.

    `colour_check` (detector alone): trust the pixels' colour over the model's when the
    pixels are clear about it (colour confusions are the costly ones)."""

    reads_crops = True  # the watcher hands it a zone's crop, not the whole table
    box_conf = 0.05  # with a reader, weak boxes are still worth a look: the reader decides
    # Each corner square is read once, as it is: read both ways up too, the real photos read
    # the same (1023 / 693 against 1024 / 692) at 44 ms a frame against 31 ms.
    corner_turns = (0,)
    # A corner square smaller than the reader's input is blown up to it and its small index
    # blurs the more: it counts against the whole crop in proportion to its side (a 64 px corner
    # half as much as a 128 px one), not all or nothing. Until 28 Nov corners under 64 px were
    # not read at all (the demo's yellow 3, 50 px corners, read as a 1 at 0.99) and larger ones
    # counted fully; weighed so, a card at a third of the picture is named by its corner index
    # where the whole crop is unsure (set-b's blue 3s and yellow 5s), and the demo's 3 stays a 3.
    # One under an eighth of the input (an index of a few pixels) is not read: it could hardly
    # move the pool, and a table of small cards would read five crops a card for it. Chosen on
    # synthetic scenes, rendered piles, the watcher's rendered habits and the shifted benchmark
    # (models/HISTORY.md, "corner indices").
    full_corner = READER_SIZE
    min_corner = READER_SIZE / 8
    max_reads = 10  # crops read per frame, best boxes first (a revealed hand is up to about ten)
    # A box the finder barely saw that lies almost wholly over surer cards is the seam where
    # two overlapping cards meet, not a third card (a revealed hand read a seam as a 7th card).
    seam_conf, seam_cover = 0.1, 0.85
    # The strongest cast on the cards' white the finder was trained with (scenes' per-channel
    # gains): beyond it (a 2700 K bulb is about 2.9) it misses or misplaces cards, so it looks
    # again at the frame with the cast taken off. Chosen from the training recipe, checked on
    # the shifted benchmark's sample: 2700 K 100 -> 105 / 108 (set-a), 101 -> 107 (set-b),
    # every other shift unchanged. Below it one pass keeps a frame within bench-vision's budget.
    finder_cast = FINDER_GAINS[1] / FINDER_GAINS[0]
    remember_light = False  # see __init__
    _light: np.ndarray | None = None  # the cast the last frame needed taken off (remember_light)
    _light_cap = MAX_GAIN  # how strong a tint that light was taken off with (np.inf: the amber bulb's)
    themed_reader: Any = None  # see __init__: only at a themed deck's table
    wild_odds = True  # weigh the wilds by the colour read (colour.weigh_wilds); off while fitting those odds

    def __init__(self, weights: str | Path | None = None, conf: float = 0.25, iou: float = 0.5,
                 imgsz: int | None = None, colour_check: bool = True, min_colour_share: float = 0.7,
                 reader: str | Path | None | bool = True, colour: str | Path | None | bool = True,
                 calibration: Any = None, learn_colours: bool = False, remember_light: bool = False,
                 themed: str | Path | None | bool = False) -> None:
        path = Path(weights) if weights else default_weights()
        if not path.exists():
            raise ModelMissingError(f"card model not found: {path} (train one with `uno-companion train`)")
        check_weights(path)  # a folder or a wrong file: said before the readers load
        from companion.vision.colour import ColourReader
        from companion.vision.reader import CardReader, default_reader_weights

        reader_path = default_reader_weights() if reader is True else (Path(reader) if reader else None)
        self.reader = CardReader(reader_path) if reader_path is not None else None
        self.colour_reader = ColourReader(None if colour is True else colour) if colour else None
        # `themed`: the table plays a themed deck (UNO Flip, discard two, reflect, Dementor), so
        # each card is also read by the themed reader, which names themed cards by whole name
        # and says "classic" for the faces the readers above name. Off for a classic deck: a
        # classic reverse must never be named a flip card there.
        self.themed_reader = None
        if themed:
            from companion.vision.crops import THEMED_CLASSES
            from companion.vision.reader import THEMED_STEM

            themed_path = default_reader_weights(THEMED_STEM) if themed is True else Path(themed)
            if themed_path is None:
                raise ModelMissingError(f"themed reader not found in {MODELS_DIR} (train one with "
                                        "`uno-companion train --themed`)")
            self.themed_reader = CardReader(themed_path, classes=THEMED_CLASSES, what="themed reader")
        # The table's own colour groups (calibration.py), when set up. `learn_colours`: sure
        # reads move them (and, with none set up, form them). Off by default: a detector that
        # reads photos from many cameras (eval-photos, recognize) must not learn one camera's
        # colours and apply them to the next (measured: learnt on set-a, set-b fell to 55 %).
        self.calibration = calibration
        self.learn_colours = learn_colours
        self._play_calibrator: Any = None
        # `remember_light`: frames come from one camera under one light (`run`), so a strong cast
        # found on one frame is taken off the next before the finder looks. Off by default: a
        # detector reading photos from many cameras (eval-photos, recognize) must not carry one
        # photo's light to the next.
        self.remember_light = remember_light
        self._light: np.ndarray | None = None
        self._light_cap = MAX_GAIN
        # Numbers and actions read in the last frame but dropped for showing no colour at all (a
        # black-and-white picture, `shows_colour`): the caller can say why no card was found.
        self.colourless = 0
        self.colourless_total = 0  # the same, over every frame read
        # The vision thread and the host page's calibration share the model: one at a time.
        self._lock = threading.RLock()

        self.path = path
        # An .onnx export runs on onnxruntime alone (no torch); .pt weights through ultralytics.
        self.finder = open_finder(path, imgsz)
        self.conf, self.iou = conf, iou
        self.imgsz = self.finder.imgsz
        self.colour_check = colour_check
        self.min_colour_share = min_colour_share
        self.names = list(self.finder.names)
        unknown = [n for n in self.names if n not in CARD_NAMES]
        if unknown:
            raise InputFileError(f"{path.name} is not a card model (unknown classes {unknown[:3]})")

    def detect(self, frame: np.ndarray) -> list[Detection]:
        if frame is None or not isinstance(frame, np.ndarray) or frame.ndim != 3:
            raise CompanionError("detect() needs a BGR image")
        with self._lock:
            return self._detect_and_read(frame) if self.reader is not None else self._detect_alone(frame)

    def _detect_alone(self, frame: np.ndarray) -> list[Detection]:
        found = self.finder.find(brightened(frame), self.conf, self.iou)
        out: list[Detection] = []
        for (x1, y1, x2, y2), c, k in zip(found.boxes, found.scores, found.classes):
            name = self.names[int(k)]
            box = (float(x1), float(y1), float(x2), float(y2))
            if self.colour_check:
                name = self._check_colour(frame, name, box)
            out.append(Detection(name, float(c), box))
        out.sort(key=lambda d: d.confidence, reverse=True)
        return out

    def _find(self, frame: np.ndarray) -> list[tuple[tuple[float, float, float, float], str | None, float]]:
        """The detector's boxes: (box, its class name, its confidence). The finder sees a frame
        darker than its training scenes brightened (`brightened`); the readers read it as it is.
        The darkness bar and tone come from the training scenes, checked on the shifted
        benchmark: set-b under gamma 1.6 674 -> 693 of 702 (its misses had been the dark person
        behind the card boxed instead of it), set-a 1016 -> 1018 (models/HISTORY.md)."""
        found = self.finder.find(brightened(frame), self.box_conf, self.iou, agnostic=True, max_det=self.max_reads)
        return [((float(x1), float(y1), float(x2), float(y2)), self.names[int(k)], float(c))
                for (x1, y1, x2, y2), c, k in zip(found.boxes, found.scores, found.classes)]

    def _pooled(self, *looks: list) -> list:
        """The boxes of several looks at one frame (`_find`'s), surest first, a box overlapping
        a surer one by more than the finder's own IoU dropped (one card, two looks)."""
        pooled = sorted((c for look in looks for c in look), key=lambda c: -c[2])
        if len(pooled) < 2:
            return pooled
        kept = nms(np.array([c[0] for c in pooled], np.float32), np.array([c[2] for c in pooled], np.float32), self.iou)
        return [pooled[int(k)] for k in kept][:self.max_reads]

    def _detect_and_read(self, frame: np.ndarray) -> list[Detection]:
        h, w = frame.shape[:2]
        self.colourless = 0
        # One camera under one light (`remember_light`): a cast the last frame needed taken off is
        # taken off before the first look, so a warm table costs one look a frame, not two.
        remembered = self._light is not None
        # the strongest tint taken for light when the cards are read: past MAX_GAIN only for a
        # light the no-card fallback below found the cards under (and its frames after)
        cap = self._light_cap if remembered else MAX_GAIN
        candidates = self._find(white_balanced(frame, self._light, cap)) if remembered else []
        if not candidates:
            candidates = self._find(frame)
            remembered, cap = False, MAX_GAIN
        white, white_boxes = None, None  # the cards' white, and the boxes it was measured in
        if candidates:  # a cast stronger than the finder learned (a warm bulb): look again with it taken off
            white_boxes = [box for box, _, _ in candidates]
            white = card_white(frame, white_boxes, cap)
            if self._strong(white) and not remembered:
                candidates = self._find(white_balanced(frame, white)) or candidates
        if not candidates:  # a hazy, washed-out webcam picture, or a warm bulb's: look again with the
            # picture's brightest white made grey and its contrast and colour brought up, and with
            # its channels' means made equal (its brightest part may be a burnt-out window, no
            # white: set-b's webcam under 2700 K); the boxes of both looks pooled. However strong
            # its tint: the cap keeps ink from being taken for white in a card's box, but a
            # picture in which no card was found has nothing to lose, and under a bulb warmer than
            # the readers trained with (2200 K: an amber filament bulb) the white is tinted past it.
            candidates = self._pooled(self._find(grey_world(frame)),
                                      self._find(vivid(neutral_light(frame, [(0.0, 0.0, float(w), float(h))], cap=np.inf))))
            if candidates:  # seen only with the tint off: read them so too, however strong
                cap = np.inf
        if not candidates:  # a card filling the picture is sometimes no box at all: read it whole
            candidates.append(((0.0, 0.0, float(w), float(h)), None, 0.0))
        # The reader's certainty is discounted where the detector barely saw a card.
        trusts = [0.5 + 0.5 * min(1.0, det_conf / 0.5) for _, _, det_conf in candidates]
        boxes = [box for box, _, _ in candidates]
        # Everything below reads the cards as if their white were grey (a warm bulb, a blue
        # shade or a camera's balance taken off: `neutral_light`, its white measured once when
        # these are the boxes it was measured in); the finder saw the frame as it was.
        as_seen = frame
        frame = white_balanced(frame, white if boxes == white_boxes else card_white(frame, boxes, cap), cap)
        crops = [crop_square(frame, box) for box in boxes]
        themed = self._themed(crops)
        # A card the themed reader names is its; the classic readers read the others.
        classic = [i for i in range(len(boxes)) if themed is None or themed[i] is None]
        names = list(self.reader.names)  # type: ignore[union-attr]
        fused, sure_read = self._symbols(frame, [boxes[i] for i in classic], [crops[i] for i in classic])
        symbols = dict(zip(classic, fused))
        sure_of = dict(zip(classic, sure_read))
        best = {i: names[int(p.argmax())] for i, p in symbols.items()}
        # Only boxes read surely as a coloured card's symbol teach the table's colours (not clutter,
        # a wild or a themed card: a Flip's teal side must not pull the blue group). Surely (the
        # reader at SURE or more): boxes of a honeycomb table, read as some symbol at 0.1-0.4 and
        # "yellow" every frame, dragged the yellow group onto the table on the real-card bench.
        coloured = [best[i] not in CARD_NAMES and best[i] != NONE and sure_of[i] >= SURE for i in classic]
        read_colours, alone = self._colours(self._colour_crops(as_seen, boxes, crops, classic, best, sure_of, cap),
                                            coloured)
        colours = dict(zip(classic, read_colours)) if read_colours is not None else {}
        if alone is not None and self.wild_odds:
            from companion.vision.colour import weigh_wilds

            # A wild prints four colours, a number or action one: a colour reader sure of one colour
            # weighs the wilds down (`colour.wild_likelihood`). A classic draw two's two cards read
            # as a wild draw four's four, its red sure, become a draw two.
            for i, read in zip(classic, alone):
                symbols[i] = weigh_wilds(symbols[i], names, read)
                best[i] = names[int(symbols[i].argmax())]
        out: list[Detection] = []
        sure: list[tuple[float, float, float, float]] = []  # boxes of cards the finder saw well
        # surest boxes first, so each weak box is judged against every sure one
        for i in sorted(range(len(candidates)), key=lambda i: -candidates[i][2]):
            box, det_name, det_conf = candidates[i]
            if det_conf < self.seam_conf and covered(box, sure) >= self.seam_cover:
                continue
            if i not in symbols:  # a themed card: its whole name
                top, read = themed[i], themed[i][0][1]  # type: ignore[index]
            else:
                symbol = best[i]
                if symbol == NONE:
                    continue
                if symbol in CARD_NAMES and not looks_like_a_wild(frame, box):
                    continue  # a black thing that is not a card
                if symbol not in CARD_NAMES and not shows_colour(frame, box):
                    self.colourless += 1  # a black-and-white picture: the colour cannot be read
                    self.colourless_total += 1
                    continue
                top = self._names(symbols[i], names, colours.get(i), det_name)
                if not top:
                    continue
                read = sure_of[i]
            confidence = read * trusts[i]
            if confidence >= self.conf:
                out.append(Detection(top[0][0], confidence, box, top))
                if det_conf >= self.seam_conf:
                    sure.append(box)
        out.sort(key=lambda d: d.confidence, reverse=True)
        if self.remember_light and (white_boxes is not None or (cap == np.inf and not remembered)):
            # The light the next frame is first looked at with; with cards found only with a tint
            # past the cap taken off (an amber bulb), theirs: one look and not three. Measured on
            # the cards named, not on whatever the look boxed: on a honeycomb table the weak boxes
            # of its bright yellow cells outvoted the cards, and that "white" taken off the next
            # frames turned the cards' white blue (green cards then read blue).
            self._remember(card_white(as_seen, [d.box for d in out], cap) if out else None, cap)
        return out

    def _colour_crops(self, as_seen: np.ndarray, boxes: list[tuple[float, float, float, float]],
                      crops: list[np.ndarray], classic: list[int], best: dict[int, str],
                      sure_of: dict[int, float], cap: float) -> list[np.ndarray]:
        """The crops the colours are read from: cut from the frame balanced on the white of the
        boxes read surely as cards (the reader at SURE or more), where other boxes had a say in
        the frame's white. On a honeycomb table the finder boxed its waxy yellow cells more
        surely than the card; their "white" outvoted the card's, and taken off it turned the
        card's white blue: a dull green card then read blue (real-card habits bench)."""
        sure = [boxes[i] for i in classic if best[i] != NONE and sure_of[i] >= SURE]
        white = card_white(as_seen, sure, cap) if sure and len(sure) < len(boxes) else None
        if white is None:  # no sure card, or every box was one: the frame's balance stands
            return [crops[i] for i in classic]
        seen_so = white_balanced(as_seen, white, cap)
        return [crop_square(seen_so, boxes[i]) for i in classic]

    def _strong(self, white: np.ndarray | None) -> bool:
        """Whether the cards' `white` is cast more than the finder learned (a warm bulb)."""
        return white is not None and cast(white) > self.finder_cast

    def _remember(self, white: np.ndarray | None, cap: float) -> None:
        """The light the next frame is looked at with (`remember_light`): `white`, taken off
        with `cap`, where it is cast more than the finder learned; else none."""
        self._light, self._light_cap = (white, cap) if self._strong(white) else (None, MAX_GAIN)

    def _names(self, symbols: np.ndarray, names: list[str], colours: np.ndarray | None,
               det_name: str | None) -> tuple[tuple[str, float], ...]:
        """The three likeliest card names with probabilities: the symbol's probability times
        the colour's for a coloured card, the symbol's alone for a wild. The best symbol's
        card comes first (a close second symbol may still be named second)."""
        from companion.vision.crops import COLOUR_CLASSES

        if colours is None:  # no colour reader: the detector's colour, if it named one
            colour = parse_card(det_name).color if det_name is not None else None
            colours = np.array([1.0 if c == colour else 0.0 for c in COLOUR_CLASSES])
            if colour is None:
                colours = np.full(len(COLOUR_CLASSES), 1 / len(COLOUR_CLASSES))
        scored: list[tuple[str, float]] = []
        for k, symbol in enumerate(names):
            if symbol == NONE:
                continue
            if symbol in CARD_NAMES:  # a wild names itself
                scored.append((symbol, float(symbols[k])))
            else:
                scored += [(f"{c}_{symbol}", float(symbols[k] * colours[j])) for j, c in enumerate(COLOUR_CLASSES)]
        best_symbol = names[int(symbols.argmax())]
        scored.sort(key=lambda nc: (parse_card(nc[0]).symbol != best_symbol, -nc[1]))
        first = scored[0]
        rest = sorted(scored[1:], key=lambda nc: -nc[1])[:2]
        return tuple((n, round(p, 4)) for n, p in (first, *rest))

    def _themed(self, crops: list[np.ndarray]) -> list[tuple[tuple[str, float], ...] | None] | None:
        """For each crop, the themed reader's three likeliest themed names when it names a
        themed card (not "classic", not "none"), else None; None for all with no themed reader."""
        if self.themed_reader is None or not crops:
            return None
        from companion.vision.crops import CLASSIC

        names = list(self.themed_reader.names)
        out: list[tuple[tuple[str, float], ...] | None] = []
        for p in self.themed_reader.probabilities(crops):
            best = names[int(p.argmax())]
            if best in (CLASSIC, NONE):
                out.append(None)
                continue
            order = [k for k in np.argsort(-p) if names[k] not in (CLASSIC, NONE)][:3]
            out.append(tuple((names[k], round(float(p[k]), 4)) for k in order))
        return out

    def calibrate(self, pictures: Sequence[np.ndarray]) -> Any:
        """Learn this camera's four colours from pictures of its cards (at least one card of
        each colour among them; wilds are left out), use them from now on and return the
        calibration (calibration.py). Raises CalibrationError, changing nothing, when the
        pictures do not show four distinct colours."""
        if self.colour_reader is None:
            raise CompanionError("colour calibration needs the colour reader (models/uno-cards-colour.onnx)")
        inks, crops = [], []
        for picture in pictures:
            if not isinstance(picture, np.ndarray) or picture.ndim != 3:
                raise CompanionError("calibrate() needs BGR images")
            found = self.detect(picture)
            balanced = neutral_light(picture, [d.box for d in found])  # as `detect` reads them
            for d in found:
                if parse_card(d.card).color is not None:
                    crop = crop_square(balanced, d.box)
                    crops.append(crop)
                    inks.append(ink(crop))
        calibration = fit(inks, self.colour_reader.probabilities(crops))
        self.calibration = calibration
        return calibration

    def _colours(self, crops: list[np.ndarray], teach: Sequence[bool]) -> tuple[np.ndarray | None, np.ndarray | None]:
        """(n, 4) colour probabilities for the crops: the colour reader's, or the table's
        calibration's when there is one; and the colour reader's alone (None, None with no
        colour reader). With `learn_colours`, the crops flagged in `teach` (cards read as
        coloured) move the calibration a little when sure, or learn one when no one set it up."""
        if self.colour_reader is None or not crops:
            return None, None
        reads = self.colour_reader.probabilities(crops)
        if self.calibration is None and not self.learn_colours:
            return reads, reads
        from companion.vision.crops import COLOUR_CLASSES

        inks = [ink(c) for c in crops]
        if self.calibration is None:
            self._play_calibrator = self._play_calibrator or PlayCalibrator()
            for value, p, taught in zip(inks, reads, teach):
                learnt = self._play_calibrator.offer(value, p) if taught else None
                if learnt is not None:
                    self.calibration = learnt
                    break
            return reads, reads
        # The table's groups say how likely each colour makes this ink; the colour reader, what
        # the card looks like: both witnesses, multiplied. Where the groups are far apart (a
        # strong cast) they outweigh a reader that is surely wrong; where a card's ink lies
        # between two groups (set up from a card with a saturated table or fingers in its
        # box), the reader decides, as it would alone.
        calibrated = self.calibration.probabilities(np.stack(inks)) * np.clip(reads, 1e-6, 1.0)
        calibrated /= calibrated.sum(axis=1, keepdims=True)
        if self.learn_colours:
            # Only where both witnesses agree: a group that outweighs the reader must not then
            # teach itself (a blue cast on a card's white measured as its "ink" took the blue
            # group over green cards, which then read blue and pulled it further).
            for value, p, alone, taught in zip(inks, calibrated, reads, teach):
                if taught and p.max() >= SURE and p.argmax() == alone.argmax():
                    self.calibration.follow(value, COLOUR_CLASSES[int(p.argmax())])
        return calibrated, reads

    def _read(self, frame: np.ndarray, boxes: list[tuple[float, float, float, float]]) -> list[tuple[str, float]]:
        """The reader's (symbol, probability) for each box (see `_symbols`)."""
        fused, sure_of = self._symbols(frame, boxes, [crop_square(frame, box) for box in boxes])
        names = list(self.reader.names)  # type: ignore[union-attr]
        return [(names[int(f.argmax())], p) for f, p in zip(fused, sure_of)]

    def _symbols(self, frame: np.ndarray, boxes: list[tuple[float, float, float, float]],
                 crops: list[np.ndarray]) -> tuple[np.ndarray, list[float]]:
        """The reader's symbol probabilities for each box (one row of `reader.names` each) and
        how sure it is that the box is that card, from two witnesses: the whole card
        and its four corner squares. A corner index is small but whole where a thumb covers
        half the big glyph (an 8 whose lower loop is hidden reads as a 9) or the picture cuts
        the card off; the whole card is sure where a corner is turned, blurred or clutter.
        The witnesses are pooled in log space (`log_pool`). A corner counts only when it reads
        as a number or an action ("none" is an empty corner; a wild's small corner oval is too
        like a corner of clutter), and never against a card read as a wild (the wild draw
        four's corner prints "+4", which reads as a 4), and only when it is big enough to read
        (`min_corner`), the less the smaller it is (`full_corner`). The probability stays the
        whole card's: a corner says which card, not that the box is a card (a corner of clutter
        beside a card must not outrank it)."""
        reader: Any = self.reader
        names = list(reader.names)
        whole = reader.probabilities(crops)
        witness = np.array([n != NONE and n not in CARD_NAMES for n in names])  # a number or an action
        squares = [corner_squares(box) for box in boxes]
        sides = [sq[0][2] - sq[0][0] for sq in squares]  # each box's corner square side
        cards = [i for i, p in enumerate(whole)  # no corners asked for "none" or a wild, or too small to read
                 if witness[int(p.argmax())] and sides[i] >= self.min_corner]
        corners = reader.probabilities([crop_square(frame, corner, 0.0) for i in cards for corner in squares[i]],
                                       turns=self.corner_turns)
        fused = whole.copy()
        for k, i in enumerate(cards):
            reads = corners[4 * k:4 * k + 4]
            sure = [c for c in reads if witness[int(c.argmax())]]
            if sure:
                fused[i] = log_pool(whole[i], sure, min(1.0, sides[i] / self.full_corner))
        return fused, [float(p.max()) for p in whole]

    def _check_colour(self, frame: np.ndarray, name: str, box: tuple[float, float, float, float]) -> str:
        if parse_card(name).is_wild:
            return name
        colour, share = pixel_colour(frame, box)
        if colour is not None and share >= self.min_colour_share:
            return recolour(name, colour)
        return name


@dataclass
class FakeDetector:
    """A test double: returns the preset detections (or what `script(frame)` returns)."""

    detections: Sequence[Detection] = ()
    script: Callable[[np.ndarray], Sequence[Detection]] | None = None
    calls: int = field(default=0, init=False)

    def detect(self, frame: np.ndarray) -> list[Detection]:
        self.calls += 1
        found = self.script(frame) if self.script else self.detections
        return sorted(found, key=lambda d: d.confidence, reverse=True)


__all__ = ["Detection", "Detector", "YoloDetector", "FakeDetector", "default_weights", "recolour", "pixel_colour",
           "log_pool", "looks_like_a_wild", "shows_colour", "calm_onnx_session", "COLORS"]
