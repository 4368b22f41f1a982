"""Scoring and the end of a game: pure functions the engine calls between hands (rules.md,
"End of a hand and scoring")."""
from __future__ import annotations

from typing import Callable, Mapping, Sequence

from companion.referee.rules import Rules


def hand_gains(names: Sequence[str], winner: int, left: Mapping[int, int],
               rules: Rules) -> dict[str, int]:
    """Points each player gains from a finished hand, given the points `left` in each loser's
    hand: `winner_takes` gives them all to the winner, `lowest_wins` to their holders.

    >>> hand_gains(["Ann", "Bob", "Cid"], 0, {1: 12, 2: 30}, Rules())
    {'Ann': 42, 'Bob': 0, 'Cid': 0}
    """
    gains = {name: 0 for name in names}
    if rules.scoring == "winner_takes":
        gains[names[winner]] = sum(left.values())
    else:
        for i, points in left.items():
            gains[names[i]] = points
    return gains


def deck_value(rules: Rules) -> int:
    """What the whole deck scores: no hand (nor a winner's haul) can be worth more."""
    from companion.referee.cards import points

    return sum(points(card, rules.deck) * k for card, k in rules.deck_counts.items())


def most_points(rules: Rules, fix: bool = False) -> int:
    """The most a `points` entry may say (the whole deck), or a `score_fix` (twice that: a
    hand's points as `history` keeps them, doubled where a hand counts double). A typo guard."""
    return deck_value(rules) * (2 if fix else 1)


def fix_refused(rules: Rules, hand: int, winner: str, player: str) -> str | None:
    """Why a finished hand's points cannot be set for `player` (None if they can): under
    `winner_takes` only the hand's winner scores it, and under `lowest_wins` the winner's
    empty hand scores nothing. A loser's miscounted cards change the winner's points.

    >>> fix_refused(Rules(), 1, "Bob", "Cid")
    "only Bob scores hand 1 (the winner takes the points): to correct Cid's count, fix Bob's points"
    """
    if rules.scoring == "winner_takes" and player != winner:
        return (f"only {winner} scores hand {hand} (the winner takes the points): "
                f"to correct {player}'s count, fix {winner}'s points")
    if rules.scoring == "lowest_wins" and player == winner:
        return f"{winner} went out in hand {hand}: an empty hand scores nothing (lowest wins)"
    return None


def game_winner(rules: Rules, hands_played: int, scores: Sequence[int],
                hands_won: Sequence[int], end_cards: Sequence[int],
                last_draw: Sequence[int]) -> int | None:
    """The seat of the game's winner, or None while the game goes on.

    The game ends when a score reaches `target` (or after `hands` hands). The most points win
    (`lowest_wins`: the fewest); ties go to more hands won, then fewer cards held at the end
    of the last hand, then the player who did not draw last (`last_draw` is the sequence
    number of each player's latest draw, 0 for never).
    """
    if rules.hands is not None:
        if hands_played < rules.hands:
            return None
    elif max(scores) < rules.target:
        return None
    return placings(rules, scores, hands_won, end_cards, last_draw)[0]


def placings(rules: Rules, scores: Sequence[int], hands_won: Sequence[int],
             end_cards: Sequence[int], last_draw: Sequence[int]) -> list[int]:
    """Seats from first to last: the most points (`lowest_wins`: the fewest), then the
    tie-breaks of `game_winner`; the first is the game's winner once it is over.

    >>> placings(Rules(), [120, 510, 300], [1, 3, 2], [4, 0, 6], [9, 8, 7])
    [1, 2, 0]
    """
    key = _standing(rules, scores, hands_won, end_cards, last_draw)
    return sorted(range(len(scores)), key=lambda i: (key(i), i))


def places(rules: Rules, scores: Sequence[int], hands_won: Sequence[int],
           end_cards: Sequence[int], last_draw: Sequence[int]) -> list[int]:
    """Each seat's place, 1 for the first: players level on their points and on every
    tie-break share a place (sports-table style, 1, 2, 2, 4). The rulebook orders them no
    further, and the seat order `placings` falls back on must not decide league points.

    >>> places(Rules(), [0, 80, 0, 0], [0, 1, 0, 0], [1, 0, 1, 1], [0, 0, 0, 0])
    [2, 1, 2, 2]
    """
    key = _standing(rules, scores, hands_won, end_cards, last_draw)
    order = placings(rules, scores, hands_won, end_cards, last_draw)
    place = [0] * len(scores)
    for k, i in enumerate(order):
        place[i] = place[order[k - 1]] if k and key(i) == key(order[k - 1]) else k + 1
    return place


def tie_break(rules: Rules, scores: Sequence[int], hands_won: Sequence[int],
              end_cards: Sequence[int], last_draw: Sequence[int]) -> str | None:
    """What parted the first two seats of `placings` when they are level on points:
    "hands_won", "end_cards" or "last_draw"; "shared" when nothing did; None when the
    points did (or there is one seat)."""
    order = placings(rules, scores, hands_won, end_cards, last_draw)
    if len(order) < 2:
        return None
    a, b = order[:2]
    for name, values in (("score", scores), ("hands_won", hands_won), ("end_cards", end_cards),
                         ("last_draw", last_draw)):
        if values[a] != values[b]:
            return None if name == "score" else name
    return "shared"


def _standing(rules: Rules, scores: Sequence[int], hands_won: Sequence[int],
              end_cards: Sequence[int], last_draw: Sequence[int]) -> Callable[[int], tuple[int, int, int, int]]:
    """A seat's sort key: the most points (`lowest_wins`: the fewest), more hands won, fewer
    cards held at the end of the last hand, the earlier last draw (rules.md)."""
    sign = -1 if rules.scoring == "winner_takes" else 1
    return lambda i: (sign * scores[i], -hands_won[i], end_cards[i], last_draw[i])
