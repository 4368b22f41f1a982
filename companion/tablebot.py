"""The demo table bot: the phones of a table that exists only in the bundled demo video.

A real table answers on the phones what the camera cannot see (the colour named after a
wild, draws and passes, UNO! calls, the points left at the end of a hand, the next deal).
The demo video has no one holding phones, so with the demo (and only then) this bot does it:

- It starts the game (`game` + `deal`) for the demo players.
- When the video comes with its true table log (companion/data/demo/*.jsonl), it follows it:
  after each camera event it matches, it submits the phone/button events that came next in
  the true log (colours, whether in their own line or named in the wild's play line, draws,
  passes, UNO! calls, catches, challenges, points); a challenged player's hand comes from the
  camera (the reveal area), as at a real table.
- Whatever the log does not settle, it settles the way a patient table would: names the
  colour of the next card in the video (or red), picks the next player as a target, judges a
  challenge innocent, enters points for a hand's losers (7 a card), deals the next hand, and
  starts a new game when one is over.
- Each time the video starts over, its hand is dealt again in the same game (by the dealer
  the video's hand had, so the seats play the same cards): the standings build across loops
  until someone reaches the target, then a new game begins.

Its events are submitted with source "demo-bot", so the store shows who decided what.
"""
from __future__ import annotations

import logging
import queue
import threading
import time
from typing import Any, Callable, Iterable

from companion.referee.cards import COLORS, is_card_name, parse_card
from companion.referee.service import lay_names
from companion.vision.truth import said_after

log = logging.getLogger("companion.demo")

# The true log's lines the camera sees (its flips and plays reach the referee as a `lay`).
CAMERA_EVENTS = frozenset({"flip", "play", "take_back", "reveal"})
DEMO_PLAYERS: tuple[str, ...] = ("Ann", "Bob", "Cy", "Dee")
POINTS_PER_CARD = 7  # the bot's guess of a loser's points when no log says
MAX_MISSED = 2  # camera events the bot enters itself when the camera skipped them (more: a misreading)
_DRAWN_KEYS = ("t", "t_land", "t_clear", "box", "boxes")  # a video truth's timing, not table log


