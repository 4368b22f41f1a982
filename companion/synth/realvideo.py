"""Table videos made of real cards on real surfaces, for `bench-watch --real`.

The scripted session, the hand and arm, the timing and the truth are tablevideo.py's; this
module only supplies what the camera sees instead of the renderer's faces and the felt:

- **faces**: each photo in `../shared/data/real-photos/<set>/<card name>/` has its card found
  as a quadrilateral (the printed coloured body, or the black one of a wild, whose four
  sides the white border surrounds), warped flat and upright (56 x 87 mm) with rounded
  corners in the alpha, and kept only when its white border runs unbroken all round (no
  finger over the card, not cut off by the picture). Cut-outs are cached in a work folder.
- **surfaces**: the texture photos of `../shared/data/uno-cards-composites`, the band of
  each that holds no card (its labels give where the fan of cards lies), mirrored to fill
  the frame.

The real photos are measuring data: they make test videos, never training data, and no
cut-out or video made from them belongs in the repository.
"""
from __future__ import annotations

import json
import math
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import cv2
import numpy as np
from PIL import Image

from companion.referee.cards import deck, parse_card
from companion.errors import CompanionError, InputFileError
from companion.synth.render import ASPECT
from companion.synth.tablevideo import Step, VideoSpec, make_video, plan_session, with_habits
from companion.vision.crops import label_box

# --------------------------------------------------------------------------------------------
# Cut-outs: a photo's card, found and warped flat
# --------------------------------------------------------------------------------------------
CUT_HEIGHT = 300  # cut-outs are stored this tall; videos shrink them (110 px at 640x480)
# The white border's width as a share of the card's width, where the coloured body begins.
# Measured on cut-outs of both sets: 0.07-0.085 (classic and 2018+ alike).
BORDER = 0.075


def _order(quad: np.ndarray) -> np.ndarray:
    """Four points in order round the centre, the first at the top left of a portrait card:
    the shorter sides become the top and bottom (a card laid upside down is still a card)."""
    q = quad.reshape(4, 2).astype(np.float32)
    c = q.mean(0)
    q = q[np.argsort(np.arctan2(q[:, 1] - c[1], q[:, 0] - c[0]))]  # clockwise on screen (y down)
    sides = np.linalg.norm(np.roll(q, -1, 0) - q, axis=1)
    if sides[0] + sides[2] > sides[1] + sides[3]:
        q = np.roll(q, -1, 0)  # the side from point 0 to point 1 must be a short one
    start = 0 if q[0].sum() <= q[2].sum() else 2  # of the two ways up, the one nearer upright
    return np.roll(q, -start, 0)


def _quad_shape_ok(q: np.ndarray, aspect: float, image_shape: tuple[int, ...]) -> bool:
    """A card-like quadrilateral: inside the picture, about the right aspect, corners near
    square, opposite sides alike (a photo taken not too far from straight above)."""
    h, w = image_shape[:2]
    if np.any(q[:, 0] < 2) or np.any(q[:, 1] < 2) or np.any(q[:, 0] > w - 3) or np.any(q[:, 1] > h - 3):
        return False
    sides = np.linalg.norm(np.roll(q, -1, 0) - q, axis=1)
    if min(sides) < 20:
        return False
    if min(sides[0], sides[2]) / max(sides[0], sides[2]) < 0.75:
        return False
    if min(sides[1], sides[3]) / max(sides[1], sides[3]) < 0.75:
        return False
    ratio = (sides[0] + sides[2]) / (sides[1] + sides[3])
    if not 0.75 * aspect <= ratio <= 1.35 * aspect:  # a photo from aslant foreshortens the card
        return False
    for i in range(4):
        u, v = q[i - 1] - q[i], q[(i + 1) % 4] - q[i]
        if abs(float(np.dot(u, v))) / (np.linalg.norm(u) * np.linalg.norm(v)) > 0.35:  # beyond 90 +- 20 degrees
            return False
    return True


# Hue ranges (OpenCV 0..179) of the printed colours. The card's name says which colour to
# look for; red and yellow stop short of the orange-brown of wooden tables (hue 11-16), which
# would otherwise join the body.
_HUES: dict[str, tuple[tuple[int, int], ...]] = {
    "red": ((0, 10), (158, 180)), "yellow": ((17, 42),), "green": ((40, 92),), "blue": ((88, 135),),
}


