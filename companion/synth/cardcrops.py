"""Training data for the card reader (the second stage): one picture per card crop.

The reader names the symbol of the card in a crop ("7", "skip", "wild_draw_four", ... or
"none" when no card can be named); the colour comes from the crop's pixels (colour.py).
Symbols pool all four colours, so each class gets four times the examples a 57-class model
would, and the licensed real composites (which carry values, not colours) fit it directly.

Crops come from:
- the synthetic scenes of `scenes.py` (each labelled box, cut out with a loose margin the
  way a detector's box would be, and background boxes as "none");
- `../shared/data/uno-cards-composites` (real card photos on textures; their boxes cover the
  top-left corner index only): the corner with context, and the fan's top card whole,
  estimated from its corner box.

Every crop is stretched to a square (`crop_square`), in training and at run time alike.
"""
from __future__ import annotations

import random
from pathlib import Path
from itertools import chain
from typing import Callable, Iterable, Iterator

import cv2
import numpy as np

from companion.referee.cards import CARD_NAMES, parse_card
from companion.vision.crops import (NONE, SYMBOL_CLASSES, box_area, box_intersection, box_iou, corner_squares, crop_square,
                                    label_box)

# The composites' class index -> symbol (see their README: 10-14 were renamed).
COMPOSITE_SYMBOLS = ("0", "1", "wild_draw_four", "draw_two", "reverse", "skip", "wild",
                     "2", "3", "4", "5", "6", "7", "8", "9")


def symbol_of(name: str) -> str:
    return parse_card(name).symbol


def _yolo_boxes(label_file: Path, w: int, h: int) -> list[tuple[int, tuple[float, float, float, float]]]:
    out = []
    if not label_file.exists():
        return out
    for line in label_file.read_text().split("\n"):
        parts = line.split()
        if len(parts) != 5:
            continue
        c, x, y, bw, bh = int(parts[0]), *map(float, parts[1:])
        out.append((c, label_box(x, y, bw, bh, w, h)))
    return out


def _jitter_margin(rnd: random.Random) -> tuple[float, ...]:
    loose = rnd.random() < 0.2  # sometimes a crop much larger than the card (a zone, a photo)
    hi = 0.6 if loose else 0.22
    return tuple(rnd.uniform(-0.06, hi) for _ in range(4))


def _close_up(box: tuple[float, float, float, float], rnd: random.Random) -> tuple[float, float, float, float]:
    """Part of a card's box, as when the card is held so close that the picture cuts it
    off: a corner-anchored window that reaches at least the centre (some of the glyph).
    Held up to a webcam, a card is mostly cut along the bottom of the picture, so most
    windows keep a corner index (the top-left one, or the bottom-right one of a card held
    upside down) and lose part of the big glyph."""
    x1, y1, x2, y2 = box
    fw, fh = rnd.uniform(0.6, 1.0), rnd.uniform(0.52, 0.88)
    bw, bh = (x2 - x1) * fw, (y2 - y1) * fh
    left = rnd.random() < 0.5
    top = left if rnd.random() < 0.75 else not left  # top-left or bottom-right: an index shows
    xa = x1 if left else x2 - bw
    ya = y1 if top else y2 - bh
    return xa, ya, xa + bw, ya + bh


def index_corners(box: tuple[float, float, float, float], size: float = 0.45) -> list[tuple[float, float, float, float]]:
    """The two corner squares of a whole card's box where its indices print: top-left and
    bottom-right for a card standing up (or upside down), top-right and bottom-left for
    one lying sideways."""
    tl, tr, br, bl = corner_squares(box, size)
    return [tl, br] if (box[3] - box[1]) >= (box[2] - box[0]) else [tr, bl]


