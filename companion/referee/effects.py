"""What each card does: one `Effect` record per symbol (../shared/docs/rules.md, "Setting up a
hand", "A turn" and "Themed decks and cards").

The referee's turn logic (`companion.referee.engine.Table`) reads these records and names no symbol:
where play goes after a card, who draws how many, what may answer a pending draw, what the
first card of a hand does, what a last card still does. A new card is one entry in `_CARDS`;
when it does something no field describes (UNO Flip's turning over, Triple Play's second
card), its `action` names one method in engine.py's `_ACTIONS` as well.

A symbol is what `companion.referee.cards.parse_card` gives: "0".."9", a coloured action ("skip") or,
for a wild, its own name ("wild_draw_four"). Pure data: no I/O, nothing random.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from companion.referee.cards import NUMBERS

if TYPE_CHECKING:
    from companion.referee.rules import Rules

# What a card turned up to start the discard pile does (rules.md, "Setting up a hand"):
# "play": nothing, the player after the dealer starts; "returned": it goes back in the deck and
# another is turned up; "draw": the first player draws `draws` and is skipped; "skip": the first
# player is skipped; "reverse": the dealer starts, play goes counter-clockwise; "colour": the
# first player names the colour, then plays.
FIRST_CARD = ("play", "returned", "draw", "skip", "reverse", "colour")


@dataclass(frozen=True)
class Effect:
    """One symbol's rule. The defaults are a number card's: play moves on one seat."""

    symbol: str
    # -- where play goes next
    step: int = 1                   # seats play moves on: 2 skips the next player, 0 plays again
    reverse: bool = False           # turns the direction first (two players in: acts as a skip)
    action: str | None = None       # a further step, `engine._ACTIONS[action]`, that moves play
    #                                 itself (a wild's after its colour is named)
    target: bool = False            # a wild that names a player too (`target` event)
    # -- who draws
    draws: int = 0                  # the next player draws this many and loses the turn; a
    #                                 last card still hits them (rules.md, end of a hand)
    draws_until: str | None = None  # instead: draws until a card of this colour ("named": the
    #                                 colour the wild names); the table reports how many
    hit: str = ""                   # how a notice names the card ("": "a <symbol>")
    waits: bool = False             # its draw waits for the victim's answer where the table's
    #                                 rules allow one (stacking, deflect, reflect)
    challenge: bool = False         # a wild draw with the wild draw four's restriction: the
    #                                 victim may challenge
    # -- answering a pending draw
    stacks: bool = False            # stacking: answers its own symbol (`cross`: either card)
    deflects: bool = False          # of the colour in force, sends a pending draw on (`deflect`)
    reflects: bool = False          # sends a pending draw back to whoever laid it
    reflectable: bool = False       # its pending draw can be sent back by a reflect card
    answer_only: bool = False       # playable only as an answer to a pending draw
    # -- the rest of the hand
    first: str = "play"             # turned up to start the pile: one of FIRST_CARD
    must_take_back: bool = False    # played illegally, its effect cannot stand: taken back
    no_call: bool = False           # going down to one card through it needs no UNO call
    doubles: bool = False           # a hand won on it scores double (`double_score`)

    @property
    def hit_by(self) -> str:
        """The card in "X is hit by ..." notices."""
        return self.hit or "a " + self.symbol.replace("_", " ")


_CARDS: tuple[Effect, ...] = (
    *(Effect(n) for n in NUMBERS),
    # classic
    Effect("skip", step=2, deflects=True, first="skip"),
    Effect("reverse", reverse=True, deflects=True, first="reverse"),
    Effect("draw_two", step=2, draws=2, waits=True, stacks=True, reflectable=True, doubles=True,
           first="draw"),
    Effect("wild", first="colour"),
    Effect("wild_draw_four", step=2, draws=4, challenge=True, action="wild_draw", stacks=True,
           reflectable=True, doubles=True, first="returned"),
    # modern and swap decks (the customizable card's effect is the table's: CUSTOMIZABLE)
    Effect("wild_shuffle_hands", action="shuffle_hands", no_call=True, first="returned"),
    Effect("wild_swap_hands", action="swap_hands", target=True, no_call=True, first="returned"),
    Effect("wild_customizable", first="returned"),
    # UNO Flip (a dark face never starts a pile: every hand starts on the light side)
    Effect("draw_one", step=2, draws=1, first="draw"),
    Effect("draw_five", step=2, draws=5, first="draw"),
    Effect("skip_everyone", step=0),
    Effect("flip", action="flip", must_take_back=True, first="returned"),
    Effect("wild_draw_two", step=2, draws=2, challenge=True, action="wild_draw", first="returned"),
    Effect("dark_wild"),
    Effect("wild_draw_colour", step=2, draws_until="named", challenge=True, action="wild_draw"),
    # themed cards added to a classic deck
    Effect("discard_two", action="discard_two", must_take_back=True),
    Effect("mario_reflect", reflects=True, answer_only=True, must_take_back=True,
           first="returned"),
    Effect("dementor", step=2, draws_until="gryffindor", action="dementor", first="returned"),
)
# Every symbol's effect with the table options at their defaults.
EFFECTS: dict[str, Effect] = {e.symbol: e for e in _CARDS}

# The wild customizable does what the table chose at game start (rules `customizable`).
CUSTOMIZABLE: dict[str, Effect] = {
    "wild": EFFECTS["wild_customizable"],
    "draw_three": replace(EFFECTS["wild_customizable"], step=2, draws=3,
                          hit="the customizable card"),
    "skip": replace(EFFECTS["wild_customizable"], step=2),
}
# Rule `seven_zero`: a 7 swaps hands with a chosen player, a 0 passes every hand on; going
# down to one card that way needs no UNO call. Played illegally, they go back: a card left
# standing counts with its effect, and hands passed round under a wrong card cannot be undone
# at the table (nor a 7's target asked for once the next player has gone on).
SEVEN_ZERO: dict[str, Effect] = {
    "7": replace(EFFECTS["7"], action="seven", no_call=True, must_take_back=True),
    "0": replace(EFFECTS["0"], action="zero", no_call=True, must_take_back=True),
}


def effects_for(rules: "Rules") -> dict[str, Effect]:
    """Every symbol's effect at a table with these options (a game's `_effects`)."""
    table = dict(EFFECTS)
    table["wild_customizable"] = CUSTOMIZABLE[rules.customizable]
    if rules.seven_zero:
        table.update(SEVEN_ZERO)
    return table


def all_effects() -> list[Effect]:
    """Every record, the rule-chosen variants included (for checks over all of them)."""
    return [*_CARDS, *CUSTOMIZABLE.values(), *SEVEN_ZERO.values()]
