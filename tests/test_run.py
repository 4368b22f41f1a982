"""`uno-companion run`: the pipeline parts with fakes, then end to end on a generated clip
through the phone page's API, and the crash-restart test with a real subprocess."""
from __future__ import annotations

import socket
import threading
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from companion.vision.camera import Frame, SourceError
from companion.runner import Companion, EventPump, VisionLoop, describe_game


class FakeReferee:
    """Records what it is given; `fail_on` makes submit raise for one event type."""

    def __init__(self, fail_on: str | None = None) -> None:
        self.events: list[tuple[dict, str]] = []
        self.fail_on = fail_on
        self.lock = threading.Lock()

    def submit(self, event: dict, source: str = "") -> list[dict]:
        if event.get("type") == self.fail_on:
            raise RuntimeError("store on fire")
        with self.lock:
            self.events.append((event, source))
        return []

    @property
    def state(self) -> dict:
        return {"players": [], "waiting_for": "game"}

    def subscribe(self, callback: Any) -> Any:
        return lambda: None


def image(value: int) -> np.ndarray:
    return np.full((4, 4, 3), value, np.uint8)


class MarkWatcher:
    """Emits a lay of red_<value % 10> whenever a frame's value changes to a new non-zero one."""

    def __init__(self, raise_on: int | None = None) -> None:
        self.last = 0
        self.raise_on = raise_on
        self.seen: list[int] = []

    def feed(self, frame: np.ndarray, t: float) -> list[dict]:
        value = int(frame[0, 0, 0])
        self.seen.append(value)
        if value == self.raise_on:
            raise ValueError("recognizer hiccup")
        if value and value != self.last:
            self.last = value
            return [{"type": "lay", "card": f"red_{value % 10}", "t": t, "top": [[f"red_{value % 10}", 0.9]]}]
        self.last = value
        return []


class FlakySource:
    """Frames of given values; `gone` reads fail (camera unplugged) and reopening fails
    `reopen_failures` times before the camera comes back."""

    name = "flaky camera"
    fps = 10.0

    def __init__(self, values: list[int], gone: set[int], reopen_failures: int = 2, probe: Any = None) -> None:
        self.values = values
        self.gone = set(gone)
        self.reopen_failures = reopen_failures
        self.index = 0
        self.opened = 0
        self.is_open = False
        self.probe = probe  # called while the camera is away (to look at the status)

    def open(self) -> None:
        if self.opened and self.reopen_failures > 0:
            self.reopen_failures -= 1
            if self.probe:
                self.probe()
            raise SourceError("no such device")
        self.opened += 1
        self.is_open = True

    def read(self) -> Frame | None:
        if self.index >= len(self.values):
            return None
        if self.index in self.gone:
            self.gone.discard(self.index)
            self.is_open = False
            raise SourceError("camera stopped delivering frames")
        frame = Frame(image(self.values[self.index]), self.index / self.fps, self.index)
        self.index += 1
        return frame

    def close(self) -> None:
        self.is_open = False


def test_vision_loop_submits_watcher_events_without_frame_time() -> None:
    referee = FakeReferee()
    watcher = MarkWatcher()
    loop = VisionLoop(referee, lambda: FlakySource([0, 3, 3, 0, 5], gone=set()), lambda: watcher)
    loop.run()
    assert referee.events == [({"type": "lay", "card": "red_3", "top": [["red_3", 0.9]]}, "camera"),
                              ({"type": "lay", "card": "red_5", "top": [["red_5", 0.9]]}, "camera")]
    assert loop.stats.frames == 5 and loop.stats.events == 2
    assert loop.source_status is not None and loop.source_status.state == "ended"


def test_vision_loop_camera_lost_reports_no_phantom_events_and_recovers() -> None:
    referee = FakeReferee()
    statuses: list[str] = []
    holder: dict[str, VisionLoop] = {}
    companion = Companion(referee)

    def probe() -> None:
        statuses.append(holder["loop"].source_status.state)
        companion.vision = holder["loop"]
        statuses.append(companion.status_line())

    source = FlakySource([0, 1, 1, 2, 2, 2, 4, 4], gone={3}, reopen_failures=2, probe=probe)
    watcher = MarkWatcher()
    loop = VisionLoop(referee, lambda: source, lambda: watcher, backoff=(0.001, 0.002))
    holder["loop"] = loop
    loop.run()
    # while away: the status says so, and the page-facing referee got nothing new
    assert statuses[0] == "lost" and "camera: LOST since" in statuses[1]
    assert [e["card"] for e, _ in referee.events] == ["red_1", "red_2", "red_4"]
    assert source.opened == 2  # reopened once it came back
    assert watcher.seen == [0, 1, 1, 2, 2, 2, 4, 4]  # every frame that exists was seen once


def test_vision_loop_survives_a_failing_watcher_and_referee() -> None:
    referee = FakeReferee()
    watcher = MarkWatcher(raise_on=7)
    loop = VisionLoop(referee, lambda: FlakySource([0, 7, 0, 8, 0, 9], gone=set()), lambda: watcher)
    loop.run()
    assert loop.stats.errors == 1
    assert [e["card"] for e, _ in referee.events] == ["red_8", "red_9"]


def test_vision_loop_referee_error_is_logged_and_vision_goes_on() -> None:
    class Picky(FakeReferee):
        def submit(self, event: dict, source: str = "") -> list[dict]:
            if event.get("card") == "red_8":
                raise RuntimeError("disk full")
            return super().submit(event, source)

    referee = Picky()
    loop = VisionLoop(referee, lambda: FlakySource([0, 8, 0, 9], gone=set()), MarkWatcher)
    loop.run()
    assert [e["card"] for e, _ in referee.events] == ["red_9"]


def test_vision_loop_loops_a_video_with_a_fresh_watcher_each_pass() -> None:
    referee = FakeReferee()
    passes: list[int] = []
    holder: dict[str, VisionLoop] = {}

    def on_pass(n: int) -> None:
        passes.append(n)
        if n == 3:
            holder["loop"].stop()

    loop = VisionLoop(referee, lambda: FlakySource([0, 2, 2], gone=set()), MarkWatcher, loop=True, on_pass=on_pass)
    holder["loop"] = loop
    loop.run()
    assert passes == [1, 2, 3]
    assert [e["card"] for e, _ in referee.events] == ["red_2", "red_2"]  # one play per pass


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_vision_loop_realtime_sleeps_ahead_and_drops_frames_when_behind() -> None:
    clock = FakeClock()

    class SlowWatcher(MarkWatcher):
        def feed(self, frame: np.ndarray, t: float) -> list[dict]:
            clock.now += 0.25 if int(frame[0, 0, 0]) == 9 else 0.01  # frame 9 takes 250 ms
            return super().feed(frame, t)

    values = [1, 2, 9, 3, 4, 5, 6, 7, 8]  # 10 fps: 100 ms per frame
    watcher = SlowWatcher()
    loop = VisionLoop(FakeReferee(), lambda: FlakySource(values, gone=set()), lambda: watcher,
                      realtime=True, clock=clock, sleep=clock.sleep)
    loop.run()
    # after the slow frame the loop is ~0.2 s behind: the frames due meanwhile are dropped
    assert loop.stats.skipped >= 1
    assert watcher.seen[:3] == [1, 2, 9] and watcher.seen[-1] == 8
    assert len(watcher.seen) + loop.stats.skipped == len(values)
    assert clock.now == pytest.approx(0.8 + 0.01, abs=0.02)  # real speed: last frame at 0.8 s


