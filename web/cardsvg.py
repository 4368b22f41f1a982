"""Card faces as small SVG documents, drawn from the card vocabulary (no image files, no fonts).

The phone page loads `/cards/<name>.svg`; each face is a few hundred bytes, so a view stays
light and works with no internet. Every name the referee knows has a face: the classic
vocabulary and the themed cards (UNO Flip's light faces as the classic print, its dark faces
in pink, teal, orange and purple on a black border with a black oval; discard two, reflect,
Dementor, wild draw two, wild draw colour).
"""
from __future__ import annotations

import math
from functools import lru_cache

from companion.referee.cards import DARK_COLORS, parse_card

# Print-like colours; the wild quadrants use the same four (a dark wild: the dark side's four).
FILL: dict[str, str] = {
    "red": "#d7261e",
    "yellow": "#f2b705",
    "green": "#2f9e44",
    "blue": "#1c5fc4",
    # UNO Flip's dark side
    "pink": "#e0398f",
    "teal": "#0f9a9a",
    "orange": "#ef7a12",
    "purple": "#7a3db8",
}
_WILD_FILL = "#161616"
_DARK_EDGE = "#0b0b0b"  # the dark side's black border

# Glyph text for symbols drawn as text; skip, reverse, flip and the themed wilds are paths.
_TEXT: dict[str, str] = {"draw_two": "+2", "wild_draw_four": "+4", "draw_one": "+1", "draw_five": "+5",
                         "wild_draw_two": "+2", "wild_draw_colour": "+?", "discard_two": "−2"}
_QUADS = ("wild", "wild_shuffle_hands", "wild_swap_hands", "wild_customizable",
          "wild_draw_two", "wild_draw_colour", "dark_wild")
_DARK_WILDS = ("dark_wild", "wild_draw_colour")
_LABEL: dict[str, str] = {
    "skip": "skip",
    "reverse": "reverse",
    "draw_two": "draw two",
    "wild": "wild",
    "wild_draw_four": "wild draw four",
    "wild_shuffle_hands": "wild shuffle hands",
    "wild_swap_hands": "wild swap hands",
    "wild_customizable": "wild customizable",
    "draw_one": "draw one",
    "draw_five": "draw five",
    "skip_everyone": "skip everyone",
    "discard_two": "discard two",
    "wild_draw_two": "wild draw two",
    "wild_draw_colour": "wild draw colour",
    "dark_wild": "wild (dark side)",
    "mario_reflect": "reflect",
    "dementor": "Dementor",
}


# Colour-blind aid (`/cards/<name>.svg?aid=1`): each colour's own shape, white on a black edge,
# so red and green differ by more than colour; the same shapes as the page's ring badge
# (app.css .m-<colour>). Points in percent of a box, as CSS clip-path polygons are.
_SHAPES: dict[str, tuple[tuple[int, int], ...]] = {
    "red": ((50, 0), (100, 100), (0, 100)),
    "yellow": (),  # a circle
    "green": ((6, 6), (94, 6), (94, 94), (6, 94)),
    "blue": ((50, 0), (100, 50), (50, 100), (0, 50)),
    "pink": ((50, 0), (61, 35), (98, 35), (68, 57), (79, 91), (50, 70), (21, 91), (32, 57), (2, 35), (39, 35)),
    "teal": ((35, 0), (65, 0), (65, 35), (100, 35), (100, 65), (65, 65), (65, 100), (35, 100), (35, 65), (0, 65),
             (0, 35), (35, 35)),
    "orange": ((25, 0), (75, 0), (100, 50), (75, 100), (25, 100), (0, 50)),
    "purple": ((20, 0), (50, 30), (80, 0), (100, 20), (70, 50), (100, 80), (80, 100), (50, 70), (20, 100), (0, 80),
               (30, 50), (0, 20)),
}


def shape_svg(colour: str, x: float, y: float, size: float) -> str:
    """The aid's shape of `colour`, `size` wide, centred on (x, y)."""
    style = 'fill="#fff" stroke="#000" stroke-width="0.8"'
    points = _SHAPES[colour]
    if not points:
        return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{size / 2:.1f}" {style}/>'
    pts = " ".join(f"{x + (px / 100 - 0.5) * size:.1f},{y + (py / 100 - 0.5) * size:.1f}" for px, py in points)
    return f'<polygon points="{pts}" {style}/>'


def card_label(name: str) -> str:
    """Words for a card, for alt text and screen readers: "red 7", "blue draw two", "wild"."""
    card = parse_card(name)
    words = _LABEL.get(card.symbol, card.symbol)
    return words if card.color is None else f"{card.color} {words}"


