"""The UNO! buzzer and the Draw/Pass button: GPIO presses in, table events out.

Every handler only hands a table event to `submit` (the runner passes a queue's `put`), so
the GPIO driver's thread never waits on the referee. Bounce is guarded in software: a press
within `debounce_ms` of the last accepted press on the same button is ignored. The clock is
injectable so tests can step time (gpiozero's MockFactory does not simulate bounce).
"""
from __future__ import annotations

import time
from typing import Any, Callable

from gpiozero import Button

Clock = Callable[[], float]
Submit = Callable[[dict], None]


class Debouncer:
    """One switch's contact, debounced on both edges.

    A press counts when the switch is up and has been up for `ms` milliseconds: a bounce as
    the switch is let go (a fresh contact 2 ms after the release), or a second tap sooner
    than that, is not a new press. A release counts once the press is `SETTLE_S` old: the
    contact bouncing as it closes (down, up, down within a few ms) is one press, not a tap.
    """

    # Mechanical switches settle within a few milliseconds; no finger lets go in 20.
    SETTLE_S = 0.02

    def __init__(self, ms: int, clock: Clock = time.monotonic) -> None:
        self.seconds = ms / 1000.0
        self.clock = clock
        self._down_at: float | None = None  # the counted press still held
        self._up_at: float | None = None  # the last time the contact opened

    def accept(self) -> bool:
        """The contact closed: whether this is a new press."""
        now = self.clock()
        if self._down_at is not None:  # still held: the closing contact bounced
            return False
        if self._up_at is not None and now - self._up_at < self.seconds:
            return False
        self._down_at = now
        return True

    def release(self) -> float | None:
        """The contact opened: how long the counted press was held, or None (a bounce)."""
        now = self.clock()
        if self._down_at is None:  # the end of a bounce or of an uncounted tap
            self._up_at = now
            return None
        if now - self._down_at < self.SETTLE_S:
            return None
        held, self._down_at, self._up_at = now - self._down_at, None, now
        return held


def _button(pin: int, pin_factory: Any) -> Button:
    # Buttons wire the pin to GND; the internal pull-up holds it high until pressed.
    # gpiozero's own bounce_time is off: software debounce decides, the same on every factory.
    return Button(pin, pull_up=True, bounce_time=None, pin_factory=pin_factory)


class UnoButtons:
    """One shared UNO! button (the referee attributes the call) or one button per seat."""

    def __init__(
        self,
        submit: Submit,
        pin_factory: Any,
        shared_pin: int = 17,
        seat_pins: dict[str, int] | None = None,
        debounce_ms: int = 200,
        clock: Clock = time.monotonic,
    ) -> None:
        self.buttons: dict[str | None, Button] = {}
        self._submit = submit
        owners: dict[str | None, int] = {name: pin for name, pin in (seat_pins or {}).items()}
        if not owners and shared_pin:
            owners[None] = shared_pin
        try:
            for player, pin in owners.items():
                button = _button(pin, pin_factory)
                self.buttons[player] = button
                contact = Debouncer(debounce_ms, clock)
                button.when_pressed = self._handler(player, contact)
                button.when_released = contact.release
        except Exception:
            self.close()
            raise

    def _handler(self, player: str | None, debouncer: Debouncer) -> Callable[[], None]:
        event: dict = {"type": "uno"} if player is None else {"type": "uno", "player": player}

        def pressed() -> None:
            if debouncer.accept():
                self._submit(dict(event))

        return pressed

    def close(self) -> None:
        for button in self.buttons.values():
            button.close()
        self.buttons.clear()


class DrawPassButtons:
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
        self._submit = submit
        self.long_press = long_press
        self.buttons: dict[str, Button] = {}
        try:
            self.buttons["draw"] = _button(draw_pin, pin_factory)
            draw_contact = Debouncer(debounce_ms, clock)
            if pass_pin:
                self.buttons["pass"] = _button(pass_pin, pin_factory)
                pass_contact = Debouncer(debounce_ms, clock)
                self.buttons["draw"].when_pressed = self._simple({"type": "draw"}, draw_contact)
                self.buttons["draw"].when_released = draw_contact.release
                self.buttons["pass"].when_pressed = self._simple({"type": "pass"}, pass_contact)
                self.buttons["pass"].when_released = pass_contact.release
            else:
                self.buttons["draw"].when_pressed = draw_contact.accept
                self.buttons["draw"].when_released = self._press_ended(draw_contact)
        except Exception:
            self.close()
            raise

    def _simple(self, event: dict, debouncer: Debouncer) -> Callable[[], None]:
        def pressed() -> None:
            if debouncer.accept():
                self._submit(dict(event))

        return pressed

    def _press_ended(self, contact: Debouncer) -> Callable[[], None]:
        def released() -> None:
            held = contact.release()  # None: a bounce, or the end of a press that did not count
            if held is not None:
                self._submit({"type": "pass"} if held >= self.long_press else {"type": "draw"})

        return released

    def close(self) -> None:
        for button in self.buttons.values():
            button.close()
        self.buttons.clear()
