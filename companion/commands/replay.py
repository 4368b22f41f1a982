"""`uno-companion replay LOG.jsonl [--json]`: referee a table log and print the game state.

Each line goes to the engine as it is, so a line that is not JSON or not a valid event
becomes a `rejected` notice and the replay goes on. Only a file that cannot be read at all
is an error (exit 2, one line).
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from companion.referee.store import read_jsonl

HELP = "replay a table log and print the game state"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("log", type=Path, metavar="LOG.jsonl", help="a JSON Lines table log")
    parser.add_argument(
        "--json", action="store_true", help="print the state object (table-log.md) as JSON"
    )


def main(args: argparse.Namespace) -> int:
    lines = read_jsonl(args.log)
    from companion.referee.engine import replay  # after the file check: a typo costs no import

    state = replay(lines).state
    text = json.dumps(state, indent=2, ensure_ascii=False) if args.json else summary(
        state, events=len(lines))
    try:
        print(text)
        sys.stdout.flush()
    except BrokenPipeError:  # `replay ... | head`: the reader left early, not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def _dash(value: Any) -> str:
    return "-" if value is None else str(value)


def _rules_text(rules: dict[str, Any]) -> str:
    """Only the options this table changed: the defaults go without saying."""
    from companion.referee.rules import Rules

    defaults = Rules().as_dict()
    changed = [
        f"{k}={v if isinstance(v, str) else json.dumps(v)}"
        for k, v in rules.items()
        if defaults.get(k, object()) != v
    ]
    return ", ".join(changed) if changed else "standard"


def summary(state: dict[str, Any], events: int | None = None) -> str:
    """The state as a few readable lines: who holds what, whose turn, what the referee said."""
    out: list[str] = []
    players = state.get("players") or []
    if not players:
        out.append("No game yet: the log has no accepted `game` event.")
    else:
        head = f"{len(players)} players"
        if state.get("hand"):
            head += f", hand {state['hand']}"
        if events is not None:
            head += f", {events} events"
        out.append(f"{head}; rules: {_rules_text(state.get('rules') or {})}")
        width = max(6, *(len(p["name"]) for p in players))
        out.append(f"    {'player':<{width}}  cards  score  hands won")
        for p in players:
            mark = ">" if p["name"] == state.get("turn") else " "
            tags = []
            if p["name"] == state.get("dealer"):
                tags.append("dealer")
            if p["name"] in (state.get("out") or ()):
                tags.append("out of the hand")
            if p["name"] == state.get("game_winner"):
                tags.append("game winner")
            elif p["name"] == state.get("hand_winner"):
                tags.append("won the hand")
            tag = f"  ({', '.join(tags)})" if tags else ""
            out.append(
                f"  {mark} {p['name']:<{width}}  {p['cards']:5d}  {p['score']:5d}  "
                f"{p['hands_won']:9d}{tag}"
            )
        for team in state.get("teams") or []:
            won = team["hands_won"]
            out.append(f"    team {team['name']}: {team['score']} points, "
                       f"{won} hand{'' if won == 1 else 's'} won")
        out.append(
            f"Dealer: {_dash(state.get('dealer'))}   Turn: {_dash(state.get('turn'))}   "
            f"Direction: {_dash(state.get('direction'))}"
        )
        top = state.get("top")
        color = state.get("color_under") or state.get("color")  # not a wrong card's, waiting to go back
        pile = f"Top card: {_dash(top)}"
        if top is not None:
            pile += f" (colour in force: {color or 'not named yet'})"
        if "draw_pile" in state:
            pile += f"   Draw pile: {state['draw_pile']}"
        out.append(pile)
        waiting = f"Waiting for: {_dash(state.get('waiting_for'))}"
        if state.get("pending_draw"):
            waiting += f" (pending draw: {state['pending_draw']})"
        out.append(waiting)
        out.append(
            f"Hand winner: {_dash(state.get('hand_winner'))}   "
            f"Game winner: {_dash(state.get('game_winner'))}"
        )
    for past in state.get("history") or []:
        gained = ", ".join(f"{name} +{pts}" for name, pts in past["points"].items() if pts)
        out.append(f"Hand {past['hand']}: won by {past['winner']}" + (f" ({gained})" if gained else ""))
    notices = state.get("notices") or []
    out.append(f"Notices ({len(notices)}):" if notices else "Notices: none")
    for n in notices:
        out.append(f"  [{n.get('event')}] {n.get('kind')}: {n.get('message')}")
    return "\n".join(out)
