"""The UNO! buzzer and the Draw/Pass button: GPIO presses in, table events out.

Every handler only hands a table event to `submit` (the runner passes a queue's `put`), so
the GPIO driver's thread never waits on the referee. Bounce is guarded in software, on both
edges (`Debouncer`). The clock is injectable so tests can step time (gpiozero's MockFactory
does not simulate bounce).
"""
from __future__ import annotations

import threading
import time
from typing import Any, Callable

from gpiozero import Button

Clock = Callable[[], float]
Submit = Callable[[dict], None]


def _later(delay: float, fn: Callable[[], None]) -> None:
    timer = threading.Timer(delay, fn)
    timer.daemon = True
    timer.start()


class Debouncer:
    """One switch's contact, debounced on both edges.

    A press counts when the switch is up and has been up for `ms` milliseconds: a bounce as
    the switch is let go (a fresh contact 2 ms after the release), or a second tap sooner
    than that, is not a new press. A release sooner than `SETTLE_S` after the press may be
    the contact bouncing as it closes: it counts once the contact has stayed open that long
    (checked on a timer, or at the next edge), and is forgotten if the contact closes again
    first, so a bouncy press is one press and a very short tap still ends. `ended(held)` is
    called when a counted press ends.
    """

    # Mechanical switches settle within a few milliseconds; 20 ms covers cheap ones too.
    SETTLE_S = 0.02

    def __init__(self, ms: int, clock: Clock = time.monotonic,
                 ended: Callable[[float], None] | None = None,
                 schedule: Callable[[float, Callable[[], None]], None] = _later) -> None:
        self.seconds = ms / 1000.0
        self.clock = clock
        self.ended = ended
        self._schedule = schedule
        self._lock = threading.Lock()
        self._down_at: float | None = None  # the counted press still held
        self._up_at: float | None = None  # the last time the contact opened
        self._maybe_up: float | None = None  # a release too soon to tell from a bounce

    def accept(self) -> bool:
        """The contact closed: whether this is a new press."""
        with self._lock:
            now = self.clock()
            if self._maybe_up is not None and now - self._maybe_up >= self.SETTLE_S:
                self._end(self._maybe_up)  # that release was real (its timer has not run yet)
            if self._down_at is not None:  # still held: the closing contact bounced
                self._maybe_up = None
                return False
            if self._up_at is not None and now - self._up_at < self.seconds:
                return False
            self._down_at = now
            return True

    def release(self) -> None:
        """The contact opened."""
        with self._lock:
            now = self.clock()
            if self._down_at is None:  # the end of a bounce or of an uncounted tap
                self._up_at = now
                return
            if now - self._down_at < self.SETTLE_S:
                self._maybe_up = now
                self._schedule(self.SETTLE_S, lambda: self._settled(now))
                return
            self._end(now)

    def _settled(self, at: float) -> None:
        with self._lock:
            if self._maybe_up == at:  # the contact stayed open: the press really ended
                self._end(at)

    def _end(self, at: float) -> None:
        held, self._down_at, self._maybe_up, self._up_at = at - (self._down_at or at), None, None, at
        if self.ended is not None:
            self.ended(held)


def _button(pin: int, pin_factory: Any) -> Button:
    # Buttons wire the pin to GND; the internal pull-up holds it high until pressed.
    # gpiozero's own bounce_time is off: software debounce decides, the same on every factory.
    return Button(pin, pull_up=True, bounce_time=None, pin_factory=pin_factory)


class _Buttons:
    """What both kinds of button share: their pins, the hand-off to `submit`, closing."""

    def __init__(self, submit: Submit) -> None:
        self._submit = submit
        self.buttons: dict[Any, Button] = {}

    def _wire(self, button: Button, contact: Debouncer, event: dict | None = None) -> None:
        """The button's edges into its contact; with `event`, each counted press submits it.
        (The handler holds this object: the buttons live as long as their handlers do.)"""
        def pressed() -> None:
            if contact.accept() and event is not None:
                self._submit(dict(event))

        button.when_pressed = pressed
        button.when_released = contact.release

    def close(self) -> None:
        for button in self.buttons.values():
            button.close()
        self.buttons.clear()


class UnoButtons(_Buttons):
    """One shared UNO! button (the referee attributes the call) or one button per seat; with
    `shared_too`, the shared one as well, for the players who have no seat button."""

    def __init__(
        self,
        submit: Submit,
        pin_factory: Any,
        shared_pin: int = 17,
        seat_pins: dict[str, int] | None = None,
        debounce_ms: int = 200,
        clock: Clock = time.monotonic,
        shared_too: bool = False,
    ) -> None:
        super().__init__(submit)
        owners: dict[str | None, int] = {name: pin for name, pin in (seat_pins or {}).items()}
        if shared_pin and (not owners or shared_too) and shared_pin not in owners.values():
            owners[None] = shared_pin
        try:
            for player, pin in owners.items():
                self.buttons[player] = button = _button(pin, pin_factory)
                event: dict = {"type": "uno"} if player is None else {"type": "uno", "player": player}
                self._wire(button, Debouncer(debounce_ms, clock), event)
        except Exception:
            self.close()
            raise


class DrawPassButtons(_Buttons):
    """Draw/Pass for the player whose turn it is.

    One button (`draw_pin` only): a short press draws, a press held `long_press` seconds or
    more passes (decided on release). Two buttons (`draw_pin` and `pass_pin`): one draws,
    the other passes. The event carries no player: it belongs to whoever's turn it is.
    """

    def __init__(
        self,
        submit: Submit,
        pin_factory: Any,
        draw_pin: int,
        pass_pin: int = 0,
        long_press: float = 1.0,
        debounce_ms: int = 200,
        clock: Clock = time.monotonic,
    ) -> None:
        super().__init__(submit)
        self.long_press = long_press
        try:
            self.buttons["draw"] = _button(draw_pin, pin_factory)
            if pass_pin:
                self.buttons["pass"] = _button(pass_pin, pin_factory)
                self._wire(self.buttons["draw"], Debouncer(debounce_ms, clock), {"type": "draw"})
                self._wire(self.buttons["pass"], Debouncer(debounce_ms, clock), {"type": "pass"})
            else:  # one button: what it does is decided when the press ends
                self._wire(self.buttons["draw"], Debouncer(debounce_ms, clock, ended=self._press_ended))
        except Exception:
            self.close()
            raise

    def _press_ended(self, held: float) -> None:
        self._submit({"type": "pass"} if held >= self.long_press else {"type": "draw"})
