"""`uno-companion import`: store a JSON Lines table log as a new game."""
from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

from companion.commands import add_store_arguments, store_path
from companion.errors import CompanionError, InputFileError, UsageError
from companion.referee.engine import replay
from companion.referee.store import EventStore, decode_line, read_jsonl

HELP = "import a JSON Lines table log into the store"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("log", type=Path, metavar="LOG.jsonl", help="the table log to import")
    parser.add_argument("--league", metavar="ID", default=None,
                        help="the league the game joins (`league list` shows the ids); games played at the "
                             "table join the open league by themselves, imported ones only with this")
    add_store_arguments(parser, created=True)


# A refused line the table could have made (a play out of turn) is kept, as the store keeps
# it; these say the file itself is damaged or was edited wrong: nothing is imported.
_DAMAGED = re.compile(r"^(unknown card |unknown colou?r |[a-z0-9_]+ is not in the \w+ deck)")


def _cut_off(line: str) -> bool:
    """A last line with no newline after it that is not whole JSON: the file ends inside it."""
    if not line.strip():
        return False
    try:
        json.loads(line)
    except (ValueError, RecursionError):
        return True
    return False


def _games(lines: list, table: Any) -> list[list]:
    """The log cut at each `game` line the referee accepted (after the first): one list of lines
    per game, as the table would have stored them (a `game` event starts a new stored game)."""
    refused = {n["event"] for n in table.state["notices"] if n["kind"] == "rejected"}
    starts = [i for i, line in enumerate(lines) if i not in refused and _type(line) == "game"]
    cuts = [0] + starts[1:] + [len(lines)]
    return [lines[a:b] for a, b in zip(cuts, cuts[1:])]


def _type(line: str) -> object:
    value = decode_line(line)
    return value.get("type") if isinstance(value, dict) else None


def main(args: argparse.Namespace) -> int:
    path = store_path(args)
    lines = read_jsonl(args.log)  # a missing or unreadable log fails before any database is created
    table = replay(lines)
    if not table.state["players"]:
        # an empty log, or one whose game line was refused: stored, it would stand in front of
        # the real unfinished game that `run` resumes
        raise InputFileError(f"{args.log} starts no game (no game event the referee accepts): nothing imported")
    if lines and not args.log.read_bytes().endswith(b"\n") and _cut_off(lines[-1]):
        raise InputFileError(f"{args.log} line {len(lines)} is cut off (the file ends in the middle of it): "
                             f"nothing imported")
    damaged = next((n for n in table.state["notices"] if n["kind"] == "rejected"
                    and _DAMAGED.match(n["message"])), None)
    if damaged is not None:
        raise CompanionError(f"{args.log} line {damaged['event'] + 1}: {damaged['message']}: nothing imported")
    games = _games(lines, table)  # a simulated evening: several games in one log
    over = [replay(game).state["waiting_for"] == "game_over" for game in games]
    if not all(over[:-1]):
        # stored, a game left for a new one would be the game a table takes up (an imported
        # finished game never is): the live table's export gives one game per log
        k = over.index(False)
        raise UsageError(f"{args.log} line {sum(map(len, games[:k + 1])) + 1} starts a new game before game "
                         f"{k + 1} of the log is over: import each game as a log of its own; nothing imported")
    with EventStore(path) as store:
        in_progress = store.last_unfinished()
        if in_progress is not None and not over[-1]:
            # resumed by `run` from then on, this log would leave the table's own game behind
            raise UsageError(f"{path} has a game in progress ({in_progress}); an unfinished log imported "
                             f"now would take its place when the companion starts: finish that game "
                             f"first, or import into another store (--db)")
        ids = store.import_games(games, league_id=args.league)  # the lines checked above, not read again
        rows = [store.rows(game_id) for game_id in ids]
    joined = f", in league {args.league}" if args.league else ""
    if len(ids) > 1:
        print(f"imported {args.log} as {len(ids)} games into {path}{joined} (it starts a new game "
              f"{len(ids) - 1} time{'s' if len(ids) > 2 else ''}):")
    for game_id, got, done in zip(ids, rows, over):
        rejected = sum(not row["accepted"] and row["line"] != "" for row in got)
        status = "finished" if done else "unfinished: `uno-companion run` resumes it"
        head = f"imported {args.log} as game {game_id} into {path}{joined}: " if len(ids) == 1 else f"  game {game_id}: "
        print(f"{head}{len(got)} event{'' if len(got) == 1 else 's'} ({rejected} rejected), {status}")
    return 0
