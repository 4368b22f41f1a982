"""Table zones in frame coordinates: the discard pile, the draw pile and the reveal area.

Zones are polygons (a rectangle is a 4-point polygon) in the pixel coordinates of the frames
the camera delivers. They are stored as a small JSON object (`Zones.to_dict()`):

    {"frame": [640, 480],
     "discard": [[230, 80], [450, 80], [450, 300], [230, 300]],
     "draw": [...], "reveal": [...]}

`find_zones()` finds the discard pile automatically from a clip (the place where changes
settle most often); the others keep their defaults unless given by hand.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

import numpy as np

from companion.errors import ConfigError, InputFileError
from companion.files import written_whole

Point = tuple[float, float]
ZONE_NAMES: tuple[str, ...] = ("discard", "draw", "reveal")


def _rect(x1: float, y1: float, x2: float, y2: float) -> list[Point]:
    return [(x1, y1), (x2, y1), (x2, y2), (x1, y2)]


@dataclass
class Zones:
    """The three table zones for frames of size `frame` (width, height)."""

    frame: tuple[int, int]
    discard: list[Point]
    draw: list[Point] = field(default_factory=list)
    reveal: list[Point] = field(default_factory=list)

    # -- construction -------------------------------------------------------------------------
    @classmethod
    def default(cls, width: int = 640, height: int = 480) -> "Zones":
        """The layout of the generated table videos, scaled to a frame size.

        Discard pile in the middle, draw pile on its left, reveal strip along the bottom.
        """
        sx, sy = width / 640.0, height / 480.0

        def scaled(x1: float, y1: float, x2: float, y2: float) -> list[Point]:
            return _rect(x1 * sx, y1 * sy, x2 * sx, y2 * sy)

        return cls(
            frame=(int(width), int(height)),
            discard=scaled(235, 70, 445, 290),
            draw=scaled(40, 100, 200, 280),
            reveal=scaled(140, 322, 600, 458),
        )

    @classmethod
    def from_dict(cls, data: object) -> "Zones":
        """Build zones from their JSON object; a bad value raises ConfigError naming the key."""
        if not isinstance(data, dict):
            raise ConfigError("zones: expected a JSON object with 'frame', 'discard', 'draw', 'reveal'")
        unknown = sorted(set(data) - {"frame", *ZONE_NAMES})
        if unknown:
            raise ConfigError(f"zones: unknown key {unknown[0]!r} (keys: frame, discard, draw, reveal)")
        frame = data.get("frame")
        if (
            not isinstance(frame, (list, tuple))
            or len(frame) != 2
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 for v in frame)
        ):
            raise ConfigError("zones: 'frame' must be [width, height] in pixels")
        width, height = int(frame[0]), int(frame[1])
        if "discard" not in data:
            raise ConfigError("zones: 'discard' is required")
        polys = {}
        for name in ZONE_NAMES:
            raw = data.get(name, [])
            polys[name] = _parse_polygon(name, raw, width, height, required=(name == "discard"))
        return cls(frame=(width, height), **polys)

    def to_dict(self) -> dict:
        out: dict = {"frame": [int(self.frame[0]), int(self.frame[1])]}
        for name in ZONE_NAMES:
            out[name] = [[round(float(x), 1), round(float(y), 1)] for x, y in getattr(self, name)]
        return out

    @classmethod
    def load(cls, path: str | Path) -> "Zones":
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise InputFileError(f"cannot read zones file {str(path)!r}: {exc.strerror or exc}") from None
        except UnicodeDecodeError:  # a picture or a video named by mistake
            raise InputFileError(f"zones file {str(path)!r} is not text: a JSON file was expected") from None
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"zones file {str(path)!r}: not JSON (line {exc.lineno}: {exc.msg})") from None
        return cls.from_dict(data)

    def save(self, path: str | Path) -> None:
        path = Path(path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)  # a fresh install has no config folder yet
            with written_whole(path) as fh:
                fh.write(json.dumps(self.to_dict(), indent=1) + "\n")
        except OSError as exc:
            raise InputFileError(f"cannot write zones file {str(path)!r}: {exc.strerror or exc}") from None

    # -- geometry -----------------------------------------------------------------------------
    def scaled_to(self, width: int, height: int) -> "Zones":
        """The same zones for frames of another size (e.g. a camera set to a new resolution)."""
        fx, fy = width / self.frame[0], height / self.frame[1]
        return Zones(
            frame=(int(width), int(height)),
            **{n: [(x * fx, y * fy) for x, y in getattr(self, n)] for n in ZONE_NAMES},
        )

    def polygon(self, name: str) -> list[Point]:
        if name not in ZONE_NAMES:
            raise ConfigError(f"unknown zone {name!r} (zones: {', '.join(ZONE_NAMES)})")
        return list(getattr(self, name))

    def mask(self, name: str, shape: tuple[int, int], dilate: float = 0.0) -> np.ndarray:
        """A uint8 mask (255 inside) of one zone drawn at `shape` = (rows, cols) of a frame.

        The zone is scaled from `self.frame` to that shape; `dilate` grows it by a fraction of
        its own size (to watch the approaches to a pile, not just the pile).
        """
        import cv2

        rows, cols = shape
        mask = np.zeros((rows, cols), np.uint8)
        poly = self.polygon(name)
        if not poly:
            return mask
        pts = np.array(poly, np.float32)
        pts[:, 0] *= cols / self.frame[0]
        pts[:, 1] *= rows / self.frame[1]
        if dilate:
            centre = pts.mean(axis=0)
            pts = centre + (pts - centre) * (1.0 + dilate)
        cv2.fillPoly(mask, [np.round(pts).astype(np.int32)], 255)
        return mask

    def bbox(self, name: str) -> tuple[float, float, float, float]:
        poly = self.polygon(name)
        if not poly:
            return (0.0, 0.0, 0.0, 0.0)
        xs, ys = [p[0] for p in poly], [p[1] for p in poly]
        return (min(xs), min(ys), max(xs), max(ys))

    def overlap(self, a: str, b: str) -> float:
        """The area (frame pixels) two zones' bounding boxes share; 0 when either is unset."""
        if not self.polygon(a) or not self.polygon(b):
            return 0.0
        ax1, ay1, ax2, ay2 = self.bbox(a)
        bx1, by1, bx2, by2 = self.bbox(b)
        return max(0.0, min(ax2, bx2) - max(ax1, bx1)) * max(0.0, min(ay2, by2) - max(ay1, by1))

    def contains(self, name: str, x: float, y: float) -> bool:
        """Whether the point (frame pixels) is inside the zone."""
        import cv2

        poly = self.polygon(name)
        if len(poly) < 3:
            return False
        contour = np.array(poly, np.float32).reshape(-1, 1, 2)
        return cv2.pointPolygonTest(contour, (float(x), float(y)), False) >= 0


