"""Card faces as small SVG documents, drawn from the card vocabulary (no image files, no fonts).

The phone page loads `/cards/<name>.svg`; each face is a few hundred bytes, so a view stays
light and works with no internet.
"""
from __future__ import annotations

from functools import lru_cache

from companion.cards import parse_card

# Print-like colours; the wild quadrants use the same four.
FILL: dict[str, str] = {
    "red": "#d7261e",
    "yellow": "#f2b705",
    "green": "#2f9e44",
    "blue": "#1c5fc4",
}
_WILD_FILL = "#161616"

# Glyph text for symbols drawn as text; skip and reverse are drawn as paths.
_TEXT: dict[str, str] = {"draw_two": "+2", "wild_draw_four": "+4"}
_LABEL: dict[str, str] = {
    "skip": "skip",
    "reverse": "reverse",
    "draw_two": "draw two",
    "wild": "wild",
    "wild_draw_four": "wild draw four",
    "wild_shuffle_hands": "wild shuffle hands",
    "wild_swap_hands": "wild swap hands",
    "wild_customizable": "wild customizable",
}


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
    if symbol in ("wild", "wild_shuffle_hands", "wild_swap_hands", "wild_customizable"):
        r = size * 0.34
        quads = []
        for i, c in enumerate(("red", "blue", "yellow", "green")):
            x, y = [(1, -1), (-1, -1), (-1, 1), (1, 1)][i]
            quads.append(
                f'<path d="M0,0 L{x * r:.1f},0 A{r:.1f},{r:.1f} 0 0 {1 if x * y > 0 else 0} 0,{y * r:.1f} Z" '
                f'fill="{FILL[c]}"/>'
            )
        extra = {
            "wild_shuffle_hands": "⇆",
            "wild_swap_hands": "↔",
            "wild_customizable": "✎",
        }.get(symbol)
        mark = ""
        if extra:
            mark = (
                f'<text y="{size * 0.12:.1f}" font-size="{size * 0.34:.1f}" fill="#fff" '
                f'text-anchor="middle" font-weight="700">{extra}</text>'
            )
        return "".join(quads) + mark
    text = _TEXT.get(symbol, symbol)
    return (
        f'<text y="{size * 0.2:.1f}" font-size="{size * (0.5 if len(text) > 1 else 0.62):.1f}" '
        f'fill="{color}" text-anchor="middle" font-weight="800" '
        f'font-family="Arial,Helvetica,sans-serif" stroke="#000" stroke-width="0.6">{text}</text>'
    )


@lru_cache(maxsize=None)
def card_svg(name: str) -> str:
    """One card face as an SVG document (60 x 90 view box). Raises UnknownCardError."""
    card = parse_card(name)
    fill = FILL[card.color] if card.color else _WILD_FILL
    ink = fill if card.color else "#fff"
    corner = _TEXT.get(card.symbol, card.symbol if card.number is not None else "")
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
        '<ellipse cx="30" cy="45" rx="20" ry="33" fill="#fff" transform="rotate(28 30 45)"/>'
        if card.color
        else '<ellipse cx="30" cy="45" rx="20" ry="33" fill="none" stroke="#fff" '
        'stroke-width="1.5" transform="rotate(28 30 45)"/>'
    )
    glyph_ink = ink if card.color else "#fff"
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 60 90" width="120" height="180" '
        f'role="img" aria-label="{card_label(name)}">'
        '<rect x="0.5" y="0.5" width="59" height="89" rx="6" fill="#fff" stroke="#999"/>'
        f'<rect x="3" y="3" width="54" height="84" rx="4.5" fill="{fill}"/>'
        f"{oval}{corner_svg}"
        f'<g transform="translate(30 45)">{_glyph(card.symbol, 40, glyph_ink)}</g>'
        "</svg>"
    )
