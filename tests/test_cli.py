"""The `uno-companion` entry point: what its exit status tells a script (README, "Every command exits")."""
from __future__ import annotations

from pathlib import Path

import pytest

from companion.cli import main

EXAMPLE = Path(__file__).resolve().parents[1] / "companion" / "data" / "example.jsonl"


@pytest.mark.parametrize("argv, status", [
    (["render", "red_55"], 1),                                   # a bad value: a card that does not exist
    (["simulate", "--rules", '{"stackin": true}'], 1),           # a rule that does not exist
    (["render", "--height", "5"], 2),                            # a command line that does not fit
    (["run", "--status-every", "0"], 2),
    (["make-video", "--noise", "-1", "v.mp4"], 2),
    (["eval-photos", "--per-card", "0", "--rendered", "classic"], 2),
    (["replay", "no-such-log.jsonl"], 2),                        # a file that cannot be read
    (["recognize", "no-such.jpg"], 2),
    (["recognize", "."], 2),                                     # a folder is no picture
    (["bench-vision", "--model", "no-such.pt", "--frames", "1"], 2),
    (["bench-vision", "--light", "candle", "--frames", "1"], 1),  # a camera shift that does not exist
    (["bench-vision", "--export", "--frames", "1"], 2),          # would replace the shipped ONNX model
    (["run", "--bench", "-5"], 2),
    (["run", "--video", "."], 2),                                # a folder is no video
    (["run", "--camera", "."], 2),
    (["init", "--path", "."], 2),                                # a folder is no configuration file
    (["no-such-command"], 2),
])
def test_exit_status_says_what_kind_of_mistake(argv, status, capsys, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert main(argv) == status
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_store_commands_use_the_store_the_configuration_names(capsys, tmp_path, monkeypatch) -> None:
    # `league new` on league night opened the league in a second, empty store the table never saw
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("UNO_COMPANION_DB", raising=False)
    table_db = tmp_path / "usb" / "games.db"
    (tmp_path / "config" / "uno-companion").mkdir(parents=True)
    (tmp_path / "config" / "uno-companion" / "config.toml").write_text(f'db = "{table_db}"\n')
    table_db.parent.mkdir()
    assert main(["import", str(EXAMPLE)]) == 0
    assert str(table_db) in capsys.readouterr().out
    assert main(["league", "new", "Thursday"]) == 0
    assert main(["league", "show"]) == 0 and "Thursday" in capsys.readouterr().out
    assert main(["export", "--list"]) == 0 and "finished" in capsys.readouterr().out
    assert main(["restore"]) == 0 and str(table_db) in capsys.readouterr().out
    assert not (tmp_path / "data" / "uno-companion" / "games.db").exists()  # no second store
    # --db still wins, and --config names another configuration
    other = tmp_path / "other.toml"
    other.write_text(f'db = "{tmp_path / "elsewhere.db"}"\n')
    assert main(["league", "show", "--config", str(other)]) == 2
    assert "elsewhere.db" in capsys.readouterr().err
    assert main(["league", "show", "--db", str(table_db), "--config", str(other)]) == 0


def test_a_reader_that_stops_reading_ends_the_command_quietly(tmp_path) -> None:
    # `uno-companion init | head -0`: the pipe is closed before the command writes its line
    import os
    import subprocess
    import sys

    env = dict(os.environ, HOME=str(tmp_path))
    done = subprocess.run(f"{sys.executable} -m companion.cli init | head -c 0; exit ${{PIPESTATUS[0]}}",
                          shell=True, executable="/bin/bash", env=env, capture_output=True, text=True, timeout=120)
    assert "Traceback" not in done.stderr and "BrokenPipe" not in done.stderr
    assert done.returncode == 0  # not an error, as for replay, export and simulate
    assert (tmp_path / ".config" / "uno-companion" / "config.toml").is_file()  # the work itself was done


def test_an_interrupted_make_video_leaves_no_half_written_file(tmp_path, monkeypatch) -> None:
    from companion.synth import tablevideo

    frames = tablevideo.TableVideo.frames

    def interrupted(self):
        for i, frame in enumerate(frames(self)):
            if i == 3:
                raise KeyboardInterrupt
            yield frame

    monkeypatch.setattr(tablevideo.TableVideo, "frames", interrupted)
    monkeypatch.chdir(tmp_path)
    assert main(["make-video", "--plays", "2", "v.mp4"]) == 130
    assert list(tmp_path.iterdir()) == []


# A user's mistake found by the new-user probe: one line naming it, exit 2, nothing written.
@pytest.mark.parametrize("argv, says", [
    (["simulate", "--rules", '{"hand_size": 30}', "--players", "10", "--out", "s.jsonl"],
     "uno-companion simulate: 10 hands of 30 do not fit in a 108-card deck\n"),  # was a traceback, exit 1
    (["simulate", "--rules", '{"deck": "classic"}', "--deck", "flip", "--out", "s.jsonl"],
     "uno-companion simulate: --deck flip and the rules' \"deck\": \"classic\" name different decks: give one\n"),
])
def test_a_mistake_is_one_line_exit_2_and_writes_nothing(argv, says, capsys, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert main(argv) == 2
    assert capsys.readouterr().err == says
    assert list(tmp_path.iterdir()) == []


# Options that do not go together (README: exit 2), silently accepted before: one was ignored.
@pytest.mark.parametrize("argv, says", [
    (["make-video", "v.mp4", "--log", "hand.jsonl", "--plays", "5"],
     "--plays and --log cannot go together: give one (--hands and --log say what is played)"),
    (["make-video", "v.mp4", "--hands", "1", "--plays", "5"],
     "--plays and --hands cannot go together: give one (--hands and --log say what is played)"),
    (["export", "--list", "--league"], "--list cannot go with --league: it only lists the stored games"),
    (["export", "out.csv", "--game", "g1", "--league"],
     "--game and --league cannot go together: export a game (JSON Lines) or a league's standings (CSV)"),
])
def test_options_that_do_not_go_together_are_one_line_exit_2(argv, says, capsys, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("UNO_COMPANION_DB", str(tmp_path / "games.db"))
    (tmp_path / "hand.jsonl").write_text(EXAMPLE.read_text())
    assert main(argv) == 2
    assert capsys.readouterr().err == f"uno-companion {argv[0]}: {says}\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hand.jsonl"]


def test_one_of_a_thing_is_said_in_the_singular(capsys, tmp_path, monkeypatch) -> None:
    # the probe saw `1 card faces -> cards` and `there are 1`
    from companion.backup import make_backup
    from companion.referee.store import EventStore

    monkeypatch.chdir(tmp_path)
    assert main(["render", "red_5", "--out", "faces"]) == 0
    assert capsys.readouterr().out == "1 card face -> faces\n"
    (tmp_path / "one.jsonl").write_text("".join(EXAMPLE.read_text().splitlines(keepends=True)[:3]))  # game, deal, flip
    assert main(["make-video", "v.mp4", "--log", "one.jsonl"]) == 0
    assert "(1 card laid," in capsys.readouterr().out
    db = tmp_path / "games.db"
    EventStore(db).close()
    assert main(["restore", "1", "--db", str(db)]) == 2
    assert "no backup number 1: there are none (" in capsys.readouterr().err
    make_backup(db)
    assert main(["restore", "2", "--db", str(db)]) == 2
    assert "no backup number 2: there is 1 (" in capsys.readouterr().err


def test_league_victory_points_are_named_as_the_user_typed_them(capsys, tmp_path) -> None:
    # said `victory_points must not rise`, the web API's key, to someone who typed --victory-points
    db = tmp_path / "games.db"
    # and a bad value is a usage error (exit 2) whether it is words or rising numbers
    assert main(["league", "new", "Club", "--victory-points", "1,2,3", "--db", str(db)]) == 2
    assert capsys.readouterr().err == ("uno-companion league: --victory-points: victory points must not rise "
                                       "from one place to the next: 1, 2, 3\n")


def test_restore_hint_names_the_store_the_user_named(capsys, tmp_path, monkeypatch) -> None:
    # the hint said `uno-companion restore N`, which restores the default store, not --db's
    from companion.backup import make_backup
    from companion.referee.store import EventStore

    monkeypatch.chdir(tmp_path)
    EventStore(tmp_path / "my games.db").close()
    make_backup(tmp_path / "my games.db")
    assert main(["restore", "--db", "my games.db"]) == 0
    out = capsys.readouterr().out
    assert out.endswith("restore one with: uno-companion restore N --db 'my games.db'\n")
    assert " 0 games, 0 events" in out


def test_watch_fake_truth_refuses_a_table_log_that_is_no_videos_truth(capsys, tmp_path, monkeypatch) -> None:
    # `watch VIDEO --fake-truth hand.jsonl` with simulate's output: "0 events from 995 frames", exit 0
    monkeypatch.chdir(tmp_path)
    log = "".join(EXAMPLE.read_text().splitlines(keepends=True)[:3])  # game, deal, flip: no times
    (tmp_path / "hand.jsonl").write_text(log)
    (tmp_path / "v.jsonl").write_text(log)
    assert main(["make-video", "v.mp4", "--log", "v.jsonl"]) == 0
    capsys.readouterr()
    assert main(["watch", "v.mp4", "--fake-truth", "hand.jsonl"]) == 2
    out = capsys.readouterr()
    assert out.out == "" and out.err == (
        "uno-companion watch: --fake-truth hand.jsonl: not a video's truth (no `t` times and boxes on its card "
        "lines): give the .jsonl that make-video wrote beside the video\n")


def test_watch_says_when_the_picture_shows_no_colour(capsys, tmp_path) -> None:
    # a webcam in its black-and-white night mode: `watch` printed "0 events" and nothing else,
    # where `run` says why on the console and the host page
    import cv2

    from companion.synth.tablevideo import make_video, plan_session

    video = tmp_path / "table.mp4"
    make_video(video, seed=3, steps=plan_session(2, seed=3, finish_hand=False))  # a flip and a play
    reader = cv2.VideoCapture(str(video))
    fps = reader.get(cv2.CAP_PROP_FPS) or 10.0
    grey_path = tmp_path / "grey.mp4"
    writer = None
    while True:
        ok, frame = reader.read()
        if not ok:
            break
        grey = cv2.cvtColor(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
        if writer is None:
            writer = cv2.VideoWriter(str(grey_path), cv2.VideoWriter_fourcc(*"mp4v"), fps, grey.shape[1::-1])
        writer.write(grey)
    reader.release()
    writer.release()
    assert main(["watch", str(grey_path)]) == 0
    err = capsys.readouterr().err
    assert "showed no colour (a black-and-white picture?)" in err, err
