"""The companion at the table: one process, one thread per part, one referee in the middle.

    frame source -> watcher -> referee <- phones (web page), GPIO buttons, demo table bot
                                |-> event store (inside the referee, before anyone is told)
                                |-> phones (SSE), LED and buzzer

Data flows one way. Each part runs in its own thread and a failure in one (the camera, the
recognizer, a GPIO callback) is logged and retried; it never takes down the referee or the
page. `Runner.status_line()` says how every part is doing, for the console.
"""
from __future__ import annotations

import logging
import queue
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Protocol

from companion.referee.engine import WAITING_WORDS
from companion.vision.camera import Frame, FrameSource, ResilientSource, SourceStatus
from companion.vision.watcher import beside_words

log = logging.getLogger("companion.run")

# Camera events the watcher emits; everything else comes from phones, buttons or the bot.
# A `lay` is no table-log line: the referee makes it a flip or a play (companion/referee/service.py).
CAMERA_EVENTS = frozenset({"lay", "take_back", "reveal"})


class Watcher(Protocol):
    def feed(self, frame: Any, t: float) -> list[dict]: ...


class Submitter(Protocol):
    def submit(self, event: dict, source: str = "") -> list[dict]: ...

    @property
    def state(self) -> dict: ...


# An arm over the pile stays a few seconds, and one resting there fades into the background in
# about 15 s; the pile taken as covered longer than this means the watcher is stuck (light it
# could not follow) and sees no card laid: worth a line.
PILE_HIDDEN_SAY_S = 20.0
# A camera that sends a grey picture (a night mode) shows cards whose colour cannot be read; they
# are not named. Said while that was seen within this long (a status line comes every 30 s or so).
COLOURLESS_SAY_S = 60.0


@dataclass
class VisionStats:
    """What the vision thread has done, for the status line and the benchmark."""

    frames: int = 0  # frames the watcher saw
    skipped: int = 0  # frames dropped to keep up with real time
    events: int = 0  # table events the watcher confirmed
    errors: int = 0  # frames whose processing raised
    passes: int = 0  # times a video was started (the demo loops)
    fps: float = 0.0  # frames processed per second, recent
    pile_hidden: float = 0.0  # seconds the discard pile has been out of the camera's sight
    detect_ms: float = 0.0  # mean time per processed frame, recent
    t: float = 0.0  # the time of the last frame seen (the source's clock)
    colourless_at: float | None = None  # when cards were last seen showing no colour (a grey picture)
    beside: str | None = None  # a card lying beside the discard pile, not on it (its name)