def _upright(box: tuple[float, float, float, float], tolerance: float = 0.12) -> bool:
    """Whether a card's box has a card's own proportions (56:87, either way round), so the
    card lies square to the picture and its corner indices sit in the box's corners."""
    x1, y1, x2, y2 = box
    ratio = min(x2 - x1, y2 - y1) / max(1.0, max(x2 - x1, y2 - y1))
    return abs(ratio - 56 / 87) < tolerance


def _index_corner(box: tuple[float, float, float, float], rnd: random.Random) -> tuple[float, float, float, float]:
    """One of the box's index corners, its size and place jittered as a detector's box is."""
    x1, y1, x2, y2 = rnd.choice(index_corners(box, rnd.uniform(0.35, 0.6)))
    s = x2 - x1
    dx, dy = rnd.uniform(-0.08, 0.08) * s, rnd.uniform(-0.08, 0.08) * s
    return x1 + dx, y1 + dy, x2 + dx, y2 + dy


def glyph_crops(count: int, rnd: random.Random) -> Iterator[tuple[str, np.ndarray]]:
    """(symbol, crop) of a tight box around one corner index of a rendered card, as the
    detector draws one on a card held so close to a webcam that it is not found whole (real
    close-ups: the box holds the corner's 6, 8 or 9 and little else). Cut from rendered faces,
    where the index's place is known, because a scene's box does not say how its card is
    turned. The index's centre sits about 0.16 of the card's width in from both edges."""
    from companion.synth.render import DESIGNS, render_card

    for _ in range(count):
        name = rnd.choice(CARD_NAMES)
        face = render_card(name, rnd.choice(DESIGNS), rnd.randint(220, 520), rng=rnd)
        h, w = face.shape[:2]
        pad = w // 4
        canvas = np.empty((h + 2 * pad, w + 2 * pad, 3), np.uint8)
        canvas[:] = [rnd.randint(0, 255) for _ in range(3)]
        alpha = face[:, :, 3:4].astype(np.float32) / 255
        region = canvas[pad:pad + h, pad:pad + w].astype(np.float32)
        canvas[pad:pad + h, pad:pad + w] = (face[:, :, :3] * alpha + region * (1 - alpha)).astype(np.uint8)
        cx, cy = 0.157 * w, 0.16 * w
        if rnd.random() < 0.5:  # the bottom-right index, upside down
            cx, cy = w - cx, h - cy
        tall = w * rnd.uniform(0.13, 0.3)
        wide = tall * rnd.uniform(0.7, 1.25)
        cx += pad + rnd.uniform(-0.12, 0.12) * wide
        cy += pad + rnd.uniform(-0.12, 0.12) * tall
        box = (cx - wide / 2, cy - tall / 2, cx + wide / 2, cy + tall / 2)
        crop = crop_square(canvas, box)
        if rnd.random() < 0.4:  # a close-up is often out of focus
            crop = cv2.GaussianBlur(crop, (0, 0), rnd.uniform(0.6, 2.0))
        yield symbol_of(name), crop


def webcam_look(img: np.ndarray, rnd: random.Random) -> np.ndarray:
    """A cheap webcam's picture: hazy and washed out, a colour cast, soft, grainy (the real
    webcam frames of set-b look like this; scenes.py's photometry is milder)."""
    out = img.astype(np.float32)
    grey = out.mean(axis=2, keepdims=True)
    out = grey + (out - grey) * rnd.uniform(0.45, 1.0)  # less saturated
    tint = np.array([rnd.uniform(150, 235) + rnd.uniform(-20, 20) for _ in range(3)], np.float32)
    haze = rnd.uniform(0.0, 0.4)
    out = out * (1 - haze) + tint * haze
    out = 255.0 * (np.clip(out, 0, 255) / 255.0) ** rnd.uniform(0.7, 1.4)
    if rnd.random() < 0.5:
        out = cv2.GaussianBlur(out, (0, 0), rnd.uniform(0.5, 1.6))
    out += np.random.default_rng(rnd.randrange(1 << 30)).normal(0, rnd.uniform(0, 6), out.shape)
    out = np.clip(out, 0, 255).astype(np.uint8)
    if rnd.random() < 0.3:
        h, w = out.shape[:2]
        f = rnd.uniform(0.35, 0.7)
        out = cv2.resize(cv2.resize(out, (max(8, int(w * f)), max(8, int(h * f))), interpolation=cv2.INTER_AREA), (w, h))
    return out


