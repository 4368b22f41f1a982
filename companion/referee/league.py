"""League night: victory points per placing across several games (rules.md, "Victory points
and league night"). Pure functions over finished games' states; the store keeps which games
a league holds, the engine decides each game's placings (its scoring and tie-breaks)."""
from __future__ import annotations

import csv
import io
from typing import Any, Iterable, Mapping, Sequence

from companion.errors import CompanionError

# rules.md: one winner 12, 6, 2, 0; the seed's two-winner format 10, 6, 4, 0. Placings past
# the list score 0 (a table of more than four sets its own list).
VICTORY_POINTS: dict[str, list[int]] = {"one_winner": [12, 6, 2, 0], "two_winners": [10, 6, 4, 0]}
DEFAULT_VICTORY_POINTS = VICTORY_POINTS["one_winner"]
MAX_PLACES = 10


class LeagueError(CompanionError, ValueError):
    """A league request that does not fit (a bad victory points list, an unknown league)."""


def parse_victory_points(value: object) -> list[int]:
    """A victory points list (whole numbers 0-1000, 1st place first, not rising), or the name
    of a preset (`one_winner`, `two_winners`); None gives the rulebook's default."""
    if value is None:
        return list(DEFAULT_VICTORY_POINTS)
    if isinstance(value, str):
        if value in VICTORY_POINTS:
            return list(VICTORY_POINTS[value])
        raise LeagueError(f"victory points {value!r} is not one of {', '.join(VICTORY_POINTS)} "
                          f"or a list like 12, 6, 2, 0")
    if (not isinstance(value, list) or not 1 <= len(value) <= MAX_PLACES
            or not all(isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 1000
                       for v in value)):
        raise LeagueError("victory points must be a list of 1-10 whole numbers 0-1000, 1st place "
                          "first, like 12, 6, 2, 0")
    if any(a < b for a, b in zip(value, value[1:])):
        raise LeagueError(f"victory points must not rise from one place to the next: {', '.join(map(str, value))}")
    return list(value)


def game_result(state: Mapping[str, Any]) -> dict[str, Any] | None:
    """A finished game's placings and points from its engine state (None if unfinished)."""
    if state.get("waiting_for") != "game_over" or not state.get("placings"):
        return None
    scores = {p["name"]: p["score"] for p in state["players"]}
    result: dict[str, Any] = {"placings": list(state["placings"]), "scores": scores,
                              "winner": state.get("game_winner")}
    if (state.get("rules") or {}).get("scoring") == "lowest_wins":
        result["lowest_wins"] = True  # its points count against a player, in the tie-break too
    shared = state.get("places") or []
    if len(shared) == len(result["placings"]) and len(set(shared)) < len(shared):
        # players level on points and every tie-break (partners with their team) share a place,
        # its victory points and, at the top, the win: not the seat order the placings fall back on
        result["places"] = {n: place - 1 for n, place in zip(result["placings"], shared)}
        result["winners"] = [n for n, place in zip(result["placings"], shared) if place == 1]
    teams = state.get("teams") or []
    if teams:  # partners played as one: they share their team's points
        result["scores"] = {n: tm["score"] for tm in teams for n in tm["players"]}
    return result


