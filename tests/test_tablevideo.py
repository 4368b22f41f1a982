"""The table-video generator: legal sessions, files, truth, and the shipped demo."""
from __future__ import annotations

import cv2
import pytest

from companion.cli import main as cli
from companion.engine import replay
from companion.tablevideo import (
    Step,
    TruthDetector,
    VideoSpec,
    legal_session,
    make_video,
    plan_session,
    read_truth,
)

DEMO = "companion/data/demo"


def _lines(steps):
    return [line for step in steps for line in (*step.before, *step.lines)]


def test_plan_session_lays_enough_cards_with_identical_pairs():
    steps = plan_session(60, seed=3)
    laid = [s.card for s in steps if s.kind in ("flip", "play")]
    assert len(laid) >= 60
    assert any(a == b for a, b in zip(laid, laid[1:]))  # the same card twice in a row happens
    assert any(s.kind == "take_back" for s in steps)


def test_legal_session_replays_without_rejections():
    table = replay(_lines(legal_session(1, players=4, seed=3)))
    assert not [n for n in table.state["notices"] if n["kind"] == "rejected"]
    assert table.state["hand_winner"]


def test_make_video_writes_a_readable_video_and_its_truth(tmp_path, repo_root):
    steps = [
        Step("none", lines=[{"type": "game", "players": ["Ann", "Bob", "Cleo"]}]),
        Step("flip", seat=0, card="red_3", lines=[{"type": "flip", "card": "red_3"}]),
        Step("play", seat=1, card="red_3", lines=[{"type": "play", "card": "red_3"}, {"type": "uno", "player": "Bob"}]),
    ]
    out = tmp_path / "clip.mp4"
    truth = make_video(out, steps=steps, spec=VideoSpec(seed=2))
    assert read_truth(tmp_path / "clip.jsonl") == truth
    cap = cv2.VideoCapture(str(out))
    frames = int(cap.get(cv2.CAP_PROP_FRAME_COUNT))
    ok, frame = cap.read()
    assert ok and frame.shape == (480, 640, 3)
    seen = [line for line in truth if line["type"] in ("flip", "play")]
    assert [line["card"] for line in seen] == ["red_3", "red_3"]
    for line in seen:
        assert line["t_land"] <= line["t"] <= frames / 10.0
        x1, y1, x2, y2 = line["box"]
        assert 235 <= (x1 + x2) / 2 <= 445 and 70 <= (y1 + y2) / 2 <= 290  # on the discard pile
    assert seen[0]["box"] != seen[1]["box"]  # the same card, another place
    truthful = TruthDetector(truth)
    truthful.t = seen[1]["t"]
    assert truthful.detect(frame)[0].card == "red_3"


@pytest.mark.parametrize("name", ["clip.gif", "missing-folder/clip.mp4"])
def test_make_video_command_rejects_bad_names(tmp_path, capsys, name):
    assert cli(["make-video", str(tmp_path / name), "--plays", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "make-video" in err


def test_demo_video_is_small_readable_and_legal(repo_root):
    video = repo_root / DEMO / "demo.mp4"
    assert video.stat().st_size <= 10 * 1024 * 1024
    cap = cv2.VideoCapture(str(video))
    assert cap.isOpened() and cap.get(cv2.CAP_PROP_FPS) == 10
    truth = read_truth(repo_root / DEMO / "demo.jsonl")
    table = replay(truth)
    assert not [n for n in table.state["notices"] if n["kind"] == "rejected"]
    assert sum(line["type"] in ("flip", "play") for line in truth) >= 25
    assert (repo_root / DEMO / "zones.json").is_file()