class VisionLoop:
    """Reads frames, feeds the watcher, submits what it confirms to the referee.

    `make_source` builds a fresh FrameSource for each pass over a video (or once for a
    camera); `make_watcher` a fresh watcher for each pass, so a looping demo starts clean.
    `realtime` paces a file at its own frame rate and drops frames when processing falls
    behind, so the table sees the video at real speed on any machine.
    """

    def __init__(
        self,
        referee: Submitter,
        make_source: Callable[[], FrameSource],
        make_watcher: Callable[[], Watcher],
        *,
        loop: bool = False,
        realtime: bool = False,
        max_fps: float = 0.0,
        on_pass: Callable[[int], None] | None = None,
        on_event: Callable[[dict, list[dict]], None] | None = None,
        before_frame: Callable[[Frame], None] | None = None,
        annotate: Callable[[dict], dict] | None = None,
        backoff: tuple[float, float] = (0.5, 10.0),
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.referee = referee
        self.make_source = make_source
        self.make_watcher = make_watcher
        self.loop = loop
        self.realtime = realtime
        self.max_fps = max_fps  # 0: every frame; else process at most this many per second
        self.on_pass = on_pass
        self.on_event = on_event
        self.before_frame = before_frame  # e.g. tells a truth-driven test detector the frame time
        self.annotate = annotate  # fills in what the camera cannot know (the demo bot)
        self.backoff = backoff
        self.clock = clock
        self.sleep = sleep
        self.stats = VisionStats()
        self._colourless = 0  # the recognizer's count of cards seen without colour, as last seen
        self.source_status: SourceStatus | None = None
        self.source_name = ""
        self.finished = threading.Event()
        self.error = ""  # the last failure of the vision part, for the status line
        self._stop = threading.Event()
        self._resilient: ResilientSource | None = None
        self._recent: list[tuple[float, float]] = []  # (clock, seconds spent) per processed frame
        self.latest: Any = None  # the last frame seen, for the host's zone set-up snapshot
        self.detector: Any = None  # the recognizer, for the host's colour calibration
        self._new_zones = threading.Event()

    def reload_zones(self) -> None:
        """The zones were edited: the next frame goes to a watcher built on the new ones."""
        self._new_zones.set()

    def stop(self) -> None:
        self._stop.set()
        if self._resilient is not None:
            self._resilient.stop()

    @property
    def stopped(self) -> bool:
        return self._stop.is_set()

    def warnings(self) -> dict[str, dict]:
        """What the camera sees that the host should hear about now, by code with its figures:
        "pile_hidden" ({"s": seconds}: the discard pile out of sight longer than
        `PILE_HIDDEN_SAY_S`, so no card laid is seen), "colourless" (cards showing no colour
        within `COLOURLESS_SAY_S`: a grey picture, cards not named) and "beside" ({"card":
        name}: a card come to rest beside the discard pile, not on it, so not played). Only
        while the camera sends pictures: a lost camera is said by its status."""
        stats, status = self.stats, self.source_status
        if status is None or status.state != "ok":
            return {}
        out: dict[str, dict] = {}
        if stats.pile_hidden >= PILE_HIDDEN_SAY_S:
            out["pile_hidden"] = {"s": round(stats.pile_hidden)}
        if stats.colourless_at is not None and stats.t - stats.colourless_at <= COLOURLESS_SAY_S:
            out["colourless"] = {}
        if stats.beside:
            out["beside"] = {"card": stats.beside}
        return out

    def run(self) -> None:
        """Passes until stopped (or the source ends, unless looping). A crash of the vision
        part is logged and vision restarts after a back-off; the referee and page carry on."""
        from companion.errors import CompanionError, InputFileError

        delay = self.backoff[0]
        try:
            while not self._stop.is_set():
                try:
                    self._one_pass()
                    delay = self.backoff[0]
                except CompanionError as exc:
                    if isinstance(exc, InputFileError) and self.stats.frames > 0:
                        # A video that has played and is gone (a USB stick pulled, the file
                        # being replaced): like a lost camera, said once and retried.
                        self.error = str(exc)
                        if self.source_status is None or self.source_status.state != "lost":
                            log.warning("%s; retrying with back-off", exc)
                            self.source_status = SourceStatus("lost", time.time(), 0.0, str(exc))
                        if self._stop.wait(delay):
                            return
                        delay = min(delay * 2, self.backoff[1])
                        continue
                    # a user's mistake before anything played (missing file, bad model path)
                    log.error("vision stopped: %s", exc)
                    self.error = str(exc)
                    return
                except Exception as exc:
                    self.stats.errors += 1
                    self.error = f"{type(exc).__name__}: {exc}"
                    log.exception("vision failed; restarting in %.0f s (the referee and the page carry on)", delay)
                    if self._stop.wait(delay):
                        return
                    delay = min(delay * 2, self.backoff[1])
                    continue
                if not self.loop:
                    break
        finally:
            self.finished.set()

    def _one_pass(self) -> None:
        source = self.make_source()
        name = str(getattr(source, "name", "camera"))
        self.source_name = name.rsplit("/", 1)[-1] if "://" not in name else name  # a file's name, not its path
        self._resilient = ResilientSource(source, backoff=self.backoff, on_status=self._status_changed)
        if self._stop.is_set():
            return
        watcher = self.make_watcher()
        self.stats.passes += 1
        if self.on_pass is not None:
            self.on_pass(self.stats.passes)
        start: float | None = None
        last_t: float | None = None
        for frame in self._resilient.frames():
            if self._stop.is_set():
                break
            self.source_status = self._resilient.status
            if self.realtime:
                now = self.clock()
                if start is None:
                    start = now - frame.t
                due = start + frame.t
                if now > due + 0.15:  # behind real time: drop this frame, catch up
                    self.stats.skipped += 1
                    continue
                if due > now:
                    self.sleep(due - now)
            if self.max_fps > 0 and last_t is not None and frame.t - last_t < 0.999 / self.max_fps:
                self.stats.skipped += 1  # more frames than the CPU budget allows: thin them out
                continue
            last_t = frame.t
            if self._new_zones.is_set():
                self._new_zones.clear()
                watcher = self.make_watcher()
            self._process(watcher, frame)
        self.source_status = self._resilient.status

    def _process(self, watcher: Watcher, frame: Frame) -> None:
        began = self.clock()
        self.latest = frame.image
        try:
            if self.before_frame is not None:
                self.before_frame(frame)
            events = watcher.feed(frame.image, frame.t)
            self.stats.pile_hidden = float(getattr(watcher, "pile_hidden", 0.0))
            beside = getattr(watcher, "beside", None)
            self.stats.beside = beside["card"] if beside else None
            self.stats.t = frame.t
            colourless = int(getattr(getattr(watcher, "detector", None), "colourless_total", 0))
            if colourless > self._colourless:  # the recognizer dropped cards it could not see the colour of
                self.stats.colourless_at = frame.t
            self._colourless = colourless
        except Exception:
            # One bad frame (or a recognizer hiccup) is logged, not fatal; no events from it.
            self.stats.errors += 1
            if self.stats.errors <= 3 or self.stats.errors % 100 == 0:
                log.exception("vision: frame %d could not be processed (%d so far)", frame.index, self.stats.errors)
            return
        finally:
            spent = self.clock() - began
            self.stats.frames += 1
            self._recent.append((began, spent))
            if len(self._recent) > 30:
                del self._recent[0]
            self._update_rates()
        for event in events:
            line = {k: v for k, v in event.items() if k != "t"}  # frame time is not part of the log
            try:
                if self.annotate is not None:
                    line = self.annotate(line)
                notices = self.referee.submit(line, source="camera")
            except OSError as exc:  # the store cannot be written (disk full, read-only card): one line
                log.error("vision: %s was not stored: %s", line.get("type"), exc)
                continue
            except Exception:
                log.exception("vision: the referee could not take %s", line)
                continue
            self.stats.events += 1
            if self.on_event is not None:
                self.on_event(line, notices)

    def _update_rates(self) -> None:
        if len(self._recent) >= 2:
            span = self._recent[-1][0] - self._recent[0][0]
            self.stats.fps = (len(self._recent) - 1) / span if span > 0 else 0.0
        self.stats.detect_ms = 1000.0 * sum(s for _, s in self._recent) / len(self._recent)

    def _status_changed(self, status: SourceStatus) -> None:
        self.source_status = status


class EventPump:
    """Takes table events from any thread (GPIO callbacks put and return at once) and hands
    them to the referee on its own thread."""

    def __init__(self, referee: Submitter, source: str) -> None:
        self.referee = referee
        self.source = source
        self.queue: queue.Queue[dict | None] = queue.Queue()
        self.submitted = 0

    def put(self, event: dict) -> None:
        self.queue.put(event)

    def stop(self) -> None:
        self.queue.put(None)

    def run(self) -> None:
        while True:
            event = self.queue.get()
            if event is None:
                return
            try:
                self.referee.submit(event, source=self.source)
                self.submitted += 1
            except OSError as exc:  # the store cannot be written: one line, nothing changed
                log.error("%s: %s was not stored: %s", self.source, event.get("type"), exc)
            except Exception:
                log.exception("%s: the referee could not take %s", self.source, event)


# what the player whose turn it is must do, as the English page says it (not the phase's name)
_TURN_WORDS = {
    "play": "{} to play",
    "color": "{} names a colour",
    "target": "{} picks a player",
    "challenge": "{} may challenge the wild card",
}


def describe_game(state: dict) -> str:
    """A few words on the game for the status line."""
    waiting = state.get("waiting_for")
    if not state.get("players"):
        return "no game yet (set one up on the host page)"
    if waiting == "game_over":
        return f"game over, {state.get('game_winner')} won"
    hand = state.get("hand") or 0
    parts = [f"hand {hand}"] if hand else []
    turn = state.get("turn")
    if waiting in _TURN_WORDS and turn:
        parts.append(_TURN_WORDS[waiting].format(turn))
    else:
        parts.append(f"waiting for {WAITING_WORDS.get(waiting, waiting)}")
    if state.get("top"):
        parts.append(f"top {state['top']}")
    leader = max(state["players"], key=lambda p: p.get("score", 0))
    if leader.get("score"):
        parts.append(f"leader {leader['name']} {leader['score']}")
    return ", ".join(parts)


def iter_lines(text: str) -> Iterator[str]:
    for line in text.splitlines():
        if line.strip():
            yield line


def bind_page(host: str, port: int) -> Any:
    """The phone page's listening socket. `run` binds it before it opens the store, so a port
    in use or an address not of this machine is a one-line error (exit 2) that leaves nothing
    written behind."""
    import errno
    import socket

    from companion.errors import CompanionError
    from web.server import bind

    try:
        return bind(host, port)
    except OSError as exc:
        if isinstance(exc, socket.gaierror) or exc.errno == errno.EADDRNOTAVAIL:  # the address, not the port
            error = CompanionError(f"cannot serve the phone page on {host}: {exc.strerror or exc} "
                                   "(--host takes an address of this machine, or 0.0.0.0 for all)")
        else:
            error = CompanionError(f"cannot serve the phone page on port {port}: {exc.strerror or exc} "
                                   "(another companion running? choose another with --port)")
        error.exit_code = 2
        raise error from None


class WebServer:
    """The phone page (web.server: live streams on an event loop, Flask on a few threads), in
    its own thread; binding happens in start() so a port in use is a one-line error before
    anything else runs."""

    def __init__(self, app: Any, host: str, port: int, threads: int = 8, sock: Any = None) -> None:
        self.app, self.host, self.port, self.threads = app, host, port, threads
        self.sock = sock  # bound already by `bind_page`, or bound in start()
        self.server: Any = None
        self.thread: threading.Thread | None = None

    def start(self) -> None:
        from web.server import Server

        sock = self.sock if self.sock is not None else bind_page(self.host, self.port)
        self.server = Server(self.app, self.host, self.port, workers=self.threads, sock=sock)
        self.port = self.server.port
        self.server.start()
        self.thread = self.server.thread

    def stop(self) -> None:
        server, self.server = self.server, None
        if server is not None:
            try:
                server.stop()
            except Exception:
                log.exception("web: stopping the server failed")


def phones_connected(app: Any) -> int | None:
    """How many phones have the live page open (SSE streams), if the web app tells."""
    if app is None:
        return None
    for holder in (getattr(app, "extensions", {}).get("companion"), getattr(app, "extensions", {}).get("uno")):
        for name in ("phones_connected", "clients", "connected"):
            value = getattr(holder, name, None) if holder is not None and not isinstance(holder, dict) else (holder or {}).get(name)
            if callable(value):
                value = value()
            if isinstance(value, int):
                return value
            if isinstance(value, (list, set, dict)):
                return len(value)
    return None


class Companion:
    """All the parts, started and stopped together. Everything is passed in (tests pass fakes)."""

    def __init__(
        self,
        referee: Any,
        *,
        web: WebServer | None = None,
        vision: VisionLoop | None = None,
        bot: Any = None,
        hardware: Any = None,
        pump: EventPump | None = None,
        say: Callable[[str], None] = print,
    ) -> None:
        self.referee = referee
        self.web = web
        self.vision = vision
        self.bot = bot
        self.hardware = hardware
        self.pump = pump
        self.say = say
        self.threads: list[threading.Thread] = []
        self._unsubscribe: Callable[[], None] | None = None
        self.started_at = time.monotonic()

    def start(self) -> None:
        if self.web is not None:
            self.web.start()  # first: a busy port stops us before anything else moves
        if self.hardware is not None:
            self._unsubscribe = self.referee.subscribe(self.hardware.update)
            self.hardware.update(self.referee.state, [])
        if self.pump is not None:
            self._thread(self.pump.run, "gpio-events")
        if self.bot is not None:
            self.bot.start()
        if self.vision is not None:
            self._thread(self.vision.run, "vision")
        self.started_at = time.monotonic()

    def _thread(self, target: Callable[[], None], name: str) -> None:
        thread = threading.Thread(target=target, name=name, daemon=True)
        thread.start()
        self.threads.append(thread)

    def stop(self) -> None:
        if self.vision is not None:
            self.vision.stop()
        if self.bot is not None:
            self.bot.stop()
        if self.pump is not None:
            self.pump.stop()
        for thread in self.threads:
            thread.join(timeout=5)
        if self._unsubscribe is not None:
            self._unsubscribe()
        if self.hardware is not None:
            self.hardware.close()
        if self.web is not None:
            self.web.stop()

    def status_line(self) -> str:
        parts = [time.strftime("%H:%M:%S")]
        if self.vision is None:
            parts.append("camera: none (phones only)")
        else:
            stats = self.vision.stats
            status = self.vision.source_status
            if status is None or status.state == "starting":
                camera = f"camera: starting {self.vision.source_name}".rstrip()
            elif status.state == "lost":
                camera = f"camera: LOST since {time.strftime('%H:%M:%S', time.localtime(status.since))}: {status.message}; retrying"
            elif status.state == "ended":
                camera = "camera: video ended"
            else:
                camera = f"camera: {self.vision.source_name} ok, {stats.fps:.1f} fps ({stats.detect_ms:.0f} ms/frame)"
            if self.vision.finished.is_set() and not self.vision.stopped and self.vision.error:
                camera += f" [vision stopped: {self.vision.error}]"
            warnings = self.vision.warnings()
            if "pile_hidden" in warnings:
                camera += f", the pile hidden for {warnings['pile_hidden']['s']} s (something over it?)"
            if "colourless" in warnings:
                camera += ", cards seen without colour (a black-and-white picture? a night mode?): not named"
            if "beside" in warnings:
                camera += ", " + beside_words(warnings["beside"]["card"])
            parts.append(camera + f", {stats.events} card{'' if stats.events == 1 else 's'} seen")
        phones = phones_connected(self.web.app if self.web else None)
        if phones is not None:
            parts.append(f"phones: {phones}")
        state = self.referee.state
        parts.append("game: " + describe_game(state))
        if self.hardware is not None:
            parts.append("GPIO: " + self.hardware.describe())
        return " | ".join(parts)

    def run(self, duration: float | None = None, every: float = 5.0, stop: threading.Event | None = None) -> None:
        """Print the status line every `every` seconds until Ctrl-C, `stop`, or `duration`."""
        stop = stop or threading.Event()
        end = None if duration is None else time.monotonic() + duration
        last = ""
        while not stop.is_set():
            wait = every if end is None else max(0.0, min(every, end - time.monotonic()))
            if stop.wait(wait):
                break
            line = self.status_line()
            if line[9:] != last[9:]:  # do not repeat an unchanged line (time aside)
                self.say(line)
            last = line
            if end is not None and time.monotonic() >= end:
                break
