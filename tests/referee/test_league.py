"""League night (rules.md, "Victory points and league night"): victory points per placing,
the league table, the store's migration, the CLI and the JSON API."""
from __future__ import annotations

import csv
import io
import json
import sqlite3

import pytest

from companion.cli import main
from companion.referee.engine import replay
from companion.referee.league import (LeagueError, game_result, league_standings, parse_victory_points,
                              standings, standings_csv)
from companion.referee.service import Referee
from companion.referee.simulate import simulate_games
from companion.referee.store import SCHEMA_VERSION, EventStore

# The schema as the previous version (main before leagues, user_version 2) wrote it.
OLD_SCHEMA_V2 = """
CREATE TABLE games (n INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE,
    created REAL NOT NULL, finished INTEGER NOT NULL DEFAULT 0);
CREATE TABLE events (game_id TEXT NOT NULL REFERENCES games(id), seq INTEGER NOT NULL,
    time REAL NOT NULL, accepted INTEGER NOT NULL, source TEXT NOT NULL DEFAULT '',
    line TEXT NOT NULL, request_id TEXT, PRIMARY KEY (game_id, seq));
CREATE UNIQUE INDEX events_request ON events(request_id) WHERE request_id IS NOT NULL;
PRAGMA user_version=2;
"""


def result(placings, scores, winner=None):
    return {"placings": placings, "scores": scores, "winner": winner or placings[0]}


def test_victory_points_follow_the_placings_and_the_table_sorts_by_the_rulebook():
    games = [
        ("g1", result(["Ann", "Bob", "Cid", "Dee"], {"Ann": 520, "Bob": 300, "Cid": 100, "Dee": 0})),
        ("g2", result(["Bob", "Ann", "Dee", "Cid"], {"Ann": 200, "Bob": 505, "Cid": 10, "Dee": 90})),
        ("g3", None),  # unfinished: no points
        ("g4", result(["Cid", "Dee", "Ann", "Bob"], {"Ann": 50, "Bob": 40, "Cid": 500, "Dee": 60})),
    ]
    table = standings(games, [12, 6, 2, 0])
    rows = {r["player"]: r for r in table["table"]}
    assert rows["Ann"]["victory_points"] == 12 + 6 + 2 and rows["Bob"]["victory_points"] == 6 + 12
    assert [r["player"] for r in table["table"]] == ["Ann", "Bob", "Cid", "Dee"]
    assert rows["Cid"]["games_won"] == 1 and rows["Cid"]["game_points"] == 610
    assert table["unfinished"] == ["g3"] and len(table["games"]) == 3
    assert table["series"]["Ann"] == [12, 18, 20] and table["series"]["Dee"] == [0, 2, 8]


def test_league_ties_go_to_games_won_then_game_points():
    games = [("g1", result(["Ann", "Bob"], {"Ann": 500, "Bob": 400})),
             ("g2", result(["Bob", "Ann"], {"Ann": 100, "Bob": 501}))]
    table = standings(games, [10, 10])  # everyone 20 VP, one win each: game points decide
    assert [r["player"] for r in table["table"]] == ["Bob", "Ann"]
    assert [r["rank"] for r in table["table"]] == [1, 2]


def test_players_level_on_every_count_share_a_place():
    # the last tie-break ran out: ranked 2 and 3 by name before, with nothing between them
    games = [("g1", result(["Ann", "Bob", "Cid"], {"Ann": 30, "Bob": 0, "Cid": 0})),
             ("g2", result(["Ann", "Cid", "Bob"], {"Ann": 30, "Bob": 0, "Cid": 0}))]
    table = standings(games, [12, 6, 2])
    assert [(r["rank"], r["player"]) for r in table["table"]] == [(1, "Ann"), (2, "Bob"), (2, "Cid")]


def test_two_winner_preset_and_places_past_the_list_score_zero():
    assert parse_victory_points("two_winners") == [10, 6, 4, 0]
    table = standings([("g", result(list("ABCDEF"), {}))], [12, 6])
    assert [r["victory_points"] for r in table["table"]] == [12, 6, 0, 0, 0, 0]


