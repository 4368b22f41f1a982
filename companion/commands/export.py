"""`uno-companion export`: write a stored game as a JSON Lines table log."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from companion.commands import add_store_arguments, store_path, stored_at
from companion.errors import UsageError
from companion.referee.store import EventStore, StoreError

HELP = "export a stored game as JSON Lines (or a league's standings as CSV)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("out", type=Path, metavar="OUT.jsonl", nargs="?",
                        help="the table log to write; - prints it")
    add_store_arguments(parser)
    parser.add_argument("--game", default=None, metavar="ID",
                        help="which game (default: the table's game, the one `run` takes up: the newest "
                             "game played here); see --list")
    parser.add_argument("--list", action="store_true",
                        help="list the stored games instead of exporting")
    parser.add_argument("--league", nargs="?", const="newest", default=None, metavar="ID",
                        help="write a league's standings as CSV instead (default: the newest "
                             "league); see `league list`")


def open_store(args: argparse.Namespace) -> EventStore:
    """The store a command names with --db, else the default; a missing file is an error
    (export and list must not create an empty database by mistake)."""
    return EventStore(stored_at(store_path(args)))


def _print_lines(lines: list[str]) -> None:
    try:
        for line in lines:
            print(line)
        sys.stdout.flush()
    except BrokenPipeError:
        # `export - | head`: the reader left; that is not an error. Keep Python from
        # complaining again when it flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


def main(args: argparse.Namespace) -> int:
    if args.list and (args.out is not None or args.game is not None or args.league is not None):
        # --list prints the games and writes nothing: the rest would be ignored without a word
        given = [o for o, v in (("OUT", args.out), ("--game", args.game), ("--league", args.league)) if v is not None]
        raise UsageError(f"--list cannot go with {' or '.join(given)}: it only lists the stored games")
    if args.game is not None and args.league is not None:
        raise UsageError("--game and --league cannot go together: export a game (JSON Lines) or a league's "
                         "standings (CSV)")
    with open_store(args) as store:
        if args.list:
            from companion.referee.engine import replay

            for game in store.games():
                status = "finished" if game["finished"] else "unfinished"
                players = [p["name"] for p in replay(store.events(game["id"])).state["players"]]
                # a game whose `game` line was undone (the host's New game taken back) has no players
                who = ", ".join(players) if players else "no players (a new game taken back)"
                print(f"{game['id']}  {game['events']:5d} events  {status:<10}  {who}")
            return 0
        if args.out is None:
            if args.league is not None and args.league.lower().endswith((".csv", ".txt")):
                # `--league` takes an optional ID, so written before the file it eats the file's name
                raise UsageError(f"--league {args.league}: put the file first "
                                 f"(`export {args.league} --league`, or `--league ID` after it)")
            raise UsageError("name the file to write (OUT.jsonl, or - to print), or use --list")
        if args.league is not None:
            return _export_league(store, args.league, args.out)
        # not simply the newest row: a New game taken back leaves an empty game behind it
        game_id = args.game or store.current_game() or store.latest_game()
        if game_id is None:
            raise StoreError(f"{store.path} holds no game yet")
        if not store.has_game(game_id):
            known = ", ".join(g["id"] for g in store.games()[-3:])
            raise StoreError(f"no game {game_id!r} in {store.path} (newest: {known})")
        if str(args.out) == "-":
            _print_lines(store.lines(game_id))
            return 0
        store.export_jsonl(game_id, args.out)
        count = len(store.lines(game_id))
    print(f"wrote game {game_id} ({count} events) to {args.out}")
    return 0


def _export_league(store: EventStore, league: str, out: Path) -> int:
    from companion.referee.league import league_standings, standings_csv
    from companion.commands.league import pick_league

    league_id = pick_league(store, league)
    table = league_standings(store, league_id)
    text = standings_csv(table)
    if str(out) == "-":
        _print_lines(text.splitlines())
        return 0
    tmp = out.with_name(out.name + ".part")
    try:
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(out)
    except OSError as exc:
        raise StoreError(f"cannot write {out}: {exc.strerror or exc}") from None
    players, games = len(table["table"]), len(table["games"])
    print(f"wrote league {league_id} ({players} player{'' if players == 1 else 's'}, {games} finished "
          f"game{'' if games == 1 else 's'}) to {out}")
    return 0
