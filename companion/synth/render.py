"""Draw UNO card faces, in the two common printed designs, from the card vocabulary.

`render_card(name, design, height)` returns a BGRA image (transparent outside the rounded
corners). The drawing follows the real cards' layout, measured on photos: a 56 x 87 mm card,
a white border about 4.5% of the width, a coloured body (black for wilds), and
- classic: a white oval tilted about 30 degrees, the glyph in the card colour with a black
  outline and drop shadow, white corner indices with a black outline;
- modern (2018+): a white circle with fine radial lines, a heavier dark glyph shadow, plain
  white corner indices.
Randomness (`rng`) only perturbs shades and strokes a little, for training data; with no
`rng` the drawing is the same every time.
"""
from __future__ import annotations

import math
import random
from functools import lru_cache
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

from companion.referee.cards import THEMED_NAMES, parse_card

DESIGNS: tuple[str, ...] = ("classic", "modern")
# Share of classic number and action faces drawn in training as the ringed printing
# (`render_card`): set by reasoning, like the other printing choices' shares (the bent
# reverse, the plain 1), so the printing the renderer drew before stays the most common; not tuned.
RINGED_SHARE = 0.3
ASPECT = 56 / 87  # width / height of a real card
FONT_DIR = Path(__file__).resolve().parent / "fonts"

# Printed colours (RGB), measured roughly from photos of both designs.
CARD_RGB: dict[str, tuple[int, int, int]] = {
    "red": (214, 36, 40),
    "yellow": (250, 212, 0),
    "green": (40, 160, 72),
    "blue": (0, 112, 190),
}
BLACK = (20, 20, 20)
WHITE = (250, 250, 248)
# UNO Flip's dark side (rules.md): pink, teal, orange, purple, on black-bordered faces.
DARK_RGB: dict[str, tuple[int, int, int]] = {
    "pink": (226, 60, 150),
    "teal": (0, 150, 150),
    "orange": (240, 120, 20),
    "purple": (110, 50, 160),
}

_SYMBOL_TEXT = {"draw_two": "+2", "wild_draw_four": "+4"}


# Bold italic faces for the glyphs. The first is the default drawing; training draws with
# all of them, since no free font matches the printed digits (the 2018+ digits are heavier
# than any of these; the printed 1 has no base in any font here, see `_one_glyph`).
FONTS: tuple[str, ...] = ("DejaVuSans-BoldOblique.ttf", "LiberationSans-BoldItalic.ttf",
                          "DejaVuSansCondensed-BoldOblique.ttf")
UPRIGHT_FONT = "DejaVuSans-Bold.ttf"  # the ringed classic printing's digits are upright


@lru_cache(maxsize=64)
def _font(size: int, face: str = FONTS[0]) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(str(FONT_DIR / face), size)


def _jitter(rgb: tuple[int, int, int], rng: random.Random | None, amount: int = 14) -> tuple[int, int, int]:
    if rng is None:
        return rgb
    return tuple(int(min(255, max(0, c + rng.randint(-amount, amount)))) for c in rgb)  # type: ignore[return-value]


def _darker(rgb: tuple[int, int, int], f: float = 0.55) -> tuple[int, int, int]:
    return tuple(int(c * f) for c in rgb)  # type: ignore[return-value]


