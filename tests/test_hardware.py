"""Buttons and lights on gpiozero's MockFactory: presses become table events, lights follow
the referee. The pin factory is passed to every device, never set class-wide."""
from __future__ import annotations

import time

import pytest
from gpiozero.pins.mock import MockFactory

from hardware import Debouncer, DrawPassButtons, Lights, UnoButtons, open_hardware


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def factory() -> MockFactory:
    return MockFactory()


@pytest.fixture
def clock() -> Clock:
    return Clock()


def press(factory: MockFactory, pin: int) -> None:
    factory.pin(pin).drive_low()
    factory.pin(pin).drive_high()


def test_debouncer_counts_a_press_after_the_switch_was_up_for_the_window(clock: Clock) -> None:
    ended: list[float] = []
    debouncer = Debouncer(200, clock, ended=ended.append, schedule=lambda delay, fn: None)
    seen = [debouncer.accept()]
    clock.advance(0.1)
    debouncer.release()
    for step in (0.05, 0.1, 0.06, 0.3):
        clock.advance(step)
        seen.append(debouncer.accept())
        debouncer.release()
    # up at 0.1; 0.05 after it is bounce, then each tap sooner than 0.2 after the last
    # opening is too; 0.3 after the last one is a new press
    assert ended[0] == pytest.approx(0.1) and seen == [True, False, False, False, True]


def _soon(check, seconds: float = 2.0) -> None:
    """Until `check()` holds: a release shorter than the settle time ends on a real timer."""
    deadline = time.monotonic() + seconds
    while not check():
        assert time.monotonic() < deadline
        time.sleep(0.005)


def _edges(factory: MockFactory, pin: int, clock: Clock, *steps: tuple[int, float]) -> None:
    """Drive the pin through (level, seconds until the next edge) steps: 0 = pressed."""
    for level, then in steps:
        (factory.pin(pin).drive_low if level == 0 else factory.pin(pin).drive_high)()
        clock.advance(then)


@pytest.mark.parametrize("steps, expected", [
    # a pass held 1.3 s whose release bounces: one pass (the next player got a draw)
    (((0, 1.3), (1, 0.002), (0, 0.002), (1, 0)), [{"type": "pass"}]),
    # a pass whose first contact bounces: still a pass, not a draw
    (((0, 0.002), (1, 0.002), (0, 1.3), (1, 0)), [{"type": "pass"}]),
    # a short press bouncing at both ends: one draw
    (((0, 0.003), (1, 0.003), (0, 0.2), (1, 0.002), (0, 0.002), (1, 0)), [{"type": "draw"}]),
])
def test_draw_pass_button_bouncing_at_either_end_is_one_press(factory, clock, steps, expected) -> None:
    events: list[dict] = []
    DrawPassButtons(events.append, factory, draw_pin=23, long_press=1.0, debounce_ms=200, clock=clock)
    _edges(factory, 23, clock, *steps)
    assert events == expected


def test_uno_button_held_with_a_bouncy_release_calls_once(factory: MockFactory, clock: Clock) -> None:
    events: list[dict] = []
    UnoButtons(events.append, factory, shared_pin=17, debounce_ms=200, clock=clock)
    _edges(factory, 17, clock, (0, 0.5), (1, 0.002), (0, 0.002), (1, 0.3), (0, 0.1), (1, 0))
    assert events == [{"type": "uno"}, {"type": "uno"}]  # the bounce once, then a real second press


def test_shared_uno_button_press_submits_uno_without_player(factory: MockFactory, clock: Clock) -> None:
    events: list[dict] = []
    buttons = UnoButtons(events.append, factory, shared_pin=17, clock=clock)
    press(factory, 17)
    assert events == [{"type": "uno"}]
    buttons.close()


def test_shared_uno_button_bounce_is_ignored(factory: MockFactory, clock: Clock) -> None:
    events: list[dict] = []
    UnoButtons(events.append, factory, shared_pin=17, debounce_ms=200, clock=clock)
    press(factory, 17)
    clock.advance(0.01)
    press(factory, 17)  # contact bounce
    clock.advance(0.02)
    press(factory, 17)
    clock.advance(0.5)
    press(factory, 17)  # a real second press
    assert events == [{"type": "uno"}, {"type": "uno"}]


def test_per_seat_uno_buttons_name_the_player(factory: MockFactory, clock: Clock) -> None:
    events: list[dict] = []
    buttons = UnoButtons(events.append, factory, shared_pin=17, seat_pins={"Ann": 5, "Bob": 6}, clock=clock)
    press(factory, 6)
    press(factory, 5)  # a different button: its own debounce
    press(factory, 17)  # the shared pin is not in use with per-seat buttons
    assert events == [{"type": "uno", "player": "Bob"}, {"type": "uno", "player": "Ann"}]
    assert set(buttons.buttons) == {"Ann", "Bob"}


