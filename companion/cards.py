"""The card vocabulary: names, colours, symbols, points and deck editions.

Every other module (engine, model classes, web page, logs, tests) uses these names and
nothing else. See ../shared/docs/rules.md, "Cards and decks".
"""
from __future__ import annotations

import difflib
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, TypeAlias

from companion.errors import UnknownCardError, UnknownColorError, RulesError

CardName: TypeAlias = str
Color: TypeAlias = Literal["red", "yellow", "green", "blue"]

COLORS: tuple[str, ...] = ("red", "yellow", "green", "blue")
NUMBERS: tuple[str, ...] = tuple(str(n) for n in range(10))
ACTIONS: tuple[str, ...] = ("skip", "reverse", "draw_two")
SYMBOLS: tuple[str, ...] = NUMBERS + ACTIONS
WILDS: tuple[str, ...] = (
    "wild",
    "wild_draw_four",
    "wild_shuffle_hands",
    "wild_swap_hands",
    "wild_customizable",
)
# The fixed order of every card name; the model's class indices follow it.
CARD_NAMES: tuple[CardName, ...] = tuple(f"{c}_{s}" for c in COLORS for s in SYMBOLS) + WILDS

EDITIONS: tuple[str, ...] = ("classic", "modern", "swap")

_WILD_POINTS = {
    "wild": 50,
    "wild_draw_four": 50,
    "wild_shuffle_hands": 50,
    "wild_customizable": 50,
    "wild_swap_hands": 40,
}


@dataclass(frozen=True)
class Card:
    """One card face. `color` is None for wilds; `symbol` is "0".."9", an action or the wild name."""

    name: CardName
    color: str | None
    symbol: str

    @property
    def is_wild(self) -> bool:
        return self.color is None

    @property
    def number(self) -> int | None:
        return int(self.symbol) if self.symbol in NUMBERS else None

    @property
    def is_action(self) -> bool:
        return self.symbol in ACTIONS

    @property
    def points(self) -> int:
        if self.color is None:
            return _WILD_POINTS[self.name]
        return int(self.symbol) if self.symbol in NUMBERS else 20

    def __str__(self) -> str:
        return self.name


def _closest(word: str, choices: tuple[str, ...]) -> str:
    match = difflib.get_close_matches(word.strip().lower(), choices, n=1, cutoff=0.0)
    return match[0] if match else choices[0]


@lru_cache(maxsize=None)
def _card(name: str) -> Card:
    if name in WILDS:
        return Card(name, None, name)
    color, _, symbol = name.partition("_")
    return Card(name, color, symbol)


def parse_card(name: object) -> Card:
    """Return the Card for a name in the vocabulary, or raise UnknownCardError naming the closest.

    >>> parse_card("red_7").points
    7
    """
    if not isinstance(name, str) or name not in _CARD_SET:
        text = name if isinstance(name, str) else repr(name)
        raise UnknownCardError(
            f"unknown card {text!r}: did you mean {_closest(str(text), CARD_NAMES)!r}?"
        )
    return _card(name)


def parse_color(name: object) -> str:
    """Return a colour name, or raise UnknownColorError naming the closest."""
    if not isinstance(name, str) or name not in COLORS:
        text = name if isinstance(name, str) else repr(name)
        raise UnknownColorError(
            f"unknown colour {text!r}: did you mean {_closest(str(text), COLORS)!r}?"
        )
    return name


def is_card_name(name: object) -> bool:
    return isinstance(name, str) and name in _CARD_SET


def points(name: CardName) -> int:
    """Points a card scores when left in a hand."""
    return parse_card(name).points


def deck(edition: str = "classic", swap_cards: int = 1) -> Counter[CardName]:
    """How many of each card name a deck edition holds (classic 108, modern 112, swap 108+n)."""
    if edition not in EDITIONS:
        raise RulesError(
            f"unknown deck {edition!r}: did you mean {_closest(edition, EDITIONS)!r}?"
        )
    counts: Counter[CardName] = Counter()
    for color in COLORS:
        counts[f"{color}_0"] = 1
        for symbol in SYMBOLS[1:]:
            counts[f"{color}_{symbol}"] = 2
    counts["wild"] = 4
    counts["wild_draw_four"] = 4
    if edition == "modern":
        counts["wild_shuffle_hands"] = 1
        counts["wild_customizable"] = 3
    elif edition == "swap":
        if swap_cards < 1:
            raise RulesError("a swap deck needs at least one wild swap hands card")
        counts["wild_swap_hands"] = swap_cards
    return counts


def deck_size(edition: str = "classic", swap_cards: int = 1) -> int:
    return sum(deck(edition, swap_cards).values())


_CARD_SET = frozenset(CARD_NAMES)
