"""The referee: table events in, game state out (../shared/docs/table-log.md).

`Table.push` applies one table-log line. Every handler validates first (raising `_Reject`
before it touches anything) and only then mutates, so a rejected event changes nothing and
`check` is the same code run dry. The engine never shuffles and never sees hands: it tracks
hand *sizes*, the draw pile's size and the cards seen on the discard pile. `undo` and the
`correct` extension rebuild the state by replaying the events still in effect.
"""
from __future__ import annotations

import heapq
import json
import re
from typing import Any, Callable, Iterable

from companion.referee.cards import (ALL_CARD_NAMES, COLORS, DARK_COLORS, SYMBOLS, hint, parse_card, points,
                             unknown_card)
from companion.referee.effects import EFFECTS, Effect, all_effects, effects_for
from companion.errors import CompanionError
from companion.referee.rules import Rules, check_players, parse_rules
from companion.referee.scoring import fix_refused, game_winner, hand_gains, most_points, places, placings, tie_break

# (colour or None, symbol) for every card name; symbol is "0".."9", an action, or the wild name.
INFO: dict[str, tuple[str | None, str]] = {
    n: (parse_card(n).color, parse_card(n).symbol) for n in ALL_CARD_NAMES
}
# "light" or "dark": which face of UNO Flip a name is (every classic card is a light face).
SIDE: dict[str, str] = {n: parse_card(n).side for n in ALL_CARD_NAMES}
# The colours a wild may name on each side.
SIDE_COLORS: dict[str, tuple[str, ...]] = {"light": COLORS, "dark": DARK_COLORS}
_COLOR_SET = frozenset(COLORS + DARK_COLORS)
# What each card does is in companion/referee/effects.py (one `Effect` per symbol); a game reads its
# own table of them, `Table._effects`, with the options that change a card applied.
# Coloured symbols the fast play path applies (everything else takes the full path).
_CLASSIC_SYMBOLS = frozenset(SYMBOLS)
# Phases in which a hand is being played (UNO calls make sense).
_IN_HAND = frozenset(("play", "color", "target", "challenge", "evidence", "take_back"))
EVENT_TYPES = (
    "game", "deal", "flip", "play", "color", "target", "draw", "pass", "uno", "catch",
    "challenge", "reveal", "verdict", "points", "take_back", "undo", "score_fix", "correct", "seats",
)
MAX_PLAYERS = 10


class _Reject(Exception):
    """An event that does not fit; its message is the `rejected` notice's message."""


class _Malformed(_Reject):
    """A line no table writes: not JSON, no known type, a field missing or of the wrong kind, a
    card or colour outside the vocabulary. Rejected like the rest; `import` refuses the file."""


# What the table waits for, in the words its refusals use ("not now: waiting for the deal");
# `waiting_for` keeps the phase's name, and the pages say these in their own language (web/i18n,
# "what.*"). Each phase has its own words, so a refusal names its phase again.
WAITING_WORDS: dict[str, str] = {
    "game": "a new game",
    "deal": "the deal",
    "flip": "the first card",
    "play": "a card",
    "color": "a colour to be named",
    "target": "a player to be picked",
    "challenge": "the answer to the wild card",
    "evidence": "the challenge to be judged",
    "take_back": "the wrong card to be taken back",
    "scores": "the points of the hand",
    "game_over": "a new game (this one is over)",
}


def not_now(phase: str) -> str:
    """The refusal of an event the table is not waiting for: what it waits for, in words."""
    return f"not now: waiting for {WAITING_WORDS.get(phase, phase)}"


def _until_text(colour: str) -> str:
    if colour == "gryffindor":
        return "a Gryffindor card"
    return f"{'an' if colour[:1] in 'aeiou' else 'a'} {colour} card"  # an orange card (UNO Flip's dark side)


def playable(card: str, top: str | None, color: str | None) -> bool:
    """The matching rule, in one place: same colour, same number/symbol, or any wild; a face
    of the other UNO Flip side never; a reflect card only as an answer (`Table._answers`)."""
    c, s = INFO[card]
    if top is not None and SIDE[card] != SIDE[top]:
        return False
    if c is None:
        return not EFFECTS[s].answer_only
    if c == color:
        return True
    if top is None:
        return False
    tc, ts = INFO[top]
    return tc is not None and ts == s


# the cards playable on each (top card, colour in force), filled as positions are met
_PLAYABLE: dict[tuple[str | None, str | None], frozenset[str]] = {}


def playable_set(top: str | None, color: str | None) -> frozenset[str]:
    """Every card name `playable` on (top, colour): one set lookup instead of a call per card."""
    key = (top, color)
    got = _PLAYABLE.get(key)
    if got is None:
        got = _PLAYABLE[key] = frozenset(c for c in INFO if playable(c, top, color))
    return got