def _covered(a, b) -> float:
    """The share of box a that box b covers."""
    area = box_area(a)
    return box_intersection(a, b) / area if area > 0 else 1.0


def scene_crops(images: Path, labels: Path, rnd: random.Random, negatives: float = 0.35, close_ups: float = 0.3,
                corners: float = 0.5, light: float = 0.0, backs: float = 0.0) -> Iterator[tuple[str, np.ndarray]]:
    """(symbol, crop) for every labelled card of a YOLO scene folder (`crops_of_scene` of each
    scene, in file order)."""
    for img_path in sorted(images.glob("*.jpg")):
        img = cv2.imread(str(img_path))
        if img is None:
            continue
        h, w = img.shape[:2]
        boxes = _yolo_boxes(labels / f"{img_path.stem}.txt", w, h)
        yield from crops_of_scene(img, boxes, rnd, negatives, close_ups, corners, light, backs)


def crops_of_scene(img: np.ndarray, boxes: "list[tuple[int, tuple[float, float, float, float]]]",
                   rnd: random.Random, negatives: float = 0.35, close_ups: float = 0.3, corners: float = 0.5,
                   light: float = 0.0, backs: float = 0.0) -> Iterator[tuple[str, np.ndarray]]:
    """(symbol, crop) for every labelled card of one scene (boxes: class, pixel box; the top
    card first), and for some a close-up cut off by the picture's edge, or the square around
    one corner index of a card lying square to the picture, plus background crops. With
    chance `light` the scene is first seen by a random camera under a random light
    (`lit_scene`); with chance `backs` it also gives a card lying face down somewhere on it,
    as "none" (`face_down_crop`)."""
    h, w = img.shape[:2]
    if rnd.random() < light:
        img = lit_scene(img, [box for _, box in boxes], rnd)
    for i, (c, box) in enumerate(boxes):
        # Labels list the top card first; a card mostly under another one (a fanned
        # hand's corner) would teach the reader the upper card's face under its name.
        if any(_covered(box, above) > 0.3 for _, above in boxes[:i]):
            continue
        yield symbol_of(CARD_NAMES[c]), crop_square(img, box, _jitter_margin(rnd))
        if rnd.random() < close_ups:
            yield symbol_of(CARD_NAMES[c]), crop_square(img, _close_up(box, rnd), 0.0)
        if rnd.random() < corners and _upright(box):
            corner = _index_corner(box, rnd)
            if not any(_covered(corner, above) > 0.15 for _, above in boxes[:i]):
                yield symbol_of(CARD_NAMES[c]), crop_square(img, corner, 0.0)
    if backs and rnd.random() < backs:  # no draw when off: older recipes cut the same crops
        yield NONE, face_down_crop(img, [box for _, box in boxes], rnd)
    if rnd.random() < negatives:
        # "none" only where no card shows: not even a small card inside the window.
        empty = empty_window(w, h, rnd, 0.6, lambda cand: all(
            box_iou(cand, b) < 0.05 and _covered(b, cand) < 0.03 for _, b in boxes))
        if empty is not None:
            yield NONE, crop_square(img, empty, 0.0)


