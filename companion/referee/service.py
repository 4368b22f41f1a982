"""The referee service: the one place table events enter while the companion runs.

Phones, the camera watcher and the GPIO buttons all call `Referee.submit` from their own
threads. Each event goes: engine check -> store write (committed) -> engine update ->
subscribers. An event the store could not save changes nothing and raises StoreError, so
nothing is ever announced that a power cut could take back.

A camera `lay` (a card came to rest on the discard pile, with the recognizer's likeliest
names) is turned into a table-log line here, because only the game knows what it is: a
`flip` while the engine waits for one, else a `play`; and its name is the reading that is
likeliest both in the picture and at the table (`weigh`). A name other than the likeliest
reading is stored with the readings (`read`) and announced (the engine's `reading` notice).

Data flows one way: the referee imports the engine and the store, never the web or hardware.
"""
from __future__ import annotations

import json
import logging
import math
import pickle
import re
import threading
from typing import Any, Callable, Sequence

from companion.referee.engine import Table, replay
from companion.errors import CompanionError
from companion.referee.store import EventStore, StoreError, decode_line, new_game_id

__all__ = ["Referee", "BadEventError", "RequestIdError", "StoreError", "Subscriber", "LAY", "ILLEGAL_PLAY_RATE", "READING_SHARPNESS",
           "kind_of_lay", "lay_names", "line_of_lay", "weigh"]

log = logging.getLogger(__name__)

Subscriber = Callable[[dict, list[dict]], None]

# The watcher's camera-only event: {"type": "lay", "card": name, "top": [[name, p], ...]}.
LAY = "lay"

# How often a card laid mid-hand is illegal: 1,461 of 245,036 plays in the simulator's tables
# with mistakes (companion/referee/simulate.py), measured with
#   python3 -c "from companion.referee.simulate import illegal_play_rate as r; print([r(p, 1000, 1) for p in (2, 3, 4, 5, 6)])"
# (0.57-0.69 % for each table size). tests/referee/test_simulate.py re-measures a sample of it.
ILLEGAL_PLAY_RATE = 0.006

# The recognizer's second and third names are right far less often than their probabilities
# say, so its readings are taken as p ** READING_SHARPNESS (temperature scaling). 4.5 is the
# exponent under which the true names of rendered cards are likeliest: 1,710 pictures of cards
# laid on piles (30 of each name), each through the next of the robustness benchmark's camera
# shifts or none (1,586 with the card found, 1,566 read right), measured with
#   python3 -m companion.cli fit-sharpness --per-card 30 --seed 0
# (companion.synth.evaluation.fit_sharpness) on the shipped models (finder 7, reader 15, colour
# stage 3; 27 Nov; with the models before them it was 4.3). Chosen on rendered pictures only; the
# real photos are the final check: on set-a and set-b (1,728 photos, older models) the likeliest
# exponent was 2.8 (evaluation.measure_sharpness). The figure is loose (10 pictures a name gave
# 8); what it sets is how much likelier the picture must make an illegal reading than a legal
# one for it to stand (weigh): 3.7 times at 4.5, 7.9 at 2.8, and either way 0.9 against 0.1
# stands and 0.55 against 0.41 gives way. Fit it again when the recognizer changes.
READING_SHARPNESS = 4.5


def kind_of_lay(waiting_for: str) -> str:
    """What a card laid on the pile is: a `flip` while the engine waits for one, else a
    `play` (the camera cannot know a hand is starting; the engine does)."""
    return "flip" if waiting_for == "flip" else "play"


