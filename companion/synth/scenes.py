"""Scene synthesis: rendered cards composited onto table surfaces, with YOLO labels.

Each scene is one of the situations the camera (or a phone photo) meets: a card lying on a
table, a card held up to the camera, a discard pile (top card whole, older cards peeking
out), a spread or fanned hand (only corners visible). Cards get rotation, perspective and
scale; the picture gets lighting and white-balance shifts, glare, shadows, blur, noise and
JPEG artefacts; fingers and other cards occlude.

Labels: one box per card that can be named from what is visible, covering the card's
visible pixels, class = the card's index in `companion.referee.cards.CARD_NAMES`. A card counts as
nameable when at least half of it is visible, or one of its corner indices is wholly
visible (a fanned hand). Cards hidden beyond that are left unlabelled (background).
"""
from __future__ import annotations

import math
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import cv2
import numpy as np

from companion.referee.cards import CARD_NAMES
from companion.vision.photometric import FINDER_GAINS, tone
from companion.synth.render import ASPECT, DESIGNS, render_card

CLASS_INDEX = {name: i for i, name in enumerate(CARD_NAMES)}
SIZES = ((416, 416), (480, 360), (360, 480), (448, 448), (480, 384))


# ---------------------------------------------------------------- table surfaces

def _noise(rng: np.random.Generator, h: int, w: int, scale: int) -> np.ndarray:
    small = rng.random((max(2, h // scale), max(2, w // scale))).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def surface(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """A random table surface or backdrop (BGR uint8): wood, cloth, plastic, paper,
    patterns, a keyboard-like grid, or a room behind a person holding a card."""
    kind = rng.choice(["wood", "cloth", "plastic", "paper", "pattern", "grid", "room", "room"])
    base = rng.integers(0, 256, 3).astype(np.float32)
    if kind == "wood":
        base = np.array([rng.uniform(40, 120), rng.uniform(80, 160), rng.uniform(120, 210)], np.float32)
        y, x = np.mgrid[0:h, 0:w].astype(np.float32)
        ang = rng.uniform(0, math.pi)
        t = x * math.cos(ang) + y * math.sin(ang)
        grain = np.sin(t / rng.uniform(3, 12) + 6 * _noise(rng, h, w, 40)) * 0.5 + 0.5
        img = base[None, None, :] * (0.75 + 0.35 * grain[..., None])
    elif kind == "cloth":
        n = _noise(rng, h, w, 2) * 0.5 + _noise(rng, h, w, 12) * 0.5
        img = base[None, None, :] * (0.7 + 0.5 * n[..., None])
    elif kind == "plastic":
        y, x = np.mgrid[0:h, 0:w].astype(np.float32)
        g = (x / w * rng.uniform(-0.4, 0.4) + y / h * rng.uniform(-0.4, 0.4))
        img = base[None, None, :] * (0.85 + g[..., None])
    elif kind == "paper":
        base = np.full(3, rng.uniform(170, 245), np.float32) + rng.uniform(-15, 15, 3)
        img = base[None, None, :] * (0.92 + 0.1 * _noise(rng, h, w, 1)[..., None])
    elif kind == "pattern":
        img = np.zeros((h, w, 3), np.float32) + base
        for _ in range(int(rng.integers(5, 40))):
            col = rng.integers(0, 256, 3).tolist()
            if rng.random() < 0.5:
                p1 = (int(rng.integers(0, w)), int(rng.integers(0, h)))
                cv2.circle(img, p1, int(rng.integers(5, max(6, w // 4))), col, -1)
            else:
                x0, y0 = int(rng.integers(0, w)), int(rng.integers(0, h))
                cv2.rectangle(img, (x0, y0), (x0 + int(rng.integers(10, w)), y0 + int(rng.integers(5, 40))), col, -1)
    elif kind == "grid":  # keyboards, tiles, laptops
        img = np.zeros((h, w, 3), np.float32) + base * 0.3
        step = int(rng.integers(14, 40))
        key = (base * 0.5 + 40).tolist()
        for yy in range(0, h, step):
            for xx in range(int(rng.integers(0, step)), w, step):
                cv2.rectangle(img, (xx + 2, yy + 2), (xx + step - 3, yy + step - 3), key, -1)
    else:  # a room: walls, furniture, a face and hair behind the hand
        img = np.zeros((h, w, 3), np.float32) + base
        for _ in range(int(rng.integers(2, 7))):
            col = rng.integers(0, 256, 3).tolist()
            x0, y0 = int(rng.integers(-w // 2, w)), int(rng.integers(-h // 2, h))
            cv2.rectangle(img, (x0, y0), (x0 + int(rng.integers(w // 4, w)), y0 + int(rng.integers(h // 4, h))), col, -1)
        if rng.random() < 0.6:
            skin = _skin(rng)
            c = (int(rng.integers(0, w)), int(rng.integers(0, h)))
            ax = (int(w * rng.uniform(0.12, 0.3)), int(h * rng.uniform(0.18, 0.4)))
            cv2.ellipse(img, c, ax, 0, 0, 360, skin, -1)
            cv2.ellipse(img, (c[0], c[1] - ax[1] // 2), (ax[0] + 5, ax[1] // 2), 0, 180, 360,
                        rng.integers(0, 60, 3).tolist(), -1)
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(1, 6))
    img = img + rng.normal(0, rng.uniform(1, 8), img.shape).astype(np.float32)
    return np.clip(img, 0, 255).astype(np.uint8)


def _skin(rng: np.random.Generator) -> list[float]:
    tones = [(95, 125, 175), (80, 110, 160), (60, 85, 130), (120, 150, 200), (45, 60, 95), (140, 170, 220)]
    t = np.array(tones[int(rng.integers(0, len(tones)))], np.float32) + rng.uniform(-15, 15, 3)
    return np.clip(t, 0, 255).tolist()


# ---------------------------------------------------------------- placing cards

@dataclass
class Placed:
    name: str
    quad: np.ndarray  # 4x2 corners in the scene: TL, TR, BR, BL of the face
    mask: np.ndarray  # bool, where this card's pixels are (before later occluders)


class FaceBank:
    """Pre-rendered faces with small variations; warping a cached face is fast."""

    def __init__(self, height: int = 300, variants: int = 2, seed: int = 0,
                 renderer: Callable[..., np.ndarray] = render_card) -> None:
        rnd = random.Random(seed)
        self.faces: dict[tuple[str, str], list[np.ndarray]] = {}
        for design in DESIGNS:
            for name in CARD_NAMES:
                self.faces[(name, design)] = [
                    renderer(name, design, height, rng=random.Random(rnd.random()) if v else None)
                    for v in range(variants)
                ]

    def get(self, name: str, design: str, rng: np.random.Generator) -> np.ndarray:
        options = self.faces[(name, design)]
        return options[int(rng.integers(0, len(options)))]


def _card_quad(rng: np.random.Generator, cx: float, cy: float, height: float, angle: float,
               persp: float) -> np.ndarray:
    w = height * ASPECT
    pts = np.array([[-w / 2, -height / 2], [w / 2, -height / 2], [w / 2, height / 2], [-w / 2, height / 2]], np.float32)
    ca, sa = math.cos(angle), math.sin(angle)
    rot = pts @ np.array([[ca, sa], [-sa, ca]], np.float32)
    rot += rng.uniform(-persp, persp, rot.shape).astype(np.float32) * height
    return rot + np.array([cx, cy], np.float32)


def _paste(scene: np.ndarray, face: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """Warp a BGRA face onto the scene at quad; returns the card's coverage mask."""
    fh, fw = face.shape[:2]
    src = np.array([[0, 0], [fw - 1, 0], [fw - 1, fh - 1], [0, fh - 1]], np.float32)
    m = cv2.getPerspectiveTransform(src, quad.astype(np.float32))
    h, w = scene.shape[:2]
    warped = cv2.warpPerspective(face, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    a = warped[:, :, 3:4].astype(np.float32) / 255
    scene[:] = (warped[:, :, :3] * a + scene * (1 - a)).astype(np.uint8)
    return a[:, :, 0] > 0.5


def _corner_regions(quad: np.ndarray) -> list[np.ndarray]:
    """The two index corners (top-left, bottom-right) as small quads inside the card."""
    tl, tr, br, bl = quad
    def lerp(p, q, t):
        return p + (q - p) * t
    out = []
    for a, b, d in ((tl, tr, bl), (br, bl, tr)):
        ux, uy = (b - a) * 0.3, (d - a) * 0.2
        out.append(np.array([a, a + ux, a + ux + uy, a + uy], np.float32))
    return out


def _poly_mask(shape: tuple[int, int], quad: np.ndarray) -> np.ndarray:
    m = np.zeros(shape, np.uint8)
    cv2.fillConvexPoly(m, quad.astype(np.int32), 1)
    return m.astype(bool)


def _finger(scene: np.ndarray, rng: np.random.Generator, near: np.ndarray) -> np.ndarray:
    """A finger or thumb over a card's edge; returns its mask."""
    i = int(rng.integers(0, 4))
    p, q = near[i], near[(i + 1) % 4]
    t = rng.uniform(0.2, 0.8)
    c = p + (q - p) * t
    edge = q - p
    length = float(np.linalg.norm(edge)) or 1.0
    ang = math.degrees(math.atan2(edge[1], edge[0])) + 90 + rng.uniform(-30, 30)
    axes = (int(length * rng.uniform(0.25, 0.6)), int(length * rng.uniform(0.08, 0.16)))
    return _skin_ellipse(scene, rng, c, axes, ang)


def _skin_ellipse(scene: np.ndarray, rng: np.random.Generator, c: np.ndarray,
                  axes: tuple[int, int], ang: float) -> np.ndarray:
    """Paint an unevenly lit skin-coloured ellipse over the scene; returns its mask."""
    h, w = scene.shape[:2]
    mask = np.zeros((h, w), np.uint8)
    cv2.ellipse(mask, (int(c[0]), int(c[1])), axes, ang, 0, 360, 1, -1)
    skin = np.array(_skin(rng), np.float32)
    shade = 0.78 + 0.28 * _noise(rng, h, w, 22)
    layer = np.clip(skin[None, None, :] * shade[..., None], 0, 255)
    sel = mask.astype(bool)
    scene[sel] = layer[sel].astype(np.uint8)
    return sel


def _palm(scene: np.ndarray, rng: np.random.Generator, quad: np.ndarray) -> np.ndarray:
    """The hand holding a card up to a webcam: a palm over one end of the card and beyond
    it, as in frames where only the top half of the card shows. Returns its mask."""
    i = int(rng.integers(0, 4))
    p, q = quad[i], quad[(i + 1) % 4]
    centre = quad.mean(axis=0)
    edge_mid = (p + q) / 2
    c = edge_mid + (edge_mid - centre) * rng.uniform(-0.1, 0.6)
    edge = q - p
    length = float(np.linalg.norm(edge)) or 1.0
    ang = math.degrees(math.atan2(edge[1], edge[0])) + rng.uniform(-20, 20)  # along the edge
    axes = (int(length * rng.uniform(0.5, 0.9)), int(length * rng.uniform(0.3, 0.6)))
    return _skin_ellipse(scene, rng, c, axes, ang)


# ---------------------------------------------------------------- photometry

def _photometry(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    f = img.astype(np.float32)
    h, w = f.shape[:2]
    # White balance and exposure
    f *= rng.uniform(*FINDER_GAINS, 3).astype(np.float32)[None, None, :]
    f = f * rng.uniform(0.65, 1.3) + rng.uniform(-30, 30)
    # Washed-out webcam colours: pull towards grey
    if rng.random() < 0.4:
        g = f.mean(axis=2, keepdims=True)
        f = f + (g - f) * rng.uniform(0.1, 0.45)
    # Haze: a webcam's lifted blacks and low contrast, a pale veil over everything
    if rng.random() < 0.25:
        a = rng.uniform(0.15, 0.45)
        veil = rng.uniform(150, 235) + rng.uniform(-20, 20, 3)
        f = f * (1 - a) + veil.astype(np.float32)[None, None, :] * a
    # Uneven light / shadow
    if rng.random() < 0.6:
        y, x = np.mgrid[0:h, 0:w].astype(np.float32)
        g = 1 + (x / w - 0.5) * rng.uniform(-0.7, 0.7) + (y / h - 0.5) * rng.uniform(-0.7, 0.7)
        f *= g[..., None]
    if rng.random() < 0.3:  # a hard shadow
        m = np.zeros((h, w), np.float32)
        pts = rng.integers(0, max(h, w), (4, 2)).astype(np.int32)
        cv2.fillConvexPoly(m, cv2.convexHull(pts), 1)
        m = cv2.GaussianBlur(m, (0, 0), rng.uniform(3, 15))
        f *= (1 - m * rng.uniform(0.2, 0.5))[..., None]
    if rng.random() < 0.25:  # glare
        m = np.zeros((h, w), np.float32)
        cv2.ellipse(m, (int(rng.integers(0, w)), int(rng.integers(0, h))),
                    (int(rng.integers(10, w // 3)), int(rng.integers(5, h // 5))), rng.uniform(0, 180), 0, 360, 1, -1)
        m = cv2.GaussianBlur(m, (0, 0), rng.uniform(5, 20))
        f += m[..., None] * rng.uniform(60, 160)
    f = np.clip(f, 0, 255)
    if rng.random() < 0.3:
        gamma = rng.uniform(0.7, 1.4)
        f = 255 * (f / 255) ** gamma
    img = f.astype(np.uint8)
    r = rng.random()
    if r < 0.25:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.5, 2.0))
    elif r < 0.4:  # motion blur
        k = int(rng.integers(3, 9))
        kernel = np.zeros((k, k), np.float32)
        kernel[k // 2, :] = 1 / k
        rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1)
        kernel = cv2.warpAffine(kernel, rot, (k, k))
        kernel /= max(kernel.sum(), 1e-6)
        img = cv2.filter2D(img, -1, kernel)
    if rng.random() < 0.5:
        img = np.clip(img.astype(np.int16) + rng.normal(0, rng.uniform(2, 9), img.shape).astype(np.int16), 0, 255).astype(np.uint8)
    if rng.random() < 0.6:
        ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(30, 95))])
        img = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return img


# ---------------------------------------------------------------- scenes

def _random_angle(rng: np.random.Generator) -> float:
    r = rng.random()
    if r < 0.45:
        return rng.normal(0, 0.25)
    if r < 0.7:
        return rng.choice([math.pi / 2, math.pi, -math.pi / 2]) + rng.normal(0, 0.25)
    return rng.uniform(-math.pi, math.pi)


def make_scene(rng: np.random.Generator, bank: FaceBank) -> tuple[np.ndarray, list[tuple[int, float, float, float, float]]]:
    """One synthetic picture and its YOLO labels (class, cx, cy, w, h; normalised)."""
    w, h = SIZES[int(rng.integers(0, len(SIZES)))]
    scene = surface(rng, h, w)
    design = DESIGNS[int(rng.integers(0, 2))]
    kind = rng.choice(["single", "single", "held", "held", "pile", "fan", "spread"], p=None)
    placed: list[Placed] = []
    occluders: list[np.ndarray] = []
    names = [CARD_NAMES[int(i)] for i in rng.integers(0, len(CARD_NAMES), 8)]

    def put(name: str, cx: float, cy: float, height: float, angle: float, persp: float) -> Placed:
        quad = _card_quad(rng, cx, cy, height, angle, persp)
        if rng.random() < 0.25:  # a shadow under the card
            sm = np.zeros((h, w), np.float32)
            cv2.fillConvexPoly(sm, (quad + rng.uniform(2, 8, 2)).astype(np.int32), 1)
            sm = cv2.GaussianBlur(sm, (0, 0), 4)
            scene[:] = (scene * (1 - 0.35 * sm[..., None])).astype(np.uint8)
        mask = _paste(scene, bank.get(name, design, rng), quad)
        p = Placed(name, quad, mask)
        placed.append(p)
        return p

    short = min(w, h)
    if kind in ("single", "held"):
        big = kind == "held"
        height = short * (rng.uniform(0.55, 1.25) if big else rng.uniform(0.3, 0.85))
        cx = rng.uniform(0.25, 0.75) * w
        cy = rng.uniform(0.25, 0.75) * h
        if rng.random() < 0.3:  # a second card somewhere
            put(names[1], rng.uniform(0, w), rng.uniform(0, h), height * rng.uniform(0.5, 1), _random_angle(rng), 0.05)
        p = put(names[0], cx, cy, height, _random_angle(rng) * (0.5 if big else 1), rng.uniform(0, 0.1 if big else 0.06))
        for _ in range(int(rng.integers(1 if big else 0, 3))):
            if rng.random() < (0.9 if big else 0.3):
                occluders.append(_finger(scene, rng, p.quad))
        if big and rng.random() < 0.35:
            occluders.append(_palm(scene, rng, p.quad))
    elif kind == "pile":
        height = short * rng.uniform(0.3, 0.6)
        cx, cy = rng.uniform(0.3, 0.7) * w, rng.uniform(0.3, 0.7) * h
        for i in range(int(rng.integers(2, 6))):
            put(names[i], cx + rng.normal(0, height * 0.12), cy + rng.normal(0, height * 0.12), height,
                _random_angle(rng) if i else rng.uniform(-math.pi, math.pi), 0.04)
        if rng.random() < 0.3:
            occluders.append(_finger(scene, rng, placed[-1].quad))
    else:  # fanned or spread hand: cards overlapping, corners showing
        n = int(rng.integers(3, 8))
        height = short * rng.uniform(0.3, 0.6)
        cx, cy = rng.uniform(0.3, 0.7) * w, rng.uniform(0.4, 0.8) * h
        base = rng.uniform(-0.4, 0.4)
        spread = rng.uniform(0.12, 0.25)
        for i in range(n):
            if kind == "fan":
                a = base + (i - n / 2) * spread
                px = cx + math.sin(a) * height * 0.4
                py = cy - math.cos(a) * height * 0.4 + height * 0.3
            else:
                a = base + rng.normal(0, 0.05)
                px = cx + (i - n / 2) * height * ASPECT * rng.uniform(0.3, 0.5)
                py = cy + rng.normal(0, 3)
            put(names[i % len(names)], px, py, height, a, 0.03)
        if rng.random() < 0.5:
            occluders.append(_finger(scene, rng, placed[0].quad))

    scene = _photometry(scene, rng)
    return scene, labels_for(placed, occluders, (h, w))


def pile_scene(rng: np.random.Generator, bank: FaceBank, top: str, design: str | None = None,
               below: Sequence[str] = CARD_NAMES) -> tuple[np.ndarray, tuple[float, float, float, float]]:
    """A card laid on a discard pile as the table camera sees it: `top` on one to three other
    cards, at the angles and offsets cards land at, now and then a finger at its edge, under
    the scenes' random light and camera. Returns the picture and `top`'s box (x1, y1, x2, y2)."""
    w, h = SIZES[int(rng.integers(0, len(SIZES)))]
    scene = surface(rng, h, w)
    design = design or DESIGNS[int(rng.integers(0, 2))]
    height = min(w, h) * rng.uniform(0.3, 0.6)
    cx, cy = rng.uniform(0.35, 0.65) * w, rng.uniform(0.35, 0.65) * h
    for _ in range(int(rng.integers(1, 4))):
        name = below[int(rng.integers(0, len(below)))]
        quad = _card_quad(rng, cx + rng.normal(0, height * 0.1), cy + rng.normal(0, height * 0.1), height,
                          rng.uniform(-math.pi, math.pi), 0.03)
        _paste(scene, bank.get(name, design, rng), quad)
    quad = _card_quad(rng, cx + rng.normal(0, height * 0.08), cy + rng.normal(0, height * 0.08), height,
                      _random_angle(rng), 0.03)
    mask = _paste(scene, bank.get(top, design, rng), quad)
    if rng.random() < 0.3:
        _finger(scene, rng, quad)
    ys, xs = np.nonzero(mask)
    box = (float(xs.min()), float(ys.min()), float(xs.max() + 1), float(ys.max() + 1))
    return _photometry(scene, rng), box


def labels_for(placed: list[Placed], occluders: list[np.ndarray], shape: tuple[int, int]) -> list[tuple[int, float, float, float, float]]:
    h, w = shape
    cover = np.zeros(shape, bool)
    for occ in occluders:
        cover |= occ
    labels = []
    for p in reversed(placed):  # top card first: later cards cover earlier ones
        full = p.mask
        total = int(full.sum())
        visible = full & ~cover
        cover |= full
        if total < 30:
            continue
        frac = visible.sum() / total
        nameable = frac >= 0.5
        if not nameable:
            for corner in _corner_regions(p.quad):
                cm = _poly_mask(shape, corner) & full
                if cm.sum() > 10 and (cm & visible).sum() / cm.sum() > 0.9:
                    nameable = True
                    break
        if not nameable:
            continue
        ys, xs = np.nonzero(visible)
        x1, x2, y1, y2 = xs.min(), xs.max() + 1, ys.min(), ys.max() + 1
        if (x2 - x1) < 6 or (y2 - y1) < 6:
            continue
        labels.append((CLASS_INDEX[p.name], (x1 + x2) / 2 / w, (y1 + y2) / 2 / h, (x2 - x1) / w, (y2 - y1) / h))
    return labels


def tone_percentiles(count: int = 300, seed: int = 3, q: Sequence[float] = (5, 50)) -> list[float]:
    """The `q` percentiles of the training scenes' tone (`photometric.tone`) over
    `count` scenes: where photometric.FINDER_DARK and FINDER_TONE come from."""
    bank = FaceBank(seed=seed)
    rng = np.random.default_rng(seed)
    tones = [tone(make_scene(rng, bank)[0]) for _ in range(count)]
    return [float(v) for v in np.percentile(tones, q)]


def write_dataset(root: Path, n_train: int, n_val: int, seed: int = 0,
                  progress: Callable[[int, int], None] | None = None) -> Path:
    """Write a YOLO dataset (images/, labels/, data.yaml) and return the yaml's path."""
    root = Path(root)
    bank = FaceBank(seed=seed)
    total = n_train + n_val
    done = 0
    for split, count, offset in (("train", n_train, 0), ("val", n_val, 10_000_000)):
        (root / "images" / split).mkdir(parents=True, exist_ok=True)
        (root / "labels" / split).mkdir(parents=True, exist_ok=True)
        for i in range(count):
            rng = np.random.default_rng(seed * 1_000_003 + offset + i)
            img, labels = make_scene(rng, bank)
            stem = f"{split}_{i:06d}"
            cv2.imwrite(str(root / "images" / split / f"{stem}.jpg"), img, [cv2.IMWRITE_JPEG_QUALITY, 92])
            with open(root / "labels" / split / f"{stem}.txt", "w") as f:
                for c, x, y, bw, bh in labels:
                    f.write(f"{c} {x:.6f} {y:.6f} {bw:.6f} {bh:.6f}\n")
            done += 1
            if progress:
                progress(done, total)
    yaml_path = root / "data.yaml"
    names = "\n".join(f"  {i}: {n}" for i, n in enumerate(CARD_NAMES))
    yaml_path.write_text(f"path: {root.resolve()}\ntrain: images/train\nval: images/val\nnames:\n{names}\n")
    return yaml_path