def test_event_pump_hands_gpio_events_to_the_referee_in_order() -> None:
    referee = FakeReferee(fail_on="pass")
    pump = EventPump(referee, "gpio")
    thread = threading.Thread(target=pump.run)
    thread.start()
    for event in ({"type": "uno"}, {"type": "pass"}, {"type": "draw"}):
        pump.put(event)
    pump.stop()
    thread.join(timeout=5)
    assert referee.events == [({"type": "uno"}, "gpio"), ({"type": "draw"}, "gpio")]


@pytest.mark.parametrize(
    "state, words",
    [
        ({"players": [], "waiting_for": "game"}, "no game yet (set one up on the host page)"),
        ({"players": [{"name": "Ann", "score": 0}], "waiting_for": "play", "turn": "Ann", "hand": 2, "top": "red_7"},
         "hand 2, Ann to play, top red_7"),
        ({"players": [{"name": "Ann", "score": 0}], "waiting_for": "color", "turn": "Ann", "hand": 1, "top": "wild"},
         "hand 1, Ann names a colour, top wild"),
        ({"players": [{"name": "Ann", "score": 0}], "waiting_for": "target", "turn": "Ann", "hand": 1, "top": "red_7"},
         "hand 1, Ann picks a player, top red_7"),
        ({"players": [{"name": "Bob", "score": 0}], "waiting_for": "challenge", "turn": "Bob", "hand": 1,
          "top": "wild_draw_four"}, "hand 1, Bob may challenge the wild card, top wild_draw_four"),
        ({"players": [{"name": "Ann", "score": 120}, {"name": "Bob", "score": 40}], "waiting_for": "deal", "hand": 1},
         "hand 1, waiting for the deal, leader Ann 120"),
        ({"players": [{"name": "Ann", "score": 520}], "waiting_for": "game_over", "game_winner": "Ann"}, "game over, Ann won"),
    ],
)
def test_describe_game_for_the_status_line(state: dict, words: str) -> None:
    assert describe_game(state) == words


def _truth(plays: int, seed: int) -> list[dict]:
    from companion.synth.tablevideo import plan_session

    lines: list[dict] = []
    for step in plan_session(plays, players=4, seed=seed):
        lines += step.before + step.lines
    return lines


@pytest.mark.parametrize("seed", [3, 11])
def test_demo_bot_follows_the_true_log_around_the_camera_events(tmp_path: Any, seed: int) -> None:
    from companion.referee.engine import replay
    from companion.referee.service import Referee
    from companion.referee.store import EventStore
    from companion.tablebot import CAMERA_EVENTS, TableBot

    truth = _truth(60, seed)
    referee = Referee(EventStore(tmp_path / "demo.db"))
    bot = TableBot(referee, truth[0]["players"], truth=truth)
    bot.start()
    bot.new_pass(1)
    for line in truth:
        if line["type"] in CAMERA_EVENTS:
            event = {k: v for k, v in line.items() if k != "player"}  # the camera cannot know who
            if event["type"] in ("flip", "play"):  # nor whether a card starts the hand
                event = {"type": "lay", "card": event["card"], "top": [[event["card"], 0.97]]}
            event = bot.annotate(event)
            bot.camera_event(event, referee.submit(event, source="camera"))
    bot.stop()
    state, expected = referee.state, replay(truth).state
    assert [n for n in state["notices"] if n["kind"] == "rejected"] == []
    assert [(n["kind"], n.get("player")) for n in state["notices"]] == [
        (n["kind"], n.get("player")) for n in expected["notices"]]
    assert state["history"] == expected["history"]
    if expected["waiting_for"] == "deal":  # the log ends with a hand over: the bot may deal the next
        assert (state["waiting_for"], state["hand"]) in (("deal", expected["hand"]), ("flip", expected["hand"] + 1))
    else:
        assert state["players"] == expected["players"]
        assert (state["turn"], state["top"], state["waiting_for"]) == (expected["turn"], expected["top"], expected["waiting_for"])


def test_demo_bot_settles_what_no_log_says(tmp_path: Any) -> None:
    from companion.referee.service import Referee
    from companion.referee.store import EventStore
    from companion.tablebot import TableBot

    referee = Referee(EventStore(tmp_path / "demo.db"))
    bot = TableBot(referee, ["Ann", "Bob"], truth=None)
    bot.new_pass(1)
    for card in ("red_5", "wild"):
        referee.submit({"type": "lay", "card": card}, source="camera")
    bot._settle(referee.state)  # the bot's thread would do this on the change
    state = referee.state
    assert state["waiting_for"] == "play" and state["color"] in ("red", "yellow", "green", "blue")
    assert [e["type"] for e in bot.submitted] == ["game", "deal", "color"]


def test_web_server_serves_and_stops_and_a_busy_port_is_one_line() -> None:
    import socket
    import urllib.request

    from flask import Flask

    from companion.errors import CompanionError
    from companion.runner import WebServer

    app = Flask("probe")
    app.add_url_rule("/ping", "ping", lambda: "pong")
    server = WebServer(app, "127.0.0.1", 0, threads=2)
    server.start()
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/ping", timeout=10) as reply:
            assert reply.read() == b"pong"
        with pytest.raises(CompanionError, match=f"cannot serve the phone page on port {server.port}.*--port"):
            WebServer(app, "127.0.0.1", server.port).start()
    finally:
        server.stop()
    assert server.thread is not None
    server.thread.join(timeout=10)
    assert not server.thread.is_alive()
    with socket.socket() as probe:  # the port is free again
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server does on restart
        probe.bind(("127.0.0.1", server.port))
    # a mistyped --host is said to be the address, not a busy port
    for host in ("999.1.1.1", "10.255.255.254"):
        with pytest.raises(CompanionError, match=f"on {host}: .*--host takes an address"):
            WebServer(app, host, 0).start()


def test_vision_loop_thins_frames_to_max_fps() -> None:
    watcher = MarkWatcher()
    values = list(range(1, 31))  # 3 s at 10 fps
    loop = VisionLoop(FakeReferee(), lambda: FlakySource(values, gone=set()), lambda: watcher, max_fps=5)
    loop.run()
    assert watcher.seen == values[::2] and loop.stats.skipped == 15


def test_vision_loop_restarts_after_a_crash_and_stops_on_a_user_mistake() -> None:
    from companion.errors import InputFileError

    referee = FakeReferee()
    made: list[int] = []

    def make_source() -> FlakySource:
        made.append(1)
        if len(made) == 1:
            raise RuntimeError("driver bug")
        if len(made) == 2:  # nothing has played yet: a wrong path, not a lost video
            raise InputFileError("video file 'x.mp4' does not exist")
        return FlakySource([0, 4], gone=set())

    loop = VisionLoop(referee, make_source, MarkWatcher, loop=True, backoff=(0.001, 0.002))
    loop.run()
    assert len(made) == 2 and referee.events == []
    assert loop.error == "video file 'x.mp4' does not exist"
    companion = Companion(referee, vision=loop)
    assert "[vision stopped: video file 'x.mp4' does not exist]" in companion.status_line()


