"""The UNO! LED and the buzzer: they show the referee's state and notices.

The LED is lit while an UNO! window is open (state["uno_window"]), winks twice when an UNO!
call counts and flashes on an illegal play; the optional active buzzer beeps on referee notices (twice for a penalty). `update` is
called from the referee's subscriber, so it only starts background blinks, never waits.
"""
from __future__ import annotations

import threading
from typing import Any

from gpiozero import LED, Buzzer

# Notices worth a sound; the rest (e.g. uno_called, rejected) stay quiet.
BEEP_ONCE = frozenset({"hand_won", "challenge_upheld", "challenge_failed", "catch_void", "reshuffle", "count_mismatch"})
BEEP_TWICE = frozenset({"illegal_play", "uno_penalty", "penalty_draw", "game_won"})
FLASH_ON = 0.12  # seconds per half-blink of an illegal-play flash
FLASH_COUNT = 6
# A call that counted (a button's or a phone's) winks the LED twice, quicker than the illegal
# play's flash: whoever hit the button sees it was taken (a refused press leaves the LED as it was)
WINK_COUNT = 2


class Lights:
    def __init__(
        self,
        pin_factory: Any,
        led_pin: int = 27,
        buzzer_pin: int = 0,
        background: bool = True,
        flash_on: float = FLASH_ON,
    ) -> None:
        # background=False makes blinks run to completion inside update() (for tests).
        self.background = background
        self.flash_on = flash_on
        self.led: LED | None = None
        self.buzzer: Buzzer | None = None
        self._window = False
        self._lock = threading.Lock()
        try:
            if led_pin:
                self.led = LED(led_pin, pin_factory=pin_factory)
            if buzzer_pin:
                self.buzzer = Buzzer(buzzer_pin, pin_factory=pin_factory)
        except Exception:
            self.close()
            raise

    def update(self, state: dict, notices: list[dict]) -> None:
        """Show a new referee state and the notices the last event produced."""
        kinds = {n.get("kind") for n in notices}
        with self._lock:
            self._window = bool(state.get("uno_window"))
            if self.led is not None:
                if "illegal_play" in kinds:
                    self._flash(FLASH_COUNT, self.flash_on)
                elif "uno_called" in kinds:
                    self._flash(WINK_COUNT, self.flash_on / 2)
                else:
                    self._show_window()
            if self.buzzer is not None:
                if kinds & BEEP_TWICE:
                    self.buzzer.beep(on_time=self.flash_on, off_time=self.flash_on, n=2, background=self.background)
                elif kinds & BEEP_ONCE:
                    self.buzzer.beep(on_time=self.flash_on, off_time=self.flash_on, n=1, background=self.background)

    def _show_window(self) -> None:
        assert self.led is not None
        if self._window:
            self.led.on()
        else:
            self.led.off()

    def _flash(self, count: int, half: float) -> None:
        assert self.led is not None
        if not self.background:
            self.led.blink(on_time=half, off_time=half, n=count, background=False)
            self._show_window()
            return
        self.led.blink(on_time=half, off_time=half, n=count, background=True)
        # gpiozero leaves the LED off after n blinks: put the window's light back afterwards.
        timer = threading.Timer(2 * half * count + 0.05, self._restore)
        timer.daemon = True
        timer.start()

    def _restore(self) -> None:
        with self._lock:
            if self.led is not None and not self.led.closed:
                self._show_window()

    @property
    def led_lit(self) -> bool:
        return bool(self.led is not None and self.led.is_lit)

    def close(self) -> None:
        for device in (self.led, self.buzzer):
            if device is not None:
                device.close()
        self.led = None
        self.buzzer = None