@pytest.mark.parametrize("held, expected", [(0.2, "draw"), (0.99, "draw"), (1.0, "pass"), (3.0, "pass")])
def test_draw_pass_single_button_short_draws_long_passes(
    factory: MockFactory, clock: Clock, held: float, expected: str
) -> None:
    events: list[dict] = []
    DrawPassButtons(events.append, factory, draw_pin=23, long_press=1.0, clock=clock)
    factory.pin(23).drive_low()
    clock.advance(held)
    factory.pin(23).drive_high()
    assert events == [{"type": expected}]


def test_draw_pass_bounced_press_and_its_release_are_ignored(factory: MockFactory, clock: Clock) -> None:
    events: list[dict] = []
    DrawPassButtons(events.append, factory, draw_pin=23, debounce_ms=200, clock=clock)
    press(factory, 23)
    clock.advance(0.05)
    press(factory, 23)
    assert events == [{"type": "draw"}]


def test_draw_pass_two_buttons(factory: MockFactory, clock: Clock) -> None:
    events: list[dict] = []
    DrawPassButtons(events.append, factory, draw_pin=23, pass_pin=24, clock=clock)
    factory.pin(23).drive_low()
    clock.advance(5)  # a long press on the draw button still only draws
    factory.pin(23).drive_high()
    press(factory, 24)
    assert events == [{"type": "draw"}, {"type": "pass"}]


def test_led_lit_while_uno_window_open(factory: MockFactory) -> None:
    lights = Lights(factory, led_pin=27, background=False, flash_on=0.001)
    assert not lights.led_lit
    lights.update({"uno_window": "Ann"}, [{"kind": "uno_called"}])
    assert lights.led_lit and factory.pin(27).state
    lights.update({"uno_window": None}, [])
    assert not lights.led_lit


def test_led_flashes_on_illegal_play_then_shows_the_window(factory: MockFactory) -> None:
    lights = Lights(factory, led_pin=27, background=False, flash_on=0.001)
    pin = factory.pin(27)
    pin.clear_states()
    lights.update({"uno_window": "Bob"}, [{"kind": "illegal_play", "player": "Ann"}])
    lit = [s.state for s in pin.states]
    # several on/off flashes, then lit again because Bob's window is open
    assert lit.count(True) >= 6 and lit[-1] is True
    lights.update({"uno_window": None}, [{"kind": "illegal_play"}])
    assert not lights.led_lit


def test_led_winks_when_a_call_counts_and_not_on_a_refused_press(factory: MockFactory) -> None:
    # the window's light was already on: a counted call and a refused press looked the same
    lights = Lights(factory, led_pin=27, background=False, flash_on=0.001)
    pin = factory.pin(27)
    lights.update({"uno_window": "Ann"}, [])
    pin.clear_states()
    lights.update({"uno_window": "Ann"}, [{"kind": "rejected", "message": "no UNO window is open"}])
    assert [s.state for s in pin.states].count(False) == 0  # left as it was
    pin.clear_states()
    lights.update({"uno_window": "Ann"}, [{"kind": "uno_called", "player": "Ann"}])
    lit = [s.state for s in pin.states]
    assert lit.count(False) == 2 and lit[-1] is True  # two winks, then the window's light again


@pytest.mark.parametrize(
    "kinds, beeps",
    [([], 0), (["uno_called"], 0), (["rejected"], 0), (["hand_won"], 1), (["uno_penalty"], 2), (["illegal_play"], 2)],
)
def test_buzzer_beeps_on_notices(factory: MockFactory, kinds: list[str], beeps: int) -> None:
    lights = Lights(factory, led_pin=0, buzzer_pin=18, background=False, flash_on=0.001)
    pin = factory.pin(18)
    pin.clear_states()
    lights.update({"uno_window": None}, [{"kind": k} for k in kinds])
    assert [s.state for s in pin.states].count(True) == beeps


def test_open_hardware_builds_what_the_config_names(factory: MockFactory, clock: Clock) -> None:
    events: list[dict] = []
    gpio = {"enabled": True, "uno_pin": 17, "draw_pin": 23, "pass_pin": 0, "led_pin": 27,
            "buzzer_pin": 18, "debounce_ms": 200, "long_press": 1.0}
    hw = open_hardware(gpio, {}, events.append, pin_factory=factory, clock=clock, background=False)
    assert hw is not None
    assert hw.describe() == "shared UNO! button, draw/pass button, LED, buzzer"
    press(factory, 17)
    hw.update({"uno_window": "Cy"}, [])
    assert events == [{"type": "uno"}] and factory.pin(27).state
    hw.close()


def test_open_hardware_leaves_out_a_part_that_fails(factory: MockFactory) -> None:
    said: list[str] = []
    factory.pin(27)  # fine; now make the LED pin clash with the button's
    gpio = {"uno_pin": 17, "led_pin": 17}
    hw = open_hardware(gpio, {}, lambda e: None, pin_factory=factory, say=said.append)
    assert hw is not None and hw.uno is not None and hw.lights is None
    assert len(said) == 1 and said[0].startswith("GPIO: lights:")


