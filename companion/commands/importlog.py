"""`uno-companion import`: store a JSON Lines table log as a new game."""
from __future__ import annotations

import argparse
from pathlib import Path

from companion.errors import InputFileError
from companion.referee.engine import replay
from companion.referee.store import EventStore, default_db_path, read_jsonl

HELP = "import a JSON Lines table log into the store"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("log", type=Path, metavar="LOG.jsonl", help="the table log to import")
    parser.add_argument(
        "--db", type=Path, default=None,
        help=f"event store, created if missing (default: $UNO_COMPANION_DB or {default_db_path()})",
    )


def main(args: argparse.Namespace) -> int:
    path = (args.db or default_db_path()).expanduser()
    lines = read_jsonl(args.log)  # a missing or unreadable log fails before any database is created
    if not replay(lines).state["players"]:
        # an empty log, or one whose game line was refused: stored, it would stand in front of
        # the real unfinished game that `run` resumes
        raise InputFileError(f"{args.log} starts no game (no game event the referee accepts): nothing imported")
    with EventStore(path) as store:
        game_id = store.import_jsonl(args.log)
        rows = store.rows(game_id)
        finished = store.last_unfinished() != game_id
    rejected = sum(not row["accepted"] and row["line"] != "" for row in rows)
    status = "finished" if finished else "unfinished: `uno-companion run` resumes it"
    print(f"imported {args.log} as game {game_id} into {path}: "
          f"{len(rows)} events ({rejected} rejected), {status}")
    return 0