def _parse_polygon(name: str, raw: object, width: int, height: int, required: bool) -> list[Point]:
    if raw in (None, []) and not required:
        return []
    if not isinstance(raw, (list, tuple)) or len(raw) < 3:
        raise ConfigError(f"zones: {name!r} must be a list of at least 3 [x, y] points")
    pts: list[Point] = []
    for p in raw:
        if (
            not isinstance(p, (list, tuple))
            or len(p) != 2
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in p)
        ):
            raise ConfigError(f"zones: {name!r} has a point that is not [x, y]: {p!r}")
        x, y = float(p[0]), float(p[1])
        if not (-1 <= x <= width + 1 and -1 <= y <= height + 1):
            raise ConfigError(f"zones: {name!r} point {[x, y]} is outside the {width}x{height} frame")
        pts.append((x, y))
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    if max(xs) - min(xs) < 4 or max(ys) - min(ys) < 4:
        raise ConfigError(f"zones: {name!r} is too small")
    if _crosses_itself(pts):  # a corner dragged past another: a bow tie, whose inside is not the zone meant
        raise ConfigError(f"zones: {name!r} crosses itself: drag its corners back round its edge")
    return pts


def _crosses_itself(pts: list[Point]) -> bool:
    """Whether two edges of the closed polygon that do not share a corner cross."""
    def side(a: Point, b: Point, c: Point) -> float:
        return (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])

    edges = [(pts[i], pts[(i + 1) % len(pts)]) for i in range(len(pts))]
    for i, (a, b) in enumerate(edges):
        for j in range(i + 2, len(edges)):
            if i == 0 and j == len(edges) - 1:
                continue  # the first and last edges share the first corner
            c, d = edges[j]
            if side(a, b, c) * side(a, b, d) < 0 and side(c, d, a) * side(c, d, b) < 0:
                return True
    return False


def find_zones(frames: Iterable[np.ndarray], base: Zones | None = None, card_height: float | None = None) -> Zones:
    """Find the discard pile in a clip: the place where changes most often settle.

    Every time the picture goes still after motion, the difference with the previous still
    picture is added to a heat map; the discard pile is a square around the hottest spot,
    sized to fit a card with room for offsets. Draw pile and reveal area come from `base`
    (default layout scaled to the frame) and can be adjusted by hand in the saved file.
    """
    import cv2

    heat = None
    prev = None
    settled = None
    still = 0
    moved = False
    size = None
    for frame in frames:
        if size is None:
            size = (frame.shape[1], frame.shape[0])
        small = cv2.resize(frame, (160, 120), interpolation=cv2.INTER_AREA)
        gray = cv2.GaussianBlur(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), (5, 5), 0).astype(np.float32)
        if heat is None:
            heat = np.zeros_like(gray)
        if prev is not None:
            motion = float(np.mean(np.abs(gray - prev) > 12))
            if motion > 0.002:
                still, moved = 0, True
            else:
                still += 1
            if still == 2:
                if settled is not None and moved:
                    change = (np.abs(gray - settled) > 20).astype(np.float32)
                    # a hand resting on the table is not a settled card: ignore border-touching blobs
                    n, labels, stats, _ = cv2.connectedComponentsWithStats(change.astype(np.uint8))
                    for i in range(1, n):
                        x, y, w, h, _a = stats[i]
                        if x == 0 or y == 0 or x + w >= 160 or y + h >= 120:
                            change[labels == i] = 0
                    heat += change
                settled, moved = gray, False
        prev = gray
    if size is None:
        raise InputFileError("cannot find zones: the source gave no frames")
    width, height = size
    zones = (base or Zones.default(width, height)).scaled_to(width, height)
    if heat is None or heat.max() <= 0:
        return zones
    heat = cv2.GaussianBlur(heat, (0, 0), 4)
    y, x = np.unravel_index(int(np.argmax(heat)), heat.shape)
    cx, cy = (x + 0.5) * width / 160, (y + 0.5) * height / 120
    half = 0.85 * (card_height or height / 4.0)
    x1, y1 = max(0.0, cx - half), max(0.0, cy - half)
    x2, y2 = min(float(width), cx + half), min(float(height), cy + half)
    zones.discard = _rect(x1, y1, x2, y2)
    return zones
