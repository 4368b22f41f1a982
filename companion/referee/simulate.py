"""Random legal self-play: a real deck and real hands, written as a table log.

The simulator holds what the engine cannot see (the real cards in the deck and in every
hand) and chooses random legal actions, with the mistakes real tables make (an illegal card
taken back or left standing, a forgotten UNO call, a bluffed wild draw four that gets
challenged). Each event is fed to a `Table` as it is produced: the engine is the referee,
the simulator only moves the physical cards the engine says moved (penalty draws are never
logged, so hand sizes are synced from the engine after every event). A produced log
therefore replays without a single `rejected` notice. Seeded `random.Random(seed)`: the
same arguments give the same log. It reads the engine's private bookkeeping (same package)
to know whose turn it is.
"""
from __future__ import annotations

import random
from typing import Any, Iterator, Mapping

from companion.referee.cards import COLORS, DARK_NAMES, points
from companion.referee.engine import _PLAYABLE, INFO, SIDE_COLORS, Table, playable
from companion.referee.engine import playable_set as _playable_set
from companion.referee.rules import check_players, parse_rules

NAMES = ("Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jon")
_EMPTY: dict = {}


class SimulationError(RuntimeError):
    """The engine rejected an event the simulator believed legal: a bug in one of them."""


class _Sim:
    def __init__(self, players: int, seed: int, rules: Mapping[str, Any] | None,
                 mistakes: bool = True) -> None:
        if not 2 <= players <= len(NAMES):
            raise ValueError(f"players must be 2 to {len(NAMES)}")
        self.rng = random.Random(seed)
        self.rules_raw = dict(rules) if rules else None
        self.rules = parse_rules(self.rules_raw)
        check_players(self.rules, players)
        self.n = players
        self.names = list(NAMES[:players])
        self.table = Table()
        counts = self.rules.deck_counts
        # UNO Flip: a physical card is dealt by its light face; `other` names its other face
        self.full_deck = [c for c, k in counts.items() if c not in DARK_NAMES for _ in range(k)]
        self.other = _pair_faces(counts, self.rng) if self.rules.deck == "flip" else {}
        self.face = "light"
        self.points = {c: points(c, self.rules.deck) for c in counts}
        self.effect: tuple | None = None  # a physical effect waiting for colour / target
        self.out: list[dict] = []
        self.seq = 0
        self.random = self.rng.random
        r = self.rules
        # house rules that change what a turn may do (finish, draw, lay several): the inlined
        # common-case loops do not know them, so every decision takes the full path
        self.house_turns = bool(r.multiple_play or r.no_action_finish or r.no_wild_finish
                                or r.hand_limit is not None)
        # themed cards (flip, discard two, reflect, Dementor) take the full path too
        self.themed = r.themed
        self.lean = not r.jump_in and not self.house_turns and not self.themed
        # False: a table that makes no mistakes and never leaves a choice to chance it need
        # not (every UNO called, wild colours named in the play, points said at scoring)
        self.mistakes = mistakes
        # coloured cards with no effect the simulator must mirror (the lean path plays them)
        self.plain = frozenset(c for c, (col, sym) in INFO.items() if col is not None and not (
            self.rules.seven_zero and sym in ("7", "0")))

    # -- the physical table -------------------------------------------------------------
    def draw_real(self, p: int, k: int) -> None:
        """Draw k cards for p. The draw pile is kept unordered and each card is taken at
        random from it: the same as a shuffled pile, without shuffling 108 cards a hand."""
        draw, hand = self.draw, self.hands[p]
        if len(draw) < k and len(self.discard) > 1:
            # the discard pile but the cards the engine kept (its top card, and an illegal
            # card that landed on it after the reshuffle)
            keep = max(1, len(self.table._pile))
            draw.extend(self.discard[:-keep])
            del self.discard[:-keep]  # in place: the play loop holds this list
        rnd = self.random
        for _ in range(min(k, len(draw))):
            i = int(rnd() * len(draw))
            draw[i], draw[-1] = draw[-1], draw[i]
            hand.append(draw.pop())

    def take_one(self) -> str:
        draw = self.draw
        i = int(self.random() * len(draw))
        draw[i], draw[-1] = draw[-1], draw[i]
        return draw.pop()

    def push(self, ev: dict) -> None:
        t = self.table
        gone = frozenset(t._gone) if self.effect is not None else None  # seats in the hand
        notes = t.push(ev)
        self.out.append(ev)
        if notes and notes[0]["kind"] == "rejected":
            raise SimulationError(f"engine rejected {ev}: {notes[0]['message']}")
        if self.effect is not None and t._phase not in ("color", "target"):
            if t._await is None:
                self.apply_effect(gone or frozenset())
            else:  # the hand ended before the effect (the last player left in won): none
                self.effect = None
        if t._draw_seq != self.seq:  # somebody drew: bring the real hands up to the counts
            self.sync()

    def sync(self) -> None:
        t = self.table
        self.seq = t._draw_seq
        cards, hands = t._cards, self.hands
        for i in range(self.n):
            d = cards[i] - len(hands[i])
            if d:
                if d < 0:
                    raise SimulationError(f"engine says {self.names[i]} holds {cards[i]}, "
                                          f"the table has {len(hands[i])}")
                self.draw_real(i, d)

    def apply_effect(self, gone: frozenset = frozenset()) -> None:
        """Move the real cards as the engine moved the counts (`gone`: players out of the hand
        when the effect applied; their hands stay where they are)."""
        kind, p = self.effect  # type: ignore[misc]
        self.effect = None
        t, hands, n = self.table, self.hands, self.n
        d = t._dir
        if gone and kind in ("wild_shuffle_hands", "zero"):
            seats = [i for i in range(n) if i not in gone]
            m = len(seats)
            if kind == "zero":
                old = [hands[i] for i in seats]
                for j in range(m):
                    hands[seats[(j + d) % m]] = old[j]
                return
            order, q = [], p
            for _ in range(m):  # from the next player in the hand, as the engine deals
                q = (q + d) % n
                while q in gone:
                    q = (q + d) % n
                order.append(q)
            pool = [c for i in seats for c in hands[i]]
            self.rng.shuffle(pool)
            for i in seats:
                hands[i].clear()
            for k, c in enumerate(pool):
                hands[order[k % m]].append(c)
            return
        if kind == "wild_shuffle_hands":
            pool = [c for h in hands for c in h]
            self.rng.shuffle(pool)
            for h in hands:
                h.clear()
            for k, c in enumerate(pool):
                hands[(p + (k % n + 1) * d) % n].append(c)
        elif kind == "zero":
            hands[:] = [hands[(i - d) % n] for i in range(n)]  # in place, as above
        else:  # swap with a target (wild swap hands or a seven)
            o = self.target
            hands[p], hands[o] = hands[o], hands[p]

    def play_real(self, p: int, card: str) -> None:
        self.hands[p].remove(card)
        self.discard.append(card)

    # -- choosing -------------------------------------------------------------------------
    def on_turn(self) -> int:
        t = self.table._turn
        assert t is not None, "no player on turn"
        return t

    def best_color(self, p: int) -> str:
        colors = SIDE_COLORS[self.table._face]
        if not self.mistakes:  # at random, as rlcard's random player names it
            return colors[int(self.random() * 4)]
        counts = {c: 0 for c in colors}
        for card in self.hands[p]:
            col = INFO[card][0]
            if col is not None:
                counts[col] += 1
        if self.rng.random() < 0.2:
            return self.rng.choice(colors)
        return max(colors, key=counts.__getitem__)

    def play(self, p: int, card: str, extra: dict | None = None,
             legal: bool = True) -> None:
        """Play `card` from p's hand, then name colour / target as the card needs. With
        `multiple_play`, a number card sometimes takes the other cards of its number along
        (one `play` with `cards`; the last one laid is the top card)."""
        rng, t = self.rng, self.table
        ev: dict = {"type": "play", "card": card}
        if self.rules.multiple_play and legal and not extra and card[-1].isdigit():
            rest = list(self.hands[p])
            rest.remove(card)
            same = [c for c in rest if INFO[c][1] == INFO[card][1]]
            if same and rng.random() < 0.6:
                laid = [card, *rng.sample(same, rng.randint(1, len(same)))]
                for c in laid:
                    self.play_real(p, c)
                card = laid[-1]
                ev = {"type": "play", "card": card, "cards": laid}
        if "cards" not in ev:
            self.play_real(p, card)
        if extra:
            ev.update(extra)
        sym = INFO[card][1]
        wild = INFO[card][0] is None
        last = not self.hands[p]
        if not last and legal:
            if card == "wild_shuffle_hands":
                self.effect = ("wild_shuffle_hands", p)
            elif card == "wild_swap_hands" or (self.rules.seven_zero and sym == "7"):
                self.effect = ("swap", p)
                self.target = rng.choice([i for i in range(self.n) if i != p and i not in t._gone])
            elif self.rules.seven_zero and sym == "0":
                self.effect = ("zero", p)
        inline = wild and not last and (not self.mistakes or rng.random() < 0.5)
        if inline:
            ev["color"] = self.best_color(p)
        self.push(ev)
        if self.themed:
            self.themed_after_play(p)
        if self.effect is not None and self.effect[0] == "swap" and self.target in t._gone:
            # the play itself put the chosen target out (a penalty it brought): choose again
            self.target = rng.choice([i for i in range(self.n) if i != p and i not in t._gone])
        if t._phase == "color" and rng.random() < 0.5 and card == "wild_swap_hands":
            self.push({"type": "target", "player": self.names[self.target]})
        if t._phase == "color":
            self.push({"type": "color", "color": self.best_color(p)})
        if t._phase == "target":
            self.push({"type": "target", "player": self.names[self.target]})

    # -- themed cards --------------------------------------------------------------------
    def themed_after_play(self, p: int) -> None:
        """A Flip turns every card over (and the new top is reported); a discard two takes a
        second card of its colour along, or is laid alone."""
        t = self.table
        if t._face != self.face:
            self.turn_over()
        if t._second is not None and t._turn == p and t._phase == "play":
            same = [c for c in self.hands[p] if INFO[c][0] == t._second]
            if same and self.rng.random() < 0.9:
                card = self.rng.choice(same)
                self.play_real(p, card)
                self.push({"type": "play", "card": card})
            else:
                self.push({"type": "pass"})

    def turn_over(self) -> None:
        """Every hand, the draw pile and the discard pile are turned over: each card shows its
        other face; the discard pile's former bottom card is its new top."""
        t, other = self.table, self.other
        self.face = t._face
        for hand in self.hands:
            hand[:] = [other[c] for c in hand]
        self.draw[:] = [other[c] for c in self.draw]  # in place: the play loops hold these lists
        self.discard[:] = [other[c] for c in reversed(self.discard)]
        if t._turned_by is not None:
            self.push({"type": "flip", "card": self.discard[-1]})

    def draw_until(self) -> None:
        """Wild Draw Colour or Dementor: draw one card at a time until the colour (a Gryffindor
        card: one in four, at random), then say how many."""
        t = self.table
        who, colour, _ = t._until  # type: ignore[misc]
        hand, draw, discard, rnd = self.hands[who], self.draw, self.discard, self.random
        n = 0
        while True:
            if not draw:  # as the referee reshuffles: every card but the top one
                if len(discard) <= 1:
                    break
                draw.extend(discard[:-1])
                del discard[:-1]
            i = int(rnd() * len(draw))
            draw[i], draw[-1] = draw[-1], draw[i]
            card = draw.pop()
            hand.append(card)
            n += 1
            if (rnd() < 0.25) if colour == "gryffindor" else INFO[card][0] == colour:
                break
        self.push({"type": "draw", "count": n} if n else {"type": "pass"})

    def owed_until(self) -> bool:
        """A draw until a colour is owed: the victim of a Wild Draw Colour may challenge it
        first; else whoever owes it draws. True if something was done."""
        t = self.table
        if t._until is None or t._phase not in ("play", "challenge"):
            return False
        if t._phase == "challenge" and self.mistakes and self.rng.random() < 0.3:
            self.push({"type": "challenge"})
            self.evidence()
            return True
        self.draw_until()
        return True

    def uno_calls(self) -> None:
        """After a play: the player who went down to one card may call; others may catch."""
        t, rng = self.table, self.rng
        w = t._live_window()  # a window left over by a hand that grew again takes no call
        if w is None or t._window_called:
            return
        if not self.mistakes:
            self.push({"type": "uno", "player": self.names[w]})
            return
        r = rng.random()
        if r < 0.55:
            self.push({"type": "uno", "player": self.names[w]})
        elif r < 0.75:
            by = rng.choice([i for i in range(self.n) if i != w])
            ev: dict = {"type": "catch", "by": self.names[by]}
            if rng.random() < 0.5:
                ev["target"] = self.names[w]
            self.push(ev)

    def turn(self) -> None:
        """One decision in phase play / challenge / take_back."""
        if not self.mistakes:
            self.clean_turn()
            return
        t = self.table
        rng, names = self.rng, self.names
        phase = t._phase
        if self.themed and self.owed_until():
            return
        if phase == "take_back":
            off = self.on_turn()
            if t._cards[off] == 0 or rng.random() < 0.8 or t._effects[INFO[t._top][1]].must_take_back:
                card = self.discard.pop()
                self.hands[off].append(card)
                self.push({"type": "take_back"})
                return
            # otherwise the table lets it stand: the next player simply goes on
        pending = t._pending
        if pending and phase != "take_back":
            victim = self.on_turn()
            answers = [c for c in self.hands[victim] if t._answers(c)]
            if self.house_turns:
                answers = [c for c in answers if t._blocked_finish(victim, [c]) is None]
            if answers and rng.random() < 0.6:
                if len(self.hands[victim]) == 2 and self.rules.answerable and rng.random() < 0.5:
                    self.push({"type": "uno", "player": names[victim]})  # before answering
                self.play(victim, rng.choice(answers))
                self.uno_calls()
                return
            r = rng.random()
            if phase == "challenge" and r < 0.25:
                self.push({"type": "challenge"})
                self.evidence()
                return
            if r < 0.45:
                self.push({"type": "draw", "count": pending})
                return
        standing, accepting, _, _, owed, _, actor = t._pre_turn(_EMPTY, None)
        # jump-in: someone holding the identical card slams it down out of turn
        if (self.rules.jump_in and phase == "play" and not pending and rng.random() < 0.3):
            top = t._top
            for j in range(self.n):
                if j != actor and top in self.hands[j] and t._cards[j] > 1 and j not in t._gone:
                    self.play(j, top, {"player": names[j]})  # type: ignore[arg-type]
                    self.uno_calls()
                    return
        hand = self.hands[actor]
        top, color = t._top, t._color
        assert top is not None
        if phase == "play" and t._drawn:
            drawn = hand[-1]
            if playable(drawn, top, color) and rng.random() < 0.85:
                self.play(actor, drawn)
                self.uno_calls()
            elif self.rules.draw_until_playable and t._available() > 0 and rng.random() < 0.7 \
                    and self.may_draw(actor):
                self.push({"type": "draw"})
            else:
                self.push({"type": "pass"})
            return
        if self.house_turns or self.rules.answerable:
            # a call for a turn that begins with this event (after a stack or a standing card)
            if len(hand) == 2 and rng.random() < 0.4 and actor in t._callers() \
                    and t._caller != actor and t._window != actor:
                self.push({"type": "uno", "player": names[actor]})
        elif len(hand) == 2 and rng.random() < 0.4 and not standing and not accepting \
                and t._window is None:
            self.push({"type": "uno", "player": names[actor]})
        ok = _playable_set(top, color)
        legal = [c for c in hand if c in ok]
        if accepting or standing:
            legal = [c for c in legal if not t._answers(c)]
        if self.house_turns and len(hand) == 1:
            legal = [c for c in legal if t._blocked_finish(actor, [c]) is None]
        if legal and rng.random() < 0.97:
            plain = [c for c in legal if c != "wild_draw_four"]
            card = rng.choice(plain if plain and rng.random() < 0.9 else legal)
            self.play(actor, card)
            self.uno_calls()
            return
        illegal = [c for c in hand if c not in ok and not t._answers(c)]
        if illegal and len(hand) > 2 and not accepting and rng.random() < 0.4:
            self.play(actor, rng.choice(illegal), legal=False)
            return
        if not self.may_draw(actor):  # hand_limit: no drawing by choice
            if legal:
                self.play(actor, legal[0])
                self.uno_calls()
            elif accepting:  # the victim takes the stack first; the actor then passes
                self.push({"type": "draw", "count": owed})
            elif standing:  # nothing to lay on the standing card: it is taken back after all
                self.hands[self.on_turn()].append(self.discard.pop())
                self.push({"type": "take_back"})
            else:
                self.push({"type": "pass"})
            return
        if t._available() > 0 or (legal and (accepting or standing)):
            if t._available() > 0:
                self.push({"type": "draw"})
            else:
                self.play(actor, legal[0])
                self.uno_calls()
        elif legal:
            self.play(actor, legal[0])
            self.uno_calls()
        else:  # nothing left to draw anywhere and nothing to play
            self.push({"type": "pass"})

    def may_draw(self, p: int) -> bool:
        """Whether p may draw one card by choice (`hand_limit`)."""
        return self.rules.hand_limit is None or not self.table._limit_blocks(p, 1)

    def clean_turn(self) -> None:
        """One decision of a table without mistakes (phase play or challenge): answer or take
        a pending penalty, else play a random legal card, else draw, else pass."""
        t, rng, hands = self.table, self.rng, self.hands
        if self.themed and self.owed_until():
            return
        p = self.on_turn()
        hand = hands[p]
        pending = t._pending
        if pending:
            answers = [c for c in hand if t._answers(c)]
            if self.house_turns:
                answers = [c for c in answers if t._blocked_finish(p, [c]) is None]
            if answers:
                self.play(p, rng.choice(answers))
                self.uno_calls()
            else:
                self.push({"type": "draw", "count": pending})
            return
        ok = _playable_set(t._top, t._color)  # type: ignore[arg-type]
        if t._drawn:
            if hand[-1] in ok:
                self.play(p, hand[-1])
                self.uno_calls()
            elif self.rules.draw_until_playable and t._available() > 0 and self.may_draw(p):
                self.push({"type": "draw"})
            else:
                self.push({"type": "pass"})
            return
        legal = [c for c in hand if c in ok]
        if self.house_turns and len(hand) == 1:
            legal = [c for c in legal if t._blocked_finish(p, [c]) is None]
        if legal:
            self.play(p, rng.choice(legal))
            self.uno_calls()
        elif t._available() > 0 and self.may_draw(p):
            self.push({"type": "draw"})
        else:
            self.push({"type": "pass"})

    def play_hand_clean(self) -> None:
        """`play_hand` for a table without mistakes, every common decision inlined: play a
        random legal card (a wild's colour named in the play event), draw when nothing fits,
        play the drawn card if it fits or pass, call UNO when down to one card. Anything
        else (a pending penalty, a house rule that moves cards) goes to `clean_turn`."""
        t = self.table
        tpush = t.push
        out = self.out
        append = out.append
        rnd = self.random
        hands = self.hands
        discard = self.discard
        draw = self.draw
        names = self.names
        get_ok = _PLAYABLE.get
        simple = self.lean and not self.rules.seven_zero and not self.rules.draw_until_playable
        inline_wild = _INLINE_WILD
        colour_of = _COLOUR_OF
        for _ in range(5000):
            if t._phase != "play" or t._pending or not simple:
                if t._phase not in _IN_PLAY:
                    return
                self.clean_turn()
                continue
            p = t._turn
            hand = hands[p]  # type: ignore[index]
            ok = get_ok((t._top, t._color)) or _playable_set(t._top, t._color)
            if t._drawn:
                card = hand[-1]
                if card not in ok:
                    ev: dict = {"type": "pass"}
                    notes = tpush(ev)
                    append(ev)
                    if notes:
                        self.check(ev, notes)
                    continue
            else:
                if ok.isdisjoint(hand):  # nothing fits (one C call, no list built)
                    ev = {"type": "draw"} if t._draw_pile + len(t._pile) > 1 else {"type": "pass"}
                    seq = t._draw_seq
                    notes = tpush(ev)
                    append(ev)
                    if notes:
                        self.check(ev, notes)
                    # a plain draw of one card: take it here, else sync (reshuffle)
                    if t._draw_seq == seq + 1 == self.seq + 1 and draw and \
                            t._cards[p] == len(hand) + 1:  # type: ignore[index]
                        self.seq = seq + 1
                        i = int(rnd() * len(draw))
                        draw[i], draw[-1] = draw[-1], draw[i]
                        hand.append(draw.pop())
                    elif t._draw_seq != self.seq:
                        self.sync()
                    if not t._drawn or t._turn != p or t._phase != "play" or t._pending:
                        continue  # (a pass: nothing was left to draw)
                    # the same turn goes on: the drawn card is played if it fits (the top
                    # and colour are unchanged), else the player passes
                    card = hand[-1]
                    if card not in ok:
                        ev = {"type": "pass"}
                        notes = tpush(ev)
                        append(ev)
                        if notes:
                            self.check(ev, notes)
                        continue
                else:
                    legal = [c for c in hand if c in ok]
                    card = legal[int(rnd() * len(legal))]
            colour = colour_of[card]
            if colour is None:
                if card not in inline_wild:  # a wild with a physical effect
                    self.play(p, card)  # type: ignore[arg-type]
                    self.uno_calls()
                    continue
                hand.remove(card)
                discard.append(card)
                # the colour at random, as rlcard's random player names it
                ev = {"type": "play", "card": card, "color": COLORS[int(rnd() * 4)]} if hand \
                    else {"type": "play", "card": card}
            else:
                hand.remove(card)
                discard.append(card)
                ev = {"type": "play", "card": card}
            notes = tpush(ev)
            append(ev)
            if notes:
                self.check(ev, notes)
            if t._draw_seq != self.seq:
                self.sync()
            w = t._live_window()
            if w is not None and not t._window_called:
                ev = {"type": "uno", "player": names[w]}
                notes = tpush(ev)
                append(ev)
                self.check(ev, notes)
        raise SimulationError("a hand did not end after 5000 decisions")

    @staticmethod
    def check(ev: dict, notes: list[dict]) -> None:
        if notes and notes[0]["kind"] == "rejected":
            raise SimulationError(f"engine rejected {ev}: {notes[0]['message']}")

    def play_hand(self) -> None:
        """Decide until the hand ends. The common case (the player on turn plays a plain
        coloured card, draws, or plays/passes after drawing) is inlined here: this loop is
        what the self-play benchmark measures."""
        t = self.table
        tpush = t.push
        out = self.out
        rnd = self.random
        plain = self.plain
        lean = self.lean
        hands = self.hands
        discard = self.discard
        get_ok = _PLAYABLE.get
        in_hand = ("play", "challenge", "take_back", "color", "target", "evidence")
        steps = 0
        while True:
            phase = t._phase
            steps += 1
            if steps > 5000:
                raise SimulationError("a hand did not end after 5000 decisions")
            if phase == "play" and lean and not t._pending:
                hand = hands[t._turn]  # type: ignore[index]
                ok = get_ok((t._top, t._color)) or _playable_set(t._top, t._color)  # type: ignore[arg-type]
                ev = None
                if t._drawn:
                    card = hand[-1]
                    if card in ok and rnd() < 0.85:
                        if len(hand) > 2 and card in plain:
                            hand.pop()
                            discard.append(card)
                            ev = {"type": "play", "card": card}
                    elif not self.rules.draw_until_playable:
                        ev = {"type": "pass"}
                elif len(hand) > 2:
                    legal = [c for c in hand if c in ok]
                    if legal:
                        r = rnd()
                        if r < 0.97:
                            card = legal[int(r / 0.97 * len(legal))]
                            if card in plain:
                                hand.remove(card)
                                discard.append(card)
                                ev = {"type": "play", "card": card}
                    elif t._draw_pile > 0 and rnd() > 0.05:
                        ev = {"type": "draw"}
                if ev is not None:
                    notes = tpush(ev)
                    out.append(ev)
                    if notes and notes[0]["kind"] == "rejected":
                        raise SimulationError(f"engine rejected {ev}: {notes[0]['message']}")
                    if t._draw_seq != self.seq:
                        self.sync()
                    continue
            elif phase not in in_hand:
                return
            if phase == "evidence":
                self.evidence()
            else:
                self.turn()

    def evidence(self) -> None:
        t = self.table
        off = self.on_turn()
        hand = self.hands[off]
        if self.rng.random() < 0.7:
            self.push({"type": "reveal", "player": self.names[off], "cards": list(hand)})
        else:
            guilty = any(INFO[c][0] == t._before_color for c in hand)
            self.push({"type": "verdict", "guilty": guilty})

    # -- hands and games --------------------------------------------------------------------
    def new_game(self) -> None:
        ev: dict = {"type": "game", "players": list(self.names)}
        if self.rules_raw:
            ev["rules"] = dict(self.rules_raw)
        self.hands: list[list[str]] = [[] for _ in range(self.n)]
        self.draw = list(self.full_deck)
        self.discard: list[str] = []
        self.seq = 0
        self.push(ev)

    def hand(self, first: bool) -> None:
        t, rng = self.table, self.rng
        self.hands = [[] for _ in range(self.n)]
        self.draw = list(self.full_deck)
        self.discard = []
        self.face = "light"
        if first and self.rules.dealer_by_draw:
            drawers = list(range(self.n))
            while True:
                shown = {i: rng.choice(self.full_deck) for i in drawers}
                for i, c in shown.items():
                    self.push({"type": "reveal", "player": self.names[i], "cards": [c]})
                if t.check({"type": "deal"}) is None:
                    break
                drawers = t._draw_tie() or drawers  # the tied draw again, alone
            self.push({"type": "deal"})
        elif first:
            self.push({"type": "deal", "dealer": rng.choice(self.names)})
        else:
            self.push({"type": "deal"})
        self.sync()  # the deal: everyone takes their cards
        while t._phase == "flip":
            card = self.take_one()
            self.push({"type": "flip", "card": card})
            if t._phase == "flip":  # returned to the deck
                self.draw.append(card)
            else:
                self.discard.append(card)
        if t._phase == "color":
            self.push({"type": "color", "color": rng.choice(COLORS)})
        if self.mistakes:
            self.play_hand()
        else:
            self.play_hand_clean()
        # scores: the losers show their hands (or say their points)
        w = t._hand_winner
        owed = set(t._scorers())  # `teams`: a partner's cards do not score
        for i in range(self.n):
            if i == w or i not in owed:
                continue
            if not self.mistakes:  # said, straight to the referee (nothing physical moves)
                ev = {"type": "points", "player": self.names[i],
                      "points": sum(map(self.points.__getitem__, self.hands[i]))}
                self.check(ev, t.push(ev))
                self.out.append(ev)
            elif rng.random() < 0.6:
                self.push({"type": "reveal", "player": self.names[i],
                           "cards": list(self.hands[i])})
            else:
                pts = sum(self.points[c] for c in self.hands[i])
                self.push({"type": "points", "player": self.names[i], "points": pts})