def test_status_line_says_when_the_pile_has_been_hidden_long() -> None:
    # A cup left on the pile: the camera is "ok" but sees no card laid there; the console says so
    class Covered(MarkWatcher):
        def feed(self, frame: np.ndarray, t: float) -> list[dict]:
            self.pile_hidden = 5.0 * len(self.seen)
            return super().feed(frame, t)

    referee = FakeReferee()
    loop = VisionLoop(referee, lambda: FlakySource([0] * 9, gone=set()), Covered)
    loop.run()
    assert loop.stats.pile_hidden == 40.0  # as of the last frame
    companion = Companion(referee, vision=loop)
    loop.source_status = SimpleNamespace(state="ok", since=0.0, message="")
    assert "the pile hidden for 40 s (something over it?)" in companion.status_line()
    assert loop.warnings() == {"pile_hidden": {"s": 40}}  # what the host page says
    loop.stats.pile_hidden = 3.0  # an arm laying a card: nothing to say
    assert "hidden" not in companion.status_line() and loop.warnings() == {}


def test_status_line_says_when_cards_show_no_colour() -> None:
    # A camera gone to its black-and-white night mode: cards are seen but not named; the console says why
    class GreyWatcher(MarkWatcher):
        def __init__(self) -> None:
            super().__init__()
            self.detector = SimpleNamespace(colourless_total=0)

        def feed(self, frame: np.ndarray, t: float) -> list[dict]:
            self.detector.colourless_total += int(len(self.seen) in (2, 3))  # frames 2 and 3 grey
            return super().feed(frame, t)

    referee = FakeReferee()
    loop = VisionLoop(referee, lambda: FlakySource([0] * 9, gone=set()), GreyWatcher)
    loop.run()
    companion = Companion(referee, vision=loop)
    loop.source_status = SimpleNamespace(state="ok", since=0.0, message="")
    assert loop.stats.colourless_at is not None and loop.stats.colourless_at < loop.stats.t
    assert "cards seen without colour (a black-and-white picture? a night mode?): not named" in companion.status_line()
    assert loop.warnings() == {"colourless": {}}
    loop.stats.events = 1
    assert ", 1 card seen" in companion.status_line()  # not "1 cards"
    loop.source_status = SimpleNamespace(state="lost", since=0.0, message="unplugged")
    assert loop.warnings() == {}  # a lost camera is said by its status, not as a grey picture
    loop.source_status = SimpleNamespace(state="ok", since=0.0, message="")
    loop.stats.t = loop.stats.colourless_at + 61  # colour came back a minute ago: nothing to say
    assert "without colour" not in companion.status_line() and loop.warnings() == {}


def test_status_line_says_a_card_lies_beside_the_pile_while_it_does() -> None:
    # A player who missed the pile: the card is not played, and the console and host page say which
    class Beside(MarkWatcher):
        def feed(self, frame: np.ndarray, t: float) -> list[dict]:
            self.beside = {"card": "yellow_8", "box": [0, 0, 1, 1], "t": t} if 3 <= len(self.seen) < 6 else None
            return super().feed(frame, t)

    referee = FakeReferee()
    states = []
    loop = VisionLoop(referee, lambda: FlakySource([0] * 9, gone=set()), Beside,
                      before_frame=lambda frame: states.append(loop.stats.beside))
    loop.run()
    assert states == [None] * 4 + ["yellow_8"] * 3 + [None] * 2  # as of the frame before each, while it lay there
    companion = Companion(referee, vision=loop)
    loop.source_status = SimpleNamespace(state="ok", since=0.0, message="")
    loop.stats.beside = "yellow_8"
    assert "a yellow 8 lies beside the discard pile, not on it: not played" in companion.status_line()
    assert loop.warnings() == {"beside": {"card": "yellow_8"}}
    loop.stats.beside = None  # moved onto the pile, or taken away
    assert "beside" not in companion.status_line() and loop.warnings() == {}


def _args(**given: Any) -> Any:
    import argparse

    from companion.commands import run as run_command

    parser = argparse.ArgumentParser()
    run_command.add_arguments(parser)
    words: list[str] = []
    for key, value in given.items():
        words += [f"--{key.replace('_', '-')}", str(value)]
    return parser.parse_args(words)


@pytest.mark.parametrize(
    "flags, source, expected",
    [
        ({}, "none", ("none", None)),
        ({}, "demo", ("demo", None)),
        ({"camera": "0"}, "demo", ("camera", 0)),
        ({"camera": "picamera"}, "auto", ("camera", "picamera")),
        ({"camera": "rtsp://cam.local/stream"}, "auto", ("camera", "rtsp://cam.local/stream")),
        ({"camera": "none"}, 2, ("none", None)),
        ({}, 1, ("camera", 1)),
    ],
)
def test_run_chooses_the_source_flags_over_config(flags: dict, source: Any, expected: tuple) -> None:
    from companion.commands.run import choose_source
    from companion.config import Config

    config = Config(camera={"source": source})
    assert choose_source(config, _args(**flags), print) == expected


def test_run_auto_without_a_camera_plays_the_demo(monkeypatch: pytest.MonkeyPatch) -> None:
    from companion.commands import run as run_command
    from companion.config import Config

    said: list[str] = []
    monkeypatch.setattr(run_command, "find_camera", lambda say: None)
    assert run_command.choose_source(Config(), _args(), said.append) == ("demo", None)
    assert said == ["camera: none found, playing the bundled demo video with a demo table"]


def test_run_auto_without_a_camera_at_a_set_up_table_lets_the_phones_play(monkeypatch: pytest.MonkeyPatch) -> None:
    # Players in the configuration and no camera found (a Pi whose camera did not come up):
    # a table the phones can play, not the demo whose recorded cards would be played as theirs.
    from companion.commands import run as run_command
    from companion.config import Config

    said: list[str] = []
    monkeypatch.setattr(run_command, "find_camera", lambda say: None)
    assert run_command.choose_source(Config(players=["Ann", "Bob"]), _args(), said.append) == ("none", None)
    assert len(said) == 1 and "phones enter the cards" in said[0] and "--camera demo" in said[0]


