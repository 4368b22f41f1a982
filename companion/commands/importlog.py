"""`uno-companion import`: store a JSON Lines table log as a new game."""
from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from companion.commands import add_store_arguments, store_path
from companion.errors import CompanionError, InputFileError, UsageError
from companion.referee.engine import replay
from companion.referee.rules import names_problem
from companion.referee.store import EventStore, decode_line, read_jsonl

HELP = "import a JSON Lines table log into the store"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("log", type=Path, metavar="LOG.jsonl", help="the table log to import")
    parser.add_argument("--league", metavar="ID", default=None,
                        help="the league the game joins (`league list` shows the ids); games played at the "
                             "table join the open league by themselves, imported ones only with this")
    add_store_arguments(parser, created=True)


# A refused line the table could have made (a play out of turn) is kept, as the store keeps
# it; a line no table writes (the engine's `malformed`), names no table seats, a key given twice
# or a line longer than any table's say the file is damaged or was edited wrong: nothing is imported.
MAX_LINE = 64 * 1024  # bytes: the page's own bound on a request (a reveal of a whole deck is 2 KB)


def _cut_off(line: str) -> bool:
    """A last line with no newline after it that is not whole JSON: the file ends inside it."""
    if not line.strip():
        return False
    try:
        json.loads(line)
    except (ValueError, RecursionError):
        return True
    return False


def _damage(lines: list[str], table: Any) -> str | None:
    """Why the log is no table's, naming its line, or None."""
    for i, line in enumerate(lines):
        size = len(line.encode("utf-8", "surrogatepass"))
        if size > MAX_LINE:
            return f"line {i + 1} is {size // 1024} KB: a table's line is at most {MAX_LINE // 1024} KB"
        twice = _key_twice(line)
        if twice:
            return f"line {i + 1} gives the key {twice!r} twice"
    if table.malformed:
        i = table.malformed[0]
        message = next(n["message"] for n in table.state["notices"] if n["kind"] == "rejected" and n["event"] == i)
        return f"line {i + 1}: {message}"
    for i in table.in_effect:
        value = decode_line(lines[i])
        if isinstance(value, dict) and value.get("type") in ("game", "seats"):
            problem = names_problem(value["players"])
            if problem:
                return f"line {i + 1}: {problem}"
    return None


def _key_twice(line: str) -> str | None:
    twice: list[str] = []

    def pairs(items: list[tuple[str, Any]]) -> dict:
        keys = [k for k, _ in items]
        twice.extend(k for k in keys if keys.count(k) > 1)
        return dict(items)

    try:
        json.loads(line, object_pairs_hook=pairs)
    except (ValueError, RecursionError):
        return None  # not JSON: the engine says so
    return twice[0] if twice else None


def _games(lines: list, table: Any) -> list[list]:
    """The log cut at each `game` line in effect (after the first): one list of lines per game,
    as the table would have stored them (a `game` event starts a new stored game; one refused,
    or taken back by an undo, does not)."""
    starts = [i for i in table.in_effect if _type(lines[i]) == "game"]
    cuts = [0] + starts[1:] + [len(lines)]
    return [lines[a:b] for a, b in zip(cuts, cuts[1:])]


def _stored_twin(store: EventStore, games: list[list]) -> str | None:
    """A stored game with the same events as one of the log's (spaced or keyed in another
    order, blank lines aside), or None."""
    def events(lines: list) -> list:
        return [decode_line(line) for line in lines if str(line).strip()]

    wanted = [events(game) for game in games]
    for stored in store.games():
        if events(store.lines(stored["id"])) in wanted:
            return str(stored["id"])
    return None


def _type(line: str) -> object:
    value = decode_line(line)
    return value.get("type") if isinstance(value, dict) else None


def main(args: argparse.Namespace) -> int:
    path = store_path(args)
    lines = read_jsonl(args.log)  # a missing or unreadable log fails before any database is created
    while lines and not lines[-1].strip():  # blank lines at the end: no events, and no event numbers
        lines.pop()
    table = replay(lines)
    if not table.state["players"]:
        # an empty log, or one whose game line was refused: stored, it would stand in front of
        # the real unfinished game that `run` resumes
        raise InputFileError(f"{args.log} starts no game (no game event the referee accepts): nothing imported")
    if lines and not args.log.read_bytes().endswith(b"\n") and _cut_off(lines[-1]):
        raise InputFileError(f"{args.log} line {len(lines)} is cut off (the file ends in the middle of it): "
                             f"nothing imported")
    damaged = _damage(lines, table)
    if damaged is not None:
        raise CompanionError(f"{args.log} {damaged}; nothing imported")
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
        twin = _stored_twin(store, games)
        if twin is not None:  # twice in the store, it would count twice in a league
            raise UsageError(f"{args.log} is in {path} already (game {twin}): nothing imported")
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