def _points(ev: dict, most: int) -> int:
    """The event's `points`: a whole number from 0 to `most` (`scoring.most_points`)."""
    pts = _int(ev.get("points"))
    if pts is None or pts < 0:
        raise _Malformed(f"\"points\" must be a whole number of at least 0, not {ev.get('points')!r}")
    if pts > most:  # a typo (or a log edited wrong): no hand holds more
        raise _Reject(f"{pts} points is more than a hand can score (at most {most})")
    return pts


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class Table:
    """A referee: table events in, state out. Pure: no I/O, no clock, no hidden randomness."""

    def __init__(self) -> None:
        self._events: list[Any] = []
        self._parsed: list[dict | None] = []
        self._effective: list[int] = []       # indices of accepted events still in effect
        self._lasting: list[dict] = []         # rejected and undone notices survive undo
        self._malformed: list[int] = []        # lines no table writes (`malformed`)
        self._notices: list[dict] = []         # notices of the events in effect
        self._out: list[dict] = []
        self._cur = 0
        self._fix: dict[int, str] = {}         # corrected cards by event index
        self._laid_by: dict[int, str] = {}     # plays corrected to another player's (a jump-in), by index
        self._new_game([], Rules())
        self._phase = "game"

    # ------------------------------------------------------------------ public API
    def push(self, event: dict | str) -> list[dict]:
        """Apply one table-log line; return the notices it produced (never raises)."""
        events = self._events
        self._cur = idx = len(events)
        events.append(event)
        out: list[dict] = []
        self._out = out
        ev: dict | None
        if type(event) is dict:
            ev = event
        else:
            try:
                ev = self._parse(event)
            except _Reject as exc:
                self._parsed.append(None)
                self._malformed.append(idx)
                self._reject(idx, None, str(exc))
                return out
        self._parsed.append(ev)
        if ev is None:  # a blank line: counted, not an event
            return out
        try:
            try:
                handler = _HANDLERS[ev["type"]]
            except (KeyError, TypeError):  # no "type", or not a known name
                handler = None
            if handler is None or self._phase == "game":
                handler = self._handler(ev)
            handler(self, ev, False)
            if self._elim is not None:
                self._check_out()
        except _Reject as exc:
            del out[:]
            if isinstance(exc, _Malformed):
                self._malformed.append(idx)
            self._reject(idx, ev, str(exc))
            return out
        except Exception as exc:  # a bug: never lose the game, rebuild without this line
            self._rebuild(self._effective)
            self._out = out = []
            self._reject(idx, ev, f"internal error ({type(exc).__name__}: {exc}); event ignored")
            return out
        if handler is not _H_UNDO:
            self._effective.append(idx)
        return out

    @property
    def malformed(self) -> tuple[int, ...]:
        """The lines (indices) rejected for their form, not for the moment: not JSON, no known
        type, a field missing or of the wrong kind, a card or colour outside the vocabulary. A
        table never writes one; a log that has one was damaged or written by hand wrong."""
        return tuple(self._malformed)

    def check(self, event: dict | str) -> str | None:
        """Why `event` would be rejected, or None; changes nothing."""
        try:
            ev = self._parse(event)
            if ev is None:
                return "blank line"
            saved = self._out, self._cur
            self._out = []
            try:
                self._handler(ev)(self, ev, True)
            finally:
                self._out, self._cur = saved
        except _Reject as exc:
            return str(exc)
        return None

    def fits(self, event: dict | str) -> bool:
        """Whether `event` would be accepted and, if it is a play, be legal (no `illegal_play`
        notice); changes nothing. The referee service weighs the camera's readings with it."""
        if self.check(event) is not None:
            return False
        ev = self._parse(event)
        if ev is None or ev.get("type") != "play":
            return True
        names = self._laid_cards(ev)
        _, accept, _, _, pending, _, actor = self._pre_turn(ev, names[0])
        player = self._player(ev, required=False)
        if player is not None and player != actor:
            return True  # an accepted jump-in: the identical card, always legal
        if self._blocked_finish(actor, names) is not None:
            return False
        return (bool(pending) and not accept) or playable(names[0], self._top, self._color)

    def answers(self, card: str) -> bool:
        """Whether `card`, laid now by the player a pending penalty is on, answers it (stacks,
        deflects or reflects); False with nothing pending or for a name that is no card."""
        return bool(self._pending) and card in INFO and self._answers(card)

    @property
    def events(self) -> list:
        """Every line pushed, in order (index = a notice's `event`)."""
        return self._events

    @property
    def in_effect(self) -> list[int]:
        """The indices of the accepted events still in effect (not refused, not undone): the
        lines a `correct` may name."""
        return list(self._effective)

    @property
    def rules(self) -> Rules:
        return self._rules

    @property
    def waiting_for(self) -> str:
        return self._phase

    @property
    def state(self) -> dict:
        """The table-log.md state object plus the extension keys."""
        names = self._names
        name = self._name
        return {
            "players": [
                {"name": names[i], "cards": self._cards[i], "score": self._scores[i],
                 "hands_won": self._hands_won[i]}
                for i in range(self._n)
            ],
            "dealer": name(self._dealer),
            "turn": name(self._turn_of_state()),
            "direction": "clockwise" if self._dir == 1 else "counterclockwise",
            "top": self._top,
            "color": self._color,
            "waiting_for": self._phase,
            "hand_winner": name(self._hand_winner),
            "game_winner": name(self._game_winner),
            "notices": [dict(x) for x in heapq.merge(self._notices, self._lasting, key=_event_of)],
            "rules": self._rules.as_dict(),
            "hand": self._hand,
            "draw_pile": self._draw_pile,
            "discard_pile": len(self._pile) + self._hidden,
            "pile": list(self._pile),
            "pending_draw": self._pending,
            "uno_window": name(self._uno_window()),
            "drawn": self._drawn,
            "history": [
                {"hand": h["hand"], "winner": h["winner"], "points": dict(h["points"])}
                for h in self._history
            ],
            "teams": self._teams_state(),
            "out": [names[i] for i in sorted(self._gone)],
            # themed cards (README, "Themed decks and cards")
            "side": self._face if self._flip_deck else None,
            "colors": list(SIDE_COLORS[self._face]),
            "turned_by": name(self._turned_by),
            "second_card": None if self._second is None else
            {"player": name(self._turn), "color": self._second},
            "draw_until": None if self._until is None else
            {"player": names[self._until[0]], "color": self._until[1]},
            "placings": [names[i] for i in self.placings()] if self._phase == "game_over" else [],
            # each one's place, as `placings` orders them: players (partners, teams) level on
            # points and every tie-break share one (1, 2, 2, 4), the league's points too
            "places": self._places_in_order() if self._phase == "game_over" else [],
            "stands_for": name(self._stands_for()),
            # the colour still in force under an illegal card waiting to be taken back (`color`
            # is the top card's, the wrong one's): what the table must go on showing
            "color_under": self._prev_color if self._phase == "take_back" else None,
            # jump_in: the card a player may jump in with now (the top card, while a twin of it is
            # still off the pile), else null: a red 0 has none, nor a 5 whose twin is laid
            "jump_card": self._top if (self._rules.jump_in and self._phase == "play" and not self._pending
                                       and self._top is not None
                                       and self._seen.get(self._top, 0) < self._deck.get(self._top, 0)) else None,
            "points_due": [names[q] for q in self._scorers() if q not in self._owed]
            if self._phase == "scores" else [],
        }

    def placings(self) -> list[int]:
        """Seats from first to last by the game's scoring and tie-breaks (league night's
        victory points follow them); teams place by their totals, partners together."""
        if self._team is not None:
            order = placings(self._rules, *self._team_totals())
            return [i for k in order for i in self._members(k)]
        return placings(self._rules, self._scores, self._hands_won, self._end_cards,
                        self._last_draw)

    def _places_in_order(self) -> list[int]:
        place = self.places()
        return [place[i] for i in self.placings()]

    def places(self) -> list[int]:
        """Each seat's place, 1 for the first; level players (teams) share one."""
        if self._team is not None:
            team = places(self._rules, *self._team_totals())
            return [team[self._team[i]] for i in range(self._n)]
        return places(self._rules, self._scores, self._hands_won, self._end_cards, self._last_draw)

    def _teams_state(self) -> list[dict]:
        if self._team is None:
            return []
        scores, won = self._team_totals()[:2]
        return [{"name": self._team_name(k), "players": [self._names[i] for i in self._members(k)],
                 "score": scores[k], "hands_won": won[k]} for k in range(2)]

    # ------------------------------------------------------------------ plumbing
    def _name(self, i: int | None) -> str | None:
        return None if i is None else self._names[i]

    def _turn_of_state(self) -> int | None:
        if self._phase in ("game", "deal", "flip", "scores", "game_over"):
            return None
        return self._turn

    def _live_window(self) -> int | None:
        """The player whose UNO window is open, while they still hold one card: a window left
        over by a hand that grew again (a challenge upheld, their own draw after a skip, a swap)
        takes no call and no buzzer press."""
        w = self._window
        return w if w is not None and self._cards[w] == 1 else None

    def _uno_window(self) -> int | None:
        w = self._live_window()
        if w is not None:
            return w
        t = self._turn
        if self._phase == "play" and t is not None and self._cards[t] == 2 and not self._pending:
            return t
        # a victim who may answer the pending draw is on turn, and may call before answering
        if (self._pending and self._rules.answerable and self._phase in ("play", "challenge")
                and t is not None and self._cards[t] == 2):
            return t
        return None

    @staticmethod
    def _parse(event: object) -> dict | None:
        if isinstance(event, str):
            if not event.strip():
                return None
            try:
                event = json.loads(event)
            except json.JSONDecodeError as exc:
                raise _Malformed(f"not JSON: {exc.msg} (column {exc.colno})") from None
            except (ValueError, RecursionError):
                raise _Malformed("not JSON") from None
        if not isinstance(event, dict):
            raise _Malformed("an event must be a JSON object with a \"type\"")
        return event

    def _handler(self, ev: dict) -> Callable[["Table", dict, bool], None]:
        kind = ev.get("type")
        handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
        if handler is None:
            if not isinstance(kind, str):
                raise _Malformed("missing event \"type\"")
            raise _Malformed(f"unknown event type {kind!r}{hint(kind, EVENT_TYPES, few=len(EVENT_TYPES))}")
        if kind != "game" and self._phase == "game" and kind not in ("undo",):
            raise _Reject(f"no game yet: a {kind!r} needs a \"game\" event first")
        return handler

    def _reject(self, idx: int, ev: dict | None, message: str) -> None:
        who = None
        if ev is not None:
            who = ev.get("player") if isinstance(ev.get("player"), str) else ev.get("by")
        if not isinstance(who, str):
            who = self._name(self._turn_of_state())
        note = {"event": idx, "kind": "rejected", "player": who, "message": message}
        self._lasting.append(note)
        self._out.append(note)

    def _note(self, kind: str, player: int | str | None, message: str) -> None:
        """A notice about seat `player`, or about a player named (one no longer seated: who left,
        whose hand before they left is fixed)."""
        name = self._names[player] if isinstance(player, int) else player
        note = {"event": self._cur, "kind": kind, "player": name, "message": message}
        self._notices.append(note)
        self._out.append(note)

    def _readings(self, ev: dict) -> list[tuple[str, float]] | None:
        """The optional `read` of a flip or play: the camera's readings, [[card, probability], ...]."""
        read = ev.get("read")
        if read is None:
            return None
        bad = _Malformed("\"read\" must be a list of [card, probability] pairs")
        if not isinstance(read, list) or not read:
            raise bad
        out = []
        for pair in read:
            if not isinstance(pair, (list, tuple)) or len(pair) != 2:
                raise bad
            name, p = pair
            if not isinstance(name, str) or name not in INFO:
                raise _Malformed(f"unknown card {name!r} in \"read\"")
            if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 <= p <= 1.0:
                raise bad
            out.append((name, float(p)))
        return out

    def _note_reading(self, read: list[tuple[str, float]] | None, card: str, player: int | None) -> None:
        """Say that the referee named the card otherwise than the camera's likeliest reading."""
        names = [name for name, _ in read or ()]
        if card not in names or names[0] == card:
            return  # nothing was chosen over the likeliest reading (or a host corrected it since)
        said = " or ".join(f"{name} ({p:.2f})" for name, p in read or ())
        self._note("reading", player, f"read as {said}: {card} fits the table")

    def _player(self, ev: dict, key: str = "player", required: bool = True) -> int | None:
        value = ev.get(key)
        if value is None:
            if required:
                raise _Malformed(f"missing \"{key}\"")
            return None
        i = self._index.get(value) if isinstance(value, str) else None
        if i is None:
            raise _Reject(f"unknown player {value!r}{hint(value, self._names, few=10, fold=False)}")
        return i

    def _card(self, value: Any) -> str:
        if not isinstance(value, str) or value not in INFO:
            if value is None:
                raise _Malformed("missing \"card\"")
            raise _Malformed(unknown_card(value))
        if value not in self._deck:
            raise _Malformed(f"{value} is not in the {self._rules.deck} deck")
        return value

    def _colour(self, value: Any) -> str:
        allowed = SIDE_COLORS[self._face]
        if not isinstance(value, str) or value not in allowed:
            if value is None:
                raise _Malformed("missing \"color\"")
            if value in _COLOR_SET and self._flip_deck:  # a colour of UNO Flip's other side
                raise _Reject(f"the {self._face} side is in play: name {', '.join(allowed)}, "
                              f"not {value}")
            raise _Malformed(f"unknown colour {value!r}{hint(value, allowed)}")
        return value

    def _in_play(self, card: str) -> str:
        """`card`, if its face belongs to the UNO Flip side in play."""
        if SIDE[card] != self._face:
            raise _Reject(f"the {self._face} side is in play: {card} is a {SIDE[card]}-side "
                          f"face ({', '.join(SIDE_COLORS[self._face])})")
        return card

    def _expect(self, *phases: str) -> None:
        if self._phase not in phases:
            raise _Reject(not_now(self._phase))

    # ------------------------------------------------------------------ game state
    def _new_game(self, names: list[str], rules: Rules) -> None:
        self._names = list(names)
        self._index = {p: i for i, p in enumerate(names)}
        self._n = n = len(names)
        self._rules = rules
        self._deck = rules.deck_counts
        self._effects = effects = effects_for(rules)  # every symbol's effect at this table
        # coloured cards of this deck a plain play can apply directly: (colour, action or
        # None for a number, copies in the deck); a card with an `action` (seven_zero's 7 and
        # 0 move hands) takes the full path
        self._fast_cards = {
            c: (INFO[c][0], None if INFO[c][1].isdigit() else INFO[c][1], k)
            for c, k in self._deck.items()
            if INFO[c][0] is not None and effects[INFO[c][1]].action is None
            and INFO[c][1] in _CLASSIC_SYMBOLS
        }
        self._flip_deck = rules.deck == "flip"
        self._points = {c: points(c, rules.deck) for c in self._deck}
        self._fast_all = self._fast_cards
        self._d2_waits = rules.draw_two_waits   # a draw two waits for an answer (stack, deflect)
        self._elim = rules.elimination
        self._finish_rules = rules.no_action_finish or rules.no_wild_finish
        self._fast_draw = rules.hand_limit is None
        self._team: list[int] | None = [i % 2 for i in range(n)] if rules.teams else None
        self._deck_size = rules.deck_size
        self._cards = [0] * n
        self._scores = [0] * n
        self._hands_won = [0] * n
        self._last_draw = [0] * n        # draw sequence number of each player's last draw
        self._draw_seq = 0
        self._end_cards = [0] * n        # cards held at the end of the last hand (tie-break)
        self._history: list[dict] = []
        self._by_draw: dict[int, int] = {}  # dealer by draw: each drawer's card this round
        self._draw_among: list[int] | None = None  # who draws this round (None: everyone; then the tied)
        self._dealer: int | None = None
        self._hand = 0
        self._game_winner: int | None = None
        self._phase = "deal"
        self._reset_hand()
        self._draw_pile = self._deck_size

    def _reset_hand(self) -> None:
        self._turn: int | None = None
        self._dir = 1
        self._top: str | None = None
        self._color: str | None = None
        self._pile: list[str] = []
        self._seen: dict[str, int] = {}   # counts of each card on the pile since the reshuffle
        self._pending = 0
        self._window: int | None = None  # player who went down to one card by a play
        self._window_called = False
        self._caller: int | None = None  # turn player who called UNO holding two cards
        self._drawn = False
        self._hand_winner: int | None = None
        self._await: str | None = None   # the wild awaiting its colour / target, or "seven"
        self._from_flip = False
        self._stacked = False            # the wild draw four awaiting colour answered a stack
        self._swap_target: int | None = None
        self._offender: int | None = None
        self._victim: int | None = None
        self._before_color: str | None = None  # colour in force before the wild draw four
        self._owed: dict[int, int] = {}  # scores phase: points entered per loser
        self._prev_color: str | None = None  # colour before an illegal play (take back)
        self._laid = 1                   # cards the illegal play put on the pile (take back)
        self._stack_top: str | None = None  # the draw card under deflects, while one pends
        self._stall: tuple[int, int, int] = (-1, -1, 0)  # hand_limit: passes with no play or draw
        self._gone: set[int] = set()      # players eliminated from this hand
        self._double = False             # this hand's points count double (double_score)
        self._fast_cards = self._fast_all
        # themed cards (rules.md, "Themed decks and cards")
        self._face = "light"             # the UNO Flip side in play (every hand starts light)
        self._hidden = 0                 # pile cards under `_pile` whose faces a flip turned away
        self._turned_by: int | None = None  # played a Flip: the new top of the pile is awaited
        self._second: str | None = None  # a discard two's colour: its second card is awaited
        # a draw until a colour owed: (who draws, the colour or "gryffindor", who plays next)
        self._until: tuple[int, str, int] | None = None
        self._challenged: str | None = None  # the wild draw card awaiting challenge / verdict
        self._fast_draw = self._rules.hand_limit is None

    def _step(self, t: int, k: int = 1) -> int:
        return self._next(t, self._dir, k)

    def _next(self, t: int, d: int, k: int = 1) -> int:
        """The k-th seat after t in direction d, skipping players out of the hand."""
        n = self._n
        out = self._gone
        if not out:
            return (t + k * d) % n
        for _ in range(k):
            t = (t + d) % n
            for _ in range(n):
                if t not in out:
                    break
                t = (t + d) % n
        return t

    def _prev(self, t: int, d: int) -> int:
        return self._next(t, -d)

    def _set_turn(self, t: int) -> None:
        if t != self._turn:
            self._drawn = False
            if self._caller != t:  # a call made for this coming turn still counts
                self._caller = None
        self._turn = t

    def _advance(self, t: int, k: int = 1) -> None:
        self._phase = "play"
        self._drawn = False
        self._turn = nt = (t + k * self._dir) % self._n if not self._gone else self._next(t, self._dir, k)
        if self._caller != nt:  # a call made for this coming turn still counts
            self._caller = None

    def _draw(self, p: int, k: int) -> int:
        """Move up to k cards from the draw pile to p's hand, reshuffling when it runs short."""
        keep = self._kept()
        if self._draw_pile < k and len(self._pile) + self._hidden > keep:
            kept = self._pile[-keep:]
            self._draw_pile += len(self._pile) - keep + self._hidden
            self._hidden = 0
            self._pile = kept
            self._seen = {}
            for card in kept:
                self._seen[card] = self._seen.get(card, 0) + 1
            self._note("reshuffle", None, "draw pile empty: the discard pile except its top card "
                       + ("and the card under it (the top one waits to be taken back) " if keep == 2 else "")
                       + "is shuffled into a new draw pile")
        got = k if k <= self._draw_pile else self._draw_pile
        self._draw_pile -= got
        self._cards[p] += got
        self._draw_seq += 1
        self._last_draw[p] = self._draw_seq
        return got

    def _available(self) -> int:
        return self._draw_pile + max(len(self._pile) + self._hidden - self._kept(), 0)

    def _kept(self) -> int:
        """Cards a reshuffle leaves on the discard pile: its top, and while an illegal card waits
        to be taken back the card under it too (it is the top again once the card goes back;
        shuffled in, the pile was left with no top card)."""
        return 2 if self._phase == "take_back" and len(self._pile) >= 2 else 1

    def _penalty(self, p: int, k: int, kind: str, why: str) -> None:
        if k <= 0:  # a table that set the penalty to 0
            return
        got = self._draw(p, k)
        short = "" if got == k else f" (only {got} left)"
        self._note(kind, p, f"{self._names[p]} {why}: draws {k}{short}")

    def _land(self, p: int, card: str) -> None:
        self._cards[p] -= 1
        self._pile.append(card)
        self._seen[card] = self._seen.get(card, 0) + 1
        self._top = card
        self._color = INFO[card][0]

    def _close_window(self, actor: int) -> None:
        """`actor` began a turn: another player's UNO window closes (auto catch by default)."""
        w = self._window
        if w is not None and w != actor:
            self._window = None
            if not self._window_called and self._cards[w] == 1 and self._rules.uno_catch == "auto":
                self._penalty(w, self._rules.uno_penalty, "uno_penalty", "did not call UNO")

    # ------------------------------------------------------------------ card effects
    # What a card does is its `Effect` (companion/referee/effects.py); the methods below apply one.
    def _coloured_effect(self, sym: str, t: int, d: int, pending: int) -> tuple[int, int, int, int | None]:
        """Where play goes after a coloured card by t: (turn, direction, pending, the victim
        who draws at once). Seats step over players out of the hand."""
        e = self._effects[sym]
        nxt = self._next
        if e.reverse:
            d = -d
            if self._n - len(self._gone) == 2:  # two players in: a reverse acts as a skip
                return t, d, pending, None
        if e.draws:
            v = nxt(t, d)
            if e.waits and self._d2_waits:  # the victim may answer it: the cards wait
                return v, d, pending + e.draws, None
            return nxt(t, d, e.step), d, 0, v
        return nxt(t, d, e.step), d, pending, None

    def _answers(self, card: str) -> bool:
        """Whether `card` answers the pending penalty: stacking (the same kind of draw card;
        `cross`: either kind, a draw two of the colour in force), deflecting (a reverse or
        skip of the colour in force) or reflecting."""
        top = self._stack_top or self._top  # a deflect card on top leaves the draw card in force
        if top is None:
            return False
        c, sym = INFO[card]
        e, rules, top_sym = self._effects[sym], self._rules, INFO[top][1]
        if e.reflects:
            return rules.mario_reflect > 0 and self._effects[top_sym].reflectable
        if e.deflects:
            return c == self._color and rules.deflects(sym)
        if rules.stacking == "cross":
            return e.stacks and (c is None or c == self._color or sym == top_sym)
        return sym == top_sym and rules.stacks(sym)

    def _needs_target(self, card: str | None) -> bool:
        """Whether the wild awaiting its colour names a player too (wild swap hands)."""
        e = self._effects.get(card) if card is not None else None
        return e is not None and e.target

    def _after_wild(self, t: int) -> None:
        """The wild awaiting colour/target is complete: apply its effect."""
        card = self._await
        self._await = None
        if self._from_flip:  # the first card of the hand: its colour is all it does
            self._from_flip = False
            self._phase = "play"
            return
        e = self._effects.get(card) if card is not None else None
        if e is None:  # a wild face a Flip turned up ("turned"): its effect does not apply
            self._advance(t)
            return
        if e.action is not None:
            _ACTIONS[e.action](self, t, card)  # type: ignore[arg-type]
            return
        if e.draws:  # the customizable card's draw three: no challenge
            self._penalty(self._step(t), e.draws, "penalty_draw", f"is hit by {e.hit_by}")
        self._advance(t, e.step)

    # ---------------------------------------------------------------- card actions, one each
    # `Effect.action` names one of these (`_ACTIONS`); each is (player, card) and moves play.
    def _play_wild_draw(self, t: int, card: str) -> None:
        """Wild draw four / Wild Draw Two / Wild Draw Colour, colour named: the next player may
        challenge (the restriction is the wild draw four's); Wild Draw Colour's victim owes a
        draw until the colour named, reported by count. One laid on a stack adds its cards and
        the stack goes on."""
        e = self._effects[card]
        if self._stacked:
            self._pending += e.draws
            self._advance(t)
            return
        victim = self._step(t)
        self._challenged = card
        self._offender = t
        self._phase = "challenge"
        self._set_turn(victim)
        if e.draws_until is not None:  # "named": the colour this wild named
            self._pending = 0
            self._owe_until(victim, self._color, self._step(victim))  # type: ignore[arg-type]
            self._phase = "challenge"
        else:
            self._pending = e.draws

    def _play_dementor(self, t: int, card: str) -> None:
        """Dementor, colour named: the next player draws until a Gryffindor card (the table
        reports how many) and loses the turn."""
        victim = self._step(t)
        self._set_turn(victim)
        self._phase = "play"
        self._owe_until(victim, self._effects[card].draws_until, self._step(victim))  # type: ignore[arg-type]

    def _play_shuffle_hands(self, t: int, card: str) -> None:
        """Wild shuffle hands: every hand in is gathered and dealt out from the next player on,
        so the counts even out."""
        seats = self._shuffle_order(t)
        total = sum(self._cards[i] for i in seats)
        base, extra = divmod(total, len(seats))
        for k, i in enumerate(seats):
            self._cards[i] = base + (1 if k < extra else 0)
        self._note("hands_shuffled", t, "every hand is gathered and dealt out again")
        self._advance(t)

    def _play_swap_hands(self, t: int, card: str) -> None:
        """Wild swap hands: the player and the target swap hands."""
        o = self._swap_target
        self._swap_target = None
        assert o is not None
        self._swap(t, o)
        self._advance(t)

    def _swap(self, t: int, o: int) -> None:
        """`t` and `o` swap hands (wild swap hands, seven_zero's 7), and the table hears it."""
        self._cards[t], self._cards[o] = self._cards[o], self._cards[t]
        self._note("hands_swapped", t, f"{self._names[t]} swaps hands with {self._names[o]}")

    def _play_seven(self, actor: int, card: str) -> None:
        """seven_zero's 7: the player names whom to swap hands with (`target`)."""
        self._await = "seven"
        self._phase = "target"

    def _play_zero(self, actor: int, card: str) -> None:
        """seven_zero's 0: every hand in moves one seat on, in the direction of play."""
        seats = [i for i in range(self._n) if i not in self._gone]
        old = [self._cards[i] for i in seats]
        m = len(seats)
        for j in range(m):
            self._cards[seats[(j + self._dir) % m]] = old[j]
        way = "clockwise" if self._dir == 1 else "counterclockwise"
        self._note("hands_passed", actor, f"every hand passes one seat on ({way})")
        self._advance(actor)

    def _owe_until(self, who: int, colour: str, then: int) -> None:
        """`who` must report a draw until `colour` (`draw` with `count`); `then` plays next."""
        self._until = (who, colour, then)
        self._phase = "play"
        self._turn = who
        self._drawn = False
        self._fast_cards, self._fast_draw = {}, False

    def _settle_until(self, ev: dict, dry: bool) -> None:
        """The `draw` of a player who owes a draw until a colour: `count` cards, all of them."""
        assert self._until is not None
        who, colour, then = self._until
        p = self._player(ev, required=False)
        if p is not None and p != who:
            raise _Reject(f"{self._names[who]} draws until {_until_text(colour)} first, not "
                          f"{self._names[p]}")
        count = ev.get("count", 1)
        if _int(count) is None or count < 1:
            raise _Malformed(f"\"count\" must be a whole number of at least 1, not {count!r}")
        if count > self._available():
            raise _Reject(f"only {self._available()} cards are left to draw, not {count}")
        if dry:
            return
        self._end_until()
        self._close_window(who)
        got = self._draw(who, count)
        self._note("penalty_draw", who, f"{self._names[who]} drew {got} until "
                   f"{_until_text(colour)}")
        self._after_until(who, then)

    def _after_until(self, who: int, then: int) -> None:
        self._phase = "play"
        self._set_turn(then)

    def _end_until(self) -> None:
        self._until = None
        self._offender = self._challenged = None
        if self._phase == "challenge":
            self._phase = "play"
        self._fast_cards = self._fast_all if not self._gone else {}
        self._fast_draw = self._rules.hand_limit is None

    def _reflect(self, actor: int, pending: int) -> None:
        """Super Mario reflect, laid by the victim of a draw two / wild draw four: whoever laid
        the draw card draws the pending cards instead; the reflecting player names the colour
        and play goes on from them."""
        src = self._offender if self._offender is not None else self._prev(actor, self._dir)
        self._offender = self._challenged = None
        self._pending = 0
        self._stack_top = None
        self._penalty(src, pending, "reflect", f"is sent back the {pending} cards by "
                      f"{self._names[actor]}'s reflect card")

    def _play_flip(self, actor: int, card: str) -> None:
        """A Flip: pile, draw pile and hands are turned over; the other side is in play and the
        new top (the camera's next `flip`) is the card to match. Hand sizes do not change."""
        self._face = "dark" if self._face == "light" else "light"
        self._turned_by = actor
        self._turn = actor
        self._phase = "flip"
        self._fast_cards = {}

    def _turn_over(self, ev: dict, dry: bool) -> None:
        """The `flip` after a Flip: the new top of the turned pile (its former bottom card).
        Its effect does not apply; a wild face needs a colour from the player who flipped."""
        card = self._in_play(self._card(ev.get("card")))
        read = self._readings(ev)
        if dry:
            return
        t = self._turned_by
        assert t is not None
        self._note_reading(read, card, t)
        self._turned_by = None
        self._hidden += len(self._pile) - 1   # the rest of the pile shows faces unseen
        self._pile = [card]
        self._seen = {card: 1}
        self._top, self._color = card, INFO[card][0]
        self._fast_cards = self._fast_all if not self._gone else {}
        if self._color is None:
            self._await = "turned"
            self._from_flip = False
            self._phase = "color"
            return
        self._advance(t)

    def _play_discard_two(self, actor: int, card: str) -> None:
        """Discard two: the same player lays a second card of its colour (its effect does not
        apply), or passes when they hold none (laid alone)."""
        self._second = INFO[card][0]
        self._phase = "play"
        self._set_turn(actor)
        self._drawn = False  # a drawn discard two played: the pass fast path must not fire
        self._fast_cards, self._fast_draw = {}, False

    def _second_card(self, ev: dict, dry: bool) -> None:
        """The `play` of a discard two's second card: any card of its colour, no effect."""
        t = self._turn
        assert t is not None and self._second is not None
        card = self._in_play(self._card(ev.get("card")))
        p = self._player(ev, required=False)
        if p is not None and p != t:
            raise _Reject(f"{self._names[t]} lays the discard two's second card, not {self._names[p]}")
        if INFO[card][0] != self._second or "cards" in ev:
            raise _Reject(f"the second card of a discard two is one {self._second} card, not "
                          f"{card} (or pass: the discard two is laid alone)")
        if ev.get("color") is not None:
            raise _Reject(f"a colour is named only for wild cards, not {card}")
        if self._seen.get(card, 0) >= self._deck[card]:
            raise _Reject(f"the deck holds only {self._deck[card]} {card}: check the card")
        blocked = self._blocked_finish(t, [card]) if self._finish_rules else None
        if blocked is not None:  # a last card the table's options forbid, second card or not
            raise _Reject(f"{self._names[t]} cannot go out on {card} ({blocked}): lay another "
                          f"{self._second} card, or pass")
        if dry:
            return
        self._end_second()
        self._land(t, card)
        if self._cards[t] == 0:
            self._end_hand(t, card)
            return
        self._open_window(t, card)
        self._advance(t)

    def _end_second(self) -> None:
        self._second = None
        self._fast_cards = self._fast_all if not self._gone else {}
        self._fast_draw = self._rules.hand_limit is None

    def _shuffle_order(self, t: int) -> list[int]:
        """Seats dealt to by shuffle hands, from the next player on (players still in the hand)."""
        m = self._n - len(self._gone)
        return [self._next(t, self._dir, k + 1) for k in range(m)]

    # ------------------------------------------------------------------ handlers
    def _h_game(self, ev: dict, dry: bool) -> None:
        players = ev.get("players")
        if not isinstance(players, list) or not all(isinstance(p, str) and p.strip() for p in players):
            raise _Malformed("\"players\" must be a list of names, clockwise")
        if not 2 <= len(players) <= MAX_PLAYERS:
            raise _Reject(f"UNO needs 2 to {MAX_PLAYERS} players, not {len(players)}")
        # "Anna" and "anna" are refused where a game is set up (rules.names_differ), not here:
        # a stored game that has them must still replay
        if len(set(players)) != len(players):
            raise _Reject("player names must be different")
        try:
            rules = parse_rules(ev.get("rules"))
        except CompanionError as exc:
            raise _Reject(str(exc)) from None
        try:
            check_players(rules, len(players))  # teams, and the hands dealt out of the deck
        except CompanionError as exc:
            raise _Reject(str(exc)) from None
        if dry:
            return
        self._new_game(players, rules)

    def _h_deal(self, ev: dict, dry: bool) -> None:
        self._expect("deal")
        dealer = self._player(ev, "dealer", required=False)
        if dealer is None:
            if self._dealer is not None:
                dealer = self._step_dealer()
            elif self._rules.dealer_by_draw:
                dealer = self._dealer_by_draw()
            else:
                raise _Reject("the first hand needs a \"dealer\"")
        if dry:
            return
        self._reset_hand()
        self._dealer = dealer
        self._hand += 1
        hs = self._rules.hand_size
        self._cards = [hs] * self._n
        self._draw_pile = self._deck_size - hs * self._n
        self._phase = "flip"

    def _h_seats(self, ev: dict, dry: bool) -> None:
        """The players in a new clockwise order, while a deal is awaited (before the first
        hand or between hands): scores, hands won and the dealer stay with each person, and the
        next hand's dealer and turns follow the new order. A name new to the game joins it with
        no points; a name left out leaves it (the hands it played keep its points in `history`);
        with teams only before the first hand, when the new order makes the teams."""
        self._expect("deal")
        players = ev.get("players")
        if not isinstance(players, list) or not all(isinstance(p, str) and p.strip() for p in players):
            raise _Malformed("\"players\" must be a list of names, clockwise")
        if len(set(players)) != len(players):
            raise _Reject("player names must be different")
        team = self._team
        if sorted(players) != sorted(self._names):  # players join or leave
            if not 2 <= len(players) <= MAX_PLAYERS:
                raise _Reject(f"UNO needs 2 to {MAX_PLAYERS} players, not {len(players)}")
            if team is not None and self._hand > 0:
                raise _Reject("teams: the same players play the whole game (partners share a score); "
                              "start a new game for other players")
            try:
                check_players(self._rules, len(players))
            except CompanionError as exc:
                raise _Reject(str(exc)) from None
            if self._rules.dealer_by_draw and self._dealer is None and self._by_draw:
                raise _Reject("dealer by draw: the cards are being drawn; players join or leave before or after")
        elif team is not None and self._hand > 0:
            # partners keep each other mid-game, so they must still sit in alternate seats
            order = [self._index[p] for p in players]
            for k in range(self._n):
                a, b = order[k], order[(k + 1) % self._n]
                if team[a] == team[b]:
                    raise _Reject(f"teams: partners sit in alternate seats, not "
                                  f"{self._names[a]} beside {self._names[b]}")
        if dry:
            return
        self._reseat(players)

    def _reseat(self, players: list[str]) -> None:
        """Seat `players` clockwise: each person keeps their score, hands won and roles; a
        newcomer starts from nothing; a dealer who left hands the deal to the one before."""
        old = self._index
        joined = [p for p in players if p not in old]
        left = [p for p in self._names if p not in set(players)]
        order = [old.get(p) for p in players]  # new seat -> old seat, None for a newcomer
        where = {o: k for k, o in enumerate(order) if o is not None}
        for attr in ("_cards", "_scores", "_hands_won", "_last_draw", "_end_cards"):
            values = getattr(self, attr)
            setattr(self, attr, [0 if o is None else values[o] for o in order])
        dealer = self._dealer
        if dealer is not None:  # the next deal goes on round the table
            back = -1 if self._rules.dealer_rotation == "clockwise" else 1
            while dealer not in where:
                dealer = (dealer + back) % self._n
        for attr in ("_turn", "_hand_winner", "_game_winner", "_window", "_caller",
                     "_offender", "_victim", "_swap_target", "_turned_by"):
            seat = getattr(self, attr)
            setattr(self, attr, None if seat is None else where.get(seat))
        self._dealer = None if dealer is None else where[dealer]
        self._by_draw = {where[i]: v for i, v in self._by_draw.items() if i in where}
        self._draw_among = None if self._draw_among is None else [where[i] for i in self._draw_among if i in where]
        self._owed = {where[i]: v for i, v in self._owed.items() if i in where}
        self._gone = {where[i] for i in self._gone if i in where}
        if self._until is not None:
            who, colour, after = self._until
            self._until = (where[who], colour, where[after]) if who in where and after in where else None
        if self._team is not None:
            # mid-game partners stay together; before any hand the new order makes the teams
            team = self._team
            self._team = [team[o] for o in order] if self._hand > 0 else [k % 2 for k in range(len(players))]  # type: ignore[index]
        self._names = list(players)
        self._index = {p: k for k, p in enumerate(players)}
        self._n = len(players)
        for name in joined:
            self._note("joined", self._index[name], f"{name} joins the game with 0 points")
        for name in left:
            points = sum(h["points"].get(name, 0) for h in self._history)
            self._note("left", name, f"{name} leaves the game with {points} points")

    def _step_dealer(self) -> int:
        assert self._dealer is not None
        k = 1 if self._rules.dealer_rotation == "clockwise" else -1
        return (self._dealer + k) % self._n

    def _drawers(self) -> list[int]:
        return list(range(self._n)) if self._draw_among is None else self._draw_among

    def _draw_tie(self) -> list[int] | None:
        """The players level on the highest card once everyone of the round has drawn (they,
        and only they, draw again), else None."""
        among = self._drawers()
        if any(i not in self._by_draw for i in among):
            return None
        best = max(self._by_draw[i] for i in among)
        top = [i for i in among if self._by_draw[i] == best]
        return top if len(top) > 1 else None

    def _dealer_by_draw(self) -> int:
        missing = [self._names[i] for i in self._drawers() if i not in self._by_draw]
        if missing:
            raise _Reject(f"dealer by draw: waiting for a card from {', '.join(missing)}")
        top = self._draw_tie()
        if top is not None:
            raise _Reject(f"dealer by draw: {' and '.join(self._names[i] for i in top)} tie "
                          f"and draw again")
        return max(self._drawers(), key=lambda i: self._by_draw[i])

    def _h_flip(self, ev: dict, dry: bool) -> None:
        if self._turned_by is not None and self._phase == "flip":
            self._turn_over(ev, dry)
            return
        self._expect("flip")
        card = self._in_play(self._card(ev.get("card")))
        read = self._readings(ev)
        if self._draw_pile < 1:
            raise _Reject("the draw pile is empty")
        if dry:
            return
        self._note_reading(read, card, None)
        color, sym = INFO[card]
        opening = self._effects[sym].first  # one of effects.FIRST_CARD
        if (opening == "returned" or
                (self._rules.first_card == "number_only" and not sym.isdigit())):
            self._note("card_returned", None, f"{card} cannot start the pile: it goes back in "
                       "the deck; turn up another")
            return
        self._draw_pile -= 1
        self._pile.append(card)
        self._seen[card] = 1
        self._top, self._color = card, color
        assert self._dealer is not None
        first = (self._dealer + 1) % self._n
        self._dir = 1
        self._turn = None
        if opening == "draw":  # draw two (or UNO Flip's draw one)
            k = self._effects[sym].draws
            self._penalty(first, k, "penalty_draw", f"is hit by the first card's {sym.replace('_', ' ')}")
            self._set_turn(first)
            self._advance(first)
        elif opening == "reverse":
            self._dir = -1
            self._set_turn(self._dealer)
            self._phase = "play"
        elif opening == "skip":
            self._set_turn(first)
            self._advance(first)
        elif opening == "colour":
            self._set_turn(first)
            self._await = card
            self._from_flip = True
            self._phase = "color"
        else:
            self._set_turn(first)
            self._phase = "play"

    def _pre_turn(self, ev: dict, playing: str | None) -> tuple[bool, bool, int, int, int, int | None, int]:
        """Resolve what a play/draw implies before it is applied, without changing anything.

        Returns (stand, accept, turn, direction, pending, draw-two victim of the standing card,
        actor): an illegal card still on the pile stands; a pending penalty not answered is
        taken by its victim; the play or draw then belongs to the next player.
        """
        phase = self._phase
        if phase not in ("play", "challenge", "take_back"):
            raise _Reject(not_now(phase))
        t = self._turn
        assert t is not None
        d, pending, stand, accept, victim = self._dir, self._pending, False, False, None
        if phase == "take_back":
            stand = True
            t, d, pending, victim = self._standing()
        # (a standing illegal draw two is still the top card, so _answers sees it)
        if pending and not (playing is not None and self._answers(playing)):
            accept = True
            t = self._next(t, d)
        return stand, accept, t, d, pending, victim, t

    def _standing(self) -> tuple[int, int, int, int | None]:
        """Where play goes if the illegal card waiting to be taken back is left standing (as
        `_coloured_effect`); rejected when it may not stand."""
        t = self._turn
        assert t is not None and self._top is not None
        if self._cards[t] == 0:
            raise _Reject(f"{self._names[t]}'s illegal last card must be taken back first")
        if self._effects[INFO[self._top][1]].must_take_back:
            raise _Reject(f"{self._names[t]}'s illegal {self._top} must be taken back first: "
                          f"its effect cannot stand")
        return self._coloured_effect(INFO[self._top][1], t, self._dir, 0)

    def _stands_for(self) -> int | None:
        """While an illegal card waits to be taken back: the player whose play or draw leaves
        it standing (None when it may not stand, or would leave a penalty to answer)."""
        if self._phase != "take_back":
            return None
        try:
            t, _, pending, _ = self._standing()
        except _Reject:
            return None
        return None if pending else t

    def _h_play(self, ev: dict, dry: bool) -> None:
        card = ev.get("card")
        if not dry and self._phase == "play" and not self._pending and len(ev) == 2:
            # the common case, applied directly: a legal coloured card by the player on turn
            # that does not end the hand (anything else takes the full path below)
            fast = self._fast_cards.get(card) if type(card) is str else None
            t = self._turn
            cards = self._cards
            if fast is not None and cards[t] > 1:  # type: ignore[index]
                top, color = self._top, self._color
                ok = _PLAYABLE.get((top, color)) or playable_set(top, color)
                seen = self._seen
                k = seen.get(card, 0)  # type: ignore[arg-type]  # a str: `fast` was found
                c, sym, copies = fast
                if card in ok and k < copies:
                    cards[t] -= 1  # type: ignore[index]
                    self._pile.append(card)
                    seen[card] = k + 1
                    self._top = card
                    self._color = c
                    if self._window is not None:
                        self._close_window(t)  # type: ignore[arg-type]
                    if cards[t] == 1:  # type: ignore[index]  # down to one: UNO window opens
                        self._window = t
                        self._window_called = self._caller == t
                    self._drawn = False
                    self._caller = None
                    if sym is None:  # a number card
                        self._turn = (t + self._dir) % self._n  # type: ignore[operator]
                        return
                    nt, nd, np, nv = self._coloured_effect(sym, t, self._dir, 0)  # type: ignore[arg-type]
                    self._dir, self._pending = nd, np
                    if nv is not None:
                        e = self._effects[sym]
                        self._penalty(nv, e.draws, "penalty_draw", f"is hit by {e.hit_by}")
                    self._turn = nt
                    return
        if self._second is not None and self._phase == "play":
            self._second_card(ev, dry)
            return
        if self._until is not None and self._phase in ("play", "challenge"):
            who, colour, _ = self._until
            raise _Reject(f"{self._names[who]} must first draw until {_until_text(colour)}: "
                          f"say how many (draw with count)")
        if "cards" in ev:
            names = self._laid_cards(ev)
            card = names[-1]
        else:
            card = self._card(card)
            names = [card]
        for c in names:
            self._in_play(c)
        read = self._readings(ev)
        color, sym = INFO[card]
        eff = self._effects[sym]
        named = ev.get("color")
        if named is not None:
            if color is not None:
                raise _Reject(f"a colour is named only for wild cards, not {card}")
            named = self._colour(named)
        stand, accept, t, d, pending, victim, actor = self._pre_turn(ev, names[0])
        p = self._player(ev, required=False)
        jump = False
        if p is not None and p != actor:
            if not self._rules.jump_in:
                raise _Reject(f"it is {self._names[actor]}'s turn, not {self._names[p]}'s")
            if self._phase != "play":
                raise _Reject("jump-in only while a play is awaited")
            if pending:  # the phase is "play" then, but the play awaited is an answer
                raise _Reject(f"jump-in only while a play is awaited, not while {pending} cards are "
                              f"coming to {self._names[self._turn]}")
            if len(names) > 1:
                raise _Reject("jump-in lays one card, the identical one")
            if card != self._top:
                raise _Reject(f"jump-in needs the identical card: the top is {self._top}")
            if p in self._gone:
                raise _Reject(f"{self._names[p]} is out of this hand")
            jump, actor = True, p
        if self._cards[actor] < len(names):
            if self._cards[actor] < 1:
                raise _Reject(f"{self._names[actor]} holds no cards")
            raise _Reject(f"{self._names[actor]} holds only {self._cards[actor]} cards")
        if len(names) == 1:
            if self._seen.get(card, 0) >= self._deck[card]:
                raise _Reject(f"the deck holds only {self._deck[card]} {card}: check the card")
        else:
            for c in dict.fromkeys(names):  # in the order laid: a set's varies from run to run
                if self._seen.get(c, 0) + names.count(c) > self._deck[c]:
                    raise _Reject(f"the deck holds only {self._deck[c]} {c}: check the card")
        if dry:
            return
        self._note_reading(read, card, actor)
        answer = bool(pending) and not accept
        before_top, before_color = self._top, self._color
        if accept or (answer and not eff.deflects):
            self._stack_top = None
        blocked = self._blocked_finish(actor, names) if self._finish_rules else None
        legal = (answer or jump or playable(names[0], before_top, before_color)) and blocked is None
        if legal:
            for c in names:
                self._land(actor, c)
        if jump:  # play goes on from the jumper: the player skipped over must hear why
            self._note("jumped_in", actor, f"{self._names[actor]} jumped in with {card}")
        if stand:  # the illegal card counts as played, effects included
            self._stand(d, pending, victim, before_top)
        if accept:
            v = self._prev(t, d)
            self._pending = 0
            self._penalty(v, pending, "penalty_draw", "takes the pending cards and loses the turn")
            self._offender = None
            self._phase = "play"
        self._set_turn(actor)
        self._close_window(actor)
        if not legal:
            # lands after the penalties above: a reshuffle they cause keeps the card it was
            # played on, which a take-back must leave on top
            for c in names:
                self._land(actor, c)
            self._laid = len(names)
            self._prev_color = before_color
            self._phase = "take_back"
            self._open_window(actor, card)
            shown = ", ".join(names)
            if blocked is not None:
                why = (f"{self._names[actor]} cannot go out on {shown} ({blocked}): take it back "
                       f"and draw {self._rules.illegal_play_penalty}")
            else:
                why = (f"{self._names[actor]} cannot play {shown} on {before_top} ({before_color}): "
                       f"take it back and draw {self._rules.illegal_play_penalty}")
            self._note("illegal_play", actor, why)
            return
        if answer and eff.deflects:
            if self._stack_top is None:
                self._stack_top = before_top
            self._deflect(actor, eff, pending)
            return
        if answer and eff.reflects:
            self._reflect(actor, pending)
        if self._cards[actor] == 0:
            if eff.action == "flip":  # a last Flip still turns the cards: the hand scores on that side
                self._face = "dark" if self._face == "light" else "light"
            self._final_draw(actor, sym, answer)
            self._end_hand(actor, card)
            return
        self._open_window(actor, card)
        if color is None:  # a wild: its effect waits for the colour (and a target)
            self._await = card
            self._from_flip = False
            self._stacked = answer and not eff.reflects
            if eff.challenge:
                self._before_color = before_color
            self._phase = "color"
            if named is not None:
                self._color = named
                if eff.target:
                    self._phase = "target"
                else:
                    self._after_wild(actor)
            return
        if eff.action is not None:  # flip, discard two, seven_zero's 7 and 0
            _ACTIONS[eff.action](self, actor, card)
            return
        if answer:
            self._offender = None
        nt, nd, np, nv = self._coloured_effect(sym, actor, self._dir, self._pending if answer else 0)
        self._dir, self._pending = nd, np
        if nv is not None:
            self._penalty(nv, eff.draws, "penalty_draw", f"is hit by {eff.hit_by}")
        self._phase = "play"
        self._set_turn(nt)
        if nt == actor:  # 2-player skip/reverse/draw two: the same player plays again
            self._drawn = False
            self._caller = None

    def _stand(self, d: int, pending: int, victim: int | None, top: str | None) -> None:
        """An illegal card left standing takes effect (a draw card's victim draws), and the
        table is told: the take-back the feed asked for is off."""
        offender = self._turn
        self._note("illegal_stands", offender, f"{self._names[offender]}'s {top} stands: "  # type: ignore[index]
                   f"played on, no take-back and no penalty")
        self._dir, self._pending = d, pending
        if victim is not None:
            e = self._effects[INFO[top][1]]  # type: ignore[index]
            self._penalty(victim, e.draws, "penalty_draw", f"is hit by {e.hit_by}")
        self._phase = "play"

    def _laid_cards(self, ev: dict) -> list[str]:
        """The cards a play lays, in order: `card`, or `multiple_play`'s `cards` (same number;
        `card`, if given, is the last of them: the new top card)."""
        laid = ev.get("cards")
        if laid is None:
            return [self._card(ev.get("card"))]
        if not self._rules.multiple_play:
            raise _Reject("several cards in one play need the multiple_play option")
        if not isinstance(laid, list) or not laid:
            raise _Malformed("\"cards\" must be a list of card names")
        names = [self._card(c) for c in laid]
        if ev.get("card") is not None and self._card(ev.get("card")) != names[-1]:
            raise _Reject("\"card\" must be the last of \"cards\" (the card left on top)")
        if len(names) > 1:
            syms = {INFO[c][1] for c in names}
            if len(syms) != 1 or not names[0][-1].isdigit():
                raise _Reject(f"multiple play lays cards of one number, not {', '.join(names)}")
        return names

    def _blocked_finish(self, actor: int, names: list[str]) -> str | None:
        """The option (no_action_finish, no_wild_finish) that forbids going out on this play."""
        if self._cards[actor] != len(names):
            return None
        c, sym = INFO[names[-1]]
        return self._rules.finish_forbidden(sym, c is None)

    def _deflect(self, actor: int, eff: Effect, pending: int) -> None:
        """A reverse or skip of the colour in force sends the pending draw on (`deflect`)."""
        d = -self._dir if eff.reverse else self._dir
        self._dir = d
        self._offender = None
        self._pending = pending
        nt = self._next(actor, d)
        if self._cards[actor] == 0:  # went out on it: the cards still go on, and count
            self._pending = 0
            self._penalty(nt, pending, "penalty_draw", "is sent the pending cards")
            self._end_hand(actor, self._top)  # type: ignore[arg-type]
            return
        self._open_window(actor, self._top)  # type: ignore[arg-type]
        self._note("deflect", nt, f"{self._names[actor]} sends the {pending} pending cards on to "
                   f"{self._names[nt]}")
        self._phase = "play"
        self._set_turn(nt)
    def _open_window(self, actor: int, card: str) -> None:
        called = self._caller == actor
        if called:  # a call counts for one play (a call made ahead survives turn changes)
            self._caller = None
        if self._cards[actor] != 1 or self._effects[INFO[card][1]].no_call:
            return
        self._window = actor
        self._window_called = called

    def _final_draw(self, actor: int, sym: str, answer: bool) -> None:
        """A last draw card still hits the next player (and any stack)."""
        k = self._effects[sym].draws
        if k:
            total = k + (self._pending if answer else 0)
            self._pending = 0
            self._penalty(self._step(actor), total, "penalty_draw", "is hit by the last card")

    def _end_hand(self, w: int, card: str | None) -> None:
        """`w` went out (on `card`), or is the last player or team left in (card None)."""
        self._window = None
        self._pending = 0
        self._hand_winner = w
        self._hands_won[w] += 1
        self._phase = "scores"
        self._owed = {}
        self._double = bool(self._rules.double_score and card is not None
                            and self._effects[INFO[card][1]].doubles)
        how = ""
        if card is None:
            how = " as the last one left in"
        elif self._double:
            how = f" on {card}: the hand scores double"
        winner = self._names[w] if self._team is None else \
            f"{self._names[w]} ({self._team_name(self._team[w])})"
        self._note("hand_won", w, f"{winner} wins hand {self._hand}{how}")

    # ------------------------------------------------------------------ house rules: out, teams
    def _check_out(self) -> None:
        """`elimination`: a player who holds N cards or more is out of the hand; the last
        player (or team) left in wins it. Run after every accepted event."""
        if self._phase not in _IN_HAND:
            return
        limit, cards, out = self._elim, self._cards, self._gone
        newly = [p for p in range(self._n) if p not in out and cards[p] >= limit]  # type: ignore[operator]
        if not newly:
            return
        if all(p in out or p in newly for p in range(self._n)):
            # every player left reaches the limit at once (a draw and its penalty together): the
            # hand was left with no winner and a turn on a player who was out. The one who holds
            # the fewest cards stays in and wins it (level: the first from the turn on).
            t = self._turn if self._turn is not None else 0
            order = sorted(newly, key=lambda p: (cards[p], (p - t) % self._n))
            newly = [p for p in newly if self._side(p) != self._side(order[0])]
            if not newly:
                return
        for p in newly:
            out.add(p)
            self._note("eliminated", p, f"{self._names[p]} holds {cards[p]} cards "
                       f"(elimination {limit}): out of this hand")
        self._fast_cards = {}  # the fast paths step seat by seat
        if self._window in out:
            self._window = None
        left = [p for p in range(self._n) if p not in out]
        if len({self._side(p) for p in left}) == 1:
            t = self._turn
            self._end_hand(t if t in left else left[0], None)
            return
        t = self._turn
        if t in out and self._phase == "play":
            self._advance(t)  # type: ignore[arg-type]

    def _side(self, p: int) -> int:
        return p if self._team is None else self._team[p]

    def _members(self, k: int) -> list[int]:
        return [i for i in range(self._n) if self._team is not None and self._team[i] == k]

    def _team_name(self, k: int) -> str:
        return " & ".join(self._names[i] for i in self._members(k))

    def _team_totals(self) -> tuple[list[int], list[int], list[int], list[int]]:
        """Per team: score, hands won, cards held at the end of the last hand, last draw."""
        groups = [self._members(k) for k in range(2)]
        return ([sum(self._scores[i] for i in g) for g in groups],
                [sum(self._hands_won[i] for i in g) for g in groups],
                [sum(self._end_cards[i] for i in g) for g in groups],
                [max(self._last_draw[i] for i in g) for g in groups])

    def _h_color(self, ev: dict, dry: bool) -> None:
        self._expect("color")
        named = self._colour(ev.get("color"))
        self._only(self._turn, self._player(ev, required=False))  # the wild's player names its colour
        if dry:
            return
        self._color = named
        t = self._turn
        assert t is not None
        if self._needs_target(self._await) and self._swap_target is None:
            self._phase = "target"
            return
        self._after_wild(t)

    def _h_target(self, ev: dict, dry: bool) -> None:
        swap_first = self._phase == "color" and self._needs_target(self._await)
        if not swap_first:
            self._expect("target")
        p = self._player(ev)
        assert p is not None and self._turn is not None
        if p == self._turn:
            raise _Reject(f"{self._names[p]} cannot target themselves")
        if p in self._gone:
            raise _Reject(f"{self._names[p]} is out of this hand")
        if swap_first and self._swap_target is not None:
            raise _Reject("the target is already chosen: waiting for a colour to be named")
        if dry:
            return
        t = self._turn
        if self._await == "seven":
            self._await = None
            self._swap(t, p)
            self._advance(t)
            return
        self._swap_target = p
        if not swap_first:
            self._after_wild(t)

    def _h_draw(self, ev: dict, dry: bool) -> None:
        if (not dry and len(ev) == 1 and self._phase == "play" and not self._pending
                and not self._drawn and self._draw_pile > 0 and self._fast_draw):
            # a plain draw of one card from a non-empty pile
            t = self._turn
            if self._window is not None:
                self._close_window(t)  # type: ignore[arg-type]  # (a penalty may empty the pile)
            if self._draw_pile > 0:  # `_draw` inlined: no reshuffle needed
                self._draw_pile -= 1
                self._cards[t] += 1  # type: ignore[index]
                self._draw_seq = seq = self._draw_seq + 1
                self._last_draw[t] = seq  # type: ignore[index]
            else:
                self._draw(t, 1)  # type: ignore[arg-type]
            self._drawn = True
            return
        if self._until is not None and self._phase in ("play", "challenge"):
            self._settle_until(ev, dry)
            return
        if self._second is not None and self._phase == "play":
            raise _Reject(f"{self._names[self._turn]} lays a second {self._second} card with the "  # type: ignore[index]
                          f"discard two, or passes (no drawing)")
        count = ev.get("count", 1)
        if _int(count) is None or count < 1:
            raise _Malformed(f"\"count\" must be a whole number of at least 1, not {count!r}")
        stand, accept, t, d, pending, victim, actor = self._pre_turn(ev, None)
        take = accept and count == pending  # the victim takes the pending cards as this draw
        if take:
            actor = self._prev(t, d)
        self._only(actor, self._player(ev, required=False))
        if not take and self._limit_blocks(actor, count):
            raise _Reject(f"{self._names[actor]} holds {self._cards[actor]} cards and the hand "
                          f"limit is {self._rules.hand_limit}: no drawing by choice; play a card "
                          f"or pass")
        if (not stand and not accept and self._drawn and not self._rules.draw_until_playable):
            raise _Reject(f"{self._names[actor]} already drew this turn: play the drawn card or pass")
        if self._available() == 0:
            raise _Reject("no cards are left to draw: pass instead")
        if not take and count > self._available():  # (a penalty taken may run the pile dry: said)
            raise _Reject(f"only {self._available()} cards are left to draw, not {count}")
        if dry:
            return
        if stand:
            self._stand(d, pending, victim, self._top)
        if take or accept:
            self._stack_top = None
        if take:
            self._pending = 0
            self._offender = None
            self._phase = "play"
            self._set_turn(actor)
            self._close_window(actor)
            # said in the feed, as when the next play takes them: the table sees the 4 drawn
            self._penalty(actor, count, "penalty_draw", "takes the pending cards and loses the turn")
            self._advance(actor)
            return
        if accept:
            v = self._prev(t, d)
            self._pending = 0
            self._offender = None
            self._phase = "play"
            self._penalty(v, pending, "penalty_draw", "takes the pending cards and loses the turn")
        self._set_turn(actor)
        self._close_window(actor)
        self._draw(actor, count)
        self._drawn = True

    def _h_pass(self, ev: dict, dry: bool) -> None:
        if "player" in ev:  # optional, as on a draw: checked against who passes
            owing = self._until is not None and self._phase in ("play", "challenge")
            self._only(self._until[0] if owing else self._turn, self._player(ev))  # type: ignore[index]
        if not dry and self._drawn and self._phase == "play" and not self._pending and not self._gone:
            self._drawn = False  # `_advance` inlined: the phase is already "play"
            self._caller = None
            self._turn = (self._turn + self._dir) % self._n  # type: ignore[operator]
            return
        if self._until is not None and self._phase in ("play", "challenge"):
            who, colour, then = self._until
            if self._available() > 0:
                raise _Reject(f"{self._names[who]} must first draw until {_until_text(colour)}: "
                              f"say how many (draw with count)")
            if dry:
                return
            self._end_until()  # nothing left to draw: the draw is over before it began
            self._after_until(who, then)
            return
        self._expect("play")
        t = self._turn
        assert t is not None
        if self._second is not None:
            if dry:
                return
            self._end_second()  # no second card of the colour: the discard two is laid alone
            self._advance(t)
            return
        if self._pending:
            raise _Reject(f"{self._names[t]} must answer or take the {self._pending} pending cards")
        at_limit = self._limit_blocks(t, 1)  # may not draw, so may pass
        if not self._drawn and self._available() > 0 and not at_limit:
            raise _Reject(f"{self._names[t]} must draw before passing")
        if dry:
            return
        if at_limit and not self._drawn:
            seq, laid, passes = self._stall
            sig = (self._draw_seq, len(self._pile))
            self._stall = (*sig, passes + 1 if (seq, laid) == sig else 1)
        self._advance(t)

    def _only(self, actor: int | None, p: int | None) -> None:
        """A step that names its player (`p`) is refused when another (`actor`) takes it."""
        if p is not None and actor is not None and p != actor:
            raise _Reject(f"it is {self._names[actor]}'s turn, not {self._names[p]}'s")

    def _limit_blocks(self, p: int, count: int) -> bool:
        """`hand_limit`: whether a draw of `count` by choice would take p past the limit. Once
        every player in the hand has passed at the limit with no play or draw between (nobody
        can move), the limit lifts until someone draws or plays, so a hand cannot stall."""
        limit = self._rules.hand_limit
        if limit is None or self._cards[p] + count <= limit:
            return False
        seq, laid, passes = self._stall
        stalled = (seq, laid) == (self._draw_seq, len(self._pile)) and \
            passes >= self._n - len(self._gone)
        return not stalled

    def _h_uno(self, ev: dict, dry: bool) -> None:
        w = self._live_window()
        who = ev.get("player")
        if not dry and w is not None and not self._window_called and len(ev) == 2 and \
                type(who) is str and self._index.get(who) == w:
            # the common case: the player who just went down to one card calls
            self._window_called = True
            self._note("uno_called", w, f"{self._names[w]} called UNO!")
            return
        if self._phase not in _IN_HAND and self._turned_by is None:
            raise _Reject("no hand is being played")
        p = self._player(ev, required=False)
        callers = [c for c in self._callers() if self._cards[c] == 2 and self._caller != c]
        if p is None:
            if w is not None and not self._window_called:
                p = w
            elif callers:
                p = callers[0]
            else:
                raise _Reject("no UNO window is open")
        elif p == w:
            if self._window_called:
                raise _Reject(f"{self._names[p]} already called UNO")
        elif p == self._caller:  # called at two cards, and again before playing
            raise _Reject(f"{self._names[p]} already called UNO")
        elif p not in callers:
            raise _Reject(f"{self._names[p]} has no UNO window open")
        if dry:
            return
        assert p is not None
        if p == w:
            self._window_called = True
        else:
            self._caller = p
        self._note("uno_called", p, f"{self._names[p]} called UNO!")

    def _callers(self) -> tuple[int, ...]:
        """Players whose turn has begun, or begins with the next event, and who may call UNO
        for it (rules.md: a call counts from the moment it is their turn with two cards).
        With a penalty pending, the victim's turn has begun when they may answer it (stacking,
        deflect), and the next player's begins implicitly: their play or draw accepts it. While
        an illegal card waits to be taken back, the player after it may play on it instead."""
        phase = self._phase
        if phase not in ("play", "challenge", "take_back"):
            return ()
        t, d, pending = self._turn, self._dir, self._pending
        assert t is not None
        if phase == "take_back":
            if self._cards[t] == 0 or self._top is None:
                return ()
            t, d, pending, _ = self._coloured_effect(INFO[self._top][1], t, d, 0)
        if not pending:
            return (t,)
        nxt = self._next(t, d)
        return (t, nxt) if self._rules.answerable else (nxt,)

    def _h_catch(self, ev: dict, dry: bool) -> None:
        by = self._player(ev, "by", required=False)
        target = self._player(ev, "target", required=False)
        if target is None:
            target = self._window
        if by is not None and by == target:
            raise _Reject(f"{self._names[by]} cannot catch themselves")
        if dry:
            return
        if (target is not None and target == self._window and not self._window_called
                and self._cards[target] == 1):
            self._window = None
            self._penalty(target, self._rules.uno_penalty, "uno_penalty",
                          "was caught without calling UNO")
            return
        self._note("catch_void", target, "catch void: no one is open to a catch" if target is None
                   else f"catch void: {self._names[target]} is not open to a catch")

    def _h_challenge(self, ev: dict, dry: bool) -> None:
        self._expect("challenge")
        p = self._player(ev, required=False)
        if p is not None and p != self._turn:  # only the player who must take the cards
            raise _Reject(f"only {self._names[self._turn]} may challenge: the cards are theirs to take")  # type: ignore[index]
        if dry:
            return
        self._phase = "evidence"
        self._victim = self._turn
        self._turn = self._offender

    def _h_reveal(self, ev: dict, dry: bool) -> None:
        phase = self._phase
        cards = ev.get("cards")
        if not isinstance(cards, list):
            raise _Malformed("\"cards\" must be a list of card names")
        names = [self._card(c) for c in cards]
        if phase in ("evidence", "scores"):
            for c in names:
                self._in_play(c)
        if phase == "evidence":
            p = self._player(ev, required=False)
            if p is not None and p != self._offender:
                raise _Reject(f"the evidence is {self._names[self._offender]}'s hand")  # type: ignore[index]
            off = self._offender
            assert off is not None
            # A card of the colour before the wild proves guilt however few cards are shown (the
            # card that matters typed on the host page, a fanned hand whose covered cards the
            # camera missed), and fewer cards shown leave the count alone; innocence needs the
            # whole hand, since a card not shown may be of that colour. More cannot be invented.
            self._can_hold(off, len(names))
            guilty = any(INFO[c][0] == self._before_color for c in names)
            if not guilty and len(names) < self._cards[off]:
                raise _Reject(f"{self._names[off]} showed {len(names)} of {self._cards[off]} cards, none "
                              f"{self._before_color}: an honest play needs the whole hand (or the host's verdict)")
            if dry:
                return
            if len(names) > self._cards[off]:
                self._recount(off, len(names))
            self._judge(guilty)
            return
        if phase == "scores":
            # A camera sees whose cards are laid out only by when: a reveal with no player
            # is the next loser clockwise from the winner whose points are not in yet.
            p = self._scorer(ev) if ev.get("player") is not None else self._next_scorer()
            self._can_hold(p, len(names))
            if dry:
                return
            self._recount(p, len(names))
            self._score(p, sum(self._points[c] for c in names))
            return
        if phase == "deal" and self._hand == 0 and self._rules.dealer_by_draw:
            p = self._player(ev)
            if len(names) != 1:
                raise _Reject("dealer by draw: each player shows one card")
            assert p is not None
            tied = self._draw_tie()  # a round ended level: its tied players draw again, alone
            if p not in (self._drawers() if tied is None else tied):
                raise _Reject(f"dealer by draw: only {' and '.join(self._names[i] for i in tied or self._drawers())} "
                              f"draw again")
            if dry:
                return
            if tied is not None:
                self._draw_among, self._by_draw = tied, {}
            num = INFO[names[0]][1]
            self._by_draw[p] = int(num) if num.isdigit() else 0
            return
        raise _Reject(not_now(phase))

    def _can_hold(self, p: int, size: int) -> None:
        """Refuse a hand shown with more cards than the player could hold: the tracked hand and
        the whole draw pile (a misread or a mistyped hand; counted, it made cards from nothing)."""
        most = self._cards[p] + self._draw_pile
        if size > most:
            raise _Reject(f"{self._names[p]} shows {size} cards, more than the {most} they could "
                          f"hold: check the cards shown")

    def _recount(self, p: int, size: int) -> None:
        if size != self._cards[p]:
            self._note("count_mismatch", p, f"{self._names[p]} shows {size} card{'' if size == 1 else 's'}, tracked "
                       f"{self._cards[p]}: the shown count stands")
            # the difference went to or came from the draw pile
            self._draw_pile = max(self._draw_pile - (size - self._cards[p]), 0)
            self._cards[p] = size

    def _h_verdict(self, ev: dict, dry: bool) -> None:
        self._expect("evidence")
        guilty = ev.get("guilty")
        if not isinstance(guilty, bool):
            raise _Malformed("\"guilty\" must be true or false")
        if dry:
            return
        self._judge(guilty)

    def _judge(self, guilty: bool) -> None:
        off, victim = self._offender, self._victim
        assert off is not None and victim is not None
        card, k = self._challenged or "wild_draw_four", self._pending
        self._offender = self._challenged = None
        self._pending = 0
        self._stack_top = None
        self._turn = victim
        if card == "wild_draw_colour":
            self._judge_until(guilty, off, victim)
            return
        if guilty:
            self._penalty(off, k, "challenge_upheld", "held a playable colour: challenge upheld")
            self._phase = "play"
            self._drawn = False
            if self._caller != victim:
                self._caller = None
        else:
            self._penalty(victim, k + 2, "challenge_failed",
                          f"challenged an honest {card.replace('_', ' ')}")
            self._advance(victim)

    def _judge_until(self, guilty: bool, off: int, victim: int) -> None:
        """Wild Draw Colour judged: guilty, its player draws until the colour instead and the
        victim plays; innocent, the victim draws 2 plus until the colour and loses the turn."""
        assert self._until is not None
        colour = self._until[1]
        if guilty:
            self._note("challenge_upheld", off, f"{self._names[off]} held a playable colour: "
                       f"challenge upheld: draws until {_until_text(colour)}")
            self._owe_until(off, colour, victim)
            return
        self._penalty(victim, 2, "challenge_failed", "challenged an honest wild draw colour "
                      f"(and draws until {_until_text(colour)})")
        self._owe_until(victim, colour, self._step(victim))

    def _scorers(self) -> list[int]:
        """The losers whose points the hand's score needs, clockwise from the winner (`teams`
        with winner_takes: the other team only; a partner's cards do not score)."""
        w = self._hand_winner
        assert w is not None
        seats = [(w + i) % self._n for i in range(1, self._n)]
        if self._team is not None and self._rules.scoring == "winner_takes":
            seats = [q for q in seats if self._team[q] != self._team[w]]
        return seats

    def _scorer(self, ev: dict) -> int:
        p = self._player(ev)
        assert p is not None
        w = self._hand_winner
        if p == w:
            raise _Reject(f"{self._names[p]} won the hand and holds no cards")
        if self._team is not None and p not in self._scorers():
            raise _Reject(f"{self._names[p]} is {self._names[w]}'s partner: a partner's cards "  # type: ignore[index]
                          f"do not score")
        if p in self._owed:
            raise _Reject(f"{self._names[p]}'s points are already in")
        return p

    def _next_scorer(self) -> int:
        for q in self._scorers():
            if q not in self._owed:
                return q
        raise _Reject("every loser's points are already in")

    def _h_points(self, ev: dict, dry: bool) -> None:
        self._expect("scores")
        p = self._scorer(ev)
        pts = _points(ev, most_points(self._rules))
        if dry:
            return
        self._score(p, pts)

    def _score(self, p: int, pts: int) -> None:
        self._owed[p] = pts
        if len(self._owed) < (self._n - 1 if self._team is None else len(self._scorers())):
            return
        w = self._hand_winner
        assert w is not None
        gains = hand_gains(self._names, w, self._owed, self._rules)
        if self._double:
            gains = {name: 2 * g for name, g in gains.items()}
        self._history.append({"hand": self._hand, "winner": self._names[w], "points": gains})
        self._end_cards = list(self._cards)
        self._total()
        self._phase = "deal"
        self._settle()

    def _total(self) -> None:
        # (a player who joined between hands has no points in the hands before)
        self._scores = [sum(h["points"].get(name, 0) for h in self._history) for name in self._names]

    def _settle(self) -> None:
        """Between hands: decide whether the game is over (target or fixed hands, tie-breaks)."""
        w = self._outcome()
        if w is None:
            if self._phase == "game_over":
                self._game_winner = None
                self._phase = "deal"
            return
        if self._phase == "game_over" and w == self._game_winner:
            return
        self._game_winner = w
        self._phase = "game_over"
        if self._team is not None:  # the teams' totals place them: a side is a team
            totals = self._team_totals()
            sides = [self._team_name(k) for k in range(2)]
        else:
            totals = (self._scores, self._hands_won, self._end_cards, self._last_draw)
            sides = list(self._names)
        order = placings(self._rules, *totals)
        first, n = sides[order[0]], totals[0][order[0]]
        why = tie_break(self._rules, *totals)
        if why == "shared":  # level on everything the rulebook breaks ties by
            level = [sides[i] for i, place in enumerate(places(self._rules, *totals)) if place == 1]
            self._note("game_won", w, f"{' and '.join(level)} share the win with {n} points")
            return
        self._note("game_won", w, f"{first} {'win' if self._team is not None else 'wins'} "
                                  f"the game with {n} points")
        if why is not None:  # level on points: the table is told what parted them
            other = sides[order[1]]
            self._note("tie_break", w, f"{first} and {other} are level on {n} points: first place to "
                       f"{first}, " + {"hands_won": "more hands won",
                                       "end_cards": "fewer cards left in the last hand",
                                       "last_draw": f"{other} drew last"}[why])

    def _outcome(self) -> int | None:
        if self._team is not None:  # the teams' totals decide; the first partner names it
            k = game_winner(self._rules, len(self._history), *self._team_totals())
            return None if k is None else self._members(k)[0]
        return game_winner(self._rules, len(self._history), self._scores, self._hands_won,
                           self._end_cards, self._last_draw)

    def _h_take_back(self, ev: dict, dry: bool) -> None:
        self._expect("take_back")
        if dry:
            return
        t = self._turn
        assert t is not None
        back = []
        for _ in range(self._laid):  # a multiple play comes back whole
            card = self._pile.pop()
            self._seen[card] -= 1
            self._cards[t] += 1
            back.append(card)
        self._laid = 1
        card = ", ".join(reversed(back))
        self._top = self._pile[-1] if self._pile else None
        self._color = self._prev_color
        if self._window == t:
            self._window = None
        self._penalty(t, self._rules.illegal_play_penalty, "penalty_draw",
                      f"took back {card}")
        if self._pending:  # an answer it may not go out on: the pending cards are still theirs
            pending, self._pending, self._stack_top, self._offender = self._pending, 0, None, None
            self._penalty(t, pending, "penalty_draw", "takes the pending cards and loses the turn")
        self._advance(t)

    def _h_undo(self, ev: dict, dry: bool) -> None:
        if not self._effective:
            raise _Reject("nothing to undo")
        if dry:
            return
        n = self._effective.pop()
        # whom the line concerned: its own player; for a turn's step with no name (a play, a
        # draw) the player on turn; else the one its notices named (a buzzer's call)
        named = next((x["player"] for x in self._notices if x["event"] == n and x["player"]), None)
        # the cards the line made anyone draw (a penalty, a challenge) were drawn at the table:
        # taking the line back, they go back too, and the table is told so
        drawn = [(x["player"], k) for x in self._notices
                 if x["event"] == n and x["player"] and (k := drawn_in(x["message"]))]
        self._rebuild(self._effective)
        # said, and kept through later undos, so the table sees what was taken back
        gone = self._parsed[n] or {}
        card = gone.get("card") if isinstance(gone.get("card"), str) else None
        who = gone.get("player") if isinstance(gone.get("player"), str) else gone.get("by")
        if not isinstance(who, str):
            who = self._name(self._turn_of_state()) if gone.get("type") in _TURN_STEPS else named
        if gone.get("type") in ("seats", "score_fix", "correct", "verdict"):  # the host's own steps: nobody's at the table
            who = None
        note = {"event": self._cur, "kind": "undone", "player": who,
                "message": f"event {n} undone: {gone.get('type')}" + (f" {card}" if card else "")
                + (f" by {who}" if who else "")}
        self._lasting.append(note)
        self._out.append(note)
        for player, k in drawn:
            back = {"event": self._cur, "kind": "cards_back", "player": player,
                    "message": f"{player} puts {k} card{'' if k == 1 else 's'} back on the draw pile"}
            self._lasting.append(back)
            self._out.append(back)

    def _h_score_fix(self, ev: dict, dry: bool) -> None:
        hand = _int(ev.get("hand"))
        hands = {h["hand"]: h for h in self._history}
        if hand is None or hand not in hands:
            raise _Reject(f"no finished hand {ev.get('hand')!r} to fix")
        entry = hands[hand]
        # a player of that hand, also one who has left the table since (their hands keep their points)
        name = ev.get("player")
        if not (isinstance(name, str) and name in entry["points"]):
            name = self._names[self._player(ev)]  # type: ignore[index]
            if name not in entry["points"]:
                raise _Reject(f"{name} did not play hand {hand}: they joined after it")
        pts = _points(ev, most_points(self._rules, fix=True))
        refused = fix_refused(self._rules, hand, entry["winner"], name)
        if refused:
            raise _Reject(refused)
        if dry:
            return
        entry["points"] = dict(entry["points"], **{name: pts})
        self._total()
        was_over = self._phase == "game_over"
        self._note("score_fixed", name, f"hand {hand} fixed: {name} {pts} points")
        fixed = self._notices[-1]
        if self._phase in ("deal", "game_over"):
            self._settle()  # which may say who wins the game now
        if was_over and self._phase != "game_over":
            fixed["message"] += ": the game goes on"  # the last "wins the game" no longer stands

    def _h_correct(self, ev: dict, dry: bool) -> None:
        # `card`: the card event n really was (a misread); `player`: who really laid it (a
        # jump-in the camera credited to the player on turn); either or both
        n = _int(ev.get("event"))
        if n is None or n not in set(self._effective):
            raise _Reject(f"no event {ev.get('event')!r} in effect to correct")
        target = self._parsed[n]
        if target is None or target.get("type") not in ("flip", "play"):
            raise _Reject(f"event {n} is not a flip or play")
        if "card" not in ev and "player" not in ev:
            raise _Reject("a correction names the card, the player who laid it, or both")
        fixes, laid = dict(self._fix), dict(self._laid_by)
        if "card" in ev:
            fixes[n] = self._card(ev.get("card"))
        if "player" in ev:
            if target.get("type") != "play":
                raise _Reject(f"event {n} is a flip: nobody laid it out of turn")
            laid[n] = self._names[self._player(ev)]  # type: ignore[index]
        scratch = Table()
        scratch._events = self._events
        scratch._parsed = self._parsed
        failed = scratch._replay(self._effective, fixes, laid)
        what = _correction(n, fixes.get(n, target.get("card")), laid.get(n) if "player" in ev else None)
        if failed is not None:
            at, why = failed
            if at == n and "player" in ev:
                raise _Reject(why)  # the play itself cannot be that player's: the rules' reason
            raise _Reject(f"{what} would reject event {at} ({why})")
        # nor may it turn a later play that stood into an illegal one (a take-back and a
        # penalty nobody saw at the table): the fix is refused, as for a rejected event
        before = {x["event"] for x in self._notices if x["kind"] == "illegal_play"}
        broken = sorted(e for e in {x["event"] for x in scratch._notices if x["kind"] == "illegal_play"} - before
                        if e > n)
        if broken:
            raise _Reject(f"{what} would make event {broken[0]} illegal")
        if ("card" not in ev and scratch._cards == self._cards and scratch._turn == self._turn
                and scratch._dir == self._dir):
            # the play counted as that player's already: announced as a jump-in it would mislead
            raise _Reject(f"event {n} counts as {laid[n]}'s already")
        if dry:
            return
        self._adopt(scratch)
        self._note("corrected", None, what)

    # ------------------------------------------------------------------ replay
    def _replay(self, effective: list[int], fixes: dict[int, str],
                laid: dict[int, str] | None = None) -> tuple[int, str] | None:
        """Apply the given events from a fresh game, with the corrected cards (`fixes`) and
        players (`laid`); return (index, reason) of the first one rejected, if any."""
        self._fix, self._laid_by = fixes, dict(laid or {})
        parsed = self._parsed
        for idx in effective:
            ev = parsed[idx]
            assert ev is not None
            self._cur = idx
            self._out = []
            if ev.get("type") == "correct":
                # a correction in effect is applied through _fix and _laid_by; keep its notice
                n = int(ev["event"])
                target = parsed[n] or {}
                self._note("corrected", None, _correction(n, self._fix.get(n, target.get("card")),
                                                          ev.get("player") if "player" in ev else None))
                self._effective.append(idx)
                continue
            if idx in fixes:
                ev = dict(ev, card=fixes[idx])
                if isinstance(ev.get("cards"), list) and ev["cards"]:
                    ev["cards"] = [*ev["cards"][:-1], fixes[idx]]  # `card` is the last laid
            if idx in self._laid_by:
                ev = dict(ev, player=self._laid_by[idx])
            try:
                self._handler(ev)(self, ev, False)
            except _Reject as exc:
                return idx, str(exc)
            if self._elim is not None:
                self._check_out()
            self._effective.append(idx)
        return None

    def _rebuild(self, effective: list[int]) -> None:
        scratch = Table()
        scratch._events = self._events
        scratch._parsed = self._parsed
        fixes: dict[int, str] = {}
        laid: dict[int, str] = {}
        for i in effective:
            ev = self._parsed[i] or {}
            if ev.get("type") == "correct":
                if "card" in ev:
                    fixes[int(ev["event"])] = ev["card"]
                if "player" in ev:
                    laid[int(ev["event"])] = ev["player"]
        scratch._replay(list(effective), fixes, laid)
        self._adopt(scratch)

    def _adopt(self, other: "Table") -> None:
        keep = (self._events, self._parsed, self._lasting, self._malformed, self._out, self._cur)
        self.__dict__.update(other.__dict__)
        self._events, self._parsed, self._lasting, self._malformed, self._out, self._cur = keep


