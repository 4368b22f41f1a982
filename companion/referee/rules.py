"""Table options: the one `Rules` dataclass every rule consults.

A `game` event carries a `rules` object whose keys are the option names of rules.md. Unknown
keys and bad values are rejected with a close-match suggestion (ultralytics' cfg style), never
silently replaced by a default.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any, Mapping

from companion.referee.cards import EDITIONS, deck, deck_size, hint
from companion.errors import RulesError

FIRST_CARD_MODES = ("classic", "number_only")
SCORING_MODES = ("winner_takes", "lowest_wins")
UNO_CATCH_MODES = ("auto", "players")
ROTATIONS = ("clockwise", "counterclockwise")
STACKING_MODES = (False, "draw_two", "wild_draw_four", True, "cross")
# Which coloured cards of the colour in force send a pending draw on (house rule `deflect`).
DEFLECT_MODES = (False, "reverse", "skip", True)
# Seats a `teams` game needs: 2 vs 2 or 3 vs 3, partners seated alternately.
TEAM_TABLES = (4, 6)
# 0 is a table that plays no catch penalty (earlier versions took it: stored games must replay).
UNO_PENALTY_RANGE = (0, 10)
TURN_SECONDS_RANGE = (5, 600)
# What a wild customizable card does (chosen by the table at game start):
# "wild" = a plain wild (the default: record it; any draws the table reports are logged draws),
# "draw_three" = the next player draws 3 and loses the turn, "skip" = the next player loses the turn.
CUSTOMIZABLE_EFFECTS = ("wild", "draw_three", "skip")


def _yes_no(value: Any) -> str | None:
    """`true` or `false` (the JSON words, unquoted) for a value written as a yes or a no."""
    word = str(value).strip().lower()
    return "true" if word in ("yes", "true", "on", "1", "y") else "false" if word in ("no", "false", "off", "0", "n") else None


def _meant(value: Any, choices: tuple[str, ...]) -> str:
    """": did you mean X?" for a value close to a choice, or a yes/no word (JSON's true and
    false), else nothing: the message lists the choices already."""
    yes_no = _yes_no(value)
    if yes_no is not None:
        return f": did you mean {yes_no}?"
    return hint(value, choices, few=0)


@dataclass(frozen=True)
class Rules:
    """Every table option with its default (rules.md)."""

    deck: str = "classic"               # classic (108), modern (112), swap (108 + swap_cards), flip (112)
    swap_cards: int = 1                 # wild swap hands cards in a `swap` deck
    # themed cards added to a classic, modern or swap deck (rules.md, "Themed decks and cards")
    discard_two: int = 0                # Triple Play discard two cards per colour
    mario_reflect: int = 0              # Super Mario reflect cards
    dementor: int = 0                   # Harry Potter Dementor cards
    hand_size: int = 7                  # cards dealt to each player
    first_card: str = "classic"         # classic | number_only
    target: int = 500                   # points that end the game
    scoring: str = "winner_takes"       # winner_takes | lowest_wins
    hands: int | None = None            # a fixed number of hands instead of a target
    uno_penalty: int = 2                # cards drawn when caught without calling UNO
    uno_catch: str = "auto"             # auto (the referee catches) | players
    illegal_play_penalty: int = 2       # cards drawn after taking back a wrong card
    stacking: bool | str = False        # False | "draw_two" | "wild_draw_four" | True (both) | "cross"
    jump_in: bool = False               # an identical card may be played out of turn
    seven_zero: bool = False            # 7 swaps hands with a chosen player, 0 passes hands on
    draw_until_playable: bool = False   # keep drawing until a playable card comes
    dealer_rotation: str = "clockwise"  # clockwise | counterclockwise
    dealer_by_draw: bool = False        # first dealer: highest card shown (reveal before deal)
    customizable: str = "wild"          # effect of wild customizable: wild | draw_three | skip
    # house rules (all off by default; see README, "House rules")
    deflect: bool | str = False         # False | "reverse" | "skip" | True: send a pending draw on
    multiple_play: bool = False         # several cards of one number in one `play` (`cards`)
    no_action_finish: bool = False      # the last card of a hand may not be skip/reverse/draw two
    no_wild_finish: bool = False        # the last card of a hand may not be a wild
    hand_limit: int | None = None       # a player holding this many cards does not draw by choice
    elimination: int | None = None      # a player who reaches this many cards is out of the hand
    teams: bool = False                 # partners seated alternately (4 or 6 players)
    double_score: bool = False          # a hand won on a draw two / wild draw four scores double
    turn_seconds: int | None = None     # a per-turn timer on the phones (warns only)

    @property
    def deck_counts(self) -> dict[str, int]:
        return dict(deck(self.deck, self.swap_cards, self.discard_two, self.mario_reflect,
                         self.dementor))

    @property
    def deck_size(self) -> int:
        return deck_size(self.deck, self.swap_cards, self.discard_two, self.mario_reflect,
                         self.dementor)

    @property
    def themed(self) -> bool:
        """Whether the deck holds themed cards (UNO Flip, discard two, reflect, Dementor)."""
        return bool(self.deck == "flip" or self.discard_two or self.mario_reflect or self.dementor)

    def stacks(self, symbol: str) -> bool:
        """Whether a pending penalty whose last card is `symbol` may be answered by another."""
        if self.stacking is True or self.stacking == "cross":
            return symbol in ("draw_two", "wild_draw_four")
        return self.stacking == symbol

    def deflects(self, symbol: str) -> bool:
        """Whether a coloured `symbol` card (reverse, skip) sends a pending draw on."""
        if self.deflect is True:
            return symbol in ("reverse", "skip")
        return self.deflect == symbol

    @property
    def answerable(self) -> bool:
        """Whether a player hit by a draw card may answer it (stack, deflect, reflect) at all."""
        return self.stacking is not False or self.deflect is not False or self.mario_reflect > 0

    @property
    def draw_two_waits(self) -> bool:
        """A draw two's cards wait for its victim's answer instead of landing at once."""
        return self.stacks("draw_two") or self.deflect is not False or self.mario_reflect > 0

    def finish_forbidden(self, card_symbol: str, wild: bool) -> str | None:
        """The option that forbids going out on this card, or None."""
        if wild and self.no_wild_finish:
            return "no_wild_finish"
        if not wild and card_symbol in ("skip", "reverse", "draw_two") and self.no_action_finish:
            return "no_action_finish"
        return None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


_FIELDS = {f.name: f for f in fields(Rules)}
_CHOICES: dict[str, tuple[Any, ...]] = {
    "deck": EDITIONS,
    "first_card": FIRST_CARD_MODES,
    "scoring": SCORING_MODES,
    "uno_catch": UNO_CATCH_MODES,
    "dealer_rotation": ROTATIONS,
    "customizable": CUSTOMIZABLE_EFFECTS,
}
_BOOLS = ("jump_in", "seven_zero", "draw_until_playable", "dealer_by_draw", "multiple_play",
          "no_action_finish", "no_wild_finish", "teams", "double_score")
# name -> smallest allowed value
_INTS = {"swap_cards": 1, "hand_size": 1, "target": 1, "illegal_play_penalty": 0,
         "discard_two": 0, "mario_reflect": 0, "dementor": 0}
# themed counts: at most this many of each (a deck stays a deck)
_THEMED_MAX = 8
# optional counts: null (off) or a whole number in the range
_OPTIONAL_INTS = {"hand_limit": (2, 1000), "elimination": (2, 1000), "turn_seconds": TURN_SECONDS_RANGE}


def parse_rules(raw: object) -> Rules:
    """Validate a `rules` object from a `game` event; raise RulesError naming the fix.

    >>> parse_rules({"stacking": "draw_two"}).stacking
    'draw_two'
    """
    if raw is None:
        return Rules()
    if not isinstance(raw, Mapping):
        raise RulesError("rules must be an object of option names and values")
    values: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in _FIELDS:
            raise RulesError(f"unknown rule {key!r}{hint(key, tuple(_FIELDS), few=0)}")
        values[key] = _check_value(key, value)
    rules = Rules(**values)
    _check_together(rules)
    return rules


def check_rule(key: str, value: Any) -> None:
    """Raise RulesError if one option's value is bad on its own (the config file's check)."""
    if key not in _FIELDS:
        raise RulesError(f"unknown rule {key!r}{hint(key, tuple(_FIELDS), few=0)}")
    _check_value(key, value)


def _check_together(rules: Rules) -> None:
    """Options that only make sense against each other (counts above the hand dealt; the
    themed cards and the draw-card house rules against the flip deck)."""
    if rules.deck == "flip":
        for key in ("discard_two", "mario_reflect", "dementor"):
            if getattr(rules, key):
                raise RulesError(f"rule {key} adds cards to a classic, modern or swap deck, "
                                 f"not to the flip deck")
        for key in ("stacking", "deflect", "seven_zero"):
            if getattr(rules, key) is not False:
                raise RulesError(f"rule {key} is not defined for the flip deck's cards: "
                                 f"leave it off with deck=flip")
    for key in ("hand_limit", "elimination"):
        value = getattr(rules, key)
        if value is not None and value <= rules.hand_size:
            raise RulesError(f"rule {key}={value} must be above hand_size ({rules.hand_size}): "
                             f"every player starts with {rules.hand_size} cards")


def names_differ(names: list[str]) -> bool:
    """Whether no two names are one person typed twice ("Anna", "anna ", "Anna  Rossi" and
    "anna rossi"): a new game's seats must differ so, or the league keeps two rows for one."""
    return len({" ".join(n.split()).casefold() for n in names}) == len(names)