# wilds whose whole effect the engine tracks (no real cards move between hands)
_COLOUR_OF = {name: c for name, (c, _) in INFO.items()}
_INLINE_WILD = frozenset(("wild", "wild_draw_four", "wild_customizable"))
_IN_PLAY = frozenset(("play", "challenge"))
_POINTS = {name: (50 if c is None and name != "wild_swap_hands" else 40 if c is None else
                  int(s) if s.isdigit() else 20) for name, (c, s) in INFO.items()}


def _pair_faces(counts: Mapping[str, int], rng: random.Random) -> dict[str, str]:
    """UNO Flip's double-sided cards: each light face name is paired with a dark face name of
    the same count, at random (both copies of a name share their other face: a simplification
    that keeps hands as lists of names). The map goes both ways."""
    pairs: dict[str, str] = {}
    for k in sorted(set(counts.values())):
        light = sorted(c for c, m in counts.items() if m == k and c not in DARK_NAMES)
        dark = sorted(c for c, m in counts.items() if m == k and c in DARK_NAMES)
        rng.shuffle(dark)
        for a, b in zip(light, dark):
            pairs[a], pairs[b] = b, a
    return pairs


def simulate_hands(players: int, hands: int, seed: int,
                   rules: Mapping[str, Any] | None = None,
                   table: list[Table] | None = None, mistakes: bool = True) -> Iterator[list[dict]]:
    """`simulate_games`' log one hand at a time: a list of events per hand (the first also
    holds the opening `game` event, and a new game's `game` event starts its hand's list)."""
    sim = _Sim(players, seed, rules, mistakes)
    if table is not None:
        table.append(sim.table)
    sim.new_game()
    first = True
    for _ in range(hands):
        if sim.table._phase == "game_over":
            sim.new_game()
            first = True
        sim.hand(first)
        first = False
        yield sim.out
        sim.out = []
    if sim.out:
        yield sim.out  # the opening game event when no hand was asked for


def simulate_games(players: int, hands: int, seed: int,
                   rules: Mapping[str, Any] | None = None,
                   table: list[Table] | None = None, mistakes: bool = True) -> Iterator[dict]:
    """Yield the table log of `hands` random hands (new games start when one is won).

    `mistakes=False` plays like rlcard's random player: a uniformly random legal card (the
    drawn card when it fits), no illegal cards, forgotten UNO calls, catches, bluffs or
    challenges; a wild's colour is named at random in its play event and the losers say
    their points.

    `table`, if given, receives the live `Table` the events were fed to (for benchmarks and
    tests that want the final state without replaying).
    """
    for hand in simulate_hands(players, hands, seed, rules, table, mistakes):
        yield from hand


def illegal_play_rate(players: int, hands: int, seed: int) -> tuple[int, int]:
    """(illegal plays, plays) over `hands` simulated hands with table mistakes: how often a
    card laid on the pile mid-hand is illegal, the referee service's prior for the camera."""
    table = Table()
    illegal = plays = 0
    for ev in simulate_games(players, hands, seed):
        notices = table.push(ev)
        if ev["type"] == "play":
            plays += 1
            illegal += any(n["kind"] == "illegal_play" for n in notices)
    return illegal, plays