def test_partners_share_their_teams_place_in_the_league():
    # Dee went out and team Bob & Dee won: both partners are first (and won the game), both
    # of the other team second, with their team's points; not Bob 1st and Dee 2nd.
    state = {"waiting_for": "game_over", "placings": ["Bob", "Dee", "Ann", "Cid"], "places": [1, 1, 2, 2],
             "game_winner": "Bob",
             "players": [{"name": "Ann", "score": 0}, {"name": "Bob", "score": 0},
                         {"name": "Cid", "score": 0}, {"name": "Dee", "score": 520}],
             "teams": [{"name": "Ann & Cid", "players": ["Ann", "Cid"], "score": 40, "hands_won": 1},
                       {"name": "Bob & Dee", "players": ["Bob", "Dee"], "score": 520, "hands_won": 3}]}
    table = standings([("g1", game_result(state))], [10, 6, 4, 0])["table"]
    rows = {r["player"]: (r["victory_points"], r["games_won"], r["game_points"]) for r in table}
    assert rows == {"Bob": (10, 1, 520), "Dee": (10, 1, 520), "Ann": (6, 0, 40), "Cid": (6, 0, 40)}


@pytest.mark.parametrize("value, message", [
    ([12, 6, "x"], "list of 1-10 whole numbers"), ([], "list of 1-10"), ([2, 6], "must not rise"),
    ("three", "not one of one_winner, two_winners"), ([True], "whole numbers"), ({"a": 1}, "list"),
])
def test_bad_victory_points_are_one_line_errors(value, message):
    with pytest.raises(LeagueError, match=message):
        parse_victory_points(value)


def _log(*events):
    return [json.dumps(e) for e in events]


def test_players_level_on_every_tie_break_share_the_place_and_its_victory_points():
    # Bob goes out; Ann, Cid and Dee each hold one card worth 5, none drew, none won a hand:
    # the rulebook's tie-breaks cannot part them, so their seats must not (6 / 2 / 0 before)
    log = _log({"type": "game", "players": ["Ann", "Bob", "Cid", "Dee"], "rules": {"hand_size": 2, "target": 10}},
               {"type": "deal", "dealer": "Ann"}, {"type": "flip", "card": "red_5"},
               {"type": "uno", "player": "Bob"}, {"type": "play", "card": "red_6"},
               {"type": "uno", "player": "Cid"}, {"type": "play", "card": "red_7"},
               {"type": "uno", "player": "Dee"}, {"type": "play", "card": "red_8"},
               {"type": "uno", "player": "Ann"}, {"type": "play", "card": "red_9"},
               {"type": "play", "card": "red_1"},
               {"type": "points", "player": "Cid", "points": 5}, {"type": "points", "player": "Dee", "points": 5},
               {"type": "points", "player": "Ann", "points": 5})
    state = replay(log).state
    assert state["placings"][0] == "Bob" and state["places"] == [1, 2, 2, 2]
    rows = {r["player"]: (r["rank"], r["victory_points"]) for r in standings([("g1", game_result(state))],
                                                                              [12, 6, 2, 0])["table"]}
    assert rows == {"Bob": (1, 12), "Ann": (2, 6), "Cid": (2, 6), "Dee": (2, 6)}


def test_a_shared_first_place_shares_the_win():
    state = {"waiting_for": "game_over", "placings": ["Ann", "Bob", "Cid"], "places": [1, 1, 3],
             "game_winner": "Ann", "players": [{"name": "Ann", "score": 40}, {"name": "Bob", "score": 40},
                                               {"name": "Cid", "score": 0}]}
    table = standings([("g1", game_result(state))], [12, 6, 2])["table"]
    assert {r["player"]: (r["victory_points"], r["games_won"]) for r in table} == \
        {"Ann": (12, 1), "Bob": (12, 1), "Cid": (2, 0)}


def test_engine_placings_follow_scoring_and_tie_breaks():
    log = list(simulate_games(4, 1, 3, {"hands": 1}, mistakes=False))
    state = replay(log).state
    assert state["waiting_for"] == "game_over"
    assert state["placings"][0] == state["game_winner"] and len(state["placings"]) == 4
    scores = {p["name"]: p["score"] for p in state["players"]}
    assert [scores[n] for n in state["placings"]] == sorted(scores.values(), reverse=True)
    assert game_result(state)["winner"] == state["game_winner"]
    assert replay(log[:-1]).state["placings"] == []


