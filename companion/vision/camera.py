"""Frame sources: OpenCV (webcam, video file, stream URL), Picamera2, a folder of images.

Every source follows the `FrameSource` protocol: `open()`, `read() -> Frame | None`
(None at the end of a finite source), `close()`. A source that fails raises `SourceError`.
`ResilientSource` wraps any source for the table: a failure is reported in one line, the
source is reopened with back-off, and its `status` says "ok", "lost since ..." or "ended"
for the run command's status line. A lost source yields no frames, so it never makes events.

Frame times `t` are seconds: video time for files and folders (frame index / fps), seconds
since opening for live cameras.
"""
from __future__ import annotations

import logging
import re
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, Protocol

import numpy as np

from companion.errors import CompanionError, InputFileError

log = logging.getLogger(__name__)

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff")
# How long a stream URL may take to open, or to send a frame, before it counts as lost (a
# network camera answers in well under a second; FFmpeg's own wait was about 30 s)
STREAM_TIMEOUT_MS = 5000


class SourceError(CompanionError, OSError):
    """A camera or video that cannot be opened or stopped delivering frames."""

    exit_code = 2


@dataclass(frozen=True)
class Frame:
    image: np.ndarray  # BGR, uint8
    t: float  # seconds (video time for files, time since open for cameras)
    index: int


class FrameSource(Protocol):
    name: str
    fps: float  # nominal frame rate (0 when unknown)

    def open(self) -> None: ...
    def read(self) -> Frame | None: ...  # None: a finite source has ended; SourceError: failed
    def close(self) -> None: ...