def standings(games: Iterable[tuple[str, Mapping[str, Any] | None]],
              victory_points: Sequence[int]) -> dict[str, Any]:
    """The league table from (game id, `game_result`) pairs in the order played: per player
    victory points, games played and won, total game points, and the series of victory
    points after each finished game (for a chart). Sorted by victory points, then games won,
    then game points (rules.md): won in a winner-takes game, held against the player (fewer
    is better) in a lowest-wins one.

    >>> t = standings([("g1", {"placings": ["Bob", "Ann"], "scores": {"Ann": 80, "Bob": 510},
    ...                        "winner": "Bob"})], [12, 6, 2, 0])
    >>> [(r["player"], r["victory_points"], r["games_won"]) for r in t["table"]]
    [('Bob', 12, 1), ('Ann', 6, 0)]
    """
    rows: dict[str, dict[str, Any]] = {}
    played: list[dict[str, Any]] = []
    unfinished: list[str] = []
    worth: dict[str, int] = {}
    for game_id, result in games:
        if result is None:
            unfinished.append(game_id)
            continue
        gained: dict[str, int] = {}
        places = result.get("places") or {}  # a team game: partners share a place
        winners = result.get("winners") or [result["winner"]]
        for place, name in enumerate(result["placings"]):
            place = places.get(name, place)
            row = rows.setdefault(name, {"player": name, "victory_points": 0, "games": 0,
                                         "games_won": 0, "game_points": 0})
            worth.setdefault(name, 0)
            vp = victory_points[place] if place < len(victory_points) else 0
            gained[name] = vp
            row["victory_points"] += vp
            row["games"] += 1
            row["games_won"] += int(name in winners)
            row["game_points"] += int(result["scores"].get(name, 0))
            # the tie-break's game points: a lowest-wins game's points are those held against
            # the player (the fewer, the better), a winner-takes game's those won
            worth[name] += int(result["scores"].get(name, 0)) * (-1 if result.get("lowest_wins") else 1)
        played.append({"game": game_id, "placings": list(result["placings"]),
                       "victory_points": gained, "scores": dict(result["scores"])})
    names = list(rows)
    series: dict[str, list[int]] = {name: [] for name in names}
    running = {name: 0 for name in names}
    for game in played:  # cumulative victory points after each game, 0 for games missed
        for name in names:
            running[name] += game["victory_points"].get(name, 0)
            series[name].append(running[name])
    table = sorted(rows.values(), key=lambda r: (-r["victory_points"], -r["games_won"],
                                                 -worth[r["player"]], r["player"]))
    # players level on every count share a place (sports-table style: 1, 2, 2, 4); the name
    # only orders the rows
    def level(row: dict[str, Any]) -> tuple[int, int, int]:
        return row["victory_points"], row["games_won"], worth[row["player"]]

    for i, row in enumerate(table):
        row["rank"] = table[i - 1]["rank"] if i and level(row) == level(table[i - 1]) else i + 1
    return {"table": table, "games": played, "series": series, "unfinished": unfinished,
            "victory_points": list(victory_points)}


def league_standings(store: Any, league_id: str) -> dict[str, Any]:
    """`standings` for a stored league: each of its games replayed through the engine."""
    from companion.referee.engine import replay

    league = store.league(league_id)
    if league is None:
        known = ", ".join(entry["id"] for entry in store.leagues()[-3:]) or "none yet"
        raise LeagueError(f"no league {league_id!r} (leagues: {known})")
    states = [(g, replay(store.events(g)).state) for g in store.league_games(league_id)]
    # a game with no players (the host's New game taken back at once) was never played
    results = [(g, game_result(state)) for g, state in states if state["players"]]
    out = standings(results, league["victory_points"])
    out["league"] = {key: league[key] for key in ("id", "name", "created", "closed")}
    return out


CSV_COLUMNS = ("rank", "player", "victory_points", "games", "games_won", "game_points")


def standings_csv(table: dict[str, Any]) -> str:
    """The league table as CSV: one row per player, then one column per game's victory
    points (g1, g2... in the order played)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    games = table["games"]
    writer.writerow([*CSV_COLUMNS, *(f"g{i}" for i in range(1, len(games) + 1))])
    for row in table["table"]:
        writer.writerow([*(_cell(row[c]) for c in CSV_COLUMNS),
                         *(g["victory_points"].get(row["player"], "") for g in games)])
    return out.getvalue()


def _cell(value: Any) -> Any:
    """A text cell a spreadsheet would run as a formula (a name like "=HYPERLINK(...)" or "+1")
    gets a leading apostrophe, which spreadsheets show as text; numbers stay numbers."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value