def _body_masks(img: np.ndarray, colour: str | None) -> list[np.ndarray]:
    """Masks in which a card's body may stand out: its printed colour at a few saturation
    levels (a wild: its black at a few darkness levels)."""
    hsv = cv2.cvtColor(cv2.GaussianBlur(img, (5, 5), 0), cv2.COLOR_BGR2HSV)
    h, s, v = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    masks = []
    if colour is None:
        masks += [(v < t) & (s < 110) for t in (60, 90, 120)]
    else:
        hue = np.zeros(h.shape, bool)
        for lo, hi in _HUES[colour]:
            hue |= (h >= lo) & (h < hi)
        masks += [hue & (s > t) & (v > 40) for t in (60, 100, 140)]
    return [m.astype(np.uint8) * 255 for m in masks]


def _card_from_body(body: np.ndarray, border: float = BORDER) -> np.ndarray:
    """The card's corners from its body's: the same perspective, grown by the white border."""
    w, h = 1.0, 1.0 / ASPECT
    b = border * w
    inner = np.float32([[b, b], [w - b, b], [w - b, h - b], [b, h - b]])
    outer = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
    m = cv2.getPerspectiveTransform(inner, body.astype(np.float32))
    return cv2.perspectiveTransform(outer[None], m)[0]


def _quad(points: np.ndarray) -> np.ndarray | None:
    """The quadrilateral fitting a point set's convex hull, or None when it is no quadrilateral."""
    hull = cv2.convexHull(points)
    peri = cv2.arcLength(hull, True)
    for eps in (0.02, 0.03, 0.045):
        poly = cv2.approxPolyDP(hull, eps * peri, True)
        if len(poly) == 4:
            return _order(poly)
    return None


def _across(white: np.ndarray, side: int, u: float, w: int, h: int, m: int) -> tuple[np.ndarray, list[tuple[float, float]]]:
    """The profile across one side (0 top, 1 right, 2 bottom, 3 left) of a body flattened to
    w x h with a margin m, at `u` along it clockwise, from outside in, with each sample's
    (x, y)."""
    if side == 0:
        x = m + u * w
        return white[:2 * m, int(x)], [(x, float(k)) for k in range(2 * m)]
    if side == 1:
        y = m + u * h
        return white[int(y), w:w + 2 * m][::-1], [(float(w + 2 * m - 1 - k), y) for k in range(2 * m)]
    if side == 2:
        x = m + (1 - u) * w
        return white[h:h + 2 * m, int(x)][::-1], [(x, float(h + 2 * m - 1 - k)) for k in range(2 * m)]
    y = m + (1 - u) * h
    return white[int(y), :2 * m], [(float(k), y) for k in range(2 * m)]