class _Pacer:
    """Sleeps so a file source plays at real speed (the `run` demo loop)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep):
        self.clock, self.sleep = clock, sleep
        self.start: float | None = None

    def wait_until(self, t: float) -> None:
        now = self.clock()
        if self.start is None:
            self.start = now - t
        delay = self.start + t - now
        if delay > 0:
            self.sleep(delay)


class OpenCVSource:
    """`cv2.VideoCapture`: a USB webcam index (int or "0"), a video file, or a stream URL."""

    def __init__(self, spec: int | str, realtime: bool = False, size: tuple[int, int] | None = None):
        if isinstance(spec, str) and spec.isdigit():
            spec = int(spec)
        self.spec = spec
        self.is_camera = isinstance(spec, int)
        self.is_file = not self.is_camera and "://" not in str(spec)
        self.name = f"camera {spec}" if self.is_camera else str(spec)
        self.realtime = realtime
        self.size = size
        self.fps = 0.0
        self._cap = None
        self._index = 0
        self._t0 = 0.0
        self._pacer = _Pacer()

    def open(self) -> None:
        import cv2

        if self.is_file and not Path(str(self.spec)).is_file():
            raise InputFileError(f"video file {str(self.spec)!r} does not exist")
        if self.is_file or self.is_camera:
            cap = cv2.VideoCapture(self.spec)
        else:  # a stream URL: a server that takes the connection and sends nothing held the open
            # (and each retry) for about 30 s with the camera "starting"; STREAM_TIMEOUT_MS each
            cap = cv2.VideoCapture(self.spec, cv2.CAP_FFMPEG, [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, STREAM_TIMEOUT_MS,
                                                               cv2.CAP_PROP_READ_TIMEOUT_MSEC, STREAM_TIMEOUT_MS])
        if not cap.isOpened():
            cap.release()
            if self.is_file:  # a file will not come back by waiting, as a camera may
                raise InputFileError(f"cannot open video file {self.name!r}: not a video this OpenCV reads")
            raise SourceError(f"cannot open {self.name}")
        if self.is_camera and self.size:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
        fps = float(cap.get(cv2.CAP_PROP_FPS) or 0.0)
        self.fps = fps if 0 < fps < 1000 else 0.0
        self._cap = cap
        self._index = 0
        self._t0 = time.monotonic()
        self._pacer = _Pacer()

    def read(self) -> Frame | None:
        if self._cap is None:
            raise SourceError(f"{self.name} is not open")
        ok, image = self._cap.read()
        if not ok or image is None:
            if self.is_file and self._index == 0:
                raise InputFileError(f"cannot read video file {self.name!r}: no frame in it")
            if self.is_file:
                return None  # end of the video
            raise SourceError(f"{self.name} stopped delivering frames")
        if self.is_file:
            t = self._index / (self.fps or 10.0)
            if self.realtime:
                self._pacer.wait_until(t)
        else:
            t = time.monotonic() - self._t0
        frame = Frame(image, t, self._index)
        self._index += 1
        return frame

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


class FolderSource:
    """Still images in a folder, in name order (natural order: 2.png before 10.png)."""

    def __init__(self, folder: str | Path, fps: float = 10.0, realtime: bool = False):
        self.folder = Path(folder)
        self.name = str(self.folder)
        self.fps = float(fps)
        self.realtime = realtime
        self._files: list[Path] = []
        self._index = 0
        self._pacer = _Pacer()

    def open(self) -> None:
        if not self.folder.is_dir():
            raise InputFileError(f"image folder {str(self.folder)!r} does not exist")
        files = [p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES]
        if not files:
            raise InputFileError(f"image folder {str(self.folder)!r} holds no images")
        self._files = sorted(files, key=_natural_key)
        self._index = 0
        self._pacer = _Pacer()

    def read(self) -> Frame | None:
        import cv2

        if self._index >= len(self._files):
            return None
        path = self._files[self._index]
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise SourceError(f"cannot read image {str(path)!r}")
        t = self._index / self.fps
        if self.realtime:
            self._pacer.wait_until(t)
        frame = Frame(image, t, self._index)
        self._index += 1
        return frame

    def close(self) -> None:
        self._files = []


def picamera2_broken(exc: BaseException) -> str | None:
    """Why Picamera2 failed to import, when it is installed but does not load ("numpy.dtype
    size changed", "numpy.core.multiarray failed to import": apt's build against pip's numpy,
    an ImportError or a ValueError); None when it is simply not installed."""
    if isinstance(exc, ModuleNotFoundError) and exc.name == "picamera2":
        return None
    return f"does not load ({exc}): see hardware/README.md, 'The camera does not load'"


class Picamera2Source:
    """The Raspberry Pi camera module through Picamera2 (apt: python3-picamera2).

    On Raspberry Pi OS Bookworm `cv2.VideoCapture` cannot open the camera module, so this is
    the way there. The import happens in `open()`, so other machines never need the package.
    """

    def __init__(self, size: tuple[int, int] = (640, 480), camera_num: int = 0):
        self.size = size
        self.camera_num = camera_num
        self.name = "picamera"
        self.fps = 0.0
        self._cam = None
        self._index = 0
        self._t0 = 0.0

    def open(self) -> None:
        try:
            from picamera2 import Picamera2  # type: ignore[import-not-found]
        except Exception as exc:
            broken = picamera2_broken(exc)
            raise SourceError(f"picamera2 is installed but {broken}" if broken else "picamera2 is not installed; "
                              "on Raspberry Pi OS: sudo apt install python3-picamera2") from None
        try:
            cam = Picamera2(self.camera_num)
            # "RGB888" arrays are laid out B, G, R: exactly what OpenCV expects.
            config = cam.create_video_configuration(main={"size": tuple(self.size), "format": "RGB888"})
            cam.configure(config)
            cam.start()
        except Exception as exc:  # libcamera raises RuntimeError/IndexError when no camera is attached
            raise SourceError(f"cannot open the Pi camera: {exc}") from None
        self._cam = cam
        self._index = 0
        self._t0 = time.monotonic()

    def read(self) -> Frame | None:
        if self._cam is None:
            raise SourceError("the Pi camera is not open")
        try:
            image = self._cam.capture_array("main")
        except Exception as exc:
            raise SourceError(f"the Pi camera stopped delivering frames: {exc}") from None
        if image.ndim == 3 and image.shape[2] == 4:
            image = image[:, :, :3]
        frame = Frame(np.ascontiguousarray(image), time.monotonic() - self._t0, self._index)
        self._index += 1
        return frame

    def close(self) -> None:
        if self._cam is not None:
            try:
                self._cam.stop()
                self._cam.close()
            except Exception:  # closing a camera that vanished must not crash the companion
                pass
            self._cam = None


def open_source(spec: str | int, realtime: bool = False, fps: float = 10.0) -> FrameSource:
    """A source from a command-line word: `picamera`, a camera index, a folder, a file or URL."""
    text = str(spec).strip()
    if text == "picamera":
        return Picamera2Source()
    if text.isdigit():
        return OpenCVSource(int(text))
    if "://" in text:
        return OpenCVSource(text)
    path = Path(text)
    if path.is_dir():
        return FolderSource(path, fps=fps, realtime=realtime)
    if not path.exists():
        raise InputFileError(f"source {text!r} is not a camera index, 'picamera', a folder or an existing file")
    return OpenCVSource(text, realtime=realtime)


@dataclass(frozen=True)
class SourceStatus:
    state: str  # "starting", "ok", "lost", "ended"
    since: float  # clock time the state began
    fps: float  # measured frames per second over the last second or so
    message: str = ""

    def __str__(self) -> str:
        if self.state == "ok":
            return f"camera ok, {self.fps:.1f} fps"
        if self.state == "lost":
            return f"camera lost since {time.strftime('%H:%M:%S', time.localtime(self.since))}: {self.message}"
        return f"camera {self.state}"


class ResilientSource:
    """Keeps a source going: one log line when it fails, reopen with back-off, a status.

    `frames()` yields frames until the source ends (finite sources, unless `loop`) or `stop()`
    is called. While the source is lost nothing is yielded. Times keep increasing across
    reopens and loops, so the watcher sees one continuous clock.
    """

    def __init__(
        self,
        source: FrameSource,
        backoff: tuple[float, float] = (0.5, 10.0),
        loop: bool = False,
        on_status: Callable[[SourceStatus], None] | None = None,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
        max_failures: int | None = None,
    ):
        self.source = source
        self.backoff = backoff
        self.loop = loop
        self.on_status = on_status
        self.clock = clock
        self.sleep = sleep
        self.max_failures = max_failures  # give up after this many failed reopens in a row (None: never)
        self._status = SourceStatus("starting", clock(), 0.0)
        self._stopped = False
        self._times: list[float] = []
        self._offset = 0.0  # added to frame times after a reopen/loop
        self._last_t = -1.0

    @property
    def status(self) -> SourceStatus:
        return self._status

    def stop(self) -> None:
        self._stopped = True

    def _set(self, state: str, message: str = "") -> None:
        if state == self._status.state:
            # still the same outage: keep the first line, do not repeat it on every retry
            return
        self._status = SourceStatus(state, self.clock(), self._fps(), message)
        if state == "lost":
            log.warning("%s lost: %s; retrying in %g s, then every %g s at most", self.source.name, message,
                        self.backoff[0], self.backoff[1])
        elif state == "ok" and message == "recovered":
            log.warning("%s is back", self.source.name)
        if self.on_status is not None:
            self.on_status(self._status)

    def _fps(self) -> float:
        if len(self._times) < 2 or self._times[-1] <= self._times[0]:
            return 0.0
        return (len(self._times) - 1) / (self._times[-1] - self._times[0])

    def _open(self) -> bool:
        """Open (or reopen) the source, backing off between failures. False if stopped/given up."""
        delay = self.backoff[0]
        failures = 0
        while not self._stopped:
            try:
                self.source.open()
                return True
            except InputFileError:
                raise  # a missing file is the user's mistake, not a flaky camera
            except (SourceError, OSError) as exc:
                failures += 1
                self._set("lost", str(exc))
                if self.max_failures is not None and failures >= self.max_failures:
                    raise SourceError(f"{self.source.name}: gave up after {failures} failed attempts: {exc}") from None
                self.sleep(delay)
                delay = min(delay * 2, self.backoff[1])
        return False

    def frames(self) -> Iterator[Frame]:
        if not self._open():
            return
        recovered = False
        delay = self.backoff[0]
        while not self._stopped:
            try:
                frame = self.source.read()
            except InputFileError:
                raise  # a file with no video in it: the user's mistake, as in _open
            except (SourceError, OSError) as exc:
                self._set("lost", str(exc))
                self.source.close()
                self.sleep(delay)
                delay = min(delay * 2, self.backoff[1])
                self._offset = self._last_t + 1.0 / (self.source.fps or 10.0)
                if not self._open():
                    return
                recovered = True
                continue
            if frame is None:
                if self.loop:
                    self.source.close()
                    self._offset = self._last_t + 1.0 / (self.source.fps or 10.0)
                    if not self._open():
                        return
                    continue
                self._set("ended")
                self.source.close()
                return
            delay = self.backoff[0]
            now = self.clock()
            self._times.append(now)
            if len(self._times) > 30:
                del self._times[0]
            t = frame.t + self._offset
            if t <= self._last_t:  # a reopened camera restarts its clock: keep time increasing
                self._offset += self._last_t - t + 1e-3
                t = frame.t + self._offset
            self._last_t = t
            if self._status.state != "ok":
                self._set("ok", "recovered" if recovered else "")
                recovered = False
            elif len(self._times) % 10 == 0:
                self._status = SourceStatus("ok", self._status.since, self._fps())
            yield Frame(frame.image, t, frame.index)
        self.source.close()


def _natural_key(path: Path) -> list:
    return [int(part) if part.isdigit() else part.lower() for part in re.split(r"(\d+)", path.name)]
