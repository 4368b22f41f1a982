"""The card vocabulary: names, colours, symbols, points and deck editions.

Every other module (engine, model classes, web page, logs, tests) uses these names and
nothing else. See ../shared/docs/rules.md, "Cards and decks".
"""
from __future__ import annotations

import difflib
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, Sequence, TypeAlias

from companion.errors import UnknownCardError, UnknownColorError, RulesError

CardName: TypeAlias = str
Color: TypeAlias = Literal["red", "yellow", "green", "blue"]

COLORS: tuple[str, ...] = ("red", "yellow", "green", "blue")
# UNO Flip's dark side (rules.md, "Themed decks and cards"); its light side uses COLORS.
DARK_COLORS: tuple[str, ...] = ("pink", "teal", "orange", "purple")
ALL_COLORS: tuple[str, ...] = COLORS + DARK_COLORS
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

# Themed cards (rules.md, "Themed decks and cards"). Not model classes (the recognizer is not
# trained on them), so kept apart from CARD_NAMES, whose order is the model's class order.
FLIP_LIGHT_SYMBOLS: tuple[str, ...] = NUMBERS[1:] + ("draw_one", "reverse", "skip", "flip")
FLIP_DARK_SYMBOLS: tuple[str, ...] = NUMBERS[1:] + ("draw_five", "reverse", "skip_everyone", "flip")
FLIP_LIGHT_WILDS: tuple[str, ...] = ("wild", "wild_draw_two")
FLIP_DARK_WILDS: tuple[str, ...] = ("dark_wild", "wild_draw_colour")
THEMED_WILDS: tuple[str, ...] = ("wild_draw_two", "wild_draw_colour", "dark_wild",
                                 "mario_reflect", "dementor")
THEMED_NAMES: tuple[CardName, ...] = (
    tuple(f"{c}_{s}" for c in COLORS for s in ("draw_one", "flip", "discard_two"))
    + tuple(f"{c}_{s}" for c in DARK_COLORS for s in FLIP_DARK_SYMBOLS)
    + THEMED_WILDS
)
# Every name the referee knows: the classic vocabulary, then the themed cards.
ALL_CARD_NAMES: tuple[CardName, ...] = CARD_NAMES + THEMED_NAMES
# Names whose face belongs to UNO Flip's dark side; every other name is a light face.
DARK_NAMES: frozenset[CardName] = frozenset(
    n for n in THEMED_NAMES if n.split("_")[0] in DARK_COLORS) | frozenset(FLIP_DARK_WILDS)

EDITIONS: tuple[str, ...] = ("classic", "modern", "swap", "flip")

_WILD_POINTS = {
    "wild": 50,
    "wild_draw_four": 50,
    "wild_shuffle_hands": 50,
    "wild_customizable": 50,
    "wild_swap_hands": 40,
    # themed (rules.md): UNO Flip's, Super Mario's reflect, Harry Potter's Dementor
    "wild_draw_two": 50,
    "wild_draw_colour": 60,
    "dark_wild": 40,
    "mario_reflect": 50,
    "dementor": 50,
}
# Coloured cards that do not score 20 (every other action does): UNO Flip's values. A
# discard two scores 20 like the classic actions (the rulebook names no value for it).
_ACTION_POINTS = {"draw_one": 10, "skip_everyone": 30}
# In the flip deck the light `wild` is worth 40, not 50 (rules.md, UNO Flip points).
_FLIP_POINTS = {"wild": 40}


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
        return int(self.symbol) if self.symbol in NUMBERS else _ACTION_POINTS.get(self.symbol, 20)

    @property
    def side(self) -> str:
        """"dark" for a face of UNO Flip's dark side, else "light" (every classic card)."""
        return "dark" if self.name in DARK_NAMES else "light"

    def __str__(self) -> str:
        return self.name


def hint(word: object, choices: Sequence[str], few: int = 8, fold: bool = True) -> str:
    """What to add to "unknown X 'word'": `: did you mean 'y'?` for a close name (difflib's
    0.6: 'stackin', 'clasic'), else the choices when they are few, else nothing (a far word
    got a far guess: 'bogus' -> 'blue_skip'). `fold`: the names are lower case."""
    word = str(word).strip()
    close = difflib.get_close_matches(word.lower() if fold else word, list(choices), n=1)
    if close:
        return f": did you mean {close[0]!r}?"
    return f" (one of: {', '.join(choices)})" if len(choices) <= few else ""


