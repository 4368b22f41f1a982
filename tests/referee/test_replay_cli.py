"""`uno-companion replay`, `export` and `import` as a user runs them."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from companion.cli import main
from companion.data import EXAMPLE_LOG
from companion.referee.engine import replay
from companion.referee.store import EventStore

STATE_KEYS = {
    "players", "dealer", "turn", "direction", "top", "color", "waiting_for", "hand_winner",
    "game_winner", "notices",
}
NOTICE_KINDS = {
    "illegal_play", "uno_called", "uno_penalty", "catch_void", "challenge_upheld",
    "challenge_failed", "penalty_draw", "hand_won", "game_won", "count_mismatch", "rejected",
    "reshuffle",
}
OPENING = [
    '{"type": "game", "players": ["Ann", "Bob", "Cid"]}',
    '{"type": "deal", "dealer": "Ann"}',
    '{"type": "flip", "card": "red_5"}',
]


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def test_replay_example_prints_a_readable_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(EXAMPLE_LOG)]) == 0
    out = capsys.readouterr().out
    assert "3 players, hand 2, 71 events; rules: target=200" in out
    assert "Ann         0    324          2  (game winner)" in out
    assert "Waiting for: game_over" in out
    assert "Game winner: Ann" in out
    assert "[18] challenge_upheld: Cid held a playable colour" in out
    assert "[28] uno_penalty: Ann did not call UNO: draws 2" in out
    assert "Hand 1: won by Ann (Ann +183)" in out


def test_replay_names_the_colour_in_force_not_a_wrong_card_s(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    log = _write(tmp_path / "wrong.jsonl", OPENING + [
        '{"type": "play", "card": "wild", "color": "green"}', '{"type": "play", "card": "red_7"}'])
    assert main(["replay", str(log)]) == 0
    out = capsys.readouterr().out
    assert "Top card: red_7 (colour in force: green)" in out and "Waiting for: take_back" in out


def test_replay_example_has_no_rejected_line() -> None:
    state = replay(EXAMPLE_LOG.read_text(encoding="utf-8").splitlines()).state
    assert not [n for n in state["notices"] if n["kind"] == "rejected"]
    kinds = {n["kind"] for n in state["notices"]}
    # The example shows the referee at work: it must keep covering these.
    assert {"challenge_upheld", "uno_called", "uno_penalty", "illegal_play", "hand_won",
            "game_won", "penalty_draw"} <= kinds


def test_replay_json_prints_the_state_object_exactly(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", "--json", str(EXAMPLE_LOG)]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == replay(EXAMPLE_LOG.read_text(encoding="utf-8").splitlines()).state
    assert STATE_KEYS <= printed.keys()
    assert set(printed["players"][0]) == {"name", "cards", "score", "hands_won"}
    assert printed["direction"] in ("clockwise", "counterclockwise")
    for notice in printed["notices"]:
        assert set(notice) == {"event", "kind", "player", "message"}
        assert notice["kind"] in NOTICE_KINDS


def test_replay_json_mid_hand_state(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = _write(tmp_path / "log.jsonl", OPENING + ['{"type": "play", "card": "red_7"}'])
    assert main(["replay", str(log), "--json"]) == 0
    state = json.loads(capsys.readouterr().out)
    assert {k: state[k] for k in STATE_KEYS} == {
        "players": [
            {"name": "Ann", "cards": 7, "score": 0, "hands_won": 0},
            {"name": "Bob", "cards": 6, "score": 0, "hands_won": 0},
            {"name": "Cid", "cards": 7, "score": 0, "hands_won": 0},
        ],
        "dealer": "Ann", "turn": "Cid", "direction": "clockwise", "top": "red_7",
        "color": "red", "waiting_for": "play", "hand_winner": None, "game_winner": None,
        "notices": [],
    }


@pytest.mark.parametrize(
    "bad_line",
    [
        "this is not json",
        '{"type": "play", "card": "red_77"}',
        '{"type": "dance"}',
        '["a", "list"]',
        '{"type": "pass"}',  # does not fit: nobody drew
    ],
)
def test_replay_bad_line_is_rejected_and_replay_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], bad_line: str
) -> None:
    log = _write(tmp_path / "log.jsonl", OPENING + [bad_line, '{"type": "play", "card": "red_7"}'])
    assert main(["replay", "--json", str(log)]) == 0
    state = json.loads(capsys.readouterr().out)
    rejected = [n for n in state["notices"] if n["kind"] == "rejected"]
    assert [n["event"] for n in rejected] == [3]
    assert rejected[0]["message"]
    assert state["top"] == "red_7" and state["turn"] == "Cid"  # the line after it counted


def test_replay_rejected_line_shows_in_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = _write(tmp_path / "log.jsonl", OPENING + ['{"type": "play", "card": "red_77"}'])
    assert main(["replay", str(log)]) == 0
    assert "[3] rejected: unknown card 'red_77': did you mean" in capsys.readouterr().out


def test_replay_empty_log_says_no_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = _write(tmp_path / "log.jsonl", [])
    assert main(["replay", str(log)]) == 0
    assert "No game yet" in capsys.readouterr().out


@pytest.mark.parametrize(
    "make",
    [
        lambda d: d / "missing.jsonl",
        lambda d: d,  # a folder
        lambda d: (d / "bin.jsonl", (d / "bin.jsonl").write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe"))[0],
    ],
    ids=["missing", "folder", "binary"],
)
def test_replay_unreadable_file_exits_2_with_one_line(tmp_path: Path, make) -> None:
    path = make(tmp_path)
    run = subprocess.run(
        [sys.executable, "-m", "companion.cli", "replay", str(path)],
        capture_output=True, text=True,
    )
    assert run.returncode == 2
    assert run.stdout == ""
    assert len(run.stderr.strip().splitlines()) == 1
    assert run.stderr.startswith("uno-companion replay: ") and str(path) in run.stderr


def test_export_import_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = tmp_path / "table.db"
    assert main(["import", "--db", str(db), str(EXAMPLE_LOG)]) == 0
    assert "71 events (0 rejected), finished" in capsys.readouterr().out
    out = tmp_path / "out.jsonl"
    assert main(["export", "--db", str(db), str(out)]) == 0
    assert "71 events" in capsys.readouterr().out
    original = [json.loads(line) for line in EXAMPLE_LOG.read_text().splitlines()]
    assert [json.loads(line) for line in out.read_text().splitlines()] == original
    assert main(["export", "--db", str(db), "--list"]) == 0
    assert "finished" in capsys.readouterr().out
    assert main(["export", "--db", str(db), "-"]) == 0  # to stdout, for a pipe
    assert [json.loads(line) for line in capsys.readouterr().out.splitlines()] == original


def test_import_keeps_rejected_lines_and_marks_them(tmp_path: Path) -> None:
    db = tmp_path / "table.db"
    # a pass before drawing: refused at the table, kept as the store keeps it (a blank line too)
    log = _write(tmp_path / "log.jsonl", OPENING + ['{"type": "pass"}', "", '{"type": "play", "card": "red_7"}'])
    assert main(["import", "--db", str(db), str(log)]) == 0
    with EventStore(db) as store:
        game = store.last_unfinished()
        assert game is not None
        rows = store.rows(game)
    assert [r["accepted"] for r in rows] == [True, True, True, False, False, True]
    assert rows[3]["line"] == {"type": "pass"} and rows[4]["line"] == ""


def test_a_line_nested_too_deep_is_kept_as_refused_text_and_the_store_still_reads(tmp_path: Path, capsys) -> None:
    # json.loads raises RecursionError, not ValueError, on it: the import stored the game, then
    # every later read of the store (export, run) failed with a traceback
    db = tmp_path / "table.db"
    deep = "[" * 1000 + "]" * 1000
    log = _write(tmp_path / "log.jsonl", OPENING + [deep, '{"type": "play", "card": "red_7"}'])
    assert main(["import", "--db", str(db), str(log)]) == 1  # no table writes it: refused now
    assert "line 4: not JSON" in capsys.readouterr().err
    with EventStore(db) as store:  # a store that holds one (written before import refused them)
        game = store.new_game()
        for line in OPENING + [deep, '{"type": "play", "card": "red_7"}']:
            store.append(game, line, line != deep)
    assert main(["export", "--db", str(db), "--list"]) == 0
    assert main(["export", "--db", str(db), "-"]) == 0
    assert deep in capsys.readouterr().out
    with EventStore(db) as store:
        rows = store.rows(store.last_unfinished())
    assert rows[3]["line"] == deep and not rows[3]["accepted"] and rows[4]["accepted"]


def test_import_of_a_finished_log_leaves_the_game_in_progress_to_resume(tmp_path: Path, capsys) -> None:
    # last week's finished game imported for the record: the next start resumed nothing
    db = tmp_path / "table.db"
    log = _write(tmp_path / "now.jsonl", OPENING + ['{"type": "play", "card": "red_7"}'])
    assert main(["import", "--db", str(db), str(log)]) == 0
    with EventStore(db) as store:
        in_progress = store.last_unfinished()
    assert in_progress is not None
    assert main(["import", "--db", str(db), str(EXAMPLE_LOG)]) == 0
    assert "finished" in capsys.readouterr().out
    with EventStore(db) as store:
        assert store.last_unfinished() == in_progress
        games = len(store.games())
    # an unfinished log would take the game's place at the next start: refused, nothing stored
    assert main(["import", "--db", str(db), str(log)]) == 2
    err = capsys.readouterr().err
    assert in_progress in err and err.count("\n") == 1
    with EventStore(db) as store:
        assert len(store.games()) == games and store.last_unfinished() == in_progress


@pytest.mark.parametrize("tail, code, message", [
    ('{"type": "play", "card": "purple_5"}\n{"type": "draw"}\n', 1, "line 4: purple_5 is not in the classic deck"),
    ('{"type": "play", "card": "giallo_5"}\n', 1, "line 4: unknown card 'giallo_5'"),
    ('{"type": "play", "ca', 2, "line 4 is cut off"),
    # lines no table writes: stored as refusals, `run` would resume a game with garbage in it
    ('{"type": "PLAY", "card": "red_7"}\n', 1, "line 4: unknown event type 'PLAY'"),
    ('not json\n{"type": "pass"}\n', 1, "line 4: not JSON"),
    ('{"type": "play", "card": null}\n', 1, 'line 4: missing "card"'),
    ('{"type": "draw", "count": "2"}\n', 1, 'line 4: "count" must be a whole number'),
    ('["play", "red_7"]\n', 1, "line 4: an event must be a JSON object"),
    ('{"type": "play", "type": "pass"}\n', 1, "line 4 gives the key 'type' twice"),
    ('{"type": "pass", "pad": "' + "x" * 70_000 + '"}\n', 1, "line 4 is 68 KB: a table's line is at most 64 KB"),
    ('{"type": "game", "players": ["Ann", "ann"]}\n', 1, "line 4: names that differ only in capitals"),
])
def test_import_of_a_damaged_log_imports_nothing(tmp_path: Path, capsys, tail, code, message) -> None:
    db = tmp_path / "table.db"
    log = tmp_path / "log.jsonl"
    log.write_text("\n".join(OPENING) + "\n" + tail)
    assert main(["import", "--db", str(db), str(log)]) == code
    err = capsys.readouterr().err
    assert message in err and "nothing imported" in err and err.count("\n") == 1
    assert not db.exists() or EventStore(db).games() == []


@pytest.mark.parametrize(
    "argv, message",
    [
        (["export", "--db", "{d}/none.db", "{d}/o.jsonl"], "no event store at"),
        # an empty file is no store either, and stays empty: SQLite would make one of it
        (["export", "--db", "{d}/empty.jsonl", "--list"], "an empty file at"),
        (["league", "show", "--db", "{d}/empty.jsonl"], "an empty file at"),
        (["export", "--db", "{d}/t.db", "--game", "nope", "{d}/o.jsonl"], "no game 'nope'"),
        (["import", "--db", "{d}/t.db", "{d}/missing.jsonl"], "no such file"),
        (["export", "--db", "{d}/t.db"], "name the file to write"),
        (["export", "--db", "{d}/t.db", "{d}"], "is a folder: name the file to write"),
        (["import", "--db", "{d}/t.db", "{d}/empty.jsonl"], "starts no game"),
        (["import", "--db", "{d}/t.db", "{d}/refused.jsonl"], "starts no game"),
    ],
)
def test_export_import_mistakes_are_one_line(tmp_path: Path, argv: list[str], message: str,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    with EventStore(tmp_path / "t.db") as store:
        store.append(store.new_game(), OPENING[0], True)
    (tmp_path / "empty.jsonl").write_text("")
    (tmp_path / "refused.jsonl").write_text('{"type": "game", "players": ["Ann"]}\n{"type": "deal"}\n')
    with EventStore(tmp_path / "t.db") as store:
        games_before = len(store.games())
    code = main([a.format(d=tmp_path) for a in argv])
    assert (tmp_path / "empty.jsonl").stat().st_size == 0
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "o.jsonl").exists()
    assert not (tmp_path / "none.db").exists()  # export never creates a database
    with EventStore(tmp_path / "t.db") as store:
        assert len(store.games()) == games_before  # nothing imported


def test_a_log_whose_new_game_was_undone_is_one_game(tmp_path: Path, capsys) -> None:
    db = tmp_path / "table.db"
    log = _write(tmp_path / "log.jsonl", OPENING + ['{"type": "game", "players": ["Dee", "Eve"]}',
                                                    '{"type": "undo"}', '{"type": "play", "card": "red_7"}'])
    assert main(["import", "--db", str(db), str(log)]) == 0
    assert "6 events (0 rejected), unfinished" in capsys.readouterr().out
    with EventStore(db) as store:
        assert len(store.games()) == 1


def test_a_log_imported_twice_is_refused_the_second_time(tmp_path: Path, capsys) -> None:
    db = tmp_path / "table.db"
    assert main(["import", "--db", str(db), str(EXAMPLE_LOG)]) == 0
    capsys.readouterr()
    assert main(["import", "--db", str(db), str(EXAMPLE_LOG)]) == 2
    err = capsys.readouterr().err
    assert "is in" in err and "already" in err and err.count("\n") == 1
    # nor spaced otherwise, with a blank line at its end (it counted twice in a league)
    respaced = tmp_path / "again.jsonl"
    respaced.write_text("".join(json.dumps(json.loads(line), indent=None, separators=(",", ":")) + "\n"
                                for line in EXAMPLE_LOG.read_text().splitlines() if line.strip()) + "\n")
    assert main(["import", "--db", str(db), str(respaced)]) == 2
    with EventStore(db) as store:
        assert len(store.games()) == 1


def test_a_whole_log_without_a_last_newline_imports(tmp_path: Path) -> None:
    db = tmp_path / "table.db"
    log = tmp_path / "log.jsonl"
    log.write_text("\n".join(OPENING + ['{"type": "play", "card": "red_7"}']))  # no newline at the end
    assert main(["import", "--db", str(db), str(log)]) == 0


def test_a_log_cut_inside_a_letter_says_it_is_cut_off(tmp_path: Path, capsys) -> None:
    log = tmp_path / "log.jsonl"
    log.write_bytes(("\n".join(OPENING) + '\n{"type": "game", "players": ["Zoë"').encode("utf-8")[:-2])
    assert main(["import", "--db", str(tmp_path / "t.db"), str(log)]) == 2
    assert "is cut off" in capsys.readouterr().err


def test_export_takes_the_tables_game_not_an_undone_new_game_and_list_names_the_players(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A New game pressed by mistake and undone leaves an empty game, the newest in the store:
    # `export` with no --game writes the game the table plays, and --list says which is which.
    from companion.referee.service import Referee

    db = tmp_path / "table.db"
    with EventStore(db) as store:
        referee = Referee(store)
        referee.submit({"type": "game", "players": ["Ann", "Bob"]}, "host")
        referee.submit({"type": "deal", "dealer": "Ann"}, "host")
        playing = referee.game_id
        referee.submit({"type": "game", "players": ["Ann", "Bob"]}, "host")
        referee.submit({"type": "undo"}, "host")
        assert referee.game_id == playing
    assert main(["export", "--db", str(db), "-"]) == 0
    assert [json.loads(line)["type"] for line in capsys.readouterr().out.splitlines()] == ["game", "deal"]
    assert main(["export", "--db", str(db), "--list"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[0].startswith(playing) and rows[0].endswith("Ann, Bob")
    assert rows[1].endswith("no players (a new game taken back)")


def test_a_log_of_several_games_is_imported_as_that_many_games(tmp_path: Path, capsys) -> None:
    # a simulated evening (`simulate --hands 3` with one-hand games) was stored as one game:
    # the league counted one of its three
    db, log = tmp_path / "table.db", tmp_path / "three.jsonl"
    assert main(["simulate", "--rules", '{"hands": 1}', "--hands", "3", "--seed", "4", "--out", str(log)]) == 0
    lines = log.read_text(encoding="utf-8").splitlines()
    assert sum(json.loads(line)["type"] == "game" for line in lines) == 3
    assert main(["league", "new", "Friday", "--db", str(db)]) == 0
    league = re.search(r"\b(l\d{8}-\d{6}-[0-9a-f]+)\b", capsys.readouterr().out).group(1)
    assert main(["import", "--db", str(db), str(log), "--league", league]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"imported {log} as 3 games into {db}, in league {league}") and out.count("finished") == 3
    with EventStore(db) as store:
        games = store.games()
        assert [replay(store.events(g["id"])).state["waiting_for"] for g in games] == ["game_over"] * 3
        assert sum(g["events"] for g in games) == len(lines)
    assert main(["league", "show", league, "--db", str(db), "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["games"]) == 3


def test_a_log_that_leaves_a_game_for_a_new_one_is_refused(tmp_path: Path, capsys) -> None:
    db = tmp_path / "table.db"
    log = _write(tmp_path / "two.jsonl", OPENING + ['{"type": "play", "card": "red_7"}'] + OPENING)
    assert main(["import", "--db", str(db), str(log)]) == 2
    err = capsys.readouterr().err
    assert "line 5 starts a new game before game 1 of the log is over" in err and err.count("\n") == 1
    assert not db.exists() or EventStore(db).games() == []