def face_down_crop(img: np.ndarray, boxes: "list[tuple[float, float, float, float]]",
                   rnd: random.Random) -> np.ndarray:
    """A card lying face down (`render.render_back`), the size of the scene's cards, turned
    any way and laid anywhere on a copy of the scene, cut as a detector would box it: no card
    to name (a back read as a wild was played)."""
    from companion.synth.render import render_back

    h, w = img.shape[:2]
    sizes = [max(b[2] - b[0], b[3] - b[1]) for b in boxes]
    height = int(np.clip(rnd.choice(sizes) if sizes else rnd.uniform(0.2, 0.5) * h, 48, 0.9 * h))
    back = render_back(height, random.Random(rnd.random()))
    bh, bw = back.shape[:2]
    turn = cv2.getRotationMatrix2D((bw / 2, bh / 2), rnd.uniform(0, 360), 1.0)
    cos, sin = abs(turn[0, 0]), abs(turn[0, 1])
    nw, nh = int(bh * sin + bw * cos) + 2, int(bh * cos + bw * sin) + 2
    turn[0, 2] += nw / 2 - bw / 2
    turn[1, 2] += nh / 2 - bh / 2
    turned = cv2.warpAffine(back, turn, (nw, nh))
    x, y = rnd.randint(-nw // 4, max(-nw // 4, w - 3 * nw // 4)), rnd.randint(-nh // 4, max(-nh // 4, h - 3 * nh // 4))
    x0, y0, x1, y1 = max(0, x), max(0, y), min(w, x + nw), min(h, y + nh)
    out = img.copy()
    part = turned[y0 - y:y1 - y, x0 - x:x1 - x]
    alpha = part[:, :, 3:4].astype(np.float32) / 255
    out[y0:y1, x0:x1] = (part[:, :, :3] * alpha + out[y0:y1, x0:x1] * (1 - alpha)).astype(np.uint8)
    return crop_square(out, (float(x0), float(y0), float(x1), float(y1)), _jitter_margin(rnd))


def empty_window(w: int, h: int, rnd: random.Random, largest: float,
                 empty: Callable[[tuple[float, float, float, float]], bool]) -> tuple[float, float, float, float] | None:
    """A random window of a w x h picture (each side 0.15 to `largest` of the picture's) that
    `empty` accepts, from at most ten tries; None when none is: a "none" crop for the readers."""
    for _ in range(10):
        bw, bh = rnd.uniform(0.15, largest) * w, rnd.uniform(0.15, largest) * h
        x1, y1 = rnd.uniform(0, w - bw), rnd.uniform(0, h - bh)
        cand = (x1, y1, x1 + bw, y1 + bh)
        if empty(cand):
            return cand
    return None


# Of the lit scenes, the share whose light is then taken off as the detector does. The rest
# stay cast: a card filling the picture shows no white to balance on (the detector then reads
# it as the camera gave it), and a balance is never perfect.
LIGHT_BALANCED = 0.7


def lit_scene(img: np.ndarray, boxes: "list[tuple[float, float, float, float]]", rnd: random.Random) -> np.ndarray:
    """The scene through a random camera and light (`photometric.random_light`: 2500-9000 K,
    gains, hue warps, saturation, gamma, exposure, blur, grain, JPEG) and, mostly, back to
    neutral light from its cards' white (`photometric.neutral_light`, as the detector reads
    every card): the reader learns the symbols under what is left of a cast after that."""
    from companion.vision.photometric import neutral_light, random_light

    img = random_light(img, rnd)
    return neutral_light(img, boxes) if rnd.random() < LIGHT_BALANCED else img


def composite_crops(root: Path, rnd: random.Random) -> Iterator[tuple[str, np.ndarray]]:
    """(symbol, crop) from the licensed composites: each corner index with some context,
    and the top card of each fan (the right-most corner) estimated whole from its corner."""
    for img_path in sorted((root / "images").glob("*.jpg")):
        img = cv2.imread(str(img_path))
        if img is None:
            continue
        h, w = img.shape[:2]
        boxes = _yolo_boxes(root / "labels" / f"{img_path.stem}.txt", w, h)
        for c, (x1, y1, x2, y2) in boxes:
            g = rnd.uniform(0.3, 1.5)
            yield COMPOSITE_SYMBOLS[c], crop_square(img, (x1, y1, x2, y2), tuple(g * rnd.uniform(0.7, 1.3) for _ in range(4)))
        if not boxes:
            continue
        c, (x1, y1, x2, y2) = max(boxes, key=lambda b: b[1][0])
        bw, bh = x2 - x1, y2 - y1
        width = bw * rnd.uniform(4.8, 5.6)  # a corner index is about a fifth of the card's width
        card = (x1 - 0.35 * bw, y1 - 0.35 * bh, x1 - 0.35 * bw + width, y1 - 0.35 * bh + width * 1.5)
        if card[2] <= w + 0.05 * width and card[3] <= h + 0.05 * width:
            yield COMPOSITE_SYMBOLS[c], crop_square(img, card, _jitter_margin(rnd))


def cut_composites(root: Path, out: Path, seed: int = 0, val_share: float = 0.05, webcam_share: float = 0.35) -> int:
    """Write the composites' crops as the reader trains on them (`composite_crops`, then
    `_as_trained`, drawn with `seed`) as a classification folder (train/<symbol>/,
    val/<symbol>/) under `out`, which `write_reader_dataset` takes in as it is: the reader can
    then train where the composites are not. Returns how many."""
    rnd = random.Random(seed)
    return _write_crops(composite_crops(Path(root), rnd), _class_folders(Path(out)), rnd, val_share, webcam_share,
                        lambda n: f"c{n:06d}.jpg")


def _as_trained(crop: np.ndarray, rnd: random.Random, webcam_share: float) -> np.ndarray:
    """A crop as the reader trains on it: some with a cheap webcam's look, and turned."""
    if rnd.random() < webcam_share:
        crop = webcam_look(crop, rnd)
    # A card turned a quarter or half turn is the same card (unlike a mirrored one): cards
    # held upside down, or lying sideways, are common and read by their upright corner
    # index and the 6/9 underline.
    return np.ascontiguousarray(np.rot90(crop, rnd.choices((0, 1, 2, 3), (0.4, 0.15, 0.3, 0.15))[0]))


def write_crop_dataset(out: Path, scenes: Path, composites: Path | None, seed: int = 0, val_share: float = 0.05,
                       progress: Callable[[int], None] | None = None, webcam_share: float = 0.35,
                       glyphs: int = 3000, light: float = 0.0, backs: float = 0.0) -> Path:
    """Write an ultralytics classification folder (train/<class>/, val/<class>/), with
    `glyphs` tight corner-index crops of rendered cards besides the scenes' crops; a share
    `light` of the scenes under a random camera and light (`lit_scene`)."""
    out = _class_folders(Path(out))
    rnd = random.Random(seed)
    sources = [scene_crops(scenes / "images" / "train", scenes / "labels" / "train", rnd, light=light, backs=backs),
               scene_crops(scenes / "images" / "val", scenes / "labels" / "val", rnd, light=light, backs=backs)]
    sources += _other_sources(None if _take_cut_composites(composites, out) else composites, glyphs, rnd)
    _write_crops(chain.from_iterable(sources), out, rnd, val_share, webcam_share, lambda n: f"{n:07d}.jpg", progress)
    return out


def _class_folders(out: Path) -> Path:
    """`out` with a folder for each reader class under train/ and val/."""
    for split in ("train", "val"):
        for cls in SYMBOL_CLASSES:
            (out / split / cls).mkdir(parents=True, exist_ok=True)
    return out


def _write_crops(crops: Iterable[tuple[str, np.ndarray]], out: Path, rnd: random.Random, val_share: float,
                 webcam_share: float, name: Callable[[int], str],
                 progress: Callable[[int], None] | None = None) -> int:
    """Write (symbol, crop) pairs as the reader trains on them (`_as_trained`), each to train/
    or val/ by `rnd`, the n-th named `name(n)`; returns how many."""
    n = 0
    for symbol, crop in crops:
        split = "val" if rnd.random() < val_share else "train"
        cv2.imwrite(str(out / split / symbol / name(n)), _as_trained(crop, rnd, webcam_share),
                    [cv2.IMWRITE_JPEG_QUALITY, 93])
        n += 1
        if progress:
            progress(n)
    return n


def _take_cut_composites(composites: Path | None, out: Path) -> bool:
    """Copy the crops `cut_composites` wrote into the dataset `out` as they are (not turned or
    washed out a second time); False when `composites` is no such folder."""
    import shutil

    if composites is None or not (composites / "train").is_dir():
        return False
    for path in sorted(composites.glob("*/*/*.jpg")):
        if path.parent.parent.name in ("train", "val") and path.parent.name in SYMBOL_CLASSES:
            shutil.copy2(path, out / path.parent.parent.name / path.parent.name / path.name)
    return True


def _other_sources(composites: Path | None, glyphs: int, rnd: random.Random) -> list[Iterator[tuple[str, np.ndarray]]]:
    """The crops besides the scenes': the composites' (when there) and rendered corner glyphs."""
    sources = []
    if composites is not None and composites.is_dir():
        sources.append(composite_crops(composites, rnd))
    if glyphs:
        sources.append(glyph_crops(glyphs, rnd))
    return sources


_BANKS: dict[int, object] = {}


def _reader_scene_batch(seed: int, start: int, count: int, light: float, backs: float,
                        webcam_share: float) -> list[tuple[str, bytes]]:
    """(symbol, JPEG bytes) of the crops of scenes start..start+count-1, drawn in memory (one
    process's share of `write_reader_dataset`). Each scene goes through the JPEG the scene
    files of `write_crop_dataset` are saved with, so both cut the same kind of crop."""
    from companion.synth.scenes import FaceBank, make_scene

    if seed not in _BANKS:
        _BANKS[seed] = FaceBank(seed=seed)
    out = []
    for i in range(start, start + count):
        rng = np.random.default_rng(seed * 1_000_003 + i)
        rnd = random.Random(seed * 1_000_003 + 50_000_000 + i)
        img, labels = make_scene(rng, _BANKS[seed])  # type: ignore[arg-type]
        img = cv2.imdecode(cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 92])[1], cv2.IMREAD_COLOR)
        h, w = img.shape[:2]
        boxes = [(c, label_box(x, y, bw, bh, w, h)) for c, x, y, bw, bh in labels]
        for symbol, crop in crops_of_scene(img, boxes, rnd, light=light, backs=backs):
            ok, buf = cv2.imencode(".jpg", _as_trained(crop, rnd, webcam_share), [cv2.IMWRITE_JPEG_QUALITY, 93])
            out.append((symbol, buf.tobytes()))
    return out


def write_reader_dataset(out: Path, scenes: int, seed: int, composites: Path | None, jobs: int = 1,
                         val_share: float = 0.05, progress: Callable[[int], None] | None = None,
                         webcam_share: float = 0.35, glyphs: int = 3000, light: float = 0.0,
                         backs: float = 0.0) -> Path:
    """`write_crop_dataset`'s crops, with the scenes drawn in memory on `jobs` processes
    instead of read from a scene folder (the same data for any `jobs`): for a machine with
    many cores, where writing the scenes out first would take longer than training."""
    from companion.synth.classfolder import write_class_folder

    out = Path(out)
    write_class_folder(out, SYMBOL_CLASSES, scenes, seed, _reader_scene_batch, (light, backs, webcam_share),
                       val_share, jobs, progress)
    rnd = random.Random(seed)
    others = _other_sources(None if _take_cut_composites(composites, out) else composites, glyphs, rnd)
    _write_crops(chain.from_iterable(others), out, rnd, val_share, webcam_share, lambda n: f"x{n:07d}.jpg")
    return out