def test_seat_buttons_follow_the_players_at_the_table(factory: MockFactory, clock: Clock) -> None:
    # --players Bob,Cy,Dee with buttons for Ann, Bob and Cy: Ann's is left out (said), and Dee
    # calls on the shared button, whose pin is free; before, Dee had none and nothing said so
    events: list[dict] = []
    said: list[str] = []
    hw = open_hardware({"uno_pin": 17, "led_pin": 0}, {"Ann": 5, "Bob": 6, "Cy": 13}, events.append,
                       pin_factory=factory, clock=clock, say=said.append, players=["Bob", "Cy", "Dee"])
    assert hw is not None and hw.describe() == "UNO! buttons for Bob, Cy and a shared one"
    assert said == ["GPIO: [gpio.seats] names Ann, not at this table: that button is left out",
                    "GPIO: Dee has no UNO! button of their own ([gpio.seats]): the shared one (pin 17) is theirs"]
    press(factory, 17)
    press(factory, 6)
    press(factory, 5)  # Ann's old button: not opened
    assert events == [{"type": "uno"}, {"type": "uno", "player": "Bob"}]
    hw.close()
    # the shared pin given to a seat: the players without a button are told to use their phones
    said.clear()
    hw = open_hardware({"uno_pin": 17, "led_pin": 0}, {"Ann": 17}, events.append, pin_factory=factory,
                       clock=clock, say=said.append, players=["Ann", "Bob"])
    assert hw is not None and hw.describe() == "UNO! buttons for Ann"
    assert said == ["GPIO: Bob has no UNO! button of their own ([gpio.seats]) and the shared pin is a seat's: "
                    "they call UNO! on their phones"]
    hw.close()


def test_a_pin_in_use_is_said_without_a_python_object(factory: MockFactory) -> None:
    said: list[str] = []
    from gpiozero import Button

    holder = Button(17, pin_factory=factory)
    open_hardware({"uno_pin": 17, "led_pin": 0}, {}, lambda e: None, pin_factory=factory, say=said.append)
    assert len(said) == 1 and "<" not in said[0] and said[0].endswith("(left out)"), said
    holder.close()


def test_open_hardware_without_gpio_says_so_once(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    said: list[str] = []
    assert open_hardware({"enabled": True}, {}, lambda e: None, say=said.append) is None
    assert len(said) == 1 and "buttons and lights are off" in said[0]


def test_open_hardware_disabled_says_nothing() -> None:
    said: list[str] = []
    assert open_hardware({"enabled": False}, {}, lambda e: None, say=said.append) is None
    assert said == []


def test_led_flash_in_background_returns_to_the_window_light(factory: MockFactory) -> None:
    import time

    lights = Lights(factory, led_pin=27, background=True, flash_on=0.005)
    pin = factory.pin(27)
    pin.clear_states()
    lights.update({"uno_window": "Ann"}, [{"kind": "illegal_play"}])  # returns at once
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and [s.state for s in pin.states].count(True) < 7:
        time.sleep(0.01)
    assert [s.state for s in pin.states].count(True) >= 7  # six flashes, then lit for Ann's window
    assert lights.led_lit
    lights.close()


def test_a_very_short_tap_still_counts_and_does_not_leave_the_button_held(factory: MockFactory, clock: Clock) -> None:
    # a 10 ms tap: its release could not be told from a bounce at once; it must still end the
    # press (it was left "held", and the next tap, 5 s later, became a pass)
    events: list[dict] = []
    DrawPassButtons(events.append, factory, draw_pin=23, long_press=1.0, clock=clock)
    _edges(factory, 23, clock, (0, 0.01), (1, 5.0))
    _soon(lambda: events == [{"type": "draw"}])
    _edges(factory, 23, clock, (0, 0.1), (1, 0))
    assert events == [{"type": "draw"}, {"type": "draw"}]
    calls: list[dict] = []
    UnoButtons(calls.append, factory, shared_pin=17, clock=clock)
    _edges(factory, 17, clock, (0, 0.01), (1, 5.0))
    time.sleep(0.05)
    _edges(factory, 17, clock, (0, 0.1), (1, 0))
    assert calls == [{"type": "uno"}, {"type": "uno"}]


def test_no_gpio_is_said_in_a_players_words(monkeypatch: pytest.MonkeyPatch) -> None:
    import hardware

    def none() -> None:
        raise hardware.NoGpio("Unable to load any default pin factory!")

    monkeypatch.setattr(hardware, "default_pin_factory", none)
    said: list[str] = []
    assert open_hardware({"enabled": True}, {}, lambda event, source: None, say=said.append) is None
    assert said == ["GPIO: none on this machine (not a Raspberry Pi, or its GPIO library is missing); "
                    "buttons and lights are off, the phones do it all"]
