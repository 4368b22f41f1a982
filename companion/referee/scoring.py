"""Scoring and the end of a game: pure functions the engine calls between hands (rules.md,
"End of a hand and scoring")."""
from __future__ import annotations

from typing import Mapping, Sequence

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
    sign = -1 if rules.scoring == "winner_takes" else 1
    return sorted(range(len(scores)), key=lambda i: (sign * scores[i], -hands_won[i],
                                                     end_cards[i], last_draw[i], i))
