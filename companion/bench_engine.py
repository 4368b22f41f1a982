"""Random self-play throughput of our engine against rlcard's UNO game loop, side by side.

Ours: `companion.simulate.simulate_games` (a real shuffled deck, real hands, random legal
choices with table mistakes), every event refereed by `Table.push`. Theirs:
`rlcard.games.uno.game.UnoGame` driven with random legal actions. Both run in the same
process, alternating rounds so a busy machine slows both alike; the median round counts.
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


def ours(hands: int, seed: int, players: int) -> Round:
    """Play `hands` random hands through the engine; count hands and events."""
    from companion.simulate import simulate_games

    start = time.perf_counter()
    steps = 0
    for _ in simulate_games(players, hands, seed):
        steps += 1
    return Round(hands, steps, time.perf_counter() - start)


def engine_only(hands: int, seed: int, players: int) -> Round:
    """The referee's share alone: the same random hands, logged first (not timed), then
    every line pushed into a fresh `Table`."""
    from companion.engine import Table
    from companion.simulate import simulate_games

    lines = list(simulate_games(players, hands, seed))
    table = Table()
    push = table.push
    start = time.perf_counter()
    for line in lines:
        push(line)
    return Round(hands, len(lines), time.perf_counter() - start)


def rlcard_loader() -> Callable[[int, int, int], Round]:
    """rlcard's side, or BenchmarkUnavailable with the install hint."""
    try:
        import numpy as np
        from rlcard.games.uno.game import UnoGame
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
        start = time.perf_counter()
        for _ in range(hands):
            game.init_game()
            while not game.is_over():
                game.step(choice(game.get_legal_actions()))
                steps += 1
        return Round(hands, steps, time.perf_counter() - start)

    return run


def compare(hands: int, seed: int, players: int = 2, repeat: int = 3,
            with_rlcard: bool = True, engine_alone: bool = True) -> list[Side]:
    """Alternate ours / rlcard `repeat` times (seed, seed+1, ...); return the sides: ours,
    rlcard (if asked), and the engine alone replaying the same hands (if asked)."""
    theirs = rlcard_loader() if with_rlcard else None
    mine: list[Round] = []
    other: list[Round] = []
    alone: list[Round] = []
    for k in range(repeat):
        gc.collect()  # start each round with the same clean heap
        mine.append(ours(hands, seed + k, players))
        if theirs is not None:
            gc.collect()
            other.append(theirs(hands, seed + k, players))
        if engine_alone:
            gc.collect()
            alone.append(engine_only(hands, seed + k, players))
    sides = [Side("uno-companion engine + simulate", mine)]
    if theirs is not None:
        sides.append(Side("rlcard UnoGame", other))
    if engine_alone:
        sides.append(Side("uno-companion engine alone", alone))
    return sides


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

    from companion.referee import Referee
    from companion.simulate import simulate_games
    from companion.store import EventStore

    events = list(simulate_games(players, hands, seed))
    with tempfile.TemporaryDirectory(prefix="uno-bench-") as tmp:
        with EventStore(Path(tmp) / "bench.db") as store:
            referee = Referee(store)
            start = time.perf_counter()
            for event in events:
                referee.submit(event, "bench")
            seconds = time.perf_counter() - start
    return StoreRound(len(events), seconds)

