"""Random self-play throughput of our engine against rlcard's UNO game loop, side by side.

Ours: `companion.referee.simulate.simulate_games` (a real shuffled deck, real hands, random legal
choices), every event refereed by `Table.push`, in two styles: like for like with rlcard (no
table mistakes: a program's player never plays an illegal card or forgets UNO, names a wild's
colour with the play and says its points), and a real table's (illegal cards taken back,
forgotten UNO calls and catches, bluffed and challenged wild draw fours, hands revealed at
scoring). Theirs: `rlcard.games.uno.game.UnoGame` driven with random legal actions. All run
in the same process, alternating rounds so a busy machine slows every side alike; the
median round counts. Time is the process's CPU time (`time.process_time`): on a machine
shared with other jobs the seconds this process waited for a core do not count against
either side (on an idle machine it equals wall-clock time).
"""
from __future__ import annotations

import gc
import random
import statistics
import time
from dataclasses import dataclass
from typing import Callable

from companion.errors import CompanionError


class BenchmarkUnavailable(CompanionError, ImportError):
    """A side of the comparison cannot run here (rlcard not installed)."""

    exit_code = 2


@dataclass(frozen=True)
class Round:
    hands: int
    steps: int  # table events (ours) or game steps (rlcard)
    seconds: float

    @property
    def hands_per_s(self) -> float:
        return self.hands / self.seconds if self.seconds > 0 else float("inf")


@dataclass(frozen=True)
class Side:
    name: str
    rounds: list[Round]

    @property
    def median(self) -> Round:
        ordered = sorted(self.rounds, key=lambda r: r.hands_per_s)
        return ordered[len(ordered) // 2]

    @property
    def hands_per_s(self) -> float:
        return statistics.median(r.hands_per_s for r in self.rounds)

    @property
    def steps_per_hand(self) -> float:
        return sum(r.steps for r in self.rounds) / max(1, sum(r.hands for r in self.rounds))

    @property
    def us_per_step(self) -> float:
        m = self.median
        return m.seconds / max(1, m.steps) * 1e6


# side names (the command and its tests refer to them)
CLEAN = "uno-companion, no mistakes"
FULL = "uno-companion, table mistakes"
RLCARD = "rlcard UnoGame"
CLEAN_ALONE = "engine alone, no mistakes"
FULL_ALONE = "engine alone, table mistakes"


def ours(hands: int, seed: int, players: int, mistakes: bool = True) -> Round:
    """Play `hands` random hands through the engine; count hands and events."""
    from companion.referee.simulate import simulate_hands

    start = time.process_time()
    steps = sum(map(len, simulate_hands(players, hands, seed, mistakes=mistakes)))
    return Round(hands, steps, time.process_time() - start)


def engine_only(hands: int, seed: int, players: int, mistakes: bool = True) -> Round:
    """The referee's share alone: the same random hands, logged first (not timed), then
    every line pushed into a fresh `Table`."""
    from companion.referee.engine import Table
    from companion.referee.simulate import simulate_games

    lines = list(simulate_games(players, hands, seed, mistakes=mistakes))
    table = Table()
    push = table.push
    start = time.process_time()
    for line in lines:
        push(line)
    return Round(hands, len(lines), time.process_time() - start)


def rlcard_loader() -> Callable[[int, int, int], Round]:
    """rlcard's side, or BenchmarkUnavailable with the install hint."""
    try:
        import numpy as np
        from rlcard.games.uno.game import UnoGame  # type: ignore[import-untyped]
    except ImportError:
        raise BenchmarkUnavailable(
            "rlcard is not installed: pip install -e '.[bench]' (or run with --no-rlcard)"
        ) from None

    def run(hands: int, seed: int, players: int) -> Round:
        game = UnoGame(num_players=players)
        game.np_random = np.random.RandomState(seed)
        rng = random.Random(seed)
        choice = rng.choice
        steps = 0
        start = time.process_time()
        for _ in range(hands):
            game.init_game()
            while not game.is_over():
                game.step(choice(game.get_legal_actions()))
                steps += 1
        return Round(hands, steps, time.process_time() - start)

    return run


def compare(hands: int, seed: int, players: int = 2, repeat: int = 3,
            with_rlcard: bool = True, engine_alone: bool = True) -> list[Side]:
    """Alternate the sides `repeat` times (seed, seed+1, ...); return them in this order:
    ours without mistakes, ours with table mistakes, rlcard (if asked), and the engine alone
    replaying the same hands of both styles (if asked)."""
    theirs = rlcard_loader() if with_rlcard else None
    runs: dict[str, Callable[[int, int, int], Round]] = {
        CLEAN: lambda h, s, p: ours(h, s, p, mistakes=False),
        FULL: lambda h, s, p: ours(h, s, p, mistakes=True),
    }
    if theirs is not None:
        runs[RLCARD] = theirs
    if engine_alone:
        runs[CLEAN_ALONE] = lambda h, s, p: engine_only(h, s, p, mistakes=False)
        runs[FULL_ALONE] = lambda h, s, p: engine_only(h, s, p, mistakes=True)
    rounds: dict[str, list[Round]] = {name: [] for name in runs}
    for k in range(repeat):
        for name, run in runs.items():
            gc.collect()  # start each round with the same clean heap
            rounds[name].append(run(hands, seed + k, players))
    return [Side(name, got) for name, got in rounds.items()]


@dataclass(frozen=True)
class StoreRound:
    events: int
    seconds: float

    @property
    def ms_per_event(self) -> float:
        return self.seconds / max(1, self.events) * 1e3


def referee_with_store(hands: int, seed: int, players: int) -> StoreRound:
    """The live path: each simulated event through `Referee.submit` into a fresh SQLite file
    (committed with synchronous=FULL, so this measures the disk's fsync as much as Python)."""
    import tempfile
    from pathlib import Path

    from companion.referee.service import Referee
    from companion.referee.simulate import simulate_games
    from companion.referee.store import EventStore

    events = list(simulate_games(players, hands, seed))
    with tempfile.TemporaryDirectory(prefix="uno-bench-") as tmp:
        with EventStore(Path(tmp) / "bench.db") as store:
            referee = Referee(store)
            start = time.process_time()
            for event in events:
                referee.submit(event, "bench")
            seconds = time.process_time() - start
    return StoreRound(len(events), seconds)

