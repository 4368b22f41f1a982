"""`uno-companion simulate`: play random legal games and write their table log (JSON Lines)."""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from companion.errors import InputFileError, RulesError, UsageError
from companion.files import written_whole

HELP = "play random legal games and write their table log"


def _count(low: int, high: int | None = None):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if value < low or (high is not None and value > high):
            bound = f"{low} to {high}" if high is not None else f"at least {low}"
            raise argparse.ArgumentTypeError(f"must be {bound}, not {value}")
        return value
    return parse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--players", type=_count(2, 10), default=4, help="players, 2-10 (default 4)")
    parser.add_argument("--hands", type=_count(1), default=1, help="hands to play (default 1)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--out", metavar="FILE", help="write the log here instead of stdout")
    parser.add_argument("--no-mistakes", action="store_true",
                        help="play like a game program: no illegal plays, forgotten calls or challenges")
    parser.add_argument("--deck", default=None, metavar="EDITION",
                        help="deck edition: classic, modern, swap or flip (UNO Flip, both sides); "
                             "the same as the rules' \"deck\"")
    parser.add_argument("--rules", metavar="JSON", default=None,
                        help='table options as a JSON object, house rules included, e.g. '
                             '\'{"stacking": "cross", "deflect": true, "teams": true}\'')


def main(args: argparse.Namespace) -> int:
    from companion.referee.rules import check_players, parse_rules
    from companion.referee.simulate import simulate_games

    rules = None
    if args.rules is not None:
        try:
            rules = json.loads(args.rules)
        except json.JSONDecodeError as exc:
            raise RulesError(f"--rules is not JSON: {exc.msg} (column {exc.colno})") from None
        if not isinstance(rules, dict):
            raise RulesError("--rules must be a JSON object of option names and values")
    if args.deck is not None:
        if rules is not None and "deck" in rules and rules["deck"] != args.deck:
            # two decks named: neither silently wins
            raise UsageError(f"--deck {args.deck} and the rules' \"deck\": {json.dumps(rules['deck'])} name "
                             "different decks: give one")
        rules = dict(rules or {}, deck=args.deck)
    if rules is not None:
        # a bad option (or one that does not fit the seats) is a one-line error before
        # anything is written
        parsed = parse_rules(rules)
        try:  # teams, and the hands dealt out of the deck (the simulator would raise on the game line)
            check_players(parsed, args.players)
        except RulesError as exc:  # the command line's mistake: exit 2
            raise UsageError(str(exc)) from None
    events = simulate_games(args.players, args.hands, args.seed, rules, mistakes=not args.no_mistakes)
    if args.out is None:
        try:
            _write(events, sys.stdout)
            sys.stdout.flush()
        except BrokenPipeError:  # `simulate | head`: the reader has enough
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    path = Path(args.out)
    try:
        with written_whole(path, ".part") as fh:  # a finished log or none, never half a file
            lines = _write(events, fh)
    except OSError as exc:
        raise InputFileError(f"cannot write {path}: {exc.strerror or exc}") from None
    print(f"wrote {path}: {lines} events, {args.hands} hand{'s' if args.hands != 1 else ''}")
    return 0


def _write(events, fh) -> int:
    """The events as JSON Lines; returns how many."""
    dumps = json.dumps
    count = 0
    for count, ev in enumerate(events, 1):
        fh.write(dumps(ev, separators=(",", ":")) + "\n")
    return count