def _text_centered(
    draw: ImageDraw.ImageDraw,
    center: tuple[float, float],
    text: str,
    size: int,
    fill: tuple[int, int, int],
    outline: tuple[int, int, int] | None,
    stroke: int,
    shadow: tuple[int, int, int] | None = None,
    shadow_offset: float = 0.0,
    underline: bool = False,
    face: str = FONTS[0],
    weight: int = 0,
) -> None:
    """`weight` thickens the glyph by a stroke of its own colour (heavier printed digits)."""
    font = _font(size, face)
    stroke = stroke + weight
    x0, y0, x1, y1 = draw.textbbox((0, 0), text, font=font, stroke_width=stroke)
    x = center[0] - (x0 + x1) / 2
    y = center[1] - (y0 + y1) / 2
    if shadow is not None and shadow_offset:
        draw.text((x - shadow_offset, y + shadow_offset), text, font=font, fill=shadow,
                  stroke_width=stroke, stroke_fill=shadow)
    draw.text((x, y), text, font=font, fill=fill, stroke_width=stroke, stroke_fill=outline or fill)
    if outline and weight:  # the outline stays thin: refill the thickened inside
        draw.text((x, y), text, font=font, fill=fill, stroke_width=weight, stroke_fill=fill)
    if underline:
        # 6 and 9 are underlined so they can be told apart upside down.
        uy = y + y1 + size * 0.02
        w = (x1 - x0) * 0.62
        cx = center[0] - size * 0.04
        box = [cx - w / 2, uy, cx + w / 2, uy + max(2, size * 0.09)]
        draw.rectangle(box, fill=fill, outline=outline or fill, width=max(1, stroke // 2 or 1))


def _placed(pts: list[tuple[float, float]], c: tuple[float, float], angle: float = 0.0,
            scale: float = 1.0) -> list[tuple[float, float]]:
    """Points drawn about the origin, scaled, turned by `angle` and moved to centre c."""
    ca, sa = math.cos(angle), math.sin(angle)
    return [(c[0] + (x * ca - y * sa) * scale, c[1] + (x * sa + y * ca) * scale) for x, y in pts]


def _one_glyph(draw: ImageDraw.ImageDraw, c: tuple[float, float], size: int, fill, outline, stroke: int,
               shadow=None, shadow_offset: float = 0.0, lean: float = 0.2) -> None:
    """The printed 1: a stem leaning right by `lean` with a long flag and no base (every
    font here gives the 1 a base, and real classic 1s were read as 7s)."""
    h = size * 0.74  # a digit's height in a font of this size
    shape = [(0.2, -0.5), (0.2, 0.5), (-0.09, 0.5), (-0.09, -0.15), (-0.36, -0.04), (-0.36, -0.29), (-0.03, -0.5)]
    pts = [(c[0] + (x - y * lean) * h, c[1] + y * h) for x, y in shape]  # italic: the top leans right
    if shadow is not None and shadow_offset:
        draw.polygon([(x - shadow_offset, y + shadow_offset) for x, y in pts], fill=shadow)
    if outline:
        draw.line([*pts, pts[0], pts[1]], fill=outline, width=max(2, stroke * 2), joint="curve")
    draw.polygon(pts, fill=fill)


def _skip_glyph(draw: ImageDraw.ImageDraw, c: tuple[float, float], r: float, fill, outline, stroke: int) -> None:
    box = [c[0] - r, c[1] - r, c[0] + r, c[1] + r]
    width = max(2, int(r * 0.32))
    if outline:
        draw.ellipse(box, outline=outline, width=width + 2 * stroke)
    draw.ellipse([box[0] + stroke, box[1] + stroke, box[2] - stroke, box[3] - stroke], outline=fill, width=width)
    a = math.radians(45)
    dx, dy = math.cos(a) * r * 0.78, math.sin(a) * r * 0.78
    line = [(c[0] - dx, c[1] + dy), (c[0] + dx, c[1] - dy)]
    if outline:
        draw.line(line, fill=outline, width=width + 2 * stroke)
    draw.line(line, fill=fill, width=width)


def _arrow(draw: ImageDraw.ImageDraw, start, end, width: float, fill, outline, stroke: int) -> None:
    sx, sy = start
    ex, ey = end
    ang = math.atan2(ey - sy, ex - sx)
    head = width * 2.0
    bx, by = ex - math.cos(ang) * head, ey - math.sin(ang) * head
    nx, ny = -math.sin(ang), math.cos(ang)
    shaft = [
        (sx + nx * width / 2, sy + ny * width / 2), (bx + nx * width / 2, by + ny * width / 2),
        (bx + nx * width * 1.3, by + ny * width * 1.3), (ex, ey),
        (bx - nx * width * 1.3, by - ny * width * 1.3), (bx - nx * width / 2, by - ny * width / 2),
        (sx - nx * width / 2, sy - ny * width / 2),
    ]
    if outline:  # a ring around the arrow (PIL draws a polygon's own outline inwards)
        draw.line([*shaft, shaft[0], shaft[1]], fill=outline, width=max(2, stroke * 3), joint="curve")
    draw.polygon(shaft, fill=fill)


def _bent_arrow(draw: ImageDraw.ImageDraw, pts: list[tuple[float, float]], width: float, fill, outline,
               stroke: int) -> None:
    """A thick arrow along a polyline, its head at the last point."""
    (px, py), (ex, ey) = pts[-2], pts[-1]
    ang = math.atan2(ey - py, ex - px)
    head = width * 2.0
    bx, by = ex - math.cos(ang) * head, ey - math.sin(ang) * head
    nx, ny = -math.sin(ang), math.cos(ang)
    tri = [(bx + nx * width * 1.4, by + ny * width * 1.4), (ex, ey), (bx - nx * width * 1.4, by - ny * width * 1.4)]
    body = [*pts[:-1], (bx, by)]
    if outline:
        o = max(2, stroke * 3)
        draw.line(body, fill=outline, width=int(width + o), joint="curve")
        draw.polygon(tri, fill=outline, outline=outline, width=o // 2 + 1)
    draw.line(body, fill=fill, width=int(width), joint="curve")
    draw.polygon(tri, fill=fill)


def _reverse_glyph(draw, c, r, fill, outline, stroke, bent: bool = False, angle: float = 0.0) -> None:
    if bent:
        # The reverse as printed (both designs): a leaning S with an arrowhead at each end,
        # drawn as two arrows: the S's top half heading up-right, and the same turned half a
        # turn (traced from set-a's classic reverses).
        arrow = [(0.14, 0.12), (-0.15, -0.03), (-0.37, -0.17), (-0.37, -0.42), (-0.15, -0.54), (0.6, -0.92)]
        for turn in (0.0, math.pi):
            _bent_arrow(draw, _placed(arrow, c, angle + turn + 0.25, r * 0.95), r * 0.27, fill, outline, stroke)
        return
    # Two parallel diagonal arrows pointing opposite ways.
    w = r * 0.3
    d = (0.6 * r * 0.85, -0.8 * r * 0.85)
    p = (0.8 * r * 0.3, 0.6 * r * 0.3)
    _arrow(draw, (c[0] - d[0] - p[0], c[1] - d[1] - p[1]), (c[0] + d[0] - p[0], c[1] + d[1] - p[1]), w, fill, outline, stroke)
    _arrow(draw, (c[0] + d[0] + p[0], c[1] + d[1] + p[1]), (c[0] - d[0] + p[0], c[1] - d[1] + p[1]), w, fill, outline, stroke)


def _mini_card(draw, center, w, h, fill, outline, stroke, angle=0.0, skew: float = 0.0) -> None:
    s = skew * h / 2  # a slanted (italic) card: top edge shifted right
    pts = [(-w / 2 + s, -h / 2), (w / 2 + s, -h / 2), (w / 2 - s, h / 2), (-w / 2 - s, h / 2)]
    poly = _placed(pts, center, angle)
    draw.polygon(poly, fill=fill, outline=outline or fill, width=max(1, stroke))


# The deeper end of each small card's shading on the 2018+ wild draw four (from photos).
_WD4_SHADE: dict[str, tuple[int, int, int]] = {
    "green": (10, 95, 60),
    "blue": (20, 175, 205),
    "red": (120, 15, 45),
    "yellow": (240, 120, 25),
}


def _shaded_mini_card(img: Image.Image, center, w: float, h: float, ends, skew: float) -> None:
    """A small card filled with a diagonal shade from ends[0] (top left) to ends[1]."""
    mask = Image.new("L", img.size, 0)
    _mini_card(ImageDraw.Draw(mask), center, w, h, 255, None, 0, 0.0, skew)
    x0, y0 = center[0] - w / 2, center[1] - h / 2
    yy, xx = np.mgrid[0:img.size[1], 0:img.size[0]].astype(np.float32)
    t = np.clip(((xx - x0) / w + (yy - y0) / h) / 2, 0, 1)[..., None]
    shade = np.asarray(ends[0], np.float32) * (1 - t) + np.asarray(ends[1], np.float32) * t
    img.paste(Image.fromarray(shade.astype(np.uint8)), (0, 0), mask)


def _draw_two_glyph(draw, c, r, fill, outline, stroke, upright: bool = False, angle: float = 0.0) -> None:
    if upright:
        # As printed: two tall slanted cards, the back one up and to the right.
        w, h = r * 0.62, r * 1.2
        for dx, dy in ((0.2, -0.26), (-0.2, 0.26)):
            _mini_card(draw, (c[0] + r * dx, c[1] + r * dy), w, h, fill, outline, stroke + 1, angle, 0.25)
        return
    w, h = r * 0.7, r * 1.05
    _mini_card(draw, (c[0] - r * 0.22, c[1] + r * 0.2), w, h, fill, outline, stroke + 1, 0.5)
    _mini_card(draw, (c[0] + r * 0.22, c[1] - r * 0.2), w, h, fill, outline, stroke + 1, 0.5)


def _wild_face(img: Image.Image, c, rx: float, ry: float, angle: float, rng, modern: bool) -> None:
    """Paint the wild's four-colour oval (classic) or disc (modern) onto img."""
    size = img.size
    mask = Image.new("L", size, 0)
    md = ImageDraw.Draw(mask)
    md.ellipse([c[0] - rx, c[1] - ry, c[0] + rx, c[1] + ry], fill=255)
    if angle:
        mask = mask.rotate(angle, center=c, resample=Image.BICUBIC)
    quarters = Image.new("RGB", size, BLACK)
    qd = ImageDraw.Draw(quarters)
    cols = [_jitter(CARD_RGB[k], rng) for k in ("red", "blue", "yellow", "green")]
    x, y = c
    big = max(size) * 2
    qd.polygon([(x, y), (x - big, y - big * 0.2), (x - big, y - big), (x + big * 0.2, y - big)], fill=cols[0])
    qd.polygon([(x, y), (x + big * 0.2, y - big), (x + big, y - big), (x + big, y + big * 0.2)], fill=cols[1])
    qd.polygon([(x, y), (x - big, y - big * 0.2), (x - big, y + big), (x - big * 0.2, y + big)], fill=cols[2])
    qd.polygon([(x, y), (x - big * 0.2, y + big), (x + big, y + big), (x + big, y + big * 0.2)], fill=cols[3])
    img.paste(quarters, (0, 0), mask)


def _corner_text(name: str) -> str:
    card = parse_card(name)
    if card.number is not None:
        return card.symbol
    return _SYMBOL_TEXT.get(card.symbol, _SYMBOL_TEXT.get(name, ""))


def render_card(
    name: str,
    design: str = "classic",
    height: int = 360,
    rng: random.Random | None = None,
) -> np.ndarray:
    """Draw one card face; returns a BGRA array of shape (height, round(height*56/87), 4)."""
    if design not in DESIGNS:
        raise ValueError(f"unknown design {design!r}: use one of {', '.join(DESIGNS)}")
    card = parse_card(name)
    if name in THEMED_NAMES:  # drawn apart: the classic faces (training data) stay as they are
        return _render_themed(name, height, rng)
    scale = 2  # draw at twice the size, then shrink: smooth edges
    H = height * scale
    W = int(round(height * ASPECT)) * scale
    modern = design == "modern"
    img = Image.new("RGB", (W, H), _jitter(WHITE, rng, 6))
    draw = ImageDraw.Draw(img)
    border = W * (0.05 if modern else 0.045) * (1 + (rng.uniform(-0.2, 0.2) if rng else 0))
    radius = W * 0.07
    body = _jitter(CARD_RGB[card.color], rng) if card.color else _jitter(BLACK, rng, 8)
    draw.rounded_rectangle([border, border, W - border, H - border], radius=radius * 0.6, fill=body)
    c = (W / 2, H / 2)
    stroke = max(1, int(W * 0.012))
    glyph_fill = body if card.color else WHITE
    outline = BLACK if not modern else None
    # A second classic printing (the licensed composites' deck): the oval is the card's own
    # colour inside a thin white ring, and the glyphs are white, upright, heavy, outlined in
    # black with a black shadow.
    ringed = not modern and card.color is not None and rng is not None and rng.random() < RINGED_SHARE
    if ringed:
        glyph_fill = WHITE
    shadow = _darker(body, 0.35) if card.color else (60, 60, 60)

    # The white centre: tilted oval (classic) or disc with radial lines (modern).
    if not card.is_wild or name in ("wild_customizable", "wild", "wild_draw_four") and modern:
        if modern:
            r = W * 0.45  # the 2018+ disc nearly spans the card (measured on set-b webcam frames)
            draw.ellipse([c[0] - r, c[1] - r, c[0] + r, c[1] + r], fill=WHITE)
            n_lines = 72
            line_col = (205, 205, 205)
            for i in range(n_lines):
                a = 2 * math.pi * i / n_lines
                draw.line([(c[0] + math.cos(a) * r * 0.55, c[1] + math.sin(a) * r * 0.55),
                           (c[0] + math.cos(a) * r * 0.95, c[1] + math.sin(a) * r * 0.95)],
                          fill=line_col, width=max(1, scale))
        else:
            rx, ry = W * 0.40, H * 0.40
            oval = Image.new("L", (W, H), 0)
            ImageDraw.Draw(oval).ellipse([c[0] - rx * 0.95, c[1] - ry, c[0] + rx * 0.95, c[1] + ry], fill=255)
            oval = oval.rotate(-32 if rng is None else -32 + rng.uniform(-3, 3), center=c, resample=Image.BICUBIC)
            img.paste(Image.new("RGB", (W, H), WHITE), (0, 0), oval)
            if ringed:
                inner = oval.resize((round(W * 0.94), round(H * 0.955)), Image.BICUBIC)
                ink = Image.new("RGB", inner.size, _jitter(body, rng, 10))
                img.paste(ink, (round(W * 0.03), round(H * 0.0225)), inner)
    draw = ImageDraw.Draw(img)

    # Drawing choices that differ between printings (and between our guesses of them): one
    # fixed pick without rng, a random one for training.
    if rng is None:
        face, weight = (FONTS[0] if modern else FONTS[1]), 0
        bent, upright, tilt = True, True, 0.0
    else:
        face, weight = rng.choice(FONTS), (rng.choice((0, 0, 1, 2, 3)) * scale if modern else 0)
        if ringed:
            face, weight = UPRIGHT_FONT, rng.choice((1, 2, 3)) * scale
        bent, upright = rng.random() < (0.25 if ringed else 0.75), rng.random() < 0.8
        tilt = rng.uniform(-0.25, 0.25)
    big = int(H * (0.36 if modern else 0.34) * (1 if rng is None else rng.uniform(0.95, 1.12)))
    shadow_off = W * (0.035 if modern else 0.03 if ringed else 0.02)
    # Action glyphs fill most of the oval or disc (the real classic reverse arrows span about
    # two thirds of the card's width; smaller ones were read as a 4 on real photos).
    r = W * 0.34
    # Printed 1s (big and in the corners) have no base; fonts give it one, and a corner 1
    # with a base was learned as a 1 where the real corner 1 read as a 7.
    plain_one = card.symbol == "1" and (rng is None or rng.random() < 0.7)
    one_lean = 0.05 if ringed else 0.2  # the ringed printing's 1 stands nearly upright
    if plain_one:
        _one_glyph(draw, c, big, glyph_fill, outline, stroke, shadow=shadow if modern else BLACK,
                   shadow_offset=shadow_off, lean=one_lean)
    elif card.number is not None:
        _text_centered(draw, c, card.symbol, big, glyph_fill, outline, stroke * 2 if not modern else 0,
                       shadow=shadow if modern else BLACK, shadow_offset=shadow_off,
                       underline=card.symbol in ("6", "9"), face=face, weight=weight)
    elif card.symbol == "skip":
        if modern:
            _skip_glyph(draw, (c[0] - shadow_off, c[1] + shadow_off), r, shadow, None, 0)
        _skip_glyph(draw, c, r, glyph_fill, outline, stroke)
    elif card.symbol == "reverse":
        if modern:
            _reverse_glyph(draw, (c[0] - shadow_off, c[1] + shadow_off), r, shadow, None, 0, bent, tilt)
        _reverse_glyph(draw, c, r, glyph_fill, outline, stroke, bent, tilt)
    elif card.symbol == "draw_two":
        if modern:
            _draw_two_glyph(draw, (c[0] - shadow_off, c[1] + shadow_off), r, shadow, None, 0, upright, tilt)
        _draw_two_glyph(draw, c, r, glyph_fill, outline or BLACK, stroke, upright, tilt)
    elif name == "wild":
        if modern:  # a four-colour disc in a white ring, no lettering
            _wild_face(img, c, W * 0.37, W * 0.37, 0, rng, modern)
        else:
            _wild_face(img, c, W * 0.36, H * 0.36, -32, rng, modern)
    elif name == "wild_draw_four" and modern:
        # 2018+: four upright cards on the radial disc, in two staggered pairs rising to the
        # right (measured on set-b webcam frames): green low left ... yellow high right.
        # Each small card is shaded from its colour to a deeper one (blue to cyan, yellow to
        # orange): drawn flat, webcam frames of it were read as a draw two.
        shaded = rng is None or rng.random() < 0.85
        for k, dx, dy in (("green", -0.23, 0.13), ("blue", -0.04, -0.15), ("red", 0.07, 0.03), ("yellow", 0.25, -0.22)):
            if rng is not None:
                dx, dy = dx + rng.uniform(-0.02, 0.02), dy + rng.uniform(-0.02, 0.02)
            centre = (c[0] + dx * W, c[1] + dy * W)
            _mini_card(draw, centre, W * 0.23 + stroke * 4, W * 0.35 + stroke * 4, WHITE, None, 0, 0.0, 0.12)
            ends = (_jitter(CARD_RGB[k], rng), _jitter(_WD4_SHADE[k], rng)) if shaded else (_jitter(CARD_RGB[k], rng),) * 2
            _shaded_mini_card(img, centre, W * 0.23, W * 0.35, ends, 0.12)
    elif name == "wild_draw_four":
        _wild_face(img, c, W * 0.36, H * 0.36, -32, rng, modern)
        draw = ImageDraw.Draw(img)
        cols = ("blue", "green", "red", "yellow")
        for i, k in enumerate(cols):
            dx = (i - 1.5) * W * 0.11
            dy = (1.5 - i) * H * 0.035
            _mini_card(draw, (c[0] + dx, c[1] + dy), W * 0.2, H * 0.2, _jitter(CARD_RGB[k], rng), WHITE, stroke, 0.35)
    elif name == "wild_shuffle_hands":
        ring = W * 0.3
        for i, k in enumerate(("red", "yellow", "green", "blue")):
            a0 = i * 90 + 10
            draw.arc([c[0] - ring, c[1] - ring, c[0] + ring, c[1] + ring], a0, a0 + 70,
                     fill=_jitter(CARD_RGB[k], rng), width=int(W * 0.09))
        _text_centered(draw, c, "?", int(H * 0.16), WHITE, None, 0)
    elif name == "wild_swap_hands":
        _arrow(draw, (c[0] - W * 0.3, c[1] - H * 0.06), (c[0] + W * 0.3, c[1] - H * 0.06), W * 0.1,
               _jitter(CARD_RGB["red"], rng), WHITE, stroke)
        _arrow(draw, (c[0] + W * 0.3, c[1] + H * 0.08), (c[0] - W * 0.3, c[1] + H * 0.08), W * 0.1,
               _jitter(CARD_RGB["blue"], rng), WHITE, stroke)
    elif name == "wild_customizable":
        draw.rectangle([c[0] - W * 0.28, c[1] - H * 0.01, c[0] + W * 0.28, c[1] + H * 0.015], fill=(150, 150, 150))
        draw.rectangle([c[0] - W * 0.28, c[1] + H * 0.06, c[0] + W * 0.2, c[1] + H * 0.075], fill=(150, 150, 150))
        _text_centered(draw, (c[0], c[1] - H * 0.12), "UNO", int(H * 0.09), BLACK, None, 0)

    # Corner indices: top-left, and bottom-right upside down.
    corner = _corner_text(name)
    small = int(H * 0.1)
    corner_centre = (border + W * 0.11, border + H * 0.075)
    layer = Image.new("RGBA", (W, H), (0, 0, 0, 0))
    ld = ImageDraw.Draw(layer)
    # White index glyphs: outlined in black on classic cards, shadowed on 2018+ ones.
    index_outline = BLACK if not modern else None
    index_stroke = max(1, stroke) if not modern else 0
    index_shadow = dict(shadow=(40, 40, 40) if modern else None, shadow_offset=W * 0.008)
    if plain_one:
        _one_glyph(ld, corner_centre, small, WHITE, index_outline, index_stroke, **index_shadow,
                   lean=one_lean)
    elif corner:
        _text_centered(ld, corner_centre, corner, small, WHITE, index_outline, index_stroke, **index_shadow,
                       underline=corner in ("6", "9"), face=face)
    elif card.symbol == "skip":
        _skip_glyph(ld, corner_centre, W * 0.065, WHITE, index_outline, max(1, stroke // 2))
    elif card.symbol == "reverse":
        _reverse_glyph(ld, corner_centre, W * 0.07, WHITE, index_outline, max(1, stroke // 2))
    elif card.is_wild:
        _wild_face(layer, corner_centre, W * 0.06, H * 0.045, -32, rng, modern)
    img.paste(layer, (0, 0), layer)
    img.paste(layer.rotate(180), (0, 0), layer.rotate(180))

    if rng is not None and rng.random() < 0.3:
        img = img.filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 1.2)))
    rgb = np.asarray(img.resize((W // scale, H // scale), Image.LANCZOS))
    alpha = np.zeros(rgb.shape[:2], np.uint8)
    h, w = alpha.shape
    rad = int(round(w * 0.07))
    alpha_img = Image.new("L", (w, h), 0)
    ImageDraw.Draw(alpha_img).rounded_rectangle([0, 0, w - 1, h - 1], radius=rad, fill=255)
    alpha = np.asarray(alpha_img)
    bgra = np.dstack([rgb[:, :, ::-1], alpha]).astype(np.uint8)
    return np.ascontiguousarray(bgra)


def render_back(height: int = 360, rng: random.Random | None = None) -> np.ndarray:
    """A card's back (BGRA, the faces' size): black inside a white rim, a tilted red oval and
    the yellow "UNO" word across it, outlined dark, as the classic and 2018+ decks print it
    (each drawn a little differently: inks, oval, word). For the readers: a card lying face
    down is no card to name (its black and colour read as a wild otherwise)."""
    rng = rng or random.Random(0)
    scale = 2
    H = height * scale
    W = int(round(height * ASPECT)) * scale
    img = Image.new("RGB", (W, H), _jitter(WHITE, rng, 6))
    draw = ImageDraw.Draw(img)
    border = W * rng.uniform(0.04, 0.06)
    draw.rounded_rectangle([border, border, W - border, H - border], radius=W * 0.04, fill=_jitter(BLACK, rng, 8))
    layer = Image.new("RGBA", (W, H), (0, 0, 0, 0))
    ld = ImageDraw.Draw(layer)
    rx, ry = W * rng.uniform(0.28, 0.33), H * rng.uniform(0.32, 0.37)
    ld.ellipse([W / 2 - rx, H / 2 - ry, W / 2 + rx, H / 2 + ry], fill=_jitter((215, 30, 35), rng, 18))
    word = Image.new("RGBA", (W, H), (0, 0, 0, 0))
    _text_centered(ImageDraw.Draw(word), (W / 2, H / 2), "UNO", int(W * rng.uniform(0.26, 0.33)),
                   _jitter((250, 215, 30), rng, 16), (25, 25, 25), max(2, int(W * 0.012)),
                   shadow=(25, 25, 25), shadow_offset=W * 0.012, face=rng.choice(FONTS))
    layer.alpha_composite(word.rotate(rng.uniform(-8, 8), resample=Image.BICUBIC, center=(W / 2, H / 2)))
    layer = layer.rotate(rng.uniform(20, 40), resample=Image.BICUBIC, center=(W / 2, H / 2))
    img.paste(layer, (0, 0), layer)
    rgb = np.asarray(img.resize((W // scale, H // scale), Image.LANCZOS))
    h, w = rgb.shape[:2]
    alpha_img = Image.new("L", (w, h), 0)
    ImageDraw.Draw(alpha_img).rounded_rectangle([0, 0, w - 1, h - 1], radius=int(round(w * 0.07)), fill=255)
    return np.ascontiguousarray(np.dstack([rgb[:, :, ::-1], np.asarray(alpha_img)]).astype(np.uint8))


# Big glyph text of the themed cards that have no drawn glyph.
_THEMED_TEXT = {"draw_one": "+1", "draw_five": "+5", "discard_two": "-2",
                "wild_draw_two": "+2", "wild_draw_colour": "+?"}


def _flip_glyph(draw: ImageDraw.ImageDraw, c, r: float, fill, outline, stroke: int) -> None:
    """UNO Flip's flip: two arrows, one up, one down."""
    _arrow(draw, (c[0] - r * 0.35, c[1] + r * 0.7), (c[0] - r * 0.35, c[1] - r * 0.7), r * 0.28,
           fill, outline, stroke)
    _arrow(draw, (c[0] + r * 0.35, c[1] - r * 0.7), (c[0] + r * 0.35, c[1] + r * 0.7), r * 0.28,
           fill, outline, stroke)


def _render_themed(name: str, height: int, rng: random.Random | None) -> np.ndarray:
    """A themed face (rules.md, "Themed decks and cards"): UNO Flip's light faces like the
    classic print (white border, white oval); its dark faces black-bordered, a black oval on
    pink, teal, orange or purple; the other decks' specials on a black body. Drawn for the
    recognizer's future training and the phone's card art; no real photos of them are here."""
    card = parse_card(name)
    scale = 2
    H = height * scale
    W = int(round(height * ASPECT)) * scale
    dark = card.side == "dark"
    img = Image.new("RGB", (W, H), _jitter(BLACK if dark else WHITE, rng, 6))
    draw = ImageDraw.Draw(img)
    border = W * 0.05
    palette = DARK_RGB if dark else CARD_RGB
    body = _jitter(palette[card.color], rng) if card.color else _jitter(BLACK, rng, 8)
    draw.rounded_rectangle([border, border, W - border, H - border], radius=W * 0.04, fill=body)
    c = (W / 2, H / 2)
    stroke = max(1, int(W * 0.012))
    centre = BLACK if dark else WHITE
    if card.color:
        rx, ry = W * 0.40, H * 0.40
        oval = Image.new("L", (W, H), 0)
        ImageDraw.Draw(oval).ellipse([c[0] - rx * 0.95, c[1] - ry, c[0] + rx * 0.95, c[1] + ry], fill=255)
        oval = oval.rotate(-32, center=c, resample=Image.BICUBIC)
        img.paste(Image.new("RGB", (W, H), centre), (0, 0), oval)
        draw = ImageDraw.Draw(img)
    glyph = body if card.color else WHITE
    outline = WHITE if dark else BLACK
    r = W * 0.34
    big = int(H * 0.34)
    sym = card.symbol
    if card.number is not None or sym in _THEMED_TEXT:
        text = card.symbol if card.number is not None else _THEMED_TEXT[sym]
        if sym in ("wild_draw_two", "wild_draw_colour", "dark_wild"):
            _dark_wild_face(img, c, W * 0.34, H * 0.34, dark) if dark else \
                _wild_face(img, c, W * 0.34, H * 0.34, -32, rng, False)
            draw = ImageDraw.Draw(img)
            big = int(H * 0.2)
        _text_centered(draw, c, text, big, glyph, outline, stroke * 2, shadow=BLACK,
                       shadow_offset=W * 0.02, underline=text in ("6", "9"))
    elif sym == "skip":
        _skip_glyph(draw, c, r, glyph, outline, stroke)
    elif sym == "skip_everyone":  # two skip signs, overlapping
        _skip_glyph(draw, (c[0] - r * 0.3, c[1] - r * 0.3), r * 0.7, glyph, outline, stroke)
        _skip_glyph(draw, (c[0] + r * 0.3, c[1] + r * 0.3), r * 0.7, glyph, outline, stroke)
    elif sym == "reverse":
        _reverse_glyph(draw, c, r, glyph, outline, stroke, True, 0.0)
    elif sym == "flip":
        _flip_glyph(draw, c, r, glyph, outline, stroke)
    elif name == "dark_wild":
        _dark_wild_face(img, c, W * 0.36, H * 0.36, True)
    elif name == "mario_reflect":  # a red and a blue arrow bouncing back
        _arrow(draw, (c[0] - W * 0.3, c[1] - H * 0.12), (c[0] + W * 0.25, c[1] + H * 0.02), W * 0.1,
               _jitter(CARD_RGB["red"], rng), WHITE, stroke)
        _arrow(draw, (c[0] + W * 0.25, c[1] + H * 0.06), (c[0] - W * 0.3, c[1] + H * 0.18), W * 0.1,
               _jitter(CARD_RGB["blue"], rng), WHITE, stroke)
    elif name == "dementor":  # a grey hooded shape
        draw.ellipse([c[0] - W * 0.22, c[1] - H * 0.25, c[0] + W * 0.22, c[1] + H * 0.05], fill=(120, 120, 125))
        draw.polygon([(c[0] - W * 0.3, c[1] + H * 0.3), (c[0], c[1] - H * 0.1), (c[0] + W * 0.3, c[1] + H * 0.3)],
                     fill=(90, 90, 95))
        draw.ellipse([c[0] - W * 0.1, c[1] - H * 0.16, c[0] + W * 0.1, c[1] - H * 0.02], fill=BLACK)
    corner = card.symbol if card.number is not None else _THEMED_TEXT.get(sym, "")
    if corner:
        _text_centered(draw, (border + W * 0.11, border + H * 0.075), corner, int(H * 0.1), WHITE,
                       BLACK, stroke)
    if rng is not None and rng.random() < 0.3:
        img = img.filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 1.2)))
    rgb = np.asarray(img.resize((W // scale, H // scale), Image.LANCZOS))
    h, w = rgb.shape[:2]
    alpha_img = Image.new("L", (w, h), 0)
    ImageDraw.Draw(alpha_img).rounded_rectangle([0, 0, w - 1, h - 1], radius=int(round(w * 0.07)), fill=255)
    return np.ascontiguousarray(np.dstack([rgb[:, :, ::-1], np.asarray(alpha_img)]).astype(np.uint8))


def _dark_wild_face(img: Image.Image, c, rx: float, ry: float, dark: bool) -> None:
    """The dark wild's oval in the four dark colours."""
    size = img.size
    quarters = Image.new("RGB", size, BLACK)
    qd = ImageDraw.Draw(quarters)
    cols = [DARK_RGB[k] for k in ("pink", "teal", "orange", "purple")]
    for i, col in enumerate(cols):
        qd.pieslice([c[0] - rx, c[1] - ry, c[0] + rx, c[1] + ry], i * 90, i * 90 + 90, fill=col)
    mask = Image.new("L", size, 0)
    ImageDraw.Draw(mask).ellipse([c[0] - rx, c[1] - ry, c[0] + rx, c[1] + ry], fill=255)
    img.paste(quarters, (0, 0), mask)


__all__ = ["DESIGNS", "ASPECT", "CARD_RGB", "DARK_RGB", "render_card"]
