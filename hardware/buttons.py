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
    """Accepts a press unless the last accepted one was less than `ms` milliseconds ago."""

    def __init__(self, ms: int, clock: Clock = time.monotonic) -> None:
        self.seconds = ms / 1000.0
        self.clock = clock
        self._last: float | None = None

    def accept(self) -> bool:
        now = self.clock()
        if self._last is not None and now - self._last < self.seconds:
            return False
        self._last = now
        return True


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
                button.when_pressed = self._handler(player, Debouncer(debounce_ms, clock))
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
        self._clock = clock
        self.long_press = long_press
        self.buttons: dict[str, Button] = {}
        self._pressed_at: float | None = None
        try:
            self.buttons["draw"] = _button(draw_pin, pin_factory)
            draw_debounce = Debouncer(debounce_ms, clock)
            if pass_pin:
                self.buttons["pass"] = _button(pass_pin, pin_factory)
                pass_debounce = Debouncer(debounce_ms, clock)
                self.buttons["draw"].when_pressed = self._simple({"type": "draw"}, draw_debounce)
                self.buttons["pass"].when_pressed = self._simple({"type": "pass"}, pass_debounce)
            else:
                self.buttons["draw"].when_pressed = self._press_started(draw_debounce)
                self.buttons["draw"].when_released = self._press_ended
        except Exception:
            self.close()
            raise

    def _simple(self, event: dict, debouncer: Debouncer) -> Callable[[], None]:
        def pressed() -> None:
            if debouncer.accept():
                self._submit(dict(event))

        return pressed

    def _press_started(self, debouncer: Debouncer) -> Callable[[], None]:
        def pressed() -> None:
            # A bounced press is ignored, and so is the release that ends it.
            self._pressed_at = self._clock() if debouncer.accept() else None

        return pressed

    def _press_ended(self) -> None:
        if self._pressed_at is None:
            return
        held = self._clock() - self._pressed_at
        self._pressed_at = None
        self._submit({"type": "pass"} if held >= self.long_press else {"type": "draw"})

    def close(self) -> None:
        for button in self.buttons.values():
            button.close()
        self.buttons.clear()