def test_a_picamera2_that_does_not_load_is_said_not_taken_for_no_camera(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # apt's Picamera2 built against another numpy raises ValueError on import, not ImportError
    from companion.commands import run as run_command
    from companion.vision.camera import Picamera2Source, SourceError

    (tmp_path / "picamera2").mkdir()
    (tmp_path / "picamera2" / "__init__.py").write_text(
        'raise ValueError("numpy.dtype size changed, may indicate binary incompatibility")\n')
    (tmp_path / "numpy_abi").mkdir()  # numpy 2 under an extension built for 1: an ImportError
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(__import__("sys").modules, "picamera2", raising=False)
    monkeypatch.setattr(run_command.Path, "glob", lambda self, pattern: iter(()))  # no /dev/video*
    said: list[str] = []
    assert run_command.find_camera(said.append) is None
    assert len(said) == 1 and "picamera2 does not load (numpy.dtype size changed" in said[0]
    with pytest.raises(SourceError, match="does not load"):
        Picamera2Source().open()
    (tmp_path / "picamera2" / "__init__.py").write_text("import numpy_abi.multiarray  # missing in the stand-in\n")
    monkeypatch.delitem(__import__("sys").modules, "picamera2", raising=False)
    said.clear()
    assert run_command.find_camera(said.append) is None
    assert len(said) == 1 and "does not load" in said[0]
    with pytest.raises(SourceError, match="does not load"):
        Picamera2Source().open()


def test_run_missing_video_is_a_one_line_error(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from companion.cli import main as cli

    assert cli(["run", "--video", str(tmp_path / "nope.mp4"), "--config", str(_empty_config(tmp_path))]) == 2
    assert capsys.readouterr().err.strip() == f"uno-companion run: video file '{tmp_path / 'nope.mp4'}' does not exist"


def test_a_second_companion_on_the_store_is_refused_with_status_2(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    # 2, not 1: the systemd unit (RestartPreventExitStatus=2) does not restart into a store in use
    from companion.backup import StoreLock
    from companion.cli import main as cli

    db = tmp_path / "games.db"
    lock = StoreLock(db)
    assert lock.acquire()
    try:
        assert cli(["run", "--camera", "none", "--no-gpio", "--db", str(db), "--port", "8199",
                    "--config", str(_empty_config(tmp_path))]) == 2
    finally:
        lock.release()
    assert "in use by another companion" in capsys.readouterr().err


def test_run_refuses_a_picture_given_as_the_video(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    # one frame would be replayed hundreds of times a second (a core busy, "camera ok" on screen)
    import cv2
    import numpy as np

    from companion.cli import main as cli

    picture = tmp_path / "table.jpg"
    cv2.imwrite(str(picture), np.zeros((120, 160, 3), np.uint8))
    assert cli(["run", "--video", str(picture), "--config", str(_empty_config(tmp_path))]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is a picture (one frame), not a video" in err and "recognize" in err


def _empty_config(tmp_path: Any) -> Any:
    path = tmp_path / "config.toml"
    path.write_text("")
    return path


@pytest.mark.parametrize("extra, said", [
    (["--host", "999.1.1.1"], "cannot serve the phone page on 999.1.1.1"),
    (["--port", "{busy}"], "cannot serve the phone page on port {busy}"),
    (["--db", "/dev/null"], "/dev/null is not a file"),
    (["--db", "{d}/folder"], "folder is not a file"),
    (["--db", "/proc/nope/g.db"], "cannot make the store's folder /proc/nope"),
    (["--db", "{d}/log.jsonl"], "log.jsonl is not an event store (not an SQLite file, and no backups of it)"),
])
def test_run_refused_by_its_page_or_its_store_writes_nothing(tmp_path: Any, capsys: pytest.CaptureFixture[str],
                                                           extra: list[str], said: str) -> None:
    # a bad --host left a store, its access file, a secret key and a new game behind; /dev/null
    # (read-only mode) left four files in /dev
    from companion.cli import main as cli

    (tmp_path / "folder").mkdir()
    (tmp_path / "log.jsonl").write_text('{"type": "game", "players": ["Ann", "Bob"]}\n')
    before = sorted(tmp_path.rglob("*"))
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = str(busy.getsockname()[1])
        with socket.socket() as spare:
            spare.bind(("127.0.0.1", 0))
            free = str(spare.getsockname()[1])
        argv = ["run", "--camera", "none", "--no-gpio", "--players", "Ann,Bob", "--host", "127.0.0.1",
                "--port", free, "--db", str(tmp_path / "g.db"), "--config", str(_empty_config(tmp_path))]
        argv += [a.format(busy=port, d=tmp_path) for a in extra]
        assert cli(argv) == 2
    err = capsys.readouterr().err
    assert said.format(busy=port, d=tmp_path) in err and err.count("\n") == 1
    assert sorted(tmp_path.rglob("*")) == sorted(before + [tmp_path / "config.toml"])


def test_a_configured_game_the_engine_refuses_stores_nothing_and_exits_2(tmp_path: Any) -> None:
    # the game used to be stored refused, then `run` exited 1 (systemd restarting it in a loop)
    # and the stray game showed in `export --list` as a new game taken back
    from companion.commands.run import start_table
    from companion.config import Config
    from companion.errors import ConfigError
    from companion.referee.service import Referee
    from companion.referee.store import EventStore

    referee = Referee(EventStore(tmp_path / "games.db"))
    config = Config(players=["Ann", "Bob"], rules={"hand_size": 60})
    with pytest.raises(ConfigError, match="2 hands of 60 do not fit") as err:
        start_table(referee, config, lambda line: None)
    assert err.value.exit_code == 2
    assert referee.store.games() == []


def _table_started(tmp_path: Any) -> tuple[Any, Any, list[str], Any]:
    """(store path, configuration, what was said, referee) of a table `run` has started for
    Ann, Bob and Cy (Bob deals)."""
    from companion.commands.run import start_table
    from companion.config import Config
    from companion.referee.service import Referee
    from companion.referee.store import EventStore

    said: list[str] = []
    db = tmp_path / "games.db"
    config = Config(players=["Ann", "Bob", "Cy"], dealer="Bob")
    referee = Referee(EventStore(db))
    start_table(referee, config, said.append)
    return db, config, said, referee


def test_start_table_resumes_the_same_table_else_starts_a_new_game(tmp_path: Any) -> None:
    from companion.commands.run import start_table
    from companion.config import Config
    from companion.referee.service import Referee
    from companion.referee.store import EventStore

    db, config, said, referee = _table_started(tmp_path)
    first = referee.game_id
    referee.submit({"type": "flip", "card": "red_5"})
    assert referee.state["dealer"] == "Bob" and said[-1].startswith("game: new game")

    again = Referee(EventStore(db))  # as after a restart
    start_table(again, config, said.append)
    assert again.game_id == first and again.state["top"] == "red_5" and said[-1].startswith("game: resuming")

    other = Referee(EventStore(db))  # the configuration now names another table
    start_table(other, Config(players=["Dee", "Eve"]), said.append)
    assert other.game_id != first and [p["name"] for p in other.state["players"]] == ["Dee", "Eve"]
    assert any(line.startswith(f"game: {first} (Ann, Bob, Cy) stays in the store") for line in said)
    other.submit({"type": "flip", "card": "blue_2"})

    # Started once with the wrong players: the next start with the right ones takes their
    # own game up again, where it stood (not a new game at 0 points)
    back = Referee(EventStore(db))
    start_table(back, config, said.append)
    assert back.game_id == first and back.state["top"] == "red_5" and said[-1].startswith(f"game: resuming {first}")
    back.submit({"type": "play", "card": "red_7"})
    assert back.state["top"] == "red_7" and back.store.events(first)[-1] == {"type": "play", "card": "red_7"}
    # and Dee and Eve's game is theirs again after that
    theirs = Referee(EventStore(db))
    start_table(theirs, Config(players=["Dee", "Eve"]), said.append)
    assert theirs.game_id == other.game_id and theirs.state["top"] == "blue_2"


def test_a_restart_resumes_the_game_the_host_set_up_on_the_page(tmp_path: Any) -> None:
    # Started with --players Ann,Bob,Cy; the host then began a game for other players on the
    # host page and changed its seats; a power cut and the same command again must bring that
    # game back, not deal a new one for Ann, Bob and Cy over it.
    from companion.commands.run import start_table
    from companion.config import Config
    from companion.referee.service import Referee
    from companion.referee.store import EventStore

    said: list[str] = []
    db = tmp_path / "games.db"
    config = Config(players=["Ann", "Bob", "Cy"])
    referee = Referee(EventStore(db))
    start_table(referee, config, said.append)
    referee.submit({"type": "game", "players": ["Dee", "Eve", "Flo"]}, source="host")
    referee.submit({"type": "deal", "dealer": "Dee"}, source="host")
    referee.submit({"type": "flip", "card": "red_5"}, source="phone")
    hosted = referee.game_id

    again = Referee(EventStore(db))
    start_table(again, config, said.append)
    assert again.game_id == hosted and again.state["top"] == "red_5"
    assert [p["name"] for p in again.state["players"]] == ["Dee", "Eve", "Flo"]
    assert said[-2].startswith("game: resuming") and "host page" in said[-1]

    # A game started from the configuration whose seats the host then changed resumes too.
    fresh = Referee(EventStore(tmp_path / "seats.db"))
    fresh.submit({"type": "game", "players": config.players}, source="config")
    fresh.submit({"type": "seats", "players": ["Cy", "Bob", "Ann"]}, source="host")
    fresh.submit({"type": "deal", "dealer": "Cy"}, source="host")
    seated = fresh.game_id
    after = Referee(EventStore(tmp_path / "seats.db"))
    start_table(after, config, said.append)
    assert after.game_id == seated and [p["name"] for p in after.state["players"]] == ["Cy", "Bob", "Ann"]


def test_a_restart_after_the_game_ended_shows_its_result_and_deals_nothing(tmp_path: Any) -> None:
    # The last points are typed, the game is won, the power goes: at restart the table shows
    # that result (no new deal at 0 points, nothing unfinished added to the league); the
    # host starts the next game. With other players configured, their own unfinished game
    # comes back, else one is dealt for them.
    from companion.commands.run import start_table
    from companion.config import Config
    from companion.data import EXAMPLE_LOG
    from companion.referee.league import league_standings
    from companion.referee.service import Referee
    from companion.referee.store import EventStore

    db = tmp_path / "games.db"
    said: list[str] = []
    with EventStore(db) as store:
        early = Referee(store)  # Dee and Eve played first, and left their game unfinished
        start_table(early, Config(players=["Dee", "Eve"]), said.append)
        early.submit({"type": "flip", "card": "red_5"})
        theirs = early.game_id
        league = store.new_league("Friday", [12, 6, 2, 0])
        referee = Referee(store)
        for line in EXAMPLE_LOG.read_text(encoding="utf-8").splitlines():
            referee.submit(line, "config")
        assert referee.state["waiting_for"] == "game_over"
        finished, players = referee.game_id, [p["name"] for p in referee.state["players"]]
    with EventStore(db) as store:
        again = Referee(store)
        assert start_table(again, Config(players=players), said.append) is False
        assert again.game_id == finished and again.state["waiting_for"] == "game_over"
        assert said[-1].startswith(f"game: {finished}") and "wins the game" in said[-1]
        assert "New game" in said[-1]
        assert len(store.games()) == 2 and league_standings(store, league)["unfinished"] == []
    with EventStore(db) as store:  # Dee and Eve's own unfinished game comes back to them
        back = Referee(store)
        assert start_table(back, Config(players=["Dee", "Eve"]), said.append) is False
        assert back.game_id == theirs and back.state["top"] == "red_5"
    with EventStore(db) as store:  # players with no game of their own get a new one
        others = Referee(store)
        assert start_table(others, Config(players=["Flo", "Gus"]), said.append) is True
        assert others.game_id not in (finished, theirs) and said[-1].startswith("game: new game")


def test_start_table_bad_rules_in_config_stop_with_one_line(tmp_path: Any) -> None:
    from companion.commands.run import start_table
    from companion.config import Config
    from companion.errors import CompanionError
    from companion.referee.service import Referee
    from companion.referee.store import EventStore

    referee = Referee(EventStore(tmp_path / "games.db"))
    with pytest.raises(CompanionError, match="cannot start the game from the configuration"):
        start_table(referee, Config(players=["Ann", "Bob"], rules={"hand_size": 0}), print)


# -- end to end: a generated table video through watcher, referee, store and the phone page ------


@pytest.fixture(scope="module")
def table_clip(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, list[dict]]:
    """A short generated table video (a few seconds, 10 fps) and its true table log."""
    from companion.synth.tablevideo import VideoSpec, make_video, plan_session

    folder = tmp_path_factory.mktemp("clip")
    # one whole hand of three players (about a minute of video): plays, wilds, draws, an UNO!
    # call, the winner's last card and the losers' reveals
    steps = plan_session(12, players=3, seed=1, illegal_rate=0.0)
    truth = make_video(folder / "table.mp4", steps=steps, spec=VideoSpec(seed=1, linger_rate=0.0, camera_bumps=False))
    return folder / "table.mp4", truth


def run_clip(clip: Any, truth: list[dict], db: Any, app_factory: Any = None) -> tuple[Any, Any]:
    """Play the clip once through the real pipeline, a perfect recognizer from its truth, the
    demo table bot for the phone-side decisions; returns (referee, companion) still running."""
    from companion.vision.camera import OpenCVSource
    from companion.referee.service import Referee
    from companion.referee.store import EventStore
    from companion.tablebot import TableBot
    from companion.vision.truth import TruthDetector
    from companion.vision.watcher import Watcher
    from companion.vision.zones import Zones

    referee = Referee(EventStore(db))
    detector = TruthDetector(truth)
    bot = TableBot(referee, truth[0]["players"], truth=truth)
    vision = VisionLoop(
        referee,
        lambda: OpenCVSource(str(clip)),
        lambda: Watcher(detector, Zones.default(640, 480)),
        before_frame=lambda frame: setattr(detector, "t", frame.t),
        on_pass=bot.new_pass,
        on_event=bot.camera_event,
        annotate=bot.annotate,
    )
    companion = Companion(referee, vision=vision, bot=bot)
    companion.start()
    assert vision.finished.wait(120), "the clip did not finish"
    return referee, companion


# -- crash and restart: a real `uno-companion run` process, killed with SIGKILL -------------------


class RunProcess:
    """`uno-companion run` as a subprocess on a temp config, store and port."""

    def __init__(self, tmp_path: Any, *extra: str) -> None:
        import os
        import socket
        import subprocess
        import sys

        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        env = dict(os.environ, XDG_CONFIG_HOME=str(tmp_path / "cfg"), XDG_DATA_HOME=str(tmp_path / "data"),
                   PYTHONUNBUFFERED="1", YOLO_OFFLINE="true")
        self.lines: list[str] = []
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "companion.cli", "run", "--no-gpio", "--host", "127.0.0.1",
             "--port", str(self.port), "--db", str(tmp_path / "games.db"), "--status-every", "0.2", *extra],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    def wait_for(self, text: str, timeout: float = 60) -> str:
        import time

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in list(self.lines):
                if text in line:
                    return line
            if self.proc.poll() is not None and not self._reader.is_alive():
                break
            time.sleep(0.05)
        raise AssertionError(f"{text!r} never appeared; output:\n" + "\n".join(self.lines))

    def kill(self) -> None:
        import signal

        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=10)

    def interrupt(self) -> int:
        import signal

        self.proc.send_signal(signal.SIGINT)
        return self.proc.wait(timeout=30)


class Phone:
    """A phone on the page over real HTTP: session cookie, CSRF token from the page."""

    def __init__(self, port: int) -> None:
        import http.cookiejar
        import re
        import urllib.request

        self.base = f"http://127.0.0.1:{port}"
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        html = self.opener.open(self.base + "/", timeout=30).read().decode()
        found = re.search(r'<meta name="csrf" content="([^"]+)"', html)
        assert found, "no CSRF token on the page"
        self.csrf = found.group(1)

    def post(self, path: str, body: dict) -> dict:
        import json
        import urllib.request

        request = urllib.request.Request(self.base + path, data=json.dumps(body).encode(), method="POST",
                                         headers={"Content-Type": "application/json", "X-CSRF-Token": self.csrf})
        with self.opener.open(request, timeout=30) as reply:
            return dict(json.loads(reply.read()))

    def get(self, path: str) -> dict:
        import json

        with self.opener.open(self.base + path, timeout=30) as reply:
            return dict(json.loads(reply.read()))

    def state(self) -> dict:
        return self.get("/api/state")


@pytest.mark.slow
def test_run_killed_mid_hand_resumes_with_no_event_lost(tmp_path: Any) -> None:
    from companion.referee.store import EventStore

    first = RunProcess(tmp_path, "--camera", "none", "--players", "Ann,Bob,Cy", "--host-pin", "2468")
    started = first.wait_for("game: new game ")
    game_id = started.split("game: new game ")[1].split()[0]
    first.wait_for("phone page on")
    host = Phone(first.port)
    assert host.post("/api/host/login", {"pin": "2468"})["ok"]
    for card in ("red_5", "red_7", "blue_7"):  # the host enters cards the camera missed
        host.post("/api/host/card", {"type": "flip" if card == "red_5" else "play", "card": card})
    ann = Phone(first.port)
    ann.post("/api/seat", {"player": "Ann"})
    ann.post("/api/act", {"action": "draw"})  # mid-turn: Ann drew and has not played yet
    before = host.state()
    assert before["top"] == "blue_7" and before["turn"] == "Ann" and before["drawn"] is True
    first.kill()  # SIGKILL: no clean shutdown at all

    second = RunProcess(tmp_path, "--camera", "none", "--players", "Ann,Bob,Cy", "--host-pin", "2468")
    resumed = second.wait_for("game: resuming ")
    assert game_id in resumed and "6 events" in resumed
    second.wait_for("phone page on")
    after = Phone(second.port).state()
    assert {k: v for k, v in after.items() if k != "events"} == {k: v for k, v in before.items() if k != "events"}
    # Seats and the host's login survived the kill: same cookies, same CSRF token, no new login.
    ann.base = host.base = f"http://127.0.0.1:{second.port}"
    assert ann.post("/api/act", {"action": "pass"})["ok"]
    assert host.post("/api/host/card", {"type": "play", "card": "blue_2"})["ok"]
    # The one-time host link printed at start logs a new phone in, once.
    link = second.wait_for("/host/link/").split()[2]
    newcomer = Phone(second.port)
    newcomer.opener.open(link, timeout=30).read()
    assert newcomer.opener.open(newcomer.base + "/api/host/log", timeout=30).status == 200
    assert second.interrupt() == 0  # Ctrl-C: a clean stop
    second.wait_for("stopped; every event is saved in")
    with EventStore(tmp_path / "games.db") as store:
        assert [e["type"] for e in store.events(game_id)] == ["game", "deal", "flip", "play", "play", "draw",
                                                               "pass", "play"]


@pytest.mark.slow
def test_a_new_game_dealt_at_start_frees_the_seats_of_names_not_in_it(tmp_path: Any) -> None:
    # The configuration now names other players: the new game starts with the seats of names
    # not in it free, as one the host starts on the page (Bob's phone no longer holds a seat;
    # Ann's still holds hers, so Ann need not pick her name again).
    first = RunProcess(tmp_path, "--camera", "none", "--players", "Ann,Bob,Cy", "--host-pin", "2468")
    first.wait_for("phone page on")
    ann, bob = Phone(first.port), Phone(first.port)
    assert ann.post("/api/seat", {"player": "Ann"})["ok"] and bob.post("/api/seat", {"player": "Bob"})["ok"]
    first.kill()
    second = RunProcess(tmp_path, "--camera", "none", "--players", "Ann,Dee", "--host-pin", "2468")
    second.wait_for("game: new game ")
    second.wait_for("phone page on")
    for phone in (ann, bob):
        phone.base = f"http://127.0.0.1:{second.port}"
    assert ann.get("/api/seat") == {"player": "Ann", "taken": ["Ann"]}
    assert bob.get("/api/seat")["player"] is None
    assert Phone(second.port).post("/api/seat", {"player": "Dee"})["ok"]
    assert second.interrupt() == 0


@pytest.mark.slow
def test_run_plays_the_bundled_demo_and_stops(tmp_path: Any) -> None:
    """The newcomer's command: no camera here, so `run` plays the demo video with its table."""
    from companion.referee.store import EventStore

    demo = RunProcess(tmp_path, "--camera", "demo", "--bench", "6")
    assert demo.proc.wait(timeout=120) == 0
    demo.wait_for("stopped; every event is saved in")
    demo.wait_for(f"events are stored in {tmp_path / 'demo.db'}")  # not in the real table's store
    report = demo.wait_for("bench: vision ")
    frames = int(report.split("bench: vision ")[1].split()[0])
    assert frames >= 30  # about 10 fps of the 10 fps video, at real speed
    with EventStore(tmp_path / "demo.db") as store:
        game = store.latest_game()
        assert game is not None
        events = store.events(game)
    assert events[0]["type"] == "game" and events[0]["players"] == ["Ann", "Bob", "Cid", "Dee"]
    assert events[1] == {"type": "deal", "dealer": "Dee"}
    # Within seconds the camera side has recognised the demo's first card on the pile with
    # the shipped card model, and says how the demo names its cards.
    assert {"type": "flip", "card": "yellow_1"} in events
    demo.wait_for("recognised by the card model")


@pytest.mark.slow
def test_run_demo_can_name_cards_from_the_videos_log(tmp_path: Any) -> None:
    from companion.referee.store import EventStore

    # other players given: the recorded game keeps its own (with them every card was refused)
    demo = RunProcess(tmp_path, "--camera", "demo", "--bench", "5", "--log-names", "--players", "Ann,Bob")
    assert demo.proc.wait(timeout=120) == 0
    demo.wait_for("named from the video's true log")
    demo.wait_for("demo: the recorded table's players are")
    with EventStore(tmp_path / "demo.db") as store:
        events = store.events(store.latest_game())
    assert {"type": "flip", "card": "yellow_1"} in events
    assert events[0]["players"] != ["Ann", "Bob"]


@pytest.mark.slow
def test_pipeline_plays_a_generated_clip_into_the_referee(table_clip: tuple[Any, list[dict]], tmp_path: Any) -> None:
    from companion.referee.engine import replay
    from web import create_app

    clip, truth = table_clip
    referee, companion = run_clip(clip, truth, tmp_path / "games.db")
    companion.stop()
    # what the phones see: the page's own state API on the same referee
    page = create_app({"TESTING": True}, referee=referee).test_client().get("/api/state").get_json()
    expected = replay(truth).state
    plays = [e for e in truth if e["type"] in ("flip", "play", "take_back", "reveal")]
    assert companion.vision.stats.events == len(plays)  # every card seen once, nothing invented
    assert [n for n in page["notices"] if n["kind"] == "rejected"] == []
    # the standings and the referee's notices are the true game's
    assert page["history"] == expected["history"] and page["history"]
    assert [(p["name"], p["score"], p["hands_won"]) for p in page["players"]] == [
        (p["name"], p["score"], p["hands_won"]) for p in expected["players"]]
    assert [(n["kind"], n.get("player")) for n in page["notices"]] == [
        (n["kind"], n.get("player")) for n in expected["notices"][-30:]]
    assert (page["waiting_for"], page["hand"]) in (("deal", 1), ("flip", 2))  # the bot deals the next hand
    if page["waiting_for"] == "deal":  # card counts at the end of the hand, as the truth has them
        assert [p["cards"] for p in page["players"]] == [p["cards"] for p in expected["players"]]


def test_run_host_page_zones_reach_the_watcher(tmp_path):
    """Zones edited on the host page's snapshot are saved beside the config and the next
    frame is watched with them."""
    import re

    from companion.commands.run import make_app, make_watcher_factory
    from companion.config import Config
    from companion.vision.detector import FakeDetector
    from companion.referee.service import Referee
    from companion.referee.store import EventStore

    config = Config()
    config.path = tmp_path / "config.toml"
    config.db = str(tmp_path / "g.db")  # the session key and seats go beside it, not in ~/.local

    class Vision:
        latest = np.zeros((480, 640, 3), np.uint8)
        reloads = 0
        source_status = SimpleNamespace(state="ok", message="")

        def reload_zones(self) -> None:
            Vision.reloads += 1

        def warnings(self) -> dict:
            return {"colourless": {}}

    vision = Vision()
    referee = Referee(EventStore(tmp_path / "g.db"))
    app = make_app(referee, config, "1234", vision)
    client = app.test_client()
    token = re.search(r'name="csrf" content="([^"]+)"', client.get("/").get_data(as_text=True)).group(1)
    client.environ_base["HTTP_X_CSRF_TOKEN"] = token
    assert client.post("/api/host/login", json={"pin": "1234"}).status_code == 200
    assert client.get("/host/snapshot.jpg").status_code == 200
    assert client.get("/api/host/camera").get_json()["warnings"] == {"colourless": {}}  # said on the host page
    # and a hand shown after the host's verdict that says otherwise (Referee.disputed)
    for event, source in (({"type": "game", "players": ["Ann", "Bob"]}, "host"), ({"type": "deal", "dealer": "Bob"}, "host"),
                          ({"type": "flip", "card": "red_5"}, "camera"),
                          ({"type": "play", "card": "wild_draw_four", "color": "blue"}, "camera"),
                          ({"type": "challenge"}, "phone"), ({"type": "verdict", "guilty": False}, "host"),
                          ({"type": "reveal", "cards": ["red_9", "blue_8"]}, "camera")):
        referee.submit(event, source=source)
    assert client.get("/api/host/camera").get_json()["warnings"] == {
        "colourless": {}, "disputed": {"player": "Ann", "guilty": True}}
    zones = client.get("/api/host/zones").get_json()
    zones["discard"] = [[100, 100], [300, 100], [300, 300], [100, 300]]
    assert client.post("/api/host/zones", json=zones).status_code == 200
    assert Vision.reloads == 1 and (tmp_path / "zones.json").is_file()

    make = make_watcher_factory(FakeDetector(), config, lambda: (640, 480), None, tmp_path / "zones.json")
    assert make().zones.bbox("discard") == (100, 100, 300, 300)


def test_run_vision_loop_rebuilds_the_watcher_when_zones_change():
    built = []

    class Watcher:
        def __init__(self) -> None:
            built.append(self)

        def feed(self, frame: Any, t: float) -> list[dict]:
            return []

    loop = VisionLoop(None, lambda: None, Watcher)  # type: ignore[arg-type]
    watcher = loop.make_watcher()
    frame = Frame(np.zeros((4, 4, 3), np.uint8), 0.0, 0)
    loop._process(watcher, frame)
    assert loop.latest is frame.image
    loop.reload_zones()
    assert loop._new_zones.is_set()


def test_vision_loop_retries_a_video_file_that_vanished_like_a_camera(tmp_path: Any) -> None:
    """--video FILE: the file disappears between two passes (a USB stick pulled), comes back."""
    import cv2

    from companion.vision.camera import OpenCVSource

    video = tmp_path / "table.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10, (32, 32))
    for value in (0, 3, 3, 0):
        writer.write(np.full((32, 32, 3), value * 40 + 20, np.uint8))
    writer.release()
    data = video.read_bytes()
    referee = FakeReferee()
    companion = Companion(referee)
    seen: list[str] = []
    passes: list[int] = []
    holder: dict[str, Any] = {}

    def make_source() -> OpenCVSource:
        passes.append(1)
        if len(passes) == 2:
            video.unlink()  # gone for the second and third tries
        if len(passes) == 4:
            seen.append(companion.status_line())  # while away: what the console says
            video.write_bytes(data)  # back
        if len(passes) == 5:
            holder["loop"].stop()
        return OpenCVSource(str(video))

    class Watch(MarkWatcher):
        def feed(self, frame: np.ndarray, t: float) -> list[dict]:
            return super().feed(frame // 40, t)

    loop = VisionLoop(referee, make_source, Watch, loop=True, backoff=(0.001, 0.002))
    holder["loop"] = loop
    companion.vision = loop
    loop.run()
    assert "camera: LOST since" in seen[0] and "does not exist" in seen[0]
    assert loop.stats.frames == 8  # played, vanished (retried twice), played again in full
    assert [e["card"] for e, _ in referee.events] == ["red_3", "red_3"]


def test_a_camera_that_cannot_be_opened_is_one_line_with_the_retry_time(tmp_path: Any) -> None:
    run = RunProcess(tmp_path, "--camera", "7", "--players", "Ann,Bob", "--bench", "3")
    assert run.proc.wait(timeout=120) == 0
    run._reader.join(timeout=10)
    lost = [line for line in run.lines if "camera 7 lost" in line]
    assert len(lost) == 1 and "retrying in 0.5 s" in lost[0]
    # nothing of OpenCV's own multi-line log reaches the terminal
    assert not [line for line in run.lines if "VIDEOIO" in line or "OpenCV(" in line or line.startswith(">")]


def _demo_truth() -> list[dict]:
    import json
    from pathlib import Path

    demo = Path(__file__).resolve().parent.parent / "companion" / "data" / "demo" / "demo.jsonl"
    return [json.loads(line) for line in demo.read_text().splitlines() if line.strip()]


def _play_the_demo_pass(bot: Any, referee: Any, truth: list[dict], missed: tuple[int, ...] = ()) -> None:
    """One pass of the demo as the camera reports it: its cards as `lay`s (no player, no
    colour), its reveals unnamed; the camera events numbered in `missed` never reported."""
    from companion.tablebot import CAMERA_EVENTS

    camera = [line for line in truth if line["type"] in CAMERA_EVENTS]
    for number, line in enumerate(camera):
        if number in missed:
            continue
        event = {k: v for k, v in line.items() if k in ("type", "card", "cards")}
        if event["type"] in ("flip", "play"):
            event = {"type": "lay", "card": event["card"], "top": [[event["card"], 0.97]]}
        event = bot.annotate(event)
        bot.camera_event(event, referee.submit(event, source="camera"))


def test_demo_standings_build_across_loops(tmp_path: Any) -> None:
    """Each pass of the demo video is the next hand of the same game: totals add up until the
    target is reached, then a new game begins."""
    import math

    from companion.referee.service import Referee
    from companion.referee.store import EventStore
    from companion.tablebot import TableBot

    truth = _demo_truth()
    referee = Referee(EventStore(tmp_path / "demo.db"))
    bot = TableBot(referee, truth[0]["players"], truth=truth)
    seen = []
    number = 0
    while not seen or seen[-1][2] is None:
        number += 1
        assert number <= 10, "the demo game never reached its target"
        bot.new_pass(number)
        _play_the_demo_pass(bot, referee, truth)
        state = referee.state
        assert [n for n in state["notices"] if n["kind"] == "rejected"] == []
        seen.append((len(state["history"]), {p["name"]: p["score"] for p in state["players"]}, state["game_winner"]))
        bot._settle(referee.state)  # the bot's thread would: the next hand is dealt
    first = seen[0][1]
    winner = max(first, key=first.get)
    loops = math.ceil(500 / first[winner])  # the demo's target, 500 points
    assert loops >= 2 and len(seen) == loops  # the standings build over several loops
    for k, (hands, totals, champion) in enumerate(seen, 1):
        assert hands == k and totals[winner] == k * first[winner]
        assert champion == (winner if k == loops else None)
    # won: a new game has begun, dealt for the video's hand
    state = referee.state
    assert state["history"] == [] and state["waiting_for"] == "flip" and state["dealer"] == truth[1]["dealer"]
    assert all(p["score"] == 0 for p in state["players"])


@pytest.mark.parametrize("missed", [(), (3,), (3, 11), (12,), (13,)])
def test_demo_bot_replays_the_demo_with_its_challenges_and_catch(tmp_path: Any, missed: tuple[int, ...]) -> None:
    """The demo table's phones (the bot) name the wilds' colours, catch the forgotten UNO!,
    challenge both wild draw fours and leave the judging to the hands the camera sees in the
    reveal area: the referee ends the pass exactly where the video's true log ends, with no
    event rejected. A card (or two) the camera misses on a busy CPU is entered by the bot from
    the log (3: a yellow 7; 11: the red 7 before the first challenge; 12: the wild draw four
    itself; 13: the challenged hand), so the turns stay the video's."""
    from companion.referee.engine import replay
    from companion.referee.service import Referee
    from companion.referee.store import EventStore
    from companion.tablebot import TableBot

    truth = _demo_truth()
    referee = Referee(EventStore(tmp_path / "demo.db"))
    bot = TableBot(referee, truth[0]["players"], truth=truth)
    bot.new_pass(1)
    _play_the_demo_pass(bot, referee, truth, missed)
    state, expected = referee.state, replay(truth).state
    assert [n for n in state["notices"] if n["kind"] == "rejected"] == []
    assert [n["message"] for n in state["notices"]] == [n["message"] for n in expected["notices"]]
    assert state["history"] == expected["history"]
    kinds = [n["kind"] for n in state["notices"]]
    assert {"challenge_failed", "challenge_upheld", "uno_penalty"} <= set(kinds)
    caught = next(n for n in state["notices"] if n["kind"] == "uno_penalty")
    assert "was caught without calling UNO" in caught["message"]
    said = [e["type"] for e in bot.submitted]
    assert said.count("challenge") == 2 and "catch" in said and "color" in said and "verdict" not in said
    # what the bot entered itself: only the camera events the camera missed
    entered = [e for e in bot.submitted if e["type"] in ("flip", "play", "take_back", "reveal")]
    assert len(entered) == len(missed)


def test_run_refuses_a_file_that_is_no_video_and_a_status_every_of_zero(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from companion.cli import main as cli

    bad = tmp_path / "bad.mp4"
    bad.write_bytes(bytes(range(256)) * 20)
    assert cli(["run", "--video", str(bad), "--config", str(_empty_config(tmp_path))]) == 2
    assert capsys.readouterr().err.strip() == f"uno-companion run: cannot open video file {str(bad)!r}: not a video this OpenCV reads"
    assert cli(["run", "--status-every", "0", "--config", str(_empty_config(tmp_path))]) != 0
    assert "--status-every is seconds" in capsys.readouterr().err


def test_a_damaged_store_starts_no_game_and_the_page_still_comes_up(tmp_path: Any, damaged_store: Any) -> None:
    # With players configured, a store that failed its integrity check is opened read-only:
    # `run` says so in one line and goes on (the page shows what can be read), not exit 2.
    from companion.commands.run import start_table
    from companion.config import Config
    from companion.referee.service import Referee
    from companion.referee.store import EventStore

    db = tmp_path / "games.db"
    damaged_store(db)
    said: list[str] = []
    referee = Referee(EventStore(db))
    start_table(referee, Config(players=["Ann", "Bob"]), said.append)
    assert len(said) == 1 and "read-only" in said[0] and "uno-companion restore" in said[0]
    assert referee.state["players"] == []


def test_buttons_at_the_demo_table_do_not_play_on_its_recorded_game() -> None:
    from companion.commands.run import _demo_press

    said: list[str] = []
    press = _demo_press(said.append)
    press({"type": "draw"})
    press({"type": "uno"})
    assert len(said) == 1 and "demo table" in said[0]  # said once, and nothing else happens


@pytest.mark.parametrize("host, link", [("127.0.0.1", "http://127.0.0.1:8123/seat"), ("::1", "http://[::1]:8123/seat")])
def test_the_join_link_is_where_the_server_listens(tmp_path: Any, host: str, link: str) -> None:
    # bound to one address, the TV and the QR code showed the LAN address where nothing answered
    from companion.commands.run import make_app
    from companion.config import Config
    from companion.referee.service import Referee
    from companion.referee.store import EventStore

    app = make_app(Referee(EventStore(tmp_path / "g.db")), Config(host=host, port=8123, db=str(tmp_path / "g.db")),
                   "2468", None, "none")
    assert link in app.test_client().get("/tv").get_data(as_text=True)


def test_a_new_game_taken_back_is_no_game_to_take_up_after_another_groups_run(tmp_path: Any) -> None:
    # Ann's group: the host's New game pressed by mistake and undone leaves an empty game in
    # the store, begun for the same players. Dee and Eve play a while; when the companion
    # starts with Ann's group again, their own game comes back, not that empty one (whose
    # table had no players and no seats: the group could not get its game back).
    from companion.commands.run import start_table
    from companion.config import Config
    from companion.referee.service import Referee
    from companion.referee.store import EventStore

    db, config, said, referee = _table_started(tmp_path)
    ours = referee.game_id
    referee.submit({"type": "flip", "card": "red_5"})
    referee.submit({"type": "game", "players": ["Ann", "Bob", "Cy"]}, "host")  # New game, by mistake
    referee.submit({"type": "undo"}, "host")
    assert referee.game_id == ours
    start_table(Referee(EventStore(db)), Config(players=["Dee", "Eve"]), said.append)
    back = Referee(EventStore(db))
    start_table(back, config, said.append)
    assert back.game_id == ours and back.state["top"] == "red_5" and said[-1].startswith(f"game: resuming {ours}")
