"""`uno-companion import`: store a JSON Lines table log as a new game."""
from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from companion.commands import add_store_arguments, store_path
from companion.errors import CompanionError, InputFileError, UsageError
from companion.referee.engine import replay
from companion.referee.store import EventStore, read_jsonl

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
    with EventStore(path) as store:
        in_progress = store.last_unfinished()
        if in_progress is not None and table.state["waiting_for"] != "game_over":
            # resumed by `run` from then on, this log would leave the table's own game behind
            raise UsageError(f"{path} has a game in progress ({in_progress}); an unfinished log imported "
                             f"now would take its place when the companion starts: finish that game "
                             f"first, or import into another store (--db)")
        game_id = store.import_lines(lines, league_id=args.league)  # the lines checked above, not read again
        rows = store.rows(game_id)
        finished = store.last_unfinished() != game_id
    rejected = sum(not row["accepted"] and row["line"] != "" for row in rows)
    status = "finished" if finished else "unfinished: `uno-companion run` resumes it"
    joined = f", in league {args.league}" if args.league else ""
    print(f"imported {args.log} as game {game_id} into {path}{joined}: "
          f"{len(rows)} events ({rejected} rejected), {status}")
    return 0