MAX_NAME = 40  # characters: a name fits a phone's button and the standings' column


def name_char(ch: str) -> bool:
    """A character a name may hold: anything printable, and the joiners that make one emoji
    of several (👨‍👩‍👧: zero-width joiner; flag tags), but no tab, line break or other control."""
    return ch.isprintable() or ch == "\u200d" or "\U000e0020" <= ch <= "\U000e007f"


def names_problem(names: list[str]) -> str | None:
    """Why a table would not seat these names, or None. The engine replays stored games whatever
    their names; a new game (the host page, the configuration) and an imported log are checked."""
    problem = name_check(names)
    return problem[1] if problem else None


def name_check(names: list[str]) -> tuple[str, str, dict[str, Any]] | None:
    """The one place the seat names' rules live: None, or (what, why, details) for the first
    problem. `what` is "same" (two names are one person), "spaces" (spaces around a name),
    "long" (over MAX_NAME; details: the name's start `player` and its length `n`) or "chars"
    (a tab, a line break or another control character), so a page can say it in its language."""
    if not names_differ(names):
        return "same", "names that differ only in capitals or spaces are one player", {}
    for name in names:
        if name != name.strip():
            return "spaces", f"the name {name!r} has spaces around it", {}
        if len(name) > MAX_NAME:
            start = name[:24] + "…"
            return "long", f"a player's name is at most {MAX_NAME} characters: {start} has {len(name)}", \
                {"player": start, "n": len(name)}
        if not all(name_char(ch) for ch in name):
            return "chars", ("a player's name is letters, digits, spaces, marks and emoji: no tabs or line "
                             f"breaks ({name!r} holds one)"), {}
    return None


