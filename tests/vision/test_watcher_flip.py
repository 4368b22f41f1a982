"""UNO Flip at a table with a camera: after a Flip the turned pile's new top is a card laid,
and the referee makes it the `flip` that starts the other side (issue: every deck)."""
from __future__ import annotations

import pytest

from companion.commands.bench_watch import referee_lines, score
from companion.referee.engine import Table
from companion.synth.tablevideo import TableVideo, VideoSpec, plan_from_log
from companion.vision.truth import TruthDetector
from companion.vision.watcher import Watcher
from companion.vision.zones import Zones

# A simulated UNO Flip hand (simulate_games(3, 1, 5, deck=flip)) up to three cards after its Flip.
HAND = [
    {"type": "game", "players": ["Ann", "Bob", "Cid"], "rules": {"deck": "flip"}},
    {"type": "deal", "dealer": "Bob"},
    {"type": "flip", "card": "yellow_skip"},
    {"type": "play", "card": "yellow_reverse"},
    {"type": "play", "card": "yellow_6"},
    {"type": "play", "card": "yellow_2"},
    {"type": "play", "card": "red_2"},
    {"type": "play", "card": "red_flip"},
    {"type": "flip", "card": "teal_1"},  # the turned pile's top: the dark side is in play
    {"type": "play", "card": "teal_8"},
    {"type": "play", "card": "teal_5"},
]


@pytest.fixture(scope="module")
def watched():
    video = TableVideo(plan_from_log(HAND), VideoSpec(seed=5, linger_rate=0.0))
    frames = list(video.frames())  # the truth is written as the frames are drawn
    truthful = TruthDetector(video.truth)
    watcher = Watcher(truthful, Zones.default())
    events: list[dict] = []
    for k, frame in enumerate(frames):
        truthful.t = k / 10.0
        events += watcher.feed(frame, k / 10.0)
    return video.truth, events


def test_the_hand_replays_as_written():
    table = Table()
    for line in HAND:
        assert not [n for n in table.push(line) if n["kind"] == "rejected"], line
    assert table.state["side"] == "dark"


def test_the_new_top_after_a_flip_is_seen_and_refereed_as_the_flip_of_the_dark_side(watched):
    truth, events = watched
    result = score(truth, events)
    assert (result["phantom"], result["missed"], result["wrong_names"], result["wrong_kind"]) == (0, 0, 0, 0)
    assert [e["type"] for e in events] == ["lay"] * 9  # the camera only says a card came to rest
    matches = {i: i for i in range(len(events))}
    said = referee_lines(truth, events, matches)
    assert [(line["type"], line["card"]) for line in said] == [
        (line["type"], line["card"]) for line in HAND if line["type"] in ("flip", "play")]


def test_bench_watch_flip_games_are_drawn_faces_only(capsys):
    from companion.cli import main as cli

    assert cli(["bench-watch", "--deck", "flip", "--real"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no real photos" in err


def test_bench_watch_flip_sessions_act_out_whole_flip_hands():
    from companion.commands.bench_watch import flip_session

    steps = flip_session(40, seed=3)
    laid = [s for s in steps if s.kind in ("flip", "play")]
    assert len(laid) >= 40
    assert any(s.card and s.card.endswith("_flip") for s in laid)  # a Flip is played ...
    assert any(s.card and s.card.split("_")[0] in ("pink", "teal", "orange", "purple") for s in laid)  # ... and the dark side laid


def test_bench_watch_names_a_wilds_colour_after_the_cameras_card():
    # A simulated log may name a wild's colour in its play line; the camera's `lay` carries no
    # colour, so the bench's phones say it right after the card (else the referee would still
    # wait for the colour and the turned pile's top after the Flip would be judged a play).
    truth = [
        {"type": "game", "players": ["Ann", "Bob", "Cid"], "rules": {"deck": "flip"}, "t": 0.0},
        {"type": "deal", "dealer": "Ann", "t": 0.0},
        {"type": "flip", "card": "red_5", "t": 2.0, "t_land": 1.8},
        {"type": "play", "card": "wild", "color": "red", "t": 4.0, "t_land": 3.8},
        {"type": "play", "card": "red_flip", "t": 6.0, "t_land": 5.8},
        {"type": "flip", "card": "teal_3", "t": 8.0, "t_land": 7.8},
        {"type": "play", "card": "teal_5", "t": 10.0, "t_land": 9.8},
    ]
    events = [{"type": "lay", "card": line["card"], "t": line["t"] + 0.2} for line in truth if "card" in line]
    result = score(truth, events)
    assert (result["missed"], result["wrong_names"], result["wrong_kind"]) == (0, 0, 0)
