"""`uno-companion bench-engine`: random self-play hands per second, ours vs rlcard."""
from __future__ import annotations

import argparse
import json
import platform

from companion.referee.bench_engine import (CLEAN, CLEAN_ALONE, FULL, FULL_ALONE, RLCARD, compare,
                                    referee_with_store)
from companion.errors import UsageError

HELP = "self-play throughput vs rlcard"
GOAL = 3.0  # issue 2: at least 3x rlcard's hands per second


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _round(ratio: float | None) -> float | None:
    return None if ratio is None else round(ratio, 3)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--hands", type=_positive, default=1000, help="hands per round (default 1000)")
    parser.add_argument("--seed", type=int, default=1, help="first seed; round k uses seed+k")
    parser.add_argument("--players", type=_positive, default=2,
                        help="players at the table, 2-10 (default 2, rlcard's default)")
    parser.add_argument("--repeat", type=_positive, default=3,
                        help="alternating rounds per side; the median counts (default 3)")
    parser.add_argument("--no-rlcard", action="store_true", help="time our engine only")
    parser.add_argument("--store", action="store_true",
                        help="also time Referee.submit into SQLite (3 hands of events, each one fsynced)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")


def main(args: argparse.Namespace) -> int:
    if not 2 <= args.players <= 10:
        raise UsageError(f"--players must be 2 to 10, not {args.players}")
    sides = compare(args.hands, args.seed, args.players, args.repeat, not args.no_rlcard)
    by_name = {s.name: s for s in sides}
    rl = by_name.get(RLCARD)

    def ratio(name: str) -> float | None:
        return by_name[name].hands_per_s / rl.hands_per_s if rl else None

    ratios = {name: ratio(name) for name in (CLEAN, FULL, CLEAN_ALONE, FULL_ALONE)}
    stored = referee_with_store(min(args.hands, 3), args.seed, args.players) if args.store else None
    if args.json:
        print(json.dumps({
            "machine": f"{platform.machine()} {platform.python_implementation()} "
                       f"{platform.python_version()}",
            "hands": args.hands, "players": args.players, "repeat": args.repeat,
            "seed": args.seed,
            "sides": [{"name": s.name, "hands_per_s": round(s.hands_per_s, 1),
                       "steps_per_hand": round(s.steps_per_hand, 1),
                       "us_per_step": round(s.us_per_step, 2)} for s in sides],
            "ratio": _round(ratios[CLEAN]),
            "ratio_table_mistakes": _round(ratios[FULL]),
            "engine_alone_ratio": _round(ratios[CLEAN_ALONE]),
            "goal": GOAL,
            "referee_store_ms_per_event": None if stored is None else round(stored.ms_per_event, 3),
        }))
        return 0
    print(f"random self-play, {args.players} players, {args.hands} hands x {args.repeat} "
          f"rounds (median), Python {platform.python_version()} on {platform.machine()}, "
          "per CPU second")
    print(f"  {'':32}  {'hands/s':>9}  {'steps/hand':>10}  {'us/step':>8}")
    for s in sides:
        print(f"  {s.name:32}  {s.hands_per_s:9.0f}  {s.steps_per_hand:10.1f}  {s.us_per_step:8.2f}")
    if rl is not None:
        like, full = ratios[CLEAN], ratios[FULL]
        assert like is not None and full is not None
        verdict = "meets" if like >= GOAL else "below"
        print(f"  ratio like for like (no mistakes / rlcard): {like:.2f}x  "
              f"({verdict} the {GOAL:.0f}x goal)")
        print(f"  ratio with table mistakes / rlcard:         {full:.2f}x  "
              "(a real table's log: take-backs, catches, challenges, reveals)")
        print(f"  engine alone / rlcard: {ratios[CLEAN_ALONE]:.2f}x no mistakes, "
              f"{ratios[FULL_ALONE]:.2f}x table mistakes  (refereeing the same hands, "
              "without dealing and choosing them)")
    if stored is not None:
        print(f"  live referee with the SQLite store: {stored.ms_per_event:.2f} ms per event "
              f"({stored.events} events, each committed to disk before it is announced)")
    print("  steps: table events refereed (ours: plays, draws, passes, colours, UNO calls, "
          "points or reveals...) or rlcard game steps")
    print("  no mistakes: like rlcard's random player, every play legal, UNO always called, a "
          "wild's colour named at random in its play event;\n  table mistakes: illegal cards taken back, forgotten "
          "UNO calls and catches, challenged wild draw fours")
    return 0