def check_players(rules: Rules, players: int) -> None:
    """Raise RulesError if the options do not fit this many seats (`teams`, the hands dealt
    and a first card out of the deck)."""
    if rules.teams and players not in TEAM_TABLES:
        raise RulesError(f"rule teams needs 4 or 6 players (2 vs 2 or 3 vs 3, partners seated "
                         f"alternately), not {players}")
    if players * rules.hand_size + 1 > rules.deck_size:
        raise RulesError(f"{players} hands of {rules.hand_size} do not fit in a {rules.deck_size}-card deck")


def _check_value(key: str, value: Any) -> Any:
    if key in _CHOICES:
        choices = _CHOICES[key]
        if value not in choices or not isinstance(value, str):
            raise RulesError(f"rule {key}={value!r} is not one of {', '.join(choices)}"
                             f"{hint(value, choices, few=0)}")
        return value
    if key in _BOOLS:
        if not isinstance(value, bool):
            raise RulesError(f"rule {key} takes true or false, not {value!r}")
        return value
    if key == "stacking":
        if value is False or value is True or value in ("draw_two", "wild_draw_four", "cross"):
            return value
        raise RulesError(f"rule stacking={value!r} is not one of false, true, draw_two, wild_draw_four, cross"
                         f"{_meant(value, ('draw_two', 'wild_draw_four', 'cross'))}")
    if key == "deflect":
        if value is False or value is True or value in ("reverse", "skip"):
            return value
        raise RulesError(f"rule deflect={value!r} is not one of false, true, reverse, skip"
                         f"{_meant(value, ('reverse', 'skip'))}")
    if key == "uno_penalty":
        low, high = UNO_PENALTY_RANGE
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise RulesError(f"rule uno_penalty takes a whole number of cards {low}-{high}, "
                             f"not {value!r}")
        return value
    if key in _OPTIONAL_INTS:
        low, high = _OPTIONAL_INTS[key]
        if value is None or value is False:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise RulesError(f"rule {key} takes a whole number {low}-{high} (or null for off), "
                             f"not {value!r}")
        return value
    if key == "hands":
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise RulesError(f"rule hands takes a whole number of hands (1 or more), not {value!r}")
        return value
    low = _INTS[key]
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise RulesError(f"rule {key} takes a whole number of at least {low}, not {value!r}")
    if key in ("discard_two", "mario_reflect", "dementor") and value > _THEMED_MAX:
        raise RulesError(f"rule {key} takes a count 0-{_THEMED_MAX}, not {value!r}")
    return value