def suggest_card(word: str) -> str | None:
    """The closest card name, the classic vocabulary first (so classic typos keep their
    classic suggestion), else any themed name; None when none is close."""
    word = word.strip().lower()
    colour, _, rest = word.partition("_")
    if colour in ALL_COLORS and rest in _CARD_SET and (rest in WILDS or rest in THEMED_WILDS):
        return rest  # "yellow_wild": a wild has no colour of its own; the colour is named after it
    close = difflib.get_close_matches(word, CARD_NAMES, n=1, cutoff=0.7) or \
        difflib.get_close_matches(word, ALL_CARD_NAMES, n=1)
    return close[0] if close else None


def unknown_card(value: object) -> str:
    """The one line for a name (or anything else) that is no card."""
    close = suggest_card(str(value))
    if close is not None:
        return f"unknown card {value!r}: did you mean {close!r}?"
    return f"unknown card {value!r} (card names look like red_5, blue_skip, wild_draw_four)"


@lru_cache(maxsize=None)
def _card(name: str) -> Card:
    if name in WILDS or name in THEMED_WILDS:
        return Card(name, None, name)
    color, _, symbol = name.partition("_")
    return Card(name, color, symbol)


def parse_card(name: object) -> Card:
    """Return the Card for a name in the vocabulary, or raise UnknownCardError naming the closest.

    >>> parse_card("red_7").points
    7
    """
    if not isinstance(name, str) or name not in _CARD_SET:
        raise UnknownCardError(unknown_card(name))
    return _card(name)


def parse_color(name: object) -> str:
    """Return a colour name (either side of UNO Flip), or raise UnknownColorError naming the
    closest. Which side's colours fit the moment is the referee's question."""
    if not isinstance(name, str) or name not in ALL_COLORS:
        text = name if isinstance(name, str) else repr(name)
        raise UnknownColorError(f"unknown colour {text!r}{hint(text, ALL_COLORS)}")
    return name


def is_card_name(name: object) -> bool:
    return isinstance(name, str) and name in _CARD_SET


def points(name: CardName, edition: str = "classic") -> int:
    """Points a card scores when left in a hand (in the flip deck a light wild is 40).

    >>> points("wild"), points("wild", "flip"), points("teal_skip_everyone", "flip")
    (50, 40, 30)
    """
    card = parse_card(name)
    if edition == "flip" and name in _FLIP_POINTS:
        return _FLIP_POINTS[name]
    return card.points


def deck(edition: str = "classic", swap_cards: int = 1, discard_two: int = 0,
         mario_reflect: int = 0, dementor: int = 0) -> Counter[CardName]:
    """How many of each card name a deck edition holds (classic 108, modern 112, swap 108+n,
    flip 112 double-sided cards: both faces are listed), plus the themed cards' counts
    (`discard_two` per colour)."""
    if edition not in EDITIONS:
        raise RulesError(f"unknown deck {edition!r}{hint(edition, EDITIONS)}")
    counts: Counter[CardName] = Counter()
    if edition == "flip":
        for light, dark in zip(COLORS, DARK_COLORS):
            for symbol in FLIP_LIGHT_SYMBOLS:
                counts[f"{light}_{symbol}"] = 2
            for symbol in FLIP_DARK_SYMBOLS:
                counts[f"{dark}_{symbol}"] = 2
        for name in FLIP_LIGHT_WILDS + FLIP_DARK_WILDS:
            counts[name] = 4
        return counts
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
    for color in COLORS:
        if discard_two:
            counts[f"{color}_discard_two"] = discard_two
    if mario_reflect:
        counts["mario_reflect"] = mario_reflect
    if dementor:
        counts["dementor"] = dementor
    return counts


def deck_size(edition: str = "classic", swap_cards: int = 1, discard_two: int = 0,
              mario_reflect: int = 0, dementor: int = 0) -> int:
    """Physical cards in the deck (a flip card has two faces but is one card)."""
    counts = deck(edition, swap_cards, discard_two, mario_reflect, dementor)
    if edition == "flip":
        return sum(k for name, k in counts.items() if name not in DARK_NAMES)
    return sum(counts.values())


_CARD_SET = frozenset(ALL_CARD_NAMES)