class TableBot:
    def __init__(
        self,
        referee: Any,
        players: Iterable[str] = DEMO_PLAYERS,
        truth: list[dict] | None = None,
        rules: dict | None = None,
        source: str = "demo-bot",
        patience: float = 15.0,
    ) -> None:
        self.referee = referee
        self.players = list(players)
        self.rules = dict(rules or {})
        self.source = source
        self.patience = patience  # seconds of a stuck table before the bot decides anyway
        self.truth = [e for e in (truth or []) if isinstance(e, dict) and e.get("type") not in ("game",)]
        self._cursor = 0  # index in truth just after the last matched camera event
        self._queue: queue.Queue[tuple[dict, list[dict]] | tuple[()] | None] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._handled: set[tuple[Any, ...]] = set()  # (what, hand/event) settled once only
        self._lock = threading.RLock()  # the vision thread and the bot's own thread both decide
        self.submitted: list[dict] = []

    # -- lifecycle ---------------------------------------------------------------------------

    def start(self) -> None:
        self._unsubscribe = self.referee.subscribe(self._on_change)
        self._thread = threading.Thread(target=self._run, name="demo-bot", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
        self._queue.put(None)
        if self._thread is not None:
            self._thread.join(timeout=5)

    def new_pass(self, number: int) -> None:
        """The video starts (again): its hand is the next hand of the demo game when that game
        is on and ready for it (standings build across loops), else a new game begins."""
        with self._lock:
            state = self.referee.state
            names = [p["name"] for p in state.get("players") or []]
            ready = names == self.players and (
                state.get("waiting_for") == "deal"
                or (state.get("waiting_for") == "flip" and state.get("dealer") == self._first_dealer()))
            if not ready:
                self._new_game()
                return
            self._cursor = self._after_first_deal()
            if state.get("waiting_for") == "deal":
                self._submit({"type": "deal", "dealer": self._first_dealer()})

    def _first_dealer(self) -> str:
        first_deal = next((e for e in self.truth if e.get("type") == "deal"), None)
        return (first_deal or {}).get("dealer") or self.players[0]

    def _after_first_deal(self) -> int:
        """The truth index just after its first deal (0 when it has none)."""
        for index, line in enumerate(self.truth):
            if line.get("type") == "deal":
                return index + 1
        return 0

    def _dealer_for_next_hand(self) -> str | None:
        """The video's dealer when the log deals no more (the video will start over with its
        hand), else None: the rules rotate the deal."""
        if any(line.get("type") == "deal" for line in self.truth[self._cursor:]):
            return None
        return self._first_dealer()

    def _new_game(self) -> None:
        self._cursor = 0
        self._handled.clear()
        game: dict = {"type": "game", "players": self.players}
        if self.rules:
            game["rules"] = self.rules
        self._submit(game)
        self._submit({"type": "deal", "dealer": self._first_dealer()})
        self._cursor = self._after_first_deal()
        self._settle(self.referee.state)

    # -- following the video -----------------------------------------------------------------

    def annotate(self, event: dict) -> dict:
        """Before a camera event goes to the referee: a reveal's player, which the camera
        cannot know, is taken from the true log (the demo table's "this is my hand" tap).

        The evidence of a challenge is the challenged player's hand, and the referee knows
        whose that is: such a reveal goes unnamed, as at a real table, so a card the camera
        missed earlier (the turns gone astray) cannot make the evidence refused. Likewise a
        loser the log names who holds no cards at this table is left for the referee to
        pick (the next loser clockwise)."""
        with self._lock:
            self._catch_up(event)
        if event.get("type") != "reveal" or event.get("player"):
            return event
        with self._lock:
            state = self.referee.state
            if state.get("waiting_for") == "evidence":
                return event
            index = self._match(event)
            player = self.truth[index].get("player") if index is not None else None
            if player and state.get("waiting_for") == "scores":
                cards = {p.get("name"): p.get("cards", 0) for p in state.get("players") or []}
                if not cards.get(player):
                    return event
            if player:
                return {**event, "player": player}
        return event

    def camera_event(self, event: dict, notices: list[dict]) -> None:
        """Called by the vision loop after the referee took a camera event (same thread)."""
        with self._lock:
            self._follow(event)

    def _catch_up(self, event: dict) -> None:
        """The camera reports a card (or a take-back, a reveal) that the true log has after one
        or two camera events it never reported (a card at rest too briefly for a busy CPU's
        thinned frames): the demo table enters what was missed, as a host enters "a card the
        camera missed", with the phone events between, so the turns stay the video's and its
        challenge and catch happen to the right players. Stored with the bot's source."""
        index = self._match(event)
        if index is None:
            return
        missed = [k for k in range(self._cursor, index) if self.truth[k].get("type") in CAMERA_EVENTS]
        if not missed or len(missed) > MAX_MISSED:
            return
        for k in missed:
            line = {key: v for key, v in self.truth[k].items() if key not in _DRAWN_KEYS}
            log.info("demo bot: the camera missed %s; entered from the video's log", line.get("card") or line["type"])
            # what the phones said before it, then the card itself, then what follows it
            self._follow_lines_until(k)
            self._submit(line)
            self._cursor = k + 1
            self._follow_colour(self.truth[k])
        self._follow_lines_until(index)

    def _follow_lines_until(self, end: int) -> None:
        """Submit the log's phone/button lines from the cursor up to `end` (a camera line)."""
        while self._cursor < end and self.truth[self._cursor].get("type") not in CAMERA_EVENTS:
            line = {k: v for k, v in self.truth[self._cursor].items() if k != "t"}
            self._cursor += 1
            if line.get("type") == "deal":
                line.pop("dealer", None)  # the referee rotates the dealer itself
            if line.get("type") in ("color", "points", "deal", "verdict", "target"):
                # Settled by _settle if the state asks for it; following the log keeps the
                # same choices the video was made with.
                if not self._wanted(line):
                    continue
            self._submit(line)

    def _follow_colour(self, laid: dict) -> None:
        """A wild's colour the true log names in the play line itself: the camera saw only the
        card, so the player's phone names it now, before whatever the log says next (a
        catch, a challenge)."""
        for line in said_after(laid):
            if self._wanted(line):
                self._submit(line)

    def _follow(self, event: dict) -> None:
        index = self._match(event)
        if index is None:
            return
        self._cursor = index + 1
        self._follow_colour(self.truth[index])
        self._follow_lines_until(len(self.truth))

    def _match(self, event: dict) -> int | None:
        """The truth index of this camera event: the next one of its type and card, a few
        ahead. A `lay` is a flip or play of any of its readings (the referee picks which)."""
        kinds = ("flip", "play") if event.get("type") == "lay" else (event.get("type"),)
        names = lay_names(event)
        for index in range(self._cursor, min(self._cursor + 12, len(self.truth))):
            line = self.truth[index]
            if line.get("type") in kinds and line.get("card") in names:
                return index
        return None

    def _wanted(self, line: dict) -> bool:
        waiting = self.referee.state.get("waiting_for")
        kind = line.get("type")
        return (
            (kind == "color" and waiting == "color")
            or (kind == "target" and waiting in ("target", "color"))
            or (kind == "points" and waiting == "scores")
            or (kind == "deal" and waiting == "deal")
            or (kind == "verdict" and waiting == "evidence")
        )

    def _next_colour(self) -> str:
        for line in self.truth[self._cursor:]:
            if line.get("type") in ("color", "play") and line.get("color") in COLORS:
                return line["color"]  # a colour line, or a wild's colour named in its play
            card = line.get("card")
            if line.get("type") == "play" and is_card_name(card):
                colour = parse_card(card).color
                if colour:
                    return colour
        return COLORS[0]

    # -- settling what the video cannot show ---------------------------------------------------

    def _on_change(self, state: dict, notices: list[dict]) -> None:
        # Called inside the referee (its lock held): only enqueue.
        self._queue.put((state, notices))

    def _run(self) -> None:
        quiet_since = time.monotonic()
        while True:
            try:
                item = self._queue.get(timeout=1.0)
                changed = True
            except queue.Empty:
                item, changed = (), False  # nothing happened for a second: is the table stuck?
            if item is None:
                return
            now = time.monotonic()
            if changed:
                quiet_since = now
            force = now - quiet_since >= self.patience
            try:
                with self._lock:
                    self._settle(self.referee.state, force=force)
            except Exception:
                log.exception("demo bot: could not settle the table")

    def _truth_will(self, kinds: set[str]) -> bool:
        """Does the true log settle this itself before the next card is laid?"""
        for line in self.truth[self._cursor:]:
            if line.get("type") in kinds:
                return True
            if line.get("type") in ("play", "flip") and line is not self.truth[self._cursor]:
                return False
            if line.get("type") in ("play", "flip") and any(line.get(k) for k in kinds):
                return True  # the card about to be followed names its colour (or target) itself
        return False

    def _settle(self, state: dict, force: bool = False) -> None:
        """Answer what the state waits for, unless the true log is about to (or `force`)."""
        waiting = state.get("waiting_for")
        hand = state.get("hand", 0)
        mark = len(state.get("notices", [])), hand
        wait_for_log = {"color": {"color"}, "target": {"target"}, "evidence": {"reveal", "verdict"},
                        "scores": {"reveal", "points"}, "deal": {"deal", "reveal", "points"}}
        if not force and waiting in wait_for_log and self._truth_will(wait_for_log[waiting]):
            return
        if waiting == "color" and ("color",) + mark not in self._handled:
            self._handled.add(("color",) + mark)
            self._submit({"type": "color", "color": self._next_colour()})
        elif waiting == "target" and ("target",) + mark not in self._handled:
            self._handled.add(("target",) + mark)
            names = [p["name"] for p in state.get("players", [])]
            turn = state.get("turn")
            if turn in names:
                self._submit({"type": "target", "player": names[(names.index(turn) + 1) % len(names)]})
        elif waiting == "evidence" and ("verdict",) + mark not in self._handled:
            self._handled.add(("verdict",) + mark)
            self._submit({"type": "verdict", "guilty": False})
        elif waiting == "scores" and ("scores", hand) not in self._handled:
            self._handled.add(("scores", hand))
            for player in state.get("players", []):
                if player.get("cards", 0) > 0:
                    self._submit({"type": "points", "player": player["name"], "points": POINTS_PER_CARD * player["cards"]})
        elif waiting == "deal" and ("deal", hand) not in self._handled:
            self._handled.add(("deal", hand))
            dealer = self._dealer_for_next_hand()
            self._submit({"type": "deal", **({"dealer": dealer} if dealer and self.truth else {})})
        elif waiting == "game_over" and ("over", hand) not in self._handled:
            self._handled.add(("over", hand))
            self._submit({"type": "game", "players": self.players, **({"rules": self.rules} if self.rules else {})})
            self._submit({"type": "deal", "dealer": self._first_dealer()})

    def _submit(self, event: dict) -> None:
        try:
            self.referee.submit(event, source=self.source)
            self.submitted.append(event)
        except Exception:
            log.exception("demo bot: the referee could not take %s", event)