def _glyph(symbol: str, size: float, color: str) -> str:
    """The central mark of a card, centred on (0, 0)."""
    if symbol == "skip":
        r = size * 0.32
        return (
            f'<circle r="{r:.1f}" fill="none" stroke="{color}" stroke-width="{size * 0.1:.1f}"/>'
            f'<line x1="{-r * 0.7:.1f}" y1="{r * 0.7:.1f}" x2="{r * 0.7:.1f}" y2="{-r * 0.7:.1f}" '
            f'stroke="{color}" stroke-width="{size * 0.1:.1f}"/>'
        )
    if symbol == "reverse":
        s = size * 0.36
        arrow = (
            f"M{-s:.1f},{s * 0.15:.1f} L{s * 0.2:.1f},{-s * 0.9:.1f} L{s * 0.2:.1f},{-s * 0.45:.1f} "
            f"L{s * 0.7:.1f},{-s * 0.45:.1f} L{s * 0.15:.1f},{s * 0.1:.1f} Z"
        )
        return (
            f'<path d="{arrow}" fill="{color}"/>'
            f'<path d="{arrow}" fill="{color}" transform="rotate(180)"/>'
        )
    if symbol == "skip_everyone":  # a skip inside a second ring: everyone is skipped
        r = size * 0.42
        return (_glyph("skip", size * 0.8, color)
                + f'<circle r="{r:.1f}" fill="none" stroke="{color}" stroke-width="{size * 0.05:.1f}" '
                f'stroke-dasharray="{size * 0.12:.1f} {size * 0.06:.1f}"/>')
    if symbol == "flip":  # two cards, a light face and a dark face, turning over
        w, h = size * 0.34, size * 0.5
        return (
            f'<rect x="{-w * 0.9:.1f}" y="{-h * 0.55:.1f}" width="{w:.1f}" height="{h:.1f}" rx="2" '
            f'fill="#fff" stroke="{color}" stroke-width="1.5" transform="rotate(-14)"/>'
            f'<rect x="{-w * 0.1:.1f}" y="{-h * 0.45:.1f}" width="{w:.1f}" height="{h:.1f}" rx="2" '
            f'fill="{color}" stroke="#fff" stroke-width="1.5" transform="rotate(14)"/>'
            f'<path d="M{-size * 0.38:.1f},{size * 0.3:.1f} Q0,{size * 0.52:.1f} {size * 0.38:.1f},{size * 0.26:.1f}" '
            f'fill="none" stroke="{color}" stroke-width="{size * 0.06:.1f}"/>'
        )
    if symbol == "discard_two":  # two cards laid together
        w, h = size * 0.3, size * 0.44
        cards = "".join(
            f'<rect x="{dx - w / 2:.1f}" y="{-h / 2:.1f}" width="{w:.1f}" height="{h:.1f}" rx="2" '
            f'fill="{color}" stroke="#fff" stroke-width="1.5" transform="rotate({rot})"/>'
            for dx, rot in ((-size * 0.1, -12), (size * 0.1, 12)))
        return cards + (f'<text y="{size * 0.1:.1f}" font-size="{size * 0.3:.1f}" fill="#fff" text-anchor="middle" '
                         f'font-weight="800" font-family="Arial,Helvetica,sans-serif">2</text>')
    if symbol == "mario_reflect":  # a star between two arrows sent back
        r, k = size * 0.3, size * 0.13
        pts = " ".join(f"{(r if i % 2 == 0 else k) * math.sin(i * math.pi / 5):.1f},"
                       f"{-(r if i % 2 == 0 else k) * math.cos(i * math.pi / 5):.1f}" for i in range(10))
        return _glyph("reverse", size * 1.2, "#e23b2e") + f'<polygon points="{pts}" fill="#ffd84a" stroke="#fff"/>'
    if symbol == "dementor":  # a hooded figure
        return (
            f'<path d="M0,{-size * 0.42:.1f} C{size * 0.3:.1f},{-size * 0.42:.1f} {size * 0.32:.1f},{size * 0.1:.1f} '
            f'{size * 0.36:.1f},{size * 0.42:.1f} L{-size * 0.36:.1f},{size * 0.42:.1f} C{-size * 0.32:.1f},'
            f'{size * 0.1:.1f} {-size * 0.3:.1f},{-size * 0.42:.1f} 0,{-size * 0.42:.1f} Z" fill="#8c99a6"/>'
            f'<ellipse cy="{-size * 0.14:.1f}" rx="{size * 0.13:.1f}" ry="{size * 0.17:.1f}" fill="#050505"/>'
        )
    if symbol in _QUADS:
        r = size * 0.34
        quads = []
        four = DARK_COLORS if symbol in _DARK_WILDS else ("red", "blue", "yellow", "green")
        for i, c in enumerate(four):
            x, y = [(1, -1), (-1, -1), (-1, 1), (1, 1)][i]
            quads.append(
                f'<path d="M0,0 L{x * r:.1f},0 A{r:.1f},{r:.1f} 0 0 {1 if x * y > 0 else 0} 0,{y * r:.1f} Z" '
                f'fill="{FILL[c]}"/>'
            )
        extra = {
            "wild_shuffle_hands": "⇆",
            "wild_swap_hands": "↔",
            "wild_customizable": "✎",
            "wild_draw_two": "+2",
            "wild_draw_colour": "+?",
        }.get(symbol)
        mark = ""
        outline = ' stroke="#000" stroke-width="0.5"' if extra and extra[0] == "+" else ""
        if extra:
            mark = (
                f'<text y="{size * 0.12:.1f}" font-size="{size * 0.34:.1f}" fill="#fff" '
                f'text-anchor="middle" font-weight="700"{outline}>'
                f'{extra}</text>'
            )
        return "".join(quads) + mark
    text = _TEXT.get(symbol, symbol)
    return (
        f'<text y="{size * 0.2:.1f}" font-size="{size * (0.5 if len(text) > 1 else 0.62):.1f}" '
        f'fill="{color}" text-anchor="middle" font-weight="800" '
        f'font-family="Arial,Helvetica,sans-serif" stroke="#000" stroke-width="0.6">{text}</text>'
    )


