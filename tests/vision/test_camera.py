"""Frame sources: image folders, video files, and a camera that dies and comes back."""
from __future__ import annotations

import logging

import cv2
import numpy as np
import pytest

from companion.vision.camera import (
    FolderSource,
    Frame,
    OpenCVSource,
    ResilientSource,
    SourceError,
    open_source,
)
from companion.errors import InputFileError


def _image(value: int) -> np.ndarray:
    return np.full((48, 64, 3), value, np.uint8)


def test_folder_source_reads_images_in_natural_order(tmp_path):
    for k in (10, 2, 1):
        cv2.imwrite(str(tmp_path / f"frame{k}.png"), _image(k * 10))
    (tmp_path / "notes.txt").write_text("not an image")
    source = FolderSource(tmp_path, fps=5)
    source.open()
    frames = []
    while (f := source.read()) is not None:
        frames.append(f)
    assert [int(f.image[0, 0, 0]) for f in frames] == [10, 20, 100]
    assert [f.t for f in frames] == [0.0, 0.2, 0.4]


def test_folder_source_missing_or_empty_is_a_clear_error(tmp_path):
    with pytest.raises(InputFileError, match="does not exist"):
        FolderSource(tmp_path / "nope").open()
    with pytest.raises(InputFileError, match="no images"):
        FolderSource(tmp_path).open()


def test_opencv_source_plays_a_video_file_with_video_time(tmp_path):
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    for k in range(5):
        writer.write(_image(40 * k))
    writer.release()
    source = open_source(str(path))
    assert isinstance(source, OpenCVSource)
    frames = list(ResilientSource(source).frames())
    assert len(frames) == 5
    assert [round(f.t, 2) for f in frames] == [0.0, 0.1, 0.2, 0.3, 0.4]


def test_open_source_rejects_a_missing_file(tmp_path):
    with pytest.raises(InputFileError, match="not a camera index"):
        open_source(str(tmp_path / "missing.mp4"))


class FlakyCamera:
    """A camera that delivers 3 frames, dies, refuses to reopen twice, then works again."""

    name = "flaky"
    fps = 10.0

    def __init__(self) -> None:
        self.opens = 0
        self.read_count = 0
        self.is_open = False

    def open(self) -> None:
        self.opens += 1
        if 2 <= self.opens <= 3:
            raise SourceError("cannot open flaky")
        self.is_open = True

    def read(self) -> Frame | None:
        if not self.is_open:
            raise SourceError("flaky is not open")
        self.read_count += 1
        if self.read_count == 4:
            self.is_open = False
            raise SourceError("flaky stopped delivering frames")
        if self.read_count > 8:
            return None
        return Frame(_image(self.read_count), 0.1 * self.read_count, self.read_count)

    def close(self) -> None:
        self.is_open = False


def test_resilient_source_reports_once_and_reopens_with_backoff(caplog):
    camera = FlakyCamera()
    sleeps: list[float] = []
    statuses = []
    source = ResilientSource(camera, backoff=(0.5, 4.0), sleep=sleeps.append, on_status=statuses.append)
    with caplog.at_level(logging.WARNING, logger="companion.vision.camera"):
        frames = list(source.frames())
    # 3 frames, the outage, then frames 5..8; nothing is made up during the outage
    assert [int(f.image[0, 0, 0]) for f in frames] == [1, 2, 3, 5, 6, 7, 8]
    times = [f.t for f in frames]
    assert times == sorted(times) and len(set(times)) == len(times)
    assert camera.opens == 4
    assert sleeps == [0.5, 0.5, 1.0]  # after the failure, then doubling while reopening fails
    lost = [r for r in caplog.records if "lost" in r.getMessage()]
    assert len(lost) == 1  # one line for the whole outage
    assert [s.state for s in statuses] == ["ok", "lost", "ok", "ended"]
    assert "lost since" in str(statuses[1])
    assert source.status.state == "ended"


def test_resilient_source_can_give_up():
    class Dead:
        name, fps = "dead", 0.0

        def open(self):
            raise SourceError("no camera")

        def read(self):
            raise AssertionError("never opened")

        def close(self):
            pass

    with pytest.raises(SourceError, match="gave up after 3"):
        list(ResilientSource(Dead(), sleep=lambda s: None, max_failures=3).frames())


def test_picamera_is_only_imported_when_asked_for():
    source = open_source("picamera")
    assert source.name == "picamera"
    try:
        import picamera2  # noqa: F401
    except ImportError:
        # no brackets: the status line puts the reason in none ("LOST since …: …; retrying")
        with pytest.raises(SourceError, match=r"^picamera2 is not installed; on Raspberry Pi OS: sudo apt install python3-picamera2$"):
            source.open()


def test_watch_and_render_say_a_users_mistake_in_one_line(tmp_path, capsys):
    from companion.cli import main as cli

    picture = tmp_path / "bad.jpg"  # not even a picture: a file no video reader can play
    picture.write_bytes(bytes(range(256)) * 20)
    assert cli(["watch", str(picture)]) == 2  # no retrying a file forever, no "0 events" success
    assert "cannot" in capsys.readouterr().err
    assert cli(["render", "red_5", "--out", str(picture)]) != 0
    err = capsys.readouterr().err
    assert "is a file: name a folder" in err and err.strip().count("\n") == 0


def test_a_stream_that_takes_the_connection_and_sends_nothing_is_lost_soon(monkeypatch):
    # `--camera http://...` to a server that answered nothing said "starting" for about 30 s
    # (FFmpeg's own wait), and each retry blocked as long again: a stream is opened with a wait
    # of its own, for the opening and for each frame
    from companion.vision import camera

    opened: list[tuple] = []

    class Closed:
        def isOpened(self) -> bool:
            return False

        def release(self) -> None:
            pass

    monkeypatch.setattr(cv2, "VideoCapture", lambda *args: opened.append(args) or Closed())
    with pytest.raises(camera.SourceError, match="cannot open http://cam.local/stream.mjpg"):
        camera.OpenCVSource("http://cam.local/stream.mjpg").open()
    spec, backend, params = opened[0]
    waits = dict(zip(params[::2], params[1::2]))
    assert waits == {cv2.CAP_PROP_OPEN_TIMEOUT_MSEC: camera.STREAM_TIMEOUT_MS,
                     cv2.CAP_PROP_READ_TIMEOUT_MSEC: camera.STREAM_TIMEOUT_MS} and camera.STREAM_TIMEOUT_MS <= 10_000
