"""`uno-companion league`: league night (rules.md, "Victory points and league night").

    uno-companion league new "Thursday club" [--victory-points 12,6,2,0 | two_winners]
    uno-companion league list
    uno-companion league show [ID] [--json]
    uno-companion league add GAME [--league ID]
    uno-companion league close [ID]

Games started while a league is open join it; `add` puts an older stored game in one.
"""
from __future__ import annotations

import argparse
import json

from companion.commands import add_store_arguments, store_path, stored_at
from companion.errors import UsageError
from companion.referee.store import EventStore, StoreError

HELP = "league night: open a league, add games, show standings"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=("new", "list", "show", "add", "close"))
    parser.add_argument("name", nargs="?", default=None,
                        help="new: the league's name; show/close: its id; add: the game id")
    # default None, not "newest": a --league the user gave is told apart (show and close take it too)
    parser.add_argument("--league", default=None, metavar="ID",
                        help="add: which league (default: the newest); show/close: the same as ID")
    parser.add_argument("--victory-points", default=None, metavar="LIST",
                        help="new: points per placing, 1st first (default 12,6,2,0), or "
                             "one_winner / two_winners")
    parser.add_argument("--json", action="store_true", help="show: the standings as JSON")
    add_store_arguments(parser)


def _games(n: int, width: int = 0, kind: str = "") -> str:
    """'1 game', '3 finished games' (the count padded to `width`)."""
    return f"{n:{width}d} {kind}game{'' if n == 1 else 's'}"


def pick_league(store: EventStore, which: str | None) -> str:
    """A league id from an id or "newest"; a one-line error if there is none."""
    leagues = store.leagues()
    if not leagues:
        raise StoreError(f"{store.path} holds no league yet (uno-companion league new NAME)")
    if which in (None, "newest"):
        return str(leagues[-1]["id"])
    if store.league(which) is None:
        known = ", ".join(entry["id"] for entry in leagues[-3:])
        raise StoreError(f"no league {which!r} in {store.path} (newest: {known})")
    return which


def _new_league_points(args: argparse.Namespace) -> list[int]:
    """`league new`'s name and victory points checked; the points as a list."""
    from companion.referee.league import VICTORY_POINTS, LeagueError, parse_victory_points

    if not args.name or not args.name.strip():
        raise UsageError("name the league: uno-companion league new NAME")
    if len(args.name.strip()) > 80:  # as the host page's API refuses it: not cut without a word
        raise UsageError(f"a league's name is at most 80 characters, not {len(args.name.strip())}")
    raw = args.victory_points
    # "12,6,2,0", "12 6 2 0" or "12, 6, 2": whole numbers, as the host page takes them
    if raw is not None and raw.strip() in VICTORY_POINTS:
        raw = raw.strip()
    elif raw is not None:
        try:
            raw = [int(x) for x in raw.replace(",", " ").split()]
        except ValueError:
            raise UsageError(f"--victory-points takes whole numbers like 12,6,2,0 (or one_winner, two_winners), "
                             f"not {args.victory_points!r}") from None
    try:
        return parse_victory_points(raw)
    except LeagueError as exc:  # a bad value on the command line, as a word is: a usage error
        raise UsageError(f"--victory-points: {exc}") from None


def main(args: argparse.Namespace) -> int:
    from companion.referee.league import league_standings

    if args.league is not None:
        if args.action in ("new", "list"):
            raise UsageError(f"--league goes with add, show and close, not {args.action}")
        if args.action in ("show", "close"):
            # `league show --league ID` showed the newest league, not ID
            if args.name is not None and args.name != args.league:
                raise UsageError(f"{args.action} {args.name} and --league {args.league} name two leagues: give one")
            args.name = args.league
    vp: list[int] = []
    if args.action == "new":  # checked before the store is opened: a mistake creates no store file
        vp = _new_league_points(args)
    path = store_path(args)
    if args.action != "new":
        stored_at(path)
    with EventStore(path) as store:
        if args.action == "new":
            was_open = [entry for entry in store.leagues() if not entry["closed"]]
            league_id = store.new_league(args.name.strip(), vp)
            for entry in was_open:  # one league is open at a time: say which one this closed
                print(f"league {entry['id']} ({entry['name']}) closed")
            print(f"league {league_id} ({args.name.strip()}) open: victory points "
                  f"{', '.join(map(str, vp))}; games started from now on join it")
            return 0
        if args.action == "list":
            for entry in store.leagues():
                state = "closed" if entry["closed"] else "open"
                print(f"{entry['id']}  {_games(entry['games'], 3):9s}  {state:6s}  {entry['name']}")
            return 0
        if args.action == "add":
            if not args.name:
                raise UsageError("name the game to add: uno-companion league add GAME")
            league_id = pick_league(store, args.league)
            if store.has_game(args.name) and args.name in store.league_games(league_id):
                print(f"game {args.name} is already in league {league_id}")  # not "added" a second time
                return 0
            store.add_to_league(league_id, args.name)
            # a closed league still takes a game (as `import --league` and the host page's API
            # do: one played that night and added late), but the user hears that it was closed
            closed = " (a closed league)" if store.league(league_id)["closed"] else ""  # type: ignore[index]
            # a game still in play counts in the table once it is finished: said, not left to a
            # count of "unfinished" games under `show`
            later = "" if store.finished(args.name) else ": not finished yet, it counts once it is"
            print(f"game {args.name} added to league {league_id}{closed}{later}")
            return 0
        if args.action == "close" and args.name is None:
            # the open league, not simply the newest: that may be closed already
            open_now = [entry for entry in store.leagues() if not entry["closed"]]
            if not open_now:
                pick_league(store, None)  # no league at all: its own one-line error
                print("no league is open: nothing to close")
                return 0
            args.name = open_now[-1]["id"]
        league_id = pick_league(store, args.name)
        if args.action == "close":
            if store.league(league_id)["closed"]:  # type: ignore[index]
                print(f"league {league_id} was closed already")
                return 0
            store.close_league(league_id)
            print(f"league {league_id} closed")
            return 0
        table = league_standings(store, league_id)
    if args.json:
        print(json.dumps(table, indent=1))
        return 0
    print(f"{table['league']['name']} ({league_id}): {_games(len(table['games']), kind='finished ')}"
          + (f", {len(table['unfinished'])} unfinished (not counted)" if table["unfinished"] else "")
          + f"; victory points per place {', '.join(map(str, table['victory_points']))}")
    for row in table["table"]:
        print(f"{row['rank']:2d}. {row['player']:12s} {row['victory_points']:4d} victory points  "
              f"{row['games_won']} won of {row['games']}  {row['game_points']} game points")
    return 0