def _aid_marks(colour: str | None, symbol: str) -> str:
    """The aid's shapes: in the two free corners of a coloured card, on each wild quadrant."""
    if colour is not None:
        return shape_svg(colour, 50, 11, 9) + shape_svg(colour, 10, 79, 9)
    if symbol not in _QUADS:
        return ""
    four = DARK_COLORS if symbol in _DARK_WILDS else ("red", "blue", "yellow", "green")
    at = [(1, -1), (-1, -1), (-1, 1), (1, 1)]  # the quadrants' order in _glyph
    return "".join(shape_svg(c, 30 + dx * 6.5, 45 + dy * 6.5, 5.5) for c, (dx, dy) in zip(four, at))


@lru_cache(maxsize=None)
def card_svg(name: str, aid: bool = False) -> str:
    """One card face as an SVG document (60 x 90 view box); `aid` adds the colour-blind aid's
    shapes. Raises UnknownCardError."""
    card = parse_card(name)
    dark = card.side == "dark"
    fill = FILL[card.color] if card.color else _WILD_FILL
    ink = fill if card.color else "#fff"
    corner = _TEXT.get(card.symbol, card.symbol if card.number is not None else "")
    if card.symbol in _QUADS:
        corner = ""  # a themed wild's mark is in its middle
    corner_svg = ""
    if corner:
        corner_svg = (
            f'<text x="7" y="15" font-size="10" fill="#fff" font-weight="800" '
            f'font-family="Arial,Helvetica,sans-serif">{corner}</text>'
            f'<text x="53" y="75" font-size="10" fill="#fff" font-weight="800" '
            f'font-family="Arial,Helvetica,sans-serif" text-anchor="end" '
            f'transform="rotate(180 48 72)">{corner}</text>'
        )
    oval = (
        f'<ellipse cx="30" cy="45" rx="20" ry="33" fill="{_DARK_EDGE if dark else "#fff"}" '
        'transform="rotate(28 30 45)"/>'
        if card.color
        else '<ellipse cx="30" cy="45" rx="20" ry="33" fill="none" stroke="#fff" '
        'stroke-width="1.5" transform="rotate(28 30 45)"/>'
    )
    glyph_ink = ink if card.color else "#fff"
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 60 90" width="120" height="180" '
        f'role="img" aria-label="{card_label(name)}">'
        f'<rect x="0.5" y="0.5" width="59" height="89" rx="6" fill="{_DARK_EDGE if dark else "#fff"}" '
        f'stroke="{"#555" if dark else "#999"}"/>'
        f'<rect x="3" y="3" width="54" height="84" rx="4.5" fill="{fill}"/>'
        f"{oval}{corner_svg}"
        f'<g transform="translate(30 45)">{_glyph(card.symbol, 40, glyph_ink)}</g>'
        f"{_aid_marks(card.color, card.symbol) if aid else ''}"
        "</svg>"
    )