# ------------------------------------------------------------------ the store
def old_store(path):
    """A store as the previous version left it: two games, one finished."""
    db = sqlite3.connect(path)
    db.executescript(OLD_SCHEMA_V2)
    for n, game in enumerate(("g-old-1", "g-old-2")):
        log = list(simulate_games(3, 1, n, {"hands": 1}, mistakes=False))
        db.execute("INSERT INTO games (id, created, finished) VALUES (?, ?, ?)", (game, 1.0 + n, 1))
        db.executemany("INSERT INTO events (game_id, seq, time, accepted, source, line, request_id) "
                       "VALUES (?, ?, ?, 1, 'phone', ?, ?)",
                       [(game, i, 2.0, json.dumps(ev), f"req-{n}-{i:05d}") for i, ev in enumerate(log)])
    db.commit()
    db.close()


def test_migration_from_the_previous_schema_keeps_every_game_and_event(tmp_path):
    path = tmp_path / "games.db"
    old_store(path)
    before = sqlite3.connect(path).execute("SELECT game_id, seq, line, request_id FROM events "
                                           "ORDER BY game_id, seq").fetchall()
    with EventStore(path) as store:
        assert store.leagues() == []
        assert [g["id"] for g in store.games()] == ["g-old-1", "g-old-2"]
        assert store.find_request("req-1-00003")["seq"] == 3
        league_id = store.new_league("Thursday", [12, 6, 2, 0])
        store.add_to_league(league_id, "g-old-1")
        store.add_to_league(league_id, "g-old-2")
        table = league_standings(store, league_id)
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 4
    after = db.execute("SELECT game_id, seq, line, request_id FROM events ORDER BY game_id, seq").fetchall()
    assert after == before and len(before) > 50
    assert len(table["games"]) == 2 and sum(r["games_won"] for r in table["table"]) == 2


def test_migrated_store_opened_again_is_unchanged(tmp_path):
    path = tmp_path / "games.db"
    old_store(path)
    with EventStore(path) as store:
        league_id = store.new_league("A", [3, 1])
    with EventStore(path) as store:
        assert store.leagues()[0]["id"] == league_id and store.leagues()[0]["victory_points"] == [3, 1]


def test_games_started_while_a_league_is_open_join_it(tmp_path):
    store = EventStore(tmp_path / "games.db")
    referee = Referee(store)
    for ev in simulate_games(3, 1, 1, {"hands": 1}, mistakes=False):
        referee.submit(ev, source="test")  # before the league: not in it
    before = referee.game_id
    league_id = store.new_league("Evening", [12, 6, 2, 0])
    for seed in (2, 3, 4):
        for ev in simulate_games(3, 1, seed, {"hands": 1}, mistakes=False):
            referee.submit(ev, source="test")
    games = store.league_games(league_id)
    assert len(games) == 3 and before not in games
    table = league_standings(store, league_id)
    assert len(table["games"]) == 3 and sum(r["victory_points"] for r in table["table"]) == 3 * (12 + 6 + 2)
    store.close_league(league_id)
    for ev in simulate_games(3, 1, 5, {"hands": 1}, mistakes=False):
        referee.submit(ev, source="test")
    assert len(store.league_games(league_id)) == 3


def test_a_new_league_closes_the_open_one(tmp_path):
    store = EventStore(tmp_path / "games.db")
    first = store.new_league("one", [1])
    store.new_league("two", [1])
    assert [entry["closed"] for entry in store.leagues()] == [True, False]
    assert store.league(first)["closed"]