def _refine_body(img: np.ndarray, body: np.ndarray, passes: int = 2) -> np.ndarray:
    """The body's corners moved onto its printed edge: each side is refitted as a line
    through the strongest white-to-body step found across it (the oval or disc that meets
    the border leaves no step there, and the fit is robust to it)."""
    w, h = 200, int(round(200 / ASPECT))  # the body flattened to this size, a margin round it
    m = 12
    dst = np.float32([[m, m], [m + w, m], [m + w, m + h], [m, m + h]])
    for _ in range(passes):
        to_flat = cv2.getPerspectiveTransform(body.astype(np.float32), dst)
        flat = cv2.warpPerspective(img, to_flat, (w + 2 * m, h + 2 * m), flags=cv2.INTER_LINEAR,
                                   borderMode=cv2.BORDER_REPLICATE)
        white = cv2.GaussianBlur(_whiteness(flat), (3, 3), 0)
        lines = []
        for side in range(4):
            pts = []
            for u in np.linspace(0.15, 0.85, 29):  # clear of the corners and their indices
                profile, coords = _across(white, side, u, w, h, m)
                step = profile[:-2] - profile[2:]  # white outside, body inside: whiteness falls
                k = int(np.argmax(step))
                if step[k] > 30:
                    pts.append(coords[k + 1])
            if len(pts) < 8:
                return body
            lines.append(cv2.fitLine(np.float32(pts), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel())
        corners = []
        for i in range(4):
            (vx1, vy1, x1, y1), (vx2, vy2, x2, y2) = lines[i - 1], lines[i]
            a = np.float32([[vx1, -vx2], [vy1, -vy2]])
            if abs(np.linalg.det(a)) < 1e-3:
                return body
            t = np.linalg.solve(a, np.float32([x2 - x1, y2 - y1]))
            corners.append((x1 + t[0] * vx1, y1 + t[0] * vy1))
        back = np.linalg.inv(to_flat)
        body = cv2.perspectiveTransform(np.float32(corners)[None], back)[0]
    return body


def find_card_quad(img: np.ndarray, name: str | None = None) -> np.ndarray | None:
    """The corners (4x2, top-left first, clockwise) of the one whole card in a photo, or None.

    The card's printed body (its colour, known from `name`, or a wild's black) is the part
    to find: a table may be as white as the border, rarely the card's own saturated colour.
    The classic oval and the 2018+ disc reach the border and cut the body in two, so the
    outline tried is each large patch of body colour and each pair of them together. The
    body's quadrilateral is grown by the white border; the largest candidate whose border is
    white all round (no finger over it, not cut off) wins.
    """
    h, w = img.shape[:2]
    colour = parse_card(name).color if name else None
    body_aspect = (1 - 2 * BORDER) / (1 / ASPECT - 2 * BORDER)
    best: tuple[float, np.ndarray] | None = None
    kernel = np.ones((3, 3), np.uint8)
    masks = _body_masks(img, colour) if name else [m for c in (None, *_HUES) for m in _body_masks(img, c)]
    for mask in masks:
        mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, kernel)
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        patches = sorted((c for c in contours if cv2.contourArea(c) >= 0.004 * h * w), key=cv2.contourArea)[-6:]
        groups = [[a] for a in patches] + [[a, b] for i, a in enumerate(patches) for b in patches[i + 1:]]
        for group in groups:
            body = _quad(np.concatenate(group))
            if body is None or not _quad_shape_ok(body, body_aspect, img.shape):
                continue
            size = cv2.contourArea(body)
            if size < 0.02 * h * w or sum(cv2.contourArea(c) for c in group) < 0.3 * size:
                continue
            body = _refine_body(img, body)
            card = _card_from_body(body)
            if not _quad_shape_ok(card, ASPECT, img.shape) or not border_is_clear(warp_card(img, card, 240)):
                continue
            if best is None or size > best[0]:
                best = (size, card)
    return None if best is None else best[1]