def weigh(table: Table, readings: Sequence[tuple[str, float]]) -> list[tuple[str, float]]:
    """The readings with their probabilities at this table, likeliest first.

    posterior(card) ∝ P(reading) × P(card | table): P(reading) is the recognizer's probability
    made honest (p ** READING_SHARPNESS), and P(card | table) gives the cards that fit
    (accepted and legal, `Table.fits`) 1 - ILLEGAL_PLAY_RATE between them and every other card
    of the deck the rest. On a red 7 in a classic deck 18 cards fit and 36 do not, so the table
    makes a fitting card (0.994 / 18) / (0.006 / 36) = 331 times likelier than one that does
    not, and a reading that does not fit stays first when the picture makes it 331 ** (1 / 4.3)
    = 3.9 times likelier than a fitting one: 0.9 against 0.1 stands (and the engine flags the
    illegal play), 0.55 against 0.41 gives way. That is what a clear reading is here: no
    threshold of its own, only the two odds.
    When every card fits (a flip) or none does (not a moment for a card), the picture alone
    decides. Ties keep the recognizer's order.
    """
    kind = kind_of_lay(table.waiting_for)
    deck = [name for name, copies in table.rules.deck_counts.items() if copies > 0]
    fitting = {name for name in deck if table.fits({"type": kind, "card": name})}
    others = len(deck) - len(fitting)

    def prior(name: str) -> float:
        if not fitting or not others:
            return 1.0
        if name in fitting:
            return (1.0 - ILLEGAL_PLAY_RATE) / len(fitting)
        return ILLEGAL_PLAY_RATE / others

    weights = [(name, p ** READING_SHARPNESS * prior(name)) for name, p in readings]
    total = sum(w for _, w in weights)
    if total <= 0.0:
        return [(name, 0.0) for name, _ in readings]
    ranked = sorted(enumerate(weights), key=lambda item: (-item[1][1], item[0]))
    return [(name, w / total) for _, (name, w) in ranked]


def lay_names(event: dict) -> set:
    """Every name a camera event gives its card: its `card` and its readings in `top`."""
    return {event.get("card")} | {pair[0] for pair in event.get("top") or () if pair}


def line_of_lay(table: Table, event: dict) -> dict:
    """The table-log line a camera `lay` is at this table now: a flip or a play (`kind_of_lay`),
    named by the likeliest reading at the table (`weigh`); when that is not the likeliest
    reading in the picture, the readings go with it (`read`) and the engine announces it.
    Raises BadEventError for malformed readings."""
    readings = _readings(event)
    line: dict = {"type": kind_of_lay(table.waiting_for)}
    if not readings:
        return line  # no name: the engine rejects it with its reason
    card = weigh(table, readings)[0][0]
    line["card"] = card
    if card != readings[0][0]:
        line["read"] = [[name, round(p, 4)] for name, p in readings]
    return line


def _readings(event: dict) -> list[tuple[str, float]]:
    """A lay's readings: its `top`, else its `card` alone. Raises BadEventError if malformed."""
    top = event.get("top")
    if top is None or top == []:
        card = event.get("card")
        return [(card, 1.0)] if isinstance(card, str) else []
    bad = BadEventError("a lay's \"top\" must be a list of [card, probability] pairs, best first")
    if not isinstance(top, (list, tuple)):
        raise bad
    out = []
    for pair in top:
        if not isinstance(pair, (list, tuple)) or len(pair) != 2 or not isinstance(pair[0], str):
            raise bad
        p = pair[1]
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not math.isfinite(p) or not 0 <= p <= 1:
            raise bad
        out.append((pair[0], float(p)))
    return out


def _copy(obj: object) -> Any:
    """A deep copy of plain JSON-like data, several times faster than copy.deepcopy (this
    runs for every event and every subscriber, on a Raspberry Pi)."""
    return pickle.loads(pickle.dumps(obj, pickle.HIGHEST_PROTOCOL))