# ------------------------------------------------------------------ CLI
def test_cli_league_and_export_league_csv(tmp_path, capsys):
    db = tmp_path / "games.db"
    assert main(["league", "new", "Thursday club", "--victory-points", "10,6,4,0", "--db", str(db)]) == 0
    referee = Referee(EventStore(db))
    for seed in (1, 2, 3):
        for ev in simulate_games(4, 1, seed, {"hands": 1}, mistakes=False):
            referee.submit(ev, source="test")
    referee.store.close()
    out = tmp_path / "league.csv"
    # the option before the file would take the file for a league ID: a hint, not a guess
    assert main(["export", "--db", str(db), "--league", str(out)]) == 2
    assert "put the file first" in capsys.readouterr().err and not out.exists()
    assert main(["export", str(out), "--league", "--db", str(db)]) == 0  # as the README writes it
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    assert len(rows) == 4 and list(rows[0])[:6] == ["rank", "player", "victory_points", "games",
                                                    "games_won", "game_points"]
    assert sum(int(r["victory_points"]) for r in rows) == 3 * 20
    assert sum(int(r["g1"]) for r in rows) == 20 and rows[0]["rank"] == "1"
    capsys.readouterr()
    assert main(["league", "show", "--db", str(db)]) == 0
    assert "Thursday club" in capsys.readouterr().out
    assert main(["league", "show", "nope", "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert "no league 'nope'" in err and err.count("\n") == 1


@pytest.mark.parametrize("given, points, rc", [
    ("12 6 2", "12, 6, 2", 0), ("12, 6, 2, 0", "12, 6, 2, 0", 0), (" two_winners", "10, 6, 4, 0", 0),
    ("foo", None, 2), ("", None, 2), ("12,14", None, 2)])
def test_cli_league_victory_points_as_people_type_them(tmp_path, capsys, given, points, rc):
    db = tmp_path / "games.db"
    assert main(["league", "new", "Club", "--victory-points", given, "--db", str(db)]) == rc
    out, err = capsys.readouterr()
    if points:
        assert f"victory points {points};" in out
        assert main(["league", "show", "--db", str(db)]) == 0
        assert "0 finished games" in capsys.readouterr().out
    else:
        assert err.count("\n") == 1 and "[" not in err.split("like")[-1], err  # the CLI's own way to write a list


def test_cli_league_new_says_which_open_league_it_closed(tmp_path, capsys):
    db = tmp_path / "games.db"
    assert main(["league", "new", "September", "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["league", "new", "October", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "(September) closed" in out and "(October) open" in out


def test_cli_league_name_too_long_is_refused_not_cut(tmp_path, capsys):
    db = tmp_path / "games.db"
    assert main(["league", "new", "x" * 81, "--db", str(db)]) == 2
    assert "at most 80 characters, not 81" in capsys.readouterr().err
    assert not db.exists()  # refused before the store is opened: nothing stored, no file made


def test_cli_export_league_without_leagues_is_one_line(tmp_path, capsys):
    db = tmp_path / "games.db"
    EventStore(db).close()
    assert main(["export", "--league", "--db", str(db), str(tmp_path / "x.csv")]) == 2
    assert "holds no league yet" in capsys.readouterr().err


def test_standings_csv_has_a_column_per_game():
    text = standings_csv(standings([("g1", result(["A", "B"], {"A": 1, "B": 0}))], [5, 1]))
    assert text.splitlines() == ["rank,player,victory_points,games,games_won,game_points,g1",
                                 "1,A,5,1,1,1,5", "2,B,1,1,0,0,1"]


def test_a_name_a_spreadsheet_would_run_is_exported_as_text():
    # "=HYPERLINK(...)" as a player's name became a live link in the host's spreadsheet
    text = standings_csv(standings([("g1", result(["=HYPERLINK(\"http://e.vil\")", "+1+2"], {}))], [5, 1]))
    rows = list(csv.reader(io.StringIO(text)))
    assert [r[1] for r in rows[1:]] == ["'=HYPERLINK(\"http://e.vil\")", "'+1+2"]
    assert rows[1][2] == "5"  # numbers stay numbers


def test_game_points_of_a_lowest_wins_game_count_against_the_player_in_the_tie_break():
    # Bob and Eve: level on victory points and games won. Bob's 65 points were held against
    # him in a lowest-wins game he finished last in; Eve's 20 in one she placed better in.
    games = [
        ("g1", {"placings": ["Ann", "Eve", "Bob"], "scores": {"Ann": 5, "Eve": 20, "Bob": 65},
                "winner": "Ann", "lowest_wins": True}),
        ("g2", {"placings": ["Cid", "Bob", "Eve"], "scores": {"Cid": 510, "Bob": 0, "Eve": 0},
                "winner": "Cid"}),
    ]
    table = standings(games, [12, 6, 0])["table"]
    order = [row["player"] for row in table]
    assert order.index("Eve") < order.index("Bob")
    assert {row["player"]: row["game_points"] for row in table}["Bob"] == 65  # the column as played


def test_game_result_marks_a_lowest_wins_game():
    from companion.referee.simulate import simulate_games

    log = list(simulate_games(3, 1, 5, {"hands": 1, "scoring": "lowest_wins"}, mistakes=False))
    assert game_result(replay(log).state)["lowest_wins"] is True


def test_cli_import_into_a_league_counts_the_game_and_an_unknown_league_imports_nothing(tmp_path, capsys):
    # A game played on another companion, brought to league night: `import --league ID` puts it in
    # the standings at once (without it, an imported game joins no league).
    db, log = tmp_path / "games.db", tmp_path / "game.jsonl"
    log.write_text("".join(json.dumps(ev) + "\n" for ev in simulate_games(4, 1, 5, {"hands": 1}, mistakes=False)))
    assert main(["league", "new", "Friday", "--db", str(db)]) == 0
    with EventStore(db) as store:
        (league,) = [entry["id"] for entry in store.leagues()]
        store.close_league(league)  # the evening is over; its games are brought in afterwards
    capsys.readouterr()
    assert main(["import", str(log), "--league", "nope", "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert "no league 'nope'" in err and err.count("\n") == 1
    with EventStore(db) as store:
        assert store.games() == []  # nothing imported
    assert main(["import", str(log), "--league", league, "--db", str(db)]) == 0
    assert f"in league {league}" in capsys.readouterr().out
    with EventStore(db) as store:
        table = league_standings(store, league)
    assert [row["games"] for row in table["table"]] == [1, 1, 1, 1]  # four players, one game each
    assert main(["import", str(log), "--db", str(db)]) == 2  # the same log again: it would count twice
    assert "already" in capsys.readouterr().err
    with EventStore(db) as store:
        assert len(store.games()) == 1 and len(store.league_games(league)) == 1


def test_cli_league_show_and_close_take_the_league_by_option_too(tmp_path, capsys):
    # `league show --league ID` showed the newest league and ignored ID
    db = tmp_path / "games.db"
    assert main(["league", "new", "September", "--db", str(db)]) == 0
    assert main(["league", "new", "October", "--db", str(db)]) == 0
    capsys.readouterr()
    september = EventStore(db).leagues()[0]["id"]
    assert main(["league", "show", "--league", september, "--db", str(db)]) == 0
    assert capsys.readouterr().out.startswith(f"September ({september})")
    assert main(["league", "show", "other", "--league", september, "--db", str(db)]) == 2
    assert capsys.readouterr().err == f"uno-companion league: show other and --league {september} name two leagues: give one\n"
    assert main(["league", "list", "--league", september, "--db", str(db)]) == 2
    assert capsys.readouterr().err == "uno-companion league: --league goes with add, show and close, not list\n"


def test_cli_league_close_add_say_what_is_so(tmp_path, capsys):
    # the probe: `close` with none open said "closed" about a league closed already; `add` of a
    # game in the league said "added" again; adding to a closed league went without a word;
    # `new` with bad victory points had created the store file before refusing
    db = tmp_path / "games.db"
    assert main(["league", "new", "Club", "--victory-points", "1,2,3", "--db", str(db)]) == 2
    assert not db.exists()
    for seed in (1,):
        referee = Referee(EventStore(db))
        for ev in simulate_games(3, 1, seed, {"hands": 1}, mistakes=False):
            referee.submit(ev, source="test")
        referee.store.close()
    game = EventStore(db).games()[0]["id"]
    assert main(["league", "new", "Club", "--db", str(db)]) == 0
    league = EventStore(db).leagues()[0]["id"]
    assert main(["league", "close", "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["league", "close", "--db", str(db)]) == 0
    assert capsys.readouterr().out == "no league is open: nothing to close\n"
    assert main(["league", "close", league, "--db", str(db)]) == 0
    assert capsys.readouterr().out == f"league {league} was closed already\n"
    assert main(["league", "add", game, "--db", str(db)]) == 0
    assert capsys.readouterr().out == f"game {game} added to league {league} (a closed league)\n"
    assert main(["league", "add", game, "--league", league, "--db", str(db)]) == 0
    assert capsys.readouterr().out == f"game {game} is already in league {league}\n"
    assert EventStore(db).league_games(league) == [game]
    # a game still in play is said to count only once finished, not simply "added"
    referee = Referee(EventStore(db))
    for ev in list(simulate_games(3, 1, 2, {"hands": 1}, mistakes=False))[:6]:
        referee.submit(ev, source="test")
    referee.store.close()
    playing = EventStore(db).games()[-1]["id"]
    capsys.readouterr()
    assert main(["league", "add", playing, "--league", league, "--db", str(db)]) == 0
    assert capsys.readouterr().out == (f"game {playing} added to league {league} (a closed league): "
                                       "not finished yet, it counts once it is\n")
    assert main(["league", "show", league, "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "1 unfinished (not counted); victory points per place 12, 6, 2, 0" in out and " VP " not in out
