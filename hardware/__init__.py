"""Buttons and lights on the Raspberry Pi's GPIO header (gpiozero), and the Pi's set-up.

`open_hardware` builds everything the configuration names on one pin factory, passed in
explicitly (tests pass gpiozero's MockFactory). On a machine without GPIO it returns None
and says so once; the companion runs on without buttons and lights.
"""
from __future__ import annotations

import logging
import re
import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from hardware.buttons import Clock, Debouncer, DrawPassButtons, Submit, UnoButtons
from hardware.lights import Lights

__all__ = ["Hardware", "open_hardware", "default_pin_factory", "Debouncer", "UnoButtons", "DrawPassButtons", "Lights"]

log = logging.getLogger("companion.hardware")


class NoGpio(RuntimeError):
    """This machine has no GPIO pin factory (a laptop, a container)."""


def default_pin_factory() -> Any:
    """gpiozero's own choice (lgpio on a Pi 5 / Bookworm, then RPi.GPIO, pigpio, native);
    GPIOZERO_PIN_FACTORY=mock selects the mock pins for a try-out."""
    from gpiozero import Device

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the fall-back chain warns once per factory tried
        try:
            return Device._default_pin_factory()
        except Exception as exc:
            raise NoGpio(str(exc)) from None


@dataclass
class Hardware:
    """The buttons and lights that are fitted; `update` shows a referee state on the lights."""

    uno: UnoButtons | None = None
    draw_pass: DrawPassButtons | None = None
    lights: Lights | None = None
    errors: list[str] = field(default_factory=list)

    def update(self, state: dict, notices: list[dict]) -> None:
        if self.lights is None:
            return
        try:
            self.lights.update(state, notices)
        except Exception:  # a broken LED must never stop the referee
            log.exception("lights: update failed")

    def describe(self) -> str:
        parts = []
        if self.uno is not None:
            seats = [p for p in self.uno.buttons if p is not None]
            shared = None in self.uno.buttons
            parts.append((f"UNO! buttons for {', '.join(seats)}" + (" and a shared one" if shared else ""))
                         if seats else "shared UNO! button")
        if self.draw_pass is not None:
            parts.append("draw/pass buttons" if "pass" in self.draw_pass.buttons else "draw/pass button")
        if self.lights is not None and self.lights.led is not None:
            parts.append("LED")
        if self.lights is not None and self.lights.buzzer is not None:
            parts.append("buzzer")
        return ", ".join(parts) or "nothing fitted"

    def close(self) -> None:
        for part in (self.uno, self.draw_pass, self.lights):
            if part is not None:
                try:
                    part.close()
                except Exception:
                    log.exception("hardware: close failed")


def open_hardware(
    gpio: Mapping[str, Any],
    seats: Mapping[str, int],
    submit: Submit,
    pin_factory: Any = None,
    clock: Clock = time.monotonic,
    background: bool = True,
    say: Callable[[str], None] = print,
    players: Sequence[str] = (),
) -> Hardware | None:
    """Open the buttons and lights a [gpio] configuration names.

    Returns None (after saying why, once) when GPIO is off or absent. A part that fails to
    open (a pin already in use) is logged and left out; the others still work. `players`: the
    table's, when known: a seat button of someone not at the table is left out, and players
    without one call on the shared button (when its pin is free) or on their phones."""
    if not gpio.get("enabled", True):
        return None
    seats = dict(seats)
    shared_too = False
    if players and seats:
        away = [name for name in seats if name not in players]
        for name in away:
            del seats[name]
        if away:
            say(f"GPIO: [gpio.seats] names {', '.join(away)}, not at this table: "
                f"{'that button is' if len(away) == 1 else 'those buttons are'} left out")
        without = [name for name in players if name not in seats]
        shared_pin = int(gpio.get("uno_pin", 17))
        if without and seats:
            shared_too = bool(shared_pin) and shared_pin not in seats.values()
            say(f"GPIO: {', '.join(without)} {'has' if len(without) == 1 else 'have'} no UNO! button of "
                + ("their own ([gpio.seats]): the shared one (pin %d) is theirs" % shared_pin if shared_too
                   else "their own ([gpio.seats]) and the shared pin is a seat's: they call UNO! on their phones"))
    if pin_factory is None:
        try:
            pin_factory = default_pin_factory()
        except NoGpio as exc:
            # (gpiozero's own words, "Unable to load any default pin factory!", are for developers)
            log.debug("no pin factory: %s", exc)
            say("GPIO: none on this machine (not a Raspberry Pi, or its GPIO library is missing); "
                "buttons and lights are off, the phones do it all")
            return None
    hardware = Hardware()
    debounce = int(gpio.get("debounce_ms", 200))
    try:
        if seats or gpio.get("uno_pin", 17):
            hardware.uno = UnoButtons(submit, pin_factory, int(gpio.get("uno_pin", 17)), seats, debounce, clock,
                                      shared_too=shared_too)
    except Exception as exc:
        hardware.errors.append(f"UNO! button: {exc}")
    try:
        if gpio.get("draw_pin"):
            hardware.draw_pass = DrawPassButtons(
                submit, pin_factory, int(gpio["draw_pin"]), int(gpio.get("pass_pin") or 0),
                float(gpio.get("long_press", 1.0)), debounce, clock,
            )
    except Exception as exc:
        hardware.errors.append(f"draw/pass button: {exc}")
    try:
        if gpio.get("led_pin") or gpio.get("buzzer_pin"):
            hardware.lights = Lights(pin_factory, int(gpio.get("led_pin") or 0), int(gpio.get("buzzer_pin") or 0), background)
    except Exception as exc:
        hardware.errors.append(f"lights: {exc}")
    for error in hardware.errors:
        # gpiozero names the pin's holder as a Python object ("in use by <gpiozero.Button ...>")
        say(f"GPIO: {re.sub(r' by <.*>', '', error)} (left out)")
    return hardware