_DRAWN = re.compile(r": draws (\d+)(?: \(only (\d+) left\))?")


def drawn_in(message: str) -> int:
    """The cards a notice made its player draw ("...: draws 4", "draws 4 (only 2 left)"), or 0."""
    m = _DRAWN.search(message)
    return 0 if m is None else int(m.group(2) or m.group(1))


def _correction(n: int, card: Any, player: str | None) -> str:
    """A correction's notice: the card event n really was, or who really laid it."""
    if player is not None:
        return f"event {n} corrected: {card} laid by {player}"
    return f"event {n} corrected to {card}"


def _event_of(note: dict) -> int:
    return note["event"]


_H_UNDO = Table._h_undo
# the steps of a turn that name no player: the player on turn made them
_TURN_STEPS = frozenset({"play", "draw", "pass", "color", "target", "take_back", "challenge"})
# A card's further step, named by its `Effect.action` (companion/referee/effects.py): (player, card).
_ACTIONS: dict[str, Callable[[Table, int, str], None]] = {
    "wild_draw": Table._play_wild_draw,
    "dementor": Table._play_dementor,
    "shuffle_hands": Table._play_shuffle_hands,
    "swap_hands": Table._play_swap_hands,
    "flip": Table._play_flip,
    "discard_two": Table._play_discard_two,
    "seven": Table._play_seven,
    "zero": Table._play_zero,
}
# an effect naming an action the engine lacks fails at import, not mid-game
_UNKNOWN_ACTIONS = {e.action for e in all_effects()} - {None} - set(_ACTIONS)
if _UNKNOWN_ACTIONS:
    raise RuntimeError(f"companion/referee/effects.py names actions engine.py lacks: {_UNKNOWN_ACTIONS}")
_HANDLERS: dict[str, Callable[[Table, dict, bool], None]] = {
    "game": Table._h_game,
    "deal": Table._h_deal,
    "flip": Table._h_flip,
    "play": Table._h_play,
    "color": Table._h_color,
    "target": Table._h_target,
    "draw": Table._h_draw,
    "pass": Table._h_pass,
    "uno": Table._h_uno,
    "catch": Table._h_catch,
    "challenge": Table._h_challenge,
    "reveal": Table._h_reveal,
    "verdict": Table._h_verdict,
    "points": Table._h_points,
    "take_back": Table._h_take_back,
    "undo": Table._h_undo,
    "score_fix": Table._h_score_fix,
    "correct": Table._h_correct,
    "seats": Table._h_seats,
}


def replay(lines: Iterable[dict | str]) -> Table:
    """A Table with every line pushed in order."""
    table = Table()
    for line in lines:
        table.push(line)
    return table