def _jump_claim(table: Table, event: Any, before: dict | None, claim: dict | None) -> dict | None:
    """`Referee.jump_claim` once `event` was accepted at `table` (`before`: the state before it,
    None for a new game; `claim`: the claim until then)."""
    if not isinstance(event, dict):
        return None
    if event.get("type") == "correct" and claim is not None and event.get("event") == claim["event"] \
            and "player" in event:
        return dict(claim, by=event["player"], jumped=True)  # claimed
    pile = table.state.get("pile") or []
    if (before is None or event.get("type") != "play" or event.get("cards")
            or not (table.state.get("rules") or {}).get("jump_in")
            or len(pile) < 2 or not pile[-1] == pile[-2] == event.get("card")):
        return None
    # whose the engine counted it as: the one player with a card fewer (after the wild draw
    # four's victim took their cards, a play is the next player's, not the one on turn before)
    had = {p["name"]: p["cards"] for p in before.get("players") or ()}
    fewer = [p["name"] for p in table.state["players"] if had.get(p["name"], 0) - p["cards"] == 1]
    if len(fewer) != 1:
        return None
    jumped = event.get("player") is not None  # a jump-in said as such: its player's, claimed
    return {"card": event["card"], "by": fewer[0], "jumped": jumped, "event": len(table.events) - 1}


class BadEventError(CompanionError, ValueError):
    """An event that cannot even be written down (not a JSON object)."""


class RequestIdError(CompanionError, ValueError):
    """A request id already given to another sender's event."""


class ClaimError(CompanionError, ValueError):
    """A jump-in claimed for a card that cannot be given to that player (`claim_jump_in`):
    the reason, and where it is the claim's own (not the engine's), its catalogue key."""

    def __init__(self, message: str, key: str | None = None, **args: Any) -> None:
        super().__init__(message)
        self.key, self.args_ = key, args


# The engine's count_mismatch notice: "Cleo shows 9 cards, tracked 11: ..." (`Referee._short_of`)
_SHOWS = re.compile(r"^(.+?) shows (\d+) cards?, tracked (\d+)")
# What the table waits for while the camera's cards are held (`Referee._hold_or_play`)
_HOLD_WHILE = {"color": "wild's colour", "target": "wild's or seven's target", "evidence": "challenge judged"}


