"""`uno-companion restore`: list the rolling backups of the event store, or put one back.

    uno-companion restore                 # list the backups, newest last, with their games and events
    uno-companion restore 3               # restore backup number 3 of the list (or give its file name)

The companion backs the store up after every finished hand (`backups/` beside the store, the
newest 20 kept). Restoring refuses while a companion has the store open, and keeps the file it
replaces as one more backup (`...-before-restore.db`), so a restore can itself be undone.
"""
from __future__ import annotations

import argparse
import shlex
import time

from companion.backup import backup_folder, describe, list_backups, restore
from companion.commands import add_store_arguments, store_path
from companion.errors import UsageError

HELP = "list the event store's backups, or restore one"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("backup", nargs="?", default=None, metavar="N|NAME",
                        help="the backup to restore: its number in the list or its file name (none: list them)")
    add_store_arguments(parser)


def _games_events(info: dict) -> str:
    """'1 game, 71 events': the singular for one."""
    games, events = info["games"], info["events"]
    return f"{games} game{'' if games == 1 else 's'}, {events} event{'' if events == 1 else 's'}"


def main(args: argparse.Namespace) -> int:
    db = store_path(args)
    backups = list_backups(db)
    if args.backup is None:
        if not backups:
            print(f"no backups of {db} yet (one is made after every finished hand, in {backup_folder(db)}, and at start when the store changed after its newest)")
            return 0
        print(f"backups of {db} (in {backup_folder(db)}), oldest first:")
        for n, path in enumerate(backups, 1):
            info = describe(path)
            when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(info["time"]))
            if info.get("sound"):
                what = _games_events(info)
            else:
                what = f"DAMAGED ({info.get('error', 'quick_check failed')})"
            print(f"{n:3d}  {when}  {path.name}  {what}")
        # the same store in the hint: without the --db given it would restore the default one
        where = "".join(f" {flag} {shlex.quote(str(value))}" for flag, value in (("--db", args.db), ("--config", args.config))
                        if value is not None)
        print(f"restore one with: uno-companion restore N{where}")
        return 0
    choice = str(args.backup)
    if choice.isdigit():
        if not 1 <= int(choice) <= len(backups):
            there = {0: "there are none", 1: "there is 1"}.get(len(backups), f"there are {len(backups)}")
            raise UsageError(f"no backup number {choice}: {there} (run `uno-companion restore` to list them)")
        path = backups[int(choice) - 1]
    else:
        matches = [p for p in backups if p.name == choice or p.name == choice + ".db"]
        if not matches:
            raise UsageError(f"no backup named {choice[:60]!r} in {backup_folder(db)}")
        path = matches[0]
    kept = restore(db, path)
    info = describe(db)
    print(f"restored {path.name} into {db}: {_games_events(info)}")
    if kept is not None:
        print(f"the store it replaced is kept as {kept.name} (restore that to undo)")
    return 0