def _rounded_alpha(h: int, w: int) -> np.ndarray:
    """A card's outline as alpha: a rectangle with the printed cards' rounded corners."""
    r = max(2, int(round(w * 0.07)))
    mask = np.zeros((h, w), np.uint8)
    cv2.rectangle(mask, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(mask, (0, r), (w - 1, h - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(mask, (cx, cy), r, 255, -1, lineType=cv2.LINE_AA)
    return mask


def warp_card(img: np.ndarray, quad: np.ndarray, height: int = CUT_HEIGHT) -> np.ndarray:
    """The card inside `quad` warped flat and upright, BGRA with rounded corners."""
    w = int(round(height * ASPECT))
    dst = np.float32([[0, 0], [w - 1, 0], [w - 1, height - 1], [0, height - 1]])
    m = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
    flat = cv2.warpPerspective(img, m, (w, height), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
    return np.dstack([flat, _rounded_alpha(height, w)])


def _whiteness(bgr: np.ndarray) -> np.ndarray:
    lab = cv2.cvtColor(bgr, cv2.COLOR_BGR2LAB).astype(np.float32)
    return lab[..., 0] - 2.0 * np.hypot(lab[..., 1] - 128, lab[..., 2] - 128)


def border_is_clear(card: np.ndarray, border: float = BORDER, share: float = 0.97) -> bool:
    """Whether a flat cut-out's white border is white all round: the band inside its edge is
    clearly whiter than the body within, and nearly all of it is as colourless as the
    border's own white and not much darker than the rest of its side (a shadow across the
    card darkens a whole side; a finger or an object over the border is coloured or dark
    in one place). A quadrilateral too small (the print) or too big (the table) fails too."""
    h, w = card.shape[:2]
    lab = cv2.cvtColor(card[..., :3], cv2.COLOR_BGR2LAB).astype(np.float32)
    light, chroma = lab[..., 0], np.hypot(lab[..., 1] - 128, lab[..., 2] - 128)
    white = light - 2.0 * chroma
    a, b = int(round((border - 0.045) * w)), int(round((border - 0.015) * w))
    c, d = int(round((border + 0.03) * w)), int(round((border + 0.08) * w))
    inside = np.zeros((h, w), bool)
    inside[c:h - c, c:w - c] = True
    inside[d:h - d, d:w - d] = False
    r = int(round(0.09 * w))  # past the rounded corners
    sides = [(slice(a, b), slice(r, w - r)), (slice(h - b, h - a), slice(r, w - r)),
             (slice(r, h - r), slice(a, b)), (slice(r, h - r), slice(w - b, w - a))]
    ring_white = np.concatenate([white[s].ravel() for s in sides])
    if np.median(ring_white) < 90 or np.median(ring_white) - np.median(white[inside]) < 40:
        return False
    grey = float(np.median(np.concatenate([chroma[s].ravel() for s in sides])))
    good = total = 0
    for s in sides:
        ok = (chroma[s] < grey + 12) & (light[s] > 0.8 * np.median(light[s]))
        good, total = good + int(ok.sum()), total + ok.size
    return good >= share * total


# --------------------------------------------------------------------------------------------
# The bank of cut-outs, cached in a work folder
# --------------------------------------------------------------------------------------------
_CACHE_VERSION = 2  # bump when the cut-out finder changes
SHARED_DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
PHOTOS = SHARED_DATA / "real-photos"
COMPOSITES = SHARED_DATA / "uno-cards-composites"


@dataclass
class CutoutSet:
    """One photo set's usable cut-outs: card name -> PNG files (BGRA, CUT_HEIGHT tall)."""

    name: str
    photos: int
    files: dict[str, list[Path]]

    @property
    def usable(self) -> int:
        return sum(len(v) for v in self.files.values())


def cut_photo_set(root: Path, work: Path, progress: Callable[[int, int], None] | None = None) -> CutoutSet:
    """Cut out every photo of a folder-per-card set once; later calls read the cache."""
    from companion.synth.evaluation import photo_set

    root = Path(root)
    out = Path(work) / "cutouts" / root.name
    index_path = out / "index.json"
    pairs = photo_set(root)
    key = {"version": _CACHE_VERSION, "root": str(root.resolve()), "photos": len(pairs)}
    if index_path.exists():
        index = json.loads(index_path.read_text(encoding="utf-8"))
        if all(index.get(k) == v for k, v in key.items()):
            files = {name: [out / f for f in names] for name, names in index["files"].items()}
            return CutoutSet(root.name, len(pairs), files)
    files: dict[str, list[Path]] = {}
    for k, (photo, name) in enumerate(pairs):
        if progress:
            progress(k, len(pairs))
        img = cv2.imread(str(photo))
        quad = None if img is None else find_card_quad(img, name)
        if quad is None:
            continue
        target = out / name / (photo.name + ".png")
        target.parent.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(target), warp_card(img, quad))
        files.setdefault(name, []).append(target)
    index = {**key, "files": {n: [str(p.relative_to(out)) for p in ps] for n, ps in files.items()}}
    out.mkdir(parents=True, exist_ok=True)
    index_path.write_text(json.dumps(index), encoding="utf-8")
    return CutoutSet(root.name, len(pairs), files)


def even_light(card: np.ndarray, white: float = 230.0) -> np.ndarray:
    """A cut-out with its white border brought to one neutral white. Each photo has its own
    exposure and white balance; on one table every card is under the same light (the video
    then adds its own drift, tint and shadow)."""
    h, w = card.shape[:2]
    a, b = int(round((BORDER - 0.045) * w)), int(round((BORDER - 0.015) * w))
    band = np.zeros((h, w), bool)
    band[a:h - a, a:w - a] = True
    band[b:h - b, b:w - b] = False
    band &= card[..., 3] == 255
    gains = np.clip(white / np.maximum(np.median(card[..., :3][band], axis=0), 1.0), 0.6, 2.5)
    out = card.copy()
    out[..., :3] = np.clip(card[..., :3].astype(np.float32) * gains, 0, 255).astype(np.uint8)
    return out


class RealFaces:
    """A face source for TableVideo: each card name is one real cut-out (a deck holds the same
    print twice), picked by the seed from the first set that has one."""

    def __init__(self, sets: Sequence[CutoutSet], seed: int) -> None:
        self.sets = list(sets)
        self.seed = seed

    def __call__(self, name: str, design: str, height: int) -> np.ndarray:
        files = next((c.files[name] for c in self.sets if c.files.get(name)), None)
        if not files:
            raise InputFileError(f"no usable photo of {name} in {', '.join(c.name for c in self.sets)}")
        path = random.Random(f"{self.seed}:{name}").choice(sorted(files))
        card = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
        if card is None or card.ndim != 3 or card.shape[2] != 4:
            raise InputFileError(f"cannot read cut-out {str(path)!r} (delete the work folder's cutouts/)")
        card = even_light(card)
        return cv2.resize(card, (int(round(height * ASPECT)), height), interpolation=cv2.INTER_AREA)


# --------------------------------------------------------------------------------------------
# Surfaces: the card-free part of the composites' texture photos
# --------------------------------------------------------------------------------------------
def _free_band(label_file: Path, w: int, h: int) -> tuple[int, int, int, int] | None:
    """The thickest full-width or full-height strip of a composite clear of its fan of cards.

    Its labels box the cards' top-left corner indices only; the fan spreads right and down
    from them, a card being about 4.5 index boxes wide and 6 high, and a fan tilted by 30
    degrees reaches up and left of its first index by half a card."""
    try:
        rows = [list(map(float, line.split())) for line in label_file.read_text().splitlines() if line.strip()]
    except (OSError, ValueError):
        return None
    if not rows or any(len(r) != 5 for r in rows):
        return None
    b = np.array([label_box(x, y, bw, bh, w, h) for _, x, y, bw, bh in rows])
    bw, bh = float((b[:, 2] - b[:, 0]).max()), float((b[:, 3] - b[:, 1]).max())
    x0, y0 = int(b[:, 0].min() - 4 * bh), int(b[:, 1].min() - 3 * bh)
    x1, y1 = int(math.ceil(b[:, 2].max() + 6 * bw)), int(math.ceil(b[:, 3].max() + 7 * bh))
    bands = [(0, 0, w, y0), (0, y1, w, h), (0, 0, x0, h), (x1, 0, w, h)]
    return max(bands, key=lambda r: min(r[2] - r[0], r[3] - r[1]))


def surface_bands(root: Path, min_thickness: int = 80) -> list[tuple[Path, tuple[int, int, int, int]]]:
    """(image, band) for every composite with a card-free strip at least this thick."""
    root = Path(root)
    out = []
    for image in sorted((root / "images").glob("*.jpg")):
        try:
            with Image.open(image) as img:  # reads the header only
                w, h = img.size
        except OSError:
            continue
        band = _free_band(root / "labels" / (image.stem + ".txt"), w, h)
        if band and min(band[2] - band[0], band[3] - band[1]) >= min_thickness:
            out.append((image, band))
    return out


def table_surface(image: Path, band: tuple[int, int, int, int], width: int, height: int,
                  seed: int = 0) -> np.ndarray:
    """A width x height table from a texture strip: laid lengthwise across the frame, scaled
    to its width and mirrored (no seam jumps) until it fills the height."""
    img = cv2.imread(str(image))
    if img is None:
        raise InputFileError(f"cannot read texture {str(image)!r}")
    x0, y0, x1, y1 = band
    strip = img[y0:y1, x0:x1]
    if strip.shape[0] > strip.shape[1]:
        strip = cv2.rotate(strip, cv2.ROTATE_90_CLOCKWISE)
    rng = random.Random(seed)
    if rng.random() < 0.5:
        strip = strip[:, ::-1]
    scale = width / strip.shape[1]
    strip = cv2.resize(strip, (width, max(1, int(round(strip.shape[0] * scale)))), interpolation=cv2.INTER_CUBIC)
    tiles, k = [], 0
    while sum(t.shape[0] for t in tiles) < height:
        tiles.append(strip if k % 2 == 0 else strip[::-1])
        k += 1
    return np.ascontiguousarray(np.vstack(tiles)[:height])


# --------------------------------------------------------------------------------------------
# Sessions and videos
# --------------------------------------------------------------------------------------------
def real_session(plays: int, players: int = 4, seed: int = 0, crooked: float = 0.08,
                 hover: float = 0.08) -> list[Step]:
    """tablevideo's scripted session (identical cards in a row, take-backs, reveals, bumps)
    with some plays laid crooked, half off the pile, and some held at its edge first."""
    steps = plan_session(plays, players=players, seed=seed)
    rng = random.Random(f"real-session:{seed}")
    for step in steps:
        if step.kind == "play":
            r = rng.random()
            step.style = "crooked" if r < crooked else "hover" if r < crooked + hover else ""
    return steps


def make_real_video(out: Path, steps: Sequence[Step], faces: Callable[[str, str, int], np.ndarray],
                    surface: tuple[Path, tuple[int, int, int, int]], seed: int) -> list[dict]:
    """tablevideo's make_video with these faces (`faces(name, design, height)`, BGRA) on a
    texture strip (`surface`: image and band) as the table; returns the truth."""
    image, band = surface
    return make_video(out, spec=VideoSpec(seed=seed), steps=steps, renderer=faces,
                      background=lambda w, h: table_surface(image, band, w, h, seed))


def require_folder(path: Path, what: str, flag: str) -> Path:
    """The folder, or a one-line error saying what is missing and how to name another."""
    path = Path(path)
    if not path.is_dir():
        raise InputFileError(f"{what} not found: {path} (measuring data kept beside the repository; "
                             f"name another folder with {flag} DIR)")
    return path


class RealVideoMaker:
    """Makes `bench-watch --real` videos: cut-outs of each photo set in turn (video k uses
    set k mod sets), one composite surface per video, all chosen by the seed. It checks the
    data folders at once; `prepare(work)` cuts the photos out (cached in the work folder)."""

    def __init__(self, photos: Path | None = None, composites: Path | None = None, plays: int = 55,
                 habits: bool = False) -> None:
        self.photos = require_folder(photos or PHOTOS, "real photos", "--photos")
        self.composites = require_folder(composites or COMPOSITES, "card composites (for table surfaces)",
                                         "--composites")
        self.roots = sorted(p for p in self.photos.iterdir() if p.is_dir())
        if not self.roots:
            raise InputFileError(f"{self.photos}: no photo sets (folders of card-name folders) in it")
        self.plays = plays
        self.habits = habits  # cards laid face down first, the pile straightened (`tablevideo.with_habits`)
        self.sets: list[CutoutSet] = []
        self.surfaces: list[tuple[Path, tuple[int, int, int, int]]] = []

    def prepare(self, work: Path, progress: Callable[[str, int, int], None] | None = None) -> None:
        self.sets = [cut_photo_set(root, work, (lambda k, n, r=root: progress(r.name, k, n)) if progress else None)
                     for root in self.roots]
        self.surfaces = surface_bands(self.composites)
        if not self.surfaces:
            raise InputFileError(f"{self.composites}: no texture photo with a card-free strip")

    def summary(self) -> dict:
        """Per photo set: photos, usable cut-outs, and the classic deck's card names with none
        (a video of that set takes those from another set); the number of surfaces."""
        return {"sets": {c.name: {"photos": c.photos, "usable": c.usable,
                                  "no_cut_out": sorted(set(deck()) - set(c.files))} for c in self.sets},
                "surfaces": len(self.surfaces)}

    def __call__(self, out: Path, seed: int, index: int) -> list[dict]:
        """Write video `index` of a bench (OUT and OUT.jsonl); returns its truth."""
        if not self.sets:
            raise CompanionError("RealVideoMaker.prepare(work) first")
        k = index % len(self.sets)
        faces = RealFaces(self.sets[k:] + self.sets[:k], seed)
        surface = random.Random(f"surface:{seed}").choice(self.surfaces)
        steps = real_session(self.plays, seed=seed)
        return make_real_video(out, with_habits(steps, seed) if self.habits else steps, faces, surface, seed)