class Referee:
    """Thread-safe referee: submit events from any thread, read `state`, subscribe to changes.

    On start the newest game of the store is restored by replay (`EventStore.current_table`):
    one in play goes on, one that is over shows its result until the host starts the next.
    """

    def __init__(self, store: EventStore, backups: Any = None) -> None:
        self.store = store
        self.backups = backups  # asked for a backup after every finished hand (companion.backup)
        self._lock = threading.RLock()
        self._subscribers: list[Subscriber] = []
        try:
            found = store.current_table()  # the game and its table, replayed once
            self.game_id: str | None = found[0] if found else None
            self._table: Table = found[1] if found else Table()
        except StoreError as exc:
            if not getattr(store, "read_only", ""):
                raise
            # A damaged store, open read-only: the table cannot resume from it (nor store a
            # thing); the page still answers and says why. `uno-companion restore` mends it.
            log.error("the stored game cannot be read back (%s): starting with no game", exc)
            self.game_id, self._table = None, Table()
        self._state: dict = _copy(self._table.state)
        self._claim: dict | None = None  # `jump_claim`
        self._open_claim: dict | None = None  # that claim before it was claimed (its Undo opens it again)
        # Cards the camera saw laid while the table waited for a wild's colour, a target or a
        # challenge's evidence (said aloud, tapped late): refused then, played once it comes
        self._held: list[dict] = []
        self._held_at: list[int] = []  # the stored line of each held card (refused, since it waited)
        # lines refused because a card was held, whose card then counted: the host's list of
        # refusals leaves them out (they stay in the log, as laid)
        self.counted_later: set[int] = set()
        self._disputed: dict | None = None  # `disputed`
        self._short: dict | None = None  # `short_reveal`

    # -- events in -----------------------------------------------------------------------

    def submit(self, event: dict | str, source: str = "", request_id: str | None = None) -> list[dict]:
        """Referee one table event; return the notices it produced (a `rejected` one if it
        did not fit). Rejected events are stored too. A camera `lay` is stored as the flip or
        play it is now (`line_of_lay`). Raises StoreError (and changes nothing) if the event
        could not be saved, BadEventError if it is not JSON or a lay's readings are malformed.
        With a `request_id` (a phone's id for this request), see `submit_once`.
        """
        return self.submit_once(event, source, request_id)[0]

    def submit_once(self, event: dict | str, source: str = "",
                    request_id: str | None = None) -> tuple[list[dict], bool]:
        """`submit`, exactly once per `request_id`: (notices, replayed). When an event with this
        id is already stored (the phone retried after a lost reply), nothing is stored or
        changed and the notices are the ones it produced then (replayed = True). Raises
        RequestIdError if another sender used the id."""
        if request_id is not None:
            with self._lock:
                found = self.store.find_request(request_id)
                if found is not None:
                    if found["source"] != source:
                        raise RequestIdError("this request id was used by another sender: make a new one")
                    return self.answer(found["game_id"], found["seq"]), True
                return self._submit(event, source, request_id), False
        return self._submit(event, source, None), False

    def answer(self, game_id: str, seq: int) -> list[dict]:
        """The notices the stored event `seq` of `game_id` produced: its game replayed to it
        (the engine is pure, so this is exactly what was answered then)."""
        lines = self.store.events(game_id)
        table = replay(lines[:seq])
        return _copy(table.push(lines[seq]))

    def _submit(self, event: dict | str, source: str, request_id: str | None) -> list[dict]:
        if isinstance(event, str):
            # Raw text (a log line): an object is refereed as such; anything else is stored
            # as it came and the engine rejects it with its reason.
            event = decode_line(event)
        elif isinstance(event, dict):
            try:
                json.dumps(event)
            except (TypeError, ValueError) as exc:
                raise BadEventError(f"the event cannot be written as JSON: {exc}") from None
        else:
            raise BadEventError(f"an event is a JSON object, not {type(event).__name__}")
        with self._lock:
            if source == "camera" and isinstance(event, dict) and self._short_of(event):
                return []  # not stored: the host hears it (`short_reveal`), the points wait
            if source == "camera" and isinstance(event, dict) and event.get("type") == "take_back":
                self._renamed_back(event)
            if isinstance(event, dict) and event.get("type") == LAY:
                deal = {"type": "deal"}
                if (self._state.get("waiting_for") == "deal" and self._state.get("history")
                        and self._table.check(deal) is None):
                    # the next hand's first card turned up before anyone tapped Deal: the
                    # camera saw the hand begin, dealt by the rotation; the card is its flip
                    self._submit(deal, source, None)
                event = line_of_lay(self._table, event)
            table, game_id = self._table_for(event)
            accepted = isinstance(event, dict) and table.check(event) is None
            # The line is on disk before the engine moves: a failed write raises here. A new game
            # keeps which game it took the table from: its Undo goes back there.
            replaces = self.game_id if table is not self._table else None
            self.store.append(game_id, event, accepted, source=source, request_id=request_id,
                              join_league=accepted, replaces=replaces)
            was_over = self._state.get("waiting_for") == "game_over" and table is self._table
            hands_before = len(self._state.get("history") or []) if table is self._table else 0
            before = self._state if table is self._table else None
            notices = table.push(event)
            if accepted:  # a refused event changes nothing, the claim included
                self._follow_claim(table, event, before)
            if game_id != self.game_id:
                self.counted_later = set()  # line numbers are a game's own
            self._table, self.game_id = table, game_id
            over = table.state.get("waiting_for") == "game_over"
            if over != was_over:
                self._mark_finished(game_id, over)
            if self.backups is not None and len(table.state.get("history") or []) > hands_before:
                self.backups.request()  # a hand is finished: a rolling backup, in the background
            if accepted and not table.state["players"] and event.get("type") == "undo":
                # the host's New game taken back: the table goes back to the game it replaced
                self._back_to_the_game_before()
            waited = (before or {}).get("waiting_for")
            self._state = _copy(self._table.state)
            for notice in notices:
                if notice.get("kind") == "reading":  # the host's console says it too
                    log.warning("camera: %s", notice.get("message"))
            self._notify(notices)
            self._hold_or_play(event, source, accepted, waited)
            self._follow_dispute(event, source, accepted)
            return _copy(notices)

    def _renamed_back(self, take_back: dict) -> None:
        """The camera saw a card taken back that the referee had named otherwise than the
        camera's likeliest reading (a red 1 read at 0.72 on a yellow 9 made the yellow 1 that
        fits): the take-back says the card did not fit, so the play is put back to the camera's
        reading (a `correct` line) and the take-back then counts, penalty and all. Before, the
        take-back was refused and the table went on from a card nobody laid."""
        if self._table.check(take_back) is None or not self._table.in_effect:
            return
        last = self._table.in_effect[-1]
        play = self._table.events[last]
        if isinstance(play, str):
            play = decode_line(play)
        read = play.get("read") if isinstance(play, dict) and play.get("type") == "play" else None
        if not read or not isinstance(read[0], list) or read[0][0] == play.get("card"):
            return
        correct = {"type": "correct", "event": last, "card": read[0][0]}
        if self._table.check(correct) is not None:
            return
        probe = replay(self._table.events)
        probe.push(correct)
        if probe.check(take_back) is None:  # as the camera read it, the card was illegal: taken back
            log.warning("camera: %s taken back: it was the %s the camera read, not the %s that fit",
                        play.get("card"), read[0][0], play.get("card"))
            self._submit(correct, "camera", None)

    def _short_of(self, event: dict) -> bool:
        """Whether a camera `reveal` shows fewer cards than the referee tracked for the hand it
        would count for (a loser's points, a challenged player's evidence). The engine lets a
        shown count stand (table-log.md), but a camera misses cards of a large fanned hand (8
        of 11 boxed): scored as seen, the winner lost points and nobody was asked. Such a reveal
        is kept back: the host is told (`short_reveal`), the hand may be laid again spread out,
        and a points entry or a whole reveal goes on as usual. More cards than tracked stand."""
        if event.get("type") != "reveal" or self._state.get("waiting_for") not in ("scores", "evidence"):
            return False
        probe = replay(self._table.events)
        for notice in probe.push(event):
            m = _SHOWS.match(str(notice.get("message", ""))) if notice.get("kind") == "count_mismatch" else None
            if m and int(m.group(2)) < int(m.group(3)):
                self._short = {"player": notice.get("player"), "seen": int(m.group(2)), "tracked": int(m.group(3)),
                               "hand": self._state.get("hand")}
                log.warning("camera: %s's hand shows %s of %s cards: not counted; spread it so every card shows, "
                            "or enter the points on the host page", *m.groups())
                return True
        self._short = None
        return False

    @property
    def short_reveal(self) -> dict | None:
        """{"player", "seen", "tracked"}: a hand the camera saw with fewer cards than tracked,
        kept back; None once that player's points are in, the hand is over or another reveal counts."""
        with self._lock:
            short = self._short
            if short is None:
                return None
            state = self._state
            if (state.get("hand") != short["hand"] or state.get("waiting_for") not in ("scores", "evidence")
                    or (state.get("waiting_for") == "scores" and short["player"] not in (state.get("points_due") or []))):
                self._short = None
                return None
            return {k: short[k] for k in ("player", "seen", "tracked")}

    @property
    def disputed(self) -> dict | None:
        """A hand the camera saw shown after the host's verdict, that says otherwise: {"player":
        the challenged player, "guilty": what the hand says}; None when there is none. The
        verdict stands (the hand may be part of one); the host hears it, and Undo takes the
        verdict back. Gone once the verdict is undone or the next hand is dealt."""
        with self._lock:
            return dict(self._disputed) if self._disputed else None

    def _follow_dispute(self, event: Any, source: str, accepted: bool) -> None:
        if not isinstance(event, dict):
            return
        if accepted:
            if self._disputed and (event.get("type") in ("deal", "game")
                                   or self._disputed["event"] not in self._table.in_effect):
                self._disputed = None
            return
        if source != "camera" or event.get("type") != "reveal" or not self._table.in_effect:
            return
        last = self._table.in_effect[-1]
        verdict = self._table.events[last]
        if isinstance(verdict, str):
            verdict = decode_line(verdict)
        if not isinstance(verdict, dict) or verdict.get("type") != "verdict":
            return
        judged = replay(self._table.events[:last])  # the table as the verdict found it: evidence awaited
        if judged.waiting_for != "evidence":
            return
        player = judged.state["turn"]
        kinds = {n.get("kind") for n in judged.push(event)}
        if not kinds & {"challenge_upheld", "challenge_failed"}:
            return
        shown = "challenge_upheld" in kinds
        if shown != bool(verdict.get("guilty")):
            self._disputed = {"player": player, "guilty": shown, "event": last}
            log.warning("camera: %s's hand, shown after the verdict, says %s: if it is the whole hand, "
                        "Undo takes the verdict back", player, "guilty" if shown else "innocent")

    def _hold_or_play(self, event: Any, source: str, accepted: bool, waited: str | None) -> None:
        """A card the camera saw laid while the table waited for a wild's colour, its target or
        a challenge's evidence is refused (it cannot be judged yet) and held; once that comes,
        the held cards are played in the order laid, as at the table (the colour said aloud,
        the tap late). Anything else the table moves on by (an undo, a new game) drops them:
        the cards then need the host."""
        if (not accepted and source == "camera" and isinstance(event, dict) and event.get("type") == "play"
                and waited in _HOLD_WHILE):
            self._held.append(event)
            self._held_at.append(len(self._table.events) - 1)  # its stored (refused) line
            log.warning("camera: %s held until the table has its %s", event.get("card"), _HOLD_WHILE[waited])
            return
        if not accepted or not self._held or self._state.get("waiting_for") in _HOLD_WHILE:
            return
        held, at, self._held, self._held_at = self._held, self._held_at, [], []
        if isinstance(event, dict) and event.get("type") in ("color", "target", "verdict", "reveal"):
            for card, line in zip(held, at):
                if not any(n.get("kind") == "rejected" for n in self._submit(card, "camera", None)):
                    self.counted_later.add(line)  # its first, refused line is no refusal to the host
        else:
            log.warning("camera: %s laid while the table waited, dropped: enter them on the host page if "
                        "they stand", ", ".join(str(c.get("card")) for c in held))


    def _follow_claim(self, table: Table, event: dict, before: dict | None) -> None:
        """`jump_claim` after `event` was accepted at `table` (`before`: the state before it)."""
        opened = self._open_claim
        self._claim = _jump_claim(table, event, before, self._claim)
        if self._claim is not None and not self._claim["jumped"]:
            self._open_claim = self._claim
        elif (event.get("type") == "undo" and opened is not None and table.in_effect
                and table.in_effect[-1] == opened["event"]):
            self._claim = opened  # the claim taken back: the card may be claimed again
        elif self._claim is None:
            self._open_claim = None

    def claim_jump_in(self, player: str, source: str = "",
                      request_id: str | None = None) -> tuple[list[dict], bool]:
        """Give the card last played to `player` as a jump-in (`jump_claim`): one `correct`
        line naming the play and its `player`, so the engine replays the hand with the card
        laid by them, and the host's Undo takes the claim back (the camera's credit stands
        again). Checked before it is stored: a claim that cannot stand stores nothing.
        Returns the correction's notices and whether they are a stored claim's (a `request_id`
        already stored: its first answer, nothing done now); raises ClaimError when it cannot
        be claimed."""
        with self._lock:
            if request_id is not None:
                found = self.store.find_request(request_id)
                if found is not None:  # a retry that raced its first try: its first answer
                    if found["source"] != source:
                        raise RequestIdError("this request id was used by another sender: make a new one")
                    return self.answer(found["game_id"], found["seq"]), True
            claim = self._claim
            if claim is None:
                raise ClaimError("no card to claim: the last card was not laid on its twin by another player",
                                 "err.no_claim")
            if claim["jumped"] or claim["by"] == player:
                raise ClaimError(f"the {claim['card']} is already counted as {claim['by']}'s", "err.claimed",
                                 card=claim["card"], player=claim["by"])
            correct = {"type": "correct", "event": claim["event"], "player": player}
            why = self._table.check(correct)
            if why is not None:
                raise ClaimError(why)
            return self._submit(correct, source, request_id), False

    @property
    def jump_claim(self) -> dict | None:
        """{"card", "by", "jumped", "event"}: at a table playing `jump_in`, the card just laid
        on its twin (log line `event`), counted as `by`'s: with no player named (jumped false),
        whoever the turn gave it to, though a jump-in may have laid it (the camera cannot see
        who did); a jump-in said as such or claimed (jumped true), its player. None once
        anything else happened, or after a restart."""
        with self._lock:
            return None if self._claim is None else dict(self._claim)

    def resume(self, game_id: str) -> None:
        """Take up another stored game where it stands (by replay): an older unfinished game
        that `run` finds for the configured players. Raises StoreError if it cannot be read."""
        with self._lock:
            table = replay(self.store.events(game_id))
            self._table, self.game_id = table, game_id
            self._state, self._claim, self._open_claim = _copy(table.state), None, None
            self._notify([])

    def _back_to_the_game_before(self) -> None:
        # The game this one replaced on the table: not simply the newest game with players (at a
        # table that took up an older game of its players, that is another group's game).
        found = self.store.table_before(self.game_id) if self.game_id else None
        found = found or self.store.current_table()  # passes over this game, which has no players now
        if found is not None:
            self.game_id, self._table = found

    def _table_for(self, event: dict | str) -> tuple[Table, str]:
        """The table and game id an event belongs to: a valid `game` event starts a new game
        (its own id, its own event indices from 0) unless the table is still waiting for one."""
        if isinstance(event, dict) and event.get("type") == "game":
            fresh = Table()
            if fresh.check(event) is None and (
                self.game_id is None or self._state.get("waiting_for") != "game"
            ):
                return fresh, new_game_id()
        return self._table, self.game_id or new_game_id()

    def _mark_finished(self, game_id: str, over: bool) -> None:
        # A cache for `last_unfinished`; the event itself is already safe. If this write
        # fails the worst case is a finished game restored (showing its final state).
        try:
            self.store.set_finished(game_id, over)
        except StoreError as exc:
            log.warning("could not mark game %s finished=%s: %s", game_id, over, exc)

    # -- state out -----------------------------------------------------------------------

    @property
    def state(self) -> dict:
        """The current state object (table-log.md), a copy the caller may keep."""
        with self._lock:
            return _copy(self._state)

    @property
    def events(self) -> list:
        """Every line of the current game, in order."""
        with self._lock:
            return list(self._table.events)

    def why_not(self, event: dict) -> str | None:
        """Why the table would refuse `event` now (the engine's words), or None; stores nothing."""
        with self._lock:
            return self._table.check(event)

    def answers(self, card: str) -> bool:
        """`Table.answers`: whether `card` answers the penalty pending on the player on turn."""
        with self._lock:
            return self._table.answers(card)

    @property
    def in_effect(self) -> list[int]:
        """The current game's lines still in effect (`Table.in_effect`)."""
        with self._lock:
            return self._table.in_effect

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Call `callback(state, notices)` after every event is stored and applied, in event
        order, on the submitting thread. Keep it quick (enqueue and return). Returns a
        function that unsubscribes."""
        with self._lock:
            self._subscribers.append(callback)

        def unsubscribe() -> None:
            with self._lock:
                if callback in self._subscribers:
                    self._subscribers.remove(callback)

        return unsubscribe

    def _notify(self, notices: list[dict]) -> None:
        for callback in list(self._subscribers):
            try:
                # Each subscriber gets its own copy: one cannot spoil what the next one sees.
                callback(_copy(self._state), _copy(notices))
            except Exception:  # a broken phone connection must not stop the referee
                log.exception("subscriber %r failed", callback)
